"""The engine contract, checked for every registered game, player count and variant."""

from __future__ import annotations

import pytest

from arena.registry import games
from tests.contract import (
    check_determinism,
    check_hidden_information_declared,
    check_illegal_rejected,
    check_replay,
    configurations,
    random_playout,
    seen_nature,
)

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


OBSERVED = 3


@pytest.mark.parametrize(("game", "config"), CASES)
def test_random_playouts_end_with_a_result(game, config):
    # Every seat's and the spectator's observation at every step of the first OBSERVED seeds: it
    # costs 12x the playout itself (60x in Wine Cellar at 8 players), so the other seeds check
    # the rest of the contract only.
    for seed in range(8):
        random_playout(game, config, seed, observe=seed < OBSERVED)


@pytest.mark.parametrize(("game", "config"), CASES)
def test_replay_from_record(game, config):
    for seed in range(3):
        check_replay(game, config, seed)


@pytest.mark.parametrize(("game", "config"), CASES)
def test_same_seed_same_record(game, config):
    check_determinism(game, config, seed=11)


@pytest.mark.parametrize(("game", "config"), CASES)
def test_illegal_choices_change_nothing(game, config):
    check_illegal_rejected(game, config, seed=5)


@pytest.mark.parametrize(("game", "config"), CASES)
def test_a_game_with_private_events_declares_hidden_information(game, config):
    check_hidden_information_declared(game, config, seed=3)


def test_every_game_declares_its_protocol():
    for game in games().values():
        meta = game.meta
        assert meta.id.isidentifier() and meta.id == meta.id.lower()
        assert 1 <= meta.min_players <= meta.max_players
        assert meta.version
        module = game.observation_type.DESCRIPTOR.file
        assert module.name == f"arena/games/v1/{meta.id}.proto"
        assert game.action_type.DESCRIPTOR.file is module
        assert module.package == f"arena.games.v1.{meta.id}"


@pytest.mark.parametrize("game", list(games().values()), ids=lambda g: g.meta.id)
def test_every_game_declares_its_nature_as_it_plays(game):
    """A game that asks several seats at once declares it simultaneous, and one whose tables
    differ by seed declares chance, and neither otherwise (Frenzy Falls' round-end discards,
    every seat at once, were declared sequential)."""
    simultaneous, chance = seen_nature(game)
    assert (game.meta.simultaneous, game.meta.chance) == (simultaneous, chance), (
        f"{game.meta.id} declares simultaneous={game.meta.simultaneous}, chance={game.meta.chance}; "
        f"its playouts show simultaneous={simultaneous}, chance={chance}"
    )
