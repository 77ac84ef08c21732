"""Sky Five determinizations: the unseen cards re-dealt (``sample_world``) and a world built
from an observation alone (``world_from_observation``).

From an observation the seat sees every face-up card, the discard pile and the gift, the
unseen cards (draw pile + removed) counted by colour and by value apart, and each scoring pile
by its size and its points only. The cards not on view are the full deck minus those; a world
splits them into the unseen cards (both counts kept) and the scoring piles (sizes and points
kept), as described in :func:`split_hidden`.
"""

from __future__ import annotations

from functools import lru_cache

from arena.chance import Chance
from arena.games.v1 import skyfive_pb2 as pb

from .game import STAR, Card, SkyFiveState, clockwise_from, full_deck

VALUES = range(7)  # card values 0-6 (index of ``unseen_by_value``)
KINDS = range(1, STAR + 1)  # colour indices 1-5 and Shooting Stars (index of ``unseen_by_colour``)
Table = list[list[int]]
"""Cards by colour index and value: ``table[colour][value]`` (row 0 unused)."""


def deal_unseen(world: SkyFiveState, unseen: list[Card], chance: Chance) -> None:
    """The draw pile's order and the removed cards, drawn as one shuffle of the unseen cards
    (the world's pile and removed sizes kept)."""
    order = chance.shuffled(unseen, "world")
    world.deck, world.removed = order[: len(world.deck)], order[len(world.deck) :]


def table_of(cards: list[Card]) -> Table:
    table = [[0] * len(VALUES) for _ in range(STAR + 1)]
    for card in cards:
        table[card.colour][card.value] += 1
    return table


def choose_unseen(pool: Table, colours: list[int], values: list[int], chance: Chance) -> Table:
    """Which of the ``pool`` cards are the unseen ones: a table with these colour and value
    counts within the pool. Each colour's cards are first drawn uniformly by number, then the
    value counts are repaired by swaps within a colour along shortest chains of values (a chain
    exists whenever some table fits: the difference to it decomposes into such chains), taken
    in random order, then mixed (:func:`_mix`). Constructive; close to, but not exactly,
    uniform over the fitting tables weighted by the ways to pick their cards (counting them
    exactly takes seconds mid-game)."""
    unseen = [[0] * len(VALUES) for _ in range(STAR + 1)]
    for colour in KINDS:
        cards = [v for v in VALUES for _ in range(pool[colour][v])]
        for value in chance.shuffled(cards, "world")[: colours[colour]]:
            unseen[colour][value] += 1
    excess = [sum(unseen[c][v] for c in KINDS) - values[v] for v in VALUES]
    while any(excess):
        # Breadth-first from every value with too many cards: value a -> b when some colour has
        # an unseen card of value a and a card of value b not unseen (swap them).
        back: dict[int, tuple[int, int]] = {}
        frontier = [v for v in chance.shuffled(VALUES, "world") if excess[v] > 0]
        kinds = chance.shuffled(KINDS, "world")
        seen = set(frontier)
        end = -1
        while frontier and end < 0:
            step = []
            for a in frontier:
                for colour in kinds:
                    if not unseen[colour][a]:
                        continue
                    for b in VALUES:
                        if b not in seen and pool[colour][b] > unseen[colour][b]:
                            seen.add(b)
                            back[b] = (a, colour)
                            step.append(b)
                            if excess[b] < 0 and end < 0:
                                end = b
            frontier = step
        if end < 0:
            raise ValueError("no cards fit the unseen counts")
        b = end
        excess[b] += 1
        while b in back:
            a, colour = back[b]
            unseen[colour][a] -= 1
            unseen[colour][b] += 1
            b = a
        excess[b] -= 1
    _mix(pool, unseen, chance)
    return unseen


MIX_STEPS = 200
"""Margin-keeping swaps after the repair, each accepted with the Metropolis ratio of the card
ways. Measured (2 players, 30 steps in; exact law by counting the tables, 13 s): the total
variation distance of one colour's row to the exact law falls from 0.07-0.12 after the repair
alone to 0.03-0.04 with 200 swaps, the sampling noise of the 4,000 draws compared."""


