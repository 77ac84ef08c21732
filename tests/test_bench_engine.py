"""bench.bench_engine runs end to end on a small budget: the bare loop and the full runner take
turns in slices of as many matches (different seeds), both loops play the same match for a
seed, and the report says what the README quotes (no timing is asserted: the machine is
shared)."""

from __future__ import annotations

import json
import statistics

import pytest

from bench import bench_engine


def test_the_engine_bench_reports_each_games_ratio_as_the_median_of_its_rounds(capsys):
    assert bench_engine.main(["--seconds", "0.1", "--rounds", "3", "--game", "rolldice", "--game", "vivo"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["game"] for row in rows] == ["rolldice", "vivo"]
    for row in rows:
        assert len(row["full_vs_bare_rounds"]) == 3
        assert row["full_vs_bare"] == pytest.approx(statistics.median(row["full_vs_bare_rounds"]), abs=0.001)
        assert row["matches"] >= 15  # at least 5 a round
        assert row["bare_matches_per_s"] > 0 and row["full_matches_per_s"] > 0


def test_bare_and_full_play_interleaved_slices_of_disjoint_seeds(monkeypatch):
    played: list[tuple[str, int]] = []

    def fake(name, decisions):
        def play(game, players, seed):
            played.append((name, seed))
            sum(range(20_000))  # some CPU time for the timer to see
            return decisions

        return play

    monkeypatch.setattr(bench_engine, "bare_match", fake("bare", 10))
    monkeypatch.setattr(bench_engine, "full_match", fake("full", 30))
    monkeypatch.setattr(bench_engine, "SLICE_SECONDS", 1.0)  # every slice is short: they double
    game = bench_engine.games()["rolldice"]
    row = bench_engine.compare(game, 2, seconds=0.0, rounds=1)  # no time budget: the minimum, 5 matches
    bare = [seed for name, seed in played if name == "bare"]
    full = [seed for name, seed in played if name == "full"]
    assert bare == [0, 1, 2, 3, 4, 5, 6]  # slices of 1, 2 and 4 matches
    assert full == [bench_engine.FULL_SEEDS + seed for seed in bare]  # as many, other seeds
    # Slices alternate which goes first: bare, full | full, bare | bare, full.
    firsts = [played[0][0], played[2][0], played[6][0]]
    assert firsts == ["bare", "full", "bare"]
    assert row["matches"] == 7
    assert row["bare_decisions_per_s"] > 0 and row["full_decisions_per_s"] > 0


@pytest.mark.parametrize("game_id", sorted(bench_engine.games()))
def test_the_bare_loop_plays_the_full_runners_match_decision_for_decision(game_id):
    game = bench_engine.games()[game_id]
    players = bench_engine.players_for(game)
    for seed in (0, 1):
        assert bench_engine.bare_match(game, players, seed) == bench_engine.full_match(game, players, seed)


def test_the_ratio_is_the_full_runners_rate_over_the_bare_loops(monkeypatch):
    """On fake CPU times (a bare match: 10 decisions in 1 ms; a full one: 10 in 4 ms) the runner
    keeps a quarter of the bare rate: 0.25, not its inverse."""

    def timed(play, game, players, seeds):
        per_match = 0.001 if play is bench_engine.bare_match else 0.004
        return 10 * len(seeds), per_match * len(seeds)

    monkeypatch.setattr(bench_engine, "timed", timed)
    row = bench_engine.compare(bench_engine.games()["rolldice"], 2, seconds=0.02, rounds=2)
    assert row["full_vs_bare_rounds"] == [0.25, 0.25]
    assert row["full_vs_bare"] == 0.25
    assert (row["bare_decisions_per_s"], row["full_decisions_per_s"]) == (10_000, 2_500)
    assert (row["bare_matches_per_s"], row["full_matches_per_s"]) == (1000.0, 250.0)
    assert bench_engine.full_vs_bare([100, 2.0], [30, 1.5]) == pytest.approx(0.4)
