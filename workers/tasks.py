"""The tasks: play a batch of scheduled matches; finalise a tournament once.

``arena.play_batch(tournament_id, indices)``
    Plays the matches of a batch in order. Between matches it checks the tournament's cancel
    flag, and the runner polls it during each match (a cancelled match is not stored); it skips
    matches already stored (a redelivered batch); it takes a lease on every
    remote bot of a match first (per-bot concurrency, across all workers). Records are stored
    in small groups (at least every 0.2 s and at the end of the batch): each store is atomic,
    idempotent and counted, and the caller that stores the last match enqueues finalisation.
    Bot failures are match results, never task errors; only infrastructure errors (Redis
    unreachable) retry, with exponential backoff.

``arena.finalize(tournament_id)``
    Builds the leaderboard from the stored records, writes it, marks the tournament complete
    (or keeps ``cancelled``), and folds the tournament into its game's leaderboard. Idempotent:
    a redelivery rewrites the same results.

Metrics (:mod:`referee.metrics`, multiprocess mode on a worker node): every played record,
each match while it runs, records newly stored, batch durations, tournaments started (by the
first delivery of the batch holding match 0) and finished (by finalisation). Log lines carry
the tournament id.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, TypeVar

import redis
from celery import Task, shared_task
from celery.signals import worker_process_shutdown

from arena import leaderboard
from arena.cli.logs import log_failures
from arena.cli.players import make_player
from arena.record import MatchRecord
from arena.runner import MatchCancelled
from arena.tournament import MatchSpec, TournamentSpec, play_scheduled, schedule
from referee import metrics
from referee.remote import is_remote
from referee.store import Store

FLUSH_SECONDS = 0.2
CANCEL_CHECK_SECONDS = 0.25  # a cancelled tournament stops within this (plus the match in play)
LEASE_SECONDS = float(os.environ.get("ARENA_LEASE_SECONDS", "60"))
LEASE_POLL_SECONDS = 0.05
STORE_PATIENCE_SECONDS = 300.0

T = TypeVar("T")

INFRASTRUCTURE_ERRORS = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError)

log = logging.getLogger(__name__)

_stores: dict[tuple[int, str], Store] = {}


def store_for(app: Any) -> Store:
    """One store (one connection pool) per process and URL, made after fork."""
    key = (os.getpid(), app.conf.arena_store_url)
    if key not in _stores:
        _stores[key] = Store(app.conf.arena_store_url)
    return _stores[key]


@lru_cache(maxsize=16)
def _schedule(tournament_id: str, spec_json: str) -> tuple[TournamentSpec, list[MatchSpec]]:
    spec = TournamentSpec.from_json(json.loads(spec_json))
    return spec, schedule(spec)


def tournament_plan(store: Store, tournament_id: str) -> tuple[TournamentSpec, list[MatchSpec]]:
    raw = store.redis.hget(store.key("t", tournament_id), "spec")
    if raw is None:
        raise KeyError(f"no tournament {tournament_id}")
    return _schedule(tournament_id, raw.decode())


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


@contextmanager
def bot_leases(store: Store, spec: TournamentSpec, match: MatchSpec, limit: int) -> Iterator[None]:
    """Hold one lease per remote bot of the match (all or none, so two matches waiting for each
    other's bots cannot deadlock). Leases are renewed while the match runs and released at the
    end; if this worker dies they expire after ``LEASE_SECONDS`` and the slot is free again."""
    endpoints = sorted({spec.address(spec.bots[b]) for b in match.seats if is_remote(spec.address(spec.bots[b]))})
    held: list[tuple[str, str]] = []
    done = threading.Event()
    renewer = None
    try:
        while endpoints and not held:
            for endpoint in endpoints:
                lease = patiently(store.acquire, endpoint, limit, LEASE_SECONDS)
                if lease is None:
                    for taken in held:
                        patiently(store.release, *taken)
                    held = []
                    time.sleep(LEASE_POLL_SECONDS)
                    break
                held.append((endpoint, lease))
        if held:
            renewer = threading.Thread(target=_renew, args=(store, held, done), daemon=True, name="arena-lease")
            renewer.start()
        yield
    finally:
        done.set()
        if renewer is not None:
            renewer.join()
        for endpoint, lease in held:
            patiently(store.release, endpoint, lease)


def _renew(store: Store, held: list[tuple[str, str]], done: threading.Event) -> None:
    while not done.wait(LEASE_SECONDS / 3):
        for endpoint, lease in held:
            with contextlib.suppress(*INFRASTRUCTURE_ERRORS):
                store.renew(endpoint, lease, LEASE_SECONDS)


@shared_task(
    bind=True,
    name="arena.play_batch",
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=20,
)
def play_batch(self: Task, tournament_id: str, indices: list[int]) -> int:
    began = time.monotonic()
    store = store_for(self.app)
    if patiently(store.is_cancelled, tournament_id):
        return 0
    spec, matches = patiently(tournament_plan, store, tournament_id)
    patiently(store.mark_running, tournament_id)
    stored = patiently(store.stored_indices, tournament_id, indices)
    todo = [i for i in indices if i not in stored]
    ids = {"tournament": tournament_id}
    redelivered = (self.request.delivery_info or {}).get("redelivered", False)
    if 0 in todo and not redelivered:  # the batch holding the schedule's first match starts it
        metrics.tournament_started(spec.game)
        log.info("tournament started", extra={**ids, "game": spec.game, "matches": len(matches)})
    log.debug("batch started", extra={**ids, "matches": len(todo)})
    pending: list[tuple[int, MatchRecord]] = []
    flushed = checked = time.monotonic()
    played = 0
    for index in todo:
        # Checked between matches, but not before every instant match (a round trip each).
        if time.monotonic() - checked >= CANCEL_CHECK_SECONDS:
            if patiently(store.is_cancelled, tournament_id):
                break
            checked = time.monotonic()
        match = matches[index]
        try:
            with bot_leases(store, spec, match, spec.bot_concurrency), metrics.match_running(spec.game):
                # The runner polls the cancel flag during the match too: a cancel ends even a
                # match whose bots are slow or hostile within about a second.
                record = play_scheduled(spec, match, make_player, cancelled=lambda: store.is_cancelled(tournament_id))
        except MatchCancelled:
            log.info("match cancelled", extra={**ids, "match": match.match_id})
            break
        metrics.observe_record(record, count_start=False)
        log_failures(log, record, tournament_id)
        pending.append((index, record))
        played += 1
        if time.monotonic() - flushed >= FLUSH_SECONDS:
            _flush(store, tournament_id, spec.game, pending)
            flushed = time.monotonic()
    _flush(store, tournament_id, spec.game, pending)
    seconds = time.monotonic() - began
    metrics.BATCH_DURATION.labels(spec.game).observe(seconds)
    log.info("batch done", extra={**ids, "played": played, "seconds": round(seconds, 3)})
    return played


def _flush(store: Store, tournament_id: str, game: str, pending: list[tuple[int, MatchRecord]]) -> None:
    if not pending:
        return
    results = patiently(store.store_matches, tournament_id, list(pending))
    pending.clear()
    metrics.matches_stored(game, sum(r.new for r in results))
    if any(r.finalize for r in results):
        finalize.delay(tournament_id)


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
    finalize_tournament(store, tournament_id)


def finalize_tournament(store: Store, tournament_id: str) -> dict[str, Any]:
    spec, matches = tournament_plan(store, tournament_id)
    records = store.matches(tournament_id)
    board = leaderboard.build(spec, records)
    board["tournament"] = tournament_id
    board["scheduled"] = len(matches)
    store.save_leaderboard(tournament_id, board)
    cancelled = store.is_cancelled(tournament_id)
    status = "cancelled" if cancelled else ("complete" if len(records) == len(matches) else "stopped")
    if status == "complete":
        store.add_game_tournament(spec.game, tournament_id)
        store.save_game_leaderboard(spec.game, game_leaderboard(store, spec.game))
    store.expire_matches(tournament_id)
    # Last: once a tournament reads complete, every result of it is in place.
    store.set_status(tournament_id, status, finished=time.time())
    metrics.tournament_finished(spec.game, status)
    log.info("tournament finished", extra={"tournament": tournament_id, "status": status, "matches": len(records)})
    return board


def game_leaderboard(store: Store, game: str) -> dict[str, Any]:
    """Ratings of every bot of a game over all its completed tournaments (one fit)."""
    boards = []
    for tournament_id in store.game_tournaments(game):
        records = store.matches(tournament_id)
        if records:
            boards.append((store.spec(tournament_id), records))
    return leaderboard.across(game, boards)


@worker_process_shutdown.connect
def _process_exited(pid: int | None = None, **_: Any) -> None:
    metrics.process_exited(pid or os.getpid())


@shared_task(bind=True, name="arena.noop_batch")
def noop_batch(self: Task, counter: str, indices: list[int]) -> None:
    """A batch that does nothing but count itself: the Celery baseline of bench/bench_celery.py."""
    store_for(self.app).redis.incrby(counter, len(indices))
