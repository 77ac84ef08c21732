"""The runner's match bound (``match_seconds``): a match that waits on slow players ends with a
``timeout`` for the seat being waited on, never hangs; in-process players are not bounded."""

from __future__ import annotations

import asyncio
import time

import pytest

from arena.games.rolldice import GAME
from arena.record import replay
from arena.runner import play_match_async
from arena.v1 import bot_pb2
from bots.random_bot import RandomBot


class Sleeper:
    """A player on the event loop that answers its ``at``-th decision after ``sleep`` seconds."""

    def __init__(self, at: int, sleep: float) -> None:
        self.name = "sleeper"
        self.at = at
        self.sleep = sleep
        self.asked = 0
        self.aborted: str | None = None

    async def start_async(self, message: bot_pb2.MatchStart) -> None:
        return None

    async def begin_decide_async(self, request: bot_pb2.DecisionRequest) -> None:
        return None

    async def end_decide_async(self, request: bot_pb2.DecisionRequest) -> str:
        self.asked += 1
        if self.asked - 1 >= self.at:
            await asyncio.sleep(self.sleep)
        return request.options[0].id

    async def abort_async(self, verdict: str, reason: str) -> None:
        self.aborted = verdict


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_a_match_past_its_bound_gives_the_waited_seat_a_timeout_and_ends():
    slow = Sleeper(at=2, sleep=60)
    began = time.monotonic()
    record = run(
        play_match_async(
            GAME,
            GAME.config(2, {"target": 30}),
            5,
            [slow, RandomBot()],
            match_seconds=0.5,
            match_bound="the workers' bound of {seconds:g} s (SOME_SETTING)",
        )
    )
    assert time.monotonic() - began < 30  # far below the sleeper's 60 s: the bound ended the wait
    (failure,) = record.failures
    assert failure.seat == 0 and failure.verdict == "timeout"
    assert failure.detail == "the match ran past the workers' bound of 0.5 s (SOME_SETTING)"
    assert record.result["forfeited"] == [True, False]
    assert slow.aborted == "timeout"
    replay(GAME, record)  # the substitutes' choices are in the record: it replays


def test_a_match_within_its_bound_is_untouched():
    quick = Sleeper(at=0, sleep=0.001)
    bounded = run(play_match_async(GAME, GAME.config(2), 5, [quick, RandomBot()], match_seconds=60))
    free = run(play_match_async(GAME, GAME.config(2), 5, [Sleeper(at=0, sleep=0.001), RandomBot()]))
    assert not bounded.failures
    assert [(d.seat, d.choice) for d in bounded.decisions] == [(d.seat, d.choice) for d in free.decisions]


def test_in_process_players_are_not_bounded():
    record = run(play_match_async(GAME, GAME.config(2), 5, [RandomBot(), RandomBot()], match_seconds=1e-9))
    assert not record.failures


def test_a_bound_must_be_positive():
    with pytest.raises(ValueError, match="match_seconds must be > 0"):
        run(play_match_async(GAME, GAME.config(2), 5, [RandomBot(), RandomBot()], match_seconds=0))
