"""A timeout must mean the bot was slow: the referee never charges a bot for its own lateness.

Many concurrent matches share the referee's event loop with a co-tenant that stalls it (blocks
the loop for a quarter of a second, again and again, as an overloaded process would). The bots
answer in a few milliseconds, far inside a 200 ms limit with no bank, grace or strikes: every
answer arrives in time, though the loop may only get to it hundreds of milliseconds later. The
referee must not call any of them a timeout. A bot that really never answers must still time
out under the same load. Real bot processes, real gRPC on loopback; verdict counts, not times.
"""

from __future__ import annotations

import asyncio
import sys
import time
from contextlib import ExitStack

import pytest

from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.runner import play_match_async
from referee import aioloop
from referee.remote import RemotePlayer
from tests.remote_helpers import bot_process, misbehaving

TIGHT = clock_settings({"decision": 200, "bank": 0, "increment": 0, "grace": 0, "strikes": 0, "startup": 20000})
STALL = 0.25  # seconds the co-tenant blocks the loop each time (more than the limit)


def quick_bot() -> list[str]:
    return [sys.executable, "-m", "bench.first_bot", "--port", "0", "--delay", "0.005"]


async def with_stalls(matches: list, stalls: list[float]) -> list:
    """Run the matches while a co-tenant blocks the loop for STALL seconds every 50 ms."""
    done = asyncio.Event()

    async def co_tenant() -> None:
        while not done.is_set():
            await asyncio.sleep(0.05)
            time.sleep(STALL)  # blocks the whole loop, as a CPU-bound neighbour would
            stalls.append(STALL)

    tenant = asyncio.get_running_loop().create_task(co_tenant())
    try:
        return list(await asyncio.gather(*matches))
    finally:
        done.set()
        await tenant


def test_healthy_bots_are_never_timed_out_by_a_stalled_referee():
    with ExitStack() as stack:
        bots = [stack.enter_context(bot_process(quick_bot())) for _ in range(2)]
        stalls: list[float] = []

        def match(seed: int):  # long enough to span several stalls however fast the referee is
            config = GAME.config(2, {"target": 90})
            players = [RemotePlayer(bots[0]), RemotePlayer(bots[1])]
            return play_match_async(GAME, config, seed, players, clock=TIGHT)

        records = aioloop.run(with_stalls([match(seed) for seed in range(16)], stalls))
    decisions = sum(len(r.decisions) for r in records)
    verdicts = [f.verdict for r in records for f in r.failures]
    assert len(stalls) >= 5, "the loop was not stalled: the test proves nothing"
    assert decisions >= 16 * 5
    assert verdicts == [], f"{len(verdicts)} verdicts against healthy bots: {sorted(set(verdicts))}"
    assert all(d.by == "bot" for r in records for d in r.decisions)


def test_a_bot_that_never_answers_still_times_out_on_a_stalled_referee():
    with ExitStack() as stack:
        quick = stack.enter_context(bot_process(quick_bot()))
        silent = stack.enter_context(bot_process(misbehaving("sleep", "--at", "0", "--sleep", "30")))
        stalls: list[float] = []
        config = GAME.config(2, {"target": 30})
        match = play_match_async(GAME, config, 1, [RemotePlayer(quick), RemotePlayer(silent)], clock=TIGHT)
        [record] = aioloop.run(with_stalls([match], stalls))
    assert [(f.seat, f.verdict) for f in record.failures] == [(1, "timeout")]


def test_the_stall_record_counts_only_the_overlap_with_a_span():
    import asyncio as aio

    from referee.lag import LagMonitor

    monitor = LagMonitor(aio.new_event_loop())
    monitor.stalls.extend([(1.0, 1.5), (2.0, 2.25), (3.0, 4.0)])
    assert monitor.stalled(0.0, 10.0) == 1.75
    assert monitor.stalled(1.25, 2.1) == pytest.approx(0.35)
    assert monitor.stalled(4.0, 5.0) == 0.0
    assert monitor.stalled(3.5, 3.75) == 0.25
    monitor.loop.close()


