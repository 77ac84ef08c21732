"""Get Bit!: every rule of shared/rules/getbit.md and its rulings (NOTES.md §4.7), pinned."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.getbit import GAME
from arena.games.getbit.game import (
    LIMBS,
    ROBOT,
    SHARK_CARDS,
    GetBitState,
    move_figures,
    swimmers_win_order,
)
from arena.games.v1 import getbit_pb2 as pb
from arena.runner import play_match
from arena.scenario import request_for
from bots.games.getbit import ROLLOUT, ROLLOUT_POLICY, ROLLOUT_SAMPLES, view_from_observation, view_from_world
from bots.registry import make_bot, rollout_policy
from tests.contract import assert_same_view, configurations, observation_bytes, random_playout

RA, LA, RL, LL = LIMBS


def new(players: int = 4, line=(0, 1, 2, 3), robot=(), **options) -> GetBitState:
    orders: dict[str, list] = {"line": [list(line)]}
    if robot:
        orders["robot"] = [list(order) for order in robot]
    return GAME.new_match(GAME.config(players, options), chance=PresetChance(orders=orders, strict=True))


def play(state: GetBitState, **choices: int | str) -> None:
    """One step: ``s0=4`` plays card 4 for seat 0, ``s0="shark:exhaustion"`` any option id."""
    GAME.apply(state, {int(k[1:]): v if isinstance(v, str) else f"card:{v}" for k, v in choices.items()})


def redecide(state: GetBitState) -> None:
    """Recompute the pending decisions after a test has built a position directly."""
    GAME.refresh(state)


def events_since(state: GetBitState, start: int) -> list[tuple[str, str]]:
    return [(e.kind, e.text) for e in state.log.events[start:]]


# --------------------------------------------------------------------------------------------
# Setup


@pytest.mark.parametrize(
    ("players", "options", "owners", "highest", "hunger"),
    [
        (2, {}, [0, 0, 1, 1], 5, None),  # 2p: two figures each, 4-figure setup (ruling 5)
        (3, {}, [0, 1, 2, ROBOT], 5, None),  # 3p: the robot, 4-player setup [:244-250]
        (4, {}, [0, 1, 2, 3], 5, None),  # remove the 6 and 7 [:47]
        (5, {}, [0, 1, 2, 3, 4], 6, None),  # remove the 7 [:49]
        (6, {}, [0, 1, 2, 3, 4, 5], 7, None),  # use all cards [:51]
        (4, {"shark": True}, [1, 2, 3, ROBOT], 5, 3),  # 3 swimmers + robot; tokens per player
        (5, {"shark": True}, [1, 2, 3, 4], 5, 4),
        (6, {"shark": True}, [1, 2, 3, 4, 5], 6, 5),
        (7, {"shark": True}, [1, 2, 3, 4, 5, 6], 7, 6),
    ],
)
def test_setup_by_player_count(players, options, owners, highest, hunger):
    state = GAME.new_match(GAME.config(players, options), seed=1)
    assert [f.owner for f in state.figures] == owners
    assert state.highest == highest
    for figure in state.figures:
        assert sorted(figure.hand) == list(range(1, highest + 1))
        assert figure.limbs == [RA, LA, RL, LL]
    assert sorted(state.line) == list(range(len(owners)))
    assert (state.shark.hunger if state.shark else None) == hunger
    if state.shark:
        assert state.shark.seat == 0 and state.shark.hand == list(SHARK_CARDS)


@pytest.mark.parametrize(("players", "options"), [(7, {}), (2, {"shark": True}), (3, {"shark": True}), (8, {})])
def test_unsupported_configurations_are_rejected(players, options):
    with pytest.raises(ConfigError):
        GAME.config(players, options)


def test_line_starts_in_random_order_from_the_line_label():
    state = new(5, line=(3, 0, 4, 1, 2))
    assert state.line == [3, 0, 4, 1, 2]
    assert state.log.events[-2].kind == "line"
    assert state.log.events[-2].text == "starting line, front to back: green, red, blue, orange, yellow"


def test_everyone_chooses_a_card_at_once():
    state = new(4)
    assert [(d.seat, d.kind) for d in state.pending] == [(s, "choose_card") for s in range(4)]
    assert state.pending[0].option_ids == ("card:1", "card:2", "card:3", "card:4", "card:5")
    assert state.pending[2].options[3].label == "play 4 with yellow"
    assert state.pending[2].options[3].action == pb.Action(play=pb.PlayCard(figure=2, card=4))


# --------------------------------------------------------------------------------------------
# Moving


@pytest.mark.parametrize(
    ("line", "cards", "after", "tied"),
    [
        # The rulebook example [:181-212]: John, Anne, Beth, Ted play 4, 1, 4, 5.
        ([0, 1, 2, 3], {0: 4, 1: 1, 2: 4, 3: 5}, [3, 1, 0, 2], [4]),
        # All unique: the highest ends in front, the lowest right behind the others' moves.
        ([0, 1, 2, 3], {0: 1, 1: 2, 2: 3, 3: 4}, [3, 2, 1, 0], []),
        ([0, 1, 2, 3], {0: 4, 1: 3, 2: 2, 3: 1}, [0, 1, 2, 3], []),
        # All tied: nobody moves [:102-104].
        ([2, 0, 3, 1], {0: 3, 1: 3, 2: 3, 3: 3}, [2, 0, 3, 1], [3]),
        # Two ties and one unique card.
        ([0, 1, 2, 3, 4], {0: 2, 1: 5, 2: 2, 3: 5, 4: 1}, [4, 0, 1, 2, 3], [2, 5]),
        # A figure without a card (Shark variant, all discarded) stays put.
        ([0, 1, 2], {0: 1, 2: 2}, [2, 0, 1], []),
    ],
)
def test_move_figures(line, cards, after, tied):
    assert move_figures(line, cards) == (after, tied)


def test_rulebook_example_in_round_one_has_no_bite():
    # John 0, Anne 1, Beth 2, Ted 3, front to back [:183-212]; round 1 skips Get Bit! [:76].
    state = new(4)
    play(state, s0=4, s1=1, s2=4, s3=5)
    assert state.line == [3, 1, 0, 2]  # Ted, Anne, John, Beth
    assert all(f.limbs == [RA, LA, RL, LL] for f in state.figures)
    assert state.figures[2].played == [4] and state.figures[2].hand == [1, 2, 3, 5]
    assert state.round == 2
    assert ("no-bite", "round 1: the shark does not bite") in events_since(state, 0)


def test_rulebook_example_with_the_bite():
    # Round 1: everyone ties on 2, the line stays John, Anne, Beth, Ted. Round 2 is the example.
    state = new(4)
    play(state, s0=2, s1=2, s2=2, s3=2)
    assert state.line == [0, 1, 2, 3]
    start = len(state.log)
    play(state, s0=4, s1=1, s2=4, s3=5)
    assert state.last_reveal.line_after_moves == [3, 1, 0, 2]  # Ted, Anne, John, Beth
    # Beth is bitten: loses a limb, moves to the front, takes back all her cards [:214-220].
    assert state.line == [2, 3, 1, 0]  # Beth, Ted, Anne, John
    beth = state.figures[2]
    assert beth.limbs == [LA, RL, LL]
    assert beth.hand == [1, 2, 3, 4, 5] and beth.played == []
    assert state.figures[0].hand == [1, 3, 5] and state.figures[0].played == [2, 4]
    assert events_since(state, start) == [
        ("reveal", "red reveals 4"),
        ("reveal", "orange reveals 1"),
        ("reveal", "yellow reveals 4"),
        ("reveal", "green reveals 5"),
        ("tie", "red and yellow tie on 4 and stay"),
        ("line", "after moving, front to back: green, orange, red, yellow"),
        (
            "bite",
            "yellow is bitten: loses the right arm (3 left), moves to the front and takes back 2 cards",
        ),
        ("round", "round 3"),
    ]


def test_limbs_are_lost_in_the_rulebook_order():
    state = new(4)
    play(state, s0=1, s1=1, s2=1, s3=1)
    for expected in ([LA, RL, LL], [RL, LL], [LL]):
        state.line = [0, 1, 2, 3]
        for figure in state.figures:  # a full hand each round, so the same cards can be played
            figure.hand, figure.played = [1, 2, 3, 4, 5], []
        redecide(state)
        play(state, s0=4, s1=3, s2=2, s3=1)  # unique, descending: nobody changes place
        assert state.figures[3].limbs == expected


# --------------------------------------------------------------------------------------------
# Hand refresh


def test_a_hand_of_one_card_takes_back_the_played_cards():
    state = new(4)
    play(state, s0=5, s1=1, s2=1, s3=1)  # red stays in front; the others tie
    play(state, s0=4, s1=2, s2=2, s3=2)  # green (back) bitten
    assert state.line == [3, 0, 1, 2]
    play(state, s0=3, s1=4, s2=4, s3=4)  # yellow (back) bitten
    assert state.figures[0].hand == [1, 2]  # two cards: no refresh yet
    assert state.figures[0].played == [5, 4, 3]
    assert state.line == [2, 0, 3, 1]
    start = len(state.log)
    play(state, s0=2, s1=5, s2=5, s3=5)  # orange (back) bitten; red is down to one card
    assert state.figures[0].hand == [1, 2, 3, 4, 5] and state.figures[0].played == []
    assert ("refresh", "red has one card left: takes back 4 cards") in events_since(state, start)
    assert state.figures[1].limbs == [LA, RL, LL]


# --------------------------------------------------------------------------------------------
# Devouring and the end


def in_round_two(state: GetBitState) -> GetBitState:
    state.round = 2
    redecide(state)
    return state


def devour_directly(state: GetBitState, *figures: int) -> None:
    for f in figures:
        state.figures[f].devoured = True
        state.figures[f].limbs = []
        state.line.remove(f)
        state.devoured.append(f)


def test_losing_the_last_limb_devours_and_two_left_ends_the_game():
    state = new(4)
    devour_directly(state, 2)
    state.figures[3].limbs = [LL]
    in_round_two(state)
    assert [d.seat for d in state.pending] == [0, 1, 3]
    play(state, s0=5, s1=4, s3=1)
    # Green (1) moves first, then orange, then red: green is at the back and loses its last
    # limb; two figures are left, so the shark devours the back one (orange) [:226-236].
    assert state.outcome == pb.ESCAPED and state.winner_figure == 0
    assert state.devoured == [2, 3, 1] and state.line == [0]
    assert state.figures[1].limbs == [RA, LA, RL, LL]  # devoured regardless of limbs [:232]
    assert not state.pending
    result = GAME.result(state)
    assert result.scores == (1.0, 0.0, 0.0, 0.0)
    assert result.ranks == (1, 2, 4, 3)  # escaped, devoured at the end, then reverse order
    assert result.summary == "seat 0 wins: red escapes"
    assert [text for _, text in events_since(state, len(state.log) - 4)] == [
        "green loses the left leg, its last limb",
        "green is devoured",
        "two figures are left: the shark devours orange",
        "red escapes and wins",
    ]


def test_a_devoured_figure_leaves_the_line_and_the_game_goes_on():
    state = in_round_two(new(5, line=(0, 1, 2, 3, 4)))
    state.figures[4].limbs = [LL]
    play(state, s0=5, s1=4, s2=3, s3=2, s4=1)  # nobody changes place; blue is at the back
    assert state.devoured == [4] and state.line == [0, 1, 2, 3]
    assert state.outcome == pb.OUTCOME_UNSPECIFIED
    assert [d.seat for d in state.pending] == [0, 1, 2, 3]


# --------------------------------------------------------------------------------------------
# 2-player variant


def test_two_players_choose_for_each_figure_in_turn_and_nothing_shows_before_the_reveal():
    state = new(2)
    assert [(d.seat, d.kind, d.options[0].label) for d in state.pending] == [
        (0, "choose_card", "play 1 with red"),
        (1, "choose_card", "play 1 with yellow"),
    ]
    events = len(state.log)
    play(state, s0=5, s1=3)
    assert len(state.log) == events  # sealed: nothing revealed yet
    assert state.figures[0].hand == [1, 2, 3, 4, 5]
    assert [(d.seat, d.options[0].label) for d in state.pending] == [
        (0, "play 1 with orange"),
        (1, "play 1 with green"),
    ]
    mine = GAME.observe(state, 0)
    assert mine.choosing_figure == 1 and mine.figures[0].chosen == 5
    assert GAME.observe(state, 1).figures[0].chosen == 0
    play(state, s0=4, s1=3)
    assert [e.text for e in state.log.events[events : events + 4]] == [
        "red reveals 5",
        "orange reveals 4",
        "yellow reveals 3",
        "green reveals 3",
    ]
    assert state.line == [0, 1, 2, 3] and state.round == 2


def test_two_players_losing_a_figure_loses_the_game():
    state = in_round_two(new(2))
    state.figures[3].limbs = [LL]
    play(state, s0=5, s1=4)  # red 5, yellow 4
    play(state, s0=3, s1=1)  # orange 3, green 1
    assert state.line == [0, 2, 1]
    assert state.outcome == pb.FIGURE_LOST and state.devoured == [3]
    assert GAME.result(state).ranks == (1, 2)
    assert GAME.result(state).scores == (1.0, 0.0)
    assert GAME.result(state).summary == "seat 0 wins: seat 1 lost green"
    assert state.log.events[-1].seat == 1
    assert state.log.events[-1].text == "has lost a figure and loses the game"


# --------------------------------------------------------------------------------------------
# 3-player variant: the robot swimmer


def test_robot_reveals_the_top_of_its_stack_with_the_players():
    state = new(3, robot=[(3, 1, 4, 5, 2)])
    assert [d.seat for d in state.pending] == [0, 1, 2]  # the robot does not decide
    play(state, s0=5, s1=4, s2=1)
    assert [e.text for e in state.log.events if e.kind == "reveal"] == [
        "red reveals 5",
        "orange reveals 4",
        "yellow reveals 1",
        "green (robot) reveals 3",
    ]
    assert state.line == [0, 1, 3, 2]
    assert state.figures[3].hand == [1, 4, 5, 2] and state.figures[3].played == [3]


def test_robot_reshuffles_all_its_cards_when_bitten():
    state = new(3, robot=[(3, 1, 4, 5, 2), (2, 5, 1, 4, 3)])
    play(state, s0=5, s1=4, s2=1)  # line: red, orange, green, yellow
    play(state, s0=4, s1=5, s2=3)  # the robot's 1 is the lowest card: it ends at the back
    assert state.last_reveal.line_after_moves == [1, 0, 2, 3]
    assert state.figures[3].limbs == [LA, RL, LL]
    assert state.figures[3].hand == [2, 5, 1, 4, 3] and state.figures[3].played == []
    assert state.line == [3, 1, 0, 2]


def test_robot_reshuffles_when_its_stack_is_down_to_one_card():
    state = new(3, robot=[(3, 1, 4, 5, 2), (4, 2, 5, 1, 3)])
    robot = state.figures[3]
    robot.hand, robot.played = [5, 2], [1, 3, 4]
    in_round_two(state)
    play(state, s0=1, s1=2, s2=3)  # the robot's 5 takes it to the front; red is bitten
    assert state.line == [0, 3, 2, 1]
    assert robot.hand == [4, 2, 5, 1, 3] and robot.played == []
    assert state.figures[0].limbs == [LA, RL, LL]


def test_when_the_robot_escapes_nobody_wins():
    state = new(3, robot=[(5, 1, 2, 3, 4)])
    devour_directly(state, 1)
    state.figures[2].limbs = [LL]
    in_round_two(state)
    play(state, s0=4, s2=1)  # robot 5 in front, red, yellow at the back (its last limb)
    assert state.outcome == pb.ESCAPED and state.winner_figure == 3
    result = GAME.result(state)
    assert result.scores == (0.0, 0.0, 0.0)
    assert result.ranks == (1, 3, 2)  # red lasted longest among the seats
    assert result.summary == "green (robot) escapes: no player wins"


# --------------------------------------------------------------------------------------------
# Memory variant


def test_memory_turns_played_cards_face_down_in_the_get_bit_phase():
    state = new(4, memory=True)
    play(state, s0=5, s1=4, s2=3, s3=2)  # round 1: no Get Bit! phase, cards stay face up
    other = GAME.observe(state, 1).figures[0]
    assert list(other.played) == [5] and other.face_down == 0
    assert other.hand_known and list(other.hand) == [1, 2, 3, 4]
    play(state, s0=4, s1=3, s2=2, s3=1)  # green bitten; the rest turn face down
    assert state.figures[0].face_down == 2
    other = GAME.observe(state, 1).figures[0]
    assert list(other.played) == [] and other.face_down == 2
    assert not other.hand_known and list(other.hand) == [] and other.hand_count == 3
    own = GAME.observe(state, 0).figures[0]
    assert list(own.played) == [5, 4] and list(own.hand) == [1, 2, 3]
    bitten = GAME.observe(state, 1).figures[3]
    assert bitten.hand_known and bitten.face_down == 0 and list(bitten.hand) == [1, 2, 3, 4, 5]
    assert list(GAME.observe(state, 1).last_reveal.plays) == []
    assert len(GAME.observe(state, SPECTATOR).last_reveal.plays) == 4
    assert ("face-down", "all played cards are turned face down") in events_since(state, 0)


# --------------------------------------------------------------------------------------------
# Shark variant (5 players: seat 0 is the Shark, seats 1-4 swim figures 0-3)


def shark_game(**limbs: list[int]) -> GetBitState:
    state = new(5, shark=True)
    assert [d.seat for d in state.pending] == [1, 2, 3, 4]  # no Shark card in round 1
    play(state, s1=1, s2=1, s3=1, s4=1)  # round 1: all tie, the line stays 0, 1, 2, 3
    for name, value in limbs.items():
        state.figures[int(name[1:])].limbs = value
    return state


def test_shark_decides_with_the_swimmers_from_round_two():
    state = shark_game()
    assert [(d.seat, d.kind) for d in state.pending] == [(0, "shark_card")] + [(s, "choose_card") for s in (1, 2, 3, 4)]
    assert state.pending[0].option_ids == (
        "shark:right-arm",
        "shark:left-arm",
        "shark:right-leg",
        "shark:left-leg",
        "shark:exhaustion",
        "shark:any-limb",
    )


def test_shark_limb_card_bites_that_limb():
    state = shark_game()
    play(state, s0="shark:left-leg", s1=5, s2=4, s3=3, s4=2)
    assert state.line == [3, 0, 1, 2]
    assert state.figures[3].limbs == [RA, LA, RL]
    assert state.figures[3].hand == [1, 2, 3, 4, 5]
    assert state.shark.hand == [
        pb.SHARK_RIGHT_ARM,
        pb.SHARK_LEFT_ARM,
        pb.SHARK_RIGHT_LEG,
        pb.EXHAUSTION,
        pb.ANY_LIMB,
    ]
    assert state.shark.played == [pb.SHARK_LEFT_LEG] and state.shark.hunger == 4


def test_shark_limb_card_misses_a_missing_limb():
    state = shark_game(f3=[LA, RL, LL])
    play(state, s0="shark:right-arm", s1=5, s2=4, s3=3, s4=2)
    assert state.line == [0, 1, 2, 3]  # the rear swimmer does not move [:438-442]
    assert state.figures[3].limbs == [LA, RL, LL] and state.figures[3].played == [1, 2]
    assert state.shark.hunger == 3
    assert state.shark.hand == list(SHARK_CARDS) and state.shark.played == []
    assert state.log.events[-2].text == "misses (green has no right arm): 3 hunger tokens left, takes back 1 card"


def test_exhaustion_discards_the_tied_cards():
    state = shark_game()
    play(state, s0="shark:exhaustion", s1=5, s2=5, s3=3, s4=2)
    assert state.line == [2, 3, 0, 1]
    assert state.figures[0].discarded == [5] and state.figures[0].played == [1]
    assert state.figures[1].discarded == [5]
    assert all(f.limbs == [RA, LA, RL, LL] for f in state.figures)
    assert state.shark.hunger == 4 and state.shark.played == [pb.EXHAUSTION]


@pytest.mark.parametrize("card", ["shark:exhaustion", "shark:any-limb"])
def test_exhaustion_and_any_limb_miss_without_ties(card):
    state = shark_game()
    play(state, s0=card, s1=5, s2=4, s3=3, s4=2)
    assert state.shark.hunger == 3 and state.shark.played == []
    assert all(f.limbs == [RA, LA, RL, LL] and not f.discarded for f in state.figures)


def test_any_limb_with_ties_lets_the_victim_choose():
    state = shark_game()
    play(state, s0="shark:any-limb", s1=5, s2=5, s3=3, s4=2)
    assert state.line == [2, 3, 0, 1]  # orange (seat 2) is at the back
    (decision,) = state.pending
    assert (decision.seat, decision.kind) == (2, "lose_limb")
    assert decision.option_ids == ("limb:right-arm", "limb:left-arm", "limb:right-leg", "limb:left-leg")
    assert GAME.observe(state, 2).limb_figure == 1 and GAME.observe(state, 1).limb_figure == -1
    play(state, s2="limb:left-leg")
    assert state.figures[1].limbs == [RA, LA, RL]
    assert state.line == [1, 2, 3, 0] and state.figures[1].hand == [1, 2, 3, 4, 5]
    assert state.round == 3


def test_any_limb_takes_the_last_limb_without_asking():
    state = shark_game(f1=[RL])
    play(state, s0="shark:any-limb", s1=5, s2=5, s3=3, s4=2)
    assert state.devoured == [1] and state.line == [2, 3, 0]
    assert [d.kind for d in state.pending] == ["shark_card", "choose_card", "choose_card", "choose_card"]


def test_last_hunger_token_lost_swimmers_win_by_limbs_then_front():
    state = shark_game(f0=[RA, LA, RL], f1=[RA, LA, RL])
    state.shark.hunger = 1
    play(state, s0="shark:exhaustion", s1=5, s2=4, s3=3, s4=2)
    assert state.outcome == pb.SWIMMERS_WIN
    assert swimmers_win_order(state.figures, state.line) == [2, 3, 0, 1]
    assert state.winner_figure == 2
    result = GAME.result(state)
    assert result.scores == (0.0, 0.0, 0.0, 1.0, 0.0)
    assert result.ranks == (5, 3, 4, 1, 2)  # the Shark last
    assert result.summary == "seat 3 wins: yellow wins with the most limbs"


def test_one_swimmer_left_the_shark_wins():
    state = shark_game(f1=[LL])
    devour_directly(state, 2, 3)
    redecide(state)
    play(state, s0="shark:left-leg", s1=5, s2=2)
    assert state.outcome == pb.SHARK_WINS
    result = GAME.result(state)
    assert result.scores == (1.0, 0.0, 0.0, 0.0, 0.0)
    assert result.ranks == (1, 2, 3, 5, 4)
    assert result.summary == "the Shark (seat 0) wins: one swimmer is left"


def test_no_two_figure_devouring_in_the_shark_variant():
    state = shark_game(f3=[LL])
    devour_directly(state, 2)
    redecide(state)
    play(state, s0="shark:left-leg", s1=5, s2=4, s4=2)
    assert state.line == [0, 1] and state.outcome == pb.OUTCOME_UNSPECIFIED


def test_shark_refreshes_at_one_card():
    state = shark_game()
    state.shark.hand = [pb.SHARK_RIGHT_ARM, pb.EXHAUSTION]
    state.shark.played = [pb.SHARK_LEFT_ARM, pb.SHARK_RIGHT_LEG, pb.SHARK_LEFT_LEG, pb.ANY_LIMB]
    redecide(state)
    play(state, s0="shark:right-arm", s1=5, s2=4, s3=3, s4=2)  # a hit, then one card left
    assert state.shark.hand == list(SHARK_CARDS) and state.shark.played == []


def test_a_swimmer_without_cards_sits_out():
    state = shark_game()
    figure = state.figures[0]
    figure.hand, figure.played, figure.discarded = [], [], [2, 3, 4, 5, 1]
    redecide(state)
    assert [d.seat for d in state.pending] == [0, 2, 3, 4]
    play(state, s0="shark:right-arm", s2=4, s3=3, s4=2)
    assert state.last_reveal.plays == [
        pb.Play(figure=1, card=4),
        pb.Play(figure=2, card=3),
        pb.Play(figure=3, card=2),
    ]


def test_robot_in_the_shark_game_loses_any_limb_in_the_fixed_order():
    state = new(4, shark=True, robot=[(1, 2, 3, 4, 5), (5, 4, 3, 2, 1)])
    play(state, s1=2, s2=3, s3=4)
    state.line = [0, 1, 2, 3]
    play(state, s0="shark:any-limb", s1=5, s2=5, s3=2)  # all tied: the robot (2) is at the back
    assert state.figures[3].limbs == [LA, RL, LL]
    assert state.figures[3].hand == [5, 4, 3, 2, 1]  # bitten: all its cards reshuffled
    assert state.line == [3, 0, 1, 2] and state.round == 3


# --------------------------------------------------------------------------------------------
# Illegal options, hidden information


def test_a_card_not_in_hand_is_rejected_and_changes_nothing():
    state = new(4)
    play(state, s0=5, s1=4, s2=3, s3=2)
    before = pickle.dumps(state)
    for bad in ("card:5", "card:6", "shark:any-limb"):
        with pytest.raises(IllegalChoice):
            GAME.apply(state, {0: bad, 1: "card:1", 2: "card:1", 3: "card:1"})
        assert pickle.dumps(state) == before


def test_robot_stack_order_never_leaks():
    a = new(3, robot=[(3, 1, 4, 5, 2)])
    b = new(3, robot=[(3, 5, 2, 1, 4)])  # same first card, different rest
    c = new(3, robot=[(2, 5, 4, 1, 3)])  # even the first card differs: unseen before the reveal
    for seat in range(3):
        assert_same_view(GAME, a, c, seat)
    for state in (a, b):
        play(state, s0=5, s1=4, s2=1)
    for seat in range(3):
        assert_same_view(GAME, a, b, seat)
    assert list(GAME.observe(a, 0).figures[3].stack) == []
    assert list(GAME.observe(a, SPECTATOR).figures[3].stack) == [1, 4, 5, 2]


def test_sealed_choices_never_leak():
    a, b = new(2), new(2)
    play(a, s0=3, s1=2)
    play(b, s0=4, s1=2)
    assert_same_view(GAME, a, b, 1)
    assert GAME.observe(a, 0).figures[0].chosen == 3


def test_shark_sealed_card_is_hidden_from_swimmers():
    state = shark_game()
    state.shark.chosen = pb.ANY_LIMB  # as if recorded before the others (not reachable otherwise)
    assert GAME.observe(state, 1).shark.chosen == 0
    assert GAME.observe(state, 0).shark.chosen == pb.ANY_LIMB


# --------------------------------------------------------------------------------------------
# Random playouts: conservation, consistent results, the game always ends


def check_invariants(state: GetBitState) -> None:
    cards = list(range(1, state.highest + 1))
    for figure in state.figures:
        assert sorted(figure.hand + figure.played + figure.discarded) == cards
        assert 0 <= figure.face_down <= len(figure.played)
        assert len(set(figure.limbs)) == len(figure.limbs) <= 4
        assert figure.devoured == (figure.id not in state.line) == (figure.id in state.devoured)
        if state.shark is None:
            assert figure.discarded == []
    assert len(set(state.line)) == len(state.line)
    for f, card in state.chosen.items():
        assert card in state.figures[f].hand
    if state.shark:
        assert sorted(state.shark.hand + state.shark.played) == sorted(SHARK_CARDS)
        assert 0 <= state.shark.hunger <= state.players - 1
    if not state.pending:
        check_result(state)


def check_result(state: GetBitState) -> None:
    result = GAME.result(state)
    assert sorted(result.ranks) == list(range(1, state.players + 1))  # a full order
    figures = state.figures
    if state.outcome == pb.ESCAPED:
        assert len(state.line) == 1 and state.winner_figure == state.line[0]
        assert len(state.devoured) == len(figures) - 1
        assert sum(result.scores) == (0 if figures[state.line[0]].robot else 1)
    elif state.outcome == pb.FIGURE_LOST:
        assert state.two_player and len(state.devoured) == 1
        loser = figures[state.devoured[0]].owner
        assert result.ranks[loser] == 2 and result.scores[1 - loser] == 1
    elif state.outcome == pb.SHARK_WINS:
        assert len(state.line) == 1 and result.ranks[0] == 1
    else:
        assert state.outcome == pb.SWIMMERS_WIN and state.shark.hunger == 0
        best = max(len(figures[f].limbs) for f in state.line)
        assert len(figures[state.winner_figure].limbs) == best
        assert result.ranks[0] == state.players


CONFIGS = list(configurations(GAME))


def config_id(config) -> str:
    return f"{config.players}p-" + ("-".join(k for k, v in config.options.items() if v) or "base")


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_random_playouts_keep_the_invariants(config):
    for seed in range(150):  # 14 configurations: 2,100 seeded games (GAME-DONE asks 2,000)
        state = random_playout(GAME, config, seed, invariant=check_invariants, observe=seed % 4 == 0)
        assert state.steps <= step_bound(config)


def step_bound(config) -> int:
    """The docstring's bound: every round after the first costs a limb (base game), or a limb, a
    hunger token or two discarded cards (Shark); F figures of N cards each."""
    players = config.players
    if config.options["shark"]:
        figures = max(players - 1, 4)
        return 1 + 2 * (4 * figures - 1) + (players - 1) + figures * (figures + 1) // 2
    if players == 2:
        return 2 * (4 * 3 + 1 + 1)
    figures = max(players, 4)
    return 4 * figures - 1


def test_the_step_bound_is_the_docstrings():
    figures = {(c.players, bool(c.options["shark"])): step_bound(c) for c in CONFIGS}
    assert figures == {
        (2, False): 28, (3, False): 15, (4, False): 15, (5, False): 19, (6, False): 23,
        (4, True): 44, (5, True): 45, (6, True): 59, (7, True): 74,
    }  # fmt: skip


def test_the_configurations_cover_every_variant():
    assert len(CONFIGS) == 14 and len(CONFIGS) * 16 >= 200


def test_heuristic_answers_every_decision_kind():
    bot = make_bot("heuristic", "getbit")
    state = shark_game()
    for seat in range(5):
        assert bot.decide(request_for(GAME, state, seat)) in state.pending[seat].option_ids


def test_heuristic_gives_up_a_limb_the_shark_still_threatens():
    state = shark_game()
    state.shark.hand = [pb.SHARK_RIGHT_LEG, pb.SHARK_LEFT_LEG, pb.EXHAUSTION, pb.ANY_LIMB]
    state.shark.played = [pb.SHARK_RIGHT_ARM, pb.SHARK_LEFT_ARM]
    redecide(state)
    play(state, s0="shark:any-limb", s1=5, s2=5, s3=3, s4=2)
    bot = make_bot("heuristic", "getbit")
    assert bot.decide(request_for(GAME, state, 2)) == "limb:right-leg"


@pytest.mark.parametrize("spec", ["heuristic:depth=2", "heuristic:samples=0", "heuristic:thrift=x"])
def test_heuristic_rejects_bad_parameters(spec):
    with pytest.raises(ConfigError):
        make_bot(spec, "getbit")


def test_move_figures_equals_moving_one_figure_at_a_time():
    """The rule as written [:108-116] (each unique card, lowest first, to the front), against
    the faster construction on random lines and plays (every count up to 7 figures)."""

    def one_at_a_time(line, cards):
        counts = Counter(cards.values())
        new_line = list(line)
        for _card, figure in sorted((c, f) for f, c in cards.items() if counts[c] == 1):
            new_line.remove(figure)
            new_line.insert(0, figure)
        return new_line, sorted(v for v, n in counts.items() if n > 1)

    rng = Chance(5)
    for _ in range(3000):
        line = rng.shuffled(range(2 + rng.below(6, "n")), "line")
        cards = {f: 1 + rng.below(7, "card") for f in line if rng.below(8, "plays")}
        assert move_figures(line, cards) == one_at_a_time(line, cards)


def _views_agree(state: GetBitState, checked: list[str]) -> None:
    """At every pending decision: the seat's view read from the world equals the one read from
    its observation, and the rollout policy chooses what ``heuristic:samples=4`` chooses from
    the seat's request, on the same chance."""
    policy = ROLLOUT_POLICY(GAME)
    for decision in state.pending:
        seat = decision.seat
        from_world = view_from_world(state, seat)
        from_obs = view_from_observation(GAME.observe(state, seat))
        assert [list(limbs) for limbs in from_world.limbs] == [list(limbs) for limbs in from_obs.limbs]
        assert [(f, list(cards)) for f, cards in from_world.pools] == [(f, list(cards)) for f, cards in from_obs.pools]
        for name in ("round", "two_player", "line", "mine", "choosing", "hand_count", "fixed", "has_shark", "hunger"):
            assert getattr(from_world, name) == getattr(from_obs, name), name
        assert list(from_world.shark_cards) == list(from_obs.shark_cards)
        assert list(from_world.shark_hand) == list(from_obs.shark_hand)
        seed = state.steps * 8 + seat
        bot = make_bot(ROLLOUT, "getbit")
        bot.rng = Chance(seed)  # type: ignore[attr-defined]
        policy.reseed(Chance(seed))
        assert policy.choose(state, decision).id == bot.decide(request_for(GAME, state, seat))
        checked.append(decision.kind)


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_rollout_policy_chooses_as_the_heuristic_from_the_world(config):
    checked: list[str] = []
    for seed in range(3):
        random_playout(GAME, config, seed, invariant=lambda state: _views_agree(state, checked), observe=False)
    assert "choose_card" in checked
    assert ("shark_card" in checked) == bool(config["shark"])


