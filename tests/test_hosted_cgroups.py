"""A hosted seat's control group (root workers, where the host has cgroups): the seat weighs on
the CPU only from its request to its answer, and its resident memory is capped in all (every
process, /tmp and /dev/shm). From an outside probe: a seat that left 30 busy children running
between its decisions made its opponent time out, and 8 children of 850 MiB held 4.5 GiB.
Real bubblewrap jails, real control groups, real processes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.record import MatchRecord
from arena.runner import FunctionPlayer, play_match
from referee.hosted import cgroups
from referee.hosted.jail import Limits, processes_of
from referee.hosted.player import HostedPlayer
from tests.test_hosted_limits import PLAYS, bot, first

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("bubblewrap")]

LAYOUT, WHY = cgroups.probe()
needs_cgroups = pytest.mark.skipif(LAYOUT is None, reason=f"no control groups for seats here: {WHY}")
CONFIG = GAME.config(2, {"target": 12})
CLOCK = clock_settings({"decision": 3000, "bank": 0, "increment": 0, "startup": 10_000, "grace": 200, "strikes": 0})
ON_MOVE, OFF_MOVE = (cgroups.ON_MOVE_V2, cgroups.OFF_MOVE_V2) if LAYOUT and LAYOUT.version == 2 else ("1024", "2")


class Watched(HostedPlayer):
    """Notes the seat's CPU weight while its answer is awaited and once it has come, and which
    control group each of its processes is in."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.during: list[str] = []
        self.after: list[str] = []
        self.groups: set[str] = set()

    async def end_decide_async(self, request):  # type: ignore[no-untyped-def]
        assert self.jail.group is not None
        self.during.append(self.jail.group.weight())
        for pid in processes_of(self.jail.uid):  # type: ignore[arg-type]
            for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
                _, controllers, path = line.split(":", 2)
                if "cpu" in controllers.split(",") if LAYOUT.version == 1 else controllers == "":
                    self.groups.add(path)
        answer = await super().end_decide_async(request)
        self.after.append(self.jail.group.weight())
        return answer


@needs_cgroups
def test_a_seat_weighs_on_the_cpu_only_while_on_the_move(tmp_path):
    seat = Watched(bot(tmp_path, "weighed", PLAYS), "weighed")
    record = play_match(GAME, CONFIG, 4, [seat, FunctionPlayer(first, "local")], clock=CLOCK)
    assert record.failures == []
    asked = sum(1 for d in record.decisions if d.seat == 0)
    assert asked >= 2
    assert seat.during == [ON_MOVE] * asked and seat.after == [OFF_MOVE] * asked
    # Every process of the seat is in its own group (joined before the jail's first exec).
    assert len(seat.groups) == 1 and seat.groups.pop().endswith(f"/{cgroups.SUBTREE}/seat-{seat.jail.uid}")
    # The group is gone with the seat.
    assert seat.jail.group is not None and not any(d.exists() for d in seat.jail.group.dirs)


HOARDS = """\
import subprocess, sys, time
from bots.sdk import Bot
from bots.serve import serve

CHILD = "b = b'x' * (300 * 1024 * 1024); print('FILLED', flush=True); import time; time.sleep(60)"


class Hoards(Bot):
    name = 'hoards'

    def choose(self, turn):
        if turn.request.decision_index < 2:
            # Three children of 300 MiB: each within its own address space, 900 MiB in all.
            children = [subprocess.Popen([sys.executable, '-S', '-c', CHILD]) for _ in range(3)]
            # Until the kernel kills one (two fill the 600 MiB): 1.5 s were too few under a
            # CI run's load of 14, when no child had filled its bytes yet.
            deadline = time.monotonic() + 8.0
            while time.monotonic() < deadline and all(child.poll() is None for child in children):
                time.sleep(0.05)
            print('CHILDREN', [child.poll() for child in children], flush=True)
        return turn.option_ids[0]


if __name__ == '__main__':
    serve(Hoards)
"""


def hosted_match(
    tmp_path: Path, name: str, code: str, seat_memory_mib: int, clock: Any = CLOCK
) -> tuple[HostedPlayer, MatchRecord]:
    """A RollDice match of the hosted bot ``code`` against a local first-option player, the
    seat's memory held to ``seat_memory_mib``."""
    limits = Limits(seat_memory=seat_memory_mib * 1024 * 1024)
    seat = HostedPlayer(bot(tmp_path, name, code), name, limits=limits)
    return seat, play_match(GAME, CONFIG, 4, [seat, FunctionPlayer(first, "local")], clock=clock)


@needs_cgroups
def test_a_seat_is_held_to_its_memory_limit_in_all(tmp_path):
    patient = clock_settings(
        {"decision": 10_000, "bank": 0, "increment": 0, "startup": 10_000, "grace": 200, "strikes": 0}
    )
    seat, record = hosted_match(tmp_path, "hoards", HOARDS, 600, patient)
    # The kernel killed a child that would have taken the seat past 600 MiB; the bot lives on.
    assert seat.jail.memory_limit_hit(), seat.output
    assert "CHILDREN [" in seat.output and "-9" in seat.output, seat.output
    assert all(f.seat != 0 for f in record.failures), record.failures


DIES_OF_IT = """\
from bots.sdk import Bot
from bots.serve import serve


class Greedy(Bot):
    name = 'greedy'

    def choose(self, turn):
        # In one process, under its 1 GiB address space, over the seat's 200 MiB: killed.
        self.hoard = b'x' * (300 * 1024 * 1024)
        return turn.option_ids[0]


if __name__ == '__main__':
    serve(Greedy)
"""


@needs_cgroups
def test_a_seat_killed_for_its_memory_limit_is_a_crash_naming_it(tmp_path):
    _, record = hosted_match(tmp_path, "greedy", DIES_OF_IT, 200)
    (failure,) = [f for f in record.failures if f.seat == 0]
    assert failure.verdict == "crash"
    assert "the seat hit its memory limit (200 MiB resident in all" in failure.detail, failure.detail
