"""The Redis store on a private redis-server: idempotent, counted storing with one finaliser,
leases that expire, retention, owners and tokens."""

from __future__ import annotations

import contextlib
import time
import zlib

import pytest
import zstandard

from arena.games.rolldice import GAME
from arena.record import MatchRecord
from arena.runner import play_match
from arena.tallied import GroupTally, tally_entry
from arena.tournament import TournamentSpec
from bots.random_bot import RandomBot
from referee.auth import create_owner, hash_token
from referee.store import ZSTD_MAGIC, Store
from tests.services import redis_server


@pytest.fixture
def store(tmp_path):
    with redis_server(tmp_path) as server:
        yield Store(server.url, retention_days=2)


def record(seed: int):
    return play_match(GAME, GAME.config(2), seed, [RandomBot(), RandomBot()])


SPEC = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2)


def test_a_store_mixing_new_and_redelivered_records_counts_each_where_it_stands(store):
    assert store.create_tournament("t", SPEC, total=4, batches=1)
    store.store_matches("t", [(0, record(0)), (1, record(1))])
    mixed = store.store_matches("t", [(1, record(1)), (2, record(2)), (0, record(0)), (3, record(3))])
    assert [(s.new, s.done, s.finalize) for s in mixed] == [
        (False, 2, False),
        (True, 3, False),
        (False, 3, False),
        (True, 4, True),
    ]
    assert store.tournament("t")["done"] == 4


def test_each_match_is_stored_and_counted_once_and_one_caller_finalises(store):
    assert store.create_tournament("t", SPEC, total=3, batches=1)
    assert not store.create_tournament("t", SPEC, total=3, batches=1)  # nothing overwritten
    first = store.store_matches("t", [(0, record(0)), (1, record(1))])
    assert [(s.new, s.done, s.finalize) for s in first] == [(True, 1, False), (True, 2, False)]
    again = store.store_matches("t", [(1, record(1)), (0, record(0))])  # a redelivered batch
    assert [(s.new, s.done, s.finalize) for s in again] == [(False, 2, False), (False, 2, False)]
    last = store.store_match("t", 2, record(2))
    assert (last.new, last.done, last.finalize) == (True, 3, True)
    assert not store.store_match("t", 2, record(2)).finalize  # finalisation is handed out once
    assert store.tournament("t")["done"] == 3 and len(store.matches("t")) == 3
    assert store.stored_indices("t", [0, 2, 5]) == {0, 2}
    cursor, indices, _, _ = store.follow_lines("t", "0", 0)
    assert indices == [0, 1, 2] and store.follow_lines("t", cursor, 0)[1] == []
    # One event per store, naming what it stored (the redelivery stored nothing: no event).
    assert store.redis.xlen(store.key("t", "t", "events")) == 2
    assert store.match("t", 1).canonical() == record(1).canonical()
    assert store.match_lines_at("t", [2, 0]) == [store.match("t", 2).dumps(), store.match("t", 0).dumps()]


def test_records_stored_together_are_one_zstandard_frame_and_each_entry_says_where(store):
    lines = [record(i).dumps() for i in range(4)]
    store.create_tournament("t", SPEC, total=4, batches=1)
    store.store_lines("t", [(2, lines[2]), (0, lines[0]), (1, lines[1])])
    matches, groups = store.key("t", "t", "matches"), store.key("t", "t", "groups")
    assert store.redis.hgetall(matches) == {b"2": b"@1:0", b"0": b"@1:1", b"1": b"@1:2"}
    frame = store.redis.hget(groups, 1)
    assert frame.startswith(ZSTD_MAGIC)
    assert zstandard.ZstdDecompressor().decompress(frame).decode() == "\n".join([lines[2], lines[0], lines[1]])
    # Together they take less room than a frame each (the reason for groups).
    single = sum(len(zstandard.ZstdCompressor(level=1).compress(line.encode())) for line in lines[:3])
    assert len(frame) < single
    store.store_lines("t", [(3, lines[3])])
    assert store.redis.hget(matches, 3) == b"@2:0"
    assert store.match("t", 0).dumps() == lines[0]
    assert store.match_lines_at("t", [3, 1, 0, 2, 7]) == [lines[3], lines[1], lines[0], lines[2]]
    assert store.match_lines("t", [1, 3]) == {1: lines[1], 3: lines[3]}
    assert [r.dumps() for r in store.matches("t")] == lines
    assert store.stored_indices("t", [0, 3, 4]) == {0, 3}


