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
across fork, and they ignore SIGINT and SIGHUP: the parent alone handles Ctrl-C and a hangup,
and ends them with the pool's SIGTERM, on which a worker unwinds (its hosted seats' directories
removed) and exits.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from multiprocessing import resource_tracker
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
_worker_playing = False  # a match is being played (a SIGTERM unwinds it)
_worker_terminated = False  # the pool's SIGTERM came


def _init_worker(
    spec_json: dict, factory: PlayerFactory, cancelled: Cancelled | None, limits: dict[str, Any] | None = None
) -> None:
    global _worker_spec, _worker_factory, _worker_cancelled, _worker_limits
    # Ignored before unblocked: a Ctrl-C held since the process started is dropped, not raised.
    for signum in WORKER_IGNORED:
        signal.signal(signum, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, WORKER_IGNORED)
    signal.signal(signal.SIGTERM, _exit_on_terminate)
    sys.unraisablehook = _quiet_terminate
    _worker_spec = TournamentSpec.from_json(spec_json)
    _worker_factory = factory
    _worker_cancelled = cancelled
    _worker_limits = limits or {}


def _exit_on_terminate(signum: int, frame: Any) -> None:
    """A pool worker's SIGTERM (the pool's terminate). In a match: unwind it, so that its
    ``finally`` blocks stop its hosted seats and remove their work directories (the default
    action left them in $TMPDIR); the worker then exits (:func:`_play_in_worker`). Between
    matches: at once, as the default action did."""
    global _worker_terminated
    _worker_terminated = True
    if _worker_playing:
        raise SystemExit(128 + signum)
    os._exit(128 + signum)


def _quiet_terminate(unraisable: Any) -> None:
    """A pool worker's hook for exceptions Python cannot raise: the SystemExit of a terminate
    that landed in a callback (an import lock's, a finalizer) is dropped, as the worker exits
    once its match is over (:func:`_play_in_worker`); it printed "Exception ignored" and a
    traceback beside the run's one line (a CI run's hangup test). Anything else as Python would."""
    if _worker_terminated and isinstance(unraisable.exc_value, SystemExit):
        return
    sys.__unraisablehook__(unraisable)


def _play_in_worker(match: MatchSpec) -> str | None:
    global _worker_playing
    assert _worker_spec is not None and _worker_factory is not None
    # A slot of each remote bot the match plays, taken in the addresses' order (so no two
    # processes each hold one the other waits for), as workers take their leases.
    held = [_worker_limits[a] for a in remote_endpoints(_worker_spec, match) if a in _worker_limits]
    for slot in held:
        slot.acquire()
    _worker_playing = True
    try:
        # Serialised here, in parallel, rather than in the parent that collects every record.
        return play_scheduled(_worker_spec, match, _worker_factory, cancelled=_worker_cancelled).dumps()
    except MatchCancelled:
        return None
    finally:
        _worker_playing = False
        for slot in reversed(held):
            slot.release()
        if _worker_terminated:
            # Out now, with no traceback, the match unwound: its SystemExit could also have been
            # swallowed (raised in a finalizer), the match played on, and its result then waited
            # for ever for a parent that no longer reads.
            os._exit(128 + signal.SIGTERM)


def _play_chunk_in_worker(chunk: Sequence[MatchSpec]) -> list[str | None]:
    return [_play_in_worker(match) for match in chunk]


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
        terminated = StopSignals()
        pool = None
        try:
            with workers_ignore_interrupts(), stop_signals_held():
                limits = bot_limits(context, spec, processes)
                initargs = (spec.to_json(), self.make_player, self.cancelled, limits)
                pool = context.Pool(processes, initializer=_init_worker, initargs=initargs)
            check_stop_signals()
            # A generator: the pool's feeder takes a chunk at a time (a list of every chunk built
            # a lazy schedule whole first: 2,000,000 matches held 650 MB before the first match).
            chunks = (matches[i : i + chunk] for i in range(0, len(matches), chunk))
            # Chunked here, not by the pool: its chunked results come as a generator, which
            # cannot be waited on with a timeout.
            results = pool.imap_unordered(_play_chunk_in_worker, chunks)
            for lines in stop_checked(results):
                if not self._take(lines, on_record):
                    break
        finally:
            if pool is not None:
                ended(pool)
            terminated.restore()

    def _take(self, lines: list[str | None], on_record: OnRecord) -> bool:
        """Hand a chunk's records over; whether the run goes on."""
        for line in lines:
            check_stop_signals()
            if line is None or (self.cancelled is not None and self.cancelled()):
                return False  # cancelled: the workers stop with the pool
            if on_record(MatchRecord.loads(line), line):
                return False
        return True


def ended(pool: Any) -> None:
    """Terminate a pool and wait for its processes, killing any that has not ended within
    :data:`TERMINATE_SECONDS`: a worker's SIGTERM now unwinds its match in Python, and a
    process whose handler never runs (stuck in a call that does not return) would otherwise
    hold the join, and the run, for ever."""
    workers = list(getattr(pool, "_pool", []))
    watchdog = threading.Timer(TERMINATE_SECONDS, _kill_left, args=(workers,))
    watchdog.daemon = True
    watchdog.start()
    try:
        pool.terminate()
        pool.join()
    finally:
        watchdog.cancel()


def _kill_left(workers: list[Any]) -> None:
    for worker in workers:
        if worker.is_alive() and worker.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGKILL)


TERMINATE_SECONDS = 10.0
"""How long a pool's processes have to end on its SIGTERM before they are killed."""


