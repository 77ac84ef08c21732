"""The referee service over real gRPC: a real `arena serve`, redis-server, Celery worker and
remote SDK bots. Lifecycle, validation codes, authentication and permissions, privacy,
concurrency, rate limits, graceful shutdown, health and reflection."""

from __future__ import annotations

import contextlib
import json
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
from bots.sdk import Bot
from referee.auth import create_owner
from referee.errors import bad_request_field, retry_after
from referee.store import Store
from tests.cli_run import arena as run_arena
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


def three_owners(store: Store) -> dict[str, str]:
    """The owners the service tests act as: an operator and two owners; their tokens by name."""
    return {
        "ops": create_owner(store, "ops", operator=True),
        "alice": create_owner(store, "alice"),
        "bob": create_owner(store, "bob"),
    }


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("service")
    with (
        redis_server(tmp) as redis,
        workers(redis.url, tmp, count=1, concurrency=2),
        service(redis.url, tmp, "--log-level", "INFO") as srv,
    ):
        store = Store(redis.url)
        tokens = three_owners(store)
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
    # Issue 10 16: a game's board has each bot's results, not zeros.
    row = next(r for r in game_board.rows if r.bot == "alice-heuristic")
    assert row.wins + row.draws + row.losses == row.games > 0 and row.mean_score > 0 and row.mean_rank >= 1

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
    env = {"ARENA_SERVER": stack["service"].address, "ARENA_TOKEN": stack["tokens"]["bob"]}

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return run_arena(*args, env=env)

    bot_a, _ = stack["bots"]
    assert arena("bots", "register", "--name", "bob-bot", "--games", "skyfive", "--endpoint", bot_a).returncode == 0
    listed = arena("bots", "list", "--json")
    assert "bob-bot" in listed.stdout
    created = arena("tournaments", "create", "--game", "skyfive", "--bots", "bob-bot,random", "--repeats", "2")
    assert created.returncode == 0, created.stderr
    tournament_id = created.stdout.strip()
    watched = arena("tournaments", "watch", tournament_id)
    assert watched.returncode == 0 and "bob-bot" in watched.stdout
    # Not a terminal: the final board on stdout says which tournament it is (progress on stderr).
    assert watched.stdout.splitlines()[0] == f"{tournament_id}: complete 4/4"
    assert arena("leaderboard", "--game", "skyfive").returncode == 0
    first = arena("matches", "list", "--tournament", tournament_id).stdout.split()[0]
    assert arena("matches", "get", first).returncode == 0
    bad = arena("bots", "register", "--name", "bob-2", "--games", "chess", "--endpoint", bot_a)
    assert bad.returncode == 1
    assert "INVALID_ARGUMENT" in bad.stderr and "(field games[0])" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    challenge = arena("challenge", "--bot", "bob-bot", "--game", "skyfive", "--opponents", "heuristic", "--seed", "3")
    assert challenge.returncode == 0, challenge.stderr
    assert "you chose" in challenge.stdout and "result: #" in challenge.stdout
    # A healthy bot plays its challenge: no verdict, no substitute (the wrapper that reports its
    # start to the stream once hid its two-phase hooks, and every first decision was a crash).
    assert "substituted" not in challenge.stdout and "FAILURE" not in challenge.stdout, challenge.stdout
    assert "forfeit" not in challenge.stdout, challenge.stdout
    # Issue 10 22: the seat-to-bot map first, events with their real seats, a result line.
    assert challenge.stdout.startswith("you are seat 0 (bob-bot); seats: 0 ")
    assert "[seat -1" not in challenge.stdout and " -1 " not in challenge.stdout
    shown = arena("matches", "get", first)
    assert shown.returncode == 0 and "seats: 0 " in shown.stdout and "\nresult: #1 " in shown.stdout
    assert "  [table] " in shown.stdout or "  [seat " in shown.stdout


def test_the_cli_gets_a_match_bigger_than_grpcs_default_reply(stack, tmp_path):
    """A long RollDice match (target 10,000, four players, two rerolls): a reply of more than
    gRPC's default 4 MiB, which the CLI's clients refused (a challenge played in full lost its
    record; an outside probe). They now take what the service sends (32 MiB)."""
    ops = api(stack, "ops")
    options = {"target": "10000", "rerolls": "2"}
    request = create(game="rolldice", bots=["random*4"], players=4, repeats=1, options=options, seed=1)
    tournament = ops.CreateTournament(request, timeout=30)
    assert watch_to_end(ops, tournament.id)[-1].tournament.status == "complete"
    with pytest.raises(grpc.RpcError) as refused:  # a client at gRPC's default limit
        ops.GetMatch(arena_pb2.GetMatchRequest(id=f"{tournament.id}:m000000"), timeout=60)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    env = {"ARENA_SERVER": stack["service"].address, "ARENA_TOKEN": stack["tokens"]["ops"]}
    got = run_arena("matches", "get", f"{tournament.id}:m000000", "--record", str(tmp_path / "m.json"), env=env)
    assert got.returncode == 0, got.stderr
    record = MatchRecord.loads((tmp_path / "m.json").read_text())
    assert len(record.decisions) > 10_000 and record.config["options"]["target"] == 10_000


def test_matches_get_record_keeps_a_runs_match_records_unless_forced(stack, tmp_path):
    """``matches get --record`` wrote straight over any file: a typo naming a tournament run's
    matches.jsonl replaced its records with one (play's and challenge's --record refused). It
    now refuses as they do, status 2, the file as it was; --force overwrites."""
    ops = api(stack, "ops")
    tournament = ops.CreateTournament(create(bots=["random", "heuristic"], repeats=1, seed=2), timeout=30)
    assert watch_to_end(ops, tournament.id)[-1].tournament.status == "complete"
    run = tmp_path / "run"
    run.mkdir()
    (run / "tournament.json").write_text("{}\n")
    kept = "".join(f'{{"line": {i}}}\n' for i in range(3))
    (run / "matches.jsonl").write_text(kept)
    env = {"ARENA_SERVER": stack["service"].address, "ARENA_TOKEN": stack["tokens"]["ops"]}
    get = ("matches", "get", f"{tournament.id}:m000000", "--record", str(run / "matches.jsonl"))
    refused = run_arena(*get, env=env)
    assert refused.returncode == 2, refused.stderr
    assert "holds a tournament run's match records (3): give --force to overwrite it" in refused.stderr
    assert (run / "matches.jsonl").read_text() == kept
    forced = run_arena(*get, "--force", env=env)
    assert forced.returncode == 0, forced.stderr
    record = MatchRecord.loads((run / "matches.jsonl").read_text())
    assert record.game == "skyfive" and record.match_id == "m000000"
    # A path in no directory is named before the service is asked; no file is left behind.
    missing = run_arena(*get[:3], "--record", str(tmp_path / "nowhere" / "m.json"), env=env)
    assert missing.returncode == 2 and "--record " in missing.stderr and "No such file" in missing.stderr


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
    ("CreateTournament", arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic*0"]), "bots[1]"),
    ("CreateTournament", arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "random*2"]), "bots"),
    ("CreateTournament", arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random*40", "heuristic*40"]), "bots"),
    ("DescribeGame", arena_pb2.DescribeGameRequest(game="chess"), "game"),
    ("GetMatch", arena_pb2.GetMatchRequest(id="not-a-match"), "id"),
    ("GetLeaderboard", arena_pb2.GetLeaderboardRequest(), "scope"),
]


