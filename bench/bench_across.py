"""A game's leaderboard refit (``arena.leaderboard.across``) and a tournament's published board:
time and peak memory, sparse group entries against the dense blocks they replaced.

    python -m bench.bench_across [--sizes 1,2,10,50] [--entrants 64] [--shared 48]
                                 [--boards 16,64] [--repeats 10] [--dense-limit-mb 1000] [--json]

The summaries are of one real tournament (RollDice, ``--entrants`` bots of six strengths,
2-player round robin: 128 duplicate groups of 2 matches at 64 entrants), entered ``--sizes``
times each, with ``--shared`` bots under the same names every time and the others renamed
per tournament (new versions): k summaries have ``shared + (entrants - shared) * k`` bots.
The tournament boards are :func:`arena.leaderboard.build` over a real tournament of
``--boards`` entrants (``--repeats`` rounds: about ten times the groups of one round).

The baseline is the dense path the sparse one replaced, kept here only: every tournament's
groups as (groups, bots, bots) blocks over all bots, concatenated, and each bootstrap resample
summed as ``counts @ blocks`` (HEAD before this bench). Both paths run in the same process, one
after the other, with the same fit: the ratio of their times and of their peak memory is the
figure; the baseline is skipped where its blocks alone would pass ``--dense-limit-mb`` (the
projected bytes are printed). Each path runs twice: once timed (wall and process CPU seconds),
once under ``tracemalloc`` (numpy's arrays are traced) for the peak of memory allocated while
it ran. Where both ran, the bench checks that they show the same board.

``entries`` is what the sparse path holds for the groups (one per (group, cell) played) and
``dense_cells`` what the dense blocks held: the first grows with the matches, the second with
the groups times the square of all bots.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from arena import leaderboard, ratings
from bench import options

RESAMPLES = leaderboard.RESAMPLES


# --------------------------------------------------------------------------------------------
# The dense baseline (the path before the sparse one; kept only here)


def dense_bootstrap(group_wins: np.ndarray, names: Sequence[str], *, seed: int) -> ratings.Fit:
    """The bootstrap over dense (groups, bots, bots) matrices: the same draws and fits, each
    resample's matrix a product of its group counts with every group's matrix."""
    wins = group_wins.sum(axis=0)
    groups = group_wins.shape[0]
    warning = ratings.connectivity_problem(wins, names)
    prior = 1.0 if warning else 0.0
    fitted = ratings.fit_bradley_terry(wins, prior=prior)
    rng = np.random.default_rng(seed)
    flat = group_wins.reshape(groups, -1)
    samples = np.empty((RESAMPLES, len(names)))
    counts = rng.multinomial(groups, np.full(groups, 1.0 / groups), size=RESAMPLES)
    for r in range(RESAMPLES):
        resampled = (counts[r] @ flat).reshape(len(names), len(names))
        needs_prior = prior or ratings.connectivity_problem(resampled, names) is not None
        samples[r] = ratings.fit_bradley_terry(
            resampled, prior=1.0 if needs_prior else 0.0, tolerance=1e-8, near=fitted
        )
    low, high = ratings._bias_corrected_ends(samples, fitted, 0.95)
    return ratings.Fit(fitted, np.minimum(low, fitted), np.maximum(high, fitted), warning)


def all_bots(summaries: Sequence[dict[str, Any]]) -> list[str]:
    index: dict[str, int] = {}
    for summary in summaries:
        for bot in summary["bots"]:
            index.setdefault(bot, len(index))
    return list(index)


def dense_across(summaries: Sequence[dict[str, Any]]) -> dict[str, tuple[float, float, float]]:
    """The dense path's ratings and ends per bot (rounded as a board shows them)."""
    names = all_bots(summaries)
    index = {name: i for i, name in enumerate(names)}
    blocks = []
    for summary in summaries:
        local = leaderboard.summary_groups(summary)
        mapped = [index[b] for b in summary["bots"]]
        block = np.zeros((local.shape[0], len(names), len(names)))
        block[np.ix_(range(local.shape[0]), mapped, mapped)] = local
        blocks.append(block)
    fit = dense_bootstrap(np.concatenate(blocks), names, seed=0)
    return shown(names, fit)


def dense_board(spec: Any, records: Sequence[Any]) -> dict[str, tuple[float, float, float]]:
    fit = dense_bootstrap(leaderboard.group_win_matrices(spec, records), list(spec.bots), seed=spec.seed)
    return shown(list(spec.bots), fit)


def shown(names: Sequence[str], fit: ratings.Fit) -> dict[str, tuple[float, float, float]]:
    return {
        name: (round(float(fit.ratings[i]), 1), round(float(fit.ci_low[i]), 1), round(float(fit.ci_high[i]), 1))
        for i, name in enumerate(names)
    }


def board_shown(board: dict[str, Any]) -> dict[str, tuple[float, float, float]]:
    return {row["bot"]: (row["rating"], row["ci_low"], row["ci_high"]) for row in board["leaderboard"]}


# --------------------------------------------------------------------------------------------
# Measuring


