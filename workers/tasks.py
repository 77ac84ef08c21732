"""The tasks: play a batch of scheduled matches; finalise a tournament once.

``arena.play_batch(tournament_id, indices, batch, seq)``
    Plays batch number ``batch`` of a tournament (its matches follow from the batch size; a
    message with ``indices`` and no batch number, as older versions sent, plays those). A
    worker whose game version is not the one the tournament was pinned to when it was fanned
    out (:func:`pin_game_version`) sends the batch back to the queue after a second, for a
    worker of that version: one tournament never holds records of two rule sets. Then, in
    one script (:meth:`referee.store.Store.start_batch`), it checks the cancel flag and that
    this copy of the batch is the one in the tournament's window: a batch of a cancelled
    tournament, one finished already or one sent again since (``superseded``) returns at once,
    so a cancelled tournament's few queued batches cost a round trip each. Matches already
    stored are skipped (a redelivered batch). With built-in bots only, the matches are played
    in order (the fast path); with remote bots, up to K at once as coroutines on the process's
    event loop (:mod:`workers.concurrent`), each holding a lease on every remote bot it plays
    (per-bot concurrency, across all workers). The runner polls the cancel flag during each
    match (a cancelled match is not stored). Records are stored in small groups (at least
    every 0.2 s and at the end): each store is atomic, idempotent and counted, and the caller
    that stores the last match enqueues finalisation (patiently: it is the only message that
    does). A batch that found some of its matches stored (an earlier copy ran), or stored
    again after an outage, sends finalisation itself if the tournament is complete and has not
    ended: its claimer may have died before sending it. When every match is stored the batch
    leaves the window and sends its successors (:meth:`~referee.store.Store.finish_batch`): the
    queue holds O(window) batches of a tournament. A running batch reports itself alive every
    few seconds (its window entry), so the stall check can tell a dead one. Bot failures are
    match results, never task errors; only infrastructure errors (Redis unreachable) retry,
    with exponential backoff.

``arena.fan_out(tournament_id)``
    Fixes the batching of a stored tournament and sends its first window of batches (the
    referee service sends only this one message: creating a tournament is O(1)).

``arena.finalize(tournament_id)``
    Builds the leaderboard from the stored records, writes it, marks the tournament complete
    (or keeps ``cancelled``), and folds the tournament into its game's leaderboard. Idempotent:
    a redelivery rewrites the same results; a copy that comes after the tournament ended does
    nothing. A Redis restart meanwhile is waited out in the task (Celery's own retry could not
    send its message with Redis down, and dropped the task).

Metrics (:mod:`referee.metrics`, multiprocess mode on a worker node): every played record,
each match while it runs, records newly stored, batch durations, tournaments started (by the
first delivery of the batch holding match 0) and finished (by finalisation). Log lines carry
the tournament id.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import multiprocessing
import os
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any, TypeVar

import redis
from celery import Celery, Task, shared_task
from celery.signals import worker_process_shutdown, worker_shutting_down
from kombu.exceptions import OperationalError

from arena import leaderboard
from arena.logs import log_failures
from arena.record import MatchRecord, read_view
from arena.registry import get_game
from arena.runner import MatchCancelled
from arena.sprt import SPRT
from arena.tallied import GroupTally, TallyEntry, tally_entry
from arena.tournament import Schedule, TournamentSpec, play_scheduled
from arena.tournament_run import GroupScores
from referee import metrics
from referee.hosted import versions as hosted_versions
from referee.players import make_player
from referee.remote import is_remote
from referee.store import ENDED, Batch, Store, TournamentMissing
from workers import concurrent, settings

FLUSH_SECONDS = 0.2
FLUSH_RECORDS = 50
"""Records are stored in groups of at most this many (or every ``FLUSH_SECONDS``), so storing a
batch of instant matches overlaps its playing instead of following it."""
CANCEL_CHECK_SECONDS = 0.25  # a cancelled tournament stops within this (plus the match in play)
LEASE_SECONDS = settings.lease_seconds()
LEASE_POLL_SECONDS = 0.05
STORE_PATIENCE_SECONDS = 300.0
MAX_BATCH = 500
"""The largest batch of built-in matches: a process holds its batch's tournament for its length
(an instant match takes about 0.2 ms, a searching bot's seconds), so other tournaments' batches
wait at most that long for it."""
REMOTE_BATCH = settings.DEFAULT_MATCHES_PER_PROCESS
HEARTBEAT_SECONDS = 5.0
"""How often a running batch marks its window entry alive (the stall check calls a batch dead
after ``STALE_SECONDS`` without one)."""
STALE_SECONDS = 60.0
WORKER_STOPPING = multiprocessing.Event()
"""Set in the worker's main process when it is told to stop (Celery's warm shutdown), seen by
its pool processes (made before they fork): a batch in hand then takes no more batches, and its
process is free sooner (it went on taking them for up to STEAL_SECONDS, 988 matches after a
SIGTERM; an outside operator probe)."""

STEAL_SECONDS = 30.0
"""For how long a batch of remote matches keeps its process's K slots busy with more queued
batches of its tournament before it plays out what it holds and returns to the queue (where
other tournaments' batches wait their turn)."""
MATCH_BOUND = "the workers' bound of {seconds:g} s (ARENA_MATCH_SECONDS)"
MATCH_SECONDS = settings.match_seconds()
"""The longest a worker holds one match (:data:`workers.settings.DEFAULT_MATCH_SECONDS`). Past
it, every remote seat still asked gets a ``timeout`` at once, so the match ends (played out by
substitutes)."""
VERSION_FIELD = "game_version"
"""The field of ``t:{id}`` that pins a tournament's game version (:func:`pin_game_version`)."""
REFUSED_PAUSE_SECONDS = 1.0
"""How long a worker of another game version holds a batch from before windows (no number to
park it by) before sending it back to the queue: a worker of the pinned version takes the
others meanwhile."""

T = TypeVar("T")

INFRASTRUCTURE_ERRORS = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, OperationalError)

