"""The trainer's commands: one typed line each, parsed before the trainer sees them.

A line is one command, so multi-digit piles (``10``, ``11``, ``12``, ``13``) are
typed as they read; an empty line (Enter) turns the next card.

>>> parse_command("")
Command(kind='turn', arg=None, depth=None)
>>> parse_command(" 11 ")
Command(kind='place', arg=11, depth=None)
>>> parse_command("c"), parse_command("x 7:0"), parse_command("l 2")
(Command(kind='place', arg=13, depth=None), Command(kind='exchange', arg=7, depth=0), Command(kind='lesson', arg=2, depth=None))
>>> parse_command("zz")
Traceback (most recent call last):
...
companion.practice.commands.CommandError: unknown command 'zz' (type ? for the keys)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..cards import CENTRE

__all__ = ["Command", "CommandError", "parse_command", "KEYS_HELP", "LESSON_COUNT"]

#: Lessons are numbered 1..LESSON_COUNT (kept here so parsing needs no lesson deals).
LESSON_COUNT = 4


class CommandError(ValueError):
    """A typed line that is not a trainer command (the message says what is accepted)."""


@dataclass(frozen=True)
class Command:
    """A parsed command. ``arg`` is the pile (place, exchange) or the lesson number."""

    kind: str
    arg: int | None = None
    depth: int | None = None


_WORDS: dict[str, str] = {
    "": "turn", "t": "turn", "turn": "turn",
    "h": "hint", "hint": "hint",
    "u": "undo", "undo": "undo",
    "r": "restart", "restart": "restart",
    "n": "new", "new": "new",
    "y": "yes", "yes": "yes", "no": "no",
    "l": "lessons", "lesson": "lessons", "lessons": "lessons",
    "p": "pause", "pause": "pause", "resume": "pause",
    "d": "decline", "decline": "decline",
    "q": "quit", "quit": "quit", "exit": "quit",
    "?": "help", "help": "help",
    "c": "place", "centre": "place", "center": "place", "k": "place",
}

_LESSON_RE = re.compile(r"^(?:l|lesson)\s*(\S+)$")
_EXCHANGE_RE = re.compile(r"^(?:x|exchange|swap)(?=$|[\s\d:c])\s*(.*)$")
_EXCHANGE_ARGS_RE = re.compile(r"^(\d+|c)\s*[:\s]\s*(\d+)$")


def _pile_number(text: str) -> int:
    if text in ("c", "centre", "center", "k"):
        return CENTRE
    if not text.isdigit() or not 1 <= int(text) <= 13:
        raise CommandError(f"there is no pile {text!r} (piles are 1 to 12, and 13 or c for the centre)")
    return int(text)


_RANK_LETTERS = {"a": ("aces", 1), "j": ("jacks", 11), "jack": ("jacks", 11), "ace": ("aces", 1),
                 "queen": ("queens", 12), "king": ("kings", CENTRE)}


def parse_command(line: str) -> Command:
    """Parse one typed line (case and surrounding spaces do not matter)."""
    text = " ".join(line.strip().lower().split())
    if text in _RANK_LETTERS:
        rank, pile = _RANK_LETTERS[text]
        where, key = ("under the centre", "c") if pile == CENTRE else (f"to {pile} o'clock", str(pile))
        raise CommandError(f"type the pile, not the card: {rank} go {where}, so type {key}")
    if text.isdigit():
        return Command("place", _pile_number(text))
    kind = _WORDS.get(text)
    if kind == "place":
        return Command("place", CENTRE)
    if kind is not None:
        return Command(kind)
    m = _LESSON_RE.match(text)
    if m:
        arg = m.group(1)
        if not arg.isdigit() or not 1 <= int(arg) <= LESSON_COUNT:
            raise CommandError(f"there is no lesson {arg!r} (lessons are 1 to {LESSON_COUNT})")
        return Command("lesson", int(arg))
    m = _EXCHANGE_RE.match(text)
    if m:
        args = _EXCHANGE_ARGS_RE.match(m.group(1))
        if not args:
            raise CommandError(
                f"write the exchange as x PILE:DEPTH, e.g. x 7:0 (depth 0 is the top card), not {line.strip()!r}")
        return Command("exchange", _pile_number(args.group(1)), int(args.group(2)))
    raise CommandError(f"unknown command {line.strip()!r} (type ? for the keys)")


KEYS_HELP = """\
Keys (type one command, then press Enter):
  Enter or t     turn the top face-down card of the pile marked ▶
  1 ... 12       put the card you hold beneath that hour of the clock
  13 or c        put it beneath the centre (kings go there)
  h              hint: where does it go?
  u              undo the last card
  r              restart this same deal
  n              new deal (asks first: y or n)
  l              list the lessons;  l 1 ... l 4  start a lesson
  p              pause / carry on
  x PILE:DEPTH   Watch game: swap the 4th king for a face-down card
                 (depth 0 = the top card), e.g. x 7:0;  d = no swap
  q              quit        ?  this help
How to play: every card has a home. A lives at 1 o'clock, 2 at 2 ...
10 at 10, J at 11, Q at 12, and kings go under the centre. Put the card
you turn beneath its home, then turn the top card of that same pile.
The game ends when the fourth king comes up: you win if all 52 are up."""
