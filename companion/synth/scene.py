"""The synthetic table: a Clock Patience layout on a table, seen by a webcam, with hands.

Everything is deterministic from a seed. Geometry lives in table millimetres (see
:mod:`companion.synth.camera` for the axes); cards are 63 x 88 mm. A frame is an ordered list of
drawables (cards and hands, bottom first): the static part (table and piles) is rendered once per
table state into the camera's undistorted canvas and cached; per frame only the region around the
moving card/hand is re-composited, distorted with ``cv2.remap`` and photometrically finished.

Layout convention ("beneath"): pile ``p`` sits at its clock hour on a circle of radius ``R`` around
the centre pile 13. Its face-down stack is at the pile position. Each card put *beneath* it lies
under the stack, slid out *away from the centre* (along the pile's outward direction ``u``), each new
one further out (slot ``k`` at ``(k + 1) * step`` mm), so every face-up card shows its outer end with an
index corner; ``step`` is computed from the deck's index boxes so that corner is uncovered. The
centre's kings fan out the same way along a fixed direction between two hours. The child's
"on top" mistake is a face-up card lying on top of the face-down stack, a little askew.

>>> import numpy as np
>>> scene = Scene.random(3, deck="builtin", width=320, height=180)
>>> img = scene.render_state(TableState.initial())
>>> img.shape, img.dtype.name
((180, 320, 3), 'uint8')
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import cv2
import numpy as np

from ..cards import CENTRE, FULL_DECK, PILES, Card
from .camera import TILT_MAX_DEG, Camera, Photometrics
from .surfaces import make_surface

__all__ = [
    "CARD_W", "CARD_H", "Layout", "TableState", "CardItem", "HandItem", "Scene", "card_corners",
    "index_quads_mm", "SKIN_TONES",
]

CARD_W, CARD_H = 63.0, 88.0
_FACE_CORNERS = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])


# ----------------------------------------------------------------------------------------------
# geometry helpers
# ----------------------------------------------------------------------------------------------
def card_corners(x: float, y: float, angle: float, z: float = 0.0, phi: float = 0.0,
                 tilt: float = 0.0) -> np.ndarray:
    """3-D corners TL, TR, BR, BL of the card's *face* (as printed, upright) in table mm.

    ``angle``: turn of the card's up direction from +Y, counter-clockwise (radians); ``phi``: rotation
    about its long axis (0 = face up, pi = face down); ``tilt``: rotation about its short axis.
    """
    ca, sa = math.cos(angle), math.sin(angle)
    r = np.array([ca, sa, 0.0])
    a = np.array([-sa, ca, 0.0])
    n = np.array([0.0, 0.0, 1.0])
    e1 = r * math.cos(phi) + n * math.sin(phi)
    nn = np.cross(e1, a)
    up = a * math.cos(tilt) + nn * math.sin(tilt)
    c = np.array([x, y, z])
    hw, hh = CARD_W / 2, CARD_H / 2
    return np.stack([c - hw * e1 + hh * up, c + hw * e1 + hh * up, c + hw * e1 - hh * up, c - hw * e1 - hh * up])


def face_visible(corners: np.ndarray, cam_center: np.ndarray) -> bool:
    """True when the printed face of a card with these corners faces the camera."""
    e1 = corners[1] - corners[0]
    a = corners[0] - corners[3]
    n = np.cross(e1, a)
    return float(np.dot(n, cam_center - corners.mean(0))) > 0


def quad_point(corners: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Points at fractions (u, v) of a card face (0,0 = TL, 1,1 = BR)."""
    u = np.asarray(u, np.float64)[:, None]
    v = np.asarray(v, np.float64)[:, None]
    tl, tr, br, bl = corners
    top = tl + (tr - tl) * u
    bot = bl + (br - bl) * u
    return top + (bot - top) * v


def index_quads_mm(corners: np.ndarray, boxes_frac: Sequence[Sequence[float]]) -> list[np.ndarray]:
    """3-D quads (TL,TR,BR,BL) of the index boxes given as face fractions ``(x0, y0, x1, y1)``."""
    out = []
    for x0, y0, x1, y1 in boxes_frac:
        out.append(quad_point(corners, np.array([x0, x1, x1, x0]), np.array([y0, y0, y1, y1])))
    return out


def _sat_separated(p: np.ndarray, q: np.ndarray, margin: float = 0.0) -> bool:
    """Separating-axis test for two convex 2-D polygons."""
    for poly in (p, q):
        n = len(poly)
        for i in range(n):
            e = poly[(i + 1) % n] - poly[i]
            ax = np.array([-e[1], e[0]])
            ax /= np.linalg.norm(ax) + 1e-12
            a, b = p @ ax, q @ ax
            if a.max() + margin < b.min() or b.max() + margin < a.min():
                return True
    return False


