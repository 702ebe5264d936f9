"""``companion practice``: a no-camera Clock Patience trainer in the terminal, and the demo.

The trainer logic (:class:`Trainer`) is a pure state machine: typed commands in,
screens and messages out. :mod:`.terminal` does the reading and printing.
"""

from .commands import KEYS_HELP, Command, CommandError, parse_command
from .lessons import LESSONS, Lesson, get_lesson
from .trainer import Reply, Trainer, best_exchange, format_time, outcome_line

__all__ = [
    "Trainer", "Reply", "Command", "CommandError", "parse_command", "KEYS_HELP",
    "LESSONS", "Lesson", "get_lesson", "best_exchange", "format_time", "outcome_line",
]
