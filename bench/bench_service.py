"""Referee service under a read-heavy load while a tournament runs.

    python -m bench.bench_service [--seconds 10] [--clients 8]

Starts a private redis-server, one Celery worker (2 processes) and `arena serve` (rate limit
off), plays a first tournament to completion (so a game leaderboard exists), then starts a long
tournament and, while it runs, has N client threads call a read mix for a fixed time:
50% GetLeaderboard(game), 40% GetMatch (a finished match of the running tournament, which the
service re-simulates to list its public events), 10% GetTournament. Reports requests per second
of the mix and the p50/p99 latency of GetLeaderboard, next to a bare baseline measured in the
same run: the health check (the cheapest call the server answers) from the same clients.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.v1 import arena_pb2, arena_pb2_grpc
from referee.auth import create_owner
from referee.store import Store
from tests.services import redis_server, service, wait_for, workers


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def load(address: str, token: str, seconds: float, clients: int, mix) -> dict[str, list[float]]:  # type: ignore[no-untyped-def]
    latencies: dict[str, list[float]] = {}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(n: int) -> None:
        channel = grpc.insecure_channel(address)
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        metadata = (("authorization", f"Bearer {token}"),)
        mine: dict[str, list[float]] = {}
        i = n
        while time.monotonic() < stop:
            name, call = mix(stub, health, metadata, i)
            began = time.perf_counter()
            call()
            mine.setdefault(name, []).append((time.perf_counter() - began) * 1000)
            i += 1
        with lock:
            for name, values in mine.items():
                latencies.setdefault(name, []).extend(values)
        channel.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args(argv)
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
            wait_for(lambda: store.tournament(running.id)["done"] >= 50, 60, "a running tournament")
            match_ids = [f"{running.id}:m{i:06d}" for i in range(50)]

            def read_mix(stub, health, metadata, i):  # type: ignore[no-untyped-def]
                slot = i % 10
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

            baseline = load(srv.address, token, args.seconds / 2, args.clients, health_only)
            mixed = load(srv.address, token, args.seconds, args.clients, read_mix)
            done_during = store.tournament(running.id)["done"]
            stub.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=running.id), metadata=metadata)
    board_ms = mixed["GetLeaderboard"]
    report = {
        "clients": args.clients,
        "seconds": args.seconds,
        "health_baseline_rps": round(len(baseline["Health"]) / (args.seconds / 2), 1),
        "read_mix_rps": round(sum(len(v) for v in mixed.values()) / args.seconds, 1),
        "get_leaderboard_p50_ms": round(statistics.median(board_ms), 2),
        "get_leaderboard_p99_ms": round(percentile(board_ms, 0.99), 2),
        "get_match_p50_ms": round(statistics.median(mixed["GetMatch"]), 2),
        "get_match_p99_ms": round(percentile(mixed["GetMatch"], 0.99), 2),
        "tournament_matches_done_meanwhile": done_during,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
