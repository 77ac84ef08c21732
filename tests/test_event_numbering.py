"""A seat's events are numbered among the events it was sent (``Event.index``: 0, 1, 2, ...),
never by their place in the whole log, where a gap would count the private events other seats
got in between (``arena.protocol.EventCursor``). Every game, a seeded match, every seat."""

from __future__ import annotations

import random

import pytest

from arena.engine import SPECTATOR, EventLog
from arena.protocol import EventCursor
from arena.registry import games
from arena.scenario import request_for
from arena.v1 import bot_pb2
from referee import views
from tests.test_wire_request import players_of

MAX_DECISIONS = 400


class _State:
    def __init__(self) -> None:
        self.log = EventLog()


def test_a_private_event_for_one_seat_leaves_no_gap_in_the_others_numbers() -> None:
    state = _State()
    cursor = EventCursor(3)
    state.log.public(0, "deal", "cards dealt")
    assert [e.index for e in cursor.take_lazy(state, 1)] == [0]
    state.log.private([0], 0, "drawn", "you drew the 7")
    state.log.private([0, 2], 0, "peek", "seat 0 showed seat 2 a card")
    state.log.public(0, "play", "seat 0 played")
    seat0 = cursor.take_lazy(state, 0)
    seat1 = cursor.take_lazy(state, 1)
    seat2 = cursor.take_lazy(state, 2)
    assert [(e.index, e.kind) for e in seat0] == [(0, "deal"), (1, "drawn"), (2, "peek"), (3, "play")]
    assert [(e.index, e.kind) for e in seat1] == [(1, "play")]  # not 3: two private events went by
    assert [(e.index, e.kind) for e in seat2] == [(0, "deal"), (1, "peek"), (2, "play")]
    # The messages and the serialised entries carry the seat's number too.
    assert seat1[0].message().index == 1
    assert bot_pb2.DecisionRequest.FromString(seat1[0].wire()).events[0].index == 1
    state.log.public(1, "pass", "seat 1 passed")
    assert [e.index for e in cursor.take_lazy(state, 1)] == [2]
    assert [e.index for e in cursor.take_lazy(state, 0)] == [4]
    # A seat sent the whole log shares the log's views; the others have views of their own.
    state.log.public(1, "end", "the round ends")
    three = [cursor.take_lazy(state, seat)[-1] for seat in (0, 1, 2)]
    assert [e.index for e in three] == [5, 3, 4]
    assert len({id(e) for e in three}) == 3


@pytest.mark.parametrize("game_id", sorted(games()))
def test_every_seat_is_sent_the_events_it_may_see_numbered_from_zero_without_gaps(game_id: str) -> None:
    game = games()[game_id]
    n = players_of(game)
    rng = random.Random(game_id)
    state = game.new_match(game.config(n), 11)
    cursor = EventCursor(n)
    sent: list[list[tuple[int, int, str, str]]] = [[] for _ in range(n)]
    decisions = 0
    while state.pending and decisions < MAX_DECISIONS:
        choices = {}
        for decision in state.pending:
            seat = decision.seat
            taken = [(e.index, e.seat, e.kind, e.text) for e in cursor.take_lazy(state, seat)]
            sent[seat] += taken
            # A bot's script starting here (arena.scenario) gets the same numbers.
            scripted = request_for(game, state, seat).events
            assert [(e.index, e.seat, e.kind, e.text) for e in scripted] == sent[seat]
            choices[seat] = rng.choice(decision.options).id
            decisions += 1
        game.apply(state, choices)
    for seat in range(n):
        sent[seat] += [(e.index, e.seat, e.kind, e.text) for e in cursor.take_lazy(state, seat)]
        visible = [(e.seat, e.kind, e.text) for _, e in state.log.since(seat, 0)]
        assert [entry[1:] for entry in sent[seat]] == visible
        assert [entry[0] for entry in sent[seat]] == list(range(len(visible)))


def test_a_match_view_numbers_the_events_it_shows_among_themselves() -> None:
    """GetMatch while the tournament runs shows public events only (``referee.views.events``)."""
    log = EventLog()
    log.public(0, "deal", "cards dealt")
    log.private([0], 0, "drawn", "you drew the 7")
    log.public(0, "play", "seat 0 played")
    assert [(e.index, e.kind) for e in views.events(log.events, -2)] == [(0, "deal"), (1, "play")]
    assert [e.index for e in views.events(log.events, SPECTATOR)] == [0, 1, 2]
