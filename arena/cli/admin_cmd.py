"""``arena admin``: operator actions straight on the store (no service needed)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arena.cli import UsageError
from arena.cli.common import DEFAULT_REDIS
from arena.logs import mask_passwords


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
    listing = actions.add_parser(
        "owners", help="list the owners: operator or not, bots, tournaments running, hosted bytes (no tokens)"
    )
    listing.add_argument("--json", action="store_true", help="one JSON object an owner, in a list")
    listing.set_defaults(run=list_owners)
    for action in (owner, token, listing):
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
    # Which store: with several deployments on a machine, the default one may not be the one meant.
    print(f"created owner {args.name} in {mask_passwords(args.redis)}", file=sys.stderr)
    return 0


def new_token(args: argparse.Namespace) -> int:
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


def list_owners(args: argparse.Namespace) -> int:
    import datetime
    import json

    from arena.cli.tournament_cmd import check_broker
    from referee.hosted.versions import stored_bytes
    from referee.store import Store

    check_broker(args.redis, "the store")
    store = Store(args.redis)
    rows: list[dict[str, Any]] = []
    for name, account in store.owners():
        created = datetime.datetime.fromtimestamp(float(account.get("created", 0)), datetime.UTC)
        rows.append(
            {
                "owner": name,
                "operator": bool(account.get("operator")),
                "created": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "bots": store.bot_count(name),
                "tournaments_running": store.active_tournaments(name),
                "hosted_bytes": stored_bytes(store, name),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no owners yet: arena admin create-owner NAME")
        return 0
    print(f"{'owner':<32} {'operator':<8} {'created (UTC)':<20} {'bots':>5} {'running':>7} {'hosted MiB':>10}")
    for row in rows:
        print(
            f"{row['owner']:<32} {'yes' if row['operator'] else 'no':<8} {row['created']:<20} {row['bots']:>5} "
            f"{row['tournaments_running']:>7} {row['hosted_bytes'] / 2**20:>10.1f}"
        )
    return 0
