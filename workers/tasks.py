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

import asyncio
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
from arena.logs import log_failures
from arena.record import MatchRecord
from arena.runner import MatchCancelled, PlayerFailure
from arena.tournament import MatchSpec, TournamentSpec, groups_of, match_at, play_scheduled, schedule_size
from referee import metrics
from referee.hosted import versions as hosted_versions
from referee.players import make_player
from referee.remote import is_remote
from referee.store import Store

FLUSH_SECONDS = 0.2
CANCEL_CHECK_SECONDS = 0.25  # a cancelled tournament stops within this (plus the match in play)
LEASE_SECONDS = float(os.environ.get("ARENA_LEASE_SECONDS", "60"))
LEASE_POLL_SECONDS = 0.05
STORE_PATIENCE_SECONDS = 300.0
MAX_BATCH = 200
MATCH_SECONDS = float(os.environ.get("ARENA_MATCH_SECONDS", "3600"))
"""The longest a worker holds one match. The clock maxima (referee.service: decision 60 s, bank
600 s, grace 10 s, start-up 60 s) let one decision take at most 670 s and the start 60 s; an
hour is room for five such decisions, far beyond any healthy bot. Past it, every remote seat
still asked gets a ``timeout`` at once, so the match ends (played out by substitutes)."""

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


class Plan:
    """A tournament's schedule as a worker needs it: the groups of one repeat (never the whole
    list of up to 200,000 matches); any match is computed from its index."""

    def __init__(self, spec: TournamentSpec) -> None:
        self.spec = spec
        self.groups = groups_of(spec)
        self.total = schedule_size(spec)

    def __getitem__(self, index: int) -> MatchSpec:
        return match_at(self.spec, self.groups, index)

    def __len__(self) -> int:
        return self.total


@lru_cache(maxsize=16)
def _plan(tournament_id: str, spec_json: str) -> Plan:
    return Plan(TournamentSpec.from_json(json.loads(spec_json)))


def tournament_plan(store: Store, tournament_id: str) -> tuple[TournamentSpec, Plan]:
    raw = store.redis.hget(store.key("t", tournament_id), "spec")
    if raw is None:
        raise KeyError(f"no tournament {tournament_id}")
    plan = _plan(tournament_id, raw.decode())
    return plan.spec, plan


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
        _finalize_cancelled(store, tournament_id)
        return 0
    spec, matches = patiently(tournament_plan, store, tournament_id)
    patiently(store.mark_running, tournament_id)
    stored = patiently(store.stored_indices, tournament_id, indices)
    todo = [i for i in indices if i not in stored]
    ids = {"tournament": tournament_id}
    hosted_versions.playing(tournament_id)  # hosted seats keep their logs under this tournament
    redelivered = (self.request.delivery_info or {}).get("redelivered", False)
    if 0 in todo and not redelivered:  # the batch holding the schedule's first match starts it
        metrics.tournament_started(spec.game)
        log.info("tournament started", extra={**ids, "game": spec.game, "matches": len(matches)})
    log.debug("batch started", extra={**ids, "matches": len(todo)})
    pending: list[tuple[int, MatchRecord]] = []
    flushed = checked = time.monotonic()
    played = failures = 0
    cancelled = False
    for index in todo:
        # Checked between matches, but not before every instant match (a round trip each).
        if time.monotonic() - checked >= CANCEL_CHECK_SECONDS:
            if patiently(store.is_cancelled, tournament_id):
                cancelled = True
                break
            checked = time.monotonic()
        match = matches[index]
        try:
            with bot_leases(store, spec, match, spec.bot_concurrency), metrics.match_running(spec.game):
                # The runner polls the cancel flag during the match too: a cancel ends even a
                # match whose bots are slow or hostile within about a second.
                record = play_scheduled(
                    spec, match, bounded_players(MATCH_SECONDS), cancelled=lambda: store.is_cancelled(tournament_id)
                )
        except MatchCancelled:
            log.info("match cancelled", extra={**ids, "match": match.match_id})
            break
        metrics.observe_record(record, count_start=False)
        log_failures(log, record, tournament_id)
        failures += len(record.failures)
        pending.append((index, record))
        played += 1
        if time.monotonic() - flushed >= FLUSH_SECONDS:
            _flush(store, tournament_id, spec.game, pending)
            flushed = time.monotonic()
    _flush(store, tournament_id, spec.game, pending)
    if cancelled:
        _finalize_cancelled(store, tournament_id)
    seconds = time.monotonic() - began
    metrics.BATCH_DURATION.labels(spec.game).observe(seconds)
    # The one INFO line of a batch (bot failures are DEBUG lines; their count is here).
    log.info(
        "batch done",
        extra={**ids, "played": played, "failures": failures, "cancelled": cancelled, "seconds": round(seconds, 3)},
    )
    return played


def bounded_players(seconds: float) -> Callable[[str, str], Any]:
    """A player factory for one match: remote players that stop waiting when the match has run
    ``seconds`` (from now)."""
    deadline = time.monotonic() + seconds

    def make(bot: str, game_id: str) -> Any:
        player = make_player(bot, game_id)
        return _Bounded(player, deadline, seconds) if hasattr(player, "start_async") else player

    return make


