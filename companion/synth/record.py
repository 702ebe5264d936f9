"""Whole-game recordings: a video of a hand playing a seeded deal, with exact ground truth.

:func:`plan_game` decides *what* happens (the ClockGame moves, the child's mistakes and their
corrections, hesitations, a resting hand, the Watch exchange), :class:`Director` turns that into
per-frame :class:`~companion.synth.scene.FrameSpec` (hand and card poses), and :func:`record_game`
renders them to ``game.mp4`` (mp4v) and writes ``truth.json``.

Event frames are where an event becomes observable: ``turn`` when the card has left its pile,
``see`` when its face is fully turned up, ``place``/``move``/``return`` when the card lies still
and its index corner is uncovered, ``exchange`` when the king lies on the pile, ``declare`` at the end.

>>> plan = plan_game(5, "standard", mistakes=2)
>>> sum(1 for a in plan.actions if a.kind == "move") == len(plan.game.moves)
True
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import cv2
import numpy as np

from ..cards import CENTRE, PILES, Card
from ..rules.deal import Deal
from ..rules.game import ClockGame, Move
from .scene import (CARD_H, CardItem, FrameRenderer, FrameSpec, HandItem, Scene, TableState, card_corners,
                    index_quads_mm, quad_point)

__all__ = ["MISTAKE_KINDS", "Action", "GamePlan", "plan_game", "Director", "record_game", "RenderError",
           "visible_fraction", "expected_verdicts"]

#: The child's mistakes, each corrected on screen.
MISTAKE_KINDS = ("wrong_target", "wrong_side", "wrong_source")
MISTAKE_FLAGS = {"wrong_target": "WRONG_TARGET_PILE", "wrong_side": "WRONG_SIDE", "wrong_source": "WRONG_SOURCE_PILE"}


class RenderError(ValueError):
    """Impossible options (bad resolution, fps, mistakes...)."""


@dataclass
class Action:
    kind: str  # "move" | "wrong_source" | "rest" | "exchange" | "declare"
    move: Move | None = None
    mistake: str | None = None  # for a move: "wrong_target" | "wrong_side"
    wrong_pile: int | None = None
    card: Card | None = None  # wrong_source: the card taken by mistake
    hesitate: float = 0.0  # seconds held in the open
    seconds: float = 0.0  # rest
    pile: int | None = None  # exchange
    depth: int = 0
    won: bool = False


@dataclass
class GamePlan:
    seed: int
    variant: str
    deal: Deal
    game: ClockGame
    actions: list[Action]


def _neighbours(p: int) -> list[int]:
    if p == CENTRE:
        return [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    return [((p - 2) % 12) + 1, (p % 12) + 1]


def plan_game(seed: int, variant: str = "standard", mistakes: int = 0, *, exchange: bool | None = None,
              hesitations: int | None = None, rests: int | None = None, max_moves: int | None = None) -> GamePlan:
    """What the player does in game ``seed``: moves (ClockGame's), mistakes, pauses, exchange."""
    if mistakes < 0:
        raise RenderError(f"--mistakes must be 0 or more, got {mistakes}")
    rng = random.Random(seed * 1_000_003 + 11)
    deal = Deal.random(seed)
    game = ClockGame(deal, variant)  # type: ignore[arg-type]
    # play the whole game first (with the Watch exchange if chosen) to know its moves
    sim = ClockGame(deal, variant)  # type: ignore[arg-type]
    steps: list[Any] = []
    while True:
        while not sim.is_over():
            down_before = {p: len(v) for p, v in sim.face_down.items()}
            mv = sim.turn()
            steps.append(("move", mv, down_before))
        if sim.can_exchange() and (exchange if exchange is not None else rng.random() < 0.9):
            piles = [p for p in PILES if sim.face_down[p]]
            p = rng.choice(piles)
            steps.append(("exchange", p, 0))
            sim.exchange(p, 0)
            continue
        break
    if max_moves is not None:
        steps = steps[:max_moves]
    n_moves = sum(1 for s in steps if s[0] == "move")
    if mistakes > max(0, n_moves - 1):
        raise RenderError(f"--mistakes {mistakes} is more than this game has moves for ({n_moves - 1})")
    # choose mistakes: kinds cycle through a seeded order so that 3 mistakes show every kind
    kinds = list(MISTAKE_KINDS)
    rng.shuffle(kinds)
    move_idx = [i for i, s in enumerate(steps) if s[0] == "move"]
    eligible = move_idx[1:-1] if len(move_idx) > 2 else move_idx[:-1]
    chosen: dict[int, str] = {}
    tries = 0
    k = 0
    while len(chosen) < mistakes and tries < 5000:
        tries += 1
        i = rng.choice(eligible)
        if i in chosen:
            continue
        kind = kinds[k % len(kinds)]
        _, mv, down = steps[i]
        if kind == "wrong_side" and down[mv.to_pile] - (1 if mv.to_pile == mv.from_pile else 0) <= 0:
            continue
        if kind == "wrong_source" and not any(down[q] > 0 for q in _neighbours(mv.from_pile) if q != mv.from_pile):
            continue
        chosen[i] = kind
        k += 1
    if len(chosen) < mistakes:
        raise RenderError(f"could not fit {mistakes} mistakes in this game")
    n_hes = hesitations if hesitations is not None else rng.randint(1, 3)
    hes_at = set(rng.sample(move_idx, min(n_hes, len(move_idx))))
    n_rest = rests if rests is not None else rng.randint(1, 2)
    rest_at = set(rng.sample(move_idx[1:], min(n_rest, max(0, len(move_idx) - 1))))
    actions: list[Action] = []
    for i, s in enumerate(steps):
        if s[0] == "exchange":
            actions.append(Action("exchange", pile=s[1], depth=s[2]))
            game.exchange(s[1], s[2])
            continue
        _, mv, down = s
        if i in rest_at:
            actions.append(Action("rest", seconds=rng.uniform(1.5, 3.0)))
        kind = chosen.get(i)
        if kind == "wrong_source":
            qs = [q for q in _neighbours(mv.from_pile) if q != mv.from_pile and down[q] > 0]
            q = rng.choice(qs)
            actions.append(Action("wrong_source", wrong_pile=q, card=game.face_down[q][0]))
            kind = None
        a = Action("move", move=mv, mistake=kind, hesitate=rng.uniform(1.2, 2.5) if i in hes_at else 0.0)
        if kind == "wrong_target":
            a.wrong_pile = rng.choice([q for q in _neighbours(mv.to_pile) if q != mv.to_pile])
        actions.append(a)
        game.push(mv)
    out = game.outcome()
    if out is not None:  # a game cut short by max_moves has no end to declare
        actions.append(Action("declare", won=bool(out.won)))
    return GamePlan(seed, variant, deal, game, actions)


# ----------------------------------------------------------------------------------------------
# visibility
# ----------------------------------------------------------------------------------------------
def visible_fraction(cam: Any, quad3d: np.ndarray, occluders3d: Sequence[np.ndarray], ss: int = 4,
                     margin_px: float = 0.0) -> tuple[float, float]:
    """(visible, inside): fraction of the projected quad not covered by the occluders (grown by
    ``margin_px``, for blur) and inside the image."""
    return visible_fraction_px(cam, cam.project(quad3d), [cam.project(o) for o in occluders3d], ss, margin_px)


def visible_fraction_px(cam: Any, q: np.ndarray, occluders: Sequence[np.ndarray], ss: int = 4,
                        margin_px: float = 0.0) -> tuple[float, float]:
    """:func:`visible_fraction` for a quad and occluders already projected to image points."""
    pad = int(math.ceil(margin_px)) + 1
    x0, y0 = np.floor(q.min(0)).astype(int) - pad
    x1, y1 = np.ceil(q.max(0)).astype(int) + pad + 1
    w, h = (x1 - x0) * ss, (y1 - y0) * ss
    if w <= 0 or h <= 0 or w * h > 4e6:
        return 0.0, 0.0
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [np.round((q - [x0, y0]) * ss).astype(np.int32)], 1)
    total = int(m.sum())
    if total == 0:
        return 0.0, 0.0
    inside = m.copy()
    ix0, iy0 = max(0, -x0) * ss, max(0, -y0) * ss
    ix1, iy1 = min(w, (cam.width - x0) * ss), min(h, (cam.height - y0) * ss)
    cut = np.zeros_like(inside)
    if ix1 > ix0 and iy1 > iy0:
        cut[iy0:iy1, ix0:ix1] = inside[iy0:iy1, ix0:ix1]
    inside_frac = float(cut.sum()) / total
    occ_mask = np.zeros_like(m)
    for o in occluders:
        if (o[:, 0].max() < x0 or o[:, 0].min() > x1 or o[:, 1].max() < y0 or o[:, 1].min() > y1):
            continue
        cv2.fillPoly(occ_mask, [np.round((o - [x0, y0]) * ss).astype(np.int32)], 1)
    if margin_px > 0 and occ_mask.any():
        dist = cv2.distanceTransform((occ_mask == 0).astype(np.uint8), cv2.DIST_L2, 3)
        occ_mask = (dist <= margin_px * ss).astype(np.uint8)
    cut[occ_mask > 0] = 0
    return float(cut.sum()) / total, inside_frac


