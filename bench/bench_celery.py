"""Distributed throughput: local executor vs Celery with 1 and 2 worker processes, in one run.

    python -m bench.bench_celery [--matches 30000] [--rounds 3]

A tournament of instant matches (RollDice to 1 point, in-process bots: about 0.2 ms each)
through (1) the local executor with one process, (2) the Celery executor
with one worker process, (3) the Celery executor with two worker processes, each on a private
redis-server started here, plus (4) the bare Celery baseline: no-op tasks with the same batch
size, whose completion is counted in Redis the same way. Goals: (2) >= 80% of (1);
(3) >= 1.7 x (2). (1), (2) and (3) alternate ``--rounds`` times (each Celery setup on its own
redis-server and worker, both up throughout); the ratios are the medians of the rounds', and
each tournament is let finalise (untimed) before the next run starts. Workers run without
Prometheus metrics, like the local run (``--worker-metrics`` measures them with metrics on).
Also the CPU of this process per match (medians): the whole local run, and the client that
follows each Celery run (it reads every record from the store, writes it and keeps the board);
for each Celery run the CPU of its pool processes, of the worker's main process and of Redis;
and ``celery_2_vs_1_cpu_bound``, 2P / (P + N) from the run with two processes (P the pools'
CPU a match, N the rest's): the most two processes can give on two cores against one process
that never waits. And what the machine itself gives two processes (``machine_2_vs_1``): the
local run in two separate processes at once against one of them alone, in the same rounds (no
Celery, no Redis, nothing shared but the cores), and ``celery_2_vs_1_of_machine``, the Celery
ratio as a share of it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

import redis

from arena.cli.players import make_player
from arena.executor import LocalExecutor
from arena.rundir import RunDirectory
from arena.tournament import TournamentSpec, schedule
from arena.tournament_run import run_tournament
from bench import options
from bench.procstat import children, cpu_seconds
from referee.store import Store
from tests.services import redis_server, wait_for, workers
from workers.app import make_app
from workers.executor import CeleryExecutor, auto_batch_size, batches

PARTS = ("pools", "main", "redis")
"""The processes of a Celery setup besides the following client (this process)."""


def instant_spec(matches: int) -> TournamentSpec:
    # 5 bots -> 10 pairs x 2 seat orders = 20 matches per repeat.
    bots = ("random", "heuristic", "heuristic:threshold=2", "heuristic:threshold=4", "heuristic:threshold=5")
    return TournamentSpec(game="rolldice", bots=bots, players=2, repeats=max(1, matches // 20), options={"target": 1})


def timed(run, cpu: list[float] | None = None) -> float:  # type: ignore[no-untyped-def]
    """Wall seconds of ``run()``; this process's CPU seconds appended to ``cpu``."""
    began, process = time.perf_counter(), time.process_time()
    run()
    if cpu is not None:
        cpu.append(time.process_time() - process)
    return time.perf_counter() - began


def run_locally(spec: TournamentSpec, name: str, root: Path) -> None:
    """The tournament with the local executor, one process, into ``root / name``."""
    run_tournament(spec, name, RunDirectory(root / name), LocalExecutor(make_player, 1), resamples=0)


def local_runner(matches: int, tmp: str, commands: Connection) -> None:
    """A process of the machine's own baseline: plays the bench's tournament locally each time it
    is told (a name), and answers with the wall seconds it took."""
    spec = instant_spec(matches)
    run_locally(instant_spec(40), "warm", Path(tmp))
    commands.send("ready")
    while (name := commands.recv()) is not None:
        began = time.perf_counter()
        run_locally(spec, name, Path(tmp))
        commands.send(time.perf_counter() - began)


