"""Chicken!: every rule of shared/rules/chicken.md, its rulings (NOTES.md §4.1) and the
Eggspansion, pinned with exact numbers."""

from __future__ import annotations

import pickle
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.chicken import GAME, ChickenState
from arena.games.chicken.game import (
    BLUE,
    FACES,
    HEN,
    ORANGE,
    POINTS,
    WHITE,
    YELLOW,
    all_non_white,
    points_of,
)
from arena.games.v1 import chicken_pb2 as pb
from bots.registry import make_bot
from tests.contract import assert_same_view, configurations, observation_bytes, random_playout

W, Y, O = WHITE, YELLOW, ORANGE  # noqa: E741 (the die colours)
F = {
    "blank": pb.BLANK,
    "chicken": pb.CHICKEN,
    "double": pb.DOUBLE_CHICKEN,
    "fox": pb.FOX,
    "egg": pb.EGG,
    "happy": pb.HAPPY_DOG,
    "bark": pb.BARK,
    "chick": pb.CHICK,
}
ROOT = Path(__file__).resolve().parent.parent


def r(die: int, face: str) -> int:
    """The preset roll (1-6) that shows ``face`` on ``die``."""
    return FACES[die].index(F[face]) + 1


def rolls(*pairs: tuple[int, str]) -> list[int]:
    return [r(die, face) for die, face in pairs]


def deal(players=2, eggspansion=False, start=0, dice=(), bag=()) -> ChickenState:
    """A new match with the start seat, die rolls and bag draws preset (strict: no other chance)."""
    chance = PresetChance(rolls={"die": list(dice)}, picks={"start": [start], "bag": list(bag)}, strict=True)
    return GAME.new_match(GAME.config(players, {"eggspansion": eggspansion}), chance=chance)


SETUP_BAG = ["yellow", "yellow", "orange", "orange", "blue"]  # Coop 2Y 2O 1 Blue; bag 2Y 2O Hen


def position(
    pool=(W, W, W, W), scores=None, coop=None, bag=None, eggspansion=False, dice=(), draws=(), players=2
) -> ChickenState:
    """Seat 0 to play with ``pool`` passed to it; Coop and bag given per die type (or defaults)."""
    state = deal(players, eggspansion, 0, dice, [*SETUP_BAG, *draws] if eggspansion else list(draws))
    state.pool = list(pool)
    state.faces = [pb.NOT_ROLLED] * len(pool)
    if scores is not None:
        state.scores = list(scores)
    if coop is not None:
        state.coop = _counts(coop)
    elif not eggspansion:
        state.coop = _counts({Y: 4 - list(pool).count(Y), O: 4 - list(pool).count(O)})
    if bag is not None:
        state.bag = _counts(bag)
    GAME.refresh(state)
    return state


def _counts(by_type: dict[int, int]) -> list[int]:
    counts = [0] * 6
    for die, n in by_type.items():
        counts[die] = n
    return counts


def ids(state: ChickenState) -> tuple[str, ...]:
    (decision,) = state.pending
    return decision.option_ids


def kind(state: ChickenState) -> str:
    (decision,) = state.pending
    return decision.kind


def act(state: ChickenState, *choices: str) -> None:
    for choice in choices:
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: choice})


def events(state: ChickenState, name: str) -> list:
    return [e for e in state.log.events if e.kind == name]


def unused(state: ChickenState) -> dict[str, int]:
    chance = state.chance
    assert isinstance(chance, PresetChance)
    return chance.unused()


# -- components ------------------------------------------------------------------------------


def test_die_faces():
    # components.toml: White and Yellow from the preview (DATA 16), Orange from the addendum.
    names = {v: k for k, v in F.items()}
    faces = {die: Counter(names[f] for f in FACES[die]) for die in (W, Y, O, BLUE, HEN)}
    assert faces[W] == {"chicken": 2, "egg": 2, "fox": 1, "blank": 1}
    assert faces[Y] == {"chicken": 3, "egg": 1, "fox": 1, "blank": 1}
    assert faces[O] == {"double": 2, "fox": 2, "blank": 2}
    assert faces[BLUE] == {"happy": 2, "bark": 2, "egg": 1, "blank": 1}
    assert faces[HEN] == {"chick": 2, "double": 1, "chicken": 1, "fox": 1, "blank": 1}


