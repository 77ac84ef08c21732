"""For the Emperor: every rule of shared/rules/fortheemperor.md and its rulings (NOTES.md §4.3), pinned."""

from __future__ import annotations

from collections import Counter

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.fortheemperor import GAME, EmperorState, Field
from arena.games.fortheemperor.game import (
    BANNERS,
    MOST_AT_LEAST,
    assign_banners,
    controlled,
    controller,
    fits,
    ronin_banner_fits,
    side_strength,
    sohei_needs_control,
    tiebreaker,
)
from arena.games.v1 import fortheemperor_pb2 as pb
from arena.scenario import request_for
from bots.games.fortheemperor import HeuristicBot, board_of, position_of

CRANE, TURTLE = 0, 1


def position(
    fields: list[tuple[int, list[tuple[int, int]]]] | None = None,
    hands: tuple[list[int], list[int]] = ([1, 2, 3], [1, 2, 3]),
    piles: tuple[list[int], list[int]] | None = None,
    *,
    seat: int = CRANE,
    supply: list[int] | None = None,
    tokens: dict[int, tuple[int, int]] | None = None,
    options: dict[str, object] | None = None,
) -> EmperorState:
    """A match at ``seat``'s play step: battlefield i (1-based) holds (banner, warriors), the
    rest of each army is in its draw pile unless ``piles`` says otherwise."""
    state = GAME.new_match(GAME.config(2, options), seed=1)
    state.fields = [Field() for _ in range(7)]
    for index, (banner, warriors) in enumerate(fields or []):
        state.fields[index] = Field(list(warriors), banner, [0, 0])
    for index, (a, b) in (tokens or {}).items():
        state.fields[index - 1].tokens = [a, b]
    state.supply = sorted(supply if supply is not None else _unplaced(state), reverse=True)
    state.hands = [sorted(h) for h in hands]
    if piles is None:
        on_board = [{s for f in state.fields for o, s in f.warriors if o == x} for x in (0, 1)]
        piles = tuple([s for s in range(1, 10) if s not in state.hands[x] and s not in on_board[x]] for x in (0, 1))
    state.piles = [list(p) for p in piles]
    state.turn_seat = seat
    GAME.refresh(state)
    return state


def _unplaced(state: EmperorState) -> list[int]:
    left = Counter(BANNERS)
    left.subtract(f.banner for f in state.fields if f.banner)
    return sorted(left.elements(), reverse=True)


def ids(state: EmperorState) -> tuple[str, ...]:
    (decision,) = state.pending
    return decision.option_ids


def play(state: EmperorState, *choices: str) -> None:
    for choice in choices:
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: choice})


def bf(state: EmperorState, number: int) -> Field:
    return state.fields[number - 1]


# -- setup -----------------------------------------------------------------------------------


def test_setup_two_armies_of_nine_three_in_hand_and_the_crane_first():  # :39-53
    state = GAME.new_match(GAME.config(2), seed=5)
    for seat in (0, 1):
        assert len(state.hands[seat]) == 3 and len(state.piles[seat]) == 6
        assert sorted(state.hands[seat] + state.piles[seat]) == list(range(1, 10))
    assert state.supply == [4, 3, 3, 2, 2, 1, 1] and sum(BANNERS) == 16
    assert state.tokens_left == [4, 4]
    (decision,) = state.pending
    assert decision.seat == CRANE and decision.kind == "play" and len(decision.options) == 3 * 7


def test_the_deck_shuffles_are_labelled_crane_first():
    chance = PresetChance(orders={"deck": [[9, 8, 7, 6, 5, 4, 3, 2, 1], [1, 2, 3, 4, 5, 6, 7, 8, 9]]}, strict=True)
    state = GAME.new_match(GAME.config(2), chance=chance)
    assert state.hands == [[7, 8, 9], [1, 2, 3]] and state.piles == [[6, 5, 4, 3, 2, 1], [4, 5, 6, 7, 8, 9]]


def test_a_turn_plays_then_draws_and_passes_to_the_other_army():  # :76-82, :190-196
    state = position(hands=([6, 7, 8], [1, 7, 8]), piles=([9, 5, 4, 3, 2, 1], [9, 6, 5, 4, 3, 2]))
    play(state, "play:7:1")
    assert bf(state, 1).warriors == [(CRANE, 7)]
    assert state.hands[CRANE] == [6, 8, 9] and state.piles[CRANE] == [5, 4, 3, 2, 1]
    assert state.turn_seat == TURTLE and state.turn == 2


# -- banners ---------------------------------------------------------------------------------


