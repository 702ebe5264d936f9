"""The play reader: which card each row is about, which mistakes wait, which row fixed which."""

from __future__ import annotations

import pytest

from companion.prompts import GameSummary, Phraser, PlayReader
from tests.prompts.rows import rows_of


def read(events):
    r = PlayReader()
    return r, [r.read(row) for row in rows_of(events, outcome=False)]


def test_a_card_put_down_before_it_was_read():
    r, infos = read([["turn", 13], ["place", 5, "under"], ["see", "7H"], ["move", "7H", 7, "under"]])
    m = infos[2].new_mistake
    assert (m.flag, m.card, m.pile) == ("WRONG_TARGET_PILE", "7H", 5)
    assert [x.corrected_at_frame for x in infos[3].fixed] == [3] and r.pending() == []
    ph = Phraser(child=True)
    texts = [[p.text for p in ph.for_row(row)] for row in rows_of([["turn", 13], ["place", 7, "under"], ["see", "7H"]],
                                                                   outcome=False)]
    assert texts[1] == ["Can you show me the corner of that card?"]
    assert texts[2][0].endswith("Now take a card from seven o'clock.")


def test_a_take_the_camera_missed_comes_from_the_pile_play_was_at():
    r, infos = read([["turn", 13], ["see", "7H"], ["place", 7, "under"], ["see", "2C"]])
    assert infos[3].source == 7 and infos[3].card == "2C"
    ph = Phraser(child=True)
    texts = [[p.text for p in ph.for_row(row)] for row in rows_of([["see", "7H"], ["place", 7, "under"],
                                                                   ["see", "7C"]], outcome=False)]
    assert texts[0] == ["A seven! It goes under seven o'clock."]  # taken from the centre, not from 7
    assert texts[2] == ["A seven from seven o'clock! It goes under its own pile."]


def test_a_second_card_taken_while_one_is_in_hand_has_nothing_to_fix():
    rows = rows_of([["turn", 13], ["see", "7H"], ["turn", 4], ["place", 7, "under"]])
    s = GameSummary()
    for row in rows:
        s.add(row)
    (m,) = s.to_json()["mistakes"]
    assert m["flag"] == "WRONG_SOURCE_PILE" and m["needs_fix"] is False
    assert "not corrected" not in s.text()
    ph = Phraser(child=True)
    texts = [[p.text for p in ph.for_row(row)] for row in rows]
    assert texts[2] == ["One card at a time! First put the seven under seven o'clock."]


def test_a_card_taken_by_mistake_put_face_up_then_back():
    r, infos = read([["turn", 13], ["see", "AC"], ["place", 1, "under"], ["turn", 2], ["see", "3C"],
                     ["place", 3, "under"], ["return", 2]])
    assert infos[3].new_mistake.flag == "WRONG_SOURCE_PILE" and infos[3].new_mistake.card == "3C"
    assert infos[4].taken_by_mistake and [m.card for m in r.mistakes] == ["3C"]
    assert [m.how for m in infos[6].fixed] == ["put back face down on 2 o'clock"]
    assert r.pending() == [] and r.placements == 1


def test_undo_and_kings():
    r, infos = read([["turn", 13], ["see", "KH"], ["place", 13, "under"], ["turn", 13], ["see", "KS"]])
    assert infos[1].kings == 1 and infos[4].kings == 2
    assert r.undo() and r.hand_card is None and r.undo() and r.undo()
    assert PlayReader().undo() is False


# -- a card put back face down on the wrong pile (the referee: it lies there; taking it off again is the fix) --
START = [["turn", 13], ["see", "AC"], ["place", 1, "under"]]  # play is then at 1 o'clock
WRONG_RETURN = START + [["turn", 2], ["see", "3C"], ["return", 5]]  # 3C taken by mistake, put back on 5, not 2
PLAY = [["turn", 1], ["see", "2C"], ["place", 2, "under"]]


