"""SLAMBO!: every rule of shared/rules/slambo.md and its rulings (NOTES §4.20), pinned."""

from __future__ import annotations

import pickle
import re
from collections import Counter
from math import comb
from pathlib import Path

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.slambo import GAME, Card, SlamboState, deltas, next_seat
from arena.games.slambo.game import ARENA_DECK, BLUE, COPY, PLUS_MINUS, RED, SHAME_CARDS
from arena.registry import games
from bots.games.slambo import BalanceBot, coverage, deals, stuck_chance
from bots.registry import make_bot
from tests.contract import assert_same_view, configurations, observation_bytes, random_playout, worlds_from_observations

ROOT = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------------------------
# Helpers


def card(token: str) -> Card:
    """``"blue4"``, ``"red7"``, ``"pm2"``, ``"copy"``."""
    if token == "copy":
        return Card(COPY, 0)
    for prefix, colour in (("blue", BLUE), ("red", RED), ("pm", PLUS_MINUS)):
        if token.startswith(prefix):
            return Card(colour, int(token[len(prefix) :]))
    raise ValueError(token)


def order(players: int, hands: list[str]) -> list[Card]:
    """A deck order dealing ``hands[s]`` (space-separated tokens) to seat s; the remaining cards
    (the rest of unnamed hands, then the leftovers) follow in canonical order."""
    pool = ARENA_DECK.cards(players)
    named = [card(t) for hand in hands for t in hand.split()]
    for c in named:
        pool.remove(c)
    return named + pool


def match(hands: list[str], start: int = 0, expert: bool = False, later: list[list[str]] | None = None):
    """A match whose first bout (and the ``later`` ones) are dealt exactly; seat ``start`` first."""
    players = len(hands)
    orders = [order(players, hands)] + [order(players, h) for h in later or []]
    chance = PresetChance(orders={"deck": orders}, picks={"start": [start]})
    return GAME.new_match(GAME.config(players, {"expert": expert}), chance=chance)


def play(state: SlamboState, *choices: str) -> None:
    for choice in choices:
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: choice})


def ids(state: SlamboState) -> tuple[str, ...]:
    (decision,) = state.pending
    return decision.option_ids


def events(state: SlamboState, kind: str) -> list:
    return [e.detail for e in state.log.events if e.kind == kind]


def totals(state: SlamboState) -> list[int]:
    return [d.play.total for d in events(state, "play")]


# --------------------------------------------------------------------------------------------
# Components and setup


def test_components():
    # 17 number cards: 9 blue, 8 red (:88); blue +1..+8, red -1..-7 (DATA 15), one duplicate
    # each; the printed examples blue 4, blue 2, red 7, red 5 exist (:77-82).
    blue, red = Counter(ARENA_DECK.blue), Counter(ARENA_DECK.red)
    assert sum(blue.values()) == 9 and sum(red.values()) == 8
    assert set(blue) == set(range(1, 9)) and set(red) == set(range(1, 8))
    assert all(blue[v] >= 1 for v in (2, 4)) and all(red[v] >= 1 for v in (5, 7))
    # 6 special cards (:89): 3 +/- and 3 copy (designed); 9 shame cards (:87).
    assert len(ARENA_DECK.plus_minus) + ARENA_DECK.copies == 6
    assert SHAME_CARDS == 9
    assert len(ARENA_DECK.cards(2)) == 17 and len(ARENA_DECK.cards(3)) == len(ARENA_DECK.cards(4)) == 23


@pytest.mark.parametrize(("players", "hand", "leftover", "specials"), [(2, 6, 5, 0), (3, 5, 8, 6), (4, 5, 3, 6)])
def test_setup_by_player_count(players, hand, leftover, specials):
    # Ruling 1 (setup table rows swapped): 2p 17 cards / 6 each; 3-4p 23 cards / 5 each.
    state = GAME.new_match(GAME.config(players), seed=4)
    assert [len(h) for h in state.hands] == [hand] * players
    assert len(state.leftover) == leftover
    dealt = [c for h in state.hands for c in h] + state.leftover
    assert sum(c.special for c in dealt) == specials  # specials only with 3+ players (:18, :58)
    assert Counter(dealt) == Counter(ARENA_DECK.cards(players))
    assert (state.total, state.middle, state.supply, state.shame) == (5, 1, 8, [0] * players)  # :15-16, :27
    obs = GAME.observe(state, 0)
    assert (obs.low, obs.high, obs.total, obs.leftover, obs.middle_shame, obs.supply) == (0, 10, 5, leftover, 1, 8)


