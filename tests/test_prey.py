"""Prey: every rule of shared/rules/prey.md, its worked examples and NOTES.md §4.14 vectors, pinned."""

from __future__ import annotations

import itertools
import pickle
import re
from collections import Counter
from pathlib import Path

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.prey import GAME, PreyState
from arena.games.prey.game import (
    DECK_SIZE,
    MAX_ROUNDS,
    PRED,
    PREDATOR,
    PREY,
    PREYN,
    SUIT,
    SUITS,
    card_id,
    constrained_deal,
    first_leader,
    goals,
    legal_cards,
    mode_of,
    scores_with,
    trick_winner,
)
from arena.games.v1 import prey_pb2 as pb
from bots.games.prey import GoalBot
from bots.registry import make_bot
from tests.contract import assert_same_view, configurations, random_playout, worlds_from_observations

ROOT = Path(__file__).resolve().parent.parent


def C(suit: str, predator: int) -> int:
    return card_id(suit, predator)


def order_with(hands: list[list[int]]) -> list[int]:
    """A full shuffle order: the given hands first (12 cards each, seat order), then the rest."""
    head = [c for hand in hands for c in hand]
    assert len(set(head)) == len(head)
    return head + [c for c in range(DECK_SIZE) if c not in head]


def deal(players=4, hands=None, dice=None, first=(), strict=True, seed=0) -> PreyState:
    """A new match with the shuffle, the goal dice (flat, in roll order) and the tie pick preset."""
    dice = dice if dice is not None else [1, 2, 3, 4, 3, 5, 4, 6][: 2 * players]
    chance = PresetChance(
        seed,
        orders={"deck": [order_with(hands or [])]},
        rolls={"goal": list(dice)},
        picks={"first": list(first)},
        strict=strict,
    )
    return GAME.new_match(GAME.config(players), chance=chance)


def ids(state: PreyState) -> tuple[str, ...]:
    (decision,) = state.pending
    return decision.option_ids


def play(state: PreyState, *cards: int) -> None:
    for card in cards:
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: f"card:{SUITS[SUIT[card]]}-{PRED[card]}"})


def position(players=4, hands=None, trick=1, leader=0, tricks_won=None, dice=None, points=None) -> PreyState:
    """A chosen position: hands set directly (sorted), ``trick`` to be led by ``leader``."""
    state = deal(players, strict=False)
    if hands is not None:
        for seat, hand in enumerate(hands):
            state.hands[seat] = sorted(hand)
    state.trick = trick
    state.leader = state.turn = leader
    if tricks_won is not None:
        state.tricks_won = list(tricks_won)
    if dice is not None:
        state.dice = list(dice)
    if points is not None:
        state.points = list(points)
    GAME.refresh(state)
    return state


# -- components ------------------------------------------------------------------------------


def test_the_deck_has_48_cards_in_4_suits_of_12():
    # Rules :29-33; ruling 1: per suit Predator 1-12 and Prey a permutation of 1-12 (no ties).
    assert DECK_SIZE == 48 and len(SUITS) == 4
    for s in range(4):
        cards = [c for c in range(DECK_SIZE) if SUIT[c] == s]
        assert len(cards) == 12
        assert sorted(PRED[c] for c in cards) == list(range(1, 13))
        assert sorted(PREYN[c] for c in cards) == list(range(1, 13))


def test_designed_numbers_are_near_inverse():
    # components.toml: prey = 13 - predator except two crossings per suit; sums 12-14.
    prey = {s: [PREYN[C(s, p)] for p in range(1, 13)] for s in SUITS}
    assert prey == {
        "forest": [11, 12, 10, 9, 8, 7, 5, 6, 4, 3, 2, 1],
        "plains": [12, 11, 9, 10, 8, 7, 6, 5, 3, 4, 2, 1],
        "river": [12, 11, 10, 9, 7, 8, 6, 5, 4, 3, 1, 2],
        "sky": [12, 10, 11, 9, 8, 7, 6, 4, 5, 3, 2, 1],
    }
    sums = Counter(PRED[c] + PREYN[c] for c in range(DECK_SIZE))
    assert sums == {12: 8, 13: 32, 14: 8}


@pytest.mark.parametrize(("players", "ok"), [(2, False), (3, True), (4, True), (5, False)])
def test_player_counts(players, ok):
    if ok:
        GAME.config(players)
    else:
        with pytest.raises(ConfigError, match="3-4 players"):
            GAME.config(players)


# -- setup -----------------------------------------------------------------------------------


