"""Sky Five: every rule of shared/rules/skyfive.md and its rulings (NOTES.md §4.19), pinned."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest

from arena.chance import Chance, PresetChance, PresetError
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.skyfive import GAME, Card, SkyFiveState
from arena.games.skyfive.game import (
    COLOUR_NAMES,
    DIE_FACES,
    REMOVED,
    STAR,
    bank_succeeds,
    can_take,
    count_by,
    full_deck,
    is_sky_five,
    risk_values,
)
from arena.games.v1 import skyfive_pb2 as pb
from bots.registry import make_bot
from tests.contract import assert_same_view, configurations, random_playout

RED, ORANGE, YELLOW, GREEN, BLUE = pb.RED, pb.ORANGE, pb.YELLOW, pb.GREEN, pb.BLUE


def star(value: int) -> Card:
    return Card(STAR, value)


def order(top=(), tail=None) -> list[Card]:
    """A full deck order: ``top`` drawn first, then the rest (reversed when ``tail == 'rev'``)."""
    rest = Counter(full_deck())
    rest.subtract(top)
    assert min(rest.values()) >= 0, "more copies than the deck holds"
    remainder = sorted(rest.elements())
    return [*top, *(remainder[::-1] if tail == "rev" else remainder)]


def deal(players=2, top=(), rolls=(), start=0, tail=None) -> SkyFiveState:
    """A new match with the deck order, die rolls and start seat preset (strict: no other chance)."""
    chance = PresetChance(
        orders={"deck": [order(top, tail)]}, rolls={"die": list(rolls)}, picks={"start": [start]}, strict=True
    )
    return GAME.new_match(GAME.config(players), chance=chance)


def position(players=2, face_up=None, top=(), rolls=(), turn=0, deck=None) -> SkyFiveState:
    """A chosen position: face-up rows set directly, ``deck`` (top first) optionally cut short."""
    state = deal(players, top, rolls, start=turn)
    for seat, cards in (face_up or {}).items():
        state.face_up[seat] = list(cards)
    if deck is not None:
        state.deck = list(deck)[::-1]
    GAME.refresh(state)
    return state


def ids(state: SkyFiveState) -> tuple[str, ...]:
    (decision,) = state.pending
    return decision.option_ids


def act(state: SkyFiveState, *choices: str) -> None:
    for choice in choices:
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: choice})


# -- components and setup -------------------------------------------------------------------


def test_the_deck_has_106_cards():
    # Rules :17-20: 5 colours x (two 0s + three each of 1-6) + 6 Shooting Stars 1-6.
    deck = Counter(full_deck())
    assert sum(deck.values()) == 106
    assert len(COLOUR_NAMES) == 5
    for colour in (RED, ORANGE, YELLOW, GREEN, BLUE):
        assert deck[Card(colour, 0)] == 2
        assert [deck[Card(colour, v)] for v in range(1, 7)] == [3] * 6
    assert [deck[star(v)] for v in range(1, 7)] == [1] * 6
    assert DIE_FACES == (1, 2, 3, 4, 5, 6)


@pytest.mark.parametrize(("players", "removed"), [(2, 52), (3, 39), (4, 26), (5, 13), (6, 0)])
def test_cards_removed_by_player_count(players, removed):
    # Rules :33-45, exact numbers (ruling 1); the bottom of the shuffled order is set aside.
    full = order()
    state = deal(players)
    assert REMOVED[players] == removed
    assert len(state.removed) == removed and len(state.deck) == 106 - removed
    assert state.removed == full[106 - removed :]
    assert state.deck[::-1] == full[: 106 - removed]
    assert GAME.observe(state, 0).deck_size == 106 - removed


@pytest.mark.parametrize("start", [0, 1, 2])
def test_the_start_player_is_picked(start):
    state = deal(3, start=start)
    assert state.turn_seat == start and state.pending[0].seat == start


@pytest.mark.parametrize(("players", "ok"), [(1, False), (2, True), (6, True), (7, False)])
def test_player_counts(players, ok):
    if ok:
        GAME.config(players)
    else:
        with pytest.raises(ConfigError, match="2-6 players"):
            GAME.config(players)


# -- turn: draw or bank ---------------------------------------------------------------------


def test_without_face_up_cards_draw_is_the_only_option():
    # Ruling 5: banking nothing is not offered on a normal turn.
    state = deal()
    assert state.pending[0].kind == "turn" and ids(state) == ("draw",)


def test_with_face_up_cards_the_turn_is_draw_or_bank():
    state = position(face_up={0: [Card(RED, 3)]})
    assert ids(state) == ("draw", "bank")
    assert "busts on 3" in state.pending[0].options[1].label


@pytest.mark.parametrize(
    ("drawn", "face_up"),
    [
        (Card(RED, 4), []),  # a new colour is kept (:68-73)
        (Card(BLUE, 0), [Card(RED, 4)]),
        (star(5), [star(2), Card(RED, 5)]),  # Shooting Stars are always kept (:157-162)
    ],
)
def test_a_new_colour_or_a_shooting_star_is_kept(drawn, face_up):
    state = position(face_up={0: face_up}, top=[drawn])
    act(state, "draw")
    assert state.face_up[0] == [*face_up, drawn]
    assert state.turn_seat == 1 and state.pending[0].kind == "turn"


def test_a_duplicate_colour_must_be_given_to_a_player_lacking_it():
    # Rules :75-83, ruling 3: the drawer chooses among the players lacking the colour.
    state = position(4, face_up={0: [Card(RED, 1)], 1: [Card(RED, 2)], 2: [], 3: [Card(BLUE, 6)]}, top=[Card(RED, 5)])
    act(state, "draw")
    (decision,) = state.pending
    assert decision.seat == 0 and decision.kind == "give"
    assert decision.option_ids == ("give:2", "give:3")  # clockwise from the drawer, seat 1 has red
    assert GAME.observe(state, 1).gift == pb.Card(colour=RED, value=5)
    act(state, "give:3")
    assert state.face_up[3] == [Card(BLUE, 6), Card(RED, 5)]
    assert state.face_up[0] == [Card(RED, 1)]
    assert state.turn_seat == 1 and state.gift is None


def test_the_only_eligible_recipient_is_still_asked():
    state = position(face_up={0: [Card(RED, 1)]}, top=[Card(RED, 5)])
    act(state, "draw")
    assert ids(state) == ("give:1",)


def test_drawing_a_colour_every_player_has_busts_and_the_card_is_discarded():
    # Rules :85-90, ruling 2.
    state = position(
        3,
        face_up={0: [Card(RED, 1), star(4)], 1: [Card(RED, 2), Card(BLUE, 3)], 2: [Card(RED, 6)]},
        top=[Card(RED, 5)],
    )
    act(state, "draw")
    assert state.discard == [Card(RED, 5)]
    (decision,) = state.pending
    # Seat 1 may take only the Shooting Star (it has red); so may seat 2.
    assert decision.seat == 1 and decision.kind == "take"
    assert decision.option_ids == ("take:star4", "decline")


# -- banking: the worked examples -----------------------------------------------------------

HAND_6221 = [Card(RED, 6), Card(ORANGE, 2), Card(YELLOW, 2), Card(GREEN, 1)]


def test_example_6_2_2_1_roll_3_banks_all_four():
    # Rules :114-118.
    state = position(face_up={0: HAND_6221}, rolls=[3])
    act(state, "bank")
    assert state.banked[0] == HAND_6221 and state.face_up[0] == []
    assert state.scores[0] == 11
    assert state.turn_seat == 1


def test_example_6_2_2_1_roll_2_busts():
    # Rules :119.
    state = position(face_up={0: HAND_6221}, rolls=[2])
    act(state, "bank")
    assert state.banked[0] == []
    (decision,) = state.pending
    assert decision.seat == 1 and decision.kind == "take"
    assert decision.option_ids == ("take:red6", "take:orange2", "take:yellow2", "take:green1", "decline")


def test_example_shooting_star_5_roll_5_busts():
    # Rules :166-168.
    state = position(face_up={0: [star(5), Card(RED, 0)], 1: [Card(RED, 3)]}, rolls=[5])
    act(state, "bank")
    assert state.banked[0] == [] and state.pending[0].option_ids == ("take:star5", "decline")


@pytest.mark.parametrize(
    ("cards", "roll", "ok"),
    [
        (HAND_6221, 3, True),
        (HAND_6221, 2, False),
        ([star(5)], 5, False),
        ([Card(RED, 0), Card(BLUE, 0)], 6, True),  # zeros never bust (die 1-6)
        ([Card(RED, 4)], 4, False),
    ],
)
def test_bank_succeeds(cards, roll, ok):
    assert bank_succeeds(cards, roll) is ok


def test_risk_values_are_the_distinct_numbers():
    assert risk_values([*HAND_6221, star(6), Card(BLUE, 0)]) == [1, 2, 6]


# -- busting --------------------------------------------------------------------------------


def test_bust_pick_up_goes_clockwise_and_offers_only_missing_colours():
    # Rules :132-143, ruling 4: one card each, clockwise from the buster; Shooting Stars to anyone.
    face_up = {
        1: [Card(RED, 2), Card(BLUE, 5), star(3)],  # the buster
        2: [Card(RED, 6)],
        3: [],
        0: [Card(RED, 1), Card(BLUE, 1)],
    }
    state = position(4, face_up=face_up, rolls=[2], turn=1)
    act(state, "bank")
    assert state.pending[0].seat == 2 and ids(state) == ("take:blue5", "take:star3", "decline")
    act(state, "take:blue5")
    assert state.pending[0].seat == 3 and ids(state) == ("take:red2", "take:star3", "decline")
    act(state, "decline")
    assert state.pending[0].seat == 0 and ids(state) == ("take:star3", "decline")
    act(state, "take:star3")
    assert state.face_up[2] == [Card(RED, 6), Card(BLUE, 5)]
    assert state.face_up[0] == [Card(RED, 1), Card(BLUE, 1), star(3)]
    assert state.face_up[1] == [] and state.discard == [Card(RED, 2)]
    assert state.turn_seat == 2 and state.pending[0].kind == "turn"  # ruling 9


def test_a_seat_with_no_eligible_card_is_skipped():
    state = position(3, face_up={0: [Card(RED, 3)], 1: [Card(RED, 1)], 2: [Card(BLUE, 2)]}, rolls=[3], turn=0)
    act(state, "bank")
    assert state.pending[0].seat == 2  # seat 1 holds red: no choice, not asked
    act(state, "decline")
    assert state.discard == [Card(RED, 3)] and state.turn_seat == 1


def test_a_bust_loses_only_the_face_up_cards_banked_ones_stay_safe():
    # Rules :60, :105, :147-148: seat 0 banks red 3 + star 2 (roll 1), draws blue 4 and busts
    # on a 4: only blue 4 is lost; the score stays 5 with 2 banked cards. (Seat 1 draws green 6
    # and banks it on a 1.)
    state = position(face_up={0: [Card(RED, 3), star(2)]}, top=[Card(GREEN, 6), Card(BLUE, 4)], rolls=[1, 1, 4])
    act(state, "bank", "draw", "draw", "bank", "bank")
    assert state.banked[1] == [Card(GREEN, 6)]
    assert ids(state) == ("take:blue4", "decline") and state.pending[0].seat == 1
    act(state, "decline")
    assert state.banked[0] == [Card(RED, 3), star(2)] and state.scores[0] == 5
    assert state.face_up[0] == [] and state.discard == [Card(BLUE, 4)]
    obs = GAME.observe(state, 1)
    assert (obs.table[0].banked_count, obs.table[0].score) == (2, 5)


def test_taking_a_card_not_offered_is_illegal_and_changes_nothing():
    state = position(3, face_up={0: [Card(RED, 3), star(2)], 1: [Card(RED, 1)]}, rolls=[3])
    act(state, "bank")
    before = pickle.dumps(state)
    for bad in ("take:red3", "take:blue4", "take:star5", "give:2", "bank"):
        with pytest.raises(IllegalChoice):
            GAME.apply(state, {1: bad})
    assert pickle.dumps(state) == before


def test_giving_to_a_player_who_has_the_colour_is_illegal():
    state = position(3, face_up={0: [Card(RED, 1)], 1: [Card(RED, 2)]}, top=[Card(RED, 5)])
    act(state, "draw")
    before = pickle.dumps(state)
    for bad in ("give:1", "give:0", "give:5", "draw"):
        with pytest.raises(IllegalChoice):
            GAME.apply(state, {0: bad})
    assert pickle.dumps(state) == before


def test_banking_without_face_up_cards_is_illegal():
    state = deal()
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {0: "bank"})


# -- Sky Five -------------------------------------------------------------------------------

FOUR_COLOURS = [Card(RED, 1), Card(ORANGE, 2), Card(YELLOW, 3), Card(GREEN, 4)]


def test_sky_five_banks_everything_at_once_without_a_roll():
    # Rules :172-187: Shooting Stars are banked too; strict chance: no die is rolled.
    state = position(face_up={0: [*FOUR_COLOURS, star(6)]}, top=[Card(BLUE, 5)])
    act(state, "draw")
    assert state.face_up[0] == []
    assert state.banked[0] == [*FOUR_COLOURS, star(6), Card(BLUE, 5)]
    assert state.scores[0] == 21
    assert [e.kind for e in state.log.events[-2:]] == ["draw", "skyfive"]


def test_shooting_stars_do_not_count_toward_sky_five():
    assert not is_sky_five([*FOUR_COLOURS, star(1), star(2)])
    assert is_sky_five([*FOUR_COLOURS, Card(BLUE, 0)])


def test_sky_five_off_turn_on_receiving_a_gift():
    # Rules :179, :183.
    state = position(face_up={0: [Card(BLUE, 2)], 1: FOUR_COLOURS}, top=[Card(BLUE, 6)])
    act(state, "draw", "give:1")
    assert state.banked[1] == [*FOUR_COLOURS, Card(BLUE, 6)] and state.face_up[1] == []
    assert state.turn_seat == 1


def test_sky_five_off_turn_on_a_pick_up():
    state = position(face_up={0: [Card(BLUE, 2), Card(RED, 6)], 1: FOUR_COLOURS}, rolls=[6])
    act(state, "bank", "take:blue2")
    assert state.banked[1] == [*FOUR_COLOURS, Card(BLUE, 2)]
    assert state.discard == [Card(RED, 6)]


# -- final round ----------------------------------------------------------------------------


def test_final_round_forced_banks_from_the_next_seat_drawer_last():
    # Rules :191-208, ruling 6: seat 0 draws the last card; seat 1 banks first (busts), seat 0,
    # not finished yet, may pick up, then banks last.
    state = position(face_up={0: [Card(RED, 3)], 1: [Card(BLUE, 4), star(1)]}, deck=[Card(GREEN, 5)], rolls=[4, 1])
    act(state, "draw")
    assert state.final_round and state.phase == pb.PICKUP
    assert state.pending[0].seat == 0 and ids(state) == ("take:blue4", "take:star1", "decline")
    act(state, "take:blue4")
    assert not state.pending
    assert state.banked == [[Card(RED, 3), Card(GREEN, 5), Card(BLUE, 4)], []]
    assert state.discard == [star(1)]
    assert GAME.result(state).scores == (12, 0)


def test_a_player_who_finished_the_final_turn_cannot_pick_up():
    # Seat 0 draws last; seat 1 banks (roll 6), seat 2 busts (roll 2): seat 1 lacks blue but is done.
    state = position(
        3,
        face_up={0: [Card(RED, 3)], 1: [Card(RED, 1)], 2: [Card(BLUE, 2)]},
        deck=[Card(GREEN, 5)],
        rolls=[6, 2, 1],
    )
    act(state, "draw")
    assert state.final_done == [False, True, True]
    assert state.pending[0].seat == 0 and ids(state) == ("take:blue2", "decline")
    act(state, "decline")
    assert not state.pending  # seat 0 then rolls 1 against red 3, green 5: banked
    assert state.banked[0] == [Card(RED, 3), Card(GREEN, 5)]
    assert state.chance.unused() == {}


def test_final_turn_without_face_up_cards_is_a_no_op():
    # Ruling 5: seat 0 keeps the last card; seat 1 has nothing to bank (no roll), seat 0 rolls.
    state = position(deck=[Card(RED, 5)], rolls=[1])
    act(state, "draw")
    assert not state.pending and state.chance.unused() == {}
    assert [(e.seat, e.text) for e in state.log.events if e.kind == "bank"] == [
        (1, "has nothing to bank"),
        (0, "rolls 1: banks red 5 (5 points, score 5)"),
    ]


def test_the_last_card_given_away_is_resolved_before_the_final_round():
    state = position(face_up={0: [Card(RED, 2)]}, deck=[Card(RED, 5)], rolls=[1, 2])
    act(state, "draw")
    assert not state.final_round and ids(state) == ("give:1",)
    act(state, "give:1")
    assert not state.pending
    assert state.banked == [[], [Card(RED, 5)]]  # seat 1 rolled 1 and banked; seat 0 rolled 2: bust
    assert state.discard == [Card(RED, 2)]


def test_the_last_card_busting_resolves_the_pick_up_before_the_final_round():
    state = position(face_up={0: [Card(RED, 3)], 1: [Card(RED, 4), Card(BLUE, 1)]}, deck=[Card(RED, 6)], rolls=[5])
    act(state, "draw")  # every player has red: bust; seat 1 may take nothing (has red)
    assert not state.pending
    assert state.discard == [Card(RED, 6), Card(RED, 3)]
    assert state.banked[1] == [Card(RED, 4), Card(BLUE, 1)]


# -- scoring --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("banked", "scores", "ranks"),
    [
        ([[Card(RED, 6)], [Card(RED, 5)]], (6, 5), (1, 2)),
        ([[Card(RED, 6)], [Card(RED, 5), Card(RED, 1)]], (6, 6), (2, 1)),  # more banked cards
        ([[Card(RED, 6), Card(RED, 0)], [Card(RED, 5), Card(RED, 1)]], (6, 6), (1, 1)),  # shared
        ([[], [], [Card(BLUE, 2)]], (0, 0, 2), (2, 2, 1)),
    ],
)
def test_score_and_tie_breakers(banked, scores, ranks):
    # Rules :210-222, ruling 7.
    state = deal(len(banked))
    state.banked = [list(b) for b in banked]
    result = GAME.score(state)
    assert result.scores == scores and result.ranks == ranks


# -- hidden information ---------------------------------------------------------------------

SCRIPT_CARDS = [Card(RED, 3), Card(BLUE, 5), Card(RED, 1), Card(GREEN, 2), star(4), Card(BLUE, 0)]


def test_deck_order_and_removed_cards_never_leak():
    # Two orders that agree on the cards drawn so far but not on the rest of the deck, nor on the
    # removed cards: every seat's observation (scoring piles included), events and options are
    # byte-identical.
    a = deal(2, top=SCRIPT_CARDS, rolls=[6, 4])
    b = deal(2, top=SCRIPT_CARDS, rolls=[6, 4], tail="rev")
    assert a.removed != b.removed and a.deck != b.deck
    for step in ["draw", "draw", "draw", "give:1", "bank", "draw", "draw", "bank", "draw"]:
        for seat in (0, 1):
            assert_same_view(GAME, a, b, seat)
        act(a, step)
        act(b, step)
    for seat in (0, 1):
        assert_same_view(GAME, a, b, seat)
    assert all(a.banked) and a.banked == b.banked  # the scoring piles are in the views compared
    assert GAME.observe(a, SPECTATOR) != GAME.observe(b, SPECTATOR)


def test_only_the_spectator_sees_the_deck_and_the_removed_cards():
    state = deal(3)
    seat_view = GAME.observe(state, 0)
    assert not seat_view.deck and not seat_view.removed
    spectator = GAME.observe(state, SPECTATOR)
    assert [Card(c.colour, c.value) for c in spectator.deck] == state.deck[::-1]
    assert [Card(c.colour, c.value) for c in spectator.removed] == state.removed


def test_unseen_counts_summarise_the_public_history():
    state = deal(2, top=[Card(RED, 3), star(4)])
    act(state, "draw", "draw")
    obs = GAME.observe(state, 0)
    assert obs.unseen == 104
    assert list(obs.unseen_by_colour) == [0, 19, 20, 20, 20, 20, 5]
    assert list(obs.unseen_by_value) == [10, 16, 16, 15, 15, 16, 16]


# -- random playouts ------------------------------------------------------------------------


DECK = Counter(full_deck())
DECK_SIZE = 106


def check_invariants(state: SkyFiveState) -> None:
    places = [*state.deck, *state.removed, *state.discard]
    for seat in range(state.players):
        row = state.face_up[seat]
        places += row + state.banked[seat]
        colours = [c.colour for c in row if c.colour != STAR]
        assert len(colours) == len(set(colours)), "two face-up cards of one colour"
        assert not is_sky_five(row), "a Sky Five left standing"
    if state.gift is not None:
        places.append(state.gift)
    assert len(places) == DECK_SIZE, "cards not conserved"
    assert len(state.removed) == REMOVED[state.players]
    if state.steps % 8 == 0 or not state.pending:  # the full comparisons, every few steps
        assert Counter(places) == DECK, "cards not conserved"
        assert state.scores == [sum(c.value for c in b) for b in state.banked]
        assert (state.unseen_colours, state.unseen_values) == count_by([*state.deck, *state.removed])
    if not state.pending:
        assert not state.deck and all(state.final_done)
        assert not any(state.face_up), "face-up cards left after every final turn"
        result = GAME.result(state)
        assert result.scores == tuple(sum(c.value for c in b) for b in state.banked)


@pytest.mark.parametrize("config", list(configurations(GAME)), ids=lambda c: f"{c.players}p")
def test_random_playouts_conserve_cards_and_end(config):
    for seed in range(400):  # 5 player counts: 2,000 seeded games (GAME-DONE)
        random_playout(GAME, config, seed, invariant=check_invariants, observe=seed < 3)


def test_can_take_rules():
    assert can_take([Card(RED, 1)], star(3))
    assert not can_take([Card(RED, 1)], Card(RED, 0))
    assert can_take([Card(RED, 1), star(3)], Card(BLUE, 3))


# -- built-in bot ---------------------------------------------------------------------------


def test_heuristic_parameters_are_validated():
    make_bot("heuristic:risk=2", "skyfive")
    with pytest.raises(ConfigError, match="risk"):
        make_bot("heuristic:risk=9", "skyfive")
    with pytest.raises(ConfigError, match="greed"):
        make_bot("heuristic:greed=1", "skyfive")


def test_strict_preset_rejects_a_missing_roll():
    # Sanity of the helpers: a bank attempt with no preset roll fails loudly.
    state = position(face_up={0: [Card(RED, 3)]})
    with pytest.raises(PresetError):
        GAME.apply(state, {0: "bank"})


# --------------------------------------------------------------------------------------------
# Worlds from an observation (a served searching bot)


def test_observed_scoring_piles_are_the_cards_the_bank_events_named():
    """Public by history (ruling 10): at every step of seeded playouts, every seat's and the
    spectator's observation lists each scoring pile as the cards its bank/skyfive events named,
    in that order."""
    banks = 0
    for players, seed in [(2, 1), (3, 2), (5, 3), (6, 4)]:
        state, rng = GAME.new_match(GAME.config(players), seed), Chance(seed)
        while True:
            for viewer in [SPECTATOR, *range(players)]:
                named: list[list[Card]] = [[] for _ in range(players)]
                for _, event in state.log.since(viewer, 0):
                    if event.kind in ("bank", "skyfive"):
                        named[event.seat] += [Card(c.colour, c.value) for c in event.detail.cards]
                table = GAME.observe(state, viewer).table
                assert [[Card(c.colour, c.value) for c in p.banked] for p in table] == named == state.banked
                assert [p.banked_count for p in table] == [len(b) for b in named]
                assert [p.score for p in table] == [sum(c.value for c in b) for b in named]
            if not state.pending:
                break
            (decision,) = state.pending
            GAME.apply(state, {decision.seat: rng.pick(decision.options, "t").id})
        banks += sum(map(len, state.banked))
    assert banks > 100  # the playouts bank plenty of cards


@pytest.mark.parametrize(("players", "seed"), [(2, 8), (2, 9), (4, 8), (5, 8), (5, 9), (6, 8)])
def test_world_from_observation_deals_exactly_the_unseen_cards(players, seed):
    """Along a seeded random playout, a world built from the mover's observation has the table
    and the scoring piles as they are (final turns still to come included), and its draw pile
    plus removed cards are exactly the real unseen cards (the same multiset, the same sizes)."""
    public = ("face_up", "banked", "discard", "gift", "phase", "turn_seat", "buster", "pickup_queue")
    public += ("final_round", "final_queue", "final_done", "scores", "unseen_colours", "unseen_values")
    state, rng = GAME.new_match(GAME.config(players), seed), Chance(players)
    checked = 0
    while state.pending:
        (decision,) = state.pending
        world = GAME.world_from_observation(state.config, decision.seat, GAME.observe(state, decision.seat), rng)
        assert {k: getattr(world, k) for k in public} == {k: getattr(state, k) for k in public}
        assert [len(world.deck), len(world.removed)] == [len(state.deck), len(state.removed)]
        assert Counter(world.deck + world.removed) == Counter(state.deck + state.removed)
        checked += 1
        GAME.apply(state, {decision.seat: rng.pick(decision.options, "t").id})
    assert checked > 50


def world_point(players: int, seed: int, steps: int) -> SkyFiveState:
    state, rng = GAME.new_match(GAME.config(players), seed), Chance(seed)
    for _ in range(steps):
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: rng.pick(decision.options, "t").id})
    return state


@pytest.mark.parametrize(("players", "seed", "steps"), [(2, 8, 40), (5, 3, 60)])
def test_world_from_observation_deals_the_unseen_cards_uniformly(players, seed, steps):
    """Chi-square: the world's top card follows the unseen cards' shares, and the number of
    one kind of card among the removed ones is hypergeometric (a uniform shuffle of them)."""
    from scipy.stats import hypergeom

    from tests.test_sample_world import SAMPLES, assert_fits

    state = world_point(players, seed, steps)
    assert any(state.banked), "a point with banked cards"
    (decision,) = state.pending
    obs = GAME.observe(state, decision.seat)
    unseen = Counter(state.deck + state.removed)
    total, removed = sum(unseen.values()), len(state.removed)
    kind, copies = unseen.most_common(1)[0]
    rng, tops, among = Chance(17), Counter(), Counter()
    for _ in range(SAMPLES):
        world = GAME.world_from_observation(state.config, decision.seat, obs, rng)
        tops[world.deck[-1]] += 1
        among[world.removed.count(kind)] += 1
    assert_fits(tops, {card: n / total for card, n in unseen.items()}, SAMPLES)
    law = hypergeom(total, copies, removed)
    assert_fits(among, {k: law.pmf(k) for k in range(copies + 1)}, SAMPLES)


def test_world_from_an_inconsistent_observation_is_refused():
    state = world_point(2, 8, 40)
    obs = GAME.observe(state, state.pending[0].seat)
    obs.table[0].banked.extend([pb.Card(colour=pb.SHOOTING_STAR, value=1)] * 2)  # one star 1 only
    with pytest.raises(ValueError, match="more copies"):
        GAME.world_from_observation(state.config, 0, obs, Chance(1))
    obs = GAME.observe(state, state.pending[0].seat)
    obs.unseen_by_value[0] += 1
    with pytest.raises(ValueError, match="unseen counts"):
        GAME.world_from_observation(state.config, 0, obs, Chance(1))


def test_a_final_round_seat_with_nothing_to_bank_keeps_its_score_in_the_event():
    """Every bank event carries the seat's score; the final round's "nothing to bank" read 0,
    so a bot tracking scores from events reset the seat (version 1.2)."""
    state = GAME.new_match(GAME.config(2), 3)
    state.banked[0] = [Card(pb.RED, 4), Card(pb.BLUE, 5)]
    state.scores[0] = 9
    state.face_up = [[], []]
    state.deck = [Card(pb.RED, 0)]  # the last card
    state.turn_seat = 1
    GAME.refresh(state)
    start = len(state.log)
    GAME.apply(state, {1: "draw"})
    (event,) = [e for _, e in state.log.since(0, start) if e.kind == "bank" and e.seat == 0]
    assert event.text == "has nothing to bank" and (event.detail.score, event.detail.to_seat) == (9, -1)


def test_the_setup_start_final_and_end_events_carry_what_their_text_says():
    """Version 1.3: these four had no detail, so a bot tracking from details missed how many
    cards are out of the game, who goes first, who opens the final round and the final scores
    (an outside probe)."""
    state = GAME.new_match(GAME.config(3), 5)
    setup, start = state.log.events[:2]
    assert (setup.kind, start.kind) == ("setup", "start")
    assert (setup.detail.removed, setup.detail.deck, setup.detail.to_seat) == (REMOVED[3], len(state.deck), -1)
    assert setup.text.endswith(f"removes {REMOVED[3]} face down: {len(state.deck)} to draw")
    assert start.detail.seat == state.turn_seat and start.text == f"seat {state.turn_seat} goes first"
    rng = Chance(2)
    while state.pending:
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    (final,) = [e for e in state.log.events if e.kind == "final"]
    assert final.text.endswith(f"(seat {final.detail.seat} first)")
    (end,) = [e for e in state.log.events if e.kind == "end"]
    assert list(end.detail.scores) == state.scores == list(GAME.score(state).scores)
