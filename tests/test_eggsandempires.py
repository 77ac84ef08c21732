"""Eggs and Empires: every rule of shared/rules/eggsandempires.md and its rulings (NOTES.md §4.2), pinned."""

from __future__ import annotations

from collections import Counter

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.eggsandempires import GAME, EggCard, EggsState, collection_order, round_vp
from arena.games.eggsandempires.game import TOKENS_TO_WIN, egg_deck, turn_end_tasks
from arena.games.v1 import eggsandempires_pb2 as pb
from arena.scenario import request_for
from bots.registry import make_bot


def egg(value: int, players: int = 4) -> EggCard:
    """The first Egg card of this value in the deck for this player count."""
    return next(e for e in egg_deck(players) if e.value == value)


def position(
    players: int, hands: list[list[int]], face_up: list[int], *, turn: int = 1, marker: int = 0, scoring: str = "total"
) -> EggsState:
    """A match at the play step of ``turn`` with these hands and face-up Eggs."""
    state = GAME.new_match(GAME.config(players, {"scoring": scoring}), seed=1)
    GAME.apply(state, {s: "keep" for s in range(players)})
    eggs = [egg(v, players) for v in face_up]
    state.deck = [e for e in state.deck + state.face_up if e not in eggs]
    state.face_up = eggs
    state.hands = [sorted(h) for h in hands]
    full = [r for r in range(1, 11) for _ in range(2 if players == 2 else 1)]
    for s, hand in enumerate(state.hands):
        rest = Counter(full)
        rest.subtract(hand)
        state.draws[s] = sorted(rest.elements())
    state.turn, state.marker = turn, marker
    GAME.refresh(state)
    return state


def play(state: EggsState, cards: dict[int, str]) -> None:
    GAME.apply(state, cards)


def only(state: EggsState) -> tuple[int, tuple[str, ...]]:
    (decision,) = state.pending
    return decision.seat, decision.option_ids


def holding(state: EggsState, seat: int, *values: int) -> None:
    """Seat ``seat`` has already collected these Eggs this round (taken from the deck)."""
    for value in values:
        card = egg(value, state.players)
        state.deck.remove(card)
        state.collections[seat].append(card)


# -- setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "eggs", "reveal"), [(2, 22, 2), (3, 22, 2), (4, 22, 2), (5, 32, 3), (6, 42, 4)])
def test_egg_deck_and_reveals_by_player_count(players, eggs, reveal):  # :34-42, :72-80 (rule vector 4)
    assert len(egg_deck(players)) == eggs
    state = GAME.new_match(GAME.config(players), seed=3)
    GAME.apply(state, dict.fromkeys(range(players), "keep"))  # the Eggs are revealed after the redraws
    assert len(state.face_up) == reveal and len(state.deck) == eggs - reveal
    hand = 4 if players == 2 else 3
    assert all(len(h) == hand for h in state.hands)
    assert all(len(h) + len(d) == (20 if players == 2 else 10) for h, d in zip(state.hands, state.draws, strict=True))


@pytest.mark.parametrize(("players", "reveal"), [(2, 2), (3, 2), (4, 2), (5, 3), (6, 4)])
def test_every_turn_reveals_the_new_eggs_by_player_count(players, reveal):  # :168-176 (rule vector 4)
    state = GAME.new_match(GAME.config(players), seed=11)
    rng = Chance(11)
    GAME.apply(state, dict.fromkeys(range(players), "keep"))
    for turn in range(2, 10):
        deck = len(state.deck)
        while state.turn < turn:
            GAME.apply(state, {d.seat: rng.pick(d.options, "x").id for d in state.pending})
        scouts = len(state.face_down)  # Scout Eggs come from the deck after the reveal (:216-224)
        assert len(state.face_up) == reveal and len(state.deck) == deck - reveal - scouts


def test_the_starting_hand_is_kept_or_redrawn_before_the_eggs_are_revealed():  # :54-70, :356-364
    """Player setup (draw 3, may redraw, :54-62) comes before the play area's reveal (:66-70), and
    a new round lists draw (:358), redraw (:359), then reveal (:364): no Egg is shown while the
    seats decide whether to redraw."""
    state = GAME.new_match(GAME.config(3), seed=3)
    assert state.phase == pb.MULLIGAN_PHASE
    assert state.face_up == [] and len(state.deck) == 22
    assert list(GAME.observe(state, 0).available) == [] and GAME.observe(state, 0).egg_deck == 22
    assert "eggs" not in [e.kind for e in state.log.events]
    GAME.apply(state, {0: "keep", 1: "redraw", 2: "keep"})
    kinds = [e.kind for e in state.log.events]
    assert kinds.index("eggs") > max(i for i, k in enumerate(kinds) if k == "mulligan")
    assert state.phase == pb.PLAY_PHASE and len(state.face_up) == 2 and len(state.deck) == 20
    # The same at the start of round 2.
    rng = Chance(3)
    while state.round == 1:
        GAME.apply(state, {d.seat: rng.pick(d.options, "x").id for d in state.pending})
    assert state.round == 2 and state.phase == pb.MULLIGAN_PHASE
    assert state.face_up == [] and state.face_down == [] and len(state.deck) == 22
    GAME.apply(state, {0: "keep", 1: "keep", 2: "keep"})
    assert len(state.face_up) == 2 and len(state.deck) == 20


