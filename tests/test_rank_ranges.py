"""Ranks that are honest about ties: every leaderboard row carries the range of ranks its 95%
interval allows (LMSYS Chatbot Arena's rule), in the board, the run's files, the API, the CLI
table and the web table."""

from __future__ import annotations

import csv
import io
import json
import math
import urllib.request
from typing import Any

import grpc
import numpy as np
import pytest
from rich.console import Console

from arena import leaderboard
from arena.cli.players import make_player
from arena.executor import LocalExecutor
from arena.leaderboard_view import DROP_ORDER, from_message, leaderboard_table, rank_text
from arena.rundir import RunDirectory
from arena.tournament import TournamentSpec, play_scheduled, schedule
from arena.tournament_run import run_tournament
from arena.v1 import arena_pb2, arena_pb2_grpc
from referee import views
from referee.auth import create_owner
from referee.store import Store
from referee.web import as_json
from referee.web import leaderboard_table as web_table
from tests.services import redis_server, service

EN_DASH = "\u2013"


def rows_of(*intervals: tuple[float | None, float | None]) -> list[dict[str, object]]:
    """Rows with these intervals, in the given order (as a board sorts them, best first)."""
    rows: list[dict[str, object]] = []
    for i, (low, high) in enumerate(intervals):
        row: dict[str, object] = {"bot": f"b{i}", "rank": i + 1, "games": 10}
        if low is not None:
            row["ci_low"] = low
        if high is not None:
            row["ci_high"] = high
        rows.append(row)
    return rows


def ranges(*intervals: tuple[float | None, float | None]) -> list[tuple[int, int]]:
    return leaderboard.rank_ranges(rows_of(*intervals))


# -- the rule -------------------------------------------------------------------------------


def test_disjoint_intervals_settle_every_rank():
    assert ranges((300, 400), (200, 250), (0, 100)) == [(1, 1), (2, 2), (3, 3)]


def test_chained_overlaps_order_only_the_ends():
    # A~B and B~C overlap, A lies wholly above C: A is 1st or 2nd, B anywhere, C 2nd or 3rd.
    assert ranges((200, 300), (100, 250), (0, 150)) == [(1, 2), (1, 3), (2, 3)]


def test_all_overlapping_intervals_settle_nothing():
    assert ranges((90, 210), (80, 200), (70, 190), (60, 180)) == [(1, 4)] * 4


def test_ties_in_rating_share_their_ranks():
    # Equal intervals (equal ratings), also of zero width, and intervals that only touch: none
    # lies wholly above the other (the comparison is strict).
    assert ranges((100, 200), (100, 200), (0, 50)) == [(1, 2), (1, 2), (3, 3)]
    assert ranges((150, 150), (150, 150)) == [(1, 2), (1, 2)]
    assert ranges((200, 300), (100, 200)) == [(1, 2), (1, 2)]


def test_a_missing_interval_is_unbounded():
    # b1 has no interval: it may be anywhere (1-3) and orders no one, so b0 and b2 keep the
    # order their own intervals give (b0 above b2) and each may swap places with b1.
    assert ranges((300, 400), (None, None), (0, 100)) == [(1, 2), (1, 3), (2, 3)]
    # An end that is no number, or the wrong infinity, an inverted interval: no interval.
    for bad in [(math.nan, 250.0), (150.0, -math.inf), (math.inf, 250.0), (250.0, 150.0)]:
        assert ranges((300, 400), bad, (0, 100)) == [(1, 2), (1, 3), (2, 3)], bad
    # One end open (missing, or its own infinity as the API sends it): the other end still
    # places the bot. Open above, from 150: above b2 (0..100), maybe above b0 (300..400).
    for open_above in [(150.0, None), (150.0, math.inf)]:
        assert ranges((300, 400), open_above, (0, 100)) == [(1, 2), (1, 2), (3, 3)], open_above
    # Open below, up to 250: below b0, maybe below b2.
    for open_below in [(None, 250.0), (-math.inf, 250.0)]:
        assert ranges((300, 400), open_below, (0, 100)) == [(1, 1), (2, 3), (2, 3)], open_below
    # Every interval missing (a board that has none): every rank open.
    assert ranges((None, None), (None, None), (None, None)) == [(1, 3)] * 3


def test_a_bot_that_played_no_game_has_no_interval():
    rows = rows_of((300, 400), (150, 250), (0, 100))
    rows[1]["games"] = 0  # its interval would be the prior's alone
    assert leaderboard.rank_ranges(rows) == [(1, 2), (1, 3), (2, 3)]
    assert leaderboard.rating_interval(rows[1]) == (-math.inf, math.inf)
    assert leaderboard.rating_interval(rows[0]) == (300.0, 400.0)


