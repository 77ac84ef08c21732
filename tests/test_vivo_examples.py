"""Vivo: NOTES §4.24's scoring vector through the engine.

The rulebook prints no numeric example (NOTES §4.24: "Text-example count: 0"). The three
clarification vectors (Solo, Trio with 3, Quartet with 4) are pinned in ``test_vivo.py``
(``test_solo_all_must_play_the_leads_suit``, ``test_trio_with_three_players_...``,
``test_quartet_with_four_players_...``). The fourth, "face-down scored card = 2 points; face-up
= printed rank", is pinned there on ``row_points`` and in tricks whose face-up card happens to
be worth 1 or 2; here a trick separates the two with distinct numbers.
"""

from __future__ import annotations

from arena.games.v1 import vivo_pb2 as pb
from arena.games.vivo import GAME, Card
from arena.games.vivo.game import Scored
from tests.test_vivo import MIXED_3, match, play


def test_vector_face_down_scores_2_and_face_up_scores_its_rank():
    # vivo.md :187-196 (highest: face-down, 2 points), :200-209 (lowest: face-up, its printed
    # rank), :268-271 (round total). A Trio with 3 players: red 6, green 12, yellow 5.
    state = match(MIXED_3, [3], start=0)
    play(state, "red 6", "green 12", "yellow 5")
    assert state.rows == [[], [Scored(Card("green", 12), True)], [Scored(Card("yellow", 5), False)]]
    seats = GAME.observe(state, 0).seats
    assert [(v.face_down, list(v.face_up), v.round_points, v.score) for v in seats] == [
        (0, [], 0, 0),
        (1, [], 2, 2),  # the 12 is worth 2, face-down
        (0, [pb.Card(suit="yellow", rank=5)], 5, 5),  # the 5 is worth 5, face-up
    ]
    scores = [(e.seat, e.detail.face_down, e.detail.points) for e in state.log.events if e.kind == "score"]
    assert scores == [(1, True, 2), (2, False, 5)]
    assert state.leader == 2  # the lowest scorer leads next (:252-254)
