"""Find and read every visible card in a camera frame: two small ONNX models on the CPU.

1. The corner detector (``detector.onnx``) looks at the frame downscaled to a 384-pixel long side and
   marks the centre of every printed corner index (face-up cards) and every face-down card, with the
   index's up direction, its size and where the card's centre lies.
2. The index reader (``index.onnx``) reads each index from an upright crop of the full-resolution
   frame: a glyph (A, 2..10, J, Q, K, foreign court letters, or "not an index") and a suit. Where the
   manifest lists a second reader (``index2.onnx``), both read every crop and their probabilities are
   averaged: their confident mistakes mostly fall on different crops.

Corners that belong to one card are merged into one detection. A reading below the confidence
threshold, or a glyph the chosen index alphabet does not have, is reported unknown, never guessed;
a suit is reported only where an index glyph was read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from pathlib import Path

import cv2
import numpy as np

from .detections import Detections
from .geometry import (Pyramid, axis_ups, card_quad, corrected_crop, crop_card, crop_index, dominant_axis,
                       up_to_angle)
from .models import default_models_dir, load_session, read_manifest
from .spec import (ALPHABETS, DETECTOR_STRIDE, DETECTOR_WIDTH, FACE_CROP_H, FACE_CROP_W, FACE_RANKS, GLYPH_ID,
                   GLYPHS, SUITS_OUT)

__all__ = ["Recogniser", "Candidates", "RecogniserConfig"]


@dataclass(frozen=True)
class RecogniserConfig:
    """Thresholds, chosen on held-out synthetic decks (never on the real photos)."""

    corner_threshold: float = 0.3  # detector heat for an index corner
    down_threshold: float = 0.4  # detector heat for a face-down card
    min_confidence: float = 0.85  # below this a rank is reported unknown
    suit_confidence: float = 0.9  # below this a suit is reported unknown
    background_reject: float = 0.5  # an index crop read as "not an index" at least this surely is dropped
    max_candidates: int = 80
    #: Also take as an index corner a cell above ``corner_threshold`` that is no local peak of the heat
    #: when the index centre it predicts (its sub-cell offset) lies at least this many index heights
    #: from every peak's and every such cell's already taken: two indices of a fan slid beneath a pile
    #: lie about one cell apart at the detector's stride, and the 3x3 peak test keeps only one. 0: off.
    split_peaks: float = 0.0
    #: The long side, in pixels, of the frame the corner detector looks at. Bigger finds smaller
    #: cards (a 60 px card of a 1280 px frame is 18 px at 384) and costs time as its square.
    detector_size: int = DETECTOR_WIDTH
    merge_distance: float = 0.3  # corners whose card centres are closer than this x card height are one card
    #: A corner whose rank is not read with confidence can be read again from crops cut a little
    #: differently (size factor, turn in degrees), e.g. ((0.8, 0), (1.25, 0), (1, 12), (1, -12)): the
    #: detector's size and up direction are often a little off. The most confident rank counts (the
    #: suit stays the first crop's); two confident readings that disagree make it unknown. Off: on
    #: held-out synthetic frames it read 4 points more ranks right but also gave more confidently
    #: wrong readings (see models/README.md).
    retry_variants: tuple[tuple[float, float], ...] = ()
    #: A rank read from a retry crop, or from a crop cut again (``refine``), counts only at this confidence.
    retry_confidence: float = 0.9
    #: Cut each index crop again where the reader says it should have been cut (an index reader with
    #: a geometry output), and read that crop: the detector's centre, direction and size are often a
    #: little off. Corrections larger than these (index heights, radians, log size) are clipped.
    refine: bool = True
    refine_limits: tuple[float, float, float] = (0.6, 0.6, 0.7)
    #: How many times a crop still unsure after a look is cut again where the reader now says, and
    #: read again: each correction is partial (the reader saw a crop cut off), so a second and third
    #: step get closer to the true place. On held-out tuning frames 3 rounds read 3 points more cards
    #: right than 1 (see models/README.md).
    refine_rounds: int = 3
    #: Read a corner still unsure, whose up is 12 degrees or more off the lines around it (a card's
    #: edges and its glyphs' strokes; :func:`~companion.vision.geometry.dominant_axis`), turned to
    #: the two directions of those lines nearest the detector's up. The detector's up is the reader's
    #: weak input where cards overlap: on held-out tuning frames 28% of the cards read wrong or not at
    #: all near a found corner had it 30 degrees or more off. Such a reading counts only at
    #: ``retry_confidence``, when the reader takes the crop for upright, and when the crop cut again
    #: where the reader says reads the same rank as surely, and the same suit. On tuning frames: 3
    #: points more cards read, for 4-10 ms a frame (models/README.md).
    axis_retry: bool = True
    #: Read a face-up card left unknown from its whole face (pips and court art) with the face reader
    #: (``face.onnx``, where the models have one), when the card is at most ``face_max_card_px`` tall:
    #: a 60-90 px card's index is 5-8 px, too small to read, while its face still shows. A face reading
    #: counts when its rank and its suit are both at ``face_confidence`` (on held-out decks' crops, 0.97
    #: reads 36% of cards with 0.24% confidently wrong, 0.9 reads 54% with 1.1%; in tracking, 0.9 gave
    #: twice the false flags on dev games: models/README.md).
    face_reader: bool = True
    face_confidence: float = 0.97
    face_max_card_px: float = 170.0

    def __post_init__(self) -> None:
        for name in ("corner_threshold", "down_threshold", "min_confidence", "suit_confidence", "background_reject",
                     "retry_confidence", "face_confidence"):
            v = getattr(self, name)
            if not 0.0 < v < 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {v}")
        if not 128 <= self.detector_size <= 2048 or self.detector_size % 32:
            raise ValueError(f"detector_size must be a multiple of 32 between 128 and 2048, got {self.detector_size}")
        if self.max_candidates < 1:
            raise ValueError(f"max_candidates must be at least 1, got {self.max_candidates}")
        if not 0.0 <= self.split_peaks <= 2.0:
            raise ValueError(f"split_peaks must be between 0 (off) and 2 index heights, got {self.split_peaks}")
        if not 1 <= self.refine_rounds <= 5:
            raise ValueError(f"refine_rounds must be between 1 and 5, got {self.refine_rounds}")


@dataclass
class Candidates:
    """Raw detector output decoded into full-resolution image coordinates (parallel arrays)."""

    points: np.ndarray  # (K, 2) index-corner centre or face-down card centre
    score: np.ndarray  # (K,)
    face_up: np.ndarray  # (K,) bool
    up: np.ndarray  # (K, 2) unit glyph-up direction
    card_h: np.ndarray  # (K,)
    index_h: np.ndarray  # (K,)
    card_centre: np.ndarray  # (K, 2)
    #: (K,) bool: a corner taken by ``split_peaks`` beside a peak, not a peak of the heat itself
    extra: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.extra is None:
            self.extra = np.zeros(len(self.score), bool)


class Recogniser:
    """``Recogniser()(frame_bgr) -> Detections``. Load once; each call is independent."""

    def __init__(self, models_dir: Path | str | None = None, *, alphabet: str = "english", threads: int = 1,
                 config: RecogniserConfig | None = None) -> None:
        if alphabet not in ALPHABETS:
            raise ValueError(f"unknown index alphabet {alphabet!r} (one of {', '.join(ALPHABETS)})")
        self.models_dir = Path(models_dir) if models_dir else default_models_dir()
        self.detector = load_session(self.models_dir, "detector.onnx", threads)
        self.reader = load_session(self.models_dir, "index.onnx", threads)
        manifest = read_manifest(self.models_dir)
        listed = manifest.get("files", {})
        self.second_reader = load_session(self.models_dir, SECOND_READER, threads) if SECOND_READER in listed else None
        self.face_reader = load_session(self.models_dir, FACE_READER, threads) if FACE_READER in listed else None
        # how far the detector's quads of still cards scatter between looks (the manifest's figure,
        # measured on rendered games kept for it by ``python -m companion.train.scatter``): passed on
        # with every Detections, so a tracker is not strict as for exact positions before it has
        # measured its own
        scatter = manifest.get("scatter") or {}
        self.scatter = {k: float(scatter[k]) for k in ("position", "size") if isinstance(scatter.get(k), (int, float))}
        self._reader_outputs = max(len(r.get_outputs()) for r in self.readers)  # 3 with a geometry output
        self.alphabet = alphabet
        self.config = config or RecogniserConfig()
        self._rank_matrix = _rank_matrix(alphabet)

    # -- stage 1 --------------------------------------------------------------------------
    def detect(self, frame: np.ndarray) -> Candidates:
        """Corner candidates at the detector's scale, plus a half-scale pass for cards too big for it.

        The detector was trained on cards 14-280 px tall at its scale; a phone photo of one card
        (700-900 px of 1280) is near the top of that range, so a pass at half scale finds it
        comfortably. Each pass keeps the sizes it sees well; duplicates are merged.
        """
        h, w = frame.shape[:2]
        size = self.config.detector_size
        passes = []
        for x, s, valid in _detector_inputs(frame, size):
            out = self.detector.run(None, {"image": x})[0][0]  # (C, ih/4, iw/4)
            passes.append(self._decode(out, s, valid))
        if len(passes) == 1:
            return passes[0]
        full, half = passes
        s_full = size / max(h, w)
        keep_full = full.card_h * s_full <= BIG_CARD_DETECTOR_PX
        keep_half = half.card_h * s_full > BIG_CARD_DETECTOR_PX * 0.8
        return _merge(_subset(full, keep_full), _subset(half, keep_half))

    def _decode(self, out: np.ndarray, s: float, valid: tuple[int, int]) -> Candidates:
        cfg = self.config
        vh, vw = math.ceil(valid[1] / DETECTOR_STRIDE), math.ceil(valid[0] / DETECTOR_STRIDE)
        cells = []
        for channel, thr in ((0, cfg.corner_threshold), (1, cfg.down_threshold)):
            heat = out[channel][:vh, :vw]
            peak = (heat >= thr) & (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8)))
            split = _split_peaks(out, heat, peak, thr, cfg.split_peaks) if channel == 0 and cfg.split_peaks else peak
            ys, xs = np.nonzero(split)
            if len(ys) > cfg.max_candidates:
                keep = np.argsort(-heat[ys, xs])[: cfg.max_candidates]
                ys, xs = ys[keep], xs[keep]
            cells.append((channel, ys, xs, ~peak[ys, xs]))
        ch = np.concatenate([np.full(len(ys), c) for c, ys, _, _ in cells])
        ys = np.concatenate([ys for _, ys, _, _ in cells])
        xs = np.concatenate([xs for _, _, xs, _ in cells])
        extra = np.concatenate([e for *_, e in cells])
        at = out[:, ys, xs].astype(np.float64)  # (C, K): every output at every peak
        px = (xs + 0.5 + at[2]) * DETECTOR_STRIDE / s
        py = (ys + 0.5 + at[3]) * DETECTOR_STRIDE / s
        n = np.hypot(at[4], at[5])
        n[n == 0] = 1.0
        card_h = np.exp(at[6]) * DETECTOR_STRIDE / s
        index_h = np.exp(at[7]) * DETECTOR_STRIDE / s
        return Candidates(
            points=np.c_[px, py].astype(np.float32).reshape(-1, 2),
            score=out[ch, ys, xs].astype(np.float32),
            face_up=ch == 0,  # channel 0: index corners of face-up cards; 1: face-down cards
            up=np.c_[at[4] / n, at[5] / n].astype(np.float32).reshape(-1, 2),
            card_h=card_h.astype(np.float32),
            index_h=index_h.astype(np.float32),
            card_centre=np.c_[px + at[8] * card_h, py + at[9] * card_h].astype(np.float32).reshape(-1, 2),
            extra=extra,
        )

    # -- stage 2 --------------------------------------------------------------------------
    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Glyph and suit probabilities for a batch of upright index crops (N, H, W, 3) uint8."""
        glyph, suit, _geo = self.read_geometry(crops)
        return glyph, suit

    @property
    def readers(self) -> list:
        """The index reader sessions: one, or two whose readings are averaged."""
        return [self.reader] + ([self.second_reader] if self.second_reader is not None else [])

    def read_geometry(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Glyph and suit probabilities, and where each crop should have been cut (N, 4; see
        :func:`~companion.vision.geometry.corrected_crop`), None when no reader has that output.

        With two readers the probabilities are their mean and the geometry that of the readers that
        predict it (averaged)."""
        n_out = self._reader_outputs
        if len(crops) == 0:
            return (np.zeros((0, len(GLYPHS)), np.float32), np.zeros((0, 5), np.float32),
                    np.zeros((0, 4), np.float32) if n_out > 2 else None)
        x = _reader_input(crops)
        return _combine([r.run(None, {"crops": x}) for r in self.readers])

    def _read_refined(self, pyr: Pyramid, cand: Candidates, glyph_p: np.ndarray, suit_p: np.ndarray,
                      geo: np.ndarray) -> tuple[Candidates, np.ndarray, np.ndarray]:
        """Cut again, and read again, the crops the reader says were cut noticeably wrong, unless they
        were read with confidence already (or taken for no index at all: they are dropped anyway);
        ``refine_rounds`` times at most."""
        for k in range(self.config.refine_rounds):
            cand, glyph_p, suit_p, geo, redone = self._refine_once(pyr, cand, glyph_p, suit_p, geo, first=k == 0)
            if not redone:
                break
        return cand, glyph_p, suit_p

    def _refine_once(self, pyr: Pyramid, cand: Candidates, glyph_p: np.ndarray, suit_p: np.ndarray,
                     geo: np.ndarray, first: bool = True) -> tuple[Candidates, np.ndarray, np.ndarray, np.ndarray, bool]:
        cfg = self.config
        g = self._clip_correction(geo)
        sure = ((glyph_p @ self._rank_matrix)[:, 1:].max(1) >= cfg.min_confidence) & (suit_p[:, :4].max(1) >= cfg.suit_confidence)
        redo = (glyph_p[:, 0] < cfg.background_reject) & ~sure & (
            (np.hypot(g[:, 0], g[:, 1]) > REFINE_MIN[0]) | (np.abs(g[:, 2]) > REFINE_MIN[1]) | (np.abs(g[:, 3]) > REFINE_MIN[2]))
        if not redo.any():
            return cand, glyph_p, suit_p, geo, False
        keep = np.zeros(len(cand.points), bool)
        keep[np.nonzero(cand.face_up)[0][redo]] = True
        sub = self.refine(_subset(cand, keep), g[redo])
        g2, s2, geo2 = self.read_geometry(self.crops(pyr, sub))
        # a second look counts only when surer than a first would need to be (as a retry's does): it is a
        # second chance for a stray crop of court art or pips to look like an index
        second_unsure = (g2 @ self._rank_matrix)[:, 1:].max(1) < cfg.retry_confidence
        g2[second_unsure, 1:] *= 0.5
        pts, ups, ihs = cand.points.copy(), cand.up.copy(), cand.index_h.copy()
        pts[keep], ups[keep], ihs[keep] = sub.points, sub.up, sub.index_h
        moved = replace(cand, points=pts, up=ups, index_h=ihs)
        glyph_p, suit_p, geo = glyph_p.copy(), suit_p.copy(), geo.copy()
        if first:
            glyph_p[redo], suit_p[redo] = g2, s2
        else:  # a later look replaces the reading only when its rank is sure (the crop moves on anyway):
            # a crop that keeps moving can drift onto a pip and read a suit surely where no index is
            rows = np.nonzero(redo)[0][~second_unsure]
            glyph_p[rows], suit_p[rows] = g2[~second_unsure], s2[~second_unsure]
        geo[redo] = geo2 if geo2 is not None else 0.0
        return moved, glyph_p, suit_p, geo, True

    def _clip_correction(self, geo: np.ndarray) -> np.ndarray:
        """The reader's corrections with their size limited by ``refine_limits``."""
        shift, turn, size = self.config.refine_limits
        lim = np.array([shift, shift, turn, size], np.float32)
        return np.clip(geo, -lim, lim)

    def refine(self, cand: Candidates, geo: np.ndarray) -> Candidates:
        """The face-up candidates moved, turned and resized as the reader's geometry output says
        (``geo``: one row per face-up candidate, in order)."""
        geo = self._clip_correction(geo)
        idx = np.nonzero(cand.face_up)[0]
        pts, ups, ihs = cand.points.copy(), cand.up.copy(), cand.index_h.copy()
        for k, i in enumerate(idx):
            c, u, h = corrected_crop(tuple(cand.points[i]), tuple(cand.up[i]), float(cand.index_h[i]), geo[k])
            pts[i], ups[i], ihs[i] = c, u, h
        return replace(cand, points=pts, up=ups, index_h=ihs)

    def crops(self, frame: np.ndarray | Pyramid, cand: Candidates) -> np.ndarray:
        pyr = frame if isinstance(frame, Pyramid) else Pyramid(frame)
        idx = np.nonzero(cand.face_up)[0]
        out = [crop_index(pyr, tuple(cand.points[i]), tuple(cand.up[i]), float(cand.index_h[i])) for i in idx]
        return np.stack(out) if out else np.zeros((0, 1, 1, 3), np.uint8)

    # -- the whole thing ------------------------------------------------------------------
    def __call__(self, frame: np.ndarray) -> Detections:
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError("expected a BGR uint8 image of shape (H, W, 3)")
        cand = self.detect(frame)
        pyr = Pyramid(frame)
        glyph_p, suit_p, geo = self.read_geometry(self.crops(pyr, cand))
        if self.config.refine and geo is not None and len(geo):
            cand, glyph_p, suit_p = self._read_refined(pyr, cand, glyph_p, suit_p, geo)
        if self.config.axis_retry:
            cand, glyph_p, suit_p = self._read_along_axis(pyr, cand, glyph_p, suit_p)
        glyph_p, suit_p = self._retry(pyr, cand, glyph_p, suit_p)
        dets = self._assemble(cand, glyph_p, suit_p)
        if self.config.face_reader and self.face_reader is not None:
            self._read_faces(frame, dets)
        if self.scatter:
            dets.meta["scatter"] = dict(self.scatter)
        return dets

    def read_region(self, frame: np.ndarray, box: tuple[int, int, int, int]) -> Detections:
        """Cards in the part ``box`` = (x0, y0, x1, y1) of ``frame``, in the frame's pixels: the detector
        sees that part at its full input size, so small cards and tight fans there are found that the
        whole frame, shrunk, loses (a watcher's second look at a card it could not read)."""
        h, w = frame.shape[:2]
        x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
        x1, y1 = min(w, int(box[2])), min(h, int(box[3]))
        if x1 - x0 < 8 or y1 - y0 < 8:
            return Detections.empty()
        return self(np.ascontiguousarray(frame[y0:y1, x0:x1])).shifted(x0, y0)

    def read_faces(self, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Whole cards warped upright (N, FACE_CROP_H, FACE_CROP_W, 3) uint8 -> rank probabilities (N, 14:
        A..K, then "none") and suit probabilities (N, 5: C, D, H, S, "none")."""
        if self.face_reader is None:
            raise ValueError(f"these models have no face reader ({FACE_READER})")
        if len(cards) == 0:
            return np.zeros((0, len(FACE_RANKS)), np.float32), np.zeros((0, len(SUITS_OUT)), np.float32)
        r, s = self.face_reader.run(None, {"cards": _reader_input(cards)})
        return r, s

    def _read_faces(self, frame: np.ndarray, dets: Detections) -> None:
        """Fill in, in place, the face-up cards no index was read for (rank or suit unknown) that the
        face reader reads surely; a rank read from an index is never overruled."""
        cfg = self.config
        if not len(dets):
            return
        heights = np.linalg.norm(dets.quads[:, 3] - dets.quads[:, 0], axis=1)
        todo = np.nonzero(dets.face_up & ((dets.rank == 0) | (dets.suit < 0)) & (heights <= cfg.face_max_card_px)
                          & (heights >= 16))[0]
        if not len(todo):
            return
        crops = np.stack([crop_card(frame, dets.quads[i], FACE_CROP_W, FACE_CROP_H) for i in todo])
        rank_p, suit_p = self.read_faces(crops)
        for k, i in enumerate(todo):
            r, s = int(rank_p[k].argmax()), int(suit_p[k].argmax())
            if r == _FACE_NONE_RANK or s == _FACE_NONE_SUIT or min(rank_p[k, r], suit_p[k, s]) < cfg.face_confidence:
                continue  # not sure, or "none": too little of a face to tell
            if dets.rank[i] != 0 and dets.rank[i] != r + 1:
                continue  # the index says another rank: leave it as read
            dets.rank[i], dets.suit[i] = r + 1, s
            dets.rank_confidence[i] = float(rank_p[k, r])
            dets.suit_confidence[i] = float(suit_p[k, s])
            if dets.rank_probs is not None:
                dets.rank_probs[i] = rank_p[k, :_FACE_NONE_RANK] / max(float(rank_p[k, :_FACE_NONE_RANK].sum()), 1e-6)
            if dets.suit_probs is not None:
                dets.suit_probs[i] = suit_p[k, :_FACE_NONE_SUIT] / max(float(suit_p[k, :_FACE_NONE_SUIT].sum()), 1e-6)

    def _read_along_axis(self, pyr: Pyramid, cand: Candidates, glyph_p: np.ndarray, suit_p: np.ndarray
                         ) -> tuple[Candidates, np.ndarray, np.ndarray]:
        """Corners still unsure, cut again turned to the lines around them (see ``axis_retry``); a
        reading that counts also turns the corner's up (and so its card's quad)."""
        cfg = self.config
        if not len(glyph_p):
            return cand, glyph_p, suit_p
        rank_p = glyph_p @ self._rank_matrix
        todo = np.nonzero(rank_p[:, 1:].max(1) < cfg.min_confidence)[0]
        idx = np.nonzero(cand.face_up)[0]
        jobs: list[tuple[int, tuple[float, float]]] = []
        for k in todo:
            i = idx[k]
            lv = max(0, min(3, int(math.log2(max(float(cand.index_h[i]), 1.0) / AXIS_INDEX_PX))))
            axis = dominant_axis(pyr.level(lv), tuple(cand.points[i] / 2 ** lv), float(cand.index_h[i]) / 2 ** lv)
            if axis is None:
                continue
            near = axis_ups(tuple(cand.up[i]), axis)
            # only a corner cut 12 degrees or more off the lines around it (a glyph turned that far may
            # read as no glyph at all); nearer ones the refining above has turned already
            if near[0][0] * cand.up[i][0] + near[0][1] * cand.up[i][1] > AXIS_OFF:
                continue
            for u in near:
                if u[0] * cand.up[i][0] + u[1] * cand.up[i][1] < AXIS_SAME:  # not what was read already
                    jobs.append((int(k), u))
        if not jobs:
            return cand, glyph_p, suit_p
        pts = np.array([cand.points[idx[k]] for k, _ in jobs], np.float64)
        ups_j = np.array([u for _, u in jobs], np.float64)
        ihs = np.array([cand.index_h[idx[k]] for k, _ in jobs], np.float64)
        glyph_p, suit_p, ups = glyph_p.copy(), suit_p.copy(), cand.up.copy()
        best = np.zeros(len(glyph_p))
        # the turned crops are searched with one reader (the one that says where to cut); the other reads
        # only what that one reads surely enough, so that both judge it as every corner is judged
        scout = self.readers[-1]
        active = np.arange(len(jobs))
        # a turned crop's reading counts only when the crop cut again where the reader says reads the
        # same rank as surely, and the same suit: an index stays readable when the cut moves a little,
        # a stray pip or piece of court art seldom does (on tuning frames 8% of single readings were wrong)
        pending: dict[int, tuple[int, int]] = {}
        for _look in range(AXIS_LOOKS + 1):  # each turned crop read, then cut again where the reader says
            crops = np.stack([crop_index(pyr, tuple(pts[j]), tuple(ups_j[j]), float(ihs[j])) for j in active])
            x = _reader_input(crops)
            out = scout.run(None, {"crops": x})
            g1, geo1 = out[0], (out[2] if len(out) > 2 else None)
            # a mean of two readings reaches retry_confidence only where each is at least 2 * it - 1
            hopeful = np.nonzero((g1 @ self._rank_matrix)[:, 1:].max(1) >= 2 * cfg.retry_confidence - 1)[0]
            sure_rank = {}
            if len(hopeful):
                others = [r.run(None, {"crops": x[hopeful]}) for r in self.readers[:-1]]
                g2, s2, geo2 = _combine(others + [[o[hopeful] for o in out]])
                rank2 = g2 @ self._rank_matrix
                r2 = rank2[:, 1:].max(1)
                upright = np.abs(geo2[:, 2]) < AXIS_UPRIGHT if geo2 is not None else np.ones(len(hopeful), bool)
                # a glyph turned a quarter reads like two side by side: a "10" read a quarter turn from the
                # detector's up does not count (on tuning frames 4 of 5 such readings were other cards)
                ten = rank2[:, 1:].argmax(1) + 1 == 10
                for n, h in enumerate(hopeful):
                    j = active[h]
                    k = jobs[j][0]
                    if ten[n] and ups_j[j] @ cand.up[idx[k]] < AXIS_QUARTER:
                        continue
                    if r2[n] >= cfg.retry_confidence and upright[n] and g2[n, 0] < cfg.background_reject:
                        rank_read = (int(rank2[n, 1:].argmax()) + 1, int(s2[n].argmax()))
                        sure_rank[j] = rank_read
                        if pending.get(j) == rank_read and r2[n] > best[k]:
                            best[k] = r2[n]
                            glyph_p[k], suit_p[k] = g2[n], s2[n]
                            ups[idx[k]] = ups_j[j]
            pending = sure_rank
            if geo1 is None:
                break
            # every turn of a corner not yet read surely twice is cut again (even one read as no index
            # now: on tuning frames dropping those lost a point); a last look only to confirm
            again = np.array([best[jobs[j][0]] == 0 and (_look < AXIS_LOOKS - 1 or j in pending) for j in active], bool)
            g = self._clip_correction(geo1)
            for n in np.nonzero(again)[0]:
                j = active[n]
                pts[j], ups_j[j], ihs[j] = corrected_crop(tuple(pts[j]), tuple(ups_j[j]), float(ihs[j]), g[n])
            active = active[again]
            if not len(active):
                break
        turned = replace(cand, up=ups)
        return turned, glyph_p, suit_p

    def _retry(self, pyr: Pyramid, cand: Candidates, glyph_p: np.ndarray, suit_p: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        """Read the corners of unsure rank again from crops of other sizes and turns (see the config)."""
        cfg = self.config
        if not cfg.retry_variants or not len(glyph_p):
            return glyph_p, suit_p
        rank_p = glyph_p @ self._rank_matrix
        unsure = (glyph_p[:, 0] < cfg.background_reject) & (rank_p[:, 1:].max(1) < cfg.min_confidence)
        todo = np.nonzero(unsure)[0]
        if not len(todo):
            return glyph_p, suit_p
        idx = np.nonzero(cand.face_up)[0]
        crops = []
        for k in todo:
            i = idx[k]
            ux, uy = (float(v) for v in cand.up[i])
            for size, turn in cfg.retry_variants:
                a = math.radians(turn)
                up = (ux * math.cos(a) - uy * math.sin(a), ux * math.sin(a) + uy * math.cos(a))
                crops.append(crop_index(pyr, tuple(cand.points[i]), up, float(cand.index_h[i]) * size))
        g2, _ = self.read(np.stack(crops))
        nv = len(cfg.retry_variants)
        glyph_p = glyph_p.copy()
        for j, k in enumerate(todo):
            glyph_p[k] = _most_confident(np.concatenate([glyph_p[k:k + 1], g2[j * nv:(j + 1) * nv]]),
                                         self._rank_matrix, cfg)
        return glyph_p, suit_p

    def _assemble(self, cand: Candidates, glyph_p: np.ndarray, suit_p: np.ndarray) -> Detections:
        cfg = self.config
        up_idx = np.nonzero(cand.face_up)[0]
        rank_p = glyph_p @ self._rank_matrix  # (N, 14): column 0 = unknown mass
        # an index glyph read surely, of this alphabet or another (a Dutch court's H is an index too)
        glyph_read = glyph_p[:, 1:GLYPH_ID["other"]].max(1) >= cfg.min_confidence if len(glyph_p) else np.zeros(0, bool)
        keep = glyph_p[:, 0] < cfg.background_reject if len(glyph_p) else np.zeros(0, bool)
        # group the index corners kept into cards, strongest first
        order = sorted(np.nonzero(keep)[0].tolist(), key=lambda k: -cand.score[up_idx[k]])
        groups: list[list[int]] = []
        centre, card_h, up = cand.card_centre.tolist(), cand.card_h.tolist(), cand.up.tolist()
        for k in order:
            i = up_idx[k]
            for g in groups:
                j = up_idx[g[0]]
                if len(g) >= 4 or not 0.7 < card_h[i] / max(card_h[j], 1e-3) < 1.4:  # not similar sizes
                    continue
                if math.dist(centre[i], centre[j]) >= cfg.merge_distance * card_h[j] and \
                        not any(_opposite_corners(cand, i, up_idx[m]) for m in g):  # not near
                    continue
                if any(_fanned_corners(cand, i, up_idx[m]) for m in g):  # the next card of a fan, however read
                    continue
                # a corner printed the same way up as one of the group's and read as another card is
                # the next card of a fan. One printed the other way up and read as another *rank* is a
                # neighbour's opposite corner whose predicted centre falls near (the detector's card
                # centres scatter: the two corners of one card lie 0.14 card heights apart at the
                # median, fan neighbours 0.21); merging them made both unknown. Opposite corners that
                # differ only in the suit are one card, its suit unknown (a suit misread is likelier
                # than two cards of one rank side by side: models/README.md)
                if any(not _compatible(k, m, rank_p, suit_p, cfg,
                                       suits=up[i][0] * up[up_idx[m]][0] + up[i][1] * up[up_idx[m]][1] > 0.0)
                       for m in g):
                    continue
                g.append(k)
                break
            else:
                groups.append([k])
        rows = []
        for g in groups:
            if cand.extra[up_idx[g]].all() and rank_p[g, 1:].max() < cfg.min_confidence:
                continue  # a corner found only beside a peak counts when its rank is read: else it is noise
            rows.append(self._card_from_corners(cand, up_idx, g, rank_p, suit_p, glyph_read))
        rows = _dedupe_same_card(rows)
        for i in np.nonzero(~cand.face_up)[0]:
            quad = card_quad(tuple(cand.points[i]), tuple(cand.up[i]), float(cand.card_h[i]))
            box = _box(quad)
            rows.append((quad, box, 0, -1, 0.0, 0.0, False, up_to_angle(*cand.up[i]), _NO_RANK, _NO_SUIT, False))
        return Detections.from_rows(rows)

    def _card_from_corners(self, cand: Candidates, up_idx: np.ndarray, group: list[int], rank_p: np.ndarray,
                           suit_p: np.ndarray, glyph_read: np.ndarray) -> tuple:
        cfg = self.config
        best = max(group, key=lambda k: rank_p[k, 1:].max())
        r = int(rank_p[best, 1:].argmax()) + 1
        rconf = float(rank_p[best, r])
        sbest = max(group, key=lambda k: suit_p[k, :4].max())
        s = int(suit_p[sbest, :4].argmax())
        sconf = float(suit_p[sbest, s])
        # two corners of one card that confidently disagree on the suit: trust neither (corners read
        # confidently as different ranks are never grouped; opposite ones differing in suit are)
        for k in group:
            sk = int(suit_p[k, :4].argmax())
            if sk != s and suit_p[k, sk] >= cfg.suit_confidence:
                sconf = min(sconf, 1.0 - float(suit_p[k, sk]))
        rank = r if rconf >= cfg.min_confidence else 0
        # a suit only where an index glyph was read (a rank, or a court letter of another alphabet): a
        # crop whose glyph cannot be read is as often a pip of the card's body as an index (on
        # held-out tuning frames 3 of 18 confident errors were suits reported so); ``suit_probs`` still
        # carry what was read, for a tracker adding looks up
        suit = s if (rank or glyph_read[group].any()) and sconf >= cfg.suit_confidence else -1
        i = up_idx[group[0]]
        centre, up, card_h = cand.card_centre[i], cand.up[i], float(cand.card_h[i])
        pair = next(((up_idx[a], up_idx[b]) for a in group for b in group
                     if a < b and _opposite_corners(cand, up_idx[a], up_idx[b])), None)
        if pair is not None:
            # a card's two indices lie symmetric about its centre: their midpoint is where it lies,
            # however far off the detector's regression from each corner (half-covered cards)
            a, b = pair
            centre = (cand.points[a] + cand.points[b]) / 2
            axis = cand.up[a] - cand.up[b]
            up = axis if float(axis @ cand.up[i]) >= 0 else -axis
            card_h = float(cand.card_h[a] + cand.card_h[b]) / 2
        quad = card_quad(tuple(centre), tuple(up), card_h)
        both = pair is not None
        ib = up_idx[best]
        half = float(cand.index_h[ib]) / 2
        px, py = cand.points[ib]
        box = (px - half, py - half, px + half, py + half)
        # the corners' readings, unthresholded (a tracker adds up several looks at one card)
        rank_probs = rank_p[group, 1:].mean(0).astype(np.float32)
        suit_probs = suit_p[group, :4].mean(0).astype(np.float32)
        return quad, box, rank, suit, rconf, sconf, True, up_to_angle(*cand.up[i]), rank_probs, suit_probs, both


def _reader_input(crops: np.ndarray) -> np.ndarray:
    """Upright index crops (N, H, W, 3) uint8 as the readers take them: (N, 3, H, W) float32, 0..1."""
    return crops.astype(np.float32).transpose(0, 3, 1, 2) * (1.0 / 255.0)


def _combine(outs: list) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Several readers' outputs for the same crops: mean glyph and suit probabilities, and the mean
    geometry of those that predict it (None when none does)."""
    glyph = np.mean([o[0] for o in outs], axis=0)
    suit = np.mean([o[1] for o in outs], axis=0)
    geos = [o[2] for o in outs if len(o) > 2]
    return glyph, suit, (np.mean(geos, axis=0) if geos else None)


_NO_RANK = np.full(13, 1.0 / 13, np.float32)  # a face-down card: nothing read
_NO_SUIT = np.full(4, 0.25, np.float32)


def _opposite_corners(cand: Candidates, i: int, j: int) -> bool:
    """Whether candidates ``i`` and ``j`` lie as the two printed indices of one card: printed opposite
    ways up, about a card's diagonal apart, their midpoint (the card's centre) near where each
    predicts the centre. The detector's centre from one corner scatters most where the card is partly
    covered; the pair's geometry does not."""
    if float(cand.up[i] @ cand.up[j]) > -OPPOSITE_COS:
        return False
    h = float(cand.card_h[i] + cand.card_h[j]) / 2
    gap = float(np.linalg.norm(cand.points[i] - cand.points[j]))
    if not OPPOSITE_GAP[0] * h < gap < OPPOSITE_GAP[1] * h:
        return False
    mid = (cand.points[i] + cand.points[j]) / 2
    reach = OPPOSITE_REACH * h
    return bool(np.linalg.norm(cand.card_centre[i] - mid) < reach and np.linalg.norm(cand.card_centre[j] - mid) < reach)


def _fanned_corners(cand: Candidates, i: int, j: int) -> bool:
    """Whether candidates ``i`` and ``j``, printed the same way up, are indices of two cards: one card's
    indices printed the same way up lie side by side along its top edge, a card's width apart, never
    one above the other; two index corners a step apart (a fan slid beneath a pile, a fifth of a card)
    are two cards, even when one of them is not read (grouping them gave the card read the place of
    the one not read)."""
    if float(cand.up[i] @ cand.up[j]) < OPPOSITE_COS:
        return False
    d = cand.points[i] - cand.points[j]
    ih = float(cand.index_h[i] + cand.index_h[j]) / 2
    gap = float(np.hypot(*d))
    if gap <= FAN_STEP * ih:
        return False  # one index seen twice
    u = (cand.up[i] + cand.up[j]) / 2
    along = abs(float(d @ u)) / max(float(np.hypot(*u)), 1e-6)
    return along > FAN_STEP * ih or FAN_ACROSS * ih < gap < SIDE_BY_SIDE * float(cand.card_h[i] + cand.card_h[j]) / 2


#: Two index corners printed the same way up are two cards when they lie more than ``FAN_STEP`` index
#: heights apart along their up, or more than ``FAN_ACROSS`` index heights but less than
#: ``SIDE_BY_SIDE`` card heights apart across it (nearer, they may be one index seen twice).
FAN_STEP = 0.6
FAN_ACROSS = 0.9
SIDE_BY_SIDE = 0.45

#: Two corners are one card's two indices when their ups are within about 30 degrees of opposite,
#: they lie 0.7 to 1.4 card heights apart (the indices' diagonal, whatever the deck's margins) and
#: each one's predicted centre lies within 0.3 card heights of their midpoint.
OPPOSITE_COS = math.cos(math.radians(30))
OPPOSITE_GAP = (0.7, 1.4)
OPPOSITE_REACH = 0.3


def _compatible(a: int, b: int, rank_p: np.ndarray, suit_p: np.ndarray, cfg: RecogniserConfig,
                suits: bool = True) -> bool:
    """Whether corner readings ``a`` and ``b`` can be the two indices of one card.

    In a fanned pile the cards' centres lie a fraction of a card height apart, closer than the
    merge distance; two corners read confidently as different ranks (or, with ``suits``, suits) are
    different cards, and merging them would make both unknown.
    """
    ra, rb = int(rank_p[a, 1:].argmax()) + 1, int(rank_p[b, 1:].argmax()) + 1
    if ra != rb and rank_p[a, ra] >= cfg.min_confidence and rank_p[b, rb] >= cfg.min_confidence:
        return False
    if not suits:
        return True
    sa, sb = int(suit_p[a, :4].argmax()), int(suit_p[b, :4].argmax())
    return not (sa != sb and suit_p[a, sa] >= cfg.suit_confidence and suit_p[b, sb] >= cfg.suit_confidence)


def _most_confident(g: np.ndarray, rank_matrix: np.ndarray, cfg: RecogniserConfig) -> np.ndarray:
    """Of several glyph readings of one corner (rows; row 0 from the first crop), the most confident.

    Readings taken for "not an index" are left out, a retry's reading counts only at
    ``retry_confidence``, and when two readings name different ranks with confidence the answer is
    made unsure (its rank probabilities halved), never a guess.
    """
    rank_p = g @ rank_matrix
    conf = rank_p[:, 1:].max(1)
    usable = g[:, 0] < cfg.background_reject
    ok = usable & (conf >= np.r_[0.0, np.full(len(g) - 1, cfg.retry_confidence)])
    best = int(np.where(ok, conf, -1.0).argmax()) if ok.any() else 0
    out = g[best].copy()
    sure = usable & (conf >= cfg.min_confidence)
    if len(set(rank_p[sure, 1:].argmax(1).tolist())) > 1:
        out[1:] *= 0.5
    return out


#: The second index reader's file name (optional; used when the manifest lists it).
SECOND_READER = "index2.onnx"
FACE_READER = "face.onnx"
_FACE_NONE_RANK = FACE_RANKS.index("none")  # the face reader's last rank and suit classes: "none"
_FACE_NONE_SUIT = SUITS_OUT.index("none")

#: A crop is cut again only when the reader's correction moves it at least this far (index heights),
#: turns it this much (radians, about 5 degrees) or resizes it this much (log): smaller ones change
#: little and would cost a second read.
REFINE_MIN = (0.08, 0.09, 0.1)
# axis retry (``RecogniserConfig.axis_retry``): a turn within 8 degrees of the one read already is
# not read again (cosine); a crop the reader would turn by more than 0.2 radians is not taken for
# upright; a corner is read again only when cut 12 degrees or more off the lines around it; each
# turned crop is looked at up to 3 times, and once more to confirm a sure reading of the third look;
# the lines are measured at the pyramid level where the index is about 20 pixels tall; a "10" read
# more than 45 degrees from the detector's up does not count
AXIS_SAME = math.cos(math.radians(8))
AXIS_UPRIGHT = 0.2
AXIS_OFF = math.cos(math.radians(12))
AXIS_LOOKS = 3
AXIS_INDEX_PX = 20.0
AXIS_QUARTER = math.cos(math.radians(45))

#: Above this card height (in pixels at the detector's full scale) the half-scale pass takes over.
BIG_CARD_DETECTOR_PX = 160.0


def _detector_inputs(frame: np.ndarray, size: int) -> list[tuple[np.ndarray, float, tuple[int, int]]]:
    """The detector's input tensors for a frame: the pass at ``size`` (long side) and, for frames at
    least twice that, the half-scale pass; each with its scale from the frame and its valid (w, h)."""
    h, w = frame.shape[:2]
    # Shrink in steps: a Gaussian halving first is several times cheaper than one big area resize.
    src, f = frame, 1.0
    while max(h, w) * f / 2 >= size:
        src, f = cv2.pyrDown(src), f / 2
    s = size / max(src.shape[:2])
    small = cv2.resize(src, (max(1, round(src.shape[1] * s)), max(1, round(src.shape[0] * s))),
                       interpolation=cv2.INTER_AREA)
    out = [_detector_tensor(small, s * f)]
    if max(h, w) >= 2 * size:  # the half-scale pass: half the first pass's picture (cheap: 2x2 means)
        half = cv2.resize(small, ((small.shape[1] + 1) // 2, (small.shape[0] + 1) // 2), interpolation=cv2.INTER_AREA)
        out.append(_detector_tensor(half, s * f * half.shape[1] / small.shape[1]))
    return out


def _detector_tensor(small: np.ndarray, s: float) -> tuple[np.ndarray, float, tuple[int, int]]:
    """(1, 3, H, W) in 0..1, padded to multiples of 32, with its scale and valid (w, h)."""
    dh, dw = small.shape[:2]
    iw, ih = _ceil32(dw), _ceil32(dh)
    if (iw, ih) != (dw, dh):
        small = cv2.copyMakeBorder(small, 0, ih - dh, 0, iw - dw, cv2.BORDER_REPLICATE)
    return small.astype(np.float32).transpose(2, 0, 1)[None] * (1.0 / 255.0), s, (dw, dh)


def _subset(c: Candidates, keep: np.ndarray) -> Candidates:
    return Candidates(*(getattr(c, f.name)[keep] for f in fields(Candidates)))


def _merge(a: Candidates, b: Candidates) -> Candidates:
    """Both passes' candidates; of two within half an index height of each other the stronger stays."""
    pts = np.concatenate([a.points, b.points])
    if len(pts) == 0:
        return a
    allc = Candidates(*(np.concatenate([getattr(a, f.name), getattr(b, f.name)]) for f in fields(Candidates)))
    order = np.argsort(-allc.score)
    dist = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
    radius = np.where(allc.face_up, 0.5 * np.maximum(allc.index_h, 4.0), 0.3 * allc.card_h)
    same_kind = allc.face_up[:, None] == allc.face_up[None, :]
    taken = np.zeros(len(pts), bool)
    keep = np.zeros(len(pts), bool)
    for i in order:
        if not taken[i]:
            keep[i] = True
            taken |= same_kind[i] & (dist[i] <= radius[i])
    return _subset(allc, keep)


def _dedupe_same_card(rows: list[tuple]) -> list[tuple]:
    """Two confident readings of the same card within reach of each other are its two corners.

    One deck holds each card once, so when corner grouping left a card's two indices apart (their
    predicted centres disagreed), the identical readings are merged, keeping the more confident.
    """
    out: list[tuple] = []
    for row in sorted(rows, key=lambda r: -min(r[4], r[5])):
        quad, _box, rank, suit = row[0], row[1], row[2], row[3]
        if rank > 0 and suit >= 0:
            c = quad.mean(0)
            h = float(np.linalg.norm(quad[3] - quad[0]))
            if any(o[2] == rank and o[3] == suit and np.linalg.norm(o[0].mean(0) - c) < 1.5 * h for o in out):
                continue
        out.append(row)
    return out


def _ceil32(v: int) -> int:
    return int(math.ceil(v / 32) * 32)


def _box(quad: np.ndarray) -> tuple[float, float, float, float]:
    return (float(quad[:, 0].min()), float(quad[:, 1].min()), float(quad[:, 0].max()), float(quad[:, 1].max()))


def _rank_matrix(alphabet: str) -> np.ndarray:
    """(glyphs, 14) matrix summing glyph probabilities into ranks; column 0 collects the unknown."""
    table = ALPHABETS[alphabet]
    m = np.zeros((len(GLYPHS), 14), np.float32)
    for g, name in enumerate(GLYPHS):
        m[g, table.get(name, 0)] = 1.0
    return m


def _split_peaks(out: np.ndarray, heat: np.ndarray, peak: np.ndarray, thr: float, dist: float) -> np.ndarray:
    """``peak`` with the cells added that predict an index centre of their own (see ``split_peaks``)."""
    ys, xs = np.nonzero(peak)
    oy, ox = np.nonzero((heat >= thr) & ~peak)
    if not len(oy) or not len(ys):
        return peak
    taken = np.c_[xs + out[2, ys, xs], ys + out[3, ys, xs]]
    cx, cy = ox + out[2, oy, ox], oy + out[3, oy, ox]
    ih = np.exp(out[7, oy, ox])  # index height in cells
    peak = peak.copy()
    for k in np.argsort(-heat[oy, ox]):
        c = np.array([cx[k], cy[k]])
        if np.min(np.hypot(*(taken - c).T)) >= dist * ih[k]:
            peak[oy[k], ox[k]] = True
            taken = np.vstack([taken, c])
    return peak
