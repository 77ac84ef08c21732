"""Trick to the Future: see :mod:`arena.games.tricktothefuture.game` for the rules and rulings."""

from arena.games.tricktothefuture.game import GAME, TrickToTheFuture, TrickToTheFutureState, round_score

__all__ = ["GAME", "TrickToTheFuture", "TrickToTheFutureState", "round_score"]
