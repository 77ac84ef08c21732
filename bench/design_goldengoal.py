"""Golden Goal design check: heuristic self-play on the designed field.

    python -m bench.design_goldengoal --matches 200

Reports per ending: win rate by seat and of the Kickoff winner (seat advantage), draws, goals
per match, turns to the first goal, how goals were scored (from a front-of-net space straight or
diagonally, through a post, after a pass), how often the kick's options were used (bends,
passes, moves aside after a front-of-net kick, restarts), and the longest match in decisions.

    python -m bench.design_goldengoal --matches 100 --versus heuristic:attackers=1 heuristic:attackers=2

plays two bot specs head to head (here the two formations the rules allow: 1 or 2 Outfielders
on the opponent's half) with seats alternating.

Findings (100 matches each; also in components.toml): Time Limit 3.07 goals a match, first goal
after 11.4 turns, seat 0 / 1 win 0.40 / 0.38 with 0.22 draws, the Kickoff winner 47% of decided
matches; golden goal 0.47 / 0.49; 84% of goals from a front-of-net space, 16% off a post; 39% of
kicks bend, 32% are passes; 1 attacker against 2 attackers 0.555 (no dominant formation).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from arena.games.goldengoal import GAME
from arena.games.goldengoal.field import FRONT, cell
from arena.games.v1 import goldengoal_pb2 as pb
from arena.runner import play_match
from bench import options
from bots.registry import make_bot


def run(ending: str, matches: int, bot: str) -> dict:
    config = GAME.config(2, {"ending": ending})
    seat_wins = [0, 0]
    kickoff_wins = 0
    draws = 0
    goals = 0
    first_goal_turns: list[int] = []
    how: Counter[str] = Counter()
    decisions_max = 0
    for match in range(matches):
        seed = 70_000 + match
        record = play_match(GAME, config, seed, [make_bot(bot, "goldengoal") for _ in range(2)])
        decisions_max = max(decisions_max, len(record.decisions))
        state = GAME.new_match(config, seed)
        first = None
        for decision in record.decisions:
            GAME.apply(state, {decision.seat: decision.choice})
        turns_seen = 0
        for event in state.log.events:
            detail = event.detail
            if not isinstance(detail, pb.Detail):
                continue
            if event.kind == "roll" or (event.kind == "kickoff" and detail.restart):
                turns_seen += 1
            if event.kind == "kick":
                how["kicks"] += 1
                how["bent kicks"] += detail.turn != 0
                how["passes"] += bool(detail.passed_to)
                if detail.goal:
                    last = detail.path[-1] if detail.path else getattr(detail, "from")
                    start = cell(last.x, last.y)
                    how["goals from front of net" if FRONT[start] >= 0 else "goals through a post"] += 1
                    if first is None:
                        first = turns_seen
            if event.kind == "step" and detail.free:
                how["moves aside"] += 1
            if event.kind == "kickoff" and detail.restart:
                how["restarts"] += 1
        if first is not None:
            first_goal_turns.append(first)
        goals += sum(state.goals)
        if state.winner < 0:
            draws += 1
        else:
            seat_wins[state.winner] += 1
            kickoff_wins += state.winner == state.kickoff_seat
    decided = max(1, matches - draws)
    return {
        "ending": ending,
        "matches": matches,
        "seat_win_rate": [round(w / matches, 3) for w in seat_wins],
        "kickoff_winner_share_of_wins": round(kickoff_wins / decided, 3),
        "draws": round(draws / matches, 3),
        "goals_per_match": round(goals / matches, 2),
        "mean_turns_to_first_goal": round(sum(first_goal_turns) / max(1, len(first_goal_turns)), 1),
        "matches_with_a_goal": round(len(first_goal_turns) / matches, 3),
        "how": dict(sorted(how.items())),
        "longest_match_decisions": decisions_max,
    }


def versus(a: str, b: str, matches: int) -> dict:
    """Two bot specs head to head with seats alternating: is one formation always right?"""
    config = GAME.config(2)
    score_a = 0.0
    for match in range(matches):
        specs = [a, b] if match % 2 == 0 else [b, a]
        record = play_match(GAME, config, 90_000 + match, [make_bot(s, "goldengoal") for s in specs])
        ranks = record.result["ranks"]
        seat_a = 0 if match % 2 == 0 else 1
        score_a += 1.0 if ranks[seat_a] < ranks[1 - seat_a] else 0.5 if ranks[0] == ranks[1] else 0.0
    return {"a": a, "b": b, "matches": matches, "score_a": round(score_a / matches, 3)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=options.count(1), default=200)
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--ending", nargs="*", default=["time", "golden", "first3", "last"])
    parser.add_argument("--versus", nargs=2, metavar=("A", "B"), help="two bot specs head to head instead")
    args = parser.parse_args(argv)
    if args.versus:
        print(json.dumps(versus(*args.versus, args.matches)), flush=True)
        return
    for ending in args.ending:
        print(json.dumps(run(ending, args.matches, args.bot)), flush=True)


if __name__ == "__main__":
    main()
