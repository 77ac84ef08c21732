"""Metrics: what a record adds, bounded labels, the gRPC interceptor's codes, and the exposition
of every process kind (a local run, a worker node, a gRPC server) as promtool reads it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import grpc
import grpc.aio
import pytest
from grpc_health.v1 import health as grpc_health
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from arena.cli.players import make_player
from arena.executor import LocalExecutor
from arena.record import DecisionEntry, FailureEntry, MatchRecord
from arena.registry import games
from arena.rundir import RunDirectory
from arena.runner import VERDICTS
from arena.tournament import TournamentSpec, schedule
from arena.tournament_run import run_tournament
from referee import metrics
from referee.store import Store
from tests.remote_helpers import bot_process, misbehaving
from tests.services import ROOT, free_port, metric, promtool_check, redis_server, wait_for, workers
from workers.executor import CeleryExecutor, batches

pytestmark = pytest.mark.timeout(300)


def value(name: str, **labels: str) -> float:
    return metric(generate_latest(REGISTRY).decode(), name, **labels)


def record(game: str = "rolldice", forfeit: bool = False) -> MatchRecord:
    """A match between a remote bot (seat 0) and an in-process one (seat 1)."""
    decisions = [
        DecisionEntry(0, 0, "roll", 2, "roll", ms=3.0),
        DecisionEntry(1, 1, "roll", 2, "roll", ms=0.004),
        DecisionEntry(2, 0, "roll", 2, "stop", ms=120.0),
        DecisionEntry(3, 0, "roll", 2, "roll", ms=0.5, by="substitute"),
        DecisionEntry(4, 1, "roll", 2, "stop", ms=0.02),
        DecisionEntry(5, 1, "roll", 2, "stop", ms=0.03),
    ]
    failures = [FailureEntry(0, 3, "illegal", "answered 'x'"), FailureEntry(0, -1, "timeout", "late")]
    return MatchRecord(
        match_id="m1",
        game=game,
        game_version="1",
        config={"players": 2},
        seed=1,
        seats=[{"bot": "grpc://127.0.0.1:5", "version": ""}, {"bot": "heuristic:threshold=4", "version": ""}],
        decisions=decisions,
        failures=failures,
        result={"scores": [1, 2], "ranks": [2, 1], "forfeited": [forfeit, False]},
        ms=250.0,
    )


def test_observe_record_counts_exactly_what_the_record_holds():
    names = [
        ("arena_matches_started_total", {"game": "rolldice"}),
        ("arena_matches_finished_total", {"game": "rolldice", "outcome": "forfeit"}),
        ("arena_matches_finished_total", {"game": "rolldice", "outcome": "complete"}),
        ("arena_match_duration_seconds_count", {"game": "rolldice"}),
        ("arena_match_duration_seconds_sum", {"game": "rolldice"}),
        ("arena_match_duration_seconds_bucket", {"game": "rolldice", "le": "0.1"}),
        ("arena_decisions_total", {"game": "rolldice", "player_kind": "remote"}),
        ("arena_decisions_total", {"game": "rolldice", "player_kind": "in_process"}),
        ("arena_decision_duration_seconds_sum", {"game": "rolldice", "player_kind": "remote"}),
        ("arena_decision_duration_seconds_bucket", {"game": "rolldice", "player_kind": "remote", "le": "0.005"}),
        ("arena_decision_duration_seconds_bucket", {"game": "rolldice", "player_kind": "in_process", "le": "1e-05"}),
        ("arena_decision_duration_seconds_count", {"game": "rolldice", "player_kind": "in_process"}),
        ("arena_bot_failures_total", {"game": "rolldice", "verdict": "illegal"}),
        ("arena_bot_failures_total", {"game": "rolldice", "verdict": "timeout"}),
        ("arena_bot_failures_total", {"game": "rolldice", "verdict": "crash"}),
    ]
    before = [value(name, **labels) for name, labels in names]
    metrics.observe_record(record(forfeit=True))
    metrics.observe_record(record(forfeit=False), count_start=False)
    delta = [round(value(name, **labels) - b, 9) for (name, labels), b in zip(names, before, strict=True)]
    assert delta == [
        1,  # started (the second record's start was counted by match_running)
        1,  # forfeit
        1,  # complete
        2,  # two match durations...
        0.5,  # ...of 0.25 s each
        0,  # neither under 0.1 s
        4,  # remote seat: 2 answered decisions per record (the substitute's is not the bot's)
        6,  # in-process seat: 3 per record
        0.246,  # 3 ms + 120 ms, twice
        2,  # the 3 ms answers
        2,  # the 4 µs answers
        6,
        2,  # one illegal per record
        2,
        0,
    ]


def test_match_running_counts_a_start_and_is_in_progress_only_inside():
    started = value("arena_matches_started_total", game="skyfive")
    with metrics.match_running("skyfive"):
        assert value("arena_matches_in_progress", game="skyfive") == 1
    assert value("arena_matches_in_progress", game="skyfive") == 0
    with pytest.raises(RuntimeError), metrics.match_running("skyfive"):
        raise RuntimeError("an infrastructure error mid-match")
    assert value("arena_matches_in_progress", game="skyfive") == 0
    assert value("arena_matches_started_total", game="skyfive") == started + 2


def test_a_process_that_serves_no_metrics_counts_nothing(monkeypatch: pytest.MonkeyPatch):
    # `arena worker --metrics-port 0`: nobody can read its counters, so it does not keep them.
    names = [
        ("arena_matches_started_total", {"game": "rolldice"}),
        ("arena_matches_in_progress", {"game": "rolldice"}),
        ("arena_matches_finished_total", {"game": "rolldice", "outcome": "complete"}),
        ("arena_decisions_total", {"game": "rolldice", "player_kind": "in_process"}),
        ("arena_bot_failures_total", {"game": "rolldice", "verdict": "illegal"}),
    ]
    before = [value(name, **labels) for name, labels in names]
    monkeypatch.setattr(metrics, "_counting", True)
    metrics.stop_counting()
    assert metrics._counting is False
    with metrics.match_running("rolldice"):
        assert value("arena_matches_in_progress", game="rolldice") == before[1]
    metrics.observe_record(record(forfeit=False))
    assert [value(name, **labels) for name, labels in names] == before


def test_labels_are_bounded_whatever_the_number_of_matches_bots_and_tournaments():
    allowed = {
        "game": set(games()),
        "player_kind": {"in_process", "remote"},
        "verdict": set(VERDICTS),
        "outcome": {"complete", "forfeit"},
        "status": {"complete", "stopped", "cancelled", "interrupted"},
    }
    assert (metrics.PLAYER_KINDS, metrics.OUTCOMES) == (("in_process", "remote"), ("complete", "forfeit"))
    assert set(metrics.STATUSES) == allowed["status"]

    def series() -> dict[str, set[tuple[tuple[str, str], ...]]]:
        out: dict[str, set[tuple[tuple[str, str], ...]]] = {}
        for family in REGISTRY.collect():
            if family.name.startswith("arena_"):
                for sample in family.samples:
                    out.setdefault(family.name, set()).add(tuple(sorted(sample.labels.items())))
        return out

    def play(n: int) -> None:
        for i in range(n):
            rec = record(forfeit=i % 2 == 0)
            rec.match_id = f"m{i}-{time.monotonic_ns()}"
            rec.seats[0]["bot"] = f"grpc://10.0.0.{i % 250}:{5000 + i}"
            metrics.observe_record(rec)

    play(5)
    first = series()
    play(40)
    assert series() == first, "new matches or bots added series"
    for name, label_sets in first.items():
        for labels in label_sets:
            for key, val in labels:
                if key in allowed:
                    assert val in allowed[key], (name, key, val)
                else:
                    # Bots label only the ratings; histogram buckets carry le; nothing else.
                    assert key == "le" or (key == "bot" and name.startswith("arena_rating")), (name, key)


def test_set_ratings_publishes_a_board_and_drops_bots_that_left_it():
    board = {"leaderboard": [{"bot": "a", "rating": 1600.5, "ci_low": 1550.0, "ci_high": 1650.0}]}
    board["leaderboard"].append({"bot": "b", "rating": 1399.5, "ci_low": 1350.0, "ci_high": 1450.0})
    metrics.set_ratings("vivo", board)
    assert value("arena_rating", game="vivo", bot="a") == 1600.5
    assert value("arena_rating_ci_low", game="vivo", bot="b") == 1350.0
    assert value("arena_rating_ci_high", game="vivo", bot="b") == 1450.0
    metrics.set_ratings("vivo", {"leaderboard": [{"bot": "b", "rating": 1500, "ci_low": 1400, "ci_high": 1600}]})
    text = generate_latest(REGISTRY).decode()
    assert 'arena_rating{bot="a",game="vivo"}' not in text
    assert metric(text, "arena_rating", game="vivo") == 1500


def test_store_collector_reports_the_store_down_instead_of_failing_the_scrape():
    collector = metrics.StoreCollector(Store(f"redis://127.0.0.1:{free_port()}/0"), "arena")
    families = list(collector.collect())
    assert [(f.name, [s.value for s in f.samples]) for f in families] == [("arena_store_up", [0])]


def test_a_store_that_hangs_is_reported_down_within_prometheus_scrape_timeout(tmp_path):
    """A Redis that stops answering without refusing (paused here): the scrape waited the
    store's 30 s, Prometheus gave up at 10 s and arena_store_up was never recorded (an outside
    probe). The collector's own client waits SCRAPE_STORE_SECONDS."""
    import signal

    with redis_server(tmp_path) as server:
        collector = metrics.StoreCollector(Store(server.url), "arena")
        assert [f.samples[0].value for f in collector.collect() if f.name == "arena_store_up"] == [1]
        assert server.process is not None
        server.process.send_signal(signal.SIGSTOP)
        try:
            began = time.monotonic()
            families = list(collector.collect())
            took = time.monotonic() - began
        finally:
            server.process.send_signal(signal.SIGCONT)
        assert [(f.name, [s.value for s in f.samples]) for f in families] == [("arena_store_up", [0])]
        assert took < 10  # Prometheus's default scrape timeout (the store's own 30 s before)
        assert [f.samples[0].value for f in collector.collect() if f.name == "arena_store_up"] == [1]


