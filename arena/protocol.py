"""Building the bot-facing envelope (``arena.v1.bot_pb2``) from engine values.

One place turns options, events, observations and results into the messages a bot receives,
so an in-process player and a remote bot see exactly the same bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import struct
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar, overload

from google.protobuf import any_pb2
from google.protobuf.message import Message

from arena import PROTOCOL_VERSION
from arena.config import ConfigError, MatchConfig
from arena.engine import Decision, Event, Game, MatchState, Option, Result
from arena.v1 import bot_pb2

T = TypeVar("T")

# -- an endpoint's key (webhook-style signing: the key stays with the bot's server and the
# registration; each start carries a fresh nonce and its HMAC, which nobody can forge or reuse) --

ENDPOINT_KEY = re.compile(r"[\x21-\x7e]{16,200}")
"""An endpoint's key, matched whole (``fullmatch``)."""
ENDPOINT_KEY_RULE = "16-200 printable ASCII characters without spaces"
_PROOF_CONTEXT = b"arena-endpoint-v2"
NONCE_BYTES = 16
PROOF_WINDOW_S = 300
"""How far a proof's time may be from its checker's clock (clocks differ a little) and how long a
checker remembers the nonces it took."""


def check_endpoint_key(key: str, where: str = "endpoint key") -> None:
    """Raise ConfigError for a key that is not one (``where`` names it in the message)."""
    if not ENDPOINT_KEY.fullmatch(key):
        # A key read from a file keeps its newline: say so, rather than a length within the rule.
        why = "leading or trailing whitespace (a file's newline?)" if key != key.strip() else f"{len(key)} characters"
        raise ConfigError(f"{where}: expected {ENDPOINT_KEY_RULE}, got {why} (`arena bot new-key` makes one)")


def new_endpoint_key() -> str:
    return "arena_key_" + secrets.token_urlsafe(32)


def endpoint_mac(key: str, nonce: bytes, time_ms: int, match_id: str, seat: int) -> bytes:
    signed = _PROOF_CONTEXT + nonce + struct.pack(">QI", time_ms, seat) + match_id.encode()
    return hmac.new(key.encode(), signed, hashlib.sha256).digest()


def endpoint_proof(key: str, match_id: str, seat: int, now: float | None = None) -> bot_pb2.EndpointProof:
    """A proof of holding ``key`` for one start (this match and seat, now): a fresh nonce, the
    time and their MAC. Wall-clock time, for a checker on another host (not game logic)."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    time_ms = int((time.time() if now is None else now) * 1000)
    return bot_pb2.EndpointProof(nonce=nonce, time_ms=time_ms, mac=endpoint_mac(key, nonce, time_ms, match_id, seat))


def proves(key: str, proof: bot_pb2.EndpointProof, match_id: str, seat: int) -> bool:
    """True if ``proof`` was made with ``key`` for this match and seat (constant-time compare);
    whether it is fresh and unused is :class:`ProofCheck`'s."""
    if len(proof.nonce) != NONCE_BYTES:
        return False
    return hmac.compare_digest(proof.mac, endpoint_mac(key, proof.nonce, proof.time_ms, match_id, seat))


class ProofCheck:
    """A keyed endpoint's check of the starts it is sent: a proof made with its key for that very
    start, within PROOF_WINDOW_S of this clock, and never seen before (its nonce is remembered
    for the window). So a proof captured on its way (a relay, a stale address, a bot's log) is
    worthless: used once already, and soon too old."""

    def __init__(self, key: str, clock: Callable[[], float] = time.time) -> None:
        check_endpoint_key(key, "the endpoint's key")
        self.key = key
        self.clock = clock
        self.seen: dict[bytes, float] = {}  # nonce -> when it may be forgotten

    def refusal(self, start: bot_pb2.MatchStart) -> str | None:
        """None if the start proves the key; else why not (for the server's log)."""
        proof = start.endpoint_proof
        if not proof.mac:
            return "the start carries no proof (a registration without this endpoint's key)"
        if not proves(self.key, proof, start.match_id, start.seat):
            return "the proof was not made with this endpoint's key for this start"
        now = self.clock()
        age = now - proof.time_ms / 1000
        if abs(age) > PROOF_WINDOW_S:
            when = f"{age:.0f} s ago" if age > 0 else f"{-age:.0f} s ahead of this clock"
            return f"the proof was made {when}: more than {PROOF_WINDOW_S} s (or the clocks differ)"
        for nonce in [n for n, until in self.seen.items() if until < now]:
            del self.seen[nonce]
        if proof.nonce in self.seen:
            return "the proof was used before (a replay)"
        self.seen[proof.nonce] = now + 2 * PROOF_WINDOW_S
        return None


