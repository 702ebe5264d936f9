"""The recogniser on rendered frames of decks it never trained on (needs the committed models)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cards import Card
from companion.vision.models import ModelError, ModelHashError, default_models_dir
from tests.conftest import needs_held_out_decks

MODELS = default_models_dir()
pytestmark = pytest.mark.skipif(not (MODELS / "manifest.json").exists(),
                                reason="no trained models in models/ (run make train)")


@pytest.fixture(scope="module")
def rec():
    from companion.vision.recogniser import Recogniser

    return Recogniser(MODELS)


@pytest.fixture(scope="module")
def held_out_deck():
    from companion.synth.decks import get_deck
    from companion.vision.spec import HELD_OUT_DECKS

    for name in HELD_OUT_DECKS:
        try:
            return get_deck(name, 300)
        except Exception:  # noqa: BLE001 - deck package absent here
            continue
    pytest.skip("no held-out deck available (install gnome-cards-data librsvg2-bin)")


def table(w=1280, h=720, seed=0):
    rng = np.random.default_rng(seed)
    base = np.array([60, 110, 50], np.float32)  # green felt
    img = base + rng.normal(0, 6, (h, w, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def place(frame, bgra, centre, angle_deg, height):
    """Alpha-composite a card face, rotated counter-clockwise by angle_deg, at centre."""
    fh, fw = bgra.shape[:2]
    s = height / fh
    m = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle_deg, s)
    m[:, 2] += np.array(centre) - np.array([fw / 2, fh / 2])
    warped = cv2.warpAffine(bgra, m, (frame.shape[1], frame.shape[0]), borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255
    frame[:] = (frame * (1 - a) + warped[..., :3] * a).astype(np.uint8)
    return frame


def read_cards(dets):
    return [str(dets.card(i)) for i in range(len(dets)) if dets.face_up[i] and dets.card(i) is not None]


BELOW_TARGET = "the committed models are below the issue's targets (see models/README.md); passes once retrained"


@pytest.mark.parametrize("angle", [0, 90, 180, 270, 37, pytest.param(141, marks=pytest.mark.xfail(
    reason="the detector trained on game frames too (eleventh session) leaves this QS unknown at 141 degrees "
           "(read at 131 and 151; the previous detector read it): see models/README.md", strict=False))])
def test_reads_a_held_out_card_at_any_rotation(rec, held_out_deck, angle):
    for code in ("7H", "QS", "AD", "10C"):
        frame = place(table(), held_out_deck.face(code), (640, 360), angle, 220)
        got = read_cards(rec(frame))
        assert got == [str(Card.parse(code))], (code, angle, got)


@pytest.mark.parametrize("turn", [35, -60])
def test_a_corner_cut_far_off_its_up_is_read_along_the_cards_lines(rec, held_out_deck, turn):
    """Where cards overlap the detector's up can be 30-70 degrees off; such a corner is read again
    turned to the lines around it (``axis_retry``), and its up turned back with it."""
    from companion.vision.geometry import Pyramid
    from companion.vision.recogniser import Candidates

    frame = place(table(), held_out_deck.face("7H"), (640, 360), 0, 260)
    pyr = Pyramid(frame)
    cand = rec.detect(frame)
    up_idx = np.nonzero(cand.face_up)[0]
    glyph_p, _, _ = rec.read_geometry(rec.crops(pyr, cand))
    upright = [k for k, i in enumerate(up_idx) if cand.up[i][1] < -0.95 and glyph_p[k, 7] > 0.9]  # a 7 read upright
    assert upright, "no upright corner of the 7 found"
    k = upright[0]
    i = up_idx[k]
    a = math.radians(turn)
    ups = cand.up.copy()
    ux, uy = (float(v) for v in ups[i])
    ups[i] = (ux * math.cos(a) - uy * math.sin(a), ux * math.sin(a) + uy * math.cos(a))
    off = Candidates(cand.points, cand.score, cand.face_up, ups, cand.card_h, cand.index_h, cand.card_centre)
    glyph_p, suit_p, _ = rec.read_geometry(rec.crops(pyr, off))
    assert glyph_p[k, 7] < rec.config.min_confidence  # cut so far off, the 7 is not read
    turned, glyph2, _ = rec._read_along_axis(pyr, off, glyph_p, suit_p)
    assert glyph2[k, 7] >= rec.config.retry_confidence
    assert float(turned.up[i] @ cand.up[i]) > math.cos(math.radians(8))


@pytest.mark.xfail(reason=BELOW_TARGET, strict=False)
def test_half_covered_card_is_read_from_one_corner(rec, held_out_deck):
    frame = place(table(), held_out_deck.face("9S"), (640, 360), 0, 260)
    frame[360:, :] = (40, 40, 40)  # the lower half, and its index, hidden
    assert read_cards(rec(frame)) == ["9S"]


def test_detections_carry_the_readers_probabilities(rec, held_out_deck):
    """Unthresholded rank and suit probabilities come with each card (a tracker adds up unsure looks);
    they lean to the card read, and a face-down card's say nothing."""
    frame = place(table(), held_out_deck.face("7H"), (400, 360), 0, 220)
    frame = place(frame, held_out_deck.back(), (880, 360), -20, 240)
    d = rec(frame)
    assert d.rank_probs is not None and d.rank_probs.shape == (len(d), 13) and d.suit_probs.shape == (len(d), 4)
    up = [i for i in range(len(d)) if d.face_up[i] and d.card(i) is not None]
    assert up and all(int(d.rank_probs[i].argmax()) == int(d.rank[i]) - 1 for i in up)
    assert all(int(d.suit_probs[i].argmax()) == int(d.suit[i]) for i in up)
    down = [i for i in range(len(d)) if not d.face_up[i]]
    assert down and all(float(np.ptp(d.rank_probs[i])) == 0.0 for i in down)


