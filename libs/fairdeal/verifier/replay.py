"""The play: every bid and card was legal, every derived event is the rules', the result
follows, and the way the match ended left the server no choice.

The record holds events, not commands; the replay reads each command back from the
first event it made (:func:`_command_at`: a deck, a bid, a card with or without
belote, a meld declaration, a swap, a redeal demand), asks the game core
(:func:`belot.match.decide`) what that command makes in the replayed state, and
requires exactly those events next. So a derived event (the cards dealt, a trick, a
deal's score, the match's end) cannot be written by the server: it is the rules', or
the check fails at the first one that is not.

``play``    the game core replays the match from ``MatchStarted``: each command legal,
            each event it produces exactly the next recorded one, the match over (or
            ended by the table) at the end. Leaves the replayed state, and the two
            endings when the recorded ``MatchEnded`` is not the rules', for ``score``.
``score``   the result follows from the replay: ``MatchEnded`` as the rules compute it,
            a forfeit to the leaver's opponents, an abort with no winner; the record's
            ``result`` says exactly that.
``ending``  how the match ended leaves no choice to the server (:func:`check_ending`).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import Any

from belot.cards import to_code
from belot.commands import (
    Bid,
    Command,
    DeclareMelds,
    DemandRedeal,
    PlayCard,
    SupplyDeck,
    SwapTrumpSeven,
)
from belot.errors import RulesError
from belot.events import (
    BeloteAnnounced,
    CardPlayed,
    ContractTaken,
    DeckSupplied,
    MatchEnded,
    MatchStarted,
    MeldDeclared,
    Passed,
    RedealDemanded,
    TrumpSevenSwapped,
)
from belot.match import Phase, decide, evolve, new_match
from belot.seats import side_of
from eventkit import streams
from fairdeal.fairness import DeckIssued, DrandRoundNamed, ServerSeedCommitted
from fairdeal.leave import verify_leave
from fairdeal.record import MATCH_FORFEITED, MatchItem, TableEnd
from fairdeal.verifier.context import Context, card_codes, where_of
from fairdeal.verifier.report import (
    FAIL,
    Check,
    Difference,
    diff_json,
    pass_check,
    skip_check,
    verdict,
)

# play -------------------------------------------------------------------------------------


def _event_text(e: MatchItem | Command) -> str:
    if isinstance(e, TableEnd):
        return e.type
    parts = []
    for f in dataclasses.fields(e):
        name = f.name
        value = getattr(e, name)
        if name in ("cards",) and isinstance(value, tuple):
            value = " ".join(card_codes(list(value)))
        elif name in ("card", "turned", "seven", "taken") and isinstance(value, int):
            value = to_code(value)
        elif isinstance(value, enum.Enum):
            value = str(value.name).lower()
        parts.append(f"{name}={value}")
    return f"{type(e).__name__}({', '.join(parts)})"


def _command_at(items: Sequence[MatchItem], i: int) -> Command | None:
    """The command whose events start at ``items[i]``, read back from its first event."""
    e = items[i]
    if isinstance(e, DeckSupplied):
        return SupplyDeck(e.deal_number, e.cards, e.salts)
    if isinstance(e, Passed):
        return Bid(e.seat, None)
    if isinstance(e, ContractTaken):
        return Bid(e.seat, e.strain)
    if isinstance(e, BeloteAnnounced):
        return PlayCard(e.seat, e.card, True)
    if isinstance(e, CardPlayed):
        return PlayCard(e.seat, e.card)
    if isinstance(e, MeldDeclared):
        return DeclareMelds(e.seat)
    if isinstance(e, TrumpSevenSwapped):
        return SwapTrumpSeven(e.seat)
    if isinstance(e, RedealDemanded):
        return DemandRedeal(e.seat)
    return None


def check_play(ctx: Context) -> Check:
    items, envs = ctx.items, ctx.envs
    if ctx.ruleset is None or not items or not isinstance(items[0], MatchStarted):
        return skip_check("play", "the match stream does not start with a known ruleset")
    if ctx.decoded.problems and any(
        s.startswith(streams.MATCH) for s, _, _ in ctx.decoded.problems
    ):
        return Check("play", FAIL, "some match events do not decode (see events)")
    started = items[0]
    try:
        state = new_match(
            ctx.ruleset,
            started.match_id,
            target=started.target,
            first_dealer=started.first_dealer,
        )
    except (RulesError, ValueError) as exc:
        return Check("play", FAIL, f"MatchStarted cannot start a match: {exc}")
    i, commands = 1, 0
    while i < len(items):
        e = items[i]
        if isinstance(e, TableEnd):
            if i != len(items) - 1:
                return Check("play", FAIL, f"{where_of(envs[i])}: {e.type} is not the last event")
            break
        command = _command_at(items, i)
        if command is None:
            return Check(
                "play",
                FAIL,
                f"{where_of(envs[i])}: {_event_text(e)} does not follow from any command here",
                (
                    Difference(
                        where_of(envs[i]),
                        "an event the rules do not produce at this point",
                        _event_text(e),
                    ),
                ),
            )
        try:
            expected = decide(state, command)
        except RulesError as exc:
            return Check(
                "play",
                FAIL,
                f"{where_of(envs[i])}: illegal: {_event_text(command)}: {exc.message}",
                (
                    Difference(
                        where_of(envs[i]), f"{exc.code}: {exc.message}", _event_text(command)
                    ),
                ),
            )
        if not expected:  # every command makes at least one event; never loop on none
            return Check("play", FAIL, f"{where_of(envs[i])}: a command without events")
        recorded = items[i : i + len(expected)]
        for j, want in enumerate(expected):
            got = recorded[j] if j < len(recorded) else None
            if got != want:
                if isinstance(got, MatchEnded) and isinstance(want, MatchEnded):
                    ctx.wrong_end = (got, want)
                where = where_of(envs[i + j]) if i + j < len(envs) else "end of the match stream"
                return Check(
                    "play",
                    FAIL,
                    f"{where}: the rules give {_event_text(want)} after {_event_text(command)}",
                    (
                        Difference(
                            where,
                            "not what the rules give",
                            None if got is None else _event_text(got),
                            _event_text(want),
                        ),
                    ),
                )
            state = evolve(state, want)
        i += len(expected)
        commands += 1
    ending = items[-1]
    if state.phase is not Phase.OVER and not isinstance(ending, TableEnd):
        return Check("play", FAIL, "the replay ends with the match unfinished")
    ctx.final = state
    return pass_check(
        "play",
        f"replayed {commands} commands (decks, bids, cards and announcements) with the "
        f"{ctx.ruleset.name} rules: each was legal and every derived event is the rules'",
    )


# score ------------------------------------------------------------------------------------


def check_score(ctx: Context) -> Check:
    state = ctx.final
    if ctx.wrong_end is not None:
        got, want_end = ctx.wrong_end
        return Check(
            "score",
            FAIL,
            f"the match ended {got.scores[0]} to {got.scores[1]} (winner {got.winner}) but "
            f"the rules give {want_end.scores[0]} to {want_end.scores[1]} (winner "
            f"{want_end.winner})",
            (
                Difference(
                    "MatchEnded",
                    "not the result the replay computes",
                    {"winner": got.winner, "scores": list(got.scores)},
                    {"winner": want_end.winner, "scores": list(want_end.scores)},
                ),
            ),
        )
    if state is None or ctx.ruleset is None:
        return skip_check("score", "the replay did not get through (see play)")
    result = ctx.record.summary.get("result")
    ending = ctx.items[-1]
    problems: list[Difference] = []
    if isinstance(ending, MatchEnded):
        assert state.result is not None
        want: dict[str, Any] = {
            "ended_by": MatchEnded.TYPE,
            "winner": state.result.winner,
            "scores": list(state.result.scores),
            "leaver": None,
            "reason": None,
            "by": None,
        }
        text = (
            f"the match ended {state.result.scores[0]} to {state.result.scores[1]}, "
            + ("a draw" if state.result.winner is None else f"won by side {state.result.winner}")
            + ", as the replay computes"
        )
    elif isinstance(ending, TableEnd) and ending.type == MATCH_FORFEITED:
        leaver = ending.leaver if ending.leaver is not None else -1
        n = ctx.ruleset.players
        if not 0 <= leaver < n:
            problems.append(Difference("MatchForfeited.leaver", "no such seat", leaver))
            winner = None
        else:
            winner = 1 - side_of(leaver)
        if ending.winner_side != winner:
            problems.append(
                Difference(
                    "MatchForfeited.winner_side",
                    "a forfeit goes to the leaver's opponents",
                    ending.winner_side,
                    winner,
                )
            )
        want = {
            "ended_by": MATCH_FORFEITED,
            "winner": winner,
            "scores": list(state.scores),
            "leaver": ending.leaver,
            "reason": None,
            "by": None,
        }
        text = (
            f"seat {leaver} left; the match goes to side {winner} (scores then "
            f"{state.scores[0]} to {state.scores[1]})"
        )
    elif isinstance(ending, TableEnd):
        want = {
            "ended_by": ending.type,
            "winner": None,
            "scores": list(state.scores),
            "leaver": None,
            "reason": ending.reason,
            "by": ending.by,
        }
        text = (
            f"aborted ({ending.reason}) with the scores at {state.scores[0]} to "
            f"{state.scores[1]}: no winner"
        )
    else:
        return Check("score", FAIL, "no event ends the match")
    diff_json("result", result, want, problems)
    return verdict("score", problems, text, "the result does not follow from the play")


# ending -----------------------------------------------------------------------------------


def check_ending(ctx: Context) -> Check:
    """An abort once the cards could be known is a match thrown away by someone who could
    know them: the record cannot show the abort was not chosen, so it does not verify.
    The cards could be known from the moment the round was named: its value is public at
    its due time, a few seconds later, and the server can then compute every deck. The
    record's times are the server's, so "before the value" is judged by the log's order,
    which the transparency log's witnesses hold: an abort written after the naming
    fails, whether or not a deck went out. Who asked and why are shown, and the verify
    API publishes the platform's abort rate (``abort_after_round_rate``)."""
    ends = [(env, e) for env, e in ctx.decoded.match if isinstance(e, MatchEnded | TableEnd)]
    if not ends:
        return Check("ending", FAIL, "no event ends the match")
    end_env, end = ends[-1]
    if isinstance(end, MatchEnded):
        return pass_check("ending", "the match was played to its end")
    if end.type == MATCH_FORFEITED:
        return _forfeit(ctx, end)
    issued = sorted(e.deal for e in ctx.all(DeckIssued))
    who = end.by if end.by else "nobody named"
    if end.by is None:
        return Check("ending", FAIL, "aborted, and the record does not say who asked")
    named = next(
        ((env, e) for env, e in ctx.decoded.fairness if isinstance(e, DrandRoundNamed)), None
    )
    if issued:
        return Check(
            "ending",
            FAIL,
            f"aborted by {who} ({end.reason}) after {len(issued)} deck(s) went out (deals "
            f"{', '.join(str(k) for k in issued)}): whoever could see those cards could "
            "throw the match away and deal another, so this record cannot show the abort "
            "was not chosen (the verify API's /v1/stats gives the platform's abort rate)",
            (Difference("MatchAborted", "an abort after a deck went out", who, None),),
        )
    if named is not None and named[0].position < end_env.position:
        round_ = named[1].round
        return Check(
            "ending",
            FAIL,
            f"aborted by {who} ({end.reason}) after round {round_} was named (log "
            f"position {named[0].position}, the abort at {end_env.position}): the round's "
            "value is public at its due time, and from it the server computes every deck, "
            "so an abort written after the naming could have followed the cards (the "
            "verify API's /v1/stats gives the platform's abort_after_round_rate)",
            (
                Difference(
                    where_of(end_env),
                    "an abort after the round was named",
                    end_env.position,
                    f"< {named[0].position}",
                ),
            ),
        )
    return pass_check(
        "ending",
        f"aborted by {who} ({end.reason}) before the round was named: no card could be known",
    )


