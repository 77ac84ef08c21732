"""Three Witches — bidding, then one Lead Witch against a team of two (``shared/rules/threewitches.md``).

Rules as implemented (rulebook line references in brackets):

* Exactly 3 players [:8, :24]. 18 Ingredient cards: 17 of 5 standard suits and the Elixir, its
  own suit [:21, :28-37] (the suit/rank list is designed: ``components.toml``).
* A round [:55-59]: shuffle, deal 6 each [:46, :63]; the Elixir's holder announces it [:71].
* Bid [:69-99]: clockwise from the holder's left, the holder last [:73, :323-324]; ``bid:3``,
  ``bid:4`` or ``pass``. A 4 wins at once [:96-99]; after a 3 every player, the bidder too, has
  one more chance to raise to 4 [:87-90].
* No bid [:103-114]: every player passes 2 cards face-down to the left (the holder must include
  the Elixir) and bidding restarts left of the new holder. After the third pass, a final bidding
  round: the holder must bid if the two others pass, and if the holder then bids 3 the others
  may raise to 4 once [:118-125].
* The winner of the bid is the Lead Witch, the others the Lesser Witches, a team; each Lesser
  discards 1 card face-down; the Lead keeps 6 [:129-140].
* Five tricks [:144-153], all led by the Lead [:301]: the Lead plays one card face-up (it sets the
  lead suit; never the Elixir [:325]) and one face-down [:159-168]; the first Lesser clockwise
  follows suit if able, else plays any card or passes for now [:172-183]; the second must follow
  if able, else plays any card [:187-194]; a first Lesser who passed then plays [:198-202].
  Eyes: after a face-up 2 from the Lead both Lessers play face-down, still following suit
  [:307-315]. Then every card is revealed [:206-210].
* Values [:214-250, :328]: same rank or same suit add, otherwise the higher rank; the Elixir
  doubles its partner. The higher team wins; ties go to the Lead [:254-260].
* One of the Lead's two cards returns to its hand [:264-291]: the Lead chooses secretly when it
  wins (it must keep the Elixir out: the other card returns [:280, :327]); the Lessers choose
  when they win, and may return the Elixir [:291]. The winners take the other 3 cards [:295-299].
* Score [:336-356]: exactly the bid → the Lead +2 Fate; otherwise each Lesser +1. The game ends
  when someone has 5 Fate at the end of a round; all who reach 5 that round share the victory
  [:379-388].

Rulings (``shared/rules/NOTES.md`` §4.22 unless stated):

1. **Cards** (not printed, DATA §13: none found): designed in ``components.toml`` (toad 1-5,
   bat 2 3 5 6, spider 2 4 6, raven 1 3 7, cat 4 7, and the Elixir), with the reasons there.
2. **Bidding after a 3** (:87-90): the other two players, clockwise from the bidder's left, then
   the bidder are each asked once: ``bid:4`` or ``pass`` (players who passed before the 3 too).
3. **Final bidding round** (:118-125): after the third card pass the holder is asked last as
   usual; if the two others passed it is offered ``bid:3`` and ``bid:4`` only; if it bids 3 the
   two others (not the holder again) may raise to 4 once. A 3 from one of the two others
   follows ruling 2.
4. **Card passes** are sealed and simultaneous, split into single picks (NOTES §3): every seat
   picks one card at once, then the seats passing two pick their second at once. The Elixir
   holder's Elixir is passed automatically, so it picks one card only. The exchange happens
   after all picks; each passer and receiver see the cards, the third seat does not.
5. **Discards** are sealed and simultaneous (both Lessers at once). A Lesser may discard any card,
   the Elixir too.
6. **A Lesser Witch may play the Elixir** as an off-suit card (NOTES 5); it is never of the lead
   suit (the Lead cannot lead it).
7. **The team's return choice** ("discuss", :288): the first Lesser Witch clockwise from the Lead
   decides, publicly (NOTES 3 recommends a designated decider). No table talk channel exists:
   the temporary pass is the only signal, as the rules allow (:396-398).
8. **The Lead's secret return** (:276-278): the card left on the table goes face-down into the
   Lead's trick pile at once, so the choice stays secret; the others know the two candidates.
   A forced return (the Elixir was played) is public.
9. **Eyes** (:309-313): the Lessers' face-down cards are hidden from the other players until the
   reveal (a first Lesser who passed does not see its partner's face-down card), and so is the
   void an off-suit face-down card shows: it joins ``void_suits`` at the reveal. A temporary
   pass is public. The referee enforces following suit.
10. **Memory**: every revealed card of the round stays in the observation (``tricks``,
    ``unseen``), and the suits a Lesser showed void in are listed (NOTES §3).
11. **Ranks**: by Fate tokens; players who reached 5 in the final round share first place.
12. **Length**: every round gives out 2 Fate at least, so the game ends within 7 rounds. The 12
    Fate tokens [:22] do not limit it: the supply is treated as unlimited (three players on 4
    Fate hold all 12, and the next round gives out 2 more).
13. **A round's last card**: the Lead ends the round with 1 card in hand (6 - 5 tricks × 2
    played + 5 returned); it is put back with the others at the next deal.
14. **Memory of card passes** (:105-114, ruling 10): the observation lists every card pass of
    the round the seat took part in (``passes``: what it gave its left neighbour and what it got
    from its right one; ``passed``/``received`` repeat the latest). What the seat can know from
    them, and what ``sample_world`` / ``world_from_observation`` keep: the cards it gave at the
    *latest* pass are with its left neighbour (in its hidden places: hand, discard, face-down
    play) until seen, since nobody passes after that pass. A card it gave at an *earlier* pass
    is not pinned: at the next pass the left neighbour passed 2 cards of its choice to the right
    neighbour, unseen by the seat, so the card is with either of the two others (the right
    neighbour may keep it, or hand it back to the seat at the pass after, which the seat sees
    in ``received``). Counting gives nothing more: any split of the unseen cards between the
    two others fits some choice of their unseen passes. The pass between the two others is
    never known to the seat; worlds leave it empty (it changes no rule once made). The Elixir
    is pinned to its announced holder as before. (Version 3: before it, the observation kept
    the latest pass only.)

Chance labels: ``"deck"`` (one shuffle of the 18 cards per round; seat s is dealt cards
6s..6s+5 of the order).

Decision kinds and option ids: see ``proto/arena/games/v1/threewitches.proto`` and
``arena rules threewitches``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result
from arena.games.threewitches.cards import (
    BY_ID,
    DECK,
    ELIXIR,
    EYES,
    FATE_TO_WIN,
    HAND_SIZE,
    LEAD_SUCCESS,
    LESSER_FAILURE,
    MAX_CARD_PASSES,
    PB_CARDS,
    SUITS,
    TRICKS,
    Card,
    combine,
    sort_cards,
)
from arena.games.v1 import threewitches_pb2 as pb

PLAYERS = 3


class Play(NamedTuple):
    seat: int
    card: Card
    face_down: bool


@dataclass
class TrickRecord:
    """A finished trick: its four plays (Lead up, Lead down, Lessers in play order)."""

    number: int
    plays: list[Play]
    lead_value: int
    lesser_value: int
    lead_won: bool
    returned: Card | None = None
    secret: bool = False
    decider: int = -1

    @property
    def lead_cards(self) -> tuple[Card, Card]:
        return self.plays[0].card, self.plays[1].card


@dataclass
class ThreeWitchesState(MatchState):
    fate: list[int] = field(default_factory=lambda: [0] * PLAYERS)
    round: int = 0
    phase: pb.Phase.ValueType = pb.BIDDING
    hands: list[list[Card]] = field(default_factory=list)
    # bidding
    holder: int = 0  # the Elixir's holder (bidding order ends with them)
    card_passes: int = 0
    bid_queue: list[int] = field(default_factory=list)
    high_bid: int = 0
    high_bidder: int = -1
    bids: list[tuple[int, int]] = field(default_factory=list)  # this bidding round: (seat, 0/3/4)
    # card passing
    picks: list[list[Card]] = field(default_factory=list)
    # this round's card passes, oldest first: passes[k][s] = the cards seat s passed to its left
    # at pass k + 1 (sorted); [] where unknown (a world's pass between the viewer's two others)
    passes: list[list[list[Card]]] = field(default_factory=list)
    # brewing
    lead: int = -1
    bid: int = 0
    discards: list[Card | None] = field(default_factory=list)
    trick: int = 0
    current: list[Play] = field(default_factory=list)
    waiting: bool = False  # the first Lesser passed for now
    eyes: bool = False
    tricks: list[TrickRecord] = field(default_factory=list)
    lead_pile: list[Card] = field(default_factory=list)
    lesser_pile: list[Card] = field(default_factory=list)
    voids: list[list[str]] = field(default_factory=list)  # per seat, in suit order
    over: bool = False

    @property
    def lessers(self) -> tuple[int, int]:
        """The Lesser Witches in play order (clockwise from the Lead)."""
        return (self.lead + 1) % PLAYERS, (self.lead + 2) % PLAYERS

    @property
    def lead_suit(self) -> str:
        return self.current[0].card.suit if self.current else ""

    @property
    def lead_tricks(self) -> int:
        return sum(t.lead_won for t in self.tricks)

    def pass_count(self, seat: int) -> int:
        """Cards a seat picks to pass (the holder's Elixir goes automatically)."""
        return 1 if seat == self.holder else 2


# --------------------------------------------------------------------------------------------
# Options (built once)


def _card_option(card: Card, what: str) -> Option:
    return Option(f"card:{card.id}", f"{what} {card}", pb.Action(kind=pb.CARD, card=PB_CARDS[card]))


_VERBS = {
    "pass-cards": "pass",
    "discard": "discard",
    "lead-up": "play face-up",
    "lead-down": "play face-down",
    "follow": "play",
    "return": "return",
}
_CARD_OPTIONS = {(kind, card): _card_option(card, verb) for kind, verb in _VERBS.items() for card in DECK}
_BID_OPTIONS = {
    3: Option("bid:3", "bid 3 tricks", pb.Action(kind=pb.BID, bid=3)),
    4: Option("bid:4", "bid 4 tricks", pb.Action(kind=pb.BID, bid=4)),
}
_PASS_BID = Option("pass", "pass", pb.Action(kind=pb.PASS))
_PASS_FOLLOW = Option("pass", "pass for now (void in the lead suit): play after your partner", pb.Action(kind=pb.PASS))


def card_of(option: Option) -> Card:
    return BY_ID[option.id.removeprefix("card:")]


def _cards(kind: str, cards: Iterable[Card]) -> tuple[Option, ...]:
    return tuple(_CARD_OPTIONS[kind, card] for card in sort_cards(cards))


def following(hand: Sequence[Card], lead_suit: str) -> list[Card]:
    """The cards a Lesser Witch may play: the lead suit if it has any, else any card."""
    suited = [card for card in hand if card.suit == lead_suit]
    return suited or list(hand)


def _detail(**fields: object) -> pb.Detail:
    return pb.Detail(**fields)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# The game


class ThreeWitches(Game[ThreeWitchesState]):
    meta = GameMeta(
        id="threewitches",
        name="Three Witches",
        min_players=3,
        max_players=3,
        version="3.1",  # 3.1: event texts name seats and read as English, not Python lists
        hidden_information=True,
        simultaneous=True,
        summary="Bid 3 or 4 tricks, then win exactly that many as the Lead Witch against a team of two; "
        "first to 5 Fate tokens.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> ThreeWitchesState:
        state = ThreeWitchesState(config=config, chance=chance)
        self._deal(state)
        return state

    # -- decisions ----------------------------------------------------------------------------

    def decisions(self, state: ThreeWitchesState) -> Iterable[Decision]:
        phase = state.phase
        if phase == pb.BIDDING:
            return (Decision(state.bid_queue[0], "bid", self._bid_options(state)),)
        if phase == pb.PASSING:
            return tuple(
                Decision(seat, "pass-cards", _cards("pass-cards", self._passable(state, seat)))
                for seat in range(PLAYERS)
                if len(state.picks[seat]) < state.pass_count(seat)
            )
        if phase == pb.DISCARDING:
            return tuple(
                Decision(seat, "discard", _cards("discard", state.hands[seat]))
                for seat in state.lessers
                if state.discards[seat] is None
            )
        if phase == pb.BREWING:
            return (self._brew_decision(state),)
        if phase == pb.RETURNING:
            trick = state.tricks[-1]
            return (Decision(trick.decider, "return", _cards("return", trick.lead_cards)),)
        return ()

    def _bid_options(self, state: ThreeWitchesState) -> tuple[Option, ...]:
        if state.high_bid == 3:
            return (_BID_OPTIONS[4], _PASS_BID)
        seat = state.bid_queue[0]
        forced = state.card_passes == MAX_CARD_PASSES and seat == state.holder
        return (_BID_OPTIONS[3], _BID_OPTIONS[4]) if forced else (_BID_OPTIONS[3], _BID_OPTIONS[4], _PASS_BID)

    @staticmethod
    def _passable(state: ThreeWitchesState, seat: int) -> list[Card]:
        return [c for c in state.hands[seat] if c not in state.picks[seat] and not c.is_elixir]

    def _brew_decision(self, state: ThreeWitchesState) -> Decision:
        hand = state.hands[state.lead]
        played = len(state.current)
        if played == 0:
            return Decision(state.lead, "lead-up", _cards("lead-up", [c for c in hand if not c.is_elixir]))
        if played == 1:
            return Decision(state.lead, "lead-down", _cards("lead-down", hand))
        first, second = state.lessers
        if played == 2 and not state.waiting:
            options = _cards("follow", following(state.hands[first], state.lead_suit))
            void = not any(c.suit == state.lead_suit for c in state.hands[first])
            return Decision(first, "follow", (*options, _PASS_FOLLOW) if void else options)
        seat = first if played == 3 and state.waiting else second
        return Decision(seat, "follow", _cards("follow", following(state.hands[seat], state.lead_suit)))

    # -- transitions --------------------------------------------------------------------------

    def resolve(self, state: ThreeWitchesState, chosen: Mapping[int, Option]) -> None:
        phase = state.phase
        if phase == pb.BIDDING:
            self._bid(state, chosen)
        elif phase == pb.PASSING:
            for seat in sorted(chosen):
                state.picks[seat].append(card_of(chosen[seat]))
            if all(len(state.picks[s]) == state.pass_count(s) for s in range(PLAYERS)):
                self._exchange(state)
        elif phase == pb.DISCARDING:
            for seat in sorted(chosen):
                card = card_of(chosen[seat])
                state.hands[seat].remove(card)
                state.discards[seat] = card
                state.log.private(
                    [seat], seat, "discard", f"discards {card} face-down", _detail(seat=seat, card=PB_CARDS[card])
                )
                state.log.public(seat, "discard", "discards a card face-down", _detail(seat=seat))
            if all(state.discards[s] is not None for s in state.lessers):
                state.phase = pb.BREWING
                self._start_trick(state)
        elif phase == pb.BREWING:
            ((seat, option),) = chosen.items()
            self._play(state, seat, option)
        elif phase == pb.RETURNING:
            ((seat, option),) = chosen.items()
            self._return(state, card_of(option))

    def _bid(self, state: ThreeWitchesState, chosen: Mapping[int, Option]) -> None:
        seat = state.bid_queue.pop(0)
        option = chosen[seat]
        value = 0 if option.id == "pass" else int(option.id.removeprefix("bid:"))
        state.bids.append((seat, value))
        said = "passes" if value == 0 else f"bids {value}"
        state.log.public(seat, "bid", said, _detail(seat=seat, bid=value))
        if value == 4:
            self._lead_witch(state, seat, 4)
            return
        if value == 3:
            state.high_bid, state.high_bidder = 3, seat
            final_forced = state.card_passes == MAX_CARD_PASSES and seat == state.holder and not state.bid_queue
            after = [(seat + 1) % PLAYERS, (seat + 2) % PLAYERS]
            state.bid_queue = after if final_forced else [*after, seat]  # rulings 2 and 3
            return
        if state.bid_queue:
            return
        if state.high_bid == 3:
            self._lead_witch(state, state.high_bidder, 3)
        else:
            state.phase = pb.PASSING  # the final round never gets here: the holder must bid
            state.picks = [[] for _ in range(PLAYERS)]

    def _exchange(self, state: ThreeWitchesState) -> None:
        """Every seat passes its picks (and the Elixir, from the holder) to its left."""
        outgoing = [list(state.picks[s]) + ([ELIXIR] if s == state.holder else []) for s in range(PLAYERS)]
        for seat, cards in enumerate(outgoing):
            for card in cards:
                state.hands[seat].remove(card)
        state.passes.append([sort_cards(cards) for cards in outgoing])
        for seat, cards in enumerate(outgoing):
            left = (seat + 1) % PLAYERS
            state.hands[left] = sort_cards(state.hands[left] + cards)
            state.log.public(
                seat,
                "pass-cards",
                f"passes {len(cards)} cards face-down to seat {left}",
                _detail(seat=seat, to_seat=left),
            )
            state.log.private(
                [seat, left],
                seat,
                "cards-passed",
                f"passes {', '.join(map(str, sort_cards(cards)))} to seat {left}",
                _detail(seat=seat, to_seat=left, cards=[PB_CARDS[c] for c in sort_cards(cards)]),
            )
        state.card_passes += 1
        state.holder = (state.holder + 1) % PLAYERS
        state.log.public(
            state.holder, "elixir", f"seat {state.holder} now holds the Elixir", _detail(seat=state.holder)
        )
        self._open_bidding(state)

    def _open_bidding(self, state: ThreeWitchesState) -> None:
        state.phase = pb.BIDDING
        state.bid_queue = [(state.holder + 1) % PLAYERS, (state.holder + 2) % PLAYERS, state.holder]
        state.high_bid, state.high_bidder, state.bids, state.picks = 0, -1, [], []

    def _lead_witch(self, state: ThreeWitchesState, seat: int, bid: int) -> None:
        state.lead, state.bid = seat, bid
        state.bid_queue = []
        state.phase = pb.DISCARDING
        state.log.public(seat, "lead-witch", f"is the Lead Witch with a bid of {bid}", _detail(seat=seat, bid=bid))

    def _start_trick(self, state: ThreeWitchesState) -> None:
        state.trick += 1
        state.current, state.waiting, state.eyes = [], False, False

    def _play(self, state: ThreeWitchesState, seat: int, option: Option) -> None:
        if option.id == "pass":
            state.waiting = True
            self._add_void(state, seat, state.lead_suit)
            state.log.public(seat, "wait", "has no card of the lead suit and passes for now", _detail(seat=seat))
            return
        card = card_of(option)
        state.hands[seat].remove(card)
        lead_down = seat == state.lead and len(state.current) == 1
        face_down = lead_down or (seat != state.lead and state.eyes)
        if seat != state.lead and card.suit != state.lead_suit and not face_down:
            self._add_void(state, seat, state.lead_suit)  # a face-down (Eyes) card shows it at the reveal
        state.current.append(Play(seat, card, face_down))
        if not state.current[1:]:  # the face-up lead card
            state.eyes = card.rank == EYES
            eyes = " (Eyes: the Lesser Witches play face-down)" if state.eyes else ""
            state.log.public(seat, "play", f"leads {card} face-up{eyes}", _detail(seat=seat, card=PB_CARDS[card]))
        elif face_down:
            state.log.public(seat, "play", "plays a card face-down", _detail(seat=seat, face_down=True))
        else:
            state.log.public(seat, "play", f"plays {card}", _detail(seat=seat, card=PB_CARDS[card]))
        if len(state.current) == 4:
            self._reveal(state)

    @staticmethod
    def _add_void(state: ThreeWitchesState, seat: int, suit: str) -> None:
        if suit not in state.voids[seat]:
            state.voids[seat] = [s for s in SUITS if s in state.voids[seat] or s == suit]

    def _reveal(self, state: ThreeWitchesState) -> None:
        plays = state.current
        for play in plays[2:]:  # the Eyes cards, face-down until now (ruling 9)
            if play.face_down and play.card.suit != state.lead_suit:
                self._add_void(state, play.seat, state.lead_suit)
        lead_value = combine(plays[0].card, plays[1].card)
        lesser_value = combine(plays[2].card, plays[3].card)
        lead_won = lead_value >= lesser_value  # ties go to the Lead [:258-260]
        record = TrickRecord(state.trick, list(plays), lead_value, lesser_value, lead_won)
        state.tricks.append(record)
        winner = "the Lead Witch" if lead_won else "the Lesser Witches"
        state.log.public(
            CHANCE_SEAT,
            "reveal",
            f"trick {state.trick}: {' '.join(str(p.card) for p in plays)}: Lead {lead_value} vs Lessers "
            f"{lesser_value}, {winner} win",
            _detail(
                cards=[PB_CARDS[p.card] for p in plays],
                lead_value=lead_value,
                lesser_value=lesser_value,
                lead_won=lead_won,
            ),
        )
        up, down = record.lead_cards
        if lead_won and ELIXIR in (up, down):
            record.decider = state.lead
            self._return(state, up if down == ELIXIR else down)  # the Elixir stays out [:280]
            return
        record.decider = state.lead if lead_won else state.lessers[0]  # ruling 7
        record.secret = lead_won
        state.phase = pb.RETURNING

    def _return(self, state: ThreeWitchesState, card: Card) -> None:
        record = state.tricks[-1]
        record.returned = card
        state.hands[state.lead] = sort_cards([*state.hands[state.lead], card])
        rest = [p.card for p in record.plays]
        rest.remove(card)
        (state.lead_pile if record.lead_won else state.lesser_pile).extend(rest)
        seat = record.decider
        if record.secret:
            state.log.public(
                seat, "return", "takes one of its two cards back, secretly", _detail(seat=seat, secret=True)
            )
            state.log.private(
                [seat], seat, "return", f"takes {card} back", _detail(seat=seat, card=PB_CARDS[card], secret=True)
            )
        else:
            state.log.public(
                seat, "return", f"{card} goes back to the Lead Witch's hand", _detail(seat=seat, card=PB_CARDS[card])
            )
        state.current = []
        if state.trick < TRICKS:
            state.phase = pb.BREWING
            self._start_trick(state)
        else:
            self._score(state)

    def _score(self, state: ThreeWitchesState) -> None:
        made = state.lead_tricks == state.bid
        if made:
            state.fate[state.lead] += LEAD_SUCCESS
            text = f"the Lead Witch won exactly {state.bid}: +{LEAD_SUCCESS} Fate"
        else:
            for seat in state.lessers:
                state.fate[seat] += LESSER_FAILURE
            text = f"the Lead Witch won {state.lead_tricks}, not {state.bid}: each Lesser Witch +{LESSER_FAILURE} Fate"
        state.log.public(
            state.lead,
            "score",
            text,
            _detail(seat=state.lead, bid=state.bid, lead_tricks=state.lead_tricks, fate=state.fate),
        )
        if max(state.fate) >= FATE_TO_WIN:
            state.over = True
            state.phase = pb.OVER
            text = "game over: Fate " + ", ".join(f"seat {s} {v}" for s, v in enumerate(state.fate))
            state.log.public(CHANCE_SEAT, "end", text, _detail(fate=state.fate))
            return
        self._deal(state)

    def _deal(self, state: ThreeWitchesState) -> None:
        state.round += 1
        deck = state.chance.shuffled(DECK, "deck")
        state.hands = [sort_cards(deck[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(PLAYERS)]
        state.holder = next(s for s in range(PLAYERS) if ELIXIR in state.hands[s])
        state.card_passes, state.lead, state.bid, state.trick = 0, -1, 0, 0
        state.passes = []
        state.discards = [None] * PLAYERS
        state.voids = [[] for _ in range(PLAYERS)]
        state.tricks, state.lead_pile, state.lesser_pile, state.current = [], [], [], []
        state.log.public(
            CHANCE_SEAT, "round", f"round {state.round}: 6 cards dealt to each player", _detail(round=state.round)
        )
        for seat, hand in enumerate(state.hands):
            state.log.private(
                [seat],
                seat,
                "deal",
                "is dealt " + ", ".join(map(str, hand)),
                _detail(round=state.round, cards=[PB_CARDS[c] for c in hand]),
            )
        state.log.public(state.holder, "elixir", f"seat {state.holder} holds the Elixir", _detail(seat=state.holder))
        self._open_bidding(state)

    # -- views --------------------------------------------------------------------------------

    def observation(self, state: ThreeWitchesState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        pending = state.pending
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=PLAYERS,
            phase=state.phase,
            round=state.round,
            seats=[
                pb.SeatView(
                    fate=state.fate[s],
                    hand_size=len(state.hands[s]),
                    discarded=state.discards[s] is not None,
                    void_suits=state.voids[s],
                    tricks=self._side_tricks(state, s),
                )
                for s in range(PLAYERS)
            ],
            hand=[] if spectator else [PB_CARDS[c] for c in state.hands[viewer]],
            elixir_holder=state.holder,
            card_passes=state.card_passes,
            final_bidding=state.card_passes == MAX_CARD_PASSES,
            high_bid=state.high_bid,
            high_bidder=state.high_bidder,
            bids=[pb.BidView(seat=s, bid=b) for s, b in state.bids],
            lead=state.lead,
            bid=state.bid,
            trick=state.trick,
            eyes=state.eyes,
            lead_suit=state.lead_suit if state.phase == pb.BREWING else "",
            current=[self._play_view(p, viewer) for p in (state.current if state.phase == pb.BREWING else [])],
            waiting=state.waiting,
            tricks=[self._trick_view(t, viewer) for t in state.tricks],
            turn=min((d.seat for d in pending), default=0),
        )
        if not spectator:
            left, right = (viewer + 1) % PLAYERS, (viewer - 1) % PLAYERS
            for number, passed in enumerate(state.passes, 1):
                obs.passes.add(
                    number=number,
                    to_seat=left,
                    gave=[PB_CARDS[c] for c in passed[viewer]],
                    from_seat=right,
                    received=[PB_CARDS[c] for c in passed[right]],
                )
            if state.passes:
                obs.passed.extend(obs.passes[-1].gave)
                obs.received.extend(obs.passes[-1].received)
            own = state.discards[viewer]
            if own is not None:
                obs.discard.CopyFrom(PB_CARDS[own])
            obs.unseen.extend(PB_CARDS[c] for c in unseen(state, viewer))
            if state.phase == pb.PASSING:
                obs.picks.extend(PB_CARDS[c] for c in state.picks[viewer])
            if viewer == state.lead:
                obs.secret_return.extend(PB_CARDS[t.returned] for t in state.tricks if t.secret and t.returned)
        else:
            obs.hands.extend(pb.Hand(cards=[PB_CARDS[c] for c in hand]) for hand in state.hands)
            obs.discards.extend(PB_CARDS[c] if c else pb.Card() for c in state.discards)
        return obs

    @staticmethod
    def _side_tricks(state: ThreeWitchesState, seat: int) -> int:
        if state.lead < 0:
            return 0
        won = state.lead_tricks
        return won if seat == state.lead else len(state.tricks) - won

    @staticmethod
    def _play_view(play: Play, viewer: int) -> pb.Play:
        hidden = play.face_down and viewer not in (play.seat, SPECTATOR)
        view = pb.Play(seat=play.seat, face_down=play.face_down, hidden=hidden)
        if not hidden:
            view.card.CopyFrom(PB_CARDS[play.card])
        return view

    @staticmethod
    def _trick_view(trick: TrickRecord, viewer: int) -> pb.Trick:
        view = pb.Trick(
            number=trick.number,
            plays=[pb.Play(seat=p.seat, card=PB_CARDS[p.card], face_down=p.face_down) for p in trick.plays],
            lead_value=trick.lead_value,
            lesser_value=trick.lesser_value,
            lead_won=trick.lead_won,
            return_secret=trick.secret,
        )
        if trick.returned is not None and (not trick.secret or viewer in (trick.decider, SPECTATOR)):
            view.returned.CopyFrom(PB_CARDS[trick.returned])
        if trick.secret:
            view.candidates.extend(PB_CARDS[c] for c in trick.lead_cards)
        return view

    def score(self, state: ThreeWitchesState) -> Result:
        fate = state.fate
        winners = [s for s in range(PLAYERS) if fate[s] == max(fate)]
        names = ", ".join(f"seat {s}" for s in winners)
        return Result.ranked(
            fate, fate, f"{'winners' if len(winners) > 1 else 'winner'}: {names} with {max(fate)} Fate"
        )

    # -- determinization ----------------------------------------------------------------------

    def sample_world(self, state: ThreeWitchesState, seat: int, chance: Chance) -> ThreeWitchesState:
        from arena.games.threewitches.worlds import sample_world

        return sample_world(self, state, seat, chance)

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> ThreeWitchesState:
        """A world from the observation alone: the public round, the seat's own cards, passes,
        discard and picks are kept; the hidden places (other hands, discards, face-down plays,
        a secret return's card, the others' picks) are re-dealt as in :meth:`sample_world`.
        Nothing the seat knows is missing; the pass between the two other seats, which it never
        saw, is left empty (it never matters once made)."""
        from arena.games.threewitches.worlds import world_from_observation

        return world_from_observation(self, config, seat, observation, chance)


def seen(state: ThreeWitchesState, viewer: int) -> set[Card]:
    """Cards whose whereabouts the viewer knows this round (its own, and every revealed card)."""
    known = set(state.hands[viewer])
    own = state.discards[viewer]
    if own is not None:
        known.add(own)
    for trick in state.tricks:
        known.update(p.card for p in trick.plays)
    for play in state.current if state.phase == pb.BREWING else ():
        if not play.face_down or play.seat == viewer:
            known.add(play.card)
    return known


def unseen(state: ThreeWitchesState, viewer: int) -> list[Card]:
    known = seen(state, viewer)
    return [card for card in DECK if card not in known]


GAME = ThreeWitches()
