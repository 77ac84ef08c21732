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
  end. By default (``rollout=heuristic``) every seat plays its game's ``heuristic`` bot in the
  rollout (a :class:`Policy`: the bot's ``choose`` on the seat's observation of the world; or
  the game's ``ROLLOUT_POLICY``, a :class:`RolloutPolicy` reading the seat's view straight from
  the world, where building an observation at every step would cost most of the rollout),
  except with probability ``epsilon`` (0.1) the MAST-greedy option. MAST (move-average
  sampling, Finnsson & Björnsson 2008) is every seat's mean reward per option id over the whole
  search so far (``discard:7`` is good or bad in many positions of one game); ``rollout=mast``
  takes its best option, an untried one first, except with probability ``epsilon`` (0.5) a
  uniformly random one; ``rollout=random`` plays uniformly. The reward of a seat is the fraction
  of the other seats it beats in the final ranking (a shared placing counts half): the pairwise
  outcome the ratings are fitted on.
* **Heuristic prior** (progressive bias): at a new node, each deciding seat's heuristic choice
  starts with ``prior`` virtual wins, which fade as real visits accumulate: with a small budget
  the search leaves the heuristic only where its simulations clearly say so.
* **The answer** is this seat's most visited option at the root; with ``mix=1``, for a sealed
  simultaneous decision, an option drawn in proportion to the root visits (a mixed strategy).
* **Sequential halving on common random numbers** (``halving=1``): instead of UCB at the root,
  ceil(log2 K) rounds over the K options share the budget; in each round every surviving option
  is played on the same sampled worlds with the same seed for all later chance (a paired
  comparison: the luck of the deal and dice largely cancels in the difference), then the worse
  half is dropped; the answer is the best survivor. At a sealed simultaneous root the other
  seats play their heuristic's choice in each world (a best response to the modelled players).
  ``tree=0`` grows no nodes below the root: every simulation rolls out from a root option, so
  with heuristic rollouts it is Bertsekas' rollout algorithm (a one-step improvement of the
  heuristic) and nothing below the root fuses strategies across worlds.
* **Served** (``arena bot serve --bot search``): worlds are built from each request's
  observation (``Game.world_from_observation``) for the games that implement it.

Parameters (``search:iterations=400,c=0.5``): ``iterations`` (a fixed number of iterations per
decision: deterministic for a seed, what tests and measurements use), ``ms`` (a wall-clock
budget per decision, used when ``iterations`` is not given; default 500, below the default
2000 ms clock; no simulation starts after it, so a decision overruns it by about one rollout;
served, either budget is capped by the clock the request carries, see :func:`clock_budget_ms`),
``c`` (the UCB exploration constant), ``rollout`` (heuristic|mast|random),
``epsilon`` (the share of rollout steps taken by the next policy down), ``prior`` (virtual wins
of the heuristic's choice, 0 = none), ``mix`` (0|1), ``halving`` (0|1: sequential halving
at the root), ``tree`` (0|1: nodes below the root), ``ties`` (first|visits: with ``halving``,
root options of equal mean go to the first offered, or to the more visited: the heuristic's,
by the prior's virtual visits), ``margin`` (0..1: that share of the reward is the score
margin, see :func:`rewards`), ``guard`` (with ``halving``: answer the heuristic's option unless
the best survivor beats it by this many standard errors of the paired difference; 0 = no test)
and ``confirm`` (with ``guard``: up to this many more paired worlds for a promising departure
before the test). Rewards lie in [0, 1].
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Protocol

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import ConfigError
from arena.engine import Decision, Game, MatchState, ObservedWorlds, Option, Result, Worlds
from arena.registry import get_game
from arena.v1 import bot_pb2
from bots.params import Param, read_params
from bots.sdk import Bot, unpack

ROLLOUTS = ("heuristic", "mast", "random")
"""Rollout policies, in the order of the ``rollout`` parameter's codes (0, 1, 2)."""
EPSILON = {"heuristic": 0.1, "mast": 0.5, "random": 1.0}
"""The default ``epsilon`` of each rollout policy (chosen by measurement, see the README)."""

