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

import asyncio
import contextlib
import functools
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, Protocol, TypeVar

from arena import PROTOCOL_VERSION
from arena.chance import Chance, derive_seed
from arena.clock import clock_settings
from arena.config import MatchConfig
from arena.engine import Decision, Game, MatchState, Option, Worlds
from arena.printable import printable
from arena.protocol import (
    EventCursor,
    LazyFinish,
    LazyRequest,
    LazyStart,
    OptionViews,
    WireOptions,
    WireRequest,
    ask_lazily,
    decision_request,
    result_message,
    start_from,
    start_message,
)
from arena.record import DecisionEntry, FailureEntry, MatchRecord, StrikeEntry, with_forfeits
from arena.v1 import bot_pb2

T = TypeVar("T")

VERDICTS: tuple[str, ...] = ("timeout", "crash", "stall", "illegal", "malformed", "protocol")

MATCH_BOUND = "its bound of {seconds:g} s"
"""How a timeout past ``match_seconds`` names the bound, by default (``{seconds}`` filled in)."""

CANCEL_POLL_SECONDS = 0.5
"""How often a running match asks its cancel hook (a cancelled match ends within about this)."""
VERSION_CHARS = 100
"""Characters of a bot's ``Ready.bot_version`` a record keeps."""
ANSWER_CHARS = 100
"""Characters of an illegal answer its verdict's detail quotes."""
DETAIL_CHARS = 500
"""Characters of a verdict's detail a record keeps (its length noted beyond)."""

Cancelled = Callable[[], bool]
"""A cancel hook: True once the match should stop (its tournament was cancelled). Called from a
worker thread while the match waits on its players, so it may block briefly (a Redis read);
an exception counts as False (a store blip must not stop a match)."""


class MatchCancelled(Exception):
    """The match was stopped by its cancel hook: it has no result and no record."""


class PlayerFailure(Exception):
    """A player failed in a named way (raised by players; recorded by the runner)."""

    def __init__(self, verdict: str, detail: str) -> None:
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}")
        super().__init__(f"{verdict}: {detail}")
        self.verdict = verdict
        self.detail = detail


class Player(Protocol):
    """Anything that can take a seat: the three calls a remote bot receives. A player that may
    stop being able to answer (a remote bot's stream gone) says so with a true ``gone`` after
    its failure: its seat forfeits there, that failure recorded once."""

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
    if not theirs:
        # Required: without it the referee cannot know the bot reads this protocol at all.
        raise PlayerFailure("protocol", f"ready has no protocol_version (the referee speaks {PROTOCOL_VERSION})")
    if theirs.split(".")[0] != PROTOCOL_VERSION.split(".")[0]:
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

    def __init__(
        self, players: Sequence[Player], policy: ErrorPolicy, on_failure: Callable[[FailureEntry], None] | None = None
    ) -> None:
        self.players = players
        self.policy = policy
        self.on_failure = on_failure
        self.errors = [0] * len(players)
        self.forfeited = [False] * len(players)
        self.failures: list[FailureEntry] = []

    async def fail(self, seat: int, decision: int, verdict: str, detail: str, *, fatal: bool = False) -> None:
        entry = FailureEntry(seat, decision, verdict, printable(detail, DETAIL_CHARS))  # its length noted
        self.errors[seat] += 1
        by_policy = fatal or self.policy.on_error == "forfeit" or self.errors[seat] > self.policy.budget
        # A player that can never answer again (a remote bot's stream gone) forfeits here: asked
        # on, every later decision was this failure once more, budget + 1 entries for one end
        # (an outside probe). The record says so where its policy alone would not.
        entry.forfeits = not by_policy and getattr(self.players[seat], "gone", False)
        self.failures.append(entry)
        if self.on_failure is not None:  # heard as it happens, before the seat is told
            self.on_failure(entry)
        if by_policy or entry.forfeits:
            self.forfeited[seat] = True
            # Tell the bot (a remote one closes its stream); a failing abort changes nothing.
            with contextlib.suppress(Exception):
                await _call(self.players[seat], "abort", verdict, f"seat {seat} forfeits: {verdict}: {detail}"[:500])


