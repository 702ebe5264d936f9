"""The font-drawn indices of the reader's training data: which fonts qualify and how they are drawn."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PIL", reason="font-drawn indices need pillow (the train extra)")

from companion.train import index_data  # noqa: E402


def test_a_file_that_is_no_font_is_not_used(tmp_path):
    bogus = tmp_path / "Bogus-Regular.ttf"
    bogus.write_bytes(b"not a font at all")
    assert index_data._draws_all(str(bogus)) is None


def test_usable_families_draw_every_index_character_and_none_is_decorative():
    families = index_data.font_families()
    if not families:
        pytest.skip("no TrueType fonts installed (fonts-dejavu-core)")
    names = [name for name, _ in families]
    assert names == sorted(names)  # a stable order: the sampler is deterministic for installed fonts
    for name, files in families:
        assert files and not any(d.lower() in name.lower() for d in index_data.DECORATIVE)
        assert not any(b in f for f in files for b in ("Italic", "Oblique", "Mono"))
    name, files = families[0]
    assert index_data._draws_all(files[0]) == name


def test_a_font_drawn_index_is_deterministic_and_its_box_holds_the_ink():
    if not index_data.font_families():
        pytest.skip("no TrueType fonts installed (fonts-dejavu-core)")
    a, box_a = index_data._font_index(np.random.default_rng(5), "10", "H", True)
    b, box_b = index_data._font_index(np.random.default_rng(5), "10", "H", True)
    assert box_a == box_b and np.array_equal(a, b)
    x0, y0, x1, y1 = box_a
    paper = np.median(a[..., :3].reshape(-1, 3), axis=0)
    ink = np.abs(a[..., :3].astype(int) - paper).sum(2) > 60
    inside = ink[y0:y1, x0:x1].sum()
    assert inside >= 0.95 * ink.sum() > 0
