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
     "failures": [{"seat": 1, "decision": 7, "verdict": "illegal", "detail": ...}],  # "forfeits": true
                                                    # where a bot could answer no more
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
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec
import orjson

from arena.engine import Game, MatchState, Result, competition_ranks


def _unreadable(exc: ValueError | RecursionError) -> str:
    """Why a line is no JSON a record can be: malformed, or what Python's reader refuses (an
    integer of more than 4,300 digits, nesting past its recursion limit), which ended
    ``arena replay`` in a traceback (an outside probe)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc.msg})"
    if isinstance(exc, RecursionError):
        return "not a record (JSON nested too deeply)"
    return "not a record (a number of more than 4,300 digits)"  # int()'s limit, the one ValueError left


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
    forfeits: bool = False
    """The seat forfeits here though its policy alone would not: its bot can answer no more (a
    remote bot's stream gone). Written only when true: records before it read the same."""

    def to_json(self) -> dict[str, Any]:
        data = {"seat": self.seat, "decision": self.decision, "verdict": self.verdict, "detail": self.detail}
        if self.forfeits:
            data["forfeits"] = True
        return data


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
            "failures": [f.to_json() for f in self.failures],
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
        if record is not None:
            record.check()  # msgspec checked the entries' types, not the config's or the result's
        else:
            try:
                data = _parse(line)
            except (ValueError, RecursionError) as exc:
                raise RecordError(_unreadable(exc)) from None
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
        """A record from its JSON form, every field's type checked (:class:`RecordError` names
        the field: a record read from a file is not trusted to be one Arena wrote)."""
        if not isinstance(data, dict) or data.get("record") != RECORD_FORMAT:
            raise RecordError(f"not an arena match record (format {RECORD_FORMAT})")
        try:
            record = cls(
                match_id=_string(data, "match_id"),
                game=_string(data, "game"),
                game_version=_string(data, "game_version"),
                config=_mapping(data, "config"),
                seed=_whole(data, "seed"),
                seats=[_object(seat, f"seats[{i}]") for i, seat in enumerate(_list(data, "seats"))],
                policy=_mapping(data, "policy", optional=True),
                decisions=_entries(data, "decisions", DecisionEntry, _DECISION_FIELDS, required=True),
                failures=_entries(data, "failures", FailureEntry, _FAILURE_FIELDS),
                strikes=_entries(data, "strikes", StrikeEntry, _STRIKE_FIELDS),
                result=_mapping(data, "result"),
                tournament=_mapping(data, "tournament", optional=True),
                ms=_number(data, "ms", default=0.0),
            )
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError) as exc:  # a conversion the checks let through
            raise RecordError(f"malformed match record: {exc}") from None
        record.check()
        return record

    def check(self) -> None:
        """The fields the engine and the viewer read whatever their path: the seed, the config's
        player count and options, the seats, the result's lists (RecordError naming the field)."""
        if self.seed < 0:  # random.seed takes -N as N: the record would claim a seed that never dealt
            raise _wrong("seed", "a whole number 0 or more", self.seed)
        config = self.config
        if "players" not in config:
            raise RecordError("malformed match record: config.players: missing")
        players = config["players"]
        if not _is_int(players):
            raise _wrong("config.players", "a whole number", players)
        options = config.get("options", {})
        if options is not None and not isinstance(options, dict):
            raise _wrong("config.options", "an object", options)
        for i, seat in enumerate(self.seats):
            if not isinstance(seat, dict):
                raise _wrong(f"seats[{i}]", "an object", seat)
            bot = seat.get("bot", "")
            if not isinstance(bot, str):
                raise _wrong(f"seats[{i}].bot", "a string", bot)
        result = self.result
        for key, test, expected in (
            ("scores", _is_number, "a list of numbers"),
            ("ranks", _is_int, "a list of whole numbers"),
            ("forfeited", _is_bool, "a list of true/false"),
        ):
            value = result.get(key, [])
            if not (isinstance(value, list) and all(test(x) for x in value)):
                raise _wrong(f"result.{key}", expected, value)
        if len(self.seats) != players:  # resimulate indexes a seat of every player
            raise RecordError(f"malformed match record: seats: {len(self.seats)} listed for {players} players")
        forfeited = result.get("forfeited")
        if forfeited is not None and len(forfeited) != players:
            raise RecordError(
                f"malformed match record: result.forfeited: expected one per seat ({players}), got {len(forfeited)}"
            )
        summary = result.get("summary", "")
        if not isinstance(summary, str):
            raise _wrong("result.summary", "a string", summary)

    # -- derived ----------------------------------------------------------------------------

    @property
    def forfeited(self) -> list[bool]:
        return list(self.result.get("forfeited", [False] * len(self.seats)))


