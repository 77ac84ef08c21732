"""The bootstrap over duplicate groups from sparse entries (``arena.ratings.GroupWins``): the
same fits and intervals, to the last bit, as dense (groups, bots, bots) matrices; a game's
board across tournaments (``arena.leaderboard.across``) and a tournament's board hold entries
that grow with the matches, not with the groups times the bots squared."""

from __future__ import annotations

import base64
import json
import tracemalloc
import zlib
from itertools import permutations

import msgspec
import numpy as np
import pytest

from arena import leaderboard, ratings
from arena.ratings import GroupWins, bootstrap_intervals
from arena.tallied import TallyEntry
from arena.tournament import TournamentSpec

# --------------------------------------------------------------------------------------------
# Data: synthetic tally entries (the records' parts a tally reads), per duplicate group


def group_entries(rng, bots, players, groups, *, draw=0.2, pool=None, first_group=0):
    """``groups`` duplicate groups, each one set of bots in every seat rotation; a rotation's
    ranks are random, all tied at rate ``draw``. ``pool``: the bots that may play (the others
    never do)."""
    pool = list(range(bots)) if pool is None else list(pool)
    out: list[TallyEntry] = []
    for g in range(first_group, first_group + groups):
        seats = tuple(int(b) for b in rng.choice(pool, players, replace=False))
        for turn in range(players):
            rotation = seats[turn:] + seats[:turn]
            tied = rng.random() < draw
            ranks = tuple([1] * players) if tied else tuple(int(r) for r in rng.permutation(players) + 1)
            index = len(out)
            zeros = tuple([0] * players)
            out.append(TallyEntry(index, g, g, rotation, ranks, zeros, (), tuple([0.0] * players), zeros))
    return out


def made_summary(names, players, entries, seed=1):
    spec = TournamentSpec(game="rolldice", bots=tuple(names), players=players, seed=seed)
    tally = leaderboard.Tally(spec, by_group=True)
    for entry in entries:
        tally.add_entry(entry)
    return json.loads(json.dumps(leaderboard.summary_of(tally)))  # as the store keeps it


def dense_groups(entries, bots):
    """The groups' win matrices, dense, straight from the entries (groups in number order)."""
    numbers = sorted({e.group_number for e in entries})
    out = np.zeros((len(numbers), bots, bots))
    for entry in entries:
        g = numbers.index(entry.group_number)
        seats, ranks = entry.seat_bots, entry.ranks
        for a in range(len(seats)):
            for b in range(a + 1, len(seats)):
                if seats[a] == seats[b]:
                    continue
                score = 1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0
                out[g, seats[a], seats[b]] += score
                out[g, seats[b], seats[a]] += 1.0 - score
    return out


# --------------------------------------------------------------------------------------------
# The dense reference: the bootstrap as it was before the entries (and its connectivity check)


def reference_connectivity(wins, names):
    n = len(names)
    if n < 2:
        return None
    if not wins.any():
        return "no games have been played"
    games = wins + wins.T
    for i in range(n):
        if games[i].sum() == 0:
            return f"bot {names[i]} has no games against the others"
        if wins[i].sum() == 0:
            return f"bot {names[i]} never won (or drew) a game: its rating has no lower bound"
        if wins[:, i].sum() == 0:
            return f"bot {names[i]} never lost (or drew) a game: its rating has no upper bound"
    beat = wins > 0
    for graph in (beat, beat.T):
        seen, frontier = {0}, [0]
        while frontier:
            i = frontier.pop()
            for j in np.flatnonzero(graph[i]):
                if int(j) not in seen:
                    seen.add(int(j))
                    frontier.append(int(j))
        if len(seen) < n:
            apart = [names[i] for i in range(n) if i not in seen]
            return f"the results do not connect all bots ({', '.join(apart)} cannot be compared with the rest)"
    return None


