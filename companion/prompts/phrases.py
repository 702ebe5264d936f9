"""What to say and show for each track row: concise for adults, short and friendly for a child.

A :class:`Phraser` is fed the rows of ``companion track --json`` in order (it follows the cards with
a :class:`~companion.prompts.reader.PlayReader`, so a child's correction can name the card and its
pile) and answers each with a few :class:`Prompt` values, most urgent first. Normal mode stays close
to the referee's own messages, because those are already tested to say what is wrong and what to do;
child mode rewrites them in a child's words, praises now and then, names the right pile in each
correction and thanks the child when the fix comes.

Priorities order the speech queue (0 first): 0 a mistake alert, 1 a question or something the
player asked for (ask, hint, result), 2 routine (the next pile), 3 chatter (praise, status).

>>> ph = Phraser(child=True)
>>> _ = ph.for_row({"frame": 1, "event": ["turn", 13], "verdict": "ok", "message": "", "next_pile": 13})
>>> [p.text for p in ph.for_row({"frame": 2, "event": ["see", "7H"], "verdict": "ok", "next_pile": 7,
...                               "message": "The seven of hearts. Put it beneath 7 o'clock."})]
["A seven! It goes under seven o'clock."]
>>> [p.text for p in ph.for_row({"frame": 3, "event": ["place", 5, "under"], "verdict": "WRONG_TARGET_PILE",
...      "next_pile": 7, "message": "The seven of hearts belongs beneath 7 o'clock, not 5 o'clock. ..."})]
["That seven lives at seven o'clock. Can you move it?"]
>>> [p.text for p in ph.for_row({"frame": 9, "event": ["move", "7H", 7, "under"], "verdict": "ok",
...      "next_pile": 7, "message": "Thank you, that is fixed. Take the top card of 7 o'clock."})]
["Thank you! Now take a card from seven o'clock."]
>>> Phraser(lang="fr")
Traceback (most recent call last):
...
ValueError: unsupported language 'fr' (supported: en)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..cards import CENTRE, Card, CardParseError, Rank
from ..rules.referee import Flag, pile_name
from .reader import POSITION_FLAGS, TAKEN_BY_MISTAKE, PlayReader, RowInfo, hour_words, strip_reminder, REMINDER_RE

__all__ = ["Prompt", "Phraser", "LANGUAGES", "PRIORITY", "KINDS"]

#: Languages with phrases. Adding one means translating this module's texts.
LANGUAGES = ("en",)
#: The default priority of each prompt kind (0 is spoken first).
PRIORITY = {"alert": 0, "ask": 1, "hint": 1, "result": 1, "next": 2, "praise": 3, "status": 3}
KINDS = tuple(PRIORITY)

#: In child mode, a right placement is praised every this many placements (the first one too).
PRAISE_EVERY = 3
#: A pending fix is reminded at most once per this many ok rows (the referee repeats it on every row);
#: each later reminder of the same fix waits twice as long as the one before (4, 8, 16, ... rows), so a
#: fix the player does not make (or a flag that was the camera's mistake) stops being nagged about,
#: while the message on screen still carries it. A new flag, or another fix pending, starts again at 4.
REMIND_EVERY = 4
_PRAISE = ("Well done!", "Great!", "Nice one!", "Super!", "Brilliant!", "Good job!")
_KING_COUNT = ("", "first", "second", "third", "fourth")


@dataclass(frozen=True)
class Prompt:
    """One thing to say and show. ``frame`` is the row's frame, for the transcript and the log."""

    text: str
    priority: int
    kind: str
    frame: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in PRIORITY:
            raise ValueError(f"unknown prompt kind {self.kind!r} (one of {', '.join(KINDS)})")

    @classmethod
    def of(cls, kind: str, text: str, frame: int | None = None) -> "Prompt":
        """A prompt with its kind's default priority.

        >>> Prompt.of("alert", "Put it back.")
        Prompt(text='Put it back.', priority=0, kind='alert', frame=None)
        """
        if kind not in PRIORITY:
            raise ValueError(f"unknown prompt kind {kind!r} (one of {', '.join(KINDS)})")
        return cls(text, PRIORITY[kind], kind, frame)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "priority": self.priority, "kind": self.kind, "frame": self.frame}