_TYPE_URLS: dict[str, str] = {}


def pack(message: Message) -> any_pb2.Any:
    """``Any.Pack`` without its per-call type-url formatting (the same bytes)."""
    name = message.DESCRIPTOR.full_name
    url = _TYPE_URLS.get(name)
    if url is None:
        url = _TYPE_URLS[name] = f"type.googleapis.com/{name}"
    return any_pb2.Any(type_url=url, value=message.SerializeToString())


def option_message(option: Option) -> bot_pb2.Option:
    return bot_pb2.Option(id=option.id, label=option.label, action=pack(option.action))


def event_message(index: int, event: Event) -> bot_pb2.Event:
    message = bot_pb2.Event(index=index, seat=event.seat, kind=event.kind, text=event.text)
    if event.detail is not None:
        message.detail.CopyFrom(pack(event.detail))
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


class LazyEvent:
    """An event as an in-process player reads it: ``index``, ``seat``, ``kind`` and ``text`` as
    the engine's event has them, ``detail`` packed on first read; anything else reads the full
    ``bot_pb2.Event`` (built once, shared by every seat that sees the event)."""

    __slots__ = ("_event", "_message", "_wire", "index")

    def __init__(self, index: int, event: Event) -> None:
        # Made for every event of a match (most are never read): the least work here.
        self.index = index
        self._event = event
        self._message: bot_pb2.Event | None = None
        self._wire: bytes | None = None

    def wire(self) -> bytes:
        """The event as a serialised ``DecisionRequest.events`` (or ``Finish.events``) entry:
        built once, shared by every seat that sees it (see :class:`WireRequest`)."""
        if self._wire is None:
            self._wire = _field(_EVENTS_TAG, event_bytes(self.index, self._event))
        return self._wire

    @property
    def seat(self) -> int:
        return self._event.seat

    @property
    def kind(self) -> str:
        return self._event.kind

    @property
    def text(self) -> str:
        return self._event.text

    @property
    def detail(self) -> any_pb2.Any:
        return self.message().detail

    def message(self) -> bot_pb2.Event:
        if self._message is None:
            self._message = event_message(self.index, self._event)
        return self._message

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.message(), name)


class EventCursor:
    """Per-seat position in the event log: each request carries only the new events.

    A seat's events are numbered by its own count (``Event.index``: 0, 1, 2, ... among the
    events it was sent), not by their place in the whole log: the log's numbers would leave a
    gap for every private event another seat got, and the size of the gap would tell. A seat
    that has been sent every event so far shares the log-numbered views (and their serialised
    bytes) with the others; one that has not gets views of its own (sharing them between seats
    that missed as many cost more than building them: ``bench.bench_engine``)."""

    def __init__(self, players: int) -> None:
        self._next = [0] * players
        self._sent = [0] * players  # how many events each seat has been sent
        self._views: list[LazyEvent] = []  # the log-numbered views, made when a seat takes them
        self._scanned = 0  # the log is scanned for private events up to here
        self._last_private = -1  # the index of the latest event not for everyone

    def take_lazy(self, state: MatchState, seat: int) -> list[LazyEvent]:
        """The events since ``seat``'s previous take, as views (messages built when read)."""
        start = self._next[seat]
        events = state.log.events
        end = len(events)
        if start == end:
            return []
        self._next[seat] = end
        if self._scanned < end:
            for i in range(end - 1, self._scanned - 1, -1):  # the latest private one (a take brings few)
                if events[i].to is not None:
                    self._last_private = i
                    break
            self._scanned = end
        sent = self._sent[seat]
        if self._last_private < start:  # all public
            if sent == start:  # sent the whole log so far: its numbers are the seat's
                self._sent[seat] = end
                return self._log_numbered(events, start, end)
            new = events[start:end]
        else:  # a seat sees public events and those addressed to it (Event.visible_to, for a seat)
            new = [event for event in events[start:end] if event.to is None or seat in event.to]
            if sent == start and len(new) == end - start:
                self._sent[seat] = end
                return self._log_numbered(events, start, end)
        # Views of the seat's own, numbered on (built in one call: this runs for every seat of
        # a game with private events, a share of each of its decisions).
        self._sent[seat] = sent + len(new)
        return list(map(LazyEvent, range(sent, sent + len(new)), new))

    def _log_numbered(self, events: list[Event], start: int, end: int) -> list[LazyEvent]:
        # Made only when a seat that was sent every event takes them: in most games with
        # private events no seat is after the deal, and these would be made for nothing.
        views = self._views
        made = len(views)
        if made < end:
            views.extend(map(LazyEvent, range(made, end), events[made:end]))
        return views[start:end]

    def take(self, state: MatchState, seat: int) -> list[bot_pb2.Event]:
        return [view.message() for view in self.take_lazy(state, seat)]


