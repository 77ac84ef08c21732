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

if TYPE_CHECKING:
    from arena.games.frenzyfalls.game import FallsState, FrenzyFalls


def sample_world(game: FrenzyFalls, state: FallsState, viewer: int, chance: Chance) -> FallsState:
    world = game.copy_for(state, viewer, chance)
    for seat in range(world.players):
        if seat == viewer:
            world.draws[seat] = chance.shuffled(world.draws[seat], "world")
        else:
            _redeal_seat(world, seat, chance)
    unseen = chance.shuffled(world.score_deck + world.score_box, "world")
    size = len(world.score_deck)
    world.score_deck, world.score_box = unseen[:size], sorted(unseen[size:])
    game.refresh(world)
    return world


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