def test_only_the_stalls_since_the_loop_last_waited_are_hidden():
    """An answer read at ``read`` came after the loop last waited for input (``idle``: it would
    have been read then): only the stalls since can have kept it unread. A stall that ended
    while the bot was still thinking, the loop idle after it, is the bot's time (an outside
    probe: every stall since the write came off, and bots 15 ms past a hard limit were let
    through). Unknown idleness counts every stall since the write, as before."""
    import asyncio as aio

    from referee.lag import LagMonitor

    monitor = LagMonitor(aio.new_event_loop())
    monitor.stalls.extend([(1.0, 1.5), (2.0, 2.25), (2.255, 2.3), (3.0, 4.0)])
    assert monitor.hidden(0.0, 2.31, None) == pytest.approx(0.795)  # every stall since the write
    assert monitor.hidden(0.0, 2.31, 1.9) == pytest.approx(0.295)  # idle at 1.9: the first is the bot's
    assert monitor.hidden(0.0, 2.31, 2.3) == 0.0  # idle just before the read
    assert monitor.hidden(2.1, 2.31, 1.9) == pytest.approx(0.195)  # not before the write
    assert monitor.hidden(0.0, 3.5, 3.0) == pytest.approx(0.5)  # read in a stall: from its start
    assert monitor.hidden(0.0, 1.7, 1.6) == 0.0
    monitor.loop.close()


def test_the_loop_is_idle_when_it_waits_and_not_while_it_is_busy():
    """The moment the loop last waited for input, as its selector was asked to block: it moves
    while the loop waits, and not while callbacks keep it busy (a heartbeat on time between
    them does not make it idle)."""
    import asyncio as aio
    import time as clock

    from referee.lag import LagMonitor

    async def scenario() -> tuple[float, float, float]:
        loop = aio.get_running_loop()
        monitor = LagMonitor(loop)
        await aio.sleep(0.02)  # waits: idle
        waited = monitor.idle_at
        assert waited is not None
        began = loop.time()
        for _ in range(40):  # busy for about 40 ms: every iteration has something ready
            clock.sleep(0.001)
            await aio.sleep(0)
        busy_until = loop.time()
        during = monitor.idle_at
        await aio.sleep(0.01)
        assert monitor.idle_at is not None
        return began - waited, busy_until - (during or 0.0), monitor.idle_at - busy_until

    since_wait, stale, after = aio.run(scenario())
    assert since_wait >= 0.0 and stale >= 0.035 and after >= 0.0


def test_a_select_held_past_its_timeout_waited_only_until_its_timeout():
    """A thread beside the loop in one long C call (json of a big document, a collection) keeps
    the loop from taking the interpreter back after its selector returned: the select call then
    lasts the whole stall, and the loop was not waiting for input after the selector's timeout.
    Counting it idle to the end took nothing of that stall off a bot's time (an outside probe:
    16 of 32 answers of a 30 ms bot became timeouts at a 150 ms limit)."""
    import asyncio as aio
    import time as clock

    from referee.lag import LagMonitor

    async def scenario() -> tuple[float, float, float]:
        loop = aio.get_running_loop()
        selector = loop._selector  # type: ignore[attr-defined]
        real = selector.select
        held: list[float] = []

        def select_then_held(timeout: float | None = None):  # as a thread holding the GIL would
            events = real(timeout)
            if timeout and not held:
                clock.sleep(0.15)
                held.append(loop.time())
            return events

        selector.select = select_then_held
        monitor = LagMonitor(loop)  # wraps the selector as it is
        before = loop.time()
        await aio.sleep(0.01)  # the selector is asked to block about 10 ms
        assert held and monitor.idle_at is not None
        return before, monitor.idle_at, held[0]

    before, idle, call_ended = aio.run(scenario())
    assert before <= idle <= call_ended - 0.1  # idle until the timeout (~10 ms), not to the end


def test_a_stalled_loop_is_on_record_once_it_settles():
    from referee.lag import LagMonitor

    async def scenario() -> tuple[float, float]:
        monitor = LagMonitor(asyncio.get_running_loop())
        monitor.acquire()
        began = asyncio.get_running_loop().time()
        await asyncio.sleep(0.02)
        time.sleep(0.3)  # the loop cannot run anything
        await monitor.settle()
        end = asyncio.get_running_loop().time()
        monitor.release()
        return monitor.stalled(began, end), end - began

    stalled, span = asyncio.run(scenario())
    assert 0.25 <= stalled <= span
