"""The scene composer (companion.synth.composer): shared by the benchmark frames and the training data."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from companion.synth.composer import DeckArt, SceneComposer, drop_band_boxes, load_deck_art, visible_fraction


@pytest.fixture(scope="module")
def art():
    return drop_band_boxes(load_deck_art("builtin"))


def test_run_time_never_imports_training_or_torch():
    code = ("import sys, companion.vision.benchframes, companion.synth.composer; "
            "bad = [m for m in sys.modules if m == 'torch' or m.startswith('companion.train')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_frame_is_deterministic_and_truth_is_sane(art):
    a_img, a_truth = SceneComposer([art], 7).frame(640, 360, min_h=60, max_h=120)
    b_img, b_truth = SceneComposer([art], 7).frame(640, 360, min_h=60, max_h=120)
    c_img, _ = SceneComposer([art], 8).frame(640, 360, min_h=60, max_h=120)
    assert a_img.shape == (360, 640, 3) and a_img.dtype == np.uint8
    assert np.array_equal(a_img, b_img) and not np.array_equal(a_img, c_img)
    assert [t["card"] for t in a_truth] == [t["card"] for t in b_truth]
    assert a_truth
    for t in a_truth:
        assert t["quad"].shape == (4, 2) and 0.0 <= t["visible"] <= 1.0
        assert bool(t["corners"]) == t["face_up"]
        for c in t["corners"]:
            assert 0.0 <= c["visible"] <= 1.0 and c["index_h"] > 0


def test_visible_fraction_counts_the_uncovered_part():
    ids = np.zeros((20, 20), np.int32)
    ids[:, :10] = 1  # card 1 on the left half, the rest covered or empty
    quad = np.array([[0, 0], [19, 0], [19, 19], [0, 19]], np.float64)
    assert visible_fraction(ids, quad, 1) == pytest.approx(0.5, abs=0.05)
    assert visible_fraction(ids, quad + 100, 1) == 0.0  # off the frame


def test_drop_band_boxes_keeps_upright_index_blocks():
    img = np.zeros((10, 10, 4), np.uint8)
    from companion.cards import FULL_DECK

    card = FULL_DECK[0]
    a = DeckArt("t", {card: img}, {card: [(0, 0, 10, 30, True), (0, 0, 60, 30, True)]}, img, None)
    assert drop_band_boxes(a).boxes[card] == [(0, 0, 10, 30, True)]
