"""Friendly Fishing: see :mod:`arena.games.friendlyfishing.game` for the rules and rulings."""

from arena.games.friendlyfishing.game import BOARDS, GAME, FishingState, FriendlyFishing, draw_board, fishing_scores

__all__ = ["BOARDS", "GAME", "FishingState", "FriendlyFishing", "draw_board", "fishing_scores"]
