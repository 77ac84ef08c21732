"""Llama Llama: a world built from one seat's observation alone (``world_from_observation``).

Kept: the public round (displays, revealed goals, the table, totals, hand sizes, picks made),
the seat's own hand, picks, goal and pass records (by card id). Drawn by ``_redeal``, as in
``sample_world``: the other hands and the dummies, the face-down goals of others, and in round 1
who gave which goal (the seat's own unrevealed goal lies on one of the face-down displays),
each card the seat passed kept on its route (ruling 9). Nothing the seat knows is missing.
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
        owners_public=obs.round > 1,
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
    """Owners and goals of the 4 displays: the public ones kept, the unknown owners (round 1)
    dealt at random with the seat's own goal on a face-down display, the hidden goals filled."""
    n = world.players
    dummies = iter(range(n, HANDS))
    owners = [next(dummies) if d.owner == DUMMY else d.owner for d in obs.displays]
    unknown = [i for i, d in enumerate(obs.displays) if d.owner == -1]
    if unknown:
        down = [i for i, d in enumerate(obs.displays) if not d.revealed]
        owners = deal_owners(owners, unknown, down, seat, chance)
    world.owners = owners
    world.goals = []
    for d, owner in zip(obs.displays, owners, strict=True):
        card = d.goal.id if d.HasField("goal") else goal if owner == seat else next(fill)
        world.goals.append(card)
        if owner < n:
            world.my_goal[owner] = card


def _ids(cards: Iterable[pb.Card]) -> tuple[int, ...]:
    return tuple(c.id for c in cards)
