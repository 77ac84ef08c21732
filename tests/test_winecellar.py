"""Wine Cellar: the rules page's examples, NOTES §4.25 vectors, every rule and ruling, leaks,
sample_world and playout invariants."""

from __future__ import annotations

import pickle
import re
from collections import Counter
from pathlib import Path

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.v1 import winecellar_pb2 as pb
from arena.games.winecellar import GAME, WineCellarState
from arena.games.winecellar.game import (
    BOTTLES,
    CLIENTS,
    Bottle,
    Client,
    client_shuffles,
    deck_size,
    eno_key,
    score_cellar,
    split_halves,
    title,
)
from tests.contract import assert_same_view, random_playout

ROOT = Path(__file__).resolve().parent.parent


def match(players: int, order=None, clients=None, options=None, low=None, high=None, seed=0) -> WineCellarState:
    orders = {}
    if order is not None:
        orders["bottles"] = [order]
    if clients is not None:
        orders["clients"] = [clients]
    if low is not None:
        orders["low"] = [low]
        orders["high"] = [high]
    return GAME.new_match(GAME.config(players, options or {}), chance=PresetChance(seed, orders=orders))


def act(state: WineCellarState, **choices: str) -> None:
    GAME.apply(state, {int(k[1:]): v for k, v in choices.items()})


def choose_clients(state: WineCellarState, *kept: int) -> None:
    GAME.apply(state, {s: f"client:{c}" for s, c in enumerate(kept)})


def kinds(state: WineCellarState) -> list[tuple[int, str]]:
    return [(d.seat, d.kind) for d in state.pending]


def two_player() -> WineCellarState:
    # seat 0: 1-8, seat 1: 9-16, prizes 17, 18; clients: seat 0 is dealt 1, 2; seat 1 3, 4
    state = match(2, order=list(range(1, 19)), clients=[1, 2, 3, 4] + [c for c in range(5, 31)])
    choose_clients(state, 1, 4)
    return state


# --------------------------------------------------------------------------------------------
# Components


def test_72_bottles_with_unique_bid_values_and_age_permutations():
    assert sorted(BOTTLES) == list(range(1, 73))
    for b in BOTTLES.values():
        assert sorted(b.ages) == list(range(1, 9))
        assert b.type in ("red", "white", "rose", "sparkling")
    assert len({b.country for b in BOTTLES.values()}) == 12


def test_every_block_of_9_has_the_same_type_mix():
    for block in range(8):
        mix = Counter(BOTTLES[i].type for i in range(9 * block + 1, 9 * block + 10))
        assert mix == {"red": 3, "white": 3, "rose": 2, "sparkling": 1}


def test_countries_widen_with_the_deck():
    def countries(lo, hi):
        return {BOTTLES[i].country for i in range(lo, hi + 1)}

    assert countries(1, 18) == countries(1, 27) == {"France", "Italy", "Spain", "USA"}
    assert countries(28, 45) == {"Portugal", "Germany", "Chile", "Argentina"}
    assert countries(46, 72) == {"Australia", "New Zealand", "South Africa", "Austria"}


def test_30_clients_in_two_sets_listing_countries_by_player_count():
    assert sorted(CLIENTS) == list(range(1, 31))
    assert Counter(c.set for c in CLIENTS.values()) == {"A": 15, "B": 15}
    for c in CLIENTS.values():
        assert c.type1 != c.type2 and c.bonus2 >= 1 and c.bonus1 <= 6
        assert [len(c.listed(n)) for n in range(1, 9)] == [1, 1, 1, 2, 2, 3, 3, 3]
        for n in range(1, 9):  # every listed country is in the bottles in use
            used = {BOTTLES[i].country for i in range(1, deck_size(n) + 1)}
            assert set(c.listed(n)) <= used
    assert CLIENTS[1][2:6] == ("sparkling", 6, "white", 1)  # the rulebook example's client


# --------------------------------------------------------------------------------------------
# Rulebook examples and NOTES vectors


def test_scoring_example_42_cellar_54_total():
    # :311-335: ages 6+2+5+7+7+3+4+8 = 42; +6 per Sparkling, +1 per White, +3 per country:
    # 1 Sparkling, 3 White, 1 country bottle -> 42 + 6 + 3 + 3 = 54.
    client = Client(99, "A", "sparkling", 6, "white", 1, ("France", "Chile", "Austria"))
    wanted = [6, 2, 5, 7, 7, 3, 4, 8]
    kinds_ = ["sparkling", "white", "white", "white", "red", "red", "rose", "red"]
    countries = ["Italy", "Italy", "Spain", "USA", "France", "Spain", "Italy", "USA"]
    cellar = []
    for k, (age, kind, country) in enumerate(zip(wanted, kinds_, countries, strict=True)):
        row = [a for a in range(1, 9) if a != age]
        row.insert(k, age)
        cellar.append(Bottle(k + 1, kind, country, tuple(row)))
    parts = score_cellar(cellar, client, 2)
    assert (parts.cellar, parts.types, parts.countries, parts.total) == (42, 9, 3, 54)


def test_split_example_4_players_1_18_and_19_36():
    # :392-399
    assert split_halves(36) == (list(range(1, 19)), list(range(19, 37)))
    assert split_halves(27) == (list(range(1, 15)), list(range(15, 28)))  # extra card low
    assert split_halves(18) == (list(range(1, 10)), list(range(10, 19)))


