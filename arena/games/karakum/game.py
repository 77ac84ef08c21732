"""Karakum — gather goods, buy camels, build a caravan; 2–4 players (``shared/rules/karakum.md``).

Rules as implemented (rulebook line references in brackets):

* 71 resource cards: 13 each of Jewelry, Silk, Spices, Honey, Paper and 6 Gold [:23, :38–48];
  35 camels, 5 colours (blue, purple, red, orange, green, paid with those goods) × 1–7 [:24,
  :52–61] (designed, see ``components.toml``). Caravan Masters have no colour or number [:65–69].
* Setup [:73–101]: shuffle the camels, remove 12 (2p) / 8 (3p) / 0 (4p) face down, reveal 5 into
  the market; shuffle the resources, deal 5 to each player, reveal 5 face up. A random player
  starts; play is clockwise.
* A turn is ONE action, gather or buy [:107–110].
* Gather [:114–134]: take 2 resources, each face up or the top of the deck. A face-up Gold is the
  only card of the gather; after a first card (blind or face up) the second may not be a face-up
  Gold. Face-up cards are replaced at once; an empty deck is formed again from the shuffled
  discard pile. No hand limit.
* Buy [:138–147]: any market camel; pay its number (+1 if taxed) in goods of its colour; Gold
  stands for any one good; 2 identical goods of another kind stand for one good.
* Caravan [:151–169]: the first camel goes right of the Caravan Master; a later camel joins the
  caravan's right end if it matches that end's colour or number, else it goes left (outside).
  An outside camel that fits the end later moves into the caravan at once.
* Value-1 camel [:173–182]: take 1 free resource, face up (Gold too) or from the deck.
* Market [:186–202]: after a buy the market shifts right (away from the camel deck) and a new
  camel is revealed next to the deck; the camel closest to the deck taxes its colour: +1 good.
* End [:206–211]: when the market cannot be refilled after a buy, the game ends.
* Score [:215–227]: caravan camels score their number, outside camels half (rounded down); most
  points wins; ties: longest caravan, then a shared victory.

Rulings (``shared/rules/NOTES.md`` §4.9 unless stated):

1. **Camels** (NOTES 2): 5 colours × numbers 1–7, one camel each (designed, ``components.toml``).
2. **Gold rule** (NOTES 3.1): a face-up Gold can only be taken as the first pick and ends the
   gather; the second pick is never a face-up Gold, whatever the first was.
3. **Refill** (NOTES 3.2): a taken face-up card is replaced from the deck before the next pick.
4. **Payment** (NOTES 3.3): exactly cost units; a unit is one card of the camel's good, one
   Gold, or two identical cards of one other good (never Gold). The payment is its own decision
   (``pay``) listing every distinct multiset of cards; ``buy`` is offered only for affordable
   camels.
5. **Market** (NOTES 3.4): market[0] is next to the camel deck. Buying market[i] shifts
   market[0..i-1] one place right and reveals the new camel at market[0]; the tax is market[0]'s
   colour, and it applies to market[0] itself. At setup the camels are revealed one by one the
   same way (the 5th revealed is market[0]).
6. **Caravan** (NOTES 3.5): a camel matches the caravan's right end (the last camel). The first
   camel always joins. After a camel joins, outside camels that fit the new end move in, one at
   a time, until none fits; when several fit, the owner chooses (``rejoin``); one is moved at
   once.
7. **Order of a buy**: pay, place the camel (and rejoin), refill the market (the game ends if it
   cannot be refilled: no free resource then), then the value-1 free resource (``free``).
8. **Reshuffle** (NOTES 3.8): when a card must come from an empty deck, the discard pile is
   shuffled into a new deck; if both are empty, no card comes: ``draw`` is not offered, a face-up
   card is not replaced, a second pick or free resource with no option is skipped. The row
   stays short only until a card can be had: right after the payment that refills the discard
   pile (the event ``buy``), the missing face-up cards are replaced (a reshuffle first), before
   the caravan is settled and the free resource taken (ruling 7's "pay" step).
9. **Stuck player** (not covered by the text): a player who can neither gather (no card
   anywhere) nor afford any camel is skipped without a decision; if no player can act, the game
   ends.
10. **Tie-break** (NOTES 3.7): (score, caravan length) ranks every placing; equal keys share it.
11. **Start player** [:100] "youngest": a seeded random seat.
12. **Hidden information**: hands are hidden, but a card taken face up is known to be in the hand
    until spent; a payment spends known cards first, so the public ``known`` counts are exactly
    the cards certainly in a hand. ``sample_world`` deals every other card of the other hands
    and the deck again, per deck cycle (each reshuffle starts a cycle whose make-up is public):
    each blind card a payment showed (paid beyond the known cards) is charged to a cycle in
    which that hand had drawn blind before the payment and which had that good; the rest of each
    cycle is shuffled and dealt to the hands' remaining blind cards of that cycle and, for the
    current cycle, to the deck. The charging is the search Gasha uses (``games/charging.py``:
    the charges with one possible cycle first, then a depth-first search in time order, the
    cycle with most of the good first, remembering the positions it found dead, at most 20,000
    steps). Without that memory it ran out of steps in 0.013% of random-play readings and 1.5%
    of heuristic-play ones (version 4); with it, in none of 54,628 readings of 90 random and
    24 heuristic games, which read every position version 4 read as before. Should it still
    find no charging, the cycles are pooled instead (the world stays a legal state with the
    same observation, but may give a hand a card of a good its cycles no longer had). When another
    seat is about to pay, its world hand is made to afford the camel (blind cards that cannot pay
    are traded for deck cards that can; where that is not enough, about 1% of such worlds,
    every hidden card is pooled and the buyer's dealt first, one at a time, never one after which
    it could no longer pay). The observation carries these deck cycles (``cycles``: each one's
    unlocated cards and each hand's blind cards from it, charging done), so
    ``world_from_observation`` deals exactly as ``sample_world`` does. A world's history (what
    the cycles are read from) is written from these cycles in both, so it records nothing the
    seat has not seen (a copy of the real one kept the other hands' real blind draws).

Chance labels: ``"camels"`` (the shuffle of the 35 camels: the top card first; the last 12/8/0
of the order are removed), ``"resources"`` (the shuffle of the 71 resources: the top card
first; the deal takes 5 per seat from seat 0 up, then 5 face up), ``"start"`` (pick of the first
seat), ``"reshuffle"`` (every shuffle of the discard pile into a new deck, in order).

Bound: the game ends after at most 19 / 23 / 31 buys (2 / 3 / 4 players); between two buys at
most 71 resource cards can be gathered, so a match has fewer than 32 × 72 turns.
"""

