"""``arena worker``: a Celery worker (prefork) that plays tournament batches."""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli import UsageError

DEFAULT_BROKER = "redis://127.0.0.1:6379/0"


def register(commands: Any) -> None:
    parser = commands.add_parser("worker", help="run a Celery worker for distributed tournaments")
    parser.add_argument("--broker", default=DEFAULT_BROKER, metavar="URL", help=f"Redis URL (default {DEFAULT_BROKER})")
    parser.add_argument("--concurrency", type=int, help="worker processes (default: cores)")
    parser.add_argument("--visibility-timeout", type=int, help="seconds before an unacknowledged batch is redelivered")
    parser.add_argument("--loglevel", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.add_argument("--hostname", help="Celery node name (default: arena@<host>)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from arena.cli.tournament_cmd import check_broker
    from workers.app import make_app

    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    check_broker(args.broker)
    app = make_app(args.broker, visibility_timeout=args.visibility_timeout)
    argv = ["worker", "--pool=prefork", f"--loglevel={args.loglevel}", "--without-gossip", "--without-mingle"]
    if args.concurrency:
        argv.append(f"--concurrency={args.concurrency}")
    argv.append(f"--hostname={args.hostname or 'arena@%h'}")
    app.worker_main(argv)
    return 0
