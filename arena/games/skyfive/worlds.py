"""Sky Five determinizations: the unseen cards re-dealt (``sample_world``) and a world built
from an observation alone (``world_from_observation``).

From an observation the seat sees every face-up card, the discard pile, the gift and each
scoring pile's cards (public by history, ruling 10). The unseen cards (draw pile + removed)
are the full deck minus all of those, exactly; a world deals them as one uniform shuffle into
the draw pile and the removed cards (:func:`deal_unseen`).
"""

from __future__ import annotations

from collections import Counter

from arena.chance import Chance
from arena.games.v1 import skyfive_pb2 as pb

from .game import Card, SkyFiveState, clockwise_from, count_by, full_deck

DECK = Counter(full_deck())  # the 106 cards by kind, in the full deck's fixed order


def deal_unseen(world: SkyFiveState, unseen: list[Card], chance: Chance) -> None:
    """The draw pile's order and the removed cards, drawn as one shuffle of the unseen cards
    (the world's pile and removed sizes kept)."""
    order = chance.shuffled(unseen, "world")
    world.deck, world.removed = order[: len(world.deck)], order[len(world.deck) :]


def unseen_cards(world: SkyFiveState) -> list[Card]:
    """The full deck minus every card the world shows (face up, discarded, banked, the gift),
    in the full deck's fixed order. ValueError if the shown cards are not part of one deck."""
    left = DECK.copy()
    left.subtract(card for seat in world.face_up for card in seat)
    left.subtract(card for pile in world.banked for card in pile)
    left.subtract(world.discard)
    if world.gift is not None:
        left[world.gift] -= 1
    if min(left.values()) < 0:
        raise ValueError("the observation shows more copies of a card than the deck holds")
    return list(left.elements())


def world_from_observation(world: SkyFiveState, obs: pb.Observation, chance: Chance) -> None:
    """Fill ``world`` (its public fields, scoring piles included, already set from ``obs``)
    with the unseen cards."""
    unseen = unseen_cards(world)
    if len(unseen) != len(world.deck) + len(world.removed) or count_by(unseen) != (
        world.unseen_colours,
        world.unseen_values,
    ):
        raise ValueError("the observation's unseen counts do not match the cards it shows")
    deal_unseen(world, unseen, chance)
    if world.final_round and world.phase == pb.PICKUP:
        # The final turns still to come: clockwise after the buster (the drawer's comes last).
        world.final_queue = [s for s in clockwise_from(world.turn_seat, world.players) if not world.final_done[s]]
