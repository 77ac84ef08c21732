"""The leaderboard of a tournament: ratings with intervals and per-bot statistics.

Built from the match records alone, so any executor (local, Celery) and a re-read of
``matches.jsonl`` give the same table. Columns: rank (the position by rating, and the range of
ranks the intervals allow: :func:`rank_ranges`), bot, rating and its 95% interval (Bradley–Terry,
bootstrap over duplicate groups), online Elo, games, wins/draws/losses (2-player) or mean rank
(multiplayer), mean score, failures by verdict, mean decision time.
Seat statistics report the first-seat advantage.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import math
import sys
import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Generic, TypeVar

import numpy as np

from arena.ratings import GroupWins, OnlineElo, bootstrap_intervals, bot_pairs, summed_fit, unbounded_ends
from arena.record import MatchRecord, Tallied
from arena.runner import VERDICTS
from arena.tallied import TallyEntry, tally_entry
from arena.tournament import TournamentSpec

T = TypeVar("T")

CSV_COLUMNS = (
    "rank",
    "rank_best",
    "rank_worst",
    "bot",
    "rating",
    "ci_low",
    "ci_high",
    "elo",
    "games",
    "wins",
    "draws",
    "losses",
    "mean_rank",
    "mean_score",
    "failures",
    "mean_decision_ms",
)


RESAMPLES = 200
"""Bootstrap resamples of a published board."""


def group_win_matrices(spec: TournamentSpec, records: Sequence[MatchRecord]) -> np.ndarray:
    """Win matrices per duplicate group, shape (groups, bots, bots): :meth:`Tally.group_wins`
    of the records, dense."""
    tally = Tally(spec, by_group=True)
    for record in records:
        tally.add(record)
    return tally.group_win_matrices()


class _Outcome:
    """One way a match can end for the sums that are whole numbers or halves (who sat where,
    the ranks): the win matrix, games, ranks, 2-player results, seats' ranks. A tally counts
    each outcome's matches and adds them into those sums when they are read (:meth:`Tally._settle`):
    sums of whole numbers and halves are exact in floating point, so when they are added does
    not change them, and a record costs a count, not a dozen additions."""

    __slots__ = ("count", "groups", "pairs", "ranks", "seat_bots")

    def __init__(self, seat_bots: tuple[int, ...], ranks: tuple[int, ...]) -> None:
        self.seat_bots = seat_bots
        self.ranks = ranks
        self.pairs = bot_pairs(seat_bots, ranks)
        self.count = 0
        self.groups: dict[int, int] | None = None  # group number -> count (a tally by group)


class _Settled(Generic[T]):
    """A :class:`Tally` sum kept as outcome counts until read: reading it adds them in first."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = "_" + name

    def __get__(self, tally: Tally, owner: type | None = None) -> list[T]:
        tally._settle()
        return getattr(tally, self.name)


