"""Ratings: online Elo for live views, and the published Bradley–Terry leaderboard.

Pairwise outcomes
    Every match is decomposed into pairwise outcomes from its final ranking: for each pair of
    seats held by different bots, the better-ranked bot wins, equal ranks are a draw (shared
    victories are draws). A 2-player match is one pairwise outcome.

Online Elo (:class:`OnlineElo`)
    The standard logistic update, K shared across the k-1 opponents of a multiplayer match.

Bradley–Terry (:func:`fit_bradley_terry`)
    The maximum-likelihood strengths under P(i beats j) = p_i / (p_i + p_j), fitted by damped
    Newton steps, with Hunter's (2004) MM algorithm where they fail (and Newton again where MM
    stops short; a fit that still does is logged); a draw counts half a win for each side. Ratings are
    ``400 * log10(p)`` shifted to a mean of 1500, so a 400-point gap means 10:1 odds.

    The MLE exists only when the "beat or drew" graph is strongly connected (Ford, 1957): a bot
    that never lost or never won has no finite rating, and groups of bots that never met cannot
    be placed on one scale. :func:`connectivity_problem` names the problem; the fit then adds one
    virtual draw per bot against a phantom at the mean (a weak prior) so finite numbers can still
    be shown, and the leaderboard carries the warning.

Confidence intervals (:func:`bootstrap_intervals`)
    Bias-corrected percentile bootstrap (Efron's BC) that resamples whole duplicate groups (all
    seat rotations of one deal), never single matches: games of one group share the deal and
    are not independent. The groups are kept sparse (:class:`GroupWins`: entries of the pairs
    each group played) and each resample's win matrix is a weighted count of the entries, so a
    resample costs the entries and one fit, not the groups times the bots squared; the sums are
    exact (whole numbers and halves), the same bits as dense matrices gave.

    The maximum-likelihood ratings spread out more than the truth with little data, and their
    resamples more still, so plain percentiles covered 87% (15 groups), 91% (45) and 93-94%
    (150) where 95% was promised. BC moves both ends by the share of resamples below the
    estimate (z0): 91%, 96% and 95-96% on the same simulations (``python -m
    bench.ratings_honesty coverage``). The ends are quantiles at unbiased plotting positions
    (``method="weibull"``: the k-th of B sorted values sits at k / (B + 1)); numpy's default
    positions alone made 200 resamples a 94.1% interval.

    For a bot in fewer than ``TRUSTED_BOOTSTRAP_GROUPS`` groups, and on a side where every
    resample repeats a bot's estimate (it won or lost every game, or every group came out
    alike), the interval also takes in the normal one below around the same rating: the
    bootstrap alone covered 84-91% with 5-15 groups, and gave zero widths to boards of 5 and 10
    groups whose duplicate pairs all split 1-1 (a ratings probe). The groups are the bot's own,
    not the board's: 20 entrants in a sample of 30 groups, or a newcomer on a game's board of
    thousands, play a few each, and the bootstrap alone covered them 68-90% (resamples that
    leave the bot out fall back to the prior; an outside statistician's probe).

    With fewer than ``MIN_BOOTSTRAP_GROUPS`` groups the bootstrap cannot measure anything (one
    group resamples to itself: a zero-width interval that looks like certainty). Then the
    interval comes from the curvature of the regularised likelihood (the fit with one virtual
    draw per bot against the mean, a normal approximation) for the rating as shown (strength
    minus the mean strength), which is wide when there are few games, and the fit says so in
    its warning. A live board (no bootstrap) shows the same normal interval, which treats the
    games as independent; its warning says the final bootstrap replaces it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)

BASE = 1500.0
SCALE = 400.0 / math.log(10.0)  # rating points per natural-log unit of strength
MIN_BOOTSTRAP_GROUPS = 5
"""Below this many duplicate groups the bootstrap has too few distinct resamples to mean much."""
TRUSTED_BOOTSTRAP_GROUPS = 30
"""A bot in fewer groups than this gets an interval never narrower than the normal one: with few
groups it covered 84-91% (a ratings probe's simulations), 68-90% for bots in 2-8 groups of boards
of more (an outside statistician's probe), and groups that all came out alike (a
strong seat advantage splits every duplicate pair 1-1) resample to the data itself, a zero width."""
Z95 = 1.959963984540054
TIED_POINTS = 1e-6
"""A resample's rating this close to the estimate is a tie in the bootstrap's bias correction
(fits converge to about 1e-8 points)."""


# --------------------------------------------------------------------------------------------
# Pairwise outcomes


def pairwise_scores(ranks: Sequence[int]) -> list[tuple[int, int, float]]:
    """(seat a, seat b, score of a) for each pair a < b: 1 win, 0.5 draw, 0 loss."""
    out = []
    for a in range(len(ranks)):
        for b in range(a + 1, len(ranks)):
            score = 1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0
            out.append((a, b, score))
    return out


def bot_pairs(seat_bots: Sequence[int], ranks: Sequence[int]) -> list[tuple[int, int, float]]:
    """(bot i, bot j, score of i) for each pair of seats holding different bots."""
    return [
        (seat_bots[a], seat_bots[b], score) for a, b, score in pairwise_scores(ranks) if seat_bots[a] != seat_bots[b]
    ]


def outcome_matrix(matches: Iterable[tuple[Sequence[int], Sequence[int]]], bots: int) -> np.ndarray:
    """W[i, j] = wins of bot i over bot j (draws count 0.5 each), from (bot per seat, ranks)."""
    wins = np.zeros((bots, bots))
    for seat_bots, ranks in matches:
        for i, j, score in bot_pairs(seat_bots, ranks):
            wins[i, j] += score
            wins[j, i] += 1.0 - score
    return wins


# --------------------------------------------------------------------------------------------
# Online Elo


class OnlineElo:
    """Incremental Elo (K=16 by default; multiplayer by pairwise decomposition)."""

    def __init__(self, bots: int, k: float = 16.0) -> None:
        self.k = k
        self.ratings = [BASE] * bots

    def update(self, seat_bots: Sequence[int], ranks: Sequence[int]) -> None:
        self.update_bots(bot_pairs(seat_bots, ranks), len(ranks))

    def update_bots(self, pairs: list[tuple[int, int, float]], seats: int) -> None:
        """Move the ratings by one match, given as its :func:`bot_pairs` (a tally keeps them per
        outcome). Each pair sees the ratings from before the match."""
        ratings = self.ratings
        if len(pairs) == 1:  # two seats: the pair's change is the whole of each bot's
            i, j, score = pairs[0]
            expected = 1.0 / (1.0 + 10 ** ((ratings[j] - ratings[i]) / 400.0))
            change = self.k / max(seats - 1, 1) * (score - expected)
            ratings[i] += change
            ratings[j] -= change
            return
        opponents = max(seats - 1, 1)
        delta: dict[int, float] = {}
        for i, j, score in pairs:
            expected = 1.0 / (1.0 + 10 ** ((ratings[j] - ratings[i]) / 400.0))
            change = self.k / opponents * (score - expected)
            delta[i] = delta.get(i, 0.0) + change
            delta[j] = delta.get(j, 0.0) - change
        for bot, moved in delta.items():  # only the match's bots move (the others would add 0.0)
            ratings[bot] += moved


# --------------------------------------------------------------------------------------------
# Bradley–Terry


def connectivity_problem(wins: np.ndarray, names: Sequence[str]) -> str | None:
    """Why the MLE does not exist (None when every bot can be placed on one scale).

    Row and column sums and the search are whole-array operations: a bootstrap checks every
    resample, and a Python loop over the bots made that a cost per bot on top of the fit."""
    n = len(names)
    if n < 2:
        return None
    won = wins.sum(axis=1)
    lost = wins.sum(axis=0)
    if not won.any():  # nothing played yet (a tournament cancelled at once): not one bot's lack
        return "no games have been played"
    # The first bot, in order, that fails a check; its checks in this order.
    bad = np.flatnonzero((won == 0) | (lost == 0))
    if bad.size:
        i = int(bad[0])
        if won[i] + lost[i] == 0:
            return f"bot {names[i]} has no games against the others"
        if won[i] == 0:
            return f"bot {names[i]} never won (or drew) a game: its rating has no lower bound"
        return f"bot {names[i]} never lost (or drew) a game: its rating has no upper bound"
    # Strong connectivity of "i scored against j": reachable from 0 both ways.
    beat = wins > 0
    for graph in (beat, beat.T):
        seen = np.zeros(n, dtype=bool)
        seen[0] = True
        frontier = seen.copy()
        while frontier.any():  # one breadth-first layer a step
            reached = graph[frontier].any(axis=0) & ~seen
            seen |= reached
            frontier = reached
        if not seen.all():
            apart = [names[int(i)] for i in np.flatnonzero(~seen)]
            return f"the results do not connect all bots ({', '.join(apart)} cannot be compared with the rest)"
    return None


def unbounded_ends(wins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which bots' 95% intervals the results leave open, below and above: a bot that never won
    (or drew) a game against another has no lower bound, one that never lost (or drew) none
    above, one with no game against the others (every bot of a one-player game) neither. The
    fit's numbers there are the prior's (one virtual draw against the mean), not the data's, so
    a board shows those ends as open (``None``) rather than as a finite bound (it used to print
    ``1500 (1500..1500)`` for every bot of a one-player game: certainty where there is none).

    Groups of bots that never met are named by :func:`connectivity_problem`; their intervals
    stay the regularised fit's."""
    wins = np.asarray(wins, dtype=float)
    n = len(wins)
    if n < 2:
        nothing = np.zeros(n, dtype=bool)
        return nothing, nothing
    return wins.sum(axis=1) == 0, wins.sum(axis=0) == 0


class _Pairs:
    """The win matrix as the pairs that met: ``rows``, ``cols`` index every (i, j) with games
    between them (both orders), ``wins`` and ``games`` their counts. A game's board across many
    tournaments holds hundreds of bots of which each met a few dozen, so sums over the pairs
    that met cost a fraction of the full (bots, bots) arrays (and give the same sums: a pair
    that never met adds nothing)."""

    __slots__ = ("bots", "cols", "games", "rows", "total_wins", "wins")

    def __init__(self, wins: np.ndarray, prior: float) -> None:
        self.bots = wins.shape[0]
        games = wins + wins.T
        self.rows, self.cols = np.nonzero(games)
        self.wins = wins[self.rows, self.cols]
        self.games = games[self.rows, self.cols]
        self.total_wins = wins.sum(axis=1) + prior * 0.5

    def per_bot(self, values: np.ndarray) -> np.ndarray:
        """Each bot's sum of ``values`` over its pairs (row-wise)."""
        return np.bincount(self.rows, weights=values, minlength=self.bots)


def _mm(wins: np.ndarray, prior: float, iterations: int, tolerance: float, start: np.ndarray | None) -> np.ndarray:
    """Hunter's MM iterations for Bradley–Terry; returns log-strengths (mean 0).

    They start from :func:`_newton`'s optimum when it finds one: MM alone creeps (thousands of
    iterations when the bots differ a lot, tens of milliseconds a fit, and a bootstrap fits
    hundreds), while the MM steps after Newton only confirm its fixed point to ``tolerance``.
    ``start`` (log-strengths near the optimum, a bootstrap's full fit) is where Newton starts."""
    pairs = _Pairs(wins, prior)
    optimum = _newton(pairs, prior, start)
    p = np.ones(pairs.bots) if optimum is None else np.exp(optimum)
    for _ in range(iterations):
        denom = pairs.per_bot(pairs.games / (p[pairs.rows] + p[pairs.cols]))
        if prior:
            denom = denom + prior / (p + 1.0)  # virtual games against a phantom of strength 1
        new = pairs.total_wins / denom
        if not prior:  # the likelihood is scale-free without the phantom: pin the scale
            new /= math.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(p))) < tolerance:
            p = new
            break
        p = new
    else:
        # MM stopped short (with the prior it creeps along the common shift: ratings 3-427
        # points off, an outside statistician): Newton again from where it stopped, else say so.
        again = _newton(pairs, prior, np.log(p))
        if again is not None:
            p = np.exp(again)
        else:
            log.warning("the Bradley-Terry fit stopped after %d iterations short of the maximum", iterations)
    logs: np.ndarray = np.log(p)
    return logs - logs.mean()


