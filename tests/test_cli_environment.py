"""Commands in odd environments and under signals (an outside probe, envsig): a noexec $TMPDIR, a
closed stdout, a deleted current directory, an ASCII locale; SIGTERM and SIGHUP ending `arena
play` and a local tournament as Ctrl-C does, and the servers on SIGHUP."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from arena.executor import LocalExecutor, Stopped, StopSignals, check_stop_signals, stop_signals_held
from arena.tournament import TournamentSpec, schedule
from arena.v1 import arena_pb2, arena_pb2_grpc
from referee.auth import create_owner
from referee.store import Store
from tests.cli_run import ROOT, arena
from tests.remote_helpers import bot_process, served
from tests.services import redis_server, service, wait_for

pytestmark = pytest.mark.timeout(120)

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ASCII_LOCALE = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
SLOW_BOT = """\
import time

from bots.random_bot import RandomBot
from bots.serve import serve


class Slow(RandomBot):
    def choose(self, turn):
        time.sleep(1.0)
        return super().choose(turn)


if __name__ == "__main__":
    serve(Slow)
"""


def tournament_args(out: Path, *extra: str) -> list[str]:
    return ["tournament", "--game", "rolldice", "--bots", "heuristic,random", "--seed", "1", "--out", str(out), *extra]


def status(out: Path) -> str:
    return json.loads((out / "tournament.json").read_text())["status"]


def start(*args: str, tmpdir: Path | None = None, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``arena ARGS`` in its own session (a signal to its group reaches its pool too), with SIGINT
    at its default (a test runner's background job may ignore it)."""
    env = {**ENV, **({"TMPDIR": str(tmpdir)} if tmpdir else {}), **(env or {})}
    restore = (
        "import os, signal, sys\nsignal.signal(signal.SIGINT, signal.SIG_DFL)\nos.execv(sys.argv[1], sys.argv[1:])"
    )
    return subprocess.Popen(
        [sys.executable, "-c", restore, sys.executable, "-m", "arena", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )


def ended(proc: subprocess.Popen[str], timeout: float = 60) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        raise AssertionError(f"still running {timeout} s after the signal; stderr:\n{err[-3000:]}") from None
    return proc.returncode, err


def hosted_slow_bot(tmp_path: Path) -> Path:
    """A hosted bot taking a second a decision (its seat's work directory lives a while)."""
    directory = tmp_path / "slow"
    directory.mkdir()
    manifest = 'name = "slow"\ngames = ["rolldice"]\nlanguage = "python"\nentry = "slow"\n'
    (directory / "arena-bot.toml").write_text(manifest)
    (directory / "slow.py").write_text(SLOW_BOT)
    return directory


@pytest.fixture
def seat_tmpdir() -> Iterator[Path]:
    """A $TMPDIR for hosted seats: a seat's uid must pass through it to its work directory, and
    pytest's tmp_path is 0700."""
    directory = Path(tempfile.mkdtemp(prefix="arena-test-tmp-"))
    directory.chmod(0o711)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def seat_directories(tmpdir: Path) -> list[str]:
    return sorted(p.name for p in tmpdir.glob("arena-seat-*"))


# -- F1: a noexec $TMPDIR; a stop that no record follows; a broken pipe not stdout's ----------


@contextmanager
def noexec_tmpfs(point: Path) -> Iterator[Path]:
    point.mkdir()
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=20m,noexec", "tmpfs", str(point)], capture_output=True, text=True
        )
    except FileNotFoundError:
        pytest.skip("no mount command here: a noexec tmpfs cannot be made")
    if mounted.returncode != 0:
        pytest.skip(f"mounting a noexec tmpfs needs root (CAP_SYS_ADMIN): {mounted.stderr.strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=True)


def test_a_local_tournament_with_workers_plays_when_tmpdir_is_noexec(tmp_path):
    """Workers were started through a shell script in $TMPDIR: on a noexec mount (a common
    hardening of /tmp) every one failed, and the run exited 141 without a word or respawned
    workers for ever."""
    out = tmp_path / "run"
    with noexec_tmpfs(tmp_path / "noexec") as tmpdir:
        run = tournament_args(out, "--repeats", "10", "--workers", "2")
        done = arena(*run, env={"TMPDIR": str(tmpdir)}, timeout=90)
        left = sorted(p.name for p in tmpdir.iterdir())
    assert done.returncode == 0, done.stderr[-3000:]
    assert status(out) == "complete"
    assert len((out / "matches.jsonl").read_text().splitlines()) == 20
    assert left == []


def swallow_a_sigterm() -> None:
    """A SIGTERM to this process whose interrupt is swallowed, as a finalizer would swallow it."""
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
        raise AssertionError("the signal did not interrupt")
    except KeyboardInterrupt:
        pass


def stalled_player(spec: str, game: str):  # type: ignore[no-untyped-def]
    """A pool worker that never sends a record (as one that cannot start)."""
    time.sleep(600)


@pytest.mark.timeout(30)
def test_a_swallowed_stop_signal_stops_a_pool_that_sends_no_record():
    """The handler's interrupt can land where an exception is swallowed (a finalizer); the run
    looked for it again only with the next record, so a pool that sent none (workers dying at
    their start, replaced without end) ran on after SIGTERM and Ctrl-C alike: here, until the
    test's timeout, its workers sleeping 600 s."""
    spec = TournamentSpec(game="rolldice", bots=("heuristic", "random"), players=2, repeats=1, seed=1)
    outer = StopSignals()  # the command's, around the executor's
    try:
        swallow_a_sigterm()
        with pytest.raises(Stopped) as stopped:
            LocalExecutor(stalled_player, 2).run(spec, schedule(spec), lambda *record: None)
        assert stopped.value.signum == signal.SIGTERM
    finally:
        outer.restore()


def test_a_stop_signal_while_a_pool_is_made_is_raised_once_it_is_made():
    """Raised in the middle of making the pool, the interrupt left a process started but never
    sent its data (its EOFError traceback), and no pool to terminate."""
    listening = StopSignals()
    try:
        with stop_signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.5)  # the handler runs here, and only remembers the signal
        with pytest.raises(Stopped) as stopped:
            check_stop_signals()
        assert stopped.value.signum == signal.SIGTERM
    finally:
        listening.restore()


