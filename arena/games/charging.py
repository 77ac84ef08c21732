"""Charging paid hidden cards to deck cycles: the search Karakum (ruling 12) and Gasha (ruling 14)
share.

A hand draws hidden cards from several deck cycles (each reshuffle starts one) and later pays some
of them face up. A seat reading the cycles charges each paid card to a cycle: one the hand had
drawn from before the payment and that still has such a card unlocated, the charges nested in
time (every payment of the hand finds enough cards of the cycle drawn before it). The real history
is one solution, so a charging exists for every real position; the search below finds one unless
its step budget runs out.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

Who = TypeVar("Who", bound=Hashable)

BUDGET = 20_000
"""Search steps (positions not known dead). With the memo below, readings of random and heuristic
games need at most a few hundred; without it 73 of 578,164 readings of 900 random Karakum games,
and 42 of 2,850 of 18 heuristic ones, ran out (the cycles were then pooled)."""
MEMO_AFTER = 256
"""Steps before the search starts remembering dead positions (and checking cycles from a table
made then): most readings are found sooner, and a key costs about a step."""


def charge(
    charges: Sequence[tuple[Who, int, Sequence[int]]],
    pools: Sequence[Sequence[int]],
) -> list[int] | None:
    """The deck cycle each paid card is charged to, or None when none is found.

    ``charges``, in time order: (who drew it: a hand, or a hand's cards of one back; the card's
    kind, an index into a pool; who's draws per cycle before the payment). ``pools``: per cycle,
    its unlocated cards by kind. A charge needs a draw from the cycle
    before the payment not charged yet (nested in time) and a card of its kind left in the cycle.
    The charges with one possible cycle are made first; the others by a depth-first search in
    time order, the cycle with most of the kind first, for at most ``BUDGET`` steps.

    The search remembers the positions it has found dead: what is left to decide depends only on
    how many charges are made, the cards left per cycle and how many of each hand's charges went
    to each cycle, not on which of them went where. Equal charges (the same hand, kind and draws)
    made in another order reach a known dead position at once instead of being searched again.
    Only dead positions are skipped, so the charging found is the one the plain search finds.
    A search that turns long (past ``MEMO_AFTER`` steps) also checks a cycle in constant time
    (:func:`_slack`) instead of walking the hand's payments."""
    left = [list(pool) for pool in pools]
    if len(left) == 1:  # one cycle (before the first reshuffle): all to it, if it can
        running: dict[Who, int] = {}
        for who, kind, drawn in charges:
            left[0][kind] -= 1
            running[who] = running.get(who, 0) + 1
            if left[0][kind] < 0 or running[who] > drawn[0]:
                return None
        return [0] * len(charges)
    where = [-1] * len(charges)
    mine: dict[Who, list[int]] = {}
    for k, (who, _, _) in enumerate(charges):
        mine.setdefault(who, []).append(k)

    def fits(k: int, e: int) -> bool:
        """Cycle e has the kind, and every payment of who from this one on still finds enough
        draws from cycle e before it (so no hand is charged more than it drew from a cycle)."""
        who, kind, _ = charges[k]
        if left[e][kind] <= 0:
            return False
        count = 0
        for m in mine[who]:
            if where[m] == e or m == k:
                count += 1
            if m >= k and count > charges[m][2][e]:
                return False
        return True

    def put(k: int, e: int, sign: int) -> None:
        kind = charges[k][1]
        where[k] = e if sign > 0 else -1
        left[e][kind] -= sign

    free: list[int] = []
    for k, (_, _, drawn) in enumerate(charges):
        cands = [e for e, n in enumerate(drawn) if n]
        if len(cands) != 1:
            free.append(k)
        elif fits(k, cands[0]):
            put(k, cands[0], 1)
        else:
            return None
    budget = [BUDGET]
    dead: set[tuple[object, ...]] = set()
    # Made when the search turns out long: each hand's row in ``taken``, the searched charges
    # made per (hand, cycle), and the table of _slack. Until then the search is the plain one.
    long: list[tuple[dict[Who, int], list[int], list[list[int]]]] = []

    def go_long(i: int) -> tuple[dict[Who, int], list[int], list[list[int]]]:
        cycles = len(left)
        rows = {who: j * cycles for j, who in enumerate(mine)}
        taken = [0] * (len(mine) * cycles)
        for k in free[:i]:  # the searched charges made so far
            taken[rows[charges[k][0]] + where[k]] += 1
        searched = set(free)
        forced = [-1 if m in searched else e for m, e in enumerate(where)]
        return rows, taken, _slack(charges, mine, forced, cycles)

    def count(who: Who, e: int, step: int) -> None:
        if long:  # once ``taken`` exists: it was made from ``where``, every charge made is in it
            rows, taken, _ = long[0]
            taken[rows[who] + e] += step

    def search(i: int) -> bool:
        if i == len(free):
            return True
        key = None
        if budget[0] <= BUDGET - MEMO_AFTER:  # a long search: remember, and check in constant time
            if not long:
                long.append(go_long(i))
            key = (i, tuple(long[0][1]), *map(tuple, left))
            if key in dead:
                return False
        budget[0] -= 1
        if budget[0] < 0:
            return False
        k = free[i]
        who, kind, drawn = charges[k]
        for e in sorted((e for e, n in enumerate(drawn) if n), key=lambda e: (-left[e][kind], e)):
            if long:  # fits(k, e), in constant time
                rows, taken, slack = long[0]
                if left[e][kind] <= 0 or slack[k][e] <= taken[rows[who] + e]:
                    continue
            elif not fits(k, e):
                continue
            put(k, e, 1)
            count(who, e, 1)
            if search(i + 1):
                return True
            count(who, e, -1)
            put(k, e, -1)
        if key is not None and budget[0] >= 0:  # searched to the end: no charging from here
            dead.add(key)
        return False

    return where if search(0) else None


def _slack(
    charges: Sequence[tuple[Who, int, Sequence[int]]], mine: dict[Who, list[int]], forced: list[int], cycles: int
) -> list[list[int]]:
    """Per charge k and cycle e, how many of its hand's searched charges before it may go to e
    with k still fitting there: the least, over the hand's payments from k on, of its draws from
    e before the payment less the forced charges to e up to it.

    The search charges in time order, so when it reaches k every searched charge before k is
    made and none after it: the forced ones are all that is known after k. ``fits(k, e)`` (a
    card of the kind left aside) is then ``taken[who, e] < slack[k][e]``."""
    slack: list[list[int]] = [[] for _ in charges]
    for ks in mine.values():
        made = [0] * cycles  # forced charges to each cycle, up to the payment
        room: list[list[int]] = []
        for m in ks:
            if forced[m] >= 0:
                made[forced[m]] += 1
            drawn = charges[m][2]
            room.append([(drawn[e] if e < len(drawn) else 0) - made[e] for e in range(cycles)])
        least = [1 << 30] * cycles
        for m, here in zip(reversed(ks), reversed(room), strict=True):
            least = [min(a, b) for a, b in zip(least, here, strict=True)]
            slack[m] = least
    return slack
