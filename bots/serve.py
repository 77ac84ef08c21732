"""Serving a bot over gRPC: one call.

    from bots.serve import serve
    serve(MyBot, "127.0.0.1:50061")          # blocks; Ctrl-C, SIGTERM or SIGHUP stops it cleanly

``make_bot`` is called once per match (one Play stream), so a bot keeps per-match state in
``self``. Exceptions in the bot's code end that match's stream with an error (the referee
records a crash) and are logged here with their traceback, for the bot's author.

The server is asyncio (``grpc.aio``): every stream is a coroutine on one event loop, so a message
costs no thread hop in the server itself (the synchronous gRPC server hands each message
between its polling thread and a thread per stream). The bot's own code runs

* on a thread pool (``max_matches`` threads), by default: a bot that thinks for a while (or
  sleeps, or waits on an engine) does not hold up the other matches this server plays;
* on the loop itself when the bot says ``inline = True`` (a bot that answers in microseconds:
  the thread hop would cost more than its decision), or when its ``choose`` is a coroutine
  (``async def choose``), which is awaited there.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import re
import signal
import socket
import struct
import sys
import threading
from collections.abc import Awaitable, Callable
from concurrent import futures
from typing import Any

import grpc
import grpc.aio

from arena.config import ConfigError
from arena.ports import bind_error
from arena.protocol import ProofCheck, check_endpoint_key, varint
from arena.v1 import bot_pb2
from bots.sdk import Bot, Turn

log = logging.getLogger("arena.bot")

SERVER_OPTIONS = (
    ("grpc.max_receive_message_length", 16 * 1024 * 1024),
    ("grpc.max_send_message_length", 1024 * 1024),
    # The referee pings every 30 s to keep long thinks alive; allow it, even between calls.
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.http2.max_pings_without_data", 0),
    # A busy port is an error, not shared with the process that holds it (gRPC's default).
    ("grpc.so_reuseport", 0),
)


async def _decide_async(bot: Bot, request: bot_pb2.DecisionRequest) -> str:
    """A bot with ``async def choose``: its answer awaited on the loop."""
    bot.heard(request.events)
    answer: Any = bot.choose(Turn(request, bot))
    if inspect.isawaitable(answer):
        answer = await answer
    return str(answer)


_ANSWER_TAG = b"\x12"  # BotMessage.decision: field 2, length-delimited
_UINT64 = struct.Struct("<Q")


class NotAnOptionId(TypeError):
    """``choose`` returned something else than an option id: the SDK's own words, which the
    referee may hear (an author's mistake; other exceptions' texts stay in the bot's log)."""


def answer_bytes(decision_index: int, option_id: str, request_id: int) -> bytes:
    """``BotMessage(decision=DecisionResponse(...))`` serialised, without building either
    message (the same bytes: fields in number order, zero values left out)."""
    if not isinstance(option_id, str):
        raise NotAnOptionId(f"choose must return an option id (str), not {type(option_id).__name__}")
    option = option_id.encode()
    body = b"".join(
        (
            b"\x08" + varint(decision_index) if decision_index else b"",
            b"\x12" + varint(len(option)) + option if option else b"",
            b"\x19" + _UINT64.pack(request_id) if request_id else b"",
        )
    )
    return _ANSWER_TAG + varint(len(body)) + body


class BotServicer:
    """``BotService``, served with raw bytes: a request is parsed here (once), an answer is
    written as bytes (:func:`answer_bytes`), and the stream is driven with the call's own
    ``read``/``write`` (no async generators between gRPC and the bot)."""

    def __init__(self, make_bot: Callable[[], Bot], pool: futures.Executor, key: str | None = None) -> None:
        self.make_bot = make_bot
        self.pool = pool
        # The endpoint's key: every start must prove it, once (see start). One check per server:
        # the nonces it took are remembered across its streams (all on this server's loop).
        self.proofs = ProofCheck(key) if key is not None else None

    async def _run(self, bot: Bot | None, call: Callable[..., Any], *args: Any) -> Any:
        if bot is not None and getattr(bot, "inline", False):
            return call(*args)
        return await asyncio.get_running_loop().run_in_executor(self.pool, call, *args)

    def handler(self) -> grpc.GenericRpcHandler:
        """The generic handler serving ``/arena.v1.BotService/Play`` (bytes in, bytes out)."""
        play: grpc.RpcMethodHandler = grpc.stream_stream_rpc_method_handler(self.Play)  # raw bytes
        return grpc.method_handlers_generic_handler(SERVICE, {"Play": play})

    async def Play(self, request_iterator: object, context: grpc.aio.ServicerContext) -> None:
        read, write = context.read, context.write
        bot: Bot | None = None
        decide: Callable[[bot_pb2.DecisionRequest], Awaitable[str]] | None = None
        direct: Callable[[bot_pb2.DecisionRequest], str] | None = None  # an inline bot's decide
        label = "a match not started"  # which match and seat, for the log
        try:
            while True:
                data = await read()
                if data is grpc.aio.EOF:
                    return
                message = bot_pb2.RefereeMessage.FromString(data)
                body = message.WhichOneof("body")
                if body == "decision" and bot is not None:
                    request = message.decision
                    choice = direct(request) if direct is not None else await decide(request)  # type: ignore[misc]
                    await write(answer_bytes(request.decision_index, choice, request.request_id))
                elif body == "start":
                    label = f"match {message.start.match_id or '?'} seat {message.start.seat}"
                    refusal = self.proofs.refusal(message.start) if self.proofs is not None else None
                    if refusal is not None:
                        # A registration without this endpoint's key (someone else's, or the
                        # owner's own registered without it), or a proof used before: no bot is
                        # made, nothing is played.
                        log.warning("%s refused: %s", label, refusal)
                        context.set_code(grpc.StatusCode.PERMISSION_DENIED)  # ends the call so
                        context.set_details(NO_PROOF)  # (abort would raise into the handler below)
                        return
                    bot = await self._run(None, self.make_bot)
                    assert bot is not None
                    if inspect.iscoroutinefunction(bot.choose):
                        decide = lambda request, bot=bot: _decide_async(bot, request)  # noqa: E731
                        direct = None
                    elif getattr(bot, "inline", False):
                        direct = bot.decide
                    else:
                        decide = lambda request, bot=bot: self._run(bot, bot.decide, request)  # noqa: E731
                        direct = None
                    ready = await self._run(bot, bot.start, message.start)
                    await write(bot_pb2.BotMessage(ready=ready).SerializeToString())
                elif body == "finish" and bot is not None:
                    await self._run(bot, bot.finish, message.finish)
                    return
                elif body == "abort":
                    log.warning(
                        "%s aborted by the referee: %s (%s)", label, message.abort.reason, message.abort.verdict
                    )
                    return
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("bot %s failed", getattr(bot, "name", "?"))
            # The exception's kind reaches the referee's verdict (and the author's record); its
            # text may hold the bot's secrets, so it stays in this log, but for the SDK's own.
            said = f": {error}" if isinstance(error, NotAnOptionId) else " (its traceback is in the bot's log)"
            await context.abort(grpc.StatusCode.INTERNAL, f"the bot raised {type(error).__name__}{said}")


SERVICE = "arena.v1.BotService"


class BotServer:
    """A running bot server (``port`` is the bound port), on its own event loop thread."""

    def __init__(
        self,
        server: grpc.aio.Server,
        port: int,
        address: str,
        loop: asyncio.AbstractEventLoop,
        thread: threading.Thread,
        pool: futures.ThreadPoolExecutor,
    ) -> None:
        self.server = server
        self.port = port
        self.address = address
        self._loop = loop
        self._thread = thread
        self._pool = pool
        self._stopped = False

    def stop(self, grace: float = 1.0) -> None:
        if self._stopped:
            return
        self._stopped = True
        asyncio.run_coroutine_threadsafe(self.server.stop(grace), self._loop).result(grace + 10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def wait(self) -> None:
        self._thread.join()


NO_PROOF = (
    "this endpoint has a key and plays only starts that prove it, once (MatchStart.endpoint_proof): this start does not"
)


def unix_bind_error(address: str) -> str | None:
    """None if the Unix socket of ``address`` (``unix:PATH`` or ``unix:///PATH``) may be bound:
    nothing there, or a stale socket file nobody listens on (gRPC replaces it); else why not.
    gRPC would take over a live server's socket file without a word."""
    path = address.removeprefix("unix:")
    if path.startswith("//"):
        path = path[2:]
    if not os.path.exists(path):
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(2.0)
        try:
            probe.connect(path)
        except TimeoutError:
            pass  # a listener too busy to accept at once is a listener
        except OSError:
            return None  # refused (stale) or not a socket: gRPC replaces or refuses it
    return "Address already in use (a server answers on this socket)"


def start(
    make_bot: Callable[[], Bot],
    address: str = "127.0.0.1:0",
    *,
    max_matches: int = 64,
    servicer: type[BotServicer] = BotServicer,
    key: str | None = None,
) -> BotServer:
    """Start serving on a background event loop thread; returns at once with the bound port.
    ``servicer`` is for an instrumented server (``bench.transport_legs`` notes its moments).

    ``key``: the endpoint's key (``arena bot new-key``). The server then plays only starts that
    prove it (``MatchStart.endpoint_proof``, which the service sends for a registration that
    holds the key), so nobody can register the endpoint as theirs, nor play it through a relay.
    None: it plays every start."""
    if key is not None:
        check_endpoint_key(key, "the endpoint's key")
    probe = make_bot()
    reason = getattr(probe, "in_process_only", "")  # a bot that needs the referee's worlds (search)
    if reason:
        raise ConfigError(f"bot {probe.name!r} plays in-process only: {reason}")
    if max_matches < 1:
        raise ConfigError(f"max_matches must be at least 1, got {max_matches}")
    if address.startswith("unix:"):
        problem = unix_bind_error(address)
    else:
        host, _, port_text = address.rpartition(":")
        if not re.fullmatch(r"-?[0-9]+", port_text):  # ASCII digits: int() read ٣ and failed on ²
            raise ConfigError(f"address {address!r}: expected HOST:PORT or unix:/PATH")
        problem = bind_error(host, int(port_text))
    if problem is not None:
        raise OSError(problem)
    loop = asyncio.new_event_loop()
    pool = futures.ThreadPoolExecutor(max_workers=max_matches, thread_name_prefix="arena-bot")
    thread = threading.Thread(target=loop.run_forever, name="arena-bot-server", daemon=True)
    thread.start()

    async def begin() -> tuple[grpc.aio.Server, int]:
        server = grpc.aio.server(options=SERVER_OPTIONS, maximum_concurrent_rpcs=None)
        server.add_generic_rpc_handlers((servicer(make_bot, pool, key).handler(),))
        try:
            port = server.add_insecure_port(address)
        except RuntimeError as exc:  # grpcio raises when nothing could be bound
            raise OSError(f"cannot bind {address}: {str(exc).split(';')[0]}") from None
        if port == 0 and not address.startswith("unix:"):
            raise OSError(f"cannot bind {address}")
        await server.start()
        return server, port

    try:
        server, port = asyncio.run_coroutine_threadsafe(begin(), loop).result(30)
    except BaseException:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        pool.shutdown(wait=False)
        raise
    return BotServer(server, port, address, loop, thread, pool)


def serve(
    make_bot: Callable[[], Bot],
    address: str = "127.0.0.1:0",
    *,
    max_matches: int = 64,
    on_ready: Callable[[BotServer], None] | None = None,
    servicer: type[BotServicer] = BotServicer,
    key: str | None = None,
) -> None:
    """Serve a bot until SIGINT, SIGTERM or SIGHUP, then stop gracefully (in-flight matches get 5 s).
    Once listening, ``on_ready`` is called with the server; without one, ``serving on
    HOST:PORT`` goes to stderr (a hosted bot's platform knows its address: nothing then)."""
    # A hosted bot (issue 17) listens where the platform says: its jail sets ARENA_BOT_ADDRESS.
    address = os.environ.get("ARENA_BOT_ADDRESS", address)
    hosted = "ARENA_BOT_ADDRESS" in os.environ
    stop = threading.Event()
    # SIGHUP too (a closed terminal killed the server, leaving its socket), unless ignored (nohup).
    # Before the server starts: a signal between its socket's bind and these handlers killed it
    # at once, its socket left behind.
    # The caller's handlers come back when it returns, or raises (an address it cannot serve on).
    # While the bot is being made (start's first make_bot: a model's load, a download) a signal
    # acts as the caller's handler would, at once: it is not waited out, nor the server started.
    hangup = [signal.SIGHUP] if signal.getsignal(signal.SIGHUP) != signal.SIG_IGN else []
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, *hangup)}
    making = [True]

    def on_signal(signum: int, _frame: object) -> None:
        if making[0]:
            signal.signal(signum, previous[signal.Signals(signum)] or signal.SIG_DFL)
            try:
                signal.raise_signal(signum)
            finally:  # the caller's handler let the process go on (or ignores it): ours again
                signal.signal(signum, on_signal)
            return
        stop.set()

    def made_bot() -> Bot:
        bot = make_bot()
        making[0] = False
        return bot

    for sig in previous:
        signal.signal(sig, on_signal)
    try:
        running = start(made_bot, address, max_matches=max_matches, servicer=servicer, key=key)
        if on_ready is not None:
            on_ready(running)
        elif not hosted:  # the default port 0 picks a free one: this is how its author learns it
            where = address if address.startswith("unix:") else f"{address.rpartition(':')[0]}:{running.port}"
            keyed = " with its key" if key is not None else ""  # the address stays last
            print(f"serving{keyed} on {where}", file=sys.stderr, flush=True)
        stop.wait()
        running.stop(5.0)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
