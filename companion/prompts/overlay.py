"""The on-screen overlay of the live companion: piles, next pile, last card, message, result, status.

What is drawn comes from an :class:`OverlayState` (plain data the app fills from the referee and
the layout); :class:`OverlayAnnotator` only draws it, in the style of :mod:`companion.annotate`
(``annotate(frame, state) -> frame``, on a copy unless ``inplace``). Sizes scale with the frame so
the same overlay reads well at 640x360 and at 1280x720.

* each pile: a badge with its hour (``1`` .. ``12``, ``K`` for the centre) and under it its counts,
  a small card back with the face-down count and a small card face with the face-up count;
* the next pile: a bright ring around it and a ``NEXT`` tag;
* top left: the last card read, drawn as a little card, the next pile in words and the count face up;
* top right: the status (paused, muted, camera lost...);
* bottom: the current message in a band (red when it is a mistake), wrapped to the frame's width;
* at the end: the result, big, in the middle.

>>> import numpy as np
>>> st = OverlayState.blank(np.array([[320 + 120 * np.sin(h * np.pi / 6), 180 - 120 * np.cos(h * np.pi / 6)]
...                                   for h in range(1, 13)] + [[320, 180]]), 30.0)
>>> st.next_pile, st.message = 7, "Take the top card of 7 o'clock."
>>> OverlayAnnotator().annotate(np.zeros((360, 640, 3), np.uint8), st).shape
(360, 640, 3)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import cv2
import numpy as np

from ..cards import CENTRE, Card, CardParseError

__all__ = ["OverlayState", "OverlayAnnotator", "OverlayError", "wrap_text", "hour_label", "side_column", "draw_suit"]

FONT = cv2.FONT_HERSHEY_DUPLEX
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
DARK = (30, 30, 30)
NEXT = (0, 215, 255)  # amber-yellow ring (BGR)
ALERT = (40, 40, 210)  # red band (BGR)
OK_ACCENT = (80, 190, 80)
BACK_BLUE = (150, 80, 30)
STATUS = (0, 190, 255)
RED_SUIT = (30, 30, 200)


class OverlayError(ValueError):
    """An overlay state that cannot be drawn (wrong number of piles...)."""


def hour_label(p: int) -> str:
    """The label of pile ``p``: ``1`` .. ``12``, ``K`` for the centre.

    >>> hour_label(7), hour_label(13)
    ('7', 'K')
    """
    return "K" if p == CENTRE else str(p)


def wrap_text(text: str, max_width: float, measure: Callable[[str], float], max_lines: int = 3) -> list[str]:
    """Split ``text`` into lines no wider than ``max_width`` (as ``measure`` says), at most
    ``max_lines`` (the last one ends with ``...`` when text is left over). Pure, so it is testable
    without drawing.

    >>> wrap_text("one two three four five", 9, len)
    ['one two', 'three', 'four five']
    >>> wrap_text("one two three four five six", 9, len, max_lines=2)
    ['one two', 'three...']
    >>> wrap_text("Move it beneath 6 o'clock.", 18, len)
    ['Move it beneath', "6 o'clock."]
    """
    words: list[str] = []
    for w in text.split():  # "7 o'clock" stays on one line
        if words and w.lower().startswith("o'clock"):
            words[-1] += " " + w
        else:
            words.append(w)
    lines: list[str] = []
    cur = ""
    for w in words:
        trial = f"{cur} {w}" if cur else w
        if not cur or measure(trial) <= max_width:
            cur = trial
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        while last and measure(last + "...") > max_width and " " in last:
            last = last.rsplit(" ", 1)[0]
        lines[-1] = last + "..."
    return lines


@dataclass
class OverlayState:
    """What the overlay shows. Piles are indexed 0..12 for piles 1..13 (13 = the centre)."""

    centres: np.ndarray  # 13 x 2 pile centres in image pixels
    pile_radius: float  # about half a card height in pixels
    hidden: list[int]  # face-down count per pile
    sorted: list[int]  # face-up cards already placed at each pile
    next_pile: int | None
    last_card: str | None
    message: str
    result: str | None = None
    status: str | None = None
    flag: bool = False

    @classmethod
    def blank(cls, centres: np.ndarray | Sequence[Sequence[float]], pile_radius: float) -> "OverlayState":
        """The state at the deal: 4 face down everywhere, nothing sorted, the centre next."""
        return cls(np.asarray(centres, np.float64), float(pile_radius), [4] * 13, [0] * 13, CENTRE, None, "")

    def check(self) -> None:
        """Raise :class:`OverlayError` for a state that cannot be drawn. Counts may also be given as
        ``{pile: count}`` (piles 1..13); they are turned into lists here."""
        self.hidden = _thirteen(self.hidden, "hidden")
        self.sorted = _thirteen(self.sorted, "sorted")
        c = np.asarray(self.centres)
        if c.shape != (13, 2):
            raise OverlayError(f"centres must be 13 x 2 (piles 1..13), got shape {c.shape}")
        if len(self.hidden) != 13 or len(self.sorted) != 13:
            raise OverlayError(f"hidden and sorted need 13 counts each, got {len(self.hidden)} and {len(self.sorted)}")
        if self.next_pile is not None and not 1 <= self.next_pile <= 13:
            raise OverlayError(f"next_pile must be 1..13 or None, got {self.next_pile}")


def _thirteen(counts: Sequence[int] | dict[int, int], what: str) -> list[int]:
    if isinstance(counts, dict):
        try:
            return [int(counts.get(p, counts.get(str(p), 0))) for p in range(1, 14)]  # type: ignore[call-overload]
        except (TypeError, ValueError):
            raise OverlayError(f"{what} counts must be numbers, got {counts!r}") from None
    return list(counts)


@dataclass
class OverlayAnnotator:
    """Draws an :class:`OverlayState` on a frame (see the module docstring)."""

    max_message_lines: int = 3
    band_alpha: float = 0.72

    def annotate(self, frame: np.ndarray, state: OverlayState, inplace: bool = False) -> np.ndarray:
        state.check()
        out = frame if inplace else frame.copy()
        if out.ndim == 2:
            out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
        u = min(out.shape[0], out.shape[1]) / 360.0  # 1.0 at 640x360, 2.0 at 1280x720
        if state.next_pile is not None and state.result is None:
            self._next_ring(out, state, u)
        self._piles(out, state, u)
        panel_bottom = self._top_left(out, state, u)
        if state.status:
            self._status(out, state.status, u)
        if state.message and state.message != state.result:
            h, w = out.shape[:2]
            side = side_column(w, state.centres, state.pile_radius)
            if side is not None and side >= 150 * u:
                self._message_panel(out, state.message, state.flag, u, side, panel_bottom)
            else:
                self._message(out, state.message, state.flag, u)
        if state.result:
            self._result(out, state.result, u)
        return out

    # -- parts --------------------------------------------------------------------------------
    def _piles(self, img: np.ndarray, st: OverlayState, u: float) -> None:
        r = max(8.0 * u, min(13.0 * u, 0.42 * st.pile_radius))
        for i in range(13):
            cx, cy = (float(v) for v in st.centres[i])
            if not (math.isfinite(cx) and math.isfinite(cy)):
                continue
            c = (int(round(cx)), int(round(cy)))
            _blend_circle(img, c, int(r), DARK, 0.75)
            cv2.circle(img, c, int(r), WHITE, max(1, int(u)), cv2.LINE_AA)
            _text_centred(img, hour_label(i + 1), c, 0.42 * u * (0.85 if i + 1 in (10, 11, 12) else 1.0), WHITE,
                          max(1, int(u)))
            self._counts(img, (c[0], int(c[1] + r + 3 * u)), st.hidden[i], st.sorted[i], u)

    def _counts(self, img: np.ndarray, top_centre: tuple[int, int], hidden: int, done: int, u: float) -> None:
        """A pill: [card back] hidden  [card face] sorted."""
        s = 0.4 * u
        th = max(1, int(u))
        a, b = str(int(hidden)), str(int(done))
        (wa, h), _ = cv2.getTextSize(a, FONT, s, th)
        (wb, _), _ = cv2.getTextSize(b, FONT, s, th)
        iw, ih = int(5 * u), int(7 * u)
        gap = int(2 * u)
        w = iw + gap + wa + 3 * gap + iw + gap + wb
        x0, y0 = top_centre[0] - w // 2 - gap, top_centre[1]
        x1, y1 = x0 + w + 2 * gap, y0 + max(ih, h) + 2 * gap
        _blend_rect(img, (x0, y0), (x1, y1), DARK, 0.75)
        x, ym = x0 + gap, (y0 + y1) // 2
        cv2.rectangle(img, (x, ym - ih // 2), (x + iw, ym + ih // 2), BACK_BLUE, -1)
        cv2.rectangle(img, (x, ym - ih // 2), (x + iw, ym + ih // 2), WHITE, 1)
        x += iw + gap
        cv2.putText(img, a, (x, ym + h // 2), FONT, s, WHITE, th, cv2.LINE_AA)
        x += wa + 3 * gap
        cv2.rectangle(img, (x, ym - ih // 2), (x + iw, ym + ih // 2), WHITE, -1)
        cv2.rectangle(img, (x, ym - ih // 2), (x + iw, ym + ih // 2), (60, 60, 60), 1)
        x += iw + gap
        cv2.putText(img, b, (x, ym + h // 2), FONT, s, (140, 230, 140), th, cv2.LINE_AA)

    def _next_ring(self, img: np.ndarray, st: OverlayState, u: float) -> None:
        p = st.next_pile
        assert p is not None
        cx, cy = st.centres[p - 1]
        if not (math.isfinite(cx) and math.isfinite(cy)):
            return
        c = (int(round(cx)), int(round(cy)))
        rad = int(max(st.pile_radius * 1.15, 16 * u))
        t = max(2, int(3 * u))
        cv2.circle(img, c, rad, BLACK, t + max(2, int(2 * u)), cv2.LINE_AA)
        cv2.circle(img, c, rad, NEXT, t, cv2.LINE_AA)
        # the NEXT tag, above the ring (below it when the ring is at the top of the frame)
        s = 0.42 * u
        th = max(1, int(u))
        (tw, tht), _ = cv2.getTextSize("NEXT", FONT, s, th)
        ty = c[1] - rad - int(4 * u)
        if ty - tht - 4 * u < 0:
            ty = c[1] + rad + int(4 * u) + tht
        x0 = c[0] - tw // 2
        cv2.rectangle(img, (x0 - int(3 * u), ty - tht - int(3 * u)), (x0 + tw + int(3 * u), ty + int(3 * u)), NEXT, -1)
        cv2.putText(img, "NEXT", (x0, ty), FONT, s, BLACK, th, cv2.LINE_AA)

    def _top_left(self, img: np.ndarray, st: OverlayState, u: float) -> int:
        """The last card as a little card, the next pile and the count face up; returns the bottom y."""
        pad = int(6 * u)
        cw, ch = int(30 * u), int(42 * u)
        s = 0.4 * u
        th = max(1, int(u))
        caption = "last card"
        nxt = "game over" if st.next_pile is None else (
            "next: centre" if st.next_pile == CENTRE else f"next: {st.next_pile} o'clock")
        up = f"face up: {sum(int(n) for n in st.sorted)}/52"
        (w1, h1), _ = cv2.getTextSize(caption, FONT, s, th)
        w2 = max(cv2.getTextSize(t, FONT, s, th)[0][0] for t in (nxt, up))
        x0, y0 = pad, pad
        x1 = x0 + 2 * pad + max(w1, cw + pad + w2)
        y1 = y0 + pad + h1 + pad + ch + pad
        _blend_rect(img, (x0, y0), (x1, y1), DARK, 0.7)
        cv2.putText(img, caption, (x0 + pad, y0 + pad + h1), FONT, s, (200, 200, 200), th, cv2.LINE_AA)
        cx0, cy0 = x0 + pad, y0 + pad + h1 + pad
        _mini_card(img, (cx0, cy0), (cw, ch), st.last_card, u)
        colour = NEXT if st.next_pile is not None else (200, 200, 200)
        tx = cx0 + cw + pad
        cv2.putText(img, nxt, (tx, cy0 + ch // 3 + h1 // 2), FONT, s, colour, th, cv2.LINE_AA)
        cv2.putText(img, up, (tx, cy0 + 2 * ch // 3 + h1 // 2 + int(2 * u)), FONT, s, (140, 230, 140), th,
                    cv2.LINE_AA)
        return y1

    def _status(self, img: np.ndarray, text: str, u: float) -> None:
        s = 0.42 * u
        th = max(1, int(u))
        pad = int(6 * u)
        (tw, tht), _ = cv2.getTextSize(text, FONT, s, th)
        x1 = img.shape[1] - pad
        dot = max(2, int(2.5 * u))
        x0 = max(0, x1 - tw - 3 * pad - 2 * dot)
        y0 = pad
        y1 = y0 + tht + 2 * pad
        _blend_rect(img, (x0, y0), (x1, y1), DARK, 0.75)
        cv2.circle(img, (x0 + pad + dot, (y0 + y1) // 2), dot, STATUS, -1, cv2.LINE_AA)
        cv2.putText(img, text, (x0 + 2 * pad + 2 * dot, y1 - pad), FONT, s, STATUS, th, cv2.LINE_AA)

    def _message(self, img: np.ndarray, text: str, flag: bool, u: float) -> None:
        h, w = img.shape[:2]
        pad = int(8 * u)
        accent = int(5 * u)
        _, line_h, measure = _message_font(u)
        lines = wrap_text(text, w - 2 * pad - accent - pad, measure, self.max_message_lines)
        band_h = len(lines) * line_h + 2 * pad - int(4 * u)
        self._message_box(img, lines, (0, h - band_h, w, h), flag, u, pad, accent)

    def _message_panel(self, img: np.ndarray, text: str, flag: bool, u: float, width: float, top: int) -> None:
        """The message in the free column left of the clock, under the last-card panel."""
        h = img.shape[0]
        pad = int(6 * u)
        accent = int(4 * u)
        _, line_h, measure = _message_font(u)
        x0, x1 = pad, int(width) - pad
        room = max(1, (h - top - 3 * pad) // line_h)
        lines = wrap_text(text, x1 - x0 - accent - 2 * pad, measure, min(room, self.max_message_lines + 3))
        y0 = top + pad
        y1 = y0 + len(lines) * line_h + 2 * pad - int(4 * u)
        self._message_box(img, lines, (x0, y0, x1, y1), flag, u, pad, accent)

    def _message_box(self, img: np.ndarray, lines: Sequence[str], box: tuple[int, int, int, int], flag: bool,
                     u: float, pad: int, accent: int) -> None:
        """Draw wrapped message lines on a tinted box with a coloured accent bar at its left."""
        x0, y0, x1, y1 = box
        s, th = 0.5 * u, max(1, int(u))
        lh, line_h, _ = _message_font(u)
        _blend_rect(img, (x0, y0), (x1, y1), ALERT if flag else DARK, self.band_alpha)
        cv2.rectangle(img, (x0, y0), (x0 + accent, y1), WHITE if flag else OK_ACCENT, -1)
        y = y0 + pad + lh
        for ln in lines:
            cv2.putText(img, ln, (x0 + accent + pad, y), FONT, s, WHITE, th, cv2.LINE_AA)
            y += line_h

    def _result(self, img: np.ndarray, text: str, u: float) -> None:
        h, w = img.shape[:2]
        s = 1.0 * u
        th = max(2, int(2 * u))
        pad = int(12 * u)

        def measure(t: str) -> float:
            return cv2.getTextSize(t, FONT, s, th)[0][0]

        lines = wrap_text(text, w * 0.8, measure, 3)
        (_, lh), base = cv2.getTextSize("Ag", FONT, s, th)
        line_h = lh + base + int(6 * u)
        box_w = int(max(measure(ln) for ln in lines)) + 2 * pad
        box_h = len(lines) * line_h + 2 * pad - int(6 * u)
        x0, y0 = (w - box_w) // 2, int(h * 0.42) - box_h // 2
        _blend_rect(img, (x0, y0), (x0 + box_w, y0 + box_h), DARK, 0.82)
        cv2.rectangle(img, (x0, y0), (x0 + box_w, y0 + box_h), NEXT, max(1, int(2 * u)), cv2.LINE_AA)
        y = y0 + pad + lh
        for ln in lines:
            x = (w - int(measure(ln))) // 2
            cv2.putText(img, ln, (x, y), FONT, s, WHITE, th, cv2.LINE_AA)
            y += line_h


def _message_font(u: float) -> tuple[int, int, Callable[[str], float]]:
    """The message text's line ascent, line height and width measure at scale ``u``."""
    s, th = 0.5 * u, max(1, int(u))
    (_, lh), base = cv2.getTextSize("Ag", FONT, s, th)

    def measure(t: str) -> float:
        return cv2.getTextSize(t, FONT, s, th)[0][0]

    return lh, lh + base + int(4 * u), measure