def test_orange_is_riskier_with_a_higher_ceiling():
    # Rules :93 "Orange Dice are riskier, but they can also provide greater rewards".
    def fox(die):
        return Fraction(FACES[die].count(pb.FOX), 6)

    def mean(die):
        return Fraction(sum(POINTS.get(f, 0) for f in FACES[die]), 6)

    assert (fox(W), fox(Y), fox(O)) == (Fraction(1, 6), Fraction(1, 6), Fraction(1, 3))
    assert (mean(W), mean(Y), mean(O)) == (Fraction(1, 3), Fraction(1, 2), Fraction(2, 3))
    assert max(POINTS.get(f, 0) for f in FACES[O]) == 2 > max(POINTS.get(f, 0) for f in FACES[Y]) == 1


# -- setup -----------------------------------------------------------------------------------


@pytest.mark.parametrize("start", [0, 1, 2])
def test_setup_base(start):
    state = deal(3, start=start)
    assert state.turn_seat == start and state.pending[0].seat == start
    assert state.pool == [W] * 4
    assert state.coop == [0, 0, 4, 4, 0, 0] and state.bag == [0] * 6
    assert state.scores == [0, 0, 0]
    assert kind(state) == "turn" and ids(state) == ("go", "chicken")


def test_setup_eggspansion_draws_five_dice_into_the_coop():
    # Rules :210-224: every non-White die in the bag, 5 random ones to the Coop.
    state = deal(2, True, bag=SETUP_BAG)
    assert state.coop == [0, 0, 2, 2, 1, 0]
    assert state.bag == [0, 0, 2, 2, 0, 1]
    assert state.pool == [W] * 4
    (coop,) = events(state, "coop")
    assert [d.type for d in coop.detail.dice] == [Y, Y, O, O, BLUE]
    assert not unused(state)


@pytest.mark.parametrize(("players", "ok"), [(1, False), (2, True), (5, True), (8, True), (9, False)])
def test_player_counts(players, ok):
    if ok:
        assert GAME.config(players).players == players
    else:
        with pytest.raises(ConfigError):
            GAME.config(players)


# -- rule vectors (NOTES §4.1, 5) --------------------------------------------------------------


def test_vector_1_three_foxes_bust_and_pass_only_the_white_dice():
    # :152-157: score 0, Yellow/Orange back to the Coop, the next player gets the 4 White.
    dice = rolls((W, "fox"), (W, "fox"), (W, "chicken"), (W, "chicken"), (Y, "fox"), (O, "double"))
    state = position(pool=(W, W, W, W, Y, O), scores=[7, 3], dice=dice)
    assert state.coop == [0, 0, 3, 3, 0, 0]
    act(state, "go")
    assert state.scores == [7, 3]
    assert state.coop == [0, 0, 4, 4, 0, 0]
    assert state.turn_seat == 1 and state.pool == [W] * 4 and kind(state) == "turn"
    (bust,) = events(state, "bust")
    assert (bust.detail.foxes, [d.type for d in bust.detail.dice]) == (3, [Y, O])
    assert not unused(state)


def test_vector_2_chicken_out_on_the_starting_space_costs_nothing():
    # :59 (ruling 3).
    dice = rolls((W, "chicken"), (W, "blank"), (W, "fox"), (W, "fox"))
    state = position(pool=(W, W, W, W, Y, Y), scores=[0, 5], dice=dice)
    act(state, "chicken")
    assert state.scores == [0, 5]
    assert state.coop == [0, 0, 4, 4, 0, 0]
    assert state.pool == [W] * 4
    (out,) = events(state, "chicken-out")
    assert (out.detail.points, out.detail.score, len(out.detail.dice)) == (0, 0, 2)
    assert kind(state) == "reroll" and state.faces == [pb.CHICKEN, pb.BLANK, pb.FOX, pb.FOX]