log = logging.getLogger(__name__)

_stores: dict[tuple[int, str], Store] = {}


def store_for(app: Any) -> Store:
    """One store (one connection pool) per process and URL, made after fork."""
    key = (os.getpid(), app.conf.arena_store_url)
    if key not in _stores:
        _stores[key] = Store(app.conf.arena_store_url)
    return _stores[key]


@lru_cache(maxsize=16)
def _plan(tournament_id: str, spec_json: str) -> Schedule:
    """A tournament's schedule as a worker needs it: any match computed from its index."""
    return Schedule(TournamentSpec.from_json(json.loads(spec_json)))


def tournament_plan(store: Store, tournament_id: str) -> tuple[TournamentSpec, Schedule]:
    found = plan_and_version(store, tournament_id)
    if found is None:
        raise KeyError(f"no tournament {tournament_id}")
    return found[0].spec, found[0]


def plan_and_version(store: Store, tournament_id: str) -> tuple[Schedule, str | None] | None:
    """The tournament's schedule and the game version its records are pinned to (None: a
    tournament fanned out before versions were pinned: :func:`pin_unpinned`); None if the store has no such
    tournament (its keys were lost: a ``FLUSHALL``, an older AOF). One round trip."""
    raw, pinned = store.redis.hmget(store.key("t", tournament_id), "spec", VERSION_FIELD)
    if raw is None:
        return None
    return _plan(tournament_id, raw.decode()), None if pinned is None else pinned.decode()


def installed_version(game: str) -> str:
    return get_game(game).meta.version


def pin_game_version(store: Store, tournament_id: str) -> None:
    """Pin the tournament's records to the game version installed here (the first to fan it
    out wins): a worker of another Arena version refuses its batches (:func:`play_batch`), so
    a tournament never mixes records of two rule sets, which a local run of it could not give
    and a resume of its run directory refuses."""
    spec, _ = tournament_plan(store, tournament_id)
    store.redis.hsetnx(store.key("t", tournament_id), VERSION_FIELD, installed_version(spec.game))


def pin_unpinned(store: Store, tournament_id: str, game: str) -> str:
    """The version a tournament fanned out before versions were pinned is pinned to now: the
    game version its records were played with (any one of them: one worker version played them
    all before pinning existed), else this worker's; the first to pin wins. Such a tournament,
    running at an upgrade, was finished by the new workers on their own rules (an upgrade
    probe: 1,408 records of Sky Five 1.0 and 992 of 1.2 in one tournament and its board)."""
    key = store.key("t", tournament_id)
    version = installed_version(game)
    for index, _ in store.redis.hscan_iter(store.key("t", tournament_id, "matches"), count=16):
        record = store.match(tournament_id, int(index))
        if record is not None:
            version = record.game_version
            break
    store.redis.hsetnx(key, VERSION_FIELD, version)
    pinned = store.redis.hget(key, VERSION_FIELD)
    return version if pinned is None else pinned.decode()


