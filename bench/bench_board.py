"""A game board across many tournaments: the bootstrap fit of hundreds of bots, with one BLAS
thread (Arena's default, ``arena/__init__.py``) against OpenBLAS's own choice, in the same run.

    python -m bench.bench_board [--bots 300] [--groups 6000] [--resamples 200]

Each side runs in a fresh process (the thread count is read when numpy loads): synthetic
duplicate pairs between random bots of known strengths, timed around ``bootstrap_intervals``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

from bench import options


def fit_seconds(bots: int, groups: int, resamples: int) -> float:
    from arena.ratings import GroupWins, bootstrap_intervals

    rng = np.random.default_rng(1)
    theta = rng.normal(0.0, 1.0, bots)
    groups_of, cells = [], []
    for group in range(groups):
        a, b = rng.choice(bots, 2, replace=False)
        for _ in range(2):
            won = rng.random() < 1.0 / (1.0 + np.exp(theta[b] - theta[a]))
            winner, loser = (a, b) if won else (b, a)
            groups_of.append(group)
            cells.append(winner * bots + loser)
    wins = GroupWins(groups, bots, np.array(groups_of), np.array(cells), np.ones(len(cells)))
    began = time.perf_counter()
    bootstrap_intervals(wins, names=[f"b{i}" for i in range(bots)], resamples=resamples)
    return time.perf_counter() - began


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=options.count(2), default=300)
    parser.add_argument("--groups", type=options.count(1), default=6000)
    parser.add_argument("--resamples", type=options.count(1), default=200)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(fit_seconds(args.bots, args.groups, args.resamples))
        return 0
    options.stop_cleanly_on_sigterm()  # subprocess.run kills its child as it unwinds
    sizes = ["--bots", str(args.bots), "--groups", str(args.groups), "--resamples", str(args.resamples)]
    seconds = {}
    for name, threads in (("one_thread", "1"), ("openblas_default", None)):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
        # Set before anything imports numpy: the child process imports arena first either way,
        # which keeps a variable that is already set.
        env["OPENBLAS_NUM_THREADS"] = threads or str(os.cpu_count() or 1)
        out = subprocess.run(
            [sys.executable, "-m", "bench.bench_board", "--child", *sizes], env=env, capture_output=True, text=True
        )
        out.check_returncode()
        seconds[name] = float(out.stdout.strip())
    report = {
        "bots": args.bots,
        "groups": args.groups,
        "resamples": args.resamples,
        "one_thread_s": round(seconds["one_thread"], 2),
        "openblas_threads_s": round(seconds["openblas_default"], 2),
        "one_thread_speedup": round(seconds["openblas_default"] / seconds["one_thread"], 2),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