def test_a_two_banner_holds_exactly_two_warriors_of_both_sides():  # text example :63-66
    state = position([(2, [(CRANE, 5), (TURTLE, 6)])], hands=([1, 2, 4], [1, 2, 3]))
    assert not any(i.endswith(":1") for i in ids(state))
    assert "play:4:2" in ids(state)
    state = position([(2, [(CRANE, 5)])], hands=([1, 2, 4], [1, 2, 3]))
    assert "play:4:1" in ids(state)


def test_the_four_banner_goes_first_then_the_threes_in_the_same_check():  # :129-145
    fields = [(0, [(0, 5), (1, 5), (0, 6)]), (0, [(0, 7), (1, 7), (1, 6)]), (0, [(1, 8), (0, 8)])]
    state = position(fields, hands=([1, 2, 9], [1, 2, 3]))
    play(state, "play:9:1")
    assert [f.banner for f in state.fields] == [4, 3, 0, 0, 0, 0, 0]
    assert state.supply == [3, 2, 2, 1, 1]
    kinds = [(e.kind, e.detail.battlefield, e.detail.banner) for e in state.log.events[-3:]]
    assert kinds[:2] == [("banner", 1, 4), ("banner", 2, 3)]


def test_the_check_stops_at_the_highest_banner_left():  # :141-145
    fields = [(0, [(0, 5), (1, 5)]), (0, [(0, 7)])]
    state = position(fields, hands=([1, 2, 9], [1, 2, 3]))
    play(state, "play:9:1")  # three Warriors: the 4 is still the highest, nothing is placed
    assert [f.banner for f in state.fields] == [0] * 7 and state.supply == list(BANNERS)


def test_the_one_banners_go_to_the_last_two_battlefields_with_at_most_one_warrior():  # Step 3 :149-161
    two = [(0, 1), (1, 2)]
    fields = [(0, two), (0, two), (0, two), (0, two), (0, [(0, 3)]), (0, [(1, 3)])]
    state = position(fields, hands=([4, 5, 6], [4, 5, 6]), supply=list(BANNERS))
    play(state, "play:6:5")
    assert [f.banner for f in state.fields] == [0, 0, 0, 0, 0, 1, 1]
    assert state.supply == [4, 3, 3, 2, 2]


def test_after_a_ronin_banner_the_last_one_banner_goes_to_the_single_empty_battlefield():  # ruling 3
    # A Ronin's 4 Banner holds one Warrior (battlefield 6). The Crane's 7 makes battlefield 4
    # two strong: Step 1 gives it the 2, then the first 1 to battlefield 3 (exactly one
    # Warrior), and stops (no battlefield left with exactly one). Five battlefields now count
    # at 2+, so ruling 3 gives the last 1 to the empty battlefield 7 at once; the printed
    # "exactly 2 battlefields" would wait for its Warrior, then place the same 1 (Step 1).
    fields = [
        (3, [(CRANE, 1), (TURTLE, 1), (CRANE, 2)]),
        (3, [(TURTLE, 2), (CRANE, 3), (TURTLE, 3)]),
        (0, [(CRANE, 5)]),
        (0, [(TURTLE, 5)]),
        (2, [(CRANE, 6), (TURTLE, 6)]),
        (4, [(CRANE, 4)]),
    ]
    state = position(fields, hands=([7, 8, 9], [4, 7, 8]), piles=([], [9]))
    assert state.supply == [2, 1, 1]
    play(state, "play:7:4")
    assert [f.banner for f in state.fields] == [3, 3, 1, 2, 2, 4, 1] and state.supply == []
    placed = [(e.detail.battlefield, e.detail.banner) for e in state.log.events if e.kind == "banner"]
    assert placed == [(4, 2), (3, 1), (7, 1)]
    # The empty battlefield still takes its one Warrior, and then it is full.
    assert {"play:4:7", "play:7:7", "play:8:7"} <= set(ids(state))
    play(state, "play:8:7")
    assert bf(state, 7).warriors == [(TURTLE, 8)] and not any(i.endswith(":7") for i in ids(state))


def test_assign_banners_places_every_candidate_of_a_value_with_copies():  # ruling 4
    fields = [Field([(0, 1), (1, 1), (0, 2)]), Field([(1, 2), (0, 3), (1, 3)]), Field([(0, 4)] * 4)]
    fields += [Field() for _ in range(4)]
    supply = list(BANNERS)
    assert assign_banners(fields, supply) == [(2, 4), (0, 3), (1, 3)]
    assert supply == [2, 2, 1, 1]


