"""``Game.world_from_observation`` (what a served searching bot determinizes from), checked for
every game that implements it, every player count and variant.

At random points of seeded random playouts, for every seat that must decide, a world built
from the seat's observation alone must give back that observation byte for byte and the same
pending decision (kind and options), asking the same seats; the same chance must build the same world; and the world
must play on to the end with random choices without any error (a world with no legal move, or
one that breaks later, is a bug).
"""

from __future__ import annotations

import pickle

import pytest

from arena.chance import Chance
from arena.registry import games, get_game
from tests.contract import observation_difference
from tests.test_sample_world import CASES as SAMPLED
from tests.test_sample_world import play_out, sampled_points

# Every game, player count and variant (as sample_world's test) that builds worlds from observations.
CASES = [case for case in SAMPLED if case.values[0].observes_worlds()]

SEEDS = 2


def own_decision(state, seat):
    return [(d.kind, d.option_ids) for d in state.pending if d.seat == seat]


def asked(state):
    return sorted(d.seat for d in state.pending)


@pytest.mark.parametrize(("game", "config"), CASES)
def test_worlds_from_observations_give_them_back_and_play_on(game, config):
    for seed in range(SEEDS):
        for state in sampled_points(game, config, seed):
            before = pickle.dumps(state)
            for decision in state.pending:
                seat = decision.seat
                seen = game.observe(state, seat)
                world = game.world_from_observation(config, seat, seen, Chance(seed * 100 + seat))
                assert game.observe(world, seat).SerializeToString() == seen.SerializeToString(), (
                    f"seat {seat}: {observation_difference(game, state, world, seat)}"
                )
                assert own_decision(world, seat) == own_decision(state, seat)
                assert asked(world) == asked(state), "who is asked is public (each request's decision_index)"
                assert list(world.log.events) == [], "a world from an observation starts with an empty log"
                again = game.world_from_observation(config, seat, seen, Chance(seed * 100 + seat))
                assert pickle.dumps(again) == pickle.dumps(world), "same chance, same world"
                play_out(game, world, Chance(seed))
            assert pickle.dumps(state) == before, "building or playing a world changed the real state"


def test_every_game_builds_worlds_from_observations():
    """So ``arena bot serve --bot search`` plays every game (GAME-DONE asks it of new ones)."""
    assert [g for g, game in games().items() if not game.observes_worlds()] == []


def test_the_observation_is_not_changed():
    (game, config) = next((c.values[0], c.values[1]) for c in CASES)
    state = game.new_match(config, 5)
    seen = game.observe(state, state.pending[0].seat)
    before = seen.SerializeToString()
    game.world_from_observation(config, state.pending[0].seat, seen, Chance(1))
    assert seen.SerializeToString() == before


SERVED = sorted(games())


@pytest.mark.parametrize("game_id", SERVED)
def test_served_search_plays_a_whole_match_over_grpc(game_id):
    """``arena bot serve --bot search``: every decision of seat 0 determinized from the
    observation it was sent over real loopback gRPC, a whole match without a failure."""
    from arena.runner import play_match
    from bots.registry import make_bot
    from bots.serve import start
    from referee.remote import RemotePlayer

    game = get_game(game_id)
    config = game.config(max(2, game.meta.min_players))
    server = start(lambda: make_bot("search:iterations=6", game_id))
    try:
        others = [make_bot("random", game_id) for _ in range(config.players - 1)]
        record = play_match(game, config, 5, [RemotePlayer(f"grpc://127.0.0.1:{server.port}"), *others])
    finally:
        server.stop()
    assert record.failures == [] and sorted(record.result["ranks"])[0] == 1
    assert any(d.seat == 0 and d.by == "bot" for d in record.decisions)
