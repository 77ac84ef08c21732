"""Seasons: rules, rulings, cards 1-30, NOTES §4.17 vectors, leaks, playouts, worlds."""

from __future__ import annotations

import pytest

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.seasons import GAME
from arena.games.seasons.framework import (
    AIR,
    CARDS,
    DICE,
    EARTH,
    FIRE,
    IMPLEMENTED,
    TRANSMUTE,
    WATER,
    season_of,
)
from arena.games.seasons.testing import DRAW_FACE, energies, options, play, position
from arena.games.v1 import seasons_pb2 as pb


def res(state, seat):
    return state.reserve[seat][1:]


def cards_in_play(state, seat):
    return [s.card for s in state.tableau[seat]]


# -- data ------------------------------------------------------------------------------------------


def test_component_counts():
    assert len(CARDS) == 50
    assert sum(len(season) for season in DICE) == 20
    assert all(len(die) == 6 for season in DICE for die in season)
    assert CARDS[20].cost(2) == ((0, 1, 0, 1, 1), 3)  # air, water, fire, earth + 3 crystals
    assert CARDS[11].cost(2)[1] == 3 and CARDS[11].cost(3)[1] == 6 and CARDS[11].cost(4)[1] == 9
    assert CARDS[22].prestige == 30 and CARDS[10].familiar and CARDS[1].item
    assert set(range(1, 31)) <= IMPLEMENTED


def test_transmutation_table():
    # DATA 1.1: air, water, fire, earth
    assert TRANSMUTE[0][1:] == (1, 1, 2, 3)
    assert TRANSMUTE[1][1:] == (2, 1, 3, 1)
    assert TRANSMUTE[2][1:] == (3, 2, 1, 1)
    assert TRANSMUTE[3][1:] == (1, 3, 1, 2)
    assert [season_of(m) for m in (1, 3, 4, 6, 7, 9, 10, 12)] == [0, 0, 1, 1, 2, 2, 3, 3]


def test_die_faces_from_data():
    winter1 = DICE[0][0]
    assert winter1[0].energies == (FIRE,) and winter1[0].star and winter1[0].transmute and winter1[0].pips == 3
    assert winter1[2].energies == (WATER, WATER) and winter1[2].crystals == 3 and winter1[2].pips == 1
    assert winter1[4].card and not winter1[4].energies and winter1[4].pips == 2
    assert DICE[3][4][1].crystals == 6 and DICE[3][4][1].pips == 3  # fall die 5 face 2


# -- NOTES §4.17 vectors -----------------------------------------------------------------------------


def test_notes_gauge_three_with_one_card_may_summon_two_more():
    """NOTES 4.17 §5 text example (:132): gauge 3 with 1 card in play -> may summon 2 more."""
    state = position(2, hands={0: [3, 3, 3]}, tableau={0: [22]}, reserve={0: {"earth": 6}}, gauge={0: 3})
    play(state, "summon:3")
    assert "summon:3" in options(state)
    play(state, "summon:3")
    assert cards_in_play(state, 0) == [22, 3, 3]
    assert not any(o.startswith("summon:") for o in options(state))
    assert state.hands[0] == [3] and state.reserve[0][EARTH] == 2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_notes_dice_per_round_is_players_plus_one(players):
    """NOTES 4.17 §5 rule vector (:41): season dice per round = players + 1."""
    state = GAME.new_match(GAME.config(players, {"mode": "apprentice"}), 7)
    assert all(len(d) == players + 1 for d in state.dice_set)
    rng = Chance(1)
    while state.phase != pb.PHASE_DICE:
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert len(state.rolled) == players + 1
    assert [d.kind for d in state.pending] == ["die"]


# -- cards by timing ---------------------------------------------------------------------------------


def test_syllas_each_opponent_sacrifices_off_turn():
    state = position(3, hands={0: [10]}, tableau={1: [1, 3], 2: [29]}, reserve={0: {"fire": 3}}, gauge={0: 1})
    play(state, "summon:10")
    assert state.pending[0].seat == 1 and state.pending[0].kind == "card"
    assert options(state) == ["tableau:0", "tableau:1"]
    play(state, "tableau:1")
    assert state.pending[0].seat == 2 and options(state) == ["tableau:0"]
    play(state, "tableau:0")
    assert cards_in_play(state, 1) == [1] and cards_in_play(state, 2) == []
    assert state.discard == [3, 29]
    assert state.pending[0].seat == 0 and state.pending[0].kind == "turn"
    assert res(state, 0) == [0, 0, 0, 0]


