"""Executors: who plays the scheduled matches. One interface, several engines.

``Executor.run(spec, matches, on_record)`` plays the matches (in any order) and hands each
record to ``on_record`` as soon as it is finished; ``on_record`` returns True to ask for a stop
(e.g. the SPRT has decided), after which no new match starts. Ctrl-C propagates as
KeyboardInterrupt after the executor has stopped its workers; every record already handed over
is kept by the caller.

Cancel: an executor may take the tournament's cancel hook (:data:`arena.runner.Cancelled`);
it is checked between matches and polled by the runner during each match, so a cancel ends a
running match within about a second (its bots are told) and no further match starts.

:class:`LocalExecutor` is the embedded default: the calling process for one worker, a process
pool otherwise; where the pool's processes outnumber a tournament's ``bot_concurrency``, a
semaphore per remote bot holds the matches played against it at once to that limit. Worker
processes are started with ``spawn`` so no gRPC object or lock of the parent is ever inherited
across fork, and they ignore SIGINT: the parent alone handles Ctrl-C.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shlex
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from multiprocessing import spawn
from typing import Any, Protocol

from arena.record import MatchRecord, RecordView
from arena.runner import Cancelled, MatchCancelled
from arena.tallied import TallyEntry
from arena.tournament import (
    ADDRESSES,
    REMOTE,
    MatchSpec,
    PlayerFactory,
    TournamentSpec,
    entrant_bot,
    play_scheduled,
    remote_endpoints,
)


class OnRecord(Protocol):
    """Takes a finished record, and its JSON line (``record.dumps()``) when the executor has it
    already (a worker process or the store sent it as text: not serialised again); ``more``:
    another record follows at once (records read together), so writing them out can wait for
    the last. True asks for a stop. A record read back from a line may come as its
    :class:`RecordView`, or as the tally entry its worker computed (:mod:`arena.tallied`): the
    line itself is the record."""

    def __call__(
        self, record: MatchRecord | RecordView | TallyEntry, line: str | None = None, more: bool = False, /
    ) -> bool | None: ...


class Executor(Protocol):
    def run(self, spec: TournamentSpec, matches: Sequence[MatchSpec], on_record: OnRecord) -> None: ...


# Worker-process globals, set once per process by the pool initializer.
_worker_spec: TournamentSpec | None = None
_worker_factory: PlayerFactory | None = None
_worker_cancelled: Cancelled | None = None
_worker_limits: dict[str, Any] = {}  # remote bot address -> the pool's semaphore for it


def _init_worker(
    spec_json: dict, factory: PlayerFactory, cancelled: Cancelled | None, limits: dict[str, Any] | None = None
) -> None:
    global _worker_spec, _worker_factory, _worker_cancelled, _worker_limits
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_spec = TournamentSpec.from_json(spec_json)
    _worker_factory = factory
    _worker_cancelled = cancelled
    _worker_limits = limits or {}


def _play_in_worker(match: MatchSpec) -> str | None:
    assert _worker_spec is not None and _worker_factory is not None
    # A slot of each remote bot the match plays, taken in the addresses' order (so no two
    # processes each hold one the other waits for), as workers take their leases.
    held = [_worker_limits[a] for a in remote_endpoints(_worker_spec, match) if a in _worker_limits]
    for slot in held:
        slot.acquire()
    try:
        # Serialised here, in parallel, rather than in the parent that collects every record.
        return play_scheduled(_worker_spec, match, _worker_factory, cancelled=_worker_cancelled).dumps()
    except MatchCancelled:
        return None
    finally:
        for slot in reversed(held):
            slot.release()


def bot_limits(context: Any, spec: TournamentSpec, processes: int) -> dict[str, Any]:
    """A semaphore per remote bot holding its matches at once to the tournament's
    ``bot_concurrency``, where the pool's processes could exceed it (each plays one match at a
    time); none where they cannot."""
    if processes <= spec.bot_concurrency:
        return {}
    remote = sorted({a for bot in spec.bots if (a := spec.address(bot)).startswith(REMOTE)})
    return {address: context.BoundedSemaphore(spec.bot_concurrency) for address in remote}


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def chunk_size(spec: TournamentSpec, matches: int, workers: int) -> int:
    """Matches a pool process plays before handing their records back. Chunks amortise the
    inter-process overhead of quick built-in matches while keeping every worker busy; a match
    with a remote or a searching bot takes tens of milliseconds to seconds, so those come back
    one at a time: each lands on disk and in the progress as it ends, and a Ctrl-C loses none
    that a chunk still held (with 12-match chunks of `search` bots, nothing landed for 11 s)."""
    slow = any(
        spec.address(bot).startswith(ADDRESSES) or entrant_bot(bot).split(":")[0] == "search" for bot in spec.bots
    )
    return 1 if slow else max(1, min(16, matches // (workers * 8)))


class LocalExecutor:
    """Plays matches on this machine with ``workers`` processes (1 = in the calling process).

    ``cancelled`` (optional) is the cancel hook; with several workers it is sent to each worker
    process, so it must pickle (a module-level function, or a ``multiprocessing`` Event's
    ``is_set``)."""

    def __init__(
        self, make_player: PlayerFactory, workers: int | None = None, *, cancelled: Cancelled | None = None
    ) -> None:
        self.make_player = make_player
        self.workers = max(1, workers or default_workers())
        self.cancelled = cancelled

    def run(self, spec: TournamentSpec, matches: Sequence[MatchSpec], on_record: OnRecord) -> None:
        if not matches:
            return
        if self.workers == 1 or len(matches) == 1:
            terminated = StopSignals()
            try:
                for match in matches:
                    check_stop_signals()
                    if self.cancelled is not None and self.cancelled():
                        return
                    try:
                        record = play_scheduled(spec, match, self.make_player, cancelled=self.cancelled)
                    except MatchCancelled:
                        return
                    if on_record(record):
                        return
            finally:
                terminated.restore()
            return
        context = multiprocessing.get_context("spawn")
        chunk = chunk_size(spec, len(matches), self.workers)
        # No more processes than matches: each costs an interpreter's start.
        processes = min(self.workers, len(matches))
        limits = bot_limits(context, spec, processes)
        initargs = (spec.to_json(), self.make_player, self.cancelled, limits)
        terminated = StopSignals()
        pool = None
        try:
            with workers_ignore_interrupts(context):
                pool = context.Pool(processes, initializer=_init_worker, initargs=initargs)
                for line in pool.imap_unordered(_play_in_worker, matches, chunksize=chunk):
                    check_stop_signals()
                    if line is None or (self.cancelled is not None and self.cancelled()):
                        break  # cancelled: the workers stop with the pool
                    if on_record(MatchRecord.loads(line), line):
                        break
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
            terminated.restore()


@contextlib.contextmanager
def workers_ignore_interrupts(context: Any) -> Iterator[None]:
    """Pool processes started meanwhile ignore SIGINT from their first instruction: they are
    started through a two-line shell script that ignores it and execs Python (an ignored signal
    stays ignored through exec, and Python then installs no KeyboardInterrupt handler). A
    Ctrl-C goes to the terminal's whole process group; one that landed while a worker still
    imported printed that worker's traceback before it could ignore the signal itself (3 in 10
    runs Ctrl-C'd in their first two seconds). The parent keeps its own handler: ignoring the
    signal there for the moment, or blocking it, lost Ctrl-Cs to its other threads, and exec
    unblocks a blocked signal. The script lives as long as the pool (the shell reads it after
    its exec)."""
    if os.name != "posix" or not os.path.exists("/bin/sh"):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="arena-workers-") as directory:
        script = os.path.join(directory, "python")
        with open(script, "w", encoding="utf-8") as f:
            f.write(f"#!/bin/sh\ntrap '' INT\nexec {shlex.quote(sys.executable)} \"$@\"\n")
        os.chmod(script, 0o700)
        previous = spawn.get_executable()
        context.set_executable(script)
        try:
            yield
        finally:
            context.set_executable(previous)


def caused_by_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is a KeyboardInterrupt, or an error it caused: Python 3.11 wraps one
    raised inside ``__set_name__`` (a class being made, as a library does lazily) in a
    RuntimeError, which a Ctrl-C at that instant turned into a traceback."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return False


_listening: list[StopSignals] = []  # installed, innermost last


def check_stop_signals() -> None:
    """Raise KeyboardInterrupt again if a stop signal came while a :class:`StopSignals` listens
    (for loops that wait without records, such as a distributed run's follower)."""
    for listener in _listening:
        listener.check()


class StopSignals:
    """While the matches are played (in this process, by the pool, or by workers being
    followed), Ctrl-C and SIGTERM stop the run alike: the pool is terminated (no orphaned
    processes) and the finished records are kept. Only on the main thread (where signals are
    handled); elsewhere it does nothing. A SIGINT that is ignored (a job started in the
    background by a shell) or handled by someone else is left as it is.

    The handler raises KeyboardInterrupt wherever the main thread is. Should that be somewhere
    an exception is swallowed (a finalizer run by the garbage collector prints it and goes on),
    the run would go on for ever (a distributed run with no worker waits without end); so the
    signal is also remembered, and :meth:`check` (between records, and between a follower's
    reads: :func:`check_stop_signals`) raises it again."""

    def __init__(self) -> None:
        self.received = False
        self.previous: dict[int, Any] = {}
        self.installed = threading.current_thread() is threading.main_thread()
        if not self.installed:
            return
        self.previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, self._interrupt)
        current = signal.getsignal(signal.SIGINT)
        if current is signal.default_int_handler or getattr(current, "__func__", None) is StopSignals._interrupt:
            self.previous[signal.SIGINT] = signal.signal(signal.SIGINT, self._interrupt)
        _listening.append(self)

    def _interrupt(self, signum: int, frame: Any) -> None:
        for listener in _listening:  # the outer ones too: the run as a whole is to stop
            listener.received = True
        raise KeyboardInterrupt

    def check(self) -> None:
        if self.received:
            raise KeyboardInterrupt

    def restore(self) -> None:
        if self.installed:  # a handler set outside Python reads as None: the default then
            for signum, previous in self.previous.items():
                signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
            _listening.remove(self)
            self.installed = False