@pytest.mark.parametrize(("method", "request_message", "field"), INVALID, ids=[f"{m}-{f}" for m, _, f in INVALID])
def test_invalid_requests_name_the_field(stack, method, request_message, field):
    code, bad_field, details = code_of(getattr(api(stack, "alice"), method), request_message)
    assert (code, bad_field) == (grpc.StatusCode.INVALID_ARGUMENT, field), details
    assert "Traceback" not in details


def test_copies_of_a_bot_fill_the_table(stack):
    alice = api(stack, "alice")
    created = alice.CreateTournament(
        arena_pb2.CreateTournamentRequest(game="skyfive", bots=["heuristic*3", "random"], players=4, repeats=1)
    )
    got = alice.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=created.id))
    assert list(got.bots) == ["heuristic", "heuristic#2", "heuristic#3", "random"]
    final = watch_to_end(alice, created.id)[-1]
    assert final.tournament.status == "complete"
    assert {r.bot for r in final.leaderboard.rows} == {"heuristic", "heuristic#2", "heuristic#3", "random"}


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
    code, _, details = code_of(ops.CreateOwner, arena_pb2.CreateOwnerRequest(name="carol-"))  # reads as carol
    assert code == grpc.StatusCode.ALREADY_EXISTS and "reads as 'carol'" in details
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
        # Issue 10 9a: no record (its seed deals the other rotations' hidden hands) until the end.
        assert running_view.record_json == ""
        assert running_view.summary.failures == 0 and not any(s.forfeited for s in running_view.summary.seats)
        # Issue 10 9: the same rule on every call: Alice's listing hides Bob's failures and forfeits.
        alice_list = alice.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=t.id)).matches
        bob_list = bob.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=t.id)).matches
        assert all(m.failures == 0 for m in alice_list) and any(m.failures for m in bob_list)
        failure = bob.GetBot(arena_pb2.GetBotRequest(name="bob-flaky")).recent_failures[0]
        assert failure.verdict_type == arena_pb2.VERDICT_ILLEGAL
        assert bob.GetMatch(arena_pb2.GetMatchRequest(id=failure.match_id)).summary.id == failure.match_id
        assert api(stack, "ops").GetMatch(arena_pb2.GetMatchRequest(id=first.id)).record_json  # operators see all
        watching = alice.stream("WatchTournament", arena_pb2.WatchTournamentRequest(tournament_id=t.id))
        live = next(watching)
        watching.cancel()
        assert not live.final and all(not row.failures for row in live.leaderboard.rows)
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
        delays = []
        for _ in range(12):
            try:
                client.ListGames(arena_pb2.ListGamesRequest())
                codes.append("OK")
            except grpc.RpcError as error:
                codes.append(error.code().name)
                delays.append((retry_after(error), error.details()))
        assert codes[:5] == ["OK"] * 5 and "RESOURCE_EXHAUSTED" in codes
        # Issue 10 16: the RetryInfo says the delay the message says (not a rounded-up second).
        for delay, message in delays:
            assert f"retry in {delay:g}s" in message, (delay, message)
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


# -- issue 10: sizes, maxima, limits, privacy, seeds, outages, protocol ------------------------

FIVE = ["random", "heuristic", "heuristic:threshold=2", "heuristic:threshold=4", "heuristic:threshold=5"]


def create(game: str = "skyfive", bots=("random", "heuristic"), **fields) -> arena_pb2.CreateTournamentRequest:
    return arena_pb2.CreateTournamentRequest(game=game, bots=list(bots), **fields)


BEYOND = [
    (create(repeats=10_001), "repeats"),
    (create(repeats=0), "repeats"),  # item 20: the CLI refuses it too
    (create(bots=[f"bot{i}" for i in range(65)]), "bots"),
    (create(game="rolldice", bots=[*FIVE, "heuristic:threshold=1"], repeats=10_000), "repeats"),
    (create(clock=arena_pb2.ClockLimits(decision_ms=60_001)), "clock.decision_ms"),
    (create(clock=arena_pb2.ClockLimits(bank_ms=2**32 - 1)), "clock.bank_ms"),
    (create(clock=arena_pb2.ClockLimits(startup_ms=2**32 - 1)), "clock.startup_ms"),
    (create(clock=arena_pb2.ClockLimits(decision_ms=0)), "clock.decision_ms"),
    (create(error_budget=2**32 - 1), "error_budget"),
    (create(bot_concurrency=2**32 - 1), "bot_concurrency"),
    (create(options={f"k{i}": "v" for i in range(33)}), "options"),
]


@pytest.mark.parametrize(("request_message", "field"), BEYOND, ids=[f for _, f in BEYOND])
def test_every_number_has_a_maximum_checked_before_anything_is_built(stack, request_message, field):
    """Issue 10 B and 9b: refused on the request's numbers alone, at once."""
    began = time.monotonic()
    code, bad_field, details = code_of(api(stack, "alice").CreateTournament, request_message)
    assert (code, bad_field) == (grpc.StatusCode.INVALID_ARGUMENT, field), details
    assert time.monotonic() - began < 5


def test_a_clock_beyond_its_maximum_is_said_in_its_unit(stack):
    """A strike count is no time (it read 'strikes 4294967295 ms': an outside probe)."""
    alice = api(stack, "alice")
    strikes = create(clock=arena_pb2.ClockLimits(max_strikes=2**32 - 1))
    assert code_of(alice.CreateTournament, strikes)[2] == "strikes 4294967295: at most 10"
    decision = create(clock=arena_pb2.ClockLimits(decision_ms=60_001))
    assert code_of(alice.CreateTournament, decision)[2] == "decision 60001 ms: at most 60000"


