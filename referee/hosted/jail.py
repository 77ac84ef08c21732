"""One hosted seat's bubblewrap jail: start the bot's entry module, find its socket, end it all.

The jail, run by a worker as root (the normal case), is this chain of ``exec``s, all one process
(a worker that is not root skips steps 1 and 2: the seat then runs under the worker's uid, and
the process limit counts the worker's processes too):

1. ``unshare --mount --ipc`` + one ``mount --bind`` per path, in a private mount namespace: every
   host directory the jail needs (the interpreter's prefix, the SDK's packages, the bot's files)
   is bound onto a mount point of the seat's own work directory, so the unprivileged steps below
   can reach it even when a parent directory is private (``/root`` is ``0700``, pytest's tmp
   directories too). The seat's own IPC namespace is made here, by root, and its System V
   limits are set small (:func:`ipc_sysctls`: shared memory, semaphores, message queues): an
   IPC namespace made by bwrap would belong to the seat's user namespace, whose owner (the
   seat) may raise them again. Nothing on the host changes; the namespaces die with the seat.
2. ``setpriv``: the seat's own uid and gid (a distinct uid per concurrent seat, leased with a
   lock file, so ``RLIMIT_NPROC`` counts this seat's processes only), no supplementary groups,
   no inheritable, ambient or bounding capabilities, ``no_new_privs``.
3. ``prlimit``: address space, CPU seconds, open files, file size, processes; no core dumps.
4. ``bwrap``: every other namespace unshared (user, mount, pid, net, uts, cgroup: no network at
   all, only a loopback; ipc too when the worker is not root), a new root with ``/usr`` and the
   runtime read-only, the bot's files read-only at ``/bot``, the new root itself read-only, a
   size-capped tmpfs at ``/tmp`` (writable) and a tiny one at ``/run/arena`` (its socket),
   ``/proc`` of its own pid namespace, a minimal ``/dev`` (read-only but for a size-capped
   ``/dev/shm``), a cleared environment, all capabilities dropped, ``--die-with-parent`` and
   ``--new-session``.
5. ``python -S -m ENTRY``: the bot, served by the SDK on ``unix:///run/arena/bot.sock``
   (``ARENA_BOT_ADDRESS``). ``-S``: no ``site``, no ``.pth`` hooks; ``PYTHONPATH`` names the
   bot, the SDK and the dependencies.

The referee finds the socket through ``/proc/PID/root`` of the jail's first process (bwrap's
``--info-fd`` reports the pid), so the socket lives on the jail's own capped tmpfs: the seat has
no writable host directory at all. It dials the socket's inode, pinned by a descriptor opened
without following links (see :meth:`Jail._pin`), never the path. At the end the whole process group is killed; the pid
namespace's init dies with it, which kills everything inside, and any process still running
under the seat's uid is killed before the uid is released.

The bot's output (stdout and stderr, one pipe) is kept up to :data:`LOG_CAP` bytes, then a
marker says how much more was dropped; the pipe is always drained, so a chatty bot never blocks.
The output is its owner's: a verdict's detail (in the match record, which others read) never
quotes it. The last :data:`TAIL` bytes are kept apart, for the crash diagnosis (a dying
traceback comes last, after whatever the bot printed before).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import random
import re
import select
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from referee.hosted import cgroups, seccomp

log = logging.getLogger(__name__)

MiB = 1024 * 1024
LOG_CAP = 64 * 1024
"""Bytes of a seat's output kept per match."""
TAIL = 8 * 1024
"""Bytes at the end of a seat's output kept for the crash diagnosis (not shown to anyone)."""
IN_LOGS = "its output is in the match logs, shown to its owner (a local run prints it)"
UID_BASE = 61000
UID_COUNT = 2000
SEAT_UIDS = range(UID_BASE, UID_BASE + UID_COUNT)
"""Seat uids: 61000..62999 (no account needs to exist for them)."""
SOCKET = "/run/arena/bot.sock"
"""The bot's socket, inside the jail."""
SDK_ROOT = Path(__file__).resolve().parents[2]
"""Where the ``arena`` and ``bots`` packages (the SDK) live."""
_ENTRY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_UNSAFE = False


class SandboxUnavailable(Exception):
    """The sandbox cannot run here (the message says why); hosted bots are refused."""


class JailFailed(Exception):
    """The bot did not come up: ``verdict`` is ``crash`` (it exited) or ``stall`` (too slow)."""

    def __init__(self, verdict: str, detail: str) -> None:
        super().__init__(detail)
        self.verdict = verdict
        self.detail = detail


