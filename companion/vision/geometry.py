"""Geometry shared by recognition and its training: upright index crops and card quads.

Directions are unit vectors in image coordinates (x right, y down). A card's ``up`` points from
its bottom edge to its top edge as printed; for an upright card ``up = (0, -1)``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .spec import CARD_ASPECT, CROP_SCALE, INDEX_CROP_H, INDEX_CROP_W

__all__ = ["Pyramid", "crop_matrix", "crop_index", "card_quad", "up_to_angle", "angle_to_up", "corrected_crop"]


def up_to_angle(ux: float, uy: float) -> float:
    """Degrees counter-clockwise from image-up of the direction (ux, uy).

    >>> round(up_to_angle(0, -1)), round(up_to_angle(-1, 0)), round(up_to_angle(0, 1))
    (0, 90, 180)
    """
    return math.degrees(math.atan2(-ux, -uy)) % 360.0


def angle_to_up(angle_deg: float) -> tuple[float, float]:
    a = math.radians(angle_deg)
    return -math.sin(a), -math.cos(a)


class Pyramid:
    """An image and its successive halvings, built lazily, so crops from big cards don't alias."""

    def __init__(self, image: np.ndarray, max_levels: int = 4) -> None:
        self.levels = [image]
        self.max_levels = max_levels

    def level(self, k: int) -> np.ndarray:
        k = max(0, min(k, self.max_levels))
        while len(self.levels) <= k:
            self.levels.append(cv2.pyrDown(self.levels[-1]))
        return self.levels[k]


def crop_matrix(centre: tuple[float, float], up: tuple[float, float], index_h: float,
                out_w: int = INDEX_CROP_W, out_h: int = INDEX_CROP_H, scale: float = CROP_SCALE) -> np.ndarray:
    """2x3 affine matrix mapping crop pixels to image pixels."""
    ux, uy = up
    n = math.hypot(ux, uy) or 1.0
    ux, uy = ux / n, uy / n
    s = scale * index_h / out_h  # image pixels per crop pixel
    rx, ry = -uy, ux  # the crop's right, in the image
    cx, cy = centre
    # image = centre + (u - out_w/2 + .5) * s * right + (v - out_h/2 + .5) * s * down
    dx, dy = -ux, -uy  # the crop's down
    ox = cx - (out_w / 2 - 0.5) * s * rx - (out_h / 2 - 0.5) * s * dx
    oy = cy - (out_w / 2 - 0.5) * s * ry - (out_h / 2 - 0.5) * s * dy
    return np.array([[s * rx, s * dx, ox], [s * ry, s * dy, oy]], np.float64)


