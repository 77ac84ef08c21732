"""An endpoint's key: a bot server that has one (``arena bot serve --key-file``) plays only the
starts that prove it (``MatchStart.endpoint_proof``: a fresh nonce and its HMAC), which the
service sends for a registration made with the same key. So nobody can register another
owner's endpoint as his and earn a rating or challenges with that bot, directly or through a
relay of his own in front of it. Real bot servers, a real relay, real gRPC on loopback; the
service path through a real ``arena serve``, Celery worker and redis-server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import grpc
import pytest

from arena.cli import UsageError
from arena.cli.common import read_key_file
from arena.games.rolldice import GAME
from arena.protocol import (
    PROOF_WINDOW_S,
    ProofCheck,
    check_endpoint_key,
    endpoint_mac,
    endpoint_proof,
    new_endpoint_key,
    proves,
)
from arena.runner import play_match
from arena.v1 import arena_pb2, bot_pb2
from bots.random_bot import RandomBot
from bots.serve import start
from referee.auth import create_owner
from referee.remote import REFUSED_REGISTRATION, RemotePlayer
from referee.store import Store
from tests.cli_run import arena
from tests.remote_helpers import ROOT, bot_process, served
from tests.services import redis_server, service, wait_for, workers
from tests.test_service import Api, code_of

pytestmark = pytest.mark.timeout(180)

CONFIG = GAME.config(2, {"target": 20})
KEY = "alice-endpoint-key-0123456789"
OTHER = "bob-own-endpoint-key-9876543210"


def play_as(address: str, key: str | None):  # type: ignore[no-untyped-def]
    """A short RollDice match: the endpoint in seat 0, played by a registration holding ``key``."""
    return play_match(GAME, CONFIG, 3, [RemotePlayer(address, key=key), RandomBot()])


def refused(record) -> bool:  # type: ignore[no-untyped-def]
    return [(f.seat, f.decision, f.verdict, f.detail) for f in record.failures] == [
        (0, -1, "protocol", REFUSED_REGISTRATION)
    ]


def relay(upstream: str):  # type: ignore[no-untyped-def]
    """Someone's relay in front of ``upstream``: forwards every message both ways, untouched."""
    script = str(ROOT / "tests" / "bots" / "relay.py")
    return bot_process([sys.executable, script, "--upstream", upstream.removeprefix("grpc://"), "--port", "0"])


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "bot.key"
    path.write_text(KEY + "\n")
    return path


def test_a_proof_is_the_keys_for_one_start_and_never_the_same_twice():
    proof = endpoint_proof(KEY, "m000007", 1)
    assert len(proof.nonce) == 16 and len(proof.mac) == 32 and proves(KEY, proof, "m000007", 1)
    assert proof.nonce != endpoint_proof(KEY, "m000007", 1).nonce  # a fresh nonce every start
    assert not proves(OTHER, proof, "m000007", 1)
    assert not proves(KEY, proof, "m000008", 1) and not proves(KEY, proof, "m000007", 0)  # another start
    assert not proves(KEY, bot_pb2.EndpointProof(), "m000007", 1)  # none at all
    tampered = bot_pb2.EndpointProof(nonce=proof.nonce, time_ms=proof.time_ms, mac=proof.mac[:-1] + b"\0")
    assert not proves(KEY, tampered, "m000007", 1)
    later = bot_pb2.EndpointProof(nonce=proof.nonce, time_ms=proof.time_ms + 1, mac=proof.mac)
    assert not proves(KEY, later, "m000007", 1)  # the time is signed
    short = proof.nonce[:8]
    mac = endpoint_mac(KEY, short, proof.time_ms, "m000007", 1)
    assert not proves(KEY, bot_pb2.EndpointProof(nonce=short, time_ms=proof.time_ms, mac=mac), "m000007", 1)
    made = {new_endpoint_key() for _ in range(3)}
    assert len(made) == 3
    for key in made:
        check_endpoint_key(key)


