"""Soda Jerk: see :mod:`arena.games.sodajerk.game` for the rules and rulings."""

from arena.games.sodajerk.game import GAME, Card, SodaJerk, SodaJerkState

__all__ = ["GAME", "Card", "SodaJerk", "SodaJerkState"]
