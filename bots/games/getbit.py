"""Built-in bots for Get Bit!."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.chance import Chance
from arena.engine import Decision, Game, MatchState, Option
from arena.games.getbit.game import NONE, GetBit, GetBitState, move_figures
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


@dataclass(slots=True)
class SeatView:
    """What the heuristic reads: one seat's knowledge at a decision. Built from the seat's
    observation (the bot) or straight from a world (the search's rollout policy, which would
    otherwise build a protobuf observation at every step); the same values either way."""

    round: int
    two_player: bool
    line: list[int]  # figures in the water, front to back
    limbs: Sequence[Sequence[int]]  # per figure id, the limbs it has left
    mine: set[int]  # the seat's figures
    choosing: int  # the figure the seat chooses a card for now (NONE: none)
    hand_count: int  # cards in the choosing figure's hand
    fixed: dict[int, int]  # this round's sealed cards the seat knows (its own figures')
    pools: list[tuple[int, Sequence[int]]]  # every other figure still to reveal, the cards it may play
    has_shark: bool
    shark_cards: Sequence[int]  # the cards the Shark may play this round (empty: none)
    shark_hand: Sequence[int]
    hunger: int


def view_from_observation(obs: pb.Observation) -> SeatView:
    """The seat's view from its observation (what the bot reads)."""
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
    has_shark = obs.HasField("shark")
    shark_cards: Sequence[int] = ()
    if has_shark and obs.round >= 2:
        shark_cards = [obs.shark.chosen] if obs.shark.chosen else list(obs.shark.hand)
    me = obs.choosing_figure
    return SeatView(
        round=obs.round,
        two_player=obs.two_player,
        line=list(obs.line),
        limbs=[figure.limbs for figure in obs.figures],
        mine=set(obs.my_figures),
        choosing=me,
        hand_count=obs.figures[me].hand_count if me != NONE else 0,
        fixed=fixed,
        pools=pools,
        has_shark=has_shark,
        shark_cards=shark_cards,
        shark_hand=list(obs.shark.hand) if has_shark else [],
        hunger=obs.shark.hunger if has_shark else 0,
    )


def view_from_world(state: GetBitState, seat: int) -> SeatView:
    """The :class:`SeatView` that ``view_from_observation(game.observe(state, seat))`` gives,
    read from the world: others' sealed cards and, with Memory, the face-down cards of other
    figures are not read (the seat cannot see them). It shares the world's lists: read it
    before the world moves on."""
    figures = state.figures
    choosing = GetBit.choosing(state, seat)
    pools: list[tuple[int, Sequence[int]]] = []
    fixed: dict[int, int] = {}
    for f in state.line:
        figure = figures[f]
        own = figure.owner == seat
        card = state.chosen.get(f, 0) if own else 0
        if card:
            fixed[f] = card
        elif f != choosing and figure.hand:
            if own or not figure.face_down:  # the hand is known (the observation's hand_known)
                pools.append((f, sorted(figure.hand)))
            else:
                gone = set(figure.discarded) | set(figure.played[figure.face_down :])
                cards = [c for c in range(1, state.highest + 1) if c not in gone]
                if cards:
                    pools.append((f, cards))
    shark = state.shark
    shark_cards: Sequence[int] = ()
    if shark is not None and state.round >= 2:
        chosen = shark.chosen if seat == shark.seat else 0
        shark_cards = [chosen] if chosen else shark.hand
    return SeatView(
        round=state.round,
        two_player=state.two_player,
        line=state.line,
        limbs=[figure.limbs for figure in figures],
        mine=set(state.seat_figures[seat]),
        choosing=choosing,
        hand_count=len(figures[choosing].hand) if choosing != NONE else 0,
        fixed=fixed,
        pools=pools,
        has_shark=shark is not None,
        shark_cards=shark_cards,
        shark_hand=shark.hand if shark is not None else [],
        hunger=shark.hunger if shark is not None else 0,
    )


