"""Soda Jerk: every rule of shared/rules/sodajerk.md and its rulings (NOTES.md §4.21), pinned."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.sodajerk import GAME, Card, SodaJerkState
from arena.games.sodajerk.game import (
    FLAVOURS,
    HAND,
    ROUNDS,
    SWITCHEROO,
    Slot,
    flavour_cards,
    hand_score,
    tap_value,
)
from arena.games.v1 import sodajerk_pb2 as pb
from bots.registry import make_bot
from tests.contract import assert_same_view, configurations, observation_bytes, random_playout

STRAWBERRY, BLUEBERRY, BANANA, KIWI, ORANGE = FLAVOURS
NAMES = {"strawberry": STRAWBERRY, "blueberry": BLUEBERRY, "banana": BANANA, "kiwi": KIWI, "orange": ORANGE}


def C(token: str) -> Card:
    """A card from its option token: ``kiwi2``, ``switch``."""
    if token == "switch":
        return SWITCHEROO
    return Card(NAMES[token[:-1]], int(token[-1]))


def cards(*tokens: str) -> list[Card]:
    return [C(t) for t in tokens]


def new(players=3, advanced=False, first=0, removed=ORANGE, b_order=None, seed=1) -> SodaJerkState:
    picks: dict[str, list[object]] = {"first": [first]}
    if players == 2:
        picks["tap"] = [removed]
    orders = {"b-side": [b_order]} if b_order else {}
    chance = PresetChance(seed, picks=picks, orders=orders)
    return GAME.new_match(GAME.config(players, {"advanced": advanced}), chance=chance)


def position(state: SodaJerkState, hands=None, taps=None, turn=None, first_done=True) -> SodaJerkState:
    """Edit a state: hands (token lists), taps {flavour: [(token, seat, face_up)]}, turn seat."""
    for seat, hand in (hands or {}).items():
        state.hands[seat] = sorted(cards(*hand))
    for tap, slots in (taps or {}).items():
        state.taps[tap] = [Slot(C(t), s, up) for t, s, up in slots]
    if turn is not None:
        state.turn_seat = turn
    if first_done:
        state.first_done = [True] * state.players
    GAME.refresh(state)
    return state


def ids(state: SodaJerkState) -> tuple[str, ...]:
    return state.pending[0].option_ids


def act(state: SodaJerkState, *choices: str) -> None:
    for choice in choices:
        GAME.apply(state, {state.pending[0].seat: choice})


def last(state: SodaJerkState, kind: str):
    return [e for e in state.log.events if e.kind == kind][-1]


# -- components and setup ----------------------------------------------------------------------


def test_the_deck_has_45_cards_nine_per_flavour_numbered_1_to_3():
    deck = flavour_cards(FLAVOURS)
    assert len(deck) == 45
    assert Counter(c.flavour for c in deck) == {f: 9 for f in FLAVOURS}
    assert Counter(c.number for c in deck) == {1: 15, 2: 15, 3: 15}


@pytest.mark.parametrize(("players", "hand", "aside"), [(2, 14, 10), (3, 13, 6), (4, 10, 5)])
def test_hand_sizes_13_13_10_and_the_rest_set_aside(players, hand, aside):
    """NOTES rule vector 1 (:53–61); 2 players add a Switcheroo (:222–224) to 36 cards."""
    state = new(players)
    assert [len(h) for h in state.hands] == [hand] * players
    assert len(state.set_aside) == aside
    assert HAND == {2: 13, 3: 13, 4: 10}


def test_two_players_remove_one_tap_and_its_nine_cards():
    state = new(2, removed=KIWI)
    assert state.flavours == [STRAWBERRY, BLUEBERRY, BANANA, ORANGE]
    everything = [c for h in state.hands for c in h] + state.set_aside
    assert all(c.flavour != KIWI for c in everything)
    assert Counter(everything)[SWITCHEROO] == 2
    assert [h.count(SWITCHEROO) for h in state.hands] == [1, 1]
    obs = GAME.observe(state, 0)
    assert obs.removed_flavour == KIWI and len(obs.taps) == 4


@pytest.mark.parametrize(("players", "ok"), [(1, False), (2, True), (4, True), (5, False)])
def test_player_counts(players, ok):
    if ok:
        GAME.config(players)
    else:
        with pytest.raises(ConfigError):
            GAME.config(players)


def test_strict_preset_chance_labels_in_order():
    """Chance labels: "tap", "b-side", then "deck" and "first" per round (ruling 8: later rounds
    pick only among tied lowest totals)."""
    flav = [STRAWBERRY, BLUEBERRY, BANANA, ORANGE]
    deck = flavour_cards(flav)
    chance = PresetChance(
        picks={"tap": [KIWI], "first": [1]},
        orders={"b-side": [[ORANGE, BANANA, BLUEBERRY, STRAWBERRY]], "deck": [deck]},
        strict=True,
    )
    state = GAME.new_match(GAME.config(2, {"advanced": True}), chance=chance)
    assert state.hands[0] == [*sorted(deck[:13]), SWITCHEROO]
    assert state.hands[1] == [*sorted(deck[13:26]), SWITCHEROO]
    assert state.set_aside == deck[26:]
    assert state.turn_seat == state.first_seat == 1
    assert state.b_side == {STRAWBERRY: False, BLUEBERRY: False, BANANA: False, ORANGE: True}
    assert chance.unused() == {}


# -- the turn ----------------------------------------------------------------------------------


def test_first_turn_must_place_under_an_empty_tap():
    state = new(3, first=1)
    first = ids(state)
    assert all(i.startswith("place:") for i in first)
    hand = dict.fromkeys(state.hands[1])
    assert len(first) == len(hand) * 5
    act(state, f"place:{state.hands[1][0].token}:banana")
    second = ids(state)
    assert state.pending[0].seat == 2
    assert not any(i.endswith(":banana") or i.startswith("flip") for i in second)
    assert len(second) == len(dict.fromkeys(state.hands[2])) * 4


def test_after_the_first_turn_place_anywhere_or_flip_any_face_down_card_own_included():
    state = position(
        new(3),
        hands={0: ["kiwi1", "kiwi2", "banana3", "orange1", "orange2"]},
        taps={KIWI: [("banana1", 0, False), ("kiwi3", 1, True)], ORANGE: [("orange3", 2, False)]},
        turn=0,
    )
    options = ids(state)
    assert len(options) == 5 * 5 + 2
    assert "flip:kiwi:0" in options  # seat 0's own card (ruling 3)
    assert "flip:orange:0" in options and "flip:kiwi:1" not in options
    act(state, "flip:kiwi:0")
    assert state.taps[KIWI][0].face_up and state.flips == 1
    assert last(state, "flip").detail.card == pb.Card(flavour=BANANA, number=1)


def test_a_placed_card_is_hidden_from_the_others_and_the_event_names_no_card():
    state = position(new(3), hands={0: ["kiwi1", "kiwi2", "banana3", "orange1", "orange2"]}, turn=0)
    act(state, "place:banana3:kiwi")
    event = last(state, "place")
    assert event.to is None and not event.detail.HasField("card") and event.detail.tap == KIWI
    mine = GAME.observe(state, 0).taps[3].slots[0]
    theirs = GAME.observe(state, 1).taps[3].slots[0]
    assert mine.card == pb.Card(flavour=BANANA, number=3) and mine.seat == 0 and not mine.face_up
    assert theirs.card.flavour == pb.FLAVOUR_UNSPECIFIED and theirs.seat == 0
    assert GAME.observe(state, 0).taps[3].known_value == -3
    assert GAME.observe(state, 1).taps[3].known_value == 0


def test_illegal_choice_changes_nothing():
    state = new(3)
    before = pickle.dumps(state)
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {0: "flip:kiwi:0"})
    assert pickle.dumps(state) == before


# -- scoring -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tap", "tokens", "value"),
    [
        (KIWI, ["kiwi2"], 2),
        (KIWI, ["kiwi2", "switch"], -2),  # text example 1: +2 becomes -2 (:235)
        (KIWI, ["banana3", "orange1"], -4),
        (KIWI, ["banana3", "orange1", "switch"], 4),  # text example 1: -4 becomes +4 (:236)
        (KIWI, ["kiwi2", "switch", "switch"], 2),  # text example 2: two Switcheroos cancel (:238-240)
        (KIWI, ["banana3", "switch", "orange1", "switch"], -4),
        (BANANA, ["banana3", "banana1", "kiwi2", "orange3"], -1),
        (ORANGE, [], 0),
    ],
)
def test_tap_value(tap, tokens, value):
    assert tap_value(tap, cards(*tokens)) == value


def test_hand_scores_the_tap_value_not_the_card_number_and_can_be_negative():
    """NOTES rule vector 2 (:168–175)."""
    values = {STRAWBERRY: 4, BLUEBERRY: -3, BANANA: 0, KIWI: 1, ORANGE: -1}
    assert hand_score(cards("strawberry1", "strawberry3", "blueberry2"), values) == 4 + 4 - 3
    assert hand_score(cards("blueberry1", "blueberry3", "orange3", "switch"), values) == -7


def two_player_switch(taps, place="place:switch:kiwi"):
    state = new(2, removed=ORANGE)
    position(
        state,
        hands={0: ["switch", "kiwi1", "kiwi3", "banana1"], 1: ["kiwi1", "banana2", "banana3"]},
        taps=taps,
        turn=0,
    )
    act(state, place)
    return state


def test_text_example_switcheroo_turns_plus_2_into_minus_2_in_play():
    state = two_player_switch({KIWI: [("kiwi2", 1, True)], BANANA: [("banana1", 1, False)]})
    end = next(e for e in state.log.events if e.kind == "round-end")
    assert end.detail.reason == "hand"
    score = next(e for e in state.log.events if e.kind == "score").detail
    assert list(score.values) == [0, 0, 1, -2]  # strawberry, blueberry, banana, kiwi
    assert list(score.scores) == [-2 - 2 + 1, -2 + 1 + 1]
    assert state.round_scores == [[-3], [0]] and state.totals == [-3, 0]


def test_text_example_switcheroo_turns_minus_4_into_plus_4_in_play():
    state = two_player_switch({KIWI: [("banana3", 1, True), ("strawberry1", 1, False)]})
    score = next(e for e in state.log.events if e.kind == "score").detail
    assert score.values[3] == 4
    assert list(score.scores) == [4 + 4, 4]


def test_text_example_two_switcheroos_cancel_in_play():
    state = two_player_switch({KIWI: [("kiwi2", 1, True), ("switch", 1, False)]})
    score = next(e for e in state.log.events if e.kind == "score").detail
    assert score.values[3] == 2
    assert list(score.scores) == [2 + 2, 2]
    reveal = [e for e in state.log.events if e.kind == "reveal"]
    assert [(e.detail.tap, e.detail.index, e.detail.card.flavour) for e in reveal] == [
        (KIWI, 1, pb.SWITCHEROO),
        (KIWI, 2, pb.SWITCHEROO),
    ]


def test_a_switcheroo_kept_in_hand_is_worth_0():
    state = new(2)
    position(
        state,
        hands={0: ["switch", "kiwi1", "kiwi3", "banana1"], 1: ["switch", "kiwi2", "banana3"]},
        taps={KIWI: [("kiwi3", 1, True)]},
        turn=0,
    )
    act(state, "place:banana1:banana")
    assert state.round_scores == [[3 + 3 + 0], [3 + 1]]


# -- end of a round ----------------------------------------------------------------------------


def test_a_player_starting_a_turn_with_3_cards_ends_the_round():
    state = position(new(3), hands={0: ["kiwi1"] * 5, 1: ["kiwi2"] * 4, 2: ["kiwi3"] * 4}, turn=0)
    act(state, "place:kiwi1:kiwi", "place:kiwi2:kiwi")
    assert state.round == 1 and state.turn_seat == 2
    act(state, "place:kiwi3:kiwi")  # seat 0 now starts with 4: no end
    assert state.round == 1
    act(state, "place:kiwi1:kiwi")  # seat 1 starts with 3: the round ends
    assert state.round == 2
    end = next(e for e in state.log.events if e.kind == "round-end")
    assert end.detail.reason == "hand" and end.detail.seat == 1
    # kiwi = 1 + 2 + 3 + 1 = 7; hands: seat 0 three kiwi, seat 1 three kiwi, seat 2 three kiwi
    assert state.round_scores == [[21], [21], [21]]


def test_every_hand_is_revealed_at_the_round_scoring():
    # :166 "Each player reveals their hand": the score event, public, lists every seat's hand.
    state = position(
        new(3), hands={0: ["kiwi1", "banana2"] * 2 + ["kiwi1"], 1: ["kiwi2"] * 4, 2: ["orange3"] * 4}, turn=0
    )
    act(state, "place:kiwi1:kiwi", "place:kiwi2:kiwi", "place:orange3:kiwi", "place:banana2:kiwi")
    score = last(state, "score")
    assert score.to is None
    shown = [[(c.flavour, c.number) for c in hand.cards] for hand in score.detail.hands]
    assert shown == [
        [(pb.BANANA, 2), (pb.KIWI, 1), (pb.KIWI, 1)],
        [(pb.KIWI, 2), (pb.KIWI, 2), (pb.KIWI, 2)],
        [(pb.ORANGE, 3), (pb.ORANGE, 3), (pb.ORANGE, 3)],
    ]
    # The kiwi tap: kiwi 1 + kiwi 2 - orange 3 - banana 2 = -2; the banana and orange taps are
    # empty (0). Seat 0 ends the round when seat 1 starts a turn with 3 cards.
    assert score.detail.scores == [2 * -2 + 0, 3 * -2, 0]


def test_consecutive_flips_by_every_player_end_the_round_and_a_place_resets():
    state = position(
        new(3),
        hands={s: ["orange1", "orange2", "orange3", "kiwi1", "kiwi2"] for s in range(3)},
        taps={KIWI: [("kiwi1", 0, False), ("kiwi2", 1, False), ("kiwi3", 2, False), ("banana1", 0, False)]},
        turn=0,
    )
    act(state, "flip:kiwi:0", "flip:kiwi:1")
    assert state.flips == 2
    act(state, "place:orange1:orange")
    assert state.flips == 0
    act(state, "flip:kiwi:2", "flip:kiwi:3")
    assert state.round == 1 and state.flips == 2
    act(state, "flip:orange:0")
    assert state.round == 2
    end = next(e for e in state.log.events if e.kind == "round-end")
    assert end.detail.reason == "flips"
    # kiwi = 1 + 2 + 3 - 1 = 5, orange = 1: three oranges score 1 each, two kiwis 5 each;
    # seat 2 placed its orange1
    assert state.round_scores == [[3 * 1 + 2 * 5], [3 * 1 + 2 * 5], [2 * 1 + 2 * 5]]


def test_flipping_the_last_face_down_card_ends_the_round():
    state = position(
        new(4),
        hands={s: ["orange1", "orange2", "orange3", "kiwi1", "kiwi2"] for s in range(4)},
        taps={KIWI: [("kiwi1", 0, True), ("banana2", 1, False)], BANANA: [("banana3", 2, True)]},
        turn=3,
    )
    act(state, "flip:kiwi:1")
    assert state.round == 2
    end = next(e for e in state.log.events if e.kind == "round-end")
    assert end.detail.reason == "revealed"
    assert not [e for e in state.log.events if e.kind == "reveal"]
    assert state.round_scores == [[-2]] * 4  # kiwi 1 - 2 = -1, two kiwi in each hand


def test_the_empty_table_does_not_count_as_all_revealed():
    state = new(3)
    assert state.round == 1 and state.pending[0].kind == "turn"


# -- rounds and the end ------------------------------------------------------------------------


def test_next_round_first_player_is_the_lowest_total():
    state = position(
        new(3),
        hands={0: ["kiwi1"] * 4, 1: ["kiwi1", "banana1", "banana2"], 2: ["orange1"] * 4},
        taps={KIWI: [("kiwi2", 2, True)]},
        turn=0,
    )
    act(state, "place:kiwi1:orange")  # orange -1; seat 1 starts with 3: round over
    assert state.round_scores == [[6], [2], [-4]]
    assert state.round == 2 and state.first_seat == 2 and state.turn_seat == 2


def test_next_round_tied_lowest_is_picked_among_the_tied_seats():
    state = position(
        new(3),
        hands={0: ["kiwi1"] * 4, 1: ["kiwi1", "banana1", "banana2"], 2: ["kiwi1"] * 4},
        taps={BANANA: [("banana2", 2, True)]},
        turn=0,
    )
    state.chance = PresetChance(5, picks={"first": [1]}, strict=False)
    state.totals = [5, 0, 5]
    act(state, "place:kiwi1:orange")  # banana +2, kiwi 0: scores 0, 4, 0 -> totals 5, 4, 5
    assert state.totals == [5, 4, 5] and state.first_seat == 1
    state2 = position(new(3), hands={0: ["kiwi1"] * 4, 1: ["kiwi1", "banana1", "banana2"], 2: ["kiwi1"] * 4}, turn=0)
    state2.chance = PresetChance(5, picks={"first": [2]}, strict=True, orders={"deck": [flavour_cards(FLAVOURS)]})
    act(state2, "place:kiwi1:orange")  # all zero: three-way tie, pick seat 2
    assert state2.totals == [0, 0, 0] and state2.first_seat == 2
    assert state2.chance.unused() == {}


def test_three_rounds_then_highest_total_wins_and_ties_share():
    state = new(3)
    state.round = ROUNDS
    position(
        state,
        hands={0: ["kiwi1"] * 4, 1: ["kiwi1", "banana1", "banana2"], 2: ["kiwi2"] * 4},
        taps={KIWI: [("kiwi3", 2, True)]},
        turn=0,
    )
    state.totals = [10, 14, 4]
    act(state, "place:kiwi1:orange")  # kiwi 3: scores 9, 3, 12 -> 19, 17, 16
    assert not state.pending and state.phase == pb.OVER
    result = GAME.result(state)
    assert result.scores == (19, 17, 16) and result.ranks == (1, 2, 3)
    assert list(last(state, "end").detail.scores) == [19, 17, 16]
    state.totals = [19, 19, 16]
    assert GAME.score(state).ranks == (1, 1, 3)


# -- Advanced: B sides -------------------------------------------------------------------------


def test_b_sides_turn_1_then_2_then_the_rest():
    state = new(3, advanced=True, b_order=[KIWI, ORANGE, STRAWBERRY, BANANA, BLUEBERRY])
    assert [f for f, b in state.b_side.items() if b] == [KIWI]
    obs = GAME.observe(state, 0)
    assert [t.power for t in obs.taps] == [0, 0, 0, pb.FIZZ, 0]
    state.round = 1
    GAME._start_round(state)
    assert sorted(f for f, b in state.b_side.items() if b) == [STRAWBERRY, KIWI, ORANGE]
    GAME._start_round(state)
    assert all(state.b_side.values()) and state.round == 3
    assert [e.detail.tap for e in state.log.events if e.kind == "b-side"] == [
        KIWI,
        ORANGE,
        STRAWBERRY,
        BANANA,
        BLUEBERRY,
    ]


def test_two_players_b_sides_1_2_then_the_last():
    state = new(2, advanced=True, removed=KIWI, b_order=[ORANGE, BANANA, BLUEBERRY, STRAWBERRY])
    assert sum(state.b_side.values()) == 1
    GAME._start_round(state)
    assert sum(state.b_side.values()) == 3
    GAME._start_round(state)
    assert sum(state.b_side.values()) == 4


def advanced(b_side, hands=None, taps=None):
    state = new(3, advanced=True, b_order=[KIWI, ORANGE, STRAWBERRY, BANANA, BLUEBERRY])
    state.b_side = {f: f in b_side for f in FLAVOURS}
    default = {s: ["orange1", "orange2", "orange3", "kiwi1", "kiwi2"] for s in range(3)}
    return position(state, hands={**default, **(hands or {})}, taps=taps, turn=0)


def test_a_side_tap_has_no_power_and_a_power_without_target_is_not_asked():
    state = advanced([BLUEBERRY])
    act(state, "place:kiwi1:orange")
    assert state.pending[0].kind == "turn" and state.turn_seat == 1
    act(state, "place:kiwi1:blueberry")  # blueberry has no face-up card: nothing to pour
    assert state.pending[0].kind == "turn" and state.turn_seat == 2


def test_spill_puts_a_hand_card_out_of_the_round_seen_by_its_owner_only():
    hand = ["strawberry1", "strawberry3", "strawberry3", "kiwi1", "banana3"]
    state = advanced([STRAWBERRY], hands={0: hand})
    act(state, "place:kiwi1:strawberry")
    assert state.pending[0].kind == "power" and state.pending[0].seat == 0
    assert ids(state) == ("skip", "spill:strawberry1", "spill:strawberry3")  # strawberries only
    act(state, "spill:strawberry3")
    assert state.hands[0] == cards("strawberry1", "strawberry3", "banana3") and state.spilled[0] == [C("strawberry3")]
    assert not last(state, "spill").detail.HasField("card")
    assert list(GAME.observe(state, 0).spilled) == [pb.Card(flavour=STRAWBERRY, number=3)]
    assert list(GAME.observe(state, 1).spilled) == [] and GAME.observe(state, 1).table[0].spilled == 1
    assert state.turn_seat == 1


def test_spill_never_takes_a_hand_below_3():
    state = advanced([STRAWBERRY], hands={0: ["strawberry1", "strawberry2", "kiwi1", "kiwi2"]})
    act(state, "place:kiwi1:strawberry")
    assert state.pending[0].kind == "turn" and state.turn_seat == 1


def test_spill_is_asked_with_or_without_a_strawberry_card():
    # Whether a hand holds a strawberry card is hidden: a power decision asked only of a holder
    # would tell the others (the next requests' decision_index counts it). So a hand of more
    # than 3 cards is asked either way, `skip` its one option without a strawberry card, and the
    # others see the same thing.
    rest = ["orange1", "orange2", "kiwi1", "kiwi2"]
    # The two tables differ only in which of seats 0 and 2 holds the kiwi3 and the strawberry3.
    without = advanced([STRAWBERRY], hands={0: [*rest, "kiwi3"], 2: ["banana1", "strawberry3"]})
    act(without, "place:kiwi1:strawberry")
    assert without.pending[0].kind == "power" and ids(without) == ("skip",)
    holding = advanced([STRAWBERRY], hands={0: [*rest, "strawberry3"], 2: ["banana1", "kiwi3"]})
    act(holding, "place:kiwi1:strawberry")
    assert ids(holding) == ("skip", "spill:strawberry3")
    for state in (without, holding):
        act(state, "skip")
        assert state.pending[0].kind == "turn" and state.turn_seat == 1
    assert_same_view(GAME, without, holding, 1)


def test_pour_takes_off_any_other_card_under_the_power_tap():
    taps = {BLUEBERRY: [("blueberry3", 1, True), ("kiwi2", 2, False), ("orange3", 2, True)]}
    state = advanced([BLUEBERRY], taps=taps)
    act(state, "place:kiwi1:blueberry")
    assert ids(state) == ("skip", "pour:blueberry:0", "pour:blueberry:1", "pour:blueberry:2")  # not the new card
    act(state, "pour:blueberry:2")
    assert [s.card for s in state.taps[BLUEBERRY]] == cards("blueberry3", "kiwi2", "kiwi1")
    assert state.poured == [C("orange3")]
    assert tap_value(BLUEBERRY, [s.card for s in state.taps[BLUEBERRY]]) == 0


def test_pouring_a_face_down_card_reveals_it():
    state = advanced([BLUEBERRY], taps={BLUEBERRY: [("kiwi2", 2, False)]})
    act(state, "place:kiwi1:blueberry")
    assert "kiwi" not in state.pending[0].options[1].label  # the label never names a hidden card
    act(state, "pour:blueberry:0")
    assert state.poured == [C("kiwi2")] and [s.card for s in state.taps[BLUEBERRY]] == cards("kiwi1")
    assert last(state, "pour").detail.card == pb.Card(flavour=KIWI, number=2)
    assert list(GAME.observe(state, 1).poured) == [pb.Card(flavour=KIWI, number=2)]


def test_move_brings_a_card_from_another_tap_keeping_its_side():
    taps = {KIWI: [("banana3", 1, True), ("kiwi2", 2, False)], BANANA: [("orange1", 2, True)]}
    state = advanced([BANANA], taps=taps)
    act(state, "place:orange1:banana")
    assert ids(state) == ("skip", "move:kiwi:0", "move:kiwi:1")
    act(state, "move:kiwi:0")
    assert [s.card for s in state.taps[BANANA]] == cards("orange1", "orange1", "banana3")
    assert state.taps[BANANA][2].face_up and state.taps[BANANA][2].seat == 1
    assert [s.card for s in state.taps[KIWI]] == cards("kiwi2")
    assert last(state, "move").detail.from_tap == KIWI
    assert last(state, "move").detail.card == pb.Card(flavour=BANANA, number=3)


def test_a_moved_face_down_card_stays_hidden():
    state = advanced([BANANA], taps={KIWI: [("kiwi2", 2, False)]})
    act(state, "place:orange1:banana")
    assert "kiwi2" not in state.pending[0].options[1].label.replace(" ", "")
    act(state, "move:kiwi:0")
    moved = state.taps[BANANA][1]
    assert moved.card == C("kiwi2") and not moved.face_up and moved.seat == 2
    assert not last(state, "move").detail.HasField("card")
    assert GAME.observe(state, 0).taps[2].slots[1].card.flavour == pb.FLAVOUR_UNSPECIFIED
    assert GAME.observe(state, 2).taps[2].slots[1].card == pb.Card(flavour=KIWI, number=2)


def test_fizz_flips_a_card_under_another_tap_without_counting_as_a_flip():
    state = advanced([KIWI], taps={KIWI: [("kiwi3", 1, False)], BANANA: [("orange1", 2, False), ("banana1", 1, True)]})
    state.flips = 0
    act(state, "place:orange1:kiwi")
    assert ids(state) == ("skip", "fizz:banana:0")
    act(state, "fizz:banana:0")
    assert state.taps[BANANA][0].face_up and not state.taps[KIWI][0].face_up
    assert state.flips == 0 and state.turn_seat == 1
    assert last(state, "fizz").detail.card == pb.Card(flavour=ORANGE, number=1)


def test_last_call_gives_every_player_one_more_turn_the_caller_last():
    state = advanced([ORANGE])
    act(state, "place:kiwi1:orange")
    assert ids(state) == ("skip", "last-call")
    act(state, "last-call")
    assert state.last_call == 3 and GAME.observe(state, 1).last_call_turns == 3
    act(state, "place:kiwi1:orange")
    assert state.pending[0].kind == "turn"  # once per round: no second last call
    act(state, "place:kiwi1:kiwi")
    assert state.round == 1 and state.turn_seat == 0 and state.last_call == 1
    act(state, "place:kiwi2:kiwi")
    assert state.round == 2
    end = next(e for e in state.log.events if e.kind == "round-end")
    assert end.detail.reason == "last-call"
    # orange: -1 -1 = -2; kiwi: +1 +2 = 3; hands: seat 0 o1 o2 o3, seats 1 and 2 o1 o2 o3 k2;
    # the caller (seat 0, -6) does not have the best hand: the bet costs it 5 (ruling 14)
    assert state.round_scores == [[-6 - 5], [-6 + 3], [-6 + 3]]
    score = last(state, "score").detail
    assert score.caller == 0 and score.penalty == 5 and list(score.scores) == [-11, -3, -3]


def test_a_caller_with_the_strictly_best_hand_pays_nothing():
    state = advanced([ORANGE], hands={0: ["kiwi1", "kiwi2", "kiwi3", "orange1", "orange2"]})
    act(state, "place:kiwi1:orange", "last-call")
    assert GAME.observe(state, 2).caller == 0
    act(state, "place:kiwi1:kiwi", "place:kiwi2:kiwi", "place:orange1:orange")
    assert state.round == 2
    # orange: -1 +1 = 0; kiwi: +1 +2 = 3; seat 0 holds k2 k3 o2 = 6, seats 1 and 2 o1 o2 o3 k = 3
    assert state.round_scores == [[6], [3], [3]]
    score = last(state, "score").detail
    assert score.caller == 0 and score.penalty == 0
    assert GAME.observe(state, 0).caller == -1  # a new round: nobody has called


@pytest.mark.parametrize(
    "scores, caller, penalty",
    [([6, 3, 3], 0, 0), ([3, 3, 1], 0, 5), ([1, 3, 2], 0, 5), ([1, 2, 0], 1, 0), ([9, 9, 9], -1, 0)],
)
def test_last_call_bet_needs_the_strictly_highest_round_score(scores, caller, penalty):
    state = advanced([ORANGE])
    state.caller = caller
    assert GAME._call_penalty(state, scores) == penalty


def test_skip_uses_no_power():
    state = advanced([ORANGE])
    act(state, "place:kiwi1:orange", "skip")
    assert state.turn_seat == 1 and state.last_call == 0 and state.round == 1


# -- hidden information ------------------------------------------------------------------------


def test_observations_do_not_depend_on_what_a_seat_cannot_know():
    for players, opts in ((2, {}), (3, {"advanced": True}), (4, {})):
        a = GAME.new_match(GAME.config(players, opts), 11)
        rng = Chance(3)
        for _ in range(9):
            GAME.apply(a, {d.seat: rng.pick(d.options, "t").id for d in a.pending})
        for seat in range(players):
            b = pickle.loads(pickle.dumps(a))
            b.chance = Chance(77)
            world = GAME.sample_world(b, seat, Chance(seat))
            # the world differs (hidden cards re-dealt) yet the seat sees the same
            world.log = a.log
            assert_same_view(GAME, a, world, seat)


def test_no_event_names_a_card_the_seat_may_not_see():
    for seed in range(5):
        state = random_playout(GAME, GAME.config(3, {"advanced": True}), seed, observe=False)
        for seat in range(3):
            for _, event in state.log.since(seat, 0):
                if event.kind == "deal":
                    assert event.to == frozenset({seat})
                if event.kind in ("place", "spill"):
                    assert not event.detail.HasField("card")
            for _, event in state.log.since(seat, 0):
                if event.kind == "move" and event.detail.HasField("card"):
                    assert "face-down" not in event.text


def test_only_the_spectator_sees_hands_and_set_aside_cards():
    state = new(4)
    spectator = GAME.observe(state, SPECTATOR)
    assert len(spectator.hands) == 4 and len(spectator.set_aside_cards) == 5
    seat = GAME.observe(state, 2)
    assert not seat.hands and not seat.set_aside_cards and len(seat.hand) == 10
    assert sum(seat.unknown_by_flavour) == 45 - 10


# -- sample_world ------------------------------------------------------------------------------


def test_sample_world_keeps_the_seat_view_and_plays_on():
    checked = 0
    for config in configurations(GAME):
        for seed in range(3):
            state = GAME.new_match(config, seed)
            rng = Chance(seed + 100)
            step = 0
            while state.pending:
                if step % 17 == 5:
                    before = pickle.dumps(state)
                    for seat in range(config.players):
                        world = GAME.sample_world(state, seat, Chance(step * 7 + seat))
                        assert observation_bytes(GAME, world, seat) == observation_bytes(GAME, state, seat)
                        mine = [d.option_ids for d in state.pending if d.seat == seat]
                        assert [d.option_ids for d in world.pending if d.seat == seat] == mine
                        wr = Chance(seat)
                        while world.pending:
                            GAME.apply(world, {d.seat: wr.pick(d.options, "w").id for d in world.pending})
                        checked += 1
                    assert pickle.dumps(state) == before
                GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
                step += 1
    assert checked > 100


def test_sample_world_deals_hidden_cards_uniformly():
    """3 players at the deal, seat 0's view: where does each of the 32 unknown cards go?"""
    state = new(3, seed=4)
    counts = Counter()
    trials = 600
    strawberry = [c for c in flavour_cards(FLAVOURS) if c.flavour == STRAWBERRY]
    unknown_strawberries = Counter(strawberry) - Counter(state.hands[0])
    total = sum(unknown_strawberries.values())
    for k in range(trials):
        world = GAME.sample_world(state, 0, Chance(k))
        counts["seat1"] += sum(c.flavour == STRAWBERRY for c in world.hands[1])
        counts["seat2"] += sum(c.flavour == STRAWBERRY for c in world.hands[2])
        counts["aside"] += sum(c.flavour == STRAWBERRY for c in world.set_aside)
    observed = [counts["seat1"], counts["seat2"], counts["aside"]]
    expected = [trials * total * n / 32 for n in (13, 13, 6)]
    assert sum(observed) == trials * total
    assert chisquare(observed, expected).pvalue > 0.001


