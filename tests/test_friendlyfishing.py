"""Friendly Fishing: every rule of shared/rules/friendlyfishing.md and its rulings, pinned."""

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
from arena.games.friendlyfishing import BOARDS, GAME, FishingState, draw_board
from arena.games.friendlyfishing.game import (
    ISLAND,
    TILE_KINDS,
    crayfish_points,
    final_scores,
    fishing_scores,
    legal_moves,
    slide_targets,
    tile_list,
)
from arena.games.v1 import friendlyfishing_pb2 as pb
from arena.runner import play_match
from arena.scenario import request_for
from bots.registry import make_bot
from tests.contract import assert_same_view, configurations, random_playout

RULES_MD = Path(__file__).resolve().parent.parent / "arena" / "games" / "friendlyfishing" / "rules.md"
SMALL_SETS = "kingfish,skipjack"
LARGE_SETS = "kingfish,lunker,dinker,skipjack"


def held(**counts: int) -> list[int]:
    """A per-Tile count list from names: held(blue=2, crayfish=1)."""
    out = [0] * TILE_KINDS
    for name, n in counts.items():
        out[pb.Tile.Value(name.upper())] = n
    return out


def position(players=2, tiles=None, boat=ISLAND, side="small", specials=None, to_act=0) -> FishingState:
    """A match with only the given tiles on the board ({space: Tile}), the boat at ``boat`` and
    ``to_act`` to move (a turn just starting, so the return-to-island check runs)."""
    specials = specials or (SMALL_SETS if side == "small" else LARGE_SETS)
    state = GAME.new_match(GAME.config(players, {"side": side, "specials": specials}), seed=1)
    state.tiles = [pb.TILE_NONE] * BOARDS[side].size
    for space, tile in (tiles or {}).items():
        state.tiles[space] = tile
    state.boat = boat
    state.to_act = to_act
    GAME._start_turn(state)
    GAME.refresh(state)
    return state


def decision(state):
    (open_decision,) = state.pending
    return open_decision.seat, open_decision.kind, open_decision.option_ids


def kinds(state):
    return [e.kind for e in state.log.events]


# -- components and the boards -------------------------------------------------------------


def test_tiles_are_31_basic_plus_the_chosen_specials_plus_5_actions():
    # :24-30, :53-66, :240, :250: 42 tiles with 2 Special sets, 48 with 4.
    small = Counter(tile_list((pb.KINGFISH, pb.JUNK)))
    assert sum(small.values()) == 42
    assert [small[c] for c in (pb.BLUE, pb.GREEN, pb.YELLOW, pb.RED)] == [6, 6, 6, 6]
    assert small[pb.CRAYFISH] == 7 and small[pb.KINGFISH] == 3 and small[pb.JUNK] == 3
    assert all(small[a] == 1 for a in (pb.SWAP_FISH, pb.SWAP_TILES, pb.SLIDE, pb.REMOVE, pb.DOUBLE))
    assert len(tile_list((pb.KINGFISH, pb.LUNKER, pb.DINKER, pb.SHINER))) == 48


def test_boards_have_one_space_per_tile_and_the_island_touches_8_or_10():
    # :143-153: the island is one space with 8 (Small) / 10 (Large) adjacent water spaces.
    small, large = BOARDS["small"], BOARDS["large"]
    assert (small.size, len(small.island_neighbours), len(small.island)) == (42, 8, 1)
    assert (large.size, len(large.island_neighbours), len(large.island)) == (48, 10, 2)
    assert small.island_neighbours == (14, 15, 16, 20, 21, 25, 26, 27)
    assert large.island_neighbours == (16, 17, 18, 19, 23, 24, 28, 29, 30, 31)
    # Adjacency is symmetric and 8-directional: an inner space has 8 neighbours.
    for board in (small, large):
        for s, around in enumerate(board.neighbours):
            assert all(s in board.neighbours[n] for n in around)
    assert sorted(small.neighbours[8]) == [1, 2, 3, 7, 9, 14, 15, 16]
    assert sorted(small.neighbours[0]) == [1, 5, 6, 7]  # a corner space of the cut lake


