"""Rainbow: see :mod:`arena.games.rainbow.game` for the rules and rulings."""

from arena.games.rainbow.game import GAME, Combo, Pile, Rainbow, RainbowState

__all__ = ["GAME", "Combo", "Pile", "Rainbow", "RainbowState"]