def test_rollout_policy_is_named_and_is_rollout_at_fewer_samples():
    assert ROLLOUT_SAMPLES == 4
    assert ROLLOUT == "heuristic:samples=4"
    assert rollout_policy("getbit") is ROLLOUT_POLICY
    assert ROLLOUT_POLICY(GAME).rule.samples == ROLLOUT_SAMPLES  # type: ignore[attr-defined]


def test_search_defaults_are_the_measured_setting():
    bot = make_bot("search", "getbit")
    assert (bot.halving, bot.tree, bot.iterations) == (True, False, 100)  # type: ignore[attr-defined]
    assert make_bot("search:iterations=20", "getbit").iterations == 20  # type: ignore[attr-defined]


def test_search_with_the_state_policy_plays_as_with_the_heuristic_bot(monkeypatch):
    """The state policy changes the cost, not the play: a search match with it equals the
    same match with ``ROLLOUT`` reading observations (the rollouts, the modelled opponents)."""
    specs = ["search:iterations=12", "heuristic", "heuristic", "heuristic"]

    def match():
        return play_match(GAME, GAME.config(4), 2, [make_bot(spec, "getbit") for spec in specs]).canonical()

    with_policy = match()
    monkeypatch.setattr("bots.registry.rollout_policy", lambda game_id: None)
    assert match() == with_policy


