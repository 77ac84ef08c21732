"""bench.bench_refusal runs end to end on a small budget and reports both runs and their ratio
(no timing is asserted: the machine is shared)."""

from __future__ import annotations

import json

import pytest

from bench.bench_refusal import main

pytestmark = pytest.mark.timeout(300)


def test_the_refusal_bench_reports_a_tournament_alone_and_beside_a_refused_one(capsys):
    assert main(["--matches", "40", "--rounds", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    (alone,) = report["alone_s"]
    (beside,) = report["beside_a_refused_tournament_s"]
    assert alone > 0 and beside > 0 and report["ratio_of_medians"] > 0
