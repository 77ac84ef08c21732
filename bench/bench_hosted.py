"""Hosted bots: what the sandbox costs per match (issue 17).

    python -m bench.bench_hosted [--runs 10]

A trivial hosted bot (always option 0, written with the SDK) measured four ways, medians of
``--runs``, all in this run (ratios are what to read; absolute times swing on shared machines):

1. start-up: launch to listening socket, plain ``python -S -m bot`` (no sandbox) vs the
   bubblewrap jail (unshare + setpriv + prlimit + bwrap + python), and the jail's stop;
2. a short RollDice match against ``random``: hosted (jail started and stopped per match) vs
   the same bot already running (a remote bot on a Unix socket);
3. the workers' version cache: fetching nothing (cached) vs unpacking a version the first time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.runner import play_match
from bots.registry import make_bot
from referee.hosted import archive, jail
from referee.hosted.player import HostedPlayer
from referee.remote import RemotePlayer

BOT = {
    "arena-bot.toml": b'name = "first"\ngames = ["rolldice"]\nlanguage = "python"\nentry = "first"\n',
    "first.py": b"from bots.sdk import Bot\nfrom bots.serve import serve\n\n\nclass First(Bot):\n"
    b"    name = 'first'\n\n    def choose(self, turn):\n        return turn.option_ids[0]\n\n\n"
    b"if __name__ == '__main__':\n    serve(First)\n",
}
CLOCK = clock_settings({"decision": 5000, "startup": 20_000})
CONFIG = GAME.config(2, {"target": 20})


def startup(directory: Path, runs: int, *, sandboxed: bool) -> tuple[float, float]:
    """Median seconds to a listening socket, and to stop."""
    jail._UNSAFE = not sandboxed
    starts, stops = [], []
    try:
        for _ in range(runs):
            seat = jail.Jail(directory, "first")
            seat.start()
            assert seat.started_in is not None
            starts.append(seat.started_in)
            began = time.perf_counter()
            seat.stop()
            stops.append(time.perf_counter() - began)
    finally:
        jail._UNSAFE = False
    return statistics.median(starts), statistics.median(stops)


def matches(directory: Path, runs: int) -> tuple[float, float]:
    """Median seconds per match: hosted (a jail per match) vs the bot already running."""
    hosted = []
    for seed in range(runs):
        began = time.perf_counter()
        record = play_match(
            GAME, CONFIG, seed, [HostedPlayer(directory, "first"), make_bot("random", "rolldice")], clock=CLOCK
        )
        hosted.append(time.perf_counter() - began)
        assert not record.failures, record.failures
    running = jail.Jail(directory, "first")
    target = running.start()
    served = []
    try:
        for seed in range(runs):
            began = time.perf_counter()
            record = play_match(GAME, CONFIG, seed, [RemotePlayer(target), make_bot("random", "rolldice")], clock=CLOCK)
            served.append(time.perf_counter() - began)
            assert not record.failures, record.failures
    finally:
        running.stop()
    return statistics.median(hosted), statistics.median(served)


def unpack(runs: int) -> tuple[float, float]:
    data = archive.pack_directory(_write(Path(tempfile.mkdtemp())))
    first, cached = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            began = time.perf_counter()
            archive.write_files(archive.read_archive(data), Path(tmp) / "v")
            first.append(time.perf_counter() - began)
            began = time.perf_counter()
            assert (Path(tmp) / "v").is_dir()
            cached.append(time.perf_counter() - began)
    return statistics.median(first), statistics.median(cached)


def _write(directory: Path) -> Path:
    archive.write_files(BOT, directory)
    return directory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    jail.check_sandbox()
    with tempfile.TemporaryDirectory() as tmp:
        directory = _write(Path(tmp) / "bot")
        plain, _ = startup(directory, args.runs, sandboxed=False)
        jailed, stop = startup(directory, args.runs, sandboxed=True)
        hosted, served = matches(directory, args.runs)
    first, cached = unpack(args.runs)
    result = {
        "startup_plain_ms": round(plain * 1000, 1),
        "startup_jail_ms": round(jailed * 1000, 1),
        "jail_over_plain": round(jailed / plain, 2),
        "stop_jail_ms": round(stop * 1000, 1),
        "match_hosted_ms": round(hosted * 1000, 1),
        "match_running_bot_ms": round(served * 1000, 1),
        "hosted_over_running": round(hosted / served, 2),
        "unpack_first_ms": round(first * 1000, 2),
        "unpack_cached_ms": round(cached * 1000, 3),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
