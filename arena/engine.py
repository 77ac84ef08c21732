"""The game engine contract.

Every game is a deterministic state machine driven only by decisions and its match's
:class:`~arena.chance.Chance`:

* ``new_match(config, seed)`` builds the state (all chance from the state's own RNG);
* ``pending(state)`` lists the open decisions: one per seat that must decide now, each with a
  kind and a finite tuple of legal :class:`Option` (several seats = a sealed simultaneous
  decision; a seat that is not the active player can be asked);
* ``apply(state, choices)`` validates every choice first and raises a typed
  :class:`IllegalChoice` without touching the state, then advances;
* ``observe(state, seat)`` is exactly what the seat may know, as the game's protobuf
  ``Observation``; ``observe(state, SPECTATOR)`` is the privileged replay view;
* ``result(state)`` gives scores and ranks (shared victories are equal ranks) once no decision
  is pending;
* ``sample_world(state, seat, chance)`` is a determinization: a new full state consistent with
  everything ``seat`` knows, the rest re-drawn at random (what a searching bot plays out);
* ``world_from_observation(config, seat, observation, chance)`` is the same from an
  observation alone: a state whose ``observe(world, seat)`` equals it (what a searching bot
  served over gRPC plays out; every registered game has it, and ``Game.observes_worlds()``
  tells whether a game still being written does).

A game subclasses :class:`Game` and implements five small hooks: ``setup``, ``decisions``,
``resolve``, ``observation`` and ``score``. The base class owns validation, caching of the
pending decisions and the public/private event log, so every game gets the same guarantees.
"""

from __future__ import annotations

import enum
import functools
import re
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from google.protobuf.message import Message

from arena.chance import Chance, PresetChance, PresetError
from arena.config import ConfigError, MatchConfig, OptionSpec, OptionValue, validate_options

SPECTATOR = -1
"""Viewer id of the privileged view (replays, referee); never sent to a bot."""

CHANCE_SEAT = -1
"""Seat of events caused by chance or the referee rather than a player."""


# --------------------------------------------------------------------------------------------
# Errors


class EngineError(Exception):
    """Base of the engine's typed errors."""


class IllegalChoice(EngineError):
    """A choice is not among the pending options (state unchanged)."""

    def __init__(self, seat: int, option_id: str, allowed: Sequence[str]) -> None:
        shown = ", ".join(allowed[:12]) + (", …" if len(allowed) > 12 else "")
        super().__init__(f"seat {seat}: {option_id!r} is not a legal option (allowed: {shown})")
        self.seat = seat
        self.option_id = option_id
        self.allowed = tuple(allowed)


class WrongSeats(EngineError):
    """The choices do not answer exactly the seats that must decide now (state unchanged)."""


class MatchOver(EngineError):
    """A choice was applied to a finished match (state unchanged)."""


# --------------------------------------------------------------------------------------------
# Metadata


@dataclass(frozen=True)
class Variant:
    """A named variant from the rulebook and the options that select it."""

    name: str
    description: str
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    players: tuple[int, ...] = ()
    """Player counts the variant applies to (empty = any supported count)."""


@dataclass(frozen=True)
class GameMeta:
    """What a game declares about itself (shown by ``arena games``, stored in records)."""

    id: str
    name: str
    min_players: int
    max_players: int
    version: str
    options: tuple[OptionSpec, ...] = ()
    variants: tuple[Variant, ...] = ()
    simultaneous: bool = False
    hidden_information: bool = False
    chance: bool = True
    summary: str = ""

    @property
    def flags(self) -> tuple[str, ...]:
        named = (
            ("simultaneous", self.simultaneous),
            ("hidden-information", self.hidden_information),
            ("chance", self.chance),
        )
        return tuple(name for name, on in named if on)


# --------------------------------------------------------------------------------------------
# Decisions, events, results


@dataclass(frozen=True, slots=True)
class Option:
    """A legal option: a stable id (what a bot answers), a human label and the typed Action."""

    id: str
    label: str
    action: Message