_swallowed = False


def _swallow_the_first_exit_then_answer(request):  # type: ignore[no-untyped-def]
    """Thinks until the pool's SIGTERM, whose SystemExit it swallows (as a finalizer would that
    it landed in), then answers at once: the match plays on to its end."""
    global _swallowed
    if not _swallowed:
        try:
            time.sleep(600)
        except SystemExit:
            _swallowed = True
    return request.options[0].id


def swallowing_player(spec: str, game: str):  # type: ignore[no-untyped-def]
    from arena.runner import FunctionPlayer

    return FunctionPlayer(_swallow_the_first_exit_then_answer, "swallowing")


@pytest.mark.timeout(30)
def test_a_pool_worker_whose_sigterm_was_swallowed_still_ends(tmp_path):
    """A worker's SIGTERM unwinds its match (its hosted seats clean up); should that SystemExit
    be swallowed, the match ends anyway and the worker exits after it, rather than wait for a
    next task that never comes while the stopping run waits for it (seen once in 16 hangups)."""
    spec = TournamentSpec(game="rolldice", bots=("heuristic", "random"), players=2, repeats=1, seed=1)
    outer = StopSignals()
    try:
        swallow_a_sigterm()  # the run stops at its next look, while its workers think
        with pytest.raises(Stopped):
            LocalExecutor(swallowing_player, 2).run(spec, schedule(spec), lambda *record: None)
    finally:
        outer.restore()


