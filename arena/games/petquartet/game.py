"""Pet Quartet — collect Soloists and Quartets from the Conductors' piles
(``shared/rules/petquartet.md``; line references in brackets).

Rules as implemented:

* **Cards.** n copies of each number n = 3..13, 88 cards [:23, :34–49]. By player count the
  highest numbers are removed [:57–71]: 2p keeps 3–9 (42 cards), 3p 3–10 (52), 4p 3–11 (63),
  5p 3–12 (75), 6p all 88. The deck is shuffled; there is one Conductor per player [:77–80].
* **Turn** [:124–138]. Draw a card, reveal it and place it beneath a Conductor with room (limit 4
  cards [:156–162]), or take a Conductor with at least 1 card [:168–180]: collect its cards
  face-up and sit out the rest of the round [:113–116, :199–206]. Players act clockwise
  (seat order) [:131]; seats that are out are skipped.
* **Round end** [:206–214]. When every player has taken a Conductor the round ends and the player
  who took the last one starts the next round with emptied Conductors.
* **Game end** [:218–237]. Drawing the last card of the deck triggers the end: players get one
  final turn each, to take a Conductor or pass; then the game ends.
* **Scoring** [:241–259]. Per number: exactly 1 card (Soloist) scores 1, exactly 4 (Quartet)
  scores 1, any other count 0. ``scoring=advanced`` [:275–298]: a Soloist scores its number,
  a Quartet 4. Most points wins; ties: lowest-valued Quartet, then highest-valued Soloist, then
  shared [:265–271, :298].
* **Maestro** (``maestro=true``) [:302–380]: one random tile per Conductor: 2-card limit, draw
  an extra card, return a card from the Conductor, return a previously collected card, optional
  immediate take, pass a card left.
* **Duet** (``duet=true``, 2 players only) [:384–438]: the 3-player deck (3–10) and 3
  Conductors with Duet tiles of limits 2, 3 and 4; the round ends as soon as both players have
  taken, and the third Conductor's cards are discarded face-up.

Rulings (``shared/rules/NOTES.md`` §4.13 unless stated):

1. **Draw is offered only when a remaining Conductor has room** (NOTES 1), so a drawn card can
   always be placed; the "must instead take" case of :164 never strands a card.
2. **The round's first turn draws** (NOTES 2, :124–129): every Conductor is empty then, so Draw
   is the only legal option and is applied without asking (see ruling 14).
3. **Final turns** (NOTES 3): only players still in the round, clockwise from the seat after
   the one who drew the last card and ending with that seat (who has just placed it). Each may
   take a Conductor (with its Maestro effect) or pass. Cards left beneath untaken Conductors
   are discarded face-up, unscored.
4. **Tie-breakers** (NOTES 4): a player with a Quartet beats one without, and a lower lowest
   Quartet beats a higher one; then a player with a Soloist beats one without, and a higher
   highest Soloist beats a lower one; then the placing is shared. The same keys order every
   placing, not only first.
5. **Draw an extra card** (NOTES 5): the top card of the (shuffled) deck, revealed as it joins
   the collection. With an empty deck nothing happens; drawing the last card triggers the end
   (the taker is out, so the final turns go to the players still in the round).
6. **Immediate take** (NOTES 6): right after placing beneath that Conductor (also on the
   round's first turn) the placer decides ``take:<i>`` or ``decline``, within the same turn.
7. **Duet** (NOTES 7): the leftover Conductor's cards are discarded face-up and stay visible.
8. **Next round's start player** (NOTES 8, :214): the player who took the last Conductor.
9. **Maestro tiles are placed once, at setup** (:310–313 "During normal setup") and keep their
   Conductor all game. With fewer than 6 players a random subset of the 6 tiles is used.
10. **Return a previously collected card** (:348–355): any card in the collection before this
    take (cards received from "pass a card left" included); with an empty collection the
    effect does nothing. Returned cards go to the box, face-up and public.
11. **Return a card from the Conductor** (:338–344) is mandatory, even from a 1-card pile
    (which then yields nothing).
12. **Pass a card left** (:367–380): "left" is the next seat clockwise (play runs clockwise,
    i.e. to the left); the card is any card of the collection after collecting; mandatory.
13. **Variants**: Maestro is allowed at every count (2–6); Duet only with 2 players and never
    with Maestro (Duet tiles are used "instead of the Maestro Tiles", :386, :402).
14. **Forced moves**: a decision with exactly one legal option (the round's first draw, a final
    turn with nothing to take, the only Conductor with room, a pile of one number...) is
    applied without asking; its event is logged as usual.
15. Every card is public once drawn [:145, :186–195], so every seat sees the same table; only
    the deck's order is hidden, from every seat alike (the game declares it hidden
    information: a sampled world re-deals it) and the observation also reports how many cards
    of each number are still in the deck.

Bound: a take collects a Conductor holding at least one card drawn in its round, so a game has
at most D draws and D takes (D, the cards in play: 42 / 52 / 63 / 75 / 88 at 2–6 players, 52 in
Duet) and one pass a player; a draw asks at most 3 decisions (``turn``, ``place``,
``immediate_take``) and a take 2 (``turn`` or ``final_turn``, then its tile's return or pass), so
a game has at most 5D + players steps: 212 / 263 / 319 / 380 / 446 (262 in Duet). Random play
takes at most 113 / 133 / 153 / 184 / 203 (the playout test checks the bound).

Decisions (kind: option ids): ``turn``: ``draw``, ``take:<i>``; ``place``: ``place:<i>``;
``final_turn``: ``take:<i>``, ``pass``; ``immediate_take``: ``take:<i>``, ``decline``;
``return_from_conductor`` and ``return_collected``: ``return:<number>``; ``pass_left``:
``give:<number>``. Cards of one number are identical, so one option per number.

Chance labels, in the order they are drawn (all at setup): ``"deck"`` (the one shuffle, top
card first), ``"maestro"`` (Maestro variant only: order of the 6 tile names of
``MAESTRO_TILES``; Conductor i gets the i-th), ``"start"`` (pick of the first start seat).

Component data is all in the rules text (cited at each constant); no data file is needed.
Conductors and seats are numbered from 0 in option ids (``take:0``, ``place:2``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import ConfigError, MatchConfig, OptionSpec
from arena.engine import (
    CHANCE_SEAT,
    SPECTATOR,
    Decision,
    Game,
    GameMeta,
    MatchState,
    Option,
    Result,
    Variant,
)
from arena.games.v1 import petquartet_pb2 as pb

LOWEST = 3  # card numbers run 3..13, n copies of n [:34, :41–49]
HIGHEST = 13
HIGHEST_BY_PLAYERS = {2: 9, 3: 10, 4: 11, 5: 12, 6: 13}  # removal table [:59–71]
DUET_HIGHEST = 10  # Duet uses the 3-player deck, 3–10 [:392–396]
DUET_LIMITS = (2, 3, 4)  # the three Duet tiles [:408–420]
CARD_LIMIT = 4  # a Conductor holds at most 4 cards [:158–162]
MAESTRO_LIMIT = 2  # the "2-card limit" Maestro [:321–325]
COUNTS = HIGHEST + 1  # length of a per-number count list (indices 0..13)

# The 6 Maestro tiles [:319–380], by the name used for the "maestro" chance label.
MAESTRO_TILES: dict[str, pb.Maestro.ValueType] = {
    "two-card-limit": pb.TWO_CARD_LIMIT,
    "draw-extra-card": pb.DRAW_EXTRA_CARD,
    "return-from-conductor": pb.RETURN_FROM_CONDUCTOR,
    "return-collected": pb.RETURN_COLLECTED,
    "immediate-take": pb.IMMEDIATE_TAKE,
    "pass-left": pb.PASS_LEFT,
}
MAESTRO_TEXT = {
    pb.TWO_CARD_LIMIT: "2-card limit",
    pb.DRAW_EXTRA_CARD: "draw an extra card",
    pb.RETURN_FROM_CONDUCTOR: "return a card from the Conductor",
    pb.RETURN_COLLECTED: "return a previously collected card",
    pb.IMMEDIATE_TAKE: "optional immediate take",
    pb.PASS_LEFT: "pass a card left",
}

NO_QUARTET = -(HIGHEST + 1)  # tie-break key below every "lowest Quartet" key (-13..-3)


# --------------------------------------------------------------------------------------------
# Pure helpers


def deck_cards(highest: int) -> list[int]:
    """The unshuffled deck: n copies of n for n = 3..highest [:41–49, :59–71]."""
    return [n for n in range(LOWEST, highest + 1) for _ in range(n)]


def set_points(number: int, count: int, advanced: bool) -> int:
    """Points of ``count`` cards of one number [:247–259, :279–296]."""
    if count == 1:
        return number if advanced else 1
    if count == 4:
        return 4 if advanced else 1
    return 0


def score_counts(counts: Sequence[int], advanced: bool) -> int:
    """Score of a collection given as counts per number."""
    return sum(set_points(n, counts[n], advanced) for n in range(LOWEST, HIGHEST + 1))


def tiebreak_key(counts: Sequence[int]) -> tuple[int, int]:
    """Higher is better: lowest Quartet (having one beats none), then highest Soloist [:267–271]."""
    quartets = [n for n in range(LOWEST, HIGHEST + 1) if counts[n] == 4]
    soloists = [n for n in range(LOWEST, HIGHEST + 1) if counts[n] == 1]
    return (-min(quartets) if quartets else NO_QUARTET, max(soloists) if soloists else 0)


def standing_key(counts: Sequence[int], advanced: bool) -> tuple[int, int, int]:
    """What places a collection at the end, higher is better: points, then the tie-break."""
    return (score_counts(counts, advanced), *tiebreak_key(counts))


def count_cards(cards: Iterable[int]) -> list[int]:
    counts = [0] * COUNTS
    for card in cards:
        counts[card] += 1
    return counts


def numbers_held(counts: Sequence[int]) -> list[int]:
    """The distinct numbers present, ascending (one option per number: copies are identical)."""
    return [n for n in range(LOWEST, HIGHEST + 1) if counts[n]]


def a_card(number: int) -> str:
    """ "a 7", "an 8", "an 11"."""
    return f"{'an' if number in (8, 11) else 'a'} {number}"


def cards_text(cards: Iterable[int]) -> str:
    return " ".join(map(str, cards)) or "no cards"


# --------------------------------------------------------------------------------------------
# Options (actions are shared; labels carry the public card numbers)

DRAW = Option("draw", "draw the top card of the deck", pb.Action(kind=pb.DRAW))
PASS = Option("pass", "pass (take nothing on this final turn)", pb.Action(kind=pb.PASS))
DECLINE = Option("decline", "do not take it; end the turn", pb.Action(kind=pb.DECLINE))


def take_option(conductor: int, cards: Sequence[int]) -> Option:
    return Option(
        f"take:{conductor}",
        f"take conductor {conductor} ({cards_text(cards)})",
        pb.Action(kind=pb.TAKE, conductor=conductor),
    )


def place_option(conductor: int, card: int, cards: Sequence[int]) -> Option:
    return Option(
        f"place:{conductor}",
        f"place the {card} beneath conductor {conductor} ({cards_text([*cards, card])})",
        pb.Action(kind=pb.PLACE, conductor=conductor),
    )


def return_option(number: int) -> Option:
    return Option(f"return:{number}", f"return {a_card(number)} to the box", pb.Action(kind=pb.RETURN, card=number))


def give_option(number: int, to_seat: int) -> Option:
    return Option(f"give:{number}", f"pass {a_card(number)} to seat {to_seat}", pb.Action(kind=pb.GIVE, card=number))


# --------------------------------------------------------------------------------------------
# State


@dataclass
class PetQuartetState(MatchState):
    advanced: bool = False
    duet: bool = False
    highest: int = HIGHEST
    deck: list[int] = field(default_factory=list)
    """The shuffled deck, top card first; ``deck[top:]`` is still to be drawn."""
    top: int = 0
    limits: list[int] = field(default_factory=list)
    maestros: list[pb.Maestro.ValueType] = field(default_factory=list)
    piles: list[list[int]] = field(default_factory=list)
    taken_by: list[int] = field(default_factory=list)
    collections: list[list[int]] = field(default_factory=list)
    """Counts per number (index 0..13) of each seat's collected cards."""
    in_round: list[bool] = field(default_factory=list)
    returned: list[int] = field(default_factory=lambda: [0] * COUNTS)
    discarded: list[int] = field(default_factory=lambda: [0] * COUNTS)
    round: int = 1
    round_start: int = 0
    to_act: int = 0
    phase: pb.Phase.ValueType = pb.PHASE_TURN
    drawn: int = 0
    active: int = -1
    """The Conductor being taken (Maestro sub-choices) or just placed on (immediate take)."""
    final: bool = False
    final_queue: list[int] | None = None
    """Seats still owed a final turn; built when the turn that drew the last card ends."""
    open: Decision | None = None

    @property
    def deck_left(self) -> int:
        return len(self.deck) - self.top


