"""Hosted bot archives: read one safely, check it, pack a directory, name a version by content.

An upload is a ``.tar.gz`` or a ``.zip`` of at most :data:`MAX_PACKED` bytes, unpacking to at
most :data:`MAX_UNPACKED` bytes in at most :data:`MAX_FILES` files and directories. Only regular files and
directories are accepted: a symbolic or hard link, a device or a fifo is refused, and so is a
path that is absolute or climbs out (``..``), an encrypted member, a file whose path is also
another file's directory (``x`` and ``x/y.py``), and a path more than :data:`MAX_DEPTH`
directories deep, longer than :data:`MAX_PATH` bytes or with a name longer than :data:`MAX_NAME`
bytes. Nothing is written while reading: the files are returned in memory (bounded by the caps),
so a refused upload leaves nothing behind. Every refusal is an :class:`ArchiveError` naming the
problem (the service's INVALID_ARGUMENT).

A version's id is the SHA-256 of its files (sorted paths, sizes and contents), so the same code
packed twice, or as a tar and as a zip, is the same version.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import marshal
import os
import posixpath
import signal
import struct
import subprocess
import sys
import tarfile
import zipfile
import zlib
from pathlib import Path

from referee.hosted import manifest

MiB = 1024 * 1024
MAX_PACKED = 20 * MiB
MAX_UNPACKED = 100 * MiB
MAX_FILES = 2000
"""Members (files and directories) an archive may hold: reading stops at the first past it (a
1 MB .tar.gz of 200,000 directories took 5-10 CPU s to read, in the service and on each worker)."""
TAR_OVERHEAD = MAX_FILES * 4096 + MiB
"""Bytes of tar headers, padding and directory entries allowed beyond MAX_UNPACKED of content:
a .tar.gz inflating to more than MAX_UNPACKED + TAR_OVERHEAD is refused as too big unpacked."""
MAX_DEPTH = 32
"""Directories a member's path may go down: a path 2,000 deep was an INTERNAL error, and its
trial's directory outlived the upload (shutil.rmtree recursing past Python's limit)."""
MAX_NAME = 255
"""Bytes (UTF-8) of a file or directory name in a path: the file systems' own limit (a longer one
was an INTERNAL error, "File name too long", when the upload was unpacked)."""
MAX_PATH = 1024
"""Bytes (UTF-8) of a member's whole path."""
SKIPPED = ("__pycache__", ".git", ".mypy_cache", ".pytest_cache", ".venv", "node_modules")
"""Directories ``pack_directory`` leaves out."""


class ArchiveError(ValueError):
    """The upload is refused (the message says exactly why); nothing was stored."""


def _checked_path(name: str, limits: bool = True) -> str | None:
    """The member's normalised relative path, None for the archive's root, or an error.
    ``limits``: also the bounds on depth and lengths (uploads; see :func:`read_archive`)."""
    if "\\" in name or "\x00" in name:
        raise ArchiveError(f"archive member {name!r}: backslashes and NUL are not allowed in paths")
    try:
        name.encode("utf-8")  # tarfile keeps undecodable bytes as surrogates
    except UnicodeEncodeError:
        raise ArchiveError(f"archive member {name!r}: a path must be UTF-8") from None
    if name.startswith("/"):
        raise ArchiveError(f"archive member {name!r}: absolute paths are not allowed")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"archive member {name!r}: a path may not climb out of the archive (..)")
    if not limits:
        return "/".join(parts) or None
    if len(parts) - 1 > MAX_DEPTH:
        raise ArchiveError(
            f"archive member {_shown(name)}: a path may be at most {MAX_DEPTH} directories deep "
            f"({len(parts) - 1} given)"
        )
    longest = max((len(part.encode("utf-8")) for part in parts), default=0)
    if longest > MAX_NAME:
        raise ArchiveError(
            f"archive member {_shown(name)}: a file or directory name may be at most {MAX_NAME} bytes ({longest} given)"
        )
    path = "/".join(parts)
    if len(path.encode("utf-8")) > MAX_PATH:
        raise ArchiveError(
            f"archive member {_shown(name)}: a path may be at most {MAX_PATH} bytes ({len(path.encode('utf-8'))} given)"
        )
    return path or None


def _shown(name: str) -> str:
    """A member's name in a refusal: its first 60 characters when it is longer (a path refused for
    its length would fill the message)."""
    return repr(name) if len(name) <= 60 else f"{name[:60]!r}... ({len(name)} characters)"


