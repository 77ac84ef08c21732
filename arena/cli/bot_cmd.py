"""``arena bot serve``: serve a built-in bot over gRPC (the bot SDK's server)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from arena.cli import UsageError
from arena.cli.common import read_key_file, whole_number
from arena.config import ConfigError


def register(commands: Any) -> None:
    parser = commands.add_parser("bot", help="serve bots over gRPC")
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    serve = actions.add_parser("serve", help="serve a built-in bot on a port or a Unix socket")
    serve.add_argument("--bot", required=True, help="bot spec, e.g. heuristic or heuristic:risk=2")
    serve.add_argument("--game", help="the game (not needed for random, which plays any game)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=whole_number, default=50061, help="port (0 = pick a free one and print it)")
    serve.add_argument("--unix", metavar="PATH", help="serve on a Unix socket instead of TCP")
    serve.add_argument("--max-matches", type=whole_number, default=64, help="matches served at once (default 64)")
    serve.add_argument(
        "--key-file",
        metavar="PATH",
        help="the endpoint's key (arena bot new-key): it then plays only starts that prove it, which a service "
        "sends for a registration made with the same key (--endpoint-key-file)",
    )
    serve.set_defaults(run=run_serve)
    new_key = actions.add_parser("new-key", help="print a new random key for an endpoint (keep it in a file)")
    new_key.set_defaults(run=run_new_key)


def run_new_key(args: argparse.Namespace) -> int:
    from arena.protocol import new_endpoint_key

    print(new_endpoint_key())
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from bots.registry import make_bot, parse_spec
    from bots.serve import serve

    name, _ = parse_spec(args.bot)
    if name != "random" and not args.game:
        raise UsageError(f"--game is required for bot {name!r} (only random plays any game)")
    game_id = args.game or ""
    if args.game:
        from arena.registry import get_game

        get_game(args.game)
    make_bot(args.bot, game_id)  # fail now, with the allowed names, not at the first match
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: expected 0..65535")
    if args.max_matches < 1:
        raise UsageError(f"--max-matches must be at least 1, got {args.max_matches}")
    key = read_key_file(args.key_file, "--key-file")
    if args.unix is not None and not args.unix.startswith("/"):
        # An empty one served on TCP; a relative one on a socket --bots unix:// cannot name.
        raise UsageError(f"--unix {args.unix!r}: expected an absolute path (/run/mybot.sock)")
    from arena.ports import host_error, unix_socket_error

    if args.unix and (why := unix_socket_error(args.unix)):
        raise UsageError(f"--unix {args.unix}: {why}")
    if not args.unix and (why := host_error(args.host)):
        raise UsageError(f"--host {args.host}: {why}")
    address = f"unix:{args.unix}" if args.unix else f"{args.host}:{args.port}"
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")

    def announce(server: Any) -> None:
        where = address if args.unix else f"{args.host}:{server.port}"
        # The address last: scripts read it from the line's end (--port 0).
        keyed = " with its key" if key is not None else ""
        print(f"serving {args.bot} ({game_id or 'any game'}){keyed} on {where}", flush=True)

    try:
        serve(
            lambda: make_bot(args.bot, game_id),
            address,
            max_matches=args.max_matches,
            on_ready=announce,
            key=key,
        )
    except (OSError, RuntimeError) as exc:
        raise ConfigError(f"cannot serve on {address}: {exc}") from None
    return 0