@pytest.mark.parametrize("side", ["small", "large"])
def test_rules_md_draws_each_board_side_from_the_data(side):
    drawings = re.findall(r"```\n(.*?)\n```", RULES_MD.read_text(), re.S)
    assert draw_board(BOARDS[side]) in drawings
    # The drawing is the board: every number a space in reading order, every cell once.
    numbers = [int(n) for n in re.findall(r"\d+", draw_board(BOARDS[side]))]
    assert numbers == list(range(BOARDS[side].size))


def test_side_and_specials_options():
    assert GAME.new_match(GAME.config(4), 3).side == "small"
    assert GAME.new_match(GAME.config(5), 3).side == "large"
    assert GAME.new_match(GAME.config(3, {"side": "large"}), 3).side == "large"
    state = GAME.new_match(GAME.config(2, {"specials": "shiner,junk"}), 3)
    assert state.specials == (pb.SHINER, pb.JUNK)
    assert Counter(state.tiles)[pb.SHINER] == 3


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (5, {"side": "small"}, "large island"),
        (3, {"specials": "kingfish"}, "uses 2"),
        (3, {"side": "large", "specials": "kingfish,junk"}, "uses 4"),
        (3, {"specials": "kingfish,whale"}, "expected"),
        (3, {"specials": "junk,junk"}, "expected"),
    ],
)
def test_bad_configurations_are_rejected(players, options, message):
    with pytest.raises(ConfigError, match=message):
        GAME.config(players, options)


def test_setup_places_the_shuffled_tiles_and_the_boat_on_the_island():
    order = tile_list((pb.KINGFISH, pb.SKIPJACK))[::-1]
    chance = PresetChance(orders={"tiles": [order]}, picks={"start": [1]}, strict=True)
    state = GAME.new_match(GAME.config(3, {"specials": SMALL_SETS}), chance=chance)
    assert state.tiles == order and state.boat == ISLAND and state.to_act == 1
    assert decision(state) == (1, "move", tuple(f"move:{s}" for s in BOARDS["small"].island_neighbours))
    assert chance.unused() == {}
    # Random Special sets: the first 2 (Small) / 4 (Large) of the "specials" shuffle.
    names = ["shiner", "junk", "kingfish", "lunker", "dinker", "skipjack"]
    chance = PresetChance(orders={"specials": [names]})
    state = GAME.new_match(GAME.config(2, {"side": "large"}), chance=chance)
    assert state.specials == (pb.KINGFISH, pb.LUNKER, pb.SHINER, pb.JUNK)


# -- scoring -------------------------------------------------------------------------------


def test_text_example_final_score_is_own_plus_left_neighbour():
    # :444-448: Fishing Score 21, left neighbour's 24 -> Final Score 45.
    assert final_scores([21, 24, 0]) == [45, 24, 21]
    assert final_scores([21, 24]) == [21, 24]  # 2 players compare Fishing Scores (:428-432)


@pytest.mark.parametrize(("count", "points"), [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 15), (6, 21)])
def test_common_fish_table(count, points):
    # :224-238
    assert fishing_scores([held(green=count)], pb.TILE_NONE) == [points]
    assert fishing_scores([held(green=count)], pb.GREEN) == [2 * points]  # :203-207
    assert fishing_scores([held(green=count)], pb.RED) == [points]


@pytest.mark.parametrize(
    ("counts", "points"),
    [
        ([3, 1], [8, 4]),
        ([2, 2, 1], [8, 8, 4]),  # ties take the full points (:262-264)
        ([2, 1, 1, 0], [8, 4, 4, 0]),
        ([1, 0], [8, 0]),  # no Crayfish never scores (ruling 8)
        ([0, 0, 0], [0, 0, 0]),
        ([3, 3, 0], [8, 8, 0]),  # dense ranking: nobody is second with 0
        ([4, 2, 1], [8, 4, 0]),
    ],
)
def test_crayfish_most_and_second_most(counts, points):
    # :254-264
    assert crayfish_points(counts) == points


@pytest.mark.parametrize(("count", "points"), [(0, 0), (1, -2), (2, 5), (3, 12)])
def test_shiner_table(count, points):
    # :357-365
    assert fishing_scores([held(shiner=count)], pb.TILE_NONE) == [points]


def test_flat_points_per_tile():
    # :304-306, :312-314, :330-332, :373-375, :163, :466-486
    assert fishing_scores([held(junk=2)], 0) == [-6]
    assert fishing_scores([held(dinker=3)], 0) == [6]
    assert fishing_scores([held(skipjack=2)], 0) == [10]
    assert fishing_scores([held(lunker=1)], 0) == [5]
    assert fishing_scores([held(kingfish=2, swap_fish=1, double=1, remove=1)], 0) == [0]