# --------------------------------------------------------------------------------------------
# Worlds from an observation (a served searching bot)


def test_world_from_observation_two_players_draws_the_other_first_figure_card():
    state = GAME.new_match(GAME.config(2), seed=6)
    play(state, s0=3, s1=5)  # every seat's first figure has chosen
    (f0,) = (f for f in state.chosen if state.figures[f].owner == 0)
    (f1,) = (f for f in state.chosen if state.figures[f].owner == 1)
    seen = GAME.observe(state, 1)
    rng = Chance(2)
    picks = set()
    for _ in range(100):
        world = GAME.world_from_observation(state.config, 1, seen, rng)
        assert list(world.chosen) == list(state.chosen) and world.chosen[f1] == 5
        picks.add(world.chosen[f0])
        assert world.pending == state.pending
    assert picks == {1, 2, 3, 4, 5}


def test_world_from_observation_memory_deals_hand_and_face_down_cards():
    state = new(4, memory=True)
    play(state, s0=5, s1=4, s2=3, s3=2)
    play(state, s0=4, s1=3, s2=2, s3=1)  # figure 0 has 5 and 4 face down, 1 2 3 in hand
    seen = GAME.observe(state, 1)
    rng = Chance(3)
    hands = set()
    for _ in range(100):
        world = GAME.world_from_observation(state.config, 1, seen, rng)
        figure = world.figures[0]
        assert len(figure.hand) == 3 and figure.face_down == 2 and len(figure.played) == 2
        assert sorted(figure.hand + figure.played) == [1, 2, 3, 4, 5]
        assert world.figures[1].hand == state.figures[1].hand  # the seat's own figure
        hands.add(tuple(figure.hand))
    assert len(hands) == 10  # every 3 of the 5 cards


