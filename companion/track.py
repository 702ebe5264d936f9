"""Follow a whole game from camera frames: source -> watcher -> referee, one JSON line per observation.

:func:`track` reads frames from a :class:`~companion.vision.sources.FrameSource`, finds the layout
(given, or ``auto``: from the recogniser's face-down detections of the first frames), feeds every
frame to the :class:`~companion.vision.watcher.Watcher` with the game state it needs (the face-up
cards and the pile play is at, from the :class:`~companion.rules.referee.Referee`), judges every
observation with the referee and reports it::

    {"frame": N, "time": SECONDS, "event": [...], "verdict": "ok" | FLAG | "ask", "message": "...",
     "next_pile": P}

and at the end ``{"outcome": {"won", "face_up", "last_card"}}`` or ``{"outcome": "unfinished", ...}``.
The camera cannot hear a spoken "declare": once the fourth king is put down (and, in the Watch
variant, no exchange is possible or the source ended) the tracker adds ``["declare", "win"|"loss"]``
as the recordings' truth does, then the outcome.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import cv2
import numpy as np

from .cards import Card
from .rules.referee import Referee
from .vision.detections import Detections
from .vision.layout import Layout, LayoutError, LayoutTracker, layout_from_detections
from .vision.motion import MotionGate
from .vision.watcher import GameView, Observation, Watcher, WatcherParams

__all__ = ["TrackResult", "track", "load_layout", "TrackError", "auto_layout"]


class TrackError(ValueError):
    """Bad input for tracking (one-line message)."""


def load_layout(path: str | Path) -> Layout:
    """A layout file; a :class:`LayoutError` with one line when it does not parse."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise LayoutError(f"cannot read layout file {p}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LayoutError(f"{p}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return Layout.from_json(data, where=str(p))


@dataclass
class TrackResult:
    lines: list[dict[str, Any]] = field(default_factory=list)
    outcome: Any = None
    frames: int = 0
    skipped: int = 0
    recognitions: int = 0
    seconds: float = 0.0
    layout: Layout | None = None
    asks: int = 0
    reregistrations: int = 0

    def events(self) -> list[dict[str, Any]]:
        return [ln for ln in self.lines if "event" in ln]


def auto_layout(frames: Iterable[Any], recognise: Callable[[Any], Detections], *, tries: int = 6,
                twelve_at: str = "top") -> tuple[Layout, Any]:
    """The layout from the first frames where the recogniser finds the 13 face-down piles."""
    last_error: LayoutError | None = None
    for k, frame in enumerate(frames):
        if k >= tries:
            break
        dets = recognise(frame)
        try:
            return layout_from_detections(dets, frame.size, twelve_at), frame
        except LayoutError as exc:
            last_error = exc
    raise last_error or LayoutError("the source gave no frames to find the layout in")


def _view(ref: Referee) -> GameView:
    face_up = set(ref.face_up_cards)
    if ref.card_in_hand is not None:
        face_up.add(ref.card_in_hand)
    out = ref.outcome()
    king = Card.parse(out["last_card"]) if out and out.get("last_card") else None
    return GameView(frozenset(face_up), ref.next_pile, ref.can_exchange(), king, ref.face_down_counts)


def track(source: Any, recognise: Callable[[Any], Detections], *, layout: Layout | None = None,
          variant: str = "standard", params: WatcherParams | None = None,
          emit: Callable[[dict[str, Any]], None] | None = None, progress: Callable[[int], None] | None = None,
          reregister: bool = True, layout_tries: int = 6, max_frames: int | None = None,
          twelve_at: str = "top") -> TrackResult:
    """Follow the game in ``source`` (an iterable of frames). ``emit`` gets each output line as it is made."""
    t0 = time.perf_counter()
    res = TrackResult()
    ref = Referee(variant)
    emit = emit or (lambda line: None)

    def out(line: dict[str, Any]) -> None:
        res.lines.append(line)
        emit(line)

    it = iter(source)
    buffered: list[Any] = []
    if layout is None:
        # auto: the first frames (a settled one first: the motion gate needs a few)
        def first_frames() -> Iterable[Any]:
            gate = MotionGate()
            k = 0
            for fr in it:
                buffered.append(fr)
                gate.update(fr.image)
                k += 1
                if k == 1 or gate.just_settled or k % 15 == 0:
                    yield fr
                if k > 150:
                    return
        layout, _ = auto_layout(first_frames(), recognise, tries=layout_tries, twelve_at=twelve_at)
    res.layout = layout
    watcher = Watcher(layout, recognise, params)
    tracker: LayoutTracker | None = None
    over_at: int | None = None
    last_frame = None

    def frames() -> Iterable[Any]:
        yield from buffered
        yield from it

    for frame in frames():
        if max_frames is not None and res.frames >= max_frames:
            break
        last_frame = frame
        res.frames += 1
        if progress:
            progress(1)
        img = frame.image
        if (img.shape[1], img.shape[0]) != watcher.layout.image_size:
            watcher.set_layout(watcher.layout.resized((img.shape[1], img.shape[0])))
        obs = watcher.update(frame, _view(ref))
        if reregister and watcher.gate.just_settled:
            if tracker is None:
                tracker = LayoutTracker(img, watcher.layout)
            else:
                moved = _reregister(tracker, watcher, frame)
                if moved is not None:
                    watcher.set_layout(moved)
                    tracker = LayoutTracker(img, moved)
                    res.reregistrations += 1
        for ob in obs:
            _judge(ref, ob, out, res)
        if ref.is_over() and ref.card_in_hand is None and not ref.can_exchange():
            over_at = frame.index  # the fourth king is down: the end (a Watch exchange would come first)
            break
    if last_frame is not None and not ref.is_over():
        for ob in watcher.finish(int(last_frame.index), float(last_frame.time_s)):
            _judge(ref, ob, out, res)
    res.recognitions = watcher.recognitions
    res.skipped = int(getattr(source, "skipped", 0) or 0)
    if ref.is_over():
        outcome = ref.outcome()
        assert outcome is not None
        t = float(last_frame.time_s) if last_frame is not None else 0.0
        idx = int(last_frame.index) if last_frame is not None else 0
        ob = Observation(idx, t, ["declare", "win" if outcome["won"] else "loss"], None, "the game is over")
        _judge(ref, ob, out, res)
        res.outcome = outcome
        out({"outcome": outcome})
    else:
        state = {
            "face_up": ref.face_up_count,
            "face_down": ref.face_down_counts,
            "next_pile": ref.next_pile,
            "card_in_hand": str(ref.card_in_hand) if ref.card_in_hand else None,
            "pending_corrections": [str(c) for c in ref.pending_corrections],
            "frames": res.frames,
        }
        res.outcome = "unfinished"
        out({"outcome": "unfinished", "state": state})
    res.seconds = time.perf_counter() - t0
    _ = over_at
    return res


def _reregister(tracker: LayoutTracker, watcher: Watcher, frame: Any) -> Layout | None:
    """The moved layout when the view moved since the tracker's reference frame, else None. A move
    must also fit the face-down stacks the recogniser sees better than the current layout (a hand
    resting over the table can fool the feature matching)."""
    M = tracker.estimate(frame.image)
    if M is None:
        return None
    lay = watcher.layout
    c = lay.centres
    moved_c = cv2.perspectiveTransform(c.reshape(-1, 1, 2), M).reshape(-1, 2)
    if float(np.linalg.norm(moved_c - c, axis=1).max()) < tracker.threshold:
        return None
    new = lay.transformed(M)
    dets = watcher.recognise(frame)
    if watcher.stacks_matched(new, dets) <= watcher.stacks_matched(lay, dets):
        return None
    return new


def _judge(ref: Referee, ob: Observation, out: Callable[[dict[str, Any]], None], res: TrackResult) -> None:
    line: dict[str, Any] = {"frame": ob.frame, "time": round(ob.time_s, 3), "event": ob.event}
    if ob.is_ask:
        res.asks += 1
        pile = ob.event[1] if len(ob.event) > 1 else None
        where = "" if pile is None else (" at the centre" if pile == 13 else f" at {pile} o'clock")
        line.update({"verdict": "ask", "message": f"I cannot read the card{where}: please show me its corner.",
                     "next_pile": ref.next_pile})
    else:
        v = ref.observe(ob.event)
        line.update({"verdict": v.code, "message": v.message, "next_pile": v.next_pile})
    if ob.confidence is not None:
        line["confidence"] = ob.confidence
    out(line)


def _jsonable(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    return x


# ---------------------------------------------------------------------------------------------------
# recognisers: the trained models, or the oracle stand-in for rendered games
# ---------------------------------------------------------------------------------------------------
def oracle_for_source(source: Any, spec: str) -> Callable[[Any], Detections]:
    """The oracle recogniser for a rendered game: a ``demo:SEED`` source, or a video with the recording's
    ``truth.json`` beside it (the game is planned again from the truth and checked against it)."""
    from .vision.oracle import OracleRecogniser

    director = getattr(source, "director", None)
    if director is not None:
        return OracleRecogniser(source.scene, director.frames)
    path = Path(spec)
    truth_path = path.with_name("truth.json") if path.is_file() else path / "truth.json"
    if not truth_path.exists():
        raise TrackError(f"the oracle recogniser needs a rendered game: demo:SEED, or a video with its truth.json "
                         f"beside it (no {truth_path})")
    try:
        truth = json.loads(truth_path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise TrackError(f"cannot read {truth_path}: {exc}") from None
    scene, d = rebuild_recording(truth)
    return OracleRecogniser(scene, d.frames)


def rebuild_recording(truth: dict[str, Any]) -> tuple[Any, Any]:
    """Plan a recorded game again from its truth (seed, deck, variant, size, fps, mistakes, length)."""
    from .synth import record

    w, h = truth["resolution"]
    kw: dict[str, Any] = dict(deck=truth.get("deck", "builtin"), variant=truth.get("variant", "standard"),
                              mistakes=len(truth.get("mistakes", [])), resolution=(int(w), int(h)),
                              fps=int(truth.get("fps", 30)))
    n_moves = len(truth.get("moves", []))
    tries: list[dict[str, Any]] = []
    max_moves = None if not truth.get("truncated") else n_moves
    tilt = (truth.get("camera") or {}).get("tilt_deg")
    ex = truth.get("exchange")
    for t in (None, tilt):
        for mm in ({max_moves, n_moves + (1 if ex else 0)} if max_moves else {None}):
            tries.append(dict(kw, tilt=t, max_moves=mm))
    want = [e["event"] for e in truth.get("events", [])]
    for k in tries:
        try:
            scene, d = record.build(int(truth["seed"]), **k)
        except (record.RenderError, ValueError):
            continue
        if [e["event"] for e in d.events] == want and len(d.frames) == truth.get("frame_count", len(d.frames)):
            return scene, d
    raise TrackError("cannot plan this recording again from its truth.json (made with other options?)")
