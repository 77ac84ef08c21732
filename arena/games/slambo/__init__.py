"""SLAMBO!: see :mod:`arena.games.slambo.game` for the rules and rulings."""

from arena.games.slambo.game import ARENA_DECK, GAME, Card, Deck, Played, Slambo, SlamboState, deltas, next_seat

__all__ = ["ARENA_DECK", "GAME", "Card", "Deck", "Played", "Slambo", "SlamboState", "deltas", "next_seat"]
