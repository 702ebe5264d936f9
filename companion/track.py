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

:class:`GameTracker` is the same pipeline one frame at a time (``step(frame)``, ``finish()``), with
``undo()``, ``recalibrate(frame)``, the referee's state and a start from a restored referee
(:func:`replay_rows`), for the live companion (:mod:`companion.app`); :func:`track` wraps it.
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

__all__ = ["TrackResult", "track", "GameTracker", "replay_rows", "load_layout", "TrackError", "auto_layout"]


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
    # where the next card most likely comes from: after a card taken from a wrong pile and put beneath its
    # own, that pile (play goes on from it, or the take was misjudged: 9155 at 1080p, models, an AS judged
    # taken from 4 and put beneath 1; the next card, turned at 1, was judged taken from 3, where the rules
    # said play was, as nothing was seen of where it came from)
    expected = ref.play_on_pile or ref.next_pile
    # (at most: a pile counted empty that may still hold a card, its take misjudged, may have a card put on
    # top of it: 9155 at 1080p, models, an AH put on top of 1, counted empty after a take misjudged there,
    # was judged beneath and the WRONG_SIDE missed)
    return GameView(frozenset(face_up), expected, ref.can_exchange(), king, ref.face_down_at_most,
                    ref.card_in_hand)


def replay_rows(ref: Referee, rows: Iterable[dict[str, Any]]) -> Card | None:
    """Apply logged rows to a referee: every judged observation (``event`` rows other than ``ask``)
    is observed again and every ``undo`` row pops one; returns the last card read (or None)."""
    last: Card | None = None
    for row in rows:
        if "undo" in row:
            ref.pop()
        elif "event" in row and row.get("verdict") != "ask":
            ref.observe(row["event"])
            if row["event"] and row["event"][0] == "see" and row.get("verdict") != "DUPLICATE_CARD":
                last = Card.parse(row["event"][1])
    return last


