"""Client commands for the referee service: bots, tournaments, leaderboard, matches, challenge.

    arena bots register --name my-bot --games skyfive --endpoint grpc://10.0.0.5:50061
    arena bots list | get NAME | update NAME [--endpoint ...] [--max-matches N] | disable NAME
    arena tournaments create --game skyfive --bots my-bot,heuristic,random --repeats 20
    arena tournaments watch ID | get ID | cancel ID | list
    arena leaderboard --game skyfive        (or --tournament ID)
    arena matches list --tournament ID | get ID
    arena challenge --bot my-bot --game skyfive --opponents heuristic

The server is ``--server HOST:PORT`` (or ``ARENA_SERVER``, default 127.0.0.1:50051); the token
``--token`` (or ``ARENA_TOKEN``). A refused call prints one line with the status code, the
message and the offending field, and exits with status 1.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from arena.cli import UsageError, command_name
from arena.cli.common import (
    JoinedPairs,
    RecordFile,
    decimal,
    parse_options,
    positive,
    read_key_file,
    split_bots,
    split_list,
    uint32,
    uint64,
)
from arena.clock import clock_settings, parse_clock
from arena.executor import StopSignals

DEFAULT_SERVER = "127.0.0.1:50051"
SERVER_ERROR = 1


MAX_WAIT_SECONDS = 86_400.0
"""The longest wait a command takes: gRPC's deadline arithmetic overflows near 1e10 s, and a
live service then read as DEADLINE_EXCEEDED at once (an outside probe)."""


def positive_seconds(text: str) -> float:
    try:
        value = decimal(text)
    except argparse.ArgumentTypeError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_WAIT_SECONDS):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected a number of seconds above 0, at most {MAX_WAIT_SECONDS:,.0f}"
        )
    return value


def server_address(text: str) -> str:
    """``--server`` (or ``ARENA_SERVER``): HOST:PORT with a port of 1..65535. gRPC takes 99999 as
    34463 (modulo 65536) and would send the token there."""
    host, colon, port = text.strip().rpartition(":")
    if not colon or not host or not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        raise argparse.ArgumentTypeError(f"{text!r}: expected HOST:PORT with a port of 1..65535")
    return text.strip()


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server", type=server_address, default=os.environ.get("ARENA_SERVER", DEFAULT_SERVER), metavar="HOST:PORT"
    )
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="API token (or ARENA_TOKEN)")
    parser.add_argument("--json", action="store_true", help="print the reply as JSON")


def register(commands: Any) -> None:
    bots = commands.add_parser("bots", help="register and manage your remote bots (service)")
    bot_actions = bots.add_subparsers(dest="action", required=True, parser_class=type(bots))
    reg = bot_actions.add_parser("register", help="register a bot served at an endpoint")
    reg.add_argument("--name", required=True)
    reg.add_argument("--games", required=True, help="comma-separated game ids")
    reg.add_argument("--endpoint", required=True, help="grpc://HOST:PORT or unix:///PATH")
    update = bot_actions.add_parser("update", help="change a bot's endpoint or its cap of matches at once")
    update.add_argument("name")
    update.add_argument("--endpoint", default="")
    for sub in (reg, update):
        sub.add_argument(
            "--max-matches",
            type=uint32,
            default=None,
            help="at most this many matches at once against the bot, across every tournament (0 = no cap)",
        )
        sub.add_argument(
            "--endpoint-key-file",
            metavar="PATH",
            help="the key its server has (arena bot serve --key-file): every start proves this registration "
            "holds it, and a server with a key plays no other",
        )
    for action in ("get", "disable"):
        sub = bot_actions.add_parser(action, help=f"{action} a bot")
        sub.add_argument("name")
    listing = bot_actions.add_parser("list", help="list bots")
    listing.add_argument("--game", default="")
    listing.add_argument("--owner", default="")
    for sub in (reg, update, listing, *(bot_actions.choices[a] for a in ("get", "disable"))):
        _common(sub)
        sub.set_defaults(run=run_bots)
    from arena.cli import hosted_cmd  # hosted bots: submit, versions, activate (issue 17)

    hosted_cmd.register_bots(bot_actions, _common)

    tournaments = commands.add_parser("tournaments", help="create, watch and cancel tournaments (service)")
    t_actions = tournaments.add_subparsers(dest="action", required=True, parser_class=type(tournaments))
    create = t_actions.add_parser("create", help="create a tournament (played by the workers)")
    create.add_argument("--game", required=True, help="game id (see `arena games`)")
    create.add_argument(
        "--bots",
        required=True,
        help="comma-separated registered bot names and/or built-in bots (heuristic:a=1,b=2); "
        "BOT*N enters N copies, rated apart",
    )
    create.add_argument("--players", type=uint32, default=0, help="players per match (default: the game's default)")
    create.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="variant option (repeatable)"
    )
    create.add_argument("--format", default="round-robin", choices=("round-robin", "gauntlet"))
    create.add_argument("--repeats", type=uint32, default=1, help="play the schedule R times (default 1)")
    create.add_argument("--seed", type=uint64, default=0, help="deal seed (default: an unpredictable one)")
    create.add_argument(
        "--clock", action=JoinedPairs, metavar="KEY=MS,...", help="decision, bank, increment, startup, grace, strikes"
    )
    create.add_argument("--on-error", default="forfeit", choices=("forfeit", "substitute"))
    create.add_argument(
        "--error-budget",
        type=positive,  # the API reads 0 as the default, 3
        default=3,
        help="errors before a substituted seat forfeits (default 3)",
    )
    create.add_argument(
        "--bot-concurrency",
        type=positive,
        default=4,
        help="at most K matches at once per remote bot, across all workers (default 4)",
    )
    create.add_argument("--watch", action="store_true", help="watch it until it ends")
    for action in ("watch", "get", "cancel"):
        sub = t_actions.add_parser(action, help=f"{action} a tournament")
        sub.add_argument("tournament_id", metavar="ID")
    tlist = t_actions.add_parser("list", help="list tournaments")
    tlist.add_argument("--game", default="")
    tlist.add_argument("--limit", type=uint32, default=50)
    for sub in t_actions.choices.values():
        _common(sub)
        sub.set_defaults(run=run_tournaments)

    board = commands.add_parser("leaderboard", help="a game's or a tournament's leaderboard (service)")
    scope = board.add_mutually_exclusive_group(required=True)
    scope.add_argument("--game")
    scope.add_argument("--tournament", metavar="ID")
    _common(board)
    board.set_defaults(run=run_leaderboard)

    matches = commands.add_parser("matches", help="list matches and get records/replays (service)")
    m_actions = matches.add_subparsers(dest="action", required=True, parser_class=type(matches))
    mlist = m_actions.add_parser("list", help="matches of a tournament")
    mlist.add_argument("--tournament", required=True, metavar="ID")
    mlist.add_argument("--bot", default="")
    mlist.add_argument("--limit", type=uint32, default=100, help="matches per page (default 100)")
    mlist.add_argument("--offset", type=uint32, default=0, help="skip this many matches (the next page)")
    mget = m_actions.add_parser("get", help="a match record and its events")
    mget.add_argument("match_id", metavar="ID", help="<tournament id>:<match id>")
    mget.add_argument("--record", metavar="FILE", help="write the record (replay it with `arena replay FILE`)")
    mget.add_argument(
        "--force", action="store_true", help="with --record: overwrite FILE even if it is not one match record"
    )
    for sub in (mlist, mget):
        _common(sub)
        sub.set_defaults(run=run_matches)
    hosted_cmd.register_matches(m_actions, _common)

    health = commands.add_parser("health", help="is the referee service serving? (exit 0 if so)")
    health.add_argument(
        "--server", type=server_address, default=os.environ.get("ARENA_SERVER", DEFAULT_SERVER), metavar="HOST:PORT"
    )
    health.add_argument("--timeout", type=positive_seconds, default=3.0, help="seconds to wait (default 3)")
    health.set_defaults(run=run_health)

    challenge = commands.add_parser("challenge", help="play one match now: your bot vs built-in bots (service)")
    challenge.add_argument("--bot", required=True)
    challenge.add_argument("--game", required=True)
    challenge.add_argument("--opponents", default="random", help="built-in bots, comma-separated")
    challenge.add_argument("--seed", type=uint64, default=0)
    challenge.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    challenge.add_argument("--clock", action=JoinedPairs, metavar="KEY=MS,...")
    challenge.add_argument(
        "--record", metavar="FILE", help="write the match's record (replay it with `arena replay FILE`)"
    )
    challenge.add_argument(
        "--force", action="store_true", help="with --record: overwrite FILE even if it is not one match record"
    )
    _common(challenge)
    challenge.set_defaults(run=run_challenge)


# -- plumbing ----------------------------------------------------------------------------------


class Client:
    def __init__(self, args: argparse.Namespace) -> None:
        import grpc

        from arena.v1 import arena_pb2_grpc

        if not args.token:
            raise UsageError("no API token: pass --token or set ARENA_TOKEN")
        odd = next((i for i, c in enumerate(args.token) if not "!" <= c <= "~"), None)
        if odd is not None:
            # gRPC refuses it as metadata with its core's log and "INTERNAL: Invalid metadata",
            # naming nothing (an outside probe). The token itself is a secret: not printed.
            what = "a newline (a file's?)" if args.token[odd] in "\r\n" else f"{args.token[odd]!r}"
            raise UsageError(
                f"the API token (--token or ARENA_TOKEN) holds {what} at character {odd + 1}: "
                "a token is printable ASCII without spaces"
            )
        from arena.ports import MAX_RESPONSE

        self.channel = grpc.insecure_channel(args.server, options=[("grpc.max_receive_message_length", MAX_RESPONSE)])
        self.stub = arena_pb2_grpc.ArenaServiceStub(self.channel)
        self.metadata = (("authorization", f"Bearer {args.token}"),)

    def call(self, method: str, request: Any, timeout: float = 30.0) -> Any:
        return getattr(self.stub, method)(request, metadata=self.metadata, timeout=timeout)

    def stream(self, method: str, request: Any) -> Any:
        return getattr(self.stub, method)(request, metadata=self.metadata)


def guarded(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        import grpc  # here, not at the top: the other commands start without gRPC's client

        try:
            return command(args)
        except grpc.RpcError as error:
            from referee.errors import bad_request_field

            code = error.code().name if hasattr(error, "code") else "UNKNOWN"
            hint = http1_hint(error)
            if hint:  # gRPC's own transport text ("Failed parsing HTTP/2 ...") says nothing more
                said = f"{args.server}: {code}{hint}"
            else:
                details = error.details() if hasattr(error, "details") else str(error)
                field = bad_request_field(error)
                said = f"{code}: {details}" + (f" (field {field})" if field else "")
            print(f"arena {command_name(args)}: error: {said}", file=sys.stderr)
            return SERVER_ERROR

    return run


def http1_hint(error: Any) -> str:
    """A hint when the address answered HTTP/1 (gRPC says so in its details): most likely the
    web UI's port (``arena serve --http-port``) given for the service's. Every client command's
    (``arena health`` and :func:`guarded`): the others printed gRPC's raw transport error."""
    details = str(error.details() if hasattr(error, "details") else error)
    if "http1.x server" in details:
        return " (that port answers HTTP/1, not gRPC: the web UI's port? the service's is `arena serve --port`)"
    if "Failed parsing HTTP/2" in details:  # an HTTP/1.0 server, or any other that is not HTTP/2
        return " (that port does not answer HTTP/2, so not gRPC: the service's is `arena serve --port`)"
    return ""


