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
    SeasonsState,
    Slot,
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
    assert options(state) == ["card:1", "card:3", "card:22", "card:29", "none"]
    play(state, "card:29")
    assert cards_in_play(state, 0) == [9, 29] and state.crystals[0] == 20
    assert sorted(state.discard) == [1, 3, 22]


def test_divine_chalice_summoning_amulet_of_fire_keeps_the_draws_apart():
    state = position(
        2,
        hands={0: [9]},
        reserve={0: {"air": 1, "water": 1, "fire": 1, "earth": 1}},
        gauge={0: 2},
        draw=[2, 22, 1, 3, 5, 6, 7, 8],
    )
    play(state, "summon:9", "card:2")
    assert sorted(state.discard) == [1, 3, 22]
    assert options(state) == ["card:5", "card:6", "card:7", "card:8"]
    play(state, "card:8")
    assert state.hands[0] == [8] and sorted(state.discard) == [1, 3, 5, 6, 7, 22]
    assert cards_in_play(state, 0) == [9, 2]


def test_divine_chalice_may_summon_none():
    state = position(2, hands={0: [9]}, reserve={0: {"air": 1, "water": 1, "fire": 1, "earth": 1}}, gauge={0: 2},
                     draw=[29, 22, 1, 3])  # fmt: skip
    play(state, "summon:9", "none")
    assert cards_in_play(state, 0) == [9] and sorted(state.discard) == [1, 3, 22, 29]


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


def test_two_to_four_players():
    """DATA 1.1 / NOTES 4.17 §1: 2-4 players, not the page's "2 to 6"."""
    for players in (1, 5, 6):
        with pytest.raises(ConfigError, match="2-4 players"):
            GAME.config(players)
    assert [GAME.config(p).players for p in (2, 3, 4)] == [2, 3, 4]


def test_start_event_names_the_dice_in_play():
    chance = PresetChance(2, orders={"season-dice": [[5, 1, 3, 2, 4]] * 4}, picks={"first": [1]})
    state = GAME.new_match(GAME.config(2, {"mode": "magician"}), chance=chance)
    start = state.log.events[0]
    assert start.kind == "start" and list(start.detail.dice_in_play) == [1, 3, 5] * 4
    assert start.detail.seat == 1 and start.detail.reason == "magician"


def test_unknown_mode_is_refused():
    with pytest.raises(ConfigError, match="apprentice, magician, archmage"):
        GAME.config(2, {"mode": "wizard"})


def test_illegal_choice_changes_nothing():
    state = position(2, hands={0: [10]})
    before = GAME.observe(state, SPECTATOR).SerializeToString()
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {0: "summon:10"})
    assert GAME.observe(state, SPECTATOR).SerializeToString() == before


def test_energies_helper():
    assert energies({"air": 2, "earth": 1}) == [0, 2, 0, 0, 1]
    assert (AIR, WATER, FIRE, EARTH) == (1, 2, 3, 4)


# -- the flow ----------------------------------------------------------------------------------------


def run_random(state, rng, until):
    while state.pending and not until(state):
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})


def test_draft_passes_left_and_is_sealed():
    state = GAME.new_match(GAME.config(3), 3)
    assert state.phase == pb.PHASE_DRAFT and sorted(d.seat for d in state.pending) == [0, 1, 2]
    assert all(d.kind == "draft" for d in state.pending)
    packets = [list(p) for p in state.packets]
    picks = {s: f"pick:{packets[s][0]}" for s in range(3)}
    GAME.apply(state, picks)
    for s in range(3):
        rest = list(packets[s])
        rest.remove(packets[s][0])
        assert state.packets[(s + 1) % 3] == rest  # to the left neighbour
        assert state.passed[s] == sorted(rest)
        assert state.drafted[s] == [packets[s][0]]
    # the other seats' picks are private events
    drafts = [e for e in state.log.events if e.kind == "draft" and e.detail.card]
    assert all(e.to == frozenset({e.seat}) for e in drafts)


def test_draft_then_library_then_round():
    state = GAME.new_match(GAME.config(2, {"mode": "magician"}), 5)
    for _ in range(9):
        GAME.apply(state, {d.seat: d.options[0].id for d in state.pending})
    assert state.phase == pb.PHASE_LIBRARY and all(len(d) == 9 for d in state.drafted)
    for step in range(6):
        assert all(d.options[0].id.startswith("lib2:" if step < 3 else "lib3:") for d in state.pending)
        GAME.apply(state, {d.seat: d.options[0].id for d in state.pending})
    for s in range(2):
        assert len(state.hands[s]) == 3 and [len(x) for x in state.libraries[s]] == [3, 3]
        assert sorted(state.hands[s] + state.libraries[s][0] + state.libraries[s][1]) == state.drafted[s]
    assert state.phase == pb.PHASE_DICE and state.round == 1 and len(state.rolled) == 3
    assert len(state.draw_pile) == 60 - 18


def test_apprentice_prebuilt_hands():
    chance = PresetChance(1, orders={"decks": [[2, 0, 3, 1]]})
    state = GAME.new_match(GAME.config(2, {"mode": "apprentice"}), chance=chance)
    assert state.phase == pb.PHASE_LIBRARY
    assert state.drafted[0] == [4, 6, 7, 9, 12, 16, 22, 24, 30]
    assert state.drafted[1] == [1, 2, 7, 17, 18, 20, 26, 29, 30]
    assert len(state.draw_pile) == 60 - 18
    assert sorted(state.draw_pile + state.drafted[0] + state.drafted[1]) == sorted(list(range(1, 31)) * 2)


def test_round_dice_order_leftover_moves_token_and_first_player_rotates():
    chance = PresetChance(
        2,
        orders={"season-dice": [[1, 2, 3, 4, 5]] * 4},
        picks={"first": [1]},
        rolls={"dice": [5, 3, 2]},  # winter dice 1, 2, 3
    )
    state = GAME.new_match(GAME.config(2, {"mode": "apprentice"}), chance=chance)
    assert state.dice_set == [[1, 2, 3]] * 4 and state.first == 1
    for _ in range(6):
        GAME.apply(state, {d.seat: d.options[0].id for d in state.pending})
    assert [(f.die, f.face) for f in state.rolled] == [(1, 5), (2, 3), (3, 2)]
    assert state.pending[0].seat == 1 and options(state) == ["die:1", "die:2", "die:3"]
    play(state, "die:2")  # 2 fire, star (1 pip)
    assert state.pending[0].seat == 0 and options(state) == ["die:1", "die:3"]
    play(state, "die:3")  # winter die 3 face 2: 1 air, star, transmute (2 pips)
    # leftover: die 1 face 5 (2 pips); seat 1 plays first
    assert state.turn_seat == 1 and res(state, 1) == [0, 0, 2, 0] and state.gauge[1] == 1
    play(state, "end")
    assert state.turn_seat == 0 and res(state, 0) == [1, 0, 0, 0] and state.may_transmute
    play(state, "end")
    assert state.month == 3 and state.first == 0 and state.round == 2


def test_three_players_dice_clockwise_from_the_first_player_then_left_neighbour_is_first():
    # :71 dice are taken from the first player clockwise (seat + 1), :82 turns in the same order,
    # :86 the leftover die's pips move the season marker, :90 the first player's left neighbour
    # (seat + 1) is the next first player. 3 players: 4 dice (:41).
    chance = PresetChance(
        3,
        orders={"season-dice": [[1, 2, 3, 4, 5]] * 4},
        picks={"first": [1]},
        rolls={"dice": [5, 5, 5, 3]},  # winter dice 1-3 face 5 (card draw), die 4 face 3
    )
    state = GAME.new_match(GAME.config(3, {"mode": "apprentice"}), chance=chance)
    for _ in range(6):  # the library phase
        GAME.apply(state, {d.seat: d.options[0].id for d in state.pending})
    assert state.first == 1 and len(state.rolled) == 4
    order = []
    while state.phase == pb.PHASE_DICE:
        order.append(state.pending[0].seat)
        play(state, "die:1" if "die:1" in options(state) else options(state)[0])
    assert order == [1, 2, 0]
    assert [(f.die, f.face, f.pips) for f in state.rolled] == [(4, 3, 3)]  # the leftover die: 3 pips
    turns = []
    while state.round == 1:
        turns.append(state.pending[0].seat)
        play(state, "end" if "end" in options(state) else options(state)[0])
    assert turns[0] == 1 and [t for i, t in enumerate(turns) if i == 0 or t != turns[i - 1]] == [1, 2, 0]
    assert state.month == 4 and state.first == 2  # month 1 + 3 pips: spring


