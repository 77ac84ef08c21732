"""A tournament's clock reaches its bots (their MatchStart) and is enforced, in every executor:
local, Celery, and the referee service (issue 10, D)."""

from __future__ import annotations

import json

import pytest

from arena.cli.players import make_player
from arena.executor import LocalExecutor
from arena.rundir import RunDirectory
from arena.tournament import TournamentSpec
from arena.tournament_run import run_tournament
from arena.v1 import arena_pb2
from referee.auth import create_owner
from referee.store import Store
from tests.remote_helpers import bot_process, misbehaving
from tests.services import redis_server, service, wait_for, workers
from tests.test_service import Api
from workers.executor import CeleryExecutor

pytestmark = pytest.mark.timeout(300)

# Tight enough that the bot's 1.5 s answer is a timeout; the default clock (2 s a decision,
# 20 s of bank) would accept it without a failure.
CLOCK = {"decision": 300, "bank": 1, "increment": 1, "grace": 1}
SENT = {"decision_ms": 300, "bank_ms": 1, "increment_ms": 1, "grace_ms": 1}


def slow_bot(clock_file):
    return bot_process(misbehaving("sleep", "--at", "0", "--sleep", "1.5", "--clock-file", str(clock_file)))


def check(records, clock_file, remote_name):
    clocks = [json.loads(line) for line in clock_file.read_text().splitlines()]
    assert len(clocks) == len(records) == 2
    for clock in clocks:
        assert {k: clock.get(k) for k in SENT} == SENT, clock
    for record in records:
        seat = [s["bot"] for s in record.seats].index(remote_name)
        assert [(f.seat, f.verdict) for f in record.failures] == [(seat, "timeout")], record.failures


def spec_with(address: str, **changes) -> TournamentSpec:
    base = dict(game="rolldice", bots=(address, "random"), players=2, repeats=1, seed=2, clock=CLOCK)
    base.update(changes)
    return TournamentSpec(**base)


def test_local_tournament_sends_and_enforces_its_clock(tmp_path):
    clock_file = tmp_path / "clocks"
    with slow_bot(clock_file) as address:
        rundir = RunDirectory(tmp_path / "run")
        run_tournament(spec_with(address), "t", rundir, LocalExecutor(make_player, 1))
    check(rundir.load_records(), clock_file, address)


def test_celery_tournament_sends_and_enforces_its_clock(tmp_path):
    clock_file = tmp_path / "clocks"
    with (
        slow_bot(clock_file) as address,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=1, metrics=False),
    ):
        rundir = RunDirectory(tmp_path / "run")
        run_tournament(spec_with(address), "t", rundir, CeleryExecutor(server.url, "t-clock"))
    check(rundir.load_records(), clock_file, address)


def test_service_tournament_sends_and_enforces_its_clock(tmp_path):
    clock_file = tmp_path / "clocks"
    with (
        slow_bot(clock_file) as address,
        redis_server(tmp_path) as server,
        workers(server.url, tmp_path, count=1, concurrency=1, metrics=False),
        service(server.url, tmp_path) as srv,
    ):
        store = Store(server.url)
        alice = Api(srv.address, create_owner(store, "alice"))
        alice.RegisterBot(arena_pb2.RegisterBotRequest(name="slow", games=["rolldice"], endpoint=address))
        clock = arena_pb2.ClockLimits(decision_ms=300, bank_ms=1, increment_ms=1, grace_ms=1)
        created = alice.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="rolldice", bots=["slow", "random"], players=2, seed=2, clock=clock)
        )
        wait_for(lambda: store.tournament(created.id)["status"] == "complete", 120, "the tournament to finish")
        records = store.matches(created.id)
    check(records, clock_file, "slow")
