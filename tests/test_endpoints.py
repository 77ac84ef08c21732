"""Who the workers may dial (issue 10, 9c): the operator's endpoint policy, checked when a bot is
registered and again on the resolved address at every connection; a refusal is a crash verdict
naming the policy; local runs stay trusted with loopback bots."""

from __future__ import annotations

import ipaddress
import subprocess
import sys

import grpc
import pytest

from arena.clock import clock_settings
from arena.config import ConfigError
from arena.games.rolldice import GAME
from arena.runner import FunctionPlayer, play_match
from arena.v1 import arena_pb2
from referee.auth import create_owner
from referee.endpoints import EndpointPolicy, EndpointRefused, dial_target
from referee.errors import bad_request_field
from referee.remote import RemotePlayer
from referee.store import Store
from tests.remote_helpers import bot_process, served
from tests.services import ROOT, redis_server, service, wait_for, workers
from tests.test_service import Api

pytestmark = pytest.mark.timeout(300)

CONFIG = GAME.config(2, {"target": 60})
CLOCK = clock_settings({"startup": 3000})
DENY = EndpointPolicy()


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.1.2.3", "172.16.0.9", "192.168.1.1", "169.254.169.254", "224.0.0.1", "0.0.0.0", "::1",
     "fe80::1", "fc00::1", "::ffff:127.0.0.1"],
)  # fmt: skip
def test_internal_addresses_are_refused_by_default(address):
    why = DENY.refusal(ipaddress.ip_address(address))
    assert why is not None and "--allow-endpoints" in why


def test_public_addresses_pass_and_the_allow_list_widens_the_policy():
    assert DENY.refusal(ipaddress.ip_address("8.8.8.8")) is None
    assert DENY.refusal(ipaddress.ip_address("2001:4860:4860::8888")) is None
    policy = EndpointPolicy.parse("127.0.0.0/8, 10.1.0.0/16")
    assert policy.refusal(ipaddress.ip_address("127.0.0.1")) is None
    assert policy.refusal(ipaddress.ip_address("10.1.9.9")) is None
    assert policy.refusal(ipaddress.ip_address("10.2.0.1")) is not None
    assert policy.refusal(ipaddress.ip_address("::1")) is not None  # IPv6 loopback not listed
    with pytest.raises(EndpointRefused, match="unix sockets"):
        policy.check("unix:///tmp/bot.sock")
    EndpointPolicy.parse("unix").check("unix:///tmp/bot.sock")
    with pytest.raises(ConfigError, match="--allow-endpoints 'localhost'"):
        EndpointPolicy.parse("localhost")


def test_names_are_resolved_and_every_address_checked():
    with pytest.raises(EndpointRefused, match="loopback"):
        DENY.check("grpc://localhost:50061")
    with pytest.raises(EndpointRefused, match="cannot resolve"):
        DENY.check("grpc://no-such-host.invalid:1")
    (address,) = EndpointPolicy.parse("127.0.0.0/8").resolve("127.0.0.1", 5)
    assert dial_target(address, 5) == "ipv4:127.0.0.1:5"


def test_a_refused_endpoint_is_a_crash_at_start_naming_the_policy():
    with bot_process(served("random")) as address:
        for spec in (address, address.replace("127.0.0.1", "localhost")):
            record = play_match(GAME, CONFIG, 1, [RemotePlayer(spec, policy=DENY), FunctionPlayer(first)], clock=CLOCK)
            (failure,) = record.failures
            assert (failure.seat, failure.decision, failure.verdict) == (0, -1, "crash")
            assert "endpoint policy" in failure.detail and "--allow-endpoints" in failure.detail
        # Allowed: the player dials the address it checked, and plays.
        allowed = RemotePlayer(
            address.replace("127.0.0.1", "localhost"), policy=EndpointPolicy.parse("127.0.0.0/8,::1")
        )
        assert not play_match(GAME, CONFIG, 1, [allowed, FunctionPlayer(first)], clock=CLOCK).failures
        # A local run (no policy configured in this process) trusts its loopback bots.
        assert not play_match(GAME, CONFIG, 1, [RemotePlayer(address), FunctionPlayer(first)], clock=CLOCK).failures


def first(request):
    return request.options[0].id


def test_allow_endpoints_rejects_a_bad_list_in_one_line():
    for command in (["serve", "--redis", "redis://127.0.0.1:1"], ["worker", "--broker", "redis://127.0.0.1:1"]):
        out = subprocess.run(
            [sys.executable, "-m", "arena", *command, "--allow-endpoints", "10.0.0.0/33"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        assert out.returncode == 2, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and "--allow-endpoints" in out.stderr


def register(client: Api, name: str, endpoint: str) -> None:
    client.RegisterBot(arena_pb2.RegisterBotRequest(name=name, games=["rolldice"], endpoint=endpoint))


def test_service_refuses_internal_endpoints_by_default_and_workers_check_again(tmp_path):
    with bot_process(served("random")) as address, redis_server(tmp_path) as server:
        store = Store(server.url)
        token = create_owner(store, "mallory")
        # The default policy: loopback (the store itself!), private and unix endpoints refused.
        with service(server.url, tmp_path, allow_endpoints="") as strict:
            client = Api(strict.address, token)
            for name, endpoint in (
                ("redis", f"grpc://127.0.0.1:{server.port}"),
                ("inside", "grpc://10.0.0.7:50061"),
                ("metadata", "grpc://169.254.169.254:80"),
                ("named", address.replace("127.0.0.1", "localhost")),
                ("sock", "unix:///var/run/redis.sock"),
            ):
                with pytest.raises(grpc.RpcError) as info:
                    register(client, name, endpoint)
                assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, endpoint
                assert bad_request_field(info.value) == "endpoint"
                assert "endpoint policy" in (info.value.details() or ""), info.value.details()
        # The service allows loopback, the workers do not: each connection is checked again (as it
        # would be after a DNS change), and the refusal is a crash verdict, never a hang.
        with (
            service(server.url, tmp_path) as lenient,
            workers(server.url, tmp_path, count=1, concurrency=1, metrics=False, allow_endpoints="10.9.0.0/16"),
        ):
            client = Api(lenient.address, token)
            register(client, "local", address)
            created = client.CreateTournament(
                arena_pb2.CreateTournamentRequest(game="rolldice", bots=["local", "random"], players=2)
            )
            wait_for(lambda: store.tournament(created.id)["status"] == "complete", 120, "the tournament to end")
            records = store.matches(created.id)
    assert len(records) == 2
    for record in records:
        (failure,) = record.failures
        assert failure.verdict == "crash" and failure.decision == -1
        assert "endpoint policy" in failure.detail and "loopback address" in failure.detail
        # The record is read by other owners: the endpoint itself is left out.
        assert "127.0.0.1" not in failure.detail and address.rpartition(":")[2] not in failure.detail
