"""The live companion's loop: frames -> :class:`~companion.track.GameTracker` -> prompts -> speech,
overlay, transcript and session log.

One iteration per frame: read it, step the tracker, turn each new row into prompts
(:class:`~companion.prompts.phrases.Phraser`), log the row and its prompts, queue the prompts on the
:class:`~companion.prompts.speech.Speaker` (which never blocks), print them on the transcript, then
handle the keys of this frame (window keys, or a script) and show the frame with the overlay.

Resuming a session (:class:`Resume`):

* a file source (video, image folder, demo): the game is followed again from frame 0 with a fresh
  tracker ("catch-up"), silently, up to the last frame the log names; the first K judged rows (K =
  those in the log) are not logged again, the undo/recalibrate/pause actions in the log are applied
  again at their frames. At the switch the catch-up's referee is checked against the one rebuilt
  from the log's rows (if they differ, the rebuilt one is kept and a warning printed). Following
  again is deterministic, so the log ends exactly as an uninterrupted run's would.
* a live source (camera, stream): the referee is rebuilt from the log's rows, the layout is the
  log's, frames are numbered on from the last logged one.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, TextIO

import numpy as np

from ..prompts.phrases import Phraser, Prompt
from ..prompts.session_log import LogContents, SessionLog
from ..prompts.summary import GameSummary
from ..rules.referee import Referee
from ..track import GameTracker, replay_rows
from ..vision.layout import Layout
from ..vision.sources import Frame, SourceDisconnected

__all__ = ["PlayConfig", "PlaySession", "PlayResult", "Resume", "overlay_state", "ACTIONS"]

#: Logged actions that change the game or what is watched (applied again when catching up).
ACTIONS = ("undo", "recalibrate", "pause", "resume")


@dataclass
class PlayConfig:
    variant: str = "standard"
    child: bool = False
    lang: str = "en"
    keys: dict[int, list[str]] = field(default_factory=dict)  # scripted keys: frame -> keys
    realtime: bool = False  # pace a file source at its frame rate (window mode)
    fps: float = 30.0
    hold_s: float = 0.0  # window: keep the result on screen this long (or until a key)
    tail_frames: int = 0  # video: frames of the result added at the end
    notice: str | None = None  # shown in the status corner all game and printed first (e.g. the oracle)
    reregister: bool = True
    twelve_at: str = "top"
    live: bool = False  # a camera or a stream (pause keeps reading frames; resume restores, not catches up)


@dataclass
class Resume:
    """What a resumed session starts from: the log read back."""

    log: LogContents

    @property
    def observations(self) -> list[dict[str, Any]]:
        return self.log.observations

    @property
    def last_frame(self) -> int:
        f = self.log.last_frame
        return -1 if f is None else int(f)

    def actions(self) -> dict[int, list[dict[str, Any]]]:
        out: dict[int, list[dict[str, Any]]] = {}
        for r in self.log.rows:
            if r.get("action") in ACTIONS and isinstance(r.get("frame"), int):
                out.setdefault(int(r["frame"]), []).append(r)
        return out

    def layout(self) -> Layout | None:
        lay = None
        for r in self.log.rows:
            if isinstance(r.get("session"), dict) and r["session"].get("layout"):
                lay = r["session"]["layout"]
            if r.get("layout") and r.get("action") in (None, "layout", "recalibrate"):
                lay = r["layout"]
        return Layout.from_json(lay, where=str(self.log.path)) if lay else None


@dataclass
class PlayResult:
    outcome: Any = None
    prompts: list[Prompt] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] | None = None
    summary_text: str = ""
    frames: int = 0
    quit: bool = False
    caught_up: int = 0  # frames followed again when resuming
    max_step_s: float = 0.0  # the longest frame iteration (tests: speech never stalls the loop)
    warnings: list[str] = field(default_factory=list)


def overlay_state(tracker: GameTracker, message: str = "", *, flag: bool = False, status: str | None = None,
                  result: str | None = None) -> Any:
    """The overlay's state from the tracker (None before the layout is known)."""
    from ..prompts.overlay import OverlayState

    lay = tracker.layout
    if lay is None:
        return None
    return OverlayState(np.asarray(lay.centres, np.float64), float(np.median(lay.pile_card_h)) / 2.0,
                        tracker.face_down_counts(), tracker.face_up_counts(), tracker.next_pile,
                        str(tracker.last_card) if tracker.last_card else None, message, result, status, flag)


