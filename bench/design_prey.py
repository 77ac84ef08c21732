"""Prey: the simulation behind the designed card numbers (arena/games/prey/components.toml).

    python -m bench.design_prey [--rounds 300] [--matches 300]

1. Four candidate Prey tables, the same Predator numbers 1-12 per suit:
   ``arena`` (the chosen one: 13 - Predator with two crossings per suit), ``inverse`` (exactly
   13 - Predator), ``independent`` (a seeded random permutation per suit) and ``same`` (Prey =
   Predator). For each, rounds of heuristic self-play and of random play: how a dealt hand's
   Predator strength (sum of its Predator numbers) and Prey strength predict the tricks it
   takes in each half and in the round (Pearson r), and how often players hit a goal.
2. With the arena table: one seat playing a fixed policy (always the highest card of the mode,
   always the lowest, random, the heuristic) against heuristic seats: its goal rate per round.
3. With the arena table: whole matches of heuristic self-play and of random play: rounds per
   match (the round limit's margin) and the win share of each seat and of the first leader.

Figures (``--rounds 250 --matches 250``; r = Pearson correlation over seats x rounds; "heur" =
heuristic self-play, "rand" = random play; strength = sum of the dealt hand's numbers):

=========== == ==== ============ ============= ============ ============ ============== =========
design      p  play r(pred, 1-6) r(prey, 7-12) r(pred, all) r(prey, all) r(pred+prey,  goal rate
                                                                         all)
=========== == ==== ============ ============= ============ ============ ============== =========
arena       3  heur 0.31         0.45          -0.22        0.24         0.13           0.47
arena       4  heur 0.34         0.41          -0.16        0.16         0.04           0.59
arena       3  rand 0.49         0.25          0.09         -0.09        0.03           0.28
arena       4  rand 0.48         0.29          0.04         -0.03        0.10           0.29
inverse     3  heur 0.30         0.43          -0.22        0.22         0.00           0.47
inverse     4  heur 0.30         0.44          -0.19        0.19         0.00           0.58
independent 3  heur 0.48         0.34          0.22         0.42         0.41           0.44
independent 4  heur 0.40         0.35          0.23         0.38         0.40           0.57
same        3  heur 0.60         0.31          0.60         0.60         0.60           0.44
same        4  heur 0.52         0.28          0.56         0.56         0.56           0.56
=========== == ==== ============ ============= ============ ============ ============== =========

Reading: with the arena table each half's strength predicts that half's tricks (0.31-0.45),
and the two predict the round's total about equally and in opposite directions (-0.22 / +0.24
at 3 players, -0.16 / +0.16 at 4): neither half dominates, and a hand's overall strength says
almost nothing about its total (0.13, 0.04), so the round is won by choosing which cards to
spend in which half. With independent numbers a strong-in-both hand takes more tricks (0.41),
with Prey = Predator it is all one strength (0.60). The crossings cost nothing measurable
against the perfect inversion (same correlations and goal rates) and keep the Prey order of a
suit from being the Predator order reversed (hand correlation -0.985 instead of -1).

Policies (one seat against heuristic seats, 250 rounds, goal rate per round): at 3 players
heuristic 0.51, always-lowest 0.35, random 0.28, always-highest 0.16; at 4 players 0.54, 0.30,
0.32, 0.18: neither fixed extreme is right; aiming at the goal is.

Matches (250 each): heuristic self-play 2.7 rounds on average at 3 players (max 6), 2.2 at 4
(max 5); random play 3.9 (max 11) and 3.4 (max 8); the round limit (20) was never reached.
First-leader win share 0.34 (3p) / 0.25 (4p) heuristic, 0.32 / 0.24 random: no first-lead
advantage. Win share by seat, heuristic: 3p 0.29 / 0.29 / 0.42, 4p 0.22 / 0.30 / 0.26 / 0.21;
random: 3p 0.37 / 0.31 / 0.32, 4p 0.24 / 0.28 / 0.28 / 0.21 (seats play symmetric roles: the
first leader is chosen by the dice). The 3p heuristic spread is sampling noise: 600 more
matches (seeds 123000+) gave 0.32 / 0.34 / 0.34, first leader 0.36, at most 7 rounds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from arena.chance import Chance
from arena.games.prey import GAME
from arena.games.prey import game as prey
from arena.games.prey.game import DECK_SIZE, PER_SUIT, PRED, PREYN, SUITS, VALUE
from bench import options

ORIGINAL = list(PREYN)


def table(name: str) -> list[int]:
    if name == "arena":
        return list(ORIGINAL)
    if name == "inverse":
        return [PER_SUIT + 1 - PRED[c] for c in range(DECK_SIZE)]
    if name == "same":
        return [PRED[c] for c in range(DECK_SIZE)]
    if name == "independent":
        rng = Chance(2024)
        out = [0] * DECK_SIZE
        for s in range(len(SUITS)):
            values = rng.shuffled(range(1, PER_SUIT + 1), "perm")
            for k in range(PER_SUIT):
                out[s * PER_SUIT + k] = values[k]
        return out
    raise ValueError(name)


def use_prey_numbers(numbers: Sequence[int]) -> None:
    """Swap the game's Prey table in place (tables, cached messages, option actions)."""
    for c, v in enumerate(numbers):
        PREYN[c] = v
        prey._PB_CARD[c].prey = v
        prey._OPTION[c].action.card.prey = v  # type: ignore[attr-defined]
    prey._play_pb.cache_clear()
    assert VALUE[prey.PREY] is PREYN


