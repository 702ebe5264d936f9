"""The exact rules of Clock Patience, and the Watch variant.

The engine knows every card (it is given the deal). It is pure Python: no
OpenCV, no I/O, so the referee, the simulator, the trainer and the tests all
share one definition of the game.

>>> from companion.rules import Deal, ClockGame
>>> game = ClockGame(Deal.parse_piles("|".join(
...     " ".join(r + s for s in "CDHS") for r in "23456789TJQKA")))
>>> game.turn()
Move(card=Card('AC'), from_pile=13, to_pile=1)
>>> game.play().won, game.outcome()
(True, Outcome(won=True, face_up=52, last_card=Card('KS'), variant='standard', exchanged=None))
>>> _ = game.pop(); game.face_up_count
51
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..cards import CENTRE, PILES, Card
from .deal import Deal
from .errors import EmptyPileError, ExchangeError, GameOverError, IllegalMoveError

__all__ = ["Move", "Exchange", "Outcome", "ClockGame", "Variant", "VARIANTS"]

Variant = Literal["standard", "watch"]
VARIANTS: tuple[str, ...] = ("standard", "watch")


@dataclass(frozen=True)
class Move:
    """One card turned face up: taken from ``from_pile``, put beneath ``to_pile``.

    Text form ``"7H 13>7"``; list form ``["7H", 13, 7]`` as in the oracle file.

    >>> Move.parse("7H 13>7") == Move.from_list(["7H", 13, 7])
    True
    >>> str(Move.parse("7H 13>7"))
    '7H 13>7'
    """

    card: Card
    from_pile: int
    to_pile: int

    def __str__(self) -> str:
        return f"{self.card} {self.from_pile}>{self.to_pile}"

    def to_list(self) -> list:
        return [str(self.card), self.from_pile, self.to_pile]

    @classmethod
    def from_list(cls, item: list | tuple) -> "Move":
        card, src, dst = item
        return cls(Card.parse(card) if isinstance(card, str) else card, int(src), int(dst))

    @classmethod
    def parse(cls, text: str) -> "Move":
        try:
            card, piles = text.split()
            src, dst = piles.split(">")
            return cls(Card.parse(card), int(src), int(dst))
        except ValueError:
            raise IllegalMoveError(f"not a move: {text!r} (write e.g. '7H 13>7')") from None


@dataclass(frozen=True)
class Exchange:
    """Watch: the fourth king swapped for the face-down card at ``depth`` (0 = top) of ``pile``."""

    pile: int
    depth: int

    def __str__(self) -> str:
        return f"{self.pile}:{self.depth}"

    @classmethod
    def parse(cls, text: str) -> "Exchange":
        """Parse ``PILE:DEPTH`` (``7:0`` = top face-down card of 7 o'clock).

        >>> Exchange.parse("7:0")
        Exchange(pile=7, depth=0)
        """
        try:
            pile, depth = (int(x) for x in text.split(":"))
        except ValueError:
            raise ExchangeError(f"not an exchange: {text!r} (write PILE:DEPTH, e.g. 7:0)") from None
        if pile not in PILES or depth < 0:
            raise ExchangeError(f"not an exchange: {text!r} (pile 1..13, depth 0 or more)")
        return cls(pile, depth)


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``face_up`` is the progress record (4..52)."""

    won: bool
    face_up: int
    last_card: Card
    variant: str = "standard"
    exchanged: Exchange | None = None

    def to_json(self) -> dict:
        return {"won": self.won, "face_up": self.face_up, "last_card": str(self.last_card)}


@dataclass
class _Undo:
    kind: str  # "turn" | "exchange"
    move: Move | None = None
    exchange: Exchange | None = None
    king: Card | None = None
    taken: Card | None = None
    prev_current: int = CENTRE
    prev_pending: tuple[Card, int] | None = None


class ClockGame:
    """A game in progress, with every card known.

    ``face_down[p]`` lists pile p's face-down cards top first; ``face_up[p]`` its
    face-up cards in the order they were put beneath it. ``current_pile`` is the
    pile the next card comes from.
    """

    def __init__(self, deal: Deal, variant: Variant = "standard") -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r} (use {' or '.join(VARIANTS)})")
        self.deal = deal
        self.variant: str = variant
        self.face_down: dict[int, list[Card]] = {p: list(deal.pile(p)) for p in PILES}
        self.face_up: dict[int, list[Card]] = {p: [] for p in PILES}
        self.current_pile: int = CENTRE
        self.moves: list[Move] = []
        self.exchange_made: Exchange | None = None
        self._pending: tuple[Card, int] | None = None  # card taken by an exchange, and its pile
        self._stack: list[_Undo] = []

    # -- state ------------------------------------------------------------------------
    @property
    def kings_up(self) -> int:
        return len(self.face_up[CENTRE])

    @property
    def face_up_count(self) -> int:
        return sum(len(v) for v in self.face_up.values())

    @property
    def face_down_count(self) -> int:
        return sum(len(v) for v in self.face_down.values())

    def is_over(self) -> bool:
        """True once the fourth king is face up (a Watch exchange may still reopen play)."""
        return self.kings_up == 4 and self._pending is None

    def can_exchange(self) -> bool:
        """Watch only: the fourth king is up, cards are still face down, no exchange made yet."""
        return (
            self.variant == "watch"
            and self.is_over()
            and self.exchange_made is None
            and self.face_down_count > 0
        )

    def peek(self) -> Move:
        """The move the rules make next, without making it."""
        if self._pending is not None:
            card, src = self._pending
            return Move(card, src, card.home_pile)
        if self.is_over():
            raise GameOverError("the game is over: the fourth king is face up")
        pile = self.face_down[self.current_pile]
        if not pile:
            raise EmptyPileError(
                f"pile {self.current_pile} has no face-down card; the 'continue clockwise' house rule"
                " would apply, which is proved unreachable"
            )
        return Move(pile[0], self.current_pile, pile[0].home_pile)

    # -- play -------------------------------------------------------------------------
    def push(self, move: Move) -> Move:
        """Make ``move``; it must be the move the rules make (:meth:`peek`)."""
        expected = self.peek()
        if move != expected:
            if move.card != expected.card or move.from_pile != expected.from_pile:
                raise IllegalMoveError(f"the next card is {expected.card} from pile {expected.from_pile}, not {move}")
            raise IllegalMoveError(
                f"{move.card} goes beneath pile {expected.to_pile}, not pile {move.to_pile}"
            )
        undo = _Undo("turn", move=move, prev_current=self.current_pile, prev_pending=self._pending)
        if self._pending is not None:
            self._pending = None
        else:
            self.face_down[move.from_pile].pop(0)
        self.face_up[move.to_pile].append(move.card)
        self.current_pile = move.to_pile
        self.moves.append(move)
        self._stack.append(undo)
        return move

    def turn(self) -> Move:
        """Turn the next card and put it beneath its home pile; returns the move."""
        return self.push(self.peek())

    def play(self) -> Outcome:
        """Play to the end (the fourth king) and return the outcome."""
        while not self.is_over():
            self.turn()
        out = self.outcome()
        assert out is not None
        return out

    def exchange(self, pile: int, depth: int = 0) -> Card:
        """Watch: swap the fourth king for face-down card ``depth`` (0 = top) of ``pile``.

        The king takes that card's exact place; play goes on with the card taken
        (the next :meth:`turn` puts it beneath its home pile). Returns the card taken.
        """
        if self.variant != "watch":
            raise ExchangeError("the king exchange is only allowed in the Watch variant")
        if not self.is_over():
            raise ExchangeError("the exchange is only allowed once the fourth king is face up")
        if self.exchange_made is not None:
            raise ExchangeError(f"the exchange was already made ({self.exchange_made})")
        if self.face_down_count == 0:
            raise ExchangeError("no card is face down: the game is won")
        if pile not in PILES:
            raise ExchangeError(f"no pile {pile} (piles are 1..13)")
        stack = self.face_down[pile]
        if not 0 <= depth < len(stack):
            raise ExchangeError(
                f"pile {pile} has {len(stack)} face-down card(s); depth {depth} does not exist"
                + (" (depth 0 is the top)" if stack else "")
            )
        king = self.face_up[CENTRE].pop()
        taken = stack[depth]
        stack[depth] = king
        self._pending = (taken, pile)
        self.exchange_made = Exchange(pile, depth)
        self._stack.append(_Undo("exchange", exchange=self.exchange_made, king=king, taken=taken,
                                 prev_current=self.current_pile))
        return taken

    def pop(self) -> Move | Exchange:
        """Undo the last move or exchange and return it."""
        if not self._stack:
            raise IllegalMoveError("nothing to undo")
        undo = self._stack.pop()
        if undo.kind == "exchange":
            assert undo.exchange is not None and undo.king is not None and undo.taken is not None
            self.face_down[undo.exchange.pile][undo.exchange.depth] = undo.taken
            self.face_up[CENTRE].append(undo.king)
            self._pending = None
            self.exchange_made = None
            return undo.exchange
        move = undo.move
        assert move is not None
        self.face_up[move.to_pile].pop()
        if undo.prev_pending is not None:
            self._pending = undo.prev_pending
        else:
            self.face_down[move.from_pile].insert(0, move.card)
        self.current_pile = undo.prev_current
        self.moves.pop()
        return move

    # -- result -----------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        """The result once the fourth king is up (None while play goes on)."""
        if not self.is_over():
            return None
        return Outcome(
            won=self.face_down_count == 0,
            face_up=self.face_up_count,
            last_card=self.moves[-1].card,
            variant=self.variant,
            exchanged=self.exchange_made,
        )

    def copy(self) -> "ClockGame":
        other = ClockGame(self.deal, self.variant)  # type: ignore[arg-type]
        other.face_down = {p: list(v) for p, v in self.face_down.items()}
        other.face_up = {p: list(v) for p, v in self.face_up.items()}
        other.current_pile = self.current_pile
        other.moves = list(self.moves)
        other.exchange_made = self.exchange_made
        other._pending = self._pending
        other._stack = list(self._stack)
        return other

    def __repr__(self) -> str:
        return (
            f"<ClockGame {self.variant} face_up={self.face_up_count} kings={self.kings_up}"
            f" current={self.current_pile}{' over' if self.is_over() else ''}>"
        )
