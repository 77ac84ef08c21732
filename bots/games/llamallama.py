"""Built-in bots for Llama Llama."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from arena.games.llamallama.game import CARD_IDS, pb_card
from arena.games.v1 import llamallama_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

Goal = tuple[str, int, str, int]  # top letter, top points, combo, combo points


def as_goal(card: pb.Card) -> Goal:
    return (card.top, card.top_points, card.combo, card.combo_points)


def goal_points(counts: Mapping[str, int], goal: Goal) -> int:
    """Top rule points x copies + bottom rule points x disjoint copies of the combination."""
    top, top_points, combo, combo_points = goal
    need = Counter(combo)
    copies = min(counts.get(x, 0) // k for x, k in need.items())
    return top_points * counts.get(top, 0) + combo_points * copies


def value(counts: Mapping[str, int], sure: Sequence[Goal], unknown: Sequence[Goal], hidden: int) -> float:
    """Score against the sure goals plus ``hidden`` goals drawn from ``unknown`` (their mean)."""
    total = float(sum(goal_points(counts, g) for g in sure))
    if hidden and unknown:
        total += hidden * sum(goal_points(counts, g) for g in unknown) / len(unknown)
    return total


class HeuristicBot(Bot):
    """Gives the goal that suits its own hand best, then passes away what the goals want least.

    * Goal: for each card it could give, the rest of its hand is scored against that goal (sure
      to count) and 3 unknown goals (the mean over the cards it cannot see), minus ``spite`` x
      what that goal gives an average hand (everybody scores every goal, so a goal only pays by
      what it gives you more than the others).
    * Pass: one card at a time, the letter whose loss costs least against the revealed goals,
      its own goal (known even face down) and the still hidden goals (mean over unseen cards),
      plus ``feed`` x what the letter is worth to the neighbour under the revealed goals (what
      you pass helps the player on your left). Of that letter's copies it gives the one whose
      goal side an average hand wants least: the receiver learns that goal is on no display,
      which tells it least about a goal nobody would choose.
    """

    game_id = "llamallama"

    def __init__(self, spite: float = 0.5, feed: float = 0.3) -> None:
        super().__init__()
        self.spite = spite
        self.feed = feed

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        hand = list(obs.hand)
        seen = {c.id for c in hand} | {c.id for c in obs.picked}
        revealed = [d.goal for d in obs.displays if d.revealed]
        seen |= {c.id for c in revealed}
        if obs.goal.id:
            seen.add(obs.goal.id)
        if turn.kind == "goal":
            return self._goal(turn, hand, seen)
        return self._pass(turn, obs, hand, seen, revealed)

    def _goal(self, turn: Turn, hand: list[pb.Card], seen: set[int]) -> str:
        unknown = [as_goal(c) for c in _DECK if c.id not in seen]
        best, best_value = turn.option_ids[0], float("-inf")
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            goal = as_goal(action.goal)
            counts = Counter(c.letter for c in hand if c.id != action.goal.id)
            v = value(counts, [goal], unknown, 3) - self.spite * goal_points(_TYPICAL, goal)
            if v > best_value:
                best, best_value = option.id, v
        return best

    def _pass(
        self, turn: Turn, obs: pb.Observation, hand: list[pb.Card], seen: set[int], revealed: list[pb.Card]
    ) -> str:
        sure = [as_goal(c) for c in revealed]
        # Its own goal scores whichever display holds it: face down it is a sure goal too (whose
        # goal is where is not needed, and unknown among shuffled ones: round 1, tied seats).
        mine_hidden = obs.goal.id and obs.goal.id not in {c.id for c in revealed}
        if mine_hidden:
            sure.append(as_goal(obs.goal))
        hidden = 4 - len(sure)
        unknown = [as_goal(c) for c in _DECK if c.id not in seen]
        counts = Counter(c.letter for c in hand)
        base = value(counts, sure, unknown, hidden)
        best, best_cost = turn.option_ids[0], (float("inf"), 0)
        costs: dict[str, float] = {}  # per letter: every copy costs the same
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            x = action.card.letter
            if x not in costs:
                counts[x] -= 1
                loss = base - value(counts, sure, unknown, hidden)
                counts[x] += 1
                costs[x] = loss + self.feed * sum(g[1] for g in sure if g[0] == x)
            cost = (costs[x], goal_points(_TYPICAL, as_goal(action.card)))
            if cost < best_cost:
                best, best_cost = option.id, cost
        return best


_TYPICAL = dict.fromkeys("ABCDEFG", 1)
"""A typical 7-card hand: about one of each letter."""

_DECK = [pb_card(cid) for cid in CARD_IDS]
"""The 32 cards (public component data)."""


def _heuristic(params: Mapping[str, str]) -> Bot:
    p = read_params("heuristic", params, [Param("spite", 0.5, 0.0, 2.0), Param("feed", 0.3, 0.0, 2.0)])
    return HeuristicBot(float(p["spite"]), float(p["feed"]))


BOTS = {"heuristic": _heuristic}
