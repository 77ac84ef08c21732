"""Open Season design check: heuristic self-play on the designed boards and Bonus tiles.

    python -m bench.design_openseason --games 200

Per side (Horn, Shield, Horn + Expert) and player count: win rate by position (P1 = the first
player), mean winning and mean score, the mean of each scoresheet line, face-down cards per
game, how often each space effect is gained, and (Shield) which scorings are activated. Then
(3 players, Horn) for each effect space and the Trophy step: the win rate of one seat that
never takes it ("avoid") and of one that takes it whenever it can ("always"), the others the
default heuristic (1/3 = neither a must nor a dead option); (3 players, Expert) the win rate of
a seat preferring each Bonus face first. Last, the longest of 2,000 random playouts (decisions).
"""

from __future__ import annotations

import argparse
from collections import Counter

from arena.chance import Chance
from arena.games.openseason import GAME
from arena.games.openseason.game import BOARDS, FACES, score_lines
from bench.engine_turn import EngineTurn
from bench.options import count
from bots.games.openseason import FACE_ORDER, HeuristicBot


class Variant(HeuristicBot):
    """The heuristic, but avoiding (or always taking) one effect space in its rounds, the
    Trophy step, or preferring one Bonus face."""

    def __init__(self, target: str, always: bool, side: str = "horn") -> None:
        super().__init__()
        self.target = target
        self.always = always
        board = BOARDS[side]
        self.spaces = {s.id: s for s in board.spaces}

    def _hits(self, option: str, obs) -> bool:  # type: ignore[no-untyped-def]
        if not option.startswith(("wall:", "down:")):
            return False
        space = self.spaces[int(option.split("@")[1])]
        rnd = obs.seats[obs.seat].turns
        if self.target == "reward":
            bottom = [s.id for s in self.spaces.values() if s.row == 3]
            filled = sum(obs.seats[obs.seat].wall[i - 1].filled for i in bottom)
            return space.id in bottom and filled == len(bottom) - 1 and rnd <= 6
        return space.effect == self.target and space.first <= rnd <= space.last

    def choose(self, turn) -> str:  # type: ignore[no-untyped-def]
        obs = turn.observation
        if turn.kind == "face":
            order = (self.target, *(f for f in FACE_ORDER if f != self.target))
            faces = [i.removeprefix("face:") for i in turn.option_ids]
            return "face:" + min(faces, key=order.index)
        if self.target == "trophy_step" and turn.kind == "trophy":
            if not self.always:
                return "pass"
            placed = [o for o in turn.options if o.id != "pass"]
            turn = EngineTurn(turn.kind, obs, tuple(placed))
        if turn.kind == "place":
            hits = [o for o in turn.options if self._hits(o.id, obs)]
            rest = [o for o in turn.options if not self._hits(o.id, obs)]
            keep = hits if self.always else rest
            if keep and len(keep) < len(turn.options):
                turn = EngineTurn(turn.kind, obs, tuple(keep))
        return super().choose(turn)


def play(players: int, seed: int, bots: list[HeuristicBot], options: dict, stats: Counter | None = None) -> list[int]:
    state = GAME.new_match(GAME.config(players, options), seed)
    while state.pending:
        choices = {}
        for decision in state.pending:
            obs = GAME.observe(state, decision.seat)
            turn = EngineTurn(decision.kind, obs, decision.options)
            choices[decision.seat] = bots[decision.seat].choose(turn)  # type: ignore[arg-type]
        GAME.apply(state, choices)
    result = GAME.result(state)
    assert result is not None
    if stats is not None:
        stats["games"] += 1
        for s in range(players):
            pos = (s - state.first) % players
            if result.ranks[s] == 1:
                stats[f"win:P{pos + 1}"] += 1 / result.ranks.count(1)
            stats["score"] += result.scores[s]
            for line, value in score_lines(state, s):
                stats[f"line:{line}"] += value
            stats["face_down"] += sum(state.down[s])
            for scoring in state.activated[s]:
                stats[f"activated:{scoring}"] += 1
        stats["winning"] += max(result.scores)
        stats["decisions"] += state.steps
        stats["max_decisions"] = max(stats["max_decisions"], state.steps)
        for event in state.log.events:
            if event.kind == "effect":
                stats[f"effect:{event.detail.text.split(' ', 1)[1]}"] += 1
            if event.kind == "bonus":
                stats[f"bonus:{event.detail.text}"] += 1
    return list(result.ranks)


