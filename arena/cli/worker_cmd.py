"""``arena worker``: a Celery worker (prefork) that plays tournament batches.

Metrics: the node serves one ``/metrics`` (``--metrics-port``, default 9101) from its main
process, covering every pool process: prometheus_client's multiprocess mode, with its
directory (``$PROMETHEUS_MULTIPROC_DIR``, else ``<tmp>/arena-metrics-<port>``: made 0700, or
refused unless it is this user's own and, if chosen, no one else can write it) wiped here, before the pool
forks and before anything imports prometheus_client (which reads the variable once, at import).
With ``--metrics-port 0`` the node counts nothing (see ``stop_counting``).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import logging
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, NoReturn

from arena.cli import UsageError
from arena.cli.common import DEFAULT_REDIS, MULTIPROC_ENV, metrics_bind_problem, whole_number

DEFAULT_METRICS_PORT = 9101

log = logging.getLogger(__name__)


def register(commands: Any) -> None:
    parser = commands.add_parser("worker", help="run a Celery worker for distributed tournaments")
    parser.add_argument("--broker", default=DEFAULT_REDIS, metavar="URL", help=f"Redis URL (default {DEFAULT_REDIS})")
    parser.add_argument("--concurrency", type=whole_number, help="worker processes (default: cores)")
    parser.add_argument(
        "--visibility-timeout", type=whole_number, help="seconds before an unacknowledged batch is redelivered"
    )
    parser.add_argument(
        "--matches-per-process",
        type=whole_number,
        metavar="K",
        help="remote-bot matches each worker process plays at once, as coroutines on its event loop "
        "(default: $ARENA_MATCHES_PER_PROCESS, else 64)",
    )
    parser.add_argument(
        "--loglevel",
        "--log-level",  # the spelling every other command takes
        dest="loglevel",
        default="INFO",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="the worker's log level (default INFO)",
    )
    parser.add_argument("--hostname", help="Celery node name (default: arena@<host>)")
    parser.add_argument(
        "--metrics-port",
        type=whole_number,
        default=DEFAULT_METRICS_PORT,
        metavar="PORT",
        help=f"serve Prometheus /metrics for this node on PORT (default {DEFAULT_METRICS_PORT}; 0: none)",
    )
    parser.add_argument(
        "--allow-endpoints",
        metavar="CIDR,...",
        default="",
        help="internal addresses bots may be registered at and dialled (default: public addresses only; "
        "e.g. 127.0.0.0/8,::1 for local bots, 'unix' for unix sockets)",
    )
    parser.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run hosted bots WITHOUT the bubblewrap sandbox (local development only: their code can read "
        "this machine's files and use its network); logs a warning at start",
    )
    parser.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        help="address /metrics binds (default 127.0.0.1; 0.0.0.0 for a Prometheus on another host)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from arena.cli.tournament_cmd import check_broker
    from referee import endpoints

    # Before the pool forks: every pool process enforces it on every connection.
    endpoints.configure(endpoints.EndpointPolicy.parse(args.allow_endpoints))
    from referee.hosted import versions
    from referee.store import Store

    # Hosted versions are fetched from the store (a cached one a match plays is held: it stays).
    versions.configure(Store(args.broker))
    from referee.hosted import jail

    if args.unsafe_no_sandbox:
        jail.allow_unsafe()  # logs the warning; inherited by every pool process
    jail.clear_left_seats()  # what the seats of a worker killed mid-match left on this host
    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.matches_per_process is not None:
        if args.matches_per_process < 1:
            raise UsageError(f"--matches-per-process must be at least 1, got {args.matches_per_process}")
        # Read by every pool process (workers.concurrent), which inherits this environment.
        os.environ["ARENA_MATCHES_PER_PROCESS"] = str(args.matches_per_process)
    if not 0 <= args.metrics_port <= 65535:
        raise UsageError(f"--metrics-port must be a port number (0 for none), got {args.metrics_port}")
    from workers import settings

    if args.visibility_timeout is not None and args.visibility_timeout < 1:
        # 0 fell back to the default and a negative one reached kombu, both without a word.
        raise UsageError(f"--visibility-timeout must be at least 1 second, got {args.visibility_timeout}")
    settings.check(visibility_given=args.visibility_timeout is not None)  # a ConfigError names a bad ARENA_*
    check_broker(args.broker, settings=True)
    if args.metrics_port:
        prepare_multiprocess_dir(args.metrics_port)
        serve_metrics(args.broker, args.metrics_port, args.metrics_host)
    else:
        from referee.metrics import stop_counting

        stop_counting()  # inherited by the pool processes, forked below
    from celery import signals

    from workers.app import FINALIZE_QUEUE, QUEUE, make_app

    signals.setup_logging.connect(keep_json_logs, weak=False)
    app = make_app(args.broker, visibility_timeout=args.visibility_timeout)
    allowed = endpoints.EndpointPolicy.parse(args.allow_endpoints).text() or "public addresses only"
    print(f"arena worker: {settings.summary(args.visibility_timeout)}, bots dialled at {allowed}", flush=True)
    argv = ["worker", "--pool=prefork", f"--loglevel={args.loglevel}", "--without-gossip", "--without-mingle"]
    argv.append(f"--queues={QUEUE},{FINALIZE_QUEUE}")  # taken from in turn
    if args.concurrency:
        argv.append(f"--concurrency={args.concurrency}")
    argv.append(f"--hostname={args.hostname or 'arena@%h'}")
    say_alive(args.broker)
    from workers.sweeper import sweep_in_background

    sweep_in_background(app, args.broker)  # lost batches are found with no service or client
    app.worker_main(argv)
    return 0


ALIVE_EVERY = 10.0
"""How often a worker node tells the store it is alive (it counts for three times as long)."""


def say_alive(broker: str) -> None:
    """Tell the store every ALIVE_EVERY s that this node works for it (``Store.workers_alive``):
    a service with tournaments queued and no worker alive says so. A thread of the main process
    (the pool processes fork from it and do not inherit it); a Redis outage only skips a beat."""
    import contextlib
    import os
    import socket
    import threading
    import time

    import redis

    from arena.registry import games
    from referee.store import Store

    store, node = Store(broker), f"{socket.gethostname()}:{os.getpid()}"
    # What this node plays: a worker of another Arena version leaves a batch pinned to one of
    # these to this node rather than parking it (workers.tasks.play_batch).
    versions = [(game_id, game.meta.version) for game_id, game in sorted(games().items())]

    def beat() -> None:
        while True:
            with contextlib.suppress(redis.RedisError):
                store.worker_seen(node, 3 * ALIVE_EVERY, versions)
            time.sleep(ALIVE_EVERY)

    threading.Thread(target=beat, name="arena-alive", daemon=True).start()


def keep_json_logs(loglevel: int | None = None, **_: Any) -> None:
    """Celery's logging set-up: keep the JSON lines (arena.logs), take only its level.

    At INFO a worker writes one line per batch (``batch done``, workers.tasks): Celery's own
    per-task lines (received, succeeded) are kept for DEBUG."""
    if loglevel:
        level = loglevel if isinstance(loglevel, int) else logging.getLevelName(str(loglevel).upper())
        logging.getLogger().setLevel(level)
        quiet = logging.WARNING if isinstance(level, int) and level > logging.DEBUG else logging.DEBUG
        for name in ("celery.worker.strategy", "celery.app.trace", "celery.worker.consumer.mingle"):
            logging.getLogger(name).setLevel(quiet)


_HELD_LOCKS: list[int] = []
"""Open lock files of the metrics directories this process holds."""


def prepare_multiprocess_dir(port: int) -> Path:
    if "prometheus_client" in sys.modules:
        raise RuntimeError("prometheus_client was imported before its multiprocess directory was set")
    chosen = os.environ.get(MULTIPROC_ENV)
    path = Path(chosen or Path(tempfile.gettempdir()) / f"arena-metrics-{port}")
    directory = open_private_directory(path, bool(chosen))
    try:
        # One worker node per directory: a second one wiped the first's files, then each served
        # the other's values too (every count doubled). The lock lives as long as this process.
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        lock = os.open("arena-worker.lock", flags, 0o600, dir_fd=directory)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock)
            if chosen:
                raise UsageError(
                    f"metrics directory {path} (PROMETHEUS_MULTIPROC_DIR) is in use by another running worker: "
                    "give each worker its own (or unset it: each --metrics-port then has <tmp>/arena-metrics-<port>)"
                ) from None
            raise UsageError(
                f"--metrics-port {port} is another running worker's on this machine (its metrics directory "
                f"{path} is in use): give each worker its own --metrics-port"
            ) from None
        _HELD_LOCKS.append(lock)
        for name in os.listdir(directory):  # a previous run's values (only ours: never the whole directory)
            if name.endswith(".db"):
                os.unlink(name, dir_fd=directory)
    finally:
        os.close(directory)
    os.environ[MULTIPROC_ENV] = str(path)
    return path


def open_private_directory(path: Path, chosen: bool) -> int:
    """``path`` opened as a directory: made (mode 0700) if it is not there, else taken only if it
    is a directory, not a symlink, of this user's that no other user can write. The default path
    is a fixed name in a shared tmp: another user could put a symlink there (every ``*.db`` of a
    directory it points to was deleted) or a directory of their own (their values served as
    ours). What is done in it goes through the descriptor, never the path again."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    try:
        directory = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        problem = "is a symbolic link" if path.is_symlink() else f"cannot be opened as a directory ({exc.strerror})"
        refuse_directory(path, chosen, problem)
    found = os.fstat(directory)
    problem = ""
    if found.st_uid != os.geteuid():
        problem = f"belongs to another user (uid {found.st_uid})"
    elif found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        if not chosen:
            # Our own default one, made before it was made 0700 (umask 002 gave 0775): made
            # private, not refused as if another user had put it there.
            os.fchmod(directory, 0o700)
            return directory
        problem = f"is writable by other users (mode {stat.S_IMODE(found.st_mode):o})"
    if problem:
        os.close(directory)
        refuse_directory(path, chosen, problem)
    return directory


def refuse_directory(path: Path, chosen: bool, problem: str) -> NoReturn:
    if chosen:
        raise UsageError(
            f"metrics directory {path} ({MULTIPROC_ENV}) {problem}: set {MULTIPROC_ENV} to a directory of "
            "this user's that no one else can write (or to a path not there yet: it is made)"
        )
    raise UsageError(
        f"metrics directory {path} {problem}: remove it (another user may have put it there), or set "
        f"{MULTIPROC_ENV} to a directory of your own"
    )


def serve_metrics(broker: str, port: int, host: str = "127.0.0.1") -> None:
    from arena.registry import games
    from referee.metrics import StoreCollector, initialize, start_metrics_server
    from referee.store import Store
    from workers.app import QUEUE

    try:
        start_metrics_server(port, StoreCollector(Store(broker), QUEUE), addr=host)
    except OSError as exc:
        raise UsageError(f"cannot serve metrics on {host}:{port}: {metrics_bind_problem(exc)}") from None
    initialize(games())  # in this process's files, before the pool forks
    log.info("serving metrics", extra={"port": port, "directory": os.environ[MULTIPROC_ENV]})
