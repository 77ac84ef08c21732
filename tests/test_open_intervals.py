"""Intervals the results do not bound are shown open, never as a finite bound: a bot that never
lost has no upper end, one that never won no lower end, and a bot with no game against another
(every bot of a one-player game) has neither, and so no rating. Before, the prior's finite
numbers were shown (``1500 (1500..1500)`` for every bot of a one-player game, a finite interval
beside a warning that said the rating had no upper bound)."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest
from rich.console import Console

from arena import leaderboard
from arena.cli.players import make_player
from arena.leaderboard_view import from_message, leaderboard_table, rating_text
from arena.ratings import unbounded_ends
from arena.runner import FunctionPlayer, PlayerFailure
from arena.tournament import TournamentSpec, play_scheduled, schedule
from referee import metrics, views
from referee.web import as_json
from referee.web import leaderboard_table as web_table


def test_unbounded_ends_follow_the_win_matrix():
    # b0 beat b1 and b2, never lost; b1 and b2 traded wins and lost to b0; b3 played no one.
    wins = np.array(
        [
            [0, 2, 1, 0],
            [0, 0, 1, 0],
            [0, 1, 0, 0],
            [0, 0, 0, 0],
        ],
        dtype=float,
    )
    low, high = unbounded_ends(wins)
    assert low.tolist() == [False, False, False, True]
    assert high.tolist() == [True, False, False, True]
    wins[1, 0] = 0.5  # a draw counts: b0 is now bounded above
    wins[0, 1] -= 0.5
    assert unbounded_ends(wins)[1].tolist() == [False, False, False, True]
    # A bot that never won: open below only.
    assert unbounded_ends(np.array([[0, 0], [3, 0]], dtype=float))[0].tolist() == [True, False]
    # One bot: nothing to compare, and nothing said (its rating is the mean by definition).
    assert [a.tolist() for a in unbounded_ends(np.zeros((1, 1)))] == [[False], [False]]


# -- a one-player game --------------------------------------------------------------------------

SOLO = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=1, seed=3, repeats=5)


@pytest.fixture(scope="module")
def solo_board() -> dict[str, object]:
    records = [play_scheduled(SOLO, m, make_player) for m in schedule(SOLO)]
    return leaderboard.build(SOLO, records, resamples=50)


def test_a_one_player_board_has_no_ratings(solo_board):
    rows = solo_board["leaderboard"]
    assert [(r["ci_low"], r["ci_high"]) for r in rows] == [(None, None), (None, None)]
    assert solo_board["warning"] == leaderboard.ONE_PLAYER
    # Listed by mean score (the ratings say nothing), every rank open.
    assert [r["mean_score"] for r in rows] == sorted((r["mean_score"] for r in rows), reverse=True)
    assert rows[0]["mean_score"] > rows[1]["mean_score"]  # this seed: the order is not a tie's
    assert [(r["rank"], r["rank_best"], r["rank_worst"]) for r in rows] == [(1, 1, 2), (2, 1, 2)]
    assert json.loads(json.dumps(solo_board)) == solo_board  # JSON as written (no Infinity)
    # The live board (the regularised fit, no bootstrap) says the same.
    tally = leaderboard.Tally(SOLO)
    for record in (play_scheduled(SOLO, m, make_player) for m in schedule(SOLO)):
        tally.add(record)
    live = tally.board()
    assert [(r["ci_low"], r["ci_high"]) for r in live["leaderboard"]] == [(None, None), (None, None)]
    assert live["warning"] == leaderboard.ONE_PLAYER


def table_text(board: dict[str, object]) -> str:
    console = Console(width=140, record=True, file=io.StringIO())
    console.print(leaderboard_table(board, width=140))
    return console.export_text()


def test_a_one_player_table_shows_no_rating_and_no_seat_advantage(solo_board):
    text = table_text(solo_board)
    assert "1500" not in text and "seat advantage" not in text
    lines = [line for line in text.splitlines() if "heuristic" in line or "random" in line]
    assert all(line.split("│")[3].strip() == "-" for line in lines), lines
    assert "one-player matches compare no bots" in text


# -- a bot that never lost ----------------------------------------------------------------------

NEVER = TournamentSpec(game="rolldice", bots=("random", "crasher", "heuristic"), players=2, seed=5, repeats=3)


def with_crasher(address: str, game: str) -> object:
    """``crasher`` raises at every decision: it forfeits every match, so it never wins, and
    whoever meets it wins at least that match."""
    if address == "crasher":

        def crash(request: object) -> str:
            raise PlayerFailure("crash", "always")

        return FunctionPlayer(crash, "crasher")
    return make_player(address, game)


@pytest.fixture(scope="module")
def crash_board() -> dict[str, object]:
    records = [play_scheduled(NEVER, m, with_crasher) for m in schedule(NEVER)]
    return leaderboard.build(NEVER, records, resamples=50)


def test_a_bot_that_never_won_is_open_below(crash_board):
    rows = {r["bot"]: r for r in crash_board["leaderboard"]}
    assert rows["crasher"]["ci_low"] is None and isinstance(rows["crasher"]["ci_high"], float)
    assert rows["crasher"]["wins"] == 0
    for bot in ("random", "heuristic"):  # both lost to each other at some point: bounded
        assert isinstance(rows[bot]["ci_low"], float) and isinstance(rows[bot]["ci_high"], float), rows[bot]
    assert "never won" in crash_board["warning"]
    # Open below, it still sits under every bot whose interval lies wholly above its high end.
    assert leaderboard.rating_interval(rows["crasher"]) == (-math.inf, rows["crasher"]["ci_high"])


def test_open_ends_through_the_api_the_cli_the_web_and_the_metrics(crash_board):
    message = views.leaderboard(crash_board, "t")
    crasher = next(r for r in message.rows if r.bot == "crasher")
    assert crasher.ci_low == -math.inf and math.isfinite(crasher.ci_high)
    board = from_message(message)  # back to a board: the open end is None again
    assert [(r["bot"], r["ci_low"] is None) for r in board["leaderboard"]] == [
        (r["bot"], r["ci_low"] is None) for r in crash_board["leaderboard"]
    ]
    row = next(r for r in crash_board["leaderboard"] if r["bot"] == "crasher")
    shown = rating_text(row["rating"], None, row["ci_high"])
    assert shown == f"{row['rating']:.0f} (-∞..{row['ci_high']:.0f})"
    assert shown in table_text(crash_board)
    assert shown in table_text(board)
    html = web_table(as_json(message)["rows"], failures=True)
    assert f"-∞ .. {row['ci_high']}" in html
    metrics.set_ratings("rolldice-open-test", crash_board)
    try:
        assert metrics.RATING_LOW.labels("rolldice-open-test", "crasher")._value.get() == -math.inf
    finally:
        # the registry is the process's: test_metrics checks every game label in it is a game
        metrics.set_ratings("rolldice-open-test", {"leaderboard": []})


def test_rating_text():
    assert rating_text(1612.4, 1540.2, 1690.0) == "1612 (1540..1690)"
    assert rating_text(1820, 1700, None) == "1820 (1700..∞)"
    assert rating_text(1820, 1700, math.inf) == "1820 (1700..∞)"
    assert rating_text(1300, -math.inf, 1400) == "1300 (-∞..1400)"
    assert rating_text(1500, None, None) == "-"


def test_a_one_player_web_table_has_no_bar(solo_board):
    rows = as_json(views.leaderboard(solo_board, "t"))["rows"]
    assert rows[0]["ci_low"] == "-Infinity"  # the API's JSON for -inf
    html = web_table(rows, failures=False)
    assert 'class="bar"' not in html and "no bound" in html and ">1500" not in html
