"""`companion practice` (the terminal trainer) and `companion demo`, driven by scripts.

Seed-dependent scripts are generated from the rules engine here, so they follow the
engine's deal convention; the files in tests/practice_scripts/ use the lessons'
explicit deals or no particular card.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cards import CENTRE
from companion.practice import LESSONS, Trainer, best_exchange, outcome_line, parse_command
from companion.practice.commands import CommandError
from companion.practice.terminal import Printer, ScriptError, demo_steps, load_script, run_demo, run_keyboard, run_lines
from companion.rules.deal import Deal
from companion.rules.game import ClockGame

SCRIPTS = Path(__file__).resolve().parent / "practice_scripts"
COMPANION = Path(sys.executable).parent / "companion"
EXE = [str(COMPANION)] if COMPANION.exists() else [sys.executable, "-m", "companion"]


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def key(pile: int) -> str:
    return "c" if pile == CENTRE else str(pile)


def game_script(seed: int, variant: str = "standard") -> list[str]:
    """Turn and place every card of the seeded game correctly (standard end: no exchange)."""
    game = ClockGame(Deal.random(seed), variant)  # type: ignore[arg-type]
    game.play()
    return [cmd for m in game.moves for cmd in ("t", key(m.to_pile))]


def drive(lines: list[str], **kwargs) -> tuple[Trainer, str]:
    """Run ``lines`` as a script through the terminal layer; returns the trainer and all output."""
    trainer = Trainer(clock=FakeClock(), **kwargs)
    out = io.StringIO()
    assert run_lines(trainer, lines, Printer(out)) == 0
    return trainer, out.getvalue()


def drive_file(name: str, **kwargs) -> tuple[Trainer, str]:
    return drive([text for _, text in load_script(SCRIPTS / name)], **kwargs)


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*EXE, *args], capture_output=True, text=True, input=stdin, timeout=120,
                          encoding="utf-8")


def screens(output: str) -> list[str]:
    return output.split("═" * 80)


# -- commands -----------------------------------------------------------------------------
@pytest.mark.parametrize("text, kind, arg, depth", [
    ("", "turn", None, None), ("t", "turn", None, None), ("  T ", "turn", None, None),
    ("7", "place", 7, None), ("12", "place", 12, None), ("13", "place", 13, None), ("c", "place", 13, None),
    ("h", "hint", None, None), ("u", "undo", None, None), ("r", "restart", None, None),
    ("n", "new", None, None), ("y", "yes", None, None), ("l", "lessons", None, None),
    ("l 3", "lesson", 3, None), ("l4", "lesson", 4, None), ("p", "pause", None, None),
    ("x 7:0", "exchange", 7, 0), ("x 12 3", "exchange", 12, 3), ("d", "decline", None, None),
    ("q", "quit", None, None), ("?", "help", None, None),
])
def test_parse_command(text, kind, arg, depth):
    cmd = parse_command(text)
    assert (cmd.kind, cmd.arg, cmd.depth) == (kind, arg, depth)


@pytest.mark.parametrize("text", ["0", "14", "jump", "l 5", "l x", "x", "x 7", "x 99:0", "7 8"])
def test_parse_command_refuses(text):
    with pytest.raises(CommandError):
        parse_command(text)


# -- turn, refuse, hint, undo, restart ----------------------------------------------------
def test_turn_wrong_pile_hint_and_place():
    game = ClockGame(Deal.random(3))
    first = game.peek()
    wrong = first.to_pile % 12 + 1
    trainer, out = drive(["t", str(wrong), "h", key(first.to_pile)], seed=3)
    assert f"You turned the {first.card.label} from the centre" in out
    assert f"In your hand: {first.card.label}" in out
    assert f"No: {first.card.label} lives at {first.to_pile} o'clock, not {wrong}" in out
    assert f"Hint: the {first.card.label} goes beneath {first.to_pile} o'clock" in out
    assert f"Yes! The {first.card.label} goes beneath {first.to_pile} o'clock" in out
    assert f"Last card: {first.card.label}" in out
    assert trainer.mistakes == 1 and trainer.hints == 1
    assert trainer.game.moves == [first]
    assert trainer.phase == "turn" and trainer.game.current_pile == first.to_pile


def test_refusal_reason_is_exactly_the_rule():
    # 7♥ lives at 7 o'clock, not 5 (the brief's wording).
    deal = Deal.parse_piles("|".join(
        " ".join(r + s for s in "CDHS") for r in "23456789TJQKA"))
    piles = [list(deal.pile(p)) for p in range(1, 14)]
    piles[12][0], piles[5][0] = piles[5][0], piles[12][0]  # 7C (pile 6's top) to the centre's top
    trainer = Trainer(clock=FakeClock())
    trainer.game = ClockGame(Deal.from_piles(piles))
    trainer.handle("t")
    assert trainer.revealed.card.label == "7♣"
    assert trainer.handle("5").messages == ("No: 7♣ lives at 7 o'clock, not 5. Try again.",)
    assert "not in the centre" in trainer.handle("c").messages[0]
    assert trainer.mistakes == 2


def test_king_refusal_and_jack_note():
    trainer = Trainer(lesson=1, clock=FakeClock())
    trainer.handle("t")
    msg = trainer.handle("9").messages[0]
    assert msg.startswith("No: K♥ is a king: kings go under the centre (c), not 9")


def test_commands_in_the_wrong_phase_are_explained_not_fatal():
    trainer, out = drive(["7", "t", "t", "y", "d", "x 1:0"], seed=3)
    assert "First turn a card" in out
    assert "You already hold the" in out
    assert "There is no question to answer" in out
    assert "There is no king swap to say no to" in out
    assert "The king swap is only in the Watch game" in out
    assert trainer.mistakes == 0 and trainer.phase == "place"


def test_unknown_command_during_play_is_a_message():
    trainer = Trainer(seed=3, clock=FakeClock())
    reply = trainer.handle("jump")
    assert reply.messages[0].startswith("Sorry: unknown command 'jump'")
    assert not reply.quit and trainer.phase == "turn"


def test_undo_puts_cards_back_face_down():
    game = ClockGame(Deal.random(3))
    m1 = game.turn()
    m2 = game.peek()
    trainer, out = drive(["u", "t", key(m1.to_pile), "t", "u", "u", "u"], seed=3)
    assert "Nothing to undo: no card has been turned yet" in out
    assert f"Undone: the {m2.card.label} goes back face down on {m1.to_pile} o'clock" in out
    assert f"Undone: the {m1.card.label} goes back face down on the centre" in out
    assert trainer.game.moves == [] and trainer.revealed is None and trainer.undos == 2
    assert trainer.game.face_down == ClockGame(Deal.random(3)).face_down


def test_restart_same_deal():
    lines = game_script(3)[:10] + ["h", "r"]
    trainer, out = drive(lines, seed=3)
    assert "Starting deal 3 again from the beginning" in out
    assert trainer.seed == 3 and trainer.game.moves == [] and trainer.hints == 0
    assert trainer.game.deal == Deal.random(3)


def test_new_deal_needs_confirmation():
    trainer, out = drive_file("pause_help_newdeal.txt", seed=3)
    assert "Deal new cards? This game will be lost. Type y or n." in out
    assert "OK, keep playing this deal." in out
    assert "Please answer y (yes) or n (no)" in out
    assert "New cards: deal" in out
    assert trainer.seed != 3 and trainer.game.moves == [] and trainer.revealed is None
    # the first "n" was answered no: the card turned after it belongs to deal 3
    assert f"You turned the {ClockGame(Deal.random(3)).peek().card.label}" in out


def test_new_deals_follow_the_seed():
    a, b = Trainer(seed=5, clock=FakeClock()), Trainer(seed=5, clock=FakeClock())
    for t in (a, b):
        t.handle("n")
        t.handle("y")
    assert a.seed == b.seed and a.game.deal == b.game.deal


# -- pause ----------------------------------------------------------------------------------
def test_pause_hides_the_cards_and_stops_the_clock():
    clock = FakeClock()
    trainer = Trainer(seed=3, clock=clock)
    trainer.handle("t")
    clock.now += 30
    trainer.handle("p")
    assert trainer.phase == "paused"
    screen = trainer.screen()
    assert "PAUSED" in screen and "▓" not in screen and "In your hand" not in screen
    clock.now += 600
    assert trainer.handle("h").messages == ("The game is paused: press p (or Enter) to carry on.",)
    assert trainer.hints == 0
    trainer.handle("p")
    assert trainer.phase == "place" and "In your hand" in trainer.screen()
    clock.now += 12
    assert int(trainer.elapsed) == 42
    assert "time 0:42" in trainer.status()


def test_pause_script_file():
    trainer, out = drive_file("pause_help_newdeal.txt", seed=3)
    assert "PAUSED: the cards are hidden" in out
    assert "Welcome back" in out
    assert "Keys (type one command, then press Enter)" in out
    assert "l 4   How a game is won" in out


# -- lessons -------------------------------------------------------------------------------
def test_lessons_are_engine_positions():
    l1, l2, l3, l4 = LESSONS
    g = l1.start()
    assert g.peek().card.is_king and g.peek().from_pile != CENTRE
    g.turn()
    assert g.current_pile == CENTRE and not g.is_over()
    g = l2.start()
    assert g.kings_up == 3
    g.turn()
    assert g.turn().card.is_king and g.is_over() and g.face_down_count > 0
    g = l3.start()
    m = g.peek()
    assert m.from_pile == m.to_pile != CENTRE
    g = l4.start()
    assert g.face_up_count == 51 and g.turn().card.is_king and g.outcome().won


def test_lesson_1_king_under_the_centre():
    trainer, out = drive_file("lesson1.txt", seed=3)
    assert "Lesson 1 of 4: Kings go under the centre" in out
    assert "No: K♥ is a king" in out and "Hint: the K♥ is a king" in out
    assert "Well done: the king went under the centre" in out
    assert trainer.revealed.from_pile == CENTRE  # play continued from the centre


def test_lesson_2_fourth_king_ends_the_game():
    trainer, out = drive_file("lesson2.txt", seed=3)
    assert "That was the fourth king" in out
    out_line = outcome_line(LESSONS[1].start().play())
    assert out_line in out and "lost, 8 of 52" in out_line
    assert trainer.outcome.face_up == 8 and not trainer.outcome.won


def test_lesson_3_self_loop():
    trainer, out = drive_file("lesson3.txt")
    assert "Yes! The 4♠ goes home to 4 o'clock, its own pile" in out
    assert "Right: the 4♠ went home to its own pile" in out
    assert trainer.revealed.from_pile == 4


def test_lesson_4_winning_ending():
    trainer, out = drive_file("lesson4.txt")
    assert "Face up 51 of 52" in out
    assert "You won! All 52 cards are face up." in out
    assert "Outcome: won, 52 of 52 cards face up" in out
    assert trainer.outcome.won


def test_lesson_undo_stops_at_the_lesson_start_and_restart_returns_there():
    trainer, out = drive(["l 3", "t", "4", "u", "u", "r"])
    assert "Nothing to undo: this is where the lesson starts." in out
    assert "Starting lesson 3 again" in out
    assert trainer.game.face_up_count == LESSONS[2].premoves and trainer.lesson.number == 3


def test_lesson_option():
    trainer = Trainer(lesson=2, clock=FakeClock())
    assert trainer.title().startswith("Lesson 2 of 4") and trainer.game.kings_up == 3


# -- the Watch variant ----------------------------------------------------------------------
WATCH_SEED = 7  # the fourth king comes up with cards face down


def test_watch_decline_ends_like_the_standard_game():
    engine = ClockGame(Deal.random(WATCH_SEED), "watch")
    standard_end = engine.play()
    assert engine.can_exchange()
    trainer, out = drive(game_script(WATCH_SEED, "watch") + ["d"], seed=WATCH_SEED, variant="watch")
    assert "Watch rule: you may swap this king ONCE" in out
    assert "No swap, then." in out
    assert trainer.outcome == standard_end
    assert outcome_line(standard_end) in out


def test_watch_exchange_plays_on_until_that_king_returns():
    engine = ClockGame(Deal.random(WATCH_SEED), "watch")
    engine.play()
    best, face_up = best_exchange(engine)
    before = len(engine.moves)
    engine.exchange(best.pile, best.depth)
    expected = engine.play()
    assert expected.face_up == face_up
    lines = game_script(WATCH_SEED, "watch") + ["h", f"x {best.pile}:{best.depth}"]
    # the card taken is already in hand; every later card is turned first
    lines.append(key(engine.moves[before].to_pile))
    for m in engine.moves[before + 1:]:
        lines += ["t", key(m.to_pile)]
    trainer, out = drive(lines, seed=WATCH_SEED, variant="watch")
    assert f"Hint: x {best.pile}:{best.depth}" in out
    assert "Swapped: the king now lies face down" in out
    assert trainer.outcome == expected
    assert outcome_line(expected) in out and "king swapped for" in outcome_line(expected)


def test_watch_script_file_refusal_decline_undo_exchange():
    trainer, out = drive_file("watch_lesson2.txt", variant="watch")
    assert "That was the fourth king: a standard game would stop here." in out
    assert "No: pile 6 has 4 face-down card(s); depth 9 does not exist" in out
    assert "No swap, then." in out and "Outcome: lost, 8 of 52" in out
    assert "Undone: you may choose the king swap again." in out
    assert "Swapped: the king now lies face down at 6 o'clock" in out
    taken = LESSONS[1].deal.pile(6)[0]
    assert trainer.revealed.card == taken and f"Hint: the {taken.label}" in out


def test_watch_undo_of_the_exchange():
    trainer = Trainer(lesson=2, variant="watch", clock=FakeClock())
    for cmd in ["t", "2", "t", "c", "x 6:0"]:
        trainer.handle(cmd)
    taken = trainer.revealed
    trainer.handle(key(taken.to_pile))
    assert trainer.handle("u").messages[0] == f"Undone: you hold the {taken.card.label} again. Where does it go?"
    assert trainer.phase == "place"
    assert trainer.handle("u").messages[0] == "Undone: the swap is taken back and the king is up again."
    assert trainer.phase == "exchange" and trainer.game.kings_up == 4


# -- whole games: the progress record -------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 3, 7, 11, 18])
def test_whole_game_progress_record(seed):
    expected = ClockGame(Deal.random(seed)).play()
    trainer, out = drive(game_script(seed), seed=seed)
    assert trainer.outcome == expected
    assert outcome_line(expected) in out
    assert f"progress record {expected.face_up}/52 ({'won' if expected.won else 'lost'})" in out
    assert "Summary: mistakes refused 0 · hints used 0 · undos 0 · time 0:00." in out


def test_every_screen_fits_80_by_24():
    lines = game_script(7, "watch") + ["?", "l", "p", "p", "h", "d", "n", "t", "y", "l 2", "t", "2", "t", "c"]
    trainer = Trainer(seed=7, variant="watch", clock=FakeClock())
    shown = [trainer.screen()]
    for line in lines:
        trainer.handle(line)
        shown.append(trainer.screen())
    assert trainer.phase == "exchange"
    for screen in shown:
        rows = screen.splitlines()
        assert len(rows) <= 23, screen  # leaves the input line of a 24-line terminal
        assert max(len(r) for r in rows) <= 80, screen


def test_quit():
    trainer, out = drive(["t", "q", "t"], seed=3)
    assert "Bye! 0/52 face up so far." in out and trainer.quit
    assert out.count("> t") == 1  # nothing after q


def test_keyboard_loop_reads_until_eof():
    trainer = Trainer(seed=3, clock=FakeClock())
    feed = iter(["t", "h"])

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    out = io.StringIO()
    assert run_keyboard(trainer, Printer(out, clear=True), read=read) == 0
    assert trainer.hints == 1 and "Bye!" in out.getvalue() and "\033[H\033[2J" in out.getvalue()


def test_colours_only_when_asked():
    trainer = Trainer(seed=3, clock=FakeClock())
    trainer.handle("t")
    plain, coloured = io.StringIO(), io.StringIO()
    Printer(plain).screen(trainer)
    Printer(coloured, colour=True).screen(trainer)
    assert "\033[" not in plain.getvalue() and "\033[" in coloured.getvalue()
    assert Printer.for_stream(io.StringIO()).colour is False


def test_ascii_fallback():
    trainer = Trainer(seed=3, clock=FakeClock())
    out = io.StringIO()
    Printer(out, ascii_only=True).screen(trainer)
    out.getvalue().encode("ascii")


# -- scripts ----------------------------------------------------------------------------------
def test_load_script_comments_and_errors(tmp_path):
    f = tmp_path / "s.txt"
    f.write_text("# a comment\n\nt   # turn\n  7\n")
    assert load_script(f) == [(3, "t"), (4, "7")]
    with pytest.raises(ScriptError, match="line 4: unknown command 'jump'"):
        load_script(SCRIPTS / "bad_command.txt")
    with pytest.raises(ScriptError, match="not found"):
        load_script(tmp_path / "missing.txt")


# -- the demo -------------------------------------------------------------------------------
def test_demo_shows_the_teaching_moments():
    steps = demo_steps(7)
    commands = [c for c, _ in steps]
    assert "h" in commands and "u" in commands
    out = io.StringIO()
    assert run_demo(7, Printer(out), fast=True) == 0
    text = out.getvalue()
    assert "No: " in text and "Hint: " in text and "Undone: " in text and "goes under the centre" in text
    assert outcome_line(ClockGame(Deal.random(7)).play()) in text


def test_demo_pauses_only_on_a_terminal():
    naps: list[float] = []
    run_demo(7, Printer(io.StringIO(), clear=True), sleep=naps.append)
    assert naps and sum(naps) <= 30
    naps.clear()
    run_demo(7, Printer(io.StringIO(), clear=True), fast=True, sleep=naps.append)
    run_demo(7, Printer(io.StringIO()), sleep=naps.append)
    assert naps == []


def test_demo_watch_makes_the_exchange():
    out = io.StringIO()
    run_demo(7, Printer(out), variant="watch", fast=True)
    assert "Swapped: the king now lies face down" in out.getvalue()
    assert "Outcome: " in out.getvalue()


# -- the command line -------------------------------------------------------------------------
def test_cli_practice_script_seed_3(tmp_path):
    script = tmp_path / "seed3.txt"
    script.write_text("# the whole of deal 3\n" + "\n".join(game_script(3)) + "\n")
    r = run_cli("practice", "--seed", "3", "--script", str(script))
    assert r.returncode == 0, r.stderr
    assert outcome_line(ClockGame(Deal.random(3)).play()) in r.stdout
    assert "\033[" not in r.stdout  # no colours when not a terminal


def test_cli_practice_script_file_with_lesson_and_variant():
    r = run_cli("practice", "--variant", "watch", "--script", str(SCRIPTS / "watch_lesson2.txt"))
    assert r.returncode == 0, r.stderr
    assert "Swapped: the king now lies face down at 6 o'clock" in r.stdout


def test_cli_practice_lesson_option_reads_stdin():
    r = run_cli("practice", "--lesson", "4", stdin="t\njump\nc\n")
    assert r.returncode == 0, r.stderr
    assert "Sorry: unknown command 'jump'" in r.stdout
    assert "Outcome: won, 52 of 52 cards face up" in r.stdout


def test_cli_demo_fast():
    r = run_cli("demo", "--fast")
    assert r.returncode == 0, r.stderr
    assert outcome_line(ClockGame(Deal.random(7)).play()) in r.stdout
    assert r.stdout.rstrip().splitlines()[-3].startswith("Outcome: ")


@pytest.mark.parametrize("args, message", [
    (["practice", "--script", "no/such/file.txt"], "script file not found"),
    (["practice", "--lesson", "9"], "there is no lesson 9"),
    (["practice", "--lesson", "two"], "--lesson must be a whole number"),
    (["practice", "--seed", "x"], "--seed must be a whole number"),
    (["practice", "--variant", "speedy"], "unknown variant"),
    (["practice", "--script", str(SCRIPTS / "bad_command.txt")], "line 4: unknown command 'jump'"),
    (["demo", "--seed", "seven"], "--seed must be a whole number"),
])
def test_cli_bad_input_is_one_line_exit_2(args, message):
    r = run_cli(*args, stdin="")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], r.stderr
    assert r.stdout == ""


def test_rank_letters_get_a_helpful_message():
    with pytest.raises(CommandError, match="jacks go to 11 o'clock, so type 11"):
        parse_command("j")


def test_cli_output_cut_short_is_quiet():
    r = subprocess.run(f"'{EXE[0]}' demo --fast | head -1", shell=True, capture_output=True, text=True,
                       timeout=120) if len(EXE) == 1 else None
    if r is not None:
        assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr


def test_after_the_end_undo_reopens_and_restart_replays():
    expected = ClockGame(Deal.random(7)).play()
    lines = game_script(7)
    trainer, out = drive(lines + ["t", "u", "t", lines[-1], "r"], seed=7)
    assert out.count(outcome_line(expected)) == 2  # finished, undone, finished again
    assert "The game is over: r plays this deal again" in out
    assert f"Undone: the {expected.last_card.label} goes back face down" in out
    assert "Starting deal 7 again" in out and trainer.game.moves == [] and trainer.outcome is None
