"""A game's leaderboard across tournaments, on a private redis-server: refitted from each
complete tournament's stored summary, so it never re-reads old records and still counts
tournaments whose records have expired."""

from __future__ import annotations

import json

import numpy as np
import pytest

from arena import leaderboard
from arena.record import RecordView, SeatFailure
from arena.tallied import GroupTally, TallyEntry, tally_entry
from arena.tournament import TournamentSpec, play_scheduled, schedule
from referee.players import make_player
from referee.store import Store
from tests.services import redis_server
from workers.tasks import finalize_tournament


@pytest.fixture
def store(tmp_path):
    with redis_server(tmp_path) as server:
        yield Store(server.url, retention_days=2)


def played(spec: TournamentSpec):
    return [play_scheduled(spec, match, make_player) for match in schedule(spec)]


def complete(store: Store, tournament_id: str, spec: TournamentSpec, records) -> None:
    assert store.create_tournament(tournament_id, spec, total=len(records), batches=1)
    store.store_matches(tournament_id, [(int(r.tournament["index"]), r) for r in records])
    assert finalize_tournament(store, tournament_id)["status"] == "complete"


FIRST = TournamentSpec(game="rolldice", bots=("heuristic", "random"), players=2, repeats=6, seed=3)
SECOND = TournamentSpec(game="rolldice", bots=("heuristic", "heuristic:threshold=3"), players=2, repeats=5, seed=4)


def test_a_summary_round_trips_through_json_exactly():
    records = played(FIRST)
    summary = json.loads(json.dumps(leaderboard.tournament_summary(FIRST, records)))
    assert np.array_equal(leaderboard.summary_groups(summary), leaderboard.group_win_matrices(FIRST, records))
    assert summary["matches"] == len(records) == sum(summary["games"]) // 2
    assert sum(t["n"] for t in summary["tallies"].values()) == 2 * len(records)


@pytest.mark.parametrize(
    "spec",
    [FIRST, TournamentSpec(game="skyfive", bots=("random", "heuristic", "heuristic:risk=2"), players=3, seed=5)],
    ids=["two-player", "three-player"],
)
def test_a_summarys_tallies_are_each_bots_sums_over_its_seats(spec):
    records = played(spec)
    summary = leaderboard.tournament_summary(spec, records)
    expected: dict[str, dict[str, float]] = {}
    for record in records:
        ranks, scores = record.result["ranks"], record.result["scores"]
        for seat, entry in enumerate(record.seats):
            sums = expected.setdefault(entry["bot"], dict.fromkeys(leaderboard.TALLY_KEYS, 0.0))
            sums["n"] += 1
            sums["rank"] += ranks[seat]
            sums["score"] += scores[seat]
            if len(ranks) == 2:
                other = ranks[1 - seat]
                sums["w" if ranks[seat] < other else "d" if ranks[seat] == other else "l"] += 1
    assert summary["tallies"] == expected
    assert summary["games"] == [int(expected[bot]["n"]) for bot in spec.bots]


