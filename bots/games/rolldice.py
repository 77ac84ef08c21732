"""Built-in bots for RollDice."""

from __future__ import annotations

from collections.abc import Mapping

from arena.config import ConfigError
from arena.games.v1 import rolldice_pb2 as pb
from bots.sdk import Bot, Turn


class ThresholdBot(Bot):
    """Rerolls a die showing at most ``threshold`` (4 with two rerolls left).

    With one reroll left, a roll keeps its value v against an expected 3.5 for the reroll, so
    rerolling 1–3 is optimal for points per turn; with two rerolls left the continuation is worth
    4.25, so 4 is rerolled too.
    """

    game_id = "rolldice"

    def __init__(self, threshold: int = 3) -> None:
        super().__init__()
        self.threshold = threshold

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        limit = self.threshold + (1 if obs.rerolls_left >= 2 else 0)
        return "reroll" if obs.current_roll <= limit else "stop"


def _heuristic(params: Mapping[str, str]) -> Bot:
    unknown = set(params) - {"threshold"}
    if unknown:
        raise ConfigError(f"heuristic takes threshold=1..5, got {', '.join(sorted(unknown))}")
    try:
        threshold = int(params.get("threshold", "3"))
    except ValueError:
        raise ConfigError("heuristic: threshold must be an integer 1..5") from None
    if not 1 <= threshold <= 5:
        raise ConfigError("heuristic: threshold must be an integer 1..5")
    return ThresholdBot(threshold)


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:threshold=2", "heuristic:threshold=4"]
