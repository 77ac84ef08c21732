"""A shared service's limits and what it tells its operator. One owner keeps at most
MAX_BOTS_PER_OWNER registered bots (every ListBots reads every registration: one owner's
thousands once slowed everyone's calls), counted with each registration in one step. The
operator hears of Redis settings that put the data at risk, of tournaments waiting with no
worker alive, gets a 503 (not a 500) from the web UI while Redis is down, an honest message for
an expired record, and replaces a leaked token. A real ``arena serve`` on a private redis-server."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc
import pytest

from arena.tournament import TournamentSpec
from arena.v1 import arena_pb2
from referee.auth import create_owner
from referee.service import MAX_BOTS_PER_OWNER
from referee.store import Store, TooManyBots
from tests.services import redis_server, service
from tests.test_service import Api, code_of

pytestmark = pytest.mark.timeout(120)

ENDPOINT = "grpc://127.0.0.1:50071"  # registration does not dial: nothing listens


def bot(owner: str) -> dict[str, object]:
    return {"owner": owner, "games": ["rolldice"], "endpoint": ENDPOINT, "enabled": True, "created": 0.0}


@pytest.fixture
def store(tmp_path) -> Iterator[Store]:
    with redis_server(tmp_path) as server:
        yield Store(server.url)


def test_the_store_counts_an_owners_bots_and_refuses_beyond_the_limit(store):
    assert store.add_bot("a1", bot("alice"), limit=2) and store.add_bot("a2", bot("alice"), limit=2)
    with pytest.raises(TooManyBots, match="alice has 2 bots"):
        store.add_bot("a3", bot("alice"), limit=2)
    assert store.bot("a3") is None
    assert not store.add_bot("a1", bot("alice"), limit=2)  # a taken name is a taken name, not a third bot
    assert store.add_bot("b1", bot("bob"), limit=2)  # another owner's count is its own
    assert store.add_bot("a3", bot("alice"))  # no limit (an operator's)


def test_bots_registered_before_counts_were_kept_are_counted_once(store):
    for i in range(3):  # as an older version stored them: no count
        store.redis.hset(store.key("bots"), f"old{i}", '{"owner": "alice", "games": [], "endpoint": "x"}')
    assert store.add_bot("new", bot("alice"), limit=4)
    with pytest.raises(TooManyBots):
        store.add_bot("newer", bot("alice"), limit=4)
    assert int(store.redis.hget(store.key("bot_counts"), "alice")) == 4


def test_an_owner_whose_bots_all_came_before_counts_were_kept_has_them_counted(store):
    """`arena admin owners` said 0 bots for such an owner (an upgrade probe): it reads the count."""
    for i in range(3):
        store.redis.hset(store.key("bots"), f"old{i}", '{"owner": "bob", "games": [], "endpoint": "x"}')
    assert store.bot_count("bob") == 3 and store.bot_count("nobody") == 0
    assert not store.redis.hexists(store.key("bot_counts"), "bob")  # read only: add_bot counts once


def test_registrations_at_once_never_both_take_the_last_place(store):
    store.add_bot("first", bot("alice"), limit=2)
    outcomes: list[str] = []

    def register(name: str) -> None:
        try:
            outcomes.append("added" if store.add_bot(name, bot("alice"), limit=2) else "taken")
        except TooManyBots:
            outcomes.append("full")

    threads = [threading.Thread(target=register, args=(f"racer{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["added", *["full"] * 7]


def test_the_service_refuses_an_owners_bot_beyond_the_limit_but_not_an_operators(tmp_path):
    with redis_server(tmp_path) as redis, service(redis.url, tmp_path) as srv:
        store = Store(redis.url)
        alice = Api(srv.address, create_owner(store, "alice"))
        ops = Api(srv.address, create_owner(store, "ops", operator=True))
        for i in range(MAX_BOTS_PER_OWNER):
            alice.RegisterBot(arena_pb2.RegisterBotRequest(name=f"a{i:03d}", games=["rolldice"], endpoint=ENDPOINT))
        code, _, details = code_of(
            alice.RegisterBot, arena_pb2.RegisterBotRequest(name="one-more", games=["rolldice"], endpoint=ENDPOINT)
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert details.startswith(f"you have {MAX_BOTS_PER_OWNER} bots, the most an owner may register")
        assert store.bot("one-more") is None
        for i in range(MAX_BOTS_PER_OWNER + 1):
            ops.RegisterBot(arena_pb2.RegisterBotRequest(name=f"o{i:03d}", games=["rolldice"], endpoint=ENDPOINT))
        listed = alice.ListBots(arena_pb2.ListBotsRequest(owner="alice", page_size=500)).bots
        assert len(listed) == MAX_BOTS_PER_OWNER


def test_a_hosted_bot_beyond_the_limit_is_refused_before_its_trial(tmp_path):
    from tests.cli_run import arena
    from tests.test_hosted_service import bot_dir

    with redis_server(tmp_path) as redis, service(redis.url, tmp_path) as srv:
        store = Store(redis.url)
        token = create_owner(store, "alice")
        for i in range(MAX_BOTS_PER_OWNER):
            assert store.add_bot(f"a{i:03d}", bot("alice"), limit=MAX_BOTS_PER_OWNER)
        refused = arena(
            "bots", "submit", "--name", "one-more", str(bot_dir(tmp_path, "well")),
            env={"ARENA_SERVER": srv.address, "ARENA_TOKEN": token},
        )  # fmt: skip
        assert refused.returncode == 1
        assert f"FAILED_PRECONDITION: you have {MAX_BOTS_PER_OWNER} bots" in refused.stderr
        assert "trial" not in refused.stderr and store.bot("one-more") is None
        assert store.redis.keys("*hosted*") == []  # nothing stored, the sandbox never asked


def test_redis_settings_that_put_the_data_at_risk_are_said(tmp_path):
    """The README asks for appendonly and noeviction; a service or worker on a Redis without them
    says so when it starts (an operator once ran on allkeys-lru without a word)."""
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        assert store.setting_warnings() == []  # the tests' Redis is set up as the README says
        store.redis.config_set("appendfsync", "no")  # the README said the check covered it; it did not
        assert store.setting_warnings() == [
            "Redis's appendfsync is no: a crash of the machine loses what the system had not yet written "
            "(Arena needs everysec or always)"
        ]
        store.redis.config_set("appendonly", "no")
        store.redis.config_set("maxmemory-policy", "allkeys-lru")
        assert store.setting_warnings() == [
            "Redis runs without appendonly: a restart loses every write since its last snapshot",
            "Redis's maxmemory-policy is allkeys-lru: under memory pressure it would evict queued batches and "
            "records (Arena needs noeviction)",
        ]
        from tests.cli_run import arena

        # A store URL whose database is no number was taken as db 0.
        done = arena("admin", "create-owner", "zed", "--redis", server.url.rsplit("/", 1)[0] + "/abc")
        assert done.returncode == 2 and "the database 'abc' is not a number" in done.stderr
        # Nor in other digits: '²' was db 0 to redis-py, '٣' db 3 (an outside probe).
        for digit in ("\u00b2", "\u0663"):
            done = arena("admin", "create-owner", "zed", "--redis", server.url.rsplit("/", 1)[0] + "/" + digit)
            assert done.returncode == 2 and f"the database {digit!r} is not a number" in done.stderr, done.stderr
        assert store.owner("zed") is None


def test_the_web_ui_says_the_store_is_down_with_a_503_not_a_500(tmp_path):
    import urllib.error
    import urllib.request

    with redis_server(tmp_path) as redis, service(redis.url, tmp_path) as srv:
        page = f"http://127.0.0.1:{srv.http_port}/games/skyfive"
        assert urllib.request.urlopen(page, timeout=30).status == 200
        redis.stop()
        try:
            with pytest.raises(urllib.error.HTTPError) as down:
                urllib.request.urlopen(page, timeout=60)
        finally:
            redis.start()
        assert down.value.code == 503 and down.value.headers["Retry-After"] == "2"
        assert down.value.read().decode() == "the store is unavailable; retry in 2s\n"
        assert "Traceback" not in srv.log.read_text()


def test_an_expired_record_is_said_to_have_expired_not_to_come(tmp_path):
    from tests.services import wait_for, workers

    with (
        redis_server(tmp_path) as redis,
        workers(redis.url, tmp_path, count=1, concurrency=1, metrics=False),
        service(redis.url, tmp_path) as srv,
    ):
        store = Store(redis.url)
        alice = Api(srv.address, create_owner(store, "alice"))
        t = alice.CreateTournament(arena_pb2.CreateTournamentRequest(game="rolldice", bots=["random", "heuristic"]))
        wait_for(lambda: store.tournament(t.id)["status"] == "complete", 60, "the tournament")
        for part in ("matches", "groups", "events"):  # as their retention ends
            store.redis.delete(store.key("t", t.id, part))
        code, _, details = code_of(alice.GetMatch, arena_pb2.GetMatchRequest(id=f"{t.id}:m000001"))
        assert code == grpc.StatusCode.NOT_FOUND
        assert details.startswith(f"match m000001 of {t.id} is no longer stored: a tournament's records are kept")
        assert "(yet)" not in details
        # The list says so too: it said "no matches", as for a tournament that played none.
        from tests.cli_run import arena

        token = create_owner(store, "lister")
        env = {"ARENA_SERVER": srv.address, "ARENA_TOKEN": token}
        listed = arena("matches", "list", "--tournament", t.id, env=env)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.startswith(f"no matches stored: {t.id} played ")
        assert "ARENA_RETENTION_DAYS" in listed.stdout


def test_an_operator_gives_an_owner_a_new_token_and_the_old_one_stops_working(tmp_path):
    from referee.auth import hash_token
    from tests.cli_run import arena

    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        old = create_owner(store, "alice")
        done = arena("admin", "new-token", "alice", "--redis", redis.url)
        assert done.returncode == 0, done.stderr
        new = done.stdout.strip()
        assert new != old and "alice: 1 old token(s) revoked" in done.stderr
        assert store.owner_of_token(hash_token(old)) is None and store.owner_of_token(hash_token(new)) == "alice"
        nobody = arena("admin", "new-token", "nobody", "--redis", redis.url)
        assert nobody.returncode == 2 and "no owner 'nobody'" in nobody.stderr
        with service(redis.url, tmp_path) as srv:
            assert Api(srv.address, new).WhoAmI(arena_pb2.WhoAmIRequest()).name == "alice"
            code, _, _ = code_of(Api(srv.address, old).WhoAmI, arena_pb2.WhoAmIRequest())
            assert code == grpc.StatusCode.UNAUTHENTICATED


def test_tournaments_waiting_with_no_worker_alive_are_found(tmp_path):
    """A service on another database than its workers (or with none started) had tournaments
    sit queued forever, without a word: workers say they are alive, the service says when
    none is."""
    import json
    import time

    from tests.services import wait_for, workers

    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        assert store.workers_alive() == 0
        store.redis.hset(
            store.key("t", "rolldice-20261205-000000-00000001"),
            mapping={"status": "queued", "created": time.time() - 120, "spec": json.dumps({"game": "rolldice"})},
        )
        store.redis.sadd(store.key("active"), "rolldice-20261205-000000-00000001")
        assert store.waiting_without_workers(60) == ["rolldice-20261205-000000-00000001"]
        assert store.waiting_without_workers(600) == []  # not waiting that long yet
        store.worker_seen("gone", 1)
        time.sleep(2.1)
        assert store.workers_alive() == 0  # said alive, then silent past its time
        with workers(redis.url, tmp_path, count=1, concurrency=1, metrics=False):
            wait_for(lambda: store.workers_alive() == 1, 30, "the worker to say it is alive")
            assert store.waiting_without_workers(60) == []


def test_the_service_says_which_tournaments_wait_for_another_game_version_and_frees_a_cancelled_one(tmp_path):
    """Batches parked by workers of another game version (``Store.park``): the service names
    them in its log, and once the tournament is cancelled sends them again (a batch must see the
    cancel to store the board), whatever game versions it has."""
    from tests.services import wait_for

    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2)
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        assert store.create_tournament("stuck", spec, total=4, batches=0)
        store.plan_batches("stuck", 2, 2)
        for batch in store.fill("stuck"):
            assert store.park("stuck", batch.number, batch.seq, "rolldice", "0.9") == "parked"
        from referee import metrics

        collected = metrics.StoreCollector(store, "arena").collect()
        assert [m.samples[0].value for m in collected if m.name == "arena_tournaments_parked"] == [1]
        with service(redis.url, tmp_path) as srv:
            said = "1 tournament(s) wait for a worker of another game version (e.g. stuck: rolldice 0.9)"
            wait_for(lambda: said in srv.log.read_text(), 30, "the warning")
            assert store.parked() == {"stuck": ("rolldice", "0.9")}  # not the service's to send
            store.cancel("stuck")
            wait_for(lambda: store.parked() == {}, 30, "the parked batches sent again")
            assert sorted(entry[0] for entry in store.inflight("stuck").values()) == ["q", "q"]


def test_workers_say_which_game_versions_they_play_for_as_long_as_they_are_alive(tmp_path):
    """A worker of another game version leaves a batch to a live worker of the tournament's
    version rather than parking it (``Store.version_alive``, workers.tasks.play_batch)."""
    import time

    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        assert not store.version_alive("rolldice", "0.9")
        store.worker_seen("old", 1, [("rolldice", "0.9"), ("skyfive", "1.0")])
        store.worker_seen("new", 30, [("rolldice", "1.0")])
        assert store.version_alive("rolldice", "0.9") and store.version_alive("skyfive", "1.0")
        assert store.version_alive("rolldice", "1.0") and not store.version_alive("skyfive", "1.2")
        time.sleep(2.1)  # the old node's time is up
        assert not store.version_alive("rolldice", "0.9") and store.version_alive("rolldice", "1.0")
        assert store.workers_alive() == 1
        store.worker_seen("new", 30, [])  # the latest word of every node counts, not only the last
        assert store.version_alive("rolldice", "1.0")


def test_an_operator_lists_the_owners_with_what_each_keeps(tmp_path):
    """`arena admin owners`: who has an account, which are operators, and what each keeps
    (bots, tournaments running, hosted bytes), never a token."""
    import json

    from arena.cli.hosted_cmd import archive_bytes
    from referee.hosted import versions
    from tests.cli_run import arena
    from tests.test_hosted_quota import variant

    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        empty = arena("admin", "owners", "--redis", redis.url)
        assert empty.returncode == 0 and empty.stdout.strip() == "no owners yet: arena admin create-owner NAME"
        tokens = [create_owner(store, "bob"), create_owner(store, "alice"), create_owner(store, "ops", operator=True)]
        for name in ("a1", "a2"):
            assert store.add_bot(name, bot("alice"), limit=MAX_BOTS_PER_OWNER)
        store.add_bot("hosted-one", {**bot("alice"), "endpoint": "hosted:hosted-one"}, limit=MAX_BOTS_PER_OWNER)
        data = archive_bytes(variant(tmp_path, 1))
        versions.save_version(store, "hosted-one", "alice", versions.check_upload(data), data)
        spec = TournamentSpec(game="rolldice", bots=["random", "heuristic"], players=2, repeats=1, seed=1)
        for tournament_id in ("t1", "t2", "t3"):
            assert store.create_tournament(tournament_id, spec, 2, 1, owner="bob")
        store.redis.hset(store.key("t", "t2"), "status", "running")
        store.redis.hset(store.key("t", "t3"), "status", "complete")  # ended: not running any more
        listed = arena("admin", "owners", "--redis", redis.url, "--json")
        assert listed.returncode == 0, listed.stderr
        rows = {row["owner"]: row for row in json.loads(listed.stdout)}
        assert list(rows) == ["alice", "bob", "ops"]
        assert rows["alice"]["bots"] == 3 and rows["alice"]["hosted_bytes"] == len(data)
        assert rows["bob"]["tournaments_running"] == 2 and rows["bob"]["bots"] == 0
        assert [rows[n]["operator"] for n in rows] == [False, False, True]
        table = arena("admin", "owners", "--redis", redis.url)
        assert table.returncode == 0
        lines = table.stdout.splitlines()
        assert lines[0].split() == ["owner", "operator", "created", "(UTC)", "bots", "running", "hosted", "MiB"]
        assert lines[1].split()[:2] == ["alice", "no"] and lines[1].split()[3:5] == ["3", "0"]
        assert lines[3].split()[:2] == ["ops", "yes"]
        assert not any(token in listed.stdout + table.stdout for token in tokens)
