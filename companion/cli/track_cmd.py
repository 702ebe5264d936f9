"""`companion track SOURCE`: follow a whole game from camera frames; one JSON line per observation."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from ._app import app, fail

RECOGNISERS = ("auto", "models", "oracle")


def make_recogniser(kind: str, models: Optional[Path], source: Any, spec: str) -> tuple[Any, str]:
    """(recognise(frame) -> Detections, what it is). ``auto``: the trained models when there are any,
    else the oracle for rendered games (a demo source or a recording with its truth.json)."""
    from ..track import TrackError, oracle_for_source
    from ..vision.models import ModelError

    if kind not in RECOGNISERS:
        fail(f"--recogniser must be one of {', '.join(RECOGNISERS)}, got {kind!r}")
    if kind in ("auto", "models"):
        try:
            from ..vision.recogniser import Recogniser

            rec = Recogniser(models)

            def recognise(frame: Any) -> Any:
                return rec(frame.image)

            recognise.zoom = lambda frame, box: rec.read_region(frame.image, box)  # type: ignore[attr-defined]
            return recognise, "models"
        except (ModelError, ValueError, OSError) as exc:
            if kind == "models":
                fail(f"cannot load the recogniser's models: {exc}")
            model_error = str(exc)
    try:
        return oracle_for_source(source, spec), "oracle"
    except TrackError as exc:
        if kind == "oracle":
            fail(str(exc))
        fail(f"the recogniser's models are missing ({model_error}); train them with `make train` "
             f"(the oracle stand-in only reads rendered games: {exc})")


@app.command("track")
def track_cmd(
    source: str = typer.Argument(..., metavar="SOURCE",
                                 help="camera index, video file, folder of images, stream URL or demo[:SEED]"),
    layout: str = typer.Option("auto", "--layout", metavar="FILE|auto",
                               help="a layout file from `companion calibrate`, or auto (from the first frames)"),
    variant: str = typer.Option("standard", "--variant", help="standard or watch"),
    as_json: bool = typer.Option(False, "--json", help="JSON lines only (no progress bar)"),
    twelve_at: str = typer.Option("top", "--twelve-at", help="auto layout: where 12 o'clock is (top, right, bottom, left)"),
    models: Optional[Path] = typer.Option(None, "--models", help="folder with the ONNX models and manifest"),
    recogniser: str = typer.Option("auto", "--recogniser",
                                   help="auto (the oracle for rendered games, else the models), models, or oracle "
                                        "(rendered games only: the renderer's true cards)"),
    zoom: Optional[bool] = typer.Option(None, "--zoom/--no-zoom",
                                        help="models: look again, closer, at a card in play the whole frame leaves "
                                             "unread (on by default since it read more cards with fewer false flags "
                                             "on rendered games: README); a card that seems to have been played "
                                             "unseen is looked for closer either way"),
) -> None:
    """Watch a game of Clock Patience: read each card, judge where it goes, say the next pile."""
    import os

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import cv2

    from ..progress import Progress
    from ..track import is_rendered_game, load_layout, track
    from ..vision.layout import LayoutError
    from ..vision.sources import SourceError, open_source

    cv2.setNumThreads(1)
    if variant not in ("standard", "watch"):
        fail(f"--variant must be standard or watch, got {variant!r}")
    lay = None
    if layout != "auto":
        try:
            lay = load_layout(layout)
        except LayoutError as exc:
            fail(str(exc))
    try:
        src = open_source(source)
    except SourceError as exc:
        fail(str(exc))
    if src.size_warning:
        print(f"note: {src.size_warning}", file=sys.stderr)
    if recogniser == "auto" and is_rendered_game(src, source):
        recogniser = "oracle"  # as `companion play` does: the trained models cannot follow a game yet
    recognise, kind = make_recogniser(recogniser, models, src, source)
    if kind == "oracle":
        print("note: reading cards from the renderer's truth (oracle), not the camera models "
              "(--recogniser models to try them)", file=sys.stderr)
        if zoom:
            print("note: --zoom applies to the models only; the oracle reads every card", file=sys.stderr)
    zoom = True if zoom is None else zoom
    if not as_json:
        print(f"tracking {source} ({kind} recogniser, {variant})", file=sys.stderr)
    total = None
    try:
        total = len(src)  # type: ignore[arg-type]
    except TypeError:
        total = getattr(src, "frame_count", None)
    bar = Progress(total, "track", force=None if not as_json else False)

    def emit(line: dict[str, Any]) -> None:
        if as_json:
            print(json.dumps(line), flush=True)
        else:
            print(_human(line), flush=True)

    try:
        with src:
            res = track(src, recognise, layout=lay, variant=variant, emit=emit, progress=bar.update,
                        twelve_at=twelve_at, zoom=getattr(recognise, "zoom", None), zoom_hand=zoom)
    except LayoutError as exc:
        bar.close()
        fail(f"no layout found: {exc} (or give one with --layout FILE from `companion calibrate`)")
    except SourceError as exc:
        bar.close()
        fail(str(exc))
    bar.close()
    if res.skipped:
        print(f"warning: {res.skipped} frame(s) could not be decoded and were skipped", file=sys.stderr)


def _human(line: dict[str, Any]) -> str:
    if "outcome" in line:
        o = line["outcome"]
        if o == "unfinished":
            st = line.get("state", {})
            return f"unfinished: {st.get('face_up')} card(s) face up, next pile {st.get('next_pile')}"
        return f"{'won' if o['won'] else 'lost'}: {o['face_up']} of 52 face up, last card {o['last_card']}"
    ev = " ".join(str(x) for x in line["event"])
    flag = "" if line["verdict"] == "ok" else f" [{line['verdict']}]"
    return f"{line['time']:7.2f}s  {ev:<22}{flag} {line['message']}"
