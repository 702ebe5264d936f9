"""`companion play`: the headless path, resume after a kill, the window under a virtual display, speech
that never stalls the loop, replay, and the demo checked against its rendered truth.

Cards are read by the oracle stand-in (the recording's true visible cards), so these tests check the
live companion's plumbing, not recognition accuracy."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import cv2
import pytest

from companion.app.play import AppError, PlayOptions, run_play
from companion.cli.track_cmd import make_recogniser
from companion.prompts.session_log import read_log

from .conftest import clean_env, play_argv, read_rows


def _truth(recording: Path) -> dict:
    return json.loads((recording / "truth.json").read_text())


def _judged(rows: list[dict]) -> list[tuple]:
    return [(r["frame"], r["event"], r["verdict"]) for r in rows if "event" in r]


def _transcript(out: str) -> list[str]:
    """The prompt lines of the printed transcript (``  12.34s ! text``; the result without a time)."""
    pat = re.compile(r"^(?: {8}|[ \d]{4}\.\d\ds) [! ] (\S.*)$")
    return [m.group(1) for m in map(pat.match, out.splitlines()) if m]


def _frames(video: Path) -> int:
    cap = cv2.VideoCapture(str(video))
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    ok, img = cap.read()
    cap.release()
    assert ok and img.shape[:2] == (360, 640)
    return n


def test_headless_play_logs_the_truths_verdicts_writes_the_video_and_prints_the_prompts(recording, full_run):
    rows = full_run["rows"]
    truth = _truth(recording)
    assert [(e, v) for _, e, v in _judged(rows)] == [(e["event"], e["verdict"]) for e in truth["events"]]
    assert "session" in rows[0] and rows[0]["session"]["options"]["recogniser"] == "oracle"
    assert rows[-1] == {"outcome": {k: truth["outcome"][k] for k in ("won", "face_up", "last_card")}}
    # every row has the `companion track --json` shape
    for r in rows:
        if "event" in r:
            assert set(r) >= {"frame", "time", "event", "verdict", "message", "next_pile"}
    # the transcript: the oracle is announced, each flag gives one alert line (marked !), the result at the end
    out = full_run["stdout"]
    assert "renderer's truth" in out.splitlines()[0]
    alerts = [ln for ln in out.splitlines() if ln[9:11] == "! "]
    flags = [e for e in truth["events"] if e["verdict"] != "ok"]
    assert len(alerts) == len(flags) == 3
    assert "Lost with 11 of 52 cards face up" in out and "3 mistakes, all corrected" in out
    assert _transcript(out) == [r["prompt"] for r in rows if "prompt" in r]
    # the annotated video: every frame of the game, then two seconds of the result
    assert _frames(full_run["video"]) >= len(json.loads((recording / "truth.json").read_text())["events"])
    assert _frames(full_run["video"]) >= 1000


def test_resume_after_kill_9_ends_as_the_uninterrupted_run_with_no_row_twice(recording, full_run, tmp_path):
    log = tmp_path / "killed.jsonl"
    args = ["--video", str(recording / "game.mp4"), "--layout", str(recording / "layout.json"), "--headless"]
    p = subprocess.Popen(play_argv(*args, "--log", str(log)), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=clean_env(XDG_DATA_HOME=str(tmp_path)))
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # kill it once about a third of the game is logged
            if log.exists() and sum('"event"' in x for x in log.read_text().splitlines()) >= 12:
                break
            assert p.poll() is None, p.stderr.read().decode() if p.stderr else ""
            time.sleep(0.05)
        p.send_signal(signal.SIGKILL)
        p.wait(10)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == -signal.SIGKILL
    before = read_log(log)
    n_before = len(_judged(before.rows))
    assert 12 <= n_before < len(_judged(full_run["rows"])) and before.outcome is None
    # a torn last line, as a kill in the middle of a write leaves
    with open(log, "a") as fh:
        fh.write('{"frame": 9999, "event": ["tu')
    r = subprocess.run(play_argv("--resume", str(log), "--headless"), capture_output=True, text=True,
                       env=clean_env(XDG_DATA_HOME=str(tmp_path)), timeout=300)
    assert r.returncode == 0, r.stderr
    assert "torn line" in r.stderr
    rows = read_rows(log)  # every line parses: the torn one was cut off
    assert _judged(rows) == _judged(full_run["rows"])  # same rows, same frames, none twice
    assert rows[-1] == full_run["rows"][-1]
    assert sum("resume" in x for x in rows) == 1
    # resuming a finished game does nothing
    again = subprocess.run(play_argv("--resume", str(log), "--headless"), capture_output=True, text=True,
                           env=clean_env(XDG_DATA_HOME=str(tmp_path)), timeout=60)
    assert again.returncode == 0 and "over already" in again.stdout
    assert read_rows(log) == rows


class NullUI:
    """A UI with no window and no keys: what the loop shows goes nowhere."""

    window = False

    def show(self, img):
        pass

    def keys(self, wait_s=0.0):
        return []

    def wait(self, s):
        return []

    def close(self):
        pass


class SlowEngine:
    """A speech engine that takes a whole second per phrase, noting how many frames were shown meanwhile."""

    def __init__(self, shown: list[int]) -> None:
        self.said: list[str] = []
        self.shown = shown
        self.during: list[int] = []

    def speak(self, text: str) -> None:
        before = self.shown[0]
        time.sleep(1.0)
        self.during.append(self.shown[0] - before)
        self.said.append(text)


def _short_video(recording: Path, folder: Path, frames: int) -> Path:
    folder.mkdir()
    shutil.copy(recording / "truth.json", folder / "truth.json")
    cap = cv2.VideoCapture(str(recording / "game.mp4"))
    ok, img = cap.read()
    wr = cv2.VideoWriter(str(folder / "game.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (img.shape[1], img.shape[0]))
    for _ in range(frames):
        wr.write(img)
        ok, img = cap.read()
    wr.release()
    cap.release()
    return folder / "game.mp4"


def test_speech_never_stalls_the_frame_loop(recording, tmp_path, monkeypatch, capsys):
    from companion.app import ui

    monkeypatch.delenv("DISPLAY", raising=False)
    video = _short_video(recording, tmp_path / "short", 330)
    shown = [0]
    real_show = ui.VideoUI.show

    def show(self, image):
        shown[0] += 1
        real_show(self, image)

    monkeypatch.setattr(ui.VideoUI, "show", show)
    eng = SlowEngine(shown)
    o = PlayOptions(video=str(video), layout=str(recording / "layout.json"), headless=True, voice=True,
                    log=tmp_path / "s.jsonl")
    res = run_play(o, make_recogniser, engine=eng)
    n = len(res.prompts)
    assert n >= 6  # at one second each, speaking them in the loop would take that many seconds
    # frames went on while the first phrase was spoken (later ones may be spoken after the short video
    # has ended, when no frames are left to show: how many depends on the machine's speed)
    assert eng.during and eng.during[0] > 0, eng.during
    assert res.max_step_s < 0.95, res.max_step_s  # no frame waited a whole phrase
    assert len(eng.said) < n  # the loop finished long before the voice did (the rest was dropped at close)
    assert res.outcome == "unfinished"


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run is not installed (apt install xvfb)")
def test_window_under_a_virtual_display_with_keys(recording, tmp_path):
    video = _short_video(recording, tmp_path / "short", 300)
    log = tmp_path / "w.jsonl"
    keys = "60:space,61:space,90:m,120:h,150:r,200:u,201:q"
    r = subprocess.run(["xvfb-run", "-a", *play_argv("--video", str(video), "--layout", str(recording / "layout.json"),
                                                     "--log", str(log), "--keys", keys, "--hold", "0.5", "--fast",
                                                     "--out", str(tmp_path / "w.mp4"), "--no-voice")],
                       capture_output=True, text=True, env=clean_env(XDG_DATA_HOME=str(tmp_path)), timeout=180)
    assert r.returncode == 0, r.stderr
    rows = read_rows(log)
    assert rows[0]["session"]["options"]["window"] is True
    acts = [(x["frame"], x["action"]) for x in rows if "action" in x and x["action"] != "layout"]
    # the window waits while paused; the script's key of the next frame (61) resumes it, still at frame 60
    assert acts == [(60, "pause"), (60, "resume"), (90, "mute"), (150, "recalibrate"), (200, "undo")]
    recal = next(x for x in rows if x.get("action") == "recalibrate")
    assert recal["layout"]["format"] == "companion-layout/1" and recal["message"]
    assert any(x.get("kind") == "hint" and x["frame"] == 120 for x in rows if "prompt" in x)
    undo = [x for x in rows if "undo" in x]
    assert len(undo) == 1 and undo[0]["frame"] == 200
    assert rows[-1]["outcome"] == "unfinished"  # q at frame 201
    assert "quit" in r.stdout and _frames(tmp_path / "w.mp4") >= 200


def test_replay_plays_the_log_back_on_the_source_frames(full_run, tmp_path, capsys):
    from companion.app.replay import replay

    out = tmp_path / "replay.mp4"
    r = replay(full_run["log"], out=out, headless=True)
    printed = capsys.readouterr().out
    prompts = [x["prompt"] for x in full_run["rows"] if "prompt" in x]
    assert r["background"] == "source video" and r["prompts"] == len(prompts)
    assert _transcript(printed) == prompts
    assert _frames(out) >= 1000


def test_replay_without_the_source_draws_a_plain_table(full_run, tmp_path, capsys):
    from companion.app.replay import replay

    rows = read_rows(full_run["log"])
    rows[0]["session"]["source"] = {"kind": "video", "video": str(tmp_path / "gone.mp4")}
    log = tmp_path / "moved.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in rows))
    r = replay(log, out=tmp_path / "r.mp4", headless=True, hold_frames=2)
    assert r["background"] == "plain table" and r["frames"] > 20 and r["outcome"]["face_up"] == 11


def test_demo_plays_a_rendered_game_and_its_transcript_matches_the_truth(tmp_path, monkeypatch, capsys):
    """`companion play --demo 12` (cut to 3 moves with one mistake, to keep the test short): rendered on
    the fly, the oracle announced, the verdicts the truth's."""
    from companion.cli import main
    from companion.vision.sources import DemoSource

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as exc:
        main(["play", "--demo", "12", "--mistakes", "1", "--max-moves", "3", "--log", str(tmp_path / "d.jsonl")])
    cap = capsys.readouterr()
    assert exc.value.code in (0, None), cap.err
    rows = read_rows(tmp_path / "d.jsonl")
    truth = DemoSource(12, resolution=(640, 360), mistakes=1, max_moves=3).truth
    assert [(e, v) for _, e, v in _judged(rows)] == [(e["event"], e["verdict"]) for e in truth["events"]]
    assert "WRONG_TARGET_PILE" in [v for _, _, v in _judged(rows)]
    assert [x for x in cap.out.splitlines() if x[9:11] == "! "]  # the mistake's alert is in the transcript
    assert "renderer's truth" in cap.out and "annotated video:" in cap.err
    assert (tmp_path / "d.mp4").exists()


