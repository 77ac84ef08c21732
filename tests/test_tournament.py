"""Tournaments: schedule properties, local executor determinism, resume, outputs, CLI."""

from __future__ import annotations

import csv
import io
import json
import re
import weakref
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from arena import leaderboard
from arena.cli.players import make_player
from arena.config import ConfigError
from arena.executor import LocalExecutor
from arena.leaderboard_view import rating_text
from arena.record import replay
from arena.registry import get_game
from arena.rundir import RunDirectory
from arena.tournament import Schedule, TournamentSpec, play_scheduled, schedule, schedule_size
from arena.tournament_run import run_tournament
from tests.cli_run import arena
from tests.compare import board_without_timing, canonical_lines

ROOT = Path(__file__).resolve().parent.parent
BOTS = ("random", "heuristic", "heuristic:threshold=2", "heuristic:threshold=4")


def spec(**changes) -> TournamentSpec:
    base = dict(game="rolldice", bots=BOTS, players=2, repeats=3, seed=5)
    base.update(changes)
    return TournamentSpec(**base)


# -- schedule ------------------------------------------------------------------------------


def test_two_player_round_robin_plays_every_pair_in_both_seat_orders_on_one_deal():
    matches = schedule(spec(repeats=1))
    assert len(matches) == 6 * 2
    seen = Counter(m.seats for m in matches)
    assert set(seen) == {(a, b) for a in range(4) for b in range(4) if a != b}
    by_group: dict[int, list] = {}
    for m in matches:
        by_group.setdefault(m.group, []).append(m)
    for group in by_group.values():
        assert len({m.seed for m in group}) == 1
        assert {group[0].seats, group[1].seats} == {group[0].seats, group[0].seats[::-1]}
    assert len({g[0].seed for g in by_group.values()}) == len(by_group)
    assert [m.index for m in matches] == list(range(len(matches)))


def test_repeats_multiply_the_schedule_with_fresh_seeds_and_are_deterministic():
    one, three = schedule(spec(repeats=1)), schedule(spec(repeats=3))
    assert len(three) == 3 * len(one)
    assert len({m.seed for m in three}) == 3 * len({m.seed for m in one})
    assert schedule(spec()) == schedule(spec())
    assert schedule(spec(seed=6)) != schedule(spec())


def test_multiplayer_groups_play_every_rotation():
    s = TournamentSpec(game="rolldice", bots=BOTS, players=3, repeats=1)
    matches = schedule(s)
    groups = {m.group for m in matches}
    assert len(groups) == 4  # C(4, 3)
    for g in groups:
        rots = [m.seats for m in matches if m.group == g]
        assert len(rots) == 3
        for seat in range(3):
            assert len({r[seat] for r in rots}) == 3  # each bot in each seat once
    members = {frozenset(m.seats) for m in matches}
    assert members == {frozenset(c) for c in combinations(range(4), 3)}


def test_gauntlet_plays_the_challenger_against_each_other_bot():
    matches = schedule(spec(format="gauntlet", repeats=1))
    assert all(0 in m.seats for m in matches)
    assert Counter(b for m in matches for b in m.seats if b != 0) == {1: 2, 2: 2, 3: 2}


@pytest.mark.parametrize(
    "changes",
    [{}, {"players": 3, "bots": (*BOTS, "random")}, {"format": "gauntlet"}, {"repeats": 1, "max_groups": 2}],
)
def test_the_lazy_schedule_is_the_schedule(changes):
    s = spec(**changes)
    lazy = Schedule(s)
    whole = schedule(s)
    assert len(lazy) == len(whole) == schedule_size(s)
    assert list(lazy) == whole
    assert [lazy[i] for i in range(len(whole))] == whole
    assert lazy[-1] == whole[-1] and lazy[3:9] == whole[3:9] and lazy[::5] == whole[::5]
    with pytest.raises(IndexError):
        lazy[len(whole)]
    with pytest.raises(IndexError):
        lazy[-len(whole) - 1]