def _log_likelihood(pairs: _Pairs, prior: float, theta: np.ndarray) -> float:
    """The log-likelihood MM maximises (each virtual game against the phantom half won)."""
    log_p = -np.logaddexp(0.0, theta[pairs.cols] - theta[pairs.rows])  # log P(i beats j)
    value = float((pairs.wins * log_p).sum())
    if prior:
        value += prior * float((0.5 * theta - np.logaddexp(0.0, theta)).sum())
    return value


def _newton(pairs: _Pairs, prior: float, start: np.ndarray | None = None, steps: int = 100) -> np.ndarray | None:
    """The maximum of :func:`_log_likelihood` in log-strength by damped Newton steps (a handful,
    where MM needs thousands), or None if they do not settle (MM then starts from scratch).
    Without the prior the likelihood ignores a common shift: the steps keep the mean at 0."""
    n, rows, cols = pairs.bots, pairs.rows, pairs.cols
    theta = np.zeros(n) if start is None else start - start.mean()
    value = _log_likelihood(pairs, prior, theta)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(theta[cols] - theta[rows]))  # P(i beats j), per pair that met
        q = 1.0 / (1.0 + np.exp(-theta))  # P(i beats the phantom)
        gradient = pairs.total_wins - pairs.per_bot(pairs.games * p) - prior * q
        pair = pairs.games * p * (1.0 - p)
        info = np.zeros((n, n))
        info[rows, cols] = -pair
        info[np.diag_indices(n)] = pairs.per_bot(pair) + prior * q * (1.0 - q)
        if not prior:
            info += 1.0 / n  # the shift the likelihood ignores: a step of mean 0
        try:
            step = np.linalg.solve(info, gradient)
        except np.linalg.LinAlgError:
            return None
        # Converged when the step's expected gain (half the Newton decrement, gradient . step)
        # is below the log-likelihood's rounding: the line search cannot tell better from worse
        # there (a fit of 5,694 games lost 5e-13 of 3521 on its last step, counted as failed,
        # and MM stopped 3 points short: an outside statistician). The step is then taken whole.
        if float(gradient @ step) <= 1e-12 * max(1.0, abs(value)):
            candidate = theta + step
            return candidate if np.all(np.isfinite(candidate)) else None
        scale = 1.0
        while True:  # halve the step until the likelihood does not fall
            candidate = theta + scale * step
            new_value = _log_likelihood(pairs, prior, candidate)
            if new_value >= value or scale < 1e-6:
                break
            scale /= 2.0
        if not np.all(np.isfinite(candidate)) or new_value < value:
            return None
        theta, value = candidate, new_value
        if np.max(np.abs(scale * step)) < 1e-12:
            return theta
    return None


