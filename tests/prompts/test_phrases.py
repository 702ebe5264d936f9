"""Phrases: every flag in normal and child mode, the child's corrections, thanks, asks, outcomes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from companion.cards import Card
from companion.rules import Deal
from companion.rules.referee import Flag
from companion.prompts import Phraser, Prompt
from companion.prompts.phrases import LANGUAGES, PRIORITY
from tests.conftest import oracle
from tests.prompts.rows import mistake_oracles, oracle_rows, played_events, rows_of


def run(rows, child=False):
    ph = Phraser(child=child)
    return ph, [ph.for_row(r) for r in rows]


def first_flag(rows):
    return next(i for i, r in enumerate(rows) if r.get("verdict") not in (None, "ok", "ask"))


@pytest.mark.parametrize("o", mistake_oracles(), ids=lambda o: o["id"])
@pytest.mark.parametrize("child", [False, True], ids=["normal", "child"])
def test_every_mistake_oracle_gives_one_alert_first(o, child):
    rows = oracle_rows(o["id"])
    i = first_flag(rows)
    assert rows[i]["verdict"] == o["expected_first_flag"]["code"]
    _, prompts = run(rows, child)
    got = prompts[i]
    assert got[0].kind == "alert" and got[0].priority == 0 and got[0].frame == rows[i]["frame"]
    assert sum(p.kind == "alert" for p in got) == 1
    text = got[0].text
    assert text and "(Still waiting" not in text and "\n" not in text
    if child:
        assert text != rows[i]["message"] and len(text) <= 110, text
    else:
        assert text == rows[i]["message"].split(" (Still waiting")[0]
    # every flag row gets an alert, and only flag rows do
    for r, ps in zip(rows, prompts):
        flagged = r.get("verdict") not in (None, "ok", "ask")
        assert any(p.kind == "alert" for p in ps) == flagged, (r, ps)


def test_the_oracles_cover_every_flag():
    seen = {r.get("verdict") for o in mistake_oracles() for r in oracle_rows(o["id"])}
    assert {f.value for f in Flag} <= seen


@pytest.mark.parametrize("oid, pile_words, rank_word", [
    ("M20_wrong_target_pile", "three o'clock", "three"),      # 3C beneath 4 o'clock
    ("M22_placed_on_top", "two o'clock", "two"),               # 2C on top of 2 o'clock
    ("M27_king_under_clock_pile", "middle", "king"),           # KC beneath 12 o'clock
])
def test_child_corrections_name_the_card_and_its_pile(oid, pile_words, rank_word):
    rows = oracle_rows(oid)
    i = first_flag(rows)
    _, prompts = run(rows, child=True)
    text = prompts[i][0].text
    assert pile_words in text and f"That {rank_word}" in text and text.endswith("?"), text


def test_child_wrong_source_names_both_piles():
    rows = oracle_rows("M21_wrong_source_pile")
    i = first_flag(rows)
    _, prompts = run(rows, child=True)
    text = prompts[i][0].text
    assert "two o'clock" in text and "one o'clock" in text and "back" in text, text


def test_the_example_from_the_issue():
    rows = rows_of([["turn", 13], ["see", "7H"], ["place", 5, "under"]], outcome=False)
    _, prompts = run(rows, child=True)
    assert prompts[2][0].text == "That seven lives at seven o'clock. Can you move it?"


@pytest.mark.parametrize("child", [False, True])
def test_a_moved_card_gets_a_thank_you(child):
    # 3C went beneath 4 o'clock at event 8; moved to 3 o'clock right away
    rows = oracle_rows("M20_wrong_target_pile", upto=9, extra=[["move", "3C", 3, "under"]])
    _, prompts = run(rows, child)
    fix = prompts[-1]
    assert len(fix) == 1 and fix[0].kind == "praise" and fix[0].text.startswith("Thank you")
    where = "three o'clock" if child else "3 o'clock"
    assert where in fix[0].text


@pytest.mark.parametrize("child", [False, True])
def test_a_card_put_back_gets_a_thank_you(child):
    # a card taken from 2 o'clock instead of 1 o'clock (event 3), read, then put back
    rows = oracle_rows("M21_wrong_source_pile", upto=5, extra=[["return", 2]])
    assert rows[3]["verdict"] == "WRONG_SOURCE_PILE"
    _, prompts = run(rows, child)
    assert prompts[4] and prompts[4][0].kind == "hint" and "back" in prompts[4][0].text  # read while in hand
    fix = prompts[-1]
    assert fix[0].kind == "praise" and fix[0].text.startswith("Thank you")
    assert ("one o'clock" if child else "1 o'clock") in fix[0].text


@pytest.mark.parametrize("child", [False, True])
def test_a_pending_fix_is_reminded_less_and_less_often_never_on_every_row(child):
    rows = oracle_rows("M20_wrong_target_pile")  # 3C never moved: every later ok message has the reminder
    assert sum("(Still waiting" in r.get("message", "") for r in rows) > 100
    _, prompts = run(rows, child)
    flat = [p for ps in prompts for p in ps]
    assert not any("(Still waiting" in p.text for p in flat)
    at = [i for i, ps in enumerate(prompts) for p in ps
          if p.kind == "hint" and ("Still waiting" in p.text or "Don't forget" in p.text)]
    assert 3 <= len(at) <= 8
    gaps = [b - a for a, b in zip(at, at[1:])]
    assert all(b > a for a, b in zip(gaps, gaps[1:])), gaps  # each reminder waits longer than the last
    if child:
        assert all("three o'clock" in p.text for ps in prompts for p in ps if p.kind == "hint")


def test_a_new_flag_starts_the_reminders_again_at_the_first_gap():
    rows = oracle_rows("M20_wrong_target_pile")
    waiting = [i for i, r in enumerate(rows) if "(Still waiting" in r.get("message", "")]
    first = waiting[0]
    flag = dict(rows[first - 1])  # the flag row itself, again, after a long quiet stretch
    assert flag.get("verdict") not in (None, "ok", "ask")
    later = first + 60
    assert all(i in waiting for i in range(first, later + 12))
    ph = Phraser()
    seen = [ph.for_row(r) for r in rows[:later]]
    assert sum(p.kind == "hint" for ps in seen for p in ps) >= 2
    ph.for_row(flag)
    after = [ph.for_row(r) for r in rows[later:later + 12]]
    hints = [i for i, ps in enumerate(after) for p in ps if p.kind == "hint"]
    assert hints and hints[0] == 3  # the fourth ok row after the flag, as at the start


def test_normal_mode_stays_close_to_the_referee():
    rows = oracle_rows("M20_wrong_target_pile", upto=9)
    _, prompts = run(rows)
    assert prompts[0] == []  # a turn: nothing to say
    assert prompts[1] == [Prompt("The ace of clubs. Put it beneath 1 o'clock.", 2, "next", 1)]
    assert prompts[2] == [Prompt("Good. Take the top card of 1 o'clock.", 2, "next", 2)]


def test_child_mode_praises_now_and_then_normal_mode_never():
    rows = rows_of(played_events(Deal.random(3)))
    _, child = run(rows, child=True)
    _, normal = run(rows)
    places = [ps for r, ps in zip(rows, child) if r.get("event", [None])[0] == "place" and ps]
    praised = [ps for ps in places if ps[0].text.split("!")[0] + "!" in
               ("Well done!", "Great!", "Nice one!", "Super!", "Brilliant!", "Good job!")]
    assert 0 < len(praised) < len(places)
    assert len({ps[0].text.split("!")[0] for ps in praised}) > 1  # not always the same words
    assert not any("!" in p.text for ps in normal for p in ps if p.kind == "next")
    assert all(p.kind != "alert" for ps in child for p in ps)


def test_child_kings_are_counted():
    rows = rows_of(played_events(Deal.random(3)))
    _, prompts = run(rows, child=True)
    kings = [ps[0].text for r, ps in zip(rows, prompts)
             if r.get("event", [None])[0] == "see" and str(r["event"][1]).startswith("K")]
    assert kings[0].startswith("A king!") and "first king" in kings[0]
    assert kings[-1].startswith("The fourth king")


@pytest.mark.parametrize("child", [False, True])
def test_outcome_rows_give_a_result(child):
    ph = Phraser(child=child)
    won = ph.for_row({"outcome": {"won": True, "face_up": 52, "last_card": "KS"}})
    lost = ph.for_row({"outcome": {"won": False, "face_up": 40, "last_card": "KH"}})
    stopped = ph.for_row({"outcome": "unfinished", "state": {"face_up": 17}})
    for got in (won, lost, stopped):
        assert len(got) == 1 and got[0].kind == "result" and got[0].priority == PRIORITY["result"]
    assert "won" in won[0].text.lower()
    assert "40" in lost[0].text and "17" in stopped[0].text
    if not child:
        assert lost[0].text == "Game over: lost with 40 of 52 cards face up."


def test_a_whole_game_ends_with_its_result():
    rows = oracle_rows("M26_false_win")
    _, prompts = run(rows, child=True)
    assert prompts[-1][0].kind == "result" and "41" in prompts[-1][0].text
    assert "So close!" in prompts[-2][0].text


@pytest.mark.parametrize("child", [False, True])
def test_ask_rows(child):
    ph = Phraser(child=child)
    row = {"frame": 40, "time": 1.3, "event": ["ask", 7], "verdict": "ask", "next_pile": 7,
           "message": "I cannot read the card at 7 o'clock: please show me its corner."}
    got = ph.for_row(row)
    assert len(got) == 1 and got[0].kind == "ask" and got[0].priority == 1 and got[0].frame == 40
    if child:
        assert "seven o'clock" in got[0].text and "corner" in got[0].text
    else:
        assert got[0].text == row["message"]


def test_unknown_rows_are_silent():
    ph = Phraser()
    assert ph.for_row({"prompt": "hello"}) == [] and ph.for_row({}) == []


def test_unsupported_language_is_a_one_line_error():
    assert LANGUAGES == ("en",)
    with pytest.raises(ValueError) as e:
        Phraser(lang="de")
    assert "'de'" in str(e.value) and "supported: en" in str(e.value) and "\n" not in str(e.value)


def test_hint_key():
    ph = Phraser()
    assert ph.hint(7).kind == "hint" and ph.hint(7).priority == 1
    assert ph.hint(7).text == "Take the top card of 7 o'clock."
    rows = rows_of([["turn", 13], ["see", "7H"]], outcome=False)
    for r in rows:
        ph.for_row(r)
    assert ph.hint(7).text == "Put the seven of hearts beneath 7 o'clock."
    ph.for_row(rows_of([["turn", 13], ["see", "7H"], ["place", 5, "under"]], outcome=False)[-1])
    assert ph.hint(7).text == "Move the seven of hearts beneath 7 o'clock."  # the pending fix first
    child = Phraser(child=True)
    assert child.hint(13).text == "Take the top card from the middle."


def test_undo_forgets_the_last_row():
    ph = Phraser(child=True)
    rows = rows_of([["turn", 13], ["see", "7H"], ["place", 5, "under"]], outcome=False)
    for r in rows:
        ph.for_row(r)
    assert ph.reader.pending()
    ph.undo()
    assert not ph.reader.pending() and ph.reader.hand_card == "7H"


def test_prompt_kinds_are_checked():
    with pytest.raises(ValueError, match="unknown prompt kind"):
        Prompt("x", 2, "shout")
    assert Prompt.of("status", "muted").priority == 3
    assert Prompt.of("next", "x", 5).to_json() == {"text": "x", "priority": 2, "kind": "next", "frame": 5}


def test_card_names_in_child_mode():
    for code in ("AS", "8D", "JH"):
        c = Card.parse(code)
        rows = rows_of([["turn", 13], ["see", code]], outcome=False)
        _, prompts = run(rows, child=True)
        assert prompts[1][0].text.startswith(("An " if c.rank.word[0] in "ae" else "A ") + c.rank.word)


def test_phrases_speech_and_summary_load_without_opencv():
    code = ("import sys; import companion.prompts, companion.prompts.phrases, companion.prompts.speech, "
            "companion.prompts.summary; assert 'cv2' not in sys.modules, 'cv2 imported'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_oracle_helper_matches_the_file():
    assert oracle("M20_wrong_target_pile")["expected_first_flag"]["index"] == 8


@pytest.mark.parametrize("child", [False, True])
def test_watch_fourth_king_offers_the_exchange_in_one_prompt(child):
    o = oracle("M28_exchange_in_standard")  # a deal lost with one card face down: Watch offers the exchange
    evs = o["events"]
    last_place = max(i for i, e in enumerate(evs[:153]) if e[0] == "place")
    rows = rows_of(evs[:last_place + 1], "watch", outcome=False)
    assert "exchange the king" in rows[-1]["message"]
    _, prompts = run(rows, child)
    (p,) = prompts[-1]
    assert p.kind == "hint" and ("swap" if child else "exchange") in p.text and "fourth king" in p.text


def test_odd_rows_never_raise():
    """Rows from any oracle stream, and malformed ones, give prompts or nothing, never an exception."""
    from tests.conftest import ORACLES
    from companion.prompts import GameSummary

    weird = [{"event": ["see", None], "verdict": "ok"}, {"event": ["move", "XX", 99, "sideways"], "verdict": "ok"},
             {"event": ["place"], "verdict": "WRONG_SIDE"}, {"event": ["return"], "verdict": "ok"},
             {"event": "turn 3", "verdict": "ok"}, {"event": ["turn", "x"], "verdict": "SOMETHING_NEW",
                                                    "message": "A flag from the future."},
             {"outcome": None}, {"outcome": "unfinished"}, {"frame": "x", "time": "y", "event": ["declare", "win"]},
             None, [], {"event": ["exchange", 3], "verdict": "EXCHANGE_NOT_ALLOWED"}]
    for child in (False, True):
        ph, s = Phraser(child=child), GameSummary()
        for r in weird:
            for p in ph.for_row(r):
                assert isinstance(p, Prompt) and p.text
            s.add(r)
        s.to_json(), s.text(), s.text(child=True), ph.hint(None), ph.hint(3)
        for o in ORACLES["oracles"]:
            if isinstance(o.get("events"), list):
                ph, s = Phraser(child=child), GameSummary()
                for r in rows_of(o["events"], o.get("variant", "standard")):
                    ph.for_row(r)
                    s.add(r)
                s.text(child=child)


@pytest.mark.parametrize("child", [False, True])
def test_a_card_put_back_on_the_wrong_pile_is_asked_off_it_and_thanked(child):
    """3C taken from 2 o'clock by mistake, put back face down on 5 o'clock; later taken off 5 and put back on 2."""
    start = [["turn", 13], ["see", "AC"], ["place", 1, "under"], ["turn", 2], ["see", "3C"], ["return", 5]]
    rows = rows_of(start + [["turn", 1], ["see", "2C"], ["place", 2, "under"], ["turn", 5], ["return", 2]],
                   outcome=False)
    ph, prompts = run(rows, child)
    alert, taken_back, fix = prompts[5][0], prompts[9][0], prompts[10][0]
    assert alert.kind == "alert"
    if child:
        assert alert.text == ("That three came from two o'clock. Can you take it off five o'clock and put it back "
                              "there, face down?")
        assert taken_back.text == "Yes, that's the one! Now put it back face down on two o'clock."
        assert fix.text == "Thank you! Now take a card from two o'clock."
    else:
        assert alert.text == rows[5]["message"] and taken_back.text == rows[9]["message"]
        assert fix.text.startswith("Thank you, that is fixed.")
    assert taken_back.kind == "hint" and fix.kind == "praise" and ph.reader.pending() == []
