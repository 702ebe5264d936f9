"""The rules core: pure Python, no OpenCV, no I/O.

``Deal`` and ``ClockGame`` are the exact game (every card known); ``Referee``
judges observed play where cards are known only once seen (the camera case).
"""

from .deal import Deal
from .errors import (
    DealError,
    EmptyPileError,
    EventError,
    ExchangeError,
    GameOverError,
    IllegalMoveError,
    RulesError,
)
from .game import VARIANTS, ClockGame, Exchange, Move, Outcome

__all__ = [
    "Deal", "ClockGame", "Move", "Exchange", "Outcome", "VARIANTS",
    "RulesError", "DealError", "IllegalMoveError", "GameOverError", "EmptyPileError",
    "ExchangeError", "EventError",
]
