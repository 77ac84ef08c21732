"""Seasons: the advanced power cards 31-50 (``arena/games/seasons/cards_advanced.py``), each with
its effect in exact numbers, its choice paths and edges; archmage playouts."""

from __future__ import annotations

import pytest

from arena.chance import Chance
from arena.engine import SPECTATOR
from arena.games.seasons import GAME
from arena.games.seasons.framework import CARDS, DICE, IMPLEMENTED
from arena.games.seasons.testing import options, play, position
from arena.games.v1 import seasons_pb2 as pb
from tests.test_seasons import expected_scores


def res(state, seat):
    return state.reserve[seat][1:]


def cards_in_play(state, seat):
    return [s.card for s in state.tableau[seat]]


ALL4 = {"air": 1, "water": 1, "fire": 1, "earth": 1}


def test_all_advanced_cards_implemented_and_archmage_default():
    assert set(range(1, 51)) <= IMPLEMENTED
    assert GAME.config(2)["mode"] == "archmage"
    state = GAME.new_match(GAME.config(3), 1)
    assert state.mode == "archmage" and len(state.draw_pile) + sum(len(p) for p in state.packets) == 100


# -- 31 Elemental Amulet --------------------------------------------------------------------------


def test_elemental_amulet_payments_one_to_four_types():
    state = position(2, hands={0: [31]}, reserve={0: ALL4})
    ids = [o for o in options(state) if o.startswith("summon:31")]
    assert len(ids) == 15 and "summon:31" in ids and "summon:31:-air-water-fire" in ids
    state = position(2, hands={0: [31]}, reserve={0: {"fire": 2, "earth": 1}})
    assert sorted(o for o in options(state) if o.startswith("summon:31")) == [
        "summon:31:-air-water",
        "summon:31:-air-water-earth",
        "summon:31:-air-water-fire",
    ]


def test_elemental_amulet_all_four_types():
    state = position(2, hands={0: [31]}, reserve={0: ALL4}, draw=[3])
    play(state, "summon:31")
    assert state.gauge[0] == 2 and state.crystals[0] == 5 and state.hands[0] == [3]
    assert state.pending[0].kind == "energy" and options(state) == [
        "energy:air",
        "energy:water",
        "energy:fire",
        "energy:earth",
    ]
    play(state, "energy:fire", "energy:water")
    assert res(state, 0) == [0, 1, 1, 0] and cards_in_play(state, 0) == [31]


def test_elemental_amulet_two_types_air_and_earth():
    state = position(2, hands={0: [31]}, reserve={0: ALL4}, draw=[3])
    play(state, "summon:31:-water-fire")
    assert res(state, 0) == [0, 1, 1, 0]  # air and earth paid
    assert state.gauge[0] == 2 and state.crystals[0] == 5 and state.hands[0] == []
    assert state.pending[0].kind == "turn"


def test_elemental_amulet_free_gives_all_four():
    state = position(2, hands={0: [31]}, tableau={0: [24]}, reserve={0: {"fire": 2}}, draw=[3], gauge={0: 1})
    play(state, "activate:0", "card:31")  # Potion of Dreams: discard the reserve, summon free
    assert state.gauge[0] == 2 and state.crystals[0] == 5 and state.hands[0] == [3]
    play(state, "energy:earth", "energy:earth")
    assert res(state, 0) == [0, 0, 0, 2]


def test_elemental_amulet_with_hand_of_fortune_one_to_three_types():
    state = position(2, hands={0: [31]}, tableau={0: [20]}, reserve={0: ALL4})
    ids = [o for o in options(state) if o.startswith("summon:31")]
    assert len(ids) == 14 and "summon:31" not in ids  # the reduction removes one of 4 types


# -- 32 Tree of Light --------------------------------------------------------------------------------


