"""Where the 13 piles lie in the camera image: the :class:`Layout`, three ways to find it, and
re-registration when the camera or the table moves.

Piles 1..12 lie at the clock hours on a circle, pile 13 (the kings) in the centre. Face-up cards go
*beneath* a pile, slid out away from the centre, so each pile has an outward direction (a unit
vector in the image; the centre pile fans toward half past six, between piles 6 and 7).
``pile_region(p)`` is a polygon covering the stack and its fan-out area, for comparing snapshots;
``locate(point)`` names the pile a point belongs to.

Routes to a layout:

a. :func:`layout_from_detections`: from the 13 face-down piles at the start (recogniser detections):
   clusters them into piles, fits the clock's circle robustly (an ellipse: the camera may be tilted),
   numbers the hours clockwise with 12 at the given side of the image.
b. :func:`companion.vision.mat.layout_from_markers`: a printed mat with ArUco markers.
c. :func:`layout_from_points` after :func:`click_piles` (a window; needs a display).

Every failure is a :class:`LayoutError` with a one-line message that says what was seen and how to
fix it. :class:`LayoutTracker` notices that the view moved between two settled frames and
re-registers the layout.

>>> lay = layout_from_points([(320 + 100 * math.sin(h * math.pi / 6), 240 - 100 * math.cos(h * math.pi / 6))
...                           for h in range(1, 13)] + [(320, 240)], (640, 480))
>>> lay.locate((320, 135)), lay.locate((420, 240)), lay.locate((318, 245)), lay.locate((5, 5))
(12, 3, 13, None)
>>> Layout.from_json(lay.to_json()).locate((420, 240))
3
"""

from __future__ import annotations

import json
import math
import os
import socket
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import cv2
import numpy as np

from .detections import Detections

__all__ = [
    "Layout", "LayoutError", "LayoutTracker", "layout_from_detections", "layout_from_points", "click_piles",
    "display_available", "TWELVE_SIDES", "CENTRE_FAN_BETWEEN", "LAYOUT_FORMAT", "CARD_ASPECT",
]

LAYOUT_FORMAT = "companion-layout/1"
#: width / height of a playing card (poker size 63 x 88 mm)
CARD_ASPECT = 63.0 / 88.0
#: where pile 12 lies in the image, as a unit vector (x right, y down)
TWELVE_SIDES: dict[str, tuple[float, float]] = {"top": (0.0, -1.0), "right": (1.0, 0.0),
                                               "bottom": (0.0, 1.0), "left": (-1.0, 0.0)}
#: the centre pile fans out toward the gap between these two clock piles
CENTRE_FAN_BETWEEN = (6, 7)
#: half the card's diagonal (in card heights), plus a little: the radius of a pile's region
_REGION_RADIUS = 0.64


class LayoutError(ValueError):
    """A layout that cannot be found, or a layout file that cannot be read (one-line message)."""


def _unit(v: Sequence[float], fallback: tuple[float, float] = (0.0, 1.0)) -> np.ndarray:
    a = np.asarray(v, np.float64)
    n = float(np.hypot(a[0], a[1]))
    return a / n if n > 1e-9 and math.isfinite(n) else np.array(fallback, np.float64)


