"""A worker computes each record's tally entry and sends it with the stored group; the client
tallies the entries instead of parsing the records. An entry must be exactly what the client
would take from the record's line, and a tally fed entries the same as one fed records."""

from __future__ import annotations

import pytest

from arena.leaderboard import Tally
from arena.record import RecordView, read_view
from arena.registry import games
from arena.runner import ErrorPolicy, FunctionPlayer, play_match
from arena.tallied import GroupTally, TallyEntry, tally_entry
from arena.tournament import TournamentSpec
from bots.random_bot import RandomBot
from tests.test_request_bytes import SEED, players_of

BOTS = ["a", "b", "c", "d", "e", "f"]


def _named(record, n: int):  # type: ignore[no-untyped-def]
    for seat, bot in zip(record.seats, BOTS[:n], strict=False):
        seat["bot"] = bot
    return record


@pytest.mark.parametrize("game_id", sorted(games()))
def test_a_worker_s_entry_is_what_the_record_s_line_gives(game_id: str) -> None:
    game = games()[game_id]
    n = players_of(game)
    record = _named(play_match(game, game.config(n), SEED, [RandomBot() for _ in range(n)]), n)
    record.tournament = {"index": 7, "group": 3, "rotation": 1}
    bot_index = {name: i for i, name in enumerate(BOTS)}
    sent = tally_entry(record, bot_index)  # in the worker, from the record it played
    read = tally_entry(read_view(record.dumps()), bot_index)  # in the client, from its line
    assert sent == read
    assert sent.schedule_index == 7 and sent.group == 3 and sent.group_number == 3
    assert sent.seat_bots == tuple(range(n)) and list(sent.ranks) == record.result["ranks"]
    # Through the group's tally line and back: the same entry, field for field.
    (back,) = GroupTally.decode(GroupTally(BOTS, [sent]).encode()).entries  # type: ignore[union-attr]
    assert back == sent and [type(v) for v in back.decision_ms] == [float] * n


def test_an_entry_outside_a_tournament_and_with_failures() -> None:
    game = games()["rolldice"]

    def crash(request: object) -> str:
        raise RuntimeError("boom")

    record = _named(
        play_match(
            game, game.config(2), SEED, [RandomBot(), FunctionPlayer(crash)], policy=ErrorPolicy("substitute", 5)
        ),
        2,
    )
    entry = tally_entry(record, {"a": 0, "b": 1})
    assert entry.schedule_index == 0 and entry.group is None and entry.group_number == 0
    assert entry.failures == tuple((1, f.verdict) for f in record.failures) and entry.failures
    # Substitute decisions are not the bot's: neither counted nor timed.
    bots_own = [d for d in record.decisions if d.seat == 1 and d.by == "bot"]
    assert entry.decisions[1] == len(bots_own)
    assert entry.decision_ms[1] == sum(d.ms for d in bots_own)


def test_a_group_s_tally_line_is_told_apart_from_records_and_refused_when_malformed() -> None:
    entry = TallyEntry(4, 2, 2, (0, 1), (1, 2), (3, 0.5), ((1, "timeout"),), (0.25, 0.0), (2, 0))
    line = GroupTally(["x", "y"], [entry]).encode()
    assert line.startswith('["tally",') and GroupTally.is_line(line)
    assert not GroupTally.is_line(read_line := '{"game":"rolldice"}') and GroupTally.decode(read_line) is None
    assert GroupTally.decode('["tally",["x"],[[1,2]]]') is None  # an entry short of fields
    assert GroupTally.decode('["tally",["x"],[') is None  # cut short