# ----------------------------------------------------------------------------------------------
# layout
# ----------------------------------------------------------------------------------------------
@dataclass
class Layout:
    """Where each pile lies. ``pos[p]`` (mm), ``angle[p]`` (card up direction, rad), ``out[p]`` (unit
    vector along which face-up cards fan), ``step[p]`` (mm between face-up slots)."""

    radius: float
    rotation: float  # radians, clockwise turn of the whole clock
    radial: bool
    pos: dict[int, np.ndarray]
    angle: dict[int, float]
    out: dict[int, np.ndarray]
    step: dict[int, float]
    jitter: dict[tuple[int, int, int], tuple[float, float, float]]  # (pile, kind, k) -> dx, dy, dangle
    stack_dir: np.ndarray

    @classmethod
    def random(cls, rng: np.random.Generator, index_boxes_frac: Sequence[Sequence[float]],
               radius: float | None = None) -> "Layout":
        radial = bool(rng.random() < 0.45)
        R = float(radius if radius is not None else rng.uniform(1.95, 2.25) * CARD_H)
        rot = float(rng.normal(0, math.radians(6)))
        pos: dict[int, np.ndarray] = {}
        ang: dict[int, float] = {}
        out: dict[int, np.ndarray] = {}
        for p in range(1, 13):
            th = rot + p * math.pi / 6  # clockwise from +Y
            u = np.array([math.sin(th), math.cos(th)])
            pos[p] = R * u + rng.normal(0, 3.0, 2)
            out[p] = u
            base = -th if radial else -rot
            ang[p] = float(base + rng.normal(0, math.radians(3.5)))
        pos[CENTRE] = rng.normal(0, 3.0, 2)
        th13 = rot + (int(rng.integers(0, 12)) + 0.5) * math.pi / 6
        out[CENTRE] = np.array([math.sin(th13), math.cos(th13)])
        ang[CENTRE] = float((-th13 if radial else -rot) + rng.normal(0, math.radians(3)))
        jitter: dict[tuple[int, int, int], tuple[float, float, float]] = {}
        for p in PILES:
            for kind in range(3):
                for k in range(6):
                    s = (0.7, 1.2, 3.0)[kind]
                    jitter[(p, kind, k)] = (float(rng.normal(0, s)), float(rng.normal(0, s)),
                                            float(rng.normal(0, math.radians((1.0, 1.5, 8.0)[kind]))))
        sd = rng.normal(0, 1, 2)
        stack_dir = sd / (np.linalg.norm(sd) + 1e-9) * rng.uniform(0.35, 0.7)
        lay = cls(R, rot, radial, pos, ang, out, {}, jitter, stack_dir)
        for p in PILES:
            lay.step[p] = lay._min_step(p, index_boxes_frac)
        return lay

    def _min_step(self, p: int, boxes: Sequence[Sequence[float]]) -> float:
        """Smallest slot step (mm) that leaves an index corner of the next card uncovered (tested in the
        frame of the card above, with a 3.5 mm margin)."""
        a = self.angle[p]
        u = self.out[p]
        r = np.array([math.cos(a), math.sin(a)])
        up = np.array([-math.sin(a), math.cos(a)])
        su, sv = float(u @ r), float(u @ up)  # slide direction in card axes
        steps = np.arange(6.0, 70.0, 0.5)
        hw, hh, m = CARD_W / 2 + 3.5, CARD_H / 2 + 3.5, 0.0
        for x0, y0, x1, y1 in boxes:
            cu = np.array([x0, x1, x1, x0]) * CARD_W - CARD_W / 2
            cv = CARD_H / 2 - np.array([y0, y0, y1, y1]) * CARD_H
            pu = cu[None, :] + steps[:, None] * su
            pv = cv[None, :] + steps[:, None] * sv
            sep = (pu.min(1) > hw) | (pu.max(1) < -hw) | (pv.min(1) > hh) | (pv.max(1) < -hh)
            if sep.any():
                s0 = float(steps[np.argmax(sep)])
                m = s0 if m == 0.0 else min(m, s0)
        return (m if m > 0 else 45.0) + 1.5

    # -- poses --------------------------------------------------------------------------------
    def stack_pose(self, p: int, layer: int) -> tuple[float, float, float, float]:
        """(x, y, angle, z) of face-down layer ``layer`` (0 = bottom) of pile ``p``."""
        dx, dy, da = self.jitter[(p, 0, layer)]
        x, y = self.pos[p] + self.stack_dir * layer + (dx, dy)
        return float(x), float(y), self.angle[p] + da, 0.3 * (layer + 1)

    def slot_pose(self, p: int, k: int) -> tuple[float, float, float, float]:
        """(x, y, angle, z) of face-up slot ``k`` (0 = first card put beneath) of pile ``p``."""
        dx, dy, da = self.jitter[(p, 1, k)]
        x, y = self.pos[p] + self.out[p] * self.step[p] * (k + 1) + (dx * 0.6, dy * 0.6)
        return float(x), float(y), self.angle[p] + da * 0.6, 0.0

    def top_pose(self, p: int, n_down: int) -> tuple[float, float, float, float]:
        """(x, y, angle, z) of a face-up card put on top of the stack by mistake."""
        dx, dy, da = self.jitter[(p, 2, 0)]
        x, y = self.pos[p] + self.stack_dir * n_down + (dx * 2, dy * 2)
        return float(x), float(y), self.angle[p] + da, 0.3 * (n_down + 2)

    def extent_points(self) -> np.ndarray:
        """Corners of every card position the game can use (for framing the camera)."""
        pts = []
        for p in PILES:
            pts.append(card_corners(*self.stack_pose(p, 0)[:3]))
            pts.append(card_corners(*self.slot_pose(p, 4)[:3]))
        return np.concatenate(pts)

    def to_json(self) -> dict[str, Any]:
        return {
            "radius_mm": round(self.radius, 2), "rotation_deg": round(math.degrees(self.rotation), 3),
            "cards": "radial" if self.radial else "upright",
            "piles": {str(p): {"pos_mm": [round(float(v), 2) for v in self.pos[p]],
                               "angle_deg": round(math.degrees(self.angle[p]), 3),
                               "out": [round(float(v), 4) for v in self.out[p]],
                               "step_mm": round(self.step[p], 2)} for p in PILES},
            "convention": ("face-up cards lie beneath the stack, slid out away from the centre along 'out',"
                           " slot k at (k+1)*step mm; 'on top' = a face-up card lying on the stack"),
        }


# ----------------------------------------------------------------------------------------------
# table state and drawables
# ----------------------------------------------------------------------------------------------
@dataclass
class TableState:
    """What lies on the table: face-down counts, face-up cards beneath (oldest first), cards on top."""

    down: dict[int, int]
    up: dict[int, list[Card]]
    on_top: dict[int, Card] = field(default_factory=dict)

    @classmethod
    def initial(cls) -> "TableState":
        return cls({p: 4 for p in PILES}, {p: [] for p in PILES}, {})

    def copy(self) -> "TableState":
        return TableState(dict(self.down), {p: list(v) for p, v in self.up.items()}, dict(self.on_top))

    def key(self) -> tuple:
        return (tuple(sorted(self.down.items())), tuple((p, tuple(str(c) for c in v)) for p, v in sorted(self.up.items())),
                tuple(sorted((p, str(c)) for p, c in self.on_top.items())))


@dataclass
class CardItem:
    """A card to draw: ``card`` None draws a back whatever the side; ``corners`` are the face's 3-D corners."""

    card: Card | None
    corners: np.ndarray
    pile: int | None = None
    role: str = ""  # "down", "up", "top", "held"
    slot: int = -1
    shade: float = 1.0

    @property
    def key(self) -> str:
        return f"{self.role}:{self.pile}:{self.slot}:{self.card}"