def test_resume_refuses_records_of_another_schedule(tmp_path):
    s = spec()
    full, _ = run(tmp_path, "full", s)
    line = full.matches_path.read_text().splitlines()[4]
    record = json.loads(line)
    rundir = RunDirectory(tmp_path / "cut")
    rundir.create(s, "t")
    for index, match_id, needle in (
        (10_000, "m010000", "not in this tournament's schedule"),
        (4, "m000005", "not in this tournament's schedule"),
        ("x", "m000004", "line 1 is not a record of a tournament"),
    ):
        record["tournament"]["index"], record["match_id"] = index, match_id
        rundir.matches_path.write_text(json.dumps(record) + "\n")
        with pytest.raises(ConfigError, match=needle):
            run_tournament(s, "t", RunDirectory(rundir.path), LocalExecutor(make_player, 1), resume=True)


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"bots": ("random", "random")}, "listed twice"),
        ({"players": 5}, "1-4 players"),
        ({"players": 4, "bots": ("random", "heuristic")}, "need at least 4 bots"),
        ({"format": "swiss"}, "unknown format"),
        ({"sprt": (0.0, 10.0)}, "needs --format gauntlet"),
        ({"format": "gauntlet", "sprt": (10.0, 0.0)}, "ELO0 < ELO1"),
        # Infinity was taken, and written to tournament.json as -Infinity (not JSON).
        ({"format": "gauntlet", "sprt": (float("-inf"), 0.0)}, r"within -2000..2000, got -inf,0.0"),
        ({"format": "gauntlet", "sprt": (0.0, 1e9)}, "within -2000..2000"),
        ({"format": "gauntlet", "sprt": (0.0, float("nan"))}, "within -2000..2000"),
        ({"options": {"target": "x"}}, "target"),
        # A negative seed played every match and then failed the ratings' bootstrap.
        ({"seed": -1}, r"seed must be a whole number 0..2\*\*64-1, got -1"),
        ({"seed": 2**64}, "seed must be a whole number"),
    ],
)
def test_invalid_tournaments_are_named(changes, needle):
    with pytest.raises(ConfigError, match=needle):
        spec(**changes).validate()


def test_the_largest_seed_is_a_tournament_seed():
    spec(seed=2**64 - 1).validate()
    spec(seed=0).validate()


# -- running -------------------------------------------------------------------------------


def run(tmp_path, name, s, workers=1, **kwargs):
    rundir = RunDirectory(tmp_path / name)
    board = run_tournament(s, "t", rundir, LocalExecutor(make_player, workers), resamples=50, **kwargs)
    return rundir, board


def test_same_seed_same_records_with_one_and_two_workers(tmp_path):
    s = spec()
    one, board_one = run(tmp_path, "one", s, workers=1)
    two, board_two = run(tmp_path, "two", s, workers=2)
    assert canonical_lines(one.matches_path) == canonical_lines(two.matches_path)
    assert board_without_timing(board_one) == board_without_timing(board_two)
    records = one.load_records()
    assert len(records) == len(schedule(s))
    for record in records[:5]:
        replay(get_game("rolldice"), record)


class Reordered:
    """An executor that plays every match in this process and hands the records over in a
    given order of their schedule positions, each with its JSON line (as a worker process or
    the store does); it keeps a weak reference to each record handed over."""

    def __init__(self, order):
        self.order = order
        self.handed = []

    def run(self, spec, matches, on_record):
        records = []
        LocalExecutor(make_player, 1).run(spec, matches, lambda record, line=None: records.append(record))
        for position in self.order:
            record = records[position]
            records[position] = None
            self.handed.append(weakref.ref(record))
            on_record(record, record.dumps())
            del record


def test_records_handed_over_in_any_order_give_the_file_and_board_of_an_ordered_run(tmp_path):
    s = spec()
    ordered, board_ordered = run(tmp_path, "ordered", s)
    total = len(schedule(s))
    # Reversed, then a gap filled last: the board's sums wait for the schedule's order.
    order = [*reversed(range(10, total)), *range(10)]
    rundir = RunDirectory(tmp_path / "reordered")
    executor = Reordered(order)
    board = run_tournament(s, "t", rundir, executor, resamples=50)
    assert rundir.matches_path.read_bytes().count(b"\n") == total
    assert canonical_lines(rundir.matches_path) == canonical_lines(ordered.matches_path)
    assert board_without_timing(board) == board_without_timing(board_ordered)
    assert board_without_timing(board) == board_without_timing(
        {**leaderboard.build(s, rundir.load_records(), resamples=50), "tournament": "t", "scheduled": total}
        | {"status": "complete"}
    )
    assert all(ref() is None for ref in executor.handed), "the run kept a record after the end"


