"""Hosted bot uploads (issue 17): archive checks, the manifest, the compile check, the trial
match in the real sandbox, content-hash versions and the workers' cache."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import tarfile
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import pytest

from arena import clock
from referee.hosted import archive, manifest, versions
from referee.hosted.archive import ArchiveError

HOSTILE = Path(__file__).resolve().parent / "bots" / "hosted" / "hostile"
GOOD = {
    "arena-bot.toml": b'name = "first"\ngames = ["rolldice"]\nlanguage = "python"\nentry = "first"\n',
    "first.py": b"from bots.sdk import Bot\nfrom bots.serve import serve\n\n\nclass First(Bot):\n"
    b"    name = 'first'\n\n    def choose(self, turn):\n        return turn.option_ids[0]\n\n\n"
    b"if __name__ == '__main__':\n    serve(First)\n",
}


def tar_of(files: dict[str, bytes], *, extra: list[tarfile.TarInfo] = ()) -> bytes:  # type: ignore[assignment]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, content in files.items():
            info = tarfile.TarInfo(path)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
        for info in extra:
            tar.addfile(info)
    return buffer.getvalue()


def tar_named(name: bytes) -> bytes:
    """GOOD plus a member whose name is these bytes (not UTF-8 if they are not)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT, errors="surrogateescape") as tar:
        for path, content in {**GOOD, name.decode("utf-8", "surrogateescape"): b"x"}.items():
            info = tarfile.TarInfo(path)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def zip_named(name: bytes) -> bytes:
    """GOOD plus a member whose name is these bytes, flagged UTF-8 (bit 11) whatever they are."""
    stand_in = b"Z" * len(name)
    return with_zip_flags(zip_of({**GOOD, stand_in.decode(): b"x"}), 0x800).replace(stand_in, name)


def with_zip_flags(data: bytes, flags: int) -> bytes:
    """A zip with ``flags`` set in every member's general-purpose bits (local and central
    headers)."""
    import struct

    patched = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = 0
        while (at := patched.find(signature, at)) >= 0:
            struct.pack_into("<H", patched, at + offset, struct.unpack_from("<H", patched, at + offset)[0] | flags)
            at += 4
    return bytes(patched)


def zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path, content in files.items():
            zipped.writestr(path, content)
    return buffer.getvalue()


def flipped(data: bytes, at: int) -> bytes:
    """``data`` with every bit of the byte at ``at`` flipped (a damaged download)."""
    damaged = bytearray(data)
    damaged[at] ^= 0xFF
    return bytes(damaged)


def zip_with_empty_name() -> bytes:
    """GOOD plus a member whose name is empty in the central directory."""
    import struct

    data = bytearray(zip_of({**GOOD, "Q": b"data"}))
    entry = data.rfind(b"PK\x01\x02")  # the last member's central header: its name is "Q"
    struct.pack_into("<H", data, entry + 28, 0)
    del data[entry + 46]
    end = data.rfind(b"PK\x05\x06")  # the central directory is a byte shorter
    struct.pack_into("<I", data, end + 12, struct.unpack_from("<I", data, end + 12)[0] - 1)
    return bytes(data)


def test_a_version_is_its_content_however_it_is_packed(tmp_path):
    archive.write_files(GOOD, tmp_path / "bot")
    packed = archive.pack_directory(tmp_path / "bot")
    assert packed == archive.pack_directory(tmp_path / "bot")  # reproducible
    hashes = {
        versions.check_upload(data).version
        for data in (tar_of(GOOD), zip_of(GOOD), packed, tar_of({f"top/{p}": c for p, c in GOOD.items()}))
    }
    assert len(hashes) == 1
    changed = {**GOOD, "first.py": GOOD["first.py"] + b"# v2\n"}
    assert versions.check_upload(tar_of(changed)).version not in hashes


