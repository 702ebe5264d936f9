"""The hand-checked catalogue of system card decks (GNOME Aisleriot and KDE carddecks).

Every entry was filled in by rendering the deck to a contact sheet and looking at all 52 faces:
which letters the aces and courts carry (``alphabet`` plus ``letters`` when not English), whether
it is a *standard* pack, and where its corner indices are (``corners``, used to estimate the index
boxes).

``standard`` means: French suits (clubs, diamonds, hearts, spades), the 52 usual ranks, and a
readable rank-over-suit index in the top-left corner of every card (and its rotated copy
bottom-right, or in all four corners). The letters may be non-English (R/D/V, K/D/B): that is
``alphabet``, a separate question.

``corners`` lists where to search for an index: ``tl tr bl br`` each give one box found by
measuring ink from that corner; ``top`` is one box spanning the whole top band (rank at the
left, suit at the right); an empty tuple means the deck has no usable indices.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CatalogueEntry", "GNOME", "KDE", "GNOME_ALIASES", "FRENCH", "GERMAN", "ITALIAN",
           "RUSSIAN", "GERMAN_SKAT"]

#: Printed letters, keyed by English index letter.
FRENCH = {"A": "1", "J": "V", "Q": "D", "K": "R"}       # as, valet, dame, roi (ancient_french)
GERMAN = {"A": "A", "J": "B", "Q": "D", "K": "K"}       # As, Bube, Dame, Koenig
ITALIAN = {"A": "A", "J": "F", "Q": "D", "K": "R"}      # asso, fante, donna, re
RUSSIAN = {"A": "Т", "J": "В", "Q": "Д", "K": "К"}      # туз, валет, дама, король
GERMAN_SKAT = {"A": "D", "J": "U", "Q": "O", "K": "K"}  # Daus, Unter, Ober, Koenig
NO_COURT_INDEX = {"A": "A", "J": "", "Q": "", "K": ""}


@dataclass(frozen=True)
class CatalogueEntry:
    alphabet: str                       # english | french | german | italian | none | other
    standard: bool
    note: str
    letters: dict[str, str] | None = None
    corners: tuple[str, ...] = ("tl", "br")
    #: ranks (by English letter) printed without any index (no box is reported for them)
    unindexed: tuple[str, ...] = ()
    #: thin decorative frame lines run into the index: remove long straight lines first
    strip_lines: bool = False


E = CatalogueEntry

#: GNOME Aisleriot decks (``/usr/share/aisleriot/cards/<stem>.svgz``): a 13x5 sheet, rows
#: clubs, diamonds, hearts, spades, then black joker, red joker, back; columns A, 2..10, J, Q, K.
GNOME: dict[str, CatalogueEntry] = {
    "ancient_french": E("french", True, "French portrait; ace index '1', courts V/D/R",
                        FRENCH),
    "anglo": E("english", True, "classic Anglo-American pattern"),
    "anglo_bitmap": E("english", True, "anglo with bitmap court pictures"),
    "anglo_modern": E("english", True, "modern condensed sans-serif index"),
    "anglo_modern_4_color": E("english", True,
                              "four-colour: clubs green, diamonds yellow, spades blue"),
    "anglo_poker": E("english", True, "poker-size, large index"),
    "atlasnye": E("english", True, "Russian 'Atlas' portraits with English A/J/Q/K"),
    "atlasnye_skat": E("german", True, "Atlas portraits, skat four-colour (diamonds yellow, "
                       "spades green), courts B/D/K", GERMAN),
    "atlasnye_ru": E("other", True, "the Cyrillic-named sheet 'Атласные': Russian letters "
                     "Т/В/Д/К (ace, jack, queen, king)", RUSSIAN),
    "bellot": E("english", True, "French portrait faces, English serif index"),
    "berlin": E("german", True, "Berlin pattern, courts B/D/K", GERMAN),
    "dondorf": E("english", True, "indices in all four corners; Swiss-costume courts",
                 corners=("tl", "tr", "bl", "br")),
    "gnomangelo": E("english", True, "anglo faces, GNOME jokers and back"),
    "gnomangelo_bitmap": E("english", True, "gnomangelo with bitmap courts"),
    "guyenne-classic": E("other", False, "Guyenne pattern: courts carry only a suit symbol, no "
                         "rank letter; single-headed", NO_COURT_INDEX, unindexed=("J", "Q", "K")),
    "lattmann": E("german", True, "Lattmann pattern, courts B/D/K", GERMAN),
    "neoclassical": E("english", True, "stylised modern courts, large ace pips"),
    "neoclassical_4_color": E("english", True, "neoclassical, four-colour (clubs green, diamonds "
                              "yellow, spades blue)"),
    "orell": E("english", True, "Orell pattern, cream paper"),
    "ornamental": E("english", True, "very large bold index touching a decorative frame",
                    strip_lines=True),
    "paris": E("english", True, "Paris pattern courts, English index"),
    "plastic": E("english", True, "square-cornered flat design"),
    "rheinland": E("german", True, "Rhineland pattern, courts B/D/K", GERMAN),
    "simplistic": E("english", True, "courts are a large letter with a big suit symbol beside "
                    "the corner index"),
    "slavic_costumes": E("other", True, "Russian letters Т/В/Д/К", RUSSIAN),
    "swiss-xvii": E("other", False, "Swiss/German suits (acorns, bells, roses, shields) in the "
                    "sheet's club/diamond/heart/spade rows; courts have no index",
                    NO_COURT_INDEX, unindexed=("J", "Q", "K")),
    "tango": E("english", True, "large index top-left and bottom-right, extra small suit in the "
               "other two corners"),
    "tango_nuevo": E("english", False, "rank top-left and suit top-right on one line (the box "
                     "spans both), no bottom index; one giant pip", corners=("top",)),
    "tarocco": E("italian", True, "Italian letters, courts F/D/R", ITALIAN),
    "tigullio": E("english", True, "Tigullio pattern"),
}

#: file stem -> deck name, for stems that are not plain ASCII.
GNOME_ALIASES = {"Атласные": "atlasnye_ru"}

#: KDE carddecks (``/usr/share/carddecks/svg-<dir>/*.svgz``, element ids ``1_club`` ..
#: ``king_spade``, ``back``); deck name ``kde-<dir>``.
KDE: dict[str, CatalogueEntry] = {
    "kde-ancient-egyptians": E("english", True, "Egyptian courts; bottom-right index is upright, "
                               "not rotated"),
    "kde-dondorf": E("english", True, "indices in all four corners", corners=("tl", "tr", "bl", "br")),
    "kde-future": E("other", False, "hexadecimal punch-card deck (0..9, A, B, C), suit by tab "
                    "position and colour; landscape, rotated to portrait here", corners=()),
    "kde-gm-paris": E("english", True, "Paris pattern (same art as GNOME paris)"),
    "kde-jolly-royal": E("english", True, "soft grey paper; courts are a big 3-D letter"),
    "kde-konqi-modern": E("english", True, "unusual colours: clubs blue, diamonds teal, hearts "
                          "green, spades red; dragon courts"),
    "kde-nicu-ornamental": E("english", True, "large bold index (same art as GNOME ornamental)",
                             strip_lines=True),
    "kde-nicu-white": E("english", True, "large bold index, white paper", strip_lines=True),
    "kde-oxygen": E("english", False, "dark cards, white ink; rank alone top-right, suit symbol "
                    "elsewhere (bottom-left or top-left); the box is the rank only",
                    corners=("tr",)),
    "kde-oxygen-air": E("english", False, "light grey; rank alone top-right, suit symbol "
                        "elsewhere; the box is the rank only", corners=("tr",)),
    "kde-oxygen-white": E("english", False, "white; rank alone top-right, suit symbol elsewhere; "
                          "the box is the rank only", corners=("tr",)),
    "kde-penguins": E("english", True, "penguin courts and ace of spades"),
    "kde-standard": E("english", True, "the KDE standard (Windows-like) deck, pixel-art courts"),
    "kde-tigullio-international": E("english", True, "Tigullio pattern, grey gradient paper"),
    "kde-xskat-french": E("german", True, "xskat: courts B/D/K, indices in all four corners, "
                          "pixel font", GERMAN, corners=("tl", "tr", "bl", "br")),
    "kde-xskat-german": E("other", False, "German suits (acorns, bells, hearts, leaves), letters "
                          "D/U/O/K, rank-only indices", GERMAN_SKAT, corners=("tl", "tr", "bl", "br")),
}
