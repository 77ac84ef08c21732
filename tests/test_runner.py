"""The match runner: records, failure verdicts, error policies, version negotiation."""

from __future__ import annotations

import json
import math

import pytest

from arena import PROTOCOL_VERSION
from arena.games.rolldice import GAME
from arena.record import MatchRecord, RecordError, ReplayMismatch, replay
from arena.runner import ErrorPolicy, FunctionPlayer, PlayerFailure, play_match
from arena.v1 import bot_pb2
from bots.random_bot import RandomBot


def first(request: bot_pb2.DecisionRequest) -> str:
    return request.options[0].id


class Scripted:
    """A player that misbehaves at chosen decision numbers (its own count)."""

    def __init__(self, faults: dict[int, object], ready: bot_pb2.Ready | None = None) -> None:
        self.name = "scripted"
        self.faults = faults
        self.ready = ready
        self.asked = 0
        self.finished: bot_pb2.Finish | None = None

    def start(self, message):
        return self.ready

    def decide(self, request):
        n = self.asked
        self.asked += 1
        fault = self.faults.get(n)
        if isinstance(fault, Exception):
            raise fault
        if fault is not None:
            return fault
        return request.options[0].id

    def finish(self, message):
        self.finished = message


def test_record_holds_every_decision_and_replays():
    config = GAME.config(2)
    record = play_match(GAME, config, 9, [RandomBot(), RandomBot()])
    assert record.game == "rolldice" and record.game_version == GAME.meta.version
    assert record.decisions and all(d.options == 2 and d.by == "bot" for d in record.decisions)
    assert [d.step for d in record.decisions] == sorted(d.step for d in record.decisions)
    replay(GAME, record)
    replay(GAME, MatchRecord.from_json(record.to_json()))


def test_replay_fails_loudly_on_a_changed_decision():
    record = play_match(GAME, GAME.config(2), 9, [RandomBot(), RandomBot()])
    tampered = MatchRecord.from_json(record.to_json())
    entry = tampered.decisions[0]
    entry.choice = "stop" if entry.choice == "reroll" else "reroll"
    with pytest.raises(ReplayMismatch, match=r"decision|result|record ends"):
        replay(GAME, tampered)


def _decision(data, i, **changes):
    data["decisions"][i].update(changes)


TAMPERINGS = {
    # each difference resimulate names, by the record's change and its message
    "kind": (lambda d: _decision(d, 0, kind="made-up"), r"decision 0: kind 'roll' in engine, 'made-up' in record"),
    "option count": (lambda d: _decision(d, 0, options=42), r"decision 0: 2 options in engine, 42 in record"),
    "seat": (lambda d: _decision(d, 0, seat=0), r"decision 0: engine asks seats \[1\], record has seats \[0\]"),
    "step": (lambda d: _decision(d, 0, step=1), r"decision 0: step 1 in record, the engine is at step 0"),
    "choice": (lambda d: _decision(d, 0, choice="jump"), r"decision 0: 'jump' is not a legal option"),
    "by": (lambda d: _decision(d, 0, by="human"), r"decision 0: by 'human', expected bot or substitute"),
    "substitute": (lambda d: _decision(d, 0, by="substitute"), r"played by a substitute, but seat 1 had not failed"),
    "after the end": (
        lambda d: d["decisions"].append({**d["decisions"][-1], "step": d["decisions"][-1]["step"] + 1}),
        r"the match is already over",
    ),
    "cut short": (lambda d: d["decisions"].pop(), r"record ends after \d+ decisions but the match goes on"),
    "game": (lambda d: d.update(game="vivo"), r"record is for game 'vivo', not 'rolldice'"),
    "version": (lambda d: d.update(game_version="0.9"), r"game version differs: record '0.9', engine"),
}


@pytest.mark.parametrize("change", list(TAMPERINGS))
def test_replay_names_each_difference_from_the_engine(change):
    """``arena replay`` exits 1 with the first difference: each check named by its own message
    (a record whose kinds or option counts were changed once replayed as reproduced)."""
    record = play_match(GAME, GAME.config(2), 9, [RandomBot(), RandomBot()])
    data = record.to_json()
    assert data["decisions"][0]["seat"] == 1  # the seat the changes above assume
    tamper, message = TAMPERINGS[change]
    tamper(data)
    with pytest.raises(ReplayMismatch, match=message):
        replay(GAME, MatchRecord.from_json(data))


def test_replay_names_a_changed_result():
    record = play_match(GAME, GAME.config(2), 9, [RandomBot(), RandomBot()])
    record.result["scores"] = [s + 1 for s in record.result["scores"]]
    with pytest.raises(ReplayMismatch, match="scores differ"):
        replay(GAME, record)


