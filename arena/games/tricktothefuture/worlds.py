"""Trick to the Future determinization: a world consistent with what one seat knows.

Hidden from a seat: the other hands and the undealt cards. What it knows (and every world
keeps): its own hand, every card played this round, hand sizes, the undealt count, the suits a
seat showed void in (it did not follow), and the first-lead rule's deductions: the card that
gave the first lead (the Past 0, or the lowest Past card held) was in the first leader's hand,
and every lower Past card of the round's deck was undealt (ruling 4; all Past cards when the
lead was drawn at random).

The unknown cards are dealt exactly uniformly over the consistent deals by the engine's
constrained deal (:meth:`arena.chance.Chance.deal`), the voids as the constraint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.games.tricktothefuture.cards import PAST, SUITS, card_from_pb, rank_of, setup_for, suit_of
from arena.games.v1 import tricktothefuture_pb2 as pb

if TYPE_CHECKING:
    from arena.games.tricktothefuture.game import TrickToTheFuture, TrickToTheFutureState


def sample_world(
    game: TrickToTheFuture, state: TrickToTheFutureState, viewer: int, chance: Chance
) -> TrickToTheFutureState:
    world = game.copy_for(state, viewer, chance)
    if not state.over:
        _redeal(world, viewer, chance)
    world.pending = tuple(game.decisions(world))
    return world


def world_from_observation(
    game: TrickToTheFuture, config: MatchConfig, seat: int, observation: Message, chance: Chance
) -> TrickToTheFutureState:
    from arena.games.tricktothefuture.game import Play, RoundScore, TrickRecord, TrickToTheFutureState

    obs = observation
    assert isinstance(obs, pb.Observation)
    n = config.players
    views = obs.seats

    def play(m: pb.Play) -> Play:
        return Play(m.seat, card_from_pb(m.card), m.value, m.rods)

    done = [TrickRecord(t.number, [play(p) for p in t.plays], t.winner, t.rods) for t in obs.tricks]
    world = TrickToTheFutureState(
        config=config,
        chance=chance.fork(),
        deal=obs.deal,
        table=setup_for(obs.deal, n),
        round=obs.round,
        hands=[[-1] * v.hand_size for v in views],
        undealt=[-1] * obs.undealt,
        fuel=[v.fuel for v in views],
        tricks=[v.tricks for v in views],
        collected=[v.collected for v in views],
        totals=[v.score for v in views],
        round_scores=[list(v.round_scores) for v in views],
        last_round=[
            RoundScore(r.seat, r.category, r.tricks, r.fuel, r.collected, r.empty, r.points) for r in obs.last_round
        ],
        leader=obs.leader,
        turn=obs.turn,
        current=[play(p) for p in obs.current],
        done=done,
        voids=[[suit in v.void_suits for suit in SUITS] for v in views],
        leader_card=card_from_pb(obs.leader_card) if obs.HasField("leader_card") else -1,
        first_leader=done[0].plays[0].seat if done else obs.current[0].seat if obs.current else obs.leader,
        over=obs.trick == len(obs.tricks),  # the trick in play is counted until the match ends
    )
    world.hands[seat] = [card_from_pb(c) for c in obs.hand]
    if not world.over:
        _redeal(world, seat, chance)
    game.refresh(world)
    return world


def _redeal(world: TrickToTheFutureState, viewer: int, chance: Chance) -> None:
    from arena.games.tricktothefuture.game import unseen

    n = world.players
    hidden = unseen(world, viewer)
    # Places: the other seats' hands, then the undealt pile (index n - 1 in `places`).
    seats = [s for s in range(n) if s != viewer]
    caps = [len(world.hands[s]) for s in seats] + [len(world.undealt)]
    banned = [world.voids[s] for s in seats] + [[False] * len(SUITS)]
    content: list[list[int]] = [[] for _ in caps]

    pinned: dict[int, int] = {}
    key = world.leader_card
    if key >= 0 and key in hidden and world.first_leader != viewer:
        pinned[key] = seats.index(world.first_leader)
    below = rank_of(key) if key >= 0 else 99
    for card in hidden:
        if suit_of(card) == PAST and rank_of(card) < below and card != key:
            pinned[card] = len(seats)  # was not dealt to anyone
    for card, place in pinned.items():
        content[place].append(card)
        caps[place] -= 1

    free = [c for c in hidden if c not in pinned]
    accepts = [lambda card, bans=bans: not bans[suit_of(card)] for bans in banned]
    for place, cards in enumerate(chance.deal(free, caps, "world", accepts)):
        content[place] += cards

    for j, s in enumerate(seats):
        world.hands[s] = sorted(content[j])
    world.undealt = sorted(content[-1])
