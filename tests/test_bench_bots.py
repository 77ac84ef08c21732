"""bench.bench_bots runs end to end on a small budget and reports, per game and player count,
what the README quotes (no timing is asserted: the machine is shared)."""

from __future__ import annotations

import json

import pytest

from bench import bench_bots


def test_the_bots_bench_reports_each_game_at_its_fewest_and_most_players(capsys):
    argv = ["--seconds", "0.01", "--matches", "1", "--game", "rolldice", "--game", "getbit", "--json"]
    assert bench_bots.main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    # Get Bit! plays 2-7, but 7 only with the shark variant: its default options stop at 6,
    # which is measured (it was skipped, leaving Get Bit! at 2 players only).
    assert sorted((r["game"], r["players"]) for r in rows) == [
        ("getbit", 2),
        ("getbit", 6),
        ("rolldice", 1),
        ("rolldice", 4),
    ]
    for row in rows:
        assert row["random_us"] > 0 and row["heuristic_us"] > 0
        assert row["heuristic_vs_random"] == pytest.approx(row["heuristic_us"] / row["random_us"], rel=0.05)
        assert row["observation_us"] > 0 and row["observation_p99_us"] > 0
    ratios = [r["heuristic_vs_random"] for r in rows]
    assert ratios == sorted(ratios, reverse=True)


def test_an_unknown_game_is_named(capsys):
    with pytest.raises(SystemExit) as stop:
        bench_bots.main(["--game", "parcheesi"])
    assert stop.value.code == 2
    assert "unknown game 'parcheesi'" in capsys.readouterr().err


def test_the_player_counts_are_the_fewest_and_most_the_default_options_accept():
    counts = {game_id: bench_bots.player_counts(game) for game_id, game in bench_bots.games().items()}
    assert counts["getbit"] == [2, 6]
    assert counts["rolldice"] == [1, 4]
    assert counts["threewitches"] == [3]  # one count: measured once
