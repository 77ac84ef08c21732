"""Issue 11: concurrent remote matches in a worker process, bounded queues, fairness, cancel.

Real redis-server, real ``arena worker`` processes (Celery prefork), real bot servers over
gRPC on loopback. Nothing here asserts a duration: orderings and counts only.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from arena.cli.players import make_player
from arena.executor import LocalExecutor
from arena.rundir import RunDirectory
from arena.tournament import TournamentSpec, schedule
from arena.tournament_run import run_tournament
from referee.store import Store, batch_count
from tests.compare import board_without_timing, canonical
from tests.remote_helpers import bot_process, misbehaving, served
from tests.services import redis_server, wait_for, workers
from tests.test_distributed import announced, assert_exactly_once, freeze_holding_a_batch, start
from workers.app import QUEUE
from workers.executor import CeleryExecutor
from workers.tasks import FLUSH_RECORDS, MAX_BATCH, auto_batch_size

pytestmark = pytest.mark.timeout(300)


def instant(repeats: int) -> TournamentSpec:
    """Matches of about a millisecond (RollDice to 1 point; 20 matches per repeat)."""
    bots = ("random", "heuristic", "heuristic:threshold=2", "heuristic:threshold=4", "heuristic:threshold=5")
    return TournamentSpec(game="rolldice", bots=bots, players=2, repeats=repeats, options={"target": 1})


class Sampler:
    """Samples the queue's length and a tournament's window while a test runs."""

    def __init__(self, store: Store, tournament_id: str) -> None:
        self.store = store
        self.tournament_id = tournament_id
        self.queue: list[int] = []
        self.window: list[int] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        key = self.store.key("t", self.tournament_id, "inflight")
        while not self.stop.is_set():
            self.queue.append(int(self.store.redis.llen(QUEUE)))
            self.window.append(int(self.store.redis.hlen(key)))
            time.sleep(0.005)

    def __enter__(self) -> Sampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(10)


def test_a_big_tournament_never_has_more_than_its_window_queued(tmp_path):
    s = instant(repeats=100)  # 2,000 matches in batches of 5 (the last 5 in 3 of at most 2)
    total = len(schedule(s))
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=2):
        store = Store(server.url)
        with Sampler(store, "big") as sampled:
            start(server.url, "big", s, batch_size=5, window=4)
            wait_for(lambda: store.tournament("big")["status"] == "complete", 240, "completion")
        assert_exactly_once(store, "big", total)
        assert store.tournament("big")["batches"] == batch_count(total, 5) == 402
        assert len(sampled.queue) > 50
        # The window (4) and, at the very end, the finalisation message: never O(batches).
        assert max(sampled.queue) <= 4 + 1, max(sampled.queue)
        assert max(sampled.window) <= 4
        assert max(sampled.queue) >= 1  # the sampler did see the queue in use
        assert not store.redis.exists(store.key("t", "big", "inflight"))  # closed by finalisation


def test_a_batch_of_instant_matches_is_stored_in_groups_while_it_plays(tmp_path):
    """A batch hands its records to the store every FLUSH_RECORDS matches, not all at its end
    (where the store's round trip and compression would follow the playing instead of
    overlapping it)."""
    s = instant(repeats=6)  # 120 matches, one batch
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=1):
        store = Store(server.url)
        start(server.url, "grouped", s, batch_size=120)
        wait_for(lambda: store.tournament("grouped")["status"] == "complete", 120, "completion")
        assert_exactly_once(store, "grouped", 120)
        groups = [
            fields[b"indices"].split(b",") for _, fields in store.redis.xrange(store.key("t", "grouped", "events"))
        ]
    assert len(groups) >= -(-120 // FLUSH_RECORDS)
    assert max(len(g) for g in groups) <= FLUSH_RECORDS


def test_built_in_batches_are_a_sixteenth_of_the_tournament_up_to_the_cap():
    built_in = instant(repeats=1)
    remote = dataclasses.replace(built_in, bots=("random", "grpc://127.0.0.1:1"))
    assert auto_batch_size(built_in, 100) == 7  # 15 batches: a window's worth (16) at most
    assert auto_batch_size(built_in, 10_000) == 500 == MAX_BATCH  # 625 capped
    assert auto_batch_size(built_in, 1) == 1
    assert auto_batch_size(remote, 10_000) == 64


def test_a_later_tournament_progresses_while_a_big_one_still_runs(tmp_path):
    big, small = instant(repeats=150), instant(repeats=1)  # 3,000 matches; 20
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=1):
        store = Store(server.url)
        start(server.url, "first", big, batch_size=5, window=4)
        wait_for(lambda: store.tournament("first")["done"] >= 20, 60, "the first tournament to run")
        start(server.url, "later", small, batch_size=5, window=4)
        wait_for(lambda: store.tournament("later")["status"] == "complete", 120, "the later tournament")
        first = store.tournament("first")
        # Round-robin in the queue: the later one did not wait for the first to end.
        assert first["status"] == "running" and first["done"] < first["total"], first["done"]
        wait_for(lambda: store.tournament("first")["status"] == "complete", 240, "the first tournament")
        assert_exactly_once(store, "first", len(schedule(big)))
        assert_exactly_once(store, "later", len(schedule(small)))


def test_cancelling_a_big_tournament_frees_the_workers_at_once(tmp_path):
    huge = instant(repeats=2_000)  # 40,000 matches: would be 8,000 queued batches of 5
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=1):
        store = Store(server.url)
        start(server.url, "huge", huge, batch_size=5, window=4)
        wait_for(lambda: store.tournament("huge")["done"] >= 20, 60, "the big tournament to run")
        assert store.cancel("huge") == "cancelled"
        queued_at_cancel = int(store.redis.llen(QUEUE))
        start(server.url, "next", instant(repeats=1), batch_size=5, window=4)
        wait_for(lambda: store.tournament("next")["status"] == "complete", 60, "the next tournament")
        assert queued_at_cancel <= 4  # all the cancelled tournament had queued: its window
        wait_for(lambda: store.redis.llen(QUEUE) == 0, 30, "an empty queue")
        info = store.tournament("huge")
        assert info["status"] == "cancelled" and info["done"] < 200
        assert_exactly_once(store, "next", 20)
        wait_for(lambda: store.leaderboard("huge"), 30, "the cancelled board")
        assert store.leaderboard("huge")["status"] == "cancelled"


def test_a_worker_process_plays_k_remote_matches_at_once(tmp_path):
    """One worker process, ``--matches-per-process 4``: the bot sees exactly 4 matches at once
    (K bounds it; the bot's limit, 8, does not bind)."""
    count_file = tmp_path / "peak"
    bot = misbehaving("concurrent", "--sleep", "0.1", "--count-file", str(count_file))
    with (
        bot_process(bot) as address,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=1, env={"ARENA_MATCHES_PER_PROCESS": "4"}),
    ):
        store = Store(server.url)
        s = TournamentSpec(
            game="rolldice",
            bots=(address, "random", "heuristic"),
            players=2,
            repeats=3,
            bot_concurrency=8,
            options={"target": 20},
        )
        start(server.url, "k", s, batch_size=12)
        wait_for(lambda: store.tournament("k")["status"] == "complete", 120, "completion")
        assert_exactly_once(store, "k", len(schedule(s)))
        assert int(count_file.read_text()) == 4