def fit_bradley_terry(
    wins: np.ndarray,
    *,
    prior: float = 0.0,
    iterations: int = 10_000,
    tolerance: float = 1e-10,
    near: np.ndarray | None = None,
) -> np.ndarray:
    """Ratings (mean 1500) maximising the Bradley–Terry likelihood of the win matrix.

    ``prior`` > 0 adds that many virtual games per bot against a phantom at the mean, half won
    (used when the data are not connected; see the module docstring). ``near``: ratings close
    to the answer (a bootstrap resample's full fit), where the search starts; the answer is the
    same, reached in fewer steps.
    """
    start = None if near is None else (np.asarray(near, dtype=float) - BASE) / SCALE
    return BASE + SCALE * _mm(np.asarray(wins, dtype=float), prior, iterations, tolerance, start)


@dataclass(frozen=True)
class Fit:
    ratings: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    warning: str | None
    method: str = "bootstrap"
    """How the intervals were made: ``bootstrap``, ``bootstrap and normal`` (widened to the
    normal interval where the bootstrap could not show the spread), or ``normal``."""


class GroupWins:
    """The win matrices of duplicate groups, kept sparse: entry k adds ``wins[k]`` to cell
    ``cells[k]`` (row bot * bots + column bot) of group ``groups_of[k]``'s matrix.

    A group touches only the few bots that played in it, so a game's board over many
    tournaments holds entries in proportion to the matches, where dense (groups, bots, bots)
    blocks grew with the groups times the square of every bot ever seen. A resample's win
    matrix is a weighted count of the entries (:meth:`summed`). Groups may hold no entry (a
    match of one bot against itself) and still count in the resampling.

    Sums of a group's entries are exact when the wins are whole numbers and halves (as pairwise
    outcomes are), so they do not depend on the order they are added in: the matrices equal
    the dense path's to the last bit. For other values :meth:`of` keeps each cell's entries in
    group order, the order a dense sum over the groups adds them in."""

    __slots__ = ("bots", "cells", "count", "groups_of", "wins")

    def __init__(self, count: int, bots: int, groups_of: np.ndarray, cells: np.ndarray, wins: np.ndarray) -> None:
        self.count = count  # duplicate groups
        self.bots = bots
        self.groups_of = np.asarray(groups_of, dtype=np.intp)
        self.cells = np.asarray(cells, dtype=np.intp)
        self.wins = np.asarray(wins, dtype=float)

    @classmethod
    def of(cls, group_wins: np.ndarray) -> GroupWins:
        """From dense matrices, shape (groups, bots, bots)."""
        group_wins = np.asarray(group_wins, dtype=float)
        groups, bots = group_wins.shape[0], group_wins.shape[1]
        flat = group_wins.reshape(groups, bots * bots)
        group, cell = np.nonzero(flat)  # by group, then cell
        return cls(groups, bots, group, cell, flat[group, cell])

    @classmethod
    def joined(cls, parts: Sequence[tuple[GroupWins, Sequence[int]]], bots: int) -> GroupWins:
        """One set of groups from several (each part's groups after the previous parts'),
        each part's bots numbered by its map (local bot -> index among ``bots``)."""
        groups_of, cells, wins = [], [], []
        offset = 0
        for part, mapped in parts:
            index = np.asarray(mapped, dtype=np.intp)
            rows, columns = np.divmod(part.cells, part.bots)
            groups_of.append(part.groups_of + offset)
            cells.append(index[rows] * bots + index[columns])
            wins.append(part.wins)
            offset += part.count
        empty = [np.zeros(0, dtype=np.intp)]
        return cls(
            offset,
            bots,
            np.concatenate(groups_of or empty),
            np.concatenate(cells or empty),
            np.concatenate(wins or [np.zeros(0)]),
        )

    def groups_per_bot(self) -> np.ndarray:
        """How many groups each bot played in against another bot (an entry as winner or loser)."""
        rows, columns = np.divmod(self.cells, self.bots)
        first = self.groups_of * self.bots  # (group, bot) as one number: sparse, as the entries are
        played = np.unique(np.concatenate([first + rows, first + columns]))
        return np.bincount(played % self.bots, minlength=self.bots)

    @property
    def entries(self) -> int:
        return len(self.cells)

    @property
    def nbytes(self) -> int:
        """Bytes the entries hold."""
        return self.groups_of.nbytes + self.cells.nbytes + self.wins.nbytes

    def summed(self, multiplicity: np.ndarray | None = None) -> np.ndarray:
        """The (bots, bots) win matrix of every group taken ``multiplicity[g]`` times (once
        each without it): a bootstrap resample's, from the groups it drew."""
        weights = self.wins if multiplicity is None else multiplicity[self.groups_of] * self.wins
        summed = np.bincount(self.cells, weights=weights, minlength=self.bots * self.bots)
        return summed.reshape(self.bots, self.bots)

    def dense(self) -> np.ndarray:
        """The matrices as a (groups, bots, bots) array (for callers that read them whole)."""
        out = np.zeros((self.count, self.bots * self.bots))
        np.add.at(out, (self.groups_of, self.cells), self.wins)
        return out.reshape(self.count, self.bots, self.bots)


