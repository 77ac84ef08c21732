"""RollDice: every rule of shared/rules/rolldice.md and its rulings, pinned."""

from __future__ import annotations

import copy
import pickle

import pytest

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.games.rolldice import GAME
from arena.games.v1 import rolldice_pb2 as pb
from arena.scenario import scenario
from tests.contract import configurations, random_playout


def game_with(rolls, players=2, start=0, **options):
    chance = PresetChance(rolls={"die": rolls}, picks={"start": [start]})
    return GAME.new_match(GAME.config(players, options), chance=chance)


def test_first_roll_is_a_decision_stop_or_reroll():
    state = game_with([4])
    (decision,) = state.pending
    assert decision.seat == 0 and decision.kind == "roll"
    assert decision.option_ids == ("stop", "reroll")


def test_after_a_reroll_only_the_final_roll_counts():
    # Rule :24 - you keep only the final rolled value; with one reroll the second roll is kept.
    state = game_with([5, 2, 3])
    GAME.apply(state, {0: "reroll"})
    assert state.totals == [2, 0]
    assert state.turn_seat == 1 and state.current_roll == 3


@pytest.mark.parametrize("copy", [copy.deepcopy, lambda s: pickle.loads(pickle.dumps(s))])
def test_a_reroll_on_a_copied_state_is_still_a_reroll(copy):
    # The choice is told by its id, not by object identity: a copied state's options are equal
    # objects, not the same ones, and a reroll there once banked the die.
    state = copy(game_with([5, 2, 3]))
    GAME.apply(state, {0: "reroll"})
    assert state.totals == [2, 0]


def test_stop_keeps_the_die():
    state = game_with([5, 3])
    GAME.apply(state, {0: "stop"})
    assert state.totals == [5, 0]


def test_two_rerolls_variant_offers_a_second_reroll():
    state = game_with([1, 1, 6, 4], rerolls=2)
    GAME.apply(state, {0: "reroll"})
    assert state.pending[0].option_ids == ("stop", "reroll") and state.current_roll == 1
    GAME.apply(state, {0: "reroll"})
    assert state.totals == [6, 0]


def test_every_turn_scores_at_least_one():
    for seed in range(50):
        state = random_playout(GAME, GAME.config(3), seed)
        turns = sum(state.turns_taken)
        assert sum(state.totals) >= turns


def test_round_is_finished_then_highest_total_wins():
    # Seat 0 reaches 20 first, seat 1 still plays its turn and passes it: highest total wins.
    rolls = [6, 6, 6, 6, 6, 6, 2, 6, 6]  # 0:6 1:6 0:6 1:6 0:6 1:6 0:2 (stops) 1:6 -> 20 vs 24
    state = game_with(rolls)
    script = ["stop"] * 6 + ["stop", "stop"]
    for step in script:
        GAME.apply(state, {state.pending[0].seat: step})
    assert state.totals == [20, 24]
    assert not state.pending
    result = GAME.result(state)
    assert result.ranks == (2, 1)


def test_equal_leaders_share_the_victory():
    state = game_with([6, 6, 6, 6, 6, 6, 2, 2])
    for _ in range(8):
        GAME.apply(state, {state.pending[0].seat: "stop"})
    assert state.totals == [20, 20]
    assert GAME.result(state).ranks == (1, 1)


def test_roll_off_breaks_a_tie():
    chance = PresetChance(rolls={"die": [6, 6, 6, 6, 6, 6, 2, 2], "rolloff": [3, 3, 5, 1]}, picks={"start": [1]})
    state = scenario(GAME, 2, {"tiebreak": "rolloff"}, chance=chance)
    assert state.turn_seat == 1
    for _ in range(8):
        GAME.apply(state, {state.pending[0].seat: "stop"})
    # Roll-off in seat order: 3 vs 3 (tie again), then 5 vs 1: seat 0 wins.
    assert GAME.result(state).ranks == (1, 2)
    assert chance.unused() == {}


def differing_fields(a, b) -> set[str]:
    return {f.name for f in a.DESCRIPTOR.fields if getattr(a, f.name) != getattr(b, f.name)}