# ----------------------------------------------------------------------------------------------
# choreography
# ----------------------------------------------------------------------------------------------

def uncovered_in_frame(cam: Any, q: np.ndarray, occluders: Sequence[np.ndarray], ss: int = 3) -> float:
    """Uncovered fraction of a projected quad, 0 unless it lies wholly inside the image: what a truth
    maker (the oracle recogniser, detector training targets) counts as showing."""
    v, inside = visible_fraction_px(cam, q, occluders, ss)
    return v if inside >= 0.999 else 0.0


def _ease(t: float) -> float:
    return t * t * (3 - 2 * t)


Pose = tuple[float, float, float, float, float]  # x, y, angle, z, phi


def _lerp_pose(a: Pose, b: Pose, t: float, arc: float = 0.0) -> Pose:
    da = (b[2] - a[2] + math.pi) % (2 * math.pi) - math.pi
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + da * t,
            a[3] + (b[3] - a[3]) * t + arc * math.sin(math.pi * t), a[4] + (b[4] - a[4]) * t)


@dataclass
class _Held:
    card: Card
    pose: Pose
    grip: tuple[float, float]  # face fractions of the grip point

    def corners(self) -> np.ndarray:
        x, y, a, z, phi = self.pose
        return card_corners(x, y, a, z, phi)

    def grip_xyz(self) -> np.ndarray:
        c = self.corners()
        p = quad_point(c, np.array([self.grip[0]]), np.array([self.grip[1]]))[0]
        return p + np.array([0, 0, 6.0])

    def item(self) -> CardItem:
        return CardItem(self.card, self.corners(), None, "held", -1, 1.0)


