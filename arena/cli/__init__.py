"""The ``arena`` command line: the composition root, where the domain meets bots and services.

Each subcommand lives in its own module and registers itself on the parser. Errors a user can
make (unknown game, wrong player count, unknown bot or option, missing file) print one line and
exit with status 2; no traceback. Two kinds are handled here once for every command: a file or
directory the user named that cannot be read or written (an ``OSError`` naming a path), and a
reader that went away (``arena ... | head``: quiet, status 141 like any Unix filter). An
interrupt (Ctrl-C; SIGTERM or SIGHUP where a command listens for them) is one line; ``arena
play`` and ``arena challenge`` exit with the shell's status for the signal (128 + its number),
a tournament with 130 whatever stopped it (with the line saying how to resume or follow it);
a standard stream the caller closed
(``>&-``) is /dev/null.
"""

from __future__ import annotations

import argparse
import errno
import io
import os
import select
import signal
import sys
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from arena import __version__
from arena.config import ConfigError

USAGE_ERROR = 2
BROKEN_PIPE = 128 + 13  # the shell's status for a process ended by SIGPIPE
STORAGE_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})
"""Errors of the storage a write went to, one line even when they name no file."""


class UsageError(Exception):
    """A mistake on the command line or in its inputs (exit status 2)."""


class Parser(argparse.ArgumentParser):
    """argparse, but errors are one line: ``arena play: error: ...``."""

    commands: Mapping[str, argparse.ArgumentParser] = {}

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """As argparse, but an unknown argument is named by the command it was given to
        (``arena play: error: unrecognized arguments: --foo``, not ``arena: error: ...``)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self.commands.get(getattr(parsed, "command", None) or "", self)
            command.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def build_parser() -> Parser:
    from arena.cli import (
        admin_cmd,
        bot_cmd,
        client_cmd,
        games_cmd,
        play_cmd,
        replay_cmd,
        rules_cmd,
        serve_cmd,
        tournament_cmd,
        worker_cmd,
    )

    parser = Parser(prog="arena", description="Arena: bots play tabletop games.")
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="structured JSON logs on stderr at this level (default WARNING)",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for module in (
        games_cmd,
        rules_cmd,
        play_cmd,
        replay_cmd,
        tournament_cmd,
        bot_cmd,
        worker_cmd,
        serve_cmd,
        admin_cmd,
        client_cmd,
    ):
        module.register(commands)
    accept_log_level_anywhere(parser)
    parser.commands = commands.choices
    return parser


def accept_log_level_anywhere(parser: argparse.ArgumentParser) -> None:
    """``--log-level`` after the command works as it does before it (``arena play ... --log-level
    INFO``): a subcommand did not know it and took ``INFO`` for its next positional argument
    (``argument action: invalid choice: 'INFO'``). Unset there, the global value stands."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for sub in set(action.choices.values()):
            if "--log-level" not in sub._option_string_actions:
                sub.add_argument(
                    "--log-level",
                    default=argparse.SUPPRESS,
                    choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                    help="as `arena --log-level`",
                )
            accept_log_level_anywhere(sub)


def command_name(args: argparse.Namespace) -> str:
    """The command as typed, its action too (``bots submit``, ``tournament status``), for
    error lines."""
    return " ".join(x for x in (args.command, getattr(args, "action", None)) if x)


STANDARD_STREAMS = ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w"))

SAFE_ERRORS = frozenset({"backslashreplace", "replace", "ignore", "xmlcharrefreplace", "namereplace"})
"""Encoding error handlers that never fail: chosen (PYTHONIOENCODING=ascii:replace), they stay."""


def open_closed_standard_streams() -> None:
    """A standard stream closed by the caller (``arena ... >&-``) is opened on /dev/null, as a
    system may do at exec (POSIX allows it, and does it for setuid programs): what the user
    closed is thrown away, and the command still does its work (a run, a record). Left closed,
    Python's ``sys.stdout`` is None (a traceback at the first use), and the next file opened
    takes fd 1: a record file, or a pool's pipe, would become the stdout of every process
    started after it."""
    for fd, name, mode in STANDARD_STREAMS:  # in order: the lowest free descriptor is taken
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        opened = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
        if opened != fd:
            os.dup2(opened, fd)
            os.close(opened)
        setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115 (the process's)


def stdout_reader_gone() -> bool:
    """Whether stdout is a pipe (or socket) whose reader has gone: ``| head`` exited. A broken
    pipe elsewhere (another process this command talks to) is not that."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def interrupted(command: str, interrupt: KeyboardInterrupt) -> int:
    """One line, and the shell's status for a process the signal ended (130 for Ctrl-C)."""
    from arena.executor import signal_number

    signum = signal_number(interrupt)
    how = "" if signum == signal.SIGINT else f" by {signal.Signals(signum).name}"
    print(f"arena {command}: interrupted{how}", file=sys.stderr)
    return 128 + signum


def main(argv: Sequence[str] | None = None) -> int:
    open_closed_standard_streams()
    for stream in (sys.stdout, sys.stderr):
        # A terminal or pipe that is not UTF-8 (PYTHONIOENCODING=ascii, LC_ALL=C without UTF-8
        # mode, where stdout's handler is surrogateescape) gets "\xb1" for what it cannot show:
        # events name ± and ½, and a traceback is no output.
        if isinstance(stream, io.TextIOWrapper) and stream.errors not in SAFE_ERRORS:
            stream.reconfigure(errors="backslashreplace")
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:  # a Ctrl-C while the commands load: nothing started yet
        print("arena: interrupted", file=sys.stderr)
        return 130
    from arena.cli.logs import setup_logging

    setup_logging(args.log_level)
    try:
        status = int(args.run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at exit
        return status
    except (UsageError, ConfigError) as exc:
        print(f"arena {command_name(args)}: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError as exc:
        if not stdout_reader_gone():  # a pipe to another process (a pool's worker): a fault, said
            what = f"{exc.strerror or exc} (a pipe to another process, not stdout)"
            print(f"arena {command_name(args)}: error: {what}", file=sys.stderr)
            return 1
        # The reader is gone (`| head`): nothing more can be said to it, and Python must not
        # fail again flushing stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE
    except OSError as exc:
        if exc.filename is None and exc.errno in STORAGE_ERRORS:
            # A full disk or quota, a read-only or failing file system: the machine's to fix.
            print(f"arena {command_name(args)}: error: {exc.strerror or exc}", file=sys.stderr)
            return USAGE_ERROR
        if exc.filename is None:
            raise  # not about a path the user gave (a network or system error): a real fault
        what = f"{exc.filename}" + (f" -> {exc.filename2}" if exc.filename2 else "")
        print(f"arena {command_name(args)}: error: {what}: {exc.strerror or exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt as exc:
        return interrupted(args.command, exc)
    except Exception as exc:
        from arena.executor import the_interrupt

        interrupt = the_interrupt(exc)
        if interrupt is None:
            raise
        return interrupted(args.command, interrupt)  # a Ctrl-C Python wrapped
