"""``arena play``: one match between built-in bots, told as a readable account or JSON."""

from __future__ import annotations

import argparse
import json
import secrets
from pathlib import Path
from typing import Any

from arena.cli import UsageError
from arena.cli.common import (
    JoinedPairs,
    RecordFile,
    add_game_arguments,
    load_game,
    non_negative,
    parse_options,
    read_key_file,
    seat_bots,
    split_bots,
)
from arena.cli.players import canonical_bot, make_player
from arena.clock import clock_settings, parse_clock
from arena.engine import CHANCE_SEAT, Game
from arena.executor import StopSignals, check_stop_signals, stop_signals_held
from arena.record import MatchRecord, resimulate
from arena.runner import ErrorPolicy, Player, play_match
from arena.tournament import ADDRESSES, entrant_bot, expand_entrants

FORFEITED = 1  # exit status: the match was played, but a seat forfeited


def register(commands: Any) -> None:
    parser = commands.add_parser("play", help="play one match")
    add_game_arguments(parser)
    parser.add_argument(
        "--bots",
        help="comma-separated bots, one per seat (BOT*N: N seats): built-in names (with parameters, "
        "heuristic:a=1,b=2; see arena rules GAME), grpc://HOST:PORT, unix:///PATH or hosted:/DIR (a bot's files, "
        "run in the sandbox)",
    )
    parser.add_argument("--record", type=Path, metavar="FILE", help="write the match record (JSON)")
    parser.add_argument(
        "--force", action="store_true", help="with --record: overwrite FILE even if it is not one match record"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object and nothing else")
    parser.add_argument(
        "--on-error", choices=("forfeit", "substitute"), default="forfeit", help="policy for failing bots"
    )
    parser.add_argument(
        "--error-budget", type=non_negative, default=3, help="errors before a substituted seat forfeits"
    )
    parser.add_argument(
        "--clock",
        action=JoinedPairs,
        metavar="KEY=MS,...",
        help="clock for remote bots: decision, bank, increment, startup, grace (ms), strikes",
    )
    parser.add_argument(
        "--endpoint-key-file",
        metavar="PATH",
        help="a key the remote bots' servers have (arena bot serve --key-file): every start proves it",
    )
    parser.set_defaults(run=run)


def make_players(game: Game, specs: list[str], key: str | None = None) -> list[Player]:
    return [make_player(spec, game.meta.id, key) for spec in specs]


def match_seed(given: int | None, specs: list[str]) -> int:
    """The seed given, else 1 (a built-in match plays the same every time), else, when a seat is
    a remote or hosted bot, an unpredictable one: such a bot knowing the default (its match id
    once carried the seed too) computed every deal before it was dealt (an outside probe)."""
    if given is not None:
        return given
    if any(spec.startswith(ADDRESSES) for spec in specs):
        return secrets.randbelow(2**53 - 1) + 1
    return 1


def run(args: argparse.Namespace) -> int:
    # SIGTERM and SIGHUP end the command as Ctrl-C does, through its cleanup and the seats' own
    # (their default action left an empty --record file and hosted seats' directories behind).
    stopping = StopSignals()
    try:
        return play(args)
    finally:
        stopping.restore()


def play(args: argparse.Namespace) -> int:
    if args.force and not args.record:
        raise UsageError("--force goes with --record")
    game = load_game(args.game)
    if args.players is not None and not game.meta.min_players <= args.players <= game.meta.max_players:
        game.config(args.players)  # the engine's error: a count the game does not allow, named first
    listed = split_bots(args.bots)
    if args.bots is not None and not listed:  # as tournament: not the default field, unasked
        raise UsageError(f"--bots {args.bots!r} names no bot (leave --bots out for random in every seat)")
    bots = [entrant_bot(b) for b in expand_entrants(listed)]  # BOT*N: N seats
    players, specs = seat_bots(game, args.players, bots)
    # Seats named by their bot's one spelling (heuristic:threshold=04 plays as heuristic:threshold=4).
    specs = [canonical_bot(spec, game.meta.id) for spec in specs]
    config = game.config(players, parse_options(args.option))
    seat_players = make_players(game, specs, read_key_file(args.endpoint_key_file, "--endpoint-key-file"))
    policy = ErrorPolicy(args.on_error, args.error_budget)
    clock = clock_settings(parse_clock(args.clock))
    out: RecordFile | None = None
    try:
        # Made before the match, as a challenge's: an unwritable path was found only after it.
        # A stop signal while it is made is raised once it is known, so that it is removed (one
        # that came right after the file appeared left it behind, empty).
        with stop_signals_held():
            out = RecordFile(args.record, force=args.force) if args.record else None
        check_stop_signals()
        # Seats named by their specs, as a tournament names its entrants: a hosted bot's own name
        # (its manifest's, "heuristic" if it says so) passed for a built-in bot in the record.
        record = play_match(
            game, config, match_seed(args.seed, specs), seat_players, policy=policy, clock=clock, names=specs,
            match_id=f"{game.meta.id}-{secrets.token_hex(4)}",  # it reaches the bots: not the seed
        )  # fmt: skip
    except BaseException:
        if out is not None:
            out.close()  # no match, no (empty) record
        raise
    if out is not None:
        try:
            out.write(record.dumps() + "\n")
        finally:
            out.close()  # a failed write: a file this command made is not left empty
    if args.json:
        print(json.dumps(summary(record), sort_keys=True))
    else:
        print("\n".join(account(game, record)))
    # A seat that forfeited was played out by a substitute: not the match asked for (as a failed
    # bot fails `arena challenge`), though the match, its account and its record are complete.
    return FORFEITED if any(record.result["forfeited"]) else 0


def summary(record: MatchRecord) -> dict[str, Any]:
    result = record.result
    return {
        "game": record.game,
        "game_version": record.game_version,
        "seed": record.seed,
        "players": record.config["players"],
        "options": record.config["options"],
        "decisions": len(record.decisions),
        "seats": [
            {
                "seat": seat,
                "bot": record.seats[seat]["bot"],
                "score": result["scores"][seat],
                "rank": result["ranks"][seat],
                "forfeited": result["forfeited"][seat],
            }
            for seat in range(len(record.seats))
        ],
        "failures": [f.__dict__ for f in record.failures],
        "summary": result.get("summary", ""),
    }


def account(game: Game, record: MatchRecord) -> list[str]:
    """A readable account of the match: every event of the spectator's log, then the result."""
    names = [s["bot"] for s in record.seats]
    options = ", ".join(f"{k}={v}" for k, v in record.config["options"].items())
    lines = [
        f"{game.meta.name} (v{game.meta.version}) - {len(names)} players, seed {record.seed}"
        + (f", {options}" if options else ""),
        "seats: " + ", ".join(f"{seat}={name}" for seat, name in enumerate(names)),
        "",
    ]
    state = resimulate(game, record)
    for event in state.log.events:
        who = "table" if event.seat == CHANCE_SEAT else f"seat {event.seat} ({names[event.seat]})"
        secret = "" if event.to is None else f" [seen by {', '.join(map(str, sorted(event.to)))}]"
        lines.append(f"  {who}: {event.text}{secret}")
    for failure in record.failures:
        when = "at the start" if failure.decision < 0 else f"at decision {failure.decision}"
        where = f"seat {failure.seat} {failure.verdict} {when}"
        lines.append(f"  failure: {where}: {failure.detail}")
    lines.append("")
    lines.append("result:")
    result = record.result
    for seat in sorted(range(len(names)), key=lambda s: (result["ranks"][s], s)):
        flag = " (forfeited)" if result["forfeited"][seat] else ""
        lines.append(f"  {result['ranks'][seat]}. seat {seat} {names[seat]}: {result['scores'][seat]}{flag}")
    if result.get("summary"):
        lines.append(f"  {result['summary']}")
    lines.append(f"{len(record.decisions)} decisions")
    return lines