def test_syllas_skips_an_opponent_without_cards():
    state = position(2, hands={0: [10]}, reserve={0: {"fire": 3}}, gauge={0: 1})
    play(state, "summon:10")
    assert state.pending[0].seat == 0 and state.pending[0].kind == "turn"


def test_staff_of_spring_three_crystals_per_later_summon():
    state = position(2, hands={0: [6, 29]}, reserve={0: {"earth": 3, "water": 3}}, gauge={0: 2})
    play(state, "summon:6")
    assert state.crystals[0] == 0  # not for its own summon (ruling 11)
    play(state, "summon:29")
    assert state.crystals[0] == 20 + 3


def test_figrim_and_hourglass_on_season_change():
    # month 3 + leftover 1 pip -> month 4: winter -> spring
    state = position(2, tableau={0: [11, 27]}, crystals={1: 1}, month=3)
    play(state, "end", "end")
    assert state.month == 4
    assert state.crystals == [1, 0]  # seat 1 gave its only crystal
    assert state.pending[0].seat == 0 and state.pending[0].kind == "energy"
    play(state, "energy:fire")
    assert res(state, 0) == [0, 0, 1, 0]
    assert state.phase == pb.PHASE_DICE


def test_no_season_change_no_figrim():
    state = position(2, tableau={0: [11]}, crystals={1: 5}, month=1)
    play(state, "end", "end")
    assert state.month == 2 and state.crystals == [0, 5]


def test_wondrous_chest_and_beggars_horn_at_round_end():
    state = position(2, tableau={0: [13], 1: [14]}, reserve={0: {"air": 4}, 1: {"air": 1}})
    play(state, "end", "end")
    assert state.crystals[0] == 3
    assert state.pending[0].seat == 1 and state.pending[0].kind == "energy"
    play(state, "energy:earth")
    assert res(state, 1) == [1, 0, 0, 1]


def test_purse_of_io_on_transmute():
    state = position(2, tableau={0: [8]}, reserve={0: {"earth": 2}}, transmute=True)  # winter: earth 3
    play(state, "transmute:earth")
    assert state.crystals[0] == 3 + 1
    play(state, "transmute:earth")
    assert state.crystals[0] == 8 and res(state, 0) == [0, 0, 0, 0]


def test_hand_of_fortune_reduces_cost_by_one_energy():
    state = position(2, hands={0: [10, 1]}, tableau={0: [20]}, reserve={0: {"fire": 2, "air": 1}}, gauge={0: 3})
    opts = options(state)
    assert "summon:10:-fire" in opts  # 3 fire - 1
    assert "summon:1:-air" in opts and "summon:1" not in opts  # 2 air - 1 = 1 air
    play(state, "summon:10:-fire")
    assert res(state, 0) == [1, 0, 0, 0] and cards_in_play(state, 0) == [20, 10]


def test_hand_of_fortune_never_below_one_energy():
    state = position(2, hands={0: [21]}, tableau={0: [20]}, reserve={0: {"fire": 1}}, gauge={0: 3})
    # Lewis costs fire + air: reduced by one energy to 1 fire or 1 air
    assert "summon:21:-air" in options(state)
    state = position(2, hands={0: [25]}, tableau={0: [20]}, reserve={0: {"water": 1}}, gauge={0: 3})
    assert "summon:25:-water" in options(state)  # 2 water -> 1 water
    state = position(2, hands={0: [5]}, tableau={0: [20]}, crystals={0: 6}, gauge={0: 3})
    assert options(state).count("summon:5") == 1  # crystals only: no reduction


def test_kairn_activation_each_opponent_loses_four():
    state = position(3, tableau={0: [16]}, reserve={0: {"water": 1}}, crystals={1: 10, 2: 3})
    play(state, "activate:0")
    assert options(state) == ["energy:water"]
    play(state, "energy:water")
    assert state.crystals == [0, 6, 0]
    assert "activate:0" not in options(state)  # once per turn


def test_kairn_not_offered_without_energy():
    state = position(2, tableau={0: [16]}, crystals={1: 10})
    assert "activate:0" not in options(state)


def test_ragfields_helm_end_of_game():
    state = position(2, tableau={0: [19, 1], 1: [3]})
    assert GAME.score_of(state, 0) == 10 + 6 + 20
    state = position(2, tableau={0: [19, 1], 1: [3, 2]})
    assert GAME.score_of(state, 0) == 16


