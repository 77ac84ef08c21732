"""docker-compose.yml and the Dockerfile, checked against the code (Docker itself is not
available on these machines): every command parses with the real CLI, ports match the CLI's
defaults, every build path exists, Redis is durable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from arena.cli import build_parser
from arena.cli.common import DEFAULT_REDIS

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]


def arena_services():
    return {name: s for name, s in SERVICES.items() if "build" in s}


def test_every_build_path_has_a_dockerfile_whose_copies_exist():
    for name, service in arena_services().items():
        context = ROOT / (service["build"] if isinstance(service["build"], str) else service["build"]["context"])
        dockerfile = context / "Dockerfile"
        assert dockerfile.exists(), name
        for source in re.findall(r"^COPY (\S+)", dockerfile.read_text(), flags=re.M):
            assert (context / source).exists(), f"Dockerfile copies missing {source}"
    assert 'ENTRYPOINT ["arena"]' in (ROOT / "Dockerfile").read_text()


@pytest.mark.parametrize("name", sorted(arena_services()))
def test_every_arena_command_parses_with_the_cli(name):
    command = SERVICES[name].get("command")
    if command is None:
        return  # a tools container: commands come from `docker compose run`
    args = build_parser().parse_args(command)
    assert callable(args.run)


def test_workers_use_the_compose_redis_on_the_default_port():
    redis_port = SERVICES["redis"]["ports"][0].split(":")[-1]
    assert DEFAULT_REDIS.rsplit(":", 1)[1].split("/")[0] == redis_port
    worker = build_parser().parse_args(SERVICES["worker"]["command"])
    assert worker.broker == f"redis://redis:{redis_port}/0"
    assert SERVICES["worker"]["depends_on"]["redis"]["condition"] == "service_healthy"


def test_redis_is_durable_and_never_evicts():
    command = SERVICES["redis"]["command"]
    assert command[0] == "redis-server"
    pairs = dict(zip(command[1::2], command[2::2], strict=True))
    assert pairs == {"--appendonly": "yes", "--appendfsync": "everysec", "--maxmemory-policy": "noeviction"}
    assert any(v.endswith(":/data") for v in SERVICES["redis"]["volumes"])
    assert "healthcheck" in SERVICES["redis"]


def test_every_service_depending_on_another_names_a_real_service():
    for name, service in SERVICES.items():
        for dependency in service.get("depends_on", {}):
            assert dependency in SERVICES, (name, dependency)


# -- monitoring -----------------------------------------------------------------------------------

PROMETHEUS = yaml.safe_load((ROOT / "monitoring" / "prometheus.yml").read_text())
REFEREE_METRICS_PORT = 9100  # `arena serve --metrics-port` default, scraped as referee:9100


def bind_mounts(service: str) -> dict[str, str]:
    """Host path (relative to the repository) -> container path, for ./ mounts."""
    mounts = {}
    for volume in SERVICES[service].get("volumes", []):
        source, target = volume.split(":")[:2]
        if source.startswith("./"):
            mounts[source[2:]] = target
    return mounts


def command_option(command: list[str], option: str) -> str:
    return command[command.index(option) + 1]


@pytest.mark.parametrize("name", ["prometheus", "grafana"])
def test_monitoring_services_mount_files_that_exist_and_have_health_checks(name):
    mounts = bind_mounts(name)
    assert mounts
    for source in mounts:
        assert (ROOT / source).exists(), f"{name} mounts missing {source}"
    assert SERVICES[name]["healthcheck"]["test"][0] == "CMD"


def test_monitoring_ports_and_dependencies():
    assert SERVICES["prometheus"]["ports"] == ["9090:9090"]
    assert SERVICES["grafana"]["ports"] == ["3000:3000"]
    assert SERVICES["grafana"]["depends_on"]["prometheus"]["condition"] == "service_healthy"
    assert bind_mounts("prometheus")["monitoring/prometheus.yml"] == "/etc/prometheus/prometheus.yml"
    # Rule files are read relative to the config: each mounted beside it.
    for rules in PROMETHEUS["rule_files"]:
        assert bind_mounts("prometheus")[f"monitoring/{rules}"] == f"/etc/prometheus/{rules}"


def test_prometheus_scrapes_every_worker_on_the_port_the_cli_serves():
    from arena.cli.worker_cmd import DEFAULT_METRICS_PORT

    jobs = {job["job_name"]: job for job in PROMETHEUS["scrape_configs"]}
    (workers,) = jobs["worker"]["dns_sd_configs"]
    assert workers["names"] == ["worker"] and workers["type"] == "A"  # every replica of the service
    command = SERVICES["worker"]["command"]
    assert workers["port"] == int(command_option(command, "--metrics-port")) == DEFAULT_METRICS_PORT
    assert build_parser().parse_args(command).metrics_port == DEFAULT_METRICS_PORT


def test_prometheus_scrapes_the_referee_service_on_its_metrics_port():
    jobs = {job["job_name"]: job for job in PROMETHEUS["scrape_configs"]}
    (static,) = jobs["referee"]["static_configs"]
    assert static["targets"] == [f"referee:{REFEREE_METRICS_PORT}"]
    serve = build_parser().parse_args(SERVICES["referee"]["command"])
    assert serve.metrics_port == REFEREE_METRICS_PORT


def test_grafana_provisions_the_prometheus_data_source_and_the_dashboards_directory():
    mounts = bind_mounts("grafana")
    provisioning = ROOT / "monitoring/grafana/provisioning"
    assert mounts["monitoring/grafana/provisioning"] == "/etc/grafana/provisioning"
    (source,) = yaml.safe_load((provisioning / "datasources/prometheus.yml").read_text())["datasources"]
    port = SERVICES["prometheus"]["ports"][0].split(":")[1]
    assert source["type"] == "prometheus" and source["url"] == f"http://prometheus:{port}"
    (provider,) = yaml.safe_load((provisioning / "dashboards/arena.yml").read_text())["providers"]
    assert provider["options"]["path"] == mounts["monitoring/grafana/dashboards"]
    home = SERVICES["grafana"]["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home == mounts["monitoring/grafana/dashboards"] + "/arena.json"
    assert (ROOT / "monitoring/grafana/dashboards/arena.json").exists()


def test_the_referee_service_serves_on_the_cli_defaults_and_waits_for_redis():
    from arena.ports import DEFAULT_HTTP_PORT, DEFAULT_METRICS_PORT, DEFAULT_PORT
    from referee.server import ServerConfig

    assert ServerConfig.port == DEFAULT_PORT

    referee = SERVICES["referee"]
    serve = build_parser().parse_args(referee["command"])
    assert (serve.port, serve.metrics_port, serve.http_port) == (DEFAULT_PORT, DEFAULT_METRICS_PORT, DEFAULT_HTTP_PORT)
    assert serve.host == "0.0.0.0" and serve.redis == "redis://redis:6379/0"
    assert set(referee["ports"]) == {f"{p}:{p}" for p in (DEFAULT_PORT, DEFAULT_METRICS_PORT, DEFAULT_HTTP_PORT)}
    assert referee["depends_on"]["redis"]["condition"] == "service_healthy"
    probe = build_parser().parse_args(referee["healthcheck"]["test"][2:])  # ["CMD", "arena", ...]
    assert probe.server == f"localhost:{DEFAULT_PORT}"


def test_two_sample_bots_serve_on_the_ports_their_healthchecks_probe():
    bots = {name: s for name, s in SERVICES.items() if name.startswith("bot-")}
    assert len(bots) == 2
    for service in bots.values():
        args = build_parser().parse_args(service["command"])
        assert args.command == "bot" and args.host == "0.0.0.0"
        assert str(args.port) in service["healthcheck"]["test"][-1]


def test_redis_is_published_on_the_hosts_loopback_only():
    """It holds the owners and their token hashes and has no password: another machine that
    reached it could make itself an operator."""
    assert [port.rsplit(":", 2)[0] for port in SERVICES["redis"]["ports"]] == ["127.0.0.1"]


def test_the_cli_keeps_its_runs_where_its_user_may_write_them():
    """``arena tournament`` writes ./arena-runs: the image's working directory is its user's home
    (the app's own /app is root's), mounted as a volume so results outlive ``run --rm``."""
    dockerfile = (ROOT / "Dockerfile").read_text().splitlines()
    user = next(i for i, line in enumerate(dockerfile) if line.startswith("USER "))
    assert dockerfile[user] == "USER arena"
    workdirs = [line.split()[1] for line in dockerfile[user:] if line.startswith("WORKDIR ")]
    assert workdirs == ["/home/arena"]
    assert "arena-runs:/home/arena/arena-runs" in SERVICES["cli"]["volumes"]
    assert "arena-runs" in COMPOSE["volumes"]


def test_workers_get_time_to_finish_a_batch_when_stopped():
    grace = SERVICES["worker"]["stop_grace_period"]
    assert grace.endswith("s") and int(grace[:-1]) >= 30
