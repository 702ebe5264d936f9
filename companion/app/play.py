"""`companion play` without the command line: open the source, the recogniser, the speech, the log and
the window (or the annotated video), then run a :class:`~companion.app.session.PlaySession`.

Every input error is an :class:`AppError` with one line (the CLI prints it and exits 2); the session
log is only created (or appended to) once the inputs are known to be good, so a bad input never
touches it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TextIO

from ..prompts.session_log import LogError, SessionLog, default_log_path, read_log
from ..prompts.speech import Speaker, SpeechUnavailable, find_engine
from ..track import is_rendered_game
from ..vision.layout import Layout, LayoutError
from ..vision.sources import CaptureSource, DemoSource, SourceError, open_source
from .session import PlayConfig, PlayResult, PlaySession, Resume
from .ui import NoWindow, UIError, VideoUI, WindowUI, has_display, parse_keys

__all__ = ["PlayOptions", "AppError", "run_play", "ORACLE_NOTICE", "DEMO_SEED", "DEMO_MISTAKES"]

#: Said and shown whenever the cards are read by the oracle stand-in (rendered games only).
ORACLE_NOTICE = "reading cards from the renderer's truth (oracle), not the camera models"
DEMO_NOTICE = "demo: cards and piles read from the renderer's truth (oracle), not the camera models"
DEMO_SEED = 12  # 1550 frames at 30 fps (52 s of video): 24 cards, lost, all three mistakes
DEMO_MISTAKES = 3
DEMO_RESOLUTION = (640, 360)


class AppError(Exception):
    """Bad input or a fault the player must fix (one line; the CLI exits 2)."""


@dataclass
class PlayOptions:
    camera: int | None = None
    video: str | None = None
    demo: int | None = None  # a seed
    layout: str = "auto"
    layout_given: bool = True  # False: --layout left at its default (a demo then uses the renderer's)
    variant: str | None = None  # None: standard (or the resumed log's)
    voice: bool | None = None  # None: on with a window, off headless
    child: bool | None = None
    lang: str | None = None
    log: Path | None = None
    resume: Path | None = None
    out: Path | None = None
    recogniser: str = "auto"
    models: Path | None = None
    headless: bool = False
    keys: str | None = None
    hold_s: float | None = None
    realtime: bool | None = None
    demo_mistakes: int = DEMO_MISTAKES
    demo_resolution: tuple[int, int] = DEMO_RESOLUTION
    demo_max_moves: int | None = None  # a demo cut short (tests)
    reconnect_timeout: float = 120.0
    twelve_at: str = "top"
    extra: dict[str, Any] = field(default_factory=dict)


def _source_spec(o: PlayOptions) -> dict[str, Any]:
    given = [k for k, v in (("camera", o.camera), ("video", o.video), ("demo", o.demo)) if v is not None]
    if len(given) > 1:
        raise AppError(f"give one source, not {' and '.join('--' + g for g in given)}")
    if not given:
        raise AppError("give a source: --camera N, --video PATH or --demo [SEED] (or --resume LOG)")
    if o.camera is not None:
        return {"kind": "camera", "camera": int(o.camera)}
    if o.video is not None:
        return {"kind": "video", "video": str(Path(o.video).expanduser().resolve())}
    return {"kind": "demo", "demo": int(o.demo), "mistakes": int(o.demo_mistakes),  # type: ignore[arg-type]
            "resolution": list(o.demo_resolution), "max_moves": o.demo_max_moves}


def _open(spec: dict[str, Any], variant: str, o: PlayOptions, on_status: Callable[[str, str], None],
          sleep: Callable[[float], None]) -> Any:
    kind = spec["kind"]
    try:
        if kind == "camera":
            return CaptureSource(int(spec["camera"]), on_status=on_status, sleep=sleep,
                                 reconnect_timeout=o.reconnect_timeout)
        if kind == "video":
            src = open_source(spec["video"])
            if getattr(src, "live", False):
                raise AppError(f"--video needs a file or a folder of images, got {spec['video']}")
            return src
        w, h = spec.get("resolution") or DEMO_RESOLUTION
        src = DemoSource(int(spec["demo"]), resolution=(int(w), int(h)), mistakes=int(spec.get("mistakes", 0)),
                         variant=variant, max_moves=spec.get("max_moves"))
        src.director  # plan the game now: a seed that cannot be played fails here, not mid-loop
        return src
    except SourceError as exc:
        raise AppError(str(exc)) from None


def run_play(o: PlayOptions, make_recogniser: Callable[[str, Any, Any, str], tuple[Any, str]], *,
             out: TextIO | None = None, err: TextIO | None = None, engine: Any = "auto") -> PlayResult:
    """Play (or resume) one game. ``make_recogniser(kind, models, source, spec) -> (recognise, kind)``
    is the CLI's (it exits 2 itself on a bad model). ``engine``: ``"auto"`` finds a speech engine
    when the voice is on; an engine object (tests) is used as it is."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    resume: Resume | None = None
    header: dict[str, Any] = {}
    if o.resume is not None:
        try:
            contents = read_log(o.resume)
        except LogError as exc:
            raise AppError(str(exc)) from None
        if isinstance(contents.outcome, dict):
            o_ = contents.outcome
            print(f"this game is over already ({'won' if o_.get('won') else 'lost'}, {o_.get('face_up')} of 52 "
                  f"face up): nothing to resume; `companion replay {o.resume}` plays it back", file=out)
            return PlayResult(outcome=o_)
        resume = Resume(contents)
        header = contents.header
        if contents.torn:
            print(f"note: {o.resume} ended in a torn line (the process was killed while writing); it is cut off",
                  file=err)
    opts = dict(header.get("options") or {})
    variant = o.variant or header.get("variant") or "standard"
    if variant not in ("standard", "watch"):
        raise AppError(f"--variant must be standard or watch, got {variant!r}")
    child = o.child if o.child is not None else bool(opts.get("child", False))
    lang = o.lang or opts.get("lang") or "en"
    from ..prompts.phrases import LANGUAGES

    if lang not in LANGUAGES:
        raise AppError(f"--lang {lang!r} is not supported yet (supported: {', '.join(LANGUAGES)})")
    if resume is not None and o.camera is None and o.video is None and o.demo is None:
        spec = dict(header.get("source") or {})
        if not spec.get("kind"):
            raise AppError(f"{o.resume}: the header does not say what the source was; give it again")
    else:
        spec = _source_spec(o)
    live = spec["kind"] == "camera"

    # layout
    layout: Layout | None = None
    if o.layout != "auto":
        from ..track import load_layout

        try:
            layout = load_layout(o.layout)
        except LayoutError as exc:
            raise AppError(str(exc)) from None
    elif resume is not None:
        try:
            if live:
                layout = resume.layout()
            elif header.get("layout"):
                layout = Layout.from_json(header["layout"], where=str(o.resume))
        except LayoutError as exc:
            raise AppError(str(exc)) from None

    # keys script (tests, headless runs)
    try:
        keys = parse_keys(o.keys)
    except UIError as exc:
        raise AppError(str(exc)) from None

    session: list[PlaySession] = []

    def on_status(state: str, message: str) -> None:
        if session:
            session[0].on_source_status(state, message)

    def sleep(seconds: float) -> None:
        if session:
            session[0].pump(seconds)
        else:  # pragma: no cover
            import time

            time.sleep(seconds)

    src = _open(spec, variant, o, on_status, sleep)
    if src.size_warning:
        print(f"note: {src.size_warning}", file=err)
    try:
        # recogniser: the oracle for rendered games under auto (the trained models are too weak to track)
        spec_text = spec.get("video") or (f"demo:{spec.get('demo')}" if spec["kind"] == "demo" else str(spec.get("camera")))
        kind = o.recogniser
        if kind == "auto" and not live and is_rendered_game(src, spec_text):
            kind = "oracle"
        recognise, used = make_recogniser(kind, o.models, src, spec_text)
        notice = ORACLE_NOTICE if used == "oracle" else None
        if spec["kind"] == "demo" and layout is None and o.layout_given is False:
            # the demo: the pile layout from the renderer too (finding it from the frames is the
            # calibration's job, tested on its own; here it is not what is being shown)
            from ..vision.oracle import truth_layout

            layout = truth_layout(src.scene)
            if used == "oracle":
                notice = DEMO_NOTICE

        window = not o.headless and has_display()
        voice = window if o.voice is None else o.voice
        speaker = _speaker(voice, engine, err)
        fps = float(getattr(src, "fps", None) or 30.0)

        # the log (only now that the inputs are good)
        try:
            if resume is not None:
                log = SessionLog.open_append(o.resume)  # type: ignore[arg-type]
                log.row({"resume": {"after_frame": resume.last_frame, "rows": len(resume.observations),
                                    "mode": "restore" if live else "catch-up", "recogniser": used}})
            else:
                path = Path(o.log) if o.log is not None else default_log_path()
                log = SessionLog.create(path, {
                    "source": spec, "source_name": getattr(src, "name", spec_text), "variant": variant,
                    "layout": layout.to_json() if layout is not None else None,
                    "options": {"child": child, "lang": lang, "recogniser": used, "voice": voice,
                                "window": window}})
        except LogError as exc:
            speaker.close()
            raise AppError(str(exc)) from None
        print(f"session log: {log.path}", file=err, flush=True)
        try:
            if window:
                try:
                    ui: Any = WindowUI("companion play", out=o.out, fps=fps)
                except NoWindow as exc:
                    print(f"note: {exc}; writing an annotated video instead", file=err)
                    window = False
            if not window:
                vpath = Path(o.out) if o.out is not None else _video_path(log.path, resume is not None)
                ui = VideoUI(vpath, fps)
                print(f"annotated video: {vpath}", file=err, flush=True)
        except UIError as exc:
            log.close()
            speaker.close()
            raise AppError(str(exc)) from None
        cfg = PlayConfig(variant=variant, child=child, lang=lang, keys=keys, fps=fps,
                         realtime=window if o.realtime is None else o.realtime,
                         hold_s=(8.0 if o.hold_s is None else o.hold_s) if window else 0.0,
                         tail_frames=int(2 * fps), notice=notice, twelve_at=o.twelve_at, live=live)
        s = PlaySession(src, recognise, layout=layout, log=log, speaker=speaker, ui=ui, config=cfg, out=out,
                        resume=resume)
        session.append(s)
        try:
            res = s.run()
        except LayoutError as exc:
            raise AppError(f"no layout found: {exc} (or give one with --layout FILE from `companion calibrate`)") from None
        except SourceError as exc:
            raise AppError(f"{exc}; the game so far is in {log.path}: go on with --resume {log.path}") from None
        finally:
            ui.close()
            if voice and not window:
                speaker.wait_idle(5.0)
            speaker.close()
            log.close()
        if src.skipped:
            print(f"warning: {src.skipped} frame(s) could not be decoded and were skipped", file=err)
        return res
    finally:
        src.close()


def _video_path(log_path: Path, resumed: bool) -> Path:
    if not resumed:
        return log_path.with_suffix(".mp4")
    k = 1
    while True:
        p = log_path.with_name(f"{log_path.stem}.resumed{k}.mp4")
        if not p.exists():
            return p
        k += 1


def _speaker(voice: bool, engine: Any, err: TextIO) -> Speaker:
    if not voice:
        return Speaker(None)
    if engine != "auto":
        return Speaker(engine, warn_stream=err)
    try:
        eng = find_engine()
    except SpeechUnavailable as exc:
        print(f"speech: {exc}; the prompts are shown and printed only", file=err)
        return Speaker(None)
    return Speaker(eng, warn_stream=err)