def test_four_players_are_dealt_12_cards_each_in_shuffle_order():
    # Rules :59-61, ruling 8: seat s gets cards 12s..12s+11 of the shuffle.
    order = order_with([])
    state = deal(4)
    assert [sorted(order[12 * s : 12 * s + 12]) for s in range(4)] == state.hands
    assert state.aside == []
    assert GAME.observe(state, 0).set_aside == 0


def test_three_players_set_a_fourth_hand_aside():
    # Rules :67-70, ruling 7: the last 12 cards are set aside, unseen by every seat.
    order = order_with([])
    state = deal(3)
    assert [len(h) for h in state.hands] == [12, 12, 12]
    assert state.aside == sorted(order[36:])
    obs = GAME.observe(state, 1)
    assert obs.set_aside == 12 and obs.unseen == 36 and len(obs.aside) == 0
    assert len(GAME.observe(state, SPECTATOR).aside) == 12


def test_doubles_are_rerolled():
    # NOTES rule vector 1 (:50-55): seat 0 rolls 3-3 then 3-3 again, then 5-2.
    state = deal(3, dice=[3, 3, 3, 3, 5, 2, 1, 4, 6, 2])
    assert state.dice == [(2, 5), (1, 4), (2, 6)]
    assert state.rerolls == 2
    event = next(e for e in state.log.events if e.kind == "round")
    assert event.detail.rerolls == 2
    assert [list(d.values) for d in event.detail.dice] == [[2, 5], [1, 4], [2, 6]]


def test_the_lowest_dice_total_leads_first():
    # Rules :74-80: totals 7, 5, 8, 10 -> seat 1.
    state = deal(4, dice=[3, 4, 1, 4, 2, 6, 4, 6])
    assert state.leader == 1 and ids(state) and state.pending[0].seat == 1


def test_the_lowest_total_leads_even_against_a_lower_single_die():
    """Rules :76-80 "The player with the lowest total on their dice leads"; the single die is only
    the tie breaker [:82-84]: seat 0 (1+6 = 7) holds the 1, seat 1 (2+3 = 5) leads."""
    state = deal(3, dice=[1, 6, 2, 3, 4, 5])
    assert first_leader(state.dice) == [1]
    assert state.leader == 1 and state.pending[0].seat == 1


def test_a_total_tie_goes_to_the_lowest_single_die():
    # Rules :82-84: seat 0 (2+3) and seat 2 (1+4) both total 5; seat 2 has the 1.
    state = deal(3, dice=[2, 3, 6, 5, 4, 1])
    assert first_leader(state.dice) == [2]
    assert state.leader == 2


def test_a_full_tie_is_a_random_pick():
    # Rules :85, ruling 3: seats 1 and 3 both rolled 1+4; the "first" pick decides.
    for pick in (1, 3):
        state = deal(4, dice=[2, 5, 1, 4, 3, 6, 4, 1], first=[pick])
        assert first_leader(state.dice) == [1, 3]
        assert state.leader == pick


# -- goal numbers: the worked examples ---------------------------------------------------------


def test_example_goals_2_and_5_score_with_exactly_2_or_5_tricks():
    # Rules :97-103, NOTES text example 1.
    assert goals((2, 5)) == (2, 5)
    assert [t for t in range(13) if scores_with((2, 5), t)] == [2, 5]


def test_example_goals_2_and_6_score_with_0_2_or_6_tricks():
    # Rules :119-127, NOTES text example 2 (ruling 4: 7+ tricks never score).
    assert goals((2, 6)) == (0, 2, 6)
    assert [t for t in range(13) if scores_with((2, 6), t)] == [0, 2, 6]


def last_trick(players, dice, tricks_won, hands, leader=0, points=None):
    """Trick 12 with one card per hand; the cards decide who takes it."""
    return position(players, hands=hands, trick=12, leader=leader, tricks_won=tricks_won, dice=dice, points=points)


def test_a_round_scores_the_players_on_a_goal():
    # Rules :225-233 with the example dice: seat 0 (2,5) ends with 2 tricks, seat 1 (2,6) with 0,
    # seat 2 (1,3) with 4 + this trick (forest 2 has Prey 12) = 5, seat 3 (3,4) with 4.
    hands = [[C("forest", 1)], [C("forest", 12)], [C("forest", 2)], [C("plains", 9)]]
    dice = [(2, 5), (2, 6), (1, 3), (3, 4)]
    state = last_trick(4, dice, [2, 0, 4, 4], hands)
    play(state, *[h[0] for h in hands])
    end = next(e for e in state.log.events if e.kind == "round_end")
    assert list(end.detail.tricks) == [2, 0, 5, 4]
    assert list(end.detail.scored) == [True, True, False, True]
    assert state.points == [1, 1, 0, 1]
    assert state.round == 2 and not state.over


# -- tricks ----------------------------------------------------------------------------------


