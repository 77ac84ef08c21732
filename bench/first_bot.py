"""A trivial bot for transport benchmarks: always the first option, after an optional delay.

python -m bench.first_bot --port 0 [--delay 0.02] [--unix PATH]
"""

from __future__ import annotations

import argparse
import time

from bots.sdk import Bot, Turn
from bots.serve import serve


class FirstOption(Bot):
    name = "first"

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def choose(self, turn: Turn) -> str:
        if self.delay:
            time.sleep(self.delay)
        return turn.request.options[0].id


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--unix")
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    address = f"unix:{args.unix}" if args.unix else f"127.0.0.1:{args.port}"

    def announce(server: object) -> None:
        where = address if args.unix else f"127.0.0.1:{server.port}"  # type: ignore[attr-defined]
        print(f"listening on {where}", flush=True)

    serve(lambda: FirstOption(args.delay), address, max_matches=256, on_ready=announce)


if __name__ == "__main__":
    main()
