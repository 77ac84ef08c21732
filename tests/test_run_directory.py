"""A local tournament's run directory: one run at a time, resumes that count every match once,
never someone else's files, records of one game version, SIGTERM and a full disk stop cleanly."""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena import rundir as rundir_module
from arena.cli.players import make_player
from arena.config import ConfigError
from arena.executor import LocalExecutor
from arena.rundir import RunDirectory
from arena.tournament import TournamentSpec, schedule
from arena.tournament_run import run_tournament
from tests.cli_run import arena
from tests.compare import board_without_timing
from tests.services import wait_for

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.timeout(180)


def spec(**changes) -> TournamentSpec:
    base = dict(game="rolldice", bots=("heuristic", "random"), players=2, repeats=3, seed=5)
    base.update(changes)
    return TournamentSpec(**base)


def run(path: Path, s: TournamentSpec, **kwargs):
    return run_tournament(s, "t", RunDirectory(path), LocalExecutor(make_player, 1), resamples=20, **kwargs)


def one_line_error(out: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.name != "tournament.lock"}


def start_long_run(out: Path, *extra: str) -> subprocess.Popen[bytes]:
    """A local tournament far from done for a while, in its own process (its matches started)."""
    args = ["tournament", "--game", "rolldice", "--bots", "heuristic,random", "--seed", "3", "--repeats", "50000"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", *args, "--out", str(out), "--json", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    matches = out / "matches.jsonl"
    try:
        wait_for(lambda: matches.exists() and matches.stat().st_size > 0, 60, "a first match")
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    return proc


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> tuple[int, str]:
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    return proc.returncode, err.decode()


# -- one run at a time ---------------------------------------------------------------------


def test_a_run_directory_held_by_a_run_is_refused_to_another_at_once(tmp_path):
    out = tmp_path / "run"
    proc = start_long_run(out, "--workers", "1")
    try:
        for args in (("--resume", "--out", str(out)), ("--resume", "--out", str(out), "--workers", "2")):
            refused = arena("tournament", *args, "--json", timeout=60)
            one_line_error(refused, str(out), "in use", "another arena tournament run", f"process {proc.pid}")
        fresh = arena("tournament", "--game", "rolldice", "--bots", "heuristic,random", "--out", str(out), "--json")
        assert fresh.returncode == 2 and len(fresh.stderr.strip().splitlines()) == 1, fresh.stderr
    finally:
        code, err = stop(proc)
    assert code == 130, err
    records = RunDirectory(out).load_records()
    indices = [r.tournament["index"] for r in records]
    assert len(indices) == len(set(indices)) > 0
    assert RunDirectory(out).lock()  # released with the run


def test_run_tournament_refuses_a_directory_another_holds_and_leaves_it_untouched(tmp_path):
    s = spec(repeats=1)
    path = tmp_path / "run"
    run(path, s)
    before = snapshot(path)
    holder = RunDirectory(path)
    assert holder.lock() and not holder.lock()  # taken once; held already the second time
    try:
        with pytest.raises(ConfigError, match=f"{path} is in use: another arena tournament run"):
            run(path, s, resume=True)
    finally:
        holder.unlock()
    assert snapshot(path) == before
    run(path, s, resume=True)  # free again


# -- each match counted once ---------------------------------------------------------------


def test_a_resume_counts_each_match_once_and_warns_once_of_repeated_lines(tmp_path):
    s = spec()
    board_full = run(tmp_path / "full", s)
    records = RunDirectory(tmp_path / "full").load_records()
    path = tmp_path / "cut"
    RunDirectory(path).create(s, "t")
    lines = [r.dumps() for r in records[:5]]
    changed = json.loads(lines[1])
    changed["decisions"][0]["ms"] = 123.0  # the same match, another line (a second run wrote it)
    repeated = [lines[0], json.dumps(changed), lines[3]]
    (path / "matches.jsonl").write_text("".join(line + "\n" for line in [*lines, *repeated]))
    warnings: list[str] = []
    board = run(path, s, resume=True, on_warning=warnings.append)
    assert board["matches"] == board["scheduled"] == len(schedule(s))
    assert board_without_timing(board) == board_without_timing(board_full)
    assert len(warnings) == 1, warnings
    assert "line 6 (match m000000) and 2 more lines repeat a match already read" in warnings[0]
    assert "counted once" in warnings[0]
    # A later resume counts them once again.
    again = run(path, s, resume=True, on_warning=warnings.append)
    assert board_without_timing(again) == board_without_timing(board_full) and len(warnings) == 2


def test_the_cli_warns_in_one_line_of_repeated_records_and_counts_them_once(tmp_path):
    out = tmp_path / "run"
    args = ("--game", "rolldice", "--bots", "heuristic,random", "--seed", "4", "--repeats", "3", "--workers", "1")
    first = arena("tournament", *args, "--out", str(out), "--json")
    assert first.returncode == 0, first.stderr
    board = json.loads(first.stdout)
    with (out / "matches.jsonl").open("a") as handle:  # every record twice
        handle.write((out / "matches.jsonl").read_text())
    again = arena("tournament", "--resume", "--out", str(out), "--json")
    assert again.returncode == 0, again.stderr
    resumed = json.loads(again.stdout)
    assert resumed["matches"] == board["matches"] == 6
    assert board_without_timing(resumed) == board_without_timing(board)
    warnings = [line for line in again.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "5 more lines repeat a match already read" in warnings[0], again.stderr


# -- --resume takes the stored tournament --------------------------------------------------


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("resume") / "run"
    args = ("--game", "rolldice", "--bots", "heuristic,random", "--seed", "7", "--repeats", "2")
    done = arena("tournament", *args, "--option", "target=30", "--workers", "1", "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--repeats", "50"), "--repeats 50, the run has 2"),
        (("--seed", "99"), "--seed 99, the run has 7"),
        (("--bots", "heuristic,random,random*2"), "--bots heuristic,random,random*2, the run has heuristic,random"),
        (("--players", "3"), "--players 3, the run has 2"),
        (("--option", "target=50"), "--option target=50, the run has target=30"),
        (("--option", "rerolls=2"), "--option rerolls=2, the run has rerolls=1"),
        (("--format", "gauntlet"), "--format gauntlet, the run has round-robin"),
        (("--clock", "decision=100"), "--clock decision=100, the run has none"),
        (("--on-error", "substitute"), "--on-error substitute, the run has forfeit"),
        (("--error-budget", "5"), "--error-budget 5, the run has 3"),
        (("--sprt", "0,50"), "--sprt 0,50, the run has none"),
        (("--max-groups", "5"), "--max-groups 5, the run has 120"),
        (("--bot-concurrency", "2"), "--bot-concurrency 2, the run has 4"),
    ],
)
def test_resume_refuses_options_that_change_the_tournament(finished_run, args, needle):
    before = snapshot(finished_run)
    out = arena("tournament", "--resume", "--out", str(finished_run), *args, "--json")
    one_line_error(out, f"{finished_run} holds a different tournament", needle, "resume it without changing options")
    assert snapshot(finished_run) == before


