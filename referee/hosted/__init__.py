"""Hosted bots (issue 17): bot code that Arena runs itself, each seat in a bubblewrap jail.

:mod:`referee.hosted.jail` starts and ends a jail; :mod:`referee.hosted.player` is the seat's
player (a :class:`referee.remote.RemotePlayer` on the jail's Unix socket).
"""

from __future__ import annotations

from pathlib import Path

from arena.config import ConfigError
from arena.runner import Player


def make_hosted_player(bot_dir: str, game_id: str) -> Player:
    """The player of a hosted bot's unpacked files at ``bot_dir`` (``hosted:DIR``); refused with
    the reason when the sandbox cannot run here or the manifest is wrong."""
    from referee.hosted import jail, manifest
    from referee.hosted.player import HostedPlayer

    try:
        jail.check_sandbox()
    except jail.SandboxUnavailable as exc:
        raise ConfigError(str(exc)) from None
    directory = Path(bot_dir)
    if not directory.is_absolute() or not directory.is_dir():
        raise ConfigError(f"hosted bot {bot_dir!r}: expected hosted:/absolute/path/of/its/files")
    try:
        found = manifest.load(directory)
    except manifest.ManifestError as exc:
        raise ConfigError(f"hosted bot {bot_dir}: {exc}") from None
    if game_id and game_id not in found.games:
        raise ConfigError(f"hosted bot {found.name!r} does not play {game_id} (its games: {', '.join(found.games)})")
    return HostedPlayer(directory, found.entry, name=found.name)
