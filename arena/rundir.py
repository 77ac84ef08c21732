"""A tournament's output directory.

    tournament.json    the exact spec (enough to rerun it) and the run's status
    matches.jsonl      one match record per line (replayable with ``arena replay``)
    leaderboard.json   the final leaderboard
    leaderboard.csv    the same, one row per bot
    tournament.lock    held (``flock``) by the run playing in the directory, if any

One run at a time: a run or resume holds the directory's lock until it ends, and a second one is
refused at once. A directory holding a run file but no ``tournament.json`` is not used (it is
someone else's, or a damaged run): nothing in it is appended to or replaced.

Records are appended and flushed as they finish, so an interrupted run loses nothing that was
finished; a torn last line (the process killed mid-write) is dropped on reading. When the run
completes, ``matches.jsonl`` is left in schedule order (its lines moved, atomically, if they
came out of order), so the same tournament gives the same file whatever the number of workers.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import itertools
import json
import mmap
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from arena.atomic_write import with_path as _with_path
from arena.atomic_write import write_atomic
from arena.config import ConfigError
from arena.record import MatchRecord, RecordError, RecordView
from arena.tallied import TallyEntry
from arena.tournament import TournamentSpec

SPEC = "tournament.json"
MATCHES = "matches.jsonl"
LEADERBOARD_JSON = "leaderboard.json"
LEADERBOARD_CSV = "leaderboard.csv"
LOCK = "tournament.lock"
RUN_FILES = (MATCHES, LEADERBOARD_JSON, LEADERBOARD_CSV)
"""The files a run writes besides tournament.json (which says the directory is a run's)."""


def schedule_index(record: MatchRecord | RecordView | TallyEntry) -> int:
    """The record's place in its tournament's schedule."""
    return record.schedule_index if isinstance(record, TallyEntry) else int(record.tournament["index"])


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
        self._lock: int | None = None  # the lock file's descriptor while this object holds it
        self._appended_from: int | None = None  # matches.jsonl's size before this object wrote to it
        self._finalized = False

    @property
    def matches_path(self) -> Path:
        return self.path / MATCHES

    def exists(self) -> bool:
        return (self.path / SPEC).exists()

    def lock(self) -> bool:
        """Hold the directory for this run (an exclusive ``flock`` on its lock file, kept until
        :meth:`unlock` or the end of the process); ConfigError at once if another run holds it.
        True if taken now, False if this object held it already. The directory must exist."""
        if self._lock is not None:
            return False
        path = self.path / LOCK
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise _with_path(exc, path) from None
            who = f" (process {holder})" if holder.isdigit() else ""
            raise ConfigError(
                f"{self.path} is in use: another arena tournament run{who} holds it; "
                "wait for it to end (or stop it), or use another --out"
            ) from None
        with contextlib.suppress(OSError):  # who holds it is a courtesy; the lock is what counts
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock = fd
        return True

    def unlock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # releases the flock
            self._lock = None

    def check_new(self) -> None:
        """Refuse to start a run here: a tournament is here already (resume it), or a run's
        file without its tournament.json (someone else's file, or a damaged run: never
        appended to or replaced)."""
        if self.exists():
            raise ConfigError(f"{self.path} already holds a tournament; use --resume to continue it")
        for name in RUN_FILES:
            if os.path.lexists(self.path / name):
                raise ConfigError(
                    f"{self.path} has a {name} but no {SPEC}: it is not an arena tournament run directory, "
                    f"or a damaged one; {self.path / name} is in the way (move it, or use another --out)"
                )

    def create(self, spec: TournamentSpec, tournament_id: str) -> None:
        self.check_new()
        self.path.mkdir(parents=True, exist_ok=True)
        self.write_status(spec, tournament_id, "running")
        self.matches_path.touch()
        self._order = []
        self._whole = self.matches_path.stat().st_size == 0

    def write_status(self, spec: TournamentSpec, tournament_id: str, status: str, **extra: Any) -> None:
        data = {"id": tournament_id, "status": status, "spec": spec.to_json(), **extra}
        text = json.dumps(data, indent=2) + "\n"
        try:
            write_atomic(self.path / SPEC, text)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT) or not self._rewrite_spec(text):
                raise

    def _rewrite_spec(self, text: str) -> bool:
        """No room for a new copy (a full disk): tournament.json overwritten where it is, in the
        block it has (one write, padded with whitespace to its old length so that no tail of the
        old text is left and no truncation is needed). True if done."""
        data = text.encode()
        try:
            fd = os.open(self.path / SPEC, os.O_WRONLY)
        except OSError:
            return False
        try:
            size = os.fstat(fd).st_size
            if size > 4096 or len(data) > 4096:
                return False  # beyond a block: the rewrite could need room too
            data += b" " * (size - len(data))
            if os.pwrite(fd, data, 0) != len(data):
                return False
            os.fsync(fd)
            return True
        except OSError:
            return False
        finally:
            os.close(fd)

    def read_status(self) -> dict[str, Any]:
        try:
            data = json.loads((self.path / SPEC).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{self.path} has no {SPEC}: nothing to resume") from None
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{self.path / SPEC} is not valid JSON: {exc.msg}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{self.path / SPEC} is not an arena tournament file (not UTF-8 text)") from None
        if not isinstance(data, dict) or "spec" not in data:
            raise ConfigError(f"{self.path / SPEC} is not an arena tournament file")
        return data

    def read_spec(self) -> tuple[TournamentSpec, str]:
        data = self.read_status()
        try:
            spec = TournamentSpec.from_json(data["spec"])
            # Checked as a new run's is: a hand-edited "players": 9 with 4 bots was a ValueError.
            spec.validate()
        except ConfigError as exc:  # the file named: it was written by hand, or damaged
            raise ConfigError(f"{self.path / SPEC}: {exc}") from None
        return spec, str(data.get("id", self.path.name))

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
                except UnicodeDecodeError:
                    raise ConfigError(
                        f"{self.matches_path}: line {number} is not a match record (not UTF-8 text)"
                    ) from None
                except RecordError as exc:
                    raise ConfigError(f"{self.matches_path}: line {number} is not a match record: {exc}") from None
                try:
                    order.append(schedule_index(record))
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
        self._order.append(schedule_index(record))
        if flush or len(self._unwritten) >= UNWRITTEN_LINES:
            self._write(flush)

    def _write(self, flush: bool = True) -> None:
        try:
            if self._handle is None:
                if self._appended_from is None:  # before opening: nothing is written before it is set
                    self._appended_from = self.matches_path.stat().st_size if self.matches_path.exists() else 0
                self._handle = self.matches_path.open("a", encoding="utf-8")
            if self._unwritten:
                self._unwritten.append("")  # the last line's newline
                text = "\n".join(self._unwritten)
                # Cleared first: a write a Ctrl-C or SIGTERM cut short leaves a torn last line
                # (dropped on reading); written again whole by close(), it followed the torn part
                # and its extra newline made an empty line, and the file no longer loaded (CI).
                self._unwritten.clear()
                self._handle.write(text)
            if flush:
                self._handle.flush()
        except OSError as exc:  # a full disk: the write names no file
            raise _with_path(exc, self.matches_path) from None

    def close(self) -> None:
        if self._unwritten:
            self._write()
        if self._handle is not None:
            try:
                self._handle.close()
            except OSError as exc:
                raise _with_path(exc, self.matches_path) from None
            finally:
                self._handle = None

    def lines_appended(self) -> int | None:
        """Complete lines this object has written to matches.jsonl, counted in the file (once
        closed): exact however a Ctrl-C fell between writing a record and counting it. None once
        :meth:`finalize` has rewritten the file (every record is then counted by its caller)."""
        if self._appended_from is None:
            return None if self._finalized else 0
        if not self.matches_path.exists():
            return 0
        count = 0
        with self.matches_path.open("rb") as handle:
            handle.seek(self._appended_from)
            while chunk := handle.read(1 << 20):
                count += chunk.count(b"\n")
        return count

    def abandon(self) -> None:
        """After a failed write (a full disk): close the file, dropping what could not be
        written. The lines already in the file stay (a torn last one is dropped on reading)."""
        self._unwritten.clear()
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):  # one more try at the buffered lines; they may not fit either
                handle.close()

    def finalize(self) -> None:
        """Leave matches.jsonl in schedule order: rewritten atomically from its own lines (none
        parsed or serialised again, none held in memory: they are copied from a map of the
        file), or, already in order (one local process), made durable without being read."""
        self.close()
        tmp = self.matches_path.with_name(self.matches_path.name + ".tmp")
        try:
            self._finalize(tmp)
        except OSError as exc:  # the file as it was stays; the run can be resumed
            tmp.unlink(missing_ok=True)
            raise _with_path(exc, self.matches_path) from None
        self._finalized = True
        self._appended_from = None  # rewritten: its lines are no longer where they were appended

    def _finalize(self, tmp: Path) -> None:
        with self.matches_path.open("rb") as handle:
            order = (
                self._order if self._whole else [schedule_index(MatchRecord.loads(line.decode())) for line in handle]
            )
            if all(a <= b for a, b in itertools.pairwise(order)):
                os.fsync(handle.fileno())
                return
            handle.seek(0)
            starts = list(itertools.accumulate((len(line) for line in handle), initial=0))
            if len(starts) - 1 != len(order):  # lines this object did not write or read: ask each
                handle.seek(0)
                order = [schedule_index(MatchRecord.loads(line.decode())) for line in handle]
            by_index = sorted(range(len(order)), key=order.__getitem__)  # stable: file order within an index
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as lines, tmp.open("wb") as out:
                for i in by_index:
                    out.write(lines[starts[i] : starts[i + 1]])
                out.flush()
                os.fsync(out.fileno())
        tmp.replace(self.matches_path)

    def write_leaderboard(self, board: dict[str, Any], csv_text: str) -> None:
        write_atomic(self.path / LEADERBOARD_JSON, json.dumps(board, indent=2) + "\n")
        write_atomic(self.path / LEADERBOARD_CSV, csv_text)
