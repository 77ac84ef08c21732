"""Records Arena wrote are read by msgspec straight into the dataclasses; everything else by the
general path (orjson or json, then ``MatchRecord.from_json``). Both give the same record, for
a match of every game, and the fast path is the one taken for what Arena writes."""

from __future__ import annotations

import json

import pytest

from arena import record as records
from arena.record import MatchRecord, RecordError
from arena.registry import games
from arena.runner import ErrorPolicy, FunctionPlayer, play_match
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


def _tallied(record: object) -> tuple[object, ...]:
    """What a tally reads of a record (a MatchRecord or a RecordView alike)."""
    return (
        record.seats,  # type: ignore[attr-defined]
        record.result,  # type: ignore[attr-defined]
        [(d.seat, d.ms, d.by) for d in record.decisions],  # type: ignore[attr-defined]
        [(f.seat, f.verdict) for f in record.failures],  # type: ignore[attr-defined]
        record.tournament,  # type: ignore[attr-defined]
    )


@pytest.mark.parametrize("game_id", sorted(games()))
def test_a_view_holds_what_a_tally_reads_of_the_record(game_id: str) -> None:
    game = games()[game_id]
    n = players_of(game)
    record = play_match(game, game.config(n), SEED, [RandomBot() for _ in range(n)])
    record.tournament = {"index": 7, "group": 3, "rotation": 1}
    view = records.read_view(record.dumps())
    assert isinstance(view, records.RecordView)  # what Arena writes is read as a view
    assert _tallied(view) == _tallied(record)


def test_a_view_carries_failures_and_substitutes() -> None:
    game = games()["rolldice"]

    def crash(request: object) -> str:
        raise RuntimeError("boom")

    record = play_match(
        game, game.config(2), SEED, [RandomBot(), FunctionPlayer(crash)], policy=ErrorPolicy("substitute", 5)
    )
    assert record.failures and any(d.by == "substitute" for d in record.decisions)
    view = records.read_view(record.dumps())
    assert isinstance(view, records.RecordView) and _tallied(view) == _tallied(record)


def test_a_line_the_view_does_not_take_is_read_whole_or_named() -> None:
    game = games()["rolldice"]
    record = play_match(game, game.config(2), SEED, [RandomBot(), RandomBot()])
    spaced = json.dumps(json.loads(record.dumps()))  # another writer's layout: read whole
    whole = records.read_view(spaced)
    assert isinstance(whole, MatchRecord) and whole == MatchRecord.loads(record.dumps())
    data = json.loads(record.dumps())
    data["result"]["scores"] = [float("nan"), 1]  # msgspec refuses NaN: the general path reads it
    odd = records.read_view(json.dumps(data, separators=(",", ":")))
    assert isinstance(odd, MatchRecord) and odd.result["ranks"] == record.result["ranks"]
    with pytest.raises(RecordError):
        records.read_view('{"record":1,"seats":"no"}')
