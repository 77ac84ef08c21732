"""For the Emperor — two armies, 7 battlefields, Banners that fix each battlefield's size
(``shared/rules/fortheemperor.md``).

Rules as implemented (rulebook line references in brackets):

* 2 players: the Crane army (seat 0) and the Turtle army (seat 1), each with 9 Warriors of
  strengths 1-9 and 4 Ability Tokens [:6, :29-53]. Each shuffles their Warriors and draws 3; the
  rest is their draw pile [:50-52]. The Crane plays first [:53].
* 7 battlefields in a row and 7 Banners {4, 3, 3, 2, 2, 1, 1} (``components.toml``) [:31-33,
  :41-42]. A Banner sets how many Warriors (both sides together) its battlefield holds [:57-70].
* A turn [:76-82]: play a Warrior from hand onto your side of a battlefield without a Banner or
  with room under its Banner [:86-96], resolve its When Played ability [:98-100]; assign Banners;
  draw a Warrior unless the draw pile is empty [:190-196].
* Banners after every play [:121-161]: the highest Banner of the supply goes to a battlefield
  without a Banner holding exactly that many Warriors; repeat with the next highest until the
  highest left cannot be placed; then the 1 Banners (Step 3, ruling 3).
* 3 With 3+ [:165-186]: at most 3 battlefields may have 3+ Warriors or a 3/4 Banner (ruling 2
  extends it to every Banner size).
* Abilities [:104-118, :246-326] (designed where the text only hints, ``components.toml``):
  1 Shinobi (Game End: strength of the strongest opposing Warrior there), 2 Ashigaru (When
  Played: an Ability Token on an adjacent battlefield), 3 Kyudo (When Played: an Ability Token on
  any other battlefield), 4 Ronin (When Played: the highest Banner on its battlefield if it has
  none and that is legal, must), 5 Yamabushi (When Played: may return another of your Warriors
  to hand; its tokens stay), 6 Wokou (When Played: moves any Ability Token to another
  battlefield, must if there is one), 7 Onna-musha (Ongoing: the opponent may not play an 8 or 9
  there unless they have no other play), 8 Sohei (Game End: may be the Tiebreaker Card, ruling
  9), 9 Kensei (Ongoing: Ability Tokens there count for nothing). An Ability Token is +1
  strength to its owner there.
* Game end [:200-209]: when both players have one Warrior left in hand, after the current turn.
  That Warrior is the Tiebreaker Card.
* Control [:213-228]: per battlefield, Warrior strengths + Ability Tokens + Ongoing and Game End
  abilities; the greater total controls it, a tie nobody. Most battlefields wins; then the higher
  Tiebreaker Card; then a shared victory [:232-244].

Rulings (``shared/rules/NOTES.md`` §4.3 unless stated):

1. **Components**: banners {4,3,3,2,2,1,1} (DATA §4 + NOTES 2); strengths 1-9 in both armies
   (DATA §4); names of 1 and 9 and the ability texts designed (``components.toml``); Ability Token
   +1 (DATA §4); battlefields plain; armies mirrored.
2. **Capacity rule** (the 3 With 3+ Rule for every Banner size): at no point may more battlefields
   have k or more Warriors or a Banner of k or more than there are Banners of k or more: 1 with
   4+, 3 with 3+ (the printed rule, :165-186), 5 with 2+, none with 5+. A play that would break it
   is not offered. Without Ronin banners this only restates the printed rule and the Banner steps;
   it is what makes "every battlefield will eventually receive exactly one Banner" (:59) hold
   (a battlefield never holds more Warriors than a Banner left in the supply can take).
3. **Step 3** (:149-161, NOTES 2): when five battlefields have 2+ Warriors or a 2+ Banner, every
   battlefield without a Banner holding 0 or 1 Warrior gets a 1 Banner (by ruling 2 there are
   exactly as many as 1 Banners left). Without Ronin banners or Yamabushi returns this is the
   printed "exactly 2 battlefields contain 0 or 1 Warrior".
4. **Several battlefields for one Banner value** (NOTES 1): by ruling 2 there are never more
   candidates than copies, so every candidate gets one; no decision.
5. **Ronin** (:250-254): places the highest Banner of the supply that ruling 2 allows on its
   battlefield if it has none (mandatory: "if ... one can legally be placed, you must place
   it", :252, so a lower Banner when the highest may not go there; version 3, it placed none);
   before the Banner steps of that turn.
6. **Yamabushi and Wokou**: the Yamabushi's return is optional (``none``; designed: "If you return"
   reads as a choice, :272); the Wokou's move is not ("Move any Ability Token", :290): with a token
   on the board it must pick one. Neither is asked without a Warrior or a token to act on. A
   returned Warrior is known to be in its owner's hand until played (``revealed``).
   **Ability Tokens** may go on any battlefield, full ones too; each seat has 4 (2 for the
   Ashigaru, 2 for the Kyudo: a replay after a Yamabushi return places the second, :268-284).
   A single legal token place is taken without asking.
7. **Game end** (:200-209, NOTES 5): checked after every turn. A player left with one Warrior
   (draw pile empty) while the opponent still has more passes their turns (event ``pass``): it
   keeps its Tiebreaker Card. So the board ends full (16 Warriors) and every battlefield has its
   Banner. A player always has a legal play otherwise (ruling 2 keeps room; Onna-musha yields).
   Bound: 16 plays plus at most one Yamabushi return a player, so at most 18 plays and 20 turns
   (passes included); at most 36 decisions (plays plus ability choices).
8. **Onna-musha** (:306-312): when every legal play of the opponent is an 8 or 9 onto an
   Onna-musha battlefield, all of them are allowed.
9. **Sohei** (:316-326, NOTES 6; auto-maximise: NOTES decision point 5): as printed, a seat
   whose Sohei is on the board may use it as its Tiebreaker Card; the better of the two values is
   taken automatically. A Sohei left in hand is the Tiebreaker Card already (:207-209). Every
   Warrior ends on the board or in hand, so the Tiebreaker value is 9 for a seat keeping its
   Kensei and 8 otherwise.
   **Option** ``sohei`` (variant ``controlled-sohei``): ``printed`` (default) or ``controlled``,
   an arena variant (the rule of version 1) where the Sohei on the board counts only while its
   owner controls its battlefield: fewer shared victories (design check below), and where the
   Sohei fights matters. The observation says which (``sohei_controlled``).
   **Game End order** (NOTES 7): moot: the Shinobi reads printed strengths, and the Sohei
   changes no strength (under ``controlled`` it reads control once every total is known).
10. **Strengths shown during play** apply Game End abilities as if the game ended now.
11. **Scores in the result**: battlefields controlled; ranks by (battlefields, tiebreaker).

Design check (``python -m bench.design_fortheemperor --matches 300 [--sohei controlled]``,
heuristic self-play, seats alternating): every game ends after 16-18 turns with the 16 Warriors
placed. Seat advantage: the Crane (first player) scores 0.437 (a shared victory counts half;
random self-play 0.477; 0.433 with ``sohei=controlled``): the Turtle plays the last Warrior
knowing the whole board. Shared victories 16.7% (8.0% with ``sohei=controlled``), the Tiebreaker
Card decides 5.0% (14.7%), 0.8 tied battlefields a game. No Warrior is always kept or always
played: kept as the Tiebreaker Card 4 32%, 9 17%, 8 15%, 7 15%, 2 14%, the others 0-4%; the
player keeping the 9 wins 50%. A played Warrior's side wins its battlefield 48% (Yamabushi) to
75% (Ronin). The Yamabushi returns a Warrior 90% of the time, the Ronin places a Banner 59% of
the time.

Chance labels (in draw order): ``"deck"`` (the Crane's shuffle, then the Turtle's; top first).
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig, OptionSpec
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result, Variant
from arena.games.v1 import fortheemperor_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))
BATTLEFIELDS: int = _DATA["game"]["battlefields"]
HAND: int = _DATA["game"]["hand"]
TOKENS: int = _DATA["game"]["tokens_per_player"]
ARMIES: tuple[str, ...] = tuple(_DATA["game"]["armies"])
BANNERS: tuple[int, ...] = tuple(sorted(_DATA["banners"]["values"], reverse=True))
NAMES: tuple[str, ...] = tuple(_DATA["warriors"]["names"])
TOKEN_STRENGTH: int = _DATA["warriors"]["token_strength"]
STRENGTHS = tuple(range(1, len(NAMES) + 1))
SHINOBI, ASHIGARU, KYUDO, RONIN, YAMABUSHI, WOKOU, ONNA_MUSHA, SOHEI, KENSEI = STRENGTHS
BARRED_BY_ONNA_MUSHA = (SOHEI, KENSEI)  # DATA §4: "preventing the eight or nine warrior"
MOST_AT_LEAST = {k: sum(b >= k for b in BANNERS) for k in range(1, max(BANNERS) + 2)}
"""Ruling 2: how many battlefields may have k or more Warriors (or a Banner of k or more)."""


def warrior_name(strength: int) -> str:
    return f"{NAMES[strength - 1]} ({strength})"


@dataclass
class Field:
    """One battlefield: its Warriors (seat, strength) in play order, Banner (0 = none), tokens."""

    warriors: list[tuple[int, int]] = field(default_factory=list)
    banner: int = 0
    tokens: list[int] = field(default_factory=lambda: [0, 0])

    def at_least(self, k: int) -> bool:
        """Counts toward the capacity rule for size k (ruling 2)."""
        return len(self.warriors) >= k or self.banner >= k


@dataclass
class EmperorState(MatchState):
    fields: list[Field] = field(default_factory=list)
    supply: list[int] = field(default_factory=list)  # Banners left, highest first
    hands: list[list[int]] = field(default_factory=list)  # sorted
    piles: list[list[int]] = field(default_factory=list)  # top first
    tokens_left: list[int] = field(default_factory=list)
    turn_seat: int = 0
    turn: int = 1
    phase: int = pb.PLAY_PHASE
    ability_field: int = -1  # 0-based battlefield of the Warrior whose ability resolves
    ability_strength: int = 0
    moving: tuple[int, int] = (-1, -1)  # Wokou: (battlefield, owner) of the picked token
    passed: list[bool] = field(default_factory=list)
    revealed: list[list[int]] = field(default_factory=list)  # returned by a Yamabushi, in hand: public

    @property
    def over(self) -> bool:
        return self.phase == pb.OVER_PHASE


# --------------------------------------------------------------------------------------------
# Rules helpers (pure; the heuristic bot uses them too)


def fits(fields: Sequence[Field], index: int, counted: Sequence[int] | None = None) -> bool:
    """May one more Warrior go on battlefield ``index``? Its Banner's room, and for a
    battlefield without a Banner the capacity rule (ruling 2; the 3 With 3+ Rule at k=3).
    ``counted`` (from :func:`counted_at_least`) saves recounting for every battlefield."""
    bf = fields[index]
    count = len(bf.warriors) + 1
    if bf.banner:
        return count <= bf.banner
    if count > len(MOST_AT_LEAST):
        return False
    counted = counted or counted_at_least(fields)
    return counted[count] < MOST_AT_LEAST[count]


def counted_at_least(fields: Sequence[Field]) -> list[int]:
    """For each k (index), how many battlefields have k or more Warriors or a Banner of k or more."""
    out = [0] * (len(MOST_AT_LEAST) + 1)
    for f in fields:
        for k in range(1, max(len(f.warriors), f.banner, 0) + 1):
            if k < len(out):
                out[k] += 1
    return out


def ronin_banner_fits(fields: Sequence[Field], index: int, banner: int) -> bool:
    """May a Ronin place ``banner`` on battlefield ``index`` (ruling 5)?"""
    bf = fields[index]
    if bf.banner or banner < len(bf.warriors):
        return False
    newly_counted = range(len(bf.warriors) + 1, banner + 1)
    return all(sum(f.at_least(k) for f in fields) < MOST_AT_LEAST[k] for k in newly_counted)


def ronin_banner(fields: Sequence[Field], index: int, supply: Sequence[int]) -> int:
    """The Banner a Ronin places on battlefield ``index``: the highest of the supply that may go
    there (ruling 5), or 0 when none may."""
    return next((banner for banner in supply if ronin_banner_fits(fields, index, banner)), 0)


def assign_banners(fields: Sequence[Field], supply: list[int]) -> list[tuple[int, int]]:
    """Steps 1-3 of "Assign Banners" [:120-161]; returns the (battlefield, banner) placed."""
    placed: list[tuple[int, int]] = []
    while supply:
        highest = supply[0]
        candidates = [i for i, f in enumerate(fields) if not f.banner and len(f.warriors) == highest]
        if not candidates:
            break
        for i in candidates[: supply.count(highest)]:
            fields[i].banner = highest
            supply.remove(highest)
            placed.append((i, highest))
    if supply and sum(f.at_least(2) for f in fields) == MOST_AT_LEAST[2]:  # Step 3, ruling 3
        for i, f in enumerate(fields):
            if not f.banner and len(f.warriors) <= 1:
                assert 1 in supply, "ruling 2 keeps Step 3 exact"
                f.banner = 1
                supply.remove(1)
                placed.append((i, 1))
    return placed


def side_strength(bf: Field, seat: int) -> int:
    """A side's total on a battlefield with Ongoing and Game End abilities applied [:213-224]."""
    strongest_foe = max((s for owner, s in bf.warriors if owner != seat), default=0)
    total = 0
    kensei = False
    for owner, strength in bf.warriors:
        kensei = kensei or strength == KENSEI
        if owner == seat:
            total += max(strength, strongest_foe) if strength == SHINOBI else strength
    if not kensei:
        total += TOKEN_STRENGTH * bf.tokens[seat]
    return total


