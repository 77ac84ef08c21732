"""Hosted bots from exploratory testing: what a crash's detail may say (never the bot's output),
the jail's memory outside the address space (/dev/shm, System V IPC), a diagnosis from what the
sandbox saw, the start-up allowance, logs that are the bot owner's, and a seat that cannot be
played here (a crash recorded, not a worker error). Real bubblewrap jails, real processes."""

from __future__ import annotations

import errno
import io
import json
import os
import tarfile
import time
from pathlib import Path

import pytest

from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.registry import get_game
from arena.runner import FunctionPlayer, play_match
from bots.registry import make_bot
from referee.hosted import jail, player, versions
from referee.hosted.jail import IN_LOGS, Jail, JailFailed, Limits
from referee.hosted.player import HostedPlayer, UnplayableHostedPlayer
from referee.players import make_player
from tests.services import redis_server

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("bubblewrap")]

CONFIG = GAME.config(2, {"target": 20})
CLOCK = clock_settings({"decision": 3000, "bank": 0, "increment": 0, "startup": 10_000, "grace": 200, "strikes": 0})
SECRET = "OWNER-PRIVATE api_key=hunter2"
MANIFEST = 'name = "{name}"\ngames = [{games}]\nlanguage = "python"\nentry = "{name}"\n'
PLAYS = (
    "from bots.sdk import Bot\nfrom bots.serve import serve\n\n\nclass First(Bot):\n"
    "    name = 'first'\n\n    def choose(self, turn):\n        return turn.option_ids[0]\n\n\n"
    "if __name__ == '__main__':\n    serve(First)\n"
)


def bot(tmp_path: Path, name: str, code: str, games: str = '"rolldice"') -> Path:
    """A hosted bot's files: ``code`` is its entry module."""
    directory = tmp_path / name
    directory.mkdir()
    (directory / "arena-bot.toml").write_text(MANIFEST.format(name=name, games=games))
    (directory / f"{name}.py").write_text(code)
    return directory


def first(request):
    return request.options[0].id


def crash_before_listening(directory: Path, limits: Limits | None = None) -> tuple[str, str]:
    """Start the jail of a bot that ends before it listens: (the crash's detail, its output)."""
    seat = Jail(directory, directory.name, limits)
    with pytest.raises(JailFailed) as caught:
        seat.start(30)
    assert caught.value.verdict == "crash"
    return caught.value.detail, seat.output()


# -- 1. the record never carries the bot's output ---------------------------------------------------


def test_a_crash_before_listening_keeps_the_bots_output_out_of_the_match_record(tmp_path):
    code = (
        "import sys\n"
        f"print({SECRET!r}, flush=True)\n"
        "print('\\x1b]0;TITLE\\x07\\x1b[2J\\x1b[31mFAKE: alice was disqualified\\x1b[0m',\n"
        "      file=sys.stderr, flush=True)\n"
        f"raise SystemExit('config check failed: {SECRET}')\n"
    )
    kept: list[tuple[str, int, str]] = []
    seat = HostedPlayer(bot(tmp_path, "leaky", code), "leaky", keep_log=lambda m, s, text: kept.append((m, s, text)))
    record = play_match(GAME, CONFIG, 4, [seat, FunctionPlayer(first, "local")], clock=CLOCK)
    (failure,) = record.failures
    assert (failure.seat, failure.decision, failure.verdict) == (0, -1, "crash")
    assert "the bot exited (exit status 1) before listening" in failure.detail
    assert IN_LOGS in failure.detail
    assert SECRET not in failure.detail and "FAKE" not in failure.detail and "\x1b" not in failure.detail
    assert SECRET not in json.dumps(record.to_json())
    # The output is its owner's: in the seat's log.
    assert SECRET in seat.output and "FAKE: alice" in seat.output
    assert [text for _, _, text in kept] == [seat.output]


