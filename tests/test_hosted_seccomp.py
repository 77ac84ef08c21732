"""A hosted seat's seccomp filter (referee/hosted/seccomp.py): the channels an outside probe
used between jails (file locks on the files every jail reads) and from one match to the next
(the page cache: fadvise, preadv2 RWF_NOWAIT, mincore) are refused with EPERM, and so are the
kernel's administration calls; everything a bot and gRPC use still works. The program is
checked on its own (installed in a child process) and in a real jail."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.runner import FunctionPlayer, play_match
from referee.hosted import seccomp
from referee.hosted.player import HostedPlayer
from tests.test_hosted_limits import bot, first

pytestmark = pytest.mark.skipif(seccomp.program() is None, reason="the filter is x86-64 only")

PROBES = textwrap.dedent(
    """
    import ctypes, errno, fcntl, mmap, os, sys, threading

    def attempt(name, call):
        try:
            call()
            print(name, "allowed", flush=True)
        except OSError as exc:
            print(name, errno.errorcode[exc.errno], flush=True)

    shared = open(SHARED)
    libc = ctypes.CDLL(None, use_errno=True)

    def mincore():
        area = mmap.mmap(-1, 4096)  # a page of its own: mincore asks which pages are resident
        address = ctypes.addressof(ctypes.c_char.from_buffer(area))
        if libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(4096), ctypes.create_string_buffer(1)) != 0:
            raise OSError(ctypes.get_errno(), "mincore")

    def inotify():
        if libc.inotify_init1(0) < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")

    attempt("lockf", lambda: fcntl.lockf(shared, fcntl.LOCK_SH | fcntl.LOCK_NB))
    attempt("getlk", lambda: fcntl.fcntl(shared, fcntl.F_GETLK, bytes(32)))
    attempt("flock", lambda: fcntl.flock(shared, fcntl.LOCK_SH))
    attempt("fadvise", lambda: os.posix_fadvise(shared.fileno(), 0, 0, os.POSIX_FADV_DONTNEED))
    attempt("preadv2", lambda: os.preadv(shared.fileno(), [bytearray(1)], 0, os.RWF_NOWAIT))
    attempt("mincore", mincore)
    attempt("inotify", inotify)
    attempt("getfl", lambda: fcntl.fcntl(shared, fcntl.F_GETFL))
    attempt("read", lambda: shared.read(10))
    # A thread that prints nothing, joined: its print's newline once split the next verdict line.
    attempt("thread", lambda: (t := threading.Thread(target=int)).start() or t.join())
    attempt("pipe", lambda: os.pipe())
    """
)
REFUSED = ("lockf", "getlk", "flock", "fadvise", "preadv2", "mincore", "inotify")
ALLOWED = ("getfl", "read", "thread", "pipe")


def verdicts(output: str) -> dict[str, str]:
    found = {}
    for line in output.splitlines():
        name, _, verdict = line.partition(" ")
        if (name in REFUSED + ALLOWED and verdict in ("allowed", "EPERM")) or verdict.startswith("E"):
            found[name] = verdict
    return found


INSTALL = textwrap.dedent(
    """
    import ctypes, sys
    from referee.hosted.seccomp import program
    rules = program()
    buffer = ctypes.create_string_buffer(rules)

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
    loaded = Program(len(rules) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    assert libc.prctl(22, 2, ctypes.byref(loaded), 0, 0) == 0, ctypes.get_errno()  # SECCOMP_MODE_FILTER
    """
)


def test_the_filter_refuses_the_channels_and_allows_the_rest(tmp_path):
    shared = tmp_path / "shared.txt"
    shared.write_text("every jail reads this\\n" * 500)
    code = INSTALL + f"SHARED = {str(shared)!r}\n" + PROBES
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found = verdicts(done.stdout)
    assert {name: found.get(name) for name in REFUSED} == dict.fromkeys(REFUSED, "EPERM"), done.stdout
    assert {name: found.get(name) for name in ALLOWED} == dict.fromkeys(ALLOWED, "allowed"), done.stdout
    # Without the filter the same calls pass (the probe's checks are not vacuous).
    bare = subprocess.run(
        [sys.executable, "-c", f"SHARED = {str(shared)!r}\n" + PROBES], capture_output=True, text=True, timeout=60
    )
    assert all(verdicts(bare.stdout).get(name) == "allowed" for name in REFUSED), bare.stdout


@pytest.mark.usefixtures("bubblewrap")
def test_a_hosted_seat_runs_under_the_filter(tmp_path):
    code = (
        "SHARED = '/opt/arena-sdk/arena/__init__.py'\n"
        + PROBES
        + "\nfrom bots.sdk import Bot\nfrom bots.serve import serve\n\n\nclass First(Bot):\n"
        "    name = 'first'\n\n    def choose(self, turn):\n        return turn.option_ids[0]\n\n\n"
        "if __name__ == '__main__':\n    serve(First)\n"
    )
    seat = HostedPlayer(bot(tmp_path, "filtered", code), "filtered")
    clock = clock_settings({"decision": 3000, "startup": 10_000})
    record = play_match(GAME, GAME.config(2, {"target": 12}), 4, [seat, FunctionPlayer(first, "local")], clock=clock)
    assert record.failures == []  # Python, gRPC and the SDK play on under it
    found = verdicts(seat.output)
    assert {name: found.get(name) for name in REFUSED} == dict.fromkeys(REFUSED, "EPERM"), seat.output
    assert all(found.get(name) == "allowed" for name in ALLOWED), seat.output
