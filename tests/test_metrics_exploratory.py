"""From exploratory testing of observability: an operator's Prometheus against real workers and
the referee service. Each test names the defect it pins."""

from __future__ import annotations

import itertools
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import redis
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest

from arena.logs import JsonFormatter, mask_passwords
from arena.record import DecisionEntry, MatchRecord
from arena.rundir import RunDirectory
from arena.tournament import TournamentSpec, schedule
from arena.tournament_run import run_tournament
from referee import metrics
from referee.store import Store
from tests.remote_helpers import bot_process, misbehaving
from tests.services import ROOT, Worker, free_port, metric, redis_server, service, wait_for, workers
from workers.executor import CeleryExecutor, batches

pytestmark = pytest.mark.timeout(300)


def value(name: str, **labels: str) -> float:
    return metric(generate_latest(REGISTRY).decode(), name, **labels)


def two_seat_record(game: str, names: tuple[str, str]) -> MatchRecord:
    decisions = [DecisionEntry(i, i % 2, "roll", 2, "roll", ms=0.5) for i in range(5)]
    return MatchRecord(
        match_id="m000000",
        game=game,
        game_version="1",
        config={"players": 2},
        seed=1,
        seats=[{"bot": names[0], "version": ""}, {"bot": names[1], "version": ""}],
        decisions=decisions,
        failures=[],
        result={"scores": [1, 2], "ranks": [2, 1], "forfeited": [False, False]},
        ms=3.0,
    )


# -- player kinds: a registered remote bot is remote --------------------------------------------


def test_a_registered_or_hosted_bot_answers_as_remote():
    """A service tournament names its seats by entrant ("flaky"), not by address: every decision
    of a registered gRPC bot was counted as in_process, so the dashboard's remote latency was
    empty. Its address says its kind; a hosted bot answers over a socket too."""
    spec = TournamentSpec(
        game="getbit",
        bots=("flaky", "sandboxed", "random"),
        players=2,
        addresses={"flaky": "grpc://127.0.0.1:5999", "sandboxed": "hosted:sandboxed@3"},
    )
    kinds = ("remote", "in_process")
    before = {kind: value("arena_decisions_total", game="getbit", player_kind=kind) for kind in kinds}
    metrics.observe_record(two_seat_record("getbit", ("flaky", "random")), address=spec.address)
    metrics.observe_record(two_seat_record("getbit", ("random", "sandboxed")), address=spec.address)
    after = {kind: value("arena_decisions_total", game="getbit", player_kind=kind) for kind in kinds}
    # Seat 0 answers decisions 0, 2, 4; seat 1 answers 1, 3.
    assert {kind: after[kind] - before[kind] for kind in kinds} == {"remote": 3 + 2, "in_process": 2 + 3}


def test_a_worker_counts_a_registered_remote_bots_decisions_as_remote(tmp_path):
    with (
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=1) as (worker,),
        bot_process(misbehaving("illegal", "--at", "1")) as endpoint,
    ):
        spec = TournamentSpec(game="rolldice", bots=("flaky", "random"), players=2, addresses={"flaky": endpoint})
        run_tournament(spec, "reg", RunDirectory(tmp_path / "run"), CeleryExecutor(server.url, "reg"))
        store = Store(server.url)
        wait_for(lambda: store.tournament("reg")["status"] == "complete", 60, "finalisation")
        records = store.matches("reg")
        remote = sum(1 for r in records for d in r.decisions if d.by == "bot" and r.seats[d.seat]["bot"] == "flaky")
        assert remote > 0
        text = worker.scrape()
        assert metric(text, "arena_decisions_total", player_kind="remote") == remote


# -- the rating gauges: bounded whatever the leaderboard holds -----------------------------------


def test_rating_series_are_the_leaderboards_top_and_bounded():
    """Every spelling of a built-in's parameters is an entrant of its own (the service took
    heuristic:threshold=4, =04, =004 ... as 13 bots, and BOT*64 adds 64 copies): the game's
    leaderboard, and with it arena_rating, grew a series for each."""
    rows = [
        {"bot": f"heuristic:threshold={'0' * i}4", "rating": 1000.0 + i, "ci_low": 900.0 + i, "ci_high": 1100.0 + i}
        for i in range(metrics.RATED_BOTS + 50)
    ]
    metrics.set_ratings("chicken", {"leaderboard": rows})

    def rated() -> dict[str, float]:
        family = next(f for f in REGISTRY.collect() if f.name == "arena_rating")
        return {s.labels["bot"]: s.value for s in family.samples if s.labels["game"] == "chicken"}

    best = sorted(rows, key=lambda row: -row["rating"])[: metrics.RATED_BOTS]
    assert rated() == {row["bot"]: row["rating"] for row in best}
    assert metrics.RATED_BOTS == 100
    # A bot that falls out of the top loses its series; one that climbs in gets one.
    rows[0]["rating"] = 5000.0
    metrics.set_ratings("chicken", {"leaderboard": rows})
    assert len(rated()) == metrics.RATED_BOTS and rated()[rows[0]["bot"]] == 5000.0
    assert str(best[-1]["bot"]) not in rated()