def test_vector_3_chicken_out_with_points_costs_one():
    # :55-57: return the Yellow/Orange dice, lose 1 point, roll the 4 White dice.
    dice = rolls((W, "chicken"), (W, "chicken"), (W, "chicken"), (W, "fox"))
    state = position(pool=(W, W, W, W, Y, Y, Y, Y, O), scores=[4, 0], dice=dice)
    act(state, "chicken")
    (out,) = events(state, "chicken-out")
    assert (out.detail.points, out.detail.score, len(out.detail.dice)) == (1, 3, 5)
    assert state.coop == [0, 0, 4, 4, 0, 0]
    # Nothing left in the middle: the count is automatic (ruling 6): 3 + 3 Chickens.
    assert state.scores == [6, 0] and state.turn_seat == 1
    assert state.pool == [W] * 4


def test_chicken_out_at_one_point_returns_to_the_starting_space():
    state = position(scores=[1, 0], dice=rolls((W, "fox"), (W, "fox"), (W, "fox"), (W, "egg")))
    act(state, "chicken")
    assert state.scores == [0, 0]  # lost 1, then busted
    state = position(scores=[0, 0], dice=rolls((W, "fox"), (W, "fox"), (W, "fox"), (W, "egg")))
    act(state, "chicken")
    assert state.scores == [0, 0]


def test_vector_4_double_chicken_is_two_points_chicken_one():
    # :137-140: 1 per Chicken, 2 per Orange Double Chicken.
    dice = rolls((W, "chicken"), (W, "chicken"), (W, "fox"), (W, "blank"), (O, "double"), (O, "double"))
    state = position(pool=(W, W, W, W, O, O), coop={Y: 0, O: 2}, scores=[2, 0], dice=dice)
    act(state, "go")
    assert kind(state) == "reroll"
    assert GAME.observe(state, 0).points == 6
    act(state, "count")
    assert state.scores == [8, 0]
    (count,) = events(state, "count")
    assert (count.detail.points, count.detail.score) == (6, 8)
    assert points_of([pb.CHICKEN, pb.DOUBLE_CHICKEN, pb.FOX, pb.EGG, pb.BLANK]) == 3


def test_vector_5_hatching_takes_yellow_before_orange_then_nothing():
    # :81-97: Yellow first, Orange when no Yellow is left, nothing when the Coop is empty.
    dice = rolls((W, "egg"), (W, "egg"), (W, "egg"), (W, "egg"))
    state = position(coop={Y: 2, O: 1}, dice=dice)
    act(state, "go")
    assert state.pool == [W, W, W, W, Y, Y, O]
    assert state.coop == [0] * 6
    assert state.faces[4:] == [pb.NOT_ROLLED] * 3  # new dice are Blanks until rolled (:99)
    hatched = [(e.detail.die, e.detail.from_bag) for e in events(state, "hatch")]
    assert hatched == [(Y, False), (Y, False), (O, False), (0, False)]
    assert kind(state) == "reroll"


def test_vector_6_reaching_25_ends_the_game_at_once():
    # :163-167: the first to end a turn with 25 or more wins immediately.
    dice = rolls((W, "chicken"), (W, "chicken"), (W, "fox"), (W, "fox"))
    state = position(scores=[23, 24], dice=dice, players=3)
    state.scores = [23, 24, 10]
    act(state, "go")
    assert not state.pending and state.winner == 0
    result = GAME.result(state)
    assert result is not None
    assert result.scores == (25, 24, 10) and result.ranks == (1, 2, 3)
    (end,) = events(state, "end")
    assert (end.seat, end.detail.score) == (0, 25)
    assert GAME.observe(state, 1).phase == pb.OVER


def test_losers_with_equal_scores_share_a_place():
    state = position(scores=[24, 9], dice=rolls((W, "chicken"), (W, "fox"), (W, "fox"), (W, "chicken")), players=3)
    state.scores = [24, 9, 9]
    act(state, "go")
    result = GAME.result(state)
    assert result is not None and result.ranks == (1, 2, 2) and result.scores == (26, 9, 9)


