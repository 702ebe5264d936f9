"""Deck sources: the built-in OpenCV deck, GNOME/KDE system decks, folder decks, `companion decks`."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from companion.cards import FULL_DECK, Card
from companion.cli import app
from companion.synth import decks as decks_mod
from companion.synth.builtin_deck import STYLES, BuiltinRenderer
from companion.synth.decks import (
    Deck,
    DeckInfo,
    FolderDeckError,
    MissingPackageError,
    UnknownDeckError,
    get_deck,
    list_decks,
)
from companion.synth.decks_catalogue import GNOME, KDE

GNOME_DIR = Path("/usr/share/aisleriot/cards")
KDE_DIR = Path("/usr/share/carddecks")
HAVE_RSVG = shutil.which("rsvg-convert") is not None
HAVE_GNOME = HAVE_RSVG and (GNOME_DIR / "anglo.svgz").is_file()
try:
    import PySide6.QtSvg  # noqa: F401

    HAVE_PYSIDE = True
except ImportError:
    HAVE_PYSIDE = False
HAVE_KDE = HAVE_PYSIDE and (KDE_DIR / "svg-standard").is_dir()
needs_gnome = pytest.mark.skipif(
    not HAVE_GNOME, reason="needs rsvg-convert and the GNOME decks: apt-get install gnome-cards-data librsvg2-bin")
needs_kde = pytest.mark.skipif(
    not HAVE_KDE, reason="needs PySide6 (pip install PySide6-Essentials) and apt-get install kdegames-card-data-kf5")

ALPHABETS = {"english", "french", "german", "italian", "none", "other"}
runner = CliRunner()


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Each test session renders into its own cache; the in-memory deck memo starts empty."""
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    decks_mod.clear_memory_cache()
    yield
    decks_mod.clear_memory_cache()


def _paper_diff(face: np.ndarray) -> np.ndarray:
    paper = np.median(face[face[..., 3] == 255][:, :3], axis=0)
    return np.abs(face[..., :3].astype(int) - paper).max(axis=2)


# --------------------------------------------------------------------------- builtin

