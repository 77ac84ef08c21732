"""The Celery executor: the same interface as the local one, matches played by Celery workers.

``run(spec, matches, on_record)`` records the tournament in the store, enqueues its matches in
batches and follows the store's event stream, handing each stored record to ``on_record`` as
it lands (the local output directory fills exactly as in a local run). It never waits on
Celery results (their polling is slow and scales badly): progress is the store's own.

Attaching to a tournament that already exists in the store (same id: a resumed run) enqueues
nothing new: its batches are already queued or done.

Batch size: with remote bots one match per batch (a match can take minutes; redelivery after a
dead worker should repeat little); with built-in bots ``ceil(matches / 32)`` capped at 200, so
a batch runs long enough to dwarf the ~3 ms a Celery task costs and there are still enough
batches to spread over the workers. ``--batch-size`` overrides.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from celery import Celery

from arena.executor import OnRecord
from arena.tournament import MatchSpec, TournamentSpec, schedule
from referee.remote import is_remote
from referee.store import Store
from workers.app import make_app
from workers.tasks import patiently

MAX_BATCH = 200


def auto_batch_size(spec: TournamentSpec, matches: int) -> int:
    if any(is_remote(spec.address(bot)) for bot in spec.bots):
        return 1
    return max(1, min(MAX_BATCH, math.ceil(matches / 32)))


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


class CeleryExecutor:
    def __init__(
        self,
        broker_url: str,
        tournament_id: str,
        *,
        batch_size: int | None = None,
        visibility_timeout: int | None = None,
        block_ms: int = 500,
    ) -> None:
        self.store = Store(broker_url)
        self.app = make_app(broker_url, visibility_timeout=visibility_timeout)
        self.tournament_id = tournament_id
        self.batch_size = batch_size
        self.block_ms = block_ms

    def run(self, spec: TournamentSpec, matches: Sequence[MatchSpec], on_record: OnRecord) -> None:
        total = len(schedule(spec))
        if patiently(self.store.create_tournament, self.tournament_id, spec, total, 0):
            enqueue(self.app, self.store, self.tournament_id, spec, [m.index for m in matches], self.batch_size)
        self.follow({m.index for m in matches}, on_record)

    def follow(self, wanted: set[int], on_record: OnRecord) -> None:
        """Hand over each wanted record as it is stored; return when all are in, or the
        tournament was cancelled and nothing more arrives."""
        cursor = "0"
        quiet_since = time.monotonic()
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
            elif time.monotonic() - quiet_since > 2.0 and patiently(self.store.is_cancelled, self.tournament_id):
                return  # cancelled, and the batches in flight have had time to store their match
