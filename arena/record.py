"""Match records: everything needed to re-simulate a match and check its result.

A record holds the game id and version, the config, the seed, the seats, every decision (seat,
kind, number of options, chosen id, time taken, and whether the bot or a substitute chose),
every failure (seat, decision index, verdict, detail) and the result. :func:`replay`
re-simulates a record through the engine and raises :class:`ReplayMismatch` at the first
difference.

JSON form (one object per match; ``matches.jsonl`` holds one per line)::

    {"record": 1, "match_id": ..., "game": ..., "game_version": ..., "config": {...},
     "seed": ..., "seats": [{"bot": ..., "version": ...}], "policy": {...},
     "decisions": [{"step": 0, "seat": 0, "kind": "roll", "options": 2, "choice": "stop",
                    "ms": 0.01, "by": "bot"}, ...],
     "failures": [{"seat": 1, "decision": 7, "verdict": "illegal", "detail": ...}],
     "strikes": [{"seat": 0, "decision": 4, "late_ms": 131.5}],
     "result": {"scores": [...], "ranks": [...], "forfeited": [...], "summary": ...},
     "tournament": {"index": 12, "group": 6, "rotation": 0}}   # only in tournaments

A strike is an answer that came after the decision limit and the bank, within the grace: the
decision stands (it is the bot's), the lateness is recorded. Records written before strikes were
recorded read as having none.

Decisions of one *step* were open at the same time (a sealed simultaneous decision). The ``ms``
fields (per decision and for the whole match) are the only ones that vary between two runs of
the same match, with the strikes' ``late_ms``; :meth:`MatchRecord.canonical` drops them for
comparisons.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec
import orjson

from arena.engine import Game, MatchState, Result, competition_ranks


def _parse(line: str) -> Any:
    """JSON text to Python values: orjson (a third of the json module's time on a record, which
    a following client or the service pays for every record it reads), the json module for what
    orjson refuses and Python's json accepts (NaN, integers past 64 bits, lone surrogates), so
    a record reads as it always did."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)


RECORD_FORMAT = 1


class ReplayMismatch(Exception):
    """A record does not reproduce: the message names the first difference."""


class RecordError(ValueError):
    """A record file or object is malformed."""


@dataclass(slots=True)  # made for every decision of every match: slots make it cheaper
class DecisionEntry:
    step: int
    seat: int
    kind: str
    options: int
    choice: str
    ms: float = 0.0
    by: str = "bot"  # "bot" or "substitute"

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "seat": self.seat,
            "kind": self.kind,
            "options": self.options,
            "choice": self.choice,
            "ms": self.ms,
            "by": self.by,
        }


@dataclass
class FailureEntry:
    seat: int
    decision: int  # index into decisions; -1 = before the first decision (start-up)
    verdict: str
    detail: str


@dataclass
class StrikeEntry:
    seat: int
    decision: int  # index into decisions
    late_ms: float  # past the limit and the bank (within the grace)


