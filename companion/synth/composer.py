"""Table scenes composed from deck artwork, with exact truth (numpy and OpenCV only, no torch).

Shared by the recogniser's benchmark frames (:mod:`companion.vision.benchframes`) and its training
data (:mod:`companion.train`): deck faces with their index boxes (:class:`DeckArt`), table textures
(:class:`Backgrounds`), camera degradations (:func:`photometric`) and the scene composer
(:class:`SceneComposer`): clock layouts (face-down stacks with fanned face-up cards beneath), loose
overlapping cards, fans held in a row, single big cards (as a phone photo shows them), card backs,
hands. Every card's outline is drawn into an id map in z order, so the visible fraction of each
printed index is exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from ..cards import FULL_DECK, Card

__all__ = ["FACE_HEIGHT", "DeckArt", "load_deck_art", "drop_band_boxes", "Backgrounds", "photometric", "skin_tone",
           "Placed", "SceneComposer", "apply_h", "visible_fraction", "VISIBLE_POSITIVE", "VISIBLE_IGNORE"]

FACE_HEIGHT = 300
#: An index at least this visible is a positive (the benchmark counts its card); 0.3-0.75 is ignored
#: in the detector's loss, less is background.
VISIBLE_POSITIVE = 0.75
VISIBLE_IGNORE = 0.3


@dataclass
class DeckArt:
    """One deck's faces at FACE_HEIGHT with index boxes and orientations, in memory."""

    name: str
    faces: dict[Card, np.ndarray]  # BGRA
    boxes: dict[Card, list[tuple[int, int, int, int, bool]]]  # x0, y0, x1, y1, upright
    back: np.ndarray
    letters: dict[str, str] | None


def load_deck_art(name: str, height: int = FACE_HEIGHT) -> DeckArt:
    from .decks import get_deck

    deck = get_deck(name, height)
    faces, boxes = {}, {}
    letters = getattr(deck.info, "letters", None)
    for card in FULL_DECK:
        faces[card] = np.ascontiguousarray(deck.face(card))
        out = []
        for (x0, y0, x1, y1) in deck.index_boxes(card):
            if x1 - x0 < 3 or y1 - y0 < 3:
                continue
            upright = (y0 + y1) / 2 < deck.height / 2
            out.append((int(x0), int(y0), int(x1), int(y1), upright))
        boxes[card] = out
    return DeckArt(name, faces, boxes, np.ascontiguousarray(deck.back()), letters)


def drop_band_boxes(art: DeckArt) -> DeckArt:
    """Leave out index boxes that span a whole band (rank and suit side by side far apart)."""
    for card, boxes in art.boxes.items():
        art.boxes[card] = [b for b in boxes if (b[2] - b[0]) <= 1.25 * (b[3] - b[1])]
    return art