def controller(bf: Field) -> int:
    """The seat with the greater total, -1 on a tie [:226-228]."""
    a, b = side_strength(bf, 0), side_strength(bf, 1)
    return 0 if a > b else 1 if b > a else -1


def controlled(fields: Sequence[Field]) -> list[int]:
    owners = [controller(f) for f in fields]
    return [owners.count(0), owners.count(1)]


def tiebreaker(hand: Sequence[int], fields: Sequence[Field], seat: int, needs_control: bool = False) -> int:
    """The Tiebreaker value (ruling 9): the better of the card left in hand and an own Sohei on
    the board; with ``needs_control`` (option ``sohei=controlled``) only a Sohei on a battlefield
    the seat controls counts."""
    sohei = any((seat, SOHEI) in f.warriors and (not needs_control or controller(f) == seat) for f in fields)
    return max([*hand, SOHEI if sohei else 0])


def sohei_needs_control(config: MatchConfig) -> bool:
    """Option ``sohei``: ``printed`` (default, the rulebook) or ``controlled`` (arena variant)."""
    return config.options.get("sohei", "printed") == "controlled"


def barred(fields: Sequence[Field], index: int, seat: int) -> bool:
    """An opposing Onna-musha on this battlefield bars ``seat``'s 8 and 9 [:306-312]."""
    return (1 - seat, ONNA_MUSHA) in fields[index].warriors