def decision_request(
    game: Game,
    state: MatchState,
    decision: Decision,
    *,
    index: int,
    events: Sequence[bot_pb2.Event | LazyEvent],
    simultaneous: bool,
    clock: bot_pb2.ClockState | None = None,
) -> bot_pb2.DecisionRequest:
    return bot_pb2.DecisionRequest(
        decision_index=index,
        seat=decision.seat,
        kind=decision.kind,
        observation=pack(game.observe(state, decision.seat)),
        events=[e.message() if isinstance(e, LazyEvent) else e for e in events],
        options=[option_message(o) for o in decision.options],
        clock=clock,
        simultaneous=simultaneous,
    )


class LazyOption:
    """One option of a :class:`LazyRequest`: ``id`` and ``label`` at once, ``action`` packed on
    first read; anything else reads the full ``bot_pb2.Option``."""

    __slots__ = ("_action", "_message", "_option", "id")

    def __init__(self, option: Option) -> None:
        self.id = option.id
        self._option = option
        self._action: any_pb2.Any | None = None
        self._message: bot_pb2.Option | None = None

    @property
    def label(self) -> str:
        return self._option.label

    @property
    def action(self) -> any_pb2.Any:
        if self._action is None:
            self._action = pack(self._option.action)
        return self._action

    def message(self) -> bot_pb2.Option:
        if self._message is None:
            self._message = bot_pb2.Option(id=self.id, label=self.label, action=self.action)
        return self._message

    def __getattr__(self, name: str) -> Any:
        return getattr(self.message(), name)


_EAGER_VIEWS = 3
"""Up to this many options, a :class:`LazyRequest` makes their views at once."""


class LazyOptions(Sequence[LazyOption]):
    """The options of a :class:`LazyRequest`: each one's view made when it is first read."""

    __slots__ = ("_options", "_views")

    def __init__(self, options: Sequence[Option]) -> None:
        self._options = options
        self._views: list[LazyOption | None] = [None] * len(options)

    def __len__(self) -> int:
        return len(self._options)

    @overload
    def __getitem__(self, index: int) -> LazyOption: ...

    @overload
    def __getitem__(self, index: slice) -> list[LazyOption]: ...

    def __getitem__(self, index: int | slice) -> LazyOption | list[LazyOption]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._options)))]
        view = self._views[index]
        if view is None:
            view = self._views[index] = LazyOption(self._options[index])
        return view

    def __iter__(self) -> Iterator[LazyOption]:
        for i in range(len(self._options)):
            yield self[i]


class PerOption(Generic[T]):
    """A value made from each :class:`Option` object once per match: a game that offers the
    same objects again (most keep them as constants or in cached decisions) has each one's
    value made once. Bounded."""

    __slots__ = ("_cache", "_make")
    LIMIT = 4096

    def __init__(self, make: Callable[[Option], T]) -> None:
        self._make = make
        self._cache: dict[int, tuple[Option, T]] = {}

    def each(self, options: Sequence[Option]) -> list[T]:
        cache = self._cache
        values = []
        for option in options:
            hit = cache.get(id(option))
            if hit is None or hit[0] is not option:  # the id of a dead object may be reused
                if len(cache) >= self.LIMIT:
                    cache.clear()
                hit = cache[id(option)] = (option, self._make(option))
            values.append(hit[1])
        return values


