"""Commands ``practice`` (the no-camera trainer) and ``demo`` (a scripted trainer game)."""

from __future__ import annotations

import os
import sys
from typing import Callable, Optional

import typer

from ._app import app, fail

_VARIANTS = ("standard", "watch")


def _int_option(name: str, text: Optional[str]) -> Optional[int]:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        fail(f"{name} must be a whole number, not {text!r}")


def _variant(text: str) -> str:
    value = text.strip().lower()
    if value not in _VARIANTS:
        fail(f"unknown variant {text!r} (use standard or watch)")
    return value


def _run(job: Callable[[], int]) -> None:
    """Run the printing part; a reader that stops early (``| head``) ends it quietly."""
    try:
        code = job()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 0
    raise typer.Exit(code)


@app.command()
def practice(
    seed: Optional[str] = typer.Option(None, "--seed", metavar="S",
                                       help="Deal number: the same number gives the same cards."),
    variant: str = typer.Option("standard", "--variant", metavar="standard|watch",
                                help="watch: the fourth king may be swapped once for a face-down card."),
    lesson: Optional[str] = typer.Option(None, "--lesson", metavar="N", help="Start with lesson N (1 to 4)."),
    script: Optional[str] = typer.Option(None, "--script", metavar="FILE",
                                         help="Read the commands from FILE (one per line, # comments)"
                                              " and print every screen."),
) -> None:
    """Practise Clock Patience in the terminal, no camera needed: you turn each card and say its pile.

    Type one command per line, then Enter. Keys: Enter or t turn the card · 1 to 12, 13 or c put it beneath that pile · h hint · u undo · r restart the deal · n new deal (asks y/n) · l lessons, l 1 to l 4 start one · p pause · x PILE:DEPTH Watch king swap (d: no swap) · q quit · ? help.

    With --script (or commands piped on stdin) every screen is printed and the run stops at the end.
    """
    from ..practice.lessons import LESSONS
    from ..practice.terminal import Printer, ScriptError, load_script, run_keyboard, run_lines, run_stdin
    from ..practice.trainer import Trainer

    seed_value = _int_option("--seed", seed)
    lesson_value = _int_option("--lesson", lesson)
    variant_value = _variant(variant)
    if lesson_value is not None and not 1 <= lesson_value <= len(LESSONS):
        fail(f"there is no lesson {lesson_value} (lessons are 1 to {len(LESSONS)})")
    lines = None
    if script is not None:
        try:
            lines = load_script(script)
        except ScriptError as exc:
            fail(str(exc))
    trainer = Trainer(seed=seed_value, variant=variant_value, lesson=lesson_value)
    if lines is not None:
        commands = [text for _, text in lines]
        _run(lambda: run_lines(trainer, commands, Printer.for_stream(sys.stdout)))
    elif not sys.stdin.isatty():
        _run(lambda: run_stdin(trainer, sys.stdin, Printer.for_stream(sys.stdout)))
    else:
        _run(lambda: run_keyboard(trainer, Printer.for_stream(sys.stdout, clear=True)))


@app.command()
def demo(
    seed: str = typer.Option("7", "--seed", metavar="S", help="The deal to play (default 7)."),
    fast: bool = typer.Option(False, "--fast", help="No pauses between screens."),
    variant: str = typer.Option("standard", "--variant", metavar="standard|watch",
                                help="Play the Watch variant (shows the king swap)."),
) -> None:
    """Watch the trainer play a whole game by itself: turns, a refused wrong pile, a hint, an undo, the kings.

    On a terminal the screens follow each other with short pauses (under half a minute in all).
    """
    from ..practice.terminal import Printer, run_demo

    seed_value = _int_option("--seed", seed)
    assert seed_value is not None
    variant_value = _variant(variant)
    _run(lambda: run_demo(seed_value, Printer.for_stream(sys.stdout, clear=True), variant=variant_value, fast=fast))