# -- checking a record's fields (the general path: a record from a file or another writer) -----


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    # A whole number past a float's range (10**400, valid JSON) is no number a record holds:
    # float() of it raised OverflowError, a traceback.
    if isinstance(value, int) and not isinstance(value, bool):
        return -sys.float_info.max <= value <= sys.float_info.max
    return isinstance(value, float)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    text = json.dumps(value)  # a value read from JSON: a string, a number, true/false or null
    return text if len(text) <= 40 else text[:37] + "..."


def _wrong(where: str, expected: str, value: Any) -> RecordError:
    return RecordError(f"malformed match record: {where}: expected {expected}, got {_show(value)}")


def _required(data: dict[str, Any], key: str) -> Any:
    if key not in data:
        raise RecordError(f"malformed match record: {key}: missing")
    return data[key]


def _string(data: dict[str, Any], key: str) -> str:
    """A string (an object or a number was taken as its text: a match id of ``{}``)."""
    value = _required(data, key)
    if not isinstance(value, str):
        raise _wrong(key, "a string", value)
    return value


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _wrong(where, "an object", value)
    return dict(value)


def _mapping(data: dict[str, Any], key: str, *, optional: bool = False) -> dict[str, Any]:
    """``data[key]``, an object (``optional``: absent reads as empty), or RecordError."""
    if optional and key not in data:
        return {}
    return _object(_required(data, key), key)


def _list(data: dict[str, Any], key: str, *, required: bool = True) -> list[Any]:
    value = _required(data, key) if required else data.get(key, [])
    if not isinstance(value, list):
        raise _wrong(key, "a list", value)
    return value


def _whole(data: dict[str, Any], key: str) -> int:
    """A whole number (a string of one is read too: other writers' seeds)."""
    value = _required(data, key)
    if _is_int(value):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
    raise _wrong(key, "a whole number", value)


def _number(data: dict[str, Any], key: str, *, default: float) -> float:
    value = data.get(key, default)
    if not _is_number(value):
        raise _wrong(key, "a number", value)
    return float(value)


_FieldSpec = dict[str, tuple[str, bool]]  # field -> (type: "int", "number" or "str"; required)
_DECISION_FIELDS: _FieldSpec = {
    "step": ("int", True),
    "seat": ("int", True),
    "kind": ("str", True),
    "options": ("int", True),
    "choice": ("str", True),
    "ms": ("number", False),
    "by": ("str", False),
}
_FAILURE_FIELDS: _FieldSpec = {
    "seat": ("int", True),
    "decision": ("int", True),
    "verdict": ("str", True),
    "detail": ("str", True),
    "forfeits": ("bool", False),
}
_STRIKE_FIELDS: _FieldSpec = {"seat": ("int", True), "decision": ("int", True), "late_ms": ("number", True)}
_TYPES = {
    "int": (_is_int, "a whole number"),
    "number": (_is_number, "a number"),
    "str": (_is_str, "a string"),
    "bool": (_is_bool, "true or false"),
}


