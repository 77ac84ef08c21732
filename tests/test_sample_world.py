"""``Game.sample_world`` (the determinization hook), checked for every registered game, player
count and variant, plus a distribution test per game.

At random points of seeded random playouts, for every seat, a sampled world must give the seat
byte-identical observations, the same visible events and the same pending options; it must
play on to the end with random choices without any error (a world with no legal move is a
bug); and neither sampling nor playing the world may change the real state.
"""

from __future__ import annotations

import itertools
import pickle
from collections import Counter
from math import comb

import pytest
from scipy.stats import chisquare

from arena.chance import Chance
from arena.engine import Game, clone
from arena.registry import games, get_game
from arena.scenario import scenario
from tests.contract import assert_same_view, configurations, observation_bytes

CASES = [
    pytest.param(
        game,
        config,
        id=f"{game.meta.id}-{config.players}p-"
        + ("-".join(f"{k}={v}" for k, v in config.options.items()) or "default"),
    )
    for game in games().values()
    for config in configurations(game)
]

SEEDS = 2
POINTS = 4  # sampled points per playout


def sampled_points(game, config, seed):
    """Copies of the state at ``POINTS`` random steps of a seeded random playout."""
    rng = Chance(seed ^ 0xB0B)
    state = game.new_match(config, seed)
    states = []
    while state.pending:
        states.append(game.clone(state))
        game.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    picks = sorted(set(rng.below(len(states), "point") for _ in range(POINTS)))
    return [states[i] for i in picks]


def play_out(game, world, rng):
    steps = 0
    while world.pending:
        for decision in world.pending:
            assert decision.options, f"{game.meta.id}: a sampled world has no legal option for seat {decision.seat}"
        game.apply(world, {d.seat: rng.pick(d.options, "t").id for d in world.pending})
        steps += 1
        assert steps < 100_000
    assert game.result(world) is not None


@pytest.mark.parametrize(("game", "config"), CASES)
def test_sampled_worlds_are_consistent_and_playable(game, config):
    for seed in range(SEEDS):
        for state in sampled_points(game, config, seed):
            before = pickle.dumps(state)
            for seat in range(config.players):
                world = game.sample_world(state, seat, Chance(seed * 100 + seat))
                assert world is not state
                assert_same_view(game, state, world, seat)
                assert [e for e in world.log.events if not e.visible_to(seat)] == []
                again = game.sample_world(state, seat, Chance(seed * 100 + seat))
                assert pickle.dumps(again) == pickle.dumps(world), "same chance, same world"
                play_out(game, world, Chance(seed))
            assert pickle.dumps(state) == before, "sampling or playing a world changed the real state"


HIDDEN = [pytest.param(game, id=game.meta.id) for game in games().values() if game.meta.hidden_information]


@pytest.mark.parametrize("game", HIDDEN)
def test_every_position_looks_the_same_from_a_sampled_world(game):
    """At every step of a playout (not only at sampled points: a leak may show in one phase,
    such as a Courier's turn end), each seat's observation and options are the same in a world
    that re-drew what it cannot see: an observation that showed a hidden card would differ."""
    for config in {c.players: c for c in reversed(list(configurations(game)))}.values():  # each count's first
        state = game.new_match(config, 0)
        rng = Chance(0xE7E)
        while state.pending:
            for seat in range(config.players):
                world = game.sample_world(state, seat, rng.fork())
                assert observation_bytes(game, world, seat) == observation_bytes(game, state, seat), (
                    f"seat {seat} at step {state.steps} ({config.players} players) sees what it cannot know"
                )
                assert [d.option_ids for d in world.pending if d.seat == seat] == [
                    d.option_ids for d in state.pending if d.seat == seat
                ]
            game.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})


@pytest.mark.parametrize("game", list(games().values()), ids=lambda g: g.meta.id)
def test_clone_is_exact_and_independent(game):
    config = next(configurations(game))
    state = sampled_points(game, config, 7)[-1]
    copy = clone(state)
    assert pickle.dumps(copy) == pickle.dumps(state)
    before = pickle.dumps(state)
    play_out(game, copy, Chance(1))  # the copy's own chance continues the real one
    assert pickle.dumps(state) == before


