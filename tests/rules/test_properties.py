"""The oracle file's property entries as hypothesis tests (P10-P13, P19), plus undo and referee robustness."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cards import CENTRE, CLOCK_PILES, FULL_DECK, PILES, Card, Rank
from companion.rules import ClockGame, Deal, EmptyPileError
from companion.rules.errors import ExchangeError
from companion.rules.referee import Referee
from tests.conftest import reaches

deals = st.permutations(FULL_DECK).map(Deal.from_order)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_invariants(game: ClockGame) -> None:
    """P10: I1..I8 after every move of a legal standard game."""
    all_cards = [c for p in PILES for c in game.face_down[p] + game.face_up[p]]
    assert sorted(all_cards) == sorted(FULL_DECK)  # I1
    for p in PILES:
        assert all(c.home_pile == p for c in game.face_up[p])  # I2
    kings_up = sum(c.rank is Rank.KING for p in PILES for c in game.face_up[p])
    assert kings_up == len(game.face_up[CENTRE])  # I3
    cur = game.current_pile
    for p in CLOCK_PILES:
        size = len(game.face_down[p]) + len(game.face_up[p])
        assert size == (5 if p == cur and game.moves else 4)  # I4
        if p != cur:
            assert len(game.face_down[p]) == 4 - len(game.face_up[p])  # I5
    centre = len(game.face_down[CENTRE]) + len(game.face_up[CENTRE])
    if not game.moves or cur == CENTRE:
        assert centre == 4
    else:
        assert centre == 3
    if not game.is_over():
        assert game.face_down[cur]  # I6
    assert game.is_over() == (kings_up == 4)  # I7
    assert game.face_up_count == len(game.moves)  # I8


@FAST
@given(deals)
def test_invariants_after_every_move(deal):
    game = ClockGame(deal)
    check_invariants(game)
    while not game.is_over():
        game.turn()  # P11: never raises EmptyPileError
        check_invariants(game)


@FAST
@given(deals)
def test_last_card_is_a_king_and_win_test(deal):
    out = ClockGame(deal).play()
    assert out.last_card.rank is Rank.KING  # P12
    assert 4 <= out.face_up <= 52
    assert out.won == (out.face_up == 52)


def reaches_centre(deal: Deal) -> bool:
    """P13: following p -> home(bottom card of p) from every clock pile reaches the centre."""
    for start in CLOCK_PILES:
        p, steps = start, 0
        while p != CENTRE and steps <= 13:
            p = deal.pile(p)[-1].home_pile
            steps += 1
        if p != CENTRE:
            return False
    return True


@FAST
@given(deals)
def test_tree_criterion(deal):
    assert ClockGame(deal).play().won == reaches_centre(deal)


def test_tree_criterion_on_oracle_seeded_deals():
    import random

    rng = random.Random(2024)
    for _ in range(2000):
        deal = Deal.random(rng)
        assert ClockGame(deal).play().won == reaches_centre(deal)


@FAST
@given(deals, st.data())
def test_watch_tree_criterion(deal, data):
    """P19: bottom-of-q exchange wins iff every pile with face-down cards reaches q; non-bottom always loses."""
    game = ClockGame(deal, "watch")
    game.play()
    if not game.can_exchange():
        return
    F = [p for p in PILES if game.face_down[p]]
    q = data.draw(st.sampled_from(F))
    depth = data.draw(st.integers(0, len(game.face_down[q]) - 1))
    is_bottom = depth == len(game.face_down[q]) - 1
    arrow = {p: game.face_down[p][-1].home_pile for p in F}

    trial = game.copy()
    trial.exchange(q, depth)
    won = trial.play().won
    if is_bottom:
        assert won == all(reaches(p, q, arrow) for p in F if p != q)
    else:
        assert not won


@FAST
@given(deals, st.integers(0, 60))
def test_push_pop_undo(deal, n):
    game = ClockGame(deal, "watch")
    snapshots = []
    for _ in range(n):
        if game.is_over():
            if not game.can_exchange():
                break
            p = next(p for p in PILES if game.face_down[p])
            snapshots.append(({k: list(v) for k, v in game.face_down.items()}, game.face_up_count))
            game.exchange(p, 0)
            continue
        snapshots.append(({k: list(v) for k, v in game.face_down.items()}, game.face_up_count))
        game.turn()
    while snapshots:
        game.pop()
        down, up = snapshots.pop()
        assert game.face_down == down and game.face_up_count == up
    assert game.moves == [] and game.current_pile == CENTRE


def test_exchange_rules():
    o05 = Deal.from_order("3S 2S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH "
                          "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")
    std = ClockGame(o05)
    std.play()
    import pytest

    with pytest.raises(ExchangeError, match="Watch"):
        std.exchange(2, 0)
    w = ClockGame(o05, "watch")
    with pytest.raises(ExchangeError, match="fourth king"):
        w.exchange(2, 0)
    w.play()
    with pytest.raises(ExchangeError, match="depth 1 does not exist"):
        w.exchange(2, 1)
    with pytest.raises(ExchangeError, match="has 0 face-down"):
        w.exchange(5, 0)
    w.exchange(2, 0)
    assert w.play().won
    with pytest.raises(ExchangeError, match="already"):
        w.exchange(2, 0)


def test_empty_pile_rule_raises():
    """The clockwise house rule is unreachable; forcing an empty current pile makes the engine raise."""
    import pytest

    game = ClockGame(Deal.random(1))
    game.face_down[CENTRE].clear()
    with pytest.raises(EmptyPileError, match="unreachable"):
        game.turn()


# -- referee robustness -----------------------------------------------------------------
cards = st.sampled_from(FULL_DECK).map(str)
piles = st.integers(1, 13)
events = st.one_of(
    st.tuples(st.just("turn"), piles).map(list),
    st.tuples(st.just("turn"), piles, st.just("not_top")).map(list),
    st.tuples(st.just("see"), cards).map(list),
    st.tuples(st.just("place"), piles, st.sampled_from(["under", "top"])).map(list),
    st.tuples(st.just("move"), cards, piles, st.sampled_from(["under", "top"])).map(list),
    st.tuples(st.just("return"), piles).map(list),
    st.tuples(st.just("exchange"), piles).map(list),
    st.tuples(st.just("declare"), st.sampled_from(["win", "loss"])).map(list),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(events, max_size=80), st.sampled_from(["standard", "watch"]))
def test_random_streams_never_crash_the_referee(stream, variant):
    ref = Referee(variant)
    for k, ev in enumerate(stream):
        v = ref.observe(ev)
        assert v.index == k and v.message
        assert v.next_pile is None or v.next_pile in PILES
        assert 0 <= ref.face_up_count <= 52
        assert all(n >= 0 for n in ref.face_down_counts.values())


@settings(max_examples=100, deadline=None)
@given(deals, st.lists(events, max_size=30))
def test_referee_pop_restores(deal, noise):
    """Undo (pop) after any events gives back the exact earlier verdict stream."""
    ref = Referee()
    game = ClockGame(deal)
    for _ in range(5):
        m = game.turn()
        for ev in (["turn", m.from_pile], ["see", str(m.card)], ["place", m.to_pile, "under"]):
            assert ref.observe(ev).ok
    before = [v.to_json() for v in ref.verdicts]
    nxt = ref.next_pile
    for ev in noise:
        ref.observe(ev)
    for _ in noise:
        ref.pop()
    assert [v.to_json() for v in ref.verdicts] == before and ref.next_pile == nxt


def test_seen_cards_count():
    counts = Counter(str(c)[-1] for c in FULL_DECK)
    assert set(counts.values()) == {13}
    assert Card.parse("KH").home_pile == CENTRE