@pytest.mark.parametrize(("players", "ok"), [(1, False), (2, True), (3, True), (4, True), (5, False)])
def test_player_counts(players, ok):
    if ok:
        GAME.config(players)
    else:
        with pytest.raises(ConfigError, match="2-4 players"):
            GAME.config(players)


@pytest.mark.parametrize("start", [0, 1])
def test_the_start_player_is_picked(start):
    # :21 "choose a random player": chance label "start".
    state = match(EXAMPLE_HANDS, start=start)
    assert state.pending[0].seat == start and state.first == start
    assert events(state, "bout")[0].first == start


def test_hands_are_dealt_in_order():
    state = match(["blue8 red1 red2 blue3 blue5 red6", "red7 blue1 blue4 red3 red4 blue6"])
    assert [c.token for c in state.hands[0]] == ["blue3", "blue5", "blue8", "red1", "red2", "red6"]
    assert [c.token for c in state.hands[1]] == ["blue1", "blue4", "blue6", "red3", "red4", "red7"]
    assert sorted(c.token for c in state.leftover) == ["blue1", "blue2", "blue7", "red5", "red7"]


# --------------------------------------------------------------------------------------------
# The worked examples (:77-83) and NOTES test vectors


EXAMPLE_HANDS = ["blue4 blue1 blue2 blue8 blue7 blue6", "red7 red2 red5 red1 red3 red4"]


def test_example_first_two_plays():
    # NOTES vector 1: start 5; P1 plays blue 4 -> 9; P2 plays red 7 -> 2.
    state = match(EXAMPLE_HANDS)
    assert GAME.observe(state, 0).total == 5
    play(state, "blue4")
    assert state.total == 9 and totals(state) == [9]
    play(state, "red7")
    assert state.total == 2 and totals(state) == [9, 2]
    assert [e.text for e in state.log.events if e.kind == "play"] == ["plays blue +4: 9!", "plays red -7: 2!"]


def test_example_slambo():
    # NOTES vector 2: later, balance 1; P1 plays blue 2 -> 3; P2 plays red 5 -> -2: SLAMBO,
    # P2 loses the bout and takes every shame card in the middle (1 in the first bout).
    state = match(EXAMPLE_HANDS)
    play(state, "blue4", "red7", "blue1", "red2")
    assert state.total == 1
    play(state, "blue2")
    assert state.total == 3
    play(state, "red5")
    assert totals(state) == [9, 2, 3, 1, 3, -2]
    (end,) = events(state, "bout-end")
    assert (end.slambo, end.loser, end.total, end.shame_taken, list(end.shame)) == (True, 1, -2, 1, [0, 1])
    assert state.shame == [0, 1]
    # Next bout: the loser goes first (:50), the middle is refilled from the supply (ruling 2).
    assert (state.bout, state.first, state.pending[0].seat, state.total) == (2, 1, 1, 5)
    assert (state.middle, state.supply) == (1, 7)


def test_expert_range_is_1_to_9():
    # Rule vector (:72-75): SLAMBO above 9 or below 1.
    hands = ["blue5 blue1 blue2 blue3 blue6 blue7", "red5 red1 red2 red3 red4 red6"]
    normal, expert = match(hands), match(hands, expert=True)
    assert (GAME.observe(expert, 0).low, GAME.observe(expert, 0).high) == (1, 9)
    play(normal, "blue5")
    play(expert, "blue5")
    assert totals(normal) == totals(expert) == [10]
    assert normal.shame == [0, 0] and expert.shame == [1, 0]  # 10 is safe only in the 0-10 game
    a, b = match(hands, start=1), match(hands, start=1, expert=True)
    play(a, "red5")
    play(b, "red5")
    assert totals(a) == totals(b) == [0]
    assert a.shame == [0, 0] and b.shame == [0, 1]  # 0 is safe only in the 0-10 game
    c, d = match(hands), match(hands, expert=True)
    play(c, "blue3", "red6")  # 8, then 2
    play(d, "blue3", "red6")
    assert c.total == d.total == 2 and c.shame == d.shame == [0, 0]


