"""Scoring a look at a rendered game's frame (`companion bench reading`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.vision.detections import Detections
from companion.vision.evaluate import score_looks
from companion.vision.models import default_models_dir
from companion.vision.oracle import OracleRecogniser, RenderedGame


@pytest.fixture(scope="module")
def look():
    """A frame of game 9100 with several face-up cards: every card named, and which are readable."""
    game = RenderedGame(9100, resolution=(640, 360), mistakes=3)
    names = OracleRecogniser(game.scene, game.director.frames, read_visible=0.0)
    for f in range(600, 1500, 30):
        truth, readable = names(f), game.oracle(f)
        if int((readable.rank != 0).sum()) >= 3:
            return truth, readable.rank != 0
    pytest.fail("no frame with three readable face-up cards")


def test_the_truth_itself_reads_every_readable_card_right(look):
    truth, readable = look
    got, wrong = score_looks(truth, truth, readable)
    assert len(got) == int(readable.sum()) and set(got.values()) == {"right"} and wrong == []


def test_a_wrong_suit_is_a_wrong_reading_and_a_missing_one_is_not_read(look):
    truth, readable = look
    i = int(np.nonzero(readable)[0][0])
    other = truth[np.arange(len(truth)) != i]
    got, wrong = score_looks(truth, other, readable)
    assert got[i] == "not read" and list(got.values()).count("right") == len(got) - 1
    swapped = truth[np.arange(len(truth))]
    swapped.suit[i] = (swapped.suit[i] + 1) % 4
    got, wrong = score_looks(truth, swapped, readable)
    assert got[i] == "not read" and len(wrong) == 1 and wrong[0][1] == str(swapped.card(i))
    unsure = truth[np.arange(len(truth))]
    unsure.suit[i] = -1
    got, wrong = score_looks(truth, unsure, readable)
    assert got[i] == "rank only" and wrong == []
    assert set(score_looks(truth, Detections.empty(), readable)[0].values()) == {"not read"}


@pytest.mark.skipif(not (default_models_dir() / "manifest.json").exists(), reason="no trained models in models/")
def test_bench_reading_prints_figures(capsys):
    from companion.cli.bench_reading import bench_reading

    bench_reading(games=1, seed=9100, resolution="640x360", every=100, frames=700, models=None, detector_size=None,
                  as_json=True)
    r = json.loads(capsys.readouterr().out)
    assert r["looks"] > 0 and 0.0 <= r["right"] <= 1.0
    assert abs(r["right"] + r["rank_only"] + r["not_read"] - 1.0) < 0.01


def test_bench_reading_refuses_a_bad_detector_size():
    import typer

    from companion.cli.bench_reading import bench_reading

    with pytest.raises(typer.Exit) as exc:
        bench_reading(games=1, seed=9100, resolution="640x360", every=100, frames=10, models=None,
                      detector_size=500, as_json=True)
    assert exc.value.exit_code == 2
