"""``arena replay FILE``: re-simulate match records and fail loudly on any difference."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.cli import UsageError
from arena.config import ConfigError
from arena.record import RecordError, ReplayMismatch, read_records, replay
from arena.registry import get_game


def register(commands: Any) -> None:
    parser = commands.add_parser("replay", help="verify match records by re-simulating them")
    parser.add_argument("file", type=Path, help="a record (.json) or records (.jsonl)")
    parser.add_argument(
        "--html",
        type=Path,
        metavar="OUT.html",
        help="write the replay viewer for the match as one self-contained page (opens offline)",
    )
    parser.add_argument("--match", metavar="ID", help="with --html: the match of a .jsonl file (default: its only one)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.file.exists():
        raise UsageError(f"no such file: {args.file}")
    if args.html is not None:
        return write_html(args)
    if args.match is not None:
        raise UsageError("--match goes with --html")
    count = 0
    try:
        for record in read_records(args.file):
            try:
                replay(get_game(record.game), record)
            except (ReplayMismatch, ConfigError) as exc:
                print(f"arena replay: {args.file}: match {record.match_id}: MISMATCH: {exc}", file=sys.stderr)
                return 1
            count += 1
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    print(f"ok: {count} match record{'s' if count != 1 else ''} reproduce exactly")
    return 0


def write_html(args: argparse.Namespace) -> int:
    from arena.replay_view import render_html, replay_data

    try:
        records = list(read_records(args.file))
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    if args.match is not None:
        records = [r for r in records if r.match_id == args.match]
        if not records:
            raise UsageError(f"{args.file}: no match {args.match!r}")
    elif len(records) > 1:
        ids = ", ".join(r.match_id for r in records[:5]) + (", ..." if len(records) > 5 else "")
        raise UsageError(f"{args.file} holds {len(records)} matches: choose one with --match ({ids})")
    record = records[0]
    try:
        data = replay_data(get_game(record.game), record)
    except (ReplayMismatch, ConfigError) as exc:
        print(f"arena replay: {args.file}: match {record.match_id}: MISMATCH: {exc}", file=sys.stderr)
        return 1
    try:
        args.html.write_text(render_html(data), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {args.html}: {exc.strerror or exc}") from None
    steps = len(data["frames"]) - 1
    print(f"wrote {args.html}: {data['game']['name']} match {record.match_id}, {steps} decision steps")
    return 0