# -- the worked example of the text (Eggspansion, :318-322) -----------------------------------


def test_example_three_foxes_and_a_bark_do_not_bust():
    # "You have 3 Foxes and 1 Bark. Bark cancels 1 Fox. 2 uncanceled Foxes: you do not bust."
    dice = rolls((W, "fox"), (W, "fox"), (W, "fox"), (W, "blank"), (BLUE, "bark"))
    state = position(pool=(W, W, W, W, BLUE), coop={Y: 5}, bag={O: 4, HEN: 1}, eggspansion=True, dice=dice)
    act(state, "go")
    assert not events(state, "bust")
    obs = GAME.observe(state, 0)
    assert (obs.foxes, obs.barks, obs.points) == (3, 1, 0)
    assert kind(state) == "reroll"
    # A fourth Fox on the reroll makes 3 uncanceled: bust (Foxes add up over the turn).
    state = position(
        pool=(W, W, W, W, BLUE),
        coop={Y: 5},
        bag={O: 4, HEN: 1},
        eggspansion=True,
        dice=[*dice, r(W, "fox")],
    )
    act(state, "go", "reroll")
    (bust,) = events(state, "bust")
    assert (bust.detail.foxes, bust.detail.barks) == (4, 1)


def test_three_foxes_without_a_bark_bust():
    dice = rolls((W, "fox"), (W, "fox"), (W, "fox"), (W, "chicken"), (BLUE, "happy"))
    state = position(pool=(W, W, W, W, BLUE), coop={Y: 5}, bag={O: 4, HEN: 1}, eggspansion=True, dice=dice)
    act(state, "go")
    assert len(events(state, "bust")) == 1
    assert state.bag[BLUE] == 1 and state.pool == [W] * 4


# -- reroll ----------------------------------------------------------------------------------


def test_reroll_rolls_only_the_middle_once_then_counts_and_passes_everything():
    # :103-131: Eggs, Blanks and new dice are rerolled; Chickens and Foxes stay; one reroll; the
    # Eggs of the reroll hatch unrolled dice that are passed on (ruling 4).
    first = rolls((W, "chicken"), (W, "fox"), (W, "egg"), (W, "blank"))
    second = rolls((W, "egg"), (W, "chicken"), (Y, "chicken"))
    state = position(coop={Y: 4, O: 4}, dice=[*first, *second], scores=[0, 0])
    act(state, "go")
    assert state.pool == [W, W, W, W, Y]
    act(state, "reroll")
    # Rolled: seat 0's dice 2 (egg), 3 (blank) and the hatched Yellow; the Chicken and Fox stayed.
    (_, reroll) = events(state, "roll")
    assert reroll.detail.rerolled and len(reroll.detail.dice) == 3
    assert state.scores == [3, 0] and state.turn_seat == 1
    assert state.pool == [W, W, W, W, Y, Y]  # the reroll's Egg hatched a second Yellow
    assert state.faces == [pb.NOT_ROLLED] * 6
    assert state.coop == [0, 0, 2, 4, 0, 0]
    assert not unused(state)
    # The next player's Go For It rolls all six.
    state.chance = PresetChance(rolls={"die": [r(W, "blank")] * 4 + [r(Y, "blank")] * 2}, strict=True)
    act(state, "go")
    assert len(events(state, "roll")[-1].detail.dice) == 6


def test_with_nothing_in_the_middle_the_count_is_automatic():
    dice = rolls((W, "chicken"), (W, "chicken"), (W, "fox"), (W, "chicken"))
    state = position(dice=dice)
    act(state, "go")
    assert state.scores == [3, 0] and state.turn_seat == 1


