"""The README's backup and restore ("Backups", under the referee service), done as written, with a
real redis-server run as the README recommends (AOF on): what it promises comes back, key for
key. An outside operator probe found the earlier text's restore (put ``dump.rdb`` in ``dir``
and start Redis) brought back nothing: with AOF on, Redis loads ``appendonlydir`` only."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.tournament import TournamentSpec
from referee.auth import create_owner
from referee.store import Store
from tests.services import RedisServer, wait_for


@contextmanager
def running(directory: Path, *extra: str) -> Iterator[RedisServer]:
    """A redis-server in ``directory``, shut down cleanly (its files written) at the end."""
    server = RedisServer(directory, *extra)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def fill(url: str) -> None:
    store = Store(url)
    create_owner(store, "alice")
    create_owner(store, "ops", operator=True)
    spec = TournamentSpec(game="rolldice", bots=["random", "heuristic"], players=2, repeats=3, seed=7)
    assert store.create_tournament("t1", spec, 6, 1, owner="alice")


def contents(server: RedisServer) -> dict[bytes, object]:
    """Every key's value (not DUMP's bytes: a reloaded hash may encode its fields in another order)."""
    client = server.client()
    read = {
        b"string": client.get,
        b"hash": client.hgetall,
        b"set": client.smembers,
        b"list": lambda key: client.lrange(key, 0, -1),
        b"zset": lambda key: client.zrange(key, 0, -1, withscores=True),
        b"stream": lambda key: client.xrange(key),
    }
    return {key: read[client.type(key)](key) for key in client.keys("*")}


def back_up(server: RedisServer, into: Path) -> None:
    """`redis-cli BGSAVE`, then, once `LASTSAVE` has moved on, copy `dump.rdb` from `dir`."""
    client = server.client()
    before = client.lastsave()
    time.sleep(1.1)  # LASTSAVE counts seconds
    client.bgsave()
    wait_for(lambda: client.lastsave() > before, 20, "BGSAVE to finish")
    directory = Path(client.config_get("dir")["dir"])
    shutil.copy(directory / "dump.rdb", into / "dump.rdb")


def test_a_backup_restores_with_aof_on_as_the_readme_says(tmp_path):
    live, backup = tmp_path / "live", tmp_path / "backup"
    live.mkdir()
    backup.mkdir()
    with running(live) as server:
        fill(server.url)
        expected = contents(server)
        assert len(expected) >= 5
        back_up(server, backup)
        server.client().set("arena:after-the-backup", b"1")  # gone after the restore

    # What the README said before: the copy in `dir`, Redis started as usual. With AOF on it
    # loads appendonlydir alone (here: a fresh, empty one), and its next save overwrites the copy.
    naive = tmp_path / "naive"
    naive.mkdir()
    shutil.copy(backup / "dump.rdb", naive / "dump.rdb")
    with running(naive) as server:
        assert contents(server) == {}

    # The README's restore: appendonlydir moved aside, the copy in `dir`, Redis started once
    # with AOF off (it loads dump.rdb), AOF switched on (a new appendonlydir is written from what
    # was loaded), then Redis restarted as usual.
    shutil.move(live / "appendonlydir", tmp_path / "appendonlydir.old")
    shutil.copy(backup / "dump.rdb", live / "dump.rdb")
    with running(live, "--appendonly", "no") as server:
        client = server.client()
        client.config_set("appendonly", "yes")

        def rewritten() -> bool:
            info = client.info("persistence")
            return bool(
                info["aof_enabled"] and not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]
            )

        wait_for(rewritten, 20, "the AOF to be written")
    with running(live) as server:
        assert contents(server) == expected  # everything at the backup, nothing after it


def test_a_copy_of_appendonlydir_restores_too(tmp_path):
    live, restored = tmp_path / "live", tmp_path / "restored"
    live.mkdir()
    restored.mkdir()
    with running(live) as server:
        fill(server.url)
        expected = contents(server)
        time.sleep(1.5)  # appendfsync everysec
        shutil.copytree(live / "appendonlydir", restored / "appendonlydir")
    with running(restored) as server:
        assert contents(server) == expected