async def _call(player: object, name: str, *args: object) -> Any:
    """Call a player hook: its ``<name>_async`` coroutine if it has one, else the plain method
    (absent optional hooks do nothing)."""
    native = getattr(player, f"{name}_async", None)
    if native is not None:
        return await native(*args)
    method = getattr(player, name, None)
    return method(*args) if method is not None else None


async def _quietly(player: object, name: str, *args: object) -> None:
    """:func:`_call` for a hook whose failure changes nothing (a goodbye, a close)."""
    with contextlib.suppress(Exception):
        await _call(player, name, *args)


async def _together(calls: list[Coroutine[Any, Any, None]]) -> None:
    """Await hooks of several players all at once: a remote player's goodbye or close may wait
    on its bot (a bot that does not end its side), and one seat after another those waits added
    up (an outside probe: +1 s a seat). One by one when driven without a loop (in-process
    players answer at once)."""
    if len(calls) > 1:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            await asyncio.gather(*calls)
            return
    for call in calls:
        await call


def _call_now(player: object, name: str, *args: object) -> Any:
    """:func:`_call` for a player without ``<name>_async`` hooks: no coroutine."""
    method = getattr(player, name, None)
    return method(*args) if method is not None else None


@dataclass(frozen=True, slots=True)
class _Capabilities:
    """What a player can do, as the runner asks it."""

    two_phase: bool  # begin_decide/end_decide (a remote bot)
    wire: bool  # two-phase, and takes its requests as WireRequest (bytes)
    lazy: bool  # takes requests built as they are read
    search: bool  # decide_worlds
    strike: bool  # last_strike_ms
    sync: bool  # no <hook>_async: every hook is a plain call

    @classmethod
    def of(cls, obj: object) -> _Capabilities:
        two_phase = hasattr(obj, "begin_decide") or hasattr(obj, "begin_decide_async")
        return cls(
            two_phase=two_phase,
            wire=two_phase and bool(getattr(obj, "wire_requests", False)),
            lazy=not two_phase and bool(getattr(obj, "lazy_requests", False)),
            search=hasattr(obj, "decide_worlds"),
            strike=hasattr(obj, "last_strike_ms"),
            sync=not any(hasattr(obj, f"{hook}_async") for hook in _HOOKS),
        )


_HOOKS = ("start", "begin_decide", "end_decide", "decide", "finish", "abort", "close")
_CAPABILITY_NAMES = frozenset(
    {
        "begin_decide",
        "lazy_requests",
        "wire_requests",
        "decide_worlds",
        "last_strike_ms",
        *(f"{h}_async" for h in _HOOKS),
    }
)
_CLASS_CAPABILITIES: dict[type, _Capabilities] = {}


def _capabilities(player: object) -> _Capabilities:
    """A player's capabilities: its class's, looked up once per class, unless the instance
    itself holds one of the names (or has no ``__dict__`` to tell), or its class forwards names
    it lacks (``__getattr__``: a wrapper around another player): then its own."""
    cls = type(player)
    own = getattr(player, "__dict__", None)
    caps = _CLASS_CAPABILITIES.get(cls)  # kept only for classes without __slots__ or __getattr__
    if caps is not None and own is not None and _CAPABILITY_NAMES.isdisjoint(own):
        return caps
    if own is None or not _CAPABILITY_NAMES.isdisjoint(own) or hasattr(cls, "__slots__") or hasattr(cls, "__getattr__"):
        return _Capabilities.of(player)
    caps = _CLASS_CAPABILITIES[cls] = _Capabilities.of(cls)
    return caps


