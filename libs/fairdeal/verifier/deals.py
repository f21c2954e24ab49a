"""The cards: each deck is the recipe's, each seat got what the published pattern gives it
from that deck, and the first dealer is the rule's.

The recipe (:mod:`fairdeal.recipe`) makes deal k's deck from the three inputs the
earlier checks vouched for: the revealed server seed, the seats' seeds as shown, and the
drand round and value (round 0 and 32 zero bytes after a fallback). Recomputing it
shows the shuffle was not chosen; mapping it through the ruleset's published deal
pattern (:func:`belot.deal_pattern`) shows the cards went to the seats the pattern says,
so the dealing was not chosen either.

``decks``   each ``DeckSupplied`` deck equals the recipe's deck for its deal number; deal
            numbers run 0, 1, 2, ...; the randomness service issued each (``DeckIssued``,
            at the ruleset's size) after the inputs were fixed, and issued none for a
            deal that was never dealt (a look at cards nobody played). Its salts, the
            salts of the deal's hidden events, are the recipe's from the revealed seed
            when the commitment promised them (``ServerSeedCommitted.salted``), and there
            are none when it did not: a salt the server chose (zeros, a short or a
            repeated one) would let a seat search another's cards by their hash, so it
            must be the one nobody could know (:mod:`belot.salts`); each ``CardsDealt``
            carrying its own salt of that list is the replay's to check (``play``).
            Leaves the recomputed decks on the context for ``deals``.
``deals``   the record's pattern is the ruleset's published one; each recomputed deck,
            through it, gives exactly each seat's first cards, its completion cards
            (by the taker, or gambler's misère), the turned card and gambler's bottom
            card. Offsets count from each deal's dealer.
``dealer``  the first dealer is the one the published rule gives
            (:func:`belot.first_dealer`: gambler's from deal 0's deck; the other
            rulesets, seat 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from belot import deal_pattern, first_dealer
from belot.cards import to_code
from belot.events import (
    BottomCardShown,
    CardsDealt,
    ContractTaken,
    DealStarted,
    DeckSupplied,
    MatchStarted,
    MisereStarted,
)
from belot.salts import salt_count
from fairdeal.fairness import (
    DeckIssued,
    DrandBeaconVerified,
    DrandFallback,
    SeedWindowClosed,
    ServerSeedCommitted,
)
from fairdeal.recipe import DeckInputs, Drand, RecipeError, Shuffler, deal_salts
from fairdeal.record import Envelope
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

# decks ------------------------------------------------------------------------------------


def _inputs(ctx: Context) -> tuple[DeckInputs | None, str]:
    seed = ctx.server_seed()
    closed = ctx.one(SeedWindowClosed)
    verified = ctx.one(DrandBeaconVerified)
    fallback = ctx.one(DrandFallback)
    if seed is None:
        return None, "no server seed was revealed"
    if closed is None:
        return None, "the seat seeds were never shown"
    if verified is None and fallback is None:
        return None, "neither a drand value nor a fallback was recorded"
    try:
        drand = None if verified is None else Drand(verified.round, verified.randomness)
        return DeckInputs(seed, tuple(closed.seat_seeds), drand), ""
    except RecipeError as exc:
        return None, f"the recipe refuses the inputs: {exc}"


def _deck_events(ctx: Context) -> list[tuple[Envelope, DeckSupplied]]:
    return [(env, e) for env, e in ctx.decoded.match if isinstance(e, DeckSupplied)]


def check_decks(ctx: Context) -> Check:
    inputs, why = _inputs(ctx)
    if inputs is None:
        return skip_check("decks", f"cannot recompute the decks: {why}")
    if ctx.ruleset is None:
        return skip_check("decks", "cannot recompute the decks: unknown ruleset")
    size = ctx.ruleset.deck_size
    shuffler = Shuffler(inputs)
    supplied = _deck_events(ctx)
    issued = {e.deal: e for e in ctx.all(DeckIssued)}
    problems: list[Difference] = []
    decks: dict[int, tuple[int, ...]] = {}
    commit = ctx.one(ServerSeedCommitted)
    salted = commit is not None and commit.salted
    salts = salt_count(ctx.ruleset.players) if salted else 0
    for env, e in supplied:
        where = f"{where_of(env)} (deal {e.deal_number})"
        try:
            deck = tuple(shuffler.deck(e.deal_number, size))
            want = deal_salts(inputs.server_seed, e.deal_number, salts)
        except RecipeError as exc:
            problems.append(Difference(where, f"the recipe refuses deal {e.deal_number}: {exc}"))
            continue
        if tuple(e.salts) != want:
            problems.append(
                Difference(
                    where,
                    "the salts of the deal's hidden events are not the recipe's"
                    if salted
                    else "the deal's hidden events carry salts the commitment did not promise",
                    [x.hex() for x in e.salts],
                    [x.hex() for x in want],
                )
            )
        decks[e.deal_number] = deck
        if tuple(e.cards) != deck:
            at = next(
                (i for i, (a, b) in enumerate(zip(e.cards, deck, strict=False)) if a != b),
                min(len(e.cards), len(deck)),
            )
            problems.append(
                Difference(
                    where,
                    f"the deck dealt differs from the recipe's from card {at}",
                    " ".join(card_codes(list(e.cards))),
                    " ".join(card_codes(list(deck))),
                )
            )
        given = issued.get(e.deal_number)
        if given is None:
            problems.append(Difference(where, "the randomness service never issued this deck"))
        elif given.cards != size:
            problems.append(Difference(where, "issued with another size", given.cards, size))
    numbers = [e.deal_number for _, e in supplied]
    if numbers != list(range(len(numbers))):
        problems.append(
            Difference(
                "DeckSupplied",
                "deal numbers must run 0, 1, 2, ...",
                numbers,
                list(range(len(numbers))),
            )
        )
    fixed_at = max(
        (e.at_ms for e in ctx.fair if isinstance(e, DrandBeaconVerified | DrandFallback)),
        default=None,
    )
    dealt = set(numbers)
    for k, given in sorted(issued.items()):
        if k not in dealt:
            problems.append(
                Difference(
                    f"DeckIssued deal {k}",
                    "a deck went out for a deal that was never dealt: its cards were seen "
                    "and not played",
                )
            )
        if fixed_at is not None and given.at_ms < fixed_at:
            problems.append(
                Difference(
                    f"DeckIssued deal {k}",
                    "issued before the inputs were fixed",
                    given.at_ms,
                    f">= {fixed_at}",
                )
            )
    ctx.decks = decks
    drand = inputs.drand
    source = f"drand round {drand.round}" if drand else "round 0 and zeros (no drand)"
    return verdict(
        "decks",
        problems,
        f"{len(supplied)} decks recomputed from the revealed server seed, "
        f"{len(inputs.seat_seeds)} seat seeds and {source}: each equals the deck dealt"
        + (", and its salts the recipe's" if salted else " (a match made before salts)"),
        "a deck differs from the recipe's",
    )


# deals ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Deal:
    number: int
    deck: tuple[int, ...] | None = None
    started: DealStarted | None = None
    first: dict[int, list[int]] = field(default_factory=dict)
    completion: dict[int, list[int]] = field(default_factory=dict)
    taker: int | None = None
    misere: bool = False
    bottom: int | None = None


def _deals(ctx: Context) -> list[_Deal]:
    deals: list[_Deal] = []
    deal: _Deal | None = None
    completing = False
    for e in ctx.items:
        if isinstance(e, DeckSupplied):
            deal = _Deal(e.deal_number, tuple(e.cards))
            deals.append(deal)
            completing = False
        elif deal is None:
            continue
        elif isinstance(e, DealStarted):
            deal.started = e
        elif isinstance(e, CardsDealt):
            target = deal.completion if completing else deal.first
            target.setdefault(e.seat, []).extend(e.cards)
        elif isinstance(e, ContractTaken):
            deal.taker, completing = e.seat, True
        elif isinstance(e, MisereStarted):
            deal.misere, completing = True, True
        elif isinstance(e, BottomCardShown):
            deal.bottom = e.card
    return deals


def check_deals(ctx: Context) -> Check:
    if ctx.ruleset is None:
        return skip_check("deals", "unknown ruleset")
    if ctx.decks is None:
        return skip_check("deals", "the decks could not be recomputed (see decks)")
    rules = ctx.ruleset
    pattern = deal_pattern(rules)
    published = pattern.to_payload()
    problems: list[Difference] = []
    diff_json("deal_pattern", ctx.record.summary.get("deal_pattern"), published, problems)
    if problems:
        return Check(
            "deals",
            FAIL,
            "the record's deal pattern is not the ruleset's published pattern",
            tuple(problems),
        )
    n = rules.players

    def by_seat(
        indices: Sequence[Sequence[int]], deck: Sequence[int], dealer: int
    ) -> list[list[int]]:
        # Offsets count from the dealer: seat s is offset (s - dealer) mod n.
        return [[deck[i] for i in indices[(s - dealer) % n]] for s in range(n)]

    count = 0
    for d in _deals(ctx):
        deck = ctx.decks.get(d.number)
        if deck is None:
            continue
        where = f"deal {d.number}"
        if d.started is None:
            problems.append(Difference(where, "no DealStarted after the deck"))
            continue
        dealer = d.started.dealer
        if not 0 <= dealer < n:
            problems.append(Difference(where, "no such dealer seat", dealer))
            continue
        count += 1
        if d.started.turned != deck[pattern.turned]:
            problems.append(
                Difference(
                    f"{where} turned card",
                    f"deck index {pattern.turned}",
                    to_code(d.started.turned),
                    to_code(deck[pattern.turned]),
                )
            )
        first = by_seat(pattern.first, deck, dealer)
        for s in range(n):
            got = d.first.get(s, [])
            if got != first[s]:
                problems.append(
                    Difference(
                        f"{where} seat {s} first cards",
                        "not the cards the pattern gives this seat from the deck",
                        card_codes(got),
                        card_codes(first[s]),
                    )
                )
        if d.taker is not None:
            completion: list[list[int]] | None = by_seat(
                pattern.completion[(d.taker - dealer) % n], deck, dealer
            )
        elif d.misere and pattern.completion_without_taker is not None:
            completion = by_seat(pattern.completion_without_taker, deck, dealer)
        else:
            completion = None
        if completion is None:
            if d.completion:
                problems.append(
                    Difference(f"{where}", "cards dealt after bidding though nobody took")
                )
        else:
            for s in range(n):
                got = d.completion.get(s, [])
                if got != completion[s]:
                    problems.append(
                        Difference(
                            f"{where} seat {s} completion cards",
                            "not the cards the pattern gives this seat from the deck",
                            card_codes(got),
                            card_codes(completion[s]),
                        )
                    )
        if pattern.shown is not None and completion is not None:
            want = deck[pattern.shown]
            if d.bottom != want:
                problems.append(
                    Difference(
                        f"{where} bottom card",
                        f"deck index {pattern.shown}",
                        None if d.bottom is None else to_code(d.bottom),
                        to_code(want),
                    )
                )
    return verdict(
        "deals",
        problems,
        f"{count} deals: each recomputed deck, through {rules.name}'s published deal "
        "pattern, gives exactly the cards each seat was dealt",
        "a seat was dealt other cards than the deck and the pattern give",
    )


# dealer -----------------------------------------------------------------------------------


def check_dealer(ctx: Context) -> Check:
    """Who deals first follows the published rule, recomputed from deal 0's deck: the
    server knows that deck before the match starts, so a dealer it wrote would be a
    choice of who gets which hand."""
    if ctx.ruleset is None or not ctx.items or not isinstance(ctx.items[0], MatchStarted):
        return skip_check("dealer", "the match stream does not start with a known ruleset")
    started = ctx.items[0]
    pattern = deal_pattern(ctx.ruleset)
    rule = (
        "seat 0 deals first"
        if pattern.first_dealer_from is None
        else f"deal 0's card {pattern.first_dealer_from} (suit * 8 + rank) modulo "
        f"{ctx.ruleset.players}"
    )
    deck0 = next((e for e in ctx.items if isinstance(e, DeckSupplied)), None)
    if deck0 is None:
        if started.first_dealer != 0:
            return Check(
                "dealer",
                FAIL,
                "no card was dealt, yet MatchStarted names a first dealer but seat 0",
                (
                    Difference(
                        "MatchStarted.first_dealer", "no deck: seat 0", started.first_dealer, 0
                    ),
                ),
            )
        return pass_check("dealer", "no card was dealt: no dealer to choose")
    if deck0.deal_number != 0 or len(deck0.cards) != ctx.ruleset.deck_size:
        return Check("dealer", FAIL, "the first deck is not deal 0's full deck (see decks)")
    want = first_dealer(ctx.ruleset, deck0.cards)
    if started.first_dealer != want:
        return Check(
            "dealer",
            FAIL,
            f"the first dealer was seat {started.first_dealer}, but the rule ({rule}) "
            f"gives seat {want}: a dealer written after the deck was known is a choice",
            (Difference("MatchStarted.first_dealer", rule, started.first_dealer, want),),
        )
    return pass_check("dealer", f"seat {want} dealt first, as the rule gives: {rule}")
