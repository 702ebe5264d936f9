"""Frames for the recogniser benchmark, rendered from decks the models never trained on.

Held-out decks are the training recipe's (:data:`companion.vision.spec.HELD_OUT_DECKS`); the frames are
composed with exact truth (every card's code, quad and each index's centre and visible fraction) by
:mod:`companion.synth.composer` (numpy and OpenCV only: the run time never imports the training code).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

__all__ = ["held_out_frames", "speed_frames", "held_out_deck_names"]


def held_out_deck_names() -> list[str]:
    from ..synth.decks import list_decks
    from .spec import HELD_OUT_DECKS

    available = {d.name for d in list_decks() if d.available}
    names = [d for d in HELD_OUT_DECKS if d in available]
    return names or ["builtin"]


def _sampler(seed: int, names: list[str] | None = None):  # noqa: ANN202
    from ..synth.composer import SceneComposer, drop_band_boxes, load_deck_art

    arts = [drop_band_boxes(load_deck_art(n)) for n in (names or held_out_deck_names())]
    return SceneComposer(arts, seed)


def held_out_frames(n: int, seed: int, width: int = 1280, height: int = 720,
                    names: list[str] | None = None) -> Iterator[tuple[np.ndarray, list[dict]]]:
    """``n`` frames (card heights 60-400 px, every layout kind) with truth, from held-out decks."""
    sampler = _sampler(seed, names)
    for _ in range(n):
        yield sampler.frame(width, height, min_h=60, max_h=400)


def speed_frames(seed: int, n: int = 4) -> Iterator[tuple[np.ndarray, int]]:
    """1280x720 clock layouts (13 piles) with about 20 face-up cards visible, and that count."""
    sampler = _sampler(seed)
    made = 0
    tries = 0
    while made < n and tries < 200:
        tries += 1
        img, truths = sampler.frame(1280, 720, min_h=80, max_h=110, mode="clock")
        n_up = sum(1 for t in truths if t["face_up"] and any(c["visible"] > 0.75 for c in t["corners"]))
        piles = sum(1 for t in truths if not t["face_up"])
        if 16 <= n_up <= 26 and piles >= 10:
            made += 1
            yield img, n_up
