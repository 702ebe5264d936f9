"""The built-in deck: 52 faces and a back drawn with OpenCV only (no files, no system package).

Deterministic, fast (about a millisecond a face) and in several index styles, so tests and the
demo never need the Debian card packages. Each style is a :class:`Style`; the deck names are
``builtin`` and ``builtin-<style>`` (see :data:`STYLES`).

Everything is drawn at the requested height with anti-aliased OpenCV primitives:

* suit pips are polygons (heart: the classic parametric heart curve; spade: an inverted heart
  with a flared stem; club: three discs and a stem; diamond: a lozenge with slightly concave
  sides), laid out in the usual 2..10 patterns, the lower half upside down;
* the corner index is a Hershey-font rank (``10`` as two digits) over a small pip, drawn on a
  patch whose ink gives the exact index box (so :meth:`BuiltinRenderer.index_boxes` is exact);
* J, Q, K are a framed, double-headed figure (cap, tiara, crown) with the letter on a badge;
* the back is a lattice in a coloured panel with a white margin.

>>> r = BuiltinRenderer("builtin", 140)
>>> from companion.cards import Card
>>> face = r.face(Card.parse("10H"))
>>> face.shape, face.dtype.name, r.face(Card.parse("10H")) is face
((140, 100, 4), 'uint8', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from ..cards import Card, Rank, Suit

__all__ = ["Style", "STYLES", "BuiltinRenderer", "style_names", "rounded_alpha"]

Box = tuple[int, int, int, int]

BLACK = (30, 30, 30)
RED = (40, 30, 205)
BLUE = (170, 80, 20)
GREEN = (60, 140, 30)
GOLD = (40, 170, 220)
SKIN = (170, 200, 240)
PAPER = (250, 252, 252)


@dataclass(frozen=True)
class Style:
    """How one built-in variant looks: index font, size and corners, colours."""

    name: str
    note: str
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    rank_h: float = 0.068          # rank glyph height / card height
    stroke: float = 0.0105         # stroke thickness / card height
    pip_h: float = 0.052           # index pip height / card height
    margin_x: float = 0.05         # index left edge / card width
    margin_y: float = 0.04         # index top edge / card height
    corners: tuple[str, ...] = ("tl", "br")
    colours: dict[str, tuple[int, int, int]] = field(
        default_factory=lambda: {"C": BLACK, "S": BLACK, "H": RED, "D": RED})
    condense_ten: float = 0.8      # horizontal squeeze of "10"
    back_colour: tuple[int, int, int] = (150, 60, 25)
    paper: tuple[int, int, int] = PAPER


STYLES: dict[str, Style] = {
    s.name: s
    for s in (
        Style("builtin", "sans-serif index (Hershey simplex), top-left and bottom-right"),
        Style("builtin-serif", "serif index (Hershey complex), thin strokes",
              font=cv2.FONT_HERSHEY_COMPLEX, rank_h=0.072, stroke=0.0075,
              back_colour=(40, 40, 160), paper=(236, 246, 250)),
        Style("builtin-bold", "heavy sans-serif index (Hershey duplex, thick)",
              font=cv2.FONT_HERSHEY_DUPLEX, rank_h=0.074, stroke=0.017, pip_h=0.058,
              back_colour=(40, 110, 40)),
        Style("builtin-large-index", "large serif index (Hershey triplex), as on jumbo-index packs",
              font=cv2.FONT_HERSHEY_TRIPLEX, rank_h=0.105, stroke=0.0135, pip_h=0.075,
              margin_x=0.04, margin_y=0.03, condense_ten=0.72, back_colour=(120, 40, 120)),
        Style("builtin-small-index", "small thin index close to the corner",
              rank_h=0.05, stroke=0.0075, pip_h=0.038, margin_x=0.04, margin_y=0.03,
              back_colour=(30, 30, 140)),
        Style("builtin-four-colour", "four-colour pack: clubs green, diamonds blue",
              font=cv2.FONT_HERSHEY_DUPLEX, stroke=0.012,
              colours={"C": GREEN, "S": BLACK, "H": RED, "D": BLUE}, back_colour=(100, 100, 100)),
        Style("builtin-left-only", "indices on the left edge only: top-left and a rotated one "
              "bottom-left", font=cv2.FONT_HERSHEY_DUPLEX, stroke=0.011,
              corners=("tl", "bl"), back_colour=(20, 90, 170)),
        Style("builtin-four-corner", "indices in all four corners (top pair upright, bottom pair "
              "rotated)", font=cv2.FONT_HERSHEY_COMPLEX, stroke=0.009, rank_h=0.062, pip_h=0.045,
              margin_x=0.04, corners=("tl", "tr", "bl", "br"), back_colour=(60, 60, 60)),
    )
}


def style_names() -> list[str]:
    return list(STYLES)


# --------------------------------------------------------------------------- shapes

def _unit_heart(n: int = 48) -> np.ndarray:
    """Heart outline, point down, centred, fitting a 1x1 box (x right, y down)."""
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    pts = np.stack([x, y], 1)
    pts -= (pts.min(0) + pts.max(0)) / 2
    return pts / (pts.max(0) - pts.min(0)).max()


def _circle(cx: float, cy: float, r: float, n: int = 28) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], 1)


def _stem(top_w: float, bot_w: float, y0: float, y1: float) -> np.ndarray:
    """A flared stem (narrow at y0, wide at y1) with slightly concave sides."""
    ys = np.linspace(y0, y1, 8)
    f = (ys - y0) / (y1 - y0)
    half = top_w / 2 + (bot_w - top_w) / 2 * f ** 2
    return np.concatenate([np.stack([-half, ys], 1), np.stack([half[::-1], ys[::-1]], 1)])


def _unit_shapes() -> dict[str, list[np.ndarray]]:
    heart = _unit_heart()
    # spade: an inverted heart, slightly narrower, raised, plus a stem
    spade_body = heart * [0.92, -0.8] + [0, -0.08]
    spade = [spade_body, _stem(0.06, 0.36, 0.18, 0.5)]
    r = 0.215
    club = [_circle(0, -0.27, r), _circle(-0.25, 0.07, r), _circle(0.25, 0.07, r),
            _circle(0, 0.0, 0.12, 16), _stem(0.06, 0.36, 0.05, 0.5)]
    # diamond with concave sides: four quadratic curves
    pts = []
    corners = [(0, -0.5), (0.38, 0), (0, 0.5), (-0.38, 0), (0, -0.5)]
    for (x0, y0), (x1, y1) in zip(corners, corners[1:]):
        mx, my = (x0 + x1) / 2 * 0.82, (y0 + y1) / 2 * 0.82
        for t in np.linspace(0, 1, 8, endpoint=False):
            pts.append(((1 - t) ** 2 * x0 + 2 * (1 - t) * t * mx + t * t * x1,
                        (1 - t) ** 2 * y0 + 2 * (1 - t) * t * my + t * t * y1))
    diamond = [np.array(pts)]
    return {"H": [heart], "S": spade, "C": club, "D": diamond}


_SHAPES = _unit_shapes()
_SHIFT = 4
_ONE = 1 << _SHIFT


def draw_pip(img: np.ndarray, suit: str, cx: float, cy: float, size: float,
             colour: tuple[int, int, int], upside_down: bool = False) -> None:
    """Fill a suit symbol of height ``size`` centred at (cx, cy) on ``img`` (in place, anti-aliased)."""
    sy = -size if upside_down else size
    for p in _SHAPES[suit]:  # one call per part: fillPoly would XOR overlapping parts
        pts = np.round((p * [size, sy] + [cx, cy]) * _ONE).astype(np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, _SHIFT)


def rounded_alpha(w: int, h: int, radius: float) -> np.ndarray:
    """An anti-aliased rounded-rectangle alpha mask (uint8, 255 inside)."""
    ss = 4
    big = np.zeros((h * ss, w * ss), np.uint8)
    r = max(1, int(round(radius * ss)))
    W, H = w * ss, h * ss
    cv2.rectangle(big, (r, 0), (W - 1 - r, H - 1), 255, -1)
    cv2.rectangle(big, (0, r), (W - 1, H - 1 - r), 255, -1)
    for cx, cy in ((r, r), (W - 1 - r, r), (r, H - 1 - r), (W - 1 - r, H - 1 - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


# --------------------------------------------------------------------------- layout

#: Pip centres for 2..10 as (column, row): column -1/0/1, row 0 (top) .. 1 (bottom).
_PIPS: dict[int, list[tuple[int, float]]] = {
    2: [(0, 0), (0, 1)],
    3: [(0, 0), (0, 0.5), (0, 1)],
    4: [(-1, 0), (1, 0), (-1, 1), (1, 1)],
    5: [(-1, 0), (1, 0), (0, 0.5), (-1, 1), (1, 1)],
    6: [(-1, 0), (1, 0), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)],
    7: [(-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)],
    8: [(-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (0, 0.75), (-1, 1), (1, 1)],
    9: [(-1, 0), (1, 0), (-1, 1 / 3), (1, 1 / 3), (0, 0.5), (-1, 2 / 3), (1, 2 / 3), (-1, 1), (1, 1)],
    10: [(-1, 0), (1, 0), (0, 1 / 6), (-1, 1 / 3), (1, 1 / 3), (-1, 2 / 3), (1, 2 / 3), (0, 5 / 6),
         (-1, 1), (1, 1)],
}


class BuiltinRenderer:
    """Draws the faces and back of one built-in style at one height; caches them in memory."""

    def __init__(self, style: str, height: int = 350) -> None:
        if style not in STYLES:
            raise KeyError(style)
        self.style = STYLES[style]
        self.height = int(height)
        if self.height < 40:
            raise ValueError(f"deck height {height} too small (at least 40 px)")
        self.width = int(round(self.height * 5 / 7))
        self._alpha = rounded_alpha(self.width, self.height, 0.055 * self.width)
        self._faces: dict[str, np.ndarray] = {}
        self._boxes: dict[str, list[Box]] = {}
        self._index_cache: dict[str, tuple[np.ndarray, Box]] = {}
        self._back: np.ndarray | None = None

    # ------------------------------------------------------------------ public
    def face(self, card: Card) -> np.ndarray:
        code = card.code
        img = self._faces.get(code)
        if img is None:
            img, boxes = self._draw_face(card)
            img.flags.writeable = False
            self._faces[code] = img
            self._boxes[code] = boxes
        return img

    def index_boxes(self, card: Card) -> list[Box]:
        if card.code not in self._boxes:
            self.face(card)
        return list(self._boxes[card.code])

    def back(self) -> np.ndarray:
        if self._back is None:
            self._back = self._draw_back()
            self._back.flags.writeable = False
        return self._back

    # ------------------------------------------------------------------ drawing
    def _colour(self, suit: Suit) -> tuple[int, int, int]:
        return self.style.colours[suit.code]

    def _index_patch(self, card: Card) -> tuple[np.ndarray, Box]:
        """The corner index (rank over pip) on a paper-coloured patch, and its ink box in the patch."""
        key = card.code
        if key in self._index_cache:
            return self._index_cache[key]
        st, H = self.style, self.height
        colour = self._colour(card.suit)
        th = max(1, int(round(st.stroke * H)))
        rank_px = max(6, st.rank_h * H)
        scale = cv2.getFontScaleFromHeight(st.font, int(round(rank_px)), th)
        label = card.rank.label
        (tw, tht), base = cv2.getTextSize(label, st.font, scale, th)
        pad = th + 2
        pw = tw + 2 * pad
        pip = st.pip_h * H
        ph = int(math.ceil(tht + pip * 1.25 + 3 * pad))
        patch = np.empty((ph, pw, 3), np.uint8)
        patch[:] = st.paper
        cv2.putText(patch, label, (pad, pad + tht), st.font, scale, colour, th, cv2.LINE_AA)
        if label == "10" and st.condense_ten < 1:
            nw = max(4, int(round(pw * st.condense_ten)))
            patch = cv2.resize(patch, (nw, ph), interpolation=cv2.INTER_AREA)
            pw = nw
        # the pip centred under the rank glyph
        ink = np.any(np.abs(patch.astype(np.int16) - st.paper) > 24, axis=2)
        xs = np.nonzero(ink.any(0))[0]
        cx = (xs[0] + xs[-1]) / 2 if len(xs) else pw / 2
        draw_pip(patch, card.suit.code, cx, pad + tht + pad * 0.8 + pip * 0.62, pip, colour)
        ink = np.any(np.abs(patch.astype(np.int16) - st.paper) > 24, axis=2)
        ys, xs = np.nonzero(ink)
        box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
        self._index_cache[key] = (patch, box)
        return patch, box

    def _draw_face(self, card: Card) -> tuple[np.ndarray, list[Box]]:
        st, W, H = self.style, self.width, self.height
        img = np.empty((H, W, 3), np.uint8)
        img[:] = st.paper
        colour = self._colour(card.suit)
        patch, (bx0, by0, bx1, by1) = self._index_patch(card)
        ph, pw = patch.shape[:2]
        mx = int(round(st.margin_x * W)) - bx0
        my = int(round(st.margin_y * H)) - by0
        mx = max(mx, 2)
        my = max(my, 2)
        rot = patch[::-1, ::-1]
        boxes: list[Box] = []
        for corner in st.corners:
            right, bottom = corner[1] == "r", corner[0] == "b"
            p = rot if bottom else patch
            x = W - mx - pw if right else mx
            y = H - my - ph if bottom else my
            img[y:y + ph, x:x + pw] = p
            if bottom:  # rotated patch: its box is mirrored within the patch
                boxes.append((x + pw - bx1, y + ph - by1, x + pw - bx0, y + ph - by0))
            else:
                boxes.append((x + bx0, y + by0, x + bx1, y + by1))
        # the area for pips / picture, clear of the indices
        ix = max(b[2] for b in boxes[:1]) + 0.03 * W
        left, right = ix, W - ix
        top, bottom = 0.09 * H, 0.91 * H
        if card.rank is Rank.ACE:
            size = 0.42 * W if card.suit is Suit.SPADES else 0.32 * W
            if card.suit is Suit.SPADES:
                cv2.ellipse(img, (W // 2, H // 2), (int(0.3 * W), int(0.3 * W)), 0, 0, 360,
                            colour, max(1, H // 200), cv2.LINE_AA)
            draw_pip(img, card.suit.code, W / 2, H / 2, size, colour)
        elif card.rank.value <= 10:
            n = card.rank.value
            size = min(0.17 * W, (right - left) / 3.2, 0.13 * H)
            cols = {-1: left + size * 0.62, 0: W / 2, 1: right - size * 0.62}
            y0, y1 = top + size * 0.65, bottom - size * 0.65
            for c, r in _PIPS[n]:
                draw_pip(img, card.suit.code, cols[c], y0 + r * (y1 - y0), size, colour,
                         upside_down=r > 0.5 + 1e-9)
        else:
            self._draw_court(img, card, left, right, top, bottom)
        # a thin border line just inside the edge
        bw = max(1, H // 250)
        r = int(0.055 * W)
        self._rounded_outline(img, 1, 1, W - 2, H - 2, r, (150, 150, 150), bw)
        out = np.dstack([img, self._alpha])
        return out, boxes

    @staticmethod
    def _rounded_outline(img, x0, y0, x1, y1, r, colour, th) -> None:
        cv2.line(img, (x0 + r, y0), (x1 - r, y0), colour, th, cv2.LINE_AA)
        cv2.line(img, (x0 + r, y1), (x1 - r, y1), colour, th, cv2.LINE_AA)
        cv2.line(img, (x0, y0 + r), (x0, y1 - r), colour, th, cv2.LINE_AA)
        cv2.line(img, (x1, y0 + r), (x1, y1 - r), colour, th, cv2.LINE_AA)
        for (cx, cy), a in (((x0 + r, y0 + r), 180), ((x1 - r, y0 + r), 270),
                            ((x1 - r, y1 - r), 0), ((x0 + r, y1 - r), 90)):
            cv2.ellipse(img, (cx, cy), (r, r), 0, a, a + 90, colour, th, cv2.LINE_AA)

    def _draw_court(self, img, card: Card, left, right, top, bottom) -> None:
        W, H = self.width, self.height
        colour = self._colour(card.suit)
        x0, x1 = int(left), int(right)
        y0, y1 = int(top), int(bottom)
        fw, fh = x1 - x0, y1 - y0
        th = max(1, H // 160)
        # top half figure, then mirrored (double-headed court card)
        half = img[y0:(y0 + y1) // 2, x0:x1]
        hh = half.shape[0]
        cx = fw / 2
        robe = {Rank.JACK: (170, 110, 40), Rank.QUEEN: (60, 60, 170), Rank.KING: (50, 120, 60)}[card.rank]
        if card.suit.code in "DH":
            robe = robe[::-1]
        # shoulders / robe
        body = np.array([[cx - fw * 0.36, hh], [cx - fw * 0.28, hh * 0.55], [cx - fw * 0.1, hh * 0.47],
                         [cx + fw * 0.1, hh * 0.47], [cx + fw * 0.28, hh * 0.55], [cx + fw * 0.36, hh]])
        cv2.fillPoly(half, [np.round(body * _ONE).astype(np.int32)], robe, cv2.LINE_AA, _SHIFT)
        cv2.line(half, (int(cx), int(hh * 0.5)), (int(cx), hh), GOLD, th, cv2.LINE_AA)
        # head
        hr = fw * 0.13
        hy = hh * 0.36
        cv2.circle(half, (int(cx), int(hy)), int(hr), SKIN, -1, cv2.LINE_AA)
        cv2.circle(half, (int(cx), int(hy)), int(hr), BLACK, max(1, th // 2), cv2.LINE_AA)
        eye = max(1, int(hr * 0.12))
        for dx in (-0.35, 0.35):
            cv2.circle(half, (int(cx + dx * hr), int(hy - 0.1 * hr)), eye, BLACK, -1, cv2.LINE_AA)
        cv2.ellipse(half, (int(cx), int(hy + 0.3 * hr)), (int(hr * 0.4), int(hr * 0.2)), 0, 0, 180,
                    BLACK, max(1, th // 2), cv2.LINE_AA)
        top_y = hy - hr
        if card.rank is Rank.KING:
            crown = np.array([[cx - hr, top_y + hr * 0.2], [cx - hr, top_y - hr * 0.7],
                              [cx - hr * 0.5, top_y - hr * 0.2], [cx, top_y - hr * 0.8],
                              [cx + hr * 0.5, top_y - hr * 0.2], [cx + hr, top_y - hr * 0.7],
                              [cx + hr, top_y + hr * 0.2]])
            cv2.fillPoly(half, [np.round(crown * _ONE).astype(np.int32)], GOLD, cv2.LINE_AA, _SHIFT)
        elif card.rank is Rank.QUEEN:
            cv2.ellipse(half, (int(cx), int(top_y + hr * 0.25)), (int(hr * 0.9), int(hr * 0.45)),
                        0, 180, 360, GOLD, -1, cv2.LINE_AA)
            cv2.circle(half, (int(cx), int(top_y - hr * 0.25)), max(1, int(hr * 0.18)), RED, -1,
                       cv2.LINE_AA)
        else:
            cap = np.array([[cx - hr * 1.1, top_y + hr * 0.35], [cx - hr * 0.6, top_y - hr * 0.45],
                            [cx + hr * 0.9, top_y - hr * 0.3], [cx + hr * 1.2, top_y + hr * 0.35]])
            cv2.fillPoly(half, [np.round(cap * _ONE).astype(np.int32)], robe, cv2.LINE_AA, _SHIFT)
        # suit pip held up in the top corner of the frame
        draw_pip(half, card.suit.code, fw * 0.17, hh * 0.2, fw * 0.16, colour)
        # mirror to the lower half
        lower = img[(y0 + y1) // 2:(y0 + y1) // 2 + hh, x0:x1]
        lower[:] = half[::-1, ::-1][:lower.shape[0]]
        # centre badge with the letter
        cy = (y0 + y1) // 2
        bw_, bh_ = int(fw * 0.26), int(fh * 0.07)
        cv2.rectangle(img, (W // 2 - bw_, cy - bh_), (W // 2 + bw_, cy + bh_), self.style.paper, -1)
        cv2.rectangle(img, (W // 2 - bw_, cy - bh_), (W // 2 + bw_, cy + bh_), colour, th, cv2.LINE_AA)
        letter = card.rank.label
        lt = max(1, H // 120)
        sc = cv2.getFontScaleFromHeight(cv2.FONT_HERSHEY_TRIPLEX, int(bh_ * 1.3), lt)
        (tw, tht), _ = cv2.getTextSize(letter, cv2.FONT_HERSHEY_TRIPLEX, sc, lt)
        cv2.putText(img, letter, (W // 2 - tw // 2, cy + tht // 2), cv2.FONT_HERSHEY_TRIPLEX, sc,
                    colour, lt, cv2.LINE_AA)
        # frame
        cv2.rectangle(img, (x0, y0), (x1, y1), colour, th, cv2.LINE_AA)
        cv2.rectangle(img, (x0 + 2 * th + 1, y0 + 2 * th + 1), (x1 - 2 * th - 1, y1 - 2 * th - 1),
                      GOLD, max(1, th // 2), cv2.LINE_AA)

    def _draw_back(self) -> np.ndarray:
        st, W, H = self.style, self.width, self.height
        img = np.empty((H, W, 3), np.uint8)
        img[:] = st.paper
        m = int(round(0.06 * W))
        panel = img[m:H - m, m:W - m]
        panel[:] = st.back_colour
        ph, pw = panel.shape[:2]
        step = max(4, int(round(W / 14)))
        th = max(1, H // 200)
        light = tuple(int(c + (255 - c) * 0.55) for c in st.back_colour)
        for k in range(-ph, pw + ph, step):
            cv2.line(panel, (k, 0), (k + ph, ph), light, th, cv2.LINE_AA)
            cv2.line(panel, (k, ph), (k + ph, 0), light, th, cv2.LINE_AA)
        cv2.ellipse(panel, (pw // 2, ph // 2), (int(pw * 0.28), int(ph * 0.2)), 0, 0, 360,
                    st.back_colour, -1, cv2.LINE_AA)
        cv2.ellipse(panel, (pw // 2, ph // 2), (int(pw * 0.28), int(ph * 0.2)), 0, 0, 360,
                    (255, 255, 255), max(1, th * 2), cv2.LINE_AA)
        for i, s in enumerate("SHDC"):
            ang = i * np.pi / 2
            draw_pip(panel, s, pw / 2 + np.cos(ang) * pw * 0.13, ph / 2 + np.sin(ang) * ph * 0.09,
                     pw * 0.11, (255, 255, 255))
        self._rounded_outline(img, m, m, W - 1 - m, H - 1 - m, int(0.04 * W), (255, 255, 255), th)
        self._rounded_outline(img, 1, 1, W - 2, H - 2, int(0.055 * W), (150, 150, 150),
                              max(1, H // 250))
        return np.dstack([img, self._alpha])