def test_tree_of_light_three_crystals_for_an_energy():
    state = position(2, tableau={0: [32]}, crystals={0: 5}, reserve={0: {"earth": 1}})
    play(state, "activate:0")
    assert state.pending[0].kind == "energy" and options(state) == [
        "energy:air",
        "energy:water",
        "energy:fire",
        "energy:earth",
        "transmute:earth",
    ]
    play(state, "energy:fire")
    assert state.crystals[0] == 2 and res(state, 0) == [0, 0, 1, 1]
    assert "activate:0" not in options(state)  # once per turn


def test_tree_of_light_discard_an_energy_to_transmute():
    state = position(2, tableau={0: [32]}, crystals={0: 2}, reserve={0: {"earth": 2}})
    assert not state.may_transmute and "transmute:earth" not in options(state)
    play(state, "activate:0")
    assert options(state) == ["transmute:earth"]  # 2 crystals: no energy for sale
    play(state, "transmute:earth")
    assert res(state, 0) == [0, 0, 0, 1] and state.may_transmute and state.crystals[0] == 2
    play(state, "transmute:earth")  # winter: earth 3
    assert state.crystals[0] == 5 and res(state, 0) == [0, 0, 0, 0]


def test_tree_of_light_not_offered_without_crystals_or_energy():
    state = position(2, tableau={0: [32]}, crystals={0: 2})
    assert "activate:0" not in options(state)


# -- 33 Arcano Leech ---------------------------------------------------------------------------------


def test_arcano_leech_opponent_gives_a_crystal_before_summoning():
    state = position(2, hands={0: [29]}, tableau={1: [33]}, reserve={0: {"water": 3}}, crystals={0: 1})
    play(state, "summon:29")
    assert state.crystals == [20, 1]
    give = [e for e in state.log.events if e.kind == "give"]
    assert len(give) == 1 and give[0].detail.crystals == 1 and give[0].detail.target == 1


def test_arcano_leech_summon_needs_a_crystal_more():
    state = position(2, hands={0: [29]}, tableau={1: [33]}, reserve={0: {"water": 3}})
    assert "summon:29" not in options(state)  # no crystal to give
    state = position(2, hands={0: [22]}, tableau={1: [33]}, crystals={0: 20}, gauge={0: 1})
    assert "summon:22" not in options(state)  # 20 for the Cube + 1 for the Leech
    state = position(2, hands={0: [22]}, tableau={1: [33]}, crystals={0: 21}, gauge={0: 1})
    play(state, "summon:22")
    assert state.crystals == [0, 1] and cards_in_play(state, 0) == [22]


def test_arcano_leech_two_opponents_and_own_leech():
    state = position(
        3, hands={0: [29]}, tableau={0: [33], 1: [33], 2: [33]}, reserve={0: {"water": 3}}, crystals={0: 1}
    )
    assert "summon:29" not in options(state)  # two opposing Leeches: 2 crystals (its own is free)
    state.crystals[0] = 2
    GAME.refresh(state)
    play(state, "summon:29")
    assert state.crystals == [20, 1, 1]


def test_arcano_leech_spares_free_summons():
    state = position(2, hands={0: [29]}, tableau={0: [24], 1: [33]}, gauge={0: 1})
    play(state, "activate:0", "card:29")
    assert state.crystals == [20, 0] and cards_in_play(state, 0) == [29]


# -- 34 Crystal Orb ----------------------------------------------------------------------------------


def test_crystal_orb_look_and_summon_for_four_energies():
    state = position(2, tableau={0: [34]}, draw=[29, 3], reserve={0: {"air": 2, "water": 3}}, gauge={0: 2})
    play(state, "activate:0")
    assert state.pending[0].kind == "card" and options(state) == ["draw"]  # no 3 crystals
    play(state, "draw")
    assert options(state) == ["card:29", "none"] and state.limbo[0] == [29]
    assert list(GAME.observe(state, 0).prompt.cards) == [29]
    assert list(GAME.observe(state, 1).prompt.cards) == []
    play(state, "card:29", "energy:air", "energy:water", "energy:air", "energy:water")
    assert cards_in_play(state, 0) == [34, 29] and state.crystals[0] == 20
    assert res(state, 0) == [0, 1, 0, 0] and state.draw_pile == [3] and state.limbo[0] == []


