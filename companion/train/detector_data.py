"""Training scenes for the corner detector: many cards on many tables, with exact targets (no torch).

A scene is composed at twice the detector's resolution and shrunk the way the run time shrinks a
frame: clock layouts (face-down stacks with fanned face-up cards beneath), loose overlapping cards,
fans held in a row, single big cards (as a phone photo shows them), card backs, hands. Every card's
outline is drawn into an id map in z order, so the visible fraction of each printed index is exact:
an index at least ``VISIBLE_POSITIVE`` visible is a positive, a half-covered one is ignored in the
loss, a covered one is background.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from ..vision.spec import DETECTOR_OUTPUTS, DETECTOR_STRIDE
from .index_data import Backgrounds, DeckArt, _skin, photometric

__all__ = ["SceneSampler", "Targets", "VISIBLE_POSITIVE", "render_targets"]

VISIBLE_POSITIVE = 0.75
VISIBLE_IGNORE = 0.3
#: Share of training scenes drawn with small cards only.
SMALL_SCENES = 0.5


@dataclass
class _Placed:
    m: np.ndarray  # 3x3 face -> canvas
    face_up: bool
    art: DeckArt
    card_idx: int
    card_id: int  # id in the id map


@dataclass
class Targets:
    """Dense targets at the detector's output resolution."""

    heat: np.ndarray  # (2, h, w) float32 in [0, 1]
    weight: np.ndarray  # (2, h, w) float32: 0 where ignored
    reg: np.ndarray  # (8, h, w) float32: offset(2), up(2), log card h, log index h, centre offset(2)
    reg_mask: np.ndarray  # (h, w) float32: 1 where regression is supervised (index corners)
    reg_mask_down: np.ndarray  # (h, w) float32: 1 where face-down regression is supervised


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


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ m.T
    return p[:, :2] / p[:, 2:3]


class SceneSampler:
    """Makes (image uint8 (H, W, 3) at detector scale, Targets) pairs from decks, deterministically."""

    def __init__(self, decks: list[DeckArt], seed: int, out_w: int = 192, out_h: int = 160,
                 backgrounds: Backgrounds | None = None) -> None:
        self.decks = decks
        self.rng = np.random.default_rng(seed)
        self.out_w, self.out_h = out_w, out_h
        self.backgrounds = backgrounds or Backgrounds(np.random.default_rng(seed + 1))

    # -- scene composition ---------------------------------------------------------------
    def sample(self) -> tuple[np.ndarray, Targets]:
        """A detector-scale image (out_w x out_h) and its dense targets."""
        # Half the scenes hold small cards (14-48 px at the detector's scale: 45-160 px in a 1280 px
        # frame), where the corner index is only a few pixels tall and most misses were.
        lo, hi = (14, 48) if self.rng.random() < SMALL_SCENES else (14, 280)
        img, placed, ids = self._compose(self.out_w * 2, self.out_h * 2, min_h=lo * 2, max_h=hi * 2)
        small = cv2.resize(img, (self.out_w, self.out_h), interpolation=cv2.INTER_AREA)
        return small, render_targets(placed, ids, self.out_w, self.out_h, scale=0.5)

    def frame(self, width: int = 1280, height: int = 720, min_h: float = 60, max_h: float = 400,
              mode: str | None = None) -> tuple[np.ndarray, list[dict]]:
        """A full-resolution frame and, per card, its code, face, quad and index points with visibility."""
        from ..cards import FULL_DECK

        img, placed, ids = self._compose(width, height, min_h=min_h, max_h=max_h, mode=mode)
        truths = []
        for p in placed:
            fh, fw = p.art.back.shape[:2]
            quad = _apply(p.m, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64))
            card = FULL_DECK[p.card_idx]
            corners = []
            if p.face_up:
                for (x0, y0, x1, y1, _upright) in p.art.boxes[card]:
                    q = _apply(p.m, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64))
                    corners.append({"point": q.mean(0).tolist(), "visible": _visible(ids, q, p.card_id),
                                    "index_h": float(np.linalg.norm(q[3] - q[0]))})
            truths.append({"card": card, "face_up": p.face_up, "quad": quad.astype(np.float32),
                           "visible": _visible(ids, quad, p.card_id), "corners": corners})
        return img, truths

    def _compose(self, W: int, H: int, min_h: float, max_h: float,
                 mode: str | None = None) -> tuple[np.ndarray, list[_Placed], np.ndarray]:
        rng = self.rng
        canvas = self.backgrounds.patch(rng, max(W, 64), max(H, 64))[:H, :W].copy()
        ids = np.zeros((H, W), np.int32)
        art = self.decks[int(rng.integers(len(self.decks)))]
        r = rng.random()
        card_h = math.exp(rng.uniform(math.log(min_h), math.log(max_h)))
        squash = math.cos(math.radians(rng.uniform(0, 35)))
        squash_axis = rng.uniform(0, math.pi)
        placed: list[_Placed] = []
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

    def _add(self, placed: list[_Placed], art: DeckArt, m: np.ndarray, face_up: bool, card_idx: int | None = None) -> None:
        if card_idx is None:
            card_idx = int(self.rng.integers(52))
        placed.append(_Placed(m, face_up, art, card_idx, len(placed) + 1))

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

    def _draw(self, canvas: np.ndarray, ids: np.ndarray, p: _Placed) -> None:
        from ..cards import FULL_DECK

        img = p.art.faces[FULL_DECK[p.card_idx]] if p.face_up else p.art.back
        fh, fw = img.shape[:2]
        corners = _apply(p.m, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64))
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
        canvas += soft * _skin(rng)
        ids[mask > 127] = -1