def test_resume_accepts_the_stored_options_and_those_that_do_not_change_the_tournament(finished_run):
    same = (
        "--game", "rolldice", "--bots", "heuristic,random", "--seed", "7", "--repeats", "2", "--players", "2",
        "--option", "target=30", "--option", "rerolls=1", "--format", "round-robin", "--on-error", "forfeit",
        "--error-budget", "3", "--max-groups", "120", "--bot-concurrency", "4", "--workers", "2",
    )  # fmt: skip
    out = arena("tournament", "--resume", "--out", str(finished_run), *same, "--json")
    assert out.returncode == 0, out.stderr
    board = json.loads(out.stdout)
    assert board["matches"] == board["scheduled"] == 4 and board["status"] == "complete"


# -- never someone else's files ------------------------------------------------------------


@pytest.mark.parametrize("name", ["matches.jsonl", "leaderboard.json", "leaderboard.csv"])
def test_a_directory_with_run_files_but_no_tournament_json_is_refused_before_any_match(tmp_path, name):
    out = tmp_path / "run"
    out.mkdir()
    (out / name).write_text('{"note": "my own file"}\n')
    before = snapshot(out)
    refused = arena("tournament", "--game", "rolldice", "--bots", "heuristic,random", "--out", str(out), "--json")
    one_line_error(refused, f"{out} has a {name} but no tournament.json", f"{out / name} is in the way")
    assert snapshot(out) == before
    with pytest.raises(ConfigError, match="is in the way"):
        run(out, spec(repeats=1))
    assert snapshot(out) == before


# -- one game version ----------------------------------------------------------------------


