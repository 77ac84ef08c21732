"""Built-in bots for Eggs and Empires."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.v1 import eggsandempires_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

MERCHANT, MAGE, BLACKSMITH, HERO = 5, 7, 8, 10


class HeuristicBot(Bot):
    """Sends the right Adventurer for the Eggs on the table.

    * Play: with a big Egg showing (at least ``greed`` VP) it sends its highest Adventurer; when
      every face-up Egg explodes it sends the Mage (it refuses them) or a Merchant (+6 for
      taking nothing, likely when Eggs are few), else its lowest card; it never wastes the Hero
      on small Eggs and avoids the Blacksmith (-4 when it misses) unless Eggs are plenty.
    * Collect: the best Egg; an unseen face-down Egg is worth the mean of the unseen Eggs.
    * Courier: gives an Exploding Egg to the leader. Priest: discards its worst negative Egg.
    * Redraws a starting hand without any card above 6.
    """

    name = "heuristic"
    game_id = "eggsandempires"

    def __init__(self, greed: float = 5) -> None:
        super().__init__()
        self.greed = greed

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        ids = turn.option_ids
        if turn.kind == "mulligan":
            return "keep" if max(obs.hand) > 6 else "redraw"
        if turn.kind == "play":
            return self._play(obs, ids)
        if turn.kind == "collect":
            return max(ids, key=lambda i: self._egg_value(obs, i))
        if turn.kind == "courier":
            if obs.courier_egg < 0:
                others = [s for s in range(obs.players) if s != obs.seat]
                leader = max(others, key=lambda s: obs.seats[s].total + obs.seats[s].known_round_vp)
                return f"give:{leader}"
            return "keep"
        if turn.kind == "priest":
            mine = obs.seats[obs.seat].eggs
            worst = min(range(len(mine)), key=lambda i: mine[i].value)
            return f"discard:{worst + 1}" if mine[worst].known and mine[worst].value < 0 else "keep"
        return ids[0]

    @staticmethod
    def _unseen_mean(obs: pb.Observation) -> float:
        return sum(obs.unseen_eggs) / len(obs.unseen_eggs) if obs.unseen_eggs else 0.0

    def _egg_value(self, obs: pb.Observation, option_id: str) -> float:
        kind, _, arg = option_id.partition(":")
        if kind == "egg":
            return float(arg)
        if kind == "hidden":
            egg = [e for e in obs.available if e.face_down][int(arg) - 1]
            return float(egg.value) if egg.known else self._unseen_mean(obs)
        return 0.0  # none

    def _play(self, obs: pb.Observation, ids: Sequence[str]) -> str:
        values = [e.value if e.known else self._unseen_mean(obs) for e in obs.available]
        best = max(values, default=0.0)
        plenty = len(values) >= obs.players
        two = obs.players == 2

        def score(option_id: str) -> float:
            ranks = [int(x) for x in option_id.split(":")[1].split("+")]
            total = 0.0
            for rank in ranks:
                if best >= self.greed:
                    total += rank  # go first
                elif best < 0:
                    total += 20 if rank == MAGE else 15 if rank == MERCHANT else -rank
                else:
                    total += -rank + (8 if rank == MERCHANT and not plenty else 0)
                if rank == BLACKSMITH and not plenty:
                    total -= 12
                if rank == HERO and best < self.greed:
                    total -= 5
            return total / (2 if two else 1)

        return max(ids, key=score)


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("greed", 5, -10, 20)])
    return HeuristicBot(values["greed"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:greed=8"]
