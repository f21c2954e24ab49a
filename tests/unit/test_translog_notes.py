"""Signed notes, keys, checkpoints and cosignatures of libs/translog against Go's
sumdb/note vectors, the C2SP specs' examples and transparency-dev's cosignature keys
(tests/data/translog/notes.json), and every refusal with its stable code."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from translog import (
    AmbiguousKey,
    BadSignature,
    Checkpoint,
    CheckpointMalformed,
    Cosignature,
    CosignatureVerifier,
    Cosigner,
    Ed25519Signer,
    Ed25519Verifier,
    KeyMalformed,
    Note,
    NoteMalformed,
    Signature,
    TooFewCosignatures,
    TranslogError,
    UnknownKey,
    WrongOrigin,
    cosigned_message,
    leaf_hash,
    open_checkpoint,
    open_note,
    parse_checkpoint,
    parse_note,
    parse_skey,
    parse_vkey,
    sign_checkpoint,
    sign_note,
    tree_hash,
)
from translog.cosignature import split_timestamped
from translog.note import parse_signature_line

NOTES = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "translog" / "notes.json").read_text(
        encoding="utf-8"
    )
)
GO = NOTES["go"]
C2SP = NOTES["c2sp"]
FORMATS = NOTES["formats"]
TEXT = GO["text"]
PETER, ENOCH = GO["peter"], GO["enoch"]

LOG = Ed25519Signer("belot.example/log", bytes(range(32)))
WITNESS = Cosigner("witness.example/w1", bytes(range(32, 64)))
OTHER_WITNESS = Cosigner("witness.example/w2", bytes(range(64, 96)))
CHECKPOINT = Checkpoint("belot.example/log", 1234, leaf_hash(b"root"))
T = 1_700_000_000


# Go's sumdb/note vectors -----------------------------------------------------------------


def test_go_private_key_reproduces_its_published_signature() -> None:
    signer = parse_skey(PETER["skey"])
    assert isinstance(signer, Ed25519Signer)
    assert signer.name == "PeterNeumann"
    assert f"{signer.key_id:08x}" == PETER["key_id"]
    assert signer.vkey == PETER["vkey"]
    assert signer.skey == PETER["skey"]
    # Ed25519 is deterministic: the same key and text give Go's bytes exactly.
    assert sign_note(TEXT, signer).to_text() == TEXT + "\n" + PETER["line"]


def test_go_known_note_opens_with_its_keys() -> None:
    peter, enoch = parse_vkey(PETER["vkey"]), parse_vkey(ENOCH["vkey"])
    assert isinstance(peter, Ed25519Verifier)
    assert f"{peter.key_id:08x}" == PETER["key_id"]
    assert f"{enoch.key_id:08x}" == ENOCH["key_id"]
    message = TEXT + "\n" + PETER["line"] + ENOCH["line"]

    opened = open_note(message, [peter])
    assert opened.text == TEXT
    assert [s.line() for s in opened.verified] == [PETER["line"]]
    assert [s.line() for s in opened.unverified] == [ENOCH["line"]]

    opened = open_note(message, [peter, enoch])
    assert [s.line() for s in opened.verified] == [PETER["line"], ENOCH["line"]]
    assert opened.unverified == ()

    with pytest.raises(UnknownKey):
        open_note(message, [])
    # A repeated identical line of a trusted key is verified again and counted once.
    assert len(open_note(TEXT + "\n" + PETER["line"] * 3, [peter]).verified) == 1


def test_go_manglings_of_a_vkey_are_refused() -> None:
    vkey = PETER["vkey"]
    for bad in GO["bad_vkeys"]:
        with pytest.raises(KeyMalformed):
            parse_vkey(bad)
    for i in range(len(vkey) + 1):
        for j in range(i + 1, len(vkey) + 1):
            if (i, j) != (0, len(vkey)):
                with pytest.raises(KeyMalformed):
                    parse_vkey(vkey[i:j])
    for i in range(len(vkey)):
        with pytest.raises(KeyMalformed):
            parse_vkey(vkey[:i] + chr(ord(vkey[i]) + 1) + vkey[i + 1 :])


def test_go_manglings_of_an_skey_are_refused() -> None:
    skey = PETER["skey"]
    for i in range(len(skey)):
        with pytest.raises(KeyMalformed):
            parse_skey(skey[:i] + chr(ord(skey[i]) + 1) + skey[i + 1 :])
    for cut in range(1, len(skey)):
        with pytest.raises(KeyMalformed):
            parse_skey(skey[:cut])


@pytest.mark.parametrize(
    "message",
    [
        TEXT,
        TEXT + "\n",
        TEXT + "\n" + PETER["line"][:-1],
        "\x01" + TEXT + "\n" + PETER["line"],
        TEXT + "\n" + "— Bad Name " + PETER["line"].split(" ")[2],
        TEXT + "\n" + PETER["line"] + "Unexpected line.\n",
        TEXT + "\n" + PETER["line"] * 101,
    ],
    ids=[
        "no-signatures",
        "blank-only",
        "no-final-newline",
        "control",
        "space-in-name",
        "trailing-line",
        "101-signatures",
    ],
)
def test_go_malformed_notes(message: str) -> None:
    with pytest.raises(NoteMalformed) as refused:
        open_note(message, [parse_vkey(PETER["vkey"])])
    assert refused.value.code == "note_malformed"


def test_go_malformed_utf8_note() -> None:
    with pytest.raises(NoteMalformed):
        parse_note(b"\xff" + (TEXT + "\n" + PETER["line"]).encode())


def test_go_altered_signature_of_a_known_key() -> None:
    line = PETER["line"]
    altered = line[:60] + "ABCD" + line[60:]
    with pytest.raises(BadSignature) as refused:
        open_note(TEXT + "\n" + altered, [parse_vkey(PETER["vkey"])])
    assert refused.value.code == "note_bad_signature"
    # The same line is merely unverified for a reader who does not trust Peter.
    opened = open_note(TEXT + "\n" + altered + ENOCH["line"], [parse_vkey(ENOCH["vkey"])])
    assert len(opened.unverified) == 1


# The C2SP specs' examples ----------------------------------------------------------------


def test_signed_note_spec_example() -> None:
    case = C2SP["signed_note"]
    verifier = parse_vkey(case["vkey"])
    assert verifier.vkey == case["vkey"]
    opened = open_note(case["note"], [verifier])
    assert opened.text == "This is an example message.\n"
    assert opened.verified[0].key_id == 0x530D903A


def test_checkpoint_spec_example() -> None:
    case = C2SP["checkpoint"]
    note = parse_note(case["note"])
    checkpoint = parse_checkpoint(note.text)
    assert (checkpoint.origin, checkpoint.size) == (case["origin"], case["size"])
    assert checkpoint.to_text() == note.text
    assert note.to_text() == case["note"]
    log_line, witness_line = note.signatures
    assert log_line.name == checkpoint.origin
    cosignature = Cosignature.of(witness_line)
    assert cosignature.name == case["cosignature_name"]
    assert cosignature.timestamp == case["cosignature_time"]
    # The spec's signed message for that time and body, byte for byte.
    assert cosigned_message(note.text, cosignature.timestamp) == case["cosigned_message"].encode()


def test_real_witness_keys() -> None:
    cosigner = parse_vkey(FORMATS["cosigner_vkey"])
    assert isinstance(cosigner, CosignatureVerifier)
    assert cosigner.name == "remora.n621.de"
    assert cosigner.key_id == 0xDA77ADE7
    assert cosigner.vkey == FORMATS["cosigner_vkey"]
    # The same key as a type-0x01 note key has another key ID: the type byte is hashed.
    as_note_key = Ed25519Verifier(cosigner.name, cosigner.public_key)
    assert as_note_key.key_id != cosigner.key_id
    # A vkey whose base64 holds a '+'.
    assert parse_vkey(FORMATS["ed25519_vkey"]).key_id == 0x7997405C


def test_published_cosignature_timestamp() -> None:
    raw = base64.b64decode(FORMATS["cosignature"])
    timestamp, signature = split_timestamped(raw[4:])
    assert timestamp == FORMATS["cosignature_time"]
    assert len(signature) == 64


# A cosignature built byte by byte from the spec --------------------------------------------


def test_cosignature_matches_the_spec_byte_layout() -> None:
    seed = bytes(range(32, 64))
    name = "witness.example/w1"
    body = CHECKPOINT.to_text()
    private = Ed25519PrivateKey.from_private_bytes(seed)
    public = private.public_key().public_bytes_raw()
    # tlog-cosignature: the key ID over 0x04, the message, u64 timestamp || signature.
    kid = hashlib.sha256(name.encode() + b"\n" + b"\x04" + public).digest()[:4]
    message = b"cosignature/v1\ntime 1700000000\n" + body.encode()
    signature = private.sign(message)
    line = "— " + name + " " + base64.b64encode(kid + T.to_bytes(8, "big") + signature).decode()

    made = WITNESS.sign(body, T)
    assert made.line() == line + "\n"
    assert WITNESS.vkey == f"{name}+{kid.hex()}+" + base64.b64encode(b"\x04" + public).decode()
    assert parse_signature_line(line) == made
    assert WITNESS.verifier().verify(body, made.data)
    # The same bytes are no plain Ed25519 note signature of the body.
    assert not Ed25519Verifier(name, public).verify(body, made.data)


# Checkpoints, opened as a reader does ----------------------------------------------------


def cosigned(*witnesses: Cosigner) -> str:
    note = sign_checkpoint(CHECKPOINT, LOG)
    body = CHECKPOINT.to_text()
    return note.with_signatures(*(w.sign(body, T + i) for i, w in enumerate(witnesses))).to_text()


def test_open_checkpoint_collects_trusted_cosignatures() -> None:
    text = cosigned(WITNESS, OTHER_WITNESS)
    signed = open_checkpoint(text, LOG.verifier(), [WITNESS.verifier()], quorum=1)
    assert signed.checkpoint == CHECKPOINT
    assert signed.cosignatures == (Cosignature(WITNESS.name, WITNESS.key_id, T),)
    assert signed.cosignature_by(WITNESS.name) == signed.cosignatures[0]
    both = open_checkpoint(text, LOG.verifier(), [OTHER_WITNESS.verifier(), WITNESS.verifier()])
    assert [c.timestamp for c in both.cosignatures] == [T, T + 1]  # the note's order
    assert open_checkpoint(text, LOG.verifier()).cosignatures == ()


def test_a_newer_cosignature_replaces_the_older() -> None:
    note = parse_note(cosigned(WITNESS))
    note = note.with_signatures(WITNESS.sign(note.text, T + 60))
    signed = open_checkpoint(note, LOG.verifier(), [WITNESS.verifier()])
    assert [c.timestamp for c in signed.cosignatures] == [T + 60]


@dataclass(frozen=True)
class FakeVerifier:
    name: str
    key_id: int
    signature_type: int = 0x01

    def verify(self, text: str, data: bytes) -> bool:
        return True


def backdated() -> Note:
    """A cosignature whose timestamp was rewritten after signing."""
    good = WITNESS.sign(CHECKPOINT.to_text(), T)
    earlier = (T - 3600).to_bytes(8, "big") + good.data[8:]
    return sign_checkpoint(CHECKPOINT, LOG).with_signatures(
        Signature(good.name, good.key_id, earlier)
    )


REFUSALS = [
    (
        "quorum",
        lambda: open_checkpoint(
            cosigned(WITNESS), LOG.verifier(), [OTHER_WITNESS.verifier()], quorum=1
        ),
        TooFewCosignatures,
        "checkpoint_quorum",
    ),
    (
        "origin",
        lambda: open_checkpoint(cosigned(), LOG.verifier(), origin="other.example/log"),
        WrongOrigin,
        "checkpoint_wrong_origin",
    ),
    (
        "log-absent",
        lambda: open_checkpoint(
            Note(CHECKPOINT.to_text(), (WITNESS.sign(CHECKPOINT.to_text(), T),)).to_text(),
            LOG.verifier(),
            [WITNESS.verifier()],
        ),
        UnknownKey,
        "note_unknown_key",
    ),
    (
        "witness-type",
        lambda: open_checkpoint(cosigned(), LOG.verifier(), [LOG.verifier()]),
        KeyMalformed,
        "key_malformed",
    ),
    (
        "witness-bad",
        lambda: open_checkpoint(backdated(), LOG.verifier(), [WITNESS.verifier()]),
        BadSignature,
        "note_bad_signature",
    ),
    (
        "not-a-checkpoint",
        lambda: open_checkpoint(sign_note("two\nlines\n", LOG), LOG.verifier()),
        CheckpointMalformed,
        "checkpoint_malformed",
    ),
    (
        "cosign-not-a-checkpoint",
        lambda: WITNESS.sign("hello\n", T),
        CheckpointMalformed,
        "checkpoint_malformed",
    ),
    (
        "cosign-time",
        lambda: WITNESS.sign(CHECKPOINT.to_text(), 2**63),
        NoteMalformed,
        "note_malformed",
    ),
    (
        "ambiguous",
        lambda: open_note(cosigned(), [FakeVerifier("a", 1), FakeVerifier("a", 1, 4)]),
        AmbiguousKey,
        "key_ambiguous",
    ),
    ("bad-name", lambda: Ed25519Signer("has space", bytes(32)), KeyMalformed, "key_malformed"),
    ("bad-seed", lambda: Ed25519Signer("a", bytes(31)), KeyMalformed, "key_malformed"),
    (
        "bad-type",
        lambda: parse_vkey("a+" + "0" * 8 + "+" + base64.b64encode(b"\x09" + bytes(32)).decode()),
        KeyMalformed,
        "key_malformed",
    ),
]


@pytest.mark.parametrize("case", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_refusals_have_stable_codes(case: tuple) -> None:
    _, call, error, code = case
    with pytest.raises(error) as refused:
        call()
    assert refused.value.code == code
    assert isinstance(refused.value, TranslogError) and isinstance(refused.value, ValueError)
    assert refused.value.message


ROOT_B64 = base64.b64encode(bytes(32)).decode()


@pytest.mark.parametrize(
    "text",
    [
        f"log\n5\n{ROOT_B64}",  # no final newline
        "log\n5\n",  # no root line
        f"\n5\n{ROOT_B64}\n",  # empty origin
        f"log\n05\n{ROOT_B64}\n",
        f"log\n+5\n{ROOT_B64}\n",
        f"log\n-1\n{ROOT_B64}\n",
        f"log\n 5\n{ROOT_B64}\n",
        f"log\n٥\n{ROOT_B64}\n",  # a non-ASCII digit
        f"log\n{2**63}\n{ROOT_B64}\n",
        f"log\n5\n{base64.b64encode(bytes(31)).decode()}\n",
        f"log\n5\n{ROOT_B64.rstrip('=')}\n",  # unpadded
        "log\n5\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB=\n",  # stray bits
        f"log\n5\n{ROOT_B64}\n\n",  # an empty extension line
        f"log\n{'9' * 5000}\n{ROOT_B64}\n",  # past int()'s digit limit
    ],
)
def test_malformed_checkpoints(text: str) -> None:
    with pytest.raises(CheckpointMalformed):
        parse_checkpoint(text)


def test_checkpoint_round_trip_with_extensions() -> None:
    checkpoint = Checkpoint("belot.example/log", 0, leaf_hash(b""), ("ext one", "two"))
    assert parse_checkpoint(checkpoint.to_text()) == checkpoint
    assert checkpoint.to_text().endswith("ext one\ntwo\n")


def test_keys_keep_their_secret_out_of_repr() -> None:
    assert WITNESS.seed.hex() not in repr(WITNESS)
    assert repr(LOG) == "Ed25519Signer(name='belot.example/log')"
    assert parse_skey(WITNESS.skey) == WITNESS
    assert parse_vkey(WITNESS.vkey) == WITNESS.verifier()
    assert parse_vkey(LOG.vkey) == LOG.verifier()


def test_the_docs_example_checkpoint_opens_with_the_docs_keys() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "transparency-log.md").read_text(
        encoding="utf-8"
    )
    blocks = page.split("```")[1::2]
    note = next(b for b in blocks if b.startswith("\nbelot.example/log\n5\n"))[1:]
    vkeys = next(b for b in blocks if b.startswith("\nbelot.example/log+")).split()
    log, witness = (parse_vkey(v) for v in vkeys)
    signed = open_checkpoint(note, log, [witness], quorum=1)
    assert signed.checkpoint.root_hash == tree_hash(b"entry %d" % i for i in range(5))
    assert signed.cosignatures[0].timestamp == 1767225600