def test_blank_card_and_back_are_never_read(rec, held_out_deck):
    blank = np.zeros_like(held_out_deck.face("2C"))
    blank[..., :3] = 245
    blank[..., 3] = held_out_deck.face("2C")[..., 3]
    frame = place(table(), blank, (400, 360), 10, 240)
    frame = place(frame, held_out_deck.back(), (880, 360), -20, 240)
    dets = rec(frame)
    assert read_cards(dets) == []
    assert all(dets.rank[i] == 0 for i in range(len(dets)))


@pytest.mark.xfail(reason=BELOW_TARGET, strict=False)
def test_several_overlapping_cards(rec, held_out_deck):
    frame = table(seed=3)
    codes = ["2H", "5S", "8D", "JC", "KH"]
    for k, code in enumerate(codes):  # a fan: each card covers the right part of the one before
        place(frame, held_out_deck.face(code), (420 + 70 * k, 360), 0, 240)
    got = sorted(read_cards(rec(frame)))
    assert got == sorted(codes)


def _held_out_rates():
    from companion.vision.benchframes import held_out_frames
    from companion.vision.evaluate import evaluate_synthetic
    from companion.vision.recogniser import Recogniser

    rates, _ = evaluate_synthetic(Recogniser(MODELS), held_out_frames(6, seed=2024))
    return rates


@needs_held_out_decks
def test_held_out_frames_regression_floor():
    """A floor just under the measured figures of the committed models (rank 0.46, confidently wrong 0 on these
    78 cards; the one-reader models before: rank 0.41)."""
    rates = _held_out_rates()
    assert rates["cards"] >= 30
    assert rates["rank"] >= 0.44, rates
    assert rates["confident_wrong"] <= 0.02, rates


@needs_held_out_decks
@pytest.mark.xfail(reason=BELOW_TARGET, strict=False)
def test_held_out_frames_meet_the_target():
    rates = _held_out_rates()
    assert rates["rank"] >= 0.995 and rates["confident_wrong"] <= 0.005, rates


