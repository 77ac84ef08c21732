"""Llama Llama: the rules page's examples, NOTES.md §4.10 vectors and every ruling, pinned."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.llamallama import GAME, LlamaState
from arena.games.llamallama.game import (
    CARD_IDS,
    COMBO,
    DUMMY,
    LETTER,
    TOP,
    combo_copies,
    goal_points,
    hand_score,
    letter_counts,
    pass_counts,
)
from arena.games.v1 import llamallama_pb2 as pb
from tests.contract import assert_same_view, configurations, random_playout


def cards_of(letters: str) -> list[int]:
    """Distinct card ids showing these letters (lowest ids first)."""
    out: list[int] = []
    for x in letters:
        out.append(next(c for c in CARD_IDS if LETTER[c] == x and c not in out))
    return out


def new(players: int = 4, hands: list[list[int]] | None = None, place=None, picks=None, seed: int = 0) -> LlamaState:
    """A match whose first deal gives hand h the cards ``hands[h]`` (8 each, in hand order)."""
    orders: dict[str, list] = {}
    if hands is not None:
        head = [c for h in hands for c in h]
        orders["deck"] = [head + [c for c in CARD_IDS if c not in head]]
    if place is not None:
        orders["place"] = [place]
    chance = PresetChance(seed, orders=orders, picks=picks or {})
    return GAME.new_match(GAME.config(players), chance=chance)


def apply(state: LlamaState, choices: dict[int, str]) -> None:
    """Apply the choices; ``pass:<letter>`` (a test's shorthand) passes the seat's lowest-id card
    of that letter (the options are ``pass:<id>``; a letter the seat lacks stays an illegal id)."""
    by_card = {}
    for seat, choice in choices.items():
        kind, _, what = choice.partition(":")
        if kind == "pass" and what.isalpha():
            held = [c for c in state.hands[seat] if LETTER[c] == what]
            choice = f"pass:{min(held):02d}" if held else choice
        by_card[seat] = choice
    GAME.apply(state, by_card)


def letters_of(cards: list[int]) -> str:
    return "".join(sorted(LETTER[c] for c in cards))


def letters(state: LlamaState, hand: int) -> str:
    return "".join(sorted(LETTER[c] for c in state.hands[hand]))


# --------------------------------------------------------------------------------------------
# The printed examples (rules :187-227, NOTES §4.10 test vectors)

AABB_10 = 27  # card 27: top "A = 1", bottom "AABB = 10"
AA_7 = 16  # card 16: top "B = 1", bottom "AA = 7"
DF_6 = 31  # card 31: top "A = 1", bottom "DF = 6"
A_1 = (15, 23)  # two cards whose top rule is "A = 1" (bottoms ADG = 7 and BD = 6)


def test_printed_goals_exist():
    assert COMBO[AABB_10] == ("AABB", 10) and COMBO[AA_7] == ("AA", 7) and COMBO[DF_6][0] == "DF"
    assert TOP[A_1[0]] == ("A", 1) and TOP[A_1[1]] == ("A", 1)
    assert sum(TOP[c] == ("A", 1) for c in CARD_IDS) == 5


def test_example_1_aabb_scores_aabb_and_aa():
    """Rules :187-193: AABB scores AABB = 10 and AA = 7 at the same time: 17 from the bottoms."""
    counts = letter_counts("AABB")
    assert combo_copies(counts, "AABB") * 10 + combo_copies(counts, "AA") * 7 == 17
    # With the cards' top rules too: A = 1 (x2) on card 27 and B = 1 (x2) on card 16.
    assert goal_points(counts, AABB_10) == 10 + 2
    assert goal_points(counts, AA_7) == 7 + 2
    assert hand_score("AABB", [AABB_10, AA_7]) == 21


def test_example_2_ddff_scores_df_twice():
    """Rules :201-204."""
    assert combo_copies(letter_counts("DDFF"), "DF") == 2
    assert goal_points(letter_counts("DDFF"), DF_6) == 12


def test_example_3_dff_scores_df_once():
    """Rules :206-208."""
    assert combo_copies(letter_counts("DFF"), "DF") == 1
    assert goal_points(letter_counts("DFF"), DF_6) == 6


def test_example_4_duplicate_top_rule_scores_each():
    """Rules :219-227: "A = 1" on two goal cards: each A scores 2."""
    hand = "AAACCEF"  # no D, G, B: the bottoms ADG and BD do not score
    assert hand_score(hand, A_1) == 6
    assert hand_score(hand, A_1[:1]) == 3
    assert hand_score("ACCEF" + "CC", A_1) == 2


def play_round_keeping_letters(state: LlamaState, goals: dict[int, str], passes: str) -> pb.ScoreEvent:
    """Play round 1 through the engine: the goals given, then every seat passes the same letters
    at each reveal (``passes[:4]``, ``[1:4]``, ``[2:4]``, ``[3]``), so each hand gets back the
    letters it gave and ends the round with the letters it was dealt less its goal."""
    apply(state, goals)
    for size in (4, 3, 2, 1):
        assert state.phase == "pass" and state.pass_size == size
        for letter in passes[4 - size :]:
            apply(state, {s: f"pass:{letter}" for s in range(state.players)})
    return next(e.detail for e in state.log.events if e.kind == "score")


def revealed_goals(state: LlamaState) -> list[int]:
    return [e.detail.card.id for e in state.log.events if e.kind == "reveal"]


def test_example_1_through_a_played_round():
    """Rules :187-193 through the engine: a hand AABB with goals "AABB = 10" and "AA = 7" both
    revealed scores both bottoms (17) on top of their top rules."""
    hands = [
        [1, 2, 6, 7, 11, 21, 29, AABB_10],  # A A B B C E G + the AABB goal (card 27, an F)
        [3, 12, 22, 30, 8, 17, 18, AA_7],  # A C E G B D D + the AA goal (card 16, a D)
        [4, 14, 23, 31, 10, 19, 20, 9],  # A C E G B D D + card 9 (D = 1, GG = 8)
        [5, 15, 24, 32, 25, 26, 28, 13],  # A C E G F F F + card 13 (F = 2, BF = 6)
    ]
    state = new(4, hands, place=[0, 1, 2, 3])
    score = play_round_keeping_letters(state, {0: "goal:27", 1: "goal:16", 2: "goal:09", 3: "goal:13"}, "ACEG")
    assert revealed_goals(state) == [27, 16, 9, 13]
    assert ["".join(sorted(c.letter for c in h.cards)) for h in score.hands] == [
        "AABBCEG",
        "ABCDDEG",
        "ABCDDEG",
        "ACEFFFG",
    ]
    # Seat 0: AABB = 10 and AA = 7 at once (17), plus the tops A = 1 (x2) and B = 1 (x2).
    assert list(score.scores) == [10 + 7 + 2 + 2, 1 + 1 + 2, 1 + 1 + 2, 1 + 3 * 2]
    assert list(score.scores) == [21, 4, 4, 7] and state.totals == [21, 4, 4, 7]


def test_examples_2_3_and_4_through_a_played_round():
    """Rules :201-208 and :219-227 through the engine: with "DF = 6" revealed, DDFF scores DF
    twice (12) and DFF once (6); "A = 1" on two revealed goals (cards 31 and 15) makes each A
    worth 2."""
    hands = [
        [3, 13, 19, 21, 5, 7, 10, 8],  # A C D E A B B + card 8 (G = 2, AG = 6)
        [1, 11, 16, 22, 17, 25, 26, DF_6],  # A C D E D F F + card 31 (A = 1, DF = 6)
        [2, 12, 18, 23, 27, 28, 6, A_1[0]],  # A C D E F F B + card 15 (A = 1, ADG = 7)
        [4, 14, 20, 24, 29, 30, 32, 9],  # A C D E G G G + card 9 (D = 1, GG = 8)
    ]
    state = new(4, hands, place=[3, 2, 1, 0])
    score = play_round_keeping_letters(state, {0: "goal:08", 1: "goal:31", 2: "goal:15", 3: "goal:09"}, "ACDE")
    assert revealed_goals(state) == [9, 15, 31, 8]
    assert ["".join(sorted(c.letter for c in h.cards)) for h in score.hands] == [
        "AABBCDE",
        "ACDDEFF",
        "ABCDEFF",
        "ACDEGGG",
    ]
    assert list(score.scores) == [
        2 * 2 + 1,  # two A at 2 each, D = 1
        1 * 2 + 2 * 6 + 2 * 1,  # DDFF: DF twice (12); one A at 2; D = 1 twice
        1 * 2 + 1 * 6 + 1,  # DFF: DF once (6); one A at 2; D = 1
        1 * 2 + 7 + 3 * 2 + 6 + 1 + 8,  # A at 2, ADG, G = 2 (x3), AG, D = 1, GG once
    ]
    assert list(score.scores) == [5, 16, 9, 30]


def test_combinations_need_every_letter_and_count_disjoint_copies():
    assert combo_copies(letter_counts("CCCCCCC"), "CCC") == 2
    assert combo_copies(letter_counts("AABBB"), "AABB") == 1
    assert combo_copies(letter_counts("AAAABBB"), "AABB") == 1
    assert combo_copies(letter_counts("ACEACE"), "ACE") == 2
    assert combo_copies(letter_counts("ACF"), "ACE") == 0
    # A letter scores for a top rule and several bottom rules at once (:180-197).
    assert hand_score("AAC", [1, 32]) == 6  # card 1: E=2, CE=6 (no E); card 32: D=1, AC=6 (once)
    assert hand_score("ACE", [1, 32]) == 2 + 6 + 6


# --------------------------------------------------------------------------------------------
# Setup, goals, placement, passing


HANDS4 = [list(range(1, 9)), list(range(9, 17)), list(range(17, 25)), list(range(25, 33))]


def test_setup_deals_four_hands_of_eight_and_asks_every_seat_for_a_goal():
    for players in (2, 3, 4):
        state = new(players, HANDS4, picks={"dummy": [0]})
        assert [len(h) for h in state.hands] == [8, 8, 8, 8]
        assert sorted(c for h in state.hands for c in h) == list(CARD_IDS)
        assert [(d.seat, d.kind) for d in state.pending] == [(s, "goal") for s in range(players)]
        assert state.pending[0].option_ids == tuple(f"goal:{c:02d}" for c in range(1, 9))


def test_round_one_goals_shuffled_then_pass_four_three_two_one():
    state = new(4, HANDS4, place=[2, 0, 3, 1])
    apply(state, {0: "goal:01", 1: "goal:09", 2: "goal:17", 3: "goal:25"})
    assert state.goals == [17, 1, 25, 9] and state.owners == [2, 0, 3, 1]
    assert state.reveals == 1 and state.pass_size == 4 and state.phase == "pass"
    # Owners hidden in round 1; the revealed goal is public; seat 2 recognises its own card.
    obs = GAME.observe(state, 0)
    assert [d.owner for d in obs.displays] == [-1, -1, -1, -1]  # its own goal: position unknown
    assert obs.displays[0].revealed and obs.displays[0].goal.id == 17
    assert not obs.displays[1].mine  # round 1: its goal is face down somewhere, position unknown
    assert GAME.observe(state, 2).displays[0].owner == 2
    assert GAME.observe(state, 2).displays[0].mine
    assert letters(state, 0) == "AAAABBB"
    # Pass 4: seat 0 sets aside A A A B one at a time; cards move only after the 4th pick.
    for step in ("ABDF", "ACDF", "ACEF", "BCEG"):
        apply(state, {s: f"pass:{x}" for s, x in enumerate(step)})
    assert state.reveals == 2 and state.pass_size == 3
    # seat 0 passed cards 2, 3, 4 (A) and 6 (B) to seat 1 and received seat 3's F F F G.
    assert state.passes[0] == [(1, (2, 3, 4, 6), 1, (26, 27, 28, 29), 3)]
    assert letters(state, 0) == "ABBFFFG"
    assert letters(state, 1) == "AAABCCD"  # kept C C D, received A A A B
    assert letters(state, 2) == "BCCCDEE"  # kept D E E, received B C C C
    assert letters(state, 3) == "DDEEGGG"  # kept G G G, received D D E E
    assert sum(len(h) for h in state.hands) == 28
    # 4 reveals, 4 + 3 + 2 + 1 picks, then scoring and round 2.
    assert pass_counts(4) == (4, 3, 2, 1)
    for _ in range(3 + 2 + 1):
        apply(state, {d.seat: d.option_ids[0] for d in state.pending})
    assert state.round == 2 and state.phase == "goal"
    score = [e for e in state.log.events if e.kind == "score"][-1].detail
    assert isinstance(score, pb.ScoreEvent)
    for s in range(4):
        hand = "".join(c.letter for c in score.hands[s].cards)
        assert score.scores[s] == hand_score(hand, [17, 1, 25, 9]) == state.totals[s]


def test_pass_is_sealed_and_simultaneous():
    state = new(4, HANDS4, place=[0, 1, 2, 3])
    apply(state, {0: "goal:01", 1: "goal:09", 2: "goal:17", 3: "goal:25"})
    assert sorted(d.seat for d in state.pending) == [0, 1, 2, 3]
    assert all(d.kind == "pass" for d in state.pending)
    apply(state, {0: "pass:A", 1: "pass:B", 2: "pass:D", 3: "pass:F"})
    # Picks are set aside, not yet moved; others only see counts.
    assert state.picked[0] == [2] and len(state.hands[1]) == 6
    obs1 = GAME.observe(state, 1)
    assert obs1.seats[0].picked == 1 and obs1.pass_left == 3
    assert [c.id for c in GAME.observe(state, 0).picked] == [2]
    # Options offer only cards still in hand: seat 0 holds no C, and not card 2 any more.
    assert [o.id for o in next(d for d in state.pending if d.seat == 0).options] == [
        "pass:03", "pass:04", "pass:05", "pass:06", "pass:07", "pass:08"
    ]  # fmt: skip
    for illegal in ("pass:C", "pass:02", "pass:11", "pass:A"):
        with pytest.raises(IllegalChoice):
            GAME.apply(state, {0: illegal, 1: "pass:12", 2: "pass:19", 3: "pass:26"})


def test_a_pass_moves_the_card_chosen():
    """Ruling 4 (version 4): "Players may choose any cards from their hand" (:128). Seat 0 keeps
    2-5 (four A) after giving goal 1 and chooses which A goes: the card it names moves, and the
    receiver sees that card (its goal side). Versions 2 and 3 took a letter and moved the lowest
    id, then a random copy: the passer could not choose which goal it showed its neighbour."""
    for chosen in (5, 3):
        state = new(4, HANDS4, place=[0, 1, 2, 3])
        apply(state, {0: "goal:01", 1: "goal:09", 2: "goal:17", 3: "goal:25"})
        pending = {d.seat: d for d in state.pending}
        assert [o.id for o in pending[0].options] == [f"pass:{c:02d}" for c in state.hands[0]]
        option = pending[0].find(f"pass:{chosen:02d}")
        assert option is not None and option.action.card.id == chosen and option.action.letter == "A"
        apply(state, {0: f"pass:{chosen:02d}", 1: "pass:B", 2: "pass:D", 3: "pass:F"})
        assert state.picked[0] == [chosen]
        for step in ("CDF", "CDF", "CEG"):
            apply(state, {0: "pass:B", **{s: f"pass:{x}" for s, x in enumerate(step, 1)}})
        record = GAME.observe(state, 1).passes[0]
        assert record.source == 0 and record.received == ["A", "B", "B", "B"]
        assert record.received_cards[0].id == chosen and chosen not in state.hands[0]


HANDS2 = [list(range(1, 9)), list(range(11, 19)), list(range(21, 29)), [9, 10, 19, 20, 29, 30, 31, 32]]
"""Letters: AAAAABBB, CCCCCDDD, EEEEFFFF, BBDDGGGG."""


def test_two_players_pass_into_dummies_and_draw_from_them():
    assert [letters_of(h) for h in HANDS2] == ["AAAAABBB", "CCCCCDDD", "EEEEFFFF", "BBDDGGGG"]
    # Dummy goals: dummy 2 gives card 25 (F), dummy 3 card 29 (G). Draws (dummy 2 first):
    # seat 1 draws 3, 21, 22, 26 from dummy 2 (after seat 0's A A A A went in), then seat 0
    # draws 13, 10, 30, 31 from dummy 3 (after seat 1's C C C C).
    picks = {"dummy_goal": [25, 29], "draw": [3, 21, 22, 26, 13, 10, 30, 31]}
    state = new(2, HANDS2, place=[0, 2, 1, 3], picks=picks)
    assert state.circle == [0, 2, 1, 3]
    assert list(GAME.observe(state, 0).circle) == [0, DUMMY, 1, DUMMY]
    apply(state, {0: "goal:01", 1: "goal:11"})
    assert state.goals == [1, 25, 11, 29]
    assert [len(h) for h in state.hands] == [7, 7, 7, 7]
    assert [s.left for s in GAME.observe(state, 0).seats] == [DUMMY, DUMMY]
    for _ in range(4):
        apply(state, {0: "pass:A", 1: "pass:C"})
    assert state.passes[0] == [(1, (2, 3, 4, 5), DUMMY, (10, 13, 30, 31), DUMMY)]
    assert state.passes[1] == [(1, (12, 13, 14, 15), DUMMY, (3, 21, 22, 26), DUMMY)]
    assert letters(state, 0) == "BBBBCGG"
    assert letters(state, 1) == "ADDDEEF"
    assert letters(state, 2) == "AAAEEFF"  # dummy 2: kept 7, took 4, gave 4
    assert letters(state, 3) == "BCCCDDG"
    assert sorted(c for h in state.hands for c in h) == sorted(set(CARD_IDS) - set(state.goals))
    # The dummy's hand and draws stay hidden: seat 0's pass event names only its own exchange.
    events = [e for e in state.log.events if e.visible_to(0) and e.kind == "pass"]
    assert len(events) == 1 and isinstance(events[0].detail, pb.PassEvent)
    assert list(events[0].detail.record.received) == ["B", "C", "G", "G"]
    assert events[0].detail.record.source == DUMMY
    assert state.chance.unused() == {}


def test_three_players_dummy_starts_left_of_random_seat_and_moves_right_of_lowest():
    state = new(3, HANDS4, picks={"dummy": [1]})
    assert state.circle == [0, 1, 3, 2]  # seat 1 passes into the dummy, seat 2 draws from it
    assert state.left(1) == 3 and state.left(3) == 2 and state.left(2) == 0
    state.totals = [30, 10, 20]
    state.round_scores = [[30], [10], [20]]
    GAME._start_round(state)
    assert state.circle == [0, 3, 1, 2]  # right of seat 1 (lowest): seat 0 passes into it
    state.totals = [5, 10, 5]
    state.chance = PresetChance(0, picks={"dummy": [2]})
    GAME._start_round(state)
    assert state.circle == [0, 1, 3, 2]  # lowest tied 0 and 2, picked 2: dummy left of seat 1


def _round_two(totals: list[int], place: list[list[int]], players: int = 4) -> tuple[LlamaState, dict[int, int]]:
    """A match at round 2's goal choices with these totals, each seat giving its first card;
    ``place`` the "place" shuffles (one per group of tied seats, best first). Returns the state
    after the goals are placed and the goal card of each seat."""
    state = new(players, HANDS4, place=[0, 1, 2, 3], picks={"dummy": [0, 0]})
    while state.round == 1:
        apply(state, {d.seat: d.option_ids[0] for d in state.pending})
    state.totals = list(totals)
    state.chance = PresetChance(0, orders={"place": place}, picks={"dummy_goal": [], "dummy": []})
    goals = {s: int(state.pending[s].option_ids[0][5:]) for s in range(players)}
    apply(state, {s: f"goal:{c:02d}" for s, c in goals.items()})
    return state, goals


def test_later_rounds_place_goals_by_standings_tied_owners_hidden():
    """Round 2, totals [10, 30, 30, 5]: seats 1 and 2 tie for the lead; their goals are
    shuffled face down onto displays 1 and 2 (:260-262), so nobody, seats 1 and 2 included,
    knows which is whose (ruling 5); seat 0 (display 3) and seat 3 (display 4) are public."""
    state, goals = _round_two([10, 30, 30, 5], [[2, 1]])
    assert state.owners == [2, 1, 0, 3] and state.owner_group == [0, 0, -1, -1]
    assert state.goals == [goals[2], goals[1], goals[0], goals[3]]
    assert state.reveals == 1  # display 1 is revealed at once
    place = [e for e in state.log.events if e.kind == "place"][-1]  # round 2's
    assert isinstance(place.detail, pb.PlaceEvent) and place.to is None
    assert list(place.detail.owners) == [-1, -1, 0, 3]
    for viewer in range(4):
        obs = GAME.observe(state, viewer)
        assert [list(d.owner_among) for d in obs.displays] == [[1, 2], [1, 2], [], []]
        assert [d.owner for d in obs.displays[2:]] == [0, 3]
        assert obs.displays[1].owner == -1 and not obs.displays[1].mine
        assert not obs.displays[1].HasField("goal")  # face down, nobody's known goal
        assert [d.mine for d in obs.displays[2:]] == [viewer == 0, viewer == 3]
    # Display 1 is revealed: its owner, seat 2, recognises its card; seat 1 and the others not.
    assert [d.owner for d in GAME.observe(state, 2).displays[:2]] == [2, -1]
    assert [d.mine for d in GAME.observe(state, 2).displays[:2]] == [True, False]
    for viewer in (0, 1, 3):
        obs = GAME.observe(state, viewer)
        assert [d.owner for d in obs.displays[:2]] == [-1, -1] and not obs.displays[0].mine
        assert obs.displays[0].goal.id == goals[2]
    # The public displays' goals: their own seat sees them face down, others not.
    assert GAME.observe(state, 0).displays[2].goal.id == goals[0]
    assert not GAME.observe(state, 3).displays[2].HasField("goal")
    spectator = GAME.observe(state, SPECTATOR)
    assert [d.owner for d in spectator.displays] == [2, 1, 0, 3]
    assert [list(d.owner_among) for d in spectator.displays] == [[1, 2], [1, 2], [], []]


def test_tied_display_revealed_shows_its_owner_to_it_alone():
    """Totals [30, 20, 20, 5]: seats 1 and 2 share displays 2 and 3 (seat 2's goal on display 2).
    Before display 2 is revealed neither knows where its goal is; after, seat 2 sees owner 2
    and mine there, everybody else still -1 (seat 1 only deduces its own is display 3)."""
    state, goals = _round_two([30, 20, 20, 5], [[2, 1]])
    assert state.owners == [0, 2, 1, 3] and state.owner_group == [-1, 0, 0, -1]
    for viewer in range(4):
        obs = GAME.observe(state, viewer)
        assert [d.owner for d in obs.displays] == [0, -1, -1, 3]
        assert [d.mine for d in obs.displays] == [viewer == 0, False, False, viewer == 3]
    for _ in range(4):  # the pass of 4 after display 1
        apply(state, {d.seat: d.option_ids[0] for d in state.pending})
    assert state.reveals == 2
    seat2 = GAME.observe(state, 2)
    assert [d.owner for d in seat2.displays] == [0, 2, -1, 3]
    assert [d.mine for d in seat2.displays] == [False, True, False, False]
    assert seat2.displays[1].goal.id == goals[2] and list(seat2.displays[1].owner_among) == [1, 2]
    for viewer in (0, 1, 3):
        obs = GAME.observe(state, viewer)
        assert [d.owner for d in obs.displays] == [0, -1, -1, 3]
        assert not obs.displays[1].mine and not obs.displays[2].mine
        assert obs.displays[1].goal.id == goals[2] and not obs.displays[2].HasField("goal")


def test_two_players_tied_seats_hidden_dummies_shown_as_dummies():
    """2 players tied: both goals shuffled onto displays 1 and 3; dummies stay -2 (public)."""
    state, _ = _round_two([12, 12], [[1, 0], [3, 2]], players=2)
    assert state.owners == [1, 2, 0, 3] and state.owner_group == [0, -1, 0, -1]  # icons: 4, then 2
    for viewer in (0, 1):
        obs = GAME.observe(state, viewer)
        assert [d.owner for d in obs.displays] == [1 if viewer == 1 else -1, DUMMY, -1, DUMMY]
        assert [list(d.owner_among) for d in obs.displays] == [[0, 1], [], [0, 1], []]
        assert [d.mine for d in obs.displays] == [viewer == 1, False, False, False]


def test_two_players_dummy_goals_go_on_icon_displays():
    state = new(2, HANDS4, place=[0, 1, 2, 3])
    while state.round == 1:
        apply(state, {d.seat: d.option_ids[0] for d in state.pending})
    state.totals = [10, 40]
    state.chance = PresetChance(0, orders={"place": [[3, 2]]})
    apply(state, {0: state.pending[0].option_ids[0], 1: state.pending[1].option_ids[0]})
    assert state.owners == [1, 2, 0, 3]  # seat 1 (leader) display 1, dummies on 4 then 2
    icons = [d.dummy_icon for d in GAME.observe(state, 0).displays]
    assert icons == [False, True, False, True]
    three = new(3, HANDS4, picks={"dummy": [0]})
    assert [d.dummy_icon for d in GAME.observe(three, 0).displays] == [False, False, False, True]


# --------------------------------------------------------------------------------------------
# End and tie-breaks


def finish_round(state: LlamaState) -> None:
    start = state.round
    while state.pending and state.round == start:
        apply(state, {d.seat: d.option_ids[0] for d in state.pending})


def test_game_ends_after_four_rounds():
    state = new(4, seed=3)
    for r in range(1, 5):
        assert state.round == r and state.pending
        finish_round(state)
    assert not state.pending and state.phase == "over"
    assert [len(x) for x in state.round_scores] == [4, 4, 4, 4]


def test_game_ends_after_the_round_in_which_someone_reaches_100():
    state = new(3, seed=4)
    finish_round(state)
    state.totals[2] = 99  # round 2 will add something: at least 100 at its end
    state.round_scores[2] = [99]
    hand = state.hands[2]
    assert hand
    finish_round(state)
    assert state.totals[2] >= 100  # the seeded round 2 scores for seat 2
    assert state.phase == "over" and state.round == 2
    # Ending needs the round to be over: 100 reached mid-round changes nothing until scoring.
    state2 = new(2, seed=5)
    state2.totals = [150, 0]
    apply(state2, {0: state2.pending[0].option_ids[0], 1: state2.pending[1].option_ids[0]})
    assert state2.pending
    finish_round(state2)
    assert state2.phase == "over" and state2.round == 1 and state2.winners == [0]


def test_game_ends_at_exactly_100_points():
    """ "The game ends when: A player reaches 100+ points": 100 is enough, 99 is not. Seat 2 scores 7
    in the seeded round 2 (the other seats end it on 33 and 45)."""
    for start, phase, rounds in [(93, "over", 2), (92, "goal", 3)]:
        state = new(3, seed=4)
        finish_round(state)
        state.totals[2] = start
        state.round_scores[2] = [start]
        finish_round(state)
        assert state.round_scores[2] == [start, 7] and state.totals == [33, 45, start + 7]
        assert (state.phase, state.round, state.winners) == (phase, rounds, [2] if phase == "over" else [])


def test_tie_break_last_round_score_then_shared():
    state = new(3, seed=1)
    state.phase = "over"
    state.totals = [50, 50, 40]
    state.round_scores = [[20, 30], [25, 25], [20, 20]]
    GAME.refresh(state)
    assert GAME.result(state).ranks == (1, 2, 3)
    state.round_scores = [[25, 25], [25, 25], [20, 20]]
    assert GAME.result(state).ranks == (1, 1, 3)


def test_round_end_hands_scored_and_shown_to_all():
    state = new(4, HANDS4, place=[0, 1, 2, 3])
    finish_round(state)
    score = next(e for e in state.log.events if e.kind == "score")
    assert score.to is None
    assert isinstance(score.detail, pb.ScoreEvent)
    assert [len(h.cards) for h in score.detail.hands] == [7, 7, 7, 7]
    assert list(score.detail.totals) == state.totals


# --------------------------------------------------------------------------------------------
# Information


def test_observation_hides_other_hands_dummies_and_face_down_goals():
    for players in (2, 3, 4):
        a = new(players, HANDS4, place=[0, 1, 2, 3], picks={"dummy": [0]})
        # b: hands 1-3 (other seats / dummies) exchange cards; seat 0's hand is the same.
        others = [c for h in HANDS4[1:] for c in h]
        swapped = [HANDS4[0], others[16:24], others[0:8], others[8:16]]
        b = new(players, swapped, place=[0, 1, 2, 3], picks={"dummy": [0]})
        assert_same_view(GAME, a, b, 0)
        choice_a = {0: "goal:01", **{s: a.pending[s].option_ids[0] for s in range(1, players)}}
        choice_b = {0: "goal:01", **{s: b.pending[s].option_ids[0] for s in range(1, players)}}
        apply(a, choice_a)
        apply(b, choice_b)
        # Display 1 holds seat 0's own goal in both: revealed, so the views agree.
        assert a.goals[0] == b.goals[0] == 1
        assert_same_view(GAME, a, b, 0)
        for e in a.log.events:
            if e.visible_to(0) and e.kind in ("deal", "goal", "pass"):
                assert e.to == frozenset({0})


def test_tied_owners_are_not_leaked():
    """Two states differing only in which tied seat's goal lies on which tied display (the
    "place" shuffle of the tie of seats 1 and 2 on displays 2 and 3): every seat, the tied ones
    included, sees byte-identical observations and events until one of them is revealed. And
    for the others, a state where the two tied goals trade owners is the same all round."""
    a, _ = _round_two([30, 20, 20, 5], [[2, 1]])
    b, _ = _round_two([30, 20, 20, 5], [[1, 2]])
    assert a.owners == [0, 2, 1, 3] and b.owners == [0, 1, 2, 3]
    assert a.goals[1:3] == b.goals[2:0:-1]
    for _ in range(4):  # the pass of 4: displays 2 and 3 stay face down
        for seat in range(4):
            assert_same_view(GAME, a, b, seat)
        choices = {d.seat: d.option_ids[0] for d in a.pending}
        apply(a, choices)
        apply(b, choices)
    assert a.reveals == b.reveals == 2 and a.goals[1] != b.goals[1]
    # Seats 0 and 3 cannot tell a from a state where the tied goals trade owners.
    c, _ = _round_two([30, 20, 20, 5], [[2, 1]])
    c.owners[1], c.owners[2] = c.owners[2], c.owners[1]
    c.my_goal[1], c.my_goal[2] = c.my_goal[2], c.my_goal[1]
    d, _ = _round_two([30, 20, 20, 5], [[2, 1]])
    while d.round == 2:
        for seat in (0, 3):
            assert_same_view(GAME, c, d, seat)
        choices = {x.seat: x.option_ids[-1] for x in d.pending}
        apply(c, choices)
        apply(d, choices)
    assert c.totals == d.totals


def test_two_tied_groups_worlds_deal_owners_within_each_group():
    """Totals [30, 10, 30, 10]: seats 0 and 2 share displays 1-2, seats 1 and 3 displays 3-4.
    A world (sampled or from the observation) never puts a seat's goal on the other group's
    display, keeps the seat's own revealed display, puts its own unrevealed goal on one of its
    group's face-down displays, and deals the other owners of a group both ways."""
    state, goals = _round_two([30, 10, 30, 10], [[2, 0], [3, 1]])
    assert state.owners == [2, 0, 3, 1] and state.owner_group == [0, 0, 1, 1]
    assert list(GAME.observe(state, 1).displays[0].owner_among) == [0, 2]
    assert list(GAME.observe(state, 1).displays[3].owner_among) == [1, 3]
    hooks = (GAME.sample_world, _from_observation)
    for reveals in (1, 3):
        while state.reveals < reveals:
            apply(state, {d.seat: d.option_ids[0] for d in state.pending})
        for seat in range(4):
            own_group = 0 if seat in (0, 2) else 1
            own_display = state.owners.index(seat)
            known = own_display < state.reveals
            seen: Counter = Counter()
            for hook in hooks:
                for k in range(150):
                    world = hook(state, seat, Chance(1000 * reveals + 100 * seat + k))
                    assert sorted(world.owners[:2]) == [0, 2] and sorted(world.owners[2:]) == [1, 3]
                    assert world.owner_group == [0, 0, 1, 1]
                    assert world.goals[: state.reveals] == state.goals[: state.reveals]
                    assert all(world.my_goal[world.owners[d]] == world.goals[d] for d in range(4))
                    mine = world.owners.index(seat)
                    assert world.my_goal[seat] == goals[seat] and world.goals[mine] == goals[seat]
                    if known:
                        assert mine == own_display
                    else:
                        assert state.owner_group[mine] == own_group and mine >= state.reveals
                    seen[tuple(world.owners)] += 1
            # Unknown owners are dealt both ways (only what the seat knows is fixed).
            other_group = [d for d in range(4) if state.owner_group[d] != own_group]
            # its own group is fixed once its goal is revealed or on the group's last face-down display
            down = [d for d in range(state.reveals, 4) if state.owner_group[d] == own_group]
            expected = 2 * (1 if known or len(down) == 1 else 2)
            assert len(seen) == expected, (reveals, seat, seen)
            assert {owners[other_group[0]] for owners in seen} == {state.owners[d] for d in other_group}


def test_spectator_sees_everything():
    state = new(2, HANDS4, place=[0, 1, 2, 3])
    obs = GAME.observe(state, SPECTATOR)
    assert sorted(c.id for h in obs.hands for c in h.cards) == list(CARD_IDS)
    apply(state, {0: "goal:01", 1: "goal:09"})
    obs = GAME.observe(state, SPECTATOR)
    assert len(obs.goals) == 4 and all(d.goal.id for d in obs.displays)
    seat = GAME.observe(state, 0)
    assert not seat.hands and not seat.goals
    assert [bool(d.goal.id) for d in seat.displays] == [True, False, False, False]


# --------------------------------------------------------------------------------------------
# Determinization


def _random_points(players: int, seed: int, count: int = 3) -> list[LlamaState]:
    state = GAME.new_match(GAME.config(players), seed)
    rng = Chance(seed + 99)
    stops = sorted(rng.below(44, "stop") for _ in range(count))
    out = []
    step = 0
    while state.pending:
        if stops and step == stops[0]:
            stops.pop(0)
            out.append(pickle.loads(pickle.dumps(state)))
        GAME.apply(state, {d.seat: rng.pick(d.option_ids, "play") for d in state.pending})
        step += 1
    out.append(state)
    return out


def test_sample_world_is_consistent_and_playable():
    for players in (2, 3, 4):
        for seed in range(6):
            for state in _random_points(players, seed):
                before = pickle.dumps(state)
                for seat in range(players):
                    world = GAME.sample_world(state, seat, Chance(seed * 7 + seat))
                    a = GAME.observe(world, seat).SerializeToString(deterministic=True)
                    b = GAME.observe(state, seat).SerializeToString(deterministic=True)
                    assert a == b
                    assert [d.option_ids for d in world.pending if d.seat == seat] == [
                        d.option_ids for d in state.pending if d.seat == seat
                    ]
                    rng = Chance(seed)
                    while world.pending:
                        GAME.apply(world, {d.seat: rng.pick(d.option_ids, "w") for d in world.pending})
                    all_cards = sorted(c for h in world.hands for c in h)
                    assert len(all_cards) == 28
                assert pickle.dumps(state) == before


def test_sample_world_redeals_uniformly():
    """At the first goal decision (4 players), a card seat 0 does not hold is with seat 1, 2
    or 3 with probability 1/3 each; in round 1 after the goals, seat 0's goal is on each
    face-down display with probability 1/3."""
    state = new(4, HANDS4, place=[0, 1, 2, 3])
    counts = Counter()
    chance = Chance(12345)
    for _ in range(600):
        world = GAME.sample_world(state, 0, chance)
        holder = next(h for h in range(4) if 32 in world.hands[h])
        counts[holder] += 1
    assert counts[0] == 0
    assert chisquare([counts[1], counts[2], counts[3]]).pvalue > 0.01
    apply(state, {0: "goal:02", 1: "goal:09", 2: "goal:17", 3: "goal:25"})
    assert state.owners == [0, 1, 2, 3]
    for _ in range(4):
        apply(state, {d.seat: d.option_ids[0] for d in state.pending})
    assert state.reveals == 2
    # Seat 3 knows its card 25 is on display 3 or 4 (both face down, round 1), not which.
    places = Counter()
    for _ in range(600):
        world = GAME.sample_world(state, 3, chance)
        places[world.goals.index(25)] += 1
        assert world.goals[:2] == state.goals[:2]
    assert set(places) == {2, 3}
    assert chisquare([places[2], places[3]]).pvalue > 0.01


def test_sample_world_deals_the_owners_of_revealed_round_one_goals():
    """Round 1 (ruling 5): nobody knows who gave a revealed goal but its giver. Seat 3 sees
    goals 2 and 9 turned up on displays 1 and 2 (seats 0's and 1's): in its worlds either may
    be any other seat's, and each seat's goal is the card on the display it owns. (Worlds used
    to keep the real owners: seat 0's goal was 2 in every world, the truth.)"""
    state = new(4, HANDS4, place=[0, 1, 2, 3])
    apply(state, {0: "goal:02", 1: "goal:09", 2: "goal:17", 3: "goal:25"})
    for _ in range(4):
        apply(state, {d.seat: d.option_ids[0] for d in state.pending})
    assert state.reveals == 2 and state.owners == [0, 1, 2, 3]
    owners = Counter()
    goals_of_seat_0 = Counter()
    chance = Chance(7)
    for _ in range(300):
        world = GAME.sample_world(state, 3, chance)
        assert world.goals[:2] == [2, 9] and sorted(world.owners) == [0, 1, 2, 3]
        assert all(world.my_goal[world.owners[d]] == world.goals[d] for d in range(4))
        assert world.my_goal[3] == 25 and world.owners.index(3) in (2, 3)
        owners[world.owners[0]] += 1
        goals_of_seat_0[world.my_goal[0]] += 1
    assert set(owners) == {0, 1, 2} and chisquare(list(owners.values())).pvalue > 0.01
    assert goals_of_seat_0[2] < 150 and goals_of_seat_0[9] > 50  # ~1/3 each, the rest hidden
    # Its own revealed goal stays its own: seat 0 knows display 1 is its.
    for _ in range(50):
        world = GAME.sample_world(state, 0, chance)
        assert world.owners[0] == 0 and world.my_goal[0] == 2 and world.owners[1] != 0


def test_sample_world_keeps_no_other_seat_s_pass_records():
    """The others' pass records name cards the seat never saw: a world has only the seat's own
    (as a world from its observation), so a seat simulated in it cannot read the real ones."""
    for players in (2, 4):
        state = _play_until_passes(players, 3, 2)
        assert all(len(state.passes[s]) == 2 for s in range(players))
        world = GAME.sample_world(state, 0, Chance(1))
        assert world.passes[0] == state.passes[0]
        assert world.passes[1:] == [[] for _ in range(players - 1)]
        assert not GAME.observe(world, 1).passes


# --------------------------------------------------------------------------------------------
# Playout invariants


def _invariant(state: LlamaState) -> None:
    n = state.players
    held = [c for h in state.hands for c in h] + [c for p in state.picked for c in p]
    if state.goals:
        held += state.goals
    else:
        held += [g for g in state.my_goal if g]
        assert not any(state.my_goal)
    assert sorted(held) == list(CARD_IDS), "the 32 cards are conserved"
    for s in range(n):
        assert sum(state.round_scores[s]) == state.totals[s]
        size = len(state.hands[s]) + len(state.picked[s])
        assert size == (8 if state.phase == "goal" else 7)
        assert len(state.picked[s]) == len(state.picked[0])
    for h in range(n, 4):
        assert len(state.hands[h]) == (8 if state.phase == "goal" else 7)
    assert 1 <= state.round <= 4 and state.steps <= 44


def test_playout_invariants_2000_games():
    """Every match ends within 4 rounds of 11 steps (1 goal + 4+3+2+1 picks): at most 44."""
    games = 0
    for config in configurations(GAME):
        for seed in range(667):
            state = random_playout(GAME, config, seed, invariant=_invariant, observe=seed % 50 == 0)
            result = GAME.result(state)
            assert result is not None and state.steps <= 44
            assert state.steps == 11 * state.round
            assert state.round == 4 or max(state.totals) >= 100
            # The scores are the hands scored against the goals.
            last = [e for e in state.log.events if e.kind == "score"][-1].detail
            for s in range(state.players):
                hand = "".join(c.letter for c in last.hands[s].cards)
                assert last.scores[s] == hand_score(hand, state.goals)
            games += 1
    assert games >= 2000


def test_proto_and_rules_summary_name_every_kind():
    """The proto's kinds lists equal the kinds the engine emits (covered above by playouts: the
    first 40 seeds of each count reach them all), and rules.md names each in backticks."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    proto = (root / "proto/arena/games/v1/llamallama.proto").read_text()
    assert '// Decision kinds: "goal", "pass".' in proto
    events = ["round", "deal", "goal", "place", "reveal", "pass", "score", "end"]
    assert "// Event kinds: " + ", ".join(f'"{k}"' for k in events) + "." in proto
    emitted: set[str] = set()
    decided: set[str] = set()
    for players in (2, 3, 4):
        state = GAME.new_match(GAME.config(players), players)
        rng = Chance(players)
        while state.pending:
            decided.update(d.kind for d in state.pending)
            GAME.apply(state, {d.seat: rng.pick(d.option_ids, "t") for d in state.pending})
        emitted.update(e.kind for e in state.log.events)
    assert decided == {"goal", "pass"} and emitted == set(events)
    rules = (root / "arena/games/llamallama/rules.md").read_text()
    for kind in [*events, "goal", "pass"]:
        assert f"`{kind}`" in rules


def _play_until_passes(players: int, seed: int, moves: int) -> LlamaState:
    """A random match stopped at the first decision after ``moves`` passes of round 1."""
    state = GAME.new_match(GAME.config(players), seed)
    rng = Chance(seed)
    while len(state.passes[0]) < moves:
        GAME.apply(state, {d.seat: rng.pick(d.option_ids, "play") for d in state.pending})
    return state


def _from_observation(state: LlamaState, seat: int, chance: Chance) -> LlamaState:
    return GAME.world_from_observation(state.config, seat, GAME.observe(state, seat), chance)


@pytest.mark.parametrize("hook", [GAME.sample_world, _from_observation])
@pytest.mark.parametrize(
    ("players", "route"),
    [
        (4, {1, 2}),  # passed to seat 1; one pass later at seat 1 or passed on to seat 2
        (2, {1, 2, 3}),  # into a dummy (2), maybe drawn by seat 1 at once, then into dummy 3
    ],
)
def test_sampled_worlds_keep_a_passed_card_on_its_route(players, route, hook):
    """A card seat 0 passed two passes ago is only where those passes could have taken it:
    never with a hand off its route, never a goal (ruling 9); the observation's pass records
    name the cards by id, so a world from it keeps the routes too."""
    for seed in range(40):
        state = _play_until_passes(players, seed, 2)
        first, second = state.passes[0][0][1], state.passes[0][1][1]
        held = set(state.hands[0]) | set(state.picked[0])
        tracked = [c for c in first if c not in second and c not in held]
        if tracked:
            break
    card = tracked[0]
    hands = [h for h in range(4) if h != 0]
    if players == 2:
        assert state.circle == [0, 2, 1, 3]  # the dummies sit between the players
    seen: Counter = Counter()
    chance = Chance(99)
    for _ in range(300):
        world = hook(state, 0, chance)
        holder = next(h for h in hands if card in world.hands[h] or (h < players and card in world.picked[h]))
        seen[holder] += 1
        assert card not in world.goals[state.reveals :]
    assert set(seen) <= route and len(seen) >= 2


@pytest.mark.parametrize("hook", [GAME.sample_world, _from_observation])
def test_the_cards_another_seat_set_aside_are_any_of_its_cards_in_a_world(hook):
    """Which of its cards seat 1 set aside in this pass is hidden (only how many): in a world
    it is any of them alike. Every world took it from the cards seat 0 had just passed it (a
    constrained deal listed them first; an outside search probe)."""
    state = GAME.new_match(GAME.config(3), 0)
    rng = Chance(11)
    while state.steps < 6:
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert state.phase == "pass" and len(state.picked[1]) == 1
    passed = set(GAME._passed_cards_places(state, 0))
    held = len(state.hands[1]) + len(state.picked[1])
    share = len(passed & {*state.hands[1], *state.picked[1]}) / held
    assert 0 < share < 1
    chance, worlds = Chance(7), 800
    from_passed = sum(hook(state, 0, chance).picked[1][0] in passed for _ in range(worlds))
    assert abs(from_passed / worlds - share) < 0.07  # 4 sd of the binomial; it was 1.0


# --------------------------------------------------------------------------------------------
# world_from_observation


def test_world_from_observation_deals_the_unseen_cards_and_the_round_one_owners():
    # Round 1 after two reveals: seat 3 knows its goal 25 is face down on display 3 or 4, not
    # which; the world keeps its hand and the revealed goals and deals the other 24 cards.
    state = new(4, HANDS4, place=[0, 1, 2, 3])
    apply(state, {0: "goal:02", 1: "goal:09", 2: "goal:17", 3: "goal:25"})
    for _ in range(4):
        apply(state, {d.seat: d.option_ids[0] for d in state.pending})
    assert state.reveals == 2
    seen = GAME.observe(state, 3)
    places = Counter()
    owners = Counter()
    for k in range(600):
        world = GAME.world_from_observation(state.config, 3, seen, Chance(k))
        assert world.goals[:2] == state.goals[:2] and world.my_goal[3] == 25
        assert world.hands[3] == state.hands[3] and world.picked[3] == state.picked[3]
        assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
        _invariant(world)
        places[world.goals.index(25)] += 1
        owners[world.owners[0]] += 1
    assert set(places) == {2, 3} and chisquare([places[2], places[3]]).pvalue > 0.01
    assert set(owners) == {0, 1, 2}  # display 1's owner is not seat 3's goal: any other seat
    assert [r.passed for r in GAME.observe(world, 3).passes] == [r.passed for r in seen.passes]
    assert [sorted(c.id for c in r.passed_cards) for r in seen.passes] == [sorted(r[1]) for r in state.passes[3]]
    assert [sorted(c.id for c in r.received_cards) for r in seen.passes] == [sorted(r[3]) for r in state.passes[3]]
