"""The tournament service's NATS request/reply API: ``<prefix>.tournament.<verb>``
(queue group ``tournament``), JSON in and out, errors ``{"error": code, "message":
text}``. The gateway is its one client: it checks the caller's token and sends
``actor: {player, admin}`` with every request (module ``services.gateway.tournaments``).

| verb | request (besides ``actor``) | reply |
| --- | --- | --- |
| ``create`` | the tournament's fields (docs/tournaments.md) | the tournament |
| ``list`` | ``{status?, limit?}`` | ``{tournaments: [...]}`` |
| ``get`` | ``{tournament_id}`` | the tournament, rounds and tables |
| ``edit`` | ``{tournament_id, ...fields}`` | the tournament |
| ``cancel`` / ``terminate`` | ``{tournament_id, reason?}`` | the tournament |
| ``enter`` | ``{tournament_id, password? | bot | player}`` | ``{entrant, tournament}`` |
| ``withdraw`` | ``{tournament_id, entrant?}`` | the tournament |
| ``seeding`` | ``{tournament_id, mode, order?}`` | the tournament |
| ``forbid`` | ``{tournament_id, pairs}`` | the tournament |
| ``start`` / ``next_round`` / ``pause`` / ``resume`` | ``{tournament_id}`` | the tournament |
| ``correct`` | ``{tournament_id, round, match, game?, a, b, a_points?, b_points?,`` |
| | ``reason}`` | the tournament |
| ``draw`` | ``{tournament_id}`` | the draw document: its core events |
| ``standings`` | ``{tournament_id}`` | the live table |
| ``export`` | ``{tournament_id, format: json | ndjson | csv}`` | |
| | | ``{content_type, filename, body}`` |

Every command takes a ``command_id``: a retry with the same one changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from belot_platform import fields
from belot_platform.messaging import BAD_REQUEST, ServiceError
from services.tournament import domain
from services.tournament.domain import Loaded, Refused
from services.tournament.engine import Engine
from tournament import export
from tournament.standings import TIE_BREAKS

QUEUE: Final = "tournament"
#: A tournament id's most characters (domain.ID_RE's bound).
MAX_ID: Final = 64
EXPORTS: Final = {
    "json": ("application/json", export.to_json),
    "ndjson": ("application/x-ndjson", export.to_ndjson),
    "csv": ("text/csv; charset=utf-8", export.to_csv),
}

Handler = Callable[[Any], Awaitable[Any]]


def _body(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ServiceError(BAD_REQUEST, "the request must be a JSON object")
    return body


def _tid(body: Mapping[str, Any]) -> str:
    # Bad input (400) if it cannot be an id at all; unknown (404) if it could be one.
    tid = fields.text("tournament_id", body.get("tournament_id"), MAX_ID)
    if domain.ID_RE.fullmatch(tid) is None:
        raise Refused("unknown_tournament", f"no tournament {tid!r}")
    return tid


def standings_json(engine_result: tuple[Loaded, list[Any], dict[str, float]]) -> dict[str, Any]:
    loaded, table, ratings = engine_result
    state = loaded.state
    seats = domain.current_tables(loaded)
    rows = export.rows(table)
    for row in rows:
        row["tables"] = [seats[p] for p in row["players"] if p in seats]
    return {
        "tournament_id": state.id,
        "name": loaded.config.name,
        "format": state.settings.format.value,
        "status": loaded.status,
        "round": len(state.rounds),
        "points": {
            "win": state.settings.points.win,
            "draw": state.settings.points.draw,
            "loss": state.settings.points.loss,
        },
        "columns": [
            {"column": column, "how": how} for column, how in TIE_BREAKS[state.settings.format]
        ],
        "ratings": {p: ratings.get(p, 1500.0) for r in rows for p in r["players"]},
        "rows": rows,
        "finished": None if state.finished is None else state.finished.reason,
    }


class Handlers:
    def __init__(self, engine: Engine, prefix: str) -> None:
        self.engine = engine
        self.prefix = prefix

    def routes(self) -> dict[str, Handler]:
        e = self.engine.commands

        def command(fn: Callable[[str, dict[str, Any]], Awaitable[Loaded]]) -> Handler:
            async def handle(body: Any) -> Any:
                b = _body(body)
                return domain.tournament_json(await fn(_tid(b), b))

            return handle

        async def resume(tid: str, body: dict[str, Any]) -> Loaded:
            return await e.pause(tid, body, paused=False)

        table: dict[str, Handler] = {
            "create": self.create,
            "list": self.list,
            "get": self.get,
            "edit": command(e.edit),
            "cancel": command(e.cancel),
            "terminate": command(e.terminate),
            "enter": self.enter,
            "withdraw": command(e.withdraw),
            "seeding": command(e.seeding),
            "forbid": command(e.forbid),
            "start": command(e.start),
            "next_round": command(e.next_round),
            "pause": command(e.pause),
            "resume": command(resume),
            "correct": command(e.correct),
            "draw": self.draw,
            "standings": self.standings,
            "export": self.export,
        }
        # A Refused is a ServiceError: messaging.serve answers it as {"error", "message"}.
        return {f"{self.prefix}.tournament.{verb}": h for verb, h in table.items()}

    async def create(self, body: Any) -> Any:
        return domain.tournament_json(await self.engine.commands.create(_body(body)))

    async def list(self, body: Any) -> Any:
        b = _body(body or {})
        status = b.get("status")
        if status is not None and status not in (
            "registering", "running", "paused", "finished", "cancelled"
        ):  # fmt: skip
            raise domain.bad("status is registering, running, paused, finished or cancelled")
        limit = b.get("limit", 100)
        if type(limit) is not int or not 1 <= limit <= 1000:
            raise domain.bad("limit is a whole number from 1 to 1000")
        rows = await self.engine.store.list_rows(status, limit)
        # A finished tournament's winner, from its state (the list's rows do not hold it).
        winners = {
            r.id: domain.winner_json(await self.engine.get(r.id))
            for r in rows
            if r.status == "finished"
        }
        return {
            "tournaments": [
                {
                    "tournament_id": r.id,
                    "name": r.name,
                    "format": r.format,
                    "status": r.status,
                    "creator": r.creator,
                    "created_at_ms": r.created_at_ms,
                    "winner": winners.get(r.id),
                }
                for r in rows
            ]
        }

    async def get(self, body: Any) -> Any:
        return domain.tournament_json(await self.engine.get(_tid(_body(body))))

    async def enter(self, body: Any) -> Any:
        b = _body(body)
        loaded, entrant = await self.engine.commands.enter(_tid(b), b)
        return {"entrant": entrant, "tournament": domain.tournament_json(loaded)}

    async def draw(self, body: Any) -> Any:
        return await self.engine.draw_document(_tid(_body(body)))

    async def standings(self, body: Any) -> Any:
        return standings_json(await self.engine.standings(_tid(_body(body))))

    async def export(self, body: Any) -> Any:
        b = _body(body)
        fmt = b.get("format", "json")
        if not isinstance(fmt, str) or fmt not in EXPORTS:
            raise domain.bad("format is json, ndjson or csv")
        loaded, table, _ = await self.engine.standings(_tid(b))
        content_type, render = EXPORTS[fmt]
        return {
            "content_type": content_type,
            "filename": f"tournament-{loaded.id}-standings.{fmt}",
            "body": render(table),
        }
