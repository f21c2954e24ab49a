"""Why a proof, a note, a key, a checkpoint or a tile is refused: one base class, one
subclass per reason, each with a stable snake_case ``code`` (what a service answers over
the wire, ``{"error": code, "message": text}``) and a plain-words message.

A verifier answers one question, "does this hold?", and every way of saying no is one of
these: the library never returns ``False`` for a failed check, so a caller cannot forget
to look at the answer, and never raises anything else for bad input, so a service can map
every refusal to a 4xx without a catch-all.
"""

from __future__ import annotations

from typing import ClassVar


class TranslogError(ValueError):
    """Input the transparency log refuses. Every check in ``translog`` raises one of these."""

    code: ClassVar[str] = "translog_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadHash(TranslogError):
    """A hash that is not 32 bytes: not a SHA-256 value, whatever it claims to be."""

    code = "hash_malformed"


class OutOfRange(TranslogError):
    """A leaf index at or past the tree size, a first size above the second, a node that
    is not complete in the tree it is asked of: the question has no answer."""

    code = "out_of_range"


class BadProof(TranslogError):
    """A proof that does not recompute the root it is checked against (or has the wrong
    number of hashes for its sizes)."""

    code = "proof_invalid"


class NoteMalformed(TranslogError):
    """Text that is not a signed note: control characters, no blank line before the
    signatures, a signature line not of the form ``— <name> <base64>``, too many lines."""

    code = "note_malformed"


class KeyMalformed(TranslogError):
    """A verifier or signer key that does not parse, names an unsupported signature type,
    or whose key ID does not match its name and public key."""

    code = "key_malformed"


class AmbiguousKey(TranslogError):
    """Two verifiers with the same key name and key ID: a signature could not say which
    one made it."""

    code = "key_ambiguous"


class UnknownKey(TranslogError):
    """No signature on the note is from a key the verifier trusts (or not from the one
    key that had to sign it)."""

    code = "note_unknown_key"


class BadSignature(TranslogError):
    """A signature from a trusted key that does not verify: the note was altered, or the
    key's holder did not sign it."""

    code = "note_bad_signature"


class CheckpointMalformed(TranslogError):
    """A note body that is not a tlog-checkpoint: fewer than three lines, a size with a
    sign or leading zeroes, a root that is not base64 of 32 bytes, an empty line."""

    code = "checkpoint_malformed"


class WrongOrigin(TranslogError):
    """A checkpoint of another log than the one asked for."""

    code = "checkpoint_wrong_origin"


class TooFewCosignatures(TranslogError):
    """Fewer trusted witnesses cosigned the checkpoint than the caller requires."""

    code = "checkpoint_quorum"


class TileMalformed(TranslogError):
    """A tile or entry-bundle path that is not in the tlog-tiles form, or tile or bundle
    bytes of the wrong length."""

    code = "tile_malformed"