def test_the_run_keeps_no_record_once_it_is_written_and_counted(tmp_path):
    s = spec()
    kept = []

    class Watching(Reordered):
        def run(self, spec, matches, on_record):
            def handed(record, line=None):
                # Of the records handed over before (in schedule order: none waits), only the
                # last is still held (the progress shows it).
                kept.append(sum(ref() is not None for ref in self.handed[:-2]))
                return on_record(record, line)

            super().run(spec, matches, handed)

    total = len(schedule(s))
    run_tournament(s, "t", RunDirectory(tmp_path / "run"), Watching(list(range(total))), resamples=0)
    assert kept == [0] * total


def played(s: TournamentSpec) -> list:
    """Every record of the tournament, in schedule order (played in this process)."""
    records = []
    LocalExecutor(make_player, 1).run(s, schedule(s), lambda record, line=None: records.append(record))
    return records


def test_an_ordered_file_is_kept_as_written_and_a_shuffled_one_is_sorted_from_its_own_lines(tmp_path):
    s = spec(repeats=1)
    records = played(s)
    rundir = RunDirectory(tmp_path / "r")
    rundir.create(s, "t")
    for record in records:
        rundir.append(record)
    written = rundir.matches_path.read_bytes()
    rundir.finalize()
    assert rundir.matches_path.read_bytes() == written
    shuffled = RunDirectory(tmp_path / "s")
    shuffled.create(s, "t")
    for record in [*records[3:], *records[:3]]:
        shuffled.append(record, record.dumps())
    shuffled.finalize()
    assert shuffled.matches_path.read_bytes() == written
    # Lines this object never saw (another writer): each is read for its place.
    with shuffled.matches_path.open("a") as handle:
        handle.write(records[0].dumps() + "\n")
    RunDirectory(shuffled.path).finalize()
    assert shuffled.matches_path.read_bytes().splitlines()[:2] == [records[0].dumps().encode()] * 2


class InterruptAfter:
    """An executor that plays n matches and then behaves as if Ctrl-C was pressed."""

    def __init__(self, n):
        self.n = n
        self.inner = LocalExecutor(make_player, 1)

    def run(self, spec, matches, on_record):
        self.inner.run(spec, matches[: self.n], on_record)
        raise KeyboardInterrupt


def test_resume_after_an_interrupt_gives_the_uninterrupted_result(tmp_path):
    s = spec()
    full, board_full = run(tmp_path, "full", s)
    rundir = RunDirectory(tmp_path / "cut")
    with pytest.raises(KeyboardInterrupt):
        run_tournament(s, "t", rundir, InterruptAfter(7), resamples=50)
    assert len(rundir.load_records()) == 7
    assert json.loads((rundir.path / "tournament.json").read_text())["status"] == "interrupted"
    # A torn last line (killed mid-write) is dropped, not fatal.
    with rundir.matches_path.open("a") as handle:
        handle.write('{"record": 1, "match_id": "m0')
    board = run_tournament(s, "t", rundir, LocalExecutor(make_player, 2), resume=True, resamples=50)
    assert canonical_lines(rundir.matches_path) == canonical_lines(full.matches_path)
    assert board_without_timing(board) == board_without_timing(board_full)


def test_resume_reads_a_file_out_of_order_with_gaps_and_gives_the_uninterrupted_result(tmp_path):
    # What an interrupted run of several workers leaves: lines in the order matches finished,
    # some matches never played, a torn last line.
    s = spec()
    full, board_full = run(tmp_path, "full", s)
    records = full.load_records()
    rundir = RunDirectory(tmp_path / "cut")
    rundir.create(s, "t")
    for record in [records[5], records[2], records[0], records[9], records[1], records[12]]:
        rundir.append(record, record.dumps())
    rundir.close()
    with rundir.matches_path.open("a") as handle:
        handle.write(records[3].dumps()[:40])
    board = run_tournament(s, "t", rundir, LocalExecutor(make_player, 2), resume=True, resamples=50)
    assert canonical_lines(rundir.matches_path) == canonical_lines(full.matches_path)
    assert board_without_timing(board) == board_without_timing(board_full)


