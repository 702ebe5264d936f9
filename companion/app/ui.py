"""Where the live view goes: a window with keys, or (no display) an annotated video file.

OpenCV's ``imshow`` without a display aborts the whole process (it cannot be caught), so
:func:`has_display` is asked first and a :class:`WindowUI` is only made when it says yes.

Keys (both UIs: the window's keyboard, or a script ``{frame: "key"}`` for tests and headless runs):
``q`` quit, space pause/resume, ``u`` undo, ``r`` recalibrate, ``m`` mute, ``h`` hint.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

__all__ = ["has_display", "WindowUI", "VideoUI", "KEYS", "parse_keys", "UIError", "NoWindow", "default_video_path"]

#: Key name -> action.
KEYS = {"q": "quit", "space": "pause", "u": "undo", "r": "recalibrate", "m": "mute", "h": "hint"}
_CODES = {ord("q"): "q", 27: "q", ord(" "): "space", ord("u"): "u", ord("r"): "r", ord("m"): "m", ord("h"): "h",
          ord("Q"): "q", ord("U"): "u", ord("R"): "r", ord("M"): "m", ord("H"): "h"}


class UIError(ValueError):
    """Bad UI input (a key script that does not parse, an output that cannot be written)."""


class NoWindow(UIError):
    """A display is there but OpenCV cannot open a window (built without GUI support)."""


def has_display() -> bool:
    """True when a window can be opened. Linux: an X display that answers (``$DISPLAY``; a Wayland
    session runs OpenCV's window through XWayland, which sets ``$DISPLAY`` too); macOS and Windows:
    always."""
    if not sys.platform.startswith("linux"):
        return True
    from ..vision.layout import display_available

    return display_available()


def parse_keys(text: str | None) -> dict[int, list[str]]:
    """A key script: ``"120:space,200:space,310:u"`` -> {frame: [key, ...]} (keys of :data:`KEYS`).

    >>> parse_keys("5:u, 9:space,9:h")
    {5: ['u'], 9: ['space', 'h']}
    """
    out: dict[int, list[str]] = {}
    if not text:
        return out
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        f, _, k = part.partition(":")
        k = k.strip().lower()
        if not f.strip().isdigit() or k not in KEYS:
            raise UIError(f"key script entries look like FRAME:KEY with KEY one of {', '.join(KEYS)}; got {part!r}")
        out.setdefault(int(f), []).append(k)
    return out


class VideoUI:
    """No display: every shown frame is written to an annotated video (``.mp4``, mp4v)."""

    window = False

    def __init__(self, path: Path | str, fps: float) -> None:
        from ..vision.sources import SourceError, VideoWriter

        try:
            self.writer = VideoWriter(path, fps=fps)
        except SourceError as exc:
            raise UIError(str(exc)) from None
        self.path = Path(path)

    def show(self, image: np.ndarray) -> None:
        self.writer.write(image)

    def keys(self, wait_s: float = 0.0) -> list[str]:
        return []

    def wait(self, seconds: float) -> list[str]:
        return []

    def close(self) -> None:
        self.writer.close()


class WindowUI:
    """A resizable OpenCV window; :meth:`keys` pumps its events and returns the keys pressed."""

    window = True

    def __init__(self, title: str = "companion", out: Path | str | None = None, fps: float = 30.0) -> None:
        import cv2

        self.cv2 = cv2
        self.title = title
        try:
            cv2.namedWindow(title, cv2.WINDOW_NORMAL)
        except cv2.error as exc:  # an OpenCV built without windows (opencv-python-headless)
            raise NoWindow(f"OpenCV cannot open a window here ({str(exc).strip().splitlines()[-1][:80]})") from None
        self.writer = None
        self._sized = False
        if out is not None:
            from ..vision.sources import SourceError, VideoWriter

            try:
                self.writer = VideoWriter(out, fps=fps)
            except SourceError as exc:
                raise UIError(str(exc)) from None
        self.path = Path(out) if out is not None else None

    def show(self, image: np.ndarray) -> None:
        if not self._sized:
            h, w = image.shape[:2]
            scale = min(1.0, 1280 / max(w, 1), 800 / max(h, 1))
            if w < 960:  # small frames are easier to read at twice the size
                scale = min(2.0, 1280 / max(w, 1), 800 / max(h, 1))
            self.cv2.resizeWindow(self.title, int(w * scale), int(h * scale))
            self._sized = True
        self.cv2.imshow(self.title, image)
        if self.writer is not None:
            self.writer.write(image)

    def keys(self, wait_s: float = 0.0) -> list[str]:
        """Pump the window for ``wait_s`` seconds (at least 1 ms); the keys pressed meanwhile."""
        out = []
        end = time.monotonic() + max(0.0, wait_s)
        while True:
            left = end - time.monotonic()
            code = self.cv2.waitKey(max(1, int(left * 1000)) if left > 0 else 1)
            if code is not None and code >= 0:
                k = _CODES.get(code & 0xFF)
                if k:
                    out.append(k)
                    break
            if time.monotonic() >= end:
                break
        try:  # the window closed with its button counts as quit
            if self.cv2.getWindowProperty(self.title, self.cv2.WND_PROP_VISIBLE) < 1:
                out.append("q")
        except self.cv2.error:  # pragma: no cover - backend without the property
            pass
        return out

    def wait(self, seconds: float) -> list[str]:
        return self.keys(seconds)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        try:
            self.cv2.destroyWindow(self.title)
            self.cv2.waitKey(1)
        except self.cv2.error:  # pragma: no cover
            pass


def default_video_path(log_path: Path) -> Path:
    """The annotated video beside the session log: same name, ``.mp4``."""
    return log_path.with_suffix(".mp4")