def reference_bootstrap(group_wins, names, *, resamples=200, seed=0, players=2):
    """(ratings, low, high, warning) from dense matrices: each resample a product of its group
    counts with every group's matrix."""
    wins = group_wins.sum(axis=0)
    groups = group_wins.shape[0]
    assert groups >= ratings.MIN_BOOTSTRAP_GROUPS
    warning = reference_connectivity(wins, names)
    prior = 1.0 if warning else 0.0
    fitted = ratings.fit_bradley_terry(wins, prior=prior)
    rng = np.random.default_rng(seed)
    flat = group_wins.reshape(groups, -1)
    samples = np.empty((resamples, len(names)))
    counts = rng.multinomial(groups, np.full(groups, 1.0 / groups), size=resamples)
    for r in range(resamples):
        resampled = (counts[r] @ flat).reshape(len(names), len(names))
        needs_prior = prior or reference_connectivity(resampled, names) is not None
        samples[r] = ratings.fit_bradley_terry(
            resampled, prior=1.0 if needs_prior else 0.0, tolerance=1e-8, near=fitted
        )
    low, high = ratings._bias_corrected_ends(samples, fitted, 0.95)
    low, high = np.minimum(low, fitted), np.maximum(high, fitted)
    # Widened to the normal interval for a bot in few groups, or on a side every resample repeats.
    normal_low, normal_high = ratings.regularised_intervals(wins, 0.95, centre=fitted, players=players)
    played = (group_wins.sum(axis=2) + group_wins.sum(axis=1)) > 0  # (groups, bots): any game against another
    few = played.sum(axis=0) < ratings.TRUSTED_BOOTSTRAP_GROUPS
    low = np.where(few | (low >= fitted - ratings.TIED_POINTS), np.minimum(low, normal_low), low)
    high = np.where(few | (high <= fitted + ratings.TIED_POINTS), np.maximum(high, normal_high), high)
    return fitted, low, high, warning, reference_open(wins)


def reference_open(wins):
    """The bots whose interval a board shows open, (below, above), bot by bot: one that never
    scored against another is open below, one no other scored against open above."""
    n = len(wins)
    if n < 2:
        return set(), set()
    below = {i for i in range(n) if not any(wins[i, j] > 0 for j in range(n) if j != i)}
    above = {i for i in range(n) if not any(wins[j, i] > 0 for j in range(n) if j != i)}
    return below, above


def reference_across(parts):
    """The dense path of a board across tournaments: ``parts`` are (bots' names, entries, players);
    every tournament's groups as blocks over the union of all bots, concatenated."""
    names: list[str] = []
    for bots, _, _ in parts:
        names += [b for b in bots if b not in names]
    blocks = []
    for bots, entries, _ in parts:
        local = dense_groups(entries, len(bots))
        mapped = [names.index(b) for b in bots]
        block = np.zeros((local.shape[0], len(names), len(names)))
        block[np.ix_(range(local.shape[0]), mapped, mapped)] = local
        blocks.append(block)
    players = max(seats for _, _, seats in parts)
    return names, reference_bootstrap(np.concatenate(blocks), names, players=players)


def assert_same_fit(fit, reference):
    fitted, low, high, warning, _ = reference
    assert fit.warning == warning
    # Bit for bit: the entries' sums are of whole numbers and halves, exact in any order.
    assert np.array_equal(fit.ratings, fitted)
    assert np.array_equal(fit.ci_low, low)
    assert np.array_equal(fit.ci_high, high)


def assert_board_shows(board, names, reference):
    fitted, low, high, warning, (below, above) = reference
    assert board["warning"] == warning
    shown = {row["bot"]: (row["rating"], row["ci_low"], row["ci_high"]) for row in board["leaderboard"]}
    assert shown == {
        name: (
            round(float(fitted[i]), 1),
            None if i in below else round(float(low[i]), 1),
            None if i in above else round(float(high[i]), 1),
        )
        for i, name in enumerate(names)
    }


def joined(summaries):
    index: dict[str, int] = {}
    for summary in summaries:
        for bot in summary["bots"]:
            index.setdefault(bot, len(index))
    parts = [(leaderboard.summary_wins(s), [index[b] for b in s["bots"]]) for s in summaries]
    return list(index), GroupWins.joined(parts, len(index))


# --------------------------------------------------------------------------------------------
# Identical results


