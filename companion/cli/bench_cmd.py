"""`companion bench ...`: benchmarks that print figures (speed and accuracy are never unit-test timings)."""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path
from typing import Optional

import typer

from ..progress import Progress
from ..vision.spec import BENCH_FRAMES
from ._app import app, fail

bench_app = typer.Typer(help="Benchmarks: print measured figures. Alone: every benchmark, one table.",
                        invoke_without_command=True)
app.add_typer(bench_app, name="bench")


@bench_app.callback(invoke_without_command=True)
def bench_all(
    ctx: typer.Context,
    quick: bool = typer.Option(False, "--quick", help="small sizes (seconds, not minutes): a smoke test"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    models: Optional[Path] = typer.Option(None, "--models", help="folder with the ONNX models and manifest"),
) -> None:
    """Every benchmark (recognise, track, simulate, render) with one table of figures."""
    if ctx.invoked_subcommand is not None:
        return
    report = run_all(quick=quick, models=models)
    if as_json:
        print(json.dumps(report))
        return
    print(table(report))


def _register_track() -> None:
    from .bench_reading import bench_reading
    from .bench_track import bench_track

    bench_app.command("track")(bench_track)
    bench_app.command("reading")(bench_reading)

SHARED_REAL_DEV = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "real-dev"


@bench_app.command("recognise")
def bench_recognise(
    frames: int = typer.Option(BENCH_FRAMES, "--frames", help="held-out synthetic frames to score"),
    seed: int = typer.Option(12345, "--seed", help="seed of the held-out frames"),
    real_dev: Optional[Path] = typer.Option(None, "--real-dev", help="real-dev folder (default ../shared/data/real-dev)"),
    models: Optional[Path] = typer.Option(None, "--models", help="folder with the ONNX models and manifest"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    per_deck: bool = typer.Option(False, "--per-deck", help="also score each held-out deck on its own (--frames each)"),
    misses: Optional[Path] = typer.Option(None, "--misses", help="write a contact sheet (PNG) of the held-out "
                                          "cards not read right: each card's best visible corner, upright"),
    diagnose: bool = typer.Option(False, "--diagnose", help="also say where the held-out misses come from, by card "
                                  "height: indices the detector finds, and the reader on crops cut at the true place "
                                  "and where the detector put them"),
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
    if misses is not None and misses.suffix.lower() != ".png":
        fail(f"--misses {misses}: give a .png file")
    from ..vision.benchframes import NoHeldOutDeck, held_out_deck_names, missing_held_out_decks

    report["held_out_decks"] = held_out_deck_names()
    report["held_out_decks_missing"] = missing_held_out_decks()
    missed: list | None = [] if misses is not None else None
    try:
        frame_iter = held_out_frames(frames, seed)
    except NoHeldOutDeck as exc:
        report["held_out_synthetic"] = f"not measured: {exc}"
        per_deck = diagnose = False
        misses = None
    else:
        bar = Progress(frames, "held-out frames")
        rates, _ = evaluate_synthetic(rec, frame_iter, progress=bar.update, misses=missed)
        bar.close()
        report["held_out_synthetic"] = rates
    if misses is not None:
        from ..vision.evaluate import contact_sheet

        misses.parent.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(misses), contact_sheet(missed or [])):
            fail(f"--misses {misses}: cannot write the picture")
        report["misses_sheet"] = str(misses)
    if per_deck:
        report["held_out_per_deck"] = {}
        for name in held_out_deck_names():
            bar = Progress(frames, f"held-out {name}")
            report["held_out_per_deck"][name], _ = evaluate_synthetic(
                rec, held_out_frames(frames, seed, names=[name]), progress=bar.update)
            bar.close()

    if diagnose:
        from ..vision.evaluate import diagnose_synthetic

        report["diagnosis"] = diagnose_synthetic(rec, held_out_frames(frames, seed))

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
    held = r["held_out_synthetic"]
    if isinstance(held, str):
        print(f"  held-out synthetic: {held}")
        held = {}
    else:
        print(line("held-out synthetic", held))
        decks = ", ".join(r.get("held_out_decks", []))
        gone = r.get("held_out_decks_missing") or []
        print(f"    decks: {decks}" + (f" (not installed here, so not measured: {', '.join(gone)})" if gone else ""))
    if r.get("misses_sheet"):
        print(f"    the cards not read right, one corner each: {r['misses_sheet']}")
    for name, x in held.get("by_card_height", {}).items():
        print(f"    cards {name:<11} {x['cards']:>5}  rank {x['rank'] * 100:5.1f}%  unknown {x['unknown'] * 100:5.1f}%  "
              f"confident-wrong {x['confident_wrong'] * 100:4.2f}%")
    for name, x in r.get("held_out_per_deck", {}).items():
        print(line(f"  held-out {name}", x))
    if r.get("diagnosis"):
        print("    where the misses come from (indices at least 75% visible; a crop is read right at the rank "
              "threshold):")
        print(f"    {'cards':<11} {'indices':>7}  {'found':>6}  {'true crop right':>15}  {'found crop right':>16}"
              "  (of those found)")
        def pct(v: float | None) -> str:
            return "-" if v is None else f"{v * 100:.1f}%"

        for name, x in r["diagnosis"].items():
            if not x["indices"]:
                continue
            print(f"    {name:<11} {x['indices']:>7}  {pct(x['found']):>6}  {pct(x['truth_crop_right']):>15}  "
                  f"{pct(x['found_crop_right']):>16}")
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


# ---------------------------------------------------------------------------------------------------
# `companion bench` alone: every benchmark, one table
# ---------------------------------------------------------------------------------------------------
def _bench_recognise(quick: bool, models: Optional[Path]) -> dict:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import cv2

    from ..vision.benchframes import NoHeldOutDeck, held_out_frames, missing_held_out_decks, speed_frames
    from ..vision.evaluate import evaluate_synthetic
    from ..vision.models import ModelError
    from ..vision.recogniser import Recogniser

    cv2.setNumThreads(1)
    try:
        rec = Recogniser(models)
    except (ModelError, ValueError, OSError) as exc:
        return {"error": f"models not available: {exc}"}
    n = 3 if quick else BENCH_FRAMES
    try:
        rates, _ = evaluate_synthetic(rec, held_out_frames(n, 12345))
    except NoHeldOutDeck as exc:
        rates = {"rank": None, "suit": None, "unknown": None, "confident_wrong": None, "not_measured": str(exc)}
    rates["held_out_decks_missing"] = missing_held_out_decks()
    times = []
    for img, _n_up in speed_frames(12345, n=1 if quick else 4):
        for _ in range(1 if quick else 5):
            t0 = cv2.getTickCount()
            rec(img)
            times.append((cv2.getTickCount() - t0) / cv2.getTickFrequency() * 1000)
    return {"frames": n, "rank": rates["rank"], "suit": rates["suit"], "unknown": rates["unknown"],
            "confident_wrong": rates["confident_wrong"], "ms_median_720p": round(statistics.median(times), 1),
            "held_out_decks_missing": rates["held_out_decks_missing"]}


def _bench_track(quick: bool) -> dict:
    from .bench_track import run_bench

    if not quick:
        r = run_bench(2, 1000, (1280, 720), 3, "oracle", "standard", progress=False)
        return {k: r[k] for k in ("games", "resolution", "throughput_fps", "latency_ms", "exact_games",
                                  "false_flags", "missed_flags", "recogniser")} | {"mistakes": 3, "moves": "whole games"}
    import time

    from ..track import track
    from ..vision.oracle import RenderedGame

    game = RenderedGame(1000, resolution=(320, 180), mistakes=0, max_moves=2)
    frames = list(game.frames())
    t0 = time.perf_counter()
    res = track(frames, game.oracle, layout=game.layout)
    secs = time.perf_counter() - t0
    got = [(ln["event"], ln["verdict"]) for ln in res.events() if ln["verdict"] != "ask"]
    return {"games": 1, "resolution": "320x180", "throughput_fps": round(len(frames) / max(secs, 1e-9), 1),
            "latency_ms": None, "exact_games": int(got == game.expected()), "false_flags": None,
            "missed_flags": None, "recogniser": "oracle", "mistakes": 0, "moves": "first 2 moves"}


def _bench_simulate(quick: bool) -> dict:
    from ..simulate import simulate

    n = 20_000 if quick else 1_000_000
    r = simulate(n, seed=1)
    return {"games": n, "win_rate": round(r.win_rate, 6), "mean_face_up": round(r.mean_face_up, 3),
            "deals_per_second": round(r.deals_per_second)}


def _bench_render(quick: bool) -> dict:
    import time

    from ..synth import record

    size = (640, 360) if quick else (1280, 720)
    n = 5 if quick else 300
    scene, d = record.build(5, resolution=size)
    t0 = time.perf_counter()
    k = sum(1 for _ in record.render_frames(scene, d.frames[:n], 5))
    secs = time.perf_counter() - t0
    return {"frames": k, "resolution": f"{size[0]}x{size[1]}", "frames_per_second": round(k / max(secs, 1e-9), 1),
            "processes": 1}


def run_all(quick: bool = False, models: Optional[Path] = None) -> dict:
    """Every benchmark; each entry has its figures and ``seconds`` (wall time of that benchmark)."""
    import platform
    import time

    report: dict = {"quick": quick, "machine": f"{os.cpu_count()} cores, {platform.machine()}, "
                    f"Python {platform.python_version()}", "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    for name, fn in (("recognise", lambda: _bench_recognise(quick, models)), ("track", lambda: _bench_track(quick)),
                     ("simulate", lambda: _bench_simulate(quick)), ("render", lambda: _bench_render(quick))):
        t0 = time.perf_counter()
        report[name] = fn()
        report[name]["seconds"] = round(time.perf_counter() - t0, 1)
    return report


def table(r: dict) -> str:
    """The report as one Markdown table."""
    rows = [("benchmark", "what", "measured", "wall s")]
    rc = r["recognise"]
    if "error" in rc:
        rows.append(("recognise", "trained models", rc["error"], str(rc["seconds"])))
    elif rc["suit"] is None:
        rows.append(("recognise", "held-out synthetic frames; one 1280x720 frame, 1 core",
                     f"accuracy not measured: no held-out deck installed; {rc['ms_median_720p']} ms/frame",
                     str(rc["seconds"])))
    else:
        rank = "-" if rc["rank"] is None else f"{rc['rank'] * 100:.1f}%"
        gone = rc.get("held_out_decks_missing") or []
        rows.append(("recognise", f"{rc['frames']} held-out synthetic frames"
                     + (f" (without {', '.join(gone)}: not installed)" if gone else "")
                     + "; one 1280x720 frame, 1 core",
                     f"rank {rank}, suit {rc['suit'] * 100:.1f}%, unknown {rc['unknown'] * 100:.1f}%, "
                     f"confidently wrong {rc['confident_wrong'] * 100:.2f}%; {rc['ms_median_720p']} ms/frame",
                     str(rc["seconds"])))
    t = r["track"]
    lat = t.get("latency_ms") or {}
    lat_s = f", verdict latency median {lat['median']} ms" if lat.get("median") is not None else ""
    rows.append(("track", f"{t['games']} rendered game(s) ({t['moves']}, {t['mistakes']} mistakes each), "
                          f"{t['resolution']}, {t['recogniser']} cards, 1 core",
                 f"{t['throughput_fps']} frames/s, exact verdicts {t['exact_games']}/{t['games']}{lat_s}",
                 str(t["seconds"])))
    s = r["simulate"]
    rows.append(("simulate", f"{s['games']:,} random deals, standard, seed 1",
                 f"{s['deals_per_second']:,} deals/s, win rate {s['win_rate']}, mean face-up {s['mean_face_up']}",
                 str(s["seconds"])))
    rd = r["render"]
    rows.append(("render", f"{rd['frames']} frames of game 5, {rd['resolution']}, one process",
                 f"{rd['frames_per_second']} frames/s", str(rd["seconds"])))
    w = [max(len(x[i]) for x in rows) for i in range(4)]
    lines = [f"Benchmarks ({'quick' if r['quick'] else 'full'}), {r['date']}, {r['machine']}", ""]
    for k, x in enumerate(rows):
        lines.append("| " + " | ".join(x[i].ljust(w[i]) for i in range(4)) + " |")
        if k == 0:
            lines.append("|" + "|".join("-" * (w[i] + 2) for i in range(4)) + "|")
    return "\n".join(lines)


_register_track()
