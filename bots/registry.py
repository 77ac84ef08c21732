"""The built-in bots: ``random`` and ``search`` for every game plus each game's own bots
(``search`` is chosen explicitly: it is not in the default tournament field).

A bot spec is ``name`` or ``name:key=value,key=value`` (parameters for bots that take them,
e.g. ``heuristic:threshold=4``). Per-game bots live in ``bots.games.<game id>`` as a ``BOTS``
mapping from name to a factory taking the parameters.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING

import bots.games
from arena.config import ConfigError
from bots.random_bot import RandomBot
from bots.sdk import Bot

if TYPE_CHECKING:
    from arena.engine import Game
    from bots.search import RolloutPolicy

BotFactory = Callable[[Mapping[str, str]], Bot]


def _random(params: Mapping[str, str]) -> Bot:
    if params:
        raise ConfigError(f"bot 'random' takes no parameters, got {', '.join(params)}")
    return RandomBot()


@cache
def _game_modules() -> dict[str, object]:
    return {
        module.name: importlib.import_module(f"bots.games.{module.name}")
        for module in sorted(pkgutil.iter_modules(bots.games.__path__), key=lambda m: m.name)
    }


@cache
def _game_bots() -> dict[str, dict[str, BotFactory]]:
    table: dict[str, dict[str, BotFactory]] = {}
    for name, module in _game_modules().items():
        found = getattr(module, "BOTS", None)
        if found:
            table[name] = dict(found)
    return table


def tournament_field(game_id: str, players: int | None = None) -> list[str]:
    """The default bots of a tournament: every built-in bot, plus the variants a game names in
    its ``FIELD`` (e.g. a heuristic with other parameters) so the table is interesting.

    The field fills a table of ``players`` (default: the game's largest): when there are fewer
    bots, numbered copies (``random#2``, ``heuristic#2``, ...) enter too, each rated apart."""
    from arena.registry import get_game
    from arena.tournament import copies

    extra = list(getattr(_game_modules().get(game_id), "FIELD", []))
    field = list(dict.fromkeys([*bot_names(game_id), *extra]))
    seats = players if players is not None else get_game(game_id).meta.max_players
    rounds = -(-seats // len(field))  # ceiling: copies of every bot, in field order
    entrants = [copy for n in range(rounds) for copy in (copies(bot, n + 1)[-1] for bot in field)]
    return entrants[: max(seats, len(field))]


def rollout_spec(game_id: str) -> str | None:
    """The bot ``search`` plays its rollouts with: the game's ``ROLLOUT`` spec (its heuristic,
    or a cheaper setting of it), or None when the game names none (a rollout calls it at every
    step, so only a heuristic that costs about an engine step or a few is named)."""
    spec = getattr(_game_modules().get(game_id), "ROLLOUT", None)
    return None if spec is None else str(spec)


def rollout_policy(game_id: str) -> Callable[[Game], RolloutPolicy] | None:
    """The game's state rollout policy (``ROLLOUT_POLICY`` in its bot module: built from the
    game, it reads the deciding seat's view straight from a world), or None."""
    return getattr(_game_modules().get(game_id), "ROLLOUT_POLICY", None)


def search_defaults(game_id: str) -> dict[str, str]:
    """The game's own defaults for ``search`` parameters (``SEARCH`` in its bot module: the
    setting measured best for it); a spec's parameters override them."""
    return {k: str(v) for k, v in getattr(_game_modules().get(game_id), "SEARCH", {}).items()}


def bot_names(game_id: str) -> list[str]:
    """Names of the built-in bots that play this game (``random`` first)."""
    return ["random", *_game_bots().get(game_id, {})]


def builtin_names(game_id: str) -> list[str]:
    """Every built-in bot :func:`make_bot` plays for this game: :func:`bot_names` and
    ``search`` (chosen explicitly, so it is not in :func:`bot_names`, the default field)."""
    return [*bot_names(game_id), "search"]


def all_builtin_names() -> set[str]:
    """The built-in bots' names across every game (no owner may register one as a bot name:
    a tournament entrant of that name is the built-in)."""
    return {"random", "search", *(name for bots in _game_bots().values() for name in bots)}


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    name, _, rest = spec.partition(":")
    params: dict[str, str] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ConfigError(f"bot spec {spec!r}: parameters are key=value, got {item!r}")
        params[key.strip()] = value.strip()
    return name.strip(), params


def make_bot(spec: str, game_id: str) -> Bot:
    """A fresh built-in bot from its spec; ConfigError names the allowed bots otherwise."""
    name, params = parse_spec(spec)
    if name == "random":
        bot = _random(params)
    elif name == "search":
        from bots.search import search_bot

        bot = search_bot(params, game_id)
    else:
        factories = _game_bots().get(game_id, {})
        if name not in factories:
            known = ", ".join(builtin_names(game_id))
            raise ConfigError(f"unknown bot {name!r} for {game_id}; built-in bots: {known}")
        bot = factories[name](params)
    bot.name = spec
    return bot
