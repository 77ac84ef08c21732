"""Built-in bots for Karakum."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.v1 import karakum_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

GOODS = (pb.JEWELRY, pb.SILK, pb.SPICES, pb.HONEY, pb.PAPER)
GOLD = pb.GOLD
COLOURS = {
    int(pb.JEWELRY): "blue",
    int(pb.SILK): "purple",
    int(pb.SPICES): "red",
    int(pb.HONEY): "orange",
    int(pb.PAPER): "green",
}
NAMES = {
    int(pb.JEWELRY): "jewelry",
    int(pb.SILK): "silk",
    int(pb.SPICES): "spices",
    int(pb.HONEY): "honey",
    int(pb.PAPER): "paper",
}
Camel = tuple[int, int]  # (colour, number)


def fits(camel: Camel, end: Camel | None) -> bool:
    return end is None or end[0] == camel[0] or end[1] == camel[1]


def units(hand: Sequence[int], colour: int) -> int:
    return hand[colour] + hand[GOLD] + sum(hand[g] // 2 for g in GOODS if g != colour)


def chain(end: Camel | None, outside: list[Camel]) -> int:
    """The longest run of outside camels that can join one after another from ``end``."""
    best = 0
    for i, camel in enumerate(outside):
        if fits(camel, end):
            best = max(best, camel[1] + chain(camel, outside[:i] + outside[i + 1 :]))
    return best


class HeuristicBot(Bot):
    """Buys the camel that extends its caravan for the most points per card, gathers toward it.

    * Turn: values every affordable market camel: its points in the caravan (plus any outside
      camels it would bring in), or half of them outside, less the cards it costs; buys the best
      when it is worth at least ``greed`` times its cost (a fitting camel almost always is),
      otherwise gathers. Near the end (few camels left) it buys whatever scores.
    * Gather: aims at the best fitting camel it cannot yet afford and takes its good face up,
      else draws blind (with no draw offered, its first option); it does not seek a face-up
      Gold on a turn. The free pick of a value-1 camel takes a face-up Gold when there is one,
      else picks the same way.
    * Pay: spends the camel's own good first, then surplus pairs, Gold last.
    * Rejoin: the camel that starts the longest chain of outside camels.
    """

    game_id = "karakum"

    def __init__(self, greed: float = 0.5) -> None:
        super().__init__()
        self.greed = greed

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        me = obs.seats[obs.seat]
        caravan = [(int(c.colour), c.number) for c in me.caravan]
        outside = [(int(c.colour), c.number) for c in me.outside]
        end = caravan[-1] if caravan else None
        hand = list(obs.hand)
        market = [(int(c.colour), c.number) for c in obs.market]
        ids = [o.id for o in turn.options]
        if turn.kind == "pay":
            return self._pay(turn, hand, (int(obs.buying.colour), obs.buying.number), market)
        if turn.kind == "rejoin":
            best = max(turn.options, key=lambda o: self._rejoin_value(o, outside))
            return best.id
        target = self._target(market, list(obs.market_cost), hand, end, outside)
        if turn.kind == "turn":
            buy = self._best_buy(obs, market, hand, end, outside)
            if buy is not None:
                return buy
        return self._pick(ids, hand, target, turn.kind)

    # -- choices -------------------------------------------------------------------------------

    def _value(self, camel: Camel, end: Camel | None, outside: list[Camel]) -> float:
        if fits(camel, end):
            return camel[1] + chain(camel, outside) + 1.0
        return camel[1] // 2

    def _best_buy(
        self, obs: pb.Observation, market: list[Camel], hand: list[int], end: Camel | None, outside: list[Camel]
    ) -> str | None:
        late = obs.camel_deck_size <= obs.players
        best, best_score = None, 0.0
        for camel, cost in zip(market, obs.market_cost, strict=True):
            if units(hand, camel[0]) < cost:
                continue
            value = self._value(camel, end, outside)
            if not late and value < self.greed * cost:
                continue
            score = value - 0.4 * cost
            if best is None or score > best_score:
                best, best_score = camel, score
        if best is None:
            return None
        return f"buy:{COLOURS[best[0]]}{best[1]}"

    def _target(
        self, market: list[Camel], costs: list[int], hand: list[int], end: Camel | None, outside: list[Camel]
    ) -> int:
        """The colour of the most attractive camel to save for."""
        best, best_score = market[0][0] if market else GOODS[0], -1e9
        for camel, cost in zip(market, costs, strict=True):
            missing = max(0, cost - units(hand, camel[0]))
            score = self._value(camel, end, outside) - 0.5 * cost - 1.0 * missing
            if score > best_score:
                best, best_score = camel[0], score
        return best

    @staticmethod
    def _pick(ids: list[str], hand: list[int], target: int, kind: str) -> str:
        want = f"take:{NAMES[target]}"
        if kind == "free" and "take:gold" in ids:
            return "take:gold"
        if want in ids:
            return want
        if "draw" in ids:
            return "draw"
        return ids[0]

    @staticmethod
    def _pay(turn: Turn, hand: list[int], camel: Camel, market: list[Camel]) -> str:
        best, best_cost = turn.options[0].id, 1e9
        others = [c for c in market if c != camel and c[0] != camel[0] and fits(c, camel)]
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            paid = list(action.cards)
            cost = sum(paid) + 1.5 * paid[GOLD]
            # Keep goods for other camels that would fit after this one.
            for other in others:
                cost += 0.3 * min(paid[other[0]], hand[other[0]])
            if cost < best_cost:
                best, best_cost = option.id, cost
        return best

    @staticmethod
    def _rejoin_value(option: object, outside: list[Camel]) -> int:
        action = option.action  # type: ignore[attr-defined]
        camel = (action.camel.colour, action.camel.number)
        rest = [c for c in outside if c != camel]
        return camel[1] + chain(camel, rest)


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("greed", 0.5, 0.0, 2.0)])
    return HeuristicBot(values["greed"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:greed=1"]
