"""A hosted seat's player: a :class:`referee.remote.RemotePlayer` on its jail's Unix socket.

The jail is started when the match starts (its start-up counts against a separate allowance,
:data:`STARTUP_BUDGET`, before the match's own start-up clock) and stopped when the player is
closed, whatever happened. A ``crash`` gets what the sandbox saw appended to its detail (the
limit the bot hit), and the bot's output is kept in :attr:`HostedPlayer.output` after the match.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from arena.protocol import WireRequest
from arena.runner import PlayerFailure
from arena.v1 import bot_pb2
from referee.hosted.jail import Jail, JailFailed, Limits, SandboxUnavailable
from referee.remote import RemotePlayer

STARTUP_BUDGET = 30.0
"""Seconds a jail may take to start and listen (a loaded worker starts Python slowly)."""


class HostedPlayer(RemotePlayer):
    def __init__(
        self,
        bot_dir: Path | str,
        entry: str,
        name: str | None = None,
        limits: Limits | None = None,
        *,
        keep_log: Callable[[str, int, str], None] | None = None,
    ) -> None:
        """``keep_log(match_id, seat, output)`` is called once the jail has stopped."""
        super().__init__("unix:///run/arena/bot.sock", name=name or f"hosted:{bot_dir}")
        self.keep_log = keep_log
        self.match: tuple[str, int] | None = None
        self.policy = None  # the socket is the jail's own, not an operator-registered endpoint
        self.jail = Jail(bot_dir, entry, limits)
        self.output = ""
        """The bot's output (stdout and stderr, capped), complete once the player is closed."""

    async def start_async(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        self.match = (message.match_id, message.seat)
        loop = asyncio.get_running_loop()
        try:
            self.target = await loop.run_in_executor(None, self.jail.start, STARTUP_BUDGET)
        except SandboxUnavailable as exc:
            raise PlayerFailure("crash", str(exc)) from None
        except JailFailed as exc:
            raise PlayerFailure(exc.verdict, exc.detail) from None
        self.spec = self.target
        try:
            return await super().start_async(message)
        except PlayerFailure as failure:
            raise await self._explained(failure) from None

    async def begin_decide_async(self, request: bot_pb2.DecisionRequest | WireRequest) -> None:
        try:
            await super().begin_decide_async(request)
        except PlayerFailure as failure:
            raise await self._explained(failure) from None

    async def end_decide_async(self, request: bot_pb2.DecisionRequest | WireRequest) -> str:
        try:
            return await super().end_decide_async(request)
        except PlayerFailure as failure:
            raise await self._explained(failure) from None

    async def _explained(self, failure: PlayerFailure) -> PlayerFailure:
        """A crash ends the seat: stop the jail (all its output is then in) and say which limit.

        A timeout of a bot that hit its process limit is a crash too: a fork bomb leaves gRPC
        no thread to answer with, so the clock runs out, but the cause is the bomb."""
        if failure.verdict == "timeout" and self.jail.process_limit_hit():
            failure = PlayerFailure("crash", failure.detail)
        if failure.verdict != "crash":
            return failure
        await self._stop_jail()
        why = self.jail.explain()
        return PlayerFailure("crash", f"{failure.detail}; sandbox: {why}" if why else failure.detail)

    async def _close(self, goodbye: bot_pb2.RefereeMessage | None) -> None:
        try:
            await super()._close(goodbye)
        finally:
            await self._stop_jail()

    async def _stop_jail(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.jail.stop)
        first = not self.output
        self.output = self.jail.output()
        if first and self.keep_log is not None and self.match is not None and self.match[0]:
            keep, (match_id, seat), text = self.keep_log, self.match, self.output
            await asyncio.get_running_loop().run_in_executor(None, keep, match_id, seat, text)
