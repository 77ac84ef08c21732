"""Seasons: see :mod:`arena.games.seasons.game` for the rules and rulings."""

from arena.games.seasons.framework import CARDS, Ctx, SeasonsState, Slot
from arena.games.seasons.game import GAME, Seasons

__all__ = ["CARDS", "GAME", "Ctx", "Seasons", "SeasonsState", "Slot"]
