"""A small dependency-free progress bar on stderr, for long work (rendering, simulating, training).

It draws only when stderr is a terminal (or ``force=True``) so logs and JSON output stay clean;
``COMPANION_PROGRESS=1`` forces it on, ``=0`` off.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Iterable, Iterator, TextIO, TypeVar

T = TypeVar("T")

__all__ = ["progress", "Progress"]


def _enabled(stream: TextIO, force: bool | None) -> bool:
    env = os.environ.get("COMPANION_PROGRESS")
    if force is not None:
        return force
    if env is not None:
        return env not in ("", "0", "false", "no")
    return hasattr(stream, "isatty") and stream.isatty()


class Progress:
    """A manual progress bar: ``with Progress(total, "render") as bar: bar.update(1)``."""

    def __init__(self, total: int | None, desc: str = "", *, stream: TextIO | None = None,
                 force: bool | None = None, width: int = 30, min_interval: float = 0.1) -> None:
        self.total = total
        self.desc = desc
        self.stream = stream or sys.stderr
        self.enabled = _enabled(self.stream, force)
        self.width = width
        self.min_interval = min_interval
        self.count = 0
        self.start = time.perf_counter()
        self._last = 0.0

    def update(self, n: int = 1) -> None:
        self.count += n
        now = time.perf_counter()
        if self.enabled and (now - self._last >= self.min_interval or (self.total and self.count >= self.total)):
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = now - self.start
        rate = self.count / elapsed if elapsed > 0 else 0.0
        if self.total:
            frac = min(1.0, self.count / self.total)
            filled = int(frac * self.width)
            bar = "#" * filled + "-" * (self.width - filled)
            eta = (self.total - self.count) / rate if rate > 0 else 0.0
            text = f"\r{self.desc} [{bar}] {self.count}/{self.total} {elapsed:5.1f}s eta {eta:5.1f}s"
        else:
            text = f"\r{self.desc} {self.count} {elapsed:5.1f}s ({rate:.1f}/s)"
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress(iterable: Iterable[T], total: int | None = None, desc: str = "", **kw: object) -> Iterator[T]:
    """Wrap an iterable with a progress bar on stderr."""
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    bar = Progress(total, desc, **kw)  # type: ignore[arg-type]
    try:
        for item in iterable:
            yield item
            bar.update(1)
    finally:
        bar.close()
