"""A bot owner's cap on the matches played at once against the bot (``max_matches``), across
every tournament and worker: set at registration or later, through a real ``arena serve``;
held by the workers' leases (``workers.concurrent.Leases``) on a private redis-server."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from arena.tournament import TournamentSpec
from arena.v1 import arena_pb2
from referee.auth import create_owner
from referee.errors import bad_request_field
from referee.store import Store
from tests.cli_run import arena
from tests.services import redis_server, service
from tests.test_service import Api
from workers import concurrent
from workers.concurrent import Leases, owners_caps

pytestmark = pytest.mark.timeout(120)

ENDPOINT = "grpc://127.0.0.1:50071"  # registration checks the address only: nothing listens


def directly(call: Any, *args: Any) -> Any:
    return call(*args)


@pytest.fixture
def store(tmp_path) -> Iterator[Store]:
    with redis_server(tmp_path) as server:
        yield Store(server.url)


def test_a_bots_cap_holds_across_tournaments_and_is_read_again(store, monkeypatch):
    store.add_bot("capped", {"owner": "alice", "games": ["rolldice"], "endpoint": ENDPOINT, "enabled": True})
    spec = TournamentSpec(game="rolldice", bots=("capped", "random"), players=2, addresses={"capped": ENDPOINT})
    assert owners_caps(store, spec)(ENDPOINT) == 0  # no cap of the owner's: the tournament's limit
    store.update_bot("capped", {"max_matches": 2})
    # Two tournaments each allowing 4 matches at once against the bot: together no more than 2.
    first = Leases(store, 4, directly, 60, 0.05, owners_caps(store, spec))
    second = Leases(store, 4, directly, 60, 0.05, owners_caps(store, spec))
    assert first.take(0, [ENDPOINT]) and second.take(0, [ENDPOINT])
    assert not first.take(1, [ENDPOINT]) and not second.take(1, [ENDPOINT])
    assert store.leases(ENDPOINT) == 2
    # The owner raises the cap: read again once CAP_SECONDS have passed (none here).
    monkeypatch.setattr(concurrent, "CAP_SECONDS", 0.0)
    store.update_bot("capped", {"max_matches": 3})
    time.sleep(0.06)  # a bot found busy is asked again after the poll interval
    assert first.take(1, [ENDPOINT]) and not second.take(1, [ENDPOINT])
    store.update_bot("capped", {"max_matches": 0})  # removed: the tournament's limit again
    time.sleep(0.06)
    assert second.take(1, [ENDPOINT]) and store.leases(ENDPOINT) == 4


def test_the_lowest_cap_of_the_bots_at_one_endpoint_applies(store):
    for name, cap in (("a", 5), ("b", 0), ("c", 2)):
        store.add_bot(
            name, {"owner": "o", "games": ["rolldice"], "endpoint": ENDPOINT, "enabled": True, "max_matches": cap}
        )
    spec = TournamentSpec(
        game="rolldice", bots=("a", "b", "c", "random"), players=2, addresses={b: ENDPOINT for b in "abc"}
    )
    caps = owners_caps(store, spec)
    assert caps(ENDPOINT) == 2 and caps("grpc://127.0.0.1:1") == 0


def test_an_owner_sets_and_changes_the_cap_through_the_service_and_the_cli(tmp_path):
    with redis_server(tmp_path) as redis, service(redis.url, tmp_path) as srv:
        store = Store(redis.url)
        alice = create_owner(store, "alice")
        api = Api(srv.address, alice)
        with pytest.raises(grpc.RpcError) as refused:
            api.RegisterBot(
                arena_pb2.RegisterBotRequest(name="b1", games=["rolldice"], endpoint=ENDPOINT, max_matches=65)
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert bad_request_field(refused.value) == "max_matches"
        assert store.bot("b1") is None  # nothing stored
        bot = api.RegisterBot(
            arena_pb2.RegisterBotRequest(name="b1", games=["rolldice"], endpoint=ENDPOINT, max_matches=3)
        )
        assert bot.max_matches == 3 and store.bot("b1")["max_matches"] == 3
        # The cap alone changes; the endpoint stays.
        bot = api.UpdateBot(arena_pb2.UpdateBotRequest(name="b1", max_matches=1))
        assert (bot.max_matches, bot.endpoint) == (1, ENDPOINT)
        env = {"ARENA_TOKEN": alice}
        done = arena("bots", "update", "b1", "--max-matches", "0", "--server", srv.address, env=env)
        assert done.returncode == 0, done.stderr
        assert store.bot("b1")["max_matches"] == 0 and store.bot("b1")["endpoint"] == ENDPOINT
        nothing = arena("bots", "update", "b1", "--server", srv.address, env=env)
        assert nothing.returncode == 2
        assert "give --endpoint, --max-matches, --endpoint-key-file or several" in nothing.stderr
        shown = arena("bots", "get", "b1", "--server", srv.address, env=env)
        assert shown.returncode == 0 and "at most" not in shown.stdout
        arena("bots", "update", "b1", "--max-matches", "4", "--server", srv.address, env=env)
        shown = arena("bots", "get", "b1", "--server", srv.address, env=env)
        assert "at most 4 matches at once" in shown.stdout, shown.stdout