def test_sample_world_two_players_keeps_the_opponent_switcheroo_out_of_the_set_aside():
    state = new(2, seed=3)
    act(state, f"place:{state.hands[state.turn_seat][0].token}:banana")
    seat = 1 - state.turn_seat
    for k in range(50):
        world = GAME.sample_world(state, seat, Chance(k))
        assert SWITCHEROO not in world.set_aside
        opp = 1 - seat
        where = world.hands[opp] + [s.card for t in world.flavours for s in world.taps[t] if s.seat == opp]
        assert where.count(SWITCHEROO) == 1


# -- playouts ----------------------------------------------------------------------------------


def round_cards(state: SodaJerkState) -> Counter:
    return Counter(flavour_cards(state.flavours) + ([SWITCHEROO] * 2 if state.players == 2 else []))


def check_invariants(state: SodaJerkState) -> None:
    here = Counter(c for h in state.hands for c in h)
    here.update(s.card for t in state.flavours for s in state.taps[t])
    here.update(state.set_aside)
    here.update(state.poured)
    here.update(c for p in state.spilled for c in p)
    assert here == round_cards(state), "cards are conserved"
    assert state.totals == [sum(r) for r in state.round_scores]


def bound(players: int, advanced: bool) -> int:
    """Decisions per game at most: per round each placement allows one flip (and one power)."""
    placements = sum(HAND[players] + (players == 2) - 3 for _ in range(players))
    return ROUNDS * placements * (3 if advanced else 2)