@pytest.mark.parametrize(
    ("endpoint", "says"),
    [
        ("grpc://127.0.0.1:99999999", "port '99999999': expected 1-65535"),
        ("grpc://127.0.0.1:0", "port '0': expected 1-65535"),
        # No port at all: said as such, not as a port made of the address's own characters.
        ("grpc://127.0.0.1", "bot address 'grpc://127.0.0.1': expected grpc://HOST:PORT"),
        ("grpc://[::1]", "bot address 'grpc://[::1]': expected grpc://HOST:PORT"),
        ("grpc://:50061", "bot address 'grpc://:50061': expected grpc://HOST:PORT"),
    ],
)
def test_register_bot_refuses_an_address_without_a_good_port(stack, endpoint, says):
    request = arena_pb2.RegisterBotRequest(name="bad-port", games=["skyfive"], endpoint=endpoint)
    code, field, details = code_of(api(stack, "alice").RegisterBot, request)
    assert (code, field, details) == (grpc.StatusCode.INVALID_ARGUMENT, "endpoint", says)


def test_creating_at_the_maximum_is_quick_and_a_cancel_is_final(stack):
    """Issue 10 18, E and 6: 200,000 matches are accepted in seconds (one message; the workers
    fan the batches out); a cancel is terminal, done stops and the board of what was played is
    stored and marked."""
    ops = api(stack, "ops")
    began = time.monotonic()
    t = ops.CreateTournament(create(game="rolldice", bots=FIVE, repeats=10_000), timeout=30)
    assert t.total == 200_000 and time.monotonic() - began < 5
    store: Store = stack["store"]
    wait_for(lambda: store.tournament(t.id)["done"] > 0, 60, "a first match")
    assert ops.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=t.id)).status == "cancelled"
    board = wait_for(lambda: store.leaderboard(t.id), 60, "the cancelled tournament's leaderboard")
    done = store.tournament(t.id)["done"]
    assert board["status"] == "cancelled" and board["matches"] == done < 200_000
    time.sleep(1.5)
    info = store.tournament(t.id)
    assert info["done"] == done and info["status"] == "cancelled"
    reply = ops.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=t.id))
    assert reply.status == "cancelled" and reply.matches == done
    final = ops.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=t.id))
    assert final.state == arena_pb2.TOURNAMENT_STATE_CANCELLED and final.create_time.seconds > 0


def test_of_cancels_at_once_one_is_answered_ok(stack):
    """The others are FAILED_PRECONDITION, as a later cancel is (all were OK: an API probe)."""
    ops = api(stack, "ops")
    t = ops.CreateTournament(create(game="rolldice", bots=FIVE, repeats=2_000), timeout=30)

    def cancel(_: int) -> str:
        try:
            return ops.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=t.id)).status
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error.details()
            assert "has already ended (cancelled)" in error.details()
            return "refused"

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(cancel, range(8)))
    assert sorted(answers) == ["cancelled"] + ["refused"] * 7


def test_a_cancel_of_a_tournament_whose_every_match_is_stored_is_refused_by_the_service_and_the_cli(stack):
    """Every match stored, finalisation is under way and counts the results in: a cancel then
    is FAILED_PRECONDITION (it was OK, and the tournament still entered the game's board: an
    outside races probe), and the CLI's cancel exits 2, both saying why."""
    from arena.runner import play_match
    from arena.tournament import TournamentSpec
    from bots.random_bot import RandomBot
    from referee.store import PLAYED_OUT

    store: Store = stack["store"]
    tid = "rolldice-20261207-010000-0badcafe"  # an id of the service's form, played by no worker
    game = get_game("rolldice")
    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2)
    assert store.create_tournament(tid, spec, total=2, batches=1, owner="ops")
    store.mark_running(tid)
    records = [(i, play_match(game, game.config(2), i, [RandomBot(), RandomBot()])) for i in range(2)]
    assert store.store_matches(tid, records)[-1].finalize  # no finalisation is sent here
    request = arena_pb2.CancelTournamentRequest(tournament_id=tid)
    with pytest.raises(grpc.RpcError) as refused:
        api(stack, "ops").CancelTournament(request)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refused.value.details() == f"tournament {tid!r} has {PLAYED_OUT}"
    cli = run_arena("tournament", "cancel", tid, "--broker", stack["redis"].url)
    assert cli.returncode == 2 and f"tournament {tid} has {PLAYED_OUT}" in cli.stderr
    assert store.tournament(tid)["status"] == "running" and not store.is_cancelled(tid)


def test_a_burst_of_creations_cannot_pass_the_running_limit(stack):
    """Issue 10 9d: 30 creations at once by one owner; at most 10 running."""
    store: Store = stack["store"]
    dave = Api(stack["service"].address, create_owner(store, "dave"))

    def one(n: int) -> str:
        try:
            return dave.CreateTournament(create(repeats=500, seed=n + 1)).id
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error.details()
            return ""

    with ThreadPoolExecutor(30) as pool:
        created = [t for t in pool.map(one, range(30)) if t]
    try:
        assert len(created) == 10 and store.active_tournaments("dave") == 10
    finally:
        for tournament_id in created:
            dave.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=tournament_id))


def test_default_seeds_are_unpredictable_and_recorded(stack):
    """Issue 10 9a: no seed asked, a fresh one from the OS's randomness, kept in the spec."""
    alice = api(stack, "alice")
    store: Store = stack["store"]
    ids = [alice.CreateTournament(create(game="rolldice", repeats=1)).id for _ in range(2)]
    seeds = [store.spec(t).seed for t in ids]
    assert seeds[0] != seeds[1] and 1 not in seeds
    chosen = alice.CreateTournament(create(game="rolldice", seed=7)).id
    assert store.spec(chosen).seed == 7
    for t in [*ids, chosen]:
        watch_to_end(alice, t)


def test_a_clock_value_of_zero_can_be_asked(stack):
    """Issue 10 16: `optional` clock fields; unset fields take the defaults."""
    t = api(stack, "alice").CreateTournament(
        create(game="rolldice", clock=arena_pb2.ClockLimits(bank_ms=0, max_strikes=0, decision_ms=500))
    )
    assert stack["store"].spec(t.id).clock == {"bank": 0, "strikes": 0, "decision": 500}
    watch_to_end(api(stack, "alice"), t.id)


def test_unknown_games_get_the_same_code_from_every_call(stack):
    alice = api(stack, "alice")
    calls = [
        (alice.DescribeGame, arena_pb2.DescribeGameRequest(game="chess")),
        (alice.GetLeaderboard, arena_pb2.GetLeaderboardRequest(game="chess")),
        (alice.ListBots, arena_pb2.ListBotsRequest(game="chess")),
        (alice.ListTournaments, arena_pb2.ListTournamentsRequest(game="chess")),
        (alice.CreateTournament, create(game="chess")),
    ]
    for call, request in calls:
        code, field, _ = code_of(call, request)
        assert (code, field) == (grpc.StatusCode.INVALID_ARGUMENT, "game"), request


def service_log(stack, message: str) -> list[dict]:
    """The service's JSON log lines with this message (it runs at INFO here)."""
    lines = [json.loads(line) for line in stack["service"].log.read_text().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("message") == message]


