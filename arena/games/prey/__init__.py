"""Prey: see :mod:`arena.games.prey.game` for the rules and rulings."""

from arena.games.prey.game import GAME, Prey, PreyState

__all__ = ["GAME", "Prey", "PreyState"]