def test_records_on_disk_are_read_one_at_a_time(tmp_path):
    s = spec(repeats=1)
    full, _ = run(tmp_path, "full", s)
    with full.matches_path.open("a") as handle:
        handle.write('{"record": 1, "match_id": "m0')  # torn
    size = full.matches_path.stat().st_size
    refs = []
    reader = RunDirectory(full.path)
    for record in reader.records():
        assert all(ref() is None for ref in refs), "an earlier record is still held"
        assert full.matches_path.stat().st_size == size, "truncated before the end was read"
        refs.append(weakref.ref(record))
        del record
    assert len(refs) == len(schedule(s))
    assert full.matches_path.read_bytes().endswith(b"\n")  # the torn line is gone
    assert len(reader.load_records()) == len(refs)


def test_finalize_places_lines_another_writer_added_to_a_file_out_of_order(tmp_path):
    s = spec(repeats=1)
    records = played(s)
    rundir = RunDirectory(tmp_path / "r")
    rundir.create(s, "t")
    for record in reversed(records[1:]):
        rundir.append(record)
    rundir.close()
    with rundir.matches_path.open("a") as handle:
        handle.write(records[0].dumps() + "\n")
    rundir.finalize()
    assert rundir.matches_path.read_bytes() == b"".join(r.dumps().encode() + b"\n" for r in records)


def test_resume_refuses_a_different_tournament(tmp_path):
    rundir, _ = run(tmp_path, "a", spec(repeats=1))
    with pytest.raises(ConfigError, match="different tournament"):
        run_tournament(spec(repeats=2), "t", rundir, LocalExecutor(make_player, 1), resume=True)


def test_outputs_parse_and_agree(tmp_path):
    rundir, board = run(tmp_path, "out", spec())
    on_disk = json.loads((rundir.path / "leaderboard.json").read_text())
    assert on_disk == json.loads(json.dumps(board))
    rows = list(csv.DictReader(io.StringIO((rundir.path / "leaderboard.csv").read_text())))
    assert [r["bot"] for r in rows] == [r["bot"] for r in board["leaderboard"]]
    for row, entry in zip(rows, board["leaderboard"], strict=True):
        assert float(row["rating"]) == entry["rating"]
        assert int(row["games"]) == entry["games"]
        assert int(row["wins"]) + int(row["draws"]) + int(row["losses"]) == entry["games"]
    assert sum(r["games"] for r in board["leaderboard"]) == 2 * board["matches"]
    status = json.loads((rundir.path / "tournament.json").read_text())
    assert status["status"] == "complete" and TournamentSpec.from_json(status["spec"]) == spec()
    best = board["leaderboard"][0]
    assert best["bot"].startswith("heuristic") and board["leaderboard"][-1]["bot"] == "random"
    assert best["ci_low"] <= best["rating"] <= best["ci_high"]


def test_sprt_gauntlet_stops_when_decided(tmp_path):
    s = spec(bots=("heuristic", "random"), format="gauntlet", sprt=(0.0, 50.0), repeats=200)
    rundir, board = run(tmp_path, "sprt", s)
    assert board["sprt"]["decision"] == "H1"
    assert board["matches"] < board["scheduled"]
    assert json.loads((rundir.path / "tournament.json").read_text())["status"] == "stopped"


def test_a_resumed_sprt_run_counts_no_record_past_its_deciding_group(tmp_path):
    """Records played past the deciding group (several workers, or the stop landing late) were
    all counted by a resume: its board moved on from the verdict's."""
    s = spec(bots=("heuristic", "random"), format="gauntlet", sprt=(0.0, 50.0), repeats=200)
    rundir, board = run(tmp_path, "sprt", s)
    decided = board["matches"]
    extra = run(tmp_path, "full", spec(bots=("heuristic", "random"), format="gauntlet", repeats=200))[0]
    more = extra.matches_path.read_text().splitlines(keepends=True)[decided : decided + 10]
    with rundir.matches_path.open("a") as handle:
        handle.writelines(more)  # ten records of the same schedule, past the verdict
    status = json.loads((rundir.path / "tournament.json").read_text())
    status["status"] = "interrupted"
    (rundir.path / "tournament.json").write_text(json.dumps(status))
    again = RunDirectory(rundir.path)
    resumed = run_tournament(s, "t", again, LocalExecutor(make_player, 1), resume=True, resamples=50)
    assert resumed["matches"] == decided and resumed["sprt"] == board["sprt"]
    assert resumed["leaderboard"] == board["leaderboard"]


