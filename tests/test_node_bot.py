"""The Node.js example bot (bots/examples/node), written only from the .proto files, plays full
matches against the referee over real gRPC. Its npm packages are installed by the
``node_packages`` fixture (tests/conftest.py); skipped only where there is no ``node``/``npm``."""

from __future__ import annotations

import subprocess

import pytest

from arena.clock import clock_settings
from arena.registry import get_game
from arena.runner import play_match
from bots.registry import make_bot
from referee.remote import RemotePlayer
from tests.remote_helpers import bot_process

CLOCK = clock_settings({"startup": 20000})


@pytest.fixture(scope="module")
def node_bot(node_packages):
    with bot_process(["node", str(node_packages / "bot.js"), "--port", "0"]) as address:
        yield address


def test_rolldice_match_follows_the_bots_typed_strategy(node_bot):
    game = get_game("rolldice")
    config = game.config(2)
    record = play_match(game, config, 5, [RemotePlayer(node_bot), make_bot("random", "rolldice")], clock=CLOCK)
    assert not record.failures
    assert record.seats[0]["version"] == "1.0"
    # Re-simulate: the Node bot stops exactly when the die shows 4 or more.
    state = game.new_match(config, 5)
    for entry in record.decisions:
        if entry.seat == 0:
            assert entry.choice == ("stop" if state.current_roll >= 4 else "reroll")
        game.apply(state, {entry.seat: entry.choice})


@pytest.mark.parametrize("game_id", ["skyfive", "getbit", "vivo"])
def test_node_bot_plays_any_game(node_bot, game_id):
    game = get_game(game_id)
    players = 3 if game_id == "vivo" else 4 if game_id == "getbit" else 2
    seats = [RemotePlayer(node_bot), *[make_bot("random", game_id) for _ in range(players - 1)]]
    record = play_match(game, game.config(players), 2, seats, clock=CLOCK)
    assert not record.failures and record.decisions


def test_node_bot_declares_its_owners(node_packages):
    game = get_game("rolldice")
    script = str(node_packages / "bot.js")
    with bot_process(["node", script, "--port", "0", "--owner", "alice"]) as address:
        for owner, verdicts in (("alice", []), ("bob", ["protocol"])):
            seats = [RemotePlayer(address, owner=owner), make_bot("random", "rolldice")]
            record = play_match(game, game.config(2), 2, seats, clock=CLOCK)
            assert [f.verdict for f in record.failures] == verdicts, owner


def test_node_bot_refuses_a_malformed_owner(node_packages):
    done = subprocess.run(
        ["node", str(node_packages / "bot.js"), "--port", "0", "--owner", "Alice"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "bad owner Alice" in done.stderr
