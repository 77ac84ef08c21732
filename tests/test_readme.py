"""The README is the front door: its game table lists every registered game as it is."""

from __future__ import annotations

import re
from pathlib import Path

from arena.registry import games

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_the_game_table_lists_every_game_with_its_player_counts():
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `([a-z]+)` \| ([0-9–]+) \|", README, re.M)}
    for gid, game in games().items():
        assert gid in rows, f"README's game table has no row for {gid}"
        meta = game.meta
        want = (
            str(meta.min_players) if meta.min_players == meta.max_players else f"{meta.min_players}–{meta.max_players}"
        )
        assert rows[gid] == want, f"README says {gid} plays {rows[gid]}, the game says {want}"
    assert set(rows) <= set(games()), f"README lists games that do not exist: {sorted(set(rows) - set(games()))}"
