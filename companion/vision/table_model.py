"""What the watcher knows about the table: the view's geometry and the face-up cards lying there.

:class:`ViewGeometry` turns the pile layout into a rough camera model, so that a card held *above*
the table (bigger in the image, and shifted away from the point below the camera) can be put back
on the table point beneath it: the 12 clock piles lie on a circle, so the homography from an ideal
clock to the image gives the focal length and the image of the vertical direction (the vertical
vanishing point ``V``). A point at apparent scale ``s`` (its card looks ``s`` times as big as one
lying on the table there) lies above the table point ``V + (x - V) / s``.

:class:`TableModel` holds the face-up cards believed to lie on the table (pile, side, image
position), built from recognitions of cards lying still.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterator

import cv2
import numpy as np

from ..cards import Card
from .layout import CARD_ASPECT, Layout

__all__ = ["ViewGeometry", "TableCard", "TableModel", "quad_sizes"]

#: Focal lengths (x the image width) the view geometry accepts: 85 to 53 degree horizontal fields of view.
FOCAL_RANGE = (0.55, 1.0)


def quad_sizes(quads: np.ndarray) -> np.ndarray:
    """sqrt(area) of each quad (N, 4, 2): a size that does not depend on the card's turn."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    x, y = q[..., 0], q[..., 1]
    area = 0.5 * np.abs((x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1))
    return np.sqrt(area)


class ViewGeometry:
    """Rough camera model from a :class:`Layout` (see the module doc).

    Sizes are sqrt(area) of card quads; ``sizes`` (13,) are the piles' own (from the face-down stacks
    seen; default from the layout's card heights)."""

    def __init__(self, layout: Layout, sizes: np.ndarray | None = None) -> None:
        self.layout = layout
        w, h = layout.image_size
        self.c = np.array([w / 2.0, h / 2.0])
        ideal = np.array([[math.sin(k * math.pi / 6), math.cos(k * math.pi / 6)] for k in range(1, 13)] + [[0.0, 0.0]])
        img = np.asarray(layout.centres, np.float64)
        self.f = 0.75 * w  # when the clock says nothing of it
        self.V: np.ndarray | None = None  # vertical vanishing point (None: at infinity or unknown)
        self.set_sizes(np.asarray(layout.pile_card_h, np.float64) * math.sqrt(CARD_ASPECT) if sizes is None else sizes)
        H, _ = cv2.findHomography(ideal, img, 0)
        if H is None:
            return
        T = np.array([[1, 0, -self.c[0]], [0, 1, -self.c[1]], [0, 0, 1.0]])
        Hc = T @ H
        h1, h2 = Hc[:, 0], Hc[:, 1]
        a1 = h1[0] * h2[0] + h1[1] * h2[1]
        b1 = h1[2] * h2[2]
        a2 = h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2
        b2 = h1[2] ** 2 - h2[2] ** 2
        den = a1 * a1 + a2 * a2
        if den > 0:
            wv = -(a1 * b1 + a2 * b2) / den  # 1 / f^2
            if wv > 0:
                # a clock seen nearly straight down says almost nothing of the focal length (the
                # estimate ran to 5x the width on a 2-degree tilt and put V 1900 px off): held to
                # a webcam's (53-85 degree fields of view)
                self.f = min(max(1.0 / math.sqrt(wv), FOCAL_RANGE[0] * w), FOCAL_RANGE[1] * w)
        K_inv = np.diag([1 / self.f, 1 / self.f, 1.0])
        r1 = K_inv @ h1
        r2 = K_inv @ h2
        r1 /= np.linalg.norm(r1)
        r2 /= np.linalg.norm(r2)
        r3 = np.cross(r1, r2)
        if abs(r3[2]) > 1e-6:
            self.V = self.c + self.f * r3[:2] / r3[2]

    def set_sizes(self, sizes: np.ndarray) -> None:
        """The piles' card sizes (sqrt area, px); the size field is refitted (1/depth is affine)."""
        self.sizes = np.asarray(sizes, np.float64).reshape(13)
        A = np.column_stack([np.asarray(self.layout.centres, np.float64), np.ones(13)])
        self.coef, *_ = np.linalg.lstsq(A, self.sizes, rcond=None)

    def table_size(self, point: np.ndarray) -> float:
        """Size (sqrt area, px) of a card lying on the table at ``point``."""
        v = self.coef[0] * float(point[0]) + self.coef[1] * float(point[1]) + self.coef[2]
        return float(max(v, 0.3 * float(np.median(self.sizes))))

    def pile_size_at(self, pile: int, point: np.ndarray) -> float:
        """Size of a card lying at ``point`` near ``pile``: the pile's own, with the field's trend."""
        c = self.layout.centres[pile - 1]
        return float(self.sizes[pile - 1]) * self.table_size(point) / self.table_size(c)

    def scale(self, point: np.ndarray, size: float) -> float:
        return float(size) / self.table_size(point)

    def ground(self, point: np.ndarray, size: float) -> tuple[np.ndarray, float]:
        """(table point beneath, apparent scale) of a card of ``size`` (sqrt area, px) seen at ``point``."""
        x = np.asarray(point, np.float64)
        if self.V is None:
            return x, self.scale(x, size)
        V = self.V

        def excess(s: float) -> float:  # increasing in s: the card's size if it lay beneath, minus its size
            return s * self.table_size(V + (x - V) / s) - float(size)

        if excess(1.0) >= 0:
            return x, 1.0
        lo, hi = 1.0, 2.5
        if excess(hi) < 0:
            return V + (x - V) / hi, hi
        for _ in range(20):
            mid = 0.5 * (lo + hi)
            if excess(mid) < 0:
                lo = mid
            else:
                hi = mid
        s = 0.5 * (lo + hi)
        return V + (x - V) / s, s


@dataclass
class TableCard:
    """A face-up card lying on the table."""

    card: Card
    pile: int
    side: str  # "under" | "top"
    centre: np.ndarray
    since: int  # frame index it was placed
    last_seen: int
    missing: int = 0  # recognitions in a row where its place was visible but it was not seen
    #: where the index it was last seen by lay (an index box's centre), None when not known
    index_at: np.ndarray | None = None
    #: where it was seen before its place was refreshed from its other index: a card half covered
    #: shows one index or the other, and the detector puts its centre a little apart for each (2001: a
    #: king beneath the centre, refreshed from one index, was taken for a new card when seen from the
    #: other). None when it has only one place
    also_at: np.ndarray | None = None

    def places(self) -> list[np.ndarray]:
        """Where it may be seen: its place, and the one seen from its other index."""
        return [self.centre] if self.also_at is None else [self.centre, self.also_at]

    def distance(self, point: np.ndarray) -> float:
        """Pixels from ``point`` to the nearest of its places."""
        return min(float(np.linalg.norm(np.asarray(point, np.float64) - c)) for c in self.places())


@dataclass
class TableModel:
    cards: dict[Card, TableCard] = field(default_factory=dict)

    def __contains__(self, card: object) -> bool:
        return card in self.cards

    def __iter__(self) -> Iterator[TableCard]:
        return iter(list(self.cards.values()))

    def put(self, tc: TableCard) -> None:
        self.cards[tc.card] = tc

    def remove(self, card: Card) -> TableCard | None:
        return self.cards.pop(card, None)

    def near(self, point: np.ndarray, radius: float) -> list[TableCard]:
        p = np.asarray(point, np.float64)
        return [tc for tc in self.cards.values() if float(np.linalg.norm(tc.centre - p)) < radius]

    def on_pile(self, pile: int) -> list[TableCard]:
        return [tc for tc in self.cards.values() if tc.pile == pile]
