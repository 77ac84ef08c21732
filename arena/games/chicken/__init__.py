"""Chicken!: see :mod:`arena.games.chicken.game` for the rules and rulings."""

from arena.games.chicken.game import GAME, Chicken, ChickenState

__all__ = ["GAME", "Chicken", "ChickenState"]
