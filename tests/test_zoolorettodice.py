"""Zooloretto: The Dice Game: every rule of shared/rules/zoolorettodice.md, its rulings
(NOTES.md §4.26) and its test vectors, pinned with exact numbers."""

from __future__ import annotations

import pickle
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.v1 import zoolorettodice_pb2 as pb
from arena.games.zoolorettodice import GAME, Zoo, ZooState
from arena.games.zoolorettodice.game import COMPONENTS, breakdown
from bots.registry import make_bot
from tests.contract import assert_same_view, observation_bytes, random_playout

CROC, OSTRICH, MONKEY, ELEPHANT, LION, COIN = range(1, 7)
ROOT = Path(__file__).resolve().parent.parent


def deal(players: int = 2, start: int = 0, dice=()) -> ZooState:
    """A new match with the start seat and the die rolls preset (strict: no other chance)."""
    chance = PresetChance(rolls={"die": list(dice)}, picks={"start": [start]}, strict=True)
    return GAME.new_match(GAME.config(players), chance=chance)


def ids(state: ZooState) -> tuple[str, ...]:
    (decision,) = state.pending
    return decision.option_ids


def act(state: ZooState, *choices: str) -> None:
    for choice in choices:
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: choice})


def position(players: int = 2, turn: int = 0, trucks=None, supply=None, zoos=None, passed=None, dice=()) -> ZooState:
    """A chosen position set directly on a fresh match (then the pending decision recomputed)."""
    state = deal(players, turn, dice)
    if trucks is not None:
        state.trucks = [list(t) for t in trucks]
    if supply is not None:
        state.supply = supply
    for seat, zoo in (zoos or {}).items():
        state.zoos[seat] = zoo
    if passed is not None:
        state.passed = list(passed)
    GAME.refresh(state)
    return state


def zoo(enclosures=(0, 0, 0, 0, 0), barn=(), bonuses=(), coins=0) -> Zoo:
    return Zoo(list(enclosures), [a in barn for a in range(1, 6)], [a in bonuses for a in range(1, 6)], coins)


def events(state: ZooState, kind: str) -> list:
    return [e for e in state.log.events if e.kind == kind]


# -- components and setup -------------------------------------------------------------------


@pytest.mark.parametrize(("players", "dice", "trucks"), [(2, 6, 3), (3, 8, 3), (4, 10, 4)])
def test_dice_and_trucks_by_player_count(players, dice, trucks):
    # Rules :46-54, :64-67 (NOTES test vector 1): 6/3, 8/3, 10/4; 3 crates a truck.
    state = deal(players)
    assert state.supply == dice and len(state.trucks) == trucks
    obs = GAME.observe(state, 0)
    assert (obs.dice, len(obs.trucks), obs.crates, obs.supply) == (dice, trucks, 3, dice)


def test_the_score_sheet_numbers():
    # Enclosure sizes found (DATA.md §17); bonuses and coin groups designed (components.toml).
    assert COMPONENTS.capacities == (1, 2, 3, 4, 5)
    assert COMPONENTS.bonuses == (1, 2, 3, 4, 5)
    assert COMPONENTS.coin_groups == (2, 2, 2) and COMPONENTS.coin_spaces == 6
    assert (COMPONENTS.barn_penalty, COMPONENTS.group_points) == (-2, 1)
    obs = GAME.observe(deal(), 0)
    assert list(obs.capacities) == [1, 2, 3, 4, 5] and list(obs.bonus_values) == [1, 2, 3, 4, 5]
    assert list(obs.coin_groups) == [2, 2, 2]
    assert (obs.barn_penalty, obs.coin_group_points) == (-2, 1)


@pytest.mark.parametrize(("players", "ok"), [(1, False), (2, True), (4, True), (5, False)])
def test_player_counts(players, ok):
    if ok:
        GAME.config(players)
    else:
        with pytest.raises(ConfigError, match="2-4 players"):
            GAME.config(players)


@pytest.mark.parametrize("start", [0, 1, 2])
def test_a_random_seat_begins(start):
    # Ruling 8: "the youngest player" is a seeded random seat (chance label "start").
    state = deal(3, start)
    assert state.turn_seat == start and state.pending[0].seat == start
    assert events(state, "round")[0].seat == start


