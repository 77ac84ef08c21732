"""A tournament beside one whose batches every worker refuses (another game version).

    python -m bench.bench_refusal [--matches 300] [--rounds 3]

One worker process (``arena worker --concurrency 1``) on a private redis-server. A RollDice
tournament of ``--matches`` matches is timed from creation to completion, alone and beside a
tournament pinned to a game version no worker has (as after an upgrade: its batches are refused
and parked), in alternating rounds; the ratio of the medians is what the refused tournament
costs the other: 0.87 on 2026-12-06 (3 rounds), 71 before refused batches were parked, when
each refusal held a pool process for a second and sent the batch back to be refused again
(README, "Upgrading a deployment").
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from arena.tournament import TournamentSpec
from bench import options
from referee.store import Store
from tests.services import redis_server, wait_for, workers
from tests.test_distributed import start
from workers.app import make_app
from workers.executor import enqueue


def timed(store: Store, url: str, name: str, matches: int, seed: int) -> float:
    spec = TournamentSpec(
        game="rolldice", bots=("random", "heuristic"), players=2, repeats=matches // 2, seed=seed, options={"target": 5}
    )
    began = time.monotonic()
    start(url, name, spec, batch_size=20)
    wait_for(lambda: store.tournament(name)["status"] == "complete", 600, name)
    return time.monotonic() - began


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # A repeat is 2 matches (both seat orders): below 2 the tournament had none and never ended.
    parser.add_argument("--matches", type=options.count(2), default=300, help="rounded down to an even number")
    parser.add_argument("--rounds", type=options.count(1), default=3)
    args = parser.parse_args(argv)
    options.stop_cleanly_on_sigterm()
    alone, beside = [], []
    with (
        tempfile.TemporaryDirectory(prefix="bench-refusal-") as tmp_dir,
        redis_server(Path(tmp_dir)) as server,
        workers(server.url, Path(tmp_dir), count=1, concurrency=1),
    ):
        store = Store(server.url)
        for round_ in range(args.rounds):
            alone.append(timed(store, server.url, f"alone{round_}", args.matches, round_))
            stuck = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2, repeats=500, seed=round_)
            store.create_tournament(f"stuck{round_}", stuck, 1000, 0)
            # Pinned to a version no worker has before its batches go out (as after an upgrade).
            store.redis.hset(store.key("t", f"stuck{round_}"), "game_version", "0.0-none")
            enqueue(make_app(server.url), store, f"stuck{round_}", stuck, 4)
            time.sleep(1.0)
            beside.append(timed(store, server.url, f"beside{round_}", args.matches, round_))
            store.cancel(f"stuck{round_}")
    result = {
        "alone_s": [round(x, 2) for x in alone],
        "beside_a_refused_tournament_s": [round(x, 2) for x in beside],
        "ratio_of_medians": round(statistics.median(beside) / statistics.median(alone), 2),
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