def test_the_printed_eggs_exist():  # :437-438
    values = [e.value for e in egg_deck(2)]
    assert 13 in values and -6 in values


def test_a_redraw_sets_the_hand_aside_draws_three_and_shuffles_it_back():  # NOTES 3
    state = GAME.new_match(GAME.config(3), seed=5)
    before = list(state.hands[0])
    next_three = sorted(state.draws[0][:3])
    GAME.apply(state, {0: "redraw", 1: "keep", 2: "keep"})
    assert state.hands[0] == next_three and state.mulliganed == [True, False, False]
    assert sorted(state.hands[0] + state.draws[0]) == list(range(1, 11))
    assert Counter(state.draws[0]) >= Counter(before)
    assert state.phase == pb.PLAY_PHASE


def test_a_redraw_shuffles_the_set_aside_hand_together_with_the_remaining_cards():  # :58-62, NOTES 3
    """:62 "Shuffle the discarded cards together with your remaining Empire Cards." """
    state = GAME.new_match(GAME.config(3), seed=5)
    assert state.hands[0] == [3, 9, 10] and state.draws[0] == [8, 2, 4, 7, 1, 6, 5]
    GAME.apply(state, {0: "redraw", 1: "keep", 2: "keep"})
    assert state.hands[0] == [2, 4, 8] and state.draws[0] == [10, 3, 7, 6, 9, 1, 5]  # 3, 9, 10 mixed in
    # The same with the shuffle preset: it gets exactly the 7 cards and makes the new draw pile.
    order = [7, 1, 8, 2, 9, 3, 10]  # the "mulligan" shuffle of the 7 cards: the 4 left and the 3 set aside
    chance = PresetChance(orders={"adventurers": [list(range(1, 11))] * 3, "mulligan": [order]})
    state = GAME.new_match(GAME.config(3), chance=chance)
    assert state.hands[0] == [1, 2, 3] and state.draws[0] == [4, 5, 6, 7, 8, 9, 10]
    GAME.apply(state, {0: "redraw", 1: "keep", 2: "keep"})
    assert state.hands[0] == [4, 5, 6] and state.draws[0] == order
    assert state.hands[1:] == [[1, 2, 3], [1, 2, 3]] and chance.unused() == {}


# -- the printed 2-player example and its legality ------------------------------------------


def test_two_player_example():  # :433-467
    state = position(2, [[10, 8, 1, 2], [8, 3, 1, 2]], [13, -6])
    play(state, {0: "cards:10+8", 1: "cards:8+3"})
    assert [(e.seat, e.rank) for e in state.order] == [(0, 10), (1, 3), (0, 8), (1, 8)]
    assert only(state) == (0, ("egg:13", "egg:-6"))
    GAME.apply(state, {0: "egg:13"})  # the Shepherd then must take the -6
    assert state.collections == [[egg(13, 2)], [egg(-6, 2)]]
    assert state.blacksmiths == [1, 1]
    assert [round_vp(state.collections[s], state.merchants[s], state.blacksmiths[s]) for s in (0, 1)] == [9, -10]
    assert [len(h) for h in state.hands] == [4, 4]  # drew back up to 4
    assert state.marker == 1  # the two Blacksmiths tied


def test_two_player_may_not_play_two_copies_of_one_adventurer():  # :422-427
    state = position(2, [[10, 10, 8, 8], [1, 2, 3, 4]], [13, -6])
    ids = state.pending[0].option_ids
    assert "cards:10+10" not in ids and "cards:8+8" not in ids and ids == ("cards:10+8",)


# -- collection order and abilities --------------------------------------------------------


def test_higher_ranks_collect_first_and_must_take_an_egg():
    state = position(3, [[10, 1, 2], [6, 1, 2], [4, 1, 3]], [5, -3])
    play(state, {0: "card:10", 1: "card:6", 2: "card:4"})
    assert only(state) == (0, ("egg:5", "egg:-3"))
    GAME.apply(state, {0: "egg:5"})
    assert state.collections[1] == [egg(-3, 3)] and state.collections[2] == []  # forced, then none left


def test_equal_ranks_start_with_the_marker_holder_and_the_marker_passes_left():  # :146-154
    entries, tie = collection_order([(0, 6), (1, 6), (2, 6)], marker=1, players=3)
    assert [e.seat for e in entries] == [1, 2, 0] and tie
    state = position(3, [[10, 1, 2], [10, 1, 2], [1, 2, 3]], [5, 4], marker=1)
    play(state, {0: "card:10", 1: "card:10", 2: "card:1"})
    assert only(state)[0] == 1  # the holder's 6 first
    GAME.apply(state, {1: "egg:5"})
    assert state.collections[1] == [egg(5, 3)] and state.collections[0] == [egg(4, 3)]
    assert state.marker == 2