class SwappedChunks:
    """Plays the schedule in-process but hands the records over in chunks of ``size`` with each
    pair of neighbouring chunks swapped: what a pool of two processes does when the second's
    chunk lands first (``imap_unordered``), made the same on every run."""

    def __init__(self, size: int) -> None:
        self.size = size

    def run(self, spec, matches, on_record) -> None:
        chunks = [list(matches[i : i + self.size]) for i in range(0, len(matches), self.size)]
        for k in range(0, len(chunks) - 1, 2):
            chunks[k], chunks[k + 1] = chunks[k + 1], chunks[k]
        for chunk in chunks:
            for record in [play_scheduled(spec, m, make_player) for m in chunk]:
                if on_record(record):
                    return


def test_an_sprt_run_decides_and_boards_the_same_whatever_order_the_records_land_in(tmp_path):
    """The README: the groups are taken in schedule order, so the verdict and the board are the
    same with any number of workers. A ratings probe found the SPRT fed in arrival order: with
    --workers 2 the verdict moved (74 or 88 matches, run to run) and the board took half a group
    past it (107 matches against 108, records in swapped chunks)."""
    s = spec(
        game="skyfive", bots=("heuristic", "heuristic:risk=5", "random"), format="gauntlet",
        sprt=(0.0, 50.0), repeats=30, seed=21,
    )  # fmt: skip
    in_order = run_tournament(s, "t", RunDirectory(tmp_path / "in-order"), LocalExecutor(make_player, 1))
    swapped_dir = RunDirectory(tmp_path / "swapped")
    swapped = run_tournament(s, "t", swapped_dir, SwappedChunks(7))
    assert in_order["sprt"]["decision"] is not None and in_order["matches"] < in_order["scheduled"]
    assert swapped["sprt"] == in_order["sprt"] and swapped["matches"] == in_order["matches"]
    assert board_without_timing(swapped) == board_without_timing(in_order)
    # Resumed from the file the swapped run wrote (its records in landing order), the same board.
    status = json.loads((swapped_dir.path / "tournament.json").read_text())
    (swapped_dir.path / "tournament.json").write_text(json.dumps({**status, "status": "interrupted"}))
    resumed = run_tournament(s, "t", RunDirectory(swapped_dir.path), LocalExecutor(make_player, 1), resume=True)
    assert board_without_timing(resumed) == board_without_timing(in_order)


# -- CLI -----------------------------------------------------------------------------------


def test_cli_json_is_the_leaderboard_only(tmp_path):
    out = arena(
        "tournament",
        "--game",
        "rolldice",
        "--repeats",
        "2",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "run"),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    board = json.loads(out.stdout)
    assert board["game"] == "rolldice" and board["matches"] == 24
    assert {"bot", "rating", "ci_low", "ci_high", "games"} <= board["leaderboard"][0].keys()
    # Default field: every built-in bot plus the game's heuristic variants.
    assert {r["bot"] for r in board["leaderboard"]} == set(BOTS)


