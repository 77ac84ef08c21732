"""The Celery app (Redis broker), configured for matches that must be neither lost nor repeated.

* ``task_acks_late`` + ``task_reject_on_worker_lost``: a batch is acknowledged only after it
  ran; if its worker dies (even ``kill -9``) the message goes back to the queue. Batches are
  idempotent per match (the store refuses a match stored before), so a redelivery repeats no
  counted work.
* ``worker_prefetch_multiplier = 1``: a worker process reserves one batch at a time, so a slow
  batch does not hold others hostage and redelivered work goes to whoever is free.
* ``visibility_timeout`` (broker *and* result transport options): how long an unacknowledged
  batch stays invisible before Redis redelivers it. It must exceed the longest queue wait plus
  batch run; it is also how long recovery from a dead worker takes. Default 3600 s;
  ``ARENA_VISIBILITY_TIMEOUT`` or ``--visibility-timeout`` changes it (every app on a broker must
  agree: the shortest wins).
* ``unacked_mutex_expire``: the lock of that scan for dead workers' batches lasts one scan
  interval, so a worker killed mid-scan delays redelivery by seconds, not kombu's five minutes.
* ``worker_consumer``: Celery's consumer with one fix, so the worker outlives a Redis restart
  (``workers/consumer.py``).
* JSON serialisation only; no result backend (results live in Arena's own store, and nobody
  waits on Celery results: the client follows the store's counters).

No gRPC channel or Redis connection is created at import or before the pool forks: stores and
remote players connect lazily, in the process that uses them (prefork safety). The main
process's metrics endpoint (``arena worker --metrics-port``) reads the queue's length at scrape
time over its own connection, which no pool process uses.
"""

from __future__ import annotations

from celery import Celery

from workers import settings

QUEUE = "arena"
FINALIZE_QUEUE = "arena.finalize"
"""Finalisations, apart from the batches: every worker takes from both queues in turn, so a
tournament whose last match is stored ends as soon as a worker process is free, not after every
batch queued before its finalisation (an outside operator probe saw a tournament sit at
9000/9000 for 40 s behind another's remote batches)."""


def make_app(broker_url: str, *, visibility_timeout: int | None = None) -> Celery:
    timeout = visibility_timeout or settings.visibility_timeout()
    app = Celery("arena", broker=broker_url, include=["workers.tasks"])
    sweep = max(1, min(30, timeout // 4))
    transport = {
        "visibility_timeout": timeout,
        # Scan for unacknowledged messages of dead workers often (cheap: a sorted-set range).
        "unacked_restore_interval": sweep,
        "unacked_restore_throttle": 1,
        # The scan's lock outlives a worker killed during a scan: kombu's 300 s held every
        # redelivery back for five minutes after such a kill (a CI run's kill -9 landed there).
        # A scan takes milliseconds, and two scans at once restore nothing twice (each restore
        # is a transaction watching the unacknowledged hash), so the lock lasts one interval.
        "unacked_mutex_expire": sweep,
    }
    app.conf.update(
        task_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        # A task that fails anyway (Redis gone for longer than the store's patience) is not
        # acknowledged as done; Celery 5.7 rejects its message without requeue, though (a
        # requeue would loop on a failure that repeats), so its batches come back through the
        # stall check (lost_batches) of the workers, the service or a following client.
        task_acks_on_failure_or_timeout=False,
        task_ignore_result=True,
        worker_prefetch_multiplier=1,
        broker_transport_options=transport,
        result_backend_transport_options=transport,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # Redis restarting is an outage to wait out
        # Batches running when the connection drops go on and store when Redis is back (the
        # store waits out an outage); cancelling them would only replay their matches.
        worker_cancel_long_running_tasks_on_connection_loss=False,
        task_default_queue=QUEUE,
        task_routes={"arena.finalize": {"queue": FINALIZE_QUEUE}},
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        worker_consumer="workers.consumer:Consumer",  # survives a Redis restart (see there)
    )
    app.conf.arena_store_url = broker_url
    return app
