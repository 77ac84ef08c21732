"""Comparing runs of the same tournament: everything but wall-clock timings must be equal."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from arena.record import MatchRecord


def canonical(records: Iterable[MatchRecord]) -> list[str]:
    """Records as sorted-key JSON without their timings (``MatchRecord.canonical``)."""
    return [json.dumps(record.canonical(), sort_keys=True) for record in records]


def canonical_lines(path: Path) -> list[str]:
    """The records of a ``matches.jsonl`` file, as :func:`canonical` gives them."""
    return canonical(MatchRecord.loads(line) for line in path.read_text().splitlines())


def board_without_timing(board: dict[str, Any]) -> dict[str, Any]:
    """A leaderboard without the tournament id and the mean decision times."""
    board = json.loads(json.dumps(board))
    board.pop("tournament", None)
    for row in board["leaderboard"]:
        row.pop("mean_decision_ms")
    return board
