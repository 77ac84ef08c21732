"""Eggs and Empires — simultaneous Adventurers, then Eggs in rank order (``shared/rules/eggsandempires.md``).

Rules as implemented (rulebook line references in brackets):

* 2-6 players, each with an Adventurer deck ranked 1-10 [:14-16, :198-323]; the Egg deck by
  player count [:34-42] (values designed: ``components.toml``). 3 rounds of 9 turns [:86-87].
* Round start [:48-62, :354-367]: shuffle your Adventurers, draw 3; each player may once per
  round redraw the starting hand; reveal the turn's Eggs (2/2/2/3/4 by player count, :72-80).
* A turn [:90-98]: everyone secretly chooses an Adventurer [:104-110]; they are revealed and
  collect Eggs from the highest rank down [:114-126], one Egg each, taking one if able
  [:130-142]; equal ranks start with the Tie Breaker holder and go clockwise, and the marker
  passes left after a turn with a tie [:146-158]. Then played cards and unclaimed Eggs are
  discarded, new Eggs revealed [:162-176], Turn End abilities resolve and hands refill to 3
  [:180-192].
* Abilities [:202-323]: Scout adds a face-down Egg for the next turn, seen by the Scout only;
  Shepherd collects before any Blacksmith; Courier may give its Egg away; Merchant is +6 when it
  collected nothing; Priest may discard one collected Egg; Mage never takes a face-up Exploding
  Egg and may refuse a face-down one; Blacksmith is -4 when it collected nothing; two or more
  Dark Priestesses cancel (no Egg, no tie); Bard and Hero have none.
* Round scoring [:337-350]: Eggs + Merchants - Blacksmiths. After 3 rounds the highest total
  wins; ties share [:380-390]. The marker goes to the lowest total at each later round [:360].
* 2 players [:394-467]: two decks each, hands of 4, two different Adventurers per turn, up to
  two Eggs. Con/Pub scoring (option ``scoring=conpub``) [:471-495]: the round's best score(s)
  get an Egg token; 3 tokens win at 2-4 players, 2 at 5-6.

Rulings (``shared/rules/NOTES.md`` §4.2 unless stated):

1. **Egg deck** (not printed): designed in ``components.toml``: 22 cards marked 2/3/4p (the 2p
   game uses them, NOTES 1), 10 more at 5p, all 42 at 6p; the printed 13 and -6 exist.
2. **2-player hands**: 20 cards, 4 in hand, 2 played per turn: 2 cards stay unused (NOTES 2).
3. **Redraw** (:58-62): the 3 cards (4 at 2 players) are set aside, as many are drawn from the
   rest, then the set-aside cards are shuffled back in (NOTES 3). Asked of every seat at once,
   sealed, at each round start, before the round's starting Eggs are revealed (player setup
   :54-62 precedes the reveal :66-70; a new round: draw :358, redraw :359, reveal :364).
4. **Turn order** (NOTES 4): collect; discard played cards (a Merchant or Blacksmith that took
   nothing goes to the scoring pile) and unclaimed Eggs; reveal new Eggs (not after turn 9);
   Turn End abilities clockwise from the marker's holder (a seat's two cards in rank order);
   pass the marker if there was a tie; draw up to the hand size.
5. **Scout on turn 9**: no next turn, so no Egg (NOTES 5); nor when the Egg deck is empty.
6. **Face-down Eggs** can be taken by anyone and count for "must take an Egg" (NOTES 6); the
   collector sees the value, the others do not. Unclaimed ones are discarded unseen. Who has
   seen each one (its Scout :217, :229, its collector, a Courier's receiver) is public: every
   observation carries it (``Egg.known_by``).
7. **Mage** (:282-290): it may take a face-up Egg of value 0 or more, or a face-down Egg; when
   only face-down Eggs are allowed to it, ``none`` is offered too (NOTES 7).
8. **Shepherd** (:237, example :450-455): when any Blacksmith was played, every Shepherd moves
   just before the first Blacksmith, keeping their tie order (NOTES 8).
9. **Ties** (:146-158): any two revealed cards of equal rank, except cancelled Dark
   Priestesses, make the marker pass left at turn end (NOTES 9). A seat's own two cards never
   tie (different ranks).
10. **Marker at a new round** (:360): the lowest total; among equals the first clockwise after
    the current holder (NOTES 11). At the start: a seeded random seat (NOTES 15).
11. **Courier** (:245-249): optional; ``give:<seat>`` to any other seat; the receiver sees the
    Egg (NOTES 12): a face-down one's value comes to it in a private ``courier`` event, as a
    collector's in a private ``collect`` event (version 4; the observation showed it, no event).
    **Priest** (:265-274): optional; any one Egg of its collection this round, an Egg a
    Courier gave it too: it is in its collection ("own eggs", NOTES :231), and "previously
    collected" (:269) sets an earlier turn's Eggs beside this turn's (:273-274). The Mage's
    "must keep" (:290) is about taking it: the same seat's Priest may discard it afterwards.
12. **A single legal Egg is taken automatically** (no decision); the Mage's ``none`` makes its
    choice a real one.
13. **Con/Pub** (:471-495): rounds go on until someone has the tokens needed (NOTES 14); all
    who reach it in the same round share the win; the others rank by tokens, then total VP.
14. **Scores in the result**: total VP (total scoring), Egg tokens (Con/Pub).

Bound: a round asks 1 ``mulligan`` step and 9 turns; a turn asks 1 ``play`` step, at most one
``collect`` per card played (the cursor passes each entry once) and at most one ``courier`` or
``priest`` per card played, so with C cards a turn (4 at 2 players, else one a player) a round
has at most 1 + 9 × (1 + 2C) steps. Total scoring plays 3 rounds: at most 246 / 192 / 246 / 300
/ 354 steps at 2–6 players. Con/Pub gives at least one token a round, so someone holds the K
tokens needed (3 at 2–4 players, 2 at 5–6) after at most players × (K − 1) + 1 rounds (5 / 7 /
9 / 6 / 7): at most 410 / 448 / 738 / 600 / 826 steps. Random play takes at most 84 / 82 / 87 /
122 / 154 (total) and 138 / 183 / 244 / 232 / 348 (Con/Pub) over 200 games.

Chance labels (in draw order): ``"marker"`` (the first holder), then per round ``"adventurers"``
(each seat's shuffle, seat order), ``"eggs"`` (the Egg deck), ``"mulligan"`` (each redraw's
reshuffle, seat order).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig, OptionSpec
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result, Variant
from arena.games.v1 import eggsandempires_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))
ROUNDS: int = _DATA["game"]["rounds"]
TURNS: int = _DATA["game"]["turns"]
EGGS_PER_TURN = {int(k): v for k, v in _DATA["game"]["eggs_per_turn"].items()}
TOKENS_TO_WIN = {int(k): v for k, v in _DATA["game"]["tokens_to_win"].items()}
MERCHANT_BONUS: int = _DATA["adventurers"]["merchant_bonus"]
BLACKSMITH_PENALTY: int = _DATA["adventurers"]["blacksmith_penalty"]
NAMES: tuple[str, ...] = tuple(_DATA["adventurers"]["names"])
BARD, SCOUT, SHEPHERD, COURIER, MERCHANT, PRIEST, MAGE, BLACKSMITH, PRIESTESS, HERO = range(1, 11)


class EggCard(NamedTuple):
    id: int  # position in the canonical deck (equal values are different cards)
    value: int


def egg_deck(players: int) -> list[EggCard]:
    """The Egg cards used at this player count, in canonical order [:34-42]."""
    eggs = _DATA["eggs"]
    values = list(eggs["core"]) + (eggs["five"] if players >= 5 else []) + (eggs["six"] if players == 6 else [])
    return [EggCard(i, v) for i, v in enumerate(values)]


def hand_size(players: int) -> int:
    return _DATA["game"]["hand_two_player"] if players == 2 else _DATA["game"]["hand"]


def rank_name(rank: int) -> str:
    return f"{NAMES[rank - 1]} ({rank})"


@dataclass
class Entry:
    """A revealed Adventurer in this turn's collection order."""

    seat: int
    rank: int
    cancelled: bool = False
    collected: EggCard | None = None
    done: bool = False


