"""The referee's remote player: a bot at ``grpc://host:port`` or ``unix:///path``.

One bidirectional ``BotService/Play`` stream per match and seat; the streams to one endpoint
share its connection (:mod:`referee.channels`). The player enforces the clock
(measured here, on the referee side) and turns every failure into a precise verdict:

=========== ===================================================================================
timeout     no answer within limit + bank + grace, or more late answers than the strikes allow,
            or the request could not even be delivered in that time (the bot does not read)
crash       cannot connect (dialled again for a few seconds first: RECONNECT_SECONDS), the
            stream broke, the process went away, the bot ended the stream, the endpoint is
            refused by the operator's policy (:mod:`referee.endpoints`)
stall       no ``ready`` within the start-up allowance, however it fails to come: no answer to
            the connection, an HTTP/2 handshake never completed, a start message never read
illegal     the answered id is not among the options (checked by the runner)
malformed   an unparseable or oversized message
protocol    a message that is wrong for the state: not ``ready`` first, an answer that does not
            echo the request's unpredictable ``request_id`` (sent before being asked, or the id
            mangled) or its ``decision_index``, an answer twice, unsolicited messages, a version
            mismatch or a ``ready`` without ``protocol_version`` (checked by the runner)
=========== ===================================================================================

Every wait on a bot is bounded by the clock that applies to it: resolving, connecting, the
HTTP/2 handshake, writing ``start`` and reading ``ready`` by the start-up allowance; writing a
request and reading its answer by the decision's limit + bank + grace. A write is never
awaited without a deadline: a bot that stops reading (a zero flow-control window) would
otherwise hold the match forever. Read-ahead is capped too: the referee holds at most
``READ_AHEAD`` messages of a stream that no decision has read yet, and reads the next only once
one is; what else the bot sends waits in the transport (HTTP/2 flow control holds it back), so a
flooding bot cannot make the referee buffer without bound, before, during or after its match
(once the match is over for it, what it sends is read and dropped). A bot sends one message per
request; each message beyond that is one ``protocol`` verdict, naming it, at the decision that
reads it, whenever it arrived (a count that stopped the reading at the first message too many
made one mistake's verdict depend on when the reader took it in).

A late answer to a decision that already timed out is dropped silently (the bot was told the
time; it has already been penalised). A broken stream is ``gone``: the runner asks it nothing
more and records its failure once (a later request would fail at once with the same verdict).
A stream the bot ended is reported as the bot ended it, its status as its server sent it
(``the bot ended the stream (status OK) before answering decision 4``), whether the referee learns it
writing the request, finding the call done, or awaiting the answer.

Clock accounting per decision, with ``limit`` the per-decision limit and ``t`` the time from
the request being written (the write completed: the bot cannot start before) to the answer
being received: time over the limit is taken from the bank; past
the bank, lateness up to ``grace`` costs a strike; more than ``strikes`` strikes, or lateness
beyond the grace, is a timeout. ``increment`` is added to the bank after every answer. The
request carries the limit, the bank left and the strikes used.

All gRPC objects live on :mod:`referee.aioloop`'s event loop. The runner sees ``runs_on`` and
drives the whole match on that loop through the ``*_async`` hooks, so a decision costs no
thread hop; the plain methods are a synchronous facade for other callers. Simultaneous
decisions use ``begin_decide`` (write the request, return) and ``end_decide`` (wait), so every
seat is asked before any answer is awaited. A request is written straight from the match's
coroutine (no task per write). The runner hands this player its requests as
:class:`arena.protocol.WireRequest` (``wire_requests``): the message's bytes assembled from
parts serialised once (events once per match, options once per option object), the clock and
the request id appended per send; a ``DecisionRequest`` is still taken (serialised once into
its envelope, :func:`_decision_bytes`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import struct
import threading
from collections import deque
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
import grpc.aio

from arena.clock import MAX_MS
from arena.config import ConfigError
from arena.printable import printable
from arena.protocol import WireRequest, endpoint_proof, varint
from arena.runner import PlayerFailure
from arena.v1 import bot_pb2
from referee import aioloop, channels, endpoints, lag

MAX_BOT_MESSAGE = 64 * 1024
"""Largest message accepted from a bot: an answer is a few bytes, ready a few hundred."""
MAX_REFEREE_MESSAGE = 16 * 1024 * 1024
MAX_REQUEST_ID = 2**53 - 1
"""Request ids are 1..2^53-1: exact as a JavaScript number (a double), though the field is 64-bit."""

CHANNEL_OPTIONS = (
    ("grpc.max_receive_message_length", MAX_BOT_MESSAGE),
    ("grpc.max_send_message_length", MAX_REFEREE_MESSAGE),
    # Keepalive that survives long thinks: ping every 30 s even without calls in flight, give up
    # after 10 s without an ack. Bot servers must permit pings every 10 s (the SDK does).
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    # No retries of gRPC's own: a start dials again itself (RECONNECT_SECONDS), nothing else does.
    ("grpc.enable_retries", 0),
    # Subchannels die with their channel, so nothing of a finished match lingers.
    ("grpc.use_local_subchannel_pool", 1),
    ("grpc.initial_reconnect_backoff_ms", 100),
)

RECONNECT_SECONDS = 5.0
"""How long an endpoint that refuses connections is dialled again at a match's start (within its
start-up allowance), counted from the first refusal a match of this process met: a bot server
restarting for a few seconds loses no match; one that stays down fails each later match at once."""
READ_AHEAD = 2
"""Messages of a stream the referee holds unread by any decision, at most: an answer, and a late
one to a decision already failed, may both be in before the next decision reads."""
RECONNECT_FIRST_PAUSE = 0.05
RECONNECT_LAST_PAUSE = 0.5
"""The pauses between dialling again: doubling from the first to the last."""

CORE_ERROR = "Internal error from Core"
"""The details of gRPC core's own INTERNAL status, set on a call when a write meets its end."""
ENDING_SECONDS = 0.1
"""At least this long, and the clock's grace if longer, a bot is given to end its side after a
goodbye (finish or abort) before its stream is cancelled (bounded by the player's linger too)."""
REFUSED_REGISTRATION = (
    "the endpoint refused to play this registration: it has a key, and this registration's start did not "
    "prove it holds that key (register the bot with the endpoint's key: --endpoint-key-file)"
)


