"""Frame sources: one interface, with timestamps, for cameras, videos, image folders, streams and demos.

``for frame in source:`` yields :class:`Frame` (``index``, ``time_s``, ``image`` BGR uint8). Every
source is a context manager that releases the device or file on close. Frames that fail to decode
are skipped and counted in ``source.skipped``.

:func:`open_source` picks the kind from a spec:

* a camera index (``0`` or ``"0"``): a live camera; one that cannot be opened raises a
  :class:`SourceError` that names the cameras found. A camera that stops delivering frames is
  *reported*: ``source.state`` becomes ``"disconnected"``, ``on_status`` is called, and the source
  reopens it with backoff; if it does not come back within ``reconnect_timeout`` seconds,
  :class:`SourceDisconnected` is raised (the loop never ends silently).
* ``demo`` or ``demo:SEED``: a whole game rendered by the simulator (:mod:`companion.synth.record`),
  generated frame by frame (nothing written to disk).
* a URL (``rtsp://...``, ``http://...``): whatever ``cv2.VideoCapture`` opens, live like a camera.
* a folder: its images in natural order (``frame2`` before ``frame10``), ``time_s = i / fps``.
* an image file: one frame; a video file: its frames, ``time_s = i / fps`` of the video. A video
  simply ends at its end.

>>> import numpy as np
>>> src = ArraySource([np.zeros((4, 6, 3), np.uint8)] * 3, fps=10)
>>> [(f.index, f.time_s) for f in src]
[(0, 0.0), (1, 0.1), (2, 0.2)]
"""

from __future__ import annotations

import math
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import cv2
import numpy as np

__all__ = [
    "Frame", "FrameSource", "SourceError", "SourceDisconnected", "ArraySource", "ImageFilesSource",
    "CaptureSource", "DemoSource", "VideoWriter", "open_source", "list_cameras", "IMAGE_SUFFIXES",
    "VIDEO_SUFFIXES", "parse_demo_spec", "CAMERA_SIZE",
]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".m4v", ".webm", ".mpg", ".mpeg", ".wmv", ".ogv")
SOURCE_HELP = "a camera index like 0, a video file, a folder of images, an image, a stream URL, or demo[:SEED]"


class SourceError(Exception):
    """A source that cannot be opened or read (one-line message)."""


class SourceDisconnected(SourceError):
    """A live source that stopped delivering frames and did not come back."""


@dataclass(frozen=True)
class Frame:
    """One frame: its position in the source, its time in seconds from the start, the BGR image."""

    index: int
    time_s: float
    image: np.ndarray

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)."""
        return int(self.image.shape[1]), int(self.image.shape[0])


def _quiet_opencv() -> None:
    """OpenCV's capture backends log an error for every probe that fails (we report our own): keep
    stderr readable. FFmpeg's own messages too (set ``OPENCV_FFMPEG_LOGLEVEL`` to see them)."""
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    try:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - not in every build
        pass


def _as_bgr(img: Any) -> np.ndarray | None:
    """A decoded image as 3-channel uint8 BGR, or None when it is not a usable image."""
    if img is None or not isinstance(img, np.ndarray) or img.size == 0 or img.ndim not in (2, 3):
        return None
    if img.dtype != np.uint8:
        if img.dtype == np.uint16:
            img = (img >> 8).astype(np.uint8)
        else:
            return None
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    if img.shape[2] == 1:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return img if img.shape[2] == 3 else None


class FrameSource:
    """Base of every source: iterate for frames; ``skipped``, ``state``, ``fps``, ``name``, ``live``.

    ``state`` is ``"open"``, ``"disconnected"`` (a live source waiting to come back), ``"ended"`` or
    ``"closed"``."""

    name: str = "source"
    live: bool = False
    #: A line to show the player when the source gives smaller frames than asked for (else None).
    size_warning: str | None = None

    def __init__(self, fps: float | None = None) -> None:
        self.fps = fps
        self.skipped = 0
        self.state = "open"

    def __iter__(self) -> Iterator[Frame]:  # pragma: no cover - abstract
        raise NotImplementedError

    def read(self) -> Frame | None:
        """The next frame, or None at the end (a convenience over iterating)."""
        it = getattr(self, "_it", None)
        if it is None:
            it = self._it = iter(self)
        return next(it, None)

    def close(self) -> None:
        self.state = "closed"

    def __enter__(self) -> "FrameSource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} state={self.state} skipped={self.skipped}>"