class Director:
    """Builds the frame list and the truth for a :class:`GamePlan` in a :class:`Scene`."""

    def __init__(self, scene: Scene, plan: GamePlan, fps: int = 30) -> None:
        self.sc = scene
        self.L = scene.layout
        self.plan = plan
        self.fps = fps
        self.rng = random.Random(plan.seed * 7919 + 5)
        self.frames: list[FrameSpec] = []
        self.state = TableState.initial()
        self.state_log: list[tuple[int, TableState]] = [(0, self.state)]
        ext = self.L.extent_points()
        r_out = float(np.max(np.hypot(ext[:, 0], ext[:, 1])))
        ang = math.radians(-60 + self.rng.uniform(-10, 10))
        self.rest = np.array([math.cos(ang) * (r_out + 90), math.sin(ang) * (r_out + 90), 110.0])
        self.hand_xyz = self.rest.copy()
        self.held: list[_Held] = []
        self.under: int | None = None
        self.events: list[dict[str, Any]] = []
        self.moves: list[dict[str, Any]] = []
        self.corrections: list[dict[str, Any]] = []
        self.resting: list[HandItem] = []
        self.withdrawals = 0
        self.speed = self.rng.uniform(0.78, 1.0)  # a brisk player: about 1.5 s a card

    # -- frame helpers ---------------------------------------------------------------------------
    def n(self, seconds: float) -> int:
        return max(2, int(round(seconds * self.fps * self.speed)))

    def _set_state(self, st: TableState) -> None:
        self.state = st
        self.state_log.append((len(self.frames), st))

    def _hand_item(self, xyz: np.ndarray, spread: float = 0.0) -> HandItem:
        return self.sc.hand(float(xyz[0]), float(xyz[1]), float(xyz[2]), spread=spread)

    def emit(self) -> None:
        hand = self._hand_item(self.hand_xyz) if self.hand_xyz is not None else None
        self.frames.append(FrameSpec(self.state, self.under, [h.item() for h in self.held], hand, list(self.resting)))

    def event(self, frame: int, ev: list[Any], verdict: str = "ok") -> None:
        self.events.append({"frame": int(frame), "event": ev, "verdict": verdict})

    # -- primitive motions ----------------------------------------------------------------------
    def hand_to(self, target: np.ndarray, seconds: float, arc: float = 40.0) -> None:
        """Empty hand travels to ``target`` (x, y, z)."""
        start = self.hand_xyz.copy()
        n = self.n(seconds)
        for i in range(1, n + 1):
            t = _ease(i / n)
            self.hand_xyz = start + (target - start) * t + np.array([0, 0, arc * math.sin(math.pi * t)])
            self.emit()

    def cards_to(self, poses: Sequence[Pose], seconds: float, arc: float = 0.0, frames: int | None = None) -> None:
        """Held cards travel to ``poses`` (hand follows the first card's grip)."""
        starts = [h.pose for h in self.held]
        n = frames if frames is not None else self.n(seconds)
        for i in range(1, n + 1):
            t = _ease(i / n)
            for h, a, b in zip(self.held, starts, poses):
                h.pose = _lerp_pose(a, b, t, arc)
            self.hand_xyz = self.held[0].grip_xyz()
            self.emit()

    def hold(self, seconds: float, wobble: float = 1.5) -> None:
        base = [h.pose for h in self.held]
        n = self.n(seconds)
        ph = self.rng.uniform(0, 6)
        for i in range(n):
            for h, b in zip(self.held, base):
                s = i / self.fps
                h.pose = (b[0] + wobble * math.sin(2.1 * s + ph), b[1] + wobble * math.cos(1.7 * s + ph), b[2] +
                          0.02 * math.sin(1.3 * s), b[3] + wobble * math.sin(2.9 * s), b[4])
            self.hand_xyz = self.held[0].grip_xyz()
            self.emit()

    def idle(self, seconds: float) -> None:
        for _ in range(self.n(seconds)):
            self.emit()

    def _grip_for(self, pose: Pose) -> tuple[float, float]:
        """Grip a card by the middle of the short edge nearer the player's arm."""
        c = card_corners(*pose[:4], pose[4])
        base = np.array(self.sc.hand(0, 0, 0).arm_base)
        cands = [(0.5, 0.07), (0.5, 0.93)]
        d = [np.linalg.norm(quad_point(c, np.array([u]), np.array([v]))[0, :2] - base[:2]) for u, v in cands]
        return cands[int(np.argmin(d))]

    # -- pieces of play -----------------------------------------------------------------------
    def stack_top_pose(self, p: int, layer: int | None = None) -> Pose:
        layer = self.state.down[p] - 1 if layer is None else layer
        x, y, a, z = self.L.stack_pose(p, max(layer, 0))
        return (x, y, a, z, math.pi)

    def slot_pose(self, p: int, k: int | None = None) -> Pose:
        k = len(self.state.up[p]) if k is None else k
        x, y, a, z = self.L.slot_pose(p, k)
        return (x, y, a, z, 0.0)

    def _reach_and_lift(self, p: int, card: Card) -> tuple[int, int]:
        start = len(self.frames)
        pose = self.stack_top_pose(p)
        grip = self._grip_for(pose)
        tmp = _Held(card, pose, grip)
        self.hand_to(tmp.grip_xyz(), 0.28 * self._dist_factor(tmp.grip_xyz()))
        self.hand_to(tmp.grip_xyz(), 0.08, arc=0)
        st = self.state.copy()
        st.down[p] -= 1
        self._set_state(st)
        self.held = [tmp]
        lifted = (pose[0], pose[1], pose[2], 45.0, pose[4])
        self.cards_to([lifted], 0.16)
        return start, len(self.frames) - 1

    def _dist_factor(self, target: np.ndarray) -> float:
        d = float(np.linalg.norm(target[:2] - self.hand_xyz[:2]))
        return float(np.clip(0.55 + d / 450.0, 0.6, 1.6))

    def _flip(self, to_phi: float) -> tuple[int, int]:
        """Turn the held card over about its long axis (the hand holds the middle of a short edge), and
        turn it so that it points away from the hand, as people hold a card to look at it."""
        start = len(self.frames)
        h = self.held[0]
        p = h.pose
        base = np.array(self.sc.hand(0, 0, 0).arm_base)
        heading = math.atan2(p[1] - base[1], p[0] - base[0])
        a = heading + (math.pi / 2 if h.grip[1] < 0.5 else -math.pi / 2)
        if to_phi > 1.0:  # turning back face down: keep the angle
            a = p[2]
        # keep the grip point roughly where it is while the card turns
        g0 = h.grip_xyz()
        tmp = _Held(h.card, (p[0], p[1], a, 70.0, to_phi), h.grip)
        d = g0[:2] - tmp.grip_xyz()[:2]
        self.cards_to([(p[0] + d[0], p[1] + d[1], a, 70.0, to_phi)], 0.27, arc=15)
        return start, len(self.frames) - 1

    def _carry_to(self, pose: Pose, seconds: float = 0.32, hesitate: float = 0.0) -> tuple[int, int]:
        start = len(self.frames)
        cur = self.held[0].pose
        above = (pose[0], pose[1], pose[2], 30.0, pose[4])
        if hesitate > 0:
            mid = ((cur[0] + pose[0]) / 2 + self.rng.uniform(-40, 40), (cur[1] + pose[1]) / 2 - 60, cur[2], 110.0, cur[4])
            self.cards_to([mid], seconds * 0.6, arc=10)
            self.hold(hesitate)
            self.cards_to([above], seconds * 0.6, arc=10)
        else:
            d = math.hypot(pose[0] - cur[0], pose[1] - cur[1])
            self.cards_to([above], seconds * float(np.clip(0.5 + d / 300, 0.6, 1.6)), arc=25)
        return start, len(self.frames) - 1

    def _lay_down(self, pose: Pose, under: int | None, from_out: bool = True) -> None:
        """Lower the held card onto ``pose`` (sliding in from further out when going under a pile)."""
        if under is not None:
            u = self.L.out[under]
            near = (pose[0] + u[0] * 28, pose[1] + u[1] * 28, pose[2], 3.0, pose[4])
            self.cards_to([near], 0.16)
            self.under = under
            self.cards_to([pose], 0.2)
        else:
            self.cards_to([pose], 0.25)

    def _held_truth(self, frame: int) -> dict[str, Any]:
        """Quad and index quads (image pixels) of the card in hand at ``frame``."""
        spec = self.frames[frame]
        c = spec.held[0]
        assert c.card is not None
        cam = self.sc.cam
        return {"frame": frame, "quad": _q(cam.project(c.corners)),
                "index": [_q(cam.project(q)) for q in index_quads_mm(c.corners, self.sc.tex.boxes_frac(c.card))]}

    def _release(self, pile_card: tuple[str, int, Card, int]) -> tuple[int, int]:
        """Let go of the card now on the table; returns (release frame, settle frame)."""
        rel = len(self.frames)
        self.held = []
        self.under = None
        g = self.hand_xyz.copy()
        self.hand_to(g + np.array([0, 0, 35.0]), 0.1, arc=0)
        settle = self._settle_frame(rel, pile_card)
        return rel, settle

    def _target_item_quads(self, role: str, p: int, card: Card, k: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Index quads of a card lying at (role, pile, slot), and the cards lying above it."""
        items = self.sc.state_items(self.state)
        idx = next(i for i, it in enumerate(items) if it.role == role and it.pile == p and it.card == card)
        tgt = items[idx]
        quads = index_quads_mm(tgt.corners, self.sc.tex.boxes_frac(card))
        above = [it.corners for it in items[idx + 1:]]
        return quads, above

    def _visible_at(self, frame: int, quads: list[np.ndarray], above: list[np.ndarray]) -> bool:
        spec = self.frames[frame]
        occ = list(above)
        for h in ([spec.hand] if spec.hand else []) + list(spec.resting):
            occ += [p for p, _ in h.polygons() if _ != "crease"]
        occ += [c.corners for c in spec.held]
        # keep clear of the hand's blur: the lens/defocus blur and the motion blur of this frame
        margin = 3.0 * self.sc.cam.height / 720
        prev = self.frames[frame - 1] if frame > 0 else None
        if spec.hand is not None and prev is not None and prev.hand is not None:
            g = self.sc.cam.project([[spec.hand.x, spec.hand.y, spec.hand.z], [prev.hand.x, prev.hand.y, prev.hand.z]])
            margin += 0.5 * float(np.linalg.norm(g[0] - g[1]))
        for q in quads:
            v, ins = visible_fraction(self.sc.cam, q, occ, margin_px=margin)
            if v >= 0.95 and ins >= 0.999:
                return True
        return False

    def _settle_frame(self, rel: int, pile_card: tuple[str, int, Card, int]) -> int:
        role, p, card, k = pile_card
        quads, above = self._target_item_quads(role, p, card, k)
        for f in range(rel, len(self.frames)):
            if self._visible_at(f, quads, above):
                return f
        # withdraw towards the resting place, a bit at a time, until the card shows
        for _ in range(5):
            start = len(self.frames)
            self.hand_to(self.hand_xyz + (self.rest - self.hand_xyz) * 0.5, 0.13, arc=10)
            for f in range(start, len(self.frames)):
                if self._visible_at(f, quads, above):
                    self.withdrawals += 1
                    return f
        self.hand_to(self.rest, 0.2)
        self.withdrawals += 1
        return len(self.frames) - 1

    # -- actions ------------------------------------------------------------------------------------
    def do_move(self, a: Action) -> None:
        mv = a.move
        assert mv is not None
        rec: dict[str, Any] = {"card": str(mv.card), "from_pile": mv.from_pile, "to_pile": mv.to_pile,
                               "side": "under", "mistake": a.mistake}
        if self.held and self.held[0].card == mv.card:  # Watch: the card taken by the exchange
            t0 = t1 = len(self.frames)
        else:
            t0, t1 = self._reach_and_lift(mv.from_pile, mv.card)
            self.event(t1, ["turn", mv.from_pile])
        f0, f1 = self._flip(0.0)
        self.event(f1, ["see", str(mv.card)])
        rec["see"] = self._held_truth(f1)
        q = mv.to_pile
        if a.mistake == "wrong_target":
            q = a.wrong_pile
            assert q is not None
        if a.mistake == "wrong_side":
            st_pose = self.L.top_pose(q, self.state.down[q])
            target = (st_pose[0], st_pose[1], st_pose[2], st_pose[3], 0.0)
            c0, c1 = self._carry_to(target, hesitate=a.hesitate)
            p0 = len(self.frames)
            self._lay_down(target, None)
            st = self.state.copy()
            st.on_top[q] = mv.card
            self._set_state(st)
            _, settle = self._release(("top", q, mv.card, 0))
            self.event(settle, ["place", q, "top"], MISTAKE_FLAGS["wrong_side"])
            rec["side"] = "top"
        else:
            k = len(self.state.up[q])
            target = self.slot_pose(q, k)
            c0, c1 = self._carry_to(target, hesitate=a.hesitate)
            p0 = len(self.frames)
            self._lay_down(target, q)
            st = self.state.copy()
            st.up[q].append(mv.card)
            self._set_state(st)
            _, settle = self._release(("up", q, mv.card, k))
            self.event(settle, ["place", q, "under"], MISTAKE_FLAGS["wrong_target"] if a.mistake == "wrong_target" else "ok")
        rec.update({"placed_pile": q, "take": [t0, t1], "turn": [f0, f1], "carry": [c0, c1], "place": [p0, settle],
                    "hesitation_s": round(a.hesitate, 3)})
        self.moves.append(rec)
        if a.mistake in ("wrong_target", "wrong_side"):
            self.correct(mv.card, q, mv.to_pile, a.mistake)

    def correct(self, card: Card, wrong: int, right: int, kind: str) -> None:
        """Pick the misplaced face-up card up again and put it beneath its right pile."""
        s0 = len(self.frames)
        self.idle(self.rng.uniform(0.3, 0.8))
        if kind == "wrong_side":
            x, y, a, z = self.L.top_pose(wrong, self.state.down[wrong])
            pose: Pose = (x, y, a, z, 0.0)
        else:
            k = self.state.up[wrong].index(card)
            pose = self.slot_pose(wrong, k)
        h = _Held(card, pose, self._grip_for(pose))
        self.hand_to(h.grip_xyz(), 0.35 * self._dist_factor(h.grip_xyz()))
        st = self.state.copy()
        if kind == "wrong_side":
            st.on_top.pop(wrong)
        else:
            st.up[wrong].remove(card)
        self._set_state(st)
        self.held = [h]
        if kind == "wrong_target":
            self.under = wrong
            u = self.L.out[wrong]
            self.cards_to([(pose[0] + u[0] * 30, pose[1] + u[1] * 30, pose[2], 3.0, 0.0)], 0.16)
            self.under = None
        self.cards_to([(h.pose[0], h.pose[1], h.pose[2], 40.0, 0.0)], 0.12)
        k = len(self.state.up[right])
        target = self.slot_pose(right, k)
        self._carry_to(target)
        self._lay_down(target, right)
        st = self.state.copy()
        st.up[right].append(card)
        self._set_state(st)
        _, settle = self._release(("up", right, card, k))
        self.event(settle, ["move", str(card), right, "under"])
        self.corrections.append({"card": str(card), "kind": kind, "from_pile": wrong, "to_pile": right,
                                 "side": "under", "frames": [s0, settle]})

    def do_wrong_source(self, a: Action) -> None:
        q = a.wrong_pile
        assert q is not None and a.card is not None
        t0, t1 = self._reach_and_lift(q, a.card)
        self.event(t1, ["turn", q], MISTAKE_FLAGS["wrong_source"])
        f0, f1 = self._flip(0.0)
        self.event(f1, ["see", str(a.card)])
        self.hold(self.rng.uniform(0.3, 0.7), wobble=1.0)
        self._flip(math.pi)
        pose = self.stack_top_pose(q, self.state.down[q])
        self.cards_to([pose], 0.25)
        st = self.state.copy()
        st.down[q] += 1
        self._set_state(st)
        self.held = []
        g = self.hand_xyz.copy()
        self.hand_to(g + np.array([0, 0, 35.0]), 0.1, arc=0)
        r = len(self.frames) - 1
        self.event(r, ["return", q])
        self.corrections.append({"card": str(a.card), "kind": "wrong_source", "from_pile": q, "to_pile": q,
                                 "side": "top_face_down", "take": [t0, t1], "turn": [f0, f1], "frames": [t0, r]})

    def do_rest(self, a: Action) -> None:
        """The free hand rests over the layout for a while (no event)."""
        s0 = len(self.frames)
        self.hand_to(self.rest, 0.3)
        ang = self.rng.uniform(math.radians(200), math.radians(250))
        r = self.L.radius * self.rng.uniform(0.6, 1.2)
        x, y = r * math.cos(ang), r * math.sin(ang)
        h = self.sc.hand(x, y, 12.0, spread=0.5)
        base = (x - 250.0, -700.0, 200.0)
        h = HandItem(h.x, h.y, h.z, math.atan2(y - base[1], x - base[0]), h.skin, h.sleeve, h.scale, "all", 0.5, base)
        self.resting = [h]
        self.idle(a.seconds)
        self.resting = []
        self.rest_frames.append([s0, len(self.frames) - 1])

    def do_exchange(self, a: Action) -> None:
        """Watch: take the fourth king from under the centre, swap it for the top card of pile ``a.pile``."""
        p = a.pile
        assert p is not None
        s0 = len(self.frames)
        king = self.state.up[CENTRE][-1]
        k = len(self.state.up[CENTRE]) - 1
        pose = self.slot_pose(CENTRE, k)
        h = _Held(king, pose, self._grip_for(pose))
        self.hand_to(h.grip_xyz(), 0.4)
        st = self.state.copy()
        st.up[CENTRE].pop()
        self._set_state(st)
        self.held = [h]
        self.under = CENTRE
        u = self.L.out[CENTRE]
        self.cards_to([(pose[0] + u[0] * 30, pose[1] + u[1] * 30, pose[2], 3.0, 0.0)], 0.16)
        self.under = None
        top = self.stack_top_pose(p)
        self.cards_to([(top[0] + 8, top[1] + 8, top[2], 30.0, 0.0)], 0.45, arc=30)
        # lift the top face-down card of p together with the king
        card = a.card
        assert card is not None
        st = self.state.copy()
        st.down[p] -= 1
        self._set_state(st)
        c_held = _Held(card, top, h.grip)
        self.held = [h, c_held]
        kp = self.held[0].pose
        self.cards_to([kp, (top[0], top[1], top[2], 22.0, math.pi)], 0.2)
        # the king turns face down onto the pile; the taken card stays in hand
        self.held = [c_held, h]
        lift = (top[0] - 20, top[1] - 20, top[2], 50.0, math.pi)
        self.cards_to([lift, top], 0.35)
        st = self.state.copy()
        st.down[p] += 1
        self._set_state(st)
        self.held = [c_held]
        self.hand_xyz = c_held.grip_xyz()
        self.emit()
        e = len(self.frames) - 1
        self.event(e, ["exchange", p])
        self.exchange = {"pile": p, "depth": a.depth, "king": str(king), "card_taken": str(card), "frames": [s0, e]}

    def run(self) -> None:
        self.rest_frames: list[list[int]] = []
        self.exchange: dict[str, Any] | None = None
        sim = ClockGame(self.plan.deal, self.plan.variant)  # type: ignore[arg-type]
        self.idle(0.4)
        for a in self.plan.actions:
            if a.kind == "move":
                self.do_move(a)
                assert a.move is not None
                sim.push(a.move)
            elif a.kind == "wrong_source":
                self.do_wrong_source(a)
            elif a.kind == "rest":
                self.do_rest(a)
            elif a.kind == "exchange":
                assert a.pile is not None
                a.card = sim.face_down[a.pile][a.depth]
                sim.exchange(a.pile, a.depth)
                self.do_exchange(a)
            elif a.kind == "declare":
                self.hand_to(self.rest, 0.4)
                self.idle(0.6)
                self.event(len(self.frames) - 1, ["declare", "win" if a.won else "loss"])
        self.idle(0.2)


# ----------------------------------------------------------------------------------------------
# truth
# ----------------------------------------------------------------------------------------------
def expected_verdicts(events: Sequence[list[Any]], variant: str) -> list[str] | None:
    """The real Referee's verdict codes for these events (None when the referee is not there)."""
    try:
        from ..rules.referee import Referee
    except ImportError:  # pragma: no cover - until the referee lands
        return None
    ref = Referee(variant)
    return [ref.observe(ev).code for ev in events]


def _q(pts: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in pts]


def _pile_regions(scene: Scene, state_log: list[tuple[int, TableState]]) -> dict[str, list[dict[str, Any]]]:
    cam = scene.cam
    out: dict[str, list[dict[str, Any]]] = {str(p): [] for p in PILES}
    last: dict[int, Any] = {}
    for frame, st in state_log:
        items = scene.state_items(st)
        for p in PILES:
            key = (st.down[p], tuple(str(c) for c in st.up[p]), str(st.on_top.get(p)))
            if last.get(p) == key:
                continue
            last[p] = key
            rec: dict[str, Any] = {"from": frame, "down": st.down[p], "stack": None, "face_up": [], "on_top": None}
            for it in items:
                if it.pile != p:
                    continue
                if it.role == "down" and it.slot == st.down[p] - 1:
                    rec["stack"] = _q(cam.project(it.corners[[1, 0, 3, 2]]))
                elif it.role in ("up", "top"):
                    assert it.card is not None
                    d = {"card": str(it.card), "quad": _q(cam.project(it.corners)),
                         "index": [_q(cam.project(q)) for q in index_quads_mm(it.corners, scene.tex.boxes_frac(it.card))]}
                    if it.role == "top":
                        rec["on_top"] = d
                    else:
                        d["slot"] = it.slot
                        rec["face_up"].append(d)
            rec["face_up"].sort(key=lambda d: d["slot"])
            out[str(p)].append(rec)
    return out


def _parse_resolution(res: str | tuple[int, int]) -> tuple[int, int]:
    if isinstance(res, tuple):
        w, h = res
    else:
        try:
            w, h = (int(v) for v in str(res).lower().split("x"))
        except ValueError:
            raise RenderError(f"resolution must look like 1280x720, got {res!r}") from None
    if w < 160 or h < 90 or w > 3840 or h > 2160:
        raise RenderError(f"resolution {w}x{h} is out of range (160x90 .. 3840x2160)")
    if w % 2 or h % 2:
        raise RenderError(f"resolution {w}x{h} must have even sides (video codecs need it)")
    return w, h


def build(seed: int, *, deck: str = "builtin", variant: str = "standard", mistakes: int = 0,
          resolution: str | tuple[int, int] = (1280, 720), fps: int = 30, tilt: float | None = None,
          max_moves: int | None = None, exchange: bool | None = None, rests: int | None = None,
          hesitations: int | None = None) -> tuple[Scene, Director]:
    """Plan and choreograph a game (no pixels yet)."""
    if variant not in ("standard", "watch"):
        raise RenderError(f"unknown variant {variant!r} (use standard or watch)")
    if not isinstance(fps, int) or fps < 5 or fps > 120:
        raise RenderError(f"--fps must be 5..120, got {fps}")
    if tilt is not None and not 0 <= tilt <= 35:
        raise RenderError(f"camera tilt must be 0..35 degrees, got {tilt:g}")
    w, h = _parse_resolution(resolution)
    plan = plan_game(seed, variant, mistakes, max_moves=max_moves, exchange=exchange, rests=rests,
                     hesitations=hesitations)
    scene = Scene.random(seed, deck=deck, width=w, height=h, tilt=tilt)
    d = Director(scene, plan, fps)
    d.run()
    return scene, d


def truth_of(scene: Scene, d: Director, *, fps: int, deck: str) -> dict[str, Any]:
    plan = d.plan
    evs = [e["event"] for e in d.events]
    verdicts = expected_verdicts(evs, plan.variant)
    flags_planned = [e["verdict"] for e in d.events]
    if verdicts is not None and verdicts != flags_planned:
        bad = [(i, d.events[i]["event"], a, b) for i, (a, b) in enumerate(zip(verdicts, flags_planned)) if a != b]
        raise AssertionError(f"referee disagrees with the planned verdicts: {bad[:3]}")
    events = [{"frame": e["frame"], "event": e["event"], "verdict": v} for e, v in zip(d.events, flags_planned)]
    out = plan.game.outcome()
    mistakes = []
    for m in d.moves:
        if m["mistake"]:
            mistakes.append({"kind": m["mistake"], "flag": MISTAKE_FLAGS[m["mistake"]], "card": m["card"],
                             "pile": m["placed_pile"], "frame": m["place"][1]})
    for c in d.corrections:
        if c["kind"] == "wrong_source":
            mistakes.append({"kind": "wrong_source", "flag": MISTAKE_FLAGS["wrong_source"], "card": c["card"],
                             "pile": c["from_pile"], "frame": c["take"][1]})
    mistakes.sort(key=lambda m: m["frame"])
    return {
        "format": "companion-synth-game/1",
        "seed": plan.seed, "deck": deck, "variant": plan.variant, "fps": fps,
        "resolution": [scene.cam.width, scene.cam.height], "frame_count": len(d.frames),
        "deal": plan.deal.to_json(),
        "camera": scene.cam.to_json(), "photometrics": scene.photo.to_json(),
        "surface": scene.surface_kind, "clutter": getattr(scene, "clutter", []), "layout": scene.layout.to_json(),
        "moves": d.moves, "corrections": d.corrections, "mistakes": mistakes,
        "exchange": d.exchange, "rests": d.rest_frames,
        "hesitations": [{"card": m["card"], "carry": m["carry"], "seconds": m["hesitation_s"]}
                        for m in d.moves if m["hesitation_s"] > 0],
        "piles": _pile_regions(scene, d.state_log),
        "events": events,
        "referee_checked": verdicts is not None,
        "outcome": out.to_json() if out is not None else None,
        "truncated": out is None,
        "conventions": {
            "frames": "0-based; [a, b] ranges are inclusive",
            "quads": "image pixels (lens distortion included), corners TL, TR, BR, BL of the upright card face;"
                     " stack quads are the top face-down card's back",
            "event_frame": "the frame where the event becomes observable (card lifted, face turned up, card lying"
                           " still with its index corner uncovered)",
            "beneath": "face-up cards lie under the stack, slid out away from the centre, each new one further out",
        },
    }


def record_game(out_dir: str | Path, seed: int, *, deck: str = "builtin", variant: str = "standard",
                mistakes: int = 0, resolution: str | tuple[int, int] = (1280, 720), fps: int = 30,
                tilt: float | None = None, max_moves: int | None = None, exchange: bool | None = None,
                progress: bool | None = None, video: bool = True, workers: int | None = None) -> dict[str, Any]:
    """Render game ``seed`` to ``out_dir/game.mp4`` and ``out_dir/truth.json``; returns the truth."""
    from ..progress import Progress

    t0 = time.perf_counter()
    scene, d = build(seed, deck=deck, variant=variant, mistakes=mistakes, resolution=resolution, fps=fps,
                     tilt=tilt, max_moves=max_moves, exchange=exchange)
    truth = truth_of(scene, d, fps=fps, deck=deck)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if video:
        w, h = scene.cam.width, scene.cam.height
        path = out / "game.mp4"
        if workers is None:
            import os
            workers = 2 if (os.cpu_count() or 1) >= 2 and len(d.frames) > 400 else 1
        kw = dict(seed=seed, deck=deck, variant=variant, mistakes=mistakes,
                  resolution=list(resolution) if isinstance(resolution, tuple) else resolution, fps=fps,
                  tilt=tilt, max_moves=max_moves, exchange=exchange)
        frames_iter = render_frames(scene, d.frames, seed, workers=workers, build_kwargs=kw)
        first = next(frames_iter, None)
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), float(fps), (w, h))
        if not writer.isOpened():
            raise RenderError(f"cannot write {path} (OpenCV mp4v writer)")
        bar = Progress(len(d.frames), "render", force=progress)
        try:
            if first is not None:
                writer.write(first)
                bar.update(1)
            for img in frames_iter:
                writer.write(img)
                bar.update(1)
        finally:
            bar.close()
            writer.release()
    truth["render_seconds"] = round(time.perf_counter() - t0, 2)
    (out / "truth.json").write_text(json.dumps(truth, indent=1))
    return truth