def test_the_service_logs_tournaments_created_and_cancelled_at_info(stack):
    """An outside operator probe saw no INFO line from `arena serve --log-level INFO` in 30 minutes."""
    bob = api(stack, "bob")
    created = bob.CreateTournament(create(game="rolldice", repeats=5000))
    bob.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=created.id))
    made = [line for line in service_log(stack, "tournament created") if line["tournament"] == created.id]
    assert [(line["owner"], line["game"], line["matches"], line["level"]) for line in made] == [
        ("bob", "rolldice", created.total, "INFO")
    ]
    ended = [line for line in service_log(stack, "tournament cancelled") if line["tournament"] == created.id]
    assert [line["by"] for line in ended] == ["bob"]


def test_requests_that_say_nothing_or_an_unknown_number_are_named_for_what_they_are(stack):
    """An outside API probe: an UpdateBot with every field "unchanged" was refused as a bad
    address (`endpoint ''`); an unknown format_type became round-robin; a challenge's bad option
    named the field `options` where a tournament's names `options[key]`."""
    alice = api(stack, "alice")
    bot_a, _ = stack["bots"]
    with contextlib.suppress(grpc.RpcError):
        alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-idle", games=["skyfive"], endpoint=bot_a))
    code, field, details = code_of(alice.UpdateBot, arena_pb2.UpdateBotRequest(name="alice-idle"))
    assert (code, field) == (grpc.StatusCode.INVALID_ARGUMENT, "endpoint") and details.startswith("nothing to update")
    code, field, details = code_of(alice.CreateTournament, create(format_type=99))
    assert (code, field) == (grpc.StatusCode.INVALID_ARGUMENT, "format_type")
    assert details == "unknown format_type 99; known: 1 (round-robin), 2 (gauntlet)"
    challenge = arena_pb2.ChallengeRequest(bot="alice-idle", game="skyfive", options={"target": "lots"})
    with pytest.raises(grpc.RpcError) as info:
        list(alice.stream("Challenge", challenge))
    assert (info.value.code(), bad_request_field(info.value)) == (grpc.StatusCode.INVALID_ARGUMENT, "options[target]")


def test_a_bot_name_that_reads_as_a_registered_one_is_refused(stack):
    """An outside API probe registered `ALICE-BOT`, `alice_bot` and `alice-bot.` beside alice's
    `alice-bot`: on a public leaderboard they read as hers."""
    alice, bob = api(stack, "alice"), api(stack, "bob")
    _, bot_b = stack["bots"]
    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-lookalike", games=["skyfive"], endpoint=bot_b))
    for twin in ("ALICE-LOOKALIKE", "Alice_Lookalike", "alice-lookalike.", "alice.lookalike", "alice--lookalike"):
        code, _, details = code_of(
            bob.RegisterBot, arena_pb2.RegisterBotRequest(name=twin, games=["skyfive"], endpoint=bot_b)
        )
        assert code == grpc.StatusCode.ALREADY_EXISTS, (twin, details)
        assert details == f"bot '{twin}' reads as 'alice-lookalike', which is registered: names must differ in " + (
            "more than letter case and _ . -"
        )
    bob.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-lookalike2", games=["skyfive"], endpoint=bot_b))


def test_names_registered_before_look_alikes_were_refused_are_folded_once(tmp_path):
    from referee.store import LookAlike

    with redis_server(tmp_path) as server:
        store = Store(server.url)
        data = {"owner": "alice", "games": ["skyfive"], "endpoint": "grpc://127.0.0.1:1", "enabled": True}
        assert store.add_bot("Old_Bot", data)
        store.redis.delete(store.key("bot_reads"))  # as a store written before they were kept
        with pytest.raises(LookAlike) as like:
            store.add_bot("old-bot", {**data, "owner": "bob"})
        assert like.value.args == ("Old_Bot",)
        assert store.add_bot("old-bot-2", {**data, "owner": "bob"})
        assert store.redis.hgetall(store.key("bot_reads")) == {b"oldbot": b"Old_Bot", b"oldbot2": b"old-bot-2"}


def test_a_name_with_a_separator_added_or_left_out_reads_as_the_registered_one(stack):
    """An outside probe registered `alicebot` beside `alice-bot`, `ran-dom` and `se.arch` beside
    the built-ins, and made owners `al-ice` and `a_lice` beside `alice`: a run of _ . - was
    folded to one `-`, never away."""
    alice, bob, ops = api(stack, "alice"), api(stack, "bob"), api(stack, "ops")
    _, bot_b = stack["bots"]
    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-sep", games=["skyfive"], endpoint=bot_b))
    for twin in ("alicesep", "a.l.i.c.e.s.e.p", "Alice_Se-p"):
        request = arena_pb2.RegisterBotRequest(name=twin, games=["skyfive"], endpoint=bot_b)
        assert code_of(bob.RegisterBot, request) == (
            grpc.StatusCode.ALREADY_EXISTS,
            None,
            f"bot '{twin}' reads as 'alice-sep', which is registered: names must differ in more than letter case "
            "and _ . -",
        )
    for builtin in ("ran-dom", "r.a.n.d.o.m", "heur-istic", "se.arch"):
        request = arena_pb2.RegisterBotRequest(name=builtin, games=["skyfive"], endpoint=bot_b)
        assert code_of(bob.RegisterBot, request) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "name",
            f"'{builtin}' is a built-in bot's name",
        )
    for like in ("al-ice", "a_lice", "a-l_ice"):
        assert code_of(ops.CreateOwner, arena_pb2.CreateOwnerRequest(name=like)) == (
            grpc.StatusCode.ALREADY_EXISTS,
            None,
            f"owner '{like}' reads as 'alice', which exists already: names must differ in more than _ and -",
        )


def test_a_bot_registered_under_the_older_fold_still_keeps_its_look_alikes_out(tmp_path):
    """The store's first index of names (`bot_folds`) was keyed by the older fold (a run of
    _ . - as one -): names registered then are found by the new fold all the same, and two that
    only now read alike both stay registered."""
    from referee.store import LookAlike

    with redis_server(tmp_path) as server:
        store = Store(server.url)
        data = {"owner": "alice", "games": ["skyfive"], "endpoint": "grpc://127.0.0.1:1", "enabled": True}
        for name, folded in (("alice-bot", "alice-bot"), ("Ab_C", "ab-c"), ("a-bc", "a-bc")):  # as the older code
            store.redis.hset(store.key("bots"), name, json.dumps(data))
            store.redis.hset(store.key("bot_folds"), folded, name)
        store.redis.hset(store.key("bot_counts"), "alice", 3)
        for twin, registered in (("alicebot", ("alice-bot",)), ("abc", ("Ab_C", "a-bc"))):
            with pytest.raises(LookAlike) as like:
                store.add_bot(twin, {**data, "owner": "bob"})
            assert like.value.args[0] in registered
        assert store.add_bot("alice-bot2", {**data, "owner": "bob"})
        assert [name for name, _ in store.bots()] == ["Ab_C", "a-bc", "alice-bot", "alice-bot2"]
        assert store.redis.hgetall(store.key("bot_folds")) == {  # left as it was
            b"alice-bot": b"alice-bot",
            b"ab-c": b"Ab_C",
            b"a-bc": b"a-bc",
        }


