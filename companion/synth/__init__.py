"""Synthetic table: card deck sources (:mod:`.decks`) and the scene renderer built on them.

The deck interface is ``from companion.synth.decks import get_deck, list_decks, Deck, DeckInfo,
UnknownDeckError, MissingPackageError``.
"""
