"""The ``search`` bot (ISMCTS over ``sample_world``): legal, deterministic, stronger than random."""

from __future__ import annotations

import pytest

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import Game, Option, Result, Worlds
from arena.protocol import decision_request
from arena.registry import games, get_game
from arena.runner import play_match
from bots.registry import make_bot, tournament_field
from bots.search import Search, SearchBot, rewards, rollout_policies
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
    for seed in range(10):  # seats alternate
        specs = ["search:iterations=30", "random"]
        record = match("getbit", specs if seed % 2 == 0 else specs[::-1], seed)
        wins += record.result["ranks"][seed % 2] == 1
    assert wins >= 8  # random would win about 5 (8 or more: 5.5%); 9 on these seeds


def test_mast_rollouts_prefer_what_won_before():
    search = Search(get_game("rolldice"), 0, Chance(1), c=0.7, epsilon=0.0)
    search.mast = {(0, "stop"): [4, 1.0], (0, "roll"): [4, 3.0]}
    stop, roll = Option("stop", "", None), Option("roll", "", None)  # type: ignore[arg-type]
    assert search.rollout_choice(0, (stop, roll)) is roll
    assert search.rollout_choice(1, (stop, roll)) is stop  # untried for seat 1: both 1.0, first wins
    search.epsilon = 1.0
    picks = {search.rollout_choice(0, (stop, roll)).id for _ in range(50)}
    assert picks == {"stop", "roll"}  # epsilon=1: uniformly random


def test_heuristic_rollouts_play_the_games_heuristic():
    """rollout=heuristic (the default): with epsilon=0 every rollout step is the heuristic's."""
    game = get_game("rolldice")
    state = game.new_match(game.config(2), 3)
    policies = rollout_policies(game, 2, Chance(1))
    assert policies is not None and len(policies) == 2
    decision = state.pending[0]
    search = Search(game, decision.seat, Chance(1), c=0.7, epsilon=0.0, policies=policies)
    for roll in range(1, 7):
        game.refresh(state)
        state.current_roll = roll  # type: ignore[attr-defined]
        state.rerolls_left = 1  # type: ignore[attr-defined]
        game.refresh(state)
        decision = state.pending[0]
        assert search.policy_choice(state, decision).id == ("reroll" if roll <= 3 else "stop")


def test_rollout_parameter():
    assert make_bot("search", "skyfive").rollout == "heuristic"
    assert make_bot("search", "skyfive").epsilon == 0.1
    assert make_bot("search:rollout=mast", "skyfive").epsilon == 0.5
    assert make_bot("search:rollout=random", "skyfive").epsilon == 1.0
    assert make_bot("search:rollout=mast,epsilon=0.2", "skyfive").epsilon == 0.2
    with pytest.raises(ConfigError, match=r"rollout='best' is not one of heuristic\|mast\|random"):
        make_bot("search:rollout=best", "skyfive")


@pytest.mark.parametrize("rollout", ["heuristic", "mast", "random"])
def test_every_rollout_is_deterministic(rollout):
    specs = [f"search:iterations=10,rollout={rollout}", "heuristic"]
    first = match("skyfive", specs, seed=2).canonical()
    assert match("skyfive", specs, seed=2).canonical() == first


def test_prior_and_mix_are_deterministic_and_legal():
    specs = ["search:iterations=10,prior=3,mix=1", "heuristic"]
    first = match("getbit", specs, seed=5)
    assert first.failures == []
    assert match("getbit", specs, seed=5).canonical() == first.canonical()


def test_mixed_answer_follows_the_root_visits():
    search = Search(get_game("getbit"), 0, Chance(7), c=0.7)
    search.root.stats[0] = {"a": [30, 10.0, 40], "b": [10, 3.0, 40], "c": [0, 0.0, 40]}
    picks = [search.mixed(["a", "b", "c"]) for _ in range(400)]
    assert "c" not in picks
    assert 0.65 < picks.count("a") / 400 < 0.85  # 3 to 1
    assert search.best(["a", "b", "c"]) == "a"


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


