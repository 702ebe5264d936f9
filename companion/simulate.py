"""Vectorised Monte Carlo simulation of Clock Patience: many random deals, really shuffled and played.

Only ranks matter for the outcome, so a deal is 13 piles of four ranks (1..13, K = 13 = the
centre). Each deal is held as sixteen ``uint16`` words, one per pile, four 4-bit ranks per word
with the top card in the low nibble::

    slot 0      the *sink*: always 0, a finished game keeps drawing "card 0" from here
    slots 1..12 the clock piles, slot 13 the centre, slots 14..15 unused (0)

One step of play, for every deal of a chunk at once, is a gather, a shift, a scatter, a mask
and an add::

    w = W[idx]; W[idx] = w >> 4; idx = base + (w & 15)

After the fourth king the centre word is 0, so the next "card" is 0 and the game parks in the
sink; 52 steps finish every game. What is left face down is the count of non-zero nibbles.

Shuffling is an inside-out Fisher-Yates over the 52 positions, vectorised across the deals of a
chunk, with exactly uniform indices: Lemire's multiply-shift on 16-bit random numbers with its
rejection step (rejected draws, about 1 deal in 100, are redrawn). Random numbers come from one
``SFC64`` generator per block of :data:`BLOCK` deals, spawned from the seed, so a result depends
on ``seed`` and ``games`` only, never on ``chunk``.

>>> r = simulate(20_000, seed=1)
>>> r.games, sum(r.distribution.values()), abs(r.win_rate - 1 / 13) < 0.01
(20000, 20000, True)
>>> simulate(5_000, seed=7, chunk=BLOCK) == simulate(5_000, seed=7, chunk=4 * BLOCK)
True
>>> round(sum(exact_distribution().values()), 12), round(exact_mean(), 4)
(1.0, 42.4)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

__all__ = [
    "BLOCK",
    "DEFAULT_CHUNK",
    "POLICIES",
    "VARIANTS",
    "SimulationResult",
    "PlayResult",
    "simulate",
    "play_deals",
    "random_deals",
    "choose_exchange",
    "exact_distribution",
    "exact_mean",
    "wilson_interval",
    "deals_to_ranks",
    "ranks_to_deal",
]

#: Deals per random-number block (one generator each); chunks are whole blocks.
BLOCK = 8192
#: Deals played together (numpy arrays stay in the L2 cache).
DEFAULT_CHUNK = 32768
VARIANTS = ("standard", "watch")
#: Watch policies: what the player exchanges the fourth king for when the game is lost.
POLICIES = ("none", "random", "bottom-of-fullest", "top-of-fullest", "best")
POLICY_HELP = {
    "none": "never exchange (Watch plays like standard)",
    "random": "a uniformly random face-down card",
    "bottom-of-fullest": "the bottom face-down card of the pile with most face-down cards (ties: lowest pile)",
    "top-of-fullest": "the top face-down card of the pile with most face-down cards (ties: lowest pile)",
    "best": "ORACLE (sees the face-down cards): the bottom-card exchange that turns up most cards, "
    "so it wins whenever any exchange wins",
}

_SINK = 0
_CENTRE = 13
_SLOTS = 16
# Inside-out Fisher-Yates: step i (1..51) draws j uniform in [0, i] with bound i + 1.
_BOUNDS = np.arange(2, 53, dtype=np.uint16)
_THRESH = (65536 % _BOUNDS.astype(np.uint32)).astype(np.uint16)  # Lemire rejection thresholds
_VALUES = (np.arange(52) // 4 + 1).astype(np.uint8)  # the multiset of ranks, four of each
_NIBBLE_LOW = np.uint64(0x1111111111111111)
_WORDS_PER_DEAL = 13  # raw 64-bit draws per deal: 52 x 16 bits, 51 used


# --------------------------------------------------------------------------------------------
# exact facts and statistics
# --------------------------------------------------------------------------------------------
def exact_distribution() -> dict[int, float]:
    """Exact P(face_up = n) = C(n-1, 3) / C(52, 4) for n = 4..52 (standard game)."""
    total = math.comb(52, 4)
    return {n: math.comb(n - 1, 3) / total for n in range(4, 53)}


def exact_mean() -> float:
    """Exact mean number of face-up cards, 42.4."""
    return sum(n * p for n, p in exact_distribution().items())


def wilson_interval(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (default 95 %).

    >>> [round(x, 4) for x in wilson_interval(77, 1000)]
    [0.062, 0.0952]
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class SimulationResult:
    """What :func:`simulate` measured. ``distribution`` maps face_up n (4..52) to a count."""

    games: int
    wins: int
    win_rate: float
    ci95: tuple[float, float]
    mean_face_up: float
    distribution: dict[int, int]
    deals_per_second: float
    variant: str = "standard"
    policy: str = "none"
    seed: int | None = None
    seconds: float = 0.0
    standard_wins: int = 0  # wins before any Watch exchange
    exchanges: int = 0  # Watch exchanges made

    def __eq__(self, other: object) -> bool:  # timing is not part of the result
        if not isinstance(other, SimulationResult):
            return NotImplemented
        keys = ("games", "wins", "distribution", "variant", "policy", "seed", "standard_wins", "exchanges")
        return all(getattr(self, k) == getattr(other, k) for k in keys)

    def to_json(self) -> dict:
        """The ``--json`` object: the measured figures, what was run, and the exact standard odds."""
        exact = exact_distribution()
        return {
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "ci95": [self.ci95[0], self.ci95[1]],
            "mean_face_up": self.mean_face_up,
            "distribution": {str(n): int(self.distribution.get(n, 0)) for n in range(4, 53)},
            "deals_per_second": self.deals_per_second,
            "variant": self.variant,
            "policy": self.policy,
            "seed": self.seed,
            "exact": {
                "win_rate": 1 / 13,
                "mean_face_up": exact_mean(),
                "distribution": {str(n): p for n, p in exact.items()},
            },
        }


# --------------------------------------------------------------------------------------------
# deals <-> arrays
# --------------------------------------------------------------------------------------------
def deals_to_ranks(deals: Iterable) -> np.ndarray:
    """``companion.rules.Deal`` objects -> ``uint8`` array (n, 13, 4): piles 1..13, top card first."""
    rows = [[[c.rank.value for c in d.pile(p)] for p in range(1, 14)] for d in deals]
    return np.asarray(rows, dtype=np.uint8).reshape(-1, 13, 4)


def ranks_to_deal(ranks: np.ndarray):
    """A (13, 4) rank layout -> a ``Deal`` (suits given in C, D, H, S order per rank)."""
    from .cards import Card, Rank, Suit
    from .rules.deal import Deal

    suits = list(Suit)
    used = [0] * 14
    piles = []
    for pile in np.asarray(ranks).reshape(13, 4):
        cards = []
        for r in pile:
            r = int(r)
            cards.append(Card(Rank(r), suits[used[r]]))
            used[r] += 1
        piles.append(cards)
    return Deal.from_piles(piles)


def _pack(ranks: np.ndarray) -> np.ndarray:
    """(n, 13, 4) ranks top first -> (n, 16) uint16 words (slot p = pile p, top in the low nibble)."""
    r = np.asarray(ranks, dtype=np.uint16).reshape(-1, 13, 4)
    if r.size and (r.min() < 1 or r.max() > 13):
        raise ValueError("ranks must be 1..13")
    W = np.zeros((r.shape[0], _SLOTS), dtype=np.uint16)
    W[:, 1:14] = r[..., 0] | (r[..., 1] << 4) | (r[..., 2] << 8) | (r[..., 3] << 12)
    return W


def _unpack(W: np.ndarray) -> np.ndarray:
    """(n, 16) words -> (n, 13, 4) ranks (0 = no card), inverse of :func:`_pack`."""
    w = W[:, 1:14]
    return np.stack([(w >> s) & 15 for s in (0, 4, 8, 12)], axis=-1).astype(np.uint8)


def _pack_bytes(a: np.ndarray, ws: "_Workspace | None" = None) -> np.ndarray:
    """(n, 64) uint8, ranks at byte 4p + depth -> (n, 16) uint16 words (four bytes -> four nibbles)."""
    v = a.view(np.uint32)  # little-endian: b0 | b1 << 8 | b2 << 16 | b3 << 24
    if not np.little_endian:  # pragma: no cover - big-endian hosts
        v = v.byteswap()
    if ws is None:
        t = v | (v >> 4)  # low byte: b0 | b1 << 4; third byte: b2 | b3 << 4
        return ((t & 0xFF) | ((t >> 8) & 0xFF00)).astype(np.uint16)
    t, u, W = ws.t32a, ws.t32b, ws.W
    np.right_shift(v, 4, out=t)
    np.bitwise_or(t, v, out=t)
    np.bitwise_and(t, 0xFF, out=u)
    np.right_shift(t, 8, out=t)
    np.bitwise_and(t, 0xFF00, out=t)
    np.bitwise_or(u, t, out=u)
    np.copyto(W, u, casting="unsafe")
    return W


def _face_down(W: np.ndarray, ws: "_Workspace | None" = None) -> np.ndarray:
    """Cards still face down per deal (non-zero nibbles of the 16 words), uint8 (n,)."""
    x = np.ascontiguousarray(W).view(np.uint64)  # (n, 4)
    if ws is None:
        y = x | (x >> np.uint64(1))
        y |= y >> np.uint64(2)
        y &= _NIBBLE_LOW
        c = np.bitwise_count(y)
        return (c[:, 0] + c[:, 1] + c[:, 2] + c[:, 3]).astype(np.uint8)
    y, z, c, out = ws.y64, ws.z64, ws.c8, ws.rem
    np.right_shift(x, np.uint64(1), out=y)
    np.bitwise_or(y, x, out=y)
    np.right_shift(y, np.uint64(2), out=z)
    np.bitwise_or(y, z, out=y)
    np.bitwise_and(y, _NIBBLE_LOW, out=y)
    np.bitwise_count(y, out=c)
    np.add(c[:, 0], c[:, 1], out=out)
    out += c[:, 2]
    out += c[:, 3]
    return out


def _pile_counts(W: np.ndarray) -> np.ndarray:
    """Face-down cards in piles 1..12, (n, 12) uint8 (a pile's cards are its low nibbles)."""
    w = W[:, 1:13]
    return ((w > 0).astype(np.uint8) + (w > 0xF) + (w > 0xFF) + (w > 0xFFF)).astype(np.uint8)


# --------------------------------------------------------------------------------------------
# play
# --------------------------------------------------------------------------------------------
def _run(Wf: np.ndarray, idx: np.ndarray, base: np.ndarray, steps: int | None = None,
         ws: "_Workspace | None" = None) -> None:
    """Play in place until every deal is in the sink (or ``steps`` steps), from pile slots ``idx``."""
    n = idx.shape[0]
    if ws is None:
        w = np.empty(n, dtype=np.uint16)
        s = np.empty(n, dtype=np.uint16)
    else:
        w, s = ws.w, ws.s
    done = 0
    while True:
        todo = 8 if steps is None else steps - done
        for _ in range(todo):
            np.take(Wf, idx, out=w, mode="clip")  # the top face-down card of the current pile
            np.right_shift(w, 4, out=s)
            Wf[idx] = s  # ... is taken off the pile
            np.bitwise_and(w, 15, out=w)
            np.add(base, w, out=idx)  # and play goes on at its home pile
        done += todo
        if steps is not None or not w.any():
            return


def _play_standard(W: np.ndarray, ws: "_Workspace | None" = None) -> None:
    """Play every deal of W (n, 16) in place to the fourth king (52 steps)."""
    n = W.shape[0]
    if ws is None:
        base = np.arange(n, dtype=np.intp) * _SLOTS
        idx = np.empty(n, dtype=np.intp)
    else:
        base, idx = ws.base16, ws.idx
    # the first card, the top of the centre, without a gather
    first = W[:, _CENTRE] & 15
    W[:, _CENTRE] >>= 4
    np.add(base, first, out=idx)
    _run(W.reshape(-1), idx, base, steps=51, ws=ws)


def _apply_exchange(W: np.ndarray, pile: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Put a king (13) at (pile, depth) of each row of W in place; returns the cards taken."""
    rows = np.arange(W.shape[0])
    shift = (4 * depth.astype(np.uint16)).astype(np.uint16)
    w = W[rows, pile]
    taken = (w >> shift) & 15
    W[rows, pile] = (w & ~(np.uint16(15) << shift)) | (np.uint16(_CENTRE) << shift)
    return taken


def _continue_after_exchange(W: np.ndarray, taken: np.ndarray) -> None:
    """Watch: the taken card goes beneath its home pile; play on from there until the king returns.

    Games end after very different numbers of cards, so every 8 steps the games still going are
    packed together once they are less than half of those being played.
    """
    n = W.shape[0]
    if n == 0:
        return
    rows = np.arange(n)
    Wc = W  # the rows in play (W itself until the first packing)
    cards = taken.astype(np.uint16)
    while True:
        k = Wc.shape[0]
        base = np.arange(k, dtype=np.intp) * _SLOTS
        idx = base + cards
        Wf = Wc.reshape(-1)
        w = np.empty(k, dtype=np.uint16)
        s = np.empty(k, dtype=np.uint16)
        while True:
            for _ in range(8):
                np.take(Wf, idx, out=w, mode="clip")
                np.right_shift(w, 4, out=s)
                Wf[idx] = s
                np.bitwise_and(w, 15, out=w)
                np.add(base, w, out=idx)
            active = w != 0
            na = int(np.count_nonzero(active))
            if na == 0 or 2 * na < k:
                break
        if Wc is not W:
            done = ~active
            W[rows[done]] = Wc[done]
        if na == 0:
            return
        Wc, rows, cards = Wc[active], rows[active], w[active]


def choose_exchange(W: np.ndarray, policy: str, rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The (pile, depth) each lost deal of W (n, 16, after play) exchanges for under ``policy``.

    ``best`` is handled by :func:`_best_exchange` (it plays the candidates).
    """
    counts = _pile_counts(W)
    if policy in ("bottom-of-fullest", "top-of-fullest"):
        q = counts.argmax(axis=1)  # first maximum: lowest pile number on ties
        f = counts[np.arange(len(q)), q]
        depth = f.astype(np.int64) - 1 if policy == "bottom-of-fullest" else np.zeros(len(q), np.int64)
        return (q + 1).astype(np.int64), depth
    if policy == "random":
        if rng is None:
            raise ValueError("the random policy needs a generator")
        cT = np.ascontiguousarray(counts.T).astype(np.int64)  # (12, n)
        m = cT.sum(axis=0)
        r = rng.integers(0, m) if len(m) else np.zeros(0, np.int64)  # exactly uniform in [0, m)
        # the r-th face-down card, counting piles 1..12 and each pile top first
        q = np.zeros(len(m), np.int64)
        before = np.zeros(len(m), np.int64)
        acc = np.zeros(len(m), np.int64)
        for p in range(12):
            acc += cT[p]
            passed = acc <= r
            q += passed
            np.copyto(before, acc, where=passed)
        return q + 1, r - before
    raise ValueError(f"unknown policy {policy!r}")


def _best_exchange(W: np.ndarray, sub: int = 2048) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Oracle: play the bottom-card exchange of every pile with cards face down; keep the best.

    Returns (pile, depth, W after the chosen exchange played out). Non-bottom cards of piles with
    two or more face-down cards never win, so a winning exchange is found whenever one exists;
    among the bottoms it maximises the cards turned up (lowest pile on ties).
    """
    n = W.shape[0]
    pile = np.zeros(n, np.int64)
    depth = np.zeros(n, np.int64)
    out = np.empty_like(W)
    for s in range(0, n, sub):
        Ws = W[s:s + sub]
        k = Ws.shape[0]
        counts = _pile_counts(Ws).astype(np.int64).reshape(-1)  # (k * 12,): deal-major, piles 1..12
        cand = np.flatnonzero(counts)  # one candidate per pile with cards face down
        row = cand // 12
        q = cand % 12 + 1
        d = counts[cand] - 1  # its bottom face-down card
        Wc = Ws[row]
        taken = _apply_exchange(Wc, q, d)
        _continue_after_exchange(Wc, taken)
        fu = np.full(k * 12, -1, np.int64)
        fu[cand] = 52 - _face_down(Wc).astype(np.int64)
        best = fu.reshape(k, 12).argmax(axis=1)  # most cards up (52 = won); lowest pile on ties
        pick = np.searchsorted(cand, np.arange(k) * 12 + best)
        pile[s:s + k] = q[pick]
        depth[s:s + k] = d[pick]
        out[s:s + k] = Wc[pick]
    return pile, depth, out


@dataclass
class PlayResult:
    """Per-deal outcomes of :func:`play_deals`.

    ``won``/``face_up``: the standard game (before any exchange). For Watch, ``pile``/``depth``
    is the exchange made (0/-1 where none: a won deal), and ``watch_won``/``watch_face_up`` the
    final outcome.
    """

    won: np.ndarray
    face_up: np.ndarray
    pile: np.ndarray | None = None
    depth: np.ndarray | None = None
    watch_won: np.ndarray | None = None
    watch_face_up: np.ndarray | None = None


def play_deals(
    ranks: np.ndarray,
    exchange: tuple[Sequence[int], Sequence[int]] | None = None,
    policy: str | None = None,
    rng: np.random.Generator | int | None = None,
) -> PlayResult:
    """Play explicit deals (``ranks``: (n, 13, 4), piles 1..13, top first; see :func:`deals_to_ranks`).

    With ``exchange=(piles, depths)`` (per deal; pile 0 = no exchange) or ``policy`` the Watch
    variant is played too: each lost deal exchanges its fourth king for that face-down card.

    >>> from companion.rules import Deal
    >>> r = play_deals(deals_to_ranks([Deal.random(1)]))
    >>> bool(r.won[0]), int(r.face_up[0])
    (False, 48)
    """
    W = _pack(ranks)
    _play_standard(W)
    rem = _face_down(W)
    res = PlayResult(won=rem == 0, face_up=(52 - rem.astype(np.int64)))
    if exchange is None and policy in (None, "none"):
        return res
    lost = np.flatnonzero(rem > 0)
    pile = np.zeros(len(W), np.int64)
    depth = np.full(len(W), -1, np.int64)
    if exchange is not None:
        p = np.asarray(exchange[0], dtype=np.int64)
        d = np.asarray(exchange[1], dtype=np.int64)
        sel = lost[p[lost] > 0]
        counts = _pile_counts(W[sel])
        have = counts[np.arange(len(sel)), np.clip(p[sel] - 1, 0, 11)]
        if np.any((p[sel] > 12) | (d[sel] < 0) | (d[sel] >= have)):
            raise ValueError("an exchange names no face-down card")
        pile[sel], depth[sel] = p[sel], d[sel]
        Wl = W[sel]
        taken = _apply_exchange(Wl, pile[sel], depth[sel])
        _continue_after_exchange(Wl, taken)
        W[sel] = Wl
    elif policy == "best":
        q, d, Wl = _best_exchange(W[lost])
        pile[lost], depth[lost] = q, d
        W[lost] = Wl
    else:
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        q, d = choose_exchange(W[lost], policy, gen)  # type: ignore[arg-type]
        pile[lost], depth[lost] = q, d
        Wl = W[lost]
        taken = _apply_exchange(Wl, q, d)
        _continue_after_exchange(Wl, taken)
        W[lost] = Wl
    rem2 = _face_down(W)
    res.pile, res.depth = pile, depth
    res.watch_won, res.watch_face_up = rem2 == 0, 52 - rem2.astype(np.int64)
    return res


# --------------------------------------------------------------------------------------------
# random deals
# --------------------------------------------------------------------------------------------
def _seed_sequence(seed: int | None) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed)


def _block_generator(ss: np.random.SeedSequence, block: int) -> np.random.Generator:
    child = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, block))
    return np.random.Generator(np.random.SFC64(child))


class _Workspace:
    """Buffers for one chunk of n deals, allocated once and reused (no page faults per chunk)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.UT = np.empty((52, n), dtype=np.uint16)
        self.lo = np.empty((51, BLOCK), dtype=np.uint16)
        self.rej = np.empty((51, BLOCK), dtype=bool)
        self.a = np.zeros((n, 64), dtype=np.uint8)
        self.base64 = np.arange(n, dtype=np.intp) * 64 + 4
        self.base16 = np.arange(n, dtype=np.intp) * _SLOTS
        self.idx = np.empty(n, dtype=np.intp)
        self.m = np.empty(n, dtype=np.uint32)
        self.t8 = np.empty(n, dtype=np.uint8)
        self.t32a = np.empty((n, _SLOTS), dtype=np.uint32)
        self.t32b = np.empty((n, _SLOTS), dtype=np.uint32)
        self.W = np.empty((n, _SLOTS), dtype=np.uint16)
        self.w = np.empty(n, dtype=np.uint16)
        self.s = np.empty(n, dtype=np.uint16)
        self.y64 = np.empty((n, 4), dtype=np.uint64)
        self.z64 = np.empty((n, 4), dtype=np.uint64)
        self.c8 = np.empty((n, 4), dtype=np.uint8)
        self.rem = np.empty(n, dtype=np.uint8)


def _block_randoms(gen: np.random.Generator, out: np.ndarray, ws: _Workspace | None = None) -> None:
    """Fill ``out`` (52, k) with 16-bit random numbers for k deals (row i - 1 drives Fisher-Yates
    step i); draws that Lemire's method rejects are redrawn, so every index is exactly uniform."""
    k = out.shape[1]
    out[...] = gen.bit_generator.random_raw(_WORDS_PER_DEAL * k).view(np.uint16).reshape(52, k)
    if ws is not None and k == BLOCK:
        lo, rej = ws.lo, ws.rej
        np.multiply(out[:51], _BOUNDS[:, None], out=lo)  # (x * b) mod 2**16: Lemire's low half
        np.less(lo, _THRESH[:, None], out=rej)
    else:
        rej = (out[:51] * _BOUNDS[:, None]) < _THRESH[:, None]
    bad = np.flatnonzero(rej)  # row-major: step, then deal
    while len(bad):
        rows, cols = np.divmod(bad, k)
        new = gen.bit_generator.random_raw((len(bad) + 3) // 4).view(np.uint16)[:len(bad)]
        out[rows, cols] = new
        bad = bad[(new * _BOUNDS[rows]) < _THRESH[rows]]


def _shuffle(UT: np.ndarray, ws: _Workspace | None = None) -> np.ndarray:
    """Inside-out Fisher-Yates of the 52 ranks, one deal per column of UT (52, n) -> (n, 64) uint8
    with the ranks at bytes 4..55 (byte 4p + depth: pile p, depth 0 = top)."""
    n = UT.shape[1]
    if ws is None:
        ws = _Workspace(n)
    a, base, idx, m, tmp = ws.a, ws.base64, ws.idx, ws.m, ws.t8
    af = a.reshape(-1)
    a[:, 4] = _VALUES[0]
    for i in range(1, 52):
        np.multiply(UT[i - 1], np.uint32(i + 1), out=m, dtype=np.uint32)
        np.right_shift(m, 16, out=m)  # j = (x * (i + 1)) >> 16, uniform in [0, i]
        np.add(base, m, out=idx)
        np.take(af, idx, out=tmp, mode="clip")
        a[:, 4 + i] = tmp  # a[i] = a[j]
        af[idx] = _VALUES[i]  # a[j] = v_i
    return a


def _random_packed(ss: np.random.SeedSequence, start_block: int, ws: _Workspace,
                   gens: list | None = None) -> np.ndarray:
    """Packed words (n, 16) (in ws.W) for the n = ws.n deals of blocks start_block, start_block + 1, ..."""
    n = ws.n
    for s in range(0, n, BLOCK):
        k = min(BLOCK, n - s)
        gen = _block_generator(ss, start_block + s // BLOCK)
        _block_randoms(gen, ws.UT[:, s:s + k], ws)
        if gens is not None:
            gens.append(gen)
    return _pack_bytes(_shuffle(ws.UT, ws), ws)


def random_deals(games: int, seed: int | None = None) -> np.ndarray:
    """The rank layouts (games, 13, 4) that :func:`simulate` plays for this seed (piles 1..13, top first)."""
    ss = _seed_sequence(seed)
    out = []
    for s in range(0, games, DEFAULT_CHUNK):
        ws = _Workspace(min(DEFAULT_CHUNK, games - s))
        out.append(_unpack(_random_packed(ss, s // BLOCK, ws)))
    return np.concatenate(out) if out else np.zeros((0, 13, 4), np.uint8)


# --------------------------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------------------------
def simulate(
    games: int,
    seed: int | None = None,
    variant: str = "standard",
    policy: str = "none",
    chunk: int = DEFAULT_CHUNK,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Shuffle and play ``games`` random deals; Watch deals that are lost exchange under ``policy``.

    ``progress(k)`` is called after each chunk with the number of deals just played.
    """
    if games <= 0:
        raise ValueError("games must be positive")
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (use {', '.join(VARIANTS)})")
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (use {', '.join(POLICIES)})")
    if variant == "standard" and policy != "none":
        raise ValueError(f"policy {policy!r} needs the watch variant")
    chunk = max(BLOCK, (int(chunk) // BLOCK) * BLOCK)
    ss = _seed_sequence(seed)
    hist = np.zeros(64, dtype=np.int64)
    std_wins = 0
    exchanges = 0
    t0 = time.perf_counter()
    ws = _Workspace(min(chunk, games))
    for start in range(0, games, chunk):
        n = min(chunk, games - start)
        if n != ws.n:
            ws = _Workspace(n)
        gens: list = []
        W = _random_packed(ss, start // BLOCK, ws, gens)
        _play_standard(W, ws)
        rem = _face_down(W, ws)
        std_wins += int(np.count_nonzero(rem == 0))
        if variant == "watch" and policy != "none":
            lost = np.flatnonzero(rem)
            exchanges += len(lost)
            if policy == "best":
                _, _, W[lost] = _best_exchange(W[lost])
            else:
                # per block, so the random policy's draws do not depend on the chunk size
                for b, gen in enumerate(gens):
                    sel = lost[(lost >= b * BLOCK) & (lost < (b + 1) * BLOCK)]
                    Wl = W[sel]
                    q, d = choose_exchange(Wl, policy, gen)
                    taken = _apply_exchange(Wl, q, d)
                    _continue_after_exchange(Wl, taken)
                    W[sel] = Wl
            rem = _face_down(W, ws)
        hist += np.bincount(rem, minlength=64)
        if progress is not None:
            progress(n)
    seconds = time.perf_counter() - t0
    # face_up = 52 - face_down
    dist = {n: int(hist[52 - n]) for n in range(4, 53)}
    wins = dist[52]
    mean = sum(n * c for n, c in dist.items()) / games
    return SimulationResult(
        games=games,
        wins=wins,
        win_rate=wins / games,
        ci95=wilson_interval(wins, games),
        mean_face_up=mean,
        distribution=dist,
        deals_per_second=games / seconds if seconds > 0 else float("inf"),
        variant=variant,
        policy=policy,
        seed=seed if seed is not None else int(ss.entropy),  # type: ignore[arg-type]
        seconds=seconds,
        standard_wins=std_wins,
        exchanges=exchanges,
    )