# -- histogram buckets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("buckets", "lowest", "highest"),
    [
        # A record times a decision to the µs; the longest decision limit a service takes is 60 s.
        (metrics.DECISION_BUCKETS, 1e-6, 60),
        # A Roll Dice match takes about 0.3 ms; a match is bounded at an hour.
        (metrics.MATCH_BUCKETS, 2.5e-4, 3600),
    ],
)
def test_buckets_span_the_measured_range_in_narrow_steps(buckets, lowest, highest):
    """Half of the in-process decisions of every game's built-in bots fell in the lowest bucket
    (<= 10 µs), and steps of 5x (0.1-0.5 ms held 28%) made quantiles coarse."""
    assert buckets[0] <= lowest and buckets[-1] >= highest
    steps = [b / a for a, b in itertools.pairwise(buckets)]
    assert max(steps) <= 2.5 + 1e-9, steps


# -- a multiprocess directory removed under a running worker --------------------------------------

_CHILD = textwrap.dedent(
    """
    import os, shutil, sys
    directory = sys.argv[1]
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
    from arena.record import DecisionEntry, MatchRecord
    from referee import metrics
    record = MatchRecord(
        match_id="m000000", game="rolldice", game_version="1", config={"players": 2}, seed=1,
        seats=[{"bot": "random", "version": ""}, {"bot": "heuristic", "version": ""}],
        decisions=[DecisionEntry(i, i % 2, "roll", 2, "roll", ms=0.5) for i in range(5)],
        failures=[], result={"scores": [1, 2], "ranks": [2, 1], "forfeited": [False, False]}, ms=3.0,
    )
    metrics.initialize(["rolldice"])  # the node's main process, before the pool forks
    shutil.rmtree(directory)  # a tmp cleaner, an operator
    pid = os.fork()
    if pid == 0:  # a new pool process
        try:
            with metrics.match_running("rolldice"):
                pass
            metrics.observe_record(record, count_start=False)
            metrics.batch_finished("rolldice", 0.5)
            metrics.tournament_started("rolldice")
        except BaseException as exc:
            print(f"raised {type(exc).__name__}: {exc}", flush=True)
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector
    registry = CollectorRegistry()
    MultiProcessCollector(registry, directory)
    print(os.waitstatus_to_exitcode(status), flush=True)
    print(generate_latest(registry).decode(), flush=True)
    """
)


def test_a_new_pool_process_counts_in_a_directory_removed_since_the_node_started(tmp_path):
    """Its first value raised FileNotFoundError in every batch (the tournament never ended), and
    the process could not count even once the directory was back."""
    directory = tmp_path / "metrics"
    directory.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(directory)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60
    )
    assert out.returncode == 0, out.stdout + out.stderr
    status, text = out.stdout.split("\n", 1)
    assert status == "0", out.stdout + out.stderr
    assert metric(text, "arena_matches_started_total", game="rolldice") == 1
    assert metric(text, "arena_matches_finished_total", game="rolldice", outcome="complete") == 1
    assert metric(text, "arena_decisions_total", game="rolldice", player_kind="in_process") == 5
    assert metric(text, "arena_worker_batch_duration_seconds_count", game="rolldice") == 1
    assert metric(text, "arena_tournaments_started_total", game="rolldice") == 1