def test_die_card_draw_keep_or_discard():
    state = position(2, draw=[29, 3])
    play(state, "draw")
    assert state.pending[0].kind == "keep" and options(state) == ["keep", "discard"]
    assert GAME.observe(state, 0).drawn == 29 and GAME.observe(state, 1).drawn == 0
    play(state, "keep")
    assert state.hands[0] == [29] and "draw" not in options(state)
    state = position(2, draw=[29, 3])
    play(state, "draw", "discard")
    assert state.hands[0] == [] and state.discard == [29]


def test_draw_pile_remade_from_discard():
    state = position(2, draw=[], discard=[5, 6], seed=4)
    play(state, "draw")
    assert len(state.limbo[0]) == 1 and state.discard == [] and len(state.draw_pile) == 1
    assert any(e.kind == "draw" and e.detail.reason == "reshuffle" for e in state.log.events)


def test_bonus_draw_needs_the_card_symbol_and_costs_penalty():
    state = position(2, draw=[1, 2, 3])
    play(state, "bonus:draw")
    assert options(state) == ["card:1", "card:2"]
    play(state, "card:2")
    assert state.hands[0] == [2] and state.discard == [1] and state.bonus_used[0] == 1
    state = position(2, draw=[1, 2, 3], die=DICE[0][0][2])  # no card symbol
    assert "bonus:draw" not in options(state) and "draw" not in options(state)


def test_bonus_transmute_plus_one_once_per_turn():
    state = position(2, reserve={0: {"earth": 2}}, month=7)  # summer: earth 1
    assert not any(o.startswith("transmute:") for o in options(state))
    play(state, "bonus:transmute")
    assert "bonus:transmute" not in options(state)
    play(state, "transmute:earth")
    assert state.crystals[0] == 2


def test_bonus_exchange_one_or_two():
    state = position(2, reserve={0: {"earth": 2}})
    play(state, "bonus:exchange")
    assert options(state) == ["energy:earth"]
    play(state, "energy:earth", "energy:fire")
    assert options(state) == ["energy:fire", "energy:earth", "stop"]
    play(state, "energy:earth", "energy:air")
    assert res(state, 0) == [1, 0, 1, 0] and state.pending[0].kind == "turn"
    state = position(2, reserve={0: {"earth": 2}})
    play(state, "bonus:exchange", "energy:earth", "energy:water", "stop")
    assert res(state, 0) == [0, 1, 0, 1]


def test_bonus_gauge_and_three_uses_at_most():
    state = position(2, gauge={0: 14})
    play(state, "bonus:gauge")
    assert state.gauge[0] == 15 and "bonus:gauge" not in options(state)  # gauge max 15
    state = position(2, reserve={0: {"air": 1}})
    play(state, "bonus:gauge", "bonus:gauge", "bonus:transmute")
    assert state.bonus_used[0] == 3
    assert not any(o.startswith("bonus:") for o in options(state))


def test_die_energy_over_the_reserve_cap():
    # winter die 1 face 3: 2 water, 3 crystals; reserve 6 -> 8 > 7: discard 1 by choice
    state = position(2, reserve={1: {"fire": 6}}, rolled=[DICE[0][0][2]])
    play(state, "end")
    assert state.pending[0].seat == 1 and state.pending[0].kind == "energy"
    assert options(state) == ["energy:water", "energy:fire"]
    play(state, "energy:fire")
    assert res(state, 1) == [0, 2, 5, 0] and state.crystals[1] == 3


def test_transmute_rates_by_season():
    for month, expected in ((1, [1, 1, 2, 3]), (4, [2, 1, 3, 1]), (7, [3, 2, 1, 1]), (10, [1, 3, 1, 2])):
        got = []
        for energy in ("air", "water", "fire", "earth"):
            state = position(2, reserve={0: {energy: 1}}, month=month, transmute=True)
            play(state, f"transmute:{energy}")
            got.append(state.crystals[0])
        assert got == expected


def test_year_two_brings_library_two():
    state = position(2, month=12, libraries={0: ([1, 2, 3], [4, 5, 6]), 1: ([7, 8, 9], [10, 11, 12])})
    play(state, "end", "end")
    assert state.year == 2 and state.month == 1
    assert state.hands == [[1, 2, 3], [7, 8, 9]] and state.libraries[0] == [[], [4, 5, 6]]
    assert [e.kind for e in state.log.events if e.kind in ("year", "library")] == ["library", "library", "year"]


@pytest.mark.parametrize(
    ("month", "after", "year", "hands"), [(10, 12, 1, [[], []]), (11, 1, 2, [[1, 2, 3], [7, 8, 9]])]
)
def test_the_year_changes_only_when_the_token_goes_beyond_month_12(month, after, year, hands):
    """:88 "If the season marker goes beyond square 12 (late autumn), the year marker is moved one
    square forward": a 2-pip leftover die moves month 10 onto 12 (same year), month 11 past it."""
    libraries = {0: ([1, 2, 3], [4, 5, 6]), 1: ([7, 8, 9], [10, 11, 12])}
    state = position(2, month=month, leftover=DRAW_FACE, libraries=libraries)
    play(state, "end", "end")
    assert (state.year, state.month, state.hands) == (year, after, hands)
    assert [(e.detail.month, e.detail.year) for e in state.log.events if e.kind == "season"] == [(after, year)]
    assert [e.detail.year for e in state.log.events if e.kind == "year"] == ([] if year == 1 else [2])


def test_year_three_brings_library_three():
    # :88: passing month 12 in year 2 moves the year marker to 3; each seat takes its Library III
    # cards into its hand (the leftover die shows 1 pip: month 12 -> past the wheel -> month 1).
    state = position(
        2,
        year=2,
        month=12,
        hands={0: [7], 1: []},
        libraries={0: ([], [1, 2, 3]), 1: ([], [4, 5, 6])},
    )
    play(state, "end", "end")
    assert state.year == 3 and state.month == 1 and state.phase != pb.PHASE_OVER
    assert [sorted(h) for h in state.hands] == [[1, 2, 3, 7], [4, 5, 6]]
    assert state.libraries == [[[], []], [[], []]]
    view = GAME.observe(state, 0)
    assert (view.year, view.month, list(view.library_3)) == (3, 1, [])
    assert [(v.hand_size, v.library_2, v.library_3) for v in view.seats] == [(4, 0, 0), (3, 0, 0)]


def test_game_ends_after_year_three_with_scores():
    state = position(
        2,
        year=3,
        month=12,
        hands={1: [1]},
        tableau={0: [19, 22], 1: [3]},
        crystals={0: 10, 1: 40},
    )
    state.bonus_used = [1, 3]
    play(state, "end", "end")
    assert state.phase == pb.PHASE_OVER and not state.pending and state.year == 4
    result = GAME.result(state)
    # seat 0: 10 + 10 + 30 + 20 (helm: 2 cards vs 1) - 5 = 65; seat 1: 40 + 6 - 20 - 5 = 21
    assert result.scores == (65, 21) and result.ranks == (1, 2)
    assert state.log.events[-1].kind == "end" and list(state.log.events[-1].detail.scores) == [65, 21]


def test_score_floored_at_zero_and_tie_break_cards_in_play():
    state = position(2, hands={0: [1, 2, 3]}, crystals={0: 4})
    assert GAME.score_of(state, 0) == 0
    state = position(3, tableau={0: [29, 23], 1: [1], 2: [7]}, crystals={0: 8, 1: 2, 2: 0})
    # seat 0: 8 + 0 = 8 (2 cards); seat 1: 2 + 6 = 8 (1 card); seat 2: 8 (1 card)
    state.phase, state.pending = pb.PHASE_OVER, ()
    result = GAME.score(state)
    assert result.scores == (8, 8, 8) and result.ranks == (1, 2, 2)


def test_figrim_cost_scales_with_players():
    for players, cost in ((2, 3), (3, 6), (4, 9)):
        state = position(players, hands={0: [11]}, crystals={0: cost})
        play(state, "summon:11")
        assert state.crystals[0] == 0
        state = position(players, hands={0: [11]}, crystals={0: cost - 1})
        assert "summon:11" not in options(state)


