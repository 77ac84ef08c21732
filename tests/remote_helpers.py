"""Starting bot processes for tests: real processes, real gRPC on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def read_first_line(proc: subprocess.Popen[str], timeout: float) -> str:
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline() if proc.stdout else ""))
    reader.start()
    reader.join(timeout)
    if not line or not line[0]:
        proc.kill()
        raise RuntimeError(f"bot process printed nothing within {timeout}s: {proc.args}")
    return line[0].strip()


@contextmanager
def bot_process(args: list[str], timeout: float = 30.0) -> Iterator[str]:
    """Run a bot server process; yields its address (``grpc://127.0.0.1:PORT``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
    try:
        line = read_first_line(proc, timeout)
        yield "grpc://" + line.rsplit(" ", 1)[-1]
    finally:
        proc.kill()
        proc.wait(10)
        if proc.stdout:
            proc.stdout.close()


def misbehaving(behaviour: str, *extra: str) -> list[str]:
    script = str(ROOT / "tests" / "bots" / "misbehaving.py")
    return [sys.executable, script, "--behaviour", behaviour, "--port", "0", *extra]


def served(bot: str, game: str | None = None) -> list[str]:
    args = [sys.executable, "-m", "arena", "bot", "serve", "--bot", bot, "--port", "0"]
    return args + (["--game", game] if game else [])


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))
