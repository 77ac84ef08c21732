"""The built-in bots: ``random`` and ``search`` for every game plus each game's own bots
(``search`` is chosen explicitly: it is not in the default tournament field).

A bot spec is ``name`` or ``name:key=value,key=value`` (parameters for bots that take them,
e.g. ``heuristic:threshold=4``). Per-game bots live in ``bots.games.<game id>`` as a ``BOTS``
mapping from name to a factory taking the parameters.

Many specs spell one bot (``heuristic:threshold=04``, ``heuristic:threshold=3`` at its
default, parameters in any order); :func:`canonical_spec` gives the one spelling tournaments,
matches and the service name it by, so two spellings are never two entrants.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import bots.games
from arena.config import ConfigError
from bots.params import Param, recording
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
def _module_names() -> tuple[str, ...]:
    """The games with a bot module (listed, not imported)."""
    return tuple(sorted(module.name for module in pkgutil.iter_modules(bots.games.__path__)))


def _game_module(game_id: str) -> object | None:
    """One game's bot module, imported alone (a match loads only the game it plays)."""
    return importlib.import_module(f"bots.games.{game_id}") if game_id in _module_names() else None


def _bots_of(game_id: str) -> dict[str, BotFactory]:
    return dict(getattr(_game_module(game_id), "BOTS", None) or {})


@cache
def _game_bots() -> dict[str, dict[str, BotFactory]]:
    return {name: found for name in _module_names() if (found := _bots_of(name))}


