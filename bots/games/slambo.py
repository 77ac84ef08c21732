"""Built-in bots for SLAMBO!."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb

from arena.games.slambo.game import COPY, PLUS_MINUS, Card, deltas, next_seat
from arena.games.v1 import slambo_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn


def stuck_chance(pool: Sequence[Card], hand_size: int, total: int, top_delta: int, low: int, high: int) -> float:
    """Chance that a hand of ``hand_size`` cards drawn from ``pool`` holds no card that keeps
    the total in range (hypergeometric: every card of the hand among the breaking ones)."""
    if hand_size <= 0 or hand_size > len(pool):
        return 0.0
    breaking = sum(all(not low <= total + d <= high for d in deltas(card, top_delta)) for card in pool)
    return comb(breaking, hand_size) / comb(len(pool), hand_size)


def coverage(hand: Sequence[Card], low: int, high: int) -> float:
    """Share of the safe totals from which some card of ``hand`` stays in range (a copy card is
    not counted: what it adds depends on the card before it)."""
    span = high - low + 1
    if not hand:
        return 1.0
    moves = {d for card in hand if card.colour != COPY for d in deltas(card, 0)}
    covered = sum(any(low <= x + d <= high for d in moves) for x in range(low, high + 1))
    return covered / span


class BalanceBot(Bot):
    """Never breaks the range when a safe card exists; among safe cards, it plays the one that
    most likely leaves the next player without a safe card, while keeping its own hand flexible.

    From the observation alone: the unseen cards (other hands and the face-down leftovers) are
    treated as a random deal, so the next player's hand is a random draw of its size from them.
    An option's value is ``P(next player stuck) + flex · coverage(remaining hand)``, where
    coverage is the share of totals from which the remaining hand still has a safe card (the ±
    cards and small numbers cover most). A copy card follows the card before it; a special card
    reverses the order, which changes who is next.
    """

    game_id = "slambo"

    def __init__(self, flex: float = 0.5) -> None:
        super().__init__()
        self.flex = flex

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        actions = []
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            actions.append((option.id, action))
        return self.pick(obs, actions)

    def pick(self, obs: pb.Observation, options: Sequence[tuple[str, pb.Action]]) -> str:
        """The chosen option id, from the observation and the (id, action) options."""
        hand = [Card(c.colour, c.value) for c in obs.hand]
        pool = [Card(u.card.colour, u.card.value) for u in obs.unseen for _ in range(u.count)]
        sizes = [s.hand_size for s in obs.seats]
        sizes[obs.seat] -= 1

        def value(option: tuple[str, pb.Action]) -> float:
            action = option[1]
            card = Card(action.card.colour, action.card.value)
            if card.colour == COPY:
                delta = obs.copy_value
            elif card.colour == PLUS_MINUS:
                delta = card.value * action.sign
            else:
                delta = card.value if card.colour == pb.BLUE else -card.value
            total = obs.total + delta
            if not obs.low <= total <= obs.high:
                return -10.0 - abs(delta)  # lost anyway: at least keep it small
            rest = list(hand)
            rest.remove(card)
            direction = -obs.direction if card.colour in (COPY, PLUS_MINUS) else obs.direction
            following = next_seat(sizes, obs.seat, direction)
            stuck = 0.0
            if following >= 0:
                stuck = stuck_chance(pool, sizes[following], total, delta, obs.low, obs.high)
            return stuck + self.flex * coverage(rest, obs.low, obs.high) + 0.001 * abs(delta)

        return max(options, key=value)[0]


def _heuristic(params: Mapping[str, str]) -> Bot:
    return BalanceBot(read_params("heuristic", params, [Param("flex", 0.5, 0, 5)])["flex"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:flex=0", "heuristic:flex=2"]