from __future__ import annotations

import threading
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result
from arena.games.charging import charge
from arena.games.v1 import karakum_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

GOODS: tuple[int, ...] = (pb.JEWELRY, pb.SILK, pb.SPICES, pb.HONEY, pb.PAPER)
GOLD = pb.GOLD
TYPES: tuple[int, ...] = (*GOODS, GOLD)  # every resource type, in Good order
GOOD_NAMES: dict[int, str] = {**dict(zip(GOODS, _DATA["resources"]["goods"], strict=True)), GOLD: "gold"}
COLOUR_NAMES: dict[int, str] = dict(zip(GOODS, _DATA["camels"]["colours"], strict=True))
NUMBERS: tuple[int, ...] = tuple(_DATA["camels"]["numbers"])
HAND = int(_DATA["resources"]["hand"])
FACE_UP = int(_DATA["resources"]["face_up"])
MARKET = int(_DATA["camels"]["market"])
REMOVED: dict[int, int] = {int(players): n for players, n in _DATA["removed"].items()}
SLOTS = GOLD + 1  # length of a counts list (index 0 unused)


def full_resources() -> list[int]:
    """The 71 resource cards (Good values) in a fixed order [:23]."""
    per = int(_DATA["resources"]["per_good"])
    return [g for g in GOODS for _ in range(per)] + [GOLD] * int(_DATA["resources"]["gold"])


def counts_of(cards: Iterable[int]) -> list[int]:
    out = [0] * SLOTS
    for card in cards:
        out[card] += 1
    return out


class Camel(NamedTuple):
    colour: int  # a Good value JEWELRY..PAPER
    number: int

    @property
    def token(self) -> str:
        """Short id used in option ids: ``green5``."""
        return f"{COLOUR_NAMES[self.colour]}{self.number}"

    def fits(self, end: Camel | None) -> bool:
        """Joins a caravan whose right end is ``end`` (None: empty caravan, always) [:153–158]."""
        return end is None or end.colour == self.colour or end.number == self.number


def full_camels() -> list[Camel]:
    """The 35 camels in a fixed order (ruling 1)."""
    return [Camel(colour, n) for colour in GOODS for n in NUMBERS]


def camel_cost(camel: Camel, taxed: int) -> int:
    """The camel's number, +1 when its colour is taxed [:197–199]."""
    return camel.number + (camel.colour == taxed)


