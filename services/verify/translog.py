"""The transparency log's service, a part of verify: it signs checkpoints of the tree
the event stores write (``eventlog.translog``), serves them, their tiles, proofs and
entries over HTTP, and collects the witnesses' cosignatures.

Why in verify and not a service of its own: what it serves is public reads of the log,
which is what verify already is (its role reads every public row, it has the rate
limits, CORS, JSON errors and the OpenAPI document), and a proof or a tile is one
indexed query like verify's other reads. The one thing it adds is a private key, and a
key does not need a process to itself here: the log's honesty does not rest on it. A
signer with the key can only sign what the tree in the database says (the signer
below never signs a tree that does not extend its last checkpoint), and someone who
stole the key could sign a forked tree, which is the split view witnesses exist to
refuse; readers who want a quorum of cosignatures are not fooled by the key alone. The
key lives in ``BELOT_TRANSLOG_KEY`` (else a file under ``BELOT_DATA_DIR``, made once,
mode 0600), read by the verify process and by nothing else. Several verify replicas
may sign: each signs a size and root read from the same append-only tree, and
Ed25519 is deterministic, so two replicas' checkpoints of one size are the same bytes.

Checkpoints (``verify_checkpoints``) are signed by a supervised loop whenever the tree
grew, at most every ``BELOT_TRANSLOG_INTERVAL`` seconds; every one is kept, so that a
verifier can ask for the first checkpoint a witness cosigned after an entry
(:meth:`LogService.witnessed_by`): its time bounds when the entry was in the log. The
cosignatures (``verify_cosignatures``) are the first each witness sent for each
checkpoint.

Which witness's first checkpoint: always a named one's, never "any witness's". The
entries route once served the first checkpoint *anyone* cosigned, and a stranger who
registered a key and cosigned each checkpoint within 0.1 s of its signing made that a
checkpoint no trusted witness had cosigned (an honest witness polling every second
cosigns the next one): a reader trusting the honest witness found no cosignature it
counts and ``log_timing`` failed, on 27 of 37 honest matches (issue 28, case 8). A
cosignature from a key the reader does not trust must change nothing the reader
sees, so the lookup is per witness: ``witnessed`` is the first checkpoint a
*configured* witness cosigned (the operator's, never a registration), and
``witnessed_by`` gives, for each configured witness and each one the request names
(``?witness=<name>+<key ID>``), that witness's own first one. A reader asks for the
witnesses it trusts and checks each one's cosignature on each one's checkpoint.

Witnesses: the log takes cosignatures from the keys ``BELOT_TRANSLOG_WITNESSES``
names and from any witness that registered its key (``verify_witnesses``, at most
``BELOT_TRANSLOG_MAX_WITNESSES`` live at once). Registering is open because it grants
nothing: the log's part is only to collect and serve cosignatures; which witnesses a
reader trusts is the reader's choice (``belot verify --witness``), and a cosignature
from a key the reader does not name is ignored. What the log must not let a
registration do is disturb the others: a key with the name and key ID of one already
accepted is refused (two such keys would make every note ambiguous), configured keys
come first and are never refused, and the cap bounds what a stranger can make the log
keep and check. Nor may registrations lock anyone out of the cap (issue 28, case 8:
60 registrations from one address filled it for good): a registration expires unless
renewed (registering again, or a cosignature from the key; ``witness_ttl``, and the
shorter ``new_witness_ttl`` for a key that has never cosigned, so that keys registered
and abandoned free their slot within minutes), an expired one is neither accepted nor
counted, and one client address holds at most ``witnesses_per_address`` live
registrations, so filling the cap takes that many addresses, and holding it takes
renewing from them. Registrations are read from the table on each cosignature, so
every replica accepts a key registered on another.

Routes (C2SP tlog-tiles at the root, JSON helpers under ``/v1/log``):

- ``GET /checkpoint``                         the latest checkpoint and its cosignatures
- ``GET /tile/<L>/<N>[.p/<W>]``                a hash tile (immutable)
- ``GET /tile/entries/<N>[.p/<W>]``            an entry bundle (immutable)
- ``GET /v1/log/checkpoints/{size}``           a checkpoint of that size, cosigned as it is
- ``GET /v1/log/proof/inclusion?index=&size=``  RFC 9162 inclusion proof (base64 hashes)
- ``GET /v1/log/proof/consistency?first=&second=``
- ``GET /v1/log/entries?match=<id>``           a match's entries (and its round's fact),
                                               each with the first checkpoint holding it
                                               that a configured witness cosigned, and
                                               each witness's own (``&witness=``);
                                               ``?stream=`` for one stream
- ``POST /v1/log/cosignatures``                a witness's cosigned checkpoint (text)
- ``GET /v1/log/witnesses``                    the witness keys the log accepts
- ``POST /v1/log/witnesses``                   register a witness key (its vkey line)
"""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import logging
import math
import os
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from aiohttp import web
from prometheus_client import Counter, Gauge

from belot_platform.errors import ServiceError
from belot_platform.settings import TRANSLOG_VKEY_FILE, Settings
from belot_platform.supervise import Supervised, pause_unless_stopped
from eventkit import streams as kinds
from eventlog.envelope import STREAM_ID_RE
from eventlog.translog import StoredEntry, TreeReader
from fairdeal import logentries
from fairdeal.record import is_match_id
from services.verify.http import json_response
from services.verify.store import LogStore, Pool, ReadPool, UndefinedTableError
from translog import (
    Checkpoint,
    Cosignature,
    CosignatureVerifier,
    Ed25519Signer,
    Ed25519Verifier,
    Frontier,
    Note,
    TranslogError,
    UnknownKey,
    consistency_nodes,
    encode_bundle,
    inclusion_nodes,
    open_note,
    parse_checkpoint,
    parse_entries_path,
    parse_note,
    parse_skey,
    parse_tile_path,
    parse_vkey,
    range_nodes,
    sign_checkpoint,
    tile_data,
    verify_consistency,
)
from translog.note import is_valid_name
from translog.tiles import TILE_HEIGHT, TILE_WIDTH, tile_width

