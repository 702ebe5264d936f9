"""Draws ``docs/overlay.png``: the live companion's overlay on frames of a rendered game.

Run ``.venv/bin/python tests/prompts/draw_docs_overlay.py [OUT.png]`` (about a minute: it plans a
game and renders three frames). Top: a 1280x720 frame at a mistake (the alert band); below, two
640x360 frames of the same game: child mode during play, and the end with the result.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.prompts import Phraser
from companion.prompts.overlay import OverlayAnnotator, OverlayState
from companion.rules.referee import Referee

ROOT = Path(__file__).resolve().parents[2]


def game_rows(seed: int, variant: str, mistakes: int, resolution: tuple[int, int]) -> tuple[Any, Any, list[dict]]:
    """Plan a rendered game (no pixels) and judge its truth events: the rows ``companion track`` gives."""
    from companion.synth import record

    scene, d = record.build(seed, variant=variant, mistakes=mistakes, resolution=resolution)
    fps = d.fps if hasattr(d, "fps") else 30
    ref = Referee(variant)
    rows: list[dict] = []
    for e in d.events:
        v = ref.observe(e["event"])
        rows.append({"frame": e["frame"], "time": round(e["frame"] / fps, 3), "event": e["event"], "verdict": v.code,
                     "message": v.message, "next_pile": v.next_pile})
    out = ref.outcome()
    rows.append({"outcome": out} if out else {"outcome": "unfinished", "state": {"face_up": ref.face_up_count}})
    return scene, d, rows


def centres_of(truth_piles: dict[str, list[dict]]) -> tuple[np.ndarray, float]:
    """Pile centres and half a card height, from the truth's stack quads at the deal."""
    cs, hs = [], []
    for p in range(1, 14):
        q = np.asarray(truth_piles[str(p)][0]["stack"], np.float64)
        cs.append(q.mean(axis=0))
        hs.append(np.linalg.norm(q[3] - q[0]))
    return np.asarray(cs), float(np.median(hs)) / 2


def state_at(rows: list[dict], upto: int, variant: str, child: bool, centres: np.ndarray, radius: float) -> OverlayState:
    """The overlay state after ``rows[:upto]``."""
    ref = Referee(variant)
    ph = Phraser(child=child)
    st = OverlayState.blank(centres, radius)
    for r in rows[:upto]:
        prompts = ph.for_row(r)
        if "event" in r:
            ref.observe(r["event"])
            if r["event"][0] == "see":
                st.last_card = r["event"][1]
        if prompts:
            st.message = prompts[0].text
            st.flag = prompts[0].kind == "alert"
            if prompts[0].kind == "result":
                st.result = prompts[0].text
    down = ref.face_down_counts
    st.hidden = [down[p] for p in range(1, 14)]
    up = [0] * 13
    for _, (p, side) in ref.face_up_cards.items():
        up[p - 1] += 1
    st.sorted = up
    st.next_pile = ref.next_pile
    return st


def render(seed: int, variant: str, mistakes: int, resolution: tuple[int, int], picks: list[str],
           child: bool) -> list[np.ndarray]:
    from companion.synth import record
    from companion.synth.scene import FrameRenderer

    scene, d, rows = game_rows(seed, variant, mistakes, resolution)
    truth = record.truth_of(scene, d, fps=30, deck="builtin")
    centres, radius = centres_of(truth["piles"])
    r = FrameRenderer(scene, noise_seed=seed)
    images = []
    ann = OverlayAnnotator()
    for pick in picks:
        if pick == "flag":
            upto = next(i for i, row in enumerate(rows) if row.get("verdict") not in (None, "ok", "ask")) + 1
        elif pick == "end":
            upto = len(rows)
        else:
            upto = int(pick)
        frame_i = min(rows[upto - 1].get("frame", len(d.frames) - 1) + (8 if pick != "end" else 0), len(d.frames) - 1)
        if pick == "end":
            frame_i = len(d.frames) - 1
        img = r.render(d.frames[frame_i], prev=d.frames[frame_i - 1] if frame_i else None, index=frame_i)
        st = state_at(rows, upto, variant, child, centres, radius)
        if pick != "end" and child:
            st.status = "child mode"
        images.append(ann.annotate(img, st))
    return images


def main(out: str | None = None) -> Path:
    big = render(5, "standard", 3, (1280, 720), ["flag"], child=False)[0]
    small = render(5, "standard", 3, (640, 360), ["120", "end"], child=True)
    sheet = np.vstack([big, np.hstack(small)])
    path = Path(out) if out else ROOT / "docs" / "overlay.png"
    cv2.imwrite(str(path), sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return path


if __name__ == "__main__":
    print(main(sys.argv[1] if len(sys.argv) > 1 else None))
