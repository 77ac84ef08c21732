"""Distributed tournaments against slow remote bots, and bounded queues under a huge tournament.

    python -m bench.bench_remote_tournament [--matches 2000] [--think 0.05] [--per-process 64]
    python -m bench.bench_remote_tournament --queue [--queue-matches 100000]

Throughput (default mode). Two served bots (bench/first_bot.py: the first option after
``--think`` seconds, so every decision costs the bot exactly its think time) play a RollDice
tournament (target 30: about 17 decisions a match), measured from creation to the last match
stored:

1. ``local``: the same matches played by one referee process (coroutines on one event loop,
   ``--per-process`` at once, no Celery, no Redis): the ceiling for one process;
2. ``celery_1``: one worker process (``arena worker --concurrency 1``) with
   ``--matches-per-process`` = ``--per-process``;
3. ``celery_2``: two worker processes.

Each run's matches/s is compared with its ideal: concurrent matches / (mean decisions a match x
think time), i.e. the bots' think time alone with every slot busy, and Celery's with the local
run of the same matches.

Queue mode (``--queue``). With two worker processes running, a tournament of
``--queue-matches`` instant matches (built-in bots) is created; for ``--sample-seconds`` the
queue's length, the tournament's window, Redis's ``used_memory`` (which also grows with the
records stored meanwhile) and the queue key's own ``MEMORY USAGE`` are sampled. Then the workers
are stopped and the queue is filled with as many copies of a real batch message as the old
all-at-once fan-out would have queued for that tournament with one match per batch, and the
stall check (``Store.lost_batches``) and the old whole-queue scan (``LRANGE 0 -1`` +
``HVALS unacked``) are timed per call at both queue sizes.

An ``arena serve`` on the same Redis runs throughout, scraped like Prometheus (``/metrics``
every second): its CPU share of one core is measured with no tournament (the baseline), while
the tournament runs, and while a tournament waits with the whole old queue in Redis
(``--service-seconds`` each). When issue 11 was filed an idle service sat at about 30% of
a core with such a queue, its stall checks reading every queued message.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from arena.registry import get_game
from arena.tournament import TournamentSpec, schedule
from bench import options
from bench.procstat import cpu_seconds
from referee import aioloop
from referee.store import Store
from tests.remote_helpers import bot_process
from tests.services import Service, free_port, redis_server, service, wait_for, workers
from workers.app import QUEUE
from workers.concurrent import play_remote
from workers.executor import CeleryExecutor, enqueue
from workers.tasks import MATCH_BOUND

DECISION_MS = 2000
"""The bots' clock per decision: a ``--think`` as long would time every decision out."""


