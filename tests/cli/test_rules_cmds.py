"""`companion check-deal` and `companion referee` as a user runs them (subprocess, real exit codes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import oracle, oracles_of

EXE = [sys.executable, "-m", "companion"]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*EXE, *args], capture_output=True, text=True, input=stdin, timeout=60)


def piles_text(o: dict) -> str:
    return "|".join(" ".join(o["piles_top_first"][str(p)]) for p in range(1, 14))


@pytest.mark.parametrize("oid", ["O01_uva170_sample", "O07_worked_example_6H_QC_lost_30"])
def test_check_deal_json_matches_oracle(oid):
    o = oracle(oid)
    r = run("check-deal", piles_text(o), "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    e = o["expected"]
    assert (got["won"], got["face_up"], got["last_card"]) == (e["won"], e["face_up"], e["last_card"])
    assert got["moves"] == e["moves"]
    if "face_down_at_end" in e:
        assert got["face_down_at_end"] == e["face_down_at_end"]


def test_check_deal_order_and_text():
    o = oracle("O06_worked_example_6H_QC_won")
    r = run("check-deal", "--deal-order", " ".join(o["deal_order"]))
    assert r.returncode == 0
    assert "WON: 52 cards face up, last card KC." in r.stdout


def test_check_deal_watch_exchange_table():
    (o,) = oracles_of("watch_table")
    for row in o["expected"]:
        r = run("check-deal", "--deal-order", " ".join(o["deal_order"]), "--variant", "watch",
                "--exchange", f"{row['pile']}:{row['depth_from_top']}", "--json")
        got = json.loads(r.stdout)
        assert got["exchange"]["card_taken"] == row["card_taken"]
        assert (got["won"], got["face_up"], got["last_card"]) == (row["won"], row["face_up"], row["last_card"])


@pytest.mark.parametrize("args, needle", [
    (["check-deal", "2C 2D 2H 2S|3C"], "13 groups"),
    (["check-deal", "|".join(["2C 2D 2H 2S"] * 13)], "duplicate card 2C"),
    (["check-deal", "|".join(["2C 2D 2H 2X"] + ["3C 3D 3H 3S"] * 12)], "2X"),
    (["check-deal", "|".join(["2C 2D 2H"] + ["3C 3D 3H 3S"] * 12)], "pile 1 has 3 cards"),
    (["check-deal", "--deal-order", "AC 2C"], "52 cards"),
    (["check-deal"], "either PILES or --deal-order"),
    (["check-deal", "--deal-order", " ".join(oracle("O04_loss_41")["deal_order"]), "--exchange", "2:0"],
     "--variant watch"),
    (["check-deal", "--deal-order", " ".join(oracle("O04_loss_41")["deal_order"]), "--variant", "watch",
      "--exchange", "2:5"], "depth 5 does not exist"),
    (["check-deal", "--deal-order", " ".join(oracle("O02_won_next_rank")["deal_order"]), "--variant", "watch",
      "--exchange", "2:0"], "no exchange is possible"),
    (["check-deal", "--deal-order", " ".join(oracle("O04_loss_41")["deal_order"]), "--variant", "blitz"],
     "unknown variant"),
])
def test_check_deal_bad_input(args, needle):
    r = run(*args)
    assert r.returncode == 2
    assert needle in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("o", oracles_of("mistake"), ids=lambda o: o["id"])
def test_referee_cli_flags_oracle_streams(o, tmp_path: Path):
    f = tmp_path / "events.jsonl"
    f.write_text("\n".join(json.dumps(e) for e in o["events"]) + "\n")
    r = run("referee", str(f), "--variant", o.get("variant", "standard"), "--json")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(rows) == len(o["events"])
    assert set(rows[0]) == {"index", "verdict", "message", "next_pile"}
    first = next(row for row in rows if row["verdict"] != "ok")
    e = o["expected_first_flag"]
    assert (first["index"], first["verdict"]) == (e["index"], e["code"])


def test_referee_reads_stdin_and_prints_text():
    r = run("referee", "-", stdin='["turn", 13]\n# a comment\n\n["see", "6H"]\n["place", 5, "under"]\n')
    assert r.returncode == 0
    assert "WRONG_TARGET_PILE" in r.stdout and "3 events, 1 flag(s)" in r.stdout


@pytest.mark.parametrize("content, needle", [
    ('["turn", 13]\nnot json\n', ":2: not JSON"),
    ('["jump", 3]\n', "unknown event kind"),
    ('["turn", 14]\n', "no pile 14"),
    ('["see", "ZZ"]\n', "not a card"),
    ('["place", 3, "sideways"]\n', "side must be"),
])
def test_referee_bad_input(content, needle, tmp_path: Path):
    f = tmp_path / "bad.jsonl"
    f.write_text(content)
    r = run("referee", str(f))
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr


def test_referee_missing_file():
    r = run("referee", "/nonexistent/events.jsonl")
    assert r.returncode == 2 and "cannot read" in r.stderr and "Traceback" not in r.stderr


def test_help_on_every_command():
    r = run("--help")
    assert r.returncode == 0
    for cmd in ("check-deal", "referee"):
        h = run(cmd, "--help")
        assert h.returncode == 0 and "Usage" in h.stdout
