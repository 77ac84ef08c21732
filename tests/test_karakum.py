"""Karakum: every rule of shared/rules/karakum.md and its rulings (NOTES.md §4.9), pinned."""

from __future__ import annotations

import itertools
import pickle
from collections import Counter
from math import comb

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR
from arena.games.karakum import GAME, Camel, KarakumState, camel_cost, payments, score_of, units
from arena.games.karakum.game import (
    BLIND,
    GOLD,
    GOOD_NAMES,
    GOODS,
    REMOVED,
    TYPES,
    _charge,
    _HistoryFold,
    counts_of,
    full_camels,
    full_resources,
    payment_token,
)
from arena.games.v1 import karakum_pb2 as pb
from arena.runner import play_match
from bots.registry import make_bot
from tests.contract import assert_same_view, every_viewer, observation_bytes, playout_digest

J, S, SP, H, P = pb.JEWELRY, pb.SILK, pb.SPICES, pb.HONEY, pb.PAPER
BLUE, PURPLE, RED, ORANGE, GREEN = J, S, SP, H, P


def cam(colour: int, number: int) -> Camel:
    return Camel(colour, number)


def hand(**cards: int) -> list[int]:
    names = {"jewelry": J, "silk": S, "spices": SP, "honey": H, "paper": P, "gold": GOLD}
    out = [0] * 7
    for name, n in cards.items():
        out[names[name]] = n
    return out


def deal(players=2, start=0, camels=None, resources=None) -> KarakumState:
    """A new match with chosen orders (top first) and start seat."""
    orders: dict[str, list[list[object]]] = {}
    if camels is not None:
        rest = [c for c in full_camels() if c not in camels]
        orders["camels"] = [[*camels, *rest]]
    if resources is not None:
        left = Counter(full_resources())
        left.subtract(resources)
        orders["resources"] = [[*resources, *sorted(left.elements())]]
    chance = PresetChance(7, orders=orders, picks={"start": [start]})
    return GAME.new_match(GAME.config(players), chance=chance)


def position(
    players=2,
    hands=None,
    face_up=None,
    deck=None,
    discard=None,
    market=None,
    camel_deck=None,
    caravans=None,
    outside=None,
    turn=0,
) -> KarakumState:
    """A chosen position, edited into a fresh match (deck lists are top first)."""
    state = deal(players, start=turn)
    if hands is not None:
        for seat, cards in hands.items():
            state.hands[seat] = list(cards)
    if face_up is not None:
        state.face_up = list(face_up)
    if deck is not None:
        state.deck = list(deck)[::-1]
    if discard is not None:
        state.discard = list(discard)
    if market is not None:
        state.market = list(market)
    if camel_deck is not None:
        state.camel_deck = list(camel_deck)[::-1]
    for seat, row in (caravans or {}).items():
        state.caravans[seat] = list(row)
    for seat, row in (outside or {}).items():
        state.outside[seat] = list(row)
    GAME.refresh(state)
    return state


def ids(state: KarakumState) -> tuple[str, ...]:
    (decision,) = state.pending
    return decision.option_ids


def kind(state: KarakumState) -> str:
    return state.pending[0].kind


def act(state: KarakumState, *choices: str) -> None:
    for choice in choices:
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: choice})


def playout(players: int, seed: int, check=None) -> KarakumState:
    """A seeded random playout (uniform legal choices), ``check`` called at every step."""
    state = GAME.new_match(GAME.config(players), seed)
    rng = Chance(seed + 99)
    while state.pending:
        if check:
            check(state)
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: decision.options[rng.below(len(decision.options), "t")].id})
    if check:
        check(state)
    return state


MARKET = [cam(GREEN, 3), cam(BLUE, 2), cam(PURPLE, 1), cam(RED, 5), cam(ORANGE, 7)]


# -- components and setup -------------------------------------------------------------------


def test_components():
    # Rules :23-24: 71 resources (13 per good, 6 Gold); 35 camels = 5 colours x 1-7 (ruling 1).
    resources = Counter(full_resources())
    assert len(full_resources()) == 71
    assert [resources[g] for g in GOODS] == [13] * 5 and resources[GOLD] == 6
    camels = full_camels()
    assert len(camels) == len(set(camels)) == 35
    assert Counter(c.colour for c in camels) == dict.fromkeys(GOODS, 7)
    assert Counter(c.number for c in camels) == {n: 5 for n in range(1, 8)}


@pytest.mark.parametrize(("players", "removed"), [(2, 12), (3, 8), (4, 0)])
def test_camels_removed_by_player_count(players, removed):
    # NOTES rule vector 2 (rules :85-88): 12 / 8 / 0 removed; 5 revealed; the rest is the deck.
    order = [*MARKET[::-1], *[c for c in full_camels() if c not in MARKET]]
    state = deal(players, camels=order)
    assert REMOVED[players] == removed
    assert len(state.removed) == removed
    assert state.removed == order[35 - removed :]
    assert state.market == MARKET  # revealed one by one into position 0 (ruling 5)
    assert len(state.camel_deck) == 35 - removed - 5
    assert state.camel_deck[::-1] == order[5 : 35 - removed]
    obs = GAME.observe(state, 0)
    assert obs.camel_deck_size == 30 - removed and obs.camels_removed == removed
    assert len(obs.camels_unseen) == 30


def test_deal_five_each_and_five_face_up():
    # Rules :94-98: 5 per seat from seat 0 up, then 5 face up; the rest is the deck.
    top = [J, J, S, S, GOLD, H, H, H, P, SP, GOLD, GOLD, J, P, P]
    state = deal(2, resources=top)
    assert state.hands[0] == hand(jewelry=2, silk=2, gold=1)
    assert state.hands[1] == hand(honey=3, paper=1, spices=1)
    assert state.face_up == hand(gold=2, jewelry=1, paper=2)
    assert len(state.deck) == 71 - 15
    assert sum(map(sum, state.hands)) + sum(state.face_up) + len(state.deck) == 71


