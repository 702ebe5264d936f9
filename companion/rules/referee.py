"""The referee: judges observed play where each card is known only once it is seen.

This is the camera's case. The referee is given observation events (see
:mod:`companion.rules.events`) and answers each with a :class:`Verdict`: ``ok``
with the pile to take from next, or a flag naming what is wrong and the right
action. After a flag it waits for the correction (a ``move`` of the card to its
right pile and side, or a ``return`` of a wrongly taken card) and meanwhile keeps
judging the rest of play, so that one mistake is flagged once, not again at
every later card. A card put back face down on the wrong pile lies there: play
goes on, and taking it off that pile again to put it back is the correction.

It never uses the pile a card went to as evidence of what the card is: the
identity comes only from ``see`` events.

>>> ref = Referee()
>>> ref.observe(["turn", 13]).code, ref.observe(["see", "6H"]).next_pile
('ok', 6)
>>> v = ref.observe(["place", 5, "under"])
>>> v.code, v.message
('WRONG_TARGET_PILE', "The six of hearts belongs beneath 6 o'clock, not 5 o'clock. Move it beneath 6 o'clock.")
>>> ref.observe(["move", "6H", 6, "under"]).code, ref.next_pile
('ok', 6)
"""

from __future__ import annotations

import copy
import enum
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..cards import CENTRE, PILES, Card, Rank
from .errors import EventError
from .events import Event
from .game import VARIANTS


__all__ = ["Flag", "Verdict", "Referee", "pile_name", "OK"]

OK = "ok"

#: In the ``ok`` message of a turn that takes a card back off the pile it was put back on by mistake (the
#: prompt reader, which sees only verdict rows, recognises the fix under way by it).
TAKEN_BACK = " by mistake: put it back face down on "


class Flag(str, enum.Enum):
    """Mistakes the referee raises. The value is the code used in JSON and the oracle file."""

    WRONG_TARGET_PILE = "WRONG_TARGET_PILE"
    WRONG_SOURCE_PILE = "WRONG_SOURCE_PILE"
    WRONG_SIDE = "WRONG_SIDE"
    DUPLICATE_CARD = "DUPLICATE_CARD"
    NOT_TOP_CARD = "NOT_TOP_CARD"
    PLAY_AFTER_END = "PLAY_AFTER_END"
    EXCHANGE_NOT_ALLOWED = "EXCHANGE_NOT_ALLOWED"
    PREMATURE_END = "PREMATURE_END"
    FALSE_WIN = "FALSE_WIN"

    def __str__(self) -> str:
        return self.value


#: Flags of a card that should not have been taken: its fix is to put it back face down.
_TAKEN_BY_MISTAKE = (Flag.WRONG_SOURCE_PILE, Flag.NOT_TOP_CARD, Flag.PLAY_AFTER_END)


def pile_name(p: int) -> str:
    """How a pile is named to a player: ``7 o'clock`` or ``the centre``."""
    return "the centre" if p == CENTRE else f"{p} o'clock"


def _the(card: Card) -> str:
    return f"the {card.name}"


@dataclass(frozen=True)
class Verdict:
    """The referee's answer to one event: ``code`` is ``"ok"`` or a :class:`Flag` value."""

    index: int
    event: Event
    code: str
    message: str
    next_pile: int | None

    @property
    def ok(self) -> bool:
        return self.code == OK

    @property
    def flag(self) -> Flag | None:
        return None if self.ok else Flag(self.code)

    def to_json(self) -> dict[str, Any]:
        """The ``companion referee --json`` row."""
        return {"index": self.index, "verdict": self.code, "message": self.message, "next_pile": self.next_pile}


@dataclass
class _Hand:
    """A card taken from the table and not yet put down."""

    source: int
    card: Card | None = None
    fault: Flag | None = None  # set when it should not have been taken: it must go back
    expected: Card | None = None  # known identity (a card that was put back face down)
    placed: tuple[int, str] | None = None  # put down before it could be read
    phantom: bool = False  # taken from a pile we counted as empty: putting it back adds nothing
    misreturn: _Misreturn | None = None  # taken back off the wrong pile it was put back on: the fix


@dataclass
class _Misreturn:
    """A card put back face down on the wrong pile: it lies on top of ``pile`` and belongs on ``source``."""

    pile: int
    source: int
    card: Card | None  # None: never read
    fault: Flag | None  # why it was to go back (None: a legal card put back)