def tournament_field(game_id: str, players: int | None = None) -> list[str]:
    """The default bots of a tournament: every built-in bot, plus the variants a game names in
    its ``FIELD`` (e.g. a heuristic with other parameters) so the table is interesting.

    The field fills a table of ``players`` (default: the game's largest): when there are fewer
    bots, numbered copies (``random#2``, ``heuristic#2``, ...) enter too, each rated apart."""
    from arena.registry import get_game
    from arena.tournament import copies

    extra = list(getattr(_game_module(game_id), "FIELD", []))
    field = list(dict.fromkeys([*bot_names(game_id), *extra]))
    seats = players if players is not None else get_game(game_id).meta.max_players
    rounds = -(-seats // len(field))  # ceiling: copies of every bot, in field order
    entrants = [copy for n in range(rounds) for copy in (copies(bot, n + 1)[-1] for bot in field)]
    return entrants[: max(seats, len(field))]


def rollout_spec(game_id: str) -> str | None:
    """The bot ``search`` plays its rollouts with: the game's ``ROLLOUT`` spec (its heuristic,
    or a cheaper setting of it), or None when the game names none (a rollout calls it at every
    step, so only a heuristic that costs about an engine step or a few is named)."""
    spec = getattr(_game_module(game_id), "ROLLOUT", None)
    return None if spec is None else str(spec)


def rollout_policy(game_id: str) -> Callable[[Game], RolloutPolicy] | None:
    """The game's state rollout policy (``ROLLOUT_POLICY`` in its bot module: built from the
    game, it reads the deciding seat's view straight from a world), or None."""
    return getattr(_game_module(game_id), "ROLLOUT_POLICY", None)


def search_defaults(game_id: str) -> dict[str, str]:
    """The game's own defaults for ``search`` parameters (``SEARCH`` in its bot module: the
    setting measured best for it); a spec's parameters override them."""
    return {k: str(v) for k, v in getattr(_game_module(game_id), "SEARCH", {}).items()}


def bot_names(game_id: str) -> list[str]:
    """Names of the built-in bots that play this game (``random`` first)."""
    return ["random", *_bots_of(game_id)]


def builtin_names(game_id: str) -> list[str]:
    """Every built-in bot :func:`make_bot` plays for this game: :func:`bot_names` and
    ``search`` (chosen explicitly, so it is not in :func:`bot_names`, the default field)."""
    return [*bot_names(game_id), "search"]


def builtin_parameters(game_id: str) -> dict[str, list[str]]:
    """Each built-in bot of the game and its parameters as ``name=range (default value)``, the
    defaults this game gives them (a newcomer found them only in error messages)."""
    described: dict[str, list[str]] = {}
    for name in builtin_names(game_id):
        specs, plays = _settings(name, {}, game_id)  # what the bare name plays (search's epsilon too)
        described[name] = [
            f"{p.describe()} ({_default_text(name, p.name, p.spell(plays[p.name]), game_id)})" for p in specs
        ]
    return described


def _default_text(bot: str, param: str, default: str, game_id: str) -> str:
    """``default V``; for ``search`` in a game that names no rollout heuristic, what its
    heuristic rollouts fall back to (MAST at epsilon 0.5, whatever ``epsilon`` says)."""
    if bot != "search" or rollout_spec(game_id) is not None or rollout_policy(game_id) is not None:
        return f"default {default}"
    from bots.search import EPSILON

    if param == "rollout" and default == "heuristic":
        return "default heuristic: this game names no rollout heuristic, so MAST rollouts"
    if param == "epsilon":
        return f"default {EPSILON['mast']}; rollout=heuristic plays it whatever epsilon says"
    return f"default {default}"


def all_builtin_names() -> set[str]:
    """The built-in bots' names across every game (no owner may register one as a bot name:
    a tournament entrant of that name is the built-in)."""
    return {"random", "search", *(name for bots in _game_bots().values() for name in bots)}


def _pairs(spec: str) -> tuple[str, list[tuple[str, str]]]:
    name, _, rest = spec.partition(":")
    pairs: list[tuple[str, str]] = []
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            if item.isdigit() or item.startswith("//"):  # 127.0.0.1:5000, http://host:5000
                raise ConfigError(
                    f"bot spec {spec!r}: a remote bot's address is grpc://HOST:PORT or unix:///PATH "
                    "(a built-in bot's parameters are NAME:key=value)"
                )
            raise ConfigError(f"bot spec {spec!r}: parameters are key=value, got {item!r}")
        pairs.append((key.strip(), value.strip()))
    return name.strip(), pairs


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    name, pairs = _pairs(spec)
    return name, dict(pairs)


def _build(name: str, params: Mapping[str, str], game_id: str) -> Bot:
    if name == "random":
        return _random(params)
    if name == "search":
        from bots.search import search_bot

        return search_bot(params, game_id)
    factories = _bots_of(game_id)
    if name not in factories:
        known = ", ".join(builtin_names(game_id))
        raise ConfigError(f"unknown bot {name!r} for {game_id}; built-in bots: {known}")
    return factories[name](params)


def make_bot(spec: str, game_id: str) -> Bot:
    """A fresh built-in bot from its spec; ConfigError names the allowed bots otherwise."""
    name, params = parse_spec(spec)
    bot = _build(name, params, game_id)
    bot.name = spec
    return bot


Settings = tuple[tuple[Param, ...], dict[str, float]]
"""A built-in bot's declared parameters and the values it plays with."""


def _settings(name: str, params: Mapping[str, str], game_id: str) -> Settings:
    """What the bot ``name:params`` plays with, read from building it (so a spec that builds
    no bot raises the ConfigError :func:`make_bot` raises)."""
    with recording() as readings:
        bot = _build(name, params, game_id)
    own = next((r for r in readings if r.bot == name), None)
    if own is None:
        return (), {}
    values = dict(own.values)
    if name == "search":
        from bots.search import SearchBot

        # Not given, search's epsilon follows its rollout policy: the value it plays is the bot's.
        assert isinstance(bot, SearchBot)
        values["epsilon"] = float(bot.epsilon)
    return own.specs, values


def bot_settings(spec: str, game_id: str) -> Settings:
    """The parameters a built-in bot's spec declares and the values it plays with, defaults
    included: specs with equal settings are one bot (:func:`canonical_spec` spells it)."""
    name, params = parse_spec(spec)
    return _settings(name, params, game_id)


def _plays(name: str, params: Mapping[str, str], game_id: str) -> dict[str, float] | None:
    """The values ``name:params`` plays with, or None when that spelling builds no bot."""
    try:
        return _settings(name, params, game_id)[1]
    except ConfigError:
        return None


def _spelled(name: str, params: Mapping[str, str]) -> str:
    return f"{name}:{','.join(f'{k}={params[k]}' for k in sorted(params))}" if params else name


@lru_cache(maxsize=4096)
def canonical_spec(spec: str, game_id: str) -> str:
    """The one spelling of a built-in bot's spec: its name, then the parameters whose values
    differ from what the bare name plays, sorted by name, each in its normal form
    (:meth:`bots.params.Param.spell`); none -> the bare name. ``heuristic:threshold=04`` ->
    ``heuristic:threshold=4``; ``heuristic:threshold=3`` (RollDice's default) -> ``heuristic``.

    Anything else (an address, an owner's bot) is an owner's name and comes back as given. A
    spec that names no bot raises :func:`make_bot`'s ConfigError; one parameter given twice
    raises one too (which value was meant is unclear)."""
    name = spec.partition(":")[0].strip()
    if name not in ("random", "search") and name not in _bots_of(game_id):
        return spec
    name, pairs = _pairs(spec)
    keys = [key for key, _ in pairs]
    twice = next((key for key in keys if keys.count(key) > 1), None)
    if twice is not None:
        raise ConfigError(f"bot spec {spec!r}: parameter {twice!r} is given twice")
    specs, target = _settings(name, dict(pairs), game_id)
    declared = {p.name: p for p in specs}
    # Name each parameter the spelling so far plays wrong, until it plays the target (a game's
    # own defaults, or one parameter following another, can take more than one round) ...
    chosen: dict[str, str] = {}
    for _ in range(len(specs) + 1):
        got = _plays(name, chosen, game_id)
        wrong = [key for key in declared if got is None or got[key] != target[key]]
        if not wrong:
            break
        chosen.update({key: declared[key].spell(target[key]) for key in wrong})
    else:  # cannot happen while every parameter named reads back as named; be exact regardless
        chosen = {key: p.spell(target[key]) for key, p in declared.items()}
    # ... then leave out, in declared order, each one the others already imply
    # (``search:rollout=mast`` implies its epsilon).
    for key in declared:
        if key in chosen:
            fewer = {k: v for k, v in chosen.items() if k != key}
            if _plays(name, fewer, game_id) == target:
                chosen = fewer
    return _spelled(name, chosen)
