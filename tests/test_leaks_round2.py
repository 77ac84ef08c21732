"""What one owner can learn, or do, about another owner's bot and the operator's network, round
2 (helper D): a real ``arena serve`` over loopback and a real redis-server, owners alice and bob.

- A refused endpoint's error never says what the service's resolver answered for a name (an
  address inside the operator's network, or whether an internal name exists), nor the
  operator's allow list (where the workers may dial).
- A clock tighter than the default makes bots time out and forfeit, on their record and in the
  game's leaderboard: like a chosen seed, only for a tournament of your own bots and built-ins.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from arena.v1 import arena_pb2
from referee.auth import create_owner
from referee.errors import bad_request_field
from referee.store import Store
from tests.services import redis_server, service
from tests.test_service import Api

pytestmark = pytest.mark.timeout(120)

ALLOWED = "127.0.0.2/32"
"""The operator's allow list: one loopback address (alice's bot), so ``localhost`` (127.0.0.1,
::1) is refused and the list itself is something the errors must not repeat."""
ALICE_BOT = "grpc://127.0.0.2:50061"  # registration checks the policy only: nothing listens


def refusal(call: Any, request: Any) -> tuple[grpc.StatusCode, str | None, str]:
    with pytest.raises(grpc.RpcError) as info:
        call(request)
    return info.value.code(), bad_request_field(info.value), info.value.details() or ""


@pytest.fixture(scope="module")
def owners(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("leaks2")
    with redis_server(tmp) as redis, service(redis.url, tmp, allow_endpoints=ALLOWED) as srv:
        store = Store(redis.url)
        tokens = {name: create_owner(store, name, operator=name == "ops") for name in ("ops", "alice", "bob")}
        clients = {name: Api(srv.address, token) for name, token in tokens.items()}
        clients["alice"].RegisterBot(
            arena_pb2.RegisterBotRequest(name="alice-bot", games=["rolldice"], endpoint=ALICE_BOT)
        )
        yield {"store": store, **clients}


def test_a_refused_name_never_says_what_it_resolves_to_nor_the_allow_list(owners: dict[str, Any]) -> None:
    bob = owners["bob"]
    answers = {}
    for endpoint in ("grpc://localhost:50061", "grpc://no-such-host.invalid:50061"):
        request = arena_pb2.RegisterBotRequest(name="bob-probe", games=["rolldice"], endpoint=endpoint)
        code, field, message = refusal(bob.RegisterBot, request)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and field == "endpoint", message
        assert "endpoint policy" in message, message
        # Before: "localhost:50061: 127.0.0.1 is a loopback address, which the operator's endpoint
        # policy does not allow (allowed: 127.0.0.2/32; see --allow-endpoints)", and "cannot
        # resolve 'no-such-host.invalid'" for a name that does not exist: a DNS oracle.
        for secret in ("127.0.0.1", "::1", "loopback", ALLOWED, "cannot resolve"):
            assert secret not in message, message
        answers[endpoint] = message.replace(endpoint.removeprefix("grpc://").rpartition(":")[0], "NAME")
    # An existing internal name and a name that does not resolve get the same answer.
    assert len(set(answers.values())) == 1, answers
    # The same on an update of one's own bot.
    bob.RegisterBot(arena_pb2.RegisterBotRequest(name="bob-bot", games=["rolldice"], endpoint=ALICE_BOT))
    code, field, message = refusal(
        bob.UpdateBot, arena_pb2.UpdateBotRequest(name="bob-bot", endpoint="grpc://localhost:50061")
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and field == "endpoint" and "127.0.0.1" not in message
    # An address the caller typed is the caller's own: it is named, the allow list is not.
    code, field, message = refusal(
        bob.RegisterBot,
        arena_pb2.RegisterBotRequest(name="bob-probe", games=["rolldice"], endpoint="grpc://10.0.0.7:50061"),
    )
    assert field == "endpoint" and "10.0.0.7" in message and "endpoint policy" in message and ALLOWED not in message


def tournament(bots: list[str], **clock: int) -> arena_pb2.CreateTournamentRequest:
    return arena_pb2.CreateTournamentRequest(
        game="rolldice", bots=bots, players=2, repeats=1, clock=arena_pb2.ClockLimits(**clock)
    )


def test_a_tighter_clock_than_the_default_is_only_for_your_own_bots(owners: dict[str, Any]) -> None:
    """Before: bob entered alice's bot with decision_ms=1 and it lost every match on timeouts
    (heuristic 0-10 against random), on its public record and in the game's leaderboard."""
    store: Store = owners["store"]
    bob, alice, ops = owners["bob"], owners["alice"], owners["ops"]
    before = len(store.tournaments(1000))
    for clock, field in (
        ({"decision_ms": 1}, "clock.decision_ms"),
        ({"bank_ms": 0}, "clock.bank_ms"),
        ({"startup_ms": 50}, "clock.startup_ms"),
        ({"max_strikes": 0}, "clock.max_strikes"),
    ):
        code, named, message = refusal(bob.CreateTournament, tournament(["alice-bot", "random"], **clock))
        assert (code, named) == (grpc.StatusCode.INVALID_ARGUMENT, field), message
        assert "'alice-bot' belongs to 'alice'" in message, message
    assert len(store.tournaments(1000)) == before  # nothing stored for a refused request
    # Your own bots and built-ins: any clock within the maxima; operators: any bots.
    created = [
        alice.CreateTournament(tournament(["alice-bot", "random"], decision_ms=1, bank_ms=0)),
        bob.CreateTournament(tournament(["heuristic", "random"], decision_ms=1)),
        ops.CreateTournament(tournament(["alice-bot", "random"], decision_ms=1)),
        # A clock at or above the defaults harms nobody's bot.
        bob.CreateTournament(tournament(["alice-bot", "random"], decision_ms=5000, bank_ms=20000)),
    ]
    for t in created:
        ops.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=t.id))