def test_perfect_information_games_get_a_copy_with_fresh_chance():
    game = get_game("rolldice")
    state = game.new_match(3, 3)
    world = game.sample_world(state, 0, Chance(1))
    assert world.chance is not state.chance
    assert (world.totals, world.turn_seat, world.current_roll) == (state.totals, state.turn_seat, state.current_roll)


def test_hidden_information_needs_an_implementation():
    vivo = get_game("vivo")
    with pytest.raises(NotImplementedError, match="vivo"):
        Game.sample_world(vivo, vivo.new_match(3, 1), 0, Chance(1))


# --------------------------------------------------------------------------------------------
# Distributions (chi-square, fixed seeds)

SAMPLES = 3000
ALPHA = 0.001


def assert_fits(observed: Counter, expected: dict, samples: int) -> None:
    keys = sorted(expected)
    assert set(observed) <= set(keys), f"impossible outcomes: {set(observed) - set(keys)}"
    f_obs = [observed[k] for k in keys]
    f_exp = [expected[k] * samples for k in keys]
    assert abs(sum(f_exp) - samples) < 1e-6
    p = chisquare(f_obs, f_exp).pvalue
    assert p > ALPHA, (
        f"chi-square p = {p:.2g}: {dict(zip(keys, f_obs, strict=True))} vs {dict(zip(keys, f_exp, strict=True))}"
    )


def test_deal_is_uniform_over_the_deals_that_respect_the_constraints():
    cards = list(enumerate("aabbcd"))  # six distinct cards of four kinds
    accepts = [lambda c: c[1] != "a", lambda c: True, lambda c: c[1] in "ab"]
    valid = set()
    for order in itertools.permutations(cards):
        hands = [order[0:2], order[2:4], order[4:6]]
        if all(accepts[i](c) for i in range(3) for c in hands[i]):
            valid.add(tuple(tuple(sorted(h)) for h in hands))
    rng = Chance(5)
    seen = Counter(tuple(tuple(sorted(h)) for h in rng.deal(cards, [2, 2, 2], "t", accepts)) for _ in range(SAMPLES))
    assert_fits(seen, {deal: 1 / len(valid) for deal in valid}, SAMPLES)
    with pytest.raises(ValueError, match="no deal"):
        rng.deal(cards, [2, 2, 2], "t", [lambda c: c[1] == "a"] * 3)


def test_a_constrained_deals_hands_come_in_random_order():
    # Built class by class, a hand listed its classes in turn: cards 0 and 1 (only hand 0 takes
    # them) were always its first two. Each of hand 0's four cards is first alike.
    rng = Chance(8)
    firsts = Counter(rng.deal(range(8), [4, 4], "t", [lambda c: True, lambda c: c >= 2])[0][0] for _ in range(SAMPLES))
    # Cards 0 and 1 are always in hand 0; each other card in 2 of the 6 ways: a quarter of that.
    assert_fits(firsts, {0: 1 / 4, 1: 1 / 4, **{c: 1 / 12 for c in range(2, 8)}}, SAMPLES)


def test_skyfive_unseen_cards_are_shuffled_into_deck_and_removed():
    game = get_game("skyfive")
    state = scenario("skyfive", players=2, seed=4, script=["draw", "draw"])
    unseen = Counter(state.deck + state.removed)
    total = sum(unseen.values())
    rng = Chance(11)
    tops = Counter(game.sample_world(state, 0, rng).deck[-1] for _ in range(SAMPLES))
    assert_fits(tops, {card: n / total for card, n in unseen.items()}, SAMPLES)


def test_petquartet_deck_order_is_reshuffled():
    game = get_game("petquartet")
    state = scenario("petquartet", players=3, seed=2, script=["place:0", "draw", "place:1"])
    left = Counter(state.deck[state.top :])
    rng = Chance(12)
    tops = Counter(game.sample_world(state, 1, rng).deck[state.top] for _ in range(SAMPLES))
    assert_fits(tops, {n: k / sum(left.values()) for n, k in left.items()}, SAMPLES)


