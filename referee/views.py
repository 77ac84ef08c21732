"""Conversions from Arena's values to the API's messages (``arena.v1.arena_pb2``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from google.protobuf import descriptor_pb2, timestamp_pb2

from arena.engine import Game, GameMeta
from arena.leaderboard import rank_ranges
from arena.protocol import event_message, option_text
from arena.record import MatchRecord
from arena.v1 import arena_pb2, bot_pb2


def interval(row: dict[str, Any]) -> dict[str, float]:
    """A board row's 95% interval as the API's ``ci_low``/``ci_high`` take it: an open end (None,
    where the results set no bound: :func:`arena.ratings.unbounded_ends`) as -inf / +inf."""
    low, high = row.get("ci_low"), row.get("ci_high")
    return {"ci_low": -math.inf if low is None else low, "ci_high": math.inf if high is None else high}


def game_info(meta: GameMeta) -> arena_pb2.GameInfo:
    return arena_pb2.GameInfo(
        id=meta.id,
        name=meta.name,
        min_players=meta.min_players,
        max_players=meta.max_players,
        version=meta.version,
        flags=list(meta.flags),
        variants=[
            arena_pb2.GameVariant(
                name=v.name,
                description=v.description,
                options={k: option_text(x) for k, x in v.options.items()},
                players=list(v.players),
            )
            for v in meta.variants
        ],
        options=[
            arena_pb2.GameOption(key=o.key, default=option_text(o.default), allowed=o.allowed(), help=o.help)
            for o in meta.options
        ],
        summary=meta.summary,
    )


def file_descriptor_set(*files: Any) -> descriptor_pb2.FileDescriptorSet:
    """The files and everything they import, dependencies first (as protoc would emit them)."""
    out = descriptor_pb2.FileDescriptorSet()
    seen: set[str] = set()

    def add(file: Any) -> None:
        if file.name in seen:
            return
        seen.add(file.name)
        for dependency in file.dependencies:
            add(dependency)
        proto = out.file.add()
        file.CopyToProto(proto)

    for file in files:
        add(file)
    return out


def game_description(game: Game, builtin_bots: list[str]) -> arena_pb2.GameDescription:
    return arena_pb2.GameDescription(
        info=game_info(game.meta),
        protocol=file_descriptor_set(game.observation_type.DESCRIPTOR.file, bot_pb2.DESCRIPTOR),
        observation_type=game.observation_type.DESCRIPTOR.full_name,
        action_type=game.action_type.DESCRIPTOR.full_name,
        builtin_bots=builtin_bots,
    )


def leaderboard(board: dict[str, Any], tournament_id: str = "", *, failures: bool = True) -> arena_pb2.Leaderboard:
    """The board as a message; ``failures=False`` while its tournament runs (a bot's failures
    are its owner's business until the end)."""
    rows = []
    stored = board.get("leaderboard", [])
    # A board stored before rows kept their rank ranges gets them from its intervals here.
    ranges = rank_ranges(stored)
    for row, (best, worst) in zip(stored, ranges, strict=True):
        rows.append(
            arena_pb2.LeaderboardRow(
                failures=(row.get("failures") or {}) if failures else {},
                mean_decision_ms=row.get("mean_decision_ms"),
                rank=row.get("rank", 0),
                rank_best=row.get("rank_best") or best,
                rank_worst=row.get("rank_worst") or worst,
                bot=row["bot"],
                rating=row["rating"],
                **interval(row),
                games=row.get("games", 0),
                wins=row.get("wins", 0),
                draws=row.get("draws", 0),
                losses=row.get("losses", 0),
                mean_rank=row.get("mean_rank") or 0.0,
                mean_score=row.get("mean_score") or 0.0,
            )
        )
    return arena_pb2.Leaderboard(
        game=board.get("game", ""),
        tournament_id=tournament_id,
        matches=board.get("matches", 0),
        rows=rows,
        warning=board.get("warning") or "",
        status=board.get("status") or "",
        players=board.get("players") or 0,
    )


STATES = {
    "queued": arena_pb2.TOURNAMENT_STATE_QUEUED,
    "running": arena_pb2.TOURNAMENT_STATE_RUNNING,
    "complete": arena_pb2.TOURNAMENT_STATE_COMPLETE,
    "cancelled": arena_pb2.TOURNAMENT_STATE_CANCELLED,
    "stopped": arena_pb2.TOURNAMENT_STATE_STOPPED,
}
FORMATS = {"round-robin": arena_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN, "gauntlet": arena_pb2.TOURNAMENT_FORMAT_GAUNTLET}
FORMAT_NAMES = {number: name for name, number in FORMATS.items()}
VERDICTS = {
    "timeout": arena_pb2.VERDICT_TIMEOUT,
    "crash": arena_pb2.VERDICT_CRASH,
    "stall": arena_pb2.VERDICT_STALL,
    "illegal": arena_pb2.VERDICT_ILLEGAL,
    "malformed": arena_pb2.VERDICT_MALFORMED,
    "protocol": arena_pb2.VERDICT_PROTOCOL,
    "cancelled": arena_pb2.VERDICT_CANCELLED,
}


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def tournament(info: dict[str, Any]) -> arena_pb2.Tournament:
    spec = info["spec"]
    created = float(info.get("created", 0.0))
    return arena_pb2.Tournament(
        id=info["id"],
        owner=info.get("owner", ""),
        game=spec["game"],
        status=info["status"],
        state=STATES.get(info["status"], arena_pb2.TOURNAMENT_STATE_UNSPECIFIED),
        done=info["done"],
        total=info["total"],
        bots=spec["bots"],
        format=spec["format"],
        format_type=FORMATS.get(spec["format"], arena_pb2.TOURNAMENT_FORMAT_UNSPECIFIED),
        players=spec["players"],
        repeats=spec["repeats"],
        created=created,
        create_time=timestamp(created),
        deals=spec.get("deals", "duplicate"),
        unrated=not spec.get("rated", True),
    )


def failure(tournament_id: str, match_id: str, decision: int, verdict: str, detail: str) -> arena_pb2.BotFailure:
    return arena_pb2.BotFailure(
        tournament_id=tournament_id,
        match_id=f"{tournament_id}:{match_id}",
        decision=decision,
        verdict=verdict,
        verdict_type=VERDICTS.get(verdict, arena_pb2.VERDICT_UNSPECIFIED),
        detail=detail,
    )


def match_summary(
    tournament_id: str, record: MatchRecord, mine: Callable[[int], bool] | None = None
) -> arena_pb2.MatchSummary:
    """A match's summary; with ``mine`` (while its tournament runs, for an owner) failures and
    forfeits are shown only for the seats ``mine`` accepts: another owner's are private."""
    result = record.result
    shown = mine or (lambda seat: True)
    return arena_pb2.MatchSummary(
        id=f"{tournament_id}:{record.match_id}",
        index=int(record.tournament.get("index", 0)),
        seats=[
            arena_pb2.SeatSummary(
                seat=s,
                bot=record.seats[s]["bot"],
                score=float(result["scores"][s]),
                rank=int(result["ranks"][s]),
                forfeited=bool(result["forfeited"][s]) and shown(s),
            )
            for s in range(len(record.seats))
        ],
        decisions=len(record.decisions),
        failures=sum(1 for f in record.failures if shown(f.seat)),
    )


def events(state_events: list[Any], viewer: int) -> list[bot_pb2.Event]:
    """Events of a finished match's log that ``viewer`` may see (SPECTATOR: all of them),
    numbered among themselves as a seat's are (``arena.protocol.EventCursor``)."""
    return [event_message(i, e) for i, e in enumerate(e for e in state_events if e.visible_to(viewer))]


def bot(data: dict[str, Any], name: str, *, show_endpoint: bool) -> arena_pb2.Bot:
    return arena_pb2.Bot(
        name=name,
        owner=data["owner"],
        games=list(dict.fromkeys(data["games"])),  # once each (registrations once kept repeats)
        endpoint=data["endpoint"] if show_endpoint else "",
        enabled=data["enabled"],
        created=data["created"],
        create_time=timestamp(data["created"]),
        max_matches=data.get("max_matches", 0),
        endpoint_keyed=bool(data.get("endpoint_key")),  # the key itself is never shown
    )