def test_eleven_and_minus_one_are_slambo():
    # :35-36: above 10 or below 0.
    state = match(["blue6 blue1 blue2 blue3 blue4 blue5", "red1 red2 red3 red4 red5 red6"])
    play(state, "blue6")
    assert state.shame == [1, 0] and events(state, "bout-end")[0].total == 11
    state = match(["blue1 blue2 blue3 blue4 blue5 blue6", "red6 red1 red2 red3 red4 red5"], start=1)
    play(state, "red6")
    assert state.shame == [0, 1] and events(state, "bout-end")[0].total == -1


# --------------------------------------------------------------------------------------------
# Break, refill, next first player, end


def safe_hands_2p() -> list[str]:
    return ["blue1 blue2 blue3 red1 red2 red3", "blue1 red4 blue4 red5 blue5 red6"]


# Twelve plays that never leave 0-10: every hand empties, a Break.
SAFE_SCRIPT = ["blue1", "blue1", "blue2", "red4", "blue3", "red5", "red1", "blue4", "red2", "blue5", "red3", "red6"]


def test_break_adds_a_shame_card_and_the_second_player_goes_first():
    # :40-45, :51, rulings 4-5: every hand empty, no SLAMBO -> one more shame card in the middle.
    state = match(safe_hands_2p(), later=[safe_hands_2p()])
    play(state, *SAFE_SCRIPT)
    assert totals(state) == [6, 7, 9, 5, 8, 3, 2, 6, 4, 9, 6, 0]
    (end,) = events(state, "bout-end")
    assert (end.slambo, end.loser, end.middle_shame, end.supply, end.supply_empty) == (False, -1, 2, 7, False)
    assert state.shame == [0, 0] and (state.middle, state.supply) == (2, 7)  # no one takes shame (:43)
    assert (state.bout, state.first) == (2, 1)  # the player who went second (:51)
    assert state.pending[0].seat == 1


def test_the_same_plays_in_expert_end_in_slambo():
    state = match(safe_hands_2p(), expert=True)
    play(state, *SAFE_SCRIPT)  # the last play reaches 0: below 1 in the Expert Match
    assert state.shame == [0, 1] and events(state, "bout-end")[0].slambo


def test_the_loser_of_a_bout_worth_two_takes_both():
    state = match(safe_hands_2p(), later=[["blue8 blue1 blue2 blue3 blue4 blue5", "red1 red2 red3 red4 red5 red6"]])
    play(state, *SAFE_SCRIPT)
    assert state.first == 1 and state.middle == 2
    play(state, "red6")  # 5 - 6 = -1: SLAMBO for seat 1
    assert state.shame == [0, 2] and (state.middle, state.supply) == (1, 6)  # refilled (ruling 2)


def two_player_end(shame: list[int]):
    state = match(EXAMPLE_HANDS)
    state.shame = list(shame)
    state.supply = SHAME_CARDS - 1 - sum(shame)
    GAME.refresh(state)
    return state


def test_third_shame_card_loses_two_players():
    # :53-55: 3 or more shame cards at the end of a bout lose; the other player wins.
    state = two_player_end([0, 2])
    play(state, "blue4", "red7", "blue1", "red2", "blue2", "red5")
    assert state.over and not state.pending
    result = GAME.result(state)
    assert result.ranks == (1, 2) and result.scores == (0, -3)
    assert events(state, "end")[0].loser == 1 and list(events(state, "end")[0].winners) == [0]


def test_shame_accumulates_over_bouts_without_losing():
    state = two_player_end([0, 1])
    play(state, "blue4", "red7", "blue1", "red2", "blue2", "red5")
    assert state.shame == [0, 2] and not state.over


def test_three_or_four_players_one_loser_all_others_win():
    # :57-61, ruling 10.
    hands = [
        "blue8 blue1 blue2 blue3 blue4",
        "red1 red2 red3 red4 red5",
        "blue5 blue6 red6 red7 blue7",
        "pm1 pm2 pm3 copy copy",
    ]
    state = match(hands)
    state.shame = [0, 0, 2, 1]
    state.supply = SHAME_CARDS - 1 - 3
    GAME.refresh(state)
    play(state, "blue8")  # 13: seat 0 takes 1 shame -> 1; not over
    assert state.shame == [1, 0, 2, 1] and not state.over
    state = match(hands, start=2)
    state.shame = [0, 0, 2, 1]
    state.supply = SHAME_CARDS - 1 - 3
    GAME.refresh(state)
    play(state, "blue7")  # 12: seat 2 reaches 3
    result = GAME.result(state)
    assert result.ranks == (1, 1, 4, 1) and result.winners == (0, 1, 3)
    assert result.scores == (0, 0, -3, -1)


