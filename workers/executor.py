"""The Celery executor: the same interface as the local one, matches played by Celery workers.

``run(spec, matches, on_record)`` records the tournament in the store, enqueues its matches in
batches and follows the store's event stream, handing each stored record to ``on_record`` as
it lands (the local output directory fills exactly as in a local run). It never waits on
Celery results (their polling is slow and scales badly): progress is the store's own.

Attaching to a tournament that already exists in the store (same id: a resumed run) enqueues
nothing new: its batches are already queued or done.

Lost batches. Kombu's Redis transport pops a message and then records it as unacknowledged in
two steps; if Redis goes away between them, the batch is neither queued, nor in flight, nor
done, and nothing would ever play it. :func:`requeue_missing` is the safety net: when a
tournament has made no progress for a while and none of its batches is waiting or in flight,
its unstored matches are enqueued again (storing is idempotent, so this can never count a match
twice). The following client runs it after ``stall_seconds`` without progress; the referee
service runs it for every tournament it sees stalled.

Batch size: with remote bots one match per batch (a match can take minutes; redelivery after a
dead worker should repeat little); with built-in bots ``ceil(matches / 32)`` capped at 200, so
a batch runs long enough to dwarf the ~3 ms a Celery task costs and there are still enough
batches to spread over the workers. ``--batch-size`` overrides.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from celery import Celery

from arena.executor import OnRecord
from arena.tournament import MatchSpec, TournamentSpec, schedule_size
from referee.store import Store
from workers.app import QUEUE, make_app
from workers.tasks import MAX_BATCH, auto_batch_size, patiently  # noqa: F401 (MAX_BATCH: re-exported)

UNACKED = "unacked"  # kombu's Redis transport: delivered, not yet acknowledged messages


def batches(indices: Sequence[int], size: int) -> list[list[int]]:
    return [list(indices[i : i + size]) for i in range(0, len(indices), size)]


def enqueue(
    app: Celery, store: Store, tournament_id: str, spec: TournamentSpec, indices: Sequence[int], size: int | None = None
) -> int:
    """Send a stored tournament's matches to the workers in batches; returns the batch count."""
    work = batches(indices, size or auto_batch_size(spec, len(indices)))
    patiently(store.redis.hset, store.key("t", tournament_id), "batches", len(work))
    for batch in work:
        app.send_task("arena.play_batch", args=[tournament_id, batch])
    return len(work)


def batches_in_flight(store: Store, tournament_id: str) -> bool:
    """Whether a batch of this tournament waits in the queue or is delivered and unacknowledged.

    Celery puts ``repr(args)`` in each message's ``argsrepr`` header, so the tournament id
    appears in the raw message text."""
    needle = tournament_id.encode()
    client = store.redis
    return any(needle in raw for raw in client.lrange(QUEUE, 0, -1)) or any(
        needle in raw for raw in client.hvals(UNACKED)
    )


def requeue_missing(app: Celery, store: Store, tournament_id: str, *, settle: float = 2.0) -> int:
    """Enqueue again the unstored matches of a running tournament none of whose batches is
    queued or in flight (lost, see the module docstring); returns how many. Checks twice,
    ``settle`` seconds apart, so a batch between pop and bookkeeping is not mistaken for lost."""
    info = store.tournament(tournament_id)
    if info is None or info["status"] not in ("queued", "running") or info["cancelled"]:
        return 0
    for attempt in range(2):
        if batches_in_flight(store, tournament_id):
            return 0
        if attempt == 0:
            time.sleep(settle)
    spec = store.spec(tournament_id)
    stored = {int(k) for k in store.redis.hkeys(store.key("t", tournament_id, "matches"))}
    missing = [i for i in range(info["total"]) if i not in stored]
    if missing:
        enqueue(app, store, tournament_id, spec, missing)
    return len(missing)


class CeleryExecutor:
    def __init__(
        self,
        broker_url: str,
        tournament_id: str,
        *,
        batch_size: int | None = None,
        visibility_timeout: int | None = None,
        block_ms: int = 500,
        stall_seconds: float = 30.0,
    ) -> None:
        self.store = Store(broker_url)
        self.app = make_app(broker_url, visibility_timeout=visibility_timeout)
        self.tournament_id = tournament_id
        self.batch_size = batch_size
        self.block_ms = block_ms
        self.stall_seconds = stall_seconds
        self.cancelled = False
        """Set when the run ended because the tournament was cancelled (run_tournament reads it)."""

    def run(self, spec: TournamentSpec, matches: Sequence[MatchSpec], on_record: OnRecord) -> None:
        total = schedule_size(spec)
        if patiently(self.store.create_tournament, self.tournament_id, spec, total, 0):
            enqueue(self.app, self.store, self.tournament_id, spec, [m.index for m in matches], self.batch_size)
        self.follow({m.index for m in matches}, on_record)

    def follow(self, wanted: set[int], on_record: OnRecord) -> None:
        """Hand over each wanted record as it is stored; return when all are in, or the
        tournament was cancelled and nothing more arrives."""
        cursor = "0"
        quiet_since = checked = time.monotonic()
        while wanted:
            cursor, indices = patiently(self.store.follow, self.tournament_id, cursor, self.block_ms)
            fresh = [i for i in indices if i in wanted]
            wanted.difference_update(fresh)
            for record in patiently(self.store.matches_at, self.tournament_id, fresh):
                if on_record(record):
                    patiently(self.store.stop, self.tournament_id)
                    return
            if indices:
                quiet_since = time.monotonic()
                continue
            now = time.monotonic()
            if now - quiet_since > 2.0 and patiently(self.store.is_cancelled, self.tournament_id):
                # Cancelled (nothing is stored after a cancel): the records so far are final.
                info = patiently(self.store.tournament, self.tournament_id) or {}
                self.cancelled = info.get("status") == "cancelled"
                return
            if now - quiet_since > self.stall_seconds and now - checked > self.stall_seconds:
                checked = now
                patiently(requeue_missing, self.app, self.store, self.tournament_id)
