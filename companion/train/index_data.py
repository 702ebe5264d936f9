"""Training crops for the index classifier, made from deck artwork (no torch here).

Each positive is one printed corner index of a real deck design (or a font-drawn index, for letters
no deck here prints), placed on the table as a camera would see it: rotated, foreshortened, 55-420 px
card height, partly covered, then lit, blurred, noised and JPEG-compressed; and finally cropped the
way the run time crops it, from a slightly wrong centre, angle and size (a detector is never exact).
Negatives (glyph ``bg``, suit ``none``) are crops of everything else a detector may fire on: pips,
court art, corners without an index, card backs, table surfaces, hands.

Glyphs are never mirrored: a real card is never mirrored.
"""

from __future__ import annotations

import glob
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from ..cards import FULL_DECK, Card
from ..synth.composer import FACE_HEIGHT, Backgrounds, DeckArt, load_deck_art, photometric, skin_tone
from ..vision.geometry import crop_index
from ..vision.spec import GLYPH_ID, GLYPHS, INDEX_CROP_H, INDEX_CROP_W, SUITS_OUT

__all__ = ["DeckArt", "load_deck_art", "Backgrounds", "photometric", "FACE_HEIGHT", "IndexSampler", "glyph_for",
           "usable_for_index"]

SUIT_ID = {s: i for i, s in enumerate(SUITS_OUT)}
NONE_SUIT = SUIT_ID["none"]
BG = GLYPH_ID["bg"]


def glyph_for(card: Card, letters: dict[str, str] | None) -> str:
    """The glyph class printed for ``card`` by a deck with these letters (None = English)."""
    label = card.rank.label
    if letters and label in letters:
        printed = letters[label]
        return printed if printed in GLYPH_ID else "other"
    return label


def usable_for_index(info) -> bool:  # noqa: ANN001 - DeckInfo
    """Decks whose corner indices the classifier can learn from: standard packs in Latin letters.

    Cyrillic decks are left out (their К and В look like Latin K and B, with other meanings), as are
    decks without per-corner indices.
    """
    return bool(info.available and info.standard and info.alphabet in ("english", "french", "german", "italian"))


