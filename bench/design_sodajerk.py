"""Soda Jerk design checks: heuristic self-play of the designed numbers and B-side powers.

    python -m bench.design_sodajerk --games 200

Prints, per player count: the round-1 first player's win rate, how rounds end, decisions per
game, the place/flip mix and mean totals; then, per power (Advanced, 3 players), how often the
heuristic uses it when offered and the win rate of one seat that always uses it or never uses
it (rotating seats, the others the default heuristic; 1/3 = no difference); then
(``--part oracle``) at every power offer, whether using it beats skipping when the round is
played out both ways from the true state.
"""

from __future__ import annotations

import argparse
from collections import Counter

from arena.chance import Chance
from arena.engine import clone
from arena.games.sodajerk import GAME
from arena.games.v1 import sodajerk_pb2 as pb
from bench.engine_turn import EngineTurn
from bench.options import count
from bots.games.sodajerk import HeuristicBot, View

POWER_OF = {
    "spill": pb.USE_SPILL,
    "pour": pb.USE_POUR,
    "move": pb.USE_MOVE,
    "fizz": pb.USE_FIZZ,
    "last-call": pb.USE_LAST_CALL,
}


class Forced(HeuristicBot):
    """The heuristic, but always (or never) using one power when it is offered."""

    def __init__(self, power: int, always: bool) -> None:
        super().__init__()
        self.forced = power
        self.always = always

    def power_choice(self, view: View, turn) -> str:  # type: ignore[no-untyped-def]
        uses = [o for o in turn.options if o.action.kind == self.forced]
        if not uses:
            return super().power_choice(view, turn)
        if not self.always:
            return "skip"
        gains = dict(self.power_gains(view, turn))
        return max(uses, key=lambda o: gains.get(o.id, 0.0)).id


def play(
    players: int, seed: int, bots: list[HeuristicBot], options: dict | None = None, stats: Counter | None = None
) -> tuple[list[int], int]:
    state = GAME.new_match(GAME.config(players, options or {}), seed)
    first = state.first_seat
    while state.pending:
        (decision,) = state.pending
        obs = GAME.observe(state, decision.seat)
        choice = bots[decision.seat].choose(EngineTurn(decision.kind, obs, decision.options))  # type: ignore[arg-type]
        if stats is not None:
            stats[decision.kind + ":" + choice.split(":")[0]] += 1
            if decision.kind == "power":
                kinds = {o.action.kind for o in decision.options} - {pb.SKIP}
                for k in kinds:
                    stats[f"offered:{k}"] += 1
                    if decision.find(choice).action.kind == k:
                        stats[f"used:{k}"] += 1
        GAME.apply(state, {decision.seat: choice})
    if stats is not None:
        for e in state.log.events:
            if e.kind == "round-end":
                stats["end:" + e.detail.reason] += 1
        stats["decisions"] += state.steps
    result = GAME.result(state)
    assert result is not None
    LAST_SCORES[:] = result.scores
    return list(result.ranks), first


LAST_SCORES: list[float] = []


def margin(seat: int) -> float:
    """The seat's total minus the mean of the others' in the last game played."""
    others = [s for i, s in enumerate(LAST_SCORES) if i != seat]
    return LAST_SCORES[seat] - sum(others) / len(others)


