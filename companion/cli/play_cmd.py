"""`companion play` and `companion replay`: the live companion and playing a session log back."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer

from ._app import app, fail, parse_resolution


@app.command("play")
def play_cmd(
    seed: Optional[int] = typer.Argument(None, metavar="[SEED]", help="with --demo: the game to render"),
    camera: Optional[int] = typer.Option(None, "--camera", metavar="N", help="a webcam (0 is the first)"),
    video: Optional[str] = typer.Option(None, "--video", metavar="PATH", help="a video file or a folder of images"),
    demo: bool = typer.Option(False, "--demo", help="a rendered game with mistakes (seed: the argument)"),
    layout: Optional[str] = typer.Option(None, "--layout", metavar="FILE|auto",
                                         help="a layout file from `companion calibrate`, or auto (from the first "
                                              "frames; the default, except that --demo uses the renderer's)"),
    variant: Optional[str] = typer.Option(None, "--variant", help="standard (default) or watch"),
    voice: Optional[bool] = typer.Option(None, "--voice/--no-voice",
                                         help="speak the prompts (default: on with a window, off without)"),
    child: Optional[bool] = typer.Option(None, "--child/--adult", help="short friendly phrases for a child"),
    lang: Optional[str] = typer.Option(None, "--lang", help="language of the prompts (en)"),
    log: Optional[Path] = typer.Option(None, "--log", metavar="FILE",
                                       help="session log (default: a new file in ~/.local/share/companion/sessions)"),
    resume: Optional[Path] = typer.Option(None, "--resume", metavar="LOG",
                                          help="go on with the game of this session log (after a crash or a quit)"),
    out: Optional[Path] = typer.Option(None, "--out", metavar="VIDEO",
                                       help="write the annotated view to this .mp4 (headless default: beside the log)"),
    recogniser: str = typer.Option("auto", "--recogniser",
                                   help="auto (the oracle for rendered games, else the models), models, oracle"),
    models: Optional[Path] = typer.Option(None, "--models", help="folder with the ONNX models and manifest"),
    headless: bool = typer.Option(False, "--headless", help="no window even where there is a display"),
    mistakes: int = typer.Option(3, "--mistakes", help="with --demo: mistakes the rendered player makes"),
    resolution: str = typer.Option("640x360", "--resolution", help="with --demo: frame size, WxH"),
    max_moves: Optional[int] = typer.Option(None, "--max-moves", hidden=True, help="with --demo: stop after N moves"),
    keys: Optional[str] = typer.Option(None, "--keys", hidden=True, help="scripted keys FRAME:KEY,... (tests)"),
    hold: Optional[float] = typer.Option(None, "--hold", hidden=True, help="window: seconds the result stays up"),
    realtime: Optional[bool] = typer.Option(None, "--realtime/--fast", hidden=True,
                                            help="pace a file at its frame rate (default: with a window)"),
    reconnect_timeout: float = typer.Option(120.0, "--reconnect-timeout", hidden=True,
                                            help="camera: seconds to wait for it to come back"),
) -> None:
    """Play with the companion: it watches the table, checks each card and says which pile is next.

    Keys in the window: q quit, space pause, u undo (a misread), r recalibrate, m mute, h hint.
    Without a display it writes an annotated video and prints the prompts."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import cv2

    from ..app.play import DEMO_SEED, AppError, PlayOptions, run_play
    from .track_cmd import make_recogniser

    cv2.setNumThreads(1)
    if seed is not None and not demo:
        fail(f"unexpected argument {seed}: a seed goes with --demo (companion play --demo {seed})")
    w, h = parse_resolution(resolution, "640x360", least=(160, 90))
    if not 0 <= mistakes <= 10:
        fail(f"--mistakes must be 0..10, got {mistakes}")
    if recogniser not in ("auto", "models", "oracle"):
        fail(f"--recogniser must be auto, models or oracle, got {recogniser!r}")
    if log is not None and resume is not None:
        fail("--log and --resume both name the log: give only --resume LOG to go on with a game")
    o = PlayOptions(camera=camera, video=video, demo=(DEMO_SEED if seed is None else seed) if demo else None,
                    layout=layout or "auto", layout_given=layout is not None, variant=variant, voice=voice,
                    child=child, lang=lang, log=log, resume=resume,
                    out=out, recogniser=recogniser, models=models, headless=headless, keys=keys, hold_s=hold,
                    realtime=realtime, demo_mistakes=mistakes, demo_resolution=(w, h), demo_max_moves=max_moves,
                    reconnect_timeout=reconnect_timeout)
    try:
        res = run_play(o, make_recogniser)
    except AppError as exc:
        fail(str(exc))
    if res.quit:
        print("quit before the end: go on later with `companion play --resume LOG`", file=sys.stderr)


@app.command("replay")
def replay_cmd(
    log: Path = typer.Argument(..., metavar="LOG", help="a session log from `companion play`"),
    out: Optional[Path] = typer.Option(None, "--out", metavar="VIDEO", help="write the replay to this .mp4"),
    headless: bool = typer.Option(False, "--headless", help="no window even where there is a display"),
    speed: float = typer.Option(1.0, "--speed", help="window: playback speed (2 = twice as fast)"),
) -> None:
    """Play a session back on the overlay (the source frames when the video still exists, else a plain
    table) and print the transcript."""
    from ..app.replay import ReplayError, replay

    if speed <= 0:
        fail(f"--speed must be positive, got {speed}")
    try:
        replay(log, out=out, headless=headless, speed=speed)
    except ReplayError as exc:
        fail(str(exc))
