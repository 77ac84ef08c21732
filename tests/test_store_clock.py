"""The store's leases and batch liveness on Redis's clock, not the calling worker's: a worker
whose clock is 100 s ahead or behind (``time.time`` shifted in this process for one store call)
neither over-grants a bot's leases nor makes a live batch look dead; leases and silent batches
still lapse on Redis's clock. And a store into a tournament the store no longer holds (after a
``FLUSHALL``) writes nothing. On a private redis-server."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import pytest

from arena.tournament import TournamentSpec
from referee.store import Store, TournamentMissing
from tests.services import redis_server

SPEC = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2)
QUEUE = "test-queue"
BOT = "grpc://bot:1"
REAL_TIME = time.time


@pytest.fixture
def store(tmp_path):
    with redis_server(tmp_path) as server:
        yield Store(server.url)


@contextlib.contextmanager
def clock(monkeypatch: pytest.MonkeyPatch, skew: float) -> Iterator[None]:
    """This process's wall clock ``skew`` seconds off (a worker on another machine)."""
    with monkeypatch.context() as patch:
        patch.setattr(time, "time", lambda: REAL_TIME() + skew)
        yield


@pytest.mark.parametrize("skew", [100.0, -100.0])
def test_a_skewed_worker_never_over_grants_a_bots_leases(store, monkeypatch, skew):
    first = store.acquire(BOT, 2, 60)  # a worker on Redis's time
    assert first is not None
    with clock(monkeypatch, skew):
        second = store.acquire(BOT, 2, 60)
        assert second is not None
        # On the worker's clock, an acquire ahead took the first lease for lapsed; one behind
        # gave its own lease an expiry already past.
        assert store.acquire(BOT, 2, 60) is None
        assert store.leases(BOT) == 2
    assert store.acquire(BOT, 2, 60) is None
    assert store.leases(BOT) == 2
    with clock(monkeypatch, skew):
        store.renew(BOT, second, 60, 2)  # on the worker's clock, behind: an expiry already past
    assert store.acquire(BOT, 2, 60) is None
    store.release(BOT, first)
    with clock(monkeypatch, -skew):
        third = store.acquire(BOT, 2, 60)
    assert third is not None and store.acquire(BOT, 2, 60) is None
    assert store.leases(BOT) == 2


def test_leases_expire_on_redis_clock(store, monkeypatch):
    short = store.acquire(BOT, 1, 1.0)  # its holder dies at once
    assert short is not None
    with clock(monkeypatch, 100.0):
        assert store.acquire(BOT, 1, 60) is None  # not lapsed for Redis, whatever this clock says
    time.sleep(1.2)
    with clock(monkeypatch, -100.0):
        assert store.leases(BOT) == 0  # lapsed for Redis, whatever this clock says
        assert store.acquire(BOT, 1, 60) is not None
    assert store.acquire(BOT, 1, 60) is None


def running_batches(store: Store) -> list[int]:
    """Two batches of tournament ``t``, numbers 0 and 1, both running: the first started,
    the second taken by the first's worker (:meth:`Store.steal`)."""
    assert store.create_tournament("t", SPEC, total=20, batches=0)
    assert store.plan_batches("t", 5, 2) == (5, 6)
    sent = store.fill("t")
    assert [b.number for b in sent] == [0, 1]
    store.redis.rpush(QUEUE, "a message")  # something waits: only liveness is judged
    return [b.seq for b in sent]


@pytest.mark.parametrize(("worker", "checker"), [(-100.0, 0.0), (0.0, 100.0), (-100.0, 100.0)])
def test_a_skewed_worker_or_stall_check_never_judges_a_live_batch_lost(store, monkeypatch, worker, checker):
    # A worker behind the stall check's clock (or a stall check ahead of it) by more than
    # ``stale_seconds``: on the callers' clocks its heartbeats looked 100 s old.
    seqs = running_batches(store)
    with clock(monkeypatch, worker):
        assert store.start_batch("t", 0, seqs[0]) == "play"
        taken = store.steal("t", "0")
        assert taken is not None and taken.number == 1
    with clock(monkeypatch, checker):
        assert store.lost_batches("t", QUEUE, 60) == {}
    with clock(monkeypatch, worker):
        assert store.heartbeat("t", 0, seqs[0]) and store.heartbeat("t", 1, taken.seq)
    with clock(monkeypatch, checker):
        assert store.lost_batches("t", QUEUE, 60) == {}


def test_a_silent_batch_is_lost_on_redis_clock(store, monkeypatch):
    seqs = running_batches(store)
    with clock(monkeypatch, 100.0):
        assert store.start_batch("t", 0, seqs[0]) == "play"
    time.sleep(0.7)
    with clock(monkeypatch, -100.0):  # silent for 0.7 s of Redis's time, whatever this clock says
        lost = store.lost_batches("t", QUEUE, 0.5)
        assert sorted(lost) == [0]
        assert store.resend("t", 0, lost[0]) is not None


@pytest.mark.parametrize("cancelled", [False, True])
def test_a_store_into_a_tournament_gone_from_the_store_writes_nothing(store, cancelled):
    assert store.create_tournament("t", SPEC, total=4, batches=0)
    stored = store.store_lines("t", [(0, '{"a": 0}'), (1, '{"a": 1}')])
    assert [(s.new, s.done, s.finalize) for s in stored] == [(True, 1, False), (True, 2, False)]
    store.redis.flushall()  # Redis lost its data, or an operator flushed it
    if cancelled:
        store.redis.set(store.key("t", "t", "cancel"), "1")
    before = sorted(store.redis.keys("*"))
    with pytest.raises(TournamentMissing) as missing:
        store.store_lines("t", [(2, '{"a": 2}'), (3, '{"a": 3}')])
    assert str(missing.value) == "no tournament t in the store: 2 records not stored"
    assert sorted(store.redis.keys("*")) == before
    assert store.tournament("t") is None


def test_a_lease_lost_while_its_holder_stalled_is_taken_again_only_if_the_bot_has_room(store):
    stalled = store.acquire(BOT, 1, 0.3)  # its worker then stalls past the lease's life
    assert stalled is not None
    time.sleep(0.4)
    taker = store.acquire(BOT, 1, 60)  # drops the lapsed lease and takes the bot's one slot
    assert taker is not None
    # The old renew extended only a lease still there and said nothing: the stalled worker
    # played on, believing it held a slot, beyond the bot's limit.
    assert store.renew(BOT, stalled, 60, 1) is False
    assert store.leases(BOT) == 1
    store.release(BOT, taker)
    assert store.renew(BOT, stalled, 60, 1) is True  # room again: held once more
    assert store.acquire(BOT, 1, 60) is None and store.leases(BOT) == 1


def test_leases_survive_a_redis_that_restarted_empty(store):
    first, second = store.acquire(BOT, 2, 60), store.acquire(BOT, 2, 60)
    assert first is not None and second is not None
    store.redis.flushall()  # a restart of a Redis that keeps nothing on disk
    assert store.renew(BOT, first, 60, 2) is True and store.renew(BOT, second, 60, 2) is True
    assert store.leases(BOT) == 2 and store.acquire(BOT, 2, 60) is None
    assert store.renew(BOT, second, 60, 2) is True  # renewing a held lease keeps it held
    assert store.leases(BOT) == 2