def test_a_broken_pipe_that_is_not_stdouts_is_an_error_not_a_quiet_141(monkeypatch, capsys):
    """Only a reader of stdout that went away (`| head`) ends quietly with 141: a pipe to a
    worker process breaking said nothing and exited 141 as well."""
    import arena.cli
    from arena.cli import games_cmd

    def broken(args: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(games_cmd, "run", broken)
    assert arena.cli.main(["games"]) == 1
    assert capsys.readouterr().err == "arena games: error: Broken pipe (a pipe to another process, not stdout)\n"


def test_a_reader_that_went_away_is_still_a_quiet_141():
    """The other side: stdout's own reader gone."""
    reader = subprocess.Popen(["true"], stdin=subprocess.PIPE)
    reader.wait()
    done = subprocess.run(
        [sys.executable, "-m", "arena", "rules", "rolldice"],
        stdout=reader.stdin,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=ENV,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (141, "")


# -- F3: stdout closed --------------------------------------------------------------------------


def closed_stdout(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``arena ARGS >&-``."""
    command = ["sh", "-c", 'exec "$0" "$@" >&-', sys.executable, "-m", "arena", *args]
    return subprocess.run(command, stderr=subprocess.PIPE, text=True, cwd=cwd, env=ENV, timeout=90)


def test_a_closed_stdout_is_thrown_away_not_a_traceback(tmp_path):
    """`>&-`: each command did its work, then printed a traceback and exited 1 (sys.stdout is
    None); the record file took fd 1."""
    record = tmp_path / "m.json"
    game = ["--game", "rolldice", "--bots", "heuristic,random", "--seed", "7"]
    played = closed_stdout("play", *game, "--record", str(record))
    assert (played.returncode, played.stderr) == (0, "")
    assert json.loads(record.read_text())["game"] == "rolldice"
    listed = closed_stdout("rules", "rolldice")
    assert (listed.returncode, listed.stderr) == (0, "")


def test_a_local_tournament_with_stdout_closed_completes(tmp_path):
    out = tmp_path / "run"
    done = closed_stdout(*tournament_args(out, "--repeats", "5", "--workers", "2"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert status(out) == "complete"


# -- F4: SIGTERM and SIGHUP end `arena play` as Ctrl-C does ------------------------------------


@pytest.mark.parametrize(("signum", "line"), [(signal.SIGTERM, "by SIGTERM"), (signal.SIGHUP, "by SIGHUP")])
def test_a_stop_signal_to_play_removes_the_record_file_it_made(tmp_path, signum, line):
    """The default action left an empty --record file (`arena replay` then failed on it)."""
    record = tmp_path / "m.json"
    game = ["--game", "rolldice", "--bots", "search:ms=3000,random", "--seed", "1"]
    proc = start("play", *game, "--record", str(record))
    wait_for(lambda: record.exists() or proc.poll() is not None, 60, "the record file")
    proc.send_signal(signum)
    code, err = ended(proc)
    assert (code, err) == (128 + signum, f"arena play: interrupted {line}\n")
    assert not record.exists()


@pytest.mark.timeout(180)
def test_sigterm_to_a_challenge_removes_the_record_file_it_made(tmp_path):
    """`arena challenge --record` makes its file before the match, as `arena play` does."""
    with redis_server(tmp_path) as redis, bot_process(served("random")) as bot:
        token = create_owner(Store(redis.url), "carol")
        with service(redis.url, tmp_path) as srv:
            with grpc.insecure_channel(srv.address) as channel:
                request = arena_pb2.RegisterBotRequest(name="carol-bot", games=["rolldice"], endpoint=bot)
                metadata = (("authorization", f"Bearer {token}"),)
                arena_pb2_grpc.ArenaServiceStub(channel).RegisterBot(request, metadata=metadata, timeout=60)
            record = tmp_path / "c.json"
            args = ["--bot", "carol-bot", "--game", "rolldice", "--opponents", "search:ms=2000"]
            client = {"ARENA_SERVER": srv.address, "ARENA_TOKEN": token}
            proc = start("challenge", *args, "--option", "target=1000", "--record", str(record), env=client)
            wait_for(lambda: record.exists() or proc.poll() is not None, 60, "the record file")
            time.sleep(1)  # the match is on
            proc.send_signal(signal.SIGTERM)
            code, err = ended(proc)
    assert (code, err) == (143, "arena challenge: interrupted by SIGTERM\n")
    assert not record.exists()


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.timeout(180)
def test_sigterm_to_play_removes_its_hosted_seats_directory(tmp_path, seat_tmpdir):
    tmpdir = seat_tmpdir
    bot = hosted_slow_bot(tmp_path)
    proc = start("play", "--game", "rolldice", "--bots", f"hosted:{bot},heuristic", "--seed", "1", tmpdir=tmpdir)
    wait_for(lambda: seat_directories(tmpdir) or proc.poll() is not None, 120, "the seat's directory")
    time.sleep(2)  # the bot is deciding
    proc.send_signal(signal.SIGTERM)
    code, err = ended(proc)
    assert code == 143 and err.endswith("arena play: interrupted by SIGTERM\n"), err[-3000:]
    assert seat_directories(tmpdir) == []


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.timeout(180)
def test_a_terminated_pool_removes_its_workers_hosted_seats_directories(tmp_path, seat_tmpdir):
    """`pool.terminate()` SIGTERMs the pool's processes: they died where they were, and each
    match in play left its hosted seat's directory in $TMPDIR."""
    tmpdir = seat_tmpdir
    bot = hosted_slow_bot(tmp_path)
    out = tmp_path / "run"
    args = ["tournament", "--game", "rolldice", "--bots", f"hosted:{bot},heuristic", "--repeats", "2", "--seed", "1"]
    proc = start(*args, "--workers", "2", "--out", str(out), tmpdir=tmpdir)
    wait_for(lambda: len(seat_directories(tmpdir)) == 2 or proc.poll() is not None, 120, "two seats in play")
    time.sleep(2)  # their bots are deciding
    proc.send_signal(signal.SIGTERM)
    code, err = ended(proc)
    assert code == 130 and "Traceback" not in err, err[-3000:]
    assert status(out) == "interrupted"
    assert seat_directories(tmpdir) == []


# -- F5: SIGHUP as SIGTERM ----------------------------------------------------------------------


def test_a_stop_signal_listener_takes_sighup_unless_it_is_ignored():
    before = signal.getsignal(signal.SIGHUP)
    assert before == signal.SIG_DFL
    listening = StopSignals()
    try:
        assert signal.getsignal(signal.SIGHUP) == listening._interrupt
    finally:
        listening.restore()
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_DFL
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # nohup: the run outlives the terminal
    try:
        listening = StopSignals()
        try:
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
        finally:
            listening.restore()
    finally:
        signal.signal(signal.SIGHUP, before)


def test_a_hangup_stops_a_local_tournament_cleanly(tmp_path):
    """A closed terminal sends SIGHUP to the whole job: the run stayed "running" with no process
    left, its workers printed BrokenPipeError tracebacks, its semaphores were reported leaked."""
    out = tmp_path / "run"
    proc = start(*tournament_args(out, "--repeats", "20000", "--workers", "2"))
    matches = out / "matches.jsonl"
    wait_for(lambda: (matches.exists() and matches.stat().st_size > 0) or proc.poll() is not None, 90, "a match")
    os.killpg(proc.pid, signal.SIGHUP)
    code, err = ended(proc)
    assert code == 130, err[-3000:]
    assert "Traceback" not in err and "leaked" not in err, err[-3000:]
    assert status(out) == "interrupted"


WORKER_FINALIZER = """
import sys
from arena import executor
from arena.cli.players import make_player
from arena.tournament import TournamentSpec

spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2)
executor._init_worker(spec.to_json(), make_player, None)


class Finalized:
    def __del__(self):
        raise SystemExit(143)  # as a terminate's handler raises when it lands in a finalizer


executor._worker_terminated = sys.argv[1] == "terminated"
Finalized()
print("went on", flush=True)
"""


@pytest.mark.parametrize("terminated", [True, False])
def test_a_pool_worker_drops_a_terminates_exit_that_a_callback_cannot_raise(terminated):
    """A pool worker's SIGTERM raises SystemExit to unwind its match; landing in a callback that
    cannot raise (an import lock's, a finalizer) it printed "Exception ignored" and a traceback
    beside a hung-up run's one line (a CI run). The worker exits once the match is over, so
    that one is dropped; any other unraisable exception is printed as Python prints it."""
    ran = subprocess.run(
        [sys.executable, "-c", WORKER_FINALIZER, "terminated" if terminated else "playing"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert ran.returncode == 0 and ran.stdout == "went on\n", ran.stderr
    if terminated:
        assert ran.stderr == ""
    else:
        assert "Exception ignored" in ran.stderr and "SystemExit: 143" in ran.stderr


def test_a_hangup_stops_a_bot_server_and_removes_its_socket(tmp_path):
    sock = tmp_path / "bot.sock"
    proc = start("bot", "serve", "--bot", "random", "--unix", str(sock))
    wait_for(lambda: sock.exists() or proc.poll() is not None, 60, "the socket")
    proc.send_signal(signal.SIGHUP)
    code, err = ended(proc)
    assert code == 0, err[-3000:]
    assert not sock.exists()


SLOW_TO_MAKE = """\
import sys
import time

from bots.random_bot import RandomBot
from bots.serve import serve


class SlowToMake(RandomBot):
    def __init__(self):
        print("making", file=sys.stderr, flush=True)
        time.sleep(60)  # a model's load
        super().__init__()


serve(SlowToMake)
"""


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, -signal.SIGINT), (signal.SIGTERM, -signal.SIGTERM)])
def test_a_signal_while_the_bot_is_made_stops_the_server_at_once(signum, code):
    """serve() installs its stop signals before it binds (a signal between the two killed it,
    its socket left), but while the bot is still being made a signal acts at once, as the
    caller's handler would: it waited the constructor out, then bound and announced itself."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_TO_MAKE], cwd=ROOT, env=ENV, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # ended() kills the group if it outlives the test
    )  # fmt: skip
    assert proc.stderr is not None and proc.stderr.readline() == "making\n"
    proc.send_signal(signum)
    returncode, err = ended(proc, timeout=20)
    assert returncode == code and "serving" not in err, err[-3000:]


CALLERS_HANDLER = """\
import signal
import sys
import time

from bots.random_bot import RandomBot
from bots.serve import serve

signal.signal(signal.SIGTERM, lambda *_: print("caller's handler", file=sys.stderr, flush=True))


class SlowToMake(RandomBot):
    def __init__(self):
        print("making", file=sys.stderr, flush=True)
        time.sleep(2)
        super().__init__()


serve(SlowToMake, "unix:" + sys.argv[1])
print("served", file=sys.stderr, flush=True)
"""


def test_a_signal_the_callers_handler_survives_while_the_bot_is_made_still_stops_the_server_later(tmp_path):
    """The caller's handler took the signal for good: a later SIGTERM ran only it, and the
    server kept running with its socket (an outside probe)."""
    sock = tmp_path / "bot.sock"
    proc = subprocess.Popen(
        [sys.executable, "-c", CALLERS_HANDLER, str(sock)], cwd=ROOT, env=ENV, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # ended() kills the group if it outlives the test
    )  # fmt: skip
    assert proc.stderr is not None and proc.stderr.readline() == "making\n"
    proc.send_signal(signal.SIGTERM)
    assert proc.stderr.readline() == "caller's handler\n"
    assert proc.stderr.readline().startswith("serving on ")
    proc.send_signal(signal.SIGTERM)
    returncode, err = ended(proc, timeout=30)
    assert returncode == 0 and err == "served\n" and not sock.exists()


@pytest.mark.timeout(180)
def test_a_hangup_stops_the_service_gracefully(tmp_path):
    with redis_server(tmp_path) as redis, service(redis.url, tmp_path) as srv:
        srv.process.send_signal(signal.SIGHUP)
        srv.process.wait(60)
        assert srv.process.returncode == 0, srv.log.read_text()[-3000:]
        assert "arena service stopped" in srv.log.read_text()


# -- F6: an ASCII locale without UTF-8 mode ----------------------------------------------------


def test_output_in_an_ascii_locale_shows_what_it_cannot_encode_as_escapes(tmp_path):
    """stdout's handler there is surrogateescape, not strict: the fix-up for a non-UTF-8 stdout
    passed it by, and `arena rules` died on its first em dash."""
    rules = arena("rules", "rolldice", env=ASCII_LOCALE, timeout=60)
    assert rules.returncode == 0, rules.stderr[-3000:]
    assert "\\u2014" in rules.stdout
    out = tmp_path / "run"
    table = arena(*tournament_args(out, "--repeats", "5", "--workers", "1"), env=ASCII_LOCALE, timeout=60)
    assert table.returncode == 0, table.stderr[-3000:]
    assert status(out) == "complete"


def test_a_chosen_error_handler_that_cannot_fail_is_kept():
    """PYTHONIOENCODING=ascii:replace asks for '?': it stays."""
    rules = arena("rules", "rolldice", env={"PYTHONIOENCODING": "ascii:replace"}, timeout=60)
    assert rules.returncode == 0, rules.stderr[-3000:]
    assert "\\u2014" not in rules.stdout and " ? " in rules.stdout


# -- F8: a deleted current directory ------------------------------------------------------------


def test_a_pool_run_from_a_deleted_directory_is_one_line(tmp_path):
    """A pool's processes start in the current directory: a traceback from inside the pool, the
    run left interrupted."""
    gone = tmp_path / "gone"
    out = tmp_path / "run"
    command = ["sh", "-c", 'mkdir "$0" && cd "$0" && rmdir "$0" && exec "$@"', str(gone), sys.executable, "-m", "arena"]
    done = subprocess.run(
        [*command, *tournament_args(out, "--repeats", "2", "--workers", "2")],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr == (
        "arena tournament: error: the current directory no longer exists (the worker processes start in it): "
        "cd to one that does, or use --workers 1\n"
    )
    assert not out.exists()
    alone = subprocess.run(  # one process needs no pool: it plays
        [*command, *tournament_args(tmp_path / "alone", "--repeats", "2", "--workers", "1")],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert alone.returncode == 0, alone.stderr[-3000:]
