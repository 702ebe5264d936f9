"""`companion track`: a rendered recording (video + truth.json) followed end to end by the command.

The recognition is the oracle stand-in (``--recogniser oracle``: the recording's true visible cards),
so these tests check the pipeline and the command, not recognition accuracy.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import pytest

import companion.cli.track_cmd as track_cmd  # registers `track` (until companion.cli imports it)
from companion.cli import main
from companion.synth.record import record_game
from companion.track import rebuild_recording
from companion.vision.detections import Detections
from companion.vision.oracle import truth_layout


@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> Path:
    """A whole short game (seed 115 ends lost after 11 moves) with all three mistake kinds, 640x360."""
    out = tmp_path_factory.mktemp("rec")
    truth = record_game(out, 115, resolution=(640, 360), mistakes=3, progress=False)
    scene, _ = rebuild_recording(truth)
    truth_layout(scene).save(out / "layout.json")
    return out


def _run(capsys, *args: str) -> tuple[int, list[str], str]:
    with pytest.raises(SystemExit) as exc:
        main(["track", *args])
    cap = capsys.readouterr()
    return int(exc.value.code or 0), cap.out.splitlines(), cap.err


def test_track_json_lines_give_the_recordings_verdicts_and_outcome(recording, capsys):
    code, lines, err = _run(capsys, str(recording / "game.mp4"), "--layout", str(recording / "layout.json"),
                            "--json", "--recogniser", "oracle")
    assert code == 0, err
    rows = [json.loads(x) for x in lines]
    truth = json.loads((recording / "truth.json").read_text())
    events = [r for r in rows if "event" in r]
    assert [(r["event"], r["verdict"]) for r in events] == [(e["event"], e["verdict"]) for e in truth["events"]]
    for r in events:
        assert set(r) >= {"frame", "time", "event", "verdict", "message", "next_pile"}
    assert {"WRONG_TARGET_PILE", "WRONG_SIDE", "WRONG_SOURCE_PILE"} <= {r["verdict"] for r in events}
    assert rows[-1] == {"outcome": {k: truth["outcome"][k] for k in ("won", "face_up", "last_card")}}


def test_truncated_video_is_unfinished(recording, tmp_path, capsys):
    cut = tmp_path / "cut"
    cut.mkdir()
    shutil.copy(recording / "truth.json", cut / "truth.json")
    cap = cv2.VideoCapture(str(recording / "game.mp4"))
    ok, img = cap.read()
    wr = cv2.VideoWriter(str(cut / "game.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (img.shape[1], img.shape[0]))
    for _ in range(300):
        wr.write(img)
        ok, img = cap.read()
    wr.release()
    cap.release()
    code, lines, err = _run(capsys, str(cut / "game.mp4"), "--layout", str(recording / "layout.json"), "--json",
                            "--recogniser", "oracle")
    assert code == 0, err
    last = json.loads(lines[-1])
    assert last["outcome"] == "unfinished"
    assert last["state"]["face_up"] >= 2 and last["state"]["frames"] == 300


def test_frames_that_do_not_decode_are_skipped_with_a_warning(recording, tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    shutil.copy(recording / "truth.json", folder / "truth.json")
    cap = cv2.VideoCapture(str(recording / "game.mp4"))
    for i in range(60):
        ok, img = cap.read()
        cv2.imwrite(str(folder / f"f{i}.png"), img)
    cap.release()
    (folder / "f20.png").write_bytes(b"not a png")
    code, lines, err = _run(capsys, str(folder), "--layout", str(recording / "layout.json"), "--json",
                            "--recogniser", "oracle")
    assert code == 0, err
    assert "1 frame(s) could not be decoded" in err
    assert json.loads(lines[-1])["outcome"] == "unfinished"


def test_bad_layout_file_is_one_line_and_exit_2(recording, tmp_path, capsys):
    bad = tmp_path / "layout.json"
    bad.write_text("{not json")
    code, lines, err = _run(capsys, str(recording / "game.mp4"), "--layout", str(bad), "--json")
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error:") and "not JSON" in err
    bad.write_text(json.dumps({"format": "companion-layout/1", "image_size": [640, 360], "piles": {}}))
    code, _, err = _run(capsys, str(recording / "game.mp4"), "--layout", str(bad))
    assert code == 2 and "piles" in err and err.count("\n") == 1


def test_no_layout_found_says_what_it_saw_and_exit_2(recording, capsys, monkeypatch):
    monkeypatch.setattr(track_cmd, "make_recogniser", lambda *a: ((lambda f: Detections.empty()), "test"))
    code, _, err = _run(capsys, str(recording / "game.mp4"), "--json")
    assert code == 2
    assert err.startswith("error: no layout found:") and "face-down" in err and "--layout" in err


def test_bad_source_and_variant(capsys, tmp_path):
    code, _, err = _run(capsys, str(tmp_path / "nothing.mp4"))
    assert code == 2 and "no such file" in err
    code, _, err = _run(capsys, "demo:3", "--variant", "quick")
    assert code == 2 and "--variant" in err


@pytest.mark.skipif(not (Path(__file__).resolve().parents[1] / "models" / "manifest.json").exists(),
                    reason="no trained models in models/ (run make train)")
def test_track_with_the_models_and_zoom_runs_to_an_outcome(recording, capsys, monkeypatch):
    """``--recogniser models`` looks again, closer, at a card in play left unread (``--zoom``, the default;
    ``--no-zoom`` not) and follows the recording to its last line; how well is measured by the benchmarks."""
    import companion.track as track_mod

    given = []
    real = track_mod.track
    monkeypatch.setattr(track_mod, "track", lambda *a, **kw: given.append(kw["zoom_hand"]) or real(*a, **kw))
    for flag in ([], ["--no-zoom"]):
        code, lines, err = _run(capsys, str(recording / "game.mp4"), "--layout", str(recording / "layout.json"),
                                "--json", "--recogniser", "models", *flag)
        assert code == 0, err
        rows = [json.loads(x) for x in lines]
        assert "outcome" in rows[-1] and all("event" in r for r in rows[:-1])
    assert given == [True, False]
    _, _, err = _run(capsys, str(recording / "game.mp4"), "--layout", str(recording / "layout.json"),
                     "--json", "--recogniser", "oracle", "--zoom")
    assert "--zoom applies to the models only" in err


def test_the_watcher_is_told_play_goes_on_where_a_card_taken_by_mistake_lies_beneath_its_own_pile():
    """A 3C judged taken at 2 while play was at 1, then put beneath 3: the next card most likely comes
    from 3 (played on from it, or the take was misjudged), and the watcher looks for it there, though the
    rules still say 1 (9155 at 1080p, models: the next card, turned at 1 after an AS judged taken from 4
    and put beneath 1, was judged taken where the rules said play was). Put back, play is at 1 again."""
    from companion.rules.referee import Referee
    from companion.track import _view
    ref = Referee()
    for e in (["turn", 13], ["see", "AC"], ["place", 1, "under"], ["turn", 2], ["see", "3C"]):
        ref.observe(e)
    assert _view(ref).expected_pile == 1
    ref.observe(["place", 3, "under"])
    assert ref.next_pile == 1 and _view(ref).expected_pile == 3
    ref.observe(["turn", 3])
    assert ref.next_pile == 3  # played on from: adopted
    ref = Referee()
    for e in (["turn", 13], ["see", "AC"], ["place", 1, "under"], ["turn", 2], ["see", "3C"], ["return", 2]):
        ref.observe(e)
    assert _view(ref).expected_pile == 1


def test_the_watcher_is_told_a_pile_may_hold_a_card_its_misjudged_take_was_counted_from():
    """The 3C was seen taken at 2 while play was at 1, then played on from: it may have come from 1, so 2
    may still hold its fourth card. The watcher is told the most each pile may hold (a pile counted empty
    surely has no stack to put a card on top of: 9155 at 1080p, models, an AH put on top of 1 after a take
    misjudged there was judged beneath, the WRONG_SIDE missed)."""
    from companion.rules.referee import Referee
    from companion.track import _view
    ref = Referee()
    for e in (["turn", 13], ["see", "AC"], ["place", 1, "under"], ["turn", 2], ["see", "3C"],
              ["place", 3, "under"], ["turn", 3]):
        ref.observe(e)
    assert ref.face_down_counts[2] == 3 and ref.face_down_counts[1] == 4
    assert _view(ref).face_down[2] == 4 and _view(ref).face_down[1] == 4
