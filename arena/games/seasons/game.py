"""Seasons — draft power cards, then over three years pick season dice, gather energies, summon
and activate power cards and turn energies into crystals; 2–4 players
(``shared/rules/seasons.md``, completed by ``shared/rules/DATA.md`` §1).

Rules as implemented (rulebook line references in brackets; DATA = DATA.md §1):

* Components [:11–21, DATA 1.1–1.4]: 50 different power cards, 2 copies each (cards 1–30
  basic, 31–50 advanced); 20 season dice, 5 per season; energy tokens air, water, fire, earth
  [:103–110]. 2–4 players (DATA 1.1 corrects the page's "2 to 6").
* Setup [:35–52, DATA 1.2]: season token on month 1 (winter) of year 1; for each season
  players + 1 of its 5 dice are drawn at random and used all game [:41]; every seat's
  crystals, bonus track and summoning gauge start at 0 [:45–50]; 9 cards are dealt to each
  seat [:52]; the rest is the draw pile. A random seat is the first player [:67].
* Draft [:60–64] (variant ``mode``): each seat picks 1 card of its packet and passes the rest
  to its left (seat + 1), until each has 9 cards; all picks of a round are sealed and
  simultaneous. ``apprentice`` skips it: each seat gets one of the 4 prebuilt hands (DATA 1.2).
* Library [:65]: each seat splits its 9 cards into its hand (year I), Library II and Library
  III (3 each), sealed; Library II / III join the hand when year 2 / 3 begins [:88].
* Round [:69–90]: the first player rolls the current season's dice; from the first player
  clockwise each seat takes one [:71]; then each seat plays its whole turn in the same order
  [:73–82]; the leftover die's pips move the season token [:86]; passing month 12 starts a new
  year [:88]; the first player's left neighbour is the next first player [:90].
* Season dice [:92–101, DATA 1.4]: energies and crystals are received at once at the start of
  the turn [:101]; the star raises the summoning gauge by 1 [:97]; the card symbol allows one
  draw (keep the card or discard it, DATA 1.2) [:98]; the four-point circle allows transmuting
  this turn [:96].
* Energy reserve (DATA 1.2): at most 7 energies (10 with Bespelled Grimoire #18); excess is
  discarded at once, by the owner's choice [:94].
* Transmutation [:112–125, DATA 1.1]: crystals per energy by season: winter air 1, water 1,
  fire 2, earth 3; spring 2/1/3/1; summer 3/2/1/1; fall 1/3/1/2.
* Summoning [:127–140]: pay the card's cost (energies and/or crystals, scaled by player count
  for some cards) and have room under the summoning gauge (cards in play < gauge) [:131–132].
  Effects by timing (DATA 1.3): on arrival, permanent, activation (once per turn), end of game.
* Bonus track (DATA 1.2): at most 3 uses per game: exchange 1–2 energies, transmute this turn
  with +1 crystal per energy, gauge +1, or (instead of the die's card draw) draw 2 keep 1. End
  penalty 5 / 12 / 20 for 1 / 2 / 3 uses.
* End (DATA 1.2): when the year would become 4, after the end-of-round and season effects.
  Score = crystals + prestige of the cards in play + end-of-game effects − bonus penalty − 5 per
  card in hand, at least 0. Most points wins; ties: most cards in play (DATA 1.2), then shared.

Rulings (``shared/rules/NOTES.md`` §4.17 and DATA §1 where they speak; the rest are ours):

1. **Players** 2–4 (NOTES 4.17 §1, DATA 1.1); **cards** 2 copies of each of the 50.
2. **Modes** (variant ``mode``): ``apprentice`` (prebuilt hands, cards 1–30; the draw pile is
   the other cards of 1–30; the 4 hands go to seats by a random shuffle), ``magician`` (draft
   with cards 1–30, 60 cards), ``archmage`` (draft with all 100 cards; the default). The
   rulings of the advanced cards 31–50 are A1–A20 in ``cards_advanced.py``.
3. **Dice first, then turns**: all seats take their dice in turn order, then all seats play
   their turns in the same order (the page lists dice choice before "The players' turn").
4. **Die resolution**: energies, crystals and the star are applied automatically at the start
   of the turn (the star is never harmful; the gauge is capped at 15); the card draw and the
   transmute permission are used at the player's option during the turn.
5. **Excess energy** (over the cap) is discarded one token at a time by its owner's choice
   (decision ``energy``, reason ``overflow``) as soon as no other choice is open.
6. **Draw pile**: when it is empty, the discard pile is shuffled to make it (chance
   ``reshuffle``); with neither, fewer cards are drawn. There is no hand limit.
7. **Transmuting** is one energy per ``transmute:<energy>`` option; the bonus "transmute"
   adds +1 crystal per energy for the rest of the turn and can be used once per turn (also
   with a transmute die). Potion of Life #26 transmutes (DATA: "transmute each energy in
   reserve into 4 crystals"; Source A runs it as a transmutation): the bonus's +1 and Purse of
   Io #8's +1 count for each of its energies. (Version 4: before it, neither did.)
8. **Exchange bonus**: give 1 energy, take 1 of your choice, then optionally a second pair
   (``stop`` ends it).
9. **Draw bonus**: used instead of the die's card draw, so offered only while that draw is
   unused (Source A ``useBonus``: the bonus needs the pending draw and consumes it; BGA help:
   "must use with draw card dice"): draw 2, keep 1, discard the other (face down, ruling 23).
   (Version 4: before it, the bonus was offered after the die's draw too, and again after
   itself: up to 3 cards kept in a turn.)
10. **Stored energies** (Amulet of Water #4) pay any cost, can be transmuted and exchanged
    like reserve energies; the reserve is spent first. They are not "in the reserve" (cap,
    Chest #13, Horn #14, Lewis #21, Potion of Life #26, Lantern #45) and are lost if the card
    leaves play.
11. **Permanent effects** apply from the moment the card is in play: they do not trigger on
    the card's own summon (Staff of Spring #6, Yjang's Vase #30).
12. **Activation** is once per owner's turn, only during that turn. Die of Malice #15 is
    activated at the start of its owner's turn, before the die is used (decision ``reroll``);
    a reroll is an activation (DATA 1.3 timing A): it runs the ``activate_any`` hooks (#41).
13. **Temporal Boots #7** move the season token 1–3 months within the current year (months
    1–12; never across a year end); a season change so made triggers the season effects.
14. **Energy of choice**: every "gain N energies" of cards 1–30 (#4, #14, #18, #25, #27, #30)
    is N choices of the energy's type (decision ``energy``, reason ``gain``).
15. **Off-turn choices** go to the seat that makes them, clockwise from the card's owner:
    Syllas #10 (each opponent sacrifices), Amsug #17 (each seat, owner first, returns a magic
    item), Naria #12 (the owner keeps 1 and gives 1 to each opponent, clockwise).
16. **Divine Chalice #9**: the player may summon one of the 4 drawn cards for free (or
    ``none``), only if the gauge has room; the other cards are discarded. **Potion of Dreams
    #24** is offered only with a card in hand (the potion's own place is freed).
17. **Crystals never go below 0**: a loss or gift takes what there is.
18. **Ties**: most cards in play, then a shared placing.
19. **Balance of Ishtar #5** follows DATA's first-edition text: cost 6 crystals; discard 4
    identical energies for 12 crystals.
20. **End of game**: the year-4 check follows the season effects of the last round; the
    Library III cards still in hand count as cards in hand.
21. **First player**: a random seat (the page's "youngest player" [:67]).
22. **Worlds** (``sample_world``): the cards the seat cannot see are re-dealt uniformly over the
    hidden places (others' hands, libraries, limbo, draft packets and picks, the draw pile, the
    discards it did not see: ruling 23), except that during the draft and the library phase what
    the seat knows of the packets it held and passed on is kept (the cards that left a packet
    between two sightings are picks of the seats that held it; what it passed since is in the
    next seats' picks or packet); what it knows is its ``sightings`` (each packet it picked
    from, as it reached it, and its pick, in order; the observation carries them during the
    draft and the library phase only). After the library phase that draft knowledge is not used,
    but (``worlds.py``) a world keeps: in apprentice mode each other seat's prebuilt deck (the
    deck assignment is secret: each seat is told only its own, the 4 decks are public; a world
    gives the others, one each, decks the viewer does not hold, uniformly among those that fit
    what it saw) with its Library II/III cards and the deck's cards not summoned or discarded
    since in that seat's libraries and hand; cards the viewer gave with Naria #12 or saw
    returned to a hand (Amsug #17) in that hand until its seat summons or discards such a card
    (such a card its deck also holds counts first against the hand's copy: the copy left may
    be the deck's, in a library);
    the card the viewer put back with Crystal Orb #34 on top of the draw pile until a card is
    drawn. The observation carries what this needs (``sightings``; each seat's ``played`` and
    ``received`` cards, ``orb_top``), so a world from the observation alone
    (``world_from_observation``, a served search) keeps the same (in the draft and the library
    phase, with the same chance, the same world as ``sample_world``); the rest of the unseen
    cards is dealt uniformly. The observation also carries the queued prompts (``queue``, with
    each prompt's ``step`` and ``data``), the ``stage`` and each seat's drawn-card count
    (``limbo``) for it.
23. **Discards are face down** (the official rules, DATA's Source B p.5: "The cards which are
    discarded or sacrificed during the game will be placed there face down"; Source A tells
    the others only that a card was discarded): drawn cards a seat discards without showing
    them (the die's draw, the draw bonus, Amulet of Fire #2, Divine Chalice #9, the top card
    Crystal Orb #34 discards) are known to that seat only: the others get a ``discard``
    event without the cards, and ``Observation.discard`` lists only the discard pile cards
    the seat knows (every card that was in play, the cards discarded from a hand by Vampiric
    Crown #36 or Necrotic Kriss #44, whose effects need them shown, and its own discards);
    the pile's size is what no other place holds (``pile_total`` minus the draw pile, hands,
    libraries, drawn cards and tableaux). Worlds deal the discards the seat did not see
    like any hidden card. (Version 4: before it, they were named to every seat.)

Chance labels, in the order drawn: ``"decks"`` (apprentice: the shuffle of the 4 prebuilt hands'
indices; seat s gets the s-th), ``"deal"`` (the shuffle of the pool: magician/archmage deal 9 per
seat from the top, seat 0 first, the rest is the draw pile, top = first; apprentice: the draw
pile), ``"season-dice"`` (one shuffle of the dice 1–5 per season, winter first: the first
players + 1 are used), ``"first"`` (pick of the first player), then during play ``"dice"`` (each
round: one d6 per die in play, in die order), ``"reroll"`` (Die of Malice) and ``"reshuffle"``
(the discard pile made into the draw pile).

Bound: the leftover die moves the token 1–3 months forward every round and only Temporal Boots
#7 move it back (at most 3 months per summon, within the year), so a game has at most 36 rounds
plus 3 per Boots summon. Within a turn every option but ``end`` spends something finite: a card
in hand (summon), a card's activation for this turn, an energy, a bonus use (3 per game) or the
die's single draw. Measured over the 2,000 seeded random playouts of the tests (the modes
archmage, magician and apprentice in rotation, 2-4 players): at most 26 rounds and 555 decisions
(4 players, archmage; magician 476, apprentice 459); the test asserts 36 rounds and 1,000
decisions. Cards in play never exceed the gauge in apprentice and magician; in archmage only
Demon of Argos #38 (an opponent's gauge -1) and Damned Soul of Onys #50 (passed to the left) can
make them exceed it, by at most 1 per such step: every summon (paid or free) needs room.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import ConfigError, MatchConfig, OptionSpec
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Event, Game, GameMeta, Option, Result, Variant
from arena.games.seasons import cards_basic  # noqa: F401  (registers cards 1-30)
from arena.games.seasons.framework import (
    ACTIVATIONS,
    APPRENTICE_DECKS,
    BASIC,
    BONUS_PENALTY,
    BONUS_USES,
    CARDS,
    CHOICES,
    COPIES,
    COST_MODIFIERS,
    DEAL,
    DICE,
    END_OF_GAME,
    ENERGIES,
    ENERGY_NAMES,
    GAUGE_MAX,
    HAND_PENALTY,
    HOOKS,
    MONTHS,
    ON_SUMMON,
    PAYMENTS,
    RESERVE,
    SUMMON_TAX,
    TRANSMUTE,
    YEARS,
    Ask,
    Ctx,
    Face,
    Payment,
    SeasonsState,
    Slot,
    available,
    cap_of,
    card_name,
    known_discard,
    option,
    printed_payment,
    season_of,
    total,
)
from arena.games.v1 import seasons_pb2 as pb

with contextlib.suppress(ImportError):  # the advanced cards 31-50 (their own module; registers on import)
    from arena.games.seasons import cards_advanced  # noqa: F401

MODES = ("apprentice", "magician", "archmage")
ALL = 50
BONUS_NAMES: dict[int, str] = {
    pb.EXCHANGE: "exchange",
    pb.TRANSMUTE_PLUS: "transmute",
    pb.GAUGE: "gauge",
    pb.DRAW_TWO: "draw",
}


def pool_numbers(mode: str) -> list[int]:
    """The card numbers in play for a mode (each in 2 copies)."""
    return list(range(1, (ALL if mode == "archmage" else BASIC) + 1))


# -- shared options ------------------------------------------------------------------------------

_END = option("end", "end your turn", kind=pb.END_TURN)
_DRAW = option("draw", "draw a power card (your die's card symbol)", kind=pb.DRAW)
_KEEP = option("keep", "keep the card", kind=pb.KEEP)
_DISCARD = option("discard", "discard the card", kind=pb.DISCARD)
_REROLL = option("reroll", "reroll your season die (+2 crystals)", kind=pb.REROLL)
_KEEP_DIE = option("keep", "keep your season die", kind=pb.KEEP)
_BONUS = {
    b: option(f"bonus:{name}", f"use the bonus {name}", kind=pb.BONUS, bonus=b) for b, name in BONUS_NAMES.items()
}
_TRANSMUTE = {
    e: option(f"transmute:{ENERGY_NAMES[e]}", f"transmute 1 {ENERGY_NAMES[e]}", kind=pb.TRANSMUTE, energy=e)
    for e in ENERGIES
}
_FACE_PB: dict[Face, pb.DieFace] = {}


def face_pb(face: Face) -> pb.DieFace:
    message = _FACE_PB.get(face)
    if message is None:
        message = _FACE_PB[face] = pb.DieFace(
            season=face.season + 1,  # type: ignore[arg-type]
            die=face.die,
            face=face.face,
            energies=face.energies,  # type: ignore[arg-type]
            crystals=face.crystals,
            star=face.star,
            card=face.card,
            transmute=face.transmute,
            pips=face.pips,
        )
    return message


_FACE_TEXT: dict[Face, str] = {}
_DIE_OPTIONS: dict[Face, Option] = {}


def face_text(face: Face) -> str:
    text = _FACE_TEXT.get(face)
    if text is None:
        text = _FACE_TEXT[face] = _face_text(face)
    return text


def die_option(face: Face) -> Option:
    found = _DIE_OPTIONS.get(face)
    if found is None:
        found = _DIE_OPTIONS[face] = option(f"die:{face.die}", f"take {face_text(face)}", kind=pb.DIE, die=face.die)
    return found


def _face_text(face: Face) -> str:
    parts = [ENERGY_NAMES[e] for e in face.energies]
    if face.crystals:
        parts.append(f"{face.crystals} crystals")
    if face.star:
        parts.append("gauge +1")
    if face.card:
        parts.append("card")
    if face.transmute:
        parts.append("transmute")
    return f"die {face.die} ({', '.join(parts)}; {face.pips} pips)"


_SUMMONS: dict[tuple[int, Payment], Option] = {}
_PRINTED: dict[tuple[int, int], list[Payment]] = {}


def summon_option(number: int, pay: Payment) -> Option:
    found = _SUMMONS.get((number, pay))
    if found is not None:
        return found
    suffix = "".join(f"-{ENERGY_NAMES[e]}" for e in pay.omitted)
    oid = f"summon:{number}" + (f":{suffix}" if suffix else "")
    cost = ", ".join(f"{pay.energies[e]} {ENERGY_NAMES[e]}" for e in ENERGIES if pay.energies[e])
    if pay.crystals:
        cost += f"{', ' if cost else ''}{pay.crystals} crystals"
    found = _SUMMONS[(number, pay)] = Option(
        oid,
        f"summon {card_name(number)} for {cost or 'free'}",
        pb.Action(kind=pb.SUMMON, card=number, cost=pb.Cost(energies=pay.energies, crystals=pay.crystals)),
    )
    return found


def prompt_pb(ask: Ask) -> pb.Prompt:
    """An asked choice as the observation shows it (without the cards shown to the chooser)."""
    return pb.Prompt(
        seat=ask.seat,
        reason=ask.reason,
        card=ask.card,
        owner=max(ask.owner, 0),
        left=ask.left,
        kind=ask.kind,
        step=ask.handler,
        data=ask.data,
    )


def activate_option(index: int, number: int) -> Option:
    return option(f"activate:{index}", f"activate {card_name(number)}", kind=pb.ACTIVATE, index=index, card=number)


class Seasons(Game[SeasonsState]):
    meta = GameMeta(
        id="seasons",
        name="Seasons",
        min_players=2,
        max_players=4,
        version="4",
        options=(
            OptionSpec(
                "mode",
                "archmage",
                "apprentice (prebuilt 9-card hands, cards 1-30), magician (draft, cards 1-30) or archmage "
                "(draft, cards 1-50)",
            ),
        ),
        variants=(
            Variant("apprentice", "beginner mode: prebuilt 9-card hands of the basic cards", {"mode": "apprentice"}),
            Variant("magician", "draft with the 30 basic cards only", {"mode": "magician"}),
        ),
        simultaneous=True,
        hidden_information=True,
        summary="Draft power cards, pick season dice, gather energies, summon and activate cards, "
        "transmute energies into crystals over three years.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def check_config(self, config: MatchConfig) -> None:
        if config["mode"] not in MODES:
            raise ConfigError(f"seasons: option mode={config['mode']!r}: expected one of {', '.join(MODES)}")

    # -- setup ------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> SeasonsState:
        players = config.players
        mode = str(config["mode"])
        pool = [n for n in pool_numbers(mode) for _ in range(COPIES)]
        if mode == "apprentice":
            order = chance.shuffled(list(range(len(APPRENTICE_DECKS))), "decks")
            packets = [list(APPRENTICE_DECKS[order[s]]) for s in range(players)]
            for packet in packets:
                for n in packet:
                    pool.remove(n)
            deck = chance.shuffled(pool, "deal")
        else:
            deck = chance.shuffled(pool, "deal")
            packets = [deck[s * DEAL : (s + 1) * DEAL] for s in range(players)]
            deck = deck[players * DEAL :]
        dice_set = [sorted(chance.shuffled([1, 2, 3, 4, 5], "season-dice")[: players + 1]) for _ in range(4)]
        first = chance.pick(range(players), "first")
        state = SeasonsState(
            config=config,
            chance=chance,
            mode=mode,
            first=first,
            turn_seat=first,
            dice_set=dice_set,
            dice=[None] * players,
            draw_pile=deck[::-1],
            hands=[[] for _ in range(players)],
            libraries=[[[], []] for _ in range(players)],
            limbo=[[] for _ in range(players)],
            packets=[sorted(p) for p in packets] if mode != "apprentice" else [[] for _ in range(players)],
            drafted=[sorted(p) for p in packets] if mode == "apprentice" else [[] for _ in range(players)],
            passed=[[] for _ in range(players)],
            sightings=[[] for _ in range(players)],
            played=[[] for _ in range(players)],
            received=[[[] for _ in range(players)] for _ in range(players)],
            orb_top=[0] * players,
            crystals=[0] * players,
            reserve=[[0] * 5 for _ in range(players)],
            gauge=[0] * players,
            tableau=[[] for _ in range(players)],
            bonus_used=[0] * players,
            stage="library" if mode == "apprentice" else "draft",
        )
        dice_text = "; ".join(
            f"{name} dice {', '.join(map(str, d))}"
            for name, d in zip(("winter", "spring", "summer", "fall"), dice_set, strict=True)
        )
        state.log.public(
            CHANCE_SEAT,
            "start",
            f"{mode} mode; seat {first} is the first player; {dice_text}",
            pb.EventDetail(seat=first, reason=mode, dice_in_play=[n for d in dice_set for n in d]),
        )
        for seat in range(players):
            cards = packets[seat]
            what = "prebuilt hand" if mode == "apprentice" else "first draft packet"
            state.log.private(
                [seat],
                seat,
                "hand",
                f"{what}: {', '.join(card_name(c) for c in sorted(cards))}",
                pb.EventDetail(seat=seat, cards=sorted(cards)),
            )
        self.drive(state)
        return state

    # -- the flow ---------------------------------------------------------------------------

    def queue(self, state: SeasonsState, ask: Ask) -> None:
        state.fresh.append(ask)

    def ask_options(self, state: SeasonsState, ask: Ask) -> Sequence[Option]:
        return CHOICES[ask.handler].options(state, ask)

    def drive(self, state: SeasonsState) -> None:
        """Advance through automatic steps until a decision is open (or the game is over)."""
        while True:
            fresh = state.fresh
            if fresh:
                state.asks[0:0] = fresh
                state.fresh = []
            while state.asks and not self.ask_options(state, state.asks[0]):
                state.asks.pop(0)
            if state.asks:
                state.phase = pb.PHASE_PROMPT
                return
            if self._overflow(state):
                continue
            stage = state.stage
            if stage == "draft":
                state.phase = pb.PHASE_DRAFT
                return
            if stage == "library":
                state.phase = pb.PHASE_LIBRARY
                return
            if stage == "dice":
                if state.pick_order:
                    state.phase = pb.PHASE_DICE
                    return
                state.turn_order = self.order(state, state.first)
                state.stage = "turn_begin"
            elif stage == "turn":
                state.phase = pb.PHASE_TURN
                return
            elif stage == "round_start":
                self._round_start(state)
            elif stage == "turn_begin":
                self._turn_begin(state)
            elif stage == "turn_die":
                self._turn_die(state)
            elif stage == "round_end":
                for seat in self.order(state, state.first):
                    self.run_hooks(state, "round_end", [seat])
                state.stage = "advance"
            elif stage == "advance":
                self._advance(state)
            elif stage == "year":
                if self._year(state):
                    return
            else:  # pragma: no cover
                raise AssertionError(stage)

    def _overflow(self, state: SeasonsState) -> bool:
        if all(total(r) <= RESERVE for r in state.reserve):
            return False
        for seat in self.order(state, state.turn_seat):
            excess = total(state.reserve[seat]) - cap_of(state, seat)
            if excess > 0:
                self.queue(state, Ask(seat, "energy", "overflow", 0, seat, "overflow", (), excess - 1))
                return True
        return False

    @staticmethod
    def order(state: SeasonsState, start: int) -> list[int]:
        return [(start + k) % state.players for k in range(state.players)]

    def run_hooks(
        self, state: SeasonsState, kind: str, seats: Iterable[int], *args: Any, skip: Slot | None = None
    ) -> None:
        """Run the ``kind`` hooks of the cards in play of ``seats`` (in tableau order)."""
        hooks = HOOKS[kind]
        if not hooks:
            return
        for seat in seats:
            for slot in list(state.tableau[seat]):
                fn = hooks.get(slot.card)
                if fn is None or slot is skip:
                    continue
                index = next((i for i, x in enumerate(state.tableau[seat]) if x is slot), -1)
                if index >= 0:  # still in play
                    fn(Ctx(self, state, seat, slot.card, index), *args)

    def _round_start(self, state: SeasonsState) -> None:
        state.round += 1
        season = season_of(state.month)
        state.rolled = [DICE[season][d - 1][state.chance.roll(6, "dice") - 1] for d in state.dice_set[season]]
        state.dice = [None] * state.players
        state.pick_order = self.order(state, state.first)
        state.turn_seat = state.first
        state.log.public(
            state.first,
            "roll",
            f"round {state.round} (year {state.year}, month {state.month}): rolls "
            + "; ".join(face_text(f) for f in state.rolled),
            pb.EventDetail(
                seat=state.first, dice=[face_pb(f) for f in state.rolled], month=state.month, year=state.year
            ),
        )
        state.stage = "dice"

    def _turn_begin(self, state: SeasonsState) -> None:
        if not state.turn_order:
            state.stage = "round_end"
            return
        seat = state.turn_order.pop(0)
        state.turn_seat = seat
        for slot in state.tableau[seat]:
            slot.used = False
        state.may_transmute = False
        state.transmute_bonus = 0
        state.may_draw = False
        face = state.dice[seat]
        assert face is not None
        state.log.public(
            seat, "turn", f"begins a turn with {face_text(face)}", pb.EventDetail(seat=seat, die=face_pb(face))
        )
        state.stage = "turn_die"
        self.run_hooks(state, "turn_start", [seat])

    def _turn_die(self, state: SeasonsState) -> None:
        seat = state.turn_seat
        face = state.dice[seat]
        assert face is not None
        ctx = Ctx(self, state, seat)
        counts = [0] * 5
        for e in face.energies:
            counts[e] += 1
        ctx.gain_energies(counts)
        ctx.gain_crystals(face.crystals)
        if face.star:
            ctx.gauge(1)
        state.may_transmute = face.transmute
        state.may_draw = face.card
        state.stage = "turn"

    def _advance(self, state: SeasonsState) -> None:
        leftover = state.rolled[0]
        old = season_of(state.month)
        month = state.month + leftover.pips
        year = state.year
        if month > MONTHS:
            month -= MONTHS
            year += 1
        state.month = month
        state.log.public(
            CHANCE_SEAT,
            "season",
            f"the leftover die ({leftover.pips} pips) moves the season token to month {month}",
            pb.EventDetail(month=month, year=year, amount=leftover.pips),
        )
        state.stage = "year"
        state.year_to = year
        if season_of(month) != old:
            self.run_hooks(state, "season_change", self.order(state, state.first))

    def move_season(self, state: SeasonsState, delta: int, source: int) -> None:
        """Move the season token within the year (Temporal Boots #7)."""
        old = season_of(state.month)
        state.month += delta
        state.log.public(
            state.turn_seat,
            "season",
            f"{card_name(source)} moves the season token {delta:+d} to month {state.month}",
            pb.EventDetail(seat=state.turn_seat, month=state.month, year=state.year, amount=delta, source=source),
        )
        if season_of(state.month) != old:
            self.run_hooks(state, "season_change", self.order(state, state.turn_seat))

    def _year(self, state: SeasonsState) -> bool:
        year = state.year_to
        state.first = (state.first + 1) % state.players
        state.stage = "round_start"
        if year != state.year:
            state.year = year
            if year > YEARS:
                self._finish(state)
                return True
            for seat in range(state.players):
                cards = state.libraries[seat][year - 2]
                state.libraries[seat][year - 2] = []
                state.hands[seat].extend(cards)
                state.log.private(
                    [seat],
                    seat,
                    "library",
                    f"takes Library {'II' if year == 2 else 'III'} into hand: "
                    + ", ".join(card_name(c) for c in cards),
                    pb.EventDetail(seat=seat, cards=cards, year=year),
                )
            state.log.public(
                CHANCE_SEAT,
                "year",
                f"year {year} begins: every seat takes its library",
                pb.EventDetail(year=year, month=state.month),
            )
        return False

    def _finish(self, state: SeasonsState) -> None:
        state.phase = pb.PHASE_OVER
        state.stage = "over"
        scores = [self.score_of(state, s) for s in range(state.players)]
        state.log.public(
            CHANCE_SEAT,
            "end",
            "game over: " + ", ".join(f"seat {s} {scores[s]}" for s in range(state.players)),
            pb.EventDetail(scores=scores, year=state.year, month=state.month),
        )

    # -- cards ------------------------------------------------------------------------------

    def draw(self, state: SeasonsState, seat: int, n: int, source: int) -> list[int]:
        got: list[int] = []
        for _ in range(n):
            if not state.draw_pile:
                if not state.discard:
                    break
                state.draw_pile = state.chance.shuffled(state.discard, "reshuffle")[::-1]
                state.discard, state.discard_seen = [], []
                state.log.public(
                    CHANCE_SEAT,
                    "draw",
                    f"the discard pile is shuffled into a draw pile of {len(state.draw_pile)} cards",
                    pb.EventDetail(amount=len(state.draw_pile), reason="reshuffle"),
                )
            got.append(state.draw_pile.pop())
        state.limbo[seat].extend(got)
        if got:  # the top card is no longer the one put back with Crystal Orb #34
            state.orb_top = [0] * state.players
        why = f" ({card_name(source)})" if source else ""
        state.log.events.append(
            Event(
                seat,
                "draw",
                f"draws {len(got)} card{'s' if len(got) != 1 else ''}{why}",
                pb.EventDetail(seat=seat, amount=len(got), source=source),
            )
        )
        if got:
            state.log.events.append(
                Event(
                    seat,
                    "drawn",
                    f"draws {', '.join(card_name(c) for c in got)}{why}",
                    pb.EventDetail(seat=seat, cards=got, source=source),
                    frozenset((seat,)),
                )
            )
        return got

    def payments_for(self, state: SeasonsState, seat: int, number: int) -> list[Payment]:
        special = PAYMENTS.get(number)
        modifiers = [COST_MODIFIERS[s.card] for s in state.tableau[seat] if s.card in COST_MODIFIERS]
        if special is None and not modifiers:
            key = (number, state.players)
            printed = _PRINTED.get(key)
            if printed is None:
                printed = _PRINTED[key] = printed_payment(state, number)
            return printed
        pays = special(state, seat) if special is not None else printed_payment(state, number)
        for modify in modifiers:
            pays = modify(state, seat, number, pays)
        out: list[Payment] = []
        for p in pays:
            if p not in out:
                out.append(p)
        return out

    @staticmethod
    def summon_tax(state: SeasonsState, seat: int) -> int:
        """Crystals the opponents' cards add to a paid summon of ``seat`` (Arcano Leech #33)."""
        return sum(SUMMON_TAX.get(x.card, 0) for s in range(state.players) if s != seat for x in state.tableau[s])

    @staticmethod
    def affordable(
        state: SeasonsState, seat: int, pay: Payment, have: Sequence[int] | None = None, tax: int | None = None
    ) -> bool:
        if tax is None:
            tax = Seasons.summon_tax(state, seat)
        if state.crystals[seat] < pay.crystals + tax:
            return False
        if have is None:
            have = available(state, seat)
        need = pay.energies
        return have[1] >= need[1] and have[2] >= need[2] and have[3] >= need[3] and have[4] >= need[4]

    def put_in_play(self, state: SeasonsState, seat: int, number: int, pay: Payment | None, source: int = 0) -> None:
        """Summon ``number`` (already out of its zone): pay, place, arrival effect, hooks."""
        ctx = Ctx(self, state, seat, number, -1, pay)
        if pay is not None:  # a paid summon (Arcano Leech #33 spares free ones)
            self.run_hooks(state, "before_summon", [s for s in self.order(state, seat) if s != seat], seat, number)
            ctx.spend(pay.energies, "pays")
            if pay.crystals:
                state.crystals[seat] -= pay.crystals
        slot = Slot(number)
        state.tableau[seat].append(slot)
        state.summons += 1
        if source not in (9, 34):  # not straight from a draw (Divine Chalice #9, Crystal Orb #34)
            state.played[seat].append(number)
        how = f" for free ({card_name(source)})" if pay is None else ""
        cost = pb.Cost(energies=pay.energies, crystals=pay.crystals) if pay is not None else None
        state.log.public(
            seat,
            "summon",
            f"summons {card_name(number)}{how}",
            pb.EventDetail(
                seat=seat,
                card=number,
                energies=cost.energies if cost else [],
                crystals=-(pay.crystals if pay else 0),
                source=source,
            ),
        )
        ctx.index = len(state.tableau[seat]) - 1
        effect = ON_SUMMON.get(number)
        if effect is not None:
            effect(ctx)
        self.run_hooks(state, "summon_any", self.order(state, seat), seat, number, skip=slot)

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: SeasonsState) -> Iterable[Decision]:
        phase = state.phase
        if phase == pb.PHASE_TURN:
            return (Decision(state.turn_seat, "turn", self._turn_options(state, state.turn_seat)),)
        if phase == pb.PHASE_PROMPT:
            ask = state.asks[0]
            return (Decision(ask.seat, ask.kind, tuple(self.ask_options(state, ask))),)
        if phase == pb.PHASE_DICE:
            seat = state.pick_order[0]
            return (Decision(seat, "die", self._die_options(state)),)
        if phase == pb.PHASE_DRAFT:
            return tuple(
                Decision(
                    s,
                    "draft",
                    tuple(
                        option(f"pick:{c}", f"pick {card_name(c)}", kind=pb.PICK, card=c)
                        for c in sorted(set(state.packets[s]))
                    ),
                )
                for s in range(state.players)
            )
        if phase == pb.PHASE_LIBRARY:
            year = 2 if state.lib_step < 3 else 3
            out = []
            for s in range(state.players):
                left = self._unassigned(state, s)
                out.append(
                    Decision(
                        s,
                        "library",
                        tuple(
                            option(
                                f"lib{year}:{c}",
                                f"put {card_name(c)} in Library {'II' if year == 2 else 'III'}",
                                kind=pb.LIBRARY,
                                card=c,
                                amount=year,
                            )
                            for c in sorted(set(left))
                        ),
                    )
                )
            return tuple(out)
        return ()

    @staticmethod
    def _unassigned(state: SeasonsState, seat: int) -> list[int]:
        left = list(state.drafted[seat])
        for lib in state.libraries[seat]:
            for c in lib:
                left.remove(c)
        return left

    @staticmethod
    def _die_options(state: SeasonsState) -> tuple[Option, ...]:
        return tuple(die_option(f) for f in state.rolled)

    def _turn_options(self, state: SeasonsState, seat: int) -> tuple[Option, ...]:
        opts: list[Option] = []
        have = available(state, seat)
        if len(state.tableau[seat]) < state.gauge[seat]:
            tax = self.summon_tax(state, seat)
            for number in sorted(set(state.hands[seat])):
                for pay in self.payments_for(state, seat, number):
                    if self.affordable(state, seat, pay, have, tax):
                        opts.append(summon_option(number, pay))
        for index, slot in enumerate(state.tableau[seat]):
            act = ACTIVATIONS.get(slot.card)
            if act is not None and not slot.used and act[0](Ctx(self, state, seat, slot.card, index)):
                opts.append(activate_option(index, slot.card))
        if state.may_transmute:
            opts.extend(_TRANSMUTE[e] for e in ENERGIES if have[e])
        cards_left = bool(state.draw_pile or state.discard)
        if state.may_draw and cards_left:
            opts.append(_DRAW)
        if state.bonus_used[seat] < BONUS_USES:
            if total(have):
                opts.append(_BONUS[pb.EXCHANGE])
            if not state.transmute_bonus:
                opts.append(_BONUS[pb.TRANSMUTE_PLUS])
            if state.gauge[seat] < GAUGE_MAX:
                opts.append(_BONUS[pb.GAUGE])
            if state.may_draw and cards_left:  # instead of the die's draw (ruling 9)
                opts.append(_BONUS[pb.DRAW_TWO])
        opts.append(_END)
        return tuple(opts)

    # -- resolution -------------------------------------------------------------------------

    def resolve(self, state: SeasonsState, chosen: Mapping[int, Option]) -> None:
        phase = state.phase
        if phase == pb.PHASE_DRAFT:
            self._draft(state, chosen)
        elif phase == pb.PHASE_LIBRARY:
            self._library(state, chosen)
        else:
            ((seat, picked),) = chosen.items()
            action: Any = picked.action
            if phase == pb.PHASE_PROMPT:
                ask = state.asks.pop(0)
                CHOICES[ask.handler].resolve(Ctx(self, state, ask.seat, ask.card), ask, action)
            elif phase == pb.PHASE_DICE:
                self._take_die(state, seat, action.die)
            else:
                self._turn_action(state, seat, action)
        self.drive(state)

    def _draft(self, state: SeasonsState, chosen: Mapping[int, Option]) -> None:
        n = state.players
        for seat in range(n):
            card = chosen[seat].action.card  # type: ignore[attr-defined]
            state.sightings[seat].append((tuple(sorted(state.packets[seat])), card))
            state.packets[seat].remove(card)
            state.drafted[seat].append(card)
            state.log.private([seat], seat, "draft", f"picks {card_name(card)}", pb.EventDetail(seat=seat, card=card))
        state.log.public(
            CHANCE_SEAT,
            "draft",
            f"every seat picks a card ({len(state.drafted[0])} of {DEAL})",
            pb.EventDetail(amount=len(state.drafted[0])),
        )
        if state.packets[0]:
            state.passed = [sorted(p) for p in state.packets]
            state.packets = [state.packets[(s - 1) % n] for s in range(n)]
            for seat in range(n):
                state.log.private(
                    [seat],
                    seat,
                    "hand",
                    f"receives a packet from seat {(seat - 1) % n}: "
                    + ", ".join(card_name(c) for c in state.packets[seat]),
                    pb.EventDetail(seat=seat, cards=state.packets[seat], target=(seat - 1) % n),
                )
        else:
            state.packets = [[] for _ in range(n)]
            state.passed = [[] for _ in range(n)]
            for seat in range(n):
                state.drafted[seat].sort()
            state.stage = "library"

    def _library(self, state: SeasonsState, chosen: Mapping[int, Option]) -> None:
        year = 2 if state.lib_step < 3 else 3
        for seat in range(state.players):
            card = chosen[seat].action.card  # type: ignore[attr-defined]
            state.libraries[seat][year - 2].append(card)
            state.log.private(
                [seat],
                seat,
                "library",
                f"puts {card_name(card)} in Library {'II' if year == 2 else 'III'}",
                pb.EventDetail(seat=seat, card=card, year=year),
            )
        state.lib_step += 1
        if state.lib_step == 6:
            for seat in range(state.players):
                state.hands[seat] = sorted(self._unassigned(state, seat))
                state.libraries[seat] = [sorted(lib) for lib in state.libraries[seat]]
            # the draft knowledge is not used after the library phase (ruling 22): the observation
            # stops carrying it
            state.sightings = [[] for _ in range(state.players)]
            state.log.public(
                CHANCE_SEAT, "library", "every seat has set its Library II and III cards aside", pb.EventDetail()
            )
            state.stage = "round_start"

    def _take_die(self, state: SeasonsState, seat: int, die: int) -> None:
        face = next(f for f in state.rolled if f.die == die)
        state.rolled.remove(face)
        state.dice[seat] = face
        state.pick_order.pop(0)
        state.log.public(seat, "die", f"takes {face_text(face)}", pb.EventDetail(seat=seat, die=face_pb(face)))

    def _turn_action(self, state: SeasonsState, seat: int, action: Any) -> None:
        kind = action.kind
        ctx = Ctx(self, state, seat)
        if kind == pb.END_TURN:
            state.log.public(seat, "turn", "ends the turn", pb.EventDetail(seat=seat, reason="end"))
            state.stage = "turn_begin"
        elif kind == pb.SUMMON:
            number = action.card
            pay = next(
                p
                for p in self.payments_for(state, seat, number)
                if p.energies == tuple(action.cost.energies) and p.crystals == action.cost.crystals
            )
            state.hands[seat].remove(number)
            self.put_in_play(state, seat, number, pay)
        elif kind == pb.ACTIVATE:
            slot = state.tableau[seat][action.index]
            slot.used = True
            state.activations += 1
            state.log.public(
                seat,
                "activate",
                f"activates {card_name(slot.card)}",
                pb.EventDetail(seat=seat, card=slot.card, amount=action.index),
            )
            ACTIVATIONS[slot.card][1](Ctx(self, state, seat, slot.card, action.index))
            self.run_hooks(state, "activate_any", self.order(state, seat), seat, slot.card, skip=slot)
        elif kind == pb.TRANSMUTE:
            energy = action.energy
            crystals = TRANSMUTE[season_of(state.month)][energy] + state.transmute_bonus
            counts = [0] * 5
            counts[energy] = 1
            ctx.spend(counts, "transmutes")
            state.crystals[seat] += crystals
            state.log.public(
                seat,
                "transmute",
                f"transmutes 1 {ENERGY_NAMES[energy]} into {crystals} crystals",
                pb.EventDetail(seat=seat, energies=counts, crystals=crystals),
            )
            self.run_hooks(state, "transmute", [seat], energy, crystals)
        elif kind == pb.DRAW:
            state.may_draw = False
            if ctx.draw(1):
                ctx.ask("keep", "keep_drawn", reason="keep-or-discard")
        elif kind == pb.BONUS:
            self._bonus(state, seat, action.bonus)
        else:  # pragma: no cover
            raise AssertionError(kind)

    def _bonus(self, state: SeasonsState, seat: int, bonus: int) -> None:
        state.bonus_used[seat] += 1
        used = state.bonus_used[seat]
        state.log.public(
            seat,
            "bonus",
            f"uses the bonus {BONUS_NAMES[bonus]} ({used} of {BONUS_USES})",
            pb.EventDetail(seat=seat, bonus=bonus, amount=used),  # type: ignore[arg-type]
        )
        ctx = Ctx(self, state, seat)
        if bonus == pb.EXCHANGE:
            ctx.ask("energy", "exchange_give", reason="exchange-give", data=(1,))
        elif bonus == pb.TRANSMUTE_PLUS:
            state.may_transmute = True
            state.transmute_bonus = 1
        elif bonus == pb.GAUGE:
            ctx.gauge(1)
        else:
            state.may_draw = False  # the die's draw, made as 2 cards drawn and 1 kept
            if ctx.draw(2):
                ctx.ask("card", "keep_one", reason="keep-one")

    # -- scoring ----------------------------------------------------------------------------

    @staticmethod
    def prestige(state: SeasonsState, seat: int) -> int:
        return sum(CARDS[s.card].prestige for s in state.tableau[seat])

    def score_of(self, state: SeasonsState, seat: int) -> int:
        """Crystals + prestige + end-of-game effects − bonus penalty − 5 per card in hand, ≥ 0."""
        bonus = sum(END_OF_GAME[s.card](state, seat) for s in state.tableau[seat] if s.card in END_OF_GAME)
        raw = (
            state.crystals[seat]
            + self.prestige(state, seat)
            + bonus
            - BONUS_PENALTY[state.bonus_used[seat]]
            - HAND_PENALTY * len(state.hands[seat])
        )
        return max(0, raw)

    def score(self, state: SeasonsState) -> Result:
        scores = [self.score_of(state, s) for s in range(state.players)]
        keys = [(scores[s], len(state.tableau[s])) for s in range(state.players)]
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        who = ", ".join(map(str, winners))
        summary = f"winner{'s' if len(winners) > 1 else ''}: seat {who} ({best[0]} points, {best[1]} cards in play)"
        return Result.ranked(scores, keys, summary)

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: SeasonsState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        seats = []
        for s in range(state.players):
            face = state.dice[s] if state.dice else None
            view = pb.SeatView(
                crystals=state.crystals[s],
                reserve=state.reserve[s],
                reserve_cap=cap_of(state, s),
                gauge=state.gauge[s],
                tableau=[
                    pb.TableauCard(card=t.card, used=t.used, energies=t.energies, tokens=t.tokens)
                    for t in state.tableau[s]
                ],
                hand_size=len(state.hands[s]),
                library_2=len(state.libraries[s][0]),
                library_3=len(state.libraries[s][1]),
                bonus_used=state.bonus_used[s],
                has_die=face is not None,
                score=self.score_of(state, s),
                prestige=self.prestige(state, s),
                limbo=len(state.limbo[s]),
                received=[] if spectator else state.received[viewer][s],
                played=state.played[s],
            )
            if face is not None:
                view.die.CopyFrom(face_pb(face))
            seats.append(view)
        me = max(viewer, 0)
        obs = pb.Observation(
            seat=me,
            spectator=spectator,
            players=state.players,
            mode=state.mode,
            phase=state.phase,  # type: ignore[arg-type]
            year=state.year,
            month=state.month,
            season=season_of(state.month) + 1,  # type: ignore[arg-type]
            first_player=state.first,
            turn_seat=state.turn_seat,
            dice=[face_pb(f) for f in state.rolled],
            dice_in_play=[n for d in state.dice_set for n in d],
            seats=seats,
            draw_pile=len(state.draw_pile),
            discard=known_discard(state, viewer),
            may_transmute=state.may_transmute,
            transmute_bonus=state.transmute_bonus,
            may_draw=state.may_draw,
            round=state.round,
            library_picked=[min(state.lib_step, 3), max(0, state.lib_step - 3)],
            pile_total=len(pool_numbers(state.mode)) * COPIES,
            stage=state.stage,
            orb_top=0 if spectator else state.orb_top[viewer],
        )
        if not spectator:
            obs.hand.extend(sorted(state.hands[viewer]))
            obs.library_2.extend(state.libraries[viewer][0])
            obs.library_3.extend(state.libraries[viewer][1])
            obs.packet.extend(sorted(state.packets[viewer]))
            obs.drafted.extend(state.drafted[viewer])
            obs.passed.extend(state.passed[viewer])
            obs.sightings.extend(pb.DraftSighting(cards=c, pick=p) for c, p in state.sightings[viewer])
        else:
            for s in range(state.players):
                obs.hands.extend([*sorted(state.hands[s]), 0])
        if state.phase == pb.PHASE_PROMPT and state.asks:
            ask = state.asks[0]
            prompt = prompt_pb(ask)
            obs.queue.extend(prompt_pb(a) for a in state.asks[1:])
            if spectator or viewer == ask.seat:
                prompt.cards.extend(state.limbo[ask.seat])
                if ask.handler == "keep_drawn" and state.limbo[ask.seat]:
                    obs.drawn = state.limbo[ask.seat][-1]
            obs.prompt.CopyFrom(prompt)
        return obs

    # -- determinization --------------------------------------------------------------------

    def sample_world(self, state: SeasonsState, seat: int, chance: Chance) -> SeasonsState:
        from arena.games.seasons.worlds import sample_world

        return sample_world(self, state, seat, chance)

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> SeasonsState:
        """See :func:`arena.games.seasons.worlds.world_from_observation`: the public state, the
        seat's cards and the cards it has seen where it knows them (``played``, ``received``,
        ``orb_top``) kept, the other unseen cards dealt uniformly over the hidden places."""
        from arena.games.seasons.worlds import world_from_observation

        assert isinstance(observation, pb.Observation)
        return world_from_observation(self, config, seat, observation, chance)


GAME = Seasons()
