"""The bot SDK: write a bot as a class with one method.

    from bots.sdk import Bot, Turn

    class FirstOption(Bot):
        name = "first"

        def choose(self, turn: Turn) -> str:
            return turn.options[0].id

``turn.observation`` is the game's typed ``Observation`` message, ``turn.options`` the legal
options with their typed ``action``, ``turn.kind`` the decision kind, ``turn.clock`` the time
left, ``turn.events`` the events since your previous decision and ``self.history`` every event
of the match so far. Optional hooks: ``on_start(start)`` and ``on_finish(finish)``.

A Bot is a :class:`arena.runner.Player`, so it plays in-process as it is; serving it over gRPC
is one call (see the remote-bots section of the README).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, cached_property

from google.protobuf import any_pb2, symbol_database
from google.protobuf.message import Message

from arena import PROTOCOL_VERSION
from arena.v1 import bot_pb2


@cache
def _load_game_protocols() -> None:
    """Import every game's generated module so typed payloads can be unpacked by type name."""
    import arena.games.v1 as generated

    for module in pkgutil.iter_modules(generated.__path__):
        importlib.import_module(f"{generated.__name__}.{module.name}")


def unpack(packed: any_pb2.Any) -> Message:
    """The typed message inside an ``Any`` (its class found by the type name)."""
    _load_game_protocols()
    cls = symbol_database.Default().GetSymbol(packed.TypeName())
    message = cls()
    if not packed.Unpack(message):
        raise ValueError(f"cannot unpack {packed.type_url}")
    return message


@dataclass(frozen=True)
class TypedOption:
    id: str
    label: str
    packed: any_pb2.Any

    @cached_property
    def action(self) -> Message:
        return unpack(self.packed)


class Turn:
    """One decision request, with typed views of its payloads (unpacked on first use)."""

    def __init__(self, request: bot_pb2.DecisionRequest, history: list[bot_pb2.Event] | Bot) -> None:
        self.request = request
        self.kind = request.kind
        self.seat = request.seat
        self._history = history

    @property
    def history(self) -> list[bot_pb2.Event]:
        """Every event of the match so far (the bot's :attr:`Bot.history`)."""
        history = self._history
        return history.history if isinstance(history, Bot) else history

    @cached_property
    def events(self) -> list[bot_pb2.Event]:
        """The events since your previous decision."""
        return list(self.request.events)

    @property
    def clock(self) -> bot_pb2.ClockState:
        """The time left (limit, bank, strikes used)."""
        return self.request.clock

    @cached_property
    def observation(self) -> Message:
        return unpack(self.request.observation)

    @cached_property
    def options(self) -> list[TypedOption]:
        return [TypedOption(o.id, o.label, o.action) for o in self.request.options]

    @property
    def option_ids(self) -> list[str]:
        return [o.id for o in self.request.options]


_READY_BYTES: dict[tuple[str, str, tuple[str, ...], str], bytes] = {}


def _ready(name: str, version: str, capabilities: tuple[str, ...], game_id: str) -> bot_pb2.Ready:
    """A new ``Ready``, parsed from its bytes kept per content: cheaper than setting its fields,
    which a bot does once per match."""
    key = (name, version, capabilities, game_id)
    data = _READY_BYTES.get(key)
    if data is None:
        if len(_READY_BYTES) >= 256:
            _READY_BYTES.clear()
        ready = bot_pb2.Ready(
            protocol_version=PROTOCOL_VERSION,
            bot_name=name,
            bot_version=version,
            capabilities=list(capabilities),
            game_id=game_id,
        )
        data = _READY_BYTES[key] = ready.SerializeToString()
    return bot_pb2.Ready.FromString(data)


class Bot:
    """Base class of every bot. Override :meth:`choose`; the hooks are optional."""

    name = "bot"
    version = "1.0"
    game_id = ""
    """The game this bot plays ("" = any game)."""
    capabilities: tuple[str, ...] = ()
    inline = False
    """Served over gRPC, run this bot's code on the server's event loop instead of a thread
    (for bots that answer in microseconds; see :mod:`bots.serve`)."""
    lazy_requests = True
    """In-process, requests are built as they are read (:class:`arena.protocol.LazyRequest`):
    the same fields and bytes, without building an observation a bot never reads."""

    def __init__(self) -> None:
        self.history = []
        self.match: bot_pb2.MatchStart | None = None

    @property
    def history(self) -> list[bot_pb2.Event]:
        """Every event of the match so far, in order. The events of each request are added to
        the list when this is read: a bot that never reads it does not pay for the events'
        Python objects (about 4 of a served bot's 20-30 µs a decision, ``bench.bench_transport``).
        A reference kept to the list grows only when ``history`` is read again."""
        unread = self._unread
        if unread:
            history = self._history
            for events in unread:
                history.extend(events)
            unread.clear()
        return self._history

    @history.setter
    def history(self, events: list[bot_pb2.Event]) -> None:
        self._history = events
        self._unread: list[Iterable[bot_pb2.Event]] = []

    def heard(self, events: Iterable[bot_pb2.Event]) -> None:
        """Note a request's events for :attr:`history` (kept as they are until it is read)."""
        self._unread.append(events)

    # -- what an author writes ----------------------------------------------------------------

    def choose(self, turn: Turn) -> str:
        raise NotImplementedError

    def on_start(self, start: bot_pb2.MatchStart) -> None:
        """Called when a match starts (seat, players, options, clock, a seed for your RNG)."""

    def on_finish(self, finish: bot_pb2.Finish) -> None:
        """Called when a match ends, with the result."""

    # -- the Player protocol (used by the runner and the gRPC server) -------------------------

    def start(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        self.history = []
        self.match = message
        self.on_start(message)
        return _ready(self.name, self.version, tuple(self.capabilities), self.game_id)

    def decide(self, request: bot_pb2.DecisionRequest) -> str:
        self._unread.append(request.events)  # heard(), inlined: this runs for every decision
        return self.choose(Turn(request, self))

    def finish(self, message: bot_pb2.Finish) -> None:
        self.heard(message.events)
        self.on_finish(message)