class ArraySource(FrameSource):
    """Frames from images already in memory (tests, tools); ``None`` entries count as skipped."""

    def __init__(self, images: Iterable[np.ndarray | None], fps: float = 30.0, name: str = "images") -> None:
        super().__init__(fps)
        self.images = images
        self.name = name

    def __iter__(self) -> Iterator[Frame]:
        fps = self.fps or 30.0
        for i, img in enumerate(self.images):
            if self.state == "closed":
                return
            bgr = _as_bgr(img)
            if bgr is None:
                self.skipped += 1
                continue
            yield Frame(i, i / fps, bgr)
        self.state = "ended" if self.state != "closed" else self.state


def _natural_key(path: Path) -> list[Any]:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


class ImageFilesSource(FrameSource):
    """Image files in the given order (a folder: its images in natural order); ``time_s = i / fps``.

    A file that does not decode is skipped and counted; its index is left out (indices are
    positions in the list, so times keep their spacing)."""

    def __init__(self, paths: Sequence[Path | str], fps: float = 30.0, name: str | None = None) -> None:
        super().__init__(fps)
        self.paths = [Path(p) for p in paths]
        self.name = name or (str(self.paths[0]) if len(self.paths) == 1 else f"{len(self.paths)} images")

    @classmethod
    def from_folder(cls, folder: Path | str, fps: float = 30.0) -> "ImageFilesSource":
        folder = Path(folder)
        try:
            files = [p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]
        except OSError as exc:
            raise SourceError(f"cannot read folder {folder}: {exc.strerror}") from None
        if not files:
            raise SourceError(f"folder {folder} has no images ({', '.join(IMAGE_SUFFIXES[:4])}, ...)")
        return cls(sorted(files, key=_natural_key), fps=fps, name=str(folder))

    def __len__(self) -> int:
        return len(self.paths)

    def __iter__(self) -> Iterator[Frame]:
        fps = self.fps or 30.0
        for i, path in enumerate(self.paths):
            if self.state == "closed":
                return
            img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
            bgr = _as_bgr(img)
            if bgr is None:
                self.skipped += 1
                continue
            yield Frame(i, i / fps, bgr)
        if self.state != "closed":
            self.state = "ended"


def list_cameras(max_index: int = 10, opener: Callable[[int], Any] | None = None) -> list[int]:
    """Indices 0..max_index-1 of the cameras that open (on Linux only those with a /dev/videoN)."""
    _quiet_opencv()
    linux = opener is None and sys.platform.startswith("linux") and os.path.isdir("/dev")
    opener = opener or (lambda i: cv2.VideoCapture(i))
    found = []
    for i in range(max_index):
        if linux and not os.path.exists(f"/dev/video{i}"):
            continue
        cap = opener(i)
        try:
            if cap is not None and cap.isOpened():
                found.append(i)
        finally:
            if cap is not None:
                cap.release()
    return found


#: The frame size a camera is asked for unless another is given: a webcam's own default is often
#: 640x480, where the cards of a clock layout come out 40-50 px tall, too small to read. At 1920x1080
#: a clock filling the frame's height has cards about 120 px tall; at 1280x720 about 80 px, where the
#: models read far fewer (rendered games followed with the models: README, `companion track`).
CAMERA_SIZE = (1920, 1080)


