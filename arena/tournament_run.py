"""Running a tournament: schedule, executor, output directory, SPRT stop, resume.

The executor decides where matches are played; this module decides what is played, keeps
every finished record on disk as it arrives, and writes the leaderboard at the end. Resuming
reads the records already on disk and plays only the missing matches, so an interrupted run
and an uninterrupted one end with the same records and the same leaderboard.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena import leaderboard
from arena.config import ConfigError
from arena.executor import Executor, caused_by_interrupt
from arena.ratings import pairwise_scores
from arena.record import MatchRecord, RecordView
from arena.rundir import RunDirectory, schedule_index
from arena.sprt import SPRT
from arena.tallied import TallyEntry
from arena.tournament import MatchSpec, Schedule, TournamentSpec

log = logging.getLogger(__name__)


@dataclass
class Progress:
    done: int
    total: int
    started: float
    resumed: int
    last: MatchRecord | RecordView | TallyEntry | None = None
    """The last record in: whole from a local run, its tallied parts from a distributed one."""

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        played = self.done - self.resumed
        return played / elapsed if elapsed > 0 and played else 0.0


ProgressHook = Callable[[Progress], None]


class GroupScores:
    """Feeds the SPRT with the challenger's mean pairwise score of each completed group."""

    def __init__(self, spec: TournamentSpec, sprt: SPRT) -> None:
        self.spec = spec
        self.sprt = sprt
        self.pending: dict[int, list[TallyEntry]] = defaultdict(list)

    def add(self, entry: TallyEntry) -> None:
        bucket = self.pending[entry.group_number]
        bucket.append(entry)
        if len(bucket) < self.spec.players:
            return
        del self.pending[entry.group_number]
        scores = []
        for each in bucket:
            seat_bots = each.seat_bots
            for a, b, score in pairwise_scores(each.ranks):
                if seat_bots[a] == 0:
                    scores.append(score)
                elif seat_bots[b] == 0:
                    scores.append(1.0 - score)
        if scores:
            self.sprt.add(sum(scores) / len(scores))


