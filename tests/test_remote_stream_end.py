"""A remote bot whose stream ends, or lingers, over real gRPC on loopback: one failure on record
for one end, the same detail however the referee learns of it, and the seats of a match closed
at once with a bounded wait on a bot that keeps its stream open.

The bot server runs in this process (a plain gRPC server on its own threads); the referee is
the real remote player on its own event loop.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager

import grpc

from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.record import FailureEntry, replay
from arena.runner import ErrorPolicy, FunctionPlayer, play_match
from arena.v1 import bot_pb2
from referee.remote import RemotePlayer
from tests.cli_run import arena

CONFIG = GAME.config(2, {"target": 60})
CLOCK = clock_settings({"decision": 600, "bank": 0, "increment": 0, "startup": 2000, "grace": 100, "strikes": 0})
SUBSTITUTE = ErrorPolicy("substitute", budget=3)


def _ready() -> bytes:
    ready = bot_pb2.Ready(protocol_version="1.0", bot_name="ending")
    return bot_pb2.BotMessage(ready=ready).SerializeToString()


def _answer(request: bot_pb2.DecisionRequest) -> bytes:
    answer = bot_pb2.DecisionResponse(
        decision_index=request.decision_index, request_id=request.request_id, option_id=request.options[0].id
    )
    return bot_pb2.BotMessage(decision=answer).SerializeToString()


class EndingBot:
    """A bot server that ends (or keeps) its stream in one chosen way:

    close_at_start    returns at start (status OK), no ready
    ready_then_close  ready, then returns: status OK before its first decision
    ready_then_abort  ready, then status INTERNAL "boom"
    close             answers 2 decisions, then returns at the third (status OK)
    abort             answers 2 decisions, then status RESOURCE_EXHAUSTED "my own quota"
    linger            plays well, and after finish keeps its stream open until released
    """

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.released = threading.Event()
        self.finishes = 0  # streams that received their finish
        self.lock = threading.Lock()
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
        handler = grpc.stream_stream_rpc_method_handler(
            self.play, request_deserializer=bot_pb2.RefereeMessage.FromString, response_serializer=lambda raw: raw
        )
        self.server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("arena.v1.BotService", {"Play": handler}),)
        )
        port = self.server.add_insecure_port("127.0.0.1:0")
        self.address = f"grpc://127.0.0.1:{port}"

    def play(self, requests: Iterator[bot_pb2.RefereeMessage], context: grpc.ServicerContext) -> Iterator[bytes]:
        behaviour, answered = self.behaviour, 0
        for message in requests:
            body = message.WhichOneof("body")
            if body == "start":
                if behaviour == "close_at_start":
                    return
                yield _ready()
                if behaviour == "ready_then_close":
                    return
                if behaviour == "ready_then_abort":
                    context.abort(grpc.StatusCode.INTERNAL, "boom")
            elif body == "decision":
                if answered == 2 and behaviour == "close":
                    return
                if answered == 2 and behaviour == "abort":
                    context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "my own quota")
                answered += 1
                yield _answer(message.decision)
            else:
                if body == "finish":
                    with self.lock:
                        self.finishes += 1
                if behaviour == "linger":
                    self.released.wait(60)
                return


@contextmanager
def ending_bot(behaviour: str) -> Iterator[EndingBot]:
    bot = EndingBot(behaviour)
    bot.server.start()
    try:
        yield bot
    finally:
        bot.released.set()
        bot.server.stop(0).wait(10)


def play(address: str, policy: ErrorPolicy = SUBSTITUTE, on_failure=None):
    players = [RemotePlayer(address), FunctionPlayer(lambda request: request.options[0].id, "local")]
    return play_match(GAME, CONFIG, 4, players, policy=policy, clock=CLOCK, on_failure=on_failure)


def seat0_decisions(record) -> list[int]:
    return [i for i, d in enumerate(record.decisions) if d.seat == 0]


def test_a_stream_the_bot_ended_is_one_failure_and_a_forfeit_under_substitute_and_the_record_replays(tmp_path):
    # It was budget + 1 crashes with one detail: decisions whose request was never sent, each
    # recorded as a new failure, a new one in the leaderboard's failures and recent_failures.
    for behaviour, detail in (
        ("close", "the bot ended the stream (status OK) before answering decision {at}"),
        ("abort", "stream failed: RESOURCE_EXHAUSTED (my own quota)"),
    ):
        heard: list[FailureEntry] = []
        with ending_bot(behaviour) as bot:
            record = play(bot.address, on_failure=heard.append)
        at = seat0_decisions(record)[2]
        # One failure, and the seat forfeits there (a bot that can answer no more), though its
        # budget alone would not: the record says so, and replay reads it so.
        expected = [FailureEntry(0, at, "crash", detail.format(at=at), forfeits=True)]
        assert record.failures == expected, behaviour
        assert heard == expected, behaviour
        assert record.result["forfeited"] == [True, False], behaviour
        assert json.loads(record.dumps())["failures"][0]["forfeits"] is True
        assert [record.decisions[i].by for i in seat0_decisions(record)] == ["bot", "bot"] + ["substitute"] * (
            len(seat0_decisions(record)) - 2
        ), behaviour
        replay(GAME, record)
        path = tmp_path / f"{behaviour}.json"
        path.write_text(record.dumps())
        done = arena("replay", str(path))
        assert done.returncode == 0, (behaviour, done.stderr)


def test_a_bot_that_ends_its_stream_right_after_ready_gets_the_same_detail_every_time():
    # Whether the referee found the call done, had its write fail (gRPC core's "Internal error
    # from Core"), or wrote and then awaited the answer, depended on timing: three details.
    for behaviour, at, detail in (
        ("ready_then_close", 0, "the bot ended the stream (status OK) before answering decision 0"),
        ("ready_then_abort", 0, "stream failed: INTERNAL (boom)"),
        ("close_at_start", -1, "the bot ended the stream (status OK) before ready"),
    ):
        with ending_bot(behaviour) as bot:
            failures = [play(bot.address).failures for _ in range(5)]
        # A failure at the start forfeits by the policy; one after it, as the stream is gone.
        expected = FailureEntry(0, at, "crash", detail, forfeits=at >= 0)
        assert failures == [[expected]] * 5, behaviour


class Timed(RemotePlayer):
    """A remote player that notes when its finish began and ended (loop time)."""

    def __init__(self, address: str, stamps: list[tuple[float, float]]) -> None:
        super().__init__(address, linger=LINGER)
        self.stamps = stamps

    async def finish_async(self, message: bot_pb2.Finish) -> None:
        loop = asyncio.get_running_loop()
        began = loop.time()
        await super().finish_async(message)
        self.stamps.append((began, loop.time()))


LINGER = 20.0


def test_seats_are_finished_at_once_and_a_bot_keeping_its_stream_open_is_not_waited_on_its_linger():
    config = GAME.config(3, {"target": 30})
    stamps: list[tuple[float, float]] = []
    with ending_bot("linger") as bot:
        players = [Timed(bot.address, stamps) for _ in range(3)]
        record = play_match(GAME, config, 4, players, clock=CLOCK)
        assert bot.finishes == 3  # every seat was told, and kept its stream open after
    assert not record.failures
    assert len(stamps) == 3
    # The finishes overlap (one seat after another, each waited on its bot in turn) ...
    assert max(began for began, _ in stamps) < min(ended for _, ended in stamps)
    # ... and none waited the player's linger for a bot that never ends its side.
    assert max(ended for _, ended in stamps) - min(began for began, _ in stamps) < LINGER