def test_a_redelivered_group_keeps_the_first_copies_and_stores_only_what_is_new(store):
    lines = [record(i).dumps() for i in range(3)]
    store.create_tournament("t", SPEC, total=3, batches=1)
    store.store_lines("t", [(0, lines[0]), (1, lines[1])])
    groups = store.key("t", "t", "groups")
    # All of it stored already: no group kept, the entries unchanged.
    assert [s.new for s in store.store_lines("t", [(1, lines[1]), (0, lines[0])])] == [False, False]
    assert store.redis.hlen(groups) == 1
    # Partly new: the new record's entry points into the new group, the others keep theirs.
    assert [s.new for s in store.store_lines("t", [(1, lines[1]), (2, lines[2])])] == [False, True]
    assert store.redis.hmget(store.key("t", "t", "matches"), [0, 1, 2]) == [b"@1:0", b"@1:1", b"@3:1"]
    assert store.redis.hlen(groups) == 2
    assert store.match_lines_at("t", [0, 1, 2]) == lines
    # The same index twice in one group: stored once, counted once.
    store.create_tournament("u", SPEC, total=5, batches=1)
    twice = store.store_lines("u", [(4, lines[0]), (4, lines[1])])
    assert [(s.new, s.done) for s in twice] == [(True, 1), (False, 1)]
    assert store.match("u", 4).dumps() == lines[0]


def test_a_group_larger_than_the_script_s_chunks_is_stored_whole_and_once(store):
    """The store script looks indices up and sets them 2,000 at a time (Lua's unpack has a limit)."""
    total = 4_500
    lines = [f'{{"n":{i}}}' for i in range(total)]
    store.create_tournament("t", SPEC, total=total, batches=1)
    first = store.store_lines("t", [(i, lines[i]) for i in range(0, total, 2)])
    assert all(s.new for s in first) and first[-1].done == total // 2
    # Again, every index: the even ones are there already, the odd ones are new.
    again = store.store_lines("t", [(i, lines[i]) for i in range(total)])
    assert [s.new for s in again] == [i % 2 == 1 for i in range(total)]
    assert again[-1].done == total and again[-1].finalize
    assert store.match_lines_at("t", list(range(total))) == lines
    assert store.redis.hget(store.key("t", "t", "matches"), total - 1) == f"@2:{total - 1}".encode()


def test_a_cancelled_tournament_stores_no_group_and_a_line_with_a_newline_is_refused(store):
    line = record(0).dumps()
    store.create_tournament("t", SPEC, total=2, batches=1)
    with pytest.raises(ValueError, match="newline"):
        store.store_lines("t", [(0, line), (1, line[:20] + "\n" + line[20:])])
    assert store.tournament("t")["done"] == 0 and store.match("t", 0) is None  # nothing stored
    store.cancel("t")
    assert [s.new for s in store.store_lines("t", [(0, line)])] == [False]
    assert store.redis.hlen(store.key("t", "t", "groups")) == 0


def test_records_stored_alone_by_earlier_versions_still_read_beside_groups(store):
    lines = [record(i).dumps() for i in range(3)]
    store.create_tournament("t", SPEC, total=3, batches=1)
    store.store_lines("t", [(0, lines[0])])
    matches = store.key("t", "t", "matches")
    # Earlier versions stored a record alone: Zstandard, and before that zlib.
    store.redis.hset(matches, 1, zstandard.ZstdCompressor(level=3).compress(lines[1].encode()))
    store.redis.hset(matches, 2, zlib.compress(lines[2].encode(), 6))
    assert store.match("t", 1).dumps() == lines[1] and store.match("t", 2).dumps() == lines[2]
    assert store.match_lines_at("t", [2, 0, 1]) == [lines[2], lines[0], lines[1]]
    assert [r.dumps() for r in store.matches("t")] == lines