def test_resume_refuses_records_of_another_game_version(tmp_path):
    out = tmp_path / "run"
    first = arena("tournament", "--game", "rolldice", "--bots", "heuristic,random", "--out", str(out), "--json")
    assert first.returncode == 0, first.stderr
    matches = out / "matches.jsonl"
    lines = matches.read_text().splitlines(keepends=True)
    old = json.loads(lines[1])
    installed = old["game_version"]
    old["game_version"] = "0.9"
    matches.write_text(lines[0] + json.dumps(old, separators=(",", ":")) + "\n")  # interrupted after two
    before = snapshot(out)
    refused = arena("tournament", "--resume", "--out", str(out), "--json")
    one_line_error(refused, str(matches), "rolldice version 0.9", f"installed rolldice is version {installed}")
    assert snapshot(out) == before


@pytest.mark.parametrize("other", [("--seed", "8"), ("--bots", "heuristic:threshold=2,random")])
def test_resume_refuses_another_tournaments_records_with_the_same_match_ids(tmp_path, other):
    """Records of another tournament (another seed: counted into this one's board; other bots:
    a KeyError traceback) were taken on resume: their ids (m000004) are every tournament's."""
    base = {"--game": "rolldice", "--bots": "heuristic,random", "--seed": "7", "--repeats": "3", "--workers": "1"}
    out, elsewhere = tmp_path / "run", tmp_path / "other"
    mine_args = [x for kv in base.items() for x in kv]
    their_args = [x for kv in {**base, other[0]: other[1]}.items() for x in kv]
    first = arena("tournament", *mine_args, "--out", str(out), "--json")
    theirs = arena("tournament", *their_args, "--out", str(elsewhere))
    assert first.returncode == 0 and theirs.returncode == 0, first.stderr + theirs.stderr
    matches = out / "matches.jsonl"
    mine = matches.read_text().splitlines(keepends=True)
    foreign = (elsewhere / "matches.jsonl").read_text().splitlines(keepends=True)
    matches.write_text("".join(mine[:2] + foreign[2:4]))  # as if interrupted after four, two of them not its own
    before = snapshot(out)
    refused = arena("tournament", "--resume", "--out", str(out), "--json")
    # the first foreign line named, so it can be found in a file of 100,000 (it said no line)
    one_line_error(refused, f"{matches}: line 3 (match ", ") is not in this tournament's schedule")
    assert snapshot(out) == before


# -- SIGTERM and a full disk ---------------------------------------------------------------


def test_sigterm_stops_a_one_worker_run_as_ctrl_c_does(tmp_path):
    out = tmp_path / "run"
    proc = start_long_run(out, "--workers", "1")
    code, err = stop(proc, signal.SIGTERM)
    assert code == 130, err
    assert f"resume with: arena tournament --resume --out {out}" in err
    status = json.loads((out / "tournament.json").read_text())
    assert status["status"] == "interrupted"
    assert status["matches"] == len(RunDirectory(out).load_records()) > 0


class InterruptedAfterAppend(RunDirectory):
    """A Ctrl-C that falls right after the n-th record is written, before the run counts it."""

    def __init__(self, path: Path, after: int) -> None:
        super().__init__(path)
        self.after = after

    def append(self, record, line=None, *, flush=True):  # type: ignore[no-untyped-def]
        super().append(record, line, flush=flush)
        self.after -= 1
        if self.after == 0:
            raise KeyboardInterrupt


@pytest.mark.parametrize("resumed", [False, True])
def test_an_interrupt_between_a_records_write_and_its_count_is_counted_from_the_file(tmp_path, resumed):
    """The status said 46 matches of 47 records on disk (CI: SIGTERM in that window)."""
    s = spec(repeats=4)
    out = tmp_path / "run"
    if resumed:  # a first part, then a resume interrupted the same way
        with pytest.raises(KeyboardInterrupt):
            run_tournament(s, "t", InterruptedAfterAppend(out, 3), LocalExecutor(make_player, 1), resamples=20)
    with pytest.raises(KeyboardInterrupt):
        run_tournament(
            s, "t", InterruptedAfterAppend(out, 5), LocalExecutor(make_player, 1), resume=resumed, resamples=20
        )
    status = json.loads((out / "tournament.json").read_text())
    on_disk = len(RunDirectory(out).load_records())
    assert status["status"] == "interrupted" and status["matches"] == on_disk == (8 if resumed else 5)


