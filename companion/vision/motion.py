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

__all__ = ["MotionParams", "MotionGate", "SceneState", "small_grey"]


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
