"""Records Arena wrote are read by msgspec straight into the dataclasses; everything else by the
general path (orjson or json, then ``MatchRecord.from_json``). Both give the same record, for
a match of every game, and the fast path is the one taken for what Arena writes."""

from __future__ import annotations

import json

import pytest

from arena import record as records
from arena.record import MatchRecord, RecordError
from arena.registry import games
from arena.runner import play_match
from bots.random_bot import RandomBot
from tests.test_request_bytes import SEED, players_of


@pytest.mark.parametrize("game_id", sorted(games()))
def test_a_written_record_reads_back_the_same_by_either_path(game_id: str) -> None:
    game = games()[game_id]
    n = players_of(game)
    line = play_match(game, game.config(n), SEED, [RandomBot() for _ in range(n)]).dumps()
    fast = records._decode_written(line)
    assert fast is not None  # what Arena writes takes the fast path
    general = MatchRecord.from_json(json.loads(line))
    assert fast == general
    assert [type(d) for d in fast.decisions] == [type(d) for d in general.decisions]
    loaded = MatchRecord.loads(line)
    assert loaded == general and loaded.dumps() == line


def test_what_the_fast_path_refuses_the_general_path_reads_or_names() -> None:
    game = games()["rolldice"]
    line = play_match(game, game.config(2), SEED, [RandomBot(), RandomBot()]).dumps()
    data = json.loads(line)
    spaced = json.dumps(data)  # another writer's layout
    assert records._decode_written(spaced) is None and MatchRecord.loads(spaced) == MatchRecord.loads(line)
    data["seed"] = str(data["seed"])  # a type the general path converts
    odd = json.dumps(data, separators=(",", ":"))
    assert records._decode_written(odd) is None and MatchRecord.loads(odd).seed == int(data["seed"])
    del data["game"]
    with pytest.raises(RecordError, match="malformed match record"):
        MatchRecord.loads(json.dumps(data, separators=(",", ":")))
