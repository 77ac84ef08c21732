"""The heuristic-vs-random bench counts wins as the games score them (issue 10, item 8)."""

from __future__ import annotations

from arena.registry import get_game
from arena.runner import play_match
from bench.heuristic_vs_random import measure, win_share
from bots.registry import make_bot


def robot_escape():
    """A 3-player Get Bit! match the robot swimmer wins by escaping (found by seed)."""
    game = get_game("getbit")
    for seed in range(300):
        record = play_match(game, game.config(3), seed, [make_bot("random", "getbit") for _ in range(3)])
        if not any(record.result["scores"]):
            return record
    raise AssertionError("no robot escape in 300 seeds")


def test_a_robot_escape_is_a_win_for_no_seat():
    record = robot_escape()
    scores, ranks = record.result["scores"], record.result["ranks"]
    assert 1 in ranks  # the seats are still ranked by how long they lasted...
    assert [win_share("getbit", scores, ranks, seat) for seat in range(3)] == [0.0, 0.0, 0.0]  # ...but none won


def test_ranked_games_count_shared_wins():
    assert win_share("rolldice", [20, 20, 5], [1, 1, 3], 0) == 0.5
    assert win_share("rolldice", [20, 20, 5], [1, 1, 3], 2) == 0.0
    assert win_share("getbit", [0.0, 1.0, 0.0], [2, 1, 3], 1) == 1.0


def test_measure_reports_matches_nobody_won():
    result = measure("getbit", 3, 30)
    assert result["no_winner"] > 0
    assert 0 <= result["win_rate"] <= 1 - result["no_winner"] / 30