def test_followers_read_the_one_match_events_of_earlier_versions(store):
    store.create_tournament("t", SPEC, total=4, batches=1)
    store.redis.xadd(store.key("t", "t", "events"), {"index": 0})  # as earlier versions wrote
    store.store_matches("t", [(1, record(1)), (2, record(2))])
    cursor, indices, found, _ = store.follow_lines("t", "0", 0)
    assert indices == [0, 1, 2] and list(found) == [1, 2]  # the old entry names no stored record
    store.store_match("t", 3, record(3))
    assert store.follow_lines("t", cursor, 0)[1] == [3]


def test_followers_read_each_event_s_group_with_its_records(store):
    lines = [record(i).dumps() for i in range(5)]
    store.create_tournament("t", SPEC, total=5, batches=1)
    store.store_lines("t", [(2, lines[2]), (0, lines[0])])
    # A redelivered group, partly new: its event names the new record's position in the group.
    store.store_lines("t", [(0, lines[0]), (1, lines[1])])
    events = [fields for _, fields in store.redis.xrange(store.key("t", "t", "events"))]
    assert events == [{b"indices": b"2,0", b"group": b"1"}, {b"indices": b"1", b"group": b"2", b"at": b"1"}]
    # Records stored alone, and an event without a group, as earlier versions wrote them.
    store.redis.hset(store.key("t", "t", "matches"), 3, zstandard.ZstdCompressor(level=3).compress(lines[3].encode()))
    store.redis.xadd(store.key("t", "t", "events"), {"indices": b"3"})
    store.redis.xadd(store.key("t", "t", "events"), {"index": 4})  # stored nowhere: no line
    cursor, indices, found, _ = store.follow_lines("t", "0", 0)
    assert indices == [2, 0, 1, 3, 4]
    assert found == {2: lines[2], 0: lines[0], 1: lines[1], 3: lines[3]} and list(found) == [2, 0, 1, 3]
    assert store.follow_lines("t", cursor, 0) == (cursor, [], {}, {})
    # What follow_lines reads is what match_lines reads.
    assert store.match_lines("t", indices) == found
    # The same index twice in one group: one record, at its first position.
    store.create_tournament("u", SPEC, total=5, batches=1)
    store.store_lines("u", [(4, lines[0]), (4, lines[1]), (3, lines[3])])
    assert store.follow_lines("u", "0", 0)[1:] == ([4, 3], {4: lines[0], 3: lines[3]}, {})


def test_a_follower_reads_about_as_many_records_as_it_asks_for_in_whole_stores(store):
    lines = [record(i).dumps() for i in range(8)]
    store.create_tournament("t", SPEC, total=8, batches=1)
    for i in range(0, 6, 2):
        store.store_lines("t", [(i, lines[i]), (i + 1, lines[i + 1])])
    cursor, indices, found, _ = store.follow_lines("t", "0", 0, records=2)
    assert indices == [0, 1] and list(found.values()) == lines[:2]
    cursor, indices, found, _ = store.follow_lines("t", cursor, 0, records=3)  # whole stores: 4
    assert indices == [2, 3, 4, 5] and list(found.values()) == lines[2:6]
    # Stores of one record each (a remote worker's flushes): read on until enough are in hand.
    store.store_lines("t", [(6, lines[6])])
    store.store_lines("t", [(7, lines[7])])
    assert store.follow_lines("t", "0", 0, records=7)[1] == list(range(7))  # stores of 2, 2, 2, 1
    assert store.follow_lines("t", "0", 0, records=8)[1] == list(range(8))
    assert store.follow_lines("t", cursor, 0, records=100)[1:] == ([6, 7], {6: lines[6], 7: lines[7]}, {})
    # A group whose retention ended is skipped: its indices come, without lines.
    store.redis.hdel(store.key("t", "t", "groups"), 1)
    assert store.follow_lines("t", "0", 0, records=1)[1:] == ([0, 1], {}, {})


