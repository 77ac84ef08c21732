"""Design study for Zooloretto Dice: the enclosure bonuses and the coin groups (not found in any
source, DATA.md §17) compared by self-play of the heuristic bot (and random play).

    python -m bench.design_zoolorettodice --games 150            # every candidate design
    python -m bench.design_zoolorettodice --games 400 --only 1-2-3-4-5/2-2-2 --styles

For each candidate and player count it reports: rounds per game, winner's and mean scores, the
share of points from bonuses, how often each bonus is claimed, how often the bonuses decide the
winner (the winner set changes when bonus points are removed), the start player's win rate and
the mean coins. ``--styles`` plays 2-player duels of the default heuristic against styles that
always do one thing (take at once, roll as long as possible, ignore coins, ignore bonus races)
to check that no simple option is always right.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import replace
from types import SimpleNamespace

from arena.chance import Chance
from arena.games.zoolorettodice.game import COMPONENTS, ZoolorettoDice, ZooState, breakdown
from bench import options
from bots.games.zoolorettodice import HeuristicBot

BONUSES = [(1, 2, 3, 4, 5), (2, 3, 4, 5, 6), (1, 1, 2, 2, 3), (1, 2, 4, 6, 8)]
GROUPS = [(2, 2, 2), (1, 2, 3), (3, 2, 1)]

STYLES = {
    "take-at-once": dict(greed=0.0),
    "roll-long": dict(greed=10.0),
    "no-coins": dict(coin_weight=0.0),
    "no-bonus-race": dict(bonus_weight=0.0),
    "no-spite": dict(spite=0.0),
}


def play(game: ZoolorettoDice, players: int, seed: int, bots: Sequence[HeuristicBot | None]) -> ZooState:
    """One match; a ``None`` bot plays uniformly at random."""
    state = game.new_match(game.config(players), seed)
    rng = Chance(seed ^ 0xD1CE)
    while state.pending:
        (decision,) = state.pending
        bot = bots[decision.seat]
        if bot is None:
            choice = rng.pick(decision.options, "random").id
        else:
            turn = SimpleNamespace(
                kind=decision.kind, option_ids=decision.option_ids, observation=game.observe(state, decision.seat)
            )
            choice = bot.choose(turn)  # type: ignore[arg-type]
        game.apply(state, {decision.seat: choice})
    return state


def study(game: ZoolorettoDice, players: int, games: int, random_play: bool = False) -> dict:
    rounds = winner_score = mean_score = bonus_points = all_points = 0.0
    claimed = [0] * 5
    decided = start_wins = coins = 0.0
    for seed in range(games):
        bots = [None if random_play else HeuristicBot() for _ in range(players)]
        state = play(game, players, seed, bots)
        result = game.score(state)
        winners = result.winners
        start = _first_start(state)
        start_wins += (start in winners) / len(winners)
        rounds += state.round
        parts = [breakdown(z, game.comp) for z in state.zoos]
        winner_score += max(p.total for p in parts)
        mean_score += sum(p.total for p in parts) / players
        bonus_points += sum(p.bonuses for p in parts)
        all_points += sum(max(p.total, 0) for p in parts)
        claimed = [c + (o >= 0) for c, o in zip(claimed, state.bonus_owner, strict=True)]
        without = [(p.total - p.bonuses, z.coins) for p, z in zip(parts, state.zoos, strict=True)]
        best = max(without)
        decided += {s for s, k in enumerate(without) if k == best} != set(winners)
        coins += sum(z.coins for z in state.zoos) / players
    n = games
    return {
        "rounds": round(rounds / n, 2),
        "winner_score": round(winner_score / n, 2),
        "mean_score": round(mean_score / n, 2),
        "bonus_share": round(bonus_points / max(all_points, 1), 3),
        "bonus_claimed": [round(c / n, 2) for c in claimed],
        "bonus_decides": round(decided / n, 3),
        "start_player_wins": round(start_wins / n, 3),
        "coins": round(coins / n, 2),
    }


def _first_start(state: ZooState) -> int:
    return next(e.seat for e in state.log.events if e.kind == "round")


def duel(game: ZoolorettoDice, games: int, style: dict) -> float:
    """Win rate of the default heuristic against one style, 2 players, seats alternating."""
    wins = 0.0
    for seed in range(games):
        me = seed % 2
        bots = [HeuristicBot(), HeuristicBot()]
        bots[1 - me] = HeuristicBot(**style)
        result = game.score(play(game, 2, seed, bots))
        wins += (me in result.winners) / len(result.winners)
    return round(wins / games, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=options.count(1), default=150)
    parser.add_argument("--only", help="one design, bonuses/groups, e.g. 1-2-3-4-5/2-2-2")
    parser.add_argument(
        "--players",
        type=options.count(ZoolorettoDice.meta.min_players, ZoolorettoDice.meta.max_players),
        nargs="*",
        default=[2, 3, 4],
    )
    parser.add_argument("--styles", action="store_true")
    parser.add_argument("--random", action="store_true", help="also random self-play")
    args = parser.parse_args(argv)
    designs = [(b, g) for b in BONUSES for g in GROUPS]
    if args.only:
        bonus, groups = args.only.split("/")
        designs = [(tuple(map(int, bonus.split("-"))), tuple(map(int, groups.split("-"))))]
    for bonuses, groups in designs:
        game = ZoolorettoDice(replace(COMPONENTS, bonuses=bonuses, coin_groups=groups))
        name = f"{'-'.join(map(str, bonuses))}/{'-'.join(map(str, groups))}"
        for players in args.players:
            row = {"design": name, "players": players, "play": "heuristic", **study(game, players, args.games)}
            print(json.dumps(row), flush=True)
            if args.random:
                row = {"design": name, "players": players, "play": "random", **study(game, players, args.games, True)}
                print(json.dumps(row), flush=True)
        if args.styles:
            duels = {style: duel(game, args.games, kw) for style, kw in STYLES.items()}
            print(json.dumps({"design": name, "default_vs_style_2p": duels}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
