"""Built-in bots for Eggs and Empires."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.eggsandempires.game import (
    BLACKSMITH,
    BLACKSMITH_PENALTY,
    HERO,
    MAGE,
    MERCHANT,
    MERCHANT_BONUS,
    collection_order,
    ranks_of,
)
from arena.games.v1 import eggsandempires_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn


class HeuristicBot(Bot):
    """Sends the right Adventurer for the Eggs on the table.

    * Play (3-6 players): with a big Egg showing (at least ``greed`` VP) it sends its highest Adventurer; when
      every face-up Egg explodes it sends the Mage (it refuses them) or a Merchant (+6 for
      taking nothing, likely when Eggs are few), else its lowest card; it never wastes the Hero
      on small Eggs and avoids the Blacksmith (-4 when it misses) unless Eggs are plenty.
    * Play at 2 players: each pair is valued as a pair, by the VP margin its two cards would
      win against every pair the opponent may hold (its ``unplayed`` ranks), less ``greed``/8 VP
      a rank spent (a high card kept is worth more later). Two high cards for a big Egg leave
      the second one an Exploding Egg it must take; a high card and a low one (or a Mage) leave
      that Egg to the opponent (an outside probe: Eggs 13 and -6, Hero + Dark Priestess took
      both). Against the former per-card play, 400 matches: 295 wins and +19.8 VP a match at
      greed 5, 306 and +21.1 at greed 8.
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
        if obs.players == 2:
            return max(ids, key=lambda i: self._pair_score(obs, i))
        values = [e.value if e.known else self._unseen_mean(obs) for e in obs.available]
        best = max(values, default=0.0)
        plenty = len(values) >= obs.players

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
            return total

        return max(ids, key=score)

    def _pair_score(self, obs: pb.Observation, option_id: str) -> float:
        """Two players: the margin the pair wins against each pair the opponent may hold
        (alike), less what its ranks are worth kept for later."""
        ours = ranks_of(option_id)
        other = 1 - obs.seat
        theirs = sorted(set(obs.seats[other].unplayed), reverse=True)
        pairs: list[tuple[int, ...]] = [(a, b) for i, a in enumerate(theirs) for b in theirs[i + 1 :]] or [()]
        eggs = [(e.value if e.known else self._unseen_mean(obs), e.face_down) for e in obs.available]
        margin = sum(_margin(eggs, ours, pair, obs.seat, obs.marker) for pair in pairs) / len(pairs)
        return margin - self.greed / 8 * sum(ours)


def _margin(
    eggs: Sequence[tuple[float, bool]], ours: Sequence[int], theirs: Sequence[int], seat: int, marker: int
) -> float:
    """Our VP less theirs when these cards collect these (value, face_down) Eggs, in the
    game's collection order, each taking its best Egg (it must take one if it can)."""
    plays = [(seat, r) for r in ours] + [(1 - seat, r) for r in theirs]
    order, _ = collection_order(plays, marker, 2)
    left = list(eggs)
    vp = [0.0, 0.0]
    for entry in order:
        if entry.cancelled:
            continue
        mage = entry.rank == MAGE
        take = max((e for e in left if not (mage and not e[1] and e[0] < 0)), default=None)
        if take is not None and mage and take[1] and take[0] < 0:
            take = None  # only face-down Eggs left to it, worse than nothing: the Mage refuses
        if take is not None:
            left.remove(take)
            vp[entry.seat] += take[0]
        elif entry.rank == MERCHANT:
            vp[entry.seat] += MERCHANT_BONUS
        elif entry.rank == BLACKSMITH:
            vp[entry.seat] += BLACKSMITH_PENALTY
    return vp[seat] - vp[1 - seat]


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("greed", 5, -10, 20)])
    return HeuristicBot(values["greed"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:greed=8"]