def bootstrap_intervals(
    group_wins: np.ndarray | GroupWins,
    *,
    names: Sequence[str],
    resamples: int = 200,
    level: float = 0.95,
    seed: int = 0,
    players: int = 2,
) -> Fit:
    """Ratings with percentile-bootstrap intervals, resampling whole duplicate groups.

    ``group_wins``: the win matrix of each duplicate group, as :class:`GroupWins` or dense, of
    shape (groups, bots, bots). Each resample's matrix is summed from the groups' entries, so
    the cost of a resample is the entries' and one fit's, whatever the number of groups.
    """
    sparse = group_wins if isinstance(group_wins, GroupWins) else GroupWins.of(group_wins)
    wins = sparse.summed()
    groups = sparse.count
    if groups < MIN_BOOTSTRAP_GROUPS or resamples <= 0:
        return summed_fit(wins, groups, names=names, level=level, players=players)
    warning = connectivity_problem(wins, names)
    prior = 1.0 if warning else 0.0
    ratings = fit_bradley_terry(wins, prior=prior)
    rng = np.random.default_rng(seed)
    samples = np.empty((resamples, len(names)))
    counts = rng.multinomial(groups, np.full(groups, 1.0 / groups), size=resamples)
    for r in range(resamples):
        resampled = sparse.summed(counts[r])
        # A resample may disconnect the data even when the full set is connected: regularise
        # those draws the same way rather than drop them (dropping would bias the interval).
        needs_prior = prior or connectivity_problem(resampled, names) is not None
        samples[r] = fit_bradley_terry(resampled, prior=1.0 if needs_prior else 0.0, tolerance=1e-8, near=ratings)
    low, high = _bias_corrected_ends(samples, ratings, level)
    low, high = np.minimum(low, ratings), np.maximum(high, ratings)
    # Where the resamples cannot show the spread (few groups; or a bot whose every resample
    # repeats the estimate on a side: it won or lost every game, or every group came out alike),
    # the interval takes in the normal one around the same rating, so it is never the false
    # certainty of an end at the rating itself.
    normal_low, normal_high = regularised_intervals(wins, level, centre=ratings, players=players)
    # Counted per bot, not on the board (see TRUSTED_BOOTSTRAP_GROUPS).
    few = sparse.groups_per_bot() < TRUSTED_BOOTSTRAP_GROUPS
    widen_low, widen_high = few | (low >= ratings - TIED_POINTS), few | (high <= ratings + TIED_POINTS)
    wider_low = np.where(widen_low, np.minimum(low, normal_low), low)
    wider_high = np.where(widen_high, np.maximum(high, normal_high), high)
    moved = bool(np.any(wider_low < low) or np.any(wider_high > high))
    return Fit(ratings, wider_low, wider_high, warning, "bootstrap and normal" if moved else "bootstrap")


