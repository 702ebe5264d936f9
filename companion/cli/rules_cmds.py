"""`companion check-deal` and `companion referee`: the rules core from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from ..cards import CENTRE, PILES
from ..rules import ClockGame, Deal, Exchange, RulesError
from ..rules.errors import EventError
from ..rules.referee import Referee, pile_name
from ._app import app, fail

VARIANT_HELP = "standard, or watch (the fourth king may be exchanged once for a face-down card)"


def _check_variant(variant: str) -> str:
    if variant not in ("standard", "watch"):
        fail(f"unknown variant {variant!r} (use standard or watch)")
    return variant


def play_deal(deal: Deal, variant: str = "standard", exchange: Exchange | None = None) -> dict[str, Any]:
    """Play ``deal`` to the end (with the Watch exchange if given); the ``check-deal --json`` object."""
    game = ClockGame(deal, variant)  # type: ignore[arg-type]
    game.play()
    result: dict[str, Any] = {}
    if exchange is not None:
        if not game.can_exchange():
            raise RulesError("no exchange is possible: every card is already face up")
        before = len(game.moves)
        taken = game.exchange(exchange.pile, exchange.depth)
        result["exchange"] = {"pile": exchange.pile, "depth_from_top": exchange.depth, "card_taken": str(taken),
                              "face_up_at_fourth_king": before}
        game.play()
    out = game.outcome()
    assert out is not None
    return {
        "won": out.won,
        "face_up": out.face_up,
        "last_card": str(out.last_card),
        "variant": variant,
        **result,
        "moves": [m.to_list() for m in game.moves],
        "face_down_at_end": {str(p): [str(c) for c in game.face_down[p]] for p in PILES if game.face_down[p]},
    }


@app.command("check-deal")
def check_deal(
    piles: Optional[str] = typer.Argument(
        None, help="13 groups separated by '|', piles 1..12 then 13 (centre), each four cards top first, "
        "e.g. '2C 2D 2H 2S|3C 3D 3H 3S|...'"),
    deal_order: Optional[str] = typer.Option(
        None, "--deal-order", help="Instead of PILES: the 52 cards in dealing order (oracle convention)"),
    variant: str = typer.Option("standard", "--variant", help=VARIANT_HELP),
    exchange: Optional[str] = typer.Option(
        None, "--exchange", help="Watch: exchange the fourth king for face-down card PILE:DEPTH (0 = top)"),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (keys in the README)"),
) -> None:
    """Play a given deal to the end and show every move and the result."""
    _check_variant(variant)
    if (piles is None) == (deal_order is None):
        fail("give either PILES or --deal-order (exactly one)")
    try:
        deal = Deal.parse_piles(piles) if piles is not None else Deal.from_order(deal_order or "")
        ex = Exchange.parse(exchange) if exchange else None
        if ex is not None and variant != "watch":
            fail("--exchange needs --variant watch")
        result = play_deal(deal, variant, ex)
    except RulesError as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps(result))
        return
    _print_result(deal, result)


def _print_result(deal: Deal, result: dict[str, Any]) -> None:
    print("Deal (top card first):")
    for p in PILES:
        print(f"  {pile_name(p):>12}: {' '.join(str(c) for c in deal.pile(p))}")
    print(f"Moves ({len(result['moves'])}):")
    exch = result.get("exchange")
    for k, (card, src, dst) in enumerate(result["moves"], start=1):
        if exch and k == exch["face_up_at_fourth_king"] + 1:
            print(f"  -- exchange: the king takes the place of {exch['card_taken']} "
                  f"(pile {exch['pile']}, depth {exch['depth_from_top']}) --")
        print(f"  {k:2d}. {card:>2} from {pile_name(src)} -> beneath {pile_name(dst)}")
    verdict = "WON" if result["won"] else "LOST"
    print(f"{verdict}: {result['face_up']} cards face up, last card {result['last_card']}.")
    if result["face_down_at_end"]:
        left = ", ".join(f"{p}: {' '.join(cs)}" for p, cs in result["face_down_at_end"].items())
        print(f"Face down at the end: {left}")


def read_events(path: str) -> list[tuple[int, list[Any]]]:
    """Read an events file: one JSON array per line (or an object with an ``event`` key).

    Blank lines and lines starting with ``#`` are skipped. Returns (line number, event).
    """
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EventError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    events = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EventError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if isinstance(item, dict) and "event" in item:
            item = item["event"]
        events.append((n, item))
    return events


@app.command("referee")
def referee(
    events_file: str = typer.Argument(..., metavar="EVENTS.jsonl",
                                      help="One event per line as a JSON array, e.g. [\"turn\", 13]; '-' reads stdin"),
    variant: str = typer.Option("standard", "--variant", help=VARIANT_HELP),
    as_json: bool = typer.Option(False, "--json", help="One JSON line per event: index, verdict, message, next_pile"),
) -> None:
    """Judge a stream of observed events; flags are results (exit 0), unreadable input exits 2."""
    _check_variant(variant)
    try:
        events = read_events(events_file)
    except EventError as exc:
        fail(str(exc))
    ref = Referee(variant)
    flags = 0
    for line_no, item in events:
        try:
            verdict = ref.observe(item)
        except EventError as exc:
            fail(f"{events_file}:{line_no}: {exc}")
        flags += not verdict.ok
        if as_json:
            print(json.dumps(verdict.to_json()), flush=True)
        else:
            nxt = "-" if verdict.next_pile is None else str(verdict.next_pile)
            print(f"{verdict.index:4d}  {str(verdict.event):<18} {verdict.code:<20} next {nxt:>2}  {verdict.message}")
    if not as_json:
        out = ref.outcome()
        end = (f"{'won' if out['won'] else 'lost'} with {out['face_up']} face up" if out
               else f"unfinished, next pile {ref.next_pile}")
        print(f"{len(events)} events, {flags} flag(s); game {end}.")


__all__ = ["play_deal", "read_events", "check_deal", "referee", "CENTRE"]
