"""The verify API's handlers: parse, read the log, build or verify a record, answer.

Routes (all JSON; errors ``{"error": code, "message": text}``; the OpenAPI document at
``/v1/openapi.json`` is the reference):

- ``GET  /v1/matches``                    finished matches, latest first, paged (``limit``,
                                          ``before``), filters ``ruleset``, ``player``,
                                          ``ended_by``
- ``GET  /v1/matches/{id}``               the public view (a record without its streams;
                                          private fields null until the match ends)
- ``GET  /v1/matches/{id}/record``        the match record (public events only until the end)
- ``GET  /v1/matches/{id}/verification``  the verifier's report, once the seed is revealed,
                                          with the checks only the whole log can make
                                          (:data:`fairdeal.verifier.wholelog.PLATFORM_CHECKS`)
- ``GET  /v1/commitments/{commitment}``   every match that used a commitment
- ``GET  /v1/rounds/{chain}/{round}``     a drand round's fact and every match that named it
- ``GET  /v1/stats``                      the platform's rates: rounds missed, matches dealt
                                          without drand, aborts after a deck, missing seeds
- ``POST /v1/verify``                     the report on a record anyone uploads
- ``GET  /v1/decks``                      a deck from given inputs, as ``belot deck``
- ``GET  /v1/match-record-v1.schema.json`` the record format's JSON Schema
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.resources
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final

import orjson
from aiohttp import web
from prometheus_client import Counter, Histogram

from belot import RULESETS
from belot.cards import to_codes
from belot_platform.errors import ServiceError
from belot_platform.fields import FieldError, parse_hex, parse_int
from eventlog import EventStore
from fairdeal import (
    DRAND_VALUE_SIZE,
    MAX_DEAL,
    MAX_ROUND,
    MAX_SEATS,
    SEAT_SEED_SIZE,
    SERVER_SEED_SIZE,
    DeckInputs,
    Drand,
    RecipeError,
    Shuffler,
)
from fairdeal.chains import CHAINS
from fairdeal.receipts import receipt_from_json, verify_receipt
from fairdeal.record import ENDING_EVENTS, RecordError, is_match_id, public_view
from fairdeal.verifier import verify_record
from fairdeal.verifier.context import BlsCheck
from fairdeal.verifier.report import FAIL, SKIP, Check, Report
from fairdeal.verifier.wholelog import (
    PLATFORM_CHECKS,
    commitment_check,
    receipt_key_of,
    receipts_check,
    round_check,
)
from services.verify.analyses import Analyses
from services.verify.domain import FinishedMatch
from services.verify.http import json_response
from services.verify.matches import FINISHED_CACHE, LoadedMatch, if_none_match, load_match
from services.verify.openapi import OPENAPI
from services.verify.projection import Projection
from services.verify.store import DB_ERRORS

#: An uploaded record may be this large (a long match's record is a few hundred KB).
MAX_RECORD_BYTES: Final = 4 * 1024 * 1024
#: A receipt is a few hundred bytes (fairdeal.receipts).
MAX_RECEIPT_BYTES: Final = 4096
MAX_LIMIT: Final = 100
DEFAULT_LIMIT: Final = 20
MAX_POSITION: Final = 2**63 - 1
MAX_PLAYER: Final = 200
#: Verifications run in worker threads, this many at once (CPU-bound, ~20 ms each).
VERIFY_CONCURRENCY: Final = 2
REPORT_CACHE_SIZE: Final = 512
#: A report waits this long (tries x pause) for the projection to read up to its match.
CATCH_UP_TRIES: Final = 20
CATCH_UP_PAUSE: Final = 0.1
#: /v1/stats counts whole tables: it is computed at most this often.
STATS_SECONDS: Final = 10
#: The record's JSON Schema, as published in the fairdeal package.
RECORD_SCHEMA: Final = (
    importlib.resources.files("fairdeal").joinpath("schema/match-record-v1.json").read_bytes()
)

VERIFICATIONS = Counter(
    "belot_verify_verifications_total",
    "Verifications run, by source (a stored match or an upload) and result.",
    ["source", "result"],
)
FAILED_CHECKS = Counter(
    "belot_verify_failed_checks_total", "Checks failed in verifications, by check.", ["check"]
)
VERIFY_SECONDS = Histogram(
    "belot_verify_verification_seconds",
    "Time to verify one record (parse to report).",
    buckets=(0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2, 5),
)


class QueryError(ValueError):
    """A query that misses an input or pairs them wrongly (answered 400 ``bad_input``)."""


def _query_int(
    request: web.Request, name: str, default: int | None, low: int, high: int
) -> int | None:
    text = request.query.get(name)
    if text is None:
        return default
    if not text.isascii() or not text.isdigit() or len(text) > 19:
        raise ServiceError(f"bad_{name}", f"{name} must be a whole number {low}..{high}")
    value = int(text)
    if not low <= value <= high:
        raise ServiceError(f"bad_{name}", f"{name} must be a whole number {low}..{high}")
    return value


def _match_id(request: web.Request) -> str:
    match_id = request.match_info["match_id"]
    if not is_match_id(match_id):
        raise ServiceError("bad_match_id", "a match id is 1-180 letters, digits, '_', ':' or '-'")
    return match_id


def _finished_json(m: FinishedMatch) -> dict[str, Any]:
    base = f"/v1/matches/{m.match_id}"
    return {
        "match_id": m.match_id,
        "ruleset": m.ruleset,
        "players": m.players,
        "ended_by": m.ended_by,
        "winner": m.winner,
        "scores": m.scores,
        "ended_at": m.ended_at.isoformat().replace("+00:00", "Z"),
        "position": m.ended_position,
        "revealed": m.revealed,
        "dealt_with_drand": m.dealt_with_drand,
        "links": {"self": base, "record": f"{base}/record", "verification": f"{base}/verification"},
    }


def _unavailable(exc: BaseException) -> ServiceError:
    return ServiceError(
        "unavailable",
        f"the event log cannot be read now ({type(exc).__name__})",
        headers={"Retry-After": "5"},
    )


class Api:
    def __init__(self, bls: BlsCheck | None, *, max_record_bytes: int = MAX_RECORD_BYTES) -> None:
        self._store: EventStore | None = None
        self._projection: Projection | None = None
        self._analyses: Analyses | None = None
        self.bls = bls
        self.max_record_bytes = max_record_bytes
        self._verifying = asyncio.Semaphore(VERIFY_CONCURRENCY)
        self._reports: OrderedDict[str, Report] = OrderedDict()
        self._stats: tuple[float, dict[str, Any]] | None = None

    def attach(
        self, store: EventStore, projection: Projection, analyses: Analyses | None = None
    ) -> None:
        """``store``: the log as the API reads it, on the projection's read pool
        (``projection.reads``), so that :meth:`_reading` pins its reads too; ``analyses``:
        the analysis job's rows (services/verify/analyses.py)."""
        self._store, self._projection, self._analyses = store, projection, analyses

    @property
    def store(self) -> EventStore:
        if self._store is None:
            raise ServiceError("starting", "the service is starting", headers={"Retry-After": "1"})
        return self._store

    @property
    def projection(self) -> Projection:
        if self._projection is None:
            raise ServiceError("starting", "the service is starting", headers={"Retry-After": "1"})
        return self._projection

    # ------------------------------------------------------------------ helpers

    async def _db(self, call: Awaitable[Any]) -> Any:
        try:
            return await call
        except DB_ERRORS as exc:
            raise _unavailable(exc) from None

    @contextlib.asynccontextmanager
    async def _reading(self) -> AsyncIterator[None]:
        """The reads inside on one connection: on the replicas, one replica, so that each
        read sees at least what the one before it saw (services/verify/store/reads.py)."""
        try:
            async with self.projection.reads.pinned():
                yield
        except DB_ERRORS as exc:
            raise _unavailable(exc) from None

    async def _load(self, request: web.Request) -> LoadedMatch:
        match_id = _match_id(request)
        loaded: LoadedMatch | None = await self._db(load_match(self.store, match_id))
        if loaded is None:
            raise ServiceError("unknown_match", f"no match {match_id!r}")
        return loaded

    def _cached(
        self, request: web.Request, loaded: LoadedMatch, kind: str, body: Callable[[], bytes]
    ) -> web.Response:
        etag = loaded.etag(kind)
        headers = {"ETag": etag, "Cache-Control": loaded.cache_control}
        if if_none_match(request.headers.get("If-None-Match"), etag):
            return web.Response(status=304, headers=headers)
        return web.Response(body=body(), content_type="application/json", headers=headers)

    async def _verify(self, doc: Any, source: str) -> Report:
        async with self._verifying:
            started = time.perf_counter()
            report = await asyncio.to_thread(verify_record, doc, bls=self.bls)
            VERIFY_SECONDS.observe(time.perf_counter() - started)
        VERIFICATIONS.labels(source, "pass" if report.ok else "fail").inc()
        for check in report.checks:
            if check.status == FAIL:
                FAILED_CHECKS.labels(check.name).inc()
        return report

    # ------------------------------------------------------------------ routes

    async def list_matches(self, request: web.Request) -> web.Response:
        limit = _query_int(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        assert limit is not None
        before = _query_int(request, "before", None, 1, MAX_POSITION)
        ruleset = request.query.get("ruleset")
        if ruleset is not None and ruleset not in RULESETS:
            raise ServiceError(
                "bad_ruleset", f"ruleset must be one of {', '.join(sorted(RULESETS))}"
            )
        player = request.query.get("player")
        if player is not None and not (1 <= len(player) <= MAX_PLAYER and player.isprintable()):
            raise ServiceError("bad_player", f"player must be 1-{MAX_PLAYER} printable characters")
        ended_by = request.query.get("ended_by")
        if ended_by is not None and ended_by not in ENDING_EVENTS:
            raise ServiceError(
                "bad_ended_by", f"ended_by must be one of {', '.join(sorted(ENDING_EVENTS))}"
            )
        rows: list[FinishedMatch] = await self._db(
            self.projection.list(
                limit=limit, before=before, ruleset=ruleset, player=player, ended_by=ended_by
            )
        )
        following = str(rows[-1].ended_position) if len(rows) == limit else None
        return json_response(
            {"matches": [_finished_json(m) for m in rows], "next": following},
            headers={"Cache-Control": "no-cache"},
        )

    async def get_match(self, request: web.Request) -> web.Response:
        async with self._reading():
            loaded = await self._load(request)
        view = {
            **public_view(loaded.record),
            "links": {
                "record": f"/v1/matches/{loaded.match_id}/record",
                "verification": f"/v1/matches/{loaded.match_id}/verification",
            },
        }
        return self._cached(request, loaded, "view", lambda: orjson.dumps(view))

    async def get_record(self, request: web.Request) -> web.Response:
        async with self._reading():
            loaded = await self._load(request)
        return self._cached(request, loaded, "record", lambda: orjson.dumps(loaded.record))

    async def get_verification(self, request: web.Request) -> web.Response:
        # The reads on one connection (one replica): the record, then the cross-match
        # checks, which wait until that connection sees the projection up to the
        # record's last event (so it may be held up to CATCH_UP_TRIES x CATCH_UP_PAUSE),
        # then the rates. The verification itself (CPU, in a thread) holds none.
        async with self._reading():
            loaded = await self._load(request)
            if not loaded.ended:
                raise ServiceError(
                    "match_not_ended",
                    "a match is verified once it has ended: its cards and "
                    "the server seed are secret until then",
                )
            if not loaded.revealed:
                raise ServiceError(
                    "seed_not_revealed",
                    "the match has ended; its server seed is revealed moments later: try again",
                    headers={"Retry-After": "5"},
                )
            # The record's own checks are cached by its events; what the whole log says
            # of its commitment and round can change with other matches, so it is asked
            # each time and is part of the ETag.
            platform = await self._db(self._platform_checks(loaded.record))
            cross = hashlib.sha256(orjson.dumps([c.to_json() for c in platform])).hexdigest()[:16]
            etag = loaded.etag(f"verification|{cross}")
            headers = {"ETag": etag, "Cache-Control": loaded.cache_control}
            if if_none_match(request.headers.get("If-None-Match"), etag):
                return web.Response(status=304, headers=headers)
            # What the report cannot judge alone, it puts beside the platform's rates: an
            # abort after a deck, or a fallback, means more on a platform where they are
            # rare.
            rates = (await self._db(self.stats()))["all"]
        key = loaded.etag("verification")
        report = self._reports.get(key)
        if report is None:
            report = await self._verify(loaded.record, "match")
            self._reports[key] = report
            while len(self._reports) > REPORT_CACHE_SIZE:
                self._reports.popitem(last=False)
        else:
            self._reports.move_to_end(key)
        for check in platform:
            report = report.with_check(check)
        doc = report.to_json()
        doc["platform"] = {
            "fallback_rate": rates["matches"]["fallback_rate"],
            "abort_after_deck_rate": rates["matches"]["abort_after_deck_rate"],
            "abort_after_round_rate": rates["matches"]["abort_after_round_rate"],
            "missing_seed_rate": rates["seats"]["missing_seed_rate"],
            "rounds_missed_rate": rates["rounds"]["missed_rate"],
            "see": "/v1/stats",
        }
        body = orjson.dumps(doc)
        return web.Response(body=body, content_type="application/json", headers=headers)

    async def get_analysis(self, request: web.Request) -> web.Response:
        """The match analysed double-dummy (belot-analysis/1), as the analysis job stored
        it: 404 for no such match, 409 until it has ended and its seed is revealed, 409
        ``analysis_pending`` (Retry-After) until the job has been to it, 409
        ``not_verified`` for a record that does not verify."""
        async with self._reading():
            loaded = await self._load(request)
        if not loaded.ended:
            raise ServiceError(
                "match_not_ended", "a match is analysed once it has ended: its cards are secret"
            )
        if not loaded.revealed:
            raise ServiceError(
                "seed_not_revealed",
                "the match has ended; its server seed is revealed moments later: try again",
                headers={"Retry-After": "5"},
            )
        if self._analyses is None:
            raise ServiceError("starting", "the service is starting", headers={"Retry-After": "1"})
        row = await self._db(self._analyses.get(loaded.match_id))
        if row is None:
            raise ServiceError(
                "analysis_pending",
                "the match is being analysed (a deal takes about a second): try again",
                headers={"Retry-After": "5"},
            )
        if row["outcome"] != "analysed":
            raise ServiceError("not_verified", f"not analysed: {row['reason']}")
        tag = hashlib.sha256(("analysis|" + row["digest"]).encode()).hexdigest()[:40]
        etag = f'"{tag}"'
        headers = {"ETag": etag, "Cache-Control": FINISHED_CACHE}
        if if_none_match(request.headers.get("If-None-Match"), etag):
            return web.Response(status=304, headers=headers)
        return web.Response(
            body=orjson.dumps(row["analysis"]), content_type="application/json", headers=headers
        )

    async def stats(self) -> dict[str, Any]:
        """The platform's figures, computed at most every :data:`STATS_SECONDS`."""
        now = time.monotonic()
        if self._stats is None or now - self._stats[0] > STATS_SECONDS:
            self._stats = (now, await self.projection.facts.stats())
        return self._stats[1]

    async def get_receipts(self, request: web.Request) -> web.Response:
        """``GET /v1/matches/{match_id}/receipts``: the receipts the seats published for
        their seeds (fairdeal.receipts), each as its seat's page sent it."""
        loaded = await self._load(request)
        receipts = await self._db(self.projection.receipts(loaded.match_id))
        return json_response(
            {"match_id": loaded.match_id, "receipts": receipts},
            headers={"Cache-Control": "no-cache"},
        )

    async def post_receipt(self, request: web.Request) -> web.Response:
        """``POST /v1/matches/{match_id}/receipts``: a seat publishes the receipt the
        randomness service gave it for its seed, once the match has ended. Kept only if
        it is signed with the match's receipt key (the commitment's), so that nobody can
        publish a receipt the server did not give; 201, or 200 when it was kept already.
        The match's verification then holds the record to it (``seed_receipts``)."""
        loaded = await self._load(request)
        if not loaded.ended:
            raise ServiceError(
                "match_not_ended",
                "a receipt is published once the match has ended (its seed is hidden until "
                "the window closes, and the record is not final until the end)",
            )
        raw = await request.read()
        if len(raw) > MAX_RECEIPT_BYTES:
            raise ServiceError("too_large", f"a receipt may be at most {MAX_RECEIPT_BYTES} bytes")
        try:
            doc = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ServiceError("bad_json", f"the body is not JSON: {exc}") from None
        try:
            receipt = receipt_from_json(doc)
        except ValueError as exc:
            raise ServiceError("bad_receipt", str(exc)) from None
        if receipt.match_id != loaded.match_id:
            raise ServiceError("bad_receipt", f"this receipt is of match {receipt.match_id!r}")
        key = receipt_key_of(loaded.record)
        if key is None:
            raise ServiceError(
                "no_receipt_key",
                "this match's commitment records no receipt key (a match from before signed "
                "receipts): its receipts cannot be checked",
            )
        if not verify_receipt(key, receipt):
            raise ServiceError(
                "bad_receipt", "the receipt is not signed with this match's receipt key"
            )
        kept = receipt.to_json()
        stored = await self._db(
            self.projection.publish_receipt(loaded.match_id, receipt.seat, receipt.version, kept)
        )
        return json_response({"receipt": kept, "stored": stored}, status=201 if stored else 200)

    async def _platform_checks(self, record: dict[str, Any]) -> list[Check]:
        """:data:`~fairdeal.verifier.wholelog.PLATFORM_CHECKS` for a record, from the whole log:
        skipped, saying so, while the projection has not read the log up to the record's
        last event (it is waited for a moment first)."""
        fair = record.get("fair_deal") or {}
        last = max(
            (e["position"] for s in record["streams"].values() for e in s["events"]), default=0
        )
        for _ in range(CATCH_UP_TRIES):
            if await self.projection.caught_up(last):
                break
            await asyncio.sleep(CATCH_UP_PAUSE)
        else:
            why = (
                f"not checked yet: the verify service has not read the log up to position "
                f"{last}; ask again in a moment"
            )
            return [Check(name, SKIP, why) for name in PLATFORM_CHECKS]
        checks = []
        commitment = fair.get("commitment")
        if isinstance(commitment, str):
            users = await self.projection.facts.commitment_users(commitment)
            checks.append(commitment_check(record["match_id"], commitment, users))
        chain = (fair.get("chain") or {}).get("name")
        round_ = fair.get("drand_round")
        if isinstance(chain, str) and type(round_) is int:
            found = await self.projection.facts.round_matches(chain, round_)
            checks.append(round_check(record["match_id"], chain, round_, found.fact, found.matches))
        checks.append(receipts_check(record, await self.projection.receipts(record["match_id"])))
        return checks

    async def get_commitment(self, request: web.Request) -> web.Response:
        commitment = request.match_info["commitment"]
        if len(commitment) != 64 or not all(c in "0123456789abcdef" for c in commitment):
            raise ServiceError(
                "bad_commitment", "a commitment is 64 lower-case hex digits (SHA-256)"
            )
        users = await self._db(self.projection.facts.commitment_users(commitment))
        return json_response(
            {"commitment": commitment, "matches": users, "used_twice": len(users) > 1},
            headers={"Cache-Control": "no-cache"},
        )

    async def get_round(self, request: web.Request) -> web.Response:
        chain = request.match_info["chain"]
        if chain not in CHAINS:
            raise ServiceError("bad_chain", f"chain must be one of {', '.join(sorted(CHAINS))}")
        text = request.match_info["round"]
        if not (text.isascii() and text.isdigit() and 1 <= len(text) <= 19):
            raise ServiceError("bad_round", "a round is a whole number from 1")
        round_ = int(text)
        if not 1 <= round_ <= MAX_POSITION:
            raise ServiceError("bad_round", "a round is a whole number from 1")
        async with self._reading():  # the round's fact and its matches, from one replica
            found = await self._db(self.projection.facts.round_matches(chain, round_))
        came = found.fact == "DrandRoundBeacon"
        deviating = [m for m, d in found.matches if d is not None and d is not came]
        return json_response(
            {
                "chain": chain,
                "round": round_,
                "fact": found.fact,
                "matches": [{"match_id": m, "dealt_with_drand": d} for m, d in found.matches],
                "consistent": found.fact is not None and not deviating,
                "deviating": deviating,
            },
            headers={"Cache-Control": "no-cache"},
        )

    async def get_stats(self, request: web.Request) -> web.Response:
        async with self._reading():
            stats = await self._db(self.stats())
        return json_response(stats, headers={"Cache-Control": f"max-age={STATS_SECONDS}"})

    async def post_verify(self, request: web.Request) -> web.Response:
        limit = self.max_record_bytes
        too_large = ServiceError("too_large", f"a record may be at most {limit} bytes")
        if request.content_length is not None and request.content_length > limit:
            raise too_large
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = await request.content.read(64 * 1024)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
        body = b"".join(chunks)
        if not body.strip():
            raise ServiceError("empty_body", "send a match record (JSON) as the request body")
        try:
            doc = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise ServiceError("bad_json", f"the body is not JSON: {exc}") from None
        try:
            report = await self._verify(doc, "upload")
        except RecordError as exc:
            raise ServiceError("not_a_record", f"not a match record: {exc}") from None
        return json_response(report.to_json(), headers={"Cache-Control": "no-store"})

    async def get_deck(self, request: web.Request) -> web.Response:
        q = request.query
        try:
            seed_text = q.get("server_seed")
            if seed_text is None:
                raise QueryError("give server_seed (32 bytes in hex)")
            server_seed = parse_hex("server_seed", seed_text, (SERVER_SEED_SIZE,))
            seats = q.getall("seat_seed", [])
            if not seats:
                raise QueryError("give at least one seat_seed ('' for a seat that sent no seed)")
            if len(seats) > MAX_SEATS:
                raise QueryError(f"{len(seats)} seats: the recipe takes at most {MAX_SEATS}")
            seat_seeds = tuple(
                parse_hex(f"seat_seed #{n + 1}", s, (0, SEAT_SEED_SIZE))
                for n, s in enumerate(seats)
            )
            deal_text = q.get("deal")
            if deal_text is None:
                raise QueryError("give deal (the deal number from 0; redeals count)")
            k = parse_int("deal", deal_text, MAX_DEAL)
            round_text, value_text = q.get("drand_round"), q.get("drand_value")
            if (round_text is None) != (value_text is None):
                raise QueryError("drand_round and drand_value go together: give both or neither")
            drand = None
            if round_text is not None and value_text is not None:
                drand = Drand(
                    parse_int("drand_round", round_text, MAX_ROUND),
                    parse_hex("drand_value", value_text, (DRAND_VALUE_SIZE,)),
                )
            cards_text = q.get("cards", "32")
            if cards_text not in ("32", "24"):
                raise QueryError("cards must be 32 or 24")
            cards = int(cards_text)
            deck = Shuffler(DeckInputs(server_seed, seat_seeds, drand)).deck(k, cards)
        except (QueryError, FieldError, RecipeError) as exc:
            raise ServiceError("bad_input", str(exc)) from None
        return json_response(
            {
                "deck": to_codes(list(deck)),
                "deal": k,
                "cards": cards,
                "inputs": {
                    "server_seed": server_seed.hex(),
                    "seat_seeds": [s.hex() for s in seat_seeds],
                    "drand_round": drand.round if drand else 0,
                    "drand_value": (drand.value if drand else bytes(DRAND_VALUE_SIZE)).hex(),
                },
            },
            headers={"Cache-Control": "public, max-age=86400, immutable"},
        )

    async def record_schema(self, request: web.Request) -> web.Response:
        return web.Response(
            body=RECORD_SCHEMA,
            content_type="application/schema+json",
            headers={"Cache-Control": "public, max-age=3600"},
        )

    async def openapi(self, request: web.Request) -> web.Response:
        return json_response(OPENAPI, headers={"Cache-Control": "public, max-age=300"})

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/v1/matches", self.list_matches, allow_head=False),
            web.get("/v1/matches/{match_id}", self.get_match, allow_head=False),
            web.get("/v1/matches/{match_id}/record", self.get_record, allow_head=False),
            web.get("/v1/matches/{match_id}/verification", self.get_verification, allow_head=False),
            web.get("/v1/matches/{match_id}/receipts", self.get_receipts, allow_head=False),
            web.get("/v1/matches/{match_id}/analysis", self.get_analysis, allow_head=False),
            web.post("/v1/matches/{match_id}/receipts", self.post_receipt),
            web.post("/v1/verify", self.post_verify),
            web.get("/v1/decks", self.get_deck, allow_head=False),
            web.get("/v1/commitments/{commitment}", self.get_commitment, allow_head=False),
            web.get("/v1/rounds/{chain}/{round}", self.get_round, allow_head=False),
            web.get("/v1/stats", self.get_stats, allow_head=False),
            web.get("/v1/openapi.json", self.openapi, allow_head=False),
            web.get("/v1/match-record-v1.schema.json", self.record_schema, allow_head=False),
        ]
