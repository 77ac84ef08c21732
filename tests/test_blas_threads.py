"""Arena asks OpenBLAS for one thread unless the operator chose (arena/__init__.py): on these
2-core machines its threads made a 300-bot board's bootstrap 10-24x slower (bench/bench_board.py,
run here on a small board: no timing is asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from bench.bench_board import main
from tests.services import ROOT


def blas_threads(env_value: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if env_value is not None:
        env["OPENBLAS_NUM_THREADS"] = env_value
    code = "import arena, os, numpy; print(os.environ['OPENBLAS_NUM_THREADS'])"
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_one_blas_thread_unless_the_operator_chose():
    assert blas_threads(None) == "1"
    assert blas_threads("2") == "2"


def test_the_board_bench_reports_both_runs(capsys):
    assert main(["--bots", "20", "--groups", "200", "--resamples", "5"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["one_thread_s"] > 0 and report["openblas_threads_s"] > 0 and report["one_thread_speedup"] > 0