def _forfeit(ctx: Context, end: TableEnd) -> Check:
    """A forfeit is the seat's own choice only if the seat asked: its signature over its
    leave (:mod:`fairdeal.leave`) with the key the commitment recorded for it, before any
    seed or card. A commitment that promised signed leaves holds every forfeit to it: an
    unsigned forfeit of a seat with a key, or a wrong signature, fails; so does a forfeit
    of a seat that had no key (a bot never leaves, and for a human without a key nothing
    shows that it asked). A commitment from before keys promised nothing: its forfeits
    cannot be checked, which the report says (a skip is not a pass)."""
    commit = ctx.one(ServerSeedCommitted)
    leaver = end.leaver if end.leaver is not None else -1
    who = f"seat {leaver}"
    if commit is None:
        return Check("ending", FAIL, "a forfeit, and no commitment to hold it to")
    if not commit.signed_leaves:
        return skip_check(
            "ending",
            f"{who} left the match and lost it; the commitment is from before seats signed "
            "their leave, so nothing shows the seat asked",
        )
    seat = next((s for s in commit.seats if s.seat == leaver), None)
    if seat is None or not seat.key:
        what = "a bot" if seat is not None and not seat.is_human else "a seat without a key"
        return Check(
            "ending",
            FAIL,
            f"{who} ({what}) was recorded as leaving, and its side lost: the commitment "
            "recorded no key for it, so nothing shows the seat asked",
            (Difference("MatchForfeited.signature", "the seat's signed leave", None, None),),
        )
    if not end.signature:
        return Check(
            "ending",
            FAIL,
            f"{who} was recorded as leaving, and its side lost, without the seat's signature: "
            "whoever wrote the forfeit could end the match once the cards were known",
            (Difference("MatchForfeited.signature", "the seat's signed leave", "", None),),
        )
    if not verify_leave(seat.key, ctx.record.match_id, leaver, end.signature):
        return Check(
            "ending",
            FAIL,
            f"{who} was recorded as leaving, but the signature is not its key's over its "
            "leave of this match (the key the commitment recorded before any card)",
            (
                Difference(
                    "MatchForfeited.signature",
                    "the seat's signature over its leave",
                    end.signature.hex(),
                    None,
                ),
            ),
        )
    return pass_check(
        "ending",
        f"{who} left the match and lost it: its own signed request, with the key the "
        "commitment recorded for it",
    )