def _clip_halfplane(poly: np.ndarray, origin: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """The part of convex polygon ``poly`` where (x - origin) . normal >= 0 (Sutherland-Hodgman)."""
    out: list[np.ndarray] = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        da, db = float((a - origin) @ normal), float((b - origin) @ normal)
        if da >= 0:
            out.append(a)
        if (da >= 0) != (db >= 0):
            t = da / (da - db)
            out.append(a + t * (b - a))
    return np.array(out, np.float64).reshape(-1, 2)


def _seg_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip((p - a) @ ab / max(float(ab @ ab), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


def _side_of(direction: np.ndarray) -> str:
    return max(TWELVE_SIDES, key=lambda s: float(np.dot(TWELVE_SIDES[s], direction)))


@dataclass(eq=False)
class Layout:
    """The 13 piles in image pixels. Arrays are indexed by ``pile - 1`` (pile 13 = the centre).

    ``homography`` (optional) maps table millimetres to image pixels (the mat route sets it);
    ``pile_card_h`` is each pile's card height in pixels (far piles look smaller when the camera is
    tilted); ``fan_reach`` is how far beyond the stack the fan-out area reaches, in card heights."""

    image_size: tuple[int, int]  # (width, height)
    centres: np.ndarray  # (13, 2) float
    outward: np.ndarray  # (13, 2) unit vectors
    card_h: float
    card_w: float
    twelve_at: str = "top"
    method: str = "manual"
    homography: np.ndarray | None = None
    pile_card_h: np.ndarray | None = None  # (13,)
    fan_reach: float = 1.1
    _regions: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.image_size = (int(self.image_size[0]), int(self.image_size[1]))
        self.centres = np.asarray(self.centres, np.float64).reshape(13, 2)
        self.outward = np.array([_unit(v) for v in np.asarray(self.outward, np.float64).reshape(13, 2)])
        self.card_h, self.card_w = float(self.card_h), float(self.card_w)
        if self.pile_card_h is None:
            self.pile_card_h = np.full(13, self.card_h)
        self.pile_card_h = np.asarray(self.pile_card_h, np.float64).reshape(13)
        if self.homography is not None:
            self.homography = np.asarray(self.homography, np.float64).reshape(3, 3)
        self._regions = {}

    # -- geometry ----------------------------------------------------------------------------
    def centre(self, pile: int) -> tuple[float, float]:
        x, y = self.centres[self._i(pile)]
        return float(x), float(y)

    def out(self, pile: int) -> tuple[float, float]:
        x, y = self.outward[self._i(pile)]
        return float(x), float(y)

    @staticmethod
    def _i(pile: int) -> int:
        if not 1 <= int(pile) <= 13:
            raise ValueError(f"pile must be 1..13, got {pile}")
        return int(pile) - 1

    def _axis(self, pile: int) -> tuple[np.ndarray, np.ndarray, float]:
        i = self._i(pile)
        h = float(self.pile_card_h[i])
        c = self.centres[i]
        return c, c + self.outward[i] * self.fan_reach * h, h

    def pile_region(self, pile: int) -> np.ndarray:
        """Polygon (K, 2) float32 in image pixels covering the stack and the fan-out area beneath it.

        A capsule from the stack centre along the outward direction; clock piles are cut at the
        half-hour lines to their neighbours so neighbouring regions do not overlap."""
        if pile in self._regions:
            return self._regions[pile]
        a, b, h = self._axis(pile)
        u = self.outward[self._i(pile)]
        r = _REGION_RADIUS * h
        base = math.atan2(u[1], u[0])
        pts = [a + r * np.array([math.cos(t), math.sin(t)]) for t in np.linspace(base + math.pi / 2, base + 3 * math.pi / 2, 13)]
        pts += [b + r * np.array([math.cos(t), math.sin(t)]) for t in np.linspace(base - math.pi / 2, base + math.pi / 2, 13)]
        poly = np.array(pts, np.float64)
        if pile != 13:
            c13 = self.centres[12]
            for q in ((pile - 2) % 12 + 1, pile % 12 + 1):
                mid = _unit(self.outward[pile - 1] + self.outward[q - 1])
                normal = self.outward[pile - 1] - (self.outward[pile - 1] @ mid) * mid
                if np.linalg.norm(normal) > 1e-6:
                    poly = _clip_halfplane(poly, c13, _unit(normal))
        region = poly.astype(np.float32)
        self._regions[pile] = region
        return region

    def pile_regions(self) -> dict[int, np.ndarray]:
        return {p: self.pile_region(p) for p in range(1, 14)}

    def pile_mask(self, pile: int, shape: tuple[int, int] | None = None) -> np.ndarray:
        """uint8 mask (255 inside ``pile_region``) of ``shape`` (height, width; default the image's)."""
        h, w = shape if shape is not None else (self.image_size[1], self.image_size[0])
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [np.round(self.pile_region(pile) * 16).astype(np.int32)], 255, cv2.LINE_8, shift=4)
        return mask

    def locate(self, point: Sequence[float]) -> int | None:
        """The pile whose region holds ``point`` (the nearest axis wins where regions overlap), else None."""
        p = np.asarray(point, np.float64)[:2]
        best, best_d = None, math.inf
        for pile in range(1, 14):
            if cv2.pointPolygonTest(self.pile_region(pile).reshape(-1, 1, 2), (float(p[0]), float(p[1])), False) < 0:
                continue
            a, b, h = self._axis(pile)
            d = _seg_dist(p, a, b) / h
            if d < best_d:
                best, best_d = pile, d
        return best

    # -- transforms ----------------------------------------------------------------------------
    def transformed(self, matrix: np.ndarray, image_size: tuple[int, int] | None = None) -> "Layout":
        """The layout after the image moved by ``matrix`` (2x3 affine or 3x3 homography, old px -> new px)."""
        m = np.asarray(matrix, np.float64)
        if m.shape == (2, 3):
            m = np.vstack([m, [0.0, 0.0, 1.0]])
        if m.shape != (3, 3):
            raise ValueError(f"matrix must be 2x3 or 3x3, got {m.shape}")

        def tf(pts: np.ndarray) -> np.ndarray:
            return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), m).reshape(-1, 2)

        c = tf(self.centres)
        tips = tf(self.centres + self.outward * self.pile_card_h[:, None] * 0.5)
        outward = np.array([_unit(t - a) for t, a in zip(tips, c)])
        # local scale: how much a half-card step along the outward direction grew or shrank
        scale = np.linalg.norm(tips - c, axis=1) / np.maximum(self.pile_card_h * 0.5, 1e-9)
        s_med = float(np.median(scale))
        H = m @ self.homography if self.homography is not None else None
        return replace(self, image_size=image_size or self.image_size, centres=c, outward=outward,
                       card_h=self.card_h * s_med, card_w=self.card_w * s_med, homography=H,
                       pile_card_h=self.pile_card_h * scale)

    def resized(self, image_size: tuple[int, int]) -> "Layout":
        """The same layout for frames of another resolution (the same view, scaled)."""
        sx = image_size[0] / self.image_size[0]
        sy = image_size[1] / self.image_size[1]
        return self.transformed(np.array([[sx, 0, 0], [0, sy, 0]], np.float64), image_size)

    # -- serialisation -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        r = lambda v: round(float(v), 2)  # noqa: E731
        return {
            "format": LAYOUT_FORMAT,
            "image_size": list(self.image_size),
            "method": self.method,
            "twelve_at": self.twelve_at,
            "card_h_px": r(self.card_h),
            "card_w_px": r(self.card_w),
            "fan_reach": round(self.fan_reach, 3),
            "homography": None if self.homography is None else [[float(f"{v:.8g}") for v in row] for row in self.homography],
            "piles": {str(p): {"centre": [r(self.centres[p - 1, 0]), r(self.centres[p - 1, 1])],
                               "outward": [round(float(v), 4) for v in self.outward[p - 1]],
                               "card_h_px": r(self.pile_card_h[p - 1])} for p in range(1, 14)},
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "layout") -> "Layout":
        """A layout from its JSON object; raises :class:`LayoutError` naming what is wrong."""

        def bad(msg: str) -> LayoutError:
            return LayoutError(f"{where}: {msg}")

        def num(v: Any, what: str, positive: bool = False) -> float:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise bad(f"{what} must be a number, got {json.dumps(v)[:40]}")
            if positive and v <= 0:
                raise bad(f"{what} must be positive, got {v}")
            return float(v)

        def pair(v: Any, what: str) -> list[float]:
            if not isinstance(v, list) or len(v) != 2:
                raise bad(f"{what} must be [x, y], got {json.dumps(v)[:40]}")
            return [num(x, what) for x in v]

        if not isinstance(data, dict):
            raise bad("not a layout (expected a JSON object)")
        fmt = data.get("format")
        if fmt != LAYOUT_FORMAT:
            raise bad(f"not a layout file (format is {fmt!r}, expected {LAYOUT_FORMAT!r})")
        size = pair(data.get("image_size"), "image_size")
        if size[0] < 1 or size[1] < 1:
            raise bad(f"image_size must be positive, got {size}")
        piles = data.get("piles")
        if not isinstance(piles, dict):
            raise bad("missing 'piles'")
        missing = [str(p) for p in range(1, 14) if str(p) not in piles]
        if missing:
            raise bad(f"piles {', '.join(missing)} missing (need 1..13)")
        card_h = num(data.get("card_h_px"), "card_h_px", positive=True)
        card_w = num(data.get("card_w_px", card_h * CARD_ASPECT), "card_w_px", positive=True)
        centres, outward, heights = [], [], []
        for p in range(1, 14):
            rec = piles[str(p)]
            if not isinstance(rec, dict):
                raise bad(f"pile {p} must be an object with centre and outward")
            centres.append(pair(rec.get("centre"), f"pile {p} centre"))
            o = pair(rec.get("outward"), f"pile {p} outward")
            if math.hypot(*o) < 1e-6:
                raise bad(f"pile {p} outward must not be [0, 0]")
            outward.append(o)
            heights.append(num(rec.get("card_h_px", card_h), f"pile {p} card_h_px", positive=True))
        twelve = data.get("twelve_at", "top")
        if twelve not in TWELVE_SIDES:
            raise bad(f"twelve_at must be one of {', '.join(TWELVE_SIDES)}, got {twelve!r}")
        H = data.get("homography")
        if H is not None:
            if not (isinstance(H, list) and len(H) == 3 and all(isinstance(r, list) and len(r) == 3 for r in H)):
                raise bad("homography must be a 3x3 list or null")
            H = np.array([[num(v, "homography") for v in row] for row in H])
        fan = num(data.get("fan_reach", 1.1), "fan_reach", positive=True)
        method = data.get("method", "manual")
        return cls((int(size[0]), int(size[1])), np.array(centres), np.array(outward), card_h, card_w,
                   twelve_at=twelve, method=str(method), homography=H, pile_card_h=np.array(heights), fan_reach=fan)

    def save(self, path: Path | str) -> None:
        path = Path(path)
        data = self.to_json()
        lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items() if k != "piles"]
        piles = ",\n".join(f"  {json.dumps(p)}: {json.dumps(v)}" for p, v in data["piles"].items())
        text = "{\n" + ",\n".join(lines + [' "piles": {\n' + piles + "\n }"]) + "\n}\n"
        try:
            path.write_text(text)
        except OSError as exc:
            raise LayoutError(f"cannot write {path}: {exc.strerror}") from None

    @classmethod
    def load(cls, path: Path | str) -> "Layout":
        path = Path(path)
        try:
            text = path.read_text()
        except FileNotFoundError:
            raise LayoutError(f"no layout file {path}: make one with `companion calibrate --out {path}`") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise LayoutError(f"cannot read layout file {path}: {getattr(exc, 'strerror', None) or exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LayoutError(f"layout file {path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
        return cls.from_json(data, where=f"layout file {path}")

    # -- people -----------------------------------------------------------------------------------
    def describe(self) -> list[str]:
        """One line per pile: where it is and which way it fans."""
        lines = []
        for p in range(1, 14):
            x, y = self.centre(p)
            ox, oy = self.out(p)
            name = f"pile {p:>2}" if p != 13 else "pile 13 (centre, kings)"
            lines.append(f"{name:<24} at ({x:7.1f}, {y:7.1f}) px, fans toward ({ox:+.2f}, {oy:+.2f}), "
                         f"card {self.pile_card_h[p - 1]:.0f} px high")
        return lines

    def draw(self, image: np.ndarray, *, regions: bool = True) -> np.ndarray:
        """A copy of ``image`` with each pile's region, centre, number and fan direction drawn."""
        out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        if (out.shape[1], out.shape[0]) != self.image_size:
            lay = self.resized((out.shape[1], out.shape[0]))
        else:
            lay = self
        thick = max(1, int(round(lay.card_h / 60)))
        overlay = out.copy()
        for p in range(1, 14):
            colour = (60, 200, 255) if p == 13 else ((80, 220, 80) if p % 3 else (255, 160, 60))
            poly = np.round(lay.pile_region(p) * 16).astype(np.int32)
            if regions:
                cv2.fillPoly(overlay, [poly], colour, cv2.LINE_AA, shift=4)
                cv2.polylines(out, [poly], True, colour, thick, cv2.LINE_AA, shift=4)
            c = np.array(lay.centre(p))
            tip = c + np.array(lay.out(p)) * lay.pile_card_h[p - 1] * 0.9
            cv2.arrowedLine(out, tuple(int(v) for v in c), tuple(int(v) for v in tip), (0, 0, 255), thick + 1,
                            cv2.LINE_AA, tipLength=0.25)
            label = str(p)
            scale = max(0.4, lay.pile_card_h[p - 1] / 90)
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick + 1)
            org = (int(c[0] - tw / 2), int(c[1] + th / 2))
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick + 3, cv2.LINE_AA)
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), thick + 1, cv2.LINE_AA)
        if regions:
            out = cv2.addWeighted(overlay, 0.25, out, 0.75, 0)
        return out


