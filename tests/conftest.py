"""Shared fixtures: the oracle file (copied from shared/rules) and paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SHARED = ROOT.parent / "shared"


def _held_out_decks_installed() -> bool:
    from companion.vision.benchframes import held_out_deck_names

    return bool(held_out_deck_names())


#: Accuracy on held-out decks needs one installed; a training deck in its place would measure nothing held out.
needs_held_out_decks = pytest.mark.skipif(
    not _held_out_decks_installed(),
    reason="no held-out deck installed (apt install gnome-cards-data kdegames-card-data-kf5 librsvg2-bin)")


def load_oracles() -> dict:
    return json.loads((TESTS / "data" / "oracles.json").read_text())


ORACLES = load_oracles()


def oracles_of(*kinds: str) -> list[dict]:
    return [o for o in ORACLES["oracles"] if o["kind"] in kinds]


def oracle(oid: str) -> dict:
    return next(o for o in ORACLES["oracles"] if o["id"] == oid)


@pytest.fixture(scope="session")
def oracles() -> dict:
    return ORACLES


def reaches(start: int, target: int, arrow: dict[int, int]) -> bool:
    """Following ``arrow`` from ``start`` arrives at ``target`` (the Watch tree criterion, P19)."""
    seen: set[int] = set()
    p = start
    while p != target:
        if p in seen or p not in arrow:
            return False
        seen.add(p)
        p = arrow[p]
    return True
