"""Built-in bots for Open Sesame."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from arena.games.v1 import opensesame_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

UNIQUE_BONUS = 0.25
"""A unique (x1) treasure is worth a little more than another new one: it breaks ties."""


def _captures(alarms: Sequence[int], alarm: int) -> bool:
    after = list(alarms)
    after[alarm - 1] += 1
    return max(after) >= 3 or min(after) >= 1


class HeuristicBot(Bot):
    """Collects different treasures, takes the contested ones first, and pushes its luck as Ali
    Baba only while the next card is worth the risk.

    * Take: a treasure it lacks is worth 1 (a unique one 1.25); it is worth twice that if a seat
      picking before its next pick lacks it too (take what others want first), and ``spite``
      for each opponent who lacks it when it is worthless to itself (deny the leader-ish).
    * Draw (Ali Baba): one-step lookahead over the pile's known contents. "Open sesame!" now is
      worth what it would collect picking first, minus ``spite`` times the best opponent's gain;
      drawing is worth the same after each possible next card (after a capturing one Ali Baba
      gets nothing and the thieves share it all; after a fumble by the next thief, whose record
      of fumbles is public, Ali Baba takes 3 first). It draws when that expectation is higher
      (the Chief Thief on top is always safe).
    * Recite: always correctly (its memory is perfect).
    """

    name = "heuristic"
    game_id = "opensesame"

    def __init__(self, spite: float = 0.3, nerve: float = 1.0) -> None:
        super().__init__()
        self.spite = spite
        self.nerve = nerve

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        ids = turn.option_ids
        if turn.kind == "recite":
            return "recite"
        if turn.kind == "draw":
            return self._draw(obs)
        if turn.kind == "take":
            return max(ids, key=lambda i: (self._take_value(obs, i), i))
        return ids[0]

    # -- helpers ------------------------------------------------------------------------------

    @staticmethod
    def _held(obs: pb.Observation) -> list[set[int]]:
        return [{int(c.treasure) for c in s.collection} for s in obs.seats]

    @staticmethod
    def _worth(treasure: int, held: set[int], unique: set[int]) -> float:
        if treasure in held:
            return 0.0
        return 1.0 + (UNIQUE_BONUS if treasure in unique else 0.0)

    def _take_value(self, obs: pb.Observation, option_id: str) -> float:
        by_name = {t.name: int(t.treasure) for t in obs.treasures}
        unique = {int(t.treasure) for t in obs.treasures if t.copies == 1}
        treasure = by_name[option_id.removeprefix("take:")]
        held = self._held(obs)
        me = obs.seat
        mine = self._worth(treasure, held[me], unique)
        order = list(obs.pick_order)[1:]
        before_me = order[: order.index(me)] if me in order else order
        contested = any(self._worth(treasure, held[s], unique) > 0 for s in before_me)
        if mine:
            return mine * (2.0 if contested else 1.0)
        lacking = sum(1 for s in range(obs.players) if s != me and treasure not in held[s])
        return self.spite * lacking / max(1, obs.players - 1)

    def _gains(self, obs: pb.Observation, cavern: Counter[int], order: Sequence[int]) -> list[float]:
        """What each seat would gain from sharing this cavern in this pick order, every seat
        greedily taking its most valuable treasure."""
        unique = {int(t.treasure) for t in obs.treasures if t.copies == 1}
        held = [set(h) for h in self._held(obs)]
        left = Counter(cavern)
        gains = [0.0] * obs.players
        for seat in order:
            pick = max(sorted(+left), key=lambda t: self._worth(t, held[seat], unique))
            gains[seat] += self._worth(pick, held[seat], unique)
            held[seat].add(pick)
            left[pick] -= 1
        return gains

    def _value(self, obs: pb.Observation, cavern: Counter[int], order: Sequence[int]) -> float:
        gains = self._gains(obs, cavern, order)
        me = obs.seat
        best_other = max(g for s, g in enumerate(gains) if s != me)
        return gains[me] - self.spite * best_other

    @staticmethod
    def _order(obs: pb.Observation, n: int, ending: int, at_fault: int = -1) -> list[int]:
        """The pick order of a share (as the rules give it)."""
        players, ali = obs.players, obs.ali_baba
        if ending == pb.OPEN_SESAME:
            return [(ali + i) % players for i in range(n)]
        first = [ali] * min(3, n) if ending == pb.FUMBLE else []
        ring = [(ali + 1 + i) % players for i in range(players)]
        ring = [s for s in ring if s != at_fault and (ending == pb.FUMBLE or s != ali)]
        return first + [ring[i % len(ring)] for i in range(n - len(first))]

    @staticmethod
    def _fumble_rate(obs: pb.Observation, seat: int, cards: int) -> float:
        """The chance that this thief gets a cavern of ``cards`` wrong: the slip chance with
        human memory, else how often it fumbled so far (a careful prior: nobody fumbles)."""
        if obs.human_memory:
            return obs.slip_table[min(cards, len(obs.slip_table) - 1)] / 100
        view = obs.seats[seat]
        return view.fumbles / (view.fumbles + view.recitations + 2)

    def _next_reciter(self, obs: pb.Observation) -> int:
        """Who recites the next card: the thief after the one who recited the last card."""
        n = sum(c.count for c in obs.cavern)
        thieves = [(obs.ali_baba + 1 + i) % obs.players for i in range(obs.players - 1)]
        return thieves[n % len(thieves)]

    def _draw(self, obs: pb.Observation) -> str:
        cavern = Counter({int(c.treasure): c.count for c in obs.cavern})
        n = sum(cavern.values())
        now = self._value(obs, cavern, self._order(obs, n, pb.OPEN_SESAME))
        alarm_of = {int(t.treasure): int(t.alarm) for t in obs.treasures}
        alarms = (obs.shiny, obs.noisy, obs.encumbering)
        if obs.until_chief == 0:
            chances = Counter({int(pb.CHIEF_THIEF): 1})
        else:
            chances = Counter({int(c.treasure): c.count for c in obs.unseen})
        total = sum(chances.values())
        reciter = self._next_reciter(obs)
        fumble = self._fumble_rate(obs, reciter, n + 1)
        expected = 0.0
        for treasure, count in chances.items():
            after = cavern + Counter({treasure: 1})
            alarm = alarm_of[treasure]
            if alarm and _captures(alarms, alarm):  # Ali Baba gets nothing
                expected += count * self._value(obs, after, self._order(obs, n + 1, pb.CAPTURE))
                continue
            opened = self._value(obs, after, self._order(obs, n + 1, pb.OPEN_SESAME))
            fumbled = self._value(obs, after, self._order(obs, n + 1, pb.FUMBLE, reciter))
            expected += count * ((1 - fumble) * opened + fumble * fumbled)
        return "draw" if self.nerve * expected / total > now else "open-sesame"


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("spite", 0.3, 0, 2), Param("nerve", 1.0, 0.2, 3)])
    return HeuristicBot(values["spite"], values["nerve"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:nerve=1.5", "heuristic:spite=0"]
