"""The chaos run's checks (tests/chaos/checks.py) on small made-up records: each finds
the loss it is there for, names it, and finds nothing in a whole record."""

from __future__ import annotations

from tests.chaos.checks import (
    feed_losses,
    foreign_losses,
    ranges,
    readiness_losses,
    relay_losses,
)
from tests.chaos.records import Feed, Got, Logged, Message, Sample, Window

TABLE, MATCH = "t1", "t1-1"


def log_of(*streams: tuple[str, list[str]]) -> dict[str, list[Logged]]:
    """stream -> events (visibility per event: "public", "secret" or "seat:0")."""
    out: dict[str, list[Logged]] = {}
    position = 0
    for stream, visibilities in streams:
        for v, vis in enumerate(visibilities, start=1):
            position += 1
            out.setdefault(stream, []).append(Logged(position, stream, v, f"E{v}", vis))
    return out


LOG = log_of(
    (f"table-{TABLE}", ["public", "public"]),
    (f"match-{MATCH}", ["public", "secret", "seat:0", "public", "public"]),
    (f"randomness-{MATCH}", ["public"]),
)


def feed(got: list[tuple[str, int]], lost: str | None = None) -> Feed:
    f = Feed("ann", 1, (TABLE,), 0.0, lost=lost)
    for stream, version in got:
        e = next(x for x in LOG[stream] if x.version == version)
        f.events.append(Got(0.0, TABLE, stream, version, e.type, e.visibility, False))
    return f


WHOLE = [
    (f"table-{TABLE}", 1), (f"match-{MATCH}", 1), (f"table-{TABLE}", 2),
    (f"match-{MATCH}", 3), (f"match-{MATCH}", 4), (f"match-{MATCH}", 5),
    (f"randomness-{MATCH}", 1),
]  # fmt: skip


def test_ranges_are_short() -> None:
    assert ranges([1, 2, 3, 7, 9, 10]) == "1-3, 7, 9-10"
    assert ranges(range(1, 100, 2)).endswith("(38 more runs)")


def test_a_whole_feed_has_no_loss() -> None:
    assert feed_losses(feed(WHOLE), {TABLE: MATCH}, LOG, LOG) == []


def test_a_missing_public_event_is_named_by_socket_stream_and_version() -> None:
    got = [g for g in WHOLE if g != (f"match-{MATCH}", 4)]
    assert feed_losses(feed(got), {TABLE: MATCH}, LOG, LOG) == [
        f"socket ann#1 never got 1 of the 3 public events of match-{MATCH}: versions 4 (E4 x1)"
    ]


def test_doubles_and_disorder_are_named() -> None:
    got = [*WHOLE[:5], (f"match-{MATCH}", 1), *WHOLE[5:]]
    problems = feed_losses(feed(got), {TABLE: MATCH}, LOG, LOG)
    assert problems == [
        f"socket ann#1 got match-{MATCH} twice: versions 1",
        f"socket ann#1 got match-{MATCH} out of order: version(s) 1 after a later one",
    ]


def test_a_socket_the_server_closed_is_a_loss() -> None:
    problems = feed_losses(feed(WHOLE, lost="closed by the server"), {TABLE: MATCH}, LOG, LOG)
    assert problems == ["socket ann#1: closed by the server"]


def test_an_event_the_log_does_not_hold_is_named() -> None:
    shorter = {**LOG, f"randomness-{MATCH}": []}
    problems = feed_losses(feed(WHOLE), {TABLE: MATCH}, shorter, shorter)
    assert problems == [
        f"socket ann#1 got events of randomness-{MATCH} the log does not hold as public: v1 E1"
    ]


def relay_message(seq: int, position: int, e: Logged) -> Message:
    headers = {"Nats-Msg-Id": f"seal{position}", "Belot-Position": str(position),
               "Belot-Stream": e.stream, "Belot-Version": str(e.version)}  # fmt: skip
    return Message(seq, f"belot.events.x.{e.stream}", headers)


BY_POSITION = {e.position: e for events in LOG.values() for e in events}
HEAD = len(BY_POSITION)
RELAYED = [relay_message(p, p, BY_POSITION[p]) for p in range(1, HEAD + 1)]
FOREIGN = Message(99, "belot.events.chaos.x", {"Chaos-Foreign": "1", "Nats-Msg-Id": "500"})