def redealt_deck(drawn: list[int], left: list[int], chance: Chance) -> list[int]:
    """A deck whose drawn part is ``drawn`` and whose undrawn part is ``left`` shuffled."""
    return drawn + chance.shuffled(left, "world")


def has_room(state: PetQuartetState, conductor: int) -> bool:
    return state.taken_by[conductor] < 0 and len(state.piles[conductor]) < state.limits[conductor]


def can_take(state: PetQuartetState, conductor: int) -> bool:
    return state.taken_by[conductor] < 0 and bool(state.piles[conductor])


def left_of(seat: int, players: int) -> int:
    """The player on your left: the next seat clockwise [:131, :367–372]."""
    return (seat + 1) % players


# --------------------------------------------------------------------------------------------
# The game


class PetQuartet(Game[PetQuartetState]):
    meta = GameMeta(
        id="petquartet",
        name="Pet Quartet",
        min_players=2,
        max_players=6,
        version="1.1",
        options=(
            OptionSpec("scoring", "standard", "Soloist/Quartet points", choices=("standard", "advanced")),
            OptionSpec("maestro", False, "Maestro variant: a tile changes each Conductor"),
            OptionSpec("duet", False, "2-player Duet variant: 3 Conductors with limits 2, 3, 4"),
        ),
        variants=(
            Variant("advanced", "Advanced Scoring: Soloist = its number, Quartet = 4", {"scoring": "advanced"}),
            Variant("maestro", "Maestro tiles change each Conductor's rules", {"maestro": True}),
            Variant("duet", "2-player Duet: 3 Conductors with Duet tiles", {"duet": True}, players=(2,)),
        ),
        hidden_information=True,  # the deck order (no seat knows more than another: it is chance)
        summary="Take piles of musical pets; only exactly 1 (Soloist) or 4 (Quartet) of a number score.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def check_config(self, config: MatchConfig) -> None:
        if config["duet"] and config.players != 2:
            raise ConfigError(f"petquartet: duet is the 2-player variant, not for {config.players} players")
        if config["duet"] and config["maestro"]:
            raise ConfigError("petquartet: duet and maestro cannot be combined (Duet tiles replace Maestro tiles)")

    def setup(self, config: MatchConfig, chance: Chance) -> PetQuartetState:
        players = config.players
        duet = bool(config["duet"])
        highest = DUET_HIGHEST if duet else HIGHEST_BY_PLAYERS[players]
        conductors = len(DUET_LIMITS) if duet else players
        deck = chance.shuffled(deck_cards(highest), "deck")
        maestros = [pb.MAESTRO_NONE] * conductors
        if config["maestro"]:
            tiles = chance.shuffled(list(MAESTRO_TILES), "maestro")
            maestros = [MAESTRO_TILES[name] for name in tiles[:conductors]]
        if duet:
            limits = list(DUET_LIMITS)
        else:
            limits = [MAESTRO_LIMIT if m == pb.TWO_CARD_LIMIT else CARD_LIMIT for m in maestros]
        start = chance.pick(range(players), "start")
        state = PetQuartetState(
            config=config,
            chance=chance,
            advanced=config["scoring"] == "advanced",
            duet=duet,
            highest=highest,
            deck=deck,
            limits=limits,
            maestros=maestros,
            piles=[[] for _ in range(conductors)],
            taken_by=[-1] * conductors,
            collections=[[0] * COUNTS for _ in range(players)],
            in_round=[True] * players,
            round_start=start,
            to_act=start,
        )
        log = state.log
        log.public(
            CHANCE_SEAT,
            "setup",
            f"{len(deck)} cards numbered {LOWEST}-{highest}, {conductors} Conductors",
            pb.PlayEvent(seat=-1, conductor=-1, deck_size=len(deck), highest=highest, conductors=conductors),
        )
        for i, (limit, maestro) in enumerate(zip(limits, maestros, strict=True)):
            if maestro != pb.MAESTRO_NONE:
                log.public(
                    CHANCE_SEAT,
                    "maestro",
                    f"conductor {i}: Maestro '{MAESTRO_TEXT[maestro]}'",
                    pb.PlayEvent(seat=-1, conductor=i, maestro=maestro, limit=limit),
                )
            elif duet:
                log.public(
                    CHANCE_SEAT,
                    "duet",
                    f"conductor {i}: Duet tile, limit {limit}",
                    pb.PlayEvent(seat=-1, conductor=i, limit=limit),
                )
        log.public(
            CHANCE_SEAT,
            "round",
            f"round 1: seat {start} starts",
            pb.PlayEvent(seat=-1, conductor=-1, round=1, start_seat=start),
        )
        self._advance(state)
        return state

    # -- decisions ------------------------------------------------------------------------

    def decisions(self, state: PetQuartetState) -> Iterable[Decision]:
        return (state.open,) if state.open is not None else ()

    def resolve(self, state: PetQuartetState, chosen: Mapping[int, Option]) -> None:
        self._act(state, chosen[state.to_act])
        self._advance(state)

    def _advance(self, state: PetQuartetState) -> None:
        """Open the next decision, applying forced single-option ones (ruling 14)."""
        while True:
            decision = self._decision(state)
            if decision is None or len(decision.options) > 1:
                state.open = decision
                return
            self._act(state, decision.options[0])

    def _decision(self, state: PetQuartetState) -> Decision | None:
        seat, phase, piles = state.to_act, state.phase, state.piles
        conductors = range(len(piles))
        if phase == pb.PHASE_TURN:
            takes = [take_option(i, piles[i]) for i in conductors if can_take(state, i)]
            if state.final:
                return Decision(seat, "final_turn", (*takes, PASS))
            drawable = state.deck_left > 0 and any(has_room(state, i) for i in conductors)
            return Decision(seat, "turn", (DRAW, *takes) if drawable else tuple(takes))
        if phase == pb.PHASE_PLACE:
            options = tuple(place_option(i, state.drawn, piles[i]) for i in conductors if has_room(state, i))
            return Decision(seat, "place", options)
        if phase == pb.PHASE_IMMEDIATE:
            return Decision(seat, "immediate_take", (take_option(state.active, piles[state.active]), DECLINE))
        if phase == pb.PHASE_RETURN_FROM_PILE:
            numbers = numbers_held(count_cards(piles[state.active]))
            return Decision(seat, "return_from_conductor", tuple(map(return_option, numbers)))
        if phase == pb.PHASE_RETURN_FROM_COLLECTION:
            numbers = numbers_held(state.collections[seat])
            return Decision(seat, "return_collected", tuple(map(return_option, numbers)))
        if phase == pb.PHASE_GIVE:
            to_seat = left_of(seat, state.players)
            numbers = numbers_held(state.collections[seat])
            return Decision(seat, "pass_left", tuple(give_option(n, to_seat) for n in numbers))
        return None

    # -- rules ----------------------------------------------------------------------------

    def _act(self, state: PetQuartetState, option: Option) -> None:
        action = cast(pb.Action, option.action)
        seat, kind = state.to_act, action.kind
        if kind == pb.DRAW:
            self._draw(state, seat)
        elif kind == pb.PLACE:
            self._place(state, seat, action.conductor)
        elif kind == pb.TAKE:
            self._take(state, seat, action.conductor)
        elif kind == pb.PASS:
            state.log.public(seat, "pass", "passes", pb.PlayEvent(seat=seat, kind=pb.PASS, conductor=-1))
            self._end_turn(state, seat)
        elif kind == pb.DECLINE:
            state.log.public(
                seat,
                "decline",
                f"does not take conductor {state.active}",
                pb.PlayEvent(seat=seat, kind=pb.DECLINE, conductor=state.active),
            )
            self._end_turn(state, seat)
        elif kind == pb.RETURN:
            self._return(state, seat, action.card)
        elif kind == pb.GIVE:
            self._give(state, seat, action.card)

    def _draw_card(self, state: PetQuartetState) -> int:
        """The top card of the deck; drawing the last one triggers the end [:218–220]."""
        card = state.deck[state.top]
        state.top += 1
        if state.top == len(state.deck):
            state.final = True
        return card

    def _draw(self, state: PetQuartetState, seat: int) -> None:
        card = self._draw_card(state)
        state.drawn = card
        state.phase = pb.PHASE_PLACE
        state.log.public(
            seat,
            "draw",
            f"draws {a_card(card)}",
            pb.PlayEvent(seat=seat, kind=pb.DRAW, conductor=-1, cards=[card]),
        )
        if state.final:
            self._log_end_trigger(state, seat, -1, card)

    def _log_end_trigger(self, state: PetQuartetState, seat: int, conductor: int, card: int) -> None:
        state.log.public(
            CHANCE_SEAT,
            "last-card",
            "the last card is drawn: final turns follow",
            pb.PlayEvent(seat=seat, kind=pb.DRAW, conductor=conductor, cards=[card]),
        )

    def _place(self, state: PetQuartetState, seat: int, conductor: int) -> None:
        card, pile = state.drawn, state.piles[conductor]
        pile.append(card)
        state.drawn = 0
        state.log.public(
            seat,
            "place",
            f"places the {card} beneath conductor {conductor} ({cards_text(pile)})",
            pb.PlayEvent(seat=seat, kind=pb.PLACE, conductor=conductor, cards=[card]),
        )
        if state.maestros[conductor] == pb.IMMEDIATE_TAKE:
            state.active = conductor
            state.phase = pb.PHASE_IMMEDIATE
        else:
            self._end_turn(state, seat)

    def _take(self, state: PetQuartetState, seat: int, conductor: int) -> None:
        pile = state.piles[conductor]
        state.taken_by[conductor] = seat
        state.in_round[seat] = False
        state.active = conductor
        state.log.public(
            seat,
            "take",
            f"takes conductor {conductor} ({cards_text(pile)})",
            pb.PlayEvent(seat=seat, kind=pb.TAKE, conductor=conductor, cards=pile),
        )
        maestro = state.maestros[conductor]
        if maestro == pb.RETURN_COLLECTED and any(state.collections[seat]):
            state.phase = pb.PHASE_RETURN_FROM_COLLECTION
        elif maestro == pb.RETURN_FROM_CONDUCTOR:
            state.phase = pb.PHASE_RETURN_FROM_PILE
        else:
            self._collect(state, seat)

    def _return(self, state: PetQuartetState, seat: int, number: int) -> None:
        if state.phase == pb.PHASE_RETURN_FROM_PILE:
            state.piles[state.active].remove(number)
            source = f"from conductor {state.active}"
        else:
            state.collections[seat][number] -= 1
            source = "from the collection"
        state.returned[number] += 1
        state.log.public(
            seat,
            "return",
            f"returns {a_card(number)} {source} to the box",
            pb.PlayEvent(seat=seat, kind=pb.RETURN, conductor=state.active, cards=[number]),
        )
        self._collect(state, seat)

    def _collect(self, state: PetQuartetState, seat: int) -> None:
        """Collect the taken Conductor's cards, then its after-take Maestro effects."""
        conductor = state.active
        collection = state.collections[seat]
        for card in state.piles[conductor]:
            collection[card] += 1
        state.piles[conductor] = []
        maestro = state.maestros[conductor]
        if maestro == pb.DRAW_EXTRA_CARD:
            self._extra_card(state, seat)
        if maestro == pb.PASS_LEFT:
            state.phase = pb.PHASE_GIVE
        else:
            self._end_turn(state, seat)

    def _extra_card(self, state: PetQuartetState, seat: int) -> None:
        if not state.deck_left:
            state.log.public(
                seat,
                "extra",
                "draws no extra card: the deck is empty",
                pb.PlayEvent(seat=seat, kind=pb.DRAW, conductor=state.active),
            )
            return
        card = self._draw_card(state)
        state.collections[seat][card] += 1
        state.log.public(
            seat,
            "extra",
            f"draws an extra card: {a_card(card)}",
            pb.PlayEvent(seat=seat, kind=pb.DRAW, conductor=state.active, cards=[card]),
        )
        if state.final:
            self._log_end_trigger(state, seat, state.active, card)

    def _give(self, state: PetQuartetState, seat: int, number: int) -> None:
        to_seat = left_of(seat, state.players)
        state.collections[seat][number] -= 1
        state.collections[to_seat][number] += 1
        state.log.public(
            seat,
            "give",
            f"passes {a_card(number)} to seat {to_seat}",
            pb.PlayEvent(seat=seat, kind=pb.GIVE, conductor=state.active, cards=[number], to_seat=to_seat),
        )
        self._end_turn(state, seat)

    def _end_turn(self, state: PetQuartetState, seat: int) -> None:
        state.active = -1
        state.phase = pb.PHASE_TURN
        players = state.players
        if not any(state.in_round):
            self._end_round(state, seat)
            return
        clockwise = [(seat + k) % players for k in range(1, players + 1)]  # ends with `seat`
        if not state.final:
            state.to_act = next(s for s in clockwise if state.in_round[s])
            return
        if state.final_queue is None:  # the turn that drew the last card has just ended
            state.final_queue = [s for s in clockwise if state.in_round[s]]
        if state.final_queue:
            state.to_act = state.final_queue.pop(0)
        else:
            self._game_over(state)

    def _discard_leftovers(self, state: PetQuartetState) -> None:
        for i, pile in enumerate(state.piles):
            if pile:
                for card in pile:
                    state.discarded[card] += 1
                state.log.public(
                    CHANCE_SEAT,
                    "discard",
                    f"conductor {i}'s cards are discarded ({cards_text(pile)})",
                    pb.PlayEvent(seat=-1, conductor=i, cards=pile),
                )
                state.piles[i] = []

    def _end_round(self, state: PetQuartetState, last: int) -> None:
        self._discard_leftovers(state)  # Duet's third Conductor [:424–438]
        state.log.public(
            CHANCE_SEAT,
            "round-end",
            f"round {state.round} ends",
            pb.PlayEvent(seat=-1, conductor=-1, round=state.round),
        )
        if state.final:
            self._game_over(state)
            return
        state.round += 1
        state.round_start = state.to_act = last
        state.taken_by = [-1] * len(state.piles)
        state.in_round = [True] * state.players
        state.log.public(
            CHANCE_SEAT,
            "round",
            f"round {state.round}: seat {last} starts (took the last Conductor)",
            pb.PlayEvent(seat=-1, conductor=-1, round=state.round, start_seat=last),
        )

    def _game_over(self, state: PetQuartetState) -> None:
        self._discard_leftovers(state)
        state.phase = pb.PHASE_OVER
        scores = [score_counts(c, state.advanced) for c in state.collections]
        text = ", ".join(f"seat {s} {score}" for s, score in enumerate(scores))
        state.log.public(CHANCE_SEAT, "end", f"game over: {text}", pb.PlayEvent(seat=-1, conductor=-1, scores=scores))

    # -- views ----------------------------------------------------------------------------

    def sample_world(self, state: PetQuartetState, seat: int, chance: Chance) -> PetQuartetState:
        """Every card is public once drawn; only the order of the deck left is unknown (its
        composition is public), so it is shuffled again."""
        world = self.copy_for(state, seat, chance)
        world.deck = redealt_deck(state.deck[: state.top], state.deck[state.top :], chance)
        self.refresh(world)
        return world

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> PetQuartetState:
        """The whole table is public: everything is kept but the order of the deck left (its
        composition is ``deck_counts``), which is shuffled. The cards drawn so far come first in
        the deck, in ascending order (their order is never read again)."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        conductors = obs.conductors
        left = [n for n in range(LOWEST, HIGHEST + 1) for _ in range(obs.deck_counts[n])]
        drawn = count_cards(deck_cards(obs.highest_number))
        for n in left:
            drawn[n] -= 1
        world = PetQuartetState(
            config=config,
            chance=chance.fork(),
            advanced=obs.scoring == pb.ADVANCED,
            duet=obs.duet,
            highest=obs.highest_number,
            deck=redealt_deck([n for n in range(COUNTS) for _ in range(drawn[n])], left, chance),
            top=sum(drawn),
            limits=[c.limit for c in conductors],
            maestros=[c.maestro for c in conductors],
            piles=[list(c.cards) for c in conductors],
            taken_by=[c.taken_by for c in conductors],
            collections=[list(c.counts) for c in obs.collections],
            in_round=[c.in_round for c in obs.collections],
            returned=list(obs.returned),
            discarded=list(obs.discarded),
            round=obs.round,
            round_start=obs.round_start_seat,
            to_act=obs.to_act,
            phase=obs.phase,
            drawn=obs.drawn_card,
            active=obs.active_conductor,
            final=obs.final_turns,
            # No queue before the last card is drawn, nor during the turn that drew it (it is
            # made as that turn ends); an empty one would end the game with no final turns.
            final_queue=None if obs.last_card_turn or not obs.final_turns else list(obs.final_queue),
        )
        world.open = self._decision(world) if world.phase != pb.PHASE_OVER else None
        self.refresh(world)
        return world

    def observation(self, state: PetQuartetState, viewer: int) -> pb.Observation:
        deck_counts = count_cards(state.deck[state.top :])
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=viewer == SPECTATOR,
            players=state.players,
            scoring=pb.ADVANCED if state.advanced else pb.STANDARD,
            maestro=bool(state.config["maestro"]),
            duet=state.duet,
            round=state.round,
            round_start_seat=state.round_start,
            to_act=state.to_act,
            phase=state.phase,
            drawn_card=state.drawn,
            conductors=[
                pb.Conductor(cards=pile, limit=limit, maestro=maestro, taken_by=taken)
                for pile, limit, maestro, taken in zip(
                    state.piles, state.limits, state.maestros, state.taken_by, strict=True
                )
            ],
            collections=[
                pb.Collection(counts=c, score=score_counts(c, state.advanced), in_round=in_round)
                for c, in_round in zip(state.collections, state.in_round, strict=True)
            ],
            deck_size=state.deck_left,
            deck_counts=deck_counts,
            final_turns=state.final,
            final_queue=state.final_queue or [],
            last_card_turn=state.final and state.final_queue is None,
            returned=state.returned,
            discarded=state.discarded,
            highest_number=state.highest,
            active_conductor=state.active,
        )
        if viewer == SPECTATOR:
            obs.deck_order.extend(state.deck[state.top :])
        return obs

    def score(self, state: PetQuartetState) -> Result:
        scores = [score_counts(c, state.advanced) for c in state.collections]
        keys = [standing_key(c, state.advanced) for c in state.collections]
        best = max(keys)
        winners = [s for s, k in enumerate(keys) if k == best]
        summary = f"winner{'s' if len(winners) > 1 else ''}: seat {', '.join(map(str, winners))}"
        return Result.ranked(scores, keys, f"{summary} ({max(scores)} points)")


GAME = PetQuartet()