class CaptureSource(FrameSource):
    """Frames from ``cv2.VideoCapture``: a camera, a stream URL or a video file.

    Live sources (cameras, streams) reconnect with backoff when frames stop; ``on_status(state,
    message)`` hears every change of state. ``capture_factory`` (tests) replaces ``cv2.VideoCapture``.
    """

    def __init__(self, target: int | str, *, live: bool | None = None, fps: float | None = None,
                 width: int | None = None, height: int | None = None,
                 reconnect_timeout: float = 30.0, backoff: tuple[float, float] = (0.25, 4.0),
                 max_bad_frames: int = 25, on_status: Callable[[str, str], None] | None = None,
                 capture_factory: Callable[[int | str], Any] | None = None,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(fps)
        self.target = target
        self.is_camera = isinstance(target, int)
        self.live = self.is_camera or _is_url(str(target)) if live is None else live
        self.name = f"camera {target}" if self.is_camera else str(target)
        if self.is_camera and width is None and height is None:
            width, height = CAMERA_SIZE
        self.width, self.height = width, height
        self.reconnect_timeout = reconnect_timeout
        self.backoff = backoff
        self.max_bad_frames = max_bad_frames
        self.on_status = on_status
        self.disconnects = 0
        self._custom_factory = capture_factory is not None
        self._factory = capture_factory or (lambda t: cv2.VideoCapture(t))
        self._pending: np.ndarray | None = None
        self._sleep, self._clock = sleep, clock
        self._t0: float | None = None
        _quiet_opencv()
        self.cap = self._open()
        if self.cap is None:
            raise SourceError(self._open_error())
        if not self.live:
            vfps = float(self.cap.get(cv2.CAP_PROP_FPS) or 0.0)
            if self.fps is None:
                self.fps = vfps if 1.0 <= vfps <= 1000.0 else 30.0
            n = float(self.cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0.0)
            self.frame_count = int(n) if n > 0 and math.isfinite(n) else None
        else:
            self.frame_count = None

    # -- opening -------------------------------------------------------------------------------
    def _open(self) -> Any:
        cap = self._factory(self.target)
        if cap is None or not cap.isOpened():
            if cap is not None:
                cap.release()
            return None
        if self.is_camera:
            if self.width and self.width * (self.height or 0) > 1280 * 720:
                # uncompressed 1080p over USB 2 comes at a few frames a second; MJPG at the full rate
                # (a camera or backend without it keeps its own format)
                cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
            if self.width:
                cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            if self.height:
                cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
            if self.fps:
                cap.set(cv2.CAP_PROP_FPS, self.fps)
            got = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0))
            if self.width and self.height and 0 < got[0] * got[1] < self.width * self.height:
                self.size_warning = (f"{self.name} gives {got[0]}x{got[1]} frames, not the {self.width}x{self.height} "
                                     f"asked for: cards may come out too small to read (aim for 90 px or more)")
        return cap

    def _open_error(self) -> str:
        if self.is_camera:
            found = [i for i in list_cameras(opener=self._factory if self._custom_factory else None)
                     if i != self.target]
            if found:
                names = ", ".join(str(i) for i in found)
                return f"cannot open camera {self.target}; cameras found: {names} (use one of those, e.g. `{found[0]}`)"
            return (f"cannot open camera {self.target}; no cameras found (checked 0..9): connect a webcam "
                    f"or give a video file, a folder of images or demo")
        if self.live:
            return f"cannot open stream {self.target}: check the URL and that the stream is running"
        return f"cannot open {self.target}: not a video OpenCV can read"

    def _status(self, state: str, message: str) -> None:
        self.state = state
        if self.on_status is not None:
            self.on_status(state, message)

    # -- reading -------------------------------------------------------------------------------
    def _time(self, index: int) -> float:
        if not self.live:
            fps = self.fps or 30.0
            return index / fps
        now = self._clock()
        if self._t0 is None:
            self._t0 = now
        return now - self._t0

    def __iter__(self) -> Iterator[Frame]:
        if self.live:
            yield from self._iter_live()
        else:
            yield from self._iter_file()

    def _iter_file(self) -> Iterator[Frame]:
        pos = 0
        bad = 0
        while self.state not in ("closed",) and self.cap is not None:
            ok, img = self.cap.read()
            bgr = _as_bgr(img) if ok else None
            if bgr is not None:
                bad = 0
                yield Frame(pos, self._time(pos), bgr)
                pos += 1
                continue
            # a frame that did not decode, or the end of the video
            at_end = not ok and (self.frame_count is None or pos >= self.frame_count)
            if at_end:
                break
            self.skipped += 1
            pos += 1
            bad += 1
            if bad > self.max_bad_frames:  # a truncated file: its header promised more frames
                break
        if self.state != "closed":
            self.state = "ended"

    def _iter_live(self) -> Iterator[Frame]:
        index = 0
        fails = 0
        while self.state != "closed":
            ok, img = self.cap.read() if self.cap is not None else (False, None)
            bgr = _as_bgr(img) if ok else None
            if bgr is not None:
                fails = 0
                yield Frame(index, self._time(index), bgr)
                index += 1
                continue
            if ok:  # delivered but unusable
                self.skipped += 1
            fails += 1
            if fails < 3:  # a hiccup: try again at once
                self._sleep(0.01)
                continue
            self._reconnect()
            fails = 0
            pending, self._pending = self._pending, None
            bgr = _as_bgr(pending)
            if bgr is not None:
                yield Frame(index, self._time(index), bgr)
                index += 1

    def _reconnect(self) -> None:
        """Reopen the device with growing waits; raise SourceDisconnected after ``reconnect_timeout``."""
        self.disconnects += 1
        self._status("disconnected", f"{self.name} stopped delivering frames; reconnecting")
        if self.cap is not None:
            self.cap.release()
            self.cap = None
        start = self._clock()
        wait, cap_wait = self.backoff
        attempt = 0
        while self.state != "closed":
            attempt += 1
            cap = self._open()
            if cap is not None:
                ok, img = cap.read()
                if ok and _as_bgr(img) is not None:
                    self.cap = cap
                    self._pending = img
                    self._status("open", f"{self.name} is back after {attempt} attempt(s)")
                    return
                cap.release()
            elapsed = self._clock() - start
            if elapsed >= self.reconnect_timeout:
                self._status("ended", f"{self.name} did not come back")
                raise SourceDisconnected(
                    f"{self.name} stopped delivering frames and did not come back within "
                    f"{self.reconnect_timeout:g} s: check the cable or that no other program uses it")
            self._sleep(min(wait, max(0.0, self.reconnect_timeout - elapsed)))
            wait = min(wait * 2, cap_wait)

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None
        super().close()


