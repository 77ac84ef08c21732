"""SLAMBO! — keep the shared balance total in range, 2–4 players (``shared/rules/slambo.md``).

Rules as implemented (rulebook line references in brackets; the page holds two versions of the
same rules, the second one an "earlier revision" from :104 on):

* Components [:85–90]: 17 number cards (9 blue, 8 red), 6 special cards, 9 shame cards. Card
  values are designed (``components.toml``): blue 1, 1, 2, 3, 4, 5, 6, 7, 8; red 1, 2, 3, 4,
  5, 6, 7, 7; specials ±1, ±2, ±3 and three copy cards.
* Setup [:14–21]: 1 shame card in the middle, the other 8 in the supply. 2 players: the 17
  number cards, 6 each; 3–4 players: the special cards are shuffled in (23 cards), 5 each
  [:18, :58]; the rest lie face down, unused. A random player goes first [:21].
* Turn [:24–32]: play one card; blue raises the total, red lowers it [:29–31]. The total starts
  at 5 each bout [:27].
* SLAMBO! [:34–38]: a total above 10 or below 0 loses the bout at once; the loser takes every
  shame card in the middle.
* Break [:40–45]: every hand empty and no SLAMBO: one shame card is added to the middle.
* Again [:47–51]: the loser of the last bout goes first; after a Break, the player who went
  second in it goes first.
* Win [:53–61]: a player with 3 or more shame cards at the end of a bout loses; every other
  player wins (2 players: the other one; 3–4 players: all others share the victory).
* Special cards [:63–68] (3–4 players): after the total is adjusted, the turn order reverses;
  players without cards are skipped. A ± card's player chooses its sign; a copy card repeats
  the amount the last card played added (a copied copy repeats what it added).
* Expert Match [:70–75] (option ``expert``): SLAMBO below 1 or above 9 instead.

Rulings (``shared/rules/NOTES.md`` §4.20 unless stated):

1. **Setup table rows swapped** [:7–13]: 2 players = 17 number cards, hand 6 (5 left face
   down); 3–4 players = 23 cards, hand 5 (3p: 8 left, 4p: 3 left).
2. **Shame refill**: at the start of every bout, if the middle is empty, 1 shame card comes
   from the supply. So the first bout is worth 1, a bout after a loss 1, after k Breaks k + 1.
3. **Every bout is a fresh deal**: all cards of this player count are shuffled and dealt
   again (chance label ``"deck"``); the total returns to 5 and the turn order to clockwise
   (increasing seat numbers).
4. **Break** = every player's hand is empty and no SLAMBO happened (all cards dealt are played).
5. **First player after a Break** [:51]: literally "the player who went second" in that bout
   (the seat of its second play; with 2 players simply the other player; in 3–4 players, if
   the bout's first card was a special, the player counter-clockwise from the first). This
   departs from NOTES §4.20 #5 ("the player after the previous first player") on purpose: the
   rulebook names who played second, and after a reversing first card that is not the next
   seat clockwise.
6. **Calling "SLAMBO!" is automatic** [:35–37]: the referee checks the total after every play;
   no one has to notice or shout, so there is no decision and no speed element. "Shouting the
   new total" [:32] is the public ``play`` event, which carries the new total.
7. **No pass** [:25, :65]: a player with cards must play one, even when every card in hand
   breaks the range (that player then loses the bout). Players without cards are skipped
   (they can only be without cards in 3–4 players, where hands empty unevenly after reversals).
8. **Copy semantics** [:68]: a copy adds the *signed amount* the top card of the pile added
   (a ± card's chosen sign, a copy's own copied amount). On the start card (the first play of
   a bout) a copy adds 0, since the start card carries no number. Every special reverses the
   turn order, a copy included (it is a special card).
9. **Shame supply** (not covered by the text; needed for a bounded game): the supply is the
   physical 9 cards. If a Break must add a shame card and the supply is empty, the match ends
   at once: fewest shame cards wins, equal counts share the placing. Every bout after the
   first takes exactly one card from the supply (the Break's card or the next bout's refill),
   so a match has at most 9 bouts: at most 9 × 12 plays with 2 players, 9 × 20 with 4.
10. **3–4 player end** [:57–61]: shame changes only when a bout is lost, so "immediately" and
    "at the end of a bout" coincide; exactly one player loses, all others share rank 1.
11. **Identical cards** (two blue 1s, two red 7s) give one option: which copy is played does
    not matter.
12. **Deal**: after the shuffle seat s receives cards ``h·s … h·s + h − 1`` of the order (h =
    hand size); the rest are the face-down leftovers. Hands are shown sorted.

Scores: the negated number of shame cards held (0 is best); ranks as in rulings 9–10.

Chance labels, in draw order: ``"start"`` (pick of the first player of bout 1, items are the
seats), then one ``"deck"`` shuffle per bout (items are :class:`Card`, in the order of
:func:`Deck.cards`).

Designed data (``components.toml``), checked with ``bench/design_slambo.py`` (heuristic
self-play; 600 matches 2p, 400 at 3-4p):

* Number cards: blue 1-8 + a second blue 1, red 1-7 + a second red 7 (sums 37 and 35: the total
  barely drifts). Every one of the 56 possible duplicate pairs plays alike (breaks 13-29% of
  bouts, 9.6-10.7 plays of 12 per bout, the bout's first player loses 56-64%); this pair has
  the most balanced sums. 2p figures: 26% of bouts end in a Break, 10.5 plays per bout, 4.1
  bouts per match; the match's first player wins 46.7%; the first player of a bout loses 62%
  of decided bouts (the second player moves last with more information; the rules give the
  loser the first move of the next bout).
* Specials: ±1, ±2, ±3 and three copies (NOTES 2's assumption). 3p: 16% Breaks, 11.5 plays per
  bout, match starter wins 63.7% (equal share 66.7%); 4p: 9% Breaks, 13.6 plays, 74.0% (75%).
  The heuristic plays a special in 42% of the turns it holds one (never always right). Other
  mixes (±2,3,4; ±1,1,1; ±3,3,3; four ± and 2 copies; 2 ± and 4 copies; six ± ; six copies)
  differ little, except that many copies shorten bouts and no copy raises the first player's
  disadvantage.
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
from arena.games.v1 import slambo_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))
_SETUP = _DATA["setup"]
START_TOTAL: int = _SETUP["start_total"]
RANGE: tuple[int, int] = (_SETUP["range"][0], _SETUP["range"][1])
EXPERT_RANGE: tuple[int, int] = (_SETUP["expert_range"][0], _SETUP["expert_range"][1])
SHAME_CARDS: int = _SETUP["shame_cards"]
LOSE_AT: int = _SETUP["lose_at"]
BLUE, RED, PLUS_MINUS, COPY = pb.BLUE, pb.RED, pb.PLUS_MINUS, pb.COPY
_NAMES: dict[int, str] = {BLUE: "blue", RED: "red", PLUS_MINUS: "pm", COPY: "copy"}


class Card(NamedTuple):
    colour: int  # a proto Colour value
    value: int  # printed magnitude (0 for a copy card)

    @property
    def token(self) -> str:
        """The id used in options: ``blue4``, ``red7``, ``pm2``, ``copy``."""
        return "copy" if self.colour == COPY else f"{_NAMES[self.colour]}{self.value}"

    @property
    def special(self) -> bool:
        return self.colour in (PLUS_MINUS, COPY)

    def __str__(self) -> str:
        if self.colour == BLUE:
            return f"blue +{self.value}"
        if self.colour == RED:
            return f"red -{self.value}"
        if self.colour == PLUS_MINUS:
            return f"special ±{self.value}"
        return "special copy"


class Played(NamedTuple):
    seat: int
    card: Card
    delta: int
    total: int


@dataclass(frozen=True)
class Deck:
    """The card values of an edition (the arena edition is in ``components.toml``)."""

    blue: tuple[int, ...]
    red: tuple[int, ...]
    plus_minus: tuple[int, ...]
    copies: int
    hand_2: int = 6
    hand_34: int = 5

    def cards(self, players: int) -> list[Card]:
        """This player count's cards in canonical order (what the ``"deck"`` shuffle receives)."""
        cards = [Card(BLUE, v) for v in self.blue] + [Card(RED, v) for v in self.red]
        if players >= 3:  # rules :18, :58
            cards += [Card(PLUS_MINUS, v) for v in self.plus_minus] + [Card(COPY, 0)] * self.copies
        return cards

    def hand_size(self, players: int) -> int:
        return self.hand_2 if players == 2 else self.hand_34


