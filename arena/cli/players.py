"""Players from bot specs: the composition of built-in bots (and, later, remote endpoints).

A top-level function so worker processes can receive it by reference.
"""

from __future__ import annotations

from arena.runner import Player


def make_player(spec: str, game_id: str) -> Player:
    from bots.registry import make_bot

    return make_bot(spec, game_id)


def check_bot(spec: str, game_id: str) -> None:
    """Raise ConfigError if the spec names no bot (before any match starts)."""
    make_player(spec, game_id)
