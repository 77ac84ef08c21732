"""The referee service against hostile or careless input, and the findings of exploratory
testing: what a running tournament's match shows (no deal still in play), atomic bot updates,
records of an older game version, ids and page tokens, long inputs echoed, bots' games lists,
names, hosted bots in challenges, `search` as a built-in, copies' privacy, paging.

A real `arena serve` (with its web UI), redis-server and Celery worker; real gRPC on loopback."""

from __future__ import annotations

import base64
import json
import re
import threading
import time
import urllib.error
import urllib.request
from concurrent import futures
from urllib.parse import quote

import grpc
import pytest
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from arena.record import MatchRecord
from arena.registry import get_game
from arena.v1 import arena_pb2
from referee.auth import create_owner
from referee.errors import bad_request_field, retry_after
from referee.store import Store, compress_line
from tests.cli_run import arena
from tests.remote_helpers import bot_process, served
from tests.services import free_port, redis_server, service, wait_for, workers
from tests.test_service import Api, code_of, three_owners, watch_to_end

pytestmark = pytest.mark.timeout(300)

INVALID = grpc.StatusCode.INVALID_ARGUMENT
NOT_FOUND = grpc.StatusCode.NOT_FOUND


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("inputs")
    with redis_server(tmp) as redis, workers(redis.url, tmp, count=1, concurrency=2), service(redis.url, tmp) as srv:
        store = Store(redis.url)
        tokens = three_owners(store)
        clients = {name: Api(srv.address, token) for name, token in tokens.items()}
        ended = clients["alice"].CreateTournament(
            arena_pb2.CreateTournamentRequest(game="rolldice", bots=["random", "heuristic"], repeats=2)
        )
        watch_to_end(clients["alice"], ended.id)
        with bot_process(served("random")) as bot:
            yield {
                "service": srv,
                "store": store,
                "api": clients,
                "ended": ended.id,
                "bot": bot,
                "web": f"http://127.0.0.1:{srv.http_port}",
            }


def web_get(stack, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(stack["web"] + path, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def long_running(stack, who: str = "ops") -> str:
    """A tournament that runs for a long while (cancelled by the caller)."""
    created = stack["api"][who].CreateTournament(
        arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic"], repeats=10_000)
    )
    return str(created.id)


def cancel(stack, tournament_id: str) -> None:
    stack["api"]["ops"].CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=tournament_id))


# -- 1. a running tournament's match gives away no deal still in play -----------------------


def test_a_running_match_shows_no_events_while_its_deal_is_in_play(stack):
    """A finished match's public events name the cards played: while another seat rotation of
    its duplicate group (the same deal) is unplayed, a bot there could read its opponents'
    hands from them. Nobody but an operator sees any event (nor the record) of it then; the
    reply and the page say why."""
    store: Store = stack["store"]
    bob, ops = stack["api"]["bob"], stack["api"]["ops"]
    tournament_id = long_running(stack)
    try:
        wait_for(lambda: {0, 1} <= set(store.stored_match_indices(tournament_id)), 60, "the first group")
        key = store.key("t", tournament_id, "matches")
        kept = store.redis.hget(key, 1)
        store.redis.hdel(key, 1)  # rotation 1 of match 0's deal: as if it were still being played
        ref = f"{tournament_id}:m000000"
        try:
            assert store.tournament(tournament_id)["status"] == "running"
            detail = bob.GetMatch(arena_pb2.GetMatchRequest(id=ref))
            assert not detail.spectator and detail.record_json == ""
            assert [(e.seat, e.kind) for e in detail.events] == [(-1, "notice")]
            assert detail.events[0].text.startswith("events are shown when the tournament ends: ")
            assert [s.bot for s in detail.summary.seats] and detail.summary.id == ref  # the summary is shown
            status, page = web_get(stack, f"/matches/{ref}")
            assert status == 200 and "Events are shown when the tournament ends" in page
            shown = json.loads(re.search(r'id="replay-data">(.*?)</script>', page, re.S).group(1))  # type: ignore[union-attr]
            assert shown["events"] == [] and shown["frames"] == [] and "seed" not in shown
            assert web_get(stack, f"/matches/{ref}/record.json")[0] == 409
            # An operator sees everything, as before.
            assert ops.GetMatch(arena_pb2.GetMatchRequest(id=ref)).record_json
        finally:
            store.redis.hset(key, 1, kept)
        # Every rotation of the deal played: its public events are shown (no private one).
        detail = bob.GetMatch(arena_pb2.GetMatchRequest(id=ref))
        assert store.tournament(tournament_id)["status"] == "running"
        assert detail.events and all(e.kind != "notice" for e in detail.events) and not detail.record_json
        private = {e.text for e in resimulate_events(store.match(tournament_id, 0)) if e.to is not None}
        assert not private & {e.text for e in detail.events}
    finally:
        cancel(stack, tournament_id)