def test_a_full_fishing_score():
    hauls = [held(blue=3, red=1, crayfish=2, shiner=2, junk=1), held(blue=1, crayfish=1, skipjack=1)]
    assert fishing_scores(hauls, pb.BLUE) == [12 + 1 + 8 + 5 - 3, 2 + 4 + 5]


# -- moving the boat -----------------------------------------------------------------------


def test_from_the_island_only_spaces_touching_it():
    state = position(tiles={14: pb.BLUE, 27: pb.RED, 2: pb.GREEN})
    assert decision(state) == (0, "move", ("move:14", "move:27"))


def test_moves_go_to_adjacent_tiles_never_to_open_water():
    # :105-111; ruling 3. Boat on 15: its neighbours are 7 8 9 14 16 20 21 and the island.
    state = position(tiles={7: pb.BLUE, 9: pb.RED, 3: pb.GREEN, 26: pb.RED}, boat=15)
    assert decision(state)[2] == ("move:7", "move:9")
    GAME.apply(state, {0: "move:9"})
    assert state.collections[0][pb.RED] == 1 and state.tiles[9] == pb.TILE_NONE
    assert kinds(state)[-2:] == ["move", "collect"]
    assert state.to_act == 1 and state.boat == 9


def test_skipjack_in_a_straight_line_over_open_water():
    # :336-349; ruling 4. From 15 north: 8, then 2.
    state = position(tiles={2: pb.SKIPJACK, 7: pb.BLUE}, boat=15)
    assert decision(state)[2] == ("move:2", "move:7")
    assert legal_moves(BOARDS["small"], state.tiles, 15) == [(2, True), (7, False)]
    GAME.apply(state, {0: "move:2"})
    assert state.log.events[-2].detail.line and state.collections[0][pb.SKIPJACK] == 1
    # Another tile on the line blocks it; so does a non-Skipjack at its end.
    tiles = [0] * 42
    tiles[2], tiles[8] = pb.SKIPJACK, pb.BLUE
    assert legal_moves(BOARDS["small"], tiles, 15) == [(8, False)]
    tiles[2], tiles[8] = pb.RED, 0
    assert legal_moves(BOARDS["small"], tiles, 15) == []


def test_lines_stop_at_rocks_and_the_island():
    board = BOARDS["small"]
    tiles = [0] * 42
    tiles[21] = pb.SKIPJACK
    assert legal_moves(board, tiles, 20) == []  # 20 -> island -> 21: the island blocks (:344-345)
    tiles[21], tiles[22] = 0, pb.SKIPJACK
    assert legal_moves(board, tiles, 21) == []  # 21 -> rock -> 22: a rock blocks
    # From the island a line may start (ruling 4): island -> 15 -> 8 -> 2.
    tiles[22], tiles[2] = 0, pb.SKIPJACK
    assert legal_moves(board, tiles, ISLAND) == [(2, True)]
    # Large island: lines leave from either cell. North of cell (3,3): 17 9 2; north of cell
    # (3,4): 18 10 3. Spaces 1 and 4 lie on no line from the island.
    tiles = [0] * 48
    for space in (1, 2, 3, 4):
        tiles[space] = pb.SKIPJACK
    assert legal_moves(BOARDS["large"], tiles, ISLAND) == [(2, True), (3, True)]


def test_the_boat_returns_to_the_island_when_it_cannot_move():
    # :130-137, :381-386: seat 1 starts with the boat stuck on 0; it returns and moves on.
    state = position(tiles={26: pb.BLUE}, boat=0, to_act=1)
    assert state.boat == ISLAND and kinds(state)[-1] == "return"
    assert decision(state) == (1, "move", ("move:26",))


def test_the_game_ends_when_the_boat_cannot_move_from_the_island():
    # :388-390: tiles remain, but none touch the island and no Skipjack line reaches one.
    state = position(tiles={0: pb.RED, 41: pb.BLUE}, boat=3)
    assert state.pending == () and kinds(state)[-2:] == ["return", "end"]
    assert GAME.result(state).ranks == (1, 1)