def test_store_collector_counts_the_worker_nodes_alive(tmp_path):
    """Without one, tournaments wait forever (monitoring/alerts.yml: ArenaNoWorkers)."""
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        collector = metrics.StoreCollector(store, "arena")

        def alive() -> float:
            (family,) = [f for f in collector.collect() if f.name == "arena_workers_alive"]
            return float(family.samples[0].value)

        assert alive() == 0
        store.worker_seen("node-a", 30)
        store.worker_seen("node-b", 1)
        assert alive() == 2
        time.sleep(2.1)  # node-b's time passes without a word from it
        assert alive() == 1


# -- the gRPC interceptor ------------------------------------------------------------------------


async def _fail(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    raise RuntimeError("a bug in the handler")


async def _invalid(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    context.set_code(grpc.StatusCode.INVALID_ARGUMENT)
    return b""


async def _slow(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    await asyncio.sleep(30)
    return b""


async def _numbers(request: bytes, context: grpc.aio.ServicerContext):
    for i in range(3):
        yield bytes([i])


async def _denied_midway(request: bytes, context: grpc.aio.ServicerContext):
    yield b"first"
    await context.abort(grpc.StatusCode.PERMISSION_DENIED, "no more")


async def _count(requests, context: grpc.aio.ServicerContext) -> bytes:
    return bytes([len([r async for r in requests])])


async def _echo(requests, context: grpc.aio.ServicerContext):
    async for r in requests:
        yield r


TEST_SERVICE = {
    "Fail": grpc.unary_unary_rpc_method_handler(_fail),
    "Invalid": grpc.unary_unary_rpc_method_handler(_invalid),
    "Slow": grpc.unary_unary_rpc_method_handler(_slow),
    "Numbers": grpc.unary_stream_rpc_method_handler(_numbers),
    "DeniedMidway": grpc.unary_stream_rpc_method_handler(_denied_midway),
    "Count": grpc.stream_unary_rpc_method_handler(_count),
    "Echo": grpc.stream_stream_rpc_method_handler(_echo),
}


async def _exercise_server() -> None:
    server = grpc.aio.server(interceptors=[metrics.MetricsInterceptor()])
    health_pb2_grpc.add_HealthServicer_to_server(grpc_health.aio.HealthServicer(), server)
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("test.Probe", TEST_SERVICE)])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            await health.Check(health_pb2.HealthCheckRequest(service=""))
            await health.Check(health_pb2.HealthCheckRequest(service=""))
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"))
            assert err.value.code() == grpc.StatusCode.NOT_FOUND
            watch = health.Watch(health_pb2.HealthCheckRequest(service=""))
            await watch.read()  # the current status; then the client hangs up
            watch.cancel()

            def probe(method: str, kind: str = "unary_unary"):
                return getattr(channel, kind)(f"/test.Probe/{method}")

            for method, code in (("Fail", "UNKNOWN"), ("Invalid", "INVALID_ARGUMENT")):
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await probe(method)(b"")
                assert err.value.code().name == code
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await probe("Slow")(b"", timeout=0.2)
            assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert [r async for r in probe("Numbers", "unary_stream")(b"")] == [b"\0", b"\1", b"\2"]
            call = probe("DeniedMidway", "unary_stream")(b"")
            with pytest.raises(grpc.aio.AioRpcError) as err:
                _ = [r async for r in call]
            assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert await probe("Count", "stream_unary")(iter([b"a", b"b"])) == b"\2"
            assert [r async for r in probe("Echo", "stream_stream")(iter([b"x", b"y"]))] == [b"x", b"y"]
        await asyncio.sleep(0.2)  # the server side of the cancelled calls ends after the client's
    finally:
        await server.stop(None)


def test_interceptor_counts_every_call_by_method_type_and_final_code():
    health = ("grpc.health.v1.Health", "unary")
    expected = {
        (*health, "Check", "OK"): 2,
        (*health, "Check", "NOT_FOUND"): 1,
        ("grpc.health.v1.Health", "server_stream", "Watch", "CANCELLED"): 1,
        ("test.Probe", "unary", "Fail", "UNKNOWN"): 1,
        ("test.Probe", "unary", "Invalid", "INVALID_ARGUMENT"): 1,
        ("test.Probe", "unary", "Slow", "DEADLINE_EXCEEDED"): 1,
        ("test.Probe", "server_stream", "Numbers", "OK"): 1,
        ("test.Probe", "server_stream", "DeniedMidway", "PERMISSION_DENIED"): 1,
        ("test.Probe", "client_stream", "Count", "OK"): 1,
        ("test.Probe", "bidi_stream", "Echo", "OK"): 1,
    }

    def handled() -> dict[tuple[str, ...], float]:
        counts: dict[tuple[str, ...], float] = {}
        for family in REGISTRY.collect():
            for s in family.samples:
                if s.name == "grpc_server_handled_total":
                    key = (
                        s.labels["grpc_service"],
                        s.labels["grpc_type"],
                        s.labels["grpc_method"],
                        s.labels["grpc_code"],
                    )
                    counts[key] = s.value
        return counts

    before = handled()
    started = value("grpc_server_started_total")
    timed = value("grpc_server_handling_seconds_count")
    asyncio.run(_exercise_server())
    after = handled()
    delta = {key: after[key] - before.get(key, 0) for key in after if after[key] != before.get(key, 0)}
    assert delta == expected
    assert value("grpc_server_started_total") - started == sum(expected.values())
    assert value("grpc_server_handling_seconds_count") - timed == sum(expected.values())
    assert value("grpc_server_handling_seconds_count", grpc_method="Slow") >= 1
    assert value("grpc_server_handling_seconds_bucket", grpc_method="Slow", le="0.1") == 0


class _Remaining:
    """A servicer context that only tells the time left of its deadline."""

    def __init__(self, remaining):
        self.remaining = remaining

    def time_remaining(self):
        return self.remaining


@pytest.mark.parametrize(
    ("remaining", "code"),
    [
        (None, "CANCELLED"),
        (5.0, "CANCELLED"),
        (0.2, "CANCELLED"),
        (0.03, "DEADLINE_EXCEEDED"),
        (-0.1, "DEADLINE_EXCEEDED"),
    ],
)
def test_a_call_cancelled_at_its_deadline_ended_by_the_deadline(remaining, code):
    # The client cancels when its deadline passes, a little before the server's (counted from
    # the request's arrival) runs out: seen in CI as CANCELLED with a few ms left.
    assert metrics.final_code(_Remaining(remaining), asyncio.CancelledError()).name == code


def test_interceptor_server_exposition_passes_promtool():
    asyncio.run(_exercise_server())
    metrics.set_ratings("rolldice", {"leaderboard": [{"bot": "a", "rating": 1500, "ci_low": 1450, "ci_high": 1550}]})
    server = metrics.start_metrics_server(0, addr="127.0.0.1")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/metrics", timeout=10) as response:
            text = response.read().decode()
    finally:
        server.shutdown()
    assert metric(text, "grpc_server_handled_total", grpc_method="Check", grpc_code="OK") >= 2
    promtool_check(text)


# -- local runs ----------------------------------------------------------------------------------


def test_a_local_run_counts_each_record_once_and_shows_progress_while_it_runs(tmp_path):
    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic", "heuristic:threshold=4"), players=2, repeats=3)
    followed = metrics.FollowedTournament("t-local", "rolldice", plays=True)
    seen: list[tuple[float, float, int, int]] = []

    def watch(progress):
        followed.update(progress)
        text = generate_latest(REGISTRY).decode()
        done = metric(text, "arena_tournament_matches_done", tournament="t-local")
        scheduled = metric(text, "arena_tournament_matches_scheduled", tournament="t-local")
        seen.append((done, scheduled, progress.done, progress.total))

    names = ["arena_matches_finished_total", "arena_matches_stored_total", "arena_decisions_total"]
    before = [value(n, game="rolldice") for n in names]
    tournaments = value("arena_tournaments_finished_total", game="rolldice", status="complete")
    followed.start()
    try:
        run_tournament(spec, "t-local", RunDirectory(tmp_path), LocalExecutor(make_player, 2), on_progress=watch)
    finally:
        followed.close("complete")
    records = RunDirectory(tmp_path).load_records()
    answered = sum(1 for r in records for d in r.decisions if d.by == "bot")
    delta = [value(n, game="rolldice") - b for n, b in zip(names, before, strict=True)]
    assert delta == [len(records), len(records), answered] and len(records) == len(schedule(spec)) == 18
    assert all(done == d and scheduled == t == 18 for done, scheduled, d, t in seen)
    assert [s[0] for s in seen] == list(range(19))
    assert value("arena_tournaments_finished_total", game="rolldice", status="complete") == tournaments + 1
    assert "t-local" not in generate_latest(REGISTRY).decode(), "the ended tournament's series remain"


def test_a_local_run_serves_metrics_promtool_accepts_and_logs_json(tmp_path):
    port = free_port()
    run = ["--game", "skyfive", "--repeats", "2000", "--workers", "1", "--out", str(tmp_path / "run"), "--json"]
    args = [sys.executable, "-m", "arena", "--log-level", "INFO", "tournament", *run, "--metrics-port", str(port)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:

        def scraped() -> str | None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
                    text = str(response.read().decode())
            except OSError:
                return None
            return text if metric(text, "arena_matches_finished_total") >= 10 else None

        text = wait_for(scraped, 60, "the local run's metrics")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    promtool_check(text)
    spec, tournament_id = RunDirectory(tmp_path / "run").read_spec()
    scheduled = len(schedule(spec))
    assert metric(text, "arena_tournament_matches_scheduled", tournament=tournament_id, game="skyfive") == scheduled
    assert metric(text, "arena_tournaments_active") == 1
    # Issue 10 24: the series exists (at 0 between matches in this one-process run).
    assert any(
        s.name == "arena_matches_in_progress" and s.labels.get("game") == "skyfive"
        for family in text_string_to_metric_families(text)
        for s in family.samples
    )
    assert proc.returncode == 130
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert {"tournament started", "tournament finished"} <= {line["message"] for line in lines}
    finished = next(line for line in lines if line["message"] == "tournament finished")
    assert finished["tournament"] == tournament_id and finished["status"] == "interrupted"
    assert set(finished) >= {"time", "level", "logger", "message"} and finished["level"] == "INFO"


# -- a worker node -------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def test_a_worker_node_serves_all_its_processes_and_forgets_dead_ones(tmp_path):
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=1) as (worker,):
        store = Store(server.url)
        directory = tmp_path / "metrics0"
        with bot_process(misbehaving("sleep", "--at", "0", "--sleep", "60")) as slow:
            s = TournamentSpec(game="rolldice", bots=(slow, "random"), players=2, clock={"decision": 120_000})
            executor = CeleryExecutor(server.url, "slow")
            assert executor.store.create_tournament("slow", s, 2, 2)
            for batch in batches([0, 1], 1):
                executor.app.send_task("arena.play_batch", args=["slow", batch])
            wait_for(lambda: metric(worker.scrape(), "arena_matches_in_progress") == 1, 60, "a match in progress")
            text = worker.scrape()
            # One batch plays (unacknowledged: prefetch 1), the other waits in the queue.
            assert metric(text, "arena_queue_batches_waiting") == 1
            assert metric(text, "arena_queue_batches_in_flight") == 1
            assert metric(text, "arena_tournaments_active") == 1
            assert metric(text, "arena_workers_alive") == 1  # this node says so every 10 s
            assert metric(text, "arena_tournament_matches_scheduled", tournament="slow", game="rolldice") == 2
            assert metric(text, "arena_tournament_matches_done", tournament="slow") == 0
            (child,) = _children(worker.process.pid)
            os.kill(child, signal.SIGKILL)  # no shutdown hook runs: the scrape must forget it
            wait_for(lambda: _children(worker.process.pid) not in ([], [child]), 30, "a new pool process")
            wait_for(lambda: metric(worker.scrape(), "arena_matches_in_progress") == 1, 60, "the batch replayed")
            assert not (directory / f"gauge_livesum_{child}.db").exists()
            assert metric(worker.scrape(), "arena_matches_in_progress") == 1
        # The bot is gone: its matches crash and the tournament completes.
        wait_for(lambda: store.tournament("slow")["status"] == "complete", 60, "completion")
        records = store.matches("slow")
        s2 = TournamentSpec(
            game="rolldice", bots=("random", "heuristic", "heuristic:threshold=4"), players=2, repeats=2
        )
        run_tournament(s2, "fast", RunDirectory(tmp_path / "fast"), CeleryExecutor(server.url, "fast"))
        wait_for(lambda: store.tournament("fast")["status"] == "complete", 60, "finalisation")
        records += store.matches("fast")
        text = worker.scrape()
        stored = metric(text, "arena_matches_stored_total")
        assert stored == len(records) == 2 + len(schedule(s2))
        # The killed process's match was counted as started, never finished; its replay was.
        assert metric(text, "arena_matches_started_total") == len(records) + 1
        assert metric(text, "arena_matches_finished_total") == len(records)
        assert metric(text, "arena_matches_in_progress") == 0
        assert metric(text, "arena_tournaments_finished_total", status="complete") == 2
        assert metric(text, "arena_tournaments_started_total") == 2  # not again by the killed batch's redelivery
        assert metric(text, "arena_tournaments_active") == 0
        assert metric(text, "arena_worker_batch_duration_seconds_count", game="rolldice") >= 3
        failures = sum(len(r.failures) for r in records)
        assert metric(text, "arena_bot_failures_total") == failures == 2  # both crashed once
        promtool_check(text)
    # A clean shutdown: every pool process said it was gone.
    assert not list(directory.glob("gauge_live*.db"))


def test_sigterm_to_a_local_tournament_leaves_no_pool_process_behind(tmp_path):
    """Issue 10 9e: SIGTERM stops a local run like Ctrl-C: its pool processes end with it."""
    out = tmp_path / "run"
    run = ["tournament", "--game", "skyfive", "--repeats", "3000", "--workers", "2", "--out", str(out), "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", *run], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT
    )
    try:
        matches = out / "matches.jsonl"
        wait_for(lambda: matches.exists() and matches.stat().st_size > 0, 120, "a first match")
        pool = _children(proc.pid)
        assert pool, "the run has no pool processes"
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, stderr = proc.communicate()
            tail = stderr.decode()[-4000:]
            raise AssertionError(f"the run did not stop within 60 s of SIGTERM; its stderr:\n{tail}") from None
    finally:
        proc.kill()
        proc.wait()

    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            return False
        return state != "Z"

    wait_for(lambda: not any(alive(pid) for pid in pool), 15, "the pool processes to end")
    assert proc.returncode == 130
    assert json.loads((out / "tournament.json").read_text())["status"] == "interrupted"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_whose_interrupt_was_swallowed_still_stops_the_run(signum):
    """The handler's KeyboardInterrupt can land where an exception is swallowed (a finalizer run
    by the garbage collector); the executor's check between records raises it again, so the run
    still stops. Ctrl-C too: a swallowed one left a distributed run's client waiting for ever."""
    from arena.executor import StopSignals, check_stop_signals

    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    outer = StopSignals()
    inner = StopSignals()  # the executor's, inside the CLI's
    try:
        assert outer.installed and inner.installed  # the main thread: else the signal would kill the test
        check_stop_signals()  # nothing received yet
        try:
            os.kill(os.getpid(), signum)
            time.sleep(5)  # the handler runs here and interrupts the sleep
            raise AssertionError("the signal did not interrupt")
        except KeyboardInterrupt:
            pass  # swallowed, as a finalizer would
        with pytest.raises(KeyboardInterrupt):
            check_stop_signals()
        inner.restore()  # the executor's run ended; the CLI's still knows
        with pytest.raises(KeyboardInterrupt):
            check_stop_signals()
    finally:
        inner.restore()
        outer.restore()
    assert {s: signal.getsignal(s) for s in before} == before
    check_stop_signals()  # none listens any more


