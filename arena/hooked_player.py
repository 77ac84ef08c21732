"""A player whose start and abort someone else hears of as they happen: the challenge stream
announces the challenger's start and forfeit; a worker gives back a bot's lease as soon as its
seat forfeits, not when the match ends. Everything else is the wrapped player's own (the runner
reads a wrapper's capabilities through ``__getattr__``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.v1 import bot_pb2


class HookedPlayer:
    def __init__(
        self,
        player: Any,
        *,
        on_start: Callable[[bot_pb2.MatchStart], None] | None = None,
        on_abort: Callable[[str, str], None] | None = None,
    ) -> None:
        self._player = player
        self._on_start = on_start
        self._on_abort = on_abort

    def __getattr__(self, name: str) -> Any:
        return getattr(self._player, name)

    async def start_async(self, message: bot_pb2.MatchStart) -> Any:
        if self._on_start is not None:
            self._on_start(message)
        native = getattr(self._player, "start_async", None)
        return await native(message) if native is not None else self._player.start(message)

    async def abort_async(self, verdict: str, reason: str) -> None:
        """Heard first (before the moves played for the seat), then the player is told."""
        if self._on_abort is not None:
            self._on_abort(verdict, reason)
        native = getattr(self._player, "abort_async", None)
        if native is not None:
            await native(verdict, reason)
        elif hasattr(self._player, "abort"):
            self._player.abort(verdict, reason)
