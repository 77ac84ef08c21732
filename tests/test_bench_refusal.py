"""bench.bench_refusal runs end to end on a small budget and reports both runs and their ratio
(no timing is asserted: the machine is shared); killed with SIGTERM, it stops what it started."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.bench_refusal import main
from bench.procstat import children
from tests.services import ROOT, wait_for

pytestmark = pytest.mark.timeout(300)


def test_the_refusal_bench_reports_a_tournament_alone_and_beside_a_refused_one(capsys):
    assert main(["--matches", "40", "--rounds", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    (alone,) = report["alone_s"]
    (beside,) = report["beside_a_refused_tournament_s"]
    assert alone > 0 and beside > 0 and report["ratio_of_medians"] > 0


def alive(pid: int) -> bool:
    """Running, or dead but not yet reaped by its parent."""
    return Path(f"/proc/{pid}").exists()


def test_a_sigterm_stops_the_worker_and_the_redis_server_the_bench_started(tmp_path):
    """``timeout``, a CI job's end or ``kill`` sends SIGTERM: the bench's ``with`` blocks must stop
    its worker (a process group of its own) and its redis-server, which outlived it under PID 1."""
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "bench.bench_refusal", "--matches", "2000", "--rounds", "5"]
    bench = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    started: list[int] = []
    try:
        logs = lambda: list(tmp_path.glob("bench-refusal-*/worker0.log"))  # noqa: E731
        wait_for(
            lambda: bench.poll() is not None or any("ready." in log.read_text() for log in logs()),
            120,
            "the bench's worker to be ready",
        )
        assert bench.poll() is None, bench.stderr.read().decode() if bench.stderr else ""
        time.sleep(1.0)  # the log says ready a moment before the bench holds the worker
        started = sorted(children(bench.pid))  # the redis-server and the worker's main process
        started += [pid for parent in list(started) for pid in children(parent)]  # its pool
        assert len(started) >= 3
        bench.send_signal(signal.SIGTERM)
        assert bench.wait(60) == 128 + signal.SIGTERM
        wait_for(lambda: not any(alive(pid) for pid in started), 20, "the bench's processes to end")
        assert not list(tmp_path.glob("bench-refusal-*"))  # its temporary directory removed too
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait(10)
        for pid in started:  # what a bench without the handler left behind, by its own pid
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