class OptionViews(PerOption[LazyOption]):
    """The :class:`LazyOption` views of one match (each one's packed action made once)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(LazyOption)

    def views(self, options: Sequence[Option]) -> list[LazyOption]:
        return self.each(options)


class LazyRequest:
    """A ``DecisionRequest`` for an in-process player, built as it is read.

    A bot that reads only the options (the random bot) never pays for the observation, the
    packed actions or the message. Every field reads as in :func:`decision_request`'s message,
    and anything else (``SerializeToString``, ``HasField``, ``ListFields``…) reads the full
    message built from the same parts, so the bytes are exactly those of
    :func:`decision_request` (pinned by ``tests/test_request_bytes.py``). Read-only: a player
    must not modify a request (nor a real one).

    The observation depends on the match state, which changes once the decision is applied: the
    runner calls :meth:`seal` before that if the player kept the request (still referenced),
    so a request read later still shows the state it was made in.
    """

    __slots__ = (
        "_clock",
        "_game",
        "_message",
        "_observation",
        "_state",
        "decision_index",
        "events",
        "kind",
        "options",
        "seat",
        "simultaneous",
    )
    request_id = 0

    def __init__(
        self,
        game: Game,
        state: MatchState,
        decision: Decision,
        index: int,
        events: Sequence[LazyEvent],
        simultaneous: bool,
        views: OptionViews | None = None,
    ) -> None:
        self.decision_index = index
        self.seat = decision.seat
        self.kind = decision.kind
        self.events = events
        self.simultaneous = simultaneous
        self._game: Game | None = game
        self._state: MatchState | None = state
        self._observation: any_pb2.Any | None = None
        options = decision.options
        # A view per option (its action packed when read): at once for a few options (a plain
        # list reads fastest; the match's own views when it keeps them), as read for many.
        self.options: Sequence[LazyOption]
        if len(options) > _EAGER_VIEWS:
            self.options = LazyOptions(options)
        elif views is not None:
            self.options = views.views(options)
        else:
            self.options = list(map(LazyOption, options))
        self._clock: bot_pb2.ClockState | None = None
        self._message: bot_pb2.DecisionRequest | None = None

    @property
    def observation(self) -> any_pb2.Any:
        if self._observation is None:
            assert self._game is not None and self._state is not None
            self._observation = pack(self._game.observe(self._state, self.seat))
            self._game = self._state = None
        return self._observation

    @property
    def clock(self) -> bot_pb2.ClockState:
        if self._clock is None:
            self._clock = bot_pb2.ClockState()  # unset in-process, as in the message
        return self._clock

    def seal(self) -> None:
        """Build what depends on the match state now (it is about to change)."""
        self.observation  # noqa: B018 - built and kept

    def message(self) -> bot_pb2.DecisionRequest:
        """The full ``DecisionRequest`` (built once)."""
        if self._message is None:
            self._message = bot_pb2.DecisionRequest(
                decision_index=self.decision_index,
                seat=self.seat,
                kind=self.kind,
                observation=self.observation,
                events=[e.message() for e in self.events],
                options=[o.message() for o in self.options],
                clock=self._clock if self._clock is not None and self._clock.ListFields() else None,
                simultaneous=self.simultaneous,
            )
        return self._message

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.message(), name)


# -- the wire form of a request (remote bots) ---------------------------------------------------
#
# A remote bot receives ``RefereeMessage(decision=DecisionRequest(...))`` serialised. Protobuf's
# encoding of a message is the concatenation of its fields' encodings (in field-number order,
# as every serialiser writes them), so the request's bytes can be assembled from parts: the
# events (serialised once per match, shared by every seat), the options (serialised once per
# option object), the observation (packed per request) and the fields that change with every
# send (the clock, the request id) appended last. ``tests/test_wire_request.py`` checks, for
# every game, that the bytes equal the message built field by field and serialised.


def varint(value: int) -> bytes:
    """A non-negative integer as a protobuf varint."""
    if value < 0x80:
        return _SMALL_VARINTS[value]
    if value < 0x4000:
        return bytes(((value & 0x7F) | 0x80, value >> 7))
    if value < 0x200000:
        return bytes(((value & 0x7F) | 0x80, ((value >> 7) & 0x7F) | 0x80, value >> 14))
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL_VARINTS = [bytes((i,)) for i in range(0x80)]


def _field(tag: bytes, payload: bytes) -> bytes:
    """A length-delimited field: its tag, the payload's length, the payload."""
    return tag + varint(len(payload)) + payload


def _int32(value: int) -> bytes:
    """An int32 as a protobuf varint (a negative one sign-extended to ten bytes)."""
    return varint(value) if value >= 0 else varint(value + (1 << 64))


