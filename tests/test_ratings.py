"""Ratings: Bradley–Terry against choix, recovery, interval coverage, draws, multiplayer, Elo."""

from __future__ import annotations

import logging

import choix
import numpy as np
import pytest
from scipy.optimize import minimize

from arena import ratings
from arena.ratings import (
    BASE,
    SCALE,
    OnlineElo,
    bootstrap_intervals,
    connectivity_problem,
    fit_bradley_terry,
    outcome_matrix,
    pairwise_scores,
    summed_fit,
)

NAMES = [f"b{i}" for i in range(6)]


def simulate_groups(strengths, groups, rng, draw_rate=0.0):
    """Duplicate 2-player groups (both seat orders) between random pairs; (groups, n, n)."""
    n = len(strengths)
    out = np.zeros((groups, n, n))
    for g in range(groups):
        i, j = rng.choice(n, 2, replace=False)
        p = 1.0 / (1.0 + np.exp(strengths[j] - strengths[i]))
        for _ in range(2):
            u = rng.random()
            if u < draw_rate:
                out[g, i, j] += 0.5
                out[g, j, i] += 0.5
            elif u < draw_rate + (1 - draw_rate) * p:
                out[g, i, j] += 1
            else:
                out[g, j, i] += 1
    return out


def test_pairwise_scores_from_a_ranking():
    assert pairwise_scores([2, 1, 1]) == [(0, 1, 0.0), (0, 2, 0.0), (1, 2, 0.5)]
    wins = outcome_matrix([((0, 1, 2), (1, 2, 3)), ((2, 1, 0), (1, 1, 3))], 3)
    assert wins.tolist() == [[0, 1, 1], [1, 0, 1.5], [1, 0.5, 0]]


def test_bradley_terry_matches_choix_without_draws():
    rng = np.random.default_rng(1)
    true = rng.normal(0, 1, 6)
    data, wins = [], np.zeros((6, 6))
    for _ in range(2000):
        i, j = rng.choice(6, 2, replace=False)
        winner, loser = (i, j) if rng.random() < 1 / (1 + np.exp(true[j] - true[i])) else (j, i)
        data.append((winner, loser))
        wins[winner, loser] += 1
    theirs = choix.ilsr_pairwise(6, data, alpha=0)
    expected = BASE + SCALE * (theirs - theirs.mean())
    np.testing.assert_allclose(fit_bradley_terry(wins), expected, atol=1e-3)


def test_draws_count_half_a_win_for_each_side():
    # A draw is half a win each: the same MLE as choix on doubled data with a draw as one win
    # each way (the doubled likelihood is the square of ours).
    rng = np.random.default_rng(2)
    groups = simulate_groups(rng.normal(0, 0.7, 5), 400, rng, draw_rate=0.3)
    wins = groups.sum(axis=0)
    doubled = []
    for i in range(5):
        for j in range(5):
            doubled += [(i, j)] * round(2 * wins[i, j])
    theirs = choix.ilsr_pairwise(5, doubled, alpha=0)
    np.testing.assert_allclose(fit_bradley_terry(wins), BASE + SCALE * (theirs - theirs.mean()), atol=1e-3)


def _penalised_maximum(wins, prior):
    """The maximiser of the log-likelihood with ``prior`` virtual draws per bot against a
    phantom at 0, by a general-purpose optimiser (an independent reference), mean 0."""

    def negative(theta):
        log_p = -np.logaddexp(0.0, theta[None, :] - theta[:, None])
        value = (wins * log_p).sum() + prior * (0.5 * theta - np.logaddexp(0.0, theta)).sum()
        p = np.exp(log_p)
        q = 1.0 / (1.0 + np.exp(-theta))
        gradient = wins.sum(axis=1) + prior * 0.5 - ((wins + wins.T) * p).sum(axis=1) - prior * q
        return -value, -gradient

    theta = minimize(negative, np.zeros(len(wins)), jac=True, method="BFGS", options={"gtol": 1e-11}).x
    return theta - theta.mean()


@pytest.mark.parametrize("prior", [0.0, 1.0])
@pytest.mark.parametrize("true", [[-3.0, -1.5, 0.0, 1.5, 3.0], [-4.0, -4.0, 0.0, 4.0, 4.0]])
def test_far_apart_bots_get_the_exact_maximum(true, prior):
    # Bots whose strengths differ by several nats (a random bot against good ones) are where
    # MM alone creeps: 10,000 iterations left the prior's fit 0.12 nats (20 rating points) off.
    true = np.array(true)
    wins = 200.0 / (1.0 + np.exp(true[None, :] - true[:, None])) * (1 - np.eye(len(true)))
    expected = BASE + SCALE * _penalised_maximum(wins, prior)
    np.testing.assert_allclose(fit_bradley_terry(wins, prior=prior), expected, atol=1e-4)