# ----------------------------------------------------------------------------------------------
# parallel rendering
# ----------------------------------------------------------------------------------------------
_JOB: tuple[Scene, list[FrameSpec], int] | None = None
_RENDERER: FrameRenderer | None = None
_CHUNK = 40


def _renderer() -> FrameRenderer:
    global _RENDERER
    assert _JOB is not None
    scene, frames, seed = _JOB
    if _RENDERER is None or _RENDERER.scene is not scene:
        _RENDERER = FrameRenderer(scene, noise_seed=seed)
    return _RENDERER


def _render_chunk(bounds: tuple[int, int]) -> list[np.ndarray]:
    assert _JOB is not None
    frames = _JOB[1]
    r = _renderer()
    a, b = bounds
    return [r.render(frames[i], prev=frames[i - 1] if i else None, index=i) for i in range(a, b)]


def render_frames(scene: Scene, frames: list[FrameSpec], seed: int, workers: int = 1,
                  build_kwargs: dict[str, Any] | None = None) -> Iterator[np.ndarray]:
    """Yield the rendered frames in order.

    With ``workers`` > 1 and ``build_kwargs`` (the arguments of :func:`build` that made ``frames``),
    worker processes (:mod:`companion.synth.render_worker`) rebuild the same scene from the seed and
    render the changing patches of interleaved chunks; this process composes the frames. Every frame
    depends only on its spec, the previous spec (motion blur) and its index (noise), so the video is
    the same for any number of workers."""
    import os
    import pickle
    import subprocess
    import sys

    global _JOB
    chunks = [(i, min(i + _CHUNK, len(frames))) for i in range(0, len(frames), _CHUNK)]
    if workers <= 1 or build_kwargs is None or len(chunks) < 4:
        _JOB = (scene, frames, seed)
        try:
            for c in chunks:
                yield from _render_chunk(c)
        finally:
            _JOB = None
        return
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["OMP_NUM_THREADS"] = "1"
    procs = []
    try:
        for w in range(workers):
            mine = [list(c) for k, c in enumerate(chunks) if k % workers == w]
            p = subprocess.Popen([sys.executable, "-m", "companion.synth.render_worker"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, env=env)
            assert p.stdin is not None
            p.stdin.write((json.dumps({"build": build_kwargs, "chunks": mine}) + "\n").encode())
            p.stdin.close()
            procs.append(p)
        parent = FrameRenderer(scene, noise_seed=seed)
        for k, (a, b) in enumerate(chunks):
            p = procs[k % workers]
            try:
                patches = pickle.load(p.stdout)  # type: ignore[arg-type]
            except EOFError:
                raise RenderError(f"render worker {k % workers} stopped (exit code {p.wait()})") from None
            for i, patch in zip(range(a, b), patches):
                yield parent.compose(frames[i], patch, index=i)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
