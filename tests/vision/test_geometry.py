import math

import cv2
import numpy as np
import pytest

from companion.vision.geometry import Pyramid, angle_to_up, card_quad, crop_index, crop_matrix, up_to_angle
from companion.vision.spec import CROP_SCALE, INDEX_CROP_H, INDEX_CROP_W


def _glyph_image(angle_deg: float, size: int = 400):
    """A white square with a dark 'L' whose up direction is rotated by angle_deg (CCW)."""
    img = np.full((size, size, 3), 255, np.uint8)
    c = size // 2
    cv2.rectangle(img, (c - 20, c - 40), (c - 8, c + 40), (0, 0, 0), -1)  # the stem
    cv2.rectangle(img, (c - 20, c + 28), (c + 20, c + 40), (0, 0, 0), -1)  # the foot
    m = cv2.getRotationMatrix2D((c, c), angle_deg, 1.0)
    return cv2.warpAffine(img, m, (size, size), borderValue=(255, 255, 255))


@pytest.mark.parametrize("angle", [0, 90, 180, 270, 33, 211])
def test_crop_is_upright_for_any_rotation(angle):
    ref = crop_index(_glyph_image(0), (200, 200), angle_to_up(0), 80 / CROP_SCALE * 1.2)
    rot = crop_index(_glyph_image(angle), (200, 200), angle_to_up(angle), 80 / CROP_SCALE * 1.2)
    assert ref.shape == (INDEX_CROP_H, INDEX_CROP_W, 3)
    diff = np.abs(ref.astype(int) - rot.astype(int)).mean()
    assert diff < 12, diff
    # and a wrong angle gives a clearly different crop
    wrong = crop_index(_glyph_image(angle), (200, 200), angle_to_up(angle + 180), 80 / CROP_SCALE * 1.2)
    assert np.abs(ref.astype(int) - wrong.astype(int)).mean() > 2 * diff + 10


def test_angles_round_trip():
    for a in (0, 45, 90, 135, 180, 270, 359):
        ux, uy = angle_to_up(a)
        assert math.isclose(up_to_angle(ux, uy), a % 360, abs_tol=1e-6)
    assert angle_to_up(0) == pytest.approx((0, -1))


def test_crop_matrix_centre_maps_to_centre():
    m = crop_matrix((100.0, 50.0), (0.6, -0.8), 30.0)
    u, v = INDEX_CROP_W / 2 - 0.5, INDEX_CROP_H / 2 - 0.5
    x, y = m @ np.array([u, v, 1.0])
    assert (x, y) == pytest.approx((100.0, 50.0))


def test_pyramid_crop_of_big_card_matches_direct():
    img = _glyph_image(0, 1600)
    img = cv2.resize(img, (1600, 1600))
    direct = crop_index(img, (800, 800), (0, -1), 600)  # 600 px index -> heavy downscale, uses a pyramid
    small = cv2.resize(img, (400, 400), interpolation=cv2.INTER_AREA)
    ref = crop_index(small, (200, 200), (0, -1), 150)
    assert np.abs(direct.astype(int) - ref.astype(int)).mean() < 10
    assert len(Pyramid(img).level(3).shape) == 3


def test_card_quad_orientation():
    q = card_quad((100, 100), (0, -1), 88)
    assert q.shape == (4, 2)
    tl, tr, br, bl = q
    assert tl[1] < bl[1] and tl[0] < tr[0]  # upright: top-left is above bottom-left and left of top-right
    assert np.linalg.norm(bl - tl) == pytest.approx(88)
    q180 = card_quad((100, 100), (0, 1), 88)
    assert np.allclose(q180[0], q[2])  # turned over: TL lands where BR was


