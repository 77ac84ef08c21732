"""SPRT: error rates on simulated Elo differences."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.sprt import SPRT, score_of


def pair_score(rng, elo, draw_rate=0.2):
    """Mean score of a duplicate pair of games for a player with this Elo advantage.

    Win and loss probabilities are set so the expected score of a game is the logistic one.
    """
    p_win = score_of(elo) - draw_rate / 2
    total = 0.0
    for _ in range(2):
        u = rng.random()
        total += 1.0 if u < p_win else 0.5 if u < p_win + draw_rate else 0.0
    return total / 2


def run_test(rng, true_elo, elo0, elo1, limit=20_000):
    test = SPRT(elo0, elo1)
    while test.n < limit:
        test.add(pair_score(rng, true_elo))
        decision = test.decision()
        if decision:
            return decision
    return None


def test_bounds_for_alpha_beta_005():
    test = SPRT(0, 10)
    assert test.lower == pytest.approx(-2.944, abs=1e-3) and test.upper == pytest.approx(2.944, abs=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize(("true_elo", "wanted"), [(0.0, "H0"), (30.0, "H1")])
def test_error_rates_are_near_alpha_and_beta(true_elo, wanted):
    rng = np.random.default_rng(int(true_elo) + 7)
    trials = 300
    outcomes = [run_test(rng, true_elo, 0.0, 30.0) for _ in range(trials)]
    errors = sum(o != wanted for o in outcomes) / trials
    # alpha = beta = 0.05; 300 trials put a binomial standard error of 0.013 on the estimate.
    assert errors <= 0.08, errors


@pytest.mark.slow
def test_stronger_than_elo1_is_accepted_and_weaker_than_elo0_rejected_almost_always():
    rng = np.random.default_rng(3)
    assert sum(run_test(rng, 80.0, 0.0, 30.0) == "H1" for _ in range(100)) >= 99
    assert sum(run_test(rng, -50.0, 0.0, 30.0) == "H0" for _ in range(100)) >= 99


def test_clear_difference_is_decided_quickly():
    rng = np.random.default_rng(1)
    test = SPRT(0, 50)
    for _ in range(400):
        test.add(pair_score(rng, 300.0))
        if test.decision():
            break
    assert test.decision() == "H1" and test.n < 100


def test_the_llr_of_given_samples_is_pinned():
    """Both r_i are shrunk toward 0.125 (a pair of coin-flip games) by four pseudo-samples."""
    three = SPRT(0.0, 50.0)
    for _ in range(3):
        three.add(1.0)
    assert three.to_json() == {
        "elo0": 0.0,
        "elo1": 50.0,
        "alpha": 0.05,
        "beta": 0.05,
        "samples": 3,
        "llr": 0.2602,
        "bounds": [-2.9444, 2.9444],
        "decision": None,
    }
    mixed = SPRT(0.0, 50.0)
    for score in [1.0, 0.5, 0.0, 1.0, 1.0, 0.5, 1.0, 0.5]:
        mixed.add(score)
    assert round(mixed.llr(), 4) == 0.4177
    # The group at which a seeded stream at +50 Elo is decided (the run's length and board).
    stream, test = random.Random(3), SPRT(0.0, 50.0)
    while test.decision() is None:
        test.add(((stream.random() < score_of(50.0)) + (stream.random() < score_of(50.0))) / 2)
    assert (test.decision(), test.n, round(test.llr(), 3)) == ("H1", 216, 2.964)


def test_invalid_bounds_are_rejected():
    with pytest.raises(ValueError, match="ELO0 < ELO1"):
        SPRT(10, 0)
