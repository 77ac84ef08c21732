"""Built-in bots the service plays off its event loop: a challenge's opponents.

The runner asks an in-process bot right where it plays, on its event loop; in a worker that is
the match's own process, but in ``arena serve`` it is the loop of every call. A challenge
against ``search:ms=4000`` held every owner's calls and the health check for the whole
challenge, and went on after its client left (an outside probe). Here the bot is asked on a
thread: to the runner it is a two-phase player (the request put to it whole, the answer
awaited), as a remote bot is. A search then samples its worlds from the request's observation,
as a served search does (``bots.search``), not from the referee's state, which the thread must
not read while the loop runs. A daemon thread for each decision: a bot still thinking when the
service stops does not hold its exit (an executor's threads are joined at exit).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

from arena.v1 import bot_pb2


class OffLoopPlayer:
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.name: str = bot.name  # the seat's name in the match's start messages and record
        self._answer: asyncio.Future[str] | None = None

    def start(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        return self.bot.start(message)

    async def begin_decide_async(self, request: bot_pb2.DecisionRequest) -> None:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str] = loop.create_future()

        def think() -> None:
            try:
                outcome: tuple[Any, BaseException | None] = (self.bot.decide(request), None)
            except BaseException as exc:  # the runner makes a verdict of it, as of any bot's
                outcome = (None, exc)
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                loop.call_soon_threadsafe(_settle, answer, *outcome)

        threading.Thread(target=think, name="challenge-bot", daemon=True).start()
        self._answer = answer

    async def end_decide_async(self, request: bot_pb2.DecisionRequest) -> str:
        answer, self._answer = self._answer, None
        assert answer is not None, "end_decide without begin_decide"
        return await answer

    def finish(self, message: bot_pb2.Finish) -> None:
        self.bot.finish(message)


def _settle(answer: asyncio.Future[str], result: Any, error: BaseException | None) -> None:
    if answer.done():  # the challenge ended while the bot thought (its client left)
        return
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(result)