class HeuristicRule:
    """The heuristic's choice from a :class:`SeatView`, shared by the bot (which reads its
    observation) and the search's rollout policy (which reads the world)."""

    def __init__(self, samples: int = 48, thrift: float = 0.15) -> None:
        self.samples = samples
        self.thrift = thrift

    def choose(self, view: SeatView, kind: str, options: Sequence[Option], rng: Chance) -> Option:
        if kind == "lose_limb":
            return self._limb(view, options)
        samples = self._sample(view, rng)
        if kind == "shark_card":
            return self._shark_card(view, options, samples)
        return self._card(view, options, samples)

    # -- sampling -----------------------------------------------------------------------------

    def _sample(self, view: SeatView, rng: Chance) -> list[tuple[dict[int, int], int]]:
        """Random plays of every figure not yet decided, and a random Shark Card (0 = none)."""
        fixed, pools, shark_cards = view.fixed, view.pools, view.shark_cards
        out = []
        for _ in range(self.samples):
            plays = dict(fixed)
            for f, pool in pools:
                plays[f] = rng.pick(pool, "sample")
            out.append((plays, rng.pick(shark_cards, "sample") if shark_cards else 0))
        return out

    # -- swimmer ------------------------------------------------------------------------------

    def _card(self, view: SeatView, options: Sequence[Option], samples: list[tuple[dict[int, int], int]]) -> Option:
        me = view.choosing
        hand_left = view.hand_count - 1
        # The value of ending at each place of the line (nearer the front is safer next round).
        places = len(view.line)
        place_cost = [0.5 * position / (places - 1) for position in range(places)]
        best, best_value = options[0], float("-inf")
        for option in options:
            action = option.action
            assert isinstance(action, pb.Action)
            card = action.play.card
            total = 0.0
            for plays, shark_card in samples:
                plays[me] = card
                total += self._outcome(view, place_cost, plays, shark_card)
            value = total / len(samples)
            if hand_left > 1:  # the hand is refreshed at one card: then spending is free
                value -= self.thrift * card
            if value > best_value:
                best, best_value = option, value
        return best

    @staticmethod
    def _outcome(view: SeatView, place_cost: list[float], plays: dict[int, int], shark_card: int) -> float:
        """Value of one sampled reveal for the viewer's figures."""
        mine = view.mine
        line, tied = move_figures(view.line, plays)
        behind: float = 0  # summed from an int 0 in line order, as sum() did: the same float
        for position, f in enumerate(line):
            if f in mine:
                behind += place_cost[position]
        value: float = -behind
        if view.round < 2:
            return value
        back = line[-1]
        limbs = len(view.limbs[back])
        if view.has_shark:
            if shark_card in LIMB_CARDS:
                bitten = shark_card in view.limbs[back]
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
            if view.two_player:
                return value + WIN  # the opponent loses a figure
            rest = [f for f in line if f != back]
            if len(rest) == 2 and rest[-1] in mine:
                return value - DEVOURED  # two left: the back one is devoured
            if len(rest) == 2 and rest[0] in mine:
                return value + WIN
        return value

    # -- shark --------------------------------------------------------------------------------

    @staticmethod
    def _shark_card(view: SeatView, options: Sequence[Option], samples: list[tuple[dict[int, int], int]]) -> Option:
        miss_cost = 1.0 + 2.0 / max(view.hunger, 1)
        best, best_value = options[0], float("-inf")
        outcomes = [move_figures(view.line, plays) for plays, _ in samples]
        for option in options:
            action = option.action
            assert isinstance(action, pb.Action)
            card = action.shark_card
            total = 0.0
            for line, tied in outcomes:
                limbs = view.limbs[line[-1]]
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
                best, best_value = option, value
        return best

    # -- any limb -----------------------------------------------------------------------------

    @staticmethod
    def _limb(view: SeatView, options: Sequence[Option]) -> Option:
        threats = set(view.shark_hand)
        for option in options:
            action = option.action
            assert isinstance(action, pb.Action)
            if action.lose_limb.limb in threats:  # limb cards share the Limb numbers
                return option
        return options[0]


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

    The rule itself is :class:`HeuristicRule` (shared with the search's :class:`StatePolicy`).
    """

    game_id = "getbit"

    def __init__(self, samples: int = 48, thrift: float = 0.15) -> None:
        super().__init__()
        self.rule = HeuristicRule(samples, thrift)
        self.rng = Chance(0)

    def on_start(self, start: bot_pb2.MatchStart) -> None:
        self.rng = Chance(start.bot_seed)

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        return self.rule.choose(view_from_observation(obs), turn.kind, turn.options, self.rng).id  # type: ignore[arg-type]


class StatePolicy:
    """The search's rollout policy (``ROLLOUT_POLICY``): the heuristic's rule on
    ``ROLLOUT_SAMPLES`` samples, reading the deciding seat's view straight from the world. It
    chooses what ``heuristic:samples=ROLLOUT_SAMPLES`` chooses from the seat's observation, on
    the same chance."""

    def __init__(self, game: Game, samples: int | None = None) -> None:
        # ``game``: what ROLLOUT_POLICY is called with (Get Bit!'s rule needs nothing of it).
        self.rule = HeuristicRule(ROLLOUT_SAMPLES if samples is None else samples)
        self.rng = Chance(0)

    def choose(self, world: MatchState, decision: Decision) -> Option:
        assert isinstance(world, GetBitState)
        return self.rule.choose(view_from_world(world, decision.seat), decision.kind, decision.options, self.rng)

    def reseed(self, rng: Chance) -> None:
        self.rng = rng


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params(
        "heuristic", params, [Param("samples", 48, 1, 1000, integer=True), Param("thrift", 0.15, 0, 2)]
    )
    return HeuristicBot(int(values["samples"]), values["thrift"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:samples=8"]
ROLLOUT_SAMPLES = 4  # search's rollouts: the heuristic's play on fewer samples (cheap)
ROLLOUT = f"heuristic:samples={ROLLOUT_SAMPLES}"  # the same policy as a bot reading observations
ROLLOUT_POLICY = StatePolicy  # what search uses: ROLLOUT's choices read from the world
# search's defaults here: root halving, heuristic below, 100 iterations a decision (ahead of
# the heuristic in 4-player tournaments with random in the field; 50 ties it; README)
SEARCH = {"halving": 1, "tree": 0, "iterations": 100}
