"""The referee service over real gRPC: a real `arena serve`, redis-server, Celery worker and
remote SDK bots. Lifecycle, validation codes, authentication and permissions, privacy,
concurrency, rate limits, graceful shutdown, health and reflection."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.record import MatchRecord, replay
from arena.registry import get_game
from arena.v1 import arena_pb2, arena_pb2_grpc
from referee.auth import create_owner
from referee.errors import bad_request_field
from referee.store import Store
from tests.remote_helpers import bot_process, misbehaving, served
from tests.services import ROOT, redis_server, service, wait_for, workers

pytestmark = pytest.mark.timeout(300)


class Api:
    """A client with a token (None = no token)."""

    def __init__(self, address: str, token: str | None) -> None:
        self.channel = grpc.insecure_channel(address)
        self.stub = arena_pb2_grpc.ArenaServiceStub(self.channel)
        self.metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def __getattr__(self, method: str):  # type: ignore[no-untyped-def]
        call = getattr(self.stub, method)
        return lambda request, **kw: call(request, metadata=self.metadata, timeout=kw.pop("timeout", 60), **kw)

    def stream(self, method: str, request):  # type: ignore[no-untyped-def]
        return getattr(self.stub, method)(request, metadata=self.metadata)


def code_of(call, request) -> tuple[grpc.StatusCode, str | None, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as info:
        call(request)
    error = info.value
    return error.code(), bad_request_field(error), error.details()


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("service")
    with redis_server(tmp) as redis, workers(redis.url, tmp, count=1, concurrency=2), service(redis.url, tmp) as srv:
        store = Store(redis.url)
        tokens = {
            "ops": create_owner(store, "ops", operator=True),
            "alice": create_owner(store, "alice"),
            "bob": create_owner(store, "bob"),
        }
        with bot_process(served("heuristic", "skyfive")) as bot_a, bot_process(served("random")) as bot_b:
            yield {"redis": redis, "service": srv, "tokens": tokens, "bots": (bot_a, bot_b), "store": store, "tmp": tmp}


def api(stack, who: str | None) -> Api:
    return Api(stack["service"].address, stack["tokens"].get(who) if who else None)


def watch_to_end(client: Api, tournament_id: str) -> list[arena_pb2.TournamentUpdate]:
    return list(client.stream("WatchTournament", arena_pb2.WatchTournamentRequest(tournament_id=tournament_id)))


def test_lifecycle_with_two_remote_sdk_bots(stack, tmp_path):
    alice = api(stack, "alice")
    bot_a, bot_b = stack["bots"]
    assert alice.WhoAmI(arena_pb2.WhoAmIRequest()).name == "alice"
    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-heuristic", games=["skyfive"], endpoint=bot_a))
    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-random", games=["skyfive", "vivo"], endpoint=bot_b))
    listed = {b.name: b for b in alice.ListBots(arena_pb2.ListBotsRequest(game="skyfive")).bots}
    assert {"alice-heuristic", "alice-random"} <= set(listed) and listed["alice-heuristic"].endpoint == bot_a

    created = alice.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="skyfive", bots=["alice-heuristic", "alice-random", "heuristic"], repeats=3
        )
    )
    assert created.owner == "alice" and created.total == 18 and created.status in ("queued", "running")
    updates = watch_to_end(alice, created.id)
    assert updates[-1].final and updates[-1].tournament.status == "complete" and updates[-1].tournament.done == 18
    assert [u.tournament.done for u in updates] == sorted(u.tournament.done for u in updates)
    final = updates[-1].leaderboard
    assert {r.bot for r in final.rows} == {"alice-heuristic", "alice-random", "heuristic"}
    assert all(r.ci_low <= r.rating <= r.ci_high for r in final.rows)

    board = alice.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=created.id))
    assert [(r.bot, r.rating) for r in board.rows] == [(r.bot, r.rating) for r in final.rows]
    game_board = alice.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="skyfive"))
    assert "alice-heuristic" in {r.bot for r in game_board.rows}

    matches = alice.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=created.id))
    assert matches.total == 18 and len(matches.matches) == 18
    detail = alice.GetMatch(arena_pb2.GetMatchRequest(id=matches.matches[0].id))
    assert detail.spectator and detail.events
    record = MatchRecord.loads(detail.record_json)
    replay(get_game("skyfive"), record)
    path = tmp_path / "match.json"
    path.write_text(detail.record_json + "\n")
    out = subprocess.run([sys.executable, "-m", "arena", "replay", str(path)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr

    bot = alice.GetBot(arena_pb2.GetBotRequest(name="alice-heuristic"))
    assert bot.ratings and bot.ratings[0].game == "skyfive"
    game = alice.DescribeGame(arena_pb2.DescribeGameRequest(game="skyfive"))
    names = {f.name for f in game.protocol.file}
    assert {"arena/games/v1/skyfive.proto", "arena/v1/bot.proto", "google/protobuf/any.proto"} <= names
    assert game.observation_type == "arena.games.v1.skyfive.Observation" and "heuristic" in game.builtin_bots


def test_cli_client_commands(stack):
    env = {"ARENA_SERVER": stack["service"].address, "ARENA_TOKEN": stack["tokens"]["bob"], "PYTHONPATH": str(ROOT)}

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        import os

        return subprocess.run(
            [sys.executable, "-m", "arena", *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, **env},
            timeout=120,
        )

    bot_a, _ = stack["bots"]
    assert arena("bots", "register", "--name", "bob-bot", "--games", "skyfive", "--endpoint", bot_a).returncode == 0
    listed = arena("bots", "list", "--json")
    assert "bob-bot" in listed.stdout
    created = arena("tournaments", "create", "--game", "skyfive", "--bots", "bob-bot,random", "--repeats", "2")
    assert created.returncode == 0, created.stderr
    tournament_id = created.stdout.strip()
    watched = arena("tournaments", "watch", tournament_id)
    assert watched.returncode == 0 and "bob-bot" in watched.stdout
    assert arena("leaderboard", "--game", "skyfive").returncode == 0
    first = arena("matches", "list", "--tournament", tournament_id).stdout.split()[0]
    assert arena("matches", "get", first).returncode == 0
    bad = arena("bots", "register", "--name", "bob-2", "--games", "chess", "--endpoint", bot_a)
    assert bad.returncode == 1
    assert "INVALID_ARGUMENT" in bad.stderr and "(field games[0])" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    challenge = arena("challenge", "--bot", "bob-bot", "--game", "skyfive", "--opponents", "heuristic", "--seed", "3")
    assert challenge.returncode == 0, challenge.stderr
    assert "you chose" in challenge.stdout and "rank" in challenge.stdout


INVALID = [
    ("RegisterBot", arena_pb2.RegisterBotRequest(name="!", games=["skyfive"], endpoint="grpc://h:1"), "name"),
    ("RegisterBot", arena_pb2.RegisterBotRequest(name="heuristic", games=["skyfive"], endpoint="grpc://h:1"), "name"),
    ("RegisterBot", arena_pb2.RegisterBotRequest(name="ok-bot", games=[], endpoint="grpc://h:1"), "games"),
    (
        "RegisterBot",
        arena_pb2.RegisterBotRequest(name="ok-bot", games=["skyfive", "go"], endpoint="grpc://h:1"),
        "games[1]",
    ),
    ("RegisterBot", arena_pb2.RegisterBotRequest(name="ok-bot", games=["skyfive"], endpoint="http://h:1"), "endpoint"),
    ("CreateTournament", arena_pb2.CreateTournamentRequest(game="go", bots=["random", "heuristic"]), "game"),
    ("CreateTournament", arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random"]), "bots"),
    ("CreateTournament", arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "ghost"]), "bots[1]"),
    (
        "CreateTournament",
        arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic"], players=9),
        "players",
    ),
    (
        "CreateTournament",
        arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic"], format="swiss"),
        "format",
    ),
    (
        "CreateTournament",
        arena_pb2.CreateTournamentRequest(game="rolldice", bots=["random", "heuristic"], options={"target": "x"}),
        "options[target]",
    ),
    (
        "CreateTournament",
        arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic"], on_error="ignore"),
        "on_error",
    ),
    (
        "CreateTournament",
        arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic:risk=9"]),
        "bots[1]",
    ),
    (
        "CreateTournament",
        arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic"], repeats=1_000_000),
        "repeats",
    ),
    ("DescribeGame", arena_pb2.DescribeGameRequest(game="chess"), "game"),
    ("GetMatch", arena_pb2.GetMatchRequest(id="not-a-match"), "id"),
    ("GetLeaderboard", arena_pb2.GetLeaderboardRequest(), "scope"),
]


@pytest.mark.parametrize(("method", "request_message", "field"), INVALID, ids=[f"{m}-{f}" for m, _, f in INVALID])
def test_invalid_requests_name_the_field(stack, method, request_message, field):
    code, bad_field, details = code_of(getattr(api(stack, "alice"), method), request_message)
    assert (code, bad_field) == (grpc.StatusCode.INVALID_ARGUMENT, field), details
    assert "Traceback" not in details


@pytest.mark.parametrize(
    ("method", "request_message", "code"),
    [
        ("GetBot", arena_pb2.GetBotRequest(name="nobody"), grpc.StatusCode.NOT_FOUND),
        ("GetTournament", arena_pb2.GetTournamentRequest(tournament_id="nope"), grpc.StatusCode.NOT_FOUND),
        ("WatchTournament", arena_pb2.WatchTournamentRequest(tournament_id="nope"), grpc.StatusCode.NOT_FOUND),
        ("GetMatch", arena_pb2.GetMatchRequest(id="nope:m000001"), grpc.StatusCode.NOT_FOUND),
        ("UpdateBot", arena_pb2.UpdateBotRequest(name="nobody", endpoint="grpc://h:1"), grpc.StatusCode.NOT_FOUND),
    ],
)
def test_missing_things_are_not_found(stack, method, request_message, code):
    client = api(stack, "alice")
    if method == "WatchTournament":
        with pytest.raises(grpc.RpcError) as info:
            list(client.stream(method, request_message))
        assert info.value.code() == code
    else:
        assert code_of(getattr(client, method), request_message)[0] == code


def test_authentication_and_permissions(stack):
    bot_a, _ = stack["bots"]
    alice, bob, anonymous = api(stack, "alice"), api(stack, "bob"), api(stack, None)
    assert code_of(anonymous.ListGames, arena_pb2.ListGamesRequest())[0] == grpc.StatusCode.UNAUTHENTICATED
    wrong = Api(stack["service"].address, "arena_not-a-token")
    assert code_of(wrong.ListGames, arena_pb2.ListGamesRequest())[0] == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as info:
        list(anonymous.stream("WatchTournament", arena_pb2.WatchTournamentRequest(tournament_id="x")))
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED

    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-private", games=["skyfive"], endpoint=bot_a))
    again = arena_pb2.RegisterBotRequest(name="alice-private", games=["skyfive"], endpoint=bot_a)
    assert code_of(bob.RegisterBot, again)[0] == grpc.StatusCode.ALREADY_EXISTS
    denied = grpc.StatusCode.PERMISSION_DENIED
    assert code_of(bob.UpdateBot, arena_pb2.UpdateBotRequest(name="alice-private", endpoint=bot_a))[0] == denied
    assert code_of(bob.DisableBot, arena_pb2.DisableBotRequest(name="alice-private"))[0] == denied
    assert code_of(bob.CreateOwner, arena_pb2.CreateOwnerRequest(name="mallory"))[0] == denied
    # Bob sees Alice's bot but not where it is served.
    seen = {b.name: b for b in bob.ListBots(arena_pb2.ListBotsRequest()).bots}
    assert seen["alice-private"].endpoint == "" and seen["alice-private"].owner == "alice"
    # The operator may act on anyone's bot and create owners.
    ops = api(stack, "ops")
    created = ops.CreateOwner(arena_pb2.CreateOwnerRequest(name="carol"))
    assert created.token.startswith("arena_")
    assert Api(stack["service"].address, created.token).WhoAmI(arena_pb2.WhoAmIRequest()).name == "carol"
    assert code_of(ops.CreateOwner, arena_pb2.CreateOwnerRequest(name="carol"))[0] == grpc.StatusCode.ALREADY_EXISTS
    assert not ops.DisableBot(arena_pb2.DisableBotRequest(name="alice-private")).enabled
    disabled = arena_pb2.CreateTournamentRequest(game="skyfive", bots=["alice-private", "random"])
    assert code_of(alice.CreateTournament, disabled)[0] == grpc.StatusCode.FAILED_PRECONDITION
    # Tournaments: only their owner (or an operator) cancels them.
    t = alice.CreateTournament(
        arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic"], repeats=300)
    )
    assert code_of(bob.CancelTournament, arena_pb2.CancelTournamentRequest(tournament_id=t.id))[0] == denied
    assert alice.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=t.id)).status == "cancelled"
    again_cancel = arena_pb2.CancelTournamentRequest(tournament_id=t.id)
    assert code_of(alice.CancelTournament, again_cancel)[0] == grpc.StatusCode.FAILED_PRECONDITION


def test_privacy_while_a_tournament_runs(stack):
    """Bob's failing bot: Alice sees neither its errors nor hidden information until the end."""
    alice, bob = api(stack, "alice"), api(stack, "bob")
    slow_failing = misbehaving("illegal", "--at", "0")
    with bot_process(slow_failing) as address:
        bob.RegisterBot(arena_pb2.RegisterBotRequest(name="bob-flaky", games=["vivo"], endpoint=address))
        t = bob.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game="vivo",
                bots=["bob-flaky", "random", "heuristic"],
                players=3,
                repeats=40,
                on_error="substitute",
                error_budget=100,
                bot_concurrency=1,
            )
        )
        store: Store = stack["store"]
        wait_for(lambda: store.tournament(t.id)["done"] >= 2, 60, "some matches")
        assert store.tournament(t.id)["status"] == "running"
        assert bob.GetBot(arena_pb2.GetBotRequest(name="bob-flaky")).recent_failures
        assert not alice.GetBot(arena_pb2.GetBotRequest(name="bob-flaky")).recent_failures
        first = alice.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=t.id, limit=1)).matches[0]
        running_view = alice.GetMatch(arena_pb2.GetMatchRequest(id=first.id))
        assert not running_view.spectator
        assert all(e.kind != "deal" for e in running_view.events)  # dealt hands are private events
        assert MatchRecord.loads(running_view.record_json).failures == []  # Bob's errors hidden from Alice
        bob.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=t.id))
        wait_for(lambda: alice.GetMatch(arena_pb2.GetMatchRequest(id=first.id)).spectator, 30, "the spectator view")
        ended_view = alice.GetMatch(arena_pb2.GetMatchRequest(id=first.id))
        assert len(ended_view.events) > len(running_view.events)
        assert alice.GetBot(arena_pb2.GetBotRequest(name="bob-flaky")).recent_failures