def test_list_calls_page_with_tokens(stack):
    alice = api(stack, "alice")
    # Two at least to page through, whichever of the module's tests ran before on this worker.
    alice.CreateTournament(create(game="rolldice", repeats=1))
    t = alice.CreateTournament(create(game="rolldice", repeats=3))
    watch_to_end(alice, t.id)
    seen, token = [], ""
    while True:
        page = alice.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=t.id, limit=4, page_token=token))
        seen += [m.index for m in page.matches]
        token = page.next_page_token
        if not token:
            break
    assert seen == list(range(6)) and page.total == 6
    only = alice.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=t.id, bot="heuristic", limit=1))
    assert only.total == 6 and "heuristic" in {s.bot for s in only.matches[0].seats}
    first = alice.ListTournaments(arena_pb2.ListTournamentsRequest(limit=1))
    second = alice.ListTournaments(arena_pb2.ListTournamentsRequest(limit=1, page_token=first.next_page_token))
    assert first.next_page_token and first.tournaments[0].id != second.tournaments[0].id
    bots = alice.ListBots(arena_pb2.ListBotsRequest(page_size=1))
    if bots.next_page_token:
        more = alice.ListBots(arena_pb2.ListBotsRequest(page_size=1, page_token=bots.next_page_token))
        assert more.bots[0].name > bots.bots[0].name
    assert code_of(alice.ListMatches, arena_pb2.ListMatchesRequest(tournament_id=t.id, limit=501))[1] == "limit"


def test_a_challenge_sends_started_first_and_the_decision_before_its_events(stack):
    """Issue 10 12 and 22."""
    alice = api(stack, "alice")
    bot_a, _ = stack["bots"]
    with contextlib.suppress(grpc.RpcError):
        alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-challenger", games=["skyfive"], endpoint=bot_a))
    request = arena_pb2.ChallengeRequest(bot="alice-challenger", game="skyfive", opponents=["random"])
    events = list(alice.stream("Challenge", request))
    logged = service_log(stack, "challenge started") + service_log(stack, "challenge ended")
    mine = [(line["message"], line["owner"], line["game"]) for line in logged if line["bot"] == "alice-challenger"]
    assert sorted(mine) == [("challenge ended", "alice", "skyfive"), ("challenge started", "alice", "skyfive")]
    assert events[0].WhichOneof("body") == "started"
    assert events[0].started.seat == 0 and events[0].started.seat_names[0]
    assert events[1].WhichOneof("body") == "event" and events[1].event.index == 0  # the deal, before any move
    assert events[-1].WhichOneof("body") == "finished"
    decisions = [i for i, e in enumerate(events) if e.WhichOneof("body") == "decision"]
    shown = [e.event.index for e in events if e.WhichOneof("body") == "event"]
    assert shown == list(range(len(shown)))  # numbered among the challenger's events, no gaps
    for i in decisions:  # the events after a decision are the ones it caused
        following = next((e for e in events[i + 1 :] if e.WhichOneof("body") == "event"), None)
        assert following is None or following.event.index >= events[i].decision.index


def test_reflection_serves_v1_and_v1alpha_with_every_games_protocol(stack):
    """Issue 10 13."""
    from grpc_reflection.v1alpha import reflection_pb2 as messages

    channel = grpc.insecure_channel(stack["service"].address)
    for package in ("v1", "v1alpha"):
        info = channel.stream_stream(
            f"/grpc.reflection.{package}.ServerReflection/ServerReflectionInfo",
            request_serializer=messages.ServerReflectionRequest.SerializeToString,
            response_deserializer=messages.ServerReflectionResponse.FromString,
        )
        requests = [messages.ServerReflectionRequest(list_services="")]
        requests += [
            messages.ServerReflectionRequest(file_containing_symbol=f"arena.games.v1.{game}.Observation")
            for game in ("skyfive", "vivo", "getbit", "rainbow", "petquartet", "rolldice")
        ]
        replies = list(info(iter(requests)))
        services = {s.name for s in replies[0].list_services_response.service}
        assert {"grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"} <= services
        for reply in replies[1:]:
            assert reply.WhichOneof("message_response") == "file_descriptor_response", reply


def raw_grpc_call(address: str, path: str, authorization: str, body: bytes = b"") -> tuple[int, str]:
    """One unary gRPC call over a plain HTTP/2 connection (h2), with metadata grpc's own clients
    would refuse to send; returns (grpc-status, grpc-message)."""
    import socket

    import h2.config
    import h2.connection
    import h2.events

    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        connection = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=True, validate_outbound_headers=False)
        )
        connection.initiate_connection()
        headers = [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", path),
            (":authority", address),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
            ("authorization", authorization),
        ]
        connection.send_headers(1, headers)
        connection.send_data(1, b"\x00" + len(body).to_bytes(4, "big") + body, end_stream=True)
        sock.sendall(connection.data_to_send())
        found: dict[bytes, bytes] = {}
        while b"grpc-status" not in found:
            data = sock.recv(65536)
            if not data:
                break
            for event in connection.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived | h2.events.TrailersReceived):
                    found.update(dict(event.headers))
            sock.sendall(connection.data_to_send())
    return int(found.get(b"grpc-status", b"-1")), found.get(b"grpc-message", b"").decode()


def test_malformed_calls_are_refused_precisely_and_without_internals(stack):
    """Issue 10 9e: a tab in the bearer value; a request that does not decode; RetryInfo."""
    # grpc's own clients refuse to send a tab; other clients (and attackers) do: raw HTTP/2.
    for header in ("Bearer arena_abc\tdef", "Bearer\tarena_abc", "Bearer " + "x" * 300):
        status, message = raw_grpc_call(stack["service"].address, "/arena.v1.ArenaService/WhoAmI", header)
        assert status == grpc.StatusCode.UNAUTHENTICATED.value[0], message
    channel = grpc.insecure_channel(stack["service"].address)
    raw = channel.unary_unary("/arena.v1.ArenaService/GetBot")  # bytes in, bytes out
    metadata = (("authorization", f"Bearer {stack['tokens']['alice']}"),)
    for garbage in (b"\xff\xff\xff\xff", b"\x0a\x05ab"):
        with pytest.raises(grpc.RpcError) as info:
            raw(garbage, metadata=metadata, timeout=30)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value.details()
        assert "Error" not in info.value.details() and "decode" in info.value.details()


