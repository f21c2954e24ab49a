"""C2SP signed-note: text, a blank line, and one line per signature.

    <text, every line ending in a newline>
    <blank line>
    — <key name> base64(4-byte key ID || signature bytes)
    ...

The text is everything up to the *last* blank line (so the text itself may hold blank
lines), including its final newline; each signature is over exactly those bytes, as UTF-8.
A key is named by its key name and a 4-byte key ID, the first four bytes of
SHA-256(name || 0x0A || signature type || public key) (:func:`key_id`): the type byte keeps
one key's signatures of two kinds apart (0x01 Ed25519 over the text, 0x04 a witness's
timestamped cosignature, :mod:`translog.cosignature`). A verifier key travels as one line
of text, its *vkey*, ``<name>+<hex key ID>+base64(type || public key)``; Go's tools keep a
signing key as ``PRIVATE+KEY+<name>+<hex key ID>+base64(type || seed)``, its *skey*.

:func:`open_note` is the signed-note verification rule: a signature whose (name, key ID)
no trusted key has is ignored (another log's key, a witness the reader does not follow),
one from a trusted key must verify or the whole note is refused, and at least one must
verify. The parser is strict where the spec leaves room to be: UTF-8 only, no control
characters but newline, a key name without spaces or ``+``, canonical base64 (one
spelling per signature, so that any altered byte of a note changes what it says or is
refused), at most :data:`MAX_SIGNATURES` lines.

The key classes themselves (Ed25519 via pyca cryptography) are in :mod:`translog.keys`;
this module knows them only as :class:`Verifier` and :class:`Signer`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from translog.errors import AmbiguousKey, BadSignature, KeyMalformed, NoteMalformed, UnknownKey

#: The signature types this library speaks (signed-note §Signature types).
ED25519_TYPE = 0x01
COSIGNATURE_TYPE = 0x04

SIGNATURE_PREFIX = "— "
#: Go refuses a note of more than 100 signature lines; the spec asks for at least 16.
MAX_SIGNATURES = 100
#: A checkpoint is a few hundred bytes; a megabyte bounds the work of a hostile note.
MAX_NOTE_SIZE = 1 << 20


def is_valid_name(name: str) -> bool:
    """A key name: non-empty, no Unicode space, no ``+``, no control character."""
    return bool(name) and "+" not in name and not any(ch.isspace() or ord(ch) < 0x20 for ch in name)


def check_name(name: str) -> str:
    if not isinstance(name, str) or not is_valid_name(name):
        raise KeyMalformed(f"{name!r} is not a key name (non-empty, no spaces, no '+')")
    return name


def key_id(name: str, signature_type: int, public_key: bytes) -> int:
    """SHA-256(name || 0x0A || type || public key)[:4], as a big-endian uint32."""
    digest = hashlib.sha256(name.encode() + b"\n" + bytes([signature_type]) + public_key)
    return int.from_bytes(digest.digest()[:4], "big")


def b64decode(text: str) -> bytes | None:
    """Standard base64 in its one canonical spelling (padded, no stray bits), else None."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if base64.b64encode(raw).decode() == text else None


