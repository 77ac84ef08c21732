"""A worker's per-bot leases (``workers.concurrent.Leases``) when one lapses under a running
match: taken again if the bot has room, else the operator is told once; on a private
redis-server."""

from __future__ import annotations

import logging
import time

import pytest

from referee.store import Store
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