def test_vector_position_k_uses_the_kth_age_score():
    cellar = [BOTTLES[i] for i in (3, 9, 12, 15, 1, 2, 4, 5)]
    assert score_cellar(cellar, None, 2).cellar == sum(b.ages[k] for k, b in enumerate(cellar))
    assert score_cellar(cellar, None, 2).cellar == 8 + 7 + 6 + 6 + 7 + 5 + 1 + 4


@pytest.mark.parametrize(
    ("score", "name"),
    [
        (90, "Master Sommelier"),
        (73, "Master Sommelier"),
        (72, "Capable Sommelier"),
        (67, "Capable Sommelier"),
        (66, "Wine Geek"),
        (60, "Wine Geek"),
        (59, "Still Fermenting"),
        (0, "Still Fermenting"),
    ],
)
def test_vector_solo_ranking_with_the_overlap_fixed(score, name):
    assert title(score) == name


# --------------------------------------------------------------------------------------------
# Setup


@pytest.mark.parametrize(("players", "cards"), [(1, 18), (2, 18), (3, 27), (4, 36), (5, 45), (6, 54), (7, 63), (8, 72)])
def test_bottles_used_by_player_count(players, cards):
    state = GAME.new_match(GAME.config(players), 4)
    dealt = [i for h in state.hands for i in h] + state.prizes + state.eno_deck
    assert sorted(dealt) == list(range(1, cards + 1))
    assert all(len(h) == 8 for h in state.hands)
    assert len(state.prizes) == (2 if players == 1 else players)


def test_deal_follows_the_shuffle_and_clients_are_dealt_two_each():
    order = list(range(27, 0, -1))
    state = match(3, order=order, clients=list(range(30, 0, -1)))
    assert state.hands == [list(range(20, 28)), list(range(12, 20)), list(range(4, 12))]
    assert state.prizes == [1, 2, 3]
    assert state.offers == [[29, 30], [27, 28], [25, 26]]
    assert kinds(state) == [(0, "client"), (1, "client"), (2, "client")]
    assert state.pending[0].option_ids == ("client:29", "client:30")


def test_player_counts():
    for n in range(1, 9):
        GAME.config(n)
    for n in (0, 9):
        with pytest.raises(ConfigError):
            GAME.config(n)
    with pytest.raises(ConfigError):
        GAME.config(1, {"series": True})


def test_clients_are_chosen_together_and_revealed_together():
    state = match(2, order=list(range(1, 19)), clients=list(range(1, 31)))
    act(state, s0="client:2", s1="client:3")
    assert state.clients == [2, 3]
    event = [e for e in state.log.events if e.kind == "clients"][-1]
    assert event.to is None and [c.id for c in event.detail.kept] == [2, 3]
    # the discarded clients 1 and 4 are never named publicly
    public = " ".join(e.text for e in state.log.events if e.to is None)
    assert "keeps 1" not in public and "keeps 4" not in public
    assert kinds(state) == [(0, "bid"), (1, "bid")]


# --------------------------------------------------------------------------------------------
# A round


def test_highest_bid_picks_first_then_places_and_bids_become_prizes():
    state = two_player()
    act(state, s0="bid:3", s1="bid:9")
    assert state.order == [1, 0]
    assert kinds(state) == [(1, "pick")] and state.pending[0].option_ids == ("take:17", "take:18")
    act(state, s1="take:17")
    # first bottle: no place decision; seat 0 gets the last prize without a decision
    assert state.cellars == [[18], [17]]
    assert kinds(state) == [(0, "bid"), (1, "bid")]
    assert state.prizes == [3, 9] and state.round == 2
    take = [e for e in state.log.events if e.kind == "take"]
    assert [t.detail.forced for t in take] == [False, True]
    act(state, s0="bid:8", s1="bid:10")
    act(state, s1="take:9")
    assert kinds(state) == [(1, "place")]
    assert GAME.observe(state, 1).taken.id == 9
    act(state, s1="top")
    assert state.cellars[1] == [9, 17]
    assert state.cellars[0] == [18]
    assert kinds(state) == [(0, "place")]
    act(state, s0="bottom")
    assert state.cellars == [[18, 3], [9, 17]]
    assert state.prizes == [8, 10]


def test_illegal_bids_change_nothing():
    state = two_player()
    before = pickle.dumps(state)
    with pytest.raises(IllegalChoice):
        act(state, s0="bid:9", s1="bid:9")
    assert pickle.dumps(state) == before


def play_out_first_options(state: WineCellarState) -> None:
    while state.pending:
        GAME.apply(state, {d.seat: d.options[0].id for d in state.pending})


def test_game_ends_after_8_rounds_last_bids_unused_and_scores_follow_the_rules():
    state = two_player()
    play_out_first_options(state)
    assert state.round == 8 and state.over
    assert all(len(c) == 8 for c in state.cellars) and not any(state.hands)
    assert sorted(state.prizes + [i for c in state.cellars for i in c] + state.bids) == list(range(1, 19))
    result = GAME.result(state)
    expected = [
        score_cellar([BOTTLES[i] for i in state.cellars[s]], CLIENTS[state.clients[s]], 2).total for s in (0, 1)
    ]
    assert list(result.scores) == expected
    end = state.log.events[-1]
    assert end.kind == "end" and list(end.detail.scores) == expected


