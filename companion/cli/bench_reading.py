"""`companion bench reading`: how the models read the cards of rendered games, look by look.

The recogniser benchmark scores composed frames of held-out decks; a game is another matter (a tilted
camera, stacks, fans of cards a fifth of a card apart, hands, the renderer's blur). This follows what
the tracker is given: every ``--every``-th frame of rendered games, each readable face-up card (an
index at least 95% uncovered, as the oracle says) read right, its rank only, or not read, and the
readings that name a card not there. Resolution matters most (README, `companion track`).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any, Optional

import typer

from ..progress import Progress
from ._app import fail, parse_resolution

HEIGHT_BINS = ((0, 70, "<70 px"), (70, 90, "70-90 px"), (90, 120, "90-120 px"), (120, 10 ** 6, "120+ px"))


def _bin(h: float) -> str:
    return next(name for lo, hi, name in HEIGHT_BINS if lo <= h < hi)


def run_reading(games: int, seed: int, resolution: tuple[int, int], every: int, frames: int,
                models: Optional[str] = None, progress: bool | None = None,
                detector_size: Optional[int] = None) -> dict[str, Any]:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import cv2

    from ..synth.record import RenderError
    from ..vision.evaluate import score_looks
    from ..vision.oracle import OracleRecogniser, RenderedGame
    from ..vision.recogniser import Recogniser, RecogniserConfig

    cv2.setNumThreads(1)
    try:
        config = RecogniserConfig(detector_size=detector_size) if detector_size else None
    except ValueError as exc:
        fail(f"--detector-size: {exc}")
    try:
        rec = Recogniser(models, config=config)
    except Exception as exc:  # noqa: BLE001 - ModelError, onnxruntime errors
        fail(f"cannot load the recogniser's models: {exc}")
    def rates(c: Counter) -> dict[str, Any]:
        m = sum(v for k, v in c.items() if k != "wrong")
        return {"looks": m, "right": round(c["right"] / max(m, 1), 4), "rank_only": round(c["rank only"] / max(m, 1), 4),
                "not_read": round(c["not read"] / max(m, 1), 4)}

    kinds: Counter = Counter()
    by_height: dict[str, Counter] = {}
    wrong: Counter = Counter()
    per_game = []
    bar = Progress(games * (frames // every + 1), "bench reading", force=progress)
    s, done = seed, 0
    while done < games:
        try:
            game = RenderedGame(s, resolution=resolution, mistakes=3)
        except (RenderError, ValueError):
            s += 1
            continue
        names = OracleRecogniser(game.scene, game.director.frames, read_visible=0.0)  # every card named
        g: Counter = Counter()
        for fr in game.frames(frames):
            if fr.index % every:
                continue
            truth, readable = names(fr), game.oracle(fr)
            counts = readable.rank != 0 if len(readable) == len(truth) else None
            looks, bad = score_looks(truth, rec(fr.image), counts)
            heights = truth.heights
            for i, kind in looks.items():
                g[kind] += 1
                by_height.setdefault(_bin(float(heights[i])), Counter())[kind] += 1
            g["wrong"] += len(bad)
            wrong.update(f"{a or 'nothing'}->{b}" for a, b in bad)
            bar.update(1)
        kinds.update(g)
        per_game.append({"seed": s, **rates(g), "wrong_readings": g["wrong"]})
        s += 1
        done += 1
    bar.close()
    n = rates(kinds)["looks"]

    return {"games": games, "first_seed": seed, "resolution": f"{resolution[0]}x{resolution[1]}", "every": every,
            "detector_size": rec.config.detector_size,
            "frames": frames, **rates(kinds), "wrong_readings": kinds["wrong"],
            "wrong_per_100_looks": round(100 * kinds["wrong"] / max(n, 1), 2),
            "by_card_height": {name: rates(by_height[name]) for _, _, name in HEIGHT_BINS if name in by_height},
            "worst_wrong": [f"{k} x{v}" for k, v in wrong.most_common(8)], "per_game": per_game}


def bench_reading(
    games: int = typer.Option(2, "--games", help="rendered games"),
    seed: int = typer.Option(9100, "--seed", help="first seed (9100-9102 are kept for measuring the models in games)"),
    resolution: str = typer.Option("1920x1080", "--resolution", help="frame size, WxH"),
    every: int = typer.Option(10, "--every", help="read every Nth frame"),
    frames: int = typer.Option(1500, "--frames", help="frames of each game (from its start)"),
    models: Optional[str] = typer.Option(None, "--models", help="folder with the ONNX models and manifest"),
    detector_size: Optional[int] = typer.Option(None, "--detector-size", help="the detector's input long side "
                                                "(default the recogniser's, 384; a multiple of 32)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """How the models read the face-up cards of rendered games, look by look (right / rank only / not read)."""
    w, h = parse_resolution(resolution, "1920x1080")
    if games < 1 or every < 1 or frames < 1:
        fail("--games, --every and --frames must be at least 1")
    r = run_reading(games, seed, (w, h), every, frames, models, detector_size=detector_size)
    if as_json:
        print(json.dumps(r))
        return
    print(f"Reading in rendered games: {r['games']} from seed {r['first_seed']}, {r['resolution']} (detector at "
          f"{r['detector_size']} px), every "
          f"{r['every']}th of the first {r['frames']} frames; {r['looks']} looks at readable face-up cards")
    print(f"  right {100 * r['right']:.1f}%, rank only {100 * r['rank_only']:.1f}%, not read "
          f"{100 * r['not_read']:.1f}%; readings naming a card not there: {r['wrong_readings']} "
          f"({r['wrong_per_100_looks']} per 100 looks)")
    for name, c in r["by_card_height"].items():
        print(f"    {name:>10}: {c['looks']:5d} looks, right {100 * c['right']:.1f}%, not read {100 * c['not_read']:.1f}%")
    if r["worst_wrong"]:
        print("  wrong:", ", ".join(r["worst_wrong"]))
    for g in r["per_game"]:
        print(f"    seed {g['seed']}: {g['looks']} looks, right {100 * g['right']:.1f}%, not read "
              f"{100 * g['not_read']:.1f}%, wrong {g['wrong_readings']}")
