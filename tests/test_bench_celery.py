"""bench.bench_celery runs end to end on a small budget and reports what the README quotes, the
CPU of every process of a Celery run and the machine's own two-process baseline among it (no
timing is asserted: the machine is shared)."""

from __future__ import annotations

import json

import pytest

from bench.bench_celery import main


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
