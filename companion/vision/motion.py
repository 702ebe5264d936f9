"""The motion gate: is the scene moving (a hand at work) or settled?

The expensive recogniser runs only when the scene has just settled, so moving frames cost a resize
and a difference (well under a millisecond). Hysteresis as in tracking libraries: a frame is *still*
when it differs from the previous one by less than ``still_threshold``; the scene is *settled* after
``settle_frames`` still frames in a row; it is *moving* again as soon as one frame differs by more
than ``move_threshold`` (higher than the still threshold, so sensor noise does not flicker the state).

>>> import numpy as np
>>> gate = MotionGate(MotionParams(settle_frames=2))
>>> still = np.full((90, 160, 3), 100, np.uint8)
>>> [gate.update(still).name for _ in range(3)]
['MOVING', 'SETTLING', 'SETTLED']
>>> gate.just_settled, gate.update(still).name, gate.just_settled
(True, 'SETTLED', False)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["MotionParams", "MotionGate", "SceneState", "StackLooks", "small_grey"]


class SceneState(enum.Enum):
    MOVING = "moving"
    SETTLING = "settling"
    SETTLED = "settled"


@dataclass(frozen=True)
class MotionParams:
    """Motion-gate settings; invalid values raise ``ValueError`` naming the setting and its range."""

    width: int = 160  # frames are compared at this width (grey, blurred)
    blur: int = 5  # odd Gaussian kernel size, 1 = none
    still_threshold: float = 1.2  # mean absolute difference (0..255) under which a frame is still
    move_threshold: float = 2.0  # above this a frame is moving
    settle_frames: int = 3  # still frames in a row before the scene counts as settled

    def __post_init__(self) -> None:
        if not 16 <= self.width <= 1920:
            raise ValueError(f"motion width must be 16..1920 pixels, got {self.width}")
        if self.blur < 1 or self.blur % 2 == 0:
            raise ValueError(f"motion blur must be an odd kernel size >= 1, got {self.blur}")
        if not 0 < self.still_threshold <= self.move_threshold:
            raise ValueError(
                f"need 0 < still_threshold <= move_threshold, got {self.still_threshold} and {self.move_threshold}")
        if not 1 <= self.settle_frames <= 300:
            raise ValueError(f"settle_frames must be 1..300, got {self.settle_frames}")


def small_grey(frame: np.ndarray, width: int, blur: int) -> np.ndarray:
    """The frame shrunk to ``width`` (aspect kept), grey, blurred: what motion is measured on."""
    h, w = frame.shape[:2]
    small = cv2.resize(frame, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    return cv2.GaussianBlur(grey, (blur, blur), 0) if blur > 1 else grey


class MotionGate:
    """Feed frames with :meth:`update`; read :attr:`state`, :attr:`just_settled`, :attr:`motion`."""

    def __init__(self, params: MotionParams | None = None) -> None:
        self.params = params or MotionParams()
        self.state = SceneState.MOVING
        self.just_settled = False
        self.motion = 0.0
        self._prev: np.ndarray | None = None
        self._still = 0

    def reset(self) -> None:
        self.__init__(self.params)  # type: ignore[misc]

    def update(self, frame: np.ndarray) -> SceneState:
        p = self.params
        grey = small_grey(frame, p.width, p.blur)
        self.just_settled = False
        if self._prev is None or self._prev.shape != grey.shape:
            self._prev = grey
            self._still = 0
            self.state = SceneState.MOVING
            return self.state
        self.motion = float(cv2.absdiff(grey, self._prev).mean())
        self._prev = grey
        if self.motion > p.move_threshold or (self.motion > p.still_threshold and self.state is not SceneState.SETTLED):
            self._still = 0
            self.state = SceneState.MOVING
        elif self.motion <= p.still_threshold:
            self._still += 1
            if self.state is not SceneState.SETTLED:
                if self._still >= p.settle_frames:
                    self.state = SceneState.SETTLED
                    self.just_settled = True
                else:
                    self.state = SceneState.SETTLING
        return self.state


class StackLooks:
    """The settled look of each stack: a small grey patch of its region, kept whenever nothing has
    moved there for ``still_frames`` frames, with the frame it was kept at.

    A stack whose top card was taken looks different once the hand has gone; a hand that only passed
    over it, or rested on it a moment, leaves it looking as before. So :meth:`change_since` (how much a
    stack's look now differs from its look at an earlier frame) says where a card was taken from
    without reading anything (rendered games: 5-28 grey levels at the pile a card was taken from,
    about 1 at the others).

    >>> import numpy as np
    >>> looks = StackLooks(np.array([[20.0, 20.0]]), np.array([20.0]), still_frames=2)
    >>> table = np.full((60, 60, 3), 90, np.uint8)
    >>> for i in range(3):
    ...     looks.update(table, i)
    >>> card_gone = table.copy(); card_gone[12:28, 14:26] = 200
    >>> for i in range(3, 6):
    ...     looks.update(card_gone, i)
    >>> looks.change_since(1, 2) > 20, looks.change_since(1, 5), looks.first_settled(1)
    (True, 0.0, 2)
    """

    def __init__(self, centres: np.ndarray, card_h: np.ndarray, *, reach: float = 0.45, size: int = 16,
                 still_level: float = 1.5, still_frames: int = 4, keep: int = 64, compare_looks: int = 1) -> None:
        if not 0.0 < reach <= 2.0:
            raise ValueError(f"stack looks reach must be in (0, 2] card heights, got {reach}")
        if not 4 <= size <= 64:
            raise ValueError(f"stack looks size must be 4..64 pixels, got {size}")
        if not still_level > 0:
            raise ValueError(f"stack looks still_level must be > 0 grey levels, got {still_level}")
        if not still_frames >= 1:
            raise ValueError(f"stack looks still_frames must be >= 1, got {still_frames}")
        if not 1 <= compare_looks <= keep:
            raise ValueError(f"stack looks compare_looks must be 1..keep ({keep}), got {compare_looks}")
        self.centres = np.asarray(centres, np.float64).reshape(-1, 2)
        self.card_h = np.asarray(card_h, np.float64).reshape(-1)
        self.reach, self.size, self.still_level, self.still_frames = reach, size, still_level, still_frames
        n = len(self.centres)
        self._prev: list[np.ndarray | None] = [None] * n
        self._still = [0] * n
        self._kept: list[list[tuple[int, np.ndarray]]] = [[] for _ in range(n)]
        self._keep = keep
        self.compare_looks = compare_looks

    def _patch(self, image: np.ndarray, k: int) -> np.ndarray | None:
        h, w = image.shape[:2]
        (cx, cy), r = self.centres[k], self.reach * self.card_h[k]
        a, b = max(0, int(cy - r)), min(h, int(cy + r) + 1)
        c, d = max(0, int(cx - r)), min(w, int(cx + r) + 1)
        if b - a < 2 or d - c < 2:
            return None
        small = cv2.resize(image[a:b, c:d], (self.size, self.size), interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
        return grey.astype(np.float32)

    def update(self, image: np.ndarray, frame: int) -> None:
        """Feed one frame (its index counts for :meth:`change_since`)."""
        for k in range(len(self.centres)):
            p = self._patch(image, k)
            if p is None:
                continue
            prev = self._prev[k]
            self._still[k] = self._still[k] + 1 if prev is not None and float(np.abs(p - prev).mean()) < self.still_level else 0
            self._prev[k] = p
            if self._still[k] >= self.still_frames:
                kept = self._kept[k]
                if self._still[k] > self.still_frames and kept:
                    kept[-1] = (kept[-1][0], p)  # still settled since that frame: its latest look
                else:
                    kept.append((frame, p))  # settled again (a look per settled spell, from its first frame)
                    del kept[:-self._keep]

    def settled(self, pile: int) -> bool:
        """Nothing moved at the stack of ``pile`` in its last ``still_frames`` frames."""
        return self._still[pile - 1] >= self.still_frames

    def first_settled(self, pile: int) -> int | None:
        """The frame the stack's earliest kept look was first seen settled (None: not yet)."""
        kept = self._kept[pile - 1]
        return kept[0][0] if kept else None

    def change_since(self, pile: int, frame: int, settled_after: int | None = None) -> float | None:
        """Mean grey-level difference between the stack's latest settled look and its last settled look
        at or before ``frame`` (with ``compare_looks`` above 1: the least difference from that many of its
        last settled looks by then; a hand that rested still on the stack a moment, as it put a card down
        beside it, is in that look, and the look before shows the stack as it was); None when it was never
        seen settled by then, or when it is not settled now (a hand may be taking its card) unless it
        settled after frame ``settled_after`` (what happened before then shows)."""
        kept = self._kept[pile - 1]
        if not kept:
            return None
        if not self.settled(pile) and (settled_after is None or kept[-1][0] <= settled_after):
            return None
        before = [p for f, p in kept if f <= frame]  # the spell settled at that frame, or the last before it
        if not before:
            return None
        return min(float(np.abs(kept[-1][1] - p).mean()) for p in before[-self.compare_looks:])
