"""``folder:/path`` decks: your own card images, one file per card.

Files are named by card code, any case: ``7H.png``, ``TH.jpg`` or ``10H.png``, ``AS.webp``;
``back.png`` (or .jpg...) is the back, and a plain patterned back is drawn when there is none.
Images without alpha get rounded corners; all are resized to the deck height at the median
aspect ratio of the faces. Index boxes are estimated from the ink in the corners.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ..cards import FULL_DECK, Card
from .builtin_deck import BuiltinRenderer, rounded_alpha

__all__ = ["load_folder_deck", "IMAGE_EXTENSIONS"]

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff")


def _stems(card: Card) -> tuple[str, ...]:
    return (card.code.lower(), (card.rank.label + card.suit.code).lower())


def _read(path: Path) -> np.ndarray:
    from .decks import FolderDeckError

    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FolderDeckError(f"cannot read image {path}")
    if img.dtype != np.uint8:
        img = (img / (65535.0 if img.dtype == np.uint16 else 1.0)).clip(0, 1)
        img = (img * 255).round().astype(np.uint8) if img.max() <= 1 else img.astype(np.uint8)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 3:
        a = rounded_alpha(img.shape[1], img.shape[0], 0.05 * img.shape[1])
        img = np.dstack([img, a])
    return img


def load_folder_deck(path_text: str, height: int):
    from .decks import DeckInfo, FolderDeckError, ImageDeck, resize_bgra
    from .decks_index import deck_boxes

    folder = Path(path_text).expanduser()
    if not folder.is_dir():
        raise FolderDeckError(f"folder deck: {folder} is not a folder")
    files: dict[str, Path] = {}
    for p in sorted(folder.iterdir()):
        if p.is_file() and p.suffix.lower() in IMAGE_EXTENSIONS:
            files.setdefault(p.stem.lower(), p)
    found: dict[str, Path] = {}
    missing: list[str] = []
    for card in FULL_DECK:
        p = next((files[s] for s in _stems(card) if s in files), None)
        if p is None:
            missing.append(card.code)
        else:
            found[card.code] = p
    if missing:
        raise FolderDeckError(
            f"folder deck {folder}: {len(missing)} card image(s) missing: {' '.join(missing)} "
            f"(name them like 7H.png, TH.png or 10H.png)")
    raw = {code: _read(p) for code, p in found.items()}
    aspect = float(np.median([im.shape[1] / im.shape[0] for im in raw.values()]))
    width = max(8, int(round(height * aspect)))
    faces = {code: resize_bgra(im, (width, height)) for code, im in raw.items()}
    if "back" in files:
        back = resize_bgra(_read(files["back"]), (width, height))
    else:
        back = resize_bgra(np.ascontiguousarray(BuiltinRenderer("builtin", height).back()),
                           (width, height))
    boxes, _ = deck_boxes(faces, ("tl", "br"))
    name = f"folder:{folder.resolve()}"
    info = DeckInfo(name, "folder", "english", True, True,
                    f"{len(faces)} images from {folder}" + ("" if "back" in files else
                                                            "; no back.png, plain back drawn")
                    + "; alphabet assumed English")
    return ImageDeck(info, width, height, boxes, images=dict(faces, back=back))