class _Turn:
    def __init__(self, state: Any, seat: int) -> None:
        self.observation = GAME.observe(state, seat)
        self.options = list(state.pending[0].options)
        self.kind = "play"


Policy = Callable[[Any, int, Chance], str]


def random_policy(state: Any, seat: int, rng: Chance) -> str:
    return rng.pick(state.pending[0].options, "r").id


def extreme_policy(highest: bool) -> Policy:
    def choose(state: Any, seat: int, rng: Chance) -> str:
        values = VALUE[state.mode]
        options = state.pending[0].options
        ranked = sorted(options, key=lambda o: values[prey._CARD_OF_OPTION[o.id]])
        return (ranked[-1] if highest else ranked[0]).id

    return choose


def heuristic_policy() -> Policy:
    from bots.games.prey import GoalBot

    bots: dict[int, GoalBot] = {}

    def choose(state: Any, seat: int, rng: Chance) -> str:
        bot = bots.setdefault(seat, GoalBot())
        return bot.choose(_Turn(state, seat))  # type: ignore[arg-type]

    return choose


def play_round(players: int, seed: int, policies: Sequence[Policy]) -> dict[str, Any]:
    """Round 1 of a match: per seat the dealt strengths, tricks per half, and goal hit."""
    state = GAME.new_match(GAME.config(players), seed)
    rng = Chance(seed ^ 0xABC)
    hands = [list(h) for h in state.hands]
    dice = list(state.dice)
    while state.pending and state.round == 1:
        if state.trick == 12 and len(state.plays) == players - 1:
            break
        seat = state.pending[0].seat
        GAME.apply(state, {seat: policies[seat](state, seat, rng)})
    # finish the last trick by hand to read this round's tricks before the next deal
    seat = state.pending[0].seat
    GAME.apply(state, {seat: policies[seat](state, seat, rng)})
    end = next(e.detail for e in state.log.events if e.kind == "round_end")
    halves = [[0, 0] for _ in range(players)]
    for e in state.log.events:
        if e.kind == "trick" and e.detail.number:
            halves[e.detail.winner][0 if e.detail.number <= 6 else 1] += 1
        if e.kind == "round_end":
            break
    return {
        "pred": [sum(PRED[c] for c in h) for h in hands],
        "prey": [sum(PREYN[c] for c in h) for h in hands],
        "halves": halves,
        "total": list(end.tricks),
        "hit": list(end.scored),
        "dice": dice,
    }


def corr(xs: Sequence[float], ys: Sequence[float]) -> float:
    if statistics.pstdev(xs) == 0 or statistics.pstdev(ys) == 0:
        return 0.0
    return round(statistics.correlation(xs, ys), 3)


