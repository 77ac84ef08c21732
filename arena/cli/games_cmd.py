"""``arena games``: list the games."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.engine import GameMeta
from arena.registry import games


def register(commands: Any) -> None:
    parser = commands.add_parser("games", help="list the games")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def describe(meta: GameMeta) -> dict[str, Any]:
    return {
        "id": meta.id,
        "name": meta.name,
        "min_players": meta.min_players,
        "max_players": meta.max_players,
        "version": meta.version,
        "flags": list(meta.flags),
        "variants": [
            {
                "name": v.name,
                "description": v.description,
                "options": dict(v.options),
                "players": list(v.players),
            }
            for v in meta.variants
        ],
        "options": [{"key": o.key, "default": o.default, "allowed": o.allowed(), "help": o.help} for o in meta.options],
        "summary": meta.summary,
    }


def run(args: argparse.Namespace) -> int:
    metas = [game.meta for game in games().values()]
    if args.json:
        print(json.dumps([describe(m) for m in metas], indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Arena games")
    for column in ("id", "name", "players", "variants", "options", "flags"):
        table.add_column(column)
    for meta in metas:
        table.add_row(
            meta.id,
            meta.name,
            f"{meta.min_players}-{meta.max_players}",
            ", ".join(v.name for v in meta.variants) or "-",
            "\n".join(f"{o.key}={o.allowed()} (default {o.default})" for o in meta.options) or "-",
            ", ".join(meta.flags) or "-",
        )
    Console(width=160).print(table)
    return 0
