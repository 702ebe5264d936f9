"""The OpenCV chart: its logic (values, ticks, texts) and the PNG it writes."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from companion.cli import app
from companion.plot import distribution_chart, draw_chart, nice_ticks, save_distribution_plot
from companion.simulate import exact_distribution, simulate


@pytest.fixture(scope="module")
def result():
    return simulate(20_000, seed=3)


def test_nice_ticks():
    assert nice_ticks(0.1) == [0.0, 0.02, 0.04, 0.06, 0.08, 0.1]
    for top in (0.0723, 0.45, 0.003, 7.0):
        t = nice_ticks(top)
        assert t[0] == 0 and t[-1] >= top and 3 <= len(t) <= 12
        steps = np.diff(t)
        assert np.allclose(steps, steps[0])


def test_chart_logic(result):
    c = distribution_chart(result)
    assert c.xs == list(range(4, 53))
    assert math.isclose(sum(c.bars), 1.0)
    assert c.line == [exact_distribution()[n] for n in c.xs]
    assert c.y_max >= max(max(c.bars), max(c.line))
    assert "20,000" in c.title and "win rate" in c.subtitle and "95% CI" in c.subtitle
    assert f"{100 * result.win_rate:.3f}%" in c.subtitle


def test_watch_chart_labels_the_oracle():
    r = simulate(5000, seed=3, variant="watch", policy="best")
    c = distribution_chart(r)
    assert "oracle" in c.title and "standard game" in c.line_label


def test_draw_chart(result):
    img = draw_chart(distribution_chart(result), 900, 500)
    assert img.shape == (500, 900, 3) and img.dtype == np.uint8
    assert (img != 255).any(axis=2).mean() > 0.05  # something is drawn
    blue = (img[..., 0] > 150) & (img[..., 2] < 100)  # the bars' colour (BGR)
    red = (img[..., 2] > 150) & (img[..., 0] < 100)  # the exact line's colour
    assert blue.sum() > 5000 and red.sum() > 200


def test_png_written(tmp_path, result):
    path = save_distribution_plot(result, tmp_path / "dist.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and 5_000 < len(data) < 2_000_000
    img = cv2.imread(str(path))
    assert img.shape == (620, 1000, 3)


def test_unwritable_path_raises(tmp_path, result):
    with pytest.raises(OSError):
        save_distribution_plot(result, tmp_path / "missing" / "dist.png")


def test_cli_plot(tmp_path):
    out = tmp_path / "sim.png"
    r = CliRunner().invoke(app, ["simulate", "--games", "8000", "--seed", "1", "--plot", str(out)])
    assert r.exit_code == 0, r.output
    assert out.exists() and cv2.imread(str(out)).shape == (620, 1000, 3)
    assert "plot written" in r.stdout