@dataclass
class _State:
    down: dict[int, int] = field(default_factory=lambda: {p: 4 for p in PILES})
    # cards known to lie face down on top of each pile, last on top; None for a card put back unread (it
    # hides the known ones beneath it: the next card taken there is not one of them)
    known_top: dict[int, list[Card | None]] = field(default_factory=lambda: {p: [] for p in PILES})
    where: dict[Card, tuple[int, str]] = field(default_factory=dict)  # face-up cards: pile, side
    misplaced: dict[Card, Flag] = field(default_factory=dict)  # face-up cards awaiting a correction
    hidden_known: set[Card] = field(default_factory=set)  # seen, now face down again
    hand: _Hand | None = None
    next_pile: int = CENTRE
    kings_turned: int = 0
    last_king: Card | None = None
    exchanged_king: Card | None = None
    exchange_used: bool = False
    declared: str | None = None
    pending_source: dict[Card, int] = field(default_factory=dict)  # faulty face-up card -> its pile
    unread: int = 0  # cards put face up that were never read
    # (pile it was seen taken from, pile play was at) of each card taken by mistake that the player then
    # played on from: it may have come from either, so a take from the first one counted empty settles it
    carried: list[tuple[int, int]] = field(default_factory=list)
    source_unknown: bool = False  # the last card was never read, so its home (the next pile) is unknown
    misreturned: list[_Misreturn] = field(default_factory=list)  # put back face down on the wrong pile
    # takes from a pile counted empty that no other pile could be charged with (see Referee._recount):
    # some pile counts one face-down card too many, which one unknown
    uncharged: int = 0

    @property
    def face_up(self) -> int:
        n = len(self.where) + self.unread
        if self.hand is not None and self.hand.card is not None:
            n += 1
        return n

    @property
    def face_down(self) -> int:
        # a card held face up is not face down: where the events miss or invent a take (a tracker's
        # phantom turn, a return it did not see), a pile can count a card that is known face up. The
        # cards held face up bound the count (9137 at 1080p, models: all 52 cards seen face up, pile 8
        # still counting one, and the game was declared lost "with 52 cards face up")
        known = len(self.where) + (1 if self.hand is not None and self.hand.card is not None else 0)
        return max(0, min(sum(self.down.values()) - self.uncharged, 52 - known))