def test_must_follow_the_lead_suit_when_able():
    # Rules :181-189.
    hands = [
        [C("forest", 5), C("sky", 2)],
        [C("forest", 9), C("forest", 1), C("river", 12)],
        [C("plains", 3), C("river", 4)],
        [C("sky", 7)],
    ]
    state = position(hands=hands)
    assert ids(state) == ("card:forest-5", "card:sky-2")  # the leader plays any card
    play(state, C("forest", 5))
    assert ids(state) == ("card:forest-1", "card:forest-9")
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {1: "card:river-12"})
    play(state, C("forest", 1))
    assert ids(state) == ("card:plains-3", "card:river-4")  # void: any card
    assert legal_cards([C("sky", 1), C("river", 2)], SUIT[C("forest", 1)]) == [C("sky", 1), C("river", 2)]


def test_predator_trick_highest_predator_of_the_lead_suit_wins():
    # Rules :193-199: an off-suit card never wins, however high.
    hands = [[C("river", 6)], [C("river", 9)], [C("plains", 12)], [C("river", 2)]]
    state = position(hands=hands, trick=3)
    play(state, *[h[0] for h in hands])
    assert state.done[-1][3] == 1 and state.tricks_won[1] == 1
    assert state.leader == 1 and state.pending[0].seat == 1  # the winner leads [:217]
    assert state.voids[2] == 1 << SUITS.index("river")


def test_prey_tricks_compare_prey_numbers():
    # NOTES rule vector 2 (:155-161, :203-207): the same four cards, trick 6 vs trick 7.
    cards = [C("sky", 10), C("sky", 1), C("sky", 5), C("sky", 8)]  # prey 3, 12, 8, 4
    assert [PREYN[c] for c in cards] == [3, 12, 8, 4]
    plays = list(enumerate(cards))
    assert trick_winner(plays, mode_of(6)) == 0  # Predator 10 is the highest
    assert trick_winner(plays, mode_of(7)) == 1  # Prey 12 is the highest
    for trick, winner in ((6, 0), (7, 1)):
        state = position(hands=[[c] for c in cards], trick=trick)
        play(state, *cards)
        assert state.done[-1][3] == winner
        assert state.done[-1][0] == trick


def test_modes_by_trick_number():
    # Rules :131-141.
    assert [mode_of(t) for t in range(1, 13)] == [PREDATOR] * 6 + [PREY] * 6


def test_after_trick_6_the_cards_turn():
    hands = [
        [C("sky", 10), C("forest", 1)],
        [C("sky", 1), C("forest", 2)],
        [C("sky", 5), C("forest", 3)],
        [C("sky", 8), C("forest", 4)],
    ]
    state = position(hands=hands, trick=6)
    assert GAME.observe(state, 0).mode == pb.PREDATOR
    play(state, C("sky", 10), C("sky", 1), C("sky", 5), C("sky", 8))
    assert state.log.events[-1].kind == "prey_phase"
    obs = GAME.observe(state, 0)
    assert obs.trick == 7 and obs.mode == pb.PREY


def test_the_last_trick_winner_leads_the_next_round():
    # Rules :254-264: new dice, new deal, the winner of trick 12 leads.
    hands = [[C("forest", 1)], [C("forest", 2)], [C("forest", 12)], [C("plains", 9)]]
    state = last_trick(4, [(1, 2)] * 4, [3, 3, 3, 2], hands)
    chance = state.chance
    assert isinstance(chance, PresetChance)
    chance._rolls["goal"].extend([5, 6, 1, 2, 3, 4, 2, 4])
    play(state, *[h[0] for h in hands])
    # prey: forest 1/11, 2/12, 12/1 -> seat 1 (prey 12) wins trick 12
    assert state.round == 2 and state.leader == 1 and state.turn == 1
    assert state.dice == [(5, 6), (1, 2), (3, 4), (2, 4)]
    assert [len(h) for h in state.hands] == [12] * 4
    assert state.tricks_won == [0] * 4 and state.voids == [0] * 4 and state.done == []
    event = [e for e in state.log.events if e.kind == "round"][-1]
    assert event.detail.round == 2 and event.detail.leader == 1


# -- the end ---------------------------------------------------------------------------------


def test_a_second_point_wins_at_once():
    # Rules :243-246.
    hands = [[C("forest", 1)], [C("forest", 2)], [C("forest", 12)]]
    state = last_trick(3, [(2, 5), (1, 3), (4, 6)], [5, 1, 5], hands, points=[1, 1, 0])
    play(state, *[h[0] for h in hands])  # seat 1 wins it: 5, 2, 5 tricks
    assert state.over and not state.pending
    assert state.points == [2, 1, 0]
    result = GAME.result(state)
    assert result.scores == (2, 1, 0) and result.ranks == (1, 2, 3) and result.winners == (0,)
    assert state.log.events[-1].kind == "end"
    assert GAME.observe(state, 2).winners == [0]


