"""A hosted seat's player: a :class:`referee.remote.RemotePlayer` on its jail's Unix socket.

The jail is started when the match starts: its bot must listen within the match's start-up
clock plus :data:`SANDBOX_START` (the jail's and the interpreter's own start), at most
:data:`STARTUP_BUDGET`; then the start-up clock applies as to any bot (connect, ``start``,
``ready``). The jail is stopped when the player is closed, whatever happened. A ``crash`` gets
what the sandbox saw appended to its detail (the limit the bot hit, never the bot's output), and
the bot's output is kept in :attr:`HostedPlayer.output` after the match.

A hosted seat that cannot be played at all on this worker (the sandbox cannot run, the version
is missing or does not play the game) is an :class:`UnplayableHostedPlayer`: a ``crash`` at
start naming the reason, so the match is played out and recorded.
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

SANDBOX_START = 5.0
"""Seconds a jail may take to start and listen beyond the match's start-up clock (bubblewrap
and the interpreter start; a loaded worker starts Python slowly)."""
CRASH_SETTLE = 0.5
"""Seconds a crashed seat's jail may take to exit by itself (its exit status explains the crash)
before it is killed."""
STARTUP_BUDGET = 30.0
"""The most seconds a jail may take to start and listen, whatever the start-up clock."""


def listen_allowance(startup_ms: int) -> float:
    """Seconds the bot of a jail may take to listen: the start-up clock plus SANDBOX_START, at
    most STARTUP_BUDGET."""
    return min(STARTUP_BUDGET, startup_ms / 1000.0 + SANDBOX_START)


class HostedPlayer(RemotePlayer):
    def __init__(
        self,
        bot_dir: Path | str,
        entry: str,
        name: str | None = None,
        limits: Limits | None = None,
        *,
        keep_log: Callable[[str, int, str], None] | None = None,
        release: Callable[[], None] | None = None,
    ) -> None:
        """``keep_log(match_id, seat, output)`` is called once the jail has stopped, and
        ``release()`` once the player is closed (a worker's hold on the version it plays)."""
        super().__init__("unix:///run/arena/bot.sock", name=name or f"hosted:{bot_dir}")
        self.keep_log = keep_log
        self.release = release
        self.match: tuple[str, int] | None = None
        self.policy = None  # the socket is the jail's own, not an operator-registered endpoint
        # Nothing restarts a jail's server, and its socket's path (/proc/PID/fd/N) is reused by
        # other jails: a refused start is a crash at once.
        self.reconnect = False
        self.jail = Jail(bot_dir, entry, limits)
        self.output = ""
        """The bot's output (stdout and stderr, capped), complete once the player is closed."""

    async def start_async(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        self.match = (message.match_id, message.seat)
        loop = asyncio.get_running_loop()
        allowance = listen_allowance(message.clock.startup_ms)
        try:
            self.target = await loop.run_in_executor(None, self.jail.start, allowance)
        except SandboxUnavailable as exc:
            raise PlayerFailure("crash", str(exc)) from None
        except JailFailed as exc:
            raise PlayerFailure(exc.verdict, exc.detail) from None
        self.spec = self.target
        try:
            return await super().start_async(message)
        except PlayerFailure as failure:
            raise await self._explained(failure) from None
        finally:
            self.jail.off_move()  # ready (or not): from now on it weighs only while asked

    # The seat weighs fully on the CPU only from its request to its answer: what it leaves
    # running between its decisions must not take the time an opponent's clock runs on.
    async def begin_decide_async(self, request: bot_pb2.DecisionRequest | WireRequest) -> None:
        self.jail.on_move()
        try:
            await super().begin_decide_async(request)
        except PlayerFailure as failure:
            self.jail.off_move()
            raise await self._explained(failure) from None

    async def end_decide_async(self, request: bot_pb2.DecisionRequest | WireRequest) -> str:
        try:
            return await super().end_decide_async(request)
        except PlayerFailure as failure:
            raise await self._explained(failure) from None
        finally:
            self.jail.off_move()

    async def _explained(self, failure: PlayerFailure) -> PlayerFailure:
        """A crash ends the seat: stop the jail (all its output is then in) and say which limit.

        A timeout of a bot that hit its process limit is a crash too: a fork bomb leaves gRPC
        no thread to answer with, so the clock runs out, but the cause is the bomb."""
        if failure.verdict == "timeout" and self.jail.process_limit_hit():
            failure = PlayerFailure("crash", failure.detail)
        if failure.verdict != "crash":
            return failure
        await self._stop_jail(settle=CRASH_SETTLE)
        why = self.jail.explain()
        return PlayerFailure("crash", f"{failure.detail}; sandbox: {why}" if why else failure.detail)

    async def _close(self, goodbye: bot_pb2.RefereeMessage | None) -> None:
        try:
            await super()._close(goodbye)
        finally:
            try:
                await self._stop_jail()
            finally:
                if self.release is not None:
                    self.release()

    async def _stop_jail(self, settle: float = 0.0) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.jail.stop, settle)
        first = not self.output
        self.output = self.jail.output()
        if first and self.keep_log is not None and self.match is not None and self.match[0]:
            keep, (match_id, seat), text = self.keep_log, self.match, self.output
            await asyncio.get_running_loop().run_in_executor(None, keep, match_id, seat, text)


class UnplayableHostedPlayer(RemotePlayer):
    """A hosted seat that cannot be played here: ``start`` fails with a ``crash`` naming
    ``reason`` (no process is started), so the match is played out and recorded."""

    def __init__(self, reason: str, name: str) -> None:
        super().__init__("unix:///run/arena/bot.sock", name=name)
        self.policy = None
        self.reason = reason
        self.output = ""

    async def start_async(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        raise PlayerFailure("crash", self.reason)