@dataclass
class EggsState(MatchState):
    round: int = 0
    turn: int = 0
    phase: pb.Phase.ValueType = pb.MULLIGAN_PHASE
    marker: int = 0
    hands: list[list[int]] = field(default_factory=list)
    draws: list[list[int]] = field(default_factory=list)  # top first
    played: list[list[int]] = field(default_factory=list)  # this round, revealed
    mulliganed: list[bool] = field(default_factory=list)
    deck: list[EggCard] = field(default_factory=list)  # top first
    face_up: list[EggCard] = field(default_factory=list)
    face_down: list[EggCard] = field(default_factory=list)
    private: dict[int, set[int]] = field(default_factory=dict)  # hidden Egg id -> seats that know it
    collections: list[list[EggCard]] = field(default_factory=list)
    egg_discard: list[EggCard] = field(default_factory=list)
    merchants: list[int] = field(default_factory=list)
    blacksmiths: list[int] = field(default_factory=list)
    order: list[Entry] = field(default_factory=list)
    cursor: int = 0
    tie: bool = False
    tasks: list[tuple[int, int]] = field(default_factory=list)  # turn end: (seat, rank) still to resolve
    round_scores: list[list[int]] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    over: bool = False

    @property
    def con_pub(self) -> bool:
        return self.config.options.get("scoring") == "conpub"

    def totals(self) -> list[int]:
        return [sum(scores) for scores in self.round_scores]

    def knows(self, viewer: int, egg: EggCard) -> bool:
        seats = self.private.get(egg.id)
        return seats is None or viewer == SPECTATOR or viewer in seats


