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


DEFAULT_RISK = 3


def bank_value(hand: Hand) -> float:
    """Expected points of a bank attempt now: a Sky Five banks for sure."""
    total = sum(value for _, value in hand)
    if len(colours(hand)) == len(COLOURS):
        return total
    risky = len({value for _, value in hand if value > 0})
    return total * (FACES - risky) / FACES


def draw_value(obs: pb.Observation, hands: Hands) -> float:
    """Expected points of drawing one card now and attempting to bank next turn, from the
    unseen cards (colour and value counted apart, so taken as independent)."""
    seat = obs.seat
    hand = hands[seat]
    unseen = max(obs.unseen, 1)
    by_colour = list(obs.unseen_by_colour) or [0] * 7
    by_value = list(obs.unseen_by_value) or [0] * 7
    values_total = max(sum(by_value), 1)
    mine = colours(hand)
    total = sum(value for _, value in hand)
    held = {value for _, value in hand if value > 0}
    keep_value = 0.0  # expected value of the hand after keeping a random unseen card
    for value, count in enumerate(by_value):
        if count:
            risky = len(held | ({value} if value else set()))
            keep_value += count / values_total * (total + value) * (FACES - risky) / FACES
    sky_value = total + sum(v * n for v, n in enumerate(by_value)) / values_total
    expected = 0.0
    for colour in range(1, len(by_colour)):
        share = by_colour[colour] / unseen
        if not share:
            continue
        if colour == pb.SHOOTING_STAR or colour not in mine:
            completes = colour != pb.SHOOTING_STAR and len(mine) == len(COLOURS) - 1
            expected += share * (sky_value if completes else keep_value)
        elif any(colour not in colours(other) for s, other in enumerate(hands) if s != seat):
            expected += share * bank_value(hand)  # given away: the hand is unchanged
        # else: everybody holds that colour: bust, nothing
    return expected


class HeuristicBot(Bot):
    """A push-your-luck player that weighs drawing against banking every turn.

    * Turn: compares banking now with drawing one more card and banking next turn, in expected
      points. Banking busts with the chance that the die shows one of the numbers it holds (the
      faces it holds, zeros never bust). A draw is weighed card by card from what is still
      unseen (by colour and value, as the observation counts them): a Shooting Star or a colour
      it lacks is kept (raising the total and maybe the bust chance; the fifth colour is a Sky
      Five, banked for sure), a colour it holds goes to another player, and a colour everybody
      holds busts it. Banking first frees the next turn for a draw into an empty hand; that
      tempo is worth less as the end approaches (few cards left per player: the final round
      forces one bank attempt anyway). ``risk`` (1-6) is its appetite, in proportion to the
      points at stake: at 1 it draws only when drawing is clearly better, at 3 when it is
      better, at 6 even when it is somewhat worse. Behind the leader it takes
      more risk, the more so the nearer the end; ahead, less.
    * Give: hands the card to the player it helps least (or hurts most: a new number on a big
      unbanked hand, lowering their expected bank), never completing a Sky Five if avoidable;
      ties go to the lowest score.
    * Take: picks the card that raises its own expected bank value most (a new colour counts as
      progress toward Sky Five while cards are left to draw); declines when nothing helps.
    """

    game_id = "skyfive"

    def __init__(self, risk: int = DEFAULT_RISK) -> None:
        super().__init__()
        self.risk = risk

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        hands: Hands = [[(int(c.colour), c.value) for c in p.face_up] for p in obs.table]
        if turn.kind == "turn":
            return "bank" if "bank" in turn.option_ids and self._wants_bank(obs, hands) else "draw"
        if turn.kind == "give":
            return self._give(obs, hands, turn)
        return self._take(obs, hands, turn)

    def _wants_bank(self, obs: pb.Observation, hands: Hands) -> bool:
        seat = obs.seat
        hand = hands[seat]
        bank_now = bank_value(hand)
        draw_then_bank = draw_value(obs, hands)
        players = max(len(hands), 1)
        turns_left = obs.deck_size / players  # my normal turns left, about (banks draw no card)
        mean_value = sum(v * n for v, n in enumerate(obs.unseen_by_value)) / max(sum(obs.unseen_by_value), 1)
        tempo = mean_value * 5 / 6 * min(1.0, max(0.0, turns_left - 1))  # a draw into an empty hand
        # Appetite, in proportion to what is at stake: at risk 1 a draw must promise a sixth of
        # the unbanked total more than banking, at 3 just more, at 6 it may promise a quarter less.
        total = sum(value for _, value in hand)
        margin = (DEFAULT_RISK - self.risk) / 12 * total
        mine = obs.table[seat].score + bank_now
        best_other = max((p.score + bank_value(hands[s]) for s, p in enumerate(obs.table) if s != seat), default=mine)
        gap = best_other - mine  # > 0: behind
        urgency = 1.0 / max(turns_left, 1.0)  # the nearer the end, the more the gap matters
        margin -= max(-2.0, min(4.0, gap * urgency / 4.0))
        return draw_then_bank - (bank_now + tempo) < margin

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
    values = read_params("heuristic", params, [Param("risk", DEFAULT_RISK, 1, FACES, integer=True)])
    return HeuristicBot(int(values["risk"]))


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:risk=5"]  # a bolder player beside the default
ROLLOUT = "heuristic"  # search's rollout policy (cheap enough to call at every step)
