"""Does the designed edge table of Trick to the Future make a good game? Self-play figures.

    python -m bench.design_tricktothefuture --matches 200

Per player count (arena deal), heuristic self-play on the engine: the round categories (Lost in
Time / Safe / Perfect / Inoperative) and their mean points, rods spent per player and round,
how often each edge move is used and how often the card then wins its trick, the win rate by
seat (seat advantage: the first leader is whoever holds the Past 0, so seat 0 is the first to
act only by chance; seat 0 is also the first one dealt), and the win rate of a heuristic that
never spends fuel against three/one that does (is spending fuel worth it?). Random self-play
gives the same category figures for comparison.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from arena.chance import Chance
from arena.games.tricktothefuture import GAME
from arena.games.v1 import tricktothefuture_pb2 as pb
from arena.scenario import request_for
from bench import options
from bots.registry import make_bot


def simulate(players: int, matches: int, specs: list[str], rotate: bool = False) -> dict[str, object]:
    categories: Counter[str] = Counter()
    points: Counter[str] = Counter()
    moves: Counter[str] = Counter()
    move_wins: Counter[str] = Counter()
    spent = 0
    rounds = 0
    wins = [0.0] * players
    spec_wins: Counter[str] = Counter()
    spec_seats: Counter[str] = Counter()
    for match in range(matches):
        state = GAME.new_match(GAME.config(players), seed=match)
        shift = match % players if rotate else 0
        seat_spec = [specs[(s - shift) % len(specs)] if len(specs) > 1 else specs[0] for s in range(players)]
        bots = [None if sp == "random" else make_bot(sp, GAME.meta.id) for sp in seat_spec]
        rng = Chance(10_000 + match)
        while state.pending:
            (decision,) = state.pending
            bot = bots[decision.seat]
            if bot is None:
                choice = rng.pick(decision.options, "bot").id
            else:
                choice = bot.decide(request_for(GAME, state, decision.seat))
            before = len(state.done)
            GAME.apply(state, {decision.seat: choice})
            if len(state.done) > before or (state.done and state.current == [] and before == len(state.done)):
                pass
        for event in state.log.events:
            if event.kind == "score":
                rounds += 1
                for row in event.detail.scores:
                    name = pb.Category.Name(row.category)
                    categories[name] += 1
                    points[name] += row.points
            elif event.kind == "trick":
                pass
        # moves: replay the tricks from the play/trick events
        plays: list[pb.Detail] = []
        for event in state.log.events:
            if event.kind == "play":
                plays.append(event.detail)
            elif event.kind == "trick":
                for d in plays:
                    key = f"{d.card.rank}->{d.value}"
                    moves[key] += 1
                    move_wins[key] += d.seat == event.detail.seat
                    spent += d.rods
                plays = []
        result = GAME.result(state)
        assert result is not None
        for s in result.winners:
            wins[s] += 1 / len(result.winners)
            spec_wins[seat_spec[s]] += 1 / len(result.winners)
        for s in range(players):
            spec_seats[seat_spec[s]] += 1
    total = sum(categories.values())
    return {
        "players": players,
        "matches": matches,
        "bots": specs,
        "categories": {k: round(v / total, 3) for k, v in sorted(categories.items())},
        "mean_points": {k: round(points[k] / categories[k], 2) for k in sorted(categories)},
        "rods_spent_per_player_round": round(spent / (rounds * players), 2),
        "moves": {
            k: {"share": round(v / sum(moves.values()), 4), "wins": round(move_wins[k] / v, 2)}
            for k, v in sorted(moves.items(), key=lambda kv: -kv[1])
            if k.split("->")[0] != k.split("->")[1]
        },
        "unmodified_share": round(
            sum(v for k, v in moves.items() if k.split("->")[0] == k.split("->")[1]) / sum(moves.values()), 3
        ),
        "win_rate_by_seat": [round(w / matches, 3) for w in wins],
        "win_rate_by_bot": {k: round(spec_wins[k] / spec_seats[k] * players, 3) for k in spec_seats}
        if len(specs) > 1
        else {},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=options.count(1), default=200)
    parser.add_argument(
        "--players", type=options.count(GAME.meta.min_players, GAME.meta.max_players), nargs="*", default=[2, 3, 4, 5]
    )
    args = parser.parse_args(argv)
    for n in args.players:
        print(json.dumps(simulate(n, args.matches, ["heuristic"])))
        print(json.dumps(simulate(n, args.matches, ["random"])))
        print(json.dumps(simulate(n, args.matches, ["heuristic:fuel=0"] + ["heuristic"] * (n - 1), rotate=True)))


if __name__ == "__main__":
    main()
