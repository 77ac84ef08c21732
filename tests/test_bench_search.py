"""bench.bench_search compares an iteration with the steps it counts: ``Game.advance`` of options
taken from ``pending`` (not ``apply``, which validates each choice first), timed in playouts
from worlds sampled at the search's own positions (not whole playouts from the first move)."""

from __future__ import annotations

import json

import pytest

from bench import bench_search


def test_the_step_baseline_advances_from_worlds_sampled_at_the_searchs_positions(monkeypatch):
    game = bench_search.games()["rolldice"]
    states = bench_search.positions(game, 2, matches=2, per_match=2)
    sampled, advanced = [], []
    sample_world, advance = game.sample_world, game.advance

    def spied_sample(self, state, seat, chance):
        sampled.append(state)
        return sample_world(state, seat, chance)

    def spied_advance(self, state, chosen):
        # Options as they are in pending (the very objects), one per deciding seat.
        assert sorted(chosen) == sorted(d.seat for d in state.pending)
        assert all(any(option is chosen[d.seat] for option in d.options) for d in state.pending)
        advanced.append(state)
        advance(state, chosen)

    def no_apply(self, state, choices):
        raise AssertionError("the baseline validated its choices (apply): the iteration's steps do not")

    # On the class: monkeypatch puts an instance's attribute back as an instance attribute, which
    # would shadow the registry's game's methods for every later test in the process.
    game_class = type(game)
    monkeypatch.setattr(game_class, "sample_world", spied_sample)
    monkeypatch.setattr(game_class, "advance", spied_advance)
    monkeypatch.setattr(game_class, "apply", no_apply)
    assert bench_search.advance_cost(game, states, 0.0) > 0
    assert [id(state) for state in sampled] == [id(state) for state in states]  # each once (no budget), in order
    positions = {id(state) for state in states}
    assert advanced and not positions & {id(state) for state in advanced}  # the worlds, never the positions


def test_an_iteration_is_compared_with_as_many_advances():
    # 1,000 iterations a second of 20 steps at 25 us: an iteration takes 1 ms, its steps 0.5 ms.
    assert bench_search.iteration_vs_steps(1000.0, 20.0, 25.0) == pytest.approx(2.0)


def test_the_search_bench_reports_the_advance_baseline(capsys):
    assert bench_search.main(["--seconds", "0.05", "--game", "rolldice"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["advance_us"] > 0 and row["apply_us"] > 0
    assert row["iteration_vs_steps"] > 0