def test_two_dark_priestesses_cancel_and_are_not_a_tie():  # :306-315, :158 (rule vector 3)
    state = position(3, [[9, 1, 2], [9, 1, 2], [1, 2, 3]], [5, 4], marker=0)
    play(state, {0: "card:9", 1: "card:9", 2: "card:1"})
    GAME.apply(state, {2: "egg:5"})
    assert state.collections == [[], [], [egg(5, 3)]]
    assert state.marker == 0
    assert any(e.kind == "cancel" for e in state.log.events)


def test_a_single_dark_priestess_collects_normally():
    state = position(3, [[9, 1, 2], [8, 1, 2], [1, 2, 3]], [5, 4])
    play(state, {0: "card:9", 1: "card:8", 2: "card:1"})
    GAME.apply(state, {0: "egg:5"})
    assert state.collections[0] == [egg(5, 3)] and state.collections[1] == [egg(4, 3)]


def test_without_a_blacksmith_the_shepherd_resolves_at_rank_three():  # ruling 8
    entries, _ = collection_order([(0, 3), (1, 4), (2, 1)], marker=0, players=3)
    assert [e.rank for e in entries] == [4, 3, 1]
    entries, _ = collection_order([(0, 3), (1, 8), (2, 10), (3, 9)], marker=0, players=4)
    assert [e.rank for e in entries] == [10, 9, 3, 8]


def test_merchant_without_an_egg_scores_six_and_blacksmith_minus_four():  # rule vectors 1 and 2
    state = position(4, [[10, 1, 2], [6, 1, 2], [5, 1, 2], [8, 1, 2]], [5, 4])
    play(state, {0: "card:10", 1: "card:6", 2: "card:5", 3: "card:8"})
    GAME.apply(state, {0: "egg:5"})  # 10 takes 5, 8 takes 4; 6 and 5 get nothing
    assert state.collections[3] == [egg(4, 4)]
    assert state.merchants == [0, 0, 1, 0] and state.blacksmiths == [0, 0, 0, 0]
    assert round_vp([], 1, 0) == 6 and round_vp([], 0, 1) == -4


def test_a_blacksmith_that_collects_is_discarded_without_penalty():
    state = position(3, [[8, 1, 2], [1, 2, 3], [2, 3, 4]], [5, 4])
    play(state, {0: "card:8", 1: "card:1", 2: "card:2"})
    GAME.apply(state, {0: "egg:5"})
    assert state.blacksmiths == [0, 0, 0]


def test_the_mage_never_takes_a_face_up_exploding_egg():  # :280-282
    state = position(3, [[7, 1, 2], [1, 2, 3], [2, 3, 4]], [-2, -5])
    play(state, {0: "card:7", 1: "card:1", 2: "card:2"})
    assert state.collections[0] == []  # nothing it may take: no decision
    state = position(3, [[7, 1, 2], [1, 2, 3], [2, 3, 4]], [1, -5])
    play(state, {0: "card:7", 1: "card:1", 2: "card:2"})
    assert state.collections[0] and state.collections[0][0].value >= 0


def test_scout_adds_a_face_down_egg_seen_only_by_the_scout():  # :211-229
    state = position(3, [[2, 1, 3], [4, 1, 3], [5, 1, 3]], [6, 5])
    play(state, {0: "card:2", 1: "card:4", 2: "card:5"})
    GAME.apply(state, {2: "egg:6"})
    assert len(state.face_down) == 1 and len(state.face_up) == 2
    hidden = state.face_down[0]
    assert state.private[hidden.id] == {0}
    assert GAME.observe(state, 0).available[2].known
    assert not GAME.observe(state, 1).available[2].known and GAME.observe(state, 1).available[2].value == 0
    for seat in (1, 2):
        assert not any(f"worth {hidden.value} VP" in e.text for _, e in state.log.since(seat, 0))


def test_the_scout_takes_the_top_card_of_the_egg_deck():  # :216
    """:216 "Take the top card of the Egg Deck" (after the next turn's Eggs are revealed, ruling 4)."""
    state = position(3, [[2, 1, 3], [10, 1, 3], [9, 1, 3]], [6, 5])
    deck = list(state.deck)
    play(state, {0: "card:2", 1: "card:10", 2: "card:9"})
    GAME.apply(state, {1: "egg:6"})  # the Dark Priestess takes the 5, the Scout nothing
    assert state.face_up == deck[:2] and state.face_down == [deck[2]] and state.deck == deck[3:]
    assert state.private[deck[2].id] == {0}
    (told,) = [e for e in state.log.events if e.kind == "scout" and e.to is not None]
    assert told.to == {0} and told.detail.egg.value == deck[2].value