class _GroupEntries:
    """A :class:`Tally`'s win matrices by duplicate group, as entries (group number, cell,
    wins): a group holds only its few bots' pairs, so they grow with the matches, not with the
    groups times the bots squared (a 64-entrant tournament's dense matrices were 4,096 numbers
    a group). Entries of one (group, cell) are added up when read (:meth:`group_wins`); their
    sums are of whole numbers and halves, exact in any order."""

    __slots__ = ("bots", "cells", "kept", "numbers", "raw", "wins")

    def __init__(self, bots: int) -> None:
        self.bots = bots
        self.numbers: set[int] = set()  # every group seen, also one with no entry
        # Entries added since the last read: group number, row bot * bots + column bot, wins.
        self.raw = array("q")
        self.cells = array("q")
        self.wins = array("d")
        # Entries up to the last read, one per (group number, cell): the three columns.
        self.kept: tuple[np.ndarray, np.ndarray, np.ndarray] = (
            np.zeros(0, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
            np.zeros(0),
        )

    def __len__(self) -> int:
        return len(self.numbers)

    def add(self, number: int, pairs: list[tuple[int, int, float]], count: int) -> None:
        """``count`` matches of one outcome (its :func:`bot_pairs`) in group ``number``."""
        self.numbers.add(number)
        bots, raw, cells, wins = self.bots, self.raw, self.cells, self.wins
        for i, j, score in pairs:
            if score:
                raw.append(number)
                cells.append(i * bots + j)
                wins.append(count * score)
            if score != 1.0:
                raw.append(number)
                cells.append(j * bots + i)
                wins.append(count * (1.0 - score))

    def group_wins(self) -> GroupWins:
        """The groups in order of their numbers, with their entries by group, then cell."""
        kept_numbers, kept_cells, kept_wins = self.kept
        numbers = np.concatenate([kept_numbers, np.array(self.raw, dtype=np.int64)])
        cells = np.concatenate([kept_cells, np.array(self.cells, dtype=np.int64)])
        wins = np.concatenate([kept_wins, np.array(self.wins, dtype=float)])
        key = numbers * (self.bots * self.bots) + cells
        unique, where = np.unique(key, return_inverse=True)
        summed = np.bincount(where.reshape(-1), weights=wins, minlength=len(unique))
        numbers, cells = np.divmod(unique, self.bots * self.bots)
        self.kept = (numbers, cells, summed)
        self.raw, self.cells, self.wins = array("q"), array("q"), array("d")
        order = np.array(sorted(self.numbers), dtype=np.int64)
        return GroupWins(len(order), self.bots, np.searchsorted(order, numbers), cells, summed)


class Tally:
    """The leaderboard's running sums, fed one record at a time.

    Everything the board shows is a sum over matches (games, wins, ranks, scores, failures,
    decision times, the seat statistics, the pairwise win matrix), so a live view adds each new
    record once and never re-reads the old ones: its memory is O(bots²), not O(matches). The
    ratings are refitted from the summed win matrix (a sufficient statistic of the
    Bradley–Terry likelihood: the same ratings as a fit over every record), at a cost that does
    not grow with the matches. Only the published board's bootstrap needs the win matrix of
    every duplicate group (``by_group=True``), kept as entries of the pairs each group played
    (:class:`_GroupEntries`): O(matches), not O(groups x bots²). The online Elo follows the order records are
    added in (:func:`build` adds them in schedule order).
    """

    SETTLE_OUTCOMES = 4096
    """Outcomes counted before they are added into the sums (memory stays bounded); and, by
    group, 16 times as many (outcome, group) counts."""

    def __init__(self, spec: TournamentSpec, *, by_group: bool = False) -> None:
        self.spec = spec
        bots = len(spec.bots)
        self.matches = 0
        self.bot_index = {name: i for i, name in enumerate(spec.bots)}
        # Python lists, not arrays: adding to an array element costs several times a list's
        # (the sums are made arrays when a board is built).
        self._wins = [[0.0] * bots for _ in range(bots)]
        self.by_group: _GroupEntries | None = _GroupEntries(bots) if by_group else None
        self.groups: set[Any] = set()
        self.elo = OnlineElo(bots)
        self._games = [0] * bots
        self._won = [0] * bots
        self._draws = [0] * bots
        self._losses = [0] * bots
        self._rank_sum = [0] * bots
        # Exact sums (whole numbers, fractions where a score is not whole), so a board fed its
        # records in any order shows the same means: a float sum's last bits can flip a rounded
        # figure (a CI run's failure, for decision times).
        self.score_sum: list[int | float | Fraction] = [0] * bots
        self.failures: list[dict[str, int]] = [defaultdict(int) for _ in range(bots)]
        self.decision_ms = [0] * bots  # nanoseconds
        self.decisions = [0] * bots
        self._seat_rank_sum = [0.0] * spec.players
        # A shared win's part of one win, in whole units: 1/k of lcm(1..players) for k winners.
        self._win_unit = math.lcm(*range(1, spec.players + 1))
        self._seat_win_units = [0] * spec.players
        self._outcomes: dict[tuple[tuple[int, ...], tuple[int, ...]], _Outcome] = {}
        self._counted = False  # some outcome has a count not yet in the sums
        self._group_counts = 0  # (outcome, group) counts not yet in the groups' matrices

    def add(self, record: Tallied) -> None:
        self.add_entry(self.entry(record))

    def entry(self, record: Tallied) -> TallyEntry:
        """What the sums take from a record."""
        return tally_entry(record, self.bot_index)

    def add_entry(self, entry: TallyEntry) -> None:
        self.matches += 1
        self.groups.add(entry.group)
        seat_bots, ranks = entry.seat_bots, entry.ranks
        key = (seat_bots, ranks)
        outcome = self._outcomes.get(key)
        if outcome is None:
            if len(self._outcomes) >= self.SETTLE_OUTCOMES:
                self._settle(forget=True)
            outcome = self._outcomes[key] = _Outcome(*key)
        if self.by_group is not None:
            number = entry.group_number
            if outcome.groups is None or number not in outcome.groups:
                if self._group_counts >= self.SETTLE_OUTCOMES * 16:
                    self._settle()
                self._group_counts += 1
            if outcome.groups is None:
                outcome.groups = {}
            outcome.groups[number] = outcome.groups.get(number, 0) + 1
        outcome.count += 1
        self._counted = True
        self.elo.update_bots(outcome.pairs, len(ranks))
        # Added record by record in the order they come (not whole numbers: when they are added
        # would change the last bits; decision times are summed in whole nanoseconds, so a live
        # board fed in any order and the rebuilt one show the same mean: a float sum's last bits
        # flipped its third decimal, a CI run).
        score_sum, decision_ms, decisions = self.score_sum, self.decision_ms, self.decisions
        scores, ms, made = entry.scores, entry.decision_ms, entry.decisions
        winners = 0
        for seat, b in enumerate(seat_bots):
            score = scores[seat]
            total = score_sum[b] + (score if type(score) is int else _exact(score))
            if type(total) is not float and not -_FLOAT_MAX <= total <= _FLOAT_MAX:
                total = math.inf if total > 0 else -math.inf  # past a float's range, as a float sum is
            score_sum[b] = total
            decision_ms[b] += round(ms[seat] * 1_000_000)
            decisions[b] += made[seat]
            if ranks[seat] == 1:
                winners += 1
        for seat, rank in enumerate(ranks):
            if rank == 1:
                self._seat_win_units[seat] += self._win_unit // winners
        for bot, verdict in entry.failures:
            self.failures[bot][verdict] += 1

    def _settle(self, *, forget: bool = False) -> None:
        """Add the counted outcomes into the sums (``forget``: and drop them)."""
        if self._counted:
            wins, games, rank_sum, seat_rank_sum = self._wins, self._games, self._rank_sum, self._seat_rank_sum
            two = self.spec.players == 2
            for outcome in self._outcomes.values():
                n = outcome.count
                if not n:
                    continue
                outcome.count = 0
                for i, j, score in outcome.pairs:
                    wins[i][j] += n * score
                    wins[j][i] += n * (1.0 - score)
                if outcome.groups:
                    assert self.by_group is not None
                    for number, count in outcome.groups.items():
                        self.by_group.add(number, outcome.pairs, count)
                    outcome.groups = None
                ranks = outcome.ranks
                for seat, b in enumerate(outcome.seat_bots):
                    rank = ranks[seat]
                    games[b] += n
                    rank_sum[b] += n * rank
                    seat_rank_sum[seat] += n * rank
                    if two:
                        other = ranks[1 - seat]
                        if rank < other:
                            self._won[b] += n
                        elif rank == other:
                            self._draws[b] += n
                        else:
                            self._losses[b] += n
            self._counted = False
            self._group_counts = 0
        if forget:
            self._outcomes.clear()

    # The sums kept as counts until read.
    games = _Settled[int]()
    won = _Settled[int]()
    draws = _Settled[int]()
    losses = _Settled[int]()
    rank_sum = _Settled[int]()
    seat_rank_sum = _Settled[float]()

    @property
    def wins(self) -> np.ndarray:
        """The summed pairwise win matrix (row bot's wins against the column bot)."""
        self._settle()
        return np.array(self._wins)

    def group_wins(self) -> GroupWins:
        """The win matrix of every duplicate group (in order of the groups' numbers), sparse."""
        assert self.by_group is not None, "a Tally made without by_group has no group matrices"
        self._settle()
        return self.by_group.group_wins()

    def group_win_matrices(self) -> np.ndarray:
        """:meth:`group_wins` as a dense (groups, bots, bots) array."""
        return self.group_wins().dense()

    def board(self, *, resamples: int = 0) -> dict[str, Any]:
        """The leaderboard as a JSON-ready dict (rows sorted by rating, best first); with
        ``resamples`` > 0, bootstrap intervals over duplicate groups (needs ``by_group``)."""
        spec = self.spec
        names = list(spec.bots)
        self._settle()
        if resamples > 0:
            fit = bootstrap_intervals(
                self.group_wins(), names=names, resamples=resamples, seed=spec.seed, players=spec.players
            )
        else:
            groups = len(self.by_group) if self.by_group is not None else len(self.groups)
            fit = summed_fit(self.wins, groups, names=names, players=spec.players)
        games = self.games
        open_low, open_high = unbounded_ends(self.wins)
        rows = []
        for b in range(len(names)):
            row: dict[str, Any] = {
                "bot": names[b],
                "rating": round(float(fit.ratings[b]), 1),
                "ci_low": _end(fit.ci_low[b], open_low[b]),
                "ci_high": _end(fit.ci_high[b], open_high[b]),
                "elo": round(self.elo.ratings[b], 1),
                "games": games[b],
                "mean_rank": round(self.rank_sum[b] / games[b], 3) if games[b] else None,
                "mean_score": round(_mean(self.score_sum[b], games[b]), 3) if games[b] else None,
                "failures": {v: self.failures[b][v] for v in VERDICTS if self.failures[b].get(v)},
                "mean_decision_ms": round(self.decision_ms[b] / 1e6 / made, 3) if (made := self.decisions[b]) else None,
            }
            if spec.players == 2:
                row.update(wins=self.won[b], draws=self.draws[b], losses=self.losses[b])
            rows.append(row)
        warning = in_board_order(rows, spec.players, fit.warning)
        for position, row in enumerate(rows, 1):
            row["rank"] = position
        add_rank_ranges(rows)
        total = self.matches
        return {
            "game": spec.game,
            "players": spec.players,
            "matches": total,
            "groups": len(self.groups),
            "leaderboard": rows,
            "seats": [
                {
                    "seat": s,
                    "win_rate": round(self._seat_win_units[s] / (self._win_unit * total), 4) if total else None,
                    "mean_rank": round(self.seat_rank_sum[s] / total, 4) if total else None,
                }
                for s in range(spec.players)
            ],
            "interval": interval_of(fit.method),
            "warning": warning,
        }


_FLOAT_MAX = sys.float_info.max
"""An exact sum beyond it is infinite: as an int it could not meet a later Infinity (a record
file's) nor become a float for the mean (OverflowError from --resume; an outside probe)."""


def _exact(score: float) -> int | float | Fraction:
    """A score to sum exactly: a whole one as an int (Get Bit!'s 4.0), else a Fraction; one past
    a float's range (a record file's Infinity or NaN, never a game's) stays a float, which the sum
    then is, as before (Fraction refuses them)."""
    if score.is_integer():
        return int(score)
    return Fraction(score) if math.isfinite(score) else score


def _mean(total: int | float | Fraction, count: int) -> float:
    return total / count if isinstance(total, float) else float(Fraction(total, count))


def interval_of(method: str) -> dict[str, Any]:
    """What a board's ``ci_low``..``ci_high`` are (a ratings probe: only the CLI's column header
    said 95%)."""
    return {"level": 0.95, "method": method, "scale": "Elo: 400 points = 10:1 odds, field mean 1500"}


def in_board_order(rows: list[dict[str, Any]], players: int, warning: str | None) -> str | None:
    """Sort a board's rows: by rating, or with one player a match by mean score (no match
    compares two bots: no rating says anything, and every rank range is 1-N, the intervals
    open); returns the board's warning, which then says so."""
    if players == 1:
        rows.sort(key=lambda r: (-(r["mean_score"] if r.get("mean_score") is not None else -math.inf), r["bot"]))
        return ONE_PLAYER
    rows.sort(key=lambda r: (-r["rating"], r["bot"]))
    return warning


ONE_PLAYER = (
    "one-player matches compare no bots: there are no ratings (every interval is open), "
    "and the bots are listed by mean score"
)


def _end(value: float, unbounded: bool) -> float | None:
    """An interval's end as a board keeps it: None where the results set no bound
    (:func:`arena.ratings.unbounded_ends`; JSON has no infinity)."""
    return None if unbounded else round(float(value), 1)


class ScheduleOrderTally:
    """A :class:`Tally` fed records in any order that adds them in schedule order (the order
    :func:`build` adds them in, which the online Elo follows): each record as soon as every
    record before it in the schedule has come; the rest, in order, at :meth:`board`. A run adds
    each record as it lands, so the board at the end costs only the fit, not a pass over every
    record. Holds the out-of-order records only (a window's worth in a distributed run). For a
    tournament's records (each schedule index once) the board is :func:`build`'s, exactly.

    ``stop_after`` hears each entry as it is added in schedule order and says whether the board
    ends there (an SPRT that has decided): later entries are not counted, whenever they came,
    so the board is the same however the records arrive (any number of processes)."""

    def __init__(
        self,
        spec: TournamentSpec,
        *,
        resamples: int = RESAMPLES,
        stop_after: Callable[[TallyEntry], bool] | None = None,
    ) -> None:
        self.tally = Tally(spec, by_group=resamples > 0)
        self.resamples = resamples
        self.next = 0  # the schedule index the tally waits for
        self.waiting: dict[int, TallyEntry] = {}
        self.stop_after = stop_after
        self.stopped = False  # stop_after said so: nothing more is counted

    def add(self, record: Tallied) -> None:
        self.add_entry(self.entry(record))

    def entry(self, record: Tallied) -> TallyEntry:
        """What the sums take from a record (:meth:`Tally.entry`)."""
        return self.tally.entry(record)

    def add_entry(self, entry: TallyEntry) -> None:
        """:meth:`add` of a record's entry (as a worker computed it: :mod:`arena.tallied`)."""
        if self.stopped:
            return
        if entry.schedule_index != self.next:
            self.waiting[entry.schedule_index] = entry
            return
        self._take(entry)
        while not self.stopped and (after := self.waiting.pop(self.next, None)) is not None:
            self._take(after)
        if self.stopped:
            self.waiting.clear()  # past the end the board stopped at

    def _take(self, entry: TallyEntry) -> None:
        self._count(entry)
        self.next += 1

    def _count(self, entry: TallyEntry) -> None:
        self.tally.add_entry(entry)
        if self.stop_after is not None and self.stop_after(entry):
            self.stopped = True

    def board(self) -> dict[str, Any]:
        # After a gap (a run stopped short): the rest in order, heard by stop_after too, as the
        # workers' finalisation counts a tournament with a match missing (a review probe: a
        # cancelled --broker SPRT run's client board and stored board differed).
        for index in sorted(self.waiting):
            if self.stopped:
                break
            self._count(self.waiting[index])
        self.waiting.clear()
        return self.tally.board(resamples=self.resamples)


def build(spec: TournamentSpec, records: Sequence[MatchRecord], *, resamples: int = RESAMPLES) -> dict[str, Any]:
    """The leaderboard as a JSON-ready dict (rows sorted by rating, best first)."""
    tally = Tally(spec, by_group=resamples > 0)
    for record in sorted(records, key=lambda r: int(r.tournament.get("index", 0))):
        tally.add(record)
    return tally.board(resamples=resamples)


def rating_interval(row: Mapping[str, Any]) -> tuple[float, float]:
    """The row's 95% interval as (low, high); unbounded, (-inf, inf), when it has none: no
    ``ci_low``/``ci_high`` (or not finite numbers, or low above high), or no game played (its
    interval would be the prior's alone). An unbounded interval lies wholly above or below no
    other, so such a bot may hold any rank and takes no rank from anyone. One open end (None:
    a bot that never lost has no upper bound) leaves the other: that bot is still above every
    bot whose interval lies wholly below its low end."""
    low, high = _end_of(row.get("ci_low"), -math.inf), _end_of(row.get("ci_high"), math.inf)
    if row.get("games", 1) == 0 or low is None or high is None or low > high:
        return -math.inf, math.inf
    return low, high


def _end_of(value: Any, unbounded: float) -> float | None:
    """An interval's end as a float: ``unbounded`` (-inf for a low end, +inf for a high one)
    when it is open (None or absent, or that infinity), None when it is no bound at all (NaN,
    the other infinity, not a number): the interval is then unknown."""
    if value is None or value == unbounded:
        return unbounded
    return _finite(value)


def _finite(value: Any) -> float | None:
    """The value as a float if it is a finite number, else None."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def rank_ranges(rows: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """Each row's (best, worst) rank the intervals allow (the rule of LMSYS Chatbot Arena):
    best = 1 + the bots whose interval lies wholly above (their low > this high), worst = N -
    the bots whose interval lies wholly below (their high < this low). Overlapping intervals
    do not order two bots, so their positions by rating are not a finding. A row's own interval
    is never above or below itself (low <= high), so it need not be left out of the counts."""
    intervals = [rating_interval(row) for row in rows]
    lows = sorted(low for low, _ in intervals)
    highs = sorted(high for _, high in intervals)
    n = len(intervals)
    return [(1 + n - bisect_right(lows, high), n - bisect_left(highs, low)) for low, high in intervals]


def add_rank_ranges(rows: Sequence[dict[str, Any]]) -> None:
    """Set each row's ``rank_best`` and ``rank_worst`` (:func:`rank_ranges`)."""
    for row, (best, worst) in zip(rows, rank_ranges(rows), strict=True):
        row["rank_best"], row["rank_worst"] = best, worst


def to_csv(board: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in board["leaderboard"]:
        flat = {k: row.get(k, "") for k in CSV_COLUMNS}
        flat["failures"] = ";".join(f"{k}={v}" for k, v in row["failures"].items())
        writer.writerow({k: "" if v is None else v for k, v in flat.items()})
    return out.getvalue()


def tournament_summary(spec: TournamentSpec, records: Iterable[MatchRecord]) -> dict[str, Any]:
    """What a game's leaderboard keeps of one tournament (JSON-ready), computed once when the
    tournament ends: its bots, the win matrix of every duplicate group (the bootstrap resamples
    them), the games of each bot, each bot's sums of ranks, scores and 2-player results and its
    failures by verdict.
    A game's board is refitted from these alone, so it never re-reads (or loses, once their
    retention ends) the records of earlier tournaments."""
    tally = Tally(spec, by_group=True)
    for record in records:
        tally.add(record)
    return summary_of(tally)


def summary_of(tally: Tally) -> dict[str, Any]:
    """:func:`tournament_summary` from the running sums of the tournament's records (a
    :class:`Tally` made ``by_group``): a finalising worker reads the records once, in chunks,
    for both the board and the summary."""
    assert tally.by_group is not None, "a summary needs the duplicate groups' win matrices"
    bots = list(tally.spec.bots)
    groups = tally.group_wins()
    tallies: dict[str, dict[str, float]] = {}
    for b, name in enumerate(bots):
        if tally.games[b]:  # a bot that never played has no tally
            won, drew, lost = (tally.won[b], tally.draws[b], tally.losses[b]) if tally.spec.players == 2 else (0, 0, 0)
            sums = (tally.games[b], tally.rank_sum[b], tally.score_sum[b], won, drew, lost)
            tallies[name] = {key: float(value) for key, value in zip(TALLY_KEYS, sums, strict=True)}
    failures = {
        name: {v: tally.failures[b][v] for v in VERDICTS if tally.failures[b].get(v)}
        for b, name in enumerate(bots)
        if any(tally.failures[b].values())
    }
    return {
        "bots": bots,
        "players": tally.spec.players,  # the game board's normal intervals widen for more (ratings)
        "matches": tally.matches,
        "games": list(tally.games),
        "tallies": tallies,
        "failures": failures,
        # The groups' entries (group, row bot * bots + column bot, wins), in full (float64),
        # each column zlib-compressed and base64: a refit gives the numbers a fit over the
        # records gives. A summary stored before kept dense matrices under "groups".
        "group_entries": {
            "groups": _packed(groups.groups_of, "<i8"),
            "cells": _packed(groups.cells, "<i8"),
            "wins": _packed(groups.wins, "<f8"),
        },
        "group_count": groups.count,
    }


def _packed(column: np.ndarray, dtype: str) -> str:
    return base64.b64encode(zlib.compress(column.astype(dtype).tobytes())).decode()


def _unpacked(text: str, dtype: str) -> np.ndarray:
    return np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype=dtype)


TALLY_KEYS = ("n", "rank", "score", "w", "d", "l")


def summary_wins(summary: dict[str, Any]) -> GroupWins:
    """The duplicate groups' win matrices a summary keeps (sparse), of either stored form."""
    bots = len(summary["bots"])
    count = int(summary["group_count"])
    entries = summary.get("group_entries")
    if entries is None:  # stored before summaries kept entries: dense (groups, bots, bots)
        return GroupWins.of(_unpacked(summary["groups"], "<f8").reshape(count, bots, bots))
    return GroupWins(
        count,
        bots,
        _unpacked(entries["groups"], "<i8"),
        _unpacked(entries["cells"], "<i8"),
        _unpacked(entries["wins"], "<f8"),
    )


def summary_groups(summary: dict[str, Any]) -> np.ndarray:
    """:func:`summary_wins` as a dense (groups, bots, bots) array."""
    return summary_wins(summary).dense()


def renamed_summary(summary: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The summary with bots renamed (``names``: old -> new; others kept)."""
    return {
        **summary,
        "bots": [names.get(b, b) for b in summary["bots"]],
        "tallies": {names.get(b, b): t for b, t in summary["tallies"].items()},
        "failures": {names.get(b, b): f for b, f in summary.get("failures", {}).items()},
    }


def _by_verdict(counts: dict[str, int]) -> dict[str, int]:
    """Failure counts in the verdicts' order (as a tournament's board has them), zeros left out;
    a verdict this version does not know (a newer worker's) after them."""
    known = {v: counts[v] for v in VERDICTS if counts.get(v)}
    return known | {v: n for v, n in sorted(counts.items()) if v not in known and n}


def _content_order(summary: dict[str, Any]) -> tuple[str, bytes, bytes]:
    """A summary's place among a game's: its bots, seats and games, its summed wins, then its
    groups' wins entry by entry (two nightly tournaments of the same bots tied on the sums and
    kept the caller's order; an outside review). The same in either stored form."""
    head = json.dumps([summary["bots"], summary.get("players", 2), summary["matches"], summary["games"]])
    wins = summary_wins(summary)
    kept = wins.wins != 0
    groups, cells, values = wins.groups_of[kept], wins.cells[kept], wins.wins[kept]
    order = np.lexsort((cells, groups))
    entries = np.stack([groups[order].astype("<f8"), cells[order].astype("<f8"), values[order].astype("<f8")])
    return head, wins.summed().tobytes(), entries.tobytes()


def across(game: str, summaries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One leaderboard for a game over several tournaments (their :func:`tournament_summary`):
    the union of their bots, every duplicate group of every tournament, one Bradley–Terry fit
    with bootstrap intervals, and each bot's wins/draws/losses (2-player matches), mean rank,
    mean score and failures by verdict over all of them (a summary stored before summaries
    kept failures counts none)."""
    # In an order of their own, not the caller's: the bootstrap draws groups by position and the
    # bots are numbered as they first appear, so reversing two summaries moved an end by 7.5
    # points (an outside statistician). Their content orders them, the same in either stored form.
    summaries = sorted(summaries, key=_content_order)
    index: dict[str, int] = {}  # every bot, in the order they first appear
    for summary in summaries:
        for bot in summary["bots"]:
            index.setdefault(bot, len(index))
    names = list(index)
    parts: list[tuple[GroupWins, list[int]]] = []
    games = [0] * len(names)
    tallies: dict[str, dict[str, float]] = {}
    failures: dict[str, dict[str, int]] = {}
    for summary in summaries:
        for bot, counts in summary.get("failures", {}).items():
            total_failures = failures.setdefault(bot, {})
            for verdict, count in counts.items():
                total_failures[verdict] = total_failures.get(verdict, 0) + int(count)
        mapped = [index[b] for b in summary["bots"]]
        parts.append((summary_wins(summary), mapped))
        for b, count in zip(mapped, summary["games"], strict=True):
            games[b] += count
        for bot, tally in summary["tallies"].items():
            total = tallies.setdefault(bot, dict.fromkeys(TALLY_KEYS, 0.0))
            for key in TALLY_KEYS:
                total[key] += tally[key]
    if not parts:
        return {"game": game, "tournaments": 0, "leaderboard": [], "warning": None}
    # Every tournament's groups, their bots numbered among all: entries, not dense blocks of
    # every bot ever seen (two 64-entrant summaries with different bots took 19 s and 127 MB).
    joined = GroupWins.joined(parts, len(names))
    # Seats per match: the most of any tournament (a summary stored before it was kept: 2).
    players = max(int(summary.get("players", 2)) for summary in summaries)
    fit = bootstrap_intervals(joined, names=names, players=players)
    open_low, open_high = unbounded_ends(joined.summed())
    rows: list[dict[str, Any]] = [
        {
            "bot": name,
            "rating": round(float(fit.ratings[i]), 1),
            "ci_low": _end(fit.ci_low[i], open_low[i]),
            "ci_high": _end(fit.ci_high[i], open_high[i]),
            "games": games[i],
            "failures": _by_verdict(failures.get(name, {})),
        }
        for i, name in enumerate(names)
    ]
    for row in rows:
        counted = tallies.get(row["bot"])
        if counted and counted["n"]:
            row.update(
                wins=int(counted["w"]),
                draws=int(counted["d"]),
                losses=int(counted["l"]),
                mean_rank=round(counted["rank"] / counted["n"], 3),
                mean_score=round(counted["score"] / counted["n"], 3),
            )
    # A one-player game's board over tournaments listed its bots by name, under the fit's false
    # "no games have been played" (an outside probe): ordered as a tournament's board is.
    warning = in_board_order(rows, players, fit.warning)
    for position, row in enumerate(rows, 1):
        row["rank"] = position
    add_rank_ranges(rows)
    return {
        "game": game,
        "tournaments": len(summaries),
        "matches": sum(int(s["matches"]) for s in summaries),
        "leaderboard": rows,
        "interval": interval_of(fit.method),
        "warning": warning,
    }