def resimulate_events(record: MatchRecord | None) -> list:  # type: ignore[type-arg]
    from arena.record import resimulate

    assert record is not None
    return list(resimulate(get_game(record.game), record).log.events)


# -- 2. concurrent bot updates never revert each other ----------------------------------------


def test_a_disable_racing_an_update_is_never_lost(stack):
    alice = stack["api"]["alice"]
    lost = []
    for n in range(12):
        name = f"race-{n}"
        alice.RegisterBot(arena_pb2.RegisterBotRequest(name=name, games=["skyfive"], endpoint=stack["bot"]))
        barrier = threading.Barrier(2)

        def update(name: str = name, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            alice.UpdateBot(arena_pb2.UpdateBotRequest(name=name, endpoint="grpc://localhost:9"))

        def disable(name: str = name, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            alice.DisableBot(arena_pb2.DisableBotRequest(name=name))

        threads = [threading.Thread(target=update), threading.Thread(target=disable)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        bot = stack["api"]["alice"].GetBot(arena_pb2.GetBotRequest(name=name)).bot
        if bot.enabled or bot.endpoint != "grpc://localhost:9":
            lost.append((name, bot.enabled, bot.endpoint))
    assert not lost


def test_store_update_bot_changes_only_its_fields_under_concurrency(tmp_path):
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        store.add_bot("b", {"owner": "o", "games": ["skyfive"], "endpoint": "e0", "enabled": True, "created": 1.5})
        with futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda n: store.update_bot("b", {"endpoint": f"e{n}"}), range(200)))
            list(pool.map(lambda n: store.update_bot("b", {f"extra{n}": n}), range(40)))
        data = store.bot("b")
        assert data is not None and all(data[f"extra{n}"] == n for n in range(40))
        assert data["created"] == 1.5 and data["owner"] == "o" and data["enabled"] is True
        assert store.update_bot("missing", {"enabled": False}) is None and store.bot("missing") is None


# -- 3. a record of an older game version is served, not an INTERNAL error -----------------------


def test_a_record_of_an_older_game_version_is_served_with_a_note(stack):
    store: Store = stack["store"]
    tournament_id = stack["ended"]
    line = store.match_lines(tournament_id, [1])[1]
    record = json.loads(line)
    current = record["game_version"]
    key = store.key("t", tournament_id, "matches")
    kept = store.redis.hget(key, 1)
    store.redis.hset(key, 1, compress_line(json.dumps({**record, "game_version": "0.0-old"})))
    ref = f"{tournament_id}:m000001"
    try:
        detail = stack["api"]["bob"].GetMatch(arena_pb2.GetMatchRequest(id=ref))
        assert MatchRecord.loads(detail.record_json).game_version == "0.0-old"
        assert detail.summary.id == ref and len(detail.summary.seats) == 2
        assert [(e.seat, e.kind) for e in detail.events] == [(-1, "notice")]
        note = detail.events[0].text
        assert "version '0.0-old'" in note and f"current version {current!r}" in note and "cannot be replayed" in note
        status, page = web_get(stack, f"/matches/{ref}")
        assert status == 200 and "cannot be replayed" in page and f"/matches/{ref}/record.json" in page
        status, raw = web_get(stack, f"/matches/{ref}/record.json")
        assert status == 200 and json.loads(raw)["game_version"] == "0.0-old"
    finally:
        store.redis.hset(key, 1, kept)
    assert stack["api"]["bob"].GetMatch(arena_pb2.GetMatchRequest(id=ref)).spectator


# -- 4. ids and page tokens ------------------------------------------------------------------------


def test_ids_that_reach_other_keys_are_not_found(stack):
    alice = stack["api"]["alice"]
    tournament_id = stack["ended"]
    for suffix in (":matches", ":leaderboard", ":groups", ":events", ":summary"):
        bad = tournament_id + suffix
        calls = [
            (alice.GetTournament, arena_pb2.GetTournamentRequest(tournament_id=bad)),
            (alice.CancelTournament, arena_pb2.CancelTournamentRequest(tournament_id=bad)),
            (alice.GetMatch, arena_pb2.GetMatchRequest(id=bad + ":m000001")),
            (alice.ListMatches, arena_pb2.ListMatchesRequest(tournament_id=bad)),
            (alice.GetLeaderboard, arena_pb2.GetLeaderboardRequest(tournament_id=bad)),
            (alice.GetMatchLogs, arena_pb2.GetMatchLogsRequest(id=bad + ":m000001")),
        ]
        for call, request in calls:
            code, _, details = code_of(call, request)
            assert code == NOT_FOUND, (request, details)
        with pytest.raises(grpc.RpcError) as info:
            list(alice.stream("WatchTournament", arena_pb2.WatchTournamentRequest(tournament_id=bad)))
        assert info.value.code() == NOT_FOUND
        assert web_get(stack, f"/tournaments/{bad}")[0] == 404
        assert web_get(stack, f"/api/tournaments/{bad}/matches")[0] == 404
    # Match ids: ASCII digits in the form the service gives.
    for match in ("m٣", "m000001\n", "m1²", "m" + "9" * 5000):
        code, field, _ = code_of(alice.GetMatch, arena_pb2.GetMatchRequest(id=f"{tournament_id}:{match}"))
        assert (code, field) == (INVALID, "id"), match


def test_page_tokens_and_ports_take_ascii_digits_only(stack):
    alice = stack["api"]["alice"]
    for text in ("²", "٣", "1" * 5000):
        token = base64.urlsafe_b64encode(text.encode()).decode()
        for call, request in (
            (alice.ListTournaments, arena_pb2.ListTournamentsRequest(page_token=token)),
            (alice.ListMatches, arena_pb2.ListMatchesRequest(tournament_id=stack["ended"], page_token=token)),
        ):
            code, field, _ = code_of(call, request)
            assert (code, field) == (INVALID, "page_token"), text
    # Nothing of base64's alphabet: the decoder dropped it all, and the first page came back.
    for token in ("\x00", "!!!!", "\xff\x00" * 50):
        for call, request in (
            (alice.ListTournaments, arena_pb2.ListTournamentsRequest(page_token=token)),
            (alice.ListBots, arena_pb2.ListBotsRequest(page_token=token)),
        ):
            code, field, _ = code_of(call, request)
            assert (code, field) == (INVALID, "page_token"), repr(token)
    for offset in ("٣", "²", " 1", "1" * 50):
        assert web_get(stack, f"/api/tournaments/{stack['ended']}/matches?offset={quote(offset)}")[0] == 400, offset
    for port in ("²", "٣٣", "0", "65536"):
        request = arena_pb2.RegisterBotRequest(name="port-bot", games=["skyfive"], endpoint=f"grpc://127.0.0.1:{port}")
        code, field, _ = code_of(alice.RegisterBot, request)
        assert (code, field) == (INVALID, "endpoint"), port


# -- 5. long inputs are echoed cut short --------------------------------------------------------


def test_errors_echo_long_input_cut_short(stack):
    alice, ops = stack["api"]["alice"], stack["api"]["ops"]
    for n in (10_000, 20_000):
        cases = [
            (alice.GetTournament, arena_pb2.GetTournamentRequest(tournament_id="t" * n), NOT_FOUND, None),
            (alice.ListTournaments, arena_pb2.ListTournamentsRequest(game="g" * n), INVALID, "game"),
            (alice.GetBot, arena_pb2.GetBotRequest(name="b" * n), NOT_FOUND, None),
            (alice.DescribeGame, arena_pb2.DescribeGameRequest(game="g" * n), INVALID, "game"),
            (alice.GetMatch, arena_pb2.GetMatchRequest(id="x" * n), INVALID, "id"),
            (alice.ListBots, arena_pb2.ListBotsRequest(game="g" * n), INVALID, "game"),
            (ops.CreateOwner, arena_pb2.CreateOwnerRequest(name="o" * n), INVALID, "name"),
            (
                alice.RegisterBot,
                arena_pb2.RegisterBotRequest(name="ok-bot", games=["skyfive", "q" * n], endpoint=stack["bot"]),
                INVALID,
                "games[1]",
            ),
            (
                alice.CreateTournament,
                arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic"], on_error="e" * n),
                INVALID,
                "on_error",
            ),
        ]
        for call, request, code, field in cases:
            got, got_field, details = code_of(call, request)
            assert (got, got_field) == (code, field), details[:200]
            assert len(details) < 600 and f"({n} chars)" in details, details[:200]


def test_details_of_a_status_the_transport_replaced_are_ignored():
    """A server's rich status whose trailers exceed the client's metadata limit reaches the
    client as RESOURCE_EXHAUSTED, its details still attached: reading them must not raise
    ('Code in Status proto ... doesn't match')."""

    def handler(request: bytes, context: grpc.ServicerContext) -> bytes:
        bad = error_details_pb2.BadRequest(
            field_violations=[error_details_pb2.BadRequest.FieldViolation(field="name", description="x" * 6000)]
        )
        detail = status_pb2.Status(code=code_pb2.NOT_FOUND, message="m" * 6000)
        detail.details.add().Pack(bad)
        context.abort_with_status(rpc_status.to_status(detail))
        return b""

    server = grpc.server(futures.ThreadPoolExecutor(2))
    server.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler("t.T", {"M": grpc.unary_unary_rpc_method_handler(handler)})]
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        call = grpc.insecure_channel(f"127.0.0.1:{port}").unary_unary("/t.T/M")
        with pytest.raises(grpc.RpcError) as info:
            call(b"", timeout=30)
        error = info.value
        if error.code() == NOT_FOUND:  # this grpc let it through: then its field is read
            assert bad_request_field(error) == "name"
        else:
            assert bad_request_field(error) is None and retry_after(error) is None
    finally:
        server.stop(0)


