"""A local run with worker processes takes a lazy schedule a chunk at a time (a review of a
change: the chunks were listed up front, 2,000,000 matches built whole before the first)."""

from __future__ import annotations

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
