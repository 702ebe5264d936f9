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