# --------------------------------------------------------------------------------------------
# Options


def _play_option(ranks: tuple[int, ...]) -> Option:
    if len(ranks) == 1:
        return Option(f"card:{ranks[0]}", f"play the {rank_name(ranks[0])}", pb.Action(kind=pb.PLAY, ranks=ranks))
    label = f"play the {rank_name(ranks[0])} and the {rank_name(ranks[1])}"
    return Option(f"cards:{ranks[0]}+{ranks[1]}", label, pb.Action(kind=pb.PLAY, ranks=ranks))


_KEEP = Option("keep", "keep", pb.Action(kind=pb.KEEP))
_REDRAW = Option("redraw", "redraw the starting hand", pb.Action(kind=pb.REDRAW))
_NONE = Option("none", "collect nothing (Mage)", pb.Action(kind=pb.NONE))


def play_options(hand: Sequence[int], two_player: bool) -> tuple[Option, ...]:
    ranks = sorted(set(hand), reverse=True)
    if not two_player:
        return tuple(_play_option((r,)) for r in ranks)
    return tuple(_play_option((a, b)) for i, a in enumerate(ranks) for b in ranks[i + 1 :])


def ranks_of(option_id: str) -> tuple[int, ...]:
    return tuple(int(x) for x in option_id.split(":")[1].split("+"))


# --------------------------------------------------------------------------------------------
# Rules helpers


def collection_order(plays: Sequence[tuple[int, int]], marker: int, players: int) -> tuple[list[Entry], bool]:
    """The collection order of revealed (seat, rank) plays, and whether there was a tie.

    Highest rank first; equal ranks from the marker's holder clockwise; two or more Dark
    Priestesses cancel; Shepherds collect just before the first Blacksmith (ruling 8).
    """
    priestesses = sum(rank == PRIESTESS for _, rank in plays)
    entries = [Entry(seat, rank, cancelled=rank == PRIESTESS and priestesses > 1) for seat, rank in plays]
    entries.sort(key=lambda e: (-e.rank, (e.seat - marker) % players))
    tie = has_tie(entries)
    if any(e.rank == BLACKSMITH for e in entries):
        shepherds = [e for e in entries if e.rank == SHEPHERD]
        rest = [e for e in entries if e.rank != SHEPHERD]
        first = next(i for i, e in enumerate(rest) if e.rank == BLACKSMITH)
        entries = rest[:first] + shepherds + rest[first:]
    return entries, tie


def has_tie(entries: Iterable[Entry]) -> bool:
    """Two revealed cards of equal rank, cancelled Dark Priestesses aside (ruling 9)."""
    live = [e.rank for e in entries if not e.cancelled]
    return len(live) != len(set(live))


def turn_end_tasks(entries: Iterable[Entry], marker: int, players: int) -> list[tuple[int, int]]:
    """The Turn End abilities of these entries as (seat, rank), in resolution order: clockwise
    from the marker's holder, a seat's two cards in rank order (ruling 4)."""
    return [
        (e.seat, e.rank)
        for e in sorted(entries, key=lambda e: ((e.seat - marker) % players, -e.rank))
        if e.rank in (SCOUT, COURIER, PRIEST)
    ]


