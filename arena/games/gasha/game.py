"""Gasha — draw capsule toys blind, trade sets for Set Rewards, pair Tickets for Bonus tokens;
2–6 players (``shared/rules/gasha.md``).

Rules as implemented (rulebook line references in brackets):

* 75 Gasha cards, 15 of each of 5 toys: Magical Girl, Kitsune, Robot, Radish, Sushi [:18–23,
  :31–37]; each back shows the 2 or 3 toys the front may be [:39–41] (designed backs, see
  ``components.toml``). 35 Set Reward cards [:24]: 25 used at 2–4 players, +5 marked for 5
  players, +5 marked for 6 [:72–75] (designed). 15 Bonus tokens [:25]: One More Turn, Two Wild
  Gashas, Three Points [:198–216] (designed mix 5/5/5).
* Setup [:61–97]: shuffle the Gashas, deal 4 to each player, split the rest into 4 face-down
  decks as equal as possible; shuffle the Set Rewards in play and reveal 4; shuffle the Bonus
  tokens and place 5/6/8/10/12 face down (2/3/4/5/6 players) [:85–97]. A random seat starts.
* A turn is ONE action [:105–111]: draw 2 Gasha cards, both from one deck or one from each of
  two decks [:115–127]; or claim one of the face-up Set Rewards [:144–156] by discarding the
  Gashas it requires [:160–168] (specific toys, or N identical ones of any toy; a Wild Gasha
  stands for any toy), then reveal a replacement [:154–156].
* Deck rebuilding [:129–140]: when a deck runs out, the largest deck is split in half to make it
  again (tops never change); when that is no longer possible, the shuffled discard pile makes
  the new deck(s); when even that is impossible, the end is triggered.
* Tickets [:172–192]: two rewards with Ticket halves may be combined: take the next face-down
  Bonus token, reveal it and place it on them (they never make another Ticket). Same-colour
  halves (a Wild half matches any colour) also give one Gasha card from a deck of your choice.
* Bonus tokens [:196–216]: One More Turn (another turn right after this one), Two Wild Gashas
  (spent on future rewards), Three Points (3 points at the end).
* End [:220–228]: taking the last Bonus token, emptying the Set Reward deck, or no longer being
  able to make 4 Gasha decks triggers the end; every other player then has one final turn.
* Score [:232–255]: reward points + 3 per Three Points token + 1 per unused Gasha card in hand
  + 1 per unused Wild Gasha. Ties: most Bonus tokens, then shared [:259–268].

Rulings (``shared/rules/NOTES.md`` §4.6 unless stated):

1. **Components** (NOTES 2): backs, rewards, ticket colours and the token mix are designed
   (``components.toml`` gives the reasons and the self-play figures).
2. **Public backs** (not covered by the text): a card's back is seen on the top of a deck and
   while it is in a hand (the fronts face the owner), so every seat sees the backs of every
   hand. Spent cards go to the discard pile face up: backs and toys are public.
3. **Drawing** (NOTES 3.2): the two cards are drawn one at a time: ``turn`` offers
   ``draw:<deck>`` (the first card), then ``second`` offers every non-empty deck (the same deck
   again too); the player sees the new top (and any rebuild) before choosing. With no card left
   anywhere the second card is not drawn.
4. **Rebuilding** (NOTES 3.1): right after a deck runs out, the largest deck (lowest index on
   ties) gives its bottom ⌊n/2⌋ cards, order kept, to make the empty deck again. When the
   largest deck has fewer than 2 cards, the discard pile (if it holds at least one card per
   empty deck) is shuffled and dealt into the empty deck(s) as evenly as possible (earlier decks
   first). Otherwise 4 decks can no longer be made: the end is triggered and the game goes on
   with the decks that are left. The next time a deck runs out the rebuild is tried again.
5. **Payment** (NOTES 6.3; [:150–151] "Discard the required Gasha cards": the player picks
   them): ``claim:<reward>`` is offered only for a reward the player can pay for; then ``pay``
   lists every payment that differs in what the table sees: the cards spent by toy AND back,
   and the Wild Gashas (``pay:<toy><n>@<back>+...+wild<n>``; per distinct payment by toy, fewest
   wilds first, every split of each toy's count over the backs the hand holds it under). Of one
   back and toy, the cards held longest go: which one leaves is not seen (only its deck cycle
   could differ, and ruling 14 reads the held longest leaving too). Version 3 spent, of a toy,
   the cards held longest: the backs seen leaving then told the toy of older cards kept (a
   Girl/Robot Girl spent before an older Girl/Radish card: that one was a Radish); version 4
   lets the payer choose. The spent cards are shown (event ``claim``) and recorded sorted by
   back, then toy: listed in the hand's order they told which draw held which toy (version 3).
6. **Tickets** (NOTES 3.3): right after a claim, while the player has two or more uncombined
   halves and a face-down token remains, ``ticket`` offers every pair of them and ``skip``. A
   same-colour ticket's card is the ``bonus`` decision (any non-empty deck; none if no card is
   left). A ticket is offered again after each combination and its card.
7. **Wild Gashas** (NOTES 3.4): a Two Wilds token is a count of 2 Wild Gashas; a payment may
   spend 1 now and 1 later; each unused one scores 1.
8. **One More Turn** (NOTES 3.5): the extra turn follows the current one at once, also during the
   final turns and also for the player who triggered the end (it is part of that turn).
9. **End** (NOTES 3.6): the trigger is checked when a deck rebuild fails, when the last token is
   taken and when the reveal after a claim takes the last Set Reward card. The triggering
   player's turn (with its extra turns) ends; then each other player, clockwise, takes one final
   turn; then the game is scored. An empty display slot (no card to reveal) stays empty.
10. **No action** (not covered by the text): a player who can neither draw (every deck empty)
    nor pay for any reward passes (event ``turn`` with ``skipped``). This can only happen after
    the end is triggered (before it, a failed rebuild is the trigger).
11. **Tie-break** (NOTES 3.7): (score, Bonus tokens taken, spent ones included) ranks every
    placing; equal keys share it.
12. **Start player**: a seeded random seat (the text names no rule).
13. **Token option** [:99]: option ``tokens`` = ``random`` (default: the tokens in play are a
    random draw from the 15), ``even`` (chosen: as even a mix of the three kinds as the count
    allows, the remainder to One More Turn, then Two Wilds) or ``T-W-P`` (chosen counts of One
    More Turn, Two Wilds and Three Points, each at most 5, summing to the count in play). Chosen
    tokens are still shuffled face down; their mix is public.
14. **Worlds** (``sample_world``, ``world_from_observation``): a card's deck cycle is public
    when it is drawn (cycle 0: the 75 cards of the setup; cycle k: the k-th shuffle of the
    discard pile, whose make-up was public since every payment shows its cards; which deck a
    card comes from is seen, and a deck's cards always belong to one cycle). When a seat pays,
    which of its cards with a spent card's back left is not seen, so a seat reads the cycles
    from what it knows: each card another seat paid is charged to a cycle from which that hand
    had drawn a card of that back before the payment and which still has such a card the seat
    has not located, over the whole history at once (charges with one possible cycle first, then
    a depth-first search, the cycle with most of the card first, remembering the positions it
    found dead, at most 20,000 steps: random games needed at most 51); of that hand's cards of
    that back and cycle, the one held longest is taken to leave. Its own payments are known
    exactly. Each cycle's unlocated cards are its make-up minus the seat's own draws and the
    charged cards. A world deals, per cycle and back, a uniform choice of these cards to the
    places read as that cycle showing that back (other hands, deck tops), the rest of the cycle
    shuffled below its decks' tops: it depends on nothing the seat has not seen, and keeps no
    record of it. When no charging is found, or the history does not account for the position
    (edited by hand), the cycles are pooled: every hand card and deck is read as of the last
    cycle, which holds all the unseen cards. When another seat is paying, its hand is then made
    to afford the reward (cards of the same back and cycle swapped in). The observation carries
    the reading (``cycles``, ``SeatView.slots``, ``Deck.cycle``), so a world from the
    observation is the world ``sample_world`` builds for the same chance.

Chance labels: ``"gashas"`` (the shuffle of the 75 Gasha cards: the top card first; the deal
takes 4 per seat from seat 0 up, then the rest is cut into decks 0..3, top first), ``"rewards"``
(the shuffle of the Set Rewards in play: the first 4 are revealed into slots 0..3, the rest is the
deck, next first), ``"tokens"`` (the shuffle of the 15 tokens, or of the chosen ones: the first
``in_play`` are the face-down pile, next first), ``"start"`` (pick of the first seat),
``"reshuffle"`` (every shuffle of the discard pile into new decks, in order: top first, cut into
the empty decks in deck order).

Bound: at most 35 claims; every draw action takes at least one card, and at most 75 + 5 × 35
cards can ever be drawn (the deal plus what claims discard), so a match has at most 250 + 35 + 12
(One More Turn) + 5 (passes) turns.
"""

