"""Open Sesame: see :mod:`arena.games.opensesame.game` for the rules and rulings."""

from arena.games.opensesame.game import (
    ARENA_EDITION,
    CHIEF,
    GAME,
    TREASURES,
    Edition,
    OpenSesame,
    SesameState,
    captured,
    pick_order,
    recitation,
    score_of,
    treasure_cards,
)

__all__ = [
    "ARENA_EDITION",
    "CHIEF",
    "GAME",
    "TREASURES",
    "Edition",
    "OpenSesame",
    "SesameState",
    "captured",
    "pick_order",
    "recitation",
    "score_of",
    "treasure_cards",
]
