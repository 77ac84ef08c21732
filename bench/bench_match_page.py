"""Heavy match pages against the match cache and the replay limit (referee.match_cache).

    python -m bench.bench_match_page [--clients 3] [--seconds 8] [--modes cache,limit,neither]

Starts a private redis-server, one Celery worker (2 processes) and plays one Wine Cellar series
at 8 players (``heuristic*8``: one deal in 8 seat rotations, 8 matches, the longest pages Arena
has: every seat's view at every step). Then, for each mode, a fresh ``arena serve`` on that
Redis (rate limit off):

- ``cache``: the defaults (``ARENA_MATCH_CACHE_MB=32``, ``ARENA_MATCH_REPLAYS=2``);
- ``limit``: no cache (``ARENA_MATCH_CACHE_MB=0``: every view replays), two replays at a time;
- ``neither``: no cache and 32 replay threads (as many as the store calls' pool): what every
  view cost before the cache, each replay on a thread of the pool GetTournament needs.

and measures, in the same run: the first view of a match page and of GetMatch against repeat
views (the ratio repeat/first); GetTournament's latency alone (the baseline), then while
``--clients`` clients fetch the 8 match pages back to back (as browsers do: gzip accepted),
as a ratio to the baseline; the pages served meanwhile, and the peak resident memory of the
service with its replay processes. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc

from arena.v1 import arena_pb2, arena_pb2_grpc
from bench import options
from bench.bench_service import percentile, rss_mb
from referee.auth import create_owner
from referee.store import Store
from tests.services import redis_server, service, workers

MODES = {
    "cache": {},
    "limit": {"ARENA_MATCH_CACHE_MB": "0"},
    "neither": {"ARENA_MATCH_CACHE_MB": "0", "ARENA_MATCH_REPLAYS": "32"},
}


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """``arena serve`` takes the bench's environment when it starts."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def fetch(url: str) -> int:
    """GET a page as a browser would (gzip accepted); the bytes received."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=600) as response:
        return len(response.read())


def timed(call: Callable[[], Any]) -> float:
    began = time.perf_counter()
    call()
    return (time.perf_counter() - began) * 1000


def timed_until(call: Callable[[], Any], stop: threading.Event) -> list[float]:
    out = []
    while not stop.is_set():
        out.append(timed(call))
    return out


def stats(values: list[float]) -> dict[str, float]:
    return {
        "calls": len(values),
        "p50_ms": round(statistics.median(values), 2),
        "p99_ms": round(percentile(values, 0.99), 2),
    }


def one_mode(redis_url: str, tmp: Path, token: str, tournament_id: str, mode: str, args: argparse.Namespace) -> Any:
    with environment(MODES[mode]), service(redis_url, tmp, "--rate", "0") as srv:
        channel = grpc.insecure_channel(srv.address)
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        metadata = (("authorization", f"Bearer {token}"),)
        web = f"http://127.0.0.1:{srv.http_port}"
        refs = [f"{tournament_id}:m{i:06d}" for i in range(8)]

        def get_match(ref: str) -> None:
            stub.GetMatch(arena_pb2.GetMatchRequest(id=ref), metadata=metadata, timeout=600)

        def get_tournament() -> None:
            stub.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=tournament_id), metadata=metadata)

        # First and repeat views, each of a match nothing has viewed on this server yet.
        page_first = timed(lambda: fetch(f"{web}/matches/{refs[0]}"))
        page_again = [timed(lambda: fetch(f"{web}/matches/{refs[0]}")) for _ in range(2)]
        match_first = timed(lambda: get_match(refs[1]))
        match_again = [timed(lambda: get_match(refs[1])) for _ in range(2)]
        for _ in range(20):  # warm the call path before timing it
            get_tournament()
        alone = timed_for(get_tournament, args.seconds / 2)
        pid = srv.process.pid
        # Hot: the clients fetch the page viewed above, again and again.
        hot, hot_pages, hot_rss = under_load(get_tournament, lambda n, i: fetch(f"{web}/matches/{refs[0]}"), args, pid)
        # Cold: each client fetches pages nobody has viewed (one each), until all are served.
        fresh = refs[2 : 2 + args.clients]
        cold, cold_pages, cold_rss = under_load(
            get_tournament, lambda n, i: fetch(f"{web}/matches/{fresh[n]}"), args, pid, once=True
        )
        channel.close()
    return {
        "page_first_view_ms": round(page_first, 1),
        "page_repeat_view_ms": round(statistics.median(page_again), 1),
        "page_repeat_over_first": round(statistics.median(page_again) / page_first, 4),
        "get_match_first_ms": round(match_first, 2),
        "get_match_repeat_ms": round(statistics.median(match_again), 2),
        "get_match_repeat_over_first": round(statistics.median(match_again) / match_first, 3),
        "get_tournament_alone": stats(alone),
        "hot_pages": load_report(alone, hot, hot_pages, hot_rss),
        "cold_pages": load_report(alone, cold, cold_pages, cold_rss),
    }


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and its descendants (the replay processes), in MB."""
    total = 0.0
    with contextlib.suppress(OSError):
        total = rss_mb(pid)
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                total += tree_rss_mb(int(child))
    return total