def symlink(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


@pytest.mark.parametrize(
    ("build", "message"),
    [
        pytest.param(
            lambda: tar_of(GOOD, extra=[symlink("shadow", "/etc/shadow")]),
            "'shadow' is a link",
            id="link-symbolic",
        ),
        pytest.param(
            lambda: tar_of(GOOD, extra=[symlink("hard", "first.py", tarfile.LNKTYPE)]),
            "'hard' is a link",
            id="link-hard",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "../escape.py": b""}),
            "may not climb out",
            id="tar-dotdot",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "/abs.py": b""}),
            "absolute paths are not allowed",
            id="tar-absolute",
        ),
        pytest.param(
            lambda: zip_of({**GOOD, "a/../../escape.py": b""}),
            "may not climb out",
            id="zip-dotdot",
        ),
        pytest.param(
            lambda: b"hello",
            "not a .tar.gz or .zip",
            id="not-an-archive",
        ),
        pytest.param(
            lambda: b"\x1f\x8b" + b"garbage" * 10,
            "not a readable .tar.gz",
            id="bad-gzip",
        ),
        pytest.param(
            lambda: b"PK\x03\x04" + b"\x00" * (archive.MAX_PACKED + 1),
            "at most 20 MiB",
            id="packed-too-big",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "big.bin": b"\x00" * (archive.MAX_UNPACKED + 1)}),
            "more than 100 MiB",
            id="tar-unpacked-too-big",
        ),
        pytest.param(
            lambda: zip_of({**GOOD, "big.bin": b"\x00" * (archive.MAX_UNPACKED + 1)}),
            "more than 100 MiB",
            id="zip-unpacked-too-big",
        ),
        pytest.param(
            lambda: tar_of({"first.py": GOOD["first.py"]}),
            "no arena-bot.toml",
            id="no-manifest",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "arena-bot.toml": b"name = 'x'\n"}),
            "games must be a non-empty list",
            id="manifest-no-games",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "arena-bot.toml": GOOD["arena-bot.toml"].replace(b"python", b"rust")}),
            "language",
            id="manifest-language",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "arena-bot.toml": b"name = [\n"}),
            "not valid TOML",
            id="manifest-bad-toml",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "arena-bot.toml": GOOD["arena-bot.toml"].replace(b'"first"\n', b'"main"\n')}),
            "no main.py",
            id="manifest-no-entry",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "util/helper.py": b"def f(:\n    pass\n"}),
            "compile check: util/helper.py, line 1",
            id="compile-error",
        ),
    ],
)
def test_a_broken_upload_is_refused_with_a_specific_error(build, message):
    # Built in the test, not at collection: the ids stay stable across xdist workers (a gzip
    # header carries its time) and collection does not pack 100 MiB archives.
    data = build()
    with pytest.raises(ArchiveError, match=message.replace(".", r"\.").replace("(", r"\(")) as refused:
        versions.check_upload(data)
    # A member refused is said as it is: a zip's were "not a readable .zip archive: ...".
    assert "not a readable" not in str(refused.value) or "not a readable" in message


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.timeout(180)
def test_the_trial_match_runs_the_bot_in_the_sandbox():
    versions.trial(versions.check_upload(tar_of(GOOD)), "rolldice", "ann")  # plays without failing


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    ("first_py", "message"),
    [
        (b"import sys\nsys.exit('no serving today')\n", r"(?s)crash at start-up \(no ready\).*no serving today"),
        (b"import nonexistent_module\n", r"(?s)crash at start-up.*ModuleNotFoundError"),
        (b"import time\ntime.sleep(1000)\n", r"stall at start-up.*did not listen"),
        (  # an outside probe: a bot that never serves got no hint
            b"print('hello')\n",
            r"exit status 0\) before listening; does its entry module call serve\(MyBot\) under if __name__",
        ),
    ],
)
def test_an_entry_point_that_does_not_start_and_answer_ready_is_refused(first_py, message, monkeypatch):
    monkeypatch.setattr("referee.hosted.player.STARTUP_BUDGET", 5.0)
    with pytest.raises(ArchiveError, match=message):
        versions.trial(versions.check_upload(tar_of({**GOOD, "first.py": first_py})), "rolldice", "ann")


def test_the_hostile_bot_packs(tmp_path):
    shutil.copytree(HOSTILE, tmp_path / "bot")
    (tmp_path / "bot" / "behaviour.json").write_text('{"behaviour": "none"}')
    checked = versions.check_upload(archive.pack_directory(tmp_path / "bot"))
    assert checked.manifest.entry == "hostile"
    assert set(checked.files) == {"arena-bot.toml", "behaviour.json", "hostile.py"}
    (tmp_path / "bot" / "link").symlink_to("/etc/passwd")
    with pytest.raises(ArchiveError, match="link: only regular files"):
        archive.pack_directory(tmp_path / "bot")
    (tmp_path / "bot" / "link").unlink()
    os.mkfifo(tmp_path / "bot" / "pipe")  # said to be no regular file, not taken for a link
    with pytest.raises(ArchiveError, match=r"pipe: not a regular file; only regular files can be submitted$"):
        archive.pack_directory(tmp_path / "bot")


def test_trial_matches_at_once_are_bounded(monkeypatch):
    monkeypatch.setattr(versions, "TRIALS", versions.TrialSlots(1))
    monkeypatch.setattr(versions, "TRIAL_WAIT", 0.1)
    versions.TRIALS.acquire("ann", 0)  # the only slot is taken
    with pytest.raises(versions.TrialsBusy, match="every trial slot stayed busy"):
        versions.trial(versions.check_upload(tar_of(GOOD)), "rolldice", "bob")


def test_an_owner_holds_one_trial_slot_at_a_time():
    """One owner's uploads wait for their own trial, never for the slot another owner needs."""
    import threading

    slots = versions.TrialSlots(2)
    slots.acquire("ann", 0)
    with pytest.raises(versions.TrialsBusy, match="your previous upload's trial match still ran after 0 s"):
        slots.acquire("ann", 0.05)  # a free slot, but ann's trial is running
    slots.acquire("bob", 0)  # bob gets the second slot at once
    with pytest.raises(versions.TrialsBusy, match="every trial slot stayed busy"):
        slots.acquire("cyd", 0.05)
    taken = threading.Event()

    def second_of_ann() -> None:
        slots.acquire("ann", 30)
        taken.set()

    waiter = threading.Thread(target=second_of_ann)
    waiter.start()
    assert not taken.wait(0.1)  # waits for ann's first trial
    slots.release("bob")
    assert not taken.wait(0.1)  # bob's slot is free, but ann's own trial still runs
    slots.release("ann")
    assert taken.wait(30)
    waiter.join()
    slots.acquire("bob", 0)  # two slots: ann's second trial and bob's
    with pytest.raises(versions.TrialsBusy):
        slots.acquire("cyd", 0)