ARENA_DECK = Deck(
    blue=tuple(_DATA["number_cards"]["blue"]),
    red=tuple(_DATA["number_cards"]["red"]),
    plus_minus=tuple(_DATA["special_cards"]["plus_minus"]),
    copies=_DATA["special_cards"]["copy"],
    hand_2=_SETUP["hand_2"],
    hand_34=_SETUP["hand_34"],
)


def card_key(card: Card) -> tuple[int, int]:
    return (card.colour, card.value)


def deltas(card: Card, copy_value: int) -> tuple[int, ...]:
    """The signed amounts a card can add: blue +v, red −v, ± both, copy the top card's amount."""
    if card.colour == BLUE:
        return (card.value,)
    if card.colour == RED:
        return (-card.value,)
    if card.colour == PLUS_MINUS:
        return (card.value, -card.value)
    return (copy_value,)


def next_seat(hand_sizes: Sequence[int], seat: int, direction: int) -> int:
    """The next seat in ``direction`` after ``seat`` that holds a card (−1: every hand empty)."""
    players = len(hand_sizes)
    for k in range(1, players + 1):
        candidate = (seat + direction * k) % players
        if hand_sizes[candidate]:
            return candidate
    return -1


def _make_option(card: Card, sign: int) -> Option:
    if card.colour == PLUS_MINUS:
        mark = "+" if sign > 0 else "-"
        oid, label = f"{card.token}{mark}", f"special ±{card.value} as {mark}{card.value}"
    else:
        oid, label = card.token, f"play {card}"
    return Option(oid, label, pb.Action(card=_card_pb(card), sign=sign))


