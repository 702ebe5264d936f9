"""The command line: a thin layer over the package. Each module registers its commands on ``app``."""

from __future__ import annotations

import sys

from ._app import CliError, app, fail

# Command modules: importing registers their commands.
from . import rules_cmds  # noqa: F401,E402  check-deal, referee
from . import simulate_cmd  # noqa: F401,E402  simulate
from . import practice_cmd  # noqa: F401,E402  practice, demo
from . import decks_cmd  # noqa: F401,E402  decks
from . import vision_cmds  # noqa: F401,E402  recognise
from . import bench_cmd  # noqa: F401,E402  bench ...

__all__ = ["app", "main", "fail", "CliError"]


def main() -> None:
    """Console-script entry point: known errors become one line on stderr and exit code 2."""
    from ..rules.errors import RulesError

    try:
        app()
    except (CliError, RulesError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
