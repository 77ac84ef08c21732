"""The ``search`` bot (ISMCTS over ``sample_world``): legal, deterministic, stronger than random."""

from __future__ import annotations

import pytest

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import Option, Result, Worlds
from arena.protocol import decision_request
from arena.registry import games, get_game
from arena.runner import play_match
from bots.registry import make_bot, tournament_field
from bots.search import Search, SearchBot, rewards
from bots.serve import start


def match(game_id, specs, seed, players=None):
    game = get_game(game_id)
    config = game.config(players or len(specs))
    return play_match(game, config, seed, [make_bot(spec, game_id) for spec in specs])


@pytest.mark.parametrize("game", list(games().values()), ids=lambda g: g.meta.id)
def test_plays_every_game_legally(game):
    players = max(game.meta.min_players, 2)
    specs = ["search:iterations=8"] + ["random"] * (players - 1)
    record = match(game.meta.id, specs, seed=1)
    assert record.failures == []
    assert any(d.seat == 0 and d.by == "bot" for d in record.decisions)


def test_same_seed_same_choices():
    first = match("getbit", ["search:iterations=12", "random"], seed=4).canonical()
    second = match("getbit", ["search:iterations=12", "random"], seed=4).canonical()
    assert first == second
    other = match("getbit", ["search:iterations=13", "random"], seed=4).canonical()
    assert other != first  # the budget is really used


def test_beats_random():
    wins = 0
    for seed in range(20):  # seats alternate
        specs = ["search:iterations=20", "random"]
        record = match("getbit", specs if seed % 2 == 0 else specs[::-1], seed)
        wins += record.result["ranks"][seed % 2] == 1
    assert wins >= 13  # random would win about 10; 15 on these seeds


def test_mast_rollouts_prefer_what_won_before():
    search = Search(get_game("rolldice"), 0, Chance(1), c=0.7, epsilon=0.0)
    search.mast = {(0, "stop"): [4, 1.0], (0, "roll"): [4, 3.0]}
    stop, roll = Option("stop", "", None), Option("roll", "", None)  # type: ignore[arg-type]
    assert search.rollout_choice(0, (stop, roll)) is roll
    assert search.rollout_choice(1, (stop, roll)) is stop  # untried for seat 1: both 1.0, first wins
    search.epsilon = 1.0
    picks = {search.rollout_choice(0, (stop, roll)).id for _ in range(50)}
    assert picks == {"stop", "roll"}  # epsilon=1: uniformly random


def test_chooses_the_sure_thing():
    """RollDice to 6: holding a 6 on the first roll, stopping reaches the target; a reroll
    almost surely loses it."""
    game = get_game("rolldice")
    chance = PresetChance(picks={"start": [0]}, rolls={"die": [6]})
    state = game.new_match(game.config(2, {"target": 6}), chance=chance)
    request = decision_request(game, state, state.pending[0], index=0, events=[], simultaneous=False)
    bot = SearchBot(iterations=200)
    assert bot.decide_worlds(request, Worlds(game, state, 0)) == "stop"
    assert bot.last is not None and bot.last.iterations == 200


def test_rewards_are_the_fraction_of_seats_beaten():
    assert rewards(Result((5, 3), (1, 2))) == [1.0, 0.0]
    assert rewards(Result((5, 5, 1), (1, 1, 3))) == [0.75, 0.75, 0.0]
    assert rewards(Result((7,), (1,))) == [1.0]


def test_parameter_errors_are_clear():
    with pytest.raises(ConfigError, match=r"search takes iterations=0\.\.10000000, ms=1\.\.600000, c=0\.\.10"):
        make_bot("search:depth=3", "skyfive")
    with pytest.raises(ConfigError, match="iterations='many' is not a number"):
        make_bot("search:iterations=many", "skyfive")
    with pytest.raises(ConfigError, match="ms=0 is out of range"):
        make_bot("search:ms=0", "skyfive")
    with pytest.raises(ConfigError, match="built-in bots: random, heuristic, search"):
        make_bot("serach", "skyfive")


def test_chosen_explicitly_never_in_the_default_field():
    for game_id in games():
        assert "search" not in tournament_field(game_id)
        assert make_bot("search", game_id).ms == 500


def test_without_a_world_sampler_it_says_why():
    bot = make_bot("search", "skyfive")
    with pytest.raises(RuntimeError, match="in-process only"):
        bot.decide(None)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="bot 'search' plays in-process only"):
        start(lambda: make_bot("search", "skyfive"))
