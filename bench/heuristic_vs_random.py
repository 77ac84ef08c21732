"""Does a game's ``heuristic`` bot beat ``random``? Matches with rotated seats.

    python -m bench.heuristic_vs_random --game skyfive --players 3 --matches 500

One heuristic seat against random opponents; the heuristic's seat rotates match by match. Prints
the heuristic's win rate (a shared win counts as 1/k for k winners) and mean rank, next to what a
random player expects in the same seats (1/N and the mean rank of random seats).

A win is counted as the game scores it. Most games rank their winners first; in Get Bit! the
score is the outcome itself (1 for the winner, 0 for everyone else), and with 3 players the
robot swimmer can escape: then nobody wins, though the seats are still ranked by how long they
lasted. Such matches count as a win for no one (``no_winner`` says how many there were).
"""

from __future__ import annotations

import argparse
import json
import sys

from arena.registry import get_game
from arena.runner import play_match
from bench import options
from bots.registry import make_bot

OUTCOME_SCORED = {"getbit"}
"""Games whose score is the win itself (1 = won, 0 = did not): rank 1 alone is not a win."""


def win_share(game_id: str, scores: list[float], ranks: list[int], seat: int) -> float:
    """How much of a win ``seat`` scored: 1/k for one of k winners, 0 otherwise."""
    if game_id in OUTCOME_SCORED:
        winners = [s for s, score in enumerate(scores) if score > 0]
    else:
        winners = [s for s, rank in enumerate(ranks) if rank == 1]
    return 1 / len(winners) if seat in winners else 0.0


def measure(game_id: str, players: int, matches: int, bot: str = "heuristic", options: dict | None = None) -> dict:
    game = get_game(game_id)
    config = game.config(players, options or {})
    wins = 0.0
    no_winner = 0
    rank_sum = 0
    other_rank_sum = 0
    for match in range(matches):
        seat = match % players
        specs = ["random"] * players
        specs[seat] = bot
        record = play_match(game, config, 10_000 + match, [make_bot(s, game_id) for s in specs])
        ranks = record.result["ranks"]
        scores = record.result["scores"]
        wins += win_share(game_id, scores, ranks, seat)
        no_winner += not any(win_share(game_id, scores, ranks, s) for s in range(players))
        rank_sum += ranks[seat]
        other_rank_sum += sum(ranks) - ranks[seat]
    return {
        "game": game_id,
        "players": players,
        "options": options or {},
        "matches": matches,
        "bot": bot,
        "win_rate": round(wins / matches, 3),
        "random_expected_win_rate": round(1 / players, 3),  # an upper bound when no_winner > 0
        "no_winner": no_winner,
        "mean_rank": round(rank_sum / matches, 3),
        "random_mean_rank": round(other_rank_sum / (matches * (players - 1)), 3) if players > 1 else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=options.count(1), required=True)
    parser.add_argument("--matches", type=options.count(1), default=500)
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    game_options = dict(item.split("=", 1) for item in args.option)
    print(json.dumps(measure(args.game, args.players, args.matches, args.bot, game_options)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
