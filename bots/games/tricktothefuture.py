"""Built-in bots for Trick to the Future."""

from __future__ import annotations

from collections.abc import Mapping

from arena.games.tricktothefuture.cards import EDGES, SUITS, card_from_pb, rank_of, suit_of
from arena.games.tricktothefuture.game import OPTION_DATA, round_score
from arena.games.v1 import tricktothefuture_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn


def _best_value(card: int, rods: int) -> int:
    """The highest value a card reaches with at most ``rods`` rods."""
    return max(v for v, r in EDGES[rank_of(card)] if r <= rods)


def _round_points(me: pb.SeatView, won: bool, rods: int, pot: int) -> int:
    """The seat's points for the round when its last card spends ``rods`` and wins (or not) a
    trick holding ``pot`` rods, scored by the game itself (Inoperative and Perfect included)."""
    tricks = me.tricks + won
    collected = me.collected + (pot if won else 0)
    return round_score(tricks, me.fuel - rods, collected, me.spaces)[1]


class HeuristicBot(Bot):
    """Plays for a Perfect Journey: as many tricks as the rods it keeps.

    * ``gap`` = unspent rods - tricks won. Every trick won and every rod spent closes it by one;
      the bot aims to end with gap 0 (double points) and never below (Lost in Time).
    * It estimates the tricks its other cards will win anyway (high cards and trumps), and for
      each option its chance to win this trick: exact when it plays last, otherwise by counting
      the unseen cards that could beat it (and void seats that could trump).
    * ``fuel=0`` never spends a rod (a design experiment: is spending fuel worth it?).
    * It scores each option by the trick points it expects, minus a penalty for the gap it
      projects at the end (``lost`` per trick below 0, ``slack`` per spare rod above 0) and
      ``gift`` per rod it hands to another player; it lights segments on cards it wins with
      (the rods come back as collected rods) and dumps spare rods on cards that lose.
    * On its last card of a round nothing is left to plan: it scores each option by the round
      points the game gives for winning or losing the trick, weighed by its chance to win.
    """

    name = "heuristic"
    game_id = "tricktothefuture"

    def __init__(self, lost: float = 12.0, slack: float = 0.5, gift: float = 0.6, fuel: bool = True) -> None:
        super().__init__()
        self.fuel = fuel
        self.lost = lost
        self.slack = slack
        self.gift = gift

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        ids = turn.option_ids
        if not self.fuel:  # design experiment: never spend rods
            ids = [i for i in ids if OPTION_DATA[i][2] == 0]
        if len(ids) == 1:
            return ids[0]
        me = obs.seats[obs.seat]
        n = obs.players
        trump = SUITS.index(obs.trump) if obs.trump else -1
        hand = [card_from_pb(c) for c in obs.hand]
        unseen = [card_from_pb(c) for c in obs.unseen]
        current = [(p.seat, card_from_pb(p.card), p.value) for p in obs.current]
        later = n - 1 - len(current)
        gap = me.fuel - me.tricks

        def strength(card: int) -> float:
            """Rough chance a card of the hand wins a later trick."""
            top = _best_value(card, 0)
            base = top / 9.0
            if suit_of(card) == trump:
                return min(1.0, 0.35 + 0.7 * base)
            return base**3 * (1.5 if trump < 0 else 1.0)

        def p_win(card: int, value: int) -> float:
            lead = suit_of(current[0][1]) if current else suit_of(card)
            best: tuple[int, int] = (-1, -1)
            for _, c, v in current:
                s = suit_of(c)
                key = (1, v) if s == trump else (0, v) if s == lead else (-1, -1)
                best = max(best, key)
            s = suit_of(card)
            mine = (1, value) if s == trump else (0, value) if s == lead else (-1, -1)
            if mine < best or mine == (-1, -1):
                return 0.0
            if later == 0:
                return 1.0
            # Unseen cards that could beat it if a later player holds them.
            threats = 0.0
            for c in unseen:
                cs = suit_of(c)
                top = _best_value(c, 2)
                if mine[0] == 1:
                    threats += cs == trump and top >= value
                elif cs == lead and top >= value:
                    threats += 1
                elif cs == trump:
                    threats += 0.35  # a void player may trump
            share = later / max(1, len(unseen)) * (obs.tricks_per_round - obs.trick + 1)
            lose = min(0.95, threats * min(1.0, share) / max(1.0, later))
            return (1.0 - lose) ** later

        total = sum(strength(c) for c in hand)
        on_table = sum(play.rods for play in obs.current)
        best_id, best_score = ids[0], float("-inf")
        for option_id in ids:
            card, value, rods = OPTION_DATA[option_id]
            p = p_win(card, value)
            if len(hand) == 1:  # the round ends with this card: its points are all that counts
                pot = on_table + rods  # rods later players add are not known yet
                score = p * _round_points(me, True, rods, pot) + (1 - p) * _round_points(me, False, rods, pot)
            else:
                future = total - strength(card)
                end_gap = gap - rods - p - future
                penalty = self.lost * -end_gap if end_gap < 0 else self.slack * end_gap
                score = 2.0 * p + rods * p - penalty - self.gift * rods * (1 - p) * 0.5
                score -= 0.01 * rank_of(card) if p < 0.5 else 0.0  # keep high cards when losing anyway
            if score > best_score:
                best_id, best_score = option_id, score
        return best_id


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params(
        "heuristic",
        params,
        [
            Param("lost", 12.0, 0, 50),
            Param("slack", 0.5, 0, 20),
            Param("gift", 0.6, 0, 10),
            Param("fuel", 1, 0, 1, integer=True),
        ],
    )
    return HeuristicBot(values["lost"], values["slack"], values["gift"], bool(values["fuel"]))


BOTS = {"heuristic": _heuristic}
