"""Terminal I/O for the trainer: the keyboard loop, script files, piped stdin, and the demo.

The trainer itself (:mod:`.trainer`) never reads or prints; this module feeds it
lines and prints its screens, with ANSI colours only when stdout is a terminal.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, TextIO

from ..cards import CENTRE
from .commands import CommandError, parse_command
from .trainer import Trainer, best_exchange, outcome_line

__all__ = ["ScriptError", "load_script", "Printer", "run_lines", "run_stdin", "run_keyboard", "demo_steps", "run_demo"]

CLEAR = "\033[H\033[2J"
RULE = "═" * 80


class ScriptError(ValueError):
    """A script file that cannot be used (one-line message with the file and line)."""


def load_script(path: str | os.PathLike[str]) -> list[tuple[int, str]]:
    """Read a script: one command per line, ``#`` starts a comment, blank lines are skipped.

    Every line is checked first, so an unknown command stops the run before it starts.
    Returns ``(line number, command text)`` pairs.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScriptError(f"script file not found: {path}") from None
    except IsADirectoryError:
        raise ScriptError(f"script {path} is a folder, not a file") from None
    except UnicodeDecodeError:
        raise ScriptError(f"script {path} is not UTF-8 text") from None
    except OSError as exc:
        raise ScriptError(f"cannot read script {path}: {exc.strerror or exc}") from None
    lines: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        command = raw.split("#", 1)[0].strip()
        if not command:
            continue
        try:
            parse_command(command)
        except CommandError as exc:
            raise ScriptError(f"{path} line {number}: {exc}") from None
        lines.append((number, command))
    return lines


# -- printing ---------------------------------------------------------------------------
_RED_CARD = re.compile(r"(?<![\w])((?:10|[A2-9JQK])[♥♦])")
_STYLES = [
    (re.compile(r"▶(?:centre K|\d+(?: [AJQ])?)"), "\033[1;33m"),
    (re.compile(r"▓+"), "\033[34m"),
    (re.compile(r"In your hand: \S+"), "\033[1m"),
]
_LINE_STYLES = [
    (re.compile(r"^(No:|Sorry:)"), "\033[31m"),
    (re.compile(r"^(Yes!|Well done|Right:|You won!|That was the fourth|All 52)"), "\033[32m"),
    (re.compile(r"^(Outcome:|Game over)"), "\033[1m"),
    (re.compile(r"^In a demo:"), "\033[36m"),
]
_ASCII = str.maketrans({"♥": "h", "♦": "d", "♣": "c", "♠": "s", "▓": "#", "▶": ">", "✓": "+",
                        "─": "-", "═": "=", "·": "-", "…": "..."})


def colourize(text: str) -> str:
    """ANSI colours: red suits in red, the current pile, refusals in red, successes in green."""
    out = []
    for line in text.split("\n"):
        for pattern, code in _LINE_STYLES:
            if pattern.match(line):
                out.append(f"{code}{line}\033[0m")
                break
        else:
            for pattern, code in _STYLES:
                line = pattern.sub(lambda m, c=code: f"{c}{m.group(0)}\033[0m", line)
            out.append(_RED_CARD.sub(lambda m: f"\033[31m{m.group(1)}\033[39m", line))
    return "\n".join(out)


@dataclass
class Printer:
    """Writes screens to ``out``: colours and screen clearing only when it is a terminal."""

    out: TextIO
    colour: bool = False
    clear: bool = False
    ascii_only: bool = False

    @classmethod
    def for_stream(cls, out: TextIO, *, clear: bool = False) -> "Printer":
        tty = bool(getattr(out, "isatty", lambda: False)())
        encoding = getattr(out, "encoding", None) or "ascii"
        try:
            "♥♦♣♠▓▶✓─═·".encode(encoding)
            ascii_only = False
        except (UnicodeEncodeError, LookupError):
            ascii_only = True
        colour = tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
        return cls(out, colour=colour, clear=clear and tty, ascii_only=ascii_only)

    def write(self, text: str) -> None:
        if self.ascii_only:
            text = text.translate(_ASCII).encode("ascii", "replace").decode("ascii")
        elif self.colour:
            text = colourize(text)
        self.out.write(text + "\n")
        self.out.flush()

    def screen(self, trainer: Trainer, echo: str | None = None, caption: str | None = None) -> None:
        parts = []
        if echo is not None or caption is not None:
            parts.append(RULE)
            if caption:
                parts.append(f"In a demo: {caption}")
            if echo is not None:
                parts.append(f"> {echo}")
        parts.append(trainer.screen())
        if self.clear:
            self.out.write(CLEAR)
        self.write("\n".join(parts))


