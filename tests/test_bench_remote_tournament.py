"""bench.bench_remote_tournament runs end to end on a small budget, both modes, and reports what
the README quotes (no timing is asserted: the machine is shared)."""

from __future__ import annotations

import json

from bench.bench_remote_tournament import main, row, versus


def test_the_remote_tournament_bench_plays_the_same_matches_locally_and_on_celery(capsys):
    assert main(["--matches", "12", "--think", "0.002", "--per-process", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    runs = {run["run"]: run for run in report["runs"]}
    assert list(runs) == ["local_1_process", "celery_1_process", "celery_2_process"]
    for run in runs.values():
        assert run["matches"] == 12
        assert run["matches_per_s"] > 0 and run["fraction_of_ideal"] > 0
    # The same seeded matches against bots that answer the first option: the same decisions
    # wherever they are played.
    assert len({run["mean_decisions_per_match"] for run in runs.values()}) == 1
    assert [run["concurrent_matches"] for run in runs.values()] == [3, 3, 6]
    assert report["celery_1_vs_local"] > 0 and report["celery_2_vs_1"] > 0
    # The ratios are of the rates reported (each rounded to 2 decimals, the ratio to 3).
    local, one, two = (run["matches_per_s"] for run in runs.values())
    assert report["celery_1_vs_local"] == round(one / local, 3)
    assert report["celery_2_vs_1"] == round(two / one, 3)


def test_a_runs_ideal_is_its_slots_over_a_matchs_think_time_and_the_ratios_are_faster_over_slower():
    # 4 matches of 10 and 20 decisions (mean 15) in 10 s, 4 at once, bots thinking 0.1 s: the
    # ideal is 4 / (15 x 0.1) = 2.67 matches/s, the run's 0.4 is 0.15 of it.
    run = row("local_1_process", 10.0, [10, 20, 10, 20], 4, 0.1)
    assert run == {
        "run": "local_1_process",
        "matches": 4,
        "concurrent_matches": 4,
        "mean_decisions_per_match": 15.0,
        "seconds": 10.0,
        "matches_per_s": 0.4,
        "ideal_matches_per_s": 2.67,
        "fraction_of_ideal": 0.15,
    }
    runs = [{"matches_per_s": 10.0}, {"matches_per_s": 8.0}, {"matches_per_s": 14.0}]
    assert versus(runs) == {"celery_1_vs_local": 0.8, "celery_2_vs_1": 1.75}


def test_the_queue_bench_keeps_the_window_and_measures_the_service(capsys):
    assert main(["--queue", "--queue-matches", "2000", "--sample-seconds", "1", "--service-seconds", "0.5"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matches"] == 2000 and report["window"] == 16
    assert 0 < report["max_window_in_flight"] <= report["window"]
    assert report["max_queue_length"] <= report["window"]
    assert report["all_at_once_queue_length"] >= 2000
    assert report["all_at_once_queue_key_memory_bytes"] > report["queue_key_max_memory_bytes"]
    stall = report["stall_check_ms_per_call"]
    assert stall["queue_length_big"] == report["all_at_once_queue_length"]
    assert stall["window_check_big_queue"] > 0 and stall["old_scan_big_queue"] > 0
    shares = report["service_cpu_share_of_a_core"]
    assert set(shares) == {"no_tournament", "tournament_running", "old_queue_in_redis", "old_queue_vs_no_tournament"}
    for state in ("no_tournament", "tournament_running", "old_queue_in_redis"):
        assert 0 <= shares[state] <= 2, state  # a share of one core, on a 2-core machine
