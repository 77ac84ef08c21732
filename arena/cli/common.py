"""Argument handling shared by the subcommands (games, options, bots, players)."""

from __future__ import annotations

import argparse
import errno
import json
import os
import stat
import sys
from pathlib import Path

from arena.cli import UsageError
from arena.config import ascii_integer
from arena.engine import Game
from arena.registry import get_game

DEFAULT_REDIS = os.environ.get("ARENA_REDIS") or "redis://127.0.0.1:6379/0"
"""The store and broker of distributed runs and the service, unless told otherwise: the
environment's ARENA_REDIS, as ARENA_SERVER is the client's (a flag on each command alone let
`arena admin create-owner` write an account to another store than the service's)."""


MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def metrics_of_this_process() -> None:
    """Keep this process's metrics to itself: ``PROMETHEUS_MULTIPROC_DIR`` names a worker node's
    metrics directory (``arena worker``, which locks it). Exported in a shell, it made ``arena
    serve`` and ``arena tournament --metrics-port`` write their counts into that node's directory
    and serve its counts as their own: every count doubled on a dashboard, and their series
    outlived them (an outside metrics probe). Called before anything imports prometheus_client."""
    if os.environ.pop(MULTIPROC_ENV, None) is not None and "prometheus_client" in sys.modules:
        raise RuntimeError("prometheus_client was imported before this process dropped its multiprocess directory")


def metrics_bind_problem(exc: OSError) -> str:
    """Why /metrics could not be served: a port in use says to give each process its own; any
    other cause (a host that does not resolve) is said as it is (it was blamed on the port)."""
    if exc.errno == errno.EADDRINUSE:
        return f"{exc.strerror} (each process on a machine needs its own --metrics-port)"
    return exc.strerror or str(exc)