@dataclass(frozen=True)
class Limits:
    """A seat's resource limits (rlimits, hard = soft, and the tmpfs size)."""

    memory: int = 1024 * MiB
    """Address space (RLIMIT_AS). Python with gRPC's threads maps ~200 MiB before it allocates
    (malloc held to two arenas, BOT_MALLOC): a bot can make a table of about 800 MiB."""
    cpu_seconds: int = 600
    """CPU time per process (RLIMIT_CPU), a backstop for a whole match (a jail lives one match):
    the decision clock bounds each answer well before (a busy loop is a ``timeout``)."""
    open_files: int = 64
    file_size: int = 8 * MiB
    """Largest file the bot may write (RLIMIT_FSIZE)."""
    processes: int = 48
    """Processes and threads of the seat's uid (RLIMIT_NPROC); gRPC's server uses ~15."""
    tmpfs: int = 16 * MiB
    """Size of the writable ``/tmp``."""
    shared_memory: int = 4 * MiB
    """Size of ``/dev/shm`` (POSIX shared memory, a tmpfs), and separately the total of the seat's
    System V shared memory segments (a root worker only: see :func:`ipc_sysctls`)."""
    seat_memory: int = 2048 * MiB
    """Resident memory of the whole seat: every process, its /tmp, /dev/shm and memfd files
    (its control group, where the host lets a root worker make one: :mod:`cgroups`)."""

    def describe(self) -> str:
        return (
            f"address space {self.memory // MiB} MiB, {self.cpu_seconds} CPU s, {self.open_files} open files, "
            f"files up to {self.file_size // MiB} MiB, {self.processes} processes, /tmp {self.tmpfs // MiB} MiB, "
            f"shared memory {self.shared_memory // MiB} MiB, the seat's resident memory {self.seat_memory // MiB} MiB"
        )


