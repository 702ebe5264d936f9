"""Speaking prompts without ever stalling the video loop.

Speech is slow (a phrase takes a second or two) and the frame loop must not wait for it, so a
:class:`Speaker` owns a background thread and a small priority queue: :meth:`Speaker.say` only
queues and returns at once. What is queued can go stale while an earlier phrase is spoken — the
player has already moved on — so a mistake alert drops the queued routine prompts, a newer "next
pile" prompt replaces an older one, and a full queue drops its least urgent, oldest prompt.

Engines: pyttsx3 where it is installed and starts, else the ``espeak-ng`` program. An engine that
fails while speaking (espeak-ng with no sound device, for one) gives one warning on stderr and the
speaker goes silent: speech is a help, never a reason for the app to stop.

>>> sp = Speaker(None)                       # no engine: silent, records what it would say
>>> from companion.prompts.phrases import Prompt
>>> sp.say(Prompt.of("next", "Take the top card of 7 o'clock."))
>>> sp.spoken
["Take the top card of 7 o'clock."]
>>> sp.close()
"""

from __future__ import annotations

import heapq
import itertools
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable, Protocol, TextIO, runtime_checkable

from .phrases import Prompt

__all__ = ["SpeechUnavailable", "SpeechError", "SpeechEngine", "EspeakEngine", "Pyttsx3Engine", "find_engine",
           "Speaker", "ENGINES"]

#: Engine names for ``find_engine(prefer=...)``, in the order they are tried.
ENGINES = ("pyttsx3", "espeak-ng")
_INSTALL = "install espeak-ng (apt install espeak-ng) or pip install pyttsx3"


class SpeechUnavailable(RuntimeError):
    """No speech engine can be used here; the message is one line saying what to install."""


class SpeechError(RuntimeError):
    """An engine failed to speak one phrase (no audio device, engine crashed...)."""


@runtime_checkable
class SpeechEngine(Protocol):
    """Something that says a text aloud. ``speak`` blocks until it is said (or raises).

    An engine may also have ``stop()``, which cuts the phrase being spoken short (from another
    thread); the :class:`Speaker` uses it so a mistake alert does not wait behind a routine phrase."""

    name: str

    def speak(self, text: str) -> None: ...