class GameTracker:
    """The tracker, one frame at a time: ``step(frame)`` returns the output rows that frame completes,
    ``finish()`` the last ones (the declaration the camera cannot hear, then the outcome row).

    The layout is given, or found from the first frames (``layout=None``: frames are held back until
    the recogniser sees the 13 face-down piles, then all of them are followed). ``referee`` starts
    from a restored state (see :func:`replay_rows`, for a resumed session). ``undo()`` takes back the
    last judged observation (a misread); ``recalibrate(frame)`` finds the layout again.
    ``done`` is True once the fourth king is down (a Watch exchange would come first): later frames
    are ignored."""

    def __init__(self, recognise: Callable[[Any], Detections], *, layout: Layout | None = None,
                 variant: str = "standard", params: WatcherParams | None = None, reregister: bool = True,
                 layout_tries: int = 6, twelve_at: str = "top", referee: Referee | None = None,
                 last_card: Card | None = None,
                 zoom: Callable[[Any, tuple[int, int, int, int]], Detections] | None = None,
                 zoom_hand: bool = True) -> None:
        self.recognise = recognise
        self.zoom = zoom
        self.zoom_hand = zoom_hand
        self.ref = referee if referee is not None else Referee(variant)
        self.variant = self.ref.variant
        self.params = params
        self.reregister = reregister
        self.layout_tries = layout_tries
        self.twelve_at = twelve_at
        self.result = TrackResult()
        self.watcher: Watcher | None = None
        self._tracker: LayoutTracker | None = None
        self._buffer: list[Any] = []  # frames held back while the layout is looked for
        self._gate: MotionGate | None = None
        self._tries = 0
        self._seen = 0
        self._layout_error: LayoutError | None = None
        self.last_frame: Any = None
        self.last_card = last_card
        self.done = False
        self.finished = False
        self._restored = referee is not None and bool(referee.verdicts)  # the table is learnt on the first frame
        self._t0 = time.perf_counter()
        if layout is not None:
            self._start(layout)

    # -- state ------------------------------------------------------------------------------------
    @property
    def referee(self) -> Referee:
        return self.ref

    @property
    def layout(self) -> Layout | None:
        return self.watcher.layout if self.watcher is not None else None

    @property
    def next_pile(self) -> int | None:
        return self.ref.next_pile

    def face_down_counts(self) -> list[int]:
        """Face-down cards left on piles 1..13."""
        d = self.ref.face_down_counts
        return [int(d[p]) for p in range(1, 14)]

    def face_up_counts(self) -> list[int]:
        """Face-up cards lying at piles 1..13 (beneath or, awaiting a correction, on top)."""
        n = [0] * 13
        for _, (pile, _side) in self.ref.face_up_cards.items():
            n[pile - 1] += 1
        return n

    # -- layout -----------------------------------------------------------------------------------
    def _start(self, layout: Layout) -> None:
        self.result.layout = layout
        self.watcher = Watcher(layout, self.recognise, self.params, zoom=self.zoom, zoom_hand=self.zoom_hand)
        self._tracker = None

    def _look_for_layout(self, frame: Any) -> list[dict[str, Any]]:
        """Auto layout: hold the frame back; try the recogniser on the first, the settled and every
        15th frame (at most ``layout_tries`` tries in the first 150 frames)."""
        self._buffer.append(frame)
        if self._gate is None:
            self._gate = MotionGate()
        self._gate.update(frame.image)
        self._seen += 1
        if self._seen > 150:
            raise self._layout_error or LayoutError("no layout found in the first 150 frames")
        if not (self._seen == 1 or self._gate.just_settled or self._seen % 15 == 0):
            return []
        if self._tries >= self.layout_tries:
            raise self._layout_error or LayoutError("no layout found")
        self._tries += 1
        try:
            layout = layout_from_detections(self.recognise(frame), frame.size, self.twelve_at)
        except LayoutError as exc:
            self._layout_error = exc
            return []
        self._start(layout)
        held, self._buffer = self._buffer, []
        rows: list[dict[str, Any]] = []
        for fr in held:
            rows += self._process(fr)
            if self.done:
                break
        return rows

    def recalibrate(self, frame: Any) -> str:
        """Find the layout again (the r key): from the face-down piles in this frame, else by
        matching this frame against the last settled one (the camera was moved). Returns what it did."""
        if self.watcher is None:
            return "the layout is not found yet"
        try:
            new = layout_from_detections(self.recognise(frame), frame.size, self.twelve_at)
            how = "found the 13 piles again"
        except LayoutError as exc:
            new = None
            how = str(exc)
            if self._tracker is not None:
                M = self._tracker.estimate(frame.image)
                if M is not None:
                    new = self.watcher.layout.transformed(M)
                    how = "followed the camera's move"
        if new is None:
            return f"could not find the layout again ({how}); kept the old one"
        self.watcher.set_layout(new)
        self._tracker = LayoutTracker(frame.image, new)
        self.result.layout = new
        self.result.reregistrations += 1
        return how

    # -- per frame --------------------------------------------------------------------------------
    def step(self, frame: Any) -> list[dict[str, Any]]:
        """Feed one frame; returns the rows it completes (usually none)."""
        if self.done or self.finished:
            return []
        if self.watcher is None:
            return self._look_for_layout(frame)
        return self._process(frame)

    def _process(self, frame: Any) -> list[dict[str, Any]]:
        watcher = self.watcher
        assert watcher is not None
        res, ref = self.result, self.ref
        rows: list[dict[str, Any]] = []
        self.last_frame = frame
        res.frames += 1
        img = frame.image
        if (img.shape[1], img.shape[0]) != watcher.layout.image_size:
            watcher.set_layout(watcher.layout.resized((img.shape[1], img.shape[0])))
        if self._restored:  # a restored game: what the referee knows lies face up, and in the hand
            self._restored = False
            watcher.restore(self.ref.face_up_cards, self.ref.card_in_hand, self.ref.hand_source)
        obs = watcher.update(frame, _view(ref))
        if self.reregister and watcher.gate.just_settled:
            if self._tracker is None:
                self._tracker = LayoutTracker(img, watcher.layout)
            else:
                moved = _reregister(self._tracker, watcher, frame)
                if moved is not None:
                    watcher.set_layout(moved)
                    self._tracker = LayoutTracker(img, moved)
                    res.reregistrations += 1
        for ob in obs:
            _judge(ref, ob, self._out(rows), res)
        if ref.is_over() and ref.card_in_hand is None and not ref.can_exchange():
            self.done = True  # the fourth king is down: the end (a Watch exchange would come first)
        return rows

    def _out(self, rows: list[dict[str, Any]]) -> Callable[[dict[str, Any]], None]:
        def out(line: dict[str, Any]) -> None:
            ev = line.get("event")
            if ev and ev[0] == "see" and line.get("verdict") not in ("ask", "DUPLICATE_CARD"):
                try:
                    self.last_card = Card.parse(ev[1])
                except ValueError:
                    pass
            self.result.lines.append(line)
            rows.append(line)
        return out

    def undo(self) -> dict[str, Any] | None:
        """Take back the last judged observation (the u key: a misread); the row to log, or None."""
        if not self.ref.verdicts:
            return None
        v = self.ref.pop()
        self.done = False
        self.last_card = None
        for r in reversed(self.ref.verdicts):
            if r.event.kind == "see" and r.code != "DUPLICATE_CARD":
                self.last_card = Card.parse(str(r.event.to_list()[1]))
                break
        fr = self.last_frame
        row = {"frame": int(fr.index) if fr is not None else 0, "undo": v.event.to_list(), "verdict": v.code,
               "message": "Undone: " + v.message, "next_pile": self.ref.next_pile}
        self.result.lines.append(row)
        return row

    def finish(self, end_of_source: bool = True) -> list[dict[str, Any]]:
        """At the end of the source (or on quit: ``end_of_source=False``, a card still in the hand is
        left there): the last rows, ending with the outcome row. Raises :class:`LayoutError` when the
        layout was never found."""
        if self.finished:
            return []
        if self.watcher is None:
            raise self._layout_error or LayoutError("the source gave no frames to find the layout in")
        self.finished = True
        res, ref = self.result, self.ref
        rows: list[dict[str, Any]] = []
        out = self._out(rows)
        last_frame = self.last_frame
        if end_of_source and last_frame is not None and not ref.is_over():
            for ob in self.watcher.finish(int(last_frame.index), float(last_frame.time_s)):
                _judge(ref, ob, out, res)
        res.recognitions = self.watcher.recognitions
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
            res.outcome = "unfinished"
            out({"outcome": "unfinished", "state": self.state()})
        res.seconds = time.perf_counter() - self._t0
        return rows

    def state(self) -> dict[str, Any]:
        ref = self.ref
        return {
            "face_up": ref.face_up_count,
            "face_down": ref.face_down_counts,
            "next_pile": ref.next_pile,
            "card_in_hand": str(ref.card_in_hand) if ref.card_in_hand else None,
            # null: a card put back face down on the wrong pile before it was read (see Referee.pending_corrections)
            "pending_corrections": [str(c) if c is not None else None for c in ref.pending_corrections],
            "frames": self.result.frames,
        }