def test_capacity_limits_per_banner_size():  # ruling 2
    assert MOST_AT_LEAST == {1: 7, 2: 5, 3: 3, 4: 1, 5: 0}


def test_three_with_three_plus_bars_a_fourth_battlefield():  # :165-175
    three = [(0, 1), (1, 1), (0, 2)]
    fields = [(0, three), (0, three), (0, three), (0, [(0, 4), (1, 4)])]
    state = position(fields, hands=([5, 6, 7], [2, 3, 5]), seat=TURTLE)
    assert not fits(state.fields, 3)
    assert not any(i.endswith(":4") for i in ids(state))
    assert "play:5:1" in ids(state) and "play:5:5" in ids(state)


def test_a_three_or_four_banner_counts_with_fewer_warriors():  # rule vector 1, :179-186
    three = [(0, 1), (1, 1), (0, 2)]
    fields = [(0, three), (0, three), (3, [(1, 4)]), (0, [(0, 4), (1, 2)])]
    state = position(fields, hands=([5, 6, 7], [3, 5, 6]), seat=TURTLE, supply=[4, 3, 2, 2, 1, 1])
    assert state.fields[2].at_least(3)
    assert not any(i.endswith(":4") for i in ids(state))


# -- abilities -------------------------------------------------------------------------------


def test_ashigaru_places_a_token_on_an_adjacent_battlefield():  # DATA §4
    state = position(hands=([2, 5, 6], [1, 2, 3]))
    play(state, "play:2:4")
    assert state.phase == pb.TOKEN_PHASE and ids(state) == ("token:3", "token:5")
    play(state, "token:5")
    assert bf(state, 5).tokens == [1, 0] and state.tokens_left == [3, 4]
    assert side_strength(bf(state, 5), CRANE) == 1


def test_ashigaru_on_an_edge_has_one_place_and_is_not_asked():  # ruling 6
    state = position(hands=([2, 5, 6], [1, 2, 3]))
    play(state, "play:2:7")
    assert bf(state, 6).tokens == [1, 0] and state.turn_seat == TURTLE


def test_kyudo_places_a_token_on_any_other_battlefield_even_a_full_one():  # ruling 6
    state = position([(1, [(1, 9)])], hands=([3, 5, 6], [1, 2, 3]))
    play(state, "play:3:4")
    assert ids(state) == ("token:1", "token:2", "token:3", "token:5", "token:6", "token:7")
    play(state, "token:1")
    assert bf(state, 1).tokens == [1, 0]


def test_ronin_places_the_highest_banner_and_it_counts_at_once():  # :250-254
    state = position(hands=([4, 5, 6], [1, 2, 3]))
    play(state, "play:4:2")
    assert bf(state, 2).banner == 4 and state.supply == [3, 3, 2, 2, 1, 1]
    assert bf(state, 2).at_least(3)
    event = next(e for e in state.log.events if e.kind == "banner")
    assert event.detail.ronin and event.detail.banner == 4


def test_ronin_places_no_second_banner():  # :252
    state = position([(2, [(1, 5)])], hands=([4, 5, 6], [1, 2, 3]), supply=[4, 3, 3, 2, 1, 1])
    play(state, "play:4:1")
    assert bf(state, 1).banner == 2 and state.supply == [4, 3, 3, 2, 1, 1]


def test_ronin_places_the_highest_banner_the_capacity_rule_allows():
    # :252 "If no Banner is present and one can legally be placed, you must place it": three
    # battlefields hold 3 Warriors, so the 4 and the 3s may not go on a fourth (3 With 3+); the
    # 2 may, and the Ronin places it (version 2 placed none).
    three = [(0, 1), (1, 1), (0, 2)]
    state = position([(0, three), (0, three), (0, three)], hands=([4, 5, 6], [2, 3, 5]))
    assert [ronin_banner_fits(state.fields, 4, b) for b in (4, 3, 2, 1)] == [False, False, True, True]
    play(state, "play:4:5")
    assert bf(state, 5).banner == 2 and state.supply == [4, 3, 3, 2, 1, 1]
    assert "the Ronin places the 2 Banner on battlefield 5" in [e.text for e in state.log.events]


def test_ronin_places_no_banner_when_none_may_go_there():
    # No Banner of the supply fits battlefield 5: only 4s and 3s are left and three
    # battlefields already hold 3 Warriors.
    three = [(0, 1), (1, 1), (0, 2)]
    state = position([(0, three), (0, three), (0, three)], hands=([4, 5, 6], [2, 3, 5]))
    state.supply = [4, 3, 3]
    play(state, "play:4:5")
    assert bf(state, 5).banner == 0 and state.supply == [4, 3, 3]