def message_json(message: Any, **options: Any) -> str:
    from google.protobuf import json_format

    from arena.registry import games

    games()  # every game's messages known: events and options carry them packed in Any
    return json_format.MessageToJson(message, **options)


def show(args: argparse.Namespace, message: Any, text: Callable[[], str]) -> None:
    if args.json:
        print(message_json(message, preserving_proto_field_name=True))
    else:
        print(text())


def clock_message(text: str | None) -> Any:
    """The clock values given (only those: the others take the service's defaults; 0 is kept)."""
    from arena.v1 import arena_pb2

    values = parse_clock(text)
    if not values:
        return None
    fields = clock_settings().DESCRIPTOR.fields_by_name  # the same names as ClockLimits
    names = {"decision": "decision_ms", "bank": "bank_ms", "increment": "increment_ms"}
    names |= {"startup": "startup_ms", "grace": "grace_ms", "strikes": "max_strikes"}
    assert set(names.values()) <= set(fields)
    return arena_pb2.ClockLimits(**{names[k]: v for k, v in values.items()})


# -- commands ----------------------------------------------------------------------------------


def _cap(bot: Any) -> str:
    return f", at most {bot.max_matches} matches at once" if bot.max_matches else ""


@guarded
def run_bots(args: argparse.Namespace) -> int:
    from arena.v1 import arena_pb2

    client = Client(args)
    if args.action == "register":
        games = split_list(args.games, "--games")
        key = read_key_file(args.endpoint_key_file, "--endpoint-key-file")
        request = arena_pb2.RegisterBotRequest(
            name=args.name,
            games=games,
            endpoint=args.endpoint,
            max_matches=args.max_matches or 0,
            endpoint_key=key or "",
        )
        bot = client.call("RegisterBot", request)
        hint = (
            ""
            if bot.endpoint_keyed
            else "\n(no endpoint key: anyone may register this endpoint as theirs too; if you run its server, "
            "give it a key: `arena bot new-key > bot.key`, `arena bot serve ... --key-file bot.key` (the SDK: "
            "serve(..., key=...)), then `arena bots update NAME --endpoint-key-file bot.key`)"
        )
        show(args, bot, lambda: f"registered {bot.name} ({', '.join(bot.games)}) at {bot.endpoint}{_cap(bot)}{hint}")
    elif args.action == "update":
        key = read_key_file(args.endpoint_key_file, "--endpoint-key-file")
        if not args.endpoint and args.max_matches is None and key is None:
            raise UsageError("give --endpoint, --max-matches, --endpoint-key-file or several")
        update = arena_pb2.UpdateBotRequest(name=args.name, endpoint=args.endpoint, endpoint_key=key or "")
        if args.max_matches is not None:
            update.max_matches = args.max_matches
        bot = client.call("UpdateBot", update)
        keyed = ", with its endpoint's key" if bot.endpoint_keyed else ""
        show(args, bot, lambda: f"{bot.name} now at {bot.endpoint}{_cap(bot)}{keyed}")
    elif args.action == "disable":
        bot = client.call("DisableBot", arena_pb2.DisableBotRequest(name=args.name))
        show(args, bot, lambda: f"{bot.name} disabled")
    elif args.action == "get":
        detail = client.call("GetBot", arena_pb2.GetBotRequest(name=args.name))

        def text() -> str:
            from arena.leaderboard_view import rating_text

            state = "enabled" if detail.bot.enabled else "disabled"
            keyed = ", its endpoint keyed" if detail.bot.endpoint_keyed else ""
            lines = [f"{detail.bot.name} (owner {detail.bot.owner}, {state}){_cap(detail.bot)}{keyed}"]
            lines += [
                f"  {r.game}: {rating_text(r.rating, r.ci_low, r.ci_high)}, {r.games} games" for r in detail.ratings
            ]
            lines += [
                f"  {r.game} version {r.version[:16]}: {rating_text(r.rating, r.ci_low, r.ci_high)}, {r.games} games"
                for r in detail.version_ratings  # a hosted bot's: its versions entered apart
            ]
            lines += [f"  failure {f.match_id} {f.verdict}: {f.detail}" for f in detail.recent_failures]
            return "\n".join(lines)

        show(args, detail, text)
    else:
        reply = client.call("ListBots", arena_pb2.ListBotsRequest(game=args.game, owner=args.owner))
        show(
            args,
            reply,
            lambda: (
                "\n".join(
                    f"{b.name}\t{b.owner}\t{','.join(b.games)}\t{'enabled' if b.enabled else 'disabled'}\t{b.endpoint}"
                    for b in reply.bots
                )
                or "no bots"
            ),
        )
    return 0


