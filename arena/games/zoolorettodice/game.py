"""Zooloretto: The Dice Game — fill your zoo from shared delivery trucks, 2–4 players
(``shared/rules/zoolorettodice.md``).

Rules as implemented (rulebook line references in brackets):

* Components: identical dice with faces crocodile, ostrich, monkey, elephant, lion, coin
  [:22–36]; 6/8/10 dice and 3/3/4 delivery trucks for 2/3/4 players [:46–54, :64–65]; 3 crates
  per truck [:67]. Each zoo has five enclosures (crocodile 1, ostrich 2, monkey 3, elephant 4,
  lion 5 spaces), one barn space per animal, an enclosure bonus per animal and a ticket office of
  6 coin spaces in 3 groups [:218–222] (sizes and bonus values: ``components.toml``).
* Rounds [:83–92]: in clockwise order, a player who has not passed either
  (A) rolls 2 dice from the supply and places them on empty crates, both on one truck or split,
  at most 3 dice per truck [:96–108] — not possible when the supply is empty [:110–114]; or
  (B) takes every die of a truck holding at least one, adds the symbols to their zoo and passes
  for the rest of the round [:118–134]. The emptied truck stays in play [:134].
* Once all players but one have passed, the last one keeps acting until they take a truck
  [:186–188]. When everyone has passed the round ends, every die returns to the supply and the
  last player to take dice begins the next round [:178–184].
* Adding symbols [:138–174]: an animal fills the next space of its enclosure; if the enclosure is
  full it crosses the barn space of that animal; if that is crossed too it is ignored. A coin
  crosses the next ticket office space; beyond 6 it is ignored. The first player to fill an
  enclosure takes its bonus; no one else can [:158–164].
* End [:192–204]: when a player, after taking a truck, has at most one enclosure with free
  spaces, the game ends at the end of that round.
* Scoring [:208–238]: 1 point per animal in an enclosure, the printed value of each bonus
  taken, each completed coin group either 1 point or removes one barn animal, each barn animal
  left −2. Most points wins; ties go to most coins, then are shared [:254–264].

Rulings (``shared/rules/NOTES.md`` §4.26 unless stated):

1. **Crates** [:67, :104–106]: ``roll`` is offered only when the supply has 2 dice and the trucks
   have 2 free crates; with 6/8/10 dice on 9/9/12 crates the second always holds while the supply
   is not empty (the supply only shrinks by 2 per roll, so it is always even).
2. **Empty supply** [:110–114]: only ``take`` is offered. A player who has not passed always has
   a non-empty truck to take then (the passed players hold at most 3 dice each, fewer than the
   dice in play), so no one is ever stuck.
3. **Taken dice** stay with the taker until the round ends [:122, :182]: they are not in the
   supply, so each round has exactly 6/8/10 dice to roll.
4. **Bonus** [:160–164]: taken by the first player whose take completes that enclosure
   (turns are sequential, so there is never a simultaneous claim).
5. **End trigger** [:194–204]: checked after each take, for the taker; the round is always
   finished. A trigger in the last round changes nothing more.
6. **Coin groups** [:222–234] are used automatically in the best way: each completed group
   removes a barn animal while one is left (+2) and scores 1 point otherwise. Removing is always
   worth more than the point and coins break ties whatever their use, so a decision would have a
   dominant option. Groups complete left to right as the ticket office fills.
7. **Tie-break** [:262–264]: the crossed coin spaces (0–6, including coins whose group is not
   complete and coins used on the barn); then the placing is shared.
8. **Start player** [:77] "the youngest player": a seeded random seat.
9. **Placement order**: the two rolled dice are sorted by symbol (crocodile … coin); option
   ``place:a,b`` puts the first on truck ``a`` and the second on truck ``b``. Two equal symbols are
   offered only with ``a <= b`` (the other order is the same placement).
10. **Symbols of one take** are added in the order of the truck's crates; the order cannot change
    the result (every rule depends only on how many of each symbol).
11. **Safety stop** (arena, version 2): the game also ends at the end of round 100
    (``max_rounds``, ``components.toml``), scored as any other end; the observation's
    ``end_triggered`` is true in that round. The rules end a game only when a zoo has at most one
    open enclosure, and a take can add nothing (coins past the ticket office, animals whose
    enclosure and barn space are crossed), so seats that keep taking such trucks could prolong a
    game without end: random play lasts at most 25 rounds, a stalling policy reached 82 (an
    outside rules probe).

Bound: at most 100 rounds; a round asks each seat one ``take`` and at most 3/4/5 rolls in all
(the supply of 6/8/10 dice, 2 a roll) with a ``place`` each, so a game asks at most
100 × (2 + 2 × 3) = 800 / 100 × (3 + 2 × 4) = 1,100 / 100 × (4 + 2 × 5) = 1,400 decisions at
2/3/4 players.

Chance labels, in draw order: ``"start"`` (pick of the first seat, once), then ``"die"`` (each
roll: two draws 1–6, the face number in the ``Symbol`` order crocodile=1 … coin=6).

Component data (found and designed, with reasons) is in ``components.toml``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result
from arena.games.v1 import zoolorettodice_pb2 as pb

DATA: dict[str, Any] = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

FACES: tuple[str, ...] = tuple(DATA["dice"]["faces"])
ANIMALS = 5
CROCODILE, OSTRICH, MONKEY, ELEPHANT, LION, COIN = range(1, 7)  # Symbol values = roll values
NAMES = {i + 1: name for i, name in enumerate(FACES)}


@dataclass(frozen=True)
class Components:
    """The numbers of a score sheet and a board (``components.toml``; a design study may vary them)."""

    capacities: tuple[int, ...]
    bonuses: tuple[int, ...]
    coin_groups: tuple[int, ...]
    dice: Mapping[int, int]
    trucks: Mapping[int, int]
    crates: int = 3
    barn_penalty: int = -2
    group_points: int = 1
    animal_points: int = 1
    max_rounds: int = 100

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Components:
        return cls(
            capacities=tuple(data["enclosures"]["capacities"]),
            bonuses=tuple(data["bonuses"]["values"]),
            coin_groups=tuple(data["ticket_office"]["groups"]),
            dice={int(k): v for k, v in data["players"]["dice"].items()},
            trucks={int(k): v for k, v in data["players"]["trucks"].items()},
            crates=data["players"]["crates_per_truck"],
            barn_penalty=data["barn"]["penalty"],
            group_points=data["ticket_office"]["group_points"],
            animal_points=data["enclosures"]["animal_points"],
            max_rounds=data["game"]["max_rounds"],
        )

    @cached_property
    def coin_spaces(self) -> int:
        return sum(self.coin_groups)

    @cached_property
    def group_ends(self) -> tuple[int, ...]:
        """Coins needed to complete each group (cumulative sizes)."""
        ends, total = [], 0
        for size in self.coin_groups:
            total += size
            ends.append(total)
        return tuple(ends)


COMPONENTS = Components.from_data(DATA)


@dataclass(frozen=True)
class Breakdown:
    """A zoo's score, item by item (rules :212–238, ruling 6)."""

    animals: int
    bonuses: int
    groups: int
    barn: int
    removed: int  # barn animals removed with coin groups
    group_points: int  # points of the groups not used on the barn
    barn_points: int  # negative
    total: int