def test_the_counts_agree_with_pairwise_comparison():
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        centres = np.round(rng.normal(1500, 80, n), 1)
        widths = np.round(rng.uniform(0, 120, n), 1)
        intervals = [(float(c - w), float(c + w)) for c, w in zip(centres, widths, strict=True)]
        intervals.sort(key=lambda iv: -(iv[0] + iv[1]))
        pairwise = [
            (1 + sum(lo > high for lo, _ in intervals), n - sum(hi < low for _, hi in intervals))
            for low, high in intervals
        ]
        assert ranges(*intervals) == pairwise


def test_rank_text():
    assert rank_text({"rank": 2, "rank_best": 2, "rank_worst": 2}) == "2"
    assert rank_text({"rank": 1, "rank_best": 1, "rank_worst": 3}) == f"1{EN_DASH}3"
    # A board stored before ranges were kept, or a referee that sends zeros: the position.
    assert rank_text({"rank": 4}) == "4"
    assert rank_text({"rank": 4, "rank_best": None, "rank_worst": None}) == "4"


# -- real boards ----------------------------------------------------------------------------

# 10 repeats of three rolldice bots, seed 7: the intervals overlap (when written: they chain,
# heuristic ~ heuristic:threshold=4 ~ random with heuristic wholly above random: 1-2, 1-3, 2-3).
SPEC = TournamentSpec(
    game="rolldice", bots=("random", "heuristic", "heuristic:threshold=4"), players=2, seed=7, repeats=10
)


@pytest.fixture(scope="module")
def board() -> dict[str, object]:
    records = [play_scheduled(SPEC, m, make_player) for m in schedule(SPEC)]
    return leaderboard.build(SPEC, records, resamples=50)


def pairwise(rows: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """The rule, bot against bot, on the rows' intervals (all present here)."""
    spans = [(float(r["ci_low"]), float(r["ci_high"])) for r in rows]
    return [
        (
            1 + sum(other_low > high for other_low, _ in spans),
            len(spans) - sum(other_high < low for _, other_high in spans),
        )
        for low, high in spans
    ]


def unsettled(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    return [r for r in rows if r["rank_best"] != r["rank_worst"]]


def test_a_seeded_tournament_run_writes_the_ranges(tmp_path):
    rundir = RunDirectory(tmp_path / "run")
    board = run_tournament(SPEC, "t", rundir, LocalExecutor(make_player, 1), resamples=50)
    rows = board["leaderboard"]
    assert [(r["rank_best"], r["rank_worst"]) for r in rows] == pairwise(rows)
    assert unsettled(rows), rows  # this seed's intervals overlap: a position that is no finding
    for row in rows:  # the position by rating always lies in the range
        assert row["rank_best"] <= row["rank"] <= row["rank_worst"]
    assert json.loads((rundir.path / "leaderboard.json").read_text()) == json.loads(json.dumps(board))
    written = list(csv.DictReader(io.StringIO((rundir.path / "leaderboard.csv").read_text())))
    assert [(r["rank"], r["rank_best"], r["rank_worst"]) for r in written] == [
        (str(r["rank"]), str(r["rank_best"]), str(r["rank_worst"])) for r in rows
    ]


def test_the_live_board_and_a_games_board_carry_the_ranges(board):
    records = [play_scheduled(SPEC, m, make_player) for m in schedule(SPEC)]
    tally = leaderboard.Tally(SPEC)  # a live view: no bootstrap, the regularised intervals
    for record in records:
        tally.add(record)
    live = tally.board()["leaderboard"]
    assert all(r["rank_best"] <= r["rank"] <= r["rank_worst"] for r in live)
    assert [(r["rank_best"], r["rank_worst"]) for r in live] == leaderboard.rank_ranges(live)
    summary = leaderboard.tournament_summary(SPEC, records)
    other = TournamentSpec(game="rolldice", bots=("random", "heuristic:threshold=2"), players=2, seed=3)
    across = leaderboard.across(
        "rolldice",
        [
            summary,
            leaderboard.tournament_summary(other, [play_scheduled(other, m, make_player) for m in schedule(other)]),
        ],
    )["leaderboard"]
    assert len(across) == 4 and [r["rank"] for r in across] == [1, 2, 3, 4]
    assert [(r["rank_best"], r["rank_worst"]) for r in across] == leaderboard.rank_ranges(across)
    assert all(r["rank_best"] <= r["rank"] <= r["rank_worst"] for r in across)


# -- the API --------------------------------------------------------------------------------


def test_the_message_carries_the_ranges_also_of_a_board_stored_before_them(board):
    message = views.leaderboard(board, "t")
    got = [(r.bot, r.rank_best, r.rank_worst) for r in message.rows]
    assert got == [(r["bot"], r["rank_best"], r["rank_worst"]) for r in board["leaderboard"]]
    old = json.loads(json.dumps(board))
    for row in old["leaderboard"]:  # stored by an older referee
        del row["rank_best"], row["rank_worst"]
    assert [(r.bot, r.rank_best, r.rank_worst) for r in views.leaderboard(old, "t").rows] == got


def test_the_ranges_through_a_real_service(tmp_path, board):
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        token = create_owner(store, "alice")
        old = json.loads(json.dumps(board))
        for row in old["leaderboard"]:
            del row["rank_best"], row["rank_worst"]
        store.save_game_leaderboard("rolldice", old)  # as an older referee stored it
        store.save_leaderboard("t-new", board)
        with service(redis.url, tmp_path) as srv, grpc.insecure_channel(srv.address) as channel:
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            metadata = (("authorization", f"Bearer {token}"),)
            reply = stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="rolldice"), metadata=metadata, timeout=60)
            web = f"http://127.0.0.1:{srv.http_port}"
            with urllib.request.urlopen(f"{web}/api/games/rolldice/leaderboard", timeout=30) as answer:
                served = json.loads(answer.read())
            with urllib.request.urlopen(f"{web}/games/rolldice", timeout=30) as answer:
                page = answer.read().decode()
    expected = [(r["bot"], r["rank_best"], r["rank_worst"]) for r in board["leaderboard"]]
    assert [(r.bot, r.rank_best, r.rank_worst) for r in reply.rows] == expected
    assert unsettled(from_message(reply)["leaderboard"])
    assert [(r["bot"], r["rank_best"], r["rank_worst"]) for r in served["rows"]] == expected
    for bot, best, worst in expected:  # the game's page: the range in the "#" cell
        shown = f"{best}" if best == worst else f"{best}{EN_DASH}{worst}"
        assert f'<tr data-bot="{bot}"><td>{shown}</td>' in page