def _mix(pool: Table, unseen: Table, chance: Chance) -> None:
    """Move the table toward the uniform law over the fitting tables (weighted by the ways to
    pick the cards): a random 2x2 swap (one card of value a -> b in one colour, b -> a in
    another) keeps both counts; it is taken with probability min(1, weight ratio)."""
    kinds, values = len(KINDS), len(VALUES)
    for _ in range(MIX_STEPS):
        i, j = chance.below(kinds, "world"), chance.below(kinds - 1, "world")
        a, b = chance.below(values, "world"), chance.below(values - 1, "world")
        c1, c2 = KINDS[i], KINDS[j + (j >= i)]  # two different colours, two different values
        b += b >= a
        # c1: one unseen card a -> b; c2: one unseen card b -> a.
        u1a, u1b, u2a, u2b = unseen[c1][a], unseen[c1][b], unseen[c2][a], unseen[c2][b]
        if not u1a or u1b == pool[c1][b] or not u2b or u2a == pool[c2][a]:
            continue
        # Ratio of C(m, u) products: u/(m-u+1) for a cell losing one, (m-u)/(u+1) for a gain.
        num = u1a * (pool[c1][b] - u1b) * u2b * (pool[c2][a] - u2a)
        den = (pool[c1][a] - u1a + 1) * (u1b + 1) * (pool[c2][b] - u2b + 1) * (u2a + 1)
        if num >= den or chance.below(den, "world") < num:
            unseen[c1][a], unseen[c1][b], unseen[c2][a], unseen[c2][b] = u1a - 1, u1b + 1, u2a + 1, u2b - 1


@lru_cache(maxsize=4096)
def split_piles(values: tuple[int, ...], piles: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], ...]:
    """Cards by value (``values[v]`` cards of value v) split into scoring piles of the given
    (size, points): per pile, its cards by value. Any split that fits is as good as another
    (a pile's cards score nothing but their points), so the first one found is kept."""

    def split(pile: int, left: tuple[int, ...]) -> tuple[tuple[int, ...], ...] | None:
        if pile == len(piles) - 1:
            size, points = piles[pile]
            ok = sum(left) == size and sum(v * n for v, n in zip(VALUES, left, strict=True)) == points
            return (left,) if ok else None
        size, points = piles[pile]
        for taken in _fits(left, size, points):
            rest = split(pile + 1, tuple(a - b for a, b in zip(left, taken, strict=True)))
            if rest is not None:
                return (taken, *rest)
        return None

    result = split(0, values) if piles else ()
    if result is None:
        raise ValueError("no split of the banked cards fits the scoring piles")
    return result


def _fits(left: tuple[int, ...], size: int, points: int, v: int = 0):
    """Every way (by value) to take ``size`` cards worth ``points`` from ``left``, most cards
    of the low values first."""
    high = len(VALUES) - 1
    if v == high:
        if size <= left[v] and size * v == points:
            yield (size,)
        return
    for n in range(min(left[v], size), -1, -1):
        rest, sum_rest = size - n, points - n * v
        if sum_rest < 0 or not (v + 1) * rest <= sum_rest <= high * rest:
            continue
        for tail in _fits(left, rest, sum_rest, v + 1):
            yield (n, *tail)


def world_from_observation(world: SkyFiveState, obs: pb.Observation, chance: Chance) -> None:
    """Fill ``world`` (its public fields already set from ``obs``) with the hidden cards."""
    shown = [card for seat in world.face_up for card in seat] + world.discard
    if world.gift is not None:
        shown.append(world.gift)
    pool = table_of(full_deck())
    for card in shown:
        pool[card.colour][card.value] -= 1
    unseen = choose_unseen(pool, world.unseen_colours, world.unseen_values, chance)
    deal_unseen(world, [Card(c, v) for c in KINDS for v in VALUES for _ in range(unseen[c][v])], chance)
    # The rest of the pool is in the scoring piles: by value, split to fit their sizes and points.
    banked = [[pool[c][v] - unseen[c][v] for v in VALUES] for c in range(STAR + 1)]
    by_value = tuple(sum(banked[c][v] for c in KINDS) for v in VALUES)
    piles = tuple((view.banked_count, view.score) for view in obs.table)
    split = split_piles(by_value, piles)
    world.banked = [[] for _ in piles]
    for v in VALUES:
        cards = chance.shuffled([Card(c, v) for c in KINDS for _ in range(banked[c][v])], "world")
        for seat, taken in enumerate(split):
            world.banked[seat] += cards[: taken[v]]
            del cards[: taken[v]]
    if world.final_round and world.phase == pb.PICKUP:
        # The final turns still to come: clockwise after the buster (the drawer's comes last).
        world.final_queue = [s for s in clockwise_from(world.turn_seat, world.players) if not world.final_done[s]]
