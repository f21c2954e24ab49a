"""Fair deal: the server-seed commitment, the exact deck recipe (docs/specification.md §6)
and the salts of a deal's hidden events.

Pure functions and values, standard library only, no I/O.
"""

from fairdeal.recipe import (
    DECK_SIZES,
    DRAND_VALUE_SIZE,
    MAX_DEAL,
    MAX_ROUND,
    MAX_SEATS,
    SEAT_SEED_SIZE,
    SERVER_SEED_SIZE,
    DealNumberError,
    DeckInputs,
    DeckSizeError,
    Drand,
    DrandError,
    RecipeError,
    SeatCountError,
    SeatSeedError,
    ServerSeedError,
    Shuffler,
    commitment,
    deal_salts,
    deck,
)

__all__ = [
    "DECK_SIZES",
    "DRAND_VALUE_SIZE",
    "MAX_DEAL",
    "MAX_ROUND",
    "MAX_SEATS",
    "SEAT_SEED_SIZE",
    "SERVER_SEED_SIZE",
    "DealNumberError",
    "DeckInputs",
    "DeckSizeError",
    "Drand",
    "DrandError",
    "RecipeError",
    "SeatCountError",
    "SeatSeedError",
    "ServerSeedError",
    "Shuffler",
    "commitment",
    "deal_salts",
    "deck",
]
