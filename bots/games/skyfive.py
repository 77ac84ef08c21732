"""Built-in bots for Sky Five."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple, Protocol, TypeVar

from google.protobuf.message import Message

from arena.chance import Chance
from arena.engine import Decision, Game, MatchState, Option
from arena.games.skyfive.game import SkyFiveState
from arena.games.v1 import skyfive_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

FACES = 6  # the Rainbow Die: 1-6 (assumed, see the game's components.toml)
COLOURS = range(pb.RED, pb.BLUE + 1)
Hand = Sequence[tuple[int, int]]  # (colour, value) of face-up cards
Hands = Sequence[Hand]  # per seat


class _Option(Protocol):
    """An option as the bot's request and the engine's decision both hold it."""

    @property
    def id(self) -> str: ...

    @property
    def action(self) -> Message: ...


AnOption = TypeVar("AnOption", bound=_Option)


class View(NamedTuple):
    """What the heuristic's rule reads: the deciding seat's view, all of it public (every card
    on the table is face up; unseen cards are only counted). Built from an observation by the
    bot and straight from a world by the rollout policy, so both run the same rule."""

    seat: int
    hands: Hands  # face-up (colour, value) per seat
    scores: Sequence[int]  # banked points per seat
    deck_size: int
    unseen: int  # cards not revealed yet: the deck and the removed ones
    unseen_by_colour: Sequence[int]  # by colour index (0 unused, RED..SHOOTING_STAR)
    unseen_by_value: Sequence[int]
    final_round: bool
    gift: tuple[int, int] | None  # the card the seat must give away

    @classmethod
    def of_observation(cls, obs: pb.Observation) -> View:
        return cls(
            seat=obs.seat,
            hands=[[(int(c.colour), c.value) for c in p.face_up] for p in obs.table],
            scores=[p.score for p in obs.table],
            deck_size=obs.deck_size,
            unseen=obs.unseen,
            unseen_by_colour=obs.unseen_by_colour,
            unseen_by_value=obs.unseen_by_value,
            final_round=obs.final_round,
            gift=(int(obs.gift.colour), obs.gift.value) if obs.HasField("gift") else None,
        )

    @classmethod
    def of_world(cls, world: SkyFiveState, seat: int) -> View:
        """The same view as ``of_observation(game.observation(world, seat))``, without building
        the message (a Card is a (colour, value) tuple already)."""
        return cls(
            seat=seat,
            hands=world.face_up,
            scores=world.scores,
            deck_size=len(world.deck),
            unseen=len(world.deck) + len(world.removed),
            unseen_by_colour=world.unseen_colours,
            unseen_by_value=world.unseen_values,
            final_round=world.final_round,
            gift=world.gift,
        )


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


def draw_value(view: View) -> float:
    """Expected points of drawing one card now and attempting to bank next turn, from the
    unseen cards (colour and value counted apart, so taken as independent)."""
    seat = view.seat
    hands = view.hands
    hand = hands[seat]
    unseen = max(view.unseen, 1)
    by_colour = list(view.unseen_by_colour) or [0] * 7
    by_value = list(view.unseen_by_value) or [0] * 7
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

    The rule (:meth:`pick`) reads a :class:`View`: the bot builds it from its observation,
    search's rollout policy (:class:`HeuristicRollout`) straight from the world.
    """

    game_id = "skyfive"

    def __init__(self, risk: int = DEFAULT_RISK) -> None:
        super().__init__()
        self.risk = risk

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        return self.pick(View.of_observation(obs), turn.kind, turn.options).id

    def pick(self, view: View, kind: str, options: Sequence[AnOption]) -> AnOption:
        """The rule: the option it picks among ``options`` of a ``kind`` decision, from ``view``
        (the bot's observation or, in search rollouts, the world: see :class:`RolloutPolicy`)."""
        if kind == "turn":  # draw, or draw and bank (not offered with an empty hand)
            draw, bank = options[0], options[-1]
            return bank if bank.id == "bank" and self._wants_bank(view) else draw
        if kind == "give":
            return self._give(view, options)
        return self._take(view, options)

    def _wants_bank(self, view: View) -> bool:
        seat = view.seat
        hands = view.hands
        hand = hands[seat]
        bank_now = bank_value(hand)
        draw_then_bank = draw_value(view)
        players = max(len(hands), 1)
        turns_left = view.deck_size / players  # my normal turns left, about (banks draw no card)
        by_value = view.unseen_by_value
        mean_value = sum(v * n for v, n in enumerate(by_value)) / max(sum(by_value), 1)
        tempo = mean_value * 5 / 6 * min(1.0, max(0.0, turns_left - 1))  # a draw into an empty hand
        # Appetite, in proportion to what is at stake: at risk 1 a draw must promise a sixth of
        # the unbanked total more than banking, at 3 just more, at 6 it may promise a quarter less.
        total = sum(value for _, value in hand)
        margin = (DEFAULT_RISK - self.risk) / 12 * total
        scores = view.scores
        mine = scores[seat] + bank_now
        best_other = max((scores[s] + bank_value(hands[s]) for s in range(len(scores)) if s != seat), default=mine)
        gap = best_other - mine  # > 0: behind
        urgency = 1.0 / max(turns_left, 1.0)  # the nearer the end, the more the gap matters
        margin -= max(-2.0, min(4.0, gap * urgency / 4.0))
        return draw_then_bank - (bank_now + tempo) < margin

    @staticmethod
    def _give(view: View, options: Sequence[AnOption]) -> AnOption:
        assert view.gift is not None
        card = view.gift
        best, least = options[0], (0.0, 0)
        for i, option in enumerate(options):
            action = option.action
            assert isinstance(action, pb.Action)
            hand = view.hands[action.seat]
            # What the card adds to their expected bank (a Sky Five adds everything), then score.
            help_ = (bank_value([*hand, card]) - bank_value(hand), view.scores[action.seat])
            if not i or help_ < least:
                best, least = option, help_
        return best

    @staticmethod
    def _take(view: View, options: Sequence[AnOption]) -> AnOption:
        hand = view.hands[view.seat]
        base = bank_value(hand)
        best, best_gain = options[-1], 0.0  # decline (always the last option)
        for option in options:
            action = option.action
            assert isinstance(action, pb.Action)
            if action.kind != pb.TAKE:
                continue
            card = (int(action.card.colour), action.card.value)
            gain = bank_value([*hand, card]) - base
            if not view.final_round and card[0] != pb.SHOOTING_STAR:
                gain += 0.5  # a new colour is progress toward Sky Five
            if gain > best_gain:
                best, best_gain = option, gain
        return best


