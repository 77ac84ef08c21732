"""Sky Five: see :mod:`arena.games.skyfive.game` for the rules and rulings."""

from arena.games.skyfive.game import GAME, Card, SkyFive, SkyFiveState

__all__ = ["GAME", "Card", "SkyFive", "SkyFiveState"]