def read_archive(data: bytes, *, stored: bool = False, macos: bool | None = None) -> dict[str, bytes]:
    """The archive's files (path -> content), checked against the caps and the rules above.
    ``stored``: a version taken already (a worker unpacking it), whose paths are not held to
    the bounds on depth and lengths, nor its directories to the cap on members, added after
    versions were stored: a version 40 directories deep, or of 1,992 files in 40 directories,
    taken before, still plays. ``macos``: keep what macOS adds (see :func:`_mac_metadata`);
    by default an upload drops it and a stored version keeps it (its hash may count it)."""
    if len(data) > MAX_PACKED:
        raise ArchiveError(f"archive is {len(data)} bytes packed; at most {MAX_PACKED // MiB} MiB")
    keep_macos = stored if macos is None else macos
    if data[:2] == b"\x1f\x8b":
        files = _read_tar(data, not stored, keep_macos)
    elif data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        files = _read_zip(data, not stored, keep_macos)
    else:
        raise ArchiveError("not a .tar.gz or .zip archive")
    if not files:
        raise ArchiveError("the archive holds no files")
    _check_no_file_is_a_directory(files)
    return _strip_common_top(files)


def _check_no_file_is_a_directory(files: dict[str, bytes]) -> None:
    for path in sorted(files):
        parts = path.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if parent in files:
                raise ArchiveError(
                    f"archive member {parent!r} is a file, and also the directory of {path!r}: "
                    "a path is one or the other"
                )


def _add(files: dict[str, bytes], path: str, content: bytes, total: int) -> int:
    if path in files:
        raise ArchiveError(f"archive member {path!r} appears twice")
    if len(files) >= MAX_FILES:
        raise ArchiveError(f"more than {MAX_FILES} files in the archive")
    total += len(content)
    if total > MAX_UNPACKED:
        raise ArchiveError(f"archive unpacks to more than {MAX_UNPACKED // MiB} MiB")
    files[path] = content
    return total


def _mac_metadata(path: str | None) -> bool:
    """What macOS adds to an archive it makes (``__MACOSX/``, ``._NAME`` files of extended
    attributes, ``.DS_Store``): never a bot's, left out of an upload (they hid its manifest and
    failed its compile check). Versions stored with them keep them (their hash counts them)."""
    if path is None:
        return False
    name = path.rpartition("/")[2]
    return path.split("/", 1)[0] == "__MACOSX" or name.startswith("._") or name == ".DS_Store"


def _count(members: int, limits: bool) -> None:
    """An upload's members past the cap, refused as they come (its directories count too; a
    stored version's files alone, as when it was taken: :func:`_add`)."""
    if limits and members > MAX_FILES:
        raise ArchiveError(f"more than {MAX_FILES} files and directories in the archive")


def _read_tar(data: bytes, limits: bool, keep_macos: bool) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    try:
        # The gzip layer is capped too: a small bomb that inflates without bound stops at the cap.
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as inflating:
            raw = inflating.read(MAX_UNPACKED + TAR_OVERHEAD + 1)
        if len(raw) > MAX_UNPACKED + TAR_OVERHEAD:  # before parsing: it would end mid-member
            raise ArchiveError(f"archive unpacks to more than {MAX_UNPACKED // MiB} MiB")
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            for count, member in enumerate(tar, 1):  # each member parsed as it comes: stopped at the cap
                _count(count, limits)
                path = _checked_path(member.name, limits)
                if not keep_macos and _mac_metadata(path):
                    continue
                if member.issym() or member.islnk():
                    raise ArchiveError(f"archive member {member.name!r} is a link; only files and directories")
                if member.isdir():
                    continue
                if not member.isfile():
                    raise ArchiveError(f"archive member {member.name!r} is not a regular file or a directory")
                if path is None:
                    raise ArchiveError(f"archive member {member.name!r}: a file needs a name")
                if member.size > MAX_UNPACKED:
                    raise ArchiveError(f"archive unpacks to more than {MAX_UNPACKED // MiB} MiB")
                extracted = tar.extractfile(member)
                assert extracted is not None
                total = _add(files, path, extracted.read(), total)
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:  # zlib: a damaged deflate stream
        raise ArchiveError(f"not a readable .tar.gz archive: {exc}") from None
    return files


