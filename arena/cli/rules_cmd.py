"""``arena rules GAME``: the rules for bot authors, in the project's own words.

A generated header (name, players, options, variants: from the game's ``GameMeta``, so it
cannot drift from the engine) followed by the game's ``rules.md`` (package data next to the
game's module): the goal, the setup, the turn, every decision kind with its option ids, the
events, the variants and the rulings.
"""

from __future__ import annotations

import argparse
from importlib import resources
from typing import Any

from arena.cli import UsageError
from arena.engine import Game
from arena.protocol import option_text
from arena.registry import get_game
from bots.registry import builtin_parameters


def register(commands: Any) -> None:
    parser = commands.add_parser("rules", help="print a game's rules for bot authors")
    parser.add_argument("game", help="game id (see `arena games`)")
    parser.set_defaults(run=run)


def rules_text(game: Game) -> str:
    """The game's rules.md; UsageError if the game ships none."""
    package = type(game).__module__.rpartition(".")[0]
    try:
        return (resources.files(package) / "rules.md").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        raise UsageError(f"{game.meta.id} has no rules.md in {package}") from None


def header(game: Game) -> str:
    meta = game.meta
    low, high = meta.min_players, meta.max_players
    players = f"{low}" if low == high else f"{low}-{high}"
    lines = [f"{meta.name} (`{meta.id}`, version {meta.version})", f"Players: {players}"]
    if meta.flags:
        lines.append(f"Nature: {', '.join(meta.flags)}")
    if meta.summary:
        lines.append(f"In short: {meta.summary}")
    if meta.options:
        lines.append("Options (arena play --option KEY=VALUE):")
        lines += [f"  {o.key}={o.allowed()} (default {option_text(o.default)}): {o.help}" for o in meta.options]
    else:
        lines.append("Options: none")
    if meta.variants:
        lines.append("Variants:")
        for v in meta.variants:
            chosen = " ".join(f"{k}={option_text(val)}" for k, val in v.options.items()) or "default options"
            counts = tuple(v.players or ())
            only = f" [{', '.join(map(str, counts))} player{'' if counts == (1,) else 's'}]" if counts else ""
            lines.append(f"  {v.name}: {v.description} ({chosen}){only}")
    lines.append("Built-in bots (--bots NAME or NAME:KEY=VALUE,...; a tournament's default field is all but search):")
    for name, params in builtin_parameters(meta.id).items():
        lines.append(f"  {name}: {', '.join(params) if params else 'no parameters'}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    text = rules_text(game)
    print(header(game))
    print()
    print(text.rstrip("\n"))
    return 0