class HeuristicRollout:
    """The heuristic's rule as search's rollout policy (``ROLLOUT_POLICY``): the deciding
    seat's :class:`View` read straight from the world (no observation message built per step,
    which cost about as much as the rule itself), the same choice as the bot's."""

    __slots__ = ("rule",)

    def __init__(self, game: Game, risk: int = DEFAULT_RISK) -> None:
        self.rule = HeuristicBot(risk)

    def choose(self, world: MatchState, decision: Decision) -> Option:
        assert isinstance(world, SkyFiveState)
        return self.rule.pick(View.of_world(world, decision.seat), decision.kind, decision.options)

    def reseed(self, rng: Chance) -> None:
        pass  # the rule draws no chance


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("risk", DEFAULT_RISK, 1, FACES, integer=True)])
    return HeuristicBot(int(values["risk"]))


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:risk=5"]  # a bolder player beside the default
ROLLOUT = "heuristic"  # search's rollout policy (cheap enough to call at every step)
ROLLOUT_POLICY = HeuristicRollout  # the same rule read from the world: search plays it
# search's defaults here: root halving on 60 paired simulations that leaves the heuristic's
# option only for one better by two standard errors (without the test it departs on noise and
# loses: README, "Where it stands").
SEARCH = {"iterations": 60, "halving": 1, "tree": 0, "prior": 0, "guard": 2}