def test_skipjack_reminder_a_line_from_the_island_keeps_the_game_going():
    # :394-400
    state = position(tiles={2: pb.SKIPJACK}, boat=40)
    assert decision(state) == (0, "move", ("move:2",)) and state.boat == ISLAND


# -- Dinkers, Kingfish, Lunkers ------------------------------------------------------------


def test_a_dinker_can_be_collected_or_left_to_move_on():
    # :316-324; ruling 6.
    state = position(tiles={8: pb.DINKER, 2: pb.BLUE, 9: pb.RED}, boat=15, specials="dinker,junk")
    GAME.apply(state, {0: "move:8"})
    assert decision(state) == (0, "dinker", ("collect", "move:2", "move:9"))
    GAME.apply(state, {0: "move:2"})
    assert state.tiles[8] == pb.DINKER and state.collections[0][pb.BLUE] == 1 and state.to_act == 1


def test_a_dinker_with_no_way_on_is_collected():
    state = position(tiles={8: pb.DINKER}, boat=15, specials="dinker,junk")
    GAME.apply(state, {0: "move:8"})
    assert state.collections[0][pb.DINKER] == 1 and state.to_act == 1


def test_a_dinker_left_this_turn_cannot_be_entered_again():
    # Two Dinkers side by side: 8 -> 9 may not go back to 8, so at 9 it must collect.
    state = position(tiles={8: pb.DINKER, 9: pb.DINKER}, boat=15, specials="dinker,junk")
    GAME.apply(state, {0: "move:8"})
    assert decision(state)[1:] == ("dinker", ("collect", "move:9"))
    GAME.apply(state, {0: "move:9"})
    assert state.collections[0][pb.DINKER] == 1 and state.tiles[8] == pb.DINKER and state.to_act == 1


def test_kingfish_three_win_at_once_and_alone():
    # :280-288, :501; ruling 13.
    state = position(3, tiles={14: pb.KINGFISH, 15: pb.BLUE, 16: pb.BLUE})
    state.collections[0][pb.KINGFISH] = 2
    state.collections[1][pb.BLUE] = 6
    GAME.apply(state, {0: "move:14"})
    assert state.pending == () and "kingfish" in kinds(state)
    result = GAME.result(state)
    assert result.ranks == (1, 2, 2) and result.winners == (0,)


def test_kingfish_two_are_enough_with_five_players():
    state = position(5, tiles={16: pb.KINGFISH, 17: pb.BLUE}, side="large", to_act=2)
    state.collections[2][pb.KINGFISH] = 1
    GAME.apply(state, {2: "move:16"})
    assert GAME.result(state).winners == (2,) and GAME.result(state).ranks == (2, 2, 1, 2, 2)
    # With 4 players the second Kingfish is not enough.
    state = position(4, tiles={16: pb.KINGFISH, 17: pb.BLUE}, side="large", to_act=2)
    state.collections[2][pb.KINGFISH] = 1
    GAME.apply(state, {2: "move:16"})
    assert state.pending and state.kingfish_winner == -1


def test_a_lunker_sends_every_other_lunker_to_the_box():
    # :296-306; ruling 7: the collector's older Lunker goes too.
    state = position(3, tiles={14: pb.LUNKER, 15: pb.LUNKER}, specials="lunker,junk")
    state.collections[1][pb.LUNKER] = 1
    GAME.apply(state, {0: "move:14"})
    assert [c[pb.LUNKER] for c in state.collections] == [1, 0, 0] and state.box[pb.LUNKER] == 1
    state.to_act = 0
    GAME.refresh(state)
    GAME.apply(state, {0: "move:15"})
    assert [c[pb.LUNKER] for c in state.collections] == [1, 0, 0] and state.box[pb.LUNKER] == 2
    assert [e.detail.other_seat for e in state.log.events if e.kind == "discard"] == [1, 0]


# -- Action tiles --------------------------------------------------------------------------


def test_double_points_doubles_a_colour_for_everyone():
    state = position(2, tiles={14: pb.DOUBLE, 15: pb.BLUE})
    state.collections[0][pb.RED] = 2
    state.collections[1][pb.RED] = 3
    GAME.apply(state, {0: "move:14"})
    assert decision(state) == (0, "double_points", ("colour:blue", "colour:green", "colour:yellow", "colour:red"))
    GAME.apply(state, {0: "colour:red"})
    assert state.double == pb.RED and GAME.observe(state, 1).double_colour == pb.RED
    assert [c.fishing_score for c in GAME.observe(state, 0).collections] == [6, 12]