log = logging.getLogger(__name__)

KEY_FILE: Final = "translog-key"
#: The supervised signer's name (``task`` label of belot_task_up and restarts).
SIGNER_TASK: Final = "translog-signer"
#: A witness's cosigned checkpoint is a short text.
MAX_COSIGNATURE_BYTES: Final = 16 * 1024
#: A witness registration's body: one vkey line.
MAX_VKEY_BYTES: Final = 1024
#: Streams one ``/v1/log/entries`` request may name.
MAX_STREAMS: Final = 4
#: Witnesses one ``/v1/log/entries`` request may name (``?witness=``): each is one
#: indexed probe per entry; a reader trusting more asks again
#: (commands/translog_client.py does).
MAX_WITNESS_PARAMS: Final = 16
#: ``?witness=<name>+<key ID>``: a key name (no space, no ``+``) and 8 hex digits. A
#: query string reads an unescaped ``+`` as a space (form encoding), and a name holds
#: neither, so either separates the two: ``curl '...&witness=w.example/w1+1a2b3c4d'``
#: works as typed.
_WITNESS_PARAM: Final = re.compile(r"(?P<name>[^+ ]{1,256})[+ ](?P<key_id>[0-9a-fA-F]{8})")
#: How long a registration lives without renewal, in seconds: a witness that has
#: cosigned (24 h: a day's outage of a witness costs it nothing), and one whose key
#: has never cosigned (10 min: a key registered and never used frees its slot soon).
#: Their defaults are the settings' (BELOT_TRANSLOG_WITNESS_TTL, _TTL_NEW).
_DEFAULT: Final = Settings()
WITNESS_TTL_S: Final = float(_DEFAULT.translog_witness_ttl)
NEW_WITNESS_TTL_S: Final = float(_DEFAULT.translog_witness_ttl_new)
#: Live registrations one client address may hold (an IPv6 address counts by its /64;
#: BELOT_TRANSLOG_WITNESSES_PER_ADDRESS).
WITNESSES_PER_ADDRESS: Final = _DEFAULT.translog_witnesses_per_address
#: A renewal moves a registration's end only if it moves it by more than this (seconds;
#: a tenth of the term if that is less): a witness cosigning every second does not
#: rewrite its row every second, and a registration repeated at once is answered alike.
_RENEW_SLACK_S: Final = 60.0


def _slack(ttl: float) -> float:
    return min(_RENEW_SLACK_S, ttl / 10)


IMMUTABLE: Final = "public, max-age=31536000, immutable"

CHECKPOINT_SIZE = Gauge("belot_translog_checkpoint_size", "Size of the last signed checkpoint.")
CHECKPOINTS_SIGNED = Counter("belot_translog_checkpoints_signed_total", "Checkpoints signed.")
COSIGNATURES = Counter(
    "belot_translog_cosignatures_total", "Witness cosignatures received, by witness.", ["witness"]
)
WITNESSES_REGISTERED = Counter(
    "belot_translog_witnesses_registered_total", "Witness keys registered (POST /v1/log/witnesses)."
)


def log_signer(settings: Settings) -> Ed25519Signer:
    """The log's key: ``BELOT_TRANSLOG_KEY``, else the one kept in the data directory
    (made at the first call, readable by its owner only). Raises ``RuntimeError`` for
    a kept key of another name than the origin."""
    text = settings.translog_key
    kept = text is None
    if text is None:
        path = settings.data_dir / KEY_FILE
        text = _kept_key(path, settings.translog_origin)
    signer = parse_skey(text)
    if not isinstance(signer, Ed25519Signer) or signer.name != settings.translog_origin:
        raise RuntimeError(
            f"the log key is for {signer.name!r}, the origin is {settings.translog_origin!r}"
        )
    if kept:
        # Its public half beside it, for a gateway sharing the directory (belot run) to
        # tell the web client (services/gateway/web.py log_vkey): the key stays ours.
        _write_public(settings.data_dir / TRANSLOG_VKEY_FILE, signer.vkey)
    return signer


def _write_public(path: Path, vkey: str) -> None:
    if path.is_file() and path.read_text(encoding="utf-8").strip() == vkey:
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(vkey + "\n", encoding="utf-8")
    tmp.replace(path)  # atomic: a reader sees the old file or the new one


