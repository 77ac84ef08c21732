"""Seasons determinization: a world consistent with what one seat knows.

Hidden from a seat: the other seats' hands, libraries, drawn-but-undecided cards (limbo), draft
packets and draft picks, and the draw pile (its order and, with the rest, its content). Their
multiset is known (the cards of the mode minus everything the seat sees: its own cards, every
tableau, the discard pile). A world deals that multiset again uniformly over the same places
with the same sizes (``Chance.deal``, constructive). The draw pile is shuffled with it.

Not used (ruling in rules.md): what the seat knows of the packets it passed on in the draft and
of cards it gave away (Naria #12), and, in apprentice mode, that the other seats' cards came from
whole prebuilt hands: those cards are re-dealt from the unseen multiset like the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.games.v1 import seasons_pb2 as pb

if TYPE_CHECKING:
    from arena.games.seasons.framework import SeasonsState
    from arena.games.seasons.game import Seasons


def sample_world(game: Seasons, state: SeasonsState, viewer: int, chance: Chance) -> SeasonsState:
    world = game.copy_for(state, viewer, chance)
    # The hidden places, as (list owner, attribute path); each is refilled in place, same size.
    places: list[list[int]] = []
    library_phase = world.phase == pb.PHASE_LIBRARY
    for seat in range(world.players):
        if seat == viewer:
            continue
        places.append(world.hands[seat])
        places.append(world.limbo[seat])
        places.append(world.packets[seat])
        if world.phase == pb.PHASE_DRAFT or library_phase:
            places.append(world.drafted[seat])  # in the library phase it holds the libraries too
        else:
            places.extend(world.libraries[seat])
    places.append(world.draw_pile)
    cards = [c for place in places for c in place]
    hands = chance.deal(cards, [len(p) for p in places], "world")
    for place, new in zip(places, hands, strict=True):
        place[:] = new
    if library_phase:
        for seat in range(world.players):
            if seat != viewer:
                picked = world.drafted[seat]
                first, second = len(world.libraries[seat][0]), len(world.libraries[seat][1])
                world.libraries[seat] = [picked[:first], picked[first : first + second]]
    game.refresh(world)
    return world