def test_finalising_reads_the_records_in_chunks_and_publishes_builds_board(store):
    records = played(FIRST)
    assert store.create_tournament("t", FIRST, total=len(records), batches=1)
    store.store_matches("t", [(int(r.tournament["index"]), r) for r in records])
    chunks: list[int] = []
    reading = store._read

    def read(tid, stored, bots=None):  # type: ignore[no-untyped-def]
        stored = list(stored)
        chunks.append(len(stored))
        return reading(tid, stored, bots)

    store._read = read  # type: ignore[method-assign]
    board = finalize_tournament(store, "t")
    assert len(chunks) == 1 and chunks[0] == len(records)  # one chunk of at most 1,000
    expected = leaderboard.build(FIRST, records)
    assert {k: v for k, v in board.items() if k in expected} == expected
    assert store.summary("t") == json.loads(json.dumps(leaderboard.tournament_summary(FIRST, records)))
    store._read = reading  # type: ignore[method-assign]
    assert [r.match_id for r in store.matches_in_order("t", len(records), chunk=5)] == [r.match_id for r in records]
    # Stored with the tally entries a worker sends: finalised from those, to the same board.
    assert store.create_tournament("u", FIRST, total=len(records), batches=1)
    bot_index = {name: i for i, name in enumerate(FIRST.bots)}
    for half in (records[: len(records) // 2], records[len(records) // 2 :]):
        lines = [(int(r.tournament["index"]), r.dumps()) for r in half]
        store.store_lines("u", lines, GroupTally(list(FIRST.bots), [tally_entry(r, bot_index) for r in half]))
    tallied = list(store.tallied_in_order("u", len(records), FIRST.bots))
    assert all(isinstance(item, TallyEntry) for item in tallied) and len(tallied) == len(records)
    board = finalize_tournament(store, "u")
    assert {k: v for k, v in board.items() if k in expected} == expected
    assert store.summary("u") == store.summary("t")


def test_the_game_board_counts_tournaments_whose_records_are_gone(store):
    first, second = played(FIRST), played(SECOND)
    complete(store, "t1", FIRST, first)
    assert store.summary("t1") is not None
    store.redis.delete(store.key("t", "t1", "matches"))  # its retention has ended
    complete(store, "t2", SECOND, second)
    board = store.game_leaderboard("rolldice")
    assert board is not None
    assert (board["tournaments"], board["matches"]) == (2, len(first) + len(second))
    rows = {row["bot"]: row for row in board["leaderboard"]}
    assert set(rows) == {"heuristic", "random", "heuristic:threshold=3"}
    assert rows["heuristic"]["games"] == len(first) + len(second)
    assert rows["random"]["wins"] + rows["random"]["draws"] + rows["random"]["losses"] == len(first)
    # The same numbers as one fit over every record of both tournaments.
    direct = leaderboard.across(
        "rolldice", [leaderboard.tournament_summary(FIRST, first), leaderboard.tournament_summary(SECOND, second)]
    )
    assert board["leaderboard"] == direct["leaderboard"]
    expected_mean_rank = np.mean(
        [r.result["ranks"][s] for r in first for s, e in enumerate(r.seats) if e["bot"] == "random"]
    )
    assert rows["random"]["mean_rank"] == round(float(expected_mean_rank), 3)


def test_the_game_board_is_fitted_over_its_latest_tournaments(store, monkeypatch):
    """Each finalisation refits it: over every tournament ever played its cost grows for good."""
    import workers.tasks

    monkeypatch.setattr(workers.tasks, "GAME_BOARD_TOURNAMENTS", 1)
    first, second = played(FIRST), played(SECOND)
    complete(store, "t1", FIRST, first)
    assert {row["bot"] for row in store.game_leaderboard("rolldice")["leaderboard"]} == {"heuristic", "random"}
    complete(store, "t2", SECOND, second)
    board = store.game_leaderboard("rolldice")
    assert (board["tournaments"], board["matches"]) == (1, len(second))  # random's only tournament is out
    assert {row["bot"] for row in board["leaderboard"]} == {"heuristic", "heuristic:threshold=3"}
    assert store.game_tournaments("rolldice") == ["t1", "t2"] and store.game_tournaments("rolldice", 1) == ["t2"]


def test_a_one_player_games_board_across_tournaments_lists_bots_by_mean_score():
    """As a one-player tournament's board does (README, "One-player games"): it listed them by
    name, under the fit's false "no games have been played" (an outside mutation probe)."""
    from arena.leaderboard import ONE_PLAYER, Tally, summary_of
    from arena.record import RecordView

    def summary(seed: int) -> dict:
        spec = TournamentSpec(game="rolldice", bots=("a", "b"), players=1, seed=seed)
        tally = Tally(spec, by_group=True)
        for i, (bot, score) in enumerate([("a", 10), ("b", 30), ("a", 12), ("b", 28)]):
            seats, result = [{"bot": bot}], {"ranks": [1], "scores": [score]}
            tally.add(RecordView(seats=seats, result=result, tournament={"index": i, "group": i, "rotation": 0}))
        return summary_of(tally)

    board = leaderboard.across("rolldice", [summary(1), summary(2)])
    rows = [(r["rank"], r["bot"], r["mean_score"], r["rank_best"], r["rank_worst"]) for r in board["leaderboard"]]
    assert rows == [(1, "b", 29.0, 1, 2), (2, "a", 11.0, 1, 2)]
    assert board["warning"] == ONE_PLAYER


def test_a_tournament_finished_before_summaries_gets_one_from_its_records(store):
    records = played(FIRST)
    complete(store, "old", FIRST, records)
    store.redis.delete(store.key("t", "old", "summary"))  # as stored by an earlier version
    complete(store, "new", SECOND, played(SECOND))
    assert store.summary("old") == json.loads(json.dumps(leaderboard.tournament_summary(FIRST, records)))
    assert store.game_leaderboard("rolldice")["tournaments"] == 2


def test_the_game_board_counts_failures_by_verdict(store):
    """A bot's failures in complete tournaments are summed into the game's leaderboard (the
    API's and the web UI's rows: ``failures`` by verdict), across tournaments, and survive the
    records' expiry like the rest of the summary."""
    from arena.record import FailureEntry
    from referee import views

    first, second = played(FIRST), played(SECOND)

    def fail(records, bot: str, verdicts: list[str]) -> None:
        for record, verdict in zip((r for r in records if bot in [s["bot"] for s in r.seats]), verdicts, strict=False):
            seat = next(s for s, entry in enumerate(record.seats) if entry["bot"] == bot)
            record.failures.append(FailureEntry(seat=seat, decision=0, verdict=verdict, detail="slow"))

    fail(first, "random", ["timeout", "timeout", "crash"])
    fail(second, "heuristic", ["illegal"])
    fail(second, "heuristic:threshold=3", ["timeout"])
    summary = json.loads(json.dumps(leaderboard.tournament_summary(FIRST, first)))
    assert summary["failures"] == {"random": {"timeout": 2, "crash": 1}}
    complete(store, "t1", FIRST, first)
    store.redis.delete(store.key("t", "t1", "matches"))  # its retention has ended
    complete(store, "t2", SECOND, second)
    board = store.game_leaderboard("rolldice")
    assert board is not None
    rows = {row["bot"]: row for row in board["leaderboard"]}
    assert rows["random"]["failures"] == {"timeout": 2, "crash": 1}
    assert rows["heuristic"]["failures"] == {"illegal": 1}
    assert rows["heuristic:threshold=3"]["failures"] == {"timeout": 1}
    shown = {row.bot: dict(row.failures) for row in views.leaderboard(board).rows}  # the API's rows
    assert shown["random"] == {"timeout": 2, "crash": 1} and shown["heuristic"] == {"illegal": 1}
    # Renamed bots keep their failures; a summary stored before summaries kept them counts none.
    renamed = leaderboard.renamed_summary(summary, {"random": "random@2"})
    assert renamed["failures"] == {"random@2": {"timeout": 2, "crash": 1}}
    old = {k: v for k, v in summary.items() if k != "failures"}
    rows = {r["bot"]: r for r in leaderboard.across("rolldice", [old, renamed])["leaderboard"]}
    assert rows["random"]["failures"] == {} and rows["random@2"]["failures"] == {"timeout": 2, "crash": 1}


def test_a_game_board_of_multiplayer_tournaments_widens_its_normal_intervals():
    """Summaries keep their matches' seats, and the game board's fit takes the most of them: it
    counted a 4-player game's pairwise results as independent games (a review probe)."""
    spec = TournamentSpec(
        game="rolldice",
        bots=("heuristic", "random", "heuristic:threshold=4", "heuristic:threshold=2"),
        players=4,
        repeats=2,
        seed=3,
    )
    summary = leaderboard.tournament_summary(spec, played(spec))
    assert summary["players"] == 4
    board = leaderboard.across("rolldice", [summary])
    older = leaderboard.across("rolldice", [{k: v for k, v in summary.items() if k != "players"}])  # read as 2
    for wide, narrow in zip(board["leaderboard"], older["leaderboard"], strict=True):
        assert wide["bot"] == narrow["bot"] and wide["rating"] == narrow["rating"]
        assert wide["ci_high"] - wide["ci_low"] > narrow["ci_high"] - narrow["ci_low"]


def _view(index: int, rotation: int, bots: list[str], ranks: list[int], scores: list[int], fails=()) -> RecordView:
    return RecordView(
        seats=[{"bot": b} for b in bots],
        result={"ranks": ranks, "scores": scores},
        failures=[SeatFailure(seat=s, verdict=v) for s, v in fails],
        tournament={"index": index, "group": 0, "rotation": rotation},
    )


def _summary(seed: int, fails=(), scores=((0, 0), (0, 0))) -> dict:
    """A 2-player tournament of one group: a beats b in both seat orders."""
    tally = leaderboard.Tally(TournamentSpec(game="skyfive", bots=("a", "b"), players=2, seed=seed), by_group=True)
    tally.add(_view(0, 0, ["a", "b"], [1, 2], list(scores[0]), fails))
    tally.add(_view(1, 1, ["b", "a"], [2, 1], list(scores[1])))
    return leaderboard.summary_of(tally)


def test_the_game_board_shows_each_bots_mean_score():
    """The game board's mean score is the mean of the bot's scores over its games (not its mean rank)."""
    board = leaderboard.across("skyfive", [_summary(1, scores=((30, 10), (12, 28)))])
    assert [(r["bot"], r["mean_rank"], r["mean_score"]) for r in board["leaderboard"]] == [
        ("a", 1.0, 29.0),
        ("b", 2.0, 11.0),
    ]


def test_the_game_board_sums_failures_by_verdict_over_its_tournaments():
    """across: failures by verdict ... over all of them: a verdict in two tournaments counts twice."""
    summaries = [_summary(1, [(0, "timeout")]), _summary(2, [(0, "timeout")]), _summary(3, [(0, "illegal")])]
    board = leaderboard.across("skyfive", summaries)
    assert {r["bot"]: r["failures"] for r in board["leaderboard"]} == {"a": {"timeout": 2, "illegal": 1}, "b": {}}


def test_a_cancel_after_the_last_store_is_refused_and_the_tournament_counts_complete(store):
    """A cancel landing between the last store and finalisation's end was accepted: the
    tournament read cancelled, yet finalisation, past its look at the cancel, had counted it
    into the game's board (an outside races probe, 19 of 20 tries). Every match stored, the
    store refuses the cancel (and an SPRT's stop), and the tournament ends complete."""
    records = played(FIRST)
    assert store.create_tournament("t", FIRST, total=len(records), batches=1)
    store.mark_running("t")
    *stored, last = store.store_matches("t", [(int(r.tournament["index"]), r) for r in records])
    assert last.finalize and not any(s.finalize for s in stored)  # the last store claimed it
    assert store.cancel_live("t") is False and store.cancel("t") == "running"
    assert store.stop("t") == "running"
    assert not store.is_cancelled("t") and store.tournament("t")["status"] == "running"
    board = finalize_tournament(store, "t")
    assert board["status"] == "complete" and store.tournament("t")["status"] == "complete"
    assert store.game_tournaments("rolldice") == ["t"] and store.summary("t") is not None
    # One match short, a cancel is taken, and the tournament is not counted.
    assert store.create_tournament("u", FIRST, total=len(records), batches=1)
    store.store_matches("u", [(int(r.tournament["index"]), r) for r in records[:-1]])
    assert store.cancel_live("u") is True
    assert not store.store_match("u", int(records[-1].tournament["index"]), records[-1]).finalize
    assert finalize_tournament(store, "u")["status"] == "cancelled"
    assert store.game_tournaments("rolldice") == ["t"] and store.summary("u") is None
