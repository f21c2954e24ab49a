"""Build libs/fairdeal/vectors/draw-v1.json with the plain reference transcription.

Entrant names and tournament ids are readable labels; the drand values are real quicknet
beacons (randomness = SHA-256 of the signature, from tests/data/drand-quicknet.json), so
running this again gives the same file byte for byte (a test checks that).

    python tools/make_draw_vectors.py > libs/fairdeal/vectors/draw-v1.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.drand_vectors import QUICKNET_BEACONS
from tools.reference_draw import draw

SIGNATURES = {int(b["round"]): bytes.fromhex(b["signature"]) for b in QUICKNET_BEACONS}


def case(name: str, about: str, round_: int, tournament_id: str, entrants: list[str]) -> dict:
    signature = SIGNATURES[round_]
    randomness = hashlib.sha256(signature).digest()
    out = draw(randomness, tournament_id, entrants)
    return {
        "name": name,
        "about": about,
        "chain": "quicknet",
        "round": round_,
        "signature": signature.hex(),
        "randomness": randomness.hex(),
        "tournament_id": tournament_id,
        "entrants": entrants,
        "order": out["order"],
        "stream": {
            "bytes_read": out["bytes_read"],
            "blocks_used": out["blocks_used"],
            "rejected": out["rejected"],
        },
    }


def players(n: int, prefix: str = "p") -> list[str]:
    return [f"{prefix}{i:04d}" for i in range(1, n + 1)]


def find(label: str, round_: int, n: int, want) -> str:
    """The first tournament id label-0, label-1, ... whose draw of n players satisfies want."""
    randomness = hashlib.sha256(SIGNATURES[round_]).digest()
    k = 0
    while not want(draw(randomness, f"{label}-{k}", players(n))):
        k += 1
    return f"{label}-{k}"


def build() -> dict:
    c = [
        case("one", "a single entrant: nothing to draw, no byte read", 1001, "solo", ["ann"]),
        case("two", "two entrants: one byte decides", 1001, "final-2024", ["ann", "bob"]),
        case("eight", "eight entrants (an elimination bracket)", 1001, "cup-2024", players(8)),
        case("eight-1002", "the same field and id, the next round", 1002, "cup-2024", players(8)),
        case(
            "eight-other-id", "the same field and round, another id", 1001, "cup-2025", players(8)
        ),
        case(
            "bots-and-accounts",
            "entrant ids as the service writes them: accounts and bots",
            1003,
            "a1b2c3d4e5f6a7b8",
            ["alice", "bot:easy:1", "bob", "bot:hard:1", "carol", "bot:medium:2"],
        ),
        case(
            "unicode-id",
            "a tournament id outside ASCII, UTF-8 in the message",
            1000,
            "турнир",
            players(4),
        ),
        case("thirty-two", "32 entrants", 1003, "open-32", players(32)),
        case(
            "256",
            "256 entrants: the last count with one byte a step",
            1000,
            "big-256",
            players(256),
        ),
        case("257", "257 entrants: the first step reads two bytes", 1000, "big-257", players(257)),
        case(
            "1024",
            "1,024 entrants (the service's cap): steps of one and two bytes",
            2,
            "huge",
            players(1024),
        ),
    ]
    no_reject = find("clean", 1001, 12, lambda o: not o["rejected"])
    c.append(case("no-rejection", "12 entrants, no value rejected", 1001, no_reject, players(12)))
    rejecting = find("reject", 1001, 12, lambda o: len(o["rejected"]) >= 2)
    c.append(
        case("rejections", "12 entrants, two or more values rejected", 1001, rejecting, players(12))
    )
    second = find("blocks", 1001, 40, lambda o: o["blocks_used"] >= 2)
    c.append(
        case("second-block", "40 entrants: the stream runs into block 1", 1001, second, players(40))
    )
    return {
        "recipe": "belot.club/draw/v1",
        "about": (
            "Draw vectors for a tournament's random seeding (docs/tournaments.md, 'The draw'). "
            "Bytes are hex. randomness is SHA-256 of the quicknet signature of round. "
            "entrants are in the order the naming lists them (entry order); order is the "
            "seed order, seed 1 first. stream tells how many bytes and blocks the shuffle "
            "read and which values it rejected (position i, value x)."
        ),
        "cases": c,
    }


if __name__ == "__main__":
    sys.stdout.buffer.write((json.dumps(build(), indent=1, ensure_ascii=False) + "\n").encode())
