"""Built-in bots for Prey."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from arena.games.v1 import prey_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

TRICKS = 12
PREDATOR_TRICKS = 6


class Card(NamedTuple):
    suit: str
    predator: int
    prey: int

    def value(self, mode: int) -> int:
        return self.predator if mode == pb.PREDATOR else self.prey


def as_card(card: pb.Card) -> Card:
    return Card(card.suit, card.predator, card.prey)


def beat_share(card: Card, mode: int, unseen: Sequence[Card]) -> float:
    """The share of unseen cards of its suit that ``card`` beats in ``mode`` (1 when none)."""
    same = [u.value(mode) for u in unseen if u.suit == card.suit]
    if not same:
        return 1.0
    return sum(v < card.value(mode) for v in same) / len(same)


class GoalBot(Bot):
    """Aims at the reachable goal nearest to the tricks its hand should take, trick by trick.

    * Target: before every card it re-estimates the tricks still to come (in each half left,
      its hand's share of the live strength, a card's strength being the share of live cards of
      its suit it beats, cubed), shifts the estimate by ``bias`` (scaled by the tricks left:
      aiming low pays, tricks come anyway and dodging them later is the hard part) and aims at
      the reachable goal number (0 with a 6) nearest to won + expected.
    * This trick: once on the target it wants to lose. Below it, it presses for the trick only
      when the tricks still needed exceed its natural share (1/players of the tricks left);
      otherwise it presses less (``patience``). Its chance of winning with a card is exact when
      it plays last; before that it assumes the unseen higher cards of the suit are spread over
      the hands still to play (seats shown void in the suit cannot beat it; at 3 players part
      of the unseen cards lie aside).
    * Later tricks: a card leaving the hand is a loss of future winners when it still needs
      several tricks and a relief when it must avoid tricks (weight ``future``): so it sheds
      strong Prey cards in the Predator half when it wants no more tricks.
    * Measured (bench.heuristic_vs_random and rounds against random and against itself):
      future 0.2, bias -2, patience 1 beat future 0.6, bias 0, patience 0 clearly at 3 players.
    """

    game_id = "prey"

    def __init__(self, future: float = 0.2, bias: float = -2.0, patience: float = 1.0) -> None:
        super().__init__()
        self.patience = patience
        self.future = future
        self.bias = bias

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        hand = [as_card(c) for c in obs.hand]
        unseen = [as_card(c) for c in obs.unseen_cards]
        me = obs.seats[obs.seat]
        mode = obs.mode
        left = TRICKS - obs.trick + 1  # including this one
        opponents = obs.players - 1
        held = max(0.0, (obs.unseen - obs.set_aside) / obs.unseen) if obs.unseen else 1.0
        expected = (
            self._expected(hand, unseen, obs.trick, opponents, held) + self.bias * (TRICKS - obs.trick + 1) / TRICKS
        )
        reachable = [g for g in me.goals if me.tricks <= g <= me.tricks + left]
        if reachable:
            target = min(reachable, key=lambda g: (abs(g - me.tricks - expected), g))
            need = target - me.tricks
        else:
            need = -1  # no goal can be met: take as few tricks as possible
        if need > 0:
            # Tricks come by themselves at about 1/players of the rest: only press when the
            # need is above that rate (patience 0 = always press).
            rate = need * obs.players / left
            want_now = 1.0 if rate >= 1 else 1.0 - self.patience * (1.0 - rate) * 2
        else:
            want_now = -1.0
        future = 1.0 if need >= 2 else (-1.0 if need <= 0 else 0.0)

        later = self._later_seats(obs)
        played = [(p.seat, as_card(p.card)) for p in obs.trick_plays]
        lead = obs.lead_suit
        best_id, best_u = "", -1e9
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            card = as_card(action.card)
            p_win = self._p_win(card, mode, lead, played, later, unseen, obs)
            strength = self._future_strength(card, unseen, obs.trick)
            utility = want_now * p_win - self.future * future * strength
            if utility > best_u:
                best_id, best_u = option.id, utility
        return best_id

    # -- estimates ------------------------------------------------------------------------------

    @staticmethod
    def _expected(hand: Sequence[Card], unseen: Sequence[Card], trick: int, opponents: int, held: float) -> float:
        """Tricks still to come for this hand: in each half left, its share of the live strength
        (a card's strength: the share of live cards of its suit it beats, cubed, so only the top
        cards count); ``held`` is the share of unseen cards in opponents' hands."""
        pred_left = max(0, PREDATOR_TRICKS - trick + 1)
        prey_left = TRICKS - trick + 1 - pred_left
        live = [*hand, *unseen]
        total = 0.0
        for mode, left in ((pb.PREDATOR, pred_left), (pb.PREY, prey_left)):
            if not left:
                continue
            mine = sum(beat_share(c, mode, live) ** 3 for c in hand)
            others = held * sum(beat_share(c, mode, live) ** 3 for c in unseen)
            if mine + others > 0:
                total += left * mine / (mine + others)
        return total

    @staticmethod
    def _later_seats(obs: pb.Observation) -> list[int]:
        after = obs.players - len(obs.trick_plays) - 1
        return [(obs.seat + k) % obs.players for k in range(1, after + 1)]

    @staticmethod
    def _p_win(
        card: Card,
        mode: int,
        lead: str,
        played: Sequence[tuple[int, Card]],
        later: Sequence[int],
        unseen: Sequence[Card],
        obs: pb.Observation,
    ) -> float:
        suit = lead or card.suit
        if card.suit != suit:
            return 0.0
        if any(c.suit == suit and c.value(mode) > card.value(mode) for _, c in played):
            return 0.0
        higher = sum(1 for u in unseen if u.suit == suit and u.value(mode) > card.value(mode))
        total = max(1, obs.unseen)
        p = 1.0
        for seat in later:
            view = obs.seats[seat]
            if suit in view.voids:
                continue
            p *= max(0.0, 1.0 - view.hand_size / total) ** higher
        return p

    @staticmethod
    def _future_strength(card: Card, unseen: Sequence[Card], trick: int) -> float:
        """How likely the card would win a later trick: its share of beaten unseen cards in each
        mode, weighted by the tricks left after this one in that half."""
        pred_after = max(0, PREDATOR_TRICKS - trick)
        prey_after = TRICKS - trick - pred_after
        if pred_after + prey_after == 0:
            return 0.0
        pred = beat_share(card, pb.PREDATOR, unseen) if pred_after else 0.0
        prey = beat_share(card, pb.PREY, unseen)
        return (pred_after * pred + prey_after * prey) / (pred_after + prey_after)


def _heuristic(params: Mapping[str, str]) -> Bot:
    specs = [Param("future", 0.2, 0, 5), Param("bias", -2.0, -6, 6), Param("patience", 1.0, 0, 1)]
    values = read_params("heuristic", params, specs)
    return GoalBot(values["future"], values["bias"], values["patience"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:bias=0,patience=0"]