def render_targets(placed: list[_Placed], ids: np.ndarray, out_w: int, out_h: int, scale: float) -> Targets:
    """Dense targets at stride DETECTOR_STRIDE of an (out_w, out_h) detector input.

    ``scale`` maps canvas pixels to detector-input pixels.
    """
    from ..cards import FULL_DECK

    gw, gh = out_w // DETECTOR_STRIDE, out_h // DETECTOR_STRIDE
    heat = np.zeros((2, gh, gw), np.float32)
    weight = np.ones((2, gh, gw), np.float32)
    reg = np.zeros((DETECTOR_OUTPUTS - 2, gh, gw), np.float32)
    reg_mask = np.zeros((gh, gw), np.float32)
    reg_mask_down = np.zeros((gh, gw), np.float32)
    H, W = ids.shape
    for p in placed:
        fh, fw = p.art.back.shape[:2]
        card_pts = _apply(p.m, np.array([[fw / 2, fh / 2], [fw / 2, 0], [fw / 2, fh]], np.float64))
        centre = card_pts[0]
        card_h = float(np.linalg.norm(card_pts[1] - card_pts[2])) * scale
        if p.face_up:
            boxes = p.art.boxes[FULL_DECK[p.card_idx]]
            for (x0, y0, x1, y1, upright) in boxes:
                quad = _apply(p.m, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64))
                vis = _visible(ids, quad, p.card_id)
                c = _apply(p.m, np.array([[(x0 + x1) / 2, (y0 + y1) / 2]], np.float64))[0]
                d = 1.0 if upright else -1.0
                c_up = _apply(p.m, np.array([[(x0 + x1) / 2, (y0 + y1) / 2 - d * 4]], np.float64))[0]
                up = c_up - c
                up /= max(np.linalg.norm(up), 1e-6)
                index_h = float(np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2 * scale
                if not upright:
                    index_h = index_h
                _splat(heat[0], weight[0], reg, reg_mask, c * scale, vis, up, card_h, index_h,
                       (centre - c) * scale / max(card_h, 1e-6), index_h)
        else:
            q = _apply(p.m, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64))
            vis = _visible(ids, q, p.card_id)
            up = card_pts[1] - card_pts[0]
            up /= max(np.linalg.norm(up), 1e-6)
            _splat(heat[1], weight[1], reg, reg_mask_down, centre * scale, vis, up, card_h, card_h * 0.2,
                   np.zeros(2), card_h * 0.5)
    del H, W
    return Targets(heat, weight, reg, reg_mask, reg_mask_down)


def _visible(ids: np.ndarray, quad: np.ndarray, card_id: int) -> float:
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


def _splat(heat: np.ndarray, weight: np.ndarray, reg: np.ndarray, reg_mask: np.ndarray, pt: np.ndarray, vis: float,
           up: np.ndarray, card_h: float, index_h: float, centre_off: np.ndarray, size_for_sigma: float) -> None:
    gh, gw = heat.shape
    gx, gy = pt[0] / DETECTOR_STRIDE - 0.5, pt[1] / DETECTOR_STRIDE - 0.5
    ix, iy = int(round(gx)), int(round(gy))
    if not (0 <= ix < gw and 0 <= iy < gh):
        return
    sigma = max(0.6, 0.15 * size_for_sigma / DETECTOR_STRIDE)
    r = int(math.ceil(2.5 * sigma))
    ys, xs = np.mgrid[max(0, iy - r):min(gh, iy + r + 1), max(0, ix - r):min(gw, ix + r + 1)]
    g = np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * sigma * sigma)).astype(np.float32)
    sl = (slice(max(0, iy - r), min(gh, iy + r + 1)), slice(max(0, ix - r), min(gw, ix + r + 1)))
    if vis >= VISIBLE_POSITIVE:
        heat[sl] = np.maximum(heat[sl], g)
        heat[iy, ix] = 1.0  # the peak cell is the positive of the focal loss (exactly 1)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                x, y = ix + dx, iy + dy
                if 0 <= x < gw and 0 <= y < gh and (dx == 0 and dy == 0 or reg_mask[y, x] == 0):
                    reg[0, y, x] = gx - x
                    reg[1, y, x] = gy - y
                    reg[2, y, x], reg[3, y, x] = up
                    reg[4, y, x] = math.log(max(card_h, 1.0) / DETECTOR_STRIDE)
                    reg[5, y, x] = math.log(max(index_h, 0.5) / DETECTOR_STRIDE)
                    reg[6, y, x], reg[7, y, x] = centre_off
                    reg_mask[y, x] = 1.0 if (dx == 0 and dy == 0) else max(reg_mask[y, x], 0.5)
    elif vis >= VISIBLE_IGNORE:
        weight[sl] = np.minimum(weight[sl], np.where(g > 0.1, 0.0, 1.0))
