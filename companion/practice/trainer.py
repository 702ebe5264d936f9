"""The trainer: a pure state machine. Commands in, screens and messages out; no I/O.

The player does what the rules would do by themselves: turn the next card, then
say which pile it goes beneath. Wrong piles are refused with the reason; hints,
undo, restart, new deal (after a y/n question), lessons, pause and the Watch
variant's king exchange are all commands. See :data:`~.commands.KEYS_HELP`.

>>> t = Trainer(seed=7, clock=lambda: 0.0)
>>> t.handle("t").messages[0]
'You turned the 6♣ from the centre. Where does it go?'
>>> t.handle("5").messages[0]
"No: 6♣ lives at 6 o'clock, not 5. Try again."
>>> t.handle("6").messages[0]
"Yes! The 6♣ goes beneath 6 o'clock. Now turn the top card of 6 o'clock."
"""

from __future__ import annotations

import random
import textwrap
import time
from dataclasses import dataclass
from typing import Callable

from ..cards import CENTRE, Card
from ..rules.deal import Deal
from ..rules.errors import RulesError
from ..rules.game import VARIANTS, ClockGame, Exchange, Move, Outcome
from .board import BOARD_HEIGHT, BOARD_WIDTH, LEGEND, draw_clock, pile_name
from .commands import KEYS_HELP, Command, CommandError, parse_command
from .lessons import LESSONS, Lesson, get_lesson

__all__ = ["Trainer", "Reply", "format_time", "best_exchange", "outcome_line"]

SCREEN_WIDTH = BOARD_WIDTH

_RANK_NOTE = {1: "aces are 1", 11: "jacks are 11", 12: "queens are 12"}


@dataclass(frozen=True)
class Reply:
    """What one command did: the messages to show, and whether the player quit."""

    messages: tuple[str, ...]
    quit: bool = False