def test_a_value_that_cannot_be_written_never_fails_the_work_and_is_logged_once(monkeypatch, caplog):
    def broken(*labels: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(metrics, "_failure_logged", None)
    monkeypatch.setattr(metrics.TOURNAMENTS_STARTED, "labels", broken)
    monkeypatch.setattr(metrics.MATCHES_STORED, "labels", broken)
    with caplog.at_level(logging.ERROR, logger="referee.metrics"):
        metrics.tournament_started("rolldice")
        metrics.matches_stored("rolldice", 3)
    lines = [r for r in caplog.records if r.name == "referee.metrics"]
    assert [r.getMessage() for r in lines] == [
        "metrics: cannot count, the work goes on uncounted: OSError: [Errno 28] No space left on device"
    ]


def test_the_scrape_recreates_a_removed_directory_and_says_the_counts_restart(tmp_path, caplog):
    directory = tmp_path / "metrics"
    directory.mkdir()
    collector = metrics.LiveMultiProcessCollector(CollectorRegistry(), str(directory))
    with caplog.at_level(logging.ERROR, logger="referee.metrics"):
        list(collector.collect())
        assert not caplog.records
        shutil.rmtree(directory)
        list(collector.collect())
        list(collector.collect())  # said once
    assert directory.is_dir()
    (line,) = [r for r in caplog.records if r.name == "referee.metrics"]
    assert line.getMessage().startswith("metrics: the directory was removed while this node ran")
    assert vars(line)["directory"] == str(directory)


def _children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def test_a_worker_whose_metrics_directory_was_removed_still_plays_and_counts(tmp_path):
    """The operator's view: the directory goes, a pool process is replaced, a tournament is
    sent. It stayed running for ever (every batch failed), and the scrape read nothing."""
    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2, repeats=3)
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=1) as (worker,):
        store = Store(server.url)
        shutil.rmtree(tmp_path / "metrics0")
        (child,) = _children(worker.process.pid)
        os.kill(child, signal.SIGKILL)
        wait_for(lambda: _children(worker.process.pid) not in ([], [child]), 30, "a new pool process")
        # Sent as a client would, without waiting on it (a run_tournament would wait for ever).
        executor = CeleryExecutor(server.url, "after")
        parts = batches(list(range(len(schedule(spec)))), 2)
        assert executor.store.create_tournament("after", spec, len(schedule(spec)), len(parts))
        for part in parts:
            executor.app.send_task("arena.play_batch", args=["after", part])
        wait_for(lambda: store.tournament("after")["status"] == "complete", 30, "the tournament to complete")
        text = worker.scrape()
        assert metric(text, "arena_matches_stored_total", game="rolldice") == len(schedule(spec))
        assert metric(text, "arena_matches_finished_total", game="rolldice") == len(schedule(spec))
        log = worker.log.read_text()
        assert "metrics: the directory was removed while this node ran" in log
        assert "FileNotFoundError" not in log


# -- two workers given one multiprocess directory -------------------------------------------------


def test_a_second_worker_on_the_same_metrics_directory_is_refused(tmp_path):
    """PROMETHEUS_MULTIPROC_DIR set for every worker of a machine (the README: kept if set): the
    second worker wiped the first one's files, and each /metrics then served both nodes' values
    (20 matches read 20 on each, 40 in a sum over instances)."""
    with redis_server(tmp_path) as server:
        env = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "shared")}
        first = Worker(server.url, 1, tmp_path / "first.log", 3600, env, free_port())
        try:
            files = sorted(p.name for p in (tmp_path / "shared").iterdir())
            args = [sys.executable, "-m", "arena", "worker", "--broker", server.url, "--metrics-port", str(free_port())]
            log = tmp_path / "second.log"
            with log.open("w") as handle:
                second = subprocess.Popen(
                    args,
                    stdout=handle,
                    stderr=subprocess.STDOUT,
                    cwd=ROOT,
                    env={**os.environ, **env},
                    start_new_session=True,
                )
                try:
                    wait_for(lambda: second.poll() is not None or "ready." in log.read_text(), 60, "the second worker")
                finally:
                    if second.poll() is None:
                        os.killpg(second.pid, signal.SIGKILL)
                    second.wait()
            assert second.returncode == 2, log.read_text()[-2000:]
            assert str(tmp_path / "shared") in log.read_text() and "another" in log.read_text()
            assert sorted(p.name for p in (tmp_path / "shared").iterdir()) == files
        finally:
            first.stop()


# -- matches the referee service plays ------------------------------------------------------------


def test_a_challenge_played_by_the_service_is_counted(tmp_path):
    import grpc

    from arena.v1 import arena_pb2, arena_pb2_grpc
    from referee.auth import create_owner

    port = free_port()
    with (
        redis_server(tmp_path) as server,
        service(server.url, tmp_path, "--metrics-port", str(port)) as srv,
        bot_process(misbehaving("illegal", "--at", "1")) as endpoint,
    ):
        stub = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(srv.address))
        metadata = (("authorization", f"Bearer {create_owner(Store(server.url), 'author')}"),)
        stub.RegisterBot(
            arena_pb2.RegisterBotRequest(name="flaky", games=["rolldice"], endpoint=endpoint), metadata=metadata
        )
        events = list(stub.Challenge(arena_pb2.ChallengeRequest(bot="flaky", game="rolldice"), metadata=metadata))
        (record,) = [MatchRecord.loads(e.record_json) for e in events if e.HasField("finished")]
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
            text = response.read().decode()
        assert metric(text, "arena_matches_started_total", game="rolldice") == 1
        assert metric(text, "arena_matches_finished_total", game="rolldice", outcome="forfeit") == 1
        assert metric(text, "arena_bot_failures_total", game="rolldice", verdict="illegal") == 1
        answered = sum(1 for d in record.decisions if d.by == "bot" and d.seat == 0)
        assert metric(text, "arena_decisions_total", game="rolldice", player_kind="remote") == answered


