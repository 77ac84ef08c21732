"""``arena replay FILE``: re-simulate match records and fail loudly on any difference."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import Any

from arena.cli import UsageError
from arena.config import ConfigError
from arena.printable import printable
from arena.record import MatchRecord, RecordError, ReplayMismatch, read_records, replay
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
    parser.add_argument(
        "--force",
        action="store_true",
        help="with --html: overwrite OUT.html even if it is not a replay page (never the records read)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.file.exists():
        raise UsageError(f"no such file: {args.file}")
    if args.html is not None:
        return write_html(args)
    if args.match is not None:
        raise UsageError("--match goes with --html")
    if args.force:
        raise UsageError("--force goes with --html")
    count = 0
    try:
        for record in read_records(args.file):
            try:
                replay(get_game(record.game), record)
            except (ReplayMismatch, ConfigError) as exc:
                say_mismatch(args.file, record, exc)
                return 1
            count += 1
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    print(f"ok: {count} match record{'s reproduce' if count != 1 else ' reproduces'} exactly")
    return 0


def say_mismatch(path: Path, record: MatchRecord, exc: Exception) -> None:
    print(f"arena replay: {path}: match {printable(record.match_id, 100)}: MISMATCH: {exc}", file=sys.stderr)


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (after symlinks; a hard link too)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # b does not exist yet
        return False


def check_output(args: argparse.Namespace) -> None:
    """Refuse an output that would destroy data: the records read, or an existing file that is
    not a replay page (unless --force)."""
    from arena.replay_view import is_export

    out: Path = args.html
    if same_file(args.file, out):
        raise UsageError(f"--html {out} is the records file it reads: choose another file for the page")
    if out.is_dir():
        raise UsageError(f"--html {out} is a directory: give a file name")
    if out.exists() and not args.force and not streamed(out) and not is_export(out):
        raise UsageError(f"--html {out} exists and is not a replay page: give --force to overwrite it")


def streamed(path: Path) -> bool:
    """Whether the page goes out as a stream, replacing nothing: stdout's file, a pipe, a
    character device (/dev/null). Such a path was read to see if it held a page: a pipe's read
    waited forever (`--html /dev/stdout | less`)."""
    from arena.atomic_write import is_stream

    return is_stream(path) and not stat.S_ISBLK(path.stat().st_mode)


def write_html(args: argparse.Namespace) -> int:
    from arena.replay_view import render_html, replay_data

    check_output(args)
    try:
        records = list(read_records(args.file))
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    if args.match is not None:
        records = [r for r in records if r.match_id == args.match]
        if not records:
            raise UsageError(f"{args.file}: no match {args.match!r}")
    elif len(records) > 1:
        ids = ", ".join(printable(r.match_id, 100) for r in records[:5]) + (", ..." if len(records) > 5 else "")
        raise UsageError(f"{args.file} holds {len(records)} matches: choose one with --match ({ids})")
    record = records[0]
    try:
        data = replay_data(get_game(record.game), record)
    except (ReplayMismatch, ConfigError) as exc:
        say_mismatch(args.file, record, exc)
        return 1
    from arena.atomic_write import write_atomic

    try:
        # A copy beside it (the file a symlink names), renamed over it: a full disk left an
        # earlier page cut short.
        write_atomic(args.html, render_html(data))
    except OSError as exc:
        raise UsageError(f"cannot write {args.html}: {exc.strerror or exc}") from None
    steps = len(data["frames"]) - 1
    # A record's text is anyone's: its id, made printable, cannot clear the screen or forge a line.
    print(f"wrote {args.html}: {data['game']['name']} match {printable(record.match_id, 100)}, {steps} decision steps")
    return 0