@pytest.mark.parametrize("start", [0, 1, 2])
def test_the_start_player_is_picked(start):
    # Ruling 11: "youngest" is a seeded random seat.
    state = deal(3, start=start)
    assert state.turn_seat == start and state.pending[0].seat == start and kind(state) == "turn"


@pytest.mark.parametrize(("players", "ok"), [(1, False), (2, True), (4, True), (5, False)])
def test_player_counts(players, ok):
    if ok:
        GAME.config(players)
    else:
        with pytest.raises(ConfigError, match="2-4 players"):
            GAME.config(players)


# -- gather ---------------------------------------------------------------------------------


def test_gather_two_cards_face_up_refilled_at_once():
    # Rules :116-129, ruling 3: the taken card is replaced before the second pick.
    state = position(hands={0: hand()}, face_up=hand(silk=1, gold=1, paper=3), deck=[S, H, J])
    assert ids(state) == ("take:silk", "take:paper", "take:gold", "draw")
    act(state, "take:silk")
    assert state.face_up == hand(silk=1, gold=1, paper=3)  # refilled with the deck's silk
    assert kind(state) == "second" and ids(state) == ("take:silk", "take:paper", "draw")
    act(state, "take:silk")
    assert state.hands[0] == hand(silk=2) and state.face_up == hand(honey=1, gold=1, paper=3)
    assert state.known[0] == hand(silk=2)
    assert state.turn_seat == 1 and kind(state) == "turn"


def test_face_up_gold_is_the_only_card():
    # Rules :122-123, ruling 2.
    state = position(hands={0: hand()}, face_up=hand(gold=2, paper=3), deck=[J, H])
    act(state, "take:gold")
    assert state.hands[0] == hand(gold=1) and state.face_up == hand(gold=1, paper=3, jewelry=1)
    assert state.turn_seat == 1 and kind(state) == "turn"


def test_blind_gold_still_allows_a_second_card_but_not_a_face_up_gold():
    # Rules :125-127.
    state = position(hands={0: hand()}, face_up=hand(gold=2, paper=3), deck=[GOLD, H])
    act(state, "draw")
    assert state.hands[0] == hand(gold=1) and state.known[0] == hand()
    assert kind(state) == "second" and ids(state) == ("take:paper", "draw")
    act(state, "draw")
    assert state.hands[0] == hand(gold=1, honey=1) and state.turn_seat == 1


def test_after_a_face_up_good_the_second_pick_is_never_a_face_up_gold():
    # NOTES 3.1, ruling 2.
    state = position(hands={0: hand()}, face_up=hand(gold=4, paper=1), deck=[GOLD, H])
    act(state, "take:paper")
    assert state.face_up == hand(gold=5)
    assert ids(state) == ("draw",)


def test_empty_deck_is_reshuffled_from_the_discard():
    # Rules :131-132, ruling 8: when a card is needed, the discard becomes the deck (label
    # "reshuffle").
    state = position(hands={0: hand()}, face_up=hand(paper=5), deck=[], discard=hand(silk=2, honey=1))
    state.chance = PresetChance(orders={"reshuffle": [[H, S, S]]})
    act(state, "draw")
    assert state.hands[0] == hand(honey=1) and state.deck == [S, S][::-1]
    assert state.discard == hand()
    events = [e for e in state.log.events if e.kind == "reshuffle"]
    assert len(events) == 1 and list(events[0].detail.cards) == hand(silk=2, honey=1)


def test_no_card_anywhere_means_no_draw_and_a_short_gather():
    # Ruling 8: no deck, no discard: "draw" is not offered; the second pick is skipped.
    state = position(hands={0: hand(), 1: hand(silk=1)}, face_up=hand(paper=1), deck=[], discard=hand(), market=MARKET)
    assert ids(state) == ("take:paper",)
    act(state, "take:paper")
    assert state.hands[0] == hand(paper=1) and state.face_up == hand()
    assert state.turn_seat == 1


def test_a_short_face_up_row_is_filled_again_after_the_next_payment():
    # Ruling 8: the row went short with no deck and no discard; the payment refills the discard,
    # which is shuffled into a deck at once and replaces the missing face-up cards (2 of 4 here),
    # before the free resource of a value-1 camel (ruling 7). The newest camel is taxed: 2 silk.
    state = position(
        hands={0: hand(silk=2, honey=1), 1: hand(paper=1)},
        face_up=hand(paper=1),
        deck=[],
        discard=hand(),
        market=[cam(PURPLE, 1), cam(RED, 6), cam(ORANGE, 6), cam(GREEN, 6), cam(BLUE, 6)],
        camel_deck=[cam(RED, 2)],
    )
    state.chance = PresetChance(orders={"reshuffle": [[S, S]]})
    act(state, "buy:purple1")
    assert ids(state) == ("pay:silk2",)
    act(state, "pay:silk2")
    assert state.face_up == hand(paper=1, silk=2)
    assert state.deck == [] and state.discard == hand()
    kinds = [e.kind for e in state.log.events]
    assert kinds[-5:] == ["buy", "reshuffle", "reveal", "reveal", "market"]
    assert kind(state) == "free" and ids(state) == ("take:silk", "take:paper")


def test_a_stuck_player_is_skipped_and_the_game_ends_when_nobody_can_act():
    # Ruling 9.
    state = position(
        hands={0: hand(paper=1), 1: hand(), 2: hand(silk=1)},
        players=3,
        face_up=hand(paper=1),
        deck=[],
        discard=hand(),
        market=[cam(PURPLE, 2), cam(BLUE, 6), cam(RED, 6), cam(ORANGE, 6), cam(GREEN, 6)],
    )
    act(state, "take:paper")  # seat 0; nothing left: seat 1 cannot act, seat 2 cannot either
    assert not state.pending and state.phase == pb.PHASE_OVER
    assert GAME.result(state) is not None


# -- buy ------------------------------------------------------------------------------------