def test_three_or_four_players_end_event_names_every_other_player_a_winner():
    """:57-61 "That player loses. All other players win" (ruling 10): the public ``end`` event
    and the result summary name every other player."""
    hands = ["blue8 blue1 blue2 blue3 blue4", "red1 red2 red3 red4 red5", "blue5 blue6 red6 red7 blue7"]
    state = match(hands, start=2)
    state.shame = [1, 0, 2]
    state.supply = SHAME_CARDS - 1 - 3
    GAME.refresh(state)
    play(state, "blue7")  # 12: SLAMBO, seat 2 reaches 3 shame cards
    (end,) = events(state, "end")
    assert end.loser == 2 and list(end.winners) == [0, 1] and list(end.shame) == [1, 0, 3]
    assert GAME.result(state).summary == "seat 2 has 3 shame cards; winners: seat 0, 1"


def test_empty_supply_on_a_break_ends_the_match():
    # Ruling 9: no shame card to add -> the match ends, fewest shame wins, ties share.
    state = match(safe_hands_2p())
    state.shame, state.middle, state.supply = [2, 1], 6, 0
    GAME.refresh(state)
    play(state, *SAFE_SCRIPT)
    assert state.over and events(state, "bout-end")[0].supply_empty
    assert GAME.result(state).ranks == (2, 1) and events(state, "end")[0].loser == -1
    state = match(safe_hands_2p())
    state.shame, state.middle, state.supply = [2, 2], 5, 0
    GAME.refresh(state)
    play(state, *SAFE_SCRIPT)
    assert GAME.result(state).ranks == (1, 1)


# --------------------------------------------------------------------------------------------
# Options and special cards


def test_options_one_per_distinct_card_and_losing_cards_are_offered():
    # Ruling 11 (identical cards), ruling 7 (no pass: breaking cards are still options).
    state = match(["blue1 blue1 blue8 red7 red7 blue7", "red1 red2 red3 red4 red5 red6"])
    assert ids(state) == ("blue1", "blue7", "blue8", "red7")
    play(state, "blue8")
    assert state.shame == [1, 0]


def test_only_losing_cards_must_still_be_played():
    state = match(["blue8 blue7 blue6 blue5 blue4 blue3", "red1 red2 red3 red4 red5 red6"])
    play(state, "blue3", "red1")  # 8, 7
    assert ids(state) == ("blue4", "blue5", "blue6", "blue7", "blue8")  # every one goes above 10
    play(state, "blue4")
    assert state.shame == [1, 0]


FOUR = [
    "pm2 copy blue1 red1 blue2",
    "red2 copy blue3 red3 blue4",
    "pm1 copy red4 blue5 red5",
    "pm3 blue6 red6 blue7 red7",
]


def test_plus_minus_card_offers_both_signs():
    state = match(FOUR)
    assert ids(state) == ("blue1", "blue2", "red1", "pm2+", "pm2-", "copy")
    play(state, "pm2-")
    assert state.total == 3 and events(state, "play")[0].play.delta == -2


def test_special_reverses_the_turn_order():
    # :64: after adjusting the total, reverse the turn order.
    state = match(FOUR)
    play(state, "pm2+")  # seat 0 -> 7, reversed: seat 3 is next
    assert state.total == 7 and state.direction == -1 and state.pending[0].seat == 3
    assert events(state, "play")[0].reversed and events(state, "play")[0].next == 3
    play(state, "red6")  # number card: order stays reversed
    assert state.pending[0].seat == 2
    play(state, "copy")  # seat 2 copies -6: 1 - 6 = -5, SLAMBO
    assert totals(state)[-1] == -5 and state.shame == [0, 0, 1, 0]


def test_every_bout_starts_clockwise_after_a_reversed_one():
    """Ruling 3: "the total returns to 5 and the turn order to clockwise": a bout lost while the
    order was reversed (:64) is followed by one played in increasing seat order."""
    state = match(
        ["pm3 blue1 blue2 blue3 blue4", "red1 red2 red3 red4 red5", "blue8 blue5 blue6 red6 red7"],
        later=[["red2 red3 red4 red5 red6", "blue2 blue3 blue4 blue5 blue6", "blue1 red1 red7 blue7 blue8"]],
    )
    play(state, "pm3+")  # 8, reversed: seat 2 next
    assert state.direction == -1 and state.pending[0].seat == 2
    play(state, "blue8")  # 16: SLAMBO, seat 2 loses the bout and goes first in bout 2
    assert state.bout == 2 and state.first == 2 and state.total == 5 and state.direction == 1
    for seat, choice in ((2, "blue1"), (0, "red2"), (1, "blue2"), (2, "red1")):  # clockwise from seat 2
        assert state.pending[0].seat == seat
        play(state, choice)
    assert totals(state)[-4:] == [6, 4, 6, 5]
    assert [d.next for d in events(state, "play")[-4:]] == [0, 1, 2, 0]


