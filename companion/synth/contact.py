"""A contact sheet of rendered webcam frames (for the docs and for eyeballing realism).

``python -m companion.synth.contact docs/rendered_frames.png`` renders twelve 1280x720 frames from
different seeds, decks, tables, cameras and lights (some with hands, a held card, a resting hand, a
child's mistake) and tiles native-resolution crops of them (every third tile: the whole frame scaled
down).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from .record import build
from .scene import FrameRenderer

__all__ = ["SHEET", "render_sheet"]

#: (seed, deck, variant, mistakes, moves, which frame: an event kind or "rest"/"carry")
SHEET: list[tuple[int, str, str, int, int, str]] = [
    (101, "builtin", "standard", 0, 3, "see"),
    (102, "anglo", "standard", 0, 6, "place"),
    (103, "paris", "standard", 1, 8, "carry"),
    (104, "kde-oxygen", "watch", 0, 5, "rest"),
    (105, "bellot", "standard", 0, 10, "see"),
    (106, "builtin-serif", "standard", 0, 12, "turn"),
    (107, "tango", "standard", 1, 9, "place"),
    (108, "dondorf", "standard", 0, 4, "carry"),
    (109, "plastic", "standard", 0, 14, "see"),
    (110, "kde-standard", "standard", 0, 7, "rest"),
    (111, "anglo_poker", "standard", 0, 16, "place"),
    (112, "builtin-bold", "standard", 0, 2, "see"),
]


def _pick(d, kind: str) -> int:
    evs = d.events
    if kind == "rest" and d.rest_frames:
        a, b = d.rest_frames[0]
        return (a + b) // 2
    if kind == "carry" and d.moves:
        a, b = d.moves[len(d.moves) // 2]["carry"]
        return (a + b) // 2
    frames = [e["frame"] for e in evs if e["event"][0] == kind]
    if not frames:
        return len(d.frames) // 2
    return frames[len(frames) // 2] + (2 if kind == "see" else 0)


def render_sheet(out: str | Path, configs: Sequence[tuple[int, str, str, int, int, str]] = SHEET,
                 tile: tuple[int, int] = (384, 216), cols: int = 4) -> Path:
    from .decks import list_decks

    available = {d.name for d in list_decks() if d.available}
    tiles = []
    for n, (seed, deck, variant, mistakes, moves, kind) in enumerate(configs):
        if deck not in available:
            deck = "builtin"
        sc, d = build(seed, deck=deck, variant=variant, mistakes=mistakes, max_moves=moves, rests=1)
        f = min(_pick(d, kind), len(d.frames) - 1)
        img = FrameRenderer(sc, noise_seed=seed).render(d.frames[f], prev=d.frames[f - 1] if f else None, index=f)
        img = sc.photo.jpeg(img)
        # a native-resolution crop around the hand (or the layout)
        spec = d.frames[f]
        place = [e for e in d.events if e["event"][0] == "place" and e["frame"] == f]
        if kind == "place" and place:
            pos = sc.layout.pos[place[0]["event"][1]] + sc.layout.out[place[0]["event"][1]] * 30
            c = sc.cam.project([[float(pos[0]), float(pos[1]), 0]])[0]
        elif spec.resting:
            c = sc.cam.project([[spec.resting[0].x * 0.8, spec.resting[0].y * 0.8, 0]])[0]
        elif spec.hand is not None:
            c = sc.cam.project([[spec.hand.x * 0.6, spec.hand.y * 0.6, 0]])[0]
        else:
            c = sc.cam.project([[0, 0, 0]])[0]
        tw, th = tile
        if n % 3 == 2:  # every third tile: the whole frame, scaled down
            crop = cv2.resize(img, (tw, th), interpolation=cv2.INTER_AREA)
        else:  # a native-resolution crop
            x0 = int(np.clip(c[0] - tw / 2, 0, img.shape[1] - tw))
            y0 = int(np.clip(c[1] - th / 2, 0, img.shape[0] - th))
            crop = img[y0:y0 + th, x0:x0 + tw].copy()
        cv2.putText(crop, f"{seed} {deck}", (5, th - 7), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(crop, f"{seed} {deck}", (5, th - 7), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
        tiles.append(crop)
    rows = []
    for i in range(0, len(tiles), cols):
        row = tiles[i:i + cols]
        while len(row) < cols:
            row.append(np.zeros_like(tiles[0]))
        rows.append(np.hstack(row))
    sheet = np.vstack(rows)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return out


if __name__ == "__main__":  # pragma: no cover
    p = render_sheet(sys.argv[1] if len(sys.argv) > 1 else "docs/rendered_frames.png")
    print(p, p.stat().st_size)