def test_text_example_two_jewelry_pay_for_one_silk():
    # Rules :144-147, NOTES text example 1: two Jewelry cards = one Silk card.
    assert payments(hand(jewelry=2), S, 1) == [hand(jewelry=2)]
    market = [cam(GREEN, 3), cam(BLUE, 2), cam(PURPLE, 1), cam(RED, 5), cam(ORANGE, 7)]
    state = position(hands={0: hand(jewelry=2)}, market=market, camel_deck=[cam(RED, 1)])
    assert "buy:purple1" in ids(state)
    act(state, "buy:purple1")
    assert kind(state) == "pay" and ids(state) == ("pay:jewelry2",)
    act(state, "pay:jewelry2")
    assert state.hands[0] == hand() and state.discard == hand(jewelry=2)
    assert state.caravans[0] == [cam(PURPLE, 1)]


def test_text_example_green_closest_taxes_every_green_camel():
    # Rules :201-202, NOTES text example 2: closest camel green -> green camels cost +1 paper.
    market = [cam(GREEN, 3), cam(BLUE, 2), cam(GREEN, 5), cam(RED, 5), cam(ORANGE, 7)]
    state = position(hands={0: hand(paper=5)}, market=market)
    obs = GAME.observe(state, 0)
    assert obs.taxed == pb.PAPER
    assert list(obs.market_cost) == [4, 2, 6, 5, 7]
    assert [camel_cost(c, GREEN) for c in market] == [4, 2, 6, 5, 7]
    assert "buy:green3" in ids(state) and "buy:green5" not in ids(state)  # 5 paper < 6
    act(state, "buy:green3")
    assert ids(state) == ("pay:paper4",)


def test_payment_units_and_every_distinct_payment():
    # Ruling 4: a unit is the camel's good, a Gold, or two identical other goods; Gold is never
    # half of a pair.
    cards = hand(silk=2, gold=1, jewelry=3, honey=1)
    assert units(cards, S) == 2 + 1 + 1
    assert units(cards, H) == 1 + 1 + 1 + 1
    options = {payment_token(p) for p in payments(cards, S, 3)}
    assert options == {"silk2+gold1", "jewelry2+silk2", "jewelry2+silk1+gold1"}
    assert payments(hand(gold=1, honey=1), S, 2) == []
    assert payments(hand(gold=2), S, 2) == [hand(gold=2)]


def test_only_affordable_camels_are_offered():
    market = [cam(GREEN, 3), cam(BLUE, 2), cam(PURPLE, 1), cam(RED, 5), cam(ORANGE, 7)]
    state = position(hands={0: hand(jewelry=2, gold=1)}, market=market, face_up=hand(honey=5))
    buys = [i for i in ids(state) if i.startswith("buy:")]
    assert buys == ["buy:blue2", "buy:purple1"]


def test_market_shifts_away_from_the_deck_and_reveals_at_position_zero():
    # Rules :188-191, ruling 5.
    market = [cam(GREEN, 3), cam(BLUE, 2), cam(PURPLE, 1), cam(RED, 5), cam(ORANGE, 7)]
    state = position(hands={0: hand(spices=5)}, market=market, camel_deck=[cam(BLUE, 4), cam(RED, 1)])
    act(state, "buy:red5", "pay:spices5")
    assert state.market == [cam(BLUE, 4), cam(GREEN, 3), cam(BLUE, 2), cam(PURPLE, 1), cam(ORANGE, 7)]
    assert GAME.taxed(state) == BLUE
    assert state.camel_deck == [cam(RED, 1)]


# -- caravan --------------------------------------------------------------------------------


