"""The search that charges paid hidden cards to deck cycles (``arena/games/charging.py``), shared
by Karakum (ruling 12) and Gasha (ruling 14)."""

from __future__ import annotations

import random

import pytest

from arena.games import charging
from arena.games.charging import charge


def is_charging(charges, pools, where) -> bool:
    """Every card to a cycle that has one of its kind left, and every payment of a hand finds as
    many earlier draws of it from each cycle as the hand's charges to that cycle up to then."""
    left = [list(pool) for pool in pools]
    for (_, kind, _), e in zip(charges, where, strict=True):
        left[e][kind] -= 1
    if any(n < 0 for pool in left for n in pool):
        return False
    made: dict[tuple[object, int], int] = {}
    for (who, _, drawn), e in zip(charges, where, strict=True):
        made[who, e] = made.get((who, e), 0) + 1
        if any(made.get((who, c), 0) > (drawn[c] if c < len(drawn) else 0) for c in range(len(pools))):
            return False
    return True


def history(rng: random.Random) -> tuple[list[tuple[int, int, list[int]]], list[list[int]]]:
    """A small made-up history: three hands draw blind cards from the current deck cycle and pay
    some of them; the charges with the hand's draws per cycle at each payment, and per cycle the
    paid kinds plus a few cards nobody located (so the real history is one charging of many)."""
    cycles, kinds = rng.choice((2, 3)), 4
    held: list[list[tuple[int, int]]] = [[], [], []]  # per hand: (cycle, kind) of its blind cards
    drawn = [[0] * cycles for _ in range(3)]
    charges, pools = [], [[rng.randrange(2) for _ in range(kinds)] for _ in range(cycles)]
    for cycle in range(cycles):
        for _ in range(rng.randrange(3, 7)):
            who = rng.randrange(3)
            if held[who] and rng.random() < 0.45:
                e, kind = held[who].pop(rng.randrange(len(held[who])))
                charges.append((who, kind, list(drawn[who][: cycle + 1])))
                pools[e][kind] += 1
            else:
                held[who].append((cycle, rng.randrange(kinds)))
                drawn[who][cycle] += 1
    return charges, pools


def test_a_made_up_history_is_always_charged():
    for seed in range(300):
        charges, pools = history(random.Random(seed))
        where = charge(charges, pools)
        assert where is not None and is_charging(charges, pools, where), seed


@pytest.mark.parametrize("memo_after", [0, 1, 3, 8])
def test_remembering_dead_positions_changes_no_charging(monkeypatch, memo_after):
    # The memo only skips positions already searched to the end, and the constant-time check
    # that comes with it is the same check: with both from the first step (or from a later one,
    # the search's counts then made from the charges already made) and without them at all, the
    # search gives the same charging, or none, for every instance (some made infeasible by
    # taking a card out of a pool).
    monkeypatch.setattr(charging, "BUDGET", 10**6)
    found = failed = 0
    for seed in range(400):
        rng = random.Random(seed)
        charges, pools = history(rng)
        if charges and seed % 3 == 0:
            _, kind, _ = charges[rng.randrange(len(charges))]
            pool = max(pools, key=lambda p: p[kind])
            pool[kind] -= 1
        monkeypatch.setattr(charging, "MEMO_AFTER", 10**6 + 1)  # never
        plain = charge(charges, pools)
        monkeypatch.setattr(charging, "MEMO_AFTER", memo_after)
        assert charge(charges, pools) == plain, seed
        found += plain is not None
        failed += plain is None
    assert found > 200 and failed > 20


# A Karakum reading from a game of heuristic bots, as runs of equal
# charges (count, hand, good, the hand's blind draws per cycle before the payment). The search
# without the memo ran out of its 20,000 steps and pooled the cycles; without a budget it finds
# the charging below after about 7 s.
HEURISTIC_READING = [
    (1, 0, 1, (5,)),
    (1, 1, 2, (5,)),
    (2, 0, 1, (6,)),
    (1, 1, 4, (6,)),
    (1, 1, 3, (6,)),
    (2, 1, 5, (6,)),
    (4, 1, 1, (16, 2)),
    (2, 1, 2, (16, 2)),
    (2, 1, 3, (16, 2)),
    (2, 1, 4, (16, 2)),
    (2, 1, 5, (16, 2)),
    (4, 0, 1, (15, 10, 4)),
    (4, 0, 5, (15, 10, 4)),
    (1, 1, 2, (16, 7, 4, 0)),
    (2, 1, 3, (16, 7, 4, 0)),
    (3, 1, 4, (16, 7, 4, 0)),
    (2, 1, 5, (16, 7, 4, 0)),
    (8, 0, 2, (15, 10, 4, 0)),
    (3, 0, 3, (15, 10, 4, 0)),
    (2, 0, 4, (15, 10, 4, 0)),
    (4, 1, 1, (16, 7, 4, 4, 0)),
    (2, 1, 5, (16, 7, 4, 4, 0)),
]
HEURISTIC_POOLS = [
    [0, 8, 5, 4, 7, 6, 1],
    [0, 2, 5, 2, 2, 4, 2],
    [0, 2, 2, 2, 1, 1, 0],
    [0, 3, 0, 0, 0, 1, 0],
    [0, 8, 13, 13, 11, 6, 1],
]


def test_a_reading_the_search_once_gave_up_on_is_found():
    charges = [(who, good, list(drawn)) for n, who, good, drawn in HEURISTIC_READING for _ in range(n)]
    where = charge(charges, HEURISTIC_POOLS)
    assert where is not None and is_charging(charges, HEURISTIC_POOLS, where)
    # the cycle with most of the good first, as without the memo
    assert where == [
        *[0] * 12, 1, 0, 0, 0, 0, 0, 0, 1, 1, 2, 0, 1, 0, 1, 0, 1, 1, 1, 2, 1, 1, 2,
        0, 1, 0, 1, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 0, 3, 3, 2, 3, 2, 3,
    ]  # fmt: skip


@pytest.mark.parametrize("budget", [1, 5])
def test_a_search_out_of_steps_finds_nothing(monkeypatch, budget):
    monkeypatch.setattr(charging, "BUDGET", budget)
    charges = [(who, good, list(drawn)) for n, who, good, drawn in HEURISTIC_READING for _ in range(n)]
    assert charge(charges, HEURISTIC_POOLS) is None