def _tournament_line(t: Any) -> str:
    return f"{t.id}\t{t.game}\t{t.status}\t{t.done}/{t.total}\t{t.owner}"


def _console() -> Any:
    from arena.cli.console import console as console_for_table

    return console_for_table() if sys.stdout.isatty() else console_for_table(width=140)


def _print_board(board: Any, *, live: bool = False) -> None:
    """The same table as a local run's (arena.leaderboard_view)."""
    from arena.leaderboard_view import from_message, leaderboard_table

    console = _console()
    console.print(leaderboard_table(from_message(board), live=live, width=console.width))


@guarded
def run_tournaments(args: argparse.Namespace) -> int:
    from arena.v1 import arena_pb2

    client = Client(args)
    if args.action == "create":
        request = arena_pb2.CreateTournamentRequest(
            game=args.game,
            bots=split_bots(args.bots),
            players=args.players,
            options=parse_options(args.option),
            format=args.format,
            repeats=args.repeats,
            seed=args.seed,
            on_error=args.on_error,
            error_budget=args.error_budget,
            bot_concurrency=args.bot_concurrency,
            clock=clock_message(args.clock),
        )
        tournament = client.call("CreateTournament", request)
        if tournament.unrated:
            print(
                f"arena tournaments: note: {tournament.id} is not counted on the {tournament.game} leaderboard "
                "nor in its bots' ratings (you chose its seed, so its deals were known)",
                file=sys.stderr,
            )
        if not args.watch:
            show(args, tournament, lambda: tournament.id)
            return 0
        args.tournament_id = tournament.id
        return _watch_saying_what_goes_on(client, args)
    if args.action == "watch":
        return _watch_saying_what_goes_on(client, args)
    if args.action == "list":
        reply = client.call("ListTournaments", arena_pb2.ListTournamentsRequest(game=args.game, limit=args.limit))
        show(args, reply, lambda: "\n".join(_tournament_line(t) for t in reply.tournaments) or "no tournaments")
        return 0
    method = {"get": "GetTournament", "cancel": "CancelTournament"}[args.action]
    request_type = {"get": arena_pb2.GetTournamentRequest, "cancel": arena_pb2.CancelTournamentRequest}[args.action]
    tournament = client.call(method, request_type(tournament_id=args.tournament_id))
    show(args, tournament, lambda: _tournament_line(tournament))
    return 0


