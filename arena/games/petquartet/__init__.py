"""Pet Quartet: see :mod:`arena.games.petquartet.game` for the rules and rulings."""

from arena.games.petquartet.game import GAME, PetQuartet, PetQuartetState

__all__ = ["GAME", "PetQuartet", "PetQuartetState"]