def breakdown(zoo: Zoo, comp: Components = COMPONENTS) -> Breakdown:
    animals = sum(zoo.enclosures) * comp.animal_points
    bonuses = sum(v for v, taken in zip(comp.bonuses, zoo.bonuses, strict=True) if taken)
    groups = sum(1 for end in comp.group_ends if zoo.coins >= end)
    barn = sum(zoo.barn)
    removed = min(groups, barn)
    group_points = (groups - removed) * comp.group_points
    barn_points = (barn - removed) * comp.barn_penalty
    total = animals + bonuses + group_points + barn_points
    return Breakdown(animals, bonuses, groups, barn, removed, group_points, barn_points, total)


@dataclass
class Zoo:
    """One player's score sheet."""

    enclosures: list[int] = field(default_factory=lambda: [0] * ANIMALS)
    barn: list[bool] = field(default_factory=lambda: [False] * ANIMALS)
    bonuses: list[bool] = field(default_factory=lambda: [False] * ANIMALS)
    coins: int = 0

    def open_enclosures(self, comp: Components = COMPONENTS) -> int:
        return sum(1 for n, cap in zip(self.enclosures, comp.capacities, strict=True) if n < cap)


@dataclass
class ZooState(MatchState):
    zoos: list[Zoo] = field(default_factory=list)
    trucks: list[list[int]] = field(default_factory=list)  # symbols, crate order
    held: list[list[int]] = field(default_factory=list)  # dice taken this round, per seat
    passed: list[bool] = field(default_factory=list)
    supply: int = 0
    bonus_owner: list[int] = field(default_factory=lambda: [-1] * ANIMALS)
    phase: int = pb.TURN
    turn_seat: int = 0
    round: int = 1
    round_start: int = 0
    last_taker: int = -1
    rolled: list[int] = field(default_factory=list)
    triggered: bool = False


