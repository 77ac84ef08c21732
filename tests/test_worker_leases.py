"""A worker's per-bot leases (``workers.concurrent.Leases``) when one lapses under a running
match: taken again if the bot has room, else the operator is told once; and how a batch plays
its remote matches (``workers.concurrent.play_concurrently``): leases renewed, a cancel seen,
other batches taken for ``steal_seconds``; on a private redis-server."""

from __future__ import annotations

import contextlib
import logging
import time

import pytest

from arena.tournament import TournamentSpec
from referee.store import Store
from tests.remote_helpers import bot_process, misbehaving
from tests.services import redis_server
from workers.concurrent import Leases

BOT = "grpc://bot:1"


@pytest.fixture
def store(tmp_path):
    with redis_server(tmp_path) as server:
        yield Store(server.url)


def directly(call, *args):
    return call(*args)


def test_a_lapsed_lease_is_reported_once_and_taken_again_when_the_bot_has_room(store, caplog):
    leases = Leases(store, 1, directly, lease_seconds=0.3, poll=0.05)
    assert leases.take(0, [BOT])
    time.sleep(0.4)  # this worker stalled past its lease
    other = store.acquire(BOT, 1, 60)  # another worker's match takes the bot's one slot
    assert other is not None
    with caplog.at_level(logging.WARNING, logger="workers.concurrent"):
        leases.renew((ConnectionError,))
        leases.renew((ConnectionError,))
    warned = [r.getMessage() for r in caplog.records if "lapsed" in r.getMessage()]
    assert len(warned) == 1 and "match 0" in warned[0] and BOT in warned[0]
    assert store.leases(BOT) == 1
    store.release(BOT, other)
    leases.renew((ConnectionError,))  # room again: this match's lease is held once more
    assert store.leases(BOT) == 1 and store.acquire(BOT, 1, 60) is None
    leases.give_back(0)
    assert store.leases(BOT) == 0 and not leases.lost


def test_a_seat_that_forfeits_gives_back_its_bots_lease_while_the_match_plays_on(store, monkeypatch):
    """A refused or dead endpoint forfeits at the start, and the match plays on with a
    substitute for it; its lease was held to the match's end, so a squatter's matches (a
    registration of someone's keyed endpoint) kept the owner's own slots busy."""
    import contextlib
    import threading

    import referee.remote
    from arena.tournament import TournamentSpec, schedule
    from tests.remote_helpers import bot_process, misbehaving
    from tests.services import free_port, wait_for
    from workers.concurrent import play_concurrently
    from workers.tasks import INFRASTRUCTURE_ERRORS

    monkeypatch.setattr(referee.remote, "RECONNECT_SECONDS", 0.1)  # dialled again briefly, then forfeits
    dead = f"grpc://127.0.0.1:{free_port()}"  # nothing listens
    with bot_process(misbehaving("sleep", "--at", "0", "--sleep", "0.2")) as slow:
        spec = TournamentSpec(game="skyfive", bots=(dead, slow), players=2, repeats=1, seed=3, bot_concurrency=1)
        plan = list(schedule(spec))
        records = {}
        done = threading.Event()

        def play():
            try:
                play_concurrently(
                    store, "t", spec, plan, [0], per_process=4, on_record=records.__setitem__,
                    tick=lambda: None, steal=lambda: None, steal_seconds=0.0,
                    running_metric=contextlib.nullcontext, patiently=directly, errors=INFRASTRUCTURE_ERRORS,
                    bound=(4.0, "{seconds} s"), lease_seconds=30.0, lease_poll=0.05, cancel_check=0.5,
                    flush_seconds=0.05,
                )  # fmt: skip
            finally:
                done.set()

        thread = threading.Thread(target=play)
        thread.start()
        try:
            wait_for(lambda: store.leases(slow) == 1 and store.leases(dead) == 0, 3, "the dead seat's lease back")
            assert not done.is_set()  # while the match still plays
        finally:
            thread.join(30)
    (record,) = records.values()
    assert record.result["forfeited"][0] and not record.result["forfeited"][1]
    assert store.leases(slow) == 0 and store.leases(dead) == 0


def test_an_endpoint_is_released_once_every_seat_of_it_has_forfeited_once():
    """Two seats of one endpoint (a bot and its copy) hold one lease: it goes back after both
    have forfeited; a seat aborted again (a cancel after its forfeit) counts once."""
    import asyncio

    from workers.concurrent import _releasing

    class Seat:
        def __init__(self) -> None:
            self.told: list[str] = []

        def abort(self, verdict: str, reason: str) -> None:
            self.told.append(verdict)

    players = [Seat(), Seat(), Seat(), Seat()]
    addresses = ["grpc://a:1", "grpc://a:1", "grpc://b:1", "heuristic"]
    released: list[str] = []
    wrapped = _releasing(players, addresses, released.append)
    assert wrapped[3] is players[3]  # a built-in bot holds no lease

    def abort(seat: int, verdict: str = "timeout") -> None:
        asyncio.run(wrapped[seat].abort_async(verdict, "why"))

    abort(0)
    abort(0, "cancelled")
    assert released == [] and players[0].told == ["timeout", "cancelled"]
    abort(2)
    assert released == ["grpc://b:1"]
    abort(1)
    assert released == ["grpc://b:1", "grpc://a:1"]


