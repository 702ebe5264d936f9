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


def _write_pat(path, colour):
    import struct

    w = h = 8
    name = b"t\0"
    header = struct.pack(">5I", 24 + len(name), 1, w, h, 3) + b"GPAT" + name
    path.write_bytes(header + np.full((h, w, 3), colour, np.uint8).tobytes())
    return path


@pytest.mark.parametrize("n_patterns", [3, 22])
def test_training_backgrounds_give_every_gimp_tile_a_slot(tmp_path, monkeypatch, n_patterns):
    """Training pools hold every installed tile (a pool of eight random tiles missed the pale marble the
    detector then failed on); the benchmark's pool is left as it was, so its frames stay the same."""
    import companion.synth.surfaces as surfaces
    from companion.synth.composer import Backgrounds

    pats = tuple(_write_pat(tmp_path / f"p{i}.pat", (i * 11) % 256) for i in range(n_patterns))
    monkeypatch.setattr(surfaces, "gimp_patterns", lambda: pats)
    read: list = []
    real = surfaces.read_pat
    monkeypatch.setattr(surfaces, "read_pat", lambda p: (read.append(p), real(p))[1])
    pool = Backgrounds(np.random.default_rng(5), n=12, size=32, every_pattern=True).pool
    assert len(pool) == max(12, 6 * n_patterns)
    assert sorted(read) == sorted(pats * (len(pool) // 6 // n_patterns))  # each tile alike often, none missed
    read.clear()
    plain = Backgrounds(np.random.default_rng(5), n=12, size=32).pool
    assert len(plain) == 12 and len(read) == 2  # two gimp slots, tiles drawn at random as before


def test_pale_patches_are_near_white_and_the_share_is_checked():
    """A pale table keeps its texture but no pixel darker than half-way to white; a share outside 0..1 is refused."""
    from companion.synth.composer import Backgrounds

    rng = np.random.default_rng(2)
    pale = Backgrounds(np.random.default_rng(1), n=6, size=64, pale_share=1.0)
    for _ in range(6):
        p = pale.patch(rng, 48, 32)
        assert p.shape == (32, 48, 3) and p.min() >= 127 and p.std() > 0
    plain = Backgrounds(np.random.default_rng(1), n=6, size=64)
    assert min(plain.patch(rng, 48, 32).min() for _ in range(6)) < 127  # (the felt, desk and wood are darker)
    with pytest.raises(ValueError, match="pale_share"):
        Backgrounds(np.random.default_rng(1), n=6, size=64, pale_share=1.5)
