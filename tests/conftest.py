"""Session fixtures that prepare what tests need from outside Python, so the README's test
command works on a fresh clone without further steps."""

from __future__ import annotations

import compileall
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

NODE_BOT = Path(__file__).resolve().parent.parent / "bots" / "examples" / "node"


def ensure_node_packages(directory: Path) -> None:
    """Install ``directory``'s locked npm packages (``npm ci``) unless they are there already.

    Skips the calling test, saying why, only when ``node`` or ``npm`` is missing (``.ci/run``
    installs both); an ``npm ci`` that fails is a test failure with npm's own message."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed: `apt-get install nodejs npm` (.ci/run does) to run this test")
    lock = directory / "package-lock.json"
    installed = directory / "node_modules" / ".package-lock.json"  # npm writes it last
    # One install at a time per directory: the suite's worker processes each ask (a session
    # fixture is per process), and two `npm ci` in one directory break each other.
    with npm_lock(directory).open("w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if installed.exists() and installed.stat().st_mtime >= lock.stat().st_mtime:
            return
        command = ["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline", "--prefix", str(directory)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.fail(f"`{' '.join(command)}` failed:\n{done.stdout}{done.stderr}")


def npm_lock(directory: Path) -> Path:
    """The lock file that :func:`ensure_node_packages` holds while it installs ``directory``."""
    key = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"arena-npm-{key}.lock"


@pytest.fixture(scope="session")
def node_packages() -> Path:
    """The Node.js example bot's directory, with its npm packages installed."""
    ensure_node_packages(NODE_BOT)
    return NODE_BOT


CHROMIUM = ("chromium", "chromedriver")


def ensure_chromium() -> tuple[str, str]:
    """Debian's ``chromium`` and ``chromium-driver`` (the browser tests). The suite never runs
    apt-get itself (issue 10, item 1): ``.ci/run`` installs them; without them the browser tests
    are skipped, saying how to get them."""
    if not all(shutil.which(tool) for tool in CHROMIUM):
        pytest.skip(
            "chromium and chromedriver are not installed: `apt-get install chromium chromium-driver` (.ci/run does)"
        )
    browser, driver = (shutil.which(tool) for tool in CHROMIUM)
    assert browser and driver
    return browser, driver


@pytest.fixture(scope="session")
def chromium() -> tuple[str, str]:
    """Paths of the browser and its driver."""
    return ensure_chromium()


@pytest.fixture(scope="session")
def bubblewrap() -> None:
    """bubblewrap installed and able to run here (issue 17's sandbox). The suite never runs
    apt-get itself (issue 10, item 1): ``.ci/run`` installs it; without it the sandbox tests are
    skipped, saying how to get it. Installed but unable to run (user namespaces off) fails,
    saying why."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed: `apt-get install bubblewrap` (.ci/run does)")
    from referee.hosted import jail

    jail.sandbox_problem.cache_clear()
    problem = jail.sandbox_problem()
    if problem is not None:
        pytest.fail(f"the hosted-bot sandbox cannot run here: {problem}")


# The suite runs on pytest-xdist workers (pyproject's addopts). These modules measure clocks
# against real processes (bots, a referee, workers, Redis, a browser): each group's modules run one
# after the other on one worker (`--dist loadgroup`), so at most one other service test and one
# CPU-bound game test share the machine with any of them. Two groups, not one: the single group
# was the run's critical path (1,033 of its 1,078 s on a 2-core machine, its last two minutes
# alone with the cores idle).
TIMING_GROUPS = {
    # Bots against the referee's clocks, hosted seats in the jail, the service's own limits.
    "clocks": frozenset(
        {
            "test_bench_clock_fairness",
            "test_cli_remote",
            "test_endpoints",
            "test_hosted_limits",
            "test_hosted_sandbox",
            "test_hosted_service",
            "test_hosted_upload",
            "test_hostile",
            "test_live_board",
            "test_match_cache",
            "test_metrics_exploratory",
            "test_node_bot",
            "test_referee_load",
            "test_remote",
            "test_run_directory",
            "test_service",
            "test_service_inputs",
            "test_tournament_clock",
        }
    ),
    # Celery workers and Redis restarts, Prometheus, the browser on a live service.
    "services": frozenset(
        {
            "test_distributed",
            "test_distributed_chaos",
            "test_distributed_scale",
            "test_observability",
            "test_web",
        }
    ),
}


ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "bots", "referee", "workers", "bench")


def pytest_configure(config: pytest.Config) -> None:
    """Compile the project's modules once, in the controller, before any worker starts.

    The suite starts a Python process for many tests (the CLI, bot servers, Celery workers, a
    service). Where ``PYTHONDONTWRITEBYTECODE`` is set (as on these machines) none of them writes
    its bytecode, so each compiled every module of ours from source again: 0.6 s of CPU a start,
    40% of ``tests/test_cli.py``'s time. A process reads bytecode that is there whatever that
    variable says."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        for package in PACKAGES:
            compileall.compile_dir(ROOT / package, quiet=1, workers=0)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``--numprocesses=auto``: one worker more than the cores. A quarter of a 2-core CI run's
    time was idle while workers waited on the processes they start (the CLI, bot servers,
    Redis, Celery, a browser); a third worker fills it (``--maxprocesses`` still caps it)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    group_of = {module: group for group, modules in TIMING_GROUPS.items() for module in modules}
    for item in items:
        group = group_of.get(item.module.__name__.rsplit(".", 1)[-1]) if item.module is not None else None
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True)
def registry_games_keep_their_methods():
    """Fail the test that leaves a method of a registry game shadowed on its one shared instance.

    ``monkeypatch.setattr(game, "advance", ...)`` on the instance is undone by setting the old bound
    method back *on the instance*, which then hides any later patch of the class: a test that passed
    alone failed in the suite that way. Patch ``type(game)`` instead."""
    yield
    from arena.registry import games

    for game_id, game in games().items():
        shadowed = sorted(name for name in vars(game) if callable(getattr(type(game), name, None)))
        for name in shadowed:  # put right, so that only the guilty test fails
            delattr(game, name)
        assert not shadowed, f"{game_id}'s {shadowed} left shadowed on the shared game instance: patch type(game)"