# -- action A: roll and place ---------------------------------------------------------------


def test_the_first_action_of_a_round_must_be_a_roll():
    # Every truck is empty (:120, :132): taking is impossible.
    state = deal()
    assert state.pending[0].kind == "turn" and ids(state) == ("roll",)


def test_rolled_dice_are_sorted_and_placed_on_chosen_trucks():
    # Rules :96-106, ruling 9: dice sorted by symbol; place:a,b puts rolled[0] on a, rolled[1] on b.
    state = deal(dice=[COIN, MONKEY])
    act(state, "roll")
    assert state.rolled == [MONKEY, COIN] and state.supply == 4
    assert state.pending[0].kind == "place" and state.pending[0].seat == 0
    assert list(GAME.observe(state, 1).rolled) == [pb.MONKEY, pb.COIN]
    assert ids(state) == tuple(f"place:{a},{b}" for a in range(3) for b in range(3))
    act(state, "place:2,0")
    assert state.trucks == [[COIN], [], [MONKEY]]
    assert state.turn_seat == 1 and ids(state) == ("roll", "take:0", "take:2")
    (place,) = events(state, "place")
    assert list(place.detail.trucks) == [2, 0] and list(place.detail.dice) == [MONKEY, COIN]


def test_equal_dice_offer_each_placement_once():
    # Ruling 9: two equal symbols: only a <= b.
    state = deal(dice=[LION, LION])
    act(state, "roll")
    assert ids(state) == ("place:0,0", "place:0,1", "place:0,2", "place:1,1", "place:1,2", "place:2,2")


def test_no_truck_holds_more_than_three_dice():
    # Rules :106: a full truck takes no die; a truck with 2 dice takes one, not both.
    state = position(trucks=[[CROC, CROC, CROC], [LION, LION], []], supply=2, dice=[OSTRICH, COIN])
    act(state, "roll")
    assert ids(state) == ("place:1,2", "place:2,1", "place:2,2")


def test_no_roll_once_the_supply_is_empty():
    # Rules :110-114 (ruling 2): only take is offered.
    state = deal(dice=[CROC, OSTRICH, MONKEY, ELEPHANT, LION, COIN])
    act(state, "roll", "place:0,0", "roll", "place:1,1", "roll", "place:2,2")
    assert state.supply == 0 and state.turn_seat == 1
    assert ids(state) == ("take:0", "take:1", "take:2")


# -- action B: take and pass ----------------------------------------------------------------


def test_taking_a_truck_fills_the_zoo_and_passes():
    # Rules :118-134: every die of the truck, symbols added at once, the truck stays in play.
    state = position(3, trucks=[[LION, COIN, LION], [CROC], []], supply=4)
    act(state, "take:0")
    assert state.zoos[0].enclosures == [0, 0, 0, 0, 2] and state.zoos[0].coins == 1
    assert state.held[0] == [LION, COIN, LION] and state.passed == [True, False, False]
    assert state.trucks == [[], [CROC], []] and state.supply == 4
    assert state.turn_seat == 1 and ids(state) == ("roll", "take:1")
    obs = GAME.observe(state, 2)
    assert list(obs.zoos[0].held) == [LION, COIN, LION] and obs.zoos[0].passed
    assert obs.active_players == 2 and obs.last_taker == 0
    # The emptied truck is still there for the dice of the others.
    state.chance = PresetChance(rolls={"die": [MONKEY, MONKEY]}, strict=True)
    act(state, "roll", "place:0,0")
    assert state.trucks[0] == [MONKEY, MONKEY]


def test_passed_players_are_skipped():
    state = position(3, trucks=[[LION], [CROC], []], supply=6)
    act(state, "take:0")  # seat 0 passes
    act(state, "take:1")  # seat 1 passes
    assert state.turn_seat == 2 and state.passed == [True, True, False]


