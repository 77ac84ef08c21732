"""Three Witches: see :mod:`arena.games.threewitches.game` for the rules and rulings."""

from arena.games.threewitches.cards import ELIXIR, Card, combine
from arena.games.threewitches.game import GAME, ThreeWitches, ThreeWitchesState

__all__ = ["ELIXIR", "GAME", "Card", "ThreeWitches", "ThreeWitchesState", "combine"]