def format_time(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` past an hour).

    >>> format_time(0), format_time(65.9), format_time(3725)
    ('0:00', '1:05', '1:02:05')
    """
    s = int(seconds)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def outcome_line(outcome: Outcome) -> str:
    """``Outcome: lost, 28 of 52 cards face up`` (the progress record)."""
    text = f"Outcome: {'won' if outcome.won else 'lost'}, {outcome.face_up} of 52 cards face up"
    if outcome.exchanged is not None:
        text += f" (Watch: king swapped for {outcome.exchanged})"
    return text


def best_exchange(game: ClockGame) -> tuple[Exchange, int]:
    """Watch: the exchange that ends with the most cards face up (first such pile, depth)."""
    best: tuple[Exchange, int] | None = None
    for pile, stack in game.face_down.items():
        for depth in range(len(stack)):
            trial = game.copy()
            trial.exchange(pile, depth)
            face_up = trial.play().face_up
            if best is None or face_up > best[1]:
                best = (Exchange(pile, depth), face_up)
    if best is None:
        raise RulesError("no card is face down: there is nothing to exchange")
    return best


def _ordinal(n: int) -> str:
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th') }"


def _refusal(card: Card, chosen: int) -> str:
    """Why ``card`` does not go beneath pile ``chosen``: ``7♥ lives at 7 o'clock, not 5``."""
    home = card.home_pile
    if chosen == CENTRE:
        return f"{card.label} lives at {home} o'clock, not in the centre (only kings go there)"
    if card.is_king:
        return f"{card.label} is a king: kings go under the centre (c), not {chosen}"
    note = f" ({_RANK_NOTE[home]})" if home in _RANK_NOTE else ""
    return f"{card.label} lives at {home} o'clock, not {chosen}{note}"


class Trainer:
    """One practice session: a game, the card in the player's hand, and the counters.

    ``clock`` gives seconds (``time.monotonic`` by default); tests pass a fixed one.
    ``phase`` is one of ``turn`` (turn the next card), ``place`` (say its pile),
    ``exchange`` (Watch: swap the fourth king or decline), ``over``, ``confirm``
    (new deal? y/n) and ``paused``.
    """

    def __init__(
        self,
        seed: int | None = None,
        variant: str = "standard",
        lesson: int | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r} (use {' or '.join(VARIANTS)})")
        self.variant = variant
        self._clock = clock
        if seed is None:
            seed = random.randrange(1, 100_000)
        self.seed = seed
        self._deals = random.Random(seed)  # where later new deals come from
        self.lesson: Lesson | None = get_lesson(lesson) if lesson is not None else None
        self.quit = False
        self.messages: list[str] = []
        self.overlay: list[str] | None = None
        self._start()
        self.messages = self._welcome()

    # -- game setup ---------------------------------------------------------------------
    def _start(self) -> None:
        """(Re)start the current deal or lesson from its beginning, counters at zero."""
        if self.lesson is not None:
            self.game = self.lesson.start(self.variant)
            self.base_moves = self.lesson.premoves
        else:
            self.game = ClockGame(Deal.random(self.seed), self.variant)  # type: ignore[arg-type]
            self.base_moves = 0
        self.revealed: Move | None = None
        self.declined = False
        self.paused = False
        self.confirming = False
        self.praised = False
        self.mistakes = 0
        self.hints = 0
        self.undos = 0
        self._exchange_at: int | None = None
        self._elapsed = 0.0
        self._t0: float | None = None
        self._sync_timer()

    def _welcome(self) -> list[str]:
        if self.lesson is not None:
            return list(self.lesson.intro)
        rules = "Watch rules: one king swap allowed" if self.variant == "watch" else "standard rules"
        return [f"Deal {self.seed}, {rules}. Press Enter to turn the first card. ? = help"]

    # -- state --------------------------------------------------------------------------
    @property
    def phase(self) -> str:
        if self.paused:
            return "paused"
        if self.confirming:
            return "confirm"
        if self.revealed is not None:
            return "place"
        if self.game.is_over():
            return "exchange" if self.game.can_exchange() and not self.declined else "over"
        return "turn"

    @property
    def outcome(self) -> Outcome | None:
        """The game's outcome once it is over (after any Watch exchange is settled)."""
        if self.revealed is None and self.game.is_over() and (self.declined or not self.game.can_exchange()):
            return self.game.outcome()
        return None

    @property
    def elapsed(self) -> float:
        """Seconds played (pauses and the time after the game ended do not count)."""
        return self._elapsed + (self._clock() - self._t0 if self._t0 is not None else 0.0)

    def _sync_timer(self) -> None:
        running = not self.quit and self.phase not in ("paused", "over")
        if running and self._t0 is None:
            self._t0 = self._clock()
        elif not running and self._t0 is not None:
            self._elapsed += self._clock() - self._t0
            self._t0 = None

    def record(self) -> str:
        """``progress record 40/52 (lost)`` once over, else ``12/52 face up so far``."""
        out = self.outcome
        if out is not None:
            return f"progress record {out.face_up}/52 ({'won' if out.won else 'lost'})"
        return f"{self.game.face_up_count}/52 face up so far"

    def summary(self) -> str:
        """``mistakes refused 1 · hints used 1 · undos 1 · time 0:42``."""
        return (f"mistakes refused {self.mistakes} · hints used {self.hints}"
                f" · undos {self.undos} · time {format_time(self.elapsed)}")

    # -- commands -----------------------------------------------------------------------
    def handle(self, command: Command | str) -> Reply:
        """Apply one command (a :class:`Command` or a typed line) and say what happened."""
        self.messages = []
        self.overlay = None
        if isinstance(command, str):
            try:
                command = parse_command(command)
            except CommandError as exc:
                self.messages = [f"Sorry: {exc}."]
                return Reply(tuple(self.messages))
        was_over = self.outcome is not None
        self._dispatch(command)
        if not was_over and self.outcome is not None and not self.quit:
            self._finish()
        self._sync_timer()
        return Reply(tuple(self.messages), self.quit)

    def _say(self, *lines: str) -> None:
        self.messages.extend(lines)

    def _dispatch(self, cmd: Command) -> None:
        kind, phase = cmd.kind, self.phase
        if kind == "quit":
            self.quit = True
            self._sync_timer()
            self._say(f"Bye! {self.record().capitalize()}.", f"Summary: {self.summary()}.")
            return
        if kind == "help":
            self.overlay = KEYS_HELP.splitlines()
            return
        if phase == "paused":
            if kind in ("pause", "turn"):
                self.paused = False
                self._say("Welcome back: the clock is running again.")
            else:
                self._say("The game is paused: press p (or Enter) to carry on.")
            return
        if phase == "confirm":
            if kind == "yes":
                self.confirming = False
                self.lesson = None
                self.seed = self._deals.randrange(1, 100_000)
                self._start()
                self._say(f"New cards: deal {self.seed}. Press Enter to turn the first card from the centre.")
            elif kind in ("no", "new"):
                self.confirming = False
                self._say("OK, keep playing this deal.")
            else:
                self._say("Deal new cards? Please answer y (yes) or n (no).")
            return
        handler = {
            "pause": self._pause, "new": self._new, "restart": self._restart,
            "lessons": self._lessons, "lesson": self._lesson, "undo": self._undo,
            "hint": self._hint, "turn": self._turn, "place": self._place,
            "exchange": self._exchange, "decline": self._decline,
        }.get(kind)
        if handler is None:  # yes / no with no question asked
            self._say("There is no question to answer right now.")
            return
        handler(cmd)

    def _pause(self, cmd: Command) -> None:
        if self.outcome is not None:
            self._say("The game is over, so there is nothing to pause.")
            return
        self.paused = True
        self._say(f"Paused at {format_time(self.elapsed)}.")

    def _new(self, cmd: Command) -> None:
        self.confirming = True
        self._say("Deal new cards? This game will be lost. Type y or n.")

    def _restart(self, cmd: Command) -> None:
        self._start()
        what = f"lesson {self.lesson.number}" if self.lesson else f"deal {self.seed}"
        self._say(f"Starting {what} again from the beginning.")
        if self.lesson:
            self._say(*self.lesson.intro)

    def _lessons(self, cmd: Command) -> None:
        self.overlay = ["Lessons (type l and the number, e.g. l 1):", ""] + [
            f"  l {lesson.number}   {lesson.title}" for lesson in LESSONS
        ] + ["", "Each lesson is a prepared deal with some cards already played.",
             "r starts a lesson again; n leaves it for a new deal."]

    def _lesson(self, cmd: Command) -> None:
        assert cmd.arg is not None
        self.lesson = get_lesson(cmd.arg)
        self._start()
        self._say(f"Lesson {self.lesson.number}: {self.lesson.title}.", *self.lesson.intro)

    def _hint(self, cmd: Command) -> None:
        phase = self.phase
        if phase == "turn":
            self.hints += 1
            self._say(f"Hint: turn the top card of {pile_name(self.game.current_pile)}: press Enter.")
        elif phase == "place":
            assert self.revealed is not None
            self.hints += 1
            card, home = self.revealed.card, self.revealed.to_pile
            key = "c" if home == CENTRE else str(home)
            plural = card.rank.word + ("es" if card.rank.word.endswith("x") else "s")
            if card.is_king:
                self._say(f"Hint: the {card.label} is a king, and kings go under the centre: type c.")
            else:
                self._say(f"Hint: the {card.label} goes beneath {pile_name(home)} (the {plural} live there):"
                          f" type {key}.")
        elif phase == "exchange":
            self.hints += 1
            best, face_up = best_exchange(self.game)
            depth = "the top card" if best.depth == 0 else f"the {_ordinal(best.depth + 1)} card from the top"
            self._say(f"Hint: x {best} (at {pile_name(best.pile)}, {depth}) gets the most cards"
                      f" face up: {face_up} of 52.")
        else:
            self._say("The game is over: r plays this deal again, n deals new cards.")

    def _turn(self, cmd: Command) -> None:
        phase = self.phase
        if phase == "place":
            assert self.revealed is not None
            self._say(f"You already hold the {self.revealed.card.label}: put it on its pile first"
                      " (h for a hint).")
        elif phase == "exchange":
            self._say("The fourth king is up: swap it with x PILE:DEPTH, or type d for no swap.")
        elif phase == "over":
            self._say("The game is over: r plays this deal again, n deals new cards.")
        else:
            self.revealed = self.game.peek()
            self._say(f"You turned the {self.revealed.card.label} from"
                      f" {pile_name(self.revealed.from_pile)}. Where does it go?")

    def _place(self, cmd: Command) -> None:
        phase = self.phase
        if phase != "place":
            if phase == "turn":
                self._say("First turn a card: press Enter (or t).")
            elif phase == "exchange":
                self._say("The fourth king is up: swap it with x PILE:DEPTH, or type d for no swap.")
            else:
                self._say("The game is over: r plays this deal again, n deals new cards.")
            return
        assert self.revealed is not None and cmd.arg is not None
        move = self.revealed
        if cmd.arg != move.to_pile:
            self.mistakes += 1
            self._say(f"No: {_refusal(move.card, cmd.arg)}. Try again.")
            return
        self.game.push(move)
        self.revealed = None
        card, dest = move.card, move.to_pile
        game = self.game
        if card.is_king:
            self._say(f"Yes! The {card.label} goes under the centre. That is king {game.kings_up} of 4.")
        elif move.from_pile == dest:
            self._say(f"Yes! The {card.label} goes home to {pile_name(dest)}, its own pile:"
                      f" turn from {pile_name(dest)} again.")
        else:
            self._say(f"Yes! The {card.label} goes beneath {pile_name(dest)}."
                      f" Now turn the top card of {pile_name(dest)}.")
        if self.lesson is not None and not self.praised and self.lesson.reached(move, game):
            self.praised = True
            watch = self.variant == "watch" and self.lesson.praise_watch
            self._say(self.lesson.praise_watch if watch else self.lesson.praise)
        if game.can_exchange():
            self._say(f"The fourth king is up, but {game.face_down_count} cards are still face down.",
                      "Watch rule: you may swap this king ONCE for any face-down card.")

    def _exchange(self, cmd: Command) -> None:
        if self.phase != "exchange":
            if self.variant != "watch":
                self._say("The king swap is only in the Watch game (companion practice --variant watch).")
            else:
                self._say("The swap comes only when the fourth king is up with cards still face down.")
            return
        assert cmd.arg is not None and cmd.depth is not None
        try:
            self.game.exchange(cmd.arg, cmd.depth)
        except RulesError as exc:
            self._say(f"No: {exc}.")
            return
        self._exchange_at = len(self.game.moves)
        self.revealed = self.game.peek()
        self._say(f"Swapped: the king now lies face down at {pile_name(cmd.arg)} and you hold the"
                  f" {self.revealed.card.label}. Where does it go?",
                  "The game ends when that king turns up again.")

    def _decline(self, cmd: Command) -> None:
        if self.phase != "exchange":
            self._say("There is no king swap to say no to right now.")
            return
        self.declined = True
        self._say("No swap, then.")

    def _holding_exchanged(self) -> bool:
        return (self.revealed is not None and self.game.exchange_made is not None
                and len(self.game.moves) == self._exchange_at)

    def _undo(self, cmd: Command) -> None:
        game = self.game
        if self.revealed is not None and not self._holding_exchanged():
            card, src = self.revealed.card, self.revealed.from_pile
            self.revealed = None
            self.undos += 1
            self._say(f"Undone: the {card.label} goes back face down on {pile_name(src)}.")
            return
        if self.declined:
            self.declined = False
            self.undos += 1
            self._say("Undone: you may choose the king swap again.")
            return
        if game.exchange_made is None and len(game.moves) <= self.base_moves:
            where = "this is where the lesson starts" if self.base_moves else "no card has been turned yet"
            self._say(f"Nothing to undo: {where}.")
            return
        self.undos += 1
        undone = game.pop()
        if isinstance(undone, Exchange):
            self.revealed = None
            self._exchange_at = None
            self._say("Undone: the swap is taken back and the king is up again.")
            return
        if game.exchange_made is not None and len(game.moves) == self._exchange_at:
            self.revealed = game.peek()
            self._say(f"Undone: you hold the {undone.card.label} again. Where does it go?")
            return
        self._say(f"Undone: the {undone.card.label} goes back face down on {pile_name(undone.from_pile)}.")

    def _finish(self) -> None:
        out = self.outcome
        assert out is not None
        if out.won:
            self._say("You won! All 52 cards are face up.")
        elif out.exchanged is not None:
            self._say(f"The swapped king turned up again: the game is over with"
                      f" {self.game.face_down_count} cards face down.")
        else:
            self._say(f"The fourth king is up, so the game is over with"
                      f" {self.game.face_down_count} cards still face down.")
        self._sync_timer()
        self._say(outcome_line(out), f"Summary: {self.summary()}.")

    # -- the screen ---------------------------------------------------------------------
    def title(self) -> str:
        rules = "Watch rules (one king swap)" if self.variant == "watch" else "standard rules"
        if self.lesson is not None:
            what = f"Lesson {self.lesson.number} of {len(LESSONS)}: {self.lesson.title}"
        else:
            what = f"Clock Patience practice · deal {self.seed}"
        return f"{what} · {rules}"

    def status(self) -> str:
        if self.outcome is not None:
            return (f"Game over · {self.record()} · mistakes {self.mistakes} · hints {self.hints}"
                    f" · time {format_time(self.elapsed)}")
        g = self.game
        return (f"Face up {g.face_up_count} of 52 · kings {g.kings_up} of 4 · mistakes {self.mistakes}"
                f" · hints {self.hints} · time {format_time(self.elapsed)}")

    def prompt(self) -> str:
        phase = self.phase
        if phase == "turn":
            return f"Your move: press Enter (or t) to turn the top card of {pile_name(self.game.current_pile)}."
        if phase == "place":
            assert self.revealed is not None
            return f"Where does the {self.revealed.card.label} go? Type its pile: 1 to 12, or c for the centre."
        if phase == "exchange":
            example = next(p for p, stack in self.game.face_down.items() if stack)
            return f"Swap the king? Type x PILE:DEPTH (0 = top card), e.g. x {example}:0, or d for no swap."
        if phase == "confirm":
            return "Deal new cards? Type y or n."
        if phase == "paused":
            return "Paused. Press p (or Enter) to carry on."
        return "r = play this deal again · n = new deal · l = lessons · q = quit"

    def board(self) -> list[str]:
        """The middle of the screen: the clock, or help / lessons, or the pause card."""
        if self.overlay is not None:
            lines = list(self.overlay)
            return lines + [""] * max(0, BOARD_HEIGHT + 1 - len(lines))
        if self.paused:
            blank = [""] * (BOARD_HEIGHT + 1)
            blank[6] = "PAUSED: the cards are hidden and the clock is stopped.".center(SCREEN_WIDTH).rstrip()
            return blank
        g = self.game
        current = None if self.phase in ("over", "exchange") else (
            self.revealed.from_pile if self.revealed is not None else g.current_pile)
        last = g.moves[-1] if len(g.moves) > 0 else None
        clock = draw_clock(
            g, current=current,
            in_hand=self.revealed.card if self.revealed else None,
            hand_from=self.revealed.from_pile if self.revealed else None,
            lifted=self.revealed.from_pile if self.revealed and not self._holding_exchanged() else None,
            last=last,
        )
        return clock + [LEGEND]

    def screen(self) -> str:
        """The whole screen (at most 80 columns, 23 lines with short messages)."""
        lines = [self.title(), *self.board(), self.status(), "─" * SCREEN_WIDTH]
        for message in self.messages:
            lines.extend(textwrap.wrap(message, SCREEN_WIDTH) or [""])
        lines.append(self.prompt())
        return "\n".join(lines)
