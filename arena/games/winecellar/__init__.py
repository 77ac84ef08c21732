"""Wine Cellar: see :mod:`arena.games.winecellar.game` for the rules and rulings."""

from arena.games.winecellar.game import GAME, WineCellar, WineCellarState

__all__ = ["GAME", "WineCellar", "WineCellarState"]