def test_the_per_bot_limit_holds_across_processes_with_concurrent_matches(tmp_path):
    """Two worker processes, 8 matches each at once: the bot's limit (3) bounds it overall."""
    count_file = tmp_path / "peak"
    bot = misbehaving("concurrent", "--sleep", "0.1", "--count-file", str(count_file))
    with (
        bot_process(bot) as address,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=2, concurrency=1, env={"ARENA_MATCHES_PER_PROCESS": "8"}),
    ):
        store = Store(server.url)
        s = TournamentSpec(
            game="rolldice",
            bots=(address, "random", "heuristic"),
            players=2,
            repeats=4,
            bot_concurrency=3,
            options={"target": 20},
        )
        start(server.url, "limit", s, batch_size=8)
        wait_for(lambda: store.tournament("limit")["status"] == "complete", 120, "completion")
        assert_exactly_once(store, "limit", len(schedule(s)))
        assert int(count_file.read_text()) == 3
        assert store.leases(address) == 0


def remote_spec(a: str, b: str, repeats: int) -> TournamentSpec:
    return TournamentSpec(
        game="rolldice",
        bots=(a, b, "random"),
        players=2,
        repeats=repeats,
        seed=7,
        bot_concurrency=16,
        options={"target": 30},
    )


def test_concurrent_remote_matches_give_the_local_runs_records_and_leaderboard(tmp_path):
    with (
        bot_process(served("heuristic", "rolldice")) as heuristic,
        bot_process(served("random", "rolldice")) as rnd,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=2, env={"ARENA_MATCHES_PER_PROCESS": "8"}),
    ):
        s = remote_spec(heuristic, rnd, repeats=4)
        local = RunDirectory(tmp_path / "local")
        board_local = run_tournament(s, "t", local, LocalExecutor(make_player, 1))
        remote = RunDirectory(tmp_path / "celery")
        board_celery = run_tournament(s, "t", remote, CeleryExecutor(server.url, "remote", batch_size=8))
        store = Store(server.url)
        wait_for(lambda: store.tournament("remote")["status"] == "complete", 60, "finalisation")
        assert_exactly_once(store, "remote", len(schedule(s)))
        stored = store.matches("remote")
    assert canonical(local.load_records()) == canonical(remote.load_records()) == canonical(stored)
    assert board_without_timing(board_local) == board_without_timing(board_celery)


