"""Arena reads its own text files as UTF-8 whatever the locale says: in an ASCII locale without
UTF-8 mode (LC_ALL=C PYTHONUTF8=0 on a system that does not coerce it), 14 games could not even
be imported (their components.toml files hold non-ASCII bytes) and no service or worker started."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from arena.registry import games
from tests.cli_run import ROOT, arena

ASCII_LOCALE = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}

PACKAGES = ("arena", "referee", "workers", "bots")
GENERATED = ("arena/v1", "arena/games/v1", "bots/examples")  # as ruff's extend-exclude
LEFT_ELSEWHERE: set[str] = set()
"""Files the check passes over (none now)."""

BINARY_MODULES = {"os", "tarfile", "zipfile", "gzip", "bz2", "lzma", "webbrowser"}
"""``X.open`` of these is not a text file's."""


def test_every_game_plays_in_an_ascii_locale():
    """One short match of each game in one process (each game's data is read on import)."""
    script = (
        "import contextlib, io, sys\n"
        "from arena.cli import main\n"
        "from arena.registry import games\n"
        "for game in sorted(games()):\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        status = main(['play', '--game', game, '--bots', 'random', '--seed', '1'])\n"
        "    print(game, status, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **ASCII_LOCALE},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.split() == [word for game in sorted(games()) for word in (game, "0")]


def test_the_probed_match_plays_in_an_ascii_locale():
    done = arena("play", "--game", "eggsandempires", "--bots", "heuristic", "--players", "3", "--seed", "7",
                 env=ASCII_LOCALE)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == ""


def test_no_text_file_is_opened_without_an_encoding():
    """Not ruff's PLW1514: it knows a Path only when it sees one made, and missed every game's
    ``Path(__file__).with_name("components.toml").read_text()``."""
    found = [
        f"{path.relative_to(ROOT)}:{call.lineno}"
        for path in _sources()
        for call in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(call, ast.Call) and _text_without_encoding(call)
    ]
    assert found == []


def _sources() -> list[Path]:
    names = (path.relative_to(ROOT) for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py")))
    return [ROOT / name for name in names if not str(name).startswith(GENERATED) and str(name) not in LEFT_ELSEWHERE]


def _text_without_encoding(call: ast.Call) -> bool:
    """``open``, ``Path.open``, ``read_text`` or ``write_text`` in text mode with no encoding."""
    keywords = {keyword.arg for keyword in call.keywords}
    if "encoding" in keywords or None in keywords:  # None: a **mapping, which may hold it
        return False
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "read_text":
        return not call.args
    if isinstance(func, ast.Attribute) and func.attr == "write_text":
        return len(call.args) < 2
    mode = next((keyword.value for keyword in call.keywords if keyword.arg == "mode"), None)
    if isinstance(func, ast.Name) and func.id == "open":
        if len(call.args) > 3:  # the encoding given in its place
            return False
        mode = call.args[1] if len(call.args) > 1 else mode
        return mode is None or _may_be_text(mode)
    if isinstance(func, ast.Attribute) and func.attr == "open":
        if isinstance(func.value, ast.Name) and func.value.id in BINARY_MODULES:
            return False
        mode = call.args[0] if call.args else mode
        # With no mode it may be a Path's (text) or a stream's, a zip member's (not files).
        return mode is not None and _may_be_text(mode)
    return False


def _may_be_text(mode: ast.expr) -> bool:
    if isinstance(mode, ast.IfExp):
        return _may_be_text(mode.body) or _may_be_text(mode.orelse)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "b" not in mode.value