def test_a_redis_outage_is_unavailable_with_a_retry_delay_and_health_follows(tmp_path):
    """Issue 10 9e: UNAVAILABLE (not INTERNAL) with RetryInfo, no Redis address in any reply,
    health NOT_SERVING until the store is back."""
    with redis_server(tmp_path) as redis, service(redis.url, tmp_path) as srv:
        store = Store(redis.url)
        token = create_owner(store, "erin")
        other = create_owner(store, "frank")
        erin, frank = Api(srv.address, token), Api(srv.address, other)
        t = erin.CreateTournament(create(game="rolldice"))
        health = health_pb2_grpc.HealthStub(grpc.insecure_channel(srv.address))

        def status() -> int:
            return health.Check(health_pb2.HealthCheckRequest(), timeout=10).status

        assert status() == health_pb2.HealthCheckResponse.SERVING
        redis.stop()
        wait_for(lambda: status() == health_pb2.HealthCheckResponse.NOT_SERVING, 15, "NOT_SERVING")
        for client, request_name, request in (
            (erin, "GetTournament", arena_pb2.GetTournamentRequest(tournament_id=t.id)),  # token cached
            (frank, "ListGames", arena_pb2.ListGamesRequest()),  # token never seen: the lookup fails
        ):
            with pytest.raises(grpc.RpcError) as info:
                getattr(client, request_name)(request)
            error = info.value
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error.details()
            assert str(redis.port) not in error.details() and "127.0.0.1" not in error.details()
            assert retry_after(error) == 2.0 and "retry in 2s" in error.details()
        redis.start()
        wait_for(lambda: status() == health_pb2.HealthCheckResponse.SERVING, 15, "SERVING again")
        assert erin.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=t.id)).id == t.id


def test_calls_without_a_valid_token_are_rate_limited(tmp_path, stack):
    """Issue 10 9e: each refused call costs a store lookup; a flood of them is throttled."""
    with service(stack["redis"].url, tmp_path) as srv:
        alice = Api(srv.address, stack["tokens"]["alice"])
        alice.WhoAmI(arena_pb2.WhoAmIRequest())  # a token the service has seen
        wrong = Api(srv.address, "arena_made-up")
        codes = []
        for _ in range(140):
            try:
                wrong.WhoAmI(arena_pb2.WhoAmIRequest())
            except grpc.RpcError as error:
                codes.append(error.code())
        assert grpc.StatusCode.UNAUTHENTICATED in codes and grpc.StatusCode.RESOURCE_EXHAUSTED in codes
        # A token already seen is not held back by the flood.
        assert alice.WhoAmI(arena_pb2.WhoAmIRequest()).api_version == "1.1"


def test_the_service_board_and_the_local_table_are_one_renderer():
    """Issue 10 21: `--watch` and `leaderboard` print the local run's table (the same columns,
    the same rows), from the board the service sends."""
    from rich.console import Console

    from arena import leaderboard
    from arena.leaderboard_view import from_message, leaderboard_table
    from arena.tournament import TournamentSpec, play_scheduled, schedule
    from referee import views
    from referee.players import make_player

    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic", "heuristic:threshold=4"), players=2, seed=5)
    board = leaderboard.build(spec, [play_scheduled(spec, m, make_player) for m in schedule(spec)], resamples=20)
    board["leaderboard"][0]["failures"] = {"timeout": 2, "crash": 1}  # built-in bots never fail

    def text(table) -> list[str]:  # type: ignore[no-untyped-def]
        console = Console(width=140, record=True)
        console.print(table)
        return console.export_text().splitlines()

    local = text(leaderboard_table(board))
    served = text(leaderboard_table(from_message(views.leaderboard(board, "t"))))
    assert local[:4] == served[:4]  # title and header
    for row in board["leaderboard"]:
        mine = next(line for line in local if f" {row['bot']} " in line)
        theirs = next(line for line in served if f" {row['bot']} " in line)
        assert mine == theirs  # every column, failures and decision times included


def test_the_token_cache_is_bounded_and_keeps_no_unknown_tokens(tmp_path, monkeypatch):
    """Issue 10 9e: 120k made-up tokens cost no memory; known ones are kept least-recently-used."""
    from referee import auth

    monkeypatch.setattr(auth, "CACHE_SIZE", 2)
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        tokens = [create_owner(store, f"owner{i}") for i in range(3)]
        interceptor = auth.AuthInterceptor(store)
        for n in range(50):
            assert interceptor.caller(f"arena_made-up-{n}") is None
        assert len(interceptor._cache) == 0
        for token in tokens:
            assert interceptor.caller(token) is not None
        assert len(interceptor._cache) == 2 and not interceptor._known(tokens[0]) and interceptor._known(tokens[2])


def test_a_challenges_thinking_opponent_holds_no_other_call_back(stack):
    """A challenge's built-in opponents think off the service's event loop: against
    `search:ms=3000` another owner's calls waited the whole 3 s of each decision (an outside
    probe: 11.5 s for a WhoAmI, the health check past its deadline)."""
    alice, bob = api(stack, "alice"), api(stack, "bob")
    bot_a, _ = stack["bots"]
    with contextlib.suppress(grpc.RpcError):
        alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-patient", games=["skyfive"], endpoint=bot_a))
    request = arena_pb2.ChallengeRequest(bot="alice-patient", game="skyfive", opponents=["search:ms=3000"])
    call = alice.stub.Challenge(request, metadata=alice.metadata, timeout=120)
    events = iter(call)
    try:
        assert next(events).WhichOneof("body") == "started"
        for event in events:  # the challenger's first decision: the search's turn comes next
            if event.WhichOneof("body") == "decision":
                break
        waits = []
        for _ in range(10):
            began = time.monotonic()
            bob.WhoAmI(arena_pb2.WhoAmIRequest())
            waits.append(time.monotonic() - began)
            time.sleep(0.2)
        assert max(waits) < 1.5, waits  # half the search's 3 s think (it was all of it)
    finally:
        call.cancel()