def test_caravan_matching_by_colour_or_number_and_half_points_outside():
    # Rules :151-166; NOTES rule vector 1: a non-matching camel scores floor(n/2).
    market = [cam(GREEN, 3), cam(BLUE, 2), cam(PURPLE, 6), cam(RED, 5), cam(ORANGE, 7)]
    state = position(
        hands={0: hand(silk=6, honey=7, spices=5)},
        market=market,
        caravans={0: [cam(RED, 4)]},
        camel_deck=[cam(BLUE, 1), cam(BLUE, 5), cam(BLUE, 6)],
    )
    act(state, "buy:purple6", "pay:silk6")  # neither red nor 4: outside
    assert state.outside[0] == [cam(PURPLE, 6)] and state.caravans[0] == [cam(RED, 4)]
    assert GAME.observe(state, 0).seats[0].score == 4 + 3
    act(state, "draw")
    act(state, "draw")  # seat 1's turn (deck cards)
    act(state, "buy:orange7", "pay:honey7")  # neither: outside, 7 // 2 = 3
    assert score_of(state.caravans[0], state.outside[0]) == 4 + 3 + 3
    assert [c.number // 2 for c in state.outside[0]] == [3, 3]


def test_the_first_camel_always_joins():
    # Rules :153; the Caravan Master has no colour or number.
    state = position(hands={0: hand(jewelry=2)}, market=MARKET)
    act(state, "buy:blue2", "pay:jewelry2")
    assert state.caravans[0] == [cam(BLUE, 2)] and state.outside[0] == []


def test_an_outside_camel_that_fits_later_moves_in_at_once():
    # Rules :168-169, ruling 6: a single fitting camel moves without a decision.
    market = [cam(GREEN, 3), cam(BLUE, 2), cam(PURPLE, 6), cam(RED, 5), cam(ORANGE, 7)]
    state = position(
        hands={0: hand(jewelry=2)},
        market=market,
        caravans={0: [cam(RED, 2)]},
        outside={0: [cam(BLUE, 6), cam(GREEN, 4)]},
    )
    act(state, "buy:blue2", "pay:jewelry2")
    # blue2 joins (number 2); then blue6 fits (blue); green4 does not fit blue6.
    assert state.caravans[0] == [cam(RED, 2), cam(BLUE, 2), cam(BLUE, 6)]
    assert state.outside[0] == [cam(GREEN, 4)]
    assert [e.kind for e in state.log.events[-3:]] == ["buy", "rejoin", "market"]


def test_several_fitting_outside_camels_the_owner_chooses():
    # Ruling 6: decision "rejoin".
    market = [cam(GREEN, 3), cam(BLUE, 2), cam(PURPLE, 6), cam(RED, 5), cam(ORANGE, 7)]
    state = position(
        hands={0: hand(jewelry=2)},
        market=market,
        caravans={0: [cam(RED, 2)]},
        outside={0: [cam(BLUE, 6), cam(GREEN, 2), cam(GREEN, 6)]},
        camel_deck=[cam(ORANGE, 1)],
    )
    act(state, "buy:blue2", "pay:jewelry2")
    assert kind(state) == "rejoin" and ids(state) == ("rejoin:blue6", "rejoin:green2")
    assert [c.number for c in GAME.observe(state, 0).rejoin] == [6, 2]
    act(state, "rejoin:green2")  # then green6 fits green2, then blue6 fits green6 by number
    assert state.caravans[0] == [cam(RED, 2), cam(BLUE, 2), cam(GREEN, 2), cam(GREEN, 6), cam(BLUE, 6)]
    assert state.outside[0] == [] and state.market[0] == cam(ORANGE, 1)
    assert state.turn_seat == 1


def test_value_one_camel_gives_a_free_resource_even_a_face_up_gold():
    # Rules :173-182, ruling 7.
    market = [cam(GREEN, 3), cam(BLUE, 2), cam(PURPLE, 1), cam(RED, 5), cam(ORANGE, 7)]
    state = position(
        hands={0: hand(silk=1)}, market=market, face_up=hand(gold=2, honey=3), deck=[P], camel_deck=[cam(RED, 1)]
    )
    act(state, "buy:purple1", "pay:silk1")
    assert kind(state) == "free" and ids(state) == ("take:honey", "take:gold", "draw")
    act(state, "take:gold")
    assert state.hands[0] == hand(gold=1) and state.face_up == hand(gold=1, honey=3, paper=1)
    assert state.turn_seat == 1


# -- end and scoring ------------------------------------------------------------------------


def test_the_game_ends_when_the_market_cannot_be_refilled():
    # Rules :206-211, ruling 7: no refill, no free resource; scoring at once.
    market = [cam(GREEN, 3), cam(BLUE, 2), cam(PURPLE, 1), cam(RED, 5), cam(ORANGE, 7)]
    state = position(
        hands={0: hand(silk=1), 1: hand()},
        market=market,
        camel_deck=[],
        caravans={0: [cam(PURPLE, 4)], 1: [cam(RED, 6), cam(RED, 2)]},
        outside={1: [cam(BLUE, 5)]},
    )
    act(state, "buy:purple1", "pay:silk1")
    assert not state.pending and state.phase == pb.PHASE_OVER
    result = GAME.result(state)
    assert result.scores == (5, 8 + 2)
    assert result.ranks == (2, 1)
    assert list(state.log.events[-1].detail.scores) == [5, 10]


@pytest.mark.parametrize(("players", "buys"), [(2, 19), (3, 23), (4, 31)])
def test_number_of_buys_per_player_count(players, buys):
    # 35 - removed camels in play: 5 in the market, the rest refill; one more buy ends the game.
    for seed in range(3):
        state = playout(players, seed)
        assert sum(e.kind == "buy" for e in state.log.events) == buys
        assert len(state.market) == 4 and not state.camel_deck


def test_ties_break_on_caravan_length_then_share():
    # Rules :225-227, ruling 10.
    state = position(caravans={0: [cam(RED, 5)], 1: [cam(BLUE, 2), cam(BLUE, 3)]})
    state.phase = pb.PHASE_OVER
    GAME.refresh(state)
    assert GAME.result(state).scores == (5, 5) and GAME.result(state).ranks == (2, 1)
    state.caravans[1] = [cam(BLUE, 5)]
    assert GAME.result(state).ranks == (1, 1)
    state.caravans[1] = [cam(BLUE, 4)]
    state.outside[1] = [cam(BLUE, 3)]
    assert GAME.result(state).scores == (5, 5) and GAME.result(state).ranks == (1, 1)


# -- hidden information -----------------------------------------------------------------------


def visible_cards_named(state: KarakumState, seat: int) -> list[tuple[str, int]]:
    """(kind, seat) of every visible event that names a card drawn blind or dealt."""
    return [(e.kind, e.seat) for _, e in state.log.since(seat, 0) if e.kind in ("deal", "drawn")]


def test_no_event_names_a_card_another_seat_drew_blind():
    state = playout(3, 5)
    for seat in range(3):
        named = visible_cards_named(state, seat)
        assert named and all(who == seat for _, who in named)
        for _, e in state.log.since(seat, 0):
            if e.kind == "draw":
                assert e.detail.good == pb.GOOD_UNSPECIFIED
                # nor its text: every seat reads the public draw
                assert not any(name in e.text for name in GOOD_NAMES.values()), e.text


def test_states_differing_in_hidden_cards_look_the_same():
    # Seat 0 cannot tell: seat 1's blind cards, the deck's order and make-up, the camel deck and
    # the removed camels.
    a = GAME.new_match(GAME.config(2), seed=4)
    act(a, "draw", "draw") if a.turn_seat == 0 else act(a, "draw", "draw", "draw", "draw")
    b = pickle.loads(pickle.dumps(a))
    unknown = [t for t in TYPES if b.hands[1][t] > b.known[1][t]]
    swap_in = next(t for t in b.deck if t != unknown[0])
    b.hands[1][unknown[0]] -= 1
    b.hands[1][swap_in] += 1
    b.deck.remove(swap_in)
    b.deck.insert(0, unknown[0])
    b.deck.reverse()
    b.camel_deck.reverse()
    b.camel_deck[0], b.removed[0] = b.removed[0], b.camel_deck[0]
    GAME.refresh(b)
    assert a.hands[1] != b.hands[1] and a.deck != b.deck
    assert_same_view(GAME, a, b, 0)
    assert observation_bytes(GAME, a, 1) != observation_bytes(GAME, b, 1)
    assert observation_bytes(GAME, a, SPECTATOR) != observation_bytes(GAME, b, SPECTATOR)


def test_known_cards_are_public_and_spent_first():
    # Ruling 12: a face-up pick is known until spent; a payment spends known cards first.
    state = position(
        hands={0: hand(silk=2, jewelry=1)}, face_up=hand(silk=1, paper=4), deck=[H, P, P, P, P], market=MARKET
    )
    act(state, "take:silk", "draw")
    assert state.known[0] == hand(silk=1) and GAME.observe(state, 1).seats[0].known == hand(silk=1)
    act(state, "draw", "draw")  # seat 1
    act(state, "buy:purple1", "pay:silk1")
    assert state.known[0] == hand()
    assert list(GAME.observe(state, 1).seats[0].known) == hand()


# -- sample_world -------------------------------------------------------------------------------


def resource_totals(state: KarakumState) -> list[int]:
    total = counts_of(state.deck)
    for t in TYPES:
        total[t] += state.face_up[t] + state.discard[t] + sum(h[t] for h in state.hands)
    return total


FULL = counts_of(full_resources())


def check_world(state: KarakumState, seat: int, seed: int) -> KarakumState:
    before = pickle.dumps(state)
    world = GAME.sample_world(state, seat, Chance(seed))
    assert pickle.dumps(state) == before, "sample_world changed the state"
    assert observation_bytes(GAME, world, seat) == observation_bytes(GAME, state, seat)
    mine = [(d.kind, d.option_ids) for d in world.pending if d.seat == seat]
    assert mine == [(d.kind, d.option_ids) for d in state.pending if d.seat == seat]
    assert resource_totals(world) == FULL
    assert sorted([*world.camel_deck, *world.removed]) == sorted([*state.camel_deck, *state.removed])
    for s in range(state.players):
        assert all(world.hands[s][t] >= state.known[s][t] for t in TYPES)
    assert [e for e in world.log.events] == [e for e in state.log.events if e.visible_to(seat)]
    return world


def test_sample_world_keeps_what_the_seat_knows_and_plays_on():
    rng = Chance(2024)
    checked = 0
    for players in (2, 3, 4):
        for seed in range(6):
            state = GAME.new_match(GAME.config(players), seed)
            while state.pending:
                if rng.below(25, "when") == 0:
                    for seat in range(players):
                        world = check_world(state, seat, seed * 10 + seat)
                        checked += 1
                        if checked % 4 == 0:
                            play = Chance(seat)
                            while world.pending:
                                (d,) = world.pending
                                GAME.apply(world, {d.seat: d.options[play.below(len(d.options), "w")].id})
                            assert GAME.result(world) is not None
                (decision,) = state.pending
                GAME.apply(state, {decision.seat: decision.options[rng.below(len(decision.options), "t")].id})
    assert checked > 100


def test_sample_world_after_many_reshuffles():
    # Late in 4-player games the resource deck has been re-formed several times.
    for seed in range(3):
        state = GAME.new_match(GAME.config(4), seed)
        rng = Chance(seed)
        while state.pending and sum(e.kind == "reshuffle" for e in state.log.events) < 3:
            (decision,) = state.pending
            GAME.apply(state, {decision.seat: decision.options[rng.below(len(decision.options), "t")].id})
        for seat in range(4):
            check_world(state, seat, seat)


def _world_of_seat_0(state: KarakumState, chance: Chance) -> KarakumState:
    return GAME.world_from_observation(state.config, 0, GAME.observe(state, 0), chance)


def _sampled_world_of_seat_0(state: KarakumState, chance: Chance) -> KarakumState:
    return GAME.sample_world(state, 0, chance)


@pytest.mark.parametrize("world_of", [_sampled_world_of_seat_0, _world_of_seat_0])
def test_sample_world_deals_the_hidden_cards_uniformly(world_of):
    # At the start, seat 1's 5 cards are 5 of the 61 cards seat 0 has not seen: the number of
    # Golds among them is hypergeometric (a world from the observation alike).
    state = GAME.new_match(GAME.config(2), seed=8)
    pool = 71 - 5 - 5
    golds = 6 - state.hands[0][GOLD] - state.face_up[GOLD]
    chance = Chance(99)
    n = 3000
    seen = Counter(min(world_of(state, chance).hands[1][GOLD], 2) for _ in range(n))
    pmf = [comb(golds, k) * comb(pool - golds, 5 - k) / comb(pool, 5) for k in range(2)]
    expected = [n * pmf[0], n * pmf[1], n * (1 - pmf[0] - pmf[1])]
    assert chisquare([seen[0], seen[1], seen[2]], expected).pvalue > 0.001
    # And the deck: its top card is any unseen card, equally likely by card.
    tops = Counter(world_of(state, chance).deck[-1] for _ in range(n))
    unseen = [FULL[t] - state.hands[0][t] - state.face_up[t] for t in TYPES]
    assert chisquare([tops[t] for t in TYPES], [n * u / pool for u in unseen]).pvalue > 0.001


def test_sample_world_charges_paid_blind_cards_to_a_deck_cycle_that_had_them():
    # Seat 1 pays 3 spices it drew blind; in every world of seat 0 the remaining cards of each
    # deck cycle can be dealt (no cycle gives more spices than it had).
    for seed in range(20):
        state = playout_until(4, seed, lambda s: sum(e.kind == "reshuffle" for e in s.log.events) >= 2)
        for seat in range(4):
            check_world(state, seat, seed)


def test_a_charging_that_needs_two_earlier_charges_moved_is_found():
    # Ruling 12: hand 1 paid 12 blind cards and drew 10 from cycle 0, 2 from cycle 1 (one before
    # its third payment), so cycle 1 (a Silk, a Honey) takes the last Honey and a Silk of the
    # third payment. Greedy put the third payment in cycle 0 and, blocked by two limits (cycle
    # 0's draws, cycle 1's Honey), one-move augmenting paths found nothing: pooled.
    only_0, before_1, cycle_1 = [6], [10, 0], [10, 1]
    excess = [
        *((1, t, only_0) for t in (J, J, H, P, P)),
        *((1, t, before_1) for t in (H, GOLD, GOLD)),
        *((1, t, cycle_1) for t in (S, S, H)),
        (1, H, [10, 2]),
    ]
    cycles = [hand(jewelry=2, silk=2, honey=3, paper=2, gold=2), hand(silk=1, honey=1)]
    blind = [[11, 2], [10, 2], [0, 0]]
    assert _charge(excess, cycles, blind)
    assert cycles == [hand(honey=0, silk=1), hand()] and blind == [[11, 2], [0, 0], [0, 0]]


def test_a_reading_the_old_search_pooled_keeps_its_deck_cycles():
    # Ruling 12: seat 0 drew one card blind from cycle 1, of which seat 2 has located all but
    # one Spices: every world of seat 2 gives seat 0 that Spices (pooled, any unseen card).
    state = GAME.new_match(GAME.config(3), 22)
    rng = Chance(22)
    for _ in range(119):
        (d,) = state.pending
        GAME.apply(state, {d.seat: d.options[rng.below(len(d.options), "t")].id})
    obs = GAME.observe(state, 2)
    assert [list(c.cards) for c in obs.cycles] == [hand(), hand(spices=1), [0, 6, 12, 8, 10, 8, 5]]
    assert [list(c.blind) for c in obs.cycles] == [[0, 0, 0], [1, 0, 0], [0, 0, 0]]
    for i in range(10):
        world = GAME.sample_world(state, 2, Chance(i))
        assert world.hands[0][SP] - world.known[0][SP] == 1


def test_a_reading_the_search_once_ran_out_on_keeps_its_deck_cycles():
    # Version 5: 3 heuristic bots, seed 0, the 133rd decision (seat 0's). Version 4's search ran
    # out of steps here and pooled every hand's blind cards into the last cycle; the search now
    # remembers the positions it found dead, and reads the cycles (the same reading as before in
    # every position version 4 read).
    readings = []
    taken = [0]

    def at_132(state, _entry):
        taken[0] += 1
        if taken[0] == 132:
            (d,) = state.pending
            seen = GAME.observe(state, d.seat)
            readings.append((d.seat, [list(c.cards) for c in seen.cycles], [list(c.blind) for c in seen.cycles]))

    play_match(GAME, GAME.config(3), 0, [make_bot("heuristic", "karakum") for _ in range(3)], on_decision=at_132)
    assert readings == [
        (
            0,
            [hand(gold=1), hand(), hand(jewelry=1, paper=1), hand(jewelry=3, paper=2)],
            [[0, 0, 1], [0, 0, 0], [0, 2, 0], [0, 4, 0]],
        )
    ]


def test_world_from_observation_deals_the_unseen_pool_to_the_hidden_places():
    checked = 0
    for players in (2, 4):
        for seed in range(3):
            for state in _every(players, seed, 23):
                for seat in range(players):
                    seen = GAME.observe(state, seat)
                    world = GAME.world_from_observation(state.config, seat, seen, Chance(checked))
                    checked += 1
                    assert world.hands[seat] == state.hands[seat] and world.known == state.known
                    assert [sum(h) for h in world.hands] == [sum(h) for h in state.hands]
                    assert len(world.deck) == len(state.deck) and resource_totals(world) == FULL
                    hidden = counts_of(world.deck)  # the deck and the others' blind cards: `unseen`
                    for s in range(players):
                        if s != seat:
                            hidden = [hidden[t] + world.hands[s][t] - world.known[s][t] for t in range(7)]
                    assert hidden == list(seen.unseen)
                    assert (len(world.camel_deck), len(world.removed)) == (len(state.camel_deck), len(state.removed))
                    assert sorted([*world.camel_deck, *world.removed]) == sorted([*state.camel_deck, *state.removed])
                    check_world(world, seat, checked)  # its history serves sample_world too
    assert checked > 60


def test_world_from_observation_lets_another_seat_pay_for_the_camel_it_chose():
    # Seat 1 chose the red 5 (taxed: 6 spices); seat 0 sees only that it could afford it.
    state = position(
        hands={0: hand(jewelry=2), 1: hand(spices=4, honey=2, paper=2)},
        market=[cam(RED, 1), cam(RED, 5), *MARKET[1:4]],
        turn=1,
    )
    act(state, "buy:red5")
    assert state.cost == 6 and kind(state) == "pay"
    for i in range(200):
        world = GAME.world_from_observation(state.config, 0, GAME.observe(state, 0), Chance(i))
        assert units(world.hands[1], RED) >= 6 and world.pending[0].options
        assert sum(world.hands[1]) == 8 and world.hands[0] == state.hands[0]


def _every(players: int, seed: int, every: int):
    state = GAME.new_match(GAME.config(players), seed)
    rng = Chance(seed)
    while state.pending:
        if state.steps % every == 5:
            yield state
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: decision.options[rng.below(len(decision.options), "t")].id})


