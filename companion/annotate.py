"""Annotators: drawing kept apart from logic. Each has ``annotate(frame, detections) -> frame``.

They draw on a copy unless ``inplace=True``, and compose:

>>> import numpy as np
>>> from companion.vision.detections import Detections
>>> frame = np.zeros((40, 60, 3), np.uint8)
>>> out = LabelAnnotator().annotate(QuadAnnotator().annotate(frame, Detections.empty()), Detections.empty())
>>> out.shape
(40, 60, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .vision.detections import Detections, rank_label, suit_code

__all__ = ["QuadAnnotator", "LabelAnnotator", "annotate_all"]

KNOWN = (60, 200, 60)
UNKNOWN = (0, 165, 255)
FACE_DOWN = (200, 120, 40)


def _colour(d: Detections, i: int) -> tuple[int, int, int]:
    if not d.face_up[i]:
        return FACE_DOWN
    return KNOWN if d.card(i) is not None else UNKNOWN


def _thickness(frame: np.ndarray) -> int:
    return max(1, round(max(frame.shape[:2]) / 640))


@dataclass
class QuadAnnotator:
    """Outlines each card's quad (green read, orange unknown, blue face down) and its index box."""

    inplace: bool = False
    index_boxes: bool = True

    def annotate(self, frame: np.ndarray, detections: Detections) -> np.ndarray:
        out = frame if self.inplace else frame.copy()
        t = _thickness(out)
        for i in range(len(detections)):
            c = _colour(detections, i)
            pts = np.round(detections.quads[i]).astype(np.int32)
            cv2.polylines(out, [pts], True, c, t, cv2.LINE_AA)
            if self.index_boxes and detections.face_up[i]:
                x0, y0, x1, y1 = np.round(detections.index_boxes[i]).astype(int)
                cv2.rectangle(out, (x0, y0), (x1, y1), c, max(1, t // 2), cv2.LINE_AA)
        return out


@dataclass
class LabelAnnotator:
    """Writes each card's reading (``7H 0.99``, ``? ?`` when unknown, ``back``) at its centre."""

    inplace: bool = False

    def annotate(self, frame: np.ndarray, detections: Detections) -> np.ndarray:
        out = frame if self.inplace else frame.copy()
        t = _thickness(out)
        scale = 0.5 * t
        for i in range(len(detections)):
            if detections.face_up[i]:
                r = rank_label(int(detections.rank[i])) or "?"
                s = suit_code(int(detections.suit[i])) or "?"
                text = f"{r}{s} {detections.confidence(i):.2f}"
            else:
                text = "back"
            cx, cy = detections.centres[i]
            (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, t)
            x, y = int(cx - tw / 2), int(cy + th / 2)
            cv2.rectangle(out, (x - 2, y - th - 3), (x + tw + 2, y + base), (255, 255, 255), -1)
            cv2.putText(out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, _colour(detections, i), t, cv2.LINE_AA)
        return out


def annotate_all(frame: np.ndarray, detections: Detections) -> np.ndarray:
    """Quads, then labels: what ``companion recognise --annotate`` writes."""
    return LabelAnnotator(inplace=True).annotate(QuadAnnotator().annotate(frame, detections), detections)