def test_equal_scores_share_the_victory():
    state = two_player()
    play_out_first_options(state)
    state.game_scores = [[50], [50]]
    assert GAME.score(state).ranks == (1, 1)
    state.game_scores = [[50], [49]]
    assert GAME.score(state).ranks == (1, 2)


def test_countries_count_only_as_listed_for_the_player_count():
    client = CLIENTS[1]  # France / Germany / South Africa
    with_a = [b for b in BOTTLES.values() if b.country == "France"][:1]
    with_b = [b for b in BOTTLES.values() if b.country == "Germany"][:1]
    with_c = [b for b in BOTTLES.values() if b.country == "South Africa"][:1]
    cellar = [*with_a, *with_b, *with_c]
    assert score_cellar(cellar, client, 3).countries == 3
    assert score_cellar(cellar, client, 4).countries == 6
    assert score_cellar(cellar, client, 8).countries == 9


@pytest.mark.parametrize(
    ("players", "listed"), [(2, "France"), (4, "France/Germany"), (6, "France/Germany/South Africa")]
)
def test_a_client_options_label_names_only_the_countries_that_score(players, listed):
    # :287-289 "only use the countries listed for the current number of players": the label a
    # bot reads must not promise a country the client does not score at this count.
    state = match(players, clients=list(range(1, 31)))
    options = {o.id: o.label for d in state.pending if d.seat == 0 for o in d.options}
    assert (
        options["client:1"]
        == f"keep client 1: {CLIENTS[1].type1}+{CLIENTS[1].bonus1} {CLIENTS[1].type2}+{CLIENTS[1].bonus2} {listed}"
    )


def test_client_type_bonuses_add_up_per_bottle():
    client = CLIENTS[3]  # sparkling 5, rose 2
    sparkling = [b for b in BOTTLES.values() if b.type == "sparkling" and b.country != "Spain"][:2]
    rose = [b for b in BOTTLES.values() if b.type == "rose" and b.country != "Spain"][:1]
    red = [b for b in BOTTLES.values() if b.type == "red" and b.country != "Spain"][:1]
    assert score_cellar([*sparkling, *rose, *red], client, 2).types == 5 + 5 + 2


# --------------------------------------------------------------------------------------------
# Solo


def solo(hand, eno, prizes, clients=(1, 2)) -> WineCellarState:
    rest = [c for c in range(1, 31) if c not in clients]
    return match(1, order=[*hand, *eno, *prizes], clients=[*clients, *rest])


def test_solo_you_win_the_bid_choose_first_and_enos_lower_card_becomes_a_prize():
    state = solo(list(range(10, 18)), list(range(1, 9)), [9, 18])
    assert kinds(state) == [(0, "client")]
    act(state, s0="client:1")
    assert state.eno_client == 2 and CLIENTS[2].type1 == "sparkling"
    act(state, s0="bid:10")
    eno = [e for e in state.log.events if e.kind == "eno"][-1]
    assert [b.id for b in eno.detail.bids] == [1, 2] and not eno.detail.eno_first
    assert kinds(state) == [(0, "pick")] and state.pending[0].option_ids == ("take:9", "take:18")
    act(state, s0="take:18")
    assert state.cellars == [[18]] and state.boxed == [9]
    assert state.prizes == [1, 10] and state.eno_bids == [2]
    act(state, s0="bid:11")
    assert state.eno_bids == [2, 3]


def test_solo_eno_wins_takes_its_clients_prize_and_its_higher_card_becomes_a_prize():
    # Eno's client 2: sparkling 6, red 1, Italy. Prizes: a red and a white bottle: Eno takes the red.
    assert CLIENTS[2][2:6] == ("sparkling", 6, "red", 1)
    red = next(i for i in range(1, 19) if BOTTLES[i].type == "red")
    white = next(i for i in range(1, 19) if BOTTLES[i].type == "white")
    rest = [i for i in range(1, 19) if i not in (red, white)]
    state = solo(rest[:8], rest[8:], [red, white])
    act(state, s0="client:1")
    act(state, s0=f"bid:{rest[0]}")
    eno = [e for e in state.log.events if e.kind == "eno"][-1]
    assert eno.detail.eno_first and eno.detail.took.id == red
    assert state.boxed == [red] and state.cellars == [[white]]
    assert state.prizes == [rest[0], rest[9]] and state.eno_bids == [rest[8]]


@pytest.mark.parametrize(
    ("low", "high"),
    [
        (2, 13),  # white USA, white Spain: neither matches
        (3, 17),  # red Spain, red France: both match type 2 only
        (9, 15),  # red Italy, red Italy: both match type 2 and the first country
    ],
)
def test_solo_eno_takes_the_higher_bid_value_when_neither_or_both_prizes_match_equally(low, high):
    # :566-568 "If neither Prize matches Eno's Client, or both Prize bottles are equally good matches:
    # Eno chooses the Prize bottle with the higher Bid Value." (NOTES §4.25 ruling 6; module ruling 5)
    client = CLIENTS[2]  # Eno's: sparkling 6, red 1, Italy first
    assert eno_key(BOTTLES[low], client)[:3] == eno_key(BOTTLES[high], client)[:3]
    rest = [i for i in range(1, 19) if i not in (low, high)]
    state = solo(rest[:8], rest[8:], [low, high])
    act(state, s0="client:1")
    assert state.eno_client == 2 and state.prizes == [low, high]
    act(state, s0=f"bid:{rest[0]}")
    eno = [e for e in state.log.events if e.kind == "eno"][-1]
    assert [b.id for b in eno.detail.bids] == rest[8:10] and eno.detail.eno_first
    assert eno.detail.took.id == high
    assert state.boxed == [high] and state.cellars == [[low]]
    assert state.prizes == [rest[0], rest[9]] and state.eno_bids == [rest[8]]