def test_copy_repeats_the_last_amount_and_copies_of_copies():
    # :68 and ruling 8.
    state = match(FOUR)
    play(state, "blue1")  # 6
    play(state, "copy")  # seat 1 copies +1 -> 7, reverse: seat 0 next
    assert state.total == 7 and state.pending[0].seat == 0 and state.copy_value == 1
    play(state, "copy")  # seat 0 copies the copy: +1 -> 8, reverse: seat 1 next
    assert state.total == 8 and state.pending[0].seat == 1
    play(state, "red3")  # 5, seat 2 next
    assert state.total == 5 and state.pending[0].seat == 2
    assert GAME.observe(state, 2).copy_value == -3


def test_copy_of_a_plus_minus_card_takes_its_chosen_sign():
    state = match(FOUR)
    play(state, "pm2-")  # 3, reversed: seat 3
    play(state, "pm3+")  # 6, reversed again: seat 0
    assert state.pending[0].seat == 0
    play(state, "copy")  # +3 -> 9, reversed: seat 3
    assert state.total == 9 and [p.delta for p in state.plays] == [-2, 3, 3]


def test_copy_on_the_start_card_adds_nothing():
    state = match(FOUR)
    play(state, "copy")
    assert state.total == 5 and state.plays[0].delta == 0 and state.direction == -1
    assert state.pending[0].seat == 3


def test_a_copy_after_a_big_move_breaks_the_range():
    state = match(FOUR)
    play(state, "blue2")  # 7
    play(state, "copy")  # seat 1: +2 -> 9, reversed: seat 0
    play(state, "copy")  # seat 0: +2 -> 11, SLAMBO
    assert state.shame == [1, 0, 0, 0]
    assert [d.play.total for d in events(state, "play")] == [7, 9, 11]


def test_players_without_cards_are_skipped():
    # :65: a player with no cards is skipped; next_seat finds the next holder.
    assert next_seat([2, 0, 1, 3], 0, 1) == 2
    assert next_seat([2, 0, 1, 3], 0, -1) == 3
    assert next_seat([0, 0, 0, 0], 1, 1) == -1
    assert next_seat([1, 0, 0], 2, 1) == 0
    state = match(FOUR)
    state.hands[1] = []
    GAME.refresh(state)
    play(state, "blue1")
    assert state.pending[0].seat == 2


def test_after_a_break_with_a_special_first_the_counter_clockwise_player_goes_first():
    # Ruling 5 in 3-4 players: "the player who went second" is whoever made the second play.
    state = match(["pm1 blue1 red1 blue2 red2", "pm2 blue3 red3 blue4 red4", "pm3 blue5 red5 blue6 red6"])
    # Short hands make the Break quick (the deal above is only the starting point).
    state.hands = [[card("pm1"), card("blue1")], [card("red1")], [card("red2")]]
    GAME.refresh(state)
    play(state, "pm1+")  # 6, reversed: seat 2 next
    play(state, "red2")  # 4, seat 1 next
    play(state, "red1")  # 3, seat 0 next
    play(state, "blue1")  # 4: every hand empty -> Break
    assert events(state, "bout-end")[0].slambo is False
    assert state.first == 2  # seat 2 went second


def test_deltas_helper():
    assert deltas(card("blue4"), 9) == (4,)
    assert deltas(card("red7"), 9) == (-7,)
    assert deltas(card("pm2"), 9) == (2, -2)
    assert deltas(card("copy"), -3) == (-3,)


def test_illegal_option_changes_nothing():
    state = match(EXAMPLE_HANDS)
    before = pickle.dumps(state)
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {0: "red7"})
    assert pickle.dumps(state) == before


# --------------------------------------------------------------------------------------------
# Information