def test_a_server_takes_a_proof_once_and_only_while_it_is_fresh():
    now = [1_000_000.0]
    check = ProofCheck(KEY, clock=lambda: now[0])

    def start(proof: bot_pb2.EndpointProof, match_id: str = "m000001", seat: int = 0) -> bot_pb2.MatchStart:
        return bot_pb2.MatchStart(match_id=match_id, seat=seat, endpoint_proof=proof)

    fresh = endpoint_proof(KEY, "m000001", 0, now=now[0])
    assert check.refusal(start(fresh)) is None
    # The same proof again: a replay (a relay that captured it, a start logged by a bot).
    assert check.refusal(start(fresh)) == "the proof was used before (a replay)"
    assert check.refusal(start(bot_pb2.EndpointProof())).startswith("the start carries no proof")
    assert check.refusal(start(endpoint_proof(OTHER, "m000001", 0, now=now[0]))) == (
        "the proof was not made with this endpoint's key for this start"
    )
    assert check.refusal(start(endpoint_proof(KEY, "m000002", 0, now=now[0]))).startswith("the proof was not made")
    old = endpoint_proof(KEY, "m000001", 0, now=now[0] - PROOF_WINDOW_S - 1)
    assert (
        check.refusal(start(old))
        == f"the proof was made 301 s ago: more than {PROOF_WINDOW_S} s (or the clocks differ)"
    )
    ahead = endpoint_proof(KEY, "m000001", 0, now=now[0] + PROOF_WINDOW_S + 5)
    assert check.refusal(start(ahead)).startswith("the proof was made 305 s ahead of this clock")
    within = endpoint_proof(KEY, "m000001", 0, now=now[0] - PROOF_WINDOW_S + 1)  # clocks a little apart
    assert check.refusal(start(within)) is None
    # Nonces are forgotten once no proof carrying them could be fresh: memory stays bounded.
    now[0] += 3 * PROOF_WINDOW_S
    assert check.refusal(start(endpoint_proof(KEY, "m000003", 0, now=now[0]), "m000003")) is None
    assert len(check.seen) == 1


def test_a_proof_from_a_clock_ahead_is_a_replay_for_as_long_as_it_stays_fresh():
    """Its nonce is remembered for the window (ProofCheck): a proof dated up to the window ahead
    of the server's clock stays fresh twice the window after its first use, and is refused as
    a replay all that time, then as too old."""
    now = [1_000_000.0]
    check = ProofCheck(KEY, clock=lambda: now[0])
    start = bot_pb2.MatchStart(
        match_id="m000001", seat=0, endpoint_proof=endpoint_proof(KEY, "m000001", 0, now=now[0] + PROOF_WINDOW_S - 1)
    )
    assert check.refusal(start) is None
    for later in (1, PROOF_WINDOW_S + 1, 2 * PROOF_WINDOW_S - 1):
        now[0] = 1_000_000.0 + later
        assert check.refusal(start) == "the proof was used before (a replay)", later
    now[0] = 1_000_000.0 + 2 * PROOF_WINDOW_S
    assert check.refusal(start) == f"the proof was made 301 s ago: more than {PROOF_WINDOW_S} s (or the clocks differ)"


@pytest.mark.parametrize("key", ["", "short", "x" * 201, "has a space in it here", "tab\tin-the-middle-0123"])
def test_a_key_that_is_not_one_is_refused(key):
    with pytest.raises(ValueError, match="expected 16-200 printable ASCII characters without spaces"):
        check_endpoint_key(key)


def test_a_keyed_endpoint_plays_only_starts_that_prove_its_key(key_file):
    with bot_process([*served("random"), "--key-file", str(key_file)]) as address:
        record = play_as(address, KEY)
        assert record.failures == [] and record.result is not None
        for key in (None, OTHER):  # a registration without the key, or with another
            other = play_as(address, key)
            assert refused(other), other.failures
            assert {d.by for d in other.decisions if d.seat == 0} == {"substitute"}
            assert KEY not in json.dumps(other.to_json())
        # Through a relay of someone else's, nothing changes: the start he forwards proves his
        # own registration's key (or none), and the endpoint's key never travels.
        with relay(address) as relayed:
            assert refused(play_as(relayed, None)) and refused(play_as(relayed, OTHER))
            assert play_as(relayed, KEY).failures == []  # a relay of the key's holder is the holder's


def test_an_endpoint_without_a_key_plays_every_start():
    with bot_process(served("random")) as address:
        assert play_as(address, None).failures == [] and play_as(address, KEY).failures == []


def test_the_server_says_it_has_a_key_and_logs_which_match_it_refused(key_file, caplog):
    server = subprocess.Popen(
        [*served("random"), "--key-file", str(key_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline().strip()
    finally:
        server.kill()
        server.wait(10)
    assert line.startswith("serving random (any game) with its key on 127.0.0.1:"), line  # the address last
    running = start(RandomBot, "127.0.0.1:0", key=KEY)
    try:
        with caplog.at_level("WARNING", logger="arena.bot"):
            record = play_as(f"grpc://127.0.0.1:{running.port}", None)
            wait_for(lambda: "refused" in caplog.text, 10, "the server's log line")
    finally:
        running.stop()
    assert f"match {record.match_id} seat 0 refused: the start carries no proof" in caplog.text
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "--key-file {path}: cannot read it (No such file or directory)"),
        ("short\n", "--key-file {path}: expected 16-200 printable ASCII characters without spaces, got 5 characters"),
    ],
)
def test_arena_bot_serve_refuses_a_key_file_it_cannot_use(tmp_path, content, says):
    path = tmp_path / "bot.key"
    if content is not None:
        path.write_text(content)
    args = ["bot", "serve", "--bot", "random", "--port", "0", "--key-file", str(path)]
    done = arena(*args, timeout=60)
    assert done.returncode == 2, done
    assert says.format(path=path) in done.stderr and "serving" not in done.stdout


