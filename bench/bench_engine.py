"""Engine benchmark: random-vs-random play, full runner vs bare engine loop, per decision.

    python -m bench.bench_engine [--seconds 3] [--rounds 5] [--game ID]

For each game (default player count): the bare loop drives the engine directly (pending ->
random option -> apply; no observations, no requests, no record); the full runner plays through
``play_match`` with the built-in ``random`` bot in every seat (a typed DecisionRequest with the
packed observation, events and options per decision, the record). Both draw each seat's options
alike (the bare loop as the ``random`` bot does), so with the same seed they play the same match.

Both are measured in the same run, interleaved in slices of a few matches (about 20 ms of the
bare loop each, which goes first alternating), in CPU time of this thread (other work on a
shared machine does not count against either, and a change in the machine's own speed, as a
shared VM's, falls on both alike). The two play different seeds: a game's caches (Seer's
Catalog keeps the melds of the hands it has seen) would hand the second one the first one's
work on the same match. The ratio is of decisions per second (matches differ in length, so per
match it would carry the luck of the draw); ``--rounds`` rounds, and the ratio reported is the
median of the rounds' ratios: what the runner costs over the bare engine.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time

from arena.chance import Chance, derive_seed
from arena.engine import Game
from arena.registry import games
from arena.runner import play_match
from bench import options
from bots.registry import make_bot


def bare_match(game: Game, players: int, seed: int) -> int:
    """The match ``full_match`` plays with the same seed, decision for decision: each seat draws
    its option as the ``random`` bot does (its own generator, seeded as the runner seeds it), so
    both loops play the same matches and the ratio holds no chance difference in their lengths."""
    state = game.new_match(game.config(players), seed)
    seats = [Chance(derive_seed(seed, "bot", seat)) for seat in range(players)]
    decisions = 0
    while state.pending:
        decisions += len(state.pending)  # those decided now (counted before they are applied)
        game.apply(state, {d.seat: d.options[seats[d.seat].below(len(d.options), "bot")].id for d in state.pending})
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


SLICE_SECONDS = 0.02
"""The bare loop's CPU time a slice grows to: short enough that the machine's speed seldom
changes between a slice of one loop and the next slice of the other."""
FULL_SEEDS = 500_000
"""The full runner's seeds start this far from the bare loop's (see the module docstring)."""


def compare(game: Game, players: int, seconds: float, rounds: int) -> dict[str, object]:
    """Bare and full interleaved, ``rounds`` times: each round the bare loop plays matches for
    ``seconds / rounds`` of CPU time (at least 5), in slices that double until one takes
    ``SLICE_SECONDS``, each followed (or preceded: the order alternates) by as many matches of
    the full runner. The rates are over all rounds; the ratio is the median of the rounds'
    ratios of decisions per second."""
    totals = {"bare": [0, 0.0], "full": [0, 0.0]}
    ratios = []
    matches = 0
    for r in range(rounds):
        first = r * 1_000_000
        sums = {"bare": [0, 0.0], "full": [0, 0.0]}
        n, batch, slices = 0, 1, 0
        while sums["bare"][1] < seconds / rounds or n < 5:
            sides = (("bare", bare_match, first), ("full", full_match, first + FULL_SEEDS))
            took = {}
            for name, play, base in sides if slices % 2 == 0 else sides[::-1]:
                d, s = timed(play, game, players, range(base + n, base + n + batch))
                sums[name][0] += d
                sums[name][1] += s
                took[name] = s
            n += batch
            slices += 1
            if took["bare"] < SLICE_SECONDS:
                batch *= 2
        for name in ("bare", "full"):
            totals[name][0] += sums[name][0]
            totals[name][1] += sums[name][1]
        matches += n
        ratios.append(full_vs_bare(sums["bare"], sums["full"]))
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


def full_vs_bare(bare: list[float], full: list[float]) -> float:
    """The full runner's decisions per second over the bare loop's, each given as [decisions,
    CPU seconds]: what fraction of the bare engine's rate the runner keeps (below 1: it costs)."""
    (bare_d, bare_s), (full_d, full_s) = bare, full
    return (full_d / full_s) / (bare_d / bare_s)


def players_for(game: Game) -> int:
    """The player count a game is measured at: its default (two where it allows them)."""
    if game.meta.id == "getbit":
        return 4  # the base game (2 and 3 players are variants)
    return min(max(2, game.meta.min_players), game.meta.max_players)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=options.seconds(), default=3.0, help="CPU seconds per game for each of bare and full"
    )
    parser.add_argument(
        "--rounds", type=options.count(1), default=5, help="rounds per game (the ratio is their median)"
    )
    parser.add_argument("--game", action="append", default=[], help="only this game (repeatable)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.game) - set(games()))
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; known games: {', '.join(games())}")
    rows = []
    for game in games().values():
        if args.game and game.meta.id not in args.game:
            continue
        # What earlier games left alive (their modules, caches) is frozen out of the collector's
        # passes, so a game's figures do not depend on the games measured before it.
        gc.collect()
        gc.freeze()
        rows.append(compare(game, players_for(game), args.seconds, args.rounds))
    print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