def test_illegal_answer_forfeits_by_default():
    bad = Scripted({1: "jump"})
    record = play_match(GAME, GAME.config(2), 3, [FunctionPlayer(first), bad])
    (failure,) = record.failures
    assert failure.seat == 1 and failure.verdict == "illegal" and "jump" in failure.detail
    assert record.decisions[failure.decision].seat == 1
    assert record.decisions[failure.decision].by == "substitute"
    assert record.result["forfeited"] == [False, True]
    assert record.result["ranks"] == [1, 2]
    assert bad.asked == 2  # never asked again after forfeiting
    replay(GAME, record)


def test_substitute_policy_continues_until_the_budget_is_spent():
    bad = Scripted({0: RuntimeError("boom"), 2: PlayerFailure("timeout", "slow"), 3: "x", 4: "y"})
    record = play_match(
        GAME,
        GAME.config(2, {"target": 60}),
        3,
        [FunctionPlayer(first), bad],
        policy=ErrorPolicy("substitute", budget=3),
    )
    verdicts = [(f.seat, f.verdict) for f in record.failures]
    assert verdicts == [(1, "crash"), (1, "timeout"), (1, "illegal"), (1, "illegal")]
    assert record.result["forfeited"] == [False, True]  # 4 errors > budget 3
    assert bad.asked == 5
    replay(GAME, record)


def test_substitute_within_budget_keeps_the_seat():
    bad = Scripted({0: "x"})
    record = play_match(
        GAME, GAME.config(2), 3, [FunctionPlayer(first), bad], policy=ErrorPolicy("substitute", budget=1)
    )
    assert record.result["forfeited"] == [False, False]
    assert len(record.failures) == 1


@pytest.mark.parametrize(
    ("ready", "needle"),
    [
        (bot_pb2.Ready(protocol_version="2.0"), "protocol version"),
        (bot_pb2.Ready(), "ready has no protocol_version"),
        (bot_pb2.Ready(protocol_version="1.0", game_id="skyfive"), "bot plays 'skyfive'"),
        (bot_pb2.Ready(protocol_version="1.0", game_id="rolldice", game_version="0.9"), "version 0.9"),
    ],
)
def test_version_mismatch_is_a_protocol_failure_before_any_decision(ready, needle):
    bad = Scripted({}, ready=ready)
    record = play_match(GAME, GAME.config(2), 3, [FunctionPlayer(first), bad])
    (failure,) = record.failures
    assert failure.verdict == "protocol" and failure.decision == -1 and needle in failure.detail
    assert bad.asked == 0
    assert record.result["forfeited"] == [False, True]


class FailsAtStart(Scripted):
    def __init__(self, failure: Exception) -> None:
        super().__init__({})
        self.failure = failure

    def start(self, message):
        raise self.failure


@pytest.mark.parametrize(
    ("bad", "verdict"),
    [
        (Scripted({}, ready=bot_pb2.Ready(protocol_version="9.0")), "protocol"),
        (FailsAtStart(PlayerFailure("stall", "no ready within 2000 ms")), "stall"),
        (FailsAtStart(RuntimeError("boom")), "crash"),
    ],
    ids=["wrong-version", "no-ready", "crash"],
)
def test_a_seat_that_fails_at_start_up_forfeits_under_the_substitute_policy_too(bad, verdict):
    """A seat that fails at start-up (no ready, wrong versions) forfeits under either policy."""
    record = play_match(
        GAME, GAME.config(2), 3, [bad, FunctionPlayer(first)], policy=ErrorPolicy("substitute", budget=3)
    )
    assert [(f.seat, f.decision, f.verdict) for f in record.failures] == [(0, -1, verdict)]
    assert record.result["forfeited"] == [True, False] and record.result["ranks"] == [2, 1]
    assert bad.asked == 0 and {d.by for d in record.decisions if d.seat == 0} == {"substitute"}


def test_a_ready_of_the_same_major_protocol_version_is_taken():
    """``ready`` must carry ``protocol_version`` (same major version as the referee's) (README)."""
    major = PROTOCOL_VERSION.split(".")[0]
    for version in (f"{major}.99", f"{major}.0.1"):
        record = play_match(
            GAME, GAME.config(2), 3, [Scripted({}, ready=bot_pb2.Ready(protocol_version=version)), RandomBot()]
        )
        assert not record.failures, version


def test_a_failures_detail_is_cut_to_500_characters_with_its_length_noted():
    bad = Scripted({0: RuntimeError("x" * 2000)})
    (failure,) = play_match(GAME, GAME.config(2), 3, [bad, FunctionPlayer(first)]).failures
    assert failure.detail == "RuntimeError: " + "x" * (500 - len("RuntimeError: ")) + "…(2014 chars)"