PARAMS = (
    Param("iterations", 0, 0, 10_000_000, integer=True),
    Param("ms", 500, 1, 600_000, integer=True),
    Param("c", 0.7, 0.0, 10.0),
    Param("epsilon", 0.5, 0.0, 1.0),
    Param("prior", 10, 0, 1000),
    Param("mix", 0, 0, 1, integer=True),
    Param("rollout", 0, 0, len(ROLLOUTS) - 1, integer=True, choices=ROLLOUTS),
    Param("halving", 0, 0, 1, integer=True),
    Param("tree", 1, 0, 1, integer=True),
    Param("ties", 0, 0, 1, integer=True, choices=("first", "visits")),
    Param("margin", 0.0, 0.0, 1.0),
    Param("guard", 0.0, 0.0, 10.0),
    Param("confirm", 0, 0, 1_000_000, integer=True),
)


class RolloutPolicy(Protocol):
    """What the search asks of a rollout policy: a seat's choice in a world, and a new seed."""

    def choose(self, world: MatchState, decision: Decision) -> Option: ...

    def reseed(self, rng: Chance) -> None: ...


class Policy:
    """A cheap bot that picks an option from a world (the game's ``heuristic`` as a rollout
    policy): it reads the deciding seat's observation of the world, as the bot reads a request."""

    __slots__ = ("bot", "game")

    def __init__(self, game: Game, bot: Bot) -> None:
        self.game = game
        self.bot = bot

    def choose(self, world: MatchState, decision: Decision) -> Option:
        turn = _WorldTurn(decision, self.game.observe(world, decision.seat))
        chosen = self.bot.choose(turn)  # type: ignore[arg-type]
        for option in decision.options:
            if option.id == chosen:
                return option
        raise ValueError(f"rollout policy {self.bot.name}: {chosen!r} is not a legal option")

    def reseed(self, rng: Chance) -> None:
        if hasattr(self.bot, "rng"):  # a sampling heuristic draws from the search's chance
            self.bot.rng = rng


class _WorldTurn:
    """What a bot's ``choose`` reads of a :class:`bots.sdk.Turn`, straight from a world: the
    engine's options carry their typed ``action`` unpacked already."""

    __slots__ = ("kind", "observation", "option_ids", "options", "seat")

    def __init__(self, decision: Decision, observation: Message) -> None:
        self.kind = decision.kind
        self.seat = decision.seat
        self.observation = observation
        self.options = decision.options
        self.option_ids = [o.id for o in decision.options]


def rollout_policies(game: Game, players: int, rng: Chance) -> list[RolloutPolicy] | None:
    """One rollout policy per seat: the game's own state policy where its bot module names one
    (``ROLLOUT_POLICY``: the heuristic's rule read straight from the world, no observation
    built), else the bot it names as ``ROLLOUT`` reading observations; None when it names
    neither (its heuristic is too slow to call at every rollout step)."""
    from bots.registry import make_bot, rollout_policy, rollout_spec

    game_id = game.meta.id
    factory = rollout_policy(game_id)
    spec = rollout_spec(game_id)
    if factory is None and spec is None:
        return None
    out: list[RolloutPolicy] = []
    for _ in range(players):
        policy: RolloutPolicy = factory(game) if factory is not None else Policy(game, make_bot(str(spec), game_id))
        policy.reseed(Chance(rng.below(2**63, "policy")))
        out.append(policy)
    return out


class Node:
    """A point of this seat's information-set tree: per deciding seat, per option id, the
    statistics ``[visits, total reward, availability]``; children by (own choice, seen events)."""

    __slots__ = ("children", "stats")

    def __init__(self) -> None:
        self.stats: dict[int, dict[str, list[float]]] = {}
        self.children: dict[tuple[object, ...], Node] = {}