def round_vp(eggs: Iterable[EggCard], merchants: int, blacksmiths: int) -> int:
    return sum(e.value for e in eggs) + MERCHANT_BONUS * merchants + BLACKSMITH_PENALTY * blacksmiths


def _egg_pb(egg: EggCard, known: bool, face_down: bool) -> pb.Egg:
    return pb.Egg(value=egg.value if known else 0, known=known, face_down=face_down)


def _seen_egg_pb(state: EggsState, viewer: int, egg: EggCard) -> pb.Egg:
    """An Egg as the observation shows it: a face-down one with the seats that know its value
    (public, and what a world from the observation needs to give the others their views)."""
    seats = state.private.get(egg.id)
    if seats is None:
        return pb.Egg(value=egg.value, known=True)
    known = viewer == SPECTATOR or viewer in seats
    return pb.Egg(value=egg.value if known else 0, known=known, face_down=True, known_by=sorted(seats))


def _detail(**fields: object) -> pb.Detail:
    return pb.Detail(**fields)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# The game


class EggsAndEmpires(Game[EggsState]):
    meta = GameMeta(
        id="eggsandempires",
        name="Eggs and Empires",
        min_players=2,
        max_players=6,
        # 2: the starting Eggs are revealed after the redraw decisions (ruling 3); 3: the
        # observation says who has seen each face-down Egg (known_by, face_down_discards)
        version="4.1",  # 4.1: event texts name seats and read as English, not Python lists
        options=(OptionSpec("scoring", "total", "total VP over 3 rounds, or Con/Pub Egg tokens", ("total", "conpub")),),
        variants=(
            Variant("two-player", "two decks each, hands of 4, two Adventurers per turn", {}, (2,)),
            Variant(
                "con-pub", "the round's best score takes an Egg token; 3 (2-4p) or 2 (5-6p) win", {"scoring": "conpub"}
            ),
        ),
        simultaneous=True,
        hidden_information=True,
        summary="Secretly send an Adventurer each turn; higher ranks collect Dragon Eggs first, "
        "abilities bend the order; avoid Exploding Eggs over 3 rounds of 9 turns.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> EggsState:
        players = config.players
        state = EggsState(
            config=config,
            chance=chance,
            round_scores=[[] for _ in range(players)],
            tokens=[0] * players,
        )
        state.marker = chance.pick(range(players), "marker")
        state.log.public(
            state.marker, "marker", f"seat {state.marker} holds the Tie Breaker Marker", _detail(seat=state.marker)
        )
        self._start_round(state)
        return state

    # -- decisions ----------------------------------------------------------------------------

    def decisions(self, state: EggsState) -> Iterable[Decision]:
        phase = state.phase
        if phase == pb.MULLIGAN_PHASE:
            return tuple(Decision(s, "mulligan", (_KEEP, _REDRAW)) for s in range(state.players))
        if phase == pb.PLAY_PHASE:
            two = state.players == 2
            return tuple(Decision(s, "play", play_options(state.hands[s], two)) for s in range(state.players))
        if phase == pb.COLLECT_PHASE:
            entry = state.order[state.cursor]
            return (Decision(entry.seat, "collect", self._collect_options(state, entry)),)
        if phase == pb.TURN_END_PHASE:
            seat, rank = state.tasks[0]
            if rank == COURIER:
                give = tuple(
                    Option(f"give:{s}", f"give the Egg to seat {s}", pb.Action(kind=pb.GIVE, seat=s))
                    for s in range(state.players)
                    if s != seat
                )
                return (Decision(seat, "courier", (_KEEP, *give)),)
            discard = tuple(
                Option(f"discard:{i}", f"discard your Egg number {i}", pb.Action(kind=pb.DISCARD, index=i))
                for i in range(1, len(state.collections[seat]) + 1)
            )
            return (Decision(seat, "priest", (_KEEP, *discard)),)
        return ()

    @staticmethod
    def _collect_options(state: EggsState, entry: Entry) -> tuple[Option, ...]:
        mage = entry.rank == MAGE
        values = sorted({e.value for e in state.face_up if not (mage and e.value < 0)}, reverse=True)
        options = [Option(f"egg:{v}", f"collect the {v} VP Egg", pb.Action(kind=pb.COLLECT, value=v)) for v in values]
        options += [
            Option(f"hidden:{n}", f"collect face-down Egg {n}", pb.Action(kind=pb.COLLECT, hidden=n))
            for n in range(1, len(state.face_down) + 1)
        ]
        if mage and not values and state.face_down:
            options.append(_NONE)
        return tuple(options)

    # -- transitions --------------------------------------------------------------------------

    def resolve(self, state: EggsState, chosen: Mapping[int, Option]) -> None:
        phase = state.phase
        if phase == pb.MULLIGAN_PHASE:
            self._mulligan(state, chosen)
        elif phase == pb.PLAY_PHASE:
            self._reveal(state, {seat: ranks_of(option.id) for seat, option in chosen.items()})
        elif phase == pb.COLLECT_PHASE:
            ((seat, option),) = chosen.items()
            entry = state.order[state.cursor]
            self._take(state, entry, option.id)
            self._next_collector(state)
        elif phase == pb.TURN_END_PHASE:
            ((seat, option),) = chosen.items()
            _, rank = state.tasks.pop(0)
            if rank == COURIER:
                self._courier(state, seat, option.id)
            else:
                self._priest(state, seat, option.id)
            self._run_tasks(state)

    def _start_round(self, state: EggsState) -> None:
        state.round += 1
        state.turn = 1
        players = state.players
        size = hand_size(players)
        copies = 2 if players == 2 else 1
        state.hands, state.draws = [], []
        for _ in range(players):
            cards = state.chance.shuffled([r for r in range(1, 11) for _ in range(copies)], "adventurers")
            state.hands.append(sorted(cards[:size]))
            state.draws.append(cards[size:])
        state.deck = state.chance.shuffled(egg_deck(players), "eggs")
        state.face_up, state.face_down, state.private, state.egg_discard = [], [], {}, []
        state.collections = [[] for _ in range(players)]
        state.played = [[] for _ in range(players)]
        state.merchants, state.blacksmiths = [0] * players, [0] * players
        state.mulliganed = [False] * players
        if state.round > 1:
            totals = state.totals()
            low = min(totals)
            state.marker = next(
                s for s in ((state.marker + k) % players for k in range(1, players + 1)) if totals[s] == low
            )
            state.log.public(
                state.marker,
                "marker",
                f"seat {state.marker} (lowest total) takes the Tie Breaker Marker",
                _detail(seat=state.marker),
            )
        state.log.public(CHANCE_SEAT, "round", f"round {state.round}", _detail(round=state.round))
        for seat in range(players):
            self._tell_hand(state, seat, "deal")
        state.phase = pb.MULLIGAN_PHASE  # the starting Eggs are revealed after it (ruling 3)

    def _tell_hand(self, state: EggsState, seat: int, kind: str) -> None:
        hand = state.hands[seat]
        state.log.private([seat], seat, kind, f"hand: {', '.join(map(str, hand))}", _detail(seat=seat, ranks=hand))

    def _reveal_eggs(self, state: EggsState) -> None:
        new = [state.deck.pop(0) for _ in range(min(EGGS_PER_TURN[state.players], len(state.deck)))]
        state.face_up = new
        shown = ", ".join(str(e.value) for e in new)
        state.log.public(
            CHANCE_SEAT, "eggs", f"Eggs revealed: {shown}", _detail(eggs=[_egg_pb(e, True, False) for e in new])
        )

    def _mulligan(self, state: EggsState, chosen: Mapping[int, Option]) -> None:
        size = hand_size(state.players)
        for seat in sorted(chosen):
            redraw = chosen[seat].id == "redraw"
            state.log.public(
                seat, "mulligan", "redraws the starting hand" if redraw else "keeps", _detail(seat=seat, redraw=redraw)
            )
            if redraw:
                aside = state.hands[seat]
                state.hands[seat] = sorted(state.draws[seat][:size])
                state.draws[seat] = state.chance.shuffled(state.draws[seat][size:] + aside, "mulligan")
                state.mulliganed[seat] = True
                self._tell_hand(state, seat, "draw")
        self._reveal_eggs(state)
        state.phase = pb.PLAY_PHASE

    def _reveal(self, state: EggsState, plays: Mapping[int, tuple[int, ...]]) -> None:
        revealed = []
        for seat in sorted(plays):
            for rank in plays[seat]:
                state.hands[seat].remove(rank)
                state.played[seat].append(rank)
                revealed.append((seat, rank))
        state.order, state.tie = collection_order(revealed, state.marker, state.players)
        text = ", ".join(f"seat {e.seat} {rank_name(e.rank)}" for e in state.order)
        state.log.public(
            CHANCE_SEAT, "reveal", f"turn {state.turn}: {text}", _detail(entries=[_entry_pb(e) for e in state.order])
        )
        cancelled = [e.seat for e in state.order if e.cancelled]
        if cancelled:
            state.log.public(CHANCE_SEAT, "cancel", "the Dark Priestesses cancel each other", _detail(seats=cancelled))
        state.phase = pb.COLLECT_PHASE
        state.cursor = -1
        self._next_collector(state)

    def _next_collector(self, state: EggsState) -> None:
        """Move to the next entry that has a choice; take single legal Eggs automatically."""
        while True:
            if state.cursor >= 0:
                state.order[state.cursor].done = True
            state.cursor += 1
            if state.cursor >= len(state.order):
                self._end_turn(state)
                return
            entry = state.order[state.cursor]
            if entry.cancelled:
                continue
            options = self._collect_options(state, entry)
            if len(options) > 1:
                return  # a decision (the phase stays COLLECT)
            if options:
                self._take(state, entry, options[0].id)

    def _take(self, state: EggsState, entry: Entry, option_id: str) -> None:
        seat = entry.seat
        if option_id == "none":
            state.log.public(
                seat, "collect", f"{rank_name(entry.rank)} collects nothing", _detail(seat=seat, rank=entry.rank)
            )
            return
        kind, _, arg = option_id.partition(":")
        if kind == "egg":
            egg = next(e for e in state.face_up if e.value == int(arg))
            state.face_up.remove(egg)
        else:
            egg = state.face_down.pop(int(arg) - 1)
            state.private[egg.id].add(seat)
        entry.collected = egg
        state.collections[seat].append(egg)
        hidden = egg.id in state.private
        what = "a face-down Egg" if hidden else f"the {egg.value} VP Egg"
        detail = _detail(seat=seat, rank=entry.rank, egg=_egg_pb(egg, not hidden, hidden))
        state.log.public(seat, "collect", f"{rank_name(entry.rank)} collects {what}", detail)
        if hidden:
            state.log.private(
                sorted(state.private[egg.id]),
                seat,
                "collect",
                f"the face-down Egg is worth {egg.value} VP",
                _detail(seat=seat, rank=entry.rank, egg=_egg_pb(egg, True, True)),
            )

    def _end_turn(self, state: EggsState) -> None:
        for entry in state.order:
            if entry.collected is None and entry.rank in (MERCHANT, BLACKSMITH):
                pile = state.merchants if entry.rank == MERCHANT else state.blacksmiths
                pile[entry.seat] += 1
                points = MERCHANT_BONUS if entry.rank == MERCHANT else BLACKSMITH_PENALTY
                state.log.public(
                    entry.seat,
                    "bonus",
                    f"{rank_name(entry.rank)} took no Egg: {points:+d} VP this round",
                    _detail(seat=entry.seat, rank=entry.rank),
                )
        state.egg_discard += state.face_up + state.face_down
        state.face_up, state.face_down = [], []
        if state.turn < TURNS:
            self._reveal_eggs(state)
        state.tasks = turn_end_tasks(state.order, state.marker, state.players)
        state.phase = pb.TURN_END_PHASE
        self._run_tasks(state)

    def _run_tasks(self, state: EggsState) -> None:
        """Resolve Turn End abilities in order until one needs a decision."""
        while state.tasks:
            seat, rank = state.tasks[0]
            entry = next(e for e in state.order if e.seat == seat and e.rank == rank)
            if rank == SCOUT:
                state.tasks.pop(0)
                if state.turn < TURNS and state.deck:
                    egg = state.deck.pop(0)
                    state.face_down.append(egg)
                    state.private[egg.id] = {seat}
                    state.log.public(
                        seat, "scout", "the Scout adds a face-down Egg for the next turn", _detail(seat=seat)
                    )
                    state.log.private(
                        [seat],
                        seat,
                        "scout",
                        f"the face-down Egg is worth {egg.value} VP",
                        _detail(seat=seat, egg=_egg_pb(egg, True, True)),
                    )
                continue
            if entry.collected is None or entry.collected not in state.collections[seat]:
                state.tasks.pop(0)  # nothing collected (or already discarded by a Priest)
                continue
            return  # a Courier or Priest decision
        self._finish_turn(state)

    def _courier(self, state: EggsState, seat: int, option_id: str) -> None:
        entry = next(e for e in state.order if e.seat == seat and e.rank == COURIER)
        egg = entry.collected
        assert egg is not None
        if option_id == "keep":
            state.log.public(seat, "courier", "the Courier keeps its Egg", _detail(seat=seat, to_seat=-1))
            return
        to = int(option_id.removeprefix("give:"))
        state.collections[seat].remove(egg)
        state.collections[to].append(egg)
        hidden = egg.id in state.private
        if hidden:
            state.private[egg.id].add(to)
        what = "a face-down Egg" if hidden else f"the {egg.value} VP Egg"
        state.log.public(
            seat,
            "courier",
            f"the Courier gives {what} to seat {to}",
            _detail(seat=seat, to_seat=to, egg=_egg_pb(egg, not hidden, hidden)),
        )
        if hidden:  # the seats that know it (its Scout, the giver, now the receiver: ruling 11)
            state.log.private(
                sorted(state.private[egg.id]),
                seat,
                "courier",
                f"the face-down Egg is worth {egg.value} VP",
                _detail(seat=seat, to_seat=to, egg=_egg_pb(egg, True, True)),
            )

    def _priest(self, state: EggsState, seat: int, option_id: str) -> None:
        if option_id == "keep":
            state.log.public(seat, "priest", "the Priest keeps every Egg", _detail(seat=seat))
            return
        index = int(option_id.removeprefix("discard:"))
        egg = state.collections[seat].pop(index - 1)
        state.egg_discard.append(egg)
        hidden = egg.id in state.private
        what = "a face-down Egg" if hidden else f"the {egg.value} VP Egg"
        state.log.public(
            seat,
            "priest",
            f"the Priest discards {what}",
            _detail(seat=seat, index=index, egg=_egg_pb(egg, not hidden, hidden)),
        )

    def _finish_turn(self, state: EggsState) -> None:
        if state.tie:
            state.marker = (state.marker + 1) % state.players
            state.log.public(
                state.marker, "marker", f"a tie: the marker passes to seat {state.marker}", _detail(seat=state.marker)
            )
        size = hand_size(state.players)
        for seat in range(state.players):
            need = size - len(state.hands[seat])
            if need > 0 and state.draws[seat]:
                state.hands[seat] = sorted(state.hands[seat] + state.draws[seat][:need])
                state.draws[seat] = state.draws[seat][need:]
                self._tell_hand(state, seat, "draw")
        state.order, state.tasks, state.tie = [], [], False
        if state.turn < TURNS:
            state.turn += 1
            state.phase = pb.PLAY_PHASE
            return
        self._end_round(state)

    def _end_round(self, state: EggsState) -> None:
        players = state.players
        scores = [round_vp(state.collections[s], state.merchants[s], state.blacksmiths[s]) for s in range(players)]
        for seat in range(players):
            state.round_scores[seat].append(scores[seat])
        if state.con_pub:
            best = max(scores)
            for seat in range(players):
                state.tokens[seat] += scores[seat] == best
        state.log.public(
            CHANCE_SEAT,
            "round-end",
            f"round {state.round}: VP " + ", ".join(f"seat {s} {v}" for s, v in enumerate(scores)),
            _detail(round=state.round, scores=scores, tokens=state.tokens),
        )
        done = max(state.tokens) >= TOKENS_TO_WIN[players] if state.con_pub else state.round == ROUNDS
        if done:
            state.over = True
            state.phase = pb.OVER_PHASE
            totals = state.totals()
            text = "game over: totals " + ", ".join(f"seat {s} {v}" for s, v in enumerate(totals))
            state.log.public(CHANCE_SEAT, "end", text, _detail(scores=totals))
            return
        self._start_round(state)

    # -- views --------------------------------------------------------------------------------

    def observation(self, state: EggsState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        players = state.players
        seats = []
        for s in range(players):
            eggs = state.collections[s]
            known = [e for e in eggs if state.knows(viewer, e)]
            seats.append(
                pb.SeatView(
                    eggs=[_seen_egg_pb(state, viewer, e) for e in eggs],
                    merchants=state.merchants[s],
                    blacksmiths=state.blacksmiths[s],
                    known_round_vp=round_vp(known, state.merchants[s], state.blacksmiths[s]),
                    unknown_eggs=len(eggs) - len(known),
                    round_scores=state.round_scores[s],
                    total=sum(state.round_scores[s]),
                    tokens=state.tokens[s],
                    hand_size=len(state.hands[s]),
                    draw_pile=len(state.draws[s]),
                    played=state.played[s],
                    unplayed=sorted(state.hands[s] + state.draws[s]),
                    mulliganed=state.mulliganed[s],
                )
            )
        courier = 0
        if state.phase == pb.TURN_END_PHASE and state.tasks and state.tasks[0][1] == COURIER:
            seat = state.tasks[0][0]
            entry = next(e for e in state.order if e.seat == seat and e.rank == COURIER)
            if entry.collected is not None and state.knows(viewer, entry.collected):
                courier = entry.collected.value
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=players,
            phase=state.phase,
            round=state.round,
            turn=state.turn,
            hand=[] if spectator else state.hands[viewer],
            seats=seats,
            marker=state.marker,
            available=[_egg_pb(e, True, False) for e in state.face_up]
            + [_seen_egg_pb(state, viewer, e) for e in state.face_down],
            order=[_entry_pb(e, state) for e in state.order],
            egg_deck=len(state.deck),
            unseen_eggs=sorted(e.value for e in unseen(state, viewer)),
            courier_egg=courier,
            con_pub=state.con_pub,
            tokens_to_win=TOKENS_TO_WIN[players],
            eggs_per_turn=EGGS_PER_TURN[players],
            face_down_discards=[_seen_egg_pb(state, viewer, e) for e in state.egg_discard if e.id in state.private],
        )
        if spectator:
            obs.hands.extend(pb.Hand(ranks=h) for h in state.hands)
            obs.deck.extend(e.value for e in state.deck)
        return obs

    def score(self, state: EggsState) -> Result:
        totals = state.totals()
        keys: list[tuple[int, ...]]
        if state.con_pub:
            need = TOKENS_TO_WIN[state.players]
            keys = [(1, 0, 0) if t >= need else (0, t, v) for t, v in zip(state.tokens, totals, strict=True)]
            scores = list(state.tokens)
        else:
            keys = [(v,) for v in totals]
            scores = totals
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        summary = f"{'winners' if len(winners) > 1 else 'winner'}: {', '.join(f'seat {s}' for s in winners)}"
        return Result.ranked(scores, keys, summary)

    def sample_world(self, state: EggsState, seat: int, chance: Chance) -> EggsState:
        from arena.games.eggsandempires.worlds import sample_world

        return sample_world(self, state, seat, chance)

    def world_from_observation(self, config: MatchConfig, seat: int, observation: Message, chance: Chance) -> EggsState:
        from arena.games.eggsandempires.worlds import world_from_observation

        assert isinstance(observation, pb.Observation)
        return world_from_observation(self, config, seat, observation, chance)


def _entry_pb(entry: Entry, state: EggsState | None = None) -> pb.Entry:
    """An entry as shown (with ``state``, the observation's: where its Egg is, its ability due)."""
    out = pb.Entry(
        seat=entry.seat,
        rank=entry.rank,
        cancelled=entry.cancelled,
        collected=entry.collected is not None,
        done=entry.done,
    )
    if state is not None:
        eggs = state.collections[entry.seat]
        if entry.collected is not None and entry.collected in eggs:
            out.egg_at = eggs.index(entry.collected) + 1
        out.ability_due = (entry.seat, entry.rank) in state.tasks
    return out


def unseen(state: EggsState, viewer: int) -> list[EggCard]:
    """This round's Eggs whose value the viewer has not seen: the deck and hidden face-down ones."""
    if viewer == SPECTATOR:
        return []
    hidden = [
        e
        for e in state.face_down + [x for c in state.collections for x in c] + state.egg_discard
        if not state.knows(viewer, e)
    ]
    return state.deck + hidden


GAME = EggsAndEmpires()