def symbol_names(symbols: Iterable[int]) -> str:
    return ", ".join(NAMES[s] for s in symbols) or "nothing"


ROLL = Option("roll", "roll two dice from the supply", pb.Action(kind=pb.ROLL))


class ZoolorettoDice(Game[ZooState]):
    meta = GameMeta(
        id="zoolorettodice",
        name="Zooloretto: The Dice Game",
        min_players=2,
        max_players=4,
        version="2",
        summary="Roll dice onto shared trucks or take a truck and pass; fill your enclosures "
        "first for bonuses, keep extra animals out of the barn.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def __init__(self, components: Components = COMPONENTS) -> None:
        self.comp = components
        self._take_options: dict[tuple[int, tuple[int, ...]], Option] = {}
        self._place_options: dict[tuple[int, int, int, int], Option] = {}

    # -- setup ------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> ZooState:
        players = config.players
        start = chance.pick(range(players), "start")
        state = ZooState(
            config=config,
            chance=chance,
            zoos=[Zoo() for _ in range(players)],
            trucks=[[] for _ in range(self.comp.trucks[players])],
            held=[[] for _ in range(players)],
            passed=[False] * players,
            supply=self.comp.dice[players],
            turn_seat=start,
            round_start=start,
        )
        self._log_round(state)
        return state

    def _log_round(self, state: ZooState) -> None:
        state.log.public(
            state.round_start,
            "round",
            f"round {state.round} begins with seat {state.round_start} ({state.supply} dice, "
            f"{len(state.trucks)} trucks)",
            pb.Detail(seat=state.round_start, round=state.round),
        )

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: ZooState) -> Iterable[Decision]:
        if state.phase == pb.TURN:
            return (Decision(state.turn_seat, "turn", self.turn_options(state)),)
        if state.phase == pb.PLACING:
            return (Decision(state.turn_seat, "place", self.place_options(state)),)
        return ()

    def can_roll(self, state: ZooState) -> bool:
        free = sum(self.comp.crates - len(t) for t in state.trucks)
        return state.supply >= 2 and free >= 2  # ruling 1

    def turn_options(self, state: ZooState) -> tuple[Option, ...]:
        options = [ROLL] if self.can_roll(state) else []
        for t, dice in enumerate(state.trucks):
            if dice:
                options.append(self._take_option(t, tuple(dice)))
        return tuple(options)

    def _take_option(self, truck: int, dice: tuple[int, ...]) -> Option:
        key = (truck, dice)
        option = self._take_options.get(key)
        if option is None:
            option = Option(
                f"take:{truck}",
                f"take truck {truck} ({symbol_names(dice)}) and pass",
                pb.Action(kind=pb.TAKE, truck=truck),
            )
            self._take_options[key] = option
        return option

    def place_options(self, state: ZooState) -> tuple[Option, ...]:
        first, second = state.rolled
        free = [self.comp.crates - len(t) for t in state.trucks]
        options = []
        for a, free_a in enumerate(free):
            if not free_a:
                continue
            for b, free_b in enumerate(free):
                if (first == second and b < a) or free_b < (2 if a == b else 1):
                    continue
                options.append(self._place_option(first, second, a, b))
        return tuple(options)

    def _place_option(self, first: int, second: int, a: int, b: int) -> Option:
        key = (first, second, a, b)
        option = self._place_options.get(key)
        if option is None:
            where = f"both on truck {a}" if a == b else f"{NAMES[first]} on truck {a}, {NAMES[second]} on truck {b}"
            option = Option(
                f"place:{a},{b}",
                f"{NAMES[first]} and {NAMES[second]}: {where}" if a == b else where,
                pb.Action(kind=pb.PLACE, trucks=[a, b]),
            )
            self._place_options[key] = option
        return option

    # -- transitions ------------------------------------------------------------------------

    def resolve(self, state: ZooState, chosen: Mapping[int, Option]) -> None:
        ((seat, option),) = chosen.items()
        action = option.action
        assert isinstance(action, pb.Action)
        if action.kind == pb.ROLL:
            self._roll(state, seat)
        elif action.kind == pb.PLACE:
            self._place(state, seat, action.trucks[0], action.trucks[1])
        else:
            self._take(state, seat, action.truck)

    def _roll(self, state: ZooState, seat: int) -> None:
        dice = sorted(state.chance.roll(6, "die") for _ in range(2))  # ruling 9
        state.supply -= 2
        state.rolled = dice
        state.phase = pb.PLACING
        state.log.public(seat, "roll", f"rolls {symbol_names(dice)}", pb.Detail(seat=seat, dice=dice))  # type: ignore[arg-type]

    def _place(self, state: ZooState, seat: int, a: int, b: int) -> None:
        first, second = state.rolled
        state.trucks[a].append(first)
        state.trucks[b].append(second)
        state.rolled = []
        text = (
            f"puts {NAMES[first]} and {NAMES[second]} on truck {a}"
            if a == b
            else f"puts {NAMES[first]} on truck {a} and {NAMES[second]} on truck {b}"
        )
        state.log.public(seat, "place", text, pb.Detail(seat=seat, dice=[first, second], trucks=[a, b]))  # type: ignore[list-item]
        state.phase = pb.TURN
        self._next_turn(state, seat)

    def _take(self, state: ZooState, seat: int, truck: int) -> None:
        dice = state.trucks[truck]
        state.trucks[truck] = []
        state.held[seat] = dice
        state.passed[seat] = True
        state.last_taker = seat
        enclosed, barn, ignored, coins, bonuses = self.add_symbols(state, seat, dice)
        zoo = state.zoos[seat]
        state.log.public(
            seat,
            "take",
            f"takes truck {truck} ({symbol_names(dice)}) and passes",
            pb.Detail(
                seat=seat,
                dice=dice,  # type: ignore[arg-type]
                truck=truck,
                enclosed=enclosed,
                barn=barn,  # type: ignore[arg-type]
                ignored=ignored,
                coins=coins,
            ),
        )
        for animal in bonuses:
            points = self.comp.bonuses[animal - 1]
            state.log.public(
                seat,
                "bonus",
                f"is first to fill the {NAMES[animal]} enclosure: bonus worth {points}",
                pb.Detail(seat=seat, animal=animal, points=points),  # type: ignore[arg-type]
            )
        if not state.triggered and zoo.open_enclosures(self.comp) <= 1:  # ruling 5
            state.triggered = True
            state.log.public(
                seat,
                "trigger",
                f"has {zoo.open_enclosures(self.comp)} open enclosure(s): the game ends with this round",
                pb.Detail(seat=seat, round=state.round),
            )
        self._next_turn(state, seat)

    def add_symbols(
        self, state: ZooState, seat: int, dice: Sequence[int]
    ) -> tuple[int, list[int], int, int, list[int]]:
        """Add a take's symbols to the seat's zoo [:146–174]: (enclosed, new barn animals,
        ignored, coins crossed, bonuses won)."""
        zoo = state.zoos[seat]
        caps = self.comp.capacities
        enclosed = ignored = coins = 0
        barn: list[int] = []
        bonuses: list[int] = []
        for symbol in dice:
            if symbol == COIN:
                if zoo.coins < self.comp.coin_spaces:
                    zoo.coins += 1
                    coins += 1
                else:
                    ignored += 1
                continue
            a = symbol - 1
            if zoo.enclosures[a] < caps[a]:
                zoo.enclosures[a] += 1
                enclosed += 1
                if zoo.enclosures[a] == caps[a] and state.bonus_owner[a] < 0:  # ruling 4
                    state.bonus_owner[a] = seat
                    zoo.bonuses[a] = True
                    bonuses.append(symbol)
            elif not zoo.barn[a]:
                zoo.barn[a] = True
                barn.append(symbol)
            else:
                ignored += 1
        return enclosed, barn, ignored, coins, bonuses

    def last_round(self, state: ZooState) -> bool:
        """This round is the last: someone has at most one open enclosure (ruling 5), or it is
        the safety stop's round (ruling 11)."""
        return state.triggered or state.round >= self.comp.max_rounds

    def _next_turn(self, state: ZooState, seat: int) -> None:
        """The next seat clockwise that has not passed (possibly the same one), or round end."""
        players = state.players
        for k in range(1, players + 1):
            nxt = (seat + k) % players
            if not state.passed[nxt]:
                state.turn_seat = nxt
                return
        self._end_round(state)

    def _end_round(self, state: ZooState) -> None:
        if state.triggered or state.round >= self.comp.max_rounds:  # ruling 5, ruling 11
            state.phase = pb.OVER
            scores = [breakdown(z, self.comp).total for z in state.zoos]
            text = ", ".join(f"seat {s} {score}" for s, score in enumerate(scores))
            state.log.public(CHANCE_SEAT, "end", f"game over: {text}", pb.Detail(seat=CHANCE_SEAT, scores=scores))
            return
        players = state.players
        state.round += 1
        state.round_start = state.turn_seat = state.last_taker
        state.supply = self.comp.dice[players]
        state.trucks = [[] for _ in state.trucks]
        state.held = [[] for _ in range(players)]
        state.passed = [False] * players
        self._log_round(state)

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: ZooState, viewer: int) -> pb.Observation:
        comp = self.comp
        zoos = []
        for s, zoo in enumerate(state.zoos):
            score = breakdown(zoo, comp)
            zoos.append(
                pb.Zoo(
                    enclosures=zoo.enclosures,
                    barn=zoo.barn,
                    coins=zoo.coins,
                    bonuses=zoo.bonuses,
                    passed=state.passed[s],
                    held=state.held[s],  # type: ignore[arg-type]
                    coin_groups=score.groups,
                    open_enclosures=zoo.open_enclosures(comp),
                    score=score.total,
                )
            )
        return pb.Observation(
            seat=max(viewer, 0),
            spectator=viewer == SPECTATOR,
            players=state.players,
            phase=state.phase,  # type: ignore[arg-type]
            turn_seat=state.turn_seat,
            round=state.round,
            round_start=state.round_start,
            supply=state.supply,
            trucks=[pb.Truck(dice=t) for t in state.trucks],  # type: ignore[arg-type]
            rolled=state.rolled,  # type: ignore[arg-type]
            zoos=zoos,
            bonus_owner=state.bonus_owner,
            end_triggered=self.last_round(state),
            last_taker=state.last_taker,
            active_players=state.passed.count(False),
            capacities=comp.capacities,
            bonus_values=comp.bonuses,
            coin_groups=comp.coin_groups,
            crates=comp.crates,
            dice=comp.dice[state.players],
            barn_penalty=comp.barn_penalty,
            coin_group_points=comp.group_points,
        )

    def score(self, state: ZooState) -> Result:
        scores = [breakdown(z, self.comp).total for z in state.zoos]
        keys = [(scores[s], state.zoos[s].coins) for s in range(state.players)]  # ruling 7
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        summary = (
            f"winner{'s' if len(winners) > 1 else ''}: seat {', '.join(map(str, winners))} "
            f"({best[0]} points, {best[1]} coins)"
        )
        return Result.ranked(scores, keys, summary)

    # -- determinization --------------------------------------------------------------------

    def world_from_observation(self, config: MatchConfig, seat: int, observation: Message, chance: Chance) -> ZooState:
        """Nothing is hidden and the dice are independent rolls (no bag): the observation is the
        whole state, only the rolls to come are fresh."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        zoos = obs.zoos
        built = [Zoo(list(z.enclosures), list(z.barn), list(z.bonuses), z.coins) for z in zoos]
        world = ZooState(
            config=config,
            chance=chance.fork(),
            zoos=built,
            trucks=[list(t.dice) for t in obs.trucks],
            held=[list(z.held) for z in zoos],
            passed=[z.passed for z in zoos],
            supply=obs.supply,
            bonus_owner=list(obs.bonus_owner),
            phase=obs.phase,
            turn_seat=obs.turn_seat,
            round=obs.round,
            round_start=obs.round_start,
            last_taker=obs.last_taker,
            rolled=list(obs.rolled),
            # Not end_triggered itself, which is also true in the safety stop's round (ruling
            # 11): a zoo that took its way to at most one open enclosure is what triggered, and
            # enclosures only fill, each by its owner's take, checked right after it.
            triggered=any(zoo.open_enclosures(self.comp) <= 1 for zoo in built),
        )
        self.refresh(world)
        return world


GAME = ZoolorettoDice()
"""Zooloretto: The Dice Game: see :mod:`arena.games.zoolorettodice.game` for rules and rulings."""