def test_gauge_limits_cards_in_play():
    state = position(2, hands={0: [7]}, tableau={0: [22]}, gauge={0: 1})
    assert "summon:7" not in options(state)
    state = position(2, hands={0: [7]}, tableau={0: [22]}, gauge={0: 2})
    assert "summon:7" in options(state)


# -- hidden information ------------------------------------------------------------------------------


def mid_game(players, seed, steps):
    state = GAME.new_match(GAME.config(players), seed)
    rng = Chance(seed)
    for _ in range(steps):
        if not state.pending:
            break
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    return state


def hidden_from(state, seat):
    """The zones ``seat`` cannot see (others' hands, packets, picks during the draft, libraries,
    limbo; the draw pile)."""
    zones = [state.draw_pile]
    for s in range(state.players):
        if s != seat:
            zones += [state.hands[s], state.packets[s], state.limbo[s], *state.libraries[s]]
            if state.phase == pb.PHASE_DRAFT:
                zones.append(state.drafted[s])
    return zones


@pytest.mark.parametrize("steps", [0, 5, 20, 200, 400, 600])
def test_leak_hidden_cards_do_not_change_the_view(steps):
    """Two states differing only in the cards seat 0 cannot see give it identical bytes."""
    from tests.contract import assert_same_view, observation_bytes

    state = mid_game(3, 17, steps)
    other = GAME.clone(state)
    zones = hidden_from(other, 0)
    cards = [c for z in zones for c in z]
    rotated = cards[1:] + cards[:1]  # every hidden card moves to another place
    at = 0
    for zone in zones:
        zone[:] = rotated[at : at + len(zone)]
        at += len(zone)
    GAME.refresh(other)
    assert_same_view(GAME, state, other, 0)
    assert cards != rotated
    assert any(observation_bytes(GAME, state, s) != observation_bytes(GAME, other, s) for s in (1, 2))


def test_leak_no_event_names_a_hidden_card():
    public_cards = {"summon", "sacrifice", "return", "discard", "activate"}
    for seed in range(30):
        state = mid_game(3, seed, 10_000)
        for event in state.log.events:
            names = list(event.detail.cards) if event.detail else []
            if event.detail and event.detail.card:
                names.append(event.detail.card)
            if not names:
                continue
            if event.to is None:
                assert event.kind in public_cards, (event.kind, event.text)
            else:
                # a private event names cards only to seats that hold or saw them
                assert event.kind in {"hand", "draft", "library", "drawn", "keep", "give", "discard"}, event.kind
                assert len(event.to) <= 2


def test_prompt_cards_only_to_the_chooser():
    state = position(3, hands={0: [12]}, crystals={0: 3}, draw=[1, 2, 3, 4], gauge={0: 1})
    play(state, "summon:12")
    assert list(GAME.observe(state, 0).prompt.cards) == [1, 2, 3]
    assert list(GAME.observe(state, 1).prompt.cards) == []
    assert GAME.observe(state, 1).prompt.reason == "keep-one"
    assert list(GAME.observe(state, SPECTATOR).prompt.cards) == [1, 2, 3]


# -- worlds ------------------------------------------------------------------------------------------


def test_sample_world_deals_unseen_cards_uniformly():
    from collections import Counter
    from itertools import combinations

    from scipy.stats import chisquare

    state = position(2, hands={0: [1], 1: [2, 3]}, draw=[4, 5, 6])
    chance = Chance(5)
    n = 3000
    seen = Counter(tuple(sorted(GAME.sample_world(state, 0, chance).hands[1])) for _ in range(n))
    pairs = list(combinations([2, 3, 4, 5, 6], 2))
    assert set(seen) == set(pairs)
    assert chisquare([seen[p] for p in pairs], [n / len(pairs)] * len(pairs)).pvalue > 0.001
    world = GAME.sample_world(state, 0, chance)
    assert world.hands[0] == [1] and len(world.draw_pile) == 3


def test_sample_world_keeps_the_library_phase_consistent():
    state = GAME.new_match(GAME.config(2), 8)
    for _ in range(9 + 2):
        GAME.apply(state, {d.seat: d.options[-1].id for d in state.pending})
    world = GAME.sample_world(state, 0, Chance(3))
    assert world.libraries[0] == state.libraries[0] and world.drafted[0] == state.drafted[0]
    assert len(world.libraries[1][0]) == 2 and all(c in world.drafted[1] for c in world.libraries[1][0])


def test_sample_world_apprentice_decks_are_the_other_prebuilt_decks():
    """Ruling 22: each seat is told only its own prebuilt deck; the others hold, one each, the
    decks it does not hold (uniformly among those that fit), never cards of the unseen pool."""
    from collections import Counter

    from scipy.stats import chisquare

    from arena.games.seasons.framework import APPRENTICE_DECKS

    decks = [tuple(sorted(d)) for d in APPRENTICE_DECKS]
    state = GAME.new_match(GAME.config(2, {"mode": "apprentice"}), 4)
    assert state.phase == pb.PHASE_LIBRARY
    GAME.apply(state, {d.seat: d.options[0].id for d in state.pending})  # one Library II card each
    mine = decks.index(tuple(state.drafted[0]))
    chance = Chance(11)
    n = 1500
    seen: Counter[tuple[int, ...]] = Counter()
    for _ in range(n):
        world = GAME.sample_world(state, 0, chance)
        deck = tuple(world.drafted[1])
        assert deck in decks and deck != decks[mine]
        assert len(world.libraries[1][0]) == 1 and world.libraries[1][0][0] in deck
        assert world.drafted[0] == state.drafted[0] and world.libraries[0] == state.libraries[0]
        seen[deck] += 1
    others = [d for i, d in enumerate(decks) if i != mine]
    assert set(seen) == set(others)
    assert chisquare([seen[d] for d in others], [n / 3] * 3).pvalue > 0.001


def _apprentice_past_the_library(players: int) -> tuple[list[tuple[int, ...]], SeasonsState]:
    """The prebuilt decks (sorted) and a seeded apprentice match in round 6 or later, at a turn,
    with cards played, drawn and given since the library phase."""
    from arena.games.seasons.framework import APPRENTICE_DECKS

    decks = [tuple(sorted(d)) for d in APPRENTICE_DECKS]
    state = GAME.new_match(GAME.config(players, {"mode": "apprentice"}), 21)
    rng = Chance(5)
    while state.round < 6 or state.phase != pb.PHASE_TURN:
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert state.summons >= 3
    return decks, state


@pytest.mark.parametrize("players", [3, 4])
def test_sample_world_apprentice_hands_come_from_the_seats_decks(players):
    from collections import Counter

    decks, state = _apprentice_past_the_library(players)
    truth = tuple(decks.index(tuple(state.drafted[s])) for s in range(1, players))
    assignments = set()
    chance = Chance(2)
    for _ in range(200):
        world = GAME.sample_world(state, 0, chance)
        used = [decks.index(tuple(world.drafted[s])) for s in range(1, players)]
        assert len(set(used)) == players - 1 and decks.index(tuple(state.drafted[0])) not in used
        assignments.add(tuple(used))
        for s in range(1, players):
            out = Counter(  # what it summoned or discarded one by one (from hand or play)
                e.detail.card for e in state.log.events if e.kind in ("summon", "discard") and e.seat == s
            )
            rest = Counter(world.drafted[s]) - out  # the deck's cards it cannot have played
            held = Counter(world.hands[s] + world.libraries[s][0] + world.libraries[s][1])
            assert not rest - held, (s, rest, held)
            libs = Counter(world.libraries[s][0] + world.libraries[s][1])
            assert not libs - Counter(world.drafted[s])  # Library II and III: deck cards only
    assert truth in assignments