def measured(run: Callable[[], Any]) -> tuple[Any, dict[str, float]]:
    """(result, wall and CPU seconds of a timed run, peak MB allocated in a traced run)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, {"seconds": round(wall, 3), "cpu_seconds": round(cpu, 3), "peak_mb": round(peak / 2**20, 1)}


KINDS = ("random", *(f"heuristic:threshold={t}" for t in range(1, 6)))


def field(entrants: int) -> tuple[str, ...]:
    """Entrants of six strengths in turn (random, the heuristic at thresholds 1 to 5), copies
    numbered: copies of one bot tie their duplicate groups (the same dice, mirrored seats), so a
    field of ``random`` copies alone rates every bot 1500 and its fits take one step."""
    made: dict[str, int] = {}
    out = []
    for i in range(entrants):
        kind = KINDS[i % len(KINDS)]
        made[kind] = made.get(kind, 0) + 1
        out.append(kind if made[kind] == 1 else f"{kind}#{made[kind]}")
    return tuple(out)


def played(entrants: int, repeats: int) -> tuple[Any, list[Any]]:
    """A real RollDice tournament of :func:`field` (2 players, round robin): spec and records."""
    from arena.cli.players import make_player
    from arena.executor import LocalExecutor
    from arena.rundir import RunDirectory
    from arena.tournament import TournamentSpec
    from arena.tournament_run import run_tournament

    bots = field(entrants)
    spec = TournamentSpec(game="rolldice", bots=bots, players=2, repeats=repeats)
    with tempfile.TemporaryDirectory() as tmp:
        run_tournament(spec, "bench", RunDirectory(Path(tmp)), LocalExecutor(make_player, 1), resamples=0)
        return spec, RunDirectory(Path(tmp)).load_records()


def versions(summary: dict[str, Any], count: int, shared: int) -> list[dict[str, Any]]:
    """``count`` entries of the summary: its first ``shared`` bots keep their names, the others
    are renamed per entry (``random#40:v3``)."""
    return [
        leaderboard.renamed_summary(summary, {b: f"{b}:v{k}" for b in summary["bots"][shared:]}) for k in range(count)
    ]


def compared(
    label: str,
    sparse: Callable[[], dict[str, Any]],
    dense: Callable[[], dict[str, tuple[float, float, float]]],
    dense_bytes: int,
    limit_mb: float,
    extra: dict[str, Any],
) -> dict[str, Any]:
    board, after = measured(sparse)
    row: dict[str, Any] = {"case": label, **extra, "sparse": after, "dense_projected_mb": round(dense_bytes / 2**20, 1)}
    if dense_bytes / 2**20 <= limit_mb:
        reference, before = measured(dense)
        if reference != board_shown(board):
            raise SystemExit(f"{label}: the sparse board differs from the dense path's")
        row["dense"] = before
        row["time_ratio_dense_over_sparse"] = round(before["cpu_seconds"] / max(after["cpu_seconds"], 1e-9), 1)
        row["memory_ratio_dense_over_sparse"] = round(before["peak_mb"] / max(after["peak_mb"], 0.1), 1)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=options.counts(1), default=[1, 2, 10, 50], help="summaries per refit (comma-separated)"
    )
    parser.add_argument("--entrants", type=options.count(2), default=64)
    parser.add_argument("--shared", type=options.count(0), default=48, help="bots under the same name in every summary")
    parser.add_argument(
        "--boards", type=options.counts(2), default=[16, 64], help="entrants of the tournament boards (comma-separated)"
    )
    parser.add_argument("--repeats", type=options.count(1), default=10)
    parser.add_argument("--dense-limit-mb", type=options.finite(0.0, "megabytes"), default=1000.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    options.stop_cleanly_on_sigterm()  # its tournaments' worker process stops with it
    rows = []
    spec, records = played(args.entrants, 1)
    summary = leaderboard.tournament_summary(spec, records)
    for size in args.sizes:
        summaries = versions(summary, size, args.shared)
        bots = len(all_bots(summaries))
        groups = sum(int(s["group_count"]) for s in summaries)
        entries = sum(leaderboard.summary_wins(s).entries for s in summaries)
        rows.append(
            compared(
                f"across x{size}",
                partial(leaderboard.across, spec.game, summaries),
                partial(dense_across, summaries),
                2 * groups * bots * bots * 8,  # the blocks, and their concatenation
                args.dense_limit_mb,
                {"bots": bots, "groups": groups, "entries": entries, "dense_cells": groups * bots * bots},
            )
        )
    for entrants in args.boards:
        board_spec, board_records = played(entrants, args.repeats)
        tally = leaderboard.Tally(board_spec, by_group=True)
        for record in board_records:
            tally.add(record)
        held = tally.group_wins()
        rows.append(
            compared(
                f"board {entrants}",
                partial(leaderboard.build, board_spec, board_records),
                partial(dense_board, board_spec, board_records),
                held.count * entrants * entrants * 8,
                args.dense_limit_mb,
                {
                    "bots": entrants,
                    "groups": held.count,
                    "entries": held.entries,
                    "dense_cells": held.count * entrants * entrants,
                },
            )
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"{'case':<12} {'bots':>5} {'groups':>6} {'entries':>8} {'dense cells':>12} "
        f"{'sparse s':>9} {'cpu s':>7} {'MB':>7} {'dense s':>8} {'cpu s':>7} {'MB':>7} {'cpu x':>6} {'mem x':>6}"
    )
    for row in rows:
        after, before = row["sparse"], row.get("dense")
        dense = (
            f"{before['seconds']:>8} {before['cpu_seconds']:>7} {before['peak_mb']:>7} "
            f"{row['time_ratio_dense_over_sparse']:>6} {row['memory_ratio_dense_over_sparse']:>6}"
            if before
            else f"{'(would need ' + str(row['dense_projected_mb']) + ' MB)':>38}"
        )
        print(
            f"{row['case']:<12} {row['bots']:>5} {row['groups']:>6} {row['entries']:>8} {row['dense_cells']:>12} "
            f"{after['seconds']:>9} {after['cpu_seconds']:>7} {after['peak_mb']:>7} {dense}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
