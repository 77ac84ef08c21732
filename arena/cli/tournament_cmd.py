"""``arena tournament``: run a tournament between bots and print the leaderboard."""

from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli import UsageError
from arena.cli.common import (
    DEFAULT_REDIS,
    JoinedPairs,
    default_players,
    load_game,
    metrics_bind_problem,
    metrics_of_this_process,
    non_negative,
    parse_options,
    port_number,
    split_bots,
    whole_number,
)
from arena.cli.players import canonical_bot, check_bot, make_player
from arena.clock import parse_clock
from arena.executor import Executor, LocalExecutor, StopSignals, default_workers
from arena.logs import mask_passwords
from arena.pairings import DEFAULT_MAX_GROUPS, group_count
from arena.rundir import RunDirectory
from arena.tournament import (
    DEALS,
    FORMATS,
    TournamentSpec,
    canonical_entrant,
    canonical_entrants,
    expand_entrants,
    new_tournament_id,
)

if TYPE_CHECKING:
    from arena.tournament_run import Progress, ProgressHook
    from referee.metrics import FollowedTournament

DEFAULT_SPRT_REPEATS = 100
MAX_WORKERS = 64


def out_directory(text: str) -> Path:
    """``--out``: a directory name; an empty one (a lost shell variable) would write the run into
    the current directory."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty directory name (leave --out out for ./arena-runs/<id>/)")
    return Path(text)


log = logging.getLogger(__name__)


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "tournament",
        help="run a tournament and print the leaderboard (or: tournament status|cancel ID)",
        description="Run a tournament; `arena tournament status ID` / `cancel ID` for distributed runs.",
    )
    parser.add_argument("action", nargs="?", choices=("status", "cancel"), help="act on a distributed tournament")
    parser.add_argument("tournament_id", nargs="?", metavar="ID", help="the tournament (with status or cancel)")
    parser.add_argument("--game", help="game id (see `arena games`)")
    parser.add_argument(
        "--bots",
        help="comma-separated bots: built-in names (with parameters, heuristic:a=1,b=2; see arena rules GAME), "
        "grpc://HOST:PORT, unix:///PATH or hosted:/DIR; BOT*N enters N copies, rated apart as BOT, BOT#2, ... "
        "(default: the built-ins but search, with copies to fill the table)",
    )
    parser.add_argument("--players", type=whole_number, help="players per match (default: 2 where the game allows)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="variant option")
    parser.add_argument("--format", choices=FORMATS, help="default round-robin")
    parser.add_argument(
        "--deals",
        choices=DEALS,
        help="duplicate (default): a group's seat rotations share one deal, so its luck cancels; fresh: "
        "each rotation has its own (a remote bot that shares memory between its matches learns nothing "
        "of one match from its seats in the others)",
    )
    parser.add_argument(
        "--repeats", type=whole_number, help="play the whole schedule R times with fresh seeds (default 1)"
    )
    parser.add_argument(
        "--seed", type=whole_number, help="tournament seed (default: an unpredictable one, recorded in tournament.json)"
    )
    parser.add_argument("--workers", type=whole_number, help=f"worker processes (default: cores = {default_workers()})")
    parser.add_argument(
        "--out", type=out_directory, metavar="DIR", help="output directory (default ./arena-runs/<id>/)"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted run in --out DIR (its options are stored there: give none, or the same)",
    )
    parser.add_argument("--sprt", metavar="ELO0,ELO1", help="gauntlet only: stop when the SPRT decides")
    parser.add_argument("--on-error", choices=("forfeit", "substitute"), help="default forfeit")
    parser.add_argument(
        "--clock",
        action=JoinedPairs,
        metavar="KEY=MS,...",
        help="clock for remote bots: decision, bank, increment, startup, grace, strikes",
    )
    parser.add_argument(
        "--error-budget", type=non_negative, help="errors before a substituted seat forfeits (default 3)"
    )
    parser.add_argument(
        "--max-groups",
        type=whole_number,
        help=f"above this many groups a repeat, play a balanced sample of about as many, rounded up so that "
        f"every bot plays equally often (default {DEFAULT_MAX_GROUPS})",
    )
    parser.add_argument(
        "--broker", metavar="URL", help="run on Celery workers over Redis (e.g. redis://127.0.0.1:6379/0)"
    )
    parser.add_argument("--batch-size", type=whole_number, help="matches per Celery task (default: automatic)")
    parser.add_argument(
        "--bot-concurrency", type=whole_number, help="at most K matches at once per remote bot (default 4)"
    )
    parser.add_argument("--json", action="store_true", help="print the leaderboard as JSON and nothing else")
    parser.add_argument(
        "--metrics-port",
        type=port_number,
        metavar="PORT",
        help="serve Prometheus /metrics on PORT while the tournament runs",
    )
    parser.set_defaults(run=run)


def parse_sprt(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    try:
        low, high = (float(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"--sprt expects ELO0,ELO1 (two numbers), got {text!r}") from None
    return low, high


def spec_from_args(args: argparse.Namespace) -> TournamentSpec:
    if not args.game:
        raise UsageError("the following arguments are required: --game")
    game = load_game(args.game)
    from bots.registry import tournament_field

    players = args.players if args.players is not None else default_players(game)
    listed = split_bots(args.bots)
    if args.bots is not None and not listed:  # `--bots ''` ran the game's own field, unasked
        raise UsageError(f"--bots {args.bots!r} names no bot (leave --bots out for {game.meta.id}'s built-in field)")
    bots = expand_entrants(listed) or tournament_field(game.meta.id, players)
    sprt = parse_sprt(args.sprt)
    repeats = args.repeats if args.repeats is not None else (DEFAULT_SPRT_REPEATS if sprt else 1)
    spec = TournamentSpec(
        game=game.meta.id,
        bots=tuple(bots),
        players=players,
        options=parse_options(args.option),
        format=args.format or "round-robin",
        repeats=repeats,
        # No seed asked: one from the OS's randomness (a fixed default would deal every run the
        # same hands); it is in tournament.json, so the run can be repeated exactly.
        seed=args.seed if args.seed is not None else secrets.randbelow(2**53 - 1) + 1,
        on_error=args.on_error or "forfeit",
        error_budget=args.error_budget if args.error_budget is not None else 3,
        clock=parse_clock(args.clock),
        sprt=sprt,
        max_groups=args.max_groups if args.max_groups is not None else DEFAULT_MAX_GROUPS,
        bot_concurrency=args.bot_concurrency if args.bot_concurrency is not None else 4,
        deals=args.deals or "duplicate",
    )
    for bot in dict.fromkeys(spec.address(b) for b in spec.bots):
        check_bot(bot, spec.game)  # first: a malformed address is reported as such, not as a duplicate
    # Entrants by their bot's one spelling: records and leaderboards name heuristic:threshold=04
    # as heuristic:threshold=4; two spellings of one bot are refused, as a bot listed twice is.
    entrants = canonical_entrants(spec.bots, lambda bot: canonical_bot(bot, spec.game))
    spec = TournamentSpec(**{**spec.__dict__, "bots": tuple(entrants)})
    spec.validate()
    # Normalise options to their typed values so the stored spec is exact.
    config = game.config(players, spec.options)
    return TournamentSpec(**{**spec.__dict__, "options": dict(config.options)})


def resume_conflict(args: argparse.Namespace, stored: TournamentSpec) -> str | None:
    """The first tournament-defining option given with ``--resume`` that differs from the run's
    stored spec, as ``--repeats 50, the run has 2``; None when every one given agrees."""

    def listed(items: Any) -> str:
        return ",".join(str(x) for x in items)

    def pairs(mapping: dict[str, Any]) -> str:
        return ",".join(f"{k}={v}" for k, v in mapping.items()) or "none"

    given: list[tuple[str, str, Any, Any, str]] = []  # option, as given, its value, the stored one, shown
    if args.bots is not None:
        # Compared spelling for spelling: a run made before entrants were canonical keeps its own.
        def spelled(entrants: Any) -> tuple[str, ...]:
            return tuple(canonical_entrant(b, lambda bot: canonical_bot(bot, stored.game)) for b in entrants)

        bots = spelled(expand_entrants(split_bots(args.bots)))
        given.append(("--bots", args.bots, bots, spelled(stored.bots), listed(stored.bots)))
    if args.players is not None:
        given.append(("--players", str(args.players), args.players, stored.players, str(stored.players)))
    if args.option:
        # Each option given must have its stored value (typed as the game types it).
        game = load_game(stored.game)
        asked = parse_options(args.option)
        mine = game.config(stored.players, {**stored.options, **asked}).options
        theirs = game.config(stored.players, stored.options).options
        for key in asked:
            if mine.get(key) != theirs.get(key):
                return f"--option {key}={asked[key]}, the run has {key}={theirs.get(key)}"
    simple = (
        ("--format", args.format, stored.format),
        ("--deals", args.deals, stored.deals),
        ("--repeats", args.repeats, stored.repeats),
        ("--seed", args.seed, stored.seed),
        ("--on-error", args.on_error, stored.on_error),
        ("--error-budget", args.error_budget, stored.error_budget),
        ("--max-groups", args.max_groups, stored.max_groups),
        ("--bot-concurrency", args.bot_concurrency, stored.bot_concurrency),
    )
    given += [(name, str(value), value, kept, str(kept)) for name, value, kept in simple if value is not None]
    if args.clock is not None:
        given.append(("--clock", args.clock, parse_clock(args.clock), stored.clock, pairs(stored.clock)))
    if args.sprt is not None:
        shown = listed(stored.sprt) if stored.sprt else "none"
        given.append(("--sprt", args.sprt, parse_sprt(args.sprt), stored.sprt, shown))
    for name, text, value, theirs, shown in given:
        if value != theirs:
            return f"{name} {text}, the run has {shown}"
    return None


def check_current_directory() -> None:
    """A pool's processes start in the current directory: a deleted one was a traceback from
    deep inside the pool, the run left ``interrupted`` (one process, as ``--workers 1``, needs
    none)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        raise UsageError(
            "the current directory no longer exists (the worker processes start in it): cd to one that does, "
            "or use --workers 1"
        ) from None


