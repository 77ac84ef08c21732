"""Hosted bots: what the sandbox costs per match (issue 17).

    python -m bench.bench_hosted [--runs 10]

A trivial hosted bot (always option 0, written with the SDK) measured four ways, medians of
``--runs``, all in this run (ratios are what to read; absolute times swing on shared machines):

1. start-up: launch to listening socket, plain ``python -S -m bot`` (no sandbox) vs the
   bubblewrap jail (unshare + setpriv + prlimit + bwrap + python), and the jail's stop;
2. a short RollDice match against ``random``: hosted (jail started and stopped per match) vs
   the same bot already running (a remote bot on a Unix socket);
3. the workers' version cache, on their own path (``versions.unpacked`` against a private
   redis-server, the cache in a temporary directory): a version's first use (read from the
   store, checked against its hash, unpacked, renamed into place, eviction started) vs a use
   once cached.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.runner import play_match
from bench import options
from bots.registry import make_bot
from referee.hosted import archive, jail, versions
from referee.hosted.player import HostedPlayer
from referee.remote import RemotePlayer
from referee.store import Store
from tests.services import redis_server

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


def version_cache(runs: int) -> tuple[float, float]:
    """Median seconds of the workers' ``versions.unpacked``: a version's first use (each run a
    new, empty cache) and its next use (cached)."""
    restored = versions.CACHE, versions.configured()
    first, cached = [], []
    with tempfile.TemporaryDirectory() as tmp_dir, redis_server(Path(tmp_dir)) as server:
        tmp = Path(tmp_dir)
        store = Store(server.url)
        data = archive.pack_directory(_write(tmp / "bot"))
        checked = versions.check_upload(data)
        versions.save_version(store, "first", "bench", checked, data)
        versions.configure(store)
        try:
            for run in range(runs):
                versions.CACHE = tmp / f"cache-{run}"
                for times in (first, cached):
                    began = time.perf_counter()
                    versions.unpacked(checked.version)
                    times.append(time.perf_counter() - began)
                evictions_done()
        finally:
            versions.CACHE = restored[0]
            versions.configure(restored[1])
    return statistics.median(first), statistics.median(cached)


def evictions_done() -> None:
    """Wait for the eviction threads a first use starts (they would run into the next timing,
    or find their cache removed)."""
    for thread in threading.enumerate():
        if thread.name == "arena-cache-evict":
            thread.join()


def _write(directory: Path) -> Path:
    archive.write_files(BOT, directory)
    return directory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=options.count(1), default=10)
    args = parser.parse_args(argv)
    options.stop_cleanly_on_sigterm()
    jail.check_sandbox()
    with tempfile.TemporaryDirectory() as tmp:
        directory = _write(Path(tmp) / "bot")
        plain, _ = startup(directory, args.runs, sandboxed=False)
        jailed, stop = startup(directory, args.runs, sandboxed=True)
        hosted, served = matches(directory, args.runs)
    first, cached = version_cache(args.runs)
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
