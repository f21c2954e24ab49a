"""An operator's worst week (tests/chaos/scenario.py), judged: once PostgreSQL has been
shut down and killed, and nats-server stopped and killed, during play, the platform is
whole again without anyone touching it. Each test names what was lost, where.

docs/chaos.md says what each test protects and how to run the suite alone.
"""

from __future__ import annotations

import pytest

from tests.chaos.checks import (
    feed_losses,
    foreign_losses,
    readiness_losses,
    relay_losses,
)
from tests.chaos.records import Window
from tests.chaos.scenario import Week, foreign_sequences

pytestmark = [pytest.mark.chaos, pytest.mark.asyncio(loop_scope="session")]

#: How many lines of the services' own errors a failure shows.
LOG_LINES = 25


def report(week: Week, problems: list[str], what: str) -> str:
    """A failure's message: the losses, then the run's timeline and the services'
    errors (what the platform said while it lost them)."""
    shown = "\n  ".join(problems[:60])
    more = f"\n  ... and {len(problems) - 60} more" if len(problems) > 60 else ""
    logs = "\n  ".join(week.log_problems[:LOG_LINES]) or "(none)"
    restarts = ", ".join(f"{k} exited {v}" for k, v in week.restarts.items()) or "none"
    return (
        f"{what}: {len(problems)} problem(s)\n  {shown}{more}\n"
        f"timeline:\n  " + "\n  ".join(week.timeline) + "\n"
        f"service restarts: {restarts}\n"
        f"errors in the services' logs ({len(week.log_problems)}):\n  {logs}"
    )


async def test_every_match_finishes(week: Week) -> None:
    """Every table closes within the bound with its match ended, and no outage left
    a match stuck, aborted or forfeited."""
    problems = []
    for t in week.tables:
        table = [e.type for e in week.recorded.get(f"table-{t.table_id}", [])]
        match = [e.type for e in week.recorded.get(f"match-{t.match_id}", [])]
        fair = [e.type for e in week.recorded.get(f"randomness-{t.match_id}", [])]
        if "TableClosed" not in table or not match or match[-1] != "MatchEnded":
            problems.append(
                f"table {t.table_id} (wave {t.wave}, {t.spec.ruleset}, "
                f"{'players' if t.players else 'bots'}): table stream ends {table[-3:]}, "
                f"match stream ({len(match)} events) ends {match[-3:]}, randomness "
                f"stream ends {fair[-3:]}"
            )
    assert not problems, report(week, problems, "matches that did not finish")
    assert week.finished_in is not None


async def test_every_socket_got_every_public_event(week: Week) -> None:
    """Every WebSocket (players' and spectators') received every public event of the
    streams of each table it watched, once each and in order, as the log holds them."""
    problems = []
    for w in week.watchers:
        if not w.feeds:
            problems.append(f"socket of {w.account.name}: never connected")
        for feed in w.feeds:
            problems += feed_losses(feed, week.matches, week.expected, week.recorded)
        problems += [f"{w.account.name}: move refused: {m}" for m in w.refused_moves]
    assert not problems, report(week, problems, "events the sockets lost")


async def test_every_match_verifies(week: Week) -> None:
    """The verify API's report of each match passes every check."""
    problems = []
    for t in week.tables:
        reply = week.verifications.get(t.match_id)
        if reply is None or reply.status != 200 or not isinstance(reply.body, dict):
            problems.append(f"match {t.match_id} (table {t.table_id}): {reply}")
        elif reply.body.get("ok") is not True:
            failed = [
                f"{c['name']}: {c['status']} {c['detail'][:160]}"
                for c in reply.body.get("checks", [])
                if c.get("status") != "pass"
            ]
            problems.append(f"match {t.match_id} (table {t.table_id}) fails: {failed}")
    assert not problems, report(week, problems, "matches that do not verify")


async def test_the_relay_published_exactly_the_log(week: Week) -> None:
    """The relay's messages in the JetStream stream carry positions 1..head, each once,
    in order, each the log's event at that position."""
    problems = relay_losses(week.messages, week.by_position, week.head)
    if not week.relay_caught_up:
        problems.append(f"the relay had not reached the log's head {week.head} within the bound")
    assert not problems, report(week, problems, "positions the relay lost")


async def test_foreign_publishes_leave_no_hole(week: Week) -> None:
    """Messages others published on the events subject neither hide a position nor
    stop the relay: the relay's positions go on by one across each of them."""
    foreign = foreign_sequences(week.messages)
    problems = foreign_losses(week.messages, foreign)
    if len(foreign) != week.foreign_sent:
        problems.append(
            f"harness: {week.foreign_sent} foreign messages sent, {len(foreign)} in the stream"
        )
    assert not problems, report(week, problems, "holes around foreign messages")


async def test_bad_fields_get_400_and_append_nothing(week: Week) -> None:
    """A NUL or an oversized field, in play and during each outage, gets a JSON 400
    naming the field, and nothing of it reaches the log; the lobby answers after each
    batch and lists no table the log does not hold."""
    problems = []
    for bad in week.bad:
        r = bad.reply
        named = isinstance(r.body, dict) and bad.field in str(r.body.get("message", ""))
        if r.status != 400 or not isinstance(r.body, dict) or "error" not in r.body or not named:
            problems.append(f"{bad.what} ({bad.when}): {r}, wanted 400 naming {bad.field!r}")
    problems += [
        f"the log holds what a bad request sent: position {p}, {stream} {kind}"
        for p, stream, kind in week.marked
    ]
    for when, reply, phantoms in week.lobbies:
        if reply.status != 200:
            problems.append(f"the lobby {when}: {reply}")
        if phantoms:
            problems.append(f"the lobby {when} lists tables the log does not hold: {phantoms}")
    whens = {b.when for b in week.bad}
    if len(whens) < 1 + len(week.outages):
        problems.append(f"harness: bad requests sent only {sorted(whens)}")
    assert not problems, report(week, problems, "bad fields let through")


async def test_readyz_tells_the_truth_about_the_relay(week: Week) -> None:
    """The relay service's /readyz is not ready while the relay cannot run (NATS or
    PostgreSQL away), never ready while the relay is stuck, and ready again after."""
    away = [Window(o.name, o.down_at, o.up_at) for o in week.outages]
    problems = readiness_losses(week.samples, away, week.recovered_at)
    assert {o.server for o in week.outages} == {"nats", "postgres"}, "harness: outages"
    assert not problems, report(week, problems, "/readyz answers that hid the relay's state")


async def test_outages_answer_503_with_retry_after(week: Week) -> None:
    """Whatever the players and the suite asked the gateway and the verify API during
    the week, an outage was answered 503 with Retry-After, never 500 or a bare 503."""
    problems = list(week.odd_answers)
    assert not problems, report(week, problems, "answers that no outage excuses")