def test_records_expire_after_the_retention_days(store):
    store.create_tournament("t", SPEC, total=1, batches=1)
    store.store_match("t", 0, record(0))
    store.expire_matches("t")
    for suffix in ("matches", "groups", "events"):
        ttl = store.redis.ttl(store.key("t", "t", suffix))
        assert 2 * 86400 - 5 <= ttl <= 2 * 86400, suffix
    assert store.redis.ttl(store.key("t", "t")) == -1  # the tournament itself is kept


def test_leases_limit_concurrency_and_expire(store):
    first = store.acquire("grpc://bot:1", 2, 60)
    second = store.acquire("grpc://bot:1", 2, 0.5)
    assert first and second and store.acquire("grpc://bot:1", 2, 60) is None
    assert store.acquire("grpc://other:1", 2, 60) is not None  # per endpoint
    store.release("grpc://bot:1", first)
    assert store.leases("grpc://bot:1") == 1
    time.sleep(0.6)  # the second lease's holder "died": its lease lapses
    assert store.leases("grpc://bot:1") == 0
    assert store.acquire("grpc://bot:1", 2, 60) is not None


def test_owners_get_tokens_whose_hash_alone_is_stored(store):
    token = create_owner(store, "alice")
    assert store.owner_of_token(hash_token(token)) == "alice"
    assert token.encode() not in b"".join(store.redis.hkeys(store.key("tokens")))
    with pytest.raises(ValueError, match="exists already"):
        create_owner(store, "alice")
    with pytest.raises(ValueError, match="owner name"):
        create_owner(store, "A!")
    # Names that read alike would read as one owner (an outside probe made team_a and team-a).
    create_owner(store, "team_a")
    for like in ("team-a", "team__a", "team-a-"):
        with pytest.raises(ValueError, match=f"owner '{like}' reads as 'team_a', which exists already"):
            create_owner(store, like)
    assert [name for name, _ in store.owners()] == ["alice", "team_a"]
    create_owner(store, "team-b")  # differs in more than _ and -


def test_a_cancel_landing_as_a_batch_starts_stays_cancelled(store):
    """Issue 10 E: queued -> running must never overwrite a cancel."""
    store.create_tournament("t", SPEC, total=3, batches=1)
    assert store.cancel("t") == "cancelled"
    store.mark_running("t")  # the batch that was already on its way starts
    assert store.tournament("t")["status"] == "cancelled"
    assert store.finish("t", "complete") == "cancelled"  # terminal, whoever finalises
    assert store.tournament("t")["status"] == "cancelled"


def test_nothing_is_stored_after_a_cancel_so_done_stops(store):
    store.create_tournament("t", SPEC, total=3, batches=1)
    assert store.store_match("t", 0, record(0)).new
    store.cancel("t")
    late = store.store_match("t", 1, record(1))
    assert (late.new, late.done, late.finalize) == (False, 1, False)
    assert store.tournament("t")["done"] == 1 and len(store.matches("t")) == 1
    assert store.claim_finalize("t") and not store.claim_finalize("t")


def test_cancelling_an_ended_tournament_changes_nothing_and_leaves_no_key(store):
    store.create_tournament("t", SPEC, total=1, batches=1)
    store.mark_running("t")
    store.store_match("t", 0, record(0))
    assert store.finish("t", "complete") == "complete"
    assert store.cancel("t") == "complete"
    assert store.tournament("t")["status"] == "complete"
    assert not store.redis.exists(store.key("t", "t", "cancel"))
    assert store.cancel("nope") is None


def test_of_cancels_at_once_exactly_one_cancels(store):
    """CancelTournament answers OK to the one call that cancelled (an API probe saw concurrent
    cancels all answered OK): the move says whether it moved the tournament."""
    from concurrent.futures import ThreadPoolExecutor

    store.create_tournament("t", SPEC, total=3, batches=1)
    with ThreadPoolExecutor(16) as pool:
        moved = list(pool.map(lambda _: store.cancel_live("t"), range(16)))
    assert moved.count(True) == 1 and moved.count(False) == 15
    assert store.tournament("t")["status"] == "cancelled" and store.cancel_live("nope") is None