def playout_until(players: int, seed: int, stop) -> KarakumState:
    state = GAME.new_match(GAME.config(players), seed)
    rng = Chance(seed)
    while state.pending and not stop(state):
        (decision,) = state.pending
        GAME.apply(state, {decision.seat: decision.options[rng.below(len(decision.options), "t")].id})
    return state


# -- playout invariants -------------------------------------------------------------------------

BOUND = {2: 19, 3: 23, 4: 31}


def test_playout_invariants_over_2000_games():
    # Components conserved, scores as the rules say, every game ends (at most BOUND buys; at most
    # 72 turns between two buys).
    games = {2: 1000, 3: 600, 4: 400}
    ranks_first = Counter()
    for players, count in games.items():
        for seed in range(count):
            state = GAME.new_match(GAME.config(players), seed)
            rng = Chance(seed)
            last_buy_turn = 0
            while state.pending:
                (decision,) = state.pending
                GAME.apply(state, {decision.seat: decision.options[rng.below(len(decision.options), "t")].id})
                if decision.kind == "pay":
                    assert state.turns - last_buy_turn <= 72
                    last_buy_turn = state.turns
                assert state.steps < 32 * 72 * 3
            assert resource_totals(state) == FULL
            camels = [*state.market, *state.camel_deck, *state.removed]
            for s in range(players):
                camels += state.caravans[s] + state.outside[s]
                caravan = state.caravans[s]
                assert all(b.fits(a) for a, b in itertools.pairwise(caravan))
                end = caravan[-1] if caravan else None
                assert not any(c.fits(end) for c in state.outside[s])
            assert sorted(camels) == sorted(full_camels())
            buys = sum(len(state.caravans[s]) + len(state.outside[s]) for s in range(players))
            assert buys == BOUND[players] or state.camel_deck
            result = GAME.result(state)
            assert result.scores == tuple(score_of(state.caravans[s], state.outside[s]) for s in range(players))
            best = max((result.scores[s], len(state.caravans[s])) for s in range(players))
            assert [r == 1 for r in result.ranks] == [
                (result.scores[s], len(state.caravans[s])) == best for s in range(players)
            ]
            ranks_first[players] += 1


