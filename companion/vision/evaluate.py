"""Measuring the recogniser: held-out synthetic frames and the real photos of ``shared/data/real-dev``.

Scoring rules (the same for every source):

* a card counts when at least one of its printed indices is at least ``VISIBLE`` visible;
* it is *read right* when a face-up detection lies on it (its index box centre within one index
  height of one of the card's index centres that is at least ``MATCH_VISIBLE`` visible, and no other
  card's index nearer: in a fanned pile the next card's index is often within one index height) and
  names the right rank (suit likewise). A detection reports the box of the corner it read most
  surely, which may be a corner less visible than ``VISIBLE`` (the card still counts by its other);
* *unknown* when no detection reads a rank for it; *confidently wrong* when a detection on it names a
  wrong rank or suit with the confidence the product acts on;
* the Dutch deck's courts print B, V, H: read with the default English alphabet, the right answer
  for those is *unknown* (never a wrong English rank), and the figures say so separately.
"""

from __future__ import annotations

import csv
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from .detections import Detections, rank_label, suit_code

__all__ = ["Score", "score_frame", "evaluate_real_dev", "evaluate_synthetic", "VISIBLE", "score_looks"]

VISIBLE = 0.75
#: A detection's index box may lie on any index of a card at least this visible (the card itself counts
#: only when one of its indices is ``VISIBLE``).
MATCH_VISIBLE = 0.3