def test_the_running_limit_is_checked_and_reserved_atomically(store):
    """Issue 10 9d: a burst of creations by one owner cannot pass the limit together."""
    from concurrent.futures import ThreadPoolExecutor

    from referee.store import ActiveLimit

    def create(n: int) -> bool:
        try:
            return store.create_tournament(f"t{n}", SPEC, 2, 1, owner="alice", limit=10)
        except ActiveLimit:
            return False

    with ThreadPoolExecutor(30) as pool:
        accepted = [n for n, ok in zip(range(30), pool.map(create, range(30)), strict=True) if ok]
    assert len(accepted) == 10 and store.active_tournaments("alice") == 10
    store.cancel(f"t{accepted[0]}")  # an ended tournament frees its place
    assert create(99) and store.active_tournaments("alice") == 10


def test_an_owner_without_a_limit_keeps_only_its_live_tournaments_in_its_active_set(store):
    """An operator has no running limit; its ended tournaments still leave its active set (the
    set once kept every tournament an operator ever made, each read at every count)."""
    for n in range(4):
        store.create_tournament(f"op{n}", SPEC, 2, 1, owner="root")
        store.cancel(f"op{n}")
    store.create_tournament("live", SPEC, 2, 1, owner="root")
    assert store.redis.smembers(store.key("owner", "root", "active")) == {b"live"}
    assert store.active_tournaments("root") == 1


def test_the_running_limit_sees_an_owners_oldest_tournaments(store):
    """Issue 10 9f: not only the newest 200 tournaments of everyone count."""
    from referee.store import ActiveLimit

    for n in range(3):
        store.create_tournament(f"old{n}", SPEC, 2, 1, owner="alice", limit=3)
    for n in range(250):
        store.create_tournament(f"other{n}", SPEC, 2, 1, owner="bob")
    with pytest.raises(ActiveLimit):
        store.create_tournament("new", SPEC, 2, 1, owner="alice", limit=3)
    # The sweeper and the metrics see every live tournament too, and ended ones leave the set.
    assert {"old0", "old1", "old2", "other0"} <= set(store.active_ids())
    store.cancel("old0")
    assert "old0" not in store.active_ids() and len(store.active_ids()) == 252


def test_threads_that_first_use_a_store_together_all_find_its_scripts(tmp_path):
    """The client is made on first use; a thread that sees it must find its scripts too (a
    burst of creations once failed with "no attribute '_create'")."""
    import sys
    import threading
    from concurrent.futures import ThreadPoolExecutor

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns every few bytecodes: the race shows
    with redis_server(tmp_path) as server, contextlib.ExitStack() as restore:
        restore.callback(sys.setswitchinterval, interval)
        for attempt in range(40):
            fresh = Store(server.url)
            start = threading.Barrier(8)

            def create(n: int, fresh: Store = fresh, start: threading.Barrier = start, attempt: int = attempt) -> bool:
                start.wait()
                return fresh.create_tournament(f"a{attempt}-{n}", SPEC, 2, 1)

            with ThreadPoolExecutor(8) as pool:
                assert all(pool.map(create, range(8)))


def test_a_group_s_tally_entries_are_kept_with_it_and_read_by_followers_of_the_same_bots(store):
    """A worker sends each record's tally entry with its group (the group's last line); a
    follower that names the tournament's bots gets them by index, positions and all."""
    lines = [record(i).dumps() for i in range(4)]
    entries = [tally_entry(MatchRecord.loads(line), {"random": 0, "heuristic": 1}) for line in lines]
    bots = list(SPEC.bots)
    store.create_tournament("t", SPEC, total=4, batches=1)
    store.store_lines("t", [(2, lines[2]), (0, lines[0])], GroupTally(bots, [entries[2], entries[0]]))
    # Partly a redelivery: only index 1 is new, at position 1 of its group.
    store.store_lines("t", [(0, lines[0]), (1, lines[1])], GroupTally(bots, [entries[0], entries[1]]))
    store.store_lines("t", [(3, lines[3])])  # a worker of an earlier version: no entries
    _, indices, found, tallied = store.follow_lines("t", "0", 0, bots=SPEC.bots)
    assert indices == [2, 0, 1, 3] and found == {i: lines[i] for i in indices}
    assert tallied == {2: entries[2], 0: entries[0], 1: entries[1]}
    # Another list of bots (or none named): the records are read, not the entries.
    assert store.follow_lines("t", "0", 0, bots=("heuristic", "random"))[3] == {}
    assert store.follow_lines("t", "0", 0)[3] == {}
    # Readers that look records up by position never see the tally line.
    assert store.match_lines_at("t", [0, 1, 2, 3]) == lines and len(store.matches("t")) == 4
    with pytest.raises(ValueError, match="1 tally entries for 2 records"):
        store.store_lines("t", [(0, lines[0]), (1, lines[1])], GroupTally(bots, [entries[0]]))


