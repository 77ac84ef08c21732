"""What viewing a stored match costs, computed once: a byte-bounded LRU with single flight, on a
small thread pool of its own.

A match's detail (``GetMatch``) and page (the web UI's replay viewer) replay the match through
the engine. The page captures every seat's observation at every step: an 8-player Wine Cellar
series took 4.8 s and ~300 MB to build, for a 26 MB page, and anyone may ask for it. So:

- every value is computed at most once while it stays here (least recently used out first,
  bounded by the bytes of its values, which the caller counts);
- concurrent requests for one key wait for the one computation under way (single flight);
- computations run on their own ``replays`` threads, never on the pool the store calls share,
  so heavy pages cannot hold every thread ``GetTournament`` needs; at most ``waiting``
  computations are queued or running, beyond that a new one is refused (:class:`ReplaysBusy`);
- waiting costs no thread: :meth:`MatchCache.get` awaits on the event loop;
- the heaviest work (a page's replay data) runs in ``replays`` processes of lower priority
  (:meth:`MatchCache.in_process`): in a thread it held the interpreter lock for up to half a
  second at a time (one ``json.dumps`` of the page), and every other call waited for it. The
  processes stop once idle for ``PROCESS_IDLE_SECONDS`` (started again by the next page): a
  process that built that page kept about 100 MB of it for good.

Keys hold only what decides a value (the stored record's bytes, the engine's game version, the
match's id), never who asks: the callers check per request what the asker may see, and ask here
only for the audience-independent part (see ``referee.service.MatchFacts``). A failed
computation is not kept; its waiters get its exception.

Settings (read when the service starts): ``ARENA_MATCH_CACHE_MB`` (default 32; 0 keeps nothing,
though concurrent requests still share one computation) and ``ARENA_MATCH_REPLAYS`` (the
threads, default 2).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from arena.config import env_number

V = TypeVar("V")
R = TypeVar("R")

MiB = 1024 * 1024
DEFAULT_MB = 32
DEFAULT_REPLAYS = 2
"""Two, not one: a small match's first view need not wait behind a huge one. More would not
replay faster (the engine is Python: one interpreter lock) and would hold more memory."""
DEFAULT_WAITING = 16
ENTRY_OVERHEAD = 256
"""Bytes counted per entry on top of its value's (its key, its bookkeeping)."""
REPLAY_NICENESS = 10
"""Replay processes yield the CPU to the service (and its store calls) when both want it."""


def _lower_priority() -> None:
    os.nice(REPLAY_NICENESS)


class ReplaysBusy(Exception):
    """Too many computations queued or running: retry later."""


@dataclass
class CacheStats:
    computed: int = 0
    """Computations started (replays)."""
    hits: int = 0
    joined: int = 0
    """Requests that waited for a computation already under way."""
    evicted: int = 0
    refused: int = 0


@dataclass(frozen=True)
class Sized(Generic[V]):
    """A computed value and the bytes it holds (what the bound counts)."""

    value: V
    size: int


PROCESS_IDLE_SECONDS = 60.0
"""The replay processes stop after this long without a page to build."""