def test_cli_table_and_default_output_directory(tmp_path):
    out = arena("tournament", "--game", "rolldice", "--bots", "heuristic,random", "--workers", "1", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "heuristic" in out.stdout and "rating" in out.stdout
    (run_dir,) = (tmp_path / "arena-runs").iterdir()
    assert run_dir.name.startswith("rolldice-")
    assert {p.name for p in run_dir.iterdir()} >= {
        "tournament.json",
        "matches.jsonl",
        "leaderboard.json",
        "leaderboard.csv",
    }
    # The table on the terminal shows what leaderboard.json holds, row by row.
    board = json.loads((run_dir / "leaderboard.json").read_text())
    table_rows = [line for line in out.stdout.splitlines() if line.startswith("│")]
    assert len(table_rows) == len(board["leaderboard"])
    for line, row in zip(table_rows, board["leaderboard"], strict=True):
        cells = [c.strip() for c in line.strip("│").split("│")]
        assert cells[:4] == [
            f"{row['rank_best']}"
            if row["rank_best"] == row["rank_worst"]
            else f"{row['rank_best']}\u2013{row['rank_worst']}",
            row["bot"],
            rating_text(row["rating"], row["ci_low"], row["ci_high"]),  # an open end (never lost) is ∞
            str(row["games"]),
        ]
        assert cells[4] == f"{row['wins']} / {row['draws']} / {row['losses']}"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--game", "rolldice", "--bots", "random,nobody"), "unknown bot 'nobody'"),
        (("--game", "rolldice", "--sprt", "x"), "--sprt expects ELO0,ELO1"),
        # An empty list ran the game's built-in field, as if --bots had been left out.
        (("--game", "rolldice", "--bots", ""), "--bots '' names no bot"),
        (("--game", "rolldice", "--bots", " , "), "--bots ' , ': an empty item"),
        (("--resume",), "--resume needs --out"),
        (("--game", "rolldice", "--workers", "0"), "--workers 0: 1..64"),
        (("--bots", "random"), "required: --game"),
    ],
)
def test_cli_errors(args, needle, tmp_path):
    out = (
        arena("tournament", *args, "--out", str(tmp_path / "x"))
        if "--resume" not in args
        else arena("tournament", *args)
    )
    assert out.returncode == 2, out.stderr
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_tournament_names_every_seat_by_its_entrant_never_by_its_address():
    # A registered bot is played at its endpoint, which is its owner's to see: the start message
    # every seat receives names the entrants (a player's own name may be its address).
    from arena.tournament import play_scheduled
    from bots.random_bot import RandomBot

    starts = []

    class Recording(RandomBot):
        def start(self, message):
            starts.append(list(message.seat_names))
            return super().start(message)

    def make(spec: str, game_id: str) -> Recording:
        bot = Recording()
        bot.name = spec  # as a remote player is named: by its address
        return bot

    spec = TournamentSpec(
        game="rolldice",
        bots=("alice-bot", "bob-bot"),
        players=2,
        addresses={"alice-bot": "grpc://10.1.2.3:5000", "bob-bot": "grpc://10.9.8.7:6000"},
    )
    (first, *_) = schedule(spec)
    record = play_scheduled(spec, first, make)
    names = [spec.bots[b] for b in first.seats]
    assert starts == [names, names]
    assert [seat["bot"] for seat in record.seats] == names


def test_copies_of_a_registered_bot_play_its_address():
    """A registered bot is played at its address; copies (`BOT*N`, `BOT#2`) share it."""
    from arena.tournament import remote_endpoints

    spec = TournamentSpec(
        game="rolldice",
        bots=("alice-bot", "alice-bot#2", "random"),
        players=2,
        addresses={"alice-bot": "grpc://10.1.2.3:5000"},
    )
    assert [spec.address(b) for b in spec.bots] == ["grpc://10.1.2.3:5000", "grpc://10.1.2.3:5000", "random"]
    # The copy and the original are one endpoint: a match between them takes its slots once.
    assert {m.seats: remote_endpoints(spec, m) for m in schedule(spec)} == {
        (0, 1): ["grpc://10.1.2.3:5000"],
        (1, 0): ["grpc://10.1.2.3:5000"],
        (0, 2): ["grpc://10.1.2.3:5000"],
        (2, 0): ["grpc://10.1.2.3:5000"],
        (1, 2): ["grpc://10.1.2.3:5000"],
        (2, 1): ["grpc://10.1.2.3:5000"],
    }


def test_a_match_s_remote_endpoints_are_sorted_whatever_its_seats():
    """remote_endpoints: each once, sorted (the order every holder of per-bot limits takes them in)."""
    from arena.tournament import remote_endpoints

    bots = tuple(f"b{i}" for i in range(6))
    # Addresses in the reverse order of the bots, so neither seat order nor bot order is sorted.
    addresses = {b: f"grpc://10.0.0.{9 - i}:{i + 1}" for i, b in enumerate(bots)}
    spec = TournamentSpec(game="rolldice", bots=(*bots, "random"), players=3, addresses=addresses)
    matches = schedule(spec)
    assert len(matches) == 3 * 35  # C(7, 3) groups, 3 rotations each
    for match in matches:
        remote = [addresses[spec.bots[b]] for b in match.seats if spec.bots[b] in addresses]
        assert remote_endpoints(spec, match) == sorted(remote), match.seats
    first = matches[0]
    assert first.seats == (0, 1, 2)
    assert remote_endpoints(spec, first) == ["grpc://10.0.0.7:3", "grpc://10.0.0.8:2", "grpc://10.0.0.9:1"]