@pytest.mark.parametrize("seed", range(6))
def test_the_observation_says_whether_the_roll_off_is_on(seed):
    # A stateless bot reads only the observation: at a last-round choice a tie for first is
    # shared or rolled off, so the option must be in it (an outside probe found it in none).
    # The same seed and choices under either tie-breaker: every view differs in `rolloff` only.
    shared = GAME.new_match(GAME.config(3, {"target": 12}), seed)
    rolled = GAME.new_match(GAME.config(3, {"target": 12, "tiebreak": "rolloff"}), seed)
    rng = Chance(seed)
    while True:
        for viewer in (-1, 0, 1, 2):
            a, b = GAME.observe(shared, viewer), GAME.observe(rolled, viewer)
            assert not a.rolloff and b.rolloff
            assert differing_fields(a, b) == {"rolloff"}
        if not shared.pending:
            break
        choice = rng.pick(("stop", "reroll"), "choice")
        GAME.apply(shared, {shared.pending[0].seat: choice})
        GAME.apply(rolled, {rolled.pending[0].seat: choice})
    assert not rolled.pending


@pytest.mark.parametrize(("tiebreak", "ranks"), [("shared", [(1, 1)]), ("rolloff", [(1, 2), (2, 1)])])
def test_a_world_from_the_observation_keeps_the_tie_breaker(tiebreak, ranks):
    # 18-18 after round 3; round 4: seat 1 keeps a 2 (20), seat 0 shows a 2: stopping ties at 20.
    chance = PresetChance(rolls={"die": [6, 6, 6, 6, 6, 6, 2, 2]}, picks={"start": [1]})
    state = scenario(GAME, 2, {"tiebreak": tiebreak}, chance=chance, script=["stop"] * 7)
    assert state.totals == [18, 20] and state.pending[0].seat == 0 and state.current_roll == 2
    seen = GAME.observe(state, 0)
    assert seen.rolloff == (tiebreak == "rolloff")
    # The world follows the observation, whatever the config it is handed says.
    for config in (state.config, GAME.config(2, {"tiebreak": "rolloff" if tiebreak == "shared" else "shared"})):
        world = GAME.world_from_observation(config, 0, seen, Chance(3))
        assert GAME.observe(world, 0).SerializeToString() == seen.SerializeToString()
        GAME.apply(world, {0: "stop"})
        assert world.totals == [20, 20] and not world.pending
        assert GAME.result(world).ranks in ranks
        rolled_off = any(e.kind == "rolloff" for e in world.log.events)
        assert rolled_off == (tiebreak == "rolloff")


def test_solo_game_ends_at_the_target():
    state = scenario(GAME, 1, {"target": 10}, chance=PresetChance(rolls={"die": [6, 6]}))
    GAME.apply(state, {0: "stop"})
    GAME.apply(state, {0: "stop"})
    assert not state.pending and state.totals == [12]
    assert GAME.result(state).ranks == (1,)


@pytest.mark.parametrize(("players", "ok"), [(0, False), (1, True), (4, True), (5, False)])
def test_player_counts(players, ok):
    if ok:
        GAME.config(players)
    else:
        with pytest.raises(ConfigError, match="1-4 players"):
            GAME.config(players)


def test_options_are_validated():
    with pytest.raises(ConfigError, match="rerolls"):
        GAME.config(2, {"rerolls": "3"})
    with pytest.raises(ConfigError, match="unknown option 'speed'"):
        GAME.config(2, {"speed": "1"})


PLAYOUT_SEEDS = 171  # x 12 configurations: the 2,000 seeded games GAME-DONE asks for


def test_playout_invariants_over_two_thousand_seeded_games():
    """Every player gets equal turns, the round ends only past the target, and (rules :26,
    :34-36) each turn adds the kept die (1-6) to the total, nothing else."""
    games = 0
    for config in configurations(GAME):
        for seed in range(PLAYOUT_SEEDS):
            state = random_playout(GAME, config, seed)
            games += 1
            assert len(set(state.turns_taken)) == 1
            assert max(state.totals) >= state.target
            # the docstring's bound: target rounds of at most `rerolls` decisions a turn
            assert state.steps <= state.target * config.players * state.max_rerolls
            kept = [0] * config.players
            for event in state.log.events:
                if event.kind == "keep":
                    assert 1 <= event.detail.value <= 6
                    kept[event.detail.seat] += event.detail.value
            assert kept == state.totals
    assert games >= 2000


