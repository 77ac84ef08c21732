"""bench.bench_hosted times the workers' version cache on their own path: ``versions.unpacked``
against a store (read, hash check, unpack, rename, eviction started), in a cache of its own; it
timed only the unpacking before, about half of what a worker pays (an outside audit, F7)."""

from __future__ import annotations

from pathlib import Path

from bench import bench_hosted
from referee.hosted import versions


def test_the_version_cache_is_timed_through_the_workers_unpacked(monkeypatch):
    real_cache, real_store = versions.CACHE, versions.configured()
    calls: list[tuple[str, Path, bool]] = []
    unpacked = versions.unpacked

    def spied(version: str) -> Path:
        calls.append((version, versions.CACHE, (versions.CACHE / version).is_dir()))
        assert versions.configured() is not None  # against a store
        return unpacked(version)

    monkeypatch.setattr(versions, "unpacked", spied)
    first, cached = bench_hosted.version_cache(2)
    assert first > 0 and cached > 0
    assert len({version for version, _, _ in calls}) == 1
    # Each run: a first use in a new, empty cache (not the machine's), then a use once cached.
    assert [was_cached for _, _, was_cached in calls] == [False, True, False, True]
    caches = [cache for _, cache, _ in calls]
    assert caches[0] == caches[1] != caches[2] == caches[3]
    assert real_cache not in caches
    assert not caches[0].exists()  # removed with the bench's temporary directory
    assert (versions.CACHE, versions.configured()) == (real_cache, real_store)
