"""The Redis store on a private redis-server: idempotent, counted storing with one finaliser,
leases that expire, retention, owners and tokens."""

from __future__ import annotations

import time

import pytest

from arena.games.rolldice import GAME
from arena.runner import play_match
from arena.tournament import TournamentSpec
from bots.random_bot import RandomBot
from referee.auth import create_owner, hash_token
from referee.store import Store
from tests.services import redis_server


@pytest.fixture
def store(tmp_path):
    with redis_server(tmp_path) as server:
        yield Store(server.url, retention_days=2)


def record(seed: int):
    return play_match(GAME, GAME.config(2), seed, [RandomBot(), RandomBot()])


SPEC = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2)


def test_each_match_is_stored_and_counted_once_and_one_caller_finalises(store):
    assert store.create_tournament("t", SPEC, total=3, batches=1)
    assert not store.create_tournament("t", SPEC, total=3, batches=1)  # nothing overwritten
    first = store.store_matches("t", [(0, record(0)), (1, record(1))])
    assert [(s.new, s.done, s.finalize) for s in first] == [(True, 1, False), (True, 2, False)]
    again = store.store_matches("t", [(1, record(1)), (0, record(0))])  # a redelivered batch
    assert [(s.new, s.done, s.finalize) for s in again] == [(False, 2, False), (False, 2, False)]
    last = store.store_match("t", 2, record(2))
    assert (last.new, last.done, last.finalize) == (True, 3, True)
    assert not store.store_match("t", 2, record(2)).finalize  # finalisation is handed out once
    assert store.tournament("t")["done"] == 3 and len(store.matches("t")) == 3
    assert store.stored_indices("t", [0, 2, 5]) == {0, 2}
    cursor, indices = store.follow("t", "0", 0)
    assert indices == [0, 1, 2] and store.follow("t", cursor, 0)[1] == []
    assert store.match("t", 1).canonical() == record(1).canonical()


def test_records_expire_after_the_retention_days(store):
    store.create_tournament("t", SPEC, total=1, batches=1)
    store.store_match("t", 0, record(0))
    store.expire_matches("t")
    ttl = store.redis.ttl(store.key("t", "t", "matches"))
    assert 2 * 86400 - 5 <= ttl <= 2 * 86400
    assert store.redis.ttl(store.key("t", "t")) == -1  # the tournament itself is kept


def test_leases_limit_concurrency_and_expire(store):
    first = store.acquire("grpc://bot:1", 2, 60)
    second = store.acquire("grpc://bot:1", 2, 0.5)
    assert first and second and store.acquire("grpc://bot:1", 2, 60) is None
    assert store.acquire("grpc://other:1", 2, 60) is not None  # per endpoint
    store.release("grpc://bot:1", first)
    assert store.leases("grpc://bot:1") == 1
    time.sleep(0.6)  # the second lease's holder "died": its lease lapses
    assert store.leases("grpc://bot:1") == 0
    assert store.acquire("grpc://bot:1", 2, 60) is not None


def test_owners_get_tokens_whose_hash_alone_is_stored(store):
    token = create_owner(store, "alice")
    assert store.owner_of_token(hash_token(token)) == "alice"
    assert token.encode() not in b"".join(store.redis.hkeys(store.key("tokens")))
    with pytest.raises(ValueError, match="exists already"):
        create_owner(store, "alice")
    with pytest.raises(ValueError, match="owner name"):
        create_owner(store, "A!")