def remote_spec(bots: list[str], matches: int, per_process: int) -> TournamentSpec:
    return TournamentSpec(
        game="rolldice",
        bots=tuple(bots),
        players=2,
        repeats=max(1, matches // 2),
        seed=11,
        bot_concurrency=max(256, 4 * per_process),  # the leases never bind here: K does
        options={"target": 30},
        clock={"decision": DECISION_MS, "startup": 20000},
    )


def local_run(spec: TournamentSpec, per_process: int) -> tuple[float, list[int]]:
    """(seconds, decisions per match) of the tournament on one event loop, K at once."""
    game = get_game(spec.game)
    matches = schedule(spec)
    stop = threading.Event()

    async def run() -> list[int]:
        gate = asyncio.Semaphore(per_process)

        async def one(index: int) -> int:
            async with gate:
                record = await play_remote(spec, game, matches[index], stop, (3600.0, MATCH_BOUND), {})
                return len(record.decisions)

        return list(await asyncio.gather(*(one(i) for i in range(len(matches)))))

    began = time.perf_counter()
    decisions = aioloop.run(run())
    return time.perf_counter() - began, decisions


def celery_run(url: str, tournament_id: str, spec: TournamentSpec) -> tuple[float, list[int]]:
    store = Store(url)
    executor = CeleryExecutor(url, tournament_id)
    with executor.app.connection_for_write() as connection:  # connect before timing
        connection.ensure_connection()
    total = len(schedule(spec))
    began = time.perf_counter()
    assert store.create_tournament(tournament_id, spec, total, 0)
    enqueue(executor.app, store, tournament_id, spec)
    wait_for(lambda: int(store.redis.hget(store.key("t", tournament_id), "done") or 0) >= total, 3600, "all", 0.02)
    seconds = time.perf_counter() - began
    wait_for(lambda: store.tournament(tournament_id)["status"] == "complete", 600, "finalisation")
    return seconds, [len(r.decisions) for r in store.matches(tournament_id)]


def row(name: str, seconds: float, decisions: list[int], concurrency: int, think: float) -> dict[str, Any]:
    mean = statistics.mean(decisions)
    ideal = concurrency / (mean * think)
    rate = len(decisions) / seconds
    return {
        "run": name,
        "matches": len(decisions),
        "concurrent_matches": concurrency,
        "mean_decisions_per_match": round(mean, 2),
        "seconds": round(seconds, 2),
        "matches_per_s": round(rate, 2),
        "ideal_matches_per_s": round(ideal, 2),
        "fraction_of_ideal": round(rate / ideal, 3),
    }


def throughput(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"think_s": args.think, "per_process": args.per_process, "runs": []}
    with tempfile.TemporaryDirectory() as tmp_dir, ExitStack() as stack:
        tmp = Path(tmp_dir)
        bot = [sys.executable, "-m", "bench.first_bot", "--port", "0", "--delay", str(args.think)]
        bots = [stack.enter_context(bot_process(bot)) for _ in range(2)]
        spec = remote_spec(bots, args.matches, args.per_process)
        local_run(remote_spec(bots, 8, args.per_process), args.per_process)  # warm-up
        seconds, decisions = local_run(spec, args.per_process)
        report["runs"].append(row("local_1_process", seconds, decisions, args.per_process, args.think))
        server = stack.enter_context(redis_server(tmp))
        env = {"ARENA_MATCHES_PER_PROCESS": str(args.per_process)}
        for procs in (1, 2):
            with workers(server.url, tmp, count=1, concurrency=procs, metrics=False, env=env):
                # Warm-up: every pool process imports the games and makes its event loop.
                celery_run(server.url, f"warm-{procs}", remote_spec(bots, 4 * procs, 1))
                seconds, decisions = celery_run(server.url, f"remote-{procs}", spec)
            report["runs"].append(
                row(f"celery_{procs}_process", seconds, decisions, procs * args.per_process, args.think)
            )
    report.update(versus(report["runs"]))
    return report


def versus(runs: list[dict[str, Any]]) -> dict[str, float]:
    """Celery with one process over the local run, and two processes over one, in matches/s
    (the runs in the order played: local, one process, two)."""
    local, one, two = (run["matches_per_s"] for run in runs)
    return {"celery_1_vs_local": round(one / local, 3), "celery_2_vs_1": round(two / one, 3)}


def instant_spec(matches: int) -> TournamentSpec:
    bots = ("random", "heuristic", "heuristic:threshold=2", "heuristic:threshold=4", "heuristic:threshold=5")
    return TournamentSpec(game="rolldice", bots=bots, players=2, repeats=max(1, matches // 20), options={"target": 1})


def per_call_ms(action: Any, calls: int) -> float:
    times = []
    for _ in range(calls):
        began = time.perf_counter()
        action()
        times.append((time.perf_counter() - began) * 1000)
    return round(statistics.median(times), 4)


class ServiceLoad:
    """The CPU share of one core an ``arena serve`` takes between two readings, while it is
    scraped once a second as Prometheus would (``/metrics``: the queue's length and every
    active tournament's progress)."""

    def __init__(self, running: Service, metrics_port: int) -> None:
        self.pid = running.process.pid
        self.url = f"http://127.0.0.1:{metrics_port}/metrics"
        self.scraped = 0.0
        self.start()

    def start(self) -> None:
        self.began = (time.monotonic(), cpu_seconds([self.pid]))

    def scrape_if_due(self) -> None:
        if time.monotonic() - self.scraped >= 1.0:
            self.scraped = time.monotonic()
            with urllib.request.urlopen(self.url, timeout=10) as response:
                response.read()

    def share(self) -> float:
        wall, cpu = time.monotonic() - self.began[0], cpu_seconds([self.pid]) - self.began[1]
        return round(cpu / wall, 4)

    def measure(self, seconds: float) -> float:
        """The share over ``seconds`` after a second to settle, the service otherwise left alone."""
        self.scrape_if_due()
        time.sleep(1.0)
        self.start()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.scrape_if_due()
            time.sleep(0.05)
        return self.share()


def old_scan(store: Store, tournament_id: str) -> bool:
    """The stall check before issue 11: every queued and every unacknowledged message read."""
    needle = tournament_id.encode()
    client = store.redis
    return any(needle in raw for raw in client.lrange(QUEUE, 0, -1)) or any(
        needle in raw for raw in client.hvals("unacked")
    )


def queue_mode(args: argparse.Namespace) -> dict[str, Any]:
    spec = instant_spec(args.queue_matches)
    total = len(schedule(spec))
    report: dict[str, Any] = {"matches": total}
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        with redis_server(tmp) as server, ExitStack() as stack:
            store = Store(server.url)
            client = server.client()
            metrics_port = free_port()
            running = stack.enter_context(service(server.url, tmp, "--metrics-port", str(metrics_port)))
            load = ServiceLoad(running, metrics_port)
            service_idle = load.measure(args.service_seconds)
            with workers(server.url, tmp, count=1, concurrency=2, metrics=False):
                executor = CeleryExecutor(server.url, "huge")
                with executor.app.connection_for_write() as connection:
                    connection.ensure_connection()
                memory_before = int(client.info("memory")["used_memory"])
                assert store.create_tournament("huge", spec, total, 0)
                enqueue(executor.app, store, "huge", spec)
                info = store.tournament("huge")
                samples: list[tuple[int, int, int, int]] = []
                end = time.monotonic() + args.sample_seconds
                load.start()
                while time.monotonic() < end:
                    load.scrape_if_due()
                    samples.append(
                        (
                            int(client.llen(QUEUE)),
                            int(client.hlen(store.key("t", "huge", "inflight"))),
                            int(client.info("memory")["used_memory"]),
                            int(client.memory_usage(QUEUE) or 0),
                        )
                    )
                    time.sleep(0.1)
                service_running = load.share()
                done = store.tournament("huge")["done"]
                small_new = per_call_ms(lambda: store.lost_batches("huge", QUEUE, 60), 200)
                small_old = per_call_ms(lambda: old_scan(store, "huge"), 200)
                small_queue = int(client.llen(QUEUE))
            # The workers are gone. A tournament waits (queued: active, as the was while
            # its queue sat in Redis), whatever became of the big one meanwhile.
            assert store.create_tournament("waiting", spec, total, 0)
            report.update(
                batches=info["batches"],
                window=int(client.hget(store.key("t", "huge"), "window")),
                sampled_seconds=args.sample_seconds,
                matches_played_while_sampled=done,
                max_queue_length=max(s[0] for s in samples),
                max_window_in_flight=max(s[1] for s in samples),
                redis_used_memory_before_bytes=memory_before,
                redis_used_memory_max_growth_bytes=max(s[2] for s in samples) - memory_before,
                queue_key_max_memory_bytes=max(s[3] for s in samples),
            )
            # The old fan-out: every batch queued at once (one match per batch with a remote bot).
            message = client.lindex(QUEUE, 0) or json.dumps({"body": "x" * 600}).encode()
            before = int(client.info("memory")["used_memory"])
            pipe = client.pipeline(transaction=False)
            for n in range(total):
                pipe.lpush(QUEUE, message)
                if n % 10_000 == 0:
                    pipe.execute()
            pipe.execute()
            report["all_at_once_queue_length"] = int(client.llen(QUEUE))
            report["all_at_once_queue_memory_bytes"] = int(client.info("memory")["used_memory"]) - before
            report["all_at_once_queue_key_memory_bytes"] = int(client.memory_usage(QUEUE) or 0)
            service_queued = load.measure(args.service_seconds)
            report["service_cpu_share_of_a_core"] = {
                "no_tournament": service_idle,
                "tournament_running": service_running,
                "old_queue_in_redis": service_queued,
                "old_queue_vs_no_tournament": round(service_queued / max(service_idle, 1e-4), 2),
            }
            big_new = per_call_ms(lambda: store.lost_batches("huge", QUEUE, 60), 200)
            big_old = per_call_ms(lambda: old_scan(store, "huge"), 5)
            report["stall_check_ms_per_call"] = {
                "queue_length_small": small_queue,
                "queue_length_big": report["all_at_once_queue_length"],
                "window_check_small_queue": small_new,
                "window_check_big_queue": big_new,
                "window_check_big_vs_small": round(big_new / small_new, 2),
                "old_scan_small_queue": small_old,
                "old_scan_big_queue": big_old,
                "old_scan_big_vs_small": round(big_old / small_old, 1),
            }
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # A repeat is 2 matches (both seat orders) and, in queue mode, 20 (5 bots): fewer were
    # played as that many all the same.
    parser.add_argument("--matches", type=options.count(2), default=2000, help="rounded down to an even number")
    parser.add_argument("--think", type=options.seconds(), default=0.05, help="seconds a bot takes per decision")
    parser.add_argument(
        "--per-process", type=options.count(1), default=64, help="remote matches a process plays at once (K)"
    )
    parser.add_argument("--queue", action="store_true", help="the bounded-queue measurement instead")
    parser.add_argument(
        "--queue-matches", type=options.count(20), default=100_000, help="rounded down to a multiple of 20"
    )
    parser.add_argument("--sample-seconds", type=options.seconds(), default=20.0)
    parser.add_argument(
        "--service-seconds", type=options.seconds(), default=10.0, help="each measurement of the service's CPU"
    )
    args = parser.parse_args(argv)
    if args.think >= DECISION_MS / 1000:
        parser.error(f"argument --think: {args.think:g}: the bots' clock is {DECISION_MS / 1000:g} s a decision")
    options.stop_cleanly_on_sigterm()
    report = queue_mode(args) if args.queue else throughput(args)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