def test_crystal_orb_put_back():
    state = position(2, tableau={0: [34]}, draw=[29, 3], reserve={0: {"air": 4}}, gauge={0: 2})
    play(state, "activate:0", "draw", "none")
    assert state.draw_pile == [3, 29] and state.limbo[0] == [] and res(state, 0) == [4, 0, 0, 0]
    back = [e for e in state.log.events if e.kind == "return"]
    assert len(back) == 1 and back[0].detail.card == 0


def test_crystal_orb_payment_in_a_world_summons_the_worlds_card():
    """The card being paid for is hidden from the other seat: its worlds re-deal the limbo, and
    the summon takes the world's card (the ask does not remember the real one)."""
    state = position(2, tableau={0: [34]}, draw=[29, 3, 5, 6, 8], reserve={0: {"air": 4}}, gauge={0: 2})
    play(state, "activate:0", "draw", "card:29", "energy:air")
    chance = Chance(1)
    seen = set()
    for _ in range(20):
        world = GAME.sample_world(state, 1, chance)
        card = world.limbo[0][0]
        play(world, "energy:air", "energy:air", "energy:air")
        assert cards_in_play(world, 0)[:2] == [34, card] and world.limbo[0] == []
        seen.add(card)
    assert len(seen) > 1


def test_crystal_orb_summon_needs_room_and_four_energies():
    state = position(2, tableau={0: [34]}, draw=[29], reserve={0: {"air": 4}}, gauge={0: 1})
    play(state, "activate:0", "draw")
    assert options(state) == ["none"]  # no room
    state = position(2, tableau={0: [34]}, draw=[29], reserve={0: {"air": 3}}, gauge={0: 2})
    play(state, "activate:0", "draw")
    assert options(state) == ["none"]  # 3 energies


def test_crystal_orb_discard_the_top_card_for_three_crystals():
    state = position(2, tableau={0: [34]}, draw=[29, 3], crystals={0: 4})
    play(state, "activate:0")
    assert options(state) == ["draw", "discard"]
    play(state, "discard")
    assert state.crystals[0] == 1 and state.discard == [29] and state.draw_pile == [3]


def test_crystal_orb_not_offered_without_cards():
    state = position(2, tableau={0: [34]}, crystals={0: 4})
    assert "activate:0" not in options(state)


# -- 35 Glutton Cauldron -----------------------------------------------------------------------------


def test_glutton_cauldron_stores_one_energy_per_activation():
    state = position(2, tableau={0: [35]}, reserve={0: {"fire": 2}})
    play(state, "activate:0")
    assert options(state) == ["energy:fire"]
    play(state, "energy:fire")
    assert res(state, 0) == [0, 0, 1, 0] and state.tableau[0][0].energies == [0, 0, 0, 1, 0]
    assert "activate:0" not in options(state)


def test_glutton_cauldron_seventh_energy_pays_out():
    state = position(2, tableau={0: [35]}, reserve={0: {"fire": 1}}, crystals={0: 1})
    state.tableau[0][0].energies = [0, 1, 2, 1, 2]
    GAME.refresh(state)
    play(state, "activate:0", "energy:fire")
    assert cards_in_play(state, 0) == [] and state.discard == [35]
    assert res(state, 0) == [1, 2, 2, 2] and state.crystals[0] == 16