def test_no_hidden_information_all_seats_see_the_same():
    state = scenario(GAME, 3, seed=4, script=["stop", "reroll"])
    views = [GAME.observe(state, s) for s in range(3)]
    for view in views:
        view.seat = 0
    assert views[0] == views[1] == views[2]


def test_rule_vector_a_reroll_to_a_one_still_scores_one():
    # Rules :24-26: only the final roll counts, and there is no zero: a 1 rerolled into a 1 adds 1.
    state = game_with([1, 1, 4])
    GAME.apply(state, {0: "reroll"})
    assert state.totals == [1, 0]
    keeps = [e.detail for e in state.log.events if e.kind == "keep"]
    assert [(k.seat, k.value, k.total) for k in keeps] == [(0, 1, 1)]


def test_roll_off_is_among_the_tied_leaders_only():
    # Round 4 ends 20, 20, 19: only seats 0 and 1 roll off (4 vs 6): seat 1 first, seat 0 second.
    rolls = [6] * 9 + [2, 2, 1]
    chance = PresetChance(rolls={"die": rolls, "rolloff": [4, 6]}, picks={"start": [0]})
    state = scenario(GAME, 3, {"tiebreak": "rolloff"}, chance=chance)
    for _ in range(12):
        GAME.apply(state, {state.pending[0].seat: "stop"})
    assert state.totals == [20, 20, 19] and not state.pending
    assert [(e.detail.seat, e.detail.value) for e in state.log.events if e.kind == "rolloff"] == [(0, 4), (1, 6)]
    assert GAME.result(state).ranks == (2, 1, 3)
    assert chance.unused() == {}


# -- worked examples through the engine (conformance pass) ----------------------------------


def test_example_target_20_is_the_default_and_19_plays_on():
    # Rules :12 ("a target score (e.g., 20 points)"), :40-42: with the default target a round
    # ending at 19 goes on; the next round that ends with a total of 20 or more ends the game.
    rolls = [6, 1, 6, 1, 6, 1, 1, 1, 1, 5]  # seat 0: 6 6 6 1 = 19, then 1 = 20; seat 1: 1 each
    state = game_with(rolls)
    assert GAME.observe(state, 0).target == 20
    for _ in range(8):
        GAME.apply(state, {state.pending[0].seat: "stop"})
    assert state.totals == [19, 4] and state.pending and state.round == 5
    GAME.apply(state, {0: "stop"})  # 19 + 1 = 20: seat 1 still plays its turn of round 5
    assert state.totals == [20, 4] and state.pending[0].seat == 1
    GAME.apply(state, {1: "stop"})
    assert not state.pending and state.totals == [20, 9]
    assert GAME.result(state).ranks == (1, 2)


# -- typed event details (an outside probe: the start seat and the last round were in the text only)


def test_start_and_end_events_carry_the_start_seat_the_round_the_totals_and_the_winners():
    state = game_with([6, 6, 6, 6, 6, 6, 2, 6, 6], start=1)
    start = state.log.events[0]
    assert (start.kind, start.to, start.detail) == ("start", None, pb.StartEvent(seat=1))
    for _ in range(8):
        GAME.apply(state, {state.pending[0].seat: "stop"})
    end = state.log.events[-1]
    assert end.kind == "end" and state.totals == [24, 20]
    assert end.detail == pb.EndEvent(round=4, totals=[24, 20], winners=[0])
    state = game_with([6, 6, 6, 6, 6, 6, 2, 2])
    for _ in range(8):
        GAME.apply(state, {state.pending[0].seat: "stop"})
    assert state.log.events[-1].detail == pb.EndEvent(round=4, totals=[20, 20], winners=[0, 1])
    chance = PresetChance(rolls={"die": [6, 6, 6, 6, 6, 6, 2, 2], "rolloff": [3, 3, 5, 1]}, picks={"start": [1]})
    state = scenario(GAME, 2, {"tiebreak": "rolloff"}, chance=chance)
    for _ in range(8):
        GAME.apply(state, {state.pending[0].seat: "stop"})
    assert state.log.events[-1].detail == pb.EndEvent(round=4, totals=[20, 20], winners=[0])


