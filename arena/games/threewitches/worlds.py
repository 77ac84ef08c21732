"""Three Witches determinization: a world consistent with what one seat knows.

What a seat cannot see: the others' hands, the other Lesser's discard, face-down cards not yet
revealed, which of its two cards the Lead secretly took back, and the other seats' card picks.
What it knows (and every world keeps): its own cards, every revealed card, hand sizes, the
Elixir's holder when bidding ended (the Elixir stays with that seat's cards until revealed),
the cards it passed at the latest card pass (they are with its left neighbour), the suits a
Lesser showed void in, and that a face-down Eyes card follows suit unless its player is void.

The unknown cards are dealt to the hidden places exactly uniformly over the consistent deals:
the number of completions is counted (a small memoised count over remaining capacities), and
each card goes to a place with probability proportional to the completions it leaves.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.games.threewitches.cards import ELIXIR, Card, sort_cards
from arena.games.v1 import threewitches_pb2 as pb

if TYPE_CHECKING:
    from arena.games.threewitches.game import ThreeWitches, ThreeWitchesState

PLAYERS = 3


@dataclass
class Place:
    """A hidden place: a seat's hand, its discard, or its face-down card in this trick."""

    seat: int
    what: str  # "hand", "discard" or "down"
    size: int
    banned: frozenset[str] = frozenset()  # suits that cannot be here
    only: str = ""  # when set, only this suit can be here

    def allows(self, card: Card) -> bool:
        if self.only:
            return card.suit == self.only
        return card.suit not in self.banned


def _count(cards: Sequence[tuple[Card, int]], places: Sequence[Place]) -> Callable[[int, tuple[int, ...]], int]:
    """Completions from card i on, with these capacities left (memoised)."""
    memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def count(i: int, caps: tuple[int, ...]) -> int:
        if i == len(cards):
            return 1
        key = (i, caps)
        if key not in memo:
            card, owner = cards[i]
            total = 0
            for j, place in enumerate(places):
                if caps[j] and (owner < 0 or place.seat == owner) and place.allows(card):
                    total += count(i + 1, (*caps[:j], caps[j] - 1, *caps[j + 1 :]))
            memo[key] = total
        return memo[key]

    return count


def sample_world(game: ThreeWitches, state: ThreeWitchesState, viewer: int, chance: Chance) -> ThreeWitchesState:
    world = game.copy_for(state, viewer, chance)
    if state.phase != pb.OVER:
        _redeal(world, viewer, chance)
    world.pending = tuple(game.decisions(world))
    return world


def _redeal(world: ThreeWitchesState, viewer: int, chance: Chance) -> None:
    from arena.games.threewitches.game import seen

    known = seen(world, viewer)
    brewing = world.phase == pb.BREWING
    places: list[Place] = []
    unknown: list[Card] = []  # the cards in the hidden places, as they are now
    for seat in range(PLAYERS):
        if seat == viewer:
            continue
        banned = frozenset(world.voids[seat])
        places.append(Place(seat, "hand", len(world.hands[seat]), banned))
        unknown += world.hands[seat]
        discard = world.discards[seat]
        if discard is not None:
            places.append(Place(seat, "discard", 1))
            unknown.append(discard)
        for play in world.current if brewing else ():
            if play.seat == seat and play.face_down:
                places.append(Place(seat, "down", 1, banned))
                unknown.append(play.card)

    owner: dict[Card, int] = {}  # cards known to be among one seat's hidden places
    visible_now = {p.card for p in world.current if not p.face_down or p.seat == viewer} if brewing else set()
    for trick in world.tricks:
        if trick.returned is None or viewer == world.lead:
            continue
        later = {p.card for t in world.tricks[trick.number :] for p in t.plays} | visible_now
        if not trick.secret:
            if trick.returned not in later:
                owner[trick.returned] = world.lead  # returned in public: in the Lead's hand or face-down now
            continue
        a, b = trick.lead_cards
        if a in later or b in later:
            continue  # resolved: the replayed one was taken back, the other lies in the pile
        # One of the two is with the Lead: either, with equal chance (the Lead's places take any suit).
        back = a if chance.below(2, "return") == 0 else b
        if back != trick.returned:
            old = trick.returned
            unknown[unknown.index(old)] = back
            world.lead_pile[world.lead_pile.index(back)] = old
            trick.returned = back
        owner[back] = world.lead
    if ELIXIR not in known:
        owner[ELIXIR] = world.holder
    for card in world.passed[viewer]:
        if card not in known:
            owner[card] = (viewer + 1) % PLAYERS
    unknown = sort_cards(unknown)

    # A face-down Eyes card of a Lesser that did not pass: the lead suit, or any suit while void.
    eyes = [
        i for i, p in enumerate(places) if p.what == "down" and p.seat != world.lead and world.lead_suit not in p.banned
    ]
    cards = [(card, owner.get(card, -1)) for card in unknown]
    variants: list[list[Place]] = []
    weights: list[int] = []
    for case in itertools.product((True, False), repeat=len(eyes)):
        trial = [Place(p.seat, p.what, p.size, p.banned, p.only) for p in places]
        for index, follows in zip(eyes, case, strict=True):
            if follows:
                trial[index].only = world.lead_suit
            else:
                trial[index].banned |= {world.lead_suit}
                hand = next(p for p in trial if p.seat == trial[index].seat and p.what == "hand")
                hand.banned |= {world.lead_suit}
        variants.append(trial)
        weights.append(_count(cards, trial)(0, tuple(p.size for p in trial)))
    chosen = variants[chance.weighted(weights, "world")]
    count = _count(cards, chosen)
    caps = tuple(p.size for p in chosen)
    content: list[list[Card]] = [[] for _ in chosen]
    for i, (card, must) in enumerate(cards):
        options = []
        for j, place in enumerate(chosen):
            ok = caps[j] and (must < 0 or place.seat == must) and place.allows(card)
            options.append(count(i + 1, (*caps[:j], caps[j] - 1, *caps[j + 1 :])) if ok else 0)
        j = chance.weighted(options, "world")
        content[j].append(card)
        caps = (*caps[:j], caps[j] - 1, *caps[j + 1 :])

    for place, cards_here in zip(chosen, content, strict=True):
        if place.what == "hand":
            world.hands[place.seat] = sort_cards(cards_here)
        elif place.what == "discard":
            world.discards[place.seat] = cards_here[0]
        else:
            k = next(i for i, p in enumerate(world.current) if p.seat == place.seat and p.face_down)
            world.current[k] = world.current[k]._replace(card=cards_here[0])
    if world.phase == pb.PASSING:  # the others' picks so far are hidden: pick again from their new hands
        for seat in range(PLAYERS):
            if seat != viewer and world.picks[seat]:
                pool = sort_cards(c for c in world.hands[seat] if not c.is_elixir)
                world.picks[seat] = chance.shuffled(pool, "world")[: len(world.picks[seat])]
