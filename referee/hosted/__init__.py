"""Hosted bots (issue 17): bot code that Arena runs itself, each seat in a bubblewrap jail.

:mod:`referee.hosted.jail` starts and ends a jail; :mod:`referee.hosted.player` is the seat's
player (a :class:`referee.remote.RemotePlayer` on the jail's Unix socket).
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from arena.config import ConfigError
from arena.printable import shown_output
from arena.runner import Player

log = logging.getLogger(__name__)


def make_hosted_player(target: str, game_id: str) -> Player:
    """The player of a hosted bot: ``hosted:BOT@VERSION`` (a stored version, unpacked in this
    machine's cache; its output kept for the bot's owner) or ``hosted:/DIR`` (unpacked files).

    When the seat cannot be played (the sandbox cannot run here, the version is missing or
    broken, the bot does not play the game): on a worker (a store is configured: the
    tournament was accepted, its matches must be played out and recorded) the player is an
    :class:`~referee.hosted.player.UnplayableHostedPlayer`, a ``crash`` at start naming the
    reason; elsewhere (a local run checking its bots before any match) ConfigError says why."""
    from referee.hosted import versions
    from referee.hosted.player import UnplayableHostedPlayer

    try:
        return _hosted_player(target, game_id)
    except ConfigError as exc:
        if versions.configured() is None:
            raise
        log.warning("hosted seat %s cannot be played here: %s", target, exc)
        return UnplayableHostedPlayer(str(exc), name=target.partition("@")[0])


def _hosted_player(target: str, game_id: str) -> Player:
    from referee.hosted import archive, jail, versions

    try:
        jail.check_sandbox()
    except jail.SandboxUnavailable as exc:
        raise ConfigError(str(exc)) from None
    keep_log = None
    lease = None
    what = "hosted bot"
    if not target.startswith("/"):
        bot, _, version = target.partition("@")
        store = versions.configured()
        if not version or store is None:
            raise ConfigError(
                f"hosted bot {target!r}: expected hosted:/ABSOLUTE/DIR (a bot's files, played here) or "
                "hosted:BOT@VERSION (a stored version, on a worker with a store)"
            )
        info = versions.version_info(store, bot, version)
        if info is None:
            raise ConfigError(f"hosted bot {bot!r} has no version {version[:12]}")
        what = f"hosted bot {bot!r} version {version[:12]}"
        try:
            unpacked, lease = versions.leased(version)  # held until the player is closed
        except archive.ArchiveError as exc:
            raise ConfigError(f"{what}: {exc}") from None
        target = str(unpacked)
        try:
            owner = versions.bot_owner(store, bot, info)
            tournament = versions.current_tournament()
            creator = store.redis.hget(store.key("t", tournament), "owner") if tournament else None
        except BaseException:
            lease.release()  # not left to the traceback's frame: eviction passed over the version meanwhile
            raise
        entered_by = creator.decode() if creator else ""

        def keep_log(match_id: str, seat: int, text: str) -> None:
            match_ref = f"{tournament}:{match_id}" if tournament else match_id
            versions.save_log(store, match_ref, seat, owner, bot, text, entered_by=entered_by)

    try:
        return _player_of(target, what, game_id, keep_log, lease.release if lease is not None else None)
    except BaseException:
        if lease is not None:  # no player holds the version
            lease.release()
        raise


def _player_of(
    target: str,
    what: str,
    game_id: str,
    keep_log: Callable[[str, int, str], None] | None,
    release: Callable[[], None] | None,
) -> Player:
    from referee.hosted import manifest
    from referee.hosted.player import HostedPlayer

    directory = Path(target)
    if not directory.is_absolute():
        raise ConfigError(f"hosted bot {target!r}: expected hosted:/absolute/path/of/its/files")
    if directory.is_file():
        raise ConfigError(f"hosted bot {target!r}: a file; a local run plays a directory of its files (unpack it)")
    if not directory.is_dir():
        raise ConfigError(f"hosted bot {target!r}: no such directory")
    try:
        found = manifest.load(directory)
    except manifest.ManifestError as exc:
        raise ConfigError(f"hosted bot {target}: {exc}") from None
    if what == "hosted bot":
        what = f"hosted bot {found.name!r}"
    if game_id and game_id not in found.games:
        raise ConfigError(f"{what} does not play {game_id} (its games: {', '.join(found.games)})")
    if keep_log is None:  # a local run (its files, no store): its author is watching, say it here
        keep_log = functools.partial(_print_output, found.name)
    return HostedPlayer(directory, found.entry, name=found.name, keep_log=keep_log, release=release)


def _print_output(name: str, match_id: str, seat: int, text: str) -> None:
    """A local run's hosted seat's output, on stderr once its jail has stopped: a local run has
    no match logs, and its crash's traceback was shown nowhere (an outside hosted-bot probe)."""
    if text.strip():
        print(f"== output of hosted bot {name!r}, seat {seat} of match {match_id} ==", file=sys.stderr)
        print(shown_output(text.rstrip()), file=sys.stderr)