def run(args: argparse.Namespace) -> int:
    metrics_of_this_process()  # a worker node's directory is not this run's
    if args.action:
        return run_action(args)
    if args.tournament_id:
        raise UsageError(f"unexpected argument {args.tournament_id!r} (status and cancel take an ID)")
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        # A typo (100000) started that many interpreters and played nothing for minutes.
        raise UsageError(
            f"--workers {args.workers}: 1..{MAX_WORKERS} (processes on this machine; each plays many remote "
            "matches at once)"
        )
    if not args.broker and (args.workers or default_workers()) > 1:
        check_current_directory()
    if args.batch_size is not None and not args.broker:  # a local run has no batches: it was ignored
        raise UsageError("--batch-size is for a run on workers (--broker); a local run has no batches")
    if args.batch_size is not None and args.batch_size < 1:
        raise UsageError("--batch-size must be at least 1")
    if args.max_groups is not None and args.max_groups < 1:
        raise UsageError(f"--max-groups must be at least 1, got {args.max_groups}")
    if args.resume:
        if args.out is None:
            raise UsageError("--resume needs --out DIR (the directory of the interrupted run)")
        rundir = RunDirectory(args.out)
        spec, tournament_id = rundir.read_spec()
        if args.game and args.game != spec.game:
            raise UsageError(f"{args.out} holds a {spec.game} tournament, not {args.game}")
        changed = resume_conflict(args, spec)
        if changed:
            raise UsageError(f"{args.out} holds a different tournament ({changed}); resume it without changing options")
    else:
        spec = spec_from_args(args)
        tournament_id = new_tournament_id(spec, with_digest=True)
        rundir = RunDirectory(args.out or Path("arena-runs") / tournament_id)
        if rundir.path.exists() and not rundir.path.is_dir():  # said as it is, not "File exists"
            raise UsageError(f"--out {rundir.path}: a file, not a directory")
        try:  # before anything starts: an unusable --out is a one-line error
            rundir.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--out {rundir.path}: cannot create the directory: {exc.strerror or exc}") from None
        rundir.check_new()
    # One run at a time in a directory, held from here to the end (refused at once otherwise).
    rundir.lock()
    try:
        return run_locked(args, spec, tournament_id, rundir)
    finally:
        rundir.unlock()


