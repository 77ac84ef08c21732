"""RollDice: see :mod:`arena.games.rolldice.game` for the rules and rulings."""

from arena.games.rolldice.game import GAME, RollDice, RollDiceState

__all__ = ["GAME", "RollDice", "RollDiceState"]