def test_concurrent_clients_create_and_watch(stack):
    def one(n: int) -> tuple[str, int]:
        client = api(stack, "alice" if n % 2 else "bob")
        t = client.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="rolldice", bots=["random", "heuristic"], repeats=5, seed=n + 1)
        )
        updates = watch_to_end(client, t.id)
        return updates[-1].tournament.status, updates[-1].tournament.done

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(one, range(6)))
    assert results == [("complete", 10)] * 6


def test_health_and_reflection(stack):
    channel = grpc.insecure_channel(stack["service"].address)
    health = health_pb2_grpc.HealthStub(channel)
    for name in ("", "arena.v1.ArenaService"):
        assert (
            health.Check(health_pb2.HealthCheckRequest(service=name)).status == health_pb2.HealthCheckResponse.SERVING
        )
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    replies = list(reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
    services = {s.name for s in replies[0].list_services_response.service}
    assert {"arena.v1.ArenaService", "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"} <= services


def test_rate_limit_and_graceful_shutdown_during_a_watch(stack, tmp_path):
    redis = stack["redis"]
    with service(redis.url, tmp_path, "--rate", "5", "--burst", "5", "--grace", "5") as srv:
        client = Api(srv.address, stack["tokens"]["alice"])
        codes = []
        for _ in range(12):
            try:
                client.ListGames(arena_pb2.ListGamesRequest())
                codes.append("OK")
            except grpc.RpcError as error:
                codes.append(error.code().name)
        assert codes[:5] == ["OK"] * 5 and "RESOURCE_EXHAUSTED" in codes
        time.sleep(1.5)  # the bucket refills

        t = client.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic"], repeats=500)
        )
        seen: dict[str, object] = {}

        def watch() -> None:
            try:
                for _update in client.stream("WatchTournament", arena_pb2.WatchTournamentRequest(tournament_id=t.id)):
                    seen["updates"] = int(seen.get("updates", 0)) + 1  # type: ignore[arg-type]
            except grpc.RpcError as error:
                seen["code"] = error.code()
                seen["details"] = error.details()

        watcher = threading.Thread(target=watch)
        watcher.start()
        wait_for(lambda: seen.get("updates"), 30, "a first update")
        began = time.monotonic()
        srv.terminate()
        watcher.join(15)
        assert not watcher.is_alive()
        assert seen["code"] == grpc.StatusCode.UNAVAILABLE and "shutting down" in str(seen["details"])
        assert srv.process.wait(15) == 0
        assert time.monotonic() - began < 10
        client.channel.close()
        api(stack, "alice").CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=t.id))


def test_unknown_status_never_leaks_a_traceback(stack):
    # A store failure inside a handler is an INTERNAL error with an incident id only.
    store: Store = stack["store"]
    store.redis.set(store.key("game", "vivo", "leaderboard"), "{not json")
    code, _, details = code_of(api(stack, "alice").GetLeaderboard, arena_pb2.GetLeaderboardRequest(game="vivo"))
    store.redis.delete(store.key("game", "vivo", "leaderboard"))
    assert code == grpc.StatusCode.INTERNAL and "incident" in details and "Traceback" not in details
    assert "json" not in details.lower()
