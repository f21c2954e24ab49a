"""Why a command is refused: one base class, one subclass per rule, each with a stable
snake_case ``code`` (what services answer over the wire), a plain-words message, and
where a client needs them to say the refusal in its player's language, the facts as
``details`` (an illegal card's rule, the suit led, the cards allowed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar


class RulesError(ValueError):
    """A command the rules refuse. ``decide`` raises these and appends nothing."""

    code: ClassVar[str] = "rules_error"

    def __init__(self, message: str, *, details: Mapping[str, object] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: Mapping[str, object] | None = details


class MatchOver(RulesError):
    """The match has ended; nothing more can be done in it."""

    code = "match_over"


class UnknownSeat(RulesError):
    """No such seat at this table."""

    code = "unknown_seat"


class NotExpected(RulesError):
    """The command does not fit the phase (a card during bidding, a deck mid-deal, ...)."""

    code = "not_expected"


class NotYourTurn(RulesError):
    """Another seat is due to act."""

    code = "not_your_turn"


class WrongDeck(RulesError):
    """A deck for another deal number, or not a permutation of the ruleset's cards."""

    code = "wrong_deck"


class BidNotAllowed(RulesError):
    """A call the bidding round does not offer (the turned suit in round two, a pass by
    a forced dealer, a contract the ruleset does not have, ...)."""

    code = "bid_not_allowed"


class CardNotInHand(RulesError):
    """The seat does not hold that card."""

    code = "card_not_in_hand"


class IllegalCard(RulesError):
    """The seat holds the card but the rules of the trick forbid it now."""

    code = "illegal_card"


class BeloteNotAllowed(RulesError):
    """Belote announced with a card that does not qualify."""

    code = "belote_not_allowed"


class MeldNotAllowed(RulesError):
    """A meld declaration out of time, twice, with nothing to declare, or without melds."""

    code = "meld_not_allowed"


class SwapNotAllowed(RulesError):
    """Swapping the trump seven when the rules or the seat's cards do not allow it."""

    code = "swap_not_allowed"


class RedealNotAllowed(RulesError):
    """Demanding a redeal without four 7s or four 8s, after one's first card, or in a
    ruleset without that right."""

    code = "redeal_not_allowed"


class BadEvent(RulesError):
    """An event that does not follow from the state (a corrupt or reordered log)."""

    code = "bad_event"