def _entries(data: dict[str, Any], key: str, cls: Any, fields: _FieldSpec, *, required: bool = False) -> list[Any]:
    """The list ``data[key]`` of objects with ``fields``, each made a ``cls``; RecordError
    naming the entry and the field for a missing, unknown or mistyped one."""
    out = []
    for i, item in enumerate(_list(data, key, required=required)):
        where = f"{key}[{i}]"
        if not isinstance(item, dict):
            raise _wrong(where, "an object", item)
        for name, (kind, needed) in fields.items():
            if name not in item:
                if needed:
                    raise RecordError(f"malformed match record: {where}.{name}: missing")
                continue
            test, expected = _TYPES[kind]
            if not test(item[name]):
                raise _wrong(f"{where}.{name}", expected, item[name])
        unknown = [name for name in item if name not in fields]
        if unknown:
            raise RecordError(f"malformed match record: {where}: unknown field {unknown[0]!r}")
        values = {name: float(v) if fields[name][0] == "number" else v for name, v in item.items()}
        out.append(cls(**values))
    return out


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
    """The result with forfeited seats ranked below every other seat, among themselves as the
    game ranks them (the moves played for them after the forfeit decide); the others keep
    their order.

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
    """Records from a ``.json`` file (one record) or ``.jsonl`` file (one per line).

    RecordError names the file (and the line of a ``.jsonl`` file) and what is wrong."""
    try:
        if not path.is_file():  # /dev/zero was read without end, a named pipe waited forever
            raise RecordError(f"{path}: not a regular file")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not a match record (not UTF-8 text)") from None
    stripped = text.strip()
    if not stripped:
        raise RecordError(f"{path} is empty")
    if (stripped.startswith("{") and "\n" not in stripped) or path.suffix == ".json":
        lines = [stripped]
    else:
        lines = [line for line in text.splitlines() if line.strip()]
    for number, line in enumerate(lines, 1):
        where = f"{path}:{number}" if len(lines) > 1 or path.suffix == ".jsonl" else f"{path}"
        try:
            data = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise RecordError(f"{where}: {_unreadable(exc)}") from None
        try:
            yield MatchRecord.from_json(data)
        except RecordError as exc:
            raise RecordError(f"{where}: {exc}") from None


def replay(game: Game, record: MatchRecord) -> Result:
    """Re-simulate a record; return the result, or raise ReplayMismatch at the first difference."""
    state = resimulate(game, record)
    result = game.result(state)
    assert result is not None
    implied = forfeits_of(record)
    if record.forfeited != implied:  # a forfeit ranks a seat last: not the record's to say
        claimed = record.forfeited
        raise ReplayMismatch(f"result forfeited differ: its failures and policy give {implied}, record {claimed}")
    result = with_forfeits(result, implied)
    for name, mine, theirs in (
        ("scores", list(result.scores), record.result.get("scores")),
        ("ranks", list(result.ranks), record.result.get("ranks")),
        ("summary", result.summary, record.result.get("summary", result.summary)),  # names the winner
    ):
        if mine != theirs:
            raise ReplayMismatch(f"result {name} differ: engine {mine!r}, record {theirs!r}")
    return result


def forfeits_of(record: MatchRecord) -> list[bool]:
    """The seats its failures and error policy forfeit, as the runner decides: a failure at the
    start (decision -1), any failure under ``forfeit``, more than ``budget`` under ``substitute``,
    and a failure after which the bot can answer no more (``forfeits``)."""
    return [at is not None for at in forfeited_at(record)]


def forfeited_at(record: MatchRecord) -> list[int | None]:
    """Each seat's decision index from which it is forfeited (-1: from the start), or None: the
    failure that forfeits it, by the rules of :func:`forfeits_of`."""
    on_error = record.policy.get("on_error", "forfeit")
    budget = record.policy.get("budget", 3)
    if on_error not in ("forfeit", "substitute") or not isinstance(budget, int) or budget < 0:
        raise ReplayMismatch(f"policy {record.policy}: on_error is forfeit or substitute, budget a count >= 0")
    counts = [0] * len(record.seats)
    forfeited: list[int | None] = [None] * len(record.seats)
    for failure in record.failures:
        if not 0 <= failure.seat < len(counts):
            raise ReplayMismatch(f"a failure of seat {failure.seat}, in a match of {len(counts)} seats")
        counts[failure.seat] += 1
        if forfeited[failure.seat] is None and (
            failure.decision < 0 or on_error == "forfeit" or counts[failure.seat] > budget or failure.forfeits
        ):
            forfeited[failure.seat] = max(failure.decision, -1)
    return forfeited


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
    failed_at: dict[int, int] = {}  # each seat's first failure: substitutes play only after it
    for failure in record.failures:
        failed_at[failure.seat] = min(failure.decision, failed_at.get(failure.seat, failure.decision))
    # And from its forfeit on, only substitutes play for a seat (a record that said its bot
    # played on after a forfeit read as reproduced).
    forfeits = forfeited_at(record)
    i = 0
    while i < len(entries):
        step = entries[i].step
        if step != state.steps:
            raise ReplayMismatch(f"decision {i}: step {step} in record, the engine is at step {state.steps}")
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
            if entry.by not in ("bot", "substitute"):
                raise ReplayMismatch(f"decision {index}: by {entry.by!r}, expected bot or substitute")
            if entry.by == "substitute" and failed_at.get(entry.seat, index + 1) > index:
                raise ReplayMismatch(f"decision {index}: played by a substitute, but seat {entry.seat} had not failed")
            if entry.by == "bot" and (forfeit := forfeits[entry.seat]) is not None and forfeit <= index:
                since = "the start" if forfeit < 0 else f"decision {forfeit}"
                raise ReplayMismatch(f"decision {index}: played by the bot, but seat {entry.seat} forfeited at {since}")
        game.apply(state, {e.seat: e.choice for _, e in group})
    if state.pending:
        raise ReplayMismatch(f"record ends after {len(entries)} decisions but the match goes on")
    return state