def test_swap_two_fish():
    # :173; ruling 9.
    state = position(3, tiles={14: pb.SWAP_FISH, 15: pb.BLUE})
    state.collections[0][pb.RED] = 1
    state.collections[2][pb.CRAYFISH] = 1
    state.collections[2][pb.GREEN] = 2
    GAME.apply(state, {0: "move:14"})
    assert decision(state) == (0, "swap_fish_player", ("seat:2",))  # seat 1 has no Basic Fish
    GAME.apply(state, {0: "seat:2"})
    assert decision(state)[1:] == ("swap_fish_take", ("take:green", "take:crayfish"))
    GAME.apply(state, {0: "take:green"})
    assert decision(state)[1:] == ("swap_fish_give", ("give:red",))  # not the green just taken
    GAME.apply(state, {0: "give:red"})
    assert state.collections[0][pb.GREEN] == 1 and state.collections[0][pb.RED] == 0
    assert state.collections[2][pb.RED] == 1 and state.collections[2][pb.GREEN] == 1
    assert kinds(state)[-1] == "swap_fish" and state.to_act == 1


def test_swap_two_fish_without_fish_has_no_effect():
    state = position(2, tiles={14: pb.SWAP_FISH, 15: pb.BLUE})
    state.collections[1][pb.RED] = 1
    GAME.apply(state, {0: "move:14"})
    assert "no_effect" in kinds(state) and state.to_act == 1


def test_swap_two_tiles():
    state = position(2, tiles={14: pb.SWAP_TILES, 15: pb.BLUE, 0: pb.RED})
    GAME.apply(state, {0: "move:14"})
    assert decision(state) == (0, "swap_tiles", ("tile:0", "tile:15"))
    GAME.apply(state, {0: "tile:15"})
    assert decision(state) == (0, "swap_tiles_with", ("tile:0",))
    GAME.apply(state, {0: "tile:0"})
    assert state.tiles[0] == pb.BLUE and state.tiles[15] == pb.RED


def test_slide_a_tile_through_open_water_only():
    # :187-189; ruling 10. Boat ends on 14; 5 is walled in by 6, 12, 13 (tiles) and the edge.
    tiles = {14: pb.SLIDE, 5: pb.BLUE, 6: pb.RED, 12: pb.RED, 13: pb.RED, 0: pb.GREEN}
    state = position(2, tiles=tiles)
    GAME.apply(state, {0: "move:14"})
    _, kind, options = decision(state)
    assert kind == "slide_tile" and "tile:5" not in options and "tile:0" in options
    GAME.apply(state, {0: "tile:13"})
    targets = decision(state)[2]
    assert "to:14" not in targets  # the boat's space blocks
    assert "to:20" in targets and "to:41" in targets  # around the island through open water
    GAME.apply(state, {0: "to:41"})
    assert state.tiles[41] == pb.RED and state.tiles[13] == pb.TILE_NONE
    assert 13 in slide_targets(BOARDS["small"], state.tiles, state.boat, 5)  # 5 is free now


def test_remove_a_tile():
    state = position(2, tiles={14: pb.REMOVE, 15: pb.BLUE, 40: pb.KINGFISH})
    GAME.apply(state, {0: "move:14"})
    assert decision(state) == (0, "remove_tile", ("tile:15", "tile:40"))
    GAME.apply(state, {0: "tile:40"})
    assert state.tiles[40] == pb.TILE_NONE and state.box[pb.KINGFISH] == 1


def test_board_actions_with_too_few_tiles_have_no_effect():
    for action in (pb.SWAP_TILES, pb.REMOVE, pb.SLIDE):
        state = position(2, tiles={14: action})
        GAME.apply(state, {0: "move:14"})
        assert "no_effect" in kinds(state) and state.pending == ()


# -- results -------------------------------------------------------------------------------


def test_two_players_compare_fishing_scores_and_ties_share():
    state = position(2, tiles={})
    state.collections[0] = held(blue=3)
    state.collections[1] = held(red=2, green=2)
    assert GAME.result(state).scores == (6, 6) and GAME.result(state).ranks == (1, 1)
    state.collections[1] = held(red=2)
    assert GAME.result(state).ranks == (1, 2)