def track(source: Any, recognise: Callable[[Any], Detections], *, layout: Layout | None = None,
          variant: str = "standard", params: WatcherParams | None = None,
          emit: Callable[[dict[str, Any]], None] | None = None, progress: Callable[[int], None] | None = None,
          reregister: bool = True, layout_tries: int = 6, max_frames: int | None = None,
          twelve_at: str = "top",
          zoom: Callable[[Any, tuple[int, int, int, int]], Detections] | None = None,
          zoom_hand: bool = True) -> TrackResult:
    """Follow the game in ``source`` (an iterable of frames). ``emit`` gets each output line as it is made;
    ``zoom`` reads a part of a frame (see :class:`~companion.vision.watcher.Watcher`)."""
    gt = GameTracker(recognise, layout=layout, variant=variant, params=params, reregister=reregister,
                     layout_tries=layout_tries, twelve_at=twelve_at, zoom=zoom, zoom_hand=zoom_hand)
    emit = emit or (lambda line: None)
    n = 0
    for frame in source:
        if max_frames is not None and n >= max_frames:
            break
        n += 1
        if progress:
            progress(1)
        for row in gt.step(frame):
            emit(row)
        if gt.done:
            break
    for row in gt.finish():
        emit(row)
    res = gt.result
    res.skipped = int(getattr(source, "skipped", 0) or 0)
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


# ---------------------------------------------------------------------------------------------------
# recognisers: the trained models, or the oracle stand-in for rendered games
# ---------------------------------------------------------------------------------------------------
def truth_path(spec: str) -> Path:
    """Where a recording's ``truth.json`` lies: beside a video file, or inside a folder of images."""
    path = Path(spec)
    return path.with_name("truth.json") if path.is_file() else path / "truth.json"


def is_rendered_game(source: Any, spec: str) -> bool:
    """A game the renderer made, which the oracle can read: a demo source, or a video with its
    ``truth.json`` beside it."""
    return getattr(source, "director", None) is not None or truth_path(spec).exists()


def oracle_for_source(source: Any, spec: str) -> Callable[[Any], Detections]:
    """The oracle recogniser for a rendered game: a ``demo:SEED`` source, or a video with the recording's
    ``truth.json`` beside it (the game is planned again from the truth and checked against it)."""
    from .vision.oracle import OracleRecogniser

    director = getattr(source, "director", None)
    if director is not None:
        return OracleRecogniser(source.scene, director.frames)
    where = truth_path(spec)
    if not where.exists():
        raise TrackError(f"the oracle recogniser needs a rendered game: demo:SEED, or a video with its truth.json "
                         f"beside it (no {where})")
    try:
        truth = json.loads(where.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise TrackError(f"cannot read {where}: {exc}") from None
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