def test_eno_priority_type1_type2_country_number():
    client = CLIENTS[2]  # sparkling 6, red 1, Italy first
    sparkling = Bottle(1, "sparkling", "USA", tuple(range(1, 9)))
    red_italy = Bottle(70, "red", "Italy", tuple(range(1, 9)))
    red = Bottle(71, "red", "USA", tuple(range(1, 9)))
    white_italy = Bottle(72, "white", "Italy", tuple(range(1, 9)))
    white = Bottle(60, "white", "Spain", tuple(range(1, 9)))
    assert max([red_italy, sparkling], key=lambda b: eno_key(b, client)) == sparkling
    assert max([white_italy, red], key=lambda b: eno_key(b, client)) == red
    assert max([white_italy, white], key=lambda b: eno_key(b, client)) == white_italy
    assert max([white, Bottle(61, "rose", "Spain", white.ages)], key=lambda b: eno_key(b, client)).id == 61


def test_solo_round_8_eno_bids_its_last_face_up_card_and_the_result_is_the_score():
    state = solo(list(range(10, 18)), list(range(1, 9)), [9, 18])
    play_out_first_options(state)
    enos = [e for e in state.log.events if e.kind == "eno"]
    assert [len(e.detail.bids) for e in enos] == [2] * 7 + [1]
    assert len(state.cellars[0]) == 8 and not state.eno_deck
    result = GAME.result(state)
    score = score_cellar([BOTTLES[i] for i in state.cellars[0]], CLIENTS[state.clients[0]], 1).total
    assert result.scores == (score,) and result.ranks == (1,)
    assert title(score) in result.summary and GAME.observe(state, 0).title == title(score)


# --------------------------------------------------------------------------------------------
# Advanced series


def test_series_deals_4_low_and_4_high_and_plays_3_games():
    low, high = split_halves(36)
    state = match(4, options={"series": True}, low=low[::-1], high=high[::-1])
    assert state.hands[0] == sorted(low[::-1][:4] + high[::-1][:4])
    assert state.prizes == sorted(low[::-1][16:] + high[::-1][16:])
    seen_games = []
    rng = Chance(3)
    while state.pending:
        if state.phase == "client" and state.game > 1 and state.game not in seen_games:
            seen_games.append(state.game)
            last = [e for e in state.log.events if e.kind == "game_end"][-1]
            assert last.detail.game == state.game - 1
            prev_bids = [e for e in state.log.events if e.kind == "bids"][-1].detail.bids
            assert state.prizes == sorted(prev_bids)
            cellars = [e for e in state.log.events if e.kind == "place"]
            assert cellars  # the previous cellars became the hands:
            assert all(len(h) == 8 for h in state.hands)
            assert sorted(i for h in state.hands for i in h) == sorted(set(range(1, 37)) - set(prev_bids))
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert seen_games == [2, 3]
    assert all(len(g) == 3 for g in state.game_scores)
    assert GAME.result(state).scores == tuple(sum(g) for g in state.game_scores)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_series_each_players_cellar_becomes_their_own_hand(players):
    # :467-469 "take all 8 Wine Bottle cards from your previous cellar. Those 8 cards become your
    # starting hand for the next game."
    state = GAME.new_match(GAME.config(players, {"series": True}), 5)
    rng = Chance(5)
    for game in (1, 2):
        start = len(state.log.events)
        while state.game == game:
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
        cellars: list[list[int]] = [[] for _ in range(players)]  # rebuilt from the game's places, top first
        for e in state.log.events[start:]:
            if e.kind == "place":
                at = len(cellars[e.detail.seat]) if e.detail.end == pb.BOTTOM else 0
                cellars[e.detail.seat].insert(at, e.detail.bottle)
        scored = [e for e in state.log.events if e.kind == "game_end"][-1].detail.scores
        assert list(scored) == [
            score_cellar([BOTTLES[i] for i in cellars[s]], CLIENTS[state.past_clients[-1][s]], players).total
            for s in range(players)
        ]
        assert state.hands == [sorted(c) for c in cellars]
        assert len({tuple(h) for h in state.hands}) == players


def test_series_hands_from_game_2_are_public():
    state = match(3, options={"series": True}, seed=1)
    rng = Chance(1)
    while state.game == 1:
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    obs = GAME.observe(state, 0)
    assert [sorted(b.id for b in s.hand) for s in obs.seats] == state.hands
    assert not obs.unseen


@pytest.mark.parametrize(("players", "client_set", "pool"), [(2, "A", "A"), (3, "B", "B"), (4, "B", "AB")])
def test_series_client_sets(players, client_set, pool):
    state = GAME.new_match(GAME.config(players, {"series": True, "client_set": client_set}), 2)
    assert {CLIENTS[c].set for c in state.pool} == set(pool)
    assert all(CLIENTS[c].set in pool for o in state.offers for c in o)


