"""An endpoint declares whose bot it is (``Ready.owners``): a service's referee then plays it
only as a bot one of those owners registered, so nobody can register another owner's endpoint
as theirs and earn a rating, or challenges, with that bot. Real bot servers (``arena bot serve
--owner``), real gRPC on loopback; the service path through a real ``arena serve``, Celery
worker and redis-server."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arena.games.rolldice import GAME
from arena.runner import play_match
from arena.v1 import arena_pb2, bot_pb2
from bots.random_bot import RandomBot
from bots.serve import BotServicer, check_owners, start
from referee.auth import create_owner
from referee.remote import RemotePlayer, not_owners_endpoint
from referee.store import Store
from tests.cli_run import arena
from tests.remote_helpers import ROOT, bot_process, served
from tests.services import redis_server, service, wait_for, workers
from tests.test_service import Api

pytestmark = pytest.mark.timeout(180)

CONFIG = GAME.config(2, {"target": 20})


def play_as(address: str, owner: str | None):  # type: ignore[no-untyped-def]
    """A short RollDice match: the endpoint in seat 0 as a bot registered by ``owner``."""
    return play_match(GAME, CONFIG, 3, [RemotePlayer(address, owner=owner), RandomBot()])


def seat_failures(record) -> list[tuple[int, int, str, str]]:  # type: ignore[no-untyped-def]
    return [(f.seat, f.decision, f.verdict, f.detail) for f in record.failures]


def test_an_endpoint_that_declares_its_owners_plays_only_for_them():
    with bot_process([*served("random"), "--owner", "alice", "--owner", "carol"]) as address:
        for owner in ("alice", "carol", None):  # its owners, and a local run (no registration)
            record = play_as(address, owner)
            assert record.failures == [] and record.result is not None, owner
            assert record.seats[0].get("forfeit") is not True
        refused = play_as(address, "bob")
    # Bob's registration forfeits at the start, every decision played for him by a substitute;
    # the record does not say whom the endpoint plays for.
    # It names the registering owner (public: a misspelt --owner shows at once), not the endpoint's.
    assert seat_failures(refused) == [(0, -1, "protocol", not_owners_endpoint("bob"))]
    assert "'bob' is not one of them" in refused.failures[0].detail
    assert {d.by for d in refused.decisions if d.seat == 0} == {"substitute"}
    text = json.dumps(refused.to_json())
    assert "alice" not in text and "carol" not in text


def test_an_endpoint_that_declares_nobody_plays_for_any_registration():
    with bot_process(served("random")) as address:
        assert play_as(address, "bob").failures == []


def test_the_sdk_declares_the_owners_in_every_ready_unless_the_bot_names_its_own():
    class OwnBot(RandomBot):
        def start(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
            ready = super().start(message)
            ready.owners.append("dave")
            return ready

    for make, declared in ((RandomBot, ["alice"]), (OwnBot, ["dave"])):
        server = start(make, "127.0.0.1:0", owners=["alice"])
        try:
            address = f"grpc://127.0.0.1:{server.port}"
            assert play_as(address, declared[0]).failures == []
            assert [f.verdict for f in play_as(address, "bob").failures] == ["protocol"]
        finally:
            server.stop()
    assert BotServicer(RandomBot, None, ("alice",)).owners == ("alice",)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["", "Alice", "a", "x" * 33, "alice bob", "-alice"])
def test_an_owner_name_no_registration_can_have_is_refused(name):
    with pytest.raises(Exception, match="an Arena owner's name is 2-32 of a-z 0-9 _ -"):
        check_owners([name])


def test_a_list_in_one_owner_is_told_to_repeat_the_flag():
    with pytest.raises(Exception, match=r"owner 'alice,bob': .* \(one name each: repeat --owner"):
        check_owners(["alice,bob"])


def test_arena_bot_serve_refuses_a_malformed_owner_before_it_listens():
    args = [sys.executable, "-m", "arena", "bot", "serve", "--bot", "random", "--port", "0", "--owner", "Alice"]
    done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2, done
    assert "owner 'Alice': an Arena owner's name is 2-32 of a-z 0-9 _ -" in done.stderr
    assert "serving" not in done.stdout


def test_through_the_service_a_squatted_endpoint_loses_and_its_owner_plays_on(tmp_path):
    with (
        bot_process([*served("random"), "--owner", "alice"]) as endpoint,
        redis_server(tmp_path) as redis,
        workers(redis.url, tmp_path, count=1, concurrency=1, metrics=False),
        service(redis.url, tmp_path) as srv,
    ):
        store = Store(redis.url)
        alice = Api(srv.address, create_owner(store, "alice"))
        bob_token = create_owner(store, "bob")
        bob = Api(srv.address, bob_token)
        alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alices", games=["rolldice"], endpoint=endpoint))
        # Registration does not dial (the server may not run yet): bob may register it...
        registered = arena(
            "bots", "register", "--name", "squat", "--games", "rolldice", "--endpoint", endpoint,
            "--server", srv.address, "--token", bob_token,
        )  # fmt: skip
        assert registered.returncode == 0, registered.stderr
        assert "--owner bob" in registered.stdout  # the hint: how to protect one's own endpoint
        # ...but every match of his ends at the start: the endpoint plays for alice only.
        ids = {}
        for who, api, bot in (("alice", alice, "alices"), ("bob", bob, "squat")):
            created = api.CreateTournament(
                arena_pb2.CreateTournamentRequest(game="rolldice", bots=[bot, "random"], players=2, seed=5, repeats=2)
            )
            ids[who] = created.id
        for tournament in ids.values():
            wait_for(lambda t=tournament: store.tournament(t)["status"] == "complete", 120, "the tournament to finish")
        alices, bobs = store.matches(ids["alice"]), store.matches(ids["bob"])
        assert alices and all(record.failures == [] for record in alices)
        assert bobs
        for record in bobs:
            seat = [s["bot"] for s in record.seats].index("squat")
            assert seat_failures(record) == [(seat, -1, "protocol", not_owners_endpoint("bob"))]
        rows = bob.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=ids["bob"])).rows
        squat = next(row for row in rows if row.bot == "squat")
        assert dict(squat.failures) == {"protocol": len(bobs)} and (squat.wins, squat.losses) == (0, len(bobs))
        # A challenge of the squatted bot: its seat forfeits at once, and says why.
        events = list(
            bob.stream("Challenge", arena_pb2.ChallengeRequest(bot="squat", game="rolldice", opponents=["random"]))
        )
        failures = [e.failure for e in events if e.HasField("failure")]
        assert [(f.seat, f.decision, f.verdict) for f in failures] == [(0, -1, "protocol")]
        assert "Ready.owners" in failures[0].detail and "alice" not in failures[0].detail
        # Alice's own challenge plays.
        events = list(
            alice.stream("Challenge", arena_pb2.ChallengeRequest(bot="alices", game="rolldice", opponents=["random"]))
        )
        assert not [e for e in events if e.HasField("failure")] and events[-1].HasField("finished")


def test_the_server_says_whom_it_plays_for_and_logs_which_match_it_refused(caplog):
    args = [*served("random"), "--owner", "alice", "--owner", "carol"]
    server = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    try:
        assert server.stdout is not None
        line = server.stdout.readline().strip()
    finally:
        server.kill()
        server.wait(10)
    # The address stays last: scripts read it from the line's end.
    assert line.startswith("serving random (any game) for owners alice, carol on 127.0.0.1:"), line
    running = start(RandomBot, "127.0.0.1:0", owners=["alice"])
    try:
        with caplog.at_level("WARNING", logger="arena.bot"):
            record = play_as(f"grpc://127.0.0.1:{running.port}", "bob")
            wait_for(lambda: "aborted by the referee" in caplog.text, 10, "the server's log line")
    finally:
        running.stop()
    # The endpoint's operator learns which match tried to play it as someone else's.
    assert f"match {record.match_id} seat 0 aborted by the referee: seat 0 forfeits: protocol:" in caplog.text
    assert "'bob' is not one of them" in caplog.text
