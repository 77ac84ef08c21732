"""Clock fairness under load: a timeout means the bot was slow, whatever the referee's load.

python -m bench.bench_clock_fairness [--concurrency 1,16,64] [--limit-ms 200] [--over-ms 15]
    [--under-ms 100] [--per-match 12] [--neighbour]

N RollDice matches at once on one referee event loop (a worker process plays up to 64), each
decision limited to ``limit`` ms with no bank, grace or strikes, between served bots that
answer after a fixed think (``bench.first_bot --delay``):

- *over* bots think ``limit + over`` ms: every answer is past the limit, so every decision must
  be a timeout (``over_timed_out``: the fraction that was; 1.0 is fair). Under ``substitute``,
  so a timed-out seat is asked again.
- *under* bots think ``under`` ms: no verdict may fall on them, and the time recorded for each
  decision less the think (``under_record_minus_think_ms``) is the referee's error in the
  bot's time: the transport's millisecond or two, never the referee's own stalls while the bot
  thought.

``--neighbour`` adds a thread in the referee's process busy 20 ms of every 40 ms (a CPU-bound
co-tenant holding the interpreter). Figures only: the machine's load moves them, so nothing is
asserted of their size, and each level is set against its own bots' configured think.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.record import MatchRecord
from arena.runner import ErrorPolicy, play_match_async
from bench.options import count, counts, stop_cleanly_on_sigterm
from referee import aioloop
from referee.remote import RemotePlayer
from tests.remote_helpers import bot_process


def _bot(stack: ExitStack, think_ms: float) -> str:
    delay = f"{think_ms / 1000:.4f}"
    return stack.enter_context(bot_process([sys.executable, "-m", "bench.first_bot", "--port", "0", "--delay", delay]))


@contextmanager
def neighbour(on: bool) -> Iterator[None]:
    """While on: a thread busy 20 ms of every 40 ms in this (the referee's) process."""
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            end = time.monotonic() + 0.020
            while time.monotonic() < end:
                pass
            time.sleep(0.020)

    thread = threading.Thread(target=busy, daemon=True)
    if on:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        if on:
            thread.join()


def play(bots: tuple[str, str], n: int, per_match: int, limit_ms: int) -> list[MatchRecord]:
    """N matches at once between the two bot servers, on one loop."""
    clock = clock_settings(
        {"decision": limit_ms, "bank": 0, "increment": 0, "grace": 0, "strikes": 0, "startup": 20000}
    )
    # Every decision of a seat that timed out is asked again (its substitute plays for it).
    policy = ErrorPolicy("substitute", budget=10 * per_match)

    async def many() -> list[MatchRecord]:
        matches = []
        for seed in range(n):
            config = GAME.config(2, {"target": int(per_match * 1.75)})
            players = [RemotePlayer(bots[0]), RemotePlayer(bots[1])]
            matches.append(play_match_async(GAME, config, seed, players, clock=clock, policy=policy))
        return list(await asyncio.gather(*matches))

    return aioloop.run(many())


def level(over: tuple[str, str], under: tuple[str, str], n: int, args: argparse.Namespace) -> dict[str, object]:
    over_records = play(over, n, args.per_match, args.limit_ms)
    asked = sum(len(r.decisions) for r in over_records)
    timeouts = sum(f.verdict == "timeout" for r in over_records for f in r.failures)
    under_records = play(under, n, args.per_match, args.limit_ms)
    errors = sorted(d.ms - args.under_ms for r in under_records for d in r.decisions if d.by == "bot")
    return {
        "matches": n,
        "over_decisions": asked,
        "over_timed_out": round(timeouts / asked, 4) if asked else None,
        "over_let_through": asked - timeouts,
        "under_decisions": sum(len(r.decisions) for r in under_records),
        "under_verdicts": sum(len(r.failures) for r in under_records),
        "under_record_minus_think_ms": {
            "min": round(errors[0], 2),
            "median": round(statistics.median(errors), 2),
            "p95": round(errors[int(0.95 * (len(errors) - 1))], 2),
            "max": round(errors[-1], 2),
        }
        if errors
        else None,
    }


def main(argv: list[str] | None = None) -> int:
    stop_cleanly_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=counts(1, 256), default="1,16,64", help="numbers of matches at once")
    parser.add_argument("--limit-ms", type=count(20, 60_000), default=200, help="each decision's limit")
    parser.add_argument("--over-ms", type=count(1, 60_000), default=15, help="how far past it the over bots think")
    parser.add_argument("--under-ms", type=count(0, 60_000), default=100, help="the under bots' think")
    parser.add_argument("--per-match", type=count(2, 10_000), default=12, help="decisions per match (about)")
    parser.add_argument("--neighbour", action="store_true", help="a CPU-bound thread in the referee's process")
    args = parser.parse_args(argv)
    if args.under_ms >= args.limit_ms:
        parser.error(f"--under-ms {args.under_ms} must be below --limit-ms {args.limit_ms}")
    rows = []
    with ExitStack() as stack:
        over = (_bot(stack, args.limit_ms + args.over_ms), _bot(stack, args.limit_ms + args.over_ms))
        under = (_bot(stack, args.under_ms), _bot(stack, args.under_ms))
        with neighbour(args.neighbour):
            for n in args.concurrency:
                rows.append(level(over, under, n, args))
    report = {
        "limit_ms": args.limit_ms,
        "over_think_ms": args.limit_ms + args.over_ms,
        "under_think_ms": args.under_ms,
        "neighbour": args.neighbour,
        "levels": rows,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