class EspeakEngine:
    """The ``espeak-ng`` program, one process per phrase (no library binding needed).

    ``rate`` is words per minute (espeak-ng's default is 175; slower is easier for a child)."""

    name = "espeak-ng"

    def __init__(self, exe: str | None = None, *, voice: str = "en", rate: int = 165, timeout: float = 30.0) -> None:
        found = exe or shutil.which("espeak-ng")
        if not found:
            raise SpeechUnavailable(f"no speech engine: {_INSTALL}")
        self.exe = found
        self.voice = voice
        self.rate = int(rate)
        self.timeout = timeout
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._stopped = False

    def _run(self, args: list[str]) -> None:
        try:
            proc = subprocess.Popen([self.exe, "-v", self.voice, "-s", str(self.rate), *args],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        except OSError as exc:
            raise SpeechError(f"espeak-ng failed: {exc}") from None
        with self._lock:
            self._proc, self._stopped = proc, False
        try:
            _, stderr = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise SpeechError(f"espeak-ng failed: no end after {self.timeout:g} s") from None
        finally:
            with self._lock:
                self._proc = None
                stopped, self._stopped = self._stopped, False
        if stopped:  # cut short on purpose (an alert came): not a failure
            return
        err = [ln.strip() for ln in (stderr or "").splitlines() if ln.strip()]
        errors = [ln for ln in err if ln.lower().startswith("error")]
        if proc.returncode != 0 or errors:
            # with no sound device espeak-ng still exits 0, after ALSA's complaints and an "error:" line
            why = (errors or err or ["no message"])[0]
            if any("ALSA" in ln or "PCM" in ln for ln in err):
                why += " (no sound device?)"
            raise SpeechError(f"espeak-ng failed (exit {proc.returncode}): {why}")

    def stop(self) -> None:
        """Cut the phrase being spoken short (the :class:`Speaker` does, for a mistake alert)."""
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                self._stopped = True
                self._proc.terminate()

    def speak(self, text: str) -> None:
        self._run(["--", text])

    def synthesise(self, text: str, path: str | Path) -> Path:
        """Write the spoken ``text`` to a WAV file instead of the sound device (tests, recordings)."""
        out = Path(path)
        self._run(["-w", str(out), "--", text])
        return out


class Pyttsx3Engine:
    """pyttsx3 (which drives the platform's own voices: SAPI5, NSSpeechSynthesizer, libespeak).

    pyttsx3 objects belong to the thread that created them, so the driver is started lazily by the
    first :meth:`speak`, which the :class:`Speaker` calls on its own worker thread."""

    name = "pyttsx3"

    def __init__(self, *, rate: int = 165) -> None:
        try:
            import importlib

            importlib.import_module("pyttsx3")
        except ImportError:
            raise SpeechUnavailable(f"no speech engine: {_INSTALL}") from None
        self.rate = rate
        self._engine = None

    def check(self) -> None:
        """Start a driver once to see that it works (raises :class:`SpeechUnavailable` if not)."""
        import pyttsx3

        try:
            eng = pyttsx3.init()
            eng.stop()
        except Exception as exc:  # pyttsx3 raises anything from its drivers
            raise SpeechUnavailable(f"pyttsx3 does not start here ({type(exc).__name__}: {exc}); {_INSTALL}") from None

    def speak(self, text: str) -> None:
        import pyttsx3

        try:
            if self._engine is None:
                self._engine = pyttsx3.init()
                self._engine.setProperty("rate", self.rate)
            self._engine.say(text)
            self._engine.runAndWait()
        except Exception as exc:
            raise SpeechError(f"pyttsx3 failed: {type(exc).__name__}: {exc}") from None


def find_engine(prefer: str | None = None, *, rate: int = 165) -> SpeechEngine:
    """The first engine that works here: ``prefer`` first if given, then pyttsx3, then espeak-ng.

    Raises :class:`SpeechUnavailable` (one line, naming what to install) when there is none, and
    ``ValueError`` for an unknown ``prefer``."""
    if prefer is not None and prefer not in ENGINES:
        raise ValueError(f"unknown speech engine {prefer!r} (one of {', '.join(ENGINES)})")
    order = [prefer] if prefer else []
    order += [e for e in ENGINES if e not in order]
    reasons = []
    for name in order:
        try:
            if name == "pyttsx3":
                eng = Pyttsx3Engine(rate=rate)
                eng.check()
                return eng
            return EspeakEngine(rate=rate)
        except SpeechUnavailable as exc:
            reasons.append(str(exc))
    raise SpeechUnavailable(f"no speech engine: {_INSTALL}")


class Speaker:
    """Speaks prompts on a background thread; say() never blocks the caller (the video loop).

    ``engine`` None: silent, but :attr:`spoken` still records what would have been said (the
    transcript of a run without a sound device). Queue rules, applied in :meth:`say`:

    * the most urgent prompt (lowest ``priority``) is spoken first, in order of arrival within one
      priority;
    * an alert (priority 0) drops every queued routine and chatter prompt (priority >= 2): they are
      stale once a mistake needs attention; a routine phrase being spoken is cut short too, where the
      engine has ``stop()`` (espeak-ng has);
    * a ``next`` prompt replaces a queued ``next`` prompt (only the latest next pile matters);
    * a full queue (``max_queue``) drops its least urgent, oldest prompt, or the new one if that is
      less urgent than everything queued.

    An engine that raises is reported once on ``warn_stream`` and never called again."""

    def __init__(self, engine: SpeechEngine | None, *, max_queue: int = 8, warn_stream: TextIO | None = None,
                 on_spoken: Callable[[Prompt], None] | None = None) -> None:
        if max_queue < 1:
            raise ValueError("max_queue must be at least 1")
        self.engine = engine
        self.max_queue = max_queue
        self.spoken: list[str] = []
        self.dropped: list[Prompt] = []
        self.warning: str | None = None
        self._warn_stream = warn_stream
        self._on_spoken = on_spoken
        self._muted = False
        self._closed = False
        self._heap: list[tuple[int, int, Prompt]] = []
        self._seq = itertools.count()
        self._cv = threading.Condition()
        self._busy = False
        self._current: Prompt | None = None
        self.interrupted: list[Prompt] = []
        self._thread: threading.Thread | None = None
        if engine is not None:
            self._thread = threading.Thread(target=self._run, name="companion-speech", daemon=True)
            self._thread.start()

    # -- control ------------------------------------------------------------------------------
    @property
    def muted(self) -> bool:
        return self._muted

    @muted.setter
    def muted(self, value: bool) -> None:
        with self._cv:
            self._muted = bool(value)
            if self._muted:  # what was queued would be stale by the time speech comes back
                self.dropped.extend(p for _, _, p in sorted(self._heap))
                self._heap.clear()

    def toggle_mute(self) -> bool:
        """Mute or unmute; returns the new :attr:`muted`."""
        self.muted = not self._muted
        return self._muted

    @property
    def failed(self) -> bool:
        """The engine raised once, so the speaker went silent (:attr:`warning` says why)."""
        return self.warning is not None

    @property
    def pending(self) -> list[Prompt]:
        """The queued prompts, in the order they would be spoken."""
        with self._cv:
            return [p for _, _, p in sorted(self._heap)]

    def say(self, prompt: Prompt) -> None:
        """Queue ``prompt`` and return at once."""
        with self._cv:
            if self._closed or self._muted or self.failed:
                self.dropped.append(prompt)
                return
            if self.engine is None:
                self.spoken.append(prompt.text)
                return
            if prompt.priority <= 0:
                self._drop(lambda p: p.priority >= 2)
                cur = self._current
                stop = getattr(self.engine, "stop", None)
                if cur is not None and cur.priority >= 2 and callable(stop):
                    self.interrupted.append(cur)
                    try:
                        stop()  # the routine phrase being said is stale too
                    except Exception:  # stopping is a courtesy; speaking on is fine
                        pass
            elif prompt.kind == "next":
                self._drop(lambda p: p.kind == "next")
            if len(self._heap) >= self.max_queue:
                worst = max(self._heap, key=lambda e: (e[0], -e[1]))
                if prompt.priority > worst[0]:
                    self.dropped.append(prompt)
                    return
                self._heap.remove(worst)
                heapq.heapify(self._heap)
                self.dropped.append(worst[2])
            heapq.heappush(self._heap, (prompt.priority, next(self._seq), prompt))
            self._cv.notify()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued has been spoken (tests, the end of a headless run)."""
        with self._cv:
            return self._cv.wait_for(lambda: not self._heap and not self._busy, timeout)

    def close(self, timeout: float = 2.0) -> None:
        """Stop the worker; queued prompts are dropped. Never waits longer than ``timeout`` (a phrase
        being spoken is left to finish on the daemon thread)."""
        with self._cv:
            self._closed = True
            self.dropped.extend(p for _, _, p in sorted(self._heap))
            self._heap.clear()
            self._cv.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __enter__(self) -> "Speaker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- worker -------------------------------------------------------------------------------
    def _drop(self, stale: Callable[[Prompt], bool]) -> None:
        keep = [e for e in self._heap if not stale(e[2])]
        if len(keep) != len(self._heap):
            self.dropped.extend(e[2] for e in sorted(self._heap) if stale(e[2]))
            self._heap[:] = keep
            heapq.heapify(self._heap)

    def _run(self) -> None:
        assert self.engine is not None
        while True:
            with self._cv:
                self._busy = False
                self._current = None
                self._cv.notify_all()
                self._cv.wait_for(lambda: self._heap or self._closed)
                if self._closed:
                    return
                _, _, prompt = heapq.heappop(self._heap)
                self._busy = True
                self._current = prompt
                self.spoken.append(prompt.text)
            try:
                self.engine.speak(prompt.text)
            except Exception as exc:  # any engine fault: warn once, then stay silent
                with self._cv:
                    self._current = None
                    name = str(getattr(self.engine, "name", "engine"))
                    why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                    self.warning = f"speech stopped: {why if why.startswith(name) else name + ': ' + why}"
                    self.dropped.extend(p for _, _, p in sorted(self._heap))
                    self._heap.clear()
                    self._busy = False
                    self._cv.notify_all()
                stream = self._warn_stream if self._warn_stream is not None else sys.stderr
                try:
                    print(f"warning: {self.warning}", file=stream, flush=True)
                except (OSError, ValueError):
                    pass
                return
            if self._on_spoken is not None:
                try:
                    self._on_spoken(prompt)
                except Exception:  # a logging callback must not kill speech
                    pass
