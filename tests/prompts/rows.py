"""Track rows for the prompts tests: the referee's verdicts on oracle streams and engine-played games,
in the shape of ``companion track --json`` (``frame``, ``time``, ``event``, ``verdict``, ``message``,
``next_pile``, then an ``outcome`` row)."""

from __future__ import annotations

from typing import Any, Sequence

from companion.rules import ClockGame, Deal
from companion.rules.referee import Referee
from tests.conftest import oracle, oracles_of


def rows_of(events: Sequence[Sequence[Any]], variant: str = "standard", *, outcome: bool = True,
            fps: float = 2.0) -> list[dict[str, Any]]:
    """Judge ``events`` with the real referee; frame ``i`` is event ``i``, at ``fps`` rows a second."""
    ref = Referee(variant)
    rows: list[dict[str, Any]] = []
    for i, ev in enumerate(events):
        v = ref.observe(list(ev))
        rows.append({"frame": i, "time": round(i / fps, 3), "event": list(ev), "verdict": v.code,
                     "message": v.message, "next_pile": v.next_pile})
    if outcome:
        out = ref.outcome()
        if out is not None:
            rows.append({"outcome": out})
        else:
            rows.append({"outcome": "unfinished", "state": {"face_up": ref.face_up_count,
                                                            "next_pile": ref.next_pile}})
    return rows


def played_events(deal: Deal) -> list[list[Any]]:
    """The observation stream of a correctly played game of ``deal`` (standard)."""
    game = ClockGame(deal)
    game.play()
    events: list[list[Any]] = []
    for m in game.moves:
        events += [["turn", m.from_pile], ["see", str(m.card)], ["place", m.to_pile, "under"]]
    return events


def mistake_oracles() -> list[dict[str, Any]]:
    return oracles_of("mistake")


def oracle_rows(oid: str, upto: int | None = None, extra: Sequence[Sequence[Any]] = ()) -> list[dict[str, Any]]:
    """Rows of a mistake oracle's events (the first ``upto``), then ``extra`` events."""
    o = oracle(oid)
    evs = list(o["events"][:upto] if upto is not None else o["events"]) + [list(e) for e in extra]
    return rows_of(evs, o.get("variant", "standard"), outcome=upto is None and not extra)
