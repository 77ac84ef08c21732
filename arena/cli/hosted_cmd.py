"""Client commands for hosted bots (issue 17)::

    arena bots submit --name NAME [--games G1,G2] [--activate] DIR_OR_ARCHIVE
    arena bots versions NAME
    arena bots activate NAME VERSION
    arena matches logs MATCH_ID

``submit`` packs a directory (a reproducible .tar.gz, links refused, caches left out) or sends a
.tar.gz/.zip as it is, in 1 MiB pieces; the service checks it, plays a trial match in its
sandbox and answers with the version (its content hash) or exactly why it refused it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from arena.cli import UsageError
from arena.cli.common import split_list

CHUNK = 64 * 1024
"""Bytes of the package per upload message (the service takes at most 1 MiB, with the name and
the games in the first): small, as the service ends an upload that sends no chunk for 30 s,
and a 1 MiB chunk took longer than that on a link under 34 KB/s (an outside review); a 64 KiB
one takes 30 s below about 2 KB/s."""


def register_bots(actions: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    submit = actions.add_parser("submit", help="upload a hosted bot's code (a directory or a .tar.gz/.zip)")
    submit.add_argument("--name", required=True)
    submit.add_argument("--games", default="", help="comma-separated game ids (default: the manifest's)")
    submit.add_argument("--activate", action="store_true", help="make it the active version (the first always is)")
    submit.add_argument("path", metavar="DIR_OR_ARCHIVE")
    listing = actions.add_parser("versions", help="a hosted bot's versions")
    listing.add_argument("name")
    activate = actions.add_parser("activate", help="make a version of a hosted bot the one that plays")
    activate.add_argument("name")
    activate.add_argument("version", help="the version's hash (or a unique prefix of 8+ characters)")
    delete = actions.add_parser(
        "delete-version", help="forget a stored version of a hosted bot (not the active one, nor one playing)"
    )
    delete.add_argument("name")
    delete.add_argument("version", help="the version's hash (or a unique prefix of 8+ characters)")
    for sub in (submit, listing, activate, delete):
        common(sub)
        sub.set_defaults(run=run_hosted_bots)


def register_matches(actions: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    logs = actions.add_parser("logs", help="your hosted bot's output in a match (after the match)")
    logs.add_argument("match_id", metavar="MATCH_ID", help="<tournament id>:<match id>")
    common(logs)
    logs.set_defaults(run=run_match_logs)


def archive_bytes(path: Path) -> bytes:
    from referee.hosted import archive

    if path.is_dir():
        try:
            packed = archive.pack_directory(path)
        except archive.ArchiveError as exc:
            raise UsageError(f"cannot pack {path}: {exc}") from None
        if len(packed) > archive.MAX_PACKED:  # refused here, as an archive file is, not after the upload
            raise UsageError(f"{path} packs to {len(packed)} bytes; at most {archive.MAX_PACKED // archive.MiB} MiB")
        return packed
    if not path.is_file():
        raise UsageError(f"{path}: no such directory or archive")
    if path.stat().st_size > archive.MAX_PACKED:
        raise UsageError(f"{path} is more than {archive.MAX_PACKED // archive.MiB} MiB")
    return path.read_bytes()


def chunks(name: str, games: list[str], activate: bool, data: bytes) -> Iterator[Any]:
    from arena.v1 import arena_pb2

    yield arena_pb2.BotUploadChunk(name=name, games=games, activate=activate, data=data[:CHUNK])
    for start in range(CHUNK, len(data), CHUNK):
        yield arena_pb2.BotUploadChunk(data=data[start : start + CHUNK])


def version_line(v: Any) -> str:
    created = v.created.ToDatetime().strftime("%Y-%m-%d %H:%M:%S")
    active = "active" if v.active else "-"
    return f"{v.version[:16]}\t{active}\t{created}\t{v.size} bytes\t{v.files} files\t{','.join(v.games)}"


def run_hosted_bots(args: argparse.Namespace) -> int:
    from arena.cli.client_cmd import Client, guarded, show

    @guarded
    def run(args: argparse.Namespace) -> int:
        from arena.v1 import arena_pb2

        if args.action == "submit":
            data = archive_bytes(Path(args.path))
            client = Client(args)
            stream = chunks(args.name, split_list(args.games, "--games") if args.games else [], args.activate, data)
            version = client.call("SubmitBotVersion", stream, timeout=300.0)
            show(
                args,
                version,
                lambda: f"{version.bot}: version {version.version} ({'active' if version.active else 'stored'})",
            )
        elif args.action == "versions":
            reply = Client(args).call("ListBotVersions", arena_pb2.ListBotVersionsRequest(name=args.name))
            show(args, reply, lambda: "\n".join(version_line(v) for v in reply.versions) or "no versions")
        elif args.action == "delete-version":
            forget = arena_pb2.DeleteBotVersionRequest(name=args.name, version=args.version)
            reply = Client(args).call("DeleteBotVersion", forget)
            left = "\n".join(version_line(v) for v in reply.versions) or "no versions left"
            show(args, reply, lambda: f"{args.name}: version {args.version} deleted; its versions now:\n{left}")
        else:
            request = arena_pb2.ActivateBotVersionRequest(name=args.name, version=args.version)
            version = Client(args).call("ActivateBotVersion", request)
            show(args, version, lambda: f"{version.bot}: version {version.version} is active")
        return 0

    return run(args)


def run_match_logs(args: argparse.Namespace) -> int:
    from arena.cli.client_cmd import Client, guarded, show

    @guarded
    def run(args: argparse.Namespace) -> int:
        from arena.printable import shown_output
        from arena.v1 import arena_pb2

        reply = Client(args).call("GetMatchLogs", arena_pb2.GetMatchLogsRequest(id=args.match_id))
        show(
            args,
            reply,
            lambda: (
                "\n".join(f"== seat {entry.seat} ({entry.bot})\n{shown_output(entry.text)}" for entry in reply.logs)
                or "no logs of yours in this match"
            ),
        )
        return 0

    return run(args)