def patiently(action: Callable[..., T], *args: Any) -> T:
    """Run a store operation, waiting out a Redis outage (a restart) for up to five minutes:
    the matches of a batch are played already and must not be lost to a short outage."""
    delay = 0.1
    deadline = time.monotonic() + STORE_PATIENCE_SECONDS
    while True:
        try:
            return action(*args)
        except INFRASTRUCTURE_ERRORS:
            if time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 5.0)


def send_batches(app: Celery, tournament_id: str, batches: list[Batch]) -> None:
    """One message per batch claimed in the window (if this fails, the window's entries say
    the batches were sent: the stall check finds them lost and sends them again)."""
    for batch in batches:
        patiently(app.send_task, "arena.play_batch", [tournament_id, [], batch.number, batch.seq])


def start_window(app: Celery, store: Store, tournament_id: str, size: int, window: int | None = None) -> int:
    """Fix a stored tournament's batching and send its first window; returns the batch count.
    Idempotent: a second call sends only what the window lacks."""
    patiently(pin_game_version, store, tournament_id)
    _, count = patiently(store.plan_batches, tournament_id, size, window or settings.queue_window())
    # A second call (a redelivered fan-out) first sends again what the first claimed unstarted.
    send_batches(app, tournament_id, patiently(store.orphans, tournament_id, "fan-out"))
    # One token for the retries: a retry after a lost reply gets the claimed batches again.
    send_batches(app, tournament_id, patiently(store.fill, tournament_id, None, "fan-out", uuid.uuid4().hex))
    return count


class _Held:
    """The window batches a task plays: its own and those it took (:meth:`Store.steal`), each
    with its matches not yet played. A batch whose matches are all played and stored leaves the
    window (:meth:`Store.finish_batch`) and sends its successors; every held batch reports
    itself alive at most every ``HEARTBEAT_SECONDS``."""

    def __init__(self, app: Celery, store: Store, tournament_id: str, source: str) -> None:
        self.app = app
        self.store = store
        self.tournament_id = tournament_id
        self.source = source
        self.seqs: dict[int, int] = {}
        self.left: dict[int, set[int]] = {}
        self.batch_of: dict[int, int] = {}
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.beater: threading.Thread | None = None

    def __enter__(self) -> _Held:
        # A thread of its own: a long in-process match (a searching bot) must not look dead.
        self.beater = threading.Thread(target=self._beat, name="arena-heartbeat", daemon=True)
        self.beater.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.beater is not None:
            self.beater.join()

    def add(self, batch: int, seq: int, todo: list[int]) -> None:
        with self.lock:
            self.seqs[batch] = seq
        self.left[batch] = set(todo)
        for index in todo:
            self.batch_of[index] = batch

    def played(self, index: int) -> None:
        batch = self.batch_of.pop(index, None)
        if batch is not None:
            self.left[batch].discard(index)

    def complete(self) -> bool:
        return any(not left for left in self.left.values())

    def finish_complete(self) -> None:
        """Call once every played match is stored."""
        for batch in [b for b, left in self.left.items() if not left]:
            with self.lock:
                seq = self.seqs.pop(batch)
            del self.left[batch]
            # One token for the retries: a retry after a lost reply gets the successors again.
            token = uuid.uuid4().hex
            successors = patiently(self.store.finish_batch, self.tournament_id, batch, seq, self.source, token)
            send_batches(self.app, self.tournament_id, successors)

    def _beat(self) -> None:
        while not self.done.wait(HEARTBEAT_SECONDS):
            with self.lock:
                held = list(self.seqs.items())
            with contextlib.suppress(*INFRASTRUCTURE_ERRORS):
                for batch, seq in held:
                    self.store.heartbeat(self.tournament_id, batch, seq)