def test_a_local_run_prints_a_hosted_seats_output_which_has_no_match_logs(tmp_path):
    # `arena play --bots hosted:DIR`, the way to try a bot before submitting it: its crash's
    # traceback was shown nowhere, and the detail pointed to match logs a local run has not.
    from tests.cli_run import arena

    code = "import sys\nraise SystemExit('config check failed: no table.json')\n"
    directory = bot(tmp_path, "leaky", code).resolve()
    played = arena("play", "--game", "rolldice", "--bots", f"hosted:{directory},random", "--seed", "3")
    assert "crash" in played.stdout + played.stderr and "a local run prints it" in played.stdout + played.stderr
    assert "== output of hosted bot 'leaky', seat 0 of match" in played.stderr
    assert "config check failed: no table.json" in played.stderr
    # The seat is named by its spec, as a tournament names it: the manifest's own name (which may
    # be "heuristic") passed for a built-in bot's in the record (a newcomer's probe).
    named = arena("play", "--game", "rolldice", "--bots", f"hosted:{directory},random", "--json")
    assert [s["bot"] for s in json.loads(named.stdout)["seats"]] == [f"hosted:{directory}", "random"]
    missing = arena("play", "--game", "rolldice", "--bots", f"hosted:{tmp_path / 'nowhere'},random")
    assert missing.returncode == 2 and "no such directory" in missing.stderr
    (tmp_path / "packed.tar.gz").write_bytes(b"x")
    packed = arena("play", "--game", "rolldice", "--bots", f"hosted:{tmp_path / 'packed.tar.gz'},random")
    assert packed.returncode == 2 and "a file; a local run plays a directory of its files" in packed.stderr


# -- 2. memory outside the address space: /dev/shm and System V IPC are capped -------------------------

SHARED_MEMORY_PROBE = """\
import ctypes, sys
from pathlib import Path

def say(*words):
    print(*words, flush=True)

written = 0
try:
    for index in range(64):
        with open(f"/dev/shm/fill{index}", "wb") as f:
            f.write(b"x" * (1 << 20))
        written += 1
except OSError as exc:
    say("DEVSHM full after", written, "MiB:", exc.errno)
for path in ("/dev/pwned", "/dev/shm/../pwned2"):
    try:
        open(path, "w").close()
        say("DEV write", path, "OPEN")
    except OSError as exc:
        say("DEV write", path, "blocked", exc.errno)
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.restype = ctypes.c_int
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
private, create = 0, 0o1000 | 0o600
say("SHMGET 64 MiB:", libc.shmget(private, 64 << 20, create), ctypes.get_errno())
segments = 0
while segments < 64 and libc.shmget(private, 1 << 20, create) >= 0:
    segments += 1
say("SHMGET 1 MiB segments:", segments, ctypes.get_errno())
say("SHMMAX", Path("/proc/sys/kernel/shmmax").read_text().strip())
try:
    Path("/proc/sys/kernel/shmmax").write_text("999999999999")
    say("SHMMAX raised")
except OSError as exc:
    say("SHMMAX blocked", exc.errno)
sys.exit(0)
"""


def test_dev_shm_is_a_small_tmpfs_and_the_rest_of_dev_is_read_only(tmp_path):
    detail, output = crash_before_listening(bot(tmp_path, "shmdev", SHARED_MEMORY_PROBE))
    assert "exit status 0" in detail
    (full,) = [line.split() for line in output.splitlines() if line.startswith("DEVSHM full")]
    assert int(full[3]) <= Limits().shared_memory // jail.MiB and int(full[5]) == errno.ENOSPC, output
    assert f"DEV write /dev/pwned blocked {errno.EROFS}" in output, output
    assert "OPEN" not in output


@pytest.mark.skipif(os.geteuid() != 0, reason="System V IPC limits are set by a root worker only (README)")
def test_system_v_shared_memory_is_bounded_and_the_bot_cannot_raise_the_bound(tmp_path):
    _, output = crash_before_listening(bot(tmp_path, "shmsysv", SHARED_MEMORY_PROBE))
    limit = Limits().shared_memory
    assert f"SHMGET 64 MiB: -1 {errno.EINVAL}" in output, output  # larger than shmmax
    (segments,) = [line.split() for line in output.splitlines() if line.startswith("SHMGET 1 MiB")]
    assert int(segments[4]) <= limit // jail.MiB and int(segments[5]) == errno.ENOSPC, output  # shmall
    assert f"SHMMAX {limit}" in output
    assert f"SHMMAX blocked {errno.EACCES}" in output, output


# -- 9. the diagnosis: what the process died of, not what it printed ---------------------------------


def test_a_genuine_out_of_memory_after_much_output_is_diagnosed(tmp_path):
    code = (
        "import sys\nsys.stderr.write('x' * 70000 + '\\n')\nsys.stderr.flush()\n"
        "hoard = []\nwhile True:\n    hoard.append(bytearray(64 << 20))\n"
    )
    detail, output = crash_before_listening(bot(tmp_path, "oom", code))
    assert len(output.encode()) > jail.LOG_CAP  # the traceback is past the kept output
    assert "exit status 1" in detail
    assert "sandbox: the bot ran out of memory: it hit its memory limit (1024 MiB of address space)" in detail


