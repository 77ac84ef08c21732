"""Prometheus metrics of every Arena process, each defined once, here.

Match, decision and failure metrics are derived from finished match records
(:func:`observe_record`), so a local run, a Celery worker and the referee service count the
same way. Labels are bounded; the cardinality of each metric is in the last column (G games,
B bots on a game's leaderboard, T tournaments queued or running, M methods of the gRPC service):

=========================================== ========= ================================== =====
metric                                      type      labels                             series
=========================================== ========= ================================== =====
arena_matches_started_total                 counter   game                               G
arena_matches_finished_total                counter   game, outcome (complete, forfeit)  2G
arena_matches_in_progress                   gauge     game (livesum over processes)      G
arena_match_duration_seconds                histogram game                               G
arena_decisions_total                       counter   game, player_kind (in_process,     2G
                                                      remote: gRPC and hosted bots)
arena_decision_duration_seconds             histogram game, player_kind                  2G
arena_bot_failures_total                    counter   game, verdict (arena.runner        6G
                                                      VERDICTS)
arena_matches_stored_total                  counter   game (throughput: rate() it)       G
arena_tournaments_started_total             counter   game                               G
arena_tournaments_finished_total            counter   game, status (complete, stopped,   4G
                                                      cancelled, interrupted)
arena_worker_batch_duration_seconds         histogram game                               G
arena_rating, arena_rating_ci_low,          gauge     game, bot (the leaderboard's       <= 100
arena_rating_ci_high                                  RATED_BOTS best)                   a game
grpc_server_started_total                   counter   grpc_type, grpc_service,           M
                                                      grpc_method
grpc_server_handled_total                   counter   ... and grpc_code                  17M
grpc_server_handling_seconds                histogram grpc_type, grpc_service,           M
                                                      grpc_method
=========================================== ========= ================================== =====

Read when scraped (collectors, never stored in a process):

=========================================== ========= ================================== =====
arena_tournaments_active                    gauge     (none)                             1
arena_tournament_matches_done,              gauge     tournament, game (a series goes    T
arena_tournament_matches_scheduled                    when its tournament ends)
arena_queue_batches_waiting                 gauge     (none): LLEN of Celery's queue     1
arena_queue_batches_in_flight               gauge     (none): Celery's ``unacked`` hash  1
arena_store_up                              gauge     (none): 1 if Redis answered        1
arena_workers_alive                         gauge     (none): worker nodes that said     1
                                                      they were alive within their time
=========================================== ========= ================================== =====

Exposure: a single-process program (the referee service, a local ``arena tournament``) serves
the default registry with :func:`start_metrics_server`. A Celery worker node runs in
multiprocess mode: ``arena worker`` sets ``PROMETHEUS_MULTIPROC_DIR`` before anything imports
prometheus_client, its prefork children write their values there, and the main process serves
them all (:func:`start_metrics_server` then reads the directory). Nothing here creates a gRPC
object, a connection or a thread at import.

Counting never fails the work it counts: a value that cannot be written (the multiprocess
directory removed under a running worker made every batch of a new pool process fail, and its
tournament never ended) is logged, at most once a minute per process, and the work goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import glob
import inspect
import json
import logging
import math
import os
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec

import grpc
import grpc.aio
import redis
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from arena.record import MatchRecord
from arena.runner import VERDICTS
from arena.tournament_run import Progress
from referee.remote import is_remote
from referee.store import Store

log = logging.getLogger(__name__)

P = ParamSpec("P")

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
UNACKED = "unacked"  # kombu's Redis transport: the hash of delivered, unacknowledged messages

# Buckets: steps of 2-2.5x (1, 2.5, 5, 10, ...), so a quantile falls in a narrow bucket. In-process
# decisions take from the record's resolution (1 µs) to milliseconds: with 10 µs the lowest
# bucket, it held half of them (a median read anywhere in 0-10 µs); remote ones take
# milliseconds up to the clock's longest limit (60 s). Matches and batches run from a fraction
# of a millisecond (a Roll Dice match: 0.3 ms) to an hour.
DECISION_BUCKETS = (
    *(1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4),
    *(1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60),
)
MATCH_BUCKETS = (
    *(2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5),
    *(1, 2.5, 5, 10, 25, 60, 150, 300, 600, 1500, 3600),
)
RPC_BUCKETS = (1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)

MATCHES_STARTED = Counter("arena_matches_started", "Matches started.", ["game"])
MATCHES_FINISHED = Counter("arena_matches_finished", "Matches finished, by outcome.", ["game", "outcome"])
MATCHES_IN_PROGRESS = Gauge(
    "arena_matches_in_progress", "Matches being played now.", ["game"], multiprocess_mode="livesum"
)
MATCH_DURATION = Histogram("arena_match_duration_seconds", "Wall time of a match.", ["game"], buckets=MATCH_BUCKETS)
DECISIONS = Counter("arena_decisions", "Decisions answered by bots.", ["game", "player_kind"])
DECISION_DURATION = Histogram(
    "arena_decision_duration_seconds",
    "Time a bot took to answer a decision (measured by the referee).",
    ["game", "player_kind"],
    buckets=DECISION_BUCKETS,
)
BOT_FAILURES = Counter("arena_bot_failures", "Bot failures, by verdict.", ["game", "verdict"])
MATCHES_STORED = Counter("arena_matches_stored", "Match records stored (each once).", ["game"])
TOURNAMENTS_STARTED = Counter("arena_tournaments_started", "Tournaments started.", ["game"])
TOURNAMENTS_FINISHED = Counter("arena_tournaments_finished", "Tournaments ended, by status.", ["game", "status"])
BATCH_DURATION = Histogram(
    "arena_worker_batch_duration_seconds", "Wall time of a worker's batch of matches.", ["game"], buckets=MATCH_BUCKETS
)
RATING = Gauge("arena_rating", "Published rating (Elo scale).", ["game", "bot"], multiprocess_mode="mostrecent")
RATING_LOW = Gauge(
    "arena_rating_ci_low", "Lower bound of the rating's 95% interval.", ["game", "bot"], multiprocess_mode="mostrecent"
)
RATING_HIGH = Gauge(
    "arena_rating_ci_high", "Upper bound of the rating's 95% interval.", ["game", "bot"], multiprocess_mode="mostrecent"
)
_RPC = ["grpc_type", "grpc_service", "grpc_method"]
RPC_STARTED = Counter("grpc_server_started", "RPCs started on the server.", _RPC)
RPC_HANDLED = Counter("grpc_server_handled", "RPCs completed on the server, by status code.", [*_RPC, "grpc_code"])
RPC_DURATION = Histogram(
    "grpc_server_handling_seconds", "Time to handle an RPC, to its last message.", _RPC, buckets=RPC_BUCKETS
)


OUTCOMES = ("complete", "forfeit")
PLAYER_KINDS = ("in_process", "remote")
STATUSES = ("complete", "stopped", "cancelled", "interrupted")


def multiprocess() -> bool:
    return bool(os.environ.get(MULTIPROC_ENV))


def initialize(games: Iterable[str]) -> None:
    """Create the counters of these games at 0: a series that appears at 1 hides its first
    event from rate() and increase() (a bot's first failure, a node's first tournament)."""
    for game in games:
        for counter in (MATCHES_STARTED, MATCHES_STORED, TOURNAMENTS_STARTED):
            counter.labels(game)
        for outcome in OUTCOMES:
            MATCHES_FINISHED.labels(game, outcome)
        for kind in PLAYER_KINDS:
            DECISIONS.labels(game, kind)
        for verdict in VERDICTS:
            BOT_FAILURES.labels(game, verdict)
        for status in STATUSES:
            TOURNAMENTS_FINISHED.labels(game, status)


# -- matches -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def player_kind(address: str) -> str:
    """How a seat's bot answers, from what it plays: ``remote`` for a gRPC address and for a
    hosted bot (its sandbox answers over a socket), else ``in_process``."""
    return "remote" if is_remote(address) or address.startswith("hosted:") else "in_process"


@functools.cache
def _child(metric: Any, *labels: str) -> Any:
    """``metric.labels(*labels)``, looked up once per process: a worker counts every instant
    match (a few µs a call, several calls a match, against a match of under 200 µs). A child
    stays valid across a fork (the multiprocess values notice a new pid themselves)."""
    return metric.labels(*labels)


_counting = True


def stop_counting() -> None:
    """This process serves no ``/metrics`` (``arena worker --metrics-port 0``): it counts no
    matches, decisions or failures (nobody could read them, and counting costs an instant match
    about a tenth of its time)."""
    global _counting
    _counting = False


FAILURE_LOG_SECONDS = 60.0
_checked_pid = 0
_failure_logged: float | None = None


def _ensure_directory() -> None:
    """Once per process, before its first value: the multiprocess directory exists. A process
    creates its files at its first value; in a directory removed since the node started (a tmp
    cleaner, an operator) that raised FileNotFoundError in every batch of every new pool
    process, and left the process unable to count even once the directory was back."""
    global _checked_pid
    pid = os.getpid()
    if pid != _checked_pid:
        directory = os.environ.get(MULTIPROC_ENV)
        if directory:
            os.makedirs(directory, mode=0o700, exist_ok=True)  # private, as arena worker makes it
        _checked_pid = pid


def _count_failed(exc: Exception) -> None:
    """A value could not be written: say so (at most once a minute per process); the work
    it counts goes on."""
    global _failure_logged
    now = time.monotonic()
    if _failure_logged is None or now - _failure_logged >= FAILURE_LOG_SECONDS:
        _failure_logged = now
        log.error(
            "metrics: cannot count, the work goes on uncounted: %s: %s",
            type(exc).__name__,
            exc,
            extra={"directory": os.environ.get(MULTIPROC_ENV)},
        )


def _never_fails(count: Callable[P, None]) -> Callable[P, None]:
    @functools.wraps(count)
    def counted(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            _ensure_directory()
            count(*args, **kwargs)
        except Exception as exc:
            _count_failed(exc)

    return counted


class _Running:
    __slots__ = ("gauge",)

    def __init__(self, game: str) -> None:
        _ensure_directory()
        self.gauge = _child(MATCHES_IN_PROGRESS, game)
        _child(MATCHES_STARTED, game).inc()

    def __enter__(self) -> None:
        try:
            self.gauge.inc()
        except Exception as exc:
            _count_failed(exc)

    def __exit__(self, *exc: object) -> None:
        try:
            self.gauge.dec()
        except Exception as error:
            _count_failed(error)


_NOT_COUNTED = contextlib.nullcontext()


def match_running(game: str) -> contextlib.AbstractContextManager[None]:
    """Counts a match as started, and in progress while the block runs."""
    if not _counting:
        return _NOT_COUNTED
    try:
        return _Running(game)
    except Exception as exc:
        _count_failed(exc)
        return _NOT_COUNTED


@_never_fails
def observe_record(
    record: MatchRecord, *, count_start: bool = True, address: Callable[[str], str] | None = None
) -> None:
    """Count a finished match from its record: its outcome and wall time, every decision a bot
    answered (substitutes' are not the bot's) and every failure. ``count_start=False`` when
    :func:`match_running` counted its start already. ``address`` gives what a seat's name plays
    (``TournamentSpec.address``: a registered bot's name -> its endpoint), which says its player
    kind; without it the name is taken for the address (a local run names remote bots by them)."""
    if not _counting:
        return
    game = record.game
    if count_start:
        _child(MATCHES_STARTED, game).inc()
    _child(MATCHES_FINISHED, game, "forfeit" if any(record.forfeited) else "complete").inc()
    _child(MATCH_DURATION, game).observe(record.ms / 1000)
    names = [seat["bot"] for seat in record.seats]
    kinds = [player_kind(address(name) if address else name) for name in names]
    timers = [_child(DECISION_DURATION, game, kind) for kind in kinds]
    answered = [0] * len(timers)
    for decision in record.decisions:
        if decision.by == "bot":
            timers[decision.seat].observe(decision.ms / 1000)
            answered[decision.seat] += 1
    for seat, count in enumerate(answered):
        if count:
            _child(DECISIONS, game, kinds[seat]).inc(count)
    for failure in record.failures:
        _child(BOT_FAILURES, game, failure.verdict).inc()


@_never_fails
def matches_stored(game: str, count: int) -> None:
    if count:
        MATCHES_STORED.labels(game).inc(count)


@_never_fails
def batch_finished(game: str, seconds: float) -> None:
    """A worker's batch took ``seconds`` of wall time."""
    _child(BATCH_DURATION, game).observe(seconds)


# -- tournaments -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TournamentProgress:
    tournament: str
    game: str
    done: int
    scheduled: int


def tournament_metrics(rows: Iterable[TournamentProgress]) -> list[Metric]:
    rows = list(rows)
    active = GaugeMetricFamily("arena_tournaments_active", "Tournaments queued or running.", value=len(rows))
    labels = ["tournament", "game"]
    done = GaugeMetricFamily("arena_tournament_matches_done", "Matches done in a running tournament.", labels=labels)
    scheduled = GaugeMetricFamily(
        "arena_tournament_matches_scheduled", "Matches scheduled in a running tournament.", labels=labels
    )
    for row in rows:
        done.add_metric([row.tournament, row.game], row.done)
        scheduled.add_metric([row.tournament, row.game], row.scheduled)
    return [active, done, scheduled]


class FollowedTournament:
    """Metrics of the one tournament this process follows (``arena tournament``): its progress
    gauges while it runs, and, when this process plays it (``plays``: a local run), every record
    and its start and end. A distributed run's client counts no records: its workers do.

    Register it with :meth:`start`, feed it ``Progress`` updates, end it with :meth:`close`."""

    def __init__(self, tournament_id: str, game: str, *, plays: bool, registry: CollectorRegistry = REGISTRY) -> None:
        self.tournament_id = tournament_id
        self.game = game
        self.plays = plays
        self.registry = registry
        self.row: TournamentProgress | None = None
        self.last: MatchRecord | None = None

    def start(self) -> None:
        self.registry.register(self)
        if self.plays:
            initialize([self.game])
            # A local run counts records as they arrive, not matches as they run: the series
            # still exists, at 0 (a worker's pool processes create theirs when they play; a
            # worker's main process must not, its multiprocess file would outlive it).
            MATCHES_IN_PROGRESS.labels(self.game)
            tournament_started(self.game)

    def describe(self) -> list[Metric]:
        return tournament_metrics([])

    def collect(self) -> list[Metric]:
        return tournament_metrics([self.row] if self.row else [])

    def update(self, progress: Progress) -> None:
        # A local run's records come whole (a distributed one's as views: its workers count them).
        if self.plays and isinstance(progress.last, MatchRecord) and progress.last is not self.last:
            self.last = progress.last
            observe_record(progress.last)
            matches_stored(self.game, 1)
        self.row = TournamentProgress(self.tournament_id, self.game, progress.done, progress.total)

    def close(self, status: str) -> None:
        self.registry.unregister(self)
        if self.plays:
            tournament_finished(self.game, status)


@_never_fails
def tournament_started(game: str) -> None:
    TOURNAMENTS_STARTED.labels(game).inc()


@_never_fails
def tournament_finished(game: str, status: str) -> None:
    TOURNAMENTS_FINISHED.labels(game, status).inc()


class MatchCacheCollector:
    """Reads the referee service's match cache when scraped (``referee.match_cache``): what
    replaying stored matches for their pages costs, and how often the cache spares it."""

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def describe(self) -> list[Metric]:
        return self.collect()

    def collect(self) -> list[Metric]:
        stats = self.cache.stats
        counters = (
            ("arena_match_replays", "Match replays computed (a page or detail not cached).", stats.computed),
            ("arena_match_cache_hits", "Match pages and details served from the cache.", stats.hits),
            ("arena_match_cache_joined", "Requests that waited for a replay already under way.", stats.joined),
            ("arena_match_cache_evictions", "Cached replays dropped for room (oldest use first).", stats.evicted),
            ("arena_match_replays_refused", "Requests refused while every replay slot was taken.", stats.refused),
        )
        found: list[Metric] = [CounterMetricFamily(name, text, value=value) for name, text, value in counters]
        held = GaugeMetricFamily("arena_match_cache_bytes", "Bytes the match cache holds.", value=self.cache.bytes)
        return [*found, held]


SCRAPE_STORE_SECONDS = 3.0
"""How long a scrape waits for the store: well within Prometheus's default scrape timeout (10 s).
With the store's own 30 s a Redis that hung (paused, a host dropping packets) made every scrape
time out: each Arena target read down, arena_store_up was never recorded, and ArenaRefereeDown
fired in place of ArenaStoreDown (an outside metrics probe)."""


class StoreCollector:
    """Reads the store when scraped: the Celery queue's batches waiting and in flight, and the
    tournaments queued or running with their progress. Its own client, which waits at most
    :data:`SCRAPE_STORE_SECONDS` for a reply."""

    def __init__(self, store: Store, queue: str) -> None:
        self.store = Store(store.url, retention_days=store.retention_days, socket_timeout=SCRAPE_STORE_SECONDS)
        self.queue = queue
        self.games: dict[str, str] = {}  # tournament id -> game (a spec never changes)

    def describe(self) -> list[Metric]:
        return [*self._queue(0, 0, 0), self._up(1), self._alive(0), *tournament_metrics([])]

    def collect(self) -> list[Metric]:
        try:
            waiting, in_flight, parked, rows = self._read()
            alive = self.store.workers_alive()
        except redis.RedisError as exc:
            log.warning("metrics: cannot read the store: %s", exc)
            return [self._up(0)]
        return [*self._queue(waiting, in_flight, parked), self._up(1), self._alive(alive), *tournament_metrics(rows)]

    def _read(self) -> tuple[int, int, int, list[TournamentProgress]]:
        client, key = self.store.redis, self.store.key
        pipe = client.pipeline(transaction=False)
        pipe.llen(self.queue)
        pipe.hlen(UNACKED)
        pipe.hlen(key("parked"))
        waiting, in_flight, parked = pipe.execute()
        ids = self.store.active_ids()  # every queued or running tournament, not only recent ones
        pipe = client.pipeline(transaction=False)
        for tournament_id in ids:
            pipe.hmget(key("t", tournament_id), "status", "done", "total")
        active = {
            tournament_id: (int(done or 0), int(total or 0))
            for tournament_id, (status, done, total) in zip(ids, pipe.execute(), strict=True)
            if status in (b"queued", b"running")
        }
        self.games = {t: g for t, g in self.games.items() if t in active}
        for tournament_id in active.keys() - self.games.keys():
            spec = client.hget(key("t", tournament_id), "spec")
            self.games[tournament_id] = json.loads(spec)["game"] if spec else ""
        rows = [TournamentProgress(t, self.games[t], done, total) for t, (done, total) in active.items()]
        return int(waiting), int(in_flight), int(parked), rows

    @staticmethod
    def _queue(waiting: int, in_flight: int, parked: int) -> list[Metric]:
        return [
            GaugeMetricFamily("arena_queue_batches_waiting", "Batches waiting in the Celery queue.", value=waiting),
            GaugeMetricFamily(
                "arena_queue_batches_in_flight", "Batches delivered to workers, not yet acknowledged.", value=in_flight
            ),
            GaugeMetricFamily(
                "arena_tournaments_parked",
                "Tournaments with batches parked for a worker of their game version.",
                value=parked,
            ),
        ]

    @staticmethod
    def _alive(value: int) -> Metric:
        # Tournaments wait forever with none (monitoring/alerts.yml: ArenaNoWorkers).
        return GaugeMetricFamily(
            "arena_workers_alive", "Worker nodes that said they were alive within their time.", value=value
        )

    @staticmethod
    def _up(value: int) -> Metric:
        return GaugeMetricFamily("arena_store_up", "1 if the store (Redis) answered this scrape.", value=value)


# -- ratings -----------------------------------------------------------------------------------

RATED_BOTS = 100
"""Rating series per game: the top of its leaderboard. The leaderboard itself has no bound
(owners name their bots, every setting of a built-in's parameters and every copy number is an
entrant of its own: ``heuristic:threshold=4``, ``random#7``); its series have."""

_rated: dict[str, set[str]] = {}
_rated_lock = threading.Lock()


def set_ratings(game: str, board: Mapping[str, Any]) -> None:
    """Publish a game's leaderboard (``arena.leaderboard.across()``: rows with bot, rating,
    ci_low, ci_high): its ``RATED_BOTS`` best-rated bots; bots no longer among them lose their
    series."""
    rows = sorted(board.get("leaderboard", []), key=lambda row: (-row["rating"], str(row["bot"])))
    with _rated_lock:
        bots = set()
        for row in rows[:RATED_BOTS]:
            bot = str(row["bot"])
            bots.add(bot)
            RATING.labels(game, bot).set(row["rating"])
            # An open end (None: the results set no bound) is -Inf / +Inf, as Prometheus writes them.
            RATING_LOW.labels(game, bot).set(-math.inf if row["ci_low"] is None else row["ci_low"])
            RATING_HIGH.labels(game, bot).set(math.inf if row["ci_high"] is None else row["ci_high"])
        if not multiprocess():  # (series cannot be removed in multiprocess mode)
            for bot in _rated.get(game, set()) - bots:
                for gauge in (RATING, RATING_LOW, RATING_HIGH):
                    gauge.remove(game, bot)
        _rated[game] = bots


# -- gRPC server -------------------------------------------------------------------------------

_RPC_TYPES = {
    (False, False): ("unary", "unary_unary", grpc.unary_unary_rpc_method_handler),
    (False, True): ("server_stream", "unary_stream", grpc.unary_stream_rpc_method_handler),
    (True, False): ("client_stream", "stream_unary", grpc.stream_unary_rpc_method_handler),
    (True, True): ("bidi_stream", "stream_stream", grpc.stream_stream_rpc_method_handler),
}


DEADLINE_SLACK = 0.1
"""A call cancelled with at most this many seconds left of its deadline ended by the deadline."""


def final_code(context: grpc.aio.ServicerContext[Any, Any], error: BaseException | None) -> grpc.StatusCode:
    """The status an RPC ended with: set by ``context.abort`` or ``set_code`` (also when an
    exception follows), UNKNOWN for any other exception, CANCELLED or DEADLINE_EXCEEDED when
    the call was cancelled under the handler."""
    if isinstance(error, (asyncio.CancelledError, GeneratorExit)):
        remaining = context.time_remaining()
        # The server's deadline is the client's, counted from the request's arrival: a client
        # whose deadline passed cancels the call a little before the server's own runs out.
        expired = remaining is not None and remaining <= DEADLINE_SLACK
        return grpc.StatusCode.DEADLINE_EXCEEDED if expired else grpc.StatusCode.CANCELLED
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code
    return grpc.StatusCode.OK if error is None else grpc.StatusCode.UNKNOWN


class _Call:
    def __init__(self, labels: tuple[str, str, str]) -> None:
        self.labels = labels
        self.began = time.perf_counter()
        RPC_STARTED.labels(*labels).inc()

    def end(self, context: grpc.aio.ServicerContext[Any, Any], error: BaseException | None) -> None:
        RPC_DURATION.labels(*self.labels).observe(time.perf_counter() - self.began)
        RPC_HANDLED.labels(*self.labels, final_code(context, error).name).inc()


class MetricsInterceptor(grpc.aio.ServerInterceptor):
    """go-grpc-prometheus's server metrics for a ``grpc.aio`` server: RPCs started, handled by
    status code, and their handling time. Async handlers (coroutines, async generators) are
    counted; a synchronous handler is passed through uncounted."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        grpc_type, attribute, make = _RPC_TYPES[(handler.request_streaming, handler.response_streaming)]
        service, _, method = handler_call_details.method.lstrip("/").rpartition("/")
        behaviour = getattr(handler, attribute)
        wrapped = _timed(behaviour, (grpc_type, service, method))
        if wrapped is None:
            return handler
        return make(
            wrapped,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


def _timed(behaviour: Any, labels: tuple[str, str, str]) -> Any:
    if inspect.isasyncgenfunction(behaviour):

        async def stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            call = _Call(labels)
            try:
                async for response in behaviour(request, context):
                    yield response
            except BaseException as exc:
                call.end(context, exc)
                raise
            call.end(context, None)

        return stream
    if inspect.iscoroutinefunction(behaviour):

        async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            call = _Call(labels)
            try:
                response = await behaviour(request, context)
            except BaseException as exc:
                call.end(context, exc)
                raise
            call.end(context, None)
            return response

        return unary
    return None


# -- serving -----------------------------------------------------------------------------------


class LiveMultiProcessCollector(MultiProcessCollector):
    """The multiprocess collector, which first forgets the live gauges of processes that died
    without saying so (a pool child killed with SIGKILL never runs its shutdown hook), and
    recreates its directory if it was removed (logged: the counts restart). A marker file tells
    a removed directory from the one it left (a directory made again can have its inode)."""

    MARKER = "arena-node.txt"

    def __init__(self, registry: CollectorRegistry, path: str) -> None:
        super().__init__(registry, path)
        self.path = path
        self.marker = os.path.join(path, self.MARKER)
        self.marked = self._mark()

    def _mark(self) -> bool:
        try:
            os.makedirs(self.path, mode=0o700, exist_ok=True)
            with open(self.marker, "w", encoding="utf-8") as marker:
                marker.write(f"metrics of the node whose main process is {os.getpid()}\n")
        except OSError:  # (an unwritable directory: its processes say so when they count)
            return False
        return True

    def collect(self) -> Iterable[Metric]:
        if not self.marked:
            self.marked = self._mark()
        elif not os.path.exists(self.marker):
            log.error(
                "metrics: the directory was removed while this node ran: its counts restart from 0, and "
                "the pool processes that were running count nothing until they are replaced (restart the "
                "worker to count them again); keep the directory out of tmp cleaners",
                extra={"directory": self.path},
            )
            self.marked = self._mark()
        for name in glob.glob(os.path.join(self.path, "gauge_live*_*.db")):
            pid = int(name.rsplit("_", 1)[1].removesuffix(".db"))
            if not _alive(pid):
                mark_process_dead(pid, self.path)
        return super().collect()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    return True


def process_exited(pid: int) -> None:
    """A worker process ended: its live gauges stop counting."""
    if multiprocess():
        mark_process_dead(pid)


def start_metrics_server(port: int, *collectors: Any, addr: str = "127.0.0.1") -> Any:
    """Serve ``/metrics`` on ``port`` from a daemon thread: the default registry, or in
    multiprocess mode every process's values; plus ``collectors`` (read when scraped).
    Binds loopback unless told otherwise (``arena serve --host``, ``arena worker
    --metrics-host``): the metrics name games, bots and tournaments, and are not for the world.
    Returns the HTTP server (``server_port``; ``shutdown()``). OSError if the port is taken."""
    if multiprocess():
        registry = CollectorRegistry()
        LiveMultiProcessCollector(registry, os.environ[MULTIPROC_ENV])
    else:
        registry = REGISTRY
    for collector in collectors:
        registry.register(collector)
    server, _ = start_http_server(port, addr, registry)
    return server
