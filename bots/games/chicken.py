"""Built-in bots for Chicken!."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from arena.games.chicken.game import BUST_FOXES, FACES, POINTS, SET_ASIDE, WHITE_DICE
from arena.games.v1 import chicken_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

WHITE = pb.WHITE
ENDGAME = 5  # points from the target at which winning this turn is what counts
Outcome = tuple[int, int]  # (foxes, barks) showing this turn


@cache
def die_outcomes(die: int) -> tuple[tuple[float, int, int, int], ...]:
    """(probability, fox, bark, points) per face of a die type (points as if counted now)."""
    faces = FACES[die]
    return tuple((1 / len(faces), int(f == pb.FOX), int(f == pb.BARK), POINTS.get(f, 0)) for f in faces)


def roll_value(dice: Sequence[int], foxes: int, barks: int, banked: int) -> tuple[float, float]:
    """Exact (chance of not busting, expected points) of rolling ``dice`` then counting.

    ``foxes``/``barks`` are already showing, ``banked`` the points already set aside; points
    from a bust count 0. A distribution over (foxes, barks) carries probability and expected
    points (hatching and the reroll after are ignored: a one-step look-ahead).
    """
    dist: dict[Outcome, tuple[float, float]] = {(foxes, barks): (1.0, 0.0)}
    for die in sorted(dice):
        nxt: dict[Outcome, tuple[float, float]] = {}
        for (f, b), (p, pts) in dist.items():
            if f - b >= BUST_FOXES:
                key = (f, b)
                q, e = nxt.get(key, (0.0, 0.0))
                nxt[key] = (q + p, e + pts)
                continue
            for prob, df, db, dp in die_outcomes(die):
                key = (f + df, b + db)
                q, e = nxt.get(key, (0.0, 0.0))
                nxt[key] = (q + p * prob, e + prob * (pts + p * dp))
        dist = nxt
    survive = sum(p for (f, b), (p, _) in dist.items() if f - b < BUST_FOXES)
    points = sum(e + p * banked for (f, b), (p, e) in dist.items() if f - b < BUST_FOXES)
    return survive, points


def reach_chance(dice: Sequence[int], foxes: int, barks: int, banked: int, need: int) -> float:
    """Exact chance that rolling ``dice`` then counting scores at least ``need`` points."""
    dist: dict[tuple[int, int, int], float] = {(foxes, barks, min(banked, need)): 1.0}
    for die in sorted(dice):
        nxt: dict[tuple[int, int, int], float] = {}
        for (f, b, pts), p in dist.items():
            if f - b >= BUST_FOXES:
                continue  # busted: never reaches
            for prob, df, db, dp in die_outcomes(die):
                key = (f + df, b + db, min(pts + dp, need))
                nxt[key] = nxt.get(key, 0.0) + p * prob
        dist = nxt
    return sum(p for (f, b, pts), p in dist.items() if f - b < BUST_FOXES and pts >= need)


def die_mean(die: int) -> float:
    return sum(prob * pts for prob, _, _, pts in die_outcomes(die))


def die_fox(die: int) -> float:
    return sum(prob * fox for prob, fox, _, _ in die_outcomes(die))


class HeuristicBot(Bot):
    """Plays each decision by exact one-roll odds, the way a careful player counts Foxes.

    * Turn: Go For It when the expected points of rolling the passed dice beat the 4 White
      dice minus the Chicken Out point (nothing to lose at 0).
    * Reroll: rerolls when the expected points after rerolling the middle (a bust scores 0)
      beat ``risk`` times what counting now gives; counts whenever counting wins the game, and
      rerolls whenever a rival is about to win and counting now cannot catch up.
    * Hatch (Eggspansion): before the reroll, the die (or the bag's average) that makes the
      coming reroll worth most; after it, the die worst for the next player (the most Fox
      risk for the least points), since hatched dice are passed on unrolled.
    """

    game_id = "chicken"

    def __init__(self, risk: float = 1.0) -> None:
        super().__init__()
        self.risk = risk

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        if turn.kind == "turn":
            return self._turn(obs)
        if turn.kind == "reroll":
            return self._reroll(obs)
        return self._hatch(obs, turn.option_ids)

    @staticmethod
    def _turn(obs: pb.Observation) -> str:
        pool = [die.type for die in obs.pool]
        whites = [WHITE] * WHITE_DICE
        mine = obs.scores[obs.seat]
        penalty = 1 if mine > 0 else 0
        need = obs.target - mine
        rivals = max(s for seat, s in enumerate(obs.scores) if seat != obs.seat)
        if need <= ENDGAME or rivals >= obs.target - ENDGAME:
            # The race is on: the better chance of winning this very turn decides.
            go = reach_chance(pool, 0, 0, 0, need)
            out = reach_chance(whites, 0, 0, 0, need + penalty)
            if go != out:
                return "go" if go > out else "chicken"
        _, go_points = roll_value(pool, 0, 0, 0)
        _, white = roll_value(whites, 0, 0, 0)
        return "go" if go_points >= white - penalty else "chicken"

    def _reroll(self, obs: pb.Observation) -> str:
        now = obs.points
        mine = obs.scores[obs.seat]
        if mine + now >= obs.target:
            return "count"
        middle = [die.type for die in obs.pool if die.face not in SET_ASIDE]
        banked = sum(POINTS.get(die.face, 0) for die in obs.pool if die.face in SET_ASIDE)
        survive, expected = roll_value(middle, obs.foxes, obs.barks, banked)
        rivals = max(s for seat, s in enumerate(obs.scores) if seat != obs.seat)
        if rivals >= obs.target - 5 and mine + now < rivals and survive > 0.2:
            return "reroll"  # a rival is about to win: points now will not be enough
        return "reroll" if expected > self.risk * now else "count"

    @staticmethod
    def _hatch(obs: pb.Observation, option_ids: Sequence[str]) -> str:
        bag = [die for die in range(len(obs.bag)) for _ in range(obs.bag[die])]

        def choices(option: str) -> list[int]:
            if option == "bag":
                return bag
            return [getattr(pb, option.split(":")[1].upper())]

        if obs.rerolled:
            # The die goes to the next player unrolled: give them the least appealing one.
            def appeal(option: str) -> float:
                dice = choices(option)
                return sum(die_mean(d) - 3 * die_fox(d) for d in dice) / len(dice)

            return min(option_ids, key=appeal)
        middle = [die.type for die in obs.pool if die.face not in SET_ASIDE]
        banked = sum(POINTS.get(die.face, 0) for die in obs.pool if die.face in SET_ASIDE)

        def worth(option: str) -> float:
            dice = choices(option)
            return sum(roll_value([*middle, d], obs.foxes, obs.barks, banked)[1] for d in dice) / len(dice)

        return max(option_ids, key=worth)


def _heuristic(params: Mapping[str, str]) -> Bot:
    return HeuristicBot(read_params("heuristic", params, [Param("risk", 1.0, 0.5, 2.0)])["risk"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:risk=1.3"]
