"""`companion render`: a synthetic video of a whole game with exact ground truth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ._app import app, fail


@app.command("render")
def render(
    seed: int = typer.Option(..., "--seed", help="everything (deal, table, camera, light, hand, mistakes) follows from it"),
    out: Path = typer.Option(..., "--out", help="folder for game.mp4 and truth.json"),
    deck: str = typer.Option("builtin", "--deck", help="a deck name (see `companion decks`) or folder:/path"),
    variant: str = typer.Option("standard", "--variant", help="standard or watch"),
    mistakes: int = typer.Option(0, "--mistakes", help="how many child's mistakes to inject (each corrected)"),
    resolution: str = typer.Option("1280x720", "--resolution", help="WIDTHxHEIGHT"),
    fps: int = typer.Option(30, "--fps", help="frames per second (5..120)"),
    tilt: Optional[float] = typer.Option(None, "--tilt", help="camera tilt from straight down, 0..35 degrees "
                                         "(default: chosen by the seed)"),
    max_moves: Optional[int] = typer.Option(None, "--max-moves", help="stop after this many cards (a short clip)"),
    workers: Optional[int] = typer.Option(None, "--workers", help="render processes (default: 2 when there are 2 cores)"),
    no_video: bool = typer.Option(False, "--no-video", help="write truth.json only"),
) -> None:
    """Render a seeded game as game.mp4 (mp4v) plus truth.json (deal, camera, moves, events, outcome)."""
    from ..synth.record import RenderError, _parse_resolution, record_game

    try:
        from ..synth.decks import DeckError, MissingPackageError, UnknownDeckError
    except ImportError:  # pragma: no cover
        DeckError = MissingPackageError = UnknownDeckError = LookupError  # type: ignore[misc,assignment]
    if mistakes < 0:
        fail(f"--mistakes must be 0 or more, got {mistakes}")
    if fps <= 0 or fps > 120 or fps < 5:
        fail(f"--fps must be 5..120, got {fps}")
    if tilt is not None and not 0 <= tilt <= 35:
        fail(f"--tilt must be 0..35 degrees (the camera looks down at the table), got {tilt:g}")
    if variant not in ("standard", "watch"):
        fail(f"--variant must be standard or watch, got {variant!r}")
    if max_moves is not None and max_moves < 1:
        fail(f"--max-moves must be 1 or more, got {max_moves}")
    try:
        _parse_resolution(resolution)
        from ..synth.scene import load_deck

        load_deck(deck)
    except RenderError as exc:
        fail(str(exc))
    except MissingPackageError as exc:
        fail(str(exc))
    except UnknownDeckError as exc:
        fail(str(exc))
    except DeckError as exc:
        fail(str(exc))
    try:
        truth = record_game(out, seed, deck=deck, variant=variant, mistakes=mistakes, resolution=resolution,
                            fps=fps, tilt=tilt, max_moves=max_moves, workers=workers, video=not no_video)
    except RenderError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write to {out}: {exc.strerror or exc}")
    summary = {
        "out": str(out), "frames": truth["frame_count"], "seconds_of_video": round(truth["frame_count"] / fps, 1),
        "render_seconds": truth["render_seconds"], "outcome": truth["outcome"],
        "mistakes": [m["kind"] for m in truth["mistakes"]],
    }
    typer.echo(json.dumps(summary))
