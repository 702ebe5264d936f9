"""Command ``simulate``: play many random deals and compare with the exact odds."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Optional

import typer

from ._app import app, fail

_VARIANTS = ("standard", "watch")
_DEFAULT_WATCH_POLICY = "bottom-of-fullest"


def _count(text: str) -> int:
    """``1000000``, ``1_000_000``, ``1,000,000`` or ``1e6``: a positive whole number of games."""
    t = text.strip().replace("_", "").replace(",", "")
    value: Optional[int] = None
    if re.fullmatch(r"[+]?\d+", t):
        value = int(t)
    elif re.fullmatch(r"[+]?\d+(\.\d+)?[eE][+]?\d+", t):
        f = float(t)
        if f.is_integer() and f < 1e15:
            value = int(f)
    if value is None:
        fail(f"--games must be a whole number, not {text!r}")
    if value <= 0:
        fail(f"--games must be at least 1, not {value}")
    return value


def _seed(text: Optional[str]) -> Optional[int]:
    if text is None:
        return None
    t = text.strip().replace("_", "")
    if not re.fullmatch(r"\d+", t):
        fail(f"--seed must be a whole number 0 or more, not {text!r}")
    return int(t)


def _check_plot_path(text: str) -> Path:
    path = Path(text).expanduser()
    if path.suffix.lower() != ".png":
        fail(f"--plot must name a .png file, not {text!r}")
    if path.is_dir():
        fail(f"--plot {text!r} is a directory")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        fail(f"cannot write --plot {text!r}: folder {str(parent)!r} does not exist")
    if path.exists() and not os.access(path, os.W_OK):
        fail(f"cannot write --plot {text!r}: permission denied")
    if not path.exists() and not os.access(parent, os.W_OK | os.X_OK):
        fail(f"cannot write --plot {text!r}: folder {str(parent)!r} is not writable")
    return path


@app.command()
def simulate(
    games: Optional[str] = typer.Option(None, "--games", "-n", metavar="N",
                                        help="How many random deals to shuffle and play, e.g. 1000000 or 1e6"
                                             " (required)."),
    seed: Optional[str] = typer.Option(None, "--seed", metavar="S",
                                       help="Random seed: the same seed and N give the same result."
                                            " Default: fresh randomness (the seed used is reported in --json)."),
    variant: str = typer.Option("standard", "--variant", metavar="standard|watch",
                                help="watch: a lost game may swap its fourth king once for a face-down card."),
    policy: Optional[str] = typer.Option(
        None, "--policy", metavar="POLICY",
        help="Watch only: what the fourth king is swapped for. random | bottom-of-fullest (default) |"
             " top-of-fullest | best (an ORACLE that sees the face-down cards: wins whenever any swap wins)"
             " | none (never swap)."),
    as_json: bool = typer.Option(False, "--json",
                                 help="Print one JSON object (games, wins, win_rate, ci95, mean_face_up,"
                                      " distribution, deals_per_second, ...) instead of the text report."),
    plot: Optional[str] = typer.Option(None, "--plot", metavar="FILE.png",
                                       help="Also draw the measured face-up distribution against the exact"
                                            " one into FILE.png."),
) -> None:
    """Shuffle and play many random deals (vectorised), then report the win rate with its 95% interval,
    the mean number of face-up cards and the distribution beside the exact P(N = n) = C(n-1,3)/C(52,4).

    A progress bar shows on stderr when it is a terminal.
    """
    from ..progress import Progress
    from ..simulate import POLICIES, simulate as run_simulation

    if games is None:
        fail("--games N is required (how many deals to simulate, e.g. --games 1000000)")
    n_games = _count(games)
    seed_value = _seed(seed)
    variant_value = variant.strip().lower()
    if variant_value not in _VARIANTS:
        fail(f"unknown variant {variant!r} (use standard or watch)")
    if policy is None:
        policy_value = _DEFAULT_WATCH_POLICY if variant_value == "watch" else "none"
    else:
        policy_value = policy.strip().lower()
        if policy_value not in POLICIES:
            fail(f"unknown policy {policy!r} (use {', '.join(p for p in POLICIES)})")
        if variant_value != "watch" and policy_value != "none":
            fail(f"--policy {policy_value} needs --variant watch (only Watch has the king swap)")
    plot_path = _check_plot_path(plot) if plot is not None else None

    bar = Progress(n_games, f"simulate {variant_value}")
    try:
        result = run_simulation(n_games, seed=seed_value, variant=variant_value, policy=policy_value,
                                progress=bar.update)
    finally:
        bar.close()

    if plot_path is not None:
        from ..plot import save_distribution_plot

        try:
            save_distribution_plot(result, plot_path)
        except OSError as exc:
            fail(f"cannot write --plot {str(plot_path)!r}: {exc}")

    if as_json:
        typer.echo(json.dumps(result.to_json()))
    else:
        typer.echo(format_report(result, plot_path))


def format_report(result, plot_path: Optional[Path] = None) -> str:
    """The text report: win rate, mean, the distribution table beside the exact odds, speed."""
    from ..simulate import exact_distribution, exact_mean

    exact = exact_distribution()
    lo, hi = result.ci95
    lines = []
    what = "standard" if result.variant == "standard" else f"Watch, policy {result.policy}"
    if result.policy == "best":
        what += " = an ORACLE that sees the face-down cards"
    lines.append(f"Clock Patience ({what}): {result.games:,} random deals, seed {result.seed}")
    lines.append(f"  win rate      {100 * result.win_rate:7.4f}%   95% interval {100 * lo:.4f}% .. {100 * hi:.4f}%"
                 f"   ({result.wins:,} won)")
    if result.variant == "standard":
        lines.append(f"  exact         {100 / 13:7.4f}%   (1/13)")
    else:
        lines.append(f"  standard wins {100 * result.standard_wins / result.games:7.4f}%   (before the swap;"
                     f" exact 1/13 = {100 / 13:.4f}%); {result.exchanges:,} swaps")
    lines.append(f"  mean face-up  {result.mean_face_up:7.3f}    (exact standard {exact_mean():.1f})")
    lines.append(f"  speed         {result.deals_per_second:,.0f} deals/s ({result.seconds:.2f} s)")
    lines.append("")
    lines.append(f"  {'face-up':>7}  {'games':>11}  {'measured':>9}  {'exact P(N=n)':>12}")
    for n in range(4, 53):
        count = result.distribution.get(n, 0)
        lines.append(f"  {n:>7}  {count:>11,}  {100 * count / result.games:8.4f}%  {100 * exact[n]:11.4f}%")
    if result.variant != "standard":
        lines.append("  (the exact column is the standard game's; a Watch swap turns up more cards)")
    if plot_path is not None:
        lines.append(f"plot written to {plot_path}")
    return "\n".join(lines)