@shared_task(
    bind=True,
    name="arena.play_batch",
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=20,
)
def play_batch(
    self: Task, tournament_id: str, indices: list[int], batch: int | None = None, seq: int | None = None
) -> int:
    began = time.monotonic()
    store = store_for(self.app)
    windowed = batch is not None and seq is not None
    ids = {"tournament": tournament_id}
    redelivered = bool((self.request.delivery_info or {}).get("redelivered", False))
    found = patiently(plan_and_version, store, tournament_id)
    if found is None:  # acknowledged: no worker could ever play it
        log.warning("batch dropped: no such tournament in the store", extra={**ids, "batch": batch})
        return 0
    matches, pinned = found
    spec = matches.spec
    mine = installed_version(spec.game)
    if pinned is None:
        pinned = patiently(pin_unpinned, store, tournament_id, spec.game)
    if pinned != mine and not patiently(store.is_cancelled, tournament_id):
        log.warning(
            "batch refused: another game version",
            extra={**ids, "batch": batch, "game": spec.game, "version": mine, "tournament_version": pinned},
        )
        if windowed:
            # Set aside in the store, not sent back: no process of this worker holds it or sees
            # it again. A worker of the pinned version takes parked batches as it plays the
            # tournament (each batch it finishes steals them, _play_in_order), and each worker
            # sends those of its versions back to the queue every second (workers.sweeper.unpark).
            # Held a second and sent back, each refusal cost a process its second (71x on a
            # tournament beside it, bench/bench_refusal.py), and copies piled up in the queue
            # (an outside review); parked and only sent back, each batch bounced between an idle
            # worker of this version and the next look (13-25x slower on a mixed fleet).
            assert batch is not None and seq is not None
            if patiently(store.park, tournament_id, batch, seq, spec.game, pinned) != "cancelled":
                return 0
        else:  # a batch from before windows: held a second, then back to the queue
            time.sleep(REFUSED_PAUSE_SECONDS)
            patiently(self.app.send_task, "arena.play_batch", [tournament_id, indices, batch, seq])
            return 0
    if windowed:
        verdict = patiently(store.start_batch, tournament_id, batch, seq)
        if verdict == "cancelled":
            _finalize_cancelled(store, tournament_id, redelivered)
            return 0
        if verdict in ("done", "play"):
            # Delivered again after its worker died? What that worker claimed and did not see
            # through (successors never sent, batches it took) is sent again (usually nothing).
            send_batches(self.app, tournament_id, patiently(store.orphans, tournament_id, str(batch)))
        if verdict != "play":  # finished already, or sent again since: the other copy plays
            log.debug("batch skipped", extra={**ids, "batch": batch, "why": verdict})
            return 0
        indices = patiently(store.batch_indices, tournament_id, batch)
    else:
        if patiently(store.is_cancelled, tournament_id):
            _finalize_cancelled(store, tournament_id, redelivered)
            return 0
        patiently(store.mark_running, tournament_id)
    stored = patiently(store.stored_indices, tournament_id, indices)
    todo = [i for i in indices if i not in stored]
    # Matches stored before this copy started: an earlier copy ran (its worker died, or Redis
    # dropped its connection), perhaps storing the tournament's last match and dying before it
    # sent finalisation. Such a batch makes sure finalisation is sent (_ensure_finalized).
    doubtful = bool(stored)
    hosted_versions.playing(tournament_id)  # hosted seats keep their logs under this tournament
    # The batch holding the schedule's first match starts it: counted once, though that batch
    # may be delivered again or sent again by the stall check.
    if 0 in todo and patiently(store.first_to, tournament_id, "started"):
        metrics.tournament_started(spec.game)
        log.info("tournament started", extra={**ids, "game": spec.game, "matches": len(matches)})
    log.debug("batch started", extra={**ids, "matches": len(todo)})
    pending: list[tuple[int, str]] = []  # (index, record.dumps()): see Store.store_lines
    entries: list[TallyEntry] = []  # each pending record's tally entry (arena.tallied)
    bot_index = {name: i for i, name in enumerate(spec.bots)}
    flushed = time.monotonic()
    played = failures = 0
    held = _Held(self.app, store, tournament_id, str(batch))
    writer = _Writer(store, tournament_id, spec.game, list(spec.bots))
    if windowed:
        assert batch is not None and seq is not None
        held.add(batch, seq, todo)

    # What each seat plays (a registered bot's endpoint, by its name): its player kind.
    address = functools.cache(spec.address)

    taken_here = set(todo)  # every match this task has taken to play (its own and those it took)
    played_here: set[int] = set()  # those played, stored or not yet

    def keep(index: int, record: MatchRecord) -> None:
        nonlocal played, failures
        played_here.add(index)
        metrics.observe_record(record, count_start=False, address=address)
        log_failures(log, record, tournament_id)
        failures += len(record.failures)
        pending.append((index, record.dumps()))
        entries.append(tally_entry(record, bot_index))
        held.played(index)
        played += 1

    def tick() -> None:
        nonlocal flushed
        if pending and (len(pending) >= FLUSH_RECORDS or time.monotonic() - flushed >= FLUSH_SECONDS):
            writer.write(pending, entries)
            flushed = time.monotonic()
            # A batch all played leaves the window once stored; a failed store ends the batch now.
            if writer.error is not None or held.complete():
                writer.wait()
                writer.finalize_if_due()
                held.finish_complete()

    def steal(states: str = "qp") -> list[int] | None:
        """More matches for free slots: a queued or parked batch of this tournament (windowed
        runs only, and not in a copy delivered again: its first copy may be alive, and kombu
        gives both copies one delivery tag, so the first's acknowledgement clears this one's,
        and what this copy took over would have no message left should its worker die)."""
        nonlocal doubtful
        if not windowed or redelivered or WORKER_STOPPING.is_set():
            return None
        taken = patiently(store.steal, tournament_id, str(batch), states)
        if taken is None:
            return None
        indices = patiently(store.batch_indices, tournament_id, taken.number)
        stored = patiently(store.stored_indices, tournament_id, indices)
        doubtful = doubtful or bool(stored)
        # A batch this task took may come back: a second delivery of this task's own batch,
        # which thinks its first copy dead, sends the batches it took again (Store.orphans), and
        # the first copy may take one back while still playing it (the same match started twice
        # here ended the task in a KeyError). Held: its matches not played here; played: the
        # ones not started here.
        left = [i for i in indices if i not in stored and i not in played_here]
        held.add(taken.number, taken.seq, left)
        more = [i for i in left if i not in taken_here]
        taken_here.update(more)
        return more

    @functools.cache
    def mixed_fleet() -> bool:
        return bool(patiently(store.other_version_alive, spec.game, mine))

    def take_parked() -> list[int] | None:
        """Built-in bots play their batch, then its tournament's parked batches; beside a live
        worker of another version of the game (a mixed fleet) its queued ones too: that worker
        would only park them, and parked they wait for the next look (an idle worker of the
        other version takes every message: a mixed fleet was 13-25x slower, an outside review)."""
        return steal("qp" if mixed_fleet() else "p") if windowed and not redelivered else None

    try:
        with held:
            cancelled = _play(store, tournament_id, spec, matches, todo, keep, tick, steal, take_parked)
            writer.write(pending, entries)
            writer.wait()
    except TournamentMissing:  # its keys were lost meanwhile (FLUSHALL): nowhere to store
        log.warning("batch dropped: no such tournament in the store", extra={**ids, "batch": batch})
        return 0
    finally:
        writer.close()
    writer.finalize_if_due()
    if cancelled:
        _finalize_cancelled(store, tournament_id, redelivered)
    else:
        if (doubtful or writer.retried) and not writer.sent:
            _ensure_finalized(store, tournament_id)
        held.finish_complete()
        if windowed and patiently(store.is_cancelled, tournament_id):
            # Cancelled after this batch last looked (between matches, every quarter second):
            # finishing it sent no successor, so no batch is left to see the cancel and finalise
            # (the tournament stayed without its board for good). Finalising is claimed once.
            _finalize_cancelled(store, tournament_id, redelivered)
    seconds = time.monotonic() - began
    metrics.batch_finished(spec.game, seconds)
    # The one INFO line of a batch (bot failures are DEBUG lines; their count is here).
    log.info(
        "batch done",
        extra={**ids, "played": played, "failures": failures, "cancelled": cancelled, "seconds": round(seconds, 3)},
    )
    return played


