"""Engine benchmark: random-vs-random matches per second, full runner vs bare engine loop.

    python -m bench.bench_engine [--seconds 3] [--rounds 5] [--game ID]

For each game (default player count): the bare loop drives the engine directly (pending ->
random option -> apply; no observations, no requests, no record); the full runner plays the same
kind of match through ``play_match`` with the built-in ``random`` bot in every seat (a typed
DecisionRequest with the packed observation, events and options per decision, the record).
Both are measured in the same run, alternately (``--rounds`` rounds, the same number of
matches with the same seeds for both in a round), in CPU time of this thread (other work on a
shared machine does not count against either); the ratio reported is the median of the rounds'
ratios: what the runner costs over the bare engine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from arena.chance import Chance
from arena.engine import Game
from arena.registry import games
from arena.runner import play_match
from bots.registry import make_bot


def bare_match(game: Game, players: int, seed: int) -> int:
    state = game.new_match(game.config(players), seed)
    rng = Chance(seed)
    decisions = 0
    while state.pending:
        decisions += len(state.pending)  # those decided now (counted before they are applied)
        game.apply(state, {d.seat: d.options[rng.below(len(d.options), "b")].id for d in state.pending})
    return decisions


def full_match(game: Game, players: int, seed: int) -> int:
    bots = [make_bot("random", game.meta.id) for _ in range(players)]
    return len(play_match(game, game.config(players), seed, bots).decisions)


def timed(play: object, game: Game, players: int, seeds: range) -> tuple[int, float]:
    """(decisions, CPU seconds of this thread) for one match per seed."""
    decisions = 0
    began = time.thread_time()
    for seed in seeds:
        decisions += play(game, players, seed)  # type: ignore[operator]
    return decisions, time.thread_time() - began


def compare(game: Game, players: int, seconds: float, rounds: int) -> dict[str, object]:
    """Bare and full alternately, ``rounds`` times: each round the bare loop plays matches for
    ``seconds / rounds`` of CPU time (at least 5), then the full runner plays the same number of
    matches with the same seeds. The rates are over all rounds; the ratio is the median of the
    rounds' ratios."""
    totals = {"bare": [0, 0.0], "full": [0, 0.0]}
    ratios = []
    matches = 0
    for r in range(rounds):
        first = r * 1_000_000
        bare_d, bare_s, n = 0, 0.0, 0
        while bare_s < seconds / rounds or n < 5:  # in small batches, until the round's time
            batch = max(1, n // 4)
            d, s = timed(bare_match, game, players, range(first + n, first + n + batch))
            bare_d, bare_s, n = bare_d + d, bare_s + s, n + batch
        full_d, full_s = timed(full_match, game, players, range(first, first + n))
        for name, d, s in (("bare", bare_d, bare_s), ("full", full_d, full_s)):
            totals[name][0] += d
            totals[name][1] += s
        matches += n
        ratios.append(bare_s / full_s)
    (bare_d, bare_s), (full_d, full_s) = totals["bare"], totals["full"]
    return {
        "game": game.meta.id,
        "players": players,
        "matches": matches,
        "bare_matches_per_s": round(matches / bare_s, 1),
        "full_matches_per_s": round(matches / full_s, 1),
        "full_vs_bare": round(statistics.median(ratios), 3),
        "full_vs_bare_rounds": [round(x, 3) for x in ratios],
        "bare_decisions_per_s": round(bare_d / bare_s),
        "full_decisions_per_s": round(full_d / full_s),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per game for each of bare and full")
    parser.add_argument("--rounds", type=int, default=5, help="bare and full alternate this many times per game")
    parser.add_argument("--game", action="append", default=[], help="only this game (repeatable)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.game) - set(games()))
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; known games: {', '.join(games())}")
    rows = []
    for game in games().values():
        if args.game and game.meta.id not in args.game:
            continue
        players = min(max(2, game.meta.min_players), game.meta.max_players)
        if game.meta.id == "getbit":
            players = 4  # the base game (2 and 3 players are variants)
        rows.append(compare(game, players, args.seconds, args.rounds))
    print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
