"""The CLI's players are :mod:`referee.players` (below the CLI, so workers use them too)."""

from arena.tournament import ADDRESSES
from referee.players import check_bot, make_player

__all__ = ["canonical_bot", "check_bot", "make_player"]


def canonical_bot(spec: str, game_id: str) -> str:
    """A built-in bot's spec in its one spelling (``bots.registry.canonical_spec``); an
    address as given. ConfigError for a spec that names no bot, as :func:`check_bot`."""
    if spec.startswith(ADDRESSES):
        return spec  # built-in bots are imported only for a match that plays one
    from bots.registry import canonical_spec

    return canonical_spec(spec, game_id)