def test_world_from_observation_any_limb_waits_for_the_victim():
    state = shark_game()
    play(state, s0="shark:any-limb", s1=5, s2=5, s3=3, s4=2)
    for seat in (0, 1, 2):
        world = GAME.world_from_observation(state.config, seat, GAME.observe(state, seat), Chance(seat))
        assert world.limb_victim == 1 and world.pending == state.pending


@pytest.mark.parametrize(("players", "options"), [(2, {"memory": True}), (3, {}), (5, {"shark": True, "memory": True})])
def test_worlds_from_every_observation_of_a_playout_give_it_back(players, options):
    config, rng = GAME.config(players, options), Chance(players)
    for seed in range(3):
        state = GAME.new_match(config, seed)
        while state.pending:
            for decision in state.pending:
                seen = GAME.observe(state, decision.seat)
                world = GAME.world_from_observation(config, decision.seat, seen, rng)
                assert GAME.observe(world, decision.seat) == seen
                assert [d for d in world.pending if d.seat == decision.seat] == [decision]
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})


def test_swimmers_win_with_the_robot_on_most_limbs_means_no_player_wins():
    # [:454-462]: the Swimmer with the most limbs wins; the robot is no player (ruling 6), so
    # nobody scores; the seats are placed by limbs then front, the Shark last (ruling 11).
    state = new(4, shark=True, robot=[(1, 2, 3, 4, 5)])
    play(state, s1=2, s2=3, s3=4)  # the robot's 1 moves first: red, orange, yellow, robot green
    assert state.line == [2, 1, 0, 3]
    state.figures[0].limbs = [RA, LA, RL]
    state.figures[1].limbs = [RA, LA, RL]
    state.figures[2].limbs = [RA, LA]
    state.shark.hunger = 1
    # All unique (robot 2, yellow 3, orange 4, red 5): red, orange, yellow, green front to back;
    # Exhaustion without ties is a Miss and costs the last hunger token [:401-404, :454-456].
    play(state, s0="shark:exhaustion", s1=5, s2=4, s3=3)
    assert state.line == [0, 1, 2, 3]
    assert state.outcome == pb.SWIMMERS_WIN and state.winner_figure == 3  # 4 limbs: the robot
    result = GAME.result(state)
    assert result.scores == (0.0, 0.0, 0.0, 0.0)
    assert result.ranks == (4, 1, 2, 3)  # red and orange have 3 limbs, red is in front
    assert result.summary == "green (robot) wins with the most limbs: no player wins"


