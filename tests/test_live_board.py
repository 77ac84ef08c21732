"""Live leaderboards from running sums (arena.leaderboard.Tally): the same board as a rebuild
from every record, whatever order the records arrive in, at a cost that does not grow with the
matches; the published board (bootstrap intervals) unchanged."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from arena.leaderboard import ScheduleOrderTally, Tally, build
from arena.record import MatchRecord
from arena.tallied import TallyEntry
from arena.tournament import TournamentSpec, play_scheduled, schedule
from bots.registry import make_bot


def records_of(spec: TournamentSpec) -> list[MatchRecord]:
    return [play_scheduled(spec, m, lambda address, game: make_bot(address, game)) for m in schedule(spec)]


def without_elo(board: dict) -> dict:
    board = json.loads(json.dumps(board))
    for row in board["leaderboard"]:
        row.pop("elo")
    return board


@pytest.mark.parametrize(
    "spec",
    [
        TournamentSpec(game="rolldice", bots=("random", "random#2", "heuristic"), players=2, repeats=4, seed=3),
        TournamentSpec(game="skyfive", bots=("random", "heuristic", "heuristic:risk=2", "random#2"), players=3, seed=5),
    ],
    ids=["two-player", "three-player"],
)
def test_a_tally_fed_in_any_order_gives_the_rebuilt_board(spec):
    records = records_of(spec)
    shuffled = records[:]
    random.Random(1).shuffle(shuffled)
    tally = Tally(spec)
    for count, record in enumerate(shuffled, 1):
        tally.add(record)
        if count in (1, len(records) // 2, len(records)):
            expected = build(spec, shuffled[:count], resamples=0)
            assert without_elo(tally.board()) == without_elo(expected)
    assert tally.board()["matches"] == len(records)
    # In schedule order the online Elo matches too.
    ordered = Tally(spec)
    for record in sorted(records, key=lambda r: int(r.tournament.get("index", 0))):
        ordered.add(record)
    assert ordered.board() == build(spec, records, resamples=0)


def test_the_published_board_keeps_its_bootstrap_intervals():
    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2, repeats=12, seed=2)
    records = records_of(spec)
    final = build(spec, records)  # resamples=200: bootstrap over duplicate groups
    live = build(spec, records, resamples=0)
    assert [r["rating"] for r in final["leaderboard"]] == [r["rating"] for r in live["leaderboard"]]
    assert [(r["ci_low"], r["ci_high"]) for r in final["leaderboard"]] != [
        (r["ci_low"], r["ci_high"]) for r in live["leaderboard"]
    ]
    assert final["warning"] is None and "duplicate group" in (live["warning"] or "")


def test_a_tally_keeps_no_records():
    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2, repeats=3, seed=4)
    tally = Tally(spec)
    for record in records_of(spec):
        tally.add(record)
    held = [v for v in vars(tally).values() if isinstance(v, list) and v and isinstance(v[0], MatchRecord)]
    assert held == [] and tally.by_group is None


def test_records_out_of_order_wait_as_small_entries_not_records():
    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2, repeats=3, seed=4)
    records = records_of(spec)
    by_index = sorted(records, key=lambda r: int(r.tournament["index"]))
    ordered = ScheduleOrderTally(spec, resamples=0)
    for record in reversed(by_index[1:]):
        ordered.add(record)
    assert len(ordered.waiting) == len(records) - 1  # every one waits for the first
    assert not any(isinstance(v, MatchRecord) for v in ordered.waiting.values())
    ordered.add(by_index[0])
    assert ordered.waiting == {}
    assert ordered.board() == build(spec, records, resamples=0)


# -- the service's live views (referee.live) over a real redis-server -------------------------


def test_many_watchers_share_one_computation_per_update(tmp_path):
    import asyncio

    from referee.live import LiveBoards
    from referee.store import Store
    from tests.services import redis_server

    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2, repeats=6, seed=7)
    records = records_of(spec)
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        assert store.create_tournament("t", spec, total=len(records), batches=1)
        store.mark_running("t")

        async def scenario() -> tuple[list[list[object]], LiveBoards]:
            loop = asyncio.get_running_loop()

            async def blocking(fn, *args):  # type: ignore[no-untyped-def]
                return await loop.run_in_executor(None, fn, *args)

            boards = LiveBoards(store, blocking, asyncio.Event(), poll=0.05)

            async def watcher() -> list[object]:
                return [update async for update in boards.watch("t", spec)]

            watchers = [loop.create_task(watcher()) for _ in range(50)]
            for start in range(0, len(records), 4):  # the workers store a batch at a time
                batch = [(i, records[i]) for i in range(start, min(start + 4, len(records)))]
                await blocking(store.store_matches, "t", batch)
                await asyncio.sleep(0.2)
            store.save_leaderboard("t", build(spec, records))
            store.finish("t", "complete")
            seen = await asyncio.wait_for(asyncio.gather(*watchers), 30)
            return seen, boards

        seen, boards = asyncio.run(scenario())
    finals = [updates[-1] for updates in seen]
    assert all(u.final and u.tournament.done == len(records) for u in finals)  # type: ignore[attr-defined]
    published = build(spec, records)["leaderboard"]
    assert [(r.bot, r.ci_low) for r in finals[0].leaderboard.rows] == [  # type: ignore[attr-defined]
        (r["bot"], r["ci_low"]) for r in published
    ]
    # One computation per update, shared: every watcher was sent the very same messages.
    distinct = {id(u) for updates in seen for u in updates}
    assert boards.computations == len(distinct) <= len(records) // 4 + 3
    assert boards.live == {}  # dropped when the last watcher left


def test_the_web_pages_board_follows_a_running_tournament_without_keeping_records(tmp_path):
    from referee.store import Store
    from referee.web import WebUI
    from tests.services import redis_server

    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2, repeats=6, seed=7)
    records = records_of(spec)
    half = len(records) // 2
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        assert store.create_tournament("t", spec, total=len(records), batches=1)
        store.mark_running("t")
        web = WebUI(store, service=None)
        store.store_matches("t", [(i, records[i]) for i in range(half)])
        assert web._board_so_far("t", spec) == build(spec, records[:half], resamples=0)
        store.store_matches("t", [(i, records[i]) for i in range(half, len(records))])
        read: list[int] = []
        following = store.follow_lines

        def follow_lines(*args: Any, **kwargs: Any) -> tuple[str, list[int], dict[int, str], dict[int, TallyEntry]]:
            cursor, indices, lines, entries = following(*args, **kwargs)
            read.extend(lines)
            return cursor, indices, lines, entries

        store.follow_lines = follow_lines  # type: ignore[method-assign]
        assert web._board_so_far("t", spec) == build(spec, records, resamples=0)
        assert read == list(range(half, len(records)))  # only the new matches were read
        tally = web._live["t"].tally
        assert isinstance(tally, Tally) and tally.matches == len(records)


def test_the_mean_decision_time_does_not_depend_on_the_order_records_come_in():
    # Float sums of 0.0054, 0.0031 and 0.0025 ms differ in their last bits by order, and over 2
    # decisions the mean's third decimal flipped (0.006 against 0.005): a live board fed in
    # arrival order disagreed with the rebuilt one (a CI run). Summed in whole nanoseconds.
    spec = TournamentSpec(game="rolldice", bots=("a", "b"), players=2)
    timings = [(0.0054, 1), (0.0031, 1), (0.0025, 0)]

    def entry(i: int, ms: float, made: int) -> TallyEntry:
        return TallyEntry(i, None, i, (0, 1), (1, 2), (10, 5), (), (ms, 0.001), (made, 1))

    means = []
    for order in (timings, timings[::-1]):
        tally = Tally(spec)
        for i, (ms, made) in enumerate(order):
            tally.add_entry(entry(i, ms, made))
        means.append(tally.board()["leaderboard"][0]["mean_decision_ms"])
    assert means == [0.005, 0.005]


def test_seat_win_rates_with_shared_wins_do_not_depend_on_the_order_records_come_in():
    # Seat 0's part of each match's win: whole, a half (two winners), a third (three) or none.
    # Summed as floats, 32 matches made 13.000000000000002 in one order and 13.0 in the other,
    # and 13/32 = 0.40625 rounded to 0.4063 against 0.4062. Counted in whole units now.
    spec = TournamentSpec(game="skyfive", bots=("a", "b", "c"), players=3)
    ranks_of = {1.0: (1, 2, 3), 0.5: (1, 1, 3), 1 / 3: (1, 1, 1), 0.0: (2, 1, 3)}
    shares = [0.5, 0.5, 0.0, 1 / 3, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 1 / 3, 1.0, 0.5, 0.5, 1.0, 0.0]
    shares += [0.5, 1.0, 0.0, 1 / 3, 0.5, 1.0, 0.0, 1.0, 0.0, 1 / 3, 1.0, 0.5, 1 / 3, 0.0, 0.0, 1 / 3]
    rates = []
    for order in (shares, shares[::-1]):
        tally = Tally(spec)
        for i, share in enumerate(order):
            tally.add_entry(TallyEntry(i, None, i, (0, 1, 2), ranks_of[share], (0, 0, 0), (), (0.0,) * 3, (0,) * 3))
        rates.append([seat["win_rate"] for seat in tally.board()["seats"]])
    assert rates[0] == rates[1]
    assert rates[0][0] == round(13 / 32, 4) == 0.4062


def test_mean_scores_that_are_not_whole_do_not_depend_on_the_order_records_come_in():
    # 0.7 + 3 + 0.1 + 0.2 + 1.5 + 0.2 + 0.2 + 3 is 8.9 one way and 8.899999999999999 the other:
    # means of 1.113 and 1.112. Summed exactly now.
    spec = TournamentSpec(game="rolldice", bots=("a", "b"), players=2)
    scores = [0.7, 3, 0.1, 0.2, 1.5, 0.2, 0.2, 3]
    means = []
    for order in (scores, scores[::-1]):
        tally = Tally(spec)
        for i, score in enumerate(order):
            tally.add_entry(TallyEntry(i, None, i, (0, 1), (1, 2), (score, 0), (), (0.0, 0.0), (0, 0)))
        means.append(tally.board()["leaderboard"][0]["mean_score"])
    assert means[0] == means[1] == 1.113  # the exact sum's mean, as the nearest float (1.1125000000000000444)


def test_whole_and_unbounded_float_scores_still_make_a_board():
    # Get Bit!'s scores are whole floats (4.0), summed as whole numbers; a record file edited to
    # an Infinity (which the record reader takes) made Fraction() raise, a traceback from
    # `arena tournament --resume` (an outside probe): such a sum stays a float, as before.
    spec = TournamentSpec(game="rolldice", bots=("a", "b"), players=2)
    tally = Tally(spec)
    for i, score in enumerate([4.0, 2.0, float("inf")]):
        tally.add_entry(TallyEntry(i, None, i, (0, 1), (1, 2), (score, 1.0), (), (0.0, 0.0), (0, 0)))
    rows = {row["bot"]: row for row in tally.board()["leaderboard"]}
    assert rows["a"]["mean_score"] == float("inf") and rows["b"]["mean_score"] == 1.0
    assert type(tally.score_sum[1]) is int


def test_scores_whose_exact_sum_passes_a_floats_range_make_a_board_and_a_summary():
    # Two 1e308 scores summed exactly are an int past a float's range: a later -Infinity could
    # not be added to it, nor the sum made a float for the mean or the summary (OverflowError
    # from `arena tournament --resume`; an outside probe, review13). Past the range it is
    # infinite, as a float sum is.
    from arena.leaderboard import summary_of

    spec = TournamentSpec(game="rolldice", bots=("a", "b"), players=2)
    for scores in ([1e308, 1e308, float("-inf")], [1.5e308, 1.5e308], [-1.5e308, -1.5e308, 3.0]):
        tally = Tally(spec, by_group=True)
        for i, score in enumerate(scores):
            tally.add_entry(TallyEntry(i, 0, i, (0, 1), (1, 2), (score, 1.0), (), (0.0, 0.0), (0, 0)))
        row = {r["bot"]: r for r in tally.board()["leaderboard"]}["a"]
        summed = summary_of(tally)["tallies"]["a"]["score"]
        expected = sum(scores)  # the float sum: inf, inf, -inf (nan for the first: inf - inf)
        if math.isnan(expected):
            assert math.isnan(row["mean_score"]) and math.isnan(summed)
        else:
            assert row["mean_score"] == expected and summed == expected
