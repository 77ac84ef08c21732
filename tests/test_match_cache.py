"""The match cache (referee.match_cache): a stored match is replayed once for GetMatch and once
for its page, whoever asks; what each caller sees is decided per request, exactly as without
the cache; concurrent requests share one replay; replays run on their own few threads, so
waiting pages hold none of the threads store calls need; the bound in bytes evicts.

Real redis-server and Celery worker, and a real ``arena serve`` that creates and plays the
tournaments. The services under test are ArenaService instances with their web UI, served in
this process (real gRPC and HTTP on loopback, over the same Redis), so that each has a cache of
its own that the test reads: ``cached`` (the default cache) and ``uncached`` (a cache of 0 bytes:
every request replays, as before the cache), which answers the same requests as the reference.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.engine import SPECTATOR
from arena.record import resimulate
from arena.registry import get_game
from arena.v1 import arena_pb2, arena_pb2_grpc
from bots.registry import bot_names
from referee import match_cache, views
from referee.auth import AuthInterceptor
from referee.match_cache import ENTRY_OVERHEAD, MatchCache, Sized
from referee.players import make_player
from referee.service import ArenaService, RateLimiter, _replayed_events
from referee.store import Store
from referee.web import accepts_gzip, start_web
from tests.services import free_port, redis_server, service, wait_for, workers
from tests.test_service import Api, three_owners, watch_to_end

pytestmark = pytest.mark.timeout(300)


class Loop:
    """An event loop on a thread of its own, with the service's default pool (32 threads)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.set_default_executor(futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="arena-api"))
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(60)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@dataclass
class Hosted:
    """One ArenaService with its cache, its gRPC address and its web UI's base URL."""

    service: ArenaService
    cache: MatchCache
    address: str
    web: str

    def api(self, token: str) -> Api:
        return Api(self.address, token)


@contextmanager
def hosted(loop: Loop, redis_url: str, cache: MatchCache) -> Iterator[Hosted]:
    store = Store(redis_url)

    def submit(tournament_id: str, spec: Any) -> None:
        raise AssertionError("the services under test only read")

    service = ArenaService(
        store, submit, make_player, builtin_bots=bot_names, limiter=RateLimiter(0, 1), match_cache=cache
    )

    async def start() -> tuple[grpc.aio.Server, Any, str, str]:
        server = grpc.aio.server(interceptors=[AuthInterceptor(store)])
        arena_pb2_grpc.add_ArenaServiceServicer_to_server(service, server)
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        port = server.add_insecure_port(f"127.0.0.1:{free_port()}")
        await server.start()
        await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        runner, http_port = await start_web(store, service, "127.0.0.1", free_port())
        return server, runner, f"127.0.0.1:{port}", f"http://127.0.0.1:{http_port}"

    server, runner, address, web = loop.run(start())
    try:
        yield Hosted(service, cache, address, web)
    finally:

        async def stop() -> None:
            await runner.cleanup()
            await server.stop(0)

        loop.run(stop())
        cache.close()


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("match-cache")
    loop = Loop()
    with (
        redis_server(tmp) as redis,
        workers(redis.url, tmp, count=1, concurrency=2),
        service(redis.url, tmp) as maker,
        hosted(loop, redis.url, MatchCache()) as cached,
        hosted(loop, redis.url, MatchCache(max_bytes=0)) as uncached,
    ):
        store = Store(redis.url)
        tokens = three_owners(store)
        ops = Api(maker.address, tokens["ops"])
        ended = {}
        for game, bots, repeats in (("rainbow", ["random", "heuristic"], 2), ("rolldice", ["random", "heuristic"], 6)):
            created = ops.CreateTournament(arena_pb2.CreateTournamentRequest(game=game, bots=bots, repeats=repeats))
            watch_to_end(ops, created.id)
            ended[game] = created.id
        yield {
            "loop": loop,
            "redis": redis.url,
            "store": store,
            "tokens": tokens,
            "maker": Api(maker.address, tokens["ops"]),
            "cached": cached,
            "uncached": uncached,
            "ended": ended,
        }
    loop.close()