# ------------------------------------------------------------------------------------------------
# card placement
# ------------------------------------------------------------------------------------------------
def _paste(dst: np.ndarray, src_bgra: np.ndarray, m: np.ndarray) -> None:
    """Alpha-composite a BGRA image through a 3x3 perspective matrix onto float BGR ``dst``."""
    h, w = dst.shape[:2]
    warped = cv2.warpPerspective(src_bgra, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255.0
    dst *= 1 - a
    dst += warped[..., :3].astype(np.float32) * a


def _card_transform(rng: np.random.Generator, fw: int, fh: int, card_h: float, angle: float,
                    anchor_face: tuple[float, float], anchor_img: tuple[float, float]) -> np.ndarray:
    """Face pixels -> image: scale to card_h, rotate by angle (card up direction), foreshorten, place."""
    s = card_h / fh
    tilt = math.radians(rng.uniform(0, 35))
    fore = math.cos(tilt)  # compression along one axis in the image
    axis = rng.uniform(0, math.pi)
    ca, sa = math.cos(angle), math.sin(angle)
    rot = np.array([[ca, -sa], [sa, ca]])
    ce, se = math.cos(axis), math.sin(axis)
    r_ax = np.array([[ce, -se], [se, ce]])
    squash = r_ax @ np.diag([1.0, fore]) @ r_ax.T
    a2 = squash @ rot * s
    m = np.eye(3)
    m[:2, :2] = a2
    ax, ay = anchor_face
    t = np.array(anchor_img) - a2 @ np.array([ax, ay])
    m[:2, 2] = t
    # a touch of true perspective
    if rng.random() < 0.5:
        m[2, 0], m[2, 1] = rng.normal(0, 2e-4 / s, 2)
        # keep the anchor fixed
        p = m @ np.array([ax, ay, 1.0])
        p = p[:2] / p[2]
        shift = np.eye(3)
        shift[:2, 2] = np.array(anchor_img) - p
        m = shift @ m
    return m


def _up_in_image(m: np.ndarray, face_pt: tuple[float, float], upright: bool) -> tuple[float, float]:
    """The card's up direction (for this index: upright or rotated 180) in the image at a face point."""
    x, y = face_pt
    d = -1.0 if upright else 1.0
    p0 = m @ np.array([x, y, 1.0])
    p1 = m @ np.array([x, y + d, 1.0])
    v = p1[:2] / p1[2] - p0[:2] / p0[2]
    n = math.hypot(*v) or 1.0
    return float(v[0] / n), float(v[1] / n)


# ------------------------------------------------------------------------------------------------
# font-drawn indices (letters no deck here prints, and more type faces for every rank)
# ------------------------------------------------------------------------------------------------
FONT_GLOBS = ("/usr/share/fonts/truetype/**/*.ttf", "/usr/share/fonts/opentype/**/*.otf",
              "/usr/share/fonts/truetype/**/*.otf")
OTHER_LETTERS = "CEGLMNOPSTUWXYZ"


# families whose letters no card index looks like: blackletter, keyboard keys, decorated initials,
# outline, grunge and handwriting faces (matched against PIL's family name)
DECORATIVE = ("Blankenburg", "Jessen", "Zainer", "Hamlet", "Keyboard", "Initials", "Penguin Attack",
              "It wasn't me", "Junkyard", "Wargames", "Domestic Manners", "El Abogado Loco", "Engadget",
              "Rampart", "Isabella", "Nushu", "Titling", "Lobster", "femkeklaver")
# every character a font-drawn index may use; a font must draw each one (not its missing-glyph box)
_NEEDED = "A2345678910JQKBDHRVF" + OTHER_LETTERS


def _draws_all(path: str) -> str | None:
    """The font's family name when it draws every needed character distinctly, else None."""
    from PIL import ImageFont

    try:
        font = ImageFont.truetype(path, 40)
        missing = np.asarray(font.getmask("\U0010FFFD"))
        shapes = set()
        for ch in _NEEDED:
            m = np.asarray(font.getmask(ch))
            if m.size == 0 or not m.any() or (m.shape == missing.shape and (m == missing).all()):
                return None
            shapes.add(m.tobytes())
        if len(shapes) < len(_NEEDED) - 1:  # one box for many characters
            return None
        return str(font.getname()[0])
    except Exception:  # noqa: BLE001 - a font PIL cannot open is simply not used
        return None


@lru_cache(maxsize=1)
def font_families() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Installed upright text faces that draw every index character, grouped by family (sorted, so the
    sampler is deterministic for a given set of installed fonts). Families are drawn uniformly, so a
    family installed in twenty weights counts as much as one installed in one."""
    try:
        import PIL.ImageFont  # noqa: F401 - drawing indices needs pillow (the train extra)
    except ImportError:
        return ()
    files: set[str] = set()
    for pattern in FONT_GLOBS:
        files.update(glob.glob(pattern, recursive=True))
    bad = ("Mono", "Math", "Symbol", "Dingbat", "Emoji", "Awesome", "D050000L", "Oblique", "Italic")
    families: dict[str, list[str]] = {}
    for f in sorted(files):
        if any(b in f for b in bad):
            continue
        family = _draws_all(f)
        if family is None or any(d.lower() in family.lower() for d in DECORATIVE):
            continue
        families.setdefault(family, []).append(f)
    return tuple((k, tuple(v)) for k, v in sorted(families.items()))



def _font_index(rng: np.random.Generator, glyph_text: str, suit: str, red: bool) -> tuple[np.ndarray, tuple]:
    """A card corner (BGRA, white paper) with ``glyph_text`` over a suit pip; returns it and the index box."""
    from PIL import Image, ImageDraw, ImageFont

    from ..synth.builtin_deck import draw_pip

    families = font_families()
    W, H = 210, 300
    paper = np.array([rng.uniform(215, 255)] * 3) * rng.uniform(0.95, 1.0, 3)
    img = np.zeros((H, W, 4), np.uint8)
    img[..., :3] = paper.astype(np.uint8)
    img[..., 3] = 255
    colour = (int(rng.uniform(0, 60)), int(rng.uniform(0, 60)), int(rng.uniform(150, 230))) if red else \
        tuple(int(v) for v in rng.uniform(0, 50, 3))
    size = int(rng.uniform(38, 62))
    pil = Image.fromarray(np.ascontiguousarray(img[..., :3][..., ::-1]))
    draw = ImageDraw.Draw(pil)
    if families:
        files = families[int(rng.integers(len(families)))][1]
        font = ImageFont.truetype(files[int(rng.integers(len(files)))], size)
    else:  # pragma: no cover - no system fonts
        font = ImageFont.load_default()
    x0, y0 = int(rng.uniform(8, 22)), int(rng.uniform(8, 22))
    condensed = rng.random() < 0.4 and len(glyph_text) == 2
    # card indices are often heavier than a font's regular weight: thicken one in four
    stroke = int(rng.integers(1, max(2, size // 16) + 1)) if rng.random() < 0.25 else 0
    tb = draw.textbbox((0, 0), glyph_text, font=font, stroke_width=stroke)
    tw, th = tb[2] - tb[0], tb[3] - tb[1]
    layer = Image.new("L", (tw + 4, th + 4), 0)
    ImageDraw.Draw(layer).text((2 - tb[0], 2 - tb[1]), glyph_text, font=font, fill=255,
                               stroke_width=stroke, stroke_fill=255)
    if condensed:
        layer = layer.resize((max(4, int(layer.width * 0.62)), layer.height))
    pil.paste(tuple(int(c) for c in colour[::-1]), (x0, y0), layer)
    out = np.array(pil)[..., ::-1].copy()
    gw, gh = layer.width - 4, layer.height - 4
    pip = gh * rng.uniform(0.6, 0.9)
    cx = x0 + 2 + gw / 2 + rng.uniform(-0.1, 0.1) * gw
    cy = y0 + 2 + gh + pip * rng.uniform(0.6, 0.85)
    draw_pip(out, suit, cx, cy, pip, colour)
    img[..., :3] = out
    box = (x0, y0, int(max(x0 + gw + 4, cx + pip / 2 + 2)), int(cy + pip / 2 + 2))
    return img, box


# ------------------------------------------------------------------------------------------------
# the sampler
# ------------------------------------------------------------------------------------------------
class IndexSampler:
    """Makes (crop, glyph id, suit id) training examples from a set of decks, deterministically."""

    def __init__(self, decks: Sequence[DeckArt], seed: int, font_share: float = 0.3, bg_share: float = 0.25,
                 hands: bool = True, backgrounds: "Backgrounds | None" = None) -> None:
        self.decks = list(decks)
        self.rng = np.random.default_rng(seed)
        self.backgrounds = backgrounds or Backgrounds(np.random.default_rng(seed + 1))
        self.font_share = font_share if font_share and font_families() else 0.0
        self.bg_share = bg_share
        self.hands = hands

    # -- one example --------------------------------------------------------------------
    def sample(self) -> tuple[np.ndarray, int, int]:
        self.last_geometry = np.full(5, np.nan, np.float32)  # set by a positive's render
        r = self.rng.random()
        if r < self.bg_share:
            return self._negative()
        if r < self.bg_share + self.font_share:
            return self._font_positive()
        return self._deck_positive()

    def batch(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Crops, glyph ids, suit ids, and geometry corrections (N, 5; NaN for negatives): the four of
        :meth:`_render`, then 1 where the crop was cut from the wide misplacement (0 otherwise)."""
        xs = np.empty((n, INDEX_CROP_H, INDEX_CROP_W, 3), np.uint8)
        gs = np.empty(n, np.int64)
        ss = np.empty(n, np.int64)
        geo = np.empty((n, 5), np.float32)
        for i in range(n):
            xs[i], gs[i], ss[i] = self.sample()
            geo[i] = self.last_geometry if gs[i] != BG else np.nan
        return xs, gs, ss, geo

    # -- positives ----------------------------------------------------------------------
    def _deck_positive(self) -> tuple[np.ndarray, int, int]:
        rng = self.rng
        for _ in range(20):
            deck = self.decks[int(rng.integers(len(self.decks)))]
            card = FULL_DECK[int(rng.integers(52))]
            if deck.boxes[card]:
                break
        else:  # pragma: no cover - decks without boxes are filtered out
            return self._negative()
        x0, y0, x1, y1, upright = deck.boxes[card][int(rng.integers(len(deck.boxes[card])))]
        glyph = glyph_for(card, deck.letters)
        face = deck.faces[card]
        crop = self._render(face, (x0, y0, x1, y1), upright, other_faces=deck)
        return crop, GLYPH_ID[glyph], SUIT_ID[card.suit.code]

    def _font_positive(self) -> tuple[np.ndarray, int, int]:
        rng = self.rng
        r = rng.random()
        if r < 0.35:  # letters of other alphabets (and letters of none)
            glyph = ["1", "B", "D", "H", "R", "V", "F", "other"][int(rng.integers(8))]
            text = glyph if glyph != "other" else OTHER_LETTERS[int(rng.integers(len(OTHER_LETTERS)))]
        else:
            glyph = GLYPHS[1 + int(rng.integers(13))]
            text = glyph
        suit = "CDHS"[int(rng.integers(4))]
        red = suit in "DH" if rng.random() < 0.92 else suit in "CS"  # four-colour decks exist
        corner, box = _font_index(rng, text, suit, red)
        crop = self._render(corner, box, True, other_faces=None)
        return crop, GLYPH_ID[glyph], SUIT_ID[suit]

    def _render(self, face: np.ndarray, box: tuple, upright: bool, other_faces: DeckArt | None) -> np.ndarray:
        rng = self.rng
        fh, fw = face.shape[:2]
        x0, y0, x1, y1 = box
        centre_face = ((x0 + x1) / 2, (y0 + y1) / 2)
        index_h_face = float(y1 - y0)
        card_h = math.exp(rng.uniform(math.log(55), math.log(420)))
        # Big cards are rendered smaller: the run time reads them from a pyramid level anyway.
        card_h = min(card_h, 40.0 * fh / max(index_h_face, 1.0))
        s = card_h / fh
        index_h_img = index_h_face * s
        P = int(max(24, index_h_img * 3.2))  # patch side in image pixels
        angle = rng.uniform(0, 2 * math.pi)
        m = _card_transform(rng, fw, fh, card_h, angle, centre_face, (P / 2, P / 2))
        canvas = self.backgrounds.patch(rng, P, P)
        # card shadow under the card, then the card
        if rng.random() < 0.5:
            sh = np.zeros((P, P), np.float32)
            alpha = cv2.warpPerspective(face[..., 3], m, (P, P))
            off = rng.normal(0, 0.02 * card_h, 2)
            sh = cv2.warpAffine(alpha.astype(np.float32) / 255, np.float32([[1, 0, off[0]], [0, 1, off[1]]]), (P, P))
            sh = cv2.GaussianBlur(sh, (0, 0), max(0.5, 0.02 * card_h))
            canvas *= (1 - 0.4 * sh)[..., None]
        _paste(canvas, face, m)
        # overlapping card on top (fanned piles), never over the index centre
        if other_faces is not None and rng.random() < 0.3:
            other = other_faces.faces[FULL_DECK[int(rng.integers(52))]] if rng.random() < 0.7 else other_faces.back
            d = rng.uniform(0.55, 1.2) * index_h_img
            a = rng.uniform(0, 2 * math.pi)
            anchor_img = (P / 2 + math.cos(a) * (d + card_h * 0.5), P / 2 + math.sin(a) * (d + card_h * 0.5))
            m2 = _card_transform(rng, fw, fh, card_h, rng.uniform(0, 2 * math.pi), (fw / 2, fh / 2), anchor_img)
            _paste(canvas, other, m2)
        if self.hands and rng.random() < 0.1:
            self._hand(canvas, index_h_img)
        img = photometric(canvas, rng, index_h_img * 3)
        # the detector's estimate: a little off in centre, angle and size
        up = _up_in_image(m, centre_face, upright)
        # (measured on held-out frames: centre off by 0.17 index heights, up direction by 13 degrees
        # and size by 0.24 in log on average, with a long tail: index sizes 0.57-1.25 of the truth
        # for 90% of corners)
        wide = rng.random() < 0.2
        jc = rng.normal(0, (0.3 if wide else 0.13) * index_h_img, 2)
        ja = math.radians(rng.normal(0, 7 if rng.random() < 0.8 else 18))
        ux, uy = up
        ux, uy = ux * math.cos(ja) - uy * math.sin(ja), ux * math.sin(ja) + uy * math.cos(ja)
        est_h = index_h_img * math.exp(rng.normal(0, 0.4 if wide else 0.2))
        # what would put the crop right, in the crop's own terms: the true centre along the crop's
        # right and down (in estimated index heights), the turn to the true up, log(true / estimated size)
        n = math.hypot(ux, uy)
        right, down = np.array([-uy, ux]) / n, np.array([-ux, -uy]) / n
        self.last_truth = ((P / 2, P / 2), up, index_h_img)  # for tests: where the crop should be
        self.last_geometry = np.array([float(-jc @ right) / est_h, float(-jc @ down) / est_h, -ja,
                                       math.log(index_h_img / est_h), float(wide)], np.float32)
        return crop_index(img, (P / 2 + jc[0], P / 2 + jc[1]), (ux, uy), est_h)

    def _hand(self, canvas: np.ndarray, scale: float) -> None:
        rng = self.rng
        P = canvas.shape[0]
        mask = np.zeros((P, P), np.uint8)
        a = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(0.6, 1.2) * scale
        c = (int(P / 2 + math.cos(a) * d), int(P / 2 + math.sin(a) * d))
        cv2.ellipse(mask, c, (int(scale * rng.uniform(0.8, 2)), int(scale * rng.uniform(0.4, 0.9))),
                    float(rng.uniform(0, 180)), 0, 360, 255, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), 1.0).astype(np.float32)[..., None] / 255
        canvas *= 1 - mask
        canvas += mask * skin_tone(rng)

    # -- negatives ----------------------------------------------------------------------
    def _negative(self) -> tuple[np.ndarray, int, int]:
        rng = self.rng
        deck = self.decks[int(rng.integers(len(self.decks)))]
        kind = rng.random()
        card = FULL_DECK[int(rng.integers(52))]
        face = deck.faces[card] if kind < 0.7 else deck.back
        fh, fw = face.shape[:2]
        boxes = deck.boxes[card] if kind < 0.7 else []
        ih = float(np.median([b[3] - b[1] for b in deck.boxes[card]])) if deck.boxes[card] else fh * 0.2
        for _ in range(30):
            if rng.random() < 0.3:  # a corner with no index (or the card edge)
                cx = rng.choice([ih * 0.3, fw - ih * 0.3]) + rng.normal(0, ih * 0.2)
                cy = rng.choice([ih * 0.5, fh - ih * 0.5]) + rng.normal(0, ih * 0.2)
            else:
                cx, cy = rng.uniform(0, fw), rng.uniform(0, fh)
            if all(math.hypot(cx - (b[0] + b[2]) / 2, cy - (b[1] + b[3]) / 2) > 0.75 * ih for b in boxes):
                break
        else:
            return self._surface_negative(ih)
        box = (cx - ih * 0.3, cy - ih / 2, cx + ih * 0.3, cy + ih / 2)
        if rng.random() < 0.15:
            return self._surface_negative(ih)
        crop = self._render(face, box, bool(rng.random() < 0.5), other_faces=deck)
        return crop, BG, NONE_SUIT

    def _surface_negative(self, ih: float) -> tuple[np.ndarray, int, int]:
        rng = self.rng
        P = int(rng.uniform(24, 160))
        canvas = self.backgrounds.patch(rng, P, P)
        if rng.random() < 0.3:
            self._hand(canvas, P / 3)
        img = photometric(canvas, rng, P)
        a = rng.uniform(0, 2 * math.pi)
        return crop_index(img, (P / 2, P / 2), (math.sin(a), -math.cos(a)), P / 3.2), BG, NONE_SUIT
