"""Golden Goal: every rule of shared/rules/goldengoal.md and its rulings (NOTES.md §4.8), pinned."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.engine import SPECTATOR
from arena.games.goldengoal import GAME, GoldenGoalState
from arena.games.goldengoal.field import (
    BOX,
    CIRCLE_CELLS,
    FIELD,
    FRONT,
    FRONT_CELLS,
    KIND,
    LENGTH,
    WIDTH,
    drawing,
    name,
    parse,
)
from arena.games.goldengoal.search import reach_region
from arena.games.v1 import goldengoal_pb2 as pb
from arena.protocol import decision_request
from arena.runner import play_match
from bots.registry import make_bot
from tests.contract import check_illegal_rejected, observation_bytes, visible_events

NAMES = ("k", "o1", "o2", "o3", "o4")
# Parking spaces out of bounds on the side strips: out of the way, still next to the field.
PARKED = {
    "0k": "f1",
    "0o1": "a2",
    "0o2": "a4",
    "0o3": "a6",
    "0o4": "a8",
    "1k": "e14",
    "1o1": "j13",
    "1o2": "j11",
    "1o3": "j9",
    "1o4": "j7",
}


def position(
    pawns: dict[str, str] | None = None,
    ball: str = "e8",
    seat: int = 0,
    die: int = 3,
    rolls: list[int] | None = None,
    restart: list[int] | None = None,
    goals: tuple[int, int] = (0, 0),
    turns: int = 0,
    **options: object,
) -> GoldenGoalState:
    """A turn about to be played: ``seat`` has rolled ``die``; pawns as given ("0o1": "d5"),
    the others parked out of bounds; later rolls preset (``rolls``: turns, ``restart``)."""
    chance = PresetChance(3, rolls={"die": rolls or [], "restart": restart or []})
    state = GAME.new_match(GAME.config(2, options), chance=chance)
    where = {**PARKED, **(pawns or {})}
    state.occ = [-1] * len(state.occ)
    for key, cell in where.items():
        code = int(key[0]) * 5 + NAMES.index(key[1:])
        state.pos[code] = parse(cell)
        state.occ[parse(cell)] = code
    state.placed = [5, 5]
    state.ball = parse(ball)
    state.phase = pb.PHASE_PAWN
    state.turn_seat = seat
    state.kickoff_seat = 1 - seat
    state.die = state.pips = die
    state.goals = list(goals)
    state.turns = turns
    GAME.refresh(state)
    return state


def act(state: GoldenGoalState, *ids: str) -> None:
    for option_id in ids:
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: option_id})


def ids(state: GoldenGoalState) -> tuple[str, ...]:
    (decision,) = state.pending
    return decision.option_ids


def kind(state: GoldenGoalState) -> str:
    (decision,) = state.pending
    return decision.kind


def cell_of(state: GoldenGoalState, key: str) -> str:
    return name(state.pos[int(key[0]) * 5 + NAMES.index(key[1:])])


def last(state: GoldenGoalState, event_kind: str) -> pb.Detail:
    return next(e.detail for e in reversed(state.log.events) if e.kind == event_kind)


# -- components and field -------------------------------------------------------------------


def test_components_and_field():
    # Rules :21-27; the field is designed (components.toml).
    state = GAME.new_match(GAME.config(2), 1)
    assert len(state.pos) == 10
    assert (WIDTH, LENGTH) == (8, 14)
    assert sum(KIND[c] == FIELD for c in range(len(KIND))) == 8 * 14
    assert [name(c) for c in FRONT_CELLS[0]] == ["e1", "f1"]
    assert [name(c) for c in FRONT_CELLS[1]] == ["e14", "f14"]
    assert sorted(name(c) for c in CIRCLE_CELLS) == sorted(
        ["d7", "e7", "f7", "g7", "e6", "f6", "d8", "e8", "f8", "g8", "e9", "f9"]
    )
    assert sum(BOX[c] == 0 for c in range(len(BOX))) == sum(BOX[c] == 1 for c in range(len(BOX))) == 18
    obs = GAME.observe(state, 0)
    assert (obs.field.width, obs.field.length, list(obs.field.goal_x)) == (8, 14, [4, 5])


def test_rules_md_draws_the_field_from_the_data():
    text = (Path(__file__).resolve().parent.parent / "arena/games/goldengoal/rules.md").read_text()
    assert drawing() in text


# -- setup -------------------------------------------------------------------------------------


def test_setup_alternates_from_a_random_seat_and_keeps_the_placement_rules():
    # Rules :38-47, ruling 12.
    state = GAME.new_match(GAME.config(2), chance=PresetChance(1, picks={"placer": [1]}))
    assert state.turn_seat == 1 and kind(state) == "place" and GAME.observe(state, 0).placer == 1
    first = ids(state)
    assert {"keeper:e14", "keeper:f14", "outfielder:e8", "outfielder:d10"} <= set(first)
    assert not {"keeper:e1", "outfielder:e14", "outfielder:e7", "outfielder:a5"} & set(first)
    act(state, "outfielder:e8")  # seat 1's Center Circle Outfielder
    assert state.turn_seat == 0
    act(state, "outfielder:e7")
    assert "outfielder:d8" not in ids(state) and "outfielder:d10" in ids(state)  # 1 in the circle
    act(state, "outfielder:c13", "outfielder:b2")  # seat 1 in its own Penalty Box
    assert "outfielder:d13" not in ids(state) and "outfielder:b13" in ids(state)  # 1 per box
    act(state, "outfielder:b3", "outfielder:b10", "outfielder:c4")  # seat 1: 2 on each half
    assert {"outfielder:b5", "outfielder:b11"} <= set(ids(state))  # seat 0: 2 + 1, one to go
    act(state, "outfielder:b12")
    assert ids(state) == ("keeper:e14", "keeper:f14")
    act(state, "keeper:f14")
    assert ids(state) == ("keeper:e1", "keeper:f1")


def test_setup_requires_one_circle_outfielder_on_the_own_half():
    # Rules :44-45: 2-3 on the own half, exactly 1 of them in the Center Circle.
    state = GAME.new_match(GAME.config(2), chance=PresetChance(1, picks={"placer": [0]}))
    act(state, "outfielder:b2", "outfielder:b13", "outfielder:b3", "outfielder:b12")
    options = set(ids(state))
    assert "outfielder:b4" not in options and {"outfielder:e7", "outfielder:b10"} <= options
    act(state, "outfielder:b10", "outfielder:b5")
    outfield = sorted(i for i in ids(state) if i.startswith("outfielder:"))
    assert outfield == sorted(f"outfielder:{c}" for c in ("d7", "e7", "f7", "g7", "e6", "f6"))


def test_setup_two_or_three_outfielders_on_your_half_one_or_two_on_the_opponents():
    # Rules :44-46: "2-3 of your Outfielders must start on your half"; "1-2 of your Outfielders
    # must start on your opponent's half". Seat 0 counts its Outfielder options on each half.
    state = GAME.new_match(GAME.config(2), chance=PresetChance(1, picks={"placer": [0]}))

    def split() -> tuple[int, list[str]]:
        options = [i for i in ids(state) if i.startswith("outfielder:")]
        mine = [i for i in options if int(i.split(":")[1][1:]) <= LENGTH // 2]
        return len(mine), [i for i in options if i not in mine]

    act(state, "outfielder:c10", "outfielder:e8", "outfielder:h10", "outfielder:c13")
    # 2 on seat 1's half: the other 2 must go on the own half (56 spaces less e1 and f1).
    assert split() == (54, [])
    act(state, "outfielder:e7", "outfielder:c5")
    # 1 + 2 placed: the last on the own half (less the 6 circle spaces and seat 1's c5).
    assert split() == (47, [])
    state = GAME.new_match(GAME.config(2), chance=PresetChance(1, picks={"placer": [0]}))
    act(state, "outfielder:e7", "outfielder:e8", "outfielder:c4", "outfielder:c13", "outfielder:h4", "outfielder:c5")
    # 3 on the own half: the last on seat 1's half (56 less e14, f14, its 6 circle spaces and c13).
    mine, theirs = split()
    assert mine == 0 and len(theirs) == 47 and {"outfielder:b8", "outfielder:i14"} <= set(theirs)


# -- kickoff -----------------------------------------------------------------------------------


def kicked_off(rolls: list[int], placements: list[str]) -> GoldenGoalState:
    chance = PresetChance(2, picks={"placer": [0]}, rolls={"kickoff": rolls})
    state = GAME.new_match(GAME.config(2), chance=chance)
    act(state, *placements)
    return state


SETUP = [
    "outfielder:e7",
    "outfielder:e8",
    "outfielder:c4",
    "outfielder:c11",
    "outfielder:h10",
    "outfielder:h5",
    "outfielder:g5",
    "outfielder:b12",
    "keeper:e1",
    "keeper:f14",
]


def test_kickoff_distance_is_the_difference_without_a_free_space():
    # Rules :99-107, :193-197; NOTES rule vector; ruling 7 (exactly that far).
    state = kicked_off([5, 2], SETUP)
    assert state.kickoff_seat == 0 and state.turn_seat == 0
    detail = last(state, "kickoff")
    assert list(detail.rolls) == [5, 2] and detail.spaces == 3 and name(state.ball) == "e7"
    assert kind(state) == "kick" and GAME.observe(state, 0).exact == 3
    act(state, "kick:w")
    assert ids(state) == ("go:1", "go:2", "go:3")  # shorter legs must bend to make up 3
    act(state, "go:1")
    assert kind(state) == "bend" and "stop" not in ids(state)
    act(state, "bend:right")  # towards nw: 2 more spaces
    assert ids(state) == ("go:2",)
    act(state, "go:2")
    assert name(state.ball) == "b9"
    # The Kickoff is over: the loser of the roll takes the first turn.
    assert state.turn_seat == 1 and kind(state) == "pawn" and state.turns == 0
    assert last(state, "kick").spaces == 3 and last(state, "kick").pips == 3


def test_no_goal_may_be_scored_during_the_kickoff():
    # Rules :117 "You may not score a goal during the Kickoff"; the sequence ends with the kick.
    state = kicked_off([5, 2], SETUP)
    assert state.no_goal and GAME.observe(state, 0).no_goal and GAME.observe(state, 1).no_goal
    act(state, "kick:w", "go:1", "bend:right", "go:2")
    assert state.turn_seat == 1 and kind(state) == "pawn" and not GAME.observe(state, 1).no_goal


def test_kickoff_ties_roll_again():
    state = kicked_off([4, 4, 1, 3], SETUP)
    detail = last(state, "kickoff")
    assert list(detail.rolls) == [4, 4, 1, 3] and detail.seat == 1 and detail.spaces == 2
    assert name(state.ball) == "e8"


def test_a_pass_during_the_kickoff_gets_the_free_space():
    # Rules :119, :199-201.
    setup = list(SETUP)
    setup[4] = "outfielder:b7"  # seat 0: 3 spaces west of the Kickoff taker on e7
    setup[6] = "outfielder:h10"
    state = kicked_off([6, 1], setup)  # seat 0 kicks 5
    act(state, "kick:w")
    assert ids(state)[-1] == "go:3"  # the teammate on b7 is 3 spaces away: a pass
    act(state, "go:3")
    assert state.kicker == 3 and state.kick_free == 1 and state.pips == 2  # 5 - 3 left as pips
    assert kind(state) == "kick"


# -- a turn: walking ---------------------------------------------------------------------------


def test_walks_are_orthogonal_may_leave_the_field_and_must_spend_every_pip():
    # Rules :139-147, :264-266.
    state = position({"0o1": "b5"}, ball="e10", die=2)
    act(state, "pawn:o1")
    assert ids(state) == ("n", "e", "s", "w")  # w = a5, out of bounds
    act(state, "w")
    assert cell_of(state, "0o1") == "a5" and "stop" not in ids(state)
    act(state, "e")  # back where it started: spaces may be revisited
    assert cell_of(state, "0o1") == "b5" and state.turn_seat == 1 and kind(state) == "pawn"


def test_pawns_never_enter_or_cross_another_pawn():
    state = position({"0o1": "c5", "0o2": "c6", "1o1": "d5"}, ball="e10", die=1)
    act(state, "pawn:o1")
    assert ids(state) == ("s", "w")


def test_entering_the_ball_stops_the_walk_and_kicks_with_the_pips_left():
    # Rules :149-154.
    state = position({"0o1": "e6"}, ball="e8", die=5)
    act(state, "pawn:o1", "n", "n")
    assert kind(state) == "kick" and state.kicker == 1 and state.pips == 3


def test_text_example_two_pips_left_kick_three_spaces():
    # Rules :181-187: 1 free space + 1 per pip.
    state = position({"0o1": "e6"}, ball="e7", die=3)
    act(state, "pawn:o1", "n", "kick:n")
    assert ids(state) == ("go:1", "go:2", "go:3")
    act(state, "go:3")
    assert name(state.ball) == "e10"
    detail = last(state, "kick")
    assert (detail.spaces, detail.pips) == (3, 2)
    assert [name(c.y * 10 + c.x) for c in detail.path] == ["e8", "e9", "e10"]


def test_text_example_zero_pips_left_still_kick_one_space():
    # Rules :189.
    state = position({"0o1": "e6"}, ball="e7", die=1)
    act(state, "pawn:o1", "n", "kick:n")
    assert ids(state) == ("go:1",)
    act(state, "go:1")
    assert name(state.ball) == "e8" and state.turn_seat == 1


def test_unspent_pips_are_lost_when_the_kick_stops():
    # Ruling 5.
    state = position({"0o1": "e6"}, ball="e7", die=6)
    act(state, "pawn:o1", "n", "kick:n", "go:1", "stop")
    assert state.turn_seat == 1 and name(state.ball) == "e8"


# -- kicking -----------------------------------------------------------------------------------


def test_the_ball_is_blocked_by_opponents_and_the_edge_but_cuts_corners():
    # Rules :246-254; ruling 9.
    state = position({"0o1": "b6", "1o1": "b10", "1o2": "c8", "1o3": "b9"}, ball="b7", die=6)
    act(state, "pawn:o1", "n")
    assert "kick:w" not in ids(state) and "kick:nw" not in ids(state)  # out of bounds
    act(state, "kick:n")
    assert ids(state) == ("go:1",)  # b8, then the opponent on b9
    state = position({"0o1": "d6", "1o1": "e7", "1o2": "d8"}, ball="d7", die=3)
    act(state, "pawn:o1", "n", "kick:ne")
    assert "go:3" in ids(state)  # between d8 and e8, corner to corner


def test_a_bend_is_45_degrees_once_per_kick():
    # Rules :222-242.
    state = position({"0o1": "e6"}, ball="e7", die=6)
    act(state, "pawn:o1", "n", "kick:n", "go:2")
    assert ids(state) == ("stop", "bend:left", "bend:right")
    act(state, "bend:left")
    assert GAME.observe(state, 0).direction == pb.NW and GAME.observe(state, 0).bent
    act(state, "go:3")
    assert name(state.ball) == "b12" and state.turn_seat == 1  # no second bend
    assert last(state, "kick").turn == -1 and last(state, "kick").spaces == 5


def test_a_pass_is_a_new_kick_with_its_own_free_space_and_bend():
    # Rules :205-218, :242.
    state = position({"0o1": "e6", "0o2": "e10"}, ball="e7", die=4)
    act(state, "pawn:o1", "n", "kick:n", "go:3")  # e8 e9 e10: the teammate, 2 pips spent
    assert kind(state) == "kick" and state.kicker == 2 and state.pips == 1
    assert last(state, "kick").passed_to == "o2"
    act(state, "kick:e")
    assert ids(state) == ("go:1", "go:2")  # free + the last pip
    act(state, "go:1")
    assert ids(state) == ("stop", "bend:left", "bend:right")


def test_passing_back_is_allowed_but_a_kick_state_never_repeats():
    # Rules :216; ruling 8: with 0 pips, o1 -> o2 -> o1 would repeat (o1 on e7, 0 pips).
    state = position({"0o1": "e6", "0o2": "e9"}, ball="e7", die=2)
    act(state, "pawn:o1", "n", "kick:n", "go:1")  # e8; 1 pip left
    act(state, "bend:right")  # ne
    assert "go:1" in ids(state)
    state = position({"0o1": "e6", "0o2": "e9"}, ball="e7", die=1)
    act(state, "pawn:o1", "n")  # 0 pips: free space only
    assert state.visited == frozenset({(1, parse("e7"), 0)})
    act(state, "kick:n")
    assert ids(state) == ("go:1",)
    act(state, "go:1")  # e8, stops (o2 is 2 away)
    assert state.turn_seat == 1
    state = position({"0o1": "e6", "0o2": "e8"}, ball="e7", die=1)
    act(state, "pawn:o1", "n", "kick:n", "go:1")  # a pass to o2 with 0 pips
    assert state.kicker == 2
    assert "kick:s" not in ids(state)  # back to o1 with 0 pips: (o1, 0) again


def test_goals_from_the_front_of_net_and_off_the_post():
    # Rules :296-313, ruling 10; golden goal: the first goal wins (:317-321).
    for ball, direction in [("f13", "n"), ("e13", "n"), ("f13", "nw"), ("e13", "ne"), ("g13", "n")]:
        state = position({"0o1": ball[0] + "12", "1k": "b14"}, ball=ball, die=2, ending="golden")
        act(state, "pawn:o1", "n", f"kick:{direction}")
        assert ids(state) == (("go:1",) if ball == "g13" else ("go:1", "goal:2")), (ball, direction)
    # The Keeper blocks its space: from e13 straight on it cannot pass e14.
    state = position({"0o1": "e12"}, ball="e13", die=2, ending="golden")
    act(state, "pawn:o1", "n")
    assert "kick:n" not in ids(state)
    # From d14 straight across the end line: beside the net, not offered.
    state = position({"0o1": "d12"}, ball="d13", die=2, ending="golden")
    act(state, "pawn:o1", "n", "kick:n")
    assert ids(state) == ("go:1",)
    # Off the post from d14 towards ne (the Keeper on e14 is corner to corner).
    state = position({"0o1": "c12"}, ball="c13", die=2, ending="golden")
    act(state, "pawn:o1", "n", "kick:ne")
    assert ids(state) == ("go:1", "goal:2")
    act(state, "goal:2")
    detail = last(state, "kick")
    assert detail.goal and list(detail.goals) == [1, 0]
    assert not state.pending and GAME.result(state).ranks == (1, 2)
    assert last(state, "end").seat == 0


def test_no_goal_into_your_own_net():
    state = position({"0o1": "g3", "0k": "e1"}, ball="f2", die=2)
    act(state, "pawn:o1", "w", "s")  # o1 enters f2 from g2? no: g3 -> f3 -> f2
    assert kind(state) == "kick"
    act(state, "kick:s")
    assert not any(i.startswith("goal:") for i in ids(state))


def test_front_of_net_exception_moves_the_kicker_aside():
    # Rules :283-292, :351-360; ruling 11.
    state = position({"0o1": "f12"}, ball="f14", die=3)
    act(state, "pawn:o1", "n", "n")  # into the ball's space in front of seat 1's net
    assert kind(state) == "kick" and state.relocator == 1 and state.pips == 1
    act(state, "kick:s", "go:2")  # f13, f12: the walk came from there, now empty
    assert kind(state) == "step" and ids(state) == ("e", "s")  # g14 or f13? f13 is... free again
    act(state, "e")
    assert cell_of(state, "0o1") == "g14" and state.turn_seat == 1


def test_front_of_net_exception_with_a_goal_and_the_restart():
    # Rules :283-292 and :406-418 (Time Limit: the match goes on after a goal).
    state = position({"0o1": "f12"}, ball="f14", die=3, restart=[1, 4], rolls=[2])
    act(state, "pawn:o1", "n", "n", "kick:n", "goal:1")
    assert list(state.goals) == [1, 0]
    assert kind(state) == "step" and state.phase == pb.PHASE_RELOCATE
    assert ids(state) == ("e", "s")  # g14 or f13 (e14 holds the Keeper, n is the net)
    act(state, "e")
    assert cell_of(state, "0o1") == "g14" and last(state, "step").free
    # Seat 1 restarts: its Keeper in front of its net, roll (1 rerolled), an exact kick.
    assert state.turn_seat == 1 and kind(state) == "place" and ids(state) == ("keeper:e14", "keeper:f14")
    act(state, "keeper:f14")
    detail = last(state, "kickoff")
    assert detail.restart and list(detail.rolls) == [1, 4] and detail.spaces == 4
    assert name(state.ball) == "f14" and state.no_goal and GAME.observe(state, 1).exact == 4
    act(state, "kick:s", "go:4")
    assert name(state.ball) == "f10" and state.turns == 2 and state.turn_seat == 0


def test_outfielders_never_end_in_front_of_a_net_keepers_only_their_own():
    # Rules :83, :272, :351-355.
    state = position({"0o1": "e3", "0k": "b1"}, ball="e10", die=2)
    act(state, "pawn:o1", "s")
    assert "s" not in ids(state)  # e1: front of seat 0's net
    state = position({"0o1": "e3", "0k": "e2"}, ball="e10", die=1)
    act(state, "pawn:k")
    assert "s" in ids(state)  # the Keeper may end there


def test_a_keeper_may_not_end_its_turn_in_front_of_the_opponents_net():
    # Rules :83 "Only the defending Keeper may end their turn in these spaces"; :272 "in front of your net".
    state = position({"0k": "f12"}, ball="e8", die=2)
    act(state, "pawn:k", "n")
    assert ids(state) == ("e", "s", "w")  # not n: f14 is in front of seat 1's net
    state = position({"0k": "f12"}, ball="e8", die=3)
    act(state, "pawn:k", "n")
    assert ids(state) == ("n", "e", "s", "w")  # through f14 with a pip to spare
    act(state, "n")
    assert ids(state) == ("e", "s")  # g14 or back to f13 (seat 1's Keeper holds e14)


def test_penalty_box_limit():
    # Rules :73, :343-347: at most 1 defending Outfielder in the own box at the end of a turn.
    state = position({"0o1": "c2", "0o2": "c5"}, ball="e10", die=2)
    act(state, "pawn:o2", "s")
    assert "s" not in ids(state)  # c3 is in the box, c2 already holds o1


def test_leave_a_path_to_the_ball():
    # Rules :335-339: seat 1 must be able to walk to the ball through empty field spaces.
    state = position({"0o1": "c14", "0o2": "b12", "1k": "f14"}, ball="b14", die=1)
    assert reach_region(state.occ, state.ball, 1)
    act(state, "pawn:o2")
    assert "n" not in ids(state)  # b13 would seal b14 off (c14 is taken, a/15 are out of bounds)


def test_leave_a_path_to_the_ball_after_a_kick():
    # Rules :335-339 "Your opponent must have a clear path from at least 1 of their players to the
    # Ball": a kick may not stop where seat 1 cannot walk to the ball.
    state = position({"0o1": "c14", "0o3": "c13", "0o2": "b11"}, ball="b12", die=2)
    act(state, "pawn:o2", "n", "kick:n")  # o2 on b12 with 1 pip: up to 2 spaces
    assert ids(state) == ("go:1",)  # not go:2: b14 is sealed by o2 (b12), o3 (c13) and o1 (c14)
    act(state, "go:1")
    assert name(state.ball) == "b13" and ids(state) == ("bend:right",)  # no stop on b13: the pass to c14


def test_no_legal_turn_passes_the_turn():
    # Ruling 6: seat 0's pawns are packed along row 0; only o1 (d1) can move, into e1, which is
    # in front of its own net: no full walk, no shorter one either, so the turn passes.
    pawns = {
        "0o3": "a0",
        "0o4": "b0",
        "0o2": "c0",
        "0k": "d0",
        "0o1": "d1",
        "1o1": "a1",
        "1o2": "b1",
        "1o3": "c1",
        "1o4": "d2",
    }
    state = position(pawns, ball="e8", die=2, rolls=[4, 1])
    act(state, "pawn:o1", "e", "w")  # die 2: e1 and back is a full walk
    assert state.turn_seat == 1 and kind(state) == "pawn"
    act(state, "pawn:k", "e", "w", "e", "w")  # seat 1's turn; seat 0 then rolls 1
    rolls = [e.detail for e in state.log.events if e.kind == "roll"]
    assert [(r.seat, r.spaces, r.stuck) for r in rolls[-2:]] == [(0, 1, True), (1, rolls[-1].spaces, False)]
    assert state.turn_seat == 1 and state.turns == 3


def test_a_short_walk_may_stop():
    # Ruling 6: when no pawn can spend every pip, "stop" ends the walk early.
    state = position({"0o1": "b5"}, ball="e10", die=3)
    state.short = True
    GAME.refresh(state)
    act(state, "pawn:o1", "n")
    assert "stop" in ids(state)
    act(state, "stop")
    assert state.turn_seat == 1


# -- endings -----------------------------------------------------------------------------------


def test_time_limit_ends_after_25_rounds_and_equal_goals_draw():
    # Rules :370-376; ruling 1, 2.
    state = position({"0o1": "b5"}, ball="e10", die=2, turns=49)
    assert GAME.observe(state, 0).turns_limit == 50
    act(state, "pawn:o1", "w", "e")
    assert not state.pending and state.turns == 50
    result = GAME.result(state)
    assert result.scores == (0, 0) and result.ranks == (1, 1)
    assert last(state, "end").seat == -1


def test_time_limit_most_goals_wins():
    state = position({"0o1": "b5"}, ball="e10", die=2, turns=49, goals=(1, 2))
    act(state, "pawn:o1", "w", "e")
    assert GAME.result(state).ranks == (2, 1)


def test_first_to_3():
    # Rules :380-386.
    state = position({"0o1": "f13"}, ball="f14", die=1, goals=(2, 1), ending="first3")
    act(state, "pawn:o1", "n", "kick:n", "goal:1")
    assert not state.pending and GAME.result(state).scores == (3, 1)
    state = position({"0o1": "f13"}, ball="f14", die=1, goals=(1, 1), ending="first3")
    act(state, "pawn:o1", "n", "kick:n", "goal:1", "s")
    assert state.pending and kind(state) == "place" and state.turn_seat == 1


def test_last_chance_three_rounds_to_tie():
    # Rules :390-402; ruling 3: 6 turns after the goal, the restart first.
    state = position({"0o1": "f13"}, ball="f14", die=1, ending="last", restart=[3], rolls=[2])
    act(state, "pawn:o1", "n", "kick:n", "goal:1", "s")
    assert state.countdown == 6 and GAME.observe(state, 1).countdown == 6
    act(state, "keeper:e14", "kick:s", "go:3")  # seat 1's restart: the first of its 6 turns
    assert state.countdown == 5 and state.turn_seat == 0
    state.countdown = 1  # ... four turns later: the last one
    GAME.refresh(state)
    act(state, "pawn:o4", "n", "s")
    assert not state.pending and GAME.result(state).ranks == (1, 2)


def test_last_chance_a_tie_cancels_the_count():
    state = position({"1o1": "e3"}, ball="e2", seat=1, die=2, goals=(1, 0), ending="last")
    state.countdown = 3
    GAME.refresh(state)
    act(state, "pawn:o1", "s", "kick:s", "goal:2")
    assert state.goals == [1, 1] and state.countdown == -1 and state.pending


def test_every_ending_stops_at_the_time_limit():
    for ending in ("golden", "first3", "last"):
        state = position({"0o1": "b5"}, ball="e10", die=2, turns=9, ending=ending, rounds=5)
        act(state, "pawn:o1", "w", "e")
        assert not state.pending, ending


# -- information and invariants ----------------------------------------------------------------


def test_everything_is_public_and_the_future_is_not_shown():
    # No hidden information: both seats see the same observation (apart from `seat`) and every
    # event; two matches that differ only in future dice look the same.
    a = position({"0o1": "e6"}, ball="e7", die=3, rolls=[1, 1, 1])
    b = position({"0o1": "e6"}, ball="e7", die=3, rolls=[6, 6, 6])
    for seat in (0, 1):
        assert observation_bytes(GAME, a, seat) == observation_bytes(GAME, b, seat)
        assert visible_events(a, seat) == visible_events(b, seat)
    obs0, obs1 = GAME.observe(a, 0), GAME.observe(a, 1)
    obs1.seat = 0
    assert obs0 == obs1
    assert all(e.to is None for e in a.log.events)
    assert GAME.observe(a, SPECTATOR).spectator


def test_illegal_choices_change_nothing():
    for seed in range(3):
        check_illegal_rejected(GAME, GAME.config(2, {"rounds": 4}), seed, every=3)


def test_sample_world_is_the_same_position_with_fresh_dice():
    state = position({"0o1": "e6"}, ball="e7", die=3)
    world = GAME.sample_world(state, 1, Chance(9))
    assert world.occ == state.occ and world.ball == state.ball and world.chance is not state.chance
    assert observation_bytes(GAME, world, 1) == observation_bytes(GAME, state, 1)


def test_sampled_worlds_roll_fresh_uniform_dice():
    # The only thing a seat cannot know is the future: a sampled world's next roll is uniform.
    state = position({"0o1": "b5"}, ball="e10", die=1)
    act(state, "pawn:o1")
    rolls = Counter()
    for i in range(3000):
        world = GAME.sample_world(state, 0, Chance(i))
        GAME.apply(world, {0: "w"})
        rolls[world.die] += 1
    assert chisquare([rolls[face] for face in range(1, 7)]).pvalue > 0.001


def _world(state: GoldenGoalState, seat: int = 0) -> GoldenGoalState:
    world = GAME.world_from_observation(state.config, seat, GAME.observe(state, seat), Chance(4))
    assert observation_bytes(GAME, world, seat) == observation_bytes(GAME, state, seat)
    return world


def test_a_pawn_that_kicked_from_in_front_of_the_net_and_moved_aside_may_be_passed_back_to():
    # Rules :213-216 "Pass back to a player who already kicked during the same turn", :289-292
    # (the kicker in front of the net moves aside): o2 kicks from f1 with 0 pips, steps to f2,
    # and o1's pass back reaches it on a new space, a new kick state (ruling 8, version 2.0;
    # keyed on the pawn and its pips alone the pass was refused).
    state = position(
        {"0k": "h12", "0o1": "g2", "0o2": "f13", "0o3": "b3", "0o4": "i3",
         "1k": "b13", "1o1": "e2", "1o2": "f3", "1o3": "i1", "1o4": "e13"},
        ball="f1", seat=1, die=2,
    )  # fmt: skip
    act(state, "pawn:o2", "s", "s", "kick:nw", "go:1")  # f1 -> e2, to o1
    act(state, "n")  # o2 moves aside from f1 to f2
    assert state.visited == frozenset({(7, parse("f1"), 0), (6, parse("e2"), 0)})
    assert "kick:e" in ids(state)  # back to o2, now on f2
    act(state, "kick:e", "go:1")
    assert state.visited == frozenset({(7, parse("f1"), 0), (6, parse("e2"), 0), (7, parse("f2"), 0)})
    assert GAME.observe(state, 0).kicked == ["o1@e2:0", "o2@f1:0", "o2@f2:0"]
    assert "kick:ne" in ids(state)  # o2 on to g3 ends a legal turn
    act(state, "kick:ne", "go:1")
    assert state.ball == parse("g3") and state.turn_seat == 0


def test_world_from_observation_rebuilds_a_bent_kick_and_a_pass():
    state = position({"0o1": "e6"}, ball="e7", die=6)
    act(state, "pawn:o1", "n", "kick:n", "go:2", "bend:left")  # e9, now nw: 3 pips after the free space
    world = _world(state)
    kick = ("kicker", "kick_from", "dir1", "direction", "leg1", "bend", "spaces", "path", "pips", "kick_free")
    assert [getattr(world, f) for f in kick] == [getattr(state, f) for f in kick]
    assert (world.dir1, world.bend, world.spaces, world.pips) == (0, -1, 2, 5)
    assert ids(world) == ids(state) == ("go:1", "go:2", "go:3")
    state = position({"0o1": "e6", "0o2": "e10"}, ball="e7", die=4)
    act(state, "pawn:o1", "n", "kick:n", "go:3")  # a pass to o2 with 1 pip
    world = _world(state)
    kicks = frozenset({(1, parse("e7"), 3), (2, parse("e10"), 1)})
    assert (world.kicker, world.pips, world.kick_free, world.visited) == (2, 1, 1, kicks)
    assert ids(world) == ids(state)


def test_world_from_observation_keeps_the_front_of_net_move_and_the_restart():
    state = position({"0o1": "f12"}, ball="f14", die=3, restart=[1, 4], rolls=[2])
    act(state, "pawn:o1", "n", "n")
    world = _world(state)
    assert world.relocator == 1 and world.kick_free == 1 and ids(world) == ids(state)
    act(state, "kick:n", "goal:1")  # a goal: o1 moves aside first
    world = _world(state)
    assert (world.phase, world.relocator, world.after, world.ball) == (pb.PHASE_RELOCATE, 1, state.after, -1)
    assert ids(world) == ids(state) == ("e", "s")
    act(state, "e", "keeper:f14")  # seat 1 restarts with an exact 4
    world = _world(state, 1)
    assert (world.kick_free, world.exact, world.relax, world.kickoff, world.no_goal) == (0, True, 0, False, True)
    assert ids(world) == ids(state)
    GAME.apply(world, {1: "kick:s"})
    GAME.apply(state, {1: "kick:s"})
    assert ids(world) == ids(state)


def _turn_start_checks(state: GoldenGoalState) -> None:
    """The No Killjoy Rules hold whenever a turn starts."""
    seat = state.turn_seat
    assert reach_region(state.occ, state.ball, seat) or state.relax >= 2
    for code in range(10):
        c = state.pos[code]
        if FRONT[c] >= 0:
            assert code % 5 == 0 and FRONT[c] == code // 5
    for s in (0, 1):
        assert sum(BOX[state.pos[s * 5 + i]] == s for i in range(1, 5)) <= 1


def test_playout_invariants_over_2000_games():
    # Components conserved (10 pawns on distinct spaces, occupancy consistent, the ball on an
    # empty field space between turns), goals = goal kicks, the end as the ending says, and a
    # bound: at most 2 x rounds turns, at most 160 decisions in a turn (1 pawn + 6 steps + at
    # most 35 distinct kicks (pawn, pips) of <= 4 decisions + 1 move aside; a restart: 1 + 140),
    # 10 placements and a Kickoff of at most 140.
    endings = ("time", "golden", "first3", "last")
    for seed in range(2000):
        config = GAME.config(2, {"ending": endings[seed % 4], "rounds": 3})
        state = GAME.new_match(config, seed)
        rng = Chance(seed)
        decisions_in_turn = 0
        while state.pending:
            (decision,) = state.pending
            if decision.kind == "pawn":
                _turn_start_checks(state)
                assert KIND[state.ball] == FIELD and state.occ[state.ball] < 0
            if decision.kind == "pawn" or state.phase == pb.PHASE_RESTART:
                decisions_in_turn = 0
            GAME.advance(state, {decision.seat: decision.options[rng.below(len(decision.options), "t")]})
            decisions_in_turn += 1
            assert decisions_in_turn <= 160
        placed = [c for c in state.pos if c >= 0]
        assert len(placed) == len(set(placed)) == 10
        assert all(state.occ[c] == code for code, c in enumerate(state.pos))
        assert sum(o >= 0 for o in state.occ) == 10
        goal_kicks = [e.detail.seat for e in state.log.events if e.kind == "kick" and e.detail.goal]
        assert state.goals == [goal_kicks.count(0), goal_kicks.count(1)]
        assert state.turns <= 6 and state.steps <= 10 + 7 * 160
        result = GAME.result(state)
        assert list(result.scores) == state.goals
        if state.goals[0] == state.goals[1]:
            assert result.ranks == (1, 1) and state.turns == 6
        if config["ending"] == "golden":
            assert sum(state.goals) <= 1


# -- bots --------------------------------------------------------------------------------------


def test_heuristic_bot_plays_legal_options_and_beats_random():
    config = GAME.config(2, {"rounds": 8})
    wins = 0.0
    for match in range(6):
        seat = match % 2
        specs = ["random", "random"]
        specs[seat] = "heuristic"
        record = play_match(GAME, config, 500 + match, [make_bot(s, "goldengoal") for s in specs])
        ranks = record.result["ranks"]
        wins += (ranks[seat] == 1) / ranks.count(1)
    assert wins >= 5


def test_option_ids_follow_the_documented_grammar():
    grammar = re.compile(
        r"^(keeper|outfielder):[a-j]\d+$|^pawn:(k|o[1-4])$|^(n|e|s|w|stop)$|^kick:(n|ne|e|se|s|sw|w|nw)$"
        r"|^(go|goal):\d$|^bend:(left|right)$"
    )
    state = GAME.new_match(GAME.config(2, {"rounds": 3}), 5)
    rng = Chance(5)
    while state.pending:
        (decision,) = state.pending
        assert all(grammar.match(i) for i in decision.option_ids), decision.option_ids
        GAME.apply(state, {decision.seat: rng.pick(decision.options, "t").id})


@pytest.mark.parametrize("ending", ["time", "golden", "first3", "last"])
def test_every_ending_is_a_variant_or_the_default(ending):
    config = GAME.config(2, {"ending": ending})
    assert config["ending"] == ending and config["rounds"] == 25


def test_refresh_after_an_edit_recomputes_the_pawn_options():
    # The options computed when a turn begins are reused only for the position they fit.
    state = position({"0o1": "b5"}, ball="e10", die=2)
    act(state, "pawn:o1", "w", "e")  # seat 1's turn begins: its options are cached
    assert state.pawn_options and ids(state) == tuple(o.id for o in state.pawn_options)
    state.ball = parse("e12")
    state.pawn_options = ()
    GAME.refresh(state)
    assert len(ids(state)) == 5


def bot_plays(state: GoldenGoalState, bot_spec: str = "heuristic") -> list[str]:
    """The heuristic's choices until the turn passes to the other seat (or the match ends)."""
    bot = make_bot(bot_spec, "goldengoal")
    seat = state.turn_seat
    chosen = []
    while state.pending and state.pending[0].seat == seat:
        (decision,) = state.pending
        request = decision_request(GAME, state, decision, index=len(chosen), events=[], simultaneous=False)
        choice = bot.decide(request)
        chosen.append(choice)
        GAME.apply(state, {seat: choice})
    return chosen


