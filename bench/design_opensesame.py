"""Design simulation for Open Sesame's treasure list (the rules print only its totals).

    python -m bench.design_opensesame                  # arena edition: self-play figures and strategies
    python -m bench.design_opensesame --editions       # the arena list against a flatter and a lumpier one
    python -m bench.design_opensesame --matches 300

The rules fix 45 cards with 9 shiny, 7 noisy and 5 encumbering ones: the alarm risk is the
same whatever the list. What the list decides is how much a choice is worth when the cavern is
shared, and so whether Ali Baba should push his luck or take one card and leave.

Self-play (heuristic against itself, 3 and 5 players) reports: rounds per match, cards per
round, how rounds end (open sesame / capture / fumble), the cavern size at "Open sesame!", mean
score, how often the tie-break decides, and the win rate by position from the first Ali Baba
(seat advantage). Then one seat plays a fixed strategy against heuristic opponents (seat
rotated): "open:k" says "Open sesame!" as soon as the cavern holds k cards whatever the risk;
the heuristic with other nerve / spite. No fixed strategy should beat the field clearly (no
option always right); a win share near 1/N means it is as good as the heuristic.
"""

from __future__ import annotations

import argparse
from collections import Counter

from arena.engine import MatchState
from arena.games.opensesame.game import ARENA_EDITION, TREASURES, Edition, OpenSesame, TreasureSpec
from arena.games.v1 import opensesame_pb2 as pb
from arena.runner import play_match
from bench import options
from bots.games.opensesame import HeuristicBot
from bots.sdk import Bot


class OpenAt(HeuristicBot):
    """Says "Open sesame!" once the cavern holds ``k`` cards (draws below that, whatever the
    risk); shares like the heuristic."""

    def __init__(self, k: int) -> None:
        super().__init__()
        self.k = k

    def _draw(self, obs: pb.Observation) -> str:
        return "open-sesame" if sum(c.count for c in obs.cavern) >= self.k else "draw"


def strategy(spec: str) -> Bot:
    if spec.startswith("open:"):
        return OpenAt(int(spec.split(":")[1]))
    params = dict(p.split("=") for p in spec.split(":")[1].split(",")) if ":" in spec else {}
    return HeuristicBot(float(params.get("spite", 0.3)), float(params.get("nerve", 1.0)), int(params.get("depth", 6)))


OPTIONS: dict[str, object] = {}


def play(game: OpenSesame, players: int, seed: int, specs: list[str]) -> tuple[MatchState, list[int]]:
    last: list[MatchState] = []
    record = play_match(
        game,
        game.config(players, OPTIONS),
        seed,
        [strategy(s) for s in specs],
        on_decision=lambda state, _entry: last.append(state) if not last else None,
    )
    return last[0], list(record.result["ranks"])


def self_play(game: OpenSesame, players: int, matches: int) -> dict[str, object]:
    stats: Counter = Counter()
    opened: Counter = Counter()
    by_position = [0.0] * players
    for seed in range(matches):
        state, ranks = play(game, players, seed, ["heuristic"] * players)
        events = state.log.events
        first = next(e.seat for e in events if e.kind == "ali-baba")
        winners = [s for s in range(players) if ranks[s] == 1]
        for s in winners:
            by_position[(s - first) % players] += 1 / len(winners)
        scores = [game.edition.score_of(c)[0] for c in state.collections]  # type: ignore[attr-defined]
        stats["ties"] += scores.count(max(scores)) > 1
        stats["shared"] += len(winners) > 1
        stats["score"] += sum(scores)
        cavern = 0
        for e in events:
            if e.kind == "reveal":
                cavern += 1
            elif e.kind == "ali-baba":
                stats["rounds"] += 1
                cavern = 0
            elif e.kind in ("open-sesame", "capture", "fumble"):
                stats[e.kind] += 1
                if e.kind == "open-sesame":
                    opened[min(cavern, 7)] += 1
    rounds = stats["rounds"]
    return {
        "rounds/match": round(rounds / matches, 1),
        "cards/round": round(46 / (rounds / matches), 2),
        "open/capture/fumble": tuple(round(stats[k] / rounds, 2) for k in ("open-sesame", "capture", "fumble")),
        "cavern at open (1..7+)": [round(opened[k] / max(1, stats["open-sesame"]), 2) for k in range(1, 8)],
        "mean score": round(stats["score"] / matches / players, 2),
        "tie-break decides": round((stats["ties"] - stats["shared"]) / max(1, stats["ties"]), 2),
        "ties shared": round(stats["shared"] / matches, 3),
        "win by position from first Ali Baba": [round(x / matches, 3) for x in by_position],
    }