# -- bots ---------------------------------------------------------------------------------------


def test_heuristic_bot_plays_legal_options_and_beats_random():
    from arena.runner import play_match

    wins = 0.0
    for match in range(12):
        seat = match % 2
        specs = ["random", "random"]
        specs[seat] = "heuristic"
        record = play_match(GAME, GAME.config(2), 500 + match, [make_bot(s, "karakum") for s in specs])
        ranks = record.result["ranks"]
        wins += (ranks[seat] == 1) / ranks.count(1)
    assert wins >= 10


def test_the_heuristic_takes_a_face_up_gold_only_on_a_free_pick():
    # As its docstring says (it claimed a face-up Gold on a turn whose target was far off; the
    # code never did: an outside rules probe). Its target, honey, is not face up.
    from bots.games.karakum import HeuristicBot

    face_up = ["take:jewelry", "take:spices", "take:gold", "draw"]
    hand = [0] * 7
    assert HeuristicBot._pick(face_up, hand, pb.HONEY, "turn") == "draw"
    assert HeuristicBot._pick(face_up[:3], hand, pb.HONEY, "free") == "take:gold"


def test_sampled_worlds_let_the_buyer_pay():
    """While another seat pays, every sampled world gives it a payment (these playouts had
    worlds whose buyer could not pay before the pooled fallback: a world without a legal
    option, which crashed the search bot)."""
    for seed in (3, 17, 19):
        state = GAME.new_match(GAME.config(2), seed)
        rng = Chance(seed)
        paying = 0
        while state.pending:
            if state.phase == pb.PHASE_PAY:
                paying += 1
                viewer = 1 - state.turn_seat
                for k in range(5):
                    world = GAME.sample_world(state, viewer, Chance(k))
                    assert all(d.options for d in world.pending), (seed, state.steps, k)
                    assert world.hands[state.turn_seat] != [] and sum(world.hands[state.turn_seat]) == sum(
                        state.hands[state.turn_seat]
                    )
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
        assert paying


