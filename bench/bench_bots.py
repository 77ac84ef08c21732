"""What a decision costs, per game: the built-in bots' own time and the observation's.

    python -m bench.bench_bots [--seconds 0.5] [--game karakum ...] [--json]

For each game, at the fewest and the most players its default options accept:

* ``random`` and ``heuristic`` matches (every seat the same bot) played for ``--seconds`` each:
  time per decision, and the heuristic's as a multiple of random's measured in the same run
  (random reads no observation, so its time is the runner and the engine's);
* the observation of the deciding seat, packed and serialised as a remote bot receives it, at
  every position of random playouts (the referee builds one for every remote request): mean and
  99th percentile per decision (a maximum would report the garbage collector's pauses).

Sorted by the heuristic's multiple, highest first: a game whose bot or observation costs far more
than the others stands out (Karakum's 4-player heuristic was 500x random before its charging
search remembered dead positions, 18 ms a decision, nearly all of it the observation).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from arena.chance import Chance
from arena.config import ConfigError
from arena.engine import Game
from arena.protocol import pack
from arena.registry import games
from arena.runner import play_match
from bench import options
from bots.registry import bot_names, make_bot


def per_decision(game: Game, players: int, bot: str, seconds: float) -> float:
    """Seconds per decision of matches between ``bot`` in every seat (at least one match)."""
    config = game.config(players, {})
    began, decisions, seed = time.perf_counter(), 0, 0
    while seed == 0 or time.perf_counter() - began < seconds:
        record = play_match(game, config, seed, [make_bot(bot, game.meta.id) for _ in range(players)])
        decisions += len(record.decisions)
        seed += 1
    return (time.perf_counter() - began) / max(1, decisions)


def observation_cost(game: Game, players: int, matches: int) -> tuple[float, float]:
    """(mean, 99th percentile) seconds to build and serialise the deciding seats' observations,
    over every position of ``matches`` random playouts."""
    config = game.config(players, {})
    spent: list[float] = []
    for seed in range(matches):
        state = game.new_match(config, seed)
        rng = Chance(seed)
        while state.pending:
            for decision in state.pending:
                began = time.perf_counter()
                pack(game.observe(state, decision.seat)).SerializeToString()
                spent.append(time.perf_counter() - began)
            game.apply(state, {d.seat: d.options[rng.below(len(d.options), "bench")].id for d in state.pending})
    spent.sort()
    return statistics.fmean(spent), spent[min(len(spent) - 1, int(0.99 * len(spent)))]


def player_counts(game: Game) -> list[int]:
    """The fewest and the most players the game's default options accept: a count only a
    variant plays (Get Bit!'s 7, with the shark) gives way to the next one that is not."""
    accepted = []
    for players in range(game.meta.min_players, game.meta.max_players + 1):
        try:
            game.config(players, {})
        except ConfigError:
            continue
        accepted.append(players)
    return sorted({accepted[0], accepted[-1]})


def measure(game_id: str, seconds: float, matches: int) -> list[dict[str, object]]:
    game = games()[game_id]
    rows: list[dict[str, object]] = []
    for players in player_counts(game):
        row: dict[str, object] = {"game": game_id, "players": players}
        random_s = per_decision(game, players, "random", seconds)
        row["random_us"] = round(random_s * 1e6, 1)
        if "heuristic" in bot_names(game_id):
            heuristic_s = per_decision(game, players, "heuristic", seconds)
            row["heuristic_us"] = round(heuristic_s * 1e6, 1)
            row["heuristic_vs_random"] = round(heuristic_s / random_s, 3)
        mean, p99 = observation_cost(game, players, matches)
        row["observation_us"] = round(mean * 1e6, 1)
        row["observation_p99_us"] = round(p99 * 1e6, 1)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=options.seconds(), default=0.5, help="per bot, game and player count")
    parser.add_argument("--matches", type=options.count(1), default=4, help="random playouts for the observation cost")
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    ids = args.game or sorted(games())
    unknown = [g for g in ids if g not in games()]
    if unknown:
        parser.error(f"unknown game {unknown[0]!r}; known games: {', '.join(sorted(games()))}")
    rows = [row for game_id in ids for row in measure(game_id, args.seconds, args.matches)]
    rows.sort(key=lambda r: -float(r.get("heuristic_vs_random", 0.0)))  # type: ignore[arg-type]
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    print(f"{'game':18} {'n':>2} {'random µs':>10} {'heuristic µs':>13} {'x random':>9} {'obs µs':>8} {'p99':>8}")
    for r in rows:
        print(
            f"{r['game']:18} {r['players']:>2} {r['random_us']:>10} {r.get('heuristic_us', '-'):>13} "
            f"{r.get('heuristic_vs_random', '-'):>9} {r['observation_us']:>8} {r['observation_p99_us']:>8}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