def test_glutton_cauldron_payout_over_the_reserve_cap_seven_or_ten():
    state = position(2, tableau={0: [35]}, reserve={0: {"fire": 1, "air": 3}})
    state.tableau[0][0].energies = [0, 1, 2, 1, 2]
    GAME.refresh(state)
    play(state, "activate:0", "energy:fire")
    assert res(state, 0) == [4, 2, 2, 2]  # 10 energies: 3 over the cap of 7
    prompt = GAME.observe(state, 0).prompt
    assert state.pending[0].kind == "energy" and prompt.reason == "overflow" and prompt.left == 2
    play(state, "energy:air", "energy:air", "energy:water")
    assert res(state, 0) == [2, 1, 2, 2] and state.pending[0].kind == "turn"
    # with Bespelled Grimoire #18 the reserve holds 10: nothing to discard
    state = position(2, tableau={0: [35, 18]}, reserve={0: {"fire": 1, "air": 3}})
    state.tableau[0][0].energies = [0, 1, 2, 1, 2]
    GAME.refresh(state)
    play(state, "activate:0", "energy:fire")
    assert res(state, 0) == [4, 2, 2, 2] and state.pending[0].kind == "turn"


def test_glutton_cauldron_not_offered_with_an_empty_reserve():
    state = position(2, tableau={0: [35]})
    assert "activate:0" not in options(state)


# -- 36 Vampiric Crown -------------------------------------------------------------------------------


def test_vampiric_crown_discard_a_card_energies_by_prestige():
    state = position(2, hands={0: [36, 5]}, reserve={0: {"water": 1, "air": 1}}, draw=[3])
    play(state, "summon:36")
    assert state.pending[0].kind == "card" and options(state) == ["card:5", "draw"]
    play(state, "card:5")  # Balance of Ishtar: 4 prestige
    assert state.hands[0] == [] and state.discard == [5]
    play(state, "energy:earth", "energy:earth", "energy:earth", "energy:fire")
    assert res(state, 0) == [0, 0, 1, 3] and state.pending[0].kind == "turn"


def test_vampiric_crown_draw_a_card():
    state = position(2, hands={0: [36]}, reserve={0: {"water": 1, "air": 1}}, draw=[13])
    play(state, "summon:36")
    assert options(state) == ["draw"]
    play(state, "draw", "energy:air", "energy:air", "energy:air", "energy:air")  # Chest: 4 prestige
    assert state.hands[0] == [13] and res(state, 0) == [4, 0, 0, 0]
    drawn = [e for e in state.log.events if e.kind == "drawn"]
    assert drawn and all(e.to == frozenset({0}) for e in drawn)


def test_vampiric_crown_negative_prestige_gives_nothing():
    state = position(2, hands={0: [36]}, reserve={0: {"water": 1, "air": 1}}, draw=[42])
    play(state, "summon:36", "draw")
    assert state.hands[0] == [42] and res(state, 0) == [0, 0, 0, 0] and state.pending[0].kind == "turn"


def test_vampiric_crown_skipped_without_hand_or_cards():
    state = position(2, hands={0: [36]}, reserve={0: {"water": 1, "air": 1}})
    play(state, "summon:36")
    assert state.pending[0].kind == "turn" and cards_in_play(state, 0) == [36]


# -- 37 Dragon Skull, 42 Cursed Treatise of Arus -------------------------------------------------------


def test_dragon_skull_sacrifice_three_for_fifteen_and_treatise_discards_reserve():
    state = position(2, tableau={0: [37, 1, 42]}, reserve={0: {"fire": 2, "air": 1}}, crystals={0: 1})
    play(state, "activate:0")
    assert options(state) == ["tableau:0", "tableau:1", "tableau:2"]
    play(state, "tableau:2")  # Cursed Treatise sacrificed: the reserve is discarded
    assert res(state, 0) == [0, 0, 0, 0] and state.crystals[0] == 1
    assert state.pending[0].seat == 0 and options(state) == ["tableau:0", "tableau:1"]
    play(state, "tableau:1", "tableau:0")  # the Skull itself may be one of the three
    assert cards_in_play(state, 0) == [] and state.discard == [42, 1, 37] and state.crystals[0] == 16


def test_dragon_skull_needs_three_cards():
    state = position(2, tableau={0: [37, 1]})
    assert "activate:0" not in options(state)