def summary_of(events):
    s = GameSummary()
    for row in rows_of(events):
        s.add(row)
    return s


def test_a_card_put_back_on_the_wrong_pile_waits_there():
    """Not in the hand any more: later takes do not drop its mistakes; both wait, named with the pile it lies on."""
    r, infos = read(WRONG_RETURN + PLAY)
    assert infos[5].new_mistake.flag == "WRONG_TARGET_PILE" and infos[5].new_mistake.card == "3C"
    assert r.hand_card is None and infos[8].placed_ok
    assert [(m.flag, m.card) for m in r.pending()] == [("WRONG_SOURCE_PILE", "3C"), ("WRONG_TARGET_PILE", "3C")]
    assert r.misreturn_of(r.pending()[0]) == (5, 2)
    s = summary_of(WRONG_RETURN + PLAY)
    assert s.to_json()["corrected"] == 0 and "2 mistakes, 0 of 2 corrected:" in s.text()
    assert "the three of clubs put back face down on the wrong pile: not corrected." in s.text()
    child = Phraser(child=True)
    for row in rows_of(WRONG_RETURN + PLAY, outcome=False):
        child.for_row(row)
    assert child.hint(2).text == "Take that three off five o'clock and put it back face down on two o'clock."


@pytest.mark.parametrize("fix", [[["turn", 5], ["see", "3C"], ["return", 2]], [["turn", 5], ["return", 2]]],
                         ids=["read", "not-read"])
def test_taking_it_off_the_wrong_pile_and_putting_it_back_fixes_both_mistakes(fix):
    r, infos = read(WRONG_RETURN + PLAY + fix)
    assert infos[9].taken_back and infos[9].source == 2 and r.hand_source is None
    how = "taken off 5 o'clock and put back face down on 2 o'clock"
    assert [(m.flag, m.corrected_at_frame, m.how) for m in infos[-1].fixed] == \
        [("WRONG_SOURCE_PILE", len(infos) - 1, how), ("WRONG_TARGET_PILE", len(infos) - 1, how)]
    assert r.pending() == []
    s = summary_of(WRONG_RETURN + PLAY + fix)
    assert s.to_json()["corrected"] == 2 and "2 mistakes, all corrected:" in s.text()
    assert s.text(child=True).count("You fixed it!") == 2


def test_a_legal_card_put_back_on_the_wrong_pile_may_be_played_from_there():
    """Play still at its pile: taken off the wrong pile and played, the mistake is fixed (not a first-go placement)."""
    r, infos = read(START + [["turn", 1], ["see", "2C"], ["return", 5], ["turn", 5], ["see", "2C"],
                             ["place", 2, "under"]])
    assert [(m.flag, m.how) for m in infos[-1].fixed] == [("WRONG_TARGET_PILE", "taken off 5 o'clock and played")]
    assert r.pending() == [] and r.placements == 1


def test_another_card_off_that_pile_means_the_camera_misjudged_it():
    """The referee then takes it that the 3C went back on 2 o'clock after all: nothing waits, and the new card
    is an ordinary one from 5 o'clock."""
    r, infos = read(WRONG_RETURN + [["turn", 1], ["see", "5C"], ["place", 5, "under"], ["turn", 5], ["see", "6C"]])
    assert r.pending() == [] and infos[-1].fixed == () and infos[-1].source == 5 and r.hand_card == "6C"
    assert all(m.how == "put back face down on 2 o'clock after all" for m in r.mistakes)


def test_undo_across_a_wrong_pile_return_and_its_fix():
    r, _ = read(WRONG_RETURN + PLAY + [["turn", 5], ["return", 2]])
    assert r.undo() and len(r.pending()) == 2 and r.hand_source == 2  # taken back off 5, not yet put back
    assert r.undo() and r.hand_card is None and len(r.pending()) == 2
    for _ in PLAY:
        assert r.undo()
    assert r.undo() and r.hand_card == "3C" and r.hand_source == 2 and len(r.pending()) == 1  # before the return
