"""A local run with worker processes takes a lazy schedule a chunk at a time (a review of a
change: the chunks were listed up front, 2,000,000 matches built whole before the first)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

from arena import executor
from arena.cli.players import make_player
from arena.executor import LocalExecutor
from arena.tournament import Schedule, TournamentSpec


class CountingSchedule(Schedule):
    """A schedule that counts the matches asked of it."""

    taken = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def,override]
        found = super().__getitem__(index)
        CountingSchedule.taken += len(found) if isinstance(found, list) else 1
        return found


def test_a_local_run_with_workers_takes_its_schedule_a_chunk_at_a_time():
    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2, repeats=200_000, seed=1)
    matches = CountingSchedule(spec)
    CountingSchedule.taken = 0
    LocalExecutor(make_player, 2).run(spec, matches, lambda record, line: True)  # stop at the first
    assert len(matches) == 400_000
    assert 0 < CountingSchedule.taken < len(matches) // 4, CountingSchedule.taken


def _deaf_to_sigterm() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def test_a_pool_process_that_does_not_end_on_sigterm_is_killed(monkeypatch):
    """A worker's SIGTERM unwinds its match in Python now; one whose handler never ran held the
    pool's join, and the run, for ever: it is killed after TERMINATE_SECONDS."""
    monkeypatch.setattr(executor, "TERMINATE_SECONDS", 0.5)
    pool = multiprocessing.get_context("spawn").Pool(1, initializer=_deaf_to_sigterm)
    assert pool.apply(os.getpid) > 0  # started, its initializer run
    (worker,) = pool._pool  # type: ignore[attr-defined]
    pool.apply_async(time.sleep, (60,))  # busy: an idle one ends on the pool's own sentinel
    time.sleep(0.5)
    executor.ended(pool)
    assert not worker.is_alive() and worker.exitcode == -signal.SIGKILL
