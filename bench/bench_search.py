"""Search benchmark: ISMCTS iterations per second per game, and what its inner loop costs.

    python -m bench.bench_search [--seconds 2]

For each game (the player count of ``bench_engine``), at positions spread over seeded random
playouts (the seat to move as the observer), all in the same run:

* ``apply_us``: one plain ``Game.apply`` of a random legal choice (the bare engine step);
* ``sample_world_us``: one ``Game.sample_world`` (copy, filtered log, hidden cards re-drawn),
  and ``clone_us``: one exact ``Game.clone`` (the copy alone), each also as a ratio to
  ``apply_us``;
* ``world_from_observation_us`` (games that implement it): one world built from the seat's
  observation alone, what a served ``search`` samples per iteration, also against ``apply_us``;
* ``iterations_per_s``: ``search`` iterations (sample a world, descend the tree, roll out to
  the end with ``--rollout``: ``random`` by default, as before, or the bot's default
  ``heuristic``, or ``mast``; back up) within the time budget, and ``steps_per_iteration``: engine steps per
  iteration (the rollout length);
* ``advance_us``: one ``Game.advance`` of a random option taken from ``pending`` (the step an
  iteration counts: no validation, unlike ``apply``) in random playouts to the end from worlds
  sampled at the positions the search starts from (rollouts start mid-game: a whole playout
  from the first move weighs other steps); ``iteration_vs_steps`` compares an iteration with
  that many of these steps. Near 1.0 the tree and sampling cost little; it is not an exact
  floor (the rollouts' own positions and options are not these playouts', and the two are timed
  at different moments of a shared machine), so a value just below 1 reads as "about 1".
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from arena.chance import Chance
from arena.engine import Game, MatchState, Worlds
from arena.registry import games
from bench import options
from bots.search import EPSILON, ROLLOUTS, Search, rollout_policies


def positions(game: Game, players: int, matches: int = 4, per_match: int = 5) -> list[MatchState]:
    """Copies of states spread over seeded random playouts (never a finished one)."""
    out = []
    for seed in range(matches):
        state = game.new_match(game.config(players), seed)
        rng = Chance(seed)
        states = []
        while state.pending:
            states.append(game.clone(state))
            game.apply(state, {d.seat: d.options[rng.below(len(d.options), "b")].id for d in state.pending})
        out += states[:: max(1, len(states) // per_match)][:per_match]
    return out


def apply_cost(game: Game, players: int, seconds: float) -> tuple[float, float]:
    """(microseconds per plain apply, mean steps per match) over random playouts."""
    steps = matches = 0
    spent = 0.0
    while spent < seconds or matches < 3:
        state = game.new_match(game.config(players), matches)
        rng = Chance(matches)
        while state.pending:
            choices = {d.seat: d.options[rng.below(len(d.options), "b")].id for d in state.pending}
            began = time.perf_counter()
            game.apply(state, choices)
            spent += time.perf_counter() - began
            steps += 1
        matches += 1
    return spent / steps * 1e6, steps / matches


def advance_cost(game: Game, states: list[MatchState], seconds: float) -> float:
    """Microseconds per ``advance`` of random options from ``pending``, over playouts to the end
    from worlds sampled (as the search samples them) at ``states``, each at least once."""
    steps = worlds = 0
    spent = 0.0
    while spent < seconds or worlds < len(states):
        state = states[worlds % len(states)]
        world = game.sample_world(state, state.pending[0].seat, Chance(worlds))
        rng = Chance(worlds)
        while world.pending:
            chosen = {d.seat: d.options[rng.below(len(d.options), "b")] for d in world.pending}
            began = time.perf_counter()
            game.advance(world, chosen)
            spent += time.perf_counter() - began
            steps += 1
        worlds += 1
    return spent / steps * 1e6


def per_call(call: object, items: list[MatchState], seconds: float) -> float:
    """Microseconds per call over the items, repeated for at least ``seconds``."""
    calls = 0
    began = time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds or calls < len(items):
        call(items[calls % len(items)])  # type: ignore[operator]
        calls += 1
    return elapsed / calls * 1e6


def search_rate(game: Game, states: list[MatchState], seconds: float, rollout: str = "random") -> tuple[float, float]:
    """(iterations per second, engine steps per iteration) of the search over the positions."""
    iterations = steps = 0
    began = time.perf_counter()
    for state in states:
        seat = state.pending[0].seat
        policies = rollout_policies(game, state.players, Chance(1)) if rollout == "heuristic" else None
        epsilon = EPSILON[rollout] if policies is not None or rollout != "heuristic" else EPSILON["mast"]
        search = Search(game, seat, Chance(iterations), c=0.7, epsilon=epsilon, policies=policies)
        counted = _Counting(game)
        search.game = counted
        search.run(Worlds(game, state, seat), 0, seconds / len(states) * 1000)
        iterations += search.iterations
        steps += counted.steps
    return iterations / (time.perf_counter() - began), steps / max(iterations, 1)


class _Counting:
    """The game with its ``advance`` calls counted (everything else passed through)."""

    def __init__(self, game: Game) -> None:
        self._game = game
        self.steps = 0

    def advance(self, state: MatchState, chosen: object) -> None:
        self.steps += 1
        self._game.advance(state, chosen)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> object:
        return getattr(self._game, name)


def iteration_vs_steps(iterations_per_s: float, steps_per_iteration: float, advance_us: float) -> float:
    """An iteration's time over that of its steps taken as plain ``advance`` calls."""
    return 1e6 / iterations_per_s / (steps_per_iteration * advance_us)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=options.seconds(), default=2.0, help="time per measurement and game")
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--rollout", choices=ROLLOUTS, default="random", help="the search's rollout policy")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.game or ()) - set(games()))
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; known games: {', '.join(games())}")
    rows = []
    for game in games().values():
        if args.game and game.meta.id not in args.game:
            continue
        players = min(max(2, game.meta.min_players), game.meta.max_players)
        if game.meta.id == "getbit":
            players = 4  # the base game (2 and 3 players are variants), as in bench_engine
        states = positions(game, players)
        apply_us, match_steps = apply_cost(game, players, args.seconds)
        sample_us = per_call(lambda s, g=game: g.sample_world(s, s.pending[0].seat, Chance(1)), states, args.seconds)
        clone_us = per_call(game.clone, states, args.seconds / 2)
        observed_us = None
        if game.observes_worlds():
            seen = [(s.config, s.pending[0].seat, game.observe(s, s.pending[0].seat)) for s in states]
            observed_us = per_call(lambda o, g=game: g.world_from_observation(*o, Chance(1)), seen, args.seconds / 2)
        advance_us = advance_cost(game, states, args.seconds)
        rate, steps = search_rate(game, states, args.seconds, args.rollout)
        rows.append(
            {
                "game": game.meta.id,
                "players": players,
                "apply_us": round(apply_us, 1),
                "sample_world_us": round(sample_us, 1),
                "sample_world_vs_apply": round(sample_us / apply_us, 2),
                "world_from_observation_us": None if observed_us is None else round(observed_us, 1),
                "world_from_observation_vs_apply": None if observed_us is None else round(observed_us / apply_us, 2),
                "clone_us": round(clone_us, 1),
                "clone_vs_apply": round(clone_us / apply_us, 2),
                "steps_per_match": round(match_steps, 1),
                "rollout": args.rollout,
                "iterations_per_s": round(rate),
                "steps_per_iteration": round(steps, 1),
                "advance_us": round(advance_us, 1),
                "iteration_vs_steps": round(iteration_vs_steps(rate, steps, advance_us), 2),
            }
        )
    print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