def test_yamabushi_returns_a_warrior_whose_token_stays_and_a_replay_places_the_second():  # :260-284
    state = position([(0, [(CRANE, 2)])], hands=([5, 6, 7], [1, 2, 3]), tokens={2: (1, 0)})
    state.tokens_left = [3, 4]
    play(state, "play:5:3")
    assert state.phase == pb.RETURN_PHASE and ids(state) == ("return:2", "none")
    play(state, "return:2")
    assert bf(state, 1).warriors == [] and bf(state, 2).tokens == [1, 0]
    assert 2 in state.hands[CRANE]
    play(state, "play:1:1")  # Turtle
    play(state, "play:2:6", "token:7")  # the Ashigaru again: its second token
    assert bf(state, 7).tokens == [1, 0] and state.tokens_left == [2, 4]


def test_a_returned_warrior_is_known_to_be_in_hand_until_played():
    state = position([(0, [(CRANE, 9)])], hands=([5, 6, 7], [1, 2, 3]))
    play(state, "play:5:3", "return:9")
    assert GAME.observe(state, TURTLE).seats[CRANE].revealed == [9]
    for k in range(20):
        world = GAME.sample_world(state, TURTLE, Chance(k))
        assert 9 in world.hands[CRANE] and len(world.hands[CRANE]) == 4
    play(state, "play:1:1", "play:9:2")
    assert state.revealed == [[], []]


def test_yamabushi_may_decline_and_is_not_asked_alone():
    state = position(hands=([5, 6, 7], [1, 2, 3]))
    play(state, "play:5:3")
    assert state.turn_seat == TURTLE  # no other Warrior of the Crane on the board
    state = position([(0, [(CRANE, 9)])], hands=([5, 6, 7], [1, 2, 3]))
    play(state, "play:5:3", "none")
    assert bf(state, 1).warriors == [(CRANE, 9)] and state.turn_seat == TURTLE


def test_wokou_moves_any_token_and_its_effect_moves_with_it():  # :288-302
    fields = [(0, [(CRANE, 5), (TURTLE, 4)])]
    state = position(fields, hands=([6, 7, 8], [1, 2, 3]), tokens={1: (0, 1), 3: (1, 0)})
    assert controller(bf(state, 1)) == -1
    play(state, "play:6:4")
    assert ids(state) == ("move:1:1", "move:3:0")  # compulsory: no "none"
    play(state, "move:1:1")
    assert state.phase == pb.DESTINATION_PHASE and ids(state) == tuple(f"to:{i}" for i in (2, 3, 4, 5, 6, 7))
    play(state, "to:7")
    assert bf(state, 1).tokens == [0, 0] and bf(state, 7).tokens == [0, 1]
    assert controller(bf(state, 1)) == CRANE


def test_onna_musha_bars_the_opponents_eight_and_nine_there():  # :306-312
    state = position([(0, [(CRANE, 7)])], hands=([1, 2, 3], [1, 8, 9]), seat=TURTLE)
    options = ids(state)
    assert "play:1:1" in options and "play:8:1" not in options and "play:9:1" not in options
    assert "play:8:2" in options


def test_onna_musha_yields_when_the_opponent_has_no_other_play():  # :310-312, ruling 8
    fields = [(4, [(0, 7), (1, 1)])] + [(b, [(0, 5)] * b) for b in (3, 3, 2, 2, 1, 1)]
    state = position(fields, hands=([1, 2, 3], [8, 9]), piles=([], []), seat=TURTLE, supply=[])
    assert ids(state) == ("play:8:1", "play:9:1")


def test_kensei_voids_ability_tokens_on_its_battlefield():  # designed 9
    field = Field([(CRANE, 9), (TURTLE, 8)], 0, [0, 2])
    assert side_strength(field, CRANE) == 9 and side_strength(field, TURTLE) == 8
    field = Field([(CRANE, 7), (TURTLE, 8)], 0, [0, 2])
    assert side_strength(field, TURTLE) == 10


def test_shinobi_takes_the_strength_of_the_strongest_opposing_warrior():  # designed 1
    field = Field([(CRANE, 1), (TURTLE, 6), (TURTLE, 3)], 0, [0, 0])
    assert side_strength(field, CRANE) == 6 and controller(field) == TURTLE
    assert side_strength(Field([(CRANE, 1)], 0, [0, 0]), CRANE) == 1


