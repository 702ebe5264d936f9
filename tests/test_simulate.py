"""The vectorised simulator against the exact rules engine, the exact odds, and the CLI."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from typer.testing import CliRunner

from companion.cli import app
from companion.rules import ClockGame, Deal
from companion.simulate import (
    BLOCK,
    POLICIES,
    _BOUNDS,
    _THRESH,
    _block_generator,
    _block_randoms,
    deals_to_ranks,
    exact_distribution,
    exact_mean,
    play_deals,
    random_deals,
    ranks_to_deal,
    simulate,
    wilson_interval,
)
from tests.conftest import reaches

SEEDED_DEALS = [Deal.random(s) for s in range(3000)]
SEEDED_RANKS = deals_to_ranks(SEEDED_DEALS)


def _watch_game(deal: Deal) -> ClockGame:
    g = ClockGame(deal, "watch")
    g.play()
    return g


def _chi2_bound(df: int, z: float) -> float:
    """Wilson-Hilferty upper quantile of chi-square(df) for a normal quantile z."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


# --------------------------------------------------------------------------------------------
# deal by deal against ClockGame
# --------------------------------------------------------------------------------------------
def test_standard_play_matches_clockgame_deal_by_deal():
    res = play_deals(SEEDED_RANKS)
    for k, deal in enumerate(SEEDED_DEALS):
        out = ClockGame(deal).play()
        assert (bool(res.won[k]), int(res.face_up[k])) == (out.won, out.face_up), f"Deal.random({k})"
    assert 100 < res.won.sum() < 400  # some wins among them: both branches checked


def test_simulated_random_deals_match_clockgame():
    """The deals simulate() shuffles, played by ClockGame, give simulate()'s distribution exactly."""
    ranks = random_deals(2500, seed=11)
    assert ranks.shape == (2500, 13, 4)
    assert all((np.bincount(r.reshape(-1), minlength=14)[1:] == 4).all() for r in ranks)
    counts = Counter()
    per_deal = play_deals(ranks)
    for k, r in enumerate(ranks):
        out = ClockGame(ranks_to_deal(r)).play()
        assert (out.won, out.face_up) == (bool(per_deal.won[k]), int(per_deal.face_up[k]))
        counts[out.face_up] += 1
    result = simulate(2500, seed=11)
    assert result.distribution == {n: counts.get(n, 0) for n in range(4, 53)}
    assert result.wins == counts[52]


def test_ranks_round_trip():
    assert deals_to_ranks([ranks_to_deal(SEEDED_RANKS[5])]).tolist() == SEEDED_RANKS[5:6].tolist()


@pytest.mark.parametrize("policy", ["bottom-of-fullest", "top-of-fullest", "random"])
def test_watch_policies_match_clockgame(policy):
    ranks = SEEDED_RANKS[:1500]
    res = play_deals(ranks, policy=policy, rng=5)
    for k, deal in enumerate(SEEDED_DEALS[:1500]):
        g = _watch_game(deal)
        assert bool(res.won[k]) == (not g.can_exchange())
        if not g.can_exchange():
            assert res.pile[k] == 0 and bool(res.watch_won[k])
            continue
        sizes = {p: len(g.face_down[p]) for p in range(1, 13)}
        fullest = max(sizes.values())
        q = min(p for p, v in sizes.items() if v == fullest)
        pile, depth = int(res.pile[k]), int(res.depth[k])
        if policy == "bottom-of-fullest":
            assert (pile, depth) == (q, fullest - 1)
        elif policy == "top-of-fullest":
            assert (pile, depth) == (q, 0)
        else:
            assert 0 <= depth < sizes[pile]
        g.exchange(pile, depth)
        out = g.play()
        assert (bool(res.watch_won[k]), int(res.watch_face_up[k])) == (out.won, out.face_up), (policy, k)


