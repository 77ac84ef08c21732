"""Where ``search`` departs from the heuristic: at every decision of heuristic self-play.

    python -m bench.search_departures --game skyfive --matches 8 search:iterations=30,halving=1,tree=0

Every seat plays the game's rollout heuristic (its ``ROLLOUT_POLICY`` or ``ROLLOUT`` bot); at
each decision with more than one option, the ``search`` spec decides the same position too (its
answer is not played). Printed as JSON: the decisions, the departures counted by kind and by
(heuristic's choice -> search's), how many of them were ties (every root option with the same
mean: a won or lost position, where the answer is a tie-break), and with ``--gain N`` each
departure's gain in win share over the heuristic's choice, from N paired worlds (both options
on each world and its future chance, heuristic rollouts, no prior) with a 95% interval.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter

from arena.chance import Chance
from arena.engine import Game, MatchState, Worlds
from arena.protocol import decision_request
from arena.registry import get_game
from bench import options
from bots.registry import make_bot
from bots.search import Search, SearchBot, rollout_policies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", help="a search bot spec")
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=options.count(1), default=2)
    parser.add_argument("--matches", type=options.count(1), default=8)
    parser.add_argument(
        "--gain", type=options.count(0), default=0, metavar="N", help="paired worlds per departure's gain (0: none)"
    )
    args = parser.parse_args(argv)
    game = get_game(args.game)
    departures: Counter[str] = Counter()
    ties = decisions = 0
    gains = []
    for seed in range(args.matches):
        state = game.new_match(game.config(args.players), seed)
        heuristic = rollout_policies(game, args.players, Chance(seed))
        assert heuristic is not None, f"{args.game} names no rollout heuristic"
        bot = make_bot(args.spec, args.game)
        assert isinstance(bot, SearchBot)
        bot.rng = Chance(1000 + seed)
        index = 0
        while state.pending:
            joint = {d.seat: heuristic[d.seat].choose(state, d) for d in state.pending}
            for d in state.pending:
                if len(d.options) < 2:
                    continue
                decisions += 1
                request = decision_request(game, state, d, index=index, events=[], simultaneous=len(state.pending) > 1)
                chosen = bot.decide_worlds(request, Worlds(game, state, d.seat))
                index += 1
                if chosen == joint[d.seat].id:
                    continue
                departures[f"{d.kind}: {joint[d.seat].id} -> {chosen}"] += 1
                search = bot.last
                assert search is not None
                means = {search.mean(o.id) for o in d.options if o.id in search.root.stats.get(d.seat, {})}
                ties += len(means) == 1
                if args.gain:
                    gains.append(gain(game, state, d.seat, joint[d.seat].id, chosen, args.gain, seed * 7919 + index))
            game.advance(state, joint)
    out: dict[str, object] = {
        "game": args.game,
        "spec": args.spec,
        "decisions": decisions,
        "departures": sum(departures.values()),
        "ties": ties,
        "by_choice": dict(departures.most_common()),
    }
    if gains:
        out["gains"] = [[round(m, 3), round(h, 3)] for m, h in gains]
        out["mean_gain"] = round(sum(m for m, _ in gains) / len(gains), 4)
    print(json.dumps(out))
    return 0


def gain(
    game: Game, state: MatchState, seat: int, heuristic: str, departure: str, worlds: int, seed: int
) -> tuple[float, float]:
    """(mean, 95% half-width) of departure's reward minus the heuristic choice's, paired."""
    rng = Chance(seed)
    search = Search(game, seat, rng, 0.7, 0.1, rollout_policies(game, state.players, rng), 0.0, tree=False)
    diffs = []
    for _ in range(worlds):
        table = search.root.stats.get(seat, {})
        before = {o: table[o][1] if o in table else 0.0 for o in (heuristic, departure)}
        search.paired(Worlds(game, state, seat), [heuristic, departure])
        table = search.root.stats[seat]
        diffs.append((table[departure][1] - before[departure]) - (table[heuristic][1] - before[heuristic]))
    mean = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / max(len(diffs) - 1, 1))
    return mean, 1.96 * sd / math.sqrt(len(diffs))


if __name__ == "__main__":
    sys.exit(main())
