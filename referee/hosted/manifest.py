"""A hosted bot's manifest, ``arena-bot.toml`` at the top of its files::

name = "mybot"
games = ["rolldice", "parcheesi"]
language = "python"
entry = "mybot"          # the module run as ``python -m mybot``; it calls bots.serve.serve
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "arena-bot.toml"
LANGUAGES = ("python",)
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_ENTRY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class ManifestError(ValueError):
    """The manifest is missing or wrong (the message names the field)."""


MAX_MANIFEST = 64 * 1024
"""Characters of a manifest: its four fields need a few hundred."""


@dataclass(frozen=True)
class Manifest:
    name: str
    games: tuple[str, ...]
    language: str
    entry: str


def parse(text: str) -> Manifest:
    if len(text) > MAX_MANIFEST:
        raise ManifestError(f"{MANIFEST} is {len(text)} characters; at most {MAX_MANIFEST}")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{MANIFEST} is not valid TOML: {exc}") from None
    except RecursionError:  # arrays or tables nested thousands deep
        raise ManifestError(f"{MANIFEST} is nested too deeply to read") from None
    except ValueError as exc:  # an integer past int's 4,300 digits: "Exceeds the limit ...; use sys..."
        raise ManifestError(f"{MANIFEST} holds a number too long to read: {str(exc).partition(';')[0]}") from None
    unknown = sorted(set(data) - {"name", "games", "language", "entry"})
    if unknown:
        raise ManifestError(
            f"{MANIFEST}: unknown field(s) {', '.join(unknown)} (expected name, games, language, entry)"
        )
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ManifestError(
            f"{MANIFEST}: name must be 1-40 of a-z 0-9 _ - (starting with a letter or digit), got {name!r}"
        )
    games = data.get("games")
    if not isinstance(games, list) or not games or not all(isinstance(g, str) and g for g in games):
        raise ManifestError(f"{MANIFEST}: games must be a non-empty list of game ids, got {games!r}")
    language = data.get("language")
    if language not in LANGUAGES:
        raise ManifestError(f"{MANIFEST}: language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    entry = data.get("entry")
    if not isinstance(entry, str) or not _ENTRY.match(entry):
        raise ManifestError(
            f"{MANIFEST}: entry must be a Python module name such as mybot or mybot.main, got {entry!r}"
        )
    return Manifest(name, tuple(games), language, entry)


def load(directory: Path) -> Manifest:
    path = directory / MANIFEST
    if not path.is_file():
        raise ManifestError(f"no {MANIFEST} at the top of the bot's files ({directory})")
    return parse(path.read_text(encoding="utf-8-sig", errors="replace"))  # a BOM, as uploads take it
