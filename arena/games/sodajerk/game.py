"""Soda Jerk — hidden flavour cards under five taps, for 2–4 players (``shared/rules/sodajerk.md``).

Rules as implemented (rulebook line references in brackets):

* 5 taps (strawberry, blueberry, banana, kiwi, orange) and 45 flavour cards, 9 per flavour
  numbered 1, 1, 1, 2, 2, 2, 3, 3, 3 (designed, ``components.toml``) [:36–39]. 3 rounds [:19].
* Each round: shuffle every flavour card, deal 13 / 13 / 10 cards to 2 / 3 / 4 players, the
  rest set aside face down [:53–66]. The first player places or flips; turns go clockwise
  [:73–78].
* Place [:90–107]: any card from your hand face down under any tap; only you know it. Flip
  [:111–121]: any face-down card under any tap turns face up for the rest of the round.
* First turn of the round [:82–86]: each player's first turn must place under a tap with no
  cards.
* The round ends [:125–151] when a player starts a turn with 3 cards, when every player has
  flipped on consecutive turns, or when every card under the taps is face up.
* Round scoring [:155–180]: reveal every card; a tap's value is the sum of the numbers of its
  matching cards minus the sum of its non-matching cards; every hand is revealed [:166] (the
  ``score`` event's ``hands``) and each card in it scores its flavour's tap value (its own
  number does not matter; scores may be negative).
* Next round [:182–195]: reshuffle all, deal again; the first player is the lowest total
  (ties: random). After 3 rounds the highest total wins; ties share the victory [:199–209].
* 2 players [:213–244]: one tap and its 9 cards are out of the game; each player adds a
  Switcheroo to their hand each round; each Switcheroo under a tap flips the sign of the tap's
  value (two cancel); in hand it is worth 0.
* Advanced (option ``advanced``) [:246–268]: one random tap turns to its B side before round
  1, two more at the start of round 2, all the rest at the start of round 3; a B-side tap has
  a power for the rest of the game (powers designed, see rulings 10–11).

Rulings (``shared/rules/NOTES.md`` §4.21 unless stated):

1. **Numbers** (§2, ambiguity 1): a tap's value = Σ numbers of matching cards − Σ numbers of
   non-matching cards, starting from 0; the numbers are three each of 1, 2, 3 per flavour.
2. **First-turn rule** (ambiguity 2): only ``place`` at an empty tap is offered; it is always
   possible (fewer players than taps, and only first turns come before the last first turn).
3. **Flip** (ambiguity 3): any face-down card, your own included.
4. **Low hand** (ambiguity 4): checked when a turn starts: a hand of 3 or fewer cards ends the
   round before that player acts.
5. **Consecutive flips** (ambiguity 5): the round ends right after the N-th flip in a row (N =
   players); a place (with or without a power) resets the count.
6. **All revealed**: checked after a flip (a place always leaves a face-down card); the empty
   table at the start of a round does not count.
7. **Switcheroo** (ambiguity 6): placed and flipped like a flavour card (number 0); at scoring
   each one under a tap negates the tap's value (an odd count flips the sign, an even count
   cancels); it never counts as matching or non-matching; worth 0 in hand. 2 players only
   (the 2-player variant is the only way to play 2).
8. **First player** (ambiguity 7): round 1 a random seat; rounds 2–3 the lowest total, ties
   broken at random among the tied seats (no chance drawn when one seat is lowest).
9. **2-player tap removal** [:217–219] "remove any 1 tap": a random tap, once per game.
10. **B-side powers** (designed; the rulebook prints none): each tap's B side has one power,
    usable right after you place a card under that tap (a ``power`` decision, asked only when
    the power has a legal target, ``skip`` always allowed; spill is asked whenever the hand holds
    more than 3 cards, ``skip`` the one option without a strawberry card, since whether the hand
    holds one is hidden and being asked would tell): strawberry ``spill`` — put one
    strawberry card from your hand face down out of the round (only while the hand holds more
    than 3 cards; it scores nothing; only its owner knows it); blueberry ``pour`` — pour off one other card under this
    tap (face up or down: it is revealed and out for the rest of the round); banana ``move`` —
    move one card from under another tap to this one (face up or down, it keeps its side and
    placer); kiwi ``fizz`` — flip one face-down card under another tap (not
    a flip turn: the flip count stays 0); orange ``last-call`` — every other player has one
    more turn and then the caller one more, then the round ends (not offered once called; the
    other ends still apply); the call is a bet, see ruling 14.
11. **B-side flips** [:258–268]: the order is one shuffle of the taps in play before round 1:
    the first is flipped then, the next two at the start of round 2, the rest at round 3.
12. **Set-aside cards** [:66]: hidden from every seat (the spectator sees them).
13. **Ties** [:205–209]: equal totals share the placing.
14. **Last call is a bet** (designed): if the caller's round score (its hand) is not strictly
    the highest of the round, it loses ``last_call_penalty`` (5) points that round, however the
    round ended. Without the bet, the caller's final turn made calling right at nearly every
    chance; with it, the true-state check in ``bench/design_sodajerk.py --part oracle`` finds
    calling better in about half the offers and worse in the other half.

Bound: a round ends when a turn starts with a hand of 3 or fewer, so each seat places at most
H − 3 cards (H = 14 / 13 / 10 at 2 / 3 / 4 players, the 2-player Switcheroo included); nothing
turns a card face down again, so every flip turn needs an earlier place, and each place adds at
most one ``power`` step (Advanced). A game of 3 rounds has at most 3 × players × (H − 3) × 2
steps: 132 / 180 / 168 at 2 / 3 / 4 players (× 3 instead of × 2 with Advanced: 198 / 270 / 252).
Random play takes at most 75 / 115 / 110 (101 / 145 / 143 Advanced) over 200 games.

Chance labels, in draw order: ``"tap"`` (2 players: pick of the flavour removed, once),
``"b-side"`` (Advanced: one shuffle of the taps in play, once), then each round ``"deck"``
(shuffle of the flavour cards: seat 0 is dealt the first cards, then seat 1, …, the rest are
set aside, top first) and ``"first"`` (a pick among the seats: every seat in round 1, the
lowest totals later, drawn only when several tie).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig, OptionSpec
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result, Variant
from arena.games.sodajerk import worlds
from arena.games.sodajerk.cards import (
    B_FLIPS,
    CALL_PENALTY,
    END_HAND,
    FLAVOURS,
    HAND,
    POWER_TEXT,
    POWERS,
    ROUNDS,
    SWITCH,
    SWITCHEROO,
    Card,
    Slot,
    flavour_cards,
    hand_score,
    tap_name,
    tap_value,
)
from arena.games.v1 import sodajerk_pb2 as pb


@dataclass
class SodaJerkState(MatchState):
    flavours: list[int] = field(default_factory=list)  # taps in play, in order
    removed: int = 0  # 2 players: the flavour out of the game (0 = none)
    b_order: list[int] = field(default_factory=list)  # Advanced: the order taps turn to B
    b_side: dict[int, bool] = field(default_factory=dict)
    taps: dict[int, list[Slot]] = field(default_factory=dict)
    hands: list[list[Card]] = field(default_factory=list)  # sorted
    set_aside: list[Card] = field(default_factory=list)  # top first
    poured: list[Card] = field(default_factory=list)
    spilled: list[list[Card]] = field(default_factory=list)  # per seat, this round
    round: int = 0
    first_seat: int = 0
    turn_seat: int = 0
    phase: int = pb.TURN
    power_tap: int = 0
    first_done: list[bool] = field(default_factory=list)
    flips: int = 0  # consecutive flips
    last_call: int = 0  # turns left (the caller's included) before a last call ends the round
    caller: int = -1  # the seat that called last call this round (-1: nobody)
    round_scores: list[list[int]] = field(default_factory=list)  # per seat
    totals: list[int] = field(default_factory=list)

    @property
    def advanced(self) -> bool:
        return bool(self.config.options.get("advanced", False))


_OPTIONS: dict[tuple[object, ...], Option] = {}
_ROWS: dict[tuple[int, ...], dict[Card, list[Option]]] = {}  # cached place options per card


def _place(card: Card, tap: int) -> Option:
    key = (card, tap)
    option = _OPTIONS.get(key)
    if option is None:
        option = _OPTIONS[key] = _make_place(card, tap)
    return option


def _make_place(card: Card, tap: int) -> Option:
    return Option(
        f"place:{card.token}:{tap_name(tap)}",
        f"place {card.name} under the {tap_name(tap)} tap",
        pb.Action(kind=pb.PLACE, card=_card_pb(card), tap=tap),  # type: ignore[arg-type]
    )


def _at(kind: int, word: str, tap: int, index: int, text: str) -> Option:
    return Option(f"{word}:{tap_name(tap)}:{index}", text, pb.Action(kind=kind, tap=tap, index=index))  # type: ignore[arg-type]


def _flip(tap: int, index: int) -> Option:
    key = ("flip", tap, index)
    option = _OPTIONS.get(key)
    if option is None:
        text = f"flip the face-down card {index} under the {tap_name(tap)} tap"
        option = _OPTIONS[key] = _at(pb.FLIP, "flip", tap, index, text)
    return option


SKIP = Option("skip", "do not use the power", pb.Action(kind=pb.SKIP))
LAST_CALL = Option("last-call", "last call: one more turn each", pb.Action(kind=pb.USE_LAST_CALL))


class SodaJerk(Game[SodaJerkState]):
    meta = GameMeta(
        id="sodajerk",
        name="Soda Jerk",
        min_players=2,
        max_players=4,
        # 2: the last call is a bet (ruling 14); 3: spill is asked of every hand over 3 cards
        # (ruling 10); 4: the score event shows every hand (:166)
        version="4",
        options=(OptionSpec("advanced", False, "Advanced play: taps turn to B sides with powers (arena design)"),),
        variants=(
            Variant("two-player", "4 taps, 36 cards, a Switcheroo per player each round (always with 2)", players=(2,)),
            Variant(
                "advanced",
                "B-side tap powers: 1 tap before round 1, 2 more in round 2, the rest in 3",
                {"advanced": True},
            ),
        ),
        hidden_information=True,
        summary="Place flavour cards face down under five taps or flip them; your hand scores "
        "each flavour's final tap value, so sweeten your flavours and sour the others.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    # -- setup ------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> SodaJerkState:
        players = config.players
        state = SodaJerkState(config=config, chance=chance)
        flavours = list(FLAVOURS)
        if players == 2:
            state.removed = chance.pick(FLAVOURS, "tap")
            flavours.remove(state.removed)
            state.log.public(
                CHANCE_SEAT,
                "round",
                f"2 players: the {tap_name(state.removed)} tap and its cards are out of the game",
                pb.Detail(round=0, tap=state.removed),  # type: ignore[arg-type]
            )
        state.flavours = flavours
        state.b_side = {f: False for f in flavours}
        state.taps = {f: [] for f in flavours}
        if state.advanced:
            state.b_order = chance.shuffled(flavours, "b-side")
        state.round_scores = [[] for _ in range(players)]
        state.totals = [0] * players
        self._start_round(state)
        return state

    def _start_round(self, state: SodaJerkState) -> None:
        state.round += 1
        players = state.players
        chance = state.chance
        if state.advanced:
            done = sum(B_FLIPS[: state.round - 1])
            for f in state.b_order[done : done + B_FLIPS[state.round - 1]]:
                state.b_side[f] = True
                power = POWERS[f]
                state.log.public(
                    CHANCE_SEAT,
                    "b-side",
                    f"the {tap_name(f)} tap turns to its B side: {POWER_TEXT[power]}",
                    pb.Detail(tap=f, power=power, round=state.round),  # type: ignore[arg-type]
                )
        order = chance.shuffled(flavour_cards(state.flavours), "deck")
        size = HAND[players]
        state.hands = [sorted(order[s * size : (s + 1) * size]) for s in range(players)]
        if players == 2:
            for hand in state.hands:
                hand.append(SWITCHEROO)  # sorts last: SWITCHEROO is the highest flavour
        state.set_aside = order[players * size :]
        state.taps = {f: [] for f in state.flavours}
        state.poured = []
        state.spilled = [[] for _ in range(players)]
        if state.round == 1:
            candidates = list(range(players))
        else:
            low = min(state.totals)
            candidates = [s for s in range(players) if state.totals[s] == low]
        state.first_seat = candidates[0] if len(candidates) == 1 else chance.pick(candidates, "first")
        state.turn_seat = state.first_seat
        state.first_done = [False] * players
        state.flips = 0
        state.last_call = 0
        state.caller = -1
        state.phase = pb.TURN
        state.power_tap = 0
        state.log.public(
            state.first_seat,
            "round",
            f"round {state.round}: {len(state.hands[0])} cards each, {len(state.set_aside)} set aside; "
            f"seat {state.first_seat} goes first",
            pb.Detail(seat=state.first_seat, round=state.round),
        )
        for seat, hand in enumerate(state.hands):
            state.log.private(
                [seat],
                seat,
                "deal",
                f"is dealt {', '.join(c.name for c in hand)}",
                pb.Detail(seat=seat, cards=_cards_pb(hand), round=state.round),
            )

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: SodaJerkState) -> Iterable[Decision]:
        if state.phase == pb.TURN:
            return (Decision(state.turn_seat, "turn", self._turn_options(state)),)
        if state.phase == pb.POWER:
            return (Decision(state.turn_seat, "power", self._power_options(state)),)
        return ()

    def _turn_options(self, state: SodaJerkState) -> tuple[Option, ...]:
        seat = state.turn_seat
        cards = list(dict.fromkeys(state.hands[seat]))
        if not state.first_done[seat]:
            taps = [f for f in state.flavours if not state.taps[f]]  # ruling 2
            return tuple(_place(c, t) for c in cards for t in taps)
        key = tuple(state.flavours)
        rows = _ROWS.get(key)
        if rows is None:
            rows = _ROWS[key] = {}
        places: list[Option] = []
        for c in cards:
            options = rows.get(c)
            if options is None:
                options = rows[c] = [_place(c, t) for t in state.flavours]
            places += options
        flips = [_flip(t, i) for t in state.flavours for i, slot in enumerate(state.taps[t]) if not slot.face_up]
        return (*places, *flips)

    def _power_options(self, state: SodaJerkState) -> tuple[Option, ...]:
        return (SKIP, *self._power_uses(state, state.power_tap))

    def _asks_power(self, state: SodaJerkState, tap: int) -> bool:
        """Whether the placer is asked: decided on what the table sees (ruling 10). Spill is
        asked whenever the hand is large enough, even without a strawberry card (``skip`` then
        its one option): asking only a holder would tell the others what the hand holds."""
        if POWERS[tap] == pb.SPILL:
            return len(state.hands[state.turn_seat]) > END_HAND
        return bool(self._power_uses(state, tap))

    def _power_uses(self, state: SodaJerkState, tap: int) -> list[Option]:
        power = POWERS[tap]
        if power == pb.SPILL:
            hand = state.hands[state.turn_seat]
            if len(hand) <= END_HAND:
                return []  # ruling 10: a spill never takes a hand below 3 cards
            return [
                Option(
                    f"spill:{c.token}",
                    f"spill {c.name} out of the round",
                    pb.Action(kind=pb.USE_SPILL, card=_card_pb(c)),
                )
                for c in dict.fromkeys(hand)
                if c.flavour == tap  # ruling 10: a card of this tap's flavour
            ]
        if power == pb.LAST_CALL:
            return [] if state.last_call else [LAST_CALL]
        if power == pb.POUR:  # any card under this tap but the one just placed
            return [
                _at(pb.USE_POUR, "pour", tap, i, f"pour off {_slot_text(s)} from the {tap_name(tap)} tap")
                for i, s in enumerate(state.taps[tap][:-1])
            ]
        if power == pb.MOVE:  # any card under another tap, face up or down
            return [
                _at(pb.USE_MOVE, "move", t, i, f"move {_slot_text(s)} of the {tap_name(t)} tap here")
                for t in state.flavours
                if t != tap
                for i, s in enumerate(state.taps[t])
            ]
        return [
            _at(pb.USE_FIZZ, "fizz", t, i, f"flip the face-down card {i} of the {tap_name(t)} tap")
            for t in state.flavours
            if t != tap
            for i, s in enumerate(state.taps[t])
            if not s.face_up
        ]

    # -- rules ------------------------------------------------------------------------------

    def resolve(self, state: SodaJerkState, chosen: Mapping[int, Option]) -> None:
        (seat, option), *_ = chosen.items()
        action = option.action
        assert isinstance(action, pb.Action)
        kind = action.kind
        if kind == pb.PLACE:
            self._do_place(state, seat, Card(action.card.flavour, action.card.number), action.tap)
        elif kind == pb.FLIP:
            self._do_flip(state, seat, action.tap, action.index)
        else:
            self._do_power(state, seat, action)

    def _do_place(self, state: SodaJerkState, seat: int, card: Card, tap: int) -> None:
        state.hands[seat].remove(card)
        state.taps[tap].append(Slot(card, seat))
        state.first_done[seat] = True
        state.flips = 0
        index = len(state.taps[tap]) - 1
        state.log.public(
            seat,
            "place",
            f"places a card face down under the {tap_name(tap)} tap",
            pb.Detail(seat=seat, tap=tap, index=index),  # type: ignore[arg-type]
        )
        if state.advanced and state.b_side[tap] and self._asks_power(state, tap):
            state.phase = pb.POWER
            state.power_tap = tap
            return
        self._next_turn(state)

    def _do_flip(self, state: SodaJerkState, seat: int, tap: int, index: int) -> None:
        slot = state.taps[tap][index]
        slot.face_up = True
        state.flips += 1
        state.log.public(
            seat,
            "flip",
            f"flips {slot.card.name} under the {tap_name(tap)} tap (placed by seat {slot.seat})",
            pb.Detail(seat=seat, tap=tap, index=index, card=_card_pb(slot.card)),  # type: ignore[arg-type]
        )
        if state.flips >= state.players:
            self._end_round(state, "flips")  # ruling 5
        elif all(s.face_up for t in state.flavours for s in state.taps[t]):
            self._end_round(state, "revealed")  # ruling 6
        else:
            self._next_turn(state)

    def _do_power(self, state: SodaJerkState, seat: int, action: pb.Action) -> None:
        tap = state.power_tap
        kind = action.kind
        state.phase = pb.TURN
        state.power_tap = 0
        if kind == pb.USE_SPILL:
            card = Card(action.card.flavour, action.card.number)
            state.hands[seat].remove(card)
            state.spilled[seat].append(card)
            state.log.public(seat, "spill", "spills a card from hand out of the round", pb.Detail(seat=seat, tap=tap))  # type: ignore[arg-type]
        elif kind == pb.USE_POUR:
            slot = state.taps[tap].pop(action.index)
            state.poured.append(slot.card)
            state.log.public(
                seat,
                "pour",
                f"pours off {slot.card.name} from the {tap_name(tap)} tap",
                pb.Detail(seat=seat, tap=tap, index=action.index, card=_card_pb(slot.card)),  # type: ignore[arg-type]
            )
        elif kind == pb.USE_MOVE:
            slot = state.taps[action.tap].pop(action.index)
            state.taps[tap].append(slot)
            state.log.public(
                seat,
                "move",
                f"moves {_slot_text(slot)} from the {tap_name(action.tap)} tap to the {tap_name(tap)} tap",
                pb.Detail(
                    seat=seat,
                    tap=tap,  # type: ignore[arg-type]
                    index=action.index,
                    card=_card_pb(slot.card) if slot.face_up else None,
                    from_tap=action.tap,
                ),
            )
        elif kind == pb.USE_FIZZ:
            slot = state.taps[action.tap][action.index]
            slot.face_up = True
            state.log.public(
                seat,
                "fizz",
                f"fizzes {slot.card.name} face up under the {tap_name(action.tap)} tap",
                pb.Detail(seat=seat, tap=action.tap, index=action.index, card=_card_pb(slot.card)),
            )
        elif kind == pb.USE_LAST_CALL:
            text = "calls last call: every player has one more turn, the caller last"
            state.log.public(seat, "last-call", text, pb.Detail(seat=seat, tap=tap))  # type: ignore[arg-type]
            state.last_call = state.players + 1  # this turn, one each for the others, one more of yours
            state.caller = seat
        self._next_turn(state)

    def _next_turn(self, state: SodaJerkState) -> None:
        if state.last_call:
            state.last_call -= 1
            if not state.last_call:
                self._end_round(state, "last-call")
                return
        state.turn_seat = (state.turn_seat + 1) % state.players
        if len(state.hands[state.turn_seat]) <= END_HAND:
            self._end_round(state, "hand")  # ruling 4

    def _end_round(self, state: SodaJerkState, reason: str) -> None:
        why = {
            "hand": f"seat {state.turn_seat} starts a turn with {len(state.hands[state.turn_seat])} cards",
            "flips": f"{state.players} flips in a row",
            "revealed": "every card under the taps is face up",
            "last-call": "every player has had one more turn after the last call",
        }[reason]
        state.log.public(
            CHANCE_SEAT,
            "round-end",
            f"round {state.round} ends: {why}",
            pb.Detail(round=state.round, reason=reason, seat=state.turn_seat),
        )
        for tap in state.flavours:
            for index, slot in enumerate(state.taps[tap]):
                if not slot.face_up:
                    slot.face_up = True
                    state.log.public(
                        slot.seat,
                        "reveal",
                        f"{slot.card.name} was face down under the {tap_name(tap)} tap",
                        pb.Detail(seat=slot.seat, tap=tap, index=index, card=_card_pb(slot.card)),  # type: ignore[arg-type]
                    )
        values = self.tap_values(state)
        scores = [hand_score(hand, values) for hand in state.hands]
        penalty = self._call_penalty(state, scores)
        if penalty:
            scores[state.caller] -= penalty
        for seat in range(state.players):
            state.round_scores[seat].append(scores[seat])
            state.totals[seat] += scores[seat]
        shown = ", ".join(f"{tap_name(t)} {values[t]:+d}" for t in state.flavours)
        state.log.public(
            CHANCE_SEAT,
            "score",
            f"round {state.round}: taps {shown}; hands score "
            + ", ".join(f"seat {s} {v:+d}" for s, v in enumerate(scores))
            + (f" (seat {state.caller} called last call without the best hand: -{penalty})" if penalty else ""),
            pb.Detail(
                round=state.round,
                values=[values[t] for t in state.flavours],
                scores=scores,
                caller=state.caller,
                penalty=penalty,
                hands=[pb.Hand(cards=[_card_pb(c) for c in hand]) for hand in state.hands],
            ),
        )
        if state.round < ROUNDS:
            self._start_round(state)
            return
        state.phase = pb.OVER
        state.log.public(
            CHANCE_SEAT,
            "end",
            "game over: " + ", ".join(f"seat {s} {v}" for s, v in enumerate(state.totals)),
            pb.Detail(scores=state.totals, round=state.round),
        )

    @staticmethod
    def _call_penalty(state: SodaJerkState, scores: list[int]) -> int:
        """A last call is a bet (ruling 14): the caller whose hand does not score strictly the
        most this round loses ``CALL_PENALTY``."""
        caller = state.caller
        if caller < 0 or all(scores[caller] > v for s, v in enumerate(scores) if s != caller):
            return 0
        return CALL_PENALTY

    @staticmethod
    def tap_values(state: SodaJerkState) -> dict[int, int]:
        """Every tap's value counting all its cards, face down or not."""
        return {t: tap_value(t, (s.card for s in state.taps[t])) for t in state.flavours}

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: SodaJerkState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        taps = []
        unknown = [0] * (SWITCH + 1)
        for t in state.flavours:
            slots = []
            shown: list[Card] = []
            known: list[Card] = []
            down = 0
            for s in state.taps[t]:
                visible = s.face_up or spectator or s.seat == viewer
                if s.face_up:
                    shown.append(s.card)
                else:
                    down += 1
                if visible:
                    known.append(s.card)
                else:
                    unknown[s.card.flavour] += 1
                slots.append(pb.Slot(seat=s.seat, face_up=s.face_up, card=_card_pb(s.card) if visible else None))
            taps.append(
                pb.Tap(
                    flavour=t,  # type: ignore[arg-type]
                    b_side=state.b_side[t],
                    power=POWERS[t] if state.b_side[t] else 0,  # type: ignore[arg-type]
                    slots=slots,
                    shown_value=tap_value(t, shown),
                    known_value=tap_value(t, known),
                    face_down=down,
                )
            )
        if not spectator:
            for seat in range(state.players):
                if seat != viewer:
                    for c in state.hands[seat]:
                        unknown[c.flavour] += 1
                    for c in state.spilled[seat]:
                        unknown[c.flavour] += 1
            for c in state.set_aside:
                unknown[c.flavour] += 1
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=state.players,
            round=state.round,
            phase=state.phase,  # type: ignore[arg-type]
            turn_seat=state.turn_seat,
            first_seat=state.first_seat,
            advanced=state.advanced,
            taps=taps,
            removed_flavour=state.removed,  # type: ignore[arg-type]
            hand=[] if spectator else _cards_pb(state.hands[viewer]),
            table=[
                pb.Player(
                    hand_count=len(state.hands[s]),
                    total=state.totals[s],
                    round_scores=state.round_scores[s],
                    first_turn_done=state.first_done[s],
                    spilled=len(state.spilled[s]),
                )
                for s in range(state.players)
            ],
            set_aside=len(state.set_aside),
            consecutive_flips=state.flips,
            power_tap=state.power_tap,  # type: ignore[arg-type]
            poured=_cards_pb(state.poured),
            unknown_by_flavour=unknown,
            rounds=ROUNDS,
            last_call_turns=state.last_call,
            caller=state.caller,
            spilled=_cards_pb([c for s, pile in enumerate(state.spilled) if spectator or s == viewer for c in pile]),
        )
        if spectator:
            obs.hands.extend(pb.Hand(cards=_cards_pb(h)) for h in state.hands)
            obs.set_aside_cards.extend(_cards_pb(state.set_aside))
        return obs

    def score(self, state: SodaJerkState) -> Result:
        totals = list(state.totals)
        best = max(totals)
        winners = [s for s in range(state.players) if totals[s] == best]
        summary = f"winner{'s' if len(winners) > 1 else ''}: seat {', '.join(map(str, winners))} ({best} points)"
        return Result.ranked(totals, totals, summary)

    # -- determinization ----------------------------------------------------------------------

    def sample_world(self, state: SodaJerkState, seat: int, chance: Chance) -> SodaJerkState:
        """A copy of ``state`` with everything hidden from ``seat`` re-dealt at random (see
        :mod:`arena.games.sodajerk.worlds`): the other hands, the others' face-down and spilled
        cards, the set-aside cards, and in Advanced the order of the taps still to turn. Draws:
        ``"world"`` (the world's own seed), ``"world-deal"`` (the unknown cards into the hidden
        places), ``"world-b-side"`` (Advanced: the taps still on their A side)."""
        return worlds.sample_world(self, state, seat, chance)

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> SodaJerkState:
        """The same world from the observation alone: everything public and the seat's own
        hand, spills and placed cards are kept; the unknown cards (the round's cards minus those
        the observation shows) are dealt to the hidden places by their observed sizes, as in
        :meth:`sample_world`. Nothing the seat knows is missing from the observation."""
        return worlds.world_from_observation(self, config, seat, observation, chance)


_CARD_PB = {
    c: pb.Card(flavour=c.flavour, number=c.number)  # type: ignore[arg-type]
    for c in [*dict.fromkeys(flavour_cards(FLAVOURS)), SWITCHEROO]
}


def _slot_text(slot: Slot) -> str:
    """A card under a tap as every player may name it (a face-down card is never named)."""
    return slot.card.name if slot.face_up else f"the face-down card of seat {slot.seat}"


def _card_pb(card: Card) -> pb.Card:
    return _CARD_PB[card]


def _cards_pb(cards: Sequence[Card]) -> list[pb.Card]:
    return [_CARD_PB[c] for c in cards]


GAME = SodaJerk()
