"""A hosted seat's seccomp filter: the system calls a bot has no use for, and those that let
seats signal to one another or keep bits between matches, refused with EPERM.

An outside probe passed messages between two jails through byte-range locks on a file every jail
reads (the SDK's), and kept bits from one match to the next in the host's page cache (dropping a
file's pages with ``posix_fadvise``, testing them with ``preadv2(RWF_NOWAIT)``). The jail leaves
no host directory writable, so these were the channels. Refused here: file locks and leases
(``fcntl`` lock commands, ``flock``), ``fadvise64``, ``mincore``, ``cachestat``, ``preadv2``
and ``pwritev2`` (CPython uses them only when asked for flags), ``io_uring`` (reads that say
whether a page was cached), inotify and fanotify (watching the files every jail shares), and the
kernel's administration calls no bot needs (``ptrace``, ``bpf``, ``perf_event_open``, keyrings,
``userfaultfd``, mounting, namespaces, modules, ``process_vm_*``, file handles).

What is left: timing (whether a read of a shared file was fast) is a slow channel that no
filter closes; a tournament with a hosted bot deals every rotation afresh for that reason.

The program is classic BPF, as bubblewrap's ``--seccomp FD`` takes it (what libseccomp's
``seccomp_export_bpf`` writes): x86-64 only (another architecture runs seats without it, and
:func:`program` says so). x32 system calls on x86-64 are refused as a whole.
"""

from __future__ import annotations

import errno
import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# Classic BPF, as <linux/filter.h> and <linux/seccomp.h> define it.
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
_NR, _ARCH, _ARG1_LOW = 0, 4, 24  # offsets in struct seccomp_data (args[1]'s low 32 bits)

REFUSED_X86_64 = {
    "mincore": 27,
    "flock": 73,
    "ptrace": 101,
    "syslog": 103,
    "pivot_root": 155,
    "acct": 163,
    "mount": 165,
    "umount2": 166,
    "init_module": 175,
    "delete_module": 176,
    "fadvise64": 221,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "inotify_init": 253,
    "inotify_add_watch": 254,
    "unshare": 272,
    "inotify_init1": 294,
    "perf_event_open": 298,
    "fanotify_init": 300,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "finit_module": 313,
    "kexec_file_load": 320,
    "bpf": 321,
    "userfaultfd": 323,
    "preadv2": 327,
    "pwritev2": 328,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "cachestat": 451,
}
"""System calls refused outright (x86-64 numbers)."""
FCNTL_X86_64 = 72
FCNTL_REFUSED = {
    "F_GETLK": 5,
    "F_SETLK": 6,
    "F_SETLKW": 7,
    "F_OFD_GETLK": 36,
    "F_OFD_SETLK": 37,
    "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024,
    "F_GETLEASE": 1025,
    "F_NOTIFY": 1026,
}
"""``fcntl`` commands refused: locks, leases, directory notifications (the rest, such as
F_GETFL and F_SETFD, which Python and gRPC use, are allowed)."""


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program() -> bytes | None:
    """The filter as bubblewrap reads it from ``--seccomp FD`` (None on a machine that is not
    x86-64: the seat then runs without one)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    refuse = _op(_RET_K, RET_ERRNO | errno.EPERM)
    allow = _op(_RET_K, RET_ALLOW)
    head = [
        _op(_LD_W_ABS, _ARCH),
        _op(_JEQ_K, AUDIT_ARCH_X86_64, jt=1),
        _op(_RET_K, RET_KILL_PROCESS),  # another ABI (i386) entered from this process: never a bot's
        _op(_LD_W_ABS, _NR),
    ]
    # x32 calls, then each refused call: a match jumps to the refusal after the fcntl test and
    # the allow that follow the checks (a jump counts from the next instruction).
    checks = [(_JGE_K, X32_SYSCALL_BIT)] + [(_JEQ_K, nr) for nr in sorted(REFUSED_X86_64.values())]
    block = [_op(code, k, jt=len(checks) - i + 1) for i, (code, k) in enumerate(checks)]
    commands = sorted(FCNTL_REFUSED.values())
    tail = [
        _op(_JEQ_K, FCNTL_X86_64, jt=2),  # fcntl: on to its command (past the allow and the refusal)
        allow,
        refuse,
        _op(_LD_W_ABS, _ARG1_LOW),
        *[_op(_JEQ_K, cmd, jt=len(commands) - i) for i, cmd in enumerate(commands)],
        allow,
        refuse,
    ]
    return b"".join(head + block + tail)