class Referee:
    """Judge a stream of observation events for one game.

    ``variant`` is ``"standard"`` or ``"watch"``. Use :meth:`observe` per event,
    :meth:`pop` to take back the last one (a misread), :attr:`next_pile`,
    :meth:`is_over` and :meth:`outcome` for the state.
    """

    def __init__(self, variant: str = "standard") -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r} (use {' or '.join(VARIANTS)})")
        self.variant = variant
        self._s = _State()
        self._history: list[tuple[_State, Verdict]] = []

    # -- public state -----------------------------------------------------------------
    @property
    def verdicts(self) -> list[Verdict]:
        return [v for _, v in self._history]

    @property
    def face_up_count(self) -> int:
        return self._s.face_up

    @property
    def face_down_count(self) -> int:
        """Cards face down in all (the piles' counts, less takes no pile could be charged with)."""
        return self._s.face_down

    @property
    def face_down_counts(self) -> dict[int, int]:
        return dict(self._s.down)

    @property
    def face_down_at_most(self) -> dict[int, int]:
        """The face-down cards each pile may still hold: ``face_down_counts``, plus one at each pile a card
        played on from was seen taken at, while it may have come from where play was instead (see
        ``_played_on``). A pile counted empty here has surely no stack to put a card on top of.

        >>> ref = Referee()
        >>> for e in (["turn", 13], ["see", "AC"], ["place", 1, "under"], ["turn", 2], ["see", "3C"],
        ...           ["place", 3, "under"], ["turn", 3]):
        ...     _ = ref.observe(e)
        >>> ref.face_down_counts[2], ref.face_down_at_most[2]  # the 3C may have come from 1, not 2
        (3, 4)
        """
        out = dict(self._s.down)
        for src, _ in self._s.carried:
            out[src] += 1
        return out

    @property
    def face_up_cards(self) -> dict[Card, tuple[int, str]]:
        """Every face-up card on the table and where it lies (pile, side)."""
        return dict(self._s.where)

    @property
    def pending_corrections(self) -> list[Card | None]:
        """Cards waiting for their fix: face-up cards to move or put back, then cards put back face down on
        the wrong pile (to take off it again). None is such a card put back before it was read: it waits
        all the same, and leaving it out would report nothing to fix."""
        s = self._s
        return list(s.misplaced) + [r.card for r in s.misreturned]

    @property
    def card_in_hand(self) -> Card | None:
        return self._s.hand.card if self._s.hand else None

    @property
    def hand_source(self) -> int | None:
        """The pile the card in the hand was taken from (None when the hand is empty). For a card taken back
        off the wrong pile it was put back on, that pile, not the one it goes back on: a resumed watcher
        (:meth:`~companion.vision.watcher.Watcher.restore`) follows the hand from there, as the uninterrupted
        one did from the turn it saw there."""
        h = self._s.hand
        if h is None:
            return None
        return h.misreturn.pile if h.misreturn is not None else h.source

    @property
    def next_pile(self) -> int | None:
        """The pile the next card must be taken from (None once the game is over)."""
        s = self._s
        if self._ended():
            return None
        h = s.hand
        if h is not None and h.card is not None and h.fault is None:
            return h.card.home_pile
        if h is not None and h.fault is not None:
            return s.next_pile
        return s.next_pile

    def is_over(self) -> bool:
        """True once the fourth king is face up (and no Watch exchange is under way)."""
        return self._ended()

    @property
    def play_on_pile(self) -> int | None:
        """Where play goes on if the player plays on from the card last taken from a wrong pile: the pile of
        its rank, where it lies face up beneath (:meth:`_played_on` then adopts it as played). None when no
        such card lies there, a card is in the hand, or the game is over. The next card most likely comes
        from there (a flagged take put back goes back face down instead), though ``next_pile`` is where the
        rules say it must.

        >>> ref = Referee()
        >>> for e in (["turn", 13], ["see", "AC"], ["place", 1, "under"], ["turn", 2], ["see", "3C"]):
        ...     _ = ref.observe(e)
        >>> ref.play_on_pile is None, ref.next_pile  # the 3C is in the hand, taken at 2 while play is at 1
        (True, 1)
        >>> _ = ref.observe(["place", 3, "under"])
        >>> ref.play_on_pile, ref.next_pile
        (3, 1)
        """
        s = self._s
        if s.hand is not None or self._ended() or s.declared is not None or s.source_unknown:
            return None
        card = self._taken_lying_at_home()
        if card is None:
            return None
        home = card.home_pile
        return home if home != s.next_pile and s.down[home] > 0 else None

    def _taken_lying_at_home(self) -> Card | None:
        """The card last taken from a wrong pile, if it lies face up beneath the pile of its rank."""
        s = self._s
        taken = [c for c, f in s.misplaced.items() if f is Flag.WRONG_SOURCE_PILE]
        if not taken:
            return None
        card = taken[-1]
        return card if s.where.get(card) == (card.home_pile, "under") else None

    def can_exchange(self) -> bool:
        s = self._s
        return (self.variant == "watch" and self._ended() and not s.exchange_used
                and s.face_down > 0 and s.declared is None)

    def outcome(self) -> dict[str, Any] | None:
        """``{"won", "face_up", "last_card"}`` once over, else None."""
        if not self._ended():
            return None
        s = self._s
        return {"won": s.face_down == 0, "face_up": s.face_up,
                "last_card": str(s.last_king) if s.last_king else None}

    # -- observing --------------------------------------------------------------------
    def observe(self, event: Event | Sequence[Any]) -> Verdict:
        """Judge one event. Raises :class:`EventError` only for an event it cannot read."""
        ev = Event.from_list(event)
        before = copy.deepcopy(self._s)
        handler = getattr(self, f"_on_{ev.kind}")
        code, message = handler(ev)
        message = self._with_reminder(code, message)
        verdict = Verdict(len(self._history), ev, str(code), message, self.next_pile)
        self._history.append((before, verdict))
        return verdict

    def observe_all(self, events: Sequence[Event | Sequence[Any]]) -> list[Verdict]:
        return [self.observe(e) for e in events]

    def pop(self) -> Verdict:
        """Take back the last event (e.g. a misread); returns its verdict."""
        if not self._history:
            raise EventError("nothing to undo")
        state, verdict = self._history.pop()
        self._s = state
        return verdict

    # -- helpers ----------------------------------------------------------------------
    def _ended(self) -> bool:
        return self._s.kings_turned >= 4

    def _take_next(self) -> str:
        p = self.next_pile
        if p is None:
            return "The game is over."
        return f"Take the top card of {pile_name(p)}."

    def _with_reminder(self, code: Any, message: str) -> str:
        s = self._s
        if code != OK or not (s.misplaced or s.misreturned):
            return message
        fix = self._fix_text(next(iter(s.misplaced))) if s.misplaced else self._misreturn_text(s.misreturned[0])
        return f"{message} (Still waiting: {fix})"

    @staticmethod
    def _misreturn_text(r: _Misreturn) -> str:
        what = _the(r.card) if r.card else "the card"
        return f"take {what} off {pile_name(r.pile)} and put it back face down on {pile_name(r.source)}."

    def _fix_text(self, card: Card) -> str:
        flag = self._s.misplaced[card]
        if flag in _TAKEN_BY_MISTAKE:
            return f"put {_the(card)} back face down."
        return f"move {_the(card)} beneath {pile_name(card.home_pile)}."

    def _after_turn_message(self) -> str:
        return "Turn it over so I can read it."

    # -- event handlers: each returns (code, message) and updates the state --------------
    def _on_turn(self, ev: Event) -> tuple[Any, str]:
        s = self._s
        p = ev.pile
        assert p is not None
        if s.hand is not None and (s.hand.placed is None or s.hand.card is not None):
            held = _the(s.hand.card) if s.hand.card else "the card in your hand"
            if s.hand.fault is not None:
                action = f"put {held} back face down on {pile_name(s.hand.source)}"
            else:
                dest = pile_name(s.hand.card.home_pile) if s.hand.card else "its pile"
                action = f"put {held} beneath {dest}"
            return Flag.WRONG_SOURCE_PILE, f"One card at a time: first {action}."
        if s.hand is not None:  # put down before it could be read: it stays face up, unread
            s.unread += 1
            s.hand = None
            s.source_unknown = True
        fix = None if ev.not_top else self._misreturned_on_top(p)
        if fix is not None:
            return self._take_back(fix)
        fault: Flag | None = None
        msg = ""
        played_on = None
        # playing on from a card taken by mistake adopts it: this moves play to p (and counts a king), so
        # the checks below judge the take against the adopted state (a fourth king adopted ends the game)
        if p != s.next_pile and not s.source_unknown and not self._ended() and s.declared is None:
            played_on = self._played_on(p)
        if self._ended() or s.declared is not None:
            fault = Flag.PLAY_AFTER_END
            msg = (f"The game is over: the fourth king is up ({self._result_text()}). "
                   f"Put the card back face down on {pile_name(p)}.")
        elif p != s.next_pile and not s.source_unknown:
            fault = Flag.WRONG_SOURCE_PILE
            msg = (f"That card came from {pile_name(p)}, but the next card comes from {pile_name(s.next_pile)}. "
                   f"Put it back face down on {pile_name(p)} and take the top card of {pile_name(s.next_pile)}.")
        elif ev.not_top:
            fault = Flag.NOT_TOP_CARD
            msg = (f"That card is not the top card of {pile_name(p)}. Put it back and take the top card.")
        elif played_on is not None:
            msg = f"You played on from {_the(played_on)}, so I follow from there. "
        if s.down[p] == 0:
            self._settle_carried(p)
        if s.down[p] == 0 and fault is None and p == s.next_pile:
            self._recount(p)
        phantom = s.down[p] == 0  # nothing face down there: the card came from somewhere we cannot tell
        if phantom:
            if fault is None:
                fault = Flag.WRONG_SOURCE_PILE
                msg = (f"{pile_name(p).capitalize()} has no face-down card left. "
                       f"Put that card back where it came from; {self._take_next().lower()}")
        else:
            s.down[p] -= 1
        if fault is None:
            s.source_unknown = False
        hand = _Hand(source=p, fault=fault, phantom=phantom)
        if not ev.not_top and s.known_top[p]:
            hand.expected = s.known_top[p].pop()
            s.hidden_known.discard(hand.expected)
        s.hand = hand
        if fault is not None:
            return fault, msg
        return OK, msg + self._after_turn_message()

    def _misreturned_on_top(self, p: int) -> _Misreturn | None:
        """The card put back on ``p`` by mistake, if it is still the top face-down card there."""
        s = self._s
        mine = [r for r in s.misreturned if r.pile == p]
        if not mine:
            return None
        r = mine[-1]
        top = s.known_top[p][-1] if s.known_top[p] else None
        return r if top == r.card else None

    def _take_back(self, r: _Misreturn) -> tuple[Any, str]:
        """The card put back on the wrong pile is taken off it again: the fix under way, not a new mistake."""
        s = self._s
        s.misreturned.remove(r)
        phantom = s.down[r.pile] == 0
        if not phantom:
            s.down[r.pile] -= 1
        s.known_top[r.pile].pop()
        if r.card is not None:
            s.hidden_known.discard(r.card)
        fault = r.fault
        if fault is None and (s.next_pile != r.source or self._ended() or s.declared is not None):
            fault = Flag.WRONG_SOURCE_PILE  # a legal card, but play has moved on from its pile: it goes back
        s.hand = _Hand(source=r.source, fault=fault, expected=r.card, phantom=phantom, misreturn=r)
        what = _the(r.card) if r.card else "the card"
        return OK, f"That is {what} put on {pile_name(r.pile)}{TAKEN_BACK}{pile_name(r.source)}."

    def _played_on(self, p: int) -> Card | None:
        """The card last taken from a wrong pile, if the player played on from it instead of putting it
        back: it lies face up beneath its own pile and the next card comes from there (``p``). It is then
        taken as played: one mistake, one flag, not one at every later card (and when the take was misjudged,
        e.g. seen at the wrong pile, play is followed again)."""
        s = self._s
        card = self._taken_lying_at_home()
        if card is None or card.home_pile != p:
            return None
        del s.misplaced[card]
        src = s.pending_source.pop(card, None)
        if src is not None and src != s.next_pile:
            s.carried.append((src, s.next_pile))
        if card.rank is Rank.KING:
            s.kings_turned += 1
            s.last_king = card
        s.next_pile = p
        return card

    def _settle_carried(self, p: int) -> None:
        """A card taken from ``p``, counted empty: if a card played on from after a wrong take was seen
        taken from ``p``, it came from the pile play was at (which still counts one face down) instead."""
        s = self._s
        for k, (src, at) in enumerate(s.carried):
            if src == p and s.down[at] > 0:
                s.down[at] -= 1
                s.down[p] += 1
                del s.carried[k]
                return

    def _recount(self, p: int) -> None:
        """A card taken from ``p``, where play is, while ``p`` is counted empty: in play as the rules go
        that cannot be (each card of a pile's rank leads to one take there), so a take counted at ``p``
        before came from another pile (the camera judged a source wrong). That pile still counts the card.
        A pile with more face-down cards counted than the face-up cards allow there (4 less one for each
        card of its rank face up; the centre 3 less one for each king) is charged with it; with none, no
        pile is (9055 at 1080p: charging one at random emptied 5, and the 5D put on top of it was judged
        beneath), and the total face down is one less than the piles count. Either way the take is judged
        as any other: without this every later turn there is flagged as taken from an empty pile (9064 at
        1080p: a take misjudged at 10, then nine flags to the end of the game)."""
        s = self._s
        # (a card taken by mistake, still to go back, led to no take at its own pile)
        face_up = [c.rank.value for c in s.where if s.misplaced.get(c) not in _TAKEN_BY_MISTAKE]
        spare = [(s.down[x] - ((3 if x == CENTRE else 4) - face_up.count(x)), -x) for x in PILES
                 if x != p and not s.known_top[x]]
        best = max(spare, default=(0, 0))
        if best[0] > 0:
            s.down[-best[1]] -= 1
        else:
            s.uncharged += 1
        s.down[p] += 1

    def _on_see(self, ev: Event) -> tuple[Any, str]:
        s = self._s
        card = ev.card
        assert card is not None
        h = s.hand
        if h is None:
            if card in s.where:
                return OK, f"I see {_the(card)} on the table."  # a re-read of a face-up card
            # The take was not observed: infer it from the pile play is at.
            inferred = self._on_turn(Event.turn(s.next_pile if not self._ended() else CENTRE))
            if s.hand is None:
                return inferred
            h = s.hand
            if inferred[0] != OK:
                h.card = card
                return inferred
        if h.card is not None:
            if card == h.card:
                return OK, f"Yes, {_the(card)}. {self._place_text(card)}"
            return Flag.DUPLICATE_CARD, (f"I read {_the(h.card)} before and now {_the(card)}. "
                                         "Please show me the corner of the card again.")
        if card in s.hidden_known and card not in s.where and card != h.expected:
            self._put_back_here_after_all(card, h)
        if (card in s.where or card in s.hidden_known) and card != h.expected:
            return Flag.DUPLICATE_CARD, (f"{_the(card).capitalize()} is already on the table, so this cannot be it. "
                                         "Please show me the corner of the card again.")
        if card.rank is Rank.KING and s.kings_turned >= 4 and card != s.exchanged_king:
            return Flag.DUPLICATE_CARD, (f"All four kings are already up, so this cannot be {_the(card)}. "
                                         "Please show me the corner of the card again.")
        if h.expected is not None and card != h.expected:
            s.hidden_known.discard(h.expected)  # our memory of that pile was wrong
            if h.misreturn is not None:
                wrong = self._not_misreturned(h)
                if wrong is not None:
                    h.card = card
                    return wrong
        h.card = card
        if h.fault is None and card.rank is Rank.KING:
            s.kings_turned += 1
            s.last_king = card
            if card == s.exchanged_king:
                s.exchanged_king = None
        if h.placed is not None:  # it was put down before we could read it: judge that now
            pile, side = h.placed
            h.placed = None
            return self._put_down(card, pile, side, h)
        if h.fault is not None:
            return OK, f"That is {_the(card)}; put it back face down on {pile_name(h.source)}."
        if card.rank is Rank.KING and self._ended():
            return OK, f"{_the(card).capitalize()}: the fourth king. Put it beneath the centre."
        return OK, f"{_the(card).capitalize()}. {self._place_text(card)}"

    def _put_back_here_after_all(self, card: Card, h: _Hand) -> None:
        """A card seen put back face down on one pile is taken from another: one card cannot lie in two
        places, and a face read in the hand is surer than the pile a card was seen turned down at, so it
        went back on the pile it is taken from now (9147 and 9184 at 1080p, models: a card taken by mistake
        and put back on its own pile, judged put back on the next one, a WRONG_TARGET_PILE; when it was
        taken again where it truly lay, the reading was refused as a card "already on the table", and the
        game lost its way). The count moves to this pile; a card we knew lay here lies beneath it still.
        Not for the card a player is taking back off a wrong pile (that fix has its own path)."""
        s = self._s
        was = next((p for p in PILES if card in s.known_top[p]), None)
        if was is None or was == h.source or h.misreturn is not None:
            return
        s.known_top[was].remove(card)
        s.hidden_known.discard(card)
        s.misreturned = [r for r in s.misreturned if r.card != card]
        if s.down[was] > 0:
            s.down[was] -= 1
            if h.phantom:
                h.phantom = False  # the pile held it after all: putting it back there counts again
            else:
                s.down[h.source] += 1
        if h.expected is not None:  # it was on top of the card we knew lay here: that one is still there
            s.known_top[h.source].append(h.expected)
            s.hidden_known.add(h.expected)
            h.expected = None

    def _not_misreturned(self, h: _Hand) -> tuple[Any, str] | None:
        """The card taken off a pile a card was seen put back on by mistake is another one: that card was
        put back where it belonged after all (the camera misjudged the pile). Counts move back, and the card
        in the hand is an ordinary take from that pile; the flag if play is not there."""
        s = self._s
        r = h.misreturn
        assert r is not None and r.card is not None
        if s.down[r.pile] > 0:
            s.down[r.pile] -= 1
            s.down[r.source] += 1
        s.known_top[r.source].append(r.card)
        s.hidden_known.add(r.card)
        h.source, h.expected, h.misreturn, h.fault = r.pile, None, None, None
        p = r.pile
        if self._ended() or s.declared is not None:
            h.fault = Flag.PLAY_AFTER_END
            return h.fault, (f"The game is over: the fourth king is up ({self._result_text()}). "
                             f"Put the card back face down on {pile_name(p)}.")
        if p != s.next_pile and not s.source_unknown:
            h.fault = Flag.WRONG_SOURCE_PILE
            return h.fault, (f"That card came from {pile_name(p)}, but the next card comes from "
                             f"{pile_name(s.next_pile)}. Put it back face down on {pile_name(p)} and take the top "
                             f"card of {pile_name(s.next_pile)}.")
        s.source_unknown = False
        return None

    def _place_text(self, card: Card) -> str:
        return f"Put it beneath {pile_name(card.home_pile)}."

    def _on_place(self, ev: Event) -> tuple[Any, str]:
        s = self._s
        assert ev.pile is not None and ev.side is not None
        h = s.hand
        if h is None:
            return OK, "I saw a card put down but not where it came from; show me its corner, please."
        if h.card is None:
            h.placed = (ev.pile, ev.side)
            return OK, "Please show me the corner of that card so I can read it."
        return self._put_down(h.card, ev.pile, ev.side, h)

    def _put_down(self, card: Card, pile: int, side: str, h: _Hand | None) -> tuple[Any, str]:
        s = self._s
        s.hand = None
        s.where[card] = (pile, side)
        s.misplaced.pop(card, None)
        home = card.home_pile
        if h is not None and h.fault is not None:
            s.misplaced[card] = h.fault
            s.hidden_known.discard(card)
            self._s.pending_source[card] = h.source
            if pile != home:
                return Flag.WRONG_TARGET_PILE, (f"{_the(card).capitalize()} was taken by mistake and does not belong "
                                                f"at {pile_name(pile)}. Put it back face down on {pile_name(h.source)}.")
            # Already flagged when it was taken: one mistake, one flag. The reminder stays.
            return OK, f"{_the(card).capitalize()} was taken by mistake. Put it back face down on {pile_name(h.source)}."
        s.next_pile = home
        wrong = self._judge_position(card, pile, side)
        if wrong is not None:
            return wrong
        if self._ended():
            return OK, f"That was the fourth king. {self._end_text()}"
        return OK, f"Good. {self._take_next()}"

    def _judge_position(self, card: Card, pile: int, side: str) -> tuple[Flag, str] | None:
        """A face-up card lying at (pile, side): the flag if that is not beneath its home (it then awaits a move)."""
        home = card.home_pile
        if pile != home:
            self._s.misplaced[card] = Flag.WRONG_TARGET_PILE
            return Flag.WRONG_TARGET_PILE, (f"{_the(card).capitalize()} belongs beneath {pile_name(home)}, not "
                                            f"{pile_name(pile)}. Move it beneath {pile_name(home)}.")
        if side != "under":
            self._s.misplaced[card] = Flag.WRONG_SIDE
            return Flag.WRONG_SIDE, (f"{_the(card).capitalize()} goes face up beneath {pile_name(home)}, not on top "
                                     "of it. Slide it under the pile.")
        return None

    def _on_move(self, ev: Event) -> tuple[Any, str]:
        s = self._s
        card, pile, side = ev.card, ev.pile, ev.side
        assert card is not None and pile is not None and side is not None
        h = s.hand
        if h is not None and h.card == card:
            return self._put_down(card, pile, side, h)
        if card not in s.where:
            return OK, f"I had not seen {_the(card)} on the table; I will watch for it."
        was = s.misplaced.get(card)
        if was in _TAKEN_BY_MISTAKE:
            s.where[card] = (pile, side)
            src = self._s.pending_source.get(card, s.next_pile)
            return OK, f"{_the(card).capitalize()} was taken by mistake. Put it back face down on {pile_name(src)}."
        s.where[card] = (pile, side)
        wrong = self._judge_position(card, pile, side)
        if wrong is not None:
            return wrong
        if was is not None:
            s.misplaced.pop(card)
            if self._ended():
                return OK, f"Thank you, that is fixed. {self._end_text()}"
            return OK, f"Thank you, that is fixed. {self._take_next()}"
        return OK, f"{_the(card).capitalize()} is in its place."

    def _on_return(self, ev: Event) -> tuple[Any, str]:
        s = self._s
        p = ev.pile
        assert p is not None
        h = s.hand
        card: Card | None
        if h is not None:
            source, card = h.source, (h.card if h.card is not None else h.expected)
        else:
            faulty = [c for c, f in s.misplaced.items()
                      if f in _TAKEN_BY_MISTAKE]
            if not faulty:
                return OK, "I saw a card put back, but nothing needed to go back."
            card = faulty[-1]
            source = self._s.pending_source.get(card, p)
        # A card taken from a pile counted empty came from a pile we cannot tell: anywhere is taken as right.
        wrong_pile = p != source and not (h is not None and h.phantom)
        if wrong_pile:
            # It now lies face down on top of p: one flag, then play goes on and the fix is remembered.
            s.misreturned.append(_Misreturn(p, source, card, h.fault if h is not None else s.misplaced.get(card)))
        if h is not None:
            s.hand = None
            if h.card is not None and h.fault is None and h.card.rank is Rank.KING:
                s.kings_turned -= 1  # a legal card put back: undo its turn
        else:
            assert card is not None
            s.where.pop(card, None)
            s.misplaced.pop(card, None)
            if wrong_pile:
                s.pending_source.pop(card, None)
        if not (h is not None and h.phantom):
            s.down[p] += 1
        s.known_top[p].append(card)  # None: put back unread, on top of what we knew was there
        if card is not None:
            s.hidden_known.add(card)
        if wrong_pile:
            what = _the(card) if card else "that card"
            return Flag.WRONG_TARGET_PILE, (f"{what.capitalize()} came from {pile_name(source)}, not "
                                            f"{pile_name(p)}. Take it off {pile_name(p)} and put it back face down "
                                            f"on {pile_name(source)}.")
        if h is not None and h.misreturn is not None:
            return OK, f"Thank you, that is fixed. {self._take_next()}"
        if h is not None and h.fault is None:
            return OK, f"Card put back on {pile_name(p)}. {self._take_next()}"
        return OK, f"Thank you. {self._take_next()}"

    def _on_exchange(self, ev: Event) -> tuple[Any, str]:
        s = self._s
        p = ev.pile
        assert p is not None
        if self.variant != "watch":
            return Flag.EXCHANGE_NOT_ALLOWED, ("Exchanging the king is only allowed in the Watch variant. "
                                               + (self._end_text() if self._ended() else self._take_next()))
        if not self._ended():
            return Flag.EXCHANGE_NOT_ALLOWED, ("The king can only be exchanged after the fourth king is up. "
                                               + self._take_next())
        if s.exchange_used:
            return Flag.EXCHANGE_NOT_ALLOWED, "The king can be exchanged only once. " + self._end_text()
        if s.hand is not None:
            return Flag.EXCHANGE_NOT_ALLOWED, "Put the card in your hand down first."
        if s.face_down == 0:
            return Flag.EXCHANGE_NOT_ALLOWED, "Every card is face up: you have already won!"
        if s.down[p] == 0:
            return Flag.EXCHANGE_NOT_ALLOWED, (f"{pile_name(p).capitalize()} has no face-down card. "
                                               "Exchange the king for a face-down card of another pile.")
        king = s.last_king
        assert king is not None
        s.where.pop(king, None)
        s.misplaced.pop(king, None)
        s.exchange_used = True
        s.exchanged_king = king
        s.kings_turned -= 1
        s.hand = _Hand(source=p)
        return OK, (f"{_the(king).capitalize()} goes in that card's place, face down. "
                    "Turn the card you took over so I can read it.")

    def _on_declare(self, ev: Event) -> tuple[Any, str]:
        s = self._s
        claim = ev.claim
        if not self._ended():
            return Flag.PREMATURE_END, (f"The game is not over yet: only {s.kings_turned} king(s) are up. "
                                        + self._take_next())
        won = s.face_down == 0
        s.declared = claim
        if claim == "win" and not won:
            return Flag.FALSE_WIN, (f"Not quite: {s.face_down} card(s) are still face down, so the game is lost "
                                    f"with {s.face_up} cards face up.")
        if claim == "loss" and won:
            return OK, "Look again: every card is face up. You won!"
        return OK, self._end_text()

    # -- texts ------------------------------------------------------------------------
    def _result_text(self) -> str:
        s = self._s
        if s.face_down == 0:
            return "you won with all 52 cards face up"
        return f"lost with {s.face_up} cards face up"

    def _end_text(self) -> str:
        s = self._s
        if s.face_down == 0:
            return "All 52 cards are face up: you won!"
        text = f"Game over: {s.face_down} card(s) still face down, {s.face_up} face up."
        if self.can_exchange():
            text += " (Watch: you may exchange the king for any face-down card, once.)"
        return text