_TYPE_URL_FIELDS: dict[type, bytes] = {}


def packed_bytes(message: Message) -> bytes:
    """``pack(message)`` serialised, without building the ``Any`` (the same bytes: its type url,
    then its value when not empty)."""
    url = _TYPE_URL_FIELDS.get(type(message))
    if url is None:
        name = message.DESCRIPTOR.full_name
        url = _TYPE_URL_FIELDS[type(message)] = _field(b"\x0a", f"type.googleapis.com/{name}".encode())
    value = message.SerializeToString()
    return url + b"\x12" + varint(len(value)) + value if value else url


def event_bytes(index: int, event: Event) -> bytes:
    """``event_message(index, event)`` serialised, without building the message (the same
    bytes: fields in number order, zero values left out, the detail always present when set)."""
    kind, text = event.kind.encode(), event.text.encode()
    parts = [
        b"\x08" + varint(index) if index else b"",
        b"\x10" + _int32(event.seat) if event.seat else b"",
        b"\x1a" + varint(len(kind)) + kind if kind else b"",
        b"\x22" + varint(len(text)) + text if text else b"",
    ]
    if event.detail is not None:
        parts.append(_field(b"\x2a", packed_bytes(event.detail)))
    return b"".join(parts)


# DecisionRequest's field tags (field number << 3 | wire type).
_INDEX_TAG = b"\x08"  # 1 decision_index, varint
_SEAT_TAG = b"\x10"  # 2 seat, varint
_KIND_TAG = b"\x1a"  # 3 kind, length-delimited
_OBSERVATION_TAG = b"\x22"  # 4 observation (Any)
_EVENTS_TAG = b"\x2a"  # 5 events, repeated
_OPTIONS_TAG = b"\x32"  # 6 options, repeated
_CLOCK_TAG = b"\x3a"  # 7 clock (ClockState)
_SIMULTANEOUS = b"\x40\x01"  # 8 simultaneous = true
_REQUEST_ID_TAG = b"\x49"  # 9 request_id, fixed64
_DECISION_TAG = b"\x12"  # RefereeMessage.decision: field 2, length-delimited
_FIXED64 = struct.Struct("<Q")

_KINDS: dict[str, bytes] = {}