def test_memory_face_down_cards_never_show_in_others_observations():
    # [:292-296]: once turned face down, which cards a figure played is hidden from the others
    # (and so is its hand); only the counts stay public.
    a, b = new(4, memory=True), new(4, memory=True)
    for state in (a, b):
        play(state, s0=5, s1=4, s2=3, s3=2)
        play(state, s0=4, s1=3, s2=2, s3=1)  # green bitten; red's 5 and 4 turn face down
    b.figures[0].hand, b.figures[0].played = [1, 2, 5], [3, 4]  # red had played 3 and 4 instead
    assert a.figures[0].face_down == b.figures[0].face_down == 2
    for seat in (1, 2, 3):
        assert observation_bytes(GAME, a, seat) == observation_bytes(GAME, b, seat)
    assert list(GAME.observe(b, 0).figures[0].played) == [3, 4]


# --------------------------------------------------------------------------------------------
# Event details: every fact an event's text states is in its typed detail (an outside probe
# found them in the text only)


def details_since(state: GetBitState, start: int, *kinds: str) -> list[tuple[int, str, object]]:
    return [(e.seat, e.kind, e.detail) for e in state.log.events[start:] if not kinds or e.kind in kinds]


def test_setup_events_have_details():
    state = new(4, shark=True, line=(2, 0, 3, 1), robot=[(3, 1, 4, 5, 2)])
    assert details_since(state, 0) == [
        (0, "setup", pb.SetupEvent(shark=True, hunger=3)),
        (1, "setup", pb.SetupEvent(figures=[0])),
        (2, "setup", pb.SetupEvent(figures=[1])),
        (3, "setup", pb.SetupEvent(figures=[2])),
        (-1, "setup", pb.SetupEvent(figures=[3], robot=True)),
        (-1, "setup", pb.SetupEvent(highest_card=5, limbs=4)),
        (-1, "line", pb.LineEvent(line=[2, 0, 3, 1])),
        (-1, "round", pb.RoundEvent(round=1)),
    ]
    two = new(2)
    assert [d for _, k, d in details_since(two, 0, "setup")] == [
        pb.SetupEvent(figures=[0, 1]),
        pb.SetupEvent(figures=[2, 3]),
        pb.SetupEvent(highest_card=5, limbs=4),
    ]
    assert details_since(new(6, line=range(6)), 0, "setup")[-1][2] == pb.SetupEvent(highest_card=7, limbs=4)


