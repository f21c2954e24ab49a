"""What the chaos run is judged by, as pure functions of what it recorded: each returns
the list of what went wrong, one line per loss, naming the socket, the stream, the
versions or positions (an empty list: nothing was lost).

Kept apart from the run so that they are unit-tested on small made-up records
(tests/unit/test_chaos_checks.py): a check that cannot fail protects nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Final

from tests.chaos.records import (
    POSITION_HEADER,
    PUBLIC,
    RELAY_HEADER,
    Feed,
    Logged,
    Message,
    Sample,
    Window,
)

#: How many versions or positions a line lists before it only counts the rest.
SHOWN: Final = 12


def ranges(numbers: Iterable[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` -> ``"1-3, 7, 9-10"``, cut after :data:`SHOWN` runs."""
    runs: list[tuple[int, int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    text = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:SHOWN]]
    if len(runs) > SHOWN:
        text.append(f"... ({len(runs) - SHOWN} more runs)")
    return ", ".join(text)


def _types(events: Iterable[Logged]) -> str:
    counts = Counter(e.type for e in events)
    return ", ".join(f"{t} x{n}" for t, n in counts.most_common(6))


def streams_of(table_id: str, match_id: str) -> tuple[str, ...]:
    """The streams a watcher of a table is sent (services/gateway/live.py: Hub.watch)."""
    return (f"table-{table_id}", f"match-{match_id}", f"randomness-{match_id}")


def feed_losses(
    feed: Feed,
    matches: Mapping[str, str],
    expected: Mapping[str, Sequence[Logged]],
    recorded: Mapping[str, Sequence[Logged]],
) -> list[str]:
    """What ``feed`` (one WebSocket connection) lacks or holds wrongly, for every table
    it watched (``matches``: table -> match id): every public event of the table's
    streams in ``expected`` (the log when the run ended) exactly once and in version
    order; nothing the log does not hold (``recorded``: the log after the sockets
    closed, which may hold later events the socket was right to have)."""
    problems: list[str] = []
    if feed.lost is not None:
        problems.append(f"socket {feed.name}: {feed.lost}")
    for table in feed.tables:
        for stream in streams_of(table, matches[table]):
            want = [e for e in expected.get(stream, ()) if e.visibility == PUBLIC]
            known = {e.version: e for e in recorded.get(stream, ())}
            got = [g for g in feed.events if g.stream == stream and g.visibility == PUBLIC]
            versions = [g.version for g in got]
            seen = set(versions)
            missing = [e for e in want if e.version not in seen]
            if missing:
                problems.append(
                    f"socket {feed.name} never got {len(missing)} of the {len(want)} public "
                    f"events of {stream}: versions {ranges(e.version for e in missing)} "
                    f"({_types(missing)})"
                )
            doubled = sorted(v for v, n in Counter(versions).items() if n > 1)
            if doubled:
                problems.append(
                    f"socket {feed.name} got {stream} twice: versions {ranges(doubled)}"
                )
            backwards = [b for a, b in pairwise(versions) if b < a]
            if backwards:
                problems.append(
                    f"socket {feed.name} got {stream} out of order: version(s) "
                    f"{ranges(backwards)} after a later one"
                )
            strange = [
                g for g in got
                if g.version not in known or known[g.version].type != g.type
                or known[g.version].visibility != PUBLIC
            ]  # fmt: skip
            if strange:
                problems.append(
                    f"socket {feed.name} got events of {stream} the log does not hold as "
                    f"public: " + ", ".join(f"v{g.version} {g.type}" for g in strange[:SHOWN])
                )
    return problems


def relay_losses(messages: Sequence[Message], log: Mapping[int, Logged], head: int) -> list[str]:
    """What the relay's messages in the JetStream stream lack or hold wrongly: their
    positions (``Belot-Position``) must be 1..``head`` at least, then only positions the
    log holds (``log``, read after the messages), each once, in sequence order, each
    naming the stream and version the log holds at that position. Other messages
    (foreign publishes) are skipped: only the relay's are judged."""
    problems: list[str] = []
    relays = [m for m in messages if m.is_relays]
    positions: list[int] = []
    unnumbered = []
    numbered = []
    for m in relays:
        if m.position is None:
            unnumbered.append(m.seq)
        else:
            positions.append(m.position)
            numbered.append(m)
    if unnumbered:
        problems.append(
            f"relay messages without a numeric {POSITION_HEADER}: sequences {ranges(unnumbered)}"
        )
    seen = set(positions)
    missing = [p for p in range(1, head + 1) if p not in seen]
    if missing:
        lost = [log[p] for p in missing if p in log]
        problems.append(
            f"the relay never published {len(missing)} of the log's {head} positions: "
            f"{ranges(missing)} ({_types(lost)}; streams "
            f"{', '.join(sorted({e.stream for e in lost})[:SHOWN])})"
        )
    doubled = sorted(p for p, n in Counter(positions).items() if n > 1)
    if doubled:
        problems.append(f"the relay published positions twice: {ranges(doubled)}")
    beyond = sorted(p for p in seen if p not in log)
    if beyond:
        problems.append(f"relay messages name positions the log does not hold: {ranges(beyond)}")
    backwards = [b for a, b in pairwise(positions) if b < a]
    if backwards:
        problems.append(f"relay positions out of order in the stream: {ranges(backwards)}")
    wrong = [
        m.seq for m, p in zip(numbered, positions, strict=True)
        if p in log and (m.headers.get(RELAY_HEADER) != log[p].stream
                         or m.headers.get("Belot-Version") != str(log[p].version))
    ]  # fmt: skip
    if wrong:
        problems.append(
            f"relay messages whose stream or version is not the log's at their position: "
            f"sequences {ranges(wrong)}"
        )
    return problems


