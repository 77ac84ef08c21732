"""Reusable checks of the engine contract, for every game.

``tests/test_contract.py`` runs them over every registered game, every supported player count
and every variant; a game's own test module calls them with its invariants and chosen seeds.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

from google.protobuf import text_format
from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import SPECTATOR, Game, IllegalChoice, MatchOver, MatchState, WrongSeats
from arena.record import MatchRecord, replay
from arena.runner import FunctionPlayer, play_match
from arena.v1 import bot_pb2

T = TypeVar("T")

Invariant = Callable[[Any], None]


def configurations(game: Game) -> Iterator[MatchConfig]:
    """Every supported player count with the default options and with each variant."""
    meta = game.meta
    for players in range(meta.min_players, meta.max_players + 1):
        seen: set[tuple[tuple[str, object], ...]] = set()
        for options in [
            {},
            *(dict(v.options) for v in meta.variants if not v.players or players in v.players),
        ]:
            key = tuple(sorted(options.items()))
            if key in seen:
                continue
            seen.add(key)
            try:
                yield game.config(players, options)
            except ValueError:
                continue  # a variant that does not apply at this player count


class DetailTracker(Protocol):
    """What a bot keeping state builds from the typed details of the events it receives."""

    def read(self, kind: str, detail: Message) -> None: ...

    def check(self, observation: Message) -> None: ...


def play_following_details(game: Game, state: MatchState, trackers: Sequence[DetailTracker], rng: Chance) -> None:
    """Play ``state`` out with ``rng``'s choices while each seat's tracker reads the typed details
    of the events it receives (never their text), and is checked against the seat's observation
    whenever it decides (every seat's at the end)."""
    read = [0] * len(trackers)
    while True:
        for seat in [d.seat for d in state.pending] or range(len(trackers)):
            for _, event in state.log.since(seat, read[seat]):
                assert event.detail is not None, event.kind
                trackers[seat].read(event.kind, event.detail)
            read[seat] = len(state.log.events)
            trackers[seat].check(game.observe(state, seat))
        if not state.pending:
            return
        (open_decision,) = state.pending
        game.apply(state, {open_decision.seat: rng.pick(open_decision.option_ids, "test")})


def random_playout(
    game: Game,
    config: MatchConfig,
    seed: int,
    *,
    invariant: Invariant | None = None,
    max_steps: int = 100_000,
    observe: bool = True,
    chance: Chance | None = None,
) -> MatchState:
    """Play uniformly random legal options to the end, checking the contract at every step
    (the match's chance seeded with ``seed`` unless given)."""
    state = game.new_match(config, seed, chance)
    rng = Chance(seed ^ 0x5EED)
    while state.pending:
        assert state.steps < max_steps, f"{game.meta.id}: no end after {max_steps} steps (seed {seed})"
        seats = [d.seat for d in state.pending]
        assert len(seats) == len(set(seats)), "one decision per seat at a time"
        for decision in state.pending:
            assert decision.options, f"empty option list for seat {decision.seat} ({decision.kind})"
            ids = decision.option_ids
            assert len(ids) == len(set(ids)), f"duplicate option ids: {ids}"
            for option in decision.options:
                assert isinstance(option.action, game.action_type)
        if observe:
            for seat in [SPECTATOR, *range(config.players)]:
                obs = game.observe(state, seat)
                assert isinstance(obs, game.observation_type)
                obs.SerializeToString()
        if invariant:
            invariant(state)
        choices = {d.seat: rng.pick(d.options, "test").id for d in state.pending}
        game.apply(state, choices)
    if invariant:
        invariant(state)
    result = game.result(state)
    assert result is not None
    assert len(result.scores) == len(result.ranks) == config.players
    assert min(result.ranks) == 1
    return state


class LabelledChance(Chance):
    """A match's seeded chance that notes every label it is asked to draw by, and in ``bare``
    those drawn as a bare number (``below``, ``weighted``): a label a PresetChance cannot set."""

    def __init__(self, seed: int, labels: set[str], bare: set[str] | None = None) -> None:
        super().__init__(seed)
        self.labels = labels
        self.bare = bare if bare is not None else set()
        self._inside = 0  # within a roll, pick or shuffle (or a deal's shuffles): presettable

    def _presettable(self, draw: Callable[[], T]) -> T:
        self._inside += 1
        try:
            return draw()
        finally:
            self._inside -= 1

    def roll(self, sides: int, label: str) -> int:
        return self._presettable(lambda: super(LabelledChance, self).roll(sides, label))

    def pick(self, items: Sequence[T], label: str) -> T:
        return self._presettable(lambda: super(LabelledChance, self).pick(items, label))

    def shuffled(self, items: Iterable[T], label: str) -> list[T]:
        return self._presettable(lambda: super(LabelledChance, self).shuffled(items, label))

    def below(self, n: int, label: str) -> int:
        self.labels.add(label)
        if not self._inside:
            self.bare.add(label)
        return super().below(n, label)


def random_players(n: int) -> list[FunctionPlayer]:
    players = []
    for seat in range(n):
        rng = Chance(1000 + seat)

        def choose(request: bot_pb2.DecisionRequest, rng: Chance = rng) -> str:
            return rng.pick(list(request.options), "test").id

        players.append(FunctionPlayer(choose, name=f"random{seat}"))
    return players


def recorded_match(game: Game, config: MatchConfig, seed: int) -> MatchRecord:
    return play_match(game, config, seed, random_players(config.players))


def check_replay(game: Game, config: MatchConfig, seed: int) -> None:
    """A record re-simulates to the same result, and survives a JSON round trip."""
    record = recorded_match(game, config, seed)
    replay(game, record)
    again = MatchRecord.from_json(pickle.loads(pickle.dumps(record.to_json())))
    replay(game, again)


def check_determinism(game: Game, config: MatchConfig, seed: int) -> None:
    """Same seed, same decisions: the same record (timings aside)."""
    first = recorded_match(game, config, seed).canonical()
    second = recorded_match(game, config, seed).canonical()
    assert first == second


def check_illegal_rejected(game: Game, config: MatchConfig, seed: int, every: int = 7) -> None:
    """Illegal ids, a missing or an extra seat, and a choice after the end raise their typed
    errors (the engine contract's ``IllegalChoice``, ``WrongSeats``, ``MatchOver``) and leave
    the state byte-identical."""
    state = game.new_match(config, seed)
    rng = Chance(seed)
    step = 0
    while state.pending:
        if step % every == 0:
            before = pickle.dumps(state)
            decision = state.pending[0]
            legal = {d.seat: d.options[0].id for d in state.pending}
            bad = legal | {decision.seat: "no-such-option"}
            try:
                game.apply(state, bad)
            except IllegalChoice as exc:
                assert exc.seat == decision.seat
            else:
                raise AssertionError("an illegal option was accepted")
            assert pickle.dumps(state) == before, "state changed by an illegal choice"
            missing = {seat: option for seat, option in legal.items() if seat != decision.seat}
            idle = [seat for seat in range(config.players) if seat not in legal]
            extra = legal | {idle[0] if idle else config.players: decision.options[0].id}
            for wrong in (missing, extra):
                try:
                    game.apply(state, wrong)
                except WrongSeats:
                    pass
                else:
                    raise AssertionError(f"choices for seats {sorted(wrong)} were accepted")
                assert pickle.dumps(state) == before, "state changed by choices for the wrong seats"
        game.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
        step += 1
    before = pickle.dumps(state)
    try:
        game.apply(state, {0: "any"})
    except MatchOver:
        pass
    else:
        raise AssertionError("a choice was accepted after the end")
    assert pickle.dumps(state) == before, "a finished match changed"


def check_hidden_information_declared(game: Game, config: MatchConfig, seed: int) -> None:
    """A game that tells a seat something it keeps from another (a private event) declares
    hidden information: without the flag its worlds (``Game.sample_world``'s default, a copy)
    would hold the truth, and the leak tests would pass it by."""
    state = random_playout(game, config, seed, observe=False)
    private = next((e for e in state.log.events if e.to is not None), None)
    assert private is None or game.meta.hidden_information, (
        f"{game.meta.id} logs private events ({private.kind!r} to seats {sorted(private.to or ())}) "
        "but does not declare hidden_information=True"
    )


def seen_nature(game: Game, seeds: Iterable[int] = range(4), max_steps: int = 400) -> tuple[bool, bool]:
    """(simultaneous, chance) as playouts of every configuration show them: several seats
    asked at once; two seeds that, given the same choices, show a spectator different tables
    or options. What ``GameMeta`` says of both is what ``arena games``, ``arena rules`` and
    the README's table tell bot authors."""
    simultaneous = chance = False
    for config in configurations(game):
        for seed in seeds:
            a, b = game.new_match(config, seed), game.new_match(config, seed + 1000)
            for step in range(max_steps):
                if not a.pending:
                    break
                simultaneous = simultaneous or len(a.pending) > 1
                chance = chance or (
                    observation_bytes(game, a, SPECTATOR) != observation_bytes(game, b, SPECTATOR)
                    or [d.option_ids for d in a.pending] != [d.option_ids for d in b.pending]
                )
                choices = {d.seat: d.options[(step * 7 + d.seat) % len(d.options)].id for d in a.pending}
                game.apply(a, choices)
                if not chance:
                    game.apply(b, choices)
            if simultaneous and chance:
                return True, True
    return simultaneous, chance


def observation_bytes(game: Game, state: MatchState, seat: int) -> bytes:
    return game.observe(state, seat).SerializeToString(deterministic=True)


def visible_events(state: MatchState, seat: int) -> list[tuple[int, str, str, bytes]]:
    return [
        (e.seat, e.kind, e.text, e.detail.SerializeToString(deterministic=True) if e.detail else b"")
        for _, e in state.log.since(seat, 0)
    ]


def assert_same_view(game: Game, a: MatchState, b: MatchState, seat: int) -> None:
    """Two states give ``seat`` byte-identical observations, events and options, and ask the
    same seats (public: who is asked drives every request's ``decision_index`` and
    ``simultaneous``, so a seat skipped for what it holds tells the others)."""
    where = f"seat {seat}, step {a.steps}"
    if observation_bytes(game, a, seat) != observation_bytes(game, b, seat):
        raise AssertionError(f"{where}: the observations differ: {observation_difference(game, a, b, seat)}")
    assert visible_events(a, seat) == visible_events(b, seat), f"{where}: the visible events differ"
    view_a = [(d.seat, d.kind, d.option_ids) for d in a.pending if d.seat == seat]
    view_b = [(d.seat, d.kind, d.option_ids) for d in b.pending if d.seat == seat]
    assert view_a == view_b, f"{where}: the seat's options differ"
    asked_a, asked_b = sorted(d.seat for d in a.pending), sorted(d.seat for d in b.pending)
    assert asked_a == asked_b, f"{where}: seats {asked_a} are asked in one state, {asked_b} in the other"


def observation_difference(game: Game, a: MatchState, b: MatchState, seat: int) -> str:
    """The fields of ``seat``'s observation that differ between two states, each as both show
    it (the first state's value, then the second's): a byte comparison names nothing."""
    first, second = game.observe(a, seat), game.observe(b, seat)
    names = sorted({f.name for f, _ in first.ListFields()} | {f.name for f, _ in second.ListFields()})
    differ = [n for n in names if getattr(first, n) != getattr(second, n)]
    return "; ".join(f"{n}: {_shown(getattr(first, n))} != {_shown(getattr(second, n))}" for n in differ) or (
        "the bytes differ in field order only"
    )


def _shown(value: Any) -> str:
    """A field's value in a line: a message as text format, a repeated field as a list."""
    if isinstance(value, Message):
        text = text_format.MessageToString(value, as_one_line=True)
    elif isinstance(value, (str, bytes, int, float, bool)):
        text = repr(value)
    else:
        text = repr([_shown(v) if isinstance(v, Message) else v for v in value])
    return text if len(text) <= 300 else text[:300] + "..."


def worlds_from_observations(game: Game, config: MatchConfig, seed: int, rng: Chance) -> Iterator[tuple[Any, int, Any]]:
    """``(state, seat, world)`` at every decision of a seeded random playout: ``world`` built by
    ``world_from_observation`` from the deciding seat's observation (``rng`` draws the worlds
    and the random choices, in that order)."""
    state = game.new_match(config, seed)
    while state.pending:
        for decision in state.pending:
            seat = decision.seat
            yield state, seat, game.world_from_observation(config, seat, game.observe(state, seat), rng)
        game.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})