def run_locked(args: argparse.Namespace, spec: TournamentSpec, tournament_id: str, rundir: RunDirectory) -> int:
    # From here on a Ctrl-C is remembered: one that lands where an exception is swallowed (a
    # finalizer) while the broker's client is set up is raised again when it follows the run.
    listening = StopSignals()
    try:
        return _run_locked(args, spec, tournament_id, rundir)
    finally:
        listening.restore()


def _run_locked(args: argparse.Namespace, spec: TournamentSpec, tournament_id: str, rundir: RunDirectory) -> int:
    groups = group_count(len(spec.bots), spec.players, spec.format, spec.max_groups)
    if groups > spec.max_groups and not args.resume:  # a sample rounded up: said, not done quietly
        print(
            f"arena tournament: {groups} groups a repeat for --max-groups {spec.max_groups}: a sample rounded up "
            "so that every bot plays equally often",
            file=sys.stderr,
        )
    executor: Executor
    if args.broker:
        from workers import settings
        from workers.executor import CeleryExecutor

        settings.check()  # every ARENA_* setting, as the workers and the service check them
        check_broker(args.broker)
        executor = CeleryExecutor(args.broker, tournament_id, batch_size=args.batch_size)
    else:
        executor = LocalExecutor(make_player, args.workers)
    followed = follow_metrics(args.metrics_port, tournament_id, spec.game, plays=not args.broker)
    ids = {"tournament": tournament_id}
    log.info("tournament started", extra={**ids, "game": spec.game, "out": str(rundir.path), "broker": args.broker})
    watch = followed.update if followed else None
    try:
        board = run_with_progress(spec, tournament_id, rundir, executor, args.resume, quiet=args.json, watch=watch)
    except OSError as exc:
        if exc.filename is None or rundir.path.resolve() not in Path(exc.filename).resolve().parents:
            raise
        # A write to the run directory failed (a full disk): one line, and how to go on.
        if followed:
            followed.close("interrupted")
        raise UsageError(
            f"{exc.filename}: {exc.strerror or exc}; the finished matches are kept: make room, then "
            f"resume with: arena tournament --resume --out {rundir.path}"
        ) from None
    if board is None and not rundir.exists():
        # Stopped before the tournament was written (or sent to a broker): nothing to resume.
        print("arena tournament: interrupted before it started; nothing was played", file=sys.stderr)
        return 130
    status = rundir.read_status()
    if args.broker and board is not None and status["status"] == "complete":
        assert isinstance(executor, CeleryExecutor)
        # Every record is in; the worker that stored the last one finalises it a moment later.
        # Returning before, the store (its page, `tournament status`) still said "running".
        if not executor.wait_finalised():
            print(
                f"arena tournament: every match of {tournament_id} is in, but no worker has finalised it "
                f"yet; `arena tournament status {tournament_id}` says complete once one does",
                file=sys.stderr,
            )
    log.info("tournament finished", extra={**ids, "status": status["status"], "matches": status.get("matches")})
    if followed:
        followed.close(status["status"])
    if board is None:
        if args.broker:
            print(
                f"arena tournament: the client stopped; {tournament_id} goes on on the workers\n"
                f"follow it with: arena tournament status {tournament_id} --broker {mask_passwords(args.broker)}",
                file=sys.stderr,
            )
        else:
            print(
                f"arena tournament: interrupted; finished matches are kept in {rundir.path}/\n"
                f"resume with: arena tournament --resume --out {rundir.path}",
                file=sys.stderr,
            )
        return 130
    if args.json:
        print(json.dumps(board, indent=2))
    else:
        from arena.cli.console import console as console_for_table
        from arena.leaderboard_view import leaderboard_table

        console = console_for_table() if sys.stdout.isatty() else console_for_table(width=140)
        console.print(leaderboard_table(board, width=console.width))
        if board.get("sprt"):
            console.print(sprt_line(board, status.get("matches")))
        console.print(f"results in {rundir.path}/")
    if status["status"] == "cancelled":
        print(
            f"arena tournament: {tournament_id} was cancelled; the leaderboard holds the "
            f"{status.get('matches')} of {status.get('scheduled')} matches played before",
            file=sys.stderr,
        )
        return 1
    return 0


