"""``arena admin``: operator actions straight on the store (no service needed)."""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli import UsageError
from arena.cli.common import DEFAULT_REDIS


def register(commands: Any) -> None:
    parser = commands.add_parser("admin", help="operator actions on the store")
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    owner = actions.add_parser("create-owner", help="create an owner and print its API token (shown once)")
    owner.add_argument("name")
    owner.add_argument("--operator", action="store_true", help="may create owners and act on any bot")
    owner.set_defaults(run=create_owner)
    token = actions.add_parser(
        "new-token", help="give an owner a new API token (shown once); its old ones stop working"
    )
    token.add_argument("name")
    token.set_defaults(run=new_token)
    for action in (owner, token):
        action.add_argument(
            "--redis", default=DEFAULT_REDIS, metavar="URL", help=f"the store (default {DEFAULT_REDIS})"
        )


def create_owner(args: argparse.Namespace) -> int:
    from arena.cli.tournament_cmd import check_broker
    from referee.auth import create_owner as create
    from referee.store import Store

    check_broker(args.redis, "the store")
    try:
        token = create(Store(args.redis), args.name, args.operator)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(token)
    return 0


def new_token(args: argparse.Namespace) -> int:
    import sys

    from arena.cli.tournament_cmd import check_broker
    from referee.auth import CACHE_SECONDS, new_owner_token
    from referee.store import Store

    check_broker(args.redis, "the store")
    try:
        token, revoked = new_owner_token(Store(args.redis), args.name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(token)
    print(
        f"{args.name}: {revoked} old token(s) revoked (a running service takes one for up to {CACHE_SECONDS:g} s more)",
        file=sys.stderr,
    )
    return 0