def test_new_key_prints_a_key_and_arena_play_can_prove_it(tmp_path):
    made = arena("bot", "new-key")
    assert made.returncode == 0
    key = made.stdout.strip()
    check_endpoint_key(key)
    path = tmp_path / "bot.key"
    path.write_text(made.stdout)
    with bot_process([*served("random"), "--key-file", str(path)]) as address:
        bots = f"{address},random"
        proved = arena("play", "--game", "rolldice", "--bots", bots, "--endpoint-key-file", str(path), "--json")
        assert proved.returncode == 0 and json.loads(proved.stdout)["failures"] == []
        unproved = json.loads(arena("play", "--game", "rolldice", "--bots", bots, "--json").stdout)
        assert [(f["seat"], f["verdict"]) for f in unproved["failures"]] == [(0, "protocol")]


def test_through_the_service_only_the_keys_registration_plays(tmp_path, key_file):
    with (
        bot_process([*served("random"), "--key-file", str(key_file)]) as endpoint,
        relay(endpoint) as relayed,
        redis_server(tmp_path) as redis,
        workers(redis.url, tmp_path, count=1, concurrency=1, metrics=False),
        service(redis.url, tmp_path) as srv,
    ):
        store = Store(redis.url)
        alice_token, bob_token = create_owner(store, "alice"), create_owner(store, "bob")
        alice, bob = Api(srv.address, alice_token), Api(srv.address, bob_token)

        def register(token: str, *args: str) -> subprocess.CompletedProcess[str]:
            return arena("bots", "register", "--games", "rolldice", "--server", srv.address, "--token", token, *args)

        done = register(alice_token, "--name", "alices", "--endpoint", endpoint, "--endpoint-key-file", str(key_file))
        assert done.returncode == 0, done.stderr
        assert "no endpoint key" not in done.stdout
        # The key is kept and never shown, to its owner or anyone.
        for client in (alice, bob):
            shown = client.GetBot(arena_pb2.GetBotRequest(name="alices"))
            assert shown.bot.endpoint_keyed and KEY not in str(shown)
            assert KEY not in str(client.ListBots(arena_pb2.ListBotsRequest()))
        got = arena("bots", "get", "alices", "--server", srv.address, "--token", bob_token)
        assert "alices (owner alice, enabled), its endpoint keyed" in got.stdout and KEY not in got.stdout
        # Bob may register the endpoint (registration does not dial), directly, with a key of his
        # own, or as his relay; the reminder tells him how a key would protect his own endpoint.
        done = register(bob_token, "--name", "squat", "--endpoint", endpoint)
        assert done.returncode == 0 and "no endpoint key: anyone may register this endpoint" in done.stdout
        bob.RegisterBot(arena_pb2.RegisterBotRequest(name="squat-keyed", games=["rolldice"], endpoint=endpoint))
        bob.UpdateBot(arena_pb2.UpdateBotRequest(name="squat-keyed", endpoint_key=OTHER))
        bob.RegisterBot(arena_pb2.RegisterBotRequest(name="squat-relay", games=["rolldice"], endpoint=relayed))
        # A key that is not one is refused, without being quoted.
        code, field, details = code_of(
            bob.RegisterBot,
            arena_pb2.RegisterBotRequest(name="bad", games=["rolldice"], endpoint=endpoint, endpoint_key="short key"),
        )
        assert (code, field) == (grpc.StatusCode.INVALID_ARGUMENT, "endpoint_key") and "short key" not in details
        ids = {}
        for api, bot in ((alice, "alices"), (bob, "squat"), (bob, "squat-keyed"), (bob, "squat-relay")):
            created = api.CreateTournament(
                arena_pb2.CreateTournamentRequest(game="rolldice", bots=[bot, "random"], players=2, seed=5)
            )
            ids[bot] = created.id
        for tournament in ids.values():
            wait_for(lambda t=tournament: store.tournament(t)["status"] == "complete", 120, "the tournament to finish")
        assert all(record.failures == [] for record in store.matches(ids["alices"]))
        for bot in ("squat", "squat-keyed", "squat-relay"):
            records = store.matches(ids[bot])
            assert records
            for record in records:
                seat = [s["bot"] for s in record.seats].index(bot)
                failures = [(f.seat, f.decision, f.verdict, f.detail) for f in record.failures]
                assert failures == [(seat, -1, "protocol", REFUSED_REGISTRATION)], bot
        # A challenge of a squatting bot: its seat forfeits at once, and says why; alice's plays.
        events = list(
            bob.stream(
                "Challenge", arena_pb2.ChallengeRequest(bot="squat-relay", game="rolldice", opponents=["random"])
            )
        )
        failures = [e.failure for e in events if e.HasField("failure")]
        assert [(f.seat, f.verdict, f.detail) for f in failures] == [(0, "protocol", REFUSED_REGISTRATION)]
        events = list(
            alice.stream("Challenge", arena_pb2.ChallengeRequest(bot="alices", game="rolldice", opponents=["random"]))
        )
        assert not [e for e in events if e.HasField("failure")] and events[-1].HasField("finished")


