"""A trivial bot for transport benchmarks: always the first option, after an optional delay.

python -m bench.first_bot --port 0 [--delay 0.02] [--unix PATH] [--marks FILE]

It runs on the bot server's event loop (``inline``) and waits its delay with ``asyncio.sleep``,
so one server carries hundreds of such matches at once without a thread each.
"""

from __future__ import annotations

import argparse
import asyncio

from bench.options import finite
from bench.transport_legs import marked_servicer
from bots.sdk import Bot, Turn
from bots.serve import BotServicer, serve


class FirstOption(Bot):
    name = "first"
    inline = True

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def choose(self, turn: Turn) -> str:
        return turn.request.options[0].id


class SlowFirstOption(FirstOption):
    async def choose(self, turn: Turn) -> str:  # type: ignore[override]
        await asyncio.sleep(self.delay)
        return turn.request.options[0].id


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--unix")
    parser.add_argument("--delay", type=finite(0.0, "seconds", inclusive=True), default=0.0)
    parser.add_argument("--marks", help="note each message's read and answer here (bench.transport_legs)")
    args = parser.parse_args()
    address = f"unix:{args.unix}" if args.unix else f"127.0.0.1:{args.port}"

    def announce(server: object) -> None:
        where = address if args.unix else f"127.0.0.1:{server.port}"  # type: ignore[attr-defined]
        print(f"listening on {where}", flush=True)

    kind = SlowFirstOption if args.delay else FirstOption
    servicer = marked_servicer(args.marks) if args.marks else BotServicer
    serve(lambda: kind(args.delay), address, max_matches=256, on_ready=announce, servicer=servicer)


if __name__ == "__main__":
    main()