def test_the_relays_whole_stream_has_no_loss() -> None:
    assert relay_losses(RELAYED, BY_POSITION, HEAD) == []


def test_a_position_never_published_is_named_with_its_stream() -> None:
    problems = relay_losses([m for m in RELAYED if m.seq != 3], BY_POSITION, HEAD)
    assert problems == [
        f"the relay never published 1 of the log's {HEAD} positions: 3 (E1 x1; streams "
        f"match-{MATCH})"
    ]


def test_foreign_messages_are_not_the_relays() -> None:
    messages = [*RELAYED[:4], Message(50, "belot.events.x", {"Nats-Msg-Id": "5"}), *RELAYED[4:]]
    assert relay_losses(messages, BY_POSITION, HEAD) == []


def test_an_earlier_relays_position_is_its_message_id() -> None:
    def unsealed(m: Message) -> Message:
        headers = {k: v for k, v in m.headers.items() if k != "Belot-Position"}
        return Message(m.seq, m.subject, {**headers, "Nats-Msg-Id": str(m.position)})

    old = [unsealed(m) for m in RELAYED]
    assert relay_losses(old, BY_POSITION, HEAD) == []
    assert relay_losses(old[1:], BY_POSITION, HEAD)[0].startswith("the relay never published 1")


def test_a_position_twice_and_a_wrong_stream_are_named() -> None:
    wrong = relay_message(20, 2, BY_POSITION[3])
    problems = relay_losses([*RELAYED, wrong], BY_POSITION, HEAD)
    assert problems == [
        "the relay published positions twice: 2",
        "relay positions out of order in the stream: 2",
        "relay messages whose stream or version is not the log's at their position: sequences 20",
    ]


def test_a_hole_after_a_foreign_message_is_named() -> None:
    renumbered = [Message(m.seq + (1 if m.seq > 4 else 0), m.subject, m.headers) for m in RELAYED]
    foreign = Message(5, "belot.events.chaos.x", {"Chaos-Foreign": "1"})
    whole = sorted([*renumbered, foreign], key=lambda m: m.seq)
    assert foreign_losses(whole, [5]) == []
    holed = [m for m in whole if m.position != 5]
    assert foreign_losses(holed, [5]) == [
        "after the foreign message at sequence 5 the relay went from position 4 to 6: "
        "positions 5 skipped"
    ]
    assert foreign_losses([*RELAYED, FOREIGN], [99]) == [
        f"the relay published nothing after the foreign message at sequence 99 (its last "
        f"position: {HEAD})"
    ]


def sample(at: float, worker: str, status: int, head: int = 10, relayed: int = 10) -> Sample:
    return Sample(at, at + 0.1, worker, status, "{}", head, relayed)


def test_readyz_must_say_not_ready_while_a_server_is_away() -> None:
    away = [Window("nats SIGKILL 30 s", 10.0, 40.0)]
    honest = [sample(t, w, 503 if 10 <= t < 40 else 200) for t in range(50) for w in "ab"]
    assert readiness_losses(honest, away, 40.0) == []
    lying = [sample(t, w, 200) for t in range(50) for w in "ab"]
    problems = readiness_losses(lying, away, 40.0)
    assert len(problems) == 2 and problems[0].startswith(
        "a answered /readyz 200 28 times while the relay could not run (nats SIGKILL 30 s), "
        "first 2.0 s in"
    )


def test_readyz_must_be_ready_at_the_end() -> None:
    samples = [sample(t, "a", 200 if t < 45 else 503) for t in range(50)]
    assert readiness_losses(samples, [], 40.0) == ["a is still not ready at the end (503): {}"]


def test_a_stuck_relay_behind_ready_workers_is_named() -> None:
    stuck = [sample(t, w, 200, head=100 + t, relayed=90) for t in range(30) for w in "ab"]
    assert readiness_losses(stuck, [], 0.0) == [
        "the relay published nothing for 10 s (stuck at position 90, log head 110) while "
        "every table worker answered /readyz 200"
    ]
    # One worker saying so is the truth told.
    told = [sample(t, w, 503 if w == "a" else 200, head=100 + t, relayed=90)
            for t in range(30) for w in "ab"]  # fmt: skip
    assert readiness_losses(told, [], 0.0) == ["a is still not ready at the end (503): {}"]