@pytest.mark.parametrize(("clock", "needle"), [({"bank": 2**32}, "at most 4294967295"), ({"tempo": 5}, "not a clock")])
def test_a_tournament_spec_refuses_a_clock_out_of_range(clock, needle):
    # Whatever built the spec (a command line, a stored config), a bad clock is refused before a
    # match is played (it was a traceback in the first match, with the run left `running`).
    spec = TournamentSpec(game="rolldice", bots=("random", "random#2"), players=2, clock=clock)
    with pytest.raises(ConfigError, match=needle):
        spec.validate()


def test_fresh_deals_give_each_seat_rotation_its_own_seed_and_duplicate_ones_share_it():
    base = dict(game="getbit", bots=("random", "heuristic", "heuristic:thrift=2"), players=3, repeats=2, seed=11)
    shared, fresh = TournamentSpec(**base), TournamentSpec(**base, deals="fresh")
    for spec, per_group in ((shared, 1), (fresh, 3)):
        by_group: dict[int, set[int]] = {}
        for match in schedule(spec):
            by_group.setdefault(match.group, set()).add(match.seed)
        assert len(by_group) == 2 and all(len(seeds) == per_group for seeds in by_group.values())
    # Only the seeds differ: the same groups, rotations and seats.
    assert [(m.group, m.rotation, m.seats) for m in schedule(shared)] == [
        (m.group, m.rotation, m.seats) for m in schedule(fresh)
    ]
    # The default is not written (older specs read the same, with the same digest); the other is.
    assert "deals" not in shared.to_json() and "rated" not in shared.to_json()
    assert fresh.to_json()["deals"] == "fresh" and TournamentSpec.from_json(fresh.to_json()) == fresh
    unrated = TournamentSpec(**base, rated=False)
    assert unrated.to_json()["rated"] is False and TournamentSpec.from_json(unrated.to_json()) == unrated
    with pytest.raises(ConfigError, match="unknown deals 'shuffled'; allowed: duplicate, fresh"):
        TournamentSpec(**base, deals="shuffled").validate()


def test_the_cli_deals_fresh_on_request_and_a_resume_keeps_the_runs_deals(tmp_path):
    out = tmp_path / "run"
    args = ("--game", "rolldice", "--bots", "random,heuristic", "--seed", "4", "--workers", "1", "--json")
    first = arena("tournament", *args, "--deals", "fresh", "--out", str(out))
    assert first.returncode == 0, first.stderr
    seeds = [json.loads(line)["seed"] for line in (out / "matches.jsonl").read_text().splitlines()]
    assert len(seeds) == 2 and seeds[0] != seeds[1]
    assert json.loads((out / "tournament.json").read_text())["spec"]["deals"] == "fresh"
    again = arena("tournament", "--resume", "--out", str(out), "--deals", "duplicate")
    assert again.returncode == 2 and "--deals duplicate, the run has fresh" in again.stderr
    bad = arena("tournament", *args, "--deals", "shuffled")
    assert bad.returncode == 2 and "invalid choice: 'shuffled'" in bad.stderr


def test_a_resumed_sprt_run_holding_every_match_is_stopped_not_complete(tmp_path):
    """Every match of the schedule on disk, the verdict well before the end: the board counts up
    to the deciding group, and the status said complete (a review probe)."""
    s = spec(bots=("heuristic", "random"), format="gauntlet", sprt=(0.0, 50.0), repeats=60)
    rundir, board = run(tmp_path, "sprt", s)
    assert board["matches"] < board["scheduled"]
    full = run(tmp_path, "full", spec(bots=("heuristic", "random"), format="gauntlet", repeats=60))[0]
    rundir.matches_path.write_text(full.matches_path.read_text())  # every match of the schedule
    status = json.loads((rundir.path / "tournament.json").read_text())
    (rundir.path / "tournament.json").write_text(json.dumps({**status, "status": "interrupted"}))
    resumed = run_tournament(s, "t", RunDirectory(rundir.path), LocalExecutor(make_player, 1), resume=True)
    assert resumed["matches"] == board["matches"] and resumed["sprt"] == board["sprt"]
    assert json.loads((rundir.path / "tournament.json").read_text())["status"] == "stopped"


