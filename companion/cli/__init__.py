"""The command line: a thin layer over the package. Each module registers its commands on ``app``."""

from __future__ import annotations

import sys

import typer

from ._app import CliError, app, fail

# Command modules: importing registers their commands.
from . import rules_cmds  # noqa: F401,E402  check-deal, referee
from . import simulate_cmd  # noqa: F401,E402  simulate
from . import practice_cmd  # noqa: F401,E402  practice, demo
from . import decks_cmd  # noqa: F401,E402  decks
from . import render_cmd  # noqa: F401,E402  render
from . import vision_cmds  # noqa: F401,E402  recognise
from . import bench_cmd  # noqa: F401,E402  bench ...
from . import calibrate_cmd  # noqa: F401,E402  calibrate, mat
from . import track_cmd  # noqa: F401,E402  track
from . import play_cmd  # noqa: F401,E402  play, replay

__all__ = ["app", "main", "fail", "CliError"]


def _click_exceptions():  # noqa: ANN202
    """Click's exception classes: vendored inside newer typer, the click package in older ones."""
    try:
        from typer._click import exceptions as cx
    except ImportError:  # pragma: no cover - typer < 0.22 depends on click
        from click import exceptions as cx
    return cx


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: bad input becomes one line on stderr and exit code 2."""
    from ..rules.errors import RulesError

    cx = _click_exceptions()

    args = sys.argv[1:] if argv is None else argv
    try:
        code = app(args=args, standalone_mode=False, prog_name="companion")
    except cx.NoArgsIsHelpError as exc:  # "companion" or "companion bench" alone
        print(exc.ctx.get_help() if exc.ctx else "", file=sys.stdout)
        sys.exit(0)
    except cx.UsageError as exc:
        hint = f" (see: companion {exc.ctx.command_path.split(' ', 1)[1]} --help)" if exc.ctx and " " in exc.ctx.command_path else " (see: companion --help)"
        print(f"error: {exc.format_message()}{hint}", file=sys.stderr)
        sys.exit(2)
    except tuple({getattr(cx, "Exit", typer.Exit), typer.Exit}) as exc:
        sys.exit(exc.exit_code)
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        sys.exit(0)
    except tuple({getattr(cx, "Abort", typer.Abort), typer.Abort, KeyboardInterrupt}):
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except (CliError, RulesError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)