def test_three_to_five_players_rank_by_final_score():
    state = position(4, tiles={})
    state.collections = [held(blue=3), held(red=4), held(green=1), held()]
    result = GAME.result(state)
    assert result.scores == (16, 11, 1, 6) and result.ranks == (1, 2, 4, 3)


# -- illegal choices, information, invariants ----------------------------------------------


def test_illegal_choices_change_nothing():
    state = GAME.new_match(GAME.config(3), 4)
    before = pickle.dumps(state)
    for bad in ("move:0", "collect", "tile:3", "move:99", "seat:1"):
        with pytest.raises(IllegalChoice):
            GAME.apply(state, {state.to_act: bad})
        assert pickle.dumps(state) == before


def test_everything_is_public_after_setup():
    # Ruling 1: every seat sees the same table; the spectator sees no more.
    state = GAME.new_match(GAME.config(4, {"side": "large"}), 8)
    rng = Chance(3)
    for _ in range(12):
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    views = [GAME.observe(state, seat) for seat in [SPECTATOR, 0, 1, 2, 3]]
    for view in views:
        view.seat, view.spectator = 0, False
    assert all(view == views[0] for view in views)
    assert all(e.to is None for e in state.log.events)
    assert [space.tile for space in views[0].spaces] == state.tiles


def test_the_future_does_not_leak():
    # Nothing is hidden, and no chance is drawn after setup: two matches with equal setups are
    # the same for every seat, whatever their seeds.
    def chance(seed: int) -> PresetChance:
        order = tile_list((pb.KINGFISH, pb.SKIPJACK))
        return PresetChance(seed, orders={"tiles": [order]}, picks={"start": [0]})

    a = GAME.new_match(GAME.config(3, {"specials": SMALL_SETS}), chance=chance(1))
    b = GAME.new_match(GAME.config(3, {"specials": SMALL_SETS}), chance=chance(2))
    rng = Chance(5)
    while a.pending:
        for seat in range(3):
            assert_same_view(GAME, a, b, seat)
        choice = {d.seat: rng.pick(d.options, "t").id for d in a.pending}
        GAME.apply(a, choice)
        GAME.apply(b, choice)


def conservation(state: FishingState) -> None:
    """Every tile is on the board, in a collection or in the box; at most one Lunker held."""
    places = Counter(t for t in state.tiles if t)
    for collection in [*state.collections, state.box]:
        places.update({t: n for t, n in enumerate(collection) if n})
    assert places == Counter(tile_list(state.specials))
    assert sum(c[pb.LUNKER] for c in state.collections) <= 1
    assert all(n >= 0 for c in state.collections for n in c)


def independent_fishing(counts, double):
    common = {0: 0, 1: 1, 2: 3, 3: 6, 4: 10, 5: 15, 6: 21}
    total = 0
    for colour in (pb.BLUE, pb.GREEN, pb.YELLOW, pb.RED):
        total += common[counts[colour]] * (2 if colour == double else 1)
    total += {0: 0, 1: -2, 2: 5, 3: 12}[counts[pb.SHINER]]
    return total + 5 * counts[pb.LUNKER] + 2 * counts[pb.DINKER] + 5 * counts[pb.SKIPJACK] - 3 * counts[pb.JUNK]


CONFIGS = list(configurations(GAME))
PLAYOUTS = 2000


def test_random_playouts_keep_the_invariants():
    """2,000 seeded games over every player count and side: conservation, scores, the bound."""
    per = PLAYOUTS // len(CONFIGS) + 1
    played = 0
    for config in CONFIGS:
        for seed in range(per):
            state = random_playout(GAME, config, seed, invariant=conservation if seed < 15 else None, observe=seed < 2)
            conservation(state)
            size = BOARDS[state.side].size
            assert state.turn <= size + 1  # one tile leaves the board per turn
            assert state.steps <= 7 * size
            result = GAME.result(state)
            cray = [c[pb.CRAYFISH] for c in state.collections]
            levels = sorted({k for k in cray if k}, reverse=True)
            bonus = [8 if levels[:1] == [k] else 4 if k and levels[1:2] == [k] else 0 for k in cray]
            fishing = [independent_fishing(c, state.double) + b for c, b in zip(state.collections, bonus, strict=True)]
            n = config.players
            finals = fishing if n == 2 else [fishing[s] + fishing[(s + 1) % n] for s in range(n)]
            assert list(result.scores) == finals
            if state.kingfish_winner >= 0:
                assert state.collections[state.kingfish_winner][pb.KINGFISH] == (2 if n == 5 else 3)
                assert result.winners == (state.kingfish_winner,)
            else:
                assert GAME.pending(state) == () and not legal_moves(BOARDS[state.side], state.tiles, ISLAND)
                assert result.winners == tuple(s for s in range(n) if finals[s] == max(finals))
            played += 1
    assert played >= PLAYOUTS


