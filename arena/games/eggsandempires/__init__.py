"""Eggs and Empires: see :mod:`arena.games.eggsandempires.game` for the rules and rulings."""

from arena.games.eggsandempires.game import GAME, EggCard, EggsAndEmpires, EggsState, collection_order, round_vp

__all__ = ["GAME", "EggCard", "EggsAndEmpires", "EggsState", "collection_order", "round_vp"]