def test_random_playouts_conserve_cards_score_consistently_and_end():
    games = 0
    configs = list(configurations(GAME))
    per = 2000 // len(configs) + 1
    for config in configs:
        adv = bool(config.options["advanced"])
        limit = bound(config.players, adv)
        for seed in range(per):
            state = GAME.new_match(config, seed)
            rng = Chance(seed)
            while state.pending:
                assert state.steps <= limit, f"no end after {limit} decisions"
                (decision,) = state.pending
                GAME.apply(state, {decision.seat: decision.options[rng.below(len(decision.options), "t")].id})
                if seed % 25 == 0:
                    check_invariants(state)
            check_invariants(state)
            assert state.steps <= limit and state.round == ROUNDS
            assert all(len(r) == ROUNDS for r in state.round_scores)
            score_events = [e for e in state.log.events if e.kind == "score"]
            assert [list(e.detail.scores) for e in score_events] == [
                [state.round_scores[s][r] for s in range(config.players)] for r in range(ROUNDS)
            ]
            games += 1
    assert games >= 2000


def test_heuristic_plays_and_validates_parameters():
    bot = make_bot("heuristic:flip=2,call=4", "sodajerk")
    assert bot is not None
    with pytest.raises(ConfigError):
        make_bot("heuristic:nope=1", "sodajerk")


