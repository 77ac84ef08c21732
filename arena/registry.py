"""The game registry: every package under ``arena.games`` (but ``v1``, the protocols), each
exporting ``GAME``; a package that does not is an error that names it.

Discovery is by package name in sorted order (deterministic); at run time, adding a game is
adding a package, nothing else.
"""

from __future__ import annotations

import importlib
import importlib.util
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
        found_game = _exported_game(module.name)
        if found_game.meta.id in found:
            raise RegistryError(
                f"arena.games.{module.name} and another package both export the game {found_game.meta.id!r}"
            )
        found[found_game.meta.id] = found_game
    return dict(sorted(found.items()))


class RegistryError(ConfigError):
    """A package under ``arena.games`` that is not a game as the registry needs one: a
    contributor's mistake, told by name rather than leaving the game out without a word."""


def _exported_game(package: str) -> Game:
    game = getattr(importlib.import_module(f"arena.games.{package}"), "GAME", None)
    if not isinstance(game, Game):
        raise RegistryError(
            f"arena.games.{package} exports no GAME (an instance of arena.engine.Game) in its "
            f"__init__.py; every package under arena/games is a game (README: Adding a game)"
        )
    return game


_ALONE: dict[str, Game] = {}
"""Games imported by :func:`get_game` on their own, by id."""


def get_game(game_id: str) -> Game:
    """The game with this id; ConfigError names the known ids otherwise. A game whose package
    is named by its id is imported alone: a command about one game does not import all of them
    (about 0.4 s)."""
    game = _ALONE.get(game_id) or _import_alone(game_id)
    if game is not None:
        return game
    table = games()
    if game_id not in table:
        raise ConfigError(f"unknown game {game_id!r}; known games: {', '.join(table)}")
    return table[game_id]


def _import_alone(game_id: str) -> Game | None:
    if not game_id.isidentifier() or game_id == "v1":
        return None
    name = f"{arena.games.__name__}.{game_id}"
    if importlib.util.find_spec(name) is None:
        return None
    game = _exported_game(game_id)
    if game.meta.id != game_id:
        return None  # a package named otherwise: the whole registry finds it
    _ALONE[game_id] = game
    return game
