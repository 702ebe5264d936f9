"""The clock drawn in the terminal: 13 piles in a ring, 80 columns by 14 lines.

Each pile shows its hour (and the rank that lives there), its face-down cards as
``▓`` blocks with their count, and its sorted face-up cards with their count
(``2✓ 7♥ 7♠``). The pile play comes from is marked ``▶``. The middle of the clock
shows the card in your hand and the last card put away.
"""

from __future__ import annotations

from ..cards import CENTRE, PILES, Card
from ..rules.game import ClockGame, Move

__all__ = ["draw_clock", "pile_name", "pile_label", "BOARD_WIDTH", "BOARD_HEIGHT", "LEGEND"]

BOARD_WIDTH = 80
BOARD_HEIGHT = 14

#: (line, column) of each pile's two-line cell: a ring like a clock face.
_CELL_AT: dict[int, tuple[int, int]] = {
    12: (0, 31),
    11: (2, 17), 1: (2, 46),
    10: (4, 6), 2: (4, 57),
    9: (6, 1), CENTRE: (6, 31), 3: (6, 61),
    8: (8, 6), 4: (8, 57),
    7: (10, 17), 5: (10, 46),
    6: (12, 31),
}
_RANK_AT = {1: "A", 11: "J", 12: "Q", CENTRE: "K"}

LEGEND = "▓ face down (hidden)   2✓ 7♥ 7♠ sorted face up   ▶ the pile you turn from"


def pile_name(pile: int) -> str:
    """``7 o'clock`` or ``the centre``."""
    return "the centre" if pile == CENTRE else f"{pile} o'clock"


def pile_label(pile: int) -> str:
    """The hour as drawn on the clock: ``7``, ``11 J``, ``centre K``."""
    if pile == CENTRE:
        return "centre K"
    return f"{pile} {_RANK_AT[pile]}" if pile in _RANK_AT else str(pile)


def _cell(game: ClockGame, pile: int, current: bool, lifted: bool) -> tuple[str, str]:
    down = len(game.face_down[pile]) - (1 if lifted else 0)
    up = game.face_up[pile]
    mark = "▶" if current else " "
    blocks = ("▓" * down + f" {down}") if down else "· 0"
    top = f"{mark}{pile_label(pile):<4} {blocks}"
    bottom = f" {len(up)}✓ " + " ".join(c.label for c in up)
    return top, bottom.rstrip()


def _put(grid: list[list[str]], line: int, col: int, text: str) -> None:
    row = grid[line]
    for i, ch in enumerate(text):
        if 0 <= col + i < len(row):
            row[col + i] = ch


def _centred(grid: list[list[str]], line: int, text: str, lo: int = 27, hi: int = 56) -> None:
    col = lo + max(0, (hi - lo - len(text)) // 2)
    _put(grid, line, col, text[: hi - lo])


def draw_clock(
    game: ClockGame,
    *,
    current: int | None,
    in_hand: Card | None = None,
    hand_from: int | None = None,
    lifted: int | None = None,
    last: Move | None = None,
) -> list[str]:
    """The clock as :data:`BOARD_HEIGHT` lines of at most :data:`BOARD_WIDTH` characters.

    ``lifted`` is the pile whose top face-down card is in the player's hand (drawn one short).
    """
    grid = [[" "] * BOARD_WIDTH for _ in range(BOARD_HEIGHT)]
    for pile in PILES:
        line, col = _CELL_AT[pile]
        top, bottom = _cell(game, pile, pile == current, pile == lifted)
        _put(grid, line, col, top)
        _put(grid, line + 1, col, bottom)
    if in_hand is not None:
        _centred(grid, 4, f"In your hand: {in_hand.label}")
        if hand_from is not None:
            _centred(grid, 5, f"(from {pile_name(hand_from)})")
    if last is not None:
        _centred(grid, 8, f"Last card: {last.card.label}")
        _centred(grid, 9, f"went to {pile_name(last.to_pile)}")
    return ["".join(row).rstrip() for row in grid]