# -- 6. a bot's games: each known game once --------------------------------------------------------


def test_a_bots_games_are_known_and_listed_once(stack):
    alice = stack["api"]["alice"]
    cases = [
        (["skyfive", "skyfive"], "games[1]"),
        (["skyfive", "rolldice", "chess"], "games[2]"),
        (["skyfive"] * 100_000, "games"),
    ]
    for listed, field in cases:
        began = time.monotonic()
        request = arena_pb2.RegisterBotRequest(name="dup-bot", games=listed, endpoint=stack["bot"])
        code, got, details = code_of(alice.RegisterBot, request)
        assert (code, got) == (INVALID, field), details[:200]
        assert time.monotonic() - began < 5
    assert code_of(alice.GetBot, arena_pb2.GetBotRequest(name="dup-bot"))[0] == NOT_FOUND


# -- 7. names are matched whole -----------------------------------------------------------------


def test_names_with_a_trailing_newline_are_refused(stack):
    alice, ops = stack["api"]["alice"], stack["api"]["ops"]
    request = arena_pb2.RegisterBotRequest(name="newline-bot\n", games=["skyfive"], endpoint=stack["bot"])
    assert code_of(alice.RegisterBot, request)[:2] == (INVALID, "name")
    assert code_of(ops.CreateOwner, arena_pb2.CreateOwnerRequest(name="carol\n"))[:2] == (INVALID, "name")
    with pytest.raises(ValueError):
        create_owner(stack["store"], "dave\n")
    assert stack["store"].owner("dave\n") is None and stack["store"].owner("carol\n") is None


