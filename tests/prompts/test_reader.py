"""The play reader: which card each row is about, which mistakes wait, which row fixed which."""

from __future__ import annotations

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
