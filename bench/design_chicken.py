"""Design check of Chicken!'s dice (arena/games/chicken/components.toml).

    python -m bench.design_chicken               # per-die figures + self-play (300 matches each)
    python -m bench.design_chicken --matches 1000

1. Per die type: chance of a Fox, expected points, best points, chance of a hatch (Egg/Chick),
   and one roll of the 4 White + 4 dice of that type: chance of busting and expected points.
2. Self-play of the heuristic (2 and 4 players, base and Eggspansion): turns per game, first
   seat's win rate, how often each option of each decision kind is taken.
3. "No option always right": the heuristic against copies forced to always take one option
   of a decision kind (always Go For It, always Chicken Out, always reroll, always count,
   always the bag, always the Coop); the forced copy's win rate in 2-player games.
4. The alternative complete dice set of the DATA addendum (White Egg 3, Yellow Egg 2) for
   comparison: game length and bust rate under the same heuristic.
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter
from collections.abc import Callable

from arena.games.chicken import game as chicken
from arena.games.v1 import chicken_pb2 as pb
from arena.runner import play_match
from bench import options
from bots.games.chicken import HeuristicBot, roll_value
from bots.sdk import Turn

GAME = chicken.GAME
NAMES = {pb.WHITE: "White", pb.YELLOW: "Yellow", pb.ORANGE: "Orange", pb.BLUE: "Blue the Dog", pb.HEN: "Mother Hen"}


def die_table() -> list[str]:
    lines = ["die           P(fox)  E[pts]  best  P(hatch)  4W+4: P(bust)  E[pts]"]
    for die, name in NAMES.items():
        faces = chicken.FACES[die]
        fox = sum(f == pb.FOX for f in faces) / 6
        pts = [chicken.POINTS.get(f, 0) for f in faces]  # type: ignore[call-overload]
        hatch = sum(f in chicken.HATCHING for f in faces) / 6
        survive, expected = roll_value([pb.WHITE] * 4 + [die] * 4, 0, 0, 0)
        lines.append(
            f"{name:13} {fox:6.3f}  {sum(pts) / 6:6.3f}  {max(pts):4d}  {hatch:8.3f}"
            f"  {1 - survive:13.3f}  {expected:6.3f}"
        )
    return lines


def pool_table() -> list[str]:
    """One roll of the dice a player may be passed, against Chicken Out's 4 White (minus 1)."""
    W, Y, O = pb.WHITE, pb.YELLOW, pb.ORANGE  # noqa: E741 (the die colours)
    lines = ["pool passed     P(bust)  E[pts] one roll"]
    for name, pool in [
        ("4W", [W] * 4),
        ("4W 2Y", [W] * 4 + [Y] * 2),
        ("4W 4Y", [W] * 4 + [Y] * 4),
        ("4W 4Y 2O", [W] * 4 + [Y] * 4 + [O] * 2),
        ("4W 4Y 4O", [W] * 4 + [Y] * 4 + [O] * 4),
        ("4W 4O", [W] * 4 + [O] * 4),
    ]:
        survive, expected = roll_value(pool, 0, 0, 0)
        lines.append(f"{name:14} {1 - survive:8.3f}  {expected:6.3f}")
    return lines


class Forced(HeuristicBot):
    """The heuristic, except that one decision kind always takes one option (when offered)."""

    def __init__(self, kind: str, option: Callable[[str], bool]) -> None:
        super().__init__()
        self.kind, self.option = kind, option

    def choose(self, turn: Turn) -> str:
        if turn.kind == self.kind:
            for option in turn.option_ids:
                if self.option(option):
                    return option
        return super().choose(turn)


def self_play(players: int, eggspansion: bool, matches: int) -> dict[str, object]:
    config = GAME.config(players, {"eggspansion": eggspansion})
    turns, first_wins = [], 0
    taken: Counter[tuple[str, str]] = Counter()
    for m in range(matches):
        record = play_match(GAME, config, 50_000 + m, [HeuristicBot() for _ in range(players)])
        state_turns = 0
        for d in record.decisions:
            kind = d.kind
            choice = d.choice.split(":")[0] if kind == "hatch" else d.choice
            taken[kind, choice] += 1
            state_turns += kind == "turn"
        turns.append(state_turns)
        # The first seat is the one that took the first decision.
        first = record.decisions[0].seat
        first_wins += record.result["ranks"][first] == 1
    return {
        "players": players,
        "eggspansion": eggspansion,
        "turns_mean": round(sum(turns) / matches, 1),
        "turns_max": max(turns),
        "first_seat_win_rate": round(first_wins / matches, 3),
        "fair_share": round(1 / players, 3),
        "options": {f"{k}:{c}": n for (k, c), n in sorted(taken.items())},
    }


def forced_vs_heuristic(kind: str, label: str, option: Callable[[str], bool], eggspansion: bool, matches: int) -> str:
    config = GAME.config(2, {"eggspansion": eggspansion})
    wins = 0.0
    for m in range(matches):
        seat = m % 2
        bots = [HeuristicBot(), HeuristicBot()]
        bots[seat] = Forced(kind, option)
        record = play_match(GAME, config, 70_000 + m, bots)
        wins += record.result["ranks"][seat] == 1
    return f"{label:28} forced copy wins {wins / matches:.3f} of 2-player games against the heuristic"


def alternative_set(matches: int) -> str:
    saved = dict(chicken.FACES)
    F = chicken.FACE_BY_NAME
    chicken.FACES[pb.WHITE] = tuple(F[f] for f in ["fox", "chicken", "egg", "egg", "egg", "blank"])
    chicken.FACES[pb.YELLOW] = tuple(F[f] for f in ["fox", "chicken", "chicken", "egg", "egg", "blank"])
    try:
        from bots.games.chicken import die_outcomes

        die_outcomes.cache_clear()
        result = self_play(4, False, matches)
    finally:
        chicken.FACES.update(saved)
        die_outcomes.cache_clear()
    return f"addendum set (White E3, Yellow E2), 4p base: turns {result['turns_mean']} (max {result['turns_max']})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=options.count(1), default=300)
    args = parser.parse_args(argv)
    print("\n".join(die_table()))
    print("\n".join(pool_table()))
    for players, egg in itertools.product((2, 4), (False, True)):
        print(self_play(players, egg, args.matches))
    checks = [
        ("turn", "always Go For It", lambda o: o == "go", False),
        ("turn", "always Chicken Out", lambda o: o == "chicken", False),
        ("reroll", "always reroll", lambda o: o == "reroll", False),
        ("reroll", "always count", lambda o: o == "count", False),
        ("hatch", "always the Seed Bag", lambda o: o == "bag", True),
        ("hatch", "always the Coop (first die)", lambda o: o.startswith("coop"), True),
        ("hatch", "always a Mother Hen if any", lambda o: o == "coop:hen", True),
        ("hatch", "always an Orange if any", lambda o: o == "coop:orange", True),
    ]
    for kind, label, option, egg in checks:
        print(forced_vs_heuristic(kind, label, option, egg, args.matches))
    print(alternative_set(args.matches))


if __name__ == "__main__":
    main()
