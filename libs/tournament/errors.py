"""What the tournament rules refuse: one base class, one subclass per reason.

Every error has a stable snake_case ``code`` (the service answers with it) and a message
in plain words saying which rule was broken.
"""

from __future__ import annotations

from typing import ClassVar


class TournamentError(ValueError):
    """A command the tournament rules refuse."""

    code: ClassVar[str] = "tournament_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadSettings(TournamentError):
    code = "bad_settings"


class TournamentExists(TournamentError):
    code = "tournament_exists"


class UnknownTournament(TournamentError):
    code = "unknown_tournament"


class RegistrationClosed(TournamentError):
    code = "registration_closed"


class AlreadyEntered(TournamentError):
    code = "already_entered"


class NotEntered(TournamentError):
    code = "not_entered"


class TournamentFull(TournamentError):
    code = "tournament_full"


class RatingOutOfBand(TournamentError):
    code = "rating_out_of_band"


class NotEnoughEntrants(TournamentError):
    code = "not_enough_entrants"


class OddPlayersForTeams(TournamentError):
    code = "odd_players_for_teams"


class BadSeeding(TournamentError):
    code = "bad_seeding"


class DrawNamed(TournamentError):
    """The draw's round is named: the field and the numbers are fixed, and there is no
    second naming (a second would be a second draw to choose from)."""

    code = "draw_named"


class DrawPending(TournamentError):
    """The draw waits for its named round's value."""

    code = "draw_pending"


class DrawNotNamed(TournamentError):
    code = "draw_not_named"


class WrongDrawRound(TournamentError):
    code = "wrong_draw_round"


class NotStarted(TournamentError):
    code = "not_started"


class AlreadyStarted(TournamentError):
    code = "already_started"


class AlreadyFinished(TournamentError):
    code = "already_finished"


class WrongFormat(TournamentError):
    code = "wrong_format"


class WrongRound(TournamentError):
    code = "wrong_round"


class RoundInProgress(TournamentError):
    code = "round_in_progress"


class UnknownMatch(TournamentError):
    code = "unknown_match"


class MatchDecided(TournamentError):
    code = "match_decided"


class BadResult(TournamentError):
    code = "bad_result"


class ResultConflict(TournamentError):
    code = "result_conflict"


class CorrectionTooLate(TournamentError):
    code = "correction_too_late"


class NotInPlay(TournamentError):
    code = "not_in_play"


class SeatWindowOpen(TournamentError):
    code = "seat_window_open"


class NoValidPairing(TournamentError):
    code = "no_valid_pairing"


class BadPayload(TournamentError):
    code = "bad_payload"


class UnknownEvent(TournamentError):
    code = "unknown_event"
