"""Frenzy Falls: see :mod:`arena.games.frenzyfalls.game` for the rules and rulings."""

from arena.games.frenzyfalls.game import GAME, FallsState, FrenzyFalls, Slot, movers, spill_winner

__all__ = ["GAME", "FallsState", "FrenzyFalls", "Slot", "movers", "spill_winner"]