def test_hidden_hands_and_leftovers_never_leak():
    # Two deals that agree on seat 0's hand but differ in the other hand and the leftovers.
    a = match(["blue4 blue1 blue2 blue8 blue7 blue6", "red7 red2 red5 red1 red3 red4"])
    b = match(["blue4 blue1 blue2 blue8 blue7 blue6", "red7 red2 red5 blue1 blue3 red6"])
    assert a.hands[1] != b.hands[1] and a.leftover != b.leftover
    for step in ["blue4", "red7", "blue1", "red2", "blue2"]:
        assert_same_view(GAME, a, b, 0)
        play(a, step)
        play(b, step)
    assert_same_view(GAME, a, b, 0)
    assert GAME.observe(a, SPECTATOR) != GAME.observe(b, SPECTATOR)
    play(a, "red5")  # SLAMBO; the next bout is dealt from the same (fallback) chance
    play(b, "red5")
    assert_same_view(GAME, a, b, 0)


def test_events_a_seat_receives_name_only_its_own_cards_and_played_cards():
    state = GAME.new_match(GAME.config(3), seed=9)
    rng = Chance(3)
    for _ in range(8):
        play(state, rng.pick(state.pending[0].option_ids, "t"))
    for seat in range(3):
        for event in state.log.events:
            if not event.visible_to(seat):
                continue
            if event.kind == "deal":
                assert event.to == frozenset({seat})
            else:
                assert event.to is None and event.kind in ("bout", "play", "bout-end", "end")


def test_only_the_spectator_sees_other_hands_and_leftovers():
    state = GAME.new_match(GAME.config(4), seed=2)
    seat = GAME.observe(state, 1)
    assert not seat.hands and not seat.leftover_cards
    assert [Card(c.colour, c.value) for c in seat.hand] == state.hands[1]
    spectator = GAME.observe(state, SPECTATOR)
    assert len(spectator.hands) == 4 and len(spectator.leftover_cards) == 3


def test_unseen_counts_are_other_hands_plus_leftovers():
    state = match(EXAMPLE_HANDS)
    play(state, "blue4", "red7")
    obs = GAME.observe(state, 0)
    unseen = Counter({Card(u.card.colour, u.card.value): u.count for u in obs.unseen})
    expected = Counter(ARENA_DECK.cards(2)) - Counter(state.hands[0]) - Counter([card("blue4"), card("red7")])
    assert unseen == expected and sum(unseen.values()) == 4 + 5 + 1  # seat 1's 5 cards + 5 leftovers


# --------------------------------------------------------------------------------------------
# sample_world (determinization)


def test_sample_world_is_consistent_with_what_the_seat_knows():
    rng = Chance(77)
    for config in configurations(GAME):
        for seed in range(4):
            state = GAME.new_match(config, seed)
            while state.pending:
                if rng.below(4, "when") == 0:
                    snapshot = pickle.dumps(state)
                    for seat in range(state.players):
                        world = GAME.sample_world(state, seat, Chance(seed * 31 + seat))
                        assert observation_bytes(GAME, world, seat) == observation_bytes(GAME, state, seat)
                        mine = [d.option_ids for d in state.pending if d.seat == seat]
                        assert [d.option_ids for d in world.pending if d.seat == seat] == mine
                        assert Counter(c for h in world.hands for c in h) + Counter(world.leftover) == Counter(
                            c for h in state.hands for c in h
                        ) + Counter(state.leftover)
                        while world.pending:
                            play(world, rng.pick(world.pending[0].option_ids, "w"))
                        assert GAME.result(world) is not None
                    assert pickle.dumps(state) == snapshot
                play(state, rng.pick(state.pending[0].option_ids, "p"))


def test_sample_world_deals_unseen_cards_uniformly():
    # Seat 0 of EXAMPLE_HANDS sees 11 unseen cards (blue 1, 3, 5, red 1-7 with two red 7s):
    # 6 go to seat 1, 5 lie face down. The number of red 7s in seat 1's hand is
    # hypergeometric (N=11, K=2, n=6) and blue 3 is in it with chance 6/11.
    state = match(EXAMPLE_HANDS)
    chance = Chance(2024)
    runs = 3000
    red7, blue3 = [0, 0, 0], [0, 0]
    for _ in range(runs):
        world = GAME.sample_world(state, 0, chance)
        assert world.hands[0] == state.hands[0] and len(world.hands[1]) == 6 and len(world.leftover) == 5
        red7[world.hands[1].count(card("red7"))] += 1
        blue3[card("blue3") in world.hands[1]] += 1
    total = comb(11, 6)
    p_red7 = [comb(2, k) * comb(9, 6 - k) / total for k in range(3)]
    assert chisquare(red7, [runs * p for p in p_red7]).pvalue > 0.001
    assert chisquare(blue3, [runs * 5 / 11, runs * 6 / 11]).pvalue > 0.001