def get_match(hosted: Hosted, token: str, ref: str) -> bytes:
    detail = hosted.api(token).GetMatch(arena_pb2.GetMatchRequest(id=ref))
    return bytes(detail.SerializeToString(deterministic=True))


def web_get(base: str, path: str, *, gzipped: bool = False) -> tuple[int, bytes, dict[str, str]]:
    """Status, body (inflated if it came gzip-compressed) and headers of a page."""
    request = urllib.request.Request(base + path, headers={"Accept-Encoding": "gzip"} if gzipped else {})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            body, headers, status = response.read(), dict(response.headers), response.status
    except urllib.error.HTTPError as error:
        return error.code, error.read(), dict(error.headers)
    if headers.get("Content-Encoding") == "gzip":
        body = gzip.decompress(body)
    return status, body, headers


def page_data(body: bytes) -> dict[str, Any]:
    found = re.search(rb'id="replay-data">(.*?)</script>', body, re.S)
    assert found is not None
    return dict(json.loads(found.group(1)))


def counts(cache: MatchCache) -> tuple[int, int, int]:
    return cache.stats.computed, cache.stats.hits, cache.stats.joined


def same_everywhere(stack, token: str | None, ref: str) -> bytes:
    """What a caller (a token; None: a web visitor, the page) gets, checked equal from the
    cached service (first and second asking) and the uncached one; returns it."""
    cached, uncached = stack["cached"], stack["uncached"]
    if token is not None:
        answers = [get_match(cached, token, ref), get_match(cached, token, ref), get_match(uncached, token, ref)]
    else:
        answers = []
        for hosted_ in (cached, cached, uncached):
            status, body, _ = web_get(hosted_.web, f"/matches/{ref}")
            assert status == 200, body
            answers.append(body)
    assert answers[0] == answers[1] == answers[2]
    return answers[0]


# -- the second view does not replay; the same bytes for every audience ------------------------


def test_the_second_view_of_a_match_does_not_replay(stack):
    cached: Hosted = stack["cached"]
    ref = f"{stack['ended']['rainbow']}:m000000"
    before = counts(cached.cache)
    first = get_match(cached, stack["tokens"]["bob"], ref)
    assert counts(cached.cache) == (before[0] + 1, before[1], before[2])  # one replay
    assert get_match(cached, stack["tokens"]["bob"], ref) == first
    assert get_match(cached, stack["tokens"]["ops"], ref) != b""  # another caller: the same replay
    assert counts(cached.cache) == (before[0] + 1, before[1] + 2, before[2])
    status, page, _ = web_get(cached.web, f"/matches/{ref}")
    assert status == 200 and page_data(page)["spectator"] is True
    # The page: its events from the cache, its replay data built once (a second computation).
    assert counts(cached.cache) == (before[0] + 2, before[1] + 3, before[2])
    for gzipped in (False, True):
        assert web_get(cached.web, f"/matches/{ref}", gzipped=gzipped)[1] == page
    assert counts(cached.cache) == (before[0] + 2, before[1] + 7, before[2])
    # Without the cache every view replays.
    uncached: Hosted = stack["uncached"]
    computed = uncached.cache.stats.computed
    for _ in range(2):
        get_match(uncached, stack["tokens"]["bob"], ref)
    assert uncached.cache.stats.computed == computed + 2 and len(uncached.cache) == 0


def test_a_match_too_big_for_a_reply_is_refused_in_words(stack, monkeypatch):
    """A match whose record and events pass what a reply carries (32 MiB: a RollDice match at
    target 300,000) ended in gRPC's "Sent message larger than max" and an ERROR traceback for
    every try (an outside probe). The limit lowered here stands for such a match."""
    import referee.service

    monkeypatch.setattr(referee.service, "MAX_RESPONSE", 1000)
    ref = f"{stack['ended']['rainbow']}:m000000"
    with pytest.raises(grpc.RpcError) as refused:
        get_match(stack["cached"], stack["tokens"]["ops"], ref)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert re.fullmatch(rf"match {ref}'s record and events: \d+\.\d MiB, more than the 0 MiB a reply carries",
                        refused.value.details()), refused.value.details()  # fmt: skip
    monkeypatch.undo()
    assert get_match(stack["cached"], stack["tokens"]["ops"], ref)  # within the limit: served