def stop_checked(results: Any) -> Iterator[Any]:
    """A pool's results as they come; while none comes, a stop signal whose interrupt was
    swallowed (by a finalizer) is raised again every :data:`STOP_POLL` seconds, not only with
    the next result (workers that die at their start, replaced by the pool without end, send
    none: the run waited for ever)."""
    while True:
        try:
            yield results.next(timeout=STOP_POLL)
        except multiprocessing.TimeoutError:
            check_stop_signals()
        except StopIteration:
            return


WORKER_IGNORED = frozenset({signal.SIGINT, signal.SIGHUP})
"""Signals a pool process leaves to its parent: a terminal sends them to its whole process group."""

STOP_POLL = 1.0
"""Seconds a local run waits for a record before it looks for a stop signal again."""


@contextlib.contextmanager
def workers_ignore_interrupts() -> Iterator[None]:
    """Pool processes started meanwhile (or later by the pool's own thread, made meanwhile)
    hold SIGINT and SIGHUP blocked from their first instruction, until their initializer ignores
    them: a Ctrl-C goes to the terminal's whole process group, and one that landed while a worker
    still imported printed that worker's traceback (3 in 10 runs Ctrl-C'd in their first two
    seconds). A blocked signal stays blocked through fork and exec, where an ignored one in the
    parent would be lost to it; only this thread blocks them, and only while the pool is made, so
    a Ctrl-C meanwhile reaches another thread or waits here for the unblock. (Workers used to be
    started through a shell script in $TMPDIR that ignored SIGINT; on a noexec $TMPDIR every
    worker failed to start, and the pool replaced them without end.)

    The resource tracker is started here too, first: it then holds SIGHUP blocked for good (a
    hangup of the terminal killed it, and the pool's semaphores were reported leaked, with
    tracebacks); starting it unblocks SIGINT in this thread, so that is blocked again."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, WORKER_IGNORED)
    try:
        resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, WORKER_IGNORED)
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def the_interrupt(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt ``exc`` is, or an error it caused: Python 3.11 wraps one raised
    inside ``__set_name__`` (a class being made, as a library does lazily) in a RuntimeError,
    which a Ctrl-C at that instant turned into a traceback."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return None


def caused_by_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is a KeyboardInterrupt, or an error it caused (:func:`the_interrupt`)."""
    return the_interrupt(exc) is not None


def signal_number(interrupt: KeyboardInterrupt) -> int:
    """The signal behind an interrupt: a :class:`StopSignals` one names it, any other is Ctrl-C."""
    return interrupt.signum if isinstance(interrupt, Stopped) else signal.SIGINT


class Stopped(KeyboardInterrupt):
    """The KeyboardInterrupt a stop signal raises, naming the signal (a command that ends on it
    exits with 128 + its number, as the shell reports a process the signal killed)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_listening: list[StopSignals] = []  # installed, innermost last
_held: list[bool] = []  # while not empty, a stop signal is only remembered


@contextlib.contextmanager
def stop_signals_held() -> Iterator[None]:
    """A stop signal meanwhile is remembered, not raised: raised in the middle of making a pool,
    its interrupt left a process started and never sent its data (an EOFError traceback from
    it), and the pool itself unmade, so never terminated. Making one does not block; the caller
    raises a signal held here with :func:`check_stop_signals` once out."""
    _held.append(True)
    try:
        yield
    finally:
        _held.pop()


def check_stop_signals() -> None:
    """Raise KeyboardInterrupt again if a stop signal came while a :class:`StopSignals` listens
    (for loops that wait without records, such as a distributed run's follower)."""
    for listener in _listening:
        listener.check()


class StopSignals:
    """While the matches are played (in this process, by the pool, or by workers being
    followed), Ctrl-C, SIGTERM and SIGHUP (a closed terminal or SSH session) stop the run alike:
    the pool is terminated (no orphaned processes) and the finished records are kept. Only on the
    main thread (where signals are handled); elsewhere it does nothing. A SIGINT or SIGHUP that is
    ignored (a job started in the background by a shell; ``nohup``) or handled by someone else is
    left as it is.

    The handler raises :class:`Stopped` (a KeyboardInterrupt) wherever the main thread is.
    Should that be somewhere an exception is swallowed (a finalizer run by the garbage collector
    prints it and goes on), the run would go on for ever (a distributed run with no worker waits
    without end); so the signal is also remembered, and :meth:`check` (between records, and
    between a follower's reads: :func:`check_stop_signals`) raises it again."""

    def __init__(self) -> None:
        self.received: int | None = None  # the signal, once one came
        self.previous: dict[int, Any] = {}
        self.installed = threading.current_thread() is threading.main_thread()
        if not self.installed:
            return
        self.previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, self._interrupt)
        for signum, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGHUP, signal.SIG_DFL)):
            current = signal.getsignal(signum)
            if current == default or getattr(current, "__func__", None) is StopSignals._interrupt:
                self.previous[signum] = signal.signal(signum, self._interrupt)
        _listening.append(self)

    def _interrupt(self, signum: int, frame: Any) -> None:
        for listener in _listening:  # the outer ones too: the run as a whole is to stop
            listener.received = signum
        if not _held:
            raise Stopped(signum)

    def check(self) -> None:
        if self.received is not None:
            raise Stopped(self.received)

    def restore(self) -> None:
        if self.installed:  # a handler set outside Python reads as None: the default then
            for signum, previous in self.previous.items():
                signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
            _listening.remove(self)
            self.installed = False
