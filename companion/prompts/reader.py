"""Reading track rows: what happened at each row, in the terms the phrases and the summary need.

The rows are ``companion track --json``'s (the referee's verdicts on observed events). The referee
already judged them; this reader only follows the cards between rows — which card is in the hand,
which mistakes still wait for their fix, which row fixed which mistake — so that a phrase can name
the card ("That seven lives at seven o'clock") and the summary can say how each mistake was put
right. It never judges play itself: a flag is whatever the row's verdict says.

Pure Python: no OpenCV, no I/O.

>>> r = PlayReader()
>>> r.read({"frame": 1, "event": ["turn", 13], "verdict": "ok", "next_pile": 13}).card is None
True
>>> r.read({"frame": 2, "event": ["see", "7H"], "verdict": "ok", "next_pile": 7}).card
'7H'
>>> info = r.read({"frame": 3, "event": ["place", 5, "under"], "verdict": "WRONG_TARGET_PILE", "next_pile": 7})
>>> info.new_mistake.flag, info.new_mistake.card, [m.card for m in r.pending()]
('WRONG_TARGET_PILE', '7H', ['7H'])
>>> fixed = r.read({"frame": 9, "event": ["move", "7H", 7, "under"], "verdict": "ok", "next_pile": 7}).fixed
>>> [(m.card, m.corrected_at_frame, m.how) for m in fixed]
[('7H', 9, "moved beneath 7 o'clock")]
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from ..cards import CENTRE, Card, CardParseError
from ..rules.referee import TAKEN_BACK, Flag, pile_name

__all__ = ["Mistake", "RowInfo", "PlayReader", "TAKEN_BY_MISTAKE", "POSITION_FLAGS", "NO_FIX_FLAGS",
           "strip_reminder", "REMINDER_RE"]

#: Flags of a card that should not have been taken: fixed by putting it back face down.
TAKEN_BY_MISTAKE = frozenset({Flag.WRONG_SOURCE_PILE.value, Flag.NOT_TOP_CARD.value, Flag.PLAY_AFTER_END.value})
#: Flags of a face-up card lying in the wrong place: fixed by moving it beneath its home pile.
POSITION_FLAGS = frozenset({Flag.WRONG_TARGET_PILE.value, Flag.WRONG_SIDE.value})
#: Flags with nothing on the table to put right (the player just carries on).
NO_FIX_FLAGS = frozenset({Flag.EXCHANGE_NOT_ALLOWED.value, Flag.PREMATURE_END.value, Flag.FALSE_WIN.value})

#: The referee's reminder at the end of an ``ok`` message while a fix is pending.
REMINDER_RE = re.compile(r"\s*\(Still waiting: (?P<what>[^()]*)\)\s*$")


def strip_reminder(message: str) -> str:
    """The message without its ``(Still waiting: ...)`` tail (said separately, now and then).

    >>> strip_reminder("Good. Take the top card of 7 o'clock. (Still waiting: move the six of hearts beneath 6 o'clock.)")
    "Good. Take the top card of 7 o'clock."
    """
    return REMINDER_RE.sub("", message or "").strip()


@dataclass
class Mistake:
    """One flag raised in the game, and (once it comes) its fix.

    Mutable only inside :class:`PlayReader`, which fills in ``card`` when the card is read after
    the flag and ``corrected_at_frame``/``how`` when the fix is seen."""

    flag: str
    frame: int | None
    card: str | None = None
    pile: int | None = None  # where it happened: the pile the card went to or was taken from
    message: str = ""
    corrected_at_frame: int | None = None
    how: str | None = None
    fixable: bool = True  # False when there is nothing on the table to put right
    put_back: bool = False  # flagged as it was put back face down (on the wrong pile), not laid face up

    @property
    def needs_fix(self) -> bool:
        return self.fixable and self.flag not in NO_FIX_FLAGS

    def to_json(self) -> dict[str, Any]:
        return {"flag": self.flag, "card": self.card, "frame": self.frame, "pile": self.pile,
                "corrected_at_frame": self.corrected_at_frame, "how": self.how, "needs_fix": self.needs_fix}


@dataclass(frozen=True)
class RowInfo:
    """What one row means, beyond its verdict.

    ``kind`` is ``"event"``, ``"ask"``, ``"outcome"`` or ``"other"`` (a row this reader does not
    know, e.g. a session log's own prompt rows: ignored). ``card`` is the card the row is about
    (read, put down, moved, put back) when known; ``source`` the pile the card in hand came from;
    ``placed_ok`` is a correct placement beneath the home pile; ``fixed`` the mistakes this row put
    right; ``new_mistake`` the mistake it flagged; ``taken_back`` a card taken off the pile it was put
    back on by mistake (``source`` is then the pile it goes back on)."""

    kind: str
    row: dict[str, Any]
    event: tuple[Any, ...] = ()
    verdict: str | None = None
    message: str = ""
    next_pile: int | None = None
    frame: int | None = None
    card: str | None = None
    source: int | None = None
    placed_ok: bool = False
    placements: int = 0
    kings: int = 0
    fixed: tuple[Mistake, ...] = ()
    new_mistake: Mistake | None = None
    taken_by_mistake: bool = False
    taken_back: bool = False  # a card put back on the wrong pile, taken off it again: the fix under way

    @property
    def event_kind(self) -> str | None:
        return str(self.event[0]) if self.event else None

    @property
    def is_flag(self) -> bool:
        return self.kind == "event" and self.verdict not in (None, "ok")


@dataclass
class _Misreturn:
    """A card put back face down on the wrong pile (the referee's ``_Misreturn``): it lies on ``pile`` until
    it is taken off again and put back on ``source``, which fixes ``ids``."""

    pile: int | None
    source: int | None
    card: str | None  # None: never read
    ids: list[int]  # the mistakes that fix puts right: the wrong-pile flag, and a wrong take before it
    back: bool  # it was taken by mistake: it must go back face down, not be played


@dataclass
class _Hand:
    source: int | None
    card: str | None = None
    mistakes: list[int] = field(default_factory=list)  # indexes of taken-by-mistake flags
    placed_at: int | None = None  # put down before it could be read, at this pile
    expected: str | None = None  # the card known to be the one taken (taken back off the wrong pile)
    fixing: _Misreturn | None = None  # taken back off the wrong pile it was put back on
    back: bool = False  # must go back face down without a flag of its own (see _on_turn)

    @property
    def faulty(self) -> bool:
        return bool(self.mistakes) or self.back

    def owed(self) -> list[int]:
        """The mistakes still waiting on this card."""
        extra = self.fixing.ids if self.fixing is not None else []
        return self.mistakes + [i for i in extra if i not in self.mistakes]


@dataclass
class _State:
    hand: _Hand | None = None
    mistakes: list[Mistake] = field(default_factory=list)
    pending: dict[str, list[int]] = field(default_factory=dict)  # face-up card -> its unfixed mistakes
    taken_order: list[str] = field(default_factory=list)  # face-up cards taken by mistake, oldest first
    taken_from: dict[str, int] = field(default_factory=dict)  # face-up card taken by mistake -> its pile
    misreturned: list[_Misreturn] = field(default_factory=list)  # put back face down on the wrong pile
    reread: list[int] = field(default_factory=list)  # DUPLICATE_CARD flags waiting for a good read
    kings: set[str] = field(default_factory=set)
    placements: int = 0
    next_pile: int | None = CENTRE  # the previous row's next pile


def _card(text: Any) -> str | None:
    try:
        return str(Card.parse(str(text)))
    except (CardParseError, TypeError):
        return None


def _int(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _pile(p: int | None) -> str:
    return pile_name(p) if p is not None else "the pile it came from"


class PlayReader:
    """Follows the cards through a stream of track rows (see the module docstring).

    :meth:`read` takes one row and returns its :class:`RowInfo`; :meth:`undo` takes back the last
    row (the live companion's "undo a misread")."""

    def __init__(self) -> None:
        self._s = _State()
        self._history: list[_State] = []

    # -- state ------------------------------------------------------------------------------
    @property
    def mistakes(self) -> list[Mistake]:
        return list(self._s.mistakes)

    def pending(self) -> list[Mistake]:
        """Mistakes on the table still waiting for their fix, oldest first."""
        s = self._s
        idx = sorted({i for ids in s.pending.values() for i in ids} | set(s.reread)
                     | set(s.hand.owed() if s.hand else ()) | {i for r in s.misreturned for i in r.ids})
        return [s.mistakes[i] for i in idx]

    def misreturn_of(self, m: Mistake) -> tuple[int | None, int | None] | None:
        """For a mistake waiting on a card put back face down on the wrong pile: (the pile it lies on, the pile
        it goes back on), the first None once it is back in the hand and must go back; else None. Its fix is
        not the flag's usual one (a move, or putting back a card in the hand), so the phrases ask for this."""
        s = self._s
        i = next((k for k, x in enumerate(s.mistakes) if x is m), None)
        if i is None:
            return None
        for r in s.misreturned:
            if i in r.ids:
                return r.pile, r.source
        h = s.hand
        if h is not None and h.fixing is not None and i in h.fixing.ids and h.back:
            return None, h.source
        return None

    @property
    def placements(self) -> int:
        """Cards put beneath their home pile at the first go."""
        return self._s.placements

    @property
    def hand_card(self) -> str | None:
        """The card in the hand, once read."""
        return self._s.hand.card if self._s.hand else None

    @property
    def hand_faulty(self) -> bool:
        """The card in the hand was taken by mistake (it must go back)."""
        return bool(self._s.hand and self._s.hand.faulty)

    @property
    def hand_source(self) -> int | None:
        """The pile the card in the hand came from, where it goes back if it must: for a card taken back off
        the wrong pile it was put back on, its own pile (as the referee's message names it)."""
        return self._s.hand.source if self._s.hand else None

    def undo(self) -> bool:
        """Take back the last row read; False when there is none."""
        if not self._history:
            return False
        self._s = self._history.pop()
        return True

    # -- reading ----------------------------------------------------------------------------
    def read(self, row: dict[str, Any]) -> RowInfo:
        """Read one row (rows must come in order)."""
        if not isinstance(row, dict):
            return RowInfo("other", {})
        if "outcome" in row:
            return RowInfo("outcome", row, frame=_int(row.get("frame")))
        event = row.get("event")
        if not isinstance(event, (list, tuple)) or not event:
            return RowInfo("other", row)
        base = dict(row=row, event=tuple(event), verdict=row.get("verdict"), message=str(row.get("message") or ""),
                    next_pile=_int(row.get("next_pile")), frame=_int(row.get("frame")))
        if row.get("verdict") == "ask" or event[0] == "ask":
            return RowInfo("ask", **base, source=_int(event[1]) if len(event) > 1 else None)  # type: ignore[arg-type]
        self._history.append(copy.deepcopy(self._s))
        handler = getattr(self, f"_on_{event[0]}", None)
        extra: dict[str, Any] = handler(base) if handler else {}
        s = self._s
        s.next_pile = base["next_pile"]
        return RowInfo("event", **base, placements=s.placements, kings=len(s.kings), **extra)  # type: ignore[arg-type]

    # -- helpers ----------------------------------------------------------------------------
    def _flag(self, base: dict[str, Any], card: str | None, pile: int | None) -> tuple[int, Mistake]:
        m = Mistake(str(base["verdict"]), base["frame"], card, pile, strip_reminder(base["message"]))
        self._s.mistakes.append(m)
        return len(self._s.mistakes) - 1, m

    def _fix(self, ids: list[int], frame: int | None, how: str) -> list[Mistake]:
        out = []
        for i in ids:
            m = self._s.mistakes[i]
            if m.corrected_at_frame is None:
                m.corrected_at_frame = frame
                m.how = how
                out.append(m)
        return out

    def _pend(self, card: str, ids: list[int], taken: bool = False, source: int | None = None) -> None:
        """``card`` lies face up with mistakes ``ids`` waiting; ``taken``: it must go back face down (on
        ``source``) even without a taken-by-mistake flag among them."""
        s = self._s
        s.pending.setdefault(card, []).extend(i for i in ids if i not in s.pending.get(card, []))
        if (taken or any(s.mistakes[i].flag in TAKEN_BY_MISTAKE for i in ids)) and card not in s.taken_order:
            s.taken_order.append(card)
        if card in s.taken_order and source is not None:
            s.taken_from[card] = source

    def _taken_pending(self, card: str) -> bool:
        return any(self._s.mistakes[i].flag in TAKEN_BY_MISTAKE for i in self._s.pending.get(card, []))

    # -- handlers: each returns RowInfo fields ------------------------------------------------
    def _on_turn(self, b: dict[str, Any]) -> dict[str, Any]:
        s = self._s
        pile = _int(b["event"][1]) if len(b["event"]) > 1 else None
        v = b["verdict"]
        if v == "ok":
            r = self._taken_back(pile, b["message"])
            if r is not None:
                s.misreturned.remove(r)
                # The referee also sends back a card that was rightly taken once play has moved on from its
                # pile, without a flag; the previous row's next pile tells (None: the game is over).
                back = r.back or s.next_pile != r.source
                s.hand = _Hand(r.source, expected=r.card, fixing=r, back=back)
                return {"source": r.source, "card": r.card, "taken_back": True, "taken_by_mistake": back}
            s.hand = _Hand(pile)
            return {"source": pile}
        if s.hand is not None and b["message"].startswith("One card at a time"):
            i, m = self._flag(b, None, pile)  # the referee ignores the second card: so do we
            m.fixable = False
            return {"source": pile, "new_mistake": m}
        i, m = self._flag(b, None, pile)
        s.hand = _Hand(pile, mistakes=[i] if v in TAKEN_BY_MISTAKE else [])
        return {"source": pile, "new_mistake": m, "taken_by_mistake": v in TAKEN_BY_MISTAKE}

    def _taken_back(self, pile: int | None, message: str) -> _Misreturn | None:
        """The card put back on ``pile`` by mistake, when the referee says this take is that card taken off it
        again (it decides: a card put on top of it since hides it)."""
        if TAKEN_BACK not in message:
            return None
        mine = [r for r in self._s.misreturned if r.pile == pile]
        return mine[-1] if mine else None

    def _on_see(self, b: dict[str, Any]) -> dict[str, Any]:
        s = self._s
        card = _card(b["event"][1]) if len(b["event"]) > 1 else None
        v, msg = b["verdict"], b["message"]
        if v == Flag.DUPLICATE_CARD.value:
            i, m = self._flag(b, card, None)
            s.reread.append(i)
            return {"card": card, "new_mistake": m, "source": self.hand_source}
        fixed = self._fix(s.reread, b["frame"], f"shown again and read as the {Card.parse(card).name}"
                          if card else "shown again")
        s.reread.clear()
        if s.hand is None:
            if msg.startswith("I see "):  # a re-read of a face-up card
                return {"card": card, "fixed": tuple(fixed)}
            s.hand = _Hand(s.next_pile)  # the take was not observed: the referee inferred it from the pile play was at
        h = s.hand
        if h.fixing is not None and h.expected is not None and card is not None and card != h.expected:
            # Another card came off the pile the card was seen put back on: the referee takes it that the camera
            # misjudged that pile and the card went back on its own after all. Not this row's fix: kept quiet.
            r = h.fixing
            self._fix(r.ids, b["frame"], f"put back face down on {_pile(r.source)} after all")
            s.hand = h = _Hand(r.pile)
        extra: dict[str, Any] = {"card": card, "source": h.source, "fixed": tuple(fixed)}
        if v != "ok":
            i, m = self._flag(b, card, h.placed_at if v in POSITION_FLAGS and h.placed_at else h.source)
            extra["new_mistake"] = m
            if v in TAKEN_BY_MISTAKE:
                h.mistakes.append(i)
                extra["taken_by_mistake"] = True
            elif v in POSITION_FLAGS and card:  # put down before it was read, judged now
                s.hand = None
                self._pend(card, [i] + h.owed(), h.faulty, h.source)
                return extra
        if h.card is None and card is not None:
            h.card = card
            for i in h.owed():
                if s.mistakes[i].card is None:
                    s.mistakes[i].card = card
            if h.fixing is not None and h.fixing.card is None:
                h.fixing.card = card
            if not h.faulty and card.startswith("K") and v == "ok":
                s.kings.add(card)
        extra["taken_by_mistake"] = h.faulty
        if v == "ok" and msg.startswith(("Good.", "That was the fourth king")):  # put down unread, judged now: right
            s.hand = None
            if h.fixing is not None:
                extra["fixed"] += tuple(self._fix(h.owed(), b["frame"], f"taken off {_pile(h.fixing.pile)} and played"))
            else:
                s.placements += 1
                extra["placed_ok"] = True
        elif v == "ok" and " was taken by mistake" in msg and card:  # put down unread at its home
            s.hand = None
            self._pend(card, h.owed(), True, h.source)
        return extra

    def _put_down(self, b: dict[str, Any], card: str | None, pile: int | None) -> dict[str, Any]:
        s = self._s
        h = s.hand
        v = b["verdict"]
        s.hand = None
        extra: dict[str, Any] = {"card": card, "source": h.source if h else None}
        faulty = h is not None and h.faulty
        owed = h.owed() if h else []
        extra["taken_by_mistake"] = faulty
        if v == "ok":
            if faulty and card:
                self._pend(card, owed, True, h.source if h else None)
            elif h is not None and h.fixing is not None:  # taken back off the wrong pile and played: fixed too
                extra["fixed"] = tuple(self._fix(owed, b["frame"], f"taken off {_pile(h.fixing.pile)} and played"))
            else:
                s.placements += 1
                extra["placed_ok"] = True
            return extra
        i, m = self._flag(b, card, pile)
        extra["new_mistake"] = m
        if card:
            self._pend(card, owed + [i], faulty, h.source if h else None)
        return extra

    def _on_place(self, b: dict[str, Any]) -> dict[str, Any]:
        s = self._s
        pile = _int(b["event"][1]) if len(b["event"]) > 1 else None
        if s.hand is None:
            return {}
        if s.hand.card is None:  # put down before it could be read: judged when it is read
            s.hand.placed_at = pile
            return {"source": s.hand.source}
        return self._put_down(b, s.hand.card, pile)

    def _on_move(self, b: dict[str, Any]) -> dict[str, Any]:
        s = self._s
        ev = b["event"]
        card = _card(ev[1]) if len(ev) > 1 else None
        pile = _int(ev[2]) if len(ev) > 2 else None
        side = ev[3] if len(ev) > 3 else "under"
        if s.hand is not None and card is not None and s.hand.card == card:
            return self._put_down(b, card, pile)
        extra: dict[str, Any] = {"card": card}
        if b["verdict"] != "ok":
            i, m = self._flag(b, card, pile)
            extra["new_mistake"] = m
            if card:
                self._pend(card, [i])
            return extra
        if card and card in s.pending and not self._taken_pending(card) and side == "under" \
                and pile == Card.parse(card).home_pile:
            extra["fixed"] = tuple(self._fix(s.pending.pop(card), b["frame"], f"moved beneath {pile_name(pile)}"))
        return extra

    def _on_return(self, b: dict[str, Any]) -> dict[str, Any]:
        s = self._s
        pile = _int(b["event"][1]) if len(b["event"]) > 1 else None
        how = f"put back face down on {pile_name(pile)}" if pile else "put back face down"
        h = s.hand
        if b["verdict"] != "ok":
            # Put back on the wrong pile: as for the referee, the card now lies face down there, out of the
            # hand (or off the table); taking it off that pile again and putting it back fixes this flag and
            # the mistakes it still owed.
            if h is not None:
                s.hand = None
                card, ids, source, back = h.card or h.expected, h.owed(), h.source, h.faulty
                if h.card and h.card.startswith("K") and not back:
                    s.kings.discard(h.card)  # a legal card put back: its turn is undone
            else:
                card = s.taken_order.pop() if s.taken_order else None
                ids = s.pending.pop(card, []) if card else []
                source, back = s.taken_from.pop(card, None) if card else None, True
            i, m = self._flag(b, card, pile)
            m.put_back = True
            s.misreturned.append(_Misreturn(pile, source, card, ids + [i], back))
            return {"card": card, "source": source, "new_mistake": m, "taken_by_mistake": back}
        if h is not None:
            s.hand = None
            if h.card and h.card.startswith("K") and not h.faulty:
                s.kings.discard(h.card)  # a legal card put back: its turn is undone
            if h.fixing is not None:
                how = f"taken off {_pile(h.fixing.pile)} and {how}"
            fixed = self._fix(h.owed(), b["frame"], how)
            return {"card": h.card or h.expected, "source": h.source, "fixed": tuple(fixed)}
        if not s.taken_order:
            return {}
        card = s.taken_order.pop()
        s.taken_from.pop(card, None)
        fixed = self._fix(s.pending.pop(card, []), b["frame"], how)
        return {"card": card, "fixed": tuple(fixed)}

    def _on_exchange(self, b: dict[str, Any]) -> dict[str, Any]:
        pile = _int(b["event"][1]) if len(b["event"]) > 1 else None
        if b["verdict"] == "ok":
            self._s.hand = _Hand(pile)
            return {"source": pile}
        _, m = self._flag(b, None, pile)
        return {"new_mistake": m}

    def _on_declare(self, b: dict[str, Any]) -> dict[str, Any]:
        if b["verdict"] == "ok":
            return {}
        _, m = self._flag(b, None, None)
        return {"new_mistake": m}


def hour_words(p: int | None) -> str:
    """A pile for a child: ``seven o'clock``, ``the middle``.

    >>> hour_words(7), hour_words(13), hour_words(None)
    ("seven o'clock", 'the middle', 'the next pile')
    """
    if p is None:
        return "the next pile"
    if p == CENTRE:
        return "the middle"
    return f"{_HOURS[p - 1]} o'clock"


_HOURS = "one two three four five six seven eight nine ten eleven twelve".split()
