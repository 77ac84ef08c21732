"""A remote bot's request assembled from pre-serialised parts (``arena.protocol.WireRequest``) is
byte for byte the message built field by field and serialised, for every game, every decision
of a seeded match (simultaneous ones too), with clocks and request ids of every size."""

from __future__ import annotations

import random

import pytest

from arena.engine import Event
from arena.games.v1.rolldice_pb2 import RollEvent
from arena.protocol import (
    EventCursor,
    WireOptions,
    WireRequest,
    decision_request,
    event_bytes,
    event_message,
    pack,
    packed_bytes,
    varint,
)
from arena.registry import games
from arena.v1 import bot_pb2
from tests.test_request_bytes import players_of

MAX_DECISIONS = 400
CLOCKS = [
    (0, 0, 0),
    (2000, 20000, 0),
    (1, 0, 3),
    (200, 2**32 - 1, 1),
    (127, 128, 16383),
    # Each varint length's first and last value: 2, 3, 4 and 5 bytes.
    (16384, 2**21 - 1, 2**21),
    (2**28 - 1, 2**28, 16384),
]


def slow(game, state, decision, index, events, simultaneous, clock, request_id) -> bot_pb2.RefereeMessage:
    """The request as the referee built it before: a message, field by field."""
    request = decision_request(game, state, decision, index=index, events=events, simultaneous=simultaneous)
    request.clock.SetInParent()
    request.clock.decision_ms, request.clock.bank_ms, request.clock.strikes = clock
    request.request_id = request_id
    return bot_pb2.RefereeMessage(decision=request)


@pytest.mark.parametrize("value", [0, 1, 127, 128, 16383, 16384, 2**21 - 1, 2**21, 2**28 - 1, 2**28, 2**32 - 1])
def test_a_varint_is_protobufs_at_every_length_boundary(value: int) -> None:
    from google.protobuf.internal.encoder import _VarintBytes

    assert varint(value) == _VarintBytes(value)


@pytest.mark.parametrize("game_id", sorted(games()))
def test_wire_requests_are_the_messages_bytes(game_id: str) -> None:
    game = games()[game_id]
    n = players_of(game)
    rng = random.Random(game_id)
    state = game.new_match(game.config(n), 7)
    cursor = EventCursor(n)
    options = WireOptions()
    index = 0
    checked = 0
    while state.pending and index < MAX_DECISIONS:
        pending = state.pending
        choices = {}
        for decision in pending:
            events = cursor.take_lazy(state, decision.seat)
            simultaneous = len(pending) > 1
            clock = CLOCKS[index % len(CLOCKS)]
            request_id = rng.choice([1, 2**53 - 1, rng.randrange(1, 2**53)])
            expected = slow(game, state, decision, index, events, simultaneous, clock, request_id)
            wire = WireRequest(
                game, state, decision, index=index, events=events, simultaneous=simultaneous, options=options
            )
            data = wire.encode(*clock, request_id)
            assert data == expected.SerializeToString(), (game_id, index)
            # Parsed back, field by field (and the fields the referee reads from the wire form).
            parsed = bot_pb2.RefereeMessage.FromString(data)
            assert parsed.ListFields() == expected.ListFields()
            assert wire.message() == expected.decision
            assert (wire.decision_index, wire.seat, wire.kind, wire.simultaneous, wire.request_id) == (
                index,
                decision.seat,
                decision.kind,
                simultaneous,
                request_id,
            )
            choices[decision.seat] = rng.choice(decision.options).id
            index += 1
            checked += 1
        game.apply(state, choices)
    assert checked > 0


def test_an_option_object_is_serialised_once_per_match_and_a_reused_id_is_not_trusted() -> None:
    from arena.engine import Option
    from arena.games.v1 import rolldice_pb2 as pb

    cache = WireOptions()
    a = Option("a", "A", pb.Action(choice=pb.STOP))
    first = cache.wire([a])
    assert cache.wire([a]) is not None and cache._cache[id(a)][0] is a
    b = Option("b", "B", pb.Action(choice=pb.REROLL))
    cache._cache[id(b)] = (a, first)  # as if b had an id a dead option held
    assert cache.wire([b]) != first