def test_workers_unpack_a_version_once_and_check_it_against_its_hash(tmp_path, monkeypatch):
    from referee.store import Store
    from tests.services import redis_server

    monkeypatch.setattr(versions, "CACHE", tmp_path / "cache")
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        monkeypatch.setattr(versions, "_store", store)
        data = tar_of(GOOD)
        checked = versions.check_upload(data)
        versions.save_version(store, "first", "alice", checked, data)
        (tmp_path / "cache").mkdir(mode=0o755)  # as an earlier version made it
        directory = versions.unpacked(checked.version)
        assert {p.name for p in directory.iterdir()} == set(GOOD)
        # The cache is the worker's alone (an outside probe: any local account read every bot).
        assert versions.CACHE.stat().st_mode & 0o777 == 0o700
        assert (directory / "first.py").read_bytes() == GOOD["first.py"]
        # Cached: the store is not asked again (its archive may even be gone).
        store.redis.delete(store.key("hosted", "archive", checked.version))
        assert versions.unpacked(checked.version) == directory
        # An archive that does not match its name is refused, and nothing is unpacked.
        other = {**GOOD, "first.py": GOOD["first.py"] + b"# tampered\n"}
        forged = "0" * 64
        store.redis.set(store.key("hosted", "archive", forged), tar_of(other))
        with pytest.raises(ArchiveError, match="does not match its hash"):
            versions.unpacked(forged)
        assert not (versions.CACHE / forged).exists()


