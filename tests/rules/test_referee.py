"""The referee after a card taken from the wrong pile: put back, or played on from."""

from companion.rules.referee import OK, Flag, Referee

START = [["turn", 13], ["see", "AC"], ["place", 1, "under"]]  # play is then at 1 o'clock


def codes(ref: Referee, events) -> list[str]:
    return [ref.observe(e).code for e in events]


def test_wrong_source_put_back_then_play_goes_on():
    ref = Referee()
    got = codes(ref, START + [["turn", 2], ["see", "3C"], ["return", 2], ["turn", 1], ["see", "4C"]])
    assert got == [OK, OK, OK, Flag.WRONG_SOURCE_PILE.value, OK, OK, OK, OK]
    assert ref.face_down_counts[2] == 4 and ref.face_down_counts[1] == 3
    assert ref.next_pile == 4


def test_playing_on_from_a_wrongly_taken_card_is_flagged_once():
    """The player (or the camera, seeing the take at the wrong pile) goes on from the card taken:
    one flag, then play is followed from that card's pile, not flagged again at every card."""
    ref = Referee()
    got = codes(ref, START + [["turn", 2], ["see", "3C"], ["place", 3, "under"],
                              ["turn", 3], ["see", "4C"], ["place", 4, "under"],
                              ["turn", 4], ["see", "5C"], ["place", 5, "under"]])
    assert got.count(Flag.WRONG_SOURCE_PILE.value) == 1 and got[3] == Flag.WRONG_SOURCE_PILE.value
    assert got[6:] == [OK] * 6
    assert "played on from the three of clubs" in ref.verdicts[6].message
    assert ref.pending_corrections == [] and ref.next_pile == 5
    assert ref.face_up_count == 4


def test_no_playing_on_from_a_card_not_beneath_its_own_pile():
    ref = Referee()
    got = codes(ref, START + [["turn", 2], ["see", "3C"], ["place", 4, "under"], ["turn", 3]])
    assert got[3:] == [Flag.WRONG_SOURCE_PILE.value, OK, Flag.WRONG_TARGET_PILE.value, Flag.WRONG_SOURCE_PILE.value]


def test_no_playing_on_from_anything_but_the_taken_cards_pile():
    ref = Referee()
    got = codes(ref, START + [["turn", 2], ["see", "3C"], ["place", 3, "under"], ["turn", 5]])
    assert got[-1] == Flag.WRONG_SOURCE_PILE.value
    assert ref.pending_corrections  # the three of clubs still waits to go back


def test_a_take_from_a_pile_counted_empty_settles_where_the_played_on_card_came_from():
    """The wrong take was seen at 2 o'clock while play was at 1 o'clock, then played on from. Five
    cards later taken from 2 o'clock show the first one came from 1 o'clock: no flag, counts moved."""
    ref = Referee()
    events = START + [["turn", 2], ["see", "3C"], ["place", 3, "under"],
                      ["turn", 3], ["see", "2C"], ["place", 2, "under"]]
    for card in ("2D", "2H", "2S"):
        events += [["turn", 2], ["see", card], ["place", 2, "under"]]
    events += [["turn", 2], ["see", "5C"]]
    got = codes(ref, events)
    assert got.count(Flag.WRONG_SOURCE_PILE.value) == 1
    assert got[-2:] == [OK, OK]
    assert ref.face_down_counts[2] == 0 and ref.face_down_counts[1] == 3


def test_playing_on_from_a_fourth_king_taken_by_mistake_ends_the_game():
    ref = Referee()
    events = [["turn", 13], ["see", "KC"], ["place", 13, "under"],
              ["turn", 13], ["see", "KD"], ["place", 13, "under"],
              ["turn", 13], ["see", "KH"], ["place", 13, "under"],
              ["turn", 13], ["see", "5C"], ["place", 5, "under"],
              ["turn", 6], ["see", "KS"], ["place", 13, "under"], ["turn", 13]]
    got = codes(ref, events)
    assert got[12] == Flag.WRONG_SOURCE_PILE.value
    assert got[-1] == Flag.PLAY_AFTER_END.value
    assert ref.is_over() and ref.outcome()["last_card"] == "KS"


def test_undo_of_playing_on_restores_the_pending_correction():
    ref = Referee()
    codes(ref, START + [["turn", 2], ["see", "3C"], ["place", 3, "under"]])
    ref.observe(["turn", 3])
    ref.pop()
    assert [str(c) for c in ref.pending_corrections] == ["3C"] and ref.next_pile == 1