# An outside statistician's tally: two bots met 5,694 times, two entrants never played (so the
# fit is regularised). Newton's last step at the optimum lost 5e-13 of the log-likelihood's 3521
# to rounding and counted as failed; MM from scratch then stopped at 10,000 iterations 3 points short.
ROUNDING_TALLY = np.array([[0, 0, 0, 0], [0, 0, 3937, 0], [0, 1757, 0, 0], [0, 0, 0, 0]], dtype=float)
ROUNDING_EXACT = [1500.0, 1570.07, 1429.93, 1500.0]  # scipy's optimiser agrees


def test_a_newton_step_that_loses_only_rounding_at_the_optimum_has_converged():
    np.testing.assert_allclose(fit_bradley_terry(ROUNDING_TALLY, prior=1.0), ROUNDING_EXACT, atol=0.01)
    # a beats b and b beats c 1,000,000 : 1 (no prior): the exact gaps are 400 log10(1e6) = 2400;
    # MM stopped at [1718.7, 2400.0]
    chain = np.array([[0, 1e6, 0], [1, 0, 1e6], [0, 1, 0]], dtype=float)
    np.testing.assert_allclose(-np.diff(fit_bradley_terry(chain)), [2400.0, 2400.0], atol=0.01)


def test_an_mm_fallback_that_stops_short_is_finished_by_newton_or_said(monkeypatch, caplog):
    real_newton = ratings._newton
    # Newton fails from scratch: MM stops short, and Newton from where it stopped finishes.
    monkeypatch.setattr(
        ratings, "_newton", lambda pairs, prior, start=None: None if start is None else real_newton(pairs, prior, start)
    )
    np.testing.assert_allclose(fit_bradley_terry(ROUNDING_TALLY, prior=1.0), ROUNDING_EXACT, atol=0.01)
    assert not caplog.records
    # Newton fails everywhere: the ratings are MM's, short of the maximum, and the log says so.
    monkeypatch.setattr(ratings, "_newton", lambda pairs, prior, start=None: None)
    with caplog.at_level(logging.WARNING, logger="arena.ratings"):
        short = fit_bradley_terry(ROUNDING_TALLY, prior=1.0)
    assert np.max(np.abs(short - ROUNDING_EXACT)) > 1.0
    assert [r.getMessage() for r in caplog.records] == [
        "the Bradley-Terry fit stopped after 10000 iterations short of the maximum"
    ]


def test_ratings_recover_known_strengths():
    rng = np.random.default_rng(3)
    true = np.array([-1.2, -0.5, 0.0, 0.4, 0.9, 1.5])
    fit = fit_bradley_terry(simulate_groups(true, 3000, rng).sum(axis=0))
    assert np.corrcoef(fit, true)[0, 1] > 0.99
    assert np.mean(fit) == pytest.approx(BASE)
    np.testing.assert_allclose(fit - BASE, SCALE * (true - true.mean()), atol=40)


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_truth_about_95_percent():
    rng = np.random.default_rng(4)
    true = np.array([-0.8, -0.3, 0.0, 0.2, 0.5, 0.9])
    true_ratings = BASE + SCALE * (true - true.mean())
    covered = total = 0
    for trial in range(60):
        fit = bootstrap_intervals(simulate_groups(true, 300, rng, 0.1), names=NAMES, resamples=150, seed=trial)
        covered += int(np.sum((fit.ci_low <= true_ratings) & (true_ratings <= fit.ci_high)))
        total += len(true)
    assert 0.88 <= covered / total <= 0.99, covered / total


def test_intervals_contain_the_estimate_and_shrink_with_data():
    rng = np.random.default_rng(5)
    true = np.linspace(-1, 1, 6)
    small = bootstrap_intervals(simulate_groups(true, 100, rng), names=NAMES, resamples=100)
    large = bootstrap_intervals(simulate_groups(true, 1600, rng), names=NAMES, resamples=100)
    assert np.all(small.ci_low <= small.ratings) and np.all(small.ratings <= small.ci_high)
    assert np.mean(large.ci_high - large.ci_low) < 0.5 * np.mean(small.ci_high - small.ci_low)


@pytest.mark.parametrize(
    ("wins", "needle"),
    [
        ([[0, 3, 2], [0, 0, 1], [0, 1, 0]], "b0 never lost"),
        ([[0, 0, 0], [3, 0, 1], [2, 1, 0]], "b0 never won"),
        ([[0, 2, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 3, 0]], "do not connect all bots"),
        ([[0, 0, 0], [0, 0, 1], [0, 1, 0]], "b0 has no games"),
    ],
)
def test_disconnected_data_is_named_and_still_gives_finite_ratings(wins, needle):
    wins = np.array(wins, dtype=float)
    names = NAMES[: len(wins)]
    problem = connectivity_problem(wins, names)
    assert problem is not None and needle in problem
    fit = bootstrap_intervals(wins[None], names=names)
    assert fit.warning is not None and fit.warning.startswith(problem)
    assert np.all(np.isfinite(fit.ratings))


