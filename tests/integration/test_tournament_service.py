"""The tournament service on the real platform: round creation survives a restart (and
a second replica) without pairing anything twice; an organiser's correction re-derives
the standings; pause, next round and terminate; HTTP errors are 4xx JSON."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.integration.gateway_support import Player
from tests.integration.table_support import eventually, wait_for_table
from tests.integration.tournament_support import ADMIN, Harness, harness

pytestmark = pytest.mark.asyncio(loop_scope="session")

FAST = {"target": 1, "bot_delay_ms": 0, "seat_window_seconds": 1.5, "round_seconds": 120}


def complete(t: dict, round_no: int) -> bool:
    return len(t["rounds"]) >= round_no and all(
        m["result"] is not None for m in t["rounds"][round_no - 1]["matches"]
    )


async def test_a_restart_never_pairs_a_round_twice(servers, store, pg_pool, nc, js_names) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        # Bots paced at 40 ms a move: the service goes down with matches in play.
        tid = await h.create(
            format="swiss", ruleset="gambler", rounds=3, **{**FAST, "bot_delay_ms": 40}
        )
        await h.bots(tid, 6)
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        t = await h.wait(tid, lambda t: len(t["tables"]) == 6)
        await h.stop_service()
        # A result lands in the log while nobody follows it.
        tables = {seat["table_id"] for seat in t["tables"].values()}

        async def a_result_landed() -> bool:
            for table_id in tables:
                events = await h.platform.store.read_stream(f"table-{table_id}")
                if any(e.type == "TableMatchFinished" for e in events):
                    return True
            return False

        await eventually(a_result_landed, 60)
        await h.start_service()
        # And a second replica on the same schema: commands meet on expected versions.
        first = h.service
        await h.start_service()
        second = h.service
        t = await h.wait_finished(tid, timeout=120)
        h.service = first
        await h.stop_service()
        h.service = second
        assert t["finished"]["reason"] == "all_rounds_played"
        events = await h.events(tid)
        assert [e.payload["round"] for e in events if e.type == "RoundPaired"] == [1, 2, 3]
        tables = [e.payload for e in events if e.type == "TableAssigned"]
        assert len(tables) == 9  # three matches a round, one table each
        assert len({(a["round"], a["match"]) for a in tables}) == 9
        reports = Counter(
            (e.payload["round"], e.payload["match"]) for e in events if e.type == "MatchReported"
        )
        assert set(reports.values()) == {1} and len(reports) == 9
        assert [e.version for e in events] == list(range(1, len(events) + 1))


async def test_a_correction_rederives_the_standings(servers, store, pg_pool, nc, js_names) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        tid = await h.create(format="swiss", ruleset="gambler", rounds=2, auto_next=False, **FAST)
        await h.bots(tid, 4)
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        t = await h.wait(tid, lambda t: complete(t, 1))
        assert len(t["rounds"]) == 1  # paired by hand only (round 2 below is the organiser's)
        m = t["rounds"][0]["matches"][0]
        game = m["games"][0]
        winner, loser = (m["a"][0], m["b"][0]) if game["a"] == "win" else (m["b"][0], m["a"][0])
        before = {
            r["entrant"]: r for r in (await h.ok("GET", f"/v1/tournaments/{tid}/standings"))["rows"]
        }
        flipped = {"win": "loss", "loss": "win", "draw": "draw"}
        body = {
            "round": 1,
            "match": 1,
            "game": 1,
            "a": flipped[game["a"]],
            "b": flipped[game["b"]],
            "a_points": game["b_points"],
            "b_points": game["a_points"],
            "reason": "scores swapped on entry",
        }
        await h.ok("POST", f"/v1/tournaments/{tid}/corrections", body)
        after = {
            r["entrant"]: r for r in (await h.ok("GET", f"/v1/tournaments/{tid}/standings"))["rows"]
        }
        assert after[winner]["points"] == before[winner]["points"] - 2
        assert after[loser]["points"] == before[loser]["points"] + 2
        assert after[loser]["wins"] == 1 and after[winner]["losses"] == 1
        assert "opponents:" in after[loser]["how"]
        # Pause: no round is paired; resume, then the organiser pairs round 2.
        await h.ok("POST", f"/v1/tournaments/{tid}/pause")
        status, err = await h.call("POST", f"/v1/tournaments/{tid}/rounds")
        assert (status, err["error"]) == (409, "paused")
        await h.ok("POST", f"/v1/tournaments/{tid}/resume")
        t = await h.ok("POST", f"/v1/tournaments/{tid}/rounds")
        assert len(t["rounds"]) == 2
        # Round 2 was paired from the corrected table: the two leaders meet.
        leaders = sorted(e for e, r in after.items() if r["points"] == 2)
        pairs = [sorted(m["a"] + m["b"]) for m in t["rounds"][1]["matches"]]
        assert leaders in pairs
        await h.wait(tid, lambda t: complete(t, 2))
        t = await h.ok("POST", f"/v1/tournaments/{tid}/rounds")
        assert t["finished"]["reason"] == "all_rounds_played"
        types = [e.type for e in await h.events(tid)]
        assert types.count("ResultCorrected") == 1


async def errors_of(h: Harness, cases: list) -> None:
    for method, path, body, headers, status, code in cases:
        got, reply = await h.call(method, path, body, headers)
        assert (got, reply.get("error")) == (status, code), (method, path, body, reply)
        assert isinstance(reply.get("message"), str) and reply["message"]


async def test_http_errors_are_4xx_json(servers, store, pg_pool, nc, js_names) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        ann = await Player(h.http, "errors-ann").register()
        bob = await Player(h.http, "errors-bob").register()
        none: dict[str, str] = {}
        base = "/v1/tournaments"
        status, made = await ann.call(
            "POST",
            base,
            {
                "name": "ann's",
                "format": "swiss",
                "ruleset": "gambler",
                "rounds": 1,
                "password": "secret",
                "max_entrants": 3,
                **FAST,
            },
        )
        assert status == 201, made
        tid = made["tournament_id"]
        t = f"{base}/{tid}"
        await errors_of(
            h,
            [
                (
                    "POST",
                    base,
                    {"name": "x", "format": "swiss", "rounds": 1},
                    none,
                    401,
                    "unauthorized",
                ),
                ("POST", base, {"name": "x", "format": "chess"}, ADMIN, 400, "bad_request"),
                ("POST", base, {"name": "x", "format": "swiss"}, ADMIN, 400, "bad_settings"),
                (
                    "POST",
                    base,
                    {"name": "x", "format": "swiss", "rounds": 1, "colour": 3},
                    ADMIN,
                    400,
                    "bad_request",
                ),
                (
                    "POST",
                    base,
                    {
                        "name": "x",
                        "format": "swiss",
                        "rounds": 1,
                        "ruleset": "club",
                        "table_size": 2,
                    },
                    ADMIN,
                    400,
                    "bad_settings",
                ),
                ("GET", f"{base}/nope", None, none, 404, "unknown_tournament"),
                ("GET", f"{base}/n.o", None, none, 404, "unknown_tournament"),
                ("PATCH", t, {"rounds": 2}, bob.auth, 403, "forbidden"),
                ("PATCH", t, {"rounds": 2}, none, 401, "unauthorized"),
                ("PATCH", t, {"format": "ladder"}, ann.auth, 400, "bad_request"),
                ("PATCH", t, {"max_entrants": 1}, ann.auth, 400, "bad_request"),
                ("POST", f"{t}/entrants", {"password": "wrong"}, bob.auth, 403, "wrong_password"),
                ("POST", f"{t}/entrants", {}, bob.auth, 403, "wrong_password"),
                ("POST", f"{t}/entrants", {"bot": "easy"}, bob.auth, 403, "forbidden"),
                ("POST", f"{t}/entrants", {"bot": "genius"}, ann.auth, 400, "bad_request"),
                ("POST", f"{t}/start", {}, ann.auth, 409, "not_enough_entrants"),
                ("POST", f"{t}/withdraw", {}, bob.auth, 409, "not_entered"),
                ("POST", f"{t}/frobnicate", {}, ann.auth, 404, "not_found"),
                ("PUT", f"{t}/seeding", {"mode": "manual"}, ann.auth, 400, "bad_request"),
                (
                    "PUT",
                    f"{t}/seeding",
                    {"mode": "manual", "order": ["x"]},
                    ann.auth,
                    400,
                    "bad_seeding",
                ),
                (
                    "PUT",
                    f"{t}/forbidden-pairs",
                    {"pairs": [["a", "a"]]},
                    ann.auth,
                    400,
                    "bad_request",
                ),
                (
                    "PUT",
                    f"{t}/forbidden-pairs",
                    {"pairs": [["a", "b"]]},
                    ann.auth,
                    409,
                    "not_entered",
                ),
                ("GET", f"{t}/export?format=xml", None, none, 400, "bad_request"),
                (
                    "POST",
                    f"{t}/corrections",
                    {"round": 1, "match": 1, "a": "win", "b": "loss", "reason": "x"},
                    ann.auth,
                    404,
                    "unknown_match",
                ),
            ],
        )
        async with h.http.post(t, data=b"{not json", headers=ann.auth) as resp:
            assert resp.status in (400, 405)
        async with h.http.patch(t, data=b"{not json", headers=ann.auth) as resp:
            assert resp.status == 400 and (await resp.json())["error"] == "bad_request"
        status, reply = await bob.call("POST", f"{t}/entrants", {"password": "secret"})
        assert status == 201 and reply["entrant"] == bob.player
        await h.ok("POST", f"{t}/entrants", {"bot": "easy"}, headers=ann.auth)
        status, reply = await bob.call("POST", f"{t}/entrants", {"password": "secret"})
        assert (status, reply["error"]) == (409, "already_entered")
        await h.ok("POST", f"{t}/entrants", {"bot": "easy"})  # the operators' token
        status, reply = await h.call("POST", f"{t}/entrants", {"bot": "easy"})
        assert (status, reply["error"]) == (409, "tournament_full")
        # The rating band: a newcomer is 1500.
        status, banded = await ann.call(
            "POST", base, {"name": "strong", "format": "swiss", "rounds": 1, "min_rating": 1600}
        )
        status, reply = await bob.call("POST", f"{base}/{banded['tournament_id']}/entrants", {})
        assert (status, reply["error"]) == (409, "rating_out_of_band")
        # Started: the numbers are fixed, registration is closed.
        t_now = await h.ok("POST", f"{t}/start", {}, headers=ann.auth)
        assert t_now["status"] == "running"
        change = {"name": "Ann's cup", "turn_seconds": 20}
        renamed = await h.ok("PATCH", t, change, headers=ann.auth)
        assert renamed["name"] == "Ann's cup" and renamed["tables_options"]["turn_ms"] == 20_000
        carol = await Player(h.http, "errors-carol").register()
        await errors_of(
            h,
            [
                (
                    "POST",
                    f"{t}/entrants",
                    {"password": "secret"},
                    carol.auth,
                    409,
                    "registration_closed",
                ),
                ("PATCH", t, {"rounds": 2}, ann.auth, 409, "already_started"),
                ("POST", f"{t}/cancel", {}, ann.auth, 409, "already_started"),
                (
                    "POST",
                    f"{t}/corrections",
                    {"round": 1, "match": 1, "a": "won", "b": "loss", "reason": "x"},
                    ann.auth,
                    400,
                    "bad_request",
                ),
                (
                    "POST",
                    f"{t}/corrections",
                    {"round": 9, "match": 1, "a": "win", "b": "loss", "reason": "x"},
                    ann.auth,
                    404,
                    "unknown_match",
                ),
            ],
        )
        # Bob's seat is kept for Bob: Carol cannot take it; Bob can.
        running = await h.wait(tid, lambda x: bob.player in x["tables"])
        where = running["tables"][bob.player]
        path = f"/v1/tables/{where['table_id']}/seats/{where['seat']}"
        status, reply = await carol.call("POST", path)
        assert (status, reply["error"]) == (409, "seat_reserved")
        status, reply = await bob.call("POST", path)
        assert status == 200, reply
        # Names beside ids, for people.
        standings = await h.ok("GET", f"{t}/standings")
        rows = standings["rows"]
        named = {p: n for r in rows for p, n in zip(r["players"], r["names"], strict=True)}
        assert named[bob.player] == "errors-bob"
        assert (await h.get(tid))["names"][bob.player] == "errors-bob"
        # Listing.
        listed = await h.ok("GET", f"{base}?status=running")
        assert [x["tournament_id"] for x in listed["tournaments"]] == [tid]
        status, reply = await h.call("GET", f"{base}?status=lost")
        assert (status, reply["error"]) == (400, "bad_request")
        # Terminate: the standings as they stand; the tables are aborted.
        done = await h.ok("POST", f"{t}/terminate", {"reason": "test over"}, headers=ann.auth)
        assert done["status"] == "finished" and done["finished"]["reason"] == "terminated"
        await wait_for_table(h.platform.store, where["table_id"], "TableClosed", 20)
        status, reply = await h.call("POST", f"{t}/terminate", {})
        assert (status, reply["error"]) == (409, "already_finished")
        # Cancel before the start.
        status, other = await ann.call("POST", base, {"name": "soon", "format": "elimination"})
        status, reply = await ann.call("POST", f"{base}/{other['tournament_id']}/cancel", {})
        assert status == 200 and reply["status"] == "cancelled"


async def test_a_tournament_whose_entrants_all_withdrew_ends(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        # Paced bots: the withdrawals come while the match is played; rounds are paired
        # by hand, so the second withdrawal is not beaten by round 2 finding one left.
        tid = await h.create(
            format="swiss", ruleset="gambler", rounds=3, bot_delay_ms=200, auto_next=False
        )
        bots = await h.bots(tid, 2)
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        t = await h.wait(tid, lambda t: len(t["tables"]) == 2)
        table_id = t["tables"][bots[0]]["table_id"]
        # Once the match is under way (on a slow machine the withdrawals could otherwise
        # close a table still open for its seats, which ends with no match to abort).
        await wait_for_table(h.platform.store, table_id, "FairDealOpened", 20)
        for bot in bots:
            await h.ok("DELETE", f"/v1/tournaments/{tid}/entrants/{bot}")
        t = await h.get(tid)
        assert t["finished"]["reason"] == "all_withdrew"
        assert set(t["statuses"].values()) == {"withdrawn"}
        events = await wait_for_table(h.platform.store, table_id, "TableClosed", 20)
        finished = next(e.payload for e in events if e.type == "TableMatchFinished")
        assert finished["winner"] is None and finished["finished"] is False  # aborted


async def test_the_round_time_limit(servers, store, pg_pool, nc, js_names) -> None:
    """Undecided at the round's end: lost by both sides, unless one side never sat down,
    which alone loses (and is out); the tables are aborted."""
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        # Bots paced so that no match ends within the round's 2 s; a seat window longer
        # than the round, so the ghost is caught by the round's clock, not the window's.
        tid = await h.create(
            format="swiss",
            ruleset="gambler",
            rounds=1,
            target=1,
            bot_delay_ms=400,
            round_seconds=2,
            seat_window_seconds=60,
        )
        bots = await h.bots(tid, 3)
        nobody = await Player(h.http, "clock-ghost").register()
        status, reply = await nobody.call("POST", f"/v1/tournaments/{tid}/entrants", {})
        assert status == 201, reply
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        t = await h.wait_finished(tid, timeout=30)
        assert t["finished"]["reason"] == "all_rounds_played"
        assert t["rounds"][0]["timed_out"] is True
        assert t["statuses"][nobody.player] == "out"
        rows = {
            r["entrant"]: r for r in (await h.ok("GET", f"/v1/tournaments/{tid}/standings"))["rows"]
        }
        ghost_match = next(m for m in t["rounds"][0]["matches"] if nobody.player in m["a"] + m["b"])
        opponent = ghost_match["a"] + ghost_match["b"]
        opponent.remove(nobody.player)
        assert rows[opponent[0]]["wins"] == 1
        others = [b for b in bots if b != opponent[0]]
        assert all(rows[b]["losses"] == 1 and rows[b]["points"] == 0 for b in others)
        events = await h.events(tid)
        timed = next(e.payload for e in events if e.type == "RoundTimedOut")
        assert timed["never_seated"] == [nobody.player]
        for e in events:
            if e.type == "TableAssigned":
                await wait_for_table(h.platform.store, e.payload["table_id"], "TableClosed", 20)


async def test_both_sides_no_shows_and_manual_seeding(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        tid = await h.create(format="swiss", ruleset="gambler", rounds=1, **FAST)
        ghosts = []
        for name in ("both-ghost-1", "both-ghost-2"):
            p = await Player(h.http, name).register()
            status, reply = await p.call("POST", f"/v1/tournaments/{tid}/entrants", {})
            assert status == 201, reply
            ghosts.append(p.player)
        bots = await h.bots(tid, 2)
        # Swiss round 1 is top half against bottom half: seeds 1 v 3 and 2 v 4.
        order = [ghosts[0], bots[0], ghosts[1], bots[1]]
        await h.ok("PUT", f"/v1/tournaments/{tid}/seeding", {"mode": "manual", "order": order})
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        t = await h.wait_finished(tid, timeout=30)
        first = t["rounds"][0]["matches"]
        ghost_match = next(m for m in first if ghosts[0] in m["a"] + m["b"])
        assert sorted(ghost_match["a"] + ghost_match["b"]) == sorted(ghosts)
        assert ghost_match["result"] == {"a": "loss", "b": "loss"}
        assert all(t["statuses"][g] == "out" for g in ghosts)
        table_id = ghost_match["tables"][0]["table_id"]
        await wait_for_table(h.platform.store, table_id, "TableClosed", 20)
