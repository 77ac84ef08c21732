"""Built-in bots for Sky Five."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.v1 import skyfive_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

FACES = 6  # the Rainbow Die: 1-6 (assumed, see the game's components.toml)
COLOURS = range(pb.RED, pb.BLUE + 1)
Hand = Sequence[tuple[int, int]]  # (colour, value) of face-up cards
Hands = list[list[tuple[int, int]]]  # per seat


def colours(hand: Hand) -> set[int]:
    return {colour for colour, _ in hand if colour != pb.SHOOTING_STAR}


def bank_value(hand: Hand) -> float:
    """Expected points of a bank attempt now: a Sky Five banks for sure."""
    total = sum(value for _, value in hand)
    if len(colours(hand)) == len(COLOURS):
        return total
    risky = len({value for _, value in hand if value > 0})
    return total * (FACES - risky) / FACES


class HeuristicBot(Bot):
    """A cautious banker that plays the gifts and pick-ups for value.

    * Turn: banks as soon as its face-up cards show ``risk`` different numbers (1-6; zeros never
      bust) and draws otherwise. Banking costs no card from the shared deck, and each new number
      adds 1/6 to the bust chance, so small frequent banks keep most of what is drawn:
      measured against random and against higher thresholds, ``risk=1`` wins most often.
    * Give: hands the card to the player it helps least (or hurts most: a new number on a big
      unbanked hand, lowering their expected bank), never completing a Sky Five if avoidable;
      ties go to the lowest score.
    * Take: picks the card that raises its own expected bank value most (a new colour counts as
      progress toward Sky Five while cards are left to draw); declines when nothing helps.
    """

    game_id = "skyfive"

    def __init__(self, risk: int = 1) -> None:
        super().__init__()
        self.risk = risk

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        hands: Hands = [[(int(c.colour), c.value) for c in p.face_up] for p in obs.table]
        if turn.kind == "turn":
            return "bank" if "bank" in turn.option_ids and self._wants_bank(hands[obs.seat]) else "draw"
        if turn.kind == "give":
            return self._give(obs, hands, turn)
        return self._take(obs, hands, turn)

    def _wants_bank(self, hand: Hand) -> bool:
        return len({value for _, value in hand if value > 0}) >= self.risk

    @staticmethod
    def _give(obs: pb.Observation, hands: Hands, turn: Turn) -> str:
        card = (int(obs.gift.colour), obs.gift.value)
        best, least = "", (0.0, 0)
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            hand = hands[action.seat]
            # What the card adds to their expected bank (a Sky Five adds everything), then score.
            help_ = (bank_value([*hand, card]) - bank_value(hand), obs.table[action.seat].score)
            if not best or help_ < least:
                best, least = option.id, help_
        return best

    @staticmethod
    def _take(obs: pb.Observation, hands: Hands, turn: Turn) -> str:
        hand = hands[obs.seat]
        base = bank_value(hand)
        best, best_gain = "decline", 0.0
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            if action.kind != pb.TAKE:
                continue
            card = (int(action.card.colour), action.card.value)
            gain = bank_value([*hand, card]) - base
            if not obs.final_round and card[0] != pb.SHOOTING_STAR:
                gain += 0.5  # a new colour is progress toward Sky Five
            if gain > best_gain:
                best, best_gain = option.id, gain
        return best


def _heuristic(params: Mapping[str, str]) -> Bot:
    return HeuristicBot(int(read_params("heuristic", params, [Param("risk", 1, 1, FACES, integer=True)])["risk"]))


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:risk=2"]
