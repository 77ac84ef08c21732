"""Rainbow: every rule of shared/rules/rainbowallplay.md and its rulings (NOTES §4.15), pinned."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.rainbow import GAME, Combo, Pile
from arena.games.rainbow.game import (
    COPIES,
    RANKS,
    RUN,
    SET,
    SINGLE,
    claim_order,
    combo_of,
    counts_of,
    legal_combos,
    organise,
    public_cards,
    trim,
)
from arena.games.v1 import rainbow_pb2 as pb
from arena.scenario import request_for, run_script, scenario
from bots.games.rainbow import BOTS
from bots.registry import make_bot
from tests.contract import assert_same_view, configurations, random_playout


def cards(text: str) -> list[int]:
    """Counts by rank from a string of ranks: "1136" = two 1s, a 3 and a 6."""
    return counts_of(int(c) for c in text)


def deck(face_up: str, *chunks: str) -> list[int]:
    """A deck order: the face-up cards, the given hands (and 2p reserves) in deal order, then
    every remaining card in rank order (the rest of the hands, or the 3p set-aside cards)."""
    order = [int(c) for c in face_up + "".join(chunks)]
    pool = counts_of(order)
    assert all(n <= COPIES for n in pool), "more than 10 cards of a rank"
    return order + [r for r in RANKS for _ in range(COPIES - pool[r - 1])]


def chance(order: list[int], lead: int = 0) -> PresetChance:
    return PresetChance(orders={"deck": [order]}, picks={"start": [lead]}, strict=True)


def ids(state) -> tuple[str, ...]:
    (decision,) = state.pending
    return decision.option_ids


def play(state, *steps: str) -> None:
    run_script(GAME, state, steps)


def reposition(state, hands, middle, lead=0, reserves=None):
    """Rebuild a state at the start of a trick with chosen hands and piles (for end-game rules
    that a deal cannot reach quickly); uses the game's own trick start."""
    state.hands = [cards(h) for h in hands]
    if reserves is not None:
        state.reserves = [cards(r) for r in reserves]
    state.middle = [Pile(r, n) for r, n in middle]
    state.taken_by = [-1] * len(state.middle)
    state.lead = lead
    GAME._start_trick(state)
    GAME._advance(state)
    GAME.refresh(state)
    return state


# Three-player hands used by the scripted tricks (seat 0 leads; 15 cards are set aside).
HANDS_3P = ("11222333456666", "11122334455666", "11122233445566")


def three_player(lead: int = 0):
    return GAME.new_match(GAME.config(3), chance=chance(deck("135", *HANDS_3P), lead))


# --------------------------------------------------------------------------------------------
# Combos (rules :40-62, :340-344)


@pytest.mark.parametrize("run", [(2, 3), (1, 2, 3, 4), (3, 4, 5, 6)])
def test_text_example_1_legal_runs(run):
    assert combo_of(run) == Combo(RUN, run[0], len(run))


@pytest.mark.parametrize(
    ("group", "expected"),
    [
        ((4,), Combo(SINGLE, 4, 1)),
        ((2, 2, 2), Combo(SET, 2, 3)),
        ((6, 5), Combo(RUN, 5, 2)),
        ((1, 3), None),
        ((2, 2, 3), None),
        ((), None),
    ],
)
def test_combo_types(group, expected):
    assert combo_of(group) == expected


def test_text_example_4_largest_run_six_largest_set_ten():
    everything = [COPIES] * len(RANKS)
    combos = legal_combos(everything, None)
    assert max(c.length for c in combos if c.kind == RUN) == 6
    assert Combo(RUN, 1, 6) in combos
    assert max(c.length for c in combos if c.kind == SET) == 10
    assert len(combos) == 6 + 6 * 9 + 15  # singles, sets of 2..10, runs of 2..6


@pytest.mark.parametrize(
    ("restriction", "expected"),
    [
        (None, ["single:2", "single:3", "single:5", "set:2x2", "set:3x2", "run:2-3"]),
        (SET, ["single:2", "single:3", "single:5", "set:2x2", "set:3x2"]),
        (RUN, ["single:2", "single:3", "single:5", "run:2-3"]),
    ],
)
def test_legal_combos_follow_the_restriction(restriction, expected):
    # After a Set only Singles and Sets, after a Run only Singles and Runs (:110-136).
    assert [c.id for c in legal_combos(cards("22235"), restriction)] == expected


@pytest.mark.parametrize(
    ("combo", "option_id", "label"),
    [
        (Combo(SINGLE, 4, 1), "single:4", "a single 4"),
        (Combo(SET, 2, 3), "set:3x2", "a set of three 2s"),
        (Combo(RUN, 2, 4), "run:2-5", "a run 2-3-4-5"),
    ],
)
def test_option_ids(combo, option_id, label):
    assert (combo.id, combo.label) == (option_id, label)


# --------------------------------------------------------------------------------------------
# Point piles (rules :189-228)


def test_text_example_2_points_equal_rank():
    assert Pile(2, 1).total == 2
    assert Pile(5, 2).total == 10


def test_text_example_3_five_threes_make_two_pairs_and_a_single():
    piles = organise(cards("33333"))
    assert piles == [Pile(3, 1), Pile(3, 2), Pile(3, 2)]
    assert [p.total for p in piles] == [3, 6, 6]