def legal_plays(fields: Sequence[Field], hand: Iterable[int], seat: int) -> list[tuple[int, int]]:
    """(strength, battlefield index) pairs the seat may play (ruling 8 for the Onna-musha)."""
    counted = counted_at_least(fields)
    open_fields = [i for i in range(len(fields)) if fits(fields, i, counted)]
    plays = [(s, i) for s in sorted(set(hand)) for i in open_fields]
    allowed = [(s, i) for s, i in plays if not (s in BARRED_BY_ONNA_MUSHA and barred(fields, i, seat))]
    return allowed or plays


def token_places(strength: int, index: int) -> list[int]:
    """Where an Ashigaru (adjacent) or a Kyudo (any other) on ``index`` may place a token."""
    if strength == ASHIGARU:
        return [i for i in (index - 1, index + 1) if 0 <= i < BATTLEFIELDS]
    return [i for i in range(BATTLEFIELDS) if i != index]


# --------------------------------------------------------------------------------------------
# Options


@functools.cache  # options are immutable: build each once
def _play_option(strength: int, index: int) -> Option:
    return Option(
        f"play:{strength}:{index + 1}",
        f"play the {warrior_name(strength)} on battlefield {index + 1}",
        pb.Action(kind=pb.PLAY, strength=strength, battlefield=index + 1),
    )