def test_sample_world_keeps_cards_given_with_naria_in_the_receivers_hands():
    state = position(3, hands={0: [12]}, crystals={0: 3}, draw=[1, 2, 3, 4, 5, 6, 7, 8, 9], gauge={0: 1})
    play(state, "summon:12", "card:2", "card:3", "card:1")  # seat 1 gets #3, seat 2 gets #1
    chance = Chance(7)
    for _ in range(200):
        world = GAME.sample_world(state, 0, chance)
        assert 3 in world.hands[1] and 1 in world.hands[2]
    others = {tuple(GAME.sample_world(state, 1, chance).hands[2]) for _ in range(200)}
    assert len(others) > 1  # seat 1 did not see what seat 2 got
    # once the receiver played the card, nothing is known of its hand any more
    state = position(3, hands={0: [12], 1: [20]}, crystals={0: 3}, draw=[1, 2, 3, 4, 5, 6, 7, 8, 9], gauge={0: 1})
    play(state, "summon:12", "card:2", "card:3", "card:1")
    assert sorted(state.hands[1]) == [3, 20]
    state.hands[1].remove(3)
    state.tableau[1].append(Slot(3))
    state.log.public(1, "summon", "summons #3", pb.EventDetail(seat=1, card=3))
    state.played[1].append(3)
    hands = {tuple(sorted(GAME.sample_world(state, 0, chance).hands[1])) for _ in range(200)}
    assert len(hands) > 3 and all(len(h) == 1 for h in hands)


def test_sample_world_keeps_the_card_put_back_with_crystal_orb_on_top():
    state = position(2, tableau={0: [34]}, hands={1: [7]}, draw=[29, 3, 4, 5, 6], reserve={0: {"air": 4}}, gauge={0: 2})
    play(state, "activate:0", "draw", "none")
    assert state.draw_pile[-1] == 29
    chance = Chance(3)
    assert all(GAME.sample_world(state, 0, chance).draw_pile[-1] == 29 for _ in range(100))
    assert len({GAME.sample_world(state, 1, chance).draw_pile[-1] for _ in range(100)}) > 1
    # the pile changed (seat 0 draws it with its die): the knowledge is spent
    play(state, "draw", "discard")
    assert len({GAME.sample_world(state, 0, chance).draw_pile[-1] for _ in range(100)}) > 1


# -- playouts ----------------------------------------------------------------------------------------

MAX_ROUNDS = 36  # every round moves the token 1-3 months forward (Boots: back 1-3 within the year)
MAX_STEPS = 1000  # decisions; measured maximum over the 2,000 playouts below: 555 (4 players, archmage)
PLAYOUT_MODES = ("archmage", "magician", "apprentice")


def gauge_allowance(state, seat):
    """How far the seat's cards in play may exceed its gauge: 1 per gauge step taken away by an
    opponent's Demon of Argos #38 (A9) and 1 per Damned Soul of Onys #50 passed to it (A20).
    Every other way into play (a summon, paid or free) needs room under the gauge."""
    allowance = 0
    for e in state.log.events:
        d = e.detail
        if e.kind == "gain" and d.source == 38 and d.amount < 0 and d.seat == seat:
            allowance -= d.amount
        elif e.kind == "give" and d.reason == "onys" and d.target == seat:
            allowance += 1
    return allowance


def check_playout(players, seed, mode):
    state = GAME.new_match(GAME.config(players, {"mode": mode}), seed)
    rng = Chance(seed ^ 0xACE)
    steps = 0
    pool = sorted(list(range(1, 51 if mode == "archmage" else 31)) * 2)
    summons = 0

    def put_in_play(st, seat, number, pay, source=0):
        nonlocal summons
        summons += 1
        # a summon, paid or free (Potion of Dreams, Divine Chalice, Crystal Orb), is only ever
        # made with room under the summoning gauge [:131-132]
        assert len(st.tableau[seat]) < st.gauge[seat] <= 15, (seed, seat, number)
        type(GAME).put_in_play(GAME, st, seat, number, pay, source)

    GAME.put_in_play = put_in_play  # type: ignore[method-assign]
    try:
        while state.pending:
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
            steps += 1
            if state.phase == pb.PHASE_TURN:
                seat = state.turn_seat
                cap = 10 if any(s.card == 18 for s in state.tableau[seat]) else 7
                assert sum(state.reserve[seat][1:]) <= cap
                for s in range(players):
                    assert 0 <= state.gauge[s] <= 15
                    if mode == "archmage":  # #38 and #50 may leave more cards in play than the gauge
                        excess = len(state.tableau[s]) - state.gauge[s]
                        assert excess <= 0 or excess <= gauge_allowance(state, s), (seed, s)
                    else:
                        assert len(state.tableau[s]) <= state.gauge[s]
    finally:
        del GAME.put_in_play
    assert steps <= MAX_STEPS and state.round <= MAX_ROUNDS and state.year == 4
    assert summons == sum(1 for e in state.log.events if e.kind == "summon")
    held = [c for s in range(players) for c in state.hands[s] + [x.card for x in state.tableau[s]]]
    assert sorted(held + state.draw_pile + state.discard) == pool
    assert all(not lib[0] and not lib[1] for lib in state.libraries) and not any(state.limbo)
    assert all(c >= 0 for c in state.crystals)
    result = GAME.result(state)
    expected = expected_scores(state)
    assert result.scores == tuple(expected)
    keys = [(expected[s], len(state.tableau[s])) for s in range(players)]
    assert [r == 1 for r in result.ranks] == [k == max(keys) for k in keys]
    return steps, state.round


@pytest.mark.parametrize("part", range(4))
def test_playout_invariants_2000_games(part):
    """2,000 seeded random games (500 per slice; the slices rotate the modes archmage, magician,
    apprentice and the player counts 2-4, so each of the 9 pairs is played ~222 times): cards
    conserved, reserves within the cap, every summon made with room under the gauge, cards in
    play within the gauge except for what Demon of Argos #38 and Damned Soul of Onys #50 add,
    scores as the rules say, every game ends within MAX_ROUNDS rounds and MAX_STEPS decisions."""
    most = rounds = 0
    for k in range(500):
        seed = part * 500 + k
        players = 2 + seed % 3
        mode = PLAYOUT_MODES[(seed // 3) % 3]
        steps, played = check_playout(players, seed, mode)
        most, rounds = max(most, steps), max(rounds, played)
    assert most <= MAX_STEPS and rounds <= MAX_ROUNDS


def test_heuristic_beats_random():
    from arena.runner import play_match
    from bots.registry import make_bot

    wins = 0.0
    for match in range(8):
        seat = match % 2
        specs = ["random", "random"]
        specs[seat] = "heuristic"
        record = play_match(GAME, GAME.config(2), 900 + match, [make_bot(s, "seasons") for s in specs])
        ranks = record.result["ranks"]
        wins += (ranks[seat] == 1) / ranks.count(1)
    assert wins >= 7


def test_sample_world_knows_the_packets_passed_in_a_two_player_draft():
    """2 players: the packet a seat passed is what the other seat holds now, and the card that
    left it by the time it comes back is the other seat's pick."""
    state = GAME.new_match(GAME.config(2), 21)
    first = list(state.packets[0])
    GAME.apply(state, {0: f"pick:{first[0]}", 1: state.pending[1].options[0].id})
    passed = sorted(state.passed[0])
    chance = Chance(2)
    for _ in range(20):
        world = GAME.sample_world(state, 0, chance)
        assert world.packets[1] == passed
        assert world.packets[0] == state.packets[0]
    held_second = list(state.packets[0])
    GAME.apply(state, {0: f"pick:{held_second[0]}", 1: f"pick:{state.packets[1][0]}"})
    their_second_pick = state.drafted[1][1]
    for _ in range(20):
        world = GAME.sample_world(state, 0, chance)
        assert their_second_pick in world.drafted[1] and len(world.drafted[1]) == 2
        rest = list(held_second)
        rest.remove(held_second[0])
        assert world.packets[1] == sorted(rest)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sample_world_draft_knowledge_is_consistent(players):
    from tests.contract import assert_same_view

    for seed in range(6):
        state = GAME.new_match(GAME.config(players), seed)
        rng = Chance(seed)
        chance = Chance(seed + 1)
        while state.phase in (pb.PHASE_DRAFT, pb.PHASE_LIBRARY):
            for viewer in range(players):
                world = GAME.sample_world(state, viewer, chance)
                assert_same_view(GAME, state, world, viewer)
                for s in range(players):
                    if s != viewer:
                        assert len(world.drafted[s]) == len(state.drafted[s])
                        assert len(world.packets[s]) == len(state.packets[s])
                cards = sorted(c for s in range(players) for c in world.drafted[s] + world.packets[s]) + sorted(
                    world.draw_pile
                )
                assert sorted(cards) == sorted(
                    [c for s in range(players) for c in state.drafted[s] + state.packets[s]] + state.draw_pile
                )
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})


