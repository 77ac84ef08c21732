"""Who plays whom: groups of bots for round-robin and gauntlet tournaments.

A *group* is a set of k bots that plays every cyclic seat rotation on one deal seed (a
duplicate group): for 2-player games, both seat orders of a pair. Rotations cancel the seat
advantage and the luck of the deal within the group.

Round-robin uses every k-subset of the B bots while there are at most ``max_groups`` of them.
Beyond that, :func:`balanced_groups` builds a balanced sample:

* every bot sits in the same number of groups (exactly, when ``groups * k`` is a multiple of
  ``B``; otherwise within one), and
* pairs of bots meet about equally often: the most and the fewest meetings of two pairs
  differ by at most 2 (not always the best possible: a resolvable design can do better).

It is a seeded design in two passes. A greedy pass gives each new group the bots that have
played least so far, breaking ties by how often they have already met the bots chosen for the
group (fewest first), then by a seeded random key; this makes play counts equal. A local search
then swaps bots between groups (which keeps every bot's play count) whenever the swap lowers the
sum of squared pair-meeting counts, i.e. evens out who meets whom. ``tests/test_pairings.py``
measures the balance it achieves.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

from arena.chance import Chance

Group = tuple[int, ...]
"""Bot indices of one group, in the order of the first rotation's seats."""

DEFAULT_MAX_GROUPS = 120


def rotations(group: Group) -> list[Group]:
    """Every cyclic seat rotation of a group (seat s of rotation r holds group[(s + r) % k])."""
    k = len(group)
    return [tuple(group[(s + r) % k] for s in range(k)) for r in range(k)]


def all_groups(bots: int, k: int) -> list[Group]:
    return list(combinations(range(bots), k))


def balanced_group_count(bots: int, k: int, target: int) -> int:
    """The smallest count >= target (or the lcm step) that seats every bot equally often."""
    step = bots // math.gcd(bots, k)
    return max(step, math.ceil(target / step) * step)


def balanced_groups(bots: int, k: int, count: int, seed: int) -> list[Group]:
    """A balanced sample of ``count`` groups of k distinct bots out of ``bots`` (seeded)."""
    if not 2 <= k <= bots:
        raise ValueError(f"groups of {k} need at least {k} bots, have {bots}")
    rng = Chance(seed)
    plays = [0] * bots
    met = [[0] * bots for _ in range(bots)]
    groups: list[Group] = []
    for _ in range(count):
        noise = rng.shuffled(range(bots), "pairings")
        chosen: list[int] = []
        for _ in range(k):
            candidates = [b for b in range(bots) if b not in chosen]
            best = min(
                candidates,
                key=lambda b: (plays[b], sum(met[b][c] for c in chosen), noise[b]),
            )
            chosen.append(best)
        for a in chosen:
            plays[a] += 1
            for b in chosen:
                if a != b:
                    met[a][b] += 1
        groups.append(tuple(sorted(chosen)))
    return _even_out_pairs(groups, met, rng, rounds=200 * count)


def _even_out_pairs(groups: list[Group], met: list[list[int]], rng: Chance, rounds: int) -> list[Group]:
    """Swap bots between groups while that lowers the sum of squared meeting counts."""
    members = [list(g) for g in groups]
    for _ in range(rounds):
        a, b = rng.below(len(members), "pairings"), rng.below(len(members), "pairings")
        if a == b:
            continue
        x = members[a][rng.below(len(members[a]), "pairings")]
        y = members[b][rng.below(len(members[b]), "pairings")]
        if x in members[b] or y in members[a]:
            continue
        rest_a = [c for c in members[a] if c != x]
        rest_b = [d for d in members[b] if d != y]
        changes: dict[tuple[int, int], int] = {}
        for c in rest_a:
            changes[(x, c)] = changes.get((x, c), 0) - 1
            changes[(y, c)] = changes.get((y, c), 0) + 1
        for d in rest_b:
            changes[(y, d)] = changes.get((y, d), 0) - 1
            changes[(x, d)] = changes.get((x, d), 0) + 1
        delta = sum((met[i][j] + c) ** 2 - met[i][j] ** 2 for (i, j), c in changes.items())
        if delta >= 0:
            continue
        for (i, j), c in changes.items():
            met[i][j] += c
            met[j][i] += c
        members[a] = [*rest_a, y]
        members[b] = [*rest_b, x]
    return [tuple(sorted(g)) for g in members]


def round_robin(bots: int, k: int, seed: int, max_groups: int = DEFAULT_MAX_GROUPS) -> list[Group]:
    """Every k-subset when there are at most ``max_groups``; otherwise a balanced sample."""
    if k > bots:
        raise ValueError(f"{k}-player matches need at least {k} bots, have {bots}")
    if math.comb(bots, k) <= max_groups:
        return all_groups(bots, k)
    return balanced_groups(bots, k, balanced_group_count(bots, k, max_groups), seed)


def gauntlet(bots: int, k: int, seed: int, max_groups: int = DEFAULT_MAX_GROUPS) -> list[Group]:
    """Bot 0 (the challenger) with every (k-1)-subset of the others (balanced sample if too many)."""
    if k > bots:
        raise ValueError(f"{k}-player matches need at least {k} bots, have {bots}")
    others = bots - 1
    if math.comb(others, k - 1) <= max_groups:
        subsets: Sequence[Group] = all_groups(others, k - 1)
    else:
        count = balanced_group_count(others, k - 1, max_groups) if k > 2 else others
        subsets = balanced_groups(others, k - 1, count, seed) if k > 2 else [(b,) for b in range(others)]
    return [(0, *(b + 1 for b in subset)) for subset in subsets]


def group_count(bots: int, k: int, fmt: str, max_groups: int = DEFAULT_MAX_GROUPS) -> int:
    """How many groups :func:`round_robin` (fmt ``round-robin``) or :func:`gauntlet` returns,
    by arithmetic alone (no group is built)."""
    if k > bots:
        raise ValueError(f"{k}-player matches need at least {k} bots, have {bots}")
    if fmt == "gauntlet":
        others = bots - 1
        if math.comb(others, k - 1) <= max_groups:
            return math.comb(others, k - 1)
        return balanced_group_count(others, k - 1, max_groups) if k > 2 else others
    if math.comb(bots, k) <= max_groups:
        return math.comb(bots, k)
    return balanced_group_count(bots, k, max_groups)


def balance(groups: Sequence[Group], bots: int) -> tuple[list[int], dict[tuple[int, int], int]]:
    """How often each bot plays and each pair meets (for tests and reports)."""
    plays = [0] * bots
    meets: dict[tuple[int, int], int] = {pair: 0 for pair in combinations(range(bots), 2)}
    for group in groups:
        for b in group:
            plays[b] += 1
        for pair in combinations(sorted(group), 2):
            meets[pair] += 1
    return plays, meets