@functools.cache  # options are immutable: build each once
def _token_option(index: int) -> Option:
    return Option(
        f"token:{index + 1}",
        f"place an Ability Token on battlefield {index + 1}",
        pb.Action(kind=pb.TOKEN, battlefield=index + 1),
    )


@functools.cache  # options are immutable: build each once
def _return_option(strength: int) -> Option:
    return Option(
        f"return:{strength}",
        f"return your {warrior_name(strength)} to your hand",
        pb.Action(kind=pb.RETURN, strength=strength),
    )


@functools.cache  # options are immutable: build each once
def _move_option(index: int, owner: int) -> Option:
    return Option(
        f"move:{index + 1}:{owner}",
        f"move the {ARMIES[owner]} Ability Token on battlefield {index + 1}",
        pb.Action(kind=pb.MOVE, battlefield=index + 1, owner=owner),
    )


@functools.cache  # options are immutable: build each once
def _to_option(index: int) -> Option:
    return Option(
        f"to:{index + 1}",
        f"to battlefield {index + 1}",
        pb.Action(kind=pb.DESTINATION, battlefield=index + 1),
    )


_NONE = Option("none", "return no Warrior", pb.Action(kind=pb.NONE))


def _detail(**fields: object) -> pb.Detail:
    return pb.Detail(**fields)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# The game