_SCHEMES = ("grpc://", "unix://", "unix:")


class _DropDeserializeErrors(logging.Filter):
    """gRPC logs bytes it cannot deserialise at ERROR with a traceback; for a bot's garbage that
    is a ``malformed`` verdict in the record, not a referee error (and a log handler that keeps
    the record would keep the call's frames, and its sockets, alive)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "deserializ" not in record.getMessage()


logging.getLogger("grpc._common").addFilter(_DropDeserializeErrors())
log = logging.getLogger(__name__)
T = TypeVar("T")


_REFUSED: set[str] = set()  # endpoints this process has warned of


def _tell_the_operator(spec: str, refused: endpoints.EndpointRefused) -> None:
    """A WARNING, once per endpoint and process, when the policy refuses a connection: the
    service registers only endpoints its own policy allows, so a refusal here is most often a
    worker whose --allow-endpoints differs from the service's (an outside operator probe saw
    every match of such a bot forfeited while the workers said nothing above DEBUG)."""
    if spec in _REFUSED:
        return
    _REFUSED.add(spec)
    log.warning(
        "endpoint refused by this process's endpoint policy: give the service and every worker the same "
        "--allow-endpoints, or the bot's matches are forfeits (%s)",
        refused,
        extra={"bot": spec},
    )


def is_remote(spec: str) -> bool:
    return spec.startswith(_SCHEMES)


def check_new_address(spec: str) -> str:
    """:func:`target_of` for an address given now (an entrant on the command line, an endpoint
    registered), refused if it holds an invisible or control character: with a zero-width space
    two entrants read as one on a leaderboard (an outside probe). Not at play time: an address
    stored before this check still plays."""
    odd = next((c for c in spec if not c.isprintable()), None)
    if odd is not None:
        raise ConfigError(
            f"bot address {spec!r}: holds an invisible or control character (U+{ord(odd):04X}); "
            "on a leaderboard it would read as another address"
        )
    return target_of(spec)


def target_of(spec: str) -> str:
    """The gRPC target of a bot address: ``grpc://h:p`` -> ``h:p``; unix paths kept."""
    if spec.startswith("grpc://"):
        target = spec[len("grpc://") :]
        host, _, port = target.rpartition(":")
        if not host or not (port.isascii() and port.isdigit()):  # '²'.isdigit() is True
            raise ConfigError(f"bot address {spec!r}: expected grpc://HOST:PORT")
        if not 1 <= int(port) <= 65535:  # else a typo'd port was a seat that never answered
            raise ConfigError(f"bot address {spec!r}: the port must be 1..65535")
        return target
    if spec.startswith("unix:"):
        # An absolute path: unix:///path or unix:/path. unix://name would be an authority gRPC
        # refuses at the first connect (every match a crash), unix:name a path relative to
        # wherever the worker runs: both refused here.
        path = spec[len("unix://") :] if spec.startswith("unix://") else spec[len("unix:") :]
        if not path.startswith("/") or path == "/":
            raise ConfigError(f"bot address {spec!r}: expected unix:///absolute/path")
        return spec
    raise ConfigError(f"bot address {spec!r}: expected grpc://HOST:PORT or unix:///PATH")


@dataclass(slots=True)
class _Inbound:
    kind: str  # "message", "eof" or "error"
    at: float  # loop time of arrival
    message: bot_pb2.BotMessage | None = None
    error: grpc.aio.AioRpcError | None = None
    idle: float | None = None  # loop time the loop last waited for input before this arrival


_ADDRESSES = re.compile(r"\b(?:ipv4|ipv6|unix|unix-abstract|dns):[^\s,;)\]]*[^\s,;)\]:]")


def without_endpoint(text: str, *names: str) -> str:
    """``text`` with the bot's endpoint left out: the ``names`` it goes by (its address, its
    host) and any resolved address gRPC quotes (``ipv4:10.1.2.3:5000``). Verdict details end up
    in records other owners read; an endpoint is its owner's to see (arena.proto)."""
    for name in sorted(filter(None, names), key=len, reverse=True):
        text = text.replace(name, "<endpoint>")
    return _ADDRESSES.sub("<endpoint>", text)


def _failure_of_error(error: grpc.aio.AioRpcError) -> PlayerFailure:
    return _failure_of_status(error.code(), error.details() or "")