def test_turn_end_abilities_resolve_in_player_order_from_the_marker_holder():  # :226-228, ruling 4
    """:227 "Each Scout player performs this ability in player order": clockwise from the
    marker's holder (NOTES 4), a seat's two cards in rank order."""
    entries, _ = collection_order([(0, 4), (1, 6), (2, 2), (3, 4)], marker=2, players=4)
    assert turn_end_tasks(entries, marker=2, players=4) == [(2, 2), (3, 4), (0, 4), (1, 6)]
    entries, _ = collection_order([(0, 6), (0, 4), (1, 2), (1, 6)], marker=1, players=2)
    assert turn_end_tasks(entries, marker=1, players=2) == [(1, 6), (1, 2), (0, 6), (0, 4)]
    # Two Scouts, the marker at seat 1: seat 1's Scout takes the top Egg, then seat 0's the next.
    state = position(3, [[2, 1, 3], [2, 1, 3], [10, 1, 3]], [6, 5], marker=1)
    deck = list(state.deck)
    play(state, {0: "card:2", 1: "card:2", 2: "card:10"})
    GAME.apply(state, {2: "egg:6"})  # seat 1's Scout (first of the tie) takes the 5
    assert state.face_up == deck[:2] and state.face_down == deck[2:4] and state.deck == deck[4:]
    assert [state.private[e.id] for e in state.face_down] == [{1}, {0}]
    assert [e.detail.seat for e in state.log.events if e.kind == "scout" and e.to is None] == [1, 0]
    assert state.marker == 2  # the Scouts tied: the marker passes left after the abilities


def test_anyone_may_take_the_face_down_egg_and_the_mage_may_refuse_it():  # NOTES 6, 7
    state = position(3, [[2, 1, 3], [1, 4, 3], [5, 1, 3]], [6, 5])
    play(state, {0: "card:2", 1: "card:1", 2: "card:5"})
    GAME.apply(state, {2: "egg:6"})
    assert len(state.face_down) == 1
    state.face_up = [egg(-6, 3)]
    state.hands = [[1, 4, 9], [7, 4, 9], [3, 4, 9]]
    GAME.refresh(state)
    play(state, {0: "card:1", 1: "card:7", 2: "card:3"})
    seat, ids = only(state)
    assert seat == 1 and ids == ("hidden:1", "none")
    GAME.apply(state, {1: "none"})
    assert state.collections[1] == []


def test_no_scout_egg_on_the_last_turn():  # NOTES 5
    state = position(3, [[2, 1, 3], [4, 1, 3], [5, 1, 3]], [6, 5], turn=9)
    play(state, {0: "card:2", 1: "card:4", 2: "card:5"})
    GAME.apply(state, {2: "egg:6"})
    assert not state.face_down


def test_courier_may_give_its_egg_to_another_player():  # :241-249
    state = position(3, [[4, 1, 2], [1, 2, 3], [2, 3, 5]], [-6, 5])
    play(state, {0: "card:4", 1: "card:1", 2: "card:2"})
    GAME.apply(state, {0: "egg:-6"})
    seat, ids = only(state)
    assert seat == 0 and ids == ("keep", "give:1", "give:2")
    GAME.apply(state, {0: "give:2"})
    assert state.collections[0] == [] and egg(-6, 3) in state.collections[2]


def test_a_couriers_face_down_egg_is_named_to_its_receiver_by_an_event():
    # Ruling 11: the receiver sees the Egg; a stateless bot reads it in the observation, one
    # that follows events in a private ``courier`` event (the others learn only the gift).
    state = position(3, [[2, 4, 9], [1, 9, 8], [5, 1, 3]], [6, 5])
    play(state, {0: "card:2", 1: "card:1", 2: "card:5"})
    GAME.apply(state, {2: "egg:6"})
    hidden = state.face_down[0]  # seat 0's Scout's Egg for turn 2
    state.face_up = [egg(-6, 3)]
    state.deck = [e for e in state.deck if e.id != egg(-6, 3).id]
    GAME.refresh(state)
    mark = len(state.log.events)
    play(state, {0: "card:4", 1: "card:8", 2: "card:1"})
    GAME.apply(state, {1: "egg:-6"})  # the Courier's one Egg left is the face-down one
    GAME.apply(state, {0: "give:2"})
    named = f"the face-down Egg is worth {hidden.value} VP"
    for seat, sees in ((0, True), (1, False), (2, True)):
        couriers = [e for _, e in state.log.since(seat, mark) if e.kind == "courier"]
        assert [e.text for e in couriers] == ["the Courier gives a face-down Egg to seat 2"] + [named] * sees
        assert all(e.detail.to_seat == 2 for e in couriers)
    (private,) = [e for e in state.log.events[mark:] if e.kind == "courier" and e.to is not None]
    assert private.to == {0, 2} and private.detail.egg.value == hidden.value and private.detail.egg.known


def test_priest_may_discard_one_of_its_eggs():  # :261-274
    state = position(3, [[6, 1, 2], [1, 2, 3], [2, 3, 5]], [-6, 5])
    state.collections[0] = [egg(-3, 3)]
    play(state, {0: "card:6", 1: "card:1", 2: "card:2"})
    GAME.apply(state, {0: "egg:5"})
    seat, ids = only(state)
    assert seat == 0 and ids == ("keep", "discard:1", "discard:2")
    GAME.apply(state, {0: "discard:1"})
    assert state.collections[0] == [egg(5, 3)] and egg(-3, 3) in state.egg_discard