def test_heuristic_shoots_when_a_goal_is_on():
    state = position({"0o1": "f11", "0o2": "b5"}, ball="f12", die=3, ending="golden")
    assert bot_plays(state) == ["pawn:o1", "n", "kick:n", "goal:3"]
    assert GAME.result(state).ranks == (1, 2)


def test_heuristic_reaches_the_ball_and_kicks_it_forward():
    state = position({"0o1": "e5", "0o2": "e11"}, ball="e7", die=4)
    plays = bot_plays(state)
    assert plays[:3] == ["pawn:o1", "n", "n"] and plays[3].startswith("kick:")
    assert state.ball // 10 > 7  # the ball went up the field (towards seat 1's net)


SEED_2 = {"0o1": "e7", "0o2": "c4", "0o3": "g11", "0o4": "c10"} | {"1o1": "f8", "1o2": "c11", "1o4": "c3"}


@pytest.mark.parametrize(
    ("keeper", "blocker", "ball", "die", "walk"),
    [("e1", "g4", "h4", 6, ["n", "n", "e", "e", "e", "n"]), ("g3", "h4", "i4", 3, ["e", "e", "n"])],
)
def test_heuristic_walks_round_a_blocker_to_the_ball(keeper, blocker, ball, die, walk):
    """The pawn chosen because it reaches the ball walks the shortest free path there (an outside
    probe: ending=golden seed 2, steps 21 and 32, its Keeper stepped by straight-line distance,
    went behind seat 1's o3 and ended beside the ball without kicking; the match was lost 0-1)."""
    state = position(SEED_2 | {"0k": keeper, "1k": "e14", "1o3": blocker}, ball=ball, die=die, ending="golden")
    plays = bot_plays(state)
    assert plays[: len(walk) + 1] == ["pawn:k", *walk] and plays[len(walk) + 1].startswith("kick:")
    assert cell_of(state, "0k") == ball


