"""Detector targets cut from rendered games: they sit where the scene truly has its cards."""

from __future__ import annotations

import numpy as np
import pytest

from companion.synth.record import build
from companion.train.game_data import GameSceneSampler, game_frame_targets
from companion.vision.oracle import OracleRecogniser
from companion.vision.spec import DETECTOR_STRIDE

SCALE = 0.3  # 1280 x 720 frames at the detector's 384 px


@pytest.fixture(scope="module")
def game():
    scene, director = build(7, deck="builtin", mistakes=0, resolution=(1280, 720), max_moves=4)
    return scene, director.frames


def _peaks(heat: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(heat >= 0.999)
    return np.c_[xs, ys]


def test_every_readable_card_and_seen_stack_has_its_peak_and_its_centre(game):
    scene, specs = game
    oracle = OracleRecogniser(scene, specs, read_visible=0.95, seen_visible=0.9)
    checked_up = checked_down = 0
    for i in range(0, len(specs), 25):
        t = game_frame_targets(scene, specs[i], SCALE, 384, 216)
        dets = oracle(i)
        up_peaks, down_peaks = _peaks(t.heat[0]), _peaks(t.heat[1])
        for k in range(len(dets)):
            if dets.face_up[k] and dets.card(k) is not None:
                x0, y0, x1, y1 = dets.index_boxes[k]
                cell = np.array([(x0 + x1) / 2, (y0 + y1) / 2]) * SCALE / DETECTOR_STRIDE - 0.5
                d = np.hypot(*(up_peaks - cell).T)
                assert len(d) and d.min() <= 1.0, f"frame {i}: no index peak at {dets.card(k)}"
                px, py = up_peaks[int(d.argmin())]
                # the peak's regression rebuilds the card's centre and height
                card_h = np.exp(t.reg[4, py, px]) * DETECTOR_STRIDE
                pt = (np.array([px, py]) + 0.5 + t.reg[0:2, py, px]) * DETECTOR_STRIDE
                centre = pt + t.reg[6:8, py, px] * card_h
                true_centre = dets.quads[k].mean(0) * SCALE
                assert np.hypot(*(centre - true_centre)) < 0.05 * card_h
                checked_up += 1
            elif not dets.face_up[k]:
                cell = dets.quads[k].mean(0) * SCALE / DETECTOR_STRIDE - 0.5
                d = np.hypot(*(down_peaks - cell).T)
                assert len(d) and d.min() <= 1.0, f"frame {i}: no face-down peak at a stack"
                checked_down += 1
    assert checked_up >= 3 and checked_down >= 13


def test_an_upright_index_points_to_its_cards_top_edge(game):
    scene, specs = game
    t = game_frame_targets(scene, specs[-1], SCALE, 384, 216)
    ys, xs = np.nonzero(t.reg_mask >= 1)
    assert len(ys)
    for y, x in zip(ys, xs):
        up = t.reg[2:4, y, x]
        off = t.reg[6:8, y, x]  # towards the card's centre, in card heights
        assert abs(np.hypot(*up) - 1) < 1e-3
        # an index lies near one end of its card: its centre is "down" from an upright index (or "up"
        # from an upside-down one, whose up direction points the other way): either way, down the up
        assert float(up @ off) < -0.2


def test_the_sampler_is_deterministic_from_its_seed():
    a = GameSceneSampler(["builtin"], 3, frames_per_game=2, moves=(2, 3))
    b = GameSceneSampler(["builtin"], 3, frames_per_game=2, moves=(2, 3))
    for _ in range(2):
        (ia, ta), (ib, tb) = a.sample(), b.sample()
        assert ia.shape == (192, 256, 3)
        assert np.array_equal(ia, ib) and np.array_equal(ta.heat, tb.heat)
    assert ta.heat.shape == (2, 48, 64)