def test_a_printed_memory_error_that_is_not_what_the_bot_died_of_is_not_diagnosed(tmp_path):
    """It handled a MemoryError (and said so), then died of something else mid-match: the
    crash names its exit status, not the memory limit."""
    code = PLAYS.replace(
        "        return turn.option_ids[0]\n",
        "        try:\n            bytearray(2 * 1024**3)\n        except MemoryError:\n"
        "            print('cache too big (MemoryError), using the small one', flush=True)\n"
        "        import os\n        os._exit(3)\n",
    )
    seat = HostedPlayer(bot(tmp_path, "fakeoom", code), "fakeoom")
    record = play_match(GAME, CONFIG, 4, [seat, FunctionPlayer(first, "local")], clock=CLOCK)
    (failure,) = record.failures
    assert failure.verdict == "crash" and failure.decision >= 0
    assert "MemoryError" in seat.output
    assert "memory" not in failure.detail
    assert failure.detail.endswith("; sandbox: the bot's process ended (exit status 3)"), failure.detail


def test_a_bot_killed_by_a_real_time_signal_is_named_by_its_number(tmp_path):
    """Signals 35-63 have no name in signal.Signals: the detail was 'ValueError: 40 is not a
    valid Signals' (an outside probe), at the start and mid-match."""
    detail, _ = crash_before_listening(bot(tmp_path, "rtstart", "import os\nos.kill(os.getpid(), 40)\n"))
    assert "the bot exited (killed by signal 40 (SIGRTMIN+6)) before listening" in detail, detail
    code = PLAYS.replace("        return turn.option_ids[0]\n", "        import os\n        os.kill(os.getpid(), 40)\n")
    seat = HostedPlayer(bot(tmp_path, "rtmove", code), "rtmove")
    record = play_match(GAME, CONFIG, 4, [seat, FunctionPlayer(first, "local")], clock=CLOCK)
    (failure,) = record.failures
    assert failure.verdict == "crash" and failure.decision >= 0
    assert failure.detail.endswith("; sandbox: the bot's process ended (killed by signal 40 (SIGRTMIN+6))"), (
        failure.detail
    )
    assert jail.signal_name(9) == "SIGKILL" and jail.signal_name(34) == "SIGRTMIN"


# -- 8. the start-up allowance follows the start-up clock ---------------------------------------------


def test_a_hosted_bot_must_listen_within_the_start_up_clock_plus_the_sandboxs_start(tmp_path, monkeypatch):
    monkeypatch.setattr(player, "SANDBOX_START", 1.0)
    assert player.listen_allowance(1000) == 2.0
    assert player.listen_allowance(600_000) == player.STARTUP_BUDGET
    seat = HostedPlayer(bot(tmp_path, "sleepy", "import time\ntime.sleep(1000)\n"), "sleepy")
    clock = clock_settings({"decision": 1000, "bank": 0, "increment": 0, "startup": 1000, "grace": 200, "strikes": 0})
    began = time.monotonic()
    record = play_match(GAME, CONFIG, 4, [seat, FunctionPlayer(first, "local")], clock=clock)
    assert time.monotonic() - began < 10  # not the 30 s STARTUP_BUDGET
    (failure,) = record.failures
    assert (failure.decision, failure.verdict) == (-1, "stall")
    assert "did not listen on its socket within 2.0 s" in failure.detail


# -- 6 and 7: a worker's hosted seats (a store configured) ---------------------------------------------


