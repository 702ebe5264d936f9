"""`companion replay LOG`: a session played back on the overlay, with its transcript.

The game state is rebuilt row by row from the log (the referee replays the judged rows, undos pop
them), the overlay shows it over the source's own frames when the source was a video that still
exists, else over a plain table (each moment of the game held for a short while). In a window, or
(no display, or ``--out``) written to an annotated video.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterator, TextIO

import numpy as np

from ..cards import Card
from ..prompts.session_log import LogError, read_log
from ..rules.referee import Referee
from ..track import GameTracker
from ..vision.layout import Layout, LayoutError
from .session import overlay_state
from .ui import NoWindow, UIError, VideoUI, WindowUI, has_display

__all__ = ["replay", "ReplayError", "default_layout"]


class ReplayError(Exception):
    """A log that cannot be replayed (one line)."""


def default_layout(size: tuple[int, int] = (640, 360)) -> Layout:
    """A clock of 13 piles filling the frame (for a log without a layout)."""
    w, h = size
    r = 0.38 * h
    c = np.array([w / 2, h / 2])
    centres = [c + r * np.array([np.sin(k * np.pi / 6), -np.cos(k * np.pi / 6)]) for k in range(1, 13)] + [c]
    outward = [np.array([np.sin(k * np.pi / 6), -np.cos(k * np.pi / 6)]) for k in range(1, 13)] + [np.array([0.0, 1.0])]
    return Layout((w, h), np.array(centres), np.array(outward), card_h=0.16 * h, card_w=0.11 * h, method="manual")


def _table(size: tuple[int, int]) -> np.ndarray:
    w, h = size
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = (60, 100, 40)  # felt green (BGR)
    yy = np.linspace(-1, 1, h)[:, None]
    xx = np.linspace(-1, 1, w)[None, :]
    shade = (1.0 - 0.25 * (xx ** 2 + yy ** 2))[..., None]
    return np.clip(img * shade, 0, 255).astype(np.uint8)


def _video_frames(path: str) -> Iterator[Any] | None:
    from ..vision.sources import SourceError, open_source

    try:
        src = open_source(path)
    except SourceError:
        return None

    def gen() -> Iterator[Any]:
        with src:
            yield from src
    return gen()


def replay(log_path: Path | str, *, out: Path | str | None = None, headless: bool = False, speed: float = 1.0,
           stream: TextIO | None = None, hold_frames: int = 20) -> dict[str, Any]:
    """Play ``log_path`` back; returns ``{"frames", "prompts", "outcome", "video", "background"}``."""
    stream = stream if stream is not None else sys.stdout
    try:
        log = read_log(log_path)
    except LogError as exc:
        raise ReplayError(str(exc)) from None
    head = log.header
    lay_json = head.get("layout")
    for r in log.rows:
        if not lay_json and isinstance(r.get("layout"), dict):
            lay_json = r["layout"]
    try:
        layout = Layout.from_json(lay_json, where=str(log_path)) if lay_json else default_layout()
    except LayoutError as exc:
        raise ReplayError(str(exc)) from None
    src = head.get("source") or {}
    frames = None
    if src.get("kind") == "video" and Path(str(src.get("video"))).exists():
        frames = _video_frames(str(src["video"]))
    background = "source video" if frames is not None else "plain table"
    window = not headless and out is None and has_display()
    fps = 30.0
    try:
        try:
            ui: Any = WindowUI("companion replay") if window else None
        except NoWindow as exc:
            print(f"note: {exc}; writing a video instead", file=sys.stderr)
            window, ui = False, None
        if ui is None:
            ui = VideoUI(Path(out) if out is not None else Path(log_path).with_suffix(".replay.mp4"), fps)
    except UIError as exc:
        raise ReplayError(str(exc)) from None
    if not window:
        print(f"replay video: {ui.path}", file=sys.stderr, flush=True)

    ref = Referee(head.get("variant") or "standard")
    gt = GameTracker(lambda f: None, layout=layout, referee=ref)
    state = {"message": "", "flag": False, "result": None, "t": None}
    n_prompts = 0

    def apply(row: dict[str, Any]) -> None:
        nonlocal n_prompts
        if "undo" in row:
            try:
                gt.ref.pop()
            except Exception:  # noqa: BLE001 - a log that undid more than it judged
                pass
        elif "event" in row:
            if isinstance(row.get("time"), (int, float)):
                state["t"] = float(row["time"])
            if row.get("verdict") != "ask":
                try:
                    gt.ref.observe(row["event"])
                except Exception:  # noqa: BLE001 - keep replaying a damaged log
                    pass
                ev = row["event"]
                if ev and ev[0] == "see" and row.get("verdict") != "DUPLICATE_CARD":
                    gt.last_card = Card.parse(ev[1])
        elif "prompt" in row:
            n_prompts += 1
            state["message"] = row["prompt"]
            state["flag"] = row.get("kind") == "alert"
            if row.get("kind") == "result":
                state["result"] = row["prompt"]
            t = state["t"]
            when = f"{t:7.2f}s" if t is not None else "        "
            print(f"{when} {'!' if row.get('kind') == 'alert' else ' '} {row['prompt']}", file=stream, flush=True)
        elif "summary" in row:
            pass
        elif "resume" in row:
            print("          [resumed here]", file=stream, flush=True)

    def draw(image: np.ndarray) -> np.ndarray:
        from ..prompts.overlay import OverlayAnnotator

        st = overlay_state(gt, str(state["message"]), flag=bool(state["flag"]), status="replay",
                           result=state["result"])  # type: ignore[arg-type]
        return OverlayAnnotator().annotate(image, st)

    rows = [r for r in log.rows if "session" not in r]
    shown = 0
    quit_ = False
    wait = 1.0 / (fps * speed)

    def show(img: np.ndarray, seconds: float) -> bool:
        nonlocal shown
        ui.show(img)
        shown += 1
        if window:
            return "q" in ui.keys(seconds)
        return False

    last_image = _table(layout.image_size)
    try:
        if frames is not None:
            i = 0
            for fr in frames:
                last_image = fr.image
                while i < len(rows) and (not isinstance(rows[i].get("frame"), int) or rows[i]["frame"] <= fr.index):
                    apply(rows[i])
                    i += 1
                if show(draw(fr.image), wait):
                    quit_ = True
                    break
            while i < len(rows):
                apply(rows[i])
                i += 1
        else:
            table = _table(layout.image_size)
            i = 0
            while i < len(rows) and not quit_:
                f = rows[i].get("frame")
                while i < len(rows) and rows[i].get("frame") == f:
                    apply(rows[i])
                    i += 1
                img = draw(table)
                for _ in range(hold_frames):
                    if show(img, wait):
                        quit_ = True
                        break
        if not quit_ and not window:
            img = draw(last_image)
            for _ in range(int(fps * 2)):
                show(img, 0)
        elif window and not quit_:
            ui.keys(3.0)
    finally:
        ui.close()
    return {"frames": shown, "prompts": n_prompts, "outcome": log.outcome, "background": background,
            "video": None if window else str(ui.path)}