# -- the three ways of feeding commands -------------------------------------------------
def run_lines(trainer: Trainer, lines: Iterable[str], printer: Printer, *, what: str = "script") -> int:
    """Feed ``lines`` (already stripped of comments) to the trainer, printing every screen."""
    printer.screen(trainer)
    for line in lines:
        reply = trainer.handle(line)
        if reply.quit:
            printer.write(f"> {line}\n" + "\n".join(reply.messages))
            return 0
        printer.screen(trainer, echo=line)
    printer.write(f"{RULE}\nEnd of {what}: {trainer.record()}.\nSummary: {trainer.summary()}.")
    return 0


def run_stdin(trainer: Trainer, stream: TextIO, printer: Printer) -> int:
    """Commands from a pipe: one per line like the keyboard (an empty line turns a card)."""
    lines = (raw.rstrip("\r\n").strip() for raw in stream if not raw.lstrip().startswith("#"))
    return run_lines(trainer, lines, printer, what="input")


def run_keyboard(trainer: Trainer, printer: Printer, read: Callable[[str], str] = input) -> int:
    """The interactive loop: show the screen, read a line, repeat until q (or Ctrl-D / Ctrl-C)."""
    while True:
        printer.screen(trainer)
        try:
            line = read("> ")
        except (EOFError, KeyboardInterrupt):
            printer.write(f"\nBye! {trainer.record().capitalize()}. Summary: {trainer.summary()}.")
            return 0
        reply = trainer.handle(line)
        if reply.quit:
            printer.write("\n".join(reply.messages))
            return 0


# -- the demo ---------------------------------------------------------------------------
def demo_steps(seed: int = 7, variant: str = "standard") -> list[tuple[str, str | None]]:
    """The commands of a whole demo game, with captions on the instructive ones.

    It shows a turn, a wrong pile refused, a hint, an undo, every king going under the
    centre and (Watch) the king exchange chosen by the hint, then plays to the end.
    """
    trainer = Trainer(seed=seed, variant=variant, clock=lambda: 0.0)
    steps: list[tuple[str, str | None]] = []

    def do(command: str, caption: str | None = None) -> None:
        steps.append((command, caption))
        trainer.handle(command)

    turned = 0
    undone = looped = False
    while True:
        phase = trainer.phase
        if phase == "over":
            break
        if phase == "exchange":
            do("h", "the fourth king came too early: ask the hint which card to swap it for.")
            best, _ = best_exchange(trainer.game)
            do(f"x {best}", "swap the king for that face-down card.")
            continue
        if phase == "turn":
            first = turned == 0
            do("t", "turn the first card from the centre." if first else None)
            turned += 1
            continue
        assert trainer.revealed is not None
        move = trainer.revealed
        home = "c" if move.to_pile == CENTRE else str(move.to_pile)
        if turned == 1:
            wrong = 12 if move.card.is_king else (move.to_pile % 12) + 1
            do(str(wrong), f"a wrong pile on purpose: {wrong}. The trainer refuses it and says why.")
            do("h", "ask for a hint.")
            do(home, "now the right pile.")
        elif turned == 3 and not undone:
            undone = True
            do(home, None)
            do("u", "undo takes the last card back, face down.")
            do("t", "turn it again.")
        elif move.card.is_king:
            do(home, "a king: it goes under the centre, and play goes on from the centre.")
        elif move.from_pile == move.to_pile and not looped:
            looped = True
            do(home, "this card came from its own pile, so play stays on that pile.")
        else:
            do(home, None)
    return steps


def run_demo(seed: int, printer: Printer, *, variant: str = "standard", fast: bool = False,
             sleep: Callable[[float], None] = time.sleep, budget_s: float = 22.0) -> int:
    """Play the demo game through the trainer, printing every screen, and end with the outcome."""
    steps = demo_steps(seed, variant)
    trainer = Trainer(seed=seed, variant=variant)
    pause = not fast and printer.clear
    captioned = sum(1 for _, c in steps if c)
    slow = 1.6 if captioned * 1.6 < budget_s / 2 else budget_s / 2 / max(1, captioned)
    quick = min(0.5, (budget_s - captioned * slow) / max(1, len(steps) - captioned))
    printer.screen(trainer, caption=f"a whole game of deal {seed}, played by the trainer itself.")
    if pause:
        sleep(slow)
    for command, caption in steps:
        trainer.handle(command)
        printer.screen(trainer, echo=command, caption=caption)
        if pause:
            sleep(slow if caption else quick)
    out = trainer.outcome
    if out is not None:
        printer.write(f"{RULE}\n{outcome_line(out)}\nSummary: {trainer.summary()}.")
        printer.write(f"Your turn: companion practice --seed {seed}   (or any other deal: companion practice)")
    return 0
