"""Local tournament throughput (1 vs 2 worker processes) and the rating fit's cost.

    python -m bench.bench_tournament [--game skyfive] [--repeats 600]

Throughput: the same tournament through the local executor with 1 and with 2 worker
processes, in one run; reports matches/s and the ratio (goal >= 1.7 on 2 cores).
Fitting: Bradley–Terry + 200 bootstrap resamples over synthetic duplicate-group results of
10k and 100k matches; reports matches fitted per second at each size (linear growth = a
constant rate).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from arena.cli.players import make_player
from arena.config import ConfigError
from arena.executor import LocalExecutor
from arena.ratings import bootstrap_intervals
from arena.registry import games
from arena.rundir import RunDirectory
from arena.tournament import TournamentSpec, schedule
from arena.tournament_run import run_tournament
from bench import options


def throughput(spec: TournamentSpec, workers: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        began = time.perf_counter()
        run_tournament(spec, "bench", RunDirectory(Path(tmp) / "run"), LocalExecutor(make_player, workers), resamples=0)
        return len(schedule(spec)) / (time.perf_counter() - began)


def fit_rate(matches: int, bots: int = 8, resamples: int = 200) -> float:
    rng = np.random.default_rng(0)
    strengths = rng.normal(0, 0.5, bots)
    groups = matches // 2
    wins = np.zeros((groups, bots, bots))
    pairs = rng.integers(0, bots, size=(groups, 2))
    for g, (i, j) in enumerate(pairs):
        j = (i + 1 + j % (bots - 1)) % bots
        p = 1 / (1 + np.exp(strengths[j] - strengths[i]))
        for _ in range(2):
            if rng.random() < p:
                wins[g, i, j] += 1
            else:
                wins[g, j, i] += 1
    began = time.perf_counter()
    bootstrap_intervals(wins, names=[f"b{i}" for i in range(bots)], resamples=resamples)
    return matches / (time.perf_counter() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="skyfive")
    parser.add_argument("--players", type=options.count(1), default=2)
    parser.add_argument("--repeats", type=options.count(1), default=600)
    args = parser.parse_args(argv)
    if args.game not in games():
        parser.error(f"unknown game {args.game!r}; known games: {', '.join(sorted(games()))}")
    from bots.registry import tournament_field

    try:
        spec = TournamentSpec(
            game=args.game, bots=tuple(tournament_field(args.game)), players=args.players, repeats=args.repeats
        )
        spec.validate()
    except ConfigError as error:  # the player count the game or its field cannot seat, too many matches
        parser.error(str(error))
    options.stop_cleanly_on_sigterm()
    one = throughput(spec, 1)
    two = throughput(spec, 2)
    report = {
        "game": args.game,
        "matches": len(schedule(spec)),
        "local_1_worker_matches_per_s": round(one, 1),
        "local_2_workers_matches_per_s": round(two, 1),
        "speedup_2_vs_1": round(two / one, 2),
        "fit_matches_per_s_10k": round(fit_rate(10_000)),
        "fit_matches_per_s_100k": round(fit_rate(100_000)),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
