"""The following client hands records over in schedule order (``workers.executor.InOrder``):
a record that lands early waits for the earlier ones, as its line; past a limit the order is
given up and everything is handed over as it comes, so memory stays bounded."""

from __future__ import annotations

from arena.games.rolldice.game import RollDice
from arena.record import read_view
from arena.runner import play_match
from arena.tallied import TallyEntry, tally_entry
from bots.random_bot import RandomBot
from workers.executor import InOrder


def lines(count: int) -> dict[int, str]:
    game = RollDice()
    out = {}
    for index in range(count):
        record = play_match(game, game.config(2, {"target": 1}), index, [RandomBot(), RandomBot()])
        record.tournament = {"index": index}
        out[index] = record.dumps()
    return out


def handed(in_order_args: tuple[set[int], int], arrivals: list[list[int]], stop_at: int | None = None):  # type: ignore[no-untyped-def]
    wanted, limit = in_order_args
    records = lines(max(wanted) + 1)
    got: list[int] = []
    flushes: list[int] = []  # after which records the run directory would flush

    def on_record(record, line=None, more=False):  # type: ignore[no-untyped-def]
        assert line == records[record.tournament["index"]]
        got.append(record.tournament["index"])
        if not more:
            flushes.append(got[-1])
        return record.tournament["index"] == stop_at

    in_order = InOrder(set(wanted), on_record, limit=limit)
    stopped = False
    for group in arrivals:  # each group read from the store at once
        if in_order.add({i: records[i] for i in group}):
            stopped = True
            break
    return got, stopped, in_order, flushes


def test_records_are_handed_over_in_schedule_order_whatever_order_they_land_in():
    got, stopped, in_order, flushes = handed(({0, 1, 2, 3, 4, 5}, 100), [[3], [4, 0], [5, 2, 1]])
    assert got == [0, 1, 2, 3, 4, 5] and not stopped and in_order.waiting == {}
    assert flushes == [0, 5]  # the run directory writes out once after each group handed over


def test_a_resumed_run_waits_only_for_the_records_it_wants():
    got, _, _, _ = handed(({1, 3, 4}, 100), [[4], [1], [3]])  # 0 and 2 are on disk already
    assert got == [1, 3, 4]


def test_a_stop_asked_by_a_record_stops_the_handing_over():
    got, stopped, _, _ = handed(({0, 1, 2, 3}, 100), [[2], [3], [1, 0]], stop_at=1)
    assert got == [0, 1] and stopped  # 2 and 3 were ready: never handed over


def test_past_the_limit_the_order_is_given_up_and_nothing_waits_any_more():
    got, _, in_order, _ = handed(({0, 1, 2, 3, 4, 5, 6}, 2), [[1], [2], [4], [5], [3], [6], [0]])
    # 1, 2, 4 wait for 0; a third waiting line passes the limit: they go in order, gaps and all;
    # from then on each record goes as it comes.
    assert got == [1, 2, 4, 5, 3, 6, 0] and not in_order.ordered and in_order.waiting == {}


def test_a_flush_at_the_end_hands_over_what_waits_for_a_record_that_never_came():
    got, _, in_order, _ = handed(({0, 1, 2, 3}, 100), [[2, 3]])  # 0 and 1 cancelled before playing
    assert got == [] and in_order.flush() is False and got == [2, 3]


def test_a_record_s_tally_entry_waits_with_its_line_and_is_handed_over_in_its_place():
    records = lines(6)
    views = {i: read_view(line) for i, line in records.items()}
    entries = {i: tally_entry(views[i], {"random": 0}) for i in (1, 3, 4, 5)}  # 0, 2: older workers
    got: list[object] = []

    def on_record(record, line=None, more=False):  # type: ignore[no-untyped-def]
        got.append(record)
        return False

    in_order = InOrder(set(range(4)), on_record, limit=3)
    for group in ([3], [1, 2], [0]):  # 3 and 1, 2 wait for 0
        in_order.add({i: records[i] for i in group}, {i: entries[i] for i in group if i in entries})
    assert got == [views[0], entries[1], views[2], entries[3]] and in_order.entries == {}
    # Past the limit (unordered): each as it comes, still with its entry.
    unordered = InOrder({4, 5}, on_record, limit=0)
    unordered.add({5: records[5]}, {5: entries[5]})
    unordered.add({4: records[4]}, {4: entries[4]})
    assert not unordered.ordered and got[4:] == [entries[5], entries[4]] and unordered.entries == {}
    assert isinstance(got[1], TallyEntry)


def test_records_that_come_in_order_are_handed_over_as_they_come_and_late_ones_still_wait():
    got, stopped, in_order, flushes = handed(({0, 1, 2, 3, 4, 5, 6}, 100), [[0, 1], [2], [4, 5], [3], [6]])
    assert got == [0, 1, 2, 3, 4, 5, 6] and not stopped and in_order.waiting == {}
    assert flushes == [1, 2, 5, 6]  # once after each group handed over; 4, 5 waited for 3
    got, stopped, _, _ = handed(({0, 1, 2, 3}, 100), [[0, 1, 2, 3]], stop_at=1)
    assert got == [0, 1] and stopped
