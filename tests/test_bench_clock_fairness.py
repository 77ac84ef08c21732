"""bench.bench_clock_fairness runs end to end on a small budget and reports what the README
quotes. Its verdicts are checked, not its times: a bot thinking 100 ms past the limit is timed
out at every decision, one thinking 5 ms of 100 never (the scripted clock tests in
test_remote.py pin the rule itself)."""

from __future__ import annotations

import json

from bench.bench_clock_fairness import main


def test_the_clock_fairness_bench_reports_verdicts_and_recorded_time(capsys):
    argv = ["--concurrency", "1,4", "--per-match", "4", "--limit-ms", "100", "--over-ms", "100", "--under-ms", "5"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["limit_ms"], report["over_think_ms"], report["under_think_ms"]) == (100, 200, 5)
    assert [level["matches"] for level in report["levels"]] == [1, 4]
    for level in report["levels"]:
        assert level["over_decisions"] >= 2 * level["matches"]
        assert level["over_timed_out"] == 1.0 and level["over_let_through"] == 0
        assert level["under_decisions"] >= 2 * level["matches"] and level["under_verdicts"] == 0
        error = level["under_record_minus_think_ms"]
        assert error["min"] <= error["median"] <= error["p95"] <= error["max"]