def test_cursed_treatise_on_summon():
    state = position(2, hands={0: [42]}, reserve={0: {"water": 1}})
    play(state, "summon:42", "energy:air", "energy:fire")
    assert state.crystals[0] == 10 and state.gauge[0] == 2 and res(state, 0) == [1, 0, 1, 0]
    assert GAME.score_of(state, 0) == 0  # 10 crystals - 10 prestige
    assert GAME.observe(state, 1).seats[0].prestige == -10  # int32: negative prestige is shown


def test_cursed_treatise_sacrificed_by_syllas_off_turn():
    state = position(
        2, seat=1, hands={1: [10]}, reserve={1: {"fire": 3}, 0: {"water": 3}}, tableau={0: [42, 1]}, gauge={1: 1}
    )
    play(state, "summon:10")
    assert state.pending[0].seat == 0
    play(state, "tableau:0")
    assert res(state, 0) == [0, 0, 0, 0] and cards_in_play(state, 0) == [1]


def test_cursed_treatise_returned_by_amsug_keeps_the_reserve():
    state = position(
        2, seat=1, hands={1: [17]}, reserve={1: {"water": 1, "air": 1}, 0: {"water": 3}}, tableau={0: [42]}
    )
    play(state, "summon:17", "tableau:0")
    assert state.hands[0] == [42] and res(state, 0) == [0, 3, 0, 0]


# -- 38 Demon of Argos -------------------------------------------------------------------------------


def test_demon_of_argos_gauge_minus_one_and_a_card_each():
    state = position(3, hands={0: [38]}, reserve={0: ALL4}, gauge={0: 1, 1: 3, 2: 0}, draw=[5, 6])
    play(state, "summon:38")
    assert state.gauge == [1, 2, 0] and state.hands == [[], [5], [6]]
    keeps = [e for e in state.log.events if e.kind == "keep" and e.detail.card]
    assert [(e.to, e.detail.card) for e in keeps] == [(frozenset({1}), 5), (frozenset({2}), 6)]


def test_demon_of_argos_gauge_may_fall_below_cards_in_play():
    state = position(2, hands={0: [38]}, reserve={0: ALL4}, tableau={1: [1, 3]}, gauge={1: 2}, draw=[5])
    play(state, "summon:38")
    assert state.gauge[1] == 1 and cards_in_play(state, 1) == [1, 3]


# -- 39 Titus Deepgaze -------------------------------------------------------------------------------


def test_titus_each_opponent_gives_a_crystal_at_round_end():
    state = position(3, tableau={0: [39]}, crystals={0: 0, 1: 2, 2: 1})
    play(state, "end", "end", "end")
    assert state.crystals == [2, 1, 0] and cards_in_play(state, 0) == [39]
    assert state.phase == pb.PHASE_DICE and state.round == 2


def test_titus_sacrificed_when_an_opponent_cannot_give():
    state = position(3, tableau={0: [39]}, crystals={0: 0, 1: 2, 2: 0})
    play(state, "end", "end", "end")
    assert state.crystals == [1, 1, 0] and cards_in_play(state, 0) == [] and state.discard == [39]


def test_titus_cost_scales_with_players():
    assert [CARDS[39].cost(p)[0][pb.FIRE] for p in (2, 3, 4)] == [1, 2, 3]


# -- 40 Air Elemental --------------------------------------------------------------------------------


def test_air_elemental_turns_opponents_reserves_to_air():
    state = position(
        3,
        hands={0: [40]},
        reserve={0: {"air": 3, "fire": 1}, 1: {"water": 2, "fire": 1}, 2: {"earth": 1, "air": 1}},
        tableau={1: [4]},
    )
    state.tableau[1][0].energies = [0, 0, 2, 0, 0]  # stored on Amulet of Water: not the reserve
    GAME.refresh(state)
    play(state, "summon:40")
    assert res(state, 0) == [0, 0, 1, 0] and res(state, 1) == [3, 0, 0, 0] and res(state, 2) == [2, 0, 0, 0]
    assert state.tableau[1][0].energies == [0, 0, 2, 0, 0]


