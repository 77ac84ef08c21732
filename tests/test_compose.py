"""docker-compose.yml and the Dockerfile, checked against the code (Docker itself is not
available on these machines): every command parses with the real CLI, ports match the CLI's
defaults, every build path exists, Redis is durable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from arena.cli import build_parser
from arena.cli.tournament_cmd import DEFAULT_BROKER

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
    redis_port = SERVICES["redis"]["ports"][0].split(":")[1]
    assert DEFAULT_BROKER.rsplit(":", 1)[1].split("/")[0] == redis_port
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
