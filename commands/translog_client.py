"""A client of the transparency log's public API (services/verify/translog.py), for
``belot witness``, ``belot verify`` and ``belot log audit``: it fetches and checks
nothing it could trust blindly, it only fetches. Checking is the callers' (with
``translog``), so a log that answers wrongly is caught there, not papered over here.

Every failure to get an answer (unreachable, an HTTP error, a body that is not what
the route serves) is :class:`LogUnavailable`, one line."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final
from urllib.parse import quote

import aiohttp
import orjson

from translog import HASH_SIZE, Hash

TIMEOUT: Final = 30.0
MAX_BODY: Final = 64 * 1024 * 1024


class LogUnavailable(Exception):
    """The log could not be asked, or answered with something that is not an answer
    (``status``: the HTTP status of an error answer)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


#: Witnesses one ``/v1/log/entries`` request may name (the log's bound,
#: services/verify/translog.py ``MAX_WITNESS_PARAMS``): :meth:`LogClient.entries`
#: asks in as many requests as it takes.
WITNESSES_PER_REQUEST: Final = 16


@dataclass(frozen=True, slots=True)
class WitnessedBy:
    """One witness's first cosigned checkpoint holding an entry, as the log says: which
    witness (name, key ID), the checkpoint's size and its note with its cosignature
    lines. The log's word only: the caller checks the witness's line with its key."""

    witness: str
    key_id: int
    size: int
    note: str


@dataclass(frozen=True, slots=True)
class LogEntryRow:
    """An entry as the API lists it: index, bytes, the first checkpoint holding it that
    a witness the log's operator configured cosigned (its note text), if any, and each
    configured or asked-for witness's own first one (``witnessed_by``)."""

    index: int
    data: bytes
    witnessed_size: int | None
    witnessed_note: str | None
    witnessed_by: tuple[WitnessedBy, ...] = ()

    def by(self, name: str, key_id: int) -> WitnessedBy | None:
        """The first checkpoint holding this entry that witness (name, key ID)
        cosigned, as the log lists it; None if it lists none."""
        return next((w for w in self.witnessed_by if (w.witness, w.key_id) == (name, key_id)), None)


def _hashes(items: Any, what: str) -> tuple[Hash, ...]:
    if not isinstance(items, list):
        raise LogUnavailable(f"{what}: the proof is not a list")
    out = []
    for item in items:
        try:
            raw = base64.b64decode(item, validate=True) if isinstance(item, str) else b""
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) != HASH_SIZE:
            raise LogUnavailable(f"{what}: a proof element is not a base64 SHA-256 hash")
        out.append(raw)
    return tuple(out)


def _entry_rows(body: Any) -> list[LogEntryRow]:
    rows = body.get("entries") if isinstance(body, dict) else None
    if not isinstance(rows, list):
        raise LogUnavailable("/v1/log/entries: no list of entries")
    out = []
    for row in rows:
        try:
            data = base64.b64decode(row["data"], validate=True)
            w = row.get("witnessed")
            by = tuple(
                WitnessedBy(
                    str(b["witness"]), int(b["key_id"], 16), int(b["size"]), str(b["checkpoint"])
                )
                for b in row.get("witnessed_by") or ()
            )
            out.append(
                LogEntryRow(
                    int(row["index"]),
                    data,
                    None if w is None else int(w["size"]),
                    None if w is None else str(w["checkpoint"]),
                    by,
                )
            )
        except (KeyError, TypeError, ValueError, binascii.Error):
            raise LogUnavailable("/v1/log/entries: an entry is not {index, data}") from None
    return out