Tournament = tuple[list[str], int, int, float, list[int] | None]
CASES: dict[str, list[Tournament]] = {
    # name: tournaments, each (bots' names, players, groups, draw rate, the bots that play)
    "overlapping 2-player": [
        ([f"a{i}" for i in range(8)], 2, 30, 0.2, None),
        ([f"a{i}" for i in (11, 10, 9, 8, 7, 6, 5, 4)], 2, 30, 0.2, None),  # half shared, other order
        ([f"a{i}" for i in range(0, 12, 2)], 2, 20, 0.0, None),
    ],
    "disjoint bot sets": [
        ([f"x{i}" for i in range(6)], 2, 20, 0.2, None),
        ([f"y{i}" for i in range(6)], 2, 20, 0.2, None),
    ],
    "disconnected within a tournament": [
        ([f"s{i}" for i in range(8)], 2, 25, 0.1, [0, 1, 2, 3]),
        ([f"s{i}" for i in range(8)], 2, 25, 0.1, [4, 5, 6, 7]),
    ],
    "4-player groups with draws": [
        ([f"q{i}" for i in range(7)], 4, 25, 0.3, None),
        ([f"q{i}" for i in range(3, 10)], 4, 25, 0.3, None),
    ],
    "2- and 4-player tournaments of one game": [
        ([f"m{i}" for i in range(6)], 2, 30, 0.2, None),
        ([f"m{i}" for i in range(2, 9)], 4, 15, 0.2, None),
    ],
    "a bot that never plays": [
        ([f"n{i}" for i in range(6)], 2, 30, 0.2, [0, 1, 2, 3, 4]),
    ],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_across_fits_exactly_as_dense_blocks(case):
    rng = np.random.default_rng(sorted(CASES).index(case) + 7)
    parts, summaries = [], []
    for bots, players, groups, draw, pool in CASES[case]:
        entries = group_entries(rng, len(bots), players, groups, draw=draw, pool=pool)
        parts.append((bots, entries, players))
        summaries.append(made_summary(bots, players, entries))
    # across() takes the summaries in an order of their own (by content): the reference too.
    order = sorted(range(len(summaries)), key=lambda t: leaderboard._content_order(summaries[t]))
    parts, summaries = [parts[t] for t in order], [summaries[t] for t in order]
    names, reference = reference_across(parts)
    order, sparse = joined(summaries)
    assert order == names
    assert sparse.count == sum(groups for _, _, groups, _, _ in CASES[case])
    players = max(players for _, players, _, _, _ in CASES[case])
    assert_same_fit(bootstrap_intervals(sparse, names=names, players=players), reference)
    assert_board_shows(leaderboard.across("rolldice", summaries), names, reference)


def test_the_cases_cover_what_they_say():
    """The references above are not all alike: some are disconnected (warned), some not."""
    warnings = {}
    for case in sorted(CASES):
        rng = np.random.default_rng(sorted(CASES).index(case) + 7)
        parts = [
            (bots, group_entries(rng, len(bots), players, groups, draw=draw, pool=pool), players)
            for bots, players, groups, draw, pool in CASES[case]
        ]
        warnings[case] = reference_across(parts)[1][3]
    assert warnings["overlapping 2-player"] is None
    assert warnings["disjoint bot sets"].startswith("the results do not connect all bots (y0, y1")
    assert warnings["disconnected within a tournament"].startswith("the results do not connect all bots (s4, s5")
    assert warnings["a bot that never plays"] == "bot n5 has no games against the others"


def test_the_board_across_tournaments_does_not_depend_on_their_order():
    """The bootstrap draws groups by position and bots are numbered as they first appear: two
    summaries reversed moved an interval's end by 7.5 points (an outside statistician)."""
    rng = np.random.default_rng(11)
    one = made_summary([f"a{i}" for i in range(4)], 2, group_entries(rng, 4, 2, 40))
    two = made_summary([f"a{i}" for i in (5, 4, 3, 2)], 2, group_entries(rng, 4, 2, 40))
    three = made_summary([f"a{i}" for i in (0, 5)], 2, group_entries(rng, 2, 2, 10))
    boards = [leaderboard.across("rolldice", order) for order in permutations([one, two, three])]
    assert all(board == boards[0] for board in boards[1:])
    assert len({row["bot"] for row in boards[0]["leaderboard"]}) == 6


def test_tournaments_alike_in_their_sums_are_ordered_by_their_groups():
    # The same bots and summed wins, the groups numbered the other way: they tied on the order's
    # key and kept the caller's order, which moved the bootstrap's ends (an outside review).
    names = ["a", "b", "c"]
    entries = group_entries(np.random.default_rng(3), 3, 2, 30)
    last = max(e.group_number for e in entries)
    flipped = [msgspec.structs.replace(e, group=last - e.group, group_number=last - e.group_number) for e in entries]
    one, two = made_summary(names, 2, entries), made_summary(names, 2, flipped)
    assert one != two
    assert leaderboard.across("rolldice", [one, two]) == leaderboard.across("rolldice", [two, one])


@pytest.mark.parametrize("players", [2, 4])
def test_a_tournament_board_fits_exactly_as_dense_groups(players):
    rng = np.random.default_rng(players)
    names = [f"b{i}" for i in range(9)]
    entries = group_entries(rng, len(names), players, 40, draw=0.25)
    spec = TournamentSpec(game="rolldice", bots=tuple(names), players=players, seed=3)
    tally = leaderboard.Tally(spec, by_group=True)
    for entry in reversed(entries):  # any order: the group entries are summed exactly
        tally.add_entry(entry)
    dense = dense_groups(entries, len(names))
    assert np.array_equal(tally.group_win_matrices(), dense)
    reference = reference_bootstrap(dense, names, seed=3, players=players)
    assert_board_shows(tally.board(resamples=200), names, reference)
    assert_same_fit(bootstrap_intervals(tally.group_wins(), names=names, seed=3, players=players), reference)


def test_a_group_without_pairs_still_counts_in_the_resampling():
    """A match of one bot in every seat adds no pair, but its group is drawn like any other."""
    names = ["a", "b", "c"]
    rng = np.random.default_rng(5)
    entries = group_entries(rng, 3, 2, 12)
    zeros = (0, 0)
    entries.append(TallyEntry(len(entries), 99, 99, (1, 1), (1, 2), zeros, (), (0.0, 0.0), zeros))
    spec = TournamentSpec(game="rolldice", bots=tuple(names), players=2, seed=1)
    tally = leaderboard.Tally(spec, by_group=True)
    for entry in entries:
        tally.add_entry(entry)
    groups = tally.group_wins()
    assert groups.count == 13 and not np.any(groups.groups_of == 12)
    assert_same_fit(bootstrap_intervals(groups, names=names), reference_bootstrap(dense_groups(entries, 3), names))


def test_dense_callers_get_the_same_fit_and_other_values_within_a_rounding():
    """``bootstrap_intervals`` still takes dense matrices (tests, benches): halves give the same
    bits; arbitrary values may be summed in another order than a matrix product's (and a BLAS
    may split a product across threads), so their last bits may differ, and a fit that stops
    at its tolerance (1e-8 in log-strength, about 2e-6 rating points) may stop a step apart: a
    CI run saw 7.9e-9 rating points in one interval end (the bound was 1e-9)."""
    rng = np.random.default_rng(11)
    names = [f"b{i}" for i in range(5)]
    halves = dense_groups(group_entries(rng, 5, 2, 30), 5)
    assert_same_fit(bootstrap_intervals(halves, names=names, seed=4), reference_bootstrap(halves, names, seed=4))
    weights = halves * rng.uniform(0.5, 1.5, size=halves.shape)
    fit = bootstrap_intervals(weights, names=names, seed=4)
    fitted, low, high, warning, _ = reference_bootstrap(weights, names, seed=4)
    assert fit.warning == warning
    for mine, theirs in ((fit.ratings, fitted), (fit.ci_low, low), (fit.ci_high, high)):
        assert np.max(np.abs(mine - theirs)) < 1e-6


# Computed by the dense path (the commit before the entries) for pinned_case: ratings and
# interval ends of its first three bots, as float.hex. Equal to the last bit on the machine
# they were taken on; pinned to 1e-9 rating points, as another BLAS may solve the fit's
# systems with other roundings.
PINNED = {
    "ratings": ["0x1.8230d8a1ac9c6p+10", "0x1.6dcc6dd5abb47p+10", "0x1.6fd95a46db2eep+10"],
    "ci_low": ["0x1.5b075f87a3c40p+10", "0x1.274c374c60584p+10", "0x1.38eb12f2082fbp+10"],
    "ci_high": ["0x1.b2de6d38a34cfp+10", "0x1.9af276efdc526p+10", "0x1.90a6fc39ab536p+10"],
}


def pinned_case():
    rng = np.random.default_rng(2024)
    first = [f"p{i}" for i in range(6)]
    second = [f"p{i}" for i in range(3, 9)]
    one = made_summary(first, 2, group_entries(rng, 6, 2, 25, draw=0.2))
    two = made_summary(second, 4, group_entries(rng, 6, 4, 15, draw=0.2))
    return one, two


def test_numbers_pinned_from_the_dense_path(monkeypatch):
    # Pinned before the normal interval widened bots in fewer than 30 groups each (on this board
    # of 40 groups only the tied sides were widened then): without that widening, the same numbers.
    monkeypatch.setattr(ratings, "TRUSTED_BOOTSTRAP_GROUPS", 0)
    one, two = pinned_case()
    names, sparse = joined([one, two])
    fit = bootstrap_intervals(sparse, names=names)
    assert fit.warning is None
    # Within the fits' own tolerance (a resample's fit stops within 1e-8 in log-strength, about
    # 2e-6 points): resamples start from the full fit since it was pinned, so their last bits moved.
    for key, pinned in PINNED.items():
        assert np.max(np.abs(getattr(fit, key)[:3] - [float.fromhex(v) for v in pinned])) < 1e-5


def test_a_summary_stored_dense_reads_as_its_entries():
    """Summaries stored before the entries kept every group's matrix whole ("groups"): they
    read as the same groups and give the same board."""
    rng = np.random.default_rng(8)
    names = [f"d{i}" for i in range(6)]
    entries = group_entries(rng, 6, 2, 20, draw=0.2)
    new = made_summary(names, 2, entries)
    old = {k: v for k, v in new.items() if k != "group_entries"}
    old["groups"] = base64.b64encode(zlib.compress(dense_groups(entries, 6).astype("<f8").tobytes())).decode()
    assert np.array_equal(leaderboard.summary_groups(old), leaderboard.summary_groups(new))
    other = made_summary([f"d{i}" for i in range(3, 9)], 2, group_entries(rng, 6, 2, 20))
    assert leaderboard.across("rolldice", [old, other]) == leaderboard.across("rolldice", [new, other])


def test_connectivity_problem_says_what_the_loop_said():
    rng = np.random.default_rng(3)
    names = [f"c{i}" for i in range(7)]
    seen = set()
    for _ in range(300):
        wins = rng.integers(0, 3, size=(7, 7)) * (rng.random((7, 7)) < rng.uniform(0.05, 0.6)) * 0.5
        np.fill_diagonal(wins, 0.0)
        expected = reference_connectivity(wins, names)
        assert ratings.connectivity_problem(wins, names) == expected
        seen.add(expected.split(" ")[2] if expected and expected.startswith("bot") else expected and "connect")
    assert seen >= {None, "has", "never", "connect"}  # every kind of answer was checked


# --------------------------------------------------------------------------------------------
# Growth with the data


def versions(count, per=16, shared=8, groups=20, seed=0):
    """``count`` tournaments of ``shared + per`` bots: the shared ones under the same names in
    every tournament, the others new each time (as new versions of bots are). Each plays the
    same matches (so each holds as many entries)."""
    out = []
    for k in range(count):
        names = [f"s{i}" for i in range(shared)] + [f"v{k}.{i}" for i in range(per)]
        rng = np.random.default_rng(seed)
        out.append(made_summary(names, 2, group_entries(rng, len(names), 2, groups)))
    return out


def test_entries_grow_with_the_tournaments_not_with_the_bots_squared():
    """Each tournament adds its own entries and nothing for the other tournaments' bots: k
    tournaments hold k times one's entries and bytes, where dense blocks held k times the
    groups times the square of all bots."""
    counts = [1, 2, 4, 8]
    held = {}
    for count in counts:
        names, groups = joined(versions(count))
        assert len(names) == 8 + 16 * count
        held[count] = (groups.entries, groups.nbytes, groups.count)
    one_entries, one_bytes, one_groups = held[1]
    for count in counts:
        assert held[count] == (count * one_entries, count * one_bytes, count * one_groups)
    dense_cells = {count: held[count][2] * (8 + 16 * count) ** 2 for count in counts}
    assert dense_cells[8] / dense_cells[1] == 8 * (136 / 24) ** 2  # what the blocks would have grown


def test_across_never_holds_the_dense_blocks():
    """The peak memory of a refit of 8 tournaments stays far below what the dense blocks alone
    took (groups x bots x bots float64, twice: the blocks and their concatenation)."""
    summaries = versions(8, groups=40)
    names, groups = joined(summaries)
    dense_bytes = 2 * groups.count * len(names) ** 2 * 8  # 2 * 320 * 136^2 * 8 = 94.7 MB
    leaderboard.across("rolldice", summaries[:1])  # imports and caches warm
    tracemalloc.start()
    try:
        leaderboard.across("rolldice", summaries)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < dense_bytes / 20


def test_a_tally_holds_entries_per_match_not_per_group_and_bot_pair():
    """A tournament's tally by group keeps (group, cell) entries: as many for 60 bots as for 6
    with the same matches, bounded by two a pair of seats."""
    held = {}
    for bots in (6, 60):
        rng = np.random.default_rng(1)
        entries = group_entries(rng, 6, 2, 200)  # the same matches among the first six bots
        spec = TournamentSpec(game="rolldice", bots=tuple(f"b{i}" for i in range(bots)), players=2)
        tally = leaderboard.Tally(spec, by_group=True)
        for entry in entries:
            tally.add_entry(entry)
        groups = tally.group_wins()
        held[bots] = (groups.count, groups.entries, groups.nbytes)
    assert held[6] == held[60]
    assert held[6][0] == 200 and held[6][1] <= 2 * 2 * 200
