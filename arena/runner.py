"""The match runner: plays one match between players and produces its record.

A player receives exactly what a remote bot receives (``MatchStart``, ``DecisionRequest``,
``Finish`` from ``arena.v1.bot_pb2``) and answers with an option id. In-process bots, remote
gRPC bots and test doubles are all :class:`Player` objects; the runner treats them alike.

Failures are verdicts, never crashes of the runner: a player raises :class:`PlayerFailure`
(``timeout``, ``crash``, ``stall``, ``malformed``, ``protocol``), answers an id that is not an
option (``illegal``) or raises anything else (``crash``). The :class:`ErrorPolicy` decides:

* ``forfeit``: the seat is ranked last; its remaining decisions are played by a substitute so
  the others finish the match as the rules allow;
* ``substitute``: a random legal option is played for the failed decision and the match goes
  on; after ``budget`` errors the seat forfeits.

A seat that fails at start-up (no ready, wrong versions) forfeits under either policy: it
cannot take part at all. Substitute choices come from their own seeded RNG, so the game's
chance is never disturbed and a record replays exactly.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from arena import PROTOCOL_VERSION
from arena.chance import Chance, derive_seed
from arena.config import MatchConfig
from arena.engine import Decision, Game, MatchState
from arena.protocol import EventCursor, decision_request, result_message, start_message
from arena.record import DecisionEntry, FailureEntry, MatchRecord, with_forfeits
from arena.v1 import bot_pb2

Verdict = Literal["timeout", "crash", "stall", "illegal", "malformed", "protocol"]
VERDICTS: tuple[str, ...] = ("timeout", "crash", "stall", "illegal", "malformed", "protocol")


class PlayerFailure(Exception):
    """A player failed in a named way (raised by players; recorded by the runner)."""

    def __init__(self, verdict: str, detail: str) -> None:
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}")
        super().__init__(f"{verdict}: {detail}")
        self.verdict = verdict
        self.detail = detail


class Player(Protocol):
    """Anything that can take a seat: the three calls a remote bot receives."""

    name: str

    def start(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready | None: ...

    def decide(self, request: bot_pb2.DecisionRequest) -> str: ...

    def finish(self, message: bot_pb2.Finish) -> None: ...


class FunctionPlayer:
    """A player from a plain function ``request -> option id``."""

    def __init__(self, decide: Callable[[bot_pb2.DecisionRequest], str], name: str = "function") -> None:
        self._decide = decide
        self.name = name

    def start(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready | None:
        return None

    def decide(self, request: bot_pb2.DecisionRequest) -> str:
        return self._decide(request)

    def finish(self, message: bot_pb2.Finish) -> None:
        return None


@dataclass(frozen=True)
class ErrorPolicy:
    on_error: Literal["forfeit", "substitute"] = "forfeit"
    budget: int = 3
    """Errors a seat may make under ``substitute`` before it forfeits."""

    def __post_init__(self) -> None:
        if self.on_error not in ("forfeit", "substitute"):
            raise ValueError(f"on_error must be forfeit or substitute, not {self.on_error!r}")
        if self.budget < 0:
            raise ValueError("budget must be >= 0")

    def to_json(self) -> dict[str, object]:
        return {"on_error": self.on_error, "budget": self.budget}


def check_ready(game: Game, ready: bot_pb2.Ready | None) -> None:
    """Version negotiation: raise a ``protocol`` failure on any mismatch."""
    if ready is None:
        return
    theirs = ready.protocol_version
    if theirs and theirs.split(".")[0] != PROTOCOL_VERSION.split(".")[0]:
        raise PlayerFailure("protocol", f"protocol version {theirs} (referee speaks {PROTOCOL_VERSION})")
    if ready.game_id and ready.game_id != game.meta.id:
        raise PlayerFailure("protocol", f"bot plays {ready.game_id!r}, match is {game.meta.id!r}")
    if ready.game_version and ready.game_version != game.meta.version:
        raise PlayerFailure(
            "protocol",
            f"bot expects {game.meta.id} version {ready.game_version}, referee runs {game.meta.version}",
        )


class _Seats:
    """Per-seat bookkeeping of a running match: failures, errors, forfeits."""

    def __init__(self, players: int, policy: ErrorPolicy) -> None:
        self.policy = policy
        self.errors = [0] * players
        self.forfeited = [False] * players
        self.failures: list[FailureEntry] = []

    def fail(self, seat: int, decision: int, verdict: str, detail: str, *, fatal: bool = False) -> None:
        self.failures.append(FailureEntry(seat, decision, verdict, detail[:500]))
        self.errors[seat] += 1
        if fatal or self.policy.on_error == "forfeit" or self.errors[seat] > self.policy.budget:
            self.forfeited[seat] = True


def play_match(
    game: Game,
    config: MatchConfig,
    seed: int,
    players: Sequence[Player],
    *,
    match_id: str | None = None,
    policy: ErrorPolicy = ErrorPolicy(),
    clock: bot_pb2.ClockSettings | None = None,
    chance: Chance | None = None,
    on_decision: Callable[[MatchState, DecisionEntry], None] | None = None,
) -> MatchRecord:
    """Play a match to the end and return its record (players are never left open)."""
    if len(players) != config.players:
        raise ValueError(f"{config.players} players configured, {len(players)} given")
    match_id = match_id or f"{game.meta.id}-{seed}"
    names = [p.name for p in players]
    seats = _Seats(config.players, policy)
    record = MatchRecord(
        match_id=match_id,
        game=game.meta.id,
        game_version=game.meta.version,
        config=config.to_json(),
        seed=seed,
        seats=[{"bot": p.name, "version": getattr(p, "version", "")} for p in players],
        policy=policy.to_json(),
    )
    substitute_rng = Chance(derive_seed(seed, "substitute"))
    order_rng = Chance(derive_seed(seed, "order"))
    state = game.new_match(config, seed, chance)
    cursor = EventCursor(config.players)

    for seat, player in enumerate(players):
        start = start_message(
            game,
            config,
            match_id=match_id,
            seat=seat,
            seat_names=names,
            clock=clock,
            bot_seed=derive_seed(seed, "bot", seat),
        )
        try:
            check_ready(game, player.start(start))
        except PlayerFailure as failure:
            seats.fail(seat, -1, failure.verdict, failure.detail, fatal=True)
        except Exception as exc:
            seats.fail(seat, -1, "crash", f"{type(exc).__name__}: {exc}", fatal=True)

    while state.pending:
        pending = state.pending
        simultaneous = len(pending) > 1
        choices: dict[int, str] = {}
        entries: dict[int, DecisionEntry] = {}
        # Sealed simultaneous decisions are asked in shuffled order; no choice is applied (or
        # visible) before all are in.
        asked = order_rng.shuffled(pending, "order") if simultaneous else list(pending)
        # Record entries are in seat order within a step; their index is the decision index.
        by_seat = sorted(d.seat for d in pending)
        for decision in pending:
            entries[decision.seat] = DecisionEntry(
                state.steps, decision.seat, decision.kind, len(decision.options), ""
            )
        for decision in asked:
            index = len(record.decisions) + by_seat.index(decision.seat)
            choice, ms, by = _ask(
                game,
                state,
                decision,
                players[decision.seat],
                index,
                cursor,
                seats,
                simultaneous,
                substitute_rng,
            )
            choices[decision.seat] = choice
            entry = entries[decision.seat]
            entry.choice, entry.ms, entry.by = choice, ms, by
        game.apply(state, choices)
        for seat in sorted(entries):
            record.decisions.append(entries[seat])
            if on_decision is not None:
                on_decision(state, entries[seat])

    result = game.result(state)
    assert result is not None
    result = with_forfeits(result, seats.forfeited)
    record.failures = seats.failures
    record.result = {**result.to_json(), "forfeited": seats.forfeited}
    summary = result_message(result, seats.forfeited)
    for seat, player in enumerate(players):
        # A bot failing after the end changes nothing.
        with contextlib.suppress(Exception):
            player.finish(bot_pb2.Finish(result=summary, events=cursor.take(state, seat)))
    return record


def _ask(
    game: Game,
    state: MatchState,
    decision: Decision,
    player: Player,
    index: int,
    cursor: EventCursor,
    seats: _Seats,
    simultaneous: bool,
    substitute_rng: Chance,
) -> tuple[str, float, str]:
    """One decision from one player: (choice, milliseconds, "bot" | "substitute")."""
    seat = decision.seat
    events = cursor.take(state, seat)
    if seats.forfeited[seat]:
        return substitute_rng.pick(decision.options, "substitute").id, 0.0, "substitute"
    request = decision_request(game, state, decision, index=index, events=events, simultaneous=simultaneous)
    began = time.perf_counter()
    try:
        answer = player.decide(request)
    except PlayerFailure as failure:
        verdict, detail = failure.verdict, failure.detail
    except Exception as exc:
        verdict, detail = "crash", f"{type(exc).__name__}: {exc}"
    else:
        ms = round((time.perf_counter() - began) * 1000, 3)
        if isinstance(answer, str) and decision.find(answer) is not None:
            return answer, ms, "bot"
        verdict, detail = "illegal", f"answered {answer!r}, not among {len(decision.options)} options"
    ms = round((time.perf_counter() - began) * 1000, 3)
    seats.fail(seat, index, verdict, detail)
    return substitute_rng.pick(decision.options, "substitute").id, ms, "substitute"
