"""Are the published error bars honest? Seeded simulations behind the README's figures.

    python -m bench.ratings_honesty coverage [--replicates 400]   # bootstrap interval coverage
    python -m bench.ratings_honesty sprt [--runs 4000]            # SPRT error rates, sample sizes

``coverage``: round robins of 6 bots with known strengths (a weak bot and five close ones).
2-player: every pair plays a duplicate pair (both seat orders on one deal) per repeat; the two
games share their chance ("same": a deal that decides both, the worst case for an analysis
that treats games as independent), are independent, or are antithetic (the deal favours a
seat). 4-player: every 4 of the 6 plays the 4 rotations of one deal; Gumbel performances
(every pairwise result exactly logistic), half the rotations repeat the deal's noise. Each
tournament's board is :func:`arena.ratings.bootstrap_intervals` (200 resamples); coverage is
the share of bots whose true rating (anchored to the mean, as shown) is inside the interval,
with its standard error over tournaments.

``sprt``: :class:`arena.sprt.SPRT` fed duplicate pairs of two independent games (20% draws)
whose expected score is the logistic one of the true Elo; the wrong decisions at the true Elo
= ELO0 (alpha) and = ELO1 (beta), with binomial standard errors, and the pairs played.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from itertools import combinations

import numpy as np

from arena.ratings import BASE, SCALE, bootstrap_intervals, outcome_matrix
from arena.sprt import SPRT, score_of
from bench import options

STRENGTHS = np.array([-1.5, -0.4, 0.0, 0.2, 0.5, 1.0])  # natural-log units
NAMES = [f"b{i}" for i in range(len(STRENGTHS))]


def two_player(rng: np.random.Generator, repeats: int, chance: str) -> np.ndarray:
    n = len(STRENGTHS)
    groups = []
    for _ in range(repeats):
        for a, b in combinations(range(n), 2):
            p = 1.0 / (1.0 + np.exp(STRENGTHS[b] - STRENGTHS[a]))
            u = rng.random()
            second = {"same": u, "independent": rng.random(), "antithetic": 1.0 - u}[chance]
            wins = np.zeros((n, n))
            for draw in (u, second):
                if draw < p:
                    wins[a, b] += 1
                else:
                    wins[b, a] += 1
            groups.append(wins)
    return np.array(groups)


def four_player(rng: np.random.Generator, repeats: int) -> np.ndarray:
    groups = []
    for _ in range(repeats):
        for bots in combinations(range(len(STRENGTHS)), 4):
            deal = rng.gumbel(size=4)
            matches = []
            for rotation in range(4):
                seats = np.roll(bots, rotation)
                noise = np.roll(deal, rotation) if rng.random() < 0.5 else rng.gumbel(size=4)
                ranks = np.empty(4, dtype=int)
                ranks[np.argsort(-(STRENGTHS[list(seats)] + noise))] = np.arange(1, 5)
                matches.append((tuple(int(s) for s in seats), tuple(int(r) for r in ranks)))
            groups.append(outcome_matrix(matches, len(STRENGTHS)))
    return np.array(groups)


SCENARIOS: dict[str, Callable[[np.random.Generator], np.ndarray]] = {
    "2p x1 repeat, same deal": lambda rng: two_player(rng, 1, "same"),
    "2p x3 repeats, same deal": lambda rng: two_player(rng, 3, "same"),
    "2p x10 repeats, same deal": lambda rng: two_player(rng, 10, "same"),
    "2p x10 repeats, independent": lambda rng: two_player(rng, 10, "independent"),
    "2p x10 repeats, antithetic": lambda rng: two_player(rng, 10, "antithetic"),
    "2p x40 repeats, same deal": lambda rng: two_player(rng, 40, "same"),
    "4p x1 repeat": lambda rng: four_player(rng, 1),
    "4p x5 repeats": lambda rng: four_player(rng, 5),
}


def coverage(replicates: int, seed: int) -> None:
    truth = BASE + SCALE * (STRENGTHS - STRENGTHS.mean())
    print("| scenario | groups | coverage | width (mean, points) |")
    print("|---|---|---|---|")
    for number, (label, simulate) in enumerate(SCENARIOS.items()):
        rng = np.random.default_rng([seed, number])
        shares, widths, groups = [], [], 0
        for replicate in range(replicates):
            data = simulate(rng)
            groups = data.shape[0]
            fit = bootstrap_intervals(data, names=NAMES, seed=replicate)
            shares.append(np.mean((fit.ci_low <= truth) & (truth <= fit.ci_high)))
            widths.append(np.mean(fit.ci_high - fit.ci_low))
        error = np.std(shares, ddof=1) / np.sqrt(replicates)
        print(f"| {label} | {groups} | {np.mean(shares):.3f} ± {error:.3f} | {np.mean(widths):.0f} |", flush=True)


def sprt_run(rng: np.random.Generator, elo0: float, elo1: float, true: float, draw: float) -> tuple[str, int]:
    test = SPRT(elo0, elo1)
    win = score_of(true) - draw / 2
    while True:
        u = rng.random((256, 2))
        for score in np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0)).mean(axis=1).tolist():
            test.add(score)
            decision = test.decision()
            if decision:
                return decision, test.n


def sprt(runs: int, seed: int) -> None:
    print("| bounds | true Elo | wrong decisions | pairs: mean | median | 90th percentile |")
    print("|---|---|---|---|---|---|")
    for number, (elo0, elo1) in enumerate([(0.0, 30.0), (0.0, 50.0), (0.0, 100.0), (-20.0, 20.0)]):
        for true in (elo0, elo1):
            rng = np.random.default_rng([seed, number, int(true == elo1)])
            results = [sprt_run(rng, elo0, elo1, true, 0.2) for _ in range(runs)]
            wrong = np.mean([d == ("H1" if true == elo0 else "H0") for d, _ in results])
            pairs = np.array([n for _, n in results])
            error = np.sqrt(wrong * (1 - wrong) / runs)
            print(
                f"| [{elo0:g}, {elo1:g}] | {true:g} | {wrong:.3f} ± {error:.3f} | {pairs.mean():.0f} | "
                f"{np.median(pairs):.0f} | {np.quantile(pairs, 0.9):.0f} |",
                flush=True,
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["coverage", "sprt"])
    parser.add_argument("--replicates", type=options.count(1), default=400, help="coverage: tournaments per scenario")
    parser.add_argument("--runs", type=options.count(1), default=4000, help="sprt: tests per bound and truth")
    parser.add_argument("--seed", type=options.count(0), default=1)
    args = parser.parse_args(argv)
    if args.what == "coverage":
        coverage(args.replicates, args.seed)
    else:
        sprt(args.runs, args.seed)


if __name__ == "__main__":
    main()
