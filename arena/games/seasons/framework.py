"""Seasons card framework: component data, the match state, the effect context and the
registries a power card's effect is written with (see ``CARDS-API.md`` in this package).

A card is a data entry (``components.toml``: name, kind, prestige, cost, timing) plus small
functions registered by card number, grouped by timing:

* ``@on_summon(n)``: its arrival effect (once, when it enters play).
* ``@hook(kind, n)``: permanent effects while it is in play; ``kind`` is one of ``HOOK_KINDS``.
* ``@activation(n, can=...)``: its activation (once per owner's turn).
* ``@end_of_game(n)``: crystals it adds to its owner's final score.
* ``@cost_modifier(n)`` / ``@payments(n)`` / ``reserve_cap(n, cap)``: cost and reserve rules.
* ``@choice(name, options)``: a resolver for a choice an effect asks any seat (``ctx.ask``).

Effects run with a :class:`Ctx` (the owner ``seat``, the ``card`` number, the tableau ``index``)
that offers every game operation: crystals, energies, gauge, draws, sacrifices, summons and
choices (``ask``). A choice is data (an :class:`Ask` on ``state.asks``): the engine offers it to
its seat (also off-turn), then calls the registered resolver with the chosen option's Action.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from arena.engine import CHANCE_SEAT, Event, MatchState, Option
from arena.games.v1 import seasons_pb2 as pb

if TYPE_CHECKING:
    from arena.games.seasons.game import Seasons

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

# -- component data ---------------------------------------------------------------------------

AIR, WATER, FIRE, EARTH = pb.AIR, pb.WATER, pb.FIRE, pb.EARTH
ENERGIES: tuple[int, ...] = (AIR, WATER, FIRE, EARTH)
ENERGY_NAMES: dict[int, str] = {AIR: "air", WATER: "water", FIRE: "fire", EARTH: "earth"}
ENERGY_BY_NAME: dict[str, int] = {v: k for k, v in ENERGY_NAMES.items()}
_LETTERS = {"a": AIR, "w": WATER, "f": FIRE, "e": EARTH}
SEASON_NAMES = ("winter", "spring", "summer", "fall")  # index 0..3 = pb.Season - 1

SETUP = _DATA["setup"]
COPIES = int(SETUP["copies"])
DEAL = int(SETUP["deal"])
RESERVE = int(SETUP["reserve"])
GAUGE_MAX = int(SETUP["gauge_max"])
MONTHS = int(SETUP["months"])
YEARS = int(SETUP["years"])
BONUS_USES = int(SETUP["bonus_uses"])
BONUS_PENALTY: tuple[int, ...] = tuple(int(x) for x in SETUP["bonus_penalty"])
HAND_PENALTY = int(SETUP["hand_penalty"])
BASIC = int(SETUP["basic"])

TRANSMUTE: tuple[tuple[int, ...], ...] = tuple(
    (0, *(int(x) for x in _DATA["transmutation"][name])) for name in SEASON_NAMES
)
"""``TRANSMUTE[season_index][energy]``: crystals per energy transmuted (DATA 1.1)."""

APPRENTICE_DECKS: tuple[tuple[int, ...], ...] = tuple(tuple(d) for d in _DATA["apprentice"]["decks"])


class Face(NamedTuple):
    """One face of a season die."""

    season: int  # 0..3
    die: int  # 1..5
    face: int  # 1..6
    energies: tuple[int, ...]
    crystals: int
    star: bool
    card: bool
    transmute: bool
    pips: int


def _face(season: int, die: int, face: int, text: str) -> Face:
    energies: list[int] = []
    crystals = pips = 0
    star = card = transmute = False
    for token in text.split():
        if token in _LETTERS:
            energies.append(_LETTERS[token])
        elif token[0] == "c":
            crystals = int(token[1:])
        elif token[0] == "p":
            pips = int(token[1:])
        elif token == "*":
            star = True
        elif token == "d":
            card = True
        elif token == "t":
            transmute = True
        else:
            raise ValueError(f"die face {text!r}")
    return Face(season, die, face, tuple(energies), crystals, star, card, transmute, pips)


DICE: tuple[tuple[tuple[Face, ...], ...], ...] = tuple(
    tuple(
        tuple(_face(s, d + 1, f + 1, text) for f, text in enumerate(faces))
        for d, faces in enumerate(_DATA["dice"][name])
    )
    for s, name in enumerate(SEASON_NAMES)
)
"""``DICE[season][die - 1][face - 1]`` (DATA 1.4)."""


@dataclass(frozen=True)
class CardDef:
    number: int
    name: str
    familiar: bool
    prestige: int
    energies: tuple[tuple[int, ...], ...]  # by player count - 2: counts indexed by energy
    crystals: tuple[int, ...]  # by player count - 2
    special_cost: bool
    timing: str

    @property
    def item(self) -> bool:
        return not self.familiar

    def cost(self, players: int) -> tuple[tuple[int, ...], int]:
        return self.energies[players - 2], self.crystals[players - 2]


def _scaled(value: Any) -> tuple[int, int, int]:
    if isinstance(value, list):
        return (int(value[0]), int(value[1]), int(value[2]))
    return (int(value), int(value), int(value))


def _card(entry: dict[str, Any]) -> CardDef:
    cost = entry["cost"]
    energies = []
    for p in range(3):
        counts = [0] * 5
        for name, value in cost.items():
            if name != "crystals":
                counts[ENERGY_BY_NAME[name]] = _scaled(value)[p]
        energies.append(tuple(counts))
    return CardDef(
        number=int(entry["n"]),
        name=str(entry["name"]),
        familiar=entry["kind"] == "familiar",
        prestige=int(entry["prestige"]),
        energies=tuple(energies),
        crystals=_scaled(cost.get("crystals", 0)),
        special_cost=bool(entry.get("cost_special", False)),
        timing=str(entry["timing"]),
    )


CARDS: dict[int, CardDef] = {int(e["n"]): _card(e) for e in _DATA["cards"]}


def card_name(number: int) -> str:
    return f"{CARDS[number].name} (#{number})"


# -- state ------------------------------------------------------------------------------------


@dataclass
class Slot:
    """A power card in play."""

    card: int
    used: bool = False  # activated this turn
    energies: list[int] = field(default_factory=lambda: [0] * 5)  # stored on the card (#4)
    tokens: int = 0  # a counter for cards that keep one


class Ask(NamedTuple):
    """A choice an effect asks a seat: offered as decision ``kind`` with the options of the
    registered choice ``handler``; ``data`` is the handler's own (immutable) memory."""

    seat: int
    kind: str  # decision kind: "energy", "card", "seat", "move", "reroll", "keep"
    handler: str  # registered @choice name
    card: int = 0  # the card whose effect asks (0: a rule of the game)
    owner: int = -1  # whose card or turn caused it
    reason: str = ""  # shown in Observation.prompt.reason
    data: tuple[Any, ...] = ()
    left: int = 0  # more answers of the same prompt that follow