# ---------------------------------------------------------------------------------------------------
# building a layout from points
# ---------------------------------------------------------------------------------------------------
def _centre_outward(centres: np.ndarray) -> np.ndarray:
    a, b = CENTRE_FAN_BETWEEN
    mid = (centres[a - 1] + centres[b - 1]) / 2
    return _unit(mid - centres[12])


def layout_from_points(points: Sequence[Sequence[float]], image_size: tuple[int, int], *,
                       card_h: float | Sequence[float] | None = None, card_w: float | None = None,
                       method: str = "manual") -> Layout:
    """A layout from the 13 pile centres in pile order (1..12, then the centre).

    Without ``card_h`` each pile's card height is guessed from its distance to the centre (piles
    usually lie about two card heights out)."""
    pts = np.asarray(points, np.float64)
    if pts.shape != (13, 2) or not np.isfinite(pts).all():
        raise LayoutError(f"need 13 pile positions (x, y), got {len(pts)}")
    c13 = pts[12]
    radii = np.linalg.norm(pts[:12] - c13, axis=1)
    if (radii < 4).any():
        raise LayoutError("two piles are at the same place: every pile needs its own position")
    outward = np.vstack([[_unit(pts[i] - c13) for i in range(12)], [_centre_outward(pts)]])
    if card_h is None:
        heights = np.append(radii / 2.05, np.median(radii) / 2.05)
    else:
        heights = np.broadcast_to(np.asarray(card_h, np.float64), (13,)).copy()
    h = float(np.median(heights))
    twelve = _side_of(_unit(pts[11] - c13))
    return Layout(image_size, pts, outward, h, card_w or h * CARD_ASPECT, twelve_at=twelve, method=method,
                  pile_card_h=heights)