@dataclass(slots=True)
class _Asked:
    """A decision put to a player: answered already (in-process) or awaiting its answer (remote)."""

    decision: Decision
    index: int
    request: bot_pb2.DecisionRequest | WireRequest | None  # kept for a two-phase (remote) player only
    began: float
    forfeited: bool = False  # not asked: its seat forfeited, a substitute plays
    answer: str | None = None
    failure: tuple[str, str] | None = None
    two_phase: bool = False
    ms: float | None = None  # the player's time, taken when it answered (not when collected)


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
    on_failure: Callable[[FailureEntry], None] | None = None,
    cancelled: Cancelled | None = None,
    match_seconds: float | None = None,
    match_bound: str = MATCH_BOUND,
    names: Sequence[str] | None = None,
) -> MatchRecord:
    """Play a match to the end and return its record (players are always closed). ``names``:
    what the seats are called (:func:`play_match_async`).

    The match loop is a coroutine. With in-process players only it never suspends and is driven
    right here; when a player lives on an event loop (a remote bot: it has ``runs_on``), the
    whole match runs on that loop, so a decision costs no thread hop.

    ``cancelled`` is polled every :data:`CANCEL_POLL_SECONDS` while the match runs, also while
    it waits on a player; once it says True every player is told (abort, verdict ``cancelled``)
    and :class:`MatchCancelled` is raised.

    ``match_seconds`` bounds how long the match may wait on players that live on an event loop
    (remote bots), counted from the start: past it, every such seat still asked gets a
    ``timeout`` at once (detail: "the match ran past " + ``match_bound`` with ``{seconds}``
    filled in), so the match ends, played out by substitutes. In-process players answer
    synchronously and are not bounded.
    """
    match = play_match_async(
        game,
        config,
        seed,
        players,
        match_id=match_id,
        policy=policy,
        clock=clock,
        chance=chance,
        on_decision=on_decision,
        on_failure=on_failure,
        cancelled=cancelled,
        match_seconds=match_seconds,
        match_bound=match_bound,
        names=names,
    )
    return run_match(match, players)


def run_match(match: Coroutine[Any, Any, T], players: Sequence[Player]) -> T:
    """Run a match's coroutine to its end where its players live: on the event loop of a player
    that has one (``runs_on``: a remote bot), else right here (every player answers at once)."""
    runs_on = next((p.runs_on for p in players if hasattr(p, "runs_on")), None)
    return runs_on(match) if runs_on is not None else _drive(match)


@functools.cache
def _default_clock() -> bot_pb2.ClockSettings:
    """The default clock settings (one message for every match: read, never changed)."""
    return clock_settings()


_START_TEMPLATES: dict[tuple[object, ...], bot_pb2.MatchStart] = {}


def _start_template(
    game: Game, config: MatchConfig, names: list[str], clock: bot_pb2.ClockSettings
) -> bot_pb2.MatchStart:
    """A ``MatchStart`` without its match id, seat and seed, kept for matches alike (a
    tournament's are): read only, copied per seat."""
    key = (game, game.meta.version, config.players, tuple(sorted(config.options.items())), *names)
    # The default clock is one message, never changed: no need to serialise it for the key.
    key += (None if clock is _default_clock() else clock.SerializeToString(deterministic=True),)
    template = _START_TEMPLATES.get(key)
    if template is None:
        if len(_START_TEMPLATES) >= 256:
            _START_TEMPLATES.clear()
        template = _START_TEMPLATES[key] = start_message(
            game, config, match_id="", seat=0, seat_names=names, clock=clock
        )
    return template