@dataclass
class SeasonsState(MatchState):
    mode: str = "magician"
    phase: int = pb.PHASE_DRAFT
    stage: str = "draft"  # where the flow continues once no Ask is open
    year: int = 1
    month: int = 1
    round: int = 0
    first: int = 0
    turn_seat: int = 0
    dice_set: list[list[int]] = field(default_factory=list)  # per season: die numbers in play
    rolled: list[Face] = field(default_factory=list)  # dice on the table
    pick_order: list[int] = field(default_factory=list)  # seats still to pick a die
    turn_order: list[int] = field(default_factory=list)  # seats still to play this round
    dice: list[Face | None] = field(default_factory=list)  # each seat's die this round
    # cards
    draw_pile: list[int] = field(default_factory=list)  # the top card is the LAST
    discard: list[int] = field(default_factory=list)
    # per discard pile card: the only seat that saw it go there (a drawn card discarded unseen,
    # ruling 23), PUBLIC if every seat did, UNSEEN if only a seat other than a world's viewer
    discard_seen: list[int] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)
    libraries: list[list[list[int]]] = field(default_factory=list)  # [seat][0: year II, 1: year III]
    limbo: list[list[int]] = field(default_factory=list)  # drawn cards awaiting a choice, per seat
    packets: list[list[int]] = field(default_factory=list)  # draft: the packet each seat holds
    drafted: list[list[int]] = field(default_factory=list)
    passed: list[list[int]] = field(default_factory=list)  # draft: what each seat last passed
    # draft and library phase: per seat, each packet it picked from (sorted, as it reached the
    # seat) and its pick, in order (the observation's sightings; what worlds know of the draft)
    sightings: list[list[tuple[tuple[int, ...], int]]] = field(default_factory=list)
    # what seats have seen of the cards (the observation's SeatView.played / received, orb_top)
    played: list[list[int]] = field(default_factory=list)  # per seat: summoned (not from a draw) or discarded
    received: list[list[list[int]]] = field(default_factory=list)  # [viewer][seat]: known put into its hand
    orb_top: list[int] = field(default_factory=list)  # per seat: the card it put back with #34 (0: none)
    lib_step: int = 0
    # boards
    crystals: list[int] = field(default_factory=list)
    reserve: list[list[int]] = field(default_factory=list)  # by energy, index 0 unused
    gauge: list[int] = field(default_factory=list)
    tableau: list[list[Slot]] = field(default_factory=list)
    bonus_used: list[int] = field(default_factory=list)
    # the turn
    may_transmute: bool = False
    transmute_bonus: int = 0
    may_draw: bool = False
    # effects
    asks: list[Ask] = field(default_factory=list)
    fresh: list[Ask] = field(default_factory=list)  # asked by the effect now running
    year_to: int = 1  # the year the token reached at the end of a round
    summons: int = 0
    activations: int = 0