# -- 8. hosted bots in a challenge ----------------------------------------------------------------


def test_challenging_a_hosted_bot_is_refused_naming_the_bot(stack):
    store: Store = stack["store"]
    hosted = {"owner": "alice", "games": ["rolldice"], "endpoint": "hosted:alice-hosted", "enabled": True}
    store.add_bot("alice-hosted", {**hosted, "created": time.time()})
    request = arena_pb2.ChallengeRequest(bot="alice-hosted", game="rolldice", opponents=["random"])
    with pytest.raises(grpc.RpcError) as info:
        list(stack["api"]["alice"].stream("Challenge", request))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert info.value.details().startswith("hosted bots cannot be challenged (yet): ")
    assert bad_request_field(info.value) == "bot"


# -- 9. `search` is a built-in everywhere --------------------------------------------------------


def test_search_is_a_built_in_bot_everywhere(stack):
    alice, bob = stack["api"]["alice"], stack["api"]["bob"]
    # In any case, and with a trailing or doubled _ . - (`random_` registered: an outside probe).
    for name in (
        "search",
        "random",
        "heuristic",
        "Random",
        "HEURISTIC",
        "random_",
        "heuristic-",
        "search.",
        "Random__",
    ):
        request = arena_pb2.RegisterBotRequest(name=name, games=["rolldice"], endpoint=stack["bot"])
        assert code_of(bob.RegisterBot, request)[:2] == (INVALID, "name"), name
    assert "search" in alice.DescribeGame(arena_pb2.DescribeGameRequest(game="rolldice")).builtin_bots
    created = alice.CreateTournament(
        arena_pb2.CreateTournamentRequest(game="rolldice", bots=["search:iterations=20", "random"], repeats=1)
    )
    assert stack["store"].tournament(created.id)["spec"]["addresses"] == {}
    assert watch_to_end(alice, created.id)[-1].tournament.status == "complete"
    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-dicer", games=["rolldice"], endpoint=stack["bot"]))
    events = list(
        alice.stream(
            "Challenge",
            arena_pb2.ChallengeRequest(bot="alice-dicer", game="rolldice", opponents=["search:iterations=20"]),
        )
    )
    assert events[0].started.seat_names[1] == "search:iterations=20" and events[-1].WhichOneof("body") == "finished"
    # An opponent is a built-in bot, never an address the service would dial.
    for i, opponent in ((0, "grpc://127.0.0.1:9"), (0, "alice-dicer"), (0, "hosted:/tmp")):
        request = arena_pb2.ChallengeRequest(bot="alice-dicer", game="rolldice", opponents=[opponent])
        with pytest.raises(grpc.RpcError) as info:
            list(alice.stream("Challenge", request))
        assert (info.value.code(), bad_request_field(info.value)) == (INVALID, f"opponents[{i}]"), opponent