def test_a_zip_of_too_many_members_is_refused_from_its_headers_before_it_is_parsed(monkeypatch):
    # zipfile reads the whole central directory as it opens a zip: 220,000 entries took 1.3 CPU s
    # and 110 MiB to refuse (an outside review, review14); its central directory's headers are
    # counted first, not the end record's count, which zipfile ignores (review15).
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for path, content in GOOD.items():
            zipped.writestr(path, content)
        for i in range(archive.MAX_FILES):
            zipped.writestr(f"d{i}/", "")
    data = buffer.getvalue()
    assert archive._zip_members(data) == archive.MAX_FILES + 1  # counted up to one past the cap
    # The end record's count, which zipfile ignores, edited to 1: the headers are counted.
    edited = bytearray(data)
    end = edited.rfind(b"PK\x05\x06")
    edited[end + 8 : end + 12] = (1).to_bytes(2, "little") * 2
    assert archive._zip_members(bytes(edited)) == archive.MAX_FILES + 1
    # Past 65,535 members a zip has ZIP64 end records: its directory was not found, the count
    # was 0 and zipfile parsed it all (review16).
    many = io.BytesIO()
    with zipfile.ZipFile(many, "w") as zipped:
        for i in range(0x10000):
            zipped.writestr(f"d{i}/", "")
    assert b"PK\x06\x06" in many.getvalue() and archive._zip_members(many.getvalue()) == archive.MAX_FILES + 1
    assert archive._zip_members(zip_of(GOOD)) == 2 and archive._zip_members(b"PK\x03\x04 no end") is None

    def not_opened(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the zip was parsed")

    monkeypatch.setattr(archive.zipfile, "ZipFile", not_opened)
    with pytest.raises(ArchiveError, match="more than 2000 files and directories in the archive"):
        versions.check_upload(data)


def test_stored_versions_unpack_whatever_the_upload_left_out_or_the_members_they_hold(tmp_path, monkeypatch):
    """An upload leaves out what macOS adds and is named without it, but the archive stored is
    the upload's: a worker kept those files, found another hash and crashed every match of the
    version, and of a clean upload of the same content stored after it (its archive is stored
    once). A version of 1,992 files in 40 directories, taken before directories counted against
    the cap, was refused by every worker (an outside review, review14)."""
    from referee.store import Store
    from tests.services import redis_server

    monkeypatch.setattr(versions, "CACHE", tmp_path / "cache")
    finder = zip_of({**{f"b/{path}": content for path, content in GOOD.items()}, "__MACOSX/b/._first.py": b"\0"})
    checked = versions.check_upload(finder)
    assert checked.version == versions.check_upload(tar_of(GOOD)).version  # the same content
    earlier = {**GOOD, "__MACOSX/._first.py": b"\0"}  # an earlier Arena's upload: its hash counts them
    earlier_version = archive.content_hash(earlier)
    many = {**GOOD, **{f"d{i % 40}/f{i}.py": b"" for i in range(1990)}}  # 2,032 members, 1,992 files
    directories = []
    for i in range(40):
        info = tarfile.TarInfo(f"d{i}")
        info.type = tarfile.DIRTYPE
        directories.append(info)
    many_data = tar_of(many, extra=directories)
    link = tarfile.TarInfo("__MACOSX/._first.py")  # skipped by the upload; it stopped the worker's read
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    linked = tar_of(GOOD, extra=[link])
    assert versions.check_upload(linked).version == checked.version
    with pytest.raises(ArchiveError, match="more than 2000 files and directories"):
        versions.check_upload(many_data)
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        monkeypatch.setattr(versions, "_store", store)
        for version, data in (
            (checked.version, finder),  # as the service stores an upload: its bytes
            (earlier_version, zip_of(earlier)),
            (archive.content_hash(many), many_data),
        ):
            store.redis.set(store.key("hosted", "archive", version), data)
        assert sorted(os.listdir(versions.unpacked(checked.version))) == sorted(GOOD)
        shutil.rmtree(versions.CACHE / checked.version)
        store.redis.set(store.key("hosted", "archive", checked.version), linked)  # stored first, as it may be
        assert sorted(os.listdir(versions.unpacked(checked.version))) == sorted(GOOD)
        assert "._first.py" in os.listdir(versions.unpacked(earlier_version) / "__MACOSX")
        assert len(os.listdir(versions.unpacked(archive.content_hash(many)) / "d0")) == 50


def test_a_version_stored_before_the_path_bounds_still_unpacks_for_the_workers(tmp_path, monkeypatch):
    """The bounds on a path's depth and lengths came after versions were stored: a worker
    unpacking one taken before (40 directories deep, say) crashed its every match (an outside
    review). Uploads are held to them; stored versions are not."""
    from referee.store import Store
    from tests.services import redis_server

    monkeypatch.setattr(versions, "CACHE", tmp_path / "cache")
    deep = "d/" * 40 + "x.py"
    data = tar_of({**GOOD, deep: b"x = 1\n"})
    with pytest.raises(ArchiveError, match="at most 32 directories deep"):
        versions.check_upload(data)
    files = archive.read_archive(data, stored=True)
    version = archive.content_hash(files)
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        monkeypatch.setattr(versions, "_store", store)
        store.redis.set(store.key("hosted", "archive", version), data)  # as an earlier version stored it
        directory = versions.unpacked(version)
        assert (directory / deep).read_bytes() == b"x = 1\n"


def test_the_cache_counts_what_files_take_on_disk_and_sweeps_what_dead_processes_left(tmp_path, monkeypatch):
    """1,900 one-byte files counted as 1,961 bytes (7.5 MiB on disk); an evicted version's files,
    removed by a thread that died with its process, and a staging directory a process killed
    unpacking left, were never counted nor removed (an outside review, review14)."""
    assert versions.disk_bytes({f"d/f{i}": b"x" for i in range(1900)}) == 1900 * 4096 + 2 * 4096
    assert versions.disk_bytes({"a": b"", "b/c/d": bytes(4097)}) == 4096 + 2 * 4096 + 3 * 4096
    monkeypatch.setattr(versions, "CACHE", tmp_path / "cache")
    versions.CACHE.mkdir()
    left = [versions.CACHE / ".evicted-abc-123", versions.CACHE / ".abcdef012345-old"]
    fresh = versions.CACHE / ".abcdef012345-now"  # a live process's unpacking: kept
    for directory in (*left, fresh):
        (directory / "sub").mkdir(parents=True)
        (directory / "sub" / "f").write_bytes(b"x")
    os.utime(left[1], (time.time() - 2 * versions.STAGING_SECONDS,) * 2)
    assert versions.make_room(0) == []
    for thread in threading.enumerate():
        if thread.name == "arena-cache-evict":
            thread.join(10)
    assert sorted(p.name for p in versions.CACHE.iterdir()) == [fresh.name]
    # A version an earlier Arena unpacked, its size its content alone (`.bytes`): measured anew
    # as it takes the disk (review15), it no longer fits a cap its content would.
    old = versions.CACHE / "0123abcd"
    old.mkdir()
    for i in range(100):
        (old / f"f{i}").write_bytes(bytes(2000))  # 200,000 bytes however the disk keeps them
    (versions.CACHE / ".0123abcd.bytes").write_text("100")
    monkeypatch.setattr(versions, "CACHE_BYTES", 100 * 1024)
    assert versions.make_room(0) == ["0123abcd"]
    assert not (versions.CACHE / ".0123abcd.bytes").exists()


def test_the_unpacked_cache_is_bounded_evicting_the_versions_no_match_holds(tmp_path, monkeypatch):
    """It only ever grew (three 101 KB uploads grew it 300 MiB), then evicted only versions idle
    an hour, so a flood within the hour grew it without bound (an outside probe)."""
    import threading

    from referee.store import Store
    from tests.services import redis_server

    def cached() -> list[str]:
        for thread in threading.enumerate():  # the evicted versions' files are removed off the caller's thread
            if thread.name == "arena-cache-evict":
                thread.join(10)
        assert not list(versions.CACHE.glob(".evicted-*"))
        return sorted(p.name for p in versions.CACHE.iterdir() if not p.name.startswith("."))

    monkeypatch.setattr(versions, "CACHE", tmp_path / "cache")
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        monkeypatch.setattr(versions, "_store", store)
        made = []
        for n in range(4):
            data = tar_of({**GOOD, "table.bin": bytes([n]) * 100_000})
            checked = versions.check_upload(data)
            versions.save_version(store, f"bot{n}", "alice", checked, data)
            made.append(checked.version)
        size = versions.disk_bytes({**GOOD, "table.bin": bytes(100_000)})
        monkeypatch.setattr(versions, "CACHE_BYTES", 2 * size + 10)  # two versions' worth
        now = time.time()
        for n, version in enumerate(made[:2]):  # used a minute and half a minute ago
            os.utime(versions.unpacked(version), (now - 60 + 30 * n,) * 2)
        versions.unpacked(made[2])  # the least recently used goes, however recently
        assert cached() == sorted(made[1:3])
        # Versions held by matches stay: with both held, a new version is refused, unpacked nowhere.
        held = {version: versions.leased(version)[1] for version in made[1:3]}
        with pytest.raises(versions.CacheFull) as full:
            versions.unpacked(made[3])
        assert str(full.value) == (
            f"this worker's cache of unpacked hosted versions is full: version {made[3][:12]} needs 0.1 MiB, "
            "and the versions its matches are playing hold 0.2 MiB of its 0.2 MiB"
        )
        assert cached() == sorted(made[1:3])
        # Once one is released it goes, though the one still held is less recently used.
        os.utime(versions.CACHE / made[2], (now - 120,) * 2)
        held.pop(made[1]).release()
        assert versions.unpacked(made[3]) == versions.CACHE / made[3]
        assert cached() == sorted([made[2], made[3]])
        held.pop(made[2]).release()


def encrypted_zip(files: dict[str, bytes]) -> bytes:
    """A zip whose members say they are encrypted (the flag bit, in local and central headers)."""
    return with_zip_flags(zip_of(files), 0x1)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        pytest.param(
            lambda: tar_of({**GOOD, "deep.py": b"x = 1" + b" + 1" * 300_000 + b"\n"}),
            "compile check: deep.py: too deeply nested to compile (RecursionError)",
            id="deep-binop",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "deep.py": b"x = " + b"-" * 200_000 + b"1\n"}),
            "compile check: deep.py: too deeply nested or too big to compile within 2 GiB of memory (MemoryError)",
            id="deep-unary",
        ),
        # From an outside probe: INTERNAL errors of a few hundred bytes each.
        pytest.param(lambda: tar_named(b"x\xff.txt"), "a path must be UTF-8", id="tar-name-not-utf8"),
        pytest.param(
            lambda: zip_named(b"x\xff.txt"),
            "archive member 'x\ufffd.txt': its name is marked UTF-8 but is not UTF-8",
            id="zip-name-not-utf8",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "arena-bot.toml": GOOD["arena-bot.toml"] + b"deep = " + b"[" * 30_000}),
            "arena-bot.toml is nested too deeply to read",
            id="manifest-nested",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "arena-bot.toml": GOOD["arena-bot.toml"] + b"#" * 70_000 + b"\n"}),
            "arena-bot.toml is 70073 characters; at most 65536",
            id="manifest-too-long",
        ),
        pytest.param(lambda: encrypted_zip(GOOD), "is encrypted", id="zip-encrypted"),
        pytest.param(
            lambda: tar_of({**GOOD, "x": b"", "x/y.py": b"pass\n"}),
            "'x' is a file, and also the directory of 'x/y.py'",
            id="tar-file-and-directory",
        ),
        pytest.param(
            lambda: zip_of({**GOOD, "x": b"", "x/y.py": b"pass\n"}),
            "'x' is a file, and also the directory of 'x/y.py'",
            id="zip-file-and-directory",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "a.bin": b"\x00" * (60 * archive.MiB), "b.bin": b"\x00" * (60 * archive.MiB)}),
            "archive unpacks to more than 100 MiB",
            id="tar-two-files-too-big",
        ),
        # From an outside probe: INTERNAL errors, the deep one leaving its trial's directory behind.
        pytest.param(
            lambda: tar_of({**GOOD, "d/" * 2000 + "x.py": b"x = 1\n"}),
            "archive member 'd/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/'... (4004 characters): "
            "a path may be at most 32 directories deep (2000 given)",
            id="tar-2000-deep",
        ),
        pytest.param(
            lambda: zip_of({**GOOD, "d/" * 2000 + "x.py": b"x = 1\n"}),
            "a path may be at most 32 directories deep (2000 given)",
            id="zip-2000-deep",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "n" * 300 + ".py": b"x = 1\n"}),
            "a file or directory name may be at most 255 bytes (303 given)",
            id="tar-300-character-name",
        ),
        pytest.param(
            lambda: zip_of({**GOOD, "lib/" + "n" * 300 + "/x.py": b"x = 1\n"}),
            "a file or directory name may be at most 255 bytes (300 given)",
            id="zip-300-character-directory",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "\u00e9" * 128 + ".py": b"x = 1\n"}),  # 131 characters, 259 bytes
            "a file or directory name may be at most 255 bytes (259 given)",
            id="tar-name-long-in-utf8",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "/".join(["p" * 250] * 5) + ".py": b"x = 1\n"}),
            "a path may be at most 1024 bytes (1257 given)",
            id="tar-path-too-long",
        ),
        pytest.param(
            lambda: tar_of({**GOOD, "arena-bot.toml": GOOD["arena-bot.toml"] + b"extra = 1" + b"0" * 5000 + b"\n"}),
            "arena-bot.toml holds a number too long to read: Exceeds the limit (4300 digits)",
            id="manifest-5000-digit-integer",
        ),
        # From a fuzzing probe: zlib's own error and zipfile's is_dir() of an empty name.
        pytest.param(
            lambda: flipped(tar_of(GOOD), 20),
            "not a readable .tar.gz archive: Error -3 while decompressing data",
            id="tar-damaged-deflate-stream",
        ),
        pytest.param(
            lambda: zip_with_empty_name(),
            "archive member '': a file needs a name",
            id="zip-empty-member-name",
        ),
        pytest.param(
            lambda: flipped(zip_of({**GOOD, "x.py": b"x = 1\n" * 400}), zip_of(GOOD).__len__() // 2),
            "not a readable .zip archive",
            id="zip-damaged-deflate-stream",
        ),
    ],
)
def test_uploads_that_were_internal_errors_are_refused_naming_the_problem(build, message):
    """From exploratory testing: each was an INTERNAL error (RecursionError, MemoryError,
    zipfile's RuntimeError, FileExistsError when unpacking) or the wrong reason (a .tar.gz over
    the cap read as "unexpected end of data"); now an ArchiveError, INVALID_ARGUMENT."""
    data = build()
    with pytest.raises(ArchiveError, match=message.replace(".", r"\.").replace("(", r"\(").replace(")", r"\)")):
        versions.check_upload(data)


