"""Witness registrations that cannot lock anyone out (issue 28, case 8: 60 registrations
from one address took every slot, for good, and the next witness got ``409
witness_limit``). On the verify service over real HTTP and PostgreSQL: one address holds
at most its share of the registrations, other addresses and the operator's configured
witness go on, the refusal says when a slot frees, registrations expire unless renewed
(registering again, a cosignature, or ``belot witness run --register`` doing it by
itself) and an expired one frees its slot; and ``?witness=`` on the entries route takes
what it says and refuses the rest with a JSON 400."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

from eventlog import EventStore
from fairdeal import logentries
from services.verify.app import LOG, create_app
from services.verify.http import RateLimits
from services.verify.translog import MAX_WITNESS_PARAMS, LogService
from tests.integration import roles
from tests.integration.test_translog_service import (
    LOG_KEY,
    WITNESS,
    log_settings,
    stored_entries,
)
from tests.integration.test_witness import ROOT, belot, checkpoint_of
from tools.matchgen import MatchSpec, generate, write
from translog import Cosigner

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: The cap on live registrations in these tests (one address may hold 4 of them).
CAP = 6
#: A never-cosigned key's term here (seconds): short, to see one expire.
NEW_TTL = 2.0


@dataclass
class Log:
    client: TestClient  # type: ignore[type-arg]
    service: LogService
    api: str

    async def register(
        self, key: Cosigner, session: aiohttp.ClientSession | None = None
    ) -> tuple[int, Any, Any]:
        """POST the key's vkey (from ``session``'s address, else the test client's)."""
        if session is None:
            r = await self.client.post("/v1/log/witnesses", data=key.vkey)
            return r.status, await r.json(), r.headers
        async with session.post(f"{self.api}/v1/log/witnesses", data=key.vkey) as r:
            return r.status, await r.json(), r.headers

    async def cosign(self, key: Cosigner) -> int:
        """Cosign the latest checkpoint as ``key``; the answer's status (200 only if the
        log took this key's line: the others already on the note are not sent)."""
        text = await (await self.client.get("/checkpoint")).text()
        body, signatures = text.split("\n\n", 1)
        log_line = signatures.splitlines()[0] + "\n"  # the log's own
        line = key.sign(body + "\n", int(time.time())).line()
        r = await self.client.post("/v1/log/cosignatures", data=f"{body}\n\n{log_line}{line}")
        if r.status == 200:
            assert (await r.json())["witnesses"] == [key.name]
        return r.status

    async def listed(self) -> dict[str, Any]:
        body = await (await self.client.get("/v1/log/witnesses")).json()
        return {w["name"]: w for w in body["witnesses"]}


@pytest_asyncio.fixture(loop_scope="session")
async def log(servers: Any, pg_pool: Any, schema: str) -> AsyncIterator[Log]:
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    await write(store, generate(MatchSpec(match_id="wr-m", label="wr-m")))
    settings = replace(
        log_settings(roles.dsn_for("verify", servers.pg_dsn), schema),
        translog_max_witnesses=CAP,
    )
    app = create_app(settings, schema=schema, limits=RateLimits(rate=10_000, burst=100_000))
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    service = app[LOG]
    service.new_witness_ttl = NEW_TTL  # the constructor's parameter, set once started
    await checkpoint_of(client, len(await stored_entries(pg_pool, schema)))
    yield Log(client, service, str(client.make_url("")).rstrip("/"))
    await client.close()
    await store.close()