def _zip_members(data: bytes) -> int | None:
    """The members of a zip's central directory, counted header by header up to one past the
    cap (None if there is no end record: zipfile refuses it too): zipfile reads the whole
    directory as it opens one, before any member is counted (220,000 entries took 1.3 CPU s and
    110 MiB to refuse), and it ignores the end record's count, which a 2-byte edit changes (an
    outside review). The directory is found where zipfile finds it, by its own reading of the
    end records (ZIP64's too, past 65,535 members; a search of our own missed them)."""
    try:
        end = zipfile._EndRecData(io.BytesIO(data))  # type: ignore[attr-defined]
    except (OSError, ValueError, struct.error):
        return None
    if not end:
        return None
    at = end[zipfile._ECD_LOCATION] - end[zipfile._ECD_SIZE]  # type: ignore[attr-defined]
    if end[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64:  # type: ignore[attr-defined]
        at -= zipfile.sizeEndCentDir64 + zipfile.sizeEndCentDir64Locator  # type: ignore[attr-defined]
    members = 0
    while members <= MAX_FILES and at >= 0 and data[at : at + 4] == b"PK\x01\x02":
        members += 1
        lengths = data[at + 28 : at + 34]
        at += 46 + sum(int.from_bytes(lengths[i : i + 2], "little") for i in (0, 2, 4))
    return members


def _read_zip(data: bytes, limits: bool, keep_macos: bool) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    if limits:
        _count(_zip_members(data) or 0, limits)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for count, info in enumerate(archive.infolist(), 1):
                _count(count, limits)
                path = _checked_path(info.filename, limits)
                if not keep_macos and _mac_metadata(path):
                    continue
                kind = (info.external_attr >> 16) & 0o170000
                if kind == 0o120000:
                    raise ArchiveError(f"archive member {info.filename!r} is a link; only files and directories")
                if kind not in (0, 0o100000, 0o040000):
                    raise ArchiveError(f"archive member {info.filename!r} is not a regular file or a directory")
                if info.filename.endswith("/"):  # is_dir(), which indexes an empty name
                    continue
                if path is None:
                    raise ArchiveError(f"archive member {info.filename!r}: a file needs a name")
                if info.flag_bits & 0x1:
                    raise ArchiveError(f"archive member {info.filename!r} is encrypted: upload it without a password")
                if info.file_size > MAX_UNPACKED - total:
                    raise ArchiveError(f"archive unpacks to more than {MAX_UNPACKED // MiB} MiB")
                with archive.open(info) as member:
                    content = member.read(MAX_UNPACKED - total + 1)
                total = _add(files, path, content, total)
    except ArchiveError:  # a member refused (a ValueError too): said as it is, not as unreadable
        raise
    except UnicodeDecodeError as exc:  # raised opening it: the name is all there is to say
        name = exc.object.decode("utf-8", "replace") if isinstance(exc.object, bytes) else "?"
        raise ArchiveError(f"archive member {_shown(name)}: its name is marked UTF-8 but is not UTF-8") from None
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError, ValueError, zlib.error) as exc:
        # ValueError: UnicodeDecodeError of a name flagged UTF-8 that is not, among others.
        raise ArchiveError(f"not a readable .zip archive: {exc}") from None
    return files


