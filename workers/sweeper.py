"""The stall check's sweeper: sends again the lost batches of every tournament that stopped moving.

A tournament whose ``done`` has not changed for ``stall`` seconds is checked with
:func:`workers.executor.requeue_missing` (its window's own keys: O(window)), at most once per
``stall`` seconds, by one sweeper of all those running on the store: each takes the tournament's
claim (``sweep:{id}``, a key that lapses after ``stall`` seconds) before it checks.

It runs in ``arena serve`` (its housekeeping) and in a thread of every ``arena worker``'s main
process (:func:`sweep_in_background`), so a distributed run that nobody follows and no service
watches still gets its lost batches played: a message dropped by Redis right after kombu's pop,
a batch whose task failed while Redis stayed away (Celery drops a failed task's message).

Each pass also sends again the batches parked by workers of another game version
(:func:`unpark`): a worker's sweeper those its own version plays, every sweeper those of a
tournament that ended (a cancel, which a batch must see to store the board).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from kombu.exceptions import OperationalError

from arena.config import ConfigError
from workers.settings import DEFAULT_STALL_SECONDS, stall_seconds

log = logging.getLogger(__name__)

UNPARK_SECONDS = 1.0
"""How often a worker's sweeper looks for batches parked for its game versions."""


class StallSweeper:
    """Remembers each running tournament's ``done`` and since when; :meth:`sweep` checks those
    unchanged for ``stall`` seconds."""

    def __init__(
        self, app: Any, store: Any, stall: float = DEFAULT_STALL_SECONDS, version: Callable[[str], str] | None = None
    ) -> None:
        self.app = app
        self.store = store
        self.stall = stall
        self.version = version  # a worker's: the game version it plays of a game id
        self.seen: dict[str, tuple[int, float]] = {}  # tournament -> (done, since)

    def sweep(self) -> int:
        """One pass over the running tournaments; returns how many were checked."""
        from workers.executor import patiently, requeue_missing

        now = time.monotonic()
        active, checked = set(), 0
        ids, unboarded = self.store.active_and_unboarded()  # all of them, not only the newest
        pipe = self.store.redis.pipeline(transaction=False)
        for tournament_id in ids:  # one round trip for all: every worker node sweeps
            pipe.hmget(self.store.key("t", tournament_id), "status", "done")
        for tournament_id, (status, raw_done) in zip(ids, pipe.execute(), strict=True):
            if status not in (b"queued", b"running"):
                continue
            active.add(tournament_id)
            done = int(raw_done or 0)
            seen, since = self.seen.get(tournament_id, (-1, now))
            if done != seen:
                self.seen[tournament_id] = (done, now)
            elif now - since >= self.stall:
                self.seen[tournament_id] = (done, now)
                if self.claim(tournament_id):
                    requeue_missing(self.app, self.store, tournament_id)
                    checked += 1
        for id_ in unboarded:
            # Nothing will move it: once it has waited a stall period, finalise it (idempotent).
            active.add(id_)
            since = self.seen.setdefault(id_, (-2, now))[1]
            if now - since >= self.stall and self.claim(id_):
                self.seen[id_] = (-2, now)
                log.warning("a cancelled tournament had no board: finalisation sent", extra={"tournament": id_})
                patiently(self.app.send_task, "arena.finalize", [id_])
                checked += 1
        self.seen = {t: v for t, v in self.seen.items() if t in active}
        unpark(self.app, self.store, self.version)
        return checked

    def claim(self, tournament_id: str) -> bool:
        """Whether this sweeper checks the tournament now: the first of the service's and every
        worker's sweepers to see it stalled does, and none again for ``stall`` seconds."""
        key = self.store.key("sweep", tournament_id)
        return bool(self.store.redis.set(key, b"1", nx=True, px=max(1, int(self.stall * 1000))))


def unpark(app: Any, store: Any, version: Callable[[str], str] | None = None) -> int:
    """Send again the parked batches (``Store.park``) of every tournament that ended or was
    cancelled, and, given ``version`` (a worker's: game id -> the version it plays), of those
    waiting for a version it plays. Returns how many batches were sent. One read when none is
    parked."""
    from workers.executor import patiently
    from workers.tasks import send_batches

    parked = store.parked()
    if not parked:
        return 0
    ids = sorted(parked)
    pipe = store.redis.pipeline(transaction=False)
    for tournament_id in ids:
        pipe.hmget(store.key("t", tournament_id), "status", "game_version")
        pipe.exists(store.key("t", tournament_id, "cancel"))
    read = pipe.execute()
    sent = 0
    for tournament_id, (status, pinned), cancelled in zip(ids, read[::2], read[1::2], strict=True):
        if status in (b"queued", b"running") and not cancelled:
            game, wanted = parked[tournament_id]
            wanted = wanted if pinned is None else pinned.decode()  # the tournament's pin rules
            try:
                if version is None or version(game) != wanted:
                    continue
            except ConfigError:  # a game this worker does not have
                continue
        batches = patiently(store.unpark, tournament_id)
        send_batches(app, tournament_id, batches)
        sent += len(batches)
    return sent


def sweep_in_background(app: Any, broker: str, stall: float | None = None) -> threading.Thread:
    """A daemon thread that sweeps every quarter of ``stall`` (``ARENA_STALL_SECONDS``): for a
    worker's main process, next to its heartbeat (the pool processes fork from it and do not
    inherit the thread). A Redis outage, or any failure of one pass, only skips that pass."""
    from referee.store import Store
    from workers.tasks import installed_version

    stall = stall if stall is not None else stall_seconds()
    store = Store(broker)
    sweeper = StallSweeper(app, store, stall, installed_version)
    every = max(0.25, stall / 4)
    due = time.monotonic() + every

    def run() -> None:
        nonlocal due
        while True:
            # Parked batches each second (a worker of their version has just started: one read
            # when none is parked); the stall check every ``every``.
            time.sleep(min(UNPARK_SECONDS, every))
            try:
                if time.monotonic() < due:
                    unpark(app, store, installed_version)
                    continue
                due = time.monotonic() + every
                sweeper.sweep()
            except (redis.RedisError, OperationalError):
                pass  # Redis away: the next pass checks again
            except Exception:  # a bug here must not end this worker's sweeping for good
                log.exception("stall check failed")

    thread = threading.Thread(target=run, name="arena-stall-check", daemon=True)
    thread.start()
    return thread