def test_the_last_player_keeps_acting_until_taking_a_truck():
    # Rules :186-188: seat 2 alone rolls twice in a row, then takes; the round ends.
    state = position(3, turn=0, trucks=[[LION], [CROC], []], supply=4, dice=[OSTRICH, OSTRICH, ELEPHANT, COIN])
    act(state, "take:0", "take:1")
    act(state, "roll", "place:2,2")
    assert state.turn_seat == 2 and state.pending[0].kind == "turn"
    act(state, "roll", "place:0,1")
    assert state.turn_seat == 2 and state.supply == 0
    assert ids(state) == ("take:0", "take:1", "take:2")
    act(state, "take:2")
    assert state.zoos[2].enclosures == [0, 2, 0, 0, 0]
    # Round 2 begins with the last player to take dice (:184).
    assert state.round == 2 and state.round_start == 2 and state.turn_seat == 2


def test_the_round_end_returns_every_die():
    # Rules :178-184: dice back to the supply (also those left on trucks), trucks emptied.
    state = position(2, turn=1, trucks=[[LION], [CROC, CROC], [COIN]], supply=0)
    act(state, "take:0", "take:1")
    assert state.round == 2 and state.supply == 6
    assert state.trucks == [[], [], []] and state.held == [[], []] and state.passed == [False, False]
    assert state.turn_seat == 0 and ids(state) == ("roll",)
    (first, second) = events(state, "round")
    assert (first.detail.round, second.detail.round, second.seat) == (1, 2, 0)


# -- adding symbols -------------------------------------------------------------------------


def test_a_full_enclosure_sends_the_animal_to_the_barn_then_it_is_ignored():
    # Rules :152-156 (NOTES test vector 2): full enclosure -> barn; barn crossed -> ignored.
    state = position(trucks=[[CROC, CROC, CROC], [], []], supply=4, zoos={0: zoo((0, 0, 0, 0, 0))})
    act(state, "take:0")
    z = state.zoos[0]
    assert z.enclosures == [1, 0, 0, 0, 0] and z.barn == [True, False, False, False, False]
    (take,) = events(state, "take")
    assert (take.detail.enclosed, list(take.detail.barn), take.detail.ignored) == (1, [pb.CROCODILE], 1)


def test_coins_beyond_six_are_ignored():
    # Rules :170-174 (NOTES test vector 3).
    state = position(trucks=[[COIN, COIN, COIN], [], []], supply=4, zoos={0: zoo(coins=4)})
    act(state, "take:0")
    assert state.zoos[0].coins == 6
    (take,) = events(state, "take")
    assert (take.detail.coins, take.detail.ignored) == (2, 1)


def test_the_bonus_goes_to_the_first_player_to_fill_the_enclosure():
    # Rules :158-164, ruling 4.
    state = position(
        3,
        trucks=[[OSTRICH], [OSTRICH, OSTRICH], []],
        supply=4,
        zoos={0: zoo((0, 1, 0, 0, 0)), 1: zoo((0, 0, 0, 0, 0))},
    )
    act(state, "take:0")
    assert state.bonus_owner == [-1, 0, -1, -1, -1] and state.zoos[0].bonuses[1]
    act(state, "take:1")  # seat 1 fills ostrich too: no bonus any more
    assert state.zoos[1].enclosures[1] == 2 and not state.zoos[1].bonuses[1]
    (bonus,) = events(state, "bonus")
    assert (bonus.seat, bonus.detail.animal, bonus.detail.points) == (0, pb.OSTRICH, 2)
    assert list(GAME.observe(state, 2).bonus_owner) == [-1, 0, -1, -1, -1]


# -- game end -------------------------------------------------------------------------------


def test_one_open_enclosure_after_a_take_ends_the_game_with_the_round():
    # Rules :192-204, ruling 5: seat 0 triggers; seats 1 and 2 still play the round out.
    almost = zoo((1, 2, 2, 4, 1))  # monkey and lion open
    state = position(3, trucks=[[MONKEY], [LION], []], supply=8, zoos={0: almost}, dice=[COIN, COIN])
    act(state, "take:0")
    assert state.triggered and state.pending and state.turn_seat == 1
    (trigger,) = events(state, "trigger")
    assert trigger.seat == 0
    assert GAME.observe(state, 1).end_triggered
    act(state, "roll", "place:2,2")  # seat 1
    act(state, "take:1")  # seat 2 takes the lion
    assert state.pending and state.turn_seat == 1  # seat 1 has not passed yet
    act(state, "take:2")  # seat 1 takes the two coins
    assert not state.pending and state.phase == pb.OVER and state.round == 1
    # Seat 0: 11 animals + the monkey bonus 3; seat 1: one coin group, 1 point; seat 2: 1 lion.
    result = GAME.result(state)
    assert result.scores == (14, 1, 1) and result.ranks == (1, 2, 3)  # seat 1 has more coins
    (end,) = events(state, "end")
    assert list(end.detail.scores) == [14, 1, 1]


