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
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.file.exists():
        raise UsageError(f"no such file: {args.file}")
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