def test_an_ignored_ctrl_c_stays_ignored():
    """A run started in the background by a shell ignores SIGINT; listening for stop signals
    must not make it stoppable by a Ctrl-C meant for the foreground."""
    from arena.executor import StopSignals

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        listening = StopSignals()
        try:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) == listening._interrupt
        finally:
            listening.restore()
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_follower_with_no_worker_stops_on_a_swallowed_ctrl_c():
    """A distributed run's client that no worker serves reads the store without end; a Ctrl-C
    swallowed where it landed is raised again before its next read."""
    from arena.executor import StopSignals
    from workers.executor import CeleryExecutor

    executor = CeleryExecutor(f"redis://127.0.0.1:{free_port()}/0", "t-nobody-plays")  # never reached
    listening = StopSignals()
    try:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
            raise AssertionError("Ctrl-C did not interrupt")
        except KeyboardInterrupt:
            pass  # swallowed
        with pytest.raises(KeyboardInterrupt):
            executor.follow({0, 1}, lambda *record: None)
    finally:
        listening.restore()


def test_metrics_bind_loopback_unless_told_otherwise(tmp_path):
    """Issue 10 9e: every process's /metrics binds 127.0.0.1 by default."""
    server = metrics.start_metrics_server(0)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.shutdown()
    from arena.cli import build_parser

    worker = build_parser().parse_args(["worker"])
    assert worker.metrics_host == "127.0.0.1"
    assert build_parser().parse_args(["serve"]).host == "127.0.0.1"


