"""Does a game's ``heuristic`` bot beat ``random``? Matches with rotated seats.

    python -m bench.heuristic_vs_random --game skyfive --players 3 --matches 500

One heuristic seat against random opponents; the heuristic's seat rotates match by match. Prints
the heuristic's win rate (a shared win counts as 1/k for k winners) and mean rank, next to what a
random player expects in the same seats (1/N and the mean rank of random seats).
"""

from __future__ import annotations

import argparse
import json
import sys

from arena.registry import get_game
from arena.runner import play_match
from bots.registry import make_bot


def measure(game_id: str, players: int, matches: int, bot: str = "heuristic", options: dict | None = None) -> dict:
    game = get_game(game_id)
    config = game.config(players, options or {})
    wins = 0.0
    rank_sum = 0
    other_rank_sum = 0
    for match in range(matches):
        seat = match % players
        specs = ["random"] * players
        specs[seat] = bot
        record = play_match(game, config, 10_000 + match, [make_bot(s, game_id) for s in specs])
        ranks = record.result["ranks"]
        winners = ranks.count(1)
        if ranks[seat] == 1:
            wins += 1 / winners
        rank_sum += ranks[seat]
        other_rank_sum += sum(ranks) - ranks[seat]
    return {
        "game": game_id,
        "players": players,
        "options": options or {},
        "matches": matches,
        "bot": bot,
        "win_rate": round(wins / matches, 3),
        "random_expected_win_rate": round(1 / players, 3),
        "mean_rank": round(rank_sum / matches, 3),
        "random_mean_rank": round(other_rank_sum / (matches * (players - 1)), 3) if players > 1 else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--matches", type=int, default=500)
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    options = dict(item.split("=", 1) for item in args.option)
    print(json.dumps(measure(args.game, args.players, args.matches, args.bot, options)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