def every_viewer(state: MatchState) -> Iterable[int]:
    return (SPECTATOR, *range(state.players))


def deciding_seat(state: MatchState) -> Iterable[int]:
    return (state.pending[0].seat,)


def playout_digest(
    game: Game, players: int, viewers: Callable[[MatchState], Iterable[int]], world_every: int = 0
) -> tuple[int, int, str]:
    """(observations, worlds, SHA-256) of two seeded random playouts: at every position the
    observations of ``viewers``, then, when the count of observations is a multiple of
    ``world_every``, the spectator's view of a world sampled for the deciding seat. Pinned, it
    shows any change in the bytes of a game's observations or in what its worlds deal."""
    h, n, worlds = hashlib.sha256(), 0, 0
    for seed in range(2):
        state = game.new_match(game.config(players), seed, None)
        rng = Chance(seed + 7)
        while state.pending:
            for viewer in viewers(state):
                h.update(game.observe(state, viewer).SerializeToString(deterministic=True))
                n += 1
            if world_every and n % world_every == 0:
                world = game.sample_world(state, state.pending[0].seat, Chance(n))
                h.update(game.observe(world, SPECTATOR).SerializeToString(deterministic=True))
                worlds += 1
            game.advance(state, {d.seat: d.options[rng.below(len(d.options), "x")] for d in state.pending})
    return n, worlds, h.hexdigest()