class _Bounded:
    """A remote player whose every wait ends at the match's deadline with a ``timeout``."""

    def __init__(self, player: Any, deadline: float, seconds: float) -> None:
        self._player = player
        self._deadline = deadline
        self._seconds = seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(self._player, name)

    async def _within(self, call: Any) -> Any:
        remaining = self._deadline - time.monotonic()
        try:
            if remaining <= 0:
                call.close()  # never started: nothing to wait for
                raise TimeoutError
            return await asyncio.wait_for(call, remaining)
        except TimeoutError:
            raise PlayerFailure(
                "timeout", f"the match ran past the workers' bound of {self._seconds:g} s (ARENA_MATCH_SECONDS)"
            ) from None

    async def start_async(self, message: Any) -> Any:
        return await self._within(self._player.start_async(message))

    async def begin_decide_async(self, request: Any) -> Any:
        return await self._within(self._player.begin_decide_async(request))

    async def end_decide_async(self, request: Any) -> Any:
        return await self._within(self._player.end_decide_async(request))


def _finalize_cancelled(store: Store, tournament_id: str) -> None:
    """A cancelled tournament has no last store to finalise it: the first batch that sees the
    cancel does (once). Nothing is stored after a cancel, so its leaderboard is final."""
    if patiently(store.claim_finalize, tournament_id):
        finalize_tournament(store, tournament_id)


@shared_task(
    bind=True,
    name="arena.fan_out",
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=20,
)
def fan_out(self: Task, tournament_id: str, size: int = 0) -> int:
    """Enqueue a stored tournament's batches (the referee service sends only this one message,
    so creating a tournament costs the same whatever its size). A redelivery goes on from the
    last batch it enqueued (``enqueued`` in the tournament's hash); batches are idempotent, so
    the one batch that may go twice plays nothing twice."""
    store = store_for(self.app)
    spec, plan = patiently(tournament_plan, store, tournament_id)
    total = len(plan)
    size = size or auto_batch_size(spec, total)
    count = -(-total // size)
    key = store.key("t", tournament_id)
    patiently(store.redis.hset, key, "batches", count)
    first = int(patiently(store.redis.hget, key, "enqueued") or 0)
    for batch in range(first, count):
        if batch % 50 == 0 and patiently(store.is_cancelled, tournament_id):
            _finalize_cancelled(store, tournament_id)
            break
        indices = list(range(batch * size, min(total, (batch + 1) * size)))
        self.app.send_task("arena.play_batch", args=[tournament_id, indices])
        patiently(store.redis.hset, key, "enqueued", batch + 1)
    return count


def auto_batch_size(spec: TournamentSpec, matches: int) -> int:
    """One match per batch with remote bots (a match can take minutes; a redelivery after a
    dead worker should repeat little); else ``ceil(matches / 32)``, at most ``MAX_BATCH``."""
    if any(is_remote(spec.address(bot)) for bot in spec.bots):
        return 1
    return max(1, min(MAX_BATCH, -(-matches // 32)))


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
    cancelled = store.is_cancelled(tournament_id)
    board = leaderboard.build(spec, records)
    board["tournament"] = tournament_id
    board["scheduled"] = len(matches)
    wanted = "complete" if len(records) == len(matches) and not cancelled else "stopped"
    if cancelled:
        # A cancel is final (the store takes no record after it): this is the board of what was
        # played, and says so. A run stopped by its SPRT has the status stopped already.
        current = (store.tournament(tournament_id) or {}).get("status")
        board["status"] = current if current in ("cancelled", "stopped") else "cancelled"
    else:
        board["status"] = wanted
    store.save_leaderboard(tournament_id, board)
    if board["status"] == "complete":
        store.add_game_tournament(spec.game, tournament_id)
        store.save_game_leaderboard(spec.game, game_leaderboard(store, spec.game))
    store.expire_matches(tournament_id)
    # Last: once a tournament reads complete, every result of it is in place.
    status = store.finish(tournament_id, wanted) or wanted
    if status != board["status"]:  # a cancel landed while finalising: the board says so too
        board["status"] = status
        store.save_leaderboard(tournament_id, board)
    metrics.tournament_finished(spec.game, status)
    log.info("tournament finished", extra={"tournament": tournament_id, "status": status, "matches": len(records)})
    return board


def game_leaderboard(store: Store, game: str) -> dict[str, Any]:
    """Ratings of every bot of a game over all its completed tournaments (one fit), with each
    bot's results: wins/draws/losses of its 2-player matches, mean rank and mean score."""
    boards = []
    for tournament_id in store.game_tournaments(game):
        records = store.matches(tournament_id)
        if records:
            boards.append((store.spec(tournament_id), records))
    board = leaderboard.across(game, boards)
    tallies: dict[str, dict[str, float]] = {}
    for _, records in boards:
        for record in records:
            ranks, scores = record.result["ranks"], record.result["scores"]
            for seat, entry in enumerate(record.seats):
                tally = tallies.setdefault(entry["bot"], dict.fromkeys(("n", "rank", "score", "w", "d", "l"), 0.0))
                tally["n"] += 1
                tally["rank"] += ranks[seat]
                tally["score"] += float(scores[seat])
                if len(ranks) == 2:
                    other = ranks[1 - seat]
                    tally["w" if ranks[seat] < other else "d" if ranks[seat] == other else "l"] += 1
    for row in board.get("leaderboard", []):
        counted = tallies.get(row["bot"])
        if counted and counted["n"]:
            row.update(
                wins=int(counted["w"]),
                draws=int(counted["d"]),
                losses=int(counted["l"]),
                mean_rank=round(counted["rank"] / counted["n"], 3),
                mean_score=round(counted["score"] / counted["n"], 3),
            )
    return board


@worker_process_shutdown.connect
def _process_exited(pid: int | None = None, **_: Any) -> None:
    metrics.process_exited(pid or os.getpid())


@shared_task(bind=True, name="arena.noop_batch")
def noop_batch(self: Task, counter: str, indices: list[int]) -> None:
    """A batch that does nothing but count itself: the Celery baseline of bench/bench_celery.py."""
    store_for(self.app).redis.incrby(counter, len(indices))
