"""The README lived as a newcomer would (bot author, operator, game author): what walking it
found wrong in the CLI stays fixed."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from referee.auth import create_owner
from referee.store import Store
from tests.cli_run import arena
from tests.services import free_port, redis_server, service

pytestmark = pytest.mark.timeout(120)


def test_replay_says_one_record_reproduces(tmp_path: Path):
    record = tmp_path / "match.json"
    assert arena("play", "--game", "rolldice", "--record", str(record), "--json").returncode == 0
    one = arena("replay", str(record))
    assert (one.returncode, one.stdout, one.stderr) == (0, "ok: 1 match record reproduces exactly\n", "")


def test_log_level_may_follow_the_command(tmp_path: Path):
    # It was read as the tournament's positional action: "invalid choice: 'INFO'".
    out = arena(
        "tournament", "--game", "rolldice", "--bots", "random,heuristic", "--seed", "3", "--workers", "1",
        "--out", str(tmp_path / "run"), "--json", "--log-level", "INFO",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["matches"] == 2
    messages = [json.loads(line)["message"] for line in out.stderr.splitlines()]
    assert messages == ["tournament started", "tournament finished"]
    # Unset after the command, the global value stands; set there, it wins.
    quiet = arena("--log-level", "INFO", "play", "--game", "rolldice", "--log-level", "ERROR", "--json")
    assert (quiet.returncode, quiet.stderr) == (0, "")
    bad = arena("play", "--game", "rolldice", "--log-level", "LOUD")
    assert bad.returncode == 2
    assert bad.stderr == (
        "arena play: error: argument --log-level: invalid choice: 'LOUD' "
        "(choose from 'DEBUG', 'INFO', 'WARNING', 'ERROR')\n"
    )


def test_a_busy_web_ui_port_is_named_as_the_web_uis():
    # It was reported as the gRPC port's: "cannot serve on 127.0.0.1:50051: cannot serve the web UI ...".
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = arena(
            "serve", "--port", "0", "--metrics-port", "0", "--http-port", str(port),
            "--redis", f"redis://127.0.0.1:{free_port()}/0",
        )  # fmt: skip
    assert out.returncode == 2
    assert out.stderr == (
        f"arena serve: error: --http-port {port}: Address already in use (port {port}); "
        "choose another port, or 0 for no web UI\n"
    )


def test_admin_names_the_store_it_cannot_reach():
    url = f"redis://127.0.0.1:{free_port()}/0"  # nobody listens there
    out = arena("admin", "create-owner", "bob", "--redis", url)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"arena admin create-owner: error: cannot reach the store at {url}: ")
    assert out.stderr.count("\n") == 1


@pytest.mark.parametrize("flag", ["--bot-concurrency", "--error-budget"])
def test_tournaments_create_refuses_a_zero_the_api_would_read_as_its_default(flag: str):
    # The API reads 0 as "the default" (4 leases, a budget of 3): a 0 typed here ran with that.
    out = arena("tournaments", "create", "--game", "skyfive", "--bots", "a,b", flag, "0", "--token", "t")
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"arena tournaments create: error: argument {flag}: must be at least 1, got 0\n"


def test_service_tournaments_take_bots_with_several_parameters(tmp_path: Path):
    # `--bots heuristic:patience=1,spite=0,random` is one bot with two parameters (README, "Using
    # Arena"), locally and now through the service: the client split it into three entrants.
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        token = create_owner(store, "alice")
        with service(server.url, tmp_path) as running:
            out = arena(
                "tournaments", "create", "--game", "petquartet", "--bots", "random,heuristic:patience=1,spite=0",
                "--format", "gauntlet", "--on-error", "substitute", "--error-budget", "5",
                "--server", running.address, "--token", token, "--json",
            )  # fmt: skip
            assert out.returncode == 0, out.stderr
            created = json.loads(out.stdout)
            assert created["bots"] == ["random", "heuristic:patience=1,spite=0"]
            stored = store.tournament(created["id"])
            assert stored is not None
            spec = stored["spec"]
            assert (spec["format"], spec["on_error"], spec["error_budget"]) == ("gauntlet", "substitute", 5)


def test_play_takes_the_seeds_a_tournament_takes():
    # It took -1 and 2**64 (a tournament and the service refuse both) and played them.
    for seed, why in (("-1", "must be 0 or more"), (str(2**64), f"must be at most {2**64 - 1}")):
        out = arena("play", "--game", "rolldice", "--seed", seed)
        assert out.returncode == 2 and why in out.stderr and out.stdout == "", out
    top = arena("play", "--game", "rolldice", "--seed", str(2**64 - 1), "--json")
    assert top.returncode == 0 and json.loads(top.stdout)["seed"] == 2**64 - 1