def _play(
    store: Store,
    tournament_id: str,
    spec: TournamentSpec,
    matches: Schedule,
    todo: list[int],
    keep: Callable[[int, MatchRecord], None],
    tick: Callable[[], None],
    steal: Callable[[], list[int] | None],
    take_parked: Callable[[], list[int] | None],
) -> bool:
    """Remote bots: concurrently, taking queued and parked batches of the tournament for free
    slots (``steal``); built-in bots only: in order, then its parked batches (``take_parked``).
    True if cancelled."""
    if any(is_remote(spec.address(bot)) for bot in spec.bots):
        return concurrent.play_concurrently(
            store,
            tournament_id,
            spec,
            matches,
            todo,
            per_process=settings.matches_per_process(),
            on_record=keep,
            tick=tick,
            steal=steal,
            steal_seconds=STEAL_SECONDS,
            running_metric=lambda: metrics.match_running(spec.game),
            patiently=patiently,
            errors=INFRASTRUCTURE_ERRORS,
            bound=(MATCH_SECONDS, MATCH_BOUND),
            lease_seconds=LEASE_SECONDS,
            lease_poll=LEASE_POLL_SECONDS,
            cancel_check=CANCEL_CHECK_SECONDS,
            flush_seconds=FLUSH_SECONDS,
        )
    return _play_in_order(store, tournament_id, spec, matches, todo, keep, tick, take_parked)