def sprt_line(board: dict[str, Any], played: object) -> str:
    """The SPRT's verdict under the board. Matches past the deciding group were played while it
    was decided, and kept on disk: the board leaves them out, and says so (the progress bar
    counted them, beside a smaller board)."""
    s = board["sprt"]
    verdict = {"H1": "challenger is stronger", "H0": "challenger is not stronger", None: "undecided"}
    past = ""
    if isinstance(played, int) and played > board["matches"]:
        past = f"; the board holds the {board['matches']} matches up to it, of {played} played"
    return (
        f"SPRT [{s['elo0']}, {s['elo1']}]: {verdict[s['decision']]} "
        f"(LLR {s['llr']} in {s['bounds']}, {s['samples']} groups{past})"
    )


def run_with_progress(
    spec: TournamentSpec,
    tournament_id: str,
    rundir: RunDirectory,
    executor: Executor,
    resume: bool,
    *,
    quiet: bool,
    watch: ProgressHook | None = None,
) -> dict[str, Any] | None:
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
    from rich.progress import Progress as Bar

    from arena.cli.console import console as console_for_table
    from arena.tournament_run import run_tournament  # here: its leaderboard needs numpy

    console = console_for_table(stderr=True)
    bar = Bar(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f} matches/s"),
        TimeRemainingColumn(),
        console=console,
        disable=quiet,
        transient=False,
    )
    task = bar.add_task(f"{spec.game} {spec.format}", total=None, rate=0.0)

    def on_progress(progress: Progress) -> None:
        bar.update(task, completed=progress.done, total=progress.total, rate=progress.rate)
        if watch:
            watch(progress)

    def on_warning(message: str) -> None:
        console.print(f"arena tournament: warning: {message}", markup=False, highlight=False, soft_wrap=True)

    terminated = StopSignals()  # Ctrl-C or SIGTERM stops the run, whatever it is doing
    with bar:
        try:
            return run_tournament(
                spec, tournament_id, rundir, executor, resume=resume, on_progress=on_progress, on_warning=on_warning
            )
        except KeyboardInterrupt:
            bar.stop()
            return None
        finally:
            terminated.restore()


