"""The command line's shared helpers."""

from __future__ import annotations

import pytest
import typer

from companion.cli._app import parse_resolution


def test_parse_resolution_reads_wxh_and_refuses_anything_else(capsys):
    assert parse_resolution("1920x1080") == (1920, 1080)
    assert parse_resolution("640X360", least=(160, 90)) == (640, 360)
    for bad, least in (("12y3", (1, 1)), ("0x10", (1, 1)), ("100x50", (160, 90))):
        with pytest.raises(typer.Exit) as exc:
            parse_resolution(bad, "640x360", least=least)
        assert exc.value.exit_code == 2
        err = capsys.readouterr().err
        assert err.startswith("error: --resolution must look like 640x360") and err.count("\n") == 1
    with pytest.raises(typer.Exit):
        parse_resolution("100x50", least=(160, 90))
    assert "(at least 160x90)" in capsys.readouterr().err
