"""A tournament's output directory.

    tournament.json    the exact spec (enough to rerun it) and the run's status
    matches.jsonl      one match record per line (replayable with ``arena replay``)
    leaderboard.json   the final leaderboard
    leaderboard.csv    the same, one row per bot

Records are appended and flushed as they finish, so an interrupted run loses nothing that was
finished; a torn last line (the process killed mid-write) is dropped on reading. When the run
completes, ``matches.jsonl`` is left in schedule order (its lines moved, atomically, if they
came out of order), so the same tournament gives the same file whatever the number of workers.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any, TextIO

from arena.config import ConfigError
from arena.record import MatchRecord, RecordError
from arena.tournament import TournamentSpec

SPEC = "tournament.json"
MATCHES = "matches.jsonl"
LEADERBOARD_JSON = "leaderboard.json"
LEADERBOARD_CSV = "leaderboard.csv"


def _index(record: MatchRecord) -> int:
    return int(record.tournament["index"])


def _write_atomic(path: Path, text: str | bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb" if isinstance(text, bytes) else "w") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)


class RunDirectory:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: TextIO | None = None
        # The schedule index of each line of matches.jsonl, in file order (read or appended):
        # the final rewrite in schedule order then moves lines, parsing none of them.
        self._order: list[int] = []

    @property
    def matches_path(self) -> Path:
        return self.path / MATCHES

    def exists(self) -> bool:
        return (self.path / SPEC).exists()

    def create(self, spec: TournamentSpec, tournament_id: str) -> None:
        if self.exists():
            raise ConfigError(f"{self.path} already holds a tournament; use --resume to continue it")
        self.path.mkdir(parents=True, exist_ok=True)
        self.write_status(spec, tournament_id, "running")
        self.matches_path.touch()

    def write_status(self, spec: TournamentSpec, tournament_id: str, status: str, **extra: Any) -> None:
        data = {"id": tournament_id, "status": status, "spec": spec.to_json(), **extra}
        _write_atomic(self.path / SPEC, json.dumps(data, indent=2) + "\n")

    def read_status(self) -> dict[str, Any]:
        try:
            data = json.loads((self.path / SPEC).read_text())
        except FileNotFoundError:
            raise ConfigError(f"{self.path} has no {SPEC}: nothing to resume") from None
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{self.path / SPEC} is not valid JSON: {exc.msg}") from None
        if not isinstance(data, dict) or "spec" not in data:
            raise ConfigError(f"{self.path / SPEC} is not an arena tournament file")
        return data

    def read_spec(self) -> tuple[TournamentSpec, str]:
        data = self.read_status()
        return TournamentSpec.from_json(data["spec"]), str(data.get("id", self.path.name))

    def load_records(self) -> list[MatchRecord]:
        """Every complete record in matches.jsonl (a torn last line is dropped and truncated)."""
        if not self.matches_path.exists():
            return []
        raw = self.matches_path.read_bytes()
        records: list[MatchRecord] = []
        good = 0
        for line in raw.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break  # torn write at the end
            try:
                records.append(MatchRecord.loads(line.decode()))
            except RecordError as exc:
                raise ConfigError(
                    f"{self.matches_path}: line {len(records) + 1} is not a match record: {exc}"
                ) from None
            good += len(line)
        if good != len(raw):
            with self.matches_path.open("r+b") as handle:
                handle.truncate(good)
        self._order = [_index(record) for record in records]
        return records

    def append(self, record: MatchRecord, line: str | None = None) -> None:
        """Append one record and flush it to the OS (a crash of this process loses nothing).
        ``line``: the record's JSON (``record.dumps()``) when the caller has it already."""
        if self._handle is None:
            self._handle = self.matches_path.open("a")
        self._handle.write((line if line is not None else record.dumps()) + "\n")
        self._handle.flush()
        self._order.append(_index(record))

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def finalize(self) -> None:
        """Leave matches.jsonl in schedule order: rewritten atomically from its own lines (none
        parsed or serialised again), or, already in order (one local process), made durable."""
        self.close()
        raw = self.matches_path.read_bytes()
        lines = raw.splitlines(keepends=True)
        order = self._order
        if len(order) != len(lines):  # lines this object did not write or read: ask each
            order = [_index(MatchRecord.loads(line.decode())) for line in lines]
        if all(a <= b for a, b in itertools.pairwise(order)):
            with self.matches_path.open("rb+") as handle:
                os.fsync(handle.fileno())
            return
        by_index = sorted(range(len(lines)), key=order.__getitem__)  # stable: file order within an index
        _write_atomic(self.matches_path, b"".join(lines[i] for i in by_index))

    def write_leaderboard(self, board: dict[str, Any], csv_text: str) -> None:
        _write_atomic(self.path / LEADERBOARD_JSON, json.dumps(board, indent=2) + "\n")
        _write_atomic(self.path / LEADERBOARD_CSV, csv_text)
