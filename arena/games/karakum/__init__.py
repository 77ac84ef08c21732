"""Karakum: see :mod:`arena.games.karakum.game` for the rules and rulings."""

from arena.games.karakum.game import GAME, Camel, Karakum, KarakumState, camel_cost, payments, score_of, units

__all__ = ["GAME", "Camel", "Karakum", "KarakumState", "camel_cost", "payments", "score_of", "units"]