def test_piles_lowest_total_first_singles_before_pairs_on_equal_totals():
    assert organise(cards("112665")) == [Pile(2, 1), Pile(1, 2), Pile(5, 1), Pile(6, 2)]


@pytest.mark.parametrize(
    ("claims", "kept", "dropped"),
    [(4, 4, 0), (3, 3, 1), (2, 2, 2), (6, 4, 0)],
)
def test_discard_from_the_low_end(claims, kept, dropped):
    piles = [Pile(1, 1), Pile(2, 1), Pile(4, 2), Pile(6, 2)]
    keep, drop = trim(piles, claims)
    assert keep == piles[dropped:] and drop == piles[:dropped] and len(keep) == kept


def test_claim_order_size_then_highest_card_then_earlier():
    plays = [
        (0, Combo(SINGLE, 6, 1)),
        (1, Combo(RUN, 1, 2)),  # 2 cards, high 2
        (2, Combo(SET, 3, 2)),  # 2 cards, high 3
        (3, Combo(SET, 3, 2)),  # same as seat 2 but later
        (4, Combo(RUN, 1, 3)),  # 3 cards
    ]
    assert claim_order(plays) == [4, 2, 3, 1, 0]


# --------------------------------------------------------------------------------------------
# Setup (rules :66-94, :273-283)


@pytest.mark.parametrize(
    ("players", "face_up", "hand", "reserve", "set_aside"),
    [(2, 4, 14, 14, 0), (3, 3, 14, 0, 15), (4, 4, 14, 0, 0), (5, 5, 11, 0, 0), (6, 6, 9, 0, 0)],
)
def test_rule_vector_2_setup_by_player_count(players, face_up, hand, reserve, set_aside):
    state = GAME.new_match(GAME.config(players), seed=3)
    assert len(state.middle) == face_up and all(p.size == 1 for p in state.middle)
    assert [sum(h) for h in state.hands] == [hand] * players
    assert [sum(r) for r in state.reserves] == ([reserve] * players if reserve else [])
    assert sum(state.set_aside) == set_aside
    assert public_cards(state) == counts_of(p.rank for p in state.middle)


def test_deal_order_and_first_lead():
    state = three_player(lead=2)
    assert state.middle == [Pile(1, 1), Pile(3, 1), Pile(5, 1)]
    assert state.hands == [cards(h) for h in HANDS_3P]
    assert sum(state.set_aside) == 15
    assert state.lead == 2 and state.pending[0].seat == 2


def test_two_player_deal_hand_then_reserve_per_seat():
    order = deck("5566", "1" * 10 + "2222", "3" * 10 + "4444", "5" * 8 + "6" * 6)
    state = GAME.new_match(GAME.config(2), chance=chance(order))
    assert state.hands == [cards("1" * 10 + "2222"), cards("5" * 8 + "6" * 6)]
    assert state.reserves == [cards("3" * 10 + "4444"), cards("222222444444" + "66")]


def test_rule_vector_1_first_trick_point_cards_are_singles_only():
    # Four face-up 3s stay four singles (:171-177), not two pairs.
    state = GAME.new_match(GAME.config(4), chance=chance(deck("3333")))
    assert state.middle == [Pile(3, 1)] * 4
    obs = GAME.observe(state, 0)
    assert obs.first_trick and [p.count for p in obs.middle] == [1, 1, 1, 1]


def test_player_counts():
    for players in (2, 6):
        GAME.config(players)
    for players in (1, 7):
        with pytest.raises(ConfigError, match="2-6 players"):
            GAME.config(players)


# --------------------------------------------------------------------------------------------
# A scripted three-player match: plays, restrictions, claims, the next middle, the next lead


def test_a_set_restricts_the_trick_to_singles_and_sets():
    state = three_player()
    assert "run:1-3" in ids(state)  # the lead may play anything
    play(state, "set:3x2")
    assert all(not i.startswith("run:") for i in ids(state))
    assert GAME.observe(state, 1).restriction == pb.SET


def test_a_run_restricts_the_trick_to_singles_and_runs():
    state = three_player()
    play(state, "run:4-6")
    assert all(not i.startswith("set:") for i in ids(state))
    assert "single:1" in ids(state) and "run:1-6" in ids(state)


def test_singles_leave_every_combo_open():
    state = three_player()
    play(state, "single:6", "single:6")
    assert {i.split(":")[0] for i in ids(state)} == {"single", "set", "run"}


def test_first_trick_claims_biggest_combo_first_and_the_next_middle():
    state = three_player()
    play(state, "set:3x2", "single:6", "set:2x1")
    # Claim order: seat 0 (3 cards), seat 2 (2 cards), seat 1 (1 card) (:148-151).
    assert state.pending[0].seat == 0 and state.pending[0].kind == "claim"
    assert ids(state) == ("claim:0", "claim:1", "claim:2")
    assert state.pending[0].options[2].label == "take the single 5 (5 points)"
    play(state, "claim:2")
    assert state.pending[0].seat == 2
    play(state, "claim:1")
    # The last pile goes to seat 1 without a decision.
    assert state.scores == [5, 1, 3]
    assert state.claimed == [cards("5"), cards("1"), cards("3")]
    # Played 2 2 2 6 1 1 -> single 2, pair of 1s, pair of 2s, single 6 (equal totals: single
    # first); 3 claimers -> the single 2 is discarded from the low end.
    assert state.middle == [Pile(1, 2), Pile(2, 2), Pile(6, 1)]
    assert state.discarded == cards("2")
    assert state.trick == 2 and state.lead == 0 and state.pending[0].seat == 0


