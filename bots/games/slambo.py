"""Built-in bots for SLAMBO!."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
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


Deal = tuple[tuple[Card, ...], ...]  # every seat's hand, each sorted


def deals(pool: Sequence[Card], sizes: Sequence[int], seat: int, hand: Sequence[Card]) -> list[Deal]:
    """Every way the unseen cards ``pool`` (sorted) can fill the other hands of ``sizes``, each
    once (the face-down leftovers take the rest); ``seat`` holds ``hand`` (sorted)."""
    partial: list[tuple[Deal, tuple[Card, ...]]] = [((), tuple(pool))]
    for other, size in enumerate(sizes):
        grown: list[tuple[Deal, tuple[Card, ...]]] = []
        for dealt, left in partial:
            if other == seat:
                grown.append(((*dealt, tuple(hand)), left))
                continue
            for chosen in dict.fromkeys(combinations(left, size)):
                rest = list(left)
                for card in chosen:
                    rest.remove(card)
                grown.append(((*dealt, chosen), tuple(rest)))
        partial = grown
    return [dealt for dealt, _ in partial]


def safe_plays(obs: pb.Observation, plays: Sequence[tuple[str, Card, int]]) -> list[str]:
    """The plays (option id, card, amount) after which the seat cannot lose the bout, whatever
    cards the others hold (every deal of the unseen cards) and whatever they play.

    Exact, over every deal: only for the last few cards. The seat's own later plays may follow
    the cards the others have played, not their hands: one play must be safe in every deal
    still possible.
    """
    me, low, high = obs.seat, obs.low, obs.high

    def safe(seat: int, total: int, top: int, direction: int, worlds: list[Deal]) -> bool:
        if seat == me:
            hand = worlds[0][me]
            return any(
                after(me, card, delta, total, direction, worlds)
                for card in dict.fromkeys(hand)
                for delta in dict.fromkeys(deltas(card, top))
            )
        moves = dict.fromkeys((card, delta) for world in worlds for card in world[seat] for delta in deltas(card, top))
        return all(after(seat, card, delta, total, direction, worlds) for card, delta in moves)

    def after(seat: int, card: Card, delta: int, total: int, direction: int, worlds: list[Deal]) -> bool:
        total += delta
        if not low <= total <= high:
            return seat != me  # whoever breaks the range loses the bout
        if card.special:
            direction = -direction
        left = []
        for world in worlds:
            if card in world[seat]:
                hand = list(world[seat])
                hand.remove(card)
                left.append((*world[:seat], tuple(hand), *world[seat + 1 :]))
        worlds = list(dict.fromkeys(left))  # the deals in which `seat` held the card played
        following = next_seat([len(hand) for hand in worlds[0]], seat, direction)
        return following < 0 or safe(following, total, delta, direction, worlds)  # < 0: a Break

    hand = [Card(c.colour, c.value) for c in obs.hand]
    pool = [Card(u.card.colour, u.card.value) for u in obs.unseen for _ in range(u.count)]
    worlds = deals(pool, [s.hand_size for s in obs.seats], me, hand)
    return [oid for oid, card, delta in plays if after(me, card, delta, obs.total, obs.direction, worlds)]


class BalanceBot(Bot):
    """Never breaks the range when a safe card exists; among safe cards, it plays the one that
    most likely leaves the next player without a safe card, while keeping its own hand flexible.

    From the observation alone: the unseen cards (other hands and the face-down leftovers) are
    treated as a random deal, so the next player's hand is a random draw of its size from them.
    An option's value is ``P(next player stuck) + flex · coverage(remaining hand)``, where
    coverage is the share of totals from which the remaining hand still has a safe card (the ±
    cards and small numbers cover most). A copy card follows the card before it; a special card
    reverses the order, which changes who is next.

    Once the other hands hold ``endgame`` cards or fewer in all, it looks ahead exactly over
    every deal of the unseen cards and plays, of the plays that cannot lose the bout whatever
    the others hold and play, the one of highest value (the value alone misses, on the
    opponent's last card, that a total its card may leave can break the seat's own last card);
    with no such play, the highest value. ``endgame=0`` never looks ahead.
    """

    game_id = "slambo"

    def __init__(self, flex: float = 0.5, endgame: int = 2) -> None:
        super().__init__()
        self.flex = flex
        self.endgame = endgame

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

        plays = []  # (option id, card, the amount it adds)
        for oid, action in options:
            card = Card(action.card.colour, action.card.value)
            if card.colour == COPY:
                delta = obs.copy_value
            elif card.colour == PLUS_MINUS:
                delta = card.value * action.sign
            else:
                delta = card.value if card.colour == pb.BLUE else -card.value
            plays.append((oid, card, delta))

        def value(play: tuple[str, Card, int]) -> float:
            _, card, delta = play
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

        if self.endgame and sum(sizes) - sizes[obs.seat] <= self.endgame:
            safe = safe_plays(obs, plays)
            if safe:
                plays = [play for play in plays if play[0] in safe]
        return max(plays, key=value)[0]


def _heuristic(params: Mapping[str, str]) -> Bot:
    specs = [Param("flex", 0.5, 0, 5), Param("endgame", 2, 0, 4, integer=True)]
    values = read_params("heuristic", params, specs)
    return BalanceBot(values["flex"], int(values["endgame"]))


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:flex=0", "heuristic:flex=2"]
