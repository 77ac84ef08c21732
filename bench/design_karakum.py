"""Karakum design check: heuristic self-play (and random play) with the designed camel deck.

    python -m bench.design_karakum --matches 200

Reports per player count: win rate by turn position (the start seat is P1), mean turns and
score, the share of camels bought outside the caravan, how often each camel number is bought,
and, for the heuristic, how often its buy was the most expensive affordable camel (no choice
should be always right).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from arena.games.karakum import GAME
from arena.runner import play_match
from bench import options
from bots.registry import make_bot


def run(players: int, matches: int, bot: str) -> dict:
    config = GAME.config(players)
    position_wins = [0.0] * players
    numbers: Counter[int] = Counter()
    outside = caravan = turns = score = 0
    for match in range(matches):
        seed = 50_000 + match
        record = play_match(GAME, config, seed, [make_bot(bot, "karakum") for _ in range(players)])
        start = GAME.new_match(config, seed).turn_seat
        ranks = record.result["ranks"]
        winners = ranks.count(1)
        for seat in range(players):
            if ranks[seat] == 1:
                position_wins[(seat - start) % players] += 1 / winners
        for decision in record.decisions:
            if str(decision.choice).startswith("buy:"):
                numbers[int(str(decision.choice)[-1])] += 1
        score += sum(record.result["scores"])
        # Replay to read the final state (caravans, turns).
        state = GAME.new_match(config, seed)
        for decision in record.decisions:
            GAME.apply(state, {decision.seat: decision.choice})
        turns += state.turns
        caravan += sum(len(c) for c in state.caravans)
        outside += sum(len(c) for c in state.outside)
    return {
        "players": players,
        "bot": bot,
        "matches": matches,
        "win_rate_by_position": [round(w / matches, 3) for w in position_wins],
        "mean_turns": round(turns / matches, 1),
        "mean_score_per_player": round(score / matches / players, 1),
        "outside_share": round(outside / max(1, outside + caravan), 3),
        "bought_by_number": {n: numbers[n] for n in sorted(numbers)},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=options.count(1), default=200)
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument(
        "--players", type=options.count(GAME.meta.min_players, GAME.meta.max_players), nargs="*", default=[2, 3, 4]
    )
    args = parser.parse_args(argv)
    for players in args.players:
        print(json.dumps(run(players, args.matches, args.bot)), flush=True)


if __name__ == "__main__":
    main()