def _play_in_order(
    store: Store,
    tournament_id: str,
    spec: TournamentSpec,
    matches: Schedule,
    todo: list[int],
    keep: Callable[[int, MatchRecord], None],
    tick: Callable[[], None],
    take_parked: Callable[[], list[int] | None] = lambda: None,
) -> bool:
    """The fast path for built-in bots: one match after the other, in this process, then the
    matches of the tournament's parked batches (``take_parked``: batches workers of another
    game version set aside, which this worker plays). Returns True if the tournament was
    cancelled."""
    checked = time.monotonic()
    for index in _then_parked(todo, take_parked):
        # Checked between matches, but not before every instant match (a round trip each).
        if time.monotonic() - checked >= CANCEL_CHECK_SECONDS:
            if patiently(store.is_cancelled, tournament_id):
                return True
            checked = time.monotonic()
        match = matches[index]
        try:
            with metrics.match_running(spec.game):
                # The runner polls the cancel flag during the match too.
                record = play_scheduled(spec, match, make_player, cancelled=lambda: store.is_cancelled(tournament_id))
        except MatchCancelled:
            log.info("match cancelled", extra={"tournament": tournament_id, "match": match.match_id})
            return True
        keep(index, record)
        tick()
    return False


def _then_parked(todo: list[int], take_parked: Callable[[], list[int] | None]) -> Iterator[int]:
    """``todo``, then each parked batch's matches as ``take_parked`` takes one, until none is left."""
    more: list[int] | None = todo
    while more is not None:
        yield from more
        more = take_parked()


def _finalize_cancelled(store: Store, tournament_id: str, redelivered: bool = False) -> None:
    """A cancelled tournament has no last store to finalise it: the first batch that sees the
    cancel does (once). Nothing is stored after a cancel, so its leaderboard is final. A batch
    delivered again (its worker died) finalises too while there is no leaderboard: that worker
    may have been the one that claimed it (finalising is idempotent)."""
    claimed = patiently(store.claim_finalize, tournament_id)
    if claimed or (redelivered and patiently(store.leaderboard, tournament_id) is None):
        patiently(finalize_tournament, store, tournament_id)


def _ensure_finalized(store: Store, tournament_id: str) -> bool:
    """Send finalisation if every match is stored and the tournament has not ended: the store
    that completed it claims finalisation once, and its claimer may have died before sending
    it (kill -9), or lost the script's reply to a Redis restart and stored nothing new when it
    tried again. Finalisation is idempotent, so a second one costs only its time. True if sent."""
    info = patiently(store.tournament, tournament_id)
    if info is None or info["status"] not in ("queued", "running") or info["cancelled"]:
        return False
    if info["done"] < info["total"]:
        return False
    log.warning("finalisation sent again", extra={"tournament": tournament_id})
    patiently(finalize.delay, tournament_id)
    return True


@shared_task(
    bind=True,
    name="arena.fan_out",
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=20,
)
def fan_out(self: Task, tournament_id: str, size: int = 0) -> int:
    """Send a stored tournament's first window of batches (the referee service sends only this
    one message, so creating a tournament costs the same whatever its size; the batches that
    finish send the rest). Idempotent: a redelivery sends only what the window lacks."""
    store = store_for(self.app)
    spec, plan = patiently(tournament_plan, store, tournament_id)
    if patiently(store.is_cancelled, tournament_id):
        _finalize_cancelled(store, tournament_id)
        return 0
    count = start_window(self.app, store, tournament_id, size or auto_batch_size(spec, len(plan)))
    if patiently(store.is_cancelled, tournament_id):
        # Cancelled since the look above: the window sent no batch after it, and any it sent
        # before store nothing more, so no batch may be left to see the cancel and store the
        # board (it waited for the stall check: an outside races probe). Claimed once.
        _finalize_cancelled(store, tournament_id)
    return count


