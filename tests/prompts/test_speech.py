"""The speech worker: never blocks the caller, speaks by priority, drops stale prompts, mutes, closes."""

from __future__ import annotations

import io
import shutil
import threading
import time
import wave

import pytest

from companion.prompts import Prompt, Speaker, SpeechUnavailable, find_engine
from companion.prompts.speech import EspeakEngine, SpeechEngine


class SlowEngine:
    """A fake engine: 'says' a phrase in ``seconds`` and remembers what and when."""

    name = "fake"

    def __init__(self, seconds: float = 0.5) -> None:
        self.seconds = seconds
        self.said: list[str] = []
        self.started = threading.Event()

    def speak(self, text: str) -> None:
        self.started.set()
        time.sleep(self.seconds)
        self.said.append(text)


class BrokenEngine:
    name = "broken"

    def __init__(self) -> None:
        self.calls = 0

    def speak(self, text: str) -> None:
        self.calls += 1
        raise RuntimeError("no audio device\nsecond line")


def P(kind: str, text: str) -> Prompt:
    return Prompt.of(kind, text)


def busy_speaker(seconds: float, first: Prompt, **kw) -> tuple[SlowEngine, Speaker]:
    """A Speaker on a SlowEngine, already busy saying ``first``."""
    eng = SlowEngine(seconds)
    sp = Speaker(eng, **kw)
    sp.say(first)
    assert eng.started.wait(2.0)
    return eng, sp


def test_the_fake_engine_is_an_engine():
    assert isinstance(SlowEngine(), SpeechEngine)


def test_say_returns_at_once_while_it_speaks():
    eng = SlowEngine(0.5)
    sp = Speaker(eng)
    try:
        times = []
        for i in range(6):
            t0 = time.perf_counter()
            sp.say(P("next" if i % 2 else "status", f"phrase {i}"))
            times.append(time.perf_counter() - t0)
            if i == 0:
                assert eng.started.wait(2.0)  # the worker is busy speaking now
        assert max(times) < 0.010, times
        # a frame loop at 100 Hz keeps its pace while the engine talks
        t0 = time.perf_counter()
        for _ in range(20):
            sp.say(P("status", "tick"))
            time.sleep(0.01)
        assert time.perf_counter() - t0 < 0.5
    finally:
        t0 = time.perf_counter()
        sp.close(timeout=2.0)
        assert time.perf_counter() - t0 < 2.5


def test_priority_order():
    eng, sp = busy_speaker(0.3, P("status", "first, spoken at once"))
    sp.say(P("praise", "chatter"))
    sp.say(P("next", "routine"))
    sp.say(P("hint", "hint"))
    sp.say(P("ask", "ask"))
    assert [p.text for p in sp.pending] == ["hint", "ask", "routine", "chatter"]
    assert sp.wait_idle(10.0)
    assert eng.said == ["first, spoken at once", "hint", "ask", "routine", "chatter"]
    assert sp.spoken == eng.said
    sp.close()


def test_an_alert_cuts_stale_routine_prompts():
    eng, sp = busy_speaker(0.3, P("next", "being spoken"))
    sp.say(P("next", "Take the top card of 7 o'clock."))
    sp.say(P("praise", "Well done!"))
    sp.say(P("ask", "Show me the corner."))
    sp.say(P("alert", "That seven lives at seven o'clock."))
    assert [p.text for p in sp.pending] == ["That seven lives at seven o'clock.", "Show me the corner."]
    assert {p.text for p in sp.dropped} == {"Take the top card of 7 o'clock.", "Well done!"}
    assert sp.wait_idle(10.0)
    assert eng.said == ["being spoken", "That seven lives at seven o'clock.", "Show me the corner."]
    sp.close()


def test_a_newer_next_pile_replaces_an_older_one():
    eng, sp = busy_speaker(0.3, P("status", "busy"))
    sp.say(P("next", "7 o'clock"))
    sp.say(P("next", "3 o'clock"))
    assert [p.text for p in sp.pending] == ["3 o'clock"]
    sp.close()