def _failure_of_status(code: grpc.StatusCode, details: str) -> PlayerFailure:
    details = printable(details)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and f"vs. {MAX_BOT_MESSAGE})" in details:
        # The referee's own receive limit ("Received message larger than max (N vs. 65536)").
        return PlayerFailure("malformed", f"oversized message from the bot ({details})")
    if code == grpc.StatusCode.INTERNAL and "serializ" in details.lower():
        return PlayerFailure("malformed", f"unparseable message from the bot ({details})")
    if code == grpc.StatusCode.UNAVAILABLE:
        return PlayerFailure("crash", f"bot unreachable or gone ({details})")
    return PlayerFailure("crash", f"stream failed: {code.name} ({details})")


class _Stream:
    """The async side: one Play call on a connection shared with the other streams to the same
    endpoint (:mod:`referee.channels`), one reader task feeding an inbox."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.shared: channels.Shared | None = None  # the connection, shared with other streams
        self.call: grpc.aio.StreamStreamCall | None = None
        self.inbox: deque[_Inbound] = deque()
        self.waiter: asyncio.Future[None] | None = None
        self.reader: asyncio.Task[None] | None = None
        self.blocked = False  # a write did not complete in time: the stream is unusable
        # Read-ahead is capped (see the module docstring): with READ_AHEAD messages unread by
        # any decision, the reader waits (resume) until one is; flow control holds the bot back.
        self.received = 0
        self.resume: asyncio.Future[None] | None = None
        self.closing = False  # the match is over for this stream: what comes is read and dropped
        # How the call ended, kept as its status came (see _on_done); awaited through end_waiter.
        self.end: tuple[grpc.StatusCode, str] | None = None
        self.end_waiter: asyncio.Future[None] | None = None
        self.monitor: lag.LagMonitor | None = None  # the loop's, once a request was sent

    async def open(self) -> None:
        self.shared = channels.pool(CHANNEL_OPTIONS).acquire(self.target)
        play = self.shared.channel.stream_stream(
            PLAY_METHOD, request_serializer=_serialize, response_deserializer=bot_pb2.BotMessage.FromString
        )
        self.call = play(wait_for_ready=False)
        self.call.add_done_callback(self._on_done)
        self.reader = asyncio.get_running_loop().create_task(self._read())

    def _on_done(self, call: grpc.aio.StreamStreamCall) -> None:
        """Keep the call's first status that is not gRPC core's own error for a write that met
        an ended call: gRPC sets that one over the status the bot's server sent, so read later
        the call's status (and the reader's) would be core's "Internal error from Core", not the
        bot's end (an outside probe saw three details for one bot). gRPC calls this at every
        status it sets, synchronously, so the bot's is read before core's replaces it."""
        if self.end is not None:
            return
        code, details = _settled(call.code()), _settled(call.details())
        if code is None or (code == grpc.StatusCode.INTERNAL and details == CORE_ERROR):
            return
        self.end = (code, details or "")
        if self.end_waiter is not None:
            _wake(self.end_waiter)

    async def ending(self, deadline: float) -> tuple[grpc.StatusCode, str] | None:
        """How the call ended (its status as the bot's server sent it), waited for until
        ``deadline`` (loop time) if it is not in yet, or as the reader found it once the reader
        is done (the status may never be set after core's own: see _on_done); None if neither
        says by then."""
        if self.end is None and self.call is not None:
            loop = asyncio.get_running_loop()
            waiter = self.end_waiter = loop.create_future()
            waits: set[asyncio.Future[Any]] = {waiter} if self.reader is None else {waiter, self.reader}
            await asyncio.wait(waits, timeout=max(0.0, deadline - loop.time()), return_when=asyncio.FIRST_COMPLETED)
            self.end_waiter = None
            if self.end is None:
                return self._end_as_read()
        return self.end

    def _end_as_read(self) -> tuple[grpc.StatusCode, str] | None:
        """The call's end as its finished reader last put it: EOF is status OK; an error its
        status, unless it is gRPC core's own."""
        if self.reader is None or not self.reader.done() or not self.inbox:
            return None
        last = self.inbox[-1]
        if last.kind == "eof":
            return grpc.StatusCode.OK, ""
        if last.kind == "error" and last.error is not None and last.error.details() != CORE_ERROR:
            return last.error.code(), last.error.details() or ""
        return None

    def _put(self, item: _Inbound) -> None:
        self.inbox.append(item)
        if self.waiter is not None:
            _wake(self.waiter)

    def _resume_reading(self) -> None:
        if self.resume is not None:
            _wake(self.resume)

    async def _read(self) -> None:
        assert self.call is not None
        loop = asyncio.get_running_loop()
        try:
            while True:
                while len(self.inbox) >= READ_AHEAD and not self.closing:  # until a decision reads one
                    self.resume = loop.create_future()
                    try:
                        await self.resume
                    finally:
                        self.resume = None
                message = await self.call.read()
                if message is grpc.aio.EOF:
                    self._put(_Inbound("eof", loop.time()))
                    return
                if message is None:  # grpc.aio gives None for bytes that do not deserialise
                    error = _as_rpc_error(ValueError("not a BotMessage"))
                    self._put(_Inbound("error", loop.time(), error=error))
                    return
                self.received += 1
                if self.closing:
                    continue  # nobody reads it any more: dropped, as the match is over for the bot
                monitor = self.monitor
                idle = monitor.idle_at if monitor is not None else None
                self._put(_Inbound("message", loop.time(), message, idle=idle))  # type: ignore[arg-type]
                # The decision waiting for this message runs first: its move and the next
                # request are a match's critical path, the next read is not (4% more decisions
                # a second, bench_transport).
                await asyncio.sleep(0)
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.UNAVAILABLE and self.shared is not None:
                self.shared.broken()  # the connection failed: later matches get a new one
            self._put(_Inbound("error", loop.time(), error=error))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # deserialisation failures surface here in some versions
            self._put(_Inbound("error", loop.time(), error=_as_rpc_error(exc)))

    async def send(
        self, message: bot_pb2.RefereeMessage | bytes, allowance: float, monitor: lag.LagMonitor | None = None
    ) -> grpc.aio.AioRpcError | bool:
        """Write a message that asks for an answer, waiting at most ``allowance`` seconds of the
        referee's responsive time (its own stalls do not count, see :mod:`referee.lag`): True
        when written, False when the time ran out first (a bot that does not read: a zero
        flow-control window, an unfinished HTTP/2 handshake; the stream is then unusable), or
        the error. Awaited right here (no task per write)."""
        assert self.call is not None
        self.monitor = monitor
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        start = loop.time()
        expired = False
        timer: asyncio.TimerHandle | None = None

        def expire(when: float) -> None:
            nonlocal expired, timer
            now = loop.time()
            # Time the referee could not run (recorded stalls, and this timer's own lateness,
            # not on record yet) does not count against the bot.
            stalled = monitor.stalled(start, now) + max(0.0, now - when - lag.TOLERANCE) if monitor else 0.0
            extended = start + allowance + stalled
            if extended > now:
                timer = loop.call_at(extended, expire, extended)
                return
            expired = True
            task.cancel()

        timer = loop.call_at(start + allowance, expire, start + allowance)
        try:
            await self.call.write(message)
        except asyncio.CancelledError:
            if not expired:
                raise
            task.uncancel()
            self.blocked = True
            if self.shared is not None:
                self.shared.broken()  # its writes do not get through: later matches get a new one
            return False
        except grpc.aio.AioRpcError as error:
            return error
        except (asyncio.InvalidStateError, grpc.aio.UsageError):
            return _as_rpc_error(RuntimeError("the stream is already closed"), grpc.StatusCode.CANCELLED)
        finally:
            timer.cancel()
        return True

    async def receive(self, deadline: float) -> _Inbound | None:
        """The next inbound item, or None at the deadline (loop time).

        A bare future and a timer rather than ``asyncio.wait_for`` on a queue: wait_for wraps
        every wait in a task, several loop iterations per decision.
        """
        if not self.inbox:
            loop = asyncio.get_running_loop()
            waiter = self.waiter = loop.create_future()
            timer = loop.call_at(deadline, _wake, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                self.waiter = None
        if not self.inbox:
            return None
        self._resume_reading()
        return self.inbox.popleft()

    async def close(self, goodbye: bot_pb2.RefereeMessage | None, linger: float) -> None:
        """Send a last message, half-close, let the bot end its side briefly, then tear down:
        all of it within ``linger`` seconds (it was up to ``linger`` for each of the three)."""
        # A reader waiting with READ_AHEAD messages unread holds what the bot sent beyond them:
        # it is not waited for (the bot is not let end its side: it sends what nobody asked).
        held_back = self.resume is not None
        self.closing = True
        if self.call is not None:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + linger
            if goodbye is not None and not self.blocked and not self.call.done():
                try:
                    await asyncio.wait_for(self.call.write(goodbye), linger)
                    await asyncio.wait_for(self.call.done_writing(), max(0.0, deadline - loop.time()))
                except (grpc.aio.AioRpcError, TimeoutError, asyncio.InvalidStateError):
                    pass
            if self.reader is not None and not self.reader.done() and not self.blocked and not held_back:
                with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(asyncio.shield(self.reader), max(0.0, deadline - loop.time()))
            self.call.cancel()
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.reader
        shared, self.shared = self.shared, None
        if shared is not None:
            await shared.release()
        self.call = None
        self.reader = None


PLAY_METHOD = "/arena.v1.BotService/Play"
_DECISION_TAG = b"\x12"  # RefereeMessage.decision: field 2, length-delimited


def _serialize(message: bot_pb2.RefereeMessage | bytes) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


_REQUEST_IDS = threading.local()
_ID_BLOCK = 512


def _request_ids() -> Iterator[int]:
    """Request ids from the system's CSPRNG, read in blocks (one syscall per 512 ids):
    uniform over 1..2^53-1 (53 random bits, zero skipped)."""
    while True:
        for (value,) in _UINT64.iter_unpack(os.urandom(8 * _ID_BLOCK)):
            value &= MAX_REQUEST_ID  # 2^53 - 1: the low 53 bits
            if value:
                yield value


_UINT64 = struct.Struct("<Q")


def next_request_id() -> int:
    """An unpredictable request id, 1..2^53-1 (a generator per thread: ids are drawn on the
    event loop's thread, and a generator must not run in two threads at once)."""
    ids = getattr(_REQUEST_IDS, "ids", None)
    if ids is None:
        ids = _REQUEST_IDS.ids = _request_ids()
    return next(ids)


def _forget_request_ids() -> None:
    """In a forked child: drop the parent's buffered ids (else both would hand out the same)."""
    global _REQUEST_IDS
    _REQUEST_IDS = threading.local()


os.register_at_fork(after_in_child=_forget_request_ids)


def _decision_bytes(request: bot_pb2.DecisionRequest) -> bytes:
    """``RefereeMessage(decision=request)`` serialised without copying the request into a new
    message (the same bytes: one length-delimited field)."""
    body = request.SerializeToString()
    return _DECISION_TAG + varint(len(body)) + body


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _settled(coro: Coroutine[Any, Any, T]) -> T | None:
    """The value of a coroutine that completes without suspending (a done call's ``code()`` and
    ``details()``: its status is there already), else None."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    return None


def _as_rpc_error(exc: Exception, code: grpc.StatusCode = grpc.StatusCode.INTERNAL) -> grpc.aio.AioRpcError:
    details = f"serialization: {exc}" if code == grpc.StatusCode.INTERNAL else str(exc)
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details)


@dataclass(frozen=True)
class _Failed:
    """A failure as a value: raised as a fresh PlayerFailure on the caller's side.

    Exceptions are not raised across the loop boundary on purpose: their tracebacks would tie
    coroutine frames, the stream and its gRPC call into a reference cycle that keeps sockets
    open until the next garbage collection.
    """

    verdict: str
    detail: str

    def error(self) -> PlayerFailure:
        return PlayerFailure(self.verdict, self.detail)


class RemotePlayer:
    """A seat played by a bot behind a gRPC endpoint (see the module docstring)."""

    def __init__(
        self,
        spec: str,
        name: str | None = None,
        *,
        linger: float = 1.0,
        policy: endpoints.EndpointPolicy | None = None,
        key: str | None = None,
    ) -> None:
        self.spec = spec
        self.reconnect = True
        """Whether a start whose connection fails dials again (RECONNECT_SECONDS): not for a
        hosted bot, whose jail nothing restarts."""
        # The endpoint's key as the registration holds it: every start proves it (a fresh
        # MatchStart.endpoint_proof), and an endpoint with a key plays no start without one.
        self.key = key
        self.target = target_of(spec)
        # Who may be dialled (see referee.endpoints): the process's policy unless one is given;
        # None trusts every endpoint (a local run).
        self.policy = policy if policy is not None else endpoints.current()
        self.name = name or spec
        self.version = ""
        self.linger = linger
        self._stream: _Stream | None = None
        self._dead: _Failed | None = None
        self._clock = bot_pb2.ClockSettings()
        self._bank = 0.0
        self._strikes = 0
        self._sent_at = 0.0
        self.last_strike_ms: float | None = None
        """Lateness of the last answer if it cost a strike (the runner records it), else None."""
        self.last_answer_ms: float | None = None
        """What the clock charged the last decision: from its request written to its answer's
        arrival, less the stalls that can have kept the answer unread; all it allowed when no answer
        came in time (the record's ``ms``, a verdict's too)."""
        self._abandoned: set[int] = set()  # request ids whose answers are dropped when they come
        self._asked: set[int] = set()  # request ids sent
        self._heard: set[int] = set()  # request ids sent whose first message was read
        self._lag: lag.LagMonitor | None = None  # the loop's stall record, while the stream is open

    # -- the Player protocol, native (the runner drives the match on the loop: no thread hops) --

    runs_on = staticmethod(aioloop.run)

    async def start_async(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        self._clock = message.clock
        self._bank = self._clock.bank_ms / 1000.0
        outcome = await self._start(message)
        if isinstance(outcome, _Failed):
            raise outcome.error()
        return outcome

    wire_requests = True
    """The runner hands this player :class:`arena.protocol.WireRequest` (the request as bytes,
    the clock and the request id appended per send); a ``DecisionRequest`` is taken too."""

    async def begin_decide_async(self, request: bot_pb2.DecisionRequest | WireRequest) -> None:
        if self._dead is not None:
            raise self._dead.error()
        # An unpredictable id the answer must echo: an answer carrying it cannot have been sent
        # before the request (arrival times cannot tell, messages queue in transit). Below 2^53
        # so that bots decoding 64-bit integers as JavaScript numbers keep it exactly.
        request_id = next_request_id()
        self._asked.add(request_id)
        decision_ms, bank_ms, strikes = self._clock.decision_ms, int(self._bank * 1000), self._strikes
        if isinstance(request, WireRequest):
            data = request.encode(decision_ms, bank_ms, strikes, request_id)
        else:
            request.request_id = request_id
            clock = request.clock
            clock.SetInParent()
            clock.decision_ms = decision_ms
            clock.bank_ms = bank_ms
            clock.strikes = strikes
            data = _decision_bytes(request)
        failed = await self._send_request(data, request)
        if failed is not None:
            raise failed.error()

    async def end_decide_async(self, request: bot_pb2.DecisionRequest | WireRequest) -> str:
        if self._dead is not None:
            raise self._dead.error()
        outcome = await self._await_answer(request)
        if isinstance(outcome, _Failed):
            raise outcome.error()
        return outcome

    async def finish_async(self, message: bot_pb2.Finish) -> None:
        await self._close(bot_pb2.RefereeMessage(finish=message))

    async def abort_async(self, verdict: str, reason: str) -> None:
        await self._close(bot_pb2.RefereeMessage(abort=bot_pb2.Abort(reason=reason, verdict=verdict)))

    async def close_async(self) -> None:
        await self._close(None)

    # -- the same, synchronous (from any thread but the loop's) ------------------------------------

    def start(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        return aioloop.run(self.start_async(message))

    def decide(self, request: bot_pb2.DecisionRequest | WireRequest) -> str:
        async def both() -> str:
            await self.begin_decide_async(request)
            return await self.end_decide_async(request)

        return aioloop.run(both())

    def finish(self, message: bot_pb2.Finish) -> None:
        aioloop.run(self.finish_async(message))

    def abort(self, verdict: str, reason: str) -> None:
        aioloop.run(self.abort_async(verdict, reason))

    def close(self) -> None:
        aioloop.run(self.close_async())

    def _check_alive(self) -> None:
        if self._dead is not None:
            raise self._dead.error()

    @property
    def gone(self) -> bool:
        """Whether its stream is dead (the bot ended it, it broke, a write never got
        through): it can never answer again, so the runner asks it nothing more and records its
        failure once, not again at every later decision (an outside probe saw budget + 1 copies)."""
        return self._dead is not None

    async def _close(self, goodbye: bot_pb2.RefereeMessage | None) -> None:
        monitor, self._lag = self._lag, None
        if monitor is not None:
            monitor.release()
        stream, self._stream = self._stream, None
        if stream is not None:
            if self._dead is None:
                self._dead = _Failed("crash", "stream closed by the referee")
            # Ending its side is no move of the bot's: it gets the grace its answers get (the
            # clock's allowance for the network), at least ENDING_SECONDS, not a fixed second
            # (a bot that kept its stream open held every match it played 1 s a seat).
            ending = max(self._clock.grace_ms / 1000.0, ENDING_SECONDS)
            await stream.close(goodbye, min(self.linger, ending))

    # -- the async side ---------------------------------------------------------------------------

    async def _start(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready | _Failed:
        loop = asyncio.get_running_loop()
        if self._lag is None:
            self._lag = lag.monitor()
            self._lag.acquire()
        # Admission: a new match does not start on an overloaded loop (no clock runs yet).
        await self._lag.admit()
        deadline = loop.time() + self._clock.startup_ms / 1000.0
        target = self.target
        if self.policy is not None:
            checked = await self._checked_target(deadline)
            if isinstance(checked, _Failed):
                return self._die(checked)
            target = checked
        start = bot_pb2.RefereeMessage(start=message)
        if self.key is not None:
            start.start.endpoint_proof.CopyFrom(endpoint_proof(self.key, message.match_id, message.seat))
        pool = channels.pool(CHANNEL_OPTIONS)
        pause = RECONNECT_FIRST_PAUSE
        while True:
            self._stream = _Stream(target)
            await self._stream.open()
            outcome, unreachable = await self._deliver_start(start, deadline)
            if not unreachable or not self.reconnect:
                break
            # No connection (a bot server restarting, say): dialled again until the endpoint has
            # been unreachable for RECONNECT_SECONDS, counted from the first failure any match of
            # this process saw (a bot that stays down costs each later match nothing).
            now = loop.time()
            if now + pause >= min(pool.down_since(target, now) + RECONNECT_SECONDS, deadline):
                break
            stream, self._stream = self._stream, None
            if stream.shared is not None:
                stream.shared.broken()
            await stream.close(None, 0.0)
            await asyncio.sleep(pause)
            pause = min(2 * pause, RECONNECT_LAST_PAUSE)
        if isinstance(outcome, _Failed):
            return self._die(outcome)
        pool.reachable(target)
        self.version = outcome.bot_version
        return outcome

    async def _deliver_start(
        self, start: bot_pb2.RefereeMessage, deadline: float
    ) -> tuple[bot_pb2.Ready | _Failed, bool]:
        """Write ``start`` and read ``ready`` on the open stream: the ready or the failure, and
        whether the failure is an unreachable endpoint (:meth:`_unreachable`), which
        :meth:`_start` dials again."""
        assert self._stream is not None
        loop = asyncio.get_running_loop()
        # Resolving, the HTTP/2 handshake, the write and the ready all count against the
        # start-up allowance: a peer that never completes one of them is a stall, not a hang.
        written = await self._stream.send(start, max(0.0, deadline - loop.time()), self._lag)
        if written is False:
            failed = _Failed(
                "stall",
                f"could not deliver start within {self._clock.startup_ms} ms (no connection, "
                "no HTTP/2 handshake, or the bot does not read)",
            )
            return failed, False
        if written is not True:
            return await self._ended("ready", deadline, written), self._unreachable(written)
        item = await self._stream.receive(deadline)
        if item is None:
            return _Failed("stall", f"no ready within {self._clock.startup_ms} ms"), False
        if item.error is not None and item.error.code() == grpc.StatusCode.PERMISSION_DENIED:
            # What a server with a key answers a start that does not prove it (bots.serve).
            return _Failed("protocol", REFUSED_REGISTRATION), False
        if item.kind != "message":
            return self._failure_of_item(item, "ready"), item.error is not None and self._unreachable(item.error)
        assert item.message is not None
        body = item.message.WhichOneof("body")
        if body != "ready":
            return _Failed("protocol", f"expected ready, got {body}"), False
        return item.message.ready, False

    def _unreachable(self, error: grpc.aio.AioRpcError) -> bool:
        """Whether a start's error is a connection that failed (refused, reset, gone), not a
        status the bot's server sent on a live one (a server answering UNAVAILABLE is not dialled
        again: an outside review's busy bot read the same start 13 times)."""
        if error.code() != grpc.StatusCode.UNAVAILABLE or self._stream is None or self._stream.received:
            return False
        shared = self._stream.shared
        return shared is None or shared.channel.get_state() != grpc.ChannelConnectivity.READY

    async def _checked_target(self, deadline: float) -> str | _Failed:
        """Resolve the endpoint and check every address against the policy (on every
        connection: DNS may have changed since registration); the target to dial is the checked
        address itself, so gRPC does not resolve the name again."""
        assert self.policy is not None
        policy = self.policy
        try:
            if self.spec.startswith("unix:"):
                policy.check_unix(self.spec)
                return self.target
            host, _, port = self.target.rpartition(":")
            loop = asyncio.get_running_loop()
            lookup = loop.run_in_executor(None, policy.resolve, host, int(port))
            addresses = await asyncio.wait_for(lookup, max(0.0, deadline - loop.time()))
        except endpoints.EndpointRefused as exc:
            _tell_the_operator(self.spec, exc)
            # The public text: what the name resolved to and the allow list are not the record's.
            return self._hidden(PlayerFailure("crash", f"endpoint refused: {exc.public}"))
        except TimeoutError:
            return _Failed("stall", f"could not resolve the endpoint within {self._clock.startup_ms} ms")
        return endpoints.dial_target(addresses[0], int(port))

    async def _send_request(self, data: bytes, request: bot_pb2.DecisionRequest | WireRequest) -> _Failed | None:
        assert self._stream is not None
        loop = asyncio.get_running_loop()
        limit = self._clock.decision_ms / 1000.0
        grace = self._clock.grace_ms / 1000.0
        allowed = limit + self._bank + grace
        if self._stream.call is None or self._stream.call.done():
            if self._stream.inbox:  # what the bot sent before it ended is read first
                self._sent_at = loop.time()
                return None
            return self._die(await self._ended(f"answering decision {request.decision_index}", loop.time() + allowed))
        # The bot's clock starts as the write starts: a bot that runs its own HTTP/2 can hold
        # back the request's last bytes with flow control while it thinks on what it has read
        # (a probe's bot took 530 ms a decision at a 300 ms limit when the clock started at the
        # write's end). A referee slow to write (its loop stalled) is not charged: its stalls
        # are taken off the bot's time (referee.lag), from this moment on.
        self._sent_at = loop.time()
        # The write is bounded by the decision's whole allowance (a bot that does not read).
        written = await self._stream.send(data, allowed, self._lag)
        if written is False:
            return self._die(
                _Failed(
                    "timeout", f"could not deliver the request within {allowed * 1000:.0f} ms: the bot does not read"
                )
            )
        if written is not True:  # most often the call has ended: say how the bot ended it
            if self._stream.inbox:
                # What it sent before it ended is read first, as when the write got in first
                # (which of the two comes first is a race: an unread message held the bot's
                # status back, and the referee waited out the whole allowance for it, then
                # named gRPC core's own error: an outside review).
                return None
            return self._die(
                await self._ended(f"answering decision {request.decision_index}", self._sent_at + allowed, written)
            )
        return None

    async def _ended(self, before: str, deadline: float, error: grpc.aio.AioRpcError | None = None) -> _Failed:
        """The failure of a stream whose call has ended (found done, or a write failed), as the
        bot's server ended it: its status, waited for until ``deadline`` if not in yet (a write
        can fail before it is); else the write's own ``error``. The same detail however the
        referee learns of the end (writing, finding the call done, or awaiting the answer)."""
        assert self._stream is not None
        end = await self._stream.ending(deadline)
        if end is None:
            error = error or _as_rpc_error(RuntimeError("the stream is already closed"), grpc.StatusCode.CANCELLED)
            return self._failure_of_error(error, before)
        code, details = end
        if code == grpc.StatusCode.OK:
            return _Failed("crash", f"the bot ended the stream (status OK) before {before}")
        return self._hidden(_failure_of_status(code, details))

    async def _await_answer(self, request: bot_pb2.DecisionRequest | WireRequest) -> str | _Failed:
        assert self._stream is not None
        self.last_strike_ms = self.last_answer_ms = None
        request_id = request.request_id
        limit = self._clock.decision_ms / 1000.0
        grace = self._clock.grace_ms / 1000.0
        allowance = limit + self._bank + grace
        deadline = self._sent_at + allowance
        monitor = self._lag
        while True:
            item = await self._stream.receive(deadline)
            if item is None and monitor is not None:
                # The loop's clock says time is up; but the referee may have been stalled while
                # the answer waited unread. Let the loop catch up, then count only the time the
                # referee was responsive (see referee.lag): the bot is charged for that alone.
                await monitor.settle()
                if self._stream.inbox:
                    continue
                loop = asyncio.get_running_loop()
                now = loop.time()
                extended = self._sent_at + allowance + monitor.hidden(self._sent_at, now, monitor.idle_at)
                if extended > loop.time():
                    deadline = extended
                    continue
            if item is None:
                waited = allowance * 1000
                self.last_answer_ms = round(waited, 3)  # what the clock charged: all it allowed
                self._abandoned.add(request_id)
                self._bank = 0.0
                return _Failed("timeout", f"no answer within {waited:.0f} ms (limit + bank + grace)")
            if item.kind != "message":
                return self._die(self._failure_of_item(item, f"answering decision {request.decision_index}"))
            assert item.message is not None
            body = item.message.WhichOneof("body")
            if body != "decision":
                sent = "a message with no body" if body is None else body
                return self._protocol(request_id, f"sent {sent} during the match")
            answer = item.message.decision
            if answer.request_id in self._asked and answer.request_id not in self._heard:
                self._heard.add(answer.request_id)  # a request's one answer (right or wrong)
                if answer.request_id in self._abandoned:
                    continue  # late, to a decision already failed (timed out, or judged)
            elif answer.request_id in self._heard and answer.request_id != request_id:
                return self._protocol(request_id, f"answered decision {answer.decision_index} twice")
            elif answer.request_id != request_id:
                return self._protocol(
                    request_id,
                    f"answered with request_id {answer.request_id} (decision_index {answer.decision_index}) while "
                    f"decision {request.decision_index} was open with request_id {request_id}: an answer must echo "
                    "the request_id of the request it answers, exactly",
                )
            if answer.decision_index != request.decision_index:
                return self._protocol(
                    request_id,
                    f"answered request_id {request_id} with decision_index {answer.decision_index}, "
                    f"expected {request.decision_index} (an answer must echo the request's decision_index)",
                )
            elapsed = item.at - self._sent_at
            if monitor is not None:
                if elapsed > limit:  # over the limit by the loop's clock: every stall on record first
                    await monitor.settle()
                # The stalls that can have kept the answer unread are not the bot's time (under the
                # limit this changes no charge, only the time recorded); stalls while it was
                # still thinking are. Looked up only when one ended since the request was
                # written: the common answer costs one comparison.
                stalls = monitor.stalls
                if stalls and stalls[-1][1] > self._sent_at:
                    elapsed -= monitor.hidden(self._sent_at, item.at, item.idle)
            elapsed = max(0.0, elapsed)
            self.last_answer_ms = round(elapsed * 1000, 3)
            if elapsed > allowance:
                # Arrived past limit + bank + grace but read only now (a simultaneous step
                # collects its seats one by one): a timeout, as it would be had it been
                # collected first, not a strike that lets the answer stand.
                self._abandoned.add(request_id)
                self._bank = 0.0
                return _Failed("timeout", f"no answer within {allowance * 1000:.0f} ms (limit + bank + grace)")
            return self._charge(elapsed, answer.option_id)

    def _charge(self, elapsed: float, option_id: str) -> str | _Failed:
        """Clock accounting for an answer that took ``elapsed`` seconds."""
        limit = self._clock.decision_ms / 1000.0
        over = max(0.0, elapsed - limit)
        if over > self._bank:
            late = over - self._bank
            self._bank = 0.0
            if self._strikes >= self._clock.max_strikes:  # a timeout: it uses no strike
                used = self._strikes
                return _Failed("timeout", f"answered {late * 1000:.0f} ms late with no strikes left ({used} used)")
            self._strikes += 1
            self.last_strike_ms = round(late * 1000, 3)
        else:
            self._bank -= over
        # At most what a clock field holds: past 2^32 ms the bank sent wrapped (an outside probe:
        # bank=4294967295,increment=1000 told the bot 999 ms while it kept 49 days).
        self._bank = min(self._bank + self._clock.increment_ms / 1000.0, MAX_MS / 1000.0)
        return option_id

    def _protocol(self, request_id: int, detail: str) -> _Failed:
        self._abandoned.add(request_id)  # its answer may still come: drop it when it does
        return _Failed("protocol", detail)

    def _failure_of_item(self, item: _Inbound, before: str) -> _Failed:
        """The failure an inbound item that is not a message stands for, awaiting ``before``."""
        if item.kind == "eof":  # the call ended with status OK (any other status is an error)
            return _Failed("crash", f"the bot ended the stream (status OK) before {before}")
        assert item.error is not None
        return self._failure_of_error(item.error, before)

    def _failure_of_error(self, error: grpc.aio.AioRpcError, before: str) -> _Failed:
        """The failure a stream's error stands for, awaiting ``before``: gRPC core's own error
        tells only that the stream ended, not how the bot ended it."""
        if error.details() == CORE_ERROR:
            return _Failed("crash", f"the stream ended before {before} (its status never came)")
        return self._hidden(_failure_of_error(error))

    def _hidden(self, failure: PlayerFailure) -> _Failed:
        """A failure whose detail quotes gRPC or the resolver, with the endpoint left out."""
        host = self.target.rpartition(":")[0] if not self.spec.startswith("unix:") else ""
        return _Failed(failure.verdict, without_endpoint(failure.detail, self.spec, self.target, host))

    def _die(self, failure: _Failed) -> _Failed:
        self._dead = failure
        return failure
