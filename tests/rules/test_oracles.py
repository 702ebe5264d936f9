"""Every verified oracle of shared/rules/oracles.json (copied to tests/data/)."""

from __future__ import annotations

import pytest

from companion.cards import PILES
from companion.rules import ClockGame, Deal
from companion.rules.referee import Referee
from tests.conftest import oracle, oracles_of


def _result(game: ClockGame):
    out = game.outcome()
    return out.won, out.face_up, str(out.last_card)


@pytest.mark.parametrize("o", oracles_of("deal"), ids=lambda o: o["id"])
def test_deal_oracle(o):
    deal = Deal.from_order(o["deal_order"])
    assert deal == Deal.from_piles(o["piles_top_first"])
    game = ClockGame(deal)
    game.play()
    e = o["expected"]
    assert _result(game) == (e["won"], e["face_up"], e["last_card"])
    assert [m.to_list() for m in game.moves] == e["moves"]
    assert game.face_down_count == e["face_down_left"]
    if "face_down_at_end" in e:
        got = {str(p): [str(c) for c in game.face_down[p]] for p in PILES if game.face_down[p]}
        assert got == e["face_down_at_end"]


def test_deal_set_oracle():
    (o,) = oracles_of("deal_set")
    assert len(o["deals"]) == 200
    wins = 0
    for d in o["deals"]:
        game = ClockGame(Deal.from_order(d["deal_order"]))
        game.play()
        assert _result(game) == (d["won"], d["face_up"], d["last_card"])
        wins += d["won"]
    assert wins == 13


def test_deal_set_is_random_random_123456():
    """The oracle's deals are random.Random(123456).shuffle(FULL_DECK) repeated: Deal.random matches."""
    import random

    (o,) = oracles_of("deal_set")
    rng = random.Random(123456)
    for d in o["deals"][:20]:
        assert Deal.random(rng) == Deal.from_order(d["deal_order"])


def _face_down_json(game: ClockGame) -> dict:
    return {str(p): [str(c) for c in game.face_down[p]] for p in PILES if game.face_down[p]}


@pytest.mark.parametrize("o", oracles_of("watch"), ids=lambda o: o["id"])
def test_watch_oracle(o):
    game = ClockGame(Deal.from_order(o["deal_order"]), "watch")
    game.play()
    assert game.face_up_count == o["standard_result"]["face_up"]
    assert _face_down_json(game) == o["face_down_at_4th_king"]
    assert game.can_exchange()
    n_before = len(game.moves)
    ex = o["exchange"]
    assert str(game.exchange(ex["pile"], ex["depth_from_top"])) == ex["card_taken"]
    game.play()
    e = o["expected"]
    assert _result(game) == (e["won"], e["face_up"], e["last_card"])
    assert [m.to_list() for m in game.moves[n_before:]] == e["moves_after_exchange"]
    assert not game.can_exchange()


def test_watch_table_oracle():
    (o,) = oracles_of("watch_table")
    base = ClockGame(Deal.from_order(o["deal_order"]), "watch")
    base.play()
    assert _face_down_json(base) == o["face_down_at_4th_king"]
    for row in o["expected"]:
        game = base.copy()
        assert str(game.exchange(row["pile"], row["depth_from_top"])) == row["card_taken"]
        game.play()
        assert _result(game) == (row["won"], row["face_up"], row["last_card"]), row


KNOWN_CODES = {"WRONG_TARGET_PILE", "WRONG_SOURCE_PILE", "WRONG_SIDE", "DUPLICATE_CARD", "NOT_TOP_CARD",
               "PLAY_AFTER_END", "EXCHANGE_NOT_ALLOWED", "PREMATURE_END", "FALSE_WIN"}


@pytest.mark.parametrize("o", oracles_of("mistake"), ids=lambda o: o["id"])
def test_mistake_oracle_first_flag(o):
    verdicts = Referee(o.get("variant", "standard")).observe_all(o["events"])
    flags = [(v.index, v.code) for v in verdicts if not v.ok]
    e = o["expected_first_flag"]
    assert flags, "no flag raised"
    assert flags[0] == (e["index"], e["code"])
    # Every verdict before the first flag is ok, and each flag message names a pile or card.
    assert all(v.ok for v in verdicts[: e["index"]])
    assert all(len(v.message) > 20 for v in verdicts if not v.ok)


@pytest.mark.parametrize("o", [o for o in oracles_of("mistake") if o.get("all_flags_reference")],
                         ids=lambda o: o["id"])
def test_mistake_oracle_all_flags(o):
    """Beyond the first flag: the reference's other flags in our vocabulary are raised too, no others."""
    verdicts = Referee(o.get("variant", "standard")).observe_all(o["events"])
    ours = [(v.index, v.code) for v in verdicts if not v.ok]
    ref = [tuple(f) for f in o["all_flags_reference"] if f[1] in KNOWN_CODES]
    assert ours == ref


def test_mistake_streams_use_oracle_deals():
    """The mistake streams replay the named deal: cards seen before the first flag are the deal's moves."""
    for o in oracles_of("mistake"):
        game = ClockGame(Deal.from_order(oracle(o["deal"])["deal_order"]))
        first = o["expected_first_flag"]["index"]
        seen = [e[1] for e in o["events"][:first] if e[0] == "see"]
        for card in seen:
            assert str(game.turn().card) == card