def test_naria_keep_one_give_one_to_each_opponent():
    state = position(3, hands={0: [12]}, crystals={0: 3}, draw=[1, 2, 3, 4], gauge={0: 1})
    play(state, "summon:12")
    assert options(state) == ["card:1", "card:2", "card:3"]
    play(state, "card:2")
    assert state.hands[0] == [2]
    assert state.pending[0].seat == 0 and options(state) == ["card:1", "card:3"]
    play(state, "card:3")
    play(state, "card:1")
    assert state.hands == [[2], [3], [1]]
    # the receiver sees the card, the third seat does not
    gives = [e for e in state.log.events if e.kind == "give"]
    assert any(e.detail.card == 3 and e.to == frozenset({0, 1}) for e in gives)
    assert all(e.detail.card == 0 for e in gives if e.to is not None and 2 in e.to and 0 not in e.to)


def test_lewis_copies_an_opponents_reserve():
    state = position(3, hands={0: [21]}, reserve={0: {"fire": 1, "air": 1}, 1: {"water": 2}, 2: {"earth": 3}})
    play(state, "summon:21")
    assert options(state) == ["seat:1", "seat:2"]
    play(state, "seat:2")
    assert res(state, 0) == [0, 0, 0, 3]


def test_amsug_every_seat_returns_a_magic_item():
    state = position(
        2, hands={0: [17]}, tableau={0: [3], 1: [10, 1]}, reserve={0: {"water": 1, "air": 1}}, gauge={0: 2}
    )
    play(state, "summon:17")
    assert state.pending[0].seat == 0 and options(state) == ["tableau:0"]  # Amsug is a familiar
    play(state, "tableau:0")
    assert state.pending[0].seat == 1 and options(state) == ["tableau:1"]  # Syllas is a familiar
    play(state, "tableau:1")
    assert state.hands == [[3], [1]] and cards_in_play(state, 0) == [17] and cards_in_play(state, 1) == [10]


def test_amulets_air_earth_fire():
    state = position(
        2, hands={0: [1, 3, 2]}, reserve={0: {"air": 2, "earth": 2, "fire": 2}}, gauge={0: 3}, draw=[5, 6, 7, 8, 9]
    )
    play(state, "summon:1")
    assert state.gauge[0] == 5
    play(state, "summon:3")
    assert state.crystals[0] == 9
    play(state, "summon:2")
    assert options(state) == ["card:5", "card:6", "card:7", "card:8"]
    play(state, "card:7")
    assert state.hands[0] == [7] and state.discard == [5, 6, 8] and state.draw_pile == [9]


def test_amulet_of_water_stores_four_energies_usable_like_reserve():
    state = position(2, hands={0: [4, 10]}, reserve={0: {"water": 2, "fire": 1}}, gauge={0: 3})
    assert "summon:10" not in options(state)
    play(state, "summon:4", "energy:fire", "energy:fire", "energy:air", "energy:earth")
    assert state.tableau[0][0].energies == [0, 1, 0, 2, 1]
    assert "summon:10" in options(state)
    play(state, "summon:10")
    assert res(state, 0) == [0, 0, 0, 0] and state.tableau[0][0].energies == [0, 1, 0, 0, 1]


def test_balance_of_ishtar():
    state = position(2, tableau={0: [5]}, reserve={0: {"water": 4, "air": 3}})
    play(state, "activate:0")
    assert options(state) == ["energy:water"]
    play(state, "energy:water")
    assert state.crystals[0] == 12 and res(state, 0) == [3, 0, 0, 0]


def test_temporal_boots_move_within_the_year():
    state = position(2, hands={0: [7]}, tableau={1: [11]}, crystals={0: 2}, month=2)
    play(state, "summon:7")
    assert options(state) == ["move:-1", "move:+1", "move:+2", "move:+3"]
    play(state, "move:+2")
    assert state.month == 4
    assert state.crystals == [1, 1]  # spring: Figrim of seat 1 takes 1


def test_divine_chalice_summons_one_free():
    state = position(
        2, hands={0: [9]}, reserve={0: {"air": 1, "water": 1, "fire": 1, "earth": 1}}, gauge={0: 2}, draw=[29, 22, 1, 3]
    )
    play(state, "summon:9")
    assert options(state) == ["card:1", "card:3", "card:22", "card:29"]
    play(state, "card:29")
    assert cards_in_play(state, 0) == [9, 29] and state.crystals[0] == 20
    assert sorted(state.discard) == [1, 3, 22]