WATCH_PATIENCE = 120.0
"""Seconds a watch waits out an unavailable service or store (a Redis restart) before it stops."""


def _riding_out(client: Client, request: Any) -> Any:
    """WatchTournament's updates, watched again after the service or its store was unavailable
    (a Redis or service restart the tournament itself rides out): the watch used to end there,
    with exit 1, which says "cancelled". Past :data:`WATCH_PATIENCE` without an update the error
    stands."""
    import grpc

    from referee.errors import retry_after

    since = time.monotonic()
    while True:
        try:
            for update in client.stream("WatchTournament", request):
                since = time.monotonic()
                yield update
            return
        except grpc.RpcError as error:
            # The web UI's port (HTTP/1) is no restart to wait out: it never turns into the service's.
            unavailable = error.code() == grpc.StatusCode.UNAVAILABLE and not http1_hint(error)
            if not unavailable or time.monotonic() - since > WATCH_PATIENCE:
                raise
            delay = retry_after(error) or 2.0
            print(f"arena tournaments: the service is unavailable; watching again in {delay:g}s", file=sys.stderr)
            time.sleep(delay)


def _watch_saying_what_goes_on(client: Client, args: argparse.Namespace) -> int:
    """:func:`_watch`; a Ctrl-C stops the watching only, which it says, with how to go on."""
    try:
        return _watch(client, args)
    except KeyboardInterrupt:
        print(
            f"arena tournaments: stopped watching; {args.tournament_id} goes on in the service\n"
            f"watch it again with: arena tournaments watch {args.tournament_id}",
            file=sys.stderr,
        )
        return 130