# -- 10. an owner sees its copies' failures while the tournament runs ------------------------


def test_an_owner_sees_the_failures_of_its_bots_copies_while_running(stack):
    alice, bob = stack["api"]["alice"], stack["api"]["bob"]
    dead = f"grpc://127.0.0.1:{free_port()}"  # nothing listens there
    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-dead", games=["skyfive"], endpoint=dead))
    created = bob.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="skyfive", bots=["alice-dead*2", "heuristic"], repeats=10_000, error_budget=100
        )
    )
    store: Store = stack["store"]
    try:

        def forfeits(client: Api) -> dict[str, int]:
            listing = client.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=created.id, limit=500))
            out: dict[str, int] = {}
            for match in listing.matches:
                for seat in match.seats:
                    out[seat.bot] = out.get(seat.bot, 0) + seat.forfeited
            return out

        # Both, as the operator sees them: the first matches stored may all be the copy's.
        both = ("alice-dead", "alice-dead#2")
        wait_for(lambda: all(forfeits(stack["api"]["ops"]).get(b) for b in both), 60, "forfeits of both copies")
        seen = forfeits(alice)
        assert store.tournament(created.id)["status"] == "running"
        assert seen.get("alice-dead") and seen.get("alice-dead#2"), seen
        assert not any(forfeits(bob).values())  # not bob's bots: private while it runs
        failures = alice.GetBot(arena_pb2.GetBotRequest(name="alice-dead")).recent_failures
        assert any(f.match_id.startswith(created.id) for f in failures)
        assert not bob.GetBot(arena_pb2.GetBotRequest(name="alice-dead")).recent_failures
    finally:
        cancel(stack, created.id)


def test_a_bots_recent_failures_outlive_twenty_newer_tournaments_of_others(stack):
    """GetBot looked for a bot's failures among the service's 20 newest tournaments of anyone:
    twenty tournaments of others later, its failures were gone from it."""
    alice, ops = stack["api"]["alice"], stack["api"]["ops"]
    store: Store = stack["store"]
    dead = f"grpc://127.0.0.1:{free_port()}"  # nothing listens: each match a failure
    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-gone", games=["rolldice"], endpoint=dead))
    failing = alice.CreateTournament(
        arena_pb2.CreateTournamentRequest(game="rolldice", bots=["alice-gone", "heuristic"], repeats=1)
    )
    wait_for(lambda: store.tournament(failing.id)["status"] == "complete", 60, "the failing tournament")

    def failures() -> set[str]:
        return {f.tournament_id for f in alice.GetBot(arena_pb2.GetBotRequest(name="alice-gone")).recent_failures}

    assert failures() == {failing.id}
    for _ in range(21):
        ops.CreateTournament(arena_pb2.CreateTournamentRequest(game="rolldice", bots=["random", "heuristic"]))
    assert failing.id not in store.tournaments(20)
    assert failures() == {failing.id}