class WireOptions(PerOption[bytes]):
    """Serialised options (each a ``DecisionRequest.options`` entry), each option object
    serialised once per match."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(lambda option: _field(_OPTIONS_TAG, option_message(option).SerializeToString()))

    def wire(self, options: Sequence[Option]) -> bytes:
        return b"".join(self.each(options))


class WireRequest:
    """A ``DecisionRequest`` for a remote bot, kept as bytes: every field but the clock and the
    request id serialised when it is made (the observation packed then: the state moves on),
    those two appended per send by :meth:`encode`. ``decision_index``, ``seat``, ``kind``,
    ``simultaneous`` and ``request_id`` read as in the message; :meth:`message` parses the
    whole (for anyone who needs more)."""

    __slots__ = ("_head", "_simultaneous", "clock", "decision_index", "kind", "request_id", "seat", "simultaneous")

    def __init__(
        self,
        game: Game,
        state: MatchState,
        decision: Decision,
        *,
        index: int,
        events: Sequence[LazyEvent],
        simultaneous: bool,
        options: WireOptions,
    ) -> None:
        self.decision_index = index
        self.seat = seat = decision.seat
        self.kind = kind = decision.kind
        self.simultaneous = simultaneous
        self.request_id = 0
        self.clock: tuple[int, int, int] = (0, 0, 0)  # (decision_ms, bank_ms, strikes) as last sent
        kind_bytes = _KINDS.get(kind)
        if kind_bytes is None:
            kind_bytes = _KINDS[kind] = _field(_KIND_TAG, kind.encode()) if kind else b""
        observation = packed_bytes(game.observe(state, seat))
        self._head = b"".join(
            (
                _INDEX_TAG + varint(index) if index else b"",
                _SEAT_TAG + varint(seat) if seat else b"",
                kind_bytes,
                _OBSERVATION_TAG,
                varint(len(observation)),
                observation,
                *[e.wire() for e in events],
                options.wire(decision.options),
            )
        )
        self._simultaneous = _SIMULTANEOUS if simultaneous else b""

    def encode(self, decision_ms: int, bank_ms: int, strikes: int, request_id: int) -> bytes:
        """``RefereeMessage(decision=...)`` serialised, with this clock and request id."""
        self.clock = (decision_ms, bank_ms, strikes)
        self.request_id = request_id
        clock = b"".join(
            (
                b"\x08" + varint(decision_ms) if decision_ms else b"",
                b"\x10" + varint(bank_ms) if bank_ms else b"",
                b"\x18" + varint(strikes) if strikes else b"",
            )
        )
        body = b"".join(
            (
                self._head,
                _CLOCK_TAG,
                varint(len(clock)),
                clock,
                self._simultaneous,
                _REQUEST_ID_TAG + _FIXED64.pack(request_id) if request_id else b"",
            )
        )
        return _DECISION_TAG + varint(len(body)) + body

    def message(self) -> bot_pb2.DecisionRequest:
        """The request as a message (parsed from the bytes last encoded)."""
        return bot_pb2.RefereeMessage.FromString(self.encode(*self.clock, self.request_id)).decision

    @property
    def options(self) -> Any:
        return self.message().options


def ask_lazily(
    decide: Callable[[Any], T],
    game: Game,
    state: MatchState,
    decision: Decision,
    *,
    index: int,
    events: Sequence[LazyEvent],
    simultaneous: bool,
) -> T:
    """``decide(request)`` with a :class:`LazyRequest`, sealed afterwards if the player kept it."""
    request = LazyRequest(game, state, decision, index=index, events=events, simultaneous=simultaneous)
    try:
        return decide(request)
    finally:
        # Held by anyone but this frame (and getrefcount's argument): the player kept it.
        if sys.getrefcount(request) > 2:
            request.seal()


class LazyStart:
    """A ``MatchStart`` for an in-process player, built as it is read: ``match_id``, ``seat``
    and ``bot_seed`` (all that differs between the seats of matches alike) at once; anything
    else reads the full message, the match's template copied with those three set, byte for
    byte the one a remote bot receives. Read-only, like a request."""

    __slots__ = ("_message", "_template", "bot_seed", "match_id", "seat")

    def __init__(self, template: bot_pb2.MatchStart, match_id: str, seat: int, bot_seed: int) -> None:
        self._template = template
        self.match_id = match_id
        self.seat = seat
        self.bot_seed = bot_seed
        self._message: bot_pb2.MatchStart | None = None

    def message(self) -> bot_pb2.MatchStart:
        if self._message is None:
            self._message = start_from(self._template, self.match_id, self.seat, self.bot_seed)
        return self._message

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.message(), name)


def start_from(template: bot_pb2.MatchStart, match_id: str, seat: int, bot_seed: int) -> bot_pb2.MatchStart:
    """A seat's ``MatchStart``: the template (the parts every seat shares) with its own match
    id, seat and seed."""
    start = bot_pb2.MatchStart()
    start.CopyFrom(template)
    start.match_id = match_id
    start.seat = seat
    start.bot_seed = bot_seed
    return start


class LazyFinish:
    """A ``Finish`` for an in-process player, built as it is read: ``events`` are the same
    :class:`LazyEvent` views its requests carried, ``result`` is built on first read (once per
    match, shared by every seat); anything else (``SerializeToString``…) reads the full
    ``bot_pb2.Finish``, byte for byte the one a remote bot receives."""

    __slots__ = ("_message", "_result", "events")

    def __init__(self, result: Callable[[], bot_pb2.MatchResult], events: Sequence[LazyEvent]) -> None:
        self._result = result
        self.events = events
        self._message: bot_pb2.Finish | None = None

    @property
    def result(self) -> bot_pb2.MatchResult:
        return self._result()

    def message(self) -> bot_pb2.Finish:
        if self._message is None:
            self._message = bot_pb2.Finish(result=self._result(), events=[e.message() for e in self.events])
        return self._message

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.message(), name)


def result_message(result: Result, forfeited: Mapping[int, bool] | Sequence[bool]) -> bot_pb2.MatchResult:
    flags = [bool(forfeited[i]) for i in range(len(result.scores))]
    return bot_pb2.MatchResult(
        seats=[
            bot_pb2.SeatResult(seat=s, score=result.scores[s], rank=result.ranks[s], forfeited=flags[s])
            for s in range(len(result.scores))
        ],
        summary=result.summary,
    )
