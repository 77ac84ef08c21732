"""The arena command line: output forms, determinism, and one-line errors with exit status 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from tests.cli_run import arena


def test_games_lists_every_game_as_json():
    from arena.registry import games

    out = arena("games", "--json")
    assert out.returncode == 0
    listed = json.loads(out.stdout)
    assert [g["id"] for g in listed] == list(games())
    for entry in listed:
        assert {"id", "name", "min_players", "max_players", "variants", "flags"} <= entry.keys()


def test_play_json_is_one_object_and_byte_identical():
    args = (
        "play",
        "--game",
        "rolldice",
        "--players",
        "3",
        "--bots",
        "heuristic,random,random",
        "--seed",
        "7",
        "--json",
    )
    first, second = arena(*args), arena(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert data["game"] == "rolldice" and data["seed"] == 7 and data["decisions"] > 0
    assert [s["bot"] for s in data["seats"]] == ["heuristic", "random", "random"]
    assert sorted(s["rank"] for s in data["seats"])[0] == 1


def test_play_account_is_readable_and_deterministic():
    first = arena("play", "--game", "rolldice", "--seed", "3")
    second = arena("play", "--game", "rolldice", "--seed", "3")
    assert first.returncode == 0 and first.stdout == second.stdout
    assert "result:" in first.stdout and "rolls" in first.stdout


def test_record_then_replay(tmp_path):
    path = tmp_path / "match.json"
    assert arena("play", "--game", "rolldice", "--record", str(path), "--json").returncode == 0
    ok = arena("replay", str(path))
    assert ok.returncode == 0 and "reproduce" in ok.stdout
    data = json.loads(path.read_text())
    data["decisions"][0]["choice"] = "stop" if data["decisions"][0]["choice"] == "reroll" else "reroll"
    path.write_text(json.dumps(data))
    bad = arena("replay", str(path))
    assert bad.returncode == 1 and "MISMATCH" in bad.stderr


def test_replay_refuses_a_result_flipped_by_a_forfeit_no_failure_explains(tmp_path):
    """A forfeit ranks a seat last whatever its score: a record saying seat 0 forfeited, with
    no failure of it, replayed as "reproduces exactly" and ranked the winner last."""
    path = tmp_path / "match.json"
    assert (
        arena(
            "play", "--game", "rolldice", "--seed", "7", "--bots", "heuristic,random", "--record", str(path)
        ).returncode
        == 0
    )
    data = json.loads(path.read_text())
    assert data["failures"] == [] and data["result"]["forfeited"] == [False, False]
    data["result"]["forfeited"], data["result"]["ranks"] = [True, False], [2, 1]
    path.write_text(json.dumps(data))
    bad = arena("replay", str(path))
    assert bad.returncode == 1 and "result forfeited differ: its failures and policy give [False, False]" in bad.stderr
    # A failure under `forfeit` does explain it (the score stays; the rank is a forfeit's), with
    # substitutes playing the seat's decisions from the failing one on.
    failed = next(i for i, d in enumerate(data["decisions"]) if i >= 1 and d["seat"] == 0)
    data["failures"] = [{"seat": 0, "decision": failed, "verdict": "timeout", "detail": "slow"}]
    for decision in data["decisions"][failed:]:
        if decision["seat"] == 0:
            decision["by"] = "substitute"
    data["result"]["summary"] = "winner: seat 1 (seat 0 forfeited)"  # as the runner words it
    path.write_text(json.dumps(data))
    ok = arena("replay", str(path))
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("play", "--game", "chess"), "unknown game 'chess'; known games: "),
        (("play", "--game", "rolldice", "--players", "9"), "1-4 players, not 9"),
        (("play", "--game", "rolldice", "--bots", "random,genius"), "unknown bot 'genius'"),
        (("play", "--game", "rolldice", "--option", "speed=2"), "unknown option 'speed'; allowed: target="),
        (("play", "--game", "rolldice", "--option", "rerolls=5"), "expected one of 1|2"),
        (("play", "--game", "rolldice", "--option", "rerolls"), "KEY=VALUE"),
        (("play", "--game", "rolldice", "--players", "3", "--bots", "random,random"), "2 bots given for 3"),
        # As tournament: an empty list played random in every seat, as if --bots had been left out.
        (("play", "--game", "rolldice", "--bots", ""), "--bots '' names no bot (leave --bots out for random"),
        (("replay", "/nonexistent/file.json"), "no such file"),
        (("play",), "required: --game"),
    ],
)
def test_user_errors_are_one_line_with_status_2(args, needle):
    out = arena(*args)
    assert out.returncode == 2
    assert needle in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert out.stdout == ""


def test_replay_rejects_a_file_that_is_not_a_record(tmp_path):
    path = tmp_path / "junk.jsonl"
    path.write_text("{not json\n")
    out = arena("replay", str(path))
    assert out.returncode == 2 and "not JSON" in out.stderr


@pytest.mark.parametrize("html", [False, True])
def test_replay_prints_a_records_match_id_printable(tmp_path, html):
    """A record file is anyone's: its match id, printed raw by --html, cleared the screen,
    retitled the window and forged an output line (an outside probe)."""
    from arena.games.skyfive import GAME
    from arena.runner import play_match
    from bots.random_bot import RandomBot

    data = play_match(GAME, GAME.config(2), 3, [RandomBot(), RandomBot()]).to_json()
    data["match_id"] = "m1\x1b[2J\x1b]0;pwned\x07\nok: forged line"
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(data))
    out = arena("replay", str(path), *(["--html", str(tmp_path / "out.html")] if html else []))
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout and len(out.stdout.splitlines()) == 1, out.stdout
    if html:
        assert "match m1 [2J ]0;pwned  ok: forged line, " in out.stdout


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"record": ' + "1" * 5001 + "}", "not a record (a number of more than 4,300 digits)"),
        ('{"record": ' + "[" * 100_000 + "]" * 100_000 + "}", "not a record (JSON nested too deeply)"),
    ],
    ids=["long-number", "deep"],
)
@pytest.mark.parametrize("html", [False, True])
def test_replay_refuses_json_python_cannot_read_in_one_line(tmp_path, text, says, html):
    """Python's JSON reader raises ValueError and RecursionError, not JSONDecodeError, for
    these: arena replay ended in a traceback (an outside probe)."""
    path = tmp_path / "odd.json"
    path.write_text(text)
    out = arena("replay", str(path), *(["--html", str(tmp_path / "out.html")] if html else []))
    assert out.returncode == 2 and f"{path}: {says}" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


# -- entrants: one bot in several seats (issue 10, item 3) -------------------------------------


def test_readme_example_four_player_tournament_runs(tmp_path):
    out = arena(
        "tournament", "--game", "vivo", "--players", "4", "--repeats", "3", "--workers", "2",
        "--out", str(tmp_path / "run"), "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["leaderboard"]
    assert len(rows) >= 4 and len({r["bot"] for r in rows}) == len(rows)


def test_one_bot_fills_several_seats_rated_per_entrant(tmp_path):
    out = arena(
        "tournament", "--game", "rolldice", "--players", "4", "--bots", "heuristic*2,random*2",
        "--out", str(tmp_path / "run"), "--json", "--workers", "1",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    board = json.loads(out.stdout)
    assert sorted(r["bot"] for r in board["leaderboard"]) == ["heuristic", "heuristic#2", "random", "random#2"]
    assert all(r["games"] == 4 for r in board["leaderboard"])  # one group, four rotations
    records = [json.loads(line) for line in (tmp_path / "run" / "matches.jsonl").read_text().splitlines()]
    assert {s["bot"] for r in records for s in r["seats"]} == {"heuristic", "heuristic#2", "random", "random#2"}


def test_a_bot_listed_twice_is_told_how_to_enter_copies(tmp_path):
    out = arena("tournament", "--game", "rolldice", "--bots", "random,random", "--out", str(tmp_path / "r"))
    assert out.returncode == 2 and "random*N" in out.stderr


def test_default_field_fills_every_table():
    from arena.registry import games
    from arena.tournament import TournamentSpec
    from bots.registry import make_bot, tournament_field
    from tests.contract import configurations

    for game_id, game in games().items():
        field = tournament_field(game_id)
        assert len(field) >= game.meta.max_players and len(set(field)) == len(field), field
        for config in configurations(game):
            players = config.players
            spec = TournamentSpec(game_id, tuple(tournament_field(game_id, players)), players, dict(config.options))
            spec.validate()
            for entrant in spec.bots:
                make_bot(spec.address(entrant), game_id)


def test_play_fills_seats_with_copies():
    out = arena("play", "--game", "rolldice", "--bots", "heuristic*2,random", "--json")
    assert out.returncode == 0, out.stderr
    assert [s["bot"] for s in json.loads(out.stdout)["seats"]] == ["heuristic", "heuristic", "random"]


# -- bot parameters with commas (issue 10, item 4) ---------------------------------------------


def test_bot_parameters_may_contain_commas(tmp_path):
    out = arena(
        "play", "--game", "petquartet", "--bots", "heuristic:patience=1,spite=0,random", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert [s["bot"] for s in json.loads(out.stdout)["seats"]] == ["heuristic:patience=1,spite=0", "random"]
    out = arena(
        "tournament", "--game", "petquartet", "--bots", "heuristic:patience=1,spite=0,heuristic,random",
        "--out", str(tmp_path / "run"), "--json", "--workers", "1",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["leaderboard"]
    assert {r["bot"] for r in rows} == {"heuristic:patience=1,spite=0", "heuristic", "random"}


def test_split_bots():
    from arena.cli import UsageError
    from arena.cli.common import split_bots

    assert split_bots("a:x=1,y=2,b,c:z=3") == ["a:x=1,y=2", "b", "c:z=3"]
    assert split_bots("grpc://127.0.0.1:5000,heuristic:risk=2*2") == ["grpc://127.0.0.1:5000", "heuristic:risk=2*2"]
    with pytest.raises(UsageError, match="parameter"):
        split_bots("random,x=1")


# -- one-line errors, never tracebacks (issue 10, item 19) -------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("play", "--game", "rolldice", "--error-budget", "-1"), "--error-budget: must be 0 or more, got -1"),
        (("tournament", "--game", "rolldice", "--error-budget", "-1"), "--error-budget: must be 0 or more, got -1"),
        (("tournament", "--game", "rolldice", "--metrics-port", "99999"), "--metrics-port: a port is 0-65535"),
        # A traceback, and a cryptic error for -1 (an outside operator probe).
        (("serve", "--metrics-port", "70000"), "--metrics-port: a port is 0-65535, got 70000"),
        (("serve", "--http-port", "-1"), "--http-port: must be 0 or more, got -1"),
        (("tournament", "--game", "rolldice", "--out", "/proc/arena-out"), "--out /proc/arena-out: cannot create"),
        (("play", "--game", "rolldice", "--record", "/proc"), "/proc: Is a directory"),
        (
            ("tournament", "--game", "rolldice", "--bots", "grpc://127.0.0.1,grpc://127.0.0.1"),
            "'grpc://127.0.0.1': expected grpc://HOST:PORT",
        ),
        (("tournament", "--game", "rolldice", "--bots", "random*0"), "1 to 64 entries, not 0"),
    ],
)
def test_mistakes_are_one_line_with_status_2(args, needle):
    out = arena(*args)
    assert out.returncode == 2, out.stderr
    assert needle in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "Traceback" not in out.stderr


def test_a_closed_pipe_ends_quietly():
    """`arena ... | head`: the reader went away; no traceback, the shell's SIGPIPE status."""
    child = subprocess.Popen(
        [sys.executable, "-m", "arena", "play", "--game", "getbit", "--players", "6"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # like `head` exiting before the output is written
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 141
    assert err == ""


# -- fit the terminal (issue 10, item 23) ------------------------------------------------------


def board_with(names: list[str]) -> dict:
    rows = [
        {
            "rank": i + 1,
            "bot": name,
            "rating": 1500.0,
            "ci_low": 1400.0,
            "ci_high": 1600.0,
            "games": 12,
            "mean_rank": 2.5,
            "mean_score": 40.25,
            "failures": {"timeout": 1},
            "mean_decision_ms": 0.123,
        }
        for i, name in enumerate(names)
    ]
    seats = [{"seat": s, "win_rate": 0.25, "mean_rank": 2.5} for s in range(4)]
    return {"game": "skyfive", "players": 4, "matches": 12, "leaderboard": rows, "seats": seats, "warning": None}


@pytest.mark.parametrize("width", [80, 60, 40])
def test_leaderboard_never_truncates_names(width):
    from rich.console import Console

    from arena.leaderboard_view import leaderboard_table

    names = ["heuristic", "heuristic:risk=2", "random", "random#2"]
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(leaderboard_table(board_with(names), width=console.width))
    text = console.export_text()
    for name in names:
        assert f" {name} " in text, text
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= width
    if width == 80:
        assert "rating (95% CI)" in text and "1500 (1400..1600)" in text and "mean rank" in text


@pytest.mark.parametrize("width", ["160", "80", "50"])
def test_games_fit_the_terminal(width):
    import os

    from arena.registry import games

    out = subprocess.run(
        [sys.executable, "-m", "arena", "games"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": width},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert max(len(line) for line in out.stdout.splitlines()) <= int(width)
    for game in games().values():
        assert f" {game.meta.id} " in out.stdout  # ids are never cut
        if int(width) >= 80:
            assert game.meta.name in out.stdout  # (narrower: names go before ids are cut)
    if width == "160":
        assert "hidden-information" in out.stdout and "tiebreak=shared|rolloff (default" in out.stdout


def test_client_json_prints_game_messages_packed_in_events(tmp_path):
    # `arena matches get ID --json` printed a traceback: the client had not imported the game
    # whose event details the reply packs (KeyError: Couldn't find message ...RollEvent).
    from arena.games.rolldice import GAME
    from arena.protocol import event_message

    state = GAME.new_match(GAME.config(2), 1)
    (tmp_path / "event.bin").write_bytes(event_message(0, state.log.events[-1]).SerializeToString())
    code = (
        "import sys; from arena.v1 import bot_pb2; from arena.cli.client_cmd import message_json; "
        "print(message_json(bot_pb2.Event.FromString(open(sys.argv[1], 'rb').read())))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "event.bin")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["detail"]["@type"].endswith("arena.games.v1.rolldice.RollEvent")


# -- refusals in one line: counts out of range, a Unix socket in use ---------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("bot", "serve", "--bot", "random", "--port", "0", "--max-matches", "0"), "--max-matches must be at least 1"),
        (("bot", "serve", "--bot", "random", "--port", "0", "--max-matches", "-2"), "--max-matches must be at least 1"),
        (("play", "--game", "rolldice", "--players", "-1"), "rolldice plays with 1-4 players, not -1"),
        (("play", "--game", "rolldice", "--players", "0", "--bots", "random"), "1-4 players, not 0"),
        (("tournament", "--game", "rolldice", "--max-groups", "0"), "--max-groups must be at least 1, got 0"),
        (("tournament", "--game", "rolldice", "--max-groups", "-3"), "--max-groups must be at least 1, got -3"),
    ],
)
def test_counts_out_of_range_are_one_line(args, needle, tmp_path):
    out = arena(*args, cwd=tmp_path, timeout=60)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not (tmp_path / "arena-runs").exists()


def test_bot_serve_refuses_a_unix_socket_a_server_answers_on_and_replaces_a_stale_one(tmp_path):
    import socket

    from tests.remote_helpers import bot_process

    sock = tmp_path / "bot.sock"
    serve = [sys.executable, "-m", "arena", "bot", "serve", "--unix", str(sock)]
    with bot_process([*serve, "--bot", "heuristic", "--game", "rolldice"]):
        second = arena("bot", "serve", "--bot", "random", "--unix", str(sock), timeout=60)
        assert second.returncode == 2, (second.stdout, second.stderr)
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1 and str(sock) in lines[0] and "in use" in lines[0], second.stderr
        # The first server still has its socket and plays.
        out = arena("play", "--game", "rolldice", "--bots", f"unix://{sock},random", "--json", "--seed", "4")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["seats"][0]["bot"] == f"unix://{sock}"
    # A socket file nobody listens on (its server killed) is replaced.
    sock.unlink(missing_ok=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(sock))
    stale.close()
    assert sock.exists()
    with bot_process([*serve, "--bot", "random"]):
        out = arena("play", "--game", "rolldice", "--bots", f"unix://{sock},random", "--json")
        assert out.returncode == 0 and json.loads(out.stdout)["failures"] == [], out.stderr


def test_an_unwritable_record_path_is_refused_before_the_match(tmp_path):
    # Found only after the match (its record lost; a newcomer's probe), and said as "No such file".
    (tmp_path / "a-directory").mkdir()
    for path in (tmp_path / "a-directory", tmp_path / "missing" / "r.json"):
        done = arena("play", "--game", "skyfive", "--bots", "random,random", "--record", str(path))
        assert done.returncode == 2 and done.stderr.startswith(f"arena play: error: --record {path}:"), done.stderr
        assert done.stdout == ""  # no match was played
    assert not (tmp_path / "missing").exists()


def test_a_stores_address_comes_from_arena_redis_where_no_flag_gives_it(tmp_path):
    # Only a flag on each command set it: `arena admin create-owner` without one wrote the
    # account to 127.0.0.1:6379 while the service used another store (a newcomer's probe).
    from tests.services import redis_server

    with redis_server(tmp_path) as redis:
        made = arena("admin", "create-owner", "newcomer", env={"ARENA_REDIS": redis.url})
        assert made.returncode == 0, made.stderr
        assert redis.client().hexists("arena:v1:owners", "newcomer")


def test_a_group_sample_rounded_up_past_max_groups_is_said(tmp_path):
    # --max-groups 1 played 2 groups without a word (a newcomer's probe).
    done = arena(
        "tournament", "--game", "vivo", "--players", "3", "--bots", "heuristic*3,random*3", "--max-groups", "1",
        "--out", str(tmp_path / "run"), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2 groups a repeat for --max-groups 1: a sample rounded up so that every bot plays equally often" in (
        done.stderr
    )
    assert json.loads(done.stdout)["matches"] == 2 * 3


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("play", "--game", "rolldice", "--foo"), "arena play: error: unrecognized arguments: --foo"),
        (("tournament", "status", "x", "--foo", "1"), "arena tournament: error: unrecognized arguments: --foo 1"),
    ],
)
def test_an_unknown_argument_is_named_by_its_command(args, said):
    # It read "arena: error: unrecognized arguments: --foo" (a newcomer's probe).
    done = arena(*args)
    assert done.returncode == 2 and done.stderr.strip() == said