def test_amsug_returning_the_grimoire_lowers_the_cap_and_loses_stored_energies():
    state = position(
        2,
        hands={0: [17]},
        tableau={0: [18], 1: [4]},
        reserve={0: {"water": 5, "air": 4}},
        gauge={0: 2},
    )
    state.tableau[1][0].energies = [0, 2, 0, 0, 0]
    play(state, "summon:17", "tableau:0")  # seat 0 returns its Grimoire: cap 10 -> 7
    assert state.pending[0].seat == 1
    play(state, "tableau:0")  # seat 1 returns Amulet of Water: its 2 stored air are lost
    assert state.hands[1] == [4] and state.reserve[1] == [0] * 5
    # seat 0 holds 4 water + 3 air after paying Amsug (water + air): 7, within the cap of 7
    assert res(state, 0) == [3, 4, 0, 0] and state.pending[0].kind == "turn"
    state = position(2, hands={0: [17]}, tableau={0: [18]}, reserve={0: {"water": 6, "air": 4}}, gauge={0: 2})
    play(state, "summon:17", "tableau:0")
    assert state.pending[0].kind == "energy" and GAME.observe(state, 0).prompt.reason == "overflow"
    assert GAME.observe(state, 0).prompt.left == 0
    play(state, "energy:water")
    assert res(state, 0) == [3, 4, 0, 0]


def test_keep_events_hide_the_card_from_others():
    state = position(3, draw=[29])
    play(state, "draw", "keep")
    keeps = [e for e in state.log.events if e.kind == "keep"]
    assert [(sorted(e.to), e.detail.card) for e in keeps] == [([0], 29), ([1, 2], 0)]
    drawn = [e for e in state.log.events if e.kind == "drawn"]
    assert [(sorted(e.to), list(e.detail.cards)) for e in drawn] == [([0], [29])]


def expected_scores(state) -> list[int]:
    """Final scores by the rulebook's formula (DATA 1.2), computed apart from the game's code:
    crystals + printed prestige + end-of-game cards - bonus penalty - 5 a card in hand, at least 0."""
    players = len(state.hands)
    expected = []
    for s in range(players):
        tableau = [x.card for x in state.tableau[s]]
        helm = all(len(tableau) > len(state.tableau[o]) for o in range(players) if o != s)
        extra = 20 * tableau.count(19) * helm  # Ragfield's Helm
        extra += 3 * sum(state.reserve[s][1:]) * tableau.count(45)  # Lantern of Xidit
        extra += 20 * tableau.count(46) * all(CARDS[c].item for c in tableau)  # Sealed Chest of Urm
        raw = (
            state.crystals[s]
            + sum(CARDS[c].prestige for c in tableau)
            + extra
            - [0, 5, 12, 20][state.bonus_used[s]]
            - 5 * len(state.hands[s])
        )
        expected.append(max(0, raw))
    return expected


# -- worlds from an observation alone ------------------------------------------------------------------


def _unseen_of(world, viewer):
    """The cards of a world in the places ``viewer`` cannot see (a multiset)."""
    from collections import Counter

    from arena.games.seasons.worlds import hidden_places

    cards = Counter(c for p in hidden_places(world, viewer, False) for c in p)
    if world.phase == pb.PHASE_DRAFT:
        cards.update(c for s in range(world.players) if s != viewer for c in world.drafted[s])
    return cards


def _conserved(state):
    """A ``position`` with every card of the mode somewhere: the missing ones go to the bottom
    of the draw pile (a world from an observation deals exactly the cards the game has)."""
    from collections import Counter

    from arena.games.seasons.framework import COPIES
    from arena.games.seasons.game import pool_numbers

    placed = Counter(state.draw_pile + state.discard)
    for s in range(state.players):
        placed.update(state.hands[s] + state.libraries[s][0] + state.libraries[s][1] + state.limbo[s])
        placed.update(slot.card for slot in state.tableau[s])
    missing = Counter(c for c in pool_numbers(state.mode) for _ in range(COPIES)) - placed
    state.draw_pile[0:0] = sorted(missing.elements())
    GAME.refresh(state)
    return state


def test_observation_carries_the_queued_prompts_and_the_stage():
    # Syllas #10 in a 3-player game: seat 1 is asked, seat 2's sacrifice waits in the queue.
    state = _conserved(
        position(3, hands={0: [10]}, tableau={1: [1, 3], 2: [29]}, reserve={0: {"fire": 3}}, gauge={0: 1})
    )
    play(state, "summon:10")
    seen = GAME.observe(state, 2)
    assert (seen.prompt.seat, seen.prompt.kind, seen.prompt.step, seen.prompt.card) == (1, "card", "sacrifice", 10)
    assert [(p.seat, p.kind, p.step, p.reason) for p in seen.queue] == [(2, "card", "sacrifice", "sacrifice")]
    assert seen.stage == "turn" and [v.limbo for v in seen.seats] == [0, 0, 0]
    world = GAME.world_from_observation(state.config, 2, seen, Chance(1))
    assert world.asks == state.asks and world.stage == "turn" and world.turn_order == state.turn_order
    play(world, "tableau:1")
    assert world.pending[0].seat == 2 and options(world) == ["tableau:0"]
    # Die of Malice #15 asks at the start of a turn, before the die is applied.
    state = position(2, tableau={1: [15]}, rolled=[DRAW_FACE])
    play(state, "end")
    seen = GAME.observe(state, 0)
    assert seen.stage == "turn_die" and seen.prompt.step == "malice" and list(seen.prompt.data) == [0]


def test_world_from_observation_deals_others_drawn_cards_from_the_unseen():
    # Naria #12 (3 players): seat 0 holds 3 drawn cards; seat 1 sees only how many.
    state = _conserved(position(3, hands={0: [12], 1: [7, 8]}, crystals={0: 3}, draw=[1, 2, 3], gauge={0: 1}))
    play(state, "summon:12")
    seen = GAME.observe(state, 1)
    assert [v.limbo for v in seen.seats] == [3, 0, 0] and not seen.prompt.cards
    for k in range(20):
        world = GAME.world_from_observation(state.config, 1, seen, Chance(k))
        assert world.hands[1] == [7, 8] and len(world.limbo[0]) == 3
        assert len(world.draw_pile) == len(state.draw_pile) == 54
        assert _unseen_of(world, 1) == _unseen_of(state, 1)  # the unseen pool, re-dealt
        assert world.asks == state.asks
    # the chooser's own drawn cards are kept, in order
    world = GAME.world_from_observation(state.config, 0, GAME.observe(state, 0), Chance(3))
    assert world.limbo[0] == state.limbo[0] == [1, 2, 3]


def test_world_from_observation_in_the_draft_keeps_the_passed_packet():
    state = GAME.new_match(GAME.config(3, {"mode": "magician"}), 11)
    GAME.apply(state, {d.seat: d.options[0].id for d in state.pending})
    seen = GAME.observe(state, 0)
    assert list(seen.passed) == sorted(state.packets[1])
    for k in range(10):
        world = GAME.world_from_observation(state.config, 0, seen, Chance(k))
        assert sorted(world.packets[1]) == sorted(state.packets[1])  # the packet seat 0 passed
        assert world.packets[0] == state.packets[0] and world.drafted[0] == state.drafted[0]
        assert [len(p) for p in world.packets] == [8, 8, 8] and [len(d) for d in world.drafted] == [1, 1, 1]
        assert _unseen_of(world, 0) == _unseen_of(state, 0)


def _draft_round_of_the_table():
    """3 players, magician, seed 7, every seat picking the lowest card of its packet for 3
    rounds: each first packet has been round the table once.

    Seat 0 held [1, 6, 7, 9, 16, 21, 23, 26, 27] (its first packet; picked 1), then seat 2's
    packet [12, 15, 16, 22, 24, 24, 29, 30] (picked 12), then seat 1's [10, 11, 13, 15, 20,
    26, 30] (picked 10); its first packet is back as [9, 16, 21, 23, 26, 27]: 6 and 7 left it
    meanwhile, picked by seats 1 and 2 (one each); of seat 2's packet seat 1 picked one card
    and seat 2 holds the other six of [15, 16, 22, 24, 24, 29, 30]; seat 1 holds what seat 0
    passed, [11, 13, 15, 20, 26, 30]."""
    state = GAME.new_match(GAME.config(3, {"mode": "magician"}), 7)
    for _ in range(3):
        GAME.apply(state, {s: f"pick:{state.packets[s][0]}" for s in range(3)})
    assert state.packets == [[9, 16, 21, 23, 26, 27], [11, 13, 15, 20, 26, 30], [16, 22, 24, 24, 29, 30]]
    assert state.drafted == [[1, 12, 10], [5, 6, 15], [10, 6, 7]]
    return state