class ForTheEmperor(Game[EmperorState]):
    meta = GameMeta(
        id="fortheemperor",
        name="For the Emperor",
        min_players=2,
        max_players=2,
        version="3.1",  # 3.1: event texts name seats and read as English, not Python lists
        options=(
            OptionSpec(
                "sohei",
                "printed",
                "printed: an own Sohei on the board may be the Tiebreaker Card (the rulebook); "
                "controlled: only while its army controls its battlefield (arena variant)",
                ("printed", "controlled"),
            ),
        ),
        variants=(
            Variant(
                "controlled-sohei",
                "arena variant: the Sohei is a Tiebreaker only where its army controls",
                {"sohei": "controlled"},
            ),
        ),
        hidden_information=True,
        summary="Deploy 9 Warriors with abilities over 7 battlefields whose sizes Banners fix as "
        "they fill; control more battlefields; the Warrior left in hand breaks ties.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> EmperorState:
        state = EmperorState(
            config=config,
            chance=chance,
            fields=[Field() for _ in range(BATTLEFIELDS)],
            supply=list(BANNERS),
            tokens_left=[TOKENS, TOKENS],
            passed=[False, False],
            revealed=[[], []],
        )
        for seat in range(2):
            deck = chance.shuffled(STRENGTHS, "deck")
            state.hands.append(sorted(deck[:HAND]))
            state.piles.append(deck[HAND:])
            state.log.private(
                [seat],
                seat,
                "deal",
                f"{ARMIES[seat]} draws " + ", ".join(f"the {warrior_name(c)}" for c in deck[:HAND]),
                _detail(cards=deck[:HAND]),
            )
        return state

    # -- decisions ----------------------------------------------------------------------------

    def decisions(self, state: EmperorState) -> Iterable[Decision]:
        seat, phase = state.turn_seat, state.phase
        if phase == pb.PLAY_PHASE:
            plays = legal_plays(state.fields, state.hands[seat], seat)
            return (Decision(seat, "play", tuple(_play_option(s, i) for s, i in plays)),)
        if phase == pb.TOKEN_PHASE:
            places = token_places(state.ability_strength, state.ability_field)
            return (Decision(seat, "token", tuple(_token_option(i) for i in places)),)
        if phase == pb.RETURN_PHASE:
            return (Decision(seat, "return", (*(_return_option(s) for s in self._returnable(state)), _NONE)),)
        if phase == pb.MOVE_PHASE:
            return (Decision(seat, "move", tuple(_move_option(i, o) for i, o in self._movable(state))),)
        if phase == pb.DESTINATION_PHASE:
            origin = state.moving[0]
            return (Decision(seat, "destination", tuple(_to_option(i) for i in range(BATTLEFIELDS) if i != origin)),)
        return ()

    @staticmethod
    def _returnable(state: EmperorState) -> list[int]:
        """The Yamabushi's owner's other Warriors on the board (one of each strength)."""
        seat = state.turn_seat
        return sorted(s for f in state.fields for owner, s in f.warriors if owner == seat and s != YAMABUSHI)

    @staticmethod
    def _movable(state: EmperorState) -> list[tuple[int, int]]:
        return [(i, owner) for i, f in enumerate(state.fields) for owner in (0, 1) if f.tokens[owner]]

    # -- transitions --------------------------------------------------------------------------

    def resolve(self, state: EmperorState, chosen: Mapping[int, Option]) -> None:
        (option,) = chosen.values()
        action = option.action
        assert isinstance(action, pb.Action)
        phase = state.phase
        if phase == pb.PLAY_PHASE:
            self._play(state, action.strength, action.battlefield - 1)
        elif phase == pb.TOKEN_PHASE:
            self._place_token(state, action.battlefield - 1)
            self._end_turn(state)
        elif phase == pb.RETURN_PHASE:
            if action.kind == pb.RETURN:
                self._return(state, action.strength)
            else:
                self._end_turn(state)
        elif phase == pb.MOVE_PHASE:
            state.moving = (action.battlefield - 1, action.owner)
            state.phase = pb.DESTINATION_PHASE
        elif phase == pb.DESTINATION_PHASE:
            self._move_token(state, action.battlefield - 1)
            self._end_turn(state)

    def _play(self, state: EmperorState, strength: int, index: int) -> None:
        seat = state.turn_seat
        state.hands[seat].remove(strength)
        if strength in state.revealed[seat]:
            state.revealed[seat].remove(strength)
        bf = state.fields[index]
        bf.warriors.append((seat, strength))
        state.log.public(
            seat,
            "play",
            f"{ARMIES[seat]} plays the {warrior_name(strength)} on battlefield {index + 1}",
            _detail(seat=seat, strength=strength, battlefield=index + 1),
        )
        state.ability_field, state.ability_strength = index, strength
        if strength in (ASHIGARU, KYUDO) and state.tokens_left[seat]:
            places = token_places(strength, index)
            if len(places) == 1:
                self._place_token(state, places[0])
            else:
                state.phase = pb.TOKEN_PHASE
                return
        elif strength == RONIN and (banner := ronin_banner(state.fields, index, state.supply)):
            state.supply.remove(banner)
            bf.banner = banner
            state.log.public(
                seat,
                "banner",
                f"the Ronin places the {banner} Banner on battlefield {index + 1}",
                _detail(seat=seat, battlefield=index + 1, banner=banner, ronin=True),
            )
        elif strength == YAMABUSHI and self._returnable(state):
            state.phase = pb.RETURN_PHASE
            return
        elif strength == WOKOU and self._movable(state):
            state.phase = pb.MOVE_PHASE
            return
        self._end_turn(state)

    def _place_token(self, state: EmperorState, index: int) -> None:
        seat = state.turn_seat
        state.tokens_left[seat] -= 1
        state.fields[index].tokens[seat] += 1
        state.log.public(
            seat,
            "token",
            f"{ARMIES[seat]} places an Ability Token on battlefield {index + 1}",
            _detail(seat=seat, battlefield=index + 1),
        )

    def _return(self, state: EmperorState, strength: int) -> None:
        seat = state.turn_seat
        index = next(i for i, f in enumerate(state.fields) if (seat, strength) in f.warriors)
        state.fields[index].warriors.remove((seat, strength))
        state.hands[seat] = sorted([*state.hands[seat], strength])
        state.revealed[seat] = sorted([*state.revealed[seat], strength])
        state.log.public(
            seat,
            "return",
            f"the Yamabushi returns the {warrior_name(strength)} from battlefield {index + 1}",
            _detail(seat=seat, strength=strength, battlefield=index + 1),
        )
        self._end_turn(state)

    def _move_token(self, state: EmperorState, to: int) -> None:
        seat = state.turn_seat
        origin, owner = state.moving
        state.fields[origin].tokens[owner] -= 1
        state.fields[to].tokens[owner] += 1
        state.log.public(
            seat,
            "move",
            f"the Wokou moves the {ARMIES[owner]} Ability Token from battlefield {origin + 1} to {to + 1}",
            _detail(seat=seat, owner=owner, battlefield=origin + 1, to_battlefield=to + 1),
        )
        state.moving = (-1, -1)

    def _end_turn(self, state: EmperorState) -> None:
        """Assign Banners, draw, then the next turn (or the end) [:76-82, :200-209]."""
        seat = state.turn_seat
        for index, banner in assign_banners(state.fields, state.supply):
            state.log.public(
                CHANCE_SEAT,
                "banner",
                f"the {banner} Banner goes to battlefield {index + 1}",
                _detail(battlefield=index + 1, banner=banner),
            )
        if state.piles[seat]:
            card = state.piles[seat].pop(0)
            state.hands[seat] = sorted([*state.hands[seat], card])
            state.log.private(
                [seat], seat, "draw", f"{ARMIES[seat]} draws the {warrior_name(card)}", _detail(seat=seat, cards=[card])
            )
        state.ability_field, state.ability_strength = -1, 0
        self._next_turn(state)

    def _next_turn(self, state: EmperorState) -> None:
        while True:
            if all(len(h) == 1 and not p for h, p in zip(state.hands, state.piles, strict=True)):
                self._finish(state)
                return
            state.turn += 1
            state.turn_seat = 1 - state.turn_seat
            seat = state.turn_seat
            if len(state.hands[seat]) > 1 or state.piles[seat]:
                state.phase = pb.PLAY_PHASE
                return
            state.passed[seat] = True
            state.log.public(seat, "pass", f"{ARMIES[seat]} keeps its last Warrior and passes", _detail(seat=seat))

    def _finish(self, state: EmperorState) -> None:
        state.phase = pb.OVER_PHASE
        outcomes = [
            pb.Outcome(index=i + 1, strength=[side_strength(f, 0), side_strength(f, 1)], controller=controller(f))
            for i, f in enumerate(state.fields)
        ]
        won = controlled(state.fields)
        control = sohei_needs_control(state.config)
        breaks = [tiebreaker(state.hands[s], state.fields, s, control) for s in (0, 1)]
        cards = [state.hands[0][0], state.hands[1][0]]
        state.log.public(
            CHANCE_SEAT,
            "end",
            f"battlefields {won[0]}-{won[1]}; Tiebreaker Cards "
            + ", ".join(f"{ARMIES[s]} the {warrior_name(cards[s])}" for s in (0, 1))
            + "; Tiebreaker values "
            + ", ".join(f"{ARMIES[s]} {breaks[s]}" for s in (0, 1)),
            _detail(outcomes=outcomes, controlled=won, tiebreakers=breaks, cards=cards),
        )

    # -- views --------------------------------------------------------------------------------

    def observation(self, state: EmperorState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        won = controlled(state.fields)
        control = sohei_needs_control(state.config)
        fields = [
            pb.Battlefield(
                index=i + 1,
                banner=f.banner,
                warriors=[pb.Warrior(seat=o, strength=s) for o, s in f.warriors],
                tokens=f.tokens,
                strength=[side_strength(f, 0), side_strength(f, 1)],
                counts_three=f.at_least(3),
                barred=[barred(state.fields, i, 0), barred(state.fields, i, 1)],
            )
            for i, f in enumerate(state.fields)
        ]
        seats = []
        for s in (0, 1):
            on_board = sorted(x for f in state.fields for o, x in f.warriors if o == s)
            seats.append(
                pb.SeatView(
                    hand_size=len(state.hands[s]),
                    draw_pile=len(state.piles[s]),
                    tokens_left=state.tokens_left[s],
                    unplayed=sorted(state.hands[s] + state.piles[s]),
                    on_board=on_board,
                    tiebreaker=tiebreaker(state.hands[s], state.fields, s, control) if state.over else 0,
                    controlled=won[s],
                    passed=state.passed[s],
                    revealed=state.revealed[s],
                )
            )
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            phase=state.phase,  # type: ignore[arg-type]
            to_move=state.turn_seat,
            turn=state.turn,
            hand=[] if spectator else state.hands[viewer],
            battlefields=fields,
            banners=state.supply,
            seats=seats,
            ability_battlefield=state.ability_field + 1,
            ability_strength=state.ability_strength,
            moving_from=state.moving[0] + 1,
            moving_owner=max(state.moving[1], 0),
            sohei_controlled=control,
        )
        if spectator:
            obs.hands.extend(pb.Cards(strengths=h) for h in state.hands)
            obs.piles.extend(pb.Cards(strengths=p) for p in state.piles)
        return obs

    def score(self, state: EmperorState) -> Result:
        won = controlled(state.fields)
        control = sohei_needs_control(state.config)
        breaks = [tiebreaker(state.hands[s], state.fields, s, control) for s in (0, 1)]
        keys = [(won[s], breaks[s]) for s in (0, 1)]
        if keys[0] == keys[1]:
            summary = f"shared victory: {won[0]}-{won[1]} battlefields, equal Tiebreakers {breaks[0]}"
        else:
            winner = 0 if keys[0] > keys[1] else 1
            how = "" if won[0] != won[1] else f" on the Tiebreaker ({breaks[winner]} against {breaks[1 - winner]})"
            summary = f"winner: {ARMIES[winner]} (seat {winner}), {won[0]}-{won[1]} battlefields{how}"
        return Result.ranked([float(w) for w in won], keys, summary)

    def sample_world(self, state: EmperorState, seat: int, chance: Chance) -> EmperorState:
        """Hidden from ``seat``: the opponent's hand (its cards with the draw pile are known, and a
        Warrior its Yamabushi returned is known to be in hand until played) and both draw piles'
        order. Re-deal the opponent's other unplayed Warriors uniformly into the rest of its hand
        and its pile, and shuffle the seat's own pile."""
        world = self.copy_for(state, seat, chance)
        world.hands = [list(h) for h in state.hands]
        world.piles = [list(p) for p in state.piles]
        other = 1 - seat
        _deal_unseen(world, seat, world.hands[other] + world.piles[other], world.piles[seat], chance)
        self.refresh(world)
        return world

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> EmperorState:
        """The board, Banners, tokens, phase and the seat's hand are kept; the seat's pile is its
        unplayed Warriors minus its hand, shuffled; the opponent's unplayed Warriors but those a
        Yamabushi revealed are dealt to the rest of its hand and its pile (as ``sample_world``)."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        views = obs.seats
        other = 1 - seat
        hand = list(obs.hand)
        moving_from = obs.moving_from
        world = EmperorState(
            config=config,
            chance=chance.fork(),
            fields=[
                Field([(w.seat, w.strength) for w in f.warriors], f.banner, list(f.tokens)) for f in obs.battlefields
            ],
            supply=list(obs.banners),
            hands=[[], []],
            piles=[[], []],
            tokens_left=[v.tokens_left for v in views],
            turn_seat=obs.to_move,
            turn=obs.turn,
            phase=obs.phase,
            ability_field=obs.ability_battlefield - 1,
            ability_strength=obs.ability_strength,
            moving=(moving_from - 1, obs.moving_owner) if moving_from else (-1, -1),
            passed=[v.passed for v in views],
            revealed=[list(v.revealed) for v in views],
        )
        world.hands[seat] = hand
        world.piles[other] = [0] * views[other].draw_pile
        world.hands[other] = [0] * views[other].hand_size  # sizes for the deal
        own_pile = [s for s in views[seat].unplayed if s not in hand]
        _deal_unseen(world, seat, list(views[other].unplayed), own_pile, chance)
        self.refresh(world)
        return world


def _deal_unseen(world: EmperorState, seat: int, unplayed: list[int], own_pile: list[int], chance: Chance) -> None:
    """Deal the opponent's ``unplayed`` Warriors but those its Yamabushi revealed uniformly into
    the rest of its hand and its pile (sizes as ``world`` holds them), and shuffle ``own_pile``
    into the seat's pile."""
    other = 1 - seat
    known = world.revealed[other]
    unknown = [s for s in unplayed if s not in known]
    sizes = [len(world.hands[other]) - len(known), len(world.piles[other])]
    hand, pile = chance.deal(unknown, sizes, "world")
    world.hands[other], world.piles[other] = sorted(hand + known), pile
    world.piles[seat] = chance.shuffled(own_pile, "world")


GAME = ForTheEmperor()
