"""Running the ``arena`` command as a user would: a real process, its output captured."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def arena(
    *args: str, env: Mapping[str, str] | None = None, cwd: Path | str | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``python -m arena ARGS`` from the checkout (``cwd`` defaults to it), with ``env`` added to
    the environment; text output captured, never waiting beyond ``timeout``."""
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT if cwd is None else cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
