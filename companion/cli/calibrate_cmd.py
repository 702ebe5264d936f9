"""`companion calibrate`: find where the 13 piles lie in the camera's view; `companion mat`: print the mat."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer

from ._app import app, fail

METHODS = ("auto", "mat", "manual")
SIDES = ("top", "right", "bottom", "left")
PAPER_NAMES = ("a4", "letter", "a3")


def overlay_path(out: Path) -> Path:
    """Where the picture of the layout goes, next to the layout file (layout.json -> layout.png)."""
    return out.with_name(out.stem + ".layout.png") if out.suffix.lower() == ".png" else out.with_suffix(".png")


def _load_recogniser(models: Optional[Path]) -> Any:
    from ..vision.models import ModelError
    from ..vision.recogniser import Recogniser

    try:
        return Recogniser(models)
    except (ModelError, ValueError, OSError) as exc:
        fail(f"--method auto needs the recogniser's models, which are missing or unreadable ({exc}); "
             f"train them with `make train`, or calibrate with --method mat (print the mat with `companion mat`)")


def _read_frames(source: str, frames: int, fps: Optional[float]) -> list[Any]:
    from ..vision.sources import SourceError, open_source

    try:
        src = open_source(source, fps=fps, reconnect_timeout=5.0)
    except SourceError as exc:
        fail(str(exc))
    if src.size_warning:
        print(f"note: {src.size_warning}", file=sys.stderr)
    got = []
    try:
        with src:
            for frame in src:
                got.append(frame)
                if len(got) >= frames:
                    break
    except SourceError as exc:
        fail(str(exc))
    if not got:
        fail(f"no frames from {source}" + (f" ({src.skipped} could not be decoded)" if src.skipped else ""))
    return got


@app.command("calibrate")
def calibrate(
    source: str = typer.Argument("0", metavar="[SOURCE]",
                                 help="camera index (default 0), image, video, folder of images, stream URL or demo[:SEED]"),
    out: Path = typer.Option(Path("layout.json"), "--out", "-o", metavar="FILE",
                             help="the layout JSON to write (a picture of it goes next to it, FILE.png)"),
    method: str = typer.Option("auto", "--method", help="auto (the 13 face-down piles; needs models/), mat (the "
                                                        "printed mat's markers) or manual (click the piles; needs a display)"),
    twelve_at: str = typer.Option("top", "--twelve-at", help="where pile 12 is in the image: top, right, bottom or left "
                                                             "(--method auto)"),
    frames: int = typer.Option(15, "--frames", min=1, max=1000, help="how many first frames to read (a camera's first "
                                                                     "frames are often dark)"),
    fps: Optional[float] = typer.Option(None, "--fps", help="frame rate of a folder of images"),
    models: Optional[Path] = typer.Option(None, "--models", help="folder with the ONNX models and manifest (--method auto)"),
) -> None:
    """Find where each of the 13 piles lies in the camera's view and write it as a layout file."""
    import cv2

    from ..vision.layout import LayoutError, click_piles, display_available, layout_from_detections, layout_from_points

    if method not in METHODS:
        fail(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    if twelve_at not in SIDES:
        fail(f"--twelve-at must be one of {', '.join(SIDES)}, got {twelve_at!r}")
    if fps is not None and fps <= 0:
        fail(f"--fps must be positive, got {fps:g}")
    if out.suffix.lower() != ".json":
        fail(f"--out must name a .json file, got {out}")
    if not out.parent.exists():
        fail(f"cannot write {out}: folder {out.parent} does not exist")
    if method == "manual" and not display_available():
        fail("no display to click the piles on ($DISPLAY is not set or not reachable): use --method auto or "
             "--method mat")
    rec = _load_recogniser(models) if method == "auto" else None

    got = _read_frames(source, frames, fps)
    # the last frames first: a camera's first frames are often dark or still adjusting
    tries = [got[-1]] + [got[i] for i in sorted({len(got) // 2, 0}) if i != len(got) - 1]
    layout = None
    last_error = "no frames"
    frame = tries[0]
    for frame in tries:
        size = (frame.image.shape[1], frame.image.shape[0])
        try:
            if method == "auto":
                layout = layout_from_detections(rec(frame.image), size, twelve_at)
            elif method == "mat":
                from ..vision.mat import layout_from_markers

                layout = layout_from_markers(frame.image)
            else:
                layout = layout_from_points(click_piles(frame.image), size)
        except LayoutError as exc:
            last_error = str(exc)
            if method == "manual":
                break
            continue
        break
    if layout is None:
        fail(last_error)
    try:
        layout.save(out)
    except LayoutError as exc:
        fail(str(exc))
    picture = overlay_path(out)
    wrote_picture = bool(cv2.imwrite(str(picture), layout.draw(frame.image)))
    print(f"layout ({layout.method}) from frame {frame.index} of {source}, {layout.image_size[0]}x{layout.image_size[1]}, "
          f"cards about {layout.card_h:.0f} px high, 12 at the {layout.twelve_at}:")
    for line in layout.describe():
        print(f"  {line}")
    print(f"wrote {out}" + (f" and {picture} (check that the numbers sit on the right piles)" if wrote_picture else ""))
    if not wrote_picture:
        fail(f"cannot write {picture}")


@app.command("mat")
def mat(
    out: Path = typer.Option(Path("mat.pdf"), "--out", "-o", metavar="FILE",
                             help="FILE.pdf (printable, at true scale, tiled over pages) or FILE.png (the whole mat)"),
    paper: str = typer.Option("a4", "--paper", help="paper size of the PDF: a4, letter or a3"),
    dpi: float = typer.Option(150.0, "--dpi", help="resolution of a PNG"),
) -> None:
    """Write the printable calibration mat (13 pile outlines, hour labels, 4 ArUco markers)."""
    from ..vision.mat import write_mat

    paper = paper.lower()
    if paper not in PAPER_NAMES:
        fail(f"--paper must be one of {', '.join(PAPER_NAMES)}, got {paper!r}")
    if out.suffix.lower() not in (".pdf", ".png"):
        fail(f"--out must end in .pdf or .png, got {out}")
    if not 20 <= dpi <= 1200:
        fail(f"--dpi must be 20..1200, got {dpi:g}")
    if not out.parent.exists():
        fail(f"cannot write {out}: folder {out.parent} does not exist")
    try:
        print(f"wrote {write_mat(out, paper, dpi=dpi)}")
    except (OSError, ValueError) as exc:
        fail(str(exc))