def test_an_sprt_board_with_a_match_missing_is_the_workers_finalisations(tmp_path):
    """A run short of one match (a cancelled --broker run): the client's board went on past the
    gap without the SPRT, the workers' finalisation with it, and the two differed (a review
    probe: 99 matches undecided against 63 decided). Both hear every group after the gap."""
    from arena.sprt import SPRT
    from arena.tournament_run import GroupScores

    s = spec(bots=("heuristic", "random"), format="gauntlet", sprt=(0.0, 50.0), repeats=60)
    records = [play_scheduled(s, m, make_player) for m in schedule(s)[:100] if m.index != 5]

    sprt, local_sprt = SPRT(*s.sprt), SPRT(*s.sprt)
    groups = GroupScores(s, local_sprt)

    def decided(entry) -> bool:
        groups.add(entry)
        return local_sprt.decision() is not None

    local = leaderboard.ScheduleOrderTally(s, resamples=20, stop_after=decided)
    for record in reversed(records):  # landing in any order
        local.add(record)
    local_board = local.board()
    # As workers.tasks.finalize_tournament reads the store: in schedule order, gaps skipped.
    tally, worker_groups = leaderboard.Tally(s, by_group=True), GroupScores(s, sprt)
    for record in records:
        entry = tally.entry(record)
        tally.add_entry(entry)
        worker_groups.add(entry)
        if sprt.decision() is not None:
            break
    assert local_sprt.to_json() == sprt.to_json() and sprt.decision() is not None
    assert local_board == tally.board(resamples=20)


BAD_SPEC_FIELDS = [
    ("game", 1, "game: expected a string, got 1"),
    ("players", None, "players: expected a whole number, got None"),
    ("players", True, "players: expected a whole number, got True"),
    ("bots", "ab", "bots: expected a list of strings, got 'ab'"),
    ("clock", "x", "clock: expected an object of whole numbers, got 'x'"),
    ("repeats", "3", "repeats: expected a whole number, got '3'"),
    ("options", True, "options: expected an object, got True"),
    ("error_budget", float("nan"), "error_budget: expected a whole number, got nan"),
    ("sprt", [0, "5"], "sprt: expected two numbers, got [0, '5']"),
    ("rated", 1, "rated: expected true or false, got 1"),
    ("bots", None, "bots: expected a list of strings, got None"),
]


@pytest.mark.parametrize(("name", "value", "says"), BAD_SPEC_FIELDS, ids=[f"{c[0]}={c[1]!r}" for c in BAD_SPEC_FIELDS])
def test_a_spec_read_from_json_names_a_field_of_the_wrong_type(name, value, says):
    """From a fuzzing probe: each was a traceback of --resume (AttributeError, TypeError), or a
    spec read wrong ("ab" as two bots, a NaN budget that never forfeits)."""
    data = spec().to_json()
    data[name] = value
    with pytest.raises(ConfigError, match=re.escape(f"malformed tournament spec: {says}")):
        TournamentSpec.from_json(data)


def test_resuming_a_damaged_spec_is_one_line_naming_the_file(tmp_path):
    out = tmp_path / "run"
    ran = arena("tournament", "--game", "rolldice", "--bots", "heuristic,random", "--seed", "5", "--out", str(out))
    assert ran.returncode == 0, ran.stderr
    status = json.loads((out / "tournament.json").read_text())
    del status["spec"]["bots"]
    (out / "tournament.json").write_text(json.dumps(status))
    resumed = arena("tournament", "--resume", "--out", str(out))
    assert resumed.returncode == 2
    assert resumed.stderr.strip() == (
        f"arena tournament: error: {out / 'tournament.json'}: malformed tournament spec: bots: missing"
    )
    status["spec"]["bots"], status["spec"]["on_error"] = ["heuristic", "random"], ""
    (out / "tournament.json").write_text(json.dumps(status))
    resumed = arena("tournament", "--resume", "--out", str(out))
    assert resumed.returncode == 2 and "on_error must be forfeit or substitute, not ''" in resumed.stderr
    assert "Traceback" not in resumed.stderr
