"""A seat's view as JSON, both ways: what the gateway sends a player, and what a client
(or a test's client-side bot) rebuilds a :class:`belot.SeatView` from; and the one
producer of what a watcher is served about a table (:func:`table_reply`): the table
worker's answer to ``GET /v1/tables/{id}``, its pushes after each append, and the
gateway's answer from the log for a table nobody owns are all made here.

Only :func:`belot.view`'s output goes out: the seat's own hand, the public history and its
legal moves. Nested values use the game codec's JSON forms (cards as codes, strains as
names, melds and claims as :mod:`belot.codec` writes them in events).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from belot import RULESETS, Command, Match, SeatView, Strain, view
from belot.cards import parse_card, to_code
from belot.codec import command_from_payload, command_to_payload, from_payload, to_payload
from belot.events import MeldDeclared, MeldsShown
from belot.melds import Meld, MeldClaim
from belot.play import Trick


def _strain(s: Strain | None) -> str | None:
    return None if s is None else s.name.lower()


def _strain_in(v: str | None) -> Strain | None:
    return None if v is None else Strain[v.upper()]


def _melds_out(seat: int, melds: tuple[Meld, ...]) -> list[Any]:
    out: list[Any] = to_payload(MeldsShown(seat, melds))["melds"]
    return out


def _melds_in(seat: int, v: list[Any]) -> tuple[Meld, ...]:
    event = from_payload({"type": "MeldsShown", "schema": 1, "seat": seat, "melds": v})
    assert isinstance(event, MeldsShown)
    return event.melds


def _claim_out(seat: int, claim: MeldClaim) -> Any:
    return to_payload(MeldDeclared(seat, claim))["claim"]


def _claim_in(seat: int, v: Any) -> MeldClaim:
    event = from_payload({"type": "MeldDeclared", "schema": 1, "seat": seat, "claim": v})
    assert isinstance(event, MeldDeclared)
    return event.claim


def command_json(command: Command) -> dict[str, Any]:
    return command_to_payload(command)


def view_to_json(v: SeatView) -> dict[str, Any]:
    """The JSON form of a seat's view."""
    return {
        "ruleset": v.ruleset.name,
        "seat": v.seat,
        "target": v.target,
        "scores": list(v.scores),
        "hanging": v.hanging,
        "phase": v.phase,
        "deal_number": v.deal_number,
        "dealer": v.dealer,
        "hand": [to_code(c) for c in v.hand],
        "turned": None if v.turned is None else to_code(v.turned),
        "calls": [[s, _strain(x)] for s, x in v.calls],
        "strain": _strain(v.strain),
        "taker": v.taker,
        "trick": [[s, to_code(c)] for s, c in v.trick],
        "tricks": [
            {
                "leader": t.leader,
                "cards": [to_code(c) for c in t.cards],
                "winner": t.winner,
                "points": t.points,
            }
            for t in v.tricks
        ],
        "hand_sizes": list(v.hand_sizes),
        "belote_calls": [[s, to_code(c)] for s, c in v.belote_calls],
        "meld_claims": [[s, _claim_out(s, c)] for s, c in v.meld_claims],
        "melds_shown": [[s, _melds_out(s, m)] for s, m in v.melds_shown],
        "swap": None if v.swap is None else [v.swap[0], to_code(v.swap[1]), to_code(v.swap[2])],
        "bottom": None if v.bottom is None else to_code(v.bottom),
        "turn": v.turn,
        "legal": [command_to_payload(m) for m in v.legal],
    }


def view_from_json(d: Mapping[str, Any]) -> SeatView:
    """Rebuild a :class:`SeatView` from :func:`view_to_json`'s output (clients, tests).
    Raises KeyError, ValueError or :class:`belot.codec.CodecError` on a malformed one."""
    ruleset = dataclasses.replace(RULESETS[d["ruleset"]])
    swap = d["swap"]
    return SeatView(
        ruleset=ruleset,
        seat=d["seat"],
        target=d["target"],
        scores=(d["scores"][0], d["scores"][1]),
        hanging=d["hanging"],
        phase=d["phase"],
        deal_number=d["deal_number"],
        dealer=d["dealer"],
        hand=tuple(parse_card(c) for c in d["hand"]),
        turned=None if d["turned"] is None else parse_card(d["turned"]),
        calls=tuple((s, _strain_in(x)) for s, x in d["calls"]),
        strain=_strain_in(d["strain"]),
        taker=d["taker"],
        trick=tuple((s, parse_card(c)) for s, c in d["trick"]),
        tricks=tuple(
            Trick(t["leader"], tuple(parse_card(c) for c in t["cards"]), t["winner"], t["points"])
            for t in d["tricks"]
        ),
        hand_sizes=tuple(d["hand_sizes"]),
        belote_calls=tuple((s, parse_card(c)) for s, c in d["belote_calls"]),
        meld_claims=tuple((s, _claim_in(s, c)) for s, c in d["meld_claims"]),
        melds_shown=tuple((s, _melds_in(s, m)) for s, m in d["melds_shown"]),
        swap=None if swap is None else (swap[0], parse_card(swap[1]), parse_card(swap[2])),
        bottom=None if d["bottom"] is None else parse_card(d["bottom"]),
        turn=d["turn"],
        legal=tuple(command_from_payload(m) for m in d["legal"]),
    )


def public_view(v: SeatView) -> dict[str, Any]:
    """A spectator's view: a seat's view without its hand and moves."""
    out = view_to_json(dataclasses.replace(v, hand=(), legal=()))
    out["seat"] = None
    return out


def seat_to_move(v: Mapping[str, Any] | None) -> bool:
    """Does a seat's view (its JSON, as pushed) say the seat is to move and has moves to
    make? (What a client-side bot waits for: tests, benches.)"""
    return v is not None and v.get("turn") == v.get("seat") and bool(v.get("legal"))


def watcher_view(match: Match, seat: int | None) -> dict[str, Any]:
    """What a watcher sees of ``match``: the seat's own view (its hand, its legal moves),
    or a spectator's (``seat`` None: no hand, no moves)."""
    if seat is not None:
        return view_to_json(view(match, seat))
    return public_view(view(match, 0))


def table_reply(
    summary: Mapping[str, Any],
    match: Match | None,
    seat: int | None,
    *,
    status: str,
    table_version: int,
    match_version: int,
    ending: Mapping[str, Any] | None,
    deadline_ms: int | None,
    server_seed: str | None,
    presence: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    """What a watcher at ``seat`` (None: not seated) is served about a table: its lobby
    line, the watcher's seat and view of the match, the versions it stands at (``version``,
    the sum of the table's and the match's stream versions, grows with every append to
    either: a watcher keeps the highest it was served), the ending, the turn's deadline,
    the revealed server seed and the seats' presence lines."""
    return {
        "table": dict(summary),
        "seat": seat,
        "version": table_version + match_version,
        "match_version": match_version,
        "table_version": table_version,
        "status": status,
        "ending": None if ending is None else dict(ending),
        "deadline_ms": deadline_ms,
        "view": None if match is None else watcher_view(match, seat),
        "server_seed": server_seed,
        "presence": presence,
    }
