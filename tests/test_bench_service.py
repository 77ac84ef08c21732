"""bench.bench_service runs end to end on a small budget, both modes, and reports what the README
quotes (no timing is asserted: the machine is shared)."""

from __future__ import annotations

import json

from bench.bench_service import main


def test_the_service_bench_times_the_read_mix_against_the_health_check(capsys):
    assert main(["--seconds", "1", "--clients", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["failed_calls"] == {}  # every match the mix reads is stored before it reads
    assert report["clients"] == 2
    assert report["health_baseline_rps"] > 0 and report["read_mix_rps"] > 0
    for call in ("get_leaderboard", "get_match"):
        assert 0 < report[f"{call}_p50_ms"] <= report[f"{call}_p99_ms"], call
    assert report["tournament_matches_done_meanwhile"] > 0


def test_the_watchers_bench_reports_memory_updates_and_latencies(capsys):
    assert main(["--watchers", "20", "--repeats", "3", "--seconds", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["watchers"] == 20 and report["matches"] == 18
    assert report["all_watching"] is True
    # Every stream ends with the tournament's last update (complete, or cancelled at the end).
    assert report["watchers_that_saw_the_end"] == 20
    assert 1 <= report["updates_per_watcher_min"] <= report["updates_per_watcher_max"]
    assert 0 < report["service_rss_mb_before"] <= report["service_rss_mb_max_while_watched"]
    for name in ("health_before", "health_while_watched", "get_tournament_before", "get_tournament_while_watched"):
        stats = report[name]
        assert stats["calls"] > 0 and 0 < stats["p50_ms"] <= stats["p99_ms"], name
