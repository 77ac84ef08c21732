"""Connections to bot endpoints, shared by the matches a referee process plays at once.

Every match and seat has its own ``Play`` stream, but the streams to one endpoint share an
HTTP/2 connection (a gRPC channel), up to :data:`STREAMS_PER_CHANNEL` of them: one socket per
bot server instead of one per stream, so a message from the bot wakes the referee once for
everything that arrived together, and the bot server once for what the referee sent. With 128
matches of 20 ms bots on one loop this is a quarter more decisions a second
(``bench.bench_transport``, README). Streams stay apart: each has its own flow-control window
and is cancelled alone, a bot's error ends its stream alone.

A channel is handed out again only while it can carry a new stream: not full, not known broken
(a stream of it failed as the connection does, or a write on it could not get through:
:meth:`Shared.broken`) and not in gRPC's back-off after a failed connection (new calls would
fail at once though the bot may be back). The streams already on a connection share its fate:
a bot that starves it of flow-control window fails every match on it.
It is closed when its last stream closes, so nothing of a finished tournament lingers. The
pool is per event loop (a channel belongs to the loop that made it), and a forked child starts
with none of its parent's.
"""

from __future__ import annotations

import asyncio
import os
import weakref

import grpc
import grpc.aio

STREAMS_PER_CHANNEL = 64
"""Streams carried by one connection at most. HTTP/2 servers are asked to allow at least 100
concurrent streams; a server that allows fewer would hold the extra streams back (their start
would stall), so this stays well below."""

_UNUSABLE = (grpc.ChannelConnectivity.TRANSIENT_FAILURE, grpc.ChannelConnectivity.SHUTDOWN)


class Shared:
    """One channel and how many streams use it."""

    __slots__ = ("channel", "pool", "streams", "target", "usable")

    def __init__(self, pool: Pool, target: str, channel: grpc.aio.Channel) -> None:
        self.pool = pool
        self.target = target
        self.channel = channel
        self.streams = 0
        self.usable = True

    def broken(self) -> None:
        """A stream of this channel failed as a broken connection does, or a write on it could
        not get through: hand it out no more."""
        self.pool.retire(self)

    async def release(self) -> None:
        """A stream of this channel is closed; the last one closes the channel."""
        self.streams -= 1
        if self.streams <= 0:
            self.pool.retire(self)
            await self.channel.close()


class Pool:
    """The channels of one event loop, per target."""

    def __init__(self, options: tuple[tuple[str, object], ...]) -> None:
        self.options = options
        self.channels: dict[str, list[Shared]] = {}
        self.down: dict[str, float] = {}  # target -> when a start first found it unreachable

    def down_since(self, target: str, now: float) -> float:
        """When ``target`` was first found unreachable, since it was last reached (``now``
        if this is the first time)."""
        return self.down.setdefault(target, now)

    def reachable(self, target: str) -> None:
        """A start reached ``target``: its next refusal counts from then."""
        self.down.pop(target, None)

    def acquire(self, target: str) -> Shared:
        """A channel to ``target`` with room for one more stream (counted as taken)."""
        shared = self.channels.setdefault(target, [])
        for candidate in shared:
            if candidate.streams < STREAMS_PER_CHANNEL and candidate.channel.get_state() not in _UNUSABLE:
                candidate.streams += 1
                return candidate
        made = Shared(self, target, grpc.aio.insecure_channel(target, options=self.options))
        made.streams = 1
        shared.append(made)
        return made

    def retire(self, shared: Shared) -> None:
        """Hand ``shared`` out no more (its streams go on until they close)."""
        if shared.usable:
            shared.usable = False
            channels = self.channels.get(shared.target, [])
            if shared in channels:
                channels.remove(shared)
            if not channels:
                self.channels.pop(shared.target, None)


_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Pool] = weakref.WeakKeyDictionary()


def pool(options: tuple[tuple[str, object], ...]) -> Pool:
    """The running loop's pool (made with ``options`` for its channels)."""
    loop = asyncio.get_running_loop()
    found = _POOLS.get(loop)
    if found is None:
        found = _POOLS[loop] = Pool(options)
    return found


def _forget_pools() -> None:
    """In a forked child: the parent's channels are not this process's to use."""
    global _POOLS
    _POOLS = weakref.WeakKeyDictionary()


os.register_at_fork(after_in_child=_forget_pools)
