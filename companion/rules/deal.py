"""A Clock Patience deal: 13 piles of four face-down cards.

Piles are numbered 1..12 (clock hours) and 13 (the centre); each pile is
listed top card first (the card turned first). The oracle file's deal order
is also accepted: ``deal_order[k]`` lands face down on pile ``k % 13 + 1``,
later cards on top, so the first card turned is ``deal_order[51]``.

>>> d = Deal.from_order(FULL_DECK)
>>> [str(c) for c in d.pile(13)]
['KS', 'TH', '7D', '4C']
>>> Deal.parse_piles(d.format_piles()) == d
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..cards import FULL_DECK, PILES, Card, CardParseError, parse_cards
from .errors import DealError

__all__ = ["Deal"]


@dataclass(frozen=True)
class Deal:
    """Thirteen piles of four cards, top first; ``piles[0]`` is pile 1, ``piles[12]`` the centre."""

    piles: tuple[tuple[Card, ...], ...]

    def __post_init__(self) -> None:
        if len(self.piles) != 13:
            raise DealError(f"a deal has 13 piles, got {len(self.piles)}")
        for p, pile in enumerate(self.piles, start=1):
            if len(pile) != 4:
                raise DealError(f"pile {p} has {len(pile)} cards, need 4")
        seen: dict[Card, int] = {}
        for p, pile in enumerate(self.piles, start=1):
            for card in pile:
                if card in seen:
                    raise DealError(f"duplicate card {card} (piles {seen[card]} and {p})")
                seen[card] = p

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_piles(cls, piles: Mapping[int | str, Sequence[Card | str]] | Sequence[Sequence[Card | str]]) -> "Deal":
        """From ``{1: [top, ..., bottom], ..., 13: [...]}`` or a list of 13 lists (pile 1 first)."""
        if isinstance(piles, Mapping):
            keys = {int(k) for k in piles}
            if keys != set(PILES):
                missing = sorted(set(PILES) - keys)
                extra = sorted(keys - set(PILES))
                raise DealError(f"piles must be numbered 1..13 (missing {missing}, unexpected {extra})")
            ordered = [piles[k] if k in piles else piles[str(k)] for k in PILES]  # type: ignore[index]
        else:
            ordered = list(piles)
        try:
            return cls(tuple(tuple(parse_cards(p)) for p in ordered))
        except CardParseError as exc:
            raise DealError(str(exc)) from None

    @classmethod
    def from_order(cls, order: Sequence[Card | str] | str) -> "Deal":
        """From a 52-card deal order (the oracle file's convention)."""
        try:
            cards = parse_cards(order)
        except CardParseError as exc:
            raise DealError(str(exc)) from None
        if len(cards) != 52:
            raise DealError(f"a deal order has 52 cards, got {len(cards)}")
        piles = []
        for p in PILES:
            piles.append((cards[38 + p], cards[25 + p], cards[12 + p], cards[p - 1]))
        return cls(tuple(piles))

    @classmethod
    def parse_piles(cls, text: str) -> "Deal":
        """Parse ``"2C 2D 2H 2S|3C 3D 3H 3S|..."``: 13 groups, piles 1..12 then 13, top first."""
        groups = text.split("|")
        if len(groups) != 13:
            raise DealError(f"PILES needs 13 groups separated by '|', got {len(groups)}")
        return cls.from_piles([g.split() for g in groups])

    @classmethod
    def random(cls, rng: random.Random | int | None = None) -> "Deal":
        """A uniformly random deal (``random.Random(seed).shuffle`` of the full deck, as the oracles)."""
        if not isinstance(rng, random.Random):
            rng = random.Random(rng)
        cards = list(FULL_DECK)
        rng.shuffle(cards)
        return cls.from_order(cards)

    # -- views --------------------------------------------------------------------------
    def pile(self, p: int) -> tuple[Card, ...]:
        """Pile ``p`` (1..13), top card first."""
        return self.piles[p - 1]

    @property
    def order(self) -> list[Card]:
        """The 52-card deal order that deals this layout."""
        out: list[Card] = [None] * 52  # type: ignore[list-item]
        for p in PILES:
            top, second, third, bottom = self.pile(p)
            out[38 + p], out[25 + p], out[12 + p], out[p - 1] = top, second, third, bottom
        return out

    def format_piles(self) -> str:
        """The ``PILES`` text form (inverse of :meth:`parse_piles`)."""
        return "|".join(" ".join(str(c) for c in pile) for pile in self.piles)

    def to_json(self) -> dict[str, list[str]]:
        return {str(p): [str(c) for c in self.pile(p)] for p in PILES}

    def cards(self) -> Iterable[Card]:
        for pile in self.piles:
            yield from pile
