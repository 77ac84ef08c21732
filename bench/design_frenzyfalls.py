"""Frenzy Falls design check: heuristic self-play with the designed Waterfall and Score cards.

    python -m bench.design_frenzyfalls --games 200

Per player count: win rate by position (P1 = the round-1 first player) and by seat, rounds per
game (mean, max), spills per round, how many spills were cascades (a Pool spilling again in the
same reveal after a card moved in), Score cards and points per game, and each card's share of
the plays. Then (3 players) for each card: the win rate of one seat that never plays it while it
has another card (rotating seats, the others the default heuristic; 1/3 = the card is neither a
must-play nor a dead card), and the mean points of the Score cards won at each starting water.
"""

from __future__ import annotations

import argparse
from collections import Counter

from arena.games.frenzyfalls import GAME
from arena.games.frenzyfalls.game import KINDS, SCORES
from bench import options
from bench.engine_turn import EngineTurn
from bots.games.frenzyfalls import HeuristicBot


class Avoid(HeuristicBot):
    """The heuristic, but never playing one card while it holds another."""

    def __init__(self, card: str) -> None:
        super().__init__()
        self.card = card

    def choose(self, turn) -> str:  # type: ignore[no-untyped-def]
        if turn.kind == "play":
            allowed = [o for o in turn.options if not o.id.startswith(f"play:{self.card}@")]
            if allowed and len(allowed) < len(turn.options):
                turn = EngineTurn(turn.kind, turn.observation, tuple(allowed))
        return super().choose(turn)


def play(players: int, seed: int, bots: list[HeuristicBot], stats: Counter | None = None) -> tuple[list[int], int]:
    state = GAME.new_match(GAME.config(players), seed)
    first = state.first
    while state.pending:
        choices = {}
        for decision in state.pending:
            obs = GAME.observe(state, decision.seat)
            turn = EngineTurn(decision.kind, obs, decision.options)
            choices[decision.seat] = bots[decision.seat].choose(turn)  # type: ignore[arg-type]
            if stats is not None and decision.kind == "play":
                stats["play:" + choices[decision.seat].split(":")[1].split("@")[0]] += 1
        GAME.apply(state, choices)
    if stats is not None:
        stats["games"] += 1
        stats["rounds"] += state.round
        stats["max_rounds"] = max(stats["max_rounds"], state.round)
        spilled: set[int] = set()
        for event in state.log.events:
            if event.kind == "round":
                spilled = set()
            if event.kind == "spill":
                stats["spills"] += 1
                stats["cascades"] += event.detail.pool in spilled
                spilled.add(event.detail.pool)
                stats[f"won_water:{event.detail.score.water}"] += 1
        stats["points"] += sum(sum(SCORES[c].points for c in w) for w in state.won)
    result = GAME.result(state)
    assert result is not None
    return list(result.ranks), first


def base_report(games: int) -> None:
    for players in range(2, 7):
        stats: Counter = Counter()
        by_position = [0.0] * players
        by_seat = [0.0] * players
        for g in range(games):
            ranks, first = play(players, g, [HeuristicBot() for _ in range(players)], stats)
            k = ranks.count(1)
            for seat in range(players):
                if ranks[seat] == 1:
                    by_position[(seat - first) % players] += 1 / k
                    by_seat[seat] += 1 / k
        plays = {k.name: stats[f"play:{k.name}"] for k in KINDS}
        total = sum(plays.values())
        print(
            f"{players}p: win by position {[round(w / games, 3) for w in by_position]} "
            f"by seat {[round(w / games, 3) for w in by_seat]} (fair {1 / players:.3f}); rounds "
            f"{stats['rounds'] / games:.1f} (max {stats['max_rounds']}); spills/round "
            f"{stats['spills'] / stats['rounds']:.2f}, cascades {stats['cascades'] / stats['spills']:.2f}; "
            f"points/game {stats['points'] / games:.1f}; plays "
            + ", ".join(f"{n} {v / total:.2f}" for n, v in plays.items()),
            flush=True,
        )


def avoid_report(games: int, players: int = 3) -> None:
    for kind in KINDS:
        wins = 0.0
        for g in range(games):
            seat = g % players
            bots = [HeuristicBot() for _ in range(players)]
            bots[seat] = Avoid(kind.name)
            ranks, _ = play(players, 70_000 + g, bots)
            wins += (ranks[seat] == 1) / ranks.count(1)
        print(f"never {kind.name:8s}: win {wins / games:.3f} (fair {1 / players:.3f})", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=options.count(1), default=200)
    parser.add_argument("--part", choices=("base", "avoid", "all"), default="all")
    args = parser.parse_args(argv)
    if args.part in ("base", "all"):
        base_report(args.games)
    if args.part in ("avoid", "all"):
        avoid_report(args.games)


if __name__ == "__main__":
    main()