def one_against_field(game: OpenSesame, players: int, spec: str, matches: int) -> float:
    """Win share of one ``spec`` seat against heuristic opponents (seat rotated)."""
    wins = 0.0
    for m in range(matches):
        seat = m % players
        specs = ["heuristic"] * players
        specs[seat] = spec
        _, ranks = play(game, players, 90_000 + m, specs)
        if ranks[seat] == 1:
            wins += 1 / ranks.count(1)
    return wins / matches


def edition(copies: dict[str, int]) -> Edition:
    return Edition([t._replace(copies=copies.get(t.name, t.copies)) for t in TREASURES])


# A flatter list: no x4 and no x1 but the Chief Thief (every treasure x2 or x3), and a lumpier
# one (two x5 plain treasures, more uniques). Both keep 24 plain, 9 shiny, 7 noisy, 5
# encumbering cards.
FLAT = {"cushion": 3, "hourglass": 3, "book": 3, "vase": 3, "shoe": 2, "mirror": 2, "carpet": 2}
FLAT |= {"scroll": 2, "key": 2, "dagger": 2, "diamond": 3, "crown": 2, "lamp": 2, "necklace": 2}
FLAT |= {"lion": 2, "parrot": 2, "bell": 2, "monkey": 1, "statue": 2, "chest": 2, "throne": 1}
LUMPY = {"cushion": 5, "hourglass": 5, "book": 3, "vase": 3, "shoe": 2, "mirror": 2, "carpet": 1}
LUMPY |= {"scroll": 1, "key": 1, "dagger": 1, "diamond": 1, "crown": 1, "lamp": 3, "necklace": 4}
LUMPY |= {"lion": 3, "parrot": 2, "bell": 1, "monkey": 1, "statue": 3, "chest": 1, "throne": 1}


def _check(ed: Edition) -> None:
    spec: list[TreasureSpec] = list(ed.treasures)
    by_alarm = Counter()
    for t in spec:
        if t.name != "chief_thief":
            by_alarm[t.alarm] += t.copies
    assert by_alarm == {pb.NO_ALARM: 24, pb.SHINY: 9, pb.NOISY: 7, pb.ENCUMBERING: 5}, by_alarm


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=options.count(1), default=200)
    parser.add_argument("--editions", action="store_true")
    parser.add_argument("--memory", action="store_true", help="option memory=human")
    parser.add_argument(
        "--players",
        type=options.count(OpenSesame.meta.min_players, OpenSesame.meta.max_players),
        nargs="*",
        default=[3, 5],
    )
    parser.add_argument("--slips", type=options.counts(0, 100), help="another slip table (percent): 0,0,10,25,...")
    parser.add_argument("--strategies", type=str, default="", help="only these one-seat strategies (comma-separated)")
    args = parser.parse_args(argv)
    if args.memory:
        OPTIONS["memory"] = "human"
    if args.slips:
        from arena.games.opensesame import game as module

        module.SLIP_PERCENT = tuple(args.slips)
    editions = {"arena": ARENA_EDITION}
    if args.editions:
        editions |= {"flat": edition(FLAT), "lumpy": edition(LUMPY)}
    for name, ed in editions.items():
        _check(ed)
        game = OpenSesame(ed)
        for players in args.players:
            print(f"{name} {players}p self-play:", self_play(game, players, args.matches), flush=True)
            specs = ["open:1", "open:2", f"open:{players + 1}"]
            if not args.editions:
                specs += ["open:3", "heuristic:nerve=0.7", "heuristic:nerve=1.5", "heuristic:spite=0"]
            if args.strategies:
                specs = args.strategies.split(",")
            for spec in specs:
                rate = one_against_field(game, players, spec, args.matches)
                print(
                    f"  {players}p one {spec} vs heuristic: win share {rate:.3f} (equal {1 / players:.3f})", flush=True
                )


if __name__ == "__main__":
    main()