def test_a_tournament_s_tally_is_read_in_schedule_order_from_entries_where_they_are(store):
    """Finalisation reads each record's entry, else its line (an earlier worker's group, or a
    record stored alone), in schedule order and in chunks."""
    lines = [record(i).dumps() for i in range(6)]
    bot_index = {"random": 0, "heuristic": 1}
    entries = [tally_entry(MatchRecord.loads(line), bot_index) for line in lines]
    bots = list(SPEC.bots)
    store.create_tournament("t", SPEC, total=6, batches=1)
    store.store_lines("t", [(3, lines[3]), (0, lines[0])], GroupTally(bots, [entries[3], entries[0]]))
    store.store_lines("t", [(1, lines[1]), (5, lines[5])])  # no entries
    store.store_lines("t", [(2, lines[2])], GroupTally(bots, [entries[2]]))
    store.redis.hset(store.key("t", "t", "matches"), 4, zstandard.ZstdCompressor(level=3).compress(lines[4].encode()))
    expected = [entries[0], lines[1], entries[2], entries[3], lines[4], lines[5]]
    assert list(store.tallied_in_order("t", 6, SPEC.bots, chunk=4)) == expected
    assert list(store.tallied_in_order("t", 6, ("heuristic", "random"))) == lines  # another list of bots


@pytest.mark.parametrize("days", [0, 2])
def test_finishing_a_tournament_starts_its_records_retention_and_0_keeps_them_for_good(tmp_path, days):
    """Records of finished tournaments expire after retention_days ... 0 = keep forever (store docstring)."""
    from arena.tournament import play_scheduled, schedule
    from referee.players import make_player
    from workers.tasks import finalize_tournament

    spec = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2, repeats=1, seed=4)
    plan = list(schedule(spec))
    with redis_server(tmp_path) as server:
        store = Store(server.url, retention_days=days)
        store.create_tournament("t", spec, total=len(plan), batches=1)
        store.mark_running("t")
        store.store_matches("t", [(i, play_scheduled(spec, m, make_player)) for i, m in enumerate(plan)])
        assert finalize_tournament(store, "t")["status"] == "complete"
        assert (store.tournament("t") or {}).get("status") == "complete"
        for suffix in ("matches", "groups"):
            ttl = store.redis.ttl(store.key("t", "t", suffix))
            assert (ttl == -1) if days == 0 else (2 * 86400 - 5 <= ttl <= 2 * 86400), suffix
        assert len(store.matches("t")) == len(plan)  # every record still there


def test_the_running_limit_counts_running_tournaments_not_only_queued_ones(store):
    """Creating a tournament checks the owner's running-tournament limit (store docstring): one that started
    still holds its place until it ends."""
    from referee.store import ActiveLimit

    for n in range(2):
        assert store.create_tournament(f"t{n}", SPEC, 2, 1, owner="alice", limit=2)
        store.mark_running(f"t{n}")
    with pytest.raises(ActiveLimit):
        store.create_tournament("t2", SPEC, 2, 1, owner="alice", limit=2)
    assert store.active_tournaments("alice") == 2
    assert store.finish("t0", "complete") == "complete"  # an ended one frees its place
    assert store.create_tournament("t2", SPEC, 2, 1, owner="alice", limit=2)
