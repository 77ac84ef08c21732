"""Pairings: complete round-robins, rotations, and balanced samples."""

from __future__ import annotations

from itertools import combinations

import pytest

from arena.pairings import balance, balanced_group_count, balanced_groups, gauntlet, rotations, round_robin


def test_rotations_put_every_bot_in_every_seat_once():
    for group in [(0, 1), (2, 5, 7), (0, 1, 2, 3, 4, 5)]:
        rots = rotations(group)
        assert len(rots) == len(group)
        for seat in range(len(group)):
            assert sorted(r[seat] for r in rots) == sorted(group)


@pytest.mark.parametrize(("bots", "k"), [(2, 2), (5, 2), (6, 3), (7, 4)])
def test_round_robin_is_every_group_when_small(bots, k):
    groups = round_robin(bots, k, seed=1)
    assert sorted(groups) == sorted(combinations(range(bots), k))


@pytest.mark.parametrize(("bots", "k", "target"), [(12, 4, 60), (10, 3, 40), (9, 5, 30), (16, 6, 50)])
def test_balanced_sample_seats_every_bot_equally_and_spreads_pairs(bots, k, target):
    count = balanced_group_count(bots, k, target)
    assert count >= target and (count * k) % bots == 0
    groups = balanced_groups(bots, k, count, seed=3)
    assert len(groups) == count
    assert all(len(set(g)) == k for g in groups)
    plays, meets = balance(groups, bots)
    assert len(set(plays)) == 1, plays  # every bot plays exactly as often
    # Pairs meet as evenly as possible: within 2 of each other, and each pair's count is close
    # to the mean count expected from a perfectly balanced design.
    mean = count * k * (k - 1) / (bots * (bots - 1))
    assert max(meets.values()) - min(meets.values()) <= 2, meets
    assert all(abs(m - mean) <= 1.5 for m in meets.values())


def test_round_robin_plays_every_group_when_there_are_exactly_max_groups():
    """Every k-subset when there are at most max_groups: 10 bots at 3 players are C(10,3) = 120 = the default."""
    assert round_robin(10, 3, seed=1) == list(combinations(range(10), 3))
    assert round_robin(6, 3, seed=1, max_groups=20) == list(combinations(range(6), 3))
    sampled = round_robin(10, 3, seed=1, max_groups=119)  # one fewer allowed: a balanced sample with repeats
    assert (len(sampled), len(set(sampled))) == (120, 87)


def test_large_round_robin_is_sampled_and_seeded():
    a = round_robin(12, 4, seed=5, max_groups=60)
    assert len(a) == 60 and a == round_robin(12, 4, seed=5, max_groups=60)
    assert a != round_robin(12, 4, seed=6, max_groups=60)


def test_gauntlet_puts_the_challenger_in_every_group():
    groups = gauntlet(5, 2, seed=1)
    assert groups == [(0, 1), (0, 2), (0, 3), (0, 4)]
    groups = gauntlet(9, 3, seed=1, max_groups=12)
    assert all(g[0] == 0 for g in groups)
    plays, _ = balance([g[1:] for g in groups], 9)
    assert len(set(plays[1:])) == 1  # every opponent meets the challenger equally often


def test_impossible_group_sizes_are_rejected():
    with pytest.raises(ValueError, match="at least 4 bots"):
        round_robin(3, 4, seed=1)