# -- 11. tournaments page by a cursor --------------------------------------------------------------


def test_list_tournaments_pages_by_a_cursor(stack):
    bob = stack["api"]["bob"]
    for _ in range(3):
        bob.CreateTournament(arena_pb2.CreateTournamentRequest(game="rolldice", bots=["random", "heuristic"]))
    first = bob.ListTournaments(arena_pb2.ListTournamentsRequest(limit=2))
    assert first.next_page_token
    newer = bob.CreateTournament(arena_pb2.CreateTournamentRequest(game="rolldice", bots=["random", "heuristic"]))
    second = bob.ListTournaments(arena_pb2.ListTournamentsRequest(limit=2, page_token=first.next_page_token))
    ids = [t.id for t in first.tournaments] + [t.id for t in second.tournaments]
    assert len(set(ids)) == len(ids) and newer.id not in ids
    # Walking every page sees every tournament once, newest first.
    seen, token = [], ""
    while True:
        page = bob.ListTournaments(arena_pb2.ListTournamentsRequest(limit=3, page_token=token))
        seen += [t.id for t in page.tournaments]
        token = page.next_page_token
        if not token:
            break
    everything = [t.decode() for t in stack["store"].redis.zrevrange(stack["store"].key("tournaments"), 0, -1)]
    assert seen == everything
    # A position, as earlier versions gave, still pages.
    legacy = base64.urlsafe_b64encode(b"2").decode()
    assert [t.id for t in bob.ListTournaments(arena_pb2.ListTournamentsRequest(page_token=legacy)).tournaments] == (
        everything[2:52]
    )
    forged = base64.urlsafe_b64encode(b"c:1.5:nope").decode()
    assert code_of(bob.ListTournaments, arena_pb2.ListTournamentsRequest(page_token=forged))[:2] == (
        INVALID,
        "page_token",
    )


# -- a chosen seed tells its chooser every deal ------------------------------------------------


def test_a_seed_may_be_chosen_only_for_a_tournament_of_ones_own_bots(stack):
    alice, bob, ops = stack["api"]["alice"], stack["api"]["bob"], stack["api"]["ops"]
    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="seeded-alice", games=["skyfive"], endpoint=stack["bot"]))
    bob.RegisterBot(arena_pb2.RegisterBotRequest(name="seeded-bob", games=["skyfive"], endpoint=stack["bot"]))
    mixed = arena_pb2.CreateTournamentRequest(game="skyfive", bots=["seeded-alice", "seeded-bob"], seed=777)
    code, field, details = code_of(alice.CreateTournament, mixed)
    assert (code, field) == (INVALID, "seed") and "'seeded-bob' belongs to 'bob'" in details, details
    created = []
    for caller, bots, seed in ((alice, ["seeded-alice", "random"], 777), (ops, ["seeded-alice", "seeded-bob"], 778)):
        # Her own bot and a built-in; an operator's run of anyone's bots; and no seed at all.
        created.append(caller.CreateTournament(arena_pb2.CreateTournamentRequest(game="skyfive", bots=bots, seed=seed)))
    created.append(
        alice.CreateTournament(arena_pb2.CreateTournamentRequest(game="skyfive", bots=["seeded-alice", "seeded-bob"]))
    )
    for tournament in created:
        cancel(stack, tournament.id)


