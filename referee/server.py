"""Running the referee service: a grpc.aio server with auth, health, reflection, limits and a
graceful shutdown.

On SIGTERM, SIGINT or SIGHUP the server (1) flips health to NOT_SERVING so load balancers stop sending
work, (2) ends watch streams with UNAVAILABLE ("watch again"), and (3) stops accepting calls,
giving the ones in flight ``grace`` seconds to finish before they are cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.ports import DEFAULT_PORT, MAX_REQUEST, MAX_RESPONSE, bind_error, host_port
from arena.v1 import arena_pb2, arena_pb2_grpc
from referee.auth import AuthInterceptor
from referee.errors import STORE_DOWN
from referee.service import ArenaService, PlayerFactory, RateLimiter, ServiceState, Submit
from referee.store import Store

log = logging.getLogger("arena.service")
SERVICE_NAME = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name
STORE_CHECK_SECONDS = 1.0


@dataclass
class ServerConfig:
    store_url: str
    submit: Submit
    make_player: PlayerFactory
    builtin_bots: Callable[[str], list[str]]
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    rate: float = 100.0
    burst: int = 200
    grace: float = 10.0
    interceptors: Sequence[grpc.aio.ServerInterceptor] = field(default_factory=tuple)
    every_few_seconds: Callable[[], None] | None = None
    """Run on a thread every ``tick`` seconds while serving (e.g. refresh the rating gauges)."""
    tick: float = 2.0
    http_port: int = 0
    """The web UI's port (referee.web), on the same loop and store; 0 = no web UI."""
    match_cache: Any = None
    """The service's match cache (referee.match_cache.MatchCache); None: one from the environment."""


class RunningServer:
    def __init__(
        self,
        server: grpc.aio.Server,
        port: int,
        health_servicer: health.aio.HealthServicer,
        state: ServiceState,
        grace: float,
    ) -> None:
        self.server = server
        self.port = port
        self.health = health_servicer
        self.state = state
        self.grace = grace
        self.ticker: asyncio.Task[None] | None = None
        self.store_watch: asyncio.Task[None] | None = None
        self.web: Any = None  # the web UI's aiohttp runner, if any
        self.http_port = 0

    async def shutdown(self) -> None:
        self.state.shutting_down.set()
        for task in (self.ticker, self.store_watch):
            if task is not None:
                task.cancel()
        await self.health.enter_graceful_shutdown()
        if self.web is not None:
            await self.web.cleanup()
        await self.server.stop(self.grace)


async def _watch_store(store: Store, health_servicer: health.aio.HealthServicer, state: ServiceState) -> None:
    """Health follows the store: NOT_SERVING while Redis does not answer, SERVING again when it
    does (every call would fail meanwhile: load balancers should send work elsewhere)."""
    loop = asyncio.get_running_loop()
    serving: bool | None = True
    while not state.shutting_down.is_set():
        try:
            up = await asyncio.wait_for(loop.run_in_executor(None, store.ping), STORE_CHECK_SECONDS * 2)
        except Exception:  # any failure to answer is "down"; the reason is logged once
            up = False
        if up != serving and not state.shutting_down.is_set():
            status = health_pb2.HealthCheckResponse.SERVING if up else health_pb2.HealthCheckResponse.NOT_SERVING
            for name in ("", SERVICE_NAME):
                await health_servicer.set(name, status)
            if up:
                log.info("store reachable again: health SERVING")
            else:
                log.warning("store unreachable: health NOT_SERVING")
            serving = up
        await asyncio.sleep(STORE_CHECK_SECONDS)


async def _tick(job: Callable[[], None], seconds: float) -> None:
    loop = asyncio.get_running_loop()
    while True:
        try:
            await loop.run_in_executor(None, job)
        except STORE_DOWN:  # said once by the store check ("store unreachable"): no traceback each time
            log.debug("periodic job skipped: the store is unavailable")
        except Exception:  # a failing refresh must not stop the service; it is logged
            log.exception("periodic job failed")
        await asyncio.sleep(seconds)


REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"


def enable_reflection(server: grpc.aio.Server) -> None:
    """Server reflection under both names tools use: ``grpc.reflection.v1`` (current grpcurl,
    Postman) and ``v1alpha``. The two protocols are the same messages in different packages,
    so one servicer answers both. Every game's protocol is in the descriptor pool (its module
    is imported here), so a client can decode the game payloads (``google.protobuf.Any``) that
    GetMatch and Challenge return."""
    from arena.registry import games

    for game in games().values():  # imports each game's generated module into the default pool
        _ = game.observation_type.DESCRIPTOR, game.action_type.DESCRIPTOR
    names = (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME, REFLECTION_V1)
    reflection.enable_server_reflection(names, server)
    servicer = reflection.aio.ReflectionServicer(names)
    from grpc_reflection.v1alpha import reflection_pb2

    v1 = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": v1}),)
    )


async def start(config: ServerConfig) -> RunningServer:
    problem = bind_error(config.host, config.port)
    if problem is not None:
        raise OSError(problem)
    store = Store(config.store_url)
    state = ServiceState()
    server = grpc.aio.server(
        interceptors=[*config.interceptors, AuthInterceptor(store)],
        options=[
            ("grpc.max_receive_message_length", MAX_REQUEST),
            ("grpc.max_send_message_length", MAX_RESPONSE),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
            # A busy port is an error, not shared with the process that holds it (gRPC's default).
            ("grpc.so_reuseport", 0),
        ],
    )
    service = ArenaService(
        store,
        config.submit,
        config.make_player,
        builtin_bots=config.builtin_bots,
        limiter=RateLimiter(config.rate, config.burst),
        state=state,
        match_cache=config.match_cache,
    )
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(service, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection(server)
    try:
        port = server.add_insecure_port(host_port(config.host, config.port))
    except RuntimeError:  # grpcio raises when nothing could be bound
        port = 0
    if port == 0:
        raise OSError(f"cannot bind {config.host}:{config.port}")
    # Store calls are blocking: give them a pool big enough for many concurrent clients.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=32, thread_name_prefix="arena-api"))
    try:  # tournaments from before the games' own indexes, once (a page of a game reads its own)
        indexed = await asyncio.get_running_loop().run_in_executor(None, store.index_games)
        if indexed:
            log.info("indexed %d earlier tournaments by game", indexed)
    except STORE_DOWN as exc:  # the store is not up yet: the next start indexes them
        log.warning("tournaments not indexed by game: the store is unavailable (%s)", exc)
    web_runner, http_port = None, 0
    if config.http_port:
        from referee.web import start_web

        try:
            web_runner, http_port = await start_web(store, service, config.host, config.http_port)
        except OSError as exc:
            raise OSError(
                f"cannot serve the web UI on {config.host}:{config.http_port}: {exc.strerror or exc}"
            ) from None
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    running = RunningServer(server, port, health_servicer, state, config.grace)
    running.web, running.http_port = web_runner, http_port
    running.store_watch = asyncio.get_running_loop().create_task(_watch_store(store, health_servicer, state))
    if config.every_few_seconds is not None:
        running.ticker = asyncio.get_running_loop().create_task(_tick(config.every_few_seconds, config.tick))
    return running


def stop_signals() -> list[signal.Signals]:
    """What stops the service gracefully: SIGINT, SIGTERM and SIGHUP (a closed terminal or SSH
    session killed it at once), unless SIGHUP is ignored (``nohup``: the service outlives it)."""
    hangup = [signal.SIGHUP] if signal.getsignal(signal.SIGHUP) != signal.SIG_IGN else []
    return [signal.SIGINT, signal.SIGTERM, *hangup]


async def serve_until_signalled(config: ServerConfig, on_ready: Callable[[RunningServer], None]) -> None:
    running = await start(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # Before the service says it serves: a SIGHUP sent on that line found the default action
    # and killed it (a CI run).
    for sig in stop_signals():
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    on_ready(running)
    await stop.wait()
    await running.shutdown()
