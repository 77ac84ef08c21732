"""Design checks for Llama Llama's designed components (``arena/games/llamallama/components.toml``).

Run: ``python -m bench.design_llamallama [--matches N]``. It prints:

1. the expected disjoint copies E of every bottom-rule combination in a random 7-card hand
   (Monte Carlo) and the points of the curve ``round(4.76 + 1.86 ln(1/E))`` fitted to the two
   printed values (AA = 7, AABB = 10) next to the points in the table;
2. for the 2-3-player display side, candidate pass counts (4-3-2-1, 3-2-2-1, 2-2-1-1) in
   heuristic self-play and heuristic-vs-random: seat-0 win rate, the heuristic's win rate
   against random (skill), rounds played and mean round score;
3. at every player count with the chosen table: seat-0 (first seat) win rate in heuristic
   self-play, how often a game ends by 100 points, and how often the heuristic gives each card
   as its goal when it holds it (no goal is always right).

Figures (``--matches 150``, 2026-12-02):

* The curve gives exactly the table's points for all 32 combinations (the table was built from
  it): XY pairs 6, XX pairs 7-8, three-letter sets 7, AABB/CCDD/CCC 10, BBGG 11, EEFF/GGG 12.
* 2-3-player side, seat-0 win rate / heuristic-vs-random win rate / share of matches where
  someone reaches 100 / mean round score:
  4-3-2-1: 2p 0.527 / 1.000 / 51% / 23.4; 3p 0.287 / 0.993 / 29% / 21.2.
  3-2-2-1: 2p 0.490 / 0.993 / 61% / 23.8; 3p 0.340 / 0.987 / 31% / 21.7.
  2-2-1-1: 2p 0.463 / 0.993 / 59% / 23.8; 3p 0.393 / 0.993 / 34% / 21.9.
  No candidate is better beyond noise (SE ~0.04): 4-3-2-1, the printed 4-player sequence, kept.
* Chosen table: 4p seat-0 0.160 (150 matches); a separate 240-match heuristic self-play run
  (seeds 1000-1239) gives the 4 seats 0.221 / 0.267 / 0.237 / 0.275 (SE 0.028: no seat edge);
  heuristic vs random 0.967, someone reaches 100 in 15% (4p), 29% (3p), 51%
  (2p): both end conditions occur. Every match ends within 4 rounds (44 decisions).
* Goal choice: each card is given as the goal by the heuristic 2-32% of the times it holds it
  (min card #21/#19/#28, max #20/#10): no goal is always right, none is never chosen.
"""

from __future__ import annotations

import argparse
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence

from arena.engine import Decision
from arena.games.llamallama import game as ll
from bench import options
from bench.engine_turn import EngineTurn
from bots.games.llamallama import HeuristicBot

GAME = ll.GAME


Policy = Callable[[ll.LlamaState, Decision], str]


def heuristic() -> Policy:
    bot = HeuristicBot()

    def choose(state: ll.LlamaState, d: Decision) -> str:
        return bot.choose(EngineTurn(d.kind, GAME.observe(state, d.seat), d.options))  # type: ignore[arg-type]

    return choose


def randomly(rng: random.Random) -> Policy:
    return lambda state, d: rng.choice(d.option_ids)


def play(players: int, seed: int, policies: Sequence[Policy], goals: Counter | None = None) -> ll.LlamaState:
    state = GAME.new_match(GAME.config(players), seed)
    while state.pending:
        choices = {}
        for d in state.pending:
            choice = policies[d.seat](state, d)
            if goals is not None and d.kind == "goal":
                for cid in state.hands[d.seat]:
                    goals[(cid, "held")] += 1
                goals[(int(choice[5:]), "given")] += 1
            choices[d.seat] = choice
        GAME.apply(state, choices)
    return state


def combo_table(hands: int = 100_000) -> None:
    rng = random.Random(1)
    letters = [ll.LETTER[c] for c in ll.CARD_IDS]
    samples = [ll.letter_counts(rng.sample(letters, 7)) for _ in range(hands)]
    print("combination  E(copies)  curve  table")
    for cid in ll.CARD_IDS:
        combo, points = ll.COMBO[cid]
        e = sum(ll.combo_copies(h, combo) for h in samples) / hands
        curve = round(4.76 + 1.86 * math.log(1 / e))
        print(f"{combo:>6} {e:10.3f} {curve:6d} {points:6d}")


def winners(state: ll.LlamaState) -> list[int]:
    result = GAME.result(state)
    assert result is not None
    return list(result.winners)


def measure(players: int, matches: int, goals: Counter | None = None) -> dict[str, float]:
    seat0 = selfplay_rounds = ends100 = 0
    scores: list[int] = []
    for seed in range(matches):
        state = play(players, seed, [heuristic() for _ in range(players)], goals)
        w = winners(state)
        seat0 += (0 in w) / len(w)
        selfplay_rounds += state.round
        ends100 += max(state.totals) >= ll.TARGET
        scores += [x for r in state.round_scores for x in r]
    skill = 0.0
    for seed in range(matches):
        h = seed % players  # rotate the heuristic's seat
        rng = random.Random(seed)
        policies = [heuristic() if s == h else randomly(rng) for s in range(players)]
        w = winners(play(players, 10_000 + seed, policies))
        skill += (h in w) / len(w)
    return {
        "seat0": seat0 / matches,
        "skill": skill / matches,
        "rounds": selfplay_rounds / matches,
        "ends100": ends100 / matches,
        "round_score": sum(scores) / len(scores),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=options.count(1), default=200)
    args = parser.parse_args(argv)
    combo_table()
    chosen = ll.PASS_23P
    for counts in [(4, 3, 2, 1), (3, 2, 2, 1), (2, 2, 1, 1)]:
        ll.PASS_23P = counts
        for players in (2, 3):
            m = measure(players, args.matches)
            print(f"2-3 side {counts} {players}p: " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()))
    ll.PASS_23P = chosen
    for players in (2, 3, 4):
        goals: Counter = Counter()
        m = measure(players, args.matches, goals)
        rates = sorted((goals[(c, "given")] / goals[(c, "held")], c) for c in ll.CARD_IDS if goals[(c, "held")])
        print(f"chosen {players}p: " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()))
        low, high = rates[0], rates[-1]
        print(f"  goal given when held: min {low[0]:.2f} (#{low[1]}), max {high[0]:.2f} (#{high[1]})")


if __name__ == "__main__":
    main()