def whole_number(text: str) -> int:
    """argparse type: an integer in ASCII digits (``int`` alone takes ``３`` and ``1_000``, which
    ``--option`` and ``--clock`` refuse; a bad value is argparse's one-line error, exit 2)."""
    value = ascii_integer(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a whole number in ASCII digits, got {text!r}")
    return value


def decimal(text: str) -> float:
    """argparse type: a number in ASCII digits (``1.5``, ``0``, ``2e3``; ``nan`` and ``inf``
    too, for the flag's own range check to name); ``float`` alone takes ``３`` and ``1_0``."""
    try:
        if not text.isascii() or "_" in text:
            raise ValueError
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in ASCII digits, got {text!r}") from None


class JoinedPairs(argparse.Action):
    """``--clock a=1 --clock b=2`` as ``a=1,b=2``: every occurrence counts, so a key given in two
    flags is refused as one given twice in one (argparse kept the last flag alone: the first's
    keys were dropped without a word)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: object = None,
    ) -> None:
        before = getattr(namespace, self.dest, None)
        setattr(namespace, self.dest, str(values) if before is None else f"{before},{values}")


def non_negative(text: str) -> int:
    """argparse type: an integer >= 0 (a bad value is argparse's one-line error, exit 2)."""
    value = whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def positive(text: str) -> int:
    """argparse type: a whole number of at least 1, carried in 32 bits."""
    value = uint32(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def uint32(text: str) -> int:
    """argparse type: a whole number the protocol carries in 32 bits (0..2**32-1)."""
    value = non_negative(text)
    if value >= 2**32:
        raise argparse.ArgumentTypeError(f"must be at most {2**32 - 1}, got {value}")
    return value


def uint64(text: str) -> int:
    """argparse type: a whole number the protocol carries in 64 bits (a seed: 0..2**64-1)."""
    value = non_negative(text)
    if value >= 2**64:
        raise argparse.ArgumentTypeError(f"must be at most {2**64 - 1}, got {value}")
    return value


def port_number(text: str) -> int:
    """argparse type: a TCP port, 0-65535 (0: any free port)."""
    value = non_negative(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, got {value}")
    return value


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help="game id (see `arena games`)")
    parser.add_argument("--players", type=whole_number, help="number of players")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="variant option (repeatable)"
    )
    parser.add_argument(
        "--seed",
        type=uint64,
        help="match seed, 0..2**64-1 (default 1 when every seat is a built-in bot; an unpredictable one, "
        "printed, when a seat is a remote or hosted bot: one that knew the seed could compute every deal)",
    )


def parse_options(items: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError(f"--option expects KEY=VALUE, got {item!r}")
        if key.strip() in options:  # which one was meant? (a bot's parameter given twice is refused too)
            raise UsageError(f"--option {key.strip()} is given twice ({options[key.strip()]!r} and {value.strip()!r})")
        options[key.strip()] = value.strip()
    return options


def split_list(text: str | None, what: str = "--bots") -> list[str]:
    """The items of a comma-separated list; an empty item (``heuristic,``, ``a,,b``) is refused:
    a seat would otherwise be filled without a word by another bot."""
    parts = [part.strip() for part in (text or "").split(",")]
    if text is not None and text.strip() and not all(parts):
        raise UsageError(f"{what} {text!r}: an empty item (two commas, or one at an end)")
    return [part for part in parts if part]


def split_bots(text: str | None) -> list[str]:
    """Bot specs from a comma-separated ``--bots`` list, where a bot's parameters may contain
    commas too: ``heuristic:patience=1,spite=0,random`` is two bots. An item that is a bare
    ``key=value`` continues the parameters of the bot before it (no bot name or address holds
    a ``=`` before a ``:``), so the list needs no other separator and no shell quoting."""
    bots: list[str] = []
    for item in split_list(text):
        head = item.split(":", 1)[0]
        if "=" in head and bots and ":" in bots[-1]:
            bots[-1] += "," + item
        elif "=" in head:
            raise UsageError(f"--bots: {item!r} is a parameter but no bot with parameters comes before it")
        else:
            bots.append(item)
    for bot in bots:
        try:
            bot.encode("utf-8")  # argv keeps bytes that are not UTF-8 as surrogates
        except UnicodeEncodeError:
            # A seat's name and address go into the protocol's UTF-8 strings: the match failed
            # at its start, with a traceback.
            raise UsageError(f"--bots {bot!r}: not valid UTF-8 (a bot's path or address must be)") from None
    return bots


def default_players(game: Game) -> int:
    """Two players where the game allows it (a solo match is a poor default)."""
    return min(max(2, game.meta.min_players), game.meta.max_players)


def seat_bots(game: Game, players: int | None, bots: list[str]) -> tuple[int, list[str]]:
    """Player count and one bot spec per seat (one bot given = that bot in every seat)."""
    if players is None:
        players = len(bots) if len(bots) > 1 else default_players(game)
    if not bots:
        bots = ["random"]
    if len(bots) == 1:
        bots = bots * players
    if len(bots) != players:
        raise UsageError(f"{len(bots)} bots given for {players} players; give one per seat (or one for all)")
    return players, bots


def load_game(game_id: str) -> Game:
    return get_game(game_id)


KEY_FILE_CHARS = 4096
"""What is read of a key file: far more than a key and the whitespace around it."""


def read_key_file(path: str | None, flag: str) -> str | None:
    """The endpoint key in the file ``path`` names (surrounding whitespace dropped), checked;
    None without a path. A key is read from a file, never the command line (``ps`` shows those)."""
    if path is None:
        return None
    from arena.protocol import check_endpoint_key

    try:
        # A regular file, read to a bound: /dev/zero was read to gigabytes, a named pipe waited
        # forever (stat does not open it). A longer file is said too long by the check below.
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise UsageError(f"{flag} {path}: not a regular file")
        with open(path, encoding="utf-8") as handle:
            key = handle.read(KEY_FILE_CHARS + 1)
        if len(key) > KEY_FILE_CHARS:
            raise UsageError(f"{flag} {path}: more than {KEY_FILE_CHARS:,} characters; a key file holds one key")
        key = key.strip()
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot read it ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise UsageError(f"{flag} {path}: not a text file") from None
    try:
        check_endpoint_key(key, f"{flag} {path}")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return key


class RecordFile:
    """A ``--record`` file opened before the match it will hold (an unwritable path found after
    the match lost the only copy of its record). A path that is not there yet is made, and
    removed again if no record comes (no empty file); one that is there (an earlier record,
    ``/dev/null``) is left as it was until the record is written, and never removed (a
    challenge the service refused deleted a record the user had, and ``/dev/null`` with it).
    An existing regular file is replaced only if it holds one match record (or nothing), unless
    ``force``: a typo overwrote a tournament's matches.jsonl (24 records became 1)."""

    def __init__(self, path: str | Path, *, force: bool = False) -> None:
        self.path = Path(path)
        self.written = False
        try:
            try:
                self.handle = open(self.path, "x", encoding="utf-8")  # noqa: SIM115 (closed by close())
                self.made = True
            except FileExistsError:
                from arena.atomic_write import is_stream

                if not force and not is_stream(self.path):  # `--record /dev/stdout >> log`: appended to
                    check_replaceable(self.path)
                self.handle = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (writable; not truncated yet)
                self.made = False
        except OSError as exc:
            raise UsageError(f"--record {path}: {exc.strerror or exc}") from None

    def write(self, text: str) -> None:
        from arena.atomic_write import is_stream, write_atomic, write_to_std_stream

        if write_to_std_stream(self.path, text):
            pass  # `--record /dev/stdout > out`: at stdout's place in out, before what it prints next
        elif self.written or is_stream(self.path):
            # /dev/null, a pipe: written where it is (never replaced)
            self.handle.write(text)
            self.handle.flush()
        else:
            # A whole copy renamed over it: a full disk left the earlier record truncated and
            # the new one torn; now it leaves the earlier one as it was.
            try:
                write_atomic(self.path, text)
                # The handle was the file replaced: a later write goes to the one now there.
                self.handle.close()
                self.handle = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())
            except OSError as exc:
                raise UsageError(f"cannot write --record {self.path}: {exc.strerror or exc}") from None
        self.written = True

    def close(self) -> None:
        """Close; a file this command made that holds no record is removed."""
        self.handle.close()
        if self.made and not self.written:
            self.path.unlink(missing_ok=True)


def check_replaceable(path: Path) -> None:
    """UsageError unless the regular file ``path`` holds one arena match record or nothing
    (what ``--record`` may replace without ``--force``); other kinds of file are left to open()."""
    if not path.is_file():
        return
    with path.open("rb") as handle:
        lines = sum(1 for line in handle if line.strip())
    if lines == 0:
        return  # empty: nothing to lose
    overwrite = "give --force to overwrite it"
    if path.name == "matches.jsonl" and (path.parent / "tournament.json").is_file():
        raise UsageError(f"--record {path} holds a tournament run's match records ({lines}): {overwrite}")
    if lines > 1:
        raise UsageError(f"--record {path} exists and holds {lines} lines, not one match record: {overwrite}")
    with path.open("rb") as handle:
        first = next(line for line in handle if line.strip())
    try:
        data = json.loads(first)
    except (ValueError, RecursionError):  # not UTF-8 either
        data = None
    if not (isinstance(data, dict) and "record" in data and "match_id" in data):
        raise UsageError(f"--record {path} exists and is not an arena match record: {overwrite}")
