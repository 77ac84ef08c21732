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
import mmap
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from arena.config import ConfigError
from arena.record import MatchRecord, RecordError, RecordView
from arena.tallied import TallyEntry
from arena.tournament import TournamentSpec

SPEC = "tournament.json"
MATCHES = "matches.jsonl"
LEADERBOARD_JSON = "leaderboard.json"
LEADERBOARD_CSV = "leaderboard.csv"


def _index(record: MatchRecord | RecordView | TallyEntry) -> int:
    return record.schedule_index if isinstance(record, TallyEntry) else int(record.tournament["index"])


def _write_atomic(path: Path, text: str | bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb" if isinstance(text, bytes) else "w") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)


UNWRITTEN_LINES = 1000
"""Lines appended without a flush that are written out at once anyway."""


class RunDirectory:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: TextIO | None = None
        self._unwritten: list[str] = []  # lines appended with flush=False, written at the next flush
        # The schedule index of each line of matches.jsonl, in file order (read or appended):
        # the final rewrite in schedule order then moves lines, parsing none of them.
        self._order: list[int] = []
        self._whole = False  # whether _order covers every line of the file (read or written here)

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
        self._order = []
        self._whole = self.matches_path.stat().st_size == 0

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

    def records(self) -> Iterator[MatchRecord]:
        """Every complete record in matches.jsonl, one at a time, in file order (a resumed run
        never holds them all); a torn last line (the process killed mid-write) is dropped and
        truncated once the file has been read to its end."""
        if not self.matches_path.exists():
            return
        order: list[int] = []
        good = 0
        with self.matches_path.open("rb") as handle:
            for number, line in enumerate(handle, 1):
                if not line.endswith(b"\n"):
                    break  # torn write at the end
                try:
                    record = MatchRecord.loads(line.decode())
                except RecordError as exc:
                    raise ConfigError(f"{self.matches_path}: line {number} is not a match record: {exc}") from None
                try:
                    order.append(_index(record))
                except (KeyError, TypeError, ValueError):
                    raise ConfigError(
                        f"{self.matches_path}: line {number} is not a record of a tournament (no schedule index)"
                    ) from None
                good += len(line)
                yield record
            size = handle.seek(0, os.SEEK_END)
        if good != size:
            with self.matches_path.open("r+b") as handle:
                handle.truncate(good)
        self._order = order
        self._whole = True

    def load_records(self) -> list[MatchRecord]:
        """Every complete record in matches.jsonl (see :meth:`records`)."""
        return list(self.records())

    def append(
        self, record: MatchRecord | RecordView | TallyEntry, line: str | None = None, *, flush: bool = True
    ) -> None:
        """Append one record and flush it to the OS (a crash of this process loses nothing).
        ``line``: the record's JSON (``record.dumps()``) when the caller has it already.
        ``flush=False`` for all but the last of records handed over together: they are written
        together then (a write call per record was a fifth of a following client's CPU, and a
        line copied to add its newline a tenth of what was left)."""
        if line is None:
            if not isinstance(record, MatchRecord):
                raise TypeError("a record view is written as its line: pass the line")
            line = record.dumps()
        self._unwritten.append(line)
        self._order.append(_index(record))
        if flush or len(self._unwritten) >= UNWRITTEN_LINES:
            self._write(flush)

    def _write(self, flush: bool = True) -> None:
        if self._handle is None:
            self._handle = self.matches_path.open("a")
        if self._unwritten:
            self._unwritten.append("")  # the last line's newline
            self._handle.write("\n".join(self._unwritten))
            self._unwritten.clear()
        if flush:
            self._handle.flush()

    def close(self) -> None:
        if self._unwritten:
            self._write()
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def finalize(self) -> None:
        """Leave matches.jsonl in schedule order: rewritten atomically from its own lines (none
        parsed or serialised again, none held in memory: they are copied from a map of the
        file), or, already in order (one local process), made durable without being read."""
        self.close()
        with self.matches_path.open("rb") as handle:
            order = self._order if self._whole else [_index(MatchRecord.loads(line.decode())) for line in handle]
            if all(a <= b for a, b in itertools.pairwise(order)):
                os.fsync(handle.fileno())
                return
            handle.seek(0)
            starts = list(itertools.accumulate((len(line) for line in handle), initial=0))
            if len(starts) - 1 != len(order):  # lines this object did not write or read: ask each
                handle.seek(0)
                order = [_index(MatchRecord.loads(line.decode())) for line in handle]
            by_index = sorted(range(len(order)), key=order.__getitem__)  # stable: file order within an index
            tmp = self.matches_path.with_name(self.matches_path.name + ".tmp")
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as lines, tmp.open("wb") as out:
                for i in by_index:
                    out.write(lines[starts[i] : starts[i + 1]])
                out.flush()
                os.fsync(out.fileno())
        tmp.replace(self.matches_path)

    def write_leaderboard(self, board: dict[str, Any], csv_text: str) -> None:
        _write_atomic(self.path / LEADERBOARD_JSON, json.dumps(board, indent=2) + "\n")
        _write_atomic(self.path / LEADERBOARD_CSV, csv_text)
