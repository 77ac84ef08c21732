"""``arena worker``'s metrics directory is its own: the default one is a fixed name in a shared
tmp, where another user could put a symlink first (an outside probe: the worker deleted every
``*.db`` in the directory it pointed to, then served its metrics from there) or a directory of
their own (fake values on the node's ``/metrics``)."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

import pytest

from arena.cli import UsageError, worker_cmd
from arena.cli.common import MULTIPROC_ENV
from tests.cli_run import arena
from tests.services import free_port, redis_server

PORT = 9411


@pytest.fixture
def tmp(monkeypatch, tmp_path):
    """A tmp of the test's own, and a process that has not imported prometheus_client yet (the
    command refuses to run after it: the library reads the directory once, at import)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.delitem(sys.modules, "prometheus_client", raising=False)
    # Set, then removed: monkeypatch notes the variable's absence only through a set (a delenv of
    # an unset variable notes nothing), so what the command sets is undone after the test.
    monkeypatch.setenv(MULTIPROC_ENV, "unset after the test")
    monkeypatch.delenv(MULTIPROC_ENV)
    yield tmp_path / "tmp"
    while worker_cmd._HELD_LOCKS:
        os.close(worker_cmd._HELD_LOCKS.pop())


@pytest.fixture
def victim(tmp_path):
    """A directory of precious files, some named as a metrics directory's."""
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in ("important.db", "counter_1.db", "notes.txt"):
        (victim / name).write_text(name, encoding="utf-8")
    return victim


def files(directory: Path) -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(directory.iterdir())}


def test_a_symlink_at_the_default_path_is_refused_and_its_target_left_as_it_was(tmp, victim):
    (tmp / f"arena-metrics-{PORT}").symlink_to(victim)
    with pytest.raises(UsageError) as refused:
        worker_cmd.prepare_multiprocess_dir(PORT)
    assert str(refused.value) == (
        f"metrics directory {tmp}/arena-metrics-{PORT} is a symbolic link: remove it (another user may have put it "
        "there), or set PROMETHEUS_MULTIPROC_DIR to a directory of your own"
    )
    assert files(victim) == {"counter_1.db": "counter_1.db", "important.db": "important.db", "notes.txt": "notes.txt"}
    assert MULTIPROC_ENV not in os.environ