def test_claim_tie_breakers_in_a_trick():
    state = three_player()
    # All runs of 4 cards: seat 0 3-6 and seat 2 3-6 tie on size and high card: seat 0 played
    # earlier; seat 1 1-4 has the lower top card and claims last.
    play(state, "run:3-6", "run:1-4", "run:3-6")
    assert [d.seat for d in state.pending] == [0]
    assert GAME.observe(state, 0).claim_order == [0, 2, 1]
    play(state, "claim:2", "claim:1")
    assert state.scores == [5, 1, 3]
    assert state.lead == 0


def test_identical_piles_are_one_choice_and_a_last_pile_is_forced():
    state = GAME.new_match(GAME.config(4), chance=chance(deck("3356", "1" * 10 + "2222")))
    # The other hands come from the rest in rank order: seat 2 holds 4s and 5s, seat 3 5s and 6s.
    play(state, "set:4x1", "single:2", "single:4", "single:5")
    assert ids(state) == ("claim:0", "claim:2", "claim:3")
    assert [o.label for o in state.pending[0].options] == [
        "take the single 3 (3 points)",
        "take the single 5 (5 points)",
        "take the single 6 (6 points)",
    ]
    play(state, "claim:3", "claim:2")
    # Seat 0, seat 3 (single 5) chose; seat 2 and seat 1 are left with two single 3s: one
    # choice, so both claims are made without a decision.
    assert state.scores == [6, 3, 3, 5] and state.trick == 2


def test_fewer_piles_than_claimers_later_claimers_get_nothing():
    # Four 3s played become two pairs: 4 claimers, 2 piles (:337-338).
    hands = ("3" + "1" * 9 + "2222", "3" + "2" * 5 + "4" * 8, "3" + "5" * 9 + "4" + "666")
    state = GAME.new_match(GAME.config(4), chance=chance(deck("1245", *hands)))
    assert state.hands[3] == cards("3" * 7 + "6" * 7)
    play(state, "single:3", "single:3", "single:3", "single:3", "claim:3", "claim:2", "claim:1")
    assert state.scores == [5, 4, 2, 1]
    assert state.middle == [Pile(3, 2), Pile(3, 2)]
    play(state, "single:1", "single:2", "single:4", "single:3")
    # Seat 2 and 3 played 3s and claim first (seat 2 earlier), seat 1 then seat 0 get nothing.
    assert [e.text for e in state.log.events if e.kind == "claim"][-2:] == [
        "finds no point pile left to claim",
        "finds no point pile left to claim",
    ]
    assert state.claimed[2][2] == 2 and state.claimed[3][2] == 2


def test_next_lead_is_the_biggest_combo():
    state = three_player()
    play(state, "single:1", "run:1-6", "single:6")
    play(state, "claim:2", "claim:1")
    assert state.lead == 1 and state.pending[0].seat == 1


def test_illegal_combo_is_rejected_and_changes_nothing():
    state = three_player()
    before = pickle.dumps(state)
    for bad in ("set:5x6", "run:5-6x", "single:7", "claim:0"):
        with pytest.raises(IllegalChoice):
            GAME.apply(state, {0: bad})
    assert pickle.dumps(state) == before
    play(state, "set:2x1")
    with pytest.raises(IllegalChoice):  # a run after a set
        GAME.apply(state, {1: "run:1-3"})
    assert pickle.dumps(state) != before


# --------------------------------------------------------------------------------------------
# Running out of cards (rules :232-269, NOTES 5-7)


def test_player_emptying_hand_still_claims_then_sits_out():
    state = reposition(GAME.new_match(GAME.config(3), seed=1), ["66", "123", "345"], [(1, 1), (2, 1), (3, 1)], lead=0)
    play(state, "set:2x6", "single:1", "single:5")
    # Seat 0 emptied its hand in the trick and still claims first.
    assert state.pending[0].seat == 0
    play(state, "claim:2", "claim:1")
    assert state.scores == [3, 1, 2]
    # One player out: the game goes on; seat 0 skips; the next lead passes clockwise; piles are
    # trimmed to the 2 claimers.
    assert state.phase == "play" and state.lead == 1
    assert state.middle == [Pile(5, 1), Pile(6, 2)]
    assert state.discarded == cards("1")
    assert GAME.observe(state, 1).out == [True, False, False]
    play(state, "single:2", "single:4")
    assert [d.seat for d in state.pending] == [2]
    play(state, "claim:1")
    assert state.scores == [3, 6, 14]
    # Next trick (the 4th: the repositioned trick was the 2nd): two forced singles 3 empty both
    # hands; seat 2 (earlier) claims first; then two players are out and the game ends.
    assert state.trick == 4 and state.pending[0].seat == 2
    play(state, "claim:1")
    assert state.phase == "over" and state.scores == [3, 8, 18]


