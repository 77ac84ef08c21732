"""Wine Cellar: the rulebook's worked examples and NOTES §4.25's vectors, through the engine.

``test_winecellar.py`` pins them on the pure helpers (``score_cellar`` with made-up bottles,
``split_halves``, ``title``); here each is played with the arena edition's cards.
"""

from __future__ import annotations

import pytest

from arena.chance import Chance
from arena.games.winecellar import GAME, WineCellarState
from arena.games.winecellar.game import BOTTLES, CLIENTS
from tests.test_winecellar import act, choose_clients, match

# Client 1: +6 per Sparkling, +1 per White, +3 per bottle from France (the one country listed
# at 3 players), the rulebook example's client.
# Eight bottles of 1-27 whose Age Scores at positions 1..8 are the example's 6 2 5 7 7 3 4 8:
# 1 Sparkling (18), 3 White (7, 2, 10), 1 from France (7).
EXAMPLE_CELLAR = [23, 7, 15, 2, 1, 10, 6, 18]


def _play_to_cellar(cellar: list[int]) -> WineCellarState:
    """3 players; seat 0 bids highest every round and builds ``cellar`` from the bottom up:
    bottle 8 from the first prizes, then each later one on top. Seat 1 bids the bottles seat 0
    wants next, so they are among the next round's prizes."""
    rest = [i for i in range(1, 28) if i not in cellar]
    seat1 = [*cellar[6::-1], rest[0]]  # bottles 7, 6, ..., 1, then one more
    seat0 = rest[-8:]  # the 8 highest others: seat 0 always picks first
    seat2 = rest[1:9]
    prizes = [cellar[7], *rest[9:-8]]
    assert len(prizes) == 3
    state = match(3, order=seat0 + seat1 + seat2 + prizes, clients=list(range(1, 31)))
    choose_clients(state, 1, 3, 5)
    for r in range(8):
        act(state, s0=f"bid:{seat0[r]}", s1=f"bid:{seat1[r]}", s2=f"bid:{seat2[r]}")
        assert state.order[0] == 0
        want = f"take:{cellar[7 - r]}"
        while state.phase in ("pick", "place"):
            (d,) = state.pending
            if d.kind == "place":
                choice = "top"
            elif d.seat == 0:
                choice = want
            else:
                choice = next(o for o in d.option_ids if o != want)
            GAME.apply(state, {d.seat: choice})
    assert state.over
    return state


def test_scoring_example_cellar_42_plus_bonuses_54():
    # winecellar.md :311-335: Age Scores 6 + 2 + 5 + 7 + 7 + 3 + 4 + 8 = 42; +6 per Sparkling,
    # +1 per White, +3 per matching country; 1 Sparkling, 3 White, 1 country -> 42 + 6 + 3 + 3 = 54.
    state = _play_to_cellar(EXAMPLE_CELLAR)
    assert state.cellars[0] == EXAMPLE_CELLAR
    bottles = [BOTTLES[i] for i in state.cellars[0]]
    assert [b.ages[k] for k, b in enumerate(bottles)] == [6, 2, 5, 7, 7, 3, 4, 8]  # :242-251
    assert [b.type for b in bottles].count("sparkling") == 1 and [b.type for b in bottles].count("white") == 3
    assert CLIENTS[1].listed(3) == ("France",) and [b.country for b in bottles].count("France") == 1
    end = next(e for e in state.log.events if e.kind == "game_end").detail
    assert (end.cellar[0], end.types[0], end.countries[0], end.scores[0]) == (42, 6 + 3, 3, 54)
    assert GAME.result(state).scores[0] == 54
    assert GAME.observe(state, 1).seats[0].score_now == 54


def test_vector_bottle_k_uses_its_kth_age_score():
    # NOTES §4.25 vector 1, :236-255: the same 8 bottles in the reverse order score other ages.
    state = _play_to_cellar(EXAMPLE_CELLAR[::-1])
    assert state.cellars[0] == EXAMPLE_CELLAR[::-1]
    end = next(e for e in state.log.events if e.kind == "game_end").detail
    ages = [BOTTLES[i].ages[k] for k, i in enumerate(EXAMPLE_CELLAR[::-1])]
    assert ages == [1, 1, 8, 5, 6, 3, 8, 2]  # bottle 18 first uses its 1st score, and so on
    assert (end.cellar[0], end.types[0], end.countries[0], end.scores[0]) == (34, 9, 3, 46)


@pytest.mark.parametrize("seed", range(5))
def test_split_example_4_players_1_18_and_19_36(seed):
    # :392-399, :403-412: a 4-player series uses 1-36, split into 1-18 and 19-36; each player
    # gets 4 of each, the 2 + 2 left are the first prizes.
    state = GAME.new_match(GAME.config(4, {"series": True}), seed)
    for hand in state.hands:
        assert sum(1 <= i <= 18 for i in hand) == 4 and sum(19 <= i <= 36 for i in hand) == 4
    assert sum(i <= 18 for i in state.prizes) == 2 and len(state.prizes) == 4
    assert sorted([i for h in state.hands for i in h] + state.prizes) == list(range(1, 37))
    assert [v.low_in_hand for v in GAME.observe(state, 0).seats] == [4, 4, 4, 4]


@pytest.mark.parametrize(
    ("seed", "score", "name"),
    [
        (10, 59, "Still Fermenting"),  # 0-59 (the printed "0-60" overlaps, NOTES ruling 4)
        (31, 60, "Wine Geek"),  # 60-66
        (17, 66, "Wine Geek"),  # the printed "60-67" overlaps "67-72"
        (54, 72, "Capable Sommelier"),  # 67-72
    ],
)
def test_vector_solo_ranking_through_a_played_solo_game(seed, score, name):
    # NOTES §4.25 vector 2, :582-605: seeded random solo games that end on the table's edges.
    state = GAME.new_match(GAME.config(1), seed)
    rng = Chance(seed)
    while state.pending:
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert state.game_scores == [[score]]
    assert GAME.observe(state, 0).title == name
    assert GAME.result(state).summary == f"solo score {score}: {name}"
