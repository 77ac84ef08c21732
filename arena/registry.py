"""The game registry: every package under ``arena.games`` that exports ``GAME``.

Discovery is by package name in sorted order (deterministic); adding a game is adding a
package, nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import arena.games
from arena.config import ConfigError
from arena.engine import Game


@cache
def games() -> dict[str, Game]:
    """All games by id, sorted by id."""
    found: dict[str, Game] = {}
    for module in sorted(pkgutil.iter_modules(arena.games.__path__), key=lambda m: m.name):
        if not module.ispkg or module.name == "v1":
            continue
        game = getattr(importlib.import_module(f"arena.games.{module.name}"), "GAME", None)
        if isinstance(game, Game):
            found[game.meta.id] = game
    return dict(sorted(found.items()))


def get_game(game_id: str) -> Game:
    """The game with this id; ConfigError names the known ids otherwise."""
    table = games()
    if game_id not in table:
        raise ConfigError(f"unknown game {game_id!r}; known games: {', '.join(table)}")
    return table[game_id]
