"""Rendering the system SVG decks: GNOME sheets with ``rsvg-convert``, KDE decks with Qt.

GNOME Aisleriot sheets are rendered *whole* (rendering single elements by id mis-places some
decks) and cut from the 13x5 grid: rows clubs, diamonds, hearts, spades, specials (black joker,
red joker, back); columns A, 2..10, J, Q, K. Each cell is trimmed to the card's alpha outline.

KDE decks name their elements ``1_club`` .. ``10_club``, ``jack_club``, ``queen_club``,
``king_club`` (and ``_diamond``, ``_heart``, ``_spade``) and ``back``; each element is rendered
into the face rectangle by ``QSvgRenderer`` (rsvg gets several of them wrong).

Both return ``(faces, back)``: card code -> BGRA face at exactly ``height`` px, all one width.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

from ..cards import Card, Rank, Suit

__all__ = ["render_gnome_sheet", "render_kde_deck"]

_ROWS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_BACK_CELL = (4, 2)
#: the sheet is rendered this much bigger than the target, then shrunk (sharper antialiasing)
_OVERSAMPLE = 1.15


def _resize(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    from .decks import resize_bgra

    return resize_bgra(img, size)


def _alpha_bbox(cell: np.ndarray) -> tuple[int, int, int, int] | None:
    a = cell[..., 3] > 24
    rows = np.nonzero(a.any(1))[0]
    cols = np.nonzero(a.any(0))[0]
    if len(rows) == 0:
        return None
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def _sheet_px(path: Path, height: int) -> int:
    return int(round(5 * height * _OVERSAMPLE))


def render_gnome_sheet(path: Path, height: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    sheet_h = _sheet_px(path, height)
    with tempfile.TemporaryDirectory(prefix="companion-deck-") as tmp:
        out = Path(tmp) / "sheet.png"
        proc = subprocess.run(["rsvg-convert", "-h", str(sheet_h), "-o", str(out), str(path)],
                              capture_output=True, text=True)
        if proc.returncode != 0 or not out.exists():
            from .decks import DeckError

            raise DeckError(f"rsvg-convert failed on {path}: {proc.stderr.strip()[:200]}")
        sheet = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if sheet is None or sheet.ndim != 3 or sheet.shape[2] != 4:
        from .decks import DeckError

        raise DeckError(f"rsvg-convert gave no RGBA image for {path}")
    H, W = sheet.shape[:2]

    def cell(r: int, c: int) -> np.ndarray | None:
        y0, y1 = round(r * H / 5), round((r + 1) * H / 5)
        x0, x1 = round(c * W / 13), round((c + 1) * W / 13)
        sub = sheet[y0:y1, x0:x1]
        bb = _alpha_bbox(sub)
        if bb is None:
            return None
        return sub[bb[1]:bb[3], bb[0]:bb[2]]

    crops: dict[str, np.ndarray] = {}
    for r, suit in enumerate(_ROWS):
        for c, rank in enumerate(Rank):
            img = cell(r, c)
            if img is None:
                from .decks import DeckError

                raise DeckError(f"{path.name}: empty cell for {Card(rank, suit).code}")
            crops[Card(rank, suit).code] = img
    back = cell(*_BACK_CELL)
    if back is None:
        from .decks import DeckError

        raise DeckError(f"{path.name}: no card back in the sheet")
    return _normalise(crops, back, height)


def _normalise(crops: dict[str, np.ndarray], back: np.ndarray, height: int
               ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Resize every crop to one size: ``height`` tall, the deck's median aspect ratio."""
    aspects = [c.shape[1] / c.shape[0] for c in crops.values()]
    width = max(8, int(round(height * float(np.median(aspects)))))
    faces = {k: _resize(v, (width, height)) for k, v in crops.items()}
    return faces, _resize(back, (width, height))


# --------------------------------------------------------------------------- KDE / Qt

_QT_APP = None


def _qt():
    global _QT_APP
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from PySide6.QtCore import QRectF
        from PySide6.QtGui import QGuiApplication, QImage, QPainter
        from PySide6.QtSvg import QSvgRenderer
    except ImportError as exc:  # installed but unusable (e.g. a missing system library)
        from .decks import PYSIDE_PACKAGE, MissingPackageError

        raise MissingPackageError(
            f"PySide6 cannot be loaded ({str(exc)[:120]}): pip install {PYSIDE_PACKAGE} "
            f"(it may also need apt-get install libegl1 libgl1 libfontconfig1)", PYSIDE_PACKAGE
        ) from None

    if QGuiApplication.instance() is None:
        _QT_APP = QGuiApplication([sys.argv[0] if sys.argv else "companion"])
    return QRectF, QImage, QPainter, QSvgRenderer


_KDE_RANKS = {Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king"}
_KDE_SUITS = {Suit.CLUBS: "club", Suit.DIAMONDS: "diamond", Suit.HEARTS: "heart", Suit.SPADES: "spade"}


def kde_element(card: Card) -> str:
    r = _KDE_RANKS.get(card.rank, str(card.rank.value))
    return f"{r}_{_KDE_SUITS[card.suit]}"


def render_kde_deck(path: Path, height: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    QRectF, QImage, QPainter, QSvgRenderer = _qt()
    from .decks import DeckError

    renderer = QSvgRenderer(str(path))
    if not renderer.isValid():
        raise DeckError(f"Qt cannot read {path}")
    ids = {Card(r, s).code: kde_element(Card(r, s)) for s in _ROWS for r in Rank}
    ids["back"] = "back"

    def bounds(el: str):
        b = renderer.boundsOnElement(el)
        tf = getattr(renderer, "transformForElement", None)
        return tf(el).mapRect(b) if tf is not None else b

    sizes = {}
    for code, el in ids.items():
        if not renderer.elementExists(el):
            raise DeckError(f"{path.name}: no element {el!r}")
        b = bounds(el)
        sizes[code] = (b.width(), b.height())
    aspects = [w / h for k, (w, h) in sizes.items() if k != "back" and h > 0]
    aspect = float(np.median(aspects))
    landscape = aspect > 1.0
    # render portrait-sized; a landscape deck is drawn landscape and turned a quarter
    if landscape:
        rw, rh = height, max(8, int(round(height / aspect)))
    else:
        rw, rh = max(8, int(round(height * aspect))), height

    def draw(el: str) -> np.ndarray:
        img = QImage(rw, rh, QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(0)
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(p, el, QRectF(0, 0, rw, rh))
        p.end()
        img = img.convertToFormat(QImage.Format.Format_ARGB32)
        arr = np.frombuffer(img.constBits(), np.uint8).reshape(rh, img.bytesPerLine() // 4, 4)
        arr = arr[:, :rw].copy()  # BGRA byte order on little-endian machines
        if sys.byteorder != "little":
            arr = arr[..., ::-1].copy()
        if landscape:
            arr = np.ascontiguousarray(np.rot90(arr, -1))
        return arr

    faces = {code: draw(el) for code, el in ids.items() if code != "back"}
    back = draw("back")
    return faces, back