@pytest.mark.parametrize("style", list(STYLES))
def test_builtin_faces_distinct_same_size_with_alpha(style):
    deck = get_deck(style, height=210)
    assert isinstance(deck, Deck) and deck.info.source == "builtin" and deck.info.standard
    faces = [deck.face(c) for c in FULL_DECK]
    w, h = deck.size
    assert h == 210 and 0.66 < w / h < 0.76  # poker-ish 2.5 : 3.5
    for f in faces:
        assert f.shape == (h, w, 4) and f.dtype == np.uint8
        assert f[0, 0, 3] == 0 and f[-1, -1, 3] == 0  # rounded corners are transparent
        assert f[h // 2, w // 2, 3] == 255 and f[h // 2, 1, 3] == 255
    assert len({f.tobytes() for f in faces}) == 52
    back = deck.back()
    assert back.shape == faces[0].shape and all(not np.array_equal(back, f) for f in faces)


def test_builtin_is_deterministic_and_cards_accept_codes():
    a = BuiltinRenderer("builtin-serif", 180)
    b = BuiltinRenderer("builtin-serif", 180)
    for c in FULL_DECK:
        assert np.array_equal(a.face(c), b.face(c))
        assert a.index_boxes(c) == b.index_boxes(c)
    assert np.array_equal(a.back(), b.back())
    deck = get_deck("builtin", 180)
    assert deck.face("10H") is deck.face(Card.parse("TH"))  # cached, read-only
    with pytest.raises(ValueError):
        deck.face("QS")[0, 0, 0] = 1


def test_builtin_is_fast():
    deck = get_deck("builtin-bold", 350)
    deck.face(FULL_DECK[0])
    t = time.perf_counter()
    for c in FULL_DECK[1:]:
        deck.face(c)
    first = (time.perf_counter() - t) / 51
    t = time.perf_counter()
    for c in FULL_DECK:
        deck.face(c)
    again = (time.perf_counter() - t) / 52
    assert first < 0.05 and again < 0.001, (first, again)


@pytest.mark.parametrize("style", list(STYLES))
def test_builtin_index_boxes_inside_and_inked(style):
    deck = get_deck(style, 280)
    w, h = deck.size
    n_corners = len(STYLES[style].corners)
    for c in FULL_DECK:
        face = deck.face(c)
        ink = _paper_diff(face) > 80
        boxes = deck.index_boxes(c)
        assert len(boxes) == n_corners
        for x0, y0, x1, y1 in boxes:
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
            assert (x1 - x0) < 0.3 * w and (y1 - y0) < 0.3 * h
            box_ink = ink[y0:y1, x0:x1]
            assert box_ink.mean() > 0.08
            # tight: ink touches every side of the box
            assert box_ink[:, :2].any() and box_ink[:, -2:].any()
            assert box_ink[:2].any() and box_ink[-2:].any()
        # the index is in the corners: top-left box first
        x0, y0, _, _ = boxes[0]
        assert x0 < 0.12 * w and y0 < 0.1 * h


def test_builtin_ten_has_two_digits_and_red_suits_are_red():
    deck = get_deck("builtin", 350)
    box = deck.index_boxes("TS")[0]
    box_a = deck.index_boxes("AS")[0]
    assert box[2] - box[0] > 1.15 * (box_a[2] - box_a[0])  # "10" (condensed) is wider than "A"
    for code, red in (("7H", True), ("7D", True), ("7S", False), ("7C", False)):
        f = deck.face(code)[..., :3].astype(int)
        ink = _paper_diff(deck.face(code)) > 80
        redness = (f[..., 2] - f[..., 0])[ink].mean()
        assert (redness > 80) == red, code


# --------------------------------------------------------------------------- catalogue / errors

def test_list_decks_and_catalogue():
    infos = list_decks()
    names = [i.name for i in infos]
    assert len(names) == len(set(names))
    assert set(STYLES) <= set(names)
    for i in infos:
        assert isinstance(i, DeckInfo)
        assert i.source in {"builtin", "gnome", "kde", "folder"}
        assert i.alphabet in ALPHABETS
        if i.alphabet in ("french", "german", "italian"):
            assert i.letters, i.name
    # every hand-checked deck is listed, available or not
    assert set(GNOME) <= set(names) and set(KDE) <= set(names)
    assert len(GNOME) == 30 and len(KDE) == 16
    by = {i.name: i for i in infos}
    assert by["tarocco"].alphabet == "italian" and by["tarocco"].letters["K"] == "R"
    assert by["ancient_french"].letters["J"] == "V" and by["berlin"].letters["J"] == "B"
    assert not by["swiss-xvii"].standard and not by["guyenne-classic"].standard


@needs_gnome
def test_every_gnome_sheet_is_catalogued():
    stems = {p.name.split(".svg")[0] for p in GNOME_DIR.glob("*.svg*")}
    listed = {i.name: i for i in list_decks() if i.source == "gnome"}
    for stem in stems:
        name = {"Атласные": "atlasnye_ru"}.get(stem, stem)
        assert name in GNOME, stem
        assert listed[name].available


def test_unknown_deck_lists_decks():
    with pytest.raises(UnknownDeckError) as e:
        get_deck("no-such-deck")
    msg = str(e.value)
    assert "no-such-deck" in msg and "builtin" in msg and "builtin-bold" in msg and "anglo" in msg
    assert "\n" not in msg


def test_missing_packages_are_named(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_GNOME_CARDS", str(tmp_path / "none"))
    monkeypatch.setenv("COMPANION_KDE_CARDS", str(tmp_path / "none"))
    with pytest.raises(MissingPackageError) as e:
        get_deck("anglo")
    assert "apt-get install gnome-cards-data librsvg2-bin" in str(e.value)
    assert e.value.package == "gnome-cards-data"
    with pytest.raises(MissingPackageError) as e:
        get_deck("kde-oxygen")
    assert "kdegames-card-data-kf5" in str(e.value)
    infos = {i.name: i for i in list_decks()}
    assert not infos["anglo"].available and not infos["kde-oxygen"].available
    assert infos["builtin"].available


def test_missing_pyside_is_named(monkeypatch):
    monkeypatch.setattr(decks_mod, "_have_pyside", lambda: False)
    if not (KDE_DIR / "svg-oxygen").is_dir():
        pytest.skip("kdegames-card-data-kf5 not installed")
    with pytest.raises(MissingPackageError) as e:
        get_deck("kde-oxygen")
    assert "pip install PySide6-Essentials" in str(e.value)


def test_bad_height():
    with pytest.raises(ValueError):
        get_deck("builtin", 10)


# --------------------------------------------------------------------------- GNOME

def _ink_profile(face: np.ndarray) -> np.ndarray:
    return _paper_diff(face) > 80


@needs_gnome
def test_gnome_deck_cut_from_the_sheet():
    t = time.perf_counter()
    deck = get_deck("anglo", 240)
    first = time.perf_counter() - t
    w, h = deck.size
    assert deck.info.source == "gnome" and h == 240 and 0.6 < w / h < 0.75
    faces = {c.code: deck.face(c) for c in FULL_DECK}
    assert len({f.tobytes() for f in faces.values()}) == 52
    assert not np.array_equal(faces["AS"], faces["KH"])
    for f in faces.values():
        assert f.shape == (h, w, 4)
        assert f[0, 0, 3] < 128 and f[h // 2, w // 2, 3] == 255  # rounded corner, opaque card
    # rows: clubs, diamonds, hearts, spades (red ink on diamonds and hearts only)
    for code in ("5C", "5D", "5H", "5S"):
        f = faces[code]
        ink = _ink_profile(f)
        redness = (f[..., 2].astype(int) - f[..., 0])[ink].mean()
        assert (redness > 60) == (code[1] in "DH"), code
    # columns: the ace has one big central pip, the ten has pips down both sides
    ace, ten = _ink_profile(faces["AC"]), _ink_profile(faces["TC"])
    side = (slice(int(0.25 * h), int(0.75 * h)), slice(int(0.2 * w), int(0.38 * w)))
    centre = (slice(int(0.4 * h), int(0.6 * h)), slice(int(0.4 * w), int(0.6 * w)))
    assert ace[centre].mean() > 0.2 and ace[side].mean() < 0.02
    assert ten[side].mean() > 0.1
    assert ten.mean() > 2 * ace.mean()
    # the back is not a face; index boxes are in the corners and inked
    assert all(not np.array_equal(deck.back(), f) for f in faces.values())
    for code in ("AS", "TH", "QC", "7D"):
        boxes = deck.index_boxes(code)
        assert len(boxes) == 2
        (x0, y0, x1, y1), (u0, v0, u1, v1) = boxes
        assert x0 < 0.15 * w and y0 < 0.12 * h and u1 > 0.85 * w and v1 > 0.88 * h
        ink = _ink_profile(faces[code])
        assert ink[y0:y1, x0:x1].mean() > 0.1 and ink[v0:v1, u0:u1].mean() > 0.1
    # a second load comes from the disk cache: fast and identical
    decks_mod.clear_memory_cache()
    t = time.perf_counter()
    again = get_deck("anglo", 240)
    assert np.array_equal(again.face("QS"), faces["QS"]) and again.index_boxes("QS") == deck.index_boxes("QS")
    assert time.perf_counter() - t < max(0.5, first / 3)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GNOME) + sorted(KDE))
def test_every_system_deck_renders(name):
    """Each catalogued deck: 52 distinct equal faces, a back, index boxes in their corners."""
    info = {i.name: i for i in list_decks()}[name]
    if not info.available or (info.source == "kde" and not HAVE_PYSIDE):
        pytest.skip(f"{name} not installed here")
    deck = get_deck(name, 160)
    w, h = deck.size
    assert h == 160 and 0.55 < w / h < 0.85
    faces = {c.code: deck.face(c) for c in FULL_DECK}
    assert all(f.shape == (h, w, 4) for f in faces.values())
    assert len({f.tobytes() for f in faces.values()}) == 52
    assert deck.back().shape == (h, w, 4)
    entry = (GNOME | KDE)[name]
    for code, f in faces.items():
        boxes = deck.index_boxes(code)
        if code[0] in entry.unindexed or not entry.corners:
            assert boxes == []
            continue
        assert len(boxes) == len(entry.corners), code
        ink = _ink_profile(f)
        for (x0, y0, x1, y1), corner in zip(boxes, entry.corners):
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
            cx, cy = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h
            if corner != "top":
                assert (cx < 0.5) == (corner[1] == "l") and (cy < 0.5) == (corner[0] == "t"), (code, corner)
                assert (x1 - x0) < 0.45 * w and (y1 - y0) < 0.45 * h
            assert ink[y0:y1, x0:x1].mean() > 0.03, (code, corner)


@needs_gnome
def test_gnome_cyrillic_alias():
    if not (GNOME_DIR / "Атласные.svgz").is_file():
        pytest.skip("no Атласные.svgz in this gnome-cards-data")
    deck = get_deck("atlasnye_ru", 120)
    assert deck.info.alphabet == "other" and deck.info.letters["Q"] == "Д"
    assert get_deck("Атласные", 120).info.name == "atlasnye_ru"


@needs_kde
def test_kde_deck():
    deck = get_deck("kde-standard", 200)
    w, h = deck.size
    assert deck.info.source == "kde" and h == 200 and 0.6 < w / h < 0.8
    faces = [deck.face(c) for c in FULL_DECK]
    assert len({f.tobytes() for f in faces}) == 52
    assert not np.array_equal(deck.face("AS"), deck.face("KH"))
    red = deck.face("9H")
    ink = _ink_profile(red)
    assert (red[..., 2].astype(int) - red[..., 0])[ink].mean() > 60


# --------------------------------------------------------------------------- folder

def _write_folder(tmp_path: Path, skip: tuple[str, ...] = ()) -> Path:
    src = get_deck("builtin-four-colour", 200)
    folder = tmp_path / "mydeck"
    folder.mkdir()
    for k, c in enumerate(FULL_DECK):
        if c.code in skip:
            continue
        name = (c.rank.label + c.suit.code) if k % 3 == 0 else c.code.lower() if k % 3 == 1 else c.code
        cv2.imwrite(str(folder / f"{name}.png"), src.face(c))
    cv2.imwrite(str(folder / "back.png"), src.back())
    return folder


def test_folder_deck_round_trip(tmp_path):
    folder = _write_folder(tmp_path)
    deck = get_deck(f"folder:{folder}", 200)
    src = get_deck("builtin-four-colour", 200)
    assert deck.info.source == "folder" and deck.size == src.size
    for c in FULL_DECK:
        assert np.array_equal(deck.face(c), src.face(c))
    assert np.array_equal(deck.back(), src.back())
    # estimated boxes cover the true (drawn) index boxes reasonably
    for code in ("AS", "TH", "KD"):
        est, true = deck.index_boxes(code)[0], src.index_boxes(code)[0]
        ix = max(0, min(est[2], true[2]) - max(est[0], true[0]))
        iy = max(0, min(est[3], true[3]) - max(est[1], true[1]))
        union = ((est[2] - est[0]) * (est[3] - est[1]) + (true[2] - true[0]) * (true[3] - true[1])
                 - ix * iy)
        assert ix * iy / union > 0.6, (code, est, true)
    # resized to another height; a jpg without alpha gets rounded corners
    small = get_deck(f"folder:{folder}", 100)
    assert small.size[1] == 100 and small.face("QS").shape[:2] == (100, small.size[0])


def test_folder_deck_missing_cards(tmp_path):
    folder = _write_folder(tmp_path, skip=("QS", "TD"))
    with pytest.raises(FolderDeckError) as e:
        get_deck(f"folder:{folder}")
    assert "QS" in str(e.value) and "TD" in str(e.value) and "2 card" in str(e.value)
    with pytest.raises(FolderDeckError):
        get_deck(f"folder:{tmp_path / 'nowhere'}")


def test_folder_deck_jpg_without_back(tmp_path):
    folder = tmp_path / "jpgs"
    folder.mkdir()
    src = get_deck("builtin", 140)
    for c in FULL_DECK:
        cv2.imwrite(str(folder / f"{c.code}.jpg"), src.face(c)[..., :3])
    deck = get_deck(f"folder:{folder}", 140)
    f = deck.face("AH")
    assert f.shape[2] == 4 and f[0, 0, 3] == 0 and f[70, 50, 3] == 255
    assert deck.back().shape == f.shape and "no back.png" in deck.info.note


# --------------------------------------------------------------------------- CLI

def test_cli_json_keys():
    r = runner.invoke(app, ["decks", "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert isinstance(got, list) and len(got) >= len(STYLES)
    for d in got:
        assert {"name", "source", "alphabet", "standard", "available"} <= set(d)
    assert any(d["name"] == "builtin" and d["available"] for d in got)


def test_cli_table():
    r = runner.invoke(app, ["decks"])
    assert r.exit_code == 0
    assert "builtin-large-index" in r.stdout and "tarocco" in r.stdout and "italian" in r.stdout


def test_cli_sheet_one_deck(tmp_path):
    out = tmp_path / "sheet.png"
    r = runner.invoke(app, ["decks", "--sheet", str(out), "--deck", "builtin-serif", "--boxes"])
    assert r.exit_code == 0, r.output
    img = cv2.imread(str(out))
    assert img is not None and img.shape[0] > 500 and img.shape[1] > 1000


def test_cli_sheet_all(tmp_path, monkeypatch):
    # only the built-in decks, to keep the test fast
    monkeypatch.setenv("COMPANION_GNOME_CARDS", str(tmp_path / "none"))
    monkeypatch.setenv("COMPANION_KDE_CARDS", str(tmp_path / "none"))
    out = tmp_path / "all.png"
    r = runner.invoke(app, ["decks", "--sheet", str(out), "--height", "60"])
    assert r.exit_code == 0, r.output
    img = cv2.imread(str(out))
    assert img is not None and img.shape[0] >= len(STYLES) * 60 // 2


@pytest.mark.parametrize("args, message", [
    (["--deck", "nope"], "builtin"),
    (["--sheet", "x.png", "--deck", "nope"], "builtin-bold"),
    (["--sheet", "x.txt", "--deck", "builtin"], ".png"),
    (["--sheet", "x.png", "--deck", "builtin", "--height", "5"], "--height"),
])
def test_cli_errors_are_one_line(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["decks", *args])
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]


def test_cli_missing_package(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_GNOME_CARDS", str(tmp_path / "none"))
    r = runner.invoke(app, ["decks", "--sheet", str(tmp_path / "a.png"), "--deck", "paris"])
    assert r.exit_code == 2
    assert "apt-get install gnome-cards-data librsvg2-bin" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
