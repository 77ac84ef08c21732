"""Distributed tournaments on a real redis-server and real Celery prefork workers.

Equivalence with the local executor, exactly-once recording through a worker kill -9 and a
Redis restart, cancellation, and the per-bot concurrency limit (with slot recovery).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

import pytest
import redis

from arena.cli.players import make_player
from arena.executor import LocalExecutor
from arena.record import read_view
from arena.rundir import RunDirectory
from arena.tallied import GroupTally, tally_entry
from arena.tournament import TournamentSpec, schedule
from arena.tournament_run import run_tournament
from referee.store import Store, StoreRefusesWrites, decompress_line
from tests.compare import board_without_timing, canonical
from tests.remote_helpers import bot_process, misbehaving
from tests.services import ROOT, Worker, redis_server, wait_for, workers
from workers.executor import CeleryExecutor, enqueue
from workers.sweeper import StallSweeper

pytestmark = pytest.mark.timeout(300)
BOTS = ("random", "heuristic", "heuristic:risk=2")


def spec(**changes) -> TournamentSpec:
    base = dict(game="skyfive", bots=BOTS, players=2, repeats=4, seed=3)
    base.update(changes)
    return TournamentSpec(**base)


def announced(store: Store, tournament_id: str) -> list[int]:
    """Every match index the tournament's event stream announced to followers, in order."""
    cursor, indices = "0", []
    while True:
        cursor, more, _, _ = store.follow_lines(tournament_id, cursor, 0)
        if not more:
            return indices
        indices += more


def assert_exactly_once(store: Store, tournament_id: str, total: int) -> None:
    """Every scheduled match stored exactly once, and the counters agree."""
    info = store.tournament(tournament_id)
    assert info is not None
    records = store.matches(tournament_id)
    indices = [int(r.tournament["index"]) for r in records]
    assert sorted(indices) == list(range(total)), "a match is missing or duplicated"
    assert info["done"] == total == len(records)
    assert sorted(announced(store, tournament_id)) == list(range(total)), "a match was announced twice or never"


def start(
    store_url: str, tournament_id: str, s: TournamentSpec, batch_size: int | None = None, window: int | None = None
) -> None:
    """Create a tournament and send its first window, without following it (as a client that
    went away would, or as the service's fan-out does)."""
    executor = CeleryExecutor(store_url, tournament_id, batch_size=batch_size)
    assert executor.store.create_tournament(tournament_id, s, len(schedule(s)), 0)
    enqueue(executor.app, executor.store, tournament_id, s, batch_size, window)


def test_celery_and_local_executors_give_identical_records_and_leaderboards(tmp_path):
    s = spec()
    local = RunDirectory(tmp_path / "local")
    board_local = run_tournament(s, "t", local, LocalExecutor(make_player, 1))
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=2):
        remote = RunDirectory(tmp_path / "celery")
        board_celery = run_tournament(s, "t", remote, CeleryExecutor(server.url, "t-celery"))
        store = Store(server.url)
        wait_for(lambda: store.tournament("t-celery")["status"] == "complete", 30, "finalisation")
        stored_board = store.leaderboard("t-celery")
        assert_exactly_once(store, "t-celery", len(schedule(s)))
        stored = store.matches("t-celery")
        # Every group carries its records' tally entries, the ones the client would take of them.
        frames = store.redis.hvals(store.key("t", "t-celery", "groups"))
        bot_index = {name: i for i, name in enumerate(s.bots)}
        for frame in frames:
            *lines, last = decompress_line(frame).split("\n")
            tally = GroupTally.decode(last)
            assert tally is not None and tally.bots == list(s.bots)
            assert tally.entries == [tally_entry(read_view(line), bot_index) for line in lines]
        assert frames
    assert canonical(local.load_records()) == canonical(remote.load_records()) == canonical(stored)
    assert board_without_timing(board_local) == board_without_timing(board_celery)
    assert board_without_timing(stored_board)["leaderboard"] == board_without_timing(board_local)["leaderboard"]


