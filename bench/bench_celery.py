"""Distributed throughput: local executor vs Celery with 1 and 2 worker processes, in one run.

    python -m bench.bench_celery [--matches 10000]

A tournament of instant matches (RollDice to 1 point, random in-process bots: about a
millisecond each) through (1) the local executor with one process, (2) the Celery executor
with one worker process, (3) the Celery executor with two worker processes, all on a private
redis-server started here, plus (4) the bare Celery baseline: no-op tasks with the same batch
size, whose completion is counted in Redis the same way. Goals: (2) >= 80% of (1);
(3) >= 1.7 x (2). Workers run without Prometheus metrics, like the local run
(``--worker-metrics`` measures them with metrics on).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from arena.cli.players import make_player
from arena.executor import LocalExecutor
from arena.rundir import RunDirectory
from arena.tournament import TournamentSpec, schedule
from arena.tournament_run import run_tournament
from tests.services import redis_server, wait_for, workers
from workers.app import make_app
from workers.executor import CeleryExecutor, auto_batch_size, batches


def instant_spec(matches: int) -> TournamentSpec:
    # 5 bots -> 10 pairs x 2 seat orders = 20 matches per repeat.
    bots = ("random", "heuristic", "heuristic:threshold=2", "heuristic:threshold=4", "heuristic:threshold=5")
    return TournamentSpec(game="rolldice", bots=bots, players=2, repeats=max(1, matches // 20), options={"target": 1})


def timed(run) -> float:  # type: ignore[no-untyped-def]
    began = time.perf_counter()
    run()
    return time.perf_counter() - began


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument(
        "--worker-metrics", action="store_true", help="workers serve Prometheus metrics (off: like the local run)"
    )
    args = parser.parse_args(argv)
    spec = instant_spec(args.matches)
    total = len(schedule(spec))
    size = auto_batch_size(spec, total)
    report: dict[str, object] = {"matches": total, "batch_size": size, "worker_metrics": args.worker_metrics}
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        seconds = timed(
            lambda: run_tournament(
                spec, "local", RunDirectory(tmp / "local"), LocalExecutor(make_player, 1), resamples=0
            )
        )
        report["local_1_process_matches_per_s"] = round(total / seconds, 1)
        with redis_server(tmp) as server:
            for procs in (1, 2):
                with workers(server.url, tmp, count=1, concurrency=procs, metrics=args.worker_metrics):
                    tid = f"celery-{procs}"
                    executor = CeleryExecutor(server.url, tid)
                    with executor.app.connection_for_write() as connection:  # connect before timing
                        connection.ensure_connection()
                    # Warm-up: every pool process imports the game and its bots once (a running
                    # worker has; the local run imports them in this process before timing too).
                    warm = instant_spec(40 * procs)
                    run_tournament(
                        warm,
                        f"warm-{procs}",
                        RunDirectory(tmp / f"warm-{procs}"),
                        CeleryExecutor(server.url, f"warm-{procs}", batch_size=5),
                        resamples=0,
                    )
                    seconds = timed(
                        lambda ex=executor, t=tid: run_tournament(spec, t, RunDirectory(tmp / t), ex, resamples=0)
                    )
                    report[f"celery_{procs}_process_matches_per_s"] = round(total / seconds, 1)
                    app = make_app(server.url)
                    counter = f"bench:noop:{procs}"
                    client = server.client()
                    app.send_task("arena.noop_batch", args=["bench:warm", [0]])  # connect before timing
                    wait_for(lambda c=client: c.get("bench:warm"), 30, "warm-up")

                    def noop(app=app, counter=counter, client=client) -> None:  # type: ignore[no-untyped-def]
                        for batch in batches(list(range(total)), size):
                            app.send_task("arena.noop_batch", args=[counter, batch])
                        wait_for(lambda: int(client.get(counter) or 0) >= total, 300, "no-op batches", 0.005)

                    seconds = timed(noop)
                    report[f"bare_celery_{procs}_process_noop_tasks_per_s"] = round(total / size / seconds, 1)
                    report[f"bare_celery_{procs}_process_matches_equivalent_per_s"] = round(total / seconds, 1)
    local = float(report["local_1_process_matches_per_s"])  # type: ignore[arg-type]
    one = float(report["celery_1_process_matches_per_s"])  # type: ignore[arg-type]
    two = float(report["celery_2_process_matches_per_s"])  # type: ignore[arg-type]
    report["celery_1_vs_local"] = round(one / local, 3)
    report["celery_2_vs_1"] = round(two / one, 3)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
