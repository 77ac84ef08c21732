"""Players from bot specs: built-in bots by name, remote bots by address.

The one composition of players below the CLI: the CLI (local runs, ``arena play``, the
service) and the Celery workers all build their players here. It is a top-level function so
worker processes can receive it by reference. Built-in bots are imported lazily, by name.
"""

from __future__ import annotations

from arena.runner import Player


def make_player(spec: str, game_id: str, key: str | None = None) -> Player:
    """A remote player for ``grpc://HOST:PORT`` / ``unix:///PATH``, a sandboxed one for
    ``hosted:DIR`` (a hosted bot's unpacked files, issue 17), else a built-in bot. ``key``: the
    endpoint's key, as the registration a remote spec plays holds it (every start proves it,
    see :class:`referee.remote.RemotePlayer`)."""
    if spec.startswith("hosted:"):
        from referee.hosted import make_hosted_player

        return make_hosted_player(spec[len("hosted:") :], game_id)
    if spec.startswith(("grpc://", "unix:")):
        from referee.remote import RemotePlayer

        return RemotePlayer(spec, key=key)
    from bots.registry import make_bot

    return make_bot(spec, game_id)


def check_bot(spec: str, game_id: str) -> None:
    """Raise ConfigError if the spec names no bot, or an address a new entrant may not have
    (before any match starts)."""
    if spec.startswith(("grpc://", "unix:")):
        from referee.remote import check_new_address

        check_new_address(spec)
    make_player(spec, game_id)