@pytest.mark.parametrize(("ending", "turns"), [("golden", 10), ("first3", 10), ("time", 49)])
def test_the_turn_of_a_match_ending_goal_is_counted(ending, turns):
    """turns_played counts the last turn whatever ends the match (version 2.1): a golden goal's
    turn was left out, a time-limited match's last turn counted (a rules probe)."""
    st = position(
        {"0o1": "f11"}, ball="f12", die=3, ending=ending, turns=turns, goals=(2, 0) if ending == "first3" else (0, 0)
    )
    act(st, "pawn:o1", "n", "kick:n", "goal:3")
    assert GAME.is_over(st) and GAME.observe(st, 0).turns_played == turns + 1


def kickoff_kick(seat: int, kicker: str, opponents: list[str], distance: int) -> GoldenGoalState:
    """A Kickoff taker of ``seat`` at ``kicker`` about to kick ``distance`` spaces, the other
    seat's five pawns at ``opponents``, its own four far off on the a column."""
    state = GAME.new_match(GAME.config(2), 1)
    taker = seat * 5 + 1
    where = {taker: parse(kicker)}
    where |= {(1 - seat) * 5 + j: parse(c) for j, c in enumerate(opponents)}
    own = iter(["a2", "a6", "a10", "a14"])
    where |= {code: parse(next(own)) for code in range(seat * 5, seat * 5 + 5) if code != taker}
    state.occ = [-1] * len(state.occ)
    for code, c in where.items():
        state.pos[code] = c
        state.occ[c] = code
    state.placed = [5, 5]
    state.ball = parse(kicker)
    state.kickoff, state.kickoff_seat, state.turn_seat = True, seat, seat
    state.no_goal, state.visited, state.relocator, state.mover = True, frozenset(), -1, -1
    GAME._start_kick(state, taker, distance, free=0, exact=True)
    GAME.refresh(state)
    return state


@pytest.mark.parametrize("seat", [0, 1])
def test_a_kickoff_with_no_kick_of_its_distance_may_kick_shorter(seat):
    """Ruling 7's first fallback, which random play never reaches (a rules probe): a taker in
    the corner at i14 hemmed in by g11, i12, h11, h13, h14 has no 4-space kick; a shorter one
    is offered (south, the one way out), where with the field open the exact kick stands."""
    hemmed = kickoff_kick(seat, "i14", ["g11", "i12", "h11", "h13", "h14"], 4)
    assert hemmed.relax == 1 and [[o.id for o in d.options] for d in hemmed.pending] == [["kick:s"]]
    open_field = kickoff_kick(seat, "i14", ["b3", "c3", "d3", "e3", "f3"], 4)
    assert open_field.relax == 0 and open_field.pending
