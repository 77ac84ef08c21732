"""Executors: who plays the scheduled matches. One interface, several engines.

``Executor.run(spec, matches, on_record)`` plays the matches (in any order) and hands each
record to ``on_record`` as soon as it is finished; ``on_record`` returns True to ask for a stop
(e.g. the SPRT has decided), after which no new match starts. Ctrl-C propagates as
KeyboardInterrupt after the executor has stopped its workers; every record already handed over
is kept by the caller.

:class:`LocalExecutor` is the embedded default: the calling process for one worker, a process
pool otherwise. Worker processes are started with ``spawn`` so no gRPC object or lock of the
parent is ever inherited across fork, and they ignore SIGINT: the parent alone handles Ctrl-C.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from arena.record import MatchRecord
from arena.tournament import MatchSpec, PlayerFactory, TournamentSpec, play_scheduled

OnRecord = Callable[[MatchRecord], bool | None]


class Executor(Protocol):
    def run(self, spec: TournamentSpec, matches: Sequence[MatchSpec], on_record: OnRecord) -> None: ...


# Worker-process globals, set once per process by the pool initializer.
_worker_spec: TournamentSpec | None = None
_worker_factory: PlayerFactory | None = None


def _init_worker(spec_json: dict, factory: PlayerFactory) -> None:
    global _worker_spec, _worker_factory
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_spec = TournamentSpec.from_json(spec_json)
    _worker_factory = factory


def _play_in_worker(match: MatchSpec) -> str:
    assert _worker_spec is not None and _worker_factory is not None
    # Serialised here, in parallel, rather than in the parent that collects every record.
    return play_scheduled(_worker_spec, match, _worker_factory).dumps()


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class LocalExecutor:
    """Plays matches on this machine with ``workers`` processes (1 = in the calling process)."""

    def __init__(self, make_player: PlayerFactory, workers: int | None = None) -> None:
        self.make_player = make_player
        self.workers = max(1, workers or default_workers())

    def run(self, spec: TournamentSpec, matches: Sequence[MatchSpec], on_record: OnRecord) -> None:
        if not matches:
            return
        if self.workers == 1 or len(matches) == 1:
            for match in matches:
                if on_record(play_scheduled(spec, match, self.make_player)):
                    return
            return
        context = multiprocessing.get_context("spawn")
        # Chunks amortise inter-process overhead for quick matches while keeping every worker busy.
        chunk = max(1, min(16, len(matches) // (self.workers * 8)))
        pool = context.Pool(self.workers, initializer=_init_worker, initargs=(spec.to_json(), self.make_player))
        previous = _terminate_as_interrupt()
        try:
            for line in pool.imap_unordered(_play_in_worker, matches, chunksize=chunk):
                if on_record(MatchRecord.loads(line)):
                    break
        finally:
            pool.terminate()
            pool.join()
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)


def _terminate_as_interrupt() -> Any:
    """While the pool runs, SIGTERM stops the run as Ctrl-C does: the pool is terminated (no
    orphaned processes) and the finished records are kept. Returns the handler to restore
    (None when not on the main thread, where signals cannot be handled)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, interrupt)