from __future__ import annotations

import functools
import itertools
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import ConfigError, MatchConfig, OptionSpec
from arena.engine import (
    CHANCE_SEAT,
    SPECTATOR,
    Decision,
    Event,
    Game,
    GameMeta,
    MatchState,
    Option,
    Result,
    Variant,
)
from arena.games.v1 import gasha_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

TOYS: tuple[int, ...] = (pb.MAGICAL_GIRL, pb.KITSUNE, pb.ROBOT, pb.RADISH, pb.SUSHI)
TOY_NAMES: dict[int, str] = dict(zip(TOYS, _DATA["toys"]["names"], strict=True))
TOY_LABELS: dict[int, str] = dict(zip(TOYS, _DATA["toys"]["labels"], strict=True))
TOY_BY_NAME: dict[str, int] = {name: toy for toy, name in TOY_NAMES.items()}
PER_TOY = int(_DATA["toys"]["per_toy"])
SLOTS = len(TOYS) + 1  # length of a counts-by-toy list (index 0 unused)
HAND = int(_DATA["setup"]["hand"])
DECKS = int(_DATA["setup"]["decks"])
DISPLAY = int(_DATA["setup"]["display"])
TOKENS_IN_PLAY: dict[int, int] = {int(k): int(v) for k, v in _DATA["tokens"]["in_play"].items()}
BONUSES: tuple[int, ...] = (pb.ONE_MORE_TURN, pb.TWO_WILDS, pb.THREE_POINTS)
TOKEN_MIX: tuple[int, ...] = tuple(int(n) for n in _DATA["tokens"]["mix"])
TOKEN_POINTS = int(_DATA["tokens"]["points"])
TOKEN_WILDS = int(_DATA["tokens"]["wilds"])
BONUS_NAMES: dict[int, str] = {
    pb.ONE_MORE_TURN: "One More Turn",
    pb.TWO_WILDS: "Two Wild Gashas",
    pb.THREE_POINTS: "Three Points",
}
TICKET_BY_NAME: dict[str, int] = {"": pb.TICKET_NONE, "wild": pb.WILD}
TICKET_BY_NAME.update(zip(_DATA["tickets"]["colours"], (pb.PINK, pb.BLUE, pb.YELLOW), strict=True))
TICKET_NAMES = {v: (k or "none") for k, v in TICKET_BY_NAME.items()}


def ring(toy: int, offset: int) -> int:
    """The toy ``offset`` places after ``toy`` on the designed ring of toys (components.toml)."""
    return (toy - 1 + offset) % len(TOYS) + 1


def mask_of(toys: Iterable[int]) -> int:
    """A card back: the bit mask of the toys it shows (bit n for Toy n)."""
    return sum(1 << t for t in set(toys))


def toys_of(back: int) -> tuple[int, ...]:
    return tuple(t for t in TOYS if back >> t & 1)


@functools.cache  # a few dozen backs, named in every payment option
def back_name(back: int) -> str:
    return "/".join(TOY_NAMES[t] for t in toys_of(back))


class Card(NamedTuple):
    back: int  # the toys the back shows (mask)
    toy: int  # the front


def full_gashas() -> list[Card]:
    """The 75 Gasha cards in a fixed order: back family, rotation, toy (ruling 1)."""
    cards: list[Card] = []
    for family in _DATA["backs"]["families"]:
        for x in TOYS:
            toys = [ring(x, offset) for offset in family["toys"]]
            back = mask_of(toys)
            cards += [Card(back, toy) for toy in toys for _ in range(int(family["per_toy"]))]
    return cards