def test_unclaimed_eggs_are_discarded_and_new_ones_revealed():
    state = position(3, [[9, 1, 2], [9, 1, 2], [1, 2, 3]], [5, 4])
    state.face_up.append(egg(3, 3))
    state.deck.remove(egg(3, 3))
    GAME.refresh(state)
    play(state, {0: "card:9", 1: "card:9", 2: "card:1"})
    GAME.apply(state, {2: "egg:5"})
    assert egg(3, 3) in state.egg_discard and egg(4, 3) in state.egg_discard
    assert len(state.face_up) == 2 and state.turn == 2


# -- rounds and scoring --------------------------------------------------------------------


def _play_out(state: EggsState, seed: int) -> None:
    rng = Chance(seed)
    while state.pending:
        GAME.apply(state, {d.seat: rng.pick(d.options, "x").id for d in state.pending})


def test_three_rounds_of_nine_turns_and_the_highest_total_wins():
    state = GAME.new_match(GAME.config(3), seed=8)
    _play_out(state, 8)
    assert state.round == 3 and all(len(r) == 3 for r in state.round_scores)
    assert all(len(state.hands[s]) == 1 for s in range(3))  # one unused card each (:333)
    result = GAME.result(state)
    totals = state.totals()
    assert list(result.scores) == totals
    assert result.ranks[totals.index(max(totals))] == 1


def test_two_players_keep_two_unused_adventurers():  # NOTES 2
    state = GAME.new_match(GAME.config(2), seed=8)
    _play_out(state, 9)
    assert [len(h) for h in state.hands] == [2, 2]


def test_the_marker_goes_to_the_lowest_total_at_a_new_round():  # :360, NOTES 11
    state = GAME.new_match(GAME.config(3), seed=2)
    rng = Chance(2)
    while state.round == 1:
        GAME.apply(state, {d.seat: rng.pick(d.options, "x").id for d in state.pending})
    totals = state.totals()
    assert totals[state.marker] == min(totals)


def test_the_tied_players_share_the_victory():  # :384-390
    """:388-390 "If tied: The tied players share the victory." """
    state = position(3, [[10, 1, 2], [9, 1, 2], [1, 2, 3]], [5, 4], turn=9)
    state.round, state.round_scores = 3, [[10, 10], [12, 9], [0, 0]]
    play(state, {0: "card:10", 1: "card:9", 2: "card:1"})
    GAME.apply(state, {0: "egg:5"})  # the Dark Priestess takes the 4
    assert state.round_scores == [[10, 10, 5], [12, 9, 4], [0, 0, 0]] and not state.pending
    result = GAME.result(state)
    assert (result.scores, result.ranks) == ((25, 25, 0), (1, 1, 3))
    assert result.summary == "winners: seat 0, seat 1"


def test_a_new_rounds_marker_among_equal_lowest_totals_goes_to_the_first_clockwise_after_the_holder():
    """:360 "Give the Tie Breaker Marker to the player with the lowest total VP"; among equals the
    first clockwise after the current holder (ruling 10, NOTES 11)."""
    state = position(3, [[3, 1, 2], [1, 2, 4], [10, 1, 2]], [5, 4], turn=9, marker=1)
    holding(state, 0, -4)
    play(state, {0: "card:3", 1: "card:1", 2: "card:10"})
    GAME.apply(state, {2: "egg:5"})  # the Shepherd takes the 4: seats 0 and 1 both end on 0
    assert state.round_scores == [[0], [0], [5]]
    assert state.round == 2 and state.marker == 0  # after holder 1: seat 2 (not lowest), then seat 0
    marker = [e.text for e in state.log.events if e.kind == "marker"][-1]
    assert marker == "seat 0 (lowest total) takes the Tie Breaker Marker"


def test_con_pub_tokens_to_the_round_best_and_first_to_three_wins():  # :471-495
    state = GAME.new_match(GAME.config(3, {"scoring": "conpub"}), seed=4)
    _play_out(state, 4)
    assert max(state.tokens) >= 3
    for r in range(state.round):
        scores = [state.round_scores[s][r] for s in range(3)]
        assert sum(1 for s in range(3) if scores[s] == max(scores)) >= 1
    result = GAME.result(state)
    for seat in range(3):
        assert (result.ranks[seat] == 1) == (state.tokens[seat] >= 3)


def test_con_pub_each_player_tied_for_the_highest_round_score_collects_an_egg_token():  # :475-481
    """:479-481 "If multiple players tie for the highest score: Each tied player collects 1 Egg Token." """
    state = position(3, [[10, 1, 2], [9, 1, 2], [1, 2, 3]], [5, 4], turn=9, scoring="conpub")
    holding(state, 1, 1)
    play(state, {0: "card:10", 1: "card:9", 2: "card:1"})
    GAME.apply(state, {0: "egg:5"})  # the Dark Priestess takes the 4: 1 + 4 = 5 VP, as seat 0
    assert state.round_scores == [[5], [5], [0]]
    assert state.tokens == [1, 1, 0]
    end = [e for e in state.log.events if e.kind == "round-end"][-1]
    assert list(end.detail.tokens) == [1, 1, 0] and state.round == 2 and state.pending