def test_random_policy_is_uniform_over_face_down_cards():
    ranks = SEEDED_RANKS[:200]
    base = play_deals(ranks)
    lost = np.flatnonzero(~base.won)
    k = lost[0]
    m = 52 - int(base.face_up[k])
    picks = Counter()
    rng = np.random.default_rng(0)
    rep = np.repeat(ranks[k:k + 1], 20 * m, axis=0)
    res = play_deals(rep, policy="random", rng=rng)
    picks.update(zip(res.pile.tolist(), res.depth.tolist()))
    assert len(picks) == m  # every face-down card can be chosen
    chi2 = sum((c - 20) ** 2 / 20 for c in picks.values())
    assert chi2 < _chi2_bound(m - 1, 4.0)


def test_explicit_exchanges_match_clockgame():
    rnd = random.Random(3)
    deals = SEEDED_DEALS[1000:2200]
    piles, depths, expected = [], [], []
    for deal in deals:
        g = _watch_game(deal)
        if not g.can_exchange():
            piles.append(0), depths.append(0), expected.append(g.outcome())
            continue
        p = rnd.choice([p for p in range(1, 13) if g.face_down[p]])
        d = rnd.randrange(len(g.face_down[p]))
        g.exchange(p, d)
        piles.append(p), depths.append(d), expected.append(g.play())
    res = play_deals(deals_to_ranks(deals), exchange=(piles, depths))
    got = list(zip(res.watch_won.tolist(), res.watch_face_up.tolist()))
    assert got == [(o.won, o.face_up) for o in expected]


def test_explicit_exchange_must_name_a_face_down_card():
    lost = next(k for k in range(100) if not ClockGame(SEEDED_DEALS[k]).play().won)
    with pytest.raises(ValueError):
        play_deals(SEEDED_RANKS[lost:lost + 1], exchange=([13], [0]))
    with pytest.raises(ValueError):
        play_deals(SEEDED_RANKS[lost:lost + 1], exchange=([1], [4]))


def test_best_policy_is_a_true_oracle():
    """best: the bottom-card swap that turns up most cards; no swap at all (any depth) wins where it loses."""
    deals = SEEDED_DEALS[:300]
    res = play_deals(deals_to_ranks(deals), policy="best")
    for k, deal in enumerate(deals):
        g = _watch_game(deal)
        if not g.can_exchange():
            continue
        outcomes = {}
        for p in range(1, 13):
            for d in range(len(g.face_down[p])):
                h = g.copy()
                h.exchange(p, d)
                outcomes[(p, d)] = h.play()
        bottoms = {(p, len(g.face_down[p]) - 1): outcomes[(p, len(g.face_down[p]) - 1)]
                   for p in range(1, 13) if g.face_down[p]}
        best_face_up = max(o.face_up for o in bottoms.values())
        chosen = (int(res.pile[k]), int(res.depth[k]))
        assert chosen in bottoms and bottoms[chosen].face_up == best_face_up
        assert int(res.watch_face_up[k]) == best_face_up
        assert bool(res.watch_won[k]) == any(o.won for o in outcomes.values())
        # the stated fact: a non-bottom card of a pile with 2+ face-down cards never wins
        assert not any(o.won for (p, d), o in outcomes.items() if d < len(g.face_down[p]) - 1)


def test_watch_bottom_swap_wins_with_probability_f_over_m():
    """P(win | swap for the bottom of q) = f_q / m: compare the mean predicted chance with the wins."""
    res = play_deals(random_deals(40_000, seed=21), policy="bottom-of-fullest")
    lost = ~res.won
    f = res.depth[lost] + 1
    m = 52 - res.face_up[lost]
    predicted = f / m
    wins = res.watch_won[lost]
    sd = math.sqrt((predicted * (1 - predicted)).sum())
    assert abs(wins.sum() - predicted.sum()) < 4 * sd