def test_a_second_worker_on_a_metrics_port_is_told_to_take_another_port(tmp_path):
    """An outside operator probe: the refusal spoke of PROMETHEUS_MULTIPROC_DIR, which the
    operator had never set; the port is what to change."""
    import contextlib
    import fcntl
    import shutil
    import tempfile

    from tests.cli_run import arena

    port = free_port()
    directory = Path(tempfile.gettempdir()) / f"arena-metrics-{port}"
    directory.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    with (
        contextlib.ExitStack() as cleanup,
        redis_server(tmp_path) as server,
        open(directory / "arena-worker.lock", "a") as held,
    ):
        cleanup.callback(shutil.rmtree, directory, ignore_errors=True)
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the first worker on that port holds it
        done = subprocess.run(
            [sys.executable, "-m", "arena", "worker", "--broker", server.url, "--metrics-port", str(port)],
            capture_output=True, text=True, timeout=120, cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == (
            f"arena worker: error: --metrics-port {port} is another running worker's on this machine (its metrics "
            f"directory {directory} is in use): give each worker its own --metrics-port"
        )
        chosen = tmp_path / "chosen"
        chosen.mkdir()
        with open(chosen / "arena-worker.lock", "a") as other:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            done = arena(
                "worker", "--broker", server.url, "--metrics-port", str(free_port()),
                env={"PROMETHEUS_MULTIPROC_DIR": str(chosen)},
            )  # fmt: skip
            assert done.returncode == 2
            assert f"metrics directory {chosen} (PROMETHEUS_MULTIPROC_DIR) is in use" in done.stderr
