"""Dependency direction from DESIGN.md: the domain imports no edge, worker or bot code."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_DOMAIN = ("referee", "workers", "bots", "grpc", "celery", "redis", "prometheus_client")


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_domain_imports_no_edge_code():
    # arena.cli is the composition root (DESIGN.md: composition happens where the process starts);
    # generated *_pb2_grpc modules are the protocol's service stubs, used only by referee and bots.
    offenders = {}
    for path in (ROOT / "arena").rglob("*.py"):
        rel = path.relative_to(ROOT)
        if rel.parts[:2] == ("arena", "cli") or path.name.endswith("_pb2_grpc.py"):
            continue
        bad = imports_of(path) & set(FORBIDDEN_IN_DOMAIN)
        if bad:
            offenders[str(rel)] = sorted(bad)
    assert not offenders, offenders


def test_bots_import_no_services():
    for path in (ROOT / "bots").rglob("*.py"):
        if "examples" in path.parts:
            continue
        assert not imports_of(path) & {"workers", "celery", "redis"}, path


def cli_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("arena.cli"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("arena.cli"):
            found.add(node.module)
    return found


def test_nothing_below_the_cli_imports_the_cli():
    """Issue 10 25: the CLI composes; workers, the referee, bots and the domain use what lies
    below it (players: referee.players, logging: arena.logs), never the CLI itself."""
    offenders = {}
    for package in ("arena", "referee", "workers", "bots"):
        for path in (ROOT / package).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if rel.parts[:2] == ("arena", "cli") or rel == Path("arena/__main__.py"):  # `python -m arena`
                continue
            found = cli_imports(path)
            if found:
                offenders[str(rel)] = sorted(found)
    assert not offenders, offenders
