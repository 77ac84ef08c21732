"""Probe the determinization hooks far wider than the test suite: worlds with no legal move.

    python -m bench.probe_worlds [--seeds 6] [--first 0] [--game ID ...]

At every decision of ``--seeds`` seeded random playouts per game, player count and variant, it
builds ``sample_world`` for every seat and ``world_from_observation`` for each deciding seat,
and reports any world in which a seat must decide with no legal option, and any exception (the
position: game, players, options, seed, step, seat, hook). The tests sample a few points per
playout; a constraint that a rare position makes public (a prompt that shows what a hand
holds, a turn that shows a seat can pay) is found here. Prints one JSON line per finding and a
summary per game; exits 1 if anything was found.
"""

from __future__ import annotations

import argparse
import json
import sys

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import Game, MatchState
from arena.registry import games
from bench import options
from tests.contract import configurations


def build(game: Game, config: MatchConfig, state: MatchState, hook: str, seat: int, chance: Chance) -> MatchState:
    if hook == "sample_world":
        return game.sample_world(state, seat, chance)
    return game.world_from_observation(config, seat, game.observe(state, seat), chance)


def findings(game: Game, seeds: range) -> tuple[int, list[dict[str, object]]]:
    """(worlds built, what was wrong) over the game's configurations and the seeds."""
    built = 0
    found: list[dict[str, object]] = []
    for config in configurations(game):
        for seed in seeds:
            state = game.new_match(config, seed)
            rng = Chance(seed ^ 77)
            while state.pending:
                where = {"game": game.meta.id, "players": config.players, "options": dict(config.options)}
                where |= {"seed": seed, "step": state.steps}
                hooks = [("sample_world", seat) for seat in range(config.players)]
                hooks += [("world_from_observation", d.seat) for d in state.pending]
                for hook, seat in hooks:
                    built += 1
                    try:
                        world = build(game, config, state, hook, seat, Chance(built))
                    except Exception as exc:  # a finding, reported with its position
                        found.append({**where, "seat": seat, "hook": hook, "error": repr(exc)[:300]})
                        continue
                    empty = [d.seat for d in world.pending if not d.options]
                    if empty:
                        found.append({**where, "seat": seat, "hook": hook, "no_option_for": empty})
                game.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    return built, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=options.count(1), default=6, help="playouts per game, player count and variant")
    parser.add_argument("--first", type=options.count(0), default=0, help="the first seed")
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.game or []) - set(games()))
    if unknown:
        parser.error(f"no game {', '.join(unknown)}; the games: {', '.join(games())}")
    total = 0
    for game_id, game in games().items():
        if args.game and game_id not in args.game:
            continue
        built, found = findings(game, range(args.first, args.first + args.seeds))
        for finding in found:
            print(json.dumps(finding), flush=True)
        print(json.dumps({"game": game_id, "worlds": built, "findings": len(found)}), flush=True)
        total += len(found)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
