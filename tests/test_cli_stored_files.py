"""What is stored already is not lost to a command's bad input or a full disk: --record and
--html over existing files, damaged records and run directories (an outside probe, cli2)."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys

from tests.cli_run import ROOT, arena


def small_run(tmp_path):
    run = tmp_path / "run"
    done = arena(
        "tournament", "--game", "rolldice", "--bots", "random,heuristic", "--repeats", "1", "--seed", "5",
        "--workers", "1", "--out", str(run), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return run


def test_record_replaces_one_match_record_only(tmp_path):
    # `play --record run/matches.jsonl` left 1 of a tournament's records, and notes.md was
    # overwritten without a word, where `replay --html` asks for --force.
    run = small_run(tmp_path)
    matches = run / "matches.jsonl"
    stored = matches.read_bytes()
    notes = tmp_path / "notes.md"
    notes.write_text("my notes\n")
    lines = tmp_path / "two.jsonl"
    lines.write_text("one\ntwo\n")
    for path, says in (
        (matches, f"{matches} holds a tournament run's match records (2)"),
        (notes, f"{notes} exists and is not an arena match record"),
        (lines, f"{lines} exists and holds 2 lines, not one match record"),
    ):
        done = arena("play", "--game", "rolldice", "--record", str(path))
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == f"arena play: error: --record {says}: give --force to overwrite it\n"
    assert matches.read_bytes() == stored and notes.read_text() == "my notes\n"
    assert lines.read_text() == "one\ntwo\n"
    # Another match record (and an empty file) is replaced, as docs/cli.md says; --force any file.
    earlier = tmp_path / "earlier.json"
    for path, extra in ((earlier, ()), (earlier, ()), (tmp_path / "empty.json", ()), (notes, ("--force",))):
        path.touch()
        done = arena("play", "--game", "rolldice", "--seed", "3", "--record", str(path), *extra)
        assert done.returncode == 0, done.stderr
        assert json.loads(path.read_text())["seed"] == 3
    done = arena("play", "--game", "rolldice", "--force")
    assert done.returncode == 2 and done.stderr == "arena play: error: --force goes with --record\n"


def limited(*args: str, cwd) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` that may write no file beyond 1 KiB: a full disk for whatever it writes."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        preexec_fn=limit,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
    )


def test_a_failed_write_leaves_the_earlier_record_and_page_as_they_were(tmp_path):
    # The earlier record was truncated, then the new one written in place: a full disk lost
    # both (docs/cli.md: "an earlier record is replaced only once the new one is written").
    earlier = tmp_path / "earlier.json"
    assert arena("play", "--game", "rolldice", "--seed", "1", "--record", str(earlier)).returncode == 0
    record = earlier.read_bytes()
    assert len(record) > 1024  # a record (seed 2 too) does not fit under the limit
    done = limited("play", "--game", "rolldice", "--seed", "2", "--record", str(earlier), cwd=tmp_path)
    assert earlier.read_bytes() == record
    assert done.returncode == 2
    assert done.stderr == f"arena play: error: cannot write --record {earlier}: File too large\n"
    page = tmp_path / "page.html"
    assert arena("replay", str(earlier), "--html", str(page)).returncode == 0
    html = page.read_bytes()
    done = limited("replay", str(earlier), "--html", str(page), cwd=tmp_path)
    assert page.read_bytes() == html
    assert done.returncode == 2 and done.stderr == f"arena replay: error: cannot write {page}: File too large\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["earlier.json", "page.html"]  # no copy left


def test_a_record_with_fewer_seats_than_players_is_refused(tmp_path):
    # resimulate indexed a seat past the list: an IndexError traceback (replay and --html).
    good = tmp_path / "good.json"
    assert arena("play", "--game", "rolldice", "--record", str(good)).returncode == 0
    data = json.loads(good.read_text())
    data["seats"] = data["seats"][:1]
    short = tmp_path / "short.json"
    short.write_text(json.dumps(data) + "\n")
    said = f"arena replay: error: {short}: malformed match record: seats: 1 listed for 2 players\n"
    for extra in ((), ("--html", str(tmp_path / "page.html"))):
        done = arena("replay", str(short), *extra)
        assert done.returncode == 2 and done.stderr == said
    assert not (tmp_path / "page.html").exists()


def test_resume_names_a_damaged_run_directorys_file(tmp_path):
    # Bytes that are not UTF-8 (a line of matches.jsonl, tournament.json) and a spec asking for
    # more players than it has bots ended --resume in a traceback.
    run = small_run(tmp_path)
    spec = run / "tournament.json"
    matches = run / "matches.jsonl"
    good_spec, good_matches = spec.read_bytes(), matches.read_bytes()
    players = {n: good_spec.replace(b'"players": 2', f'"players": {n}'.encode()) for n in (3, 9)}
    cases = (
        (good_spec, good_matches + b"\xff\xfe\n", f"{matches}: line 3 is not a match record (not UTF-8 text)"),
        (b"\xa0\xff", good_matches, f"{spec} is not an arena tournament file (not UTF-8 text)"),
        (players[9], good_matches, f"{spec}: rolldice plays with 1-4 players, not 9"),
        (players[3], good_matches, f"{spec}: 3-player matches need at least 3 bots, got 2"),
    )
    for spec_bytes, matches_bytes, says in cases:
        spec.write_bytes(spec_bytes)
        matches.write_bytes(matches_bytes)
        done = arena("tournament", "--resume", "--out", str(run))
        assert done.returncode == 2 and done.stderr.splitlines()[-1] == f"arena tournament: error: {says}"
        assert "Traceback" not in done.stderr
        assert spec.read_bytes() == spec_bytes and matches.read_bytes() == matches_bytes


def test_a_record_file_takes_a_second_write_after_its_first_replaced_it(tmp_path):
    # The first write renames a copy over the file: the handle held the old one, and a second
    # write there would be lost.
    from arena.cli.common import RecordFile

    path = tmp_path / "r.jsonl"
    out = RecordFile(path)
    out.write("one\n")
    out.write("two\n")
    out.close()
    assert path.read_text() == "one\ntwo\n"


def play_recording_to_stdout(stdout, seed: int) -> None:
    """``arena play --record /dev/stdout`` with its stdout the file ``stdout`` (as ``> out``, ``>> log``)."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", "play", "--game", "rolldice", "--seed", str(seed), "--record", "/dev/stdout"],
        stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_record_and_page_to_stdout_keep_everything_printed(tmp_path):
    # `--record /dev/stdout > out` renamed a copy over out: the account printed after it went to
    # the replaced file; `--html /dev/stdout | ...` failed (a pipe has no directory for a copy).
    out = tmp_path / "out.txt"
    with out.open("w") as handle:
        play_recording_to_stdout(handle, seed=2)
    first, *account = out.read_text().splitlines()
    assert json.loads(first)["seed"] == 2  # the whole record, then the whole account
    assert account == arena("play", "--game", "rolldice", "--seed", "2").stdout.splitlines()
    record = tmp_path / "r.json"
    record.write_text(first + "\n")
    piped = arena("replay", str(record), "--html", "/dev/stdout")  # a pipe: was read, and waited
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith("<!DOCTYPE html>") and "</html>\nwrote /dev/stdout: RollDice match" in piped.stdout


def test_a_failed_write_of_a_new_record_leaves_no_file(tmp_path):
    # The file made before the match to prove the path stayed behind, empty (docs/cli.md: "a
    # file they made is removed again if no record comes").
    done = limited("play", "--game", "rolldice", "--seed", "2", "--record", str(tmp_path / "new.json"), cwd=tmp_path)
    assert done.returncode == 2 and "cannot write --record" in done.stderr and "File too large" in done.stderr
    assert os.listdir(tmp_path) == []


def test_record_to_stdout_appended_to_a_log_is_not_an_overwrite(tmp_path):
    # `--record /dev/stdout >> log` was refused ("exists and is not an arena match record: give
    # --force"), though the record is appended after what the log holds (an outside review).
    log = tmp_path / "log"
    log.write_text("earlier line\n")
    with log.open("a") as handle:
        play_recording_to_stdout(handle, seed=1)
    first, record, *account = log.read_text().splitlines()
    assert first == "earlier line" and json.loads(record)["seed"] == 1 and account[-1] == "12 decisions"