def _strip_common_top(files: dict[str, bytes]) -> dict[str, bytes]:
    """An archive of a directory (``mybot/arena-bot.toml``...) is the same as one of its contents."""
    if manifest.MANIFEST in files:
        return files
    tops = {path.split("/", 1)[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):
        top = tops.pop() + "/"
        return {path[len(top) :]: content for path, content in files.items()}
    return files


def content_hash(files: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for path in sorted(files):
        content = files[path]
        digest.update(f"{path}\x00{len(content)}\x00".encode())
        digest.update(content)
    return digest.hexdigest()


def check_files(files: dict[str, bytes]) -> manifest.Manifest:
    """The manifest, after the checks that need no sandbox: a valid manifest, the entry module
    present, every Python file compiling."""
    if manifest.MANIFEST not in files:
        deeper = sorted((p for p in files if p.endswith(f"/{manifest.MANIFEST}")), key=len)
        there = f" (there is {deeper[0]}: pack the bot's own directory)" if deeper else ""
        raise ArchiveError(f"no {manifest.MANIFEST} at the top of the archive{there}")
    try:
        found = manifest.parse(files[manifest.MANIFEST].decode("utf-8-sig", "replace"))  # Notepad's BOM
    except manifest.ManifestError as exc:
        raise ArchiveError(str(exc)) from None
    module = found.entry.replace(".", "/")
    if f"{module}.py" not in files and f"{module}/__main__.py" not in files:
        raise ArchiveError(f"{manifest.MANIFEST}: entry {found.entry!r}: no {module}.py (or {module}/__main__.py)")
    compile_check({path: content for path, content in files.items() if path.endswith(".py")})
    return found


COMPILE_CPU_SECONDS = 20
COMPILE_MEMORY = 2 * 1024 * MiB
_COMPILER = """
import json, marshal, resource, sys
resource.setrlimit(resource.RLIMIT_CPU, ({cpu}, {cpu}))
resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
sources = marshal.loads(sys.stdin.buffer.read())
for path in sorted(sources):
    try:
        compile(sources[path], path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        found = {{"line": exc.lineno, "msg": exc.msg}}
    except ValueError as exc:  # NUL bytes
        found = {{"error": str(exc)}}
    except (RecursionError, MemoryError) as exc:  # an expression nested too deeply, or too big
        found = {{"limit": type(exc).__name__}}
    else:
        continue
    print(json.dumps({{"path": path, **found}}))
    sys.exit(3)
"""


def compile_check(sources: dict[str, bytes]) -> None:
    """Every Python file compiles, checked in a child process with its own CPU and memory caps:
    ``compile()`` holds the interpreter lock throughout, and 8 KiB packed of ``x=1`` lines
    (8 MiB of source) took 14 s and 3.4 GiB in the service itself, every RPC waiting."""
    if not sources:
        return
    program = _COMPILER.format(cpu=COMPILE_CPU_SECONDS, memory=COMPILE_MEMORY)
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", program],
            input=marshal.dumps(sources),
            capture_output=True,
            timeout=COMPILE_CPU_SECONDS * 3,
            check=False,
        )
    except subprocess.TimeoutExpired:
        waited = COMPILE_CPU_SECONDS * 3
        raise ArchiveError(f"compile check: the Python files did not compile within {waited} s") from None
    if done.returncode == 0:
        return
    if done.returncode == 3:
        found = json.loads(done.stdout)
        path = found["path"]
        if found.get("line") is not None:  # None for a NUL byte in Python 3.11
            raise ArchiveError(f"compile check: {path}, line {found['line']}: {found['msg']}")
        if "error" in found or "msg" in found:
            raise ArchiveError(f"compile check: {path}: {found.get('error') or found['msg']}")
        if found["limit"] == "RecursionError":
            raise ArchiveError(f"compile check: {path}: too deeply nested to compile (RecursionError)")
        raise ArchiveError(
            f"compile check: {path}: too deeply nested or too big to compile within "
            f"{COMPILE_MEMORY // (1024 * MiB)} GiB of memory (MemoryError)"
        )
    if done.returncode == -signal.SIGXCPU:
        raise ArchiveError(f"compile check: the Python files need more than {COMPILE_CPU_SECONDS} s of CPU to compile")
    # Memory ran out where no exception could be raised (the child aborted), or it was killed.
    raise ArchiveError(
        f"compile check: compiling the Python files failed (exit status {done.returncode}): are they too big "
        f"(the check allows {COMPILE_MEMORY // (1024 * MiB)} GiB of memory)?"
    )


def write_files(files: dict[str, bytes], directory: Path) -> None:
    """Write the files under ``directory`` (world-readable: a seat's uid reads them)."""
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o755)
    for path, content in files.items():
        target = directory / path
        for parent in reversed(target.relative_to(directory).parents[:-1]):
            (directory / parent).mkdir(mode=0o755, exist_ok=True)
        target.write_bytes(content)
        target.chmod(0o644)


def pack_directory(directory: Path) -> bytes:
    """A reproducible ``.tar.gz`` of a bot's directory (no links, to files or directories: they
    are refused; caches and VCS left out)."""
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w:", format=tarfile.PAX_FORMAT) as tar,
    ):
        for root, dirs, names in os.walk(directory):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
            for name in dirs:  # os.walk does not enter a linked directory: refuse it, do not drop it
                path = Path(root) / name
                if path.is_symlink():
                    relative = posixpath.join(*path.relative_to(directory).parts)
                    raise ArchiveError(
                        f"{relative}: a link to a directory; only regular files and directories can be "
                        "submitted (links are refused)"
                    )
            for name in sorted(names):
                path = Path(root) / name
                relative = posixpath.join(*path.relative_to(directory).parts)
                if path.is_symlink():
                    raise ArchiveError(f"{relative}: only regular files can be submitted (links are refused)")
                if not path.is_file():  # a FIFO, a socket, a device: said so, not taken for a link
                    raise ArchiveError(f"{relative}: not a regular file; only regular files can be submitted")
                content = path.read_bytes()
                info = tarfile.TarInfo(relative)
                info.size = len(content)
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()