def _kept_key(path: Path, origin: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w") as f:
        f.write(Ed25519Signer(origin, secrets.token_bytes(32)).skey + "\n")
    return path.read_text(encoding="utf-8").strip()


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _iso(at: datetime | None) -> str | None:
    return None if at is None else at.astimezone(UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class Witnessed:
    """The first checkpoint holding an entry that ``witness`` (name, key ID) cosigned:
    its size and the note with its cosignatures (the reader checks the witness's line
    with the witness's key: the log's word on who cosigned is no evidence)."""

    witness: tuple[str, int]
    size: int
    note: str

    def to_json(self) -> dict[str, Any]:
        """As ``witnessed`` (the size and the note)."""
        return {"size": self.size, "checkpoint": self.note}

    def by_json(self) -> dict[str, Any]:
        """As an item of ``witnessed_by`` (which witness, then the size and the note)."""
        name, key_id = self.witness
        return {"witness": name, "key_id": f"{key_id:08x}", **self.to_json()}


@dataclass(frozen=True, slots=True)
class WitnessKey:
    """A witness key the log accepts: configured (``registered_at`` None) or registered
    (until ``expires_at``, unless renewed)."""

    key: CosignatureVerifier
    registered_at: datetime | None = None
    expires_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "vkey": self.key.vkey,
            "name": self.key.name,
            "key_id": f"{self.key.key_id:08x}",
            "source": "configured" if self.registered_at is None else "registered",
            "registered_at": _iso(self.registered_at),
            "expires_at": _iso(self.expires_at),
        }


def parse_witness_param(text: str) -> tuple[str, int]:
    """A ``?witness=`` value, ``<name>+<8 hex key ID>``: (name, key ID). Raises
    :class:`ServiceError` ``bad_witness`` (400) for anything else."""
    m = _WITNESS_PARAM.fullmatch(text)
    name = "" if m is None else m["name"]
    try:
        name.encode()  # a lone surrogate from a bad escape: no text PostgreSQL takes
        valid = m is not None and is_valid_name(name) and name.isprintable()
    except UnicodeEncodeError:
        valid = False
    if m is None or not valid:
        raise ServiceError(
            "bad_witness",
            "witness is <key name>+<its key ID, 8 hex digits>, as in the witness's vkey "
            "(e.g. witness.example/w1+276eac93)",
        )
    return name, int(m["key_id"], 16)


def client_address(request: web.Request) -> str:
    """Who registers, for the per-address limit: the address the rate limits count
    (services/verify/http.py: ``request.remote``, which a proxy in front must set to
    the client's), an IPv6 address by its /64, the block one host is routinely given
    (counting single addresses there would let one host take every slot)."""
    remote = request.remote or "unknown"
    try:
        address = ipaddress.ip_address(remote)
    except ValueError:
        return remote
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def parse_witness_key(text: str) -> CosignatureVerifier:
    """A witness's key from its vkey line; raises :class:`ServiceError` (400) for one that
    is malformed or not a cosignature key (type 0x04)."""
    try:
        key = parse_vkey(text.strip())
    except TranslogError as exc:
        raise ServiceError(exc.code, f"not a vkey: {exc.message}") from None
    if not isinstance(key, CosignatureVerifier):
        raise ServiceError(
            "witness_key_type",
            "a witness key is an Ed25519 cosignature key (type 0x04, from belot witness "
            "keygen), not a note signing key",
        )
    return key


class LogService:
    """The log's reads, its signer and its cosignature intake. The signer and the
    witnesses' part read and write on ``pool`` (the primary); the public reads
    (checkpoints, tiles, proofs, entries) go to ``reads`` (default: ``pool``), which
    services/verify/store/reads.py says why. The tables and their queries are the
    store's (:mod:`services.verify.store.translog`).

    Registrations: at most ``max_witnesses`` live, ``witnesses_per_address`` of them
    from one client address; each lives ``new_witness_ttl`` seconds until its key
    first cosigns, then ``witness_ttl``, from its last renewal (the module docstring
    says why)."""

    def __init__(
        self,
        pool: Pool,
        log_schema: str,
        schema: str,
        signer: Ed25519Signer,
        witnesses: tuple[CosignatureVerifier, ...] = (),
        interval: float = 1.0,
        max_witnesses: int = 64,
        reads: ReadPool | None = None,
        *,
        witness_ttl: float = WITNESS_TTL_S,
        new_witness_ttl: float = NEW_WITNESS_TTL_S,
        witnesses_per_address: int = WITNESSES_PER_ADDRESS,
    ) -> None:
        self.pool = pool
        self.reads = ReadPool(pool, replicas=False) if reads is None else reads
        #: The tree as the public reads see it (``reads``).
        self.tree = TreeReader(self.reads, log_schema)
        #: The tree as the primary holds it: the one the signer signs.
        self._primary_tree = TreeReader(pool, log_schema)
        self.signer = signer
        self.verifier: Ed25519Verifier = signer.verifier()
        #: The configured witnesses (BELOT_TRANSLOG_WITNESSES).
        self.witnesses = witnesses
        self.max_witnesses = max_witnesses
        self.witness_ttl = witness_ttl
        self.new_witness_ttl = new_witness_ttl
        self.witnesses_per_address = witnesses_per_address
        self.interval = interval
        self.store = LogStore(pool, self.reads, log_schema, schema)

    # ------------------------------------------------------------ signing

    async def root(self, size: int) -> bytes:
        """The root of the tree of ``size`` leaves, from its stored frontier (on the
        primary)."""
        nodes = await self._primary_tree.nodes(range_nodes(0, size))
        return Frontier(size, tuple(nodes)).root()

    async def sign_once(self) -> Checkpoint | None:
        """Sign a checkpoint of the tree's size if it grew since the last one; None if
        not. Raises ``TranslogError`` (``proof_invalid``) if the tree does not extend the
        last checkpoint: the log never signs two inconsistent trees."""
        # All on the primary: the tree it holds, and the last checkpoint signed (which a
        # replica may not have yet: the consistency check below must see it).
        size = await self._primary_tree.size()
        last = await self.store.checkpoint(primary=True)
        first, first_root = (0, None) if last is None else last[:2]
        if last is not None and size <= first:
            return None
        root = await self.root(size)
        if first_root is not None:
            plan = consistency_nodes(first, size)
            proof = plan.assemble(await self._primary_tree.nodes(plan.nodes))
            verify_consistency(first, size, proof, first_root, root)
        checkpoint = Checkpoint(self.signer.name, size, root)
        note = sign_checkpoint(checkpoint, self.signer)
        await self.store.add_checkpoint(size, root, note.to_text())
        CHECKPOINTS_SIGNED.inc()
        CHECKPOINT_SIZE.set(size)
        return checkpoint

    async def run_signer(self, sup: Supervised) -> None:
        """The supervised loop: sign whenever the tree grew, every ``interval``."""
        while not sup.stopping.is_set():
            # No event log in the schema yet (the projection's readiness says so): nothing
            # to sign, and nothing broken here.
            with contextlib.suppress(UndefinedTableError):
                await self.sign_once()
            sup.beat()
            await pause_unless_stopped(sup.stopping, self.interval)

    # ------------------------------------------------------------ reads

    async def checkpoint(self, size: int | None = None) -> Note | None:
        """The checkpoint of ``size`` (the latest by default) with its cosignatures, as
        the reads see them (a cosignature just taken shows once the replica has it)."""
        row = await self.store.checkpoint(size)
        if row is None:
            return None
        note = parse_note(row[2])
        lines = await self.store.lines(row[0])
        if not lines:
            return note
        text = note.to_text() + "".join(lines)
        return parse_note(text)

    async def witnessed_by(
        self, indices: list[int], witnesses: list[tuple[str, int]]
    ) -> dict[int, list[Witnessed]]:
        """For each entry of ``indices``, each witness's (name, key ID) first cosigned
        checkpoint whose tree holds it, in the order of ``witnesses`` (a witness that
        cosigned none is left out). One query for any number of entries and
        witnesses, and two for the notes (each size once)."""
        out: dict[int, list[Witnessed]] = {i: [] for i in indices}
        if not indices or not witnesses:
            return out
        rows = await self.store.first_cosigned(
            indices, [name for name, _ in witnesses], [key_id for _, key_id in witnesses]
        )
        notes = await self._notes(sorted({size for _, _, size in rows}))
        found = sorted(rows)
        for index, i, size in found:
            if size in notes:
                out[index].append(Witnessed(witnesses[i - 1], size, notes[size]))
        return out

    async def _notes(self, sizes: list[int]) -> dict[int, str]:
        """The checkpoints of ``sizes``, each with its cosignatures (as
        :meth:`checkpoint` serves one)."""
        if not sizes:
            return {}
        with_lines, notes = await self.store.notes(sizes)
        lines: dict[int, list[str]] = {}
        for size, line in with_lines:
            lines.setdefault(size, []).append(line)
        out = {}
        for size, text in notes:
            note = parse_note(text)
            out[size] = note.to_text() + "".join(lines.get(size, ()))
        return out

    async def entries_of(self, streams: list[str]) -> list[StoredEntry]:
        return await self.store.entries_of(streams)

    # ------------------------------------------------------------ witnesses

    async def accepted(self) -> list[WitnessKey]:
        """The witness keys whose cosignatures the log takes: the configured ones, then
        the registered ones in the order they came (a registered key that a configured
        one has since shadowed, same name and key ID, is left out). Read on the primary:
        the cosignature intake judges by it, and a witness registered a moment ago, on
        any verify replica, is in it."""
        out = [WitnessKey(k) for k in dict.fromkeys(self.witnesses)]
        seen = {(w.key.name, w.key.key_id) for w in out}
        for vkey, registered_at, expires_at in await self.store.registered():
            try:
                key = parse_vkey(vkey)
            except TranslogError:
                # Not written by register() (which stores only keys it parsed): skipped,
                # so that a bad row cannot stop every witness's cosignatures.
                log.warning("verify_witnesses holds a row that is no vkey: skipped")
                continue
            if isinstance(key, CosignatureVerifier) and (key.name, key.key_id) not in seen:
                seen.add((key.name, key.key_id))
                out.append(WitnessKey(key, registered_at, expires_at))
        return out

    async def register(
        self, key: CosignatureVerifier, client: str = "unknown"
    ) -> tuple[WitnessKey, bool]:
        """Register a witness's key for ``client`` (its address, :func:`client_address`),
        or renew its registration; returns it and whether it is new (a key configured is
        answered as it is; one registered already is renewed, whoever asks: it keeps
        the address that registered it). Raises :class:`ServiceError`: 409
        ``witness_key_taken`` for another key of the same name and key ID, 409
        ``witness_limit`` when ``max_witnesses`` registrations are live, or
        ``witnesses_per_address`` from ``client`` (the message and ``Retry-After`` say
        when the first of them ends, unless its witness renews it)."""
        ident = (key.name, key.key_id)
        for configured in self.witnesses:
            if (configured.name, configured.key_id) == ident:
                if configured.vkey == key.vkey:
                    return WitnessKey(configured), False
                raise ServiceError(
                    "witness_key_taken", f"another key is {key.name}+{key.key_id:08x} here"
                )
        # Under the lock: the counts and the insert see every other registration; the
        # expired are gone (they hold no slot, nor a name and key ID). A refusal raised
        # inside leaves everything as it was.
        async with self.store.registering() as registrations:
            taken = await registrations.taken(key.name, key.key_id)
            if taken is not None:
                if taken[0] != key.vkey:
                    raise ServiceError(
                        "witness_key_taken", f"another key is {key.name}+{key.key_id:08x} here"
                    )
                ttl = self.witness_ttl if taken[1] else self.new_witness_ttl
                at, until = await registrations.renew(key.name, key.key_id, ttl, _slack(ttl))
                return WitnessKey(key, at, until), False
            if self.max_witnesses <= 0:
                raise ServiceError(
                    "witness_limit",
                    "this log takes no registrations; its operator may name yours in "
                    "BELOT_TRANSLOG_WITNESSES",
                )
            count, first_end, now = await registrations.live(None)
            if count >= self.max_witnesses:
                raise _limit(
                    f"this log has its {self.max_witnesses} live registrations",
                    first_end,
                    now,
                    "; its operator may name yours in BELOT_TRANSLOG_WITNESSES",
                )
            mine, first_end, now = await registrations.live(client)
            if mine >= self.witnesses_per_address:
                raise _limit(
                    f"your address ({client}) holds {mine} live registrations, the most "
                    f"one address may",
                    first_end,
                    now,
                )
            at, until = await registrations.add(
                key.vkey, key.name, key.key_id, client, self.new_witness_ttl
            )
        WITNESSES_REGISTERED.inc()
        return WitnessKey(key, at, until), True

    # ------------------------------------------------------------ cosignatures

    async def add_cosignatures(self, body: bytes) -> tuple[int, list[str]]:
        """Store the cosignatures of accepted witnesses (configured or registered) on a
        checkpoint the log signed; returns its size and the witnesses whose lines were
        new or known. Raises :class:`ServiceError`."""
        try:
            note = parse_note(body)
            checkpoint = parse_checkpoint(note.text)
        except TranslogError as exc:
            raise ServiceError.of(exc) from None
        # On the primary: the witness may have read this checkpoint from a replica more
        # advanced than ours, and the cosignature is written there anyway.
        row = await self.store.checkpoint(checkpoint.size, primary=True)
        if row is None or parse_note(row[2]).text != note.text:
            raise ServiceError(
                "checkpoint_unknown",
                f"this log signed no such checkpoint of size {checkpoint.size}",
            )
        witnesses = [w.key for w in await self.accepted()]
        configured = {(w.name, w.key_id) for w in self.witnesses}
        unknown = "no witness key of this log signed it: register yours (POST /v1/log/witnesses)"
        if not witnesses:
            raise ServiceError("witness_unknown", unknown)
        try:
            opened = open_note(note, witnesses)
        except UnknownKey:
            raise ServiceError("witness_unknown", unknown) from None
        except TranslogError as exc:
            raise ServiceError.of(exc) from None
        names = []
        for signature in opened.verified:
            timestamp = Cosignature.of(signature).timestamp
            await self.store.add_cosignature(
                checkpoint.size,
                signature.name,
                signature.key_id,
                timestamp,
                signature.line(),
            )
            if signature.key not in configured:
                # A registered key renews by cosigning (it proves it is in use, which a
                # registration alone does not): from now on it lives the long term.
                await self.store.cosigned(
                    signature.name,
                    signature.key_id,
                    self.witness_ttl,
                    self.witness_ttl - _slack(self.witness_ttl),
                )
            COSIGNATURES.labels(signature.name).inc()
            names.append(signature.name)
        return checkpoint.size, names


def _limit(why: str, first_end: datetime | None, now: datetime, hint: str = "") -> ServiceError:
    """``witness_limit``, saying when a slot frees: when the first of the registrations
    counted ends (unless its witness renews it), also as ``Retry-After``."""
    if first_end is None:  # nothing live to wait for (a limit of 0)
        return ServiceError("witness_limit", why + hint)
    wait = max(1, math.ceil((first_end - now).total_seconds()))
    return ServiceError(
        "witness_limit",
        f"{why}; a slot frees at {_iso(first_end)} (in {wait} s) unless its witness "
        f"renews it{hint}",
        headers={"Retry-After": str(wait)},
    )


# --- HTTP ------------------------------------------------------------------------------


def _int_param(request: web.Request, name: str, high: int = 2**63 - 1) -> int:
    text = request.query.get(name)
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 19:
        raise ServiceError(f"bad_{name}", f"{name} must be a whole number 0..{high}")
    value = int(text)
    if value > high:
        raise ServiceError(f"bad_{name}", f"{name} must be a whole number 0..{high}")
    return value


async def _read_body(request: web.Request, limit: int, what: str) -> bytes:
    """The request's body, refused (413) past ``limit`` bytes without reading further."""
    if request.content_length is not None and request.content_length > limit:
        raise ServiceError("too_large", f"{what} is at most {limit} bytes")
    body = b""
    while len(body) <= limit:  # read(n) gives what has come, up to n
        chunk = await request.content.read(limit + 1 - len(body))
        if not chunk:
            break
        body += chunk
    if len(body) > limit:
        raise ServiceError("too_large", f"{what} is at most {limit} bytes")
    return body


def _text(body: str, cache: str) -> web.Response:
    return web.Response(
        text=body, content_type="text/plain", charset="utf-8", headers={"Cache-Control": cache}
    )


class LogApi:
    """The routes; the service is attached once the pool exists."""

    def __init__(self) -> None:
        self._service: LogService | None = None

    def attach(self, service: LogService) -> None:
        self._service = service

    @property
    def service(self) -> LogService:
        if self._service is None:
            raise ServiceError("unavailable", "the log is starting", headers={"Retry-After": "1"})
        return self._service

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/checkpoint", self.get_checkpoint),
            web.get("/v1/log/key", self.get_key),
            web.get("/tile/{path:.+}", self.get_tile),
            web.get("/v1/log/checkpoints/{size}", self.get_checkpoint_at),
            web.get("/v1/log/proof/inclusion", self.get_inclusion),
            web.get("/v1/log/proof/consistency", self.get_consistency),
            web.get("/v1/log/entries", self.get_entries),
            web.post("/v1/log/cosignatures", self.post_cosignatures),
            web.get("/v1/log/witnesses", self.get_witnesses),
            web.post("/v1/log/witnesses", self.post_witnesses),
        ]

    async def get_key(self, request: web.Request) -> web.Response:
        """The log's public key (its vkey line): public, like every checkpoint it signs.
        A reader pins it the first time (the tab does): a log that later shows another
        key is, to that reader, another log."""
        return _text(self.service.verifier.vkey + "\n", "public, max-age=300")

    # The read routes read on one connection (services/verify/store/reads.py): a
    # checkpoint and its cosignatures, or a tree's size and its nodes, from one replica.

    async def get_checkpoint(self, request: web.Request) -> web.Response:
        async with self.service.reads.pinned():
            note = await self.service.checkpoint()
        if note is None:
            raise ServiceError("no_checkpoint", "the log has signed no checkpoint yet")
        return _text(note.to_text(), "no-cache")

    async def get_checkpoint_at(self, request: web.Request) -> web.Response:
        text = request.match_info["size"]
        if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) >= 2**63:
            raise ServiceError("bad_size", "a checkpoint size is a whole number")
        async with self.service.reads.pinned():
            note = await self.service.checkpoint(int(text))
        if note is None:
            raise ServiceError("no_checkpoint", f"the log signed no checkpoint of size {text}")
        # More cosignatures may come: cached briefly only.
        return _text(note.to_text(), "public, max-age=10")

    async def get_tile(self, request: web.Request) -> web.Response:
        path = "tile/" + request.match_info["path"]
        svc = self.service
        try:
            if path.startswith("tile/entries/"):
                tile = parse_entries_path(path)
                level = 0
            else:
                tile = parse_tile_path(path)
                level = tile.level
        except TranslogError as exc:
            raise ServiceError.of(exc) from None
        # Served as immutable: the size and the tile's contents must come from one
        # replica (one behind the other would give a short tile).
        async with svc.reads.pinned():
            size = await svc.tree.size()
            if tile_width(level, tile.index, size) < tile.width:
                raise ServiceError("no_tile", f"the tree of {size} has no {path}")
            start = tile.index * TILE_WIDTH
            if path.startswith("tile/entries/"):
                entries = await svc.tree.entries(start, start + tile.width)
                body = encode_bundle([e.entry for e in entries])
            else:
                hashes = await svc.tree.row(tile.level * TILE_HEIGHT, start, start + tile.width)
                body = tile_data(hashes)
        return web.Response(
            body=body,
            content_type="application/octet-stream",
            headers={"Cache-Control": IMMUTABLE},
        )

    async def _size_at_most(self, size: int) -> None:
        current = await self.service.tree.size()
        if size > current:
            raise ServiceError("out_of_range", f"the tree has {current} entries, not {size}")

    async def get_inclusion(self, request: web.Request) -> web.Response:
        index, size = _int_param(request, "index"), _int_param(request, "size")
        return await self._proof({"index": index, "size": size}, size, inclusion_nodes)

    async def get_consistency(self, request: web.Request) -> web.Response:
        first, second = _int_param(request, "first"), _int_param(request, "second")
        return await self._proof({"first": first, "second": second}, second, consistency_nodes)

    async def _proof(
        self, args: dict[str, int], size: int, plan_of: Callable[[int, int], Any]
    ) -> web.Response:
        """A proof in a tree of ``size``: the nodes ``plan_of(*args)`` names, read in one
        query and assembled (a refusal of the arguments is bad input)."""
        try:
            plan = plan_of(*args.values())
        except TranslogError as exc:
            raise ServiceError.of(exc) from None
        async with self.service.reads.pinned():  # the size and the nodes, one replica
            await self._size_at_most(size)
            proof = plan.assemble(await self.service.tree.nodes(plan.nodes))
        return json_response(
            {**args, "proof": [b64(h) for h in proof]}, headers={"Cache-Control": IMMUTABLE}
        )

    async def get_entries(self, request: web.Request) -> web.Response:
        svc = self.service
        streams = list(request.query.getall("stream", []))
        match = request.query.get("match")
        if match is not None:
            if not is_match_id(match):
                raise ServiceError(
                    "bad_match_id", "a match id is 1-180 letters, digits, '_', ':' or '-'"
                )
            streams += [kinds.randomness_stream(match), kinds.match_stream(match)]
        if not streams or len(streams) > MAX_STREAMS + 2:
            raise ServiceError("bad_stream", f"name a match, or 1 to {MAX_STREAMS} streams")
        if not all(STREAM_ID_RE.fullmatch(s) for s in streams):
            raise ServiceError(
                "bad_stream", "a stream id is 1-200 letters, digits, '_', ':' or '-'"
            )
        named = request.query.getall("witness", [])
        if len(named) > MAX_WITNESS_PARAMS:
            raise ServiceError(
                "bad_witness", f"name at most {MAX_WITNESS_PARAMS} witnesses a request"
            )
        # The configured witnesses first (``witnessed`` is the first of theirs), then
        # the ones asked for, each once.
        configured = [(w.name, w.key_id) for w in svc.witnesses]
        witnesses = list(dict.fromkeys([*configured, *map(parse_witness_param, named)]))
        # The entries, the checkpoints that hold them and the size, from one replica:
        # every entry listed is in the tree of the size given.
        async with svc.reads.pinned():
            entries = await svc.entries_of(streams)
            if match is not None:
                # The fact of the round the match named, if the round has one in the log.
                rounds = []
                for stored in entries:
                    entry = logentries.parse_entry(stored.entry)
                    if isinstance(entry, logentries.RoundNamed):
                        rounds.append(kinds.drand_stream(entry.chain, entry.round))
                if rounds:
                    entries = sorted(
                        {e.index: e for e in (*entries, *await svc.entries_of(rounds))}.values(),
                        key=lambda e: e.index,
                    )
            by = await svc.witnessed_by([e.index for e in entries], witnesses)
            out = []
            for stored in entries:
                mine = by[stored.index]
                # The first of the configured witnesses' checkpoints: never a registered
                # key's, which is no trust (the module docstring says what it cost).
                ours = [w for w in mine if w.witness in configured]
                first = min(ours, key=lambda w: w.size, default=None)
                out.append(
                    {
                        "index": stored.index,
                        "data": b64(stored.entry),
                        "entry": logentries.to_json(logentries.parse_entry(stored.entry)),
                        "witnessed": None if first is None else first.to_json(),
                        "witnessed_by": [w.by_json() for w in mine],
                    }
                )
            size = await svc.tree.size()
        return json_response({"size": size, "entries": out})

    async def post_cosignatures(self, request: web.Request) -> web.Response:
        body = await _read_body(request, MAX_COSIGNATURE_BYTES, "a cosigned checkpoint")
        size, names = await self.service.add_cosignatures(body)
        return json_response({"size": size, "witnesses": names})

    async def get_witnesses(self, request: web.Request) -> web.Response:
        # On the primary (accepted()): the keys as the cosignature intake judges them
        # now, a registration just made included.
        accepted = await self.service.accepted()
        return json_response(
            {
                "witnesses": [w.to_json() for w in accepted],
                "max_registered": self.service.max_witnesses,
                "max_per_address": self.service.witnesses_per_address,
            },
            headers={"Cache-Control": "no-cache"},
        )

    async def post_witnesses(self, request: web.Request) -> web.Response:
        body = await _read_body(request, MAX_VKEY_BYTES, "a witness's vkey line")
        try:
            text = body.decode()
        except UnicodeDecodeError:
            raise ServiceError("key_malformed", "a vkey is one line of text") from None
        if text.strip().count("\n"):
            raise ServiceError("key_malformed", "one vkey, on one line")
        witness, new = await self.service.register(parse_witness_key(text), client_address(request))
        return json_response(witness.to_json(), status=201 if new else 200)