def test_round_reveal_tie_and_no_bite_details():
    state = new(4)
    start = len(state.log)
    play(state, s0=4, s1=1, s2=4, s3=5)  # the rulebook example [:181-212]
    assert details_since(state, start) == [
        (0, "reveal", pb.Play(figure=0, card=4)),
        (1, "reveal", pb.Play(figure=1, card=1)),
        (2, "reveal", pb.Play(figure=2, card=4)),
        (3, "reveal", pb.Play(figure=3, card=5)),
        (-1, "tie", pb.TieEvent(value=4, figures=[0, 2])),
        (-1, "line", pb.LineEvent(line=[3, 1, 0, 2])),
        (-1, "no-bite", pb.RoundEvent(round=1)),
        (-1, "round", pb.RoundEvent(round=2)),
    ]
    start = len(state.log)
    play(state, s0=2, s1=2, s2=2, s3=3)  # two ties at once: each its own event
    assert details_since(state, start, "tie") == [(-1, "tie", pb.TieEvent(value=2, figures=[1, 0, 2]))]


def test_the_shark_reveal_names_its_card():
    state = shark_game()
    start = len(state.log)
    play(state, s0="shark:left-leg", s1=5, s2=4, s3=3, s4=2)
    reveals = details_since(state, start, "reveal")
    assert reveals[-1] == (0, "reveal", pb.SharkRevealEvent(card=pb.SHARK_LEFT_LEG))
    assert reveals[:-1] == [(s + 1, "reveal", pb.Play(figure=s, card=5 - s)) for s in range(4)]
    assert details_since(state, start, "bite") == [
        (4, "bite", pb.BiteEvent(figure=3, limb=pb.LEFT_LEG, limbs_left=3, cards_picked_up=2))
    ]