# -- world_from_observation --------------------------------------------------------------------


def hidden_cards(state: SodaJerkState, seat: int) -> Counter:
    """The cards ``seat`` cannot see, wherever they are."""
    out = Counter(c for s in range(state.players) if s != seat for c in state.hands[s] + state.spilled[s])
    out.update(sl.card for t in state.flavours for sl in state.taps[t] if not sl.face_up and sl.seat != seat)
    out.update(state.set_aside)
    return out


def test_world_from_observation_deals_the_unseen_cards_into_the_hidden_places():
    # Advanced, 3 players, until someone has spilled: from another seat's observation the world
    # deals exactly the unseen cards, keeps every hidden place's size, spills only strawberries,
    # and keeps the taps already on their B side first in the turning order.
    checked = 0
    for seed in range(40):
        state = GAME.new_match(GAME.config(3, {"advanced": True}), seed)
        rng = Chance(seed)
        while state.pending and not any(state.spilled):
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
        if not state.pending:
            continue
        spiller = next(s for s in range(3) if state.spilled[s])
        for seat in (s for s in range(3) if s != spiller):
            world = GAME.world_from_observation(state.config, seat, GAME.observe(state, seat), Chance(seed))
            assert hidden_cards(world, seat) == hidden_cards(state, seat)
            assert world.hands[seat] == state.hands[seat]
            assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
            assert [len(p) for p in world.spilled] == [len(p) for p in state.spilled]
            assert all(c.flavour == STRAWBERRY for c in world.spilled[spiller])
            assert len(world.set_aside) == len(state.set_aside)
            turned = sum(state.b_side.values())
            assert set(world.b_order[:turned]) == {f for f in state.flavours if state.b_side[f]}
            assert sorted(world.b_order) == sorted(state.flavours)
            checked += 1
    assert checked >= 4