@dataclass(frozen=True)
class Reward:
    """A Set Reward card."""

    id: int
    needs: tuple[int, ...]  # specific toys, counts by toy (all zero for `identical`)
    identical: int  # N > 0: any N identical Gashas
    points: int
    ticket: int  # pb.Ticket value
    players: int  # 2: every count; 5: marked 5 players; 6: marked 6 players
    family: str

    @property
    def cost(self) -> int:
        return self.identical or sum(self.needs)

    def text(self) -> str:
        if self.identical:
            need = f"{self.identical} identical"
        else:
            need = " + ".join(f"{self.needs[t]} {TOY_NAMES[t]}" for t in TOYS if self.needs[t])
        ticket = f", {TICKET_NAMES[self.ticket]} ticket" if self.ticket else ""
        return f"reward {self.id} ({need}: {self.points} points{ticket})"


def _build_rewards() -> tuple[Reward, ...]:
    """The 35 Set Rewards (designed, components.toml), ids 1..35: the four specific families
    used at every count, the identical family, then the 5-player and 6-player families."""
    data = _DATA["rewards"]
    out: list[Reward] = []

    def add(needs: tuple[int, ...], identical: int, points: int, ticket: str, players: int, family: str) -> None:
        ticket_value = TICKET_BY_NAME[ticket]
        out.append(
            Reward(
                len(out) + 1, needs, identical, points - (ticket_value != pb.TICKET_NONE), ticket_value, players, family
            )
        )

    families = sorted(data["families"], key=lambda f: int(f["players"]))
    for family in [f for f in families if int(f["players"]) == 2]:
        for x, ticket in zip(TOYS, family["tickets"], strict=True):
            needs = [0] * SLOTS
            for offset in family["needs"]:
                needs[ring(x, offset)] += 1
            add(tuple(needs), 0, int(family["points"]), ticket, 2, family["name"])
    for card in data["identical"]:
        add((0,) * SLOTS, int(card["n"]), int(card["points"]), card["ticket"], 2, "identical")
    for family in [f for f in families if int(f["players"]) > 2]:
        for x, ticket in zip(TOYS, family["tickets"], strict=True):
            needs = [0] * SLOTS
            for offset in family["needs"]:
                needs[ring(x, offset)] += 1
            add(tuple(needs), 0, int(family["points"]), ticket, int(family["players"]), family["name"])
    return tuple(out)


REWARDS: tuple[Reward, ...] = _build_rewards()
REWARD_BY_ID: dict[int, Reward] = {r.id: r for r in REWARDS}


def rewards_in_play(players: int) -> list[Reward]:
    """The Set Rewards used at this player count [:72–75]."""
    return [r for r in REWARDS if r.players == 2 or players >= r.players]


def counts_of(cards: Iterable[Card]) -> list[int]:
    out = [0] * SLOTS
    for card in cards:
        out[card.toy] += 1
    return out


def can_pay(reward: Reward, hand: Sequence[int], wilds: int) -> bool:
    """Whether a hand (counts by toy) and Wild Gashas pay for the reward [:160–168]."""
    if reward.identical:
        return max(hand[1:]) + wilds >= reward.identical
    missing = 0
    for t in TOYS:
        if reward.needs[t] > hand[t]:
            missing += reward.needs[t] - hand[t]
    return missing <= wilds


def payments(reward: Reward, hand: Sequence[int], wilds: int) -> list[tuple[tuple[int, ...], int]]:
    """Every distinct payment (cards spent by toy, Wild Gashas spent), fewest wilds first."""
    out: list[tuple[tuple[int, ...], int]] = []
    if reward.identical:
        n = reward.identical
        for toy in TOYS:
            for k in range(min(hand[toy], n), max(1, n - wilds) - 1, -1):
                paid = [0] * SLOTS
                paid[toy] = k
                out.append((tuple(paid), n - k))
        if wilds >= n:
            out.append(((0,) * SLOTS, n))
        return sorted(out, key=lambda p: p[1])
    needed = [t for t in TOYS if reward.needs[t]]
    ranges = [range(min(hand[t], reward.needs[t]), -1, -1) for t in needed]
    for combo in itertools.product(*ranges):
        wild = sum(reward.needs[t] - k for t, k in zip(needed, combo, strict=True))
        if wild <= wilds:
            paid = [0] * SLOTS
            for t, k in zip(needed, combo, strict=True):
                paid[t] = k
            out.append((tuple(paid), wild))
    return sorted(out, key=lambda p: p[1])


def payment_token(paid: Sequence[int], wilds: int) -> str:
    parts = [f"{TOY_NAMES[t]}{paid[t]}" for t in TOYS if paid[t]]
    if wilds:
        parts.append(f"wild{wilds}")
    return "+".join(parts)