def _drive(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends (every player answers synchronously)."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError("a player suspended the match without an event loop (give it runs_on)")


async def play_match_async(
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
    on_failure: Callable[[FailureEntry], None] | None = None,
    cancelled: Cancelled | None = None,
    match_seconds: float | None = None,
    match_bound: str = MATCH_BOUND,
    names: Sequence[str] | None = None,
) -> MatchRecord:
    """The match as a coroutine (for many concurrent matches on one event loop). ``names``:
    what the seats are called in every start message and in the record (default: the players'
    own names). ``on_failure`` hears each failure as it is recorded (its decision index, -1 at
    the start), before its seat is told of a forfeit and before any move is played for it."""
    if len(players) != config.players:
        raise ValueError(f"{config.players} players configured, {len(players)} given")
    if names is not None and len(names) != len(players):
        raise ValueError(f"{len(players)} players, {len(names)} names")
    if match_seconds is not None and not match_seconds > 0:
        raise ValueError(f"match_seconds must be > 0, not {match_seconds!r}")
    match = _Match(game, config, seed, players, match_id, policy, clock, chance, on_decision, names, on_failure)
    if match_seconds is not None:
        detail = "the match ran past " + match_bound.format(seconds=match_seconds)
        match.bound = (time.monotonic() + match_seconds, detail)
    try:
        if cancelled is None:
            return await match.play()
        return await _cancellable(match, cancelled)
    except asyncio.CancelledError:  # cancelled from outside (Ctrl-C while the match runs)
        await match.abort_all("the match was cancelled")
        raise
    finally:
        closes = []
        for player, sync in zip(players, match.sync, strict=True):
            if sync:
                with contextlib.suppress(Exception):  # closing a player that fails changes nothing
                    _call_now(player, "close")
            else:
                closes.append(_quietly(player, "close"))
        await _together(closes)


def _ms_since(began: float) -> float:
    """Milliseconds since ``began`` (a ``perf_counter`` reading), to the microsecond."""
    return round((time.perf_counter() - began) * 1_000_000) / 1000


def _failure_of(exc: Exception) -> tuple[str, str]:
    """A player's exception as a (verdict, detail): its own verdict, or a crash."""
    if isinstance(exc, PlayerFailure):
        return exc.verdict, exc.detail
    return "crash", f"{type(exc).__name__}: {exc}"


def _ask(cancelled: Cancelled) -> bool:
    try:
        return bool(cancelled())
    except Exception:  # a store blip: go on, ask again later
        return False


async def _cancellable(match: _Match, cancelled: Cancelled) -> MatchRecord:
    """Play the match while a watcher polls the cancel hook; on cancel, stop it wherever it waits."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # driven without a loop (in-process players): checked between steps
        match.cancelled = cancelled
        return await match.play()
    task = loop.create_task(match.play())
    hit = False

    async def watch() -> None:
        nonlocal hit
        while not task.done():
            await asyncio.sleep(CANCEL_POLL_SECONDS)
            if await loop.run_in_executor(None, _ask, cancelled):
                hit = True
                task.cancel()
                return

    watcher = loop.create_task(watch())
    try:
        return await task  # cancelling this coroutine cancels the task too
    except asyncio.CancelledError:
        if not hit:
            raise
        await match.abort_all("the tournament was cancelled")
        raise MatchCancelled(match.match_id) from None
    finally:
        watcher.cancel()


class _Match:
    def __init__(
        self,
        game: Game,
        config: MatchConfig,
        seed: int,
        players: Sequence[Player],
        match_id: str | None,
        policy: ErrorPolicy,
        clock: bot_pb2.ClockSettings | None,
        chance: Chance | None,
        on_decision: Callable[[MatchState, DecisionEntry], None] | None,
        names: Sequence[str] | None = None,
        on_failure: Callable[[FailureEntry], None] | None = None,
    ) -> None:
        self.game = game
        self.config = config
        self.seed = seed
        self.players = players
        # Not the seed itself: the id reaches every bot at its start (a remote bot read the seed
        # from it and computed every deal).
        self.match_id = match_id or f"{game.meta.id}-{derive_seed(seed, 'match-id') % 16**8:08x}"
        self.clock = clock if clock is not None else _default_clock()
        # What every seat is told the seats are called, and the record's names: the players' own
        # unless given (a tournament names its entrants; a player's name may be its address).
        self.names = list(names) if names is not None else [p.name for p in players]
        self.seats = _Seats(players, policy, on_failure)
        self.on_decision = on_decision
        self.record = MatchRecord(
            match_id=self.match_id,
            game=game.meta.id,
            game_version=game.meta.version,
            config=config.to_json(),
            seed=seed,
            seats=[{"bot": n, "version": getattr(p, "version", "")} for n, p in zip(self.names, players, strict=True)],
            policy=policy.to_json(),
        )
        self.state = game.new_match(config, seed, chance)
        self.cursor = EventCursor(config.players)
        # What each seat's player can do, looked up once (not on every decision).
        self.two_phase: list[bool] = []
        self.wire: list[bool] = []
        self.lazy: list[bool] = []
        self.searches: list[bool] = []
        self.strikes: list[bool] = []
        # The common in-process seat: lazy requests, a plain decide (no worlds, no strikes).
        self.decides: list[Callable[[Any], str] | None] = []
        self.sync: list[bool] = []  # no <hook>_async: hooks are plain calls, no coroutine
        self.remote: list[tuple[Callable[[Any], Any], Callable[[Any], Any]] | None] = []
        for p in players:
            caps = _capabilities(p)
            self.two_phase.append(caps.two_phase)
            self.wire.append(caps.wire)
            self.lazy.append(caps.lazy)
            self.searches.append(caps.search)
            self.strikes.append(caps.strike)
            self.sync.append(caps.sync)
            self.decides.append(p.decide if caps.lazy and not caps.search and not caps.strike else None)
            # A remote bot (wire requests, native two-phase hooks): asked by step itself.
            begin = getattr(p, "begin_decide_async", None) if caps.wire else None
            end = getattr(p, "end_decide_async", None) if caps.wire else None
            self.remote.append((begin, end) if begin is not None and end is not None else None)
        self.cancelled: Cancelled | None = None  # polled between steps when there is no event loop
        self.bound: tuple[float, str] | None = None  # (monotonic deadline, timeout detail)

    async def call(self, seat: int, name: str, *args: object) -> Any:
        """A player hook, within the match's bound when it has one and the player waits on a
        loop (its ``<name>_async``): past the deadline the wait ends with a ``timeout``."""
        player = self.players[seat]
        if self.bound is None or getattr(player, f"{name}_async", None) is None:
            return await _call(player, name, *args)
        deadline, detail = self.bound
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise PlayerFailure("timeout", detail)
        try:
            async with asyncio.timeout(remaining):
                return await _call(player, name, *args)
        except TimeoutError:
            raise PlayerFailure("timeout", detail) from None

    @cached_property
    def substitute_rng(self) -> Chance:
        # Made on first use: most matches never substitute (seeding costs as much as a move).
        return Chance(derive_seed(self.seed, "substitute"))

    @cached_property
    def wire_options(self) -> WireOptions:
        return WireOptions()

    @cached_property
    def order_rng(self) -> Chance:
        return Chance(derive_seed(self.seed, "order"))

    async def play(self) -> MatchRecord:
        began = checked = time.perf_counter()
        await self.start_players()
        # The common decision, one in-process player with lazy requests answering a legal
        # option, is played right here (no coroutine, no indirection per decision); anything
        # else (sealed simultaneous decisions, remote or searching players, verdicts) goes
        # through step/settle. The requests and the record are the same either way.
        game, state, take_events = self.game, self.state, self.cursor.take_lazy
        decides, forfeited = self.decides, self.seats.forfeited
        entries = self.record.decisions
        cancelled = self.cancelled
        clock, refcount = time.perf_counter, sys.getrefcount
        views = OptionViews()  # the options' views, made once per option object
        while pending := state.pending:
            if cancelled is not None and clock() - checked >= CANCEL_POLL_SECONDS:
                if _ask(cancelled):
                    await self.abort_all("the tournament was cancelled")
                    raise MatchCancelled(self.match_id)
                checked = clock()
            if len(pending) != 1 or (plain := decides[(decision := pending[0]).seat]) is None:
                await self.step()
                continue
            seat = decision.seat
            if forfeited[seat]:
                await self.step()
                continue
            index = len(entries)
            request = LazyRequest(game, state, decision, index, take_events(state, seat), False, views)
            began_decision = clock()
            try:
                answer = plain(request)
                ms = round((clock() - began_decision) * 1_000_000) / 1000
                # Held by anyone but this frame (and getrefcount's argument): the player kept
                # it, so what depends on the state is built before the state moves on.
                if refcount(request) > 2:
                    request.seal()
            except Exception as exc:  # a verdict: settle records it
                asked = _Asked(decision, index, None, began_decision)
                asked.failure = _failure_of(exc)
                if refcount(request) > 2:
                    with contextlib.suppress(Exception):
                        request.seal()
                await self.settle(asked)
                continue
            option = decision.find(answer) if isinstance(answer, str) else None
            if option is None:  # not an option: settle gives the verdict
                await self.settle(_Asked(decision, index, None, began_decision, answer=answer))
                continue
            self.advance(decision, option, ms)
        record = await self.finish()
        record.ms = _ms_since(began)
        return record

    async def abort_all(self, reason: str) -> None:
        """Tell every seat still playing that the match ends without a result (all at once:
        each goodbye may wait up to a remote player's linger)."""
        seats = [seat for seat in range(len(self.players)) if not self.seats.forfeited[seat]]
        await _together([_quietly(self.players[seat], "abort", "cancelled", reason) for seat in seats])

    async def start_players(self) -> None:
        # The start messages differ only in the match id, the seat and its seed: the rest is
        # built once for matches alike, copied per seat.
        template = _start_template(self.game, self.config, self.names, self.clock)
        for seat in range(len(self.players)):
            bot_seed = derive_seed(self.seed, "bot", seat)
            start: bot_pb2.MatchStart | LazyStart = (
                LazyStart(template, self.match_id, seat, bot_seed)  # built as the player reads it
                if self.lazy[seat]
                else start_from(template, self.match_id, seat, bot_seed)
            )
            try:
                if self.sync[seat]:
                    ready = _call_now(self.players[seat], "start", start)
                else:
                    ready = await self.call(seat, "start", start)
                check_ready(self.game, ready)
                if ready is not None and ready.bot_version:
                    # The bot's own words, in a record other owners read: printable and short.
                    self.record.seats[seat]["version"] = printable(ready.bot_version, VERSION_CHARS)
            except PlayerFailure as failure:
                await self.seats.fail(seat, -1, failure.verdict, failure.detail, fatal=True)
            except Exception as exc:  # any bot exception is a crash verdict
                await self.seats.fail(seat, -1, "crash", f"{type(exc).__name__}: {exc}", fatal=True)

    async def step(self) -> None:
        """One step of the general path (see :meth:`play` for the common one)."""
        state = self.state
        pending = state.pending
        first = len(self.record.decisions)
        if len(pending) == 1:  # one seat decides
            decision = pending[0]
            seat = decision.seat
            if (remote := self.remote[seat]) is not None and self.bound is None and not self.seats.forfeited[seat]:
                option, asked, began = await self.ask_remote(remote, decision, first)
                if option is not None:  # answered a legal option: nothing to wait for or record
                    # The time the bot's clock was charged, as a simultaneous step records it
                    # (not the referee's time around the write and the checks).
                    charged = self.charged_ms(seat)
                    self.advance(decision, option, charged if charged is not None else _ms_since(began))
                    return
                assert asked is not None
            elif self.two_phase[seat]:
                asked = await self.ask(decision, first, False)
            else:
                asked = self.ask_now(decision, first, False)
            await self.settle(asked)
            return
        # Record entries are in seat order within a step; their index is the decision index.
        by_seat = sorted(d.seat for d in pending)
        # Sealed simultaneous decisions go out to every seat (in shuffled order) before any
        # answer is awaited, and no choice is applied before all are in.
        order = self.order_rng.shuffled(pending, "order")
        asked_all = [
            await self.ask(d, first + by_seat.index(d.seat), True)
            if self.two_phase[d.seat]
            else self.ask_now(d, first + by_seat.index(d.seat), True)
            for d in order
        ]
        entries = {}
        options: dict[int, Option] = {}
        for item in asked_all:
            d = item.decision
            if (
                item.failure is None
                and not item.forfeited
                and not item.two_phase
                and not self.strikes[d.seat]
                and isinstance(item.answer, str)
                and (option := d.find(item.answer)) is not None
            ):
                choice, ms, by = item.answer, item.ms if item.ms is not None else _ms_since(item.began), "bot"
            else:
                choice, ms, by = await self.answer(item)
                option = d.find(choice)
                assert option is not None  # the answer was checked, a substitute is legal
            options[d.seat] = option
            entries[d.seat] = DecisionEntry(self.state.steps, d.seat, d.kind, len(d.options), choice, ms, by)
        # Every choice is one of its decision's options (checked above): applied without
        # validating again, in the order apply would pass them (the pending decisions').
        self.game.advance(self.state, {d.seat: options[d.seat] for d in pending})
        for seat in by_seat:
            self.record.decisions.append(entries[seat])
            if self.on_decision is not None:
                self.on_decision(self.state, entries[seat])

    async def settle(self, asked: _Asked) -> None:
        """Play a single decision put to a player: its answer when it is a legal option, else
        the verdict and a substitute's choice."""
        decision = asked.decision
        seat = decision.seat
        answer = asked.answer
        if (
            asked.failure is None
            and not asked.forfeited
            and not self.strikes[seat]
            and isinstance(answer, str)
            and (option := decision.find(answer)) is not None
        ):  # an in-process player answered a legal option: nothing to wait for or record
            self.advance(decision, option, _ms_since(asked.began))
            return
        choice, ms, by = await self.answer(asked)
        option = decision.find(choice)
        assert option is not None  # the answer was checked, a substitute is legal
        self.advance(decision, option, ms, by)

    def advance(self, decision: Decision, option: Option, ms: float, by: str = "bot") -> None:
        """Apply a single decision's choice (one of its options: no validation again) and
        record it."""
        state = self.state
        entry = DecisionEntry(state.steps, decision.seat, decision.kind, len(decision.options), option.id, ms, by)
        self.game.advance(state, {decision.seat: option})
        self.record.decisions.append(entry)
        if self.on_decision is not None:
            self.on_decision(state, entry)

    async def ask(self, decision: Decision, index: int, simultaneous: bool) -> _Asked:
        if not self.two_phase[decision.seat]:
            return self.ask_now(decision, index, simultaneous)
        seat = decision.seat
        events = self.cursor.take_lazy(self.state, seat)
        if self.seats.forfeited[seat]:
            return _Asked(decision, index, None, time.perf_counter(), forfeited=True)
        request: bot_pb2.DecisionRequest | WireRequest
        if self.wire[seat]:  # a remote bot: the request as bytes, parts serialised once
            request = WireRequest(
                self.game,
                self.state,
                decision,
                index=index,
                events=events,
                simultaneous=simultaneous,
                options=self.wire_options,
            )
        else:
            request = decision_request(
                self.game, self.state, decision, index=index, events=events, simultaneous=simultaneous
            )
        asked = _Asked(decision, index, request, time.perf_counter(), two_phase=True)
        try:
            await self.call(seat, "begin_decide", request)
        except PlayerFailure as failure:
            asked.failure = (failure.verdict, failure.detail)
        except Exception as exc:  # any bot exception is a crash verdict
            asked.failure = ("crash", f"{type(exc).__name__}: {exc}")
        return asked

    async def ask_remote(
        self, hooks: tuple[Callable[[Any], Any], Callable[[Any], Any]], decision: Decision, index: int
    ) -> tuple[Option | None, _Asked | None, float]:
        """A remote bot's single decision, asked and awaited here (the same request, clock and
        verdicts as :meth:`ask` then :meth:`answer`, without their indirections): the option
        answered when it is legal, else what the general path records."""
        seat = decision.seat
        events = self.cursor.take_lazy(self.state, seat)
        request = WireRequest(
            self.game, self.state, decision, index=index, events=events, simultaneous=False, options=self.wire_options
        )
        began = time.perf_counter()
        begin, end = hooks
        try:
            await begin(request)
            answer = await end(request)
        except Exception as exc:  # a verdict (asking or awaiting): the general path records it
            asked = _Asked(decision, index, request, began, two_phase=True)
            asked.failure = _failure_of(exc)
            asked.ms = self.charged_ms(seat)
            return None, asked, began
        option = decision.find(answer) if isinstance(answer, str) else None
        if option is None:  # not an option: the general path gives the verdict
            asked = _Asked(decision, index, request, began, answer=answer)
            asked.ms = self.charged_ms(seat)
            return None, asked, began
        if self.strikes[seat]:
            # A late answer within the grace stands, at the cost of a strike: record it.
            late = getattr(self.players[seat], "last_strike_ms", None)
            if late is not None:
                self.record.strikes.append(StrikeEntry(seat, index, late))
        return option, None, began

    def ask_now(self, decision: Decision, index: int, simultaneous: bool) -> _Asked:
        """Ask an in-process player: it answers here and now."""
        seat = decision.seat
        events = self.cursor.take_lazy(self.state, seat)
        if self.seats.forfeited[seat]:
            return _Asked(decision, index, None, time.perf_counter(), forfeited=True)
        player = self.players[seat]
        lazy = self.lazy[seat]
        request = (
            None
            if lazy
            else decision_request(
                self.game, self.state, decision, index=index, events=events, simultaneous=simultaneous
            )
        )
        asked = _Asked(decision, index, request, time.perf_counter())
        try:
            decide: Callable[[Any], str] = player.decide
            if self.searches[seat]:  # a searching bot: it may sample its worlds
                worlds = Worlds(self.game, self.state, seat)
                decide = lambda r: player.decide_worlds(r, worlds)  # type: ignore[attr-defined]  # noqa: E731
            if lazy:  # built as the player reads it (the bytes are the same)
                asked.answer = ask_lazily(
                    decide, self.game, self.state, decision, index=index, events=events, simultaneous=simultaneous
                )
            else:
                assert request is not None
                asked.answer = decide(request)
            # Timed now: a simultaneous step collects its answers only after awaiting the others.
            asked.ms = _ms_since(asked.began)
        except PlayerFailure as failure:
            asked.failure = (failure.verdict, failure.detail)
        except Exception as exc:  # any bot exception is a crash verdict
            asked.failure = ("crash", f"{type(exc).__name__}: {exc}")
        return asked

    async def answer(self, asked: _Asked) -> tuple[str, float, str]:
        """(choice, milliseconds, "bot" | "substitute") for a decision put to a player."""
        decision = asked.decision
        if asked.forfeited:
            return self.substitute(decision), 0.0, "substitute"
        if asked.two_phase and asked.failure is None:
            try:
                asked.answer = await self.call(decision.seat, "end_decide", asked.request)
            except PlayerFailure as failure:
                asked.failure = (failure.verdict, failure.detail)
            except Exception as exc:  # any bot exception is a crash verdict
                asked.failure = ("crash", f"{type(exc).__name__}: {exc}")
            # The bot's own time, from the request written to its answer's arrival (less the
            # referee's stalls that can have kept it unread), or all its clock allowed when none
            # came: collected
            # after other seats' answers, the time since asking would include theirs.
            asked.ms = self.charged_ms(decision.seat)
        ms = asked.ms if asked.ms is not None else _ms_since(asked.began)
        if asked.failure is None:
            if isinstance(asked.answer, str) and decision.find(asked.answer) is not None:
                # A late answer within the grace stands, at the cost of a strike: record it.
                late = (
                    getattr(self.players[decision.seat], "last_strike_ms", None)
                    if self.strikes[decision.seat]
                    else None
                )
                if late is not None:
                    self.record.strikes.append(StrikeEntry(decision.seat, asked.index, late))
                return asked.answer, ms, "bot"
            count = len(decision.options)
            answer = asked.answer  # a bot's, of any type
            said = repr(answer)
            if isinstance(answer, str) and len(answer) > ANSWER_CHARS:
                # Cut here, the rest said: a 60,000-character id left the detail cut mid-quote.
                said = f"{answer[:ANSWER_CHARS]!r}…({len(answer)} chars)"
            asked.failure = ("illegal", f"answered {said}, not one of its {count} option{'s' * (count != 1)}")
        verdict, detail = asked.failure
        await self.seats.fail(decision.seat, asked.index, verdict, detail)
        return self.substitute(decision), ms, "substitute"

    def charged_ms(self, seat: int) -> float | None:
        """What a remote seat's clock charged for its last decision (None: no clock charged it,
        an in-process player or a stream that failed before timing it): the record's ``ms``
        for it, a verdict's too (the referee's own time around it read a few ms more, beside a
        detail that named the charged time)."""
        return getattr(self.players[seat], "last_answer_ms", None)

    def substitute(self, decision: Decision) -> str:
        return self.substitute_rng.pick(decision.options, "substitute").id

    async def finish(self) -> MatchRecord:
        result = self.game.result(self.state)
        assert result is not None
        result = with_forfeits(result, self.seats.forfeited)
        self.record.failures = self.seats.failures
        self.record.result = {**result.to_json(), "forfeited": self.seats.forfeited}
        forfeited = self.seats.forfeited
        built: list[bot_pb2.MatchResult] = []

        def summary() -> bot_pb2.MatchResult:  # built once, when first read
            if not built:
                built.append(result_message(result, forfeited))
            return built[0]

        told = []  # the players told on a loop, all at once (each goodbye may wait on its bot)
        for seat, player in enumerate(self.players):
            if forfeited[seat]:
                continue  # already told by abort
            # A bot failing after the end changes nothing.
            try:
                if self.lazy[seat]:  # built as the player reads it (the bytes are the same)
                    finish: object = LazyFinish(summary, self.cursor.take_lazy(self.state, seat))
                else:
                    finish = bot_pb2.Finish(result=summary(), events=self.cursor.take(self.state, seat))
                if self.sync[seat]:
                    _call_now(player, "finish", finish)
                else:
                    told.append(_quietly(player, "finish", finish))
            except Exception:  # a bot failing after the end changes nothing
                pass
        await _together(told)
        return self.record