@dataclass
class HandItem:
    """A hand: grip point ``(x, y, z)`` mm, ``heading`` (direction the fingers point, rad from +X),
    ``part``: "all", "under" (arm, palm, fingers: drawn below a held card) or "thumb"."""

    x: float
    y: float
    z: float
    heading: float
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]
    scale: float = 1.0
    part: str = "all"
    spread: float = 0.0
    arm_base: tuple[float, float, float] = (0.0, -700.0, 250.0)

    def polygons(self) -> list[tuple[np.ndarray, str]]:
        """3-D polygons (N,3) with a tag ("arm", "sleeve", "palm", "finger", "thumb")."""
        s = self.scale
        c, sn = math.cos(self.heading), math.sin(self.heading)
        fx, fy = np.array([c, sn]), np.array([-sn, c])  # along fingers, to the left

        org = np.array([self.x, self.y])

        def P(a: float, b: float, dz: float = 0.0) -> np.ndarray:
            xy = org + fx * a * s + fy * b * s
            return np.array([xy[0], xy[1], self.z + dz])

        def PV(a: np.ndarray, b: np.ndarray, dz: float = 0.0) -> np.ndarray:
            xy = org[None, :] + np.outer(a * s, fx) + np.outer(b * s, fy)
            return np.column_stack([xy, np.full(len(a), self.z + dz)])

        def ellipse(a0: float, b0: float, ra: float, rb: float, n: int = 18, dz: float = 0.0) -> np.ndarray:
            t = np.linspace(0, 2 * math.pi, n, endpoint=False)
            return PV(a0 + ra * np.cos(t), b0 + rb * np.sin(t), dz)

        def capsule(a0: float, b0: float, a1: float, b1: float, w: float, n: int = 6, dz: float = 0.0,
                    w_tip: float | None = None) -> np.ndarray:
            """A rounded stroke from (a0, b0) (width w) to (a1, b1) (width w_tip: fingers taper)."""
            d = np.array([a1 - a0, b1 - b0], np.float64)
            d /= np.linalg.norm(d) + 1e-9
            nrm = np.array([-d[1], d[0]])
            t1 = np.linspace(-math.pi / 2, math.pi / 2, n)
            t2 = t1 + math.pi
            e1 = np.outer(np.cos(t1), d) + np.outer(np.sin(t1), nrm)
            e2 = np.outer(np.cos(t2), d) + np.outer(np.sin(t2), nrm)
            wt = w if w_tip is None else w_tip
            pts = np.concatenate([np.array([a1, b1]) + e1 * wt / 2, np.array([a0, b0]) + e2 * w / 2])
            return PV(pts[:, 0], pts[:, 1], dz)

        out: list[tuple[np.ndarray, str]] = []
        if self.part in ("all", "under"):
            wrist_l, wrist_r = P(-95, 26, 10), P(-95, -28, 10)
            base = np.array(self.arm_base, np.float64)
            side = np.array([fy[0], fy[1], 0.0]) * 38 * s
            elbow = base
            sleeve_at = 0.45
            mid_l = wrist_l + (elbow + side * 1.15 - wrist_l) * sleeve_at
            mid_r = wrist_r + (elbow - side * 1.15 - wrist_r) * sleeve_at
            out.append((np.stack([wrist_l, mid_l, mid_r, wrist_r]), "arm"))
            out.append((np.stack([mid_l * 0.98 + wrist_l * 0.02, elbow + side * 1.35, elbow - side * 1.35,
                                  mid_r * 0.98 + wrist_r * 0.02]), "sleeve"))
            out.append((ellipse(-52, 0, 48, 40, dz=6), "palm"))
            sp = self.spread
            ext = 0.9 if self.part == "all" else 0.55  # open hand, or fingers curled under a card
            for i, (b, L) in enumerate(((24, 62), (8, 72), (-9, 70), (-25, 58))):
                a0 = -18
                bb = b * (1 + 0.25 * sp)
                tip_a, tip_b = a0 + L * ext + 12, bb * (1 + 0.12 * sp)
                out.append((capsule(a0, bb * 0.9, tip_a, tip_b, 18.5, dz=2, w_tip=14.5), "finger"))
                if self.part == "all":
                    out.append((ellipse(tip_a - 3.0, tip_b, 4.2, 5.0, n=10, dz=3), "nail"))
                    ka = a0 + (tip_a - a0) * 0.55
                    out.append((np.stack([P(ka, tip_b - 5.5, 3), P(ka + 1.0, tip_b + 5.5, 3)]), "crease"))
        if self.part in ("all", "thumb"):
            out.append((capsule(-55, 34, 2, 12, 22, dz=8, w_tip=17), "thumb"))
            out.append((ellipse(-2.5, 13.5, 6.0, 6.5, n=10, dz=9), "nail"))
        return out


SKIN_TONES = [(180, 200, 235), (150, 175, 220), (120, 150, 205), (95, 125, 180), (70, 95, 150), (50, 70, 110),
              (160, 185, 225), (130, 160, 200)]


# ----------------------------------------------------------------------------------------------
# textures
# ----------------------------------------------------------------------------------------------
_TEX_CACHE: dict[int, "_Textures"] = {}
_DECKS: dict[str, Any] = {}


def load_deck(name: str) -> Any:
    """``get_deck(name, 350)``, cached per process."""
    from .decks import get_deck

    d = _DECKS.get(name)
    if d is None:
        d = get_deck(name, height=350)
        _DECKS[name] = d
    return d


