"""Inputs an outside probe of the command line found taken without a word, or ending in a
traceback: each is now one line naming the problem, exit 2, with nothing started or written."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from bots.sdk import Bot
from bots.serve import serve
from tests.cli_run import ROOT, arena


@pytest.mark.parametrize(
    ("args", "says"),
    [
        # 10^14 repeats died of a MemoryError with the run left "running".
        (("--repeats", "99999999999999"), "a tournament holds at most 100,000,000"),
        (("--max-groups", "5000000"), "max groups 5000000: 1..1,000,000"),
        # A typo of a worker count started 100,000 interpreters.
        (("--workers", "100000"), "--workers 100000: 1..64"),
        # The empty name of a lost shell variable wrote the run into the current directory.
        (("--out", ""), "argument --out: an empty directory name"),
        # An empty item filled a seat with the other bot.
        (("--bots", "heuristic,", "--players", "3"), "an empty item (two commas, or one at an end)"),
        (("--bots", "heuristic,,random"), "an empty item"),
        # int() takes full-width digits.
        (("--option", "target=\uff13\uff10"), "option target='３０': expected integer"),
        (("--option", "target=30", "--option", "target=40"), "--option target is given twice ('30' and '40')"),
        (("--clock", "decision=100,decision=200"), "--clock decision is given twice (100 and 200)"),
        (("--clock", "decision=\uff11\uff10\uff10"), "expected a whole number of milliseconds"),
        # One-player matches compare no bots: 100 matches that could decide nothing.
        (
            ("--players", "1", "--format", "gauntlet", "--sprt", "0,50", "--bots", "random,heuristic"),
            "--sprt needs matches of 2 players or more",
        ),
    ],
)
def test_a_tournament_refuses_it_before_anything_starts(tmp_path, args, says):
    done = arena("tournament", "--game", "rolldice", "--seed", "1", *args, cwd=tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert says in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []  # no run directory, nothing written


@pytest.mark.parametrize("server", ["127.0.0.1:99999", "127.0.0.1:0", "127.0.0.1", "host:port"])
def test_a_server_address_out_of_range_is_refused_not_wrapped(server):
    """gRPC dials 99999 as 34463 (modulo 65536): the token would go there."""
    done = arena("bots", "list", "--server", server, "--token", "t")
    assert done.returncode == 2 and "expected HOST:PORT with a port of 1..65535" in done.stderr, done.stderr
    done = arena("health", env={"ARENA_SERVER": server})
    assert done.returncode == 2 and "expected HOST:PORT" in done.stderr, done.stderr


class Quiet(Bot):
    name = "quiet"

    def choose(self, turn):  # type: ignore[no-untyped-def]
        return turn.option_ids[0]


# Other digits: '٣' was read as port 3 and '²' ended in int()'s traceback.
@pytest.mark.parametrize(
    "address", ["127.0.0.1:99999", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:\u00b2", "127.0.0.1:\u0663"]
)
def test_the_sdk_refuses_a_port_it_would_wrap(address):
    handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    with pytest.raises((OSError, ValueError), match=r"not a TCP port \(0\.\.65535\)|expected HOST:PORT"):
        serve(Quiet, address)
    # The caller's signal handlers are its own again (a Ctrl-C later in the process was swallowed).
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)] == handlers


def test_a_closed_pipe_ends_a_table_with_141():
    """rich's own handler exited 1 (which `arena tournament` uses for "cancelled")."""
    reader = subprocess.Popen(["true"], stdin=subprocess.PIPE)
    reader.wait()  # gone: the pipe is closed when the table is written
    command = [sys.executable, "-m", "arena", "games"]
    done = subprocess.run(command, stdout=reader.stdin, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 141 and "Traceback" not in done.stderr, done.stderr


def test_a_challenge_record_path_is_checked_before_the_challenge(tmp_path):
    """A challenge is not stored: its record is written to --record only; a bad path used to be
    found once the match was played, and that one copy lost."""
    done = arena(
        "challenge",
        "--bot",
        "mine",
        "--game",
        "rolldice",
        "--server",
        "127.0.0.1:9",  # nothing listens: it must not get that far
        "--token",
        "t",
        "--record",
        str(tmp_path / "no" / "such" / "dir" / "x.json"),
    )
    assert done.returncode == 2 and "--record" in done.stderr and "No such file or directory" in done.stderr
    assert "UNAVAILABLE" not in done.stderr


def test_replay_checks_the_summary_the_policy_the_steps_and_who_played(tmp_path):
    path = tmp_path / "match.json"
    assert arena("play", "--game", "rolldice", "--seed", "7", "--record", str(path)).returncode == 0
    good = json.loads(path.read_text())
    assert arena("replay", str(path)).returncode == 0

    def forged(change, says: str) -> None:  # type: ignore[no-untyped-def]
        data = json.loads(json.dumps(good))
        change(data)
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(data))
        done = arena("replay", str(bad))
        assert done.returncode == 1 and says in done.stderr, done.stderr

    forged(lambda d: d["result"].update(summary="winner: seat 1"), "result summary differ")
    forged(lambda d: d["policy"].update(on_error="pardon"), "on_error is forfeit or substitute")
    forged(lambda d: d["decisions"][1].update(step=7), "decision 1: step 7 in record, the engine is at step 1")
    forged(lambda d: d["decisions"][0].update(by="oracle"), "decision 0: by 'oracle', expected bot or substitute")
    forged(lambda d: d["decisions"][0].update(by="substitute"), "decision 0: played by a substitute, but seat")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("replay", "/dev/zero"), "/dev/zero: not a regular file"),  # read without end, to the OOM killer
        (("health", "--timeout", "0"), "--timeout: '0': expected a number of seconds above 0"),
        (("health", "--timeout", "-1"), "expected a number of seconds above 0"),
        # gRPC's deadline overflowed: a live service read as DEADLINE_EXCEEDED.
        (("health", "--timeout", "1e10"), "'1e10': expected a number of seconds above 0, at most 86,400"),
        (("bot", "serve", "--bot", "random", "--unix", ""), "--unix '': expected an absolute path"),
        (("bot", "serve", "--bot", "random", "--unix", "bot.sock"), "--unix 'bot.sock': expected an absolute path"),
        # gRPC logged a line of its own, and said "Address already in use" for a file that is
        # not a socket (left intact); a bad --host of the service was blamed on --http-port.
        (
            ("bot", "serve", "--bot", "random", "--unix", str(ROOT / "README.md")),
            f"--unix {ROOT / 'README.md'}: exists and is not a socket (remove it, or choose another path)",
        ),
        (("bot", "serve", "--bot", "random", "--unix", "/nonexistent-dir/b.sock"), "no directory /nonexistent-dir"),
        (("bot", "serve", "--bot", "random", "--host", "999.1.1.1"), "--host 999.1.1.1: cannot resolve '999.1.1.1'"),
        (("serve", "--host", "999.9.9.9"), "arena serve: error: --host 999.9.9.9: cannot resolve '999.9.9.9'"),
        # IDNA refuses these before the resolver: a traceback (UnicodeError), and a path too long
        # for a socket got gRPC's own log line first (an outside probe, review13).
        (("bot", "serve", "--bot", "random", "--host", "a..b"), "--host a..b: 'a..b' is not a valid host name (IDNA"),
        (("serve", "--host", "x" * 64), f"--host {'x' * 64}: '{'x' * 64}' is not a valid host name"),
        (
            ("bot", "serve", "--bot", "random", "--unix", "/tmp/" + "d" * 120 + ".sock"),
            "longer than 107 bytes, the most a Unix socket's path may be",
        ),
    ],
)
def test_more_inputs_are_refused_naming_them(args, says):
    readme = (ROOT / "README.md").read_bytes()
    done = arena(*args, timeout=60)
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr  # no gRPC core log before it
    assert (ROOT / "README.md").read_bytes() == readme