# ------------------------------------------------------------------------------------------------
# backgrounds, occluders, photometry
# ------------------------------------------------------------------------------------------------
class Backgrounds:
    """A pool of table textures (procedural surfaces and GIMP tiles when installed).

    ``every_pattern`` (training data): the pool grows until each installed GIMP tile has a slot of its
    own, one slot in six as before (eight random tiles of 22 were all a training run saw). ``pale_share``
    (training data): that share of patches is washed out towards white, the texture kept. The eleventh
    session's detector read about half as many cards of rendered games on a pale marble
    (``Stone/marble2.pat``) as on parquet (game 9240 at 1080p: 51% of the readable looks against 89%;
    9255 22% against 47%); a fine-tune with every tile alone did no better there, one with pale patches
    too did (README, fifty-fifth session). The benchmark's frames keep the plain pool (both 0), so
    their figures stay comparable.
    """

    def __init__(self, rng: np.random.Generator, n: int = 48, size: int = 512, every_pattern: bool = False,
                 pale_share: float = 0.0) -> None:
        from .surfaces import gimp_patterns, make_surface

        if not 0.0 <= pale_share <= 1.0:
            raise ValueError(f"pale_share must be between 0 and 1, got {pale_share}")
        self.pale_share = pale_share
        self.pool = []
        kinds = ["wood", "felt", "cloth", "plain", "patterned", "gimp"]
        pats = list(gimp_patterns()) if every_pattern else []
        if pats:
            n = max(n, len(kinds) * len(pats))
            pats = [pats[i] for i in rng.permutation(len(pats))]
        for k in range(n):
            kind = kinds[k % len(kinds)]
            pattern = pats[(k // len(kinds)) % len(pats)] if pats and kind == "gimp" else None
            try:
                tex = make_surface(rng, size, size, px_per_mm=float(rng.uniform(0.6, 3.0)), kind=kind,
                                   pattern=pattern)
            except Exception:  # noqa: BLE001 - gimp tiles absent: take a procedural one
                tex = make_surface(rng, size, size, px_per_mm=1.5, kind="wood")
            self.pool.append(tex)

    def patch(self, rng: np.random.Generator, w: int, h: int) -> np.ndarray:
        tex = self.pool[int(rng.integers(len(self.pool)))]
        th, tw = tex.shape[:2]
        if w > tw or h > th:
            tex = cv2.resize(tex, (max(w, tw), max(h, th)))
            th, tw = tex.shape[:2]
        x = int(rng.integers(0, tw - w + 1))
        y = int(rng.integers(0, th - h + 1))
        out = tex[y:y + h, x:x + w].astype(np.float32)
        if self.pale_share and rng.random() < self.pale_share:
            # a pale table (white laminate, light marble, paper): the texture kept, its contrast squeezed
            # towards near-white and its colour washed out, so a white card's edge barely shows
            grey = out.mean(axis=2, keepdims=True)
            out = grey + (out - grey) * rng.uniform(0.2, 1.0)
            return np.clip(255 - (255 - out) * rng.uniform(0.12, 0.5), 0, 255)
        gain = rng.uniform(0.5, 1.3) * rng.uniform(0.85, 1.15, 3)
        return np.clip(out * gain, 0, 255)


def skin_tone(rng: np.random.Generator) -> np.ndarray:
    tones = np.array([[60, 90, 150], [90, 130, 190], [120, 160, 220], [40, 60, 100], [150, 180, 230]], np.float32)
    return tones[int(rng.integers(len(tones)))] * rng.uniform(0.85, 1.15)


def photometric(img: np.ndarray, rng: np.random.Generator, scale_px: float) -> np.ndarray:
    """Lighting, colour cast, glare, shadow, blur, noise and JPEG on a float32 BGR patch (0..255)."""
    h, w = img.shape[:2]
    out = img
    # exposure, gamma, white balance
    out = out * rng.uniform(0.45, 1.35) * rng.uniform(0.87, 1.13, 3).astype(np.float32)
    # light gradient across the patch
    if rng.random() < 0.6:
        gx, gy = rng.normal(0, 1, 2)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        g = 1 + rng.uniform(0.1, 0.5) * ((xx / w - 0.5) * gx + (yy / h - 0.5) * gy)
        out = out * g[..., None]
    # cast shadow: a soft dark half-plane
    if rng.random() < 0.3:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, 2 * math.pi)
        d = (xx - w * rng.uniform(0.2, 0.8)) * math.cos(a) + (yy - h * rng.uniform(0.2, 0.8)) * math.sin(a)
        soft = max(1.0, scale_px * rng.uniform(0.05, 0.4))
        m = 1 / (1 + np.exp(np.clip(-d / soft, -50, 50)))
        out = out * (1 - rng.uniform(0.3, 0.7) * m)[..., None]
    # glare: a bright soft ellipse
    if rng.random() < 0.3:
        glare = np.zeros((h, w), np.float32)
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        ax = (max(1, int(scale_px * rng.uniform(0.1, 0.6))), max(1, int(scale_px * rng.uniform(0.05, 0.3))))
        cv2.ellipse(glare, c, ax, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        k = int(max(3, scale_px * 0.2)) | 1
        glare = cv2.GaussianBlur(glare, (k, k), 0)
        out = out + glare[..., None] * rng.uniform(60, 220)
    out = np.clip(out, 0, 255)
    # blur: defocus or motion
    r = rng.random()
    if r < 0.35:
        s = rng.uniform(0.3, 1.4)
        out = cv2.GaussianBlur(out, (0, 0), s)
    elif r < 0.5:
        n = int(rng.integers(3, 8))
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0 / n
        m = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        k = cv2.warpAffine(k, m, (n, n))
        k /= max(k.sum(), 1e-6)
        out = cv2.filter2D(out, -1, k)
    # sensor noise
    sigma = rng.uniform(0, 9)
    if sigma > 0.5:
        out = out + rng.normal(0, sigma, out.shape).astype(np.float32)
    out8 = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", out8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 96))])
        out8 = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out8


# ------------------------------------------------------------------------------------------------
# scenes
# ------------------------------------------------------------------------------------------------
@dataclass
class Placed:
    m: np.ndarray  # 3x3 face -> canvas
    face_up: bool
    art: DeckArt
    card_idx: int
    card_id: int  # id in the id map


def _transform(card_h: float, fh: int, angle: float, centre_face: tuple[float, float], centre: tuple[float, float],
               squash: float, squash_axis: float) -> np.ndarray:
    s = card_h / fh
    ca, sa = math.cos(angle), math.sin(angle)
    rot = np.array([[ca, -sa], [sa, ca]])
    ce, se = math.cos(squash_axis), math.sin(squash_axis)
    r_ax = np.array([[ce, -se], [se, ce]])
    a2 = r_ax @ np.diag([1.0, squash]) @ r_ax.T @ rot * s
    m = np.eye(3)
    m[:2, :2] = a2
    m[:2, 2] = np.array(centre) - a2 @ np.array(centre_face)
    return m


def apply_h(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ m.T
    return p[:, :2] / p[:, 2:3]


class SceneComposer:
    """Composes table scenes from decks with exact truth, deterministically from a seed.

    ``frame()`` gives a full-resolution frame and per-card truth (the benchmark's frames); the
    detector's training data (:class:`companion.train.detector_data.SceneSampler`) adds dense targets.
    """

    def __init__(self, decks: list[DeckArt], seed: int, out_w: int = 192, out_h: int = 160,
                 backgrounds: Backgrounds | None = None) -> None:
        self.decks = decks
        self.rng = np.random.default_rng(seed)
        self.out_w, self.out_h = out_w, out_h
        self.backgrounds = backgrounds or Backgrounds(np.random.default_rng(seed + 1))

    # -- scene composition ---------------------------------------------------------------
    def frame(self, width: int = 1280, height: int = 720, min_h: float = 60, max_h: float = 400,
              mode: str | None = None) -> tuple[np.ndarray, list[dict]]:
        """A full-resolution frame and, per card, its code, face, quad and index points with visibility."""
        img, placed, ids = self._compose(width, height, min_h=min_h, max_h=max_h, mode=mode)
        truths = []
        for p in placed:
            fh, fw = p.art.back.shape[:2]
            quad = apply_h(p.m, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64))
            card = FULL_DECK[p.card_idx]
            corners = []
            if p.face_up:
                for (x0, y0, x1, y1, _upright) in p.art.boxes[card]:
                    q = apply_h(p.m, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64))
                    corners.append({"point": q.mean(0).tolist(), "visible": visible_fraction(ids, q, p.card_id),
                                    "index_h": float(np.linalg.norm(q[3] - q[0]))})
            truths.append({"card": card, "face_up": p.face_up, "quad": quad.astype(np.float32),
                           "visible": visible_fraction(ids, quad, p.card_id), "corners": corners})
        return img, truths

    def _compose(self, W: int, H: int, min_h: float, max_h: float,
                 mode: str | None = None) -> tuple[np.ndarray, list[Placed], np.ndarray]:
        rng = self.rng
        canvas = self.backgrounds.patch(rng, max(W, 64), max(H, 64))[:H, :W].copy()
        ids = np.zeros((H, W), np.int32)
        art = self.decks[int(rng.integers(len(self.decks)))]
        r = rng.random()
        card_h = math.exp(rng.uniform(math.log(min_h), math.log(max_h)))
        squash = math.cos(math.radians(rng.uniform(0, 35)))
        squash_axis = rng.uniform(0, math.pi)
        placed: list[Placed] = []
        mode = mode or ("clock" if r < 0.35 else "scatter" if r < 0.7 else "fan" if r < 0.85 else "single")
        getattr(self, "_" + mode)(art, card_h, squash, squash_axis, W, H, placed)
        for p in placed:
            self._draw(canvas, ids, p)
        if rng.random() < 0.3:
            self._hand(canvas, ids, card_h, W, H)
        img = photometric(canvas, rng, card_h * 0.3)
        return img, placed, ids

    def _pose(self, art: DeckArt, card_h: float, angle: float, centre: tuple[float, float], squash: float,
              axis: float) -> np.ndarray:
        fh, fw = art.back.shape[:2]
        jitter = math.exp(self.rng.normal(0, 0.04))
        return _transform(card_h * jitter, fh, angle, (fw / 2, fh / 2), centre, squash, axis)

    def _add(self, placed: list[Placed], art: DeckArt, m: np.ndarray, face_up: bool, card_idx: int | None = None) -> None:
        if card_idx is None:
            card_idx = int(self.rng.integers(52))
        placed.append(Placed(m, face_up, art, card_idx, len(placed) + 1))

    def _clock(self, art, card_h, squash, axis, W, H, placed) -> None:  # noqa: ANN001
        rng = self.rng
        R = card_h * rng.uniform(1.6, 2.6)
        cx, cy = W * rng.uniform(0.2, 0.8), H * rng.uniform(0.2, 0.8)
        rot = rng.uniform(0, 2 * math.pi)
        radial = rng.random() < 0.5
        fh = art.back.shape[0]
        for p in range(13):
            if p < 12:
                a = rot + p * math.pi / 6
                px, py = cx + R * math.sin(a), cy - R * math.cos(a)
                out = (math.sin(a), -math.cos(a))
            else:
                px, py = cx, cy
                a = rot + 0.5
                out = (math.sin(a), -math.cos(a))
            if not (-card_h < px < W + card_h and -card_h < py < H + card_h):
                continue
            ang = (a if radial else rot) + rng.normal(0, 0.08)
            n_up = int(rng.integers(0, 5))
            step = card_h * rng.uniform(0.18, 0.35)
            for k in range(n_up, 0, -1):  # face-up cards beneath, fanned outward (drawn first)
                c = (px + out[0] * step * k, py + out[1] * step * k)
                self._add(placed, art, self._pose(art, card_h, ang + rng.normal(0, 0.05), c, squash, axis), True)
            n_down = int(rng.integers(0, 5))
            for layer in range(n_down):  # the face-down stack, a little thickness
                c = (px - layer * card_h * 0.006, py - layer * card_h * 0.008)
                self._add(placed, art, self._pose(art, card_h, ang, c, squash, axis), False)
            if rng.random() < 0.08:  # the "on top" mistake
                self._add(placed, art, self._pose(art, card_h, ang + rng.normal(0, 0.3), (px, py), squash, axis), True)
        del fh

    def _scatter(self, art, card_h, squash, axis, W, H, placed) -> None:  # noqa: ANN001
        rng = self.rng
        n = int(rng.integers(1, max(2, min(30, int(6 * W * H / (card_h * card_h * 0.7))))))
        for _ in range(n):
            c = (rng.uniform(-0.2, 1.2) * W, rng.uniform(-0.2, 1.2) * H)
            self._add(placed, art, self._pose(art, card_h, rng.uniform(0, 2 * math.pi), c, squash, axis),
                      bool(rng.random() < 0.8))

    def _fan(self, art, card_h, squash, axis, W, H, placed) -> None:  # noqa: ANN001
        rng = self.rng
        n = int(rng.integers(2, 9))
        c0 = np.array([W * rng.uniform(0.1, 0.9), H * rng.uniform(0.1, 0.9)])
        a = rng.uniform(0, 2 * math.pi)
        d = np.array([math.cos(a), math.sin(a)]) * card_h * rng.uniform(0.15, 0.4)
        ang = rng.uniform(0, 2 * math.pi)
        spread = rng.normal(0, 0.08)
        for k in range(n):
            c = c0 + d * (k - n / 2)
            self._add(placed, art, self._pose(art, card_h, ang + spread * k, tuple(c), squash, axis), True)

    def _single(self, art, card_h, squash, axis, W, H, placed) -> None:  # noqa: ANN001
        rng = self.rng
        n = int(rng.integers(1, 3))
        for _ in range(n):
            c = (W * rng.uniform(0.25, 0.75), H * rng.uniform(0.25, 0.75))
            ang = rng.choice([0, math.pi / 2, math.pi, 1.5 * math.pi]) + rng.normal(0, 0.15)
            self._add(placed, art, self._pose(art, card_h, ang, c, squash, axis), True)

    def _draw(self, canvas: np.ndarray, ids: np.ndarray, p: Placed) -> None:

        img = p.art.faces[FULL_DECK[p.card_idx]] if p.face_up else p.art.back
        fh, fw = img.shape[:2]
        corners = apply_h(p.m, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64))
        H, W = ids.shape
        x0, y0 = np.floor(corners.min(0)).astype(int)
        x1, y1 = np.ceil(corners.max(0)).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if x1 <= x0 or y1 <= y0:
            return
        t = np.eye(3)
        t[:2, 2] = [-x0, -y0]
        m = t @ p.m
        warped = cv2.warpPerspective(img, m, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA if fh > 200 else cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        a = warped[..., 3:4].astype(np.float32) / 255.0
        roi = canvas[y0:y1, x0:x1]
        if self.rng.random() < 0.5:  # a faint drop shadow
            sh = cv2.GaussianBlur(a[..., 0], (0, 0), 1.5)
            roi *= (1 - 0.25 * np.roll(np.roll(sh, 2, 0), 2, 1))[..., None]
        roi *= 1 - a
        roi += warped[..., :3].astype(np.float32) * a
        sub = ids[y0:y1, x0:x1]
        sub[a[..., 0] > 0.5] = p.card_id

    def _hand(self, canvas: np.ndarray, ids: np.ndarray, card_h: float, W: int, H: int) -> None:
        rng = self.rng
        mask = np.zeros(ids.shape, np.uint8)
        c = (int(rng.uniform(0, W)), int(rng.uniform(0, H)))
        ax = (int(card_h * rng.uniform(0.5, 1.2)), int(card_h * rng.uniform(0.3, 0.6)))
        ang = float(rng.uniform(0, 180))
        cv2.ellipse(mask, c, ax, ang, 0, 360, 255, -1)
        # an arm to the image edge
        e = (int(c[0] + math.cos(math.radians(ang)) * W), int(c[1] + math.sin(math.radians(ang)) * W))
        cv2.line(mask, c, e, 255, int(ax[1] * 1.2))
        soft = cv2.GaussianBlur(mask, (0, 0), 1.2).astype(np.float32)[..., None] / 255
        canvas *= 1 - soft
        canvas += soft * skin_tone(rng)
        ids[mask > 127] = -1


def visible_fraction(ids: np.ndarray, quad: np.ndarray, card_id: int) -> float:
    H, W = ids.shape
    x0, y0 = np.floor(quad.min(0)).astype(int)
    x1, y1 = np.ceil(quad.max(0)).astype(int)
    if x1 <= 0 or y1 <= 0 or x0 >= W or y0 >= H:
        return 0.0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - [x0, y0]).astype(np.int32), 1)
    total = int(mask.sum())
    if total == 0:
        return 0.0
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    sub_ids = ids[cy0:cy1, cx0:cx1]
    sub_mask = mask[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0]
    return float(((sub_ids == card_id) & (sub_mask > 0)).sum()) / total