def test_paths_up_to_the_limits_are_taken(tmp_path, monkeypatch):
    """32 directories deep, a 255-byte name, a 1,024-byte path: taken and unpacked; one more of
    any is refused, before anything is written (no trial's directory)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    deep = "d/" * archive.MAX_DEPTH + "x.py"
    named = "n" * 252 + ".py"
    long = "/".join(["p" * 200] * 5) + "/" + "q" * 16 + ".py"
    assert len(long) == archive.MAX_PATH
    checked = versions.check_upload(tar_of({**GOOD, deep: b"", named: b"", long: b""}))
    assert {deep, named, long} <= set(checked.files)
    archive.write_files(checked.files, tmp_path / "bot")
    assert (tmp_path / "bot" / deep).is_file() and (tmp_path / "bot" / named).is_file()
    assert (tmp_path / "bot" / long).is_file()
    shutil.rmtree(tmp_path / "bot")
    for path in ("d/" + deep, "n" + named, "p" + long):
        with pytest.raises(ArchiveError, match="at most"):
            versions.check_upload(tar_of({**GOOD, path: b""}))
    assert list(tmp_path.iterdir()) == []


def deep_tree(top: Path, depth: int, name: str) -> None:
    """``top`` holding a chain of ``depth`` directories called ``name``, each with a file in it,
    made one level at a time relative to its parent (its paths may pass PATH_MAX)."""
    top.mkdir()
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
            os.close(os.open("x.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)


def test_the_trial_directory_cleanup_removes_a_tree_of_any_depth(tmp_path):
    """shutil.rmtree(ignore_errors=True) raised RecursionError about 1,000 levels down and left
    the rest (an outside probe's 2,000-deep upload stayed in /tmp for good)."""
    deep_tree(tmp_path / "deep", 3000, "d" * 100)  # 300,000 bytes of path: past PATH_MAX too
    (tmp_path / "deep" / "wide").mkdir()
    (tmp_path / "deep" / "wide" / "a.py").write_text("")
    (tmp_path / "deep" / "top.py").write_text("")
    versions.remove_tree(tmp_path / "deep")
    assert list(tmp_path.iterdir()) == []
    versions.remove_tree(tmp_path / "missing")  # nothing to remove: no error, like ignore_errors


def test_a_trial_leaves_no_directory_even_for_a_tree_too_deep_for_rmtree(tmp_path, monkeypatch):
    """Files that passed no checks (they would be refused now) written 1,500 deep: the trial's
    own outcome comes out, not a RecursionError, and its directory is gone."""

    class Started(Exception):
        pass

    def refuse(*args, **kwargs):
        raise Started

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(versions, "HostedPlayer", refuse)
    files = {**GOOD, "d/" * 1500 + "x.py": b"x = 1\n"}
    checked = versions.Checked(files, archive.check_files(GOOD), archive.content_hash(files))
    with pytest.raises(Started):
        versions.trial(checked, "rolldice", "ann")
    assert list(tmp_path.iterdir()) == []


def test_a_manifest_with_a_5000_digit_integer_is_refused(tmp_path):
    """`arena play --bots hosted:DIR` ended in a traceback (ValueError: Exceeds the limit)."""
    from referee.hosted import manifest

    archive.write_files(
        {**GOOD, "arena-bot.toml": GOOD["arena-bot.toml"] + b"extra = 1" + b"0" * 5000 + b"\n"}, tmp_path
    )
    with pytest.raises(manifest.ManifestError, match=r"arena-bot\.toml holds a number too long to read"):
        manifest.load(tmp_path)


def test_a_linked_directory_is_refused_not_silently_left_out(tmp_path):
    shutil.copytree(HOSTILE, tmp_path / "bot")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "helper.py").write_text("X = 1\n")
    (tmp_path / "bot" / "lib").symlink_to(tmp_path / "shared")
    with pytest.raises(ArchiveError, match=r"lib: a link to a directory.*links are refused"):
        archive.pack_directory(tmp_path / "bot")


