"""Llama Llama: a world built from one seat's observation alone (``world_from_observation``).

Kept: the public round (displays, revealed goals, the table, totals, hand sizes, picks made),
the seat's own hand, picks, goal and pass records (by card id). Drawn by ``_redeal``, as in
``sample_world``: the other hands and the dummies, the face-down goals of others, and who gave
which goal of each group shuffled face down (round 1 all four, later rounds the tied seats';
groups read from ``Display.owner_among``; the seat's own unrevealed goal lies on one of its
group's face-down displays), each card the seat passed kept on its route (ruling 9). Nothing
the seat knows is missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.games.llamallama.game import CARD_IDS, DUMMY, HAND_SIZE, HANDS, LlamaState, deal_owners, own_passes
from arena.games.v1 import llamallama_pb2 as pb

if TYPE_CHECKING:
    from arena.games.llamallama.game import LlamaLlama


def world_from_observation(
    game: LlamaLlama, config: MatchConfig, seat: int, observation: Message, chance: Chance
) -> LlamaState:
    obs = observation
    assert isinstance(obs, pb.Observation)
    n = config.players
    world = LlamaState(
        config=config,
        chance=chance.fork(),
        round=obs.round,
        phase=obs.phase,
        reveals=obs.reveals,
        pass_size=obs.pass_size,
        totals=[v.total for v in obs.seats],
        round_scores=[list(v.rounds) for v in obs.seats],
        winners=list(obs.winners),
    )
    dummies = iter(range(n, HANDS))
    world.circle = [next(dummies) if h == DUMMY else h for h in obs.circle]
    mine = [c.id for c in obs.hand]
    picked = [c.id for c in obs.picked]
    goal = obs.goal.id
    seen = {*mine, *picked, goal, *(d.goal.id for d in obs.displays if d.HasField("goal"))}
    pool = [c for c in CARD_IDS if c not in seen]  # dealt anywhere by the re-deal below
    fill = iter(pool)

    world.my_goal = [0] * n
    world.my_goal[seat] = goal
    if obs.phase != "goal":
        _place_goals(world, seat, obs, goal, fill, chance)
    world.hands = [[] for _ in range(HANDS)]
    world.picked = [[] for _ in range(n)]
    world.hands[seat], world.picked[seat] = sorted(mine), picked
    for s, view in enumerate(obs.seats):
        if s != seat:
            world.picked[s] = [next(fill) for _ in range(view.picked)]
            world.hands[s] = sorted(next(fill) for _ in range(view.hand_size - view.picked))
    for h in range(n, HANDS):
        world.hands[h] = sorted(next(fill) for _ in range(HAND_SIZE - (obs.phase != "goal")))
    records = [(r.reveal, _ids(r.passed_cards), r.to, _ids(r.received_cards), r.source) for r in obs.passes]
    world.passes = own_passes(n, seat, records)
    if world.phase != "over":
        game._redeal(world, seat, chance)
    game.refresh(world)
    return world


def _place_goals(
    world: LlamaState, seat: int, obs: pb.Observation, goal: int, fill: Iterator[int], chance: Chance
) -> None:
    """Owners and goals of the 4 displays: the public owners kept, the groups rebuilt from
    ``owner_among`` (numbered in display order, as the engine numbers them), the unknown owners
    dealt within each group with the seat's own goal on one of its group's face-down displays,
    the hidden goals filled."""
    n = world.players
    dummies = iter(range(n, HANDS))
    owners = [next(dummies) if d.owner == DUMMY and not d.owner_among else d.owner for d in obs.displays]
    groups = [-1] * HANDS
    keys: list[tuple[int, ...]] = []
    for i, d in enumerate(obs.displays):
        if d.owner_among:
            key = tuple(d.owner_among)
            if key not in keys:
                keys.append(key)
            groups[i] = keys.index(key)
    known = [i for i, d in enumerate(obs.displays) if d.owner_among and d.mine]
    for group, key in enumerate(keys):
        # the group's hands (a dummy's -2 as the next dummy id), minus the owner the seat knows
        hands = [next(dummies) if h == DUMMY else h for h in key]
        displays = [i for i in range(HANDS) if groups[i] == group]
        for i in displays:
            if i in known:
                hands.remove(owners[i])
        for i, h in zip((i for i in displays if i not in known), hands, strict=True):
            owners[i] = h  # any order: dealt again just below
    down = [i for i, d in enumerate(obs.displays) if not d.revealed]
    world.owners = deal_owners(owners, groups, known, down, seat, chance)
    world.owner_group = groups
    world.goals = []
    for d, owner in zip(obs.displays, world.owners, strict=True):
        card = d.goal.id if d.HasField("goal") else goal if owner == seat else next(fill)
        world.goals.append(card)
        if owner < n:
            world.my_goal[owner] = card


def _ids(cards: Iterable[pb.Card]) -> tuple[int, ...]:
    return tuple(c.id for c in cards)