def _is_url(spec: str) -> bool:
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", spec))


def parse_demo_spec(spec: str) -> int | None:
    """The seed of ``demo`` (1) or ``demo:SEED``; None when ``spec`` is not a demo spec.

    >>> parse_demo_spec("demo"), parse_demo_spec("demo:42"), parse_demo_spec("video.mp4")
    (1, 42, None)
    """
    m = re.fullmatch(r"demo(?::(-?\d+))?", spec.strip().lower())
    if not m:
        return None
    return int(m.group(1)) if m.group(1) is not None else 1


class DemoSource(FrameSource):
    """A game rendered by the simulator, frame by frame (``companion.synth.record``); the game is
    planned on first use. ``truth`` is the recording's ground truth, as in ``truth.json``."""

    def __init__(self, seed: int = 1, *, resolution: tuple[int, int] = (1280, 720), fps: int = 30,
                 deck: str = "builtin", variant: str = "standard", mistakes: int = 0, tilt: float | None = None,
                 max_moves: int | None = None) -> None:
        super().__init__(float(fps))
        try:
            from ..synth import record
        except ImportError as exc:  # pragma: no cover - the simulator is part of the package
            raise SourceError(f"the demo needs the simulator (companion.synth): {exc}") from None
        self._record = record
        self.seed = seed
        self.name = f"demo:{seed}"
        self.deck = deck
        self._kw = dict(deck=deck, variant=variant, mistakes=mistakes, resolution=resolution, fps=fps, tilt=tilt,
                        max_moves=max_moves)
        self._built: tuple[Any, Any] | None = None
        self._truth: dict[str, Any] | None = None

    def _build(self) -> tuple[Any, Any]:
        """Plan and choreograph the game (a second or two), on first use."""
        if self._built is None:
            try:
                self._built = self._record.build(self.seed, **self._kw)
            except (self._record.RenderError, ValueError) as exc:
                raise SourceError(f"cannot render demo game {self.seed}: {exc}") from None
        return self._built

    @property
    def scene(self) -> Any:
        return self._build()[0]

    @property
    def director(self) -> Any:
        return self._build()[1]

    def __len__(self) -> int:
        return len(self.director.frames)

    @property
    def truth(self) -> dict[str, Any]:
        """The recording's ground truth, as in ``truth.json`` (pile regions per frame, events...)."""
        if self._truth is None:
            self._truth = self._record.truth_of(self.scene, self.director, fps=int(self.fps or 30), deck=self.deck)
        return self._truth

    def __iter__(self) -> Iterator[Frame]:
        fps = self.fps or 30.0
        gen = self._record.render_frames(self.scene, self.director.frames, self.seed)
        try:
            for i, img in enumerate(gen):
                if self.state == "closed":
                    return
                yield Frame(i, i / fps, img)
        finally:
            gen.close()
        if self.state != "closed":
            self.state = "ended"