def test_an_operators_chosen_seed_deals_registered_bots_once(stack):
    """Match seeds come from the tournament's seed alone: two tournaments of one seed deal the
    same hands, and the first's records (its owner's at once, anyone's once it ends) showed a
    running one's (an outside probe rebuilt a bot's hand and its opponent's). An operator's
    chosen seed (a rated tournament of others' bots) that dealt an earlier tournament of the
    game is refused; built-in bots alone, another game, no seed, or an owner's own seeded
    tournament (unrated, of their own bots) are not held to it."""
    alice, ops = stack["api"]["alice"], stack["api"]["ops"]
    alice.RegisterBot(arena_pb2.RegisterBotRequest(name="seeded-own", games=["skyfive"], endpoint=stack["bot"]))
    ops.RegisterBot(
        arena_pb2.RegisterBotRequest(name="seeded-ops", games=["skyfive", "rolldice"], endpoint=stack["bot"])
    )
    own = alice.CreateTournament(
        arena_pb2.CreateTournamentRequest(game="skyfive", bots=["seeded-own", "random"], seed=4242)
    )
    again = arena_pb2.CreateTournamentRequest(game="skyfive", bots=["seeded-ops", "seeded-own"], seed=4242)
    code, field, details = code_of(ops.CreateTournament, again)
    assert (code, field) == (INVALID, "seed"), details
    assert details == (
        f"seed 4242 dealt tournament {own.id} already: its records would show this one's deals to anyone who "
        "reads them; choose another seed, or none (an unpredictable one)"
    )
    created = [own]
    for caller, request in (
        (alice, arena_pb2.CreateTournamentRequest(game="skyfive", bots=["seeded-own", "heuristic"], seed=4242)),
        (ops, arena_pb2.CreateTournamentRequest(game="skyfive", bots=["random", "heuristic"], seed=4242)),
        (ops, arena_pb2.CreateTournamentRequest(game="rolldice", bots=["seeded-ops", "random"], seed=4242)),
        (ops, arena_pb2.CreateTournamentRequest(game="skyfive", bots=["seeded-ops", "seeded-own"])),
    ):
        created.append(caller.CreateTournament(request))
    for tournament in created:
        cancel(stack, tournament.id)


def test_a_grpc_client_at_the_web_port_is_told_so_and_the_service_logs_one_line(stack):
    # An operator's slip: the web UI's port given for the service's. The client hears which
    # port it reached; the service logs a warning line, not an ERROR with aiohttp's traceback.
    srv = stack["service"]
    web = f"127.0.0.1:{srv.http_port}"
    hint = "(that port answers HTTP/1, not gRPC: the web UI's port? the service's is `arena serve --port`)"
    health = arena("health", "--server", web, timeout=60)
    assert (health.returncode, health.stderr) == (1, f"arena health: {web}: UNAVAILABLE {hint}\n")
    # Every other command said so after gRPC's own text ("... Failed parsing HTTP/2 (Expected
    # SETTINGS frame ..."), and a watch waited two minutes for the "service" to come back.
    for command in (("bots", "list"), ("tournaments", "get", "t-1"), ("tournaments", "watch", "t-1")):
        done = arena(*command, "--server", web, "--token", "x", timeout=60)
        said = f"arena {' '.join(command[:2])}: error: {web}: UNAVAILABLE {hint}\n"
        assert (done.returncode, done.stderr) == (1, said), command
    wait_for(lambda: "gRPC?) client at the web UI's port" in srv.log.read_text(), 30, "the warning")
    lines = [json.loads(line) for line in srv.log.read_text().splitlines() if '"aiohttp.server"' in line]
    assert lines and all(line["level"] == "WARNING" and "exc" not in line for line in lines), lines
    assert arena("health", "--server", srv.address, timeout=60).returncode == 0


def test_a_client_at_a_port_that_is_not_http2_is_told_so():
    # An HTTP/1.0 server (python -m http.server) gets no "http1.x server" from gRPC, only its
    # "Failed parsing HTTP/2 ...": every command printed that raw, and a watch retried on (an
    # outside review).
    from http.server import HTTPServer, SimpleHTTPRequestHandler

    server = HTTPServer(("127.0.0.1", 0), SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        where = f"127.0.0.1:{server.server_address[1]}"
        hint = "(that port does not answer HTTP/2, so not gRPC: the service's is `arena serve --port`)"
        health = arena("health", "--server", where, timeout=60)
        assert (health.returncode, health.stderr) == (1, f"arena health: {where}: UNAVAILABLE {hint}\n")
        for command in (("bots", "list"), ("tournaments", "watch", "t-1")):
            done = arena(*command, "--server", where, "--token", "x", timeout=60)
            said = f"arena {' '.join(command[:2])}: error: {where}: UNAVAILABLE {hint}\n"
            assert (done.returncode, done.stderr) == (1, said), command
    finally:
        server.shutdown()
        server.server_close()