def test_one_legal_combo_is_still_asked_unless_it_is_a_last_card():
    # Under a Run a hand all of one rank has one legal combo (a Single); a Single is always legal
    # [:133], so at the table nobody can tell it was forced: the seat is asked (a skipped
    # decision would show in the others' decision_index). A last card is played unasked.
    state = reposition(GAME.new_match(GAME.config(3), seed=1), ["456", "22", "13"], [(3, 1)] * 3, lead=0)
    play(state, "run:4-6")
    assert state.pending[0].seat == 1 and ids(state) == ("single:2",)
    mixed = reposition(GAME.new_match(GAME.config(3), seed=1), ["456", "23", "13"], [(3, 1)] * 3, lead=0)
    play(mixed, "run:4-6")
    assert mixed.pending[0].seat == 1 and "single:2" in ids(mixed)
    for each in (state, mixed):
        play(each, "single:2")
    assert_same_view(GAME, state, mixed, 0)
    last = reposition(GAME.new_match(GAME.config(3), seed=1), ["456", "2", "13"], [(3, 1)] * 3, lead=0)
    play(last, "run:4-6")
    assert last.pending[0].seat == 2 and last.hands[1] == cards("")


def test_two_players_out_end_the_game_with_ties_shared():
    state = reposition(GAME.new_match(GAME.config(4), seed=1), ["6", "5", "45", "33"], [(3, 1)] * 4, lead=0)
    # Seats 0 and 1 have one card: forced singles; seat 2 and 3 choose.
    assert state.pending[0].seat == 2
    play(state, "single:5", "set:2x3")
    # Claim order: seat 3 (2 cards), seat 0 (6), seat 2 (5), seat 1 (5, later): all forced.
    assert state.phase == "over" and not state.pending
    assert state.scores == [3, 3, 3, 3]
    result = GAME.result(state)
    assert result.ranks == (1, 1, 1, 1)
    assert GAME.observe(state, SPECTATOR).phase == pb.OVER


def test_exactly_two_players_out_end_the_game_while_others_still_hold_cards():
    """Rules :256-264: "If 2 or more players are out of cards: The game ends immediately"."""
    state = reposition(
        GAME.new_match(GAME.config(4), seed=1), ["6", "5", "456", "3345"], [(1, 1), (2, 1), (3, 1), (4, 1)], lead=0
    )
    # Seats 0 and 1 play their last card unasked; seats 2 and 3 keep cards.
    assert state.pending[0].seat == 2
    play(state, "single:4", "single:3")
    # Claim order by highest card: seat 0 (6), seat 1 (5), seat 2 (4), seat 3 (3, last pile forced).
    assert [d.seat for d in state.pending] == [0] and ids(state) == ("claim:0", "claim:1", "claim:2", "claim:3")
    play(state, "claim:3", "claim:2", "claim:1")
    assert [sum(h) for h in state.hands] == [0, 0, 2, 3]
    assert state.phase == "over" and not state.pending
    assert state.scores == [4, 3, 2, 1]
    assert GAME.result(state).ranks == (1, 2, 3, 4)


def test_highest_score_wins():
    state = reposition(GAME.new_match(GAME.config(3), seed=1), ["6", "5", "44"], [(1, 1), (2, 2), (6, 2)])
    play(state, "set:2x4", "claim:2", "claim:1")
    assert state.phase == "over"
    assert state.scores == [4, 1, 12]
    assert GAME.result(state).ranks == (2, 3, 1)


# --------------------------------------------------------------------------------------------
# The 2-Player Variant (rules :273-324)


def two_player(lead: int = 0):
    order = deck("1356", "11223344556612", "1" * 5 + "2" * 5 + "3" * 4, "33445566123456")
    return GAME.new_match(GAME.config(2), chance=chance(order, lead))


def test_two_player_trick_alternates_lead_follower_and_claims_four_times():
    state = two_player(lead=1)
    seats = []
    for step in ("single:1", "set:2x1", "single:6", "single:6"):
        seats.append(state.pending[0].seat)
        play(state, step)
    assert seats == [1, 0, 1, 0]
    # A Set restricts all four combos of the trick (:295-298).
    # Claims: seat 0 set (2 cards), then singles 6 (seat 1 earlier), 6 (seat 0), 1 (seat 1).
    claimers = []
    while state.phase == "claim":
        claimers.append(state.pending[0].seat if state.pending else None)
        if state.pending:
            play(state, state.pending[0].option_ids[-1])
    assert claimers[:3] == [0, 1, 0]
    assert state.scores == [6 + 3, 5 + 1]
    assert state.middle == [Pile(1, 1), Pile(1, 2), Pile(6, 2)]  # 4 claims: nothing discarded
    assert state.lead == 0


def test_two_player_restriction_spans_both_players_combos():
    state = two_player()
    play(state, "run:1-3")
    assert not any(i.startswith("set:") for i in ids(state))
    play(state, "single:1")
    assert not any(i.startswith("set:") for i in ids(state))


def test_two_player_empty_hand_takes_reserve_then_out_again_ends_with_bonus():
    base = GAME.new_match(GAME.config(2), seed=2)
    state = reposition(base, ["12", "3456"], [(1, 1), (2, 1), (3, 1), (4, 1)], reserves=["6", "11"])
    play(state, "run:1-2")
    # Seat 0's hand emptied: it takes the face-down reserve at once (:312-314).
    assert state.hands[0] == cards("6") and state.reserves[0] == [0] * 6
    reserve_events = [e for e in state.log.events if e.kind == "reserve"]
    assert reserve_events[-1].to == frozenset({0}) and reserve_events[-2].to is None
    play(state, "single:3")
    # Seat 0 plays its last card (forced) and is out again; seat 1 still plays its second combo.
    assert state.hands[0] == [0] * 6 and state.pending[0].seat == 1
    play(state, "run:4-5")
    # Claims: seat 1 run 4-5 (2 cards, high 5), seat 0 run 1-2 (2 cards, high 2), seat 0
    # single 6, seat 1 single 3 (the last pile, without a decision).
    assert state.pending[0].seat == 1
    play(state, "claim:3", "claim:2", "claim:1")
    assert state.phase == "over"
    # The other player scores +1 per card left in hand, rank ignored (:320-324): its 6; its
    # reserve (two 1s, never taken) is not in hand.
    assert state.bonus == [0, 1]
    assert state.scores == [3 + 2, 4 + 1 + 1]