def timed_for(call: Callable[[], Any], seconds: float) -> list[float]:
    stop = threading.Event()
    threading.Timer(seconds, stop.set).start()
    return timed_until(call, stop)


def under_load(
    probe: Callable[[], Any],
    page: Callable[[int, int], Any],
    args: argparse.Namespace,
    pid: int,
    *,
    once: bool = False,
) -> tuple[list[float], list[float], float]:
    """``probe``'s latencies while ``--clients`` clients call ``page(client, i)`` back to back
    for ``--seconds`` (``once``: each once, until all are served); the pages' latencies and the
    service's peak resident memory with its replay processes (MB)."""
    stop = threading.Event()
    pages: list[float] = []
    lock = threading.Lock()

    def client(n: int) -> None:
        i = 0
        while not stop.is_set():
            took = timed(lambda: page(n, i))  # noqa: B023 (called at once)
            with lock:
                pages.append(took)
            i += 1
            if once:
                return

    samples = [tree_rss_mb(pid)]

    def sample() -> None:
        while not stop.wait(0.2):
            samples.append(tree_rss_mb(pid))

    clients = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
    sampler = threading.Thread(target=sample)
    for thread in [*clients, sampler]:
        thread.start()
    time.sleep(0.2)  # the clients' first requests are in
    if once:
        threading.Thread(target=lambda: ([c.join() for c in clients], stop.set())).start()
    else:
        threading.Timer(args.seconds, stop.set).start()
    latencies = timed_until(probe, stop)
    for thread in [*clients, sampler]:
        thread.join()  # the pages under way finish (without the cache: seconds each)
    return latencies, pages, max(samples)


def load_report(alone: list[float], loaded: list[float], pages: list[float], rss: float) -> dict[str, Any]:
    before, during = stats(alone), stats(loaded)
    return {
        "get_tournament": during,
        "get_tournament_p50_ratio": round(during["p50_ms"] / before["p50_ms"], 2),
        "get_tournament_p99_ratio": round(during["p99_ms"] / before["p99_ms"], 2),
        "pages_served": len(pages),
        "page_p50_ms": round(statistics.median(pages), 1) if pages else None,
        "service_rss_mb_peak": round(rss, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=options.count(1), default=3, help="clients fetching heavy pages at once")
    parser.add_argument("--seconds", type=options.seconds(), default=8.0, help="of page load per mode")
    parser.add_argument("--modes", default="cache,limit,neither", help=f"comma-separated, of {', '.join(MODES)}")
    args = parser.parse_args(argv)
    modes = args.modes.split(",")
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        parser.error(f"unknown mode {unknown[0]!r}; known: {', '.join(MODES)}")
    options.stop_cleanly_on_sigterm()
    report: dict[str, Any] = {"clients": args.clients, "seconds": args.seconds}
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        with redis_server(tmp) as redis:
            token = create_owner(Store(redis.url), "bench")
            with workers(redis.url, tmp, count=1, concurrency=2), service(redis.url, tmp, "--rate", "0") as maker:
                stub = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(maker.address))
                metadata = (("authorization", f"Bearer {token}"),)
                tournament = stub.CreateTournament(
                    arena_pb2.CreateTournamentRequest(
                        game="winecellar", bots=["heuristic*8"], players=8, options={"series": "true"}, seed=7
                    ),
                    metadata=metadata,
                )
                updates = stub.WatchTournament(
                    arena_pb2.WatchTournamentRequest(tournament_id=tournament.id), metadata=metadata
                )
                assert list(updates)[-1].final
            record = Store(redis.url).match(tournament.id, 0)
            assert record is not None
            report["match"] = {
                "game": "winecellar series, 8 players",
                "decisions": len(record.decisions),
                "matches": tournament.total,
            }
            for mode in modes:
                report[mode] = one_mode(redis.url, tmp, token, tournament.id, mode, args)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
