"""Playing cards: ranks, suits and cards with round-trip text forms.

Short codes are the oracle file's (``7H``, ``TC`` = ten of clubs); ``10H``,
suit symbols (``7♥``) and words (``seven of hearts``) are accepted too.

>>> Card.parse("10h")
Card('TH')
>>> str(Card.parse("seven of hearts")), Card.parse("7♥").name
('7H', 'seven of hearts')
>>> Card.parse("QS").home_pile, Card.parse("KD").home_pile
(12, 13)
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

__all__ = [
    "Rank",
    "Suit",
    "Card",
    "CardParseError",
    "FULL_DECK",
    "CENTRE",
    "CLOCK_PILES",
    "PILES",
    "parse_cards",
]

#: Pile numbers: 1..12 are the clock hours, 13 is the centre (kings).
CENTRE = 13
CLOCK_PILES = tuple(range(1, 13))
PILES = tuple(range(1, 14))


class CardParseError(ValueError):
    """A card, rank or suit text that cannot be read."""


class Rank(enum.IntEnum):
    """Card rank; its value is also its home pile (A=1 ... Q=12, K=13 = centre)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def code(self) -> str:
        """One-letter code: ``A 2 .. 9 T J Q K``."""
        return _RANK_CODES[self.value - 1]

    @property
    def label(self) -> str:
        """Printed index: ``A 2 .. 10 J Q K``."""
        return "10" if self is Rank.TEN else self.code

    @property
    def word(self) -> str:
        return _RANK_WORDS[self.value - 1]

    @property
    def home_pile(self) -> int:
        """The pile a face-up card of this rank goes beneath (kings: 13, the centre)."""
        return self.value

    @classmethod
    def parse(cls, text: str) -> "Rank":
        """Parse ``A``, ``1``, ``T``, ``10``, ``ten``, ``queen``... (any case).

        >>> Rank.parse("10"), Rank.parse("t"), Rank.parse("Jack")
        (<Rank.TEN: 10>, <Rank.TEN: 10>, <Rank.JACK: 11>)
        """
        key = text.strip().lower()
        try:
            return _RANK_LOOKUP[key]
        except KeyError:
            raise CardParseError(f"unknown rank {text!r} (use A 2-10 T J Q K)") from None


class Suit(enum.Enum):
    """Card suit, in the oracle file's order C, D, H, S."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def code(self) -> str:
        return self.value

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self.value]

    @property
    def word(self) -> str:
        return self.name.lower()

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @classmethod
    def parse(cls, text: str) -> "Suit":
        """Parse ``H``, ``♥``, ``♡``, ``hearts``, ``heart`` (any case).

        >>> Suit.parse("♠"), Suit.parse("Diamonds")
        (<Suit.SPADES: 'S'>, <Suit.DIAMONDS: 'D'>)
        """
        key = text.strip().lower()
        try:
            return _SUIT_LOOKUP[key]
        except KeyError:
            raise CardParseError(f"unknown suit {text!r} (use C D H S)") from None


_RANK_CODES = "A23456789TJQK"
_RANK_WORDS = (
    "ace two three four five six seven eight nine ten jack queen king".split()
)
_RANK_LOOKUP: dict[str, Rank] = {}
for _r in Rank:
    _RANK_LOOKUP[_r.code.lower()] = _r
    _RANK_LOOKUP[_r.word] = _r
    _RANK_LOOKUP[str(_r.value)] = _r
_RANK_LOOKUP.pop("11")
_RANK_LOOKUP.pop("12")
_RANK_LOOKUP.pop("13")
_RANK_LOOKUP["1"] = Rank.ACE

_SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
_SUIT_LOOKUP: dict[str, Suit] = {}
for _s in Suit:
    _SUIT_LOOKUP[_s.code.lower()] = _s
    _SUIT_LOOKUP[_s.word] = _s
    _SUIT_LOOKUP[_s.word[:-1]] = _s
    _SUIT_LOOKUP[_s.symbol] = _s
for _sym, _code in {"♧": "C", "♢": "D", "♡": "H", "♤": "S"}.items():
    _SUIT_LOOKUP[_sym] = Suit(_code)

_WORDS_RE = re.compile(r"^\s*(\w+)\s+of\s+(\w+)\s*$", re.IGNORECASE)


@functools.total_ordering
@dataclass(frozen=True)
class Card:
    """An immutable playing card. ``str(card)`` is its short code (``TH``)."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Parse ``7H``, ``10H``, ``TH``, ``7♥``, ``seven of hearts`` (any case).

        >>> Card.parse("Ace of Spades"), Card.parse(" q♦ ")
        (Card('AS'), Card('QD'))
        """
        if not isinstance(text, str):
            raise CardParseError(f"not a card: {text!r}")
        m = _WORDS_RE.match(text)
        if m:
            return cls(Rank.parse(m.group(1)), Suit.parse(m.group(2)))
        t = text.strip()
        if len(t) < 2:
            raise CardParseError(f"not a card: {text!r} (write e.g. 7H, 10H, TH, 7♥)")
        rank_text, suit_text = t[:-1], t[-1]
        try:
            return cls(Rank.parse(rank_text), Suit.parse(suit_text))
        except CardParseError as exc:
            raise CardParseError(f"not a card: {text!r}: {exc}") from None

    @classmethod
    def from_index(cls, index: int) -> "Card":
        """Card number ``index`` in :data:`FULL_DECK` order (AC AD AH AS 2C ... KS)."""
        return FULL_DECK[index]

    @property
    def index(self) -> int:
        """Position in :data:`FULL_DECK` (0..51)."""
        return (self.rank.value - 1) * 4 + _SUIT_ORDER[self.suit]

    @property
    def code(self) -> str:
        return self.rank.code + self.suit.code

    @property
    def label(self) -> str:
        """As printed on the card: ``10♥``."""
        return self.rank.label + self.suit.symbol

    @property
    def name(self) -> str:
        return f"{self.rank.word} of {self.suit.word}"

    @property
    def home_pile(self) -> int:
        return self.rank.home_pile

    @property
    def is_king(self) -> bool:
        return self.rank is Rank.KING

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __lt__(self, other: object) -> bool:
        """Cards sort in :data:`FULL_DECK` order."""
        if not isinstance(other, Card):
            return NotImplemented
        return self.index < other.index


_SUIT_ORDER = {s: i for i, s in enumerate(Suit)}

#: The 52 cards, ranks A..K x suits C, D, H, S: ``AC AD AH AS 2C ... KS`` (the oracle file's FULL_DECK,
#: so ``random.Random(seed).shuffle`` of it reproduces the oracle's seeded deals).
FULL_DECK: tuple[Card, ...] = tuple(Card(r, s) for r in Rank for s in Suit)


def parse_cards(items: str | Iterable[str | Card]) -> list[Card]:
    """Parse a whitespace/comma separated string or an iterable of card texts.

    >>> parse_cards("7H, TC 10s")
    [Card('7H'), Card('TC'), Card('TS')]
    """
    if isinstance(items, str):
        parts: Iterator[str | Card] = iter(t for t in re.split(r"[\s,]+", items) if t)
    else:
        parts = iter(items)
    return [c if isinstance(c, Card) else Card.parse(c) for c in parts]