def test_two_player_bonus_counts_cards_in_hand():
    base = GAME.new_match(GAME.config(2), seed=2)
    state = reposition(base, ["1", "345566"], [(1, 1), (2, 1), (3, 1), (4, 1)], reserves=["", "11"])
    # Seat 0 has no reserve left: its forced single empties its hand, it plays no second combo
    # and the game ends at the end of the trick; seat 1 plays both its combos.
    play(state, "single:3", "single:6", "claim:3", "claim:2", "claim:1")
    assert state.phase == "over"
    assert state.discarded == cards("1")  # the pile nobody claimed
    assert state.bonus == [0, 4]
    assert state.scores == [2, 4 + 3 + 4]
    end = state.log.events[-1]
    assert end.kind == "end" and list(end.detail.bonus) == [0, 4]


# --------------------------------------------------------------------------------------------
# Hidden information


def test_hidden_information_never_leaks_3p():
    # Seats 1 and 2 swap hands, and seat 2 swaps cards with the set-aside pile; seat 0 must
    # not be able to tell, however the trick goes.
    a = deck("135", HANDS_3P[0], HANDS_3P[1], HANDS_3P[2])
    b_hand2 = "11122233445556"  # a 6 went to the set-aside pile, a 5 came out of it
    b = deck("135", HANDS_3P[0], b_hand2, HANDS_3P[1])
    assert sorted(a) == sorted(b) and a[:17] == b[:17]
    script = ["single:6", "single:1", "single:2", "claim:2", "claim:1"]
    states = [GAME.new_match(GAME.config(3), chance=chance(order)) for order in (a, b)]
    for step in [None, *script]:
        if step:
            for state in states:
                play(state, step)
        assert_same_view(GAME, states[0], states[1], 0)
    assert GAME.observe(states[0], SPECTATOR) != GAME.observe(states[1], SPECTATOR)


def test_hidden_information_never_leaks_2p_reserves_unknown_to_their_owner():
    hand0 = "11223344556612"
    a = deck("1356", hand0, "1" * 5 + "2" * 5 + "3" * 4, "33445566123456")
    # Seat 0's own reserve swaps cards with seat 1's hand and reserve.
    b = deck("1356", hand0, "1" * 5 + "2" * 4 + "3" * 4 + "4", "33445566123455")
    assert sorted(a) == sorted(b)
    states = [GAME.new_match(GAME.config(2), chance=chance(order)) for order in (a, b)]
    for step in [None, "single:1", "single:1", "single:2"]:
        if step:
            for state in states:
                play(state, step)
        assert_same_view(GAME, states[0], states[1], 0)
    assert states[0].reserves != states[1].reserves


def test_observation_shows_own_hand_and_what_is_public():
    state = three_player()
    play(state, "set:3x2")
    obs = GAME.observe(state, 1)
    assert list(obs.hand.counts) == cards(HANDS_3P[1])
    assert list(obs.hand_sizes) == [11, 14, 14] and obs.set_aside == 15
    assert not obs.hands and not obs.set_aside_cards.counts
    assert [p.combo.length for p in obs.played] == [3] and obs.turn_seat == 1
    # Unseen by seat 1: 60 - its 14 cards - 3 face-up - 3 played.
    assert sum(obs.unseen.counts) == 40 and obs.unseen.counts[1] == 10 - 2 - 3
    spectator = GAME.observe(state, SPECTATOR)
    assert len(spectator.hands) == 3 and sum(spectator.set_aside_cards.counts) == 15


# --------------------------------------------------------------------------------------------
# Random playouts


def check_invariants(state) -> None:
    # Every card is in exactly one place.
    places = [*state.hands, *state.reserves, state.set_aside, public_cards(state)]
    assert [sum(p[r - 1] for p in places) for r in RANKS] == [COPIES] * len(RANKS)
    # Scores are the claimed ranks (plus the 2p end bonus).
    for seat in range(state.players):
        claimed = sum(r * n for r, n in zip(RANKS, state.claimed[seat], strict=True))
        assert state.scores[seat] == claimed + state.bonus[seat]
    if state.phase == "play" and not state.plays:  # a trick starts: piles <= its claims
        assert len(state.middle) <= len(state.holding()) * state.combos_each
    if state.pending and state.pending[0].kind == "claim":  # only combos of this trick claim
        assert state.pending[0].seat in {seat for seat, _ in state.plays}
    if not state.pending:
        out = sum(1 for h in state.hands if not any(h))
        assert out >= (1 if state.players == 2 else 2)


@pytest.mark.parametrize("config", list(configurations(GAME)), ids=lambda c: f"{c.players}p")
def test_random_playouts_keep_every_card_and_score_right(config):
    for seed in range(400):  # 5 player counts: 2,000 games (GAME-DONE)
        state = random_playout(GAME, config, seed, invariant=check_invariants, observe=seed < 5)
        # the docstring's bound: H tricks of one combo and one claim a player (2p: 14 tricks of 4 + 4)
        assert state.steps <= {2: 112, 3: 84, 4: 112, 5: 110, 6: 108}[config.players]
        if config.players == 2:
            assert any(b for b in state.bonus) or all(not any(h) for h in state.hands)


