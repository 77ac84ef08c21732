"""A hosted seat's control group, where the host lets a root worker make one: the seat's whole
resident memory capped (every process, its ``/tmp``, ``/dev/shm`` and memfd files), and its CPU
weight lowered while it is not on the move.

Without it a seat's limits are per process (address space, CPU seconds), so a seat of 48
processes could hold tens of GiB, and a seat that answers at once but leaves busy children
behind took the CPU its opponent's clock was running on (an outside probe: the opponent timed
out, a 1.8 s match took 33 s). With it, between its decisions a seat weighs 2 against 1,024
for a seat on the move (cgroup v1 ``cpu.shares``; v2 ``cpu.weight`` 1 against 100): its
children still run, on what nobody else wants. Pondering on the opponent's time is not
forbidden, only never at the opponent's cost.

Both cgroup layouts are supported: v1 (a ``cpu`` and a ``memory`` hierarchy, as on these
machines) and v2 (the unified hierarchy, the controllers enabled for Arena's own subtree).
:func:`probe` finds which the host offers, once per process; where neither can be written (not
root, a read-only ``/sys/fs/cgroup`` in a container), seats run without, as before, and the
README says what is then not bounded.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

ROOT = Path("/sys/fs/cgroup")
SUBTREE = "arena-seats"
ON_MOVE_V1, OFF_MOVE_V1 = "1024", "2"  # cpu.shares: the default, and the kernel's minimum
ON_MOVE_V2, OFF_MOVE_V2 = "100", "1"  # cpu.weight: the default, and the minimum


@dataclass(frozen=True)
class Layout:
    version: int  # 1 or 2
    cpu: Path  # the directory seats' cpu groups go under
    memory: Path  # the same directory on v2


_probed: tuple[Layout | None, str] | None = None


def probe() -> tuple[Layout | None, str]:
    """(the layout seats' groups can be made in, or None with the reason), found once."""
    global _probed
    if _probed is None:
        _probed = _probe()
        if _probed[0] is None:
            log.info("hosted seats run without a control group: %s", _probed[1])
    return _probed


def _probe() -> tuple[Layout | None, str]:
    if os.geteuid() != 0:
        return None, "the worker is not root"
    try:
        if (ROOT / "cgroup.controllers").exists():
            controllers = (ROOT / "cgroup.controllers").read_text(encoding="utf-8").split()
            if not {"cpu", "memory"} <= set(controllers):
                return None, f"cgroup v2 without the cpu and memory controllers ({' '.join(controllers)})"
            # Beside the worker's own group (a group with processes cannot enable controllers
            # for groups under it), within whatever bounds the worker's parent.
            own = ROOT / _own_v2_path()
            parent = own.parent if own != ROOT else ROOT
            subtree = parent / SUBTREE
            subtree.mkdir(exist_ok=True)
            _write(parent / "cgroup.subtree_control", "+cpu +memory")
            _write(subtree / "cgroup.subtree_control", "+cpu +memory")
            layout = Layout(2, subtree, subtree)
        elif (ROOT / "cpu").is_dir() and (ROOT / "memory").is_dir():
            # Under the worker's own groups: a seat stays within whatever bounds the worker.
            cpu = ROOT / "cpu" / _own_v1_path("cpu") / SUBTREE
            memory = ROOT / "memory" / _own_v1_path("memory") / SUBTREE
            cpu.mkdir(exist_ok=True)
            memory.mkdir(exist_ok=True)
            layout = Layout(1, cpu, memory)
        else:
            return None, "no cpu and memory control groups under /sys/fs/cgroup"
        trial = SeatGroup(layout, "probe", memory=256 * 1024 * 1024)
        trial.remove()
    except OSError as exc:
        return None, f"control groups cannot be made here ({exc.strerror or exc})"
    return layout, ""


def _own_v1_path(controller: str) -> str:
    for line in Path("/proc/self/cgroup").read_text(encoding="utf-8").splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path.lstrip("/")
    return ""


def _own_v2_path() -> str:
    text = Path("/proc/self/cgroup").read_text(encoding="utf-8")
    line = next((line for line in text.splitlines() if line.startswith("0::")), "0::/")
    return line[3:].lstrip("/")


def _write(path: Path, value: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(value)


class SeatGroup:
    """One seat's group (both hierarchies on v1): made before the jail starts, joined by the
    jail's first process (:attr:`procs`: it writes its pid there before it execs, so everything
    the seat ever runs is inside), removed once the seat's processes are gone."""

    def __init__(self, layout: Layout, name: str, *, memory: int) -> None:
        self.layout = layout
        self.name = name
        self.dirs = [layout.cpu / name] if layout.version == 2 else [layout.cpu / name, layout.memory / name]
        for directory in self.dirs:
            with contextlib.suppress(FileExistsError):
                directory.mkdir()
        memory_dir = self.dirs[-1]
        if layout.version == 2:
            _write(memory_dir / "memory.max", str(memory))
            if (memory_dir / "memory.swap.max").exists():
                _write(memory_dir / "memory.swap.max", "0")
        else:
            _write(memory_dir / "memory.limit_in_bytes", str(memory))
        self._moving: bool | None = None
        self.on_move()  # starting up: the interpreter's start is on the start-up clock

    @property
    def procs(self) -> list[str]:
        """The files the jail's first process writes its pid to."""
        return [str(directory / "cgroup.procs") for directory in self.dirs]

    def on_move(self) -> None:
        self._weigh(True)

    def off_move(self) -> None:
        self._weigh(False)

    def _weigh(self, moving: bool) -> None:
        if self._moving is moving:
            return
        self._moving = moving
        if self.layout.version == 2:
            _write(self.dirs[0] / "cpu.weight", ON_MOVE_V2 if moving else OFF_MOVE_V2)
        else:
            _write(self.dirs[0] / "cpu.shares", ON_MOVE_V1 if moving else OFF_MOVE_V1)

    def weight(self) -> str:
        """The CPU weight now (``cpu.shares`` or ``cpu.weight``), as the kernel reads it."""
        name = "cpu.weight" if self.layout.version == 2 else "cpu.shares"
        return (self.dirs[0] / name).read_text(encoding="utf-8").strip()

    def oom_kills(self) -> int:
        """Processes the kernel killed for the seat's memory limit."""
        memory_dir = self.dirs[-1]
        name = "memory.events" if self.layout.version == 2 else "memory.oom_control"
        with contextlib.suppress(OSError, ValueError):
            for line in (memory_dir / name).read_text(encoding="utf-8").splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        return 0

    def remove(self, within: float = 2.0) -> None:
        """Remove the group once no process is left in it (the seat's were killed)."""
        _remove(self.dirs, within)


def remove_left(name: str, within: float = 2.0) -> bool:
    """Remove the group ``name`` that a seat of a process that died left behind (its processes
    killed first); whether there was one."""
    layout, _ = probe()
    if layout is None:
        return False
    dirs = [layout.cpu / name] if layout.version == 2 else [layout.cpu / name, layout.memory / name]
    found = [directory for directory in dirs if directory.is_dir()]
    _remove(found, within)
    return bool(found)


def _remove(dirs: list[Path], within: float) -> None:
    deadline = time.monotonic() + within
    for directory in dirs:
        while True:
            try:
                directory.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:  # busy: a killed process not yet reaped
                if time.monotonic() > deadline:
                    log.warning("hosted seat group %s: not removed (still busy)", directory)
                    break
                time.sleep(0.02)