@functools.lru_cache(maxsize=4096)
def back_splits(count: int, held: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every way to spend ``count`` cards of one toy from the backs ``held`` ((back, cards of it),
    ascending): (back, n) parts with n > 0, the most from the first backs first (kept: a hand's
    splits recur from one payment to the next)."""
    if count == 0:
        return ((),)
    if not held:
        return ()
    (back, n), rest = held[0], held[1:]
    room = sum(m for _, m in rest)
    out: list[tuple[tuple[int, int], ...]] = []
    for k in range(min(n, count), max(0, count - room) - 1, -1):
        head = ((back, k),) if k else ()
        out += [head + tail for tail in back_splits(count - k, rest)]
    return tuple(out)


Parts = tuple[tuple[int, int, int], ...]
"""A payment's cards as (toy, back, how many): toys in order, of a toy its backs ascending."""


def card_payments(reward: Reward, hand: Sequence[Card], wilds: int) -> list[tuple[Parts, int]]:
    """Every payment that differs in what the table sees (ruling 5): for each distinct payment by
    toy (:func:`payments`, fewest wilds first), every split of each toy's count over the backs
    the hand holds it under. A payment is (its parts, wilds)."""
    held: dict[int, dict[int, int]] = {t: {} for t in TOYS}  # toy -> back -> cards
    for c in hand:
        held[c.toy][c.back] = held[c.toy].get(c.back, 0) + 1
    held_of = {t: tuple(sorted(backs.items())) for t, backs in held.items()}
    out: list[tuple[Parts, int]] = []
    for paid, wild in payments(reward, counts_of(hand), wilds):
        ways = [
            [tuple((t, back, n) for back, n in split) for split in back_splits(paid[t], held_of[t])]
            for t in TOYS
            if paid[t]
        ]
        out += [(tuple(itertools.chain.from_iterable(combo)), wild) for combo in itertools.product(*ways)]
    return out


def card_payment_token(parts: Parts, wilds: int) -> str:
    """``<toy><n>@<back>+...``: toys in order, of a toy its backs ascending, then ``wild<n>``."""
    tokens = [f"{TOY_NAMES[toy]}{n}@{back_name(back)}" for toy, back, n in parts]
    if wilds:
        tokens.append(f"wild{wilds}")
    return "+".join(tokens)


# The 50 kinds of card (back, toy), sorted: a make-up or a pool is a count per card_id.
CARD_KINDS: tuple[Card, ...] = tuple(sorted(set(full_gashas())))
CARD_ID: dict[Card, int] = {card: i for i, card in enumerate(CARD_KINDS)}


BACK_OF: tuple[int, ...] = tuple(card.back for card in CARD_KINDS)  # by card_id
IDS_OF_BACK: dict[int, tuple[int, ...]] = {
    back: tuple(i for i, b in enumerate(BACK_OF) if b == back) for back in sorted(set(BACK_OF))
}


def makeup_of(cards: Iterable[Card]) -> tuple[int, ...]:
    """Counts by card_id."""
    counts = [0] * len(CARD_KINDS)
    for card in cards:
        counts[CARD_ID[card]] += 1
    return tuple(counts)


def record(seat: int, card: Card, cycle: int = 0, pay: bool = False) -> int:
    """One entry of ``GashaState.history``: ``seat`` drew ``card`` from deck cycle ``cycle``, or
    paid it (``pay``). Packed in an int (bits: pay 1, seat 3, card_id 6, then the cycle) so the
    history is cheap to copy, compare and hash."""
    return cycle << 10 | CARD_ID[card] << 4 | seat << 1 | pay


def unpack_record(code: int) -> tuple[int, int, int, bool]:
    """(seat, card_id, cycle, pay) of a ``record``."""
    return code >> 1 & 7, code >> 4 & 63, code >> 10, bool(code & 1)


def same_colour(a: int, b: int) -> bool:
    """Two Ticket halves match: the same colour, or either is Wild [:188–192]."""
    return a == b or pb.WILD in (a, b)


def token_mix(option: str, count: int) -> list[int] | None:
    """The chosen token counts (turn, wild, points) of option ``tokens``, None for ``random``
    (ruling 13); raises ConfigError for a value that does not fit."""
    if option == "random":
        return None
    if option == "even":
        base, extra = divmod(count, len(BONUSES))
        return [base + (i < extra) for i in range(len(BONUSES))]
    parts = option.split("-")
    if len(parts) != len(BONUSES) or not all(p.isascii() and p.isdigit() for p in parts):  # not ² or ５
        raise ConfigError(f"option tokens={option!r}: expected random, even or T-W-P (e.g. 2-2-1)")
    mix = [int(p) for p in parts]
    if sum(mix) != count or any(n > m for n, m in zip(mix, TOKEN_MIX, strict=True)):
        raise ConfigError(
            f"option tokens={option!r}: the counts must sum to {count} (tokens in play) with at most "
            f"{'/'.join(map(str, TOKEN_MIX))} of One More Turn/Two Wilds/Three Points"
        )
    return mix


@dataclass
class GashaState(MatchState):
    decks: list[list[Card]] = field(default_factory=list)  # the top card is the LAST
    discard: list[Card] = field(default_factory=list)
    hands: list[list[Card]] = field(default_factory=list)  # in drawing order (oldest first)
    wilds: list[int] = field(default_factory=list)  # unused Wild Gashas per seat
    rewards: list[list[int]] = field(default_factory=list)  # claimed reward ids per seat
    open_halves: list[list[int]] = field(default_factory=list)  # reward ids, uncombined halves
    tickets: list[list[tuple[int, int, int, bool]]] = field(default_factory=list)  # (a, b, bonus, same)
    tokens: list[list[int]] = field(default_factory=list)  # Bonus kinds taken per seat
    display: list[int] = field(default_factory=list)  # face-up reward ids, slot order
    reward_deck: list[int] = field(default_factory=list)  # the next card is the LAST
    token_pile: list[int] = field(default_factory=list)  # face-down tokens, the next is the LAST
    unrevealed: list[int] = field(default_factory=list)  # tokens not revealed yet, by Bonus (public)
    tokens_chosen: bool = False
    phase: int = pb.PHASE_TURN
    turn_seat: int = 0
    claiming: int = 0  # PAY: the reward id
    extra_turns: int = 0
    trigger: int = pb.TRIGGER_UNSPECIFIED
    final_turns: list[int] = field(default_factory=list)
    turns: int = 0
    # Deck cycles (for sample_world, ruling 14): 0 for the cards of the setup, k for the cards of
    # the k-th shuffle of the discard pile. A card's cycle is public when it is drawn (which deck
    # it came from is seen); these follow the real cards.
    cycle: int = 0
    deck_cycles: list[list[int]] = field(default_factory=list)  # parallel to decks
    hand_cycles: list[list[int]] = field(default_factory=list)  # parallel to hands
    # What ruling 14's reading of the cycles is worked out from: each cycle's make-up (counts by
    # card_id: the 75 cards, then each shuffled discard pile) and, in order, every card dealt or
    # drawn into a hand and every card paid (record(); a draw's toy is known to its seat only).
    makeups: list[tuple[int, ...]] = field(default_factory=list)
    history: list[int] = field(default_factory=list)


# -- options (shared, never mutated) -------------------------------------------------------------

_DRAW = tuple(
    Option(f"draw:{d}", f"draw the top card of deck {d}", pb.Action(kind=pb.DRAW, deck=d)) for d in range(DECKS)
)
_DRAWS: dict[tuple[bool, ...], tuple[Option, ...]] = {
    key: tuple(_DRAW[d] for d in range(DECKS) if key[d]) for key in itertools.product((False, True), repeat=DECKS)
}
_CLAIM = {r.id: Option(f"claim:{r.id}", f"claim {r.text()}", pb.Action(kind=pb.CLAIM, reward=r.id)) for r in REWARDS}
_SKIP = Option("skip", "combine no Ticket now", pb.Action(kind=pb.SKIP))
_PAY: dict[tuple[Parts, int], Option] = {}
_PAY_KEPT = 50_000
_TICKET: dict[tuple[int, int], Option] = {}
_REWARD_PB = {
    r.id: pb.Reward(
        id=r.id,
        needs=r.needs,
        identical=r.identical,
        points=r.points,
        ticket=r.ticket,  # type: ignore[arg-type]
        players=r.players,
        family=r.family,
    )
    for r in REWARDS
}
_CARD_PB: dict[tuple[int, int], pb.Card] = {}


def _card_pb(back: int, toy: int = 0) -> pb.Card:
    key = (back, toy)
    card = _CARD_PB.get(key)
    if card is None:
        card = _CARD_PB[key] = pb.Card(back=back, toy=toy)  # type: ignore[arg-type]
    return card


_DRAW_EVENTS: dict[tuple[int, int, Card, bool, int], tuple[Event, Event]] = {}


def _draw_events(seat: int, deck: int, card: Card, bonus: bool, top: int) -> tuple[Event, Event]:
    """The public "draw" (the back) and private "drawn" (the toy) events of a draw (shared)."""
    key = (seat, deck, card, bonus, top)
    events = _DRAW_EVENTS.get(key)
    if events is None:
        how = " (same-colour Ticket)" if bonus else ""
        public = Event(
            seat,
            "draw",
            f"draws a {back_name(card.back)} card from deck {deck}{how}",
            pb.DrawEvent(seat=seat, deck=deck, card=_card_pb(card.back), bonus=bonus, new_top=top),
        )
        private = Event(
            seat,
            "drawn",
            f"draws {TOY_LABELS[card.toy]} from deck {deck}{how}",
            pb.DrawEvent(seat=seat, deck=deck, card=_card_pb(card.back, card.toy), bonus=bonus, new_top=top),
            frozenset((seat,)),
        )
        events = _DRAW_EVENTS[key] = (public, private)
    return events


def _pay_option(parts: Parts, wilds: int) -> Option:
    key = (parts, wilds)
    option = _PAY.get(key)
    if option is None:
        if len(_PAY) >= _PAY_KEPT:  # payments by back are many: a full table starts again
            _PAY.clear()
        text = [f"{n} {TOY_NAMES[toy]} ({back_name(back)} back)" for toy, back, n in parts]
        if wilds:
            text.append(f"{wilds} wild")
        cards = sorted(Card(back, toy) for toy, back, n in parts for _ in range(n))
        action = pb.Action(
            kind=pb.PAY, paid=counts_of(cards), wilds=wilds, cards=[_card_pb(c.back, c.toy) for c in cards]
        )
        option = _PAY[key] = Option(f"pay:{card_payment_token(parts, wilds)}", f"pay {', '.join(text)}", action)
    return option


def _ticket_option(a: int, b: int) -> Option:
    option = _TICKET.get((a, b))
    if option is None:
        option = _TICKET[(a, b)] = Option(
            f"ticket:{a}+{b}",
            f"combine the Ticket halves of rewards {a} and {b}",
            pb.Action(kind=pb.TICKET, pair=(a, b)),
        )
    return option


class Gasha(Game[GashaState]):
    meta = GameMeta(
        id="gasha",
        name="Gasha",
        min_players=2,
        max_players=6,
        # 5: the turn event's `final` is never the triggering seat's own One More Turn (ruling 9)
        version="5",
        options=(
            OptionSpec(
                "tokens",
                "random",
                "Bonus tokens in play: random (drawn from the 15), even (chosen: an even mix) or T-W-P "
                "(chosen counts of One More Turn, Two Wilds, Three Points)",
            ),
        ),
        variants=(
            Variant("chosen tokens", "the players choose the Bonus tokens in play: an even mix", {"tokens": "even"}),
        ),
        hidden_information=True,
        summary="Draw capsule toys blind (the back shows 2-3 toys it may be), trade sets for Set Rewards, "
        "pair Ticket halves for Bonus tokens.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def check_config(self, config: MatchConfig) -> None:
        token_mix(str(config["tokens"]), TOKENS_IN_PLAY[config.players])

    # -- setup ------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> GashaState:
        players = config.players
        gashas = chance.shuffled(full_gashas(), "gashas")
        rewards = chance.shuffled([r.id for r in rewards_in_play(players)], "rewards")
        count = TOKENS_IN_PLAY[players]
        mix = token_mix(str(config["tokens"]), count)
        if mix is None:
            pool = [b for b, n in zip(BONUSES, TOKEN_MIX, strict=True) for _ in range(n)]
            pile = chance.shuffled(pool, "tokens")[:count]
            unrevealed = [0, *TOKEN_MIX]
        else:
            pile = chance.shuffled([b for b, n in zip(BONUSES, mix, strict=True) for _ in range(n)], "tokens")
            unrevealed = [0, *mix]
        start = chance.pick(range(players), "start")
        hands = [gashas[s * HAND : (s + 1) * HAND] for s in range(players)]
        rest = gashas[players * HAND :]
        decks: list[list[Card]] = []
        base, extra = divmod(len(rest), DECKS)
        at = 0
        for d in range(DECKS):
            size = base + (d < extra)
            decks.append(rest[at : at + size][::-1])
            at += size
        state = GashaState(
            config=config,
            chance=chance,
            decks=decks,
            hands=hands,
            deck_cycles=[[0] * len(d) for d in decks],
            hand_cycles=[[0] * len(h) for h in hands],
            makeups=[makeup_of(gashas)],
            history=[record(seat, card) for seat in range(players) for card in hands[seat]],
            wilds=[0] * players,
            rewards=[[] for _ in range(players)],
            open_halves=[[] for _ in range(players)],
            tickets=[[] for _ in range(players)],
            tokens=[[] for _ in range(players)],
            display=rewards[:DISPLAY],
            reward_deck=rewards[DISPLAY:][::-1],
            token_pile=pile[::-1],
            unrevealed=unrevealed,
            tokens_chosen=mix is not None,
            turn_seat=start,
        )
        state.log.public(
            CHANCE_SEAT,
            "start",
            f"seat {start} goes first; {count} Bonus tokens in play, {len(rewards)} Set Rewards",
            pb.StartEvent(first=start, tokens=count, token_mix=mix or [], rewards=len(rewards)),
        )
        for seat in range(players):
            cards = [_card_pb(c.back, c.toy) for c in hands[seat]]
            text = ", ".join(TOY_NAMES[c.toy] for c in hands[seat])
            state.log.private([seat], seat, "deal", f"is dealt {text}", pb.StartEvent(first=start, cards=cards))
        self._start_turn(state, start, extra=False)
        return state

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: GashaState) -> Iterable[Decision]:
        phase, seat = state.phase, state.turn_seat
        if phase == pb.PHASE_TURN:
            return (Decision(seat, "turn", self._turn_options(state, seat)),)
        if phase == pb.PHASE_SECOND:
            return (Decision(seat, "second", self._draw_options(state)),)
        if phase == pb.PHASE_PAY:
            return (Decision(seat, "pay", self._pay_options(state, seat)),)
        if phase == pb.PHASE_TICKET:
            return (Decision(seat, "ticket", self._ticket_options(state, seat)),)
        if phase == pb.PHASE_BONUS:
            return (Decision(seat, "bonus", self._draw_options(state)),)
        return ()

    @staticmethod
    def _draw_options(state: GashaState) -> tuple[Option, ...]:
        decks = state.decks
        return _DRAWS[(bool(decks[0]), bool(decks[1]), bool(decks[2]), bool(decks[3]))]

    def _claimable(self, state: GashaState, seat: int) -> list[int]:
        hand, wilds = counts_of(state.hands[seat]), state.wilds[seat]
        return [r for r in state.display if can_pay(REWARD_BY_ID[r], hand, wilds)]

    def _turn_options(self, state: GashaState, seat: int) -> tuple[Option, ...]:
        return (*self._draw_options(state), *(_CLAIM[r] for r in self._claimable(state, seat)))

    def _pay_options(self, state: GashaState, seat: int) -> tuple[Option, ...]:
        reward = REWARD_BY_ID[state.claiming]
        found = card_payments(reward, state.hands[seat], state.wilds[seat])
        return tuple(_pay_option(parts, wilds) for parts, wilds in found)

    @staticmethod
    def _ticket_options(state: GashaState, seat: int) -> tuple[Option, ...]:
        halves = sorted(state.open_halves[seat])
        return (*(_ticket_option(a, b) for a, b in itertools.combinations(halves, 2)), _SKIP)

    # -- resolution -------------------------------------------------------------------------

    def resolve(self, state: GashaState, chosen: Mapping[int, Option]) -> None:
        (seat, option), *_ = chosen.items()
        action = option.action
        assert isinstance(action, pb.Action)
        kind, phase = action.kind, state.phase
        if kind == pb.DRAW:
            self._draw(state, seat, action.deck, bonus=phase == pb.PHASE_BONUS)
            if phase == pb.PHASE_TURN and self._draw_options(state):
                state.phase = pb.PHASE_SECOND
            elif phase == pb.PHASE_BONUS:
                self._after_claim(state, seat)
            else:
                self._end_turn(state)
        elif kind == pb.CLAIM:
            state.claiming = action.reward
            state.phase = pb.PHASE_PAY
        elif kind == pb.PAY:
            self._pay(state, seat, [Card(c.back, c.toy) for c in action.cards], action.wilds)
            self._after_claim(state, seat)
        elif kind == pb.TICKET:
            a, b = action.pair
            self._combine(state, seat, a, b)
        else:  # SKIP
            self._end_turn(state)

    def _draw(self, state: GashaState, seat: int, deck: int, bonus: bool) -> None:
        card = state.decks[deck].pop()
        cycle = state.deck_cycles[deck].pop()
        state.hands[seat].append(card)
        state.hand_cycles[seat].append(cycle)
        state.history.append(record(seat, card, cycle))
        top = state.decks[deck][-1].back if state.decks[deck] else 0
        public, private = _draw_events(seat, deck, card, bonus, top)
        state.log.events.append(public)
        state.log.events.append(private)
        if not state.decks[deck]:
            self._rebuild(state)

    def _rebuild(self, state: GashaState) -> None:
        """Make every empty deck again (ruling 4)."""
        decks = state.decks
        while True:
            empty = [d for d in range(DECKS) if not decks[d]]
            if not empty:
                return
            largest = max(range(DECKS), key=lambda d: (len(decks[d]), -d))
            size = len(decks[largest])
            if size >= 2:
                target = empty[0]
                moved = size // 2
                decks[target] = decks[largest][:moved]  # the bottom half; the top is the last
                del decks[largest][:moved]
                state.deck_cycles[target] = state.deck_cycles[largest][:moved]
                del state.deck_cycles[largest][:moved]
                state.log.public(
                    CHANCE_SEAT,
                    "rebuild",
                    f"deck {target} is made from the bottom {moved} cards of deck {largest}",
                    pb.RebuildEvent(
                        deck=target,
                        source=largest,
                        cards=moved,
                        new_top=decks[target][-1].back,
                        sizes=self._sizes(state),
                    ),
                )
                continue
            if state.discard and len(state.discard) >= len(empty):
                pile = state.chance.shuffled(state.discard, "reshuffle")
                state.discard = []
                state.cycle += 1
                state.makeups.append(makeup_of(pile))
                base, extra = divmod(len(pile), len(empty))
                at = 0
                for i, target in enumerate(empty):
                    n = base + (i < extra)
                    decks[target] = pile[at : at + n][::-1]  # the shuffled order is top first
                    state.deck_cycles[target] = [state.cycle] * n
                    at += n
                for target in empty:
                    state.log.public(
                        CHANCE_SEAT,
                        "rebuild",
                        f"the discard pile is shuffled: deck {target} is made of {len(decks[target])} cards",
                        pb.RebuildEvent(
                            deck=target,
                            from_discard=True,
                            cards=len(decks[target]),
                            new_top=decks[target][-1].back,
                            sizes=self._sizes(state),
                        ),
                    )
                continue
            self._trigger(state, pb.NO_DECKS)
            return

    @staticmethod
    def _sizes(state: GashaState) -> list[int]:
        return [len(d) for d in state.decks]

    def _pay(self, state: GashaState, seat: int, cards: Sequence[Card], wilds: int) -> None:
        """Spend the chosen cards (ruling 5), take the reward and reveal its replacement."""
        reward = REWARD_BY_ID[state.claiming]
        left: dict[Card, int] = {}
        for c in cards:
            left[c] = left.get(c, 0) + 1
        spent: list[Card] = []
        kept: list[Card] = []
        kept_cycles: list[int] = []
        # Of one back and toy, the cards held longest go: the table cannot tell them apart (only
        # their deck cycles may differ, which it does not see leave), and ruling 14's reading,
        # charging a paid card per (cycle, back), takes the card held longest to leave too.
        for card, cycle in zip(state.hands[seat], state.hand_cycles[seat], strict=True):
            if left.get(card):
                left[card] -= 1
                spent.append(card)
            else:
                kept.append(card)
                kept_cycles.append(cycle)  # the real cards keep their cycles
        # Sorted (back, then toy): in the hand's order they told which draw held which toy.
        spent.sort()
        state.history.extend(record(seat, card, pay=True) for card in spent)
        state.hands[seat] = kept
        state.hand_cycles[seat] = kept_cycles
        state.discard.extend(spent)
        state.wilds[seat] -= wilds
        state.rewards[seat].append(reward.id)
        if reward.ticket != pb.TICKET_NONE:
            state.open_halves[seat].append(reward.id)
        slot = state.display.index(reward.id)
        state.claiming = 0
        text = ", ".join(TOY_NAMES[c.toy] for c in spent) + (f", {wilds} wild" if wilds else "")
        state.log.public(
            seat,
            "claim",
            f"claims {reward.text()} with {text}",
            pb.ClaimEvent(
                seat=seat, reward=_REWARD_PB[reward.id], paid=[_card_pb(c.back, c.toy) for c in spent], wilds=wilds
            ),
        )
        if state.reward_deck:
            new = state.reward_deck.pop()
            state.display[slot] = new
            state.log.public(
                CHANCE_SEAT,
                "reveal",
                f"{REWARD_BY_ID[new].text()} is revealed",
                pb.RevealEvent(reward=_REWARD_PB[new], slot=slot, left=len(state.reward_deck)),
            )
            if not state.reward_deck:
                self._trigger(state, pb.REWARDS_EMPTY)
        else:
            del state.display[slot]

    def _after_claim(self, state: GashaState, seat: int) -> None:
        """Offer a Ticket while two halves are open and a token is left (ruling 6)."""
        if len(state.open_halves[seat]) >= 2 and state.token_pile:
            state.phase = pb.PHASE_TICKET
        else:
            self._end_turn(state)

    def _combine(self, state: GashaState, seat: int, a: int, b: int) -> None:
        state.open_halves[seat].remove(a)
        state.open_halves[seat].remove(b)
        bonus = state.token_pile.pop()
        state.unrevealed[bonus] -= 1
        state.tokens[seat].append(bonus)
        same = same_colour(REWARD_BY_ID[a].ticket, REWARD_BY_ID[b].ticket)
        state.tickets[seat].append((a, b, bonus, same))
        if bonus == pb.TWO_WILDS:
            state.wilds[seat] += TOKEN_WILDS
        elif bonus == pb.ONE_MORE_TURN:
            state.extra_turns += 1
        match = ", same colour" if same else ""
        state.log.public(
            seat,
            "ticket",
            f"combines the Ticket halves of rewards {a} and {b}{match}: {BONUS_NAMES[bonus]}",
            pb.TicketEvent(
                seat=seat,
                ticket=pb.CompletedTicket(first=a, second=b, bonus=bonus, same_colour=same),  # type: ignore[arg-type]
                tokens_left=len(state.token_pile),
            ),
        )
        if not state.token_pile:
            self._trigger(state, pb.LAST_TOKEN)
        if same and self._draw_options(state):
            state.phase = pb.PHASE_BONUS
        else:
            self._after_claim(state, seat)

    def _trigger(self, state: GashaState, why: int) -> None:
        """The end is triggered (ruling 9): every other seat, clockwise, has one final turn."""
        if state.trigger != pb.TRIGGER_UNSPECIFIED:
            return
        state.trigger = why
        seat = state.turn_seat
        state.final_turns = [(seat + k) % state.players for k in range(1, state.players)]
        reason: str = {
            int(pb.LAST_TOKEN): "the last Bonus token is taken",
            int(pb.REWARDS_EMPTY): "the Set Reward deck is empty",
            int(pb.NO_DECKS): "4 Gasha decks can no longer be made",
        }[why]
        state.log.public(
            seat,
            "trigger",
            f"{reason}: the game ends after one final turn for each other player",
            pb.TriggerEvent(seat=seat, trigger=why),  # type: ignore[arg-type]
        )

    def _end_turn(self, state: GashaState) -> None:
        state.turns += 1
        if state.extra_turns:
            state.extra_turns -= 1
            self._start_turn(state, state.turn_seat, extra=True)
        elif state.trigger == pb.TRIGGER_UNSPECIFIED:
            self._start_turn(state, (state.turn_seat + 1) % state.players, extra=False)
        elif state.final_turns:
            self._start_turn(state, state.final_turns.pop(0), extra=False)
        else:
            self._finish(state)

    def _start_turn(self, state: GashaState, seat: int, extra: bool) -> None:
        state.turn_seat = seat
        state.phase = pb.PHASE_TURN
        # A final turn is another seat's (ruling 9): the triggering seat's One More Turn, taken
        # before any final turn has begun, is still its own turn, not a final one.
        final = state.trigger != pb.TRIGGER_UNSPECIFIED and (not extra or len(state.final_turns) < state.players - 1)
        skipped = not self._draw_options(state) and not self._claimable(state, seat)
        what = "passes (no card to draw, no reward to pay for)" if skipped else "begins a turn"
        how = " (One More Turn)" if extra else " (final turn)" if final else ""
        state.log.public(
            seat,
            "turn",
            f"{what}{how}",
            pb.TurnEvent(seat=seat, extra=extra, final=final, skipped=skipped),
        )
        if skipped:  # ruling 10
            self._end_turn(state)

    def _finish(self, state: GashaState) -> None:
        state.phase = pb.PHASE_OVER
        scores = [self.score_of(state, s) for s in range(state.players)]
        tokens = [len(t) for t in state.tokens]
        text = ", ".join(
            f"seat {s} {scores[s]} ({tokens[s]} token{'' if tokens[s] == 1 else 's'})" for s in range(state.players)
        )
        state.log.public(CHANCE_SEAT, "end", f"game over: {text}", pb.EndEvent(scores=scores, tokens=tokens))

    # -- scoring ----------------------------------------------------------------------------

    @staticmethod
    def reward_points(state: GashaState, seat: int) -> int:
        return sum(REWARD_BY_ID[r].points for r in state.rewards[seat])

    def score_of(self, state: GashaState, seat: int) -> int:
        """Reward points + 3 per Three Points token + unused Gashas and Wild Gashas [:236–255]."""
        points_tokens = state.tokens[seat].count(pb.THREE_POINTS)
        return (
            self.reward_points(state, seat) + TOKEN_POINTS * points_tokens + len(state.hands[seat]) + state.wilds[seat]
        )

    def score(self, state: GashaState) -> Result:
        scores = [self.score_of(state, s) for s in range(state.players)]
        keys = [(scores[s], len(state.tokens[s])) for s in range(state.players)]
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        summary = (
            f"winner{'s' if len(winners) > 1 else ''}: seat {', '.join(map(str, winners))} "
            f"({best[0]} points, {best[1]} Bonus tokens)"
        )
        return Result.ranked(scores, keys, summary)

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: GashaState, viewer: int) -> pb.Observation:
        from arena.games.gasha.worlds import reading, seat_field, slot_field, unseen_field

        spectator = viewer == SPECTATOR
        read = None if spectator else reading(state, viewer)
        # The seats as bytes (each view kept per what it shows: from one position to the next
        # most seats show the same), with the slots as the viewer reads them appended.
        views = [self._seat_view_bytes(state, s) for s in range(state.players)]
        if read is not None:
            cycles_pb, slots_pb = read.encoded()
            for s in range(state.players):
                if s == viewer:
                    own = zip(state.hands[s], state.hand_cycles[s], strict=True)
                    views[s] += b"".join(slot_field(k, c.back) for c, k in own)
                else:
                    views[s] += slots_pb[s]
        decks = [
            pb.Deck(
                size=len(deck),
                top_back=deck[-1].back if deck else 0,
                cards=[_card_pb(c.back, c.toy) for c in reversed(deck)] if spectator else [],
                cycle=read.decks[d] if read is not None else cycles[-1] if cycles else 0,
            )
            for d, (deck, cycles) in enumerate(zip(state.decks, state.deck_cycles, strict=True))
        ]
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=state.players,
            phase=state.phase,  # type: ignore[arg-type]
            turn_seat=state.turn_seat,
            hand=[] if spectator else [_card_pb(c.back, c.toy) for c in state.hands[viewer]],
            decks=decks,
            discard=counts_of(state.discard),
            display=[_REWARD_PB[r] for r in state.display],
            reward_deck=len(state.reward_deck),
            tokens_left=len(state.token_pile),
            tokens_unrevealed=state.unrevealed,
            tokens_chosen=state.tokens_chosen,
            extra_turns=state.extra_turns,
            end_triggered=state.trigger != pb.TRIGGER_UNSPECIFIED,
            trigger=state.trigger,  # type: ignore[arg-type]
            final_turns=state.final_turns,
            turns=state.turns,
        )
        if state.claiming:
            obs.claiming.CopyFrom(_REWARD_PB[state.claiming])
        # The repeated parts, as bytes (appended in one parse): the seats, the unseen cards, the
        # cycles.
        tail = b"".join(map(seat_field, views))
        if read is not None:
            unseen = self._unseen_counts(state, viewer)
            tail += b"".join(unseen_field(card, n) for card, n in unseen.items() if n) + cycles_pb
        obs.MergeFromString(tail)
        if spectator:
            obs.tokens.extend(reversed(state.token_pile))  # type: ignore[arg-type]
            obs.reward_pile.extend(_REWARD_PB[r] for r in reversed(state.reward_deck))
        return obs

    def _seat_view_bytes(self, state: GashaState, seat: int) -> bytes:
        """:meth:`_seat_view` serialised (slots aside), kept per everything it shows."""
        from arena.games.gasha.worlds import kept

        key = (
            tuple(state.hands[seat]),
            tuple(state.rewards[seat]),
            tuple(state.open_halves[seat]),
            tuple(state.tickets[seat]),
            state.wilds[seat],
            tuple(state.tokens[seat]),
        )
        return kept(_SEAT_VIEWS, key, lambda: self._seat_view(state, seat).SerializeToString())

    def _seat_view(self, state: GashaState, seat: int) -> pb.SeatView:
        tokens = state.tokens[seat]
        return pb.SeatView(
            hand_size=len(state.hands[seat]),
            hand_backs=sorted(c.back for c in state.hands[seat]),
            rewards=[_REWARD_PB[r] for r in state.rewards[seat]],
            open_halves=state.open_halves[seat],
            tickets=[
                pb.CompletedTicket(first=a, second=b, bonus=bonus, same_colour=same)  # type: ignore[arg-type]
                for a, b, bonus, same in state.tickets[seat]
            ],
            wilds=state.wilds[seat],
            tokens=len(tokens),
            points_tokens=tokens.count(pb.THREE_POINTS),
            reward_points=self.reward_points(state, seat),
            score=self.score_of(state, seat),
        )

    @staticmethod
    def _unseen_counts(state: GashaState, viewer: int) -> dict[Card, int]:
        """Per card, how many ``viewer`` has not located (the observation's ``unseen``)."""
        counts = dict(_FULL_COUNTS)
        for card in state.hands[viewer]:
            counts[card] -= 1
        for card in state.discard:
            counts[card] -= 1
        return counts

    # -- determinization --------------------------------------------------------------------

    def sample_world(self, state: GashaState, seat: int, chance: Chance) -> GashaState:
        from arena.games.gasha.worlds import sample_world

        return sample_world(self, state, seat, chance)

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> GashaState:
        from arena.games.gasha.worlds import world_from_observation

        assert isinstance(observation, pb.Observation)
        return world_from_observation(self, config, seat, observation, chance)


_FULL_COUNTS: dict[Card, int] = {card: full_gashas().count(card) for card in sorted(set(full_gashas()))}
FULL_MAKEUP = makeup_of(full_gashas())


_SEAT_VIEWS: dict[tuple[object, ...], bytes] = {}


GAME = Gasha()