def test_a_camera_unplugged_mid_game_is_waited_for_and_the_game_kept(recording, tmp_path):
    """A fake camera delivering the recording's frames goes dark for a while, then comes back."""
    from companion.app.session import PlayConfig, PlaySession
    from companion.prompts.session_log import SessionLog
    from companion.prompts.speech import Speaker
    from companion.track import oracle_for_source
    from companion.vision.layout import Layout
    from companion.vision.sources import CaptureSource

    frames = []
    cap = cv2.VideoCapture(str(recording / "game.mp4"))
    while len(frames) < 420:
        ok, img = cap.read()
        frames.append(img)
    cap.release()
    state = {"i": 0, "dark": 0, "opens": 0}

    class FakeCap:
        def __init__(self) -> None:
            state["opens"] += 1

        def isOpened(self) -> bool:
            return state["dark"] == 0 or state["opens"] > 3

        def read(self):
            if state["i"] == 200 and state["dark"] == 0:
                state["dark"] = 1
            if state["dark"] == 1 and state["opens"] <= 3:
                return False, None
            if state["i"] >= len(frames):
                return True, frames[-1]
            state["i"] += 1
            return True, frames[state["i"] - 1]

        def set(self, *a):
            return True

        def get(self, *a):
            return 0.0

        def release(self):
            pass

    src = CaptureSource(0, capture_factory=lambda t: FakeCap(), sleep=lambda s: None, reconnect_timeout=60)
    recognise = oracle_for_source(src, str(recording / "game.mp4"))
    log = SessionLog.create(tmp_path / "cam.jsonl", {"source": {"kind": "camera", "camera": 0}})
    out = []

    class Sink(NullUI):
        def show(self, img):
            out.append(img.shape)

    s = PlaySession(src, recognise, layout=Layout.load(recording / "layout.json"), log=log, speaker=Speaker(None),
                    ui=Sink(), config=PlayConfig(live=True), out=open(tmp_path / "t.txt", "w"))
    src.on_status = s.on_source_status
    gen = s._frames
    s._frames = lambda: _take(gen(), len(frames))
    res = s.run()
    log.close()
    rows = read_rows(tmp_path / "cam.jsonl")
    st = [x["status"] for x in rows if "status" in x]
    assert st == ["camera disconnected", "camera open"]
    ev = [x for x in rows if "event" in x]
    dis = next(x["frame"] for x in rows if x.get("status") == "camera disconnected")
    assert any(x["frame"] > dis for x in ev)  # the game went on after the camera came back
    assert res.frames == len(frames)