def side_column(width: int, centres: np.ndarray, pile_radius: float) -> float | None:
    """The width of the free column left of the clock (None when the piles are not known): the
    message goes there when it is wide enough, so it never covers a card.

    >>> side_column(1280, np.array([[400.0, 100.0], [900.0, 600.0]]), 50.0)
    290.0
    """
    c = np.asarray(centres, np.float64)
    xs = c[np.isfinite(c).all(axis=1), 0]
    if xs.size == 0:
        return None
    return float(min(xs.min(), width - xs.max())) - 1.8 * float(pile_radius)


# -- drawing helpers ----------------------------------------------------------------------------
def _clip(img: np.ndarray, p0: tuple[int, int], p1: tuple[int, int]) -> tuple[int, int, int, int] | None:
    h, w = img.shape[:2]
    x0, y0 = max(0, int(p0[0])), max(0, int(p0[1]))
    x1, y1 = min(w, int(p1[0])), min(h, int(p1[1]))
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _blend_rect(img: np.ndarray, p0: tuple[int, int], p1: tuple[int, int], colour: tuple[int, int, int],
                alpha: float) -> None:
    """Darken/tint a rectangle so text on it reads on any background."""
    box = _clip(img, p0, p1)
    if box is None:
        return
    x0, y0, x1, y1 = box
    roi = img[y0:y1, x0:x1]
    roi[:] = (roi.astype(np.float32) * (1 - alpha) + np.array(colour, np.float32) * alpha).astype(np.uint8)


