"""Built-in bots for Open Sesame."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence

from arena.games.v1 import opensesame_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

UNIQUE_BONUS = 0.25
"""A unique (x1) treasure is worth a little more than another new one: it breaks ties."""


GENERIC = 0
"""A card not drawn yet, in the lookahead."""


def _captured(alarms: Sequence[int]) -> bool:
    return max(alarms) >= 3 or min(alarms) >= 1


class HeuristicBot(Bot):
    """Collects different treasures, takes the contested ones first, and pushes its luck as Ali
    Baba only while the next card is worth the risk.

    * Take: a treasure it lacks is worth 1 (a unique one 1.25); it is worth twice that if a seat
      picking before its next pick lacks it too (take what others want first), and ``spite``
      times the share of opponents who lack it when it is worthless to itself (denial).
    * Draw (Ali Baba): looks up to ``depth`` cards ahead by alarm type, from the pile's known
      contents (the cards not drawn yet are worth to each seat the chance that an unseen card
      is new to it). Stopping is worth what it would collect sharing the cavern now (picking
      first) minus ``spite`` times the best opponent's gain; a capture gives the cavern to the
      thieves; a thief's fumble (its public record, or the slip chance with human memory)
      gives Ali Baba 3 cards first. It draws while drawing (times ``nerve``) is worth more.
    * Recite: always correctly (its memory is perfect).
    """

    name = "heuristic"
    game_id = "opensesame"

    def __init__(self, spite: float = 0.3, nerve: float = 1.0, depth: int = 6) -> None:
        super().__init__()
        self.spite = spite
        self.nerve = nerve
        self.depth = depth

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

    def _gains(
        self, obs: pb.Observation, cavern: Counter[int], order: Sequence[int], future: Sequence[float]
    ) -> list[float]:
        """What each seat would gain from sharing this cavern in this pick order, every seat
        greedily taking its most valuable treasure. Cards not drawn yet are ``GENERIC``, worth
        ``future[seat]`` to a seat (the chance that an unseen card is new to it)."""
        unique = {int(t.treasure) for t in obs.treasures if t.copies == 1}
        held = [set(h) for h in self._held(obs)]
        left = Counter(cavern)
        gains = [0.0] * obs.players
        for seat in order:

            def worth(t: int, seat: int = seat) -> float:
                return future[seat] if t == GENERIC else self._worth(t, held[seat], unique)

            pick = max(sorted(+left), key=worth)
            gains[seat] += worth(pick)
            held[seat].add(pick)
            left[pick] -= 1
        return gains

    def _value(
        self, obs: pb.Observation, cavern: Counter[int], order: Sequence[int], future: Sequence[float] = ()
    ) -> float:
        gains = self._gains(obs, cavern, order, future)
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

    @staticmethod
    def _reciter(obs: pb.Observation, cards: int) -> int:
        """Who recites the cavern when it holds ``cards`` cards (the thieves take turns from
        Ali Baba's left)."""
        thieves = [(obs.ali_baba + 1 + i) % obs.players for i in range(obs.players - 1)]
        return thieves[(cards - 1) % len(thieves)]

    def _draw(self, obs: pb.Observation) -> str:
        """Expectimax over the next ``depth`` cards by alarm type (treasures not drawn yet are
        generic cards, worth to each seat the chance that an unseen card is new to it)."""
        cavern = Counter({int(c.treasure): c.count for c in obs.cavern})
        n = sum(cavern.values())
        held = self._held(obs)
        alarm_of = {int(t.treasure): int(t.alarm) for t in obs.treasures}
        unseen = Counter({int(c.treasure): c.count for c in obs.unseen})
        total = sum(unseen.values())
        future = [sum(c for t, c in unseen.items() if t not in h) / max(1, total) for h in held]
        by_alarm: Counter[int] = Counter()
        for t, c in unseen.items():
            by_alarm[alarm_of[t]] += c
        start = (obs.shiny, obs.noisy, obs.encumbering)
        depth = min(self.depth, obs.pile)

        def share(extra: int, ending: int, at_fault: int = -1) -> float:
            cards = cavern + Counter({GENERIC: extra}) if extra else cavern
            return self._value(obs, cards, self._order(obs, n + extra, ending, at_fault), future)

        @functools.cache
        def best(extra: int, alarms: tuple[int, int, int]) -> float:
            """Ali Baba's value after ``extra`` more cards were drawn and recited correctly."""
            stop = share(extra, pb.OPEN_SESAME)
            if extra >= depth:
                return stop
            return max(stop, self.nerve * draw(extra, alarms))

        def draw(extra: int, alarms: tuple[int, int, int]) -> float:
            if extra == obs.until_chief:  # the Chief Thief: no alarm
                odds = {pb.NO_ALARM: 1.0}
            else:
                drawn = [a - s for a, s in zip(alarms, start, strict=True)]
                left = {
                    pb.NO_ALARM: by_alarm[pb.NO_ALARM] - (extra - sum(drawn)),
                    **{a: by_alarm[a] - drawn[a - 1] for a in (pb.SHINY, pb.NOISY, pb.ENCUMBERING)},
                }
                size = sum(c for c in left.values() if c > 0)
                odds = {a: c / size for a, c in left.items() if c > 0} if size else {pb.NO_ALARM: 1.0}
            cards = n + extra + 1
            reciter = self._reciter(obs, cards)
            slip = self._fumble_rate(obs, reciter, cards)
            value = 0.0
            for alarm, p in odds.items():
                after = alarms
                if alarm:
                    after = tuple(a + (i == alarm - 1) for i, a in enumerate(alarms))  # type: ignore[assignment]
                    if _captured(after):
                        value += p * share(extra + 1, pb.CAPTURE)
                        continue
                fumbled = share(extra + 1, pb.FUMBLE, reciter) if slip else 0.0
                value += p * (slip * fumbled + (1 - slip) * best(extra + 1, after))
            return value

        now = share(0, pb.OPEN_SESAME)
        return "draw" if depth and self.nerve * draw(0, start) > now else "open-sesame"


def _heuristic(params: Mapping[str, str]) -> Bot:
    specs = [Param("spite", 0.3, 0, 2), Param("nerve", 1.0, 0.2, 3), Param("depth", 6, 1, 12, integer=True)]
    values = read_params("heuristic", params, specs)
    return HeuristicBot(values["spite"], values["nerve"], int(values["depth"]))


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:nerve=1.5", "heuristic:spite=0"]