def b64encode(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def format_vkey(name: str, signature_type: int, public_key: bytes) -> str:
    """``<name>+<hex key ID>+base64(type || public key)``."""
    check_name(name)
    kid = key_id(name, signature_type, public_key)
    return f"{name}+{kid:08x}+{b64encode(bytes([signature_type]) + public_key)}"


def split_vkey(vkey: str) -> tuple[str, int, bytes]:
    """(name, signature type, public key) of a vkey whose key ID matches them."""
    # The base64 part may itself hold '+': split on the first two only.
    parts = vkey.split("+", 2) if isinstance(vkey, str) else []
    if len(parts) != 3:
        raise KeyMalformed("a verifier key is <name>+<hex key ID>+<base64 key>")
    name, kid, signature_type, key = _key_parts(*parts)
    if key_id(name, signature_type, key) != kid:
        raise KeyMalformed(f"the key ID {kid:08x} is not the one of {name!r} and this key")
    return name, signature_type, key


def split_skey(skey: str) -> tuple[str, int, int, bytes]:
    """(name, key ID, signature type, private key material) of Go's
    ``PRIVATE+KEY+<name>+<hex key ID>+base64(type || seed)``. The key ID can only be
    checked once the public key is derived (:func:`translog.keys.parse_skey` does)."""
    parts = skey.split("+", 4) if isinstance(skey, str) else []
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
        raise KeyMalformed("a signer key is PRIVATE+KEY+<name>+<hex key ID>+<base64 key>")
    return _key_parts(*parts[2:])


def _key_parts(name: str, kid: str, material: str) -> tuple[str, int, int, bytes]:
    check_name(name)
    if len(kid) != 8 or any(c not in "0123456789abcdefABCDEF" for c in kid):
        raise KeyMalformed(f"{kid!r} is not a key ID (8 hex digits)")
    raw = b64decode(material)
    if raw is None or len(raw) < 2:
        raise KeyMalformed("the key material is not base64 of a type byte and a key")
    return name, int(kid, 16), raw[0], raw[1:]


class Verifier(Protocol):
    """A trusted public key: its name, key ID and signature type, and whether a
    signature's bytes (after the key ID) sign a note's text."""

    @property
    def name(self) -> str: ...

    @property
    def key_id(self) -> int: ...

    @property
    def signature_type(self) -> int: ...

    def verify(self, text: str, data: bytes) -> bool: ...


class Signer(Protocol):
    """A private key that signs a note's text."""

    @property
    def name(self) -> str: ...

    @property
    def key_id(self) -> int: ...

    def sign(self, text: str) -> Signature: ...


@dataclass(frozen=True, slots=True)
class Signature:
    """One signature line: the key's name and ID and the signature bytes after the ID."""

    name: str
    key_id: int
    data: bytes

    def __post_init__(self) -> None:
        if not is_valid_name(self.name):
            raise NoteMalformed(f"{self.name!r} is not a key name")
        if not 0 <= self.key_id < 1 << 32:
            raise NoteMalformed(f"key ID {self.key_id!r} is not a uint32")
        if not self.data:
            raise NoteMalformed("a signature has at least one byte after the key ID")

    def line(self) -> str:
        """``— <name> base64(key ID || data)`` and a newline."""
        encoded = b64encode(self.key_id.to_bytes(4, "big") + self.data)
        return f"{SIGNATURE_PREFIX}{self.name} {encoded}\n"

    @property
    def key(self) -> tuple[str, int]:
        return (self.name, self.key_id)


def parse_signature_line(line: str) -> Signature:
    """A :class:`Signature` from one line (with or without its newline)."""
    line = line.removesuffix("\n")
    if not line.startswith(SIGNATURE_PREFIX) or "\n" in line:
        raise NoteMalformed("a signature line is '— <key name> <base64 signature>'")
    name, sep, encoded = line[len(SIGNATURE_PREFIX) :].partition(" ")
    raw = b64decode(encoded) if sep else None
    if not is_valid_name(name) or raw is None or len(raw) < 5:
        raise NoteMalformed("a signature line is '— <key name> <base64 signature>'")
    return Signature(name, int.from_bytes(raw[:4], "big"), raw[4:])


def check_text(text: str) -> str:
    """A note's text: valid UTF-8, no control characters but newline, ending in one."""
    if not isinstance(text, str) or not text.endswith("\n"):
        raise NoteMalformed("a note's text ends with a newline")
    try:
        text.encode()
    except UnicodeEncodeError:
        raise NoteMalformed("a note is UTF-8 text") from None
    if any(ord(ch) < 0x20 and ch != "\n" for ch in text):
        raise NoteMalformed("a note holds no control characters but newline")
    return text


@dataclass(frozen=True, slots=True)
class Note:
    """A note: its text and its signature lines, in order."""

    text: str
    signatures: tuple[Signature, ...]

    def __post_init__(self) -> None:
        check_text(self.text)
        if not self.signatures:
            raise NoteMalformed("a signed note has at least one signature")
        if len(self.signatures) > MAX_SIGNATURES:
            raise NoteMalformed(f"a note has at most {MAX_SIGNATURES} signatures")

    def to_text(self) -> str:
        return self.text + "\n" + "".join(s.line() for s in self.signatures)

    def with_signatures(self, *signatures: Signature) -> Note:
        """The note with ``signatures`` added, each replacing any line of the same key
        (a witness's newer cosignature replaces its older one)."""
        keys = {s.key for s in signatures}
        kept = tuple(s for s in self.signatures if s.key not in keys)
        return Note(self.text, kept + signatures)


def sign_note(text: str, *signers: Signer) -> Note:
    """A note of ``text`` signed by each of ``signers``."""
    check_text(text)
    return Note(text, tuple(signer.sign(text) for signer in signers))


def parse_note(message: str | bytes) -> Note:
    """A :class:`Note` from its text form; raises :class:`NoteMalformed`. Nothing is
    verified: see :func:`open_note`."""
    if isinstance(message, bytes | bytearray):
        if len(message) > MAX_NOTE_SIZE:
            raise NoteMalformed(f"a note is at most {MAX_NOTE_SIZE} bytes")
        try:
            message = bytes(message).decode()
        except UnicodeDecodeError:
            raise NoteMalformed("a note is UTF-8 text") from None
    if not isinstance(message, str):
        raise NoteMalformed("a note is text")
    if len(message) > MAX_NOTE_SIZE:
        raise NoteMalformed(f"a note is at most {MAX_NOTE_SIZE} bytes")
    split = message.rfind("\n\n")
    if split < 0:
        raise NoteMalformed("a note's signatures follow a blank line")
    text, block = message[: split + 1], message[split + 2 :]
    if not block.endswith("\n"):
        raise NoteMalformed("a note ends with a signature line and its newline")
    lines = block[:-1].split("\n")
    if len(lines) > MAX_SIGNATURES:
        raise NoteMalformed(f"a note has at most {MAX_SIGNATURES} signatures")
    return Note(check_text(text), tuple(parse_signature_line(line) for line in lines))


@dataclass(frozen=True, slots=True)
class OpenedNote:
    """A note whose trusted signatures all verified: ``verified`` holds the first line
    of each trusted key, ``unverified`` the lines of keys the reader does not know."""

    note: Note
    verified: tuple[Signature, ...]
    unverified: tuple[Signature, ...]

    @property
    def text(self) -> str:
        return self.note.text

    def signed_by(self, verifier: Verifier) -> Signature | None:
        for signature in self.verified:
            if signature.key == (verifier.name, verifier.key_id):
                return signature
        return None


def verifier_map(verifiers: Iterable[Verifier]) -> dict[tuple[str, int], Verifier]:
    """The verifiers by (name, key ID); raises :class:`AmbiguousKey` on a repeated pair."""
    known: dict[tuple[str, int], Verifier] = {}
    for verifier in verifiers:
        key = (verifier.name, verifier.key_id)
        if key in known and known[key] != verifier:
            raise AmbiguousKey(f"two keys named {verifier.name}+{verifier.key_id:08x}")
        known[key] = verifier
    return known


def open_note(message: str | bytes | Note, verifiers: Iterable[Verifier]) -> OpenedNote:
    """Parse ``message`` and verify every signature from a key in ``verifiers``.

    Raises :class:`NoteMalformed` for text that is not a note, :class:`BadSignature` if
    a trusted key's signature does not verify, :class:`UnknownKey` if no trusted key
    signed, :class:`AmbiguousKey` if two verifiers share a name and key ID.
    """
    known = verifier_map(verifiers)
    note = message if isinstance(message, Note) else parse_note(message)
    verified: dict[tuple[str, int], Signature] = {}
    unverified: list[Signature] = []
    for signature in note.signatures:
        verifier = known.get(signature.key)
        if verifier is None:
            if signature not in unverified:
                unverified.append(signature)
            continue
        # Every line of a trusted key is checked, repeated ones too: a bad signature from
        # a key the reader trusts means the note is not what that key signed.
        if not verifier.verify(note.text, signature.data):
            raise BadSignature(
                f"the signature of {signature.name}+{signature.key_id:08x} does not verify"
            )
        verified.setdefault(signature.key, signature)
    if not verified:
        names = ", ".join(f"{n}+{k:08x}" for n, k in known) or "no key"
        raise UnknownKey(f"the note is signed by none of the trusted keys ({names})")
    return OpenedNote(note, tuple(verified.values()), tuple(unverified))