def follow_metrics(port: int | None, tournament_id: str, game: str, *, plays: bool) -> FollowedTournament | None:
    """With a port: serve metrics and return the tournament's metrics follower (None without).
    A local run counts the matches it plays; a distributed run's client only shows progress."""
    if not port:
        return None
    from referee.metrics import FollowedTournament

    start_metrics(port)
    followed = FollowedTournament(tournament_id, game, plays=plays)
    followed.start()
    return followed


def start_metrics(port: int, *collectors: Any) -> None:
    from referee.metrics import start_metrics_server

    try:
        start_metrics_server(port, *collectors)
    except OverflowError:
        raise UsageError(f"cannot serve metrics on port {port}: a port is 0-65535") from None
    except OSError as exc:
        raise UsageError(f"cannot serve metrics on port {port}: {metrics_bind_problem(exc)}") from None


def check_broker(url: str, what: str = "the broker", *, settings: bool = False) -> None:
    """Fail early, in one line, when the broker (or, for ``what``, the store) is unreachable or
    its URL names a database that is no number; with ``settings`` (a long-running service or
    worker), warn about Redis settings that put the data at risk."""
    import logging
    from urllib.parse import urlsplit

    import redis

    from referee.store import Store

    database = urlsplit(url).path.strip("/")
    if database and not (database.isascii() and database.isdigit()):  # redis-py took db 0 without a word ('²' too)
        raise UsageError(mask_passwords(f"{url}: the database {database!r} is not a number (redis://HOST:PORT/0)"))
    store = Store(url)
    try:
        store.ping()
        warnings = store.setting_warnings() if settings else []
    except (redis.RedisError, ValueError) as exc:
        raise UsageError(mask_passwords(f"cannot reach {what} at {url}: {exc}")) from None
    for warning in warnings:
        logging.getLogger("arena").warning(warning)


