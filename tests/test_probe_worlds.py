"""``bench.probe_worlds``: it finds worlds with no legal move and hooks that raise."""

from __future__ import annotations

from dataclasses import replace

from arena.registry import get_game
from bench.probe_worlds import findings, main


def test_a_sound_game_has_no_findings():
    built, found = findings(get_game("rolldice"), range(1))
    assert built > 0 and found == []


def test_a_world_without_a_legal_move_is_reported_with_its_position(monkeypatch):
    game = get_game("rolldice")
    real = type(game).sample_world

    def no_options(self, state, seat, chance):
        world = real(self, state, seat, chance)
        world.pending = tuple(replace(d, options=()) for d in world.pending)
        return world

    monkeypatch.setattr(type(game), "sample_world", no_options)
    _, found = findings(game, range(1))
    assert found and {f["hook"] for f in found} == {"sample_world"}
    assert all(f["no_option_for"] and f["game"] == "rolldice" and "step" in f for f in found)
    assert main(["--seeds", "1", "--game", "rolldice"]) == 1


def test_a_hook_that_raises_is_reported(monkeypatch):
    game = get_game("rolldice")

    def broken(self, config, seat, observation, chance):
        raise ValueError("no deal fits")

    monkeypatch.setattr(type(game), "world_from_observation", broken)
    _, found = findings(game, range(1))
    assert found and all(f["hook"] == "world_from_observation" and "no deal fits" in f["error"] for f in found)
