"""Trick to the Future determinization: a world consistent with what one seat knows.

Hidden from a seat: the other hands and the undealt cards. What it knows (and every world
keeps): its own hand, every card played this round, hand sizes, the undealt count, the suits a
seat showed void in (it did not follow), and the first-lead rule's deductions: the card that
gave the first lead (the Past 0, or the lowest Past card held) was in the first leader's hand,
and every lower Past card of the round's deck was undealt (ruling 4; all Past cards when the
lead was drawn at random).

The unknown cards are dealt exactly uniformly over the consistent deals: the constraints are per
suit, so a suit-by-suit count of completions (multinomial ways for each split of a suit among
the places that allow it) weights each split; then the suit's cards are shuffled into it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from math import factorial
from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.games.tricktothefuture.cards import PAST, SUITS, rank_of, suit_of

if TYPE_CHECKING:
    from arena.games.tricktothefuture.game import TrickToTheFuture, TrickToTheFutureState


def _splits(m: int, caps: tuple[int, ...], allowed: tuple[bool, ...]) -> Iterator[tuple[int, ...]]:
    """Every way to put m cards into the places (at most caps[j] into an allowed place j)."""
    if not caps:
        if m == 0:
            yield ()
        return
    top = min(m, caps[0]) if allowed[0] else 0
    for x in range(top + 1):
        for rest in _splits(m - x, caps[1:], allowed[1:]):
            yield (x, *rest)


def _ways(m: int, split: tuple[int, ...]) -> int:
    out = factorial(m)
    for x in split:
        out //= factorial(x)
    return out


def sample_world(
    game: TrickToTheFuture, state: TrickToTheFutureState, viewer: int, chance: Chance
) -> TrickToTheFutureState:
    world = game.copy_for(state, viewer, chance)
    if not state.over:
        _redeal(world, viewer, chance)
    world.pending = tuple(game.decisions(world))
    return world


def _redeal(world: TrickToTheFutureState, viewer: int, chance: Chance) -> None:
    from arena.games.tricktothefuture.game import unseen

    n = world.players
    hidden = unseen(world, viewer)
    # Places: the other seats' hands, then the undealt pile (index n - 1 in `places`).
    seats = [s for s in range(n) if s != viewer]
    caps = [len(world.hands[s]) for s in seats] + [len(world.undealt)]
    banned = [world.voids[s] for s in seats] + [[False] * len(SUITS)]
    content: list[list[int]] = [[] for _ in caps]

    pinned: dict[int, int] = {}
    key = world.leader_card
    if key >= 0 and key in hidden and world.first_leader != viewer:
        pinned[key] = seats.index(world.first_leader)
    below = rank_of(key) if key >= 0 else 99
    for card in hidden:
        if suit_of(card) == PAST and rank_of(card) < below and card != key:
            pinned[card] = len(seats)  # was not dealt to anyone
    for card, place in pinned.items():
        content[place].append(card)
        caps[place] -= 1

    free = [c for c in hidden if c not in pinned]
    # Places with the same banned suits are interchangeable: deal to these classes first (the
    # ways to split a class's cards among its places do not depend on which cards they are),
    # then shuffle each class's cards into its places.
    classes: list[tuple[bool, ...]] = []
    members: list[list[int]] = []
    for j, row in enumerate(banned):
        bans = tuple(row)
        if bans not in classes:
            classes.append(bans)
            members.append([])
        members[classes.index(bans)].append(j)
    room = tuple(sum(caps[j] for j in group) for group in members)
    groups = [[c for c in free if suit_of(c) == k] for k in range(len(SUITS))]
    allowed = [tuple(not bans[k] for bans in classes) for k in range(len(SUITS))]

    @cache
    def count(k: int, left: tuple[int, ...]) -> int:
        if k == len(groups):
            return 1 if not any(left) else 0
        m = len(groups[k])
        return sum(
            _ways(m, x) * count(k + 1, tuple(a - b for a, b in zip(left, x, strict=True)))
            for x in _splits(m, left, allowed[k])
        )

    left = room
    dealt: list[list[int]] = [[] for _ in classes]
    for k, group in enumerate(groups):
        m = len(group)
        splits = list(_splits(m, left, allowed[k]))
        weights = [_ways(m, x) * count(k + 1, tuple(a - b for a, b in zip(left, x, strict=True))) for x in splits]
        split = splits[chance.weighted(weights, "world")]
        order = chance.shuffled(group, "world")
        at = 0
        for j, x in enumerate(split):
            dealt[j].extend(order[at : at + x])
            at += x
        left = tuple(a - b for a, b in zip(left, split, strict=True))
    for group, got in zip(members, dealt, strict=True):
        order = chance.shuffled(sorted(got), "world")
        at = 0
        for j in group:
            content[j].extend(order[at : at + caps[j]])
            at += caps[j]

    for j, s in enumerate(seats):
        world.hands[s] = sorted(content[j])
    world.undealt = sorted(content[-1])