def test_the_dice_pass_to_the_next_player_clockwise():
    """:144 "Then pass all your dice to the next player clockwise" (after a bust too, :157): seat
    0, 1, 2, 3, then 0 again at 4 players."""
    three = rolls((W, "chicken"), (W, "chicken"), (W, "fox"), (W, "chicken"))
    bust = rolls((W, "fox"), (W, "fox"), (W, "fox"), (W, "chicken"))
    four = rolls(*[(W, "chicken")] * 4)
    state = position(dice=[*three, *bust, *four, *three], players=4, scores=[0, 0, 0, 0])
    seats = [state.turn_seat]
    for _ in range(4):
        act(state, "go")  # nothing left in the middle: counted (or busted) at once
        seats.append(state.turn_seat)
    assert seats == [0, 1, 2, 3, 0] and state.scores == [3, 0, 4, 3]
    assert [e.seat for e in state.log.events if e.kind in ("count", "bust")] == [0, 1, 2, 3]
    assert kind(state) == "turn" and state.pending[0].seat == 0 and not unused(state)


def test_reroll_cannot_be_chosen_twice():
    dice = rolls((W, "egg"), (W, "blank"), (W, "blank"), (W, "blank"), (W, "blank"), (W, "blank"))
    dice += [r(W, "blank")] * 2 + [r(Y, "egg")]
    state = position(dice=dice)
    act(state, "go", "reroll")
    assert state.turn_seat == 1 and state.pool == [W, W, W, W, Y, Y]
    before = pickle.dumps(state)
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {1: "reroll"})
    assert pickle.dumps(state) == before


# -- Eggspansion -----------------------------------------------------------------------------


def egg_position(**kw) -> ChickenState:
    kw.setdefault("coop", {Y: 1, O: 2})
    kw.setdefault("bag", {Y: 3, O: 2, BLUE: 1, HEN: 1})
    return position(eggspansion=True, **kw)


def test_eggspansion_hatch_decision_offers_each_coop_type_and_the_bag():
    dice = rolls((W, "egg"), (W, "egg"), (W, "blank"), (W, "blank"))
    state = egg_position(dice=dice, draws=["hen"])
    act(state, "go")
    assert kind(state) == "hatch" and ids(state) == ("coop:yellow", "coop:orange", "bag")
    assert GAME.observe(state, 1).hatches_left == 2
    before = pickle.dumps(state)
    for absent in ("coop:hen", "coop:blue", "go"):
        with pytest.raises(IllegalChoice):
            GAME.apply(state, {0: absent})
    assert pickle.dumps(state) == before
    act(state, "coop:orange")
    assert ids(state) == ("coop:yellow", "coop:orange", "bag")
    act(state, "bag")
    assert state.pool == [W, W, W, W, O, HEN]
    assert state.coop == [0, 0, 1, 1, 0, 0] and state.bag == [0, 0, 3, 2, 1, 0]
    hatched = [(e.detail.die, e.detail.from_bag) for e in events(state, "hatch")]
    assert hatched == [(O, False), (HEN, True)]
    assert kind(state) == "reroll"
    assert not unused(state)


def test_eggspansion_single_possibility_is_applied_and_none_hatches_nothing():
    dice = rolls((W, "egg"), (W, "egg"), (W, "blank"), (W, "blank"))
    state = egg_position(dice=dice, coop={O: 1}, bag={})
    act(state, "go")
    assert state.pool == [W, W, W, W, O] and kind(state) == "reroll"
    assert [e.detail.die for e in events(state, "hatch")] == [O, 0]


def test_eggspansion_bust_returns_dice_to_the_bag_and_refills_the_coop():
    # :260-266: the pool's non-White dice go into the bag, the Coop keeps its dice and is
    # refilled to 5 from the bag.
    dice = rolls((W, "fox"), (W, "fox"), (W, "blank"), (W, "blank"), (O, "fox"), (HEN, "chick"))
    state = egg_position(
        pool=(W, W, W, W, O, HEN),
        coop={Y: 1, O: 1},
        bag={Y: 3, O: 1, BLUE: 1},
        dice=dice,
        draws=["hen", "orange", "yellow"],
    )
    act(state, "go")
    assert state.coop == [0, 0, 2, 2, 0, 1]
    assert state.bag == [0, 0, 2, 1, 1, 0]
    assert state.pool == [W] * 4 and state.turn_seat == 1
    (refill,) = events(state, "refill")
    assert [d.type for d in refill.detail.dice] == [HEN, O, Y]
    assert not unused(state)