def _blend_circle(img: np.ndarray, c: tuple[int, int], r: int, colour: tuple[int, int, int], alpha: float) -> None:
    box = _clip(img, (c[0] - r - 1, c[1] - r - 1), (c[0] + r + 2, c[1] + r + 2))
    if box is None:
        return
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.circle(mask, (c[0] - x0, c[1] - y0), r, 255, -1, cv2.LINE_AA)
    a = (mask.astype(np.float32) / 255.0 * alpha)[..., None]
    roi = img[y0:y1, x0:x1]
    roi[:] = (roi.astype(np.float32) * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)


def _text_centred(img: np.ndarray, text: str, c: tuple[int, int], scale: float, colour: tuple[int, int, int],
                  th: int) -> None:
    (tw, tht), _ = cv2.getTextSize(text, FONT, scale, th)
    cv2.putText(img, text, (c[0] - tw // 2, c[1] + tht // 2), FONT, scale, colour, th, cv2.LINE_AA)


def _mini_card(img: np.ndarray, p0: tuple[int, int], size: tuple[int, int], code: str | None, u: float) -> None:
    """A little card with the rank and a drawn suit (the Hershey fonts have no suit symbols)."""
    w, h = size
    x0, y0 = p0
    try:
        card = Card.parse(code) if code else None
    except CardParseError:
        card = None
    if card is None:
        cv2.rectangle(img, (x0, y0), (x0 + w, y0 + h), (90, 90, 90), max(1, int(u)), cv2.LINE_AA)
        _text_centred(img, "?" if code else "-", (x0 + w // 2, y0 + h // 2), 0.5 * u, (200, 200, 200), max(1, int(u)))
        return
    cv2.rectangle(img, (x0, y0), (x0 + w, y0 + h), (245, 245, 245), -1)
    cv2.rectangle(img, (x0, y0), (x0 + w, y0 + h), (120, 120, 120), 1, cv2.LINE_AA)
    colour = RED_SUIT if card.suit.is_red else (20, 20, 20)
    _text_centred(img, card.rank.label, (x0 + w // 2, y0 + int(h * 0.3)), 0.48 * u * (0.85 if card.rank.value == 10 else 1),
                  colour, max(1, int(u)))
    draw_suit(img, card.suit.code, (x0 + w // 2, y0 + int(h * 0.7)), 14 * u, colour)


def draw_suit(img: np.ndarray, suit: str, c: tuple[int, int], size: float, colour: tuple[int, int, int]) -> None:
    """Draw a suit symbol (``C D H S``) of about ``size`` pixels centred at ``c``."""
    cx, cy, s = float(c[0]), float(c[1]), float(size)

    def pt(x: float, y: float) -> tuple[int, int]:
        return int(round(x)), int(round(y))

    def poly(points: list[tuple[float, float]]) -> None:
        cv2.fillPoly(img, [np.array([pt(x, y) for x, y in points], np.int32)], colour, cv2.LINE_AA)

    def disc(x: float, y: float, r: float) -> None:
        cv2.circle(img, pt(x, y), max(1, int(round(r))), colour, -1, cv2.LINE_AA)

    if suit == "D":
        poly([(cx, cy - s / 2), (cx + s * 0.36, cy), (cx, cy + s / 2), (cx - s * 0.36, cy)])
    elif suit == "H":
        disc(cx - s / 4.2, cy - s / 8, s / 4)
        disc(cx + s / 4.2, cy - s / 8, s / 4)
        poly([(cx - s * 0.47, cy - s / 14), (cx + s * 0.47, cy - s / 14), (cx, cy + s / 2)])
    elif suit == "S":
        disc(cx - s / 4.2, cy + s / 10, s / 4)
        disc(cx + s / 4.2, cy + s / 10, s / 4)
        poly([(cx - s * 0.47, cy + s / 20), (cx + s * 0.47, cy + s / 20), (cx, cy - s / 2)])
        poly([(cx, cy + s / 8), (cx - s / 5, cy + s / 2), (cx + s / 5, cy + s / 2)])
    elif suit == "C":
        r = s / 5.2
        disc(cx, cy - s / 4.5, r)
        disc(cx - s / 4.2, cy + s / 14, r)
        disc(cx + s / 4.2, cy + s / 14, r)
        poly([(cx, cy - s / 10), (cx - s / 5, cy + s / 2), (cx + s / 5, cy + s / 2)])