def test_sampled_worlds_are_copies_with_fresh_chance():
    state = GAME.new_match(GAME.config(3), 6)
    rng = Chance(2)
    for _ in range(10):
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    world = GAME.sample_world(state, 1, Chance(9))
    assert world.tiles == state.tiles and world.collections == state.collections and world.boat == state.boat
    assert world.chance is not state.chance
    assert_same_view(GAME, state, world, 1)


@pytest.mark.parametrize("players", [2, 5])
def test_worlds_from_observations_are_the_whole_state(players):
    # Every field is rebuilt from the observation alone (the tiles lie face up: nothing to re-draw).
    skip = {"chance", "log", "pending", "steps"}
    checked = 0
    for seed in range(3):
        state = GAME.new_match(GAME.config(players), seed)
        rng = Chance(seed + 50)
        while state.pending:
            (decision,) = state.pending
            world = GAME.world_from_observation(
                state.config, decision.seat, GAME.observe(state, decision.seat), Chance(1)
            )
            assert {k: v for k, v in vars(world).items() if k not in skip} == {
                k: v for k, v in vars(state).items() if k not in skip
            }
            assert world.chance is not state.chance and world.log.events == []
            checked += 1
            GAME.apply(state, {decision.seat: rng.pick(decision.options, "t").id})
    assert checked > 60


def test_the_tile_shuffle_is_uniform_over_the_spaces():
    # Where the Double Points tile lands, over 4,200 seeded setups: 42 spaces, equally likely.
    samples = 4200
    spots = Counter(GAME.new_match(GAME.config(2), seed).tiles.index(pb.DOUBLE) for seed in range(samples))
    observed = [spots[s] for s in range(42)]
    assert chisquare(observed, [samples / 42] * 42).pvalue > 0.001
    sets = Counter(GAME.new_match(GAME.config(2), seed).specials for seed in range(1500))
    assert len(sets) == 15  # every pair of the 6 sets turns up
    assert chisquare(list(sets.values()), [100] * 15).pvalue > 0.001


# -- the built-in heuristic ----------------------------------------------------------------


def test_heuristic_only_answers_legal_options():
    for config in CONFIGS:
        bots = [make_bot("heuristic" if s % 2 else "random", "friendlyfishing") for s in range(config.players)]
        record = play_match(GAME, config, 3, bots)
        assert record.failures == [], config


def test_heuristic_takes_the_winning_kingfish_and_blocks_a_rival_one():
    bot = make_bot("heuristic", "friendlyfishing")
    state = position(2, tiles={14: pb.KINGFISH, 15: pb.BLUE, 16: pb.BLUE})
    state.collections[0][pb.KINGFISH] = 2
    GAME.refresh(state)
    assert bot.decide(request_for(GAME, state, 0)) == "move:14"
    # Seat 1 holds 2 Kingfish. After 14 the boat is next to the Kingfish on 20; after 27 it is
    # stuck and seat 1 would move off the island onto 20: only taking the Kingfish is safe.
    state = position(2, tiles={14: pb.BLUE, 20: pb.KINGFISH, 27: pb.RED})
    state.collections[1][pb.KINGFISH] = 2
    GAME.refresh(state)
    assert bot.decide(request_for(GAME, state, 0)) == "move:20"


def test_heuristic_leaves_a_dinker_for_a_skipjack_and_doubles_its_own_colour():
    bot = make_bot("heuristic", "friendlyfishing")
    state = position(2, tiles={8: pb.DINKER, 2: pb.SKIPJACK}, boat=15, specials="dinker,skipjack")
    GAME.apply(state, {0: "move:8"})
    assert decision(state) == (0, "dinker", ("collect", "move:2"))
    assert bot.decide(request_for(GAME, state, 0)) == "move:2"
    state = position(2, tiles={14: pb.DOUBLE, 15: pb.BLUE})
    state.collections[0][pb.YELLOW] = 3
    state.collections[1][pb.RED] = 3
    GAME.apply(state, {0: "move:14"})
    assert bot.decide(request_for(GAME, state, 0)) == "colour:yellow"


