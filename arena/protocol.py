"""Building the bot-facing envelope (``arena.v1.bot_pb2``) from engine values.

One place turns options, events, observations and results into the messages a bot receives,
so an in-process player and a remote bot see exactly the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from google.protobuf import any_pb2
from google.protobuf.message import Message

from arena import PROTOCOL_VERSION
from arena.config import MatchConfig
from arena.engine import Decision, Event, Game, MatchState, Option, Result
from arena.v1 import bot_pb2


def pack(message: Message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def option_message(option: Option) -> bot_pb2.Option:
    return bot_pb2.Option(id=option.id, label=option.label, action=pack(option.action))


def event_message(index: int, event: Event) -> bot_pb2.Event:
    message = bot_pb2.Event(index=index, seat=event.seat, kind=event.kind, text=event.text)
    if event.detail is not None:
        message.detail.Pack(event.detail)
    return message


def option_text(value: object) -> str:
    """Option values as text (booleans lower-case, as accepted by the CLI)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def start_message(
    game: Game,
    config: MatchConfig,
    *,
    match_id: str,
    seat: int,
    seat_names: Sequence[str],
    clock: bot_pb2.ClockSettings | None = None,
    bot_seed: int = 0,
) -> bot_pb2.MatchStart:
    return bot_pb2.MatchStart(
        protocol_version=PROTOCOL_VERSION,
        match_id=match_id,
        game_id=game.meta.id,
        game_version=game.meta.version,
        seat=seat,
        players=config.players,
        options={k: option_text(v) for k, v in sorted(config.options.items())},
        seat_names=list(seat_names),
        clock=clock,
        bot_seed=bot_seed,
    )


class EventCursor:
    """Per-seat position in the event log: each request carries only the new events."""

    def __init__(self, players: int) -> None:
        self._next = [0] * players
        self._built: list[bot_pb2.Event] = []  # events are immutable: build each message once

    def take(self, state: MatchState, seat: int) -> list[bot_pb2.Event]:
        start = self._next[seat]
        self._next[seat] = len(state.log)
        built = self._built
        for i in range(len(built), len(state.log)):
            built.append(event_message(i, state.log.events[i]))
        return [built[i] for i, _ in state.log.since(seat, start)]


def decision_request(
    game: Game,
    state: MatchState,
    decision: Decision,
    *,
    index: int,
    events: Sequence[bot_pb2.Event],
    simultaneous: bool,
    clock: bot_pb2.ClockState | None = None,
) -> bot_pb2.DecisionRequest:
    return bot_pb2.DecisionRequest(
        decision_index=index,
        seat=decision.seat,
        kind=decision.kind,
        observation=pack(game.observe(state, decision.seat)),
        events=events,
        options=[option_message(o) for o in decision.options],
        clock=clock,
        simultaneous=simultaneous,
    )


def result_message(result: Result, forfeited: Mapping[int, bool] | Sequence[bool]) -> bot_pb2.MatchResult:
    flags = [bool(forfeited[i]) for i in range(len(result.scores))]
    return bot_pb2.MatchResult(
        seats=[
            bot_pb2.SeatResult(seat=s, score=result.scores[s], rank=result.ranks[s], forfeited=flags[s])
            for s in range(len(result.scores))
        ],
        summary=result.summary,
    )
