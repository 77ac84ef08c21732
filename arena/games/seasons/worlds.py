"""Seasons determinization: a world consistent with what one seat knows.

Hidden from a seat: the other seats' hands, libraries, drawn-but-undecided cards (limbo), draft
packets and draft picks, and the draw pile (its order and, with the rest, its content). Their
multiset is known (the cards of the mode minus everything the seat sees: its own cards, every
tableau, the discard pile).

During the draft and the library phase the seat also knows the packets it held (its private
``hand`` events) and its picks: a packet it passed on travels left, one card fewer per seat, and
comes back after a round of the table. So the cards that left a packet between two of its
sightings were picked by the seats that held it meanwhile (one each), and the cards it passed
on since its last sighting are now picks of the next seats or the packet a seat holds now. A
world deals each such known set over exactly those places (uniformly), and deals the rest (the
picks made from packets before the seat first saw them, and the draw pile) uniformly from the
cards left (``Chance.deal``, constructive).

Not used (rulings): after the library phase, what the seat learnt in the draft (the cards of a
seat's picks may since have been played or mixed with drawn cards), cards it gave away
(Naria #12) and, in apprentice mode, that the other seats' cards came from whole prebuilt hands.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.games.v1 import seasons_pb2 as pb

if TYPE_CHECKING:
    from arena.games.seasons.framework import SeasonsState
    from arena.games.seasons.game import Seasons

Slot = tuple[str, int]  # ("pick", seat) or ("packet", seat)


def draft_knowledge(state: SeasonsState, viewer: int) -> tuple[list[tuple[list[int], list[Slot]]], list[Slot]]:
    """What the viewer knows of the draft: (known segments: cards and the slots they fill;
    the slots filled from the unseen cards). Slots name other seats' picks and packets."""
    n = state.players
    held: list[list[int]] = []  # the packets the viewer held, round by round
    picks: list[int] = []  # its picks, round by round
    for event in state.log.events:
        if event.kind == "roll":
            break
        detail = event.detail
        if event.to is None or event.seat != viewer or not isinstance(detail, pb.EventDetail):
            continue
        if event.kind == "hand":
            held.append(list(detail.cards))
        elif event.kind == "draft" and detail.card:
            picks.append(detail.card)
    done = len(state.drafted[viewer]) if state.phase == pb.PHASE_DRAFT else len(picks)
    segments: list[tuple[list[int], list[Slot]]] = []
    unknown: list[Slot] = []
    for origin in range(n):
        known: Counter[int] | None = None  # the packet's content after the viewer's last sighting
        since: list[Slot] = []  # picks from it since then (or since the start)
        for t in range(done + 1):
            holder = (origin + t) % n
            if t == done:  # the packet now (the draft phase), or nothing left (library phase)
                if state.phase != pb.PHASE_DRAFT:
                    break
                if holder != viewer:
                    since += [("packet", holder)] * len(state.packets[holder])
                    break
            if holder == viewer:
                seen = Counter(held[t])
                if known is None:
                    unknown += since
                else:
                    segments.append((sorted((known - seen).elements()), since))
                if t == done:
                    since = []
                    break
                known = seen - Counter([picks[t]])
                since = []
            else:
                since.append(("pick", holder))
        if since:
            if known is None:
                unknown += since
            else:
                segments.append((sorted(known.elements()), since))
    return segments, unknown


def sample_world(game: Seasons, state: SeasonsState, viewer: int, chance: Chance) -> SeasonsState:
    world = game.copy_for(state, viewer, chance)
    drafting = world.phase in (pb.PHASE_DRAFT, pb.PHASE_LIBRARY) and world.mode != "apprentice"
    library_phase = world.phase == pb.PHASE_LIBRARY
    # The hidden places, refilled in place with the same sizes.
    places: list[list[int]] = []
    for seat in range(world.players):
        if seat == viewer:
            continue
        places += [world.hands[seat], world.limbo[seat]]
        if not drafting:
            places.append(world.packets[seat])
            if library_phase:
                places.append(world.drafted[seat])  # it holds the libraries too
            else:
                places.extend(world.libraries[seat])
    places.append(world.draw_pile)
    hidden = Counter(c for place in places for c in place)
    if drafting:
        segments, unknown = draft_knowledge(world, viewer)
        fills: dict[Slot, list[int]] = {}
        for seat in range(world.players):
            if seat != viewer:
                hidden.update(world.drafted[seat])
                hidden.update(world.packets[seat])
                fills[("pick", seat)] = []
                fills[("packet", seat)] = []
        for cards, slots in segments:
            hidden.subtract(cards)
            for slot, card in zip(slots, chance.shuffled(cards, "world"), strict=True):
                fills[slot].append(card)
        assert all(k >= 0 for k in hidden.values()), "the draft history does not fit the hidden cards"
        rest = sorted(hidden.elements())
        dealt = chance.deal(rest, [len(unknown), *(len(p) for p in places)], "world")
        for slot, card in zip(unknown, dealt[0], strict=True):
            fills[slot].append(card)
        for place, new in zip(places, dealt[1:], strict=True):
            place[:] = new
        for seat in range(world.players):
            if seat != viewer:
                world.drafted[seat] = chance.shuffled(fills[("pick", seat)], "world")
                world.packets[seat] = sorted(fills[("packet", seat)])
    else:
        cards = [c for place in places for c in place]
        for place, new in zip(places, chance.deal(cards, [len(p) for p in places], "world"), strict=True):
            place[:] = new
    if library_phase:
        for seat in range(world.players):
            if seat != viewer:
                picked = world.drafted[seat]
                first, second = len(world.libraries[seat][0]), len(world.libraries[seat][1])
                world.libraries[seat] = [picked[:first], picked[first : first + second]]
    game.refresh(world)
    return world
