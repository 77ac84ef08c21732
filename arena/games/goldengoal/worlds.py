"""Golden Goal: a world from an observation (``GoldenGoal.world_from_observation``).

Nothing is hidden: the observation is the whole position. The world keeps it and draws only its
future dice (fresh chance). The kick in progress is rebuilt from the public fields: its first
leg runs from ``kick_from`` to the ball, its bend is the one that leads back to ``direction``,
its free space is the walk-in or pass kick's, and ruling 7's relaxation of a Kickoff/restart
kick is recomputed from where that sequence began.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.config import MatchConfig
from arena.games.goldengoal.field import CIRCLE, NEXT, WIDTH, parse
from arena.games.goldengoal.search import GOAL, PASS, STOP, Search, must_relocate
from arena.games.v1 import goldengoal_pb2 as pb

if TYPE_CHECKING:
    from arena.games.goldengoal.game import GoldenGoal, GoldenGoalState

NAMES = ("k", "o1", "o2", "o3", "o4")
KICKING = (pb.PHASE_KICK, pb.PHASE_DISTANCE, pb.PHASE_BEND)


def _cell(message: pb.Cell) -> int:
    return message.y * (WIDTH + 2) + message.x


def world_from_observation(
    game: GoldenGoal, config: MatchConfig, obs: pb.Observation, chance: Chance
) -> GoldenGoalState:
    from arena.games.goldengoal.game import GoldenGoalState

    seat = obs.turn_seat
    world = GoldenGoalState(
        config=config,
        chance=chance.fork(),
        goals=list(obs.goals),
        phase=obs.phase,
        turn_seat=seat,
        placer=obs.placer,
        kickoff_seat=obs.kickoff_seat,
        die=obs.die,
        pips=obs.pips,
        walked=obs.steps_taken,
        short=obs.short_walk,
        no_goal=obs.no_goal,
        turns=obs.turns_played,
        countdown=obs.countdown,
    )
    world.pos = [_cell(p.cell) if p.placed else -1 for p in obs.pawns]
    for code, c in enumerate(world.pos):
        if c >= 0:
            world.occ[c] = code
    world.placed = [sum(c >= 0 for c in world.pos[s * 5 : s * 5 + 5]) for s in (0, 1)]
    world.ball = _cell(obs.ball) if obs.ball_placed else -1
    world.mover = seat * 5 + NAMES.index(obs.mover) if obs.mover else -1
    world.kickoff = obs.no_goal and sum(obs.goals) == 0
    world.visited = frozenset(_kicked(seat, k) for k in obs.kicked)
    if obs.phase in KICKING:
        _kick_in_progress(game, world, obs)
    elif obs.phase == pb.PHASE_RELOCATE:
        world.relocator = world.mover
        ball = world.ball
        world.after = (GOAL, -1) if ball < 0 else (PASS if world.occ[ball] >= 0 else STOP, ball)
    game.refresh(world)
    return world


def _kicked(seat: int, entry: str) -> tuple[int, int, int]:
    """A ``kicked`` entry, ``<pawn>@<space>:<pips>``, as the state's (pawn code, cell, pips)."""
    who, _, rest = entry.partition("@")
    space, _, pips = rest.partition(":")
    return seat * 5 + NAMES.index(who), parse(space), int(pips)


def _kick_in_progress(game: GoldenGoal, world: GoldenGoalState, obs: pb.Observation) -> None:
    seat = world.turn_seat
    world.kicker = seat * 5 + NAMES.index(obs.kicker)
    world.kick_from = origin = _cell(obs.kick_from)
    first = len(world.visited) == 1
    sequence = obs.no_goal  # a Kickoff or restart sequence: its first kick has no free space
    world.kick_free = 0 if sequence and first else 1
    world.exact = obs.exact > 0
    if not sequence and first and must_relocate(world.kicker, origin):
        world.relocator = world.kicker
    if obs.phase != pb.PHASE_KICK:
        d = obs.direction - 1
        world.direction = world.dir1 = d
        if world.ball != origin:  # the first leg is done (BEND, or DISTANCE after the bend)
            bend = 0 if obs.phase == pb.PHASE_BEND else _bend(origin, world.ball, d)
            world.bend = bend
            world.dir1 = (d - bend) % 8
            c = origin
            while c != world.ball:
                c = NEXT[world.dir1][c]
                world.path.append(c)
            world.leg1 = world.spaces = len(world.path)
    world.pips = obs.pips + max(0, world.spaces - world.kick_free)
    if sequence:
        world.relax = _relax(game, world)


def _bend(origin: int, ball: int, d: int) -> int:
    """The bend (-1 or +1) whose first direction leads in a straight line from origin to ball."""
    for bend in (-1, 1):
        c = origin
        step = NEXT[(d - bend) % 8]
        while c >= 0 and c != ball:
            c = step[c]
        if c == ball:
            return bend
    raise ValueError("the ball is not on a straight line from kick_from")


def _relax(game: GoldenGoal, world: GoldenGoalState) -> int:
    """Ruling 7 for the sequence's first kick, as ``_start_kick`` decided it: pawns do not move
    during a Kickoff or restart sequence, so that kick's start is the position now with the
    ball at its kicker and the full distance (the kicker's largest ``kicked`` entry)."""
    seat = world.turn_seat
    # the Kickoff winner's Outfielder in the Center Circle, or the Keeper restarting
    outfield = range(seat * 5 + 1, seat * 5 + 5)
    kicker = next(c for c in outfield if CIRCLE[world.pos[c]]) if world.kickoff else seat * 5
    distance = max(p for k, _, p in world.visited if k == kicker)
    start = copy.copy(world)
    start.ball = start.kick_from = world.pos[kicker]
    start.kicker, start.pips, start.kick_free, start.exact = kicker, distance, 0, True
    start.visited = frozenset({(kicker, start.ball, distance)})
    start.direction = start.dir1 = -1
    start.leg1 = start.bend = start.spaces = 0
    start.relax = 0
    while not game._kick_options(start, Search(start)) and start.relax < 2:
        start.relax += 1
        start.exact = False
    return start.relax
