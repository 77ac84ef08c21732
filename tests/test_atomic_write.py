"""Writing a file whole (``arena.atomic_write``): a renamed copy where that is the same as
writing into the file, in place where a rename would change what the path is (an outside
probe, review13: a device became a regular file, a private record became world-readable,
someone's `NAME.tmp` was deleted, an unwritable directory lost a played match's record)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import threading

import pytest

from arena.atomic_write import write_atomic
from tests.cli_run import ROOT


def test_a_regular_file_is_replaced_by_a_whole_copy_keeping_its_mode(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("old")
    path.chmod(0o600)  # made private by its owner
    before = path.stat()
    write_atomic(path, "new")
    after = path.stat()
    assert path.read_text() == "new"
    assert after.st_ino != before.st_ino  # a copy renamed over it, not written into
    assert stat.S_IMODE(after.st_mode) == 0o600 and (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert os.listdir(tmp_path) == ["r.json"]  # no copy left


def test_a_new_file_gets_the_mode_the_umask_gives(tmp_path):
    umask = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.json", b"x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640


def test_a_file_with_other_hard_links_is_written_in_place(tmp_path):
    path, link = tmp_path / "r.json", tmp_path / "link.json"
    path.write_text("old")
    os.link(path, link)
    write_atomic(path, "new")
    assert link.read_text() == "new" and path.stat().st_nlink == 2


def test_a_file_named_like_the_old_copy_is_left_alone(tmp_path):
    (tmp_path / "r.json.tmp").write_text("my draft")
    write_atomic(tmp_path / "r.json", "page")
    assert (tmp_path / "r.json.tmp").read_text() == "my draft"
    assert sorted(os.listdir(tmp_path)) == ["r.json", "r.json.tmp"]


def test_a_name_at_the_systems_limit_is_written(tmp_path):
    path = tmp_path / ("r" * 250 + ".json")  # 255 bytes: no room for a ".tmp" after it
    path.write_text("old")
    write_atomic(path, "new")
    assert path.read_text() == "new" and os.listdir(tmp_path) == [path.name]


def test_two_writers_of_one_path_at_once_both_succeed(tmp_path):
    path = tmp_path / "board.json"
    failures: list[BaseException] = []

    def write(text: str) -> None:
        for _ in range(100):
            try:
                write_atomic(path, text)
            except OSError as exc:  # the shared NAME.tmp renamed away by the other writer
                failures.append(exc)

    writers = [threading.Thread(target=write, args=(text * 1000,)) for text in "ab"]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    assert failures == []
    assert path.read_text() in ("a" * 1000, "b" * 1000) and os.listdir(tmp_path) == ["board.json"]


def test_a_pipe_stays_a_pipe_and_gets_the_text(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, "page")
    reader.join(timeout=30)
    assert got == [b"page"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_the_file_stdout_goes_to_is_appended_to_not_replaced(tmp_path):
    # `--record /dev/stdout > out`: the file was replaced, and what was printed after it went
    # to the replaced one (the match's account lost).
    out = tmp_path / "out.txt"
    script = (
        "from arena.atomic_write import write_atomic\n"
        "print('before', flush=True)\n"
        "write_atomic('/dev/stdout', 'record\\n')\n"
        "print('after')\n"
    )
    with out.open("w") as handle:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", script], stdout=handle, env=env)
    assert done.returncode == 0
    assert out.read_text() == "before\nrecord\nafter\n"


def test_a_directory_that_takes_no_new_file_gets_the_file_written_in_place(tmp_path):
    # The file was opened (writable) before the match; its directory was not: the match was
    # played and its record lost at the rename.
    directory = tmp_path / "readonly"
    directory.mkdir()
    path = directory / "r.json"
    path.write_text("old")
    directory.chmod(0o555)
    script = f"from arena.atomic_write import write_atomic\nwrite_atomic({str(path)!r}, 'new')\n"
    command = [sys.executable, "-c", script]
    if os.geteuid() == 0:  # root writes any directory: drop the capabilities that let it
        if shutil.which("setpriv") is None:
            pytest.fail("setpriv (util-linux) is needed to run without root's DAC override")
        caps = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", *command]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr
        assert path.read_text() == "new" and os.listdir(directory) == ["r.json"]
    finally:
        directory.chmod(0o755)


def test_a_private_files_copy_is_made_private(tmp_path, monkeypatch):
    # The copy was made 0666 & ~umask and its mode set after its text was written: anyone who
    # opened it meanwhile kept reading a 0600 file's new text (an outside review, review14).
    import arena.atomic_write as atomic_write

    path = tmp_path / "r.json"
    path.write_text("old")
    path.chmod(0o600)
    made: list[int] = []
    real_open = os.open

    def spying(file, flags, mode=0o777, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(file).endswith(".tmp"):
            made.append(mode)
        return real_open(file, flags, mode, *args, **kwargs)

    monkeypatch.setattr(atomic_write.os, "open", spying)
    write_atomic(path, "secret")
    assert made == [0o600] and path.read_text() == "secret"


def test_a_file_that_cannot_be_replaced_or_kept_its_owners_is_written_in_place(tmp_path, monkeypatch):
    # A sticky directory (/tmp) refuses the rename over another user's file it lets you write
    # (the record of a played match was lost), and only root can give the copy the file's owner.
    import arena.atomic_write as atomic_write

    path = tmp_path / "r.json"
    path.write_text("old")
    inode = path.stat().st_ino

    def sticky(src, dst):  # type: ignore[no-untyped-def]
        raise PermissionError(1, "Operation not permitted", str(src), None, str(dst))

    with monkeypatch.context() as patched:
        patched.setattr(atomic_write.os, "replace", sticky)
        write_atomic(path, "new")
    assert path.read_text() == "new" and path.stat().st_ino == inode and os.listdir(tmp_path) == ["r.json"]
    with monkeypatch.context() as patched:
        patched.setattr(atomic_write.os, "geteuid", lambda: path.stat().st_uid + 1)  # not root, not its owner
        write_atomic(path, "newer")
        assert path.read_text() == "newer" and path.stat().st_ino == inode
        # One it may not write (a root-owned page in the user's directory) is replaced, as before.
        patched.setattr(atomic_write.os, "access", lambda *args: False)
        write_atomic(path, "newest")
    assert path.read_text() == "newest" and path.stat().st_ino != inode