@dataclass
class Score:
    cards: int = 0
    rank_right: int = 0
    suit_right: int = 0
    unknown: int = 0
    confident_wrong: int = 0
    expected_unknown: int = 0  # cards whose right answer is "unknown" (foreign court letters)
    unknown_right: int = 0
    strays: int = 0  # confident readings where there is no card index (counted in confident_wrong too)
    confusions: Counter = field(default_factory=Counter)
    by_group: dict = field(default_factory=dict)  # group (e.g. card height) -> Counter of the same counts

    def add(self, other: "Score") -> None:
        for k in ("cards", "rank_right", "suit_right", "unknown", "confident_wrong", "expected_unknown", "unknown_right",
                  "strays"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.confusions.update(other.confusions)
        for g, c in other.by_group.items():
            self.by_group.setdefault(g, Counter()).update(c)

    def rates(self) -> dict:
        n = max(self.cards, 1)
        readable = max(self.cards - self.expected_unknown, 1)
        return {
            "cards": self.cards,
            "rank": round((self.rank_right) / readable, 4) if self.cards - self.expected_unknown else None,
            "suit": round(self.suit_right / n, 4),
            "unknown": round(self.unknown / n, 4),
            "confident_wrong": round(self.confident_wrong / n, 4),
            "foreign_courts": self.expected_unknown,
            "foreign_courts_unknown": self.unknown_right,
            "false_finds": self.strays,
            "worst_confusions": [f"{a}->{b} x{c}" for (a, b), c in self.confusions.most_common(5)],
            **({"by_card_height": {g: {"cards": c["cards"], "rank": round(c["rank_right"] / c["cards"], 4),
                                       "unknown": round(c["unknown"] / c["cards"], 4),
                                       "confident_wrong": round(c["confident_wrong"] / c["cards"], 4)}
                                   for g, c in sorted(self.by_group.items(), key=lambda kv: _bin_order(kv[0]))
                                   if c["cards"]}} if self.by_group else {}),
        }


def _on_card(det_points: np.ndarray, index_points: list[tuple[float, float, float]]) -> np.ndarray:
    """Detections whose index point lies within one index height of one of the card's index points."""
    hit = np.zeros(len(det_points), bool)
    for (x, y, h) in index_points:
        d = np.hypot(det_points[:, 0] - x, det_points[:, 1] - y)
        hit |= d < max(h, 4.0)
    return hit


def _nearest_card(det_points: np.ndarray, truths: list[dict], min_visible: float = MATCH_VISIBLE) -> np.ndarray:
    """Per detection, the truth card whose (at least partly visible) index centre is nearest, in index
    heights; -1 where none is within one index height."""
    owner = np.full(len(det_points), -1)
    best = np.full(len(det_points), 1.0)
    for k, t in enumerate(truths):
        for c in t.get("corners", []):
            if c["visible"] < min_visible:
                continue
            d = np.hypot(det_points[:, 0] - c["point"][0], det_points[:, 1] - c["point"][1]) / max(c["index_h"], 4.0)
            nearer = d < best
            owner[nearer], best[nearer] = k, d[nearer]
    return owner


def score_frame(dets: Detections, truths: Iterable[dict], expect_unknown: Callable[[dict], bool] = lambda t: False,
                visible: float = VISIBLE, group_of: Callable[[dict], str] | None = None) -> Score:
    """Score one frame. Each truth: ``card`` (Card), ``corners``: [{point, visible, index_h}].
    ``group_of(truth)``: also count each card in its group (``Score.by_group``)."""
    sc = Score()
    truths = list(truths)
    up = np.nonzero(dets.face_up)[0]
    boxes = dets.index_boxes[up]
    points = np.c_[(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2] if len(up) else np.zeros((0, 2))
    owner = _nearest_card(points, truths)
    for k, t in enumerate(truths):
        corners = [c for c in t.get("corners", []) if c["visible"] >= visible]
        if not t.get("face_up", True) or not corners:
            continue
        before = (sc.rank_right, sc.unknown, sc.confident_wrong)
        sc.cards += 1
        card = t["card"]
        want_unknown = expect_unknown(t)
        sc.expected_unknown += want_unknown
        on = _on_card(points, [(c["point"][0], c["point"][1], c["index_h"]) for c in t.get("corners", [])
                               if c["visible"] >= min(visible, MATCH_VISIBLE)])
        hits = up[on & ((owner == k) | (owner < 0))]
        ranks = [int(dets.rank[i]) for i in hits if dets.rank[i] > 0]
        suits = [int(dets.suit[i]) for i in hits if dets.suit[i] >= 0]
        true_rank = card.rank.value
        true_suit = "CDHS".index(card.suit.code)
        if not ranks:
            sc.unknown += 1
            sc.unknown_right += want_unknown
        elif not want_unknown and true_rank in ranks and all(r == true_rank for r in ranks):
            sc.rank_right += 1
        if suits and all(s == true_suit for s in suits):
            sc.suit_right += 1
        wrong_rank = any(r != true_rank for r in ranks) or (want_unknown and ranks)
        wrong_suit = any(s != true_suit for s in suits)
        if wrong_rank or wrong_suit:
            sc.confident_wrong += 1
            # name the wrong reading (another detection on the card may have read it right)
            r_got = next((r for r in ranks if r != true_rank or want_unknown), ranks[0] if ranks else 0)
            s_got = next((s for s in suits if s != true_suit), suits[0] if suits else -1)
            got = f"{rank_label(r_got) or '?'}{suit_code(s_got) or '?'}"
            sc.confusions[(card.rank.label + card.suit.code, got)] += 1
        if group_of is not None:
            sc.by_group.setdefault(group_of(t), Counter()).update(
                cards=1, rank_right=sc.rank_right - before[0], unknown=sc.unknown - before[1],
                confident_wrong=sc.confident_wrong - before[2])
    # a confident reading where no card's index is: a false find, as wrong as a misread
    all_corners = [(c["point"][0], c["point"][1], c["index_h"]) for t in truths for c in t.get("corners", [])
                   if c["visible"] > 0.05]
    matched = _on_card(points, all_corners) if all_corners else np.zeros(len(up), bool)
    for k, i in enumerate(up):
        if not matched[k] and (dets.rank[i] > 0 or dets.suit[i] >= 0):
            sc.confident_wrong += 1
            sc.strays += 1
            got = f"{rank_label(int(dets.rank[i])) or '?'}{suit_code(int(dets.suit[i])) or '?'}"
            sc.confusions[("nothing", got)] += 1
    return sc


# ------------------------------------------------------------------------------------------------
# real photos
# ------------------------------------------------------------------------------------------------
def real_dev_labels(root: Path) -> list[dict]:
    with open(root / "labels.csv", newline="") as f:
        return list(csv.DictReader(f))


def _index_points_from_box(box: tuple[float, float, float, float]) -> list[tuple[float, float, float]]:
    """Where the indices of a card filling ``box`` (axis-aligned, any of 4 orientations) can be.

    The photos give the whole card's box, not the indices: a detection anywhere near one of the
    four corners of the box counts as on the card.
    """
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    long_side = max(w, h)
    r = 0.22 * long_side
    return [(x0 + 0.12 * w, y0 + 0.12 * h, r), (x1 - 0.12 * w, y0 + 0.12 * h, r),
            (x0 + 0.12 * w, y1 - 0.12 * h, r), (x1 - 0.12 * w, y1 - 0.12 * h, r)]


def evaluate_real_dev(recognise: Callable[[np.ndarray], Detections], root: Path,
                      progress: Callable[[int], None] | None = None) -> dict[str, dict]:
    """Per folder of real-dev: rank/suit accuracy, unknown and confidently-wrong rates."""
    import cv2

    from ..cards import Card

    per: dict[str, Score] = {}
    for row in real_dev_labels(root):
        folder = row["path"].split("/")[0]
        frame = cv2.imread(str(root / row["path"]), cv2.IMREAD_COLOR)
        if frame is None:
            continue
        card = Card.parse(row["rank"] + row["suit"])
        if all(row.get(k) for k in ("x0", "y0", "x1", "y1")):
            box = tuple(float(row[k]) for k in ("x0", "y0", "x1", "y1"))
            points = _index_points_from_box(box)
        else:  # no box labelled: the photo's one card may be anywhere in it
            h, w = frame.shape[:2]
            points = [(w / 2, h / 2, float(np.hypot(w, h)))]
        corners = [{"point": (x, y), "visible": 1.0, "index_h": r} for x, y, r in points]
        dets = recognise(frame)
        # only detections inside the card's box are about this card; anything else is a false find
        dutch_court = "minemaarten" in folder and row["rank"] in ("J", "Q", "K")
        sc = score_frame(dets, [{"card": card, "corners": corners}], expect_unknown=lambda t: dutch_court)
        per.setdefault(folder, Score()).add(sc)
        if progress:
            progress(1)
    total = Score()
    for s in per.values():
        total.add(s)
    out = {k: v.rates() for k, v in sorted(per.items())}
    out["all"] = total.rates()
    return out


# ------------------------------------------------------------------------------------------------
# held-out synthetic frames
# ------------------------------------------------------------------------------------------------
def evaluate_synthetic(recognise: Callable[[np.ndarray], Detections], frames: Iterable[tuple[np.ndarray, list[dict]]],
                       progress: Callable[[int], None] | None = None,
                       misses: list | None = None) -> tuple[dict, list[float]]:
    """Score rendered frames with exact truth; returns rates and the per-frame recognition times (ms).
    ``misses``: a list that gets (upright corner picture, label) of every card not read right."""
    total = Score()
    times = []
    for img, truths in frames:
        t0 = time.perf_counter()
        dets = recognise(img)
        times.append((time.perf_counter() - t0) * 1000)
        total.add(score_frame(dets, truths, group_of=card_height_bin))
        if misses is not None:
            misses.extend(_missed_corners(img, dets, truths))
        if progress:
            progress(1)
    return total.rates(), times


def _missed_corners(img: np.ndarray, dets: Detections, truths: list[dict]) -> list[tuple[np.ndarray, str]]:
    """An upright picture (72x108) of the best visible corner of each card the detections miss."""
    import cv2

    from .geometry import Pyramid, crop_index

    pyr = Pyramid(img)
    out = []
    for t in truths:
        sc = score_frame(dets, [t])
        if not sc.cards or sc.rank_right:
            continue
        h = _card_height(t)
        c = max(t["corners"], key=lambda c: c["visible"])
        pic = crop_index(pyr, tuple(c["point"]), _corner_up(t, c["point"]), c["index_h"] * 1.6, out_w=48, out_h=72)
        out.append((cv2.resize(pic, (72, 108), interpolation=cv2.INTER_LINEAR), f"{t['card']} {round(h)}px"))
    return out


def contact_sheet(pictures: list[tuple[np.ndarray, str]], columns: int = 16) -> np.ndarray:
    """The pictures in a grid, each with its label underneath (white background)."""
    import cv2

    tiles = []
    for pic, label in pictures:
        tile = cv2.copyMakeBorder(pic, 0, 16, 0, 2, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        cv2.putText(tile, label, (1, tile.shape[0] - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.33, (0, 0, 0), 1, cv2.LINE_AA)
        tiles.append(tile)
    if not tiles:
        return np.full((40, 200, 3), 255, np.uint8)
    while len(tiles) % columns:
        tiles.append(np.full_like(tiles[0], 255))
    return np.vstack([np.hstack(tiles[r:r + columns]) for r in range(0, len(tiles), columns)])


# ------------------------------------------------------------------------------------------------
# where the misses come from (detector or index reader)
# ------------------------------------------------------------------------------------------------
SIZE_BINS = ((0, 90, "60-90 px"), (90, 150, "90-150 px"), (150, 250, "150-250 px"), (250, 1e9, "250+ px"))


def _card_edges(truth: dict) -> tuple[np.ndarray, np.ndarray]:
    """Midpoints of a rendered card's top and bottom edges (its quad is TL, TR, BR, BL)."""
    q = np.asarray(truth["quad"], np.float64)
    return (q[0] + q[1]) / 2, (q[2] + q[3]) / 2


def _card_height(truth: dict) -> float:
    top, bottom = _card_edges(truth)
    return float(np.linalg.norm(top - bottom))


def _corner_up(truth: dict, point: Sequence[float]) -> tuple[float, float]:
    """The up direction of the index printed at ``point``: the card's own up near its top edge,
    reversed near its bottom edge (that index is printed upside down)."""
    top, bottom = _card_edges(truth)
    u = (top - bottom) / max(float(np.linalg.norm(top - bottom)), 1e-6)
    p = np.asarray(point, np.float64)
    return tuple(u if np.linalg.norm(p - top) < np.linalg.norm(p - bottom) else -u)


def card_height_bin(truth: dict) -> str:
    """The :data:`SIZE_BINS` name of a rendered card's height."""
    h = _card_height(truth)
    return next(n for lo, hi, n in SIZE_BINS if lo <= h < hi)


def _bin_order(name: str) -> int:
    return next((k for k, (_, _, n) in enumerate(SIZE_BINS) if n == name), len(SIZE_BINS))


def diagnose_synthetic(rec, frames: Iterable[tuple[np.ndarray, list[dict]]], min_confidence: float | None = None) -> dict:  # noqa: ANN001
    """Per card height: detector recall of visible indices, and the reader on true and on found crops.

    For every index at least ``VISIBLE`` visible: *found* when a face-up detector candidate lies within
    half an index height of its centre; the reader is then fed the crop cut at the true centre, up
    direction and size (*truth crop*) and the crop cut where the detector put it (*found crop*), and
    each reading is right (rank right at the confidence the product acts on), unknown, background
    (rejected as not an index) or wrong.
    """
    from .geometry import Pyramid, crop_index

    thr = rec.config.min_confidence if min_confidence is None else min_confidence
    bins = {name: Counter() for _, _, name in SIZE_BINS}
    for img, truths in frames:
        cand = rec.detect(img)
        up = np.nonzero(cand.face_up)[0]
        pyr = Pyramid(img)
        crops, meta = [], []
        for t in truths:
            if not t["face_up"]:
                continue
            name = card_height_bin(t)
            for c in t["corners"]:
                if c["visible"] < VISIBLE:
                    continue
                p = np.asarray(c["point"], np.float64)
                bins[name]["indices"] += 1
                crops.append(crop_index(pyr, tuple(p), _corner_up(t, p), c["index_h"]))
                meta.append(("truth", name, t["card"]))
                d = np.hypot(*(cand.points[up] - p).T) if len(up) else np.zeros(0)
                if len(d) and d.min() < max(0.5 * c["index_h"], 3.0):
                    bins[name]["found"] += 1
                    k = up[int(d.argmin())]
                    crops.append(crop_index(pyr, tuple(cand.points[k]), tuple(cand.up[k]), float(cand.index_h[k])))
                    meta.append(("found", name, t["card"]))
        if not crops:
            continue
        glyph_p, _suit_p = rec.read(np.stack(crops))
        rank_p = glyph_p @ rec._rank_matrix
        for (kind, name, card), g, rp in zip(meta, glyph_p, rank_p):
            r = int(rp[1:].argmax()) + 1
            if g[0] >= rec.config.background_reject:
                out = "background"
            elif rp[r] < thr:
                out = "unknown"
            else:
                out = "right" if r == card.rank.value else "wrong"
            bins[name][f"{kind}_{out}"] += 1
    table = {}
    for name, c in bins.items():
        n, f = c["indices"], c["found"]
        table[name] = {
            "indices": n,
            "found": round(f / n, 3) if n else None,
            **{f"truth_crop_{o}": round(c[f"truth_{o}"] / n, 3) if n else None
               for o in ("right", "unknown", "background", "wrong")},
            **{f"found_crop_{o}": round(c[f"found_{o}"] / f, 3) if f else None
               for o in ("right", "unknown", "background", "wrong")},
        }
    return table


def score_looks(truth: Detections, got: Detections, readable: np.ndarray | None = None,
                grow: float = 1.1) -> tuple[dict[int, str], list[tuple[str, str]]]:
    """One look at a rendered game's frame. ``truth``: the frame's cards with their identities (an
    oracle that names every face-up card it reports); ``readable``: which of them count (an index at
    least 95% uncovered; default: every face-up card named). Each counted card -> ``"right"`` (some
    detection whose index centre lies on the card, its quad grown by ``grow``, names it), ``"rank
    only"`` (one names its rank, suit unknown) or ``"not read"``; and the detections read as a card
    that lies under none of their index centres, as (the cards there, the reading).

    A detection is matched by where its *index* is, not its card centre: in a pile's fan the cards
    all share a rank and lie a fifth of a card apart, and the detector's card centre for a card mostly
    covered scatters that far (matching by centres counted neighbours' readings as wrong suits)."""
    import cv2

    counts = np.ones(len(truth), bool) if readable is None else np.asarray(readable, bool)
    ups = [i for i in range(len(truth)) if truth.face_up[i] and truth.rank[i] != 0 and counts[i]]
    points = got.index_centres if len(got) else np.zeros((0, 2))
    quads = []
    for i in range(len(truth)):
        q = truth.quads[i].astype(np.float32)
        c = q.mean(0)
        quads.append((c + (q - c) * grow).reshape(-1, 1, 2))
    found: dict[int, str] = {}
    wrong: list[tuple[str, str]] = []
    for j in range(len(got)):
        if not got.face_up[j] or got.rank[j] == 0:
            continue
        p = (float(points[j][0]), float(points[j][1]))
        under = [i for i in range(len(truth)) if cv2.pointPolygonTest(quads[i], p, False) >= 0]
        card = got.card(j)
        if card is not None:
            same = [i for i in under if truth.card(i) == card]
            if same:
                found[same[0]] = "right"
                continue
            wrong.append((",".join(str(truth.card(i) or "?") for i in under), str(card)))
        else:
            same = [i for i in under if truth.rank[i] == got.rank[j]]
            for i in same:
                found.setdefault(i, "rank only")
            if not same:
                wrong.append((",".join(str(truth.card(i) or "?") for i in under), str(rank_label(int(got.rank[j])))))
    return {i: found.get(i, "not read") for i in ups}, wrong
