"""Training samples for the card recogniser: whole scenes or card crops with exact labels.

Each sample comes from a seed: a random deck (from ``decks``), table, layout, mid-game table state
(face-down stacks, face-up fans, sometimes a card lying on top), maybe a card held in a hand (face up,
tilted or turning) and a hand resting over the layout, seen by a random webcam (tilt 0..35 degrees,
card height 70..250 px at 720p, scaled to the image height; ``rotation=True`` turns the camera any
angle about its axis) with the renderer's light, glare, blur, noise and JPEG.

Labels, all in image pixels with the lens distortion applied:

* ``quad``: the card's corners TL, TR, BR, BL of its upright printed face (for a face-down card:
  of its back as printed);
* ``index_quads`` / ``index_boxes``: the corner-index regions (quads, and their axis-aligned boxes);
* ``visible``: fraction of the card not covered by other cards or hands (and inside the image);
  ``index_visible``: the same for each index region.

>>> s = sample_scene(1, decks=["builtin"], width=320, height=240)
>>> s.image.shape, all(len(c.quad) == 4 for c in s.cards)
((240, 320, 3), True)
>>> any(c.face_up for c in s.cards) and all(0 <= c.visible <= 1 for c in s.cards)
True
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import cv2
import numpy as np

from ..cards import CENTRE, PILES, Card
from ..rules.deal import Deal
from ..rules.game import ClockGame
from .scene import CardItem, HandItem, Scene, TableState, card_corners, face_visible, index_quads_mm

__all__ = ["CardLabel", "SceneSample", "CropSample", "sample_scene", "sample_crops", "iter_samples"]


@dataclass
class CardLabel:
    """One card in a sample (image pixels)."""

    code: str  # "7H"; face-down cards have their real code too (what is under the back)
    face_up: bool  # its printed face is what the camera sees
    quad: np.ndarray  # (4, 2) TL, TR, BR, BL of the upright face (or back)
    index_quads: list[np.ndarray]  # (4, 2) each; empty for face-down cards
    index_boxes: list[tuple[float, float, float, float]]  # x0, y0, x1, y1
    visible: float  # fraction of the card not covered and inside the image
    index_visible: list[float]
    role: str  # "up" (beneath a pile), "down" (stack), "top" (on a stack), "held"
    pile: int | None

    def to_json(self) -> dict[str, Any]:
        r = lambda a: np.round(np.asarray(a, float), 2).tolist()  # noqa: E731
        return {"code": self.code, "face_up": self.face_up, "quad": r(self.quad),
                "index_quads": [r(q) for q in self.index_quads], "index_boxes": [list(map(float, b)) for b in self.index_boxes],
                "visible": round(self.visible, 4), "index_visible": [round(v, 4) for v in self.index_visible],
                "role": self.role, "pile": self.pile}


@dataclass
class SceneSample:
    image: np.ndarray  # BGR uint8
    cards: list[CardLabel]
    deck: str
    seed: int
    camera: dict[str, Any] = field(default_factory=dict)
    hands: int = 0


@dataclass
class CropSample:
    image: np.ndarray  # BGR uint8 crop around one card
    card: CardLabel  # coordinates in the crop
    deck: str
    seed: int


def _random_state(rng: random.Random, deal: Deal) -> tuple[TableState, ClockGame]:
    game = ClockGame(deal)
    n = rng.randint(0, 45)
    st = TableState.initial()
    for _ in range(n):
        if game.is_over():
            break
        mv = game.turn()
        st.down[mv.from_pile] -= 1
        st.up[mv.to_pile].append(mv.card)
    return st, game


def _hidden_cards(game: ClockGame) -> dict[int, list[Card]]:
    """Face-down cards of each pile, bottom first (as the stack layers are numbered)."""
    return {p: list(reversed(game.face_down[p])) for p in PILES}


def sample_scene(seed: int, decks: Sequence[str] = ("builtin",), width: int = 640, height: int = 480, *,
                 rotation: bool = False, hands: bool = True, whole_layout: float = 0.3,
                 jpeg: bool = True) -> SceneSample:
    """One labelled scene from ``seed``. ``whole_layout``: probability of framing the whole clock
    (otherwise the camera looks closer at part of it)."""
    rng = random.Random(seed * 7 + 1)
    deck = decks[rng.randrange(len(decks))]
    roll = rng.uniform(-180, 180) if rotation else None
    scene = Scene.random(seed, deck=deck, width=width, height=height, fit_layout=rng.random() < whole_layout,
                         roll=roll)
    deal = Deal.random(seed)
    state, game = _random_state(rng, deal)
    hidden = _hidden_cards(game)
    # sometimes a child's card on top of a stack
    if rng.random() < 0.2:
        p = rng.choice([q for q in PILES if state.down[q] > 0] or [CENTRE])
        q = rng.choice([q for q in PILES if state.up[q]] or [p])
        if state.up[q]:
            state.on_top[p] = state.up[q].pop()
    items = scene.state_items(state)
    held: list[CardItem] = []
    hand: HandItem | None = None
    resting: list[HandItem] = []
    if hands and rng.random() < 0.5 and not game.is_over():
        mv = game.peek()
        L = scene.layout
        base = L.pos[mv.from_pile] * rng.uniform(0.2, 1.0)
        x, y = float(base[0] + rng.uniform(-60, 60)), float(base[1] + rng.uniform(-60, 60))
        phi = rng.choice([0.0, 0.0, 0.0, rng.uniform(0, math.pi)])
        a = rng.uniform(-math.pi, math.pi)
        corners = card_corners(x, y, a, rng.uniform(15, 90), phi, tilt=rng.uniform(-0.3, 0.3))
        held = [CardItem(mv.card, corners, None, "held", -1, 1.0)]
        g = corners[[0, 1]].mean(0) if rng.random() < 0.5 else corners[[2, 3]].mean(0)
        hand = scene.hand(float(g[0]), float(g[1]), float(g[2] + 6))
        state.down[mv.from_pile] -= 1
        hidden[mv.from_pile].pop()
        items = scene.state_items(state)
    if hands and rng.random() < 0.3:
        ang = rng.uniform(0, 2 * math.pi)
        r = scene.layout.radius * rng.uniform(0.3, 1.3)
        x, y = r * math.cos(ang), r * math.sin(ang)
        h = scene.hand(x, y, 12.0, spread=0.5)
        resting = [HandItem(h.x, h.y, h.z, h.heading, h.skin, h.sleeve, h.scale, "all", 0.5, h.arm_base)]
    # pixels
    from .scene import FrameRenderer, FrameSpec

    img = FrameRenderer(scene, noise_seed=seed).render(FrameSpec(state, None, held, hand, resting), index=0)
    if jpeg:
        img = scene.photo.jpeg(img)
    labels = _labels(scene, items, held, hand, resting, hidden)
    return SceneSample(img, labels, deck, seed, scene.cam.to_json(), int(hand is not None) + len(resting))


def _labels(scene: Scene, items: list[CardItem], held: list[CardItem], hand: HandItem | None,
            resting: list[HandItem], hidden: dict[int, list[Card]]) -> list[CardLabel]:
    """Labels with visibility from an id map drawn in paint order."""
    cam = scene.cam
    W, H = cam.width, cam.height
    order: list[tuple[str, Any]] = [("card", it) for it in items]
    if hand is not None:
        order.append(("hand", HandItem(**{**hand.__dict__, "part": "under" if held else "all"})))
    order += [("card", it) for it in held]
    if hand is not None and held:
        order.append(("hand", HandItem(**{**hand.__dict__, "part": "thumb"})))
    order += [("hand", h) for h in resting]
    idmap = np.zeros((H, W), np.int32)
    polys_px: list[np.ndarray | None] = []
    for k, (kind, obj) in enumerate(order, start=1):
        if kind == "card":
            q = cam.project(obj.corners)
            cv2.fillConvexPoly(idmap, np.round(q * 4).astype(np.int32), k, cv2.LINE_8, 2)
            polys_px.append(q)
        else:
            for p3, _ in obj.polygons():
                cv2.fillPoly(idmap, [np.round(cam.project(p3) * 4).astype(np.int32)], -1, cv2.LINE_8, 2)
            polys_px.append(None)
    labels: list[CardLabel] = []
    down_seen: dict[int, int] = {}
    for k, (kind, obj) in enumerate(order, start=1):
        if kind != "card":
            continue
        it: CardItem = obj
        card = it.card
        if it.role == "down":
            assert it.pile is not None
            i = down_seen.get(it.pile, 0)
            down_seen[it.pile] = i + 1
            stack = hidden.get(it.pile, [])
            card = stack[i] if i < len(stack) else None
        if card is None:
            continue
        up = it.card is not None and face_visible(it.corners, scene.cam_center)
        corners3 = it.corners if up else it.corners[[1, 0, 3, 2]]
        quad = cam.project(corners3)
        vis = _fraction(idmap, quad, k, W, H)
        iq: list[np.ndarray] = []
        iv: list[float] = []
        ib: list[tuple[float, float, float, float]] = []
        if up:
            for q3 in index_quads_mm(it.corners, scene.tex.boxes_frac(card)):
                q = cam.project(q3)
                iq.append(q)
                iv.append(_fraction(idmap, q, k, W, H))
                ib.append((float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())))
        labels.append(CardLabel(str(card), up, quad, iq, ib, vis, iv, it.role, it.pile))
    return labels


def _fraction(idmap: np.ndarray, quad: np.ndarray, k: int, W: int, H: int) -> float:
    """Fraction of ``quad``'s area (inside or outside the image) where the id map shows object ``k``."""
    x0, y0 = np.floor(quad.min(0)).astype(int)
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 1
    w, h = x1 - x0, y1 - y0
    if w <= 0 or h <= 0:
        return 0.0
    m = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(m, np.round((quad - [x0, y0]) * 4).astype(np.int32), 1, cv2.LINE_8, 2)
    total = int(m.sum())
    if total == 0:
        return 0.0
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if cx1 <= cx0 or cy1 <= cy0:
        return 0.0
    sub = idmap[cy0:cy1, cx0:cx1] == k
    mm = m[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0].astype(bool)
    return float((sub & mm).sum()) / total