def test_simultaneous_second_points_share_the_victory():
    # Rules :248-250, ruling 5.
    hands = [[C("forest", 1)], [C("forest", 2)], [C("forest", 12)], [C("plains", 9)]]
    state = last_trick(4, [(2, 5), (3, 6), (1, 2), (4, 5)], [2, 2, 4, 3], hands, points=[1, 1, 1, 0])
    play(state, *[h[0] for h in hands])  # seat 1 takes trick 12: 2, 3, 4, 3
    assert state.points == [2, 2, 1, 0]
    result = GAME.result(state)
    assert result.ranks == (1, 1, 3, 4) and result.winners == (0, 1)
    assert "winners: seat 0, 1" in result.summary


def test_round_limit_ends_the_match():
    # Ruling 6: after round MAX_ROUNDS the most points win (shared on a tie).
    hands = [[C("forest", 1)], [C("forest", 2)], [C("forest", 12)]]
    state = last_trick(3, [(1, 2), (1, 2), (1, 2)], [5, 3, 3], hands, points=[1, 1, 0])
    state.round = MAX_ROUNDS
    play(state, *[h[0] for h in hands])
    assert state.over and state.round_limit and state.points == [1, 1, 0]
    assert GAME.result(state).ranks == (1, 1, 3)
    assert state.log.events[-1].detail.round_limit


def test_before_the_limit_a_new_round_follows():
    hands = [[C("forest", 1)], [C("forest", 2)], [C("forest", 12)]]
    state = last_trick(3, [(1, 2), (1, 2), (1, 2)], [5, 3, 3], hands, points=[1, 1, 0])
    state.round = MAX_ROUNDS - 1
    play(state, *[h[0] for h in hands])
    assert not state.over and state.round == MAX_ROUNDS


# -- observation and information -------------------------------------------------------------


def test_observation_shows_dice_goals_voids_and_tricks():
    hands = [
        [C("river", 6), C("sky", 1)],
        [C("river", 9), C("sky", 2)],
        [C("plains", 12), C("sky", 3)],
        [C("river", 2), C("sky", 4)],
    ]
    state = position(hands=hands, trick=3, dice=[(2, 6), (1, 3), (4, 5), (2, 3)], tricks_won=[0, 2, 0, 0])
    play(state, C("river", 6), C("river", 9), C("plains", 12))
    obs = GAME.observe(state, 3)
    assert list(obs.hand) == [pb.Card(suit="river", predator=2, prey=11), pb.Card(suit="sky", predator=4, prey=9)]
    assert obs.lead_suit == "river" and obs.turn == 3 and obs.leader == 0
    assert [p.followed for p in obs.trick_plays] == [True, True, False]
    assert list(obs.seats[0].goals) == [0, 2, 6] and obs.seats[0].on_goal
    assert list(obs.seats[2].voids) == ["river"]
    assert obs.seats[1].tricks == 2 and obs.seats[1].hand_size == 1
    play(state, C("river", 2))
    obs = GAME.observe(state, 0)
    assert len(obs.tricks) == 1 and obs.tricks[0].winner == 1 and obs.tricks[0].mode == pb.PREDATOR


def test_unseen_cards_are_the_deck_minus_own_hand_and_played():
    state = deal(3)
    play(state, _first_legal(state))
    obs = GAME.observe(state, 0)
    own = {(c.suit, c.predator) for c in obs.hand}
    played = {(p.card.suit, p.card.predator) for p in obs.trick_plays}
    unseen = {(c.suit, c.predator) for c in obs.unseen_cards}
    assert len(unseen) == obs.unseen == 48 - len(own) - len(played)
    assert not unseen & (own | played)


def _first_legal(state: PreyState) -> int:
    from arena.games.prey.game import _CARD_OF_OPTION

    return _CARD_OF_OPTION[state.pending[0].options[0].id]


def swapped(players: int, a: int, b: int) -> tuple[PreyState, PreyState]:
    """Two deals differing only by cards exchanged between hidden places ``a`` and ``b``
    (seats, or 3 = the aside hand at 3 players), suit for suit so that legality is the same."""
    base = Chance(1).shuffled(range(DECK_SIZE), "t")
    other = list(base)
    pa, pb_ = other[12 * a : 12 * a + 12], other[12 * b : 12 * b + 12]
    for i, x in enumerate(pa):
        j = next((k for k, y in enumerate(pb_) if SUIT[y] == SUIT[x] and y != x), None)
        if j is not None:
            pa[i], pb_[j] = pb_[j], x
            break
    other[12 * a : 12 * a + 12], other[12 * b : 12 * b + 12] = pa, pb_
    assert other != base
    dice = [1, 2, 3, 4, 3, 5, 4, 6][: 2 * players]
    s1 = GAME.new_match(GAME.config(players), chance=PresetChance(orders={"deck": [base]}, rolls={"goal": dice}))
    s2 = GAME.new_match(GAME.config(players), chance=PresetChance(orders={"deck": [other]}, rolls={"goal": dice}))
    return s1, s2