def test_a_miss_for_a_missing_limb_names_the_limb_the_tokens_and_the_cards_taken_back():
    state = shark_game(f3=[LA, RL, LL])
    state.shark.hand = [pb.SHARK_RIGHT_ARM, pb.SHARK_LEFT_ARM, pb.ANY_LIMB]
    state.shark.played = [pb.SHARK_RIGHT_LEG, pb.SHARK_LEFT_LEG, pb.EXHAUSTION]
    redecide(state)
    start = len(state.log)
    play(state, s0="shark:right-arm", s1=5, s2=4, s3=3, s4=2)
    (miss,) = details_since(state, start, "miss")
    assert miss == (
        0,
        "miss",
        pb.MissEvent(figure=3, card=pb.SHARK_RIGHT_ARM, limb=pb.RIGHT_ARM, hunger=3, cards_picked_up=4),
    )
    assert state.log.events[-2].text == "misses (green has no right arm): 3 hunger tokens left, takes back 4 cards"


@pytest.mark.parametrize("card", ["exhaustion", "any-limb"])
def test_a_miss_without_ties_says_so(card):
    state = shark_game()
    start = len(state.log)
    play(state, s0=f"shark:{card}", s1=5, s2=4, s3=3, s4=2)
    shark_card = pb.EXHAUSTION if card == "exhaustion" else pb.ANY_LIMB
    assert details_since(state, start, "miss") == [
        (0, "miss", pb.MissEvent(figure=3, card=shark_card, no_ties=True, hunger=3, cards_picked_up=1))
    ]


def test_exhaustion_discards_have_details():
    state = shark_game()
    state.figures[1].discarded, state.figures[1].hand = [3], [2, 4, 5]  # an earlier Exhaustion
    redecide(state)
    start = len(state.log)
    play(state, s0="shark:exhaustion", s1=5, s2=5, s3=3, s4=2)
    assert details_since(state, start, "discard") == [
        (1, "discard", pb.DiscardEvent(figure=0, card=5, discarded=[5])),
        (2, "discard", pb.DiscardEvent(figure=1, card=5, discarded=[3, 5])),
    ]


def test_refresh_details_for_a_swimmer_the_shark_and_an_empty_hand():
    state = shark_game()
    state.shark.hand = [pb.SHARK_RIGHT_ARM, pb.EXHAUSTION]
    state.shark.played = [pb.SHARK_LEFT_ARM, pb.SHARK_RIGHT_LEG, pb.SHARK_LEFT_LEG, pb.ANY_LIMB]
    red = state.figures[0]  # one card left after Exhaustion takes its 4: no card in hand
    red.hand, red.played, red.discarded = [4], [1, 2], [3, 5]
    yellow = state.figures[2]  # one card left after playing
    yellow.hand, yellow.played = [3, 5], [1, 2, 4]
    redecide(state)
    start = len(state.log)
    play(state, s0="shark:exhaustion", s1=4, s2=4, s3=3, s4=2)  # line: green, yellow, red, orange
    assert details_since(state, start, "refresh") == [
        (3, "refresh", pb.RefreshEvent(figure=2, cards_left=1, cards_picked_up=4)),  # in line order
        (1, "refresh", pb.RefreshEvent(figure=0, cards_left=0, cards_picked_up=2)),
        (0, "refresh", pb.RefreshEvent(figure=-1, cards_left=1, cards_picked_up=5)),
    ]
    assert [e.text for e in state.log.events if e.kind == "refresh"] == [
        "yellow has one card left: takes back 4 cards",
        "red has no card left: takes back 2 cards",
        "has one card left: takes back 5 cards",
    ]
    assert red.hand == [1, 2] and yellow.hand == [1, 2, 3, 4, 5]


def test_the_base_game_end_details():
    state = new(4)
    devour_directly(state, 2)
    state.figures[3].limbs = [LL]
    in_round_two(state)
    start = len(state.log)
    play(state, s0=5, s1=4, s3=1)
    assert details_since(state, start)[-4:] == [
        (3, "bite", pb.BiteEvent(figure=3, limb=pb.LEFT_LEG, limbs_left=0, devoured=True)),
        (3, "devoured", pb.DevouredEvent(figure=3, line=[0, 1])),
        (
            -1,
            "end",
            pb.EndEvent(
                outcome=pb.ESCAPED, winner_seat=0, winner_figure=0, devoured_figure=1, lost_figure=-1, line=[0]
            ),
        ),
        (
            -1,
            "end",
            pb.EndEvent(
                outcome=pb.ESCAPED, winner_seat=0, winner_figure=0, devoured_figure=-1, lost_figure=-1, line=[0]
            ),
        ),
    ]