def test_getbit_robot_stack_and_sealed_cards_are_redrawn():
    game = get_game("getbit")
    state = game.new_match(3, 6)
    robot = next(f for f in state.figures if f.robot)
    rng = Chance(13)
    tops = Counter(game.sample_world(state, 0, rng).figures[robot.id].hand[0] for _ in range(SAMPLES))
    assert_fits(tops, {c: 1 / len(robot.hand) for c in robot.hand}, SAMPLES)
    # 2 players: seat 0's first figure has chosen; seat 1 does not know which card.
    state = game.new_match(2, 6)
    game.apply(state, {0: "card:3", 1: "card:5"})
    (f0,) = (f for f in state.chosen if state.figures[f].owner == 0)
    picks = Counter(game.sample_world(state, 1, rng).chosen[f0] for _ in range(SAMPLES))
    assert_fits(picks, {c: 1 / 5 for c in range(1, 6)}, SAMPLES)
    assert all(game.sample_world(state, 0, rng).chosen[f0] == 3 for _ in range(20))


def test_rainbow_hidden_cards_are_dealt_hypergeometrically():
    game = get_game("rainbow")
    state = game.new_match(4, 9)
    seat, other = 0, 1
    unseen = 60 - sum(state.hands[seat]) - sum(p.size for p in state.middle)
    sixes = 10 - state.hands[seat][5] - sum(p.size for p in state.middle if p.rank == 6)
    size = sum(state.hands[other])
    rng = Chance(14)
    counts = Counter(game.sample_world(state, seat, rng).hands[other][5] for _ in range(SAMPLES))
    pmf = {k: comb(sixes, k) * comb(unseen - sixes, size - k) / comb(unseen, size) for k in range(min(sixes, size) + 1)}
    lumped = {k: p for k, p in pmf.items() if k < 7}
    lumped[7] = sum(p for k, p in pmf.items() if k >= 7)
    assert_fits(Counter(min(k, 7) for k in counts.elements()), lumped, SAMPLES)
    world = game.sample_world(state, seat, rng)
    assert world.hands[seat] == state.hands[seat]


def test_rainbow_two_players_reserves_are_unknown_even_to_their_owner():
    game = get_game("rainbow")
    state = game.new_match(2, 3)
    rng = Chance(15)
    own_reserve_sixes = Counter(game.sample_world(state, 0, rng).reserves[0][5] for _ in range(200))
    assert len(own_reserve_sixes) > 1


def test_rolldice_worlds_roll_their_own_dice():
    game = get_game("rolldice")
    state = game.new_match(2, 5)
    rng = Chance(16)
    rolls = Counter()
    for _ in range(SAMPLES):
        world = game.sample_world(state, 0, rng)
        game.apply(world, {world.turn_seat: "reroll"})
        rolls[world.current_roll or world.totals[state.turn_seat] - state.totals[state.turn_seat]] += 1
    assert_fits(rolls, {v: 1 / 6 for v in range(1, 7)}, SAMPLES)


def vivo_with_a_void():
    """A 3-player Vivo position in which seat 1 has shown a void (an off-harmony play)."""
    game = get_game("vivo")
    for seed in range(200):
        state = game.new_match(3, seed)
        rng = Chance(seed)
        while state.pending:
            game.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
            from arena.games.vivo.game import round_voids

            voids = round_voids(state)
            if voids[1] and state.turn == 0 and state.trick < 10:
                return state, voids
    raise AssertionError("no position with a void found")


def test_vivo_voids_are_respected_and_cards_spread_uniformly():
    from arena.games.vivo.game import round_voids

    game = get_game("vivo")
    state, voids = vivo_with_a_void()
    rng = Chance(17)
    for _ in range(300):
        world = game.sample_world(state, 0, rng)
        assert round_voids(world) == voids
        for s, void in enumerate(voids):
            assert not {c.suit for c in world.hands[s]} & void
    # Without voids (the start of a round) a card is in each other hand in proportion to its size.
    state = game.new_match(4, 3)
    card = state.hands[2][0]
    worlds = (game.sample_world(state, 0, rng) for _ in range(SAMPLES))
    where = Counter(next(s for s in (1, 2, 3) if card in world.hands[s]) for world in worlds)
    assert_fits(where, {1: 1 / 3, 2: 1 / 3, 3: 1 / 3}, SAMPLES)
    harmonies = Counter(game.sample_world(state, 0, rng).harmonies[2] for _ in range(SAMPLES))
    rest = Counter(state.harmonies[2:])
    assert_fits(harmonies, {h: n / 10 for h, n in rest.items()}, SAMPLES)
