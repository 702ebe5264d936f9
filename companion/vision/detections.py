"""One data type for card detections: parallel numpy arrays, as in Roboflow supervision.

A detection is one card: the quad of the whole card in image pixels (corners in the card's own
order: top-left, top-right, bottom-right, bottom-left of the upright card), the box of the index
corner that was read, the rank and suit with their confidences (0 = rank unknown, -1 = suit
unknown: a corner that cannot be read with confidence is reported as unknown, never guessed), and
whether the card lies face up.

>>> d = Detections.empty()
>>> len(d), d.to_json()
(0, [])
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Iterator

import numpy as np

from ..cards import Card, Rank, Suit

__all__ = ["Detections", "RANK_CODES", "SUIT_CODES", "rank_label", "suit_code"]

#: rank id 1..13 -> label (A, 2..10, J, Q, K); id 0 = unknown
RANK_CODES = ("?", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
#: suit id 0..3 -> code; -1 = unknown
SUIT_CODES = ("C", "D", "H", "S")


def rank_label(rank_id: int) -> str | None:
    return RANK_CODES[rank_id] if 1 <= rank_id <= 13 else None


def suit_code(suit_id: int) -> str | None:
    return SUIT_CODES[suit_id] if 0 <= suit_id <= 3 else None


@dataclass
class Detections:
    """N detected cards as parallel arrays; index or mask it like an array."""

    quads: np.ndarray  # (N, 4, 2) float32
    index_boxes: np.ndarray  # (N, 4) float32: x0, y0, x1, y1
    rank: np.ndarray  # (N,) int8: 1..13, 0 unknown
    suit: np.ndarray  # (N,) int8: 0..3, -1 unknown
    rank_confidence: np.ndarray  # (N,) float32
    suit_confidence: np.ndarray  # (N,) float32
    face_up: np.ndarray  # (N,) bool
    angle: np.ndarray  # (N,) float32 degrees: the card's up direction, counter-clockwise from image up
    # what the reader thought of each rank A..K and suit C, D, H, S, unthresholded (rows sum to at most 1;
    # the rest is "not a rank"), so a tracker can add up several unsure looks at one card. Optional:
    # :meth:`rank_probabilities` derives them from the readings when absent
    rank_probs: np.ndarray | None = None  # (N, 13) float32
    suit_probs: np.ndarray | None = None  # (N, 4) float32
    # whether the card's printed indices were found at both ends (a card half under a stack shows one at
    # most: one seen with both lies above whatever it overlaps). Optional: None where not known
    both_indices: np.ndarray | None = None  # (N,) bool
    # about the recogniser that made them, not per card: "scatter" (a dict: "position", card heights,
    # and "size", log of size, 95th percentiles) says how far its quads of cards lying still scatter
    # between looks, measured on held-out games; a tracker starts from it until it has measured its own
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.quads)
        for f in fields(self):
            if f.name == "meta":
                continue
            arr = getattr(self, f.name)
            if arr is not None and len(arr) != n:
                raise ValueError(f"Detections.{f.name} has {len(arr)} rows, quads has {n}")

    @classmethod
    def empty(cls) -> "Detections":
        return cls(
            quads=np.zeros((0, 4, 2), np.float32),
            index_boxes=np.zeros((0, 4), np.float32),
            rank=np.zeros(0, np.int8),
            suit=np.zeros(0, np.int8),
            rank_confidence=np.zeros(0, np.float32),
            suit_confidence=np.zeros(0, np.float32),
            face_up=np.zeros(0, bool),
            angle=np.zeros(0, np.float32),
        )

    @classmethod
    def from_rows(cls, rows: list[tuple]) -> "Detections":
        """From rows ``(quad, index_box, rank, suit, rank_confidence, suit_confidence, face_up, angle)``,
        optionally followed by ``rank_probs`` (13) and ``suit_probs`` (4), then optionally by
        ``both_indices`` (all rows alike)."""
        if not rows:
            return cls.empty()
        probs: dict[str, Any] = {}
        if len(rows[0]) in (9, 11):
            probs["both_indices"] = np.array([r[-1] for r in rows], bool)
            rows = [r[:-1] for r in rows]
        if len(rows[0]) == 10:
            rp, sp = zip(*(r[8:] for r in rows))
            probs.update({"rank_probs": np.array(rp, np.float32).reshape(-1, 13),
                          "suit_probs": np.array(sp, np.float32).reshape(-1, 4)})
            rows = [r[:8] for r in rows]
        quads, boxes, ranks, suits, rc, sc, fu, ang = zip(*rows)
        return cls(**probs,
            quads=np.array(quads, np.float32).reshape(-1, 4, 2),
            index_boxes=np.array(boxes, np.float32).reshape(-1, 4),
            rank=np.array(ranks, np.int8),
            suit=np.array(suits, np.int8),
            rank_confidence=np.array(rc, np.float32),
            suit_confidence=np.array(sc, np.float32),
            face_up=np.array(fu, bool),
            angle=np.array(ang, np.float32),
        )

    @classmethod
    def concat(cls, parts: list["Detections"]) -> "Detections":
        if not parts:
            return cls.empty()
        out = {f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)
               if f.name not in ("rank_probs", "suit_probs", "both_indices", "meta")}
        out["meta"] = dict(parts[0].meta)
        if any(p.rank_probs is not None for p in parts):
            out["rank_probs"] = np.concatenate([p.rank_probabilities() for p in parts])
            out["suit_probs"] = np.concatenate([p.suit_probabilities() for p in parts])
        if all(p.both_indices is not None for p in parts):
            out["both_indices"] = np.concatenate([p.both_indices for p in parts])
        return cls(**out)

    def shifted(self, dx: float, dy: float) -> "Detections":
        """The same detections moved by ``(dx, dy)`` pixels: read in a part of a frame, placed in the frame.

        >>> d = Detections.from_rows([([[0, 0], [1, 0], [1, 2], [0, 2]], [0, 0, 1, 1], 3, 0, 0.99, 0.99, True, 0.0)])
        >>> d.shifted(10, 20).quads[0, 0].tolist(), d.shifted(10, 20).index_boxes[0].tolist()
        ([10.0, 20.0], [10.0, 20.0, 11.0, 21.0])
        """
        out = self[np.arange(len(self))]
        out.quads = out.quads + np.array([dx, dy], np.float32)
        out.index_boxes = out.index_boxes + np.array([dx, dy, dx, dy], np.float32)
        return out

    def __len__(self) -> int:
        return len(self.quads)

    def __getitem__(self, key: Any) -> "Detections":
        if isinstance(key, (int, np.integer)):
            key = [int(key)]
        return Detections(**{f.name: (None if getattr(self, f.name) is None else getattr(self, f.name)[key])
                             for f in fields(self) if f.name != "meta"}, meta=dict(self.meta))

    def __iter__(self) -> Iterator["Detections"]:
        for i in range(len(self)):
            yield self[i]

    # -- per-detection views ------------------------------------------------------------
    def card(self, i: int) -> Card | None:
        """The card of detection ``i`` when both rank and suit are known."""
        r, s = int(self.rank[i]), int(self.suit[i])
        if 1 <= r <= 13 and 0 <= s <= 3:
            return Card(Rank(r), Suit(SUIT_CODES[s]))
        return None

    def rank_probabilities(self) -> np.ndarray:
        """(N, 13): the reader's probabilities of A..K; where not given, from the readings alone (the
        confidence on the rank read, the rest spread evenly; uniform where unknown)."""
        if self.rank_probs is not None:
            return self.rank_probs
        return _derived_probs(np.asarray(self.rank, np.int64) - 1, self.rank_confidence, 13)

    def suit_probabilities(self) -> np.ndarray:
        """(N, 4): the same for the suits C, D, H, S."""
        if self.suit_probs is not None:
            return self.suit_probs
        return _derived_probs(np.asarray(self.suit, np.int64), self.suit_confidence, 4)

    def confidence(self, i: int) -> float:
        """The confidence of the whole reading: the lesser of rank and suit confidence."""
        return float(min(self.rank_confidence[i], self.suit_confidence[i]))

    @property
    def centres(self) -> np.ndarray:
        return self.quads.mean(axis=1)

    @property
    def index_centres(self) -> np.ndarray:
        """Centre of each index box: which index of a card was read (a half-covered card shows one)."""
        return (self.index_boxes[:, :2] + self.index_boxes[:, 2:]) / 2

    @property
    def heights(self) -> np.ndarray:
        """Card height in pixels (mean of the two long sides)."""
        q = self.quads
        left = np.linalg.norm(q[:, 3] - q[:, 0], axis=1)
        right = np.linalg.norm(q[:, 2] - q[:, 1], axis=1)
        return (left + right) / 2

    def to_json(self) -> list[dict[str, Any]]:
        """Rows of ``companion recognise --json``: card, rank, suit (null when unknown), confidence, quad."""
        out = []
        for i in range(len(self)):
            card = self.card(i)
            out.append({
                "card": str(card) if card else None,
                "rank": rank_label(int(self.rank[i])),
                "suit": suit_code(int(self.suit[i])),
                "confidence": round(self.confidence(i), 4),
                "rank_confidence": round(float(self.rank_confidence[i]), 4),
                "suit_confidence": round(float(self.suit_confidence[i]), 4),
                "face_up": bool(self.face_up[i]),
                "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quads[i]],
                "index_box": [round(float(v), 1) for v in self.index_boxes[i]],
            })
        return out


def _derived_probs(ids: np.ndarray, conf: np.ndarray, k: int) -> np.ndarray:
    """Probabilities from a reading alone: its confidence on the class read, the rest spread evenly;
    uniform where the class is unknown (id < 0)."""
    ids = np.asarray(ids, np.int64).reshape(-1)
    conf = np.clip(np.asarray(conf, np.float32).reshape(-1), 0.0, 1.0)
    out = np.full((len(ids), k), 1.0 / k, np.float32)
    known = (ids >= 0) & (ids < k)
    if known.any():
        rest = (1.0 - conf[known]) / (k - 1)
        out[known] = rest[:, None]
        out[np.nonzero(known)[0], ids[known]] = conf[known]
    return out