class _Textures:
    """Deck faces/backs at a few resolutions, with darkened card edges."""

    def __init__(self, deck: Any) -> None:
        self.deck = deck
        self._cache: dict[tuple[str, int], np.ndarray] = {}
        back = np.ascontiguousarray(deck.back())
        self.full_h = back.shape[0]
        self._base: dict[str, np.ndarray] = {"back": back}
        self._boxes: dict[str, list[tuple[float, float, float, float]]] = {}
        self.union: list[tuple[float, float, float, float]] | None = None

    def _prep(self, img: np.ndarray) -> np.ndarray:
        img = img.copy()
        a = img[..., 3]
        er = cv2.erode(a, np.ones((3, 3), np.uint8), iterations=max(1, img.shape[0] // 250))
        edge = (a.astype(np.int16) - er.astype(np.int16)) > 0
        img[..., :3][edge] = (img[..., :3][edge] * 0.86).astype(np.uint8)
        return img

    def base(self, card: Card | None) -> np.ndarray:
        key = "back" if card is None else str(card)
        if key not in self._base:
            self._base[key] = np.ascontiguousarray(self.deck.face(card))
        return self._base[key]

    def get(self, card: Card | None, want_h: float) -> np.ndarray:
        key = "back" if card is None else str(card)
        level = 0
        h = self.full_h
        while h / 2 >= max(24.0, want_h * 1.3) and level < 4:
            h /= 2
            level += 1
        ck = (key, level)
        t = self._cache.get(ck)
        if t is None:
            b = self.base(card)
            if level:
                b = cv2.resize(b, (max(4, int(round(b.shape[1] / 2 ** level))), max(4, int(round(b.shape[0] / 2 ** level)))),
                               interpolation=cv2.INTER_AREA)
            t = self._prep(b)
            self._cache[ck] = t
        return t

    def boxes_frac(self, card: Card) -> list[tuple[float, float, float, float]]:
        key = str(card)
        if key not in self._boxes:
            h, w = self.base(card).shape[:2]
            self._boxes[key] = [(x0 / w, y0 / h, x1 / w, y1 / h) for x0, y0, x1, y1 in self.deck.index_boxes(card)]
        return self._boxes[key]


# ----------------------------------------------------------------------------------------------
# the scene
# ----------------------------------------------------------------------------------------------
class Scene:
    """One table, layout, camera and light; renders table states and dynamic frames."""

    def __init__(self, *, deck: Any, deck_name: str, layout: Layout, camera: Camera, photo: Photometrics,
                 surface_kind: str, seed: int, skin: tuple[int, int, int], sleeve: tuple[int, int, int],
                 hand_scale: float, rng: np.random.Generator) -> None:
        self.deck = deck
        self.deck_name = deck_name
        tex = _TEX_CACHE.get(id(deck))
        self.tex = tex if tex is not None and tex.deck is deck else _Textures(deck)
        self.layout = layout
        self.cam = camera
        self.photo = photo
        self.surface_kind = surface_kind
        self.seed = seed
        self.skin = skin
        self.sleeve = sleeve
        self.hand_scale = hand_scale
        self.card_shade: dict[str, float] = {}
        self._shade_rng = np.random.default_rng(seed + 17)
        W, H = camera.canvas_size
        self.photo.gain(camera.width, camera.height)
        self.glare_u = self.photo.glare_map(W, H)
        self._table_u = self._render_table(rng)
        self._static_cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.cam_center = camera.center

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def random(cls, seed: int, *, deck: str | Any = "builtin", width: int = 1280, height: int = 720,
               tilt_max: float = TILT_MAX_DEG, card_px: tuple[float, float] | None = None,
               fit_layout: bool = True, surface: str | None = None, strength: float = 1.0,
               tilt: float | None = None, roll: float | None = None) -> "Scene":
        """A scene from a seed. ``card_px``: range of card heights in pixels (default 70..250 scaled to
        ``height``/720); ``fit_layout``: frame the whole clock (card size then follows from the fit)."""
        rng = np.random.default_rng(seed)
        if isinstance(deck, str):
            deck_name = deck
            deck_obj = load_deck(deck)
        else:
            deck_obj = deck
            deck_name = getattr(deck, "name", "custom")
        tex = _TEX_CACHE.get(id(deck_obj))
        if tex is None or tex.deck is not deck_obj:
            tex = _Textures(deck_obj)
            _TEX_CACHE.clear() if len(_TEX_CACHE) > 8 else None
            _TEX_CACHE[id(deck_obj)] = tex
        if tex.union is None:
            tex.union = _union_boxes(tex)
        boxes = tex.union
        layout = Layout.random(rng, boxes)
        scale = height / 720.0
        lo, hi = card_px if card_px is not None else (70 * scale, 250 * scale)
        fov = float(rng.uniform(55, 78))
        tilt_deg = float(tilt if tilt is not None else min(tilt_max, abs(rng.normal(0, 14))))
        az = float(rng.normal(0, 10))
        roll_r = float(rng.normal(0, 4))
        roll = roll_r if roll is None else float(roll)
        k1 = float(rng.uniform(-0.18, 0.03))
        dist = (k1, 0.0, float(rng.normal(0, 0.001)), float(rng.normal(0, 0.001)), 0.0)
        f = (width / 2) / math.tan(math.radians(fov) / 2)
        pj = (float(rng.normal(0, width * 0.01)), float(rng.normal(0, height * 0.01)))
        if fit_layout:
            target = (float(rng.normal(0, 8)), float(rng.normal(0, 8)))
            ext = layout.extent_points()
            d_lo, d_hi = 150.0, 6000.0
            for _ in range(30):
                d = 0.5 * (d_lo + d_hi)
                cam = Camera.look_at(width=width, height=height, fov_deg=fov, target=target, distance=d,
                                     tilt_deg=tilt_deg, azimuth_deg=az, roll_deg=roll, dist=dist, principal_jitter=pj)
                uv = cam.project(ext)
                inside = (cam.to_camera(ext)[:, 2] > 0).all() and (uv[:, 0] > 0.03 * width).all() and \
                    (uv[:, 0] < 0.97 * width).all() and (uv[:, 1] > 0.03 * height).all() and (uv[:, 1] < 0.97 * height).all()
                if inside:
                    d_hi = d
                else:
                    d_lo = d
            d = d_hi
            # keep the card size within range
            cam = Camera.look_at(width=width, height=height, fov_deg=fov, target=target, distance=d,
                                 tilt_deg=tilt_deg, azimuth_deg=az, roll_deg=roll, dist=dist, principal_jitter=pj)
            px = cam.card_px()
            if px < lo:
                d *= px / lo
            elif px > hi:
                d *= px / hi
        else:
            want = float(np.exp(rng.uniform(math.log(lo), math.log(hi))))
            d = f * CARD_H / want
            p = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13][int(rng.integers(0, 13))]
            t = layout.pos[p] + layout.out[p] * rng.uniform(0, 60)
            target = (float(t[0] + rng.normal(0, 30)), float(t[1] + rng.normal(0, 30)))
        cam = Camera.look_at(width=width, height=height, fov_deg=fov, target=target, distance=d,
                             tilt_deg=tilt_deg, azimuth_deg=az, roll_deg=roll, dist=dist, principal_jitter=pj)
        cam.set_margin()
        photo = Photometrics.random(rng, strength)
        skin = SKIN_TONES[int(rng.integers(0, len(SKIN_TONES)))]
        skin = tuple(int(np.clip(c + rng.normal(0, 8), 0, 255)) for c in skin)
        sleeve = tuple(int(v) for v in rng.integers(20, 230, 3))
        surf_rng = np.random.default_rng(seed * 7 + 3)
        kind = surface
        if kind is None:
            kinds = ["wood", "wood", "felt", "cloth", "plain", "patterned"]
            from .surfaces import gimp_patterns
            if gimp_patterns():
                kinds += ["gimp", "gimp"]
            kind = kinds[int(rng.integers(0, len(kinds)))]
        scene = cls(deck=deck_obj, deck_name=deck_name, layout=layout, camera=cam, photo=photo, surface_kind=kind,
                    seed=seed, skin=skin, sleeve=sleeve, hand_scale=float(rng.uniform(0.9, 1.1)), rng=surf_rng)
        return scene

    def _render_table(self, rng: np.random.Generator) -> np.ndarray:
        """The bare table in the undistorted canvas (one warp of a texture in table mm)."""
        W, H = self.cam.canvas_size
        Hm = self.cam.plane_homography(0.0)
        # table region seen: back-project canvas corners
        inv = np.linalg.inv(Hm)
        cn = np.array([[0, 0, 1], [W, 0, 1], [W, H, 1], [0, H, 1]], np.float64) @ inv.T
        xy = cn[:, :2] / cn[:, 2:3]
        x0, y0 = xy.min(0) - 20
        x1, y1 = xy.max(0) + 20
        tx, ty = self.cam.target
        x0, x1 = max(x0, tx - 1000), min(x1, tx + 1000)
        y0, y1 = max(y0, ty - 1000), min(y1, ty + 1000)
        # resolution: about what the camera sees at the target, capped
        ppm = float(np.clip(self.cam.card_px() / CARD_H * 1.1, 0.3, 4.0))
        tw, th = int((x1 - x0) * ppm) + 2, int((y1 - y0) * ppm) + 2
        while tw * th > 3e6:
            ppm *= 0.8
            tw, th = int((x1 - x0) * ppm) + 2, int((y1 - y0) * ppm) + 2
        tex = make_surface(rng, tw, th, ppm, self.surface_kind)
        self.clutter = _add_clutter(tex, rng, ppm, x0, y1, self.layout, self.photo.light_dir)
        # texture pixel (i, j) -> table (x0 + i/ppm, y1 - j/ppm)  (rows go towards -Y)
        T = np.array([[1 / ppm, 0, x0], [0, -1 / ppm, y1], [0, 0, 1]])
        M = Hm @ T
        return cv2.warpPerspective(tex, M, (W, H), flags=cv2.INTER_AREA if ppm > 2 else cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REFLECT)

    # -- drawables ----------------------------------------------------------------------------------
    def state_items(self, state: TableState, exclude_pile: int | None = None,
                    only_pile: int | None = None) -> list[CardItem]:
        """The cards on the table, bottom first: all fans (newest lowest), then stacks, then on-top cards."""
        L = self.layout
        items: list[CardItem] = []
        piles = [p for p in PILES if p != exclude_pile and (only_pile is None or p == only_pile)]
        for p in piles:
            for k in range(len(state.up[p]) - 1, -1, -1):
                x, y, a, z = L.slot_pose(p, k)
                card = state.up[p][k]
                items.append(CardItem(card, card_corners(x, y, a, z), p, "up", k, self._shade(str(card))))
        for p in piles:
            for layer in range(state.down[p]):
                x, y, a, z = L.stack_pose(p, layer)
                items.append(CardItem(None, card_corners(x, y, a, z, phi=math.pi), p, "down", layer,
                                      self._shade(f"b{p}{layer}")))
        for p in piles:
            if p in state.on_top:
                x, y, a, z = L.top_pose(p, state.down[p])
                c = state.on_top[p]
                items.append(CardItem(c, card_corners(x, y, a, z), p, "top", 0, self._shade(str(c))))
        return items

    def frame_layers(self, spec: "FrameSpec") -> list[tuple[str, Any]]:
        """What one frame shows, bottom first, as the renderer stacks it: ``("card", CardItem)`` and
        ``("hand", polygon)``. Static items (minus the pile a held card slides under), the hand's under
        part, held cards, the pile slid under, the thumb, resting hands. Truth-makers (the oracle
        recogniser, detector training targets) use it to know what covers what."""
        static = self.state_items(spec.state, exclude_pile=spec.under_pile)
        under = self.state_items(spec.state, only_pile=spec.under_pile) if spec.under_pile is not None else []
        layers: list[tuple[str, Any]] = [("card", it) for it in static]
        if spec.hand is not None:
            for poly, tag in spec.hand.polygons():
                if tag != "thumb" or not spec.held:
                    layers.append(("hand", poly))
        layers += [("card", it) for it in spec.held]
        layers += [("card", it) for it in under]
        if spec.hand is not None and spec.held:
            for poly, tag in spec.hand.polygons():
                if tag == "thumb":
                    layers.append(("hand", poly))
        for h in spec.resting:
            layers += [("hand", p) for p, _ in h.polygons()]
        return layers

    def _shade(self, key: str) -> float:
        v = self.card_shade.get(key)
        if v is None:
            v = float(self._shade_rng.uniform(0.93, 1.03))
            self.card_shade[key] = v
        return v

    def hand(self, x: float, y: float, z: float, heading: float | None = None, part: str = "all",
             spread: float = 0.0) -> HandItem:
        """A hand gripping at (x, y, z); its arm comes from the player's side (towards -Y)."""
        base = (x * 0.45 + 160.0, -720.0, 260.0)
        if heading is None:
            heading = math.atan2(y - base[1], x - base[0])
        return HandItem(x, y, z, heading, self.skin, self.sleeve, self.hand_scale, part, spread, base)

    # -- low-level drawing ---------------------------------------------------------------------------
    def _draw_card(self, dst: np.ndarray, item: CardItem, off: tuple[int, int], glare: bool = True,
                   shadow: float = 0.35, alpha_out: np.ndarray | None = None) -> None:
        """Composite one card into ``dst`` (BGR uint8 or float32 premultiplied + alpha_out), offset ``off``."""
        cam = self.cam
        corners = item.corners
        show_face = item.card is not None and face_visible(corners, self.cam_center)
        quad = corners if show_face else corners[[1, 0, 3, 2]]
        uv = cam.project_u(quad) - off
        h, w = dst.shape[:2]
        x0, y0 = np.floor(uv.min(0)).astype(int) - 3
        x1, y1 = np.ceil(uv.max(0)).astype(int) + 4
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if cx1 <= cx0 or cy1 <= cy0:
            return
        height_px = float(max(np.linalg.norm(uv[0] - uv[3]), np.linalg.norm(uv[1] - uv[2]), 4.0))
        tex = self.tex.get(item.card if show_face else None, height_px)
        th, tw = tex.shape[:2]
        src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
        # shadow: the card's outline on the table, pushed along the light
        z = float(corners[:, 2].mean())
        if shadow > 0 and dst.ndim == 3 and alpha_out is None:
            lx, ly = self.photo.light_dir
            sh3 = corners.copy()
            sh3[:, 0] += lx * (z + 0.8) * 2.0
            sh3[:, 1] += ly * (z + 0.8) * 2.0
            sh3[:, 2] = 0
            suv = cam.project_u(sh3) - off
            sx0, sy0 = np.floor(np.minimum(suv.min(0), uv.min(0))).astype(int) - 6
            sx1, sy1 = np.ceil(np.maximum(suv.max(0), uv.max(0))).astype(int) + 7
            sx0, sy0, sx1, sy1 = max(sx0, 0), max(sy0, 0), min(sx1, w), min(sy1, h)
            if sx1 > sx0 and sy1 > sy0:
                m = np.zeros((sy1 - sy0, sx1 - sx0), np.uint8)
                cv2.fillConvexPoly(m, np.round((suv - [sx0, sy0]) * 4).astype(np.int32), 255, cv2.LINE_AA, 2)
                sig = 0.8 + 0.06 * z * self.cam.card_px() / CARD_H
                m = cv2.GaussianBlur(m, (0, 0), sig)
                f = 1.0 - shadow * (m.astype(np.float32) / 255.0)
                roi = dst[sy0:sy1, sx0:sx1]
                roi[:] = (roi * f[..., None]).astype(roi.dtype)
        M = cv2.getPerspectiveTransform(src, (uv - [cx0, cy0]).astype(np.float32))
        warped = cv2.warpPerspective(tex, M, (cx1 - cx0, cy1 - cy0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        a = warped[..., 3:4].astype(np.float32) * (1.0 / 255.0)
        col = warped[..., :3].astype(np.float32) * item.shade
        # cards are never perfectly flat: a gentle light gradient across each one
        gh, gw = col.shape[:2]
        k = zlib.crc32(item.key.encode()) % 1000 / 1000.0 * 2 * math.pi
        gx = np.linspace(-0.5, 0.5, gw, dtype=np.float32) * math.cos(k) * 0.08
        gy = np.linspace(-0.5, 0.5, gh, dtype=np.float32) * math.sin(k) * 0.08
        col *= (1.0 + gy[:, None] + gx[None, :])[..., None]
        if glare:
            gx0, gy0 = cx0 + off[0], cy0 + off[1]
            g = self.glare_u[gy0:gy0 + (cy1 - cy0), gx0:gx0 + (cx1 - cx0)]
            if g.shape[:2] == col.shape[:2]:
                col += g[..., None]
        roi = dst[cy0:cy1, cx0:cx1]
        if alpha_out is None:
            roi[:] = np.clip(roi * (1 - a) + col * a, 0, 255).astype(roi.dtype)
        else:
            ao = alpha_out[cy0:cy1, cx0:cx1]
            roi[:] = roi * (1 - a) + np.minimum(col, 255) * a
            ao[:] = ao * (1 - a[..., 0]) + a[..., 0]

    def _draw_hand(self, dst: np.ndarray, alpha: np.ndarray, hand: HandItem, off: tuple[int, int]) -> None:
        """Draw a hand (premultiplied float colour ``dst`` + ``alpha``) at ``off`` in the canvas."""
        polys = hand.polygons()
        skin = np.array(hand.skin, np.float32)
        h, w = alpha.shape
        projected = [(self.cam.project_u(p3) - off, tag) for p3, tag in polys]
        allp = np.concatenate([uv for uv, _ in projected])
        bx0, by0 = np.maximum(np.floor(allp.min(0)).astype(int) - 3, 0)
        bx1, by1 = np.minimum(np.ceil(allp.max(0)).astype(int) + 4, [w, h])
        if bx1 <= bx0 or by1 <= by0:
            return
        bw, bh = int(bx1 - bx0), int(by1 - by0)
        col = np.zeros((bh, bw, 3), np.uint8)
        m = np.zeros((bh, bw), np.uint8)
        for uv, tag in projected:
            if tag == "sleeve":
                colr = np.array(hand.sleeve, np.float32)
            elif tag == "arm":
                colr = skin * 0.94
            elif tag == "finger":
                colr = skin * 0.98
            elif tag == "thumb":
                colr = skin * 1.03
            elif tag == "nail":
                colr = np.minimum(skin * 1.12 + np.array([18, 14, 10], np.float32), 255)
            else:
                colr = skin
            pts = np.round((uv - [bx0, by0]) * 4).astype(np.int32)
            c = tuple(float(v) for v in np.clip(colr, 0, 255))
            if tag == "crease":
                cv2.polylines(col, [pts], False, tuple(float(v) * 0.75 for v in np.clip(skin, 0, 255)), 1, cv2.LINE_AA, 2)
                continue
            cv2.fillPoly(col, [pts], c, cv2.LINE_AA, 2)
            if tag != "nail":
                cv2.fillPoly(m, [pts], 255, cv2.LINE_AA, 2)
            if tag in ("finger", "thumb"):
                cv2.polylines(col, [pts], True, tuple(v * 0.7 for v in c), 1, cv2.LINE_AA, 2)
        a = m.astype(np.float32) * (1.0 / 255.0)
        # rounded look: darker towards the outline (blur of the mask at quarter resolution)
        sw, shh = max(2, bw // 4), max(2, bh // 4)
        small = cv2.resize(a, (sw, shh), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), max(1.0, 0.04 * min(sw, shh) + 1.5))
        small = 0.7 + 0.4 * np.clip(small * 1.7, 0, 1)
        # light from one side across the hand (the lamp), a little uneven
        lx, ly = self.photo.light_dir
        gy, gx = np.mgrid[0:shh, 0:sw].astype(np.float32)
        grad = ((gx / max(sw - 1, 1) - 0.5) * -lx + (gy / max(shh - 1, 1) - 0.5) * ly) * 0.5
        small = small * (1.0 + grad)
        shade = cv2.resize(small, (bw, bh), interpolation=cv2.INTER_LINEAR)
        sa = shade * a
        colf = cv2.multiply(col.astype(np.float32), cv2.merge([sa, sa, sa]))
        _over(dst[by0:by1, bx0:bx1], colf, a)
        ar = alpha[by0:by1, bx0:bx1]
        cv2.add(ar, cv2.subtract(a, cv2.multiply(ar, a)), dst=ar)

    def _shadow_mask(self, mask: np.ndarray, pts3_list: Iterable[np.ndarray], off: tuple[int, int],
                     blur_px: float) -> None:
        lx, ly = self.photo.light_dir
        h, w = mask.shape
        for pts3 in pts3_list:
            s = np.asarray(pts3, np.float64).copy()
            s[:, 0] += lx * s[:, 2] * 1.6
            s[:, 1] += ly * s[:, 2] * 1.6
            s[:, 2] = 0
            uv = self.cam.project_u(s) - off
            pts = np.round(uv * 4).astype(np.int32)
            cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, 2)

    # -- static rendering ---------------------------------------------------------------------------------
    def static_canvas(self, state: TableState, exclude_pile: int | None = None,
                      extra: Sequence[CardItem] = ()) -> np.ndarray:
        """The undistorted canvas of the table with these cards (cached per state)."""
        key = (state.key(), exclude_pile, tuple(i.key for i in extra))
        hit = self._static_cache.get(key)
        if hit is not None:
            return hit[0]
        canvas = self._table_u.copy()
        for it in self.state_items(state, exclude_pile) + list(extra):
            self._draw_card(canvas, it, (0, 0))
        if len(self._static_cache) > 6:
            self._static_cache.pop(next(iter(self._static_cache)))
        self._static_cache[key] = (canvas, np.empty(0))
        return canvas

    def pile_layer(self, state: TableState, pile: int) -> tuple[tuple[int, int, int, int], np.ndarray, np.ndarray]:
        """Pile ``pile``'s cards alone as (box, premultiplied BGR float32, alpha) in the canvas."""
        items = self.state_items(state, only_pile=pile)
        W, H = self.cam.canvas_size
        if not items:
            return (0, 0, 1, 1), np.zeros((1, 1, 3), np.float32), np.zeros((1, 1), np.float32)
        uv = np.concatenate([self.cam.project_u(i.corners) for i in items])
        x0, y0 = np.maximum(np.floor(uv.min(0)).astype(int) - 4, 0)
        x1, y1 = np.minimum(np.ceil(uv.max(0)).astype(int) + 5, [W, H])
        col = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
        al = np.zeros((y1 - y0, x1 - x0), np.float32)
        for it in items:
            self._draw_card(col, it, (int(x0), int(y0)), alpha_out=al)
        return (int(x0), int(y0), int(x1), int(y1)), col, al

    def finish(self, canvas: np.ndarray) -> np.ndarray:
        """Whole output image from an undistorted canvas: distortion, blur, light (no noise)."""
        out = self.cam.remap_roi(canvas)
        return self.photo.apply(out)

    def render_state(self, state: TableState, noise_seed: int | None = 0) -> np.ndarray:
        """A still of a table state (with sensor noise and JPEG when ``noise_seed`` is not None)."""
        img = self.finish(self.static_canvas(state))
        if noise_seed is not None:
            img = self.photo.add_noise(img, np.random.default_rng(noise_seed))
        return img


def _add_clutter(tex: np.ndarray, rng: np.random.Generator, ppm: float, x0: float, y1: float, layout: Layout,
                 light: tuple[float, float]) -> list[dict[str, Any]]:
    """Things left on the table outside the layout (a mug, a phone, coins, a pen, the card box) and
    sometimes the table's edge with the floor beyond. Drawn into the texture in place; returns what."""
    ext = layout.extent_points()
    r_out = float(np.max(np.hypot(ext[:, 0], ext[:, 1]))) + 25
    h, w = tex.shape[:2]

    def px(X: float, Y: float) -> tuple[float, float]:
        return (X - x0) * ppm, (y1 - Y) * ppm

    out: list[dict[str, Any]] = []
    img = tex.astype(np.float32)
    if rng.random() < 0.25:  # the table ends: floor beyond a straight edge
        ang = rng.uniform(0, 2 * math.pi)
        d = r_out + rng.uniform(40, 260)
        nx, ny = math.cos(ang), math.sin(ang)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        X = xs / ppm + x0
        Y = y1 - ys / ppm
        dist = X * nx + Y * ny - d
        floor = np.array([rng.uniform(20, 90)] * 3, np.float32) * (1 + rng.normal(0, 0.15, 3)).astype(np.float32)
        fn = cv2.resize(rng.standard_normal((max(2, h // 8), max(2, w // 8))).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC)
        fl = floor[None, None, :] * (1 + 0.08 * fn)[..., None]
        t = np.clip(dist * ppm / 2 + 0.5, 0, 1)[..., None]
        edge = np.exp(-((dist - 1.5) / 1.5) ** 2)[..., None] * 40
        img = img * (1 - t) + fl * t + edge * (1 - t)
        out.append({"kind": "table_edge", "normal": [round(nx, 4), round(ny, 4)], "distance_mm": round(d, 1)})
    n = int(rng.integers(0, 4))
    for _ in range(n):
        kind = ["mug", "phone", "coin", "coin", "pen", "box"][int(rng.integers(0, 6))]
        ang = rng.uniform(0, 2 * math.pi)
        r = r_out + rng.uniform(30, 260)
        X, Y = r * math.cos(ang), r * math.sin(ang)
        rot = rng.uniform(0, math.pi)
        col = np.array([rng.uniform(20, 235) for _ in range(3)], np.float32)
        height = {"mug": 95, "phone": 8, "coin": 2, "pen": 9, "box": 25}[kind]
        size = {"mug": 45, "phone": 82, "coin": 12, "pen": 72, "box": 60}[kind]
        ccx, ccy = px(X, Y)
        marg = (size + height * 0.6 + 20) * ppm
        bx0, by0 = int(max(0, ccx - marg)), int(max(0, ccy - marg))
        bx1, by1 = int(min(w, ccx + marg)), int(min(h, ccy + marg))
        if bx1 - bx0 < 4 or by1 - by0 < 4:
            continue
        bw, bh = bx1 - bx0, by1 - by0
        mask = np.zeros((bh, bw), np.uint8)

        def lp(X_: float, Y_: float) -> tuple[float, float]:
            a_, b_ = px(X_, Y_)
            return a_ - bx0, b_ - by0

        def poly_rect(cx: float, cy: float, a: float, b: float) -> np.ndarray:
            c, s_ = math.cos(rot), math.sin(rot)
            pts = [(cx + u * c - v * s_, cy + u * s_ + v * c) for u, v in ((-a, -b), (a, -b), (a, b), (-a, b))]
            return np.array([lp(*p) for p in pts])

        cx, cy = lp(X, Y)
        if kind == "mug":
            cv2.circle(mask, (int(cx * 4), int(cy * 4)), int(42 * ppm * 4), 255, -1, cv2.LINE_AA, 2)
        elif kind == "coin":
            cv2.circle(mask, (int(cx * 4), int(cy * 4)), int(11 * ppm * 4), 255, -1, cv2.LINE_AA, 2)
            col = np.array([90, 150, 180] if rng.random() < 0.5 else [170, 170, 170], np.float32)
        elif kind == "phone":
            cv2.fillConvexPoly(mask, np.round(poly_rect(X, Y, 36, 74) * 4).astype(np.int32), 255, cv2.LINE_AA, 2)
            col = np.array([25, 25, 28], np.float32)
        elif kind == "pen":
            cv2.fillConvexPoly(mask, np.round(poly_rect(X, Y, 70, 4.5) * 4).astype(np.int32), 255, cv2.LINE_AA, 2)
        else:
            cv2.fillConvexPoly(mask, np.round(poly_rect(X, Y, 34, 47) * 4).astype(np.int32), 255, cv2.LINE_AA, 2)
        m = mask.astype(np.float32) / 255.0
        if m.sum() == 0:
            continue
        sub = img[by0:by1, bx0:bx1]
        sh = np.float32([[1, 0, light[0] * height * ppm * 1.2], [0, 1, -light[1] * height * ppm * 1.2]])
        sm = cv2.warpAffine(m, sh, (bw, bh))
        sm = cv2.GaussianBlur(sm, (0, 0), max(1.0, 0.08 * height * ppm + 1))
        sub *= (1 - 0.45 * sm)[..., None]
        shade = cv2.GaussianBlur(m, (0, 0), max(1.0, 4 * ppm))
        objc = col[None, None, :] * (0.75 + 0.35 * shade[..., None])
        if kind == "mug":  # the inside of the mug, darker, and a coffee surface
            inner = np.zeros((bh, bw), np.uint8)
            cv2.circle(inner, (int(cx * 4), int(cy * 4)), int(35 * ppm * 4), 255, -1, cv2.LINE_AA, 2)
            ii = (inner.astype(np.float32) / 255.0)[..., None]
            objc = objc * (1 - ii) + ii * np.array([20, 35, 50], np.float32)[None, None, :]
        sub[:] = sub * (1 - m[..., None]) + objc * m[..., None]
        out.append({"kind": kind, "pos_mm": [round(X, 1), round(Y, 1)]})
    tex[:] = np.clip(img, 0, 255).astype(np.uint8)
    return out


def _union_boxes(tex: _Textures) -> list[tuple[float, float, float, float]]:
    """Index boxes (face fractions) that cover every card's boxes."""
    per = [tex.boxes_frac(c) for c in FULL_DECK]
    n = min(len(b) for b in per)
    out = []
    for i in range(n):
        arr = np.array([b[i] for b in per])
        out.append((float(arr[:, 0].min()), float(arr[:, 1].min()), float(arr[:, 2].max()), float(arr[:, 3].max())))
    return out


# ----------------------------------------------------------------------------------------------
# dynamic frames
# ----------------------------------------------------------------------------------------------
@dataclass
class FrameSpec:
    """What one video frame shows.

    ``state``: the cards lying still; ``under_pile``: a held card is slid under that pile (its cards are
    drawn above the held cards); ``held``: cards in hand (3-D corners); ``hands``: the moving hand
    (split into its "under" part below the held cards and its "thumb" above) and resting hands.
    """

    state: TableState
    under_pile: int | None = None
    held: list[CardItem] = field(default_factory=list)
    hand: HandItem | None = None
    resting: list[HandItem] = field(default_factory=list)


class FrameRenderer:
    """Renders :class:`FrameSpec` sequences fast: cached static images, re-composited dirty region."""

    def __init__(self, scene: Scene, noise_seed: int = 0) -> None:
        self.scene = scene
        self.noise_seed = noise_seed
        self.rng = np.random.default_rng(noise_seed)
        self._final_cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._layer_cache: dict[tuple, Any] = {}
        self._last_patch: tuple[Any, Any] | None = None

    def _base(self, state: TableState, under: int | None) -> tuple[np.ndarray, np.ndarray]:
        key = (state.key(), under)
        hit = self._final_cache.get(key)
        if hit is None:
            canvas = self.scene.static_canvas(state, exclude_pile=under)
            final = self.scene.finish(canvas)
            hit = (canvas, final)
            if len(self._final_cache) > 4:
                self._final_cache.pop(next(iter(self._final_cache)))
            self._final_cache[key] = hit
        return hit

    def _layer(self, state: TableState, pile: int) -> Any:
        key = (state.key(), pile)
        hit = self._layer_cache.get(key)
        if hit is None:
            hit = self.scene.pile_layer(state, pile)
            if len(self._layer_cache) > 4:
                self._layer_cache.pop(next(iter(self._layer_cache)))
            self._layer_cache[key] = hit
        return hit

    def render(self, spec: FrameSpec, noise: bool = True, prev: FrameSpec | None = None,
               index: int | None = None) -> np.ndarray:
        """One frame. ``prev`` (the previous frame's spec) gives the motion blur; ``index`` seeds the
        sensor noise so that any frame renders the same whatever order frames are rendered in."""
        return self.compose(spec, self.patch(spec, prev), noise=noise, index=index)

    def compose(self, spec: FrameSpec, patch: tuple[tuple[int, int, int, int], np.ndarray] | None,
                noise: bool = True, index: int | None = None) -> np.ndarray:
        """The frame from its static image, the re-rendered patch (see :meth:`patch`) and sensor noise."""
        if index is not None:
            self.rng = np.random.default_rng((self.noise_seed, index))
        out = self._base(spec.state, spec.under_pile)[1].copy()
        if patch is not None:
            (ox0, oy0, ox1, oy1), img = patch
            out[oy0:oy1, ox0:ox1] = img
        return self.scene.photo.add_noise(out, self.rng) if noise else out

    def patch(self, spec: FrameSpec, prev: FrameSpec | None = None) -> tuple[tuple[int, int, int, int], np.ndarray] | None:
        """The output-image box that changes with the moving hand/cards, finished (no noise), or None."""
        sc = self.scene
        cam = sc.cam
        canvas, final = self._base(spec.state, spec.under_pile)
        hands = ([spec.hand] if spec.hand is not None else []) + list(spec.resting)
        if not spec.held and not hands:
            return None
        # a still hand over a still table (idle, resting): same patch as the frame before
        key = (id(spec.state), spec.under_pile, tuple((h.x, h.y, h.z, h.heading, h.spread) for h in hands),
               tuple(c.corners.tobytes() for c in spec.held),
               None if prev is None or prev.hand is None else (prev.hand.x, prev.hand.y, prev.hand.z))
        if self._last_patch is not None and self._last_patch[0] == key:
            return self._last_patch[1]
        result = self._patch(spec, prev, canvas, hands)
        self._last_patch = (key, result)
        return result

    def _patch(self, spec: FrameSpec, prev: FrameSpec | None, canvas: np.ndarray,
               hands: list[HandItem]) -> tuple[tuple[int, int, int, int], np.ndarray] | None:
        sc = self.scene
        cam = sc.cam
        # region of interest in the canvas
        pts = [cam.project_u(c.corners) for c in spec.held]
        polys_by_hand = [h.polygons() for h in hands]
        for polys in polys_by_hand:
            for p3, _ in polys:
                pts.append(cam.project_u(p3))
                s = p3.copy()
                s[:, 0] += sc.photo.light_dir[0] * s[:, 2] * 1.6
                s[:, 1] += sc.photo.light_dir[1] * s[:, 2] * 1.6
                s[:, 2] = 0
                pts.append(cam.project_u(s))
        for c in spec.held:
            s = c.corners.copy()
            s[:, 0] += sc.photo.light_dir[0] * s[:, 2] * 1.6
            s[:, 1] += sc.photo.light_dir[1] * s[:, 2] * 1.6
            s[:, 2] = 0
            pts.append(cam.project_u(s))
        allp = np.concatenate(pts)
        # motion blur vector from the moving grip
        blur = np.zeros(2)
        if spec.hand is not None and prev is not None and prev.hand is not None:
            g = cam.project_u([[spec.hand.x, spec.hand.y, spec.hand.z], [prev.hand.x, prev.hand.y, prev.hand.z]])
            blur = (g[0] - g[1]) * 0.5
        pad = int(np.ceil(np.abs(blur).max())) + 12
        W, H = cam.canvas_size
        x0, y0 = np.maximum(np.floor(allp.min(0)).astype(int) - pad, 0)
        x1, y1 = np.minimum(np.ceil(allp.max(0)).astype(int) + pad, [W, H])
        if x1 <= x0 or y1 <= y0:
            return None
        off = (int(x0), int(y0))
        rh, rw = int(y1 - y0), int(x1 - x0)
        roi = canvas[y0:y1, x0:x1]
        saved = roi.copy()
        work = roi.astype(np.float32)
        # shadows of hands and held cards
        smask = np.zeros((rh, rw), np.uint8)
        sc._shadow_mask(smask, [p3 for polys in polys_by_hand for p3, _ in polys] + [c.corners for c in spec.held], off, 0)
        zmean = np.mean([h.z for h in hands] + [float(c.corners[:, 2].mean()) for c in spec.held])
        sig = 1.0 + 0.05 * zmean * cam.card_px() / CARD_H
        if sig > 3 and rh > 16 and rw > 16:  # wide soft shadow: blur at quarter size
            small = cv2.resize(smask, (rw // 4, rh // 4), interpolation=cv2.INTER_AREA)
            small = cv2.GaussianBlur(small, (0, 0), sig / 4)
            sm = cv2.resize(small, (rw, rh), interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255.0
        else:
            sm = cv2.GaussianBlur(smask, (0, 0), sig).astype(np.float32) / 255.0
        sm3 = cv2.merge([sm, sm, sm])
        cv2.subtract(work, cv2.multiply(work, sm3, scale=0.42), dst=work)
        # moving layer A: hand (below the cards) + held cards
        colA = np.zeros((rh, rw, 3), np.float32)
        alA = np.zeros((rh, rw), np.float32)
        if spec.hand is not None:
            hu = HandItem(**{**spec.hand.__dict__, "part": "under" if spec.held else "all"})
            sc._draw_hand(colA, alA, hu, off)
        for c in spec.held:
            sc._draw_card(colA, c, off, alpha_out=alA)
        colB = np.zeros((rh, rw, 3), np.float32)
        alB = np.zeros((rh, rw), np.float32)
        if spec.hand is not None and spec.held:
            sc._draw_hand(colB, alB, HandItem(**{**spec.hand.__dict__, "part": "thumb"}), off)
        if np.hypot(*blur) > 2.5:
            colA, alA = _motion_blur(colA, alA, blur)
            if spec.held:
                colB, alB = _motion_blur(colB, alB, blur)
        _over(work, colA, alA)
        if spec.under_pile is not None:
            (lx0, ly0, lx1, ly1), lcol, lal = self._layer(spec.state, spec.under_pile)
            ix0, iy0, ix1, iy1 = max(lx0, x0), max(ly0, y0), min(lx1, x1), min(ly1, y1)
            if ix1 > ix0 and iy1 > iy0:
                a = lal[iy0 - ly0:iy1 - ly0, ix0 - lx0:ix1 - lx0, None]
                wv = work[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0]
                wv[:] = wv * (1 - a) + lcol[iy0 - ly0:iy1 - ly0, ix0 - lx0:ix1 - lx0]
        if spec.hand is not None and spec.held:
            _over(work, colB, alB)
        for h in spec.resting:
            colC = np.zeros((rh, rw, 3), np.float32)
            alC = np.zeros((rh, rw), np.float32)
            sc._draw_hand(colC, alC, h, off)
            _over(work, colC, alC)
        roi[:] = cv2.convertScaleAbs(work)
        oroi = cam.output_roi((int(x0), int(y0), int(x1), int(y1)), pad=4)
        result = None
        if oroi is not None:
            patch = cam.remap_roi(canvas, oroi)
            result = (oroi, sc.photo.apply(patch, oroi))
        roi[:] = saved
        return result


def _motion_blur(col: np.ndarray, al: np.ndarray, vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average of copies shifted along ``vec`` (pixels): a cheap linear motion blur."""
    L = float(np.hypot(*vec))
    n = int(min(5, max(2, math.ceil(L / 3))))
    accc = np.zeros_like(col)
    acca = np.zeros_like(al)
    h, w = al.shape
    for t in np.linspace(-0.5, 0.5, n):
        dx, dy = int(round(vec[0] * t)), int(round(vec[1] * t))
        sx0, sx1 = max(0, -dx), min(w, w - dx)
        sy0, sy1 = max(0, -dy), min(h, h - dy)
        if sx1 <= sx0 or sy1 <= sy0:
            continue
        accc[sy0 + dy:sy1 + dy, sx0 + dx:sx1 + dx] += col[sy0:sy1, sx0:sx1]
        acca[sy0 + dy:sy1 + dy, sx0 + dx:sx1 + dx] += al[sy0:sy1, sx0:sx1]
    accc *= 1.0 / n
    acca *= 1.0 / n
    return accc, acca


def _over(work: np.ndarray, col: np.ndarray, al: np.ndarray) -> None:
    """In place: ``work = work * (1 - al) + col`` (``col`` premultiplied), with OpenCV ops."""
    a3 = cv2.merge([al, al, al])
    cv2.subtract(work, cv2.multiply(work, a3), dst=work)
    cv2.add(work, col, dst=work)
