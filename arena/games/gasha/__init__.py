"""Gasha: see :mod:`arena.games.gasha.game` for the rules and rulings."""

from arena.games.gasha.game import GAME, REWARDS, Card, Gasha, GashaState, Reward, can_pay, full_gashas, payments

__all__ = ["GAME", "REWARDS", "Card", "Gasha", "GashaState", "Reward", "can_pay", "full_gashas", "payments"]
