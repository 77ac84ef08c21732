"""The window of batches in flight (bounded queues), on a private redis-server: claims up to the
window, refills by finishing batches only, supersedes, orphans and lost-batch judgement."""

from __future__ import annotations

import time

import pytest

from arena.tournament import TournamentSpec
from referee.store import TAIL_PARTS, Store, batch_count, batch_range
from tests.services import redis_server

SPEC = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2)
QUEUE = "test-queue"


@pytest.fixture
def store(tmp_path):
    with redis_server(tmp_path) as server:
        s = Store(server.url)
        assert s.create_tournament("t", SPEC, total=23, batches=0)
        yield s


def numbers(batches):  # type: ignore[no-untyped-def]
    return [b.number for b in batches]


def test_a_window_is_claimed_once_and_refilled_only_by_finishing_batches(store):
    assert store.plan_batches("t", 5, 2) == (5, 7)
    assert store.plan_batches("t", 7, 9) == (5, 7)  # a redelivered fan-out keeps the first plan
    first = store.fill("t")
    assert numbers(first) == [0, 1] and first[0].seq < first[1].seq
    assert store.fill("t") == []  # full
    assert store.batch_indices("t", 3) == [15, 16, 17]
    assert store.batch_indices("t", 4) == [18, 19]  # the last 5 matches: 4 parts of 2
    assert store.batch_indices("t", 6) == [22]
    assert store.start_batch("t", 0, first[0].seq) == "play"
    assert store.tournament("t")["status"] == "running"
    assert store.finish_batch("t", 0, first[0].seq + 100) == []  # not the copy that was sent
    successor = store.finish_batch("t", 0, first[0].seq)
    assert numbers(successor) == [2]
    assert store.finish_batch("t", 0, first[0].seq) == []  # a second finish changes nothing
    assert store.start_batch("t", 0, first[0].seq) == "done"
    assert sorted(store.inflight("t")) == [1, 2]


