"""Frenzy Falls determinization: a world consistent with what one seat knows.

Hidden from a seat: every other seat's hand, draw pile and face-down cards (together they are
a known multiset: the deck minus the public discard pile and face-up cards), the order of every
draw pile (its own too) and which of the unseen Score cards form the Score deck. A world deals
each other seat's unseen cards uniformly over its face-down places, hand and draw pile, with
one constraint: a draw pile holds only cards of the deck it was last shuffled from
(``pile_from``; after a reshuffle, the public discard pile that became it). The viewer's own
draw pile is reshuffled, and the unseen Score cards are re-split into the deck and the box.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.config import MatchConfig
from arena.games.frenzyfalls.game import INACTIVE, KIND_OF, KINDS, PLAYS, SCORES, FallsState, Slot, Task
from arena.games.v1 import frenzyfalls_pb2 as pb

if TYPE_CHECKING:
    from arena.games.frenzyfalls.game import FrenzyFalls


def sample_world(game: FrenzyFalls, state: FallsState, viewer: int, chance: Chance) -> FallsState:
    world = game.copy_for(state, viewer, chance)
    _redeal(world, viewer, chance)
    game.refresh(world)
    return world


def world_from_observation(
    game: FrenzyFalls, config: MatchConfig, viewer: int, obs: pb.Observation, chance: Chance
) -> FallsState:
    """The public table and the seat's own hand and face-down cards are kept; the others'
    unseen cards (``seats[].unseen``) are dealt over their face-down places, hands and draw
    piles (a draw pile from its ``pile_source`` only), every draw pile is shuffled and the
    unseen Score cards are split into the Score deck and the box."""
    players = config.players
    world = FallsState(
        config=config,
        chance=chance.fork(),
        phase=obs.phase,
        round=obs.round,
        first=obs.first_player,
        final=obs.final_round,
        over=obs.phase == pb.OVER_PHASE,
        at=obs.resolving_pool - 1 if obs.phase == pb.REVEAL_PHASE else 0,
        movers=list(obs.movers),
        discarding=list(obs.discarding),
    )
    order = [(world.first + k) % players for _ in range(PLAYS[players]) for k in range(players)]
    left = sum(v.plays_left for v in obs.seats)
    world.queue = order[len(order) - left :] if left else []
    if obs.task:
        place = obs.resolving_card - 1 if obs.task != "move" else -1
        world.task = Task(obs.task, obs.task_seat, world.at, place)
    if obs.task == "move":
        world.spill_pool, world.spill_winner = world.at, obs.spill_winner
    free: dict[tuple[int, int], list[int]] = {}
    for index, card in enumerate(SCORES):
        free.setdefault(card, []).append(index)

    def score_card(card: pb.ScoreCard) -> int:
        return free[(card.water, card.points)].pop(0)

    world.score = [score_card(p.score) if p.active else INACTIVE for p in obs.pools]
    world.won = [[score_card(c) for c in v.won] for v in obs.seats]
    world.score_deck = [score_card(c) for c in obs.unseen_scores]  # split from the box below
    unseen = [[KIND_OF[name] for name in v.unseen] for v in obs.seats]  # dealt below
    world.pools = [
        [Slot(s.owner, KIND_OF[s.card.name] if s.known else unseen[s.owner].pop(), s.face_down) for s in p.cards]
        for p in obs.pools
    ]
    for seat, view in enumerate(obs.seats):
        world.discards.append([KIND_OF[name] for name in view.discards])
        world.pile_from.append([0] * len(KINDS))
        for name in view.pile_source:
            world.pile_from[seat][KIND_OF[name]] += 1
        if seat == viewer:
            world.hands.append([KIND_OF[c.name] for c in obs.hand])
        else:
            world.hands.append(unseen[seat][: view.hand_size])
            del unseen[seat][: view.hand_size]
        world.draws.append(unseen[seat])
    _redeal(world, viewer, chance, score_deck=obs.score_deck)
    game.refresh(world)
    return world


def _redeal(world: FallsState, viewer: int, chance: Chance, score_deck: int | None = None) -> None:
    """Re-deal what ``viewer`` cannot see: the others' cards, every draw pile's order and the
    split of the unseen Score cards into the deck (``score_deck`` cards, by default as many as
    now) and the box."""
    for seat in range(world.players):
        if seat == viewer:
            world.draws[seat] = chance.shuffled(world.draws[seat], "world")
        else:
            _redeal_seat(world, seat, chance)
    unseen = chance.shuffled(world.score_deck + world.score_box, "world")
    size = len(world.score_deck) if score_deck is None else score_deck
    world.score_deck, world.score_box = unseen[:size], sorted(unseen[size:])


def _redeal_seat(world: FallsState, seat: int, chance: Chance) -> None:
    places = [(p, i) for p, pool in enumerate(world.pools) for i, s in enumerate(pool) if s.down and s.owner == seat]
    kinds = [world.pools[p][i].kind for p, i in places] + world.hands[seat] + world.draws[seat]
    # Cards as (kind, eligible for the draw pile): per kind, as many eligible ones as the pile's
    # source deck held (the physical copies of a kind are interchangeable, so which are is moot).
    left = list(world.pile_from[seat])
    cards: list[tuple[int, int, bool]] = []
    for n, kind in enumerate(sorted(kinds)):
        eligible = left[kind] > 0
        left[kind] -= eligible
        cards.append((kind, n, eligible))
    sizes = [len(places), len(world.hands[seat]), len(world.draws[seat])]
    down, hand, pile = chance.deal(cards, sizes, "world", [lambda c: True, lambda c: True, lambda c: c[2]])
    for (p, i), card in zip(places, chance.shuffled(down, "world"), strict=True):
        world.pools[p][i] = world.pools[p][i]._replace(kind=card[0])
    world.hands[seat] = sorted(c[0] for c in hand)
    world.draws[seat] = [c[0] for c in chance.shuffled(pile, "world")]