def pool_processes(worker_pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(worker_pid)], capture_output=True, text=True)
    return [int(pid) for pid in out.stdout.split()]


def test_kill_9_of_a_pool_process_playing_concurrent_remote_matches_loses_and_repeats_nothing(tmp_path):
    first = [sys.executable, "-m", "bench.first_bot", "--port", "0", "--delay", "0.01"]
    with (
        bot_process(served("random", "rolldice")) as rnd,
        bot_process(first) as quick,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=2, env={"ARENA_MATCHES_PER_PROCESS": "8"}) as (worker,),
    ):
        s = remote_spec(rnd, quick, repeats=20)
        total = len(schedule(s))
        store = Store(server.url)
        start(server.url, "pool", s, batch_size=8, window=4)
        wait_for(lambda: store.tournament("pool")["done"] >= 15, 120, "some progress")
        (victim, *_) = pool_processes(worker.process.pid)
        os.kill(victim, signal.SIGKILL)  # Celery replaces it and requeues its batch at once
        wait_for(lambda: store.tournament("pool")["status"] == "complete", 240, "completion after the kill")
        assert_exactly_once(store, "pool", total)
        assert worker.process.poll() is None


def test_redis_restart_with_concurrent_remote_matches_loses_nothing(tmp_path):
    first = [sys.executable, "-m", "bench.first_bot", "--port", "0", "--delay", "0.01"]
    with (
        bot_process(served("random", "rolldice")) as rnd,
        bot_process(first) as quick,
        redis_server(tmp_path) as server,
        workers(
            server.url, tmp_path, count=1, concurrency=2, visibility=10, env={"ARENA_MATCHES_PER_PROCESS": "8"}
        ) as ws,
    ):
        s = remote_spec(rnd, quick, repeats=25)
        total = len(schedule(s))
        store = Store(server.url)
        result: dict[str, object] = {}

        def client() -> None:  # a client following the run throughout the restart
            rundir = RunDirectory(tmp_path / "run")
            executor = CeleryExecutor(server.url, "aof", batch_size=8, stall_seconds=5, window=4)
            result["board"] = run_tournament(s, "aof", rundir, executor)
            result["records"] = len(rundir.load_records())

        follower = threading.Thread(target=client)
        follower.start()
        wait_for(lambda: (store.tournament("aof") or {}).get("done", 0) >= 20, 120, "some progress")
        assert store.tournament("aof")["done"] < total  # the restart is mid-tournament
        server.restart(downtime=2.0)
        follower.join(240)
        # Once, the worker itself had died at the restart (workers/consumer.py): say so.
        alive, log = ws[0].process.poll() is None, ws[0].log.read_text()[-3000:]
        assert not follower.is_alive(), f"the client did not finish; worker alive {alive}; its log:\n{log}"
        wait_for(lambda: store.tournament("aof")["status"] == "complete", 60, "finalisation")
        assert_exactly_once(store, "aof", total)
        assert result["records"] == total