def _bias_corrected_ends(samples: np.ndarray, ratings: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Efron's bias-corrected percentile interval of each column of ``samples`` (resamples x
    bots) around ``ratings``: z0 is the normal quantile of the share of resamples below the
    estimate (ties count half), the ends are the quantiles at Phi(2 z0 -+ z)."""
    resamples = samples.shape[0]
    z = Z95 if level == 0.95 else _normal_quantile(0.5 + level / 2.0)
    # A resample that drew every group once is the data itself: its fit is the estimate up to
    # the fits' tolerance, and counts as a tie (exact equality made it depend on the last bits).
    tied = np.abs(samples - ratings) <= TIED_POINTS
    share = ((samples < ratings) & ~tied).mean(axis=0) + 0.5 * tied.mean(axis=0)
    share = np.clip(share, 0.5 / resamples, 1.0 - 0.5 / resamples)  # z0 finite when all fall one side
    low = np.empty(len(ratings))
    high = np.empty(len(ratings))
    for bot, below in enumerate(share):
        z0 = _normal_quantile(float(below))
        low[bot] = np.quantile(samples[:, bot], _normal_cdf(2.0 * z0 - z), method="weibull")
        high[bot] = np.quantile(samples[:, bot], _normal_cdf(2.0 * z0 + z), method="weibull")
    return low, high


def summed_fit(wins: np.ndarray, groups: int, *, names: Sequence[str], level: float = 0.95, players: int = 2) -> Fit:
    """The fit without a bootstrap, from the summed win matrix alone (a sufficient statistic of
    the Bradley–Terry likelihood): the same ratings as :func:`bootstrap_intervals`, with the
    regularised fit's intervals. Its cost does not depend on the number of matches, so a live
    view can refit on every update from a running sum."""
    warning = connectivity_problem(wins, names)
    ratings = fit_bradley_terry(wins, prior=1.0 if warning else 0.0)
    low, high = regularised_intervals(wins, level, centre=ratings, players=players)
    if not groups:  # nothing to measure: the warning says so, and more groups is no advice to a cancel
        note = None
    elif groups < MIN_BOOTSTRAP_GROUPS:
        note = (
            f"only {groups} duplicate group{'' if groups == 1 else 's'}: too few to measure the spread; "
            f"intervals are the regularised fit's (wide by design); play more groups (--repeats)"
        )
    else:  # a live board: the published board bootstraps
        note = (
            "intervals so far treat games as independent (too narrow where one deal decides both games "
            "of a pair); the final board's bootstrap over duplicate groups replaces them"
        )
    return Fit(ratings, np.minimum(low, ratings), np.maximum(high, ratings), _join(warning, note), "normal")


def _join(*notes: str | None) -> str | None:
    return "; ".join(n for n in notes if n) or None


def regularised_intervals(
    wins: np.ndarray, level: float = 0.95, *, centre: np.ndarray | None = None, players: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Normal-approximation intervals of the regularised Bradley–Terry fit, around ``centre``
    (the ratings as shown; default the regularised fit's own: a ratings probe saw a board's
    interval centred away from its rating when the shown fit had no prior).

    The fit with one virtual draw per bot against a phantom at the mean always exists; the
    inverse of its observed information (negative Hessian of the log-likelihood in log-strength)
    is the covariance of the strengths. The virtual games keep the matrix invertible and the
    intervals finite, and they are worth one game each, so with little data the intervals stay
    wide: never the false certainty of a zero width.

    A match of ``players`` > 2 gives each seat players - 1 pairwise results that share its one
    performance, so they are not independent: their variance is (players + 1) / 3 times what
    independent games would give (equal strengths, logistic performances: each pair of them
    covaries by 1/12), and the standard errors are widened by its square root. Counted as
    independent, 5-player games' intervals covered 85-87% (a ratings probe).

    The standard error is the shown rating's: strength minus the mean strength. The strengths
    themselves are pinned only by the few virtual games against the phantom, so their own
    variance holds a common shift the ratings (anchored to a mean of 1500) do not have: it
    made 1,200 games' intervals +-400 points where the bootstrap's were +-17.
    """
    wins = np.asarray(wins, dtype=float)
    theta = _mm(wins, 1.0, 10_000, 1e-10, None)
    games = wins + wins.T
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
    pair = games * p * (1.0 - p)
    q = 1.0 / (1.0 + np.exp(-theta))  # P(i beats the phantom at 0)
    info = -pair + np.diag(pair.sum(axis=1) + q * (1.0 - q))
    centre_of = np.eye(len(theta)) - 1.0 / len(theta)  # strength minus the mean strength
    se = np.sqrt(np.maximum(np.diag(centre_of @ np.linalg.inv(info) @ centre_of), 0.0))
    se *= math.sqrt(max(1.0, (players + 1) / 3.0))
    z = Z95 if level == 0.95 else _normal_quantile(0.5 + level / 2.0)
    middle = BASE + SCALE * theta if centre is None else np.asarray(centre, dtype=float)
    return middle - z * SCALE * se, middle + z * SCALE * se


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _normal_quantile(prob: float) -> float:
    """Inverse of the standard normal CDF (bisection)."""
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if _normal_cdf(mid) < prob:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0