def from_address(host: str) -> aiohttp.ClientSession:
    """A client whose requests come from ``host`` (any 127.0.0.0/8 address is this
    machine's loopback on Linux): another client address to the log."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(host, 0)))


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_one_address_cannot_take_every_slot_and_an_expired_one_frees(log: Log) -> None:
    keys = [Cosigner(f"witness.test/slot{i}", bytes([i + 7]) * 32) for i in range(10)]
    started = time.monotonic()
    # One address (the test client's, 127.0.0.1): four, then refused, saying when its
    # first registration ends.
    answers = [await log.register(k) for k in keys[:4]]
    assert [s for s, _, _ in answers] == [201] * 4
    status, body, headers = await log.register(keys[4])
    assert status == 409 and body["error"] == "witness_limit", body
    assert "your address (127.0.0.1) holds 4 live registrations" in body["message"]
    first_end = answers[0][1]["expires_at"]
    assert f"a slot frees at {first_end}" in body["message"], (body, first_end)
    assert 1 <= int(headers["Retry-After"]) <= NEW_TTL + 1
    refused_in = time.monotonic() - started

    # Other addresses still register, up to the cap; past it, refused for everyone, and
    # the refusal says when the first live registration ends.
    async with from_address("127.0.0.2") as other, from_address("127.0.0.3") as third:
        assert (await log.register(keys[5], other))[0] == 201
        assert (await log.register(keys[6], other))[0] == 201
        status, body, _ = await log.register(keys[7], third)
        assert status == 409 and body["error"] == "witness_limit"
        assert f"this log has its {CAP} live registrations" in body["message"]
        assert "a slot frees at" in body["message"]
    # The operator's witness is no registration: never refused, its cosignatures taken.
    status, body, _ = await log.register(WITNESS)
    assert status == 200 and body["source"] == "configured" and body["expires_at"] is None
    assert await log.cosign(WITNESS) == 200

    # Renewals: a cosignature gives the key the long term; registering again moves a
    # key's end (never-cosigned: the short term again, from now).
    assert await log.cosign(keys[0]) == 200
    await asyncio.sleep(0.5)
    status, again, _ = await log.register(keys[1])
    assert status == 200 and at(again["expires_at"]) > at(answers[1][1]["expires_at"])
    listed = await log.listed()
    term = at(listed[keys[0].name]["expires_at"]) - at(answers[0][1]["registered_at"])
    assert term > timedelta(hours=23)  # the long term (24 h), not the new key's 2 s
    assert {w["source"] for w in listed.values()} == {"configured", "registered"}

    # The never-renewed ones expire: not listed, their cosignatures refused, and their
    # slots free (127.0.0.1 holds keys 0 and 1 at most now: two more fit).
    for _ in range(100):
        listed = await log.listed()
        if keys[2].name not in listed and keys[3].name not in listed:
            break
        await asyncio.sleep(0.1)
    assert keys[2].name not in listed and keys[3].name not in listed
    assert keys[0].name in listed and WITNESS.name in listed
    assert await log.cosign(keys[2]) == 403
    assert (await log.register(keys[4]))[0] == 201
    assert (await log.register(keys[8]))[0] == 201
    print(
        f"\n4 registrations from one address, the 5th refused after {refused_in * 1000:.0f} ms;"
        f" a never-cosigned registration ({NEW_TTL:g} s term) freed its slot after "
        f"{time.monotonic() - started:.1f} s"
    )


async def test_the_witness_command_renews_its_registration(log: Log, tmp_path: Path) -> None:
    """A term of 2 s (never cosigned) then 3 s (cosigned), the log not growing (so no
    cosignature renews it after the first): ``belot witness run --register`` renews
    by registering again, and is still registered after twice the term."""
    log.service.witness_ttl = 3.0
    key_file = tmp_path / "w.key"
    rc, _, _ = await belot("witness", "keygen", "witness.test/renews", "--key", str(key_file))
    assert rc == 0
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "commands.cli", "witness", "run", "--register", "--api", log.api,
        "--log-key", LOG_KEY.verifier().vkey, "--key", str(key_file),
        "--state", str(tmp_path / "state"), "--interval", "0.2",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    # Read what the witness says until it has registered four times and twice the
    # term has passed (it prints a line each 0.2 s interval): a condition on its own
    # output, not a fixed wait, which a loaded machine's slow start outran (3 renewals).
    lines: list[str] = []
    started = time.monotonic()

    def renewals() -> list[str]:
        return [x for x in lines if "registered witness.test/renews+" in x]

    async def renewed() -> None:
        assert proc.stdout is not None
        while len(renewals()) < 4 or time.monotonic() - started < 6.5:
            raw = await proc.stdout.readline()
            if not raw:
                return  # it ended: the asserts below say how
            lines.append(raw.decode().rstrip("\n"))

    try:
        await asyncio.wait_for(renewed(), 60)
        listed = await log.listed()
    finally:
        proc.terminate()
        w_out, w_err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, w_err.decode()
    lines += w_out.decode().splitlines()
    assert len(renewals()) >= 4, lines
    assert "until " in renewals()[0]
    assert sum("cosigned at" in x for x in lines) == 1  # the log did not grow
    assert "witness.test/renews" in listed
    print(f"\nthe witness renewed {len(renewals())} times in {time.monotonic() - started:.1f} s")


@pytest.mark.parametrize(
    "query",
    [
        "witness=witness.test/w1",  # no key ID
        "witness=witness.test/w1%2B12345",  # 5 hex digits
        "witness=witness.test/w1%2Bzzzzzzzz",
        "witness=%2B12345678",  # no name
        "witness=a%2Bb%2B12345678",  # a '+' in the name
        "witness=a%00b%2B12345678",  # a control character
        "&".join(["witness=a%2B12345678"] * (MAX_WITNESS_PARAMS + 1)),
    ],
    ids=["no-id", "short-id", "not-hex", "no-name", "plus", "nul", "too-many"],
)
async def test_a_bad_witness_parameter_is_a_json_400(log: Log, query: str) -> None:
    r = await log.client.get(f"/v1/log/entries?match=wr-m&{query}")
    assert r.status == 400, await r.text()
    assert (await r.json())["error"] == "bad_witness"


async def test_witnessed_by_names_each_witness_asked_for(log: Log) -> None:
    stranger = Cosigner("witness.test/other", bytes([99]) * 32)
    assert (await log.register(stranger))[0] == 201
    assert await log.cosign(stranger) == 200
    # Unescaped '+' reads as a space in a query string: taken as the separator too.
    ident = f"{stranger.name}+{stranger.key_id:08x}"
    upper = f"{stranger.name}%2B{stranger.key_id:08X}"
    for query in (ident.replace("+", "%2B"), ident, upper):
        body = await (await log.client.get(f"/v1/log/entries?match=wr-m&witness={query}")).json()
        for e in body["entries"]:
            assert e["witnessed"] is None  # no configured witness cosigned
            assert [(w["witness"], w["key_id"]) for w in e["witnessed_by"]] == [
                (stranger.name, f"{stranger.key_id:08x}")
            ]
            assert e["witnessed_by"][0]["size"] > e["index"]
    body = await (await log.client.get("/v1/log/entries?match=wr-m")).json()
    assert all(e["witnessed_by"] == [] for e in body["entries"])