def test_a_margin_share_of_the_reward_is_the_score_margin():
    # 10 against 5: the margin share is (1 + 5/15) / 2 = 2/3 for the winner, 1/3 for the loser.
    assert rewards(Result((10, 5), (1, 2)), margin=1.0) == pytest.approx([2 / 3, 1 / 3])
    assert rewards(Result((10, 5), (1, 2)), margin=0.5) == pytest.approx([5 / 6, 1 / 6])
    # A narrow loss is worth more than a rout; equal scores (and 0 against 0) are a half.
    assert rewards(Result((9, 10), (2, 1)), margin=1.0)[0] > rewards(Result((1, 10), (2, 1)), margin=1.0)[0]
    assert rewards(Result((0, 0, 4), (2, 2, 1)), margin=1.0) == pytest.approx([0.25, 0.25, 1.0])
    assert make_bot("search:margin=0.25", "skyfive").margin == 0.25
    with pytest.raises(ConfigError, match="margin=2 is out of range"):
        make_bot("search:margin=2", "skyfive")


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


def test_without_a_world_sampler_it_says_why(monkeypatch):
    # A game without world_from_observation (every registered game has it: take it away).
    monkeypatch.setattr(type(get_game("skyfive")), "world_from_observation", Game.world_from_observation)
    bot = make_bot("search", "skyfive")
    with pytest.raises(RuntimeError, match="in-process only"):
        bot.decide(None)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"bot 'search' plays in-process only: .*skyfive cannot build them"):
        start(lambda: make_bot("search", "skyfive"))


def test_served_search_plays_over_grpc_as_in_process():
    """``arena bot serve --bot search`` for a game with world_from_observation: a match over
    real loopback gRPC to the end, the same choices as the in-process bot."""
    from referee.remote import RemotePlayer

    game = get_game("rolldice")
    config = game.config(2, {"target": 30})
    server = start(lambda: make_bot("search:iterations=30", "rolldice"))
    try:
        remote = play_match(
            game, config, 3, [RemotePlayer(f"grpc://127.0.0.1:{server.port}"), make_bot("heuristic", "rolldice")]
        )
    finally:
        server.stop()
    local_bots = [make_bot("search:iterations=30", "rolldice"), make_bot("heuristic", "rolldice")]
    local = play_match(game, config, 3, local_bots)
    assert remote.failures == [] and remote.result["ranks"]
    assert [(d.seat, d.choice) for d in remote.decisions] == [(d.seat, d.choice) for d in local.decisions]


# -- sequential halving on common random numbers (halving=1) -----------------------------------


def rolldice_values(target, first_total, second_total, roll):
    """Exact win chances (a shared win counts half) of the first seat of a 2-player round of
    RollDice holding ``roll`` with one reroll left, when it stops or rerolls and both seats
    play the threshold heuristic after that: what halving with tree=0, epsilon=0 and prior=0
    estimates."""
    from functools import cache

    @cache
    def turn(a, b, first):  # expected value for seat A at the start of a turn
        return sum(decide(a, b, first, r, 1) for r in range(1, 7)) / 6

    @cache
    def decide(a, b, first, r, rerolls):
        keep = after(a + r, b, first) if first else after(a, b + r, first)
        if rerolls and r <= 3:
            return sum(decide(a, b, first, x, 0) for x in range(1, 7)) / 6
        return keep

    @cache
    def after(a, b, first):
        if first:
            return turn(a, b, False)
        if max(a, b) >= target:
            return 1.0 if a > b else 0.5 if a == b else 0.0
        return turn(a, b, True)

    stop = after(first_total + roll, second_total, True)
    reroll = sum(decide(first_total, second_total, True, x, 0) for x in range(1, 7)) / 6
    return stop, reroll


