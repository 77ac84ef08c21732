"""Built-in bots for Get Bit!."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.chance import Chance
from arena.games.getbit.game import move_figures
from arena.games.v1 import getbit_pb2 as pb
from arena.v1 import bot_pb2
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

LIMB_CARDS = (pb.SHARK_RIGHT_ARM, pb.SHARK_LEFT_ARM, pb.SHARK_RIGHT_LEG, pb.SHARK_LEFT_LEG)
DEVOURED = 30.0  # cost of losing a figure (a lost game in the 2-player variant)
WIN = 30.0  # value of escaping at the end of the base game


def bite_cost(limbs: int) -> float:
    """Cost of losing one of ``limbs`` limbs: dearer the fewer are left; the last is the figure."""
    return DEVOURED if limbs <= 1 else 8.0 / (limbs - 1)


def possible_cards(figure: pb.Figure, highest: int) -> list[int]:
    """The cards a figure may hold: its known hand, else every card not seen played or discarded."""
    if figure.hand_known:
        return list(figure.hand)
    gone = set(figure.discarded) | set(figure.played)
    return [c for c in range(1, highest + 1) if c not in gone]


class HeuristicBot(Bot):
    """Plays the card (or Shark Card) that is best on average against random opponents.

    * Swimmer: samples the other figures' cards uniformly from what they can hold (the hands are
      public while played cards lie face up) and, for the Shark variant, the Shark's card from
      its hand. Each candidate card is scored on the same samples: the cost of being bitten
      (dearer with fewer limbs, a devoured figure worst), the value of escaping or of the
      opponent's figure being devoured (2 players), a little for ending nearer the front, and
      ``thrift`` per pip spent (high cards are the ones that win later races; free when the hand
      is about to be refreshed).
    * Shark: the card that most often bites on the same samples (limb cards hit the rear
      swimmer's remaining limbs; Exhaustion and Any Limb need ties), a Miss costing more as the
      hunger tokens run out.
    * Any Limb: gives up a limb whose Shark Card the Shark still holds, so that card misses later.
    """

    game_id = "getbit"

    def __init__(self, samples: int = 48, thrift: float = 0.15) -> None:
        super().__init__()
        self.samples = samples
        self.thrift = thrift
        self.rng = Chance(0)

    def on_start(self, start: bot_pb2.MatchStart) -> None:
        self.rng = Chance(start.bot_seed)

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        if turn.kind == "lose_limb":
            return self._limb(obs, turn)
        samples = self._sample(obs)
        if turn.kind == "shark_card":
            return self._shark_card(obs, turn, samples)
        return self._card(obs, turn, samples)

    # -- sampling -----------------------------------------------------------------------------

    def _sample(self, obs: pb.Observation) -> list[tuple[dict[int, int], int]]:
        """Random plays of every figure not yet decided, and a random Shark Card (0 = none)."""
        pools: list[tuple[int, Sequence[int]]] = []
        fixed: dict[int, int] = {}
        for f in obs.line:
            figure = obs.figures[f]
            if figure.chosen:
                fixed[f] = figure.chosen
            elif f != obs.choosing_figure:
                cards = possible_cards(figure, obs.highest_card) if figure.hand_count else []
                if cards:
                    pools.append((f, cards))
        shark_cards: Sequence[int] = ()
        if obs.HasField("shark") and obs.round >= 2:
            shark_cards = [obs.shark.chosen] if obs.shark.chosen else list(obs.shark.hand)
        out = []
        for _ in range(self.samples):
            plays = dict(fixed)
            for f, pool in pools:
                plays[f] = self.rng.pick(pool, "sample")
            out.append((plays, self.rng.pick(shark_cards, "sample") if shark_cards else 0))
        return out

    # -- swimmer ------------------------------------------------------------------------------

    def _card(self, obs: pb.Observation, turn: Turn, samples: list[tuple[dict[int, int], int]]) -> str:
        me = obs.choosing_figure
        hand_left = obs.figures[me].hand_count - 1
        best, best_value = turn.options[0].id, float("-inf")
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            card = action.play.card
            total = 0.0
            for plays, shark_card in samples:
                plays[me] = card
                total += self._outcome(obs, plays, shark_card)
            value = total / len(samples)
            if hand_left > 1:  # the hand is refreshed at one card: then spending is free
                value -= self.thrift * card
            if value > best_value:
                best, best_value = option.id, value
        return best

    def _outcome(self, obs: pb.Observation, plays: dict[int, int], shark_card: int) -> float:
        """Value of one sampled reveal for the viewer's figures."""
        figures = obs.figures
        mine = set(obs.my_figures)
        line, tied = move_figures(obs.line, plays)
        # Ending nearer the front is safer next round.
        value = -sum(0.5 * position / (len(line) - 1) for position, f in enumerate(line) if f in mine)
        if obs.round < 2:
            return value
        back = line[-1]
        limbs = len(figures[back].limbs)
        if obs.HasField("shark"):
            if shark_card in LIMB_CARDS:
                bitten = shark_card in figures[back].limbs
            else:
                bitten = shark_card == pb.ANY_LIMB and bool(tied)
            if shark_card == pb.EXHAUSTION and tied:
                value -= sum(1.0 for f in mine if plays.get(f) in tied)
            if bitten and back in mine:
                value -= bite_cost(limbs)
            return value
        if back in mine:
            return value - bite_cost(limbs)
        if limbs == 1:
            if obs.two_player:
                return value + WIN  # the opponent loses a figure
            rest = [f for f in line if f != back]
            if len(rest) == 2 and rest[-1] in mine:
                return value - DEVOURED  # two left: the back one is devoured
            if len(rest) == 2 and rest[0] in mine:
                return value + WIN
        return value

    # -- shark --------------------------------------------------------------------------------

    def _shark_card(self, obs: pb.Observation, turn: Turn, samples: list[tuple[dict[int, int], int]]) -> str:
        figures = obs.figures
        miss_cost = 1.0 + 2.0 / max(obs.shark.hunger, 1)
        best, best_value = turn.options[0].id, float("-inf")
        outcomes = [move_figures(obs.line, plays) for plays, _ in samples]
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            card = action.shark_card
            total = 0.0
            for line, tied in outcomes:
                limbs = figures[line[-1]].limbs
                if card in LIMB_CARDS:
                    hit = card in limbs
                elif card == pb.EXHAUSTION:
                    total += 0.3 if tied else -miss_cost
                    continue
                else:
                    hit = bool(tied)
                total += (2.0 if len(limbs) == 1 else 1.0) if hit else -miss_cost
            value = total / len(outcomes)
            if value > best_value:
                best, best_value = option.id, value
        return best

    # -- any limb -----------------------------------------------------------------------------

    @staticmethod
    def _limb(obs: pb.Observation, turn: Turn) -> str:
        threats = set(obs.shark.hand)
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            if action.lose_limb.limb in threats:  # limb cards share the Limb numbers
                return option.id
        return turn.options[0].id


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params(
        "heuristic", params, [Param("samples", 48, 1, 1000, integer=True), Param("thrift", 0.15, 0, 2)]
    )
    return HeuristicBot(int(values["samples"]), values["thrift"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:samples=8"]
ROLLOUT = "heuristic:samples=4"  # search's rollout policy: the same play on fewer samples (cheap)
SEARCH = {"halving": 1, "tree": 0}  # search's defaults here: root halving, heuristic below (README)
