"""Session fixtures that prepare what tests need from outside Python, so the README's test
command works on a fresh clone without further steps."""

from __future__ import annotations

import shutil
import subprocess
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
    if installed.exists() and installed.stat().st_mtime >= lock.stat().st_mtime:
        return
    command = ["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline", "--prefix", str(directory)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.fail(f"`{' '.join(command)}` failed:\n{done.stdout}{done.stderr}")


@pytest.fixture(scope="session")
def node_packages() -> Path:
    """The Node.js example bot's directory, with its npm packages installed."""
    ensure_node_packages(NODE_BOT)
    return NODE_BOT


@pytest.fixture(scope="session")
def bubblewrap() -> None:
    """bubblewrap installed and able to run here (issue 17's sandbox): installs the Debian package
    when it is missing (as .ci/run does); a sandbox that still cannot run fails, saying why."""
    if shutil.which("bwrap") is None and shutil.which("apt-get") is not None:
        for command in (["apt-get", "install", "-y", "-qq", "bubblewrap"], ["apt-get", "update", "-qq"]):
            subprocess.run(command, capture_output=True, timeout=600)
        if shutil.which("bwrap") is None:
            subprocess.run(["apt-get", "install", "-y", "-qq", "bubblewrap"], capture_output=True, timeout=600)
    from referee.hosted import jail

    jail.sandbox_problem.cache_clear()
    problem = jail.sandbox_problem()
    if problem is not None:
        pytest.fail(f"the hosted-bot sandbox cannot run here: {problem}")