@pytest.mark.parametrize("config", configurations(GAME), ids=str)
def test_a_tracker_of_the_details_alone_knows_the_start_seat_the_round_and_the_totals(config):
    # The round is counted from the start seat and the turns (each "keep"): from the details
    # alone, never the text, a bot follows start_seat, round, totals and the turn seat.
    for seed in range(5):
        state = GAME.new_match(config, seed)
        rng = Chance(seed + 3)
        seen, start, rounds = 0, -1, 0
        totals = [0] * config.players
        turn = -1
        while True:
            for _, event in state.log.since(0, seen):
                d = event.detail
                if event.kind == "start":
                    start, turn, rounds = d.seat, d.seat, 1
                elif event.kind == "keep":
                    totals[d.seat] = d.total
                    turn = (d.seat + 1) % config.players
                    rounds += turn == start
                elif event.kind == "end":
                    assert (d.round, list(d.totals)) == (rounds - (turn == start), totals)
                    ranks = GAME.result(state).ranks
                    assert list(d.winners) == [s for s, r in enumerate(ranks) if r == 1]
            seen = len(state.log.events)
            if not state.pending:
                break
            (decision,) = state.pending
            obs = GAME.observe(state, decision.seat)
            assert (obs.start_seat, obs.round, list(obs.totals), obs.turn_seat) == (start, rounds, totals, turn)
            GAME.apply(state, {decision.seat: rng.pick(decision.option_ids, "choice")})


def heuristic_choice(totals, roll, *, seat=0, start=1, rerolls=1, target=20) -> str:
    from google.protobuf.any_pb2 import Any as AnyMessage

    from arena.v1 import bot_pb2
    from bots.registry import make_bot
    from bots.sdk import Turn

    obs = pb.Observation(
        seat=seat, target=target, max_rerolls=rerolls, totals=totals, turn_seat=seat, current_roll=roll,
        rerolls_left=rerolls, start_seat=start,
    )  # fmt: skip
    packed = AnyMessage()
    packed.Pack(obs)
    request = bot_pb2.DecisionRequest(seat=seat, kind="roll", observation=packed)
    return make_bot("heuristic", "rolldice").choose(Turn(request, []))


@pytest.mark.parametrize(
    ("totals", "roll", "seat", "start", "expected"),
    [
        # The round's last seat, the other at the target: the totals are final. 19 + 3 beats
        # 21 (the points-per-turn threshold rerolled a 3: an outside probe, seed 1878).
        ([19, 21], 3, 0, 1, "stop"),
        # 18 + 4 loses to 23 for sure; a reroll wins on a 6 and ties on a 5 (seed 103).
        ([18, 23], 4, 0, 1, "reroll"),
        # Nobody at the target yet: reaching it ends the game with this seat above all.
        ([18, 15], 2, 0, 1, "stop"),
        # Not the round's last seat (the other still plays): the threshold's choice.
        ([19, 21], 3, 1, 1, "reroll"),
        ([18, 23], 4, 1, 1, "stop"),
    ],
)
def test_the_heuristic_plays_the_last_turn_for_the_final_totals(totals, roll, seat, start, expected):
    if seat == 1:
        totals = totals[::-1]
    assert heuristic_choice(totals, roll, seat=seat, start=start) == expected


def test_the_heuristic_with_two_rerolls_left_counts_both():
    # 17 against 22: a 4 loses (21), a reroll's 5 ties and 6 wins; with two left a 1-4 is
    # rolled again: (1 + 0.5 + 4 x (1 + 0.5) / 6) / 6 = 0.333 beats keeping.
    assert heuristic_choice([17, 22], 4, rerolls=2) == "reroll"
    assert heuristic_choice([17, 22], 6, rerolls=2) == "stop"  # 23 wins now
