"""The README is the front door: its game table lists every registered game as it is, and its
examples run as written."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys

from arena.registry import games
from tests.cli_run import ROOT, arena
from tests.services import free_port, wait_for

README = (ROOT / "README.md").read_text()


def test_the_game_table_lists_every_game_with_its_player_counts():
    # an id is a lower-case identifier (tests/test_contract.py): digits and underscores too
    table = re.finditer(r"^\| `([a-z][a-z0-9_]*)` \| ([0-9–]+) \| [^|]* \| ([^|]*) \| ([^|]*) \|", README, re.M)
    found = [(m.group(1), m.group(2), m.group(3).strip(), m.group(4).strip()) for m in table]
    rows = {gid: players for gid, players, _, _ in found}
    for gid, _, hidden, simultaneous in found:
        meta = games()[gid].meta if gid in games() else None
        if meta is not None:
            assert hidden.startswith("none") != meta.hidden_information, f"README's hidden information for {gid}"
            assert simultaneous.startswith("yes") == meta.simultaneous, f"README's simultaneous column for {gid}"
    for gid, game in games().items():
        assert gid in rows, f"README's game table has no row for {gid}"
        meta = game.meta
        want = (
            str(meta.min_players) if meta.min_players == meta.max_players else f"{meta.min_players}–{meta.max_players}"
        )
        assert rows[gid] == want, f"README says {gid} plays {rows[gid]}, the game says {want}"
    assert set(rows) <= set(games()), f"README lists games that do not exist: {sorted(set(rows) - set(games()))}"


def test_the_changed_games_table_gives_each_games_current_version():
    # A game's version is what a record replays on and what a bot names in Ready: the "Changed
    # so far" table (docs/versions.md, linked from the README) must say the version the code
    # plays (Karakum's row said 4 for 5).
    assert "(docs/versions.md)" in README
    versions = (ROOT / "docs" / "versions.md").read_text()
    rows = {
        m.group(1): m.group(2)
        for m in re.finditer(r"^\| [^|]+ \(`([a-z][a-z0-9_]*)`\) \| ([0-9.]+) \|", versions, re.M)
    }
    assert rows, "docs/versions.md's table of changed game versions is missing"
    known = games()
    for gid, version in rows.items():
        assert gid in known, f"README's version table names {gid}, which is not a game"
        assert version == known[gid].meta.version, (
            f"README says {gid} is at version {version}, the game says {known[gid].meta.version}"
        )
    changed = {gid for gid, game in known.items() if game.meta.version not in ("1", "1.0")}
    assert changed <= set(rows), f"games past version 1 missing from README's table: {sorted(changed - set(rows))}"


def readme_block(after: str, language: str) -> str:
    """The first ```language block after the line ``after`` (a heading)."""
    start = README.index(after)
    fence = README.index(f"```{language}\n", start) + len(f"```{language}\n")
    return README[fence : README.index("```\n", fence)]


def test_the_sdk_example_serves_plays_and_stops_on_ctrl_c(tmp_path):
    """The README's SDK bot, verbatim but for its port: it serves, plays a whole match without a
    failure, and Ctrl-C stops it cleanly."""
    code = readme_block("### A bot in Python, with the SDK", "python")
    assert code.count('"127.0.0.1:50061"') == 1
    port = free_port()
    script = tmp_path / "greedy.py"
    script.write_text(code.replace('"127.0.0.1:50061"', f'"127.0.0.1:{port}"'))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    bot = subprocess.Popen([sys.executable, str(script)], env=env, stderr=subprocess.PIPE, text=True)
    try:

        def listening() -> bool:
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                return True
            except OSError:
                return False

        wait_for(listening, 30, "the README's SDK bot to listen")
        out = arena("play", "--game", "skyfive", "--bots", f"grpc://127.0.0.1:{port},random", "--json")
        assert out.returncode == 0, out.stderr
        played = json.loads(out.stdout)
        assert played["failures"] == [] and played["seats"][0]["bot"] == f"grpc://127.0.0.1:{port}"
        bot.send_signal(signal.SIGINT)
        _, stderr = bot.communicate(timeout=20)
        assert (bot.returncode, stderr) == (0, f"serving on 127.0.0.1:{port}\n")
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait(10)


def test_the_chosen_situation_example_runs_as_written():
    """ "Setting up a chosen situation": the preset dice and start seat put seat 1 to roll, with
    seat 0's two preset rolls among the events its request carries."""
    namespace: dict[str, object] = {}
    exec(readme_block("### Setting up a chosen situation", "python"), namespace)
    request = namespace["request"]
    assert request.seat == 1 and request.kind == "roll"  # type: ignore[attr-defined]
    texts = [event.text for event in request.events]  # type: ignore[attr-defined]
    assert texts[:4] == ["seat 0 starts every round", "rolls 2", "rolls 5", "keeps 5, total 5"]
    assert [option.id for option in request.options] == ["stop", "reroll"]  # type: ignore[attr-defined]


def test_the_sdk_server_says_which_port_it_took(tmp_path):
    """``serve(MyBot)`` listens on a free port by default: it says which, on stderr."""
    script = tmp_path / "anyport.py"
    script.write_text("from bots.random_bot import RandomBot\nfrom bots.serve import serve\nserve(RandomBot)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    bot = subprocess.Popen([sys.executable, str(script)], env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert bot.stderr is not None
        line = bot.stderr.readline()
        host, _, port = line.removeprefix("serving on ").strip().rpartition(":")
        assert line.startswith("serving on ") and host == "127.0.0.1" and int(port) > 0, line
        out = arena("play", "--game", "rolldice", "--bots", f"grpc://127.0.0.1:{port},random", "--json")
        assert out.returncode == 0 and json.loads(out.stdout)["failures"] == [], out.stderr
    finally:
        bot.send_signal(signal.SIGINT)
        bot.communicate(timeout=20)