# -- registries -------------------------------------------------------------------------------

Effect = Callable[["Ctx"], None]
HOOK_KINDS = (
    "summon_any",  # fn(ctx, summoner, card): after any seat summoned `card` (not itself)
    "before_summon",  # fn(ctx, summoner, card): before any seat pays for a summon
    "season_change",  # fn(ctx): the season changed (rounds, Temporal Boots)
    "round_end",  # fn(ctx): end of each round, before the season token moves
    "transmute",  # fn(ctx, energy, crystals): the owner transmuted one energy
    "activate_any",  # fn(ctx, activator, card): any seat activated `card` (not itself)
    "turn_start",  # fn(ctx): the owner's turn begins, before its die is used
    "leave",  # fn(ctx, how): this card leaves play ("sacrifice", "return", "discard")
)

ON_SUMMON: dict[int, Effect] = {}
HOOKS: dict[str, dict[int, Callable[..., None]]] = {kind: {} for kind in HOOK_KINDS}
ACTIVATIONS: dict[int, tuple[Callable[[Ctx], bool], Effect]] = {}
END_OF_GAME: dict[int, Callable[[SeasonsState, int], int]] = {}
COST_MODIFIERS: dict[int, Callable[[SeasonsState, int, int, list[Payment]], list[Payment]]] = {}
PAYMENTS: dict[int, Callable[[SeasonsState, int], list[Payment]]] = {}
RESERVE_CAPS: dict[int, int] = {}
SUMMON_TAX: dict[int, int] = {}  # crystals an OPPONENT of the owner must add to a paid summon (#33)
IMPLEMENTED: set[int] = set()


class Choice(NamedTuple):
    options: Callable[[SeasonsState, Ask], Sequence[Option]]
    resolve: Callable[[Ctx, Ask, Any], None]


CHOICES: dict[str, Choice] = {}


