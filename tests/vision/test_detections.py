import numpy as np
import pytest

from companion.cards import Card
from companion.vision.detections import Detections
from companion.vision.spec import ALPHABETS, GLYPHS, glyph_to_rank


def make(n=3):
    return Detections(
        quads=np.tile(np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float32), (n, 1, 1)) + np.arange(n)[:, None, None] * 100,
        index_boxes=np.zeros((n, 4), np.float32),
        rank=np.array([7, 0, 13][:n], np.int8),
        suit=np.array([2, 1, -1][:n], np.int8),
        rank_confidence=np.array([0.99, 0.4, 0.95][:n], np.float32),
        suit_confidence=np.array([0.98, 0.97, 0.3][:n], np.float32),
        face_up=np.array([True, True, False][:n]),
        angle=np.zeros(n, np.float32),
    )


def test_json_rows_and_unknowns():
    rows = make().to_json()
    assert rows[0]["card"] == "7H" and rows[0]["rank"] == "7" and rows[0]["suit"] == "H"
    assert rows[1]["card"] is None and rows[1]["rank"] is None and rows[1]["suit"] == "D"
    assert rows[2]["face_up"] is False and rows[2]["suit"] is None and rows[2]["rank"] == "K"
    assert rows[0]["confidence"] == pytest.approx(0.98)
    assert len(rows[0]["quad"]) == 4


def test_indexing_and_concat():
    d = make()
    assert len(d[d.face_up]) == 2 and d.card(0) == Card.parse("7H") and d.card(1) is None
    both = Detections.concat([d, d[0]])
    assert len(both) == 4 and both.card(3) == Card.parse("7H")
    assert d.heights == pytest.approx([88, 88, 88])
    with pytest.raises(ValueError, match="rank has 2 rows"):
        Detections(**{**d.__dict__, "rank": d.rank[:2]})


def test_alphabets_never_map_foreign_letters_to_english_ranks():
    assert glyph_to_rank("B", "english") == 0 and glyph_to_rank("H", "english") == 0
    assert glyph_to_rank("V", "english") == 0 and glyph_to_rank("other", "dutch") == 0
    assert [glyph_to_rank(g, "dutch") for g in ("B", "V", "H")] == [11, 12, 13]
    assert [glyph_to_rank(g, "french") for g in ("1", "V", "D", "R")] == [1, 11, 12, 13]
    assert glyph_to_rank("bg", "english") == 0
    assert all(set(t) <= set(GLYPHS) for t in ALPHABETS.values())
    with pytest.raises(ValueError, match="unknown index alphabet"):
        glyph_to_rank("A", "klingon")


def test_probabilities_derived_from_the_readings_when_not_given():
    d = make()
    # 7 read at 0.99: 0.99 on the 7, the rest spread; an unknown rank: uniform
    rp, sp = d.rank_probabilities(), d.suit_probabilities()
    assert d.rank_probs is None and rp.shape == (3, 13) and sp.shape == (3, 4)
    assert rp[0, 6] == pytest.approx(0.99) and rp[0].sum() == pytest.approx(1.0)
    assert rp[1] == pytest.approx(np.full(13, 1 / 13))
    assert sp[2] == pytest.approx(np.full(4, 0.25)) and sp[1, 1] == pytest.approx(0.97)
    # derived from the readings as they are now (a reading set to unknown later is unknown)
    d.rank[0] = 0
    assert d.rank_probabilities()[0] == pytest.approx(np.full(13, 1 / 13))
    # given ones follow indexing and concatenation (derived for the parts without them)
    given = Detections(**{**d.__dict__, "rank_probs": rp, "suit_probs": sp})
    assert Detections.concat([given, d[0]]).rank_probs[3] == pytest.approx(np.full(13, 1 / 13))
    assert given[given.face_up].suit_probs.shape == (2, 4) and d[0].rank_probs is None


def test_rows_may_carry_the_readers_probabilities():
    quad = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float32)
    rp = np.full(13, 0.02, np.float32)
    rp[4] = 0.6  # a 5, unsure: reported unknown, but the reader's leaning is kept
    sp = np.array([0.1, 0.1, 0.7, 0.1], np.float32)
    d = Detections.from_rows([(quad, (0, 0, 9, 9), 0, -1, 0.6, 0.7, True, 0.0, rp, sp)])
    assert d.card(0) is None and int(d.rank_probs[0].argmax()) == 4 and int(d.suit_probs[0].argmax()) == 2
    with pytest.raises(ValueError, match="rank_probs has 2 rows"):
        Detections(**{**d.__dict__, "rank_probs": np.zeros((2, 13), np.float32)})


def test_rows_may_say_whether_both_indices_showed():
    quad = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float32)
    rp, sp = np.full(13, 1 / 13, np.float32), np.full(4, 0.25, np.float32)
    d = Detections.from_rows([(quad, (0, 0, 9, 9), 7, 2, 0.99, 0.98, True, 0.0, rp, sp, True),
                              (quad, (0, 0, 9, 9), 0, -1, 0.0, 0.0, False, 0.0, rp, sp, False)])
    assert d.both_indices.tolist() == [True, False] and d.rank_probs is not None
    short = Detections.from_rows([(quad, (0, 0, 9, 9), 7, 2, 0.99, 0.98, True, 0.0, True)])
    assert short.both_indices.tolist() == [True] and short.rank_probs is None
    assert d[1:].both_indices.tolist() == [False]
    assert Detections.concat([d, short]).both_indices.tolist() == [True, False, True]
    assert Detections.concat([d, make(1)]).both_indices is None  # not known for every part: not known


def test_index_centres_are_the_index_boxes_centres():
    d = Detections.from_rows([(np.zeros((4, 2)), (10, 20, 30, 60), 1, 0, 0.9, 0.9, True, 0.0)])
    assert d.index_centres.tolist() == [[20.0, 40.0]]


def test_meta_travels_with_indexing_and_concat_and_is_not_a_column():
    d = Detections.from_rows([
        ([(0, 0), (10, 0), (10, 14), (0, 14)], (0, 0, 3, 4), 1, 0, 0.9, 0.9, True, 0.0),
        ([(20, 0), (30, 0), (30, 14), (20, 14)], (20, 0, 23, 4), 2, 1, 0.9, 0.9, True, 0.0),
    ])
    d.meta["scatter"] = {"position": 0.1}
    assert d[1].meta == {"scatter": {"position": 0.1}} and len(d[1]) == 1
    assert Detections.concat([d, d[0]]).meta["scatter"] == {"position": 0.1}
    d[0].meta["other"] = 1
    assert "other" not in d.meta  # a copy, not shared
    assert Detections.empty().meta == {}
