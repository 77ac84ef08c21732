"""Seers Catalog: see :mod:`arena.games.seerscatalog.game` for the rules and rulings."""

from arena.games.seerscatalog.game import GAME, SeersCatalog, SeersState

__all__ = ["GAME", "SeersCatalog", "SeersState"]