@pytest.mark.parametrize("total", [0, 1, 4, 5, 6, 23, 100, 101])
@pytest.mark.parametrize("size", [1, 3, 5, 64, 500])
def test_batches_cover_the_schedule_once_with_the_last_size_matches_split(total, size):
    count = batch_count(total, size)
    ranges = [batch_range(b, total, size) for b in range(count)]
    assert [i for r in ranges for i in r] == list(range(total))
    assert all(ranges)  # no empty batch
    tail = [r for r in ranges if r.start >= max(0, total - size)]
    part = -(-size // TAIL_PARTS)
    assert len(tail) == -(-min(total, size) // part) and all(len(r) <= part for r in tail)
    assert all(len(r) <= size for r in ranges)


def test_a_tournament_planned_before_the_split_keeps_its_layout(store):
    # Planned by an earlier version (no ``tail`` field): batches of ``size`` to the end, as its
    # batch count and messages in flight assume.
    store.redis.hset(store.key("t", "t"), mapping={"size": 5, "window": 2, "batches": 5})
    assert store.batch_indices("t", 3) == [15, 16, 17, 18, 19]
    assert store.batch_indices("t", 4) == [20, 21, 22]


def test_a_cancelled_tournament_starts_nothing_and_refills_nothing(store):
    store.plan_batches("t", 5, 2)
    first = store.fill("t")
    store.start_batch("t", 0, first[0].seq)
    store.cancel("t")
    assert store.start_batch("t", 1, first[1].seq) == "cancelled"
    assert store.finish_batch("t", 0, first[0].seq) == []


def test_a_claimer_that_died_before_sending_sends_again_what_it_claimed(store):
    store.plan_batches("t", 5, 2)
    first = store.fill("t")
    store.start_batch("t", 0, first[0].seq)
    successor = store.finish_batch("t", 0, first[0].seq)  # ... and the worker dies here
    again = store.orphans("t", "0")  # the redelivered batch 0
    assert numbers(again) == numbers(successor) and again[0].seq > successor[0].seq
    assert store.start_batch("t", 2, successor[0].seq) == "superseded"
    assert store.start_batch("t", 2, again[0].seq) == "play"
    assert store.orphans("t", "0") == []  # started: nothing to send again
    assert numbers(store.orphans("t", "fan-out")) == [1]  # the fan-out's unstarted batch


def test_lost_batches_are_judged_from_the_window_alone(store):
    store.plan_batches("t", 5, 3)
    sent = store.fill("t")
    store.redis.rpush(QUEUE, "a message")  # something waits in the queue
    assert store.lost_batches("t", QUEUE, 60) == {}  # queued, nothing later started: waiting
    store.start_batch("t", 2, sent[2].seq)  # a later message started: 0 and 1 were popped
    lost = store.lost_batches("t", QUEUE, 60)
    assert sorted(lost) == [0, 1]
    resent = store.resend("t", 0, lost[0])
    assert resent is not None and resent.seq > sent[2].seq
    assert store.resend("t", 0, lost[0]) is None  # judged on an entry that changed since
    assert store.start_batch("t", 0, sent[0].seq) == "superseded"
    time.sleep(1.1)
    assert 2 in store.lost_batches("t", QUEUE, 1.0)  # running, silent past the stale time
    store.heartbeat("t", 2, sent[2].seq)
    assert 2 not in store.lost_batches("t", QUEUE, 1.0)
    store.redis.delete(QUEUE)
    assert 0 in store.lost_batches("t", QUEUE, 60)  # nothing queued at all: not waiting


def test_a_worker_takes_queued_batches_and_its_redelivery_gives_them_back(store):
    store.plan_batches("t", 5, 3)
    sent = store.fill("t")
    assert store.start_batch("t", 0, sent[0].seq) == "play"
    taken = store.steal("t", "0")
    assert taken is not None and taken.number == 1 and taken.seq > sent[2].seq
    assert store.start_batch("t", 1, sent[1].seq) == "superseded"  # its queued message is skipped
    store.heartbeat("t", 1, taken.seq)
    assert store.inflight("t")[1].endswith(" 0")  # still named after the batch that took it
    assert store.steal("t", "0").number == 2
    assert store.steal("t", "0") is None  # nothing queued any more
    again = store.orphans("t", "0")  # batch 0 delivered again: its worker died
    assert sorted(numbers(again)) == [1, 2]
    assert store.start_batch("t", 1, taken.seq) == "superseded"
    assert store.start_batch("t", 1, again[0].seq) == "play"
    store.cancel("t")
    assert store.steal("t", "0") is None


def test_a_finish_whose_reply_was_lost_is_asked_again_and_gets_the_same_successors(store):
    # The script ran, then the connection dropped before its reply (the caller retries with the
    # token it used): the successors it claimed are sent, not left claimed and never sent.
    store.plan_batches("t", 5, 1)  # a window of one batch
    (first,) = store.fill("t")
    assert store.start_batch("t", first.number, first.seq) == "play"
    sent = store.finish_batch("t", first.number, first.seq, token="retry-me")
    assert numbers(sent) == [1]
    assert store.finish_batch("t", first.number, first.seq, token="retry-me") == sent
    # Another caller (a second copy of the batch, another token or none) gets nothing to send.
    assert store.finish_batch("t", first.number, first.seq, token="someone-else") == []
    assert store.finish_batch("t", first.number, first.seq) == []
    assert sorted(store.inflight("t")) == [1]
    # The same for a fan-out's first window.
    assert store.create_tournament("u", SPEC, total=23, batches=0)
    store.plan_batches("u", 5, 2)
    claimed = store.fill("u", token="fan-out-1")
    assert numbers(claimed) == [0, 1]
    assert store.fill("u", token="fan-out-1") == claimed
    assert store.fill("u") == []  # full


def test_a_parked_batch_waits_unjudged_until_unparked_under_a_new_number(store):
    """A worker of another game version parks a batch instead of holding it a second and sending
    it back (71x slower for a tournament beside it: bench/bench_refusal.py)."""
    store.plan_batches("t", 5, 3)
    sent = store.fill("t")  # batches 0, 1, 2 from the fan-out
    assert store.park("t", 0, sent[0].seq + 100, "rolldice", "0.9") == "superseded"  # an old copy
    assert store.park("t", 0, sent[0].seq, "rolldice", "0.9") == "parked"
    assert store.park("t", 0, sent[0].seq, "rolldice", "0.9") == "parked"  # delivered again: same
    assert store.inflight("t")[0].startswith(f"p {sent[0].seq} ") and store.inflight("t")[0].endswith(" fan-out")
    assert store.parked() == {"t": ("rolldice", "0.9")}
    assert store.steal("t", "1", "q") is not None and store.steal("t", "1", "q") is not None  # 1, 2, not 0
    assert store.steal("t", "1", "q") is None
    store.redis.delete(QUEUE)  # nothing queued: a queued entry would be judged lost
    time.sleep(1.1)
    assert 0 not in store.lost_batches("t", QUEUE, 1.0)  # parked: neither popped nor dead
    assert store.orphans("t", "fan-out") == []  # its claimer delivered again: it was sent
    assert store.fill("t") == []  # it holds its place in the window
    (back,) = store.unpark("t")
    assert back.number == 0 and back.seq > sent[0].seq
    assert store.parked() == {} and store.unpark("t") == []
    assert store.start_batch("t", 0, sent[0].seq) == "superseded"  # the parked copy, delivered late
    assert store.park("t", 0, sent[0].seq, "rolldice", "0.9") == "superseded"
    assert store.start_batch("t", 0, back.seq) == "play"
    # A worker playing the tournament (so of its version) takes a parked batch to play itself.
    (three,) = store.finish_batch("t", 0, back.seq)  # batch 3 joins the window as 0 leaves it
    assert store.park("t", 3, three.seq, "rolldice", "0.9") == "parked"
    taken = store.steal("t", "1", "p")
    assert taken is not None and taken.number == 3 and taken.seq > three.seq
    assert store.inflight("t")[3].startswith(f"r {taken.seq} ") and store.steal("t", "1", "p") is None
    assert store.unpark("t") == [] and store.parked() == {}
    store.cancel("t")
    assert store.park("t", 1, sent[1].seq, "rolldice", "0.9") == "cancelled" and store.parked() == {}


def test_a_batch_leaves_the_window_only_once_its_records_are_stored(tmp_path, monkeypatch):
    """The batch waits before it leaves the window (workers.tasks._Writer): a batch finished
    before its records were stored, and its worker killed in between, left matches that nothing
    would ever play again (every batch claimed, the window empty: the stall check sees no loss)."""
    from arena.tournament import schedule_size
    from workers import tasks
    from workers.app import make_app

    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2, repeats=5, seed=1)
    seen: list[tuple[int, list[int], set[int]]] = []
    store_lines, finish_batch = Store.store_lines, Store.finish_batch

    def slow_store_lines(self, tournament_id, lines, tally=None):
        time.sleep(0.05)  # the writer thread lags behind the playing one
        return store_lines(self, tournament_id, lines, tally)

    def watched_finish_batch(self, tournament_id, batch, seq, source=None, token=""):
        indices = self.batch_indices(tournament_id, batch)
        seen.append((batch, indices, self.stored_indices(tournament_id, indices)))
        return finish_batch(self, tournament_id, batch, seq, source, token)

    monkeypatch.setattr(Store, "store_lines", slow_store_lines)
    monkeypatch.setattr(Store, "finish_batch", watched_finish_batch)
    monkeypatch.setattr(tasks, "FLUSH_RECORDS", 1)  # each match stored on its own, while playing
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        assert store.create_tournament("w", spec, total=schedule_size(spec), batches=0)
        assert store.plan_batches("w", 5, 1) == (5, 4)  # batch 0: matches 0-4; the rest follow
        (first,) = store.fill("w")
        app = make_app(server.url)
        played = app.tasks["arena.play_batch"].apply(args=["w", [], first.number, first.seq]).get()
        assert played == 5
        assert seen == [(0, [0, 1, 2, 3, 4], {0, 1, 2, 3, 4})]  # every record stored as it left
        assert 0 not in store.inflight("w") and (store.tournament("w") or {}).get("done") == 5
