"""Training scenes for the corner detector: composed scenes with dense targets (no torch).

The scenes come from :class:`companion.synth.composer.SceneComposer` (the benchmark's frames come
from it too), composed at twice the detector's resolution and shrunk the way the run time shrinks a
frame. Every card's outline is drawn into an id map in z order, so the visible fraction of each
printed index is exact: an index at least ``VISIBLE_POSITIVE`` visible is a positive, a half-covered
one is ignored in the loss, a covered one is background.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from ..synth.composer import VISIBLE_IGNORE, VISIBLE_POSITIVE, Placed, SceneComposer, apply_h, visible_fraction
from ..vision.spec import DETECTOR_OUTPUTS, DETECTOR_STRIDE

__all__ = ["SceneSampler", "Targets", "VISIBLE_POSITIVE", "empty_targets", "render_targets"]

#: Share of training scenes drawn with small cards only.
SMALL_SCENES = 0.5


@dataclass
class Targets:
    """Dense targets at the detector's output resolution."""

    heat: np.ndarray  # (2, h, w) float32 in [0, 1]
    weight: np.ndarray  # (2, h, w) float32: 0 where ignored
    reg: np.ndarray  # (8, h, w) float32: offset(2), up(2), log card h, log index h, centre offset(2)
    reg_mask: np.ndarray  # (h, w) float32: 1 where regression is supervised (index corners)
    reg_mask_down: np.ndarray  # (h, w) float32: 1 where face-down regression is supervised


class SceneSampler(SceneComposer):
    """Makes (image uint8 (H, W, 3) at detector scale, Targets) pairs from decks, deterministically."""

    def sample(self) -> tuple[np.ndarray, Targets]:
        """A detector-scale image (out_w x out_h) and its dense targets."""
        # Half the scenes hold small cards (14-48 px at the detector's scale: 45-160 px in a 1280 px
        # frame), where the corner index is only a few pixels tall and most misses were.
        lo, hi = (14, 48) if self.rng.random() < SMALL_SCENES else (14, 280)
        img, placed, ids = self._compose(self.out_w * 2, self.out_h * 2, min_h=lo * 2, max_h=hi * 2)
        small = cv2.resize(img, (self.out_w, self.out_h), interpolation=cv2.INTER_AREA)
        return small, render_targets(placed, ids, self.out_w, self.out_h, scale=0.5)


def empty_targets(out_w: int, out_h: int) -> Targets:
    """Targets with nothing in them (all background, every cell weighted) for an (out_w, out_h) input."""
    gw, gh = out_w // DETECTOR_STRIDE, out_h // DETECTOR_STRIDE
    return Targets(np.zeros((2, gh, gw), np.float32), np.ones((2, gh, gw), np.float32),
                   np.zeros((DETECTOR_OUTPUTS - 2, gh, gw), np.float32), np.zeros((gh, gw), np.float32),
                   np.zeros((gh, gw), np.float32))


def render_targets(placed: list[Placed], ids: np.ndarray, out_w: int, out_h: int, scale: float) -> Targets:
    """Dense targets at stride DETECTOR_STRIDE of an (out_w, out_h) detector input.

    ``scale`` maps canvas pixels to detector-input pixels.
    """
    from ..cards import FULL_DECK

    t = empty_targets(out_w, out_h)
    heat, weight, reg, reg_mask, reg_mask_down = t.heat, t.weight, t.reg, t.reg_mask, t.reg_mask_down
    H, W = ids.shape
    for p in placed:
        fh, fw = p.art.back.shape[:2]
        card_pts = apply_h(p.m, np.array([[fw / 2, fh / 2], [fw / 2, 0], [fw / 2, fh]], np.float64))
        centre = card_pts[0]
        card_h = float(np.linalg.norm(card_pts[1] - card_pts[2])) * scale
        if p.face_up:
            boxes = p.art.boxes[FULL_DECK[p.card_idx]]
            for (x0, y0, x1, y1, upright) in boxes:
                quad = apply_h(p.m, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64))
                vis = visible_fraction(ids, quad, p.card_id)
                c = apply_h(p.m, np.array([[(x0 + x1) / 2, (y0 + y1) / 2]], np.float64))[0]
                d = 1.0 if upright else -1.0
                c_up = apply_h(p.m, np.array([[(x0 + x1) / 2, (y0 + y1) / 2 - d * 4]], np.float64))[0]
                up = c_up - c
                up /= max(np.linalg.norm(up), 1e-6)
                index_h = float(np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2 * scale
                if not upright:
                    index_h = index_h
                _splat(heat[0], weight[0], reg, reg_mask, c * scale, vis, up, card_h, index_h,
                       (centre - c) * scale / max(card_h, 1e-6), index_h)
        else:
            q = apply_h(p.m, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64))
            vis = visible_fraction(ids, q, p.card_id)
            up = card_pts[1] - card_pts[0]
            up /= max(np.linalg.norm(up), 1e-6)
            _splat(heat[1], weight[1], reg, reg_mask_down, centre * scale, vis, up, card_h, card_h * 0.2,
                   np.zeros(2), card_h * 0.5)
    del H, W
    return t


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