def tar_of(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, content in files.items():
            data = content.encode()
            info = tarfile.TarInfo(path)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture
def worker_store(tmp_path, monkeypatch):
    """A store as a worker has it configured (versions fetched from it, logs kept in it), with
    a version of alice's hosted bot ``first`` (plays rolldice) uploaded by an operator."""
    from referee.store import Store

    monkeypatch.setattr(versions, "CACHE", tmp_path / "cache")
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        monkeypatch.setattr(versions, "_store", store)
        store.add_bot("first", {"owner": "alice", "games": ["rolldice"], "endpoint": "hosted:first", "enabled": True})
        data = tar_of({"arena-bot.toml": MANIFEST.format(name="first", games='"rolldice"'), "first.py": PLAYS})
        checked = versions.check_upload(data)
        info = versions.save_version(store, "first", "ops", checked, data)
        yield store, info


def test_a_version_an_operator_uploaded_keeps_its_logs_for_the_bots_owner(worker_store, monkeypatch):
    store, info = worker_store
    assert (info["owner"], info["uploader"]) == ("alice", "ops")
    # A version stored before (its "owner" was whoever uploaded it): the bot's owner still.
    key = store.key("hosted", "versions", "first")
    store.redis.hset(key, info["version"], json.dumps({**info, "owner": "ops"}))
    versions.playing("t1")  # as a worker says before a batch of the tournament's matches
    try:
        seat = make_player(f"hosted:first@{info['version']}", "rolldice")
    finally:
        versions.playing("")
    assert isinstance(seat, HostedPlayer) and seat.keep_log is not None
    seat.keep_log("m000001", 0, "hello from the bot")
    (entry,) = versions.logs(store, "t1:m000001", 2)
    assert (entry["owner"], entry["bot"], entry["text"]) == ("alice", "first", "hello from the bot")


def test_a_seats_logs_spend_the_budget_of_whoever_created_its_tournament(worker_store):
    store, info = worker_store
    store.redis.hset(store.key("t", "t2"), mapping={"owner": "bob", "status": "running"})  # bob entered alice's bot
    versions.playing("t2")
    try:
        seat = make_player(f"hosted:first@{info['version']}", "rolldice")
    finally:
        versions.playing("")
    assert isinstance(seat, HostedPlayer) and seat.keep_log is not None
    seat.keep_log("m000001", 0, "x" * 100)
    day = time.strftime("%Y%m%d", time.gmtime())
    assert store.redis.exists(store.key("hosted", "logbytes", "alice", "bob", day))
    assert not store.redis.exists(store.key("hosted", "logbytes", "alice", "alice", day))


def test_a_matchs_logs_are_read_by_its_seats_keys_never_by_walking_redis(worker_store):
    store, _ = worker_store
    for seat in (3, 1):  # seats 0 and 2 are not hosted: no log
        versions.save_log(store, "t1:m000002", seat, "alice", "first", f"seat {seat}")
    versions.save_log(store, "t1:m0000021", 0, "bob", "other", "another match's")  # a prefix alike
    store.redis.config_resetstat()
    assert [e["text"] for e in versions.logs(store, "t1:m000002", 4)] == ["seat 1", "seat 3"]
    # GetMatchLogs used to SCAN the whole keyspace for "log:MATCH:*" on every call.
    assert "cmdstat_scan" not in store.redis.info("commandstats")


def test_on_a_worker_a_seat_that_cannot_be_played_is_a_recorded_crash_not_an_error(worker_store, tmp_path):
    _, info = worker_store
    version = info["version"]
    skyfive = get_game("skyfive")
    seat = make_player(f"hosted:first@{version}", "skyfive")
    assert isinstance(seat, UnplayableHostedPlayer)
    other = make_bot("random", "skyfive")
    record = play_match(skyfive, skyfive.config(2, {}), 4, [seat, other], clock=CLOCK)
    (failure,) = record.failures
    assert (failure.seat, failure.decision, failure.verdict) == (0, -1, "crash")
    assert failure.detail.startswith(f"hosted bot 'first' version {version[:12]} does not play skyfive")
    assert record.result["forfeited"] == [True, False]
    # A missing version, and a directory whose manifest does not name the game, likewise.
    missing = make_player("hosted:first@" + "0" * 64, "rolldice")
    assert isinstance(missing, UnplayableHostedPlayer) and "has no version 000000000000" in missing.reason
    directory = bot(tmp_path, "skyonly", PLAYS, games='"skyfive"')
    mismatch = make_player(f"hosted:{directory}", "rolldice")
    assert isinstance(mismatch, UnplayableHostedPlayer)
    assert mismatch.reason.startswith("hosted bot 'skyonly' does not play rolldice")


def test_on_a_worker_without_bubblewrap_a_hosted_seat_is_a_crash_naming_the_sandbox(worker_store, monkeypatch):
    _, info = worker_store
    monkeypatch.setenv("PATH", "/nonexistent")
    jail.sandbox_problem.cache_clear()
    try:
        seat = make_player(f"hosted:first@{info['version']}", "rolldice")
        record = play_match(GAME, CONFIG, 4, [seat, FunctionPlayer(first, "local")], clock=CLOCK)
    finally:
        monkeypatch.undo()
        jail.sandbox_problem.cache_clear()
    (failure,) = record.failures
    assert (failure.decision, failure.verdict) == (-1, "crash")
    assert "the sandbox cannot run on this worker: bwrap" in failure.detail and "not found" in failure.detail


def test_a_celery_worker_records_the_matches_of_a_hosted_bot_that_does_not_play_the_game(tmp_path):
    """The tournament ends (it stayed "running 0/N", its tasks redelivered, when the worker
    raised ConfigError building the seat)."""
    from arena.tournament import TournamentSpec
    from referee.store import Store
    from tests.services import wait_for, workers
    from tests.test_distributed import start

    directory = bot(tmp_path, "skyonly", PLAYS, games='"skyfive"')
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, concurrency=1, metrics=False):
        spec = TournamentSpec(game="rolldice", bots=(f"hosted:{directory}", "random"), players=2)
        start(server.url, "unplayable", spec)
        store = Store(server.url)
        ended = lambda: (store.tournament("unplayable") or {}).get("status") == "complete"  # noqa: E731
        wait_for(ended, 90, "the tournament to end")
        records = store.matches("unplayable")
    assert len(records) == 2
    for record in records:
        (failure,) = record.failures
        assert failure.verdict == "crash" and "hosted bot 'skyonly' does not play rolldice" in failure.detail