def test_a_challenge_too_big_for_a_reply_sends_its_result_then_says_why_no_record(stack, monkeypatch):
    """The challenge's last message carries its record: past what a reply carries it ended in
    "Sent message larger than max" with an ERROR traceback, the result unsaid (a review)."""
    import referee.service
    from tests.remote_helpers import bot_process, served

    with bot_process(served("random")) as address:
        data = {"owner": "alice", "games": ["rolldice"], "endpoint": address, "enabled": True}
        stack["store"].add_bot("alice-big", data)
        monkeypatch.setattr(referee.service, "MAX_RESPONSE", 1000)
        request = arena_pb2.ChallengeRequest(bot="alice-big", game="rolldice", opponents=["random"])
        events = []
        with pytest.raises(grpc.RpcError) as refused:
            for event in stack["cached"].api(stack["tokens"]["alice"]).stream("Challenge", request):
                events.append(event)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert re.fullmatch(r"the challenge's record: \d+\.\d MiB, more than the 0 MiB a reply carries",
                        refused.value.details()), refused.value.details()  # fmt: skip
    assert events[-1].WhichOneof("body") == "finished" and not events[-1].record_json


def test_cached_and_uncached_answers_are_byte_identical_for_each_audience(stack):
    tokens = stack["tokens"]
    for game in ("rainbow", "rolldice"):
        tournament_id = stack["ended"][game]
        for index in (1, 3):
            ref = f"{tournament_id}:m{index:06d}"
            record = stack["store"].match(tournament_id, index)
            final = resimulate(get_game(game), record)
            # An ended tournament: everyone is the spectator, the events are the engine's.
            for token in (tokens["ops"], tokens["alice"], tokens["bob"]):
                detail = arena_pb2.MatchDetail.FromString(same_everywhere(stack, token, ref))
                assert detail.spectator and detail.record_json == record.dumps()
                assert list(detail.events) == views.events(final.log.events, SPECTATOR)
            page = same_everywhere(stack, None, ref)
            assert page_data(page)["events"] == [
                {"seat": e.seat, "kind": e.kind, "text": e.text, "to": None if e.to is None else sorted(e.to)}
                for e in final.log.events
            ]
            # The compressed page is the same page.
            cached_page = web_get(stack["cached"].web, f"/matches/{ref}", gzipped=True)
            assert cached_page[2]["Content-Encoding"] == "gzip" and cached_page[1] == page
            assert web_get(stack["uncached"].web, f"/matches/{ref}", gzipped=True)[1] == page