def test_all_enclosures_full_triggers_the_end():
    state = position(2, trucks=[[LION], [], []], supply=4, zoos={0: zoo((1, 2, 3, 4, 4))})
    act(state, "take:0")
    assert state.triggered and state.zoos[0].open_enclosures() == 0


def test_two_open_enclosures_do_not_trigger_the_end():
    state = position(2, trucks=[[CROC], [], []], supply=4, zoos={0: zoo((0, 2, 2, 4, 4))})
    act(state, "take:0")
    assert not state.triggered and not events(state, "trigger")


def test_the_safety_stop_ends_the_game_with_round_100_scored_as_any_end():
    # Ruling 11 (version 2): takes that add nothing (coins past the ticket office) never trigger
    # the end; round 100 is the last all the same, and the observation says so in it.
    assert COMPONENTS.max_rounds == 100
    full = zoo(coins=6)  # three coin groups: 3 points
    state = position(2, trucks=[[COIN], [COIN], []], supply=4, zoos={0: full, 1: zoo(coins=6)})
    state.round = 99
    assert not GAME.observe(state, 0).end_triggered
    act(state, "take:0", "take:1")
    assert state.pending and state.round == 100 and not state.triggered
    assert GAME.observe(state, 0).end_triggered and GAME.observe(state, 1).end_triggered
    state.trucks = [[COIN], [COIN], []]
    GAME.refresh(state)
    act(state, "take:0", "take:1")
    assert not state.pending and state.phase == pb.OVER and state.round == 100
    assert not events(state, "trigger")
    result = GAME.result(state)
    assert result.scores == (3, 3) and result.ranks == (1, 1)  # equal coins: shared
    (end,) = events(state, "end")
    assert list(end.detail.scores) == [3, 3]


def test_a_world_in_the_safety_stops_round_still_triggers_the_end_as_the_game_does():
    # end_triggered is true in round 100 with no zoo at one open enclosure: a world rebuilt from
    # it is not triggered, so a take that fills a zoo logs the same trigger as the real game.
    state = position(2, trucks=[[CROC], [COIN], []], supply=4, zoos={0: zoo((0, 2, 3, 4, 4))})
    state.round = 100
    seen = GAME.observe(state, 0)
    assert seen.end_triggered and not state.triggered
    world = GAME.world_from_observation(state.config, 0, seen, Chance(5))
    assert not world.triggered
    for played in (state, world):
        act(played, "take:0")
        assert played.triggered and len(events(played, "trigger")) == 1


def test_the_trigger_waits_for_the_take():
    # The trigger is checked after passing: seat 1's zoo already qualifies, but only its own take
    # ends the game (a crocodile for the barn).
    state = position(2, trucks=[[COIN], [CROC], []], supply=4, zoos={1: zoo((1, 2, 3, 4, 0))})
    act(state, "take:0")
    assert not state.triggered
    act(state, "take:1")
    assert state.triggered and state.zoos[1].barn[0] and not state.pending


# -- scoring --------------------------------------------------------------------------------


def test_the_rulebook_scoring_example():
    # Rules :242-250: animals +1 each, bonuses for crocodile and lion, one coin group removing the
    # crocodile from the barn, the ostrich left in the barn -2. With the arena edition's sheet:
    # 13 animals + 1 (crocodile bonus) + 5 (lion bonus) + 0 (the group is used) - 2 = 17.
    example = zoo((1, 2, 2, 3, 5), barn=(CROC, OSTRICH), bonuses=(CROC, LION), coins=3)
    b = breakdown(example)
    assert (b.animals, b.bonuses, b.groups, b.barn, b.removed) == (13, 6, 1, 2, 1)
    assert (b.group_points, b.barn_points, b.total) == (0, -2, 17)


