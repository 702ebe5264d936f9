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
