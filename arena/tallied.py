"""What a leaderboard's tally takes of each record (:class:`TallyEntry`), and how a worker sends
it along with the records it stores (:class:`GroupTally`).

A worker has each record in hand as it plays it, so it computes the record's entry there; the
client that follows a distributed run then reads the entries of a stored group in one decode
instead of parsing every record's line again (its share of the machine is what held two worker
processes below 1.7x one: README, "The client tallies what the workers computed"). An entry is
exactly what :func:`tally_entry` takes from the record's line, so a tally fed entries equals one
fed the records.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from arena.record import Tallied


class TallyEntry(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """What a tally takes from a record: a few small values, so a record waiting for its turn
    (``ScheduleOrderTally``) is not kept whole (thousands of records, each with its decisions,
    kept alive long enough for the garbage collector's full passes to scan them cost a
    distributed run's client more than parsing them). Tuples of numbers and strings only, in a
    struct the garbage collector does not track: a client decodes a thousand at a time, and as
    named tuples holding lists they cost it four times as much, most of it in collections."""

    schedule_index: int  # (0 outside a tournament)
    group: Any  # the duplicate group as recorded (None outside a tournament)
    group_number: int  # the group, or the schedule index where there is none
    seat_bots: tuple[int, ...]  # bot index of each seat
    ranks: tuple[int, ...]
    scores: tuple[Any, ...]
    failures: tuple[tuple[int, str], ...]  # (bot index, verdict)
    decision_ms: tuple[float, ...]  # per seat: the bot's decision times, summed
    decisions: tuple[int, ...]  # per seat: how many decisions the bot made


def tally_entry(record: Tallied, bot_index: Mapping[str, int]) -> TallyEntry:
    """The entry of a record, its seats' bots numbered by ``bot_index`` (name -> index in the
    tournament's list of bots)."""
    seat_bots = tuple([bot_index[s["bot"]] for s in record.seats])
    timing = [0.0] * len(seat_bots)
    timed = [0] * len(seat_bots)
    for decision in record.decisions:
        if decision.by == "bot":
            timing[decision.seat] += decision.ms
            timed[decision.seat] += 1
    tournament = record.tournament
    group = tournament.get("group")
    index = int(tournament.get("index", 0))
    return TallyEntry(
        index,
        group,
        int(group) if group is not None else index,
        seat_bots,
        tuple(record.result["ranks"]),
        tuple(record.result["scores"]),
        tuple([(seat_bots[failure.seat], failure.verdict) for failure in record.failures]),
        tuple(timing),
        tuple(timed),
    )


class GroupTally(msgspec.Struct, array_like=True, tag="tally", frozen=True):
    """The entries of a stored group's records, in the group's order, and the tournament's bots
    they number (a reader whose list differs reads the records instead). Written as the
    group's last line, ``["tally", [bots...], [[entry...], ...]]``: a record's line is an
    object, so no reader that looks lines up by their position sees it."""

    bots: list[str]
    entries: list[TallyEntry]

    def encode(self) -> str:
        return _encoder.encode(self).decode()

    @staticmethod
    def is_line(line: str) -> bool:
        return line.startswith(_MARK)

    @staticmethod
    def decode(line: str) -> GroupTally | None:
        """The group's tally from its last line (None: a line this version does not read)."""
        try:
            return _decoder.decode(line)
        except msgspec.DecodeError:
            return None


_MARK = '["tally",'
_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(GroupTally)