def design_rows(rounds: int) -> list[dict[str, Any]]:
    rows = []
    for name in ("arena", "inverse", "independent", "same"):
        use_prey_numbers(table(name))
        for players in (3, 4):
            for who in ("heuristic", "random"):
                data: dict[str, list[float]] = {k: [] for k in ("pred", "prey", "h1", "h2", "total", "hit", "sum")}
                for r in range(rounds):
                    make = heuristic_policy if who == "heuristic" else (lambda: random_policy)
                    out = play_round(players, 50_000 + r, [make() for _ in range(players)])
                    for s in range(players):
                        data["pred"].append(out["pred"][s])
                        data["prey"].append(out["prey"][s])
                        data["sum"].append(out["pred"][s] + out["prey"][s])
                        data["h1"].append(out["halves"][s][0])
                        data["h2"].append(out["halves"][s][1])
                        data["total"].append(out["total"][s])
                        data["hit"].append(out["hit"][s])
                rows.append(
                    {
                        "design": name,
                        "players": players,
                        "play": who,
                        "r(pred strength, tricks 1-6)": corr(data["pred"], data["h1"]),
                        "r(prey strength, tricks 7-12)": corr(data["prey"], data["h2"]),
                        "r(pred strength, total)": corr(data["pred"], data["total"]),
                        "r(prey strength, total)": corr(data["prey"], data["total"]),
                        "r(pred+prey strength, total)": corr(data["sum"], data["total"]),
                        "r(pred strength, prey strength)": corr(data["pred"], data["prey"]),
                        "goal rate": round(statistics.fmean(data["hit"]), 3),
                    }
                )
    use_prey_numbers(ORIGINAL)
    return rows


def policy_rows(rounds: int) -> list[dict[str, Any]]:
    rows = []
    named: dict[str, Callable[[], Policy]] = {
        "heuristic": heuristic_policy,
        "random": lambda: random_policy,
        "always highest": lambda: extreme_policy(True),
        "always lowest": lambda: extreme_policy(False),
    }
    for players in (3, 4):
        for name, make in named.items():
            hits = 0
            for r in range(rounds):
                seat = r % players
                policies = [heuristic_policy() for _ in range(players)]
                policies[seat] = make()
                hits += play_round(players, 70_000 + r, policies)["hit"][seat]
            rows.append(
                {"players": players, "policy (1 seat vs heuristics)": name, "goal rate": round(hits / rounds, 3)}
            )
    return rows


def match_rows(matches: int) -> list[dict[str, Any]]:
    rows = []
    for players in (3, 4):
        for who in ("heuristic", "random"):
            rounds: Counter[int] = Counter()
            seat_wins = [0.0] * players
            leader_wins = 0.0
            limit = 0
            for m in range(matches):
                state = GAME.new_match(GAME.config(players), 90_000 + m)
                first = state.leader
                rng = Chance(m)
                policies = [heuristic_policy() if who == "heuristic" else random_policy for _ in range(players)]
                while state.pending:
                    seat = state.pending[0].seat
                    GAME.apply(state, {seat: policies[seat](state, seat, rng)})
                rounds[state.round] += 1
                limit += state.round_limit
                for w in state.winners:
                    seat_wins[w] += 1 / len(state.winners)
                if first in state.winners:
                    leader_wins += 1 / len(state.winners)
            rows.append(
                {
                    "players": players,
                    "play": who,
                    "matches": matches,
                    "mean rounds": round(sum(k * v for k, v in rounds.items()) / matches, 2),
                    "max rounds": max(rounds),
                    "round limit reached": limit,
                    "win share by seat": [round(w / matches, 3) for w in seat_wins],
                    "first leader win share": round(leader_wins / matches, 3),
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=options.count(1), default=300)
    parser.add_argument("--matches", type=options.count(1), default=300)
    parser.add_argument("--part", choices=["designs", "policies", "matches", "all"], default="all")
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    if args.part in ("designs", "all"):
        out["designs"] = design_rows(args.rounds)
    if args.part in ("policies", "all"):
        out["policies"] = policy_rows(args.rounds)
    if args.part in ("matches", "all"):
        out["matches"] = match_rows(args.matches)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