class MachineBaseline:
    """Two local runners in processes of their own (spawned: nothing of this process is
    inherited). A round plays the tournament in one of them alone, then in both at once."""

    def __init__(self, matches: int, tmp: Path) -> None:
        context = multiprocessing.get_context("spawn")
        self.total = len(schedule(instant_spec(matches)))
        self.pipes = []
        self.processes = []
        for n in range(2):
            here, there = context.Pipe()
            (tmp / f"machine-{n}").mkdir()
            process = context.Process(target=local_runner, args=(matches, str(tmp / f"machine-{n}"), there))
            process.start()
            self.pipes.append(here)
            self.processes.append(process)
        for pipe in self.pipes:
            if pipe.recv() != "ready":
                raise RuntimeError("a local runner of the machine baseline did not start")

    def round(self, r: int) -> tuple[float, float]:
        """Matches/s of one process alone, and of two at once (both tournaments over the wall
        time of the slower)."""
        self.pipes[0].send(f"alone-{r}")
        alone = self.total / self.pipes[0].recv()
        for n, pipe in enumerate(self.pipes):
            pipe.send(f"both-{r}-{n}")
        walls = [pipe.recv() for pipe in self.pipes]
        return alone, 2 * self.total / max(walls)

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.send(None)
        for process in self.processes:
            process.join(30)


def settled(url: str, tournament_id: str) -> None:
    """Wait until the tournament is finalised (its leaderboard built by a worker), so that work
    does not land in the next timed run."""
    store = Store(url)
    wait_for(
        lambda: (store.tournament(tournament_id) or {}).get("status") in ("complete", "stopped", "cancelled"),
        600,
        f"{tournament_id} to be finalised",
        0.05,
    )