# -- deck cycles in the observation -----------------------------------------------------------


def _after_reshuffle_and_a_blind_draw(state: KarakumState) -> bool:
    kinds = [e.kind for e in state.log.events]
    if "reshuffle" not in kinds:
        return False
    since = state.log.events[len(kinds) - kinds[::-1].index("reshuffle") :]
    return any(e.kind == "draw" and e.detail.seat == 1 for e in since) and not any(e.kind == "buy" for e in since)


def test_observation_carries_the_deck_cycles_after_a_reshuffle():
    # Ruling 12: the new deck's make-up is public; what seat 0 has not located of it is that
    # make-up minus the cards revealed face up and its own draws since; seat 1's blind draws
    # since then are its blind cards of that cycle.
    state = playout_until(2, 0, _after_reshuffle_and_a_blind_draw)
    obs = GAME.observe(state, 0)
    events = state.log.events
    at = max(i for i, e in enumerate(events) if e.kind == "reshuffle")
    last = list(events[at].detail.cards)
    for e in events[at + 1 :]:
        if e.kind == "reveal" or (e.kind == "drawn" and e.visible_to(0) and e.detail.seat == 0):
            last[e.detail.good] -= 1
    drawn_by_1 = sum(e.kind == "draw" and e.detail.seat == 1 for e in events[at + 1 :])
    assert len(obs.cycles) == 1 + sum(e.kind == "reshuffle" for e in events) == 3
    assert list(obs.cycles[-1].cards) == last
    assert list(obs.cycles[-1].blind) == [0, drawn_by_1] and drawn_by_1 >= 1
    assert sum(obs.cycles[-1].cards) == len(state.deck) + drawn_by_1
    assert [sum(c.cards[t] for c in obs.cycles) for t in range(7)] == list(obs.unseen)
    hidden_1 = sum(state.hands[1]) - sum(state.known[1])
    assert sum(c.blind[1] for c in obs.cycles) == hidden_1
    assert list(GAME.observe(state, SPECTATOR).cycles) == []


