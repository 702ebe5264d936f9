"""`companion recognise`: find and read the cards in photos."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from ._app import app, fail

ALPHABET_HELP = ("index alphabet: english (default; other court letters are reported unknown), dutch (B V H), "
                 "french (1 V D R), german (B D K), italian (F D R)")


def load_recogniser(models: Optional[Path], alphabet: str):  # noqa: ANN201
    from ..vision.models import ModelError
    from ..vision.recogniser import Recogniser

    try:
        return Recogniser(models, alphabet=alphabet)
    except (ModelError, ValueError) as exc:
        fail(str(exc))


@app.command("recognise")
def recognise(
    images: List[Path] = typer.Argument(..., metavar="IMAGE...", help="photos or frames (jpg, png, ...)"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object per image per line"),
    annotate: Optional[Path] = typer.Option(None, "--annotate", metavar="OUT_DIR",
                                            help="write each image with quads and labels drawn into OUT_DIR"),
    alphabet: str = typer.Option("english", "--alphabet", help=ALPHABET_HELP),
    models: Optional[Path] = typer.Option(None, "--models", help="folder with the ONNX models and manifest"),
) -> None:
    """Find and read every visible card (rank and suit) in each image; unknown when not sure."""
    import cv2

    from ..annotate import annotate_all

    rec = load_recogniser(models, alphabet)
    if annotate is not None:
        try:
            annotate.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            fail(f"cannot create {annotate}: {exc.strerror}")
    failed = 0
    for path in images:
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None  # applies EXIF orientation
        if frame is None:
            reason = "no such file" if not path.exists() else "not an image OpenCV can read"
            print(f"error: cannot read {path}: {reason}", file=sys.stderr)
            failed += 1
            continue
        dets = rec(frame)
        if as_json:
            print(json.dumps({"image": str(path), "detections": dets.to_json()}), flush=True)
        else:
            up = [i for i in range(len(dets)) if dets.face_up[i]]
            print(f"{path}: {len(up)} face-up card(s), {len(dets) - len(up)} face down")
            for row, i in zip(dets.to_json(), range(len(dets))):
                if not dets.face_up[i]:
                    continue
                name = row["card"] or f"{row['rank'] or '?'}{row['suit'] or '?'} (unknown)"
                cx, cy = dets.centres[i]
                print(f"  {name:<14} confidence {row['confidence']:.2f}  at ({cx:.0f}, {cy:.0f})")
        if annotate is not None:
            out = annotate / (path.stem + "_annotated.png")
            if not cv2.imwrite(str(out), annotate_all(frame, dets)):
                print(f"error: cannot write {out}", file=sys.stderr)
                failed += 1
    if failed:
        raise typer.Exit(2)
