"""Contact sheets: all faces and the back of one deck, or a few cards of many decks.

Both return BGR images on a felt-green background, labelled with Hershey text.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import cv2
import numpy as np

from ..cards import Card, Rank, Suit
from .decks import Deck

__all__ = ["deck_sheet", "overview_sheet", "OVERVIEW_CARDS"]

FELT = (60, 110, 40)
INK = (235, 235, 235)
FONT = cv2.FONT_HERSHEY_SIMPLEX
#: the cards shown per deck in the overview: an ace, a ten, three courts
OVERVIEW_CARDS = ("AS", "10H", "QC", "KD", "JH")

_ASCII = str.maketrans({"Т": "T", "В": "V", "Д": "D", "К": "K"})


def _ascii(s: str) -> str:
    """Hershey fonts are ASCII only: transliterate the Cyrillic index letters."""
    return s.translate(_ASCII).encode("ascii", "replace").decode()


def _over(dst: np.ndarray, src: np.ndarray, x: int, y: int) -> None:
    """Alpha-composite a BGRA image onto a BGR canvas at (x, y)."""
    h, w = src.shape[:2]
    roi = dst[y:y + h, x:x + w]
    a = src[..., 3:4].astype(np.float32) / 255.0
    roi[:] = (src[..., :3] * a + roi * (1 - a)).round().astype(np.uint8)


def _fit(img: np.ndarray, height: int) -> np.ndarray:
    if img.shape[0] == height:
        return img
    from .decks import resize_bgra

    w = max(1, int(round(img.shape[1] * height / img.shape[0])))
    return resize_bgra(img, (w, height))


def _text(img, s, x, y, scale=0.45, colour=INK, th=1) -> None:
    cv2.putText(img, _ascii(s), (x, y), FONT, scale, colour, th, cv2.LINE_AA)


def deck_sheet(deck: Deck, card_height: int | None = None, boxes: bool = False) -> np.ndarray:
    """All 52 faces (rows clubs, diamonds, hearts, spades; columns A..K) and the back."""
    ch = card_height or deck.height
    cw = max(1, int(round(deck.width * ch / deck.height)))
    gap, label = 6, 16
    top = 28
    W = 13 * (cw + gap) + gap
    H = top + 5 * (ch + gap + label) + gap
    out = np.empty((H, W, 3), np.uint8)
    out[:] = FELT
    i = deck.info
    title = f"{i.name}  ({i.source}, {i.alphabet}{'' if i.standard else ', non-standard'})"
    _text(out, title, gap, 20, 0.6, th=1)
    scale = ch / deck.height
    for r, suit in enumerate((Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)):
        for c, rank in enumerate(Rank):
            card = Card(rank, suit)
            x = gap + c * (cw + gap)
            y = top + r * (ch + gap + label)
            face = _fit(deck.face(card), ch)
            _over(out, face, x, y)
            if boxes:
                for b in deck.index_boxes(card):
                    x0, y0, x1, y1 = (int(round(v * scale)) for v in b)
                    cv2.rectangle(out, (x + x0, y + y0), (x + x1 - 1, y + y1 - 1), (0, 220, 0), 1)
            _text(out, card.code, x + 2, y + ch + label - 4, 0.4)
    y = top + 4 * (ch + gap + label)
    _over(out, _fit(deck.back(), ch), gap, y)
    _text(out, "back", gap + 2, y + ch + label - 4, 0.4)
    return out


def overview_sheet(decks: Iterable[Deck], cards: Sequence[str] = OVERVIEW_CARDS,
                   card_height: int = 100, columns: int = 2, boxes: bool = False,
                   on_deck: Callable[[], None] | None = None) -> np.ndarray:
    """One labelled row of a few cards (and the back) per deck, the rows in ``columns`` columns."""
    rows: list[np.ndarray] = []
    label_w = 210
    for deck in decks:
        cw = int(round(deck.width * card_height / deck.height))
        cw_max = max(cw, int(card_height * 0.8))
        gap = 4
        row = np.empty((card_height + 2 * gap, label_w + (len(cards) + 1) * (cw_max + gap) + gap, 3),
                       np.uint8)
        row[:] = FELT
        i = deck.info
        step = max(14, min(20, (card_height + 2 * gap - 12) // 4))
        _text(row, i.name, 6, 18, 0.5)
        _text(row, i.source + ", " + i.alphabet, 6, 18 + step, 0.4)
        if i.letters:
            _text(row, "letters " + "/".join(f"{v or '-'}" for v in i.letters.values())
                  + (" (Cyrillic)" if _ascii(i.alphabet) and any(ord(v[:1] or "a") > 127
                                                               for v in i.letters.values())
                     else ""), 6, 18 + 2 * step, 0.4)
        if not i.standard:
            _text(row, "non-standard", 6, 18 + 3 * step, 0.4, (120, 200, 255))
        for k, code in enumerate(list(cards) + ["back"]):
            x = label_w + k * (cw_max + gap)
            img = deck.back() if code == "back" else deck.face(code)
            img = _fit(img, card_height)
            _over(row, img, x, gap)
            if boxes and code != "back":
                s = card_height / deck.height
                for b in deck.index_boxes(code):
                    x0, y0, x1, y1 = (int(round(v * s)) for v in b)
                    cv2.rectangle(row, (x + x0, gap + y0), (x + x1 - 1, gap + y1 - 1), (0, 220, 0), 1)
        rows.append(row)
        if on_deck:
            on_deck()
    if not rows:
        out = np.empty((40, 400, 3), np.uint8)
        out[:] = FELT
        _text(out, "no decks available", 10, 25, 0.6)
        return out
    rw = max(r.shape[1] for r in rows)
    rows = [np.pad(r, ((0, 0), (0, rw - r.shape[1]), (0, 0)), mode="edge") for r in rows]
    per_col = -(-len(rows) // columns)
    cols = []
    for c in range(columns):
        chunk = rows[c * per_col:(c + 1) * per_col]
        if not chunk:
            continue
        col = np.concatenate(chunk, 0)
        cols.append(col)
    hmax = max(c.shape[0] for c in cols)
    cols = [np.pad(c, ((0, hmax - c.shape[0]), (0, 0), (0, 0)), mode="edge") for c in cols]
    sep = np.full((hmax, 8, 3), 30, np.uint8)
    parts: list[np.ndarray] = []
    for k, c in enumerate(cols):
        if k:
            parts.append(sep)
        parts.append(c)
    return np.concatenate(parts, 1)