def versus(rates: dict[str, list[float]]) -> dict[str, object]:
    """The ratios of matches/s, round by round (each of the same round's runs) and their
    medians: Celery with one process over the local run, two processes over one, and the
    machine's two processes over one, of which the Celery ratio is a share."""
    report: dict[str, object] = {}
    medians = {}
    for name, faster, slower in (
        ("celery_1_vs_local", "celery_1", "local"),
        ("celery_2_vs_1", "celery_2", "celery_1"),
        ("machine_2_vs_1", "machine_2", "machine_1"),
    ):
        ratios = [a / b for a, b in zip(rates[faster], rates[slower], strict=True)]
        medians[name] = statistics.median(ratios)
        report[f"{name}_rounds"] = [round(x, 3) for x in ratios]
        report[name] = round(medians[name], 3)
    report["celery_2_vs_1_of_machine"] = round(medians["celery_2_vs_1"] / medians["machine_2_vs_1"], 3)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # 30,000 instant matches: a run of two processes lasts about 3 s, so what every run costs
    # once (creating the tournament, the first dispatch, the last read, syncing the run's
    # files: 35-60 ms) is about 2% of it, not the 5% of a 1-second run, which the faster run
    # felt twice as much as the slower one (README).
    # A repeat is 20 matches (5 bots, both seat orders): fewer were played as 20 all the same.
    parser.add_argument("--matches", type=options.count(20), default=30_000, help="rounded down to a multiple of 20")
    parser.add_argument(
        "--rounds", type=options.count(1), default=3, help="local, Celery 1 and Celery 2 alternate this many times"
    )
    parser.add_argument(
        "--worker-metrics", action="store_true", help="workers serve Prometheus metrics (off: like the local run)"
    )
    args = parser.parse_args(argv)
    options.stop_cleanly_on_sigterm()
    spec = instant_spec(args.matches)
    total = len(schedule(spec))
    size = auto_batch_size(spec, total)
    report: dict[str, object] = {"matches": total, "batch_size": size, "worker_metrics": args.worker_metrics}
    rates: dict[str, list[float]] = {"local": [], "celery_1": [], "celery_2": [], "machine_1": [], "machine_2": []}
    # CPU of this process: the whole local run; for Celery, the client that follows the run
    # (reads each record from the store, writes it, keeps the board's sums).
    cpu: dict[str, list[float]] = {"local": [], "celery_1": [], "celery_2": []}
    # CPU seconds of the other processes of each Celery run (see ``parts`` below).
    others: dict[str, list[float]] = {f"celery_{procs}_{part}": [] for procs in (1, 2) for part in PARTS}
    with tempfile.TemporaryDirectory() as tmp_dir, contextlib.ExitStack() as stack:
        tmp = Path(tmp_dir)
        # One Redis and one worker per process count, both up all along (an idle worker only
        # waits on its Redis): the three runs alternate, round after round.
        urls = {}
        # The other processes of each setup, whose CPU is counted per run: the pool processes,
        # the worker's main process, and Redis.
        parts: dict[int, dict[str, list[int]]] = {}
        for procs in (1, 2):
            (tmp / f"redis-{procs}").mkdir()
            server = stack.enter_context(redis_server(tmp / f"redis-{procs}"))
            (worker,) = stack.enter_context(
                workers(server.url, tmp / f"redis-{procs}", count=1, concurrency=procs, metrics=args.worker_metrics)
            )
            urls[procs] = server.url
            assert server.process is not None
            main_pid = worker.process.pid
            parts[procs] = {"pools": sorted(children(main_pid)), "main": [main_pid], "redis": [server.process.pid]}
            # Warm-up: every pool process imports the game and its bots once (a running worker
            # has; the local run imports them in this process before timing too).
            warm = instant_spec(40 * procs)
            run_tournament(
                warm,
                f"warm-{procs}",
                RunDirectory(tmp / f"warm-{procs}"),
                CeleryExecutor(server.url, f"warm-{procs}", batch_size=5),
                resamples=0,
            )
            settled(server.url, f"warm-{procs}")
        machine = MachineBaseline(args.matches, tmp)
        stack.callback(machine.close)
        for r in range(args.rounds):
            alone, both = machine.round(r)
            rates["machine_1"].append(alone)
            rates["machine_2"].append(both)
            seconds = timed(lambda r=r: run_locally(spec, f"local-{r}", tmp), cpu["local"])
            rates["local"].append(total / seconds)
            for procs, url in urls.items():
                tid = f"celery-{procs}-{r}"
                executor = CeleryExecutor(url, tid)
                with executor.app.connection_for_write() as connection:  # connect before timing
                    connection.ensure_connection()
                before = {part: cpu_seconds(pids) for part, pids in parts[procs].items()}
                seconds = timed(
                    lambda ex=executor, t=tid: run_tournament(spec, t, RunDirectory(tmp / t), ex, resamples=0),
                    cpu[f"celery_{procs}"],
                )
                for part, pids in parts[procs].items():
                    others[f"celery_{procs}_{part}"].append(cpu_seconds(pids) - before[part])
                rates[f"celery_{procs}"].append(total / seconds)
                # Finalising a tournament rebuilds the game's leaderboard from every tournament
                # of the game so far: wait for it, untimed, before the next run.
                settled(url, tid)
        for procs, url in urls.items():
            app = make_app(url)
            counter = f"bench:noop:{procs}"
            server_client = redis.Redis.from_url(url)
            app.send_task("arena.noop_batch", args=["bench:warm", [0]])  # connect before timing
            wait_for(lambda c=server_client: c.get("bench:warm"), 30, "warm-up")

            sent = batches(list(range(total)), size)  # the last may be short: a task is a batch

            def noop(app=app, counter=counter, client=server_client, sent=sent) -> None:  # type: ignore[no-untyped-def]
                for batch in sent:
                    app.send_task("arena.noop_batch", args=[counter, batch])
                wait_for(lambda: int(client.get(counter) or 0) >= total, 300, "no-op batches", 0.005)

            seconds = timed(noop)
            report[f"bare_celery_{procs}_process_noop_tasks_per_s"] = round(len(sent) / seconds, 1)
            report[f"bare_celery_{procs}_process_matches_equivalent_per_s"] = round(total / seconds, 1)
    for name, values in rates.items():
        report[f"{name}_matches_per_s"] = [round(v, 1) for v in values]
    for name, seconds in cpu.items():
        what = "local_cpu_us_per_match" if name == "local" else f"{name}_client_cpu_us_per_match"
        report[what] = round(statistics.median(seconds) / total * 1e6, 1)
    per_match = {name: statistics.median(seconds) / total * 1e6 for name, seconds in others.items()}
    for name, us in per_match.items():
        report[f"{name}_cpu_us_per_match"] = round(us, 1)
    # What two processes can give at most on two cores: with P the pools' CPU a match and N the
    # rest's (the following client, the worker's main process, Redis), 2P / (P + N) of one
    # process that is never idle.
    pools = per_match["celery_2_pools"]
    rest = statistics.median(cpu["celery_2"]) / total * 1e6 + per_match["celery_2_main"] + per_match["celery_2_redis"]
    report["celery_2_vs_1_cpu_bound"] = round(2 * pools / (pools + rest), 3)
    report.update(versus(rates))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