def mean_se(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    mu = sum(xs) / n
    var = sum((x - mu) ** 2 for x in xs) / max(1, n - 1)
    return mu, (var / n) ** 0.5


def base_report(games: int) -> None:
    for players in (2, 3, 4):
        for options in ({}, {"advanced": True}):
            stats: Counter = Counter()
            first_wins = 0.0
            seat0 = 0.0
            totals = Counter()
            for g in range(games):
                ranks, first = play(players, g, [HeuristicBot() for _ in range(players)], options, stats)
                k = ranks.count(1)
                first_wins += (ranks[first] == 1) / k
                seat0 += (ranks[0] == 1) / k
            ends = {k[4:]: v for k, v in stats.items() if k.startswith("end:")}
            n_end = sum(ends.values())
            places, flips = stats["turn:place"], stats["turn:flip"]
            print(
                f"{players}p {'advanced' if options else 'basic   '}: round-1 first player wins "
                f"{first_wins / games:.3f} (fair {1 / players:.3f}); decisions/game "
                f"{stats['decisions'] / games:.1f}; flips {flips / (places + flips):.2f} of turns; "
                "round ends " + ", ".join(f"{k} {v / n_end:.2f}" for k, v in sorted(ends.items()))
            )
            del totals, seat0


def power_report(games: int, players: int = 3, only: str = "") -> None:
    stats: Counter = Counter()
    for g in range(games):
        play(players, g, [HeuristicBot() for _ in range(players)], {"advanced": True}, stats)
    for name, kind in POWER_OF.items():
        if only and name != only:
            continue
        offered, used = stats[f"offered:{kind}"], stats[f"used:{kind}"]
        rates = []
        for always in (True, False):
            wins = 0.0
            margins = []
            for g in range(games):
                seat = g % players
                bots = [HeuristicBot() for _ in range(players)]
                bots[seat] = Forced(kind, always)
                ranks, _ = play(players, 50_000 + g, bots, {"advanced": True})
                wins += (ranks[seat] == 1) / ranks.count(1)
                margins.append(margin(seat))
            rates.append((wins / games, *mean_se(margins)))
        (wa, ma, sa), (wn, mn, sn) = rates
        print(
            f"{name:9s}: heuristic uses it {used}/{offered} = {used / max(1, offered):.2f} of offers; "
            f"always: win {wa:.3f}, margin {ma:+.2f} ± {sa:.2f}; never: win {wn:.3f}, margin {mn:+.2f} ± {sn:.2f} "
            f"(vs the judging heuristic: win {1 / players:.3f}, margin 0)",
            flush=True,
        )


def _round_margin(state, seat: int, bots: list[HeuristicBot]) -> float:  # type: ignore[no-untyped-def]
    """Play the round out with the bots; the seat's round score minus the best other's."""
    round_ = state.round
    while state.pending and state.round == round_:
        (decision,) = state.pending
        obs = GAME.observe(state, decision.seat)
        choice = bots[decision.seat].choose(EngineTurn(decision.kind, obs, decision.options))  # type: ignore[arg-type]
        GAME.apply(state, {decision.seat: choice})
    scores = [r[round_ - 1] for r in state.round_scores]
    return scores[seat] - max(v for s, v in enumerate(scores) if s != seat)


def oracle_report(games: int, players: int = 3, only: str = "") -> None:
    """Is a power ever wrong? At every offer in heuristic self-play, play the round out twice
    from the true state (no chance inside a round, so each branch is exact for these bots):
    once skipping, once using the power as the heuristic would; count the offers where using
    it ends the round better, equal or worse for the user (round score minus the best other's)."""
    tally: dict[int, Counter] = {kind: Counter() for kind in POWER_OF.values()}
    for g in range(games):
        bots = [HeuristicBot() for _ in range(players)]
        state = GAME.new_match(GAME.config(players, {"advanced": True}), 70_000 + g)
        while state.pending:
            (decision,) = state.pending
            obs = GAME.observe(state, decision.seat)
            turn = EngineTurn(decision.kind, obs, decision.options)
            if decision.kind == "power":
                gains = dict(bots[decision.seat].power_gains(View(obs), turn))  # type: ignore[arg-type]
                for kind, counts in tally.items():
                    uses = [o for o in decision.options if o.action.kind == kind]
                    if not uses:
                        continue
                    use = max(uses, key=lambda o: gains.get(o.id, 0.0)).id
                    outcome = {}
                    for choice in ("skip", use):
                        branch = clone(state)
                        GAME.apply(branch, {decision.seat: choice})
                        outcome[choice] = _round_margin(branch, decision.seat, bots)
                    diff = outcome[use] - outcome["skip"]
                    counts["better" if diff > 0 else "worse" if diff < 0 else "equal"] += 1
                    counts["gain"] += diff
            GAME.apply(state, {decision.seat: bots[decision.seat].choose(turn)})  # type: ignore[arg-type]
    for name, kind in POWER_OF.items():
        if only and name != only:
            continue
        c = tally[kind]
        n = c["better"] + c["worse"] + c["equal"]
        share = {k: c[k] / max(1, n) for k in ("better", "equal", "worse", "gain")}
        print(
            f"{name:9s}: {n} offers; using it is better in {share['better']:.2f}, equal in {share['equal']:.2f}, "
            f"worse in {share['worse']:.2f}; mean gain {share['gain']:+.2f}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=count(1), default=200)
    parser.add_argument("--part", choices=("base", "powers", "oracle", "all"), default="all")
    parser.add_argument("--power", default="", help="only this power (spill, pour, move, fizz, last-call)")
    args = parser.parse_args(argv)
    if args.part in ("base", "all"):
        base_report(args.games)
    if args.part in ("powers", "all"):
        power_report(args.games, only=args.power)
    if args.part in ("oracle", "all"):
        oracle_report(args.games, only=args.power)


if __name__ == "__main__":
    main()
    _ = Chance