def con_pub_last_turn(tokens: list[int], earlier: list[int], holds: dict[int, int]) -> EggsState:
    """4 players, Con/Pub, turn 9 of round 2 with these tokens and round-1 scores; seats 0-3 play
    Hero, Dark Priestess, Bard, Shepherd for the 5 and 4 VP Eggs (seat 0 takes the 5)."""
    state = position(4, [[10, 1, 2], [9, 1, 2], [1, 2, 4], [3, 1, 2]], [5, 4], turn=9, scoring="conpub")
    state.round, state.tokens, state.round_scores = 2, list(tokens), [[v] for v in earlier]
    for seat, value in holds.items():
        holding(state, seat, value)
    play(state, {0: "card:10", 1: "card:9", 2: "card:1", 3: "card:3"})
    GAME.apply(state, {0: "egg:5"})
    assert not state.pending
    return state


def test_con_pub_players_who_reach_the_tokens_in_the_same_round_share_the_win():  # :495, ruling 13
    """:495 "The first player to reach the required number of Egg Tokens wins": all who reach
    it in the same round share the win (ruling 13, NOTES 14), whatever their VP."""
    state = con_pub_last_turn([2, 2, 1, 1], [10, 20, 7, 3], {1: 1})
    assert [r[-1] for r in state.round_scores] == [5, 5, 0, 0] and state.tokens == [3, 3, 1, 1]
    result = GAME.result(state)
    assert (result.scores, result.ranks) == ((3, 3, 1, 1), (1, 1, 3, 4))
    assert result.summary == "winners: seat 0, seat 1"


def test_con_pub_the_others_rank_by_egg_tokens_then_total_vp():  # ruling 13
    """Ruling 13: the players who did not reach the tokens rank by tokens, then total VP."""
    state = con_pub_last_turn([2, 1, 1, 0], [0, 3, 10, 40], {})
    assert [r[-1] for r in state.round_scores] == [5, 4, 0, 0] and state.tokens == [3, 1, 1, 0]
    assert state.totals() == [5, 7, 10, 40]
    result = GAME.result(state)
    assert (result.scores, result.ranks) == ((3, 1, 1, 0), (1, 3, 2, 4))
    assert result.summary == "winner: seat 0"


# -- hidden information --------------------------------------------------------------------


def test_observations_do_not_depend_on_hidden_hands_or_the_egg_order():
    a = GAME.new_match(GAME.config(3), seed=1)
    b = GAME.new_match(GAME.config(3), seed=1)
    b.hands[1], b.draws[1] = sorted(b.draws[1][:3]), b.draws[1][3:] + b.hands[1]
    b.deck = list(reversed(b.deck))
    GAME.refresh(b)
    assert GAME.observe(a, 0).SerializeToString(deterministic=True) == GAME.observe(b, 0).SerializeToString(
        deterministic=True
    )


def test_illegal_choices_change_nothing():
    state = GAME.new_match(GAME.config(3), seed=1)
    before = GAME.observe(state, SPECTATOR).SerializeToString(deterministic=True)
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {0: "maybe", 1: "keep", 2: "keep"})
    assert GAME.observe(state, SPECTATOR).SerializeToString(deterministic=True) == before


# -- playout invariants --------------------------------------------------------------------


def test_playout_invariants_over_2000_seeded_games():
    longest = 0
    for seed in range(2000):
        players = 2 + seed % 5
        options = {"scoring": "conpub"} if seed % 7 == 0 else {}
        state = GAME.new_match(GAME.config(players, options), seed=seed)
        rng = Chance(seed)
        steps = 0
        while state.pending:
            GAME.apply(state, {d.seat: rng.pick(d.options, "x").id for d in state.pending})
            steps += 1
            if state.phase == pb.PLAY_PHASE:
                eggs = state.deck + state.face_up + state.face_down + state.egg_discard
                eggs += [e for c in state.collections for e in c]
                assert sorted(e.id for e in eggs) == list(range(len(egg_deck(players))))
        totals = state.totals()
        for s in range(players):
            assert len(state.round_scores[s]) == state.round
        if not options:
            assert state.round == 3
        assert list(GAME.result(state).scores) == (state.tokens if options else totals)
        # the docstring's bound: rounds of 1 mulligan + 9 turns of 1 play + 2 steps per card played
        cards = 4 if players == 2 else players
        rounds = players * (TOKENS_TO_WIN[players] - 1) + 1 if options else 3
        assert state.steps == steps <= rounds * (1 + 9 * (1 + 2 * cards))
        longest = max(longest, steps)
    assert longest < 400


# -- sample_world --------------------------------------------------------------------------


