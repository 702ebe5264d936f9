"""Where a rendered card prints its corner index: estimated by measuring ink near a corner.

For one corner the face is flipped so that corner is top-left, then within a search region
(about a third of the width, two fifths of the height):

1. *ink* = pixels that differ from the local paper colour (a wide median blur), inside the card
   and away from its outline;
2. ink components that run out of the region (picture frames, pips, decorations) are dropped;
3. the rest is dilated a little so rank glyphs and the suit symbol under them join; the joined
   group nearest the corner is the index, and its ink bounding box (padded by a pixel or two) is
   the box.

Over a whole deck, a box that disagrees wildly with the deck's median box for that corner (none
found, much bigger, or not overlapping) is replaced by the median box; the count is reported.
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["estimate_boxes", "deck_boxes"]

Box = tuple[int, int, int, int]


def _flip(img: np.ndarray, corner: str) -> np.ndarray:
    if corner in ("tl", "top"):
        return img
    if corner == "tr":
        return img[:, ::-1]
    if corner == "bl":
        return img[::-1, :]
    if corner == "br":
        return img[::-1, ::-1]
    raise ValueError(corner)


def _unflip(box: Box, corner: str, w: int, h: int) -> Box:
    x0, y0, x1, y1 = box
    if corner in ("tr", "br"):
        x0, x1 = w - x1, w - x0
    if corner in ("bl", "br"):
        y0, y1 = h - y1, h - y0
    return (x0, y0, x1, y1)


def outline_width(face: np.ndarray) -> int:
    """Thickness in px of the card's printed outline (0 if none): the run of non-paper pixels
    inward from the alpha edge, median over the middle of the four sides."""
    h, w = face.shape[:2]
    opaque = face[..., 3] > 200 if face.shape[2] == 4 else np.ones((h, w), bool)
    bgr = face[..., :3].astype(np.int16)
    paper = np.median(bgr[opaque], axis=0) if opaque.any() else np.full(3, 255)
    off = np.abs(bgr - paper).max(axis=2) > 40
    limit = max(2, int(0.06 * w))
    runs = []
    for line, ok in ((off[h // 4: 3 * h // 4], opaque[h // 4: 3 * h // 4]),
                     (off[h // 4: 3 * h // 4, ::-1], opaque[h // 4: 3 * h // 4, ::-1]),
                     (off[:, w // 4: 3 * w // 4].T, opaque[:, w // 4: 3 * w // 4].T),
                     (off[::-1, w // 4: 3 * w // 4].T, opaque[::-1, w // 4: 3 * w // 4].T)):
        start = np.argmax(ok, axis=1)                       # first opaque pixel of each line
        idx = start[:, None] + np.arange(limit + 3)[None, :]
        idx = np.minimum(idx, line.shape[1] - 1)
        seg = np.take_along_axis(line, idx, axis=1)
        # the outline may start a pixel or two in: the end of the off-paper run begun in 0..2
        best = np.zeros(len(seg), int)
        for k in range(3):
            rest = seg[:, k:]
            run = np.where(rest.all(axis=1), rest.shape[1], np.argmin(rest, axis=1))
            best = np.maximum(best, np.where(seg[:, k], k + run, 0))
        runs.append(int(np.median(best)))
    return min(limit, max(runs))


def strip_lines(ink: np.ndarray) -> np.ndarray:
    """Remove long thin horizontal and vertical lines (decorative frames) from an ink mask."""
    h, w = ink.shape
    m = ink.astype(np.uint8)
    lh = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((1, max(5, int(0.15 * w))), np.uint8))
    lv = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((max(5, int(0.15 * h)), 1), np.uint8))
    lines = cv2.dilate(lh | lv, np.ones((3, 3), np.uint8))
    # only thin lines: a solid shape survives an opening with a small square too
    solid = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    return ink & ~((lines > 0) & (solid == 0))


def ink_mask(face: np.ndarray, outline: int | None = None) -> np.ndarray:
    """Boolean mask of printed ink (differs from the local paper colour), inside the outline
    (``outline``: its width in px, measured on this face when not given)."""
    h, w = face.shape[:2]
    bgr = np.ascontiguousarray(face[..., :3]).copy()
    if face.shape[2] == 4:
        if outline is None:
            outline = outline_width(face)
        r = outline + max(1.5, 0.01 * w)
        # Euclidean distance to the card's edge (also along the rounded corners)
        opaque = cv2.copyMakeBorder((face[..., 3] > 200).astype(np.uint8), 1, 1, 1, 1,
                                    cv2.BORDER_CONSTANT, value=0)
        dist = cv2.distanceTransform(opaque, cv2.DIST_L2, 3)[1:-1, 1:-1]
        inside = dist > r
    else:
        inside = np.ones((h, w), bool)
    if inside.any():
        # the outline and the transparent corners: paint them paper-coloured
        paper = np.median(bgr[inside], axis=0).astype(np.uint8)
        bgr[~inside] = paper
    # a wide median is the paper colour (also on gradient papers), except inside big solid areas
    sw, sh = max(8, w // 2), max(8, h // 2)
    small = cv2.resize(bgr, (sw, sh), interpolation=cv2.INTER_AREA)
    k = max(5, int(0.11 * w)) | 1
    pad = k // 2 + 1
    padded = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_REFLECT_101)
    bg = cv2.medianBlur(padded, k)[pad:pad + sh, pad:pad + sw]
    bg = cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR)
    diff = np.abs(bgr.astype(np.int16) - bg.astype(np.int16)).max(axis=2)
    return (diff > 60) & inside


def _corner_box(ink: np.ndarray, corner: str) -> Box | None:
    h, w = ink.shape
    m = _flip(ink, corner)
    if corner == "top":
        rw, rh = w, int(0.26 * h)
    else:
        rw, rh = int(0.36 * w), int(0.5 * h)
    region = np.ascontiguousarray(m[:rh, :rw]).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(region, connectivity=8)
    keep = np.zeros(n, bool)
    min_area = max(3, int(2e-5 * w * h))
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < min_area:
            continue
        if x + bw >= rw or y + bh >= rh:  # runs out of the region: not part of an index
            continue
        if corner != "top" and bh > 0.3 * h:
            continue
        keep[i] = True
    if not keep.any():
        return None
    clean = keep[lab]
    if corner == "top":
        ys, xs = np.nonzero(clean)
    else:
        # index parts stack vertically (rank over suit): join generously up/down, little sideways
        dx, dy = max(2, int(round(0.014 * h))), max(3, int(round(0.04 * h)))
        joined = cv2.dilate(clean.astype(np.uint8), np.ones((dy, dx), np.uint8))
        n2, lab2 = cv2.connectedComponents(joined, connectivity=8)
        ys, xs = np.nonzero(clean)
        groups = lab2[ys, xs]
        # the group whose ink comes nearest the corner
        dist = xs.astype(np.float64) ** 2 + ys.astype(np.float64) ** 2
        best = groups[np.argmin(dist)]
        sel = groups == best
        ys, xs = ys[sel], xs[sel]
    pad = max(1, int(round(0.006 * w)))
    return (max(0, int(xs.min()) - pad), max(0, int(ys.min()) - pad),
            min(rw, int(xs.max()) + 1 + pad), min(rh, int(ys.max()) + 1 + pad))


def estimate_boxes(face: np.ndarray, corners: tuple[str, ...], outline: int | None = None
                   ) -> list[Box | None]:
    """One box (or None) per corner for one BGRA face."""
    ink = ink_mask(face, outline)
    h, w = ink.shape
    out: list[Box | None] = []
    for c in corners:
        b = _corner_box(ink, c)
        out.append(None if b is None else _unflip(b, c, w, h))
    return out


def _iou(a: Box, b: Box) -> float:
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0


def deck_boxes(faces: dict[str, np.ndarray], corners: tuple[str, ...],
               unindexed: tuple[str, ...] = (), lines: bool = False
               ) -> tuple[dict[str, list[Box]], int]:
    """Index boxes for every face of a deck, made consistent across the deck.

    ``faces`` maps card codes (``AS``, ``TH``) to BGRA faces of one size; codes whose rank
    letter is in ``unindexed`` get no boxes. A rank's index looks the same in every suit, so
    each rank gets, per corner, the median of its four suits' measured boxes (outliers and
    misses left out). Where a pip or picture touches the index the suit symbol can be lost;
    such a box is extended down to the deck's usual index bottom, measured on A, 2 and 3 where
    pips are far from the corners. Returns (code -> boxes, number of boxes not measured
    directly: taken from the rank or deck consensus).
    """
    if not faces:
        return {}, 0
    h, w = next(iter(faces.values())).shape[:2]
    outline = int(np.median([outline_width(f) for f in faces.values()]))
    inks = {code: ink_mask(f, outline) for code, f in faces.items() if code[0] not in unindexed}
    if lines:
        inks = {code: strip_lines(ink) for code, ink in inks.items()}
    out: dict[str, list[Box]] = {code: [] for code in faces}
    missing = 0
    for corner in corners:
        raw = {code: _corner_box(ink, corner) for code, ink in inks.items()}
        found = np.array([b for b in raw.values() if b is not None], np.float64)
        if len(found) == 0:
            continue
        med = np.median(found, axis=0)
        med_area = max(1.0, (med[2] - med[0]) * (med[3] - med[1]))

        def sane(b: Box | None) -> bool:
            """Starts where the deck's indices start and is about index-sized."""
            if b is None:
                return False
            area = (b[2] - b[0]) * (b[3] - b[1])
            return (0.2 * med_area <= area <= 3.0 * med_area
                    and abs(b[0] - med[0]) <= 0.06 * w and abs(b[1] - med[1]) <= 0.05 * h)

        ranks = sorted({code[0] for code in raw})
        per_rank: dict[str, np.ndarray] = {}
        for r in ranks:
            good = [raw[c] for c in raw if c[0] == r and sane(raw[c])]
            if good:
                per_rank[r] = np.median(np.array(good, np.float64), axis=0)
        clean = [per_rank[r] for r in "A23" if r in per_rank]
        bottom = float(np.median([b[3] for b in clean])) if clean else float(med[3])
        suit_right = float(min(b[2] for b in clean)) if clean else float(med[2])
        tol = 0.03 * h
        for r in ranks:
            b = per_rank.get(r)
            if b is None:
                b = med.copy()
            b = b.copy()
            if corner != "top" and b[3] < bottom - tol:  # suit symbol lost to a touching pip
                b[3] = bottom
                b[2] = max(b[2], suit_right)
                b[0] = min(b[0], med[0])
            box = _unflip(tuple(int(round(v)) for v in b), corner, w, h)  # type: ignore[arg-type]
            for code in raw:
                if code[0] == r:
                    if raw[code] is None or not sane(raw[code]):
                        missing += 1
                    out[code].append(box)
    return out, missing
