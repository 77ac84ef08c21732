"""What a worker takes from its environment (``ARENA_*``), read and checked in one place.

Each setting is read where it is used (a child process inherits the environment; ``arena worker
--matches-per-process`` sets its variable for the pool processes), and :func:`check` reads them
all when ``arena worker`` starts, before Celery imports the tasks or forks: a typo (``1m``,
``abc``, ``0``) stops the worker at once with the variable's name, instead of failing every batch
it would take. Nothing here imports the tasks, gRPC or Prometheus (the metrics directory must be
set before ``prometheus_client`` is imported).
"""

from __future__ import annotations

from arena.config import env_number, env_seconds

DEFAULT_WINDOW = 16
"""Batches of one tournament queued or running at once (``ARENA_QUEUE_WINDOW`` where the
tournament is fanned out): enough to keep 16 worker processes busy on one tournament, and what
one tournament can put ahead of a later one in the queue."""
DEFAULT_MATCHES_PER_PROCESS = 64
"""K: remote-bot matches one worker process plays at once (``ARENA_MATCHES_PER_PROCESS``)."""
DEFAULT_VISIBILITY_TIMEOUT = 3600
"""Seconds before an unacknowledged message is delivered again (``ARENA_VISIBILITY_TIMEOUT``)."""
DEFAULT_LEASE_SECONDS = 60.0
"""A per-bot lease's life, renewed while its match runs (``ARENA_LEASE_SECONDS``)."""
DEFAULT_MATCH_SECONDS = 3600.0
"""The longest a worker holds one match (``ARENA_MATCH_SECONDS``). The clock maxima
(referee.service: decision 60 s, bank 600 s, grace 10 s, start-up 60 s) let one decision take at
most 670 s and the start 60 s; an hour is room for five such decisions, far beyond any healthy
bot."""
DEFAULT_STALL_SECONDS = 60.0
"""A running tournament with no match stored for this long is checked for lost batches
(``ARENA_STALL_SECONDS``; the service's and every worker's stall check, workers.sweeper)."""


def queue_window() -> int:
    return env_number("ARENA_QUEUE_WINDOW", DEFAULT_WINDOW, minimum=1)


def matches_per_process() -> int:
    return env_number("ARENA_MATCHES_PER_PROCESS", DEFAULT_MATCHES_PER_PROCESS, minimum=1)


def visibility_timeout() -> int:
    return env_number("ARENA_VISIBILITY_TIMEOUT", DEFAULT_VISIBILITY_TIMEOUT, minimum=1)


def lease_seconds() -> float:
    return env_seconds("ARENA_LEASE_SECONDS", DEFAULT_LEASE_SECONDS, minimum=1)


def match_seconds() -> float:
    return env_seconds("ARENA_MATCH_SECONDS", DEFAULT_MATCH_SECONDS, minimum=1)


def stall_seconds() -> float:
    return env_seconds("ARENA_STALL_SECONDS", DEFAULT_STALL_SECONDS, minimum=1)


def summary(visibility: int | None = None) -> str:
    """The settings in effect, one line (``arena worker`` prints it at its start)."""
    return (
        f"{matches_per_process()} remote matches a process, queue window {queue_window()}, "
        f"visibility timeout {visibility or visibility_timeout()} s, leases {lease_seconds():g} s, "
        f"a match at most {match_seconds():g} s, stall check after {stall_seconds():g} s"
    )


def check(*, visibility_given: bool = False) -> None:
    """Read every setting (a ConfigError names the first bad one). ``visibility_given``: the
    command line set the visibility timeout, so its variable is not read."""
    queue_window()
    matches_per_process()
    lease_seconds()
    match_seconds()
    stall_seconds()
    if not visibility_given:
        visibility_timeout()