# -- 41 Thieving Fairies, 43 Idol of the Familiar -------------------------------------------------------


def test_thieving_fairies_opponent_activation_gives_one_and_one_more():
    state = position(2, tableau={0: [43, 10], 1: [41]}, crystals={0: 2})
    play(state, "activate:0")  # Idol: 1 familiar -> +1
    assert state.crystals == [2, 2]


def test_thieving_fairies_one_more_even_from_a_broke_opponent():
    state = position(2, tableau={0: [43], 1: [41]})
    play(state, "activate:0")
    assert state.crystals == [0, 1]


def test_thieving_fairies_count_the_die_of_malice_reroll():
    """#15 is an activated card (DATA 1.3 timing A): its reroll triggers #41 (A12)."""
    from arena.chance import PresetChance
    from arena.games.seasons.testing import DRAW_FACE

    state = position(2, tableau={0: [41], 1: [15]}, rolled=[DRAW_FACE])
    state.chance = PresetChance(rolls={"reroll": [3]})
    play(state, "end", "reroll")
    # Malice +2, then the Fairies: seat 1 gives 1, seat 0 gains 1 more; the new face +3 crystals
    assert state.dice[1] == DICE[0][0][2]
    assert state.crystals == [2, 2 - 1 + 3]
    gives = [e for e in state.log.events if e.kind == "give" and e.detail.source == 41]
    assert len(gives) == 1 and gives[0].seat == 1 and gives[0].detail.target == 0
    state = position(2, tableau={0: [41], 1: [15]}, rolled=[DRAW_FACE])
    play(state, "end", "keep")  # kept: not an activation
    assert state.crystals == [0, 0]


def test_thieving_fairies_not_for_its_owner():
    state = position(2, tableau={0: [41, 43]}, crystals={0: 2})
    play(state, "activate:1")
    assert state.crystals == [3, 0]  # Idol: the Fairies are a familiar


def test_idol_counts_familiars_and_has_no_arrival_effect():
    state = position(2, hands={0: [43]}, tableau={0: [10, 12, 3]}, reserve={0: ALL4}, gauge={0: 4})
    play(state, "summon:43")
    assert state.crystals[0] == 0
    play(state, "activate:3")
    assert state.crystals[0] == 2


# -- 44 Necrotic Kriss -------------------------------------------------------------------------------


def test_necrotic_kriss_sacrifice_a_familiar_in_play():
    state = position(2, tableau={0: [44, 10, 3]}, hands={0: [12, 1]})
    play(state, "activate:0")
    assert options(state) == ["card:12", "tableau:1"]
    play(state, "tableau:1", "energy:air", "energy:air", "energy:water", "energy:earth")
    assert cards_in_play(state, 0) == [44, 3] and state.discard == [10] and res(state, 0) == [2, 1, 0, 1]
    assert [e.kind for e in state.log.events if e.detail.card == 10] == ["sacrifice"]


def test_necrotic_kriss_discard_a_familiar_from_hand():
    state = position(2, tableau={0: [44]}, hands={0: [12, 1]})
    play(state, "activate:0", "card:12", "energy:fire", "energy:fire", "energy:fire", "energy:fire")
    assert state.hands[0] == [1] and state.discard == [12] and res(state, 0) == [0, 0, 4, 0]


def test_necrotic_kriss_needs_a_familiar():
    state = position(2, tableau={0: [44, 3]}, hands={0: [1]})
    assert "activate:0" not in options(state)


# -- 45 Lantern of Xidit, 46 Sealed Chest of Urm (end of game) -------------------------------------------


def test_lantern_of_xidit_three_per_reserve_energy():
    state = position(2, tableau={0: [45, 4]}, reserve={0: {"fire": 3, "air": 2}}, crystals={0: 4})
    state.tableau[0][1].energies = [0, 2, 0, 0, 0]  # on Amulet of Water: not counted
    assert GAME.score_of(state, 0) == 4 + 24 + 6 + 3 * 5


