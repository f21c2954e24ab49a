"""The keys that sign and verify notes: Ed25519 note keys (signature type 0x01, the log's)
and Ed25519 cosignature keys (type 0x04, a witness's), with their vkey and skey texts.

Ed25519 is pyca cryptography's, which calls OpenSSL's: a signature library that is well
kept, audited, packaged for every platform as wheels, and verifies strictly (RFC 8032, a
non-canonical S refused). No curve arithmetic is written here; what is written is the
framing each spec puts around a signature, and that is what the vectors check.

Signing is deterministic (RFC 8032), so a key and a text give one signature: Go's
published note signature is reproduced byte for byte from its published private key.
The library draws no randomness: a key is made from a 32-byte seed the caller draws
(``secrets.token_bytes(32)``) and keeps, as the skey text ``PRIVATE+KEY+...`` Go's tools
read too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from translog.checkpoint import parse_checkpoint
from translog.cosignature import cosigned_message, split_timestamped, timestamped_signature
from translog.errors import KeyMalformed, NoteMalformed
from translog.note import (
    COSIGNATURE_TYPE,
    ED25519_TYPE,
    Signature,
    b64encode,
    check_name,
    check_text,
    format_vkey,
    key_id,
    split_skey,
    split_vkey,
)

KEY_SIZE = 32
SIGNATURE_SIZE = 64


def _public_key(raw: bytes) -> Ed25519PublicKey:
    if not isinstance(raw, bytes) or len(raw) != KEY_SIZE:
        raise KeyMalformed(f"an Ed25519 public key is {KEY_SIZE} bytes")
    try:
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError as e:
        raise KeyMalformed(f"not an Ed25519 public key: {e}") from None


def _private_key(seed: bytes) -> Ed25519PrivateKey:
    if not isinstance(seed, bytes) or len(seed) != KEY_SIZE:
        raise KeyMalformed(f"an Ed25519 seed is {KEY_SIZE} bytes")
    return Ed25519PrivateKey.from_private_bytes(seed)


def _verifies(key: Ed25519PublicKey, signature: bytes, message: bytes) -> bool:
    try:
        key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


@dataclass(frozen=True, slots=True)
class _VerifierKey:
    name: str
    public_key: bytes
    signature_type: ClassVar[int]
    _key: Ed25519PublicKey = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_name(self.name)
        object.__setattr__(self, "_key", _public_key(self.public_key))

    @property
    def key_id(self) -> int:
        return key_id(self.name, self.signature_type, self.public_key)

    @property
    def vkey(self) -> str:
        return format_vkey(self.name, self.signature_type, self.public_key)


@dataclass(frozen=True, slots=True)
class Ed25519Verifier(_VerifierKey):
    """A note key (type 0x01): the signature is Ed25519 over the note's text."""

    signature_type: ClassVar[int] = ED25519_TYPE

    def verify(self, text: str, data: bytes) -> bool:
        return len(data) == SIGNATURE_SIZE and _verifies(self._key, data, text.encode())


@dataclass(frozen=True, slots=True)
class CosignatureVerifier(_VerifierKey):
    """A witness key (type 0x04): the signature is timestamp || Ed25519 over
    :func:`~translog.cosignature.cosigned_message`."""

    signature_type: ClassVar[int] = COSIGNATURE_TYPE

    def verify(self, text: str, data: bytes) -> bool:
        try:
            timestamp, signature = split_timestamped(data)
        except NoteMalformed:
            return False
        return _verifies(self._key, signature, cosigned_message(text, timestamp))


@dataclass(frozen=True, slots=True)
class _SignerKey:
    name: str
    seed: bytes = field(repr=False)
    signature_type: ClassVar[int]
    _key: Ed25519PrivateKey = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_name(self.name)
        object.__setattr__(self, "_key", _private_key(self.seed))

    @property
    def public_key(self) -> bytes:
        return self._key.public_key().public_bytes_raw()

    @property
    def key_id(self) -> int:
        return key_id(self.name, self.signature_type, self.public_key)

    @property
    def vkey(self) -> str:
        return format_vkey(self.name, self.signature_type, self.public_key)

    @property
    def skey(self) -> str:
        """Go's ``PRIVATE+KEY+<name>+<hex key ID>+base64(type || seed)``: a secret."""
        material = b64encode(bytes([self.signature_type]) + self.seed)
        return f"PRIVATE+KEY+{self.name}+{self.key_id:08x}+{material}"


@dataclass(frozen=True, slots=True)
class Ed25519Signer(_SignerKey):
    """The log's key: signs a note's text with Ed25519 (type 0x01)."""

    signature_type: ClassVar[int] = ED25519_TYPE

    def sign(self, text: str) -> Signature:
        check_text(text)
        return Signature(self.name, self.key_id, self._key.sign(text.encode()))

    def verifier(self) -> Ed25519Verifier:
        return Ed25519Verifier(self.name, self.public_key)


@dataclass(frozen=True, slots=True)
class Cosigner(_SignerKey):
    """A witness's key: cosigns a checkpoint at a time it is given (type 0x04). The
    witness's clock is the caller's; this class reads none."""

    signature_type: ClassVar[int] = COSIGNATURE_TYPE

    def sign(self, text: str, timestamp: int) -> Signature:
        """The cosignature line of checkpoint ``text`` at ``timestamp`` (POSIX seconds).
        Raises :class:`~translog.errors.CheckpointMalformed` if ``text`` is not one."""
        parse_checkpoint(check_text(text))
        signature = self._key.sign(cosigned_message(text, timestamp))
        return Signature(self.name, self.key_id, timestamped_signature(timestamp, signature))

    def verifier(self) -> CosignatureVerifier:
        return CosignatureVerifier(self.name, self.public_key)


def parse_vkey(vkey: str) -> Ed25519Verifier | CosignatureVerifier:
    """The verifier a vkey names (type 0x01 or 0x04); raises :class:`KeyMalformed`."""
    name, signature_type, public_key = split_vkey(vkey)
    if signature_type == ED25519_TYPE:
        return Ed25519Verifier(name, public_key)
    if signature_type == COSIGNATURE_TYPE:
        return CosignatureVerifier(name, public_key)
    raise KeyMalformed(f"signature type {signature_type:#04x} is not supported (0x01, 0x04)")


def parse_skey(skey: str) -> Ed25519Signer | Cosigner:
    """The signer an skey holds (type 0x01 or 0x04), its key ID checked against the
    public key derived from the seed; raises :class:`KeyMalformed`."""
    name, kid, signature_type, seed = split_skey(skey)
    signer: Ed25519Signer | Cosigner
    if signature_type == ED25519_TYPE:
        signer = Ed25519Signer(name, seed)
    elif signature_type == COSIGNATURE_TYPE:
        signer = Cosigner(name, seed)
    else:
        raise KeyMalformed(f"signature type {signature_type:#04x} is not supported (0x01, 0x04)")
    if signer.key_id != kid:
        raise KeyMalformed(f"the key ID {kid:08x} is not the one of {name!r} and this key")
    return signer
