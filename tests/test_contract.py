"""The engine contract, checked for every registered game, player count and variant."""

from __future__ import annotations

import re

import pytest

from arena.registry import games
from tests.contract import (
    LabelledChance,
    check_determinism,
    check_hidden_information_declared,
    check_illegal_rejected,
    check_replay,
    configurations,
    random_playout,
    seen_nature,
)

CASES = [
    pytest.param(
        game,
        config,
        id=f"{game.meta.id}-{config.players}p-"
        + ("-".join(f"{k}={v}" for k, v in config.options.items()) or "default"),
    )
    for game in games().values()
    for config in configurations(game)
]


OBSERVED = 3


@pytest.mark.parametrize(("game", "config"), CASES)
def test_random_playouts_end_with_a_result(game, config):
    # Every seat's and the spectator's observation at every step of the first OBSERVED seeds: it
    # costs 12x the playout itself (60x in Wine Cellar at 8 players), so the other seeds check
    # the rest of the contract only.
    drawn: set[str] = set()
    bare: set[str] = set()
    protocol = game.observation_type.DESCRIPTOR.file
    for seed in range(8):
        state = random_playout(game, config, seed, observe=seed < OBSERVED, chance=LabelledChance(seed, drawn, bare))
        # A bot that keeps state reads the events' typed details, not their English text: events
        # without one left their facts in the text (an outside probe: Get Bit!'s discards and the
        # Shark's hunger, Pet Quartet's discards, setup events of eight games).
        for event in state.log.events:
            assert event.detail is not None, f"{game.meta.id}: event {event.kind!r} has no detail ({event.text!r})"
            assert event.detail.DESCRIPTOR.file is protocol, f"{game.meta.id}: {event.kind!r} detail from elsewhere"
    # Every chance label drawn is one the module docstring lists (the keys a PresetChance may
    # preset: any other is refused as a typo, so a label left out could not be preset).
    assert drawn <= game.chance_labels(), (
        f"{game.meta.id} draws {sorted(drawn - game.chance_labels())} its docstring's Chance labels do not list"
    )
    # ...and each by a roll, a pick or a shuffle, which a PresetChance can set (Trick to the
    # Future's "leader" and Open Sesame's "memory" were drawn with below(): no preset applied).
    assert not bare, f"{game.meta.id} draws {sorted(bare)} as bare numbers (below, weighted): no preset can set them"


@pytest.mark.parametrize("game", list(games().values()), ids=lambda g: g.meta.id)
def test_every_game_lists_its_chance_labels(game):
    """GAME-DONE: the module docstring lists the chance labels (PresetChance keys) in draw order;
    a PresetChance with a label the game never draws is refused, naming the ones it does."""
    from arena.chance import PresetChance, PresetError

    labels = game.chance_labels()
    assert bool(labels) == game.meta.chance, f"{game.meta.id}: Chance labels {sorted(labels)}"
    if labels:
        with pytest.raises(PresetError, match=f"{game.meta.id} draws no chance labelled 'not-a-label'"):
            game.new_match(game.meta.min_players, 0, PresetChance(rolls={"not-a-label": [1]}))
        game.new_match(game.config(game.meta.min_players), 0, PresetChance(rolls={sorted(labels)[0]: []}))


@pytest.mark.parametrize(("game", "config"), CASES)
def test_replay_from_record(game, config):
    for seed in range(3):
        check_replay(game, config, seed)


@pytest.mark.parametrize(("game", "config"), CASES)
def test_same_seed_same_record(game, config):
    check_determinism(game, config, seed=11)


@pytest.mark.parametrize(("game", "config"), CASES)
def test_illegal_choices_change_nothing(game, config):
    check_illegal_rejected(game, config, seed=5)


@pytest.mark.parametrize(("game", "config"), CASES)
def test_a_game_with_private_events_declares_hidden_information(game, config):
    check_hidden_information_declared(game, config, seed=3)


def test_every_game_declares_its_protocol():
    for game in games().values():
        meta = game.meta
        assert meta.id.isidentifier() and meta.id == meta.id.lower()
        assert 1 <= meta.min_players <= meta.max_players
        assert meta.version
        module = game.observation_type.DESCRIPTOR.file
        assert module.name == f"arena/games/v1/{meta.id}.proto"
        assert game.action_type.DESCRIPTOR.file is module
        assert module.package == f"arena.games.v1.{meta.id}"


@pytest.mark.parametrize("game", list(games().values()), ids=lambda g: g.meta.id)
def test_every_game_declares_its_nature_as_it_plays(game):
    """A game that asks several seats at once declares it simultaneous, and one whose tables
    differ by seed declares chance, and neither otherwise (Frenzy Falls' round-end discards,
    every seat at once, were declared sequential)."""
    simultaneous, chance = seen_nature(game)
    assert (game.meta.simultaneous, game.meta.chance) == (simultaneous, chance), (
        f"{game.meta.id} declares simultaneous={game.meta.simultaneous}, chance={game.meta.chance}; "
        f"its playouts show simultaneous={simultaneous}, chance={chance}"
    )


# A Python list, tuple or dict printed into a text: "[0, -2", "(1, 2)", "['a'", "{0: ", "[]".
RAW_DATA = re.compile(r"\[-?\d|\['|\[\]|\(-?\d+, -?\d|\('|\{'|\{-?\d+:")


@pytest.mark.parametrize("game", list(games().values()), ids=lambda g: g.meta.id)
def test_event_texts_read_as_english(game):
    """The viewer's event log shows an event's text as it is, and bots receive it as
    ``Event.text``: no text prints a Python list (an outside probe found Llama Llama's
    "round 1: table [0, -2, 1, -2]", -1 and -2 standing for an unknown owner and a dummy, and
    raw lists in the end events of a dozen games)."""
    for config in configurations(game):  # every player count, default options and each variant
        for seed in range(3):
            state = random_playout(game, config, seed, observe=False)
            for event in state.log.events:
                assert not RAW_DATA.search(event.text), (
                    f"{game.meta.id} {config.players}p seed {seed}: {event.kind} {event.text!r}"
                )
