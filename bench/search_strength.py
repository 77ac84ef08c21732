"""Search strength: A/B of ``search`` settings against a game's ``heuristic``, seats alternating.

    python -m bench.search_strength --game skyfive --matches 60 \\
        search:iterations=50,rollout=heuristic search:iterations=50,rollout=mast

Each bot spec plays ``--matches`` matches against ``--opponent`` (default ``heuristic``) on
seeds 0, 1, ...: the same seeds for every spec, the spec's seat rotating over the table (the
other seats are the opponent); with ``--duplicate`` every seed is played with the spec at every
seat, and the interval is over the seeds' means (a deal's luck cancels in its pair). A match
scores the spec's fraction of the other seats it beats (a shared placing counts half): 0.5 is
par. Printed per spec, as JSON: the mean score with a 95% interval (normal approximation over
the matches), and CPU seconds per match.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from arena.config import ConfigError
from arena.registry import get_game
from arena.runner import play_match
from bench import options
from bots.registry import make_bot
from bots.search import rewards


def one(game_id: str, players: int, spec: str, opponent: str, seed: int, seat: int = -1) -> tuple[float, float]:
    """(the spec's score, CPU seconds) of the match on ``seed``, the spec at ``seat`` (default
    seed % players)."""
    game = get_game(game_id)
    config = game.config(players)
    seat = seed % players if seat < 0 else seat
    specs = [spec if s == seat else opponent for s in range(players)]
    began = time.process_time()
    record = play_match(game, config, seed, [make_bot(s, game_id) for s in specs])
    spent = time.process_time() - began
    from arena.engine import Result

    result = Result(tuple(record.result["scores"]), tuple(record.result["ranks"]))
    return rewards(result)[seat], spent


def interval(scores: list[float]) -> tuple[float, float, float]:
    n = len(scores)
    mean = sum(scores) / n
    var = sum((x - mean) ** 2 for x in scores) / max(n - 1, 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="search bot specs to compare")
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=options.count(1), default=2)
    parser.add_argument("--matches", type=options.count(1), default=40)
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--workers", type=options.count(1), default=1)
    parser.add_argument("--first-seed", type=options.count(0), default=0)
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="play every seed with the spec at every seat (matches = seeds x players; the deal's luck cancels)",
    )
    args = parser.parse_args(argv)
    try:  # the game and its player count, here: in the pool they ended in a traceback per match
        get_game(args.game).config(args.players)
    except ConfigError as error:
        parser.error(str(error))
    options.stop_cleanly_on_sigterm()  # the pool's processes stop with it
    seeds = range(args.first_seed, args.first_seed + args.matches)
    seats = range(args.players) if args.duplicate else [-1]
    rows = []
    with ProcessPoolExecutor(args.workers) as pool:
        for spec in args.specs:
            jobs = [(args.game, args.players, spec, args.opponent, s, seat) for s in seeds for seat in seats]
            results = list(pool.map(one, *zip(*jobs, strict=True)))
            scores = [score for score, _ in results]
            if args.duplicate:  # one sample per seed: the mean over its seats (paired deals)
                n = len(seats)
                scores = [sum(scores[i : i + n]) / n for i in range(0, len(scores), n)]
            mean, low, high = interval(scores)
            rows.append(
                {
                    "game": args.game,
                    "players": args.players,
                    "spec": spec,
                    "opponent": args.opponent,
                    "matches": len(results),
                    "score": round(mean, 3),
                    "ci95": [round(low, 3), round(high, 3)],
                    "cpu_s_per_match": round(sum(t for _, t in results) / len(results), 2),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