def auto_batch_size(spec: TournamentSpec, matches: int) -> int:
    """With remote bots ``ceil(matches / 16)``, at most ``REMOTE_BATCH`` (64: a worker process
    plays a batch's remote matches at once, so a batch is about one match long, and a redelivery
    after a dead worker repeats only its unstored matches); else ``ceil(matches / 16)``, at
    most ``MAX_BATCH``. Sixteen batches are a window's worth (``settings.DEFAULT_WINDOW``: no more of a
    tournament's batches run at once anyway); every batch costs its process about 4-5 ms of
    Celery and store overhead (its delivery, the first round trips, the last store and its
    successors' messages), which at 200 instant matches of about 0.2 ms was 11% of the batch
    and held Celery to 0.70 of the local run, against 0.83 at 625 (README)."""
    if any(is_remote(spec.address(bot)) for bot in spec.bots):
        return max(1, min(REMOTE_BATCH, -(-matches // 16)))
    return max(1, min(MAX_BATCH, -(-matches // 16)))


class _Writer:
    """Stores a batch's records on a thread of its own, so playing goes on while they are
    compressed (the GIL released) and Redis works: compressing in the playing thread instead
    held Celery with 1 process to 0.71 of the local run, against 0.83 (README).

    ``write`` hands over a group of records; ``wait`` returns once every group handed over is
    stored (re-raising the writer's error, e.g. Redis gone for longer than ``patiently``
    waits). The batch waits before it leaves the window and before it returns (the task is
    acknowledged only after that), so nothing is acknowledged before it is stored. The one
    store that completes the tournament is remembered; finalisation is sent from the task's
    thread (``finalize_if_due``)."""

    def __init__(self, store: Store, tournament_id: str, game: str, bots: list[str]) -> None:
        self.store = store
        self.tournament_id = tournament_id
        self.game = game
        self.bots = bots
        self.groups: queue.SimpleQueue[tuple[list[tuple[int, str]], GroupTally] | None] = queue.SimpleQueue()
        self.idle = threading.Condition()
        self.outstanding = 0
        self.error: BaseException | None = None
        self.completes = False
        self.sent = False  # finalisation sent by this batch
        self.retried = False  # a store was tried again after an outage (its first reply lost)
        self.thread: threading.Thread | None = None

    def write(self, records: list[tuple[int, str]], entries: list[TallyEntry]) -> None:
        """Store these records, with their tally entries (both lists are emptied)."""
        if not records:
            return
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="arena-writer", daemon=True)
            self.thread.start()
        with self.idle:
            self.outstanding += 1
        self.groups.put((list(records), GroupTally(self.bots, list(entries))))
        records.clear()
        entries.clear()

    def _run(self) -> None:
        while (group := self.groups.get()) is not None:
            try:
                if self.error is None:
                    try:
                        results = self.store.store_lines(self.tournament_id, *group)
                    except INFRASTRUCTURE_ERRORS:
                        # The script may have run, its reply lost: stored again, its records
                        # read as stored before, and a finalisation it claimed is not seen.
                        self.retried = True
                        results = patiently(self.store.store_lines, self.tournament_id, *group)
                    metrics.matches_stored(self.game, sum(r.new for r in results))
                    self.completes = self.completes or any(r.finalize for r in results)
            except BaseException as exc:  # handed to the task's thread by wait()
                self.error = exc
            with self.idle:
                self.outstanding -= 1
                self.idle.notify_all()

    def wait(self) -> None:
        with self.idle:
            self.idle.wait_for(lambda: self.outstanding == 0)
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        if self.thread is not None:
            self.groups.put(None)
            self.thread.join()
            self.thread = None

    def finalize_if_due(self) -> None:
        if self.completes:
            # Patiently: a Redis restart here lost the only message that finalises.
            patiently(finalize.delay, self.tournament_id)
            self.completes = False
            self.sent = True


@shared_task(
    bind=True,
    name="arena.finalize",
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=20,
)
def finalize(self: Task, tournament_id: str) -> None:
    store = store_for(self.app)
    spec, status = patiently(store.redis.hmget, store.key("t", tournament_id), "spec", "status")
    if spec is None:
        log.warning("finalisation dropped: no such tournament in the store", extra={"tournament": tournament_id})
        return
    if status is not None and status.decode() in ENDED and patiently(store.leaderboard, tournament_id) is not None:
        return  # finalised already: this is a copy sent again (see _ensure_finalized)
    # Patiently, in this task: a Redis restart here made Celery's retry fail to send its own
    # message, and the only message that finalises was dropped (the tournament stayed running).
    patiently(finalize_tournament, store, tournament_id)


def finalize_tournament(store: Store, tournament_id: str) -> dict[str, Any]:
    spec, matches = tournament_plan(store, tournament_id)
    # Read once, in schedule order and in chunks (no list of every record), for what the sums of
    # the board and of the game's summary take: the tally entries the workers stored, else the
    # records' tallied parts. Added in schedule order, the board is build()'s.
    tally = leaderboard.Tally(spec, by_group=True)
    # An SPRT decides as a local run's does, on the groups in schedule order: the board counts
    # the matches up to the deciding group's last, however many more the workers played (a
    # following client stops them at once; without one, they play the schedule out).
    sprt = SPRT(*spec.sprt) if spec.sprt else None
    groups = GroupScores(spec, sprt) if sprt else None
    for item in store.tallied_in_order(tournament_id, len(matches), spec.bots):
        entry = tally.entry(read_view(item)) if isinstance(item, str) else item
        tally.add_entry(entry)
        if groups and sprt:
            groups.add(entry)
            if sprt.decision() is not None:
                break
    played = tally.matches
    cancelled = store.is_cancelled(tournament_id)
    board = tally.board(resamples=leaderboard.RESAMPLES)
    board["tournament"] = tournament_id
    board["scheduled"] = len(matches)
    if sprt:
        board["sprt"] = sprt.to_json()
    wanted = "complete" if played == len(matches) and not cancelled else "stopped"
    if cancelled:
        # A cancel is final (the store takes no record after it): this is the board of what was
        # played, and says so. A run stopped by its SPRT has the status stopped already.
        current = (store.tournament(tournament_id) or {}).get("status")
        board["status"] = current if current in ("cancelled", "stopped") else "cancelled"
    else:
        board["status"] = wanted
    store.save_leaderboard(tournament_id, board)
    if board["status"] == "complete":
        store.save_summary(tournament_id, leaderboard.summary_of(tally))
        if spec.rated:  # else its owner chose the seed, so knew the deals: not the game's board
            store.add_game_tournament(spec.game, tournament_id)
            publish_game_leaderboard(store, spec.game)
    store.expire_matches(tournament_id)
    store.redis.delete(store.key("t", tournament_id, "inflight"))  # the window is closed
    # Last: once a tournament reads complete, every result of it is in place.
    status = store.finish(tournament_id, wanted) or wanted
    if status != board["status"]:  # a cancel landed while finalising: the board says so too
        board["status"] = status
        store.save_leaderboard(tournament_id, board)
    if store.first_to(tournament_id, "finished"):  # a finalisation may run twice (it is sent again)
        metrics.tournament_finished(spec.game, status)
    log.info("tournament finished", extra={"tournament": tournament_id, "status": status, "matches": played})
    return board


PUBLISH_TRIES = 5
"""Fits of a game's leaderboard one finalisation makes at most while others count tournaments in."""


def publish_game_leaderboard(store: Store, game: str) -> bool:
    """Store the game's leaderboard, computed from every tournament counted in so far. A board
    is stored only if no tournament was counted in while it was computed (two finalisations at
    once: the first to finish must not overwrite the other's board with one that lacks its
    tournament); else it is computed again. True if this call stored it; past PUBLISH_TRIES the
    finalisations still counting in tournaments store theirs, each after its own tournament."""
    for _ in range(PUBLISH_TRIES):
        seen = store.game_changes(game)
        if store.save_game_leaderboard(game, game_leaderboard(store, game), as_of=seen):
            return True
    log.warning("game leaderboard left to later finalisations", extra={"game": game})
    return False


GAME_BOARD_TOURNAMENTS = 200
"""A game's board is fitted over its latest this many complete tournaments: each finalisation
refits it, and over every tournament ever played its cost (201 fits of every pair that met)
would grow for good."""


def game_leaderboard(store: Store, game: str) -> dict[str, Any]:
    """Ratings of every bot of a game over its latest GAME_BOARD_TOURNAMENTS complete
    tournaments (one fit), with each bot's results: wins/draws/losses of its 2-player matches,
    mean rank and mean score. Built from each tournament's stored summary, so its cost is the
    fit's, not a re-read of every record ever played, and tournaments whose records have
    expired still count."""
    latest = store.game_tournaments(game, GAME_BOARD_TOURNAMENTS)
    return leaderboard.across(game, [s for t in latest if (s := tournament_summary(store, t))])


def tournament_summary(store: Store, tournament_id: str) -> dict[str, Any] | None:
    """A complete tournament's summary; one that ended before summaries were stored gets it
    built from its records (while they are kept) and stored."""
    summary = store.summary(tournament_id)
    if summary is None:
        records = store.matches(tournament_id)
        if not records:
            return None
        summary = leaderboard.tournament_summary(store.spec(tournament_id), records)
        store.save_summary(tournament_id, summary)
    return summary


@worker_process_shutdown.connect
def _process_exited(pid: int | None = None, **_: Any) -> None:
    metrics.process_exited(pid or os.getpid())


@worker_shutting_down.connect
def _worker_stopping(**_: Any) -> None:
    WORKER_STOPPING.set()


@shared_task(bind=True, name="arena.noop_batch")
def noop_batch(self: Task, counter: str, indices: list[int]) -> None:
    """A batch that does nothing but count itself: the Celery baseline of bench/bench_celery.py
    (and the stream of tasks tests/test_worker_reconnect.py keeps up across Redis restarts)."""
    patiently(store_for(self.app).redis.incrby, counter, len(indices))
