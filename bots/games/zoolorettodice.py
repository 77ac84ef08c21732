"""Built-in bots for Zooloretto: The Dice Game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.games.v1 import zoolorettodice_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

COIN = pb.COIN
# The 21 distinct rolls of two dice (sorted symbols) with their probability out of 36.
ROLLS: tuple[tuple[tuple[int, int], int], ...] = tuple(
    ((a, b), 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7)
)


@dataclass
class Sheet:
    """A zoo's numbers, copied from the observation so a take can be tried on it."""

    enclosures: list[int]
    barn: list[bool]
    coins: int


class Evaluator:
    """The worth of dice for a seat, read from the observation alone.

    A zoo's *potential* is its score if the game ended now (coin groups used best), plus partial
    credit for what is under way while the game goes on: a coin group partly filled
    (``coin_weight`` × the filled fraction of a group's worth) and an open enclosure bonus
    (``bonus_weight`` × bonus × (filled fraction)², more when this zoo leads the race for it).
    A truck is worth the potential it adds.
    """

    def __init__(self, obs: pb.Observation, coin_weight: float, bonus_weight: float) -> None:
        self.obs = obs
        self.caps = list(obs.capacities)
        self.bonus_values = list(obs.bonus_values)
        self.group_sizes = list(obs.coin_groups)
        self.ends = [sum(self.group_sizes[: i + 1]) for i in range(len(self.group_sizes))]
        self.spaces = sum(self.group_sizes)
        self.final = obs.end_triggered
        self.coin_weight = 0.0 if self.final else coin_weight
        self.bonus_weight = 0.0 if self.final else bonus_weight
        self.sheets = [Sheet(list(z.enclosures), list(z.barn), z.coins) for z in obs.zoos]
        self.open_bonus = [owner < 0 for owner in obs.bonus_owner]
        # The best rival progress per animal (for the bonus race).
        self.rival = [
            [max((self.sheets[o].enclosures[a] for o in range(obs.players) if o != s), default=0) for a in range(5)]
            for s in range(obs.players)
        ]
        self.base = [self.potential(s, sheet, self.open_bonus) for s, sheet in enumerate(self.sheets)]

    def potential(self, seat: int, sheet: Sheet, open_bonus: Sequence[bool]) -> float:
        groups = sum(1 for end in self.ends if sheet.coins >= end)
        barn = sum(sheet.barn)
        removed = min(groups, barn)
        value = float(sum(sheet.enclosures) + (groups - removed) * self.obs.coin_group_points)
        value += (barn - removed) * self.obs.barn_penalty
        if groups < len(self.ends) and self.coin_weight:
            start = self.ends[groups - 1] if groups else 0
            worth = 2.0 if barn > groups else 1.0
            value += self.coin_weight * worth * (sheet.coins - start) / self.group_sizes[groups]
        if self.bonus_weight:
            for a, cap in enumerate(self.caps):
                n = sheet.enclosures[a]
                if open_bonus[a] and 0 < n < cap:
                    lead = 1.0 if n >= self.rival[seat][a] else 0.5
                    value += self.bonus_weight * lead * self.bonus_values[a] * (n / cap) ** 2
        return value

    def gain(self, seat: int, dice: Sequence[int]) -> float:
        """What taking these dice is worth to ``seat`` (points, with partial credit)."""
        sheet = self.sheets[seat]
        new = Sheet(list(sheet.enclosures), list(sheet.barn), sheet.coins)
        won = 0
        open_bonus = list(self.open_bonus)
        for symbol in dice:
            if symbol == COIN:
                new.coins = min(self.spaces, new.coins + 1)
                continue
            a = symbol - 1
            if new.enclosures[a] < self.caps[a]:
                new.enclosures[a] += 1
                if new.enclosures[a] == self.caps[a] and open_bonus[a]:
                    won += self.bonus_values[a]
                    open_bonus[a] = False
            else:
                new.barn[a] = True
        return self.potential(seat, new, open_bonus) + won - self.base[seat]