class LogClient:
    """``async with LogClient(api) as log: ...``; ``api`` is the verify API's base URL."""

    def __init__(self, api: str) -> None:
        self.api = api.rstrip("/")
        self._http: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> LogClient:
        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._http is not None:
            await self._http.close()

    async def _request(self, method: str, path: str, body: bytes | None = None) -> bytes:
        if self._http is None:
            raise LogUnavailable("the client is not open")
        url = self.api + path
        try:
            async with self._http.request(method, url, data=body) as resp:
                chunks, size = [], 0
                async for chunk in resp.content.iter_chunked(1 << 16):
                    size += len(chunk)
                    if size > MAX_BODY:
                        break
                    chunks.append(chunk)
                data = b"".join(chunks)
                if not 200 <= resp.status < 300:
                    text = data[:300].decode(errors="replace").strip()
                    try:
                        err = orjson.loads(data)
                        text = f"{err['error']}: {err['message']}"
                    except (orjson.JSONDecodeError, KeyError, TypeError):
                        pass
                    raise LogUnavailable(f"{url}: HTTP {resp.status} {text}", resp.status)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise LogUnavailable(f"{url}: {type(exc).__name__}: {exc}") from None
        if size > MAX_BODY:
            raise LogUnavailable(f"{url}: more than {MAX_BODY} bytes")
        return data

    async def _json(self, path: str) -> Any:
        data = await self._request("GET", path)
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            raise LogUnavailable(f"{self.api}{path}: not JSON") from None

    async def checkpoint(self, size: int | None = None) -> str:
        """The latest checkpoint's note text (or the one of ``size``), unverified."""
        path = "/checkpoint" if size is None else f"/v1/log/checkpoints/{size}"
        return (await self._request("GET", path)).decode(errors="replace")

    async def consistency(self, first: int, second: int) -> tuple[Hash, ...]:
        body = await self._json(f"/v1/log/proof/consistency?first={first}&second={second}")
        return _hashes(body.get("proof") if isinstance(body, dict) else None, "consistency")

    async def inclusion(self, index: int, size: int) -> tuple[Hash, ...]:
        body = await self._json(f"/v1/log/proof/inclusion?index={index}&size={size}")
        return _hashes(body.get("proof") if isinstance(body, dict) else None, "inclusion")

    async def entries(
        self,
        match: str | None = None,
        streams: Sequence[str] = (),
        witnesses: Sequence[tuple[str, int]] = (),
    ) -> list[LogEntryRow]:
        """The entries of a match (or of ``streams``), each with the first checkpoint
        holding it that each witness of ``witnesses`` (name, key ID) cosigned, beside
        the configured witnesses' the log always gives. More witnesses than a request
        may name are asked for in several requests, their answers merged by entry
        (the entries listed are the first answer's)."""
        base = [
            *([f"match={quote(match, safe='')}"] if match else []),
            *(f"stream={quote(s, safe='')}" for s in streams),
        ]
        named = list(dict.fromkeys(witnesses))
        chunks = [
            named[i : i + WITNESSES_PER_REQUEST]
            for i in range(0, len(named), WITNESSES_PER_REQUEST)
        ] or [[]]
        rows: list[LogEntryRow] | None = None
        for chunk in chunks:
            query = "&".join(
                [*base, *(f"witness={quote(f'{n}+{k:08x}', safe='')}" for n, k in chunk)]
            )
            got = _entry_rows(await self._json(f"/v1/log/entries?{query}"))
            if rows is None:
                rows = got
                continue
            more = {r.index: r.witnessed_by for r in got}
            rows = [
                replace(
                    r,
                    witnessed_by=r.witnessed_by
                    + tuple(w for w in more.get(r.index, ()) if w not in r.witnessed_by),
                )
                for r in rows
            ]
        return rows or []

    async def record(self, match: str) -> Any:
        """The match's record from the verify API (public events until it ends)."""
        return await self._json(f"/v1/matches/{match}/record")

    async def finished(self, before: str | None = None) -> dict[str, Any]:
        """One page of the verify API's finished matches: ``{"matches": [ids], "next"}``."""
        query = "limit=100" + ("" if before is None else f"&before={before}")
        body = await self._json(f"/v1/matches?{query}")
        try:
            ids = [str(m["match_id"]) for m in body["matches"]]
            following = body["next"]
        except (KeyError, TypeError):
            raise LogUnavailable("/v1/matches: not a page of matches") from None
        return {"matches": ids, "next": None if following is None else str(following)}

    async def bundle(self, path: str) -> bytes:
        return await self._request("GET", "/" + path)

    async def register_witness(self, vkey: str) -> Any:
        """POST a witness's vkey to the log's registrations; the log's answer (its JSON:
        the key as registered, ``source``, ``registered_at``, ``expires_at``). Again
        for a key registered: renews it."""
        data = await self._request("POST", "/v1/log/witnesses", vkey.encode())
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            raise LogUnavailable("/v1/log/witnesses: not JSON") from None

    async def cosign(self, note: str) -> Any:
        """POST a cosigned checkpoint; the log's answer (its JSON)."""
        data = await self._request("POST", "/v1/log/cosignatures", note.encode())
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            raise LogUnavailable("/v1/log/cosignatures: not JSON") from None
