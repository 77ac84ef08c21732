"""Referee service under a read-heavy load while a tournament runs.

    python -m bench.bench_service [--seconds 10] [--clients 8]
    python -m bench.bench_service --watchers 1000 [--repeats 100]

Starts a private redis-server, one Celery worker (2 processes) and `arena serve` (rate limit
off), plays a first tournament to completion (so a game leaderboard exists), then starts a long
tournament and, while it runs, has N client threads call a read mix for a fixed time:
50% GetLeaderboard(game), 40% GetMatch (a finished match of the running tournament, which the
service re-simulates to list its public events), 10% GetTournament. Reports requests per second
of the mix and the p50/p99 latency of GetLeaderboard, next to a bare baseline measured in the
same run: the health check (the cheapest call the server answers) from the same clients.

With ``--watchers N``: N clients watch one running tournament (``WatchTournament`` streams,
600 matches with the default ``--repeats 100``) while one client times the health check and
another ``GetTournament``; reports the service's resident memory before and while they watch
(sampled from /proc), and the latencies next to the same calls timed before the watchers came
(same run).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.v1 import arena_pb2, arena_pb2_grpc
from bench import options
from referee.auth import create_owner
from referee.service import MAX_REPEATS
from referee.store import Store
from tests.services import redis_server, service, wait_for, workers

MIX_LENGTH = 10
"""Calls in one turn of a mix (read_mix: 5 GetLeaderboard, 4 GetMatch, 1 GetTournament)."""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def load(address: str, token: str, seconds: float, clients: int, mix) -> tuple[dict[str, list[float]], dict[str, int]]:  # type: ignore[no-untyped-def]
    """Latencies (ms) per call, and the calls that failed, by call and status code (a failed
    call is counted, not timed, and its client goes on)."""
    latencies: dict[str, list[float]] = {}
    failed: dict[str, int] = {}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(n: int) -> None:
        channel = grpc.insecure_channel(address)
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        metadata = (("authorization", f"Bearer {token}"),)
        mine: dict[str, list[float]] = {}
        errors: dict[str, int] = {}
        i = n
        # At least one turn of the mix per client, however late the thread starts.
        while time.monotonic() < stop or i < n + MIX_LENGTH:
            name, call = mix(stub, health, metadata, i)
            began = time.perf_counter()
            try:
                call()
            except grpc.RpcError as error:
                what = f"{name} {error.code().name}"  # type: ignore[attr-defined]
                errors[what] = errors.get(what, 0) + 1
            else:
                mine.setdefault(name, []).append((time.perf_counter() - began) * 1000)
            i += 1
        with lock:
            for name, values in mine.items():
                latencies.setdefault(name, []).extend(values)
            for what, count in errors.items():
                failed[what] = failed.get(what, 0) + count
        channel.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, failed


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def timed_calls(call, stop: threading.Event) -> list[float]:  # type: ignore[no-untyped-def]
    """Latencies (ms) of back-to-back calls until ``stop``."""
    out = []
    while not stop.is_set():
        began = time.perf_counter()
        call()
        out.append((time.perf_counter() - began) * 1000)
    return out


def watch_process(address: str, token: str, tournament_id: str, watchers: int, conn) -> None:  # type: ignore[no-untyped-def]
    """N WatchTournament streams (a child process): says "ready" once each has an update, then
    sends (updates per watcher, watchers that saw the final update) when all streams end."""
    metadata = (("authorization", f"Bearer {token}"),)
    updates = [0] * watchers
    finals = 0
    told = False

    async def run() -> None:
        nonlocal finals, told
        channels = [grpc.aio.insecure_channel(address) for _ in range(max(1, watchers // 100))]

        async def one(n: int) -> None:
            nonlocal finals, told
            call = arena_pb2_grpc.ArenaServiceStub(channels[n % len(channels)]).WatchTournament(
                arena_pb2.WatchTournamentRequest(tournament_id=tournament_id), metadata=metadata
            )
            async for update in call:
                updates[n] += 1
                if not told and updates[n] == 1 and all(updates):
                    told = True
                    conn.send("ready")
                if update.final:
                    finals += 1

        await asyncio.gather(*(one(n) for n in range(watchers)), return_exceptions=True)
        for channel in channels:
            await channel.close()

    asyncio.run(run())
    if not told:
        conn.send("not ready")
    conn.send((updates, finals))


def watchers_bench(args: argparse.Namespace) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        with (
            redis_server(tmp) as redis,
            workers(redis.url, tmp, count=1, concurrency=2),
            service(redis.url, tmp, "--rate", "0") as srv,
        ):
            token = create_owner(Store(redis.url), "bench")
            metadata = (("authorization", f"Bearer {token}"),)
            channel = grpc.insecure_channel(srv.address)
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            health = health_pb2_grpc.HealthStub(channel)
            pid = srv.process.pid

            def calls(seconds: float) -> dict[str, list[float]]:
                stop = threading.Event()
                results: dict[str, list[float]] = {}
                request = arena_pb2.GetTournamentRequest(tournament_id=running.id)
                jobs = {
                    "health": lambda: health.Check(health_pb2.HealthCheckRequest()),
                    "get_tournament": lambda: stub.GetTournament(request, metadata=metadata),
                }
                threads = [
                    threading.Thread(target=lambda n=n, f=f: results.__setitem__(n, timed_calls(f, stop)))
                    for n, f in jobs.items()
                ]
                for thread in threads:
                    thread.start()
                time.sleep(seconds)
                stop.set()
                for thread in threads:
                    thread.join()
                return results

            running = stub.CreateTournament(
                arena_pb2.CreateTournamentRequest(
                    game="skyfive", bots=["random", "heuristic", "heuristic:risk=2"], repeats=args.repeats
                ),
                metadata=metadata,
            )
            rss_before = rss_mb(pid)
            before = calls(args.seconds / 2)
            # The watchers live in their own process (spawned: no gRPC state crosses a fork), so
            # their work does not hold the GIL of the process timing the calls.
            context = multiprocessing.get_context("spawn")
            parent, child = context.Pipe()
            watcher_process = context.Process(
                target=watch_process, args=(srv.address, token, running.id, args.watchers, child), daemon=True
            )
            watcher_process.start()
            ready = parent.poll(180) and parent.recv() == "ready"
            samples = [rss_mb(pid)]
            sampler_stop = threading.Event()

            def sample() -> None:
                while not sampler_stop.wait(0.5):
                    samples.append(rss_mb(pid))

            sampler = threading.Thread(target=sample)
            sampler.start()
            during = calls(args.seconds)
            sampler_stop.set()
            sampler.join()
            done_meanwhile = Store(redis.url).tournament(running.id)["done"]
            with contextlib.suppress(grpc.RpcError):  # it may have ended meanwhile
                stub.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=running.id), metadata=metadata)
            updates, finals = [0], 0
            while parent.poll(120):
                message = parent.recv()
                if isinstance(message, tuple):
                    updates, finals = message
                    break
            watcher_process.join(30)
            channel.close()

    def stats(values: list[float]) -> dict[str, float]:
        return {
            "calls": len(values),
            "p50_ms": round(statistics.median(values), 2),
            "p99_ms": round(percentile(values, 0.99), 2),
        }

    return {
        "watchers": args.watchers,
        "matches": running.total,
        "seconds": args.seconds,
        "all_watching": ready,
        "updates_per_watcher_min": min(updates),
        "updates_per_watcher_max": max(updates),
        "watchers_that_saw_the_end": finals,
        "tournament_matches_done_meanwhile": done_meanwhile,
        "service_rss_mb_before": round(rss_before, 1),
        "service_rss_mb_max_while_watched": round(max(samples), 1),
        "service_rss_mb_last": round(samples[-1], 1),
        "health_before": stats(before["health"]),
        "health_while_watched": stats(during["health"]),
        "get_tournament_before": stats(before["get_tournament"]),
        "get_tournament_while_watched": stats(during["get_tournament"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=options.seconds(), default=10.0)
    parser.add_argument("--clients", type=options.count(1), default=8)
    parser.add_argument(
        "--watchers", type=options.count(1), default=None, help="watch one tournament with N clients instead"
    )
    parser.add_argument(
        "--repeats", type=options.count(1, MAX_REPEATS), default=100, help="with --watchers: 6 matches per repeat"
    )
    args = parser.parse_args(argv)
    options.stop_cleanly_on_sigterm()
    if args.watchers is not None:
        print(json.dumps(watchers_bench(args), indent=2))
        return 0
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        with (
            redis_server(tmp) as redis,
            workers(redis.url, tmp, count=1, concurrency=2),
            service(redis.url, tmp, "--rate", "0") as srv,
        ):
            token = create_owner(Store(redis.url), "bench")
            stub = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(srv.address))
            metadata = (("authorization", f"Bearer {token}"),)
            first = stub.CreateTournament(
                arena_pb2.CreateTournamentRequest(
                    game="skyfive", bots=["random", "heuristic", "heuristic:risk=2"], repeats=20
                ),
                metadata=metadata,
            )
            list(stub.WatchTournament(arena_pb2.WatchTournamentRequest(tournament_id=first.id), metadata=metadata))
            running = stub.CreateTournament(
                arena_pb2.CreateTournamentRequest(
                    game="skyfive", bots=["random", "heuristic", "heuristic:risk=2"], repeats=3000
                ),
                metadata=metadata,
            )
            store = Store(redis.url)
            # The matches the mix reads must be stored: 50 stored is not the first 50 (the workers
            # store in any order).
            first = list(range(50))
            wait_for(lambda: len(store.stored_indices(running.id, first)) == 50, 120, "the first 50 matches")
            match_ids = [f"{running.id}:m{i:06d}" for i in first]

            def read_mix(stub, health, metadata, i):  # type: ignore[no-untyped-def]
                slot = i % MIX_LENGTH
                if slot < 5:
                    request = arena_pb2.GetLeaderboardRequest(game="skyfive")
                    return "GetLeaderboard", lambda: stub.GetLeaderboard(request, metadata=metadata)
                if slot < 9:
                    request = arena_pb2.GetMatchRequest(id=match_ids[i % len(match_ids)])
                    return "GetMatch", lambda: stub.GetMatch(request, metadata=metadata)
                request = arena_pb2.GetTournamentRequest(tournament_id=running.id)
                return "GetTournament", lambda: stub.GetTournament(request, metadata=metadata)

            def health_only(stub, health, metadata, i):  # type: ignore[no-untyped-def]
                return "Health", lambda: health.Check(health_pb2.HealthCheckRequest())

            baseline, baseline_failed = load(srv.address, token, args.seconds / 2, args.clients, health_only)
            mixed, mixed_failed = load(srv.address, token, args.seconds, args.clients, read_mix)
            done_during = store.tournament(running.id)["done"]
            stub.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=running.id), metadata=metadata)

    def p50(values: list[float]) -> float | None:
        return round(statistics.median(values), 2) if values else None

    def p99(values: list[float]) -> float | None:
        return round(percentile(values, 0.99), 2) if values else None

    board_ms, match_ms = mixed.get("GetLeaderboard", []), mixed.get("GetMatch", [])
    report = {
        "clients": args.clients,
        "seconds": args.seconds,
        "health_baseline_rps": round(len(baseline.get("Health", [])) / (args.seconds / 2), 1),
        "read_mix_rps": round(sum(len(v) for v in mixed.values()) / args.seconds, 1),
        "get_leaderboard_p50_ms": p50(board_ms),
        "get_leaderboard_p99_ms": p99(board_ms),
        "get_match_p50_ms": p50(match_ms),
        "get_match_p99_ms": p99(match_ms),
        "tournament_matches_done_meanwhile": done_during,
        "failed_calls": {**baseline_failed, **mixed_failed},
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