def test_sampled_worlds_keep_what_the_seat_knows_and_play_on():
    n = 0
    for players in (2, 3, 5):
        state = GAME.new_match(GAME.config(players), seed=players)
        rng = Chance(players)
        while state.pending:
            if rng.below(6, "x") == 0:
                for seat in range(players):
                    before = GAME.observe(state, seat).SerializeToString(deterministic=True)
                    world = GAME.sample_world(state, seat, Chance(n))
                    n += 1
                    assert GAME.observe(world, seat).SerializeToString(deterministic=True) == before
                    assert GAME.observe(state, seat).SerializeToString(deterministic=True) == before
                    mine = [d.option_ids for d in state.pending if d.seat == seat]
                    assert [d.option_ids for d in world.pending if d.seat == seat] == mine
                    _play_out(world, n)
            GAME.apply(state, {d.seat: rng.pick(d.options, "x").id for d in state.pending})
    assert n > 50


def test_hidden_hands_are_dealt_uniformly():
    """At the first play step seat 1 holds 3 of its 10 Adventurers: seen from seat 0 each rank
    is in seat 1's hand 3 times in 10."""
    state = GAME.new_match(GAME.config(3), seed=7)
    GAME.apply(state, {0: "keep", 1: "keep", 2: "keep"})
    counts = Counter()
    samples = 1000
    for k in range(samples):
        world = GAME.sample_world(state, 0, Chance(k))
        counts.update(world.hands[1])
    observed = [counts[r] for r in range(1, 11)]
    assert chisquare(observed, [samples * 3 / 10] * 10).pvalue > 0.01


# -- world_from_observation ----------------------------------------------------------------


def all_eggs(state: EggsState) -> list[EggCard]:
    return sorted(
        state.deck + state.face_up + state.face_down + state.egg_discard + [e for c in state.collections for e in c]
    )


def test_entries_show_where_their_egg_is_and_which_abilities_are_due():
    # 2 players: seat 0's Priest (6) and Courier (4) both collect; the Priest resolves first.
    state = position(2, [[6, 4, 1, 2], [1, 2, 3, 5]], [-6, 5])
    state.deck.remove(egg(-3, 2))
    state.collections[0] = [egg(-3, 2)]
    play(state, {0: "cards:6+4", 1: "cards:3+1"})
    GAME.apply(state, {0: "egg:5"})  # the Courier then takes the -6 by itself
    assert only(state) == (0, ("keep", "discard:1", "discard:2", "discard:3"))
    obs = GAME.observe(state, 1)
    assert [(e.rank, e.egg_at, e.ability_due) for e in obs.order] == [
        (6, 2, True),
        (4, 3, True),
        (3, 0, False),
        (1, 0, False),
    ]
    world = GAME.world_from_observation(state.config, 0, GAME.observe(state, 0), Chance(5))
    assert world.tasks == state.tasks == [(0, 6), (0, 4)]
    assert [e.collected for e in world.order] == [e.collected for e in state.order]
    for s in (state, world):  # the Priest discards the Courier's Egg: the Courier has nothing to give
        GAME.apply(s, {0: "discard:3"})
        assert s.phase == pb.PLAY_PHASE and s.collections[0] == [egg(-3, 2), egg(5, 2)]


def test_a_world_from_the_observation_deals_exactly_the_unseen_eggs_and_adventurers():
    state = position(3, [[2, 1, 3], [4, 1, 3], [5, 1, 3]], [6, 5])
    play(state, {0: "card:2", 1: "card:4", 2: "card:5"})
    GAME.apply(state, {2: "egg:6"})  # seat 0's Scout has added a face-down Egg
    obs = GAME.observe(state, 1)
    hidden = state.face_down[0]
    faces = Counter()
    for k in range(200):
        world = GAME.world_from_observation(state.config, 1, obs, Chance(k))
        assert all_eggs(world) == sorted(egg_deck(3))
        assert sorted(e.value for e in world.deck + world.face_down) == list(obs.unseen_eggs)
        assert len(world.deck) == len(state.deck) and world.face_up == state.face_up
        assert not world.knows(1, world.face_down[0])
        assert world.hands[1] == state.hands[1]
        for seat in (0, 2):
            assert len(world.hands[seat]) == len(state.hands[seat])
            assert sorted(world.hands[seat] + world.draws[seat]) == sorted(state.hands[seat] + state.draws[seat])
        faces[world.face_down[0].value] += 1
    assert faces[hidden.value] > 0 and len(faces) > 5  # the face-down Egg is any unseen one


def who_knows(state: EggsState) -> tuple[list, list, list]:
    """Per face-down Egg place (available, each collection, the discard pile in order), the seats
    that have seen its value (None: a face-up Egg)."""

    def seats(egg: EggCard) -> tuple[int, ...] | None:
        known = state.private.get(egg.id)
        return None if known is None else tuple(sorted(known))

    return (
        [seats(e) for e in state.face_down],
        [[seats(e) for e in c] for c in state.collections],
        [seats(e) for e in state.egg_discard if e.id in state.private],
    )