def rolldice_position(first_total, second_total, roll):
    game = get_game("rolldice")
    state = game.new_match(game.config(2), chance=PresetChance(picks={"start": [0]}))
    state.totals = [first_total, second_total]  # type: ignore[attr-defined]
    state.current_roll = roll  # type: ignore[attr-defined]
    state.rerolls_left = 1  # type: ignore[attr-defined]
    game.refresh(state)
    return game, state


def test_halving_estimates_exact_win_chances():
    """Seat 0 at 15 against 16, holding a 4, seat 0 moving first: rerolling wins about 0.07
    more often than stopping (the threshold heuristic stops). Halving's paired estimates of
    both options match the exact values, and it rerolls."""
    stop, reroll = rolldice_values(20, 15, 16, 4)
    assert reroll - stop > 0.06
    game, state = rolldice_position(15, 16, 4)
    request = decision_request(game, state, state.pending[0], index=0, events=[], simultaneous=False)
    bot = SearchBot(iterations=4000, seed=3, epsilon=0.0, prior=0, halving=True, tree=False)
    assert bot.decide_worlds(request, Worlds(game, state, 0)) == "reroll"
    search = bot.last
    assert search is not None and search.iterations == 4000
    assert search.mean("stop") == pytest.approx(stop, abs=0.04)
    assert search.mean("reroll") == pytest.approx(reroll, abs=0.04)


def test_halving_shares_every_world_between_the_options():
    """Both options are simulated on the same worlds: the same number of visits each, and the
    prior's virtual wins sit on the heuristic's choice."""
    game, state = rolldice_position(17, 13, 3)  # stopping wins outright; the heuristic rerolls
    request = decision_request(game, state, state.pending[0], index=0, events=[], simultaneous=False)
    bot = SearchBot(iterations=200, seed=1, prior=10, halving=True)
    assert bot.decide_worlds(request, Worlds(game, state, 0)) == "stop"
    search = bot.last
    assert search is not None
    table = search.root.stats[0]
    assert table["stop"][0] == 100 and table["stop"][1] == 100  # every stop wins
    assert table["reroll"][0] == 110  # 100 simulations and 10 virtual wins (the heuristic's)


def test_paired_simulations_see_the_same_dice():
    """The paired comparison: with one option fixed twice, both copies see the same world and
    the same future chance, so their rewards are equal world by world."""
    game, state = rolldice_position(10, 10, 3)
    policies = rollout_policies(game, 2, Chance(1))
    search = Search(game, 0, Chance(5), c=0.7, epsilon=0.1, policies=policies, tree=False)
    worlds = Worlds(game, state, 0)
    for _ in range(50):
        search.paired(worlds, ["reroll", "reroll"])
    visits, total, _ = search.root.stats[0]["reroll"]
    assert visits == 100 and total % 2 == 0  # every world counted twice with one reward


