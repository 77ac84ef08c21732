"""``search``: information-set Monte Carlo tree search, a strong bot for every game.

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012) over the engine itself:

* **Determinization.** Every iteration starts from a new world, ``game.sample_world(state,
  seat, rng)``: the hidden information re-drawn consistently with what this seat knows. The bot
  never sees the real state: the in-process runner hands it a :class:`arena.engine.Worlds`
  sampler with its request (``decide_worlds``), nothing else.
* **One tree over this seat's information sets.** A node is reached by the moves and what this
  seat saw happen: a child is keyed by this seat's own choice and the events visible to it
  (cards drawn, dice, others' public moves), so chance outcomes it sees branch the tree and
  moves it cannot see (a sealed card, a private draw) do not.
* **Every seat chooses in the same tree**, each with its own statistics and its own reward
  (other seats are modelled as searching too, from this seat's information: the SO-ISMCTS
  approximation). Options differ between worlds, so selection is UCB1 over the options
  available in this world with *availability counts* (the subset-armed bandit of ISMCTS).
* **Simultaneous decisions** (sealed choices) are decoupled: each deciding seat selects with
  its own statistics at the node, without seeing the others' choices, and the joint choice is
  applied at once. This seat's tree never branches on another seat's sealed choice.
* **Expansion and rollout.** One node is added per iteration, then the world is played to the
  end. Rollouts are informed by MAST (move-average sampling, Finnsson & Björnsson 2008): every
  seat's mean reward per option id over the whole search so far (``discard:7`` is good or bad
  in many positions of one game); a rollout step takes the option with the best mean, an
  untried one first, except with probability ``epsilon`` a uniformly random one
  (``epsilon=1`` gives plain random rollouts). The reward of a seat is the fraction of the other seats it
  beats in the final ranking (a shared placing counts half): the pairwise outcome the ratings
  are fitted on.
* **The answer** is this seat's most visited option at the root.

Parameters (``search:iterations=400,c=0.5``): ``iterations`` (a fixed number of iterations per
decision: deterministic for a seed, what tests and measurements use), ``ms`` (a wall-clock
budget per decision, used when ``iterations`` is not given; default 500, below the default
2000 ms clock), ``c`` (the UCB exploration constant), ``epsilon`` (the share of random rollout
steps). Rewards lie in [0, 1].
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

from arena.chance import Chance
from arena.config import ConfigError
from arena.engine import Game, Option, Result, Worlds
from arena.registry import get_game
from arena.v1 import bot_pb2
from bots.params import Param, read_params
from bots.sdk import Bot

PARAMS = (
    Param("iterations", 0, 0, 10_000_000, integer=True),
    Param("ms", 500, 1, 600_000, integer=True),
    Param("c", 0.7, 0.0, 10.0),
    Param("epsilon", 0.5, 0.0, 1.0),
)


class Node:
    """A point of this seat's information-set tree: per deciding seat, per option id, the
    statistics ``[visits, total reward, availability]``; children by (own choice, seen events)."""

    __slots__ = ("children", "stats")

    def __init__(self) -> None:
        self.stats: dict[int, dict[str, list[float]]] = {}
        self.children: dict[tuple[object, ...], Node] = {}


def rewards(result: Result) -> list[float]:
    """Per seat, the fraction of the other seats it beats (ties count half)."""
    ranks = result.ranks
    others = len(ranks) - 1
    if not others:
        return [1.0]
    # Against itself a seat "ties": subtract that half.
    return [(sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in ranks) - 0.5) / others for mine in ranks]


class Search:
    """The search of one decision (a fresh tree each time)."""

    def __init__(self, game: Game, seat: int, rng: Chance, c: float, epsilon: float = 1.0) -> None:
        self.game = game
        self.seat = seat
        self.rng = rng
        self.c = c
        self.epsilon = epsilon
        self.root = Node()
        self.iterations = 0
        self.mast: dict[tuple[int, str], list[float]] = {}
        """MAST: per (seat, option id), [times played, total reward] over this search."""

    def run(self, worlds: Worlds, iterations: int, ms: float) -> None:
        """``iterations`` iterations, or (0) as many as fit in ``ms`` milliseconds."""
        deadline = time.perf_counter() + ms / 1000
        while self.iterations < iterations if iterations else time.perf_counter() < deadline:
            self.iterate(worlds)
            self.iterations += 1

    def iterate(self, worlds: Worlds) -> None:
        game, seat, rng = self.game, self.seat, self.rng
        world = worlds.sample(rng)
        node = self.root
        path: list[tuple[Node, dict[int, Option]]] = []
        # Selection and expansion, down this seat's information-set tree.
        while world.pending:
            joint = {d.seat: self.select(node, d.seat, d.options) for d in world.pending}
            path.append((node, joint))
            seen = len(world.log.events)
            game.advance(world, joint)
            own = joint[seat].id if seat in joint else None
            key = (own, *((e.kind, e.text) for e in world.log.events[seen:] if e.visible_to(seat)))
            child = node.children.get(key)
            if child is None:
                node.children[key] = Node()
                break
            node = child
        # Rollout: MAST-greedy to the end, with random steps.
        played: list[tuple[int, str]] = [(s, o.id) for _, joint in path for s, o in joint.items()]
        rollout = self.rollout_choice if self.epsilon < 1 else None
        below = rng.below
        while world.pending:
            if rollout is None:
                joint = {d.seat: d.options[below(len(d.options), "rollout")] for d in world.pending}
            else:
                joint = {d.seat: rollout(d.seat, d.options) for d in world.pending}
                played += [(s, o.id) for s, o in joint.items()]
            game.advance(world, joint)
        reward = rewards(game.score(world))
        for node, joint in path:
            for s, option in joint.items():
                entry = node.stats[s][option.id]
                entry[0] += 1
                entry[1] += reward[s]
        if rollout is not None:
            mast = self.mast
            for move in set(played):
                stat = mast.get(move)
                if stat is None:
                    stat = mast[move] = [0, 0.0]
                stat[0] += 1
                stat[1] += reward[move[0]]

    def rollout_choice(self, seat: int, options: tuple[Option, ...]) -> Option:
        """MAST-greedy: the option with the best mean reward so far (untried counts as 1),
        or with probability ``epsilon`` (and for a single option) any at random."""
        rng = self.rng
        if len(options) == 1:
            return options[0]
        if rng.below(1024, "rollout") < self.epsilon * 1024:
            return options[rng.below(len(options), "rollout")]
        mast = self.mast
        best, best_value = options[0], -1.0
        for option in options:
            entry = mast.get((seat, option.id))
            value = entry[1] / entry[0] if entry else 1.0
            if value > best_value:
                best, best_value = option, value
        return best

    def select(self, node: Node, seat: int, options: tuple[Option, ...]) -> Option:
        """UCB1 with availability counts; untried options first, in random order."""
        table = node.stats.get(seat)
        if table is None:
            table = node.stats[seat] = {}
        untried = []
        best, best_value = options[0], -1.0
        c = self.c
        for option in options:
            entry = table.get(option.id)
            if entry is None:
                entry = table[option.id] = [0, 0.0, 0]
            entry[2] += 1
            visits = entry[0]
            if not visits:
                untried.append(option)
            elif not untried:
                value = entry[1] / visits + c * math.sqrt(math.log(entry[2]) / visits)
                if value > best_value:
                    best, best_value = option, value
        if untried:
            return untried[self.rng.below(len(untried), "untried")] if len(untried) > 1 else untried[0]
        return best

    def best(self, option_ids: list[str]) -> str:
        """The most visited option at the root (ties: the higher mean reward, then the first)."""
        table = self.root.stats.get(self.seat, {})

        def key(option_id: str) -> tuple[float, float]:
            visits, total, _ = table.get(option_id, (0, 0.0, 0))
            return (visits, total / visits if visits else 0.0)

        return max(option_ids, key=key)


class SearchBot(Bot):
    name = "search"
    version = "1.0"
    in_process_only = (
        "it searches worlds sampled from the referee's state (Game.sample_world), which a bot "
        "served over gRPC never has; choose it in arena play / tournament --bots"
    )

    def __init__(
        self, iterations: int = 0, ms: float = 500, c: float = 0.7, seed: int = 0, epsilon: float = 0.5
    ) -> None:
        super().__init__()
        self.iterations = iterations
        self.ms = ms
        self.c = c
        self.epsilon = epsilon
        self.rng = Chance(seed)
        self.last: Search | None = None  # the last decision's search (for tests and benchmarks)

    def on_start(self, start: bot_pb2.MatchStart) -> None:
        # Seeded per match and seat by the referee, so a match replays identically.
        self.rng = Chance(start.bot_seed)

    def decide_worlds(self, request: bot_pb2.DecisionRequest, worlds: Worlds) -> str:
        """A decision with a sampler of this seat's worlds (the in-process runner's call)."""
        self.history.extend(request.events)
        option_ids = [o.id for o in request.options]
        if len(option_ids) == 1:
            return option_ids[0]
        search = Search(worlds.game, worlds.seat, self.rng, self.c, self.epsilon)
        search.run(worlds, self.iterations, self.ms)
        self.last = search
        return search.best(option_ids)

    def decide(self, request: bot_pb2.DecisionRequest) -> str:
        raise RuntimeError(f"search needs a sampler of its seat's worlds (in-process only): {self.in_process_only}")


def search_bot(params: Mapping[str, str], game_id: str) -> SearchBot:
    """The ``search`` bot from its spec's parameters (ConfigError names the allowed ones)."""
    values = read_params("search", params, PARAMS)
    game = get_game(game_id)
    if type(game).sample_world is Game.sample_world and game.meta.hidden_information:
        raise ConfigError(f"bot 'search' needs {game_id}'s sample_world (the game has hidden information)")
    return SearchBot(int(values["iterations"]), values["ms"], values["c"], epsilon=values["epsilon"])