def test_an_out_that_is_a_file_is_said_to_be_one(tmp_path):
    (tmp_path / "taken").write_text("mine\n")
    done = arena("tournament", "--game", "rolldice", "--out", str(tmp_path / "taken"))
    assert done.returncode == 2 and f"--out {tmp_path / 'taken'}: a file, not a directory" in done.stderr
    assert (tmp_path / "taken").read_text() == "mine\n"


def test_the_sprt_line_says_when_matches_past_the_deciding_group_were_played():
    # The progress bar ended at 116/200 beside a board of 92 matches, unexplained (a newcomer's probe).
    from arena.cli.tournament_cmd import sprt_line

    board = {
        "matches": 92,
        "sprt": {"elo0": 0.0, "elo1": 50.0, "decision": "H1", "llr": 2.99, "bounds": [-2.94, 2.94], "samples": 46},
    }
    assert sprt_line(board, 116) == (
        "SPRT [0.0, 50.0]: challenger is stronger (LLR 2.99 in [-2.94, 2.94], 46 groups; "
        "the board holds the 92 matches up to it, of 116 played)"
    )
    assert sprt_line(board, 92).endswith("46 groups)")


def test_a_record_path_that_was_there_is_never_removed(tmp_path):
    """--record removed its path whenever no record came: a challenge the service could not
    take deleted the user's earlier record, and as root ``--record /dev/null`` deleted the
    device (an outside docs probe). A path the command made is still removed (no empty file)."""
    import os
    import stat

    from arena.cli.common import RecordFile

    earlier = tmp_path / "earlier.json"
    earlier.write_text('{"record": 1, "match_id": "earlier"}\n')  # one match record: replaceable
    failed = arena("challenge", "--bot", "x", "--game", "rolldice", "--server", "127.0.0.1:1", "--token", "t",
                   "--record", str(earlier))  # fmt: skip
    assert failed.returncode == 1, failed.stderr
    assert earlier.read_text() == '{"record": 1, "match_id": "earlier"}\n'  # neither removed nor emptied
    made = tmp_path / "new.json"
    assert arena("challenge", "--bot", "x", "--game", "rolldice", "--server", "127.0.0.1:1", "--token", "t",
                 "--record", str(made)).returncode == 1  # fmt: skip
    assert not made.exists()

    replaced = RecordFile(earlier)
    replaced.write("the new record\n")
    replaced.close()
    assert earlier.read_text() == "the new record\n"  # a record written replaces the earlier one
    if os.geteuid() == 0:
        device = tmp_path / "null"
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a /dev/null of the test's own
        for written in (False, True):
            out = RecordFile(device)
            if written:
                out.write("a record\n")
            out.close()
            assert stat.S_ISCHR(device.stat().st_mode)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # argparse kept the last --clock alone: the first flag's keys were dropped without a word
        (("--clock", "decision=100", "--clock", "decision=200"), "--clock decision is given twice (100 and 200)"),
        # int() takes any Unicode digit and underscores; docs/cli.md: numbers are ASCII digits
        (("--seed", "３"), "argument --seed: expected a whole number in ASCII digits, got '３'"),
        (("--players", "２"), "argument --players: expected a whole number in ASCII digits, got '２'"),
        (("--seed", "1_000"), "argument --seed: expected a whole number in ASCII digits, got '1_000'"),
        # passed the option's digit check (signs stripped) and ended in int()'s ValueError traceback
        (("--option", "target=+-5"), "option target='+-5': expected integer 1..1000000"),
    ],
)
def test_a_flag_given_twice_or_a_number_in_other_digits_is_refused(args, message):
    done = arena("play", "--game", "rolldice", *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_clock_keys_in_two_flags_are_one_clock(tmp_path):
    out = tmp_path / "t"
    done = arena("tournament", "--game", "rolldice", "--bots", "random,heuristic", "--seed", "1", "--workers", "1",
                 "--clock", "decision=123", "--clock", "bank=4567", "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "tournament.json").read_text())["spec"]["clock"] == {"decision": 123, "bank": 4567}


def test_an_upload_is_sent_in_chunks_a_slow_link_delivers_within_the_services_silence():
    # 1 MiB chunks took longer than the service's 30 s of silence on a link under 34 KB/s, so
    # such an upload was ended though its bytes kept flowing (an outside review).
    from arena.cli.hosted_cmd import chunks

    data = bytes(range(256)) * 4096  # 1 MiB
    sent = list(chunks("b", ["skyfive"], False, data))
    assert [len(c.data) for c in sent] == [64 * 1024] * 16
    assert b"".join(c.data for c in sent) == data
    assert (sent[0].name, list(sent[0].games), sent[1].name) == ("b", ["skyfive"], "")