def test_a_version_is_named_by_its_hash_or_a_long_enough_unique_prefix(tmp_path):
    from referee.store import Store
    from tests.services import redis_server

    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        data = tar_of(GOOD)
        checked = versions.check_upload(data)
        versions.save_version(store, "first", "alice", checked, data)
        real = checked.version
        assert versions.resolve(store, "first", real) == real
        assert versions.resolve(store, "first", real[:8]) == real
        assert versions.resolve(store, "first", real[:4]) is None
        assert versions.unresolved(store, "first", real[:4]) == (
            "a version is named by its hash or a prefix of at least 8 characters (4 given)"
        )
        # Two versions sharing a prefix (their entries written directly: real hashes rarely do).
        key = store.key("hosted", "versions", "first")
        store.redis.hset(key, "abcdef01" + "1" * 56, "{}")
        store.redis.hset(key, "abcdef01" + "2" * 56, "{}")
        assert versions.resolve(store, "first", "abcdef01") is None
        assert versions.unresolved(store, "first", "abcdef01") == "the prefix matches 2 versions: give more characters"
        assert versions.resolve(store, "first", "abcdef011") == "abcdef01" + "1" * 56
        assert versions.unresolved(store, "first", "ffffffff") == "no such version (`arena bots versions` lists them)"
        assert versions.unresolved(store, "first", "fff") == "no such version (`arena bots versions` lists them)"