def open_source(spec: int | str | Path, *, fps: float | None = None, width: int | None = None,
                height: int | None = None, on_status: Callable[[str, str], None] | None = None,
                reconnect_timeout: float = 30.0) -> FrameSource:
    """Open a source from its spec (see the module doc); raises :class:`SourceError` with one line.

    ``fps``: the frame rate of an image folder (default 30); for a camera, the rate to ask for."""
    if isinstance(spec, bool):
        raise SourceError(f"not a source: {spec!r} ({SOURCE_HELP})")
    if isinstance(spec, int):
        return CaptureSource(spec, fps=fps, width=width, height=height, on_status=on_status,
                             reconnect_timeout=reconnect_timeout)
    text = str(spec).strip()
    if not text:
        raise SourceError(f"empty source: give {SOURCE_HELP}")
    if re.fullmatch(r"\d{1,3}", text) and not Path(text).exists():
        return CaptureSource(int(text), fps=fps, width=width, height=height, on_status=on_status,
                             reconnect_timeout=reconnect_timeout)
    seed = parse_demo_spec(text)
    if seed is not None and not Path(text).exists():
        kw: dict[str, Any] = {}
        if width and height:
            kw["resolution"] = (width, height)
        if fps:
            kw["fps"] = int(round(fps))
        return DemoSource(seed, **kw)
    if _is_url(text) and not text.lower().startswith("file://"):
        return CaptureSource(text, live=True, on_status=on_status, reconnect_timeout=reconnect_timeout)
    path = Path(text[7:] if text.lower().startswith("file://") else text).expanduser()
    if path.is_dir():
        return ImageFilesSource.from_folder(path, fps=fps or 30.0)
    if not path.exists():
        raise SourceError(f"no such file or folder: {path} (a source is {SOURCE_HELP})")
    if path.suffix.lower() in IMAGE_SUFFIXES:
        src = ImageFilesSource([path], fps=fps or 30.0)
        if cv2.imread(str(path), cv2.IMREAD_UNCHANGED) is None:
            raise SourceError(f"cannot read {path}: not an image OpenCV can read")
        return src
    return CaptureSource(str(path), live=False, fps=fps)


class VideoWriter:
    """Write frames to a video: ``.mp4`` (mp4v) or ``.avi`` (MJPG). Opened on the first frame; frames
    of another size are resized to the first one's. A context manager."""

    FOURCC = {".mp4": "mp4v", ".m4v": "mp4v", ".mov": "mp4v", ".avi": "MJPG"}

    def __init__(self, path: Path | str, fps: float = 30.0, size: tuple[int, int] | None = None) -> None:
        self.path = Path(path)
        suffix = self.path.suffix.lower()
        if suffix not in self.FOURCC:
            raise SourceError(f"cannot write {self.path}: use a .mp4 or .avi name")
        if not fps or fps <= 0:
            raise SourceError(f"cannot write {self.path}: fps must be positive, got {fps}")
        self.fps = float(fps)
        self.fourcc = self.FOURCC[suffix]
        self.size = size
        self.frames = 0
        self._w: Any = None
        if size is not None:
            self._open(size)

    def _open(self, size: tuple[int, int]) -> None:
        if self.path.parent and not self.path.parent.exists():
            raise SourceError(f"cannot write {self.path}: folder {self.path.parent} does not exist")
        w = cv2.VideoWriter(str(self.path), cv2.VideoWriter_fourcc(*self.fourcc), self.fps, size)
        if not w.isOpened():
            raise SourceError(f"cannot write {self.path} (OpenCV {self.fourcc} writer did not open)")
        self._w, self.size = w, size

    def write(self, image: np.ndarray) -> None:
        bgr = _as_bgr(image)
        if bgr is None:
            raise ValueError("VideoWriter.write needs a uint8 image")
        h, w = bgr.shape[:2]
        if self._w is None:
            self._open((w + w % 2, h + h % 2) if self.size is None else self.size)
        assert self.size is not None
        if (w, h) != self.size:
            bgr = cv2.resize(bgr, self.size, interpolation=cv2.INTER_AREA)
        self._w.write(bgr)
        self.frames += 1

    def close(self) -> None:
        if self._w is not None:
            self._w.release()
            self._w = None

    def __enter__(self) -> "VideoWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