def start_and_read(address: str, start: bot_pb2.MatchStart) -> str:
    """One Play stream that sends ``start`` and reads the answer: "ready", or the status code."""
    with grpc.insecure_channel(address.removeprefix("grpc://")) as channel:
        play = channel.stream_stream(
            "/arena.v1.BotService/Play",
            request_serializer=bot_pb2.RefereeMessage.SerializeToString,
            response_deserializer=bot_pb2.BotMessage.FromString,
        )
        answers = play(iter([bot_pb2.RefereeMessage(start=start)]), timeout=20)
        try:
            return next(answers).WhichOneof("body")
        except grpc.RpcError as error:
            return error.code().name


def replayed(address: str) -> list[str]:
    """A start with a good proof, then the very same start again (a captured proof replayed)."""
    start = bot_pb2.MatchStart(protocol_version="1.0", match_id="m000004", seat=0, players=2, game_id="rolldice")
    start.endpoint_proof.CopyFrom(endpoint_proof(KEY, "m000004", 0))
    return [start_and_read(address, start), start_and_read(address, start)]


def test_a_captured_proof_replayed_is_refused_by_the_sdk_and_the_node_example(key_file, request):
    with bot_process([*served("random"), "--key-file", str(key_file)]) as address:
        assert replayed(address) == ["ready", "PERMISSION_DENIED"]
    node_packages = request.getfixturevalue("node_packages")
    with bot_process(["node", str(node_packages / "bot.js"), "--port", "0", "--key-file", str(key_file)]) as address:
        assert replayed(address) == ["ready", "PERMISSION_DENIED"]


def test_a_key_goes_only_to_the_address_its_registration_still_names(tmp_path):
    """A tournament keeps the address its bots had when it was created; once the owner moves the
    bot (and perhaps its key), that address may be anyone's: no proof of the key goes there."""
    from arena.tournament import MatchSpec, TournamentSpec
    from workers.concurrent import registered_keys

    old, new = "grpc://127.0.0.1:50071", "grpc://127.0.0.1:50072"
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        store.add_bot(
            "alices",
            {"owner": "alice", "games": ["rolldice"], "endpoint": old, "enabled": True, "endpoint_key": KEY},
        )
        spec = TournamentSpec(game="rolldice", bots=("alices", "random"), players=2, addresses={"alices": old})
        match = MatchSpec(index=0, group=0, rotation=0, seats=(0, 1), seed=1)
        assert registered_keys(store, spec, match) == {"alices": KEY}
        store.update_bot("alices", {"endpoint": new, "endpoint_key": OTHER})
        assert registered_keys(store, spec, match) == {}  # the old address gets no proof, of either key
        moved = TournamentSpec(game="rolldice", bots=("alices", "random"), players=2, addresses={"alices": new})
        assert registered_keys(store, moved, match) == {"alices": OTHER}


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda path: "/dev/zero", "--key-file /dev/zero: not a regular file"),
        (lambda path: (os.mkfifo(path), str(path))[1], "--key-file {path}: not a regular file"),
        (lambda path: (path.mkdir(), str(path))[1], "--key-file {path}: not a regular file"),
        (
            lambda path: (path.write_text("k" * 5000), str(path))[1],
            "--key-file {path}: more than 4,096 characters; a key file holds one key",
        ),
    ],
    ids=["dev-zero", "named-pipe", "directory", "long-file"],
)
def test_a_key_file_is_a_regular_file_read_to_a_bound(tmp_path, make, says):
    """From a fuzzing probe: /dev/zero was read to gigabytes of memory, a named pipe waited
    forever (--endpoint-key-file, arena bots update, arena bot serve --key-file)."""
    path = tmp_path / "bot.key"
    name = make(path)
    with pytest.raises(UsageError) as refused:
        read_key_file(name, "--key-file")
    assert str(refused.value) == says.format(path=path)
