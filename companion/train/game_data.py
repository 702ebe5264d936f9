"""Detector training scenes from rendered games (no torch here).

The composed scenes of :mod:`companion.train.detector_data` lay cards flat under a camera looking
straight down. A game (:mod:`companion.synth.record`) looks different: a tilted camera, stacks with
thickness, hands carrying cards, a card slid half beneath a stack with one index peeking out. On such
frames the composed-scene detector sized stacks at 0.90 of their true size and put a card slid
beneath a stack on the stack's centre, which the watcher takes for a card held up (models/README.md).

:class:`GameSceneSampler` plans games of training decks from its own seeds, renders random frames of
them at the run time's frame size, shrinks them as the run time does and cuts a training window, with
targets drawn from the scene's exact geometry: every printed index box and its uncovered fraction
(cards and hands above it), the top card of every stack, cards held face down.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from ..synth.composer import VISIBLE_IGNORE, VISIBLE_POSITIVE
from ..vision.spec import DETECTOR_STRIDE, DETECTOR_WIDTH
from .detector_data import Targets, _splat, empty_targets

__all__ = ["GameSceneSampler", "game_frame_targets"]

#: Frame size games are rendered at (the run time's usual camera frame).
GAME_RESOLUTION = (1280, 720)


def _mid(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a + b) / 2.0


def game_frame_targets(scene, spec, scale: float, out_w: int, out_h: int) -> Targets:  # noqa: ANN001
    """Dense detector targets for one frame spec of ``scene`` at image scale ``scale`` (detector
    pixels per frame pixel), on an ``out_w`` x ``out_h`` detector input."""
    from ..synth.record import uncovered_in_frame
    from ..synth.scene import face_visible, index_quads_mm

    cam = scene.cam
    t = empty_targets(out_w, out_h)
    heat, weight, reg, reg_mask, reg_mask_down = t.heat, t.weight, t.reg, t.reg_mask, t.reg_mask_down
    layers = scene.frame_layers(spec)
    proj = [cam.project(obj.corners if kind == "card" else obj) for kind, obj in layers]

    for i, (kind, it) in enumerate(layers):
        if kind != "card":
            continue
        occ = proj[i + 1:]
        q = proj[i]  # TL, TR, BR, BL of the card as the scene holds it
        if it.card is not None and face_visible(it.corners, scene.cam_center):
            top, bottom = _mid(q[0], q[1]), _mid(q[3], q[2])
            centre = q.mean(0)
            card_h = float(np.linalg.norm(top - bottom)) * scale
            boxes = scene.tex.boxes_frac(it.card)
            for (x0, y0, x1, y1), iq in zip(boxes, index_quads_mm(it.corners, boxes)):
                qq = cam.project(iq)
                vis = uncovered_in_frame(cam, qq, occ, 3)
                upright = (y0 + y1) / 2 < 0.5
                up = (top - bottom) if upright else (bottom - top)
                up = up / max(float(np.linalg.norm(up)), 1e-6)
                c = qq.mean(0)
                index_h = float(np.linalg.norm(qq[3] - qq[0]) + np.linalg.norm(qq[2] - qq[1])) / 2 * scale
                _splat(heat[0], weight[0], reg, reg_mask, c * scale, vis, up, card_h, index_h,
                       (centre - c) * scale / max(card_h, 1e-6), index_h)
        else:
            if it.role == "down" and it.slot != spec.state.down[it.pile] - 1:
                continue  # only a stack's top card shows
            qd = q[[1, 0, 3, 2]] if it.card is not None or it.role in ("down", "held") else q
            vis = uncovered_in_frame(cam, q, occ, 1)
            top, bottom = _mid(qd[0], qd[1]), _mid(qd[3], qd[2])
            card_h = float(np.linalg.norm(top - bottom)) * scale
            up = (top - bottom) / max(float(np.linalg.norm(top - bottom)), 1e-6)
            _splat(heat[1], weight[1], reg, reg_mask_down, qd.mean(0) * scale, vis, up, card_h, card_h * 0.2,
                   np.zeros(2), card_h * 0.5)
    return t


class GameSceneSampler:
    """(detector-scale image, Targets) pairs from random frames of games of ``decks``, deterministic
    from ``seed``. A game is planned every ``frames_per_game`` samples (with mistakes and a random
    camera tilt, as the benchmark's games), its frames drawn at random."""

    def __init__(self, decks: Sequence[str], seed: int, out_w: int = 256, out_h: int = 192,
                 frames_per_game: int = 12, moves: tuple[int, int] = (8, 60)) -> None:
        self.decks = list(decks)
        self.rng = np.random.default_rng(seed)
        self.out_w, self.out_h = out_w, out_h
        self.frames_per_game = frames_per_game
        self.moves = moves  # cards turned in a game are drawn from this range (its later states too)
        self._game = None
        self._left = 0

    def _new_game(self) -> None:
        from ..synth.record import build
        from ..synth.scene import FrameRenderer

        game_seed = int(self.rng.integers(1_000_000, 2_000_000))  # far from every benchmark and test seed
        deck = self.decks[int(self.rng.integers(len(self.decks)))]
        scene, director = build(game_seed, deck=deck, mistakes=int(self.rng.integers(0, 4)),
                                resolution=GAME_RESOLUTION, max_moves=int(self.rng.integers(*self.moves)))
        self._game = (scene, director.frames, FrameRenderer(scene, noise_seed=game_seed))
        self._left = self.frames_per_game

    def sample(self) -> tuple[np.ndarray, Targets]:
        if self._left <= 0 or self._game is None:
            self._new_game()
        self._left -= 1
        scene, specs, renderer = self._game
        i = int(self.rng.integers(len(specs)))
        img = renderer.render(specs[i], prev=specs[i - 1] if i else None, index=i)
        w, h = GAME_RESOLUTION
        s = DETECTOR_WIDTH / max(w, h)
        dw, dh = round(w * s), round(h * s)
        small = cv2.resize(img, (dw, dh), interpolation=cv2.INTER_AREA)
        t = game_frame_targets(scene, specs[i], s, dw - dw % DETECTOR_STRIDE, dh - dh % DETECTOR_STRIDE)
        # a training window, aligned to the output grid
        x0 = DETECTOR_STRIDE * int(self.rng.integers(0, max(1, (dw - self.out_w) // DETECTOR_STRIDE + 1)))
        y0 = DETECTOR_STRIDE * int(self.rng.integers(0, max(1, (dh - self.out_h) // DETECTOR_STRIDE + 1)))
        win = np.zeros((self.out_h, self.out_w, 3), np.uint8)
        part = small[y0:y0 + self.out_h, x0:x0 + self.out_w]
        win[:part.shape[0], :part.shape[1]] = part
        gx, gy = x0 // DETECTOR_STRIDE, y0 // DETECTOR_STRIDE
        gw, gh = self.out_w // DETECTOR_STRIDE, self.out_h // DETECTOR_STRIDE

        def cut(a: np.ndarray, fill: float) -> np.ndarray:
            out = np.full(a.shape[:-2] + (gh, gw), fill, np.float32)
            p = a[..., gy:gy + gh, gx:gx + gw]
            out[..., :p.shape[-2], :p.shape[-1]] = p
            return out

        return win, Targets(cut(t.heat, 0.0), cut(t.weight, 1.0), cut(t.reg, 0.0), cut(t.reg_mask, 0.0),
                            cut(t.reg_mask_down, 0.0))