def test_an_sprt_gauntlet_through_celery_stops_where_the_local_run_does(tmp_path):
    """The client tallies the workers' entries in schedule order, so the SPRT decides at the
    same group as a local run, and the board is that run's."""
    s = spec(bots=("heuristic", "random"), format="gauntlet", sprt=(0.0, 50.0), repeats=200)
    board_local = run_tournament(s, "t", RunDirectory(tmp_path / "local"), LocalExecutor(make_player, 1))
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=2):
        remote = RunDirectory(tmp_path / "celery")
        board_celery = run_tournament(s, "t-celery", remote, CeleryExecutor(server.url, "t-celery"))
        store = Store(server.url)
        wait_for(lambda: store.tournament("t-celery")["status"] == "stopped", 30, "the stop")
    assert board_local["sprt"]["decision"] == "H1" and board_celery["sprt"] == board_local["sprt"]
    assert board_celery["matches"] == board_local["matches"] < board_celery["scheduled"]
    assert board_without_timing(board_celery) == board_without_timing(board_local)
    assert json.loads((remote.path / "tournament.json").read_text())["status"] == "stopped"
    assert len(remote.load_records()) == board_local["matches"]
    # The store's board too (it held every match the workers played before the stop, and no
    # verdict), and a run nobody follows: its workers play the schedule out, and its board
    # still counts the matches up to the deciding group, with the verdict.
    (tmp_path / "unfollowed").mkdir()
    with redis_server(tmp_path / "unfollowed") as server, workers(server.url, tmp_path, count=1, concurrency=2):
        start(server.url, "t-alone", s)
        store = Store(server.url)
        wait_for(lambda: store.tournament("t-alone")["status"] in ("stopped", "complete"), 120, "the end")
        assert store.tournament("t-alone")["status"] == "stopped"
        alone = store.leaderboard("t-alone")
    stored_board = board_without_timing(alone)
    assert stored_board["sprt"] == board_local["sprt"] and stored_board["matches"] == board_local["matches"]
    assert stored_board["leaderboard"] == board_without_timing(board_local)["leaderboard"]


def freeze_holding_a_batch(store: Store, worker: Worker, tries: int = 40) -> set[bytes]:
    """Freeze ``worker`` (SIGSTOP to its process group) at a moment it holds a batch, and the
    deliveries it holds. A batch of a few built-in matches lasts tens of milliseconds and a
    worker can be between batches at any instant, so: freeze, and keep it frozen only if a
    delivery then stays unacknowledged (the live worker's come and go in a tenth of a second);
    else thaw it and try again a moment later."""
    for _ in range(tries):
        os.killpg(worker.process.pid, signal.SIGSTOP)
        before = set(store.redis.hkeys("unacked"))
        time.sleep(0.5)
        held = before & set(store.redis.hkeys("unacked"))
        if held:
            return held
        os.killpg(worker.process.pid, signal.SIGCONT)
        time.sleep(0.03)
    raise AssertionError(f"the worker held no batch in {tries} tries")


# A process of the app killed inside kombu's scan for dead workers' batches, holding its lock: the
# scan's range read never returns, so the lock is taken and never released (a CI run's kill -9
# froze and killed a worker at that instant).
KILLED_IN_SCAN = """
import sys, time
import redis
from workers.app import make_app

def stuck(self, *args, **kwargs):
    print("holding", flush=True)
    time.sleep(3600)

redis.Redis.zrange = stuck
app = make_app(sys.argv[1], visibility_timeout=int(sys.argv[2]))
with app.connection_for_write() as connection:
    connection.default_channel.qos.restore_visible(num=10, interval=1)
"""


