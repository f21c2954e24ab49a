"""A forfeit is the seat's own choice only if the seat signed it (fairdeal.leave).

The attack (issue 28, case 4): mid-match, once the decks were known, the operator writes
``MatchForfeited`` for a human who never asked, and rebuilds the record consistently
(hash chains, summary). Before signed leaves the third party's check passed it ("a seat's
own choice"). Now the commitment records each human seat's key before any seed, the
forfeit carries the seat's signature, and ``belot verify``'s ``ending`` check fails every
forfeit the record cannot show the seat asked for. Each forgery below is built as a
careful operator would: ``tools.matchgen`` writes the whole match that way, chains and
summary included, so only the signature's check can catch it.
"""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import drand
from fairdeal.leave import KEY_SIZE, leave_message, verify_leave
from fairdeal.verifier import verify_record
from fairdeal.verifier.report import FAIL, PASS, SKIP
from tests.tamper import Record, find, tampered
from tools.matchgen import MatchSpec, leave_signature_of, offline_record, seat_key_of

SPEC = MatchSpec(ruleset="classic", end="forfeit", label="signed-leave", leaver=2)


def record(**changes: object) -> Record:
    spec = MatchSpec(**{**SPEC.__dict__, **changes})  # type: ignore[arg-type]
    result: Record = json.loads(json.dumps(offline_record(spec)))
    return result


def ending(r: Record) -> tuple[str, str]:
    report = verify_record(r, bls=drand.verify)
    check = next(c for c in report.checks if c.name == "ending")
    others = [c.name for c in report.checks if c.status != PASS and c.name != "ending"]
    assert others == [], f"only the ending is in question here: {others}"
    return check.status, check.detail


def test_the_seats_own_signed_leave_passes() -> None:
    r = record()
    commit = find(r, "randomness", "ServerSeedCommitted")["payload"]
    keys = {s["seat"]: s["key"] for s in commit["seats"]}
    # The humans' keys are recorded before any seed; the bots have none.
    assert keys == {0: seat_key_of(SPEC, 0).hex(), 1: "", 2: seat_key_of(SPEC, 2).hex(), 3: ""}
    assert commit["signed_leaves"] is True
    forfeit = find(r, "match", "MatchForfeited")["payload"]
    assert forfeit["leaver"] == 2 and len(bytes.fromhex(forfeit["signature"])) == 64
    status, detail = ending(r)
    assert status == PASS, detail
    assert "its own signed request" in detail


@pytest.mark.parametrize(
    ("attack", "changes", "said"),
    [
        # The operator writes the forfeit and signs nothing.
        ("unsigned", {"leave": "unsigned"}, "without the seat's signature"),
        # A bot's seat "left": a bot never asks, and has no key.
        ("a bot left", {"leaver": 1}, "a bot"),
    ],
)
def test_a_forfeit_the_seat_did_not_sign_fails_the_default_check(
    attack: str, changes: dict[str, object], said: str
) -> None:
    status, detail = ending(record(**changes))
    assert status == FAIL, (attack, detail)
    assert said in detail


def _signed_by(key: Ed25519PrivateKey, match_id: str, seat: int) -> str:
    return key.sign(leave_message(match_id, seat)).hex()


def test_a_signature_of_another_match_or_seat_or_key_fails() -> None:
    """The operator holds real signatures: a seat's leave of another match (or another
    seat's of this one) replayed here, or one by a key it made; each written into the
    forfeit and the record rebuilt consistently."""
    other = MatchSpec(**{**SPEC.__dict__, "match_id": "another-match"})
    replayed = leave_signature_of(other)  # same seat key (same label), another match
    partner = MatchSpec(**{**SPEC.__dict__, "leaver": 0})
    wrong_seat = leave_signature_of(partner)  # seat 0's leave, not seat 2's
    stranger = _signed_by(Ed25519PrivateKey.generate(), SPEC.match_id, 2)
    for forged in (replayed, wrong_seat, stranger, "00" * 64):

        def edit(r: Record, forged: str = forged) -> None:
            find(r, "match", "MatchForfeited")["payload"]["signature"] = forged

        status, detail = ending(tampered(record(), edit))
        assert status == FAIL, detail
        assert "not its key's" in detail


def test_a_key_dropped_from_the_commitment_does_not_excuse_the_forfeit() -> None:
    """The operator removes the leaver's key from the commitment (and the signature from
    the forfeit): a human without a key who "left" is not a pass."""

    def edit(r: Record) -> None:
        find(r, "randomness", "ServerSeedCommitted")["payload"]["seats"][2]["key"] = ""
        find(r, "match", "MatchForfeited")["payload"]["signature"] = ""

    status, detail = ending(tampered(record(), edit))
    assert status == FAIL
    assert "recorded no key" in detail


def test_a_commitment_from_before_signed_leaves_cannot_show_the_seat_asked() -> None:
    """A record made under the rule before keys: its forfeit is not checked, and the
    report says so (a skip, which is not a pass: the record does not verify as ok)."""
    r = record(signed_leaves=False, leave="unsigned")
    report = verify_record(r, bls=drand.verify)
    check = next(c for c in report.checks if c.name == "ending")
    assert check.status == SKIP and "before seats signed" in check.detail
    assert not report.ok
    # Turning the promise off in a record made under it is a changed commitment.
    report = verify_record(
        tampered(
            record(leave="unsigned"),
            lambda r: find(r, "randomness", "ServerSeedCommitted")["payload"].update(
                signed_leaves=False
            ),
        ),
        bls=drand.verify,
    )
    assert "commitment" in report.failed or "reveal" in report.failed or not report.ok


def test_the_server_s_own_key_in_the_commitment_is_what_the_seat_s_tab_catches() -> None:
    """What a third party cannot see: the commitment recorded a key the server made in
    place of the seat's, and the server signed the leave with it. The record passes a
    third party's check (the signature is the recorded key's); the seat's own tab fails
    the forfeit it never asked for (web/test/tabcheck.test.mjs, "forfeit"), and the key
    its page sent is not the commitment's (docs/threat-model.md)."""
    r = record(leave="server_key")
    commit = find(r, "randomness", "ServerSeedCommitted")["payload"]
    assert commit["seats"][2]["key"] != seat_key_of(SPEC, 2).hex()
    assert ending(r)[0] == PASS


def test_verify_leave_refuses_malformed_input_without_raising() -> None:
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes_raw()
    good = key.sign(leave_message("m", 0))
    assert verify_leave(public, "m", 0, good)
    assert not verify_leave(public, "m", 1, good)
    assert not verify_leave(public[:-1], "m", 0, good)
    assert not verify_leave(public, "m", 0, good[:-1])
    assert not verify_leave(b"\xff" * KEY_SIZE, "m", 0, good)  # not a point
    assert leave_message("m-1", 3) == b"belot-leave/1\nm-1\n3\n"