def ipc_sysctls(limits: Limits) -> dict[str, str]:
    """The System V IPC limits of a seat's IPC namespace (``/proc/sys/kernel/...``; a new IPC
    namespace starts with the kernel's defaults, which are practically unlimited): shared memory
    at most ``limits.shared_memory`` in all (16 segments), removed once no process has them
    attached; 16 semaphore sets of at most 250 semaphores each, 1000 in all; 16 message queues (the
    kernel's default 16 KiB each)."""
    page = os.sysconf("SC_PAGE_SIZE")
    return {
        "shmmax": str(limits.shared_memory),
        "shmall": str(max(1, limits.shared_memory // page)),
        "shmmni": "16",
        "shm_rmid_forced": "1",
        "sem": "250 1000 32 16",
        "msgmni": "16",
    }


def allow_unsafe() -> None:
    """Run hosted bots WITHOUT a sandbox (``arena worker --unsafe-no-sandbox``): development only."""
    global _UNSAFE
    _UNSAFE = True
    log.warning(
        "hosted bots run WITHOUT a sandbox (--unsafe-no-sandbox): their code can read this machine's files "
        "and environment and use its network; never do this with code you do not trust"
    )


def unsafe() -> bool:
    return _UNSAFE


@cache
def sandbox_problem() -> str | None:
    """Why the sandbox cannot run here, or None when it can (checked once per process)."""
    needed = ["bwrap", "prlimit"] + (["unshare", "setpriv", "mount"] if os.geteuid() == 0 else [])
    missing = [tool for tool in needed if shutil.which(tool) is None]
    if missing:
        hint = " (Debian package bubblewrap)" if "bwrap" in missing else ""
        return f"{', '.join(missing)} not found on PATH{hint}"
    probe = ["bwrap", "--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "true"]
    if os.geteuid() == 0:
        probe = ["setpriv", f"--reuid={UID_BASE}", f"--regid={UID_BASE}", "--clear-groups", "--", *probe]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, env=_host_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap does not run: {exc}"
    if done.returncode != 0:
        reason = done.stderr.strip() or f"exit status {done.returncode}"
        return f"bubblewrap cannot create its namespaces (are user namespaces disabled?): {reason}"
    if os.geteuid() == 0:  # a seat's IPC namespace and its limits (step 1 of the jail)
        script = "".join(f"echo '{v}' > /proc/sys/kernel/{k} && " for k, v in ipc_sysctls(Limits()).items()) + "true"
        try:
            done = subprocess.run(
                ["unshare", "--ipc", "--", "/bin/sh", "-c", script],
                capture_output=True,
                text=True,
                timeout=30,
                env=_host_env(),
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"cannot make a seat's IPC namespace: {exc}"
        if done.returncode != 0:
            reason = done.stderr.strip() or f"exit status {done.returncode}"
            return f"cannot set the System V IPC limits of a seat's IPC namespace (is /proc/sys read-only?): {reason}"
    return None


def check_sandbox() -> None:
    """Raise :class:`SandboxUnavailable` unless hosted bots can run here (sandboxed, or unsafe)."""
    if _UNSAFE:
        return
    problem = sandbox_problem()
    if problem is not None:
        raise SandboxUnavailable(
            f"hosted bots are refused: the sandbox cannot run on this worker: {problem}. The operator must "
            "install bubblewrap and allow user namespaces (or, for local development only, start the worker "
            "with --unsafe-no-sandbox)"
        )


BOT_MALLOC = {"MALLOC_ARENA_MAX": "2"}
"""glibc's malloc for a bot: two arenas, not one reserved per thread (64 MiB of address space
each): with gRPC's and the pool's threads about 700 MiB of the 1 GiB limit was gone before the
bot allocated, and 325 MiB was the largest table it could make; with two, 835 MiB (an outside
hosted-bot probe)."""


def _host_env() -> dict[str, str]:
    return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}


def processes_of(uid: int | range) -> list[int]:
    """Live pids whose real uid is ``uid`` (or in the range) (to check that nothing of a seat
    outlives it); zombies, already dead and only waiting for their parent, are not counted."""
    return list(_live_processes(range(uid, uid + 1) if isinstance(uid, int) else uid))


def _live_processes(uids: range) -> dict[int, int]:
    """pid -> real uid of the live processes whose uid is in ``uids`` (one pass over /proc)."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="utf-8", errors="replace") as status:
                for line in status:
                    if line.startswith("State:") and line.split()[1] in ("Z", "X"):
                        break
                    if line.startswith("Uid:"):
                        if (real := int(line.split()[1])) in uids:
                            found[int(entry)] = real
                        break
        except (OSError, ValueError):
            continue
    return found


def _uid_locks() -> Path:
    """Where seat uids are leased: one place for every Arena process on the host, whatever its
    TMPDIR (leases under each process's temporary directory let a worker and a service with
    different ones lease one uid, and the second killed the first's running bot as a previous
    seat's leftovers: an outside hosted-bot probe). /run is root's and cleared at boot."""
    run = Path("/run")
    return (run if run.is_dir() else Path("/tmp")) / "arena-hosted-uids"


class _UidLease:
    """A seat uid held by a lock file for the seat's life (unique across the host's processes).
    The file names the seat's work directory while the seat runs, so that what a process
    killed mid-match left (its seat's processes, control group and work directory) can be
    cleared by the next process to take the uid, or by :func:`clear_left_seats` at start-up."""

    directory = _uid_locks()

    def __init__(self) -> None:
        self.directory.mkdir(mode=0o700, exist_ok=True)
        start = random.randrange(UID_COUNT)
        for offset in range(UID_COUNT):
            uid = UID_BASE + (start + offset) % UID_COUNT
            fd = os.open(self.directory / f"{uid}.lock", os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            _clear_left(uid, fd)  # a previous seat's leftovers (a worker killed mid-match)
            self.uid, self.fd = uid, fd
            return
        raise JailFailed("crash", f"no free seat uid: {UID_COUNT} hosted seats already run on this machine")

    def record(self, work: Path) -> None:
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, str(work).encode(), 0)

    def release(self) -> None:
        os.ftruncate(self.fd, 0)
        os.close(self.fd)


def clear_left_seats() -> int:
    """Clear what the seats of a process that died without stopping them left on this host
    (a worker killed mid-match: the seat's processes, even a jail still starting, run on under
    init; its control group and work directory stay): every seat uid no process holds. Run
    at a worker's and the service's start; returns how many seats had something left."""
    if os.geteuid() != 0 or not _UidLease.directory.is_dir():
        return 0
    running = set(_live_processes(SEAT_UIDS).values())  # one pass over /proc, not one a uid
    cleared = 0
    for lock in sorted(_UidLease.directory.glob("*.lock")):
        if not lock.stem.isdigit():
            continue
        try:
            fd = os.open(lock, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            cleared += _clear_left(int(lock.stem), fd, int(lock.stem) in running)
        except BlockingIOError:
            continue  # a live seat's
        finally:
            os.close(fd)
    if cleared:
        log.warning("cleared what %d hosted seats of a stopped process left (processes, groups, directories)", cleared)
    return cleared


def _clear_left(uid: int, fd: int, running: bool | None = None) -> bool:
    """Kill a leased uid's leftover processes (``running``: whether it has any, if known),
    remove its seat's group and the work directory its lock file names; whether anything was
    left."""
    if running is None:
        running = bool(processes_of(uid))
    killed = running and bool(_kill_uid(uid))
    grouped = cgroups.remove_left(f"seat-{uid}")
    recorded = os.pread(fd, 4096, 0).decode(errors="replace")
    work = Path(recorded)
    # only a directory a seat made (tempfile.mkdtemp(prefix="arena-seat-")), nothing else
    removed = work.is_absolute() and work.name.startswith("arena-seat-") and work.is_dir()
    if removed:
        shutil.rmtree(work, ignore_errors=True)
    if recorded:
        os.ftruncate(fd, 0)
    return killed or grouped or removed


def _kill_uid(uid: int, within: float = 5.0) -> set[int]:
    deadline = time.monotonic() + within
    killed: set[int] = set()
    while (pids := processes_of(uid)) and time.monotonic() < deadline:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
        time.sleep(0.02)
    return killed


def runtime_paths() -> list[str]:
    """The interpreter's prefix and the dependencies' directories (outermost first, no nesting)."""
    paths = sorted({sys.base_prefix, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    kept: list[str] = []
    for path in paths:
        if not any(path == p or path.startswith(p.rstrip("/") + "/") for p in kept):
            kept.append(path)
    return kept


def interpreter() -> str:
    exe = Path(sys.executable).resolve()
    if str(exe).startswith(sys.base_prefix):
        return str(exe)
    return str(Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}")


class _Output:
    """Drains a pipe; keeps the first LOG_CAP bytes and counts the rest; keeps the last TAIL
    bytes apart (for the diagnosis)."""

    def __init__(self, pipe: int) -> None:
        self.kept = bytearray()
        self.dropped = 0
        self.tail = bytearray()
        self.thread = threading.Thread(target=self._drain, args=(pipe,), daemon=True, name="hosted-output")
        self.thread.start()

    def _drain(self, pipe: int) -> None:
        with open(pipe, "rb", buffering=0, closefd=True) as stream:
            while chunk := stream.read(65536):
                room = LOG_CAP - len(self.kept)
                self.kept += chunk[:room]
                self.dropped += max(0, len(chunk) - room)
                self.tail += chunk[-TAIL:]
                del self.tail[:-TAIL]

    def text(self) -> str:
        text = self.kept.decode("utf-8", "replace")
        if self.dropped:
            text += f"\n[arena: output truncated at {LOG_CAP // 1024} KiB; {self.dropped} more bytes not kept]\n"
        return text


class Jail:
    """One seat: ``start()`` returns the gRPC target; ``stop()`` ends every process of the seat."""

    def __init__(self, bot_dir: Path | str, entry: str, limits: Limits | None = None) -> None:
        if not _ENTRY.match(entry):
            raise ValueError(f"entry {entry!r}: expected a Python module name such as mybot or mybot.main")
        self.bot_dir = Path(bot_dir).resolve()
        self.entry = entry
        self.limits = limits or Limits()
        self.sandboxed = not _UNSAFE
        self.uid: int | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.status: int | None = None
        """The jail's exit status if it ended by itself before stop() (bwrap: 128 + signal)."""
        self.started_in: float | None = None
        """Seconds from launch to the socket's appearing (start-up cost)."""
        self._lease: _UidLease | None = None
        self._work: Path | None = None
        self._output: _Output | None = None
        self._stopped = False
        # A stop may come from another thread while start() runs (a match cancelled as its seat
        # starts): it asks, start() sees it at its next step, and the teardown waits for start
        # (else the jail launched after the stop ran on for good, its uid leased; an outside review).
        self._stop_asked = False
        self._starting = threading.Lock()
        self._oom_kills = 0
        self._socket_fd: int | None = None
        self._tasks_at_stop: int | None = None
        self._listing: tuple[str, str] | None = None  # (/proc/PID/net/unix, the socket's path there)
        self.group: cgroups.SeatGroup | None = None
        """The seat's control group (root workers where the host has them: :mod:`cgroups`)."""

    # -- starting ---------------------------------------------------------------------------------

    def start(self, timeout: float = 30.0) -> str:
        with self._starting:
            began = time.monotonic()
            deadline = began + timeout
            self._work = Path(tempfile.mkdtemp(prefix="arena-seat-"))
            self._work.chmod(0o711)  # the seat's uid passes through to its mount points, cannot list
            try:
                self._check_stop_asked()
                if self.sandboxed:
                    check_sandbox()
                    self._lease = _UidLease() if os.geteuid() == 0 else None
                    if self._lease is not None:
                        self._lease.record(self._work)
                    self.uid = self._lease.uid if self._lease else os.geteuid()
                    self._check_stop_asked()
                    socket = self._launch_jail(deadline)
                else:
                    socket = self._launch_unsafe()
                self._wait_for(socket, deadline, timeout)
                pinned = self._pin(socket)
                self._check_stop_asked()
            except BaseException:
                self._stop(0.0)
                raise
            self.started_in = time.monotonic() - began
            return pinned

    def _check_stop_asked(self) -> None:
        if self._stop_asked:
            raise JailFailed("crash", "the seat was stopped as it started")

    def _pin(self, socket: str) -> str:
        """The target to dial: the socket's inode, held by an ``O_PATH`` descriptor and dialled
        as ``/proc/OURPID/fd/N``. The path's last component is the bot's to change, and a path
        dialled through ``/proc/PID/root`` follows an absolute symbolic link on the *host*: a
        bot that swapped its socket for a link to a host socket would have the referee connect
        there. The descriptor is opened without following links and must be a socket the seat
        made; nothing the bot does later changes what it points to."""
        fd = os.open(socket, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
        self._socket_fd = fd
        info = os.fstat(fd)
        if not stat.S_ISSOCK(info.st_mode):
            raise JailFailed("crash", f"{SOCKET} is not a socket (a link or a file): the referee dials only a socket")
        if self.sandboxed and self._lease is not None and info.st_uid != self._lease.uid:
            raise JailFailed("crash", f"{SOCKET} belongs to uid {info.st_uid}, not the seat's")
        return f"unix:///proc/{os.getpid()}/fd/{fd}"

    def _popen(self, argv: list[str], pass_fds: tuple[int, ...] = (), **kwargs: object) -> None:
        out_r, out_w = os.pipe()
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=out_w,
                pass_fds=pass_fds,
                start_new_session=True,
                **kwargs,  # type: ignore[call-overload]
            )
        finally:
            os.close(out_w)
        self._output = _Output(out_r)

    def _launch_jail(self, deadline: float) -> str:
        assert self._work is not None and self.uid is not None
        binds: list[tuple[str, str]] = []  # (host source, jail path)
        for path in runtime_paths():
            binds.append((path, path))
        binds.append((str(SDK_ROOT / "arena"), "/opt/arena-sdk/arena"))
        binds.append((str(SDK_ROOT / "bots"), "/opt/arena-sdk/bots"))
        binds.append((str(self.bot_dir), "/bot"))
        root = os.geteuid() == 0
        sources = []
        for index, (host, _) in enumerate(binds):
            if root:  # reached through the private bind below: parents may be 0700
                point = self._work / f"m{index}"
                point.mkdir()
                sources.append(str(point))
            else:
                sources.append(host)
        info_r, info_w = os.pipe()
        limits = self.limits
        # As root the seat's IPC namespace is made (and its limits set) in step 1, by root: one
        # made here would belong to the seat's user namespace, and the seat could raise them.
        unshare = (
            ["--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
            if root
            else ["--unshare-all", "--unshare-user"]
        )
        bwrap = [
            "bwrap",
            *unshare,
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--clearenv",
            "--hostname",
            "arena-bot",
            "--ro-bind",
            "/usr",
            "/usr",
        ]
        for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
            if os.path.islink(top):
                bwrap += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                bwrap += ["--ro-bind", top, top]
        # /dev: bwrap's minimal one (null, zero, full, random, urandom, tty, pts) read-only, but
        # for a size-capped /dev/shm (multiprocessing's semaphores live there).
        bwrap += ["--proc", "/proc", "--dev", "/dev"]
        bwrap += ["--size", str(limits.shared_memory), "--perms", "0700", "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
        bwrap += ["--size", str(limits.tmpfs), "--perms", "0700", "--tmpfs", "/tmp"]
        bwrap += ["--size", str(64 * 1024), "--perms", "0700", "--tmpfs", "/run/arena"]
        for source, (_, target) in zip(sources, binds, strict=True):
            bwrap += ["--ro-bind", source, target]
        python_path = ":".join(
            ["/bot", "/opt/arena-sdk", *dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))]
        )
        env = {
            "PYTHONPATH": python_path,
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "ARENA_BOT_ADDRESS": f"unix://{SOCKET}",
            **BOT_MALLOC,
        }
        for key, value in env.items():
            bwrap += ["--setenv", key, value]
        bwrap += ["--remount-ro", "/"]  # the new root itself: no writable directory but the tmpfs
        filter_fd = None
        if (rules := seccomp.program()) is not None:
            filter_fd = os.memfd_create("arena-seccomp", 0)
            os.write(filter_fd, rules)
            os.lseek(filter_fd, 0, os.SEEK_SET)
            bwrap += ["--seccomp", str(filter_fd)]
        bwrap += ["--chdir", "/bot", "--info-fd", str(info_w), "--", interpreter(), "-S", "-m", self.entry]
        prlimit = [
            "prlimit",
            f"--as={limits.memory}",
            f"--cpu={limits.cpu_seconds}",
            f"--nofile={limits.open_files}",
            f"--fsize={limits.file_size}",
            f"--nproc={limits.processes}",
            "--core=0",
            "--",
        ]
        argv = prlimit + bwrap
        if root:
            setpriv = [
                "setpriv",
                f"--reuid={self.uid}",
                f"--regid={self.uid}",
                "--clear-groups",
                "--inh-caps=-all",
                "--ambient-caps=-all",
                "--bounding-set=-all",
                "--no-new-privs",
                "--",
            ]
            sysctls = "".join(
                f"echo '{value}' > /proc/sys/kernel/{name} || exit 125; " for name, value in ipc_sysctls(limits).items()
            )
            layout, _ = cgroups.probe()
            if layout is not None:
                # Joined by this first process before it execs anything: all the seat runs is in.
                self.group = cgroups.SeatGroup(layout, f"seat-{self.uid}", memory=limits.seat_memory)
                sysctls += "".join(f"echo $$ > {shlex.quote(procs)} || exit 125; " for procs in self.group.procs)
            script = (
                sysctls + 'n=$1; shift; while [ "$n" -gt 0 ]; do mount --bind "$1" "$2" || exit 125; '
                'shift 2; n=$((n-1)); done; exec "$@"'
            )
            pairs = [item for (host, _), source in zip(binds, sources, strict=True) for item in (host, source)]
            argv = [
                "unshare",
                "--mount",
                "--ipc",
                "--propagation",
                "private",
                "--",
                "/bin/sh",
                "-c",
                script,
                "arena-jail",
                str(len(binds)),
                *pairs,
                *setpriv,
                *argv,
            ]
        try:
            passed = (info_w,) if filter_fd is None else (info_w, filter_fd)
            self._popen(argv, pass_fds=passed, env=_host_env(), cwd="/")
        finally:
            os.close(info_w)
            if filter_fd is not None:
                os.close(filter_fd)
        try:
            child = self._read_info(info_r, deadline)
        finally:
            os.close(info_r)
        self._listing = (f"/proc/{child}/net/unix", SOCKET)
        return f"/proc/{child}/root{SOCKET}"

    def _read_info(self, info: int, deadline: float) -> int:
        data = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([info], [], [], max(0.0, min(0.2, deadline - time.monotonic())))
            if ready:
                chunk = os.read(info, 4096)
                if not chunk:
                    break
                data += chunk
                with contextlib.suppress(ValueError):
                    return int(json.loads(data)["child-pid"])
        self._check_exited()
        raise JailFailed("stall", "the sandbox did not start in time")

    def _launch_unsafe(self) -> str:
        assert self._work is not None
        socket = str(self._work / "bot.sock")
        paths = [
            str(self.bot_dir),
            str(SDK_ROOT),
            *dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib")),
        ]
        env = {**_host_env(), "PYTHONPATH": ":".join(paths), "ARENA_BOT_ADDRESS": f"unix://{socket}"}
        env.update(PYTHONUNBUFFERED="1", **BOT_MALLOC)
        self._popen([interpreter(), "-S", "-m", self.entry], env=env, cwd=str(self.bot_dir))
        assert self.process is not None
        self._listing = (f"/proc/{self.process.pid}/net/unix", socket)
        return socket

    def _wait_for(self, socket: str, deadline: float, timeout: float) -> None:
        """Until the socket exists and listens: the file appears at bind(), a moment before
        listen(); a connection in between is refused (a crash under load). Anything but a
        socket there is returned at once (:meth:`_pin` refuses it)."""
        while not self._ready(socket):
            self._check_exited()
            self._check_stop_asked()
            if time.monotonic() > deadline:
                raise JailFailed("stall", f"the bot did not listen on its socket within {timeout:.1f} s of starting")
            time.sleep(0.02)

    def _check_exited(self) -> None:
        """A jail that ended before its bot listened is a crash. Its detail says what the
        sandbox saw (the exit status, a limit hit), never what the bot printed: the detail goes
        into the match record, which other owners read; the output is its owner's (the logs)."""
        assert self.process is not None
        status = self.process.poll()
        if status is not None:
            self.status = status
            if self._output is not None:
                self._output.thread.join(2.0)
            why = self.diagnosis()
            # Ending well without listening: most often an entry module that never serves.
            hint = '; does its entry module call serve(MyBot) under if __name__ == "__main__"?' if status == 0 else ""
            raise JailFailed(
                "crash",
                f"the bot exited ({self.describe_status()}) before listening"
                + (f"; sandbox: {why}" if why else "")
                + hint
                + f"; {IN_LOGS}",
            )

    def _ready(self, socket: str) -> bool:
        try:
            mode = os.lstat(socket).st_mode
        except OSError:
            return False
        return not stat.S_ISSOCK(mode) or self._listening()

    def _listening(self) -> bool:
        """Whether a listening socket is bound to the bot's socket path in the jail's network
        namespace (``/proc/PID/net/unix``: flag ``__SO_ACCEPTCON``, 0x10000)."""
        if self._listing is None:
            return True
        table, path = self._listing
        try:
            with open(table, encoding="utf-8") as sockets:
                next(sockets, None)
                for line in sockets:
                    fields = line.split()
                    if len(fields) < 8 or not int(fields[3], 16) & 0x10000:
                        continue
                    bound = "/" + fields[7].lstrip("/")  # gRPC binds ///run/arena/bot.sock
                    # In the jail's own network namespace, any listening bot.sock is the seat's.
                    if bound == path or (self.sandboxed and os.path.basename(bound) == os.path.basename(path)):
                        return True
        except (OSError, ValueError):
            return True  # cannot tell: dial it (as before)
        return False

    # -- the end ----------------------------------------------------------------------------------

    def stop(self, settle: float = 0.0) -> None:
        """Kill the seat's process group, then anything left under its uid; release the uid.
        ``settle``: seconds to let a jail whose bot is ending (a crash) exit by itself first,
        so that its exit status is known (the diagnosis reads it). From another thread while
        :meth:`start` runs: start ends at its next step, and then the seat is torn down."""
        self._stop_asked = True
        with self._starting:
            self._stop(settle)

    def _stop(self, settle: float) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.process is not None:
            if settle > 0:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(settle)
            status = self.process.poll()
            if status is not None and self.status is None:
                self.status = status
            self._tasks_at_stop = self.tasks()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(10)
        if self._lease is not None:
            # The pid namespace dies with its init, asynchronously: give it a moment, then kill
            # whatever still runs under the seat's uid (nothing should).
            deadline = time.monotonic() + 1.0
            while processes_of(self._lease.uid) and time.monotonic() < deadline:
                time.sleep(0.02)
            leftovers = _kill_uid(self._lease.uid)
            if leftovers:
                log.warning("hosted seat uid %s: killed %d leftover processes", self._lease.uid, len(leftovers))
            if self.group is not None:
                self._oom_kills = self.group.oom_kills()
                self.group.remove()
            self._lease.release()
        if self._socket_fd is not None:
            os.close(self._socket_fd)
            self._socket_fd = None
        if self._output is not None:
            self._output.thread.join(5.0)
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)

    def on_move(self) -> None:
        """The seat is asked for a decision: its full CPU weight (:mod:`cgroups`)."""
        if self.group is not None and not self._stopped:
            self.group.on_move()

    def off_move(self) -> None:
        """The seat has answered (or is waiting for others): the least CPU weight, so that what
        it leaves running takes nothing an opponent's clock runs on."""
        if self.group is not None and not self._stopped:
            self.group.off_move()

    def memory_limit_hit(self) -> bool:
        """Whether the kernel killed a process of the seat for its memory limit (its group)."""
        if self.group is None:
            return False
        return (self._oom_kills if self._stopped else self.group.oom_kills()) > 0

    def output(self) -> str:
        """The bot's stdout and stderr so far (capped, with a marker when truncated)."""
        return self._output.text() if self._output is not None else ""

    def describe_status(self) -> str:
        status = self.status
        if status is None:
            return "still running"
        if status < 0:
            return f"killed by {signal_name(-status)}"
        if status > 128 and status - 128 in signal.valid_signals():
            return f"killed by {signal_name(status - 128)}"
        return f"exit status {status}"

    def tasks(self) -> int | None:
        """Processes and threads now running under the seat's own uid (what RLIMIT_NPROC
        counts), or None when the seat has no uid of its own (a worker that is not root)."""
        if self._lease is None:
            return None
        total = 0
        for pid in processes_of(self._lease.uid):
            with (
                contextlib.suppress(OSError, ValueError),
                open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as status,
            ):
                total += next((int(line.split()[1]) for line in status if line.startswith("Threads:")), 1)
        return total

    def process_limit_seen(self) -> bool:
        """Whether the seat's uid runs (ran, when it was stopped) as many processes and threads
        as its limit allows (observed; only when the seat has a uid of its own)."""
        observed = self._tasks_at_stop if self._stopped else self.tasks()
        return observed is not None and observed >= self.limits.processes - 2  # a task or two may have ended

    def process_limit_hit(self) -> bool:
        """Whether the seat hit RLIMIT_NPROC: observed (:meth:`process_limit_seen`), else read
        from a refused fork or thread in its output (the count may have dropped since: a refused
        thread can end a process)."""
        if self.process_limit_seen():
            return True
        text = self.output() + self._tail()
        return "Resource temporarily unavailable" in text and any(
            sign in text for sign in ("fork", "pthread_create", "can't start new thread")
        )

    def _tail(self) -> str:
        return self._output.tail.decode("utf-8", "replace") if self._output is not None else ""

    def _last_error(self) -> str:
        """The last exception line at the end of the output (``MemoryError``, ``OSError: [Errno
        27] File too large``...): what the bot's process died of, when it died of an uncaught
        exception (a line the bot printed in passing does not count)."""
        found = _ERROR_LINE.findall(self._tail())
        return found[-1] if found else ""

    def diagnosis(self) -> str:
        """Which limit the bot hit, if any: from what the sandbox observed (the exit status: a
        signal of a CPU or file-size limit; the seat's process count), else from the exception
        the process died of (a MemoryError or ENOMEM under the address-space limit, EFBIG), else
        a refused fork in its output. The bot's text is never quoted."""
        limits = self.limits
        status = self.describe_status()
        if "SIGXCPU" in status:
            return f"the bot used up its CPU limit ({limits.cpu_seconds} CPU seconds)"
        if "SIGXFSZ" in status:
            return f"the bot wrote past its file-size limit ({limits.file_size // MiB} MiB)"
        process_limit = f"the bot hit its process limit ({limits.processes} processes and threads)"
        if self.process_limit_seen():
            return process_limit
        if self.memory_limit_hit():
            return (
                f"the bot ran out of memory: the seat hit its memory limit ({limits.seat_memory // MiB} MiB "
                "resident in all, its files in /tmp and /dev/shm included)"
            )
        error = self._last_error()
        failed = self.status is None or self.status != 0
        if failed and (
            "MemoryError" in error
            or "Cannot allocate memory" in error
            or ("SIGABRT" in status and "std::bad_alloc" in self._tail())
        ):
            return f"the bot ran out of memory: it hit its memory limit ({limits.memory // MiB} MiB of address space)"
        if failed and "File too large" in error:
            return f"the bot wrote past its file-size limit ({limits.file_size // MiB} MiB)"
        if self.process_limit_hit():  # its output says so (a worker that is not root: no count)
            return process_limit
        return ""

    def explain(self) -> str:
        """What the sandbox saw, for a crash's detail: which limit the bot hit, else how its
        process ended (empty while it runs)."""
        why = self.diagnosis()
        if why:
            return why
        if self.status is not None:
            return f"the bot's process ended ({self.describe_status()})"
        return ""


def signal_name(number: int) -> str:
    """A signal's name: ``SIGKILL``; a real-time signal, which has no name of its own, as
    ``signal 40 (SIGRTMIN+6)`` (``signal.Signals(40)`` raises a ValueError)."""
    try:
        return signal.Signals(number).name
    except ValueError:
        if signal.SIGRTMIN < number < signal.SIGRTMAX:
            return f"signal {number} (SIGRTMIN+{number - signal.SIGRTMIN})"
        return f"signal {number}"


_ERROR_LINE = re.compile(r"^((?:[A-Za-z_][\w.]*)?(?:Error|Exception)\b.*)$", re.M)
"""A traceback's last line: ``MemoryError``, ``OSError: [Errno 12] Cannot allocate memory``."""
