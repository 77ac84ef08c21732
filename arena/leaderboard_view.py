"""The one leaderboard table of every command: a local run's table (``arena tournament``), and
the service's boards (``tournaments watch``/``create --watch``, ``leaderboard``), live or final.

It takes a board as :func:`arena.leaderboard.build` writes it; a field a board may lack (a
row's decision times, say, before any decision of it is on record) shows as ``-``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from arena.runner import VERDICTS

DROP_ORDER = ("ms/decision", "mean score", "games", "failures", "W / D / L", "mean rank")
"""Columns given up, in this order, when the table is wider than the terminal: never the bot's
name (two entrants must not both show as ``heurist…``), its place (``#``: the range of ranks its
interval allows, :func:`rank_text`) or its rating."""


def leaderboard_table(board: Mapping[str, Any], *, live: bool = False, width: int | None = None) -> Any:
    """A rich Table of the leaderboard (``live``: a board while the tournament runs).

    With ``width`` (the console's), columns are dropped (:data:`DROP_ORDER`) until the table
    fits, then its outer border; names are never truncated (the bot column does not wrap or
    shrink).
    """
    from rich.table import Table

    two = board.get("players") == 2
    status = board.get("status")
    title = f"{board['game']}: {board.get('matches', 0)} matches"
    if live:
        title += " so far (live; intervals at the end)"
    elif status and status != "complete":
        title += f" ({status})"
    columns = ["#", "bot", "rating (95% CI)", "games"]
    columns += ["W / D / L"] if two else ["mean rank"]
    columns += ["mean score", "failures", "ms/decision"]
    cells: list[dict[str, str]] = []
    for row in with_rank_ranges(board.get("leaderboard", [])):
        # A live board has no intervals yet (they come with the final fit).
        interval = f"{row['rating']:.0f}" if live else rating_text(row["rating"], row.get("ci_low"), row.get("ci_high"))
        if two:
            result = f"{row.get('wins', 0)} / {row.get('draws', 0)} / {row.get('losses', 0)}"
        else:
            result = _number(row.get("mean_rank"))
        ms = row.get("mean_decision_ms")
        cells.append(
            {
                # The ranks the intervals allow ("2", or "1–3" when not settled); a live table
                # shows no interval, so its places are positions, ranges with the final board.
                "#": str(row.get("rank", "")) if live else rank_text(row),
                "bot": row["bot"],
                "rating (95% CI)": interval,
                "games": str(row.get("games", 0)),
                "W / D / L": result,
                "mean rank": result,
                "mean score": _number(row.get("mean_score")),
                "failures": ", ".join(f"{k} {v}" for k, v in (row.get("failures") or {}).items()) or "-",
                "ms/decision": "-" if ms is None else f"{ms:.3f}",
            }
        )

    def needed(names: list[str]) -> int:  # one line per row: cell + 2 padding + 1 rule, + outer rule
        return 1 + sum(3 + max([len(c), *(len(r[c]) for r in cells)]) for c in names)

    edge = True
    if width is not None:
        for column in DROP_ORDER:
            if needed(columns) <= width:
                break
            if column in columns:
                columns.remove(column)
        # Still too wide (a rank range, "1–4", is wider than a position): give up the outer
        # border, two columns, before the terminal cuts an interval short.
        edge = needed(columns) <= width
    table = Table(title=title, show_edge=edge)
    longest = max([3, *(len(r["bot"]) for r in cells)])
    for column in columns:
        if column == "bot":
            table.add_column(column, justify="left", no_wrap=True, min_width=longest)
        else:
            table.add_column(column, justify="right")
    for row_cells in cells:
        table.add_row(*(row_cells[c] for c in columns))
    seats = ", ".join(
        f"seat {s['seat']}: win {s['win_rate']:.1%}" for s in board.get("seats") or [] if s.get("win_rate") is not None
    )
    # One seat has no advantage over another (a one-player game wins every match).
    caption = [f"seat advantage - {seats}"] if seats and board.get("players") != 1 else []
    if board.get("warning"):
        caption.append(f"warning: {board['warning']}")
    table.caption = "\n".join(caption) or None
    return table


def interval_end(value: Any) -> float | None:
    """An interval's end as a number, None where it is open: a board keeps None, the API sends
    -inf / +inf, and its JSON "-Infinity" / "Infinity"."""
    if value is None:
        return None
    end = float(value)
    return end if math.isfinite(end) else None


def rating_text(rating: float, low: float | None, high: float | None) -> str:
    """A rating with its 95% interval, ``1612 (1540..1690)``; an end the results do not bound
    (None, or an infinity from the API) is ``∞``: ``1820 (1700..∞)`` for a bot that never lost.
    Open at both ends (no game against another bot: every bot of a one-player game) the number
    means nothing, so it is ``-``."""
    low, high = interval_end(low), interval_end(high)
    if low is None and high is None:
        return "-"
    shown_low = "-∞" if low is None else f"{low:.0f}"
    shown_high = "∞" if high is None else f"{high:.0f}"
    return f"{rating:.0f} ({shown_low}..{shown_high})"


def rank_text(row: Mapping[str, Any]) -> str:
    """The rank as a table shows it: ``2`` when settled, ``1–3`` (an en dash) when the
    intervals allow a range; a row without the range (a board stored before ranges were kept,
    or a service that does not send them) shows its position."""
    best, worst = row.get("rank_best"), row.get("rank_worst")
    if not best or not worst:
        return str(row.get("rank", ""))
    return str(best) if best == worst else f"{best}\u2013{worst}"


def with_rank_ranges(rows: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows, each with its ``rank_best`` and ``rank_worst``: a board stored by an older
    version (``arena tournament status``), or sent by an older referee (zeros), gets them from
    its intervals (:func:`arena.leaderboard.rank_ranges`, imported only then: numpy)."""
    if all(row.get("rank_best") and row.get("rank_worst") for row in rows):
        return rows
    from arena.leaderboard import rank_ranges

    return [
        {**row, "rank_best": best, "rank_worst": worst}
        for row, (best, worst) in zip(rows, rank_ranges(rows), strict=True)
    ]


def _number(value: Any) -> str:
    return "-" if value is None else str(value)


def from_message(board: Any) -> dict[str, Any]:
    """A board as :func:`leaderboard_table` takes it, from an ``arena.v1.Leaderboard`` message."""
    return {
        "game": board.game,
        "matches": board.matches,
        "players": board.players,
        "status": board.status or None,
        "warning": board.warning or None,
        "leaderboard": [
            {
                "rank": row.rank,
                # 0 from a referee that does not send them: the table then works them out.
                "rank_best": row.rank_best or None,
                "rank_worst": row.rank_worst or None,
                "bot": row.bot,
                "rating": row.rating,
                # -inf / +inf from the API: an open end, None as a board keeps it.
                "ci_low": interval_end(row.ci_low),
                "ci_high": interval_end(row.ci_high),
                "games": row.games,
                "wins": row.wins,
                "draws": row.draws,
                "losses": row.losses,
                "mean_rank": round(row.mean_rank, 3) if row.mean_rank else None,
                "mean_score": round(row.mean_score, 3) if row.games else None,
                "failures": {v: row.failures[v] for v in VERDICTS if v in row.failures},
                "mean_decision_ms": row.mean_decision_ms if row.HasField("mean_decision_ms") else None,
            }
            for row in board.rows
        ],
    }
