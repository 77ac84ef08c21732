"""Records Arena wrote are read by msgspec straight into the dataclasses; everything else by the
general path (orjson or json, then ``MatchRecord.from_json``). Both give the same record, for
a match of every game, and the fast path is the one taken for what Arena writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena import record as records
from arena.record import MatchRecord, RecordError
from arena.registry import games
from arena.runner import ErrorPolicy, FunctionPlayer, play_match
from bots.random_bot import RandomBot
from tests.cli_run import arena
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


def _odd(data: dict[str, object], where: str, value: object) -> dict[str, object]:
    """The record with the field at ``where`` (dotted, with list indices) set to ``value``."""
    odd = json.loads(json.dumps(data))
    *path, last = where.split(".")
    target: object = odd
    for part in path:
        target = target[int(part)] if isinstance(target, list) else target[part]  # type: ignore[index]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value  # type: ignore[index]
    return odd


ODD_FIELDS = [
    ("config.players", "three", "config.players: expected a whole number"),
    ("config.options", ["a"], "config.options: expected an object"),
    ("decisions.0.ms", "fast", "decisions[0].ms: expected a number"),
    ("decisions.3.step", "x", "decisions[3].step: expected a whole number"),
    ("decisions.2", None, "decisions[2]: expected an object"),
    ("decisions", "oops", "decisions: expected a list"),
    ("seats.0", "alice", "seats[0]: expected an object"),
    ("result.scores", "lots", "result.scores: expected a list of numbers"),
    ("result.forfeited", [True], "result.forfeited: expected one per seat"),
    ("seed", "abc", "seed: expected a whole number"),
    ("ms", "fast", "ms: expected a number"),
    (
        "failures",
        [{"seat": 0, "decision": 1, "verdict": "timeout", "detail": 5}],
        "failures[0].detail: expected a string",
    ),
    ("strikes", [{"seat": 0}], "strikes[0].decision: missing"),
    (
        "failures",
        [{"seat": 0, "decision": 1, "verdict": "crash", "detail": "gone", "forfeits": "yes"}],
        "failures[0].forfeits: expected true or false",
    ),
    # From a fuzzing probe: a match id of any type was taken as its text; a whole number past a
    # float's range ended `arena replay` in an OverflowError.
    ("match_id", {"not": "a string"}, "match_id: expected a string, got an object"),
    ("game_version", 3, "game_version: expected a string, got 3"),
    ("decisions.0.ms", 10**400, "decisions[0].ms: expected a number, got 1000000000"),
    ("ms", -(10**400), "ms: expected a number, got -1000000000"),
]


@pytest.mark.parametrize(("where", "value", "says"), ODD_FIELDS, ids=[case[0] for case in ODD_FIELDS])
def test_a_mistyped_field_is_named_by_either_path(where: str, value: object, says: str) -> None:
    game = games()["rolldice"]
    data = json.loads(play_match(game, game.config(2), SEED, [RandomBot(), RandomBot()]).dumps())
    line = json.dumps(_odd(data, where, value), separators=(",", ":"))
    with pytest.raises(RecordError, match=re.escape(f"malformed match record: {says}")):
        MatchRecord.loads(line)  # the fast path's shape: msgspec or the check after it names it
    with pytest.raises(RecordError, match=re.escape(says)):
        MatchRecord.from_json(json.loads(line))


def test_a_negative_seed_is_refused_by_either_path_and_by_replay(tmp_path: Path) -> None:
    """An outside probe: a record saying seed -1 "reproduces exactly", as random.seed deals -N as
    N (`arena play --seed -1` is refused)."""
    game = games()["rolldice"]
    data = json.loads(play_match(game, game.config(2), SEED, [RandomBot(), RandomBot()]).dumps())
    data["seed"] = -1
    line = json.dumps(data, separators=(",", ":"))
    says = "malformed match record: seed: expected a whole number 0 or more, got -1"
    assert records._decode_written(line) is not None  # the fast path: msgspec takes it, check() refuses it
    with pytest.raises(RecordError) as fast:
        MatchRecord.loads(line)
    assert str(fast.value) == says
    with pytest.raises(RecordError) as general:
        MatchRecord.from_json(json.loads(line))
    assert str(general.value) == says
    path = tmp_path / "negative.json"
    path.write_text(line + "\n")
    out = arena("replay", str(path))
    assert (out.returncode, out.stdout, out.stderr) == (2, "", f"arena replay: error: {path}: {says}\n")


@pytest.mark.parametrize("html", [False, True], ids=["replay", "html"])
def test_bad_record_files_are_one_line_naming_the_file_and_field(tmp_path: Path, html: bool) -> None:
    game = games()["rolldice"]
    record = play_match(game, game.config(2), SEED, [RandomBot(), RandomBot()])
    data = json.loads(record.dumps())
    cases = {
        "binary.json": (b"\x89PNG\r\n\x1a\n\x00\x00garbage", "not UTF-8"),
        "players.json": (json.dumps(_odd(data, "config.players", "three")).encode(), "config.players"),
        "options.json": (json.dumps(_odd(data, "config.options", ["a"])).encode(), "config.options"),
        "ms.json": (json.dumps(_odd(data, "decisions.0.ms", "fast")).encode(), "decisions[0].ms"),
        "lines.jsonl": (
            (record.dumps() + "\n" + json.dumps(_odd(data, "decisions.0.ms", "fast")) + "\n").encode(),
            "decisions[0].ms",
        ),
    }
    for name, (content, field) in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        where = f"{path}:2" if name.endswith(".jsonl") else str(path)
        extra = ["--match", record.match_id] if name.endswith(".jsonl") else []
        args = ["--html", str(tmp_path / "out.html"), *extra] if html else []
        out = arena("replay", str(path), *args)
        assert out.returncode == 2, (name, out.stderr)
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
        assert f"error: {where}: " in out.stderr and field in out.stderr, out.stderr
        assert not (tmp_path / "out.html").exists()