def self_play(players: int, games: int, options: dict) -> None:
    stats: Counter = Counter()
    for seed in range(games):
        play(players, seed, [HeuristicBot() for _ in range(players)], options, stats)
    n = stats["games"]
    per_seat = n * players
    wins = " ".join(f"P{p + 1} {stats[f'win:P{p + 1}'] / n:.2f}" for p in range(players))
    mean, winner = stats["score"] / per_seat, stats["winning"] / n
    print(f"{options or 'horn'} {players}p: {wins}; score {mean:.1f}, winner {winner:.1f}")
    lines = {k[5:]: round(v / per_seat, 1) for k, v in sorted(stats.items()) if k.startswith("line:")}
    print(f"  lines per seat: {lines}")
    print(
        f"  face-down per seat {stats['face_down'] / per_seat:.2f}; decisions/game {stats['decisions'] / n:.0f} "
        f"(max {stats['max_decisions']})"
    )
    extra = {k: round(v / n, 2) for k, v in sorted(stats.items()) if k.startswith(("effect:", "activated:", "bonus:"))}
    print(f"  per game: {extra}")


def variant_rate(players: int, games: int, target: str, always: bool, options: dict) -> float:
    wins = 0.0
    side = str(options.get("side", "horn"))
    for seed in range(games):
        seat = seed % players
        bots = [HeuristicBot() for _ in range(players)]
        bots[seat] = Variant(target, always, side)
        ranks = play(players, 10_000 + seed, bots, options)
        if ranks[seat] == 1:
            wins += 1 / ranks.count(1)
    return wins / games


def longest_random(playouts: int) -> int:
    longest = 0
    for seed in range(playouts):
        options = [{}, {"side": "shield"}, {"expert": True}, {"side": "shield", "expert": True}][seed % 4]
        state = GAME.new_match(GAME.config(2 + seed % 3, options), seed)
        rng = Chance(seed)
        while state.pending:
            GAME.advance(state, {d.seat: rng.pick(d.options, "t") for d in state.pending})
        longest = max(longest, state.steps)
    return longest


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=count(1), default=200)
    parser.add_argument("--variants", type=count(1), default=150, help="games per avoid/always variant")
    args = parser.parse_args(argv)
    for options in ({}, {"side": "shield"}, {"expert": True}):
        for players in (2, 3, 4):
            self_play(players, args.games, options)
    print("3 players, Horn: one seat avoiding / always taking (fair = 0.33)")
    for target in ("series", "trophy2", "wild", "trophy1", "reward", "trophy_step"):
        avoid = variant_rate(3, args.variants, target, False, {})
        always = variant_rate(3, args.variants, target, True, {})
        print(f"  {target:12s} avoid {avoid:.2f}  always {always:.2f}")
    print("3 players, Shield: Trophy spaces avoided / always (fair = 0.33)")
    avoid = variant_rate(3, args.variants, "trophy", False, {"side": "shield"})
    always = variant_rate(3, args.variants, "trophy", True, {"side": "shield"})
    print(f"  trophy       avoid {avoid:.2f}  always {always:.2f}")
    print("3 players, Expert: one seat preferring a face first (fair = 0.33)")
    for face in sorted(set(FACES)):
        rate = variant_rate(3, max(args.variants // 2, 30), face, True, {"expert": True})
        print(f"  {face:10s} {rate:.2f}")
    print(f"longest of 2,000 random playouts: {longest_random(2000)} decisions")


if __name__ == "__main__":
    main()
