"""Fixtures of the live companion's tests: one short rendered recording (seed 115: a whole game of 11
moves, lost, with all three mistake kinds, 640x360, about 1050 frames), its true layout, and one
uninterrupted headless `companion play` run of it that other tests compare against."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SEED = 115


def play_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "companion", "play", *args]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(OMP_NUM_THREADS="1", **extra)
    return env


@pytest.fixture(scope="session")
def recording(tmp_path_factory) -> Path:
    from companion.synth.record import record_game
    from companion.track import rebuild_recording
    from companion.vision.oracle import truth_layout

    out = tmp_path_factory.mktemp("rec")
    truth = record_game(out, SEED, resolution=(640, 360), mistakes=3, progress=False)
    scene, _ = rebuild_recording(truth)
    truth_layout(scene).save(out / "layout.json")
    return out


def read_rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture(scope="session")
def full_run(recording, tmp_path_factory) -> dict:
    """`companion play --video REC --headless` to the end, as a subprocess: its log rows and output."""
    d = tmp_path_factory.mktemp("full")
    log = d / "full.jsonl"
    p = subprocess.run(play_argv("--video", str(recording / "game.mp4"), "--layout", str(recording / "layout.json"),
                                 "--headless", "--log", str(log)),
                       capture_output=True, text=True, env=clean_env(XDG_DATA_HOME=str(d)), timeout=300)
    assert p.returncode == 0, p.stderr
    return {"log": log, "rows": read_rows(log), "stdout": p.stdout, "stderr": p.stderr, "video": log.with_suffix(".mp4")}