def test_every_upload_message_fits_the_services_request_limit():
    """A package over 1 MiB once failed: its 1 MiB pieces plus their framing exceeded the
    service's 1 MiB request limit (RESOURCE_EXHAUSTED before the service saw them)."""
    from arena.cli.hosted_cmd import chunks
    from arena.registry import games
    from referee.server import MAX_REQUEST

    data = os.urandom(3 * 1024 * 1024 + 17)
    name = "b" + "x" * 47  # the longest bot name the service takes
    sent = list(chunks(name, list(games()), True, data))
    assert b"".join(chunk.data for chunk in sent) == data and len(sent) == 49
    assert max(len(chunk.SerializeToString()) for chunk in sent) <= MAX_REQUEST


def test_the_compile_check_runs_apart_from_the_caller():
    """8 KiB packed of ``x = 1`` lines (8 MiB of source) compiled in the service itself took 14 s
    holding the interpreter lock (every RPC waited) and 3.4 GiB (an outside probe). The check
    now runs in a child process capped at 2 GiB: refused, and the caller's memory untouched."""
    import resource

    bomb = tar_of({**GOOD, "big.py": b"x = 1\n" * (1_400_000)})
    assert len(bomb) < 64 * 1024
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ArchiveError, match=r"big\.py: too deeply nested or too big to compile within 2 GiB"):
        versions.check_upload(bomb)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200 * 1024  # KiB: under 200 MiB
    # A good upload still passes, and a syntax error still names its file and line.
    archive.compile_check({"ok.py": b"x = 1\n"})
    with pytest.raises(ArchiveError, match=r"compile check: bad\.py, line 2: "):
        archive.compile_check({"ok.py": b"x = 1\n", "bad.py": b"x = 1\ndef (:\n"})


def slow_first(seconds: float) -> dict[str, bytes]:
    """GOOD whose every answer takes ``seconds`` (well within a trial decision's 5 s)."""
    body = GOOD["first.py"].replace(b"from bots.sdk import Bot\n", b"import time\n\nfrom bots.sdk import Bot\n")
    body = body.replace(
        b"        return turn.option_ids[0]",
        f"        time.sleep({seconds})\n        return turn.option_ids[0]".encode(),
    )
    return {**GOOD, "first.py": body}


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.timeout(180)
def test_a_trial_match_is_bounded_as_a_whole(monkeypatch):
    # Each decision within its limit, the match past the trial's time: an anytime bot in a long
    # game played on for 7 minutes, past the CLI's wait, holding its slot.
    monkeypatch.setattr(versions, "TRIAL_SECONDS", 3.0)
    with pytest.raises(ArchiveError, match=r"timeout at decision \d+: the match ran past the trial's 3 s"):
        versions.trial(versions.check_upload(tar_of(slow_first(0.5))), "rolldice", "ann")
    assert versions.TRIALS.try_acquire("ann")  # the slot was given back
    versions.TRIALS.release("ann")


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.timeout(180)
def test_a_trial_match_stops_when_its_upload_is_abandoned():
    import time

    began = time.monotonic()
    with pytest.raises(ArchiveError, match="the trial match was stopped"):
        versions.trial(
            versions.check_upload(tar_of(slow_first(0.5))), "rolldice", "ann", lambda: time.monotonic() - began > 2
        )


