"""Vivo: see :mod:`arena.games.vivo.game` for the rules and rulings."""

from arena.games.vivo.game import GAME, Card, Played, Vivo, VivoState, legal_cards, obligation, trick_scorers

__all__ = ["GAME", "Card", "Played", "Vivo", "VivoState", "legal_cards", "obligation", "trick_scorers"]
