"""`companion bench track`: follow rendered games with mistakes and print throughput, latency, accuracy.

Attach with ``bench_app.command("track")(bench_track)`` (see :mod:`companion.cli.bench_cmd`).

* throughput: frames per second of the tracker (motion gate, recogniser, watcher, referee) on one
  core, amortised over whole games; rendering the frames is timed apart and left out;
* verdict latency: video milliseconds from the recording's event frame (the card lying still with
  its corner uncovered) to the frame whose processing gave the verdict, for place/move/return;
* exact-verdict-sequence rate: games whose (event, verdict) sequence equals the recording's, and the
  false flags (flags the recording does not have) and missed flags over all games.

With the models the games are followed as ``companion track`` follows them: the models' closer look
(``Recogniser.read_region``) serves the search for a card played unseen, and (by default; ``--no-zoom``
not) the card in play too.

Seeds: 2000-2019 were used to develop the watcher (and 1000-1003 for an earlier check); 5000-5019 were
measured once, and the one game that failed there (5009) was then looked at and fixed; 6000-6019, the
default, were first run for the figure in the README; 8000-8019, 8100-8119, 8300-8319, 8400-8419,
8500-8519 and 8600-8619 have each been run and looked at since, 8700-8719 run once for the sixth
session's figure, 8800-8819 run (end of the sixth) on a first version of the confirming looks,
8900-8919 run once for the README's figure (seventh session) and 9000-9009 once after it. Pick a fresh
range to measure again after changing the watcher. The targets (:data:`TARGETS`) are printed beside
the measured figures.
"""

from __future__ import annotations

import difflib
import json
import os
import statistics
import time
from collections import Counter
from typing import Any, Iterator, Optional

import typer

from ..progress import Progress
from ._app import fail, parse_resolution


#: The tracker's targets (issue 5): games with an exact (event, verdict) sequence and outcome, flags
#: the recording does not have, flags it has that were not raised, frames/s at 1280x720 on one core,
#: video ms from the card settling to its verdict.
TARGETS = {"exact_rate": 1.0, "games": 20, "false_flags": 0, "missed_flags": 0, "fps": 60.0, "latency_ms": 150.0}


def _timed(frames: Iterator[Any], clock: list[float]) -> Iterator[Any]:
    """Yield frames, adding the time spent making them (rendering) to ``clock[0]``."""
    while True:
        t0 = time.perf_counter()
        try:
            fr = next(frames)
        except StopIteration:
            clock[0] += time.perf_counter() - t0
            return
        clock[0] += time.perf_counter() - t0
        yield fr