@pytest.mark.parametrize(
    ("coins", "barn", "total"),
    [
        (0, 0, 0),
        (1, 0, 0),  # no complete group
        (2, 0, 1),  # one group, no barn: 1 point
        (4, 0, 2),
        (6, 0, 3),
        (0, 2, -4),
        (2, 2, -2),  # the group removes one barn animal
        (5, 2, 0),  # two groups remove both
        (6, 1, 2),  # one group removes, two score
        (6, 5, -4),  # three removed, two left
    ],
)
def test_coin_groups_are_used_in_the_best_way(coins, barn, total):
    # Rules :220-238, ruling 6 (groups of 2 complete at 2, 4 and 6 coins).
    z = zoo(barn=tuple(range(1, barn + 1)), coins=coins)
    assert breakdown(z).total == total


@pytest.mark.parametrize(
    ("zoos", "scores", "ranks"),
    [
        ([zoo((1, 2, 0, 0, 0)), zoo((1, 1, 0, 0, 0))], (3, 2), (1, 2)),
        ([zoo((1, 2, 0, 0, 0), coins=1), zoo((1, 2, 0, 0, 0), coins=0)], (3, 3), (1, 2)),  # most coins
        ([zoo((1, 2, 0, 0, 0), coins=1), zoo((1, 2, 0, 0, 0), coins=1)], (3, 3), (1, 1)),  # shared
        ([zoo((0, 0, 0, 0, 3)), zoo(), zoo((0, 0, 0, 0, 3))], (3, 0, 3), (1, 3, 1)),
    ],
)
def test_score_and_tie_breakers(zoos, scores, ranks):
    # Rules :254-264, ruling 7.
    state = deal(len(zoos))
    state.zoos = zoos
    result = GAME.score(state)
    assert result.scores == scores and result.ranks == ranks


def test_the_observation_shows_the_running_score():
    state = position(2, zoos={1: zoo((1, 2, 3, 0, 0), barn=(CROC,), bonuses=(OSTRICH,), coins=3)})
    z = GAME.observe(state, 0).zoos[1]
    assert (z.score, z.coin_groups, z.open_enclosures, z.coins) == (6 + 2 + 0, 1, 2, 3)
    assert list(z.barn) == [True, False, False, False, False]


# -- information ----------------------------------------------------------------------------


def test_every_seat_sees_the_same_and_the_future_dice_never_show():
    # Perfect information: every event is public; two matches that differ only in the dice not
    # rolled yet look byte-identical to every seat.
    script = ["roll", "place:0,1", "take:0", "roll", "place:1,1"]
    a = deal(3, 1, dice=[LION, CROC, OSTRICH, OSTRICH, COIN, COIN])
    b = deal(3, 1, dice=[LION, CROC, OSTRICH, OSTRICH, MONKEY, ELEPHANT])
    for step in script:
        for seat in range(3):
            assert_same_view(GAME, a, b, seat)
        act(a, step)
        act(b, step)
    for seat in range(3):
        assert_same_view(GAME, a, b, seat)
    assert all(e.to is None for e in a.log.events)
    views = [GAME.observe(a, s) for s in (0, 1, 2)]
    for seat, view in enumerate(views):
        assert view.seat == seat
        view.seat = 0
    assert views[0] == views[1] == views[2]
    spectator = GAME.observe(a, SPECTATOR)
    spectator.spectator = False
    assert spectator == views[0]


def test_illegal_choices_change_nothing():
    state = position(2, trucks=[[LION], [], []], supply=4)
    before = pickle.dumps(state)
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {0: "take:1"})  # an empty truck
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {0: "place:0,0"})
    assert pickle.dumps(state) == before


# -- determinization ------------------------------------------------------------------------


