"""The end-of-game summary from whole games' rows."""

from __future__ import annotations

import json

import pytest

from companion.prompts import GameSummary
from tests.prompts.rows import oracle_rows, rows_of


@pytest.fixture(scope="module")
def rendered_game():
    """A rendered game with all three kinds of mistake (planned, not drawn): its truth and its rows, as
    ``companion track`` reports them when it reads every event right."""
    from companion.rules.referee import Referee
    from companion.synth import record

    scene, d = record.build(11, variant="standard", mistakes=3, resolution=(320, 180))
    truth = record.truth_of(scene, d, fps=30, deck="builtin")
    ref = Referee("standard")
    rows = []
    for e in truth["events"]:
        v = ref.observe(e["event"])
        assert v.code == e["verdict"]
        rows.append({"frame": e["frame"], "time": round(e["frame"] / truth["fps"], 3), "event": e["event"],
                     "verdict": v.code, "message": v.message, "next_pile": v.next_pile})
    rows.append({"outcome": ref.outcome()})
    return truth, rows


def summary_of(rows):
    s = GameSummary()
    for r in rows:
        s.add(r)
    return s


def test_a_rendered_game_with_mistakes(rendered_game):
    truth, rows = rendered_game
    s = summary_of(rows)
    j = s.to_json()
    json.dumps(j)  # plain JSON
    assert j["result"] == ("won" if truth["outcome"]["won"] else "lost")
    assert j["face_up"] == truth["outcome"]["face_up"] and j["last_card"] == truth["outcome"]["last_card"]
    assert [(m["flag"], m["card"], m["frame"]) for m in j["mistakes"]] == \
        [(m["flag"], m["card"], m["frame"]) for m in truth["mistakes"]]
    assert j["corrected"] == 3 and j["asks"] == 0
    for m, c in zip(j["mistakes"], sorted(truth["corrections"], key=lambda c: c["frames"][0])):
        assert c["frames"][0] <= m["corrected_at_frame"] <= c["frames"][1]
        assert f"{c['to_pile']} o'clock" in m["how"]
        assert m["how"].startswith("put back face down" if c["kind"] == "wrong_source" else "moved beneath")
    times = [r["time"] for r in rows if "time" in r]
    assert j["seconds"] == pytest.approx(times[-1] - times[0])
    placed_wrong = sum(m["kind"] != "wrong_source" for m in truth["mistakes"])  # moved into place, not placed right
    assert j["placements"] == truth["outcome"]["face_up"] - placed_wrong

    text = s.text()
    lines = text.splitlines()
    assert lines[0] == f"Lost with {j['face_up']} of 52 cards face up (last card: the king of clubs)."
    assert lines[2] == "3 mistakes, all corrected:"
    assert "two of diamonds taken from the wrong pile: put back face down on 8 o'clock" in text
    assert "queen of spades put on top of its pile instead of beneath: moved beneath 12 o'clock" in text
    assert "nine of spades put beneath the wrong pile: moved beneath 9 o'clock" in text

    child = s.text(child=True)
    assert "You fixed 3 of 3 mix-ups" in child and child.count("You fixed it!") == 3
    assert f"You turned {j['face_up']} of 52 cards face up" in child


def test_an_uncorrected_mistake():
    s = summary_of(oracle_rows("M20_wrong_target_pile"))
    j = s.to_json()
    assert j["result"] == "won" and j["face_up"] == 52
    assert j["mistakes"] == [{"flag": "WRONG_TARGET_PILE", "card": "3C", "frame": 8, "pile": 4,
                              "corrected_at_frame": None, "how": None, "needs_fix": True}]
    assert "1 mistake, 0 of 1 corrected:" in s.text() and "not corrected" in s.text()
    assert s.text(child=True).startswith("You won!")


def test_a_misread_shown_again():
    rows = oracle_rows("M23_card_seen_twice", upto=11, extra=[["see", "4C"]])
    s = summary_of(rows)
    (m,) = s.to_json()["mistakes"]
    assert m["flag"] == "DUPLICATE_CARD" and m["card"] == "3C"
    assert m["corrected_at_frame"] == 11 and m["how"] == "shown again and read as the four of clubs"


@pytest.mark.parametrize("oid, flag", [("M26_false_win", "FALSE_WIN"), ("M25_premature_end", "PREMATURE_END"),
                                       ("M28_exchange_in_standard", "EXCHANGE_NOT_ALLOWED")])
def test_mistakes_with_nothing_to_fix(oid, flag):
    s = summary_of(oracle_rows(oid))
    ms = s.to_json()["mistakes"]
    assert ms[0]["flag"] == flag and ms[0]["card"] is None and ms[0]["corrected_at_frame"] is None
    line = next(ln for ln in s.text().splitlines() if ln.startswith("- "))
    assert "not corrected" not in line


def test_unfinished_game_asks_and_unknown_rows():
    rows = rows_of([["turn", 13], ["see", "7H"], ["place", 7, "under"]], fps=1.0)
    rows.insert(2, {"frame": 1, "time": 1.5, "event": ["ask", 7], "verdict": "ask", "next_pile": 7,
                    "message": "I cannot read the card at 7 o'clock: please show me its corner."})
    rows.insert(1, {"prompt": {"text": "hello", "kind": "next"}, "frame": 0})  # a session log's own row
    s = summary_of(rows)
    j = s.to_json()
    assert j["result"] == "unfinished" and j["face_up"] == 1 and j["asks"] == 1 and j["seconds"] == 2.0
    assert j["mistakes"] == [] and j["placements"] == 1
    assert s.text().splitlines() == ["Game stopped before the end: 1 card face up.", "Time: 2 s.", "No mistakes.",
                                     "Asked to show a card's corner 1 time."]
    assert "No mistakes at all" in s.text(child=True)


def test_empty_summary():
    s = GameSummary()
    assert s.to_json()["result"] == "unfinished" and s.seconds == 0.0
    assert s.text().startswith("Game stopped before the end.")


def test_undo():
    rows = rows_of([["turn", 13], ["see", "7H"], ["place", 5, "under"]], outcome=False)
    s = summary_of(rows)
    assert len(s.to_json()["mistakes"]) == 1
    s.undo()
    assert s.to_json()["mistakes"] == []
