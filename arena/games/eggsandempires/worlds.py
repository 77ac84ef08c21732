"""Eggs and Empires determinization: a world consistent with what one seat knows.

Hidden from a seat: the others' hands and draw piles (their contents together are known: a
deck minus what was revealed), the Egg deck's order, and face-down Eggs it has not seen (Scout
Eggs, collected or discarded ones). A world deals each other seat's unplayed Adventurers
uniformly into hand and draw pile, and permutes the unseen Egg cards uniformly among the unseen
places (the deck and the hidden Eggs); who knows each hidden place stays as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.chance import Chance

if TYPE_CHECKING:
    from arena.games.eggsandempires.game import EggCard, EggsAndEmpires, EggsState


def sample_world(game: EggsAndEmpires, state: EggsState, viewer: int, chance: Chance) -> EggsState:
    world = game.copy_for(state, viewer, chance)
    for seat in range(world.players):
        if seat == viewer:
            continue
        cards = chance.shuffled(world.hands[seat] + world.draws[seat], "world")
        size = len(world.hands[seat])
        world.hands[seat], world.draws[seat] = sorted(cards[:size]), cards[size:]
    _redeal_eggs(world, viewer, chance)
    world.pending = tuple(game.decisions(world))
    return world


def _redeal_eggs(world: EggsState, viewer: int, chance: Chance) -> None:
    # The places an unseen Egg can be in, as (list, index); the deck's places first.
    places: list[tuple[list[EggCard], int]] = [(world.deck, i) for i in range(len(world.deck))]
    for pile in (world.face_down, *world.collections, world.egg_discard):
        places += [(pile, i) for i, egg in enumerate(pile) if not world.knows(viewer, egg)]
    old = [pile[i] for pile, i in places]
    new = chance.shuffled(old, "world")
    knowledge = {egg.id: world.private.get(egg.id) for egg in old}
    for (pile, i), before, after in zip(places, old, new, strict=True):
        pile[i] = after
        seats = knowledge[before.id]
        if seats is None:
            world.private.pop(after.id, None)
        else:
            world.private[after.id] = set(seats)
    # An entry's collected Egg follows the card now in the seat's collection.
    swap = {before.id: after for before, after in zip(old, new, strict=True)}
    for entry in world.order:
        if entry.collected is not None and entry.collected.id in swap:
            entry.collected = swap[entry.collected.id]