@pytest.mark.parametrize(
    ("index", "option_id", "request_id"),
    [(0, "stop", 1), (1, "", 2**53 - 1), (127, "é", 0), (128, "x" * 300, 12345), (2**32 - 1, "roll", 2**64 - 1)],
)
def test_the_sdk_answer_is_the_messages_bytes(index: int, option_id: str, request_id: int) -> None:
    from bots.serve import answer_bytes

    expected = bot_pb2.BotMessage(
        decision=bot_pb2.DecisionResponse(decision_index=index, option_id=option_id, request_id=request_id)
    )
    assert answer_bytes(index, option_id, request_id) == expected.SerializeToString()


def test_an_sdk_bot_answering_a_non_string_is_a_crash_and_its_server_goes_on() -> None:
    """The SDK server writes answers as bytes: a bot returning something else than an option id
    still ends that match's stream with an error (a crash verdict), as a message would have."""
    from arena.games.rolldice import GAME
    from arena.runner import play_match
    from bots.sdk import Bot
    from bots.serve import start
    from referee.remote import RemotePlayer

    class Wrong(Bot):
        name = "wrong"
        inline = True

        def choose(self, turn):  # type: ignore[no-untyped-def]
            return 3 if turn.request.decision_index >= 2 else turn.options[0].id

    class Right(Bot):
        name = "right"

        def choose(self, turn):  # type: ignore[no-untyped-def]
            return turn.options[0].id

    class Raising(Bot):
        name = "raising"

        def choose(self, turn):  # type: ignore[no-untyped-def]
            raise ValueError("my secret plan")

    wrong, right, raising = start(Wrong), start(Right), start(Raising)
    try:
        record = play_match(
            GAME,
            GAME.config(2, {"target": 30}),
            3,
            [RemotePlayer(f"grpc://127.0.0.1:{wrong.port}"), RemotePlayer(f"grpc://127.0.0.1:{right.port}")],
        )
        (failure,) = record.failures
        assert (failure.seat, failure.verdict) == (0, "crash")
        assert failure.decision >= 2
        # The author hears the SDK's words; another exception's text (the bot's) stays in its log.
        assert "the bot raised NotAnOptionId: choose must return an option id (str), not int" in failure.detail
        record = play_match(
            GAME,
            GAME.config(2, {"target": 30}),
            3,
            [RemotePlayer(f"grpc://127.0.0.1:{raising.port}"), RemotePlayer(f"grpc://127.0.0.1:{right.port}")],
        )
        (failure,) = record.failures
        assert "the bot raised ValueError (its traceback is in the bot's log)" in failure.detail
        assert "secret" not in failure.detail
        again = play_match(
            GAME,
            GAME.config(2, {"target": 30}),
            3,
            [RemotePlayer(f"grpc://127.0.0.1:{right.port}"), RemotePlayer(f"grpc://127.0.0.1:{right.port}")],
        )
        assert not again.failures
    finally:
        wrong.stop()
        right.stop()
        raising.stop()


def test_request_ids_are_in_range_distinct_and_not_shared_with_a_forked_child() -> None:
    import os

    from referee.remote import MAX_REQUEST_ID, next_request_id

    ids = [next_request_id() for _ in range(2000)]  # across several blocks of 512
    assert all(1 <= i <= MAX_REQUEST_ID for i in ids)
    assert len(set(ids)) == len(ids)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, to the parent
        try:
            os.write(write, ",".join(str(next_request_id()) for _ in range(8)).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child = [int(x) for x in os.read(read, 4096).decode().split(",")]
    os.close(read)
    parent = [next_request_id() for _ in range(8)]
    assert child != parent  # the buffered block was not inherited


@pytest.mark.parametrize("index", [0, 1, 127, 128, 2**32 - 1])
@pytest.mark.parametrize("seat", [-1, 0, 1, 5, -2, 2**31 - 1, -(2**31)])
@pytest.mark.parametrize(
    ("kind", "text", "detail"),
    [
        ("roll", "rolls 6", RollEvent(seat=1, value=6)),
        ("", "", None),
        ("keep", "", RollEvent()),  # a detail whose value is empty: the Any is still sent
        ("é", "x" * 200, RollEvent(seat=0, value=3, total=300)),
    ],
)
def test_an_events_bytes_are_its_messages_bytes(index: int, seat: int, kind: str, text: str, detail: object) -> None:
    event = Event(seat, kind, text, detail)  # type: ignore[arg-type]
    assert event_bytes(index, event) == event_message(index, event).SerializeToString()
    if detail is not None:
        assert packed_bytes(detail) == pack(detail).SerializeToString()  # type: ignore[arg-type]