def _positions(players: int, seeds: range, every: int = 9):
    """States at regular points of seeded random playouts."""
    for seed in seeds:
        state = GAME.new_match(GAME.config(players), seed)
        rng = Chance(seed + 77)
        while state.pending:
            if state.steps % every == min(3, every - 1):
                yield state
            (decision,) = state.pending
            GAME.apply(state, {decision.seat: rng.pick(decision.options, "t").id})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sample_world_keeps_what_every_seat_knows(players):
    checked = 0
    for state in _positions(players, range(6)):
        snapshot = pickle.dumps(state)
        for seat in range(players):
            world = GAME.sample_world(state, seat, Chance(checked))
            assert observation_bytes(GAME, world, seat) == observation_bytes(GAME, state, seat)
            assert [(d.seat, d.kind, d.option_ids) for d in world.pending] == [
                (d.seat, d.kind, d.option_ids) for d in state.pending
            ]
            assert world.log.events == [e for e in state.log.events if e.visible_to(seat)]
            rng = Chance(checked + 5)
            while world.pending:
                (decision,) = world.pending
                GAME.apply(world, {decision.seat: rng.pick(decision.options, "t").id})
            assert GAME.result(world) is not None
            checked += 1
        assert pickle.dumps(state) == snapshot, "sample_world changed the real state"
    assert checked > 20


def test_sample_world_draws_fresh_uniform_dice():
    # Nothing is hidden: the only unknown is the future. A world's next roll comes from its own
    # chance, uniform over the six faces (chi-square), and not from the real match's chance.
    state = deal(2, dice=[LION, LION])
    counts = [0] * 6
    differs = 0
    source = Chance(2024)
    for _ in range(1200):
        world = GAME.sample_world(state, 0, source)
        act(world, "roll")
        for face in world.rolled:
            counts[face - 1] += 1
        differs += world.rolled != [LION, LION]
    assert chisquare(counts).pvalue > 0.001
    assert differs > 1000
    assert state.supply == 6 and not state.rolled


def _state_fields(state: ZooState) -> dict:
    skip = {"chance", "log", "pending", "steps"}
    return {k: v for k, v in vars(state).items() if k not in skip}


@pytest.mark.parametrize("players", [2, 4])
def test_world_from_observation_is_the_whole_state_with_fresh_dice(players):
    checked = 0
    for state in _positions(players, range(4), every=5):
        for seat in range(players):
            seen = GAME.observe(state, seat)
            world = GAME.world_from_observation(state.config, seat, seen, Chance(checked))
            assert _state_fields(world) == _state_fields(state)  # every field, the rolled dice and the trigger too
            assert world.chance is not state.chance and world.log.events == []
            checked += 1
    assert checked > 40
    state = deal(2, dice=[LION, LION])
    counts = [0] * 6
    for i in range(600):
        world = GAME.world_from_observation(state.config, 0, GAME.observe(state, 0), Chance(i))
        act(world, "roll")
        for face in world.rolled:
            counts[face - 1] += 1
    assert chisquare(counts).pvalue > 0.001


# -- random playouts ------------------------------------------------------------------------

ROUND_BOUND = 40  # observed maximum over these 2,100 random games: 25 rounds (220 decisions)


def check_invariants(state: ZooState) -> None:
    comp = COMPONENTS
    on_trucks = sum(len(t) for t in state.trucks)
    held = sum(len(h) for h in state.held)
    assert state.supply + on_trucks + held + len(state.rolled) == comp.dice[state.players], "dice not conserved"
    assert all(len(t) <= comp.crates for t in state.trucks)
    assert all(len(h) == 0 for s, h in enumerate(state.held) if not state.passed[s])
    assert state.round <= ROUND_BOUND
    for seat, z in enumerate(state.zoos):
        assert all(0 <= n <= cap for n, cap in zip(z.enclosures, comp.capacities, strict=True))
        assert 0 <= z.coins <= comp.coin_spaces
        for a in range(5):
            if z.barn[a]:
                assert z.enclosures[a] == comp.capacities[a], "barn before the enclosure is full"
            if z.bonuses[a]:
                assert state.bonus_owner[a] == seat and z.enclosures[a] == comp.capacities[a]
    for a, owner in enumerate(state.bonus_owner):
        holders = [s for s, z in enumerate(state.zoos) if z.bonuses[a]]
        assert holders == ([] if owner < 0 else [owner])
    if state.triggered:
        assert any(z.open_enclosures() <= 1 for z in state.zoos)
    if not state.pending:
        assert state.triggered
        result = GAME.result(state)
        scores = tuple(breakdown(z).total for z in state.zoos)
        assert result.scores == scores
        (end,) = [e for e in state.log.events if e.kind == "end"]
        assert tuple(end.detail.scores) == scores
        keys = [(scores[s], state.zoos[s].coins) for s in range(state.players)]
        assert [r == 1 for r in result.ranks] == [k == max(keys) for k in keys]