# -- the tables -----------------------------------------------------------------------------


def printed(board: dict[str, object], width: int) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(leaderboard_table(board, width=width))
    return console.export_text().splitlines()


def first_cells(lines: list[str]) -> list[str]:
    return [line.strip("│").split("│")[0].strip() for line in lines if line.startswith("│")]


@pytest.mark.parametrize("width", [140, 80, 52])
def test_the_cli_table_shows_the_range(board, width):
    lines = printed(board, width)
    shown = [c for c in first_cells(lines) if c]  # (a narrow table wraps a row over lines)
    assert shown == [
        f"{best}" if best == worst else f"{best}{EN_DASH}{worst}" for best, worst in pairwise(board["leaderboard"])
    ]
    assert any(EN_DASH in cell for cell in shown)
    assert max(len(line) for line in lines) <= width  # columns dropped, never "#"
    if width == 52:  # the narrowest that fits: every column DROP_ORDER may give up is gone
        assert not any(column in "\n".join(lines) for column in DROP_ORDER)
    # The same rows from the message the service sends (which has no seat statistics).
    served = printed(from_message(views.leaderboard(board, "t")), width)
    assert [line for line in served if line.startswith("│")] == [line for line in lines if line.startswith("│")]


def test_the_cli_table_shows_a_settled_rank_as_one_number(board):
    settled = json.loads(json.dumps(board))
    for position, row in enumerate(settled["leaderboard"], 1):
        row["rank_best"] = row["rank_worst"] = position
    assert first_cells(printed(settled, 140)) == ["1", "2", "3"]


def test_a_live_cli_table_shows_positions_as_it_shows_no_intervals(board):
    """A live table shows ratings without intervals ("intervals at the end"): ranges from the
    provisional intervals there would claim what it does not show."""
    console = Console(width=140, record=True, file=io.StringIO())
    console.print(leaderboard_table(board, live=True, width=140))
    cells = first_cells(console.export_text().splitlines())
    assert cells == [str(row["rank"]) for row in board["leaderboard"]]
    assert any(EN_DASH in cell for cell in first_cells(printed(board, 140)))  # the final table's


def test_the_cli_table_works_out_the_ranges_a_board_lacks(board):
    expected = first_cells(printed(board, 140))
    assert any(EN_DASH in cell for cell in expected)
    # A board stored before rows kept ranges (`arena tournament status` reads it as stored).
    old = json.loads(json.dumps(board))
    for row in old["leaderboard"]:
        del row["rank_best"], row["rank_worst"]
    assert first_cells(printed(old, 140)) == expected
    # A referee that does not send them (zeros).
    message = views.leaderboard(board, "t")
    for row in message.rows:
        row.rank_best = row.rank_worst = 0
    assert first_cells(printed(from_message(message), 140)) == expected


def test_the_web_table_shows_the_range(board):
    rows = as_json(views.leaderboard(board, "t"))["rows"]
    html = web_table(rows, failures=True)
    for row in rows:
        text = rank_text(row)
        assert f'<tr data-bot="{row["bot"]}"><td>{text}</td>' in html
    assert [(r["rank_best"], r["rank_worst"]) for r in rows] == pairwise(board["leaderboard"])
    best, worst = next((r["rank_best"], r["rank_worst"]) for r in rows if r["rank_best"] != r["rank_worst"])
    assert f"<td>{best}{EN_DASH}{worst}</td>" in html
