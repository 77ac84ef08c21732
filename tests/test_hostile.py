"""Hostile bots cannot hang or bloat the referee (issue 10, A and C), and cancel ends a running
match within seconds, in-process, locally and on Celery workers.

Every bot is a real process: tests/bots/h2_stall.py speaks HTTP/2 by hand (no handshake, a zero
flow-control window from the start or from a chosen decision on), tests/bots/misbehaving.py
floods or sleeps."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from arena.cli.players import make_player
from arena.clock import clock_settings
from arena.executor import LocalExecutor
from arena.games.rolldice import GAME
from arena.rundir import RunDirectory
from arena.runner import ErrorPolicy, FunctionPlayer, MatchCancelled, play_match
from arena.tournament import TournamentSpec
from arena.tournament_run import run_tournament
from referee import remote
from referee.remote import RemotePlayer
from referee.store import Store
from tests.remote_helpers import ROOT, bot_process, misbehaving
from tests.services import redis_server, wait_for, workers
from tests.test_distributed import start
from tests.test_remote import FAST_CLOCK, play, seat0_decision

pytestmark = pytest.mark.timeout(180)

CONFIG = GAME.config(2, {"target": 60})
PATIENT = clock_settings({"decision": 120_000, "bank": 0, "startup": 5000})
"""A clock that would let a slow bot hold the match for minutes: only a cancel can end it sooner."""


def h2_bot(behaviour: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        str(ROOT / "tests" / "bots" / "h2_stall.py"),
        "--behaviour",
        behaviour,
        "--port",
        "0",
        *extra,
    ]


def timed(address: str) -> tuple[object, float]:
    began = time.monotonic()
    record = play(address)
    return record, time.monotonic() - began


@pytest.mark.parametrize("behaviour", ["silent", "zero-window"])
def test_a_peer_that_never_takes_the_start_message_is_a_stall_at_the_startup_allowance(behaviour):
    with bot_process(h2_bot(behaviour)) as address:
        record, seconds = timed(address)
    (failure,) = record.failures
    assert (failure.seat, failure.decision, failure.verdict) == (0, -1, "stall"), failure
    assert FAST_CLOCK.startup_ms / 1000 - 0.1 < seconds < FAST_CLOCK.startup_ms / 1000 + 5
    assert record.result["forfeited"] == [True, False]


def test_a_bot_that_stops_reading_mid_match_times_out_on_the_decision_clock():
    with bot_process(h2_bot("stop-reading", "--at", "1")) as address:
        record, seconds = timed(address)
    (failure,) = record.failures
    assert (failure.seat, failure.verdict) == (0, "timeout"), failure
    assert failure.decision == seat0_decision(record, 2)  # the first request it could not take
    assert "does not read" in failure.detail
    assert seconds < 15
    assert record.result["forfeited"] == [True, False]


def test_a_flooding_bot_is_a_protocol_verdict_and_its_flood_is_not_buffered(tmp_path):
    count = tmp_path / "sent"
    # Seat 0 thinks for 3 s on its first decision: meanwhile seat 1, not asked anything, floods.
    slow = misbehaving("sleep", "--at", "0", "--sleep", "3")
    clock = clock_settings({"decision": 5000, "bank": 0, "startup": 5000})
    with bot_process(slow) as thinker, bot_process(misbehaving("flood", "--count-file", str(count))) as flooder:
        record = play_match(GAME, CONFIG, 4, [RemotePlayer(thinker), RemotePlayer(flooder)], clock=clock)
    (failure,) = record.failures
    assert (failure.seat, failure.verdict) == (1, "protocol")
    # Its first decision reads the first unsolicited message (request_id 0) and judges it.
    assert failure.detail.startswith("answered with request_id 0 (decision_index 0) while decision")
    assert record.decisions[failure.decision].seat == 1
    # The referee read one message beyond what it asked for and no more: HTTP/2 flow control then
    # held the bot back after a few MB (it would send all 20,000 x 4 KB to a referee that buffers).
    assert int(count.read_text()) < 10_000


@pytest.fixture
def most_held(monkeypatch):
    """The most messages a stream of the referee held unread by any decision, in the test."""
    most = [0]
    put = remote._Stream._put

    def counted(stream, item):
        put(stream, item)
        most[0] = max(most[0], len(stream.inbox))

    monkeypatch.setattr(remote._Stream, "_put", counted)
    return most


def test_a_bot_that_floods_and_never_answers_is_judged_a_message_a_decision_and_never_buffered(tmp_path, most_held):
    # Each decision judged one unsolicited message and, asking again, let the reader read one
    # more, so the referee held one more a decision: 1,126 after 1,127 decisions (an outside
    # review).
    count = tmp_path / "sent"
    with bot_process(misbehaving("flood", "--count-file", str(count))) as address:
        record = play(address, ErrorPolicy("substitute", budget=100))
    mine = [i for i, d in enumerate(record.decisions) if d.seat == 0]
    assert len(mine) > 10 and [f.decision for f in record.failures] == mine
    assert all(f.detail.startswith("answered with request_id 0 (decision_index 0)") for f in record.failures)
    assert most_held[0] <= remote.READ_AHEAD
    assert int(count.read_text()) < 10_000


def test_a_bot_that_floods_when_its_match_ends_is_read_and_dropped(tmp_path, most_held):
    # Once the match was over for it, the reader read on without a cap and kept it all: 194-307
    # MB held by one seat's close (an outside review).
    count = tmp_path / "sent"
    with bot_process(misbehaving("floodatend", "--count-file", str(count))) as address:
        began = time.monotonic()
        record = play(address)
        seconds = time.monotonic() - began
    assert not record.failures
    assert most_held[0] <= remote.READ_AHEAD
    assert seconds < 30


def test_cancel_ends_a_match_waiting_on_a_slow_bot_within_seconds():
    cancel = threading.Event()
    with bot_process(misbehaving("sleep", "--at", "0", "--sleep", "100")) as address:
        threading.Timer(1.0, cancel.set).start()
        began = time.monotonic()
        with pytest.raises(MatchCancelled):
            play_match(
                GAME,
                CONFIG,
                4,
                [RemotePlayer(address), FunctionPlayer(first, "local")],
                clock=PATIENT,
                cancelled=cancel.is_set,
            )
        assert time.monotonic() - began < 5


def first(request):
    return request.options[0].id


def test_cancel_stops_an_in_process_match_between_steps():
    asked = []

    def slow_first(request):
        asked.append(1)
        time.sleep(0.05)
        return request.options[0].id

    began = time.monotonic()
    with pytest.raises(MatchCancelled):
        play_match(
            GAME,
            GAME.config(2, {"target": 10_000}),
            1,
            [FunctionPlayer(slow_first), FunctionPlayer(slow_first)],
            cancelled=lambda: time.monotonic() - began > 1,
        )
    assert time.monotonic() - began < 3


def test_local_executor_passes_the_cancel_hook_into_the_running_match(tmp_path):
    cancel = threading.Event()
    with bot_process(misbehaving("sleep", "--at", "0", "--sleep", "100")) as address:
        spec = TournamentSpec(game="rolldice", bots=(address, "random"), players=2, clock={"decision": 120_000})
        threading.Timer(1.0, cancel.set).start()
        began = time.monotonic()
        board = run_tournament(
            spec, "t", RunDirectory(tmp_path / "run"), LocalExecutor(make_player, 1, cancelled=cancel.is_set)
        )
        assert time.monotonic() - began < 6
    assert board["scheduled"] == 2 and RunDirectory(tmp_path / "run").load_records() == []


def test_celery_cancel_ends_a_running_match_and_frees_the_worker(tmp_path):
    slow = misbehaving("sleep", "--at", "0", "--sleep", "100", "--clock-file", str(tmp_path / "started"))
    with (
        bot_process(slow) as address,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=1, metrics=False),
    ):
        store = Store(server.url)
        hung = TournamentSpec(game="rolldice", bots=(address, "random"), players=2, clock={"decision": 120_000})
        start(server.url, "hung", hung)
        wait_for(lambda: (tmp_path / "started").exists(), 60, "the slow bot's first match to start")
        time.sleep(1.0)  # the match now waits on the bot's first decision
        began = time.monotonic()
        store.cancel("hung")
        # The only worker process is free again: another tournament runs to the end.
        quick = TournamentSpec(game="rolldice", bots=("random", "heuristic"), players=2)
        start(server.url, "quick", quick)
        wait_for(lambda: store.tournament("quick")["status"] == "complete", 60, "the next tournament")
        assert time.monotonic() - began < 30
        assert store.matches("hung") == []


def test_celery_tournament_of_a_bot_that_stops_reading_ends(tmp_path):
    with (
        bot_process(h2_bot("stop-reading", "--at", "0")) as address,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=1, metrics=False),
    ):
        spec = TournamentSpec(
            game="rolldice", bots=(address, "random"), players=2, clock={"decision": 500, "bank": 500, "grace": 100}
        )
        start(server.url, "starved", spec)
        store = Store(server.url)
        wait_for(lambda: store.tournament("starved")["status"] == "complete", 90, "the tournament to end")
        records = store.matches("starved")
    assert len(records) == 2
    for record in records:
        # The bot starves its whole connection, which the two matches of the batch share (played
        # at once): a match already past its start gets a timeout at the write it cannot make;
        # one whose start it never took gets a stall. Either way the bot is charged, once.
        (failure,) = record.failures
        assert failure.verdict in ("timeout", "stall"), failure
        assert record.seats[failure.seat]["bot"] == address


def test_an_interrupted_caller_cancels_the_match_on_the_event_loop():
    # Ctrl-C (here: the caller's timeout) while a match waits on a bot must not leave the match
    # running on the loop thread: it is cancelled, and its bots are told and closed.
    from arena.runner import play_match_async
    from referee import aioloop

    with bot_process(misbehaving("sleep", "--at", "0", "--sleep", "100")) as address:
        remote = RemotePlayer(address)
        match = play_match_async(GAME, CONFIG, 4, [remote, FunctionPlayer(first, "local")], clock=PATIENT)
        with pytest.raises(TimeoutError):
            aioloop.run(match, timeout=1.0)
        assert remote._stream is None and remote._dead is not None  # closed before run() returned