# --------------------------------------------------------------------------------------------
# randomness, determinism, statistics
# --------------------------------------------------------------------------------------------
def test_same_seed_same_result_any_chunk():
    a = simulate(40_000, seed=5)
    assert a == simulate(40_000, seed=5, chunk=BLOCK)
    assert a == simulate(40_000, seed=5, chunk=5 * BLOCK)
    assert a.distribution != simulate(40_000, seed=6).distribution
    w = simulate(20_000, seed=5, variant="watch", policy="random")
    assert w == simulate(20_000, seed=5, variant="watch", policy="random", chunk=BLOCK)
    assert np.array_equal(random_deals(BLOCK + 10, seed=5)[:BLOCK], random_deals(BLOCK, seed=5))


def test_no_seed_reports_a_reproducible_seed():
    a = simulate(3000)
    assert a.seed is not None and simulate(3000, seed=a.seed) == a


def test_lemire_rejections_are_redrawn():
    gen = _block_generator(np.random.SeedSequence(1), 0)
    out = np.empty((52, BLOCK), np.uint16)
    rejected_before = ((gen.bit_generator.random_raw(13 * BLOCK).view(np.uint16).reshape(52, BLOCK)[:51]
                        * _BOUNDS[:, None]) < _THRESH[:, None]).sum()
    assert rejected_before > 0  # the redraw path is exercised
    _block_randoms(_block_generator(np.random.SeedSequence(1), 0), out)
    assert not ((out[:51] * _BOUNDS[:, None]) < _THRESH[:, None]).any()


def test_shuffle_positions_are_uniform():
    ranks = random_deals(26_000, seed=2).reshape(-1, 52).astype(np.intp)
    counts = np.zeros((52, 14), np.int64)
    for pos in range(52):
        counts[pos] = np.bincount(ranks[:, pos], minlength=14)
    expected = len(ranks) / 13
    chi2 = ((counts[:, 1:] - expected) ** 2 / expected).sum()
    assert chi2 < _chi2_bound(52 * 12, 4.0)
    # pairs: the top cards of piles 1 and 2 have the same rank with probability 3/51
    same = (ranks[:, 0] == ranks[:, 4]).mean()
    assert abs(same - 3 / 51) < 4 * math.sqrt(3 / 51 * 48 / 51 / len(ranks))


def test_win_rate_and_distribution_match_the_exact_odds():
    r = simulate(100_000, seed=2024)
    assert r.games == 100_000 and sum(r.distribution.values()) == 100_000
    lo, hi = wilson_interval(r.wins, r.games, z=3.2905267314919255)  # 99.9 %
    assert lo < 1 / 13 < hi
    assert r.ci95[0] < r.win_rate < r.ci95[1]
    exact = exact_distribution()
    # pool the rare low counts so every expected count is at least 20
    chi2, df, acc_o, acc_e = 0.0, -1, 0, 0.0
    for n in range(4, 53):
        acc_o += r.distribution[n]
        acc_e += exact[n] * r.games
        if acc_e >= 20:
            chi2 += (acc_o - acc_e) ** 2 / acc_e
            df += 1
            acc_o, acc_e = 0, 0.0
    assert df > 35
    assert chi2 < _chi2_bound(df, 3.719)  # p = 1e-4
    assert abs(r.mean_face_up - exact_mean()) < 0.1