class Recording(PresetChance):
    """PresetChance that records the label of every shuffle."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.shuffles: list[str] = []

    def shuffled(self, items, label):
        self.shuffles.append(label)
        return super().shuffled(items, label)


def play_series(players: int, chance: Chance, options=None, seed=0):
    """A random series; yields the state at the client choice of each game."""
    state = GAME.new_match(GAME.config(players, {"series": True, **(options or {})}), chance=chance)
    rng = Chance(seed + 11)
    games = []
    while state.pending:
        if state.phase == "client" and state.game not in games:
            games.append(state.game)
            yield state
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert games == [1, 2, 3] and state.past_offers and len(state.past_offers) == 2


def client_labels(chance: Recording) -> list[str]:
    return [label for label in chance.shuffles if label in ("clients", "reshuffle")]


@pytest.mark.parametrize(
    ("players", "pool", "shuffles"),
    [
        (2, 15, [True, False, False]),  # 12 deals from 15
        (3, 15, [True, False, True]),  # 18 deals from 15: game 3 finds 3 left
        (4, 30, [True, False, False]),  # 24 from 30
        (5, 30, [True, False, False]),  # 30 from 30
        (6, 30, [True, False, True]),  # game 3 finds 6 left for 12
        (7, 30, [True, False, True]),  # game 3 finds 2 left for 14
        (8, 30, [True, True, True]),  # 14 left for 16, twice
    ],
)
def test_series_client_deck_is_shuffled_only_when_it_runs_short(players, pool, shuffles):
    assert client_shuffles(players, pool) == shuffles


@pytest.mark.parametrize("players", [2, 4])
def test_series_deals_new_clients_each_game_from_one_deck(players):
    # Ruling 8, exact under a preset deck: game g deals the next 2n clients of the same deck.
    pool = sorted(GAME.new_match(GAME.config(players, {"series": True}), 0).pool)
    deck = pool[::-1]
    chance = Recording(0, orders={"clients": [deck]})
    n2 = 2 * players
    for state in play_series(players, chance):
        g = state.game - 1
        assert state.offers == [sorted(deck[n2 * g + 2 * s : n2 * g + 2 * s + 2]) for s in range(players)]
        assert state.client_deck == deck[n2 * (g + 1) :]
        obs = GAME.observe(state, 1)
        assert (obs.client_deck, obs.client_discards) == (len(pool) - n2 * (g + 1), n2 * g)
        assert list(obs.earlier_offers) == [c for game in state.past_offers for c in game[1]]
        assert list(obs.earlier_clients) == [c for game in state.past_clients for c in game]
        if g:  # the previous game's clients, kept one included, went to the discard pile
            assert all(c in o for c, o in zip(state.past_clients[-1], state.past_offers[-1], strict=True))
            assert not {c for o in state.past_offers[-1] for c in o} & set(state.client_deck)
    assert client_labels(chance) == ["clients"]


@pytest.mark.parametrize("players", [2, 4])
def test_series_never_deals_a_client_twice_at_2_and_4_players(players):
    for seed in range(20):
        chance = Recording(seed)
        state = list(play_series(players, chance, seed=seed))[-1]  # the same state, played out
        dealt = [c for game in [*state.past_offers, state.offers] for o in game for c in o]
        assert len(dealt) == 3 * 2 * players == len(set(dealt))
        assert client_labels(chance) == ["clients"]


def test_series_3_players_reshuffles_exactly_when_the_15_clients_run_short():
    # Set B has 15 clients: games 1 and 2 deal 12 of them; game 3 needs 6 and 3 are left, so
    # the discards and the 3 are shuffled together and game 3 is dealt from the new deck.
    pool = [c for c, client in sorted(CLIENTS.items()) if client.set == "B"]
    first = pool[::-1]
    second = pool[5:] + pool[:5]
    chance = Recording(0, orders={"clients": [first], "reshuffle": [second]})
    labels = []
    for state in play_series(3, chance, {"client_set": "B"}):
        labels.append(client_labels(chance))
        g = state.game
        deck, at = (first, 6 * (g - 1)) if g < 3 else (second, 0)
        assert state.offers == [sorted(deck[at + 2 * s : at + 2 * s + 2]) for s in range(3)]
        assert state.client_deck == deck[at + 6 :]
        assert GAME.observe(state, 0).client_discards == (6 * (g - 1) if g < 3 else 0)
    assert labels == [["clients"], ["clients"], ["clients", "reshuffle"]]
    dealt = [c for game in state.past_offers for o in game for c in o]
    assert len(dealt) == 12 == len(set(dealt))  # games 1 and 2: all different
    assert state.past_offers[0] != state.past_offers[1]


def test_series_reshuffle_can_bring_back_a_client_only_after_the_deck_runs_short():
    # 3 players, set A, random seeds: no client repeats within games 1-2; game 3 comes from a
    # new shuffle of all 15, so repeats happen there (and only there).
    repeats = 0
    for seed in range(30):
        chance = Recording(seed)
        state = list(play_series(3, chance, seed=seed))[-1]  # the same state, played out
        one_two = [c for game in state.past_offers for o in game for c in o]
        assert len(one_two) == len(set(one_two)) == 12
        third = [c for o in state.offers for c in o]
        assert len(set(third)) == 6
        repeats += bool(set(third) & set(one_two))
        assert client_labels(chance) == ["clients", "reshuffle"]
    assert repeats > 0


def test_series_earlier_clients_are_hidden_like_the_current_ones():
    # Seat 0 cannot tell apart two series that differ only in the clients seats 1 and 2 discarded
    # in game 1: the same observation, even in game 2.
    pool = [c for c, client in sorted(CLIENTS.items()) if client.set == "A"]
    a_deck = pool
    b_deck = [*pool[:2], pool[2], pool[5], pool[4], pool[3], *pool[6:]]  # seats 1 and 2 swap a discard
    states = []
    for deck in (a_deck, b_deck):
        state = match(3, options={"series": True}, clients=deck, low=list(range(1, 15)), high=list(range(15, 28)))
        choose_clients(state, pool[0], pool[2], pool[4])
        rng = Chance(4)
        while state.game == 1:
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
        states.append(state)
    a, b = states
    assert a.past_offers[0][1] != b.past_offers[0][1]
    assert_same_view(GAME, a, b, 0)
    assert list(GAME.observe(a, 0).earlier_offers) == pool[:2]
    assert list(GAME.observe(a, 0).earlier_clients) == [pool[0], pool[2], pool[4]]


# --------------------------------------------------------------------------------------------
# Information


def test_what_a_seat_cannot_know_does_not_reach_it():
    # Swap a card between seats 1 and 2 and their discarded clients: seat 0 sees no difference.
    a = match(3, order=list(range(1, 28)), clients=list(range(1, 31)))
    b = match(3, order=[*range(1, 9), 17, *range(10, 17), 9, *range(18, 28)], clients=[1, 2, 3, 5, 4, 6, *range(7, 31)])
    for state in (a, b):
        act(state, s0="client:1", s1="client:3", s2="client:6")
    assert a.hands[1] != b.hands[1] and a.offers[1] != b.offers[1]
    assert_same_view(GAME, a, b, 0)
    for state in (a, b):
        act(state, s0="bid:1", s1="bid:10", s2="bid:18")
    assert_same_view(GAME, a, b, 0)


def test_events_never_name_a_card_the_seat_has_not_seen():
    state = GAME.new_match(GAME.config(4), 7)
    rng = Chance(7)
    while state.pending:
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    for seat in range(4):
        hidden = {i for s in range(4) if s != seat for i in GAME.new_match(GAME.config(4), 7).hands[s]}
        for e in state.log.events:
            if e.visible_to(seat) and e.kind == "deal":
                assert not hidden & {b.id for b in e.detail.hand}
        private = [e for e in state.log.events if e.kind == "deal"]
        assert all(e.to is not None and len(e.to) == 1 for e in private)


def test_solo_eno_deck_order_is_hidden_but_spectator_sees_it():
    state = GAME.new_match(GAME.config(1), 3)
    obs = GAME.observe(state, 0)
    assert obs.eno_deck == 8 and sorted(b.id for b in obs.unseen) == sorted(state.eno_deck)
    assert not obs.eno_deck_cards
    spectator = GAME.observe(state, SPECTATOR)
    assert [b.id for b in spectator.eno_deck_cards] == state.eno_deck
    assert [c.id for c in spectator.offers[0].clients] == state.offers[0]
    assert not obs.offers


# --------------------------------------------------------------------------------------------
# sample_world


def random_positions(players: int, seeds: range, every: int, options=None):
    for seed in seeds:
        state = GAME.new_match(GAME.config(players, options or {}), seed)
        rng = Chance(seed + 77)
        step = 0
        while state.pending:
            if step % every == 0:
                yield pickle.loads(pickle.dumps(state))
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
            step += 1
        yield state


def obs_bytes(state: WineCellarState, seat: int) -> bytes:
    return GAME.observe(state, seat).SerializeToString(deterministic=True)


@pytest.mark.parametrize(("players", "options"), [(1, {}), (3, {}), (5, {}), (2, {"series": True})])
def test_sample_world_keeps_what_the_seat_knows(players, options):
    checked = 0
    for state in random_positions(players, range(2), 7, options):
        before = pickle.dumps(state)
        for seat in range(players):
            world = GAME.sample_world(state, seat, Chance(checked))
            checked += 1
            assert obs_bytes(world, seat) == obs_bytes(state, seat)
            mine = [(d.kind, d.option_ids) for d in world.pending if d.seat == seat]
            assert mine == [(d.kind, d.option_ids) for d in state.pending if d.seat == seat]
            assert all(e.visible_to(seat) for e in world.log.events)
            rng = Chance(checked)
            while world.pending:
                GAME.apply(world, {d.seat: rng.pick(d.options, "t").id for d in world.pending})
            assert GAME.result(world) is not None
        assert pickle.dumps(state) == before
    assert checked >= 8


def test_sample_world_redeals_hidden_hands_uniformly():
    # 3 players after the clients: seat 0 cannot tell which of the 16 other cards seat 1 holds.
    state = match(3, order=list(range(1, 28)), clients=list(range(1, 31)))
    choose_clients(state, 1, 3, 5)
    chance = Chance(2024)
    counts = Counter()
    samples = 3200
    for _ in range(samples):
        world = GAME.sample_world(state, 0, chance)
        assert world.hands[0] == state.hands[0] and len(world.hands[1]) == 8
        counts.update(world.hands[1])
    others = list(range(9, 25))
    observed = [counts[i] for i in others]
    assert sum(observed) == 8 * samples
    assert chisquare(observed).pvalue > 0.001


def test_sample_world_redeals_enos_deck_order_uniformly():
    state = GAME.new_match(GAME.config(1), 5)
    act(state, s0=state.pending[0].option_ids[0])
    chance = Chance(77)
    counts = Counter(GAME.sample_world(state, 0, chance).eno_deck[0] for _ in range(1600))
    assert sorted(counts) == sorted(state.eno_deck)
    assert chisquare([counts[i] for i in sorted(counts)]).pvalue > 0.001


def test_sample_world_redraws_hidden_clients_from_unseen_ones():
    state = match(2, order=list(range(1, 19)), clients=list(range(1, 31)))
    world = GAME.sample_world(state, 0, Chance(1))
    assert world.offers[0] == [1, 2]
    assert not set(world.offers[1]) & {1, 2}
    choose_clients(state, 1, 3)
    world = GAME.sample_world(state, 0, Chance(2))
    assert 3 in world.offers[1] and not set(world.offers[1]) & {1, 2}


def assert_clients_consistent(state: WineCellarState) -> None:
    """Ruling 8: the games of one deck shuffle never share a client; the deck is the rest."""
    from arena.games.winecellar.game import client_cycles

    games = [*state.past_offers, state.offers]
    for cycle in client_cycles(state.players, len(state.pool), len(games)):
        dealt = [c for g in cycle for o in games[g] for c in o]
        assert len(dealt) == len(set(dealt)) and set(dealt) <= set(state.pool)
    assert sorted(state.client_deck) == sorted(set(state.pool) - set(dealt))
    for kept, offers in zip(state.past_clients, state.past_offers, strict=True):
        assert all(c in o for c, o in zip(kept, offers, strict=True))


@pytest.mark.parametrize(("players", "options"), [(3, {"series": True}), (8, {"series": True}), (6, {"series": True})])
def test_series_worlds_keep_the_client_deck_consistent(players, options):
    config = GAME.config(players, options)
    checked = 0
    for state in random_positions(players, range(2), 23, options):
        if state.game == 1 and state.phase != "client":
            continue
        assert_clients_consistent(state)
        for seat in (0, players - 1):
            for world in (
                GAME.sample_world(state, seat, Chance(checked)),
                GAME.world_from_observation(config, seat, GAME.observe(state, seat), Chance(checked)),
            ):
                checked += 1
                assert obs_bytes(world, seat) == obs_bytes(state, seat)
                assert_clients_consistent(world)
                assert [g[seat] for g in world.past_offers] == [g[seat] for g in state.past_offers]
                assert world.past_clients == state.past_clients
                rng = Chance(checked)
                while world.pending:
                    GAME.apply(world, {d.seat: rng.pick(d.options, "t").id for d in world.pending})
                assert_clients_consistent(world)
    assert checked >= 16


def test_series_world_draws_the_client_deck_uniformly_from_the_unseen_clients():
    # 2 players, set A, game 2 after the choice: seat 0 has seen its 4 clients and seat 1's 2
    # kept ones (6 of 15); seat 1's 2 discards come uniformly from the other 9, and the deck
    # (7) is what is left.
    state = next(s for s in random_positions(2, range(1), 1, {"series": True}) if s.game == 2 and s.phase == "bid")
    seen = {*state.past_offers[0][0], *state.offers[0], *state.past_clients[0], *state.clients}
    unseen = sorted(set(state.pool) - seen)
    chance = Chance(99)
    counts = Counter()
    samples = 2000
    for _ in range(samples):
        world = GAME.sample_world(state, 0, chance)
        counts.update(world.client_deck)
        assert len(world.client_deck) == 15 - 8
    assert sorted(counts) == unseen
    assert sum(counts.values()) == 7 * samples
    assert chisquare([counts[c] for c in unseen]).pvalue > 0.001


# --------------------------------------------------------------------------------------------
# Playout invariants


CONFIGS = [
    (1, {}, 600),
    (2, {}, 400),
    (3, {}, 250),
    (4, {}, 150),
    (5, {}, 100),
    (6, {}, 80),
    (7, {}, 60),
    (8, {}, 60),
    (2, {"series": True}, 150),
    (3, {"series": True, "client_set": "B"}, 100),
    (5, {"series": True}, 50),
    (8, {"series": True}, 30),
]


def test_playout_invariants_over_2000_games():
    total = 0
    for players, options, games in CONFIGS:
        config = GAME.config(players, options)
        n_games = 3 if options.get("series") else 1
        # the docstring's bound: client step + per round a bid, picks but the last, places but the first
        bound = n_games * (15 * players + 1) if players > 1 else 24

        def invariant(state: WineCellarState, cards=deck_size(players), bound=bound) -> None:  # noqa: B008
            in_flight = [b for b in state.bids if b] if state.phase in ("pick", "place", "over") else []
            where = (
                [i for h in state.hands for i in h]
                + state.prizes
                + [i for c in state.cellars for i in c]
                + in_flight
                + ([state.last_taken] if state.phase == "place" else [])
                + state.eno_deck
                + state.eno_bids
                + state.boxed
            )
            assert sorted(where) == list(range(1, cards + 1)), state.phase
            assert all(len(c) <= 8 for c in state.cellars)
            assert state.steps <= bound

        for seed in range(games):
            state = random_playout(GAME, config, seed, invariant=invariant, observe=False)
            assert all(len(g) == n_games for g in state.game_scores)
            last = [
                score_cellar([BOTTLES[i] for i in state.cellars[s]], CLIENTS[state.clients[s]], players).total
                for s in range(players)
            ]
            assert [g[-1] for g in state.game_scores] == last
            assert all(8 <= score_cellar([BOTTLES[i] for i in c], None, players).cellar <= 64 for c in state.cellars)
            total += 1
    assert total >= 2000


# --------------------------------------------------------------------------------------------
# Protocol documentation


def test_proto_and_rules_list_the_kinds_produced():
    proto = (ROOT / "proto/arena/games/v1/winecellar.proto").read_text()
    listed = {}
    for what in ("Decision", "Event"):
        m = re.search(rf"// {what} kinds: (.*?)\.\n", proto, re.S)
        listed[what] = set(re.findall(r'"([a-z_-]+)"', m.group(1)))
    made = {"Decision": set(), "Event": set()}
    for players, options in [(1, {}), (2, {}), (3, {"series": True})]:
        for seed in range(3):
            state = GAME.new_match(GAME.config(players, options), seed)
            rng = Chance(seed)
            while state.pending:
                made["Decision"].update(d.kind for d in state.pending)
                GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
            made["Event"].update(e.kind for e in state.log.events)
    assert listed == made
    rules = (ROOT / "arena/games/winecellar/rules.md").read_text()
    for kind in [*made["Decision"], *made["Event"], "series", "client_set"]:
        assert f"`{kind}`" in rules


def test_heuristic_beats_random_in_a_few_matches():
    from arena.runner import play_match
    from bots.registry import make_bot

    wins = 0
    for m in range(12):
        seat = m % 3
        specs = ["random"] * 3
        specs[seat] = "heuristic"
        record = play_match(GAME, GAME.config(3), 500 + m, [make_bot(s, "winecellar") for s in specs])
        wins += record.result["ranks"][seat] == 1
    assert wins >= 8


def test_sample_world_in_the_series_keeps_each_hands_low_and_high_counts():
    # Game 1 of the series deals 4 low + 4 high to each hand; bids are public, so the number
    # of low cards left in each hand is known and the re-deal keeps it.
    cut = len(split_halves(27)[0])
    for state in random_positions(3, range(2), 5, {"series": True}):
        if state.game != 1:
            continue
        for seat in range(3):
            world = GAME.sample_world(state, seat, Chance(seat))
            for s in range(3):
                assert sum(i <= cut for i in world.hands[s]) == sum(i <= cut for i in state.hands[s])
            assert sorted(i for h in world.hands for i in h) == sorted(i for h in state.hands for i in h)


def test_a_bottle_can_score_a_type_bonus_and_a_country_bonus():
    # :273-281: one bottle matching a preferred type and a preferred country gets both.
    client = Client(99, "A", "sparkling", 6, "white", 1, ("France", "Chile", "Austria"))
    bottle = Bottle(1, "sparkling", "France", (8, 7, 6, 5, 4, 3, 2, 1))
    parts = score_cellar([bottle], client, 2)
    assert (parts.cellar, parts.types, parts.countries, parts.total) == (8, 6, 3, 17)


# --------------------------------------------------------------------------------------------
# world_from_observation


def test_world_from_observation_deals_the_unseen_bottles_and_keeps_the_low_counts():
    # Series game 1: the observation says how many low-half bottles each hand holds, and the
    # world keeps it; the other hands are exactly the unseen bottles, by hand size.
    cut = len(split_halves(27)[0])
    config = GAME.config(3, {"series": True})
    checked = 0
    for state in random_positions(3, range(2), 5, {"series": True}):
        if state.game != 1:
            continue
        for seat in range(3):
            seen = GAME.observe(state, seat)
            assert [v.low_in_hand for v in seen.seats] == [sum(i <= cut for i in h) for h in state.hands]
            world = GAME.world_from_observation(config, seat, seen, Chance(seat))
            assert world.hands[seat] == state.hands[seat]
            assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
            for s in range(3):
                assert sum(i <= cut for i in world.hands[s]) == sum(i <= cut for i in state.hands[s])
            others = sorted(i for s in range(3) if s != seat for i in world.hands[s])
            assert others == sorted(b.id for b in seen.unseen)
            checked += 1
    assert checked >= 6


def test_world_from_observation_redraws_hidden_clients_and_enos_deck():
    state = match(2, order=list(range(1, 19)), clients=list(range(1, 31)))
    choose_clients(state, 1, 3)
    world = GAME.world_from_observation(state.config, 0, GAME.observe(state, 0), Chance(2))
    assert world.offers[0] == [1, 2] and world.clients == [1, 3]
    assert 3 in world.offers[1] and not set(world.offers[1]) & {1, 2}
    solo = GAME.new_match(GAME.config(1), 5)
    act(solo, s0=solo.pending[0].option_ids[0])
    chance = Chance(78)
    counts = Counter(
        GAME.world_from_observation(solo.config, 0, GAME.observe(solo, 0), chance).eno_deck[0] for _ in range(1600)
    )
    assert sorted(counts) == sorted(solo.eno_deck)
    assert chisquare([counts[i] for i in sorted(counts)]).pvalue > 0.001