# --------------------------------------------------------------------------------------------
# Bots


def test_heuristic_claims_the_biggest_pile_and_plays_legal_combos():
    state = three_player()
    play(state, "set:3x2", "single:6", "set:2x1")
    bot = make_bot("heuristic", "rainbow")
    assert bot.decide(request_for(GAME, state, 0)) == "claim:2"
    for players in range(2, 7):
        fresh = scenario(GAME, players, seed=players)
        seat = fresh.pending[0].seat
        assert make_bot("heuristic", "rainbow").decide(request_for(GAME, fresh, seat)) in ids(fresh)


def test_heuristic_two_player_counts_its_second_combo_as_its_own_claim():
    # An outside probe (rulesG, finding 1): the last trick, seat 1 leads with 1 2 against seat
    # 0's lone 1. A Run claims once (8) and lost 93-95; two Singles claim twice (8, then 5 by
    # the earlier play against seat 0's equal 1) and win 98-94.
    base = GAME.new_match(GAME.config(2), seed=2)
    state = reposition(base, ["1", "12"], [(1, 2), (2, 2), (5, 1), (4, 2)], lead=1, reserves=["", ""])
    state.scores = [90, 85]
    assert ids(state) == ("single:1", "single:2", "run:1-2")
    assert make_bot("heuristic", "rainbow").decide(request_for(GAME, state, 1)) == "single:1"
    while state.pending:
        (decision,) = state.pending
        play(state, make_bot("heuristic", "rainbow").decide(request_for(GAME, state, decision.seat)))
    assert state.scores == [94, 98]


@pytest.mark.parametrize("params", [{"speed": "1"}, {"keep": "x"}, {"keep": "4"}])
def test_heuristic_rejects_bad_parameters(params):
    with pytest.raises(ConfigError):
        BOTS["heuristic"](params)


# --------------------------------------------------------------------------------------------
# Worlds from an observation (a served searching bot)


def test_world_from_observation_keeps_the_hand_and_deals_the_unseen_cards_by_size():
    state = three_player()
    play(state, "set:3x2")
    seen = GAME.observe(state, 1)
    world = GAME.world_from_observation(state.config, 1, seen, Chance(7))
    assert world.hands[1] == cards(HANDS_3P[1])
    assert [sum(world.hands[0]), sum(world.hands[2]), sum(world.set_aside)] == [11, 14, 15]
    dealt = [world.hands[0][i] + world.hands[2][i] + world.set_aside[i] for i in range(len(RANKS))]
    assert dealt == list(seen.unseen.counts)
    assert world.queue == state.queue == [1, 2] and world.plays == state.plays
    assert world.hands[0] != state.hands[0] or world.set_aside != state.set_aside


@pytest.mark.parametrize("players", [2, 3, 5])
def test_world_from_observation_rebuilds_every_public_field(players):
    """Along a random playout, the public parts of a world built from the mover's observation
    (the trick's queue and plays, claims, piles, scores) are the real state's."""
    public = ("queue", "plays", "restriction", "order", "claims_made", "play_claims", "middle", "taken_by")
    public += ("scores", "claimed", "discarded", "trick", "lead", "phase")
    state, rng = GAME.new_match(GAME.config(players), 11), Chance(3)
    while state.pending:
        (decision,) = state.pending
        world = GAME.world_from_observation(state.config, decision.seat, GAME.observe(state, decision.seat), rng)
        assert {k: getattr(world, k) for k in public} == {k: getattr(state, k) for k in public}
        assert [sum(h) for h in world.hands] == [sum(h) for h in state.hands]
        assert [sum(r) for r in world.reserves] == [sum(r) for r in state.reserves]
        GAME.apply(state, {decision.seat: rng.pick(decision.options, "t").id})


def test_world_from_observation_deals_hypergeometrically():
    """The number of 6s in another hand follows the hypergeometric law of the unseen cards."""
    from math import comb

    from tests.test_sample_world import SAMPLES, assert_fits

    state = GAME.new_match(GAME.config(4), 9)
    seen = GAME.observe(state, 0)
    unseen, sixes, size = sum(seen.unseen.counts), seen.unseen.counts[5], seen.hand_sizes[1]
    rng = Chance(14)
    counts = Counter(
        min(GAME.world_from_observation(state.config, 0, seen, rng).hands[1][5], 7) for _ in range(SAMPLES)
    )
    pmf = {k: comb(sixes, k) * comb(unseen - sixes, size - k) / comb(unseen, size) for k in range(min(sixes, size) + 1)}
    lumped = {k: p for k, p in pmf.items() if k < 7}
    lumped[7] = sum(p for k, p in pmf.items() if k >= 7)
    assert_fits(counts, lumped, SAMPLES)


