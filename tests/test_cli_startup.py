"""The CLI starts without importing what its command does not use: one game, not all of them;
no service, web server, gRPC client or numpy for a local match."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import json, runpy, sys
sys.argv = ["arena", *{argv!r}]
try:
    runpy.run_module("arena", run_name="__main__")
except SystemExit as done:
    code = done.code
print(json.dumps({{"code": code, "modules": sorted(sys.modules)}}), file=sys.stderr)
"""


def started(*argv: str) -> tuple[int, set[str]]:
    """Run ``arena ARGV`` in a fresh interpreter; its exit code and every module it imported."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=list(argv))], capture_output=True, text=True, timeout=120
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"])


def games_imported(modules: set[str]) -> set[str]:
    """The games whose rules module was imported (``arena.games.<id>.game``; the package also holds
    the protocol code ``v1`` and code games share, such as ``charging``)."""
    return {m.split(".")[2] for m in modules if m.startswith("arena.games.") and m.endswith(".game")}


@pytest.mark.parametrize(
    "argv",
    [
        ("play", "--game", "rolldice", "--bots", "random,random"),
        ("rules", "skyfive"),
        ("--help",),
    ],
)
def test_a_local_command_imports_one_game_and_no_service(argv):
    code, modules = started(*argv)
    assert code in (0, None)
    wanted = {"rolldice"} if "rolldice" in argv else {"skyfive"} if "skyfive" in argv else set()
    assert games_imported(modules) == wanted
    for heavy in ("aiohttp", "numpy", "referee.server", "referee.web", "grpc", "celery", "redis"):
        assert heavy not in modules, f"arena {' '.join(argv)} imported {heavy}"


def test_listing_the_games_still_imports_every_game():
    from arena.registry import games

    code, modules = started("games")
    assert code in (0, None)
    assert games_imported(modules) == set(games())


def test_an_unknown_game_is_named_with_the_known_ones():
    from arena.config import ConfigError
    from arena.registry import games, get_game

    for bad in ("nope", "v1", "os.path", "../rolldice", ""):
        with pytest.raises(ConfigError, match="known games: " + ", ".join(games())):
            get_game(bad)
    assert get_game("rolldice") is games()["rolldice"]