def _rank_of(card: str | None) -> Rank | None:
    try:
        return Card.parse(card).rank if card else None
    except CardParseError:
        return None


def _that(card: str | None) -> str:
    """``That seven`` / ``That card``."""
    r = _rank_of(card)
    return f"That {r.word}" if r else "That card"


def _a(word: str) -> str:
    return ("An " if word[0] in "aeiou" else "A ") + word


def _num(pattern: str, text: str) -> int | None:
    m = re.search(pattern, text)
    return int(m.group(1)) if m else None


class Phraser:
    """Turns track rows into prompts (see the module docstring). Rows must come in order; one
    Phraser per game. ``child`` selects child mode; ``lang`` must be one of :data:`LANGUAGES`."""

    def __init__(self, child: bool = False, lang: str = "en") -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"unsupported language {lang!r} (supported: {', '.join(LANGUAGES)})")
        self.child = child
        self.lang = lang
        self.reader = PlayReader()
        self._turns = 0
        self._since_remind = 0
        self._remind_gap = REMIND_EVERY
        self._reminding: str | None = None  # the fix the last reminder was about

    # -- public -----------------------------------------------------------------------------
    def for_row(self, row: dict[str, Any]) -> list[Prompt]:
        """What to say and show for one row, most urgent first ([] for a row best left silent).

        Usually one prompt; a reminder of a pending fix comes before the row's own prompt. On screen,
        show the first (the most urgent) or all of them; the speaker orders them by priority anyway."""
        info = self.reader.read(row)
        if info.kind == "outcome":
            return [self._result(row, info.frame)]
        if info.kind == "ask":
            return [self._ask(info)]
        if info.kind != "event":
            return []
        if info.is_flag:
            self._restart_reminders()
            return [Prompt.of("alert", self._alert(info), info.frame)]
        out = [p for p in self._ok(info) if p.text.strip()]  # a row without a message says nothing
        reminder = self._reminder(info)
        if reminder is not None:
            out.insert(0, reminder)
        return out

    def hint(self, next_pile: int | None) -> Prompt:
        """The ``h`` key: the fix still waiting if there is one, else where the card in hand goes, else
        which pile to take from.

        >>> Phraser().hint(7).text, Phraser(child=True).hint(13).text, Phraser().hint(None).text
        ("Take the top card of 7 o'clock.", 'Take the top card from the middle.', 'The game is over.')
        """
        pending = self.reader.pending()
        if pending:
            return Prompt.of("hint", self._fix_text(pending[0]))
        card = self.reader.hand_card
        if card and not self.reader.hand_faulty:
            c = Card.parse(card)
            if self.child:
                return Prompt.of("hint", f"{_a(c.rank.word)}: it goes under {hour_words(c.home_pile)}.")
            return Prompt.of("hint", f"Put the {c.name} beneath {pile_name(c.home_pile)}.")
        if next_pile is None:
            return Prompt.of("hint", "The game is over." if not self.child else "The game is finished!")
        if self.child:
            where = "from the middle" if next_pile == CENTRE else f"at {hour_words(next_pile)}"
            return Prompt.of("hint", f"Take the top card {where}.")
        return Prompt.of("hint", f"Take the top card of {pile_name(next_pile)}.")

    def undo(self) -> None:
        """Forget the last row (the app undid its verdict)."""
        self.reader.undo()

    # -- the parts ----------------------------------------------------------------------------
    def _take_next(self, p: int | None) -> str:
        if p is None:
            return "The game is finished!"
        if p == CENTRE:
            return "Now take a card from the middle."
        return f"Now take a card from {hour_words(p)}."

    def _next_again(self, p: int) -> str:
        """Another way to say :meth:`_take_next`, so a child does not hear the same words every time."""
        return "Next, the top card in the middle." if p == CENTRE else f"Next, the top card at {hour_words(p)}."

    def _ok(self, info: RowInfo) -> list[Prompt]:
        kind, msg, f = info.event_kind, strip_reminder(info.message), info.frame
        child = self.child
        if info.fixed and any(m.needs_fix and m.flag != Flag.DUPLICATE_CARD.value for m in info.fixed):
            if child:
                return [Prompt("Thank you! " + self._take_next(info.next_pile), 2, "praise", f)]
            return [Prompt(msg, 2, "praise", f)]
        if kind == "turn":
            self._turns += 1
            if info.taken_back:  # the card put back on the wrong pile, taken off it again: say where it goes
                if child:
                    return [Prompt.of("hint", f"Yes, that's the one! Now put it back face down on "
                                              f"{self._where(info.source)}.", f)]
                return [Prompt.of("hint", msg, f)]
            if child and self._turns <= 2:
                return [Prompt.of("next", "Turn it over so I can see it!", f)]
            return []
        if kind == "see":
            return self._seen(info, msg)
        if kind in ("place", "move"):
            if info.placed_ok:
                return self._placed(info, msg)
            if " was taken by mistake" in msg:
                return [Prompt.of("hint", self._taken_text(msg), f)]
            if msg.startswith(("Please show me the corner", "I saw a card put down")):
                return [Prompt.of("ask", "Can you show me the corner of that card?" if child else msg, f)]
            return []  # a card already in its place, or one never seen: nothing to say
        if kind == "return":
            if msg.startswith("Card put back"):
                return [Prompt.of("next", ("OK, back it goes. " + self._take_next(info.next_pile)) if child else msg, f)]
            return []
        if kind == "exchange":
            return [Prompt.of("next", "Swap done! Now turn over the card you took." if child else msg, f)]
        if kind == "declare" and msg.startswith("Look again"):
            return [Prompt.of("status", msg, f)]
        return []

    @staticmethod
    def _where(p: int | None) -> str:
        """A pile in a child's words, or where the card came from when that is not known."""
        return hour_words(p) if p is not None else "the pile it came from"

    def _source_of(self, msg: str) -> int | None:
        m = re.search(r"on (\d+) o'clock|on the centre", msg)
        if not m:
            return self.reader.hand_source
        return int(m.group(1)) if m.group(1) else CENTRE

    def _taken_text(self, msg: str) -> str:
        """The hint for a card the referee says was taken by mistake."""
        if not self.child:
            return msg
        return f"That card was taken by mistake. Please put it back face down on {hour_words(self._source_of(msg))}."

    def _seen(self, info: RowInfo, msg: str) -> list[Prompt]:
        f, card = info.frame, info.card
        if info.placed_ok:  # a card put down before it was read, judged right once read
            return self._placed(info, msg)
        if msg.startswith(("I see ", "Yes, ")):
            return []  # a re-read: nothing new to say
        if info.taken_by_mistake:
            src = info.source
            if self.child:
                return [Prompt.of("hint", f"{_that(card)} needs to go back, face down, on {hour_words(src)}.", f)]
            return [Prompt.of("hint", msg, f)]
        if " was taken by mistake" in msg:
            return [Prompt.of("hint", self._taken_text(msg), f)]
        if not self.child:
            return [Prompt.of("next", msg, f)]
        r = _rank_of(card)
        if r is None:
            return [Prompt.of("next", msg, f)]
        if r is Rank.KING:
            n = info.kings
            if "fourth king" in msg or n >= 4:
                return [Prompt.of("next", "The fourth king! Put it in the middle.", f)]
            which = f" That's the {_KING_COUNT[n]} king." if 0 < n < 4 else ""
            return [Prompt.of("next", f"A king! Kings go in the middle.{which}", f)]
        if info.source == r.value:
            return [Prompt.of("next", f"{_a(r.word)} from {hour_words(r.value)}! It goes under its own pile.", f)]
        return [Prompt.of("next", f"{_a(r.word)}! It goes under {hour_words(r.value)}.", f)]

    def _placed(self, info: RowInfo, msg: str) -> list[Prompt]:
        f = info.frame
        if msg.startswith("That was the fourth king"):
            if "exchange the king" in msg:  # Watch: one prompt, so the offer is both said and shown
                return [Prompt.of("hint", "That's the fourth king! You may swap it once for any face-down card."
                                  if self.child else
                                  "That was the fourth king. Watch: you may exchange it for any face-down card, once.",
                                  f)]
            return [Prompt.of("next", "That's the fourth king: the game is over!" if self.child
                              else "That was the fourth king.", f)]
        if not self.child:
            return [Prompt.of("next", msg, f)]
        n = info.placements
        text = self._take_next(info.next_pile) if n % 2 or info.next_pile is None else self._next_again(info.next_pile)
        if n % PRAISE_EVERY == 1 or PRAISE_EVERY == 1:
            text = f"{_PRAISE[(n // PRAISE_EVERY) % len(_PRAISE)]} {text}"
        return [Prompt.of("next", text, f)]

    def _restart_reminders(self) -> None:
        self._since_remind, self._remind_gap = 0, REMIND_EVERY

    def _reminder(self, info: RowInfo) -> Prompt | None:
        m = REMINDER_RE.search(info.message or "")
        if not m:
            self._restart_reminders()
            return None
        what = m.group("what").strip()
        if what != self._reminding:  # another fix pending: it gets the first gap again
            self._reminding, self._remind_gap = what, REMIND_EVERY
        self._since_remind += 1
        if self._since_remind < self._remind_gap:
            return None
        self._since_remind = 0
        self._remind_gap *= 2
        pending = self.reader.pending()
        if self.child and pending:
            fix = self._fix_text(pending[0])
            return Prompt.of("hint", "Don't forget: " + fix[0].lower() + fix[1:], info.frame)
        return Prompt.of("hint", f"Still waiting: {what}", info.frame)

    def _fix_text(self, m: Any) -> str:
        """How to put a pending mistake right."""
        card = m.card
        if m.flag == Flag.DUPLICATE_CARD.value:
            return ("Can you show me the corner of the card again?" if self.child
                    else "Please show me the corner of the card again.")
        wrong = self.reader.misreturn_of(m)
        if wrong is not None and wrong[0] is not None:  # it lies face down on the wrong pile
            on, to = wrong
            if self.child:
                r = _rank_of(card)
                return (f"Take {'that ' + r.word if r else 'that card'} off {hour_words(on)} and put it back "
                        f"face down on {self._where(to)}.")
            what = f"the {Card.parse(card).name}" if card else "the card"
            return (f"Take {what} off {pile_name(on)} and put it back face down on "
                    f"{pile_name(to) if to is not None else 'the pile it came from'}.")
        # taken off it again (wrong[0] None), it goes back face down on its own pile, like a card taken by mistake
        if wrong is not None or m.flag in TAKEN_BY_MISTAKE or (m.flag in POSITION_FLAGS and self._is_taken(card)):
            src = wrong[1] if wrong is not None else self._source_for(m)
            if self.child:
                r = _rank_of(card)
                return f"Put {'that ' + r.word if r else 'that card'} back face down on {hour_words(src)}."
            what = f"the {Card.parse(card).name}" if card else "that card"
            return f"Put {what} back face down on {pile_name(src) if src else 'the pile it came from'}."
        c = Card.parse(card) if card else None
        if c is None:
            return "Put the card beneath its own pile."
        if self.child:
            return f"The {c.rank.word} goes under {hour_words(c.home_pile)}."
        return f"Move the {c.name} beneath {pile_name(c.home_pile)}."

    def _is_taken(self, card: str | None) -> bool:
        return any(m.card == card and m.flag in TAKEN_BY_MISTAKE and m.corrected_at_frame is None
                   for m in self.reader.mistakes)

    def _source_for(self, m: Any) -> int | None:
        for x in self.reader.mistakes:
            if x.card == m.card and x.flag in TAKEN_BY_MISTAKE:
                return x.pile
        return m.pile

    # -- alerts -------------------------------------------------------------------------------
    def _alert(self, info: RowInfo) -> str:
        msg = strip_reminder(info.message)
        if not self.child:
            return msg or f"Mistake: {info.verdict}."
        flag, card, ev = info.verdict, info.card, info.event
        pile = ev[1] if len(ev) > 1 and isinstance(ev[1], int) else None
        if flag == Flag.WRONG_TARGET_PILE.value:
            if info.event_kind == "return":  # it lies face down on the wrong pile: name both piles
                src = info.source if info.source is not None else _num(r"came from (\d+) o'clock", msg)
                src = src if src is not None else (CENTRE if "came from the centre" in msg else None)
                return (f"{_that(card)} came from {self._where(src)}. Can you take it off "
                        f"{self._where(pile)} and put it back there, face down?")
            if "was taken by mistake" in msg or info.taken_by_mistake:
                src = self._source_of(msg) if "came from" not in msg else _num(r"came from (\d+) o'clock", msg)
                src = src if src is not None else (CENTRE if "came from the centre" in msg else None)
                return f"That card came from {hour_words(src)}. Please put it back there, face down."
            r = _rank_of(card)
            if r is None:
                return "That card lives at another pile. Can you move it?"
            return f"{_that(card)} lives {'in the middle' if r is Rank.KING else 'at ' + hour_words(r.value)}. " \
                   "Can you move it?"
        if flag == Flag.WRONG_SIDE.value:
            r = _rank_of(card)
            where = hour_words(r.value) if r else "its pile"
            return f"{_that(card)} goes under the pile at {where}, not on top. Can you slide it under?" \
                if r is not Rank.KING else f"{_that(card)} goes under the middle pile, not on top. Can you slide it under?"
        if flag == Flag.WRONG_SOURCE_PILE.value:
            if msg.startswith("One card at a time"):
                held = self.reader.hand_card
                if held and not self.reader.hand_faulty:
                    r = Card.parse(held).rank
                    return f"One card at a time! First put the {r.word} under {hour_words(r.value)}."
                return "One card at a time! First put the other card back."
            if "has no face-down card left" in msg:
                return (f"There are no cards left to turn at {hour_words(pile)}. "
                        "Please put that card back where it came from.")
            return (f"Oops, that card is from {hour_words(pile)}. The next card comes from "
                    f"{hour_words(info.next_pile)}. Can you put it back, face down?")
        if flag == Flag.NOT_TOP_CARD.value:
            return "Take the card from the top of the pile, please. Can you put that one back?"
        if flag == Flag.PLAY_AFTER_END.value:
            return "The game is finished! Please put that card back, face down."
        if flag == Flag.DUPLICATE_CARD.value:
            return "Hmm, I got muddled. Can you show me the corner of the card again?"
        if flag == Flag.EXCHANGE_NOT_ALLOWED.value:
            if msg.startswith("Exchanging the king is only allowed"):
                return "In this game we don't swap the king."
            if msg.startswith("The king can only be exchanged after"):
                return "You can swap the king only after the fourth king comes up."
            if msg.startswith("The king can be exchanged only once"):
                return "You can swap the king only once."
            if msg.startswith("Put the card in your hand down first"):
                return "Put the card in your hand down first."
            if msg.startswith("Every card is face up"):
                return "Every card is face up: you won already!"
            return "That pile has no face-down cards. Pick another pile."
        if flag == Flag.PREMATURE_END.value:
            return f"Not yet! The game goes on. {self._take_next(info.next_pile)}"
        if flag == Flag.FALSE_WIN.value:
            n = _num(r"(\d+) card\(s\) are still face down", msg)
            some = f"{n} cards are" if n and n > 1 else ("1 card is" if n == 1 else "Some cards are")
            return f"So close! {some} still face down, so the clock wins this time."
        return msg

    def _ask(self, info: RowInfo) -> Prompt:
        if not self.child:
            return Prompt.of("ask", info.message or "Please show me the corner of the card.", info.frame)
        p = info.source
        where = "" if p is None else (" in the middle" if p == CENTRE else f" at {hour_words(p)}")
        return Prompt.of("ask", f"I can't read the card{where}. Can you show me its corner?", info.frame)

    def _result(self, row: dict[str, Any], frame: int | None) -> Prompt:
        out = row.get("outcome")
        if isinstance(out, dict):
            won, n = bool(out.get("won")), out.get("face_up")
            if self.child:
                text = ("You won! Every card is face up. Hooray!" if won else
                        f"The clock won this time. You turned {n} cards face up. Well played!")
            else:
                text = "You won: all 52 cards face up." if won else f"Game over: lost with {n} of 52 cards face up."
        else:
            state = row.get("state") if isinstance(row.get("state"), dict) else {}
            n = state.get("face_up")
            tail = f" {n} cards face up so far." if isinstance(n, int) else ""
            text = ("We stopped before the end." if self.child else "Game stopped before the end.") + tail
        return Prompt.of("result", text, frame)
