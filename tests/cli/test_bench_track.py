"""`companion bench track`: the figures it prints come from following rendered games as `companion track` does.

Seed 115 is a whole short game (lost after 11 moves) with all three mistake kinds, rendered at 640x360.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli.bench_track import run_bench

MODELS = Path(__file__).resolve().parents[2] / "models" / "manifest.json"


def test_oracle_bench_follows_a_short_game_exactly():
    r = run_bench(1, 115, (640, 360), 3, "oracle", "standard", progress=False)
    assert r["recogniser"] == "oracle" and r["zoom_hand"] is False  # the oracle has nothing to look closer with
    assert r["exact_games"] == 1 and r["followed_rate"] == 1.0
    assert r["false_flags"] == 0 and r["missed_flags"] == 0
    assert r["latency_ms"]["events"] > 0 and r["latency_ms"]["max"] <= 150
    assert r["per_game"][0]["truth_flags"]  # the game has flags to catch, so exactness says something


@pytest.mark.skipif(not MODELS.exists(), reason="no trained models in models/ (run make train)")
def test_models_bench_looks_closer_through_the_recogniser_as_track_does(monkeypatch):
    """With the models the watcher is given their closer look (``read_region``), as `companion track`
    gives it, so the benchmark measures what a user runs; ``zoom_hand`` is `--zoom`, on by default as in
    `companion track`."""
    from companion.vision.recogniser import Recogniser

    calls = []
    real = Recogniser.read_region

    def counting(self, frame, box):
        calls.append(box)
        return real(self, frame, box)

    monkeypatch.setattr(Recogniser, "read_region", counting)
    r = run_bench(1, 115, (640, 360), 3, "models", "standard", progress=False)
    assert r["recogniser"] == "models" and r["zoom_hand"] is True
    assert calls, "the watcher never looked closer through the models"
    assert 0.0 <= r["followed_rate"] <= 1.0