def test_observation_carries_the_seats_draft_sightings():
    state = _draft_round_of_the_table()
    mine = [(list(x.cards), x.pick) for x in GAME.observe(state, 0).sightings]
    assert mine == [
        ([1, 6, 7, 9, 16, 21, 23, 26, 27], 1),
        ([12, 15, 16, 22, 24, 24, 29, 30], 12),
        ([10, 11, 13, 15, 20, 26, 30], 10),
    ]
    theirs = [(list(x.cards), x.pick) for x in GAME.observe(state, 1).sightings]
    assert theirs == [
        ([5, 6, 10, 11, 13, 15, 20, 26, 30], 5),
        ([6, 7, 9, 16, 21, 23, 26, 27], 6),
        ([15, 16, 22, 24, 24, 29, 30], 15),
    ]
    assert not GAME.observe(state, SPECTATOR).sightings
    while state.phase == pb.PHASE_DRAFT:
        GAME.apply(state, {d.seat: d.options[0].id for d in state.pending})
    seen = GAME.observe(state, 0)  # the library phase: all 9, the last packet a single card
    assert [len(x.cards) for x in seen.sightings] == [9, 8, 7, 6, 5, 4, 3, 2, 1]
    assert [x.pick for x in seen.sightings[:3]] == [1, 12, 10] and sorted(x.pick for x in seen.sightings) == list(
        seen.drafted
    )
    while state.phase == pb.PHASE_LIBRARY:
        GAME.apply(state, {d.seat: d.options[0].id for d in state.pending})
    assert not any(GAME.observe(state, s).sightings for s in range(3))  # not used after the library phase


def test_world_from_observation_puts_what_left_a_packet_among_the_picks_of_its_holders():
    """What seat 0 saw leave its packets (``_draft_round_of_the_table``) is where it must be in
    every world from its observation alone, as in ``sample_world``."""
    from collections import Counter

    state = _draft_round_of_the_table()
    seen = GAME.observe(state, 0)
    between = Counter([6, 7])  # left seat 0's first packet between its two sightings
    since = Counter([15, 16, 22, 24, 24, 29, 30])  # seat 2's packet after seat 0 picked 12 from it
    for k in range(30):
        for world in (
            GAME.world_from_observation(state.config, 0, seen, Chance(k)),
            GAME.sample_world(state, 0, Chance(k)),
        ):
            assert world.packets[0] == [9, 16, 21, 23, 26, 27] and world.drafted[0] == [1, 12, 10]
            assert world.packets[1] == [11, 13, 15, 20, 26, 30]
            one, two = Counter(world.drafted[1]), Counter(world.drafted[2])
            assert between <= one + two and one & between and two & between
            assert Counter(world.packets[2]) <= since
            assert since - Counter(world.packets[2]) <= one  # the card seat 1 picked from it
            assert [len(d) for d in world.drafted] == [3, 3, 3]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("mode", ["magician", "archmage"])
def test_world_from_observation_is_sample_worlds_world_in_the_draft(players, mode):
    """During the draft and the library phase the observation carries what ``sample_world``
    reads (the seat's sightings): with the same chance both build the same world (every field
    but the log and the step count, which the observation does not carry)."""
    import dataclasses

    state = GAME.new_match(GAME.config(players, {"mode": mode}), 30 + players)
    rng = Chance(players)
    fields = [f.name for f in dataclasses.fields(state) if f.name not in ("log", "steps", "chance")]
    checked = 0
    while state.phase in (pb.PHASE_DRAFT, pb.PHASE_LIBRARY):
        for viewer in range(players):
            sampled = GAME.sample_world(state, viewer, Chance(checked))
            observed = GAME.world_from_observation(state.config, viewer, GAME.observe(state, viewer), Chance(checked))
            for name in fields:
                assert getattr(sampled, name) == getattr(observed, name), name
            assert sampled.chance.below(2**63, "t") == observed.chance.below(2**63, "t")
            checked += 1
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert checked == players * 15  # 9 picks, 6 library choices


def test_a_world_of_a_world_in_the_draft_counts_unrecorded_sightings_as_unseen():
    """A world does not know the others' sightings (``sample_world`` drops them); played on, it
    records only the later ones. A world sampled from it for another seat still fits."""
    from tests.contract import assert_same_view

    state = _draft_round_of_the_table()
    world = GAME.sample_world(state, 0, Chance(4))
    GAME.apply(world, {s: f"pick:{world.packets[s][0]}" for s in range(3)})
    for seat in (1, 2):
        again = GAME.sample_world(world, seat, Chance(seat))
        assert_same_view(GAME, world, again, seat)
        assert again.packets[(seat + 1) % 3] == world.passed[seat]  # its last sighting is kept
    assert len(world.sightings[1]) == 1 and len(world.drafted[1]) == 4
    assert world.sightings[0][:3] == state.sightings[0]


def test_world_from_observation_apprentice_library_phase_gives_the_others_prebuilt_decks():
    from arena.games.seasons.framework import APPRENTICE_DECKS

    chance = PresetChance(1, orders={"decks": [[2, 0, 3, 1]]})
    state = GAME.new_match(GAME.config(3, {"mode": "apprentice"}), chance=chance)
    GAME.apply(state, {d.seat: d.options[0].id for d in state.pending})
    seen = GAME.observe(state, 0)
    decks = {tuple(sorted(d)) for d in APPRENTICE_DECKS} - {tuple(state.drafted[0])}
    got = set()
    for k in range(40):
        world = GAME.world_from_observation(state.config, 0, seen, Chance(k))
        held = [tuple(sorted(world.drafted[s])) for s in (1, 2)]
        assert set(held) <= decks and held[0] != held[1]
        assert all(len(world.libraries[s][0]) == 1 and world.libraries[s][0][0] in world.drafted[s] for s in (1, 2))
        got.update(held)
    assert got == decks


def test_world_from_observation_deals_a_hidden_hand_uniformly_over_the_unseen_cards():
    from collections import Counter

    from scipy.stats import chisquare

    state = _conserved(position(2, hands={0: [1, 2], 1: [3]}, tableau={1: [4]}, discard=[5, 5]))
    seen = GAME.observe(state, 0)
    unseen = _unseen_of(state, 0)  # the cards of seat 1's hand and the draw pile
    assert sum(unseen.values()) == 60 - 2 - 1 - 2
    chance = Chance(2027)
    samples = 2400
    got: Counter[int] = Counter()
    for _ in range(samples):
        world = GAME.world_from_observation(state.config, 0, seen, chance)
        assert world.hands[0] == [1, 2] and len(world.hands[1]) == 1
        got.update(world.hands[1])
    cards = sorted(unseen)
    total = sum(unseen.values())
    assert set(got) <= set(cards) and 5 not in got
    assert chisquare([got[c] for c in cards], [samples * unseen[c] / total for c in cards]).pvalue > 0.001


# -- the cards a seat has seen, in its observation (played, received, orb_top) -------------------------