@pytest.mark.parametrize(("players", "a", "b", "viewer"), [(4, 1, 2, 0), (4, 0, 3, 2), (3, 1, 3, 0), (3, 2, 3, 1)])
def test_what_a_seat_cannot_know_does_not_reach_it(players, a, b, viewer):
    s1, s2 = swapped(players, a, b)
    assert s1.hands != s2.hands or s1.aside != s2.aside
    assert_same_view(GAME, s1, s2, viewer)
    # The same public plays keep the views identical (the viewer leads or follows alike).
    rng = Chance(3)
    for _ in range(6):
        d1, d2 = s1.pending[0], s2.pending[0]
        common = [o for o in d1.option_ids if o in d2.option_ids]
        if not common:
            break
        choice = common[rng.below(len(common), "t")]
        GAME.apply(s1, {d1.seat: choice})
        GAME.apply(s2, {d2.seat: choice})
        assert_same_view(GAME, s1, s2, viewer)


def test_events_never_name_a_card_the_seat_has_not_seen():
    # A seat's events name only its own deal and cards played face up before them.
    for players in (3, 4):
        for seed in range(6):
            state = random_playout(GAME, GAME.config(players), seed, observe=False)
            for seat in range(players):
                seen: set[tuple[str, int]] = set()
                for _, event in state.log.since(seat, 0):
                    detail = event.detail
                    if event.kind == "deal":
                        assert event.to == frozenset([seat]) and event.seat == seat
                        seen |= {(c.suit, c.predator) for c in detail.cards}
                    elif event.kind == "play":
                        seen.add((detail.card.suit, detail.card.predator))
                    elif event.kind == "trick":
                        assert {(p.card.suit, p.card.predator) for p in detail.plays} <= seen
                    else:
                        assert event.to is None


def test_the_spectator_sees_every_hand():
    state = deal(3)
    obs = GAME.observe(state, SPECTATOR)
    assert obs.spectator and len(obs.hands) == 3 and len(obs.aside) == 12 and len(obs.hand) == 0
    assert len(GAME.observe(state, 0).hands) == 0


# -- sample_world ----------------------------------------------------------------------------


def random_positions(players: int, seeds: range, every: int = 9):
    """States at several points of seeded random playouts (copies)."""
    for seed in seeds:
        state = GAME.new_match(GAME.config(players), seed)
        rng = Chance(seed + 77)
        step = 0
        while state.pending:
            if step % every == every - 1:
                yield pickle.loads(pickle.dumps(state))
            d = state.pending[0]
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id})
            step += 1


def flat(hands: list[list[int]]) -> list[int]:
    return [c for hand in hands for c in hand]


def obs_bytes(state: PreyState, seat: int) -> bytes:
    return GAME.observe(state, seat).SerializeToString(deterministic=True)


def test_sample_world_keeps_what_the_seat_knows():
    checked = 0
    for players in (3, 4):
        for state in itertools.islice(random_positions(players, range(4), every=11), 0, None, 3):
            before = pickle.dumps(state)
            for seat in range(players):
                world = GAME.sample_world(state, seat, Chance(checked))
                checked += 1
                assert obs_bytes(world, seat) == obs_bytes(state, seat)
                mine = [(d.seat, d.kind, d.option_ids) for d in world.pending if d.seat == seat]
                assert mine == [(d.seat, d.kind, d.option_ids) for d in state.pending if d.seat == seat]
                assert world.hands[seat] == state.hands[seat]
                # Every card still where the seat cannot see it, and voids respected.
                assert sorted(flat(world.hands) + world.aside) == sorted(flat(state.hands) + state.aside)
                assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
                assert len(world.aside) == len(state.aside)
                for s in range(players):
                    assert not any(world.voids[s] >> SUIT[c] & 1 for c in world.hands[s])
                assert all(e.visible_to(seat) for e in world.log.events)
                rng = Chance(checked)
                while world.pending:
                    d = world.pending[0]
                    GAME.apply(world, {d.seat: rng.pick(d.options, "t").id})
                assert GAME.result(world) is not None
            assert pickle.dumps(state) == before
    assert checked > 40