def _watch(client: Client, args: argparse.Namespace) -> int:
    """Progress and the live leaderboard until the tournament ends, then the final board (the
    same table as a local run's). On a terminal the board redraws in place; otherwise progress
    goes to stderr and the final board to stdout. A cancelled tournament exits 1."""
    from arena.leaderboard_view import from_message, leaderboard_table
    from arena.v1 import arena_pb2

    request = arena_pb2.WatchTournamentRequest(tournament_id=args.tournament_id)
    updates = lambda: _riding_out(client, request)  # noqa: E731
    last = None
    if args.json:
        for update in updates():
            last = update
            print(message_json(update, preserving_proto_field_name=True, indent=None))
    elif sys.stdout.isatty():
        from rich.console import Group
        from rich.live import Live

        def view(update: Any) -> Any:
            t = update.tournament
            board = leaderboard_table(from_message(update.leaderboard), live=not update.final)
            return Group(f"{t.id}: {t.status} {t.done}/{t.total}", board)

        with Live(console=_console(), auto_refresh=False) as live:
            for update in updates():
                last = update
                live.update(view(update), refresh=True)
    else:
        for update in updates():
            last = update
            t = update.tournament
            print(f"{t.id}: {t.status} {t.done}/{t.total}", file=sys.stderr, flush=True)
        if last is not None:
            t = last.tournament
            print(f"{t.id}: {t.status} {t.done}/{t.total}")  # which tournament the board is, as on a terminal
            _print_board(last.leaderboard)
    if last is not None and last.tournament.status == "cancelled":
        if not args.json:
            t = last.tournament
            print(f"arena tournaments: {t.id} was cancelled after {t.done} of {t.total} matches", file=sys.stderr)
        return SERVER_ERROR
    return 0


