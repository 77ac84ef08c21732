"""The CLI's players are :mod:`referee.players` (below the CLI, so workers use them too)."""

from referee.players import check_bot, make_player

__all__ = ["check_bot", "make_player"]
