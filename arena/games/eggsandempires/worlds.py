"""Eggs and Empires determinization: a world consistent with what one seat knows.

Hidden from a seat: the others' hands and draw piles (their contents together are known: a
deck minus what was revealed), the order of every draw pile (its own too), the Egg deck's
order, and face-down Eggs it has not seen (Scout Eggs, collected or discarded ones). A world
deals each other seat's unplayed Adventurers uniformly into hand and draw pile, reshuffles the
seat's own draw pile, and permutes the unseen Egg cards uniformly among the unseen places (the
deck and the hidden Eggs); who knows each hidden place stays as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.config import MatchConfig
from arena.games.eggsandempires.game import (
    EggCard,
    EggsState,
    Entry,
    egg_deck,
    has_tie,
    turn_end_tasks,
)
from arena.games.v1 import eggsandempires_pb2 as pb

if TYPE_CHECKING:
    from arena.games.eggsandempires.game import EggsAndEmpires

GONE = EggCard(-1, 0)
"""A world's stand-in for an entry's Egg that has left its collection (given or discarded):
which card it was no longer matters, only that it is not in the collection."""


def sample_world(game: EggsAndEmpires, state: EggsState, viewer: int, chance: Chance) -> EggsState:
    world = game.copy_for(state, viewer, chance)
    for seat in range(world.players):
        if seat == viewer:  # its own draw pile's order is hidden from it too
            world.draws[seat] = _deal_adventurers(world.draws[seat], 0, chance)[1]
        else:
            world.hands[seat], world.draws[seat] = _deal_adventurers(
                world.hands[seat] + world.draws[seat], len(world.hands[seat]), chance
            )
    _redeal_eggs(world, viewer, chance)
    world.pending = tuple(game.decisions(world))
    return world


def world_from_observation(
    game: EggsAndEmpires, config: MatchConfig, viewer: int, obs: pb.Observation, chance: Chance
) -> EggsState:
    """The public table, the seat's hand and the Eggs it knows are kept; the others' hands (from
    their unplayed Adventurers), every draw pile's order (the seat's own too) and the unseen
    Eggs (``unseen_eggs``: deck and hidden places) are drawn. Who has seen each face-down Egg
    (``known_by``, public) is kept, so the others' views of the world are theirs in the match."""
    views = obs.seats
    world = EggsState(
        config=config,
        chance=chance.fork(),
        round=obs.round,
        turn=obs.turn,
        phase=obs.phase,
        marker=obs.marker,
        played=[list(v.played) for v in views],
        mulliganed=[v.mulliganed for v in views],
        merchants=[v.merchants for v in views],
        blacksmiths=[v.blacksmiths for v in views],
        round_scores=[list(v.round_scores) for v in views],
        tokens=[v.tokens for v in views],
        over=obs.phase == pb.OVER_PHASE,
    )
    for seat, view in enumerate(views):
        if seat == viewer:
            rest = list(view.unplayed)
            for rank in obs.hand:
                rest.remove(rank)
            world.hands.append(list(obs.hand))
            world.draws.append(_deal_adventurers(rest, 0, chance)[1])
        else:
            hand, draws = _deal_adventurers(list(view.unplayed), view.hand_size, chance)
            world.hands.append(hand)
            world.draws.append(draws)
    _place_eggs(world, obs)
    world.order = [
        Entry(e.seat, e.rank, e.cancelled, _entry_egg(world, e), e.done)
        for e in obs.order  # the entries' Eggs are placed before the unseen ones are dealt
    ]
    world.cursor = next((i for i, e in enumerate(world.order) if not e.done), len(world.order))
    world.tie = has_tie(world.order)
    world.tasks = turn_end_tasks(
        [e for e, seen in zip(world.order, obs.order, strict=True) if seen.ability_due], world.marker, world.players
    )
    _redeal_eggs(world, viewer, chance)
    game.refresh(world)
    return world


def _deal_adventurers(cards: list[int], size: int, chance: Chance) -> tuple[list[int], list[int]]:
    """A hand of ``size`` (sorted) and a draw pile (top first) dealt from ``cards``."""
    cards = chance.shuffled(cards, "world")
    return sorted(cards[:size]), cards[size:]


def _place_eggs(world: EggsState, obs: pb.Observation) -> None:
    """Give every Egg place a card: the seen ones their value, the unseen ones (deck, hidden
    places) the unseen cards in canonical order (``_redeal_eggs`` then permutes those). A
    face-down Egg is known to the seats its ``known_by`` names, as in the real state."""
    free: dict[int, list[EggCard]] = {}
    for card in egg_deck(world.players):
        free.setdefault(card.value, []).append(card)
    unseen = [free[v].pop() for v in obs.unseen_eggs]
    hidden: list[tuple[list[EggCard], int, set[int]]] = []  # (pile, index, who knows) of unseen places

    def put(pile: list[EggCard], egg: pb.Egg) -> None:
        if not egg.known:
            hidden.append((pile, len(pile), set(egg.known_by)))
            pile.append(GONE)  # a placeholder, filled below
            return
        card = free[egg.value].pop()
        pile.append(card)
        if egg.face_down:
            world.private[card.id] = set(egg.known_by)

    for egg in obs.available:
        put(world.face_down if egg.face_down else world.face_up, egg)
    world.collections = [[] for _ in obs.seats]
    for seat, view in enumerate(obs.seats):
        for egg in view.eggs:
            put(world.collections[seat], egg)
    face_down: list[EggCard] = []
    for egg in obs.face_down_discards:
        put(face_down, egg)
    world.deck = unseen[: obs.egg_deck]
    for (pile, index, knowers), card in zip(hidden, unseen[obs.egg_deck :], strict=True):
        pile[index] = card
        world.private[card.id] = knowers
    # What is neither seen nor unseen was discarded face up; the face-down discards follow.
    world.egg_discard = [card for cards in free.values() for card in cards] + face_down


def _entry_egg(world: EggsState, entry: pb.Entry) -> EggCard | None:
    if not entry.collected:
        return None
    return world.collections[entry.seat][entry.egg_at - 1] if entry.egg_at else GONE


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