@pytest.mark.parametrize("scan_killed", [False, True], ids=["kill", "kill-after-a-scan-was-killed"])
def test_kill_9_of_a_worker_loses_and_repeats_nothing(tmp_path, scan_killed):
    s = spec(repeats=40)  # 240 matches
    total = len(schedule(s))
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=2, concurrency=1, visibility=4) as ws:
        store = Store(server.url)
        if scan_killed:  # kombu's own lock (300 s) then held every redelivery back for minutes
            scan = subprocess.Popen(
                [sys.executable, "-c", KILLED_IN_SCAN, server.url, "4"], cwd=ROOT, stdout=subprocess.PIPE, text=True
            )
            assert scan.stdout is not None and scan.stdout.readline() == "holding\n"
            scan.kill()
            scan.wait()
            assert store.redis.exists("unacked_mutex"), "the killed scan left its lock"
        start(server.url, "kill", s, batch_size=4)
        wait_for(lambda: store.tournament("kill")["done"] >= 20, 60, "some progress")
        held = freeze_holding_a_batch(store, ws[0])
        ws[0].kill()
        # The dead worker's batch stays unacknowledged until the visibility timeout hands it
        # back to the queue.
        assert held & set(store.redis.hkeys("unacked")), "the killed worker's batch was acknowledged"
        wait_for(lambda: store.tournament("kill")["status"] == "complete", 180, "completion after the kill")
        assert_exactly_once(store, "kill", total)
        wait_for(lambda: store.redis.hlen("unacked") == 0, 20, "every batch acknowledged")


def test_redis_restart_with_aof_loses_nothing(tmp_path):
    s = spec(repeats=40)
    total = len(schedule(s))
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=2, visibility=10):
        store = Store(server.url)
        result: dict[str, object] = {}

        def client() -> None:  # a client following the run throughout the restart
            rundir = RunDirectory(tmp_path / "run")
            result["board"] = run_tournament(
                s, "aof", rundir, CeleryExecutor(server.url, "aof", batch_size=4, stall_seconds=5)
            )
            result["records"] = len(rundir.load_records())

        follower = threading.Thread(target=client)
        follower.start()
        wait_for(lambda: (store.tournament("aof") or {}).get("done", 0) >= 30, 60, "some progress")
        assert store.tournament("aof")["done"] < total  # the restart is mid-tournament
        server.restart(downtime=2.0)
        follower.join(240)
        assert not follower.is_alive(), "the client did not finish"
        wait_for(lambda: store.tournament("aof")["status"] == "complete", 60, "finalisation")
        assert_exactly_once(store, "aof", total)
        assert result["records"] == total


def test_a_store_that_refuses_writes_is_waited_out_and_loses_nothing(tmp_path):
    # Redis refusing writes it cannot persist (MISCONF: a full disk, a failed save) made every
    # worker exit ("Unrecoverable error"), and the tournament waited for a worker started by hand
    # (an outside operator probe). A failed save stands in for the disk here.
    s = spec(repeats=40)
    total = len(schedule(s))
    with (
        redis_server(tmp_path, "--enable-protected-configs", "yes") as server,
        workers(server.url, tmp_path, count=1, concurrency=2, visibility=10) as nodes,
    ):
        store = Store(server.url)
        start(server.url, "misconf", s, batch_size=4)
        wait_for(lambda: (store.tournament("misconf") or {}).get("done", 0) >= 20, 60, "some progress")
        admin = server.client()
        admin.config_set("save", "3600 1")
        admin.config_set("dir", "/proc")  # no file can be made there: the save fails
        admin.bgsave()

        refusals: list[type] = []

        def refusing() -> bool:
            try:
                admin.set("probe", 1)
            except redis.ResponseError as exc:
                refusals.append(type(exc))
                return "persist" in str(exc)
            return False

        wait_for(refusing, 20, "Redis to refuse writes")
        assert store.tournament("misconf")["done"] < total  # mid-tournament
        time.sleep(4)  # the workers meet it: acknowledgements, stores, heartbeats
        admin.config_set("dir", str(tmp_path))
        admin.bgsave()
        wait_for(lambda: not refusing(), 20, "Redis to take writes again")
        admin.config_set("save", "")
        wait_for(lambda: store.tournament("misconf")["status"] == "complete", 180, "the tournament to complete")
        assert_exactly_once(store, "misconf", total)
        assert all(node.process.poll() is None for node in nodes)  # no worker exited
        assert set(refusals) == {StoreRefusesWrites}  # MISCONF: a store outage, not a plain ResponseError