def test_eggspansion_chicken_out_returns_refills_then_rolls_the_white_dice():
    # :272-278.
    dice = rolls((W, "chicken"), (W, "egg"), (W, "blank"), (W, "blank"))
    state = egg_position(
        pool=(W, W, W, W, Y, BLUE),
        coop={O: 1},
        bag={Y: 2, O: 3, HEN: 1},
        scores=[5, 0],
        dice=dice,
        draws=["blue", "yellow", "yellow", "orange"],
    )
    act(state, "chicken")
    assert state.scores == [4, 0]
    assert state.coop == [0, 0, 2, 2, 1, 0]
    assert state.bag == [0, 0, 1, 2, 0, 1]
    assert kind(state) == "hatch"  # the Egg: Coop (yellow, orange, blue) or bag
    assert ids(state) == ("coop:yellow", "coop:orange", "coop:blue", "bag")


def test_eggspansion_refill_stops_when_the_bag_is_empty():
    dice = rolls((W, "fox"), (W, "fox"), (W, "fox"), (W, "blank"))
    state = egg_position(pool=(W, W, W, W, Y), coop={O: 1}, bag={}, dice=[*dice, r(Y, "blank")], draws=["yellow"])
    act(state, "go")
    assert state.coop == [0, 0, 1, 1, 0, 0] and state.bag == [0] * 6


def test_eggspansion_count_does_not_refill_the_coop():
    dice = rolls((W, "egg"), (W, "chicken"), (W, "blank"), (W, "blank"))
    state = egg_position(coop={Y: 1}, bag={}, dice=dice)
    act(state, "go")
    assert state.coop == [0] * 6  # the single possibility (a Yellow) hatched without a decision
    act(state, "count")
    assert state.coop == [0] * 6 and not events(state, "refill")
    assert state.pool == [W, W, W, W, Y] and state.turn_seat == 1


def test_happy_dog_scores_only_if_showing_and_is_rerolled():
    # :291-303: Happy Dog 1 point, stays in the middle, rerolled with it.
    dice = rolls((W, "chicken"), (W, "blank"), (W, "blank"), (W, "blank"), (BLUE, "happy"))
    state = egg_position(pool=(W, W, W, W, BLUE), dice=dice)
    act(state, "go")
    assert GAME.observe(state, 0).points == 2
    state.chance = PresetChance(
        rolls={"die": rolls((W, "blank"), (W, "blank"), (W, "blank"), (BLUE, "blank"))}, strict=True
    )
    act(state, "reroll")
    assert state.scores == [1, 0]


def test_chick_hatches_and_scores_and_hen_double_is_two():
    # :337-359: a Chick hatches a die and scores 1 if showing; Mother Hen's Double Chicken is 2.
    dice = rolls((W, "blank"), (W, "blank"), (W, "blank"), (W, "blank"), (HEN, "chick"))
    state = egg_position(pool=(W, W, W, W, HEN), coop={Y: 1}, bag={}, dice=dice)
    act(state, "go")
    assert state.pool == [W, W, W, W, HEN, Y]
    assert GAME.observe(state, 0).points == 1
    act(state, "count")
    assert state.scores == [1, 0]
    assert points_of([pb.DOUBLE_CHICKEN]) == 2 and FACES[HEN].count(pb.DOUBLE_CHICKEN) == 1


def test_bag_draws_are_uniform_over_the_bag_dice():
    # A preset pick must name a die in the bag (the pick is among the dice, one entry each).
    dice = rolls((W, "egg"), (W, "blank"), (W, "blank"), (W, "blank"))
    state = egg_position(coop={O: 1}, bag={Y: 1}, dice=dice, draws=["yellow"])
    act(state, "go", "bag")
    assert state.bag == [0] * 6 and state.pool[-1] == Y


# -- observation and information ---------------------------------------------------------------


