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

A decision in flight when its challenge ends is abandoned (:meth:`OffLoopPlayer.abandon`): a
search stops at its next simulation; a bot without that hook thinks on, and its thread is
counted until it returns, so that the service can hold the challenge's slot until then (start
and cancel, again and again, stacked searches of up to 10 minutes: an outside probe had 7 at
once, every call 200 times slower).
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
        self._thinking: set[asyncio.Future[None]] = set()
        """One future per decision thread still running, done when it returns (on the loop)."""
        self._abandoned = False

    def start(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        return self.bot.start(message)

    async def begin_decide_async(self, request: bot_pb2.DecisionRequest) -> None:
        if self._abandoned:  # no new thread: nobody reads its answer
            raise RuntimeError("the challenge has ended")
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str] = loop.create_future()
        returned: asyncio.Future[None] = loop.create_future()
        self._thinking.add(returned)
        returned.add_done_callback(self._thinking.discard)

        def think() -> None:
            try:
                outcome: tuple[Any, BaseException | None] = (self.bot.decide(request), None)
            except BaseException as exc:  # the runner makes a verdict of it, as of any bot's
                outcome = (None, exc)
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                loop.call_soon_threadsafe(_settle, answer, returned, *outcome)

        threading.Thread(target=think, name="challenge-bot", daemon=True).start()
        self._answer = answer

    async def end_decide_async(self, request: bot_pb2.DecisionRequest) -> str:
        answer, self._answer = self._answer, None
        assert answer is not None, "end_decide without begin_decide"
        return await answer

    def finish(self, message: bot_pb2.Finish) -> None:
        self.bot.finish(message)

    def abandon(self) -> list[asyncio.Future[None]]:
        """The challenge has ended: the bot is told so where it can stop (``abandon``, a
        search's hook) and asked nothing more. Returns its decision threads still running, each
        a future done when the thread returns."""
        self._abandoned = True
        stop = getattr(self.bot, "abandon", None)
        if stop is not None:
            stop()
        return list(self._thinking)


def _settle(
    answer: asyncio.Future[str], returned: asyncio.Future[None], result: Any, error: BaseException | None
) -> None:
    returned.set_result(None)
    if answer.done():  # the challenge ended while the bot thought (its client left)
        return
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(result)