def test_observation_carries_the_cards_given_with_naria_to_the_giver_only():
    state = _conserved(position(3, hands={0: [12], 1: [20]}, crystals={0: 3}, draw=[1, 2, 3], gauge={0: 1}))
    play(state, "summon:12", "card:2", "card:3", "card:1")  # seat 1 gets #3, seat 2 gets #1
    mine = GAME.observe(state, 0)
    assert [list(v.received) for v in mine.seats] == [[], [3], [1]]
    assert [list(v.played) for v in mine.seats] == [[12], [], []]
    assert mine.orb_top == 0
    for viewer in (1, 2, SPECTATOR):  # the others were not told which card the other got
        assert [list(v.received) for v in GAME.observe(state, viewer).seats] == [[], [], []]
    chance = Chance(7)
    for _ in range(100):
        world = GAME.world_from_observation(state.config, 0, mine, chance)
        assert 3 in world.hands[1] and 1 in world.hands[2]
        assert sorted(world.hands[0]) == [2] and [len(h) for h in world.hands] == [1, 2, 1]
        assert _unseen_of(world, 0) == _unseen_of(state, 0)
    theirs = GAME.observe(state, 1)
    assert len({tuple(GAME.world_from_observation(state.config, 1, theirs, chance).hands[2]) for _ in range(100)}) > 1
    # once the receiver played a #3, nothing is known of its hand any more
    state.hands[1].remove(3)
    state.tableau[1].append(Slot(3))
    state.log.public(1, "summon", "summons #3", pb.EventDetail(seat=1, card=3))
    state.played[1].append(3)
    mine = GAME.observe(state, 0)
    assert list(mine.seats[1].received) == [3] and list(mine.seats[1].played) == [3]
    hands = {tuple(GAME.world_from_observation(state.config, 0, mine, chance).hands[1]) for _ in range(100)}
    assert len(hands) > 3 and all(len(h) == 1 for h in hands)


def test_observation_carries_the_cards_amsug_returned_to_every_seat():
    state = _conserved(
        position(3, hands={0: [17]}, tableau={0: [3], 1: [10, 1]}, reserve={0: {"water": 1, "air": 1}}, gauge={0: 2})
    )
    play(state, "summon:17", "tableau:0", "tableau:1")  # seat 0 takes back #3, seat 1 #1 (seat 2: no item)
    assert state.hands == [[3], [1], []]
    for viewer in (0, 1, 2):
        seen = GAME.observe(state, viewer)
        assert [list(v.received) for v in seen.seats] == [[3], [1], []]
        assert [list(v.played) for v in seen.seats] == [[17], [], []]
    seen = GAME.observe(state, 2)
    for k in range(30):
        world = GAME.world_from_observation(state.config, 2, seen, Chance(k))
        assert world.hands[:2] == [[3], [1]] and world.hands[2] == []
        assert _unseen_of(world, 2) == _unseen_of(state, 2)


def test_observation_carries_the_card_put_back_with_crystal_orb():
    state = _conserved(
        position(
            2,
            mode="archmage",
            tableau={0: [34]},
            hands={1: [7]},
            draw=[29, 3, 4, 5, 6],
            reserve={0: {"air": 4}},
            gauge={0: 2},
        )
    )
    play(state, "activate:0", "draw", "none")
    assert state.draw_pile[-1] == 29
    mine, theirs = GAME.observe(state, 0), GAME.observe(state, 1)
    assert mine.orb_top == 29 and theirs.orb_top == 0 and GAME.observe(state, SPECTATOR).orb_top == 0
    chance = Chance(3)
    for _ in range(50):
        world = GAME.world_from_observation(state.config, 0, mine, chance)
        assert world.draw_pile[-1] == 29 and len(world.draw_pile) == len(state.draw_pile)
        assert _unseen_of(world, 0) == _unseen_of(state, 0)
    assert len({GAME.world_from_observation(state.config, 1, theirs, chance).draw_pile[-1] for _ in range(50)}) > 1
    play(state, "draw", "discard")  # seat 0 draws it with its die: the knowledge is spent
    assert GAME.observe(state, 0).orb_top == 0


@pytest.mark.parametrize("players", [3, 4])
def test_world_from_observation_apprentice_hands_come_from_the_seats_decks(players):
    """After the library phase the others still hold what is left of prebuilt decks the viewer
    does not hold (``played`` tells what left), as in ``sample_world``."""
    from collections import Counter

    decks, state = _apprentice_past_the_library(players)
    seen = GAME.observe(state, 0)
    truth = tuple(decks.index(tuple(state.drafted[s])) for s in range(1, players))
    assignments = set()
    for k in range(150):
        world = GAME.world_from_observation(state.config, 0, seen, Chance(k))
        assert _unseen_of(world, 0) == _unseen_of(state, 0)
        used = [decks.index(tuple(world.drafted[s])) for s in range(1, players)]
        assert len(set(used)) == players - 1 and decks.index(tuple(state.drafted[0])) not in used
        assignments.add(tuple(used))
        for s in range(1, players):
            out = Counter(
                e.detail.card
                for e in state.log.events
                if e.kind in ("summon", "discard") and e.seat == s and e.detail.source not in (9, 34)
            )
            assert Counter(seen.seats[s].played) == out
            rest = Counter(world.drafted[s]) - out
            held = Counter(world.hands[s] + world.libraries[s][0] + world.libraries[s][1])
            assert not rest - held, (s, rest, held)
            assert not Counter(world.libraries[s][0] + world.libraries[s][1]) - Counter(world.drafted[s])
    assert truth in assignments


def test_worlds_fit_a_seat_that_summoned_a_card_given_with_naria_while_its_deck_holds_another():
    """Seat 1 gave seat 2 a Wondrous Chest #13 with Naria #12; seat 2's prebuilt deck holds
    another, set aside in Library III, and it summoned the given one. Counted against the deck,
    the #13 played left the given copy in a hand that is empty, and no deck assignment fitted
    (an outside probe: 3 players, random play, seed 104). The copy left is the deck's."""
    import random
    from collections import Counter

    from tests.contract import assert_same_view, observation_bytes

    state = GAME.new_match(GAME.config(3, {"mode": "apprentice"}), 104)
    rng = random.Random(104)
    for _ in range(108):
        GAME.apply(state, {d.seat: rng.choice(d.option_ids) for d in state.pending})
    assert state.received[1][2] == [13] and 13 in state.played[2] and 13 in state.libraries[2][1]
    assert state.hands[2] == [] and state.year == 1
    seen = GAME.observe(state, 1)
    for k in range(20):
        world = GAME.sample_world(state, 1, Chance(k))
        assert_same_view(GAME, state, world, 1)
        from_obs = GAME.world_from_observation(state.config, 1, seen, Chance(k))
        assert observation_bytes(GAME, from_obs, 1) == observation_bytes(GAME, state, 1)
        for w in (world, from_obs):
            # its libraries hold the 6 cards left of its deck (it summoned #15, #18, #25 and the given #13)
            assert w.hands[2] == [] and w.drafted[2] == state.drafted[2]
            assert Counter(w.libraries[2][0] + w.libraries[2][1]) == Counter([1, 2, 3, 11, 13, 27])


def test_leak_a_card_given_with_naria_is_known_only_to_giver_and_receiver():
    """Two games that differ only in the card seat 0 gave seat 2 (and so in the draw pile) give
    seat 1 identical bytes; the giver's observations differ (its ``received`` for seat 2)."""
    from tests.contract import assert_same_view, observation_bytes

    games = []
    for draw in ([1, 2, 3, 4], [4, 2, 3, 1]):  # drawn: 1,2,3 / 4,2,3
        state = position(3, hands={0: [12]}, crystals={0: 3}, draw=draw, gauge={0: 1})
        play(state, "summon:12", "card:2", "card:3")
        play(state, options(state)[0])  # the card left: #1 / #4 to seat 2
        games.append(state)
    assert games[0].hands[2] == [1] and games[1].hands[2] == [4]
    assert_same_view(GAME, games[0], games[1], 1)
    assert [list(v.received) for v in GAME.observe(games[0], 0).seats] == [[], [3], [1]]
    assert observation_bytes(GAME, games[0], 0) != observation_bytes(GAME, games[1], 0)


def _seen_in_log(state, viewer):
    """From the events ``viewer`` saw: per seat the cards summoned (not straight from a draw:
    #9, #34) or discarded one by one, per seat the cards it named going into a hand (its Naria
    #12 gifts, Amsug #17 returns), and the card it put back with Crystal Orb #34 (0 once a card
    is drawn)."""
    n = state.players
    played, received = [[] for _ in range(n)], [[] for _ in range(n)]
    top = looked = 0
    for event in state.log.events:
        kind, detail = event.kind, event.detail
        if not isinstance(detail, pb.EventDetail) or not event.visible_to(viewer):
            continue
        if (kind == "summon" and detail.source not in (9, 34)) or (kind == "discard" and detail.card):
            played[event.seat].append(detail.card)
        elif kind == "give" and event.seat == viewer and detail.card:
            received[detail.target].append(detail.card)
        elif kind == "return" and detail.card:
            received[event.seat].append(detail.card)
        elif kind == "drawn" and event.seat == viewer and detail.source == 34:
            looked = detail.cards[-1]
        elif kind == "return" and event.seat == viewer and detail.reason == "orb":
            top = looked
        elif kind == "draw" and (detail.amount or detail.reason == "reshuffle"):
            top = 0
    return played, received, top


