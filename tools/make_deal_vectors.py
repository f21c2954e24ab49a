"""Build libs/fairdeal/vectors/deal-v1.json with the plain reference transcription.

Every input is derived from SHA-256 of a readable label, so running this again gives the
same file byte for byte (a test checks that). drand values are real quicknet beacons.

    python tools/make_deal_vectors.py > libs/fairdeal/vectors/deal-v1.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.reference_recipe import shuffle

# Real quicknet beacons (round, randomness = sha256(signature)), copied from
# tests/data/drand-quicknet.json (sources listed there).
QUICKNET = {
    1: "1466a6cd24e327188770752f6134001c64d6efcc590ccc26b721611ad96f165a",
    2: "5782d6987841c654515a0e72b2d1ebb4e741234042c37cb19608ae50d93fb60c",
}


def h(label: str, size: int) -> bytes:
    return hashlib.sha256(label.encode()).digest()[:size]


def seats(label: str, pattern: str) -> list[bytes]:
    """pattern: one letter per seat, H = human (16-byte seed), B = bot (no seed)."""
    return [h(f"{label}/seat{i}", 16) if c == "H" else b"" for i, c in enumerate(pattern)]


def case(name, about, server_seed, seat_seeds, k, drand=None, cards=32):
    drand_round, drand_value = drand if drand else (0, bytes(32))
    out = shuffle(server_seed, seat_seeds, k, drand_round, drand_value, cards)
    return {
        "name": name,
        "about": about,
        "server_seed": server_seed.hex(),
        "commitment": hashlib.sha256(server_seed).hexdigest(),
        "seat_seeds": [s.hex() for s in seat_seeds],
        "deal": k,
        "drand_round": drand_round if drand else None,
        "drand_value": drand_value.hex() if drand else None,
        "cards": cards,
        "deck": out["deck"],
        "stream": {
            "bytes_read": out["bytes_read"],
            "blocks_used": out["blocks_used"],
            "rejected": out["rejected"],
        },
    }


def find(label: str, pattern: str, want) -> tuple[bytes, list[bytes]]:
    """The first server seed of label/n (n = 0, 1, ...) whose deal 0 satisfies want."""
    n = 0
    while True:
        seed, ss = h(f"{label}/{n}", 32), seats(f"{label}/{n}", pattern)
        if want(shuffle(seed, ss, 0)):
            return seed, ss
        n += 1


def build() -> dict:
    qn = {r: (r, bytes.fromhex(v)) for r, v in QUICKNET.items()}
    c = []
    s = h("four-humans", 32)
    four = seats("four-humans", "HHHH")
    c.append(case("4h-k0", "4 human seats, no drand, first deal", s, four, 0))
    c.append(case("4h-k1", "same match, second deal", s, four, 1))
    c.append(case("4h-k7", "same match, deal 7 (redeals count)", s, four, 7))
    c.append(case("4h-drand-k0", "4 human seats, quicknet round 1", s, four, 0, qn[1]))
    c.append(case("4h-drand-k1", "4 human seats, quicknet round 1, deal 1", s, four, 1, qn[1]))
    c.append(case("4h-drand2-k0", "4 human seats, quicknet round 2", s, four, 0, qn[2]))
    s2 = h("two-humans", 32)
    two = seats("two-humans", "HH")
    c.append(case("2h-k0", "2 human seats (gambler), no drand", s2, two, 0))
    c.append(case("2h-k5", "2 human seats, deal 5", s2, two, 5))
    c.append(case("2h-drand-k0", "2 human seats, quicknet round 2", s2, two, 0, qn[2]))
    c.append(
        case("1h1b-k0", "human against a bot: the bot's seat has no seed", s2, seats("hb", "HB"), 0)
    )
    c.append(case("2b-k0", "two bots", s2, seats("bb", "BB"), 0))
    c.append(case("2h1b1h-k0", "4 seats, seat 2 a bot", s, seats("hhbh", "HHBH"), 0))
    c.append(
        case(
            "1h3b-drand-k2",
            "one human, three bots, drand, deal 2",
            s,
            seats("hbbb", "HBBB"),
            2,
            qn[1],
        )
    )
    c.append(case("4b-k0", "four bots", s, seats("bbbb", "BBBB"), 0))
    c.append(case("4h-24-k0", "24-card deck, 4 seats", s, four, 0, None, 24))
    c.append(case("2h-24-drand-k3", "24-card deck, 2 seats, drand, deal 3", s2, two, 3, qn[2], 24))
    c.append(
        case("4b-24-k1", "24-card deck, four bots, deal 1", s, seats("bbbb", "BBBB"), 1, None, 24)
    )
    c.append(case("1h-k0", "a single seat", h("single", 32), seats("single", "H"), 0))
    c.append(case("3h-k0", "three seats", h("three", 32), seats("three", "HHH"), 0))
    many = seats("many", "HB" * 127 + "H")
    c.append(case("255-seats", "255 seats, alternating humans and bots", h("many", 32), many, 0))
    c.append(case("max-deal", "the last deal number, 2^32-1", s, four, 2**32 - 1))
    c.append(
        case(
            "max-round", "drand round 2^64-1 with a value", s, four, 0, (2**64 - 1, h("value", 32))
        )
    )
    c.append(case("zero-seed", "a server seed of 32 zero bytes", bytes(32), four, 0))
    c.append(case("ff-seed", "a server seed of 32 0xff bytes", b"\xff" * 32, four, 0))
    sr, ssr = find("no-rejection", "HHHH", lambda o: not o["rejected"])
    c.append(case("no-rejection", "no byte is rejected: 31 bytes, one block", sr, ssr, 0))
    sr, ssr = find(
        "rejections", "HHHH", lambda o: len(o["rejected"]) == 1 and o["blocks_used"] == 1
    )
    c.append(case("rejections", "one rejected byte: 32 bytes read, still one block", sr, ssr, 0))
    sr, ssr = find("second-block", "HHHH", lambda o: o["blocks_used"] >= 2)
    c.append(case("second-block", "rejections push the stream into block 1", sr, ssr, 0))
    sr, ssr = find("many-rejections", "HH", lambda o: len(o["rejected"]) >= 4)
    c.append(case("many-rejections", "four or more rejected bytes", sr, ssr, 0))
    return {
        "recipe": "belot.club/deal/v1",
        "about": (
            "Deck vectors for the fair-deal recipe of docs/specification.md section 6. "
            "Bytes are hex. seat_seeds are in seat order; an empty string is a seat that "
            "sent no seed. "
            "drand_round/drand_value are null for a deal without drand (round 0, 32 zero "
            "bytes in the message). deck is top card (index 0) first; cards are rank "
            "7 8 9 T J Q K A then suit C D H S. stream tells how many bytes and blocks "
            "the shuffle read and which bytes it rejected (position i, byte x)."
        ),
        "cases": c,
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(build(), indent=1) + "\n")