def test_the_end_details_of_the_variants():
    def end(state: GetBitState) -> pb.EndEvent:
        (detail,) = [e.detail for e in state.log.events if e.kind == "end"]
        return detail

    two = in_round_two(new(2))  # 2 players: a lost figure
    two.figures[3].limbs = [LL]
    play(two, s0=5, s1=4)
    play(two, s0=3, s1=1)
    assert end(two) == pb.EndEvent(
        outcome=pb.FIGURE_LOST, winner_seat=0, winner_figure=-1, devoured_figure=-1, lost_figure=3, line=[0, 2, 1]
    )
    shark = shark_game(f1=[LL])  # the Shark wins
    devour_directly(shark, 2, 3)
    redecide(shark)
    play(shark, s0="shark:left-leg", s1=5, s2=2)
    assert end(shark) == pb.EndEvent(
        outcome=pb.SHARK_WINS, winner_seat=0, winner_figure=-1, devoured_figure=-1, lost_figure=-1, line=[0]
    )
    swim = shark_game(f0=[RA, LA, RL], f1=[RA, LA, RL])  # the Swimmers win
    swim.shark.hunger = 1
    play(swim, s0="shark:exhaustion", s1=5, s2=4, s3=3, s4=2)
    assert end(swim) == pb.EndEvent(
        outcome=pb.SWIMMERS_WIN, winner_seat=3, winner_figure=2, devoured_figure=-1, lost_figure=-1, line=[0, 1, 2, 3]
    )
    robot = new(3, robot=[(5, 1, 2, 3, 4)])  # the robot escapes: no player wins
    devour_directly(robot, 1)
    robot.figures[2].limbs = [LL]
    in_round_two(robot)
    play(robot, s0=4, s2=1)
    assert [e.detail for e in robot.log.events if e.kind == "end"][-1] == pb.EndEvent(
        outcome=pb.ESCAPED, winner_seat=-1, winner_figure=3, devoured_figure=-1, lost_figure=-1, line=[3]
    )


def test_face_down_details_count_each_figures_face_down_cards():
    state = new(4, memory=True)
    play(state, s0=5, s1=4, s2=3, s3=2)
    assert details_since(state, 0, "face-down") == []  # round 1 has no Get Bit! phase
    start = len(state.log)
    play(state, s0=4, s1=3, s2=2, s3=1)  # green bitten: it takes its cards back first
    assert details_since(state, start, "face-down") == [
        (-1, "face-down", pb.FaceDownEvent(figures=[3, 0, 1, 2], face_down=[0, 2, 2, 2]))
    ]


class Tracker:
    """What a bot follows from the typed details of the events its seat receives alone."""

    def __init__(self) -> None:
        self.round = 0
        self.highest = 0
        self.figures: list[int] = []
        self.line: list[int] = []
        self.devoured: list[int] = []
        self.limbs: dict[int, int] = {}
        self.played: dict[int, list[int]] = {}
        self.face_down: dict[int, int] = {}
        self.discarded: dict[int, list[int]] = {}
        self.hunger: int | None = None
        self.shark_played: list[int] = []
        self.outcome = pb.OUTCOME_UNSPECIFIED
        self.winner_figure = -1

    def take_back(self, f: int, count: int) -> None:
        assert count == len(self.played[f])
        self.played[f], self.face_down[f] = [], 0

    def event(self, kind: str, d) -> None:
        assert d is not None, kind
        if kind == "setup":
            if d.shark:
                self.hunger = d.hunger
            if d.highest_card:
                self.highest = d.highest_card
            for f in d.figures:
                self.figures.append(f)
        elif kind == "line":
            if not self.line:  # the starting line: every figure is there
                for f in d.line:
                    self.limbs[f], self.played[f], self.face_down[f], self.discarded[f] = 4, [], 0, []
            self.line = list(d.line)
        elif kind in ("round", "no-bite"):
            self.round = d.round if kind == "round" else self.round
        elif kind == "reveal":
            if isinstance(d, pb.SharkRevealEvent):
                self.shark_played.append(d.card)
            else:
                self.played[d.figure].append(d.card)
        elif kind == "tie":
            assert len(d.figures) >= 2
        elif kind == "bite":
            self.limbs[d.figure] = d.limbs_left
            if not d.devoured:
                self.take_back(d.figure, d.cards_picked_up)
                self.line.remove(d.figure)
                self.line.insert(0, d.figure)
        elif kind == "devoured":
            self.devoured.append(d.figure)
            self.line = list(d.line)
        elif kind == "discard":
            assert self.played[d.figure].pop() == d.card
            self.discarded[d.figure] = list(d.discarded)
        elif kind == "miss":
            assert d.cards_picked_up == len(self.shark_played)
            self.hunger, self.shark_played = d.hunger, []
        elif kind == "face-down":
            for f, count in zip(d.figures, d.face_down, strict=True):
                self.face_down[f] = count
        elif kind == "refresh":
            if d.figure == -1:
                assert d.cards_picked_up == len(self.shark_played)
                self.shark_played = []
            else:
                assert d.cards_left == self.highest - len(self.played[d.figure]) - len(self.discarded[d.figure])
                self.take_back(d.figure, d.cards_picked_up)
        elif kind == "end":
            if d.devoured_figure != -1:
                self.devoured.append(d.devoured_figure)
            self.line, self.outcome, self.winner_figure = list(d.line), d.outcome, d.winner_figure
        else:
            raise AssertionError(kind)

    def check(self, obs: pb.Observation, seat: int) -> None:
        assert (self.round, self.line, self.devoured) == (obs.round, list(obs.line), list(obs.devoured))
        assert (self.outcome, self.winner_figure) == (obs.outcome, obs.winner_figure)
        assert self.highest == obs.highest_card and sorted(self.figures) == list(range(len(obs.figures)))
        for view in obs.figures:
            f = view.id
            played = self.played[f] if view.owner == seat else self.played[f][self.face_down[f] :]
            assert (self.limbs[f], self.face_down[f], self.discarded[f]) == (
                len(view.limbs),
                view.face_down,
                list(view.discarded),
            )
            assert played == list(view.played)
            if not view.devoured:
                assert self.highest - len(self.played[f]) - len(self.discarded[f]) == view.hand_count
        if obs.HasField("shark"):
            assert (self.hunger, self.shark_played) == (obs.shark.hunger, list(obs.shark.played))
        else:
            assert self.hunger is None


def tracked_playout(config, seed: int) -> int:
    """A seeded random playout; every seat's tracker is checked at each of its decisions and at
    the end. Returns the number of decisions checked."""
    state = GAME.new_match(config, seed)
    rng = Chance(seed)
    trackers = {seat: Tracker() for seat in range(config.players)}
    seen = dict.fromkeys(trackers, 0)
    checked = 0
    while True:
        seats = [d.seat for d in state.pending] or list(trackers)
        for seat in seats:
            for _, event in state.log.since(seat, seen[seat]):
                trackers[seat].event(event.kind, event.detail)
            seen[seat] = len(state.log.events)
            trackers[seat].check(GAME.observe(state, seat), seat)
            checked += 1
        if not state.pending:
            return checked
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_a_tracker_of_details_alone_follows_every_observation(config):
    for seed in range(6):
        assert tracked_playout(config, seed) >= 3 * config.players
