"""Errors of the rules core; each says what is wrong in one line."""

from __future__ import annotations

__all__ = ["RulesError", "DealError", "IllegalMoveError", "GameOverError", "EmptyPileError", "ExchangeError", "EventError"]


class RulesError(Exception):
    """Base class of every rules-core error."""


class DealError(RulesError, ValueError):
    """A deal that is not 13 piles of 4 distinct cards."""


class IllegalMoveError(RulesError, ValueError):
    """A move the rules do not allow at this point (the message gives the right one)."""


class GameOverError(IllegalMoveError):
    """Play asked for after the game ended."""


class ExchangeError(IllegalMoveError):
    """A Watch exchange that is not allowed here."""


class EmptyPileError(RulesError):
    """Play was directed to a pile with no face-down card.

    The 'continue clockwise from an empty pile' house rule would apply here; it is
    proved unreachable (see ``shared/rules/README.md``), so reaching it is a bug.
    """


class EventError(RulesError, ValueError):
    """An observation event that cannot be read."""