def test_observation_gives_the_deduced_bag_and_the_turn():
    state = egg_position(pool=(W, W, W, W, HEN), coop={Y: 1, O: 2}, bag={Y: 3, O: 2, BLUE: 1})
    obs = GAME.observe(state, 1)
    assert list(obs.coop) == [0, 0, 1, 2, 0, 0] and list(obs.bag) == [0, 0, 3, 2, 1, 0] and obs.bag_size == 6
    total = all_non_white(True)
    pool = Counter(d.type for d in obs.pool if d.type != W)
    assert [obs.coop[t] + obs.bag[t] + pool[t] for t in range(6)] == total
    assert (obs.phase, obs.turn_seat, obs.eggspansion, obs.target, obs.players) == (pb.TURN, 0, True, 25, 2)
    assert [d.type for d in obs.pool] == [W, W, W, W, HEN]


def test_future_chance_never_shows_in_any_view():
    # Two matches with the same history but different future bag draws and dice: every seat
    # (nothing is hidden) sees byte-identical observations, events and options.
    a = egg_position(
        pool=(W, W, W, W, Y),
        dice=rolls(
            (W, "blank"),
        )
        * 5,
        draws=["blue"] * 3,
    )
    b = egg_position(
        pool=(W, W, W, W, Y),
        dice=rolls(
            (W, "chicken"),
        )
        * 5,
        draws=["hen"] * 3,
    )
    for seat in (0, 1, SPECTATOR):
        assert_same_view(GAME, a, b, seat)
    assert all(e.to is None for e in a.log.events)


# -- sample_world ------------------------------------------------------------------------------


def test_sample_world_keeps_the_view_and_plays_on():
    checked = 0
    for config in configurations(GAME):
        if config.players not in (2, 3, 8):
            continue
        for seed in range(3):
            state = GAME.new_match(config, seed)
            rng = Chance(seed + 77)
            while state.pending:
                if state.steps % 13 == 4:
                    before = pickle.dumps(state)
                    for seat in range(config.players):
                        world = GAME.sample_world(state, seat, Chance(seed * 31 + seat))
                        assert observation_bytes(GAME, world, seat) == observation_bytes(GAME, state, seat)
                        assert [d.option_ids for d in world.pending if d.seat == seat] == [
                            d.option_ids for d in state.pending if d.seat == seat
                        ]
                        while world.pending:
                            GAME.apply(world, {d.seat: rng.pick(d.options, "w").id for d in world.pending})
                        checked += 1
                    assert pickle.dumps(state) == before
                GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert checked > 100


def test_sample_world_bag_draws_follow_the_deduced_bag():
    # Chi-square: from one position, the world's next bag draw is distributed as the bag holds.
    state = egg_position(
        coop={O: 1}, bag={Y: 3, O: 2, BLUE: 1}, dice=rolls((W, "egg"), (W, "blank"), (W, "blank"), (W, "blank"))
    )
    act(state, "go")
    assert ids(state) == ("coop:orange", "bag")
    source = Chance(2026)
    drawn: Counter[int] = Counter()
    for _ in range(1200):
        world = GAME.sample_world(state, 1, source)
        GAME.apply(world, {0: "bag"})
        drawn[world.pool[-1]] += 1
    observed = [drawn[Y], drawn[O], drawn[BLUE]]
    assert sum(observed) == 1200
    assert chisquare(observed, [600, 400, 200]).pvalue > 0.01


def test_world_from_observation_is_the_mid_turn_state():
    # A hatch decision mid-turn: pool with its faces, Coop, bag, hatches left all kept; the
    # world continues exactly as the state does with the same draw.
    dice = rolls((W, "egg"), (W, "egg"), (W, "fox"), (W, "blank"))
    state = egg_position(dice=dice, scores=[7, 3])
    act(state, "go", "coop:orange")
    seen = GAME.observe(state, 1)
    world = GAME.world_from_observation(state.config, 1, seen, Chance(4))
    for name in ("pool", "faces", "coop", "bag", "scores", "hatches_left", "phase", "rerolled", "turn", "winner"):
        assert getattr(world, name) == getattr(state, name), name
    assert ids(world) == ids(state) == ("coop:yellow", "coop:orange", "bag")
    GAME.apply(world, {0: "coop:yellow"})
    assert world.pool == [W, W, W, W, O, Y] and kind(world) == "reroll"


