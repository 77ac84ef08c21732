"""Get Bit!: see :mod:`arena.games.getbit.game` for the rules and rulings."""

from arena.games.getbit.game import GAME, Figure, GetBit, GetBitState

__all__ = ["GAME", "Figure", "GetBit", "GetBitState"]