class MatchCache:
    def __init__(
        self, max_bytes: int = DEFAULT_MB * MiB, replays: int = DEFAULT_REPLAYS, waiting: int = DEFAULT_WAITING
    ) -> None:
        self.max_bytes = max_bytes
        self.replays = replays
        self.waiting = waiting
        self.executor = ThreadPoolExecutor(max_workers=replays, thread_name_prefix="arena-replay")
        self._processes: ProcessPoolExecutor | None = None
        self._in_processes = 0  # calls running in the processes now
        self._retire: threading.Timer | None = None  # stops the processes once idle
        self.stats = CacheStats()
        self._entries: OrderedDict[Hashable, Sized[Any]] = OrderedDict()
        self._flights: dict[Hashable, Future[Any]] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    @classmethod
    def from_environment(cls) -> MatchCache:
        """The service's cache, as ``ARENA_MATCH_CACHE_MB`` and ``ARENA_MATCH_REPLAYS`` set it
        (a bad value is a ConfigError naming the variable)."""
        megabytes = env_number("ARENA_MATCH_CACHE_MB", DEFAULT_MB, minimum=0)
        return cls(megabytes * MiB, env_number("ARENA_MATCH_REPLAYS", DEFAULT_REPLAYS, minimum=1))

    @property
    def bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._entries

    def submit(self, key: Hashable, compute: Callable[[], Sized[V]]) -> Future[V]:
        """The value of ``key``: kept, being computed, or computed now on the pool."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.stats.hits += 1
                done: Future[V] = Future()
                done.set_result(entry.value)
                return done
            flight = self._flights.get(key)
            if flight is not None:
                self.stats.joined += 1
                return flight
            if len(self._flights) >= self.waiting:
                self.stats.refused += 1
                raise ReplaysBusy(f"{len(self._flights)} match replays are queued or running")
            self.stats.computed += 1
            # Under the lock: the computation records its value (and drops its flight) only
            # once the flight is registered.
            future = self.executor.submit(self._compute, key, compute)
            self._flights[key] = future
            return future

    async def get(self, key: Hashable, compute: Callable[[], Sized[V]]) -> V:
        """:meth:`submit`, awaited on the loop. Shielded: a caller that goes away (a cancelled
        call) does not cancel the computation the others wait for."""
        return await asyncio.shield(asyncio.wrap_future(self.submit(key, compute)))

    def in_process(self, fn: Callable[..., R], *args: Any) -> R:
        """``fn(*args)`` in a replay process (started on first use, spawned: no thread or gRPC
        state of the service is copied), for a computation to call from its replay thread,
        which waits without the interpreter lock. ``fn``, its arguments and result are pickled."""
        with self._lock:
            if self._processes is None:
                self._processes = ProcessPoolExecutor(
                    max_workers=self.replays,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_lower_priority,
                )
            pool = self._processes
            self._in_processes += 1
        try:
            return pool.submit(fn, *args).result()
        except BrokenProcessPool:  # a process died (killed, out of memory): the next call starts anew
            with self._lock:
                if self._processes is pool:
                    self._processes = None
            raise
        finally:
            with self._lock:
                self._in_processes -= 1
                if not self._in_processes:  # idle from now: one timer, started again each time
                    if self._retire is not None:
                        self._retire.cancel()
                    self._retire = threading.Timer(PROCESS_IDLE_SECONDS, self._retire_idle_processes)
                    self._retire.daemon = True
                    self._retire.start()

    def _retire_idle_processes(self) -> None:
        """Stop the replay processes, idle for ``PROCESS_IDLE_SECONDS`` (what a page's build left
        in them goes back to the system); a call that started meanwhile keeps them."""
        with self._lock:
            if self._in_processes or self._processes is None or self._retire is not threading.current_thread():
                return
            pool, self._processes, self._retire = self._processes, None, None
        pool.shutdown(wait=True)

    def close(self) -> None:
        """Stop the replay threads and processes (once their work is done)."""
        self.executor.shutdown(wait=True)
        with self._lock:
            pool, self._processes = self._processes, None
            if self._retire is not None:
                self._retire.cancel()
                self._retire = None
        if pool is not None:
            pool.shutdown(wait=True)

    def _compute(self, key: Hashable, compute: Callable[[], Sized[V]]) -> V:
        try:
            result = compute()
        except BaseException:
            with self._lock:
                self._flights.pop(key, None)
            raise
        with self._lock:
            self._flights.pop(key, None)
            size = result.size + ENTRY_OVERHEAD
            if size <= self.max_bytes:
                self._entries[key] = Sized(result.value, size)
                self._bytes += size
                while self._bytes > self.max_bytes:
                    _, old = self._entries.popitem(last=False)
                    self._bytes -= old.size
                    self.stats.evicted += 1
        return result.value