@pytest.mark.parametrize(("players", "mode"), [(2, "archmage"), (3, "apprentice"), (4, "archmage")])
def test_observation_played_received_and_orb_top_match_what_the_log_shows(players, mode):
    checked = [0, 0, 0]
    for seed in range(12):
        state = GAME.new_match(GAME.config(players, {"mode": mode}), seed)
        rng = Chance(seed)
        while state.pending:
            if state.phase == pb.PHASE_TURN or state.phase == pb.PHASE_PROMPT:
                for viewer in range(players):
                    seen = GAME.observe(state, viewer)
                    played, received, top = _seen_in_log(state, viewer)
                    assert [list(v.played) for v in seen.seats] == played
                    assert [list(v.received) for v in seen.seats] == received
                    assert seen.orb_top == top
                    checked[0] += sum(map(len, played)) > 0
                    checked[1] += sum(map(len, received)) > 0
                    checked[2] += top > 0
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert checked[0] and checked[1]  # the random games did play and return cards


# -- ruling 23: discards are face down; ruling 9: the draw bonus replaces the die's draw ---------


def _discard_events(state, seat):
    return [(e.text, list(e.detail.cards)) for _, e in state.log.since(seat, 0) if e.kind == "discard"]


def test_drawn_cards_discarded_are_known_to_the_drawer_only():
    """Amulet of Fire #2: the 3 cards not kept go face down (official rules p.5, Source A)."""
    state = position(2, hands={0: [2]}, reserve={0: {"fire": 2}}, draw=[10, 22, 29, 25], gauge={0: 1})
    play(state, "summon:2", "card:22")
    assert list(GAME.observe(state, 1).discard) == []
    assert _discard_events(state, 1) == [("discards 3 cards face down (Amulet of Fire (#2))", [])]
    assert list(GAME.observe(state, 0).discard) == [10, 29, 25]
    assert list(GAME.observe(state, SPECTATOR).discard) == [10, 29, 25]
    assert _discard_events(state, 0)[0][1] == [10, 29, 25]
    assert state.discard == [10, 29, 25] and state.discard_seen == [0, 0, 0]


def test_the_die_draw_discarded_and_a_sacrifice_known_to_whom():
    state = position(2, hands={0: [10]}, tableau={1: [3]}, reserve={0: {"fire": 3}}, draw=[29, 5], gauge={0: 1})
    play(state, "draw", "discard", "summon:10", "tableau:0")  # seat 1 sacrifices its Amulet of Earth
    assert state.discard == [29, 3]
    assert list(GAME.observe(state, 0).discard) == [29, 3]
    assert list(GAME.observe(state, 1).discard) == [3]  # the die's card stays unseen
    assert _discard_events(state, 1) == [("discards 1 card face down", [])]


def test_worlds_deal_the_discards_a_seat_did_not_see_and_keep_its_own():
    from collections import Counter

    state = _conserved(position(2, hands={0: [2]}, reserve={0: {"fire": 2}}, draw=[10, 22, 29, 25], gauge={0: 1}))
    play(state, "summon:2", "card:22")
    real = Counter(state.discard)
    moved = False
    for k in range(20):
        world = GAME.sample_world(state, 1, Chance(k))
        assert list(GAME.observe(world, 1).discard) == [] and len(world.discard) == 3
        moved |= Counter(world.discard) != real
        mine = GAME.sample_world(state, 0, Chance(k))
        assert mine.discard == [10, 29, 25]
        seen = GAME.observe(state, 1)
        from_obs = GAME.world_from_observation(state.config, 1, seen, Chance(k))
        assert len(from_obs.discard) == 3
        assert GAME.observe(from_obs, 1).SerializeToString() == seen.SerializeToString()
    assert moved
    own = GAME.world_from_observation(state.config, 0, GAME.observe(state, 0), Chance(5))
    assert own.discard == [10, 29, 25]


def test_the_draw_bonus_replaces_the_die_draw():
    """Source A: the draw bonus needs the die's pending draw and uses it (at most one card kept)."""
    state = position(2, draw=[1, 2, 3, 4])
    play(state, "draw", "keep")
    assert "bonus:draw" not in options(state)
    state = position(2, draw=[1, 2, 3, 4])
    play(state, "bonus:draw", "card:1")
    assert state.hands[0] == [1] and "draw" not in options(state) and "bonus:draw" not in options(state)
    assert state.bonus_used[0] == 1 and not state.may_draw


def test_potion_of_life_is_a_transmutation_purse_of_io_and_the_bonus_count():
    """DATA #26 "transmute each energy in reserve into 4 crystals", #8 "+1 crystal per energy you
    transmute"; Source A applies both and the transmute bonus to the Potion's transmutation."""
    state = position(2, tableau={0: [8, 26]}, reserve={0: {"air": 1, "water": 1}}, gauge={0: 2})
    play(state, "activate:1")
    assert state.crystals[0] == 2 * 4 + 2 * 1 and res(state, 0) == [0, 0, 0, 0]
    state = position(2, tableau={0: [26]}, reserve={0: {"air": 1, "water": 1, "earth": 1}}, gauge={0: 1})
    play(state, "bonus:transmute", "activate:0")
    assert state.crystals[0] == 3 * (4 + 1)
    assert [e.detail.crystals for e in state.log.events if e.kind == "transmute"] == [15]


def test_heuristic_does_not_transmute_away_its_last_turn_win():
    # An outside probe (2 players, seed 2, heuristic self-play): decision 179 is seat 0's last
    # turn, reserve 3 air and 1 fire, Lantern of Xidit #45 in play (+3 a reserve energy at the
    # end). Ending the turn wins 127-123; it transmuted all 4 energies (decisions 179-182), each
    # 1 crystal for 3 points, and lost 119-123. In the last round it transmutes only what the
    # engine says raises its score.
    from arena.runner import play_match
    from bots.registry import make_bot

    record = play_match(GAME, GAME.config(2), 2, [make_bot("heuristic", "seasons") for _ in range(2)])
    turn = record.decisions[179]
    assert (turn.seat, turn.kind, turn.options, turn.choice) == (0, "turn", 6, "end")
    assert len(record.decisions) == 180
    assert record.result["scores"] == [127, 123] and record.result["ranks"] == [1, 2]


def test_heuristic_drinks_potion_of_power_in_the_last_round_only_when_it_pays():
    # An outside probe (rules probe B, finding 3): year III, month 12, and the leftover die (1 pip)
    # ends the game after this round. Seat 0 has Potion of Power #23 in play, an empty hand and
    # 10 crystals; seat 1 has 10 crystals; the draw pile holds Runic Cube #22 (cost 20). It drank
    # the potion, drew the Cube it could not pay for and lost 5-10, where ending won 10-10 on
    # cards in play. With Syllas #10 in hand waiting for room and its 3 fire in the reserve, the
    # gauge +2 lets it summon Syllas: then it drinks.
    from bench.engine_turn import EngineTurn
    from bots.games.seasons import HeuristicBot

    def choice(state):
        decision = state.pending[0]
        return HeuristicBot().choose(EngineTurn(decision.kind, GAME.observe(state, 0), decision.options))  # type: ignore[arg-type]

    last = dict(players=2, tableau={0: [23]}, month=12, year=3, draw=[22, 22, 22], die=DICE[3][0][3])
    state = position(crystals={0: 10, 1: 10}, gauge={0: 2}, **last)
    assert options(state) == ["activate:0", "bonus:transmute", "bonus:gauge", "end"]
    assert choice(state) == "end"
    play(state, "end")
    while not GAME.is_over(state):
        play(state, state.pending[0].options[-1].id)
    result = GAME.result(state)
    assert (result.scores, result.ranks) == ((10, 10), (1, 2))

    state = position(hands={0: [10]}, reserve={0: {"fire": 3}}, gauge={0: 1}, **last)
    assert "summon:10" not in " ".join(options(state))  # no room under the gauge
    assert choice(state) == "activate:0"
