"""The bot author's manual documents every option id the engine offers (GAME-DONE, "Protocol").

``tests/test_rules_docs.py`` checks the decision and event kinds; this module checks option ids.
For every registered game, seeded random playouts over every player count and variant collect
the option ids offered, and each must match one of the grammars ``arena rules <id>`` prints.

A grammar is any backticked token of the rules text. In it:

* ``<name>`` (a placeholder; the name may contain spaces, ``<owner seat>``) stands for one or
  more characters other than ``:`` and whitespace. Placeholders are lenient on their contents
  (``<card>`` may be ``red5``, ``banana2`` or ``switch``) but never span a ``:`` separator, so
  the number of fields is strict.
* ``...`` or ``…`` (an ellipsis: "and so on", ``summon:31:-<e>...``) stands for any run of
  characters other than ``:`` and whitespace, possibly empty. A list may stop before it: the
  separator just before it is optional (``pay:<good><n>+...`` documents ``pay:silk3``), and so is
  an item that repeats the one before (``<card>.<card>…`` documents a single ``<card>``).
* A placeholder that starts the grammar (``<type>:<card>.<card>…`` with type ``single``, ``set``
  or ``run``; ``<suit>-<printed>:<value>``) names the option's verb or kind: it must be one of
  the words the manual writes in backticks (``single``, ``past``), not just anything.
* Everything else is literal and must match exactly (``stop``, ``take:red5``, ``bend:left``).
* A range written `` `pawn:o1`..`pawn:o4` `` (two backticked literals that differ only in
  their numbers, joined by ``..``, ``...``, ``…``, ``-`` or ``–``) documents every number
  between them.

A token that is a placeholder alone (``<card>``, ``<i>``) names a placeholder in prose and is not
a grammar, nor is one with no letter or digit of its own (``…:…``: it would match anything).
Backticked kinds, option keys and values (``draw``, ``target``) count as literal
grammars too: the manual cannot be more precise than "this word appears in backticks" without
a structured format, and a literal option is usually documented exactly so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from arena.chance import Chance
from arena.cli.rules_cmd import rules_text
from arena.engine import Game
from arena.registry import games
from tests.contract import configurations

GAMES = list(games().values())
IDS = [g.meta.id for g in GAMES]
SEEDS = 4
"""Playouts per configuration (every player count and variant)."""
STEP_CAP = 2_000
"""Decisions per playout at most: long games are cut short (their later options repeat)."""
EXAMPLES = 4
"""Undocumented ids shown per shape (digits as ``#``) in a failure..."""
SHAPES = 12
"""...and shapes shown per game."""

PLACEHOLDER = re.compile(r"<[A-Za-z][\w .-]*>")
ELLIPSIS = re.compile(r"\.\.\.|…")
FIELD = r"[^:\s]+"  # a placeholder's contents
RUN = r"[^:\s]*"  # an ellipsis' contents
RANGE = re.compile(r"`([^`\n]+)`\s*(?:\.\.\.?|…|-|–)\s*`([^`\n]+)`")


def grammar_pattern(token: str, words: frozenset[str] = frozenset()) -> re.Pattern[str] | None:
    """The regex a backticked token stands for, or None if it is no grammar (a placeholder
    alone). A leading placeholder (``<type>:<card>``) is one of ``words``."""
    if PLACEHOLDER.fullmatch(token):
        return None
    # Units: ("lit", text), ("ph", name), ("etc", "").
    units: list[tuple[str, str]] = []
    pos = 0
    for match in re.finditer(rf"{PLACEHOLDER.pattern}|{ELLIPSIS.pattern}", token):
        if match.start() > pos:
            units.append(("lit", token[pos : match.start()]))
        units.append(("etc", "") if ELLIPSIS.fullmatch(match.group()) else ("ph", match.group()))
        pos = match.end()
    if pos < len(token):
        units.append(("lit", token[pos:]))
    if units[0][0] != "ph" and not any(kind == "lit" and re.search(r"[A-Za-z0-9]", text) for kind, text in units):
        return None  # `…:…` documents nothing: it matched every id of two fields (an outside probe)
    parts: list[str] = []
    for i, (kind, text) in enumerate(units):
        if kind == "lit":
            parts.append(re.escape(text))
        elif kind == "ph" and i == 0:
            parts.append("(?:" + "|".join(map(re.escape, sorted(words, key=len, reverse=True))) + ")")
        elif kind == "ph":
            parts.append(FIELD)
        elif i >= 3 and units[i - 1] == units[i - 3] and units[i - 1][0] == "ph" and is_separator(units[i - 2]):
            # "<card>.<card>…": a list of one or more: the repeated item is optional.
            del parts[-2:]
            parts.append(f"(?:{re.escape(units[i - 2][1])}{FIELD}{RUN})?")
        elif i >= 1 and units[i - 1][0] == "lit" and not units[i - 1][1][-1].isalnum():
            # "<good><n>+...": the list may stop before the separator.
            sep = units[i - 1][1][-1]
            parts[-1] = re.escape(units[i - 1][1][:-1])
            parts.append(f"(?:{re.escape(sep)}{RUN})?")
        else:
            parts.append(RUN)
    return re.compile("".join(parts))


def is_separator(unit: tuple[str, str]) -> bool:
    return unit[0] == "lit" and len(unit[1]) == 1 and not unit[1].isalnum()


def range_pattern(low: str, high: str) -> re.Pattern[str] | None:
    """``pawn:o1``..``pawn:o4``: the literals between two that differ only in their numbers."""
    if PLACEHOLDER.search(low) or PLACEHOLDER.search(high):
        return None
    shape = re.sub(r"\d+", "#", low)
    if shape != re.sub(r"\d+", "#", high) or "#" not in shape or low == high:
        return None
    return re.compile(re.escape(shape).replace("\\#", "#").replace("#", r"\d+"))


def in_range(low: str, high: str, option_id: str) -> bool:
    bounds = zip(map(int, re.findall(r"\d+", low)), map(int, re.findall(r"\d+", high)), strict=True)
    values = map(int, re.findall(r"\d+", option_id))
    return all(min(a, b) <= v <= max(a, b) for (a, b), v in zip(bounds, values, strict=True))


class Manual:
    """The option id grammars of one game's rules text."""

    def __init__(self, text: str) -> None:
        tokens = re.findall(r"`([^`\n]+)`", text)
        words = frozenset(t for t in tokens if re.fullmatch(r"[A-Za-z][\w-]*", t))
        self.patterns = {p.pattern: p for t in tokens if (p := grammar_pattern(t, words))}
        self.ranges = [
            (p, low, high) for low, high in RANGE.findall(text) if (p := range_pattern(low, high)) is not None
        ]

    def documents(self, option_id: str) -> bool:
        if any(p.fullmatch(option_id) for p in self.patterns.values()):
            return True
        return any(p.fullmatch(option_id) and in_range(low, high, option_id) for p, low, high in self.ranges)


def offered_ids(game: Game) -> Iterator[str]:
    """Every option id offered in seeded random playouts of every configuration."""
    for config in configurations(game):
        for seed in range(SEEDS):
            state = game.new_match(config, seed)
            rng = Chance(seed ^ 0x0971)
            for _ in range(STEP_CAP):
                if not state.pending:
                    break
                for decision in state.pending:
                    yield from decision.option_ids
                game.apply(state, {d.seat: rng.pick(d.options, "test").id for d in state.pending})


def shape(option_id: str) -> str:
    return re.sub(r"\d+", "#", option_id)


def test_grammar_parsing():
    manual = Manual(
        "Options `pour:<tap>:<i>`, `stop`, `summon:31:-<e>...`, `move:<owner seat>`, "
        "`pawn:o1`..`pawn:o4`, a placeholder `<card>` and `pay:<toy><n>+...+wild<n>`."
    )
    for good in ["pour:kiwi:0", "stop", "summon:31:-air", "summon:31:-air-fire", "move:2", "pawn:o3"]:
        assert manual.documents(good), good
    for good in ["pay:girl1+kitsune2+wild1", "pay:girl1+wild1"]:
        assert manual.documents(good), good
    listed = Manual("`pay:<good><n>+...`, `run:<card>.<card>…`, `<type>:<card>` (type `single`)")
    for good in ["pay:silk3", "pay:silk3+gold1", "run:G5", "run:G5.G6.W=G7", "single:G5"]:
        assert listed.documents(good), good
    for bad in ["pay:", "pay:silk3:gold1", "run:", "run:G5:G6", "use:G5"]:
        assert not listed.documents(bad), bad
    for bad in ["bid:1", "a:b"]:
        assert not Manual("and so on (`…:…`, `...`)").documents(bad), bad
    for bad in ["pour:0", "pour:kiwi:0:1", "stop:1", "Stop", "summon:32:-air", "pawn:o5", "pawn:k", "red5", "move:"]:
        assert not manual.documents(bad), bad


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_rules_document_every_option_id_the_engine_offers(game):
    manual = Manual(rules_text(game))
    undocumented: dict[str, set[str]] = {}
    seen: set[str] = set()
    for option_id in offered_ids(game):
        if option_id not in seen:
            seen.add(option_id)
            if not manual.documents(option_id):
                undocumented.setdefault(shape(option_id), set()).add(option_id)
    assert seen, f"{game.meta.id}: no option offered"
    shapes = sorted(undocumented.items())
    report = "; ".join(
        f"{s} (e.g. {', '.join(sorted(ids)[:EXAMPLES])}{', ...' if len(ids) > EXAMPLES else ''})"
        for s, ids in shapes[:SHAPES]
    ) + (f"; and {len(shapes) - SHAPES} more shapes" if len(shapes) > SHAPES else "")
    assert not undocumented, (
        f"arena/games/{game.meta.id}/rules.md documents no grammar (backticked token) for these "
        f"option ids the engine offers: {report}"
    )