def test_a_refusal_at_connection_names_neither_the_resolved_address_nor_the_allow_list() -> None:
    """A worker that refuses a registered name at connection (its DNS changed, or the worker's
    allow list is narrower than the service's) wrote "endpoint refused: <endpoint>: 127.0.0.1 is
    a loopback address, which the operator's endpoint policy does not allow (allowed:
    10.9.0.0/16; see --allow-endpoints)" into the record: the name was left out, what it
    resolved to and the allow list were not, and every owner reads the record once the
    tournament ends (and GetBot's recent_failures)."""
    from arena.registry import get_game
    from arena.runner import FunctionPlayer, play_match
    from referee.endpoints import EndpointPolicy
    from referee.remote import RemotePlayer

    game = get_game("rolldice")
    workers_policy = EndpointPolicy.parse("10.9.0.0/16")
    for spec in ("grpc://localhost:50061", "grpc://no-such-host.invalid:50061", "unix:///tmp/arena-no.sock"):
        player = RemotePlayer(spec, policy=workers_policy)
        record = play_match(
            game, game.config(2, {}), 1, [player, FunctionPlayer(lambda request: request.options[0].id)]
        )
        (failure,) = (f for f in record.failures if f.seat == 0)
        assert failure.verdict == "crash" and "endpoint policy" in failure.detail, failure.detail
        for secret in ("127.0.0.1", "::1", "10.9.0.0", "localhost", "no-such-host", "/tmp/arena-no.sock"):
            assert secret not in failure.detail, failure.detail


def test_a_refusal_at_connection_is_a_warning_to_the_operator_once_an_endpoint(caplog) -> None:
    """The record says little (above); the operator's log says what and why, once per endpoint
    and process: an outside operator probe saw every match of a bot the service had registered
    forfeited by workers started without its --allow-endpoints, and no line above DEBUG."""
    from arena.registry import get_game
    from arena.runner import FunctionPlayer, play_match
    from referee.endpoints import EndpointPolicy
    from referee.remote import RemotePlayer
    from tests.services import free_port

    game = get_game("rolldice")
    spec = f"grpc://127.0.0.1:{free_port()}"  # one no other test of this process was refused
    with caplog.at_level("WARNING", "referee.remote"):
        for seed in (1, 2, 3):
            player = RemotePlayer(spec, policy=EndpointPolicy.parse("10.9.0.0/16"))
            play_match(game, game.config(2, {}), seed, [player, FunctionPlayer(lambda request: request.options[0].id)])
    warned = [r for r in caplog.records if r.name == "referee.remote" and "endpoint refused" in r.getMessage()]
    assert len(warned) == 1 and warned[0].bot == spec  # type: ignore[attr-defined]
    assert "--allow-endpoints" in warned[0].getMessage() and "127.0.0.1 is a loopback" in warned[0].getMessage()
