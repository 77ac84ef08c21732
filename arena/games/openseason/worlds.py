"""Open Season determinization: a world consistent with what one seat knows.

Hidden from a seat (ruling 3 of :mod:`arena.games.openseason.game`): the order of the deck
(apart from the cards it put back on top itself, which stay where it knows they are), the
cards another seat is looking at (a peek, draw4 or share in progress, with the cards a share
has set aside for its recipients), and, during the Expert
set-up, the Bonus faces the others chose so far. Everything else (stocks, accolades, walls,
the inn, the hand, tokens) is public or deducible from the public log and is kept.

The unseen cards (the deck's unknown places plus another seat's peeked cards) are dealt
uniformly into those places with ``Chance.deal``; another seat's deck knowledge is re-pointed
at the cards the world puts there. Partial Bonus-face choices are re-drawn uniformly over the
legal ones (distinct tiles, one face each, Horn-only faces excluded on the Shield).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.chance import Chance

if TYPE_CHECKING:
    from arena.games.openseason.game import OpenSeason, SeasonState


def sample_world(game: OpenSeason, state: SeasonState, viewer: int, chance: Chance) -> SeasonState:
    from arena.games.openseason.game import EMPTY, HORN_ONLY, TILES

    world = game.copy_for(state, viewer, chance)
    mine = world.known[viewer]
    places = [i for i in range(len(world.deck)) if i not in mine]
    other = viewer != world.active
    gifts = [s for s, c in enumerate(world.gifts) if c != EMPTY] if other else []
    peek = list(world.peek) if other else []
    cards = [world.deck[i] for i in places] + peek + [world.gifts[s] for s in gifts]
    sizes = [len(places), len(peek), len(gifts)]
    deck_part, peek_part, gift_part = chance.deal(sorted(cards), sizes, "world")
    deck_part = chance.shuffled(deck_part, "world")
    deck = list(world.deck)
    for i, card in zip(places, deck_part, strict=True):
        deck[i] = card
    world.deck = deck
    if other:
        world.peek = chance.shuffled(peek_part, "world")
        world.gifts = list(world.gifts)
        for s, card in zip(gifts, chance.shuffled(gift_part, "world"), strict=True):
            world.gifts[s] = card
    for seat, known in enumerate(world.known):
        if seat != viewer:
            world.known[seat] = {i: deck[i] for i in known}
    if world.expert and not world.revealed:
        for seat in range(world.players):
            if seat == viewer:
                continue
            k = sum(1 for f in world.faces[seat] if f)
            tiles = chance.shuffled(range(len(TILES)), "world")[:k]
            faces = []
            for t in tiles:
                options = [f for f in TILES[t] if not (world.side == "shield" and f in HORN_ONLY)]
                faces.append(chance.pick(options, "world"))
            world.faces[seat] = faces + [""] * (4 - k)
    game.refresh(world)
    return world
