"""The overlay draws at 640x360 and 1280x720 and marks the next pile."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion.prompts import OverlayAnnotator, OverlayState
from companion.prompts.overlay import OverlayError, side_column, wrap_text


def clock_state(w: int, h: int) -> OverlayState:
    cx, cy, r = w / 2, h / 2, 0.36 * h
    centres = [[cx + r * math.sin(k * math.pi / 6), cy - r * math.cos(k * math.pi / 6)] for k in range(1, 13)]
    centres.append([cx, cy])
    st = OverlayState.blank(np.array(centres), 0.07 * h)
    st.hidden = [3, 2, 4, 4, 1, 3, 4, 2, 4, 3, 0, 2, 3]
    st.sorted = [1, 2, 0, 0, 3, 1, 0, 2, 0, 1, 4, 2, 1]
    st.last_card = "TH"
    st.next_pile = 7
    st.message = ("The seven of hearts belongs beneath 7 o'clock, not 5 o'clock. Move it beneath 7 o'clock. "
                  "This message is long on purpose so that it has to wrap onto more than one line.")
    return st


def table(w: int, h: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(60, 200, (h, w, 3), dtype=np.uint8)


@pytest.mark.parametrize("w, h", [(640, 360), (1280, 720)])
def test_draws_at_both_sizes_and_marks_the_next_pile(w, h):
    frame = table(w, h)
    st = clock_state(w, h)
    ann = OverlayAnnotator()
    out = ann.annotate(frame, st)
    assert out.shape == frame.shape and out.dtype == np.uint8
    assert not np.shares_memory(out, frame) and (frame == table(w, h)).all()  # a copy by default

    # the ring: pixels around pile 7 (away from its label) change with the next pile, not elsewhere
    other = ann.annotate(frame, clock_state(w, h).__class__(**{**clock_state(w, h).__dict__, "next_pile": 2}))
    x, y = st.centres[6]
    ring = int(max(st.pile_radius * 1.15, 16 * h / 360))
    box = (slice(int(y - ring - 4), int(y + ring + 5)), slice(int(x - ring - 4), int(x + ring + 5)))
    changed = np.any(out[box] != other[box], axis=2)
    assert changed.mean() > 0.05
    assert np.any(out[box] != frame[box])

    # every variation draws: flag, status, result, no next pile, unknown card, piles off screen
    for change in ({"flag": True}, {"status": "camera lost: reconnecting..."}, {"result": "You won: all 52 cards face up."},
                   {"next_pile": None}, {"last_card": "??"}, {"last_card": None}, {"message": ""}):
        s2 = clock_state(w, h)
        for k, v in change.items():
            setattr(s2, k, v)
        got = ann.annotate(frame, s2)
        assert got.shape == frame.shape
    s3 = clock_state(w, h)
    s3.centres = s3.centres.copy()
    s3.centres[0] = [-500, -500]
    s3.centres[1] = [np.nan, np.nan]
    ann.annotate(frame, s3)


def test_the_alert_changes_the_message_colour():
    frame = table(640, 360)
    st = clock_state(640, 360)
    calm = OverlayAnnotator().annotate(frame, st)
    st.flag = True
    alert = OverlayAnnotator().annotate(frame, st)
    diff = np.any(calm != alert, axis=2)
    assert diff.any()
    ys, xs = np.nonzero(diff)
    # the red is in the message panel (left of the clock), the piles are untouched
    assert (alert[ys, xs, 2].astype(int) - alert[ys, xs, 0].astype(int)).mean() > 40


def test_inplace_and_grey_frames():
    frame = table(640, 360)
    out = OverlayAnnotator().annotate(frame, clock_state(640, 360), inplace=True)
    assert out is frame
    grey = np.zeros((360, 640), np.uint8)
    assert OverlayAnnotator().annotate(grey, clock_state(640, 360)).shape == (360, 640, 3)


def test_bad_state_is_a_clear_error():
    st = clock_state(640, 360)
    st.hidden = [4] * 12
    with pytest.raises(OverlayError, match="13 counts"):
        OverlayAnnotator().annotate(table(640, 360), st)
    st = clock_state(640, 360)
    st.centres = np.zeros((12, 2))
    with pytest.raises(OverlayError, match="13 x 2"):
        OverlayAnnotator().annotate(table(640, 360), st)


def test_wrapping_and_placement_logic():
    assert wrap_text("", 100, len) == []
    assert wrap_text("averyveryverylongword", 5, len) == ["averyveryverylongword"]
    assert side_column(640, np.full((13, 2), np.nan), 10) is None
    # a wide frame leaves room beside the clock; a clock filling the frame does not
    st = clock_state(1280, 720)
    assert side_column(1280, st.centres, st.pile_radius) > 280
    assert side_column(480, clock_state(480, 360).centres, 25) < 150


def test_counts_as_a_dict_of_piles():
    st = clock_state(640, 360)
    st.hidden = {p: 4 for p in range(1, 14)}
    st.sorted = {p: 0 for p in range(1, 14)}
    OverlayAnnotator().annotate(table(640, 360), st)
    assert st.hidden == [4] * 13 and st.sorted == [0] * 13