def on_summon(number: int) -> Callable[[Effect], Effect]:
    def register(fn: Effect) -> Effect:
        ON_SUMMON[number] = fn
        IMPLEMENTED.add(number)
        return fn

    return register


def hook(kind: str, number: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    if kind not in HOOKS:
        raise ValueError(f"unknown hook kind {kind!r} (one of {HOOK_KINDS})")

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        HOOKS[kind][number] = fn
        IMPLEMENTED.add(number)
        return fn

    return register


def activation(number: int, can: Callable[[Ctx], bool] = lambda ctx: True) -> Callable[[Effect], Effect]:
    def register(fn: Effect) -> Effect:
        ACTIVATIONS[number] = (can, fn)
        IMPLEMENTED.add(number)
        return fn

    return register


def end_of_game(number: int) -> Callable[[Callable[[SeasonsState, int], int]], Callable[[SeasonsState, int], int]]:
    def register(fn: Callable[[SeasonsState, int], int]) -> Callable[[SeasonsState, int], int]:
        END_OF_GAME[number] = fn
        IMPLEMENTED.add(number)
        return fn

    return register


def cost_modifier(number: int) -> Callable[[Any], Any]:
    def register(fn: Any) -> Any:
        COST_MODIFIERS[number] = fn
        IMPLEMENTED.add(number)
        return fn

    return register


def payments(number: int) -> Callable[[Any], Any]:
    """A special cost: ``fn(state, seat) -> list[Payment]`` replaces the printed one."""

    def register(fn: Any) -> Any:
        PAYMENTS[number] = fn
        IMPLEMENTED.add(number)
        return fn

    return register


def reserve_cap(number: int, cap: int) -> None:
    RESERVE_CAPS[number] = cap
    IMPLEMENTED.add(number)


def summon_tax(number: int, crystals: int) -> None:
    """While card ``number`` is in play, each paid summon of its owner's opponents needs
    ``crystals`` more crystals (given by its ``before_summon`` hook, e.g. Arcano Leech #33)."""
    SUMMON_TAX[number] = crystals
    IMPLEMENTED.add(number)


def no_effect(number: int) -> None:
    """A card without an effect (only prestige), e.g. Runic Cube of Eolis #22."""
    IMPLEMENTED.add(number)


def choice(name: str, options: Callable[[SeasonsState, Ask], Sequence[Option]]) -> Callable[[Any], Any]:
    def register(fn: Callable[[Ctx, Ask, Any], None]) -> Callable[[Ctx, Ask, Any], None]:
        if name in CHOICES:
            raise ValueError(f"choice {name!r} registered twice")
        CHOICES[name] = Choice(options, fn)
        return fn

    return register


# -- payments ---------------------------------------------------------------------------------


class Payment(NamedTuple):
    energies: tuple[int, ...]  # by energy, index 0 unused
    crystals: int
    omitted: tuple[int, ...] = ()  # energies a cost reduction removed (for the option id)


def printed_payment(state: SeasonsState, number: int) -> list[Payment]:
    energies, crystals = CARDS[number].cost(state.players)
    return [Payment(energies, crystals)]


# -- options (shared, cached) ----------------------------------------------------------------

_OPTIONS: dict[tuple[Any, ...], Option] = {}


def option(oid: str, label: str, **action: Any) -> Option:
    """A cached Option whose Action has the given fields (kind required)."""
    key = (oid, label, tuple(sorted(action.items())))
    found = _OPTIONS.get(key)
    if found is None:
        found = _OPTIONS[key] = Option(oid, label, pb.Action(**action))
    return found


def energy_option(energy: int, verb: str = "choose") -> Option:
    return option(f"energy:{ENERGY_NAMES[energy]}", f"{verb} {ENERGY_NAMES[energy]}", kind=pb.ENERGY, energy=energy)


def card_option(number: int, verb: str = "choose") -> Option:
    return option(f"card:{number}", f"{verb} {card_name(number)}", kind=pb.CARD, card=number)


def tableau_option(index: int, number: int, verb: str = "choose") -> Option:
    return option(
        f"tableau:{index}", f"{verb} {card_name(number)} (in play)", kind=pb.TABLEAU, index=index, card=number
    )


def seat_option(seat: int, verb: str = "choose") -> Option:
    return option(f"seat:{seat}", f"{verb} seat {seat}", kind=pb.SEAT, seat=seat)


STOP = option("stop", "stop", kind=pb.STOP)
NONE = option("none", "no card", kind=pb.NONE)


# -- the effect context -------------------------------------------------------------------------


def total(counts: Sequence[int]) -> int:
    return counts[1] + counts[2] + counts[3] + counts[4]


def season_of(month: int) -> int:
    """Season index 0..3 (winter, spring, summer, fall) of a month 1..12."""
    return (month - 1) // 3


def cap_of(state: SeasonsState, seat: int) -> int:
    cap = RESERVE
    for slot in state.tableau[seat]:
        cap = max(cap, RESERVE_CAPS.get(slot.card, cap))
    return cap


PUBLIC = -1  # discard_seen: every seat saw the card (it was in play, or discarded from a hand)
UNSEEN = -2  # discard_seen: a card a world's viewer did not see (another seat discarded it)


def to_discard(state: SeasonsState, cards: Sequence[int], seen_by: int = PUBLIC) -> None:
    """Put cards on the discard pile, seen by every seat or by ``seen_by`` only (ruling 23)."""
    state.discard.extend(cards)
    state.discard_seen.extend([seen_by] * len(cards))


def known_discard(state: SeasonsState, viewer: int) -> list[int]:
    """The discard pile cards the viewer knows (all of them for the spectator), oldest first."""
    if viewer < 0:
        return list(state.discard)
    return [c for c, k in zip(state.discard, state.discard_seen, strict=True) if k in (PUBLIC, viewer)]


def available(state: SeasonsState, seat: int) -> list[int]:
    """Energies the seat may spend: its reserve plus energies stored on its cards (#4)."""
    out = list(state.reserve[seat])
    for slot in state.tableau[seat]:
        if slot.card == 4:
            for e in ENERGIES:
                out[e] += slot.energies[e]
    return out


class Ctx:
    """What an effect works with: the owner ``seat``, the ``card`` whose effect runs, its
    tableau ``index`` (-1 when it is not in play) and every game operation."""

    __slots__ = ("card", "game", "index", "payment", "seat", "state")

    def __init__(
        self, game: Seasons, state: SeasonsState, seat: int, card: int = 0, index: int = -1, payment: Any = None
    ) -> None:
        self.game = game
        self.state = state
        self.seat = seat
        self.card = card
        self.index = index
        self.payment = payment

    def at(self, seat: int) -> Ctx:
        """The same effect, operating on another seat."""
        return Ctx(self.game, self.state, seat, self.card, -1, self.payment)

    # -- who ---------------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.state.players

    def opponents(self) -> list[int]:
        """The other seats, clockwise from the owner's left."""
        return [(self.seat + k) % self.players for k in range(1, self.players)]

    @property
    def season(self) -> int:
        return season_of(self.state.month)

    # -- events ------------------------------------------------------------------------------

    def log(
        self, kind: str, text: str, to: Sequence[int] | None = None, seat: int | None = None, **detail: Any
    ) -> None:
        who = self.seat if seat is None else seat
        message = pb.EventDetail(seat=max(who, 0), source=self.card, **detail)
        if to is None:
            self.state.log.events.append(Event(who, kind, text, message))
        else:
            self.state.log.events.append(Event(who, kind, text, message, frozenset(to)))

    def _why(self) -> str:
        return f" ({card_name(self.card)})" if self.card else ""

    # -- crystals ----------------------------------------------------------------------------

    def gain_crystals(self, n: int) -> None:
        if n <= 0:
            return
        self.state.crystals[self.seat] += n
        self.log("gain", f"gains {n} crystals{self._why()}", crystals=n)

    def lose_crystals(self, n: int) -> int:
        """Lose up to ``n`` crystals (never below 0); returns how many were lost."""
        lost = min(n, self.state.crystals[self.seat])
        if lost:
            self.state.crystals[self.seat] -= lost
            self.log("lose", f"loses {lost} crystals{self._why()}", crystals=-lost)
        return lost

    def give_crystals(self, to: int, n: int) -> int:
        """Move up to ``n`` of the owner's crystals to seat ``to``; returns how many moved."""
        moved = min(n, self.state.crystals[self.seat])
        if moved:
            self.state.crystals[self.seat] -= moved
            self.state.crystals[to] += moved
            self.log("give", f"gives {moved} crystals to seat {to}{self._why()}", crystals=moved, target=to)
        return moved

    # -- energies ----------------------------------------------------------------------------

    def gain_energy(self, energy: int, n: int = 1) -> None:
        """Energies into the reserve (any excess over the cap is discarded, by the owner's
        choice, once the open choices are answered)."""
        if n <= 0:
            return
        self.state.reserve[self.seat][energy] += n
        counts = [0] * 5
        counts[energy] = n
        self.log("gain", f"gains {n} {ENERGY_NAMES[energy]}{self._why()}", energies=counts)

    def gain_energies(self, counts: Sequence[int]) -> None:
        if not total(counts):
            return
        for e in ENERGIES:
            self.state.reserve[self.seat][e] += counts[e]
        text = ", ".join(f"{counts[e]} {ENERGY_NAMES[e]}" for e in ENERGIES if counts[e])
        self.log("gain", f"gains {text}{self._why()}", energies=list(counts))

    def gain_energy_choice(self, n: int, reason: str = "gain") -> None:
        """Ask the owner ``n`` times for an energy of their choice to gain."""
        if n > 0:
            self.ask("energy", "gain_energy", reason=reason, data=(n,), left=n - 1)

    def spend(self, counts: Sequence[int], why: str = "spends") -> None:
        """Spend energies: the reserve first, then energies stored on cards (#4)."""
        state, seat = self.state, self.seat
        for e in ENERGIES:
            need = counts[e]
            take = min(need, state.reserve[seat][e])
            state.reserve[seat][e] -= take
            need -= take
            for slot in state.tableau[seat]:
                if need and slot.card == 4:
                    take = min(need, slot.energies[e])
                    slot.energies[e] -= take
                    need -= take
            if need:
                raise AssertionError(f"seat {seat} cannot spend {list(counts)}")
        if total(counts):
            text = ", ".join(f"{counts[e]} {ENERGY_NAMES[e]}" for e in ENERGIES if counts[e])
            self.log("lose", f"{why} {text}{self._why()}", energies=list(counts))

    def spend_energy(self, energy: int, n: int = 1) -> None:
        counts = [0] * 5
        counts[energy] = n
        self.spend(counts)

    def discard_reserve(self) -> None:
        """Discard every energy of the reserve."""
        counts = list(self.state.reserve[self.seat])
        if total(counts):
            self.state.reserve[self.seat] = [0] * 5
            text = ", ".join(f"{counts[e]} {ENERGY_NAMES[e]}" for e in ENERGIES if counts[e])
            self.log("lose", f"discards {text}{self._why()}", energies=counts)

    def available(self) -> list[int]:
        return available(self.state, self.seat)

    # -- gauge -------------------------------------------------------------------------------

    def gauge(self, n: int) -> None:
        """Move the summoning gauge by ``n`` (within 0..15)."""
        old = self.state.gauge[self.seat]
        new = max(0, min(GAUGE_MAX, old + n))
        if new != old:
            self.state.gauge[self.seat] = new
            self.log("gain", f"summoning gauge {old} -> {new}{self._why()}", amount=new - old)

    def room(self) -> bool:
        """Whether the owner may have one more card in play."""
        return len(self.state.tableau[self.seat]) < self.state.gauge[self.seat]

    # -- cards -------------------------------------------------------------------------------

    def draw(self, n: int) -> list[int]:
        """Draw up to ``n`` cards into the owner's limbo (seen by the owner only); returns them.
        An empty draw pile is remade from the shuffled discard pile; with none left, fewer."""
        return self.game.draw(self.state, self.seat, n, self.card)

    def to_hand(self, number: int, from_limbo: bool = True) -> None:
        if from_limbo:
            self.state.limbo[self.seat].remove(number)
        self.state.hands[self.seat].append(number)
        self.log("keep", f"takes {card_name(number)} into hand", to=[self.seat], card=number)
        self.log("keep", "takes a card into hand", to=[s for s in range(self.players) if s != self.seat])

    def discard_limbo(self) -> None:
        """Discard the owner's remaining drawn cards, face down: only the owner, who drew them,
        knows them (ruling 23)."""
        cards = self.state.limbo[self.seat]
        if cards:
            to_discard(self.state, cards, self.seat)
            names = ", ".join(card_name(c) for c in cards)
            self.log("discard", f"discards {names} face down{self._why()}", to=[self.seat], cards=list(cards))
            others = [s for s in range(self.players) if s != self.seat]
            n = len(cards)
            self.log("discard", f"discards {n} card{'s' if n != 1 else ''} face down{self._why()}", to=others)
            self.state.limbo[self.seat] = []

    def remove(self, index: int, how: str, seat: int | None = None) -> int:
        """Take the card at ``index`` of a tableau out of play: "sacrifice" / "discard" (to the
        discard pile) or "return" (to the hand). Its "leave" hook runs. Returns the card."""
        owner = self.seat if seat is None else seat
        slot = self.state.tableau[owner].pop(index)
        leave = HOOKS["leave"].get(slot.card)
        if leave is not None:
            leave(Ctx(self.game, self.state, owner, slot.card, -1), how)
        if how == "return":
            self.state.hands[owner].append(slot.card)
            for known in self.state.received:  # public: every seat knows it is in that hand
                known[owner].append(slot.card)
            self.log("return", f"returns {card_name(slot.card)} to hand{self._why()}", seat=owner, card=slot.card)
        else:
            to_discard(self.state, [slot.card])
            kind = "sacrifice" if how == "sacrifice" else "discard"
            if kind == "discard":
                self.state.played[owner].append(slot.card)
            self.log(kind, f"{kind}s {card_name(slot.card)}{self._why()}", seat=owner, card=slot.card)
        if slot.card == self.card and owner == self.seat and index == self.index:
            self.index = -1
        elif owner == self.seat and 0 <= index < self.index:
            self.index -= 1
        return slot.card

    def sacrifice_self(self) -> None:
        """Sacrifice the card whose effect runs (a potion)."""
        if self.index >= 0:
            self.remove(self.index, "sacrifice")

    def summon_free(self, number: int, from_limbo: bool = False) -> None:
        """Put a card into play without paying (from the hand, or from the limbo): its arrival
        and the summon hooks run as for any summon."""
        zone = self.state.limbo[self.seat] if from_limbo else self.state.hands[self.seat]
        zone.remove(number)
        self.game.put_in_play(self.state, self.seat, number, None, self.card)

    def tableau(self, seat: int | None = None) -> list[Slot]:
        return self.state.tableau[self.seat if seat is None else seat]

    # -- choices -----------------------------------------------------------------------------

    def ask(
        self,
        kind: str,
        handler: str,
        seat: int | None = None,
        reason: str = "",
        data: tuple[Any, ...] = (),
        left: int = 0,
    ) -> None:
        """Ask a seat (the owner by default; any seat, also off-turn) a choice. It is queued
        after the choices this same effect asked before and before any asked earlier."""
        if handler not in CHOICES:
            raise ValueError(f"no @choice named {handler!r}")
        who = self.seat if seat is None else seat
        self.game.queue(self.state, Ask(who, kind, handler, self.card, self.seat, reason, data, left))


# -- choices every card may use -------------------------------------------------------------------


def _gain_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    return tuple(energy_option(e, "gain") for e in ENERGIES)


@choice("gain_energy", _gain_options)
def _gain_energy(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.gain_energy(action.energy)
    (n,) = ask.data
    if n > 1:
        ctx.ask("energy", "gain_energy", reason=ask.reason, data=(n - 1,), left=n - 2)


def _overflow_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    reserve = state.reserve[ask.seat]
    return tuple(energy_option(e, "discard") for e in ENERGIES if reserve[e])


@choice("overflow", _overflow_options)
def _overflow(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.state.reserve[ctx.seat][action.energy] -= 1
    counts = [0] * 5
    counts[action.energy] = 1
    ctx.log("discard", f"discards 1 {ENERGY_NAMES[action.energy]} (reserve full)", energies=counts)


def limbo_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    """One option per distinct card in the asked seat's limbo."""
    return tuple(card_option(c) for c in sorted(set(state.limbo[ask.seat])))


def hand_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    return tuple(card_option(c) for c in sorted(set(state.hands[ask.seat])))


def tableau_options(state: SeasonsState, ask: Ask, items_only: bool = False) -> Sequence[Option]:
    return tuple(
        tableau_option(i, s.card) for i, s in enumerate(state.tableau[ask.seat]) if not items_only or CARDS[s.card].item
    )


def opponent_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    return tuple(seat_option((ask.owner + k) % state.players) for k in range(1, state.players))


def _keep_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    return (KEEP, DISCARD) if state.limbo[ask.seat] else ()


KEEP = option("keep", "keep the card", kind=pb.KEEP)
DISCARD = option("discard", "discard the card", kind=pb.DISCARD)


@choice("keep_drawn", _keep_options)
def _keep_drawn(ctx: Ctx, ask: Ask, action: Any) -> None:
    """The die's card draw: keep the drawn card or discard it (DATA 1.2)."""
    if action.kind == pb.KEEP:
        ctx.to_hand(ctx.state.limbo[ctx.seat][-1])
    else:
        ctx.discard_limbo()


@choice("keep_one", limbo_options)
def _keep_one(ctx: Ctx, ask: Ask, action: Any) -> None:
    """Keep one of the drawn cards, discard the others (bonus draw, Amulet of Fire #2)."""
    ctx.to_hand(action.card)
    ctx.discard_limbo()


def _give_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    have = available(state, ask.seat)
    opts = [energy_option(e, "give") for e in ENERGIES if have[e]]
    if opts and ask.data[0] > 1:
        opts.append(STOP)
    return tuple(opts)


@choice("exchange_give", _give_options)
def _exchange_give(ctx: Ctx, ask: Ask, action: Any) -> None:
    """Bonus exchange (ruling 8): give an energy, then take one of your choice."""
    if action.kind == pb.STOP:
        return
    ctx.spend_energy(action.energy)
    ctx.ask("energy", "exchange_take", reason="exchange-take", data=ask.data)


@choice("exchange_take", _gain_options)
def _exchange_take(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.gain_energy(action.energy)
    (round_,) = ask.data
    if round_ == 1:
        ctx.ask("energy", "exchange_give", reason="exchange-give", data=(2,))


__all__ = [
    "ACTIVATIONS",
    "APPRENTICE_DECKS",
    "CARDS",
    "CHANCE_SEAT",
    "CHOICES",
    "COST_MODIFIERS",
    "END_OF_GAME",
    "HOOKS",
    "IMPLEMENTED",
    "ON_SUMMON",
    "PAYMENTS",
    "Ask",
    "Ctx",
    "Payment",
    "SeasonsState",
    "Slot",
]
