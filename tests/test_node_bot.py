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
from referee.remote import REFUSED_REGISTRATION, RemotePlayer
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


def test_node_bot_with_a_key_plays_only_starts_that_prove_it(node_packages, tmp_path):
    game = get_game("rolldice")
    key = "node-endpoint-key-0123456789"
    path = tmp_path / "bot.key"
    path.write_text(key + "\n")
    with bot_process(["node", str(node_packages / "bot.js"), "--port", "0", "--key-file", str(path)]) as address:
        for held, verdicts in ((key, []), (None, ["protocol"]), ("another-key-of-someone-else", ["protocol"])):
            seats = [RemotePlayer(address, key=held), make_bot("random", "rolldice")]
            record = play_match(game, game.config(2), 2, seats, clock=CLOCK)
            assert [f.verdict for f in record.failures] == verdicts, held
            if verdicts:
                assert record.failures[0].detail == REFUSED_REGISTRATION


def test_node_bot_refuses_a_key_file_that_holds_no_key(node_packages, tmp_path):
    path = tmp_path / "bot.key"
    path.write_text("short\n")
    done = subprocess.run(
        ["node", str(node_packages / "bot.js"), "--port", "0", "--key-file", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 2 and f"--key-file {path}: not a key" in done.stderr