def test_shinobi_takes_an_opposing_warriors_strength_not_its_own_armys():  # designed 1
    """components.toml: "its strength becomes the printed strength of the strongest opposing
    Warrior on its battlefield": its own army's stronger Warriors do not count."""
    field = Field([(CRANE, 1), (CRANE, 6), (TURTLE, 4), (TURTLE, 5), (TURTLE, 3)], 0, [0, 0])
    assert side_strength(field, CRANE) == 5 + 6 and side_strength(field, TURTLE) == 12
    assert controller(field) == TURTLE
    field = Field([(TURTLE, 2), (TURTLE, 1), (CRANE, 3), (TURTLE, 6)], 0, [0, 0])
    assert side_strength(field, TURTLE) == 2 + 3 + 6 and side_strength(field, CRANE) == 3


def test_sohei_on_the_board_is_a_tiebreaker_as_printed():  # :316-326, ruling 9
    won = [Field([(CRANE, 8), (TURTLE, 2)], 2, [0, 0])]
    lost = [Field([(CRANE, 8), (TURTLE, 9)], 2, [0, 0])]
    assert tiebreaker([3], won, CRANE) == 8 and tiebreaker([9], won, CRANE) == 9
    assert tiebreaker([3], lost, CRANE) == 8 and tiebreaker([3], lost, TURTLE) == 3
    assert tiebreaker([8], [Field()], CRANE) == 8  # a Sohei left in hand is the Tiebreaker Card


def test_sohei_is_a_tiebreaker_only_where_its_army_controls_with_sohei_controlled():  # ruling 9 option
    won = [Field([(CRANE, 8), (TURTLE, 2)], 2, [0, 0])]
    lost = [Field([(CRANE, 8), (TURTLE, 9)], 2, [0, 0])]
    tied = [Field([(CRANE, 8), (TURTLE, 7)], 2, [0, 1])]
    assert tiebreaker([3], won, CRANE, True) == 8 and tiebreaker([9], won, CRANE, True) == 9
    assert tiebreaker([3], lost, CRANE, True) == 3 and tiebreaker([3], tied, CRANE, True) == 3
    assert tiebreaker([8], [Field()], CRANE, True) == 8
    assert not sohei_needs_control(GAME.config(2)) and GAME.config(2).options == {"sohei": "printed"}
    assert sohei_needs_control(GAME.config(2, {"sohei": "controlled"}))


# -- control and the end ---------------------------------------------------------------------


def test_equal_totals_control_nothing():  # rule vector 2, :226-228
    field = Field([(CRANE, 5), (TURTLE, 4)], 2, [0, 1])
    assert side_strength(field, CRANE) == side_strength(field, TURTLE) == 5
    assert controller(field) == -1


def _final(hands: tuple[int, int], fields: list[Field], options: dict[str, object] | None = None) -> EmperorState:
    state = position(hands=([hands[0], 6], [hands[1]]), piles=([], []), options=options)
    state.fields = fields
    state.supply = []
    state.hands = [[hands[0]], [hands[1]]]
    GAME.refresh(state)
    return state


def _board(crane_wins: int, turtle_wins: int) -> list[Field]:
    """Seven full battlefields (Banners 4,3,3,2,2,1,1): the first ``crane_wins`` all Crane 5s,
    then all Turtle 5s, and the last, a 1 Banner, tied 2 against a Turtle's 2 tokens."""
    assert crane_wins + turtle_wins == 6
    fields = [Field([(CRANE if i < crane_wins else TURTLE, 5)] * b, b, [0, 0]) for i, b in enumerate(BANNERS[:6])]
    return [*fields, Field([(CRANE, 2)], 1, [0, 2])]


def test_most_battlefields_win_then_the_tiebreaker_then_a_shared_victory():  # rule vector 3, :232-244
    board = _board(3, 3)
    assert controlled(board) == [3, 3] and controller(board[6]) == -1
    result = GAME.score(_final((9, 4), board))
    assert result.scores == (3.0, 3.0) and result.ranks == (1, 2)
    result = GAME.score(_final((4, 4), board))
    assert result.ranks == (1, 1) and "shared" in result.summary
    result = GAME.score(_final((9, 2), _board(2, 4)))
    assert result.scores == (2.0, 4.0) and result.ranks == (2, 1)


def _sohei_board() -> list[Field]:
    """3-3 on battlefields, the last tied; the Crane's Sohei is on battlefield 1, which the
    Turtle controls (8 against 15)."""
    board = _board(3, 3)
    # Battlefield 1 (4 Banner): the Crane's Sohei and three Turtle 5s; the Turtle controls it.
    board[0] = Field([(CRANE, 8), (TURTLE, 5), (TURTLE, 5), (TURTLE, 5)], 4, [0, 0])
    # Battlefield 4 (2 Banner), a Turtle one in _board(3, 3), goes to the Crane: still 3-3.
    board[3] = Field([(CRANE, 5), (CRANE, 5)], 2, [0, 0])
    return board


