"""A tournament's output directory.

    tournament.json    the exact spec (enough to rerun it) and the run's status
    matches.jsonl      one match record per line (replayable with ``arena replay``)
    leaderboard.json   the final leaderboard
    leaderboard.csv    the same, one row per bot

Records are appended and flushed as they finish, so an interrupted run loses nothing that was
finished; a torn last line (the process killed mid-write) is dropped on reading. When the run
completes, ``matches.jsonl`` is rewritten in schedule order (atomically), so the same
tournament gives the same file whatever the number of workers.
"""

from __future__ import annotations

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


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)


class RunDirectory:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: TextIO | None = None

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
        return records

    def append(self, record: MatchRecord) -> None:
        """Append one record and flush it to the OS (a crash of this process loses nothing)."""
        if self._handle is None:
            self._handle = self.matches_path.open("a")
        self._handle.write(record.dumps() + "\n")
        self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def finalize(self, records: list[MatchRecord]) -> None:
        self.close()
        ordered = sorted(records, key=lambda r: int(r.tournament["index"]))
        _write_atomic(self.matches_path, "".join(r.dumps() + "\n" for r in ordered))

    def write_leaderboard(self, board: dict[str, Any], csv_text: str) -> None:
        _write_atomic(self.path / LEADERBOARD_JSON, json.dumps(board, indent=2) + "\n")
        _write_atomic(self.path / LEADERBOARD_CSV, csv_text)