def test_detections_carry_the_detectors_measured_scatter(rec, held_out_deck, tmp_path: Path):
    """The manifest's figure for how far the detector's quads of still cards scatter (measured by
    ``python -m companion.train.scatter``) comes with every Detections, for the tracker; models without
    one give none."""
    frame = place(table(), held_out_deck.face("7H"), (400, 360), 0, 220)
    sc = rec(frame).meta["scatter"]
    assert 0.0 < sc["position"] < 0.5 and 0.0 < sc["size"] < 0.7
    _copy_models(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    del manifest["scatter"]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    from companion.vision.recogniser import Recogniser

    assert "scatter" not in Recogniser(tmp_path)(frame).meta


def _copy_models(folder: Path) -> None:
    """The run time's model files and manifest, copied into ``folder``."""
    for f in MODELS.iterdir():
        if f.is_file():
            shutil.copy(f, folder / f.name)


def test_corrupted_model_is_refused_with_a_clear_message(tmp_path: Path):
    from companion.vision.recogniser import Recogniser

    _copy_models(tmp_path)
    data = bytearray((tmp_path / "index.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "index.onnx").write_bytes(bytes(data))
    with pytest.raises(ModelHashError, match="corrupted or was replaced"):
        Recogniser(tmp_path)
    (tmp_path / "manifest.json").unlink()
    with pytest.raises(ModelError, match="no model manifest"):
        Recogniser(tmp_path)


def test_recognise_cli_json_and_bad_image(tmp_path: Path, held_out_deck):
    import json
    import subprocess
    import sys

    img = tmp_path / "card.jpg"
    cv2.imwrite(str(img), place(table(), held_out_deck.face("6D"), (640, 360), 90, 240))
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not an image")
    r = subprocess.run([sys.executable, "-m", "companion", "recognise", str(img), str(bad), "--json",
                        "--annotate", str(tmp_path / "ann")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(rows) == 1 and rows[0]["image"] == str(img)
    cards = [d["card"] for d in rows[0]["detections"] if d["face_up"]]
    assert cards == ["6D"]
    d = rows[0]["detections"][0]
    assert set(d) >= {"card", "rank", "suit", "confidence", "quad"} and len(d["quad"]) == 4
    assert "cannot read" in r.stderr and str(bad) in r.stderr and "Traceback" not in r.stderr
    assert (tmp_path / "ann" / "card_annotated.png").exists()


def test_scoring_gives_a_reading_to_the_nearest_card_of_a_fan():
    """In a fanned pile the next card's index is within one index height: a right reading of it is
    not a wrong reading of the card beneath; a reading on a card's own index still counts."""
    from companion.vision.detections import Detections
    from companion.vision.evaluate import score_frame

    quad = np.zeros((4, 2), np.float32)
    truths = [{"card": Card.parse("4C"), "face_up": True, "corners": [{"point": (100, 100), "visible": 1.0, "index_h": 20}]},
              {"card": Card.parse("6C"), "face_up": True, "corners": [{"point": (115, 100), "visible": 1.0, "index_h": 20}]}]

    def det(x, rank, suit):
        return (quad, (x - 5, 95, x + 5, 105), rank, suit, 0.99, 0.99, True, 0.0)

    sc = score_frame(Detections.from_rows([det(101, 4, 0)]), truths)  # 4C read at 4C's index
    assert (sc.cards, sc.rank_right, sc.confident_wrong, sc.unknown) == (2, 1, 0, 1)
    sc = score_frame(Detections.from_rows([det(101, 6, 0)]), truths)  # 6C read at 4C's index: wrong
    assert (sc.rank_right, sc.confident_wrong) == (0, 1)




def test_scoring_accepts_a_reading_at_the_cards_partly_covered_corner():
    """A detection reports the box of the corner it read most surely; when that corner is partly
    covered the card still counts (by its other, clear corner) and the reading is the card's, right or
    wrong. A corner covered almost wholly is no place for a reading of the card."""
    from companion.vision.detections import Detections
    from companion.vision.evaluate import score_frame

    quad = np.zeros((4, 2), np.float32)
    truths = [{"card": Card.parse("4C"), "face_up": True,
               "corners": [{"point": (100, 100), "visible": 1.0, "index_h": 20},
                           {"point": (200, 250), "visible": 0.5, "index_h": 20}]}]

    def det(x, y, rank):
        return (quad, (x - 5, y - 5, x + 5, y + 5), rank, 0, 0.99, 0.99, True, 0.0)

    sc = score_frame(Detections.from_rows([det(201, 250, 4)]), truths)
    assert (sc.cards, sc.rank_right, sc.confident_wrong, sc.strays) == (1, 1, 0, 0)
    sc = score_frame(Detections.from_rows([det(201, 250, 7)]), truths)
    assert (sc.rank_right, sc.confident_wrong, sc.strays) == (0, 1, 0)
    truths[0]["corners"][1]["visible"] = 0.1
    sc = score_frame(Detections.from_rows([det(201, 250, 4)]), truths)
    assert (sc.rank_right, sc.unknown, sc.strays) == (0, 1, 0)
def test_retry_takes_the_most_confident_rank_and_never_settles_a_disagreement():
    from companion.vision.recogniser import RecogniserConfig, _most_confident, _rank_matrix
    from companion.vision.spec import GLYPH_ID, GLYPHS

    cfg = RecogniserConfig(retry_variants=((0.8, 0.0), (1.25, 0.0)))
    m = _rank_matrix("english")

    def row(glyph, p):
        r = np.full(len(GLYPHS), (1 - p) / (len(GLYPHS) - 1), np.float32)
        r[GLYPH_ID[glyph]] = p
        return r

    best = _most_confident(np.stack([row("7", 0.6), row("7", 0.95), row("bg", 0.9)]), m, cfg)
    assert best.argmax() == GLYPH_ID["7"] and best.max() == pytest.approx(0.95)
    weak = _most_confident(np.stack([row("7", 0.6), row("7", 0.88)]), m, cfg)  # a retry must reach 0.9
    assert weak.max() == pytest.approx(0.6)
    split = _most_confident(np.stack([row("6", 0.5), row("6", 0.97), row("9", 0.96)]), m, cfg)
    assert (split @ m)[1:].max() < cfg.min_confidence


def test_retry_never_reads_a_blank_card_or_a_back(held_out_deck):
    from companion.vision.recogniser import Recogniser, RecogniserConfig

    rec = Recogniser(MODELS, config=RecogniserConfig(retry_variants=((0.8, 0.0), (1.25, 0.0), (1.0, 12.0), (1.0, -12.0))))
    blank = np.zeros_like(held_out_deck.face("2C"))
    blank[..., :3] = 245
    blank[..., 3] = held_out_deck.face("2C")[..., 3]
    frame = place(table(), blank, (400, 360), 10, 240)
    frame = place(frame, held_out_deck.back(), (880, 360), -20, 240)
    assert read_cards(rec(frame)) == []
    assert read_cards(rec(place(table(), held_out_deck.face("QS"), (640, 360), 0, 220))) == ["QS"]


def test_fanned_corners_read_as_different_cards_stay_two_cards():
    """In a fan the cards' centres lie closer than the merge distance; two corners printed the same
    way up and read confidently as different cards must not be merged into one card (which would
    make both unknown), while two corners of one card, read alike or one unsure, still make one
    card. Two corners printed opposite ways up and read confidently as different ranks are two cards
    too (a neighbour's opposite corner whose predicted centre falls near), not one unknown; if they
    differ only in the suit they are one card whose suit is unknown."""
    from companion.vision.recogniser import Candidates, Recogniser, RecogniserConfig, _rank_matrix
    from companion.vision.spec import GLYPH_ID, GLYPHS

    rec = Recogniser.__new__(Recogniser)  # the assembly step only: no models needed
    rec.config = RecogniserConfig()
    rec._rank_matrix = _rank_matrix("english")

    def cands(n):
        pts = np.array([[100.0 + 15 * k, 100.0] for k in range(n)], np.float32)
        return Candidates(points=pts, score=np.linspace(0.9, 0.8, n).astype(np.float32), face_up=np.ones(n, bool),
                          up=np.tile(np.array([[0.0, -1.0]], np.float32), (n, 1)),
                          card_h=np.full(n, 100.0, np.float32), index_h=np.full(n, 20.0, np.float32),
                          card_centre=pts + np.array([[20.0, 40.0]], np.float32))  # 0.15 card heights apart

    def glyphs(*pairs):
        g = np.full((len(pairs), len(GLYPHS)), 0.0, np.float32)
        for i, (name, p) in enumerate(pairs):
            g[i] = (1 - p) / (len(GLYPHS) - 2)
            g[i, 0] = 0.0
            g[i, GLYPH_ID[name]] = p
        return g

    def suits(*pairs):
        s = np.full((len(pairs), 5), 0.0, np.float32)
        for i, (k, p) in enumerate(pairs):
            s[i] = (1 - p) / 4
            s[i, k] = p
        return s

    fan = rec._assemble(cands(2), glyphs(("3", 0.98), ("7", 0.99)), suits((0, 0.97), (1, 0.98)))
    assert sorted(str(fan.card(i)) for i in range(len(fan))) == ["3C", "7D"]
    one = rec._assemble(cands(2), glyphs(("7", 0.98), ("7", 0.6)), suits((1, 0.97), (1, 0.5)))
    assert len(one) == 1 and str(one.card(0)) == "7D"
    opposite = cands(2)
    opposite.up[1] = (0.0, 1.0)  # the card's other index, printed upside down
    split = rec._assemble(opposite, glyphs(("3", 0.98), ("7", 0.99)), suits((0, 0.97), (1, 0.98)))
    assert sorted(str(split.card(i)) for i in range(len(split))) == ["3C", "7D"]
    alike = rec._assemble(opposite, glyphs(("7", 0.98), ("7", 0.97)), suits((1, 0.97), (1, 0.98)))
    assert len(alike) == 1 and str(alike.card(0)) == "7D"  # the two corners of one card: one card
    suit_only = rec._assemble(opposite, glyphs(("7", 0.98), ("7", 0.97)), suits((1, 0.97), (3, 0.98)))
    assert len(suit_only) == 1 and suit_only.rank[0] == 7 and suit_only.suit[0] == -1  # one card, suit unknown
    # a suit read surely where the rank is not: not reported (such a crop is as often a pip as an
    # index), though the detection still carries what the reader thought of the suits
    unsure_rank = rec._assemble(cands(1), glyphs(("7", 0.6)), suits((1, 0.99)))
    assert len(unsure_rank) == 1 and unsure_rank.rank[0] == 0 and unsure_rank.suit[0] == -1
    assert unsure_rank.suit_probs[0].argmax() == 1


def test_a_fans_next_corner_not_read_is_not_grouped_with_the_one_read():
    """Two index corners printed the same way up, one above the other a fifth of a card apart (a fan
    slid beneath a pile): two cards, however surely each is read. Grouped, the card read took the
    place of the one not read (a queen of hearts reported at the queen of clubs' corner)."""
    from companion.vision.recogniser import Candidates, Recogniser, RecogniserConfig, _rank_matrix
    from companion.vision.spec import GLYPH_ID, GLYPHS

    rec = Recogniser.__new__(Recogniser)
    rec.config = RecogniserConfig()
    rec._rank_matrix = _rank_matrix("english")
    step = np.array([0.0, 22.0], np.float32)  # down the card, 1.1 index heights
    pts = np.array([[100.0, 100.0], [100.0, 100.0]], np.float32) + np.array([[0, 0], step])
    cand = Candidates(points=pts, score=np.array([0.9, 0.6], np.float32), face_up=np.ones(2, bool),
                      up=np.tile(np.array([[0.0, -1.0]], np.float32), (2, 1)),
                      card_h=np.full(2, 100.0, np.float32), index_h=np.full(2, 20.0, np.float32),
                      card_centre=pts + np.array([[25.0, 40.0]], np.float32))
    g = np.full((2, len(GLYPHS)), 0.001, np.float32)
    g[:, 0] = 0.0
    g[0, GLYPH_ID["Q"]], g[1, GLYPH_ID["Q"]] = 0.5, 0.99  # the upper corner unsure, the lower one a queen
    g /= g.sum(1, keepdims=True)
    s = np.array([[0.5, 0.1, 0.3, 0.1, 0.0], [0.0, 0.0, 0.99, 0.01, 0.0]], np.float32)
    dets = rec._assemble(cand, g, s)
    assert len(dets) == 2
    read = [i for i in range(len(dets)) if dets.card(i) is not None]
    assert [str(dets.card(i)) for i in read] == ["QH"]
    assert np.allclose(dets.index_centres[read[0]], pts[1])  # where the queen of hearts' corner is
    # the same two corners half an index height apart: one index seen twice, one card
    near = Candidates(points=pts[[0, 0]] + np.array([[0, 0], [0, 10.0]], np.float32), score=cand.score,
                      face_up=cand.face_up, up=cand.up, card_h=cand.card_h, index_h=cand.index_h,
                      card_centre=cand.card_centre[[0, 0]])
    assert len(rec._assemble(near, g, s)) == 1


def test_a_cards_two_indices_make_one_card_centred_between_them():
    """A card half under a stack: the detector's centre from each corner is off, in different
    directions, further apart than the merge distance. Two corners printed opposite ways up, a card's
    diagonal apart, are the card's two indices: one card, centred at their midpoint, marked as showing
    both. The same two corners printed the same way up are two cards."""
    from companion.vision.recogniser import Candidates, Recogniser, RecogniserConfig, _rank_matrix
    from companion.vision.spec import GLYPH_ID, GLYPHS

    rec = Recogniser.__new__(Recogniser)  # the assembly step only: no models needed
    rec.config = RecogniserConfig()
    rec._rank_matrix = _rank_matrix("english")
    pts = np.array([[100.0, 100.0], [170.0, 190.0]], np.float32)  # 114 px apart: 1.14 card heights
    mid = pts.mean(0)
    cand = Candidates(points=pts, score=np.array([0.9, 0.5], np.float32), face_up=np.ones(2, bool),
                      up=np.array([[0.0, -1.0], [0.0, 1.0]], np.float32),
                      card_h=np.array([90.0, 110.0], np.float32), index_h=np.full(2, 20.0, np.float32),
                      card_centre=np.array([mid + (-15, -15), mid + (15, 15)], np.float32))  # 0.42 apart
    g = np.full((2, len(GLYPHS)), 0.01, np.float32)
    g[:, 0] = 0.0
    g[0, GLYPH_ID["7"]], g[1, GLYPH_ID["7"]] = 0.6, 0.97
    s = np.array([[0.02, 0.9, 0.04, 0.04, 0.0], [0.01, 0.97, 0.01, 0.01, 0.0]], np.float32)
    one = rec._assemble(cand, g, s)
    assert len(one) == 1 and str(one.card(0)) == "7D"
    assert np.allclose(one.centres[0], mid, atol=0.5)  # the midpoint, not either corner's guess
    assert abs(float(one.heights[0]) - 100.0) < 1.0  # the mean of the two corners' sizes
    assert one.both_indices is not None and bool(one.both_indices[0])
    same_way = Candidates(**{**cand.__dict__, "up": np.array([[0.0, -1.0], [0.0, -1.0]], np.float32)})
    two = rec._assemble(same_way, g, s)
    assert len(two) == 2 and not two.both_indices.any()


def test_scoring_counts_each_card_in_its_height_group():
    from companion.vision.detections import Detections
    from companion.vision.evaluate import Score, card_height_bin, score_frame

    def truth(code, x, h):
        quad = [(x, 100), (x + 0.7 * h, 100), (x + 0.7 * h, 100 + h), (x, 100 + h)]
        return {"card": Card.parse(code), "face_up": True, "quad": quad,
                "corners": [{"point": (x + 5, 110), "visible": 1.0, "index_h": 20}]}

    truths = [truth("4C", 100, 80), truth("9H", 400, 300)]
    assert [card_height_bin(t) for t in truths] == ["60-90 px", "250+ px"]
    quad = np.zeros((4, 2), np.float32)
    dets = Detections.from_rows([(quad, (400, 105, 410, 115), 9, 2, 0.99, 0.99, True, 0.0)])  # 9H read, 4C not
    total = Score()
    total.add(score_frame(dets, truths, group_of=card_height_bin))
    rates = total.rates()
    assert rates["by_card_height"] == {"60-90 px": {"cards": 1, "rank": 0.0, "unknown": 1.0, "confident_wrong": 0.0},
                                       "250+ px": {"cards": 1, "rank": 1.0, "unknown": 0.0, "confident_wrong": 0.0}}


def test_missed_cards_go_to_a_contact_sheet():
    """`bench recognise --misses`: every card not read right gets one upright corner picture (any deck will
    do: nothing is read)."""
    from companion.vision.benchframes import held_out_frames
    from companion.vision.detections import Detections
    from companion.vision.evaluate import contact_sheet, evaluate_synthetic

    missed: list = []
    rates, _ = evaluate_synthetic(lambda img: Detections.from_rows([]), held_out_frames(2, seed=7, names=["builtin"]),
                                  misses=missed)
    assert rates["cards"] > 0 and len(missed) == rates["cards"]  # nothing read: every card missed
    pic, label = missed[0]
    assert pic.shape == (108, 72, 3) and label.endswith("px")
    sheet = contact_sheet(missed, columns=4)
    assert sheet.shape[1] == 4 * 74 and sheet.shape[0] == -(-len(missed) // 4) * 124


def test_the_geometry_reader_cuts_again_where_it_says_and_reads_held_out_cards(tmp_path: Path, held_out_deck):
    """The second reader has a geometry output; the crops read unsure are cut again where it says the
    index is (a crop cut a third too big and off-centre comes back close to the truth)."""
    from companion.vision.geometry import Pyramid, corrected_crop, crop_index
    from companion.vision.recogniser import Recogniser

    rec = Recogniser(_one_reader_dir(tmp_path, "index2.onnx"))
    for angle in (0, 37):
        frame = place(table(), held_out_deck.face("7H"), (640, 360), angle, 220)
        assert read_cards(rec(frame)) == ["7H"], angle
    frame = place(table(), held_out_deck.face("7H"), (640, 360), 0, 220)
    pyr = Pyramid(frame)
    cand = rec.detect(frame)
    k = int(np.argmax(np.where(cand.face_up, cand.score, -1)))
    _g, _s, geo = rec.read_geometry(rec.crops(pyr, cand))
    ref = rec.refine(cand, geo)  # where the reader puts the strongest corner's index
    centre, up, h = tuple(ref.points[k]), tuple(ref.up[k]), float(ref.index_h[k])
    right = (-up[1], up[0])
    off = (centre[0] + 0.25 * h * right[0], centre[1] + 0.25 * h * right[1])  # a quarter index to the right
    _g, _s, geo = rec.read_geometry(crop_index(pyr, off, up, 1.35 * h)[None])  # and a third too big
    assert geo is not None and geo.shape == (1, 4)
    c2, _u, h2 = corrected_crop(off, up, 1.35 * h, geo[0])
    assert math.hypot(c2[0] - centre[0], c2[1] - centre[1]) < 0.5 * math.hypot(off[0] - centre[0], off[1] - centre[1])
    assert abs(math.log(h2 / h)) < abs(math.log(1.35))


def _one_reader_dir(folder: Path, reader: str) -> Path:
    """The default detector with one of the default readers (``reader``) as its only reader."""
    from companion.train.common import write_manifest

    folder = folder / reader.removesuffix(".onnx")
    folder.mkdir()
    shutil.copy(MODELS / "detector.onnx", folder / "detector.onnx")
    shutil.copy(MODELS / reader, folder / "index.onnx")
    write_manifest(folder, ["detector.onnx", "index.onnx"])
    return folder


def test_a_second_reader_is_averaged_with_the_first(tmp_path: Path, held_out_deck):
    from companion.vision.geometry import Pyramid
    from companion.vision.recogniser import Recogniser

    both = Recogniser(MODELS)
    assert both.second_reader is not None
    first, second = (Recogniser(_one_reader_dir(tmp_path, r)) for r in ("index.onnx", "index2.onnx"))
    assert first.second_reader is None and second.second_reader is None
    frame = place(table(), held_out_deck.face("7H"), (640, 360), 37, 220)
    crops = both.crops(Pyramid(frame), both.detect(frame))
    assert len(crops)
    g, s, geo = both.read_geometry(crops)
    g1, s1, geo1 = first.read_geometry(crops)
    g2, s2, geo2 = second.read_geometry(crops)
    np.testing.assert_allclose(g, (g1 + g2) / 2, atol=1e-6)
    np.testing.assert_allclose(s, (s1 + s2) / 2, atol=1e-6)
    assert geo1 is None
    np.testing.assert_allclose(geo, geo2, atol=1e-6)  # only the second predicts where to cut
    assert read_cards(both(frame)) == ["7H"]


def test_a_corrupted_second_reader_is_refused(tmp_path: Path):
    from companion.vision.recogniser import Recogniser

    _copy_models(tmp_path)
    data = bytearray((tmp_path / "index2.onnx").read_bytes())
    data[len(data) // 3] ^= 0xFF
    (tmp_path / "index2.onnx").write_bytes(bytes(data))
    with pytest.raises(ModelHashError, match="index2.onnx is corrupted"):
        Recogniser(tmp_path)


def test_refine_rounds_are_validated():
    from companion.vision.recogniser import RecogniserConfig

    with pytest.raises(ValueError, match="refine_rounds"):
        RecogniserConfig(refine_rounds=0)
    assert RecogniserConfig().refine_rounds >= 1


@needs_held_out_decks
def test_cutting_again_several_times_comes_closer_to_the_index_than_once():
    """The reader's correction is partial (it sees a crop cut off); on held-out frames, three steps
    put the detector's crops nearer the true index centre and size than one (mean over the corners)."""
    from companion.vision.benchframes import held_out_frames
    from companion.vision.evaluate import VISIBLE
    from companion.vision.geometry import Pyramid, corrected_crop, crop_index
    from companion.vision.recogniser import Recogniser

    rec = Recogniser(MODELS)
    errors = {1: [], 3: []}
    for img, truths in held_out_frames(6, seed=4242):
        cand = rec.detect(img)
        up = np.nonzero(cand.face_up)[0]
        pyr = Pyramid(img)
        for t in truths:
            for c in t["corners"] if t["face_up"] else []:
                d = np.hypot(*(cand.points[up] - c["point"]).T) if len(up) else np.zeros(0)
                if c["visible"] < VISIBLE or not len(d) or d.min() > 0.5 * c["index_h"]:
                    continue
                k = up[int(d.argmin())]
                crop = (tuple(cand.points[k]), tuple(cand.up[k]), float(cand.index_h[k]))
                for step in (1, 2, 3):
                    _g, _s, geo = rec.read_geometry(crop_index(pyr, *crop)[None])
                    crop = corrected_crop(*crop, rec._clip_correction(geo)[0])
                    if step in errors:
                        off = math.dist(crop[0], c["point"]) / c["index_h"]
                        errors[step].append(off + abs(math.log(crop[2] / c["index_h"])))
    assert len(errors[1]) >= 20
    assert np.mean(errors[3]) < 0.9 * np.mean(errors[1])


def test_a_later_look_replaces_a_reading_only_when_it_reads_the_rank_surely(held_out_deck, monkeypatch):
    """A crop moved again and again can drift onto a pip; an unsure later reading (here: a sure suit,
    an unsure rank) must not replace what the earlier look read."""
    from companion.vision.geometry import Pyramid
    from companion.vision.recogniser import Recogniser, RecogniserConfig
    from companion.vision.spec import GLYPH_ID, GLYPHS

    rec = Recogniser(MODELS, config=RecogniserConfig(refine_rounds=2))
    frame = place(table(), held_out_deck.face("7H"), (640, 360), 0, 220)
    cand = rec.detect(frame)
    n = int(cand.face_up.sum())
    assert n >= 1

    def reading(glyph, p, suit):
        g = np.full((n, len(GLYPHS)), (1 - p) / (len(GLYPHS) - 1), np.float32)
        g[:, GLYPH_ID[glyph]] = p
        s = np.full((n, 5), 0.01, np.float32)
        s[:, "CDHS".index(suit)] = 0.96
        return g, s, np.full((n, 4), 0.3, np.float32)  # "cut it a good way off": always redone

    looks = iter([reading("7", 0.6, "H"), reading("4", 0.6, "C")])
    monkeypatch.setattr(rec, "read_geometry", lambda crops: next(looks))
    g0, s0, geo0 = reading("7", 0.6, "H")
    _cand, glyph_p, suit_p = rec._read_refined(Pyramid(frame), cand, g0, s0, geo0)
    assert (suit_p[:, :4].argmax(1) == "CDHS".index("H")).all()  # the first look's suit, not the drifted one
    assert (glyph_p.argmax(1) == GLYPH_ID["7"]).all()


class _FakeFaceReader:
    """Stands in for face.onnx: every card read as rank ``rank`` (0 = A .. 12 = K, 13 = none) and suit
    ``suit`` (0..3 = C D H S, 4 = none) with probability ``p``."""

    def __init__(self, rank: int, suit: int, p: float) -> None:
        self.rank, self.suit, self.p = rank, suit, p
        self.seen = 0

    def run(self, _outputs, feeds):
        n = len(feeds["cards"])
        self.seen += n
        assert feeds["cards"].shape[1:] == (3, 48, 32)
        r = np.full((n, 14), (1 - self.p) / 13, np.float32)
        r[:, self.rank] = self.p
        s = np.full((n, 5), (1 - self.p) / 4, np.float32)
        s[:, self.suit] = self.p
        return [r, s]


def _faces_scene():
    from companion.vision.detections import Detections
    from companion.vision.geometry import card_quad

    def row(x, h, rank, suit, face_up=True):
        quad = card_quad((x, 360.0), (0.0, -1.0), h)
        return (quad, (x - 5, 300, x + 5, 310), rank, suit, 0.9 if rank else 0.2, 0.95 if suit >= 0 else 0.3,
                face_up, 0.0, np.full(13, 1 / 13, np.float32), np.full(4, 0.25, np.float32), False)

    rows = [row(150, 80, 0, -1),     # nothing read: the face reader's
            row(350, 80, 7, -1),     # a 7 of unknown suit: the face may add the suit
            row(550, 80, 8, -1),     # an 8 by its index: the face never overrules it
            row(750, 80, 5, 3),      # read: left alone
            row(950, 80, 0, -1, face_up=False),  # face down
            row(1150, 300, 0, -1)]   # too big for the face reader (its index is big enough)
    return table(), Detections.from_rows(rows)


@pytest.mark.parametrize("p, rank, suit, want", [
    (0.97, 6, 2, ["7H", "7H", None, "5S", None, None]),
    (0.7, 6, 2, [None, None, None, "5S", None, None]),   # not sure: nothing changes
    (0.97, 13, 4, [None, None, None, "5S", None, None]),  # "none": too little of a face to tell
])
def test_the_face_reader_reads_only_cards_no_index_was_read_for(p, rank, suit, want):
    from companion.vision.recogniser import Recogniser

    rec = Recogniser(MODELS)
    rec.face_reader = fake = _FakeFaceReader(rank, suit, p)
    frame, dets = _faces_scene()
    rec._read_faces(frame, dets)
    assert [str(dets.card(i)) if dets.card(i) else None for i in range(len(dets))] == want
    assert fake.seen == 3  # the unknown, the suitless 7 and the suitless 8 (not the read, face-down or big ones)
    if want[0]:
        assert dets.rank_probs[0].argmax() == rank and abs(float(dets.rank_probs[0].sum()) - 1) < 1e-5


def test_without_a_face_reader_unknown_cards_stay_unknown(tmp_path: Path):
    from companion.vision.recogniser import Recogniser, RecogniserConfig

    off = Recogniser(MODELS, config=RecogniserConfig(face_reader=False))
    off.face_reader = _FakeFaceReader(6, 2, 0.99)
    frame, dets = _faces_scene()
    got = off(frame)  # the whole pipeline on a bare table: nothing to read, and no face read
    assert len(got) == 0 and off.face_reader.seen == 0


def test_the_face_reader_reads_small_blurred_held_out_cards_from_their_faces():
    """64 px cards, blurred: an index of 5-6 px. Every held-out deck here, 13 cards each at 13 turns."""
    from companion.cards import FULL_DECK
    from companion.synth.decks import get_deck
    from companion.vision.geometry import angle_to_up, card_quad, crop_card
    from companion.vision.recogniser import Recogniser
    from companion.vision.spec import HELD_OUT_DECKS

    rec = Recogniser(MODELS)
    if rec.face_reader is None:
        pytest.skip("these models have no face reader")
    right = sure_wrong = n = 0
    for name in HELD_OUT_DECKS:
        try:
            deck = get_deck(name, 300)
        except Exception:  # noqa: BLE001 - deck package absent here
            continue
        for k in range(0, 52, 4):
            card = FULL_DECK[k + (k // 4) % 4]
            angle = 25.0 * k
            frame = cv2.GaussianBlur(place(table(seed=k), deck.face(str(card)), (640, 360), angle, 64), (0, 0), 1.0)
            crop = crop_card(frame, card_quad((640, 360), angle_to_up(angle), 64), 32, 48)
            rank_p, suit_p = rec.read_faces(crop[None])
            r, s = int(rank_p[0].argmax()), int(suit_p[0].argmax())
            ok = (r + 1, s) == (card.rank.value, "CDHS".index(card.suit.code))
            right += ok
            sure_wrong += not ok and r < 13 and s < 4 and min(rank_p[0, r], suit_p[0, s]) >= rec.config.face_confidence
            n += 1
    if n == 0:
        pytest.skip("no held-out deck available (install gnome-cards-data librsvg2-bin)")
    # measured when committed: 45 of 52 right, none surely wrong
    assert right >= 0.7 * n and sure_wrong <= 1, (right, sure_wrong, n)


def test_a_part_of_the_frame_is_read_in_the_frames_pixels(rec, held_out_deck):
    """``read_region`` reads only the box it is given (the detector sees that part at its full input
    size) and places what it reads in the whole frame's pixels: a small card of a 1920x1080 frame."""
    frame = table(1920, 1080, seed=3)
    centre = (1300.0, 610.0)
    place(frame, held_out_deck.face("7H"), centre, 20, 90)
    box = (1100, 410, 1500, 810)
    d = rec.read_region(frame, box)
    hits = [i for i in range(len(d)) if d.card(i) == Card.parse("7H")]
    assert hits, d.to_json()
    assert np.linalg.norm(d.centres[hits[0]] - np.array(centre)) < 20
    lo, hi = d.index_boxes[hits[0], :2], d.index_boxes[hits[0], 2:]
    assert np.all(lo >= (1100, 410)) and np.all(hi <= (1500, 810))
    assert len(rec.read_region(frame, (1800, 1000, 1804, 1004))) == 0  # a box too small to hold a card


def _heat_out(cells):
    """A detector output (10, 8, 8) with the given cells' heat, sub-cell offset and index height (cells)."""
    out = np.zeros((10, 8, 8), np.float32)
    for (y, x), (heat, dx, dy, index_h) in cells.items():
        out[0, y, x], out[2, y, x], out[3, y, x], out[7, y, x] = heat, dx, dy, math.log(index_h)
    return out


def test_a_cell_beside_a_peak_that_points_at_an_index_of_its_own_is_a_second_corner():
    from companion.vision.recogniser import _split_peaks

    # a fan: two indices 1.2 cells apart; the weaker one's own cell is beside the stronger one's peak
    out = _heat_out({(3, 3): (0.9, 0.1, 0.0, 1.5), (3, 4): (0.6, 0.3, 0.0, 1.5), (4, 3): (0.5, 0.1, -0.9, 1.5)})
    heat = out[0]
    peak = (heat >= 0.3) & (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    assert list(zip(*np.nonzero(peak))) == [(3, 3)]  # the 3x3 peak test keeps one
    split = _split_peaks(out, heat, peak, 0.3, 0.5)
    # (3, 4) predicts a centre 1.2 cells from the peak's: a second index; (4, 3) predicts the peak's own
    assert sorted(zip(*np.nonzero(split))) == [(3, 3), (3, 4)]
    # asked for 1 index height (1.5 cells) apart, 1.2 cells is not enough
    assert sorted(zip(*np.nonzero(_split_peaks(out, heat, peak, 0.3, 1.0)))) == [(3, 3)]
    # a cell below the threshold never counts
    assert sorted(zip(*np.nonzero(_split_peaks(out, heat, peak, 0.7, 0.5)))) == [(3, 3)]


def test_split_peaks_is_validated():
    from companion.vision.recogniser import RecogniserConfig

    with pytest.raises(ValueError, match="split_peaks"):
        RecogniserConfig(split_peaks=-0.1)
    with pytest.raises(ValueError, match="split_peaks"):
        RecogniserConfig(split_peaks=3.0)