RUN_OPTIONS = (
    "game", "bots", "players", "option", "format", "deals", "repeats", "seed", "workers", "out", "resume", "sprt",
    "on_error", "clock", "error_budget", "max_groups", "batch_size", "bot_concurrency", "metrics_port",
)  # fmt: skip
"""What a run takes and ``status``/``cancel`` do not (they read the stored spec)."""


def run_action(args: argparse.Namespace) -> int:
    """``status ID`` and ``cancel ID`` against the store of a distributed run."""
    from referee.store import PLAYED_OUT, Store

    if not args.tournament_id:
        raise UsageError(f"tournament {args.action} needs a tournament ID")
    given = [name for name in RUN_OPTIONS if getattr(args, name, None) not in (None, False, [])]
    if given:  # taken without a word before: `status ID --repeats 9` looked like it did something
        flag = "--" + given[0].replace("_", "-")
        raise UsageError(f"{flag} is an option of a run; tournament {args.action} takes an ID (and --broker, --json)")
    broker = args.broker or DEFAULT_REDIS
    check_broker(broker)
    store = Store(broker)
    info = store.tournament(args.tournament_id)
    if info is None:
        known = ", ".join(store.tournaments(5)) or "none"
        raise UsageError(f"no tournament {args.tournament_id!r} at {mask_passwords(broker)} (latest: {known})")
    if args.action == "cancel":
        live = info["status"] in ("queued", "running")
        after = store.cancel(args.tournament_id) if live else info["status"]  # an ended one is untouched
        if after in ("queued", "running"):
            raise UsageError(f"tournament {args.tournament_id} has {PLAYED_OUT}")
        if after != "cancelled" or not live:
            raise UsageError(f"tournament {args.tournament_id} has already ended ({after}): nothing to cancel")
        info = store.tournament(args.tournament_id) or info
    status = {
        "id": info["id"],
        "game": info["spec"]["game"],
        "status": info["status"],
        "done": info["done"],
        "total": info["total"],
        "batches": info["batches"],
        "leaderboard": store.leaderboard(args.tournament_id),
    }
    if args.json:
        print(json.dumps(status, indent=2))
        return 0
    print(f"{status['id']}: {status['game']} {status['status']}, {status['done']}/{status['total']} matches")
    if status["leaderboard"]:
        from arena.cli.console import console as console_for_table
        from arena.leaderboard_view import leaderboard_table

        console = console_for_table() if sys.stdout.isatty() else console_for_table(width=140)
        console.print(leaderboard_table(status["leaderboard"], width=console.width))
    return 0