def run_bench(games: int, seed: int, resolution: tuple[int, int], mistakes: int, recogniser: str,
              variant: str, models: Optional[str] = None, progress: bool | None = None,
              zoom_hand: bool = True) -> dict[str, Any]:
    """Follow ``games`` rendered games as ``companion track`` does: with the models, their closer look
    (``read_region``) serves the search for a card played unseen, and the card in play too with
    ``zoom_hand`` (``--zoom``, the default)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import cv2

    from ..synth.record import RenderError
    from ..track import track
    from ..vision.oracle import RenderedGame

    cv2.setNumThreads(1)
    rec = None
    if recogniser in ("auto", "models"):
        try:
            from ..vision.recogniser import Recogniser

            rec = Recogniser(models)
        except Exception as exc:  # noqa: BLE001 - ModelError, onnxruntime errors
            if recogniser == "models":
                fail(f"cannot load the recogniser's models: {exc}")
    kind = "models" if rec is not None else "oracle"
    per_game = []
    frames_total, secs_total = 0, 0.0
    latencies: list[float] = []
    false_flags = missed_flags = exact = 0
    matched_total = truth_total = 0
    s = seed
    done = 0
    bar = Progress(games, f"bench track ({kind})", force=progress)
    while done < games:
        try:
            game = RenderedGame(s, resolution=resolution, mistakes=mistakes, variant=variant)
        except (RenderError, ValueError):
            s += 1
            continue
        recognise = (lambda f, r=rec: r(f.image)) if rec is not None else game.oracle
        zoom = (lambda f, box, r=rec: r.read_region(f.image, box)) if rec is not None else None
        render_clock = [0.0]
        t0 = time.perf_counter()
        res = track(_timed(game.frames(), render_clock), recognise, layout=game.layout, variant=variant,
                    zoom=zoom, zoom_hand=zoom_hand)
        secs = time.perf_counter() - t0 - render_clock[0]
        got = [(ln["event"], ln["verdict"], ln["frame"]) for ln in res.events() if ln["verdict"] != "ask"]
        want = [(e["event"], e["verdict"], e["frame"]) for e in game.truth["events"]]
        outcome_ok = res.outcome == ({k: game.truth["outcome"][k] for k in ("won", "face_up", "last_card")}
                                     if game.truth["outcome"] else "unfinished")
        ok = [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in want] and outcome_ok
        exact += ok
        gf = Counter(v for _, v, _ in got if v != "ok")
        wf = Counter(v for _, v, _ in want if v != "ok")
        false_flags += sum((gf - wf).values())
        missed_flags += sum((wf - gf).values())
        # latency: each put-down event (place/move/return) the two sequences share, aligned (a game that
        # went astray elsewhere still counts its matching put-downs, not pairs shifted by the miss)
        sm = difflib.SequenceMatcher(a=[json.dumps([e, v]) for e, v, _ in got],
                                     b=[json.dumps([e, v]) for e, v, _ in want], autojunk=False)
        matched = sum(blk.size for blk in sm.get_matching_blocks())
        matched_total += matched
        truth_total += len(want)
        slowest: tuple[float, int, list] | None = None  # (ms, truth frame, event) of the game's latest verdict
        for blk in sm.get_matching_blocks():
            for k in range(blk.size):
                e, _, fa = got[blk.a + k]
                if e[0] in ("place", "move", "return"):
                    ms = (fa - want[blk.b + k][2]) / game.fps * 1000.0
                    latencies.append(ms)
                    if slowest is None or ms > slowest[0]:
                        slowest = (ms, want[blk.b + k][2], e)
        frames_total += res.frames
        secs_total += secs
        per_game.append({"seed": s, "frames": res.frames, "fps": round(res.frames / max(secs, 1e-9), 1),
                         "exact": ok, "events": len(want), "followed": matched, "asks": res.asks,
                         "flags": dict(gf), "truth_flags": dict(wf), "outcome_ok": outcome_ok,
                         "slowest": None if slowest is None else
                         {"ms": round(slowest[0], 1), "frame": slowest[1], "event": slowest[2]}})
        done += 1
        s += 1
        bar.update(1)
    bar.close()
    lat = sorted(latencies)
    return {
        "recogniser": kind, "games": games, "first_seed": seed, "resolution": f"{resolution[0]}x{resolution[1]}",
        "mistakes_per_game": mistakes, "variant": variant, "zoom_hand": bool(zoom_hand and rec is not None),
        "throughput_fps": round(frames_total / max(secs_total, 1e-9), 1), "threads": 1,
        "latency_ms": {"median": round(statistics.median(lat), 1) if lat else None,
                       "p95": round(lat[int(0.95 * (len(lat) - 1))], 1) if lat else None,
                       "max": round(lat[-1], 1) if lat else None, "events": len(lat)},
        "exact_sequence_rate": round(exact / games, 3), "exact_games": exact,
        "false_flags": false_flags, "missed_flags": missed_flags,
        # the recording's (event, verdict) pairs found in order in the tracker's: how much of the games
        # it followed (1.0 on an exact game; a measure of progress where games are not exact yet)
        "followed_rate": round(matched_total / max(truth_total, 1), 3),
        "targets": dict(TARGETS), "meets": _meets(games, exact, false_flags, missed_flags,
                                                   frames_total / max(secs_total, 1e-9), lat, resolution),
        "per_game": per_game,
    }


def _meets(games: int, exact: int, false_flags: int, missed_flags: int, fps: float, lat: list[float],
           resolution: tuple[int, int]) -> dict[str, bool | None]:
    """Which targets this run meets (None: the run cannot tell, e.g. fps at another resolution)."""
    t = TARGETS
    return {
        "exact": False if exact < games else (True if games >= t["games"] else None),
        "false_flags": false_flags <= t["false_flags"],
        "missed_flags": missed_flags <= t["missed_flags"],
        "fps": (fps >= t["fps"]) if tuple(resolution) == (1280, 720) else None,
        "latency": (lat[-1] <= t["latency_ms"]) if lat else None,  # "no later than": every verdict
    }


def bench_track(
    games: int = typer.Option(5, "--games", help="rendered games to follow"),
    seed: int = typer.Option(6000, "--seed", help="first seed (6000-6019 measured for the README; 2000-2019 were "
                                                   "used in development, 5000-5019 looked at)"),
    resolution: str = typer.Option("1280x720", "--resolution", help="frame size, WxH"),
    mistakes: int = typer.Option(3, "--mistakes", help="mistakes per game (each kind in turn)"),
    variant: str = typer.Option("standard", "--variant", help="standard or watch"),
    recogniser: str = typer.Option("auto", "--recogniser", help="auto (models if trained, else oracle), models, oracle"),
    models: Optional[str] = typer.Option(None, "--models", help="folder with the ONNX models and manifest"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    zoom: bool = typer.Option(True, "--zoom/--no-zoom", help="models: also look closer at a card in play the whole "
                                                             "frame leaves unread (as `companion track`, where it is "
                                                             "on by default)"),
) -> None:
    """Throughput (frames/s, one core), verdict latency and exact-verdict-sequence rate over rendered games."""
    w, h = parse_resolution(resolution, "1280x720")
    if games < 1:
        fail(f"--games must be at least 1, got {games}")
    if variant not in ("standard", "watch"):
        fail(f"--variant must be standard or watch, got {variant!r}")
    if recogniser not in ("auto", "models", "oracle"):
        fail(f"--recogniser must be auto, models or oracle, got {recogniser!r}")
    r = run_bench(games, seed, (w, h), mistakes, recogniser, variant, models, zoom_hand=zoom)
    if as_json:
        print(json.dumps(r))
        return
    print(f"Tracker benchmark: {r['games']} rendered games from seed {r['first_seed']}, {r['resolution']}, "
          f"{r['mistakes_per_game']} mistakes each, {r['variant']}, {r['recogniser']} recogniser")
    t, m = r["targets"], r["meets"]

    def mark(ok: bool | None) -> str:
        return {True: "meets", False: "MISSES", None: "n/a"}[ok]

    lat = r["latency_ms"]
    rows = [
        ("games exact (verdicts + outcome)", f"{r['exact_games']}/{r['games']}",
         f"{t['games']}/{t['games']} (100%, new seeds)", m["exact"]),
        ("truth's (event, verdict) pairs followed", f"{100 * r['followed_rate']:.1f}%", "100%",
         r["followed_rate"] >= 1.0),
        ("false flags", str(r["false_flags"]), str(t["false_flags"]), m["false_flags"]),
        ("missed flags", str(r["missed_flags"]), str(t["missed_flags"]), m["missed_flags"]),
        ("throughput, one core", f"{r['throughput_fps']} frames/s at {r['resolution']}",
         f">= {t['fps']:.0f} frames/s at 1280x720", m["fps"]),
        ("verdict latency p50 / p95 / max", f"{lat['median']} / {lat['p95']} / {lat['max']} ms ({lat['events']})",
         f"<= {t['latency_ms']:.0f} ms after the card settles (every verdict: max)", m["latency"]),
    ]
    w0 = max(len(a) for a, *_ in rows)
    w1 = max(len(b) for _, b, *_ in rows)
    print(f"  {'':{w0}}  {'measured':{w1}}  target")
    for a, b, c, ok in rows:
        print(f"  {a:{w0}}  {b:{w1}}  {c}  [{mark(ok)}]")
    for g in r["per_game"]:
        print(f"    seed {g['seed']}: {g['frames']} frames, {g['fps']} fps, exact {g['exact']}, "
              f"followed {g['followed']}/{g['events']}, "
              f"outcome {'ok' if g['outcome_ok'] else 'WRONG'}, asks {g['asks']}, flags {g['flags']} "
              f"(truth {g['truth_flags']})")