@guarded
def run_leaderboard(args: argparse.Namespace) -> int:
    from arena.v1 import arena_pb2

    client = Client(args)
    request = (
        arena_pb2.GetLeaderboardRequest(game=args.game)
        if args.game
        else arena_pb2.GetLeaderboardRequest(tournament_id=args.tournament)
    )
    board = client.call("GetLeaderboard", request)
    if args.json:
        show(args, board, str)
    else:
        _print_board(board)
    return 0


def _no_matches(client: Client, args: argparse.Namespace) -> str:
    """An empty list, said as what it is: a tournament that played matches whose records have
    expired read as one with none (an outside operator probe; `matches get` explained it)."""
    from arena.v1 import arena_pb2
    from referee.store import ENDED

    if args.bot or args.offset:
        return "no matches"
    tournament = client.call("GetTournament", arena_pb2.GetTournamentRequest(tournament_id=args.tournament))
    if not tournament.done or tournament.status not in ENDED:  # only a finished tournament's expire
        return "no matches"
    return (
        f"no matches stored: {tournament.id} played {tournament.done}, and a finished tournament's records are "
        "kept ARENA_RETENTION_DAYS days (30 unless the operator set it); its leaderboard is kept for good"
    )


@guarded
def run_matches(args: argparse.Namespace) -> int:
    from arena.v1 import arena_pb2

    client = Client(args)
    if args.action == "list":
        reply = client.call(
            "ListMatches",
            arena_pb2.ListMatchesRequest(
                tournament_id=args.tournament, bot=args.bot, limit=args.limit, offset=args.offset
            ),
        )
        show(
            args,
            reply,
            lambda: (
                "\n".join(
                    f"{m.id}\t"
                    + " ".join(f"{s.bot}={s.score:g}(#{s.rank})" for s in m.seats)
                    + f"\t{m.failures} failures"
                    for m in reply.matches
                )
                or _no_matches(client, args)
            ),
        )
        if reply.next_page_token and not args.json:
            shown_to = args.offset + len(reply.matches)
            print(
                f"matches {args.offset + 1}-{shown_to} of {reply.total} shown: --offset {shown_to} shows the next",
                file=sys.stderr,
            )
        return 0
    if args.force and not args.record:
        raise UsageError("--force goes with --record")
    # As play's and challenge's --record: a file holding other records (a run's matches.jsonl)
    # is not overwritten without --force, and the record is written as a whole or not at all.
    record = RecordFile(args.record, force=args.force) if args.record else None
    try:
        detail = client.call("GetMatch", arena_pb2.GetMatchRequest(id=args.match_id))
        if record is not None:
            if not detail.record_json:
                raise UsageError("the record is served once the tournament has ended (its seed deals hidden hands)")
            record.write(detail.record_json + "\n")
    finally:
        if record is not None:
            record.close()
    show(args, detail, lambda: match_text(detail))
    return 0


def seat_label(seat: int, names: dict[int, str]) -> str:
    """Who an event is about: a seat and its bot, or the table (seat -1: dealing, scoring...)."""
    if seat < 0:
        return "table"
    return f"seat {seat} {names[seat]}" if seat in names else f"seat {seat}"


