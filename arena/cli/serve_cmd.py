"""``arena serve``: the referee service (gRPC API) over Redis; tournaments go to the workers."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import os
import secrets
import socket
import sys
import time
from typing import Any

from arena.cli import UsageError
from arena.cli.common import DEFAULT_REDIS, decimal, metrics_of_this_process, port_number, whole_number
from arena.logs import mask_passwords

log = logging.getLogger("arena.service")
WORKERLESS_SECONDS = 60.0
"""A tournament queued this long with no worker alive on the store is said in the log."""
WORKERLESS_WARN_EVERY = 300.0


def parked_warning(parked: dict[str, tuple[str, str]]) -> str:
    """What the service says of tournaments whose batches wait for a worker of their game
    version (``Store.parked``) while none is alive, naming the first."""
    first = sorted(parked)[0]
    game, version = parked[first]
    return (
        f"{len(parked)} tournament(s) wait for a worker of another game version (e.g. {first}: {game} {version}): "
        "start workers of the Arena version that plays it, or cancel it"
    )


SERVICE_ALIVE_SECONDS = 10.0
"""How long a service counts as alive on its store after saying so (it says so every tick, 2 s)."""


def another_service_warning(nodes: list[str]) -> str:
    return (
        f"another arena serve uses this store ({', '.join(nodes)}): run one service per store; each keeps "
        "its own per-owner rate and challenge limits, so every further service adds its own to them "
        "(the running-tournament limit is kept in the store and holds)"
    )


def pid_namespace() -> str:
    """This process's PID namespace (its inode), or a random tag where /proc does not say: a
    pid means a process only within one (two containers of one host name are each pid 1)."""
    try:
        return os.readlink("/proc/self/ns/pid").removeprefix("pid:[").removesuffix("]")
    except OSError:
        return "x" + secrets.token_hex(4)


def gone_from_this_host(node: str, host: str, namespace: str) -> bool:
    """Whether ``node`` (host:pid:namespace) is a process of this host and PID namespace that no
    longer runs (a service killed a moment ago, counted alive for a few more seconds). One of
    another namespace cannot be looked up: it counts as alive (a container restarted within the
    note's 10 s is said once; two services unwarned would double the limits)."""
    where, pid, space = [*node.rsplit(":", 2), "", ""][:3]
    if where != host or space != namespace or not (pid.isascii() and pid.isdigit()):
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # another user's live process
    return False


class ServiceNote:
    """This service's note on the store that it is alive, and one WARNING per other service
    found on it: each service keeps its own rate and challenge limits (an outside races probe
    ran two, unwarned, and one owner held twice the challenges the README allows)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.host = socket.gethostname()
        self.namespace = pid_namespace()
        self.node = f"{self.host}:{os.getpid()}:{self.namespace}"
        self.told: set[str] = set()

    def beat(self) -> None:
        others = []
        for node in self.store.service_seen(self.node, SERVICE_ALIVE_SECONDS):
            if gone_from_this_host(node, self.host, self.namespace):
                self.store.service_gone(node)
            else:
                others.append(node)
        new = [node for node in others if node not in self.told]
        if new:
            self.told.update(new)
            log.warning(another_service_warning(new))

    def gone(self) -> None:
        with contextlib.suppress(Exception):  # a store gone first: the note lapses by itself
            self.store.service_gone(self.node)


def register(commands: Any) -> None:
    from arena.ports import DEFAULT_HTTP_PORT, DEFAULT_METRICS_PORT, DEFAULT_PORT

    parser = commands.add_parser("serve", help="run the referee service (gRPC API)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; 0.0.0.0 for all)")
    parser.add_argument(
        "--port", type=port_number, default=DEFAULT_PORT, help=f"gRPC port (default {DEFAULT_PORT}; 0 = any)"
    )
    parser.add_argument(
        "--redis", default=DEFAULT_REDIS, metavar="URL", help=f"store and broker (default {DEFAULT_REDIS})"
    )
    parser.add_argument(
        "--metrics-port",
        type=port_number,  # 70000 ended in a traceback (an outside operator probe)
        default=DEFAULT_METRICS_PORT,
        help=f"Prometheus /metrics (default {DEFAULT_METRICS_PORT}; 0 = off)",
    )
    parser.add_argument(
        "--http-port",
        type=port_number,
        default=DEFAULT_HTTP_PORT,
        help=f"web UI: games, leaderboards, tournaments, replays (default {DEFAULT_HTTP_PORT}; 0 = off)",
    )
    parser.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="play hosted bots' trial matches WITHOUT the bubblewrap sandbox (local development only); warns",
    )
    parser.add_argument(
        "--rate", type=decimal, default=100.0, help="calls per second per owner (default 100; 0 = unlimited)"
    )
    parser.add_argument("--burst", type=whole_number, default=200, help="burst of calls per owner (default 200)")
    parser.add_argument(
        "--grace", type=decimal, default=10.0, help="seconds in-flight calls get at shutdown (default 10)"
    )
    parser.add_argument(
        "--allow-endpoints",
        metavar="CIDR,...",
        default="",
        help="internal addresses bots may be registered at and dialled (default: public addresses only; "
        "e.g. 127.0.0.0/8,::1 for local bots, 'unix' for unix sockets)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    metrics_of_this_process()  # a worker node's directory is not the service's
    from arena.cli.players import make_player
    from arena.cli.tournament_cmd import check_broker
    from arena.tournament import TournamentSpec
    from bots.registry import bot_names
    from referee import endpoints
    from referee.server import ServerConfig, serve_until_signalled
    from referee.store import Store
    from workers import settings
    from workers.app import QUEUE, make_app
    from workers.sweeper import StallSweeper, stall_seconds

    # One spelling for the three listeners: gRPC wants an IPv6 address in brackets, /metrics and
    # the web UI bare (no spelling of ::1 started all three: an outside metrics probe).
    args.host = args.host.strip().removeprefix("[").removesuffix("]")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: expected 0..65535")
    if not 0 <= args.http_port <= 65535:
        raise UsageError(f"--http-port {args.http_port}: expected 0..65535 (0 = no web UI)")
    from arena.ports import bind_error, host_error, host_port

    if why := host_error(args.host):  # before the ports: a bad host was blamed on --http-port
        raise UsageError(f"--host {args.host}: {why}")
    # Checked before anything starts: found later, a busy web UI port was reported as the gRPC
    # port's ("cannot serve on 127.0.0.1:50051: cannot serve the web UI on ...:8080").
    if args.http_port and (why := bind_error(args.host, args.http_port)):
        raise UsageError(f"--http-port {args.http_port}: {why}; choose another port, or 0 for no web UI")
    # A negative rate read as "unlimited" and a burst of 0 refused every call: both were typos
    # the service took without a word.
    if not (math.isfinite(args.rate) and args.rate >= 0):
        raise UsageError(f"--rate {args.rate:g}: expected calls per second, 0 or more (0 = unlimited)")
    if args.burst < 1:
        raise UsageError(f"--burst {args.burst}: expected at least 1 call")
    if not (math.isfinite(args.grace) and args.grace >= 0):
        raise UsageError(f"--grace {args.grace:g}: expected seconds, 0 or more")
    endpoints.configure(endpoints.EndpointPolicy.parse(args.allow_endpoints))
    # Every ARENA_* setting, before Redis is dialled: the service's stall check runs the workers'
    # code, so a bad ARENA_LEASE_SECONDS once left it failing every 2 s for good (a README probe).
    settings.check()  # a ConfigError names the bad one
    stall = stall_seconds()
    from referee.hosted import jail

    if args.unsafe_no_sandbox:
        jail.allow_unsafe()  # uploads' trial matches run unsandboxed; logs the warning
    jail.clear_left_seats()  # what a killed service's or worker's trial seats left on this host
    check_broker(args.redis, "the store and broker", settings=True)
    app = make_app(args.redis)
    store = Store(args.redis)
    note = ServiceNote(store)

    def submit(tournament_id: str, spec: TournamentSpec) -> None:
        # One message whatever the size: a worker enqueues the batches (workers.tasks.fan_out).
        store.mark_fan_out(tournament_id)  # how the stall check tells it lost (Store.fan_out_lost)
        app.send_task("arena.fan_out", args=[tournament_id])

    interceptors: list[Any] = []
    refresh: Any = None
    sweeper = StallSweeper(app, store, stall)
    from referee.match_cache import MatchCache

    match_cache = MatchCache.from_environment()  # its settings checked before anything starts
    if args.metrics_port:
        from arena.registry import games
        from referee import metrics

        metrics.initialize(games())
        collectors = (metrics.StoreCollector(store, QUEUE), metrics.MatchCacheCollector(match_cache))
        try:
            # Bound to the service's own --host (127.0.0.1 unless asked): /metrics is not public.
            metrics.start_metrics_server(args.metrics_port, *collectors, addr=args.host)
        except OSError as exc:
            raise UsageError(f"--metrics-port {args.metrics_port}: {exc.strerror or exc}") from None
        interceptors.append(metrics.MetricsInterceptor())

        def refresh() -> None:  # the published ratings, as gauges
            for game_id in games():
                board = store.game_leaderboard(game_id)
                if board:
                    metrics.set_ratings(game_id, board)

    warned = [-WORKERLESS_WARN_EVERY]
    warned_parked = [-WORKERLESS_WARN_EVERY]

    def housekeeping() -> None:
        note.beat()
        sweeper.sweep()
        if refresh is not None:
            refresh()
        parked = {t: wanted for t, wanted in store.parked().items() if not store.version_alive(*wanted)}
        if parked and time.monotonic() - warned_parked[0] >= WORKERLESS_WARN_EVERY:
            warned_parked[0] = time.monotonic()
            log.warning(parked_warning(parked))
        waiting = store.waiting_without_workers(WORKERLESS_SECONDS)
        if waiting and time.monotonic() - warned[0] >= WORKERLESS_WARN_EVERY:
            warned[0] = time.monotonic()
            log.warning(
                f"{len(waiting)} tournament(s) queued over {WORKERLESS_SECONDS:g} s and no worker alive on this store "
                f"(e.g. {waiting[0]}): start `arena worker --broker` on the Redis URL and database of this service"
            )

    config = ServerConfig(
        store_url=args.redis,
        submit=submit,
        make_player=make_player,
        builtin_bots=bot_names,
        host=args.host,
        port=args.port,
        rate=args.rate,
        burst=args.burst,
        grace=args.grace,
        interceptors=interceptors,
        every_few_seconds=housekeeping,
        http_port=args.http_port,
        match_cache=match_cache,
    )

    def announce(running: Any) -> None:
        note.beat()  # serving: a second service on the store is told at once (one that fails to start is not)
        print(f"arena service on {host_port(args.host, running.port)} (store {mask_passwords(args.redis)})", flush=True)
        if running.http_port:
            print(f"web UI on http://{host_port(args.host, running.http_port)}/", flush=True)

    try:
        asyncio.run(serve_until_signalled(config, announce))
    except OSError as exc:
        if str(exc).startswith("cannot serve"):  # it names its own address (the web UI's)
            raise UsageError(str(exc)) from None
        raise UsageError(f"cannot serve on {args.host}:{args.port}: {exc}") from None
    finally:
        note.gone()
    print("arena service stopped", file=sys.stderr)
    return 0
