"""Machinery for the field-by-field tests (test_fields.py): a body that records which of
its fields a handler reads, where a field path points in a body, and one request of a
case sent to the gateway or straight onto NATS.

Field paths: ``name`` (a key of the body), ``seats[].player`` (a key of an item of a
list), ``pairs[][]`` (an item of an item), ``points.win``, ``*`` (any key: the handler
lists the body's keys, e.g. to refuse unknown ones), ``points.*``; ``/table_id`` is a
path parameter of a gateway route, ``?ruleset`` a query parameter.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import orjson

from belot_platform import fields

#: The three values every field is tried with.
NUL = "bad\x00value"
SURROGATE = "bad\ud800value"
#: Longer than any field's bound (ids 200, texts 500); within a URL, longer than any
#: URL field's bound and shorter than the HTTP line limit (64 KiB).
OVERSIZED_BODY = "x" * 100_000
OVERSIZED_URL = "x" * 10_000
#: Where a field holds a text or a number, a JSON object: the wrong type altogether.
OBJECT = {"not": "a text"}


def parts(path: str) -> list[str]:
    """``seats[].player`` -> ``["seats", "[]", "player"]``."""
    return re.findall(r"\[\]|[^.\[\]]+", path)


def leaf(path: str) -> str | None:
    """The name a message about ``path`` must say: its last named part (``player`` for
    ``seats[].player``, ``pairs`` for ``pairs[][]``); None for a key of the body (``*``)."""
    names = [p for p in parts(path.lstrip("/?")) if p not in ("[]", "*")]
    return names[-1] if names else None


def _pick(items: list[Any], rest: list[str]) -> int:
    """The item of a list that a path's ``rest`` goes on into: the first holding its
    next key, else the first of the kind it needs, else the first."""
    nxt = rest[0] if rest else None
    for n, item in enumerate(items):
        if nxt not in (None, "[]", "*") and isinstance(item, dict) and nxt in item:
            return n
    for n, item in enumerate(items):
        if (nxt == "[]" and isinstance(item, list)) or (
            nxt not in (None, "[]") and isinstance(item, dict)
        ):
            return n
    return 0


def get(body: Any, path: str) -> Any:
    """The value at ``path`` (a key's, ``*``: None), as :func:`put` would find it."""
    ps = parts(path)
    node = body
    for i, p in enumerate(ps):
        if p == "*":
            return None
        if p == "[]":
            node = node[_pick(node, ps[i + 1 :])] if node else None
        else:
            node = node.get(p) if isinstance(node, dict) else None
        if node is None:
            return None
    return node


def put(body: Any, path: str, value: Any) -> None:
    """Set the field ``path`` of ``body`` to ``value`` (for ``*``: add ``value`` as a
    key). The body must hold the path's containers."""
    ps = parts(path)
    node = body
    for i, p in enumerate(ps[:-1]):
        node = node[_pick(node, ps[i + 1 :])] if p == "[]" else node[p]
    last = ps[-1]
    if last == "*":
        node[value] = 1
    elif last == "[]":
        node[_pick(node, [])] = value
    else:
        node[last] = value


# --- recording reads -------------------------------------------------------------------


@dataclass
class Reads:
    """What handlers read: by layer (the gateway's route, or a NATS subject's name)."""

    route: str = ""  # the gateway route of the request being sent
    by_route: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    by_subject: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    #: NATS subjects' reads made while a gateway route's request was in flight.
    downstream: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def sink(self, what: str, prefix: str) -> set[str]:
        if what == "the body":
            return self.by_route[self.route]
        subject = subject_name(what.removeprefix("the request on "), prefix)
        return _Both(self.by_subject[subject], self.downstream[self.route])


class _Both(set[str]):
    """A set that adds to two others."""

    def __init__(self, a: set[str], b: set[str]) -> None:
        super().__init__()
        self.a, self.b = a, b

    def add(self, item: str) -> None:
        self.a.add(item)
        self.b.add(item)


def subject_name(subject: str, prefix: str) -> str:
    """``<prefix>.table.<id>.join`` -> ``table.join``; ``<prefix>.tournament.get`` ->
    ``tournament.get``."""
    rest = subject.removeprefix(prefix + ".").split(".")
    if rest[0] == "table" and len(rest) == 3:
        return f"table.{rest[2]}"
    return ".".join(rest)


def wrap(value: Any, path: str, sink: set[str]) -> Any:
    if isinstance(value, dict) and not isinstance(value, RecordingDict):
        return RecordingDict(value, path, sink)
    if isinstance(value, list) and not isinstance(value, RecordingList):
        return RecordingList(value, path, sink)
    return value


class RecordingDict(dict[str, Any]):
    """A JSON object that notes each field read of it (listing its keys is ``*``)."""

    def __init__(self, data: dict[str, Any], path: str, sink: set[str]) -> None:
        super().__init__(data)
        self._at = f"{path}." if path else ""
        self._sink = sink

    def _note(self, key: object) -> None:
        self._sink.add(f"{self._at}{key}")

    def _child(self, key: str, value: Any) -> Any:
        return wrap(value, f"{self._at}{key}", self._sink)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        self._note(key)
        return self._child(key, super().get(key, default))

    def __getitem__(self, key: str) -> Any:
        self._note(key)
        return self._child(key, super().__getitem__(key))

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return super().__contains__(key)

    def pop(self, key: str, *default: Any) -> Any:  # type: ignore[override]
        self._note(key)
        return super().pop(key, *default)

    def __iter__(self) -> Iterator[str]:
        self._note("*")
        return super().__iter__()

    def keys(self) -> Any:
        self._note("*")
        return super().keys()

    def items(self) -> Any:
        self._note("*")
        return [(k, self._child(k, v)) for k, v in super().items()]

    def values(self) -> Any:
        self._note("*")
        return [self._child(k, v) for k, v in super().items()]


class RecordingList(list[Any]):
    """A JSON array that notes that its items are read (``path[]``)."""

    def __init__(self, data: list[Any], path: str, sink: set[str]) -> None:
        super().__init__(data)
        self._path = f"{path}[]"
        self._sink = sink

    def __iter__(self) -> Iterator[Any]:
        self._sink.add(self._path)
        return (wrap(v, self._path, self._sink) for v in super().__iter__())

    def __getitem__(self, index: Any) -> Any:
        self._sink.add(self._path)
        return wrap(super().__getitem__(index), self._path, self._sink)


def recording_decode(reads: Reads, prefix: str) -> Any:
    """A stand-in for ``fields.decode`` whose objects record what is read of them."""
    original = fields.decode

    def decode(raw: bytes | str, what: str = "the body") -> Any:
        data = original(raw, what)
        return wrap(data, "", reads.sink(what, prefix))

    return decode


# --- requests ----------------------------------------------------------------------------


@dataclass
class Request:
    """One request: to the gateway (``path``, a template with ``{name}``s) or onto NATS
    (``subject``, after the platform's prefix)."""

    method: str = "POST"
    path: str = ""
    params: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    subject: str = ""

    def with_field(self, path: str, value: Any) -> Request:
        """A copy whose field ``path`` is ``value``."""
        out = Request(
            self.method,
            self.path,
            dict(self.params),
            dict(self.query),
            json.loads(json.dumps(self.body)) if self.body is not None else None,
            dict(self.headers),
            self.subject,
        )
        if path.startswith("/"):
            out.params[path[1:]] = value
        elif path.startswith("?"):
            out.query[path[1:]] = value
        else:
            if out.body is None:
                out.body = {}
            put(out.body, path, value)
        return out

    def url(self) -> str:
        def enc(v: str) -> str:
            return quote(v, safe="", errors="surrogatepass")

        path = self.path.format(**{k: enc(v) for k, v in self.params.items()})
        if self.query:
            path += "?" + "&".join(f"{enc(k)}={enc(v)}" for k, v in self.query.items())
        return path


def encode(body: Any) -> bytes:
    """JSON as any client may send it: lone surrogates and NULs escaped (orjson refuses
    to write a lone surrogate)."""
    return json.dumps(body).encode()


@dataclass
class Answer:
    status: int  # HTTP status; for NATS 200, or 400 for a reply with an error
    body: Any
    json: bool

    @property
    def code(self) -> str | None:
        return self.body.get("error") if isinstance(self.body, dict) else None

    @property
    def message(self) -> str:
        return str(self.body.get("message", "")) if isinstance(self.body, dict) else ""


async def send(http: Any, nc: Any, prefix: str, req: Request, timeout: float = 10) -> Answer:
    if req.subject:
        msg = await nc.request(f"{prefix}.{req.subject}", encode(req.body or {}), timeout=timeout)
        body = orjson.loads(msg.data)
        return Answer(400 if isinstance(body, dict) and "error" in body else 200, body, True)
    data = None if req.body is None else encode(req.body)
    headers = {**req.headers, **({"Content-Type": "application/json"} if data else {})}
    async with http.request(req.method, req.url(), data=data, headers=headers) as resp:
        raw = await resp.read()
        is_json = resp.content_type == "application/json"
        return Answer(resp.status, orjson.loads(raw) if is_json else raw.decode(), is_json)