def test_sample_world_uses_a_fresh_chance_and_a_filtered_log():
    state = match(EXAMPLE_HANDS)
    world = GAME.sample_world(state, 0, Chance(5))
    assert world.chance is not state.chance
    assert all(e.visible_to(0) for e in world.log.events)
    assert not any(e.kind == "deal" and e.to == frozenset({1}) for e in world.log.events)


# --------------------------------------------------------------------------------------------
# Playout invariants


def check_invariants(state: SlamboState) -> None:
    players = state.players
    pile = [p.card for p in state.plays]
    held = [c for h in state.hands for c in h]
    assert Counter(held) + Counter(pile) + Counter(state.leftover) == Counter(ARENA_DECK.cards(players))
    assert sum(state.shame) + state.middle + state.supply == SHAME_CARDS
    assert state.bout <= 9  # ruling 9: every bout after the first takes a supply card
    assert len(state.plays) <= players * state.hand_size
    assert all(state.low <= p.total <= state.high for p in state.plays[:-1])
    if state.plays:
        assert state.total == state.plays[-1].total == 5 + sum(p.delta for p in state.plays)
    if not state.over:
        assert max(state.shame) < 3 and state.middle >= 1
        assert state.low <= state.total <= state.high
        assert state.hands[state.turn]
    else:
        result = GAME.result(state)
        assert result is not None and result.scores == tuple(-s for s in state.shame)
        if state.loser >= 0:
            assert state.shame[state.loser] >= 3 and sorted(result.ranks) == [1] * (players - 1) + [players]
        else:
            assert state.supply == 0


@pytest.mark.parametrize("config", list(configurations(GAME)), ids=str)
def test_random_playouts_conserve_components_and_end(config):
    # 6 configurations x 340 seeds = 2,040 games; the bound: 9 bouts x (players x hand) plays.
    bound = 9 * config.players * ARENA_DECK.hand_size(config.players)
    for seed in range(340):
        state = random_playout(GAME, config, seed, invariant=check_invariants, observe=seed < 3)
        assert state.steps <= bound


# --------------------------------------------------------------------------------------------
# Protocol, rules summary, bots


def _kinds(line_start: str) -> set[str]:
    text = (ROOT / "proto/arena/games/v1/slambo.proto").read_text()
    match_ = re.search(rf"// {line_start} kinds:(.*?)\.\n", text, re.S)
    assert match_
    return set(re.findall(r'"([a-z_-]+)"', match_.group(1)))


def test_proto_kind_lists_match_what_the_engine_produces():
    decisions, produced = set(), set()
    for config in configurations(GAME):
        for seed in range(40):
            state = GAME.new_match(config, seed)
            rng = Chance(seed)
            while state.pending:
                decisions.update(d.kind for d in state.pending)
                play(state, rng.pick(state.pending[0].option_ids, "k"))
            produced.update(e.kind for e in state.log.events)
    assert decisions == _kinds("Decision") == {"play"}
    assert produced == _kinds("Event")


def test_rules_summary_names_every_kind_and_option():
    text = (ROOT / "arena/games/slambo/rules.md").read_text()
    for name in [*_kinds("Decision"), *_kinds("Event"), *(o.key for o in GAME.meta.options)]:
        assert f"`{name}`" in text


def test_registered():
    assert games()["slambo"] is GAME and GAME.meta.version == "1.1"


def test_heuristic_never_breaks_the_range_when_a_safe_card_exists():
    state = match(["blue8 blue7 blue1 red7 red6 red5", "red1 red2 red3 red4 blue2 blue3"])
    bot = BalanceBot()
    obs = GAME.observe(state, 0)
    choice = bot.pick(obs, [(o.id, o.action) for o in state.pending[0].options])
    assert choice not in ("blue7", "blue8", "red6", "red7")