def test_a_full_queue_drops_the_least_urgent_oldest():
    eng, sp = busy_speaker(0.5, P("status", "busy"), max_queue=3)
    sp.say(P("praise", "old chatter"))
    sp.say(P("praise", "new chatter"))
    sp.say(P("hint", "hint 1"))
    sp.say(P("hint", "hint 2"))  # full: the oldest chatter goes
    assert [p.text for p in sp.pending] == ["hint 1", "hint 2", "new chatter"]
    sp.say(P("status", "status"))  # as little urgent as the chatter queued: the older chatter goes
    assert [p.text for p in sp.pending] == ["hint 1", "hint 2", "status"]
    sp.say(P("alert", "alert"))  # cuts the chatter
    assert [p.text for p in sp.pending] == ["alert", "hint 1", "hint 2"]
    sp.say(P("praise", "more chatter"))  # full of more urgent prompts: the new one is dropped
    assert [p.text for p in sp.pending] == ["alert", "hint 1", "hint 2"]
    assert "more chatter" in [p.text for p in sp.dropped]
    sp.close(timeout=0.2)


def test_mute():
    eng = SlowEngine(0.05)
    sp = Speaker(eng)
    assert sp.muted is False
    assert sp.toggle_mute() is True and sp.muted
    sp.say(P("alert", "not said"))
    assert sp.wait_idle(2.0) and eng.said == []
    sp.muted = False
    sp.say(P("next", "said"))
    assert sp.wait_idle(5.0) and eng.said == ["said"]
    # muting drops what is queued
    eng.seconds = 0.3
    sp.say(P("status", "busy"))
    time.sleep(0.05)
    sp.say(P("next", "queued"))
    sp.toggle_mute()
    assert sp.pending == [] and "queued" in [p.text for p in sp.dropped]
    sp.close()


def test_close_never_hangs_on_a_slow_engine():
    eng = SlowEngine(5.0)
    sp = Speaker(eng)
    sp.say(P("next", "a very long phrase"))
    assert eng.started.wait(2.0)
    sp.say(P("next", "never said"))
    t0 = time.perf_counter()
    sp.close(timeout=0.3)
    assert time.perf_counter() - t0 < 1.0
    sp.say(P("alert", "after close"))  # ignored, no error
    assert "never said" not in sp.spoken and "after close" not in sp.spoken


def test_a_raising_engine_warns_once_then_goes_silent():
    eng = BrokenEngine()
    err = io.StringIO()
    sp = Speaker(eng, warn_stream=err)
    sp.say(P("next", "one"))
    assert sp.wait_idle(5.0)
    for i in range(5):
        sp.say(P("alert", f"more {i}"))
    assert sp.wait_idle(5.0)
    assert eng.calls == 1 and sp.failed
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: speech stopped: broken: no audio device")
    sp.close()


def test_no_engine_records_what_it_would_say():
    sp = Speaker(None)
    t0 = time.perf_counter()
    sp.say(P("next", "a"))
    sp.say(P("alert", "b"))
    assert time.perf_counter() - t0 < 0.01
    assert sp.spoken == ["a", "b"]
    sp.muted = True
    sp.say(P("next", "c"))
    assert sp.spoken == ["a", "b"]
    sp.close()


def test_find_engine_prefers_and_explains(monkeypatch):
    with pytest.raises(ValueError, match="unknown speech engine"):
        find_engine("festival")
    import companion.prompts.speech as speech

    monkeypatch.setattr(speech.shutil, "which", lambda name: None)
    monkeypatch.setitem(__import__("sys").modules, "pyttsx3", None)  # not importable
    with pytest.raises(SpeechUnavailable) as e:
        find_engine()
    msg = str(e.value)
    assert "\n" not in msg and "espeak-ng" in msg and "pyttsx3" in msg


@pytest.mark.skipif(shutil.which("espeak-ng") is None,
                    reason="espeak-ng is not installed (apt install espeak-ng)")
def test_espeak_ng_synthesises_a_wav(tmp_path):
    eng = EspeakEngine()
    path = eng.synthesise("That seven lives at seven o'clock. Can you move it?", tmp_path / "seven.wav")
    with wave.open(str(path)) as w:
        seconds = w.getnframes() / w.getframerate()
    assert 1.0 < seconds < 10.0
    assert find_engine("espeak-ng").name in ("espeak-ng", "pyttsx3")


