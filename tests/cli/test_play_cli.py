"""`companion play`, `replay` and `bench`: bad input is one line on stderr and exit code 2, and a
session log that exists is left as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from tests.conftest import needs_held_out_decks

ROOT = Path(__file__).resolve().parents[2]


def _run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    cap = capsys.readouterr()
    return int(exc.value.code or 0), cap.out, cap.err


def _one_line(err: str) -> bool:
    return err.startswith("error: ") and err.count("\n") == 1


@pytest.fixture()
def tiny_video(tmp_path) -> Path:
    p = tmp_path / "tiny.mp4"
    wr = cv2.VideoWriter(str(p), cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (160, 90))
    rng = np.random.default_rng(0)
    for _ in range(5):
        wr.write(rng.integers(0, 255, (90, 160, 3), np.uint8))
    wr.release()
    return p


@pytest.fixture(autouse=True)
def _no_display(monkeypatch, tmp_path):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def test_missing_camera_names_the_cameras_found(capsys, tmp_path):
    code, _, err = _run(capsys, "play", "--camera", "97", "--log", str(tmp_path / "c.jsonl"))
    assert code == 2 and _one_line(err), err
    assert "cannot open camera 97" in err and "cameras found" in err
    assert not (tmp_path / "c.jsonl").exists()


def test_bad_layout_file(capsys, tmp_path, tiny_video):
    bad = tmp_path / "layout.json"
    bad.write_text("{not json")
    code, _, err = _run(capsys, "play", "--video", str(tiny_video), "--layout", str(bad), "--log", str(tmp_path / "l.jsonl"))
    assert code == 2 and _one_line(err) and "not JSON" in err
    assert not (tmp_path / "l.jsonl").exists()


def test_unreadable_video(capsys, tmp_path):
    v = tmp_path / "broken.mp4"
    v.write_text("this is not a video\n" * 50)
    code, _, err = _run(capsys, "play", "--video", str(v), "--log", str(tmp_path / "v.jsonl"))
    assert code == 2 and _one_line(err) and "broken.mp4" in err
    code, _, err = _run(capsys, "play", "--video", str(tmp_path / "missing.mp4"))
    assert code == 2 and _one_line(err) and "no such file" in err


def test_corrupt_model_is_refused(capsys, tmp_path, tiny_video):
    models = tmp_path / "models"
    shutil.copytree(ROOT / "models", models)
    onnx = sorted(models.glob("*.onnx"))[0]
    data = bytearray(onnx.read_bytes())
    data[len(data) // 2] ^= 0xFF
    onnx.write_bytes(bytes(data))
    code, _, err = _run(capsys, "play", "--video", str(tiny_video), "--recogniser", "models", "--models", str(models),
                        "--log", str(tmp_path / "m.jsonl"))
    assert code == 2 and _one_line(err), err
    assert "models" in err and ("sha256" in err or "hash" in err or "corrupt" in err or "differs" in err), err
    assert not (tmp_path / "m.jsonl").exists()


def test_resume_with_bad_input_leaves_the_log_as_it_was(capsys, tmp_path, tiny_video):
    log = tmp_path / "s.jsonl"
    head = {"session": {"source": {"kind": "video", "video": str(tiny_video)}, "variant": "standard",
                        "layout": None, "options": {}}}
    log.write_text(json.dumps(head) + "\n" + json.dumps({"frame": 3, "event": ["turn", 13], "verdict": "ok",
                                                           "message": "", "next_pile": 13}) + "\n")
    before = log.read_bytes()
    bad = tmp_path / "layout.json"
    bad.write_text("[]")
    code, _, err = _run(capsys, "play", "--resume", str(log), "--layout", str(bad))
    assert code == 2 and _one_line(err)
    assert log.read_bytes() == before
    code, _, err = _run(capsys, "play", "--resume", str(tmp_path / "nothing.jsonl"))
    assert code == 2 and _one_line(err) and "cannot read session log" in err
    (tmp_path / "junk.jsonl").write_text("hello\nworld\n")
    code, _, err = _run(capsys, "play", "--resume", str(tmp_path / "junk.jsonl"))
    assert code == 2 and _one_line(err) and "not JSON" in err


def test_option_mistakes(capsys, tmp_path):
    code, _, err = _run(capsys, "play", "7")
    assert code == 2 and _one_line(err) and "--demo" in err
    code, _, err = _run(capsys, "play", "--resume", "a.jsonl", "--log", "b.jsonl")
    assert code == 2 and _one_line(err)
    code, _, err = _run(capsys, "play", "--demo", "--variant", "quick")
    assert code == 2 and _one_line(err) and "--variant" in err
    code, _, err = _run(capsys, "play", "--demo", "--keys", "x:y")
    assert code == 2 and _one_line(err) and "FRAME:KEY" in err
    code, _, err = _run(capsys, "play")
    assert code == 2 and _one_line(err) and "give a source" in err
    code, _, err = _run(capsys, "replay", str(tmp_path / "none.jsonl"))
    assert code == 2 and _one_line(err)


def test_bench_quick_prints_one_table_of_every_benchmark(capsys):
    code, out, err = _run(capsys, "bench", "--quick")
    assert code == 0, err
    rows = [ln for ln in out.splitlines() if ln.startswith("| ")]
    assert [r.split("|")[1].strip() for r in rows] == ["benchmark", "recognise", "track", "simulate", "render"]
    assert "frames/s" in out and "deals/s" in out


def test_bench_recognise_misses_wants_a_png(capsys, tmp_path):
    code, _, err = _run(capsys, "bench", "recognise", "--frames", "1", "--misses", str(tmp_path / "misses.jpg"))
    assert code == 2 and _one_line(err) and ".png" in err, err
    assert not (tmp_path / "misses.jpg").exists()


def test_bench_recognise_never_measures_accuracy_on_a_training_deck(capsys, tmp_path, monkeypatch):
    """With no held-out deck installed the benchmark says so and names them, rather than scoring a deck the models
    trained on (it used to fall back to the built-in deck); the frame time is still measured."""
    import companion.vision.benchframes as benchframes
    from companion.vision.spec import HELD_OUT_DECKS

    monkeypatch.setattr(benchframes, "held_out_deck_names", lambda: [])
    code, out, err = _run(capsys, "bench", "recognise", "--frames", "1", "--real-dev", str(tmp_path), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["held_out_synthetic"].startswith("not measured: no held-out deck is installed")
    assert report["held_out_decks"] == [] and report["held_out_decks_missing"] == list(HELD_OUT_DECKS)
    assert report["speed"]["ms_median"] > 0
    code, out, _ = _run(capsys, "bench", "recognise", "--frames", "1", "--real-dev", str(tmp_path))
    assert code == 0 and "held-out synthetic: not measured" in out
    with pytest.raises(benchframes.NoHeldOutDeck, match="gnome-cards-data"):
        benchframes.held_out_frames(1, 0)


@needs_held_out_decks
def test_bench_recognise_writes_the_misses_sheet(capsys, tmp_path):
    sheet = tmp_path / "out" / "misses.png"
    code, out, _ = _run(capsys, "bench", "recognise", "--frames", "2", "--real-dev", str(tmp_path),
                        "--misses", str(sheet), "--json")
    report = json.loads(out)
    assert code == 0 and report["misses_sheet"] == str(sheet)
    assert cv2.imread(str(sheet)) is not None
    assert set(report["held_out_synthetic"]["by_card_height"]) <= {"60-90 px", "90-150 px", "150-250 px", "250+ px"}


@needs_held_out_decks
def test_bench_recognise_diagnose_says_where_the_misses_come_from(capsys, tmp_path):
    code, out, err = _run(capsys, "bench", "recognise", "--frames", "2", "--real-dev", str(tmp_path), "--diagnose",
                          "--json")
    assert code == 0, err
    diag = json.loads(out)["diagnosis"]
    assert set(diag) == {"60-90 px", "90-150 px", "150-250 px", "250+ px"}
    seen = [d for d in diag.values() if d["indices"]]
    assert seen and sum(d["indices"] for d in seen) >= 5
    for d in seen:
        assert 0.0 <= d["found"] <= 1.0 and 0.0 <= d["truth_crop_right"] <= 1.0
        parts = [d[f"truth_crop_{k}"] for k in ("right", "unknown", "background", "wrong")]
        assert abs(sum(parts) - 1.0) < 0.01  # every index read at its true place lands in one class
    code, out, _ = _run(capsys, "bench", "recognise", "--frames", "1", "--real-dev", str(tmp_path), "--diagnose")
    assert code == 0 and "where the misses come from" in out and "true crop right" in out