def test_heuristic_plays_the_card_that_cannot_lose_on_the_opponents_last_card():
    """The outside probe's position (2 players, seed 2632, bout 5): total 2, the hand blue +2
    and red -2, the opponent on its last card, unseen blue 4, 7, 8 and red 3, 4, 7. Blue 2
    first loses to red 3 or red 4 (1 or 0, then red -2 breaks); red 2 first cannot lose (any
    red breaks for the opponent, blue 2 after any blue stays at 10 or below)."""
    state = match(["blue1 blue1 blue3 blue5 blue6 red4", "red1 red5 red6 red7 blue2 red2"])
    play(state, "blue5", "red6", "blue6", "red7", "blue3", "red5", "blue1", "red1", "blue1")
    obs = GAME.observe(state, 1)
    assert (obs.turn, obs.total, [s.hand_size for s in obs.seats]) == (1, 2, [1, 2])
    unseen = " ".join(Card(u.card.colour, u.card.value).token for u in obs.unseen)
    assert unseen == "blue4 blue7 blue8 red3 red4 red7"
    options = [(o.id, o.action) for o in state.pending[0].options]
    assert [oid for oid, _ in options] == ["blue2", "red2"]
    assert BalanceBot().pick(obs, options) == "red2"
    # Without the look-ahead, the value alone prefers blue 2.
    assert BalanceBot(endgame=0).pick(obs, options) == "blue2"


def test_heuristic_look_ahead_deals_each_distinct_deal_once():
    """Seat 1 holds red 2; the opponent's 2 cards come from blue 1, blue 1, red 3 (the third lies
    face down): blue 1 + blue 1 or blue 1 + red 3, the two blue 1s alike (ruling 11)."""
    pool = [card("blue1"), card("blue1"), card("red3")]
    assert deals(pool, [2, 1], 1, [card("red2")]) == [
        ((card("blue1"), card("blue1")), (card("red2"),)),
        ((card("blue1"), card("red3")), (card("red2"),)),
    ]


def test_heuristic_helpers():
    pool = [card("blue8"), card("blue7"), card("red1")]
    # From 9, a 1-card hand is stuck unless it is red 1: 2 of 3.
    assert stuck_chance(pool, 1, 9, 0, 0, 10) == pytest.approx(2 / 3)
    assert stuck_chance(pool, 2, 9, 0, 0, 10) == pytest.approx(1 / 3)
    assert coverage([card("pm1")], 0, 10) == 1.0
    assert coverage([card("blue8")], 0, 10) == pytest.approx(3 / 11)


def test_heuristic_parameters_are_validated():
    make_bot("heuristic:flex=2", "slambo")
    with pytest.raises(ConfigError, match="flex"):
        make_bot("heuristic:flex=9", "slambo")


def test_observation_after_a_special_card():
    state = match(FOUR)
    play(state, "pm2+")  # 7, reversed: seat 3 next
    obs = GAME.observe(state, 3)
    assert (obs.total, obs.turn, obs.direction, obs.first, obs.copy_value, obs.bout) == (7, 3, -1, 0, 2, 1)
    assert [(p.seat, p.delta, p.total) for p in obs.plays] == [(0, 2, 7)]
    assert [s.hand_size for s in obs.seats] == [4, 5, 5, 5] and len(obs.deck) == 23
    assert [Card(c.colour, c.value).token for c in obs.hand] == ["blue6", "blue7", "red6", "red7", "pm3"]
    assert sum(u.count for u in obs.unseen) == 4 + 5 + 5 + 3  # three other hands + 3 face down
    assert len(GAME.observe(match(EXAMPLE_HANDS), 0).deck) == 17


# --------------------------------------------------------------------------------------------
# Worlds from an observation (a served searching bot)


@pytest.mark.parametrize(("players", "options"), [(2, {}), (4, {"expert": True})])
def test_world_from_observation_deals_the_unseen_cards_by_size(players, options):
    """Along a random playout, a world built from the mover's observation keeps its hand and
    the public bout, and deals exactly the unseen cards to the other hands and leftovers."""
    public = ("cards", "hand_size", "low", "high", "bout", "plays", "total", "turn", "direction", "first")
    public += ("shame", "middle", "supply", "over")
    rng = Chance(players)
    for state, seat, world in worlds_from_observations(GAME, GAME.config(players, options), 5, rng):
        assert {k: getattr(world, k) for k in public} == {k: getattr(state, k) for k in public}
        assert world.hands[seat] == state.hands[seat]
        assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
        assert len(world.leftover) == len(state.leftover)
        hidden = [c for s, h in enumerate(world.hands) if s != seat for c in h] + world.leftover
        assert Counter(hidden) == Counter(GAME.unseen(state, seat))
    world = GAME.world_from_observation(state.config, 0, GAME.observe(state, 0), rng)
    assert world.over and world.loser == state.loser and world.pending == ()
