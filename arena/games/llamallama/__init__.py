"""Llama Llama: see :mod:`arena.games.llamallama.game` for the rules and rulings."""

from arena.games.llamallama.game import GAME, LlamaLlama, LlamaState

__all__ = ["GAME", "LlamaLlama", "LlamaState"]