def test_sample_world_of_a_finished_match_is_a_copy():
    state = random_playout(GAME, GAME.config(3), 2, observe=False)
    world = GAME.sample_world(state, 1, Chance(5))
    assert world.over and not world.pending and world.points == state.points


def void_position() -> tuple[PreyState, list[list[int]]]:
    """A 4-player position at trick 10 (3 cards a hand) where seat 0's opponents have shown
    voids that rule deals out: the first such position of seeded random playouts."""
    for seed in range(200):
        state = GAME.new_match(GAME.config(4), seed)
        rng = Chance(seed)
        while state.pending and not (state.trick == 10 and not state.plays):
            d = state.pending[0]
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id})
        if state.round != 1 or not state.pending:
            continue
        unknown = sorted(c for s in (1, 2, 3) for c in state.hands[s])
        consistent = []
        for first in itertools.combinations(unknown, 3):
            rest = [c for c in unknown if c not in first]
            for second in itertools.combinations(rest, 3):
                third = [c for c in rest if c not in second]
                hands = [list(first), list(second), third]
                if all(not state.voids[s] >> SUIT[c] & 1 for s, h in zip((1, 2, 3), hands, strict=True) for c in h):
                    consistent.append(hands)
        if 10 <= len(consistent) < 1680 // 3:
            return state, consistent
    raise AssertionError("no position with voids found")


def test_sample_world_deals_uniformly_under_voids():
    # Chi-square: every deal of the 9 unknown cards consistent with the voids is equally likely.
    state, consistent = void_position()
    index = {tuple(map(tuple, h)): i for i, h in enumerate(consistent)}
    counts = [0] * len(consistent)
    chance = Chance(12345)
    samples = 20 * len(consistent)
    for _ in range(samples):
        world = GAME.sample_world(state, 0, chance)
        counts[index[tuple(tuple(world.hands[s]) for s in (1, 2, 3))]] += 1
    assert sum(counts) == samples and min(counts) > 0
    assert chisquare(counts).pvalue > 0.001


def test_constrained_deal_is_uniform_on_a_small_case():
    # Cards 0,1 (suit 0) and 12,13 (suit 1) into places of sizes 1, 1, 2; place 0 may not take
    # suit 1. Deals: place 0 gets 0 or 1 (2 ways), then the 3 others to places 1 and 2: 3 ways.
    groups = [[0, 1], [12, 13]]
    allowed = [[True, True, True], [False, True, True]]
    counts: Counter[tuple[tuple[int, ...], ...]] = Counter()
    chance = Chance(9)
    for _ in range(3000):
        places = constrained_deal(groups, [1, 1, 2], allowed, chance)
        assert SUIT[places[0][0]] == 0
        counts[tuple(tuple(sorted(p)) for p in places)] += 1
    assert len(counts) == 6
    assert chisquare(list(counts.values())).pvalue > 0.001
    with pytest.raises(ValueError, match="no deal"):
        constrained_deal([[0, 1], [12]], [1, 2], [[False, True], [False, True]], chance)


# -- playouts, protocol, docs ----------------------------------------------------------------


def check_invariants(state: PreyState) -> None:
    players = state.players
    played = [c for t in state.done for _, c in t[2]] + [c for _, c in state.plays]
    everything = flat(state.hands) + state.aside + played
    assert sorted(everything) == list(range(DECK_SIZE)), "48 cards, each once"
    assert len(state.aside) == (12 if players == 3 else 0)
    assert sum(state.tricks_won) == len(state.done) == state.trick - 1 or state.over
    for seat, hand in enumerate(state.hands):
        in_trick = any(s == seat for s, _ in state.plays)
        assert len(hand) == 12 - len(state.done) - in_trick or state.over
        assert not any(state.voids[seat] >> SUIT[c] & 1 for c in hand)
    assert all(0 <= p <= 2 for p in state.points)
    assert state.round <= MAX_ROUNDS


def test_random_playouts_keep_the_invariants():
    # 2,000 seeded games (1,000 per player count): cards conserved, scores consistent with the
    # round-end events, and every match over within MAX_ROUNDS rounds (48 plays a round).
    longest = 0
    for players in (3, 4):
        for seed in range(1000):
            state = GAME.new_match(GAME.config(players), seed)
            rng = Chance(seed ^ 0x5EED)
            while state.pending:
                d = state.pending[0]
                GAME.apply(state, {d.seat: d.options[rng.below(len(d.options), "t")].id})
                if state.steps % 12 == 0:
                    check_invariants(state)
            check_invariants(state)
            assert state.steps <= MAX_ROUNDS * 12 * players
            ends = [e.detail for e in state.log.events if e.kind == "round_end"]
            assert len(ends) == state.round
            totals = [sum(e.scored[s] for e in ends) for s in range(players)]
            assert totals == state.points == list(ends[-1].points)
            for e in ends:
                assert sum(e.tricks) == 12
            assert state.winners == [s for s in range(players) if state.points[s] == max(state.points)]
            assert max(state.points) == 2 or state.round_limit
            longest = max(longest, state.round)
    assert longest < MAX_ROUNDS


