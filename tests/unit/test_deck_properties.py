"""Properties of the deck recipe, over inputs hypothesis chooses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from belot.cards import FULL_DECK, SHORT_DECK, rank_of
from fairdeal import DeckInputs, Drand, Shuffler, deck
from tools.reference_recipe import shuffle

server_seeds = st.binary(min_size=32, max_size=32)
seat_seed = st.one_of(st.just(b""), st.binary(min_size=16, max_size=16))
seat_lists = st.lists(seat_seed, min_size=1, max_size=6)
deals = st.integers(min_value=0, max_value=2**32 - 1)
drands = st.one_of(
    st.none(),
    st.builds(Drand, st.integers(0, 2**64 - 1), st.binary(min_size=32, max_size=32)),
)
sizes = st.sampled_from([32, 24])


@given(server_seeds, seat_lists, deals, drands, sizes)
def test_every_deck_is_a_permutation_of_the_right_cards(s, seats, k, drand, cards) -> None:
    d = deck(s, seats, k, drand, cards)
    assert sorted(d) == sorted(FULL_DECK if cards == 32 else SHORT_DECK)


@given(server_seeds, seat_lists, deals, drands)
def test_short_deck_is_the_full_deck_without_sevens_and_eights(s, seats, k, drand) -> None:
    full = deck(s, seats, k, drand, 32)
    assert deck(s, seats, k, drand, 24) == tuple(c for c in full if rank_of(c) >= 2)


@given(server_seeds, seat_lists, deals, drands, sizes)
def test_same_inputs_same_deck(s, seats, k, drand, cards) -> None:
    assert deck(s, seats, k, drand, cards) == deck(bytes(s), list(seats), k, drand, cards)


@settings(max_examples=300)
@given(server_seeds, seat_lists, deals, drands)
def test_matches_the_plain_transcription(s, seats, k, drand) -> None:
    rnd, value = (drand.round, drand.value) if drand else (0, bytes(32))
    want = shuffle(s, seats, k, rnd, value)["deck"]
    assert [FULL_DECK[c] for c in deck(s, seats, k, drand)] == [
        "789TJQKA".index(c[0]) + 8 * "CDHS".index(c[1]) for c in want
    ]


def _flip(b: bytes, bit: int) -> bytes:
    return bytes(x ^ (1 << (bit % 8)) if i == (bit // 8) % len(b) else x for i, x in enumerate(b))


@given(server_seeds, seat_lists, deals, drands, st.data())
def test_any_change_of_input_changes_the_deck(s, seats, k, drand, data) -> None:
    base = deck(s, seats, k, drand)
    which = data.draw(
        st.sampled_from(["server", "seat", "seat-len", "deal", "round", "value", "count"])
    )
    if which == "server":
        changed = deck(_flip(s, data.draw(st.integers(0, 255))), seats, k, drand)
    elif which == "seat":
        n = data.draw(st.integers(0, len(seats) - 1))
        if not seats[n]:
            seats2 = [*seats]
            seats2[n] = data.draw(st.binary(min_size=16, max_size=16))
        else:
            seats2 = [*seats]
            seats2[n] = _flip(seats[n], data.draw(st.integers(0, 127)))
        changed = deck(s, seats2, k, drand)
    elif which == "seat-len":
        changed = deck(s, [*seats, b""], k, drand)
    elif which == "deal":
        changed = deck(s, seats, (k + data.draw(st.integers(1, 1000))) % 2**32, drand)
    elif which == "round":
        d2 = Drand(((drand.round if drand else 0) + 1) % 2**64, drand.value if drand else bytes(32))
        changed = deck(s, seats, k, d2)
    elif which == "value":
        v = drand.value if drand else bytes(32)
        changed = deck(
            s,
            seats,
            k,
            Drand(drand.round if drand else 0, _flip(v, data.draw(st.integers(0, 255)))),
        )
    else:
        changed = deck(s, seats[:-1] or [b"", b""], k, drand)
    # A different HMAC key or message gives an unrelated stream: the chance that two
    # such streams give the same permutation is 1/32!, about 4e-36.
    assert changed != base


def test_no_drand_is_round_zero_and_zero_value() -> None:
    s, seats = bytes(range(32)), (bytes(16), b"")
    assert Shuffler(DeckInputs(s, seats)).deck(3) == Shuffler(
        DeckInputs(s, seats, Drand(0, bytes(32)))
    ).deck(3)
