"""C2SP tlog-checkpoint: a log's signed statement of its tree, as a signed note.

    <origin>                       the log's name, e.g. belot.example/log
    <tree size>                    decimal, no leading zeroes ("0" for the empty tree)
    <root hash>                    base64 of the 32-byte RFC 9162 root
    [<extension line>...]          optional, opaque, non-empty
    <blank line>
    — <log key name> <base64 signature>
    — <witness name> <base64 cosignature>   (any number, :mod:`translog.cosignature`)

A log signs a checkpoint every few seconds and never two that are inconsistent (no
consistency proof between them); anyone who keeps the last one they saw can ask for a
proof that the next one extends it, and witnesses do exactly that before they cosign.
:func:`open_checkpoint` is what a reader does with one: parse, check the origin is the
log's, check the log's own signature, collect the cosignatures of the witnesses it
trusts (with their times), and refuse it if fewer than its quorum cosigned.

Extension lines are kept and signed but mean nothing here: the spec advises against them
(a monitor cannot audit them) and this platform writes none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from translog.cosignature import Cosignature
from translog.errors import (
    CheckpointMalformed,
    KeyMalformed,
    NoteMalformed,
    TooFewCosignatures,
    TranslogError,
    UnknownKey,
    WrongOrigin,
)
from translog.hashing import Hash, check_hash
from translog.note import (
    COSIGNATURE_TYPE,
    Note,
    Signer,
    Verifier,
    b64decode,
    b64encode,
    check_text,
    open_note,
)
from translog.tree import MAX_SIZE


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The body of a checkpoint: which log, how many entries, what root."""

    origin: str
    size: int
    root_hash: Hash
    extensions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.origin, str) or not self.origin or "\n" in self.origin:
            raise CheckpointMalformed("a checkpoint's origin is one non-empty line")
        if isinstance(self.size, bool) or not isinstance(self.size, int):
            raise CheckpointMalformed(f"a tree size is an integer, not {self.size!r}")
        if not 0 <= self.size <= MAX_SIZE:
            raise CheckpointMalformed(f"a tree size is in [0, 2**63), not {self.size}")
        try:
            check_hash(self.root_hash, "checkpoint root")
        except TranslogError as e:
            raise CheckpointMalformed(e.message) from None
        for line in self.extensions:
            if not isinstance(line, str) or not line or "\n" in line:
                raise CheckpointMalformed("an extension line is one non-empty line")
        try:
            check_text(self.to_text())
        except NoteMalformed as e:
            raise CheckpointMalformed(e.message) from None

    def to_text(self) -> str:
        """The note text: the lines above, each ending in a newline."""
        lines = [self.origin, str(self.size), b64encode(self.root_hash), *self.extensions]
        return "".join(line + "\n" for line in lines)


def parse_checkpoint(text: str) -> Checkpoint:
    """A :class:`Checkpoint` from a note's text; raises :class:`CheckpointMalformed`."""
    if not isinstance(text, str) or not text.endswith("\n"):
        raise CheckpointMalformed("a checkpoint's text ends with a newline")
    lines = text[:-1].split("\n")
    if len(lines) < 3:
        raise CheckpointMalformed("a checkpoint has an origin, a size and a root hash line")
    origin, size_text, root_text, *extensions = lines
    # At most 19 digits (2**63 - 1 has 19): also keeps int() away from huge strings.
    if (
        len(size_text) > 19
        or not size_text.isascii()
        or not size_text.isdigit()
        or str(int(size_text)) != size_text
    ):
        raise CheckpointMalformed(f"{size_text!r} is not a tree size (decimal, no leading 0)")
    root = b64decode(root_text)
    if root is None:
        raise CheckpointMalformed(f"{root_text!r} is not a base64 root hash")
    return Checkpoint(origin, int(size_text), root, tuple(extensions))


def sign_checkpoint(checkpoint: Checkpoint, signer: Signer) -> Note:
    """The checkpoint as a note signed by the log's key."""
    text = checkpoint.to_text()
    return Note(text, (signer.sign(text),))


@dataclass(frozen=True, slots=True)
class SignedCheckpoint:
    """A checkpoint whose log signature verified, with the trusted witnesses'
    cosignatures that verified (one per witness, in the note's order)."""

    checkpoint: Checkpoint
    note: Note
    cosignatures: tuple[Cosignature, ...]

    def cosignature_by(self, name: str) -> Cosignature | None:
        return next((c for c in self.cosignatures if c.name == name), None)


def open_checkpoint(
    message: str | bytes | Note,
    log: Verifier,
    witnesses: Iterable[Verifier] = (),
    *,
    quorum: int = 0,
    origin: str | None = None,
) -> SignedCheckpoint:
    """Verify a checkpoint note as a reader does.

    The origin must be ``origin`` (the log key's name by default, as the spec
    recommends); the log's key must have signed; every line from ``log`` or a witness
    must verify; at least ``quorum`` witnesses must have cosigned. Raises
    :class:`NoteMalformed`, :class:`CheckpointMalformed`, :class:`WrongOrigin`,
    :class:`UnknownKey`, :class:`BadSignature`, :class:`TooFewCosignatures`.
    """
    witnesses = tuple(witnesses)
    for witness in witnesses:
        if witness.signature_type != COSIGNATURE_TYPE:
            raise KeyMalformed(
                f"witness key {witness.name} is of type {witness.signature_type:#04x},"
                " not a cosignature key (0x04)"
            )
    opened = open_note(message, (log, *witnesses))
    checkpoint = parse_checkpoint(opened.text)
    expected = log.name if origin is None else origin
    if checkpoint.origin != expected:
        raise WrongOrigin(f"the checkpoint is of {checkpoint.origin!r}, not {expected!r}")
    if opened.signed_by(log) is None:
        raise UnknownKey(f"the log's key {log.name}+{log.key_id:08x} did not sign the checkpoint")
    witness_keys = {(w.name, w.key_id) for w in witnesses}
    cosignatures = tuple(Cosignature.of(s) for s in opened.verified if s.key in witness_keys)
    if len(cosignatures) < quorum:
        raise TooFewCosignatures(
            f"{len(cosignatures)} trusted witnesses cosigned the checkpoint, {quorum} needed"
        )
    return SignedCheckpoint(checkpoint, opened.note, cosignatures)