# -- logs -----------------------------------------------------------------------------------------


def _line(message: str, *args: object, exc: bool = False, **extra: object) -> dict[str, object]:
    logger = logging.getLogger("arena.cli.tournament_cmd")
    exc_info = None
    if exc:
        try:
            raise ConnectionError("cannot reach redis://admin:hunter2@10.0.0.5:6379/0")
        except ConnectionError:
            exc_info = sys.exc_info()
    record = logger.makeRecord(logger.name, logging.INFO, __file__, 1, message, args, exc_info, extra=extra)
    return json.loads(JsonFormatter().format(record))


def test_log_lines_never_carry_a_urls_password():
    """`arena tournament --broker redis://:PASSWORD@host/0` logged the URL whole in its
    "tournament started" line (its "broker" field); so did any message or traceback naming it."""
    line = _line("tournament started", tournament="t1", broker="redis://:s3cret@10.0.0.5:6379/0")
    assert line["broker"] == "redis://:***@10.0.0.5:6379/0"
    assert line["message"] == "tournament started" and line["tournament"] == "t1"
    line = _line("store at %s unavailable", "rediss://arena:s3cret@db:6380/1", exc=True)
    assert line["message"] == "store at rediss://arena:***@db:6380/1 unavailable"
    assert "hunter2" not in str(line["exc"]) and "redis://admin:***@10.0.0.5:6379/0" in str(line["exc"])
    # Addresses without a password are kept as they are.
    for text in ("redis://127.0.0.1:6379/0", "grpc://127.0.0.1:5000", "unix:///run/arena/bot.sock"):
        assert mask_passwords(text) == text


def _answers(url: str) -> bool:
    try:
        return bool(Store(url).redis.ping())
    except redis.ConnectionError:
        return False


def test_a_cli_run_logs_its_broker_without_the_password(tmp_path):
    """The real command, against a Redis that asks for a password."""
    port = free_port()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--requirepass", "s3cret", "--save", ""],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    # -X faulthandler: a client that does not stop is made to say where it is (SIGABRT below).
    args = [sys.executable, "-X", "faulthandler", "-m", "arena", "--log-level", "INFO", "tournament"]
    args += ["--game", "rolldice", "--broker", f"redis://:s3cret@127.0.0.1:{port}/0"]
    args += ["--out", str(tmp_path / "run"), "--json"]
    try:
        wait_for(lambda: _answers(f"redis://:s3cret@127.0.0.1:{port}/0"), 20, "redis-server", 0.2)
        err = tmp_path / "err"
        with err.open("w") as handle:
            client = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=handle, cwd=ROOT)
            try:  # no worker plays it: the client waits, having logged its start
                wait_for(lambda: "tournament started" in err.read_text(), 60, "the start line")
                client.send_signal(signal.SIGINT)
                try:
                    client.wait(60)
                except subprocess.TimeoutExpired:
                    client.send_signal(signal.SIGABRT)
                    client.wait(10)
                    raise AssertionError(f"Ctrl-C did not stop the client:\n{err.read_text()}") from None
                # 130, or killed by SIGINT: CPython exits so when a KeyboardInterrupt passed
                # through code run by exec() of a string (dataclasses, namedtuple), even one caught
                # later; a shell reports both as 130.
                assert client.returncode in (130, -signal.SIGINT), err.read_text()
            finally:
                client.kill()
                client.wait()
    finally:
        redis.kill()
        redis.wait()
    (started,) = [json.loads(line) for line in err.read_text().splitlines() if '"tournament started"' in line]
    assert started["broker"] == f"redis://:***@127.0.0.1:{port}/0"
    logged = [line for line in err.read_text().splitlines() if line.startswith("{")]
    assert logged and not [line for line in logged if "s3cret" in line]
    # Nor the lines for the user (an interrupted run may say "follow it with: ... --broker URL").
    assert "s3cret" not in err.read_text()


def test_cli_errors_name_a_broker_without_its_password():
    url = "redis://:s3cret@127.0.0.1:1/0"  # nobody listens on port 1
    for args in (["tournament", "status", "t1", "--broker", url], ["admin", "create-owner", "ann", "--redis", url]):
        out = subprocess.run(
            [sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=ROOT, timeout=60
        )
        assert out.returncode == 2 and "redis://:***@127.0.0.1:1/0" in out.stderr, out.stderr
        assert "s3cret" not in out.stderr + out.stdout