def test_a_challenge_with_a_failing_bot_shows_the_failure_first(stack, tmp_path):
    """Issue 10 22: the failure when it happens (its verdict once), one line for the moves
    played for the seat, a result line; the command exits 1 (the bot failed) and writes the
    record it was asked for, which replays."""
    import os

    with bot_process(misbehaving("illegal", "--at", "0")) as address:
        alice = api(stack, "alice")
        alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-illegal", games=["skyfive"], endpoint=address))
        env = {**os.environ, "ARENA_SERVER": stack["service"].address, "ARENA_TOKEN": stack["tokens"]["alice"]}
        record = tmp_path / "challenge.json"
        args = ["challenge", "--bot", "alice-illegal", "--game", "skyfive", "--seed", "4", "--record", str(record)]
        out = subprocess.run(
            [sys.executable, "-m", "arena", *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**env, "PYTHONPATH": str(ROOT)},
            timeout=120,
        )
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    failure = next(i for i, line in enumerate(lines) if line.startswith("FAILURE seat 0"))
    substituted = [i for i, line in enumerate(lines) if "a substitute chose" in line]
    kept = MatchRecord.loads(record.read_text())
    assert [(f.seat, f.verdict) for f in kept.failures] == [(0, "illegal")] and kept.seats[0]["bot"] == "alice-illegal"
    # The decision it failed at, as the record has it (the stream once said -1: the abort
    # hook it was heard from had no index).
    at = kept.failures[0].decision
    assert at == next(i for i, d in enumerate(kept.decisions) if d.seat == 0) and at >= 0
    assert lines[failure].startswith(f"FAILURE seat 0 alice-illegal at decision {at}: illegal: answered ")
    assert lines[failure].count(": illegal: ") == 1 and "forfeits" not in lines[failure]
    assert substituted and failure < substituted[0]
    assert len(substituted) == 1 and "more moves played for your forfeited seat" in lines[-2]
    assert lines[-1].startswith("result: ") and "(forfeited)" in lines[-1]
    replayed = subprocess.run(
        [sys.executable, "-m", "arena", "replay", str(record)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert replayed.returncode == 0, replayed.stderr


def test_a_clean_challenge_with_a_record_exits_0_and_a_refused_one_leaves_no_file(stack, tmp_path):
    """The README's step 2: `arena challenge ... --record FILE` with a bot that plays cleanly
    exits 0 with the record written (it closed the file, then asked where it was: a traceback
    and exit 1 after every challenge, an outside probe); a refused challenge says one line and
    leaves no empty file."""
    import os

    with bot_process(served("random")) as address:
        alice = api(stack, "alice")
        alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-clean", games=["rolldice"], endpoint=address))
        env = {**os.environ, "ARENA_SERVER": stack["service"].address, "ARENA_TOKEN": stack["tokens"]["alice"]}
        env["PYTHONPATH"] = str(ROOT)

        def challenge(bot: str, record: object) -> subprocess.CompletedProcess[str]:
            args = ["challenge", "--bot", bot, "--game", "rolldice", "--seed", "3", "--record", str(record)]
            return subprocess.run(
                [sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
            )

        clean = challenge("alice-clean", tmp_path / "clean.json")
        refused = challenge("alice-typo", tmp_path / "refused.json")
    assert clean.returncode == 0 and "Traceback" not in clean.stderr, clean.stderr
    assert clean.stdout.splitlines()[-1].startswith("result: ")
    assert MatchRecord.loads((tmp_path / "clean.json").read_text()).seats[0]["bot"] == "alice-clean"
    assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr
    assert refused.stderr.count("\n") == 1 and "NOT_FOUND" in refused.stderr
    assert not (tmp_path / "refused.json").exists()


def test_the_match_list_says_when_there_are_more_and_pages_on(stack):
    import os

    alice = api(stack, "alice")
    t = alice.CreateTournament(create(game="rolldice", repeats=2))
    watch_to_end(alice, t.id)
    env = {**os.environ, "ARENA_SERVER": stack["service"].address, "ARENA_TOKEN": stack["tokens"]["alice"]}

    def listed(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", "matches", "list", "--tournament", t.id, *extra],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**env, "PYTHONPATH": str(ROOT)},
            timeout=120,
        )

    first = listed("--limit", "3")
    assert [line.split("\t")[0] for line in first.stdout.splitlines()] == [f"{t.id}:m00000{i}" for i in range(3)]
    assert first.stderr.strip() == "matches 1-3 of 4 shown: --offset 3 shows the next"
    rest = listed("--limit", "3", "--offset", "3")
    assert [line.split("\t")[0] for line in rest.stdout.splitlines()] == [f"{t.id}:m000003"]
    assert rest.stderr == ""


def test_list_matches_reads_only_the_page_it_returns(stack):
    """Issue 10 9e: ListMatches decodes the records of its page, not the whole tournament (a
    record outside the page that cannot be decoded does not matter to it)."""
    alice = api(stack, "alice")
    store: Store = stack["store"]
    t = alice.CreateTournament(create(game="rolldice", repeats=2))
    watch_to_end(alice, t.id)
    key = store.key("t", t.id, "matches")
    kept = store.redis.hget(key, 3)
    store.redis.hset(key, 3, b"not a record")
    try:
        page = alice.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=t.id, limit=2))
        assert page.total == 4 and [m.index for m in page.matches] == [0, 1] and page.next_page_token
        only = alice.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=t.id, bot="random", limit=1))
        assert only.total == 4 and len(only.matches) == 1
    finally:
        store.redis.hset(key, 3, kept)


def test_a_remote_entrant_gets_fresh_deals_and_a_chosen_seed_rates_nobody(stack, tmp_path):
    """A remote bot plays every seat rotation of its group, often at once: with one deal for all
    of them, a bot that pools what its copies see held its opponent's hand (and, from a rotation
    ahead, the coming draws) while playing. So a tournament with a remote entrant deals each
    rotation afresh. And a seed its (non-operator) owner chose let an oracle bot that knew every
    deal top the game's public board: such a tournament counts on its own board only."""
    alice, ops = api(stack, "alice"), api(stack, "ops")
    store: Store = stack["store"]
    bot_a, _ = stack["bots"]
    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-deals", games=["skyfive"], endpoint=bot_a))
    remote = alice.CreateTournament(create(bots=("alice-deals", "heuristic")))
    built_in = alice.CreateTournament(create(game="getbit", bots=("random", "heuristic")))
    assert (remote.deals, built_in.deals) == ("fresh", "duplicate")
    assert not remote.unrated and not built_in.unrated
    for t in (remote, built_in):
        watch_to_end(alice, t.id)
    seeds = {t.id: [r.seed for r in sorted(store.matches(t.id), key=lambda r: r.match_id)] for t in (remote, built_in)}
    assert len(seeds[remote.id]) == 2 and seeds[remote.id][0] != seeds[remote.id][1]  # one group, two rotations
    assert len(set(seeds[built_in.id])) == len(seeds[built_in.id]) // 2  # each group's rotations share one

    # The game's board before: the unseeded getbit tournament above.
    before = {r.bot: r.games for r in alice.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="getbit")).rows}
    chosen = alice.CreateTournament(create(game="getbit", bots=("random", "heuristic:thrift=2"), seed=777))
    assert chosen.unrated and alice.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=chosen.id)).unrated
    final = watch_to_end(alice, chosen.id)[-1]
    assert final.tournament.status == "complete" and {r.bot for r in final.leaderboard.rows} >= {"random"}
    after = {r.bot: r.games for r in alice.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="getbit")).rows}
    assert after == before  # nothing of it on the game's board
    by_operator = ops.CreateTournament(create(game="getbit", bots=("random", "heuristic:thrift=2"), seed=778))
    assert not by_operator.unrated
    watch_to_end(ops, by_operator.id)
    rated = {r.bot for r in ops.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="getbit")).rows}
    assert "heuristic:thrift=2" in rated


