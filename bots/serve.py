"""Serving a bot over gRPC: one call.

    from bots.serve import serve
    serve(MyBot, "127.0.0.1:50061")          # blocks; Ctrl-C or SIGTERM stops it cleanly

``make_bot`` is called once per match (one Play stream), so a bot keeps per-match state in
``self``. The server accepts many matches at once (``max_matches`` threads). Exceptions in the
bot's code end that match's stream with an error (the referee records a crash) and are logged
here with their traceback, for the bot's author.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent import futures

import grpc

from arena.config import ConfigError
from arena.ports import bind_error
from arena.v1 import bot_pb2, bot_pb2_grpc
from bots.sdk import Bot

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


class BotServicer(bot_pb2_grpc.BotServiceServicer):
    def __init__(self, make_bot: Callable[[], Bot]) -> None:
        self.make_bot = make_bot

    def Play(
        self, request_iterator: Iterator[bot_pb2.RefereeMessage], context: grpc.ServicerContext
    ) -> Iterator[bot_pb2.BotMessage]:
        bot: Bot | None = None
        try:
            for message in request_iterator:
                body = message.WhichOneof("body")
                if body == "start":
                    bot = self.make_bot()
                    yield bot_pb2.BotMessage(ready=bot.start(message.start))
                elif body == "decision" and bot is not None:
                    choice = bot.decide(message.decision)
                    yield bot_pb2.BotMessage(
                        decision=bot_pb2.DecisionResponse(
                            decision_index=message.decision.decision_index,
                            option_id=choice,
                            request_id=message.decision.request_id,
                        )
                    )
                elif body == "finish" and bot is not None:
                    bot.finish(message.finish)
                    return
                elif body == "abort":
                    log.warning("match aborted by the referee: %s (%s)", message.abort.reason, message.abort.verdict)
                    return
        except Exception:
            log.exception("bot %s failed", getattr(bot, "name", "?"))
            context.abort(grpc.StatusCode.INTERNAL, "the bot raised an exception")


class BotServer:
    """A running bot server (``port`` is the bound port)."""

    def __init__(self, server: grpc.Server, port: int, address: str) -> None:
        self.server = server
        self.port = port
        self.address = address

    def stop(self, grace: float = 1.0) -> None:
        self.server.stop(grace).wait()

    def wait(self) -> None:
        self.server.wait_for_termination()


def start(make_bot: Callable[[], Bot], address: str = "127.0.0.1:0", *, max_matches: int = 64) -> BotServer:
    """Start serving in background threads; returns at once with the bound port."""
    probe = make_bot()
    reason = getattr(probe, "in_process_only", "")  # a bot that needs the referee's worlds (search)
    if reason:
        raise ConfigError(f"bot {probe.name!r} plays in-process only: {reason}")
    if not address.startswith("unix:"):
        host, _, port_text = address.rpartition(":")
        problem = bind_error(host, int(port_text)) if port_text.isdigit() else None
        if problem is not None:
            raise OSError(problem)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_matches), options=SERVER_OPTIONS)
    bot_pb2_grpc.add_BotServiceServicer_to_server(BotServicer(make_bot), server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as exc:  # grpcio raises when nothing could be bound
        raise OSError(f"cannot bind {address}: {str(exc).split(';')[0]}") from None
    if port == 0 and not address.startswith("unix:"):
        raise OSError(f"cannot bind {address}")
    server.start()
    return BotServer(server, port, address)


def serve(
    make_bot: Callable[[], Bot],
    address: str = "127.0.0.1:0",
    *,
    max_matches: int = 64,
    on_ready: Callable[[BotServer], None] | None = None,
) -> None:
    """Serve a bot until SIGINT or SIGTERM, then stop gracefully (in-flight matches get 5 s)."""
    # A hosted bot (issue 17) listens where the platform says: its jail sets ARENA_BOT_ADDRESS.
    address = os.environ.get("ARENA_BOT_ADDRESS", address)
    running = start(make_bot, address, max_matches=max_matches)
    if on_ready is not None:
        on_ready(running)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    running.stop(5.0)
