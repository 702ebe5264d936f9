"""The end-of-game summary: the result, the progress record, each mistake and how it was put right.

Fed every row of the game (the rows of ``companion track --json`` or of a session log; rows it does
not know, such as a log's prompt rows, are ignored), so it can be kept up to date during play and
printed at the end, or rebuilt from a log afterwards.

>>> s = GameSummary()
>>> for row in [{"frame": 0, "time": 0.0, "event": ["turn", 13], "verdict": "ok", "next_pile": 13},
...             {"frame": 5, "time": 0.5, "event": ["see", "7H"], "verdict": "ok", "next_pile": 7},
...             {"frame": 9, "time": 1.0, "event": ["place", 6, "under"], "verdict": "WRONG_TARGET_PILE",
...              "next_pile": 7},
...             {"frame": 30, "time": 3.0, "event": ["move", "7H", 7, "under"], "verdict": "ok", "next_pile": 7},
...             {"outcome": "unfinished", "state": {"face_up": 1}}]:
...     s.add(row)
>>> j = s.to_json()
>>> j["result"], j["face_up"], j["seconds"], j["mistakes"][0]["how"]
('unfinished', 1, 3.0, "moved beneath 7 o'clock")
>>> print(s.text())
Game stopped before the end: 1 card face up.
Time: 3 s.
1 mistake, corrected:
- frame 9 (0:01): the seven of hearts put beneath the wrong pile: moved beneath 7 o'clock.
"""

from __future__ import annotations

from typing import Any

from ..cards import Card, CardParseError
from ..rules.referee import Flag
from .reader import PlayReader

__all__ = ["GameSummary", "FLAG_WORDS"]

#: What each flag means, as a phrase after the card (``the seven of hearts put on top of its pile``).
FLAG_WORDS = {
    Flag.WRONG_TARGET_PILE.value: "put beneath the wrong pile",
    Flag.WRONG_SOURCE_PILE.value: "taken from the wrong pile",
    Flag.WRONG_SIDE.value: "put on top of its pile instead of beneath",
    Flag.DUPLICATE_CARD.value: "read as a card already face up",
    Flag.NOT_TOP_CARD.value: "taken from below the top of a pile",
    Flag.PLAY_AFTER_END.value: "taken after the game had ended",
    Flag.EXCHANGE_NOT_ALLOWED.value: "an exchange of the king that was not allowed",
    Flag.PREMATURE_END.value: "the end announced before the fourth king",
    Flag.FALSE_WIN.value: "a win announced with cards still face down",
}
#: Child-mode words for the same.
_CHILD_WORDS = {
    Flag.WRONG_TARGET_PILE.value: "went to the wrong pile",
    Flag.WRONG_SOURCE_PILE.value: "came from the wrong pile",
    Flag.WRONG_SIDE.value: "went on top instead of under",
    Flag.DUPLICATE_CARD.value: "needed a second look",
    Flag.NOT_TOP_CARD.value: "was not the top card",
    Flag.PLAY_AFTER_END.value: "was taken after the end",
    Flag.EXCHANGE_NOT_ALLOWED.value: "a king swap that was not allowed",
    Flag.PREMATURE_END.value: "stopping too early",
    Flag.FALSE_WIN.value: "saying 'won' too soon",
}
#: A card flagged as it was put back face down on the wrong pile (``Mistake.put_back``).
_PUT_BACK_WORDS, _PUT_BACK_CHILD = "put back face down on the wrong pile", "went back on the wrong pile"
_NO_CARD = {Flag.EXCHANGE_NOT_ALLOWED.value, Flag.PREMATURE_END.value, Flag.FALSE_WIN.value}


def _clock(seconds: float | None) -> str:
    """``1:05`` from 65 seconds."""
    if seconds is None:
        return "?"
    s = int(round(seconds))
    return f"{s // 60}:{s % 60:02d}"


def _duration(seconds: float) -> str:
    """``3 min 12 s`` / ``45 s``.

    >>> _duration(192.4), _duration(45)
    ('3 min 12 s', '45 s')
    """
    s = int(round(seconds))
    return f"{s // 60} min {s % 60} s" if s >= 60 else f"{s} s"


def _card_name(code: str | None) -> str | None:
    try:
        return Card.parse(code).name if code else None
    except CardParseError:
        return None


