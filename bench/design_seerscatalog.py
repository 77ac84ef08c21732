"""Design checks for Seers Catalog's arena-edition Artifacts (``components.toml``).

    python -m bench.design_seerscatalog --games 100            # heuristic self-play per player count
    python -m bench.design_seerscatalog --random 2000 --games 0  # random-play invariants (tests')

Self-play reports, per player count: seat advantage (win rate of seat 0 and of the round-1 Start
Seer), decisions per game, how rounds end, how often each Artifact is played with its ability,
without it, or kept to the end of a round, and the mean round score of the seat that used each
ability (is any ability always right?).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict

from arena.games.seerscatalog import GAME
from arena.runner import play_match
from bench import options
from bots.registry import make_bot


def self_play(players: int, games: int, bot: str = "heuristic") -> dict:
    wins0 = wins_seer = 0.0
    steps = 0
    used: Counter[str] = Counter()
    shed: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    ends: Counter[str] = Counter()
    user_scores: dict[str, list[int]] = defaultdict(list)
    passes = plays = 0
    for g in range(games):
        record = play_match(
            GAME, GAME.config(players), 50_000 + g, [make_bot(bot, "seerscatalog") for _ in range(players)]
        )
        ranks = record.result["ranks"]
        k = ranks.count(1)
        wins0 += (ranks[0] == 1) / k
        steps += len(record.decisions)
        state = GAME.new_match(GAME.config(players), 50_000 + g)
        for d in record.decisions:
            GAME.apply(state, {d.seat: d.choice})
        seer = next(e.detail.leader for e in state.log.events if e.kind == "round" and e.detail.round == 1)
        wins_seer += (ranks[seer] == 1) / k
        round_users: list[tuple[int, str]] = []
        for e in state.log.events:
            if e.kind == "play":
                plays += 1
                art = e.detail.meld.artifact or next(
                    (c.card for c in e.detail.meld.cards if c.card.startswith("@")), ""
                )
                if art:
                    if e.detail.meld.ability or not e.detail.meld.artifact:
                        used[art] += 1
                        round_users.append((e.seat, art))
                    else:
                        shed[art] += 1
            elif e.kind == "pass":
                passes += 1
            elif e.kind == "round-end":
                ends["empty hand" if "no cards left" in e.text else "nobody can start"] += 1
                for seat, art in round_users:
                    user_scores[art].append(e.detail.scores[seat])
                round_users = []
                for part in e.text.split("(")[2:]:
                    kept.update(t for t in part.split(")")[0].split() if t.startswith("@"))
    return {
        "players": players,
        "games": games,
        "seat0_win_rate": round(wins0 / games, 3),
        "round1_start_seer_win_rate": round(wins_seer / games, 3),
        "decisions_per_game": round(steps / games, 1),
        "pass_share": round(passes / max(1, passes + plays), 3),
        "round_ends": dict(ends),
        "ability_used": dict(sorted(used.items())),
        "played_without_ability": dict(sorted(shed.items())),
        "kept_at_round_end": dict(sorted(kept.items())),
        "mean_round_score_of_ability_user": {a: round(sum(v) / len(v), 2) for a, v in sorted(user_scores.items())},
    }


def random_invariants(games: int) -> dict:
    from tests.contract import random_playout
    from tests.test_seerscatalog import MAX_STEPS, invariant

    longest = 0
    for i in range(games):
        state = random_playout(GAME, GAME.config(2 + i % 4), 1000 + i, invariant=invariant, observe=False)
        longest = max(longest, state.steps)
    return {"random_games": games, "longest": longest, "bound": MAX_STEPS}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=options.count(0), default=100)
    parser.add_argument(
        "--players", type=options.count(GAME.meta.min_players, GAME.meta.max_players), nargs="*", default=[2, 3, 4, 5]
    )
    parser.add_argument("--random", type=options.count(0), default=0)
    parser.add_argument("--bot", default="heuristic")
    args = parser.parse_args(argv)
    if args.games:
        for players in args.players:
            print(json.dumps(self_play(players, args.games, args.bot)), flush=True)
    if args.random:
        print(json.dumps(random_invariants(args.random)), flush=True)


if __name__ == "__main__":
    main()