def test_kill_9_with_concurrent_remote_matches_loses_and_repeats_nothing(tmp_path):
    delayed = ["--delay", "0.01"]
    first = [sys.executable, "-m", "bench.first_bot", "--port", "0", *delayed]
    with (
        bot_process(served("random", "rolldice")) as rnd,
        bot_process(first) as quick,
        redis_server(tmp_path) as server,
        workers(
            server.url, tmp_path, count=2, concurrency=1, visibility=4, env={"ARENA_MATCHES_PER_PROCESS": "8"}
        ) as ws,
    ):
        s = remote_spec(rnd, quick, repeats=20)  # 120 remote-bot matches
        total = len(schedule(s))
        store = Store(server.url)
        start(server.url, "kill", s, batch_size=8, window=4)
        wait_for(lambda: store.tournament("kill")["done"] >= 15, 120, "some progress")
        held = freeze_holding_a_batch(store, ws[0])  # killed while it plays a batch, not between
        ws[0].kill()
        assert held & set(store.redis.hkeys("unacked")), "the killed worker's batch was acknowledged"
        wait_for(lambda: store.tournament("kill")["status"] == "complete", 240, "completion after the kill")
        assert_exactly_once(store, "kill", total)
        wait_for(lambda: store.redis.hlen("unacked") == 0, 20, "every batch acknowledged")


def test_cancel_with_concurrent_remote_matches_stops_them_and_stores_nothing_after(tmp_path):
    slow = [sys.executable, "-m", "bench.first_bot", "--port", "0", "--delay", "0.05"]
    with (
        bot_process(slow) as a,
        bot_process(slow) as b,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=1, env={"ARENA_MATCHES_PER_PROCESS": "16"}),
    ):
        store = Store(server.url)
        s = remote_spec(a, b, repeats=100)
        start(server.url, "rcx", s, batch_size=32)
        wait_for(lambda: store.tournament("rcx")["done"] >= 5, 120, "some progress")
        store.cancel("rcx")

        def settled() -> bool:
            before = store.tournament("rcx")["done"]
            time.sleep(1.5)
            return store.tournament("rcx")["done"] == before

        wait_for(settled, 30, "matches to stop")
        info = store.tournament("rcx")
        assert info["status"] == "cancelled" and info["done"] < info["total"]
        records = store.matches("rcx")
        assert len(records) == info["done"]
        assert sorted(announced(store, "rcx")) == sorted(int(r.tournament["index"]) for r in records)
        wait_for(lambda: store.leases(a) == 0 and store.leases(b) == 0, 30, "every lease given back")


