"""Card deck sources for the synthetic table: one interface over built-in, GNOME, KDE and folder decks.

>>> from companion.synth.decks import get_deck, list_decks
>>> deck = get_deck("builtin", height=140)
>>> from companion.cards import Card
>>> deck.face(Card.parse("QS")).shape, deck.back().shape
((140, 100, 4), (140, 100, 4))
>>> [b for b in deck.index_boxes(Card.parse("QS"))][0][:2] < (20, 20)
True

Decks
-----
* ``builtin`` and ``builtin-<style>``: drawn with OpenCV (:mod:`.builtin_deck`); always there.
* GNOME Aisleriot decks (``anglo``, ``paris``, ...; source ``gnome``): one SVG sheet each in
  ``/usr/share/aisleriot/cards`` (Debian ``gnome-cards-data``), rendered whole by
  ``rsvg-convert`` (``librsvg2-bin``) and cut from its 13x5 grid.
* KDE carddecks (``kde-oxygen``, ...; source ``kde``): ``/usr/share/carddecks/svg-*``
  (``kdegames-card-data-kf5``), rendered per card element with PySide6's ``QSvgRenderer``
  (optional extra ``kde``: ``pip install PySide6-Essentials``).
* ``folder:/path``: your own images named by card code (``7H.png``, ``TH.jpg`` or ``10H.png``)
  and optionally ``back.png``.

Faces are BGRA ``uint8`` arrays (straight alpha, transparent rounded corners), all the same size
at the deck's height. GNOME and KDE renders are cached on disk under
``$COMPANION_CACHE/decks/<name>/<height>/`` (default ``~/.cache/companion``), so only the first
use of a deck at a height is slow; the returned arrays are read-only (copy before drawing on
them). The hand-checked catalogue of the system decks is :mod:`.decks_catalogue`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Union

import cv2
import numpy as np

from ..cards import FULL_DECK, Card, Rank, Suit
from . import decks_catalogue as cat
from .builtin_deck import STYLES, BuiltinRenderer
from .decks_index import deck_boxes

__all__ = [
    "Deck",
    "DeckInfo",
    "DeckError",
    "UnknownDeckError",
    "MissingPackageError",
    "FolderDeckError",
    "get_deck",
    "list_decks",
    "deck_names",
    "cache_root",
    "GNOME_PACKAGES",
    "KDE_PACKAGE",
    "PYSIDE_PACKAGE",
]

Box = tuple[int, int, int, int]
CardLike = Union[Card, str]

GNOME_PACKAGES = "gnome-cards-data librsvg2-bin"
KDE_PACKAGE = "kdegames-card-data-kf5"
PYSIDE_PACKAGE = "PySide6-Essentials"
#: Bumped whenever rendering or box estimation changes, to invalidate disk caches.
RENDER_VERSION = 9

MIN_HEIGHT, MAX_HEIGHT = 40, 2400


# --------------------------------------------------------------------------- errors / info

class DeckError(Exception):
    """Any problem getting a deck (one line, suitable for the CLI)."""


class UnknownDeckError(DeckError, LookupError):
    """No deck of that name; the message lists the decks there are."""

    def __str__(self) -> str:  # LookupError would quote the message
        return str(self.args[0]) if self.args else ""


class MissingPackageError(DeckError):
    """The deck needs a system or Python package that is not installed; ``package`` names it."""

    def __init__(self, message: str, package: str) -> None:
        super().__init__(message)
        self.package = package


class FolderDeckError(DeckError, ValueError):
    """A ``folder:`` deck that cannot be read (missing folder, missing cards, unreadable image)."""


@dataclass(frozen=True)
class DeckInfo:
    """What a deck is. ``letters`` maps English index letters to the printed ones (non-English)."""

    name: str
    source: str            # builtin | gnome | kde | folder
    alphabet: str          # english | french | german | italian | none | other
    standard: bool         # standard 52-card French-suited pack with readable corner indices
    available: bool        # its package / files are present here
    note: str = ""
    letters: dict[str, str] | None = field(default=None, compare=False)

    def as_dict(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------- helpers

def _as_card(card: CardLike) -> Card:
    return card if isinstance(card, Card) else Card.parse(card)


def _check_height(height: int) -> int:
    h = int(height)
    if not MIN_HEIGHT <= h <= MAX_HEIGHT:
        raise ValueError(f"deck height must be {MIN_HEIGHT}..{MAX_HEIGHT} px, not {height}")
    return h


def cache_root() -> Path:
    """``$COMPANION_CACHE`` or ``$XDG_CACHE_HOME/companion`` or ``~/.cache/companion``."""
    env = os.environ.get("COMPANION_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "companion"


def resize_bgra(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Resize a straight-alpha BGRA image without dark fringes (premultiplied interpolation)."""
    w, h = size
    if img.shape[1] == w and img.shape[0] == h:
        return img.copy()
    a = img[..., 3:4].astype(np.float32) / 255.0
    pre = np.concatenate([img[..., :3].astype(np.float32) * a, a * 255.0], axis=2)
    shrink = w < img.shape[1] and h < img.shape[0]
    out = cv2.resize(pre, (w, h), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_CUBIC)
    out = np.clip(out, 0, 255)
    alpha = out[..., 3:4]
    rgb = np.where(alpha > 0.5, out[..., :3] * 255.0 / np.maximum(alpha, 1e-3), 0)
    return np.concatenate([np.clip(rgb, 0, 255), alpha], axis=2).round().astype(np.uint8)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _card_code_order() -> list[str]:
    return [Card(r, s).code for s in (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
            for r in Rank]


# --------------------------------------------------------------------------- Deck

class Deck:
    """One deck at one height: ``face(card)``, ``back()``, ``index_boxes(card)``, ``info``."""

    def __init__(self, info: DeckInfo, width: int, height: int) -> None:
        self.info = info
        self.width = int(width)
        self.height = int(height)

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of every face and the back."""
        return (self.width, self.height)

    def face(self, card: CardLike) -> np.ndarray:
        """The face of ``card`` (a Card or a code like ``"10H"``): read-only BGRA uint8 (H, W, 4)."""
        return self._face(_as_card(card))

    def back(self) -> np.ndarray:
        """The card back, same size as the faces (read-only BGRA)."""
        return self._back()

    def index_boxes(self, card: CardLike) -> list[Box]:
        """Where the corner index (rank + suit) is printed: ``(x0, y0, x1, y1)`` face pixels,
        x1/y1 exclusive; top-left first, then the other corners the deck prints one in."""
        return list(self._index_boxes(_as_card(card)))

    def faces(self) -> Iterable[tuple[Card, np.ndarray]]:
        for c in FULL_DECK:
            yield c, self.face(c)

    def __repr__(self) -> str:
        return f"<Deck {self.info.name} {self.width}x{self.height} ({self.info.source})>"

    # hooks
    def _face(self, card: Card) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _back(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _index_boxes(self, card: Card) -> list[Box]:  # pragma: no cover - abstract
        raise NotImplementedError


class BuiltinDeck(Deck):
    """A built-in OpenCV-drawn style; faces drawn on demand and kept in memory."""

    def __init__(self, info: DeckInfo, height: int) -> None:
        self._r = BuiltinRenderer(info.name, height)
        super().__init__(info, self._r.width, self._r.height)

    def _face(self, card: Card) -> np.ndarray:
        return self._r.face(card)

    def _back(self) -> np.ndarray:
        return self._r.back()

    def _index_boxes(self, card: Card) -> list[Box]:
        return self._r.index_boxes(card)


class ImageDeck(Deck):
    """A deck held as images (in memory, or lazily read from a cache folder)."""

    def __init__(self, info: DeckInfo, width: int, height: int, boxes: dict[str, list[Box]],
                 images: dict[str, np.ndarray] | None = None, folder: Path | None = None) -> None:
        super().__init__(info, width, height)
        self._boxes = boxes
        self._images: dict[str, np.ndarray] = {k: _readonly(v) for k, v in (images or {}).items()}
        self._folder = folder
        self._lock = threading.Lock()

    def _image(self, code: str) -> np.ndarray:
        img = self._images.get(code)
        if img is None:
            if self._folder is None:
                raise KeyError(code)
            path = self._folder / f"{code}.png"
            img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
            if img is None or img.ndim != 3 or img.shape[2] != 4:
                raise DeckError(f"deck cache file {path} is unreadable; delete {self._folder}")
            with self._lock:
                self._images[code] = _readonly(img)
        return img

    def _face(self, card: Card) -> np.ndarray:
        return self._image(card.code)

    def _back(self) -> np.ndarray:
        return self._image("back")

    def _index_boxes(self, card: Card) -> list[Box]:
        return [tuple(b) for b in self._boxes.get(card.code, [])]  # type: ignore[misc]


# --------------------------------------------------------------------------- system decks

def _gnome_dir() -> Path:
    return Path(os.environ.get("COMPANION_GNOME_CARDS", "/usr/share/aisleriot/cards"))


def _kde_dir() -> Path:
    return Path(os.environ.get("COMPANION_KDE_CARDS", "/usr/share/carddecks"))


def _have_rsvg() -> bool:
    return shutil.which("rsvg-convert") is not None


def _have_pyside() -> bool:
    try:
        return importlib.util.find_spec("PySide6") is not None
    except (ImportError, ValueError):
        return False


def _gnome_files() -> dict[str, Path]:
    """deck name -> sheet file, for the sheets present (catalogued or not)."""
    d = _gnome_dir()
    out: dict[str, Path] = {}
    if d.is_dir():
        for p in sorted(d.glob("*.svg*")):
            stem = p.name.split(".svg")[0]
            out[cat.GNOME_ALIASES.get(stem, stem)] = p
    return out


def _kde_files() -> dict[str, Path]:
    d = _kde_dir()
    out: dict[str, Path] = {}
    if d.is_dir():
        for sub in sorted(d.glob("svg-*")):
            svgs = sorted(sub.glob("*.svg*"))
            if svgs:
                out["kde-" + sub.name[4:]] = svgs[0]
    return out


def _entry_info(name: str, source: str, entry: cat.CatalogueEntry | None, available: bool) -> DeckInfo:
    if entry is None:
        return DeckInfo(name, source, "other", False, available,
                        "not in the hand-checked catalogue", None)
    return DeckInfo(name, source, entry.alphabet, entry.standard, available, entry.note,
                    dict(entry.letters) if entry.letters else None)


def list_decks() -> list[DeckInfo]:
    """Every deck this build knows of (built-in, GNOME, KDE), with availability here."""
    out = [DeckInfo(s.name, "builtin", "english", True, True, s.note) for s in STYLES.values()]
    gfiles = _gnome_files()
    rsvg = _have_rsvg()
    for name in sorted(set(cat.GNOME) | set(gfiles)):
        out.append(_entry_info(name, "gnome", cat.GNOME.get(name), rsvg and name in gfiles))
    kfiles = _kde_files()
    qt = _have_pyside()
    for name in sorted(set(cat.KDE) | set(kfiles)):
        out.append(_entry_info(name, "kde", cat.KDE.get(name), qt and name in kfiles))
    return out


def deck_names(available_only: bool = False) -> list[str]:
    return [d.name for d in list_decks() if d.available or not available_only]


def _unknown(name: str) -> UnknownDeckError:
    infos = list_decks()
    avail = [d.name for d in infos if d.available]
    other = [d.name for d in infos if not d.available]
    msg = f"unknown deck {name!r}; decks: {', '.join(avail)}"
    if other:
        msg += f"; not installed here: {', '.join(other)}"
    msg += "; or folder:/path/to/images"
    return UnknownDeckError(msg)


_MEMO: "OrderedDict[tuple[str, int], Deck]" = OrderedDict()
_MEMO_LOCK = threading.Lock()
_MEMO_SIZE = 6


def get_deck(name: str, height: int = 350) -> Deck:
    """The deck called ``name`` with faces ``height`` px tall (see :func:`list_decks`).

    Raises :class:`UnknownDeckError` (message lists the decks), :class:`MissingPackageError`
    (message names the package to install) or :class:`FolderDeckError`.
    """
    height = _check_height(height)
    key = (name, height)
    with _MEMO_LOCK:
        if key in _MEMO:
            _MEMO.move_to_end(key)
            return _MEMO[key]
    deck = _make_deck(name, height)
    with _MEMO_LOCK:
        _MEMO[key] = deck
        while len(_MEMO) > _MEMO_SIZE:
            _MEMO.popitem(last=False)
    return deck


def _make_deck(name: str, height: int) -> Deck:
    if name.startswith("folder:"):
        from .decks_folder import load_folder_deck

        return load_folder_deck(name[len("folder:"):], height)
    if name in STYLES:
        return BuiltinDeck(DeckInfo(name, "builtin", "english", True, True, STYLES[name].note), height)
    alias = cat.GNOME_ALIASES.get(name, name)
    if alias in cat.GNOME or alias in _gnome_files():
        return _gnome_deck(alias, height)
    if name in cat.KDE or name in _kde_files():
        return _kde_deck(name, height)
    raise _unknown(name)


def _gnome_deck(name: str, height: int) -> Deck:
    files = _gnome_files()
    if name not in files:
        raise MissingPackageError(
            f"deck {name!r} needs the GNOME card decks (no {_gnome_dir()}/{name}.svgz): "
            f"apt-get install {GNOME_PACKAGES}", "gnome-cards-data")
    if not _have_rsvg():
        raise MissingPackageError(
            f"deck {name!r} needs rsvg-convert: apt-get install librsvg2-bin", "librsvg2-bin")
    entry = cat.GNOME.get(name)
    info = _entry_info(name, "gnome", entry, True)

    def render() -> tuple[dict[str, np.ndarray], np.ndarray]:
        from .decks_svg import render_gnome_sheet

        return render_gnome_sheet(files[name], height)

    return _cached_deck(info, entry, files[name], height, render)


def _kde_deck(name: str, height: int) -> Deck:
    files = _kde_files()
    if name not in files:
        raise MissingPackageError(
            f"deck {name!r} needs the KDE card decks: apt-get install {KDE_PACKAGE}", KDE_PACKAGE)
    if not _have_pyside():
        raise MissingPackageError(
            f"deck {name!r} is rendered with Qt: pip install {PYSIDE_PACKAGE} "
            f"(the 'kde' extra)", PYSIDE_PACKAGE)
    entry = cat.KDE.get(name)
    info = _entry_info(name, "kde", entry, True)

    def render() -> tuple[dict[str, np.ndarray], np.ndarray]:
        from .decks_svg import render_kde_deck

        return render_kde_deck(files[name], height)

    return _cached_deck(info, entry, files[name], height, render)


def _cached_deck(info: DeckInfo, entry: cat.CatalogueEntry | None, source: Path, height: int,
                 render: Callable[[], tuple[dict[str, np.ndarray], np.ndarray]]) -> Deck:
    """Load the deck from the disk cache, or render it once and fill the cache."""
    st = source.stat()
    stamp = {"version": RENDER_VERSION, "source": str(source), "size": st.st_size,
             "mtime": int(st.st_mtime), "height": height}
    folder = cache_root() / "decks" / info.name / str(height)
    meta = _read_meta(folder, stamp)
    if meta is not None:
        return ImageDeck(info, meta["width"], height, _boxes_from_json(meta["boxes"]), folder=folder)
    t0 = time.perf_counter()
    faces, back = render()
    corners = entry.corners if entry else ("tl", "br")
    unindexed = entry.unindexed if entry else ()
    lines = entry.strip_lines if entry else False
    boxes, fixed = (deck_boxes(faces, corners, unindexed, lines) if corners
                    else ({c: [] for c in faces}, 0))
    width = back.shape[1]
    meta = dict(stamp, width=width, boxes=boxes, boxes_from_consensus=fixed,
                render_seconds=round(time.perf_counter() - t0, 3))
    images = dict(faces, back=back)
    _write_cache(folder, images, meta, stamp)
    return ImageDeck(info, width, height, boxes, images=images)


def _boxes_from_json(raw: dict) -> dict[str, list[Box]]:
    return {k: [tuple(int(v) for v in b) for b in bs] for k, bs in raw.items()}  # type: ignore[misc]


def _read_meta(folder: Path, stamp: dict) -> dict | None:
    try:
        meta = json.loads((folder / "meta.json").read_text())
    except (OSError, ValueError):
        return None
    if any(meta.get(k) != v for k, v in stamp.items()):
        return None
    if not all((folder / f"{c}.png").is_file() for c in _card_code_order() + ["back"]):
        return None
    return meta


def _write_cache(folder: Path, images: dict[str, np.ndarray], meta: dict, stamp: dict) -> None:
    """Write PNGs then meta.json (the completion marker) into a temp folder, then move it in.

    Safe with several processes rendering the same deck: a complete cache already there is
    kept; a stale one is moved aside before ours takes its place.
    """
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    except OSError:
        return  # no writable cache: render again next time
    try:
        for code, img in images.items():
            cv2.imwrite(str(tmp / f"{code}.png"), img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        (tmp / "meta.json").write_text(json.dumps(meta))
        if _read_meta(folder, stamp) is not None:
            return  # another process finished first
        if folder.exists():
            old = folder.with_name(f".old-{folder.name}-{os.getpid()}")
            os.replace(folder, old)
            shutil.rmtree(old, ignore_errors=True)
        os.replace(tmp, folder)
    except OSError:
        pass  # lost a race, or the disk is full: the deck is still usable from memory
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def clear_memory_cache() -> None:
    with _MEMO_LOCK:
        _MEMO.clear()


def _main() -> None:  # pragma: no cover - manual timing helper
    for n in sys.argv[1:]:
        t = time.perf_counter()
        d = get_deck(n)
        d.face(FULL_DECK[0])
        print(n, d, f"{time.perf_counter() - t:.2f}s")


if __name__ == "__main__":  # pragma: no cover
    _main()
