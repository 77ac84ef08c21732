"""A real Prometheus scraping a real worker node (and the referee service) through distributed
tournaments with a misbehaving remote bot; the Grafana dashboard checked against what the code
exports."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.metrics import MetricWrapperBase

from arena.rundir import RunDirectory
from arena.runner import VERDICTS
from arena.tournament import TournamentSpec, schedule
from arena.tournament_run import run_tournament
from referee import metrics
from referee.store import Store
from tests.remote_helpers import bot_process, misbehaving
from tests.services import ROOT, free_port, prometheus_tool, redis_server, service, wait_for, workers
from workers.executor import CeleryExecutor

pytestmark = pytest.mark.timeout(300)
DASHBOARD = ROOT / "monitoring" / "grafana" / "dashboards" / "arena.json"
# Exported by the referee service only (checked in the service test below).
SERVICE_ONLY = {"arena_rating", "arena_rating_ci_low", "arena_rating_ci_high"}


def exported_names() -> set[str]:
    """Every sample name the code can export: the metrics module's and its collectors'."""
    families = [m.describe()[0] for m in vars(metrics).values() if isinstance(m, MetricWrapperBase)]
    families += metrics.StoreCollector(Store("redis://unused"), "arena").describe()
    suffixes = {"counter": ["_total"], "histogram": ["_bucket", "_sum", "_count"]}
    return {f.name + suffix for f in families for suffix in suffixes.get(f.type, [""])}


def dashboard_expressions() -> list[str]:
    board = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in board["panels"] for t in p.get("targets", [])]
    exprs += [v["query"]["query"] for v in board["templating"]["list"]]
    assert exprs
    return exprs


def metric_names(expr: str) -> set[str]:
    return set(re.findall(r"\b(?:arena|grpc_server)_[a-z_]+\b", expr))


def concrete(expr: str, game: str) -> str:
    """A dashboard expression as Grafana would send it (its variables filled in)."""
    return expr.replace("$__rate_interval", "1m").replace("$game", game)


def test_the_dashboard_uses_only_metrics_the_code_exports():
    board = json.loads(DASHBOARD.read_text())
    used = set().union(*(metric_names(e) for e in dashboard_expressions()))
    assert used and used <= exported_names(), used - exported_names()
    (variable,) = board["templating"]["list"]
    assert variable["name"] == "game" and variable["query"]["query"] == "label_values(arena_rating, game)"
    datasource = (ROOT / "monitoring/grafana/provisioning/datasources/prometheus.yml").read_text()
    uids = {p["datasource"]["uid"] for p in board["panels"] if p["type"] != "row"}
    assert uids == {"prometheus"} and "uid: prometheus" in datasource
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))


def test_the_compose_prometheus_config_is_valid():
    config = ROOT / "monitoring" / "prometheus.yml"
    out = subprocess.run([prometheus_tool("promtool"), "check", "config", str(config)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


ALERTS = ROOT / "monitoring" / "alerts.yml"


def test_the_alert_rules_are_valid_and_pass_their_unit_tests():
    """promtool evaluates each alert over the series of monitoring/alerts.test.yml: which fire
    when, with which labels and text, and which stay quiet."""
    tool = prometheus_tool("promtool")
    checked = subprocess.run([tool, "check", "rules", str(ALERTS)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = subprocess.run(
        [tool, "test", "rules", "alerts.test.yml"], cwd=ALERTS.parent, capture_output=True, text=True, timeout=120
    )
    assert tested.returncode == 0 and "SUCCESS" in tested.stdout, tested.stdout + tested.stderr
    tests = (ALERTS.parent / "alerts.test.yml").read_text()
    alerts = re.findall(r"- alert: (\w+)", ALERTS.read_text())
    assert len(alerts) == 7 and all(f"alertname: {a}\n        exp_alerts:" in tests for a in alerts)


def test_the_commands_the_alerts_suggest_parse_with_the_cli():
    """One said `arena worker --redis URL`, a flag the worker does not take (an outside probe)."""
    import shlex

    from arena.cli import build_parser

    commands = re.findall(r"`arena ([^`]+)`", ALERTS.read_text())
    assert len(commands) >= 2
    for command in commands:
        filled = command.replace("URL", "redis://h:1/0").replace("HOST:PORT", "h:1").replace("ID", "t1")
        args = build_parser().parse_args(shlex.split(filled))
        assert callable(args.run), command


def test_the_alerts_use_only_metrics_the_code_exports():
    used = metric_names(ALERTS.read_text())
    assert {"arena_workers_alive", "arena_store_up"} <= used and used <= exported_names(), used - exported_names()


class Prometheus:
    def __init__(self, url: str) -> None:
        self.url = url

    def get(self, path: str, **params: str) -> Any:
        query = urllib.parse.urlencode(params)
        with urllib.request.urlopen(f"{self.url}{path}?{query}", timeout=10) as response:
            body = json.loads(response.read())
        assert body["status"] == "success", body
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        return list(self.get("/api/v1/query", query=expr)["result"])

    def scalar(self, expr: str) -> float | None:
        result = self.query(expr)
        return float(result[0]["value"][1]) if result else None


@contextmanager
def prometheus(
    tmp: Path, targets: list[str], referee: str | None = None, *, alerts: bool = False
) -> Iterator[Prometheus]:
    """A real Prometheus on a free port, scraping worker ``targets`` (and the ``referee``
    service) every second; with ``alerts``, evaluating monitoring/alerts.yml every second."""
    port = free_port()
    config = tmp / "prometheus.yml"
    jobs = [{"job_name": "worker", "static_configs": [{"targets": targets}]}]
    if referee:
        jobs.append({"job_name": "referee", "static_configs": [{"targets": [referee]}]})
    settings: dict[str, Any] = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "scrape_configs": jobs,
    }
    if alerts:
        settings["rule_files"] = [str(ALERTS)]
    config.write_text(json.dumps(settings))  # JSON is YAML
    args = [
        prometheus_tool("prometheus"),
        f"--config.file={config}",
        f"--storage.tsdb.path={tmp / 'tsdb'}",
        f"--web.listen-address=127.0.0.1:{port}",
    ]
    log = (tmp / "prometheus.log").open("w")
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    server = Prometheus(f"http://127.0.0.1:{port}")

    def ready() -> bool:
        try:
            with urllib.request.urlopen(f"{server.url}/-/ready", timeout=2) as response:
                return response.status == 200
        except OSError:
            return proc.poll() is not None

    try:
        wait_for(ready, 60, "prometheus to be ready")
        assert proc.poll() is None, (tmp / "prometheus.log").read_text()
        yield server
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def test_prometheus_scrapes_a_worker_node_through_a_distributed_tournament(tmp_path):
    with (
        redis_server(tmp_path) as redis,
        workers(redis.url, tmp_path, count=1, concurrency=2) as (worker,),
        bot_process(misbehaving("illegal", "--at", "1")) as bad,
        prometheus(tmp_path, [f"127.0.0.1:{worker.metrics_port}"]) as prom,
    ):
        wait_for(lambda: prom.scalar('up{job="worker"}') == 1, 30, "the first scrape")
        s = TournamentSpec(game="rolldice", bots=(bad, "random", "heuristic"), players=2, repeats=2)
        run_tournament(s, "obs", RunDirectory(tmp_path / "run"), CeleryExecutor(redis.url, "obs"))
        store = Store(redis.url)
        wait_for(lambda: store.tournament("obs")["status"] == "complete", 60, "finalisation")
        records = store.matches("obs")
        assert len(records) == len(schedule(s)) == 12
        wait_for(
            lambda: prom.scalar('sum(arena_tournaments_finished_total{status="complete"})') == 1,
            30,
            "a scrape after finalisation",
        )
        assert prom.scalar("sum(arena_matches_finished_total)") == len(records)
        assert prom.scalar("sum(arena_matches_stored_total)") == len(records)
        forfeits = sum(1 for r in records if any(r.forfeited))
        assert prom.scalar('sum(arena_matches_finished_total{outcome="forfeit"})') == forfeits
        failures = Counter(f.verdict for r in records for f in r.failures)
        by_verdict = {
            item["metric"]["verdict"]: float(item["value"][1])
            for item in prom.query("sum by (verdict) (arena_bot_failures_total)")
        }
        assert set(by_verdict) == set(VERDICTS)  # every verdict's series exists from the start, at 0
        assert {v: n for v, n in by_verdict.items() if n} == failures == {"illegal": 8}  # the bot's 8 matches
        answered = Counter(
            "remote" if r.seats[d.seat]["bot"] == bad else "in_process"
            for r in records
            for d in r.decisions
            if d.by == "bot"
        )
        for kind, count in answered.items():
            assert prom.scalar(f'sum(arena_decisions_total{{player_kind="{kind}"}})') == count

        # Every dashboard expression is valid PromQL; those of worker metrics find data (a rate
        # once its series has two samples in the window).
        present = set(prom.get("/api/v1/label/__name__/values"))
        for expr in dashboard_expressions():
            if expr.startswith("label_values"):
                continue
            query = concrete(expr, "rolldice")
            prom.query(query)
            if all(from_workers(name) for name in metric_names(expr)):
                assert metric_names(expr) <= present, expr
                wait_for(lambda q=query: prom.query(q), 10, f"data for {expr}")


def from_workers(name: str) -> bool:
    """Whether a worker node exports this metric after a tournament (the referee service's are
    the lead's to check; a tournament's progress series end with it: see test_metrics)."""
    return not (name in SERVICE_ONLY or name.startswith(("grpc_", "arena_tournament_matches")))


def test_a_real_prometheus_alerts_on_tournaments_waiting_with_no_worker(tmp_path):
    """The alert rules against what a real service exports: quiet with nothing waiting, pending
    once a tournament waits with no worker alive, quiet again once it is cancelled."""
    import grpc

    from arena.v1 import arena_pb2, arena_pb2_grpc
    from referee.auth import create_owner

    metrics_port = free_port()
    with (
        redis_server(tmp_path) as redis,
        service(redis.url, tmp_path, "--metrics-port", str(metrics_port)) as srv,
        prometheus(tmp_path, [], referee=f"127.0.0.1:{metrics_port}", alerts=True) as prom,
    ):

        def alerts() -> dict[str, str]:
            return {a["labels"]["alertname"]: a["state"] for a in prom.get("/api/v1/alerts")["alerts"]}

        wait_for(lambda: prom.scalar('arena_workers_alive{job="referee"}') == 0, 30, "the first scrape")
        wait_for(lambda: prom.get("/api/v1/rules")["groups"][0]["rules"][0].get("lastEvaluation"), 30, "the rules")
        assert alerts() == {}
        stub = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(srv.address))
        metadata = (("authorization", f"Bearer {create_owner(Store(redis.url), 'ops', operator=True)}"),)
        created = stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="rolldice", bots=["random", "heuristic"]), metadata=metadata
        )
        # Firing after 2 minutes; a tournament that has stored no match is watched too (75 minutes).
        pending = {"ArenaNoWorkers": "pending", "ArenaTournamentStalled": "pending"}
        wait_for(lambda: alerts() == pending, 30, "the alerts")
        stub.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=created.id), metadata=metadata)
        wait_for(lambda: alerts() == {}, 30, "the alerts to clear")


def test_prometheus_scrapes_the_referee_service_and_a_worker(tmp_path):
    import grpc

    from arena.v1 import arena_pb2, arena_pb2_grpc
    from referee.auth import create_owner

    metrics_port = free_port()
    with (
        redis_server(tmp_path) as redis,
        workers(redis.url, tmp_path, count=1, concurrency=2) as (worker,),
        service(redis.url, tmp_path, "--metrics-port", str(metrics_port)) as srv,
        bot_process(misbehaving("illegal", "--at", "1")) as bad,
        prometheus(tmp_path, [f"127.0.0.1:{worker.metrics_port}"], referee=f"127.0.0.1:{metrics_port}") as prom,
    ):
        wait_for(lambda: prom.scalar('sum(up{job=~"worker|referee"})') == 2, 30, "the first scrapes")
        store = Store(redis.url)
        stub = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(srv.address))
        metadata = (("authorization", f"Bearer {create_owner(store, 'ops')}"),)
        stub.RegisterBot(
            arena_pb2.RegisterBotRequest(name="flaky", games=["rolldice"], endpoint=bad), metadata=metadata
        )
        request = arena_pb2.CreateTournamentRequest(game="rolldice", bots=["flaky", "random", "heuristic"], repeats=2)
        created = stub.CreateTournament(request, metadata=metadata)
        updates = list(
            stub.WatchTournament(arena_pb2.WatchTournamentRequest(tournament_id=created.id), metadata=metadata)
        )
        assert updates[-1].tournament.status == "complete"
        with pytest.raises(grpc.RpcError):
            stub.ListGames(arena_pb2.ListGamesRequest())  # no token: UNAUTHENTICATED
        records = store.matches(created.id)
        board = stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="rolldice"), metadata=metadata)
        assert len(records) == 12 and {r.bot for r in board.rows} == {"flaky", "random", "heuristic"}

        def gauges(name: str) -> dict[str, float]:
            return {i["metric"]["bot"]: float(i["value"][1]) for i in prom.query(f'{name}{{game="rolldice"}}')}

        wait_for(lambda: len(gauges("arena_rating")) == 3, 30, "the rating gauges")
        assert gauges("arena_rating") == {r.bot: r.rating for r in board.rows}
        assert gauges("arena_rating_ci_low") == {r.bot: r.ci_low for r in board.rows}
        assert gauges("arena_rating_ci_high") == {r.bot: r.ci_high for r in board.rows}
        # The worker is scraped on its own (once a second): its counters can be a scrape behind
        # the service's gauges when the tournament ends quickly.
        wait_for(lambda: prom.scalar("sum(arena_matches_finished_total)") == 12, 30, "the worker's match count")
        failures = sum(len(r.failures) for r in records)
        assert failures == 8
        wait_for(lambda: prom.scalar("sum(arena_bot_failures_total)") == failures, 30, "the worker's failures")

        def handled(method: str, code: str) -> float | None:
            return prom.scalar(f'sum(grpc_server_handled_total{{grpc_method="{method}",grpc_code="{code}"}})')

        wait_for(lambda: handled("ListGames", "UNAUTHENTICATED") == 1, 30, "the gRPC metrics")
        assert handled("CreateTournament", "OK") == 1 and handled("WatchTournament", "OK") == 1
        # A rate needs two scrapes of the histogram (one a second): the calls may be one scrape old.
        p99 = "histogram_quantile(0.99, sum by (le) (rate(grpc_server_handling_seconds_bucket[1m])))"
        wait_for(lambda: prom.scalar(p99), 30, "a p99 of the gRPC handling time")


def test_a_local_run_keeps_its_metrics_out_of_a_worker_nodes_directory(tmp_path):
    """PROMETHEUS_MULTIPROC_DIR, exported in a shell to choose a worker node's directory, made a
    local run with --metrics-port (and arena serve) write its counts there and serve the node's
    as its own: every count doubled, and its series outlived it (an outside metrics probe)."""
    from tests.cli_run import arena

    node = tmp_path / "node-metrics"
    node.mkdir()
    ran = arena(
        "tournament", "--game", "rolldice", "--repeats", "3", "--seed", "2", "--metrics-port", str(free_port()),
        "--out", str(tmp_path / "run"), env={"PROMETHEUS_MULTIPROC_DIR": str(node)},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert list(node.iterdir()) == []