class HeuristicBot(Bot):
    """Takes a truck when it is worth enough, otherwise rolls and places the dice shrewdly.

    * Worth of a truck: :class:`Evaluator` (animals with room +1, a first fill adds the bonus,
      barn animals −2 unless a spare coin group cancels them, coins and bonus races get partial
      credit while the game goes on).
    * Turn: with an empty supply, takes the best truck. As the last player still in the round it
      rolls while the expected best truck after the roll (placing the dice in the best way, over
      the 21 distinct rolls) beats the best truck now. Otherwise it takes the best truck once it
      is worth ``greed`` points (less as the supply runs low: fewer rolls are left to improve it).
    * Place: maximises its own best truck minus ``spite`` × the best truck of the next player to
      act (dumping animals others do not want where they land).
    """

    game_id = "zoolorettodice"

    def __init__(
        self, greed: float = 2.0, spite: float = 0.5, coin_weight: float = 0.5, bonus_weight: float = 0.5
    ) -> None:
        super().__init__()
        self.greed = greed
        self.spite = spite
        self.coin_weight = coin_weight
        self.bonus_weight = bonus_weight

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        ev = Evaluator(obs, self.coin_weight, self.bonus_weight)
        trucks = [[int(d) for d in t.dice] for t in obs.trucks]
        if turn.kind == "place":
            rolled = (obs.rolled[0], obs.rolled[1])
            return max(turn.option_ids, key=lambda o: self._placement_value(obs, ev, trucks, rolled, o))
        me = obs.seat
        takes = [o for o in turn.option_ids if o.startswith("take:")]
        best_take, best = None, float("-inf")
        for option in takes:
            value = ev.gain(me, trucks[int(option[5:])])
            if value > best:
                best_take, best = option, value
        if "roll" not in turn.option_ids:
            assert best_take is not None
            return best_take
        if best_take is None:
            return "roll"
        if obs.active_players == 1:
            return "roll" if self._roll_value(obs, ev, trucks) > best + 0.05 else best_take
        threshold = self.greed * min(1.0, obs.supply / obs.dice * 1.5)
        return best_take if best >= threshold else "roll"

    def _best_for(self, ev: Evaluator, seat: int, trucks: Sequence[Sequence[int]]) -> float:
        return max((ev.gain(seat, t) for t in trucks if t), default=0.0)

    def _roll_value(self, obs: pb.Observation, ev: Evaluator, trucks: list[list[int]]) -> float:
        """Expected best truck for the last player after one roll placed in their favour."""
        total = 0.0
        for (a, b), weight in ROLLS:
            best = float("-inf")
            for ta in range(len(trucks)):
                if len(trucks[ta]) >= obs.crates:
                    continue
                for tb in range(len(trucks)):
                    if len(trucks[tb]) + (2 if ta == tb else 1) > obs.crates:
                        continue
                    placed = [list(t) for t in trucks]
                    placed[ta].append(a)
                    placed[tb].append(b)
                    best = max(best, self._best_for(ev, obs.seat, placed))
            total += weight * best
        return total / 36

    def _placement_value(
        self, obs: pb.Observation, ev: Evaluator, trucks: list[list[int]], rolled: tuple[int, int], option: str
    ) -> float:
        a, b = (int(x) for x in option[6:].split(","))
        placed = [list(t) for t in trucks]
        placed[a].append(rolled[0])
        placed[b].append(rolled[1])
        mine = self._best_for(ev, obs.seat, placed)
        if obs.active_players == 1:
            return mine
        nxt = next(
            (obs.seat + k) % obs.players
            for k in range(1, obs.players)
            if not obs.zoos[(obs.seat + k) % obs.players].passed
        )
        return mine - self.spite * self._best_for(ev, nxt, placed)


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params(
        "heuristic",
        params,
        [
            Param("greed", 2.0, 0.0, 10.0),
            Param("spite", 0.5, 0.0, 2.0),
            Param("coin_weight", 0.5, 0.0, 2.0),
            Param("bonus_weight", 0.5, 0.0, 2.0),
        ],
    )
    return HeuristicBot(values["greed"], values["spite"], values["coin_weight"], values["bonus_weight"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:greed=1", "heuristic:greed=3.5,spite=0"]