class WrappedInterrupt:
    """An executor whose Ctrl-C lands in a class's ``__set_name__`` after two matches: Python
    3.11 raises it as a RuntimeError caused by the KeyboardInterrupt (a traceback, exit 1)."""

    def run(self, spec, matches, on_record):  # type: ignore[no-untyped-def]
        LocalExecutor(make_player, 1).run(spec, matches[:2], on_record)

        class Interrupting:
            def __set_name__(self, owner, name):  # type: ignore[no-untyped-def]
                raise KeyboardInterrupt

        with pytest.raises(RuntimeError) as wrapped:
            type("Made", (), {"field": Interrupting()})
        assert isinstance(wrapped.value.__cause__, KeyboardInterrupt)
        raise wrapped.value


def test_a_ctrl_c_python_wrapped_in_another_error_still_interrupts_the_run(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_tournament(spec(repeats=4), "t", RunDirectory(out), WrappedInterrupt(), resamples=20)
    status = json.loads((out / "tournament.json").read_text())
    assert status["status"] == "interrupted" and status["matches"] == 2 == len(RunDirectory(out).load_records())


def test_a_full_disk_is_one_line_and_leaves_a_resumable_interrupted_run(tmp_path):
    out = tmp_path / "run"
    args = ["tournament", "--game", "rolldice", "--bots", "heuristic,random", "--seed", "5", "--repeats", "30"]

    def small_files() -> None:  # files of at most 8 KiB: a write beyond is EFBIG (Python ignores SIGXFSZ)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))

    full = subprocess.run(
        [sys.executable, "-m", "arena", *args, "--workers", "1", "--out", str(out), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
        preexec_fn=small_files,
    )
    line = one_line_error(full, f"{out / 'matches.jsonl'}: File too large", f"--resume --out {out}")
    assert full.stdout == "", line
    status = json.loads((out / "tournament.json").read_text())
    assert status["status"] == "interrupted" and "File too large" in status["error"]
    kept = RunDirectory(out).load_records()
    assert 0 < len(kept) < 60
    resumed = arena("tournament", "--resume", "--out", str(out), "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["matches"] == 60
    indices = [r.tournament["index"] for r in RunDirectory(out).load_records()]
    assert indices == list(range(60))


def test_with_no_room_for_a_new_copy_the_status_is_rewritten_in_place(tmp_path, monkeypatch):
    s = spec(repeats=1)
    path = tmp_path / "run"
    run(path, s)

    def no_room(target: Path, text: str | bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(target))

    monkeypatch.setattr(rundir_module, "write_atomic", no_room)
    RunDirectory(path).write_status(s, "t", "interrupted", error="x")
    status = json.loads((path / "tournament.json").read_text())
    assert status["status"] == "interrupted" and TournamentSpec.from_json(status["spec"]) == s
    assert "matches" not in status  # no tail of the old text left behind


def test_a_ctrl_c_before_the_tournament_is_written_says_so_and_not_nothing_to_resume(tmp_path, monkeypatch, capsys):
    """Interrupted before its tournament.json existed, a run said "has no tournament.json:
    nothing to resume" (exit 2), as if the user had asked to resume."""
    from arena.cli import main

    def interrupted(self, spec, tournament_id):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt  # a Ctrl-C landing as the run directory is being set up

    monkeypatch.setattr(RunDirectory, "create", interrupted)
    out = tmp_path / "run"
    code = main(["tournament", "--game", "rolldice", "--workers", "1", "--out", str(out), "--json"])
    err = capsys.readouterr().err
    assert code == 130
    assert err.strip() == "arena tournament: interrupted before it started; nothing was played"
    assert not (out / "tournament.json").exists()


def test_slow_bots_matches_come_back_from_a_pool_process_one_at_a_time():
    """With 12-match chunks of `search` matches, nothing landed for 11 s and a Ctrl-C lost every
    match a chunk still held; quick built-in matches keep their chunks."""
    from arena.executor import chunk_size

    quick = spec(repeats=200)
    assert chunk_size(quick, 400, 2) == 16 and chunk_size(quick, 40, 2) == 2
    for bots in (("search:iterations=10", "random"), ("grpc://127.0.0.1:9", "random"), ("hosted:x@1", "random")):
        assert chunk_size(spec(bots=bots, repeats=200), 400, 2) == 1, bots
    named = TournamentSpec(**{**spec().__dict__, "bots": ("mine", "random"), "addresses": {"mine": "grpc://h:1"}})
    assert chunk_size(named, 400, 2) == 1  # a registered bot, by its address
    assert chunk_size(spec(bots=("random", "search#2")), 400, 2) == 1  # a copy (search*2 enters search#2)


def _interrupts_at_start() -> tuple[bool, bool]:
    """Whether SIGINT and SIGHUP are blocked in a freshly spawned process, before any code of
    Arena's runs."""
    import signal

    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return signal.SIGINT in blocked, signal.SIGHUP in blocked


def _interrupts_in_worker() -> tuple[object, object, bool]:
    """A pool worker's SIGINT and SIGHUP handlers once started, and whether either is blocked."""
    import signal

    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    held = signal.SIGINT in blocked or signal.SIGHUP in blocked
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGHUP), held


def test_pool_workers_ignore_ctrl_c_from_their_first_instruction():
    """A Ctrl-C (or a hangup) goes to the terminal's whole process group: a worker still
    importing when it landed printed its KeyboardInterrupt traceback (3 runs in 10 Ctrl-C'd in
    their first two seconds). Workers started by the pool hold SIGINT and SIGHUP blocked from
    their start until their initializer ignores them; the parent's own handler and mask are
    left as they are, and no script in $TMPDIR is needed (a noexec one stopped every worker)."""
    import multiprocessing
    import signal

    from arena.executor import _init_worker, workers_ignore_interrupts

    context = multiprocessing.get_context("spawn")
    before = signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with context.Pool(1) as plain:
        assert plain.apply(_interrupts_at_start) == (False, False)
    with workers_ignore_interrupts():
        assert signal.getsignal(signal.SIGINT) is before[0]
        pool = context.Pool(1)
        blank = context.Pool(1, initializer=_init_worker, initargs=(spec().to_json(), make_player, None))
    assert (signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, [])) == before
    with pool, blank:
        assert pool.apply(_interrupts_at_start) == (True, True)
        assert blank.apply(_interrupts_in_worker) == (signal.SIG_IGN, signal.SIG_IGN, False)
    with context.Pool(1) as after:  # spawning is as before once the pool is made
        assert after.apply(_interrupts_at_start) == (False, False)


def test_a_ctrl_c_while_the_commands_load_is_one_line(monkeypatch, capsys):
    import arena.cli

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(arena.cli, "build_parser", interrupted)
    assert arena.cli.main(["tournament", "--game", "skyfive"]) == 130
    assert capsys.readouterr().err == "arena: interrupted\n"


class CutShort:
    """A file whose next write puts ``keep`` characters on disk, then is interrupted (as a
    SIGTERM's KeyboardInterrupt lands in the middle of a write)."""

    def __init__(self, handle, keep: int) -> None:  # type: ignore[no-untyped-def]
        self.handle = handle
        self.keep = keep

    def write(self, text: str) -> int:
        if self.keep >= 0:
            self.handle.write(text[: self.keep])
            self.handle.flush()
            self.keep = -1
            raise KeyboardInterrupt
        return self.handle.write(text)

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        return getattr(self.handle, name)


def test_a_write_cut_short_by_an_interrupt_leaves_a_file_that_loads(tmp_path):
    """CI: SIGTERM fell inside the write of a batch of lines; the run's close wrote the batch
    again whole after the torn part, with an extra newline, and the directory no longer loaded
    ("line 20 is not a match record: not JSON"). Now the torn line is the last and is dropped,
    and the status counts the complete lines."""
    run(tmp_path / "source", spec(repeats=4))  # 8 matches
    records = list(RunDirectory(tmp_path / "source").records())
    lines = [r.dumps() for r in records]
    out = RunDirectory(tmp_path / "cut")
    out.path.mkdir()
    for record, line in zip(records[:4], lines[:4], strict=True):
        out.append(record, line)
    assert out._handle is not None
    for record, line in zip(records[4:8], lines[4:8], strict=True):
        out.append(record, line, flush=False)
    out._handle = CutShort(out._handle, keep=len(lines[4]) + 1 + len(lines[5]) // 2)  # type: ignore[assignment]
    with pytest.raises(KeyboardInterrupt):
        out._write()
    out.close()
    text = out.matches_path.read_text()
    assert "\n\n" not in text and not text.endswith("\n")  # the torn line is the file's last
    assert out.lines_appended() == 5
    reread = RunDirectory(tmp_path / "cut")
    assert [r.dumps() for r in reread.records()] == lines[:5]