# -- playout invariants ------------------------------------------------------------------------

MAX_STEPS = 1500


def check_invariants(state: ChickenState) -> None:
    assert state.pool.count(W) == 4 and state.pool[:4] == [W] * 4
    held = Counter(state.pool)
    total = all_non_white(state.eggspansion)
    for die in (Y, O, BLUE, HEN):
        assert state.coop[die] + state.bag[die] + held[die] == total[die]
    if state.eggspansion:
        assert sum(state.coop) <= 5
    else:
        assert state.bag == [0] * 6
        assert not held[BLUE] and not held[HEN]
    assert len(state.faces) == len(state.pool)
    assert all(s >= 0 for s in state.scores)
    assert state.steps <= MAX_STEPS


def check_scores_from_events(state: ChickenState) -> None:
    scores = [0] * state.players
    for e in state.log.events:
        if e.kind == "count":
            scores[e.seat] += e.detail.points
        elif e.kind == "chicken-out":
            scores[e.seat] -= e.detail.points
    assert scores == state.scores
    assert max(state.scores) >= 25 and state.scores[state.winner] == max(state.scores)
    assert sum(s >= 25 for s in state.scores) == 1


PLAYOUT_CONFIGS = list(configurations(GAME))


@pytest.mark.parametrize("config", PLAYOUT_CONFIGS, ids=lambda c: f"{c.players}p-{c.options['eggspansion']}")
def test_random_playouts_conserve_dice_and_end(config):
    # 2,000+ games over the 14 configurations; every game ends within MAX_STEPS decisions.
    games = -(-2000 // len(PLAYOUT_CONFIGS))
    for seed in range(games):
        state = random_playout(GAME, config, seed, invariant=check_invariants, observe=False)
        check_scores_from_events(state)


def test_declared_kinds_are_produced():
    text = (ROOT / "proto/arena/games/v1/chicken.proto").read_text()

    def declared(label: str) -> set[str]:
        match = re.search(rf"// {label} kinds: (.*?)\.\n", text, re.S)
        assert match
        return set(re.findall(r'"([^"]+)"', match.group(1)))

    decisions, kinds = set(), set()
    for config in PLAYOUT_CONFIGS:
        for seed in range(10):
            state = GAME.new_match(config, seed)
            rng = Chance(seed)
            while state.pending:
                decisions.update(d.kind for d in state.pending)
                GAME.apply(state, {d.seat: rng.pick(d.options, "k").id for d in state.pending})
            kinds.update(e.kind for e in state.log.events)
    assert decisions == declared("Decision")
    assert kinds == declared("Event")
    rules = (ROOT / "arena/games/chicken/rules.md").read_text()
    for name in [*decisions, *kinds, "eggspansion", "go", "chicken", "reroll", "count", "bag"]:
        assert f"`{name}`" in rules


# -- bots --------------------------------------------------------------------------------------


def test_heuristic_parameters_are_validated():
    assert make_bot("heuristic:risk=1.5", "chicken")
    with pytest.raises(ConfigError):
        make_bot("heuristic:risk=9", "chicken")


def test_heuristic_counts_when_counting_wins():
    from bots.games.chicken import HeuristicBot, roll_value

    # 4 White dice: bust on 3+ Foxes (21/1296); 4/3 Chickens expected, minus 1/162 lost in busts.
    survive, expected = roll_value([W] * 4, 0, 0, 0)
    assert survive == pytest.approx(1 - 21 / 1296) and expected == pytest.approx(215 / 162)
    bot = HeuristicBot()
    dice = rolls((W, "chicken"), (W, "egg"), (W, "blank"), (W, "blank"))
    state = position(scores=[24, 0], dice=dice, coop={})
    act(state, "go")
    assert kind(state) == "reroll"

    class T:
        kind = "reroll"
        observation = GAME.observe(state, 0)
        option_ids = ("reroll", "count")

    assert bot.choose(T()) == "count"  # type: ignore[arg-type]