def test_the_readers_geometry_targets_put_the_crop_where_the_index_is():
    """The index reader learns where each training crop should have been cut; applying that
    correction (``corrected_crop``, as the run time does) to the misplaced crop gives the true
    centre, up direction and size."""
    import companion.train.index_data as data
    from companion.synth.composer import drop_band_boxes, load_deck_art
    from companion.vision.geometry import corrected_crop

    sampler = data.IndexSampler([drop_band_boxes(load_deck_art("builtin"))], seed=5, font_share=0.0, bg_share=0.0)
    cut = {}
    real_crop = data.crop_index

    def spy(img, centre, up, h, *a, **k):
        cut["as"] = (centre, up, h)
        return real_crop(img, centre, up, h, *a, **k)

    data.crop_index = spy
    try:
        checked = 0
        for _ in range(40):
            _crop, glyph, _suit = sampler.sample()
            if glyph == data.BG:
                continue
            (c, u, h), (tc, tu, th) = cut["as"], sampler.last_truth
            c2, u2, h2 = corrected_crop(c, u, h, sampler.last_geometry[:4])
            assert math.hypot(c2[0] - tc[0], c2[1] - tc[1]) < 1e-3 * th
            assert u2[0] * tu[0] + u2[1] * tu[1] > 1 - 1e-6
            assert abs(math.log(h2 / th)) < 1e-6
            checked += 1
    finally:
        data.crop_index = real_crop
    assert checked >= 20


@pytest.mark.parametrize("degrees", [0, 12, 33, 45, 61, 80])
def test_the_lines_around_an_index_give_the_cards_turn(degrees):
    """A white card with a dark glyph bar on felt, turned: the dominant axis is the turn (mod 90)."""
    from companion.vision.geometry import dominant_axis

    img = np.full((200, 200, 3), (60, 110, 50), np.uint8)
    box = cv2.boxPoints(((100, 100), (120, 170), degrees)).astype(np.int32)
    cv2.fillConvexPoly(img, box, (240, 240, 240))
    bar = cv2.boxPoints(((100, 100), (8, 40), degrees)).astype(np.int32)
    cv2.fillConvexPoly(img, bar, (20, 20, 20))
    axis = dominant_axis(img, (100.0, 100.0), 40.0, reach=2.0)
    assert axis is not None
    diff = (math.degrees(axis) - degrees + 45) % 90 - 45
    assert abs(diff) < 4, (degrees, math.degrees(axis))  # pixel steps of the drawn edges


def test_no_lines_no_axis():
    from companion.vision.geometry import dominant_axis

    flat = np.full((100, 100, 3), 128, np.uint8)
    assert dominant_axis(flat, (50.0, 50.0), 20.0) is None
    assert dominant_axis(flat, (-500.0, 50.0), 20.0) is None


def test_a_cards_quad_is_cut_upright_whichever_way_it_lies():
    from companion.vision.geometry import card_quad, crop_card

    img = np.zeros((400, 400, 3), np.uint8)
    quad = card_quad((200.0, 200.0), (0.6, -0.8), 120.0)  # turned about 37 degrees
    colours = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
    for (x, y), c in zip(quad, colours):  # a dot just inside each corner: TL, TR, BR, BL
        inner = quad.mean(0) + 0.85 * (np.array([x, y]) - quad.mean(0))
        cv2.circle(img, (int(round(inner[0])), int(round(inner[1]))), 4, c, -1)
    for height in (48, 24):  # at the card's own scale and shrunk (by area) to a fifth of it
        crop = crop_card(img, quad, height * 2 // 3, height)
        assert crop.shape == (height, height * 2 // 3, 3)
        h, w = crop.shape[:2]
        for (cx, cy), c in zip([(0, 0), (w, 0), (w, h), (0, h)], colours):
            x = int(np.clip(cx * 0.85 + w * 0.075, 0, w - 1))
            y = int(np.clip(cy * 0.85 + h * 0.075, 0, h - 1))
            patch = crop[max(0, y - 2):y + 3, max(0, x - 2):x + 3].reshape(-1, 3).astype(int)
            best = patch[np.argmax(patch.sum(1))]
            assert np.argmax(best) == np.argmax(c) and best.max() > 60, (height, c, best)