def match_text(detail: Any) -> str:
    """A match as a person reads it: who sits where, the failures first, the events in order,
    the result."""
    from arena.record import MatchRecord

    summary = detail.summary
    names = {s.seat: s.bot for s in summary.seats}
    lines = [f"{summary.id} ({'spectator view' if detail.spectator else 'public events at most: the tournament runs'})"]
    lines.append("seats: " + ", ".join(f"{s.seat} {s.bot}" for s in summary.seats))
    if detail.record_json:
        for f in MatchRecord.loads(detail.record_json).failures:
            when = "at the start" if f.decision < 0 else f"at decision {f.decision}"
            lines.append(f"FAILURE {seat_label(f.seat, names)} {when}: {f.verdict}: {f.detail}")
    elif summary.failures:
        lines.append(f"{summary.failures} failure(s) of your bots: details once the tournament has ended")
    lines += [f"  [{seat_label(e.seat, names)}] {e.text}" for e in detail.events]
    lines.append("result: " + result_text([(s.seat, s.rank, s.score, s.forfeited) for s in summary.seats], names))
    return "\n".join(lines)


def result_text(seats: list[tuple[int, int, float, bool]], names: dict[int, str]) -> str:
    ordered = sorted(seats, key=lambda s: (s[1], s[0]))
    return "; ".join(
        f"#{rank} {seat_label(seat, names)} {score:g}{' (forfeited)' if forfeited else ''}"
        for seat, rank, score, forfeited in ordered
    )


@guarded
def run_challenge(args: argparse.Namespace) -> int:
    # A challenge is not stored: its record file is checked (made) before the match, not after
    # it was played and only this copy of its record was left.
    if args.force and not args.record:
        raise UsageError("--force goes with --record")
    stopping = StopSignals()  # SIGTERM and SIGHUP too end it through the cleanup below
    try:
        record = RecordFile(args.record, force=args.force) if args.record else None
        try:
            return _run_challenge(args, record)
        finally:
            if record is not None:
                record.close()  # the challenge ended before its record came: no empty file it made
    finally:
        stopping.restore()


def _run_challenge(args: argparse.Namespace, record: RecordFile | None) -> int:
    from arena.v1 import arena_pb2

    client = Client(args)
    request = arena_pb2.ChallengeRequest(
        bot=args.bot,
        game=args.game,
        opponents=split_bots(args.opponents),
        seed=args.seed,
        options=parse_options(args.option),
        clock=clock_message(args.clock),
    )
    names: dict[int, str] = {}
    substituted = 0  # consecutive moves played for a failed bot: one line, not a hundred
    failed = False  # the challenger's bot failed: the command says so by its exit code
    seat = 0  # the challenger's seat (its start says so)

    def flush_substituted() -> None:
        nonlocal substituted
        if substituted:
            print(f"  ({substituted} more moves played for your forfeited seat)")
            substituted = 0

    for event in client.stream("Challenge", request):
        body = event.WhichOneof("body")
        if body == "started":
            seat = event.started.seat
        elif body == "failure" and event.failure.seat == seat:
            failed = True
        elif body == "finished" and record is not None:
            record.write(event.record_json + "\n")
        if args.json:
            print(message_json(event, preserving_proto_field_name=True, indent=None))
            continue
        if body == "started":
            start = event.started
            names = dict(enumerate(start.seat_names))
            print(f"you are seat {start.seat} ({args.bot}); seats: " + ", ".join(f"{s} {n}" for s, n in names.items()))
        elif body == "event":
            print(f"  [{seat_label(event.event.seat, names)}] {event.event.text}")
        elif body == "decision":
            d = event.decision
            if d.by != "bot":
                substituted += 1
                if substituted > 1:
                    continue
            if d.by == "bot":
                print(f"  you chose {d.choice} ({d.kind}, {d.ms:.1f} ms)")
            else:
                print(f"  a substitute chose {d.choice} ({d.kind}) for your forfeited seat")
        elif body == "failure":
            f = event.failure
            at = f" at decision {f.decision}" if f.decision >= 0 else ""
            print(f"FAILURE {seat_label(f.seat, names)}{at}: {f.verdict}: {f.detail}")
        elif body == "finished":
            flush_substituted()
            seats = [(s.seat, s.rank, s.score, s.forfeited) for s in event.finished.seats]
            print("result: " + result_text(seats, names))
    return SERVER_ERROR if failed else 0


def run_health(args: argparse.Namespace) -> int:
    """The standard gRPC health check (no token needed): for probes and operators."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    try:
        with grpc.insecure_channel(args.server) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=args.timeout)  # type: ignore[attr-defined]
    except grpc.RpcError as error:
        print(f"arena health: {args.server}: {error.code().name}{http1_hint(error)}", file=sys.stderr)
        return SERVER_ERROR
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{args.server}: {status}")
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else SERVER_ERROR
