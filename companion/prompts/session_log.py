"""The session log: one JSON object per line, written and flushed (and fsynced) as the game goes.

Rows, in order of writing:

* a header ``{"session": {"source", "variant", "layout", "options", "started", "version"}}``
  (``layout`` is the layout JSON the game was followed with, so a replay or a resume can use it);
* every observation row, the same shape as ``companion track --json``:
  ``{"frame", "time", "event", "verdict", "message", "next_pile", ...}``;
* ``{"frame", "undo": event, "verdict", "message", "next_pile"}`` when the player undoes a misread;
* prompt rows ``{"frame", "prompt": text, "kind", "priority"}``;
* status rows ``{"frame", "status": "...", "message": "..."}`` (paused, camera disconnected, ...);
* ``{"resume": {...}}`` each time a session is resumed (appended to the same file);
* the last row ``{"outcome": {...}}`` or ``{"outcome": "unfinished", "state": {...}}``.

A process killed in the middle of a write leaves a torn last line: :func:`read_log` ignores it (and
reports it), and :meth:`SessionLog.open_append` cuts it off before writing more.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
>>> with SessionLog.create(p, {"source": "demo:7"}) as log:
...     log.row({"frame": 3, "event": ["turn", 13], "verdict": "ok", "message": "", "next_pile": 13})
>>> _ = open(p, "a").write('{"frame": 9, "ev')  # a torn line
>>> got = read_log(p)
>>> got.header["source"], len(got.observations), got.torn
('demo:7', 1, True)
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["SessionLog", "LogContents", "LogError", "read_log", "default_log_path", "sessions_dir"]


class LogError(ValueError):
    """A session log that cannot be read or written (one-line message)."""


def sessions_dir() -> Path:
    """``$XDG_DATA_HOME/companion/sessions`` (default ``~/.local/share/companion/sessions``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "companion" / "sessions"


def default_log_path(now: _dt.datetime | None = None) -> Path:
    """A new file in :func:`sessions_dir` named by the local time (``2026-11-30_14-35-12.jsonl``)."""
    now = now or _dt.datetime.now()
    d = sessions_dir()
    stem = now.strftime("%Y-%m-%d_%H-%M-%S")
    p = d / f"{stem}.jsonl"
    k = 1
    while p.exists():
        k += 1
        p = d / f"{stem}_{k}.jsonl"
    return p


def _jsonable(x: Any) -> Any:
    if hasattr(x, "item") and callable(x.item):  # numpy scalars
        return x.item()
    if hasattr(x, "tolist"):
        return x.tolist()
    return str(x)


class SessionLog:
    """Append rows to a session log; each row is one line, flushed and fsynced before ``row`` returns."""

    def __init__(self, path: Path | str, fh: Any, fsync: bool = True) -> None:
        self.path = Path(path)
        self._fh = fh
        self.fsync = fsync
        self.rows = 0

    @classmethod
    def create(cls, path: Path | str, header: dict[str, Any], *, fsync: bool = True) -> "SessionLog":
        """A new log (an existing file is refused: resume it or choose another name) with its header."""
        p = Path(path)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            fh = open(p, "x", encoding="utf-8")
        except FileExistsError:
            raise LogError(f"session log {p} already exists: resume it with --resume {p}, or give another --log") from None
        except OSError as exc:
            raise LogError(f"cannot write session log {p}: {exc.strerror or exc}") from None
        log = cls(p, fh, fsync)
        head = {"started": _dt.datetime.now().astimezone().isoformat(timespec="seconds")}
        head.update(header)
        log.row({"session": head})
        return log

    @classmethod
    def open_append(cls, path: Path | str, *, fsync: bool = True) -> "SessionLog":
        """Open an existing log to go on writing; a torn last line is cut off first."""
        p = Path(path)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise LogError(f"cannot read session log {p}: {exc.strerror or exc}") from None
        keep = len(data) if data.endswith(b"\n") or not data else data.rfind(b"\n") + 1
        try:
            fh = open(p, "r+b")
            fh.truncate(keep)
            fh.close()
            fh = open(p, "a", encoding="utf-8")
        except OSError as exc:
            raise LogError(f"cannot write session log {p}: {exc.strerror or exc}") from None
        return cls(p, fh, fsync)

    def row(self, row: dict[str, Any]) -> None:
        line = json.dumps(row, default=_jsonable, ensure_ascii=False)
        self._fh.write(line + "\n")
        self._fh.flush()
        if self.fsync:
            try:
                os.fsync(self._fh.fileno())
            except OSError:  # pragma: no cover - a filesystem without fsync
                pass
        self.rows += 1

    def prompt(self, prompt: Any, frame: int | None = None) -> None:
        """A prompt row: ``{"frame", "prompt", "kind", "priority"}``."""
        f = frame if frame is not None else getattr(prompt, "frame", None)
        self.row({"frame": f, "prompt": prompt.text, "kind": prompt.kind, "priority": prompt.priority})

    def status(self, frame: int | None, status: str, message: str = "") -> None:
        self.row({"frame": frame, "status": status, "message": message})

    def close(self) -> None:
        if self._fh is not None and not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> "SessionLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class LogContents:
    """A log read back: ``header`` (the first session header), all ``rows`` in order (torn line left
    out), ``observations`` (rows with ``event`` or ``undo``: what rebuilds the referee), ``prompts``,
    ``outcome`` (the last outcome row's value, or None), ``torn`` (a torn last line was left out),
    ``resumes`` (the resume rows)."""

    path: Path
    header: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    torn: bool = False

    @property
    def observations(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if "event" in r or "undo" in r]

    @property
    def prompts(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if "prompt" in r]

    @property
    def resumes(self) -> list[dict[str, Any]]:
        return [r["resume"] for r in self.rows if "resume" in r]

    @property
    def outcome_row(self) -> dict[str, Any] | None:
        for r in reversed(self.rows):
            if "outcome" in r:
                return r
        return None

    @property
    def outcome(self) -> Any:
        r = self.outcome_row
        return None if r is None else r["outcome"]

    @property
    def last_frame(self) -> int | None:
        """The last frame index any row names (None when none does)."""
        for r in reversed(self.rows):
            f = r.get("frame")
            if isinstance(f, int):
                return f
        return None


def read_log(path: Path | str) -> LogContents:
    """Read a session log. A torn last line (a kill in the middle of a write) is left out; any other
    line that does not parse, or a file without a session header, raises :class:`LogError`."""
    p = Path(path)
    try:
        data = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise LogError(f"cannot read session log {p}: {exc.strerror or exc}") from None
    out = LogContents(p)
    lines = data.split("\n")
    last_index = len(lines) - 1  # after the final newline: "" when the file ends cleanly
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if i == last_index:  # no newline after it: written in part when the process died
                out.torn = True
                break
            raise LogError(f"{p}: line {i + 1} is not JSON (not a session log?)") from None
        if not isinstance(row, dict):
            raise LogError(f"{p}: line {i + 1} is not a JSON object (not a session log?)")
        if "session" in row and not out.header:
            out.header = dict(row["session"])
        out.rows.append(row)
    if not out.header:
        raise LogError(f"{p}: no session header (not a session log from `companion play`?)")
    return out
