"""Frames for the recogniser benchmark, rendered from decks the models never trained on.

Held-out decks are the training recipe's (:data:`companion.vision.spec.HELD_OUT_DECKS`); the frames are
composed with exact truth (every card's code, quad and each index's centre and visible fraction) by
:mod:`companion.synth.composer` (numpy and OpenCV only: the run time never imports the training code).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

__all__ = ["held_out_frames", "speed_frames", "held_out_deck_names", "missing_held_out_decks",
           "NoHeldOutDeck", "HELD_OUT_PACKAGES"]

#: The Debian packages the held-out decks come from (``rsvg-convert`` renders the GNOME ones).
HELD_OUT_PACKAGES = "gnome-cards-data kdegames-card-data-kf5 librsvg2-bin"


class NoHeldOutDeck(RuntimeError):
    """No held-out deck is installed: accuracy would be measured on a deck the models trained on."""


def held_out_deck_names() -> list[str]:
    """The held-out decks installed here (possibly none: never a training deck in their place)."""
    from ..synth.decks import list_decks
    from .spec import HELD_OUT_DECKS

    available = {d.name for d in list_decks() if d.available}
    return [d for d in HELD_OUT_DECKS if d in available]


def missing_held_out_decks() -> list[str]:
    """The held-out decks this machine cannot render (their package is absent)."""
    from .spec import HELD_OUT_DECKS

    have = set(held_out_deck_names())
    return [d for d in HELD_OUT_DECKS if d not in have]


def _sampler(seed: int, names: list[str] | None = None):  # noqa: ANN202
    from ..synth.composer import SceneComposer, drop_band_boxes, load_deck_art

    names = names or held_out_deck_names()
    if not names:
        raise NoHeldOutDeck(f"no held-out deck is installed (install {HELD_OUT_PACKAGES}); "
                            "accuracy is never measured on a deck the models trained on")
    arts = [drop_band_boxes(load_deck_art(n)) for n in names]
    return SceneComposer(arts, seed)


def held_out_frames(n: int, seed: int, width: int = 1280, height: int = 720,
                    names: list[str] | None = None) -> Iterator[tuple[np.ndarray, list[dict]]]:
    """``n`` frames (card heights 60-400 px, every layout kind) with truth, from held-out decks.

    Raises :class:`NoHeldOutDeck` at once (not at the first frame) when none is installed."""
    sampler = _sampler(seed, names)
    return (sampler.frame(width, height, min_h=60, max_h=400) for _ in range(n))


def speed_frames(seed: int, n: int = 4) -> Iterator[tuple[np.ndarray, int]]:
    """1280x720 clock layouts (13 piles) with about 20 face-up cards visible, and that count.

    Of held-out decks where one is installed, else of the built-in deck: a time, not an accuracy."""
    sampler = _sampler(seed, held_out_deck_names() or ["builtin"])
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
