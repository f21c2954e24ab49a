"""One verification: the record decoded once, and what its checks leave for later ones.

Every check reads the same decoded record, so it is decoded here once (decoding both
streams is most of a verification's fixed cost: ``bench/verify.py`` times it apart)
and the checks are plain functions of a :class:`Context`. Three results pass from one
check to a later one, and only these: ``decks`` (the decks ``decks`` recomputed, which
``deals`` maps to the seats), and ``final`` and ``wrong_end`` (the state ``play``
replayed, and the two endings when the recorded one is not the rules', which ``score``
judges). That is why the checks run in the report's order
(:data:`fairdeal.verifier.CHECKS`); a check whose input is missing because an earlier
one failed skips, saying so.

The BLS check of a drand signature needs pairing arithmetic, which lives in
``libs/drand`` (py-arkworks): the verifier stays pure, so the caller hands it in as a
:data:`BlsCheck` and the context carries it to the one check that uses it.

The helpers at the end are how a check names a place or a value in its text: an
event by stream and version, cards by their codes, a time span in seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from belot import RULESETS, Ruleset
from belot.cards import to_code
from belot.events import MatchEnded, MatchStarted
from belot.match import Match
from fairdeal.chains import CHAINS, Chain
from fairdeal.fairness import FairnessEvent, ServerSeedCommitted, ServerSeedRevealed
from fairdeal.record import Decoded, Envelope, MatchItem, MatchRecord, decode

#: ``bls(chain, round, signature, previous_signature)`` raises (any Exception) when the
#: signature does not verify against the chain's public key. ``drand.verify`` is one.
BlsCheck = Callable[[Chain, int, bytes, bytes | None], object]


class Context:
    """One verification: the record decoded once, the checks in order, sharing results."""

    def __init__(self, record: MatchRecord, bls: BlsCheck | None) -> None:
        self.record = record
        self.bls = bls
        self.decoded: Decoded = decode(
            record.match.events, record.randomness.events, record.drand.events
        )
        self.items: list[MatchItem] = [e for _, e in self.decoded.match]
        self.envs: list[Envelope] = [env for env, _ in self.decoded.match]
        self.fair: list[FairnessEvent] = [e for _, e in self.decoded.fairness]
        self.ruleset: Ruleset | None = None
        first = self.items[0] if self.items else None
        if isinstance(first, MatchStarted):
            self.ruleset = RULESETS.get(first.ruleset)
        self.decks: dict[int, tuple[int, ...]] | None = None  # recomputed, by deal number
        self.final: Match | None = None  # the replayed state, when the replay got through
        # The replay reached the recorded MatchEnded and the rules end the match otherwise.
        self.wrong_end: tuple[MatchEnded, MatchEnded] | None = None

    def all(self, cls: type[Any]) -> list[Any]:
        return [e for e in self.fair if isinstance(e, cls)]

    def one(self, cls: type[Any]) -> Any:
        found = self.all(cls)
        return found[0] if found else None

    def chain(self) -> Chain | None:
        commit = self.one(ServerSeedCommitted)
        return CHAINS.get(commit.chain) if commit is not None else None

    def server_seed(self) -> bytes | None:
        revealed = self.one(ServerSeedRevealed)
        return revealed.server_seed if revealed is not None else None


def where_of(env: Envelope) -> str:
    return f"{env.stream} version {env.version}"


def card_codes(cards: Sequence[int]) -> list[str]:
    return [to_code(c) for c in cards]


def in_seconds(ms: int) -> str:
    return f"{ms / 1000:.3f} s"