def test_cancel_stops_within_seconds_and_leaves_the_store_consistent(tmp_path):
    s = spec(repeats=400)  # thousands of matches: far from done when cancelled
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=2):
        store = Store(server.url)
        start(server.url, "cx", s, batch_size=20)
        wait_for(lambda: store.tournament("cx")["done"] >= 10, 60, "some progress")
        began = time.monotonic()
        out = subprocess.run(
            [sys.executable, "-m", "arena", "tournament", "cancel", "cx", "--broker", server.url, "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["status"] == "cancelled"

        def settled() -> bool:
            before = store.tournament("cx")["done"]
            time.sleep(1.0)
            return store.tournament("cx")["done"] == before

        wait_for(settled, 10, "matches to stop")
        assert time.monotonic() - began < 8
        info = store.tournament("cx")
        assert info["status"] == "cancelled" and info["done"] < info["total"]
        records = store.matches("cx")
        assert len(records) == info["done"]
        assert len({r.match_id for r in records}) == len(records)
        assert sorted(announced(store, "cx")) == sorted(int(r.tournament["index"]) for r in records)


def test_per_bot_concurrency_limit_holds_and_a_dead_workers_slot_comes_back(tmp_path):
    count_file = tmp_path / "peak"
    bot = misbehaving("concurrent", "--sleep", "0.05", "--count-file", str(count_file))
    env = {"ARENA_LEASE_SECONDS": "3"}
    with (
        bot_process(bot) as address,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=2, concurrency=3, env=env) as ws,
    ):
        store = Store(server.url)
        s = TournamentSpec(
            game="rolldice",
            bots=(address, "random", "heuristic"),
            players=2,
            repeats=6,
            bot_concurrency=2,
            options={"target": 20},
        )
        total = len(schedule(s))
        # A dead worker's slot: a lease taken and never released (as if its worker was killed).
        assert store.acquire(address, 2, 3.0) is not None
        start(server.url, "sem", s, batch_size=1)
        wait_for(lambda: store.tournament("sem")["status"] == "complete", 180, "completion")
        assert_exactly_once(store, "sem", total)
        # The limit was reached (the workers could have run 6 at once) and never exceeded.
        assert int(count_file.read_text()) == 2, "not exactly 2 concurrent matches at the peak"
        assert store.leases(address) == 0
        assert all(w.process.poll() is None for w in ws)


def test_a_lost_batch_is_enqueued_again_and_counted_once(tmp_path, caplog):
    """A batch message lost between the broker's pop and its bookkeeping (Redis going away at
    that instant) is found by the follower's stall check and played; nothing counts twice. The
    operator is told (a WARNING naming the tournament)."""
    s = spec(repeats=10)
    total = len(schedule(s))
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        start(server.url, "lost", s, batch_size=6)
        assert server.client().rpop("arena") is not None  # one batch vanishes
        with workers(server.url, tmp_path, count=1, concurrency=2), caplog.at_level("WARNING", "workers.executor"):
            received = []
            executor = CeleryExecutor(server.url, "lost", stall_seconds=2)
            executor.follow(set(range(total)), lambda record, line=None, more=False: received.append(record) and False)
            assert len(received) == total
            resent = [r for r in caplog.records if r.getMessage().startswith("lost batches sent again")]
            assert resent and resent[0].tournament == "lost" and resent[0].batches == 1  # type: ignore[attr-defined]
            wait_for(lambda: store.tournament("lost")["status"] == "complete", 60, "finalisation")
            assert_exactly_once(store, "lost", total)


def test_the_service_sweeper_recovers_a_lost_batch_with_no_client_following(tmp_path):
    from workers.app import make_app

    s = spec(repeats=5)
    total = len(schedule(s))
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        start(server.url, "swept", s, batch_size=6)
        assert server.client().rpop("arena") is not None
        with workers(server.url, tmp_path, count=1, concurrency=2):
            sweeper = StallSweeper(make_app(server.url), store, stall=1.0)

            def complete() -> bool:
                sweeper.sweep()
                return store.tournament("swept")["status"] == "complete"

            wait_for(complete, 90, "the sweeper to recover the batch", interval=0.5)
            assert_exactly_once(store, "swept", total)


def test_workers_recover_a_lost_batch_with_neither_a_client_nor_the_service(tmp_path):
    """Every worker's main process runs the stall check (workers.sweeper): a batch lost in the
    broker of a tournament nobody follows, with no `arena serve` on the store, is played, once,
    and the operator is told in a worker's log."""
    s = spec(repeats=5)
    total = len(schedule(s))
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        start(server.url, "unwatched", s, batch_size=6)
        assert server.client().rpop("arena") is not None  # one batch vanishes
        with workers(server.url, tmp_path, count=2, concurrency=1, env={"ARENA_STALL_SECONDS": "2"}) as nodes:
            wait_for(lambda: store.tournament("unwatched")["status"] == "complete", 90, "the workers' stall check")
            assert_exactly_once(store, "unwatched", total)
            logs = "".join(node.log.read_text() for node in nodes)
            assert logs.count("lost batches sent again") == 1, logs  # one sweeper checked it, not both
            assert "Traceback" not in logs


def test_a_tournament_cancelled_after_its_batch_was_lost_still_gets_its_board(tmp_path):
    """The first batch that sees a cancel stores the cancelled board; a tournament whose only
    message was lost in the broker has no batch to see it, and the stall check looked only at
    queued or running tournaments: cancelled, no board, ever (an outside chaos probe). Now a
    cancelled tournament stays in `active` until its board is stored, and the stall check
    finalises it."""
    s = spec(repeats=5)
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        start(server.url, "lostcx", s, batch_size=6, window=1)
        assert server.client().rpop("arena") is not None  # its one queued batch vanishes
        assert store.cancel("lostcx") == "cancelled"
        assert store.cancelled_without_board() == ["lostcx"] and store.active_ids() == []
        with workers(server.url, tmp_path, count=1, concurrency=1, env={"ARENA_STALL_SECONDS": "2"}) as (node,):
            wait_for(lambda: store.leaderboard("lostcx") is not None, 60, "the cancelled board")
        board = store.leaderboard("lostcx")
        assert board["status"] == "cancelled" and store.tournament("lostcx")["status"] == "cancelled"
        assert store.cancelled_without_board() == []  # and out of `active` with its board
        assert "a cancelled tournament had no board" in node.log.read_text()


def test_one_sweeper_checks_a_stalled_tournament_however_many_see_it(tmp_path):
    """The service's and every worker's sweepers take a tournament's claim before they check it:
    the first checks, the others not for the next stall period."""
    from workers.app import make_app

    with redis_server(tmp_path) as server:
        store = Store(server.url)
        start(server.url, "stalled", spec(repeats=2), batch_size=6)
        app = make_app(server.url)
        sweepers = [StallSweeper(app, store, stall=0.5) for _ in range(3)]
        for sweeper in sweepers:
            assert sweeper.sweep() == 0  # first sight: done noted, nothing stalled yet
        time.sleep(0.6)
        assert [sweeper.sweep() for sweeper in sweepers] == [1, 0, 0]
        time.sleep(0.6)  # the claim lapsed
        assert [sweeper.sweep() for sweeper in reversed(sweepers)] == [1, 0, 0]


def test_a_cancelled_distributed_run_says_so_everywhere(tmp_path):
    """Issue 10 6 and 20: the following client exits non-zero saying "cancelled"; one status
    everywhere (store, tournament.json, both leaderboards); the board of what was played is
    stored and marked; the finished counter counts it; done stops; a cancel of an ended run is
    refused and leaves no key."""
    from tests.services import metric

    out = tmp_path / "run"
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=2) as (worker,):
        store = Store(server.url)
        args = ["tournament", "--game", "skyfive", "--bots", ",".join(BOTS), "--repeats", "400", "--seed", "3"]
        args += ["--broker", server.url, "--out", str(out), "--json"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        follower = subprocess.Popen(
            [sys.executable, "-m", "arena", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        try:
            status_file = out / "tournament.json"
            tournament_id = wait_for(
                lambda: status_file.exists() and json.loads(status_file.read_text())["id"], 60, "id"
            )
            wait_for(lambda: (store.tournament(tournament_id) or {}).get("done", 0) >= 10, 60, "some progress")
            cancel = ["tournament", "cancel", tournament_id, "--broker", server.url]
            done = subprocess.run([sys.executable, "-m", "arena", *cancel], capture_output=True, text=True, cwd=ROOT)
            assert done.returncode == 0, done.stderr
            _, err = follower.communicate(timeout=60)
        finally:
            follower.kill()
            follower.wait()
        assert follower.returncode == 1 and "cancelled" in err, err
        assert json.loads(status_file.read_text())["status"] == "cancelled"
        assert json.loads((out / "leaderboard.json").read_text())["status"] == "cancelled"
        board = wait_for(lambda: store.leaderboard(tournament_id), 30, "the stored leaderboard")
        info = store.tournament(tournament_id)
        assert info["status"] == board["status"] == "cancelled" and board["matches"] == info["done"] < info["total"]
        time.sleep(1.0)
        assert store.tournament(tournament_id)["done"] == info["done"]
        finished = wait_for(
            lambda: metric(worker.scrape(), "arena_tournaments_finished_total", status="cancelled"), 30, "the counter"
        )
        assert finished == 1
        again = subprocess.run([sys.executable, "-m", "arena", *cancel], capture_output=True, text=True, cwd=ROOT)
        assert again.returncode == 2 and "already ended" in again.stderr

        start(server.url, "small", spec(repeats=1), batch_size=6)
        wait_for(lambda: store.tournament("small")["status"] == "complete", 60, "a complete tournament")
        late = ["tournament", "cancel", "small", "--broker", server.url]
        refused = subprocess.run([sys.executable, "-m", "arena", *late], capture_output=True, text=True, cwd=ROOT)
        assert refused.returncode != 0 and "already ended (complete)" in refused.stderr
        assert not store.redis.exists(store.key("t", "small", "cancel"))
        assert store.tournament("small")["status"] == "complete"
    # Issue 10 24: at INFO a worker writes one line per batch (and per tournament), not per task.
    lines = [json.loads(line) for line in worker.log.read_text().splitlines() if line.startswith("{")]
    per_task = [line for line in lines if line["logger"] in ("celery.app.trace", "celery.worker.strategy")]
    assert not per_task, per_task[:3]
    ours = {line["message"] for line in lines if line["logger"] == "workers.tasks"}
    assert "batch done" in ours and ours <= {"batch done", "tournament started", "tournament finished"}


def test_a_finished_tournament_is_finalised_ahead_of_other_tournaments_batches(tmp_path):
    """Finalisation has a queue of its own that every worker also takes from: in the batches'
    queue it waited behind every batch sent before it (an outside operator probe saw a
    tournament sit at `running 9000/9000` for 40 s behind another's remote batches). One pool
    process; a quick tournament's batches first in the queue, six one-second batches of
    another after it: the quick one ends once one or two of them have played, not six."""
    quick = spec(repeats=1)
    with redis_server(tmp_path) as server, bot_process(misbehaving("sleep", "--at", "0", "--sleep", "1")) as slow:
        store = Store(server.url)
        start(server.url, "quick", quick, batch_size=len(schedule(quick)))
        sleepy = TournamentSpec(
            game="rolldice", bots=(slow, "random"), players=2, repeats=3, clock={"decision": 30_000}
        )
        start(server.url, "sleepy", sleepy, batch_size=1, window=6)
        assert server.client().llen("arena") == store.tournament("quick")["batches"] + 6  # the quick one's first
        with workers(server.url, tmp_path, count=1, concurrency=1):
            wait_for(lambda: store.tournament("quick")["status"] == "complete", 120, "the quick tournament's end")
            assert store.tournament("sleepy")["done"] <= 2
            wait_for(lambda: store.tournament("sleepy")["status"] == "complete", 120, "the other's end")


def test_a_worker_never_holds_a_match_past_its_bound(tmp_path):
    """Issue 10 9b: however generous the clock, a worker ends a match after ARENA_MATCH_SECONDS
    (3 s here): the remote seat still asked gets a timeout and the match is played out."""
    with (
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=1, env={"ARENA_MATCH_SECONDS": "3"}),
        bot_process(misbehaving("sleep", "--at", "0", "--sleep", "120")) as slow,
    ):
        store = Store(server.url)
        s = TournamentSpec(game="rolldice", bots=(slow, "random"), players=2, clock={"decision": 60_000})
        began = time.monotonic()
        start(server.url, "bounded", s, batch_size=1)
        wait_for(lambda: store.tournament("bounded")["status"] == "complete", 60, "completion")
        assert time.monotonic() - began < 30
        for record in store.matches("bounded"):
            (failure,) = record.failures
            assert failure.verdict == "timeout" and "ARENA_MATCH_SECONDS" in failure.detail
            assert record.ms < 10_000


def test_a_cancel_no_batch_saw_still_leaves_the_cancelled_board(tmp_path):
    # A batch sees a cancel between matches (every quarter second): one that finished inside
    # that gap sent no successor (cancelled) and ended, so nothing finalised the tournament and
    # its board never came (3 of 8 here, with a window of one batch). Cancels land at random.
    rng = random.Random(1)
    with redis_server(tmp_path) as server, workers(server.url, tmp_path, count=1, concurrency=1, visibility=4):
        store = Store(server.url)
        for n in range(8):
            tournament_id = f"cx{n}"
            s = spec(game="rolldice", bots=("random", "heuristic"), repeats=400, seed=n, options={"target": 1})
            start(server.url, tournament_id, s, batch_size=2, window=1)
            wait_for(lambda t=tournament_id: (store.tournament(t) or {}).get("done", 0) >= 50, 30, "progress")
            time.sleep(rng.uniform(0, 0.3))
            assert store.cancel(tournament_id) == "cancelled"
            wait_for(lambda t=tournament_id: store.leaderboard(t) is not None, 20, f"{tournament_id}'s cancelled board")


def test_a_following_client_waits_for_the_finalised_status_and_board(tmp_path):
    """`arena tournament --broker` had every record and returned while the worker that stored
    the last one was still finalising: the store (its page, `tournament status`) said running.
    The wait ends when the status is final and the board stored, not before, and is bounded."""
    with redis_server(tmp_path) as server:
        executor = CeleryExecutor(server.url, "fin", stall_seconds=30)
        store = executor.store
        assert store.create_tournament("fin", spec(), len(schedule(spec())), 0)
        began = time.monotonic()
        assert executor.wait_finalised(timeout=0.5) is False  # nothing finalises it
        assert time.monotonic() - began >= 0.5

        def finalise() -> None:  # what finalize_tournament writes, in its order, a moment later
            time.sleep(0.4)
            store.save_leaderboard("fin", {"status": "complete"})
            time.sleep(0.4)
            store.finish("fin", "complete")

        thread = threading.Thread(target=finalise)
        began = time.monotonic()
        thread.start()
        try:
            assert executor.wait_finalised(timeout=60) is True
            waited = time.monotonic() - began
        finally:
            thread.join()
        assert waited >= 0.8  # the board alone (at 0.4 s) was not enough: the status too
        assert store.tournament("fin")["status"] == "complete"
        store.redis.delete(store.key("t", "fin"))
        began = time.monotonic()
        assert executor.wait_finalised(timeout=60) is False  # gone from the store: no wait
        assert time.monotonic() - began < 30