def test_the_sohei_breaks_the_tie_without_controlling_its_battlefield_by_default():  # :316-326, ruling 9
    board = _sohei_board()
    assert controller(board[0]) == TURTLE and controlled(board) == [3, 3]
    state = _final((3, 7), board)
    result = GAME.score(state)
    assert result.scores == (3.0, 3.0) and result.ranks == (1, 2)
    assert "on the Tiebreaker (8 against 7)" in result.summary
    # With the Turtle keeping its 9 the Sohei is not enough; with its Sohei in hand, shared.
    assert GAME.score(_final((3, 9), board)).ranks == (2, 1)
    assert GAME.score(_final((3, 8), board)).ranks == (1, 1)


def test_sohei_controlled_keeps_the_sohei_off_a_battlefield_its_army_lost():  # ruling 9 option
    board = _sohei_board()
    controlled_only = {"sohei": "controlled"}
    result = GAME.score(_final((3, 7), board, controlled_only))
    assert result.scores == (3.0, 3.0) and result.ranks == (2, 1)
    assert "on the Tiebreaker (7 against 3)" in result.summary
    assert GAME.observe(_final((3, 7), board, controlled_only), CRANE).sohei_controlled
    assert not GAME.observe(_final((3, 7), board), CRANE).sohei_controlled
    # Where the Crane controls the Sohei's battlefield it counts under either setting.
    board[0] = Field([(CRANE, 8), (CRANE, 5), (TURTLE, 5), (TURTLE, 5)], 4, [0, 0])
    board[3] = Field([(TURTLE, 5), (TURTLE, 5)], 2, [0, 0])
    assert controlled(board) == [3, 3]
    assert GAME.score(_final((3, 7), board, controlled_only)).ranks == (1, 2)


def test_the_game_ends_when_both_hold_one_warrior_and_a_player_down_to_one_passes():  # :200-209, ruling 7
    fields = [(4, [(0, 9), (1, 8), (0, 7), (1, 6)]), (3, [(0, 6), (0, 5)]), (3, [(1, 4), (0, 4), (1, 3)])]
    fields += [(2, [(0, 3), (1, 2)]), (2, [(0, 2), (1, 1)]), (1, [(0, 1)]), (1, [])]
    state = position(fields, hands=([8], [5, 7, 9]), piles=([], []), seat=TURTLE, supply=[])
    assert ids(state) == ("play:5:2", "play:5:7", "play:7:2", "play:7:7", "play:9:2", "play:9:7")
    play(state, "play:9:2")  # the Turtle (after a Yamabushi return) still holds two
    assert state.turn_seat == TURTLE and state.passed == [True, False]
    assert state.log.events[-1].kind == "pass" and state.log.events[-1].detail.seat == CRANE
    play(state, "play:7:7")
    assert not state.pending and GAME.is_over(state)
    end = state.log.events[-1]
    assert end.kind == "end" and list(end.detail.cards) == [8, 5]
    assert sum(len(f.warriors) for f in state.fields) == 16


@pytest.mark.parametrize(("options", "values"), [(None, [8, 8]), ({"sohei": "controlled"}, [3, 5])])
def test_the_end_event_and_observation_report_the_tiebreaker_per_option(options, values):  # ruling 9
    """Both Sohei are on battlefields their army lost (battlefield 3: 8 against 4 + 3 + 2 tokens;
    battlefield 1: the Crane's 16 against 14); the cards kept are a 3 and a 5."""
    fields = [(4, [(0, 9), (1, 8), (0, 7), (1, 6)]), (3, [(0, 6), (0, 5)]), (3, [(1, 4), (0, 8), (1, 3)])]
    fields += [(2, [(0, 4), (1, 2)]), (2, [(0, 2), (1, 1)]), (1, [(0, 1)]), (1, [])]
    state = position(
        fields, hands=([3], [5, 7, 9]), piles=([], []), seat=TURTLE, supply=[], tokens={3: (0, 2)}, options=options
    )
    play(state, "play:9:2", "play:7:7")
    end = state.log.events[-1]
    assert end.kind == "end" and list(end.detail.cards) == [3, 5] and list(end.detail.controlled) == [4, 2]
    assert list(end.detail.tiebreakers) == values
    assert [v.tiebreaker for v in GAME.observe(state, SPECTATOR).seats] == values


# -- hidden information ----------------------------------------------------------------------


