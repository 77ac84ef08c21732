"""Zooloretto: The Dice Game: the rulebook's scoring example through the engine.

``test_zoolorettodice.py`` pins it on the pure ``breakdown``
(``test_the_rulebook_scoring_example``) and the three NOTES §4.26 rule vectors through the
engine (``test_dice_and_trucks_by_player_count``,
``test_a_full_enclosure_sends_the_animal_to_the_barn_then_it_is_ignored``,
``test_coins_beyond_six_are_ignored``). Here the example's zoo is reached by a take and scored
at the game's end.
"""

from __future__ import annotations

from arena.games.v1 import zoolorettodice_pb2 as pb
from arena.games.zoolorettodice import GAME
from arena.games.zoolorettodice.game import breakdown
from tests.test_zoolorettodice import COIN, CROC, LION, MONKEY, OSTRICH, act, events, position, zoo


def test_scoring_example_bonuses_for_crocodile_and_lion_one_coin_group_ostrich_in_the_barn():
    # zoolorettodice.md :242-250: +1 per animal in the enclosures; the crocodile and lion bonuses
    # (first to fill them); the single completed coin group removes the crocodile from the barn;
    # the ostrich left in the barn costs 2. The hex values are designed (components.toml: the
    # bonus equals the enclosure's size, crocodile 1 ... lion 5; coin groups of 2).
    # Seat 1 filled the ostrich and monkey enclosures first (their bonuses are gone); seat 0 has
    # an ostrich in its barn and 2 coins (one group) and takes crocodile, crocodile, lion.
    state = position(
        2,
        trucks=[[CROC, CROC, LION], [COIN], []],
        supply=2,
        zoos={
            0: zoo((0, 2, 3, 3, 4), barn=(OSTRICH,), coins=2),
            1: zoo((0, 2, 3, 0, 0), bonuses=(OSTRICH, MONKEY)),
        },
    )
    state.bonus_owner = [-1, 1, 1, -1, -1]
    GAME.refresh(state)
    act(state, "take:0")
    z = state.zoos[0]
    assert z.enclosures == [1, 2, 3, 3, 5]  # the first crocodile fills its enclosure
    assert z.barn == [True, True, False, False, False]  # the second goes to the barn (:152-154)
    assert z.bonuses == [True, False, False, False, True]  # crocodile and lion: first to fill
    assert [(e.detail.animal, e.detail.points) for e in events(state, "bonus")] == [(pb.CROCODILE, 1), (pb.LION, 5)]
    assert state.triggered  # only the elephant enclosure has spaces left (:194-200)
    act(state, "take:1")  # seat 1 takes the coin: the round and the game end
    b = breakdown(state.zoos[0])
    # 14 animals + 1 + 5 (bonuses) + 0 (the group removes a barn animal) - 2 (the ostrich) = 18.
    assert (b.animals, b.bonuses, b.groups, b.removed, b.group_points, b.barn_points) == (14, 6, 1, 1, 0, -2)
    (end,) = events(state, "end")
    assert list(end.detail.scores) == [18, 10]  # seat 1: 5 animals + 2 + 3 (its bonuses)
    assert GAME.result(state).scores == (18, 10)