@dataclass(frozen=True, slots=True)
class Decision:
    """An open decision of one seat: its kind and its legal options (never empty)."""

    seat: int
    kind: str
    options: tuple[Option, ...]

    def find(self, option_id: str) -> Option | None:
        for option in self.options:
            if option.id == option_id:
                return option
        return None

    @property
    def option_ids(self) -> tuple[str, ...]:
        return tuple(o.id for o in self.options)


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a match's event log.

    ``to`` is ``None`` for a public event, otherwise the seats that may see it (the spectator
    sees everything). ``detail`` is an optional typed message of the game's proto.
    """

    seat: int
    kind: str
    text: str
    detail: Message | None = None
    to: frozenset[int] | None = None

    def visible_to(self, viewer: int) -> bool:
        return self.to is None or viewer == SPECTATOR or viewer in self.to


class EventLog:
    """The ordered event log of a match: who did what, what was revealed, and to whom."""

    __slots__ = ("events",)

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __len__(self) -> int:
        return len(self.events)

    def public(self, seat: int, kind: str, text: str, detail: Message | None = None) -> None:
        self.events.append(Event(seat, kind, text, detail))

    def private(self, to: Iterable[int], seat: int, kind: str, text: str, detail: Message | None = None) -> None:
        self.events.append(Event(seat, kind, text, detail, frozenset(to)))

    def since(self, viewer: int, start: int) -> list[tuple[int, Event]]:
        """Events from index ``start`` on that ``viewer`` may see, with their log index."""
        return [(i, e) for i, e in enumerate(self.events[start:], start) if e.visible_to(viewer)]


def competition_ranks(keys: Sequence[Any]) -> tuple[int, ...]:
    """Ranks from sortable keys, higher is better; equal keys share a rank ("1, 1, 3")."""
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    ranks = [0] * len(keys)
    for position, i in enumerate(order):
        if position and keys[i] == keys[order[position - 1]]:
            ranks[i] = ranks[order[position - 1]]
        else:
            ranks[i] = position + 1
    return tuple(ranks)


@dataclass(frozen=True)
class Result:
    """Final scores and ranks per seat (rank 1 = winner; equal ranks = shared placing)."""

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    summary: str = ""

    @classmethod
    def ranked(cls, scores: Sequence[float], keys: Sequence[Any], summary: str = "") -> Result:
        """Scores with ranks from tie-break keys (higher key = better placing)."""
        return cls(tuple(scores), competition_ranks(keys), summary)

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 1)

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "ranks": list(self.ranks), "summary": self.summary}


# --------------------------------------------------------------------------------------------
# Fast copies of states


_IMMUTABLE: set[type] = {int, float, bool, complex, str, bytes, type(None), range, frozenset}
_Copier = Callable[[Any], Any]
_COPIERS: dict[type, _Copier] = {}


def _is_immutable(cls: type) -> bool:
    """Values a state may share with its copies: atoms, tuples (named ones too), enums, frozen
    dataclasses (Decision, Option, Event, MatchConfig) and protobuf messages (a game never
    mutates a message once it is stored in its state)."""
    if cls in _IMMUTABLE:
        return True
    params = getattr(cls, "__dataclass_params__", None)
    shared = issubclass(cls, (tuple, enum.Enum, Message)) or (params is not None and params.frozen)
    if shared:
        _IMMUTABLE.add(cls)
    return shared


def _copy_list(items: list[Any]) -> list[Any]:
    if _IMMUTABLE.issuperset(map(type, items)):
        return items.copy()
    return [clone(v) for v in items]


def _copy_dict(items: dict[Any, Any]) -> dict[Any, Any]:
    if _IMMUTABLE.issuperset(map(type, items.values())):
        return items.copy()
    return {k: clone(v) for k, v in items.items()}


def _copy_object(value: Any, skip: frozenset[str] = frozenset()) -> Any:
    new = object.__new__(type(value))
    imm = _IMMUTABLE
    new.__dict__.update({k: v if type(v) in imm else clone(v) for k, v in value.__dict__.items() if k not in skip})
    return new


def _slot_names(cls: type) -> tuple[str, ...]:
    return tuple(name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ()) if name != "__weakref__")


def _copy_slotted(value: Any) -> Any:
    """A copy of an object with ``__slots__`` (e.g. a ``@dataclass(slots=True)``)."""
    new = object.__new__(type(value))
    for name in _slot_names(type(value)):
        if hasattr(value, name):
            setattr(new, name, clone(getattr(value, name)))
    return new


def _copy_log(log: EventLog) -> EventLog:
    new = EventLog()
    new.events = log.events.copy()  # events are immutable
    return new


_COPIERS.update({list: _copy_list, dict: _copy_dict, set: set.copy, EventLog: _copy_log})


def clone(value: Any) -> Any:
    """A copy of a game state (or any part of it) that shares only immutable values.

    Lists, dicts, sets and plain objects (dataclasses such as a state, a player's board) are
    copied, recursively; atoms, tuples, enums, frozen dataclasses and protobuf messages are
    shared; the chance keeps its position (``Chance.copy``). Much faster than ``deepcopy``: this
    is the copy a searching bot makes once per simulated game.
    """
    cls = type(value)
    copier = _COPIERS.get(cls)
    if copier is not None:
        return copier(value)
    if cls in _IMMUTABLE or _is_immutable(cls):
        return value
    if isinstance(value, Chance):
        copier = Chance.copy
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        copier = _copy_object
    elif _slot_names(cls):
        copier = _copy_slotted
    else:
        raise TypeError(f"clone: cannot copy a {cls.__name__} (use lists, dicts, tuples and dataclasses in states)")
    _COPIERS[cls] = copier
    return copier(value)


# --------------------------------------------------------------------------------------------
# State and game


@dataclass
class MatchState:
    """Base of every game's state: config, chance, event log and the pending decisions.

    Games subclass it (a dataclass) and add their own fields. ``pending`` is maintained by
    :class:`Game` after every transition; game code never assigns it.
    """

    config: MatchConfig
    chance: Chance
    log: EventLog = field(default_factory=EventLog)
    pending: tuple[Decision, ...] = ()
    steps: int = 0

    @property
    def players(self) -> int:
        return self.config.players


S = TypeVar("S", bound=MatchState)


class Worlds:
    """Determinizations of one seat's information set, without the state itself: what the
    runner hands an in-process searching bot with its request (``decide_worlds``)."""

    __slots__ = ("_state", "game", "seat")

    def __init__(self, game: Game[Any], state: MatchState, seat: int) -> None:
        self.game = game
        self.seat = seat
        self._state = state

    @property
    def players(self) -> int:
        """The match's player count (public)."""
        return self._state.players

    def sample(self, chance: Chance) -> MatchState:
        """A new world consistent with what the seat knows (``Game.sample_world``)."""
        return self.game.sample_world(self._state, self.seat, chance)


class ObservedWorlds:
    """Determinizations from an observation alone (``Game.world_from_observation``): what a
    searching bot served over gRPC samples, with the interface of :class:`Worlds`."""

    __slots__ = ("config", "game", "observation", "seat")

    def __init__(self, game: Game[Any], config: MatchConfig, seat: int, observation: Message) -> None:
        self.game = game
        self.config = config
        self.seat = seat
        self.observation = observation

    @property
    def players(self) -> int:
        return self.config.players

    def sample(self, chance: Chance) -> MatchState:
        return self.game.world_from_observation(self.config, self.seat, self.observation, chance)


_NOT_COPIED = frozenset({"chance", "log"})  # a world gets its own (copy_for)


class Game(ABC, Generic[S]):
    """A game: metadata, its proto message types and the five rule hooks."""

    meta: ClassVar[GameMeta]
    observation_type: ClassVar[type[Message]]
    action_type: ClassVar[type[Message]]

    # -- the public contract ----------------------------------------------------------------

    def config(self, players: int, options: Mapping[str, object] | None = None) -> MatchConfig:
        """A validated configuration (ConfigError names the problem and the allowed values)."""
        meta = self.meta
        if not isinstance(players, int) or not meta.min_players <= players <= meta.max_players:
            raise ConfigError(f"{meta.id} plays with {meta.min_players}-{meta.max_players} players, not {players}")
        config = MatchConfig(players, validate_options(meta.options, options))
        self.check_config(config)
        return config

    def new_match(self, config: MatchConfig | int, seed: int = 0, chance: Chance | None = None) -> S:
        """A new match; all its chance comes from ``chance`` (default: seeded with ``seed``).
        A :class:`PresetChance` may only preset labels the game draws (:meth:`chance_labels`):
        a misspelt label fell back to random outcomes without a word."""
        if isinstance(config, int):
            config = self.config(config)
        if isinstance(chance, PresetChance):
            self.check_presets(chance)
        state = self.setup(config, chance if chance is not None else Chance(seed))
        state.pending = tuple(self.decisions(state))
        return state

    @classmethod
    def chance_labels(cls) -> frozenset[str]:
        """The labels of the game's chance draws, as its module docstring lists them (its
        "Chance labels" paragraph, each label spelt ``"label"``): the keys a
        :class:`PresetChance` may preset. The contract tests check every label drawn is listed."""
        return _documented_chance_labels(cls.__module__)

    def check_presets(self, chance: PresetChance) -> None:
        """PresetError naming a preset label the game never draws (and the ones it does)."""
        documented = self.chance_labels()
        unknown = sorted(chance.labels() - documented)
        if documented and unknown:
            listed = ", ".join(repr(label) for label in sorted(documented))
            raise PresetError(f"{self.meta.id} draws no chance labelled {unknown[0]!r} (its labels: {listed})")

    def pending(self, state: S) -> tuple[Decision, ...]:
        return state.pending

    def apply(self, state: S, choices: Mapping[int, str]) -> None:
        """Apply one choice per pending seat; on any illegal choice raise and change nothing."""
        pending = state.pending
        if not pending:
            raise MatchOver(f"{self.meta.id}: the match is over")
        seats = sorted(d.seat for d in pending)
        if sorted(choices) != seats:
            raise WrongSeats(f"expected choices for seats {seats}, got {sorted(choices)}")
        chosen: dict[int, Option] = {}
        for decision in pending:
            option_id = choices[decision.seat]
            option = decision.find(option_id)
            if option is None:
                raise IllegalChoice(decision.seat, option_id, decision.option_ids)
            chosen[decision.seat] = option
        self.advance(state, chosen)

    def refresh(self, state: S) -> None:
        """Recompute the pending decisions after a test or tool edited the state directly
        (building a position that preset chance and a script cannot reach quickly)."""
        state.pending = tuple(self.decisions(state))

    def observe(self, state: S, viewer: int) -> Message:
        """What ``viewer`` (a seat, or SPECTATOR) may know now, as the game's Observation."""
        if viewer != SPECTATOR and not 0 <= viewer < state.players:
            raise ValueError(f"no seat {viewer} in a {state.players}-player match")
        return self.observation(state, viewer)

    def result(self, state: S) -> Result | None:
        """Scores and ranks once the match is over, else None."""
        return None if state.pending else self.score(state)

    def is_over(self, state: S) -> bool:
        return not state.pending

    # -- determinization (search) -----------------------------------------------------------

    def sample_world(self, state: S, seat: int, chance: Chance) -> S:
        """A determinization: a NEW full state consistent with everything ``seat`` knows now.

        The seat's own hidden information, the public state and everything deducible from the
        public history (cards shown, voids revealed, counts of hands and decks) are kept; what
        is hidden from the seat (others' hands, deck orders, sealed choices) is re-drawn from
        ``chance``, as close to uniform over the consistent worlds as is practical, by dealing
        the unknown cards constructively (rejection only for a constraint no deal can follow
        card by card, bounded: Seers Catalog's forced passes). The world's own future
        chance is fresh (``copy_for``), its log keeps only the events the seat may see, and its
        pending decisions are recomputed: ``observe(world, seat)`` equals ``observe(state,
        seat)`` byte for byte. ``state`` is never changed.

        This default serves games without hidden information (a copy with fresh chance); a
        game with hidden information (a shuffled deck order is hidden too) overrides it:
        ``world = self.copy_for(state, seat, chance)``, re-draw the hidden parts from
        ``chance``, then ``self.refresh(world)``.
        """
        if self.meta.hidden_information:
            raise NotImplementedError(
                f"{self.meta.id}: sample_world is not implemented (the game has hidden information)"
            )
        world = self.copy_for(state, seat, chance)
        self.refresh(world)
        return world

    def world_from_observation(self, config: MatchConfig, seat: int, observation: Message, chance: Chance) -> S:
        """A determinization from what a bot is sent (a served searching bot has no state): a
        NEW full state ``world`` with ``observe(world, seat) == observation`` (byte for byte),
        everything the observation does not show drawn from ``chance`` consistently with it,
        its future chance fresh (``chance.fork()``) and its pending decisions recomputed. The log starts empty
        (the public history is summarised in the observation, as the contract requires).

        Every registered game implements it (``tests/test_world_from_observation.py`` fails
        for one that does not), so ``arena bot serve --bot search`` plays every game;
        :meth:`observes_worlds` tells whether a game still being written has it. The default
        raises NotImplementedError."""
        raise NotImplementedError(f"{self.meta.id}: world_from_observation is not implemented")

    @classmethod
    def observes_worlds(cls) -> bool:
        """True when the game implements :meth:`world_from_observation`."""
        return cls.world_from_observation is not Game.world_from_observation

    def copy_for(self, state: S, seat: int, chance: Chance) -> S:
        """The start of every ``sample_world``: a fast copy of ``state`` whose log keeps only
        the events ``seat`` may see and whose future chance is a fresh RNG drawn from
        ``chance`` (so the world's dice and draws are not the real match's)."""
        world: S = _copy_object(state, _NOT_COPIED)
        world.chance = chance.fork()
        world.log = EventLog()
        world.log.events = [e for e in state.log.events if e.visible_to(seat)]
        return world

    def clone(self, state: S) -> S:
        """An exact copy of ``state`` (its chance included) that shares only immutable values
        (see :func:`clone`)."""
        return clone(state)

    def advance(self, state: S, chosen: Mapping[int, Option]) -> None:
        """``apply`` for options taken from ``pending`` as they are (a searching bot's inner
        loop): no validation, the same transition."""
        self.resolve(state, chosen)
        state.steps += 1
        state.pending = tuple(self.decisions(state))

    # -- hooks a game implements ------------------------------------------------------------

    def check_config(self, config: MatchConfig) -> None:
        """Reject option combinations the rules do not allow (raise ConfigError)."""

    @abstractmethod
    def setup(self, config: MatchConfig, chance: Chance) -> S:
        """The initial state (shuffle, deal, choose the first player)."""

    @abstractmethod
    def decisions(self, state: S) -> Iterable[Decision]:
        """The decisions open now (empty when the match is over)."""

    @abstractmethod
    def resolve(self, state: S, chosen: Mapping[int, Option]) -> None:
        """Advance the state by the chosen (already validated) options."""

    @abstractmethod
    def observation(self, state: S, viewer: int) -> Message:
        """The Observation for a seat, or the full view for SPECTATOR."""

    @abstractmethod
    def score(self, state: S) -> Result:
        """The final result (called only when no decision is pending)."""


_CHANCE_PARAGRAPH = re.compile(r"^Chance labels\b.*?(?=\n[ \t]*\n|\Z)", re.S | re.M)
_CHANCE_LABEL = re.compile(r'``"([^"`]+)"``')


@functools.cache
def _documented_chance_labels(module: str) -> frozenset[str]:
    doc = getattr(sys.modules.get(module), "__doc__", None) or ""
    return frozenset(label for part in _CHANCE_PARAGRAPH.findall(doc) for label in _CHANCE_LABEL.findall(part))
