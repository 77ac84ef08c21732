"""Gasha design check: heuristic self-play with the designed backs, Set Rewards and tokens.

    python -m bench.design_gasha --matches 200

Reports per player count: win rate by turn position (the start seat is P1), mean turns and
scores, what triggered the end, the share of the score from rewards / tokens / unused Gashas,
claims per reward family (which families are taken, and which share of them the winners took),
Bonus tokens by kind (and which share the winners took), and probes: one seat with another claiming policy
against heuristic opponents (a hoarder that never claims must not win; no policy should
dominate).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from arena.games.gasha import GAME
from arena.games.gasha.game import REWARD_BY_ID
from arena.games.v1 import gasha_pb2 as pb
from arena.runner import play_match
from bench import options
from bots.registry import make_bot

# One seat plays a different claiming policy against heuristic opponents: never claim (draw
# only, but a last turn), claim only what beats a draw by 4 points, claim whatever beats a draw.
PROBES = {"hoarder": "heuristic:greed=10", "picky": "heuristic:greed=4", "eager": "heuristic:greed=0"}
TRIGGERS = {pb.LAST_TOKEN: "last_token", pb.REWARDS_EMPTY: "rewards_empty", pb.NO_DECKS: "no_decks"}


def replay(players: int, seed: int, specs: list[str]):
    config = GAME.config(players)
    record = play_match(GAME, config, seed, [make_bot(s, "gasha") for s in specs])
    state = GAME.new_match(config, seed)
    for decision in record.decisions:
        GAME.apply(state, {decision.seat: decision.choice})
    return record, state


def run(players: int, matches: int) -> dict:
    position_wins = [0.0] * players
    turns = 0
    triggers: Counter[str] = Counter()
    families: Counter[str] = Counter()
    family_wins: Counter[str] = Counter()
    bonuses: Counter[int] = Counter()
    bonus_wins: Counter[int] = Counter()
    parts = Counter[str]()
    for match in range(matches):
        seed = 70_000 + match
        record, state = replay(players, seed, ["heuristic"] * players)
        start = GAME.new_match(GAME.config(players), seed).turn_seat
        ranks = record.result["ranks"]
        winners = ranks.count(1)
        for seat in range(players):
            if ranks[seat] == 1:
                position_wins[(seat - start) % players] += 1 / winners
            for r in state.rewards[seat]:
                family = REWARD_BY_ID[r].family
                families[family] += 1
                if ranks[seat] == 1:
                    family_wins[family] += 1 / winners
            bonuses.update(state.tokens[seat])
            if ranks[seat] == 1:
                bonus_wins.update({b: 1 / winners for b in state.tokens[seat]})
            parts["rewards"] += GAME.reward_points(state, seat)
            parts["tokens"] += 3 * state.tokens[seat].count(pb.THREE_POINTS)
            parts["unused"] += len(state.hands[seat]) + state.wilds[seat]
        turns += state.turns
        triggers[TRIGGERS[state.trigger]] += 1
    total = sum(parts.values())
    probes = {}
    probe_matches = max(20, matches // 4)
    for name, spec in PROBES.items():
        won = 0.0
        for match in range(probe_matches):
            seat = match % players
            specs = ["heuristic"] * players
            specs[seat] = spec
            record, _ = replay(players, 90_000 + match, specs)
            ranks = record.result["ranks"]
            won += (ranks[seat] == 1) / ranks.count(1)
        probes[name] = round(won / probe_matches, 3)
    return {
        "players": players,
        "matches": matches,
        "win_rate_by_position": [round(w / matches, 3) for w in position_wins],
        "mean_turns": round(turns / matches, 1),
        "mean_score_per_player": round(total / matches / players, 1),
        "score_share": {k: round(v / total, 3) for k, v in sorted(parts.items())},
        "triggers": dict(sorted(triggers.items())),
        "claims_per_game_by_family": {f: round(n / matches, 2) for f, n in sorted(families.items())},
        "winner_share_of_family_claims": {f: round(family_wins[f] / n, 3) for f, n in sorted(families.items())},
        "tokens_by_kind": {pb.Bonus.Name(pb.Bonus.ValueType(b)): n for b, n in sorted(bonuses.items())},
        "winner_share_of_tokens": {
            pb.Bonus.Name(pb.Bonus.ValueType(b)): round(bonus_wins[b] / n, 3) for b, n in sorted(bonuses.items())
        },
        "probe_win_rates": probes,
        "fair_share": round(1 / players, 3),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=options.count(1), default=200)
    parser.add_argument(
        "--players",
        type=options.count(GAME.meta.min_players, GAME.meta.max_players),
        nargs="*",
        default=[2, 3, 4, 5, 6],
    )
    args = parser.parse_args(argv)
    for players in args.players:
        print(json.dumps(run(players, args.matches)), flush=True)


if __name__ == "__main__":
    main()
