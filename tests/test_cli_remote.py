"""The CLI with remote bots: `arena bot serve`, `arena play` and `arena tournament` over gRPC."""

from __future__ import annotations

import json
import sys

import pytest

from tests.cli_run import arena
from tests.remote_helpers import bot_process, served


@pytest.fixture(scope="module")
def skyfive_bots():
    with bot_process(served("heuristic", "skyfive")) as heuristic, bot_process(served("random")) as rnd:
        yield heuristic, rnd


def test_serve_prints_the_chosen_port():
    with bot_process(served("random")) as address:
        host, port = address.removeprefix("grpc://").rsplit(":", 1)
        assert host == "127.0.0.1" and int(port) > 0


def test_serve_on_a_unix_socket(tmp_path):
    sock = tmp_path / "bot.sock"
    args = [sys.executable, "-m", "arena", "bot", "serve", "--bot", "random", "--unix", str(sock)]
    with bot_process(args):
        out = arena("play", "--game", "rolldice", "--bots", f"unix://{sock},random", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["failures"] == []


def test_play_mixes_remote_and_built_in_bots_and_matches_in_process(skyfive_bots):
    heuristic, rnd = skyfive_bots
    remote = arena(
        "play",
        "--game",
        "skyfive",
        "--players",
        "3",
        "--bots",
        f"{heuristic},{rnd},random",
        "--seed",
        "9",
        "--json",
        "--clock",
        "decision=5000",
    )
    local = arena(
        "play", "--game", "skyfive", "--players", "3", "--bots", "heuristic,random,random", "--seed", "9", "--json"
    )
    assert remote.returncode == 0, remote.stderr
    a, b = json.loads(remote.stdout), json.loads(local.stdout)
    assert a["failures"] == [] and a["decisions"] == b["decisions"]
    assert [s["score"] for s in a["seats"]] == [s["score"] for s in b["seats"]]


def test_play_tells_a_remote_bot_neither_the_seed_nor_a_default_one(skyfive_bots, tmp_path):
    """A remote bot got `match_id: "seerscatalog-987654321"` (GAME-SEED) at its start and rebuilt
    every hand from it, and the default seed was 1 for anyone to assume (an outside probe): the
    match id is random now, and with a remote seat and no --seed the seed is unpredictable
    (printed and recorded); with built-in bots only it is still 1."""
    heuristic, _ = skyfive_bots
    seeds, ids = [], []
    for run in range(2):
        record = tmp_path / f"r{run}.json"
        out = arena("play", "--game", "skyfive", "--bots", f"{heuristic},random", "--json", "--record", str(record))
        assert out.returncode == 0, out.stderr
        seeds.append(json.loads(out.stdout)["seed"])
        ids.append(json.loads(record.read_text())["match_id"])
    assert seeds[0] != seeds[1] and 1 not in seeds
    assert all(str(seed) not in match_id for seed, match_id in zip(seeds, ids, strict=True))
    record = tmp_path / "chosen.json"
    out = arena(
        "play", "--game", "skyfive", "--bots", f"{heuristic},random", "--seed", "987654321", "--record", str(record)
    )
    assert out.returncode == 0, out.stderr
    assert "987654321" not in json.loads(record.read_text())["match_id"]
    local = arena("play", "--game", "skyfive", "--bots", "heuristic,random", "--json")
    assert local.returncode == 0, local.stderr
    assert json.loads(local.stdout)["seed"] == 1


def test_tournament_with_a_remote_bot(skyfive_bots, tmp_path):
    heuristic, _ = skyfive_bots
    out = arena(
        "tournament",
        "--game",
        "skyfive",
        "--bots",
        f"{heuristic},random",
        "--repeats",
        "2",
        "--workers",
        "2",
        "--out",
        str(tmp_path / "t"),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    board = json.loads(out.stdout)
    assert board["matches"] == 4
    assert all(not row["failures"] for row in board["leaderboard"])
    spec = json.loads((tmp_path / "t" / "tournament.json").read_text())["spec"]
    assert spec["bots"][0] == heuristic
    replay = arena("replay", str(tmp_path / "t" / "matches.jsonl"))
    assert replay.returncode == 0, replay.stderr


def test_an_unreachable_bot_forfeits_with_a_crash_verdict():
    out = arena("play", "--game", "rolldice", "--bots", "grpc://127.0.0.1:1,random", "--json")
    assert out.returncode == 1, out.stderr  # played out, but a seat forfeited
    data = json.loads(out.stdout)
    assert data["failures"][0]["verdict"] == "crash" and data["seats"][0]["forfeited"] is True
    # As text: a failure before the first decision is "at the start", not "at decision -1".
    text = arena("play", "--game", "rolldice", "--bots", "grpc://127.0.0.1:1,random")
    assert text.returncode == 1, text.stderr
    assert "  failure: seat 0 crash at the start: " in text.stdout and "decision -1" not in text.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("play", "--game", "rolldice", "--clock", "decision=fast"), "whole number of milliseconds"),
        (("play", "--game", "rolldice", "--clock", "tempo=5"), "expected KEY=MS (strikes=COUNT) with KEY one of"),
        (
            ("play", "--game", "rolldice", "--clock", "strikes=many"),
            "strikes='many': expected a whole number of strikes",
        ),
        (("play", "--game", "rolldice", "--clock", ""), "--clock '': expected KEY=MS,... with KEY one of"),
        (("tournament", "--game", "rolldice", "--clock", " , "), "--clock ' , ': expected KEY=MS,..."),
        (("play", "--game", "rolldice", "--clock", "decision=0"), "must be positive"),
        (("play", "--game", "rolldice", "--clock", "bank=5000000000"), "must be at most 4294967295"),
        # A doubled sign passed the check and int() raised: a traceback (an outside mutation probe).
        (("play", "--game", "rolldice", "--clock", "decision=--5"), "whole number of milliseconds"),
        (("tournament", "--game", "rolldice", "--bots", "random,heuristic", "--clock", "bank=--1"), "whole number"),
        (("play", "--game", "rolldice", "--clock", "strikes=4294967296"), "at most 4294967295 (strikes)"),
        (("tournament", "--game", "rolldice", "--bots", "random,random", "--clock", "decision=4294967296"), "at most"),
        (("play", "--game", "rolldice", "--bots", "unix://relative.sock,random"), "unix:///absolute/path"),
        # The client's numbers go into the protocol's unsigned fields: refused before any call.
        (("tournaments", "create", "--game", "rolldice", "--bots", "random,heuristic", "--repeats", "-1"), "0 or more"),
        (("tournaments", "list", "--limit", "-1"), "must be 0 or more"),
        (("challenge", "--bot", "b", "--game", "rolldice", "--seed", str(2**64)), "at most"),
        (("play", "--game", "rolldice", "--bots", "grpc://nowhere,random"), "expected grpc://HOST:PORT"),
        (("bot", "serve", "--bot", "heuristic"), "--game is required for bot 'heuristic'"),
        (("bot", "serve", "--bot", "genius", "--game", "skyfive"), "unknown bot 'genius'"),
        (("bot", "serve", "--bot", "random", "--port", "70000"), "expected 0..65535"),
    ],
)
def test_cli_remote_errors(args, needle):
    out = arena(*args)
    assert out.returncode == 2, out.stderr
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_clock_values_are_taken_up_to_their_bounds_and_the_defaults_are_the_readmes():
    """``--clock`` (in ms): decision 2000, bank 20000, increment 100, startup 10000, grace 200,
    strikes 3 (README); ``startup`` is positive like ``decision``, every value >= 0 and at most
    4294967295 (a 32-bit field)."""
    from arena.clock import clock_settings, parse_clock
    from arena.config import ConfigError

    assert parse_clock("decision=4294967295,grace=0") == {"decision": 4294967295, "grace": 0}
    with pytest.raises(ConfigError, match=r"^--clock startup=0: must be positive$"):
        parse_clock("startup=0")
    with pytest.raises(ConfigError, match=r"^--clock bank=-1: must be >= 0$"):
        parse_clock("bank=-1")
    defaults = clock_settings()
    assert (
        defaults.decision_ms,
        defaults.bank_ms,
        defaults.increment_ms,
        defaults.startup_ms,
        defaults.grace_ms,
        defaults.max_strikes,
    ) == (2000, 20000, 100, 10000, 200, 3)


