"""CPU time of processes from ``/proc`` (Linux): what a benchmark's servers and workers spend,
counted apart from the benchmark's own process."""

from __future__ import annotations

import os
from collections.abc import Iterable


def _stat_fields(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces


def children(parent: int | None = None) -> set[int]:
    """The child processes of ``parent`` (default: this process)."""
    parent = os.getpid() if parent is None else parent
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(_stat_fields(int(entry))[1]) == parent:
                    found.add(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def cpu_seconds(pids: Iterable[int]) -> float:
    """User + system CPU of processes so far (all their threads)."""
    total = 0
    for pid in pids:
        fields = _stat_fields(pid)
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")