def test_worlds_from_the_observation_keep_each_deck_cycle():
    # A good the current cycle no longer has is never dealt into the deck; the old cycle's
    # cards go only to the hands that drew blind from it; the world's observation is the same.
    checked = 0
    for seed in range(6):
        state = playout_until(2, seed, _after_reshuffle_and_a_blind_draw)
        obs = GAME.observe(state, 0)
        cycles = [list(c.cards) for c in obs.cycles]
        drew = [t for t in TYPES if any(c.cards[t] for c in obs.cycles if c.blind[1])]
        for i in range(40):
            world = GAME.world_from_observation(state.config, 0, obs, Chance(i))
            assert observation_bytes(GAME, world, 0) == observation_bytes(GAME, state, 0)
            deck = counts_of(world.deck)
            assert all(deck[t] <= cycles[-1][t] for t in TYPES)
            blind_1 = [world.hands[1][t] - world.known[1][t] for t in range(7)]
            assert all(blind_1[t] == 0 for t in TYPES if t not in drew)
            checked += 1
    assert checked == 240


def test_a_sampled_world_keeps_no_record_of_the_other_hands_real_blind_draws():
    # Ruling 12: the world's history is written from the seat's reading of the cycles: each
    # other hand's blind draws in it are the cards the world dealt it (none paid), never the
    # real ones; the seat's own view is unchanged (tests/test_sample_world.py checks it).
    from arena.games.karakum.game import BLIND

    checked = 0
    for seed in range(6):
        state = GAME.new_match(GAME.config(3), seed)
        rng = Chance(seed)
        while state.pending and state.turns < 24:
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
        for seat in range(3):
            world = GAME.sample_world(state, seat, Chance(seed * 10 + seat))
            for other in range(3):
                if other == seat:
                    continue
                drawn = Counter(t for kind, who, t, _ in world.history if kind == BLIND and who == other)
                blind = Counter({t: world.hands[other][t] - world.known[other][t] for t in TYPES})
                assert drawn == +blind, (seed, seat, other)
                checked += 1
    assert checked == 36


def _fresh(state: KarakumState, seat: int) -> tuple[list[list[int]], list[list[int]], list[tuple[int, int, list[int]]]]:
    fold = _HistoryFold(state.players)
    fold.read(list(state.history), seat)
    return fold.result()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_history_read_on_from_the_last_reading_is_the_history_read_anew(players: int) -> None:
    """Every seat's reading of the history at every position of seeded playouts, carried on
    from its previous reading, equals the whole history read anew; so does a copied position's
    (another history list) and a position whose history was edited in place after a reading
    (a record replaced, the history cut short): those are read anew, not carried on."""
    game = GAME
    for seed in range(3):
        state = game.new_match(game.config(players), seed, None)
        rng = Chance(seed + 11)
        while state.pending:
            for seat in range(players):
                assert _HistoryFold.of(state, seat).result() == _fresh(state, seat)
            game.advance(state, {d.seat: d.options[rng.below(len(d.options), "x")] for d in state.pending})
        copy = game.clone(state)
        assert _HistoryFold.of(copy, 0).result() == _fresh(state, 0)
        # Edited in place after a reading: the same list, other records.
        reading = _HistoryFold.of(state, 1).result()
        blind = next(k for k, r in enumerate(state.history) if r[0] == BLIND and r[1] == 0)
        record, _, card, extra = state.history[blind]
        state.history[blind] = (record, 1, card, extra)  # the draw moved to another hand
        assert _HistoryFold.of(state, 1).result() == _fresh(state, 1) != reading
        del state.history[len(state.history) // 2 :]
        assert _HistoryFold.of(state, 1).result() == _fresh(state, 1)


@pytest.mark.parametrize(
    ("players", "observations", "worlds", "digest"),
    [
        (2, 885, 42, "2d9f7d64ef620ccd7693c7e4c0f658061db839c5036c2241d3e4aa6e99effac8"),
        (3, 1596, 57, "aed931e3f0c293ad3ad8011ef4245d3d1fb9f2060a3791176a57b1241dee0233"),
        (4, 2475, 70, "108b9982d9251a1fb59d48e20bd5763c2d3993725800c8722537e771b357e089"),
    ],
)
def test_observations_and_worlds_are_what_they_were_before_the_history_was_read_on(
    players: int, observations: int, worlds: int, digest: str
) -> None:
    """Every viewer's observation (the spectator's too) at every position of two seeded random
    playouts, and a sampled world every seventh: the same bytes as when every reading replayed
    the whole history (the digest was taken then)."""
    assert playout_digest(GAME, players, every_viewer, world_every=7) == (observations, worlds, digest)


# -- typed event details (an outside probe: the start's facts were in its text only) ---------


@pytest.mark.parametrize(("players", "start", "removed"), [(2, 1, 12), (3, 2, 8), (4, 0, 0)])
def test_start_event_carries_the_camels_removed_in_play_and_the_first_seat(players, start, removed):
    state = deal(players, start=start)
    (event,) = [e for e in state.log.events if e.kind == "start"]
    assert event.to is None
    assert event.detail == pb.StartEvent(removed=removed, in_play=35 - removed, first_seat=start)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_tracker_of_the_details_alone_knows_the_camel_deck(players):
    # From "start" (camels in play) and each "market" reveal alone, a bot knows the camels
    # removed and the camel deck's size at every decision, and who took the first turn.
    for seed in range(3):
        state = GAME.new_match(GAME.config(players), seed)
        rng = Chance(seed + 99)
        seen, first = [0] * players, [-1] * players
        removed, deck = [-1] * players, [0] * players
        while state.pending:
            for seat in range(players):
                for _, event in state.log.since(seat, seen[seat]):
                    if event.kind == "start":
                        removed[seat], deck[seat] = event.detail.removed, event.detail.in_play
                        first[seat] = event.detail.first_seat
                    elif event.kind == "market":
                        deck[seat] -= 1
                seen[seat] = len(state.log.events)
            (decision,) = state.pending
            if state.steps == 0:
                assert decision.seat == first[0] == first[-1]
            obs = GAME.observe(state, decision.seat)
            assert (obs.camels_removed, obs.camel_deck_size) == (removed[decision.seat], deck[decision.seat])
            GAME.apply(state, {decision.seat: decision.options[rng.below(len(decision.options), "t")].id})
