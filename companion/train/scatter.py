"""``python -m companion.train.scatter``: measure how far the detector's quads of still cards scatter.

The watcher judges a card lying still when it moves less than ``still_tolerance`` between looks and
is no bigger than a card lying there. With exact positions (the renderer's truth) the defaults are
tight; a trained detector's quads of a card lying still jump between looks (a hand nearby, the card
half covered). The watcher measures that on the cards it has placed, but a game's first cards lie
before any has been placed. This step follows a few rendered games with the models (seeds kept for
this, not used to develop the watcher or to train), gathers what the watcher measured, and writes the
95th percentiles into the manifest (``"scatter"``), which the recogniser passes on with every
:class:`~companion.vision.detections.Detections` as the watcher's starting point.

Run time code only (no torch); the models' manifest is rewritten in place, its hashes untouched.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

#: Rendered games kept for this measurement (not used to develop the watcher or train the models).
SCATTER_SEEDS = (9100, 9101, 9102)


def measure(models: Path, seeds: tuple[int, ...] = SCATTER_SEEDS, max_frames: int = 1500,
            progress: bool | None = None) -> dict[str, Any]:
    """Follow the first ``max_frames`` frames of each game; the 95th percentiles of what the watcher
    measured on the face-up cards it placed: ``position`` (card heights from the card's place) and
    ``size`` (log of its size over a card lying there)."""
    import cv2

    from ..progress import Progress
    from ..track import track
    from ..vision import watcher as watcher_mod
    from ..vision.oracle import RenderedGame
    from ..vision.recogniser import Recogniser

    cv2.setNumThreads(1)
    rec = Recogniser(models)
    rec.scatter = {}  # measure without the manifest's own figure
    offs: list[float] = []
    sizes: list[float] = []
    base = watcher_mod.DetectorNoise.card_sighting

    def card_sighting(self: Any, off: float, size_ratio: float) -> None:
        offs.append(off)
        sizes.append(math.log(max(size_ratio, 1e-6)))
        base(self, off, size_ratio)

    bar = Progress(len(seeds) * max_frames, "scatter", force=progress)
    watcher_mod.DetectorNoise.card_sighting = card_sighting  # type: ignore[method-assign]
    try:
        for seed in seeds:
            game = RenderedGame(seed, resolution=(1280, 720), mistakes=3, variant="standard")
            res = track(game.frames(), lambda f: rec(f.image), layout=game.layout, max_frames=max_frames,
                        progress=bar.update)
            bar.update(max_frames - res.frames)
    finally:
        watcher_mod.DetectorNoise.card_sighting = base  # type: ignore[method-assign]
        bar.close()
    if len(offs) < 30:
        raise ValueError(f"only {len(offs)} sightings of placed cards: follow more frames or games")
    return {"position": round(float(np.percentile(offs, 95)), 4),
            "size": round(float(np.percentile(sizes, 95)), 4),
            "sightings": len(offs), "seeds": list(seeds), "frames_per_game": max_frames,
            "command": f"python -m companion.train.scatter --models {models} --max-frames {max_frames}"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m companion.train.scatter", description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=Path("models"))
    ap.add_argument("--max-frames", type=int, default=1500)
    ap.add_argument("--dry-run", action="store_true", help="print the figures, write nothing")
    a = ap.parse_args(argv)
    path = a.models / "manifest.json"
    try:
        manifest = json.loads(path.read_text())
        figures = measure(a.models, max_frames=a.max_frames)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(figures))
    if not a.dry_run:
        manifest["scatter"] = figures
        path.write_text(json.dumps(manifest, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
