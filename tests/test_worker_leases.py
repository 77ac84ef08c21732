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
