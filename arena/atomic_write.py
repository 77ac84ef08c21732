"""Writing a file as a whole: a copy beside it, renamed over it, so a full disk or a crash
leaves the earlier file as it was, never torn.

A rename replaces what the path is, so it is used only where that is the same as writing into
the file. Everything else is written in place: a device, a pipe or the file stdout goes to
(``--html /dev/null``, ``--record /dev/stdout > out``: a copy took the device's place, or what
was printed later went to the replaced file), a file with other hard links (they would keep the
old text), a file of another user's (only root could give the copy its owner), and a file
whose directory takes no new file or no rename over it (not writable, read-only, sticky like
/tmp: the file itself was writable, and the write worked before copies were made).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import sys
from pathlib import Path

_NO_COPY_HERE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
"""Errors making the copy that say the directory takes no new file (not that the disk is full)."""


def with_path(exc: OSError, path: str | os.PathLike[str]) -> OSError:
    """The error, naming ``path`` when it names no file (a failed write or flush names none)."""
    if exc.filename is not None or exc.errno is None:
        return exc
    return OSError(exc.errno, exc.strerror, str(path))


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is written to as a stream, never replaced: anything but a regular file
    (a device, a pipe), or the file this process's stdout or stderr goes to."""
    try:
        st = os.stat(path)
    except OSError:
        return False  # not there (yet): a new file
    return not stat.S_ISREG(st.st_mode) or _std_fd(st) is not None


def _std_fd(st: os.stat_result) -> int | None:
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            if os.path.samestat(st, os.fstat(fd)):
                return fd
    return None


def write_to_std_stream(path: str | os.PathLike[str], data: str | bytes) -> bool:
    """If ``path`` is the file stdout or stderr goes to, write ``data`` through that descriptor
    (at its place in the file: a second open of ``/dev/stdout > out`` wrote where the later
    output then wrote over it) and say so; False otherwise, nothing written."""
    try:
        fd = _std_fd(os.stat(path))
    except OSError:
        return False
    if fd is None:
        return False
    body = data if isinstance(data, bytes) else data.encode("utf-8")
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # what was printed first comes first
            stream.flush()
    view = memoryview(body)
    while view:
        view = view[os.write(fd, view) :]
    return True


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) as the whole of ``path``; see the module's docstring for
    where it goes in place. A symlink stays a link: the file it names is replaced."""
    body = data if isinstance(data, bytes) else data.encode("utf-8")
    if write_to_std_stream(path, body):
        return
    if is_stream(path):
        _write_in_place(path, body, mode="ab")  # a device or a pipe: written as it is
        return
    target = Path(os.path.realpath(path))
    try:
        old: os.stat_result | None = target.stat()
    except FileNotFoundError:
        old = None
    if old is not None and (old.st_nlink > 1 or _not_ours(old, path)):
        _write_in_place(path, body, mode="wb")
        return
    # A short name of its own: `NAME.tmp` was someone's file (deleted), two writers shared it,
    # and a name near the system's limit had no room for the suffix.
    copy = target.with_name(f".{target.name[:32]}.{secrets.token_hex(4)}.tmp")
    # Made with the file's own permissions (at most): a private file's new text was readable by
    # others in the copy until its mode was set.
    mode = 0o666 if old is None else stat.S_IMODE(old.st_mode) & 0o666
    try:
        fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    except OSError as exc:
        if old is not None and exc.errno in _NO_COPY_HERE:
            _write_in_place(path, body, mode="wb")
            return
        raise with_path(exc, path) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            if old is not None:
                _keep_owner_and_mode(handle.fileno(), old)
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.replace(copy, target)
        except PermissionError:
            # A sticky directory (/tmp) lets only the file's owner replace it, though others
            # may write it: written in place (the record of a played match was lost).
            copy.unlink(missing_ok=True)
            _write_in_place(path, body, mode="wb")
    except OSError as exc:
        copy.unlink(missing_ok=True)  # a full disk: give back what the half-written copy took
        raise with_path(exc, path) from None


def _not_ours(old: os.stat_result, path: str | os.PathLike[str]) -> bool:
    """Whether a copy could not keep the file's owner (only root gives a file to another
    user) and the file may be written: it is then written in place, and stays its owner's. One
    this user may not write is replaced, as before (a root-owned page in the user's directory)."""
    return old.st_uid != os.geteuid() and os.geteuid() != 0 and os.access(path, os.W_OK)


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """The replaced file's permissions (a record made private with chmod 600 stayed private
    when written in place), and its owner where this process may give it (root)."""
    with contextlib.suppress(PermissionError):
        os.fchown(fd, old.st_uid, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode))


def _write_in_place(path: str | os.PathLike[str], body: bytes, *, mode: str) -> None:
    try:
        with open(path, mode) as handle:
            handle.write(body)
    except OSError as exc:
        raise with_path(exc, path) from None
