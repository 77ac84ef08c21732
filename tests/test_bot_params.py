"""Built-in bot specs and parameters: typed, range-checked, with errors that name what is allowed."""

from __future__ import annotations

import pytest

from arena.config import ConfigError
from arena.registry import games
from arena.tournament import entrant_bot
from bots.params import Param, read_params
from bots.registry import bot_names, make_bot, parse_spec, tournament_field

SPECS = [Param("risk", 1, 1, 6, integer=True), Param("keep", 0.5, 0, 3)]


def test_defaults_and_typed_values():
    assert read_params("heuristic", {}, SPECS) == {"risk": 1, "keep": 0.5}
    assert read_params("heuristic", {"risk": "3", "keep": "2.5"}, SPECS) == {"risk": 3, "keep": 2.5}


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ({"speed": "1"}, "heuristic takes risk=1..6, keep=0..3; got speed"),
        ({"risk": "1.5"}, "risk='1.5' is not a whole number"),
        ({"keep": "x"}, "keep='x' is not a number"),
        ({"risk": "7"}, "risk=7 is out of range; allowed risk=1..6, keep=0..3"),
        # As options are read: int() takes these, and they played as 3 and 1000 (an outside probe).
        ({"risk": "\uff13"}, "risk='\uff13' is not a number"),
        ({"risk": "\u0663"}, "risk='\u0663' is not a number"),
        ({"keep": "1_0"}, "keep='1_0' is not a number"),
    ],
)
def test_bad_parameters_name_the_allowed_ones(raw, needle):
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(").replace(".", r"\.")):
        read_params("heuristic", raw, SPECS)


def test_every_game_has_random_and_heuristic_and_a_playable_field():
    for game_id in games():
        assert bot_names(game_id)[:2] == ["random", "heuristic"]
        field = tournament_field(game_id)
        assert len(field) >= 3 and len(set(field)) == len(field)
        for entrant in field:
            spec = entrant_bot(entrant)  # copies (random#2) fill the largest table
            bot = make_bot(spec, game_id)
            assert bot.name == spec


def test_spec_parsing():
    assert parse_spec("heuristic:risk=2,keep=1") == ("heuristic", {"risk": "2", "keep": "1"})
    with pytest.raises(ConfigError, match="key=value"):
        parse_spec("heuristic:risk")
    with pytest.raises(ConfigError, match="takes no parameters"):
        make_bot("random:x=1", "skyfive")