def test_a_match_takes_all_of_its_leases_or_none(store):
    """All of a match's leases or none, so matches cannot deadlock on each other's bots (workers.concurrent)."""
    other_bot = "grpc://other:1"
    leases = Leases(store, 1, directly, lease_seconds=60, poll=0.0)  # a busy bot is asked again at once
    busy = store.acquire(other_bot, 1, 60)  # another worker's match holds the other bot's one slot
    assert busy is not None
    assert not leases.take(0, [BOT, other_bot])
    assert store.leases(BOT) == 0 and store.leases(other_bot) == 1  # the lease taken first went back
    assert leases.live == {} and leases.held[BOT] == 0
    store.release(other_bot, busy)
    assert leases.take(0, [BOT, other_bot])
    assert store.leases(BOT) == 1 and store.leases(other_bot) == 1


def test_a_running_match_renews_its_lease_so_a_bot_never_plays_past_its_limit(store, monkeypatch):
    """At most K matches at once against the same remote bot ... through a lease semaphore ...
    renewed while a match runs (README): a match longer than its lease keeps the bot's one slot."""
    import threading

    import workers.concurrent
    from tests.services import wait_for

    given_back = threading.Event()  # the match's leases go back as it ends: then the slot is free
    give_back = Leases.give_back

    def watched_give_back(self, index):
        given_back.set()
        give_back(self, index)

    monkeypatch.setattr(workers.concurrent.Leases, "give_back", watched_give_back)
    # About 3.6 s against a lease of 1.5 s, renewed well within it (margins for a loaded machine).
    with bot_process(misbehaving("sleeps", "--sleeps", "0:1.2,1:1.2,2:1.2")) as slow:
        spec = TournamentSpec(game="skyfive", bots=("random", slow), players=2, repeats=1, seed=3, bot_concurrency=1)
        records: dict[int, object] = {}
        done = threading.Event()

        def run():
            try:
                play(store, spec, [0], records, lease_seconds=1.5)
            finally:
                done.set()

        thread = threading.Thread(target=run)
        thread.start()
        grabbed = []  # another worker's leases on the bot while this match held its one slot
        try:
            wait_for(lambda: store.leases(slow) == 1, 5, "the match's lease")
            while not done.is_set() and not given_back.is_set():
                other = store.acquire(slow, 1, 60)
                if other is not None:
                    if not given_back.is_set():
                        grabbed.append(other)
                    store.release(slow, other)
                time.sleep(0.05)
        finally:
            thread.join(30)
    assert grabbed == [] and list(records) == [0]
    assert store.leases(slow) == 0


def play(store, spec, todo, records, steal=lambda: None, steal_seconds=0.0, lease_seconds=30.0):
    """``workers.concurrent.play_concurrently`` on tournament "t" as a worker's batch calls it."""
    from arena.tournament import schedule
    from workers.concurrent import play_concurrently
    from workers.tasks import INFRASTRUCTURE_ERRORS

    return play_concurrently(
        store, "t", spec, list(schedule(spec)), todo, per_process=4, on_record=records.__setitem__,
        tick=lambda: None, steal=steal, steal_seconds=steal_seconds,
        running_metric=contextlib.nullcontext, patiently=directly, errors=INFRASTRUCTURE_ERRORS,
        bound=(30.0, "{seconds} s"), lease_seconds=lease_seconds, lease_poll=0.05, cancel_check=0.25,
        flush_seconds=0.05,
    )  # fmt: skip


def test_a_cancel_aborts_the_running_remote_matches(store):
    """Cancel frees the workers at once (README): each running match tells its bots ``abort`` and hands
    over no record (its bot would answer only after 3 s)."""
    with bot_process(misbehaving("sleeps", "--sleeps", "0:1.5,1:1.5")) as slow:
        spec = TournamentSpec(game="skyfive", bots=("random", slow), players=2, repeats=1, seed=3)
        assert store.create_tournament("t", spec, total=2, batches=1)
        assert store.cancel("t") == "cancelled"  # seen at the batch's first cancel check, as its match plays
        records: dict[int, object] = {}
        assert play(store, spec, [0], records) is True
    assert records == {} and store.leases(slow) == 0


@pytest.mark.parametrize(("steal_seconds", "played"), [(0.0, [0]), (30.0, [0, 1, 2, 3])])
def test_a_batch_takes_its_tournament_s_queued_batches_for_steal_seconds_only(store, steal_seconds, played):
    """A batch takes queued batches of the same tournament itself ... for up to 30 s, then ... goes
    back to the queue, where other tournaments' batches wait their turn (README)."""
    offered = iter([[1], [2], [3]])
    with bot_process(misbehaving("sleep", "--at", "0", "--sleep", "0.2")) as remote:
        spec = TournamentSpec(game="skyfive", bots=("random", remote), players=2, repeats=2, seed=1)
        records: dict[int, object] = {}
        assert play(store, spec, [0], records, steal=lambda: next(offered, None), steal_seconds=steal_seconds) is False
    assert sorted(records) == played
