"""Three Witches determinization: a world consistent with what one seat knows.

What a seat cannot see: the others' hands, the other Lesser's discard, face-down cards not yet
revealed, which of its two cards the Lead secretly took back, and the other seats' card picks.
What it knows (and every world keeps): its own cards, every revealed card, hand sizes, the
Elixir's holder when bidding ended (the Elixir stays with that seat's cards until revealed),
the cards it passed at the latest card pass (they are with its left neighbour), the suits a
Lesser showed void in, and that a face-down Eyes card follows suit unless its player is void.
The cards it passed at an earlier card pass are with either of the two others (its left
neighbour may have passed them on, unseen, at the next pass: ruling 14), so they are dealt
freely; the pass between the two others, which the seat never saw, is left empty in a world.

The unknown cards are dealt to the hidden places exactly uniformly over the consistent deals:
the number of completions is counted (a small memoised count over remaining capacities), and
each card goes to a place with probability proportional to the completions it leaves.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.games.threewitches.cards import BY_ID, ELIXIR, MAX_CARD_PASSES, Card, sort_cards
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


def world_from_observation(
    game: ThreeWitches, config: MatchConfig, seat: int, observation: Message, chance: Chance
) -> ThreeWitchesState:
    """Build the public state and the seat's own cards from the observation, fill the hidden
    places with the cards they hold as a multiset (the unseen cards, and the Lead's returned
    cards hidden in its hand), then re-deal them exactly as :func:`sample_world` does."""
    from arena.games.threewitches.game import Play, ThreeWitchesState, TrickRecord

    obs = observation
    assert isinstance(obs, pb.Observation)

    def card(message: pb.Card) -> Card:
        return BY_ID["elixir" if message.suit == ELIXIR.suit else f"{message.suit}-{message.rank}"]

    phase = obs.phase
    brewing = phase == pb.BREWING
    views = obs.seats
    holder = obs.elixir_holder
    own_picks = [card(c) for c in obs.picks]
    world = ThreeWitchesState(
        config=config,
        chance=chance.fork(),
        fate=[v.fate for v in views],
        round=obs.round,
        phase=phase,
        holder=holder,
        card_passes=obs.card_passes,
        bid_queue=_bid_queue(obs) if phase == pb.BIDDING else [],
        high_bid=obs.high_bid,
        high_bidder=obs.high_bidder,
        bids=[(b.seat, b.bid) for b in obs.bids],
        picks=[[ELIXIR] * min(len(own_picks), 1 if s == holder else 2) for s in range(PLAYERS)]
        if phase == pb.PASSING
        else [],
        passes=[_known_pass(seat, [card(c) for c in k.gave], [card(c) for c in k.received]) for k in obs.passes],
        lead=obs.lead,
        bid=obs.bid,
        discards=[ELIXIR if v.discarded else None for v in views],
        trick=obs.trick,
        current=[Play(p.seat, card(p.card) if p.HasField("card") else ELIXIR, p.face_down) for p in obs.current],
        waiting=obs.waiting,
        eyes=obs.eyes,
        voids=[list(v.void_suits) for v in views],
        over=phase == pb.OVER,
    )
    world.hands = [[ELIXIR] * v.hand_size for v in views]
    world.hands[seat] = [card(c) for c in obs.hand]
    if phase == pb.PASSING:
        world.picks[seat] = own_picks
    if obs.HasField("discard"):
        world.discards[seat] = card(obs.discard)

    # The finished tricks, their piles, and the returned cards hidden in the Lead's hand.
    hidden = [card(c) for c in obs.unseen]
    for k, t in enumerate(obs.tricks):
        plays = [Play(p.seat, card(p.card), p.face_down) for p in t.plays]
        record = TrickRecord(t.number, plays, t.lead_value, t.lesser_value, t.lead_won, secret=t.return_secret)
        world.tricks.append(record)
        record.decider = world.lead if t.lead_won else (world.lead + 1) % PLAYERS
        if phase == pb.RETURNING and k == len(obs.tricks) - 1:
            continue  # being returned now
        later = {card(p.card) for u in obs.tricks[k + 1 :] for p in u.plays} | {
            card(p.card) for p in obs.current if p.HasField("card")
        }
        if t.HasField("returned"):
            record.returned = card(t.returned)
        else:  # a secret return: the one replayed since, else either (re-drawn below)
            a, b = record.lead_cards
            record.returned = b if b in later and a not in later else a
        if seat != world.lead and record.returned not in later:
            hidden.append(record.returned)  # in the Lead's hand (or face down in this trick)
        rest = [p.card for p in plays]
        rest.remove(record.returned)
        (world.lead_pile if t.lead_won else world.lesser_pile).extend(rest)

    # Any placement of the hidden multiset: _redeal deals it again under the constraints.
    fill = iter(sort_cards(hidden))
    for s in range(PLAYERS):
        if s == seat:
            continue
        world.hands[s] = [next(fill) for _ in world.hands[s]]
        if world.discards[s] is not None:
            world.discards[s] = next(fill)
        for i, p in enumerate(world.current if brewing else ()):
            if p.seat == s and p.face_down:
                world.current[i] = p._replace(card=next(fill))
    if phase != pb.OVER:
        _redeal(world, seat, chance)
    game.refresh(world)
    return world


def _known_pass(seat: int, gave: list[Card], received: list[Card]) -> list[list[Card]]:
    """A card pass as ``seat`` saw it: what it gave and what its right neighbour gave it; the
    pass between the two others is unknown (empty)."""
    cards: list[list[Card]] = [[] for _ in range(PLAYERS)]
    cards[seat], cards[(seat - 1) % PLAYERS] = gave, received
    return cards


def _bid_queue(obs: pb.Observation) -> list[int]:
    """Who bids next: this bidding round replayed from its bids (``ThreeWitches._bid``)."""
    holder = obs.elixir_holder
    queue = [(holder + 1) % PLAYERS, (holder + 2) % PLAYERS, holder]
    for b in obs.bids:
        queue.pop(0)
        if b.bid == 3:
            forced = obs.card_passes == MAX_CARD_PASSES and b.seat == holder and not queue
            after = [(b.seat + 1) % PLAYERS, (b.seat + 2) % PLAYERS]
            queue = after if forced else [*after, b.seat]
    return queue


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
    if world.passes:  # the latest pass only: earlier cards may have moved on unseen (ruling 14)
        for card in world.passes[-1][viewer]:
            if card not in known:
                owner[card] = (viewer + 1) % PLAYERS
        left = (viewer + 1) % PLAYERS
        for gifts in world.passes:  # the pass between the two others is not known to the viewer
            gifts[left] = []
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