def test_a_key_with_a_files_newline_is_named_as_such():
    from arena.config import ConfigError
    from arena.protocol import check_endpoint_key, new_endpoint_key

    with pytest.raises(ConfigError, match=r"leading or trailing whitespace \(a file's newline\?\)"):
        check_endpoint_key(new_endpoint_key() + "\n")
    with pytest.raises(ConfigError, match="got 3 characters"):
        check_endpoint_key("abc")


def test_create_owner_says_which_store(tmp_path):
    from tests.services import redis_server

    with redis_server(tmp_path) as redis:
        done = arena("admin", "create-owner", "alice", "--redis", redis.url)
    assert done.returncode == 0 and done.stdout.strip() and done.stdout.count("\n") == 1
    assert f"created owner alice in {redis.url}" in done.stderr


def test_two_runs_of_one_spec_are_two_tournaments(tmp_path):
    """Same options and seed in the same second: on a broker they were one tournament, joined
    without a word (an outside probe's two operators; one's cancel ended the other's run)."""
    for _ in range(2):
        done = arena("tournament", "--game", "rolldice", "--seed", "1", "--workers", "1", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    first, second = (p.name.split("-") for p in (tmp_path / "arena-runs").iterdir())
    assert first[3] == second[3] and first[4] != second[4]  # the spec's digest, then the random tail


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("tournament", "--game", "rolldice", "--batch-size", "5"), "--batch-size is for a run on workers (--broker)"),
        (("tournament", "status", "some-id", "--repeats", "9"), "--repeats is an option of a run; tournament status"),
        (("tournament", "cancel", "some-id", "--resume"), "--resume is an option of a run; tournament cancel"),
        (("tournament", "status", "some-id", "--game", "rolldice"), "--game is an option of a run"),
    ],
)
def test_options_a_command_would_ignore_are_refused(tmp_path, args, says):
    done = arena(*args, cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_terminal_that_is_not_utf8_gets_escapes_not_a_traceback():
    """Slambo's events name ± (an outside probe: `arena play` ended in a UnicodeEncodeError
    where stdout was ASCII)."""
    done = arena(
        "play", "--game", "slambo", "--players", "3", "--bots", "heuristic,random,heuristic", "--seed", "1",
        env={"PYTHONIOENCODING": "ascii"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "\\xb1" in done.stdout and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("token", "says"),
    [("abc\n", "holds a newline (a file's?) at character 4"), ("abcé", "holds 'é' at character 4")],
)
def test_a_token_that_is_no_header_value_is_named(token, says):
    # gRPC printed its core's log and "INTERNAL: Invalid metadata", exit 1 (an outside probe).
    done = arena("bots", "list", "--server", "127.0.0.1:1", env={"ARENA_TOKEN": token}, timeout=60)
    assert done.returncode == 2, done.stderr
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .endswith(f"API token (--token or ARENA_TOKEN) {says}: a token is printable ASCII without spaces")
    )
    assert len(done.stderr.strip().splitlines()) == 1 and token.strip() not in done.stderr