def test_a_board_with_no_games_says_so_and_no_more():
    # A tournament cancelled before its first match: it named one bot as having no games, and
    # advised more groups.
    wins = np.zeros((3, 3))
    assert connectivity_problem(wins, NAMES[:3]) == "no games have been played"
    assert summed_fit(wins, 0, names=NAMES[:3]).warning == "no games have been played"


def test_connected_data_has_no_warning():
    wins = np.array([[0, 2, 1], [1, 0, 1], [1, 1, 0]], dtype=float)
    assert connectivity_problem(wins, NAMES[:3]) is None


def test_multiplayer_rankings_decompose_into_pairs():
    # Bot 0 always first, bot 2 always last, in 3-player matches: ratings in that order.
    matches = [((0, 1, 2), (1, 2, 3)), ((1, 2, 0), (2, 3, 1)), ((2, 0, 1), (3, 1, 2))] * 10
    matches += [((0, 1, 2), (2, 1, 3))]  # one upset so bot 0 has lost once (finite MLE)
    matches += [((0, 1, 2), (1, 3, 2))]  # and bot 2 has beaten someone
    wins = outcome_matrix(matches, 3)
    ratings = fit_bradley_terry(wins)
    assert ratings[0] > ratings[1] > ratings[2]


def test_online_elo_moves_toward_the_winner():
    elo = OnlineElo(3, k=16)
    elo.update((0, 1), (1, 2))
    assert elo.ratings[0] == pytest.approx(1508) and elo.ratings[1] == pytest.approx(1492)
    elo.update((0, 1, 2), (1, 1, 2))  # shared victory = a draw between 0 and 1
    assert elo.ratings[2] < BASE
    assert sum(elo.ratings) == pytest.approx(3 * BASE)


def test_five_duplicate_groups_are_enough_for_the_bootstrap():
    """README: with fewer than 5 groups the bootstrap cannot measure the spread and the interval is the
    normal one alone; with 5 the final board's interval is the bootstrap's (widened to the normal one)."""
    groups = np.array(
        [
            [[0, 2, 0], [0, 0, 0], [2, 2, 0]],
            [[0, 0, 0], [2, 0, 2], [2, 0, 0]],
            [[0, 2, 1], [0, 0, 0], [1, 2, 0]],
            [[0, 0, 0], [2, 0, 1], [2, 1, 0]],
            [[0, 1, 1], [1, 0, 0], [1, 2, 0]],
        ],
        dtype=float,
    )
    five = bootstrap_intervals(groups, names=NAMES[:3])
    assert (five.method, five.warning) == ("bootstrap and normal", None)
    assert np.round(five.ci_low, 1).tolist() == [1244.2, 1153.3, 1513.6]
    assert np.round(five.ci_high, 1).tolist() == [1591.1, 1691.3, 1741.2]
    four = bootstrap_intervals(groups[:4], names=NAMES[:3])
    assert four.method == "normal"
    assert four.warning is not None and four.warning.startswith("only 4 duplicate groups: too few to measure")
    assert np.round(four.ci_low, 1).tolist() == [1282.2, 1350.6, 1501.5]
    assert np.round(four.ci_high, 1).tolist() == [1525.8, 1584.9, 1754.9]


def test_one_duplicate_group_never_looks_certain():
    """Issue 10, item 7: one group (4 games) gave `1681 (1681..1681)`. Too little data for the
    bootstrap gives the regularised fit's wide interval, and the warning says why."""
    one = np.zeros((1, 2, 2))
    one[0, 0, 1], one[0, 1, 0] = 3.0, 1.0  # a 2-player group of 4 games
    fit = bootstrap_intervals(one, names=NAMES[:2])
    assert np.all(fit.ci_low <= fit.ratings) and np.all(fit.ratings <= fit.ci_high)
    # 3 wins in 4 games exclude neither equal strength nor 10:1 odds for the winner (with two
    # bots the shown gap is twice a rating's distance from the mean; 10:1 for the loser is
    # rightly excluded: 3 or more wins of 4 at odds 1:10 have probability 0.3%).
    assert fit.ci_low[0] <= BASE and fit.ci_high[0] - BASE >= 200, fit
    assert fit.warning is not None and "only 1 duplicate group" in fit.warning
    # More groups of the same kind: a measured (bootstrap) interval, narrower, no such warning.
    many = np.repeat(one, 40, axis=0)
    many[::3, 0, 1], many[::3, 1, 0] = 1.0, 3.0
    measured = bootstrap_intervals(many, names=NAMES[:2])
    assert measured.warning is None
    assert np.all(measured.ci_high - measured.ci_low < fit.ci_high - fit.ci_low)
