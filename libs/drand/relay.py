"""A local drand HTTP relay serving recorded real beacons, for tests and offline work.

It speaks drand's v1 API (``/chains``, ``/{hash}/info``, ``/{hash}/public/{round}``,
``/{hash}/public/latest``, ``/{hash}/health``; the unprefixed paths serve the ``default``
chain, as real relays do) and maps the recorded rounds onto a clock: a round is served
once the clock has reached its time; a request for the next round waits until it is
produced, later rounds get 425 Too Early (as drand/http-relay does); a round that was not
recorded gets 404. Every answer allows any origin (``Access-Control-Allow-Origin: *``), as
the public relays do, so a browser tab can ask it. Modes: ``ok``; ``slow:SECONDS``
answers every request that late; ``down`` accepts connections and never answers;
``lying`` serves forged beacons (a flipped signature bit, with a randomness that matches
the forged signature).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from aiohttp import web

from drand.bls import BeaconError, randomness_of, verify
from drand.chain import CHAINS, CHAINS_BY_HASH, DEFAULT, Chain
from drand.clock import Clock, sleep_until


@dataclass(frozen=True, slots=True)
class RecordedBeacon:
    round: int
    signature: bytes
    previous_signature: bytes | None = None


@dataclass(frozen=True, slots=True)
class Mode:
    name: str
    delay: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Mode:
        """``ok``, ``down``, ``lying`` or ``slow:SECONDS``; raises ValueError."""
        if text in ("ok", "down", "lying"):
            return cls(text)
        if text.startswith("slow:"):
            try:
                delay = float(text[5:])
            except ValueError:
                delay = -1.0
            if delay >= 0:
                return cls("slow", delay)
        raise ValueError(f"mode {text!r}: expected ok, down, lying or slow:SECONDS")


class BeaconFileError(ValueError):
    pass


def load_beacons(path: Path, chain: Chain) -> dict[int, RecordedBeacon]:
    """Read recorded beacons for ``chain`` and verify each one; raise BeaconFileError.

    Accepts the project's vectors file (``tests/data/drand-quicknet.json``: beacons under
    ``quicknet`` / ``mainnet_default``) or a JSON list of ``{round, signature,
    previous_signature?}`` objects."""
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise BeaconFileError(f"{path}: {exc}") from None
    if isinstance(data, dict):
        section = data.get("quicknet" if chain.name == "quicknet" else "mainnet_default", {})
        entries = [*section.get("beacons", []), *section.get("signature_only_beacons", [])]
    elif isinstance(data, list):
        entries = data
    else:
        raise BeaconFileError(f"{path}: expected a JSON object or list of beacons")
    beacons: dict[int, RecordedBeacon] = {}
    for n, entry in enumerate(entries):
        try:
            prev = entry.get("previous_signature") if chain.is_chained else None
            beacon = RecordedBeacon(
                int(entry["round"]),
                bytes.fromhex(entry["signature"]),
                bytes.fromhex(prev) if prev else None,
            )
            verify(chain, beacon.round, beacon.signature, beacon.previous_signature)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BeaconFileError(f"{path}: beacon #{n}: {exc}") from None
        beacons[beacon.round] = beacon
    if not beacons:
        raise BeaconFileError(f"{path}: no {chain.name} beacons in the file")
    return beacons


def _json(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.Response(
        body=orjson.dumps(data), status=status, content_type="application/json", headers=headers
    )


def _error(status: int, code: str, message: str) -> web.Response:
    return _json({"error": code, "message": message}, status)


def create_relay_app(
    beacons: Mapping[str, Mapping[int, RecordedBeacon]],
    clock: Clock,
    mode: Mode = Mode("ok"),
) -> web.Application:
    """An aiohttp app serving ``beacons[chain_name][round]`` on ``clock``."""
    app = web.Application()
    served = {name: dict(rounds) for name, rounds in beacons.items()}

    async def cors(request: web.Request, response: web.StreamResponse) -> None:
        # Public relays answer browsers too (drand's own JS client runs in them); the web
        # client's tab asks this one for the round it checks.
        response.headers["Access-Control-Allow-Origin"] = "*"

    app.on_response_prepare.append(cors)
    never = asyncio.Event()

    def chain_of(request: web.Request) -> Chain | None:
        chain_hash = request.match_info.get("chain")
        if chain_hash is None:
            return DEFAULT if "default" in served else None
        chain = CHAINS_BY_HASH.get(chain_hash)
        return chain if chain is not None and chain.name in served else None

    async def misbehave() -> None:
        if mode.name == "down":
            await never.wait()  # hold the connection, answer nothing
        if mode.name == "slow":
            await clock.sleep(mode.delay)

    def beacon_json(chain: Chain, beacon: RecordedBeacon) -> dict[str, Any]:
        signature = beacon.signature
        if mode.name == "lying":
            signature = bytes([signature[0], signature[1] ^ 0x01, *signature[2:]])
        data: dict[str, Any] = {
            "round": beacon.round,
            "randomness": randomness_of(signature).hex(),
            "signature": signature.hex(),
        }
        if chain.is_chained and beacon.previous_signature is not None:
            data["previous_signature"] = beacon.previous_signature.hex()
        return data

    async def chains(request: web.Request) -> web.Response:
        await misbehave()
        return _json([CHAINS[name].hash for name in served])

    async def info(request: web.Request) -> web.Response:
        await misbehave()
        chain = chain_of(request)
        if chain is None:
            return _error(404, "unknown_chain", "this relay does not serve that chain")
        return _json(
            {
                "public_key": chain.public_key.hex(),
                "period": chain.period,
                "genesis_time": chain.genesis_time,
                "hash": chain.hash,
                "groupHash": chain.genesis_seed.hex(),
                "schemeID": chain.scheme,
                "metadata": {"beaconID": chain.name},
            }
        )

    async def public(request: web.Request) -> web.Response:
        await misbehave()
        chain = chain_of(request)
        if chain is None:
            return _error(404, "unknown_chain", "this relay does not serve that chain")
        current = chain.round_at(clock.now())
        which = request.match_info.get("round", "latest")
        if which == "latest":
            rounds = [r for r in served[chain.name] if r <= current]
            if not rounds:
                return _error(404, "no_beacon", "no recorded round has been produced yet")
            round_ = max(rounds)
        else:
            try:
                round_ = int(which)
            except ValueError:
                return _error(400, "bad_round", f"round {which!r} is not a number")
            if round_ == current + 1:  # the next round: wait until it is produced
                await sleep_until(clock, chain.time_of_round(round_))
            elif round_ > current + 1:
                return _error(425, "too_early", f"round {round_} is not produced yet")
        beacon = served[chain.name].get(round_)
        if beacon is None:
            return _error(404, "not_recorded", f"round {round_} is not among the recorded beacons")
        return _json(beacon_json(chain, beacon), headers={"Cache-Control": "public, max-age=60"})

    async def health(request: web.Request) -> web.Response:
        await misbehave()
        chain = chain_of(request)
        if chain is None:
            return _error(404, "unknown_chain", "this relay does not serve that chain")
        current = chain.round_at(clock.now())
        return _json({"current": current, "expected": current})

    app.router.add_get("/chains", chains)
    for prefix in ("/{chain}", ""):
        app.router.add_get(f"{prefix}/info", info)
        app.router.add_get(f"{prefix}/health", health)
        app.router.add_get(f"{prefix}/public/latest", public)
        app.router.add_get(f"{prefix}/public/{{round}}", public)
    return app


__all__ = [
    "BeaconError",
    "BeaconFileError",
    "Mode",
    "RecordedBeacon",
    "create_relay_app",
    "load_beacons",
]