def rewards(result: Result, margin: float = 0.0) -> list[float]:
    """Per seat, the fraction of the other seats it beats (ties count half); with ``margin``
    (0..1), that share of the reward is the score margin instead: per other seat
    ``(1 + (mine - theirs) / (|mine| + |theirs|)) / 2`` (a close loss is worth more than a rout,
    a wide win more than a narrow one: a signal in every simulated game, where win/loss says
    nothing of most of them)."""
    ranks = result.ranks
    others = len(ranks) - 1
    if not others:
        return [1.0]
    # Against itself a seat "ties": subtract that half.
    wins = [(sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in ranks) - 0.5) / others for mine in ranks]
    if not margin:
        return wins
    scores = result.scores
    shares = [
        sum((1 + (mine - theirs) / span) / 2 if (span := abs(mine) + abs(theirs)) else 0.5 for theirs in scores)
        - 0.5  # against itself
        for mine in scores
    ]
    return [(1 - margin) * win + margin * share / others for win, share in zip(wins, shares, strict=True)]


class Search:
    """The search of one decision (a fresh tree each time)."""

    def __init__(
        self,
        game: Game,
        seat: int,
        rng: Chance,
        c: float,
        epsilon: float = 1.0,
        policies: Sequence[RolloutPolicy] | None = None,
        prior: float = 0.0,
        tree: bool = True,
        tie_visits: bool = False,
        margin: float = 0.0,
        guard: float = 0.0,
        stop: threading.Event | None = None,
    ) -> None:
        self.game = game
        self.seat = seat
        self.rng = rng
        self.c = c
        self.epsilon = epsilon
        self.policies = policies
        """Per seat, the heuristic rollout policy (None: MAST, or random with epsilon=1)."""
        self.prior = prior
        """Virtual wins for the policy's choice at a new node (progressive bias), 0: none."""
        self.tree = tree
        """False: no nodes below the root (every simulation rolls out from the root's options)."""
        self.tie_visits = tie_visits
        """``halving``: of root options with equal means the more visited ranks first (the
        prior's virtual visits count: the heuristic's option), not the first offered."""
        self.margin = margin
        """The share of the reward that is the score margin (see :func:`rewards`)."""
        self.guard = guard
        """``halving``: leave the heuristic's root option only for one better by this many
        standard errors of the paired difference (0: no test)."""
        self.stop = stop or threading.Event()
        """Set from another thread when nobody waits for the answer any more (the bot's match
        ended): no simulation starts after it, whatever the budget left."""
        self.anchor: str | None = None
        """``guard``: the heuristic's root option (never dropped by halving)."""
        self.paired_rewards: list[dict[str, float]] = []
        """``guard``: per paired world, this seat's reward of each root option played on it."""
        self.root = Node()
        self.iterations = 0
        self.alive: list[str] | None = None
        """``halving``: the root options that survived the last round (the answer is among them)."""
        self.mast: dict[tuple[int, str], list[float]] = {}
        """MAST: per (seat, option id), [times played, total reward] over this search."""

    def run(self, worlds: Worlds | ObservedWorlds, iterations: int, ms: float, deadline: float | None = None) -> None:
        """``iterations`` iterations, or (0) as many as fit in ``ms`` milliseconds; either way
        none starts at or after ``deadline`` (``perf_counter``: a served bot's clock)."""
        if not iterations:
            end = time.perf_counter() + ms / 1000
            deadline = end if deadline is None else min(deadline, end)
        while (not iterations or self.iterations < iterations) and not self.over(deadline):
            self.iterate(worlds)
            self.iterations += 1

    def over(self, deadline: float | None) -> bool:
        """No simulation starts now: ``deadline`` (``perf_counter``) has come, or :attr:`stop`."""
        return self.stop.is_set() or (deadline is not None and time.perf_counter() >= deadline)

    def iterate(self, worlds: Worlds | ObservedWorlds) -> None:
        self.simulate(worlds.sample(self.rng))

    def simulate(self, world: MatchState, fixed: Mapping[int, str] | None = None) -> float:
        """One simulated game on ``world``: down the tree, one node added, a rollout, backed up.
        ``fixed``: at the root, the option ids some seats play (``halving``), not selected."""
        game, seat, rng = self.game, self.seat, self.rng
        node = self.root
        path: list[tuple[Node, dict[int, Option]]] = []
        # Selection and expansion, down this seat's information-set tree.
        while world.pending:
            if self.prior and not node.stats:
                self.bias(node, world)
            joint = {}
            for d in world.pending:
                option = d.find(fixed[d.seat]) if fixed and d.seat in fixed else None
                if option is None:
                    joint[d.seat] = self.select(node, d.seat, d.options)
                else:
                    joint[d.seat] = option
                    node.stats.setdefault(d.seat, {}).setdefault(option.id, [0, 0.0, 0])[2] += 1
            fixed = None
            path.append((node, joint))
            if not self.tree:  # rollouts straight from the root's options
                game.advance(world, joint)
                break
            seen = len(world.log.events)
            game.advance(world, joint)
            own = joint[seat].id if seat in joint else None
            key = (own, *((e.kind, e.text) for e in world.log.events[seen:] if e.visible_to(seat)))
            child = node.children.get(key)
            if child is None:
                node.children[key] = Node()
                break
            node = child
        # Rollout: the heuristic, or MAST-greedy, to the end, with epsilon steps of the next
        # policy down (heuristic -> MAST -> random).
        played: list[tuple[int, str]] = [(s, o.id) for _, joint in path for s, o in joint.items()]
        policies = self.policies
        rollout = self.rollout_choice if self.epsilon < 1 or policies is not None else None
        below = rng.below
        while world.pending:
            if policies is not None:
                joint = {d.seat: self.policy_choice(world, d) for d in world.pending}
                played += [(s, o.id) for s, o in joint.items()]
            elif rollout is None:
                joint = {d.seat: d.options[below(len(d.options), "rollout")] for d in world.pending}
            else:
                joint = {d.seat: rollout(d.seat, d.options) for d in world.pending}
                played += [(s, o.id) for s, o in joint.items()]
            game.advance(world, joint)
        reward = rewards(game.score(world), self.margin)
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
        return reward[seat]

    def halve(
        self,
        worlds: Worlds | ObservedWorlds,
        option_ids: list[str],
        iterations: int,
        ms: float,
        deadline: float | None = None,
    ) -> None:
        """Sequential halving at the root (Karnin, Koren & Somekh 2013) on common random numbers.

        ceil(log2 K) rounds share the budget (``iterations``, else ``ms``) equally; in a round
        every surviving option is simulated on the *same* worlds, the worse half is dropped
        after it. The differences that decide a move are often a few percent of win
        probability while one simulated game's reward is 0 or 1: independent playouts per
        option drown them in the noise of the dice and deals. Played on one world, one seed,
        the options meet the same hidden cards and the same future chance (until their paths
        diverge), so that noise largely cancels in the comparison (a paired test).

        On a clock (``ms``, or a ``deadline``) no simulation starts at or after the end of the
        budget, even inside a round's first world: a round of K options costs K rollouts, and
        that minimum took Rainbow's 29 options to 6.8 times ``ms=50`` (an outside probe). A
        search cut short answers from the options simulated so far (:meth:`cut`)."""
        alive = list(option_ids)
        rounds = max(1, math.ceil(math.log2(len(alive))))
        start = time.perf_counter()
        if not iterations:
            end = start + ms / 1000
            deadline = end if deadline is None else min(deadline, end)
        for r in range(rounds):
            if len(alive) == 1 or (iterations and self.iterations >= iterations):
                break
            budget = (iterations - self.iterations) // (rounds - r)
            target = start + ms / 1000 * (r + 1) / rounds
            spent = 0
            while True:  # at least one world per round, unless the deadline comes first
                if not self.paired(worlds, alive, deadline):
                    self.cut(alive)
                    return
                spent += len(alive)
                if spent + len(alive) > budget if iterations else time.perf_counter() >= target:
                    break
            kept = sorted(alive, key=self.rank, reverse=True)[: (len(alive) + 1) // 2]
            if self.anchor in alive and self.anchor not in kept:
                kept.append(self.anchor)  # ``guard``: the answer is tested against it at the end
            alive = kept
        self.alive = alive

    def cut(self, alive: list[str]) -> None:
        """Halving stopped at its deadline inside a round: the answer is drawn from the round's
        options that have statistics (simulated, or the prior's virtual wins; the heuristic's
        option under ``guard``), so one never played does not win on a mean of 0; with none,
        :meth:`best` falls back to the first option offered."""
        table = self.root.stats.get(self.seat, {})
        self.alive = [o for o in alive if o in table or o == self.anchor] or None

    def paired(self, worlds: Worlds | ObservedWorlds, option_ids: list[str], deadline: float | None = None) -> bool:
        """Every option in ``option_ids`` simulated once on one sampled world, each from an exact
        copy of it (its chance included) and with the same seed for everything the simulation
        draws (rollout steps, the heuristics' own sampling). At a sealed simultaneous root, the
        other seats play their heuristic's choice in this world (read from their observation
        of it), the same against every option: our card is a best response to the modelled
        players, and their choice's noise is common to all our options too. False: ``deadline``
        (``perf_counter``) came before every option was played (the world is left part-played)."""
        if self.over(deadline):
            return False
        main = self.rng
        world = worlds.sample(main)
        seed = main.below(2**63, "paired")
        fixed: dict[int, str] = {}
        try:
            self.reseed(seed)
            if self.policies is not None:
                for d in world.pending:
                    if d.seat != self.seat and len(d.options) > 1:
                        fixed[d.seat] = self.policies[d.seat].choose(world, d).id
                    elif d.seat == self.seat and self.guard and self.anchor is None:
                        self.anchor = self.policies[d.seat].choose(world, d).id
            rewards_here: dict[str, float] = {}
            for i, option_id in enumerate(option_ids):
                if self.over(deadline):
                    if self.guard and rewards_here:
                        self.paired_rewards.append(rewards_here)  # a pair in it still counts
                    return False
                self.reseed(seed)
                copy = world if i == len(option_ids) - 1 else self.game.clone(world)
                rewards_here[option_id] = self.simulate(copy, {**fixed, self.seat: option_id})
                self.iterations += 1
            if self.guard:
                self.paired_rewards.append(rewards_here)
        finally:
            self.rng = main
        return True

    def reseed(self, seed: int) -> None:
        """The search's and the rollout heuristics' chance, all from ``seed`` (paired runs)."""
        self.rng = Chance(seed)
        for i, policy in enumerate(self.policies or ()):
            policy.reseed(Chance(seed + 1 + i))

    def rank(self, option_id: str) -> tuple[float, float]:
        """``halving``'s order of root options: the mean, then (``tie_visits``) the visits."""
        if not self.tie_visits:
            return (self.mean(option_id), 0.0)
        visits = self.root.stats.get(self.seat, {}).get(option_id, (0, 0.0, 0))[0]
        return (self.mean(option_id), visits)

    def mean(self, option_id: str) -> float:
        """This seat's mean reward of a root option (the prior's virtual wins included)."""
        visits, total, _ = self.root.stats.get(self.seat, {}).get(option_id, (0, 0.0, 0))
        return total / visits if visits else 0.0

    def policy_choice(self, world: MatchState, decision: Decision) -> Option:
        """The seat's heuristic choice, or with probability ``epsilon`` the MAST-greedy one."""
        options = decision.options
        if len(options) == 1:
            return options[0]
        if self.rng.below(1024, "rollout") < self.epsilon * 1024:
            return self.mast_choice(decision.seat, options)
        assert self.policies is not None
        return self.policies[decision.seat].choose(world, decision)

    def bias(self, node: Node, world: MatchState) -> None:
        """Progressive bias at a new node: the deciding seat's policy choice starts with
        ``prior`` virtual wins (their weight fades as real visits come in)."""
        policies = self.policies
        if policies is None or len(world.pending) > 1:
            # Not at sealed simultaneous decisions: biasing every seat's bandit there makes the
            # search best-respond to a predictable heuristic (measured in Get Bit!: 0.15 with
            # the prior against 0.28 without, share against heuristic).
            return
        for decision in world.pending:
            if len(decision.options) > 1:
                option = policies[decision.seat].choose(world, decision)
                node.stats.setdefault(decision.seat, {})[option.id] = [self.prior, self.prior, 0]

    def rollout_choice(self, seat: int, options: tuple[Option, ...]) -> Option:
        """MAST-greedy: the option with the best mean reward so far (untried counts as 1),
        or with probability ``epsilon`` (and for a single option) any at random."""
        rng = self.rng
        if len(options) == 1:
            return options[0]
        if rng.below(1024, "rollout") < self.epsilon * 1024:
            return options[rng.below(len(options), "rollout")]
        return self.mast_choice(seat, options)

    def mast_choice(self, seat: int, options: tuple[Option, ...]) -> Option:
        """The option with the best MAST mean so far (untried counts as 1; ties: the first)."""
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
        """The most visited option at the root (ties: the higher mean reward, then the first);
        after ``halving``, the survivor with the best mean."""
        if self.alive:
            best = max(self.alive, key=self.rank)
            if self.anchor is not None and best != self.anchor and not self.significant(best, self.anchor):
                return self.anchor
            return best
        table = self.root.stats.get(self.seat, {})

        def key(option_id: str) -> tuple[float, float]:
            visits, total, _ = table.get(option_id, (0, 0.0, 0))
            return (visits, total / visits if visits else 0.0)

        return max(option_ids, key=key)

    def significant(self, option: str, anchor: str) -> bool:
        """``guard``: whether ``option`` beats ``anchor`` by ``guard`` standard errors of their
        paired difference, over the worlds both were played on. The heuristic is often close to
        the best move: a departure on the noise of a few dozen simulated games loses more where
        the heuristic was right than it wins where it was not."""
        return self.advantage(option, anchor) > self.guard

    def advantage(self, option: str, anchor: str) -> float:
        """The mean paired difference of ``option`` over ``anchor`` in standard errors (0 with
        fewer than two worlds; infinite when every world gave the same positive difference)."""
        diffs = [r[option] - r[anchor] for r in self.paired_rewards if option in r and anchor in r]
        n = len(diffs)
        if n < 2:
            return 0.0
        mean = sum(diffs) / n
        variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if not variance:
            return math.inf if mean > 0 else -math.inf if mean < 0 else 0.0
        return mean / math.sqrt(variance / n)

    def confirm(self, worlds: Worlds | ObservedWorlds, extra: int, deadline: float | None = None) -> None:
        """``guard`` with ``confirm``: a departure that looks promising (half the guard's
        standard errors) but has not passed is played against the heuristic's option on up to
        ``extra`` more paired worlds before the test: the budget goes to the close calls.
        ``deadline`` (``perf_counter``): a bot on a time budget stops there (``ms=100,
        confirm=3000`` took 54 s on one decision, a timeout when served: an outside probe)."""
        if self.anchor is None or not self.alive:
            return
        best = max(self.alive, key=self.rank)
        if best == self.anchor or not self.guard / 2 < self.advantage(best, self.anchor) <= self.guard:
            return
        for _ in range(extra):
            if not self.paired(worlds, [best, self.anchor], deadline):
                return

    def mixed(self, option_ids: list[str]) -> str:
        """For a sealed simultaneous decision: an option drawn in proportion to its root visits
        (the decoupled statistics' mixed strategy; the most visited alone is exploitable)."""
        table = self.root.stats.get(self.seat, {})
        weights = [int(table[i][0]) if i in table else 0 for i in option_ids]
        if not any(weights):
            return self.best(option_ids)
        return option_ids[self.rng.weighted(weights, "mix")]


CLOCK_SHARE = 0.5
"""Served with a clock: the share of what a decision may take (its limit and the bank left)
that the search spends at most. Half leaves room for the machine's stalls and one rollout past
the deadline, and a bank spent by halves is never spent out."""
TRANSPORT_MS = 50
"""Served with a clock: milliseconds kept back from that share for the request's and the
answer's way over gRPC (and the world built from the observation, not yet searched)."""


def clock_budget_ms(clock: bot_pb2.ClockState) -> float | None:
    """The most a served search may spend on this decision, from the clock its request carries:
    ``CLOCK_SHARE`` of the limit plus the bank left, less ``TRANSPORT_MS`` (0 at least: the
    answer is then the first option or the heuristic's, unsimulated). None without a clock (in
    process the request carries none: no limit is enforced there)."""
    if not clock.decision_ms:  # the referee's limit is always positive (arena/clock.py)
        return None
    return max(0.0, CLOCK_SHARE * (clock.decision_ms + clock.bank_ms) - TRANSPORT_MS)


IN_PROCESS_ONLY = (
    "it searches worlds sampled from the referee's state (Game.sample_world), and {game} cannot "
    "build them from an observation alone (Game.world_from_observation is not implemented); "
    "choose it in arena play / tournament --bots"
)


class SearchBot(Bot):
    name = "search"
    version = "1.2"  # 1.2: a timed search stops at its deadline; served, the clock caps the budget
    in_process_only = IN_PROCESS_ONLY.format(game="this game")
    """Why the bot cannot be served (empty: it can, the game builds worlds from observations)."""

    def __init__(
        self,
        iterations: int = 0,
        ms: float = 500,
        c: float = 0.7,
        seed: int = 0,
        epsilon: float | None = None,
        rollout: str = "heuristic",
        prior: float = 10.0,
        mix: bool = False,
        halving: bool = False,
        tree: bool = True,
        tie_visits: bool = False,
        margin: float = 0.0,
        guard: float = 0.0,
        confirm: int = 0,
    ) -> None:
        super().__init__()
        if rollout not in ROLLOUTS:
            raise ConfigError(f"search: rollout={rollout!r} is not one of {'|'.join(ROLLOUTS)}")
        self.iterations = iterations
        self.ms = ms
        self.c = c
        self.rollout = rollout
        self.epsilon = EPSILON[rollout] if epsilon is None else epsilon
        self.prior = prior
        self.mix = mix
        self.halving = halving
        self.tree = tree
        self.tie_visits = tie_visits
        self.margin = margin
        self.guard = guard
        self.confirm = confirm
        self.rng = Chance(seed)
        self.policies: list[RolloutPolicy] | None = None  # built at the first decision (the game known)
        self.last: Search | None = None  # the last decision's search (for tests and benchmarks)
        self.last_budget_ms: float | None = None
        """The last decision's time budget in milliseconds: ``ms``, capped by the request's clock
        (:func:`clock_budget_ms`); with ``iterations``, the clock's cap alone (None: none)."""
        self.abandoned = threading.Event()
        """Set by :meth:`abandon`: every search of this bot stops (its match has ended)."""

    def on_start(self, start: bot_pb2.MatchStart) -> None:
        # Seeded per match and seat by the referee, so a match replays identically.
        self.rng = Chance(start.bot_seed)
        self.policies = None

    def abandon(self) -> None:
        """Its match ended while it may be thinking, on another thread (the service's challenge
        opponents): the search under way stops at its next simulation and any later one at once,
        its answer unread. A search of ``ms=600000`` otherwise ran its 10 minutes after its
        challenge was cancelled (an outside probe)."""
        self.abandoned.set()

    def decide_worlds(
        self, request: bot_pb2.DecisionRequest, worlds: Worlds | ObservedWorlds, started: float | None = None
    ) -> str:
        """A decision with a sampler of this seat's worlds (the in-process runner's call).
        ``started`` (``perf_counter``): when the request came, for a budget from its clock."""
        if started is None:
            started = time.perf_counter()
        self.heard(request.events)
        option_ids = [o.id for o in request.options]
        if len(option_ids) == 1:
            return option_ids[0]
        game = worlds.game
        policies = None
        if self.rollout == "heuristic":
            if self.policies is None:
                self.policies = rollout_policies(game, worlds.players, self.rng) or []
            policies = self.policies or None
        # Without a heuristic, "heuristic" rollouts fall back to MAST (epsilon: random steps).
        epsilon = self.epsilon if policies is not None or self.rollout != "heuristic" else EPSILON["mast"]
        search = Search(
            game,
            worlds.seat,
            self.rng,
            self.c,
            epsilon,
            policies,
            self.prior,
            self.tree,
            self.tie_visits,
            self.margin,
            self.guard,
            self.abandoned,
        )
        # The clock a served request carries caps the budget (an outside probe: ``ms=100``
        # against a 500 ms limit and no bank was struck, then forfeited, in Rainbow). It caps a
        # fixed ``iterations`` too: a choice that depends on the machine beats a forfeit.
        cap = clock_budget_ms(request.clock)
        ms = self.ms if cap is None or self.iterations else min(self.ms, cap)
        self.last_budget_ms = cap if self.iterations else ms
        deadline = None if self.last_budget_ms is None else started + self.last_budget_ms / 1000
        if self.halving:
            search.halve(worlds, option_ids, self.iterations, ms, deadline)
            if self.confirm:
                search.confirm(worlds, self.confirm, deadline)
        else:
            search.run(worlds, self.iterations, ms, deadline)
        self.last = search
        if self.mix and request.simultaneous:
            return search.mixed(option_ids)
        return search.best(option_ids)

    def decide(self, request: bot_pb2.DecisionRequest) -> str:
        """Served over gRPC: worlds built from the request's observation alone
        (``Game.world_from_observation``), where the game implements it."""
        started = time.perf_counter()  # the clock runs while the worlds are built, too
        if self.in_process_only or self.match is None:
            raise RuntimeError(f"search needs a sampler of its seat's worlds (in-process only): {self.in_process_only}")
        match = self.match
        game = get_game(match.game_id)
        config = game.config(match.players, dict(match.options))
        worlds = ObservedWorlds(game, config, request.seat, unpack(request.observation))
        return self.decide_worlds(request, worlds, started)


def search_bot(params: Mapping[str, str], game_id: str) -> SearchBot:
    """The ``search`` bot from its spec's parameters over the game's defaults (``SEARCH`` in its
    bot module); ConfigError names the allowed ones."""
    from bots.registry import search_defaults

    defaults = search_defaults(game_id)
    if "ms" in params and "iterations" not in params:
        defaults.pop("iterations", None)  # a clock budget asked for replaces a game's fixed one
    params = {**defaults, **params}
    values = read_params("search", params, PARAMS)
    game = get_game(game_id)
    if type(game).sample_world is Game.sample_world and game.meta.hidden_information:
        raise ConfigError(f"bot 'search' needs {game_id}'s sample_world (the game has hidden information)")
    bot = SearchBot(
        int(values["iterations"]),
        values["ms"],
        values["c"],
        epsilon=values["epsilon"] if "epsilon" in params else None,
        rollout=ROLLOUTS[int(values["rollout"])],
        prior=values["prior"],
        mix=bool(values["mix"]),
        halving=bool(values["halving"]),
        tree=bool(values["tree"]),
        tie_visits=bool(values["ties"]),
        margin=values["margin"],
        guard=values["guard"],
        confirm=int(values["confirm"]),
    )
    bot.in_process_only = "" if game.observes_worlds() else IN_PROCESS_ONLY.format(game=game_id)
    return bot