def test_uploads_waiting_for_a_trial_slot_hold_no_thread_other_calls_need(tmp_path, monkeypatch):
    """One owner's burst of uploads behind her running trial waited in the service's shared
    threads: every other owner's calls waited a minute (an outside probe). They wait on the event
    loop now: a call made meanwhile is answered while they all still wait."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from bots.registry import bot_names
    from referee.errors import ApiError
    from referee.players import make_player
    from referee.service import ArenaService, RateLimiter
    from referee.store import Store
    from tests.services import redis_server

    monkeypatch.setattr(versions, "TRIALS", versions.TrialSlots(2))
    monkeypatch.setattr(versions, "TRIAL_WAIT", 3.0)
    versions.TRIALS.acquire("alice", 0)  # her slow trial runs
    checked = versions.check_upload(tar_of(GOOD))
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        service = ArenaService(store, lambda *_: None, make_player, builtin_bots=bot_names, limiter=RateLimiter(0, 1))

        async def burst() -> None:
            asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=4))
            waiting = [asyncio.create_task(service._trial(checked, "rolldice", "alice")) for _ in range(8)]
            await asyncio.sleep(0.3)
            assert await service.blocking(store.ping)  # another owner's call
            assert not any(task.done() for task in waiting)
            for task in waiting:
                with pytest.raises(ApiError, match="your previous upload's trial match still ran after 3 s"):
                    await task

        asyncio.run(burst())
    versions.TRIALS.release("alice")


def test_directories_count_against_the_member_cap_and_reading_stops_past_it():
    """An outside probe's 1 MB .tar.gz of 200,000 directories was accepted (directories were
    not counted) and took 5-10 CPU s to read, in the service and on each worker."""
    directory = tarfile.TarInfo("d")
    directory.type = tarfile.DIRTYPE
    raw = b""
    for path, content in GOOD.items():
        info = tarfile.TarInfo(path)
        info.size = len(content)
        raw += info.tobuf(tarfile.GNU_FORMAT) + content + b"\0" * (-len(content) % tarfile.BLOCKSIZE)
    # The files, then the same directory header 200,000 times (a few bytes a header gzipped).
    data = gzip.compress(raw + directory.tobuf(tarfile.GNU_FORMAT) * 200_000 + b"\0" * 1024, mtime=0)
    assert len(data) < 1024 * 1024
    began = time.process_time()
    with pytest.raises(ArchiveError, match="more than 2000 files and directories in the archive"):
        versions.check_upload(data)
    assert time.process_time() - began < 2  # inflating it, not parsing 200,000 members
    # A zip the same: 2,001 directory entries beside a bot.
    many = io.BytesIO()
    with zipfile.ZipFile(many, "w") as zipped:
        for path, content in GOOD.items():
            zipped.writestr(path, content)
        for index in range(archive.MAX_FILES):
            zipped.writestr(f"d{index}/", b"")
    with pytest.raises(ArchiveError, match="more than 2000 files and directories in the archive"):
        versions.check_upload(many.getvalue())
    # At the cap, it is taken: 2,000 members, directories included.
    with zipfile.ZipFile(at_cap := io.BytesIO(), "w") as zipped:
        for path, content in GOOD.items():
            zipped.writestr(path, content)
        for index in range(archive.MAX_FILES - len(GOOD)):
            zipped.writestr(f"d{index}/", b"")
    assert sorted(archive.read_archive(at_cap.getvalue())) == sorted(GOOD)


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.timeout(180)
def test_the_trial_allows_a_start_as_long_as_a_tournaments_default_clock_does(monkeypatch):
    """An outside probe's bot that took 18 s to start passed the trial (20 s + 5 s), then stalled
    in every match at the default clock (10 s + 5 s). Shown here at a default of 1 s + 1 s."""
    monkeypatch.setitem(clock.DEFAULTS, "startup", 1000)
    monkeypatch.setattr("referee.hosted.player.SANDBOX_START", 1.0)
    slow = b"import time\ntime.sleep(4)\n" + GOOD["first.py"]
    began = time.monotonic()
    with pytest.raises(ArchiveError) as refused:
        versions.trial(versions.check_upload(tar_of({**GOOD, "first.py": slow})), "rolldice", "ann")
    assert time.monotonic() - began < 4
    assert str(refused.value) == (
        "trial match against random (rolldice): stall at start-up (no ready): the bot did not listen on its "
        "socket within 2.0 s of starting (as a tournament's match allows at the default clock, startup=1000 ms)"
    )


def test_careless_uploads_are_taken_or_refused_naming_the_problem(tmp_path):
    """An outside probe's careless uploads: a macOS Finder zip was refused for its ``__MACOSX/``
    (the manifest 'not at the top', a 'line None' compile check), a Notepad manifest for its BOM,
    and a zip name marked UTF-8 that is not named no member."""
    finder = {**{f"b/{path}": content for path, content in GOOD.items()}, "__MACOSX/b/._first.py": b"\x00\x05\x16\x07"}
    assert versions.check_upload(zip_of(finder)).files == GOOD
    assert versions.check_upload(tar_of({**GOOD, "._first.py": b"\x00\x05", ".DS_Store": b"\x00"})).files == GOOD
    bom = {**GOOD, "arena-bot.toml": b"\xef\xbb\xbf" + GOOD["arena-bot.toml"]}
    assert versions.check_upload(tar_of(bom)).manifest.name == "first"
    archive.write_files(bom, tmp_path / "bot")  # as a worker unpacks it
    assert manifest.load(tmp_path / "bot").name == "first"
    refused = {
        "no arena-bot.toml at the top of the archive (there is b/arena-bot.toml: pack the bot's own directory)": zip_of(
            {**{f"b/{path}": content for path, content in GOOD.items()}, "notes.txt": b"x"}
        ),
        "compile check: util.py: source code string cannot contain null bytes": tar_of({**GOOD, "util.py": b"x\x00"}),
        "archive member 'caf\ufffd\ufffd.txt': its name is marked UTF-8 but is not UTF-8": zip_of(
            {**GOOD, "caf\u00e9.txt": b"x"}
        ).replace("caf\u00e9".encode(), b"caf\xe9\xff"),
    }
    for message, data in refused.items():
        with pytest.raises(ArchiveError) as caught:
            versions.check_upload(data)
        assert str(caught.value) == message
    # A version stored with them keeps them: its hash counts them.
    assert "__MACOSX/b/._first.py" in archive.read_archive(zip_of(finder), stored=True)