def test_divine_chalice_without_room_discards_all():
    state = position(
        2, hands={0: [9]}, reserve={0: {"air": 1, "water": 1, "fire": 1, "earth": 1}}, gauge={0: 1}, draw=[29, 22, 1, 3]
    )
    play(state, "summon:9")
    assert state.pending[0].kind == "turn" and sorted(state.discard) == [1, 3, 22, 29]


def test_die_of_malice_rerolls_at_turn_start():
    chance = PresetChance(rolls={"reroll": [3]})
    state = position(2, tableau={1: [15]}, rolled=[DRAW_FACE])
    state.chance = chance
    play(state, "end")
    assert state.pending[0].seat == 1 and state.pending[0].kind == "reroll"
    play(state, "reroll")
    face = DICE[0][0][2]  # winter die 1 face 3: 2 water, 3 crystals
    assert state.dice[1] == face
    assert state.crystals[1] == 2 + 3 and res(state, 1) == [0, 2, 0, 0]


def test_grimoire_reserve_ten_and_two_energies():
    state = position(2, hands={0: [18]}, reserve={0: {"water": 4, "earth": 3}})
    play(state, "summon:18", "energy:air", "energy:air")
    assert res(state, 0) == [2, 3, 0, 2] and state.pending[0].kind == "turn"
    obs = GAME.observe(state, 0)
    assert obs.seats[0].reserve_cap == 10


def test_overflow_discard_by_choice():
    state = position(2, hands={0: [25]}, tableau={0: [25]}, reserve={0: {"water": 6}})
    play(state, "activate:0")
    play(state, "energy:fire", "energy:fire", "energy:fire", "energy:fire", "energy:fire")
    assert res(state, 0) == [0, 6, 5, 0]
    assert state.pending[0].kind == "energy" and options(state) == ["energy:water", "energy:fire"]
    play(state, "energy:water", "energy:fire", "energy:fire", "energy:fire")
    assert res(state, 0) == [0, 5, 2, 0] and state.pending[0].kind == "turn"
    assert cards_in_play(state, 0) == [] and state.discard == [25]


def test_potions_power_dreams_life():
    state = position(2, hands={0: [29]}, tableau={0: [23, 24, 26]}, reserve={0: {"fire": 2}}, draw=[3], gauge={0: 3})
    play(state, "activate:0")
    assert state.hands[0] == [29, 3] and state.gauge[0] == 5 and cards_in_play(state, 0) == [24, 26]
    play(state, "activate:1")  # Potion of Life: 2 energies -> 8 crystals
    assert state.crystals[0] == 8 and res(state, 0) == [0, 0, 0, 0]
    play(state, "activate:0", "card:29")  # Potion of Dreams: summon Olaf for free
    assert cards_in_play(state, 0) == [29] and state.crystals[0] == 28 and state.hands[0] == [3]


def test_scepter_counts_other_magic_items():
    state = position(
        2, hands={0: [28]}, tableau={0: [1, 3, 10]}, reserve={0: {"air": 1, "water": 1, "fire": 1, "earth": 1}}
    )
    play(state, "summon:28")
    assert state.crystals[0] == 6


def test_yjang_vase_energy_per_summon():
    state = position(2, hands={0: [30, 29]}, reserve={0: {"water": 4, "fire": 1, "earth": 1}}, gauge={0: 2})
    play(state, "summon:30")
    assert state.pending[0].kind == "turn"
    play(state, "summon:29", "energy:earth")
    assert res(state, 0) == [0, 0, 0, 1]


# -- rules -------------------------------------------------------------------------------------------


def test_archmage_refused_until_advanced_cards_exist():
    from arena.games.seasons.game import advanced_ready

    if advanced_ready():
        pytest.skip("cards 31-50 are implemented")
    with pytest.raises(ConfigError, match="31-50"):
        GAME.config(2, {"mode": "archmage"})


def test_illegal_choice_changes_nothing():
    state = position(2, hands={0: [10]})
    before = GAME.observe(state, SPECTATOR).SerializeToString()
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {0: "summon:10"})
    assert GAME.observe(state, SPECTATOR).SerializeToString() == before


def test_energies_helper():
    assert energies({"air": 2, "earth": 1}) == [0, 2, 0, 0, 1]
    assert (AIR, WATER, FIRE, EARTH) == (1, 2, 3, 4)