def test_our_own_default_directory_others_can_write_is_made_private(tmp, victim, monkeypatch):
    """One an earlier worker made under umask 002 (0775) is this user's: made 0700 and used (a
    review: it was refused as if another user had put it there). A chosen one is refused."""
    victim.chmod(0o775)
    path = tmp / f"arena-metrics-{PORT}"
    victim.rename(path)
    assert worker_cmd.prepare_multiprocess_dir(PORT) == path
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    assert sorted(files(path)) == ["arena-worker.lock", "notes.txt"]  # the old values went
    while worker_cmd._HELD_LOCKS:
        os.close(worker_cmd._HELD_LOCKS.pop())
    path.chmod(0o777)
    monkeypatch.setenv(MULTIPROC_ENV, str(path))
    with pytest.raises(UsageError) as refused:
        worker_cmd.prepare_multiprocess_dir(PORT)
    assert str(refused.value) == (
        f"metrics directory {path} (PROMETHEUS_MULTIPROC_DIR) is writable by other users (mode 777): set "
        "PROMETHEUS_MULTIPROC_DIR to a directory of this user's that no one else can write (or to a path not "
        "there yet: it is made)"
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o777


def test_a_directory_of_another_user_is_refused(tmp, victim):
    victim.chmod(0o755)
    os.chown(victim, 65534, 65534)  # nobody's (the tests run as root)
    victim.rename(tmp / f"arena-metrics-{PORT}")
    with pytest.raises(UsageError, match=r"arena-metrics-9411 belongs to another user \(uid 65534\): remove it"):
        worker_cmd.prepare_multiprocess_dir(PORT)
    assert sorted(files(tmp / f"arena-metrics-{PORT}")) == ["counter_1.db", "important.db", "notes.txt"]


def test_a_chosen_directory_is_checked_too(tmp, victim, monkeypatch):
    chosen = tmp / "chosen"
    chosen.symlink_to(victim)
    monkeypatch.setenv(MULTIPROC_ENV, str(chosen))
    with pytest.raises(UsageError) as refused:
        worker_cmd.prepare_multiprocess_dir(PORT)
    assert str(refused.value) == (
        f"metrics directory {chosen} (PROMETHEUS_MULTIPROC_DIR) is a symbolic link: set PROMETHEUS_MULTIPROC_DIR "
        "to a directory of this user's that no one else can write (or to a path not there yet: it is made)"
    )
    assert sorted(files(victim)) == ["counter_1.db", "important.db", "notes.txt"]
    chosen.unlink()
    chosen.write_text("", encoding="utf-8")
    with pytest.raises(UsageError, match=r"chosen \(PROMETHEUS_MULTIPROC_DIR\) cannot be opened as a directory \("):
        worker_cmd.prepare_multiprocess_dir(PORT)


def test_a_fresh_path_is_made_private_and_a_previous_runs_values_go(tmp, monkeypatch):
    path = worker_cmd.prepare_multiprocess_dir(PORT)
    assert path == tmp / f"arena-metrics-{PORT}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    assert os.environ[MULTIPROC_ENV] == str(path)
    assert sorted(os.listdir(path)) == ["arena-worker.lock"]
    while worker_cmd._HELD_LOCKS:  # that worker is gone; its values stayed
        os.close(worker_cmd._HELD_LOCKS.pop())
    (path / "counter_1.db").write_text("old", encoding="utf-8")
    (path / "kept.txt").write_text("kept", encoding="utf-8")
    monkeypatch.delenv(MULTIPROC_ENV)
    assert worker_cmd.prepare_multiprocess_dir(PORT) == path
    assert sorted(os.listdir(path)) == ["arena-worker.lock", "kept.txt"]
    # A chosen path not there yet: made, with its parents, private.
    chosen = tmp / "metrics" / "node1"
    monkeypatch.setenv(MULTIPROC_ENV, str(chosen))
    assert worker_cmd.prepare_multiprocess_dir(PORT) == chosen
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o700


def test_the_worker_refuses_a_planted_symlink_in_one_line(tmp_path, victim):
    """The command as run: one line, exit 2, before it counts or plays anything."""
    port = free_port()
    (tmp_path / "tmp").mkdir()
    (tmp_path / "tmp" / f"arena-metrics-{port}").symlink_to(victim)
    with redis_server(tmp_path) as server:
        done = arena(
            "worker", "--broker", server.url, "--concurrency", "1", "--metrics-port", str(port),
            env={"TMPDIR": str(tmp_path / "tmp"), MULTIPROC_ENV: ""}, timeout=120,
        )  # fmt: skip
    assert (done.returncode, done.stderr) == (
        2,
        f"arena worker: error: metrics directory {tmp_path}/tmp/arena-metrics-{port} is a symbolic link: remove it "
        "(another user may have put it there), or set PROMETHEUS_MULTIPROC_DIR to a directory of your own\n",
    )
    assert files(victim) == {"counter_1.db": "counter_1.db", "important.db": "important.db", "notes.txt": "notes.txt"}


def test_a_directory_made_again_while_the_node_runs_is_private_too(tmp_path):
    """Removed under a running node (a tmp cleaner), the directory is made again at the next
    scrape: 0700 as the worker makes it, not the umask's 0755."""
    import shutil

    from prometheus_client import CollectorRegistry

    from referee import metrics

    directory = tmp_path / "metrics"
    directory.mkdir(mode=0o700)
    collector = metrics.LiveMultiProcessCollector(CollectorRegistry(), str(directory))
    shutil.rmtree(directory)
    list(collector.collect())
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
