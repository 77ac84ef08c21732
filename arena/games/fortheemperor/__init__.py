"""For the Emperor: see :mod:`arena.games.fortheemperor.game` for the rules and rulings."""

from arena.games.fortheemperor.game import GAME, EmperorState, Field, ForTheEmperor

__all__ = ["GAME", "EmperorState", "Field", "ForTheEmperor"]
