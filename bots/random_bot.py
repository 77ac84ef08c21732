"""The ``random`` bot: uniform over the legal options, for any game."""

from __future__ import annotations

from arena.chance import Chance
from arena.v1 import bot_pb2
from bots.sdk import Bot, Turn


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self._seed = seed
        self._rng: Chance | None = None  # seeded on first use: a match seeds it anew at start

    @property
    def rng(self) -> Chance:
        if self._rng is None:
            self._rng = Chance(self._seed)
        return self._rng

    @rng.setter
    def rng(self, rng: Chance) -> None:
        self._rng = rng

    def on_start(self, start: bot_pb2.MatchStart) -> None:
        # Seeded per match and seat by the referee, so a match replays identically.
        self._rng = Chance(start.bot_seed)

    def choose(self, turn: Turn) -> str:
        ids = turn.request.options
        rng = self._rng if self._rng is not None else self.rng  # seeded at start, as a rule
        return ids[rng.below(len(ids), "bot")].id
