"""The live companion (`companion play`, `companion replay`): the frame loop, the window or the
annotated video, speech, the session log and resume. See :mod:`.session` and :mod:`.play`."""

from __future__ import annotations

from .play import AppError, PlayOptions, run_play
from .session import PlayConfig, PlayResult, PlaySession, Resume

__all__ = ["AppError", "PlayOptions", "run_play", "PlayConfig", "PlayResult", "PlaySession", "Resume"]
