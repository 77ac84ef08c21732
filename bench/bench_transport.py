"""Transport benchmark: remote matches against a bare gRPC echo, in one run and process tree.

    python -m bench.bench_transport [--decisions 3000] [--rounds 3] [--concurrency 1,16,64,128,200,256]
                                    [--per-match 100] [--no-transport]

1. Echo baseline: round trips per second of a bidirectional-stream echo (bench/echo_server.py,
   the same asyncio server stack as a bot) driven from the referee's event loop, messages of
   the median size of the match's own requests (measured on a warm-up match: a RollDice request
   with the events since the seat's last decision, about 670 bytes) - over TCP loopback and a
   Unix socket;
   echo and match alternate ``--rounds`` times and the medians are reported (also the ratio of
   the median periods, write to next write, robust to a loaded machine). Also the echo of a
   match's own pattern: two echo servers, a stream to each, the round trips alternating between
   them (a match's requests alternate between its two seats' bots; a server that sits idle
   while the other answers costs more per message to wake than one kept busy).
2. Match: a RollDice match (high target: thousands of decisions) between two trivial remote
   bots (bench/first_bot.py: always option 0) through the full referee (runner, requests with
   observations, clocks, records); decisions per second, timed from its first request's write
   to its last (connecting, the start's handshake and the finish left out, as the echo's
   connection and warm-up are), as a ratio of the echo rate, and the time each decision adds to
   an echo round trip (p50, p99 of the periods from one write to the next: the referee's own
   leg counted, which a request's round trip leaves out). Also CPU per decision (the
   referee's event-loop thread and both bot processes, every thread) against CPU per echo
   round trip (the loop's thread and the echo server, both after the echo's warm-up): what a
   decision costs the machine, which other processes' load does not count in (wall-clock
   rates on a loaded machine do).
   Where the match's time goes, each as a share of the two-server echo's rate, measured in
   turns with that echo (slices of round trips alternating, which one goes first alternating
   too; the median of the slices' ratios): the bots' own servers answering the same client
   loop (a real request of the match), the echo with the referee's own work per decision (the
   match's period minus the bot's recorded time) spent before each round trip, and the match
   against that; the same echo with only the engine's share of that work (``engine_work``:
   the seat's events, its request built and encoded, the answer applied, timed alone: what no
   referee can skip); also the median time of a match's write against the echo's. And the two
   in turns (``match_vs_echo_interleaved``): a match that stops every 100 requests for 100
   round trips of the one-server echo on a stream kept open, each slice of the match against
   the echo slice after it (the median of the slices' ratios, with their 10th and 90th
   percentiles): a change in the machine's speed falls on both alike, which the alternation of
   whole runs above cannot promise. Also in turns with two echo servers alternating
   (``match_vs_echo_two_servers_interleaved``): the match's own pattern of round trips, so what
   is left between the two is the referee's and the bots' work alone.
3. Concurrency: bots that take 20 ms per decision; N matches at once in one referee process
   (coroutines on the referee's event loop); each match's throughput against its ideal (its
   decisions x 20 ms), and timeouts at a 200 ms limit; against N pairs of bare echo streams
   whose server answers after 20 ms, in the same run: 2N streams open, as N matches hold one
   per seat, the two of a pair taking turns as a match's seats do, so N round trips are in
   flight, as N matches have. Reports the largest N that keeps >= 90% of ideal with zero
   timeouts, of N times one match's throughput, and of the echo at the same N.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import grpc.aio

from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.protocol import EventCursor, WireOptions, WireRequest
from arena.record import MatchRecord
from arena.runner import play_match_async
from arena.v1 import bot_pb2
from bench import transport_legs
from bench.options import count, counts, stop_cleanly_on_sigterm
from bench.procstat import children, cpu_seconds
from referee import aioloop
from referee.remote import CHANNEL_OPTIONS, PLAY_METHOD, RemotePlayer
from tests.remote_helpers import bot_process

ECHO_METHOD = "/bench.Echo/Echo"
SMALLEST_SLICE = 10
"""Requests (or round trips) in a slice of the comparisons in turns, at least."""
FEWEST_DECISIONS = 50
"""The smallest ``--decisions``: the match in turns needs 3 slices beyond its first, which is
left out (40 decisions at slices of 10; a RollDice match's decisions vary with the dice, so
some margin). Fewer ended in a traceback after every match had been played."""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def periods(starts: list[float]) -> list[float]:
    """The periods between successive moments (a write's start to the next)."""
    return [b - a for a, b in itertools.pairwise(starts)]


def per_second(starts: list[float]) -> float:
    """How many a second, from the first of these moments to the last: the periods between them
    over their span (a match's writes: its clock from its first request to its last, without
    connecting, the start's handshake or the finish)."""
    return (len(starts) - 1) / (starts[-1] - starts[0])


def rate_ratios(seconds: list[float], baseline_seconds: list[float]) -> list[float]:
    """Each slice's rate over its baseline slice's, for slices of equal counts (decisions, round
    trips): the baseline's seconds over the slice's."""
    return [base / own for own, base in zip(seconds, baseline_seconds, strict=True)]


def period_figures(match_periods: list[float], echo_periods: list[float]) -> tuple[float, float, float]:
    """(the match's rate over the echo's from the medians, and the milliseconds a decision adds
    to a round trip at the median and the 99th percentile), all from periods, write to next
    write. A period, not the round trip a decision records (its ``ms``), because the round trip
    leaves out the referee's leg between an answer and the next request, the largest part of
    what a match adds: from round trips the ratio came out near 0.9 where the rates gave 0.55."""
    match_p50, echo_p50 = statistics.median(match_periods), statistics.median(echo_periods)
    return (
        echo_p50 / match_p50,
        (match_p50 - echo_p50) * 1000,
        (percentile(match_periods, 0.99) - percentile(echo_periods, 0.99)) * 1000,
    )


def _busy(seconds: float) -> None:
    """Keep the event loop's thread busy for ``seconds``: the referee's work between an answer
    and the next request, standing in."""
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        pass


class ProbedPlayer(RemotePlayer):
    """A remote player that notes the size of every request it writes (the echo then sends
    messages of the same size), when its write started and how long writing it took (the
    write's await, as the echo's)."""

    sizes: ClassVar[list[int]] = []
    starts: ClassVar[list[float]] = []
    writes: ClassVar[list[float]] = []
    last: ClassVar[bytes] = b""  # the last request written

    async def _send_request(self, data: bytes, request: Any) -> Any:
        ProbedPlayer.sizes.append(len(data))
        ProbedPlayer.last = data
        began = time.perf_counter()
        ProbedPlayer.starts.append(began)
        try:
            return await super()._send_request(data, request)
        finally:
            ProbedPlayer.writes.append(time.perf_counter() - began)

    @staticmethod
    def reset() -> None:
        ProbedPlayer.sizes, ProbedPlayer.starts, ProbedPlayer.writes = [], [], []


class EchoSlices:
    """Echo streams kept open on the referee's event loop and driven in slices of round trips:
    one server, or several with the round trips alternating between them (a match's own
    pattern: its requests alternate between its seats' bots). ``method`` and ``opening`` (a
    first message on each stream, its answer read) point the same loop at other servers: a
    bot's, its start and ready first."""

    def __init__(
        self,
        targets: str | list[str],
        payload: bytes,
        method: str = ECHO_METHOD,
        opening: bytes | None = None,
    ) -> None:
        self.targets = [t.removeprefix("grpc://") for t in ([targets] if isinstance(targets, str) else targets)]
        self.payload = payload
        self.method = method
        self.opening = opening
        self.channels: list[grpc.aio.Channel] = []
        self.calls: list[grpc.aio.StreamStreamCall] = []
        self.turn = 0

    async def open(self, warm_up: int = 50) -> None:
        self.channels = [grpc.aio.insecure_channel(t, options=CHANNEL_OPTIONS) for t in self.targets]
        self.calls = [channel.stream_stream(self.method)() for channel in self.channels]
        if self.opening is not None:
            for call in self.calls:
                await call.write(self.opening)
                await call.read()
        await self.run(warm_up)

    async def run(self, round_trips: int, work: float = 0.0) -> float:
        """Seconds taken by this many round trips, ``work`` seconds of the loop's thread spent
        before each."""
        calls = self.calls
        began = time.perf_counter()
        for _ in range(round_trips):
            if work:
                _busy(work)
            call = calls[self.turn % len(calls)]
            self.turn += 1
            await call.write(self.payload)
            await call.read()
        return time.perf_counter() - began

    async def close(self) -> None:
        for call in self.calls:
            await call.done_writing()
        for channel in self.channels:
            await channel.close()


def slice_size(decisions: int) -> int:
    """The requests (or round trips) of a slice in turns: a tenth of the run, 10 to 100."""
    return max(SMALLEST_SLICE, min(100, decisions // 10))


async def in_turns(base: EchoSlices, other: EchoSlices, size: int, slices: int, work: float = 0.0) -> list[float]:
    """``other``'s rate (``work`` seconds spent before each of its round trips) over ``base``'s,
    slice by slice: ``slices`` pairs of slices of ``size`` round trips, which of the two goes
    first alternating, so a change in the machine's speed falls on both alike. ``base`` and
    ``other`` may be the same streams (the echo against itself with work)."""
    base_seconds: list[float] = []
    other_seconds: list[float] = []
    for i in range(slices):
        both = [(base_seconds, base, 0.0), (other_seconds, other, work)]
        for seconds, streams, spent in both if i % 2 == 0 else both[::-1]:
            seconds.append(await streams.run(size, spent))
    return rate_ratios(other_seconds, base_seconds)


class InterleavedPlayer(RemotePlayer):
    """A remote player whose match stops, every ``every`` requests (both seats together), for a
    slice of as many echo round trips, before that request is written (no clock of the bot's
    runs yet). Each slice of the match is timed against the echo slice right after it, so a
    change in the machine's speed falls on both alike; the first slice (the match's start, one
    decision short) is left out."""

    echo: ClassVar[EchoSlices | None] = None
    every: ClassVar[int] = 100
    requests: ClassVar[int] = 0
    mark: ClassVar[float] = 0.0
    match_seconds: ClassVar[list[float]] = []
    echo_seconds: ClassVar[list[float]] = []

    @staticmethod
    def reset(echo: EchoSlices, every: int) -> None:
        cls = InterleavedPlayer
        cls.echo, cls.every, cls.requests = echo, every, 0
        cls.mark = time.perf_counter()
        cls.match_seconds, cls.echo_seconds = [], []

    async def _send_request(self, data: bytes, request: Any) -> Any:
        cls = InterleavedPlayer
        cls.requests += 1
        if cls.echo is not None and cls.requests % cls.every == 0:
            cls.match_seconds.append(time.perf_counter() - cls.mark)
            cls.echo_seconds.append(await cls.echo.run(cls.every))
            cls.mark = time.perf_counter()
        return await super()._send_request(data, request)

    @staticmethod
    def ratios() -> list[float]:
        """Each slice's decisions per second of the match over the echo's round trips per second."""
        return rate_ratios(InterleavedPlayer.match_seconds[1:], InterleavedPlayer.echo_seconds[1:])


def interleaved(bots: list[str], echo_address: str | list[str], payload: bytes, decisions: int) -> list[float]:
    """The match against the echo (one server, or several alternating), slice by slice
    (:class:`InterleavedPlayer`, slices of :func:`slice_size`)."""
    slices = EchoSlices(echo_address, payload)
    aioloop.run(slices.open())
    try:
        InterleavedPlayer.reset(slices, slice_size(decisions))
        players: list[RemotePlayer] = [InterleavedPlayer(bots[0]), InterleavedPlayer(bots[1])]
        match(bots[0], bots[1], int(decisions * 1.75), {}, players=players)
        return InterleavedPlayer.ratios()
    finally:
        InterleavedPlayer.echo = None
        aioloop.run(slices.close())


def shares_in_turns(
    echoes: list[str], bots: list[str], payload: bytes, request: bytes, decisions: int, referee: float, engine: float
) -> dict[str, list[float]]:
    """Where the match's time goes, each against the bare two-server echo in turns
    (:func:`in_turns`, slices of :func:`slice_size`, about ``decisions`` round trips a side):
    the echo with ``referee`` and with ``engine`` seconds spent before each round trip, and
    the bots' own servers answering the same client loop (``request``, a real request of the
    match, written to them in turn after a start and its ready; the bots do not check request
    ids, the referee does): what the SDK's server costs against a bare echo, the referee left
    out."""
    size = slice_size(decisions)
    slices = max(3, decisions // size)
    start = bot_pb2.RefereeMessage(start=bot_pb2.MatchStart(game_id=GAME.meta.id)).SerializeToString()

    async def run() -> dict[str, list[float]]:
        echo2 = EchoSlices(echoes, payload)
        servers = EchoSlices(bots, request, method=PLAY_METHOD, opening=start)
        await echo2.open()
        await servers.open()
        try:
            return {
                "referee": await in_turns(echo2, echo2, size, slices, referee),
                "engine": await in_turns(echo2, echo2, size, slices, engine),
                "bots": await in_turns(echo2, servers, size, slices),
            }
        finally:
            await echo2.close()
            await servers.close()

    return aioloop.run(run())


def engine_work(decisions: int, seed: int = 1) -> float:
    """Seconds per decision of the work no referee can skip, timed alone in this process: the
    seat's new events, its request built and encoded (:class:`arena.protocol.WireRequest`, as
    the referee sends it) and the answer (option 0, as ``first_bot`` gives) applied by the
    engine, over a RollDice match like the bench's. No gRPC, no clock, no record, no checks:
    a floor under the referee's leg that only a faster engine or request could lower."""
    config = GAME.config(2, {"target": int(decisions * 1.75)})
    state = GAME.new_match(config, seed)
    cursor, options = EventCursor(config.players), WireOptions()
    done = 0
    began = time.perf_counter()
    while (pending := state.pending) and done < decisions:
        decision = pending[0]
        events = cursor.take_lazy(state, decision.seat)
        request = WireRequest(GAME, state, decision, index=done, events=events, simultaneous=False, options=options)
        request.encode(2000, 20000, 0, done + 1)
        GAME.advance(state, {decision.seat: decision.options[0]})
        done += 1
    return (time.perf_counter() - began) / max(1, done)


def request_size(address_a: str, address_b: str) -> int:
    """The median size in bytes of the requests of a short match between two remote bots."""
    ProbedPlayer.reset()
    match(address_a, address_b, 200, {}, players=[ProbedPlayer(address_a), ProbedPlayer(address_b)])
    return int(statistics.median(ProbedPlayer.sizes))


@dataclass
class EchoRun:
    """One timed run of :func:`echo`."""

    rate: float  # round trips per second
    latencies_ms: list[float]  # each round trip's: its write's start to its answer read
    periods: list[float]  # seconds from each write's start to the next
    writes: list[float]  # seconds each write's await took
    loop_cpu: float  # seconds of the event loop's thread, the timed round trips
    server_cpu: float  # seconds of the servers' processes (``pids``), the timed round trips


def echo(
    address: str | list[str],
    rounds: int,
    payload: bytes,
    marks: list[tuple[int, int]] | None = None,
    pids: Sequence[int] = (),
) -> EchoRun:
    """A bare stream echo from the event loop, after a warm-up of 50 round trips.

    Several addresses: one stream to each (each its own channel), the round trips alternating
    between them, as a match's requests alternate between its seats' bots. ``marks`` gets each
    round trip's (write, read) moments on the monotonic clock (``bench.transport_legs``);
    ``pids``, the servers' processes whose CPU is counted."""

    async def run() -> EchoRun:
        streams = EchoSlices(address, payload)
        await streams.open()
        calls = streams.calls
        try:
            # From here: the connection and the warm-up are not the round trips' (the match's
            # clock starts at its first request too).
            server = cpu_seconds(pids)
            latencies: list[float] = []
            starts: list[float] = []
            writes: list[float] = []
            began, cpu = time.perf_counter(), time.thread_time()
            for i in range(rounds):
                call = calls[i % len(calls)]
                if marks is not None:
                    began_ns = time.monotonic_ns()
                t0 = time.perf_counter()
                await call.write(payload)
                writes.append(time.perf_counter() - t0)
                await call.read()
                latencies.append((time.perf_counter() - t0) * 1000)
                starts.append(t0)
                if marks is not None:
                    marks.append((began_ns, time.monotonic_ns()))
            elapsed = time.perf_counter() - began
            loop_cpu = time.thread_time() - cpu
            server_cpu = cpu_seconds(pids) - server
        finally:
            await streams.close()
        return EchoRun(rounds / elapsed, latencies, periods(starts), writes, loop_cpu, server_cpu)

    return aioloop.run(run())


LAST_LOOP_CPU = [0.0]
"""CPU time of the event loop's thread during the last match (seconds)."""


def match(
    address_a: str,
    address_b: str,
    target: int,
    clock: dict[str, int],
    seed: int = 1,
    players: list[RemotePlayer] | None = None,
) -> MatchRecord:
    """The record of one RollDice match between two remote bots."""
    config = GAME.config(2, {"target": target})
    players = players or [RemotePlayer(address_a), RemotePlayer(address_b)]

    async def timed() -> MatchRecord:
        cpu = time.thread_time()
        try:
            return await play_match_async(GAME, config, seed, players, clock=clock_settings(clock))
        finally:
            LAST_LOOP_CPU[0] = time.thread_time() - cpu

    return aioloop.run(timed())


def transport(kind: str, decisions: int, tmp: Path, rounds: int = 3) -> dict[str, float]:
    """Echo and match alternately, ``rounds`` times (medians: this machine is noisy)."""
    runs = [_transport(kind, decisions, tmp) for _ in range(rounds)]
    out = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    out["match_vs_echo_each_round"] = [run["match_vs_echo"] for run in runs]  # type: ignore[assignment]
    out["match_vs_echo_two_servers_each_round"] = [run["match_vs_echo_two_servers"] for run in runs]  # type: ignore[assignment]
    out["match_vs_echo_interleaved_each_round"] = [run["match_vs_echo_interleaved"] for run in runs]  # type: ignore[assignment]
    out["match_vs_echo_two_servers_interleaved_each_round"] = [  # type: ignore[assignment]
        run["match_vs_echo_two_servers_interleaved"] for run in runs
    ]
    return out


def _servers(stack: ExitStack, kind: str, tmp: Path, module: str, name: str, *extra: str) -> list[str]:
    """Two server processes of ``module`` (``bench.echo_server`` or ``bench.first_bot``) over TCP
    or a Unix socket, kept running by ``stack``: their addresses as the referee dials them."""
    addresses = []
    for i in range(2):
        where = ["--unix", str(tmp / f"{name}{i}.sock")] if kind == "unix" else ["--port", "0"]
        address = stack.enter_context(bot_process([sys.executable, "-m", module, *where, *extra]))
        addresses.append(address.removeprefix("grpc://") if kind == "unix" else address)
    return addresses


def _transport(kind: str, decisions: int, tmp: Path) -> dict[str, float]:
    with ExitStack() as stack:
        before = children()
        echoes = _servers(stack, kind, tmp, "bench.echo_server", "echo")
        echo_pids = sorted(children() - before)
        before = children()
        bots = _servers(stack, kind, tmp, "bench.first_bot", "bot")
        bot_pids = children() - before
        payload = b"x" * request_size(bots[0], bots[1])  # also the warm-up
        one = echo(echoes[0], decisions, payload, pids=echo_pids)
        # The same pattern as a match: a stream to each of two servers, alternating.
        two = echo(echoes, decisions, payload, pids=echo_pids)
        # One decision per turn (option 0 is "stop") at 3.5 points a turn, two seats.
        server = cpu_seconds(bot_pids)
        ProbedPlayer.reset()
        record = match(
            bots[0], bots[1], int(decisions * 1.75), {}, players=[ProbedPlayer(bots[0]), ProbedPlayer(bots[1])]
        )
        # CPU per round trip: the event loop's thread and the server processes, all threads.
        match_loop_cpu = LAST_LOOP_CPU[0] / len(record.decisions)
        match_bots_cpu = (cpu_seconds(bot_pids) - server) / len(record.decisions)
        match_ms = [d.ms for d in record.decisions if d.by == "bot"]
        # The match's clock runs from its first request's write to its last (as the echo's from
        # its first timed round trip): connecting, the start's handshake and the finish are no
        # decision's.
        rate = per_second(ProbedPlayer.starts)
        match_periods = periods(ProbedPlayer.starts)
        # A decision's recorded ms runs from just before its request is written to its answer's
        # arrival: the rest of the match's period is the referee's own critical path (the move,
        # the record, the next request), which nothing else overlaps.
        between = 1 / rate - statistics.mean(match_ms) / 1000
        # Only the engine's share of it (engine_work): what the game's move and the next
        # request alone, with no plumbing at all, cost.
        engine = statistics.median(engine_work(decisions) for _ in range(3))
        # Each against the bare two-server echo in turns: what the referee's own work alone,
        # the engine's alone and the bots' servers alone leave of the echo's rate.
        shares = shares_in_turns(echoes, bots, payload, ProbedPlayer.last, decisions, max(0.0, between), engine)
        sliced = interleaved(bots, echoes[0], payload, decisions)
        sliced2 = interleaved(bots, echoes, payload, decisions)
        split = _legs(stack, kind, tmp, decisions, payload)
    echo_cpu = (one.loop_cpu + one.server_cpu) / decisions
    echo2_cpu = (two.loop_cpu + two.server_cpu) / decisions
    vs_p50, added_p50, added_p99 = period_figures(match_periods, one.periods)
    vs_two_p50, _, _ = period_figures(match_periods, two.periods)
    referee_share = statistics.median(shares["referee"])
    return {
        **split,
        # The match and the echo taking turns in slices (see InterleavedPlayer): the median of
        # the slices' ratios, and their spread.
        "match_vs_echo_interleaved": round(statistics.median(sliced), 3),
        "match_vs_echo_interleaved_p10": round(percentile(sliced, 0.1), 3),
        "match_vs_echo_interleaved_p90": round(percentile(sliced, 0.9), 3),
        "interleaved_slices": len(sliced),
        # The same against two echo servers alternating: the match's own pattern of round trips.
        "match_vs_echo_two_servers_interleaved": round(statistics.median(sliced2), 3),
        "match_vs_echo_two_servers_interleaved_p10": round(percentile(sliced2, 0.1), 3),
        "match_vs_echo_two_servers_interleaved_p90": round(percentile(sliced2, 0.9), 3),
        "echo_round_trips_per_s": round(one.rate),
        "echo_two_servers_round_trips_per_s": round(two.rate),
        "match_decisions_per_s": round(rate),
        "match_vs_echo": round(rate / one.rate, 3),
        "match_vs_echo_two_servers": round(rate / two.rate, 3),
        # The same from the median periods (robust to the scheduler's hiccups on a loaded machine).
        "match_vs_echo_p50": round(vs_p50, 3),
        "match_vs_echo_two_servers_p50": round(vs_two_p50, 3),
        # CPU per round trip (robust to a loaded machine: other processes' time is not counted).
        "echo_cpu_us": round(echo_cpu * 1e6, 1),
        "echo_two_servers_cpu_us": round(echo2_cpu * 1e6, 1),
        "match_cpu_us": round((match_loop_cpu + match_bots_cpu) * 1e6, 1),
        "match_referee_loop_cpu_us": round(match_loop_cpu * 1e6, 1),
        "match_bots_cpu_us": round(match_bots_cpu * 1e6, 1),
        "match_vs_echo_cpu": round(echo_cpu / (match_loop_cpu + match_bots_cpu), 3),
        "match_vs_echo_two_servers_cpu": round(echo2_cpu / (match_loop_cpu + match_bots_cpu), 3),
        "decisions": len(record.decisions),
        "request_bytes": len(payload),
        "referee_between_requests_us": round(between * 1e6, 1),
        # Shares of the two-server echo's rate, in turns with it (shares_in_turns): medians of
        # the slices' ratios.
        "bot_servers_vs_echo_two_servers": round(statistics.median(shares["bots"]), 3),
        "echo_two_servers_with_referee_work_vs_echo_two_servers": round(referee_share, 3),
        # The match against the echo with the referee's work: the match's share in turns over
        # that echo's, both against the same bare echo (match / echo over (echo + work) / echo).
        "match_vs_echo_two_servers_with_referee_work": round(statistics.median(sliced2) / referee_share, 3),
        "engine_work_us": round(engine * 1e6, 1),
        "echo_two_servers_with_engine_work_vs_echo_two_servers": round(statistics.median(shares["engine"]), 3),
        "match_write_p50_us": round(statistics.median(ProbedPlayer.writes) * 1e6, 1),
        "echo_two_servers_write_p50_us": round(statistics.median(two.writes) * 1e6, 1),
        # Round trips: a request's write to its answer's arrival (the bot's clock), no referee.
        "echo_p50_ms": round(statistics.median(one.latencies_ms), 3),
        "echo_p99_ms": round(percentile(one.latencies_ms, 0.99), 3),
        "echo_two_servers_p50_ms": round(statistics.median(two.latencies_ms), 3),
        "decision_p50_ms": round(statistics.median(match_ms), 3),
        "decision_p99_ms": round(percentile(match_ms, 0.99), 3),
        # What a decision adds to the one-server echo's round trip: periods, the referee's leg in.
        "added_p50_ms": round(added_p50, 3),
        "added_p99_ms": round(added_p99, 3),
    }


def _legs(stack: ExitStack, kind: str, tmp: Path, decisions: int, payload: bytes) -> dict[str, float]:
    """A match and the two-server echo split into legs (``bench.transport_legs``), against bot
    and echo servers of their own that note their moments (the notes cost them a little, so the
    ratios above are measured without them)."""
    bot_marks, echo_marks = tmp / f"{kind}-bot-marks.jsonl", tmp / f"{kind}-echo-marks.jsonl"
    for path in (bot_marks, echo_marks):
        path.unlink(missing_ok=True)
    bots = _servers(stack, kind, tmp, "bench.first_bot", "legs-bot", "--marks", str(bot_marks))
    echoes = _servers(stack, kind, tmp, "bench.echo_server", "legs-echo", "--marks", str(echo_marks))
    round_trips: list[tuple[int, int]] = []

    def play(players: list[RemotePlayer]) -> object:
        return match(bots[0], bots[1], int(decisions * 1.75), {}, players=players)

    def echo_run() -> list[tuple[int, int]]:
        echo(echoes, decisions, payload, marks=round_trips)
        return round_trips

    return transport_legs.legs(play, echo_run, bots, bot_marks, echo_marks)


def echo_pairs(address: str, n: int, rounds: int, payload: bytes) -> float:
    """N pairs of echo streams against a server that answers after 20 ms, each pair doing
    ``rounds`` round trips, its two streams taking turns (:class:`EchoSlices`, a channel each):
    2N streams open and N round trips in flight, the load of N matches, whose two seats take
    turns. The mean fraction of the ideal (rounds x 20 ms) a pair achieves."""

    async def pair() -> float:
        streams = EchoSlices([address, address], payload)
        await streams.open(warm_up=0)  # connecting counts, as it does in the matches timed here
        try:
            return rounds * 0.020 / await streams.run(rounds)
        finally:
            await streams.close()

    async def run() -> float:
        return statistics.mean(await asyncio.gather(*(pair() for _ in range(n))))

    return aioloop.run(run())


def concurrency(levels: list[int], per_match: int) -> list[dict[str, float]]:
    """N matches at once on the referee's event loop, bots answering after 20 ms; against N
    pairs of bare echo streams answering after 20 ms (:func:`echo_pairs`), the same load."""
    clock = clock_settings({"decision": 200, "bank": 0, "increment": 0, "grace": 0, "strikes": 0, "startup": 20000})
    rows = []
    with ExitStack() as stack:
        bots = [
            stack.enter_context(bot_process([sys.executable, "-m", "bench.first_bot", "--port", "0", "--delay", ".02"]))
            for _ in range(2)
        ]
        echo_addr = stack.enter_context(
            bot_process([sys.executable, "-m", "bench.echo_server", "--port", "0", "--delay", ".02"])
        )
        payload = b"x" * request_size(bots[0], bots[1])  # also the warm-up

        async def one(seed: int) -> tuple[float, MatchRecord]:
            config = GAME.config(2, {"target": int(per_match * 1.75)})
            began = time.perf_counter()
            record = await play_match_async(
                GAME, config, seed, [RemotePlayer(bots[0]), RemotePlayer(bots[1])], clock=clock
            )
            return time.perf_counter() - began, record

        async def many(n: int) -> list[tuple[float, MatchRecord]]:
            return list(await asyncio.gather(*(one(seed) for seed in range(n))))

        for n in levels:
            # N matches hold 2N streams (one per seat) with one of each match's two busy.
            echo_fraction = echo_pairs(echo_addr, n, per_match, payload)
            began = time.perf_counter()
            results = aioloop.run(many(n))
            elapsed = time.perf_counter() - began
            total = sum(len(r.decisions) for _, r in results)
            # Each match against its own ideal (its decisions x 20 ms), so matches of different
            # lengths do not count as referee slowness.
            fraction = statistics.mean(len(r.decisions) * 0.020 / seconds for seconds, r in results)
            rows.append(
                {
                    "matches": n,
                    "decisions_per_s": round(total / elapsed, 1),
                    "ideal_per_s": n / 0.020,
                    "fraction_of_ideal": round(fraction, 3),
                    "echo_fraction_of_ideal": round(echo_fraction, 3),
                    "fraction_of_echo": round(fraction / echo_fraction, 3),
                    "timeouts": sum(f.verdict == "timeout" for _, r in results for f in r.failures),
                    "failures": sum(len(r.failures) for _, r in results),
                }
            )
    return rows


def _because(parse: Callable[[str], int], reason: str) -> Callable[[str], int]:
    """``parse`` (a :mod:`bench.options` type) with ``reason`` added to its refusal."""

    def checked(text: str) -> int:
        try:
            return parse(text)
        except argparse.ArgumentTypeError as refused:
            raise argparse.ArgumentTypeError(f"{refused} ({reason})") from None

    return checked


def main(argv: list[str] | None = None) -> int:
    stop_cleanly_on_sigterm()
    # One RollDice match of about 1.75 x the decisions as its target (a ConfigError's traceback
    # for --per-match 0 before).
    target = next(option for option in GAME.meta.options if option.key == "target")
    most = int((target.maximum or 0) / 1.75)
    one_match = f"one RollDice match, its target at most {target.maximum:,}"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    decisions = count(FEWEST_DECISIONS, most)
    in_turns_too = f"the match in turns needs 3 slices of {SMALLEST_SLICE} decisions beyond its first; {one_match}"
    parser.add_argument("--decisions", type=_because(decisions, in_turns_too), default=3000)
    parser.add_argument("--concurrency", type=counts(1), default="1,16,64,128,200,256", help="numbers of matches")
    parser.add_argument("--rounds", type=count(1), default=3, help="echo/match alternations (medians reported)")
    parser.add_argument("--no-transport", action="store_true", help="only the concurrency test")
    per_match = _because(count(2, most), f"a match's two seats take turns, as the echo's pairs of streams; {one_match}")
    parser.add_argument("--per-match", type=per_match, default=100, help="decisions per match in the concurrency test")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        report: dict[str, object] = {}
        if not args.no_transport:
            report["tcp"] = transport("tcp", args.decisions, Path(tmp), args.rounds)
            report["unix"] = transport("unix", args.decisions, Path(tmp), args.rounds)
    rows = concurrency(args.concurrency, args.per_match)
    # Scaling against one match measured in the same run (its own transport overhead included).
    single = next((r["fraction_of_ideal"] for r in rows if r["matches"] == 1), None)
    for row in rows:
        row["fraction_of_one_match"] = round(row["fraction_of_ideal"] / single, 3) if single else None
    report["concurrency_20ms_bots"] = rows
    good = [r["matches"] for r in rows if r["fraction_of_ideal"] >= 0.9 and r["timeouts"] == 0]
    report["max_concurrent_matches_at_90pct"] = max(good) if good else 0
    scaled = [r["matches"] for r in rows if (r["fraction_of_one_match"] or 0) >= 0.9 and r["timeouts"] == 0]
    report["max_concurrent_matches_at_90pct_of_one_match_scaled"] = max(scaled) if scaled else 0
    of_echo = [r["matches"] for r in rows if r["fraction_of_echo"] >= 0.9 and r["timeouts"] == 0]
    report["max_concurrent_matches_at_90pct_of_echo"] = max(of_echo) if of_echo else 0
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
