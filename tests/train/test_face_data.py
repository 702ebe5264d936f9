"""The face reader's training crops: whole cards, labelled "none" where too little of a face shows."""

from __future__ import annotations

import numpy as np
import pytest

from companion.synth.composer import load_deck_art
from companion.train.face_data import MIN_VISIBLE, NONE_RANK, NONE_SUIT, FaceSampler
from companion.vision.spec import FACE_CROP_H, FACE_CROP_W


@pytest.fixture(scope="module")
def arts():
    return [load_deck_art("builtin")]


def test_the_same_seed_gives_the_same_crops(arts):
    a = FaceSampler(arts, 5).batch(12)
    b = FaceSampler(arts, 5).batch(12)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    c = FaceSampler(arts, 6).batch(12)
    assert not np.array_equal(a[0], c[0])


def test_labels_sizes_and_what_too_little_of_a_face_is(arts):
    s = FaceSampler(arts, 11)
    seen_none = seen_card = 0
    for _ in range(150):
        crop, rank, suit = s.sample()
        assert crop.shape == (FACE_CROP_H, FACE_CROP_W, 3) and crop.dtype == np.uint8
        assert 45 <= s.last_card_h <= 160
        assert (rank == NONE_RANK) == (suit == NONE_SUIT)  # "none" both or neither
        if s.last_visible < MIN_VISIBLE:
            assert rank == NONE_RANK  # less than half a face showing: never a card to learn
        if rank == NONE_RANK:
            seen_none += 1
        else:
            assert 0 <= rank < 13 and 0 <= suit < 4
            seen_card += 1
    assert seen_card > 100 and seen_none > 5


def test_backs_and_bare_table_are_none_and_a_whole_face_is_its_card(arts):
    s = FaceSampler(arts, 3, none_share=0.5)
    kinds = set()
    for _ in range(120):
        _, rank, suit = s.sample()
        kinds.add(s.last_kind)
        if s.last_kind in ("back", "table"):
            assert (rank, suit) == (NONE_RANK, NONE_SUIT)
        elif s.last_visible >= MIN_VISIBLE:
            assert rank != NONE_RANK and suit != NONE_SUIT
    assert kinds == {"card", "back", "table"}


def test_held_out_figures_count_sure_readings_and_their_errors():
    from companion.train.train_face import face_figures

    def probs(k, n, p):
        out = np.full(n, (1 - p) / (n - 1), np.float32)
        out[k] = p
        return out

    # four cards and one "none": right and sure, right but unsure, wrong and sure, "none" read surely
    rank_p = np.stack([probs(4, 14, 0.99), probs(6, 14, 0.6), probs(2, 14, 0.95), probs(0, 14, 0.97),
                       probs(9, 14, 0.99)])
    suit_p = np.stack([probs(1, 5, 0.99), probs(2, 5, 0.99), probs(3, 5, 0.99), probs(0, 5, 0.99),
                       probs(3, 5, 0.99)])
    r = np.array([4, 6, 8, 0, NONE_RANK])
    s = np.array([1, 2, 3, 3, NONE_SUIT])  # the ace's suit is misread
    h = np.array([50, 70, 100, 130, 80], np.float32)
    f = face_figures(rank_p, suit_p, r, s, h, confidence=0.9)
    assert f["all"] == {"n": 4, "rank": 0.75, "card": 0.5, "read": 0.75, "confidently_wrong": 0.5}
    assert f["none_read_as_a_card"] == 1.0
    assert f["45-59px"]["n"] == 1 and f["60-89px"]["read"] == 0.0