def test_sealed_chest_only_magic_items():
    state = position(2, tableau={0: [46, 3], 1: [46, 10]}, crystals={0: 1, 1: 1})
    assert GAME.score_of(state, 0) == 1 + 10 + 6 + 20
    assert GAME.score_of(state, 1) == 1 + 10 + 14


def test_end_of_game_cards_in_the_final_score():
    # a real end: the last round of year 3, the leftover die moves the token past month 12
    state = position(
        2,
        tableau={0: [45, 46, 19], 1: [3]},
        reserve={0: {"earth": 2}},
        crystals={0: 5, 1: 30},
        month=12,
        year=3,
        leftover=DICE[3][0][0],
    )
    play(state, "end", "end")
    assert state.phase == pb.PHASE_OVER
    # seat 0: 5 + prestige 24 + 10 + 10 + Lantern 6 + Chest 20 + Helm 20
    assert GAME.result(state).scores == (5 + 44 + 6 + 20 + 20, 30 + 6)


# -- 47 Mirror of the Seasons ------------------------------------------------------------------------


def test_mirror_converts_x_identical_energies_for_x_crystals():
    state = position(2, tableau={0: [47]}, crystals={0: 2}, reserve={0: {"fire": 3, "air": 1}})
    play(state, "activate:0")
    assert state.pending[0].kind == "energy" and options(state) == ["energy:air", "energy:fire"]
    play(state, "energy:fire")
    assert options(state) == ["energy:air", "energy:water", "energy:earth"]
    play(state, "energy:earth")
    assert res(state, 0) == [1, 0, 2, 1] and state.crystals[0] == 1
    assert options(state) == ["energy:fire", "stop"]
    play(state, "energy:fire")
    assert res(state, 0) == [1, 0, 1, 2] and state.crystals[0] == 0
    assert state.pending[0].kind == "turn"  # no crystal left: the chain ends


def test_mirror_stop():
    state = position(2, tableau={0: [47]}, crystals={0: 5}, reserve={0: {"water": 2}})
    play(state, "activate:0", "energy:water", "energy:air", "stop")
    assert res(state, 0) == [1, 1, 0, 0] and state.crystals[0] == 4 and state.pending[0].kind == "turn"


def test_mirror_needs_a_crystal_and_an_energy():
    assert "activate:0" not in options(position(2, tableau={0: [47]}, reserve={0: {"water": 2}}))
    assert "activate:0" not in options(position(2, tableau={0: [47]}, crystals={0: 3}))


# -- 48 Pendant of Ragnor ----------------------------------------------------------------------------


def test_pendant_one_energy_per_other_magic_item():
    state = position(2, hands={0: [48]}, tableau={0: [1, 3, 10]}, reserve={0: {"water": 1, "fire": 1, "air": 1}})
    play(state, "summon:48")
    assert GAME.observe(state, 0).prompt.left == 1
    play(state, "energy:earth", "energy:water")
    assert res(state, 0) == [0, 1, 0, 1] and state.pending[0].kind == "turn"


# -- 49 Sid Nightshade -------------------------------------------------------------------------------


def test_sid_most_crystals_each_opponent_gives_five():
    state = position(3, hands={0: [49]}, reserve={0: {"earth": 2}}, crystals={0: 10, 1: 3, 2: 9})
    play(state, "summon:49")
    assert state.crystals == [18, 0, 4]


def test_sid_tie_for_most_gives_nothing():
    state = position(2, hands={0: [49]}, reserve={0: {"earth": 1}}, crystals={0: 9, 1: 9})
    play(state, "summon:49")
    assert state.crystals == [9, 9]


# -- 50 Damned Soul of Onys --------------------------------------------------------------------------


def test_onys_on_summon_ten_crystals_and_a_water():
    state = position(2, hands={0: [50]}, reserve={0: {"water": 1}})
    play(state, "summon:50")
    assert state.crystals[0] == 10 and res(state, 0) == [0, 1, 0, 0]


