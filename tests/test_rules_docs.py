"""The bot author's manual matches the engines (issue 10, items 14 and 15).

For every registered game: the decision and event kinds listed in its proto's comments
(``// Decision kinds: "a", "b".`` and ``// Event kinds: ...``, a list may wrap over several
``//`` lines and ends with a period) are exactly those random playouts produce, and
``arena rules <id>`` prints a rules.md that names every decision kind, event kind and option in
backticks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.chance import Chance
from arena.cli import main
from arena.cli.rules_cmd import rules_text
from arena.registry import games
from tests.contract import configurations

ROOT = Path(__file__).resolve().parent.parent
GAMES = list(games().values())
IDS = [g.meta.id for g in GAMES]
SEEDS = 80  # a playout stops early once every listed kind is seen; Open Season's `bonus` (several
# lightning tiles at once) first comes at seed 75


def listed_kinds(game_id: str, label: str) -> set[str]:
    """The kinds a proto's ``// <label> kinds:`` comment lists (fails if absent or unfinished)."""
    lines = (ROOT / "proto" / "arena" / "games" / "v1" / f"{game_id}.proto").read_text().splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(f"// {label} kinds:")]
    assert len(starts) == 1, f"{game_id}.proto: expected one '// {label} kinds:' comment, found {len(starts)}"
    text = ""
    for line in lines[starts[0] :]:
        assert line.startswith("//"), f"{game_id}.proto: the {label} kinds list does not end with a period"
        text += " " + line[2:].strip()
        if text.rstrip().endswith("."):
            break
    kinds = re.findall(r'"([^"]+)"', text)
    assert len(kinds) == len(set(kinds)), f"{game_id}.proto: {label} kinds listed twice: {kinds}"
    return set(kinds)


def emitted_kinds(game, want_decisions: set[str], want_events: set[str]) -> tuple[set[str], set[str]]:
    """Decision and event kinds of random playouts over every player count and variant (up to
    ``SEEDS`` seeds each, stopping early once everything listed has been seen)."""
    decisions: set[str] = set()
    events: set[str] = set()
    for config in configurations(game):
        for seed in range(SEEDS):
            state = game.new_match(config, seed)
            rng = Chance(seed ^ 0x5EED)
            while state.pending:
                decisions.update(d.kind for d in state.pending)
                game.apply(state, {d.seat: rng.pick(d.options, "test").id for d in state.pending})
            events.update(e.kind for e in state.log.events)
            if decisions >= want_decisions and events >= want_events and seed >= 2:
                break
    return decisions, events


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_proto_lists_exactly_the_kinds_the_engine_emits(game):
    gid = game.meta.id
    want_decisions, want_events = listed_kinds(gid, "Decision"), listed_kinds(gid, "Event")
    decisions, events = emitted_kinds(game, want_decisions, want_events)
    assert decisions == want_decisions, (
        f"{gid}.proto decision kinds: missing {sorted(decisions - want_decisions)}, "
        f"never emitted {sorted(want_decisions - decisions)}"
    )
    assert events == want_events, (
        f"{gid}.proto event kinds: missing {sorted(events - want_events)}, never emitted {sorted(want_events - events)}"
    )


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_rules_name_every_kind_and_option(game):
    gid = game.meta.id
    text = rules_text(game)
    quoted = set(re.findall(r"`([^`\n]+)`", text))
    names = listed_kinds(gid, "Decision") | listed_kinds(gid, "Event") | {o.key for o in game.meta.options}
    missing = sorted(n for n in names if n not in quoted)
    assert not missing, f"arena/games/{gid}/rules.md never names these in backticks: {missing}"
    # Each part a bot author looks for, as a heading or a bold lead-in ("**Goal.**").
    parts = {
        "goal": "goal|object|win",
        "setup": "setup|set-up|components|cards",
        "turn": "turn|round|bout|trick|play",
        "decisions": "decision",
        "events": "event",
        "rulings": "ruling",
    }
    for part, words in parts.items():
        found = re.search(rf"^(#+ |\*\*).*({words})", text, re.M | re.I)
        assert found, f"{gid} rules.md has no {part} section (a heading or bold lead-in naming {words})"


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_protos_cite_no_missing_rules_file(game):
    text = (ROOT / "proto" / "arena" / "games" / "v1" / f"{game.meta.id}.proto").read_text()
    assert "shared/rules" not in text
    assert f"arena rules {game.meta.id}" in text


def test_arena_rules_prints_header_and_rules(capsys):
    assert main(["rules", "rolldice"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("RollDice (`rolldice`")
    assert "Players: 1-4" in out
    assert "target=" in out and "(default 20)" in out
    assert "two-rerolls" in out
    assert "`roll`" in out  # the rules.md body follows


def test_arena_rules_spells_values_as_the_cli_takes_them(capsys):
    """Booleans as `true`/`false` (the option grammar), and one player in the singular (a rules
    probe saw `default False` and `[1 players]`)."""
    assert main(["rules", "winecellar"]) == 0
    out = capsys.readouterr().out
    assert "series=true|false (default false)" in out
    assert "(default options) [1 player]" in out and "(series=true) [2, 3, 4, 5, 6, 7, 8 players]" in out
    assert "False" not in out.split("# ")[0] and "True" not in out.split("# ")[0]


def test_arena_games_spells_defaults_as_the_cli_takes_them(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # wide enough for the options column
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "series=true|false (default false)" in out and "False" not in out


def test_arena_rules_lists_the_built_in_bots_with_their_parameters_and_defaults(capsys):
    # Found only in error messages, which gave ranges and no defaults (a newcomer's probe).
    assert main(["rules", "sodajerk"]) == 0
    out = capsys.readouterr().out.split("\n## ")[0]
    assert "Built-in bots (--bots NAME or NAME:KEY=VALUE" in out and "  random: no parameters" in out
    (heuristic,) = [line for line in out.splitlines() if line.startswith("  heuristic: ")]
    assert heuristic.count("(default ") == 4
    (search,) = [line for line in out.splitlines() if line.startswith("  search: ")]
    assert "rollout=heuristic|mast|random (default " in search
    # What bare `search` plays. Soda Jerk's bot module names no rollout heuristic: its heuristic
    # rollouts are MAST at epsilon 0.5 whatever epsilon says (the line said 0.1 and heuristic).
    assert "epsilon=0..1 (default 0.5; rollout=heuristic plays it whatever epsilon says)" in search, search
    assert "rollout=heuristic|mast|random (default heuristic: this game names no rollout heuristic, so MAST" in search
    # Vivo's names one: its epsilon follows that policy.
    assert main(["rules", "vivo"]) == 0
    (search,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  search: ")]
    assert "epsilon=0..1 (default 0.1)" in search and "rollout=heuristic|mast|random (default heuristic)" in search


def test_arena_rules_unknown_game(capsys):
    assert main(["rules", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_rules_ship_as_package_data():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"*.md"' in text