def test_text_example_final_score_45_through_a_played_game_end():
    # :444-448 "Your Fishing Score = 21, Left neighbor's Fishing Score = 24, Final Score = 45",
    # reached through the engine: seat 0 collects its 6th blue fish (21, :237); its left
    # neighbour (seat 1, the next to play) holds 6 red and 2 green fish (21 + 3 = 24); the board
    # is then empty, so the game ends (:381-390) and 3-player Final Scores apply (:436-450).
    state = position(3, tiles={14: pb.BLUE})
    state.collections[0] = held(blue=5)
    state.collections[1] = held(red=6, green=2)
    GAME.refresh(state)
    GAME.apply(state, {0: "move:14"})
    assert state.pending == () and kinds(state)[-3:] == ["collect", "return", "end"]
    seen = GAME.observe(state, 2).collections
    assert [c.fishing_score for c in seen] == [21, 24, 0]
    assert [c.final_score for c in seen] == [45, 24, 21]
    assert list(state.log.events[-1].detail.scores) == [45, 24, 21]
    result = GAME.result(state)
    assert result.scores == (45, 24, 21) and result.ranks == (1, 2, 3)


# -- typed event details (an outside probe: the setup's facts were in its text only) ---------


def test_setup_event_carries_the_side_the_special_sets_and_every_tile_placed():
    order = tile_list((pb.KINGFISH, pb.SKIPJACK))[::-1]
    chance = PresetChance(orders={"tiles": [order]}, picks={"start": [1]}, strict=True)
    state = GAME.new_match(GAME.config(3, {"specials": SMALL_SETS}), chance=chance)
    setup, start = state.log.events[:2]
    assert (setup.kind, setup.to, start.kind) == ("setup", None, "start")
    assert setup.detail == pb.Detail(seat=-1, side=pb.SMALL, specials=[pb.KINGFISH, pb.SKIPJACK], tiles=order)
    assert len(setup.detail.tiles) == 42 == BOARDS["small"].size
    assert start.detail == pb.Detail(seat=1)
    names = ["shiner", "junk", "kingfish", "lunker", "dinker", "skipjack"]
    state = GAME.new_match(GAME.config(2, {"side": "large"}), chance=PresetChance(orders={"specials": [names]}))
    detail = state.log.events[0].detail
    assert detail.side == pb.LARGE and list(detail.specials) == [pb.KINGFISH, pb.LUNKER, pb.SHINER, pb.JUNK]
    assert list(detail.tiles) == state.tiles and len(detail.tiles) == 48


@pytest.mark.parametrize("players", [2, 3, 5])
def test_a_tracker_of_the_details_alone_knows_the_board(players):
    # From "setup" and the tile events alone a bot knows the side, the Special sets and the
    # tile on every space at each of its decisions.
    for seed in range(4):
        state = GAME.new_match(GAME.config(players), seed)
        rng = Chance(seed + 7)
        seen = [0] * players
        boards: list[list[int]] = [[] for _ in range(players)]
        sides, specials = [0] * players, [[0]] * players
        while state.pending:
            for seat in range(players):
                board = boards[seat]
                for _, event in state.log.since(seat, seen[seat]):
                    d = event.detail
                    if event.kind == "setup":
                        boards[seat] = board = list(d.tiles)
                        sides[seat], specials[seat] = d.side, list(d.specials)
                    elif event.kind == "collect":
                        board[d.to_space] = pb.TILE_NONE
                    elif event.kind == "remove":
                        board[d.from_space] = pb.TILE_NONE
                    elif event.kind == "slide":
                        board[d.from_space], board[d.to_space] = pb.TILE_NONE, d.tile
                    elif event.kind == "swap_tiles":
                        board[d.from_space], board[d.to_space] = d.given, d.tile
                seen[seat] = len(state.log.events)
            (decision,) = state.pending
            obs = GAME.observe(state, decision.seat)
            assert [s.tile for s in obs.spaces] == boards[decision.seat]
            assert (obs.side, list(obs.specials)) == (sides[decision.seat], specials[decision.seat])
            GAME.apply(state, {decision.seat: rng.pick(decision.option_ids, "choice")})