def test_halving_drops_the_worse_half_each_round():
    game = get_game("skyfive")
    state = game.new_match(game.config(2), 1)
    decision = state.pending[0]
    ids = [o.id for o in decision.options]
    search = Search(game, decision.seat, Chance(2), c=0.7, epsilon=0.1, prior=0)
    search.halve(Worlds(game, state, decision.seat), ids, 4 * len(ids), 0)
    assert search.alive is not None and len(search.alive) <= max(1, (len(ids) + 1) // 2)
    assert search.best(ids) in search.alive


def test_halving_ties_go_to_the_first_option_or_with_ties_visits_to_the_heuristics():
    """Sky Five, 100 points ahead with 4 cards left: every simulation of both options wins.
    With equal means halving answered the first option offered (draw: a gamble for nothing);
    ``ties=visits`` ranks the more visited first, the heuristic's bank by the prior's virtual
    visits (so the prior decides where the simulations cannot)."""
    from arena.games.skyfive.game import Card, count_by
    from arena.games.v1 import skyfive_pb2 as pb

    game = get_game("skyfive")
    state = game.new_match(game.config(2), chance=PresetChance(picks={"start": [0]}))
    state.deck = state.deck[-4:]
    state.banked[0] = [Card(pb.RED, 5)] * 20
    state.scores[0] = 100
    state.face_up[0] = [Card(pb.BLUE, 6), Card(pb.GREEN, 6)]
    state.unseen_colours, state.unseen_values = count_by(state.deck + state.removed)
    game.refresh(state)
    answers = []
    for tie_visits in (False, True):
        policies = rollout_policies(game, 2, Chance(1))
        search = Search(game, 0, Chance(2), 0.7, 0.1, policies, prior=10, tree=False, tie_visits=tie_visits)
        search.halve(Worlds(game, state, 0), ["draw", "bank"], 30, 0)
        assert search.root.stats[0] == {"bank": [25, 25.0, 15], "draw": [15, 15.0, 15]}  # 10 virtual wins on bank
        answers.append(search.best(["draw", "bank"]))
    assert answers == ["draw", "bank"]
    assert make_bot("search:halving=1,ties=visits", "skyfive").tie_visits
    with pytest.raises(ConfigError, match=r"ties='most' is not one of first\|visits"):
        make_bot("search:ties=most", "skyfive")


@pytest.mark.parametrize("game_id", ["getbit", "skyfive", "vivo"])
def test_halving_is_deterministic(game_id):
    players = 3 if game_id == "vivo" else 2
    specs = ["search:iterations=12,halving=1"] + ["heuristic"] * (players - 1)
    first = match(game_id, specs, seed=3)
    assert first.failures == []
    assert match(game_id, specs, seed=3).canonical() == first.canonical()
    flat = match(game_id, ["search:iterations=12,halving=1,tree=0", *specs[1:]], seed=3)
    assert flat.failures == []


def test_halving_parameters():
    bot = make_bot("search:halving=1,tree=0", "rolldice")
    assert bot.halving and not bot.tree
    with pytest.raises(ConfigError, match="halving=2 is out of range"):
        make_bot("search:halving=2", "rolldice")


def test_halving_on_a_clock_answers_legally():
    game, state = rolldice_position(10, 12, 4)
    request = decision_request(game, state, state.pending[0], index=0, events=[], simultaneous=False)
    bot = SearchBot(ms=30, halving=True, tree=False)
    assert bot.decide_worlds(request, Worlds(game, state, 0)) in ("stop", "reroll")
    assert bot.last is not None and bot.last.iterations >= 2


def test_a_game_names_its_own_search_defaults_and_a_spec_overrides_them():
    rainbow = make_bot("search", "rainbow")
    assert (rainbow.halving, rainbow.tree) == (True, False)  # SEARCH in bots/games/rainbow.py
    assert (make_bot("search:halving=0,tree=1", "rainbow").halving, make_bot("search", "chicken").halving) == (
        False,
        False,
    )
    for game, iterations in (("skyfive", 60), ("rolldice", 1000)):  # the test before leaving the heuristic
        bot = make_bot("search", game)
        assert (bot.iterations, bot.halving, bot.tree, bot.prior, bot.guard) == (iterations, True, False, 0, 2)


def test_a_clock_budget_in_the_spec_replaces_a_games_fixed_iterations(monkeypatch: pytest.MonkeyPatch):
    import bots.registry

    monkeypatch.setattr(bots.registry, "search_defaults", lambda game_id: {"iterations": "100", "halving": "1"})
    fixed = make_bot("search", "rainbow")
    timed = make_bot("search:ms=40", "rainbow")
    both = make_bot("search:ms=40,iterations=7", "rainbow")
    assert (fixed.iterations, fixed.halving) == (100, True)
    assert (timed.iterations, timed.ms, timed.halving) == (0, 40, True)
    assert (both.iterations, both.ms) == (7, 40)


def test_guard_leaves_the_heuristic_only_for_a_significantly_better_option():
    """RollDice, 15 against 16 holding a 4: the heuristic stops, rerolling wins 0.07 more
    (exact). With ``guard=2`` halving leaves the heuristic there (the paired difference is
    several standard errors); at 12 against 15 holding a 4 the two are within 0.002 of each
    other and it keeps the heuristic's stop; a guard no estimate can pass keeps it always."""
    answers = {}
    for (mine, theirs, roll), guard in [((15, 16, 4), 2), ((12, 15, 4), 2), ((15, 16, 4), 10)]:
        game, state = rolldice_position(mine, theirs, roll)
        request = decision_request(game, state, state.pending[0], index=0, events=[], simultaneous=False)
        bot = make_bot(f"search:iterations=2000,halving=1,tree=0,prior=0,guard={guard}", "rolldice")
        answers[mine, theirs, guard] = bot.decide_worlds(request, Worlds(game, state, 0))
        search = bot.last
        assert search is not None and search.anchor == "stop" and len(search.paired_rewards) == 1000
    assert answers == {(15, 16, 2): "reroll", (12, 15, 2): "stop", (15, 16, 10): "stop"}


def test_guard_tests_the_paired_difference():
    search = Search(get_game("rolldice"), 0, Chance(1), c=0.7, guard=2.0)
    search.paired_rewards = [{"a": 1.0, "h": 0.0}, {"a": 1.0, "h": 1.0}, {"a": 0.0, "h": 0.0}] * 4
    assert search.significant("a", "h")  # mean 1/3, standard error 0.14
    search.paired_rewards = [{"a": 1.0, "h": 0.0}, {"a": 0.0, "h": 1.0}, {"a": 1.0, "h": 0.0}] * 4
    assert not search.significant("a", "h")  # mean 1/3, standard error 0.29
    search.paired_rewards = [{"a": 1.0, "h": 0.0}]
    assert not search.significant("a", "h")  # one world says nothing


def test_confirm_plays_a_promising_departure_on_more_worlds_before_the_test():
    """RollDice, 15 against 16 holding a 4 (rerolling wins 0.07 more than the heuristic's
    stop): on 30 paired worlds the reroll is promising (over 1 standard error) but not
    significant (2); ``confirm=600`` plays both on 600 more worlds and the reroll passes. Where
    it is not promising, nothing more is played."""
    game, state = rolldice_position(15, 16, 4)
    request = decision_request(game, state, state.pending[0], index=0, events=[], simultaneous=False)
    played = {}
    for seed in (0, 3):
        bot = make_bot("search:iterations=60,halving=1,tree=0,prior=0,guard=2,confirm=600", "rolldice")
        bot.rng = Chance(seed)
        answer = bot.decide_worlds(request, Worlds(game, state, 0))
        assert bot.last is not None
        played[seed] = (answer, len(bot.last.paired_rewards))
    assert played == {0: ("reroll", 630), 3: ("stop", 30)}


def test_confirm_stays_within_the_time_budget():
    """`confirm=N` played its N extra paired worlds whatever `ms` said: `ms=100,confirm=3000`
    took 54 s on one Sky Five decision, a timeout when served (an outside probe). On a time
    budget it stops at the decision's deadline (the budget is a target: far under 50 times it)."""
    from arena.registry import get_game
    from arena.runner import play_match
    from referee.players import make_player

    game = get_game("skyfive")
    seats = [make_player("search:ms=100,confirm=3000", "skyfive"), make_player("heuristic", "skyfive")]
    record = play_match(game, game.config(2), 2, seats)
    searched = [d.ms for d in record.decisions if d.seat == 0 and d.options > 1]
    assert searched and max(searched) < 5000, sorted(searched)[-3:]


def simulated_clock(monkeypatch: pytest.MonkeyPatch, seconds_a_simulation: float = 1 / 64) -> None:
    """The search's clock reads 0 at first and advances by ``seconds_a_simulation`` with every
    simulated game (a power of two: the sums are exact): a budget's effect counted in rollouts,
    not measured on a noisy machine."""
    import types

    import bots.search

    now = [0.0]
    monkeypatch.setattr(bots.search, "time", types.SimpleNamespace(perf_counter=lambda: now[0]))
    simulate = Search.simulate

    def timed(self, *args, **kwargs):
        reward = simulate(self, *args, **kwargs)
        now[0] += seconds_a_simulation
        return reward

    monkeypatch.setattr(Search, "simulate", timed)


def rainbow_request(clock=None):
    """Rainbow's first decision at 2 players, seed 1: seat 1 chooses among 29 options."""
    from arena.v1 import bot_pb2

    game = get_game("rainbow")
    state = game.new_match(game.config(2), 1)
    decision = state.pending[0]
    request = decision_request(
        game, state, decision, index=0, events=[], simultaneous=False, clock=clock and bot_pb2.ClockState(**clock)
    )
    return request, Worlds(game, state, decision.seat)


def test_a_timed_search_stops_at_its_deadline_inside_halvings_first_round(monkeypatch):
    """Halving played every option at least once a round, so Rainbow's 29 options took at least
    29 rollouts whatever ``ms`` said (an outside probe: 6.8 times ``ms=50`` in CPU time). Now no
    simulation starts after the deadline: at 1/64 s a rollout, ``ms=50`` plays 4 (0.0625 s), and
    the answer is the best mean of what was simulated and of the prior: single 2 and single 4 won
    their one rollout each, as good as the heuristic's single 5 on the prior's virtual wins, and
    the first of them survives (single 6 was the heuristic's before its 2-player change)."""
    simulated_clock(monkeypatch)
    request, worlds = rainbow_request()
    bot = make_bot("search:ms=50", "rainbow")  # Rainbow's SEARCH: halving, tree=0, prior 10
    assert bot.decide_worlds(request, worlds) == "single:2"
    search = bot.last
    assert search is not None and search.iterations == 4 and bot.last_budget_ms == 50
    assert search.alive == ["single:1", "single:2", "single:3", "single:4", "single:5"]
    assert search.root.stats[1]["single:5"] == [10, 10, 0]  # the prior's, not simulated
    assert [search.root.stats[1][f"single:{n}"] for n in (1, 2, 3, 4)] == [
        [1, 0.0, 1],
        [1, 1.0, 1],
        [1, 0.0, 1],
        [1, 1.0, 1],
    ]


def test_a_served_search_takes_its_budget_from_the_requests_clock(monkeypatch):
    """Served, the search read only its own ``ms``: ``ms=100`` against a 500 ms limit and no
    bank was struck and forfeited in Rainbow (an outside probe). Now it spends at most half the
    limit plus the bank left, less 50 ms for the transport: 50 ms of a 200 ms limit, 4 rollouts
    at 1/64 s each, where ``ms=500`` alone played 32; a fixed ``iterations`` stops there too.
    Without a clock (in process) the budgets are the bot's own."""
    from bots.search import clock_budget_ms

    assert clock_budget_ms(bot_pb2_clock(decision_ms=200)) == 50
    assert clock_budget_ms(bot_pb2_clock(decision_ms=500, bank_ms=1000, strikes=1)) == 700
    assert clock_budget_ms(bot_pb2_clock(decision_ms=60)) == 0
    assert clock_budget_ms(bot_pb2_clock()) is None
    simulated_clock(monkeypatch)
    played = []
    for spec, clock in [
        ("ms=500", {"decision_ms": 200}),
        ("ms=500", {"decision_ms": 200, "bank_ms": 1000}),  # 550 ms: the bot's 500 is less
        ("ms=500", None),
        ("iterations=100", {"decision_ms": 200}),
        ("iterations=100", None),
    ]:
        bot = make_bot(f"search:{spec},halving=0,tree=1", "rainbow")
        request, worlds = rainbow_request(clock)
        bot.decide_worlds(request, worlds)
        assert bot.last is not None
        played.append((bot.last_budget_ms, bot.last.iterations))
    assert played == [(50, 4), (500, 32), (500, 32), (50, 4), (None, 100)]


def bot_pb2_clock(**fields):
    from arena.v1 import bot_pb2

    return bot_pb2.ClockState(**fields)