def _banner(image: np.ndarray, text: str) -> np.ndarray:
    """A plain line of text at the bottom (before the layout is known)."""
    import cv2

    out = image.copy()
    h, w = out.shape[:2]
    u = min(h, w) / 360.0
    cv2.rectangle(out, (0, h - int(34 * u)), (w, h), (30, 30, 30), -1)
    cv2.putText(out, text, (int(10 * u), h - int(11 * u)), cv2.FONT_HERSHEY_DUPLEX, 0.55 * u, (255, 255, 255),
                max(1, int(u)), cv2.LINE_AA)
    return out


class _Quit(Exception):
    pass


class PlaySession:
    """One game. ``run()`` plays it to the end of the source, the fourth king, or a quit."""

    def __init__(self, source: Any, recognise: Callable[[Any], Any], *, layout: Layout | None, log: SessionLog,
                 speaker: Any, ui: Any, config: PlayConfig | None = None, out: TextIO | None = None,
                 resume: Resume | None = None) -> None:
        self.source = source
        self.recognise = recognise
        self.cfg = config or PlayConfig()
        self.log = log
        self.speaker = speaker
        self.ui = ui
        self.out = out if out is not None else sys.stdout
        self.resume = resume
        self.phraser = Phraser(child=self.cfg.child, lang=self.cfg.lang)
        self.summary = GameSummary()
        self.res = PlayResult()
        self.message = ""
        self.flag = False
        self.result_text: str | None = None
        self.paused = False
        self.camera_status: str | None = None
        self.frame: Frame | None = None
        self._live_from = -1  # frames up to this index are followed again silently (catch-up)
        self._skip_obs = 0  # judged rows already in the log (not logged again)
        self._obs_seen = 0
        self._logged_obs: list[dict[str, Any]] = []
        self._actions: dict[int, list[dict[str, Any]]] = {}
        self._frame_offset = 0
        self._time_offset = 0.0
        self.tracker = self._make_tracker(layout)

    # -- set-up ------------------------------------------------------------------------------------
    def _make_tracker(self, layout: Layout | None) -> GameTracker:
        kw = dict(layout=layout, variant=self.cfg.variant, reregister=self.cfg.reregister, twelve_at=self.cfg.twelve_at)
        # the models' closer look, at the card in play when the whole frame leaves it unread (as `companion
        # track` by default) and where a card seems to have been played unseen
        kw.update(zoom=getattr(self.recognise, "zoom", None), zoom_hand=True)
        r = self.resume
        if r is None:
            return GameTracker(self.recognise, **kw)
        obs = r.observations
        if self.cfg.live:  # restore: the referee from the log's rows
            ref = Referee(self.cfg.variant)
            last = replay_rows(ref, obs)
            for row in r.log.rows:
                self._feed_quietly(row)
            self._frame_offset = r.last_frame + 1
            times = [row["time"] for row in obs if isinstance(row.get("time"), (int, float))]
            self._time_offset = float(times[-1]) if times else 0.0
            return GameTracker(self.recognise, referee=ref, last_card=last, **kw)
        # catch-up: follow the source again from its start
        self._live_from = r.last_frame
        self._skip_obs = len(obs)
        self._logged_obs = obs
        self._actions = r.actions()
        return GameTracker(self.recognise, **kw)

    def _feed_quietly(self, row: dict[str, Any]) -> None:
        """A row already in the log: the phraser and the summary follow it, nothing is said."""
        if "undo" in row:
            self.phraser.undo()
            self.summary.undo()
        elif "event" in row:
            self.phraser.for_row(row)
            self.summary.add(row)

    # -- output ------------------------------------------------------------------------------------
    def _print(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def _say(self, prompt: Prompt, t: float | None) -> None:
        self.res.prompts.append(prompt)
        self.log.prompt(prompt)
        self.speaker.say(prompt)
        mark = "!" if prompt.kind == "alert" else " "
        when = f"{t:7.2f}s" if t is not None else "        "
        self._print(f"{when} {mark} {prompt.text}")
        if prompt.kind == "result":
            self.result_text = prompt.text
        self.message = prompt.text
        self.flag = prompt.kind == "alert"

    def _row(self, row: dict[str, Any]) -> None:
        """A new row from the tracker: log it, phrase it, say it (or, catching up, follow it quietly)."""
        is_obs = "event" in row or "undo" in row
        if is_obs:
            k = self._obs_seen
            self._obs_seen += 1
            if k < self._skip_obs:
                want = self._logged_obs[k]
                if (want.get("event"), want.get("undo"), want.get("verdict")) != (
                        row.get("event"), row.get("undo"), row.get("verdict")):
                    self._warn(f"following the source again gave another row than the log at row {k + 1} "
                               f"({row.get('event') or row.get('undo')} {row.get('verdict')} instead of "
                               f"{want.get('event') or want.get('undo')} {want.get('verdict')})")
                self._feed_quietly(row)
                return
        if "outcome" in row:
            self.summary.add(row)
            self.res.summary = self.summary.to_json()
            self.res.summary_text = self.summary.text(child=self.cfg.child)
            self.log.row({"frame": self._frame_index(), "summary": self.res.summary})
            for p in self.phraser.for_row(row):  # the result is said before the outcome row ends the log
                self._say(Prompt(p.text, p.priority, p.kind, self._frame_index()), None)
            self.log.row(row)
            self.res.rows.append(row)
            self.res.outcome = row["outcome"]
            return
        self.log.row(row)
        self.res.rows.append(row)
        if "undo" in row:
            self.phraser.undo()
            self.summary.undo()
            self._say(Prompt.of("status", row["message"], row.get("frame")), None)
            return
        self.summary.add(row)
        for p in self.phraser.for_row(row):
            self._say(p, row.get("time"))

    def _warn(self, text: str) -> None:
        if text not in self.res.warnings:
            self.res.warnings.append(text)
            print(f"warning: {text}", file=sys.stderr, flush=True)

    def _frame_index(self) -> int | None:
        return int(self.frame.index) if self.frame is not None else None

    def _status_text(self) -> str | None:
        parts = []
        if self.cfg.notice:
            parts.append(self.cfg.notice)
        if self.camera_status:
            parts.append(self.camera_status)
        if self.paused:
            parts.append("PAUSED (space to go on)")
        if getattr(self.speaker, "muted", False):
            parts.append("muted")
        return " | ".join(parts) if parts else None

    def on_source_status(self, state: str, message: str) -> None:
        """A live source's state changed (camera unplugged, back): say so, log it, show it."""
        self.camera_status = None if state == "open" else "camera lost: reconnecting..."
        self.log.status(self._frame_index(), f"camera {state}", message)
        self._print(f"          [{message}]")
        if self.frame is not None and self.ui is not None:
            self._show(self.frame)

    def pump(self, seconds: float) -> None:
        """Sleep for a live source's reconnect backoff while keeping the window alive (q still quits)."""
        keys = self.ui.wait(seconds) if self.ui is not None else []
        if not getattr(self.ui, "window", False):
            time.sleep(seconds)
        if "q" in keys:
            raise _Quit()

    # -- drawing -----------------------------------------------------------------------------------
    def render(self, frame: Frame) -> np.ndarray:
        from ..prompts.overlay import OverlayAnnotator

        st = overlay_state(self.tracker, self.message, flag=self.flag, status=self._status_text(),
                           result=self.result_text)
        if st is None:
            text = "Looking for the 13 face-down piles..."
            if self._status_text():
                text = f"{text}  [{self._status_text()}]"
            return _banner(frame.image, text)
        if not hasattr(self, "_annotator"):
            self._annotator = OverlayAnnotator()
        return self._annotator.annotate(frame.image, st)

    def _show(self, frame: Frame) -> None:
        if self.ui is not None:
            self.ui.show(self.render(frame))

    # -- keys --------------------------------------------------------------------------------------
    def _key(self, key: str, frame: Frame) -> None:
        idx = int(frame.index)
        if key == "q":
            raise _Quit()
        if key == "space":
            self.paused = not self.paused
            act = "pause" if self.paused else "resume"
            self.log.row({"frame": idx, "action": act})
            self._print(f"          [{'paused' if self.paused else 'going on'}]")
        elif key == "u":
            row = self.tracker.undo()
            if row is None:
                self._say(Prompt.of("status", "Nothing to undo.", idx), None)
            else:
                row["action"] = "undo"
                self._row(row)
        elif key == "r":
            how = self.tracker.recalibrate(frame)
            lay = self.tracker.layout
            self.log.row({"frame": idx, "action": "recalibrate", "message": how,
                          "layout": lay.to_json() if lay is not None else None})
            self._say(Prompt.of("status", f"Recalibrated: {how}.", idx), None)
        elif key == "m":
            muted = self.speaker.toggle_mute()
            self.log.row({"frame": idx, "action": "mute" if muted else "unmute"})
            self._print(f"          [{'muted' if muted else 'speech on'}]")
        elif key == "h":
            p = self.phraser.hint(self.tracker.next_pile)
            self._say(Prompt(p.text, p.priority, p.kind, idx), None)

    def _replay_action(self, row: dict[str, Any], frame: Frame) -> None:
        act = row.get("action")
        if act == "undo":
            r = self.tracker.undo()
            if r is not None:
                self._row(r)
        elif act == "recalibrate":
            self.tracker.recalibrate(frame)
        elif act == "pause":
            self.paused = True
        elif act == "resume":
            self.paused = False

    # -- the loop ----------------------------------------------------------------------------------
    def _frames(self) -> Any:
        for fr in self.source:
            if self._frame_offset:
                fr = Frame(fr.index + self._frame_offset, fr.time_s + self._time_offset, fr.image)
            yield fr

    def _layout_found(self, before: Layout | None) -> None:
        lay = self.tracker.layout
        if lay is not None and before is None and not self.catching_up:
            self.log.row({"frame": self._frame_index(), "action": "layout", "layout": lay.to_json()})

    @property
    def catching_up(self) -> bool:
        return self.frame is not None and int(self.frame.index) <= self._live_from

    def run(self) -> PlayResult:
        cfg = self.cfg
        if cfg.notice and self.resume is None:
            self._print(f"          [{cfg.notice}]")
        if self.resume is not None:
            how = "restored from the log" if cfg.live else f"following the source again up to frame {self._live_from}"
            self._print(f"          [resuming: {len(self.resume.observations)} rows in the log; {how}]")
        if self.resume is None or cfg.live:
            first = self.phraser.hint(self.tracker.next_pile)
            self.message = first.text
        spf = 1.0 / (cfg.fps or 30.0)
        was_catching = self._live_from >= 0
        try:
            for frame in self._frames():
                t_start = time.perf_counter()
                self.frame = frame
                idx = int(frame.index)
                catching = idx <= self._live_from
                if was_catching and not catching:
                    self._switch_to_live()
                    was_catching = False
                if not self.paused:  # paused: frames go by unwatched (a window on a file source waits instead)
                    before = self.tracker.layout
                    for row in self.tracker.step(frame):
                        self._row(row)
                    self._layout_found(before)
                if catching:
                    for act in self._actions.get(idx, []):
                        self._replay_action(act, frame)
                    self.res.caught_up += 1
                    if self.tracker.done:
                        break
                    continue
                for k in cfg.keys.get(idx, []):
                    self._key(k, frame)
                self._show(frame)
                self.res.frames += 1
                elapsed = time.perf_counter() - t_start
                self.res.max_step_s = max(self.res.max_step_s, elapsed)
                wait = max(0.0, spf - elapsed) if (cfg.realtime and not cfg.live) else 0.0
                for k in self.ui.keys(wait) if self.ui is not None else []:
                    self._key(k, frame)
                paused_at = time.monotonic()
                while self.paused and not cfg.live and getattr(self.ui, "window", False):
                    self._show(frame)  # a file source waits while paused (a camera goes on, unwatched)
                    for k in self.ui.keys(0.05):
                        self._key(k, frame)
                    if self.paused and time.monotonic() - paused_at > 0.2 and idx + 1 in cfg.keys:
                        for k in cfg.keys.pop(idx + 1):  # a key script goes on with the next frame's keys
                            self._key(k, frame)
                if self.tracker.done:
                    break
            if was_catching:
                self._switch_to_live()
            self._finish(end_of_source=True)
        except _Quit:
            self._print("          [quit: the game can be resumed with --resume]")
            self._finish(end_of_source=False)
            self.res.quit = True
        except KeyboardInterrupt:
            self._print("          [interrupted: the game can be resumed with --resume]")
            self._finish(end_of_source=False)
            self.res.quit = True
        except SourceDisconnected:
            self._finish(end_of_source=False)
            raise
        return self.res

    def _switch_to_live(self) -> None:
        """The catch-up reached the log's last frame: check the referee against the log's rows."""
        self._live_from = -1
        ref = Referee(self.cfg.variant)
        last = replay_rows(ref, self._logged_obs)
        got = [(v.event.to_list(), v.code) for v in self.tracker.ref.verdicts]
        want = [(v.event.to_list(), v.code) for v in ref.verdicts]
        if got != want:
            self._warn("the game followed again differs from the log: going on from the log's state")
            self.tracker.ref = ref
            self.tracker.last_card = last
            self._skip_obs = self._obs_seen
        self._print(f"          [caught up at frame {self._frame_index()}: going on]")

    def _finish(self, end_of_source: bool) -> None:
        try:
            rows = self.tracker.finish(end_of_source=end_of_source)
        except Exception:  # the layout was never found: nothing to conclude
            if self.res.outcome is None:
                row = {"outcome": "unfinished", "state": {"frames": self.res.frames, "layout": None}}
                self._row(row)
            raise
        for row in rows:
            self._row(row)
        if self.res.summary_text:
            self._print("")
            self._print(self.res.summary_text)
        if self.frame is not None:
            img = self.render(self.frame)
            if getattr(self.ui, "window", False):
                self.ui.show(img)
                end = time.monotonic() + self.cfg.hold_s
                while time.monotonic() < end:
                    if self.ui.keys(0.1):
                        break
            elif self.ui is not None:
                for _ in range(self.cfg.tail_frames):
                    self.ui.show(img)