def test_onys_pass_left_for_a_water_and_round_end_loss():
    state = position(3, tableau={0: [50, 3]}, reserve={0: {"water": 1}}, crystals={0: 5, 1: 5, 2: 5}, gauge={1: 0})
    play(state, "activate:0")
    assert cards_in_play(state, 0) == [3] and cards_in_play(state, 1) == [50] and res(state, 0) == [0, 0, 0, 0]
    assert not state.tableau[1][0].used  # straightened, even above seat 1's gauge 0
    give = [e for e in state.log.events if e.kind == "give"]
    assert give[-1].detail.target == 1 and give[-1].to is None
    play(state, "end", "end", "end")
    assert state.crystals == [5, 2, 5]


def test_onys_cannot_pass_without_water():
    state = position(2, tableau={0: [50]}, reserve={0: {"fire": 1}})
    assert "activate:0" not in options(state)


# -- archmage playouts ---------------------------------------------------------------------------------


def check_archmage_playout(players, seed):
    state = GAME.new_match(GAME.config(players, {"mode": "archmage"}), seed)
    rng = Chance(seed ^ 0xA5C)
    steps = 0
    while state.pending:
        for decision in state.pending:
            ids = [o.id for o in decision.options]
            assert ids and len(ids) == len(set(ids))
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
        steps += 1
        if steps % 10 == 0:  # observations build (negative prestige: #42, #50)
            for seat in range(players):
                GAME.observe(state, seat).SerializeToString()
        assert all(c >= 0 for c in state.crystals)
        assert all(0 <= g <= 15 for g in state.gauge)
        if state.phase == pb.PHASE_TURN:
            seat = state.turn_seat
            assert sum(res(state, seat)) <= (10 if any(s.card == 18 for s in state.tableau[seat]) else 7)
    assert state.year == 4 and steps <= 3000
    held = [c for s in range(players) for c in state.hands[s] + [x.card for x in state.tableau[s]]]
    assert sorted(held + state.draw_pile + state.discard) == sorted(list(range(1, 51)) * 2)
    assert not any(state.limbo)
    assert list(GAME.result(state).scores) == expected_scores(state)
    return state


@pytest.mark.parametrize("part", range(3))
def test_archmage_random_playouts(part):
    """300 random archmage games: no crash, distinct option ids, cards conserved, crystals
    never below 0, reserves within the cap at every turn decision, scores as the rules say."""
    summoned: set[int] = set()
    for k in range(100):
        seed = part * 100 + k
        state = check_archmage_playout(2 + seed % 3, seed)
        summoned.update(e.detail.card for e in state.log.events if e.kind == "summon")
    assert len(summoned & set(range(31, 51))) >= 15


def test_archmage_prompt_reason_seen_by_all_cards_only_by_chooser():
    state = position(2, tableau={0: [34]}, draw=[29])
    play(state, "activate:0", "draw")
    assert GAME.observe(state, 1).prompt.reason == "orb-look"
    assert list(GAME.observe(state, SPECTATOR).prompt.cards) == [29]


def test_worlds_keep_a_familiar_for_another_seats_open_kriss():
    """A Necrotic Kriss prompt (#44) open for another seat shows it holds a familiar: every
    sampled world gives it one (most worlds of this position had a prompt with no option)."""
    game = GAME
    state = game.new_match(game.config(2, {"mode": "archmage"}), 4)
    rng = Chance(4 ^ 77)
    while state.steps < 192:
        game.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert state.asks[0].handler == "kriss" and state.asks[0].seat == 1
    for k in range(200):
        world = game.sample_world(state, 0, Chance(k))
        (decision,) = world.pending
        assert decision.options and all(o.id.startswith("card:") for o in decision.options)
        assert game.observe(world, 0).SerializeToString() == game.observe(state, 0).SerializeToString()
