"""Transport benchmark: remote matches against a bare gRPC echo, in one run and process tree.

    python -m bench.bench_transport [--decisions 3000] [--rounds 3] [--concurrency 1,16,64,128,200,256]

1. Echo baseline: round trips per second of a bidirectional-stream echo (bench/echo_server.py,
   the same asyncio server stack as a bot) driven from the referee's event loop, messages of
   the median size of the match's own requests (measured on a warm-up match: a RollDice request
   with the events since the seat's last decision, about 670 bytes) - over TCP loopback and a
   Unix socket;
   echo and match alternate ``--rounds`` times and the medians are reported (also the ratio of
   the median latencies, robust to a loaded machine). Also the echo of a match's own pattern:
   two echo servers, a stream to each, the round trips alternating between them (a match's
   requests alternate between its two seats' bots; a server that sits idle while the other
   answers costs more per message to wake than one kept busy).
2. Match: a RollDice match (high target: thousands of decisions) between two trivial remote
   bots (bench/first_bot.py: always option 0) through the full referee (runner, requests with
   observations, clocks, records); decisions per second as a ratio of the echo rate, and the
   latency each decision adds to an echo round trip (p50, p99). Also CPU per decision (the
   referee's event-loop thread and both bot processes, every thread) against CPU per echo
   round trip (the loop's thread and the echo server): what a decision costs the machine,
   which other processes' load does not count in (wall-clock rates on a loaded machine do).
   Where the match's time goes, each as a share of the two-server echo's rate: the bots' own
   servers answering the same client loop (a real request of the match), the echo with the
   referee's own work per decision (the match's time per decision minus the bot's recorded
   time) spent before each round trip, and the match against that; the same echo with only
   the engine's share of that work (``engine_work``: the seat's events, its request built and
   encoded, the answer applied, timed alone: what no referee can skip); also the median time of a
   match's write against the echo's. And the two in turns (``match_vs_echo_interleaved``): a
   match that stops every 100 requests for 100 round trips of the one-server echo on a stream
   kept open, each slice of the match against the echo slice after it (the median of the
   slices' ratios, with their 10th and 90th percentiles): a change in the machine's speed
   falls on both alike, which the alternation of whole runs above cannot promise. Also in
   turns with two echo servers alternating (``match_vs_echo_two_servers_interleaved``): the
   match's own pattern of round trips, so what is left between the two is the referee's and
   the bots' work alone.
3. Concurrency: bots that take 20 ms per decision; N matches at once in one referee process
   (coroutines on the referee's event loop); each match's throughput against its ideal (its
   decisions x 20 ms), and timeouts at a 200 ms limit; against 2N bare echo streams (a match
   holds a stream per seat) whose server answers after 20 ms, in the same run. Reports the
   largest N that keeps >= 90% of ideal with zero timeouts, of N times one match's throughput,
   and of the echo at the same number of streams.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import ClassVar

import grpc.aio

from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.protocol import EventCursor, WireOptions, WireRequest
from arena.record import MatchRecord
from arena.runner import play_match_async
from arena.v1 import bot_pb2
from bench import transport_legs
from bench.procstat import children, cpu_seconds
from referee import aioloop
from referee.remote import CHANNEL_OPTIONS, PLAY_METHOD, RemotePlayer
from tests.remote_helpers import bot_process


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class ProbedPlayer(RemotePlayer):
    """A remote player that notes the size of every request it writes (the echo then sends
    messages of the same size) and how long writing it took (the write's await, as the echo's)."""

    sizes: ClassVar[list[int]] = []
    writes: ClassVar[list[float]] = []
    last: ClassVar[bytes] = b""  # the last request written

    async def _send_request(self, data: bytes) -> object:  # type: ignore[override]
        ProbedPlayer.sizes.append(len(data))
        ProbedPlayer.last = data
        began = time.perf_counter()
        try:
            return await super()._send_request(data)
        finally:
            ProbedPlayer.writes.append(time.perf_counter() - began)

    @staticmethod
    def reset() -> None:
        ProbedPlayer.sizes, ProbedPlayer.writes = [], []


class EchoSlices:
    """Echo streams kept open on the referee's event loop and driven in slices of round trips
    from within a match (:class:`InterleavedPlayer`): one server, or several with the round
    trips alternating between them (a match's own pattern: its requests alternate between
    its seats' bots)."""

    def __init__(self, targets: str | list[str], payload: bytes) -> None:
        self.targets = [t.removeprefix("grpc://") for t in ([targets] if isinstance(targets, str) else targets)]
        self.payload = payload
        self.channels: list[grpc.aio.Channel] = []
        self.calls: list[grpc.aio.StreamStreamCall] = []
        self.turn = 0

    async def open(self) -> None:
        self.channels = [grpc.aio.insecure_channel(t, options=CHANNEL_OPTIONS) for t in self.targets]
        self.calls = [channel.stream_stream("/bench.Echo/Echo")() for channel in self.channels]
        await self.run(50)  # warm-up

    async def run(self, round_trips: int) -> float:
        """Seconds taken by this many round trips."""
        calls = self.calls
        began = time.perf_counter()
        for _ in range(round_trips):
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

    async def _send_request(self, data: bytes) -> object:  # type: ignore[override]
        cls = InterleavedPlayer
        cls.requests += 1
        if cls.echo is not None and cls.requests % cls.every == 0:
            cls.match_seconds.append(time.perf_counter() - cls.mark)
            cls.echo_seconds.append(await cls.echo.run(cls.every))
            cls.mark = time.perf_counter()
        return await super()._send_request(data)

    @staticmethod
    def ratios() -> list[float]:
        """Each slice's decisions per second of the match over the echo's round trips per second."""
        pairs = list(zip(InterleavedPlayer.match_seconds, InterleavedPlayer.echo_seconds, strict=True))[1:]
        return [echo / match for match, echo in pairs]


def interleaved(bots: list[str], echo_address: str | list[str], payload: bytes, decisions: int) -> list[float]:
    """The match against the echo (one server, or several alternating), slice by slice
    (:class:`InterleavedPlayer`): a slice of a tenth of the decisions, at least 10 and at most
    100."""
    slices = EchoSlices(echo_address, payload)
    aioloop.run(slices.open())
    try:
        InterleavedPlayer.reset(slices, max(10, min(100, decisions // 10)))
        players = [InterleavedPlayer(bots[0]), InterleavedPlayer(bots[1])]
        match(bots[0], bots[1], int(decisions * 1.75), {}, players=players)
        return InterleavedPlayer.ratios()
    finally:
        InterleavedPlayer.echo = None
        aioloop.run(slices.close())


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


def bot_round_trips(addresses: list[str], rounds: int, request: bytes) -> float:
    """Round trips per second of the echo's client loop against the bots' own servers: one
    Play stream to each (a start, its ready), then the same decision request written to them
    in turn, each answer read (the bots do not check request ids: the referee does). What the
    SDK's server costs against a bare echo, the referee left out."""
    start = bot_pb2.RefereeMessage(start=bot_pb2.MatchStart(game_id=GAME.meta.id)).SerializeToString()
    rate, _ = echo(addresses, rounds, request, method=PLAY_METHOD, opening=start)
    return rate


def echo(
    address: str | list[str],
    rounds: int,
    payload: bytes,
    work: float = 0.0,
    method: str = "/bench.Echo/Echo",
    opening: bytes | None = None,
    marks: list[tuple[int, int]] | None = None,
) -> tuple[float, list[float]]:
    """(round trips per second, latencies in ms) of a bare stream echo from the event loop.

    Several addresses: one stream to each (each its own channel), the round trips alternating
    between them, as a match's requests alternate between its seats' bots. ``work`` seconds of
    busy loop before each round trip stand for the referee's own work between an answer and
    the next request. ``method`` and ``opening`` (a first message on each stream, its answer
    read) point the same loop at other servers. ``marks`` gets each round trip's (write, read)
    moments on the monotonic clock (``bench.transport_legs``)."""
    targets = [a.removeprefix("grpc://") for a in ([address] if isinstance(address, str) else address)]

    async def run() -> tuple[float, list[float]]:
        channels = [grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS) for target in targets]
        calls = [channel.stream_stream(method)() for channel in channels]
        if opening is not None:
            for call in calls:
                await call.write(opening)
                await call.read()
        latencies = []
        for i in range(50):  # warm-up
            await calls[i % len(calls)].write(payload)
            await calls[i % len(calls)].read()
        began, cpu = time.perf_counter(), time.thread_time()
        writes = LAST_ECHO_WRITES
        writes.clear()
        for i in range(rounds):
            call = calls[i % len(calls)]
            if work:
                until = time.perf_counter() + work
                while time.perf_counter() < until:
                    pass
            if marks is not None:
                began_ns = time.monotonic_ns()
            t0 = time.perf_counter()
            await call.write(payload)
            writes.append(time.perf_counter() - t0)
            await call.read()
            latencies.append((time.perf_counter() - t0) * 1000)
            if marks is not None:
                marks.append((began_ns, time.monotonic_ns()))
        elapsed = time.perf_counter() - began
        LAST_LOOP_CPU[0] = time.thread_time() - cpu
        for call in calls:
            await call.done_writing()
        for channel in channels:
            await channel.close()
        return rounds / elapsed, latencies

    return aioloop.run(run())


LAST_ECHO_WRITES: list[float] = []
"""How long each write of the last echo took (seconds)."""
LAST_LOOP_CPU = [0.0]
"""CPU time of the event loop's thread during the last timed echo or match (seconds)."""


def match(
    address_a: str,
    address_b: str,
    target: int,
    clock: dict[str, int],
    seed: int = 1,
    players: list[RemotePlayer] | None = None,
) -> tuple[float, list]:
    """(decisions per second, record) of one RollDice match between two remote bots."""
    config = GAME.config(2, {"target": target})
    players = players or [RemotePlayer(address_a), RemotePlayer(address_b)]

    async def timed() -> MatchRecord:
        cpu = time.thread_time()
        try:
            return await play_match_async(GAME, config, seed, players, clock=clock_settings(clock))
        finally:
            LAST_LOOP_CPU[0] = time.thread_time() - cpu

    began = time.perf_counter()
    record = aioloop.run(timed())
    return len(record.decisions) / (time.perf_counter() - began), record


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
        # CPU per round trip: the event loop's thread and the server processes, all threads.
        server = cpu_seconds(echo_pids)
        echo_rate, echo_ms = echo(echoes[0], decisions, payload)
        echo_cpu = (LAST_LOOP_CPU[0] + cpu_seconds(echo_pids) - server) / decisions
        # The same pattern as a match: a stream to each of two servers, alternating.
        server = cpu_seconds(echo_pids)
        echo2_rate, echo2_ms = echo(echoes, decisions, payload)
        echo2_cpu = (LAST_LOOP_CPU[0] + cpu_seconds(echo_pids) - server) / decisions
        # One decision per turn (option 0 is "stop") at 3.5 points a turn, two seats.
        server = cpu_seconds(bot_pids)
        echo2_write = statistics.median(LAST_ECHO_WRITES)
        ProbedPlayer.reset()
        players = [ProbedPlayer(bots[0]), ProbedPlayer(bots[1])]
        began = time.perf_counter()
        rate, record = match(bots[0], bots[1], int(decisions * 1.75), {}, players=players)
        wall = time.perf_counter() - began
        match_loop_cpu = LAST_LOOP_CPU[0] / len(record.decisions)
        match_bots_cpu = (cpu_seconds(bot_pids) - server) / len(record.decisions)
        match_ms = [d.ms for d in record.decisions if d.by == "bot"]
        # A decision's recorded ms runs from just before its request is written to its answer's
        # arrival: the rest of the match's time per decision is the referee's own critical path
        # (the move, the record, the next request), which nothing else overlaps.
        between = wall / len(record.decisions) - statistics.mean(match_ms) / 1000
        # The echo again, its client busy for that long before each round trip: what the
        # referee's own work alone leaves of the echo's rate.
        echo_work_rate, _ = echo(echoes, decisions, payload, work=max(0.0, between))
        # The same with only the engine's share of it (engine_work): what the game's move and
        # the next request alone, with no plumbing at all, leave of the echo's rate.
        engine = statistics.median(engine_work(decisions) for _ in range(3))
        echo_engine_rate, _ = echo(echoes, decisions, payload, work=engine)
        bots_rate = bot_round_trips(bots, decisions, ProbedPlayer.last)
        sliced = interleaved(bots, echoes[0], payload, decisions)
        sliced2 = interleaved(bots, echoes, payload, decisions)
        split = _legs(stack, kind, tmp, decisions, payload)
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
        "echo_round_trips_per_s": round(echo_rate),
        "echo_two_servers_round_trips_per_s": round(echo2_rate),
        "match_decisions_per_s": round(rate),
        "match_vs_echo": round(rate / echo_rate, 3),
        "match_vs_echo_two_servers": round(rate / echo2_rate, 3),
        # The same from the medians (robust to the scheduler's hiccups on a loaded machine).
        "match_vs_echo_p50": round(statistics.median(echo_ms) / statistics.median(match_ms), 3),
        "match_vs_echo_two_servers_p50": round(statistics.median(echo2_ms) / statistics.median(match_ms), 3),
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
        "bot_servers_vs_echo_two_servers": round(bots_rate / echo2_rate, 3),
        "echo_two_servers_with_referee_work_vs_echo_two_servers": round(echo_work_rate / echo2_rate, 3),
        "match_vs_echo_two_servers_with_referee_work": round(rate / echo_work_rate, 3),
        "engine_work_us": round(engine * 1e6, 1),
        "echo_two_servers_with_engine_work_vs_echo_two_servers": round(echo_engine_rate / echo2_rate, 3),
        "match_write_p50_us": round(statistics.median(ProbedPlayer.writes) * 1e6, 1),
        "echo_two_servers_write_p50_us": round(echo2_write * 1e6, 1),
        "echo_p50_ms": round(statistics.median(echo_ms), 3),
        "echo_p99_ms": round(percentile(echo_ms, 0.99), 3),
        "echo_two_servers_p50_ms": round(statistics.median(echo2_ms), 3),
        "decision_p50_ms": round(statistics.median(match_ms), 3),
        "decision_p99_ms": round(percentile(match_ms, 0.99), 3),
        "added_p50_ms": round(statistics.median(match_ms) - statistics.median(echo_ms), 3),
        "added_p99_ms": round(percentile(match_ms, 0.99) - percentile(echo_ms, 0.99), 3),
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


def echo_streams(address: str, n: int, rounds: int, payload: bytes) -> float:
    """N concurrent echo streams against a server that answers after 20 ms, each doing
    ``rounds`` round trips: the mean fraction of the ideal (rounds x 20 ms) they achieve."""
    target = address.removeprefix("grpc://")

    async def one(channel: grpc.aio.Channel) -> float:
        call = channel.stream_stream("/bench.Echo/Echo")()
        began = time.perf_counter()
        for _ in range(rounds):
            await call.write(payload)
            await call.read()
        elapsed = time.perf_counter() - began
        await call.done_writing()
        return rounds * 0.020 / elapsed

    async def run() -> float:
        channels = [grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS) for _ in range(n)]
        try:
            return statistics.mean(await asyncio.gather(*(one(c) for c in channels)))
        finally:
            for channel in channels:
                await channel.close()

    return aioloop.run(run())


def concurrency(levels: list[int], per_match: int) -> list[dict[str, float]]:
    """N matches at once on the referee's event loop, bots answering after 20 ms; the same N of
    bare echo streams (one channel each, as a match's seats have) answering after 20 ms."""
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
            # The echo at 2N streams: a match keeps two streams open (one per seat), one busy.
            echo_fraction = echo_streams(echo_addr, 2 * n, per_match // 2, payload)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=3000)
    parser.add_argument("--concurrency", default="1,16,64,128,200,256")
    parser.add_argument("--rounds", type=int, default=3, help="echo/match alternations (medians reported)")
    parser.add_argument("--no-transport", action="store_true", help="only the concurrency test")
    parser.add_argument("--per-match", type=int, default=100, help="decisions per match in the concurrency test")
    args = parser.parse_args(argv)
    # One RollDice match of about 1.75 x the decisions as its target (a ConfigError's traceback
    # for --per-match 0 before).
    target = next(option for option in GAME.meta.options if option.key == "target")
    most = int((target.maximum or 0) / 1.75)
    for flag, value in (("--decisions", args.decisions), ("--per-match", args.per_match)):
        if not 1 <= value <= most:
            parser.error(f"{flag} {value}: 1..{most} (one RollDice match, its target at most {target.maximum:,})")
    with tempfile.TemporaryDirectory() as tmp:
        report: dict[str, object] = {}
        if not args.no_transport:
            report["tcp"] = transport("tcp", args.decisions, Path(tmp), args.rounds)
            report["unix"] = transport("unix", args.decisions, Path(tmp), args.rounds)
    rows = concurrency([int(n) for n in args.concurrency.split(",")], args.per_match)
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