@pytest.mark.parametrize(("players", "games"), [(2, 800), (3, 700), (4, 600)])
def test_random_playouts_conserve_dice_and_end(players, games):
    config = GAME.config(players)
    rounds = []
    for seed in range(games):
        state = random_playout(
            GAME, config, seed, invariant=check_invariants if seed % 10 == 0 else None, observe=seed < 3
        )
        if seed % 10:
            check_invariants(state)
        rounds.append(state.round)
        assert state.steps < 400
    assert max(rounds) <= ROUND_BOUND
    assert 8 < sum(rounds) / games < 20


def test_decision_and_event_kinds_match_the_proto_and_rules():
    proto = (ROOT / "proto/arena/games/v1/zoolorettodice.proto").read_text()
    listed = {
        name: set(re.findall(r'"([a-z_-]+)"', re.search(rf"// {name} kinds:(.*?)\.\n", proto, re.S).group(1)))  # type: ignore[union-attr]
        for name in ("Decision", "Event")
    }
    seen_decisions: set[str] = set()
    seen_events: set[str] = set()
    for players in (2, 3, 4):
        for seed in range(3):
            state = random_playout(
                GAME,
                GAME.config(players),
                seed,
                observe=False,
                invariant=lambda s: seen_decisions.update(d.kind for d in s.pending),
            )
            seen_events.update(e.kind for e in state.log.events)
    assert listed["Decision"] == seen_decisions == {"turn", "place"}
    assert listed["Event"] == seen_events == {"round", "roll", "place", "take", "bonus", "trigger", "end"}
    rules = (ROOT / "arena/games/zoolorettodice/rules.md").read_text()
    for kind in listed["Decision"] | listed["Event"]:
        assert f"`{kind}`" in rules


# -- built-in bot ---------------------------------------------------------------------------


def test_heuristic_parameters_are_validated():
    make_bot("heuristic:greed=3,spite=0", "zoolorettodice")
    with pytest.raises(ConfigError, match="greed"):
        make_bot("heuristic:greed=99", "zoolorettodice")
    with pytest.raises(ConfigError, match="risk"):
        make_bot("heuristic:risk=1", "zoolorettodice")


def _bot_choice(state: ZooState, spec: str = "heuristic") -> str:
    (decision,) = state.pending
    turn = SimpleNamespace(
        kind=decision.kind, option_ids=list(decision.option_ids), observation=GAME.observe(state, decision.seat)
    )
    return make_bot(spec, "zoolorettodice").choose(turn)  # type: ignore[arg-type]


def test_heuristic_takes_a_bonus_rather_than_a_barn_animal():
    # Ostrich completes the enclosure (1 + bonus 2); the crocodile would go to the barn (-2).
    state = position(2, trucks=[[CROC], [OSTRICH], []], supply=4, zoos={0: zoo((1, 1, 0, 0, 0))})
    assert _bot_choice(state) == "take:1"


def test_heuristic_rolls_while_the_trucks_are_poor():
    state = position(3, trucks=[[COIN], [], []], supply=6)
    assert _bot_choice(state) == "roll"


def test_heuristic_as_the_last_player_rolls_to_improve_then_takes():
    # Alone in the round with only a barn animal on offer: a roll can only help (bad dice go elsewhere).
    state = position(
        3, turn=2, trucks=[[CROC], [], []], supply=2, zoos={2: zoo((1, 0, 0, 0, 0))}, passed=[True, True, False]
    )
    assert _bot_choice(state) == "roll"
    state.supply = 0
    GAME.refresh(state)
    assert _bot_choice(state) == "take:0"


def test_heuristic_places_animals_it_wants_together():
    # Two lions for a zoo with lions to fill: both on one truck, away from nothing else.
    state = position(
        3,
        turn=2,
        trucks=[[], [], []],
        supply=8,
        zoos={2: zoo((0, 0, 0, 0, 0))},
        passed=[True, True, False],
        dice=[LION, LION],
    )
    act(state, "roll")
    assert _bot_choice(state) == "place:0,0"