def _bytes(state: EmperorState, seat: int) -> bytes:
    return GAME.observe(state, seat).SerializeToString(deterministic=True)


def test_observations_do_not_depend_on_the_opponents_hand_or_either_pile_order():
    a = GAME.new_match(GAME.config(2), seed=3)
    b = GAME.new_match(GAME.config(2), seed=3)
    cards = b.hands[TURTLE] + b.piles[TURTLE]
    b.hands[TURTLE], b.piles[TURTLE] = sorted(cards[-3:]), cards[:-3]
    b.piles[CRANE] = list(reversed(b.piles[CRANE]))
    GAME.refresh(b)
    assert _bytes(a, CRANE) == _bytes(b, CRANE)
    for _, event in a.log.since(CRANE, 0):
        assert event.seat == CRANE or event.kind not in ("deal", "draw")
    state = GAME.new_match(GAME.config(2), seed=4)
    rng = Chance(4)
    while state.pending:
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: rng.pick(decision.options, "x").id})
        for viewer in (0, 1):
            for _, event in state.log.since(viewer, 0):
                if event.kind in ("deal", "draw"):
                    assert event.seat == viewer


def test_illegal_choices_change_nothing():
    state = GAME.new_match(GAME.config(2), seed=1)
    before = GAME.observe(state, SPECTATOR).SerializeToString(deterministic=True)
    wrong = next(f"play:{s}:1" for s in range(1, 10) if s not in state.hands[0])
    for choice in (wrong, "play:1:8", "none", "to:1"):
        with pytest.raises(IllegalChoice):
            GAME.apply(state, {0: choice})
    assert GAME.observe(state, SPECTATOR).SerializeToString(deterministic=True) == before


# -- playout invariants ----------------------------------------------------------------------


def _check(state: EmperorState) -> None:
    for seat in (0, 1):
        board = [s for f in state.fields for o, s in f.warriors if o == seat]
        assert sorted(board + state.hands[seat] + state.piles[seat]) == list(range(1, 10))
        assert state.tokens_left[seat] + sum(f.tokens[seat] for f in state.fields) == 4
    assert sorted([f.banner for f in state.fields if f.banner] + state.supply) == sorted(BANNERS)
    for f in state.fields:
        assert not f.banner or len(f.warriors) <= f.banner
    for k, most in MOST_AT_LEAST.items():
        assert sum(f.at_least(k) for f in state.fields) <= most


def test_playout_invariants_over_2000_seeded_games():
    longest = 0
    outcomes: Counter[tuple[int, ...]] = Counter()
    for seed in range(2000):
        state = GAME.new_match(GAME.config(2), seed=seed)
        rng = Chance(seed)
        steps = 0
        while state.pending:
            (decision,) = state.pending
            GAME.apply(state, {decision.seat: rng.pick(decision.options, "x").id})
            steps += 1
            if decision.kind == "play":
                _check(state)
        _check(state)
        assert all(f.banner and len(f.warriors) == f.banner for f in state.fields)  # :58
        assert [len(h) for h in state.hands] == [1, 1] and state.piles == [[], []]
        assert state.turn <= 20  # 16 plays, at most 2 Yamabushi returns and their passes
        result = GAME.result(state)
        won = controlled(state.fields)
        assert list(result.scores) == won and sum(won) <= 7
        outcomes[result.ranks] += 1
        longest = max(longest, steps)
    assert longest <= 18 + 18  # plays plus ability decisions
    assert set(outcomes) == {(1, 2), (2, 1), (1, 1)}


# -- sample_world ----------------------------------------------------------------------------


def test_sampled_worlds_keep_what_the_seat_knows_and_play_on():
    n = 0
    for seed in range(6):
        state = GAME.new_match(GAME.config(2), seed=seed)
        rng = Chance(seed)
        while state.pending:
            for seat in (0, 1):
                before = _bytes(state, seat)
                world = GAME.sample_world(state, seat, Chance(n))
                n += 1
                assert _bytes(world, seat) == before and _bytes(state, seat) == before
                assert [d.option_ids for d in world.pending if d.seat == seat] == [
                    d.option_ids for d in state.pending if d.seat == seat
                ]
                assert sorted(world.hands[1 - seat] + world.piles[1 - seat]) == sorted(
                    state.hands[1 - seat] + state.piles[1 - seat]
                )
            (decision,) = state.pending
            GAME.apply(state, {decision.seat: rng.pick(decision.options, "x").id})
    assert n > 100