# ---------------------------------------------------------------------------------------------------
# route a: the face-down piles at the start
# ---------------------------------------------------------------------------------------------------
def _clusters(points: np.ndarray, link: float) -> list[np.ndarray]:
    """Single-link clusters of points closer than ``link`` (index arrays)."""
    n = len(points)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    d = np.linalg.norm(points[:, None] - points[None], axis=2)
    for i in range(n):
        for j in range(i + 1, n):
            if d[i, j] < link:
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return [np.array(g) for g in groups.values()]


Ellipse = tuple[tuple[float, float], tuple[float, float], float]


def _fit_ellipse(pts: np.ndarray) -> Ellipse | None:
    if len(pts) < 5:
        return None
    try:
        (cx, cy), (w, h), ang = cv2.fitEllipse(pts.astype(np.float32).reshape(-1, 1, 2))
    except cv2.error:
        return None
    if not all(math.isfinite(v) for v in (cx, cy, w, h, ang)) or min(w, h) <= 1e-6:
        return None
    return (cx, cy), (w, h), ang


def _ellipse_dist(pts: np.ndarray, ell: Ellipse) -> tuple[np.ndarray, np.ndarray]:
    """Radial distance of each point to the ellipse, and its angle around the ellipse (degrees)."""
    (cx, cy), (w, h), ang = ell
    t = math.radians(ang)
    d = pts - (cx, cy)
    x = d[:, 0] * math.cos(t) + d[:, 1] * math.sin(t)
    y = -d[:, 0] * math.sin(t) + d[:, 1] * math.cos(t)
    a, b = w / 2, h / 2
    r = np.hypot(x / a, y / b)
    dist = np.linalg.norm(d, axis=1) * np.abs(1 - 1 / np.maximum(r, 1e-9))
    return dist, np.degrees(np.arctan2(y / b, x / a))