def test_espeak_ng_without_a_sound_device_is_a_speech_error(tmp_path):
    """espeak-ng exits 0 when it finds no sound device; its stderr says so."""
    from companion.prompts.speech import SpeechError

    fake = tmp_path / "espeak-ng"
    fake.write_text("#!/bin/sh\necho \"ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default\" >&2\n"
                    "echo \"error: No such file or directory\" >&2\nexit 0\n")
    fake.chmod(0o755)
    eng = EspeakEngine(str(fake))
    with pytest.raises(SpeechError, match=r"espeak-ng failed \(exit 0\): error: No such file or directory \(no sound"):
        eng.speak("hello")
    err = io.StringIO()
    sp = Speaker(eng, warn_stream=err)
    sp.say(P("next", "hello"))
    assert sp.wait_idle(5.0) and sp.failed
    assert err.getvalue().count("\n") == 1 and "no sound device" in err.getvalue()
    sp.close()


def test_pyttsx3_comes_first_where_it_works(monkeypatch):
    """A stand-in pyttsx3 module: find_engine takes it; its driver is started on the speaking thread."""
    import sys
    import types

    said, threads = [], []

    class Driver:
        def setProperty(self, name, value):
            assert name == "rate"

        def say(self, text):
            said.append(text)

        def runAndWait(self):
            threads.append(threading.current_thread().name)

        def stop(self):
            pass

    fake = types.ModuleType("pyttsx3")
    fake.init = lambda: Driver()
    monkeypatch.setitem(sys.modules, "pyttsx3", fake)
    eng = find_engine()
    assert eng.name == "pyttsx3"
    sp = Speaker(eng)
    sp.say(P("next", "hello"))
    assert sp.wait_idle(5.0) and said == ["hello"] and threads == ["companion-speech"]
    sp.close()

    def broken():
        raise OSError("libespeak.so.1: cannot open shared object file")

    fake.init = broken  # importable but not working: the next engine
    if shutil.which("espeak-ng"):
        assert find_engine().name == "espeak-ng"
    else:
        with pytest.raises(SpeechUnavailable):
            find_engine()


class StoppableEngine(SlowEngine):
    """A fake engine whose phrase can be cut short, like espeak-ng's."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self._stop = threading.Event()
        self.cut: list[str] = []

    def speak(self, text: str) -> None:
        self._stop.clear()
        self.started.set()
        if self._stop.wait(self.seconds):
            self.cut.append(text)
        else:
            self.said.append(text)

    def stop(self) -> None:
        self._stop.set()


def test_an_alert_cuts_a_routine_phrase_short():
    eng = StoppableEngine(3.0)
    sp = Speaker(eng)
    sp.say(P("next", "a long routine phrase"))
    assert eng.started.wait(2.0)
    t0 = time.perf_counter()
    sp.say(P("alert", "That seven lives at seven o'clock."))
    assert time.perf_counter() - t0 < 0.01
    eng.seconds = 0.05
    assert sp.wait_idle(2.0) and time.perf_counter() - t0 < 1.0
    assert eng.cut == ["a long routine phrase"] and eng.said == ["That seven lives at seven o'clock."]
    assert [p.text for p in sp.interrupted] == ["a long routine phrase"]
    # an ask being spoken is not cut
    eng.seconds = 0.3
    eng.started.clear()
    sp.say(P("ask", "Show me the corner."))
    assert eng.started.wait(2.0)
    sp.say(P("alert", "Oops."))
    assert sp.wait_idle(5.0) and eng.said[-2:] == ["Show me the corner.", "Oops."]
    sp.close()


@pytest.mark.skipif(shutil.which("espeak-ng") is None,
                    reason="espeak-ng is not installed (apt install espeak-ng)")
def test_espeak_ng_can_be_cut_short(tmp_path):
    eng = EspeakEngine()
    done = threading.Event()

    def long_phrase():
        eng.synthesise("one two three four five six seven eight nine ten " * 40, tmp_path / "long.wav")
        done.set()

    t = threading.Thread(target=long_phrase)
    t0 = time.perf_counter()
    t.start()
    time.sleep(0.2)
    eng.stop()
    t.join(5.0)
    assert done.is_set() and time.perf_counter() - t0 < 5.0  # returned (cut, or already finished), no error