def units(hand: Sequence[int], colour: int) -> int:
    """How many payment units the hand holds for a camel of ``colour`` (ruling 4)."""
    return hand[colour] + hand[GOLD] + sum(hand[g] // 2 for g in GOODS if g != colour)


def payments(hand: Sequence[int], colour: int, cost: int) -> list[list[int]]:
    """Every distinct payment (cards spent, counts by Good) of ``cost`` units for ``colour``."""
    sources = [colour, GOLD, *(g for g in GOODS if g != colour)]
    caps = [hand[colour], hand[GOLD], *(hand[g] // 2 for g in GOODS if g != colour)]
    out: list[list[int]] = []
    chosen = [0] * len(sources)

    def walk(i: int, left: int) -> None:
        if i == len(sources):
            if left == 0:
                paid = [0] * SLOTS
                for k, source in enumerate(sources):
                    paid[source] = chosen[k] * (2 if k >= 2 else 1)
                out.append(paid)
            return
        if sum(caps[i:]) < left:
            return
        for n in range(min(caps[i], left), -1, -1):
            chosen[i] = n
            walk(i + 1, left - n)
        chosen[i] = 0

    walk(0, cost)
    return out


def payment_token(paid: Sequence[int]) -> str:
    return "+".join(f"{GOOD_NAMES[t]}{paid[t]}" for t in TYPES if paid[t])


def score_of(caravan: Sequence[Camel], outside: Sequence[Camel]) -> int:
    """Caravan numbers in full, outside numbers halved and rounded down [:219–220]."""
    return sum(c.number for c in caravan) + sum(c.number // 2 for c in outside)


# History records kept for sample_world (privileged: "blind" holds the true card).
BLIND, REVEAL, TAKE, PAY, SHUFFLE = range(5)


@dataclass
class KarakumState(MatchState):
    deck: list[int] = field(default_factory=list)  # resource deck, the top card is the LAST
    discard: list[int] = field(default_factory=lambda: [0] * SLOTS)  # counts by Good
    face_up: list[int] = field(default_factory=lambda: [0] * SLOTS)  # counts by Good
    hands: list[list[int]] = field(default_factory=list)  # counts by Good, per seat
    known: list[list[int]] = field(default_factory=list)  # public: certainly in hand (ruling 12)
    camel_deck: list[Camel] = field(default_factory=list)  # the top camel is the LAST
    removed: list[Camel] = field(default_factory=list)
    market: list[Camel] = field(default_factory=list)  # [0] next to the camel deck
    caravans: list[list[Camel]] = field(default_factory=list)
    outside: list[list[Camel]] = field(default_factory=list)
    phase: int = pb.PHASE_TURN
    turn_seat: int = 0
    turns: int = 0
    buying: Camel | None = None
    cost: int = 0  # the price of `buying`, fixed when it was chosen (tax included)
    history: list[tuple[int, int, int, tuple[int, ...]]] = field(default_factory=list)


def _good(good: int) -> pb.Good.ValueType:
    return pb.Good.ValueType(good)


def _take_option(good: int) -> Option:
    return Option(
        f"take:{GOOD_NAMES[good]}", f"take the face-up {GOOD_NAMES[good]}", pb.Action(kind=pb.TAKE, good=_good(good))
    )


_TAKE = {g: _take_option(g) for g in TYPES}
_OPTIONS: dict[object, Option] = {}
_PICKS: dict[tuple[bool, ...], tuple[Option, ...]] = {}
_EVENTS: dict[tuple[int, int, bool], pb.ResourceEvent] = {}


def _resource_event(seat: int, good: int, free: bool) -> pb.ResourceEvent:
    """A shared detail message (seat -1: none; good 0: none); never mutated."""
    key = (seat, good, free)
    event = _EVENTS.get(key)
    if event is None:
        event = _EVENTS[key] = pb.ResourceEvent(seat=max(seat, 0), good=_good(good), free=free)
    return event


def _buy_option(camel: Camel, cost: int) -> Option:
    key = (camel, cost)
    option = _OPTIONS.get(key)
    if option is None:
        label = f"buy the {COLOUR_NAMES[camel.colour]} {camel.number} for {cost} {GOOD_NAMES[camel.colour]}"
        option = _OPTIONS[key] = Option(f"buy:{camel.token}", label, pb.Action(kind=pb.BUY, camel=_camel_pb(camel)))
    return option


def _pay_option(paid: tuple[int, ...]) -> Option:
    option = _OPTIONS.get(paid)
    if option is None:
        text = ", ".join(f"{paid[t]} {GOOD_NAMES[t]}" for t in TYPES if paid[t])
        option = _OPTIONS[paid] = Option(
            f"pay:{payment_token(paid)}", f"pay {text}", pb.Action(kind=pb.PAY, cards=paid)
        )
    return option


_DRAW = Option("draw", "draw the top resource card", pb.Action(kind=pb.DRAW))


def _camel_pb(camel: Camel) -> pb.Camel:
    return _CAMEL_PB[camel]


def _camels_pb(camels: Iterable[Camel]) -> list[pb.Camel]:
    return [_CAMEL_PB[c] for c in camels]


_CAMEL_PB = {c: pb.Camel(colour=c.colour, number=c.number) for c in full_camels()}  # type: ignore[arg-type]


class Karakum(Game[KarakumState]):
    meta = GameMeta(
        id="karakum",
        name="Karakum",
        min_players=2,
        max_players=4,
        version="6",  # 6: the "start" event's detail (StartEvent)
        hidden_information=True,
        summary="Gather goods and spend them on camels; each camel must match the caravan's end "
        "by colour or number, or it scores half.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    # -- setup ------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> KarakumState:
        players = config.players
        camels = chance.shuffled(full_camels(), "camels")
        keep = len(camels) - REMOVED[players]
        resources = chance.shuffled(full_resources(), "resources")
        start = chance.pick(range(players), "start")
        state = KarakumState(
            config=config,
            chance=chance,
            deck=resources[::-1],
            hands=[[0] * SLOTS for _ in range(players)],
            known=[[0] * SLOTS for _ in range(players)],
            camel_deck=camels[:keep][::-1],
            removed=camels[keep:],
            caravans=[[] for _ in range(players)],
            outside=[[] for _ in range(players)],
            turn_seat=start,
        )
        state.log.public(
            CHANCE_SEAT,
            "start",
            f"{REMOVED[players]} camels removed face down, {keep} in play; seat {start} goes first",
            pb.StartEvent(removed=REMOVED[players], in_play=keep, first_seat=start),
        )
        for _ in range(MARKET):
            self._reveal_camel(state)
        for seat in range(players):
            dealt = [0] * SLOTS
            for _ in range(HAND):
                card = self._pop_deck(state)
                assert card is not None
                state.history.append((BLIND, seat, card, ()))
                state.hands[seat][card] += 1
                dealt[card] += 1
            text = f"is dealt {self._cards_text(dealt)}"
            state.log.private([seat], seat, "deal", text, pb.ResourceEvent(seat=seat, cards=dealt))
        for _ in range(FACE_UP):
            self._refill_face_up(state)
        return state

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: KarakumState) -> Iterable[Decision]:
        phase, seat = state.phase, state.turn_seat
        if phase == pb.PHASE_TURN:
            return (Decision(seat, "turn", self._turn_options(state, seat)),)
        if phase == pb.PHASE_SECOND:
            return (Decision(seat, "second", self._pick_options(state, gold=False)),)
        if phase == pb.PHASE_PAY:
            return (Decision(seat, "pay", self._pay_options(state, seat)),)
        if phase == pb.PHASE_REJOIN:
            return (Decision(seat, "rejoin", self._rejoin_options(state, seat)),)
        if phase == pb.PHASE_FREE:
            return (Decision(seat, "free", self._pick_options(state, gold=True)),)
        return ()

    @staticmethod
    def _can_draw(state: KarakumState) -> bool:
        return bool(state.deck) or any(state.discard)

    def _pick_options(self, state: KarakumState, gold: bool) -> tuple[Option, ...]:
        up = state.face_up
        key = (gold, bool(state.deck) or any(state.discard), *(n > 0 for n in up))
        options = _PICKS.get(key)
        if options is None:
            takes = [_TAKE[g] for g in TYPES if up[g] and (gold or g != GOLD)]
            options = _PICKS[key] = (*takes, _DRAW) if key[1] else tuple(takes)
        return options

    def _affordable(self, state: KarakumState, seat: int) -> list[Camel]:
        hand, taxed = state.hands[seat], self.taxed(state)
        return [c for c in state.market if units(hand, c.colour) >= camel_cost(c, taxed)]

    def _turn_options(self, state: KarakumState, seat: int) -> tuple[Option, ...]:
        hand, taxed = state.hands[seat], self.taxed(state)
        base = hand[GOLD] + hand[1] // 2 + hand[2] // 2 + hand[3] // 2 + hand[4] // 2 + hand[5] // 2
        buys = [
            _buy_option(c, c.number + (c.colour == taxed))
            for c in state.market
            if base + hand[c.colour] - hand[c.colour] // 2 >= c.number + (c.colour == taxed)
        ]
        return (*self._pick_options(state, gold=True), *buys)

    def _pay_options(self, state: KarakumState, seat: int) -> tuple[Option, ...]:
        camel = state.buying
        assert camel is not None
        return tuple(_pay_option(tuple(paid)) for paid in payments(state.hands[seat], camel.colour, state.cost))

    @staticmethod
    def _rejoin_candidates(state: KarakumState, seat: int) -> list[Camel]:
        caravan = state.caravans[seat]
        end = caravan[-1] if caravan else None
        return [c for c in state.outside[seat] if c.fits(end)]

    def _rejoin_options(self, state: KarakumState, seat: int) -> tuple[Option, ...]:
        return tuple(
            Option(
                f"rejoin:{c.token}",
                f"move the {c.token} into the caravan first",
                pb.Action(kind=pb.REJOIN, camel=_camel_pb(c)),
            )
            for c in self._rejoin_candidates(state, seat)
        )

    @staticmethod
    def taxed(state: KarakumState) -> int:
        """The taxed colour: the colour of the camel next to the camel deck (ruling 5)."""
        return state.market[0].colour if state.market else pb.GOOD_UNSPECIFIED

    # -- resolution -------------------------------------------------------------------------

    def resolve(self, state: KarakumState, chosen: Mapping[int, Option]) -> None:
        (seat, option), *_ = chosen.items()
        action = option.action
        assert isinstance(action, pb.Action)
        phase = state.phase
        if action.kind == pb.BUY:
            camel = Camel(action.camel.colour, action.camel.number)
            state.cost = camel_cost(camel, self.taxed(state))
            state.market.remove(camel)
            state.buying = camel
            state.phase = pb.PHASE_PAY
        elif action.kind == pb.PAY:
            self._pay(state, seat, list(action.cards))
        elif action.kind == pb.REJOIN:
            self._rejoin(state, seat, Camel(action.camel.colour, action.camel.number))
            self._settle_caravan(state, seat)
        else:
            free = phase == pb.PHASE_FREE
            good = (
                self._take(state, seat, action.good, free) if action.kind == pb.TAKE else self._draw(state, seat, free)
            )
            if phase == pb.PHASE_TURN and (action.kind == pb.DRAW or good != GOLD):
                state.phase = pb.PHASE_SECOND
                if not self._pick_options(state, gold=False):
                    self._end_turn(state)  # ruling 8: no second card to be had
            else:
                self._end_turn(state)

    def _pop_deck(self, state: KarakumState) -> int | None:
        """The top resource card; an empty deck is re-formed from the discard (ruling 8)."""
        if not state.deck:
            if not any(state.discard):
                return None
            pile = [g for g in TYPES for _ in range(state.discard[g])]
            made_of = list(state.discard)
            state.deck = state.chance.shuffled(pile, "reshuffle")[::-1]
            state.discard = [0] * SLOTS
            state.history.append((SHUFFLE, CHANCE_SEAT, 0, tuple(made_of)))
            state.log.public(
                CHANCE_SEAT,
                "reshuffle",
                f"the discard pile ({self._cards_text(made_of)}) is shuffled into a new deck",
                pb.ResourceEvent(cards=made_of),
            )
        return state.deck.pop()

    def _refill_face_up(self, state: KarakumState) -> None:
        card = self._pop_deck(state)
        if card is None:
            return
        state.face_up[card] += 1
        state.history.append((REVEAL, CHANCE_SEAT, card, ()))
        text = f"{GOOD_NAMES[card]} is revealed face up"
        state.log.public(CHANCE_SEAT, "reveal", text, _resource_event(-1, card, False))

    def _take(self, state: KarakumState, seat: int, good: int, free: bool) -> int:
        state.face_up[good] -= 1
        state.hands[seat][good] += 1
        state.known[seat][good] += 1
        state.history.append((TAKE, seat, good, ()))
        how = " (free)" if free else ""
        state.log.public(
            seat,
            "take",
            f"takes the face-up {GOOD_NAMES[good]}{how}",
            _resource_event(seat, good, free),
        )
        self._refill_face_up(state)
        return good

    def _draw(self, state: KarakumState, seat: int, free: bool) -> int:
        card = self._pop_deck(state)
        assert card is not None  # "draw" is offered only when a card can come
        state.hands[seat][card] += 1
        state.history.append((BLIND, seat, card, ()))
        how = " (free)" if free else ""
        state.log.public(seat, "draw", f"draws a resource card{how}", _resource_event(seat, 0, free))
        state.log.private(
            [seat],
            seat,
            "drawn",
            f"draws {GOOD_NAMES[card]}{how}",
            _resource_event(seat, card, free),
        )
        return card

    def _pay(self, state: KarakumState, seat: int, paid: list[int]) -> None:
        camel = state.buying
        assert camel is not None
        hand, known = state.hands[seat], state.known[seat]
        for t in TYPES:
            hand[t] -= paid[t]
            known[t] -= min(known[t], paid[t])
            state.discard[t] += paid[t]
        state.history.append((PAY, seat, 0, tuple(paid)))
        caravan = state.caravans[seat]
        joins = camel.fits(caravan[-1] if caravan else None)
        (caravan if joins else state.outside[seat]).append(camel)
        cost = state.cost
        where = "joins the caravan" if joins else "goes outside the caravan"
        state.log.public(
            seat,
            "buy",
            f"buys the {camel.token} for {self._cards_text(paid)}: it {where}",
            pb.CamelEvent(seat=seat, camel=_camel_pb(camel), paid=paid, cost=cost, caravan=joins),
        )
        # Ruling 8: a face-up card that could not be replaced (no deck, no discard) is replaced
        # as soon as a card can be had, and a payment is what refills the discard pile.
        while sum(state.face_up) < FACE_UP and (state.deck or any(state.discard)):
            self._refill_face_up(state)
        self._settle_caravan(state, seat)

    def _rejoin(self, state: KarakumState, seat: int, camel: Camel) -> None:
        state.outside[seat].remove(camel)
        state.caravans[seat].append(camel)
        state.log.public(
            seat,
            "rejoin",
            f"the {camel.token} now fits and joins the caravan",
            pb.CamelEvent(seat=seat, camel=_camel_pb(camel), caravan=True),
        )

    def _settle_caravan(self, state: KarakumState, seat: int) -> None:
        """Move fitting outside camels in (ruling 6), then finish the buy (ruling 7)."""
        while True:
            fits = self._rejoin_candidates(state, seat)
            if len(fits) > 1:
                state.phase = pb.PHASE_REJOIN
                return
            if not fits:
                break
            self._rejoin(state, seat, fits[0])
        camel = state.buying
        assert camel is not None
        if not state.camel_deck:
            self._finish(state)
            return
        self._reveal_camel(state)
        if camel.number == 1 and self._pick_options(state, gold=True):
            state.phase = pb.PHASE_FREE
            return
        self._end_turn(state)

    def _reveal_camel(self, state: KarakumState) -> None:
        camel = state.camel_deck.pop()
        state.market.insert(0, camel)
        state.log.public(
            CHANCE_SEAT,
            "market",
            f"the {camel.token} enters the market: {COLOUR_NAMES[camel.colour]} camels are taxed",
            pb.CamelEvent(camel=_camel_pb(camel)),
        )

    def _can_act(self, state: KarakumState, seat: int) -> bool:
        return any(state.face_up) or self._can_draw(state) or bool(self._affordable(state, seat))

    def _end_turn(self, state: KarakumState) -> None:
        state.buying = None
        state.turns += 1
        for k in range(1, state.players + 1):
            seat = (state.turn_seat + k) % state.players
            if self._can_act(state, seat):  # ruling 9: a stuck player is skipped
                state.turn_seat = seat
                state.phase = pb.PHASE_TURN
                return
        self._finish(state)

    def _finish(self, state: KarakumState) -> None:
        state.phase = pb.PHASE_OVER
        state.buying = None
        scores = [score_of(state.caravans[s], state.outside[s]) for s in range(state.players)]
        lengths = [len(c) for c in state.caravans]
        text = ", ".join(f"seat {s} {scores[s]} (caravan {lengths[s]})" for s in range(state.players))
        state.log.public(CHANCE_SEAT, "end", f"game over: {text}", pb.EndEvent(scores=scores, caravan_lengths=lengths))

    @staticmethod
    def _cards_text(counts: Sequence[int]) -> str:
        return ", ".join(f"{counts[t]} {GOOD_NAMES[t]}" for t in TYPES if counts[t]) or "nothing"

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: KarakumState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        taxed = self.taxed(state)
        seats = [
            pb.SeatView(
                hand_size=sum(state.hands[s]),
                known=state.known[s],
                caravan=_camels_pb(state.caravans[s]),
                outside=_camels_pb(state.outside[s]),
                score=score_of(state.caravans[s], state.outside[s]),
                caravan_length=len(state.caravans[s]),
            )
            for s in range(state.players)
        ]
        unseen = counts_of(state.deck) if spectator else self._unseen(state, viewer)
        in_play = set(state.market)
        for s in range(state.players):
            in_play.update(state.caravans[s])
            in_play.update(state.outside[s])
        if state.buying is not None:
            in_play.add(state.buying)
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=state.players,
            phase=state.phase,  # type: ignore[arg-type]
            turn_seat=state.turn_seat,
            hand=[] if spectator else state.hands[viewer],
            face_up=state.face_up,
            deck_size=len(state.deck),
            discard=state.discard,
            unseen=unseen,
            market=_camels_pb(state.market),
            market_cost=[camel_cost(c, taxed) for c in state.market],
            taxed=taxed,  # type: ignore[arg-type]
            camel_deck_size=len(state.camel_deck),
            camels_removed=len(state.removed),
            camels_unseen=_camels_pb(c for c in full_camels() if c not in in_play),
            seats=seats,
            picks=1 if state.phase == pb.PHASE_SECOND else 0,
            rejoin=_camels_pb(self._rejoin_candidates(state, state.turn_seat))
            if state.phase == pb.PHASE_REJOIN
            else [],
            turns=state.turns,
        )
        if state.buying is not None:
            obs.buying.CopyFrom(_camel_pb(state.buying))
            obs.buying_cost = state.cost
        if not spectator:
            cycles, blind = self._cycles(state, viewer)
            obs.cycles.extend(
                pb.DeckCycle(cards=cards, blind=[row[e] for row in blind]) for e, cards in enumerate(cycles)
            )
        if spectator:
            obs.deck.extend(state.deck[::-1])
            obs.camel_deck.extend(_camels_pb(state.camel_deck[::-1]))
            obs.removed.extend(_camels_pb(state.removed))
        return obs

    def score(self, state: KarakumState) -> Result:
        scores = [score_of(state.caravans[s], state.outside[s]) for s in range(state.players)]
        keys = [(scores[s], len(state.caravans[s])) for s in range(state.players)]
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        summary = (
            f"winner{'s' if len(winners) > 1 else ''}: seat {', '.join(map(str, winners))} "
            f"({best[0]} points, caravan of {best[1]})"
        )
        return Result.ranked(scores, keys, summary)

    # -- determinization --------------------------------------------------------------------

    def sample_world(self, state: KarakumState, seat: int, chance: Chance) -> KarakumState:
        """A new state consistent with what ``seat`` knows, the rest dealt again (ruling 12).

        Hidden from ``seat``: the other hands' blind-drawn cards, the resource deck's order and
        make-up, the camel deck's order and the removed camels. The history is replayed as the
        seat saw it, one deck cycle at a time: a cycle's cards are public (all 71, or the
        discard pile it was shuffled from) minus the cards revealed face up and the seat's own
        draws. Each other hand holds its known cards plus, per cycle, a number of blind cards;
        a payment spends known cards first and the rest from blind cards, which are then of the
        paid good: each is charged to a cycle that still has that good available (the one with
        the most of it). The remaining cards of each cycle are shuffled and dealt to the hands'
        blind cards of that cycle and, for the current cycle, to the deck.
        """
        world = self.copy_for(state, seat, chance)
        _deal_camels(world, [*state.camel_deck, *state.removed], len(state.camel_deck), chance)
        cycles, blind = self._cycles(state, seat)
        self._deal_resources(world, seat, cycles, blind, chance)
        _write_history(world, seat, cycles, blind)
        world.pending = tuple(self.decisions(world))
        return world

    def _cycles(self, state: KarakumState, seat: int) -> tuple[list[list[int]], list[list[int]]]:
        """:meth:`_compute_cycles`, remembered by everything it reads (every observation and
        every sampled world needs it, and working it out replays the whole history); copies,
        since callers deal from them."""
        key = (
            seat,
            state.players,
            tuple(state.history),
            tuple(state.hands[seat]),
            tuple(map(tuple, state.known)),
            tuple(state.face_up),
            tuple(state.discard),
            tuple(map(sum, state.hands)),
        )
        with _CYCLES_LOCK:  # bots may sample worlds on several threads
            found = _CYCLES.get(key)
        if found is None:
            found = self._compute_cycles(state, seat)
            with _CYCLES_LOCK:
                _CYCLES[key] = found
                if len(_CYCLES) > _CYCLES_KEPT:
                    del _CYCLES[next(iter(_CYCLES))]  # the oldest
        cycles, blind = found
        return [list(c) for c in cycles], [list(b) for b in blind]

    def _compute_cycles(self, state: KarakumState, seat: int) -> tuple[list[list[int]], list[list[int]]]:
        """Per deck cycle, what ``seat`` can place from the public history and its own draws
        (ruling 12): the cycle's cards it has not located (counts by Good) and, per seat, the
        blind cards that hand still holds from the cycle (0 for ``seat``). When the paid blind
        cards find no charging, or the history does not account for the hands (a position
        edited by hand), the cycles are pooled: every earlier cycle empty, the last one holding
        ``unseen`` and every hand's blind cards."""
        players = state.players
        cycles, blind, excess = _HistoryFold.of(state, seat).result()
        unseen = self._unseen(state, seat)
        hidden = [0 if s == seat else sum(state.hands[s]) - sum(state.known[s]) for s in range(players)]
        if (
            not _charge(excess, cycles, blind)
            or [sum(c[t] for c in cycles) for t in range(SLOTS)] != unseen
            or [0 if s == seat else sum(row) for s, row in enumerate(blind)] != hidden
            or any(n < 0 for c in cycles for n in c)
        ):
            # Fallback (rare): one pool for every cycle, the unlocated cards of all cycles.
            cycles = [[0] * SLOTS for _ in cycles[:-1]] + [unseen]
            blind = [[0] * (len(cycles) - 1) + [hidden[w]] for w in range(players)]
        return cycles, blind

    @staticmethod
    def _unseen(state: KarakumState, seat: int) -> list[int]:
        """The resource cards ``seat`` has not located, counts by Good."""
        unseen = [0, *(int(_DATA["resources"]["per_good"]) for _ in GOODS), int(_DATA["resources"]["gold"])]
        for t in TYPES:
            unseen[t] -= state.hands[seat][t] + state.face_up[t] + state.discard[t]
            unseen[t] -= sum(state.known[s][t] for s in range(state.players) if s != seat)
        return unseen

    def _deal_resources(
        self, world: KarakumState, seat: int, cycles: list[list[int]], blind: list[list[int]], chance: Chance
    ) -> None:
        """Deal the other hands' blind cards and the deck cycle by cycle (the current cycle's
        rest is the deck); a seat about to pay is then made able to (ruling 12)."""
        last = len(cycles) - 1
        for s in range(world.players):
            if s != seat:
                world.hands[s] = list(world.known[s])
        for e, make_up in enumerate(cycles):
            cards = _deal_blind(world, seat, make_up, [row[e] for row in blind], chance)
            if e == last:
                world.deck = cards
            else:
                assert not cards, "a past deck cycle is fully drawn"
        buyer, camel = world.turn_seat, world.buying
        if camel is not None and world.phase == pb.PHASE_PAY and buyer != seat:
            # The buyer chose a camel it could afford: trade blind cards that do not pay for it
            # for deck cards that do until it can (deducible: the buy was offered).
            hand_, known_ = world.hands[buyer], world.known[buyer]
            while units(hand_, camel.colour) < world.cost:
                useful = [i for i, t in enumerate(world.deck) if t in (camel.colour, GOLD)]
                spare = [t for t in TYPES if t not in (camel.colour, GOLD) and hand_[t] > known_[t]]
                if not useful or not spare:
                    break
                i = useful[chance.below(len(useful), "world")]
                t = spare[chance.below(len(spare), "world")]
                hand_[t] -= 1
                hand_[world.deck[i]] += 1
                world.deck[i] = t
            if units(hand_, camel.colour) < world.cost:
                # Still short (about 1% of the worlds sampled while a seat pays: paying cards
                # were charged to other hands, or units come in pairs): pool every hidden card
                # and deal as world_from_observation does, the buyer's blind cards first.
                self._deal_buyer_first(world, seat, camel, chance)

    def _deal_buyer_first(self, world: KarakumState, seat: int, camel: Camel, chance: Chance) -> None:
        """Re-deal the other hands' blind cards and the deck as one pool, the buyer's first so
        it can pay (the deck cycle of each card is then not kept: ruling 12's fallback)."""
        pool = [0] * SLOTS
        blind = [0] * world.players
        for s in range(world.players):
            if s != seat:
                for t in TYPES:
                    pool[t] += world.hands[s][t] - world.known[s][t]
                blind[s] = sum(world.hands[s]) - sum(world.known[s])
                world.hands[s] = list(world.known[s])
        for t in world.deck:
            pool[t] += 1
        buyer = world.turn_seat
        _deal_affording(world.hands[buyer], pool, blind[buyer], camel.colour, world.cost, chance)
        blind[buyer] = 0
        world.deck = _deal_blind(world, seat, pool, blind, chance)

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> KarakumState:
        """The public state and the seat's hand are kept; the camel deck and the removed camels
        are dealt from ``camels_unseen``, the other hands' blind cards and the deck cycle by
        cycle from ``cycles`` (each hand's blind cards of a cycle from that cycle's unlocated
        cards, the current cycle's rest is the deck), a buyer made able to pay: as informed as
        ``sample_world``. The world's history is made to give the same cycles again."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        players = config.players
        world = KarakumState(
            config=config,
            chance=chance.fork(),
            discard=list(obs.discard),
            face_up=list(obs.face_up),
            known=[list(v.known) for v in obs.seats],
            market=[Camel(c.colour, c.number) for c in obs.market],
            caravans=[[Camel(c.colour, c.number) for c in v.caravan] for v in obs.seats],
            outside=[[Camel(c.colour, c.number) for c in v.outside] for v in obs.seats],
            phase=obs.phase,
            turn_seat=obs.turn_seat,
            turns=obs.turns,
        )
        if obs.HasField("buying"):
            world.buying = Camel(obs.buying.colour, obs.buying.number)
            world.cost = obs.buying_cost
        unseen = [Camel(c.colour, c.number) for c in obs.camels_unseen]
        _deal_camels(world, unseen, obs.camel_deck_size, chance)
        world.hands = [list(obs.hand) if s == seat else list(world.known[s]) for s in range(players)]
        cycles = [list(c.cards) for c in obs.cycles]
        blind = [[c.blind[s] for c in obs.cycles] for s in range(players)]
        self._deal_resources(world, seat, cycles, blind, chance)
        _write_history(world, seat, cycles, blind)
        self.refresh(world)
        return world


def _write_history(world: KarakumState, seat: int, cycles: list[list[int]], blind: list[list[int]]) -> None:
    """A history of ``world`` giving ``seat`` these deck cycles again (its observation and a
    later sample_world of the world) and recording nothing the seat has not seen: cycle 0 is the
    71 cards, everything located is revealed in it (the known cards taken face up, the seat's
    blind cards drawn by it); each later cycle is a reshuffle of exactly its unlocated cards;
    every blind card dealt to another hand is drawn in its cycle, none paid. (Copying the real
    history would keep the other hands' real blind draws in the world.)"""
    players = world.players
    full = counts_of(full_resources())
    history: list[tuple[int, int, int, tuple[int, ...]]] = []
    hidden = [[t for t in TYPES for _ in range(world.hands[s][t] - world.known[s][t])] for s in range(players)]
    for e, make_up in enumerate(cycles):
        if e:
            history.append((SHUFFLE, CHANCE_SEAT, 0, tuple(make_up)))
        else:
            mine = hidden[seat]
            history += [(BLIND, seat, t, ()) for t in mine]
            for s in range(players):
                for t in TYPES:
                    history += [(REVEAL, CHANCE_SEAT, t, ()), (TAKE, s, t, ())] * world.known[s][t]
            for t in TYPES:
                located = mine.count(t) + sum(world.known[s][t] for s in range(players))
                history += [(REVEAL, CHANCE_SEAT, t, ())] * (full[t] - make_up[t] - located)
        for s in range(players):
            if s != seat:
                history += [(BLIND, s, hidden[s].pop(), ()) for _ in range(blind[s][e])]
    world.history = history


def _deal_camels(world: KarakumState, unseen: list[Camel], deck_size: int, chance: Chance) -> None:
    """The camel deck and the removed camels: one unknown pool, shuffled and split."""
    pool = chance.shuffled(unseen, "world")
    world.camel_deck = pool[:deck_size]
    world.removed = pool[deck_size:]


def _deal_blind(
    world: KarakumState, seat: int, make_up: Sequence[int], blind: Sequence[int], chance: Chance
) -> list[int]:
    """Shuffle the cards of ``make_up`` (counts by Good), deal ``blind[s]`` of them into each
    other hand; the rest, in shuffled order, is returned (the deck, or nothing)."""
    cards = chance.shuffled([t for t in TYPES for _ in range(make_up[t])], "world")
    for s, n in enumerate(blind):
        if s != seat:
            for _ in range(n):
                world.hands[s][cards.pop()] += 1
    return cards


def _reach(hand: Sequence[int], pool: Sequence[int], draws: int, colour: int) -> int:
    """The most payment units for ``colour`` that ``hand`` can hold after ``draws`` more cards
    from ``pool`` (counts by Good). A unit costs one card (the colour, Gold, or the card that
    completes a pair) or two (a new pair), so the one-card units go first."""
    single = pool[colour] + pool[GOLD]
    pairs = 0
    for g in GOODS:
        if g != colour:
            left = pool[g]
            if hand[g] % 2 and left:
                single += 1
                left -= 1
            pairs += left // 2
    one = min(draws, single)
    return units(hand, colour) + one + min((draws - one) // 2, pairs)


def _deal_affording(hand: list[int], pool: list[int], draws: int, colour: int, cost: int, chance: Chance) -> None:
    """Deal ``draws`` cards from ``pool`` into ``hand`` (both counts by Good, changed in place),
    one at a time in proportion to the pool, never a card after which the hand could no
    longer reach ``cost`` payment units for ``colour`` (constructive, no rejection)."""
    for left in range(draws - 1, -1, -1):
        fits = []
        for t in TYPES:
            if pool[t]:
                hand[t] += 1
                pool[t] -= 1
                if _reach(hand, pool, left, colour) >= cost:
                    fits.append(t)
                hand[t] -= 1
                pool[t] += 1
        if not fits:  # cannot happen when the observation is real: the seat could pay
            fits = [t for t in TYPES if pool[t]]
        t = fits[chance.weighted([pool[t] for t in fits], "world")]
        hand[t] += 1
        pool[t] -= 1


_CYCLES: dict[tuple[object, ...], tuple[list[list[int]], list[list[int]]]] = {}
_CYCLES_KEPT = 64  # positions remembered (a match's seats, a search's root)
_CYCLES_LOCK = threading.Lock()


class _HistoryFold:
    """The history read by one seat so far (:meth:`Karakum._compute_cycles`): per deck cycle
    the cards it has not located, per seat its blind cards per cycle and the known cards in
    hand, and the blind cards payments showed. A match's history only grows, so the fold of a
    seat's last reading is carried on with the records since (a few per decision) instead of
    replaying the whole history at every observation; it is used only while the history still
    begins with every record it folded (checked record by record: an edited position is folded
    anew)."""

    __slots__ = ("blind", "cycles", "excess", "folded", "known")

    def __init__(self, players: int) -> None:
        self.cycles: list[list[int]] = [counts_of(full_resources())]
        self.blind: list[list[int]] = [[0] for _ in range(players)]  # per seat: blind cards per cycle
        self.known = [[0] * SLOTS for _ in range(players)]
        self.excess: list[tuple[int, int, list[int]]] = []  # (who, good, blind slots per cycle then)
        self.folded: list[tuple[int, int, int, tuple[int, ...]]] = []  # the records read, in order

    @classmethod
    def of(cls, state: KarakumState, seat: int) -> _HistoryFold:
        history = state.history
        key = (seat, state.players, id(history))
        with _CYCLES_LOCK:
            kept = _FOLDS.get(key)
        if kept is not None and kept[0] is history and history[: len(kept[1].folded)] == kept[1].folded:
            if len(history) == len(kept[1].folded):
                return kept[1]
            fold = kept[1].copy()  # a shorter history slices short and never equals what was read
        else:
            fold = cls(state.players)
        fold.read(history[len(fold.folded) :], seat)
        with _CYCLES_LOCK:
            _FOLDS[key] = (history, fold)  # the history kept alive: its id is not reused meanwhile
            if len(_FOLDS) > _CYCLES_KEPT:
                del _FOLDS[next(iter(_FOLDS))]  # the oldest
        return fold

    def copy(self) -> _HistoryFold:
        other = _HistoryFold.__new__(_HistoryFold)
        other.cycles = [list(c) for c in self.cycles]
        other.blind = [list(b) for b in self.blind]
        other.known = [list(k) for k in self.known]
        other.excess = list(self.excess)  # its entries are never changed
        other.folded = list(self.folded)
        return other

    def read(self, records: Sequence[tuple[int, int, int, tuple[int, ...]]], seat: int) -> None:
        cycles, blind, known, excess = self.cycles, self.blind, self.known, self.excess
        for record, who, card, extra in records:
            current = len(cycles) - 1
            if record == SHUFFLE:
                cycles.append(list(extra))
                for row in blind:
                    row.append(0)
            elif record == REVEAL or (record == BLIND and who == seat):
                cycles[current][card] -= 1
            elif record == BLIND:
                blind[who][current] += 1
            elif record == TAKE:
                known[who][card] += 1
            elif record == PAY and who != seat:
                for t in TYPES:
                    from_known = min(known[who][t], extra[t])
                    known[who][t] -= from_known
                    excess += [(who, t, list(blind[who]))] * (extra[t] - from_known)
        self.folded += records

    def result(self) -> tuple[list[list[int]], list[list[int]], list[tuple[int, int, list[int]]]]:
        """Copies of the cycles, the blind cards and the shown blind cards (the charging then
        reduces the first two in place)."""
        return [list(c) for c in self.cycles], [list(b) for b in self.blind], list(self.excess)


_FOLDS: dict[tuple[int, int, int], tuple[list[tuple[int, int, int, tuple[int, ...]]], _HistoryFold]] = {}


def _charge(excess: list[tuple[int, int, list[int]]], cycles: list[list[int]], blind: list[list[int]]) -> bool:
    """Charge each blind card a payment showed (who, good, that hand's blind cards per deck
    cycle at the time) to a deck cycle (:func:`arena.games.charging.charge`, shared with Gasha):
    the hand must have drawn there before the payment (the charges nested in time) and the
    cycle must have the good (after everything
    revealed or drawn by the viewer). The real history is a solution; when the bounded search
    finds none, False and nothing is changed. On success ``cycles`` and ``blind`` are reduced
    in place."""
    where = charge(excess, cycles)
    if where is None:
        return False
    for (who, t, _), e in zip(excess, where, strict=True):
        blind[who][e] -= 1
        cycles[e][t] -= 1
    return True


GAME = Karakum()