def witness_keys(settings: Settings) -> tuple[CosignatureVerifier, ...]:
    """The configured witnesses' keys (checked by the settings already)."""
    keys = tuple(parse_vkey(v) for v in settings.translog_witnesses)
    return tuple(k for k in keys if isinstance(k, CosignatureVerifier))


# --- OpenAPI ---------------------------------------------------------------------------

_ERR: Final = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
_TEXT: Final = {"text/plain": {"schema": {"type": "string"}}}
_BYTES: Final = {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
_SIZE: Final = {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}


_WITNESS: Final = {
    "type": "object",
    "required": ["vkey", "name", "key_id", "source", "registered_at"],
    "properties": {
        "vkey": {"type": "string"},
        "name": {"type": "string"},
        "key_id": {"type": "string", "pattern": "^[0-9a-f]{8}$"},
        "source": {"type": "string", "enum": ["configured", "registered"]},
        "registered_at": {"type": "string", "format": "date-time", "nullable": True},
        "expires_at": {
            "type": "string",
            "format": "date-time",
            "nullable": True,
            "description": "when the registration ends unless renewed (registering again, "
            "or a cosignature from the key); null for a configured witness",
        },
    },
}

_WITNESSED_PROPERTIES: Final[dict[str, Any]] = {
    "size": {"type": "integer"},
    "checkpoint": {
        "type": "string",
        "description": "the checkpoint note with its cosignature lines",
    },
}
_WITNESSED: Final = {
    "type": "object",
    "required": ["size", "checkpoint"],
    "properties": _WITNESSED_PROPERTIES,
}
_WITNESSED_BY: Final = {
    "type": "object",
    "required": ["witness", "key_id", "size", "checkpoint"],
    "properties": {
        "witness": {"type": "string", "description": "the witness key's name"},
        "key_id": {"type": "string", "pattern": "^[0-9a-f]{8}$"},
        **_WITNESSED_PROPERTIES,
    },
}


def _q(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": True,
        "schema": _SIZE,
        "description": description,
    }


def _errs(*codes: str) -> dict[str, Any]:
    what = {"400": "bad input (the code names it)", "404": "no such thing in the log yet",
            "403": "not a witness of this log", "413": "too large",
            "409": "witness_key_taken (another key of that name and key ID), or "
                   "witness_limit (the cap on live registrations, or on one address's, is "
                   "reached: the message and Retry-After say when a slot frees)"}  # fmt: skip
    return {c: {"description": what[c], "content": _ERR} for c in codes}


def _proof(first: str, second: str) -> dict[str, Any]:
    return {
        "type": "object",
        "required": [first, second, "proof"],
        "properties": {
            first: {"type": "integer"},
            second: {"type": "integer"},
            "proof": {"type": "array", "items": {"type": "string", "format": "byte"}},
        },
    }


#: The log's paths in the verify API's OpenAPI document (services/verify/openapi.py).
OPENAPI_PATHS: Final[dict[str, Any]] = {
    "/checkpoint": {
        "get": {
            "operationId": "getCheckpoint",
            "summary": "The transparency log's latest checkpoint (C2SP tlog-checkpoint, a "
            "signed note) with the witnesses' cosignatures collected on it",
            "responses": {"200": {"description": "the note", "content": _TEXT}, **_errs("404")},
        }
    },
    "/v1/log/key": {
        "get": {
            "operationId": "getLogKey",
            "summary": "The log's public key, as one vkey line (<origin>+<key id>+<key>): "
            "pin it the first time; another key later is another log",
            "responses": {"200": {"description": "the vkey", "content": _TEXT}},
        }
    },
    "/tile/{path}": {
        "get": {
            "operationId": "getTile",
            "summary": "A tile (C2SP tlog-tiles): <L>/<N>[.p/<W>] is a hash tile, "
            "entries/<N>[.p/<W>] an entry bundle; immutable",
            "parameters": [
                {"name": "path", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
            "responses": {
                "200": {"description": "the tile's bytes", "content": _BYTES},
                **_errs("400", "404"),
            },
        }
    },
    "/v1/log/checkpoints/{size}": {
        "get": {
            "operationId": "getLogCheckpoint",
            "summary": "The checkpoint the log signed at this size, with its cosignatures",
            "parameters": [{"name": "size", "in": "path", "required": True, "schema": _SIZE}],
            "responses": {
                "200": {"description": "the note", "content": _TEXT},
                **_errs("400", "404"),
            },
        }
    },
    "/v1/log/proof/inclusion": {
        "get": {
            "operationId": "getInclusionProof",
            "summary": "RFC 9162 inclusion proof of entry `index` in the tree of `size` "
            "entries (base64 hashes, deepest first)",
            "parameters": [_q("index", "the entry"), _q("size", "the tree size")],
            "responses": {
                "200": {
                    "description": "the proof",
                    "content": {"application/json": {"schema": _proof("index", "size")}},
                },
                **_errs("400"),
            },
        }
    },
    "/v1/log/proof/consistency": {
        "get": {
            "operationId": "getConsistencyProof",
            "summary": "RFC 9162 consistency proof that the tree of `second` entries "
            "extends the tree of `first`",
            "parameters": [_q("first", "the older size"), _q("second", "the newer size")],
            "responses": {
                "200": {
                    "description": "the proof",
                    "content": {"application/json": {"schema": _proof("first", "second")}},
                },
                **_errs("400"),
            },
        }
    },
    "/v1/log/entries": {
        "get": {
            "operationId": "getLogEntries",
            "summary": "A match's entries (format belot-log-entry/1), with the fact of the "
            "round it named, or a stream's; each with the first checkpoint holding it that "
            "a configured witness cosigned (`witnessed`), and each configured or named "
            "witness's own first one (`witnessed_by`)",
            "parameters": [
                {
                    "name": "match",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_:-]{1,180}$"},
                },
                {
                    "name": "stream",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "string"},
                },
                {
                    "name": "witness",
                    "in": "query",
                    "required": False,
                    "description": "a witness whose own first checkpoint to give, as "
                    "<key name>+<key ID, 8 hex> (repeat, at most "
                    f"{MAX_WITNESS_PARAMS}); the configured witnesses are always given",
                    "style": "form",
                    "explode": True,
                    "schema": {
                        "type": "array",
                        "maxItems": MAX_WITNESS_PARAMS,
                        "items": {"type": "string", "pattern": "^[^+ ]{1,256}[+ ][0-9a-fA-F]{8}$"},
                    },
                },
            ],
            "responses": {
                "200": {
                    "description": "the entries, by index",
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["size", "entries"],
                                "properties": {
                                    "size": {"type": "integer"},
                                    "entries": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": [
                                                "index",
                                                "data",
                                                "entry",
                                                "witnessed",
                                                "witnessed_by",
                                            ],
                                            "properties": {
                                                "index": {"type": "integer"},
                                                "data": {"type": "string", "format": "byte"},
                                                "entry": {"type": "object"},
                                                "witnessed": {**_WITNESSED, "nullable": True},
                                                "witnessed_by": {
                                                    "type": "array",
                                                    "items": _WITNESSED_BY,
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        }
                    },
                },
                **_errs("400"),
            },
        }
    },
    "/v1/log/cosignatures": {
        "post": {
            "operationId": "postCosignatures",
            "summary": "A witness's cosignature: the checkpoint as the log signed it with the "
            "witness's cosignature line (C2SP tlog-cosignature) added",
            "requestBody": {"required": True, "content": _TEXT},
            "responses": {
                "200": {
                    "description": "taken (a witness's first cosignature of a size is kept)",
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["size", "witnesses"],
                                "properties": {
                                    "size": {"type": "integer"},
                                    "witnesses": {"type": "array", "items": {"type": "string"}},
                                },
                            }
                        }
                    },
                },
                **_errs("400", "403", "404", "413"),
            },
        }
    },
    "/v1/log/witnesses": {
        "get": {
            "operationId": "getWitnesses",
            "summary": "The witness keys whose cosignatures the log collects and serves: the "
            "operator's (configured) and those that registered themselves. Being listed is "
            "no trust: a reader names the witnesses it trusts",
            "responses": {
                "200": {
                    "description": "the keys, configured first",
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["witnesses", "max_registered", "max_per_address"],
                                "properties": {
                                    "witnesses": {"type": "array", "items": _WITNESS},
                                    "max_registered": {"type": "integer"},
                                    "max_per_address": {"type": "integer"},
                                },
                            }
                        }
                    },
                }
            },
        },
        "post": {
            "operationId": "registerWitness",
            "summary": "Register a witness's key (its vkey line, from belot witness keygen): "
            "the log then takes and serves its cosignatures until `expires_at`. Registering "
            "again renews it, as does a cosignature from the key; rate limited as a "
            "verification",
            "requestBody": {"required": True, "content": _TEXT},
            "responses": {
                "201": {
                    "description": "registered",
                    "content": {"application/json": {"schema": _WITNESS}},
                },
                "200": {
                    "description": "known already (configured, or registered: renewed)",
                    "content": {"application/json": {"schema": _WITNESS}},
                },
                **_errs("400", "409", "413"),
            },
        },
    },
}