def test_a_running_tournaments_match_shows_at_each_moment_what_the_uncached_path_shows(stack):
    """Held back while a rotation of its deal is unplayed, public events once it is played,
    the spectator's view once the tournament has ended: from the cache as without it, though
    an operator's view (every event) was cached first, and with one replay in all."""
    store: Store = stack["store"]
    tokens = stack["tokens"]
    cached: Hosted = stack["cached"]
    running = stack["maker"].CreateTournament(
        arena_pb2.CreateTournamentRequest(game="rainbow", bots=["random", "heuristic"], repeats=5000)
    )
    ref = f"{running.id}:m000000"
    try:
        wait_for(lambda: {0, 1} <= set(store.stored_match_indices(running.id)), 60, "the first group")
        record = store.match(running.id, 0)
        final = resimulate(get_game("rainbow"), record)
        private = {e.text for e in final.log.events if e.to is not None}
        public = views.events(final.log.events, -2)
        assert private and any("is dealt" in text for text in private)
        before = cached.cache.stats.computed
        key = store.key("t", running.id, "matches")
        kept = store.redis.hget(key, 1)
        store.redis.hdel(key, 1)  # rotation 1 of match 0's deal: as if it were still being played
        try:
            operator = arena_pb2.MatchDetail.FromString(same_everywhere(stack, tokens["ops"], ref))
            assert {e.text for e in operator.events} >= private and operator.record_json  # cached first
            assert store.tournament(running.id)["status"] == "running"
            held = arena_pb2.MatchDetail.FromString(same_everywhere(stack, tokens["bob"], ref))
            assert [(e.seat, e.kind) for e in held.events] == [(-1, "notice")] and not held.record_json
            assert held.events[0].text.startswith("events are shown when the tournament ends: ")
            page = same_everywhere(stack, None, ref)
            assert b"Events are shown when the tournament ends" in page and page_data(page)["events"] == []
            assert web_get(cached.web, f"/matches/{ref}/record.json")[0] == 409
        finally:
            store.redis.hset(key, 1, kept)
        # Every rotation played: public events only, not a stale "held back", no private event.
        assert store.tournament(running.id)["status"] == "running"
        shown = arena_pb2.MatchDetail.FromString(same_everywhere(stack, tokens["bob"], ref))
        assert list(shown.events) == public and not shown.spectator and not shown.record_json
        page = same_everywhere(stack, None, ref)
        assert not any(text.encode() in page for text in private) and str(record.seed).encode() not in page
        data = page_data(page)
        assert data["frames"] == [] and not data["spectator"] and len(data["events"]) == len(public)
        assert web_get(cached.web, f"/matches/{ref}/record.json")[0] == 409
    finally:
        stack["maker"].CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=running.id))
    wait_for(lambda: store.tournament(running.id)["status"] == "cancelled", 60, "the cancel")
    # Ended: the spectator's view and the record, for a visitor too.
    ended = arena_pb2.MatchDetail.FromString(same_everywhere(stack, tokens["bob"], ref))
    assert ended.spectator and {e.text for e in ended.events} >= private and ended.record_json == record.dumps()
    page = same_everywhere(stack, None, ref)
    assert page_data(page)["spectator"] is True and any(text.encode() in page for text in private)
    status, raw, _ = web_get(cached.web, f"/matches/{ref}/record.json")
    assert status == 200 and raw.decode() == record.dumps() + "\n"
    # One replay of the match's events for every caller at every moment, one of its page.
    assert cached.cache.stats.computed == before + 2


# -- concurrency: one computation, and no thread held while waiting ----------------------------


@contextmanager
def replays_held(cache: MatchCache, threads: int) -> Iterator[None]:
    """Every replay thread of the cache busy until the block ends: computations queue."""
    gate = threading.Event()
    held = [cache.executor.submit(gate.wait, 60) for _ in range(threads)]
    try:
        yield
    finally:
        gate.set()
        futures.wait(held, timeout=60)


def in_threads(count: int, call: Any) -> list[futures.Future[Any]]:
    pool = futures.ThreadPoolExecutor(max_workers=count)
    started = [pool.submit(call, n) for n in range(count)]
    pool.shutdown(wait=False)
    return started


def test_concurrent_requests_for_a_match_compute_it_once(stack):
    cached: Hosted = stack["cached"]
    cache = cached.cache
    ref = f"{stack['ended']['rolldice']}:m000005"
    computed, _, joined = counts(cache)
    with replays_held(cache, 2):
        pages = in_threads(8, lambda n: web_get(cached.web, f"/matches/{ref}"))
        details = in_threads(8, lambda n: get_match(cached, stack["tokens"]["bob"], ref))
        # All 16 wait for the one replay of the events, queued behind the held threads.
        wait_for(lambda: cache.stats.joined == joined + 15, 60, "every request to join the replay")
        assert cache.stats.computed == computed + 1 and not any(f.done() for f in pages + details)
    bodies = {f.result(60)[1] for f in pages}
    assert len(bodies) == 1 and {f.result(60) for f in details} == {
        get_match(stack["uncached"], stack["tokens"]["bob"], ref)
    }
    assert bodies == {same_everywhere(stack, None, ref)}
    # The page's replay too was built once for the 8 (joined or found kept).
    assert cache.stats.computed == computed + 2


