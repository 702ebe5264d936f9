"""`companion bench ...`: benchmarks that print figures (speed and accuracy are never unit-test timings)."""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path
from typing import Optional

import typer

from ..progress import Progress
from ._app import app, fail

bench_app = typer.Typer(help="Benchmarks: print measured figures.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")


def _register_track() -> None:
    from .bench_track import bench_track

    bench_app.command("track")(bench_track)

SHARED_REAL_DEV = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "real-dev"


@bench_app.command("recognise")
def bench_recognise(
    frames: int = typer.Option(40, "--frames", help="held-out synthetic frames to score"),
    seed: int = typer.Option(12345, "--seed", help="seed of the held-out frames"),
    real_dev: Optional[Path] = typer.Option(None, "--real-dev", help="real-dev folder (default ../shared/data/real-dev)"),
    models: Optional[Path] = typer.Option(None, "--models", help="folder with the ONNX models and manifest"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    per_deck: bool = typer.Option(False, "--per-deck", help="also score each held-out deck on its own (--frames each)"),
) -> None:
    """Accuracy on held-out decks and real photos, and the time for one 1280x720 frame on one core."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import cv2
    import numpy as np

    from ..vision.evaluate import evaluate_real_dev, evaluate_synthetic
    from .vision_cmds import load_recogniser

    cv2.setNumThreads(1)
    rec = load_recogniser(models, "english")
    report: dict = {}

    # 1. held-out synthetic decks: rendered frames with exact truth
    try:
        from ..vision.benchframes import held_out_frames, speed_frames
    except ImportError as exc:  # pragma: no cover
        fail(f"cannot render benchmark frames: {exc}")
    bar = Progress(frames, "held-out frames")
    rates, _ = evaluate_synthetic(rec, held_out_frames(frames, seed), progress=bar.update)
    bar.close()
    report["held_out_synthetic"] = rates
    if per_deck:
        from ..vision.benchframes import held_out_deck_names

        report["held_out_per_deck"] = {}
        for name in held_out_deck_names():
            bar = Progress(frames, f"held-out {name}")
            report["held_out_per_deck"][name], _ = evaluate_synthetic(
                rec, held_out_frames(frames, seed, names=[name]), progress=bar.update)
            bar.close()

    # 2. real photos, per folder (measurement only: never trained or tuned on)
    root = real_dev or SHARED_REAL_DEV
    if (root / "labels.csv").exists():
        n = sum(1 for _ in open(root / "labels.csv")) - 1
        bar = Progress(n, "real-dev photos")
        report["real_dev"] = evaluate_real_dev(rec, root, progress=bar.update)
        bar.close()
    else:
        report["real_dev"] = f"not found at {root}"

    # 3. speed: 1280x720, 13 piles and about 20 visible face-up cards, one core
    times = []
    counts = []
    for img, n_up in speed_frames(seed):
        for _ in range(5):
            t0 = cv2.getTickCount()
            rec(img)
            times.append((cv2.getTickCount() - t0) / cv2.getTickFrequency() * 1000)
        counts.append(n_up)
    report["speed"] = {"frames": len(counts), "visible_face_up_cards_mean": round(float(np.mean(counts)), 1),
                       "ms_median": round(statistics.median(times), 2),
                       "ms_p95": round(float(np.percentile(times, 95)), 2), "threads": 1}
    report["model_bytes"] = sum(p.stat().st_size for p in rec.models_dir.glob("*.onnx"))
    if as_json:
        print(json.dumps(report))
        return
    _print_report(report)


def _print_report(r: dict) -> None:
    def line(name: str, x: dict) -> str:
        rank = "-" if x["rank"] is None else f"{x['rank'] * 100:.1f}%"
        extra = f", foreign courts unknown {x['foreign_courts_unknown']}/{x['foreign_courts']}" if x["foreign_courts"] else ""
        return (f"  {name:<22} cards {x['cards']:>5}  rank {rank:>6}  suit {x['suit'] * 100:5.1f}%  "
                f"unknown {x['unknown'] * 100:4.1f}%  confident-wrong {x['confident_wrong'] * 100:4.2f}%{extra}")

    print("Recogniser benchmark")
    print(line("held-out synthetic", r["held_out_synthetic"]))
    for name, x in r.get("held_out_per_deck", {}).items():
        print(line(f"  held-out {name}", x))
    if isinstance(r["real_dev"], dict):
        for k, v in r["real_dev"].items():
            print(line(f"real-dev {k}", v))
            if v["worst_confusions"]:
                print(f"      worst: {', '.join(v['worst_confusions'])}")
    else:
        print(f"  real-dev: {r['real_dev']}")
    s = r["speed"]
    print(f"  speed: 1280x720 with ~{s['visible_face_up_cards_mean']} face-up cards: median {s['ms_median']} ms, "
          f"p95 {s['ms_p95']} ms on one core")
    print(f"  model size: {r['model_bytes'] / 1e6:.2f} MB")


_register_track()