@dataclass
class MatchRecord:
    match_id: str
    game: str
    game_version: str
    config: dict[str, Any]
    seed: int
    seats: list[dict[str, str]]
    policy: dict[str, Any] = field(default_factory=dict)
    decisions: list[DecisionEntry] = field(default_factory=list)
    failures: list[FailureEntry] = field(default_factory=list)
    strikes: list[StrikeEntry] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    tournament: dict[str, Any] = field(default_factory=dict)
    """Where the match sits in a tournament: index, duplicate group, rotation (empty otherwise)."""
    ms: float = 0.0
    """Wall time of the whole match, start to finish (varies between runs, like decision times)."""

    # -- JSON -------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        # Built by hand: dataclasses.asdict deep-copies every value and costs as much as playing
        # a quick match.
        return {
            "record": RECORD_FORMAT,
            "match_id": self.match_id,
            "game": self.game,
            "game_version": self.game_version,
            "config": self.config,
            "seed": self.seed,
            "seats": self.seats,
            "policy": self.policy,
            "decisions": [d.to_json() for d in self.decisions],
            "failures": [dict(vars(f)) for f in self.failures],
            "strikes": [dict(vars(s)) for s in self.strikes],
            "result": self.result,
            "tournament": self.tournament,
            "ms": self.ms,
        }

    def dumps(self) -> str:
        """One line of JSON (the line it was parsed from, if any: records do not change)."""
        line = self.__dict__.get("_line")
        if line is not None:
            return line
        data = self.to_json()
        # orjson: a tenth of the json module's 12 µs on a RollDice record, paid by every match a
        # worker or a local run plays. For ASCII text its line is the json module's (floats
        # below 1e-4 aside, which it spells 0.00001 where json spells 1e-05: the same number;
        # a record's times are whole microseconds); anything else (json escapes non-ASCII,
        # orjson refuses integers past 64 bits) goes to json.
        try:
            raw: bytes | None = orjson.dumps(data)
        except TypeError:
            raw = None
        if raw is not None and raw.isascii():
            return raw.decode()
        return json.dumps(data, separators=(",", ":"), sort_keys=False)

    @classmethod
    def loads(cls, line: str) -> MatchRecord:
        """A record from one line of JSON, keeping the line (so writing it again is free)."""
        record = _decode_written(line) if cls is MatchRecord else None
        if record is None:
            try:
                data = _parse(line)
            except json.JSONDecodeError as exc:
                raise RecordError(f"not JSON ({exc.msg})") from None
            record = cls.from_json(data)
        record.__dict__["_line"] = line.rstrip("\n")
        return record

    def canonical(self) -> dict[str, Any]:
        """The JSON form without timings (identical for two runs of the same match)."""
        data = self.to_json()
        data.pop("ms", None)
        for entry in data["decisions"]:
            entry.pop("ms", None)
        for entry in data["strikes"]:
            entry.pop("late_ms", None)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchRecord:
        if not isinstance(data, dict) or data.get("record") != RECORD_FORMAT:
            raise RecordError(f"not an arena match record (format {RECORD_FORMAT})")
        try:
            return cls(
                match_id=str(data["match_id"]),
                game=str(data["game"]),
                game_version=str(data["game_version"]),
                config=dict(data["config"]),
                seed=int(data["seed"]),
                seats=[dict(s) for s in data["seats"]],
                policy=dict(data.get("policy", {})),
                decisions=[DecisionEntry(**d) for d in data["decisions"]],
                failures=[FailureEntry(**f) for f in data.get("failures", [])],
                strikes=[StrikeEntry(**s) for s in data.get("strikes", [])],
                result=dict(data["result"]),
                tournament=dict(data.get("tournament", {})),
                ms=float(data.get("ms", 0.0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"malformed match record: {exc}") from None

    # -- derived ----------------------------------------------------------------------------

    @property
    def forfeited(self) -> list[bool]:
        return list(self.result.get("forfeited", [False] * len(self.seats)))


_WRITTEN = f'{{"record":{RECORD_FORMAT},'
_decoder: msgspec.json.Decoder[MatchRecord] | None = None


def _decode_written(line: str) -> MatchRecord | None:
    """A line as :meth:`MatchRecord.dumps` writes it, decoded straight into the dataclasses by
    msgspec (half the time of parsing and then building them: a following client and the
    service read every record); None for anything else or anything msgspec refuses (a type
    it would have to convert, NaN, a lone surrogate), which the general path then reads."""
    global _decoder
    if not line.startswith(_WRITTEN):
        return None
    if _decoder is None:
        _decoder = msgspec.json.Decoder(MatchRecord)
    try:
        return _decoder.decode(line)
    except msgspec.DecodeError:
        return None


class TimedDecision(msgspec.Struct):
    """A decision as a tally reads it: whose, how long it took, who chose."""

    seat: int
    ms: float = 0.0
    by: str = "bot"


class SeatFailure(msgspec.Struct):
    """A failure as a tally reads it: whose, and the verdict."""

    seat: int
    verdict: str


class RecordView(msgspec.Struct):
    """The parts of a record its tallies read (a leaderboard's sums, an SPRT's scores, its place
    in the run), shaped as :class:`MatchRecord` has them, decoded from the record's line and
    nothing more. A following client reads every record of a distributed run for these alone:
    the rest of the record (config, seed, the decisions' choices, details) it only writes to
    disk as the line it came as; decoding it all took a third of the client's CPU."""

    seats: list[dict[str, str]]
    result: dict[str, Any]
    decisions: list[TimedDecision] = []
    failures: list[SeatFailure] = []
    tournament: dict[str, Any] = {}


class Tallied(Protocol):
    """What a tally reads of a record: a :class:`MatchRecord` or a :class:`RecordView`."""

    @property
    def seats(self) -> list[dict[str, str]]: ...
    @property
    def result(self) -> dict[str, Any]: ...
    @property
    def decisions(self) -> list[DecisionEntry] | list[TimedDecision]: ...
    @property
    def failures(self) -> list[FailureEntry] | list[SeatFailure]: ...
    @property
    def tournament(self) -> dict[str, Any]: ...


_view_decoder = msgspec.json.Decoder(RecordView)


def read_view(line: str) -> RecordView | MatchRecord:
    """The tallied parts of a record line: a :class:`RecordView` for a line as
    :meth:`MatchRecord.dumps` writes it, else (an older or hand-written line) the whole record,
    read and checked as :meth:`MatchRecord.loads` reads it."""
    if line.startswith(_WRITTEN):
        try:
            return _view_decoder.decode(line)
        except msgspec.DecodeError:
            pass
    return MatchRecord.loads(line)


def with_forfeits(result: Result, forfeited: list[bool]) -> Result:
    """The result with forfeited seats ranked last (tied); the others keep their order.

    The summary follows the ranks: the game's summary names its winners by score, so when a
    forfeit changes who ranks first it is replaced (a forfeited seat is never called winner)."""
    if not any(forfeited):
        return result
    seats = range(len(result.ranks))
    keys = [(not forfeited[s], -result.ranks[s]) for s in seats]
    ranks = competition_ranks(keys)
    summary = result.summary
    first = [s for s in seats if ranks[s] == 1]
    if all(forfeited):
        summary = f"{summary} (every seat forfeited)"  # ranked among themselves, as the game ranks
    elif first != [s for s in seats if result.ranks[s] == 1]:
        out = ", ".join(str(s) for s in seats if forfeited[s])
        summary = f"winner{'s' if len(first) > 1 else ''}: seat {', '.join(map(str, first))} (seat {out} forfeited)"
    return Result(result.scores, ranks, summary)


def read_records(path: Path) -> Iterator[MatchRecord]:
    """Records from a ``.json`` file (one record) or ``.jsonl`` file (one per line)."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    stripped = text.strip()
    if not stripped:
        raise RecordError(f"{path} is empty")
    if (stripped.startswith("{") and "\n" not in stripped) or path.suffix == ".json":
        lines = [stripped]
    else:
        lines = [line for line in text.splitlines() if line.strip()]
    for number, line in enumerate(lines, 1):
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}:{number}: not JSON ({exc.msg})") from None
        yield MatchRecord.from_json(data)


def replay(game: Game, record: MatchRecord) -> Result:
    """Re-simulate a record; return the result, or raise ReplayMismatch at the first difference."""
    state = resimulate(game, record)
    result = game.result(state)
    assert result is not None
    result = with_forfeits(result, record.forfeited)
    for name, mine, theirs in (
        ("scores", list(result.scores), record.result.get("scores")),
        ("ranks", list(result.ranks), record.result.get("ranks")),
    ):
        if mine != theirs:
            raise ReplayMismatch(f"result {name} differ: engine {mine}, record {theirs}")
    return result


def resimulate(game: Game, record: MatchRecord) -> MatchState:
    """The final state of a recorded match (its full event log included), checking every
    decision against the engine on the way; ReplayMismatch at the first difference."""
    if record.game != game.meta.id:
        raise ReplayMismatch(f"record is for game {record.game!r}, not {game.meta.id!r}")
    if record.game_version != game.meta.version:
        raise ReplayMismatch(f"game version differs: record {record.game_version!r}, engine {game.meta.version!r}")
    config = game.config(int(record.config["players"]), record.config.get("options", {}))
    state = game.new_match(config, record.seed)
    entries = record.decisions
    i = 0
    while i < len(entries):
        step = entries[i].step
        group = []
        while i < len(entries) and entries[i].step == step:
            group.append((i, entries[i]))
            i += 1
        pending = {d.seat: d for d in state.pending}
        if not pending:
            raise ReplayMismatch(f"decision {group[0][0]}: the match is already over")
        if sorted(pending) != sorted(e.seat for _, e in group):
            raise ReplayMismatch(
                f"decision {group[0][0]}: engine asks seats {sorted(pending)}, "
                f"record has seats {sorted(e.seat for _, e in group)}"
            )
        for index, entry in group:
            decision = pending[entry.seat]
            if decision.kind != entry.kind:
                raise ReplayMismatch(f"decision {index}: kind {decision.kind!r} in engine, {entry.kind!r} in record")
            if len(decision.options) != entry.options:
                raise ReplayMismatch(
                    f"decision {index}: {len(decision.options)} options in engine, {entry.options} in record"
                )
            if decision.find(entry.choice) is None:
                raise ReplayMismatch(f"decision {index}: {entry.choice!r} is not a legal option")
        game.apply(state, {e.seat: e.choice for _, e in group})
    if state.pending:
        raise ReplayMismatch(f"record ends after {len(entries)} decisions but the match goes on")
    return state