def test_two_player_piles_are_trimmed_to_the_four_claims_of_the_next_trick():
    # Ruling 3 with 2 players: each combo claims, so 4 piles are kept (not 2, one per player).
    base = GAME.new_match(GAME.config(2), seed=2)
    state = reposition(base, ["12345666", "123455"], [(1, 1), (2, 1), (3, 1), (4, 1)], reserves=["", "22"])
    play(state, "run:1-6", "run:1-5")
    # Seat 0 holds 6 6 under a Run: one legal combo, still asked.
    assert ids(state) == ("single:6",)
    play(state, "single:6")
    # Seat 1's last card (a 5) is played unasked; its hand empties and it takes its reserve.
    assert state.hands == [cards("6"), cards("22")] and state.phase == "claim"
    # Claims: run 1-6 (seat 0), run 1-5 (seat 1), single 6 (seat 0), single 5 (seat 1, forced).
    play(state, "claim:3", "claim:2", "claim:1")
    assert state.scores == [4 + 2, 3 + 1]
    # Played 1-6, 1-5, 6, 5: pairs of 1s-4s and 6s, three 5s = a pair and a single. Lowest
    # first: pair of 1s (2), pair of 2s (4), single 5 (5), pair of 3s (6), 4s (8), 5s (10),
    # 6s (12); 7 piles, 4 claims: the three lowest are discarded.
    assert state.middle == [Pile(3, 2), Pile(4, 2), Pile(5, 2), Pile(6, 2)]
    assert state.discarded == cards("11225")
    assert state.trick == 3 and state.lead == 0


# --------------------------------------------------------------------------------------------
# Worked examples through the engine (conformance pass)


def five_threes_trick():
    """Trick 2 of a 4-player game: seat 0 plays a pair of 3s, seats 1-3 a single 3 each (five
    3s played); the middle holds a single 1, a single 2, a single 4 and a pair of 5s."""
    base = GAME.new_match(GAME.config(4), seed=1)
    state = reposition(base, ["3356", "344", "344", "344"], [(1, 1), (2, 1), (4, 1), (5, 2)], lead=0)
    assert state.trick == 2
    play(state, "set:2x3", "single:3", "single:3", "single:3")
    return state


def test_text_example_2_a_2_scores_2_and_a_pair_of_5s_scores_10():
    # Rules :189-196 (NOTES text example 2): claim order seat 0 (2 cards), then the singles
    # 3 in play order; seat 0 takes the pair of 5s (10 points), seat 1 the single 2 (2).
    state = five_threes_trick()
    assert state.pending[0].options[3].label == "take the pair of 5s (10 points)"
    play(state, "claim:3", "claim:1", "claim:2")  # seat 3 gets the single 1 unasked
    assert state.scores == [10, 2, 4, 1]
    assert state.claimed[0] == cards("55") and state.claimed[1] == cards("2")
    claims = [e.detail for e in state.log.events if e.kind == "claim"]
    assert [(c.seat, c.cards.total, c.score) for c in claims] == [(0, 10, 10), (1, 2, 2), (2, 4, 4), (3, 1, 1)]


def test_text_example_3_five_threes_become_two_pairs_and_a_single_in_the_next_middle():
    # Rules :208-223 (NOTES text example 3): the five 3s played form a single 3 and two pairs
    # of 3s (totals 3, 6, 6, lowest first); 4 claimers, 3 piles: nothing is discarded.
    state = five_threes_trick()
    play(state, "claim:3", "claim:1", "claim:2")
    assert state.trick == 3 and state.phase == "play" and state.pending[0].seat == 0
    assert state.middle == [Pile(3, 1), Pile(3, 2), Pile(3, 2)]
    assert [p.total for p in GAME.observe(state, 1).middle] == [3, 6, 6]
    assert state.discarded == cards("")
    middle = [e.detail for e in state.log.events if e.kind == "middle"][-1]
    assert [(p.rank, p.count) for p in middle.piles] == [(3, 1), (3, 2), (3, 2)] and not middle.discarded


def test_plays_left_leaves_out_a_two_player_seat_out_for_good():
    """Ruling 8: at 2 players a seat out for the second time plays no more combos in the trick;
    it stays queued until its turn and is skipped there. plays_left counted those turns (3 where
    2 combos follow: an outside probe); version 2.1 counts only seats that still hold cards."""
    from arena.games.rainbow.game import counts_of

    state = GAME.new_match(GAME.config(2), 1)
    state.hands = [counts_of([3, 3]), counts_of([1, 2, 3, 4, 5, 6, 1, 2, 3, 4])]
    state.reserves = [counts_of([]), counts_of([])]  # seat 0 took its reserve already
    state.middle = [Pile(1, 1), Pile(2, 1), Pile(4, 1), Pile(5, 1)]
    state.taken_by = [-1] * 4
    state.lead = 0
    GAME._start_trick(state)
    GAME._advance(state)
    GAME.refresh(state)
    GAME.apply(state, {0: "set:2x3"})
    assert state.queue == [1, 0, 1]
    assert GAME.observe(state, 1).plays_left == 2
    played = 0
    while state.pending and state.phase == "play":
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: decision.options[0].id})
        played += 1
    assert played == 2
    # The seat that ran out during the trick still claims in it (ruling 6), shown out of cards.
    assert list(GAME.observe(state, 1).out) == [True, False] and state.pending[0].kind == "claim"


# --------------------------------------------------------------------------------------------
# Typed event details (an outside probe: these facts were in the events' text only)


def details(state, kind: str, to=None) -> list:
    return [e.detail for e in state.log.events if e.kind == kind and e.to == to]