def test_matches_per_process_must_be_positive():
    args = [sys.executable, "-m", "arena", "worker", "--matches-per-process", "0", "--broker", "redis://127.0.0.1:1/0"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--matches-per-process must be at least 1, got 0" in done.stderr


def test_a_batch_delivered_again_while_its_first_copy_plays_starts_no_match_twice(tmp_path):
    # Batches of 0.3 s decisions outlast a 4 s visibility timeout: each is delivered again while
    # its first copy still plays, and the second copy sends the batches the first took over
    # again (it thinks the first dead). The first copy took one back while still playing its
    # matches, started a match twice, and failed in a KeyError; Celery then dropped its message
    # and the tournament hung with nobody following it.
    slow = misbehaving("concurrent", "--sleep", "0.3", "--count-file", str(tmp_path / "peak"))
    with (
        bot_process(slow) as bot,
        redis_server(tmp_path) as server,
        workers(
            server.url,
            tmp_path,
            count=1,
            concurrency=2,
            visibility=4,
            env={"ARENA_MATCHES_PER_PROCESS": "8"},
            metrics=False,
            extra=("--loglevel", "DEBUG"),  # its log shows each batch's steps (and their timing let it happen)
        ) as (worker,),
    ):
        s = TournamentSpec(
            game="rolldice",
            bots=(bot, "random"),
            players=2,
            repeats=60,
            seed=4,
            options={"target": 10},
            bot_concurrency=16,
        )
        total = len(schedule(s))
        store = Store(server.url)
        start(server.url, "ke", s, batch_size=2, window=4)  # this id's matches: the race, every time seen
        wait_for(lambda: store.tournament("ke")["status"] == "complete", 150, "completion")
        assert_exactly_once(store, "ke", total)
        assert "raised unexpected" not in worker.log.read_text()


def test_a_batch_delivered_again_takes_no_other_batch_over(tmp_path):
    # A copy delivered again may have a live first copy, and kombu gives both one delivery tag:
    # the first's acknowledgement clears this one's, so batches this copy took over had no
    # message left when its worker died (outside chaos probe). Such a copy plays its own batch
    # only. The window's first batches are queued marked redelivered (as kombu marks a restored
    # message) before any worker runs; a batch taken over is a running entry naming its taker.
    first = [sys.executable, "-m", "bench.first_bot", "--port", "0", "--delay", "0.02"]
    with bot_process(first) as quick, redis_server(tmp_path) as server:
        s = remote_spec(quick, quick, repeats=10)
        total = len(schedule(s))
        store = Store(server.url)
        start(server.url, "redo", s, batch_size=2, window=4)
        queued = store.redis.lrange(QUEUE, 0, -1)
        assert len(queued) == 4
        for i, raw in enumerate(queued):
            message = json.loads(raw)
            message["headers"]["redelivered"] = True
            message["properties"]["delivery_info"]["redelivered"] = True
            store.redis.lset(QUEUE, i, json.dumps(message))
        again = {str(number) for number in range(4)}  # the batches delivered again
        taken_over: set[str] = set()
        with workers(server.url, tmp_path, count=1, concurrency=1, env={"ARENA_MATCHES_PER_PROCESS": "8"}):
            deadline = time.monotonic() + 120
            while store.tournament("redo")["status"] != "complete":
                assert time.monotonic() < deadline, "the tournament did not complete"
                for entry in store.inflight("redo").values():
                    state, _, _, *source = entry.split()
                    if state == "r" and source:
                        taken_over.add(source[0])
                time.sleep(0.01)
        assert_exactly_once(store, "redo", total)
        assert taken_over, "no batch took another over: the test shows nothing"
        assert not taken_over & again, taken_over


def test_a_worker_told_to_stop_plays_out_what_it_holds_and_takes_no_more(tmp_path):
    # After a SIGTERM a batch in hand went on taking queued batches of its tournament for up to
    # 30 s (988 matches after the stop; an outside operator probe): it now plays out what it
    # holds, at most its process's slots, and takes nothing more.
    first = [sys.executable, "-m", "bench.first_bot", "--port", "0", "--delay", "0.05"]
    with (
        bot_process(first) as quick,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=1, env={"ARENA_MATCHES_PER_PROCESS": "16"}) as nodes,
    ):
        store = Store(server.url)
        s = TournamentSpec(game="rolldice", bots=(quick, "random"), players=2, repeats=300, options={"target": 20})
        start(server.url, "halt", s, batch_size=4)
        wait_for(lambda: store.tournament("halt")["done"] >= 8, 60, "some matches")
        node = nodes[0]
        os.kill(node.process.pid, signal.SIGTERM)  # the main process only, as `docker stop` sends it
        at_stop = store.tournament("halt")["done"]
        node.process.wait(90)
        after = store.tournament("halt")["done"]
        assert after - at_stop <= 16 + 4, (at_stop, after)  # what its 16 slots held, and its batch
        assert after < len(schedule(s))