def test_exact_facts():
    d = exact_distribution()
    assert set(d) == set(range(4, 53))
    assert math.isclose(sum(d.values()), 1.0)
    assert math.isclose(d[52], 1 / 13)
    assert math.isclose(exact_mean(), 42.4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and 0 < hi < 0.35


def test_watch_policies_order():
    rates = {p: simulate(30_000, seed=9, variant="watch", policy=p).win_rate for p in POLICIES}
    assert abs(rates["none"] - 1 / 13) < 0.01
    assert rates["none"] < rates["top-of-fullest"] < rates["random"] < rates["bottom-of-fullest"] <= rates["best"]


def test_bad_arguments():
    with pytest.raises(ValueError):
        simulate(0)
    with pytest.raises(ValueError):
        simulate(10, policy="random")
    with pytest.raises(ValueError):
        simulate(10, variant="watch", policy="greedy")
    with pytest.raises(ValueError):
        simulate(10, variant="klondike")


# --------------------------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------------------------
runner = CliRunner()
JSON_KEYS = {"games", "wins", "win_rate", "ci95", "mean_face_up", "distribution", "deals_per_second"}


def test_cli_json():
    r = runner.invoke(app, ["simulate", "--games", "20000", "--seed", "1", "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert set(got) == JSON_KEYS | {"variant", "policy", "seed", "exact"}
    assert got["exact"]["distribution"]["52"] == pytest.approx(1 / 13)
    assert got["games"] == 20000 and sum(got["distribution"].values()) == 20000
    assert set(got["distribution"]) == {str(n) for n in range(4, 53)}
    assert got["wins"] == got["distribution"]["52"]
    assert got["ci95"][0] < got["win_rate"] < got["ci95"][1] and got["deals_per_second"] > 0
    again = json.loads(runner.invoke(app, ["simulate", "--games", "2e4", "--seed", "1", "--json"]).stdout)
    assert again["distribution"] == got["distribution"]


def test_cli_text_and_watch(tmp_path):
    r = runner.invoke(app, ["simulate", "--games", "10000", "--seed", "3"])
    assert r.exit_code == 0, r.output
    assert "win rate" in r.stdout and "95% interval" in r.stdout and "deals/s" in r.stdout
    assert r.stdout.count("%") > 90  # the table: measured and exact for n = 4..52
    r = runner.invoke(app, ["simulate", "-n", "10000", "--seed", "3", "--variant", "watch",
                            "--policy", "best", "--json"])
    got = json.loads(r.stdout)
    assert got["variant"] == "watch" and got["policy"] == "best" and got["win_rate"] > 0.3


@pytest.mark.parametrize("args, message", [
    (["--games", "0"], "--games"),
    (["--games", "-5"], "--games"),
    (["--games", "lots"], "--games"),
    ([], "--games"),
    (["--games", "10", "--policy", "random"], "watch"),
    (["--games", "10", "--variant", "watch", "--policy", "greedy"], "policy"),
    (["--games", "10", "--variant", "klondike"], "variant"),
    (["--games", "10", "--seed", "x"], "--seed"),
    (["--games", "10", "--plot", "/nonexistent-dir/x.png"], "--plot"),
    (["--games", "10", "--plot", "chart.jpg"], "--plot"),
])
def test_cli_bad_input(args, message):
    r = runner.invoke(app, ["simulate", *args])
    assert r.exit_code == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]


def test_cli_subprocess_exit_codes(tmp_path):
    exe = [sys.executable, "-m", "companion", "simulate"]
    bad = subprocess.run([*exe, "--games", "0"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    png = tmp_path / "d.png"
    ok = subprocess.run([*exe, "--games", "5000", "--seed", "4", "--json", "--plot", str(png)],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert JSON_KEYS <= set(json.loads(ok.stdout)) and ok.stderr == ""  # no bar when not a tty
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bottom_swap_follows_the_arrow_criterion():
    """Swapping for the bottom face-down card of q wins iff every pile with cards face down reaches q
    along p -> home(bottom face-down card of p) (q's own arrow ignored)."""
    deals = SEEDED_DEALS[2000:2400]
    checked = 0
    for deal in deals:
        g = _watch_game(deal)
        if not g.can_exchange():
            continue
        down = {p: g.face_down[p] for p in range(1, 13) if g.face_down[p]}
        arrow = {p: cards[-1].home_pile for p, cards in down.items()}
        piles = list(down)
        res = play_deals(deals_to_ranks([deal] * len(piles)),
                         exchange=(piles, [len(down[p]) - 1 for p in piles]))
        for k, q in enumerate(piles):
            assert bool(res.watch_won[k]) == all(reaches(p, q, arrow) for p in piles), (deal.format_piles(), q)
            checked += 1
    assert checked > 1000


def test_cli_help_describes_every_option():
    r = runner.invoke(app, ["simulate", "--help"])
    assert r.exit_code == 0
    for option in ("--games", "--seed", "--variant", "--policy", "--json", "--plot", "ORACLE"):
        assert option in r.stdout