def _take(it, n):
    for k, x in enumerate(it):
        yield x
        if k + 1 >= n:
            return


def test_app_errors_are_one_line(tmp_path, recording):
    with pytest.raises(AppError, match="give one source"):
        run_play(PlayOptions(video="x.mp4", demo=3), make_recogniser)
    with pytest.raises(AppError, match="give a source"):
        run_play(PlayOptions(), make_recogniser)
    with pytest.raises(AppError, match="not supported"):
        run_play(PlayOptions(demo=3, lang="fr"), make_recogniser)


@pytest.mark.parametrize("cut_at", ["put-down", "in-hand"])
def test_a_camera_session_resumes_from_the_logged_rows(recording, full_run, tmp_path, cut_at):
    """Live sources cannot be followed again: the referee is rebuilt from the log, frames are numbered
    on from the last logged one, and the rows go on in the same log. Cut after a put-down, or with a
    card read and still in the hand (its turn and reading are not logged twice; its put-down is)."""
    from companion.app.session import PlayConfig, PlaySession, Resume
    from companion.prompts.session_log import SessionLog
    from companion.prompts.speech import Speaker
    from companion.track import oracle_for_source
    from companion.vision.layout import Layout
    from companion.vision.sources import ArraySource

    rows = full_run["rows"]
    place = next(i for i, r in enumerate(rows) if "event" in r and r["event"] == ["place", 8, "under"])
    if cut_at == "put-down":  # after the eight of hearts is put down
        cut = place
    else:  # the eight of hearts read in the hand, not yet put down
        cut = max(i for i in range(place) if "event" in rows[i] and rows[i]["event"] == ["see", "8H"])
    log = tmp_path / "cam.jsonl"
    head = dict(rows[0]["session"], source={"kind": "camera", "camera": 0})
    log.write_text("".join(json.dumps(r) + "\n" for r in [{"session": head}] + rows[1:cut + 1]))
    last = rows[cut]["frame"]
    contents = read_log(log)
    frames = []
    cap = cv2.VideoCapture(str(recording / "game.mp4"))
    for _ in range(last + 200):
        ok, img = cap.read()
        frames.append(img)
    cap.release()

    src = ArraySource(frames[last + 1:])  # the camera: indices from 0 again
    oracle = oracle_for_source(src, str(recording / "game.mp4"))
    s = PlaySession(src, lambda f: oracle(type(f)(f.index, f.time_s, f.image)), layout=Layout.load(recording / "layout.json"),
                    log=SessionLog.open_append(log), speaker=Speaker(None), ui=NullUI(),
                    config=PlayConfig(live=True), out=open(tmp_path / "t.txt", "w"), resume=Resume(contents))
    if cut_at == "put-down":
        assert s.tracker.ref.card_in_hand is None and s.tracker.next_pile == 8
        assert s.tracker.face_up_counts()[7] == 1
    else:
        assert str(s.tracker.ref.card_in_hand) == "8H"
    assert str(s.tracker.last_card) == "8H"
    assert s._frame_offset == last + 1
    s.run()
    s.log.close()
    after = read_rows(log)[len(contents.rows):]
    assert all(r["frame"] > last for r in after if isinstance(r.get("frame"), int))
    judged = [(r["event"], r["verdict"]) for r in after if "event" in r]
    want = [(r["event"], r["verdict"]) for r in rows[cut + 1:] if "event" in r and r["frame"] < last + 200]
    assert len(want) >= 2 and judged == want  # as in the uninterrupted run
