"""bench.bench_celery runs end to end on a small budget and reports what the README quotes, the
CPU of every process of a Celery run and the machine's own two-process baseline among it (no
timing is asserted: the machine is shared)."""

from __future__ import annotations

import json
import math

import pytest

from bench.bench_celery import main, versus


def test_the_celery_bench_reports_rates_and_the_cpu_of_every_process(capsys):
    assert main(["--matches", "200", "--rounds", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matches"] == 200
    for name in ("local", "celery_1", "celery_2"):
        (rate,) = report[f"{name}_matches_per_s"]
        assert rate > 0
    for procs in (1, 2):
        for part in ("client", "pools", "main", "redis"):
            assert report[f"celery_{procs}_{part}_cpu_us_per_match"] >= 0, (procs, part)
        # The pools play the matches: they cannot have used no CPU.
        assert report[f"celery_{procs}_pools_cpu_us_per_match"] > 0
    assert 0 < report["celery_2_vs_1_cpu_bound"] <= 2
    assert report["celery_1_vs_local"] > 0 and report["celery_2_vs_1"] > 0
    # The machine's own baseline: the local run alone, then in two processes at once.
    for name in ("machine_1", "machine_2"):
        (rate,) = report[f"{name}_matches_per_s"]
        assert rate > 0
    (ratio,) = report["machine_2_vs_1_rounds"]
    assert report["machine_2_vs_1"] == ratio > 0
    # The report rounds every figure to 3 decimals: the quotient of two rounded figures is off by
    # up to its relative rounding errors, plus the rounding of the figure itself.
    versus = report["celery_2_vs_1"]
    expected = versus / ratio
    slack = expected * (0.0005 / versus + 0.0005 / ratio) + 0.0005
    assert report["celery_2_vs_1_of_machine"] == pytest.approx(expected, abs=slack + 1e-9)
    # One round: each ratio is that round's rates' (rounded to 1 decimal: a relative error of
    # at most 0.05 over each rate, here in the hundreds or more).
    (local,), (one,), (two,) = (report[f"{name}_matches_per_s"] for name in ("local", "celery_1", "celery_2"))
    assert report["celery_1_vs_local"] == pytest.approx(one / local, rel=0.002, abs=0.0006)
    assert report["celery_2_vs_1"] == pytest.approx(two / one, rel=0.002, abs=0.0006)
    # The bare no-op tasks: a task per batch sent, the last one short (200 matches in batches
    # of 13 are 16 tasks, not 200 / 13 = 15.4).
    tasks = math.ceil(report["matches"] / report["batch_size"])
    assert report["matches"] % report["batch_size"]  # a short last batch, which the old count missed
    for procs in (1, 2):
        equivalent = report[f"bare_celery_{procs}_process_matches_equivalent_per_s"]
        noop = report[f"bare_celery_{procs}_process_noop_tasks_per_s"]
        assert noop == pytest.approx(equivalent * tasks / report["matches"], abs=0.06)


def test_the_ratios_are_faster_over_slower_round_by_round_and_their_medians():
    rates = {
        "local": [100.0, 100.0, 200.0],
        "celery_1": [80.0, 90.0, 100.0],
        "celery_2": [120.0, 180.0, 160.0],
        "machine_1": [50.0, 50.0, 50.0],
        "machine_2": [90.0, 100.0, 95.0],
    }
    assert versus(rates) == {
        "celery_1_vs_local_rounds": [0.8, 0.9, 0.5],
        "celery_1_vs_local": 0.8,
        "celery_2_vs_1_rounds": [1.5, 2.0, 1.6],
        "celery_2_vs_1": 1.6,
        "machine_2_vs_1_rounds": [1.8, 2.0, 1.9],
        "machine_2_vs_1": 1.9,
        "celery_2_vs_1_of_machine": round(1.6 / 1.9, 3),
    }
