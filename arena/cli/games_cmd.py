"""``arena games``: list the games."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.engine import GameMeta
from arena.protocol import option_text
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
    from rich.table import Table

    from arena.cli.console import console as console_for_table

    console = console_for_table()  # the terminal's width (COLUMNS, else 80 when not a terminal)
    rows = [
        {
            "id": meta.id,
            "name": meta.name,
            "players": f"{meta.min_players}-{meta.max_players}",
            "variants": ", ".join(v.name for v in meta.variants) or "-",
            "options": "\n".join(f"{o.key}={o.allowed()} (default {option_text(o.default)})" for o in meta.options)
            or "-",
            "flags": ", ".join(meta.flags) or "-",
        }
        for meta in metas
    ]
    columns = ["id", "name", "players", "variants", "options", "flags"]
    # The id and name never wrap; the other columns wrap at spaces, and when even a few
    # characters each would not fit, they go (flags, then options, then variants: see
    # `arena rules GAME` for those), and last the name.
    fixed = sum(3 + max(len(c), *(len(r[c]) for r in rows)) for c in ("id", "name", "players")) + 1
    for column, room in (("flags", 12), ("options", 16), ("variants", 12)):
        wrapping = [c for c in columns if c not in ("id", "name", "players")]
        if fixed + sum(3 + room for _ in wrapping) <= console.width:
            break
        columns.remove(column)
    if fixed > console.width:  # still too wide: the display name goes before an id is cut
        columns.remove("name")
    table = Table(title="Arena games", caption="details: arena rules GAME" if len(columns) < 6 else None)
    for column in columns:
        # A wrapping column is never narrower than its longest word ("hidden-information").
        word = max((len(w) for r in rows for w in r[column].replace(",", " ").split()), default=1)
        if column == "options":  # one option a line when the terminal has room for it
            line = max(len(x) for r in rows for x in r["options"].splitlines())
            others = sum(3 + 20 for c in columns if c in ("variants", "flags"))
            if fixed + 3 + line + others <= console.width:
                word = line
        table.add_column(column, no_wrap=column in ("id", "name", "players"), overflow="fold", min_width=word)
    for row in rows:
        table.add_row(*(row[c] for c in columns))
    console.print(table)
    return 0
