"""The scatter step's command line (the measurement itself follows three games: minutes, not run here;
its figures are in models/manifest.json and checked through the recogniser's tests)."""

from __future__ import annotations

from pathlib import Path

from companion.train import scatter


def test_a_folder_without_a_manifest_is_one_line_and_exit_2(tmp_path: Path, capsys):
    assert scatter.main(["--models", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "manifest.json" in err and "\n" not in err


def test_the_seeds_kept_for_it_are_not_the_development_games():
    assert not set(scatter.SCATTER_SEEDS) & {2000, 2001, 2002, 2003, *range(9010, 9021)}