def test_a_local_run_holds_a_remote_bot_to_its_bot_concurrency(tmp_path):
    """Three pool processes could play three matches at once against the bot; --bot-concurrency
    2 holds a local run to two, as it holds workers (the option was stored and ignored)."""
    from tests.remote_helpers import misbehaving

    count_file = tmp_path / "peak"
    with bot_process(misbehaving("concurrent", "--sleep", "0.05", "--count-file", str(count_file))) as address:
        out = arena(
            "tournament", "--game", "rolldice", "--bots", f"{address},random,heuristic", "--repeats", "3",
            "--option", "target=20", "--seed", "5", "--workers", "3", "--bot-concurrency", "2",
            "--out", str(tmp_path / "run"), "--json",
        )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["matches"] == 18
    # The limit was reached and never exceeded.
    assert int(count_file.read_text()) == 2, "not exactly 2 matches at once at the peak"


def test_bot_limits_are_made_only_where_the_processes_could_exceed_them():
    import multiprocessing

    from arena.executor import bot_limits
    from arena.tournament import TournamentSpec

    context = multiprocessing.get_context("spawn")
    spec = TournamentSpec(
        game="rolldice", bots=("grpc://127.0.0.1:9", "unix:///tmp/b", "random"), players=2, bot_concurrency=2
    )
    assert bot_limits(context, spec, 2) == {}
    limits = bot_limits(context, spec, 3)
    assert sorted(limits) == ["grpc://127.0.0.1:9", "unix:///tmp/b"]
    slot = limits["unix:///tmp/b"]
    assert slot.acquire(timeout=0) and slot.acquire(timeout=0) and not slot.acquire(timeout=0)