def sample_crops(seed: int, decks: Sequence[str] = ("builtin",), size: tuple[int, int] | None = (96, 128), *,
                 min_visible: float = 0.3, face_up_only: bool = False, rotation: bool = True,
                 width: int = 640, height: int = 480, pad: float = 0.15) -> list[CropSample]:
    """Crops around the cards of one scene (resized to ``size`` = (w, h) when given), labels in crop pixels."""
    s = sample_scene(seed, decks, width, height, rotation=rotation)
    rng = random.Random(seed * 31 + 7)
    out: list[CropSample] = []
    for lab in s.cards:
        if lab.visible < min_visible or (face_up_only and not lab.face_up):
            continue
        x0, y0 = lab.quad.min(0)
        x1, y1 = lab.quad.max(0)
        bw, bh = x1 - x0, y1 - y0
        p = pad * rng.uniform(0.5, 1.5)
        cx0 = int(max(0, math.floor(x0 - p * bw + rng.uniform(-0.05, 0.05) * bw)))
        cy0 = int(max(0, math.floor(y0 - p * bh + rng.uniform(-0.05, 0.05) * bh)))
        cx1 = int(min(s.image.shape[1], math.ceil(x1 + p * bw)))
        cy1 = int(min(s.image.shape[0], math.ceil(y1 + p * bh)))
        if cx1 - cx0 < 8 or cy1 - cy0 < 8:
            continue
        crop = s.image[cy0:cy1, cx0:cx1]
        sx = sy = 1.0
        if size is not None:
            sx, sy = size[0] / crop.shape[1], size[1] / crop.shape[0]
            crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA if sx < 1 else cv2.INTER_LINEAR)
        f = lambda q: (np.asarray(q) - [cx0, cy0]) * [sx, sy]  # noqa: E731
        lab2 = CardLabel(lab.code, lab.face_up, f(lab.quad), [f(q) for q in lab.index_quads],
                         [((b[0] - cx0) * sx, (b[1] - cy0) * sy, (b[2] - cx0) * sx, (b[3] - cy0) * sy) for b in lab.index_boxes],
                         lab.visible, lab.index_visible, lab.role, lab.pile)
        out.append(CropSample(np.ascontiguousarray(crop), lab2, s.deck, seed))
    return out


def iter_samples(seed: int, n: int, decks: Sequence[str] = ("builtin",), mode: str = "scene",
                 **kw: Any) -> Iterator[SceneSample | CropSample]:
    """``n`` scenes (``mode="scene"``) or crops (``mode="crop"``) from seeds ``seed, seed+1, ...``."""
    if mode not in ("scene", "crop"):
        raise ValueError("mode must be 'scene' or 'crop'")
    made = 0
    s = seed
    while made < n:
        if mode == "scene":
            yield sample_scene(s, decks, **kw)
            made += 1
        else:
            for c in sample_crops(s, decks, **kw):
                yield c
                made += 1
                if made >= n:
                    break
        s += 1