def test_waiting_replays_hold_no_thread_and_too_many_are_refused(stack):
    """With every replay thread busy, 40 page requests wait without a thread of the service's
    pool (32), so GetTournament and health answer meanwhile; beyond ``waiting`` queued replays
    a new one is refused with a retry delay (RESOURCE_EXHAUSTED; 503 on the web)."""
    cache = MatchCache(replays=1, waiting=3)
    tournament_id = stack["ended"]["rolldice"]
    refs = [f"{tournament_id}:m{i:06d}" for i in range(5)]
    bob = stack["tokens"]["bob"]
    with hosted(stack["loop"], stack["redis"], cache) as mine:
        with replays_held(cache, 1):
            pages = in_threads(40, lambda n: web_get(mine.web, f"/matches/{refs[n % 3]}"))
            wait_for(lambda: cache.stats.computed == 3 and cache.stats.joined == 37, 60, "40 waiting requests")
            api = mine.api(bob)
            assert api.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=tournament_id), timeout=20).id
            channel = grpc.insecure_channel(mine.address)
            check = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=20)
            assert check.status == health_pb2.HealthCheckResponse.SERVING
            channel.close()
            with pytest.raises(grpc.RpcError) as refused:
                api.GetMatch(arena_pb2.GetMatchRequest(id=refs[3]))
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "busy replaying other matches: retry in" in refused.value.details()
            status, body, _ = web_get(mine.web, f"/matches/{refs[4]}")
            assert status == 503 and b"busy replaying other matches" in body
            assert not any(f.done() for f in pages) and cache.stats.refused == 2
        assert {f.result(60)[0] for f in pages} == {200}
        assert get_match(mine, bob, refs[3]) == get_match(stack["uncached"], bob, refs[3])  # once room is back


# -- the bound -----------------------------------------------------------------------------------


def sized(value: str, size: int) -> Any:
    return lambda: Sized(value, size)


def test_the_byte_bound_evicts_the_least_recently_used():
    cache = MatchCache(max_bytes=3 * (100 + ENTRY_OVERHEAD))
    for key in "abc":
        assert cache.submit(key, sized(key, 100)).result(10) == key
    assert len(cache) == 3 and cache.bytes == 3 * (100 + ENTRY_OVERHEAD)
    assert cache.submit("a", sized("changed", 100)).result(10) == "a"  # kept: not computed again
    cache.submit("d", sized("d", 100)).result(10)  # "b" is now the least recently used
    assert "b" not in cache and all(k in cache for k in "acd") and cache.stats.evicted == 1
    cache.submit("e", sized("e", 250)).result(10)
    assert [k in cache for k in "acde"] == [False, False, True, True] and cache.stats.evicted == 3
    assert cache.bytes == 350 + 2 * ENTRY_OVERHEAD <= cache.max_bytes
    # A value larger than the bound is returned, not kept; a failure is not kept either.
    assert cache.submit("huge", sized("huge", 10_000)).result(10) == "huge" and "huge" not in cache

    def fails() -> Sized[str]:
        raise ValueError("no replay")

    with pytest.raises(ValueError, match="no replay"):
        cache.submit("bad", fails).result(10)
    assert "bad" not in cache and cache.submit("bad", sized("fine", 1)).result(10) == "fine"
    assert cache.stats.computed == 8 and cache.stats.hits == 1