def foreign_losses(messages: Sequence[Message], foreign: Sequence[int]) -> list[str]:
    """Around each foreign message (``foreign``: the sequences JetStream gave the
    suite's own publishes), the relay's positions must go on by exactly one: the last
    relay message before it and the first after it are consecutive positions, and the
    relay published after it at all."""
    problems: list[str] = []
    order = sorted(messages, key=lambda m: m.seq)
    for seq in foreign:
        before = [m for m in order if m.seq < seq and m.is_relays]
        after = [m for m in order if m.seq > seq and m.is_relays]
        if not after:
            last = before[-1].position if before else "none"
            problems.append(
                f"the relay published nothing after the foreign message at sequence {seq} "
                f"(its last position: {last})"
            )
            continue
        prev = (before[-1].position or 0) if before else 0
        nxt = after[0].position or 0
        if nxt != prev + 1:
            problems.append(
                f"after the foreign message at sequence {seq} the relay went from position "
                f"{prev} to {nxt}: " + (
                    f"positions {ranges(range(prev + 1, nxt))} skipped" if nxt > prev + 1
                    else "a position published again"
                )
            )  # fmt: skip
    if not any(m.seq in set(foreign) for m in order):
        problems.append("harness: none of the foreign messages is in the stream")
    return problems


def readiness_losses(
    samples: Sequence[Sample],
    away: Sequence[Window],
    recovered_by: float,
    *,
    grace: float = 2.0,
    stall: float = 10.0,
) -> list[str]:
    """/readyz of the relay's processes must tell the truth about the relay:

    - while a server the relay needs is away (NATS, which it publishes to, or
      PostgreSQL, which it reads), from ``grace`` seconds after it went, no worker says
      ready;
    - after the last outage (``recovered_by``), every worker says ready again;
    - outside the outages, the relay is never stalled for ``stall`` seconds (events
      waiting, no position published) while every worker says ready.
    """
    problems: list[str] = []
    workers = sorted({s.worker for s in samples})
    for w in away:
        liars = [
            s for s in samples
            if w.start + grace <= s.at and s.done < w.end and s.status == 200
        ]  # fmt: skip
        for worker in workers:
            told = [s for s in liars if s.worker == worker]
            if told:
                problems.append(
                    f"{worker} answered /readyz 200 {len(told)} times while the relay could "
                    f"not run ({w.name}), first {told[0].at - w.start:.1f} s in: "
                    f"{told[0].body[:200]}"
                )
    for worker in workers:
        late = [s for s in samples if s.worker == worker and s.at >= recovered_by]
        if not late:
            problems.append(f"harness: no /readyz sample of {worker} after the last outage")
        elif late[-1].status != 200:
            problems.append(
                f"{worker} is still not ready at the end ({late[-1].status}): {late[-1].body[:300]}"
            )
    # A stall: the head ahead of the relay and the relay not moving, for `stall` s.
    moments = sorted(samples, key=lambda s: s.at)
    since: Sample | None = None
    reported = False
    for s in moments:
        if s.head is None or s.relayed is None or any(w.start <= s.at < w.end for w in away):
            since, reported = None, False
            continue
        if s.head <= s.relayed:
            since, reported = None, False
            continue
        if since is None or s.relayed != since.relayed:
            since, reported = s, False
            continue
        if s.at - since.at >= stall and not reported:
            around = [x for x in moments if since.at <= x.at <= s.at]
            ready = {x.worker for x in around if x.status == 200}
            never_down = [w for w in workers if w in ready and all(
                x.status == 200 for x in around if x.worker == w)]  # fmt: skip
            if len(never_down) == len(workers):
                problems.append(
                    f"the relay published nothing for {s.at - since.at:.0f} s (stuck at "
                    f"position {s.relayed}, log head {s.head}) while every table worker "
                    f"answered /readyz 200"
                )
            reported = True
    return problems
