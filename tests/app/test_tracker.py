"""GameTracker: the step-wise tracker behind `companion play` (undo, recalibrate, restored referee)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules.referee import Referee
from companion.track import GameTracker, replay_rows, track


class _Game:
    def __init__(self, recording) -> None:
        from companion.track import oracle_for_source
        from companion.vision.layout import Layout
        from companion.vision.sources import open_source

        src = open_source(str(recording / "game.mp4"))
        self.oracle = oracle_for_source(src, str(recording / "game.mp4"))
        self.layout = Layout.load(recording / "layout.json")
        with src:
            self.frames = [f for f, _ in zip(src, range(330))]


@pytest.fixture(scope="module")
def game_frames(recording):
    g = _Game(recording)
    return g, g.frames


def test_step_gives_the_rows_of_track(game_frames):
    game, frames = game_frames
    gt = GameTracker(game.oracle, layout=game.layout)
    rows = [r for f in frames for r in gt.step(f)] + gt.finish()
    assert rows == track(frames, game.oracle, layout=game.layout).lines
    assert rows[-1]["outcome"] == "unfinished"


def test_undo_recalibrate_and_a_restored_referee(game_frames):
    game, frames = game_frames
    gt = GameTracker(game.oracle, layout=game.layout)
    rows = [r for f in frames for r in gt.step(f)]
    judged = [r for r in rows if r["verdict"] != "ask"]
    assert len(judged) >= 6
    assert sum(gt.face_down_counts()) + sum(gt.face_up_counts()) + (gt.ref.card_in_hand is not None) == 52
    before = (gt.next_pile, gt.face_down_counts(), gt.face_up_counts())
    undo = gt.undo()
    assert undo["undo"] == judged[-1]["event"] and len(gt.ref.verdicts) == len(judged) - 1
    gt.ref.observe(judged[-1]["event"])
    assert (gt.next_pile, gt.face_down_counts(), gt.face_up_counts()) == before
    # the referee rebuilt from logged rows (an undo row pops one) is the same
    ref = Referee()
    last = replay_rows(ref, rows + [undo] + [judged[-1]])
    assert [v.code for v in ref.verdicts] == [v.code for v in gt.ref.verdicts]
    assert str(last) == str(gt.last_card)
    restored = GameTracker(game.oracle, layout=game.layout, referee=ref, last_card=last)
    assert restored.face_down_counts() == gt.face_down_counts() and restored.next_pile == gt.next_pile
    # recalibrate on a settled frame: the 13 piles are found again, close to where they were
    old = gt.layout.centres.copy()
    how = gt.recalibrate(frames[0])
    assert how == "found the 13 piles again"
    assert float(np.abs(gt.layout.centres - old).max()) < 0.3 * game.layout.card_h


@pytest.mark.parametrize("read", [True, False], ids=["read", "not-read"])
def test_a_restored_game_with_a_card_already_in_the_hand_goes_on_without_repeating_it(game_frames, read):
    """Resumed (a live source) just after a card was taken and read: the fresh watcher does not
    report its turn and reading again, and the game goes on as the uninterrupted run did; a face-up
    card hidden by the hand at first (5H here) is learnt later, not taken for a new card. Stopped
    between the take and the reading (the log ends with the turn row): only the reading comes."""
    game, frames = game_frames
    whole = GameTracker(game.oracle, layout=game.layout)
    judged = [r for f in frames for r in whole.step(f) if r["verdict"] != "ask"]
    # the last take whose card is read and put down within these frames
    k = max(i for i, r in enumerate(judged) if r["event"][0] == "turn" and i + 2 < len(judged)
            and judged[i + 1]["event"][0] == "see" and judged[i + 2]["event"][0] == "place")
    cut = k + 1 if read else k
    ref = Referee()
    last = replay_rows(ref, judged[:cut + 1])
    assert ref.hand_source == judged[k]["event"][1]
    assert str(ref.card_in_hand) == (judged[k + 1]["event"][1] if read else "None")
    gt = GameTracker(game.oracle, layout=game.layout, referee=ref, last_card=last)
    start = judged[cut]["frame"] + 1
    later = [r for f in frames if f.index >= start for r in gt.step(f) if r["verdict"] != "ask"]
    want = judged[cut + 1:]
    assert want
    assert [(r["event"], r["verdict"]) for r in later] == [(r["event"], r["verdict"]) for r in want]


def test_a_restored_status_lists_a_card_left_on_the_wrong_pile():
    """A resumed game's referee (no frames needed): the card put back on the wrong pile is a pending correction
    in the status, and, stopped while it was being taken off that pile again, the hand comes from that pile."""
    start = [["turn", 13], ["see", "AC"], ["place", 1, "under"], ["turn", 2], ["see", "3C"], ["return", 5]]
    rows = [{"frame": i, "event": e, "verdict": "ok"} for i, e in enumerate(start)]  # replay judges them again
    ref = Referee()
    replay_rows(ref, rows)
    assert GameTracker(lambda frame: None, referee=ref).state()["pending_corrections"] == ["3C"]
    replay_rows(ref, [{"frame": 6, "event": ["turn", 5], "verdict": "ok"}])
    assert ref.hand_source == 5 and GameTracker(lambda frame: None, referee=ref).state()["pending_corrections"] == []
    unread = Referee()
    replay_rows(unread, rows[:4] + [{"frame": 4, "event": ["return", 5], "verdict": "WRONG_TARGET_PILE"}])
    assert GameTracker(lambda frame: None, referee=unread).state()["pending_corrections"] == [None]
