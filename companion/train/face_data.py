"""Training crops for the face reader: whole cards, read from their pips and art (no torch here).

The index of a 60-90 px card (a webcam framing a whole clock) is 5-8 px tall and blurred: no index
reader can read it, yet the card's pips and court art still show. Each example is one card of a
real deck design placed on a table patch as a camera sees it (any rotation, foreshortening up to 35
degrees, 45-160 px tall), sometimes beside or under another card, partly covered by fingers, then
lit, blurred, noised and JPEG-compressed (:func:`~companion.synth.composer.photometric`), and cut
out along a quad a little off the true one (the detector's card centre, size and turn scatter),
either way up. A card of which less than half shows is labelled "none" (too little to tell), as are
backs and bare table: the reader must say so rather than guess.

Cards are never mirrored: a real card is never mirrored.
"""

from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np

from ..cards import FULL_DECK
from ..synth.composer import Backgrounds, DeckArt, photometric, skin_tone
from ..vision.geometry import crop_card
from ..vision.spec import FACE_CROP_H, FACE_CROP_W, FACE_RANKS, SUITS_OUT
from .index_data import _card_transform, _paste

__all__ = ["FaceSampler", "NONE_RANK", "NONE_SUIT", "MIN_VISIBLE"]

NONE_RANK = FACE_RANKS.index("none")
NONE_SUIT = SUITS_OUT.index("none")
#: Less of the card than this showing: labelled "none".
MIN_VISIBLE = 0.5


class FaceSampler:
    """Makes (crop, rank id, suit id) examples from a set of decks, deterministically from a seed."""

    def __init__(self, decks: Sequence[DeckArt], seed: int, *, card_px: tuple[float, float] = (45.0, 160.0),
                 none_share: float = 0.1, backgrounds: Backgrounds | None = None) -> None:
        self.decks = list(decks)
        self.rng = np.random.default_rng(seed)
        self.backgrounds = backgrounds or Backgrounds(np.random.default_rng(seed + 1))
        self.card_px = card_px
        self.none_share = none_share
        self.last_card_h = 0.0  # of the last example (for figures by size)
        self.last_visible = 1.0
        self.last_kind = "card"  # of the last example: "card", "back" or "table"

    def batch(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Crops (N, H, W, 3) uint8, rank ids, suit ids, card heights in pixels."""
        xs = np.empty((n, FACE_CROP_H, FACE_CROP_W, 3), np.uint8)
        rs = np.empty(n, np.int64)
        ss = np.empty(n, np.int64)
        hs = np.empty(n, np.float32)
        for i in range(n):
            xs[i], rs[i], ss[i] = self.sample()
            hs[i] = self.last_card_h
        return xs, rs, ss, hs

    def sample(self, card_h: float | None = None) -> tuple[np.ndarray, int, int]:
        rng = self.rng
        lo, hi = self.card_px
        ch = float(card_h if card_h is not None else math.exp(rng.uniform(math.log(lo), math.log(hi))))
        self.last_card_h = ch
        deck = self.decks[int(rng.integers(len(self.decks)))]
        r = rng.random()
        back = r < self.none_share * 0.6
        self.last_kind = "back" if back else "card"
        card = FULL_DECK[int(rng.integers(52))]
        face = deck.back if back else deck.faces[card]
        fh, fw = face.shape[:2]
        P = int(math.ceil(ch * 1.8))
        angle = rng.uniform(0, 2 * math.pi)
        m = _card_transform(rng, fw, fh, ch, angle, (fw / 2, fh / 2), (P / 2, P / 2))
        canvas = self.backgrounds.patch(rng, P, P)
        mask = cv2.warpPerspective(face[..., 3], m, (P, P)).astype(np.float32) / 255.0
        covered = np.zeros((P, P), np.float32)
        kind = rng.random()
        if kind < 0.4:  # another card beside it: under it, or over part of it (a stack, a fan)
            other = deck.back if rng.random() < 0.7 else deck.faces[FULL_DECK[int(rng.integers(52))]]
            d = rng.uniform(0.15, 0.9) * ch
            a = rng.uniform(0, 2 * math.pi)
            m2 = _card_transform(rng, fw, fh, ch, angle + rng.normal(0, 0.15), (fw / 2, fh / 2),
                                 (P / 2 + math.cos(a) * d, P / 2 + math.sin(a) * d))
            if rng.random() < 0.5:
                _paste(canvas, other, m2)
                _paste(canvas, face, m)
            else:
                _paste(canvas, face, m)
                _paste(canvas, other, m2)
                covered = np.maximum(covered, cv2.warpPerspective(other[..., 3], m2, (P, P)).astype(np.float32) / 255)
        else:
            _paste(canvas, face, m)
        if rng.random() < 0.35:  # fingers holding it
            fingers = np.zeros((P, P), np.uint8)
            for _ in range(int(rng.integers(1, 5))):
                a = rng.uniform(0, 2 * math.pi)
                d = rng.uniform(0.25, 0.65) * ch
                c = (int(P / 2 + math.cos(a) * d), int(P / 2 + math.sin(a) * d))
                cv2.ellipse(fingers, c, (int(ch * rng.uniform(0.08, 0.3)), int(ch * rng.uniform(0.05, 0.12))),
                            float(rng.uniform(0, 180)), 0, 360, 255, -1)
            fm = cv2.GaussianBlur(fingers, (0, 0), 1.0).astype(np.float32) / 255
            canvas *= (1 - fm)[..., None]
            canvas += fm[..., None] * skin_tone(rng)
            covered = np.maximum(covered, fm)
        visible = float((mask * (1 - covered)).sum() / max(mask.sum(), 1e-6))
        self.last_visible = visible
        img = np.clip(photometric(canvas, rng, ch * 0.4), 0, 255).astype(np.uint8)
        # the detector's quad: centre, size and turn a little off, either way up
        corners = np.array([[0, 0, 1], [fw, 0, 1], [fw, fh, 1], [0, fh, 1]], np.float64) @ m.T
        quad = corners[:, :2] / corners[:, 2:]
        centre = quad.mean(0) + rng.normal(0, 0.07 * ch, 2)
        s = math.exp(rng.normal(0, 0.1))
        t = math.radians(rng.normal(0, 7))
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        quad = (quad - quad.mean(0)) @ rot.T * s + centre
        if rng.random() < 0.5:
            quad = quad[[2, 3, 0, 1]]
        if kind > 0.93:  # bare table (or a hand) where the detector put a card
            self.last_kind = "table"
            canvas = self.backgrounds.patch(rng, P, P)
            img = np.clip(photometric(canvas, rng, ch * 0.4), 0, 255).astype(np.uint8)
            return crop_card(img, quad, FACE_CROP_W, FACE_CROP_H), NONE_RANK, NONE_SUIT
        crop = crop_card(img, quad, FACE_CROP_W, FACE_CROP_H)
        if back or visible < MIN_VISIBLE:
            return crop, NONE_RANK, NONE_SUIT
        return crop, card.rank.value - 1, SUITS_OUT.index(card.suit.code)