def test_a_challenge_running_as_the_service_stops_ends_with_a_word(tmp_path):
    """SIGTERM while a challenge plays: it ends at once with UNAVAILABLE saying why, as a watch
    does, and the service logs no traceback (cut off at the end of the grace, it logged an ERROR
    with one: an outside API probe)."""
    with redis_server(tmp_path) as redis, bot_process(served("random")) as bot:
        store = Store(redis.url)
        token = create_owner(store, "carol")
        with service(redis.url, tmp_path) as srv:
            carol = Api(srv.address, token)
            carol.RegisterBot(arena_pb2.RegisterBotRequest(name="carol-bot", games=["rolldice"], endpoint=bot))
            request = arena_pb2.ChallengeRequest(
                bot="carol-bot", game="rolldice", opponents=["search:ms=2000"], options={"target": "1000"}
            )
            call = carol.stub.Challenge(request, metadata=carol.metadata, timeout=120)
            events = iter(call)
            assert next(events).WhichOneof("body") == "started"
            srv.terminate()
            with pytest.raises(grpc.RpcError) as info:
                for _ in events:
                    pass
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE
            assert info.value.details() == "the server is shutting down: the challenge ended unfinished"
            srv.process.wait(60)
            log = srv.log.read_text()
            assert "Traceback" not in log and '"level": "ERROR"' not in log, log[-3000:]


def challenge_until_the_opponent_thinks(client: Api, bot: str, opponent: str, thinking: int):  # type: ignore[no-untyped-def]
    """A skyfive challenge of ``bot`` against ``opponent``, started and left to play until
    ``thinking`` opponents (this one's included) think on this process's service; the call,
    for the caller to cancel."""
    request = arena_pb2.ChallengeRequest(bot=bot, game="skyfive", opponents=[opponent])
    call = client.stub.Challenge(request, metadata=client.metadata, timeout=120)
    assert next(call).WhichOneof("body") == "started"
    wait_for(lambda: challenge_threads() == thinking, 60, f"{thinking} opponent(s) thinking")
    return call


def challenge_threads() -> int:
    return sum(thread.name == "challenge-bot" for thread in threading.enumerate())


def test_a_cancelled_challenge_stops_its_searching_opponent(tmp_path, monkeypatch):
    """A search thinking when its challenge is cancelled stops: it ran its `ms` to the end (up
    to 10 minutes), and start-and-cancel stacked searches (an outside probe: 7 at once, the
    service at 100 % CPU, another owner's calls 200 times slower)."""
    from tests.services import in_process_service

    with redis_server(tmp_path) as redis, bot_process(served("random")) as bot:
        token = create_owner(Store(redis.url), "carol")
        with in_process_service(redis.url, monkeypatch) as address:
            carol = Api(address, token)
            carol.RegisterBot(arena_pb2.RegisterBotRequest(name="carol-bot", games=["skyfive"], endpoint=bot))
            challenge_until_the_opponent_thinks(carol, "carol-bot", "search:ms=600000", 1).cancel()
            wait_for(lambda: challenge_threads() == 0, 60, "the search to stop")  # not 600 s


class Stubborn(Bot):
    """A built-in bot that cannot be told to stop: it thinks until the test lets it answer."""

    name = "stubborn"
    release = threading.Event()

    def choose(self, turn) -> str:  # type: ignore[no-untyped-def]
        self.release.wait(120)
        return turn.option_ids[0]


def test_an_owners_challenge_slot_is_held_until_its_opponents_stop_thinking(tmp_path, monkeypatch):
    """A cancelled challenge's slot is given back once its opponents' threads have returned:
    an owner never has more than MAX_CHALLENGES challenges' opponents thinking (the slot was
    given back at once, and an opponent thought on: start and cancel stacked them)."""
    from bots.registry import bot_names
    from referee.players import make_player
    from tests.services import in_process_service

    def stubborn_or_builtin(spec: str, game_id: str):  # type: ignore[no-untyped-def]
        return Stubborn() if spec == "stubborn" else make_player(spec, game_id)

    Stubborn.release.clear()
    with redis_server(tmp_path) as redis, bot_process(served("random")) as bot:
        token = create_owner(Store(redis.url), "carol")
        builtins = {"make_player": stubborn_or_builtin, "builtin_bots": lambda game: [*bot_names(game), "stubborn"]}
        with in_process_service(redis.url, monkeypatch, **builtins) as address:
            carol = Api(address, token)
            carol.RegisterBot(arena_pb2.RegisterBotRequest(name="carol-bot", games=["skyfive"], endpoint=bot))
            try:
                for thinking in (1, 2):
                    challenge_until_the_opponent_thinks(carol, "carol-bot", "stubborn", thinking).cancel()
                request = arena_pb2.ChallengeRequest(bot="carol-bot", game="skyfive", opponents=["random"])
                time.sleep(0.5)  # the cancels reached the service
                code, _, message = code_of(lambda r: next(iter(carol.stream("Challenge", r))), request)
                assert (code, message) == (
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    "carol already has 2 challenges running (or their opponents still thinking); retry in 5s",
                )
            finally:
                Stubborn.release.set()
            wait_for(lambda: challenge_threads() == 0, 30, "the opponents to answer")
            events = list(carol.stream("Challenge", request))
            assert events[0].WhichOneof("body") == "started" and events[-1].WhichOneof("body") == "finished"


def test_a_match_a_cancelled_tournament_never_played_is_said_so_by_get_match_and_its_logs(stack):
    """GetMatchLogs said "(yet)" of a match the cancelled tournament will never play (an
    outside probe); it says what GetMatch says."""
    alice = api(stack, "alice")
    t = alice.CreateTournament(create(game="rolldice", bots=FIVE, repeats=1000))
    alice.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=t.id))
    last = f"m{t.total - 1:06d}"
    kept = "kept ARENA_RETENTION_DAYS days (30 unless the operator set it), its leaderboard for good"
    said = (
        grpc.StatusCode.NOT_FOUND,
        f"no match {last} stored in {t.id}: not played before it ended, or its record expired (records are {kept})",
    )
    ref = f"{t.id}:{last}"
    assert code_of(alice.GetMatch, arena_pb2.GetMatchRequest(id=ref))[::2] == said
    assert code_of(alice.GetMatchLogs, arena_pb2.GetMatchLogsRequest(id=ref))[::2] == said
