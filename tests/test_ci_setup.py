"""The README's test command does its own set-up and never changes the system (issue 10, item 1)."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import NODE_BOT, ensure_node_packages, npm_lock
from tests.services import prometheus_tool

ROOT = Path(__file__).resolve().parent.parent


def test_node_packages_are_installed_by_the_tests_themselves(tmp_path):
    """A fresh copy of the Node bot (no node_modules) gets its locked packages from the fixture."""
    for name in ("package.json", "package-lock.json", "bot.js"):
        shutil.copy(NODE_BOT / name, tmp_path / name)
    ensure_node_packages(tmp_path)
    assert (tmp_path / "node_modules" / "@grpc" / "grpc-js" / "package.json").exists()
    stamp = (tmp_path / "node_modules" / ".package-lock.json").stat().st_mtime
    ensure_node_packages(tmp_path)  # already there: nothing reinstalled
    assert (tmp_path / "node_modules" / ".package-lock.json").stat().st_mtime == stamp


def test_worker_processes_installing_the_node_packages_take_turns(tmp_path):
    """Each of the suite's worker processes runs the session fixture, and two ``npm ci`` at once
    in one directory break each other (ENOTEMPTY, seen in CI): an install waits while another
    holds the directory's lock, then finds the packages there or installs them."""
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("node and npm are not installed: `apt-get install nodejs npm` (.ci/run does)")
    for name in ("package.json", "package-lock.json", "bot.js"):
        shutil.copy(NODE_BOT / name, tmp_path / name)
    code = (
        "from pathlib import Path; from tests.conftest import ensure_node_packages; "
        f"ensure_node_packages(Path({str(tmp_path)!r}))"
    )
    with npm_lock(tmp_path).open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another worker process is installing
        waiting = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stderr=subprocess.PIPE, text=True)
        time.sleep(2.0)
        assert waiting.poll() is None and not (tmp_path / "node_modules").exists()
    _, err = waiting.communicate(timeout=600)
    assert waiting.returncode == 0, err
    assert (tmp_path / "node_modules" / "@grpc" / "grpc-js" / "package.json").exists()


def test_missing_prometheus_skips_without_installing_anything(tmp_path, monkeypatch):
    """No apt-get from inside pytest: a missing tool is a skip that says how to get it."""
    marker = tmp_path / "apt-get-ran"
    fake = tmp_path / "apt-get"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/nonexistent")
    with pytest.raises(pytest.skip.Exception, match=r"apt-get install prometheus.*\.ci/run"):
        prometheus_tool("promtool")
    assert not marker.exists(), "the test suite ran apt-get"


def test_ci_installs_what_the_tests_skip_without():
    script = (ROOT / ".ci" / "run").read_text()
    installs = [line for line in script.splitlines() if re.search(r"apt-get\b.* install -y -qq", line)]
    for package in ("redis-server", "prometheus", "nodejs npm", "chromium chromium-driver", "bubblewrap"):
        # on an install line itself: a name in a `command -v` check or a comment installs nothing
        assert any(re.search(rf"install -y -qq( --\S+)* {package}( |$)", line) for line in installs), package
    subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")], check=True)  # still a script bash can run
    # The checks run before the tests, so lint and types never rot.
    assert script.index("ruff check") < script.index("python -m pytest")
    assert script.index("mypy") < script.index("python -m pytest")


def test_the_checks_are_pinned_with_every_stub_they_need():
    """mypy passes in a fresh venv only if its version and every stub package are pinned: the
    unpinned types-grpcio dropped the grpc_health/grpc_reflection stubs (issue 10, item 2)."""
    import re
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    pins = dict(re.fullmatch(r"([A-Za-z0-9_.-]+)(.*)", spec).groups() for spec in extra)  # type: ignore[union-attr]
    for tool in ("ruff", "mypy", *(name for name in pins if name.startswith("types-"))):
        assert pins.get(tool, "").startswith("=="), f"{tool} is not pinned: {pins.get(tool)!r}"
    imported = set()
    for path in [*ROOT.glob("arena/**/*.py"), *ROOT.glob("referee/**/*.py"), *ROOT.glob("workers/**/*.py")]:
        imported |= set(re.findall(r"^\s*(?:from|import) (grpc_[a-z]+)", path.read_text(), re.M))
    stubs = {
        "grpc_health": "types-grpcio-health-checking",
        "grpc_reflection": "types-grpcio-reflection",
        "grpc_status": "types-grpcio-status",
        "grpc_tools": None,
    }
    for module in sorted(imported):
        assert module in stubs, f"{module} is imported: add its stub package to the test extra"
        if stubs[module]:
            assert stubs[module] in pins, f"{module} is imported but {stubs[module]} is not in the test extra"


def test_the_projects_modules_are_compiled_before_the_tests_start_processes():
    """Each process the suite starts reads our modules' bytecode instead of compiling them again
    (``PYTHONDONTWRITEBYTECODE`` stops every process from writing it): ``pytest_configure``."""
    import importlib.util

    from tests.conftest import PACKAGES

    for package in PACKAGES:
        sources = sorted((ROOT / package).rglob("*.py"))
        assert sources
        missing = [
            str(s.relative_to(ROOT)) for s in sources if not Path(importlib.util.cache_from_source(str(s))).exists()
        ]
        assert missing == []


def test_every_timing_group_names_real_modules_once():
    from tests.conftest import TIMING_GROUPS

    modules = [module for group in TIMING_GROUPS.values() for module in group]
    assert len(modules) == len(set(modules))  # one group a module
    assert [m for m in modules if not (ROOT / "tests" / f"{m}.py").exists()] == []