class GameSummary:
    """Collects a game's rows; :meth:`to_json` and :meth:`text` give the summary at any time."""

    def __init__(self) -> None:
        self.reader = PlayReader()
        self.asks = 0
        self.rows = 0
        self.first_time: float | None = None
        self.last_time: float | None = None
        self.first_frame: int | None = None
        self.outcome: dict[str, Any] | None = None
        self.unfinished_state: dict[str, Any] | None = None
        self.frame_times: dict[int, float] = {}

    def add(self, row: dict[str, Any]) -> None:
        """Take one row (in order)."""
        if not isinstance(row, dict):
            return
        t = row.get("time")
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            self.first_time = float(t) if self.first_time is None else min(self.first_time, float(t))
            self.last_time = float(t) if self.last_time is None else max(self.last_time, float(t))
            if isinstance(row.get("frame"), int):
                self.frame_times[row["frame"]] = float(t)
        if self.first_frame is None and isinstance(row.get("frame"), int):
            self.first_frame = row["frame"]
        info = self.reader.read(row)
        if info.kind == "other":
            return
        self.rows += 1
        if info.kind == "ask":
            self.asks += 1
        elif info.kind == "outcome":
            out = row.get("outcome")
            if isinstance(out, dict):
                self.outcome = dict(out)
                self.unfinished_state = None
            else:
                self.outcome = None
                st = row.get("state")
                self.unfinished_state = dict(st) if isinstance(st, dict) else {}

    def undo(self) -> None:
        """Forget the last event row (the app undid its verdict)."""
        self.reader.undo()

    # -- views ------------------------------------------------------------------------------
    @property
    def result(self) -> str:
        """``won``, ``lost`` or ``unfinished``."""
        if self.outcome is None:
            return "unfinished"
        return "won" if self.outcome.get("won") else "lost"

    @property
    def face_up(self) -> int | None:
        """The progress record (cards face up at the end), when known."""
        if self.outcome is not None:
            return self.outcome.get("face_up")
        if self.unfinished_state is not None:
            n = self.unfinished_state.get("face_up")
            return n if isinstance(n, int) else None
        return None

    @property
    def seconds(self) -> float:
        if self.first_time is None or self.last_time is None:
            return 0.0
        return round(self.last_time - self.first_time, 3)

    def to_json(self) -> dict[str, Any]:
        """``result``, ``face_up``, ``last_card``, ``mistakes`` ([{flag, card, frame, pile,
        corrected_at_frame, how, needs_fix}]; ``needs_fix`` is false for a mistake with nothing on the
        table to put right), ``corrected`` (how many), ``asks``, ``placements`` (cards put
        right first time) and ``seconds`` (first to last row)."""
        mistakes = [m.to_json() for m in self.reader.mistakes]
        return {
            "result": self.result,
            "face_up": self.face_up,
            "last_card": (self.outcome or {}).get("last_card"),
            "mistakes": mistakes,
            "corrected": sum(1 for m in mistakes if m["corrected_at_frame"] is not None),
            "asks": self.asks,
            "placements": self.reader.placements,
            "seconds": self.seconds,
        }

    def _when(self, frame: int | None) -> str:
        if frame is None:
            return "?"
        t = self.frame_times.get(frame)
        if t is None or self.first_time is None:
            return f"frame {frame}"
        return f"frame {frame} ({_clock(t - self.first_time)})"

    def text(self, child: bool = False) -> str:
        """A few lines to read at the end (the parent's version, or a child's with ``child``)."""
        j = self.to_json()
        n = j["face_up"]
        lines: list[str] = []
        if child:
            if j["result"] == "won":
                lines.append("You won! All 52 cards are face up.")
            elif j["result"] == "lost":
                lines.append(f"The clock won this time. You turned {n} of 52 cards face up: that's your score to beat!")
            else:
                lines.append("We stopped before the end." + (f" You turned {n} cards face up." if n else ""))
            if self.seconds >= 1:
                lines.append(f"You played for {_duration(self.seconds)}.")
            ms = j["mistakes"]
            fixed = [m for m in ms if m["corrected_at_frame"] is not None]
            if not ms:
                lines.append("No mistakes at all. Brilliant!")
            else:
                lines.append(f"You fixed {len(fixed)} of {len(ms)} mix-up{'s' if len(ms) != 1 else ''}:"
                             if fixed else f"{len(ms)} mix-up{'s' if len(ms) != 1 else ''}:")
                for m, x in zip(ms, self.reader.mistakes):
                    lines.append("- " + self._child_line(m, x.put_back))
            return "\n".join(lines)
        if j["result"] == "won":
            lines.append("Won: all 52 cards face up.")
        elif j["result"] == "lost":
            last = _card_name(j["last_card"])
            lines.append(f"Lost with {n} of 52 cards face up" + (f" (last card: the {last})." if last else "."))
        else:
            lines.append("Game stopped before the end" + (f": {n} card{'s' if n != 1 else ''} face up." if n is not None
                                                          else "."))
        lines.append(f"Time: {_duration(self.seconds)}.")
        ms = j["mistakes"]
        if not ms:
            lines.append("No mistakes.")
        else:
            needing = [m for m in ms if m["needs_fix"]]
            fixed = [m for m in needing if m["corrected_at_frame"] is not None]
            plural = "s" if len(ms) != 1 else ""
            if needing and len(fixed) == len(needing):
                state = "all corrected" if len(ms) > 1 else "corrected"
            else:
                state = f"{len(fixed)} of {len(needing)} corrected"
            lines.append(f"{len(ms)} mistake{plural}, {state}:")
            for m, x in zip(ms, self.reader.mistakes):
                lines.append("- " + self._line(m, x.put_back))
        if self.asks:
            lines.append(f"Asked to show a card's corner {self.asks} time{'s' if self.asks != 1 else ''}.")
        return "\n".join(lines)

    def _line(self, m: dict[str, Any], put_back: bool = False) -> str:
        words = _PUT_BACK_WORDS if put_back else FLAG_WORDS.get(m["flag"], m["flag"])
        name = _card_name(m["card"])
        what = words if m["flag"] in _NO_CARD else f"{'the ' + name if name else 'a card'} {words}"
        if m["corrected_at_frame"] is not None:
            tail = f": {m['how']}." if m["how"] else ": corrected."
        elif not m["needs_fix"]:
            tail = "."
        else:
            tail = ": not corrected."
        return f"{self._when(m['frame'])}: {what}{tail}"

    def _child_line(self, m: dict[str, Any], put_back: bool = False) -> str:
        words = _PUT_BACK_CHILD if put_back else _CHILD_WORDS.get(m["flag"], m["flag"])
        name = _card_name(m["card"])
        if m["flag"] in _NO_CARD:
            return words[0].upper() + words[1:] + "."
        what = f"The {name.split(' of ')[0]}" if name else "A card"
        fixed = " You fixed it!" if m["corrected_at_frame"] is not None and m["flag"] != Flag.DUPLICATE_CARD.value \
            else ""
        return f"{what} {words}.{fixed}"
