"""Constants shared by the recogniser's run time and its training: classes, crop geometry, outputs.

Kept free of torch and onnxruntime so both sides import it.

Index alphabets: the index classifier reads *glyphs*, not ranks. An alphabet maps glyphs to ranks;
the default ``english`` maps only A, 2..10, J, Q, K, so a court printed B, V or H (the Dutch deck
in real-dev) is reported unknown, never read as a wrong English rank. ``--alphabet dutch`` reads B,
V, H as J, Q, K; ``french`` reads 1, V, D, R as A, J, Q, K; ``german`` B, D, K; ``italian`` F, D, R.

>>> glyph_to_rank("V", "dutch"), glyph_to_rank("V", "french"), glyph_to_rank("V", "english")
(12, 11, 0)
"""

from __future__ import annotations

__all__ = [
    "GLYPHS", "SUITS_OUT", "ALPHABETS", "glyph_to_rank", "INDEX_CROP_W", "INDEX_CROP_H",
    "CROP_SCALE", "FACE_CROP_W", "FACE_CROP_H", "FACE_RANKS", "DETECTOR_OUTPUTS", "DETECTOR_STRIDE",
    "DETECTOR_WIDTH", "CARD_ASPECT", "HELD_OUT_DECKS",
]

#: Index classifier glyph classes. "bg" = not an index corner; "other" = a letter of no alphabet here.
GLYPHS: tuple[str, ...] = (
    "bg", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    "1", "B", "D", "H", "R", "V", "F", "other",
)
GLYPH_ID = {g: i for i, g in enumerate(GLYPHS)}
#: Suit classes; "none" for background crops.
SUITS_OUT: tuple[str, ...] = ("C", "D", "H", "S", "none")

_ENGLISH = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
            "J": 11, "Q": 12, "K": 13}
_DIGITS = {k: v for k, v in _ENGLISH.items() if k.isdigit()}
ALPHABETS: dict[str, dict[str, int]] = {
    "english": dict(_ENGLISH),
    "dutch": {**_DIGITS, "A": 1, "B": 11, "V": 12, "H": 13},
    "french": {**_DIGITS, "A": 1, "1": 1, "V": 11, "D": 12, "R": 13},
    "german": {**_DIGITS, "A": 1, "B": 11, "D": 12, "K": 13},
    "italian": {**_DIGITS, "A": 1, "F": 11, "D": 12, "R": 13},
}


def glyph_to_rank(glyph: str, alphabet: str = "english") -> int:
    """Rank 1..13 of a glyph in an alphabet, 0 when the alphabet has no such index."""
    try:
        table = ALPHABETS[alphabet]
    except KeyError:
        raise ValueError(f"unknown index alphabet {alphabet!r} (one of {', '.join(ALPHABETS)})") from None
    return table.get(glyph, 0)


#: The index crop fed to the classifier: upright, W x H pixels.
INDEX_CROP_W, INDEX_CROP_H = 24, 36
#: Crop height as a multiple of the index block's height (the block = rank over suit).
CROP_SCALE = 1.35

#: The whole-card crop fed to the face reader: the card's quad warped upright to W x H pixels. A
#: 60-90 px card's index is 5-8 px tall, too small to read, while its pips and court art still show.
FACE_CROP_W, FACE_CROP_H = 32, 48
#: Face reader rank classes: A, 2..10, J, Q, K, then "none" (a back, or too little of a face to tell).
FACE_RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "none")

#: Detector: input width (height follows the frame's aspect, rounded up to a multiple of 32),
#: output stride, and output channels:
#: 0 heat of index-corner centres (face-up cards), 1 heat of face-down card centres,
#: 2-3 sub-cell offset (x, y), 4-5 up direction (cos, sin; image axes, y down),
#: 6 log(card height / stride), 7 log(index height / stride), 8-9 card centre minus point / card height.
DETECTOR_WIDTH = 384
DETECTOR_STRIDE = 4
DETECTOR_OUTPUTS = 10

#: Card width / height of a standard (poker) card, 63 x 88 mm.
CARD_ASPECT = 63.0 / 88.0

#: Whole decks never trained on, for validation and the benchmark: English-index designs whose artwork
#: appears nowhere else in the training set (paris/kde-gm-paris, ornamental/kde-nicu-ornamental and the
#: anglo family share art, so none of those is a held-out deck).
HELD_OUT_DECKS: tuple[str, ...] = ("bellot", "orell", "kde-standard", "tango")

#: Held-out frames the recogniser benchmark scores by default (about 740 cards). 30-40 frames were too
#: few: one frame can hold 50 tiny cards, and two draws of 30 frames gave 36.7% and 54.6% for one set
#: of models.
BENCH_FRAMES = 100