def _records(spec: TournamentSpec, matches: int):  # type: ignore[no-untyped-def]
    game = games()[spec.game]
    out = []
    for index in range(matches):
        record = play_match(game, game.config(spec.players), SEED + index, [RandomBot() for _ in range(spec.players)])
        for seat, details in enumerate(record.seats):
            details["bot"] = spec.bots[(index + seat) % len(spec.bots)]
        record.tournament = {"index": index, "group": index // 2}
        out.append(record)
    return out


@pytest.mark.parametrize(("game_id", "players"), [("rolldice", 2), ("rolldice", 3), ("skyfive", 4)])
def test_a_tally_fed_sent_entries_equals_one_fed_the_records(game_id: str, players: int) -> None:
    spec = TournamentSpec(game=game_id, bots=("a", "b", "c", "d", "e"), players=players, repeats=1)
    records = _records(spec, 40)
    bot_index = {name: i for i, name in enumerate(spec.bots)}
    frame = GroupTally(list(spec.bots), [tally_entry(r, bot_index) for r in records]).encode()
    sent = GroupTally.decode(frame)
    assert sent is not None
    by_records, by_entries = Tally(spec, by_group=True), Tally(spec, by_group=True)
    for record, entry in zip(records, sent.entries, strict=True):
        by_records.add(record)
        by_entries.add_entry(entry)
    assert by_entries.board(resamples=20) == by_records.board(resamples=20)
    assert (by_entries.group_win_matrices() == by_records.group_win_matrices()).all()
    assert by_entries.elo.ratings == by_records.elo.ratings


def test_a_tally_s_counted_outcomes_give_the_same_sums_whenever_they_are_added_in() -> None:
    """The whole-number sums are counted per outcome and added when read: reading the board
    after every record, never, or with the outcomes forgotten every few records gives the same
    board, bit for bit."""
    spec = TournamentSpec(game="rolldice", bots=("a", "b", "c", "d"), players=3, repeats=1)
    records = _records(spec, 60)
    plain, watched, forgetful = (Tally(spec, by_group=True) for _ in range(3))
    forgetful.SETTLE_OUTCOMES = 1  # type: ignore[misc]  (and 16 (outcome, group) counts)
    boards = []
    for record in records:
        plain.add(record)
        watched.add(record)
        forgetful.add(record)
        boards.append(watched.board())
    assert boards[-1] == plain.board() == forgetful.board()
    assert plain.board(resamples=30) == watched.board(resamples=30) == forgetful.board(resamples=30)
    assert plain.games == [sum(int(s["bot"] == b) for r in records for s in r.seats) for b in spec.bots]
    ranks_of = [
        sum(r.result["ranks"][seat] for r in records for seat, s in enumerate(r.seats) if s["bot"] == b)
        for b in spec.bots
    ]
    assert plain.rank_sum == ranks_of and sum(plain.games) == 3 * len(records)


def _ranked(
    index: int, group: int, rotation: int, bots: list[str], ranks: list[int], scores: list[int] | None = None
) -> RecordView:
    return RecordView(
        seats=[{"bot": b} for b in bots],
        result={"ranks": ranks, "scores": scores if scores is not None else [0] * len(bots)},
        tournament={"index": index, "group": group, "rotation": rotation},
    )


def test_a_two_player_draw_is_a_draw_in_the_wins_draws_losses_columns() -> None:
    """The board's columns are wins/draws/losses: a shared rank in a 2-player match is a draw for both."""
    tally = Tally(TournamentSpec(game="skyfive", bots=("a", "b"), players=2))
    tally.add(_ranked(0, 0, 0, ["a", "b"], [1, 1]))  # a draw
    tally.add(_ranked(1, 0, 1, ["b", "a"], [1, 2]))  # b wins
    board = tally.board()
    assert [(r["bot"], r["wins"], r["draws"], r["losses"]) for r in board["leaderboard"]] == [
        ("b", 1, 1, 0),
        ("a", 0, 1, 1),
    ]
    # A shared victory is shared in the seat statistics too.
    assert board["seats"] == [
        {"seat": 0, "win_rate": 0.75, "mean_rank": 1.0},
        {"seat": 1, "win_rate": 0.25, "mean_rank": 1.5},
    ]


def test_a_one_player_board_lists_the_bots_by_mean_score() -> None:
    """One-player games compare no bots: their board lists the bots by mean score (not by name)."""
    tally = Tally(TournamentSpec(game="rolldice", bots=("a", "b"), players=1))
    for index, (bot, score) in enumerate([("a", 10), ("b", 30), ("a", 12), ("b", 28)]):
        tally.add(_ranked(index, index, 0, [bot], [1], [score]))
    rows = tally.board()["leaderboard"]
    assert [(r["rank"], r["bot"], r["mean_score"]) for r in rows] == [(1, "b", 29.0), (2, "a", 11.0)]