def _proto_list(name: str) -> set[str]:
    text = (ROOT / "proto/arena/games/v1/prey.proto").read_text()
    block = re.search(rf"// {name} kinds:(.*?)\.\n", text, re.S)
    assert block
    return set(re.findall(r'"([^"]+)"', block.group(1)))


def test_proto_lists_exactly_the_kinds_produced():
    decisions: set[str] = set()
    events: set[str] = set()
    for players in (3, 4):
        for seed in range(10):
            state = GAME.new_match(GAME.config(players), seed)
            rng = Chance(seed)
            while state.pending:
                decisions.update(d.kind for d in state.pending)
                d = state.pending[0]
                GAME.apply(state, {d.seat: rng.pick(d.options, "t").id})
            events.update(e.kind for e in state.log.events)
    assert decisions == _proto_list("Decision")
    assert events == _proto_list("Event")


def test_rules_summary_names_every_kind():
    text = (ROOT / "arena/games/prey/rules.md").read_text()
    for kind in _proto_list("Decision") | _proto_list("Event"):
        assert f"`{kind}`" in text


def test_configurations_are_3_and_4_players():
    assert [c.players for c in configurations(GAME)] == [3, 4]


# -- bots ------------------------------------------------------------------------------------


class _Turn:
    def __init__(self, state: PreyState, seat: int) -> None:
        self.observation = GAME.observe(state, seat)
        self.options = list(state.pending[0].options)
        self.kind = "play"


def test_heuristic_ducks_when_on_goal_and_last():
    # Seat 3 has 2 tricks and 4 tricks left: it plays under the winner.
    # Its only goal in reach is 2 (dice 1 and 2): both losing cards lose, it sheds the one
    # more likely to win later (river 8, Prey 5, over river 11, Prey 1).
    hands = [[C("river", 6)], [C("river", 9)], [C("plains", 12)], [C("river", 2), C("river", 8), C("river", 11)]]
    state = position(hands=hands, trick=9, dice=[(1, 3), (1, 3), (1, 3), (1, 2)], tricks_won=[3, 2, 1, 2])
    play(state, C("river", 6), C("river", 9), C("plains", 12))
    # Prey numbers: river 6/8, 9/4 -> seat 0 leads prey 8; river 2/11, 8/5, 11/1.
    assert GoalBot().choose(_Turn(state, 3)) == "card:river-8"


def test_heuristic_takes_a_needed_last_trick():
    hands = [[C("river", 6)], [C("river", 9)], [C("plains", 12)], [C("river", 2), C("river", 8)]]
    state = position(hands=hands, trick=12, dice=[(1, 3), (1, 3), (1, 3), (2, 5)], tricks_won=[3, 4, 3, 1])
    play(state, C("river", 6), C("river", 9), C("plains", 12))
    assert GoalBot().choose(_Turn(state, 3)) == "card:river-2"  # prey 11 beats prey 8: 2 tricks


def test_bots_play_whole_matches():
    from arena.runner import play_match

    record = play_match(
        GAME,
        GAME.config(3),
        4,
        [make_bot("heuristic", "prey"), make_bot("random", "prey"), make_bot("heuristic:bias=0,patience=0", "prey")],
    )
    assert sorted(record.result["ranks"])[0] == 1


# --------------------------------------------------------------------------------------------
# Worlds from an observation (a served searching bot)


@pytest.mark.parametrize("players", [3, 4])
def test_world_from_observation_deals_the_unseen_cards_honouring_voids(players):
    """Along a random playout, a world built from the mover's observation keeps its hand and
    the public round, and deals exactly the unseen cards by size, no card in a shown void."""
    public = ("round", "trick", "dice", "points", "tricks_won", "leader", "turn", "plays", "done", "voids")
    public += ("over", "round_limit", "winners")
    voided = 0
    for state, seat, world in worlds_from_observations(GAME, GAME.config(players), 3, Chance(players)):
        assert {k: getattr(world, k) for k in public} == {k: getattr(state, k) for k in public}
        assert world.hands[seat] == state.hands[seat]
        assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
        assert len(world.aside) == len(state.aside)
        mine = sorted(c for s in range(players) if s != seat for c in world.hands[s]) + world.aside
        real = sorted(c for s in range(players) if s != seat for c in state.hands[s]) + state.aside
        assert sorted(mine) == sorted(real)
        for s in range(players):
            for suit in range(len(SUITS)):
                if world.voids[s] >> suit & 1:
                    voided += 1
                    assert all(SUIT[c] != suit for c in world.hands[s])
    assert voided > 0