def test_a_verdict_is_one_of_the_verdicts():
    with pytest.raises(ValueError, match="unknown verdict 'slow'"):
        PlayerFailure("slow", "took its time")


def test_every_seat_is_told_who_forfeited():
    """The Finish each seat receives says which seats forfeited (SeatResult.forfeited)."""
    bad, good = Scripted({1: "jump"}), Scripted({})
    record = play_match(GAME, GAME.config(2), 3, [bad, good])
    assert record.result["forfeited"] == [True, False]
    assert good.finished is not None
    assert [(r.seat, r.rank, r.forfeited) for r in good.finished.result.seats] == [(0, 2, True), (1, 1, False)]


def test_players_receive_start_requests_and_finish():
    seen: list[bot_pb2.DecisionRequest] = []

    class Spy(RandomBot):
        def choose(self, turn):
            seen.append(turn.request)
            return super().choose(turn)

    spy = Spy()
    record = play_match(GAME, GAME.config(2), 5, [spy, RandomBot()])
    assert spy.match is not None and spy.match.game_id == "rolldice" and spy.match.seat == 0
    assert all(r.seat == 0 for r in seen)
    # Events arrive incrementally: indices strictly increase across requests, none repeated.
    indices = [e.index for r in seen for e in r.events]
    assert indices == sorted(set(indices))
    assert spy.history and spy.history[-1].kind == "end"
    assert [d.decision_index for d in seen] == [i for i, d in enumerate(record.decisions) if d.seat == 0]


def test_a_forfeited_seat_that_outscores_the_others_is_not_called_winner():
    bad, good = Scripted({0: "jump"}), Scripted({})
    record = play_match(GAME, GAME.config(2), 2, [bad, good])
    assert record.result["scores"][0] > record.result["scores"][1]  # the substitute outscored seat 1
    assert record.result["ranks"] == [2, 1]
    assert record.result["summary"] == "winner: seat 1 (seat 0 forfeited)"
    assert good.finished is not None and good.finished.result.summary == record.result["summary"]
    assert MatchRecord.loads(record.dumps()).result["summary"] == record.result["summary"]
    replay(GAME, record)


def test_when_every_seat_forfeits_the_summary_says_so():
    record = play_match(GAME, GAME.config(2), 2, [Scripted({0: "jump"}), Scripted({0: "jump"})])
    assert record.result["summary"].endswith("(every seat forfeited)")


def test_a_record_reads_back_the_same_whichever_json_parser_takes_it():
    """Records are parsed by orjson, and by the json module where orjson refuses what Python's
    json accepts: a line Python wrote with NaN or a huge integer reads as it always did, and
    text that is not JSON is a RecordError."""
    record = play_match(GAME, GAME.config(2), 5, [RandomBot(), RandomBot()])
    again = MatchRecord.loads(record.dumps())
    assert again.to_json() == record.to_json()
    data = record.to_json()
    data["result"] = {**data["result"], "note": float("nan"), "big": 2**70}
    line = json.dumps(data)
    assert "NaN" in line
    odd = MatchRecord.loads(line)
    assert math.isnan(odd.result["note"]) and odd.result["big"] == 2**70
    with pytest.raises(RecordError, match="not JSON"):
        MatchRecord.loads('{"record": 1,')
    with pytest.raises(RecordError, match=r"a number of more than 4,300 digits"):
        MatchRecord.loads('{"record": ' + "9" * 5000 + "}")
    with pytest.raises(RecordError, match="nested too deeply"):
        MatchRecord.loads("[" * 100_000 + "]" * 100_000)


def test_a_record_is_written_as_the_json_module_writes_it():
    """Records are serialised by orjson where its line is the json module's (ASCII text, 64-bit
    integers; a record's floats are times in whole microseconds and scores) and by the json
    module otherwise: the same line either way, the same values always."""
    record = play_match(GAME, GAME.config(2), 5, [RandomBot(), RandomBot()])
    data = record.to_json()
    assert record.dumps() == json.dumps(data, separators=(",", ":"))
    for extra in ({"note": "é — ✓"}, {"big": 2**70}):
        odd = MatchRecord.from_json({**data, "result": {**data["result"], **extra}})
        line = odd.dumps()
        assert line == json.dumps(odd.to_json(), separators=(",", ":"))
        assert line.isascii()
        assert MatchRecord.loads(line).result == odd.result
    tiny = MatchRecord.from_json({**data, "result": {**data["result"], "p": 1e-05}})
    assert json.loads(tiny.dumps())["result"]["p"] == 1e-05  # spelled 0.00001: the same number
