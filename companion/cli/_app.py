"""The typer application every command module registers on, and the one-line error path."""

from __future__ import annotations

import sys
from typing import NoReturn

import typer

app = typer.Typer(
    name="companion",
    help="Clock Patience companion: reads the cards, referees the play, prompts the next pile.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class CliError(Exception):
    """Bad input: printed as one line on stderr, exit code 2."""

    exit_code = 2


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code`` (no traceback)."""
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(code)


def parse_resolution(text: str, example: str = "1280x720", least: tuple[int, int] = (1, 1)) -> tuple[int, int]:
    """``WxH`` as two ints, or the one-line error (naming ``example``) for anything else or smaller than ``least``."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
        if w < least[0] or h < least[1]:
            raise ValueError
    except ValueError:
        floor = f" (at least {least[0]}x{least[1]})" if least != (1, 1) else ""
        fail(f"--resolution must look like {example}{floor}, got {text!r}")
    return w, h