def crop_index(image: np.ndarray | Pyramid, centre: tuple[float, float], up: tuple[float, float],
               index_h: float, out_w: int = INDEX_CROP_W, out_h: int = INDEX_CROP_H,
               scale: float = CROP_SCALE) -> np.ndarray:
    """The upright index crop (out_h, out_w, 3) around ``centre``; a pyramid level avoids aliasing."""
    pyr = image if isinstance(image, Pyramid) else Pyramid(image)
    m = crop_matrix(centre, up, index_h, out_w, out_h, scale)
    step = math.hypot(m[0, 0], m[1, 0])  # image pixels per crop pixel
    level = int(math.floor(math.log2(step))) if step >= 2.0 else 0
    src = pyr.level(level)
    if level:
        f = 1.0 / (2 ** level)
        m = m * f
        m[:, 2] += 0.5 * f - 0.5  # pyrDown pixel centres
    return cv2.warpAffine(src, m, (out_w, out_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def corrected_crop(centre: tuple[float, float], up: tuple[float, float], index_h: float,
                   correction: "np.ndarray | tuple[float, float, float, float]"
                   ) -> tuple[tuple[float, float], tuple[float, float], float]:
    """Apply the index reader's geometry correction to a crop's (centre, up, index height).

    ``correction`` = (along the crop's right, along its down, in index heights; turn in radians, as
    counter-clockwise in the image's y-down axes is positive for :func:`up_to_angle`'s inverse; log of
    the size factor), as the reader predicts it from the crop.

    >>> c, u, h = corrected_crop((100.0, 50.0), (0.0, -1.0), 20.0, (0.5, 0.0, 0.0, 0.0))
    >>> [round(v, 6) + 0.0 for v in (*c, *u, h)]
    [110.0, 50.0, 0.0, -1.0, 20.0]
    """
    gx, gy, ga, gs = (float(v) for v in correction)
    ux, uy = up
    n = math.hypot(ux, uy) or 1.0
    ux, uy = ux / n, uy / n
    rx, ry = -uy, ux  # the crop's right
    dx, dy = -ux, -uy  # the crop's down
    cx = centre[0] + (gx * rx + gy * dx) * index_h
    cy = centre[1] + (gx * ry + gy * dy) * index_h
    ca, sa = math.cos(ga), math.sin(ga)
    return (cx, cy), (ux * ca - uy * sa, ux * sa + uy * ca), index_h * math.exp(gs)


def card_quad(centre: tuple[float, float], up: tuple[float, float], card_h: float,
              aspect: float = CARD_ASPECT) -> np.ndarray:
    """The four corners TL, TR, BR, BL of an upright-relative card rectangle, float32 (4, 2)."""
    ux, uy = up
    n = math.hypot(ux, uy) or 1.0
    ux, uy = ux / n, uy / n
    rx, ry = -uy, ux
    hw, hh = card_h * aspect / 2, card_h / 2
    cx, cy = centre
    pts = [(-hw, hh), (hw, hh), (hw, -hh), (-hw, -hh)]  # (right, up) offsets: TL, TR, BR, BL
    return np.array([[cx + a * rx + b * ux, cy + a * ry + b * uy] for a, b in pts], np.float32)


def crop_card(image: np.ndarray, quad: np.ndarray, width: int, height: int) -> np.ndarray:
    """The card inside ``quad`` (TL, TR, BR, BL as :func:`card_quad` gives them) warped upright to
    ``width`` x ``height``."""
    q = np.asarray(quad, np.float32)
    # a big card is warped at a multiple of the size, then shrunk by area (no aliasing of its pips)
    k = int(max(1, min(6, round(float(np.linalg.norm(q[3] - q[0])) / height))))
    dst = np.float32([[0, 0], [width * k, 0], [width * k, height * k], [0, height * k]])
    m = cv2.getPerspectiveTransform(q, dst)
    out = cv2.warpPerspective(image, m, (width * k, height * k), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return out if k == 1 else cv2.resize(out, (width, height), interpolation=cv2.INTER_AREA)


def dominant_axis(image: np.ndarray, centre: tuple[float, float], index_h: float, reach: float = 1.5) -> float | None:
    """The direction (radians, modulo a quarter turn) of the straight lines around an index: a card's
    edges and most strokes of its glyphs run along or across its up, so the gradient-weighted mean of
    four times each edge's angle gives the card's turn whatever the detector said. None where the
    window holds no edges (or lies outside the image)."""
    r = max(6, int(reach * index_h))
    x, y = int(round(centre[0])), int(round(centre[1]))
    patch = image[max(0, y - r):max(0, y + r), max(0, x - r):max(0, x + r)]
    if patch.shape[0] < 6 or patch.shape[1] < 6:
        return None
    g = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
    g = g.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    # (gx + i gy) ** 4 / |g| ** 2: four times each edge's angle, weighted by its squared strength
    a = gx * gx - gy * gy
    b = 2.0 * gx * gy
    w = 1.0 / (gx * gx + gy * gy + 1e-6)
    z = complex(float(((a * a - b * b) * w).sum()), float((2.0 * a * b * w).sum()))
    if z == 0:
        return None
    return math.atan2(z.imag, z.real) / 4


def axis_ups(up: tuple[float, float], axis: float, count: int = 2) -> list[tuple[float, float]]:
    """The ``count`` directions along ``axis`` (a quarter-turn family, see :func:`dominant_axis`)
    nearest to ``up``, nearest first.

    >>> [tuple(round(v, 3) for v in u) for u in axis_ups((0.0, -1.0), math.radians(10))]
    [(0.174, -0.985), (-0.985, -0.174)]
    """
    a = math.atan2(up[1], up[0])
    options = []
    for k in range(4):
        b = axis + k * math.pi / 2
        options.append((abs((b - a + math.pi) % (2 * math.pi) - math.pi), b))
    options.sort()
    return [(math.cos(b), math.sin(b)) for _, b in options[:count]]