def test_hidden_hands_are_dealt_uniformly():
    """At the start the Turtle holds 3 of its 9 Warriors: seen from the Crane each is in its hand
    3 times in 9."""
    state = GAME.new_match(GAME.config(2), seed=7)
    counts: Counter[int] = Counter()
    samples = 900
    for k in range(samples):
        counts.update(GAME.sample_world(state, CRANE, Chance(k)).hands[TURTLE])
    observed = [counts[s] for s in range(1, 10)]
    assert chisquare(observed, [samples * 3 / 9] * 9).pvalue > 0.01


def test_world_from_observation_keeps_the_revealed_warrior_and_deals_the_rest():
    state = position([(0, [(CRANE, 9)])], hands=([5, 6, 7], [1, 2, 3]))
    play(state, "play:5:3", "return:9")
    seen = GAME.observe(state, TURTLE)
    counts: Counter[int] = Counter()
    samples = 600
    for k in range(samples):
        world = GAME.world_from_observation(state.config, TURTLE, seen, Chance(k))
        assert world.hands[TURTLE] == state.hands[TURTLE]
        assert sorted(world.piles[TURTLE]) == sorted(state.piles[TURTLE])
        assert 9 in world.hands[CRANE] and len(world.hands[CRANE]) == len(state.hands[CRANE])
        assert len(world.piles[CRANE]) == len(state.piles[CRANE])
        assert sorted(world.hands[CRANE] + world.piles[CRANE]) == sorted(state.hands[CRANE] + state.piles[CRANE])
        assert world.revealed == state.revealed and world.fields == state.fields
        counts.update(s for s in world.hands[CRANE] if s != 9)
    # The Crane's other unplayed Warriors fill the rest of its hand uniformly.
    unknown = sorted(s for s in state.hands[CRANE] + state.piles[CRANE] if s != 9)
    share = samples * (len(state.hands[CRANE]) - 1) / len(unknown)
    assert chisquare([counts[s] for s in unknown], [share] * len(unknown)).pvalue > 0.01


# -- the heuristic bot -----------------------------------------------------------------------


@pytest.mark.parametrize("sohei", ["printed", "controlled"])
def test_the_heuristic_reads_the_sohei_option_from_the_observation(sohei):
    state = GAME.new_match(GAME.config(2, {"sohei": sohei}), seed=2)
    bots = [HeuristicBot(), HeuristicBot()]
    while state.pending:
        (decision,) = state.pending
        obs = GAME.observe(state, decision.seat)
        assert obs.sohei_controlled == (sohei == "controlled")
        if not any(v.draw_pile for v in obs.seats):  # the endgame solver rebuilds the position
            assert position_of(obs).config.options["sohei"] == sohei
        GAME.apply(state, {decision.seat: bots[decision.seat].decide(request_for(GAME, state, decision.seat))})
    assert GAME.is_over(state)


def test_the_heuristic_values_a_ronin_play_by_the_banner_the_ronin_places():
    # Ruling 5 (version 3): where the supply's highest Banner may not go, the Ronin places the
    # highest that may. The heuristic's look-ahead placed none there, so it valued the play
    # by a board the game never makes (an outside rules probe).
    three = [(0, 1), (1, 1), (0, 2)]
    state = position([(0, three), (0, three), (0, three)], hands=([4, 5, 6], [2, 3, 5]))
    bot = HeuristicBot()
    board = board_of(GAME.observe(state, CRANE))
    predicted = bot._after_play(board, CRANE, 4, 4, [4, 5, 6])
    play(state, "play:4:5")
    assert bf(state, 5).banner == 2
    assert predicted == bot.value(board_of(GAME.observe(state, CRANE)), CRANE)


def test_text_example_a_two_banner_takes_exactly_two_warriors_of_either_army():
    # :63-70 "A battlefield with a 2 Banner may contain exactly 2 Warriors total. Both players'
    # Warriors count toward this limit." The Crane's Warrior joins the Turtle's on a 2 Banner;
    # from then on neither army is offered that battlefield.
    state = position([(2, [(TURTLE, 6)])], hands=([5, 6, 7], [1, 8, 9]))
    assert "play:6:1" in ids(state)
    play(state, "play:6:1")
    assert bf(state, 1).warriors == [(TURTLE, 6), (CRANE, 6)] and bf(state, 1).banner == 2
    seen = GAME.observe(state, TURTLE).battlefields[0]
    assert (seen.banner, len(seen.warriors)) == (2, 2)
    assert state.turn_seat == TURTLE and not any(i.endswith(":1") for i in ids(state))
    play(state, "play:1:3")
    assert state.turn_seat == CRANE and not any(i.endswith(":1") for i in ids(state))