def test_a_world_from_the_observation_keeps_who_has_seen_each_face_down_egg():
    # Seat 0's Scout adds a face-down Egg (:217, :229); the world gave it to nobody.
    state = position(3, [[2, 1, 9], [4, 1, 9], [5, 1, 3]], [6, 5])
    play(state, {0: "card:2", 1: "card:4", 2: "card:5"})
    GAME.apply(state, {2: "egg:6"})
    for viewer in (1, 2):
        world = GAME.world_from_observation(state.config, viewer, GAME.observe(state, viewer), Chance(viewer))
        assert world.knows(0, world.face_down[0]) and not world.knows(viewer, world.face_down[0])
        assert GAME.observe(world, 0).available[2].known
    GAME.apply(state, {1: "keep"})
    play(state, {0: "card:9", 1: "card:9", 2: "card:1"})  # the Dark Priestesses cancel
    GAME.apply(state, {2: "egg:2"})  # the face-down Egg is discarded unclaimed, seen by seat 0 only
    for viewer in range(3):
        obs = GAME.observe(state, viewer)
        assert [(e.known, list(e.known_by)) for e in obs.face_down_discards] == [(viewer == 0, [0])]
        world = GAME.world_from_observation(state.config, viewer, obs, Chance(viewer))
        assert who_knows(world) == who_knows(state)
        for seat in range(3):  # the world made it public (viewer 0) or unseen by seat 0 (the others)
            assert len(GAME.observe(world, seat).unseen_eggs) == len(GAME.observe(state, seat).unseen_eggs)


def test_worlds_from_observations_keep_who_has_seen_each_face_down_egg():
    checked = 0
    for players in (2, 3, 4):
        for seed in range(2):
            state = GAME.new_match(GAME.config(players), seed=seed)
            rng = Chance(seed)
            step = 0
            while state.pending:
                step += 1
                if step % 4 == 0 and state.private:
                    for viewer in range(players):
                        obs = GAME.observe(state, viewer)
                        world = GAME.world_from_observation(state.config, viewer, obs, Chance(step))
                        assert who_knows(world) == who_knows(state)
                        checked += 1
                GAME.apply(state, {d.seat: rng.pick(d.options, "x").id for d in state.pending})
    assert checked > 100


# -- worked examples and rule vectors through the engine, to the round's score ---------------


def test_two_player_example_scores_plus_9_and_minus_10_at_round_end():
    # :433-467 on the round's last turn (:329): Hero takes the 13 VP Egg, the Shepherd must take
    # the -6 VP Egg, neither Blacksmith collects (-4 VP each, :465). NOTES §4.2 5: this turn is
    # worth +13 - 4 = +9 to P1 and -6 - 4 = -10 to P2; the round's scores say exactly that.
    state = position(2, [[10, 8, 1, 2], [8, 3, 1, 2]], [13, -6], turn=9)
    play(state, {0: "cards:10+8", 1: "cards:8+3"})
    assert [(e.seat, e.rank) for e in state.order] == [(0, 10), (1, 3), (0, 8), (1, 8)]
    GAME.apply(state, {0: "egg:13"})
    assert state.round_scores == [[9], [-10]]
    (end,) = [e for e in state.log.events if e.kind == "round-end"]
    assert (end.detail.round, list(end.detail.scores)) == (1, [9, -10])
    assert [v.total for v in GAME.observe(state, 0).seats] == [9, -10]


def test_rule_vectors_1_and_2_merchant_plus_6_and_blacksmith_minus_4_at_round_end():
    # NOTES §4.2 5, rule vectors 1 (:255-257) and 2 (:298-300), on turn 9 of round 1 with 4
    # players and two Eggs (5 and 4 VP): the Hero (10) and the Dark Priestess (9) take them;
    # the Blacksmith (8) and the Merchant (5) collect nothing.
    state = position(4, [[10, 1, 2], [9, 1, 2], [8, 1, 2], [5, 1, 2]], [5, 4], turn=9)
    play(state, {0: "card:10", 1: "card:9", 2: "card:8", 3: "card:5"})
    GAME.apply(state, {0: "egg:5"})  # the Dark Priestess then takes the 4 without a decision
    assert state.round_scores == [[5], [4], [-4], [6]]
    (end,) = [e for e in state.log.events if e.kind == "round-end"]
    assert list(end.detail.scores) == [5, 4, -4, 6]
    assert [e.detail.rank for e in state.log.events if e.kind == "bonus"] == [8, 5]
    # Round 2: the lowest total (-4, seat 2) takes the Tie Breaker Marker (:360).
    assert state.round == 2 and state.marker == 2


# -- the heuristic bot ----------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["heuristic", "heuristic:greed=8"])
def test_two_player_heuristic_values_its_pair_as_a_pair(spec):
    # The 2-player example's Eggs (:437-438), 13 and -6. The heuristic valued each card alone
    # and sent its two highest, Hero + Dark Priestess: the Priestess then had to take the -6
    # (an outside probe). Hero + Bard takes the 13 and leaves the -6 to seat 1's Blacksmith (its
    # Mage refuses a face-up Exploding Egg, :282).
    state = position(2, [[10, 9, 2, 1], [8, 7, 6, 5]], [13, -6])
    choice = make_bot(spec, "eggsandempires").decide(request_for(GAME, state, 0))
    assert choice == "cards:10+1"
    play(state, {0: choice, 1: "cards:8+7"})
    GAME.apply(state, {0: "egg:13"})
    assert [[e.value for e in eggs] for eggs in state.collections] == [[13], [-6]]
