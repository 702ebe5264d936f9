"""Four prepared lessons: a deal plus moves already played, built with the rules engine.

1. a king goes under the centre and play continues there;
2. the fourth king ends the game (even with cards still face down);
3. a card of the pile's own rank goes beneath its own pile (a self-loop);
4. 51 cards already sorted: turn the last one and see a winning ending.

>>> [lesson.number for lesson in LESSONS]
[1, 2, 3, 4]
>>> game = LESSONS[0].start()
>>> game.peek()
Move(card=Card('KH'), from_pile=9, to_pile=13)
>>> LESSONS[3].start().face_up_count
51
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from ..cards import CENTRE, FULL_DECK, PILES, Card
from ..rules.deal import Deal
from ..rules.game import ClockGame, Move
from .commands import LESSON_COUNT

__all__ = ["Lesson", "LESSONS", "get_lesson"]


@dataclass(frozen=True)
class Lesson:
    """A prepared position: ``deal`` with its first ``premoves`` moves already played.

    ``reached(move, game)`` is true once the lesson's point has been seen; ``praise``
    is then shown once.
    """

    number: int
    title: str
    intro: tuple[str, ...]
    deal: Deal
    premoves: int
    reached: Callable[[Move, ClockGame], bool] = field(compare=False)
    praise: str = ""
    praise_watch: str = ""  # instead of ``praise`` in the Watch game, when it differs

    def start(self, variant: str = "standard") -> ClockGame:
        game = ClockGame(self.deal, variant)  # type: ignore[arg-type]
        for _ in range(self.premoves):
            game.turn()
        return game


def _deal_with(tops: dict[int, list[str]], seed: int) -> Deal:
    """A deal whose piles start (top first) with the given cards; the rest is shuffled in."""
    fixed = {p: [Card.parse(c) for c in cards] for p, cards in tops.items()}
    used = {c for cards in fixed.values() for c in cards}
    rest = [c for c in FULL_DECK if c not in used]
    random.Random(seed).shuffle(rest)
    piles = []
    for p in PILES:
        pile = list(fixed.get(p, []))
        while len(pile) < 4:
            pile.append(rest.pop())
        piles.append(pile)
    return Deal.from_piles(piles)


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        1,
        "Kings go under the centre",
        (
            "Kings have no hour on the clock: a king goes under the CENTRE (c),",
            "and then you turn the next card from the centre. Turn the card at 9.",
        ),
        _deal_with({13: ["5C", "7S"], 5: ["9D"], 9: ["KH"]}, seed=1),
        premoves=2,
        reached=lambda move, game: move.card.is_king and not game.is_over(),
        praise="Well done: the king went under the centre, so play goes on from the centre.",
    ),
    Lesson(
        2,
        "The fourth king ends the game",
        (
            "Three kings are already up. When the FOURTH king comes up the game",
            "ends at once, even if cards are still face down. Play on and see.",
        ),
        _deal_with({13: ["3C", "8H", "QS", "2D"], 3: ["KD"], 8: ["KC"], 12: ["KH"], 2: ["KS"]}, seed=2),
        premoves=6,
        reached=lambda move, game: game.kings_up == 4,
        praise="That was the fourth king: the game stops there, face-down cards and all.",
        praise_watch="That was the fourth king: a standard game would stop here.",
    ),
    Lesson(
        3,
        "A card can come home to its own pile",
        (
            "Sometimes the card you turn belongs to the pile it came from: a 4 from",
            "4 o'clock. Put it beneath 4, then turn the next card of 4 again.",
        ),
        _deal_with({13: ["10D"], 10: ["4H"], 4: ["4S", "JC"]}, seed=3),
        premoves=2,
        reached=lambda move, game: move.from_pile == move.to_pile,
        praise="Right: the 4♠ went home to its own pile, so you turn from 4 o'clock again.",
    ),
    Lesson(
        4,
        "How a game is won",
        (
            "51 cards are sorted and one is left face down. Turn it, put it home,",
            "and see what happens when every card is face up.",
        ),
        Deal.parse_piles(
            "6D 7H TD 2C|5H JD 4C 5D|KS 7C JH 2D|6S 9H JC 7D|2S 6C AC KH|6H 8S 9C 3C|KC 3S TC AD"
            "|3D 8D 2H 5C|9D QS JS QD|3H QH 9S 5S|4S 7S TS KD|8C 4D TH 8H|QC 4H AS AH"
        ),
        premoves=51,
        reached=lambda move, game: game.is_over() and game.face_down_count == 0,
        praise="All 52 cards are face up: that is a win! The last card is always the fourth king.",
    ),
)

assert len(LESSONS) == LESSON_COUNT and all(lesson.number == i for i, lesson in enumerate(LESSONS, 1))
assert CENTRE == 13


def get_lesson(number: int) -> Lesson:
    """Lesson ``number`` (1..4); ``ValueError`` with a one-line message otherwise."""
    if not 1 <= number <= len(LESSONS):
        raise ValueError(f"there is no lesson {number} (lessons are 1 to {len(LESSONS)})")
    return LESSONS[number - 1]
