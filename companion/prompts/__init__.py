"""The prompts layer of the live companion: what to say and show for each referee verdict.

* :mod:`.phrases`: :class:`Prompt` and :class:`Phraser` (normal and child mode);
* :mod:`.speech`: speech engines and the :class:`Speaker` worker that never stalls the frame loop;
* :mod:`.summary`: :class:`GameSummary`, the end-of-game summary;
* :mod:`.overlay`: :class:`OverlayState` and :class:`OverlayAnnotator`, the on-screen overlay;
* :mod:`.reader`: :class:`PlayReader`, which follows the cards through the rows for the others.

Only the overlay draws (OpenCV); it is imported on first use, so that phrases and speech load
without OpenCV.
"""

from __future__ import annotations

from typing import Any

from .phrases import LANGUAGES, Phraser, Prompt
from .reader import Mistake, PlayReader, strip_reminder
from .speech import Speaker, SpeechEngine, SpeechError, SpeechUnavailable, find_engine
from .summary import GameSummary

__all__ = [
    "Prompt", "Phraser", "LANGUAGES", "GameSummary", "Mistake", "PlayReader", "strip_reminder",
    "Speaker", "SpeechEngine", "SpeechError", "SpeechUnavailable", "find_engine",
    "OverlayState", "OverlayAnnotator",
]

_LAZY = {"OverlayState", "OverlayAnnotator"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import overlay

        return getattr(overlay, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