def test_world_from_observation_two_players_keeps_the_opponent_switcheroo_in_its_places():
    state = new(2, seed=3)
    act(state, f"place:{state.hands[state.turn_seat][0].token}:banana")
    seat = 1 - state.turn_seat
    seen = GAME.observe(state, seat)
    for k in range(50):
        world = GAME.world_from_observation(state.config, seat, seen, Chance(k))
        assert SWITCHEROO not in world.set_aside and world.hands[seat] == state.hands[seat]
        opp = 1 - seat
        where = world.hands[opp] + [s.card for t in world.flavours for s in world.taps[t] if s.seat == opp]
        assert where.count(SWITCHEROO) == 1


# -- the bot author's manual -------------------------------------------------------------------


def test_rules_summary_documents_the_option_ids_the_engine_produces():
    # GAME-DONE "Protocol": the option id grammar the manual lists must be exactly what the
    # engine produces. Every option id of Advanced playouts (every power) must fit one of the
    # backticked grammars of rules.md (<tap> a flavour, <card> a card token, <i> a position).
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "arena/games/sodajerk/rules.md").read_text()
    slots = {
        "<tap>": "(?:" + "|".join(NAMES) + ")",
        "<card>": "(?:(?:" + "|".join(NAMES) + ")[1-3]|switch)",
        "<i>": r"\d+",
    }
    grammars = []
    for quoted in re.findall(r"`([a-z-]+(?::[^`\s]+)*)`", text):
        pattern = re.escape(quoted)
        for slot, rx in slots.items():
            pattern = pattern.replace(re.escape(slot), rx)
        grammars.append(re.compile(pattern))
    produced: set[str] = set()
    for players in (2, 3, 4):
        for seed in range(8):
            state = GAME.new_match(GAME.config(players, {"advanced": True}), seed)
            rng = Chance(seed)
            while state.pending:
                produced.update(o.id for d in state.pending for o in d.options)
                GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert any(i.startswith("pour:") for i in produced)
    undocumented = sorted(i for i in produced if not any(g.fullmatch(i) for g in grammars))
    assert undocumented == []