def test_a_world_of_a_finished_three_player_match_keeps_the_hand_set_aside():
    # The set-aside hand is never shown, the end included: the world of a finished match was
    # dealt nothing, and its observation said 0 unseen cards where the seat's said 12 (an outside
    # rules probe, rulesC; in every finished 3-player match).
    for seed in range(3):
        config = GAME.config(3)
        state = GAME.new_match(config, seed)
        choices = Chance(seed)
        while state.pending:
            GAME.apply(state, {d.seat: choices.pick(d.option_ids, "t") for d in state.pending})
        for seat in range(3):
            seen = GAME.observe(state, seat)
            assert seen.over and seen.set_aside == 12 and len(seen.unseen_cards) == 12
            world = GAME.world_from_observation(config, seat, seen, Chance(seed))
            assert GAME.observe(world, seat).SerializeToString() == seen.SerializeToString()
            assert sorted(world.aside) == sorted(state.aside)


# -- worked examples through the engine (conformance pass) -----------------------------------


@pytest.mark.parametrize(
    ("dice", "scoring"),
    [((2, 5), {2, 5}), ((2, 6), {0, 2, 6})],
    ids=["example-2-and-5", "example-2-and-6"],
)
@pytest.mark.parametrize("tricks", range(12))
def test_examples_goal_numbers_at_the_round_end(dice, scoring, tricks):
    # Rules :97-103 (goals 2 and 5: exactly 2 or 5 tricks) and :119-127 (goals 2 and 6: 0, 2
    # or 6 tricks), NOTES text examples 1 and 2, through the engine's round end: seat 0 holds
    # ``tricks`` tricks before trick 12 and loses it (forest 2, Prey 12, takes it for seat 1).
    hands = [[C("forest", 12)], [C("forest", 2)], [C("forest", 11)], [C("plains", 9)]]
    state = last_trick(4, [dice, (1, 3), (1, 3), (1, 3)], [tricks, 11 - tricks, 0, 0], hands)
    assert GAME.observe(state, 0).seats[0].on_goal == (tricks in scoring)
    play(state, *[h[0] for h in hands])
    end = next(e for e in state.log.events if e.kind == "round_end")
    assert end.detail.tricks[0] == tricks and end.detail.tricks[1] == 12 - tricks
    assert end.detail.scored[0] == (tricks in scoring)
    assert state.points[0] == (1 if tricks in scoring else 0)


# -- typed event details (an outside probe: the prey phase's facts were in its text only) ----


def test_prey_phase_event_carries_the_round_the_tricks_and_the_mode():
    hands = [
        [C("sky", 10), C("forest", 1)],
        [C("sky", 1), C("forest", 2)],
        [C("sky", 5), C("forest", 3)],
        [C("sky", 8), C("forest", 4)],
    ]
    state = position(hands=hands, trick=6)
    play(state, C("sky", 10), C("sky", 1), C("sky", 5), C("sky", 8))
    event = state.log.events[-1]
    assert (event.kind, event.seat, event.to) == ("prey_phase", -1, None)
    assert event.detail == pb.PreyPhaseEvent(round=1, first_trick=7, last_trick=12, mode=pb.PREY)


@pytest.mark.parametrize("players", [3, 4])
def test_a_tracker_of_the_details_alone_knows_the_round_the_trick_and_the_mode(players):
    for seed in range(4):
        state = GAME.new_match(GAME.config(players), seed)
        rng = Chance(seed + 5)
        seen = [0] * players
        known = [(0, 0, pb.MODE_UNSPECIFIED)] * players  # (round, trick, mode) per seat
        while state.pending:
            for seat in range(players):
                for _, event in state.log.since(seat, seen[seat]):
                    round_, trick, mode = known[seat]
                    d = event.detail
                    if event.kind == "round":
                        known[seat] = (d.round, 1, pb.PREDATOR)
                    elif event.kind == "trick":
                        known[seat] = (round_, d.number + 1, mode)
                    elif event.kind == "prey_phase":
                        assert d.round == round_ and d.first_trick == trick
                        known[seat] = (round_, trick, d.mode)
                seen[seat] = len(state.log.events)
            (decision,) = state.pending
            obs = GAME.observe(state, decision.seat)
            assert (obs.round, obs.trick, obs.mode) == known[decision.seat]
            GAME.apply(state, {decision.seat: rng.pick(decision.option_ids, "choice")})
