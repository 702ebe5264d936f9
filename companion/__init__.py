"""Clock Patience companion: watches a real table, reads the cards, referees the play."""

__version__ = "0.1.0"