def test_a_full_cache_evicts_a_match_which_then_replays_again(stack):
    store: Store = stack["store"]
    tournament_id = stack["ended"]["rolldice"]
    records = [store.match(tournament_id, i) for i in (6, 7)]
    largest = max(_replayed_events(r).size for r in records)
    cache = MatchCache(max_bytes=largest + ENTRY_OVERHEAD)  # room for one match's events
    bob = stack["tokens"]["bob"]
    with hosted(stack["loop"], stack["redis"], cache) as mine:
        first, second = (f"{tournament_id}:m{i:06d}" for i in (6, 7))
        expected = get_match(stack["uncached"], bob, first)
        assert get_match(mine, bob, first) == expected and len(cache) == 1
        get_match(mine, bob, second)
        assert cache.stats.evicted == 1 and len(cache) == 1 and cache.bytes <= cache.max_bytes
        assert get_match(mine, bob, first) == expected
        assert cache.stats.computed == 3 and cache.stats.hits == 0


def test_accepts_gzip_reads_the_header():
    assert accepts_gzip("gzip, deflate, br") and accepts_gzip("br;q=1.0, gzip;q=0.5") and accepts_gzip("*")
    assert not accepts_gzip("") and not accepts_gzip("identity") and not accepts_gzip("gzip;q=0")
    assert not accepts_gzip("x-gzip2") and not accepts_gzip("gzip;q=nope") and not accepts_gzip("gzip;q=0, *")
    assert accepts_gzip("*;q=0, gzip")


def test_cache_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("ARENA_MATCH_CACHE_MB", "5")
    monkeypatch.setenv("ARENA_MATCH_REPLAYS", "3")
    cache = MatchCache.from_environment()
    assert cache.max_bytes == 5 * 1024 * 1024 and cache.executor._max_workers == 3
    monkeypatch.setenv("ARENA_MATCH_REPLAYS", "0")
    with pytest.raises(ValueError, match=r"ARENA_MATCH_REPLAYS='0': expected a whole number of at least 1"):
        MatchCache.from_environment()


def test_the_services_metrics_say_what_the_match_cache_spares(stack, tmp_path):
    """``arena serve --metrics-port``: replays computed, hits, bytes held, read when scraped."""
    from tests.services import metric, promtool_check

    port = free_port()
    ref = f"{stack['ended']['rolldice']}:m000001"
    with service(stack["redis"], tmp_path, "--metrics-port", str(port)) as served:
        base = f"http://127.0.0.1:{served.http_port}"

        def scraped() -> tuple[float, float, float]:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
                text = response.read().decode()
            promtool_check(text)
            return (
                metric(text, "arena_match_replays_total"),
                metric(text, "arena_match_cache_hits_total"),
                metric(text, "arena_match_cache_bytes"),
            )

        assert scraped() == (0.0, 0.0, 0.0)
        assert web_get(base, f"/matches/{ref}")[0] == 200
        replays, hits, held = scraped()
        assert replays == 2 and hits == 0 and held > 0  # its events and its page
        assert web_get(base, f"/matches/{ref}")[0] == 200
        assert scraped() == (2.0, 2.0, held)  # both from the cache


def test_idle_replay_processes_stop_and_start_again_when_needed(monkeypatch):
    """A replay process kept what a page's build left in it (about 100 MB for the 8-player Wine
    Cellar series) for as long as the service ran; idle, the processes now stop."""
    monkeypatch.setattr(match_cache, "PROCESS_IDLE_SECONDS", 0.3)
    cache = MatchCache(replays=1)
    try:
        first = cache.in_process(os.getpid)
        assert first != os.getpid()
        wait_for(lambda: cache._processes is None, 10, "the idle replay process to stop")
        wait_for(lambda: not os.path.exists(f"/proc/{first}"), 10, "the process to be gone")
        second = cache.in_process(os.getpid)  # the next page starts a process again
        assert second not in (first, os.getpid())
        timer = cache._retire
        assert timer is not None and timer.is_alive()
    finally:
        cache.close()
    # Closing stops the idle timer too: a timer per call, left running, ended threads inside
    # later tests that count them (test_remote's leak check failed after this file).
    wait_for(lambda: not timer.is_alive(), 5, "the idle timer to stop with the cache")
