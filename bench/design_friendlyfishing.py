"""Design simulation for Friendly Fishing's boards (the rules print no layout; DATA §19: none).

    python -m bench.design_friendlyfishing                  # both sides, 2-5 players, heuristic self-play
    python -m bench.design_friendlyfishing --matches 100
    python -m bench.design_friendlyfishing --alternatives   # the chosen small map against other 42-space maps

Each line plays heuristic bots against each other (``random`` for the random lines) and reports:
turns per match (and the longest), the share of the tiles still on the board at the end (tiles
the boat never reached), returns to the island per match, the share of matches won by a
Kingfish, how often a move is a Skipjack line, how often a Dinker is left to move on, the
share of the Action tiles with no effect, the spread of the Double Points colours, the win rate
by position after the first player (seat advantage; a shared win counts 1/k) and, per Special
set in play, the mean points its holders score from it.

``--alternatives`` swaps other 42-space small maps into the engine for the run (the same
engine, another map): the chosen map (rocks beside the island), one with its notches on the
lake's edge instead of rocks, and a wide 9x5 lake.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from arena.chance import Chance
from arena.games.friendlyfishing import game as ff
from arena.games.v1 import friendlyfishing_pb2 as pb
from arena.scenario import request_for
from bench import options
from bots.games.friendlyfishing import FisherBot

ALTERNATIVE_SMALL_MAPS = {
    "chosen (rocks beside the island)": None,
    "edge notches, no rocks": [" ~~~~~ ", "~~~~~~~", "~~~~~~~", " ~~I~~ ", "~~~~~~~", "~~~~~~~", " ~~~~~ "],
    "wide 9x5 lake": [" ~~~~~~~~", "~~~~~~~~~", "~~~~I~~~~", "~~~~~~~~~", "~~~~~~~~ "],
}


@contextmanager
def small_map(rows: list[str] | None) -> Iterator[None]:
    """Play the small side on another map for the duration (the bench only)."""
    chosen, view = ff.BOARDS["small"], ff._BOARD_VIEWS["small"]
    if rows is not None:
        board = ff.build_board("small", rows, chosen.specials)
        assert board.size == chosen.size, f"a small map needs {chosen.size} spaces, not {board.size}"
        ff.BOARDS["small"], ff._BOARD_VIEWS["small"] = board, ff.board_view(board)
    try:
        yield
    finally:
        ff.BOARDS["small"], ff._BOARD_VIEWS["small"] = chosen, view


def play(players: int, side: str, seed: int, stats: Counter, heuristic: bool = True) -> None:
    game = ff.GAME
    state = game.new_match(game.config(players, {"side": side}), seed)
    first = state.to_act
    bot = FisherBot()
    rng = Chance(seed ^ 0xF15)
    while state.pending:
        (decision,) = state.pending
        seat = decision.seat
        choice = bot.decide(request_for(game, state, seat)) if heuristic else rng.pick(decision.options, "p").id
        if decision.kind == "dinker":
            stats["dinker decisions"] += 1
            stats["dinker left"] += choice != "collect"
        before = len(state.log.events)
        game.apply(state, {seat: choice})
        for event in state.log.events[before:]:
            stats[f"event {event.kind}"] += 1
            detail = event.detail
            if event.kind == "move" and isinstance(detail, pb.Detail):
                stats["line moves"] += detail.line
            if event.kind == "double" and isinstance(detail, pb.Detail):
                stats[f"double {ff.NAMES[detail.tile]}"] += 1
    result = game.result(state)
    assert result is not None
    stats["matches"] += 1
    stats["turns"] += state.turn
    stats["max turns"] = max(stats["max turns"], state.turn)
    stats["tiles left"] += sum(1 for t in state.tiles if t)
    stats["tiles"] += ff.BOARDS[side].size
    stats["kingfish wins"] += state.kingfish_winner >= 0
    winners = result.winners
    for seat in winners:
        stats[f"position {(seat - first) % players}"] += 1 / len(winners)
    for special in state.specials:
        holders = [c for c in state.collections if c[special]]
        stats[f"set {ff.NAMES[special]} games"] += 1
        stats[f"set {ff.NAMES[special]} points"] += sum(points_from(special, c) for c in holders) / max(1, len(holders))


def points_from(special: int, held: list[int]) -> float:
    if special == pb.SHINER:
        return ff.SHINER_POINTS[held[pb.SHINER]]
    return ff.FLAT_POINTS.get(special, 0) * held[special]


def report(players: int, side: str, matches: int, heuristic: bool = True) -> dict[str, object]:
    stats: Counter = Counter()
    for seed in range(matches):
        play(players, side, seed, stats, heuristic)
    n = stats["matches"]
    actions = sum(stats[f"event {k}"] for k in ("swap_fish", "swap_tiles", "slide", "remove", "double", "no_effect"))
    doubles = {name: stats[f"double {name}"] for name in ff._DATA["colours"]["names"]}
    sets = {
        name: round(stats[f"set {name} points"] / stats[f"set {name} games"], 2)
        for name in ff.SPECIALS
        if stats[f"set {name} games"]
    }
    return {
        "players": players,
        "side": side,
        "bots": "heuristic" if heuristic else "random",
        "turns": round(stats["turns"] / n, 1),
        "max turns": stats["max turns"],
        "tiles left": round(stats["tiles left"] / stats["tiles"], 3),
        "returns/match": round(stats["event return"] / n, 2),
        "kingfish wins": round(stats["kingfish wins"] / n, 3),
        "line moves": round(stats["line moves"] / max(1, stats["event move"]), 3),
        "dinker left": round(stats["dinker left"] / max(1, stats["dinker decisions"]), 3),
        "actions no effect": round(stats["event no_effect"] / max(1, actions), 3),
        "double colours": doubles,
        "win by position": [round(stats[f"position {p}"] / n, 3) for p in range(players)],
        "set points per holder": sets,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=options.count(1), default=200)
    parser.add_argument("--alternatives", action="store_true")
    args = parser.parse_args(argv)
    if args.alternatives:
        for name, rows in ALTERNATIVE_SMALL_MAPS.items():
            with small_map(rows):
                for players in (2, 4):
                    print(name, report(players, "small", args.matches))
        return 0
    for side, counts in (("small", (2, 3, 4)), ("large", (2, 3, 4, 5))):
        for players in counts:
            print(report(players, side, args.matches))
        print(report(2, side, args.matches, heuristic=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