def _widths(quads: np.ndarray) -> np.ndarray:
    return (np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1) + np.linalg.norm(quads[:, 2] - quads[:, 3], axis=1)) / 2


def _upright_axis(quads: np.ndarray, groups: Sequence[np.ndarray], min_agreement: float = 0.8) -> np.ndarray | None:
    """The image direction the ring's cards point along (a unit vector, sign arbitrary) when they are
    laid upright (all parallel, pointing to 12 o'clock), else None (laid radially: every card points
    at the centre, so the cards tell nothing about which hour is 12). Axes are averaged as doubled
    angles (a card's long axis has no sign); ``min_agreement`` is the least resultant length."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    a = ((q[:, 1] - q[:, 0]) + (q[:, 2] - q[:, 3])) / 2  # along the top and bottom edges
    b = ((q[:, 3] - q[:, 0]) + (q[:, 2] - q[:, 1])) / 2  # along the sides
    longer = np.where((np.linalg.norm(b, axis=1) >= np.linalg.norm(a, axis=1))[:, None], b, a)
    th = np.arctan2(longer[:, 1], longer[:, 0])
    dbl = np.column_stack([np.cos(2 * th), np.sin(2 * th)])
    per_pile = []
    for g in groups:
        m = dbl[np.asarray(g)].mean(axis=0)
        n = float(np.linalg.norm(m))
        if n > 1e-9:
            per_pile.append(m / n)
    if len(per_pile) < 8:
        return None
    mean = np.mean(per_pile, axis=0)
    if float(np.linalg.norm(mean)) < min_agreement:
        return None
    ang = math.atan2(mean[1], mean[0]) / 2
    return np.array([math.cos(ang), math.sin(ang)])


def layout_from_detections(dets: Detections, image_size: tuple[int, int], twelve_at: str = "top", *,
                           seed: int = 0) -> Layout:
    """The layout from the 13 face-down piles at the start of a game.

    Face-down detections (a stack may give one or several) are clustered into piles; 12 piles on an
    ellipse (a circle seen by a tilted camera, found with a RANSAC fit so stray cards do not spoil
    it) and one near its middle make the clock; the hours are numbered clockwise, 12 being the pile
    nearest ``twelve_at`` (top, right, bottom or left of the image). When the cards are laid upright
    (all parallel, pointing to 12) the hour they point to on the ``twelve_at`` side is 12, so a camera
    turned (rolled) by up to about 80 degrees still numbers the hours right; cards laid radially tell
    nothing, and 12 is then the pile nearest ``twelve_at`` (right up to a roll of 15 degrees)."""
    if twelve_at not in TWELVE_SIDES:
        raise LayoutError(f"twelve_at must be one of {', '.join(TWELVE_SIDES)}, got {twelve_at!r}")
    down = dets[~dets.face_up.astype(bool)] if len(dets) else dets
    n_up = len(dets) - len(down)
    hint_up = f" ({n_up} face-up card(s) seen: calibrate before the first card is turned)" if n_up else ""
    if len(down) == 0:
        raise LayoutError(f"found no face-down piles, need 13: deal the 13 piles of 4 face down and make sure "
                          f"they are all in view{hint_up}")
    heights = down.heights.astype(np.float64)
    ok = np.isfinite(heights) & (heights > 2)
    down, heights = down[ok], heights[ok]
    if len(down) == 0:
        raise LayoutError("found no usable face-down piles (degenerate card outlines)")
    h_all = float(np.median(heights))
    groups = _clusters(down.centres.astype(np.float64), 0.45 * h_all)
    centres = np.array([down.centres[g].mean(axis=0) for g in groups], np.float64)
    pile_h = np.array([float(np.median(heights[g])) for g in groups])
    widths = _widths(down.quads.astype(np.float64))
    n = len(groups)
    if n < 13:
        raise LayoutError(f"found {n} piles, need 13: make sure every pile is in view and not covered{hint_up}")
    if n > 40:
        raise LayoutError(f"found {n} separate face-down cards, expected 13 piles: deal them into 13 piles of 4")
    h = float(np.median(pile_h))
    tol = 0.45 * h
    diag = math.hypot(*image_size)

    def sane(ell: Ellipse | None) -> bool:
        if ell is None:
            return False
        (cx, cy), (w, hh), _ = ell
        a, b = max(w, hh) / 2, min(w, hh) / 2
        return b / a > 0.35 and b > 1.0 * h and a < 1.5 * diag and abs(cx) < 2 * diag and abs(cy) < 2 * diag

    hyps: list[np.ndarray] = [np.delete(np.arange(n), i) for i in range(n)]
    rng = np.random.default_rng(seed)
    hyps += [rng.choice(n, 5, replace=False) for _ in range(300)]
    best: tuple[int, float, Ellipse, np.ndarray] | None = None
    best_key: tuple[bool, int, float] | None = None
    for idx in hyps:
        ell = _fit_ellipse(centres[idx])
        if not sane(ell):
            continue
        for _ in range(2):  # refine on the inliers
            d, _ = _ellipse_dist(centres, ell)  # type: ignore[arg-type]
            inl = d < tol
            if inl.sum() < 5:
                break
            ref = _fit_ellipse(centres[inl])
            if not sane(ref):
                break
            ell = ref
        d, _ = _ellipse_dist(centres, ell)  # type: ignore[arg-type]
        inl = d < tol
        k = int(inl.sum())
        resid = float(np.sum(np.minimum(d, tol)))
        key = (k == 12, min(k, 12), -resid)  # exactly 12 on the ring, then more, then a tighter fit
        if best_key is None or key > best_key:
            best_key, best = key, (k, resid, ell, inl)  # type: ignore[assignment]
    if best is None:
        raise LayoutError(f"found {n} piles but they do not lie on a circle: lay 12 piles in a circle like a "
                          f"clock face with the 13th in the middle")
    k, _, ell, inl = best
    if k < 12:
        raise LayoutError(f"found {n} piles but only {k} lie on a circle: lay 12 piles in a circle like a clock "
                          f"face, evenly spaced, with the 13th in the middle")
    if k > 12:
        raise LayoutError(f"found {k} piles on the clock's circle, need 12: take any extra card off the table")
    ring = np.flatnonzero(inl)
    _, angles = _ellipse_dist(centres[ring], ell)
    gaps = np.diff(np.sort(angles), append=np.sort(angles)[0] + 360)
    if gaps.max() > 65:
        raise LayoutError(f"the 12 piles on the circle leave a gap of {gaps.max():.0f} degrees: space them evenly "
                          f"like the hours of a clock")
    (ex, ey), (w, hh), _ = ell
    off = np.flatnonzero(~inl)
    dist_c = np.linalg.norm(centres[off] - (ex, ey), axis=1)
    near = off[dist_c < max(0.5 * min(w, hh) / 2, 0.8 * h)]
    if len(near) == 0:
        raise LayoutError("found 12 piles on a circle but none in its middle: put the 13th pile (the kings' "
                          "pile) in the centre of the clock")
    c13_i = int(near[np.argmin(np.linalg.norm(centres[near] - (ex, ey), axis=1))])
    c13 = centres[c13_i]
    vec = centres[ring] - c13
    target = np.array(TWELVE_SIDES[twelve_at], np.float64)
    up = _upright_axis(down.quads.astype(np.float64), [groups[j] for j in ring])
    if up is not None:
        # cards laid upright all point to 12 o'clock: the hour whose direction the cards point along
        # (of the two ends, the one on the side of twelve_at), whatever the camera's roll
        target = up if float(up @ target) >= 0 else -up
    cosines = (vec @ target) / np.maximum(np.linalg.norm(vec, axis=1), 1e-9)
    twelve = int(np.argmax(cosines))
    ang = np.arctan2(vec[:, 1], vec[:, 0])  # y down: increasing angle = clockwise on screen
    order = np.argsort((ang - ang[twelve]) % (2 * math.pi))
    pts = np.zeros((13, 2))
    hs = np.zeros(13)
    for k_, j in enumerate(order):
        pile = 12 if k_ == 0 else k_
        pts[pile - 1] = centres[ring[j]]
        hs[pile - 1] = pile_h[ring[j]]
    pts[12], hs[12] = c13, pile_h[c13_i]
    lay = layout_from_points(pts, image_size, card_h=hs, card_w=float(np.median(widths)), method="auto")
    lay.twelve_at = twelve_at
    return lay


# ---------------------------------------------------------------------------------------------------
# route c: clicking the piles
# ---------------------------------------------------------------------------------------------------
def display_available() -> bool:
    """True when a window can be shown: ``$DISPLAY`` is set and its X server answers.

    (OpenCV's ``imshow`` without a display aborts the whole process, so always ask first.)"""
    disp = os.environ.get("DISPLAY", "")
    if not disp:
        return False
    host, _, rest = disp.rpartition(":")
    num = rest.split(".")[0]
    if not num.isdigit():
        return False
    try:
        if host in ("", "unix"):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(1.0)
                s.connect(f"/tmp/.X11-unix/X{num}")
        else:
            with socket.create_connection((host, 6000 + int(num)), timeout=1.0):
                pass
    except OSError:
        return False
    return True


def _click_order() -> list[int]:
    return [12] + list(range(1, 12)) + [13]


def click_piles(image: np.ndarray, window: str = "companion calibrate", *, ui: Any = None) -> list[tuple[float, float]]:
    """Let a person click the 13 piles (12 first, then 1..11 clockwise, then the centre) in a window;
    returns the points in pile order 1..13. Backspace or u: undo; Enter: accept; Esc or q: cancel
    (LayoutError). ``ui`` (tests) stands in for cv2's window functions (namedWindow, setMouseCallback,
    imshow, waitKey, destroyWindow); without it a display must be available."""
    if ui is None:
        if not display_available():
            raise LayoutError("no display to show a window on: use --method auto or --method mat "
                              "(or run where $DISPLAY is set)")
        ui = cv2
    order = _click_order()
    clicks: list[tuple[float, float]] = []

    def on_mouse(event: int, x: int, y: int, *_: Any) -> None:
        if event == cv2.EVENT_LBUTTONDOWN and len(clicks) < 13:
            clicks.append((float(x), float(y)))

    ui.namedWindow(window, cv2.WINDOW_NORMAL)
    ui.setMouseCallback(window, on_mouse)
    try:
        while True:
            view = image.copy()
            for i, (x, y) in enumerate(clicks):
                cv2.circle(view, (int(x), int(y)), 6, (0, 0, 255), -1, cv2.LINE_AA)
                cv2.putText(view, str(order[i]), (int(x) + 8, int(y) - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.8,
                            (0, 0, 255), 2, cv2.LINE_AA)
            if len(clicks) < 13:
                p = order[len(clicks)]
                msg = f"click pile {p}" + (" (the centre)" if p == 13 else "") + "   u: undo   esc: cancel"
            else:
                msg = "done: press enter to accept, u to undo"
            cv2.putText(view, msg, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.putText(view, msg, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2, cv2.LINE_AA)
            ui.imshow(window, view)
            key = ui.waitKey(30) & 0xFF
            if key in (27, ord("q")):
                raise LayoutError("calibration cancelled")
            if key in (8, 127, ord("u")) and clicks:
                clicks.pop()
            if key in (10, 13, ord(" ")) and len(clicks) == 13:
                break
    finally:
        try:
            ui.destroyWindow(window)
        except cv2.error:
            pass
    pts = dict(zip(order, clicks))
    return [pts[p] for p in range(1, 14)]


# ---------------------------------------------------------------------------------------------------
# re-registration
# ---------------------------------------------------------------------------------------------------
class LayoutTracker:
    """Notices that the camera or the table moved, between settled frames, and re-registers the layout.

    ``check(frame)`` compares ``frame`` with the reference frame (features outside the piles'
    regions, where cards change; ORB matches and a RANSAC similarity or homography; phase
    correlation as a fallback) and returns the moved layout, or None when nothing moved (or the
    motion cannot be told: see ``last_status``). After a move the new frame becomes the reference."""

    def __init__(self, reference_frame: np.ndarray, layout: Layout, *, threshold_px: float | None = None,
                 min_inliers: int = 12, features: int = 1500) -> None:
        self.layout = layout
        self.threshold = threshold_px if threshold_px is not None else max(2.0, 0.06 * layout.card_h)
        self.min_inliers = min_inliers
        self.orb = cv2.ORB_create(nfeatures=features)
        self.last_transform: np.ndarray | None = None
        self.last_status = ""
        self._set_reference(reference_frame)

    def _gray(self, frame: np.ndarray) -> np.ndarray:
        g = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if (g.shape[1], g.shape[0]) != self.layout.image_size:
            self.layout = self.layout.resized((g.shape[1], g.shape[0]))
        return g

    def _static_mask(self, shape: tuple[int, int]) -> np.ndarray:
        mask = np.full(shape, 255, np.uint8)
        for p in range(1, 14):
            mask[self.layout.pile_mask(p, shape) > 0] = 0
        k = max(3, int(self.layout.card_h * 0.2)) | 1
        return cv2.erode(mask, np.ones((k, k), np.uint8))

    def _set_reference(self, frame: np.ndarray) -> None:
        self.ref = self._gray(frame)
        self.mask = self._static_mask(self.ref.shape)
        self.ref_masked = self.orb.detectAndCompute(self.ref, self.mask)
        self._ref_full: Any = None

    def _match(self, ref: Any, frame: np.ndarray, mask: np.ndarray | None) -> np.ndarray | None:
        kp1, d1 = ref
        if d1 is None or len(kp1) < self.min_inliers:
            return None
        kp2, d2 = self.orb.detectAndCompute(frame, mask)
        if d2 is None or len(kp2) < self.min_inliers:
            return None
        pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(d1, d2, k=2)
        good = [m[0] for m in pairs if len(m) == 2 and m[0].distance < 0.75 * m[1].distance]
        if len(good) < self.min_inliers:
            return None
        src = np.float32([kp1[m.queryIdx].pt for m in good])
        dst = np.float32([kp2[m.trainIdx].pt for m in good])
        A, inl = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC, ransacReprojThreshold=3.0)
        if A is None or inl is None or int(inl.sum()) < self.min_inliers:
            return None
        M = np.vstack([A, [0, 0, 1]])
        n_aff = int(inl.sum())
        if len(good) >= 40:
            Hh, inl_h = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
            if Hh is not None and inl_h is not None and int(inl_h.sum()) >= max(n_aff * 1.05, n_aff + 8):
                M = Hh
                n_aff = int(inl_h.sum())
        self.last_status = f"{n_aff} feature matches agree"
        return M

    def estimate(self, frame: np.ndarray) -> np.ndarray | None:
        """The 3x3 motion from the reference to ``frame`` (reference px -> frame px), or None if unsure."""
        g = self._gray(frame)
        M = self._match(self.ref_masked, g, self.mask)
        if M is None:  # a plain table has few features off the cards: use the whole view
            if self._ref_full is None:
                self._ref_full = self.orb.detectAndCompute(self.ref, None)
            M = self._match(self._ref_full, g, None)
        if M is None:
            win = cv2.createHanningWindow((g.shape[1], g.shape[0]), cv2.CV_32F)
            (dx, dy), resp = cv2.phaseCorrelate(self.ref.astype(np.float32), g.astype(np.float32), win)
            if resp < 0.15:
                self.last_status = f"cannot tell whether the view moved (phase correlation response {resp:.2f})"
                return None
            M = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64)
            self.last_status = f"phase correlation shift ({dx:.1f}, {dy:.1f})"
        return M

    def check(self, frame: np.ndarray) -> Layout | None:
        """The re-registered layout if the view moved since the reference frame, else None."""
        M = self.estimate(frame)
        self.last_transform = M
        if M is None:
            return None
        c = self.layout.centres
        moved = cv2.perspectiveTransform(c.reshape(-1, 1, 2), M).reshape(-1, 2)
        shift = float(np.linalg.norm(moved - c, axis=1).max())
        if shift < self.threshold:
            self.last_status += f"; no move (max {shift:.1f} px)"
            return None
        self.layout = self.layout.transformed(M)
        self._set_reference(frame)
        self.last_status += f"; moved {shift:.1f} px"
        return self.layout