def test_lead_and_trick_events_carry_the_leader_and_the_point_piles():
    state = three_player(lead=1)
    (lead,) = details(state, "lead")
    assert lead == pb.TrickEvent(trick=1, lead_seat=1)
    (trick,) = details(state, "trick")
    piles = [pb.Pile(rank=r, count=1, total=r) for r in (1, 3, 5)]
    assert trick == pb.TrickEvent(trick=1, lead_seat=1, piles=piles)
    play(state, "single:1", "run:1-6", "single:6")  # seat 2's run claims first and leads next
    play(state, "claim:2", "claim:1")
    trick = details(state, "trick")[-1]
    assert trick.trick == 2 and trick.lead_seat == 2 == state.lead
    assert list(trick.piles) == [p.message() for p in state.middle]


def test_a_claim_with_no_pile_left_says_so_with_the_score():
    hands = ("3" + "1" * 9 + "2222", "3" + "2" * 5 + "4" * 8, "3" + "5" * 9 + "4" + "666")
    state = GAME.new_match(GAME.config(4), chance=chance(deck("1245", *hands)))
    play(state, "single:3", "single:3", "single:3", "single:3", "claim:3", "claim:2", "claim:1")
    play(state, "single:1", "single:2", "single:4", "single:3")
    assert details(state, "claim")[-2:] == [
        pb.ClaimEvent(seat=1, score=4, none=True),
        pb.ClaimEvent(seat=0, score=5, none=True),
    ]


def test_out_event_names_the_seat():
    state = reposition(GAME.new_match(GAME.config(3), seed=1), ["66", "123", "345"], [(1, 1), (2, 1), (3, 1)], lead=0)
    play(state, "set:2x6", "single:1", "single:5", "claim:2", "claim:1")
    assert details(state, "out") == [pb.OutEvent(seat=0)]
    play(state, "single:2", "single:4", "claim:1", "claim:1")
    assert details(state, "out") == [pb.OutEvent(seat=0), pb.OutEvent(seat=1), pb.OutEvent(seat=2)]


def test_reserve_and_bonus_events_carry_the_size_the_cards_and_the_score():
    base = GAME.new_match(GAME.config(2), seed=2)
    state = reposition(base, ["12", "3456"], [(1, 1), (2, 1), (3, 1), (4, 1)], reserves=["6", "11"])
    play(state, "run:1-2")
    # Public: the seat and the reserve's size; private to seat 0: its cards too.
    assert details(state, "reserve") == [pb.HandEvent(seat=0, size=1)]
    assert details(state, "reserve", frozenset({0})) == [
        pb.HandEvent(seat=0, cards=pb.Cards(counts=cards("6")), size=1)
    ]
    play(state, "single:3", "run:4-5", "claim:3", "claim:2", "claim:1")
    assert details(state, "out") == [pb.OutEvent(seat=0)]
    assert details(state, "bonus") == [pb.BonusEvent(seat=1, bonus=1, score=6)]
    assert state.scores == [5, 6]


class Tracker:
    """What a bot knows from the typed details alone (never the text)."""

    def __init__(self, seat: int, players: int) -> None:
        self.seat, self.players = seat, players
        self.scores = [0] * players
        self.hand_sizes = [0] * players
        self.trick = self.lead = 0
        self.middle: list[pb.Pile] = []
        self.taken_by: list[int] = []
        self.out: set[int] = set()

    def read(self, event) -> None:
        d = event.detail
        assert d is not None, f"{event.kind} event has no detail"
        if event.kind == "hand":
            self.hand_sizes = [sum(d.cards.counts)] * self.players  # every hand is dealt alike
        elif event.kind in ("lead", "trick"):
            self.trick, self.lead = d.trick, d.lead_seat
            if event.kind == "trick":
                self.middle, self.taken_by = list(d.piles), [-1] * len(d.piles)
        elif event.kind == "play":
            self.hand_sizes[d.seat] = d.hand_left
        elif event.kind == "reserve":
            self.hand_sizes[d.seat] = d.size
        elif event.kind == "claim":
            self.scores[d.seat] = d.score
            if not d.none:
                self.taken_by[d.pile] = d.seat
        elif event.kind == "out":
            self.out.add(d.seat)
        elif event.kind == "bonus":
            self.scores[d.seat] = d.score
            self.hand_sizes[d.seat] = d.bonus
        elif event.kind == "end":
            assert list(d.scores) == self.scores

    def check(self, obs) -> None:
        assert list(obs.scores) == self.scores
        assert list(obs.hand_sizes) == self.hand_sizes
        assert (obs.trick, obs.lead_seat) == (self.trick, self.lead)
        assert list(obs.middle) == self.middle
        assert list(obs.middle_taken_by) == self.taken_by
        assert all(obs.out[s] for s in self.out)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_a_tracker_of_the_details_alone_matches_the_observation(players):
    for seed in range(4):
        state = GAME.new_match(GAME.config(players), seed=seed)
        rng = Chance(seed)
        trackers = [Tracker(s, players) for s in range(players)]
        seen = [0] * players
        while True:
            for seat, tracker in enumerate(trackers):
                for _, event in state.log.since(seat, seen[seat]):
                    tracker.read(event)
                seen[seat] = len(state.log.events)
            if not state.pending:
                break
            (decision,) = state.pending
            trackers[decision.seat].check(GAME.observe(state, decision.seat))
            GAME.apply(state, {decision.seat: rng.pick(decision.option_ids, "choice")})
        for seat, tracker in enumerate(trackers):
            assert tracker.scores == list(GAME.observe(state, seat).scores) == state.scores
