"""Engine benchmark: random-vs-random matches per second, full runner vs bare engine loop.

    python -m bench.bench_engine [--seconds 3]

For each game (default player count): the bare loop drives the engine directly (pending ->
random option -> apply; no observations, no requests, no record); the full runner plays the same
kind of match through ``play_match`` with the built-in ``random`` bot in every seat (a typed
DecisionRequest with the packed observation, events and options per decision, the record).
Both are measured in the same run; the ratio is what the runner costs over the bare engine.
"""

from __future__ import annotations

import argparse
import json
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
        game.apply(state, {d.seat: d.options[rng.below(len(d.options), "b")].id for d in state.pending})
        decisions += len(state.pending)
    return decisions


def full_match(game: Game, players: int, seed: int) -> int:
    bots = [make_bot("random", game.meta.id) for _ in range(players)]
    return len(play_match(game, game.config(players), seed, bots).decisions)


def rate(play: object, game: Game, players: int, seconds: float) -> tuple[float, float]:
    """(matches per second, decisions per second) over at least ``seconds``."""
    matches = decisions = 0
    began = time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds or matches < 5:
        decisions += play(game, players, matches)  # type: ignore[operator]
        matches += 1
    return matches / elapsed, decisions / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
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
        bare, bare_d = rate(bare_match, game, players, args.seconds)
        full, full_d = rate(full_match, game, players, args.seconds)
        rows.append(
            {
                "game": game.meta.id,
                "players": players,
                "bare_matches_per_s": round(bare, 1),
                "full_matches_per_s": round(full, 1),
                "full_vs_bare": round(full / bare, 3),
                "bare_decisions_per_s": round(bare_d),
                "full_decisions_per_s": round(full_d),
            }
        )
    print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