def _scheduled_index(matches: Schedule, record: MatchRecord) -> int | None:
    """The schedule index of a record of this tournament (None: not one of its matches)."""
    try:
        index = int(record.tournament.get("index"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if not 0 <= index < len(matches):
        return None
    match = matches[index]
    # The id alone (m000004) is every tournament's: its deal and its seats say whose it is.
    seated = [seat.get("bot") for seat in record.seats]
    if match.match_id != record.match_id or record.seed != match.seed or record.game != matches.spec.game:
        return None
    return index if seated == [matches.spec.bots[b] for b in match.seats] else None


def run_tournament(
    spec: TournamentSpec,
    tournament_id: str,
    rundir: RunDirectory,
    executor: Executor,
    *,
    resume: bool = False,
    on_progress: ProgressHook | None = None,
    resamples: int = 200,
    on_warning: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play (or finish) a tournament; return the leaderboard (also written to ``rundir``).

    The run holds the directory's lock throughout (a second run on it is refused at once).
    Ctrl-C (KeyboardInterrupt) or a failed write (OSError: a full disk) leaves the status
    ``interrupted`` and every record already on disk, to be resumed; either is raised again.
    ``on_warning`` hears what the run goes on despite (default: logged)."""
    game = spec.validate()
    if resume:
        rundir.read_status()  # nothing to resume: say so before anything else
    else:
        rundir.check_new()
        rundir.path.mkdir(parents=True, exist_ok=True)
    acquired = rundir.lock()
    try:
        version = game.meta.version
        return _run(spec, tournament_id, rundir, executor, version, resume, on_progress, resamples, on_warning)
    finally:
        if acquired:
            rundir.unlock()


def _run(
    spec: TournamentSpec,
    tournament_id: str,
    rundir: RunDirectory,
    executor: Executor,
    version: str,
    resume: bool,
    on_progress: ProgressHook | None,
    resamples: int,
    on_warning: Callable[[str], None] | None,
) -> dict[str, Any]:
    matches = Schedule(spec)  # each match computed when it is played
    if resume:
        stored, tournament_id = rundir.read_spec()
        if stored != spec:
            raise ConfigError(f"{rundir.path} holds a different tournament; resume it without changing options")
        previous: Iterable[MatchRecord] = rundir.records()
    else:
        rundir.create(spec, tournament_id)
        previous = ()
    sprt = SPRT(*spec.sprt) if spec.sprt else None
    groups = GroupScores(spec, sprt) if sprt else None

    def decided_after(entry: TallyEntry) -> bool:
        assert groups is not None and sprt is not None
        groups.add(entry)
        return sprt.decision() is not None

    # The leaderboard's sums follow the run, so no record is kept once it is on disk and
    # counted: memory does not grow with the matches, nor does the garbage collector's work.
    # A resumed run's records on disk are read one at a time into the same sums. The SPRT hears
    # the groups in schedule order as the tally adds them, whatever order the records land in
    # (a ratings probe: with --workers 2 the verdict and the board changed from run to run), and
    # the board ends with the deciding group.
    tally = leaderboard.ScheduleOrderTally(spec, resamples=resamples, stop_after=decided_after if groups else None)
    done = bytearray(len(matches))  # 1 at the schedule index of each match counted
    repeated: list[tuple[int, str]] = []  # (line, match id) of lines repeating a match already read
    for line, record in enumerate(previous, 1):
        index = _scheduled_index(matches, record)
        if index is None:
            raise ConfigError(
                f"{rundir.matches_path}: line {line} (match {record.match_id}) is not in this tournament's schedule"
            )
        if record.game_version != version:
            # A record replays only on its own version: one run's records are of one version.
            raise ConfigError(
                f"{rundir.matches_path} holds records of {spec.game} version {record.game_version}, but the "
                f"installed {spec.game} is version {version}; resume this run with the arena that started it"
            )
        if done[index]:
            repeated.append((line, record.match_id))  # counted once: the first line of a match
            continue
        done[index] = 1
        tally.add_entry(tally.entry(record))  # past the SPRT's deciding group: not counted
    if repeated:
        (first, match_id), more = repeated[0], len(repeated) - 1
        others = f" and {more} more line{'s' if more > 1 else ''} repeat" if more else " repeats"
        (on_warning or log.warning)(
            f"{rundir.matches_path}: line {first} (match {match_id}){others} a match already read "
            "(two runs wrote here at once?); each match is counted once"
        )
    played = len(matches) - done.count(0)
    remaining: Sequence[MatchSpec] = [m for m in matches if not done[m.index]] if played else matches
    progress = Progress(played, len(matches), time.monotonic(), played)
    if on_progress:
        on_progress(progress)

    def on_record(record: MatchRecord | RecordView | TallyEntry, line: str | None = None, more: bool = False) -> bool:
        nonlocal played
        index = schedule_index(record)
        if done[index]:  # handed over twice (a redelivered batch): on disk and counted once
            return False
        rundir.append(record, line, flush=not more)
        done[index] = 1
        played += 1
        entry = record if isinstance(record, TallyEntry) else tally.entry(record)
        tally.add_entry(entry)
        progress.done += 1
        progress.last = record
        if on_progress:
            on_progress(progress)
        return tally.stopped

    decided = tally.stopped
    resumed = played
    try:
        try:
            if not decided:
                executor.run(spec, remaining, on_record)
            rundir.finalize()
        except BaseException as exc:
            interrupted = caused_by_interrupt(exc)
            # A write that failed is the outer handler's; anything else that ends the run (the
            # tournament gone from the broker's store, say) leaves it resumable, as an interrupt.
            if not interrupted and (isinstance(exc, OSError) or not isinstance(exc, Exception)):
                raise
            rundir.close()
            # Counted in the file, not by `played`: the interrupt may have come between a
            # record's write and its count (the status said 46 of 47 records on disk).
            appended = rundir.lines_appended()
            on_disk = played if appended is None else resumed + appended
            error = {} if interrupted else {"error": str(exc)}
            rundir.write_status(spec, tournament_id, "interrupted", matches=on_disk, scheduled=len(matches), **error)
            if not interrupted or isinstance(exc, KeyboardInterrupt):
                raise
            raise KeyboardInterrupt from exc
        board = tally.board()
        board["tournament"] = tournament_id
        board["scheduled"] = len(matches)
        if sprt:
            board["sprt"] = sprt.to_json()
        # One vocabulary with the store (referee.store.ENDED): complete, stopped (the SPRT
        # decided), cancelled (someone cancelled a distributed run; the board is what was played).
        if getattr(executor, "cancelled", False):
            status = "cancelled"
        else:
            # By the board's matches: a resumed SPRT run may hold records past its deciding group
            # (a review probe: every match on disk, the verdict at 62, said complete).
            status = "complete" if board["matches"] == len(matches) else "stopped"
        board["status"] = status
        rundir.write_leaderboard(board, leaderboard.to_csv(board))
        rundir.write_status(spec, tournament_id, status, matches=played, scheduled=len(matches))
    except OSError as exc:
        # A write failed (a full disk): what is on disk stays, to be resumed once there is room.
        rundir.abandon()
        problem = f"{exc.filename}: {exc.strerror or exc}" if exc.filename else str(exc)
        # No room for the status either: it still says running; the run resumes all the same.
        with contextlib.suppress(OSError):
            rundir.write_status(spec, tournament_id, "interrupted", scheduled=len(matches), error=problem)
        raise
    return board