@dataclass
class SlamboState(MatchState):
    cards: list[Card] = field(default_factory=list)  # this player count's cards, canonical order
    hand_size: int = 0
    low: int = RANGE[0]
    high: int = RANGE[1]
    bout: int = 0
    hands: list[list[Card]] = field(default_factory=list)
    leftover: list[Card] = field(default_factory=list)
    plays: list[Played] = field(default_factory=list)  # this bout's pile, bottom first
    total: int = START_TOTAL
    turn: int = 0
    direction: int = 1
    first: int = 0
    shame: list[int] = field(default_factory=list)
    middle: int = 0
    supply: int = SHAME_CARDS
    over: bool = False
    loser: int = -1  # the seat with 3+ shame once over (−1: ended by an empty supply)

    @property
    def copy_value(self) -> int:
        return self.plays[-1].delta if self.plays else 0  # ruling 8: the start card adds 0


class Slambo(Game[SlamboState]):
    meta = GameMeta(
        id="slambo",
        name="SLAMBO!",
        min_players=2,
        max_players=4,
        version="1.1",  # 1.1: event texts name seats and read as English, not Python lists
        options=(OptionSpec("expert", False, "Expert Match: SLAMBO below 1 or above 9 (instead of 0-10)"),),
        variants=(
            Variant("expert", "Expert Match (1-9): the safe range shrinks to 1-9", {"expert": True}),
            Variant("special-cards", "3-4 players: 6 special cards shuffled in, hands of 5", players=(3, 4)),
        ),
        hidden_information=True,
        summary="Play cards onto a shared total starting at 5; whoever pushes it out of 0-10 "
        "takes the shame cards; 3 shame loses.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def __init__(self, deck: Deck = ARENA_DECK) -> None:
        self.deck = deck
        cards = {card for p in (2, 3) for card in deck.cards(p)}
        self._options: dict[Card, tuple[Option, ...]] = {
            card: (
                (_make_option(card, 1), _make_option(card, -1))
                if card.colour == PLUS_MINUS
                else (_make_option(card, 0),)
            )
            for card in sorted(cards, key=card_key)
        }

    # -- set-up -----------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> SlamboState:
        players = config.players
        low, high = EXPERT_RANGE if config.options["expert"] else RANGE
        state = SlamboState(
            config=config,
            chance=chance,
            cards=self.deck.cards(players),
            hand_size=self.deck.hand_size(players),
            low=low,
            high=high,
            shame=[0] * players,
            middle=1,  # rules :15
            supply=SHAME_CARDS - 1,  # rules :16
        )
        first = chance.pick(range(players), "start")  # rules :21
        self._start_bout(state, first)
        return state

    def _start_bout(self, state: SlamboState, first: int) -> None:
        if state.middle == 0:  # ruling 2
            assert state.supply > 0, "a continuing match always has a refill (ruling 9)"
            state.supply -= 1
            state.middle = 1
        state.bout += 1
        order = state.chance.shuffled(state.cards, "deck")
        size = state.hand_size
        state.hands = [sorted(order[s * size : (s + 1) * size], key=card_key) for s in range(state.players)]
        state.leftover = order[state.players * size :]
        state.plays = []
        state.total = START_TOTAL
        state.direction = 1
        state.first = state.turn = first
        state.log.public(
            CHANCE_SEAT,
            "bout",
            f"bout {state.bout}: {size} cards each, {len(state.leftover)} face down; total {START_TOTAL}; "
            f"seat {first} goes first; {state.middle} shame card{'s' * (state.middle > 1)} at stake",
            pb.BoutEvent(bout=state.bout, first=first, middle_shame=state.middle, total=START_TOTAL),
        )
        for seat, hand in enumerate(state.hands):
            state.log.private(
                [seat],
                seat,
                "deal",
                "is dealt " + ", ".join(map(str, hand)),
                pb.DealEvent(bout=state.bout, cards=[_card_pb(c) for c in hand]),
            )

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: SlamboState) -> Iterable[Decision]:
        if state.over:
            return ()
        hand = state.hands[state.turn]
        options: list[Option] = []
        previous = None
        for card in hand:  # sorted: identical cards are adjacent (ruling 11)
            if card != previous:
                options += self._options[card]
                previous = card
        return (Decision(state.turn, "play", tuple(options)),)

    def resolve(self, state: SlamboState, chosen: Mapping[int, Option]) -> None:
        seat = state.turn
        action = chosen[seat].action
        assert isinstance(action, pb.Action)
        card = Card(action.card.colour, action.card.value)
        state.hands[seat].remove(card)
        if card.colour == COPY:
            delta = state.copy_value  # ruling 8
        elif card.colour == PLUS_MINUS:
            delta = card.value if action.sign > 0 else -card.value
        else:
            delta = card.value if card.colour == BLUE else -card.value
        state.total += delta
        play = Played(seat, card, delta, state.total)
        state.plays.append(play)
        slambo = not state.low <= state.total <= state.high
        if card.special:
            state.direction = -state.direction  # rules :64, after adjusting the total
        following = -1 if slambo else next_seat([len(h) for h in state.hands], seat, state.direction)
        text = f"plays {card}" + (f" ({delta:+d})" if card.special else "") + f": {state.total}!"
        if card.special:
            text += " The turn order reverses."
        state.log.public(seat, "play", text, pb.PlayEvent(play=_play_pb(play), reversed=card.special, next=following))
        if slambo:
            self._slambo(state, seat)
        elif following < 0:
            self._break(state)
        else:
            state.turn = following

    # -- rules ------------------------------------------------------------------------------

    def _slambo(self, state: SlamboState, seat: int) -> None:
        taken = state.middle
        state.shame[seat] += taken
        state.middle = 0
        self._bout_end(
            state,
            seat,
            f"SLAMBO! {state.total} is out of {state.low}-{state.high}: seat {seat} loses the bout and takes "
            f"{taken} shame card{'s' * (taken > 1)} ({state.shame[seat]} in all)",
            taken,
        )
        if state.shame[seat] >= LOSE_AT:
            state.loser = seat
            self._end(state)
        else:
            self._start_bout(state, seat)  # rules :50

    def _break(self, state: SlamboState) -> None:
        if state.supply == 0:  # ruling 9
            text = "BREAK! every hand is empty, and the shame supply too: the match ends"
            self._bout_end(state, -1, text, empty=True)
            self._end(state)
            return
        state.supply -= 1
        state.middle += 1
        self._bout_end(state, -1, f"BREAK! every hand is empty: {state.middle} shame cards in the middle")
        self._start_bout(state, state.plays[1].seat)  # ruling 5

    @staticmethod
    def _bout_end(state: SlamboState, loser: int, text: str, taken: int = 0, empty: bool = False) -> None:
        state.log.public(
            CHANCE_SEAT,
            "bout-end",
            text,
            pb.BoutEndEvent(
                bout=state.bout,
                slambo=loser >= 0,
                loser=loser,
                total=state.total,
                shame_taken=taken,
                shame=state.shame,
                middle_shame=state.middle,
                supply=state.supply,
                supply_empty=empty,
            ),
        )

    def _end(self, state: SlamboState) -> None:
        state.over = True
        winners = self.winners(state)
        state.log.public(
            CHANCE_SEAT,
            "end",
            "game over: shame "
            + ", ".join(f"seat {s} {v}" for s, v in enumerate(state.shame))
            + f"; winner{'s' * (len(winners) > 1)}: "
            + ", ".join(f"seat {s}" for s in winners),
            pb.EndEvent(shame=state.shame, winners=winners, loser=state.loser),
        )

    @staticmethod
    def winners(state: SlamboState) -> list[int]:
        if state.loser >= 0:
            return [s for s in range(state.players) if s != state.loser]
        fewest = min(state.shame)
        return [s for s in range(state.players) if state.shame[s] == fewest]

    # -- views ------------------------------------------------------------------------------

    def unseen(self, state: SlamboState, viewer: int) -> list[Card]:
        """Cards the viewer has not seen this bout: other hands and the leftovers."""
        pool = list(state.cards)
        for play in state.plays:
            pool.remove(play.card)
        if viewer != SPECTATOR:
            for card in state.hands[viewer]:
                pool.remove(card)
        return pool

    def observation(self, state: SlamboState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        counts: dict[Card, int] = {}
        for card in self.unseen(state, viewer):
            counts[card] = counts.get(card, 0) + 1
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=state.players,
            expert=bool(state.config.options["expert"]),
            low=state.low,
            high=state.high,
            bout=state.bout,
            total=state.total,
            turn=state.turn,
            direction=state.direction,
            first=state.first,
            plays=[_play_pb(p) for p in state.plays],
            copy_value=state.copy_value,
            hand=[] if spectator else [_card_pb(c) for c in state.hands[viewer]],
            seats=[pb.SeatView(hand_size=len(state.hands[s]), shame=state.shame[s]) for s in range(state.players)],
            middle_shame=state.middle,
            supply=state.supply,
            leftover=len(state.leftover),
            unseen=[
                pb.CardCount(card=_card_pb(card), count=n) for card, n in sorted(counts.items(), key=lambda x: x[0])
            ],
            deck=[_card_pb(c) for c in state.cards],
            over=state.over,
        )
        if spectator:
            obs.hands.extend(pb.Hand(cards=[_card_pb(c) for c in hand]) for hand in state.hands)
            obs.leftover_cards.extend(_card_pb(c) for c in state.leftover)
        return obs

    def score(self, state: SlamboState) -> Result:
        winners = self.winners(state)
        scores = [-s for s in state.shame]
        if state.loser >= 0:  # rules :53-61, ruling 10
            keys = [0 if s == state.loser else 1 for s in range(state.players)]
            how = f"seat {state.loser} has {state.shame[state.loser]} shame cards"
        else:  # ruling 9
            keys = scores
            how = "the shame supply ran out: fewest shame cards win"
        summary = f"{how}; winner{'s' * (len(winners) > 1)}: seat {', '.join(map(str, winners))}"
        return Result.ranked(scores, keys, summary)

    # -- determinization --------------------------------------------------------------------

    def sample_world(self, state: SlamboState, seat: int, chance: Chance) -> SlamboState:
        """A copy of ``state`` in which every card ``seat`` cannot see is dealt anew at random.

        What the seat cannot see: the other hands and the face-down leftovers of this bout.
        Nothing in the public history constrains them (there is no follow rule, and earlier
        bouts were reshuffled), so the unseen cards are shuffled uniformly and dealt back to
        the same hand sizes and leftover count.
        """
        world = self.copy_for(state, seat, chance)
        sizes = [len(hand) for hand in state.hands]
        _deal_unseen(world, seat, sorted(self.unseen(state, seat), key=card_key), sizes, chance)
        world.pending = tuple(self.decisions(world))
        return world

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> SlamboState:
        """Kept: the seat's hand and the public bout (plays, total, direction, turn, shame).
        Drawn as in ``sample_world``: the unseen cards dealt at random to the other hands and
        the leftovers, by their sizes. The seat knows nothing the observation lacks."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        players = config.players
        shame = [view.shame for view in obs.seats]
        world = SlamboState(
            config=config,
            chance=chance.fork(),
            cards=[Card(c.colour, c.value) for c in obs.deck],
            hand_size=self.deck.hand_size(players),
            low=obs.low,
            high=obs.high,
            bout=obs.bout,
            hands=[[Card(c.colour, c.value) for c in obs.hand] if s == seat else [] for s in range(players)],
            plays=[Played(p.seat, Card(p.card.colour, p.card.value), p.delta, p.total) for p in obs.plays],
            total=obs.total,
            turn=obs.turn,
            direction=obs.direction,
            first=obs.first,
            shame=shame,
            middle=obs.middle_shame,
            supply=obs.supply,
            over=obs.over,
            loser=next((s for s in range(players) if shame[s] >= LOSE_AT), -1) if obs.over else -1,
        )
        pool = [Card(u.card.colour, u.card.value) for u in obs.unseen for _ in range(u.count)]
        _deal_unseen(world, seat, pool, [view.hand_size for view in obs.seats], chance)
        self.refresh(world)
        return world


def _deal_unseen(world: SlamboState, seat: int, pool: list[Card], sizes: list[int], chance: Chance) -> None:
    """Deal the cards ``pool`` (sorted) at random to the other seats' hands of ``sizes`` (per
    seat) and the rest to the face-down leftovers."""
    pool = chance.shuffled(pool, "world-deal")
    for other in range(world.players):
        if other != seat:
            world.hands[other] = sorted(pool[: sizes[other]], key=card_key)
            pool = pool[sizes[other] :]
    world.leftover = pool


_CARD_PB: dict[Card, pb.Card] = {}


def _card_pb(card: Card) -> pb.Card:
    """The card's message (cached; protobuf copies it into every field it is put in)."""
    message = _CARD_PB.get(card)
    if message is None:
        message = _CARD_PB[card] = pb.Card(colour=card.colour, value=card.value)  # type: ignore[arg-type]
    return message


def _play_pb(play: Played) -> pb.Play:
    return pb.Play(seat=play.seat, card=_card_pb(play.card), delta=play.delta, total=play.total)


GAME = Slambo()
