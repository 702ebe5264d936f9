"""Observation events: what the camera (or a test) reports about the table.

The list forms are the oracle file's, so streams are plain JSON:

================================  ==================================================
``["turn", p]``                   a card is taken from pile p (its top card)
``["turn", p, "not_top"]``        a card is taken from pile p, not its top card
``["see", "7H"]``                 the face of the card in hand is read
``["place", p, "under"|"top"]``   the card in hand is put face up beneath / on top of p
``["move", "7H", p, side]``       a face-up card is moved to pile p (a correction)
``["return", p]``                 the card in hand is put back face down on top of p
``["exchange", p]``               Watch: the fourth king swapped for a face-down card of p
``["declare", "win"|"loss"]``     the player announces the end
================================  ==================================================

>>> Event.parse("place 7 under")
Event(kind='place', pile=7, card=None, side='under', not_top=False, claim=None)
>>> Event.from_list(["move", "7H", 7, "under"]).to_list()
['move', '7H', 7, 'under']
>>> str(Event.from_list(["turn", 1, "not_top"]))
'turn 1 not_top'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..cards import PILES, Card, CardParseError
from .errors import EventError

__all__ = ["Event", "EVENT_KINDS", "SIDES"]

EVENT_KINDS = ("turn", "see", "place", "move", "return", "exchange", "declare")
SIDES = ("under", "top")


@dataclass(frozen=True)
class Event:
    """One observation. Only the fields its ``kind`` uses are set."""

    kind: str
    pile: int | None = None
    card: Card | None = None
    side: str | None = None
    not_top: bool = False
    claim: str | None = None  # declare: "win" | "loss"

    # -- constructors -----------------------------------------------------------------
    @classmethod
    def turn(cls, pile: int, not_top: bool = False) -> "Event":
        return cls("turn", pile=pile, not_top=not_top)

    @classmethod
    def see(cls, card: Card | str) -> "Event":
        return cls("see", card=_card(card))

    @classmethod
    def place(cls, pile: int, side: str = "under") -> "Event":
        return cls("place", pile=pile, side=side)

    @classmethod
    def move(cls, card: Card | str, pile: int, side: str = "under") -> "Event":
        return cls("move", pile=pile, card=_card(card), side=side)

    @classmethod
    def return_(cls, pile: int) -> "Event":
        return cls("return", pile=pile)

    @classmethod
    def exchange(cls, pile: int) -> "Event":
        return cls("exchange", pile=pile)

    @classmethod
    def declare(cls, claim: str) -> "Event":
        return cls("declare", claim=claim)

    # -- forms ------------------------------------------------------------------------
    @classmethod
    def from_list(cls, item: Sequence[Any] | "Event") -> "Event":
        """Read the JSON list form; raises :class:`EventError` with the reason."""
        if isinstance(item, Event):
            return item
        if not isinstance(item, (list, tuple)) or not item or not isinstance(item[0], str):
            raise EventError(f"an event is a list starting with its kind, got {item!r}")
        kind, args = item[0].lower(), list(item[1:])
        try:
            if kind == "turn":
                if len(args) == 1:
                    return cls.turn(_pile(args[0]))
                if len(args) == 2 and args[1] == "not_top":
                    return cls.turn(_pile(args[0]), not_top=True)
            elif kind == "see" and len(args) == 1:
                return cls.see(args[0])
            elif kind == "place" and len(args) == 2:
                return cls.place(_pile(args[0]), _side(args[1]))
            elif kind == "move" and len(args) == 3:
                return cls.move(args[0], _pile(args[1]), _side(args[2]))
            elif kind == "return" and len(args) == 1:
                return cls.return_(_pile(args[0]))
            elif kind == "exchange" and len(args) == 1:
                return cls.exchange(_pile(args[0]))
            elif kind == "declare" and len(args) == 1 and args[0] in ("win", "loss"):
                return cls.declare(args[0])
            elif kind not in EVENT_KINDS:
                raise EventError(f"unknown event kind {item[0]!r} (one of {', '.join(EVENT_KINDS)})")
        except CardParseError as exc:
            raise EventError(f"bad event {list(item)!r}: {exc}") from None
        raise EventError(f"bad event {list(item)!r}: see the event formats in the README")

    @classmethod
    def parse(cls, text: str) -> "Event":
        """Read the text form ``turn 13``, ``see 7H``, ``place 7 under``..."""
        parts = text.split()
        conv: list[Any] = []
        for p in parts:
            conv.append(int(p) if p.isdigit() else p)
        if len(conv) > 1 and conv[0] in ("see", "move"):
            conv[1] = parts[1]
        return cls.from_list(conv)

    def to_list(self) -> list[Any]:
        if self.kind == "turn":
            return ["turn", self.pile, "not_top"] if self.not_top else ["turn", self.pile]
        if self.kind == "see":
            return ["see", str(self.card)]
        if self.kind == "place":
            return ["place", self.pile, self.side]
        if self.kind == "move":
            return ["move", str(self.card), self.pile, self.side]
        if self.kind in ("return", "exchange"):
            return [self.kind, self.pile]
        return ["declare", self.claim]

    def __str__(self) -> str:
        return " ".join(str(x) for x in self.to_list())


def _card(card: Card | str) -> Card:
    return card if isinstance(card, Card) else Card.parse(str(card))


def _pile(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise EventError(f"not a pile number: {value!r}")
    try:
        p = int(value)
    except ValueError:
        raise EventError(f"not a pile number: {value!r}") from None
    if p not in PILES:
        raise EventError(f"no pile {p} (piles are 1..12 and 13 = centre)")
    return p


def _side(value: Any) -> str:
    if value not in SIDES:
        raise EventError(f"side must be 'under' or 'top', got {value!r}")
    return str(value)