def test_archive_errors_name_the_version_for_a_worker(worker_store, monkeypatch):
    """A stored archive that no longer checks out (tampered) is a crash naming the version."""
    store, info = worker_store
    store.redis.set(store.key("hosted", "archive", info["version"]), tar_of({"first.py": PLAYS}))
    seat = make_player(f"hosted:first@{info['version']}", "rolldice")
    assert isinstance(seat, UnplayableHostedPlayer)
    assert seat.reason.startswith(f"hosted bot 'first' version {info['version'][:12]}: ")
    assert "does not match its hash" in seat.reason


def test_a_workers_seat_holds_its_version_in_the_cache_until_its_match_ends(worker_store, monkeypatch):
    """The cache evicts any version no match holds, however recently used (an outside probe
    filled it within the hour, when only versions idle an hour went): a seat's jail binds its
    version's files, so the seat holds them from its player's making to its closing."""
    _, info = worker_store
    version = info["version"]
    seat = make_player(f"hosted:first@{version}", "rolldice")
    assert isinstance(seat, HostedPlayer)
    monkeypatch.setattr(versions, "CACHE_BYTES", 0)
    with pytest.raises(
        versions.CacheFull, match=r"a version needs 0\.0 MiB, and the versions its matches are playing hold"
    ):
        versions.make_room(0)
    record = play_match(GAME, CONFIG, 4, [seat, FunctionPlayer(first, "local")], clock=CLOCK)
    assert record.failures == []
    assert versions.make_room(0) == [version]
    # A version with no room is a crash naming the cache, the match played out and recorded.
    seat = make_player(f"hosted:first@{version}", "rolldice")
    assert isinstance(seat, UnplayableHostedPlayer)
    assert seat.reason.startswith(
        f"hosted bot 'first' version {version[:12]}: this worker's cache of unpacked hosted versions is full"
    )


def test_a_seat_that_fails_to_be_made_holds_no_version_and_leaves_no_lock(worker_store, monkeypatch):
    # An error after the version was leased (the store, reading its owner) left the lease to the
    # traceback's frame: the version stayed held while the exception lived. A lock file of a
    # version never unpacked stayed for good (an outside review, review14).
    import redis as redis_client

    _, info = worker_store
    version = info["version"]

    def unreachable(*args):  # type: ignore[no-untyped-def]
        raise redis_client.ConnectionError("the store went away")

    with monkeypatch.context() as patched:
        patched.setattr(versions, "bot_owner", unreachable)
        try:
            make_player(f"hosted:first@{version}", "rolldice")
        except redis_client.ConnectionError as exc:
            kept = exc  # alive, with its traceback
    assert kept.__traceback__ is not None
    monkeypatch.setattr(versions, "CACHE_BYTES", 0)
    assert versions.make_room(0) == [version]
    (versions.CACHE / ".0123abcd.lock").touch()  # as a failed unpacking leaves it
    versions.make_room(0)
    assert not list(versions.CACHE.glob(".*.lock"))


def test_seat_uids_are_leased_in_one_place_for_every_process_whatever_its_tmpdir(tmp_path):
    # A worker and a service with different TMPDIRs leased one uid, and the second killed the
    # first's running bot as a previous seat's leftovers (an outside hosted-bot probe).
    import subprocess
    import sys

    seen = set()
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        shown = subprocess.run(
            [sys.executable, "-c", "from referee.hosted.jail import _UidLease; print(_UidLease.directory)"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "TMPDIR": str(tmp_path / name)},
        )
        seen.add(shown.stdout.strip())
    (directory,) = seen
    assert not directory.startswith(str(tmp_path))
