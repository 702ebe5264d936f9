"""`companion decks`: list the card decks for the synthetic table, or draw contact sheets."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Optional

import typer

from ._app import app, fail

DECK_HELP = ("a deck name (see `companion decks`), e.g. builtin, anglo, kde-oxygen, or "
             "folder:/path/to/images")


def _yes(b: bool) -> str:
    return "yes" if b else "no"


def _table(infos) -> str:
    head = ("name", "source", "alphabet", "standard", "available", "note")
    rows = [(i.name, i.source, i.alphabet + (" (" + "/".join(v or "-" for v in i.letters.values())
                                              + ")" if i.letters else ""),
             _yes(i.standard), _yes(i.available), i.note) for i in infos]
    widths = [max(len(r[k]) for r in rows + [head]) for k in range(5)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)) + "  note"]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[5])
    avail = sum(i.available for i in infos)
    lines.append(f"{len(infos)} decks, {avail} available here"
                 + ("" if avail == len(infos) else
                    " (GNOME: apt-get install gnome-cards-data librsvg2-bin; KDE: apt-get install "
                    "kdegames-card-data-kf5 and pip install PySide6-Essentials)"))
    return "\n".join(lines)


@app.command("decks")
def decks(
    as_json: bool = typer.Option(False, "--json", help="a JSON array: name, source, alphabet, "
                                 "standard, available, letters, note"),
    sheet: Optional[Path] = typer.Option(
        None, "--sheet", help="write a contact sheet PNG: every face and the back of --deck, "
        "or (without --deck) a row of a few cards for every available deck"),
    deck: Optional[str] = typer.Option(None, "--deck", help=DECK_HELP),
    height: int = typer.Option(0, "--height", help="card height in the sheet in px "
                               "(default 160 for one deck, 100 for all)"),
    boxes: bool = typer.Option(False, "--boxes", help="outline the index boxes on the sheet"),
) -> None:
    """List the card decks (built-in, GNOME, KDE), or draw a contact sheet of one or all."""
    from ..synth.decks import DeckError, get_deck, list_decks

    if height and not 40 <= height <= 1000:
        fail(f"--height {height}: use 40..1000 px")
    try:
        if sheet is None:
            infos = list_decks()
            if deck is not None:
                d = get_deck(deck, 160)
                infos = [d.info]
            if as_json:
                print(json.dumps([i.as_dict() for i in infos], indent=1, ensure_ascii=False))
            else:
                print(_table(infos))
            return
        _write_sheet(sheet, deck, height, boxes)
    except DeckError as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(str(exc))


def _write_sheet(sheet: Path, deck: Optional[str], height: int, boxes: bool) -> None:
    import cv2

    from ..progress import Progress
    from ..synth.decks import get_deck, list_decks
    from ..synth.decks_sheet import deck_sheet, overview_sheet

    if sheet.suffix.lower() not in (".png", ".jpg", ".jpeg", ".webp"):
        fail(f"--sheet {sheet}: use a .png (or .jpg) file name")
    t0 = time.perf_counter()
    if deck is not None:
        d = get_deck(deck, max(350, height))  # the cached size; the sheet scales down
        img = deck_sheet(d, card_height=height or 160, boxes=boxes)
        what = f"{d.info.name}: 52 faces and the back"
    else:
        names = [i.name for i in list_decks() if i.available]
        ch = height or 100
        with Progress(len(names), "decks") as bar:
            loaded = []
            for n in names:
                loaded.append(get_deck(n, max(350, ch)))
                bar.update(1)
        img = overview_sheet(loaded, card_height=ch, boxes=boxes, columns=3 if len(loaded) > 30 else 2)
        what = f"{len(loaded)} decks"
    sheet.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(sheet), img, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
        fail(f"cannot write {sheet}")
    print(f"wrote {sheet} ({what}, {img.shape[1]}x{img.shape[0]}, "
          f"{time.perf_counter() - t0:.1f}s)", file=sys.stderr)
