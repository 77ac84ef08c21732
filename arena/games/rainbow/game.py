"""Rainbow — a trick-taking game of sets, runs and timing (``shared/rules/rainbowallplay.md``).

Rules as implemented (rulebook line references in brackets):

* 60 cards, ranks 1–6, 10 of each [:34–36]. Cards of equal rank are identical, so hands and
  piles are counts by rank.
* Setup, 3–6 players: shuffle; one face-up card per player into the middle, lowest to highest
  [:68–70]; hands of 14/14/11/9 cards for 3/4/5/6 players [:74–84]; at 3 players the 15
  leftover cards are set aside face down [:86–88] and never used.
* Setup, 2 players (the 2-Player Variant, the only way to play with 2) [:273–283]: 4 face-up
  cards; each player gets two piles of 14: one is the hand, the other a face-down reserve that
  even its owner does not know.
* A trick: the lead plays a combo, then play goes clockwise, one combo per player [:98–106]
  (2 players: two combos each, one at a time, L, F, L, F [:289–293]). Combos: a Single (any 1
  card), a Set (2+ cards of one rank), a Run (2+ consecutive ranks) [:40–62]. Once a Set is
  played in the trick only Singles and Sets may follow; once a Run is played only Singles and
  Runs [:110–136, :295–298]. A Single is always legal, and no combo has to beat another.
* Claims: after everyone has played, each combo claims one point pile, biggest combo (most
  cards) first, ties broken by the highest card, then by the earlier play [:140–165]. In the
  2-player game each combo claims separately, so a player claims twice per trick [:300–306].
* Point piles: in the first trick every face-up card is its own single pile [:171–177,
  :330–331]. After a trick all played cards go to the middle, pairs of equal rank plus leftover
  singles [:208–219], ordered by total, lowest first [:221–223]; piles are discarded from the
  low end until there are as many piles as claims in the next trick [:225–228]. A card scores
  its rank [:189–196]; there may be fewer piles than claimers, who then get nothing [:337–338].
* Next lead: the player of the biggest combo; if they have no cards left, the next player
  clockwise who has [:232–240].
* End, 3–6 players [:244–269]: checked at the end of a trick. With exactly one player out of
  cards, play continues without them (they skip and cannot claim); with two or more out the
  game ends. Highest score wins; ties share the victory.
* End, 2 players [:310–324]: a player whose hand empties immediately takes their reserve into
  hand; a player who runs out again ends the game (at the end of that trick), and the other
  player scores +1 per card left in hand, whatever its rank.

Rulings (``shared/rules/NOTES.md`` §4.15, numbered as there):

1. Combo restriction: the trick's type is set by the first Set or Run played in it; Singles
   never set it [:110–136].
2. "Choose 1 single or 1 pair" [:181–187] is read with the pile organisation [:208–228]: each
   claim takes exactly one pile; a pair is never split.
3. Pile order is ascending by total; equal totals (a pair of 1s and a single 2) put the single
   first, which only matters for discarding. The number of piles kept = the number of claims in
   the next trick (players still holding cards; 4 in the 2-player game).
4. Claim order: more cards, then higher top card, then earlier played.
5. Piles left over when fewer combos claim than there are piles (the trick that ends a
   2-player game) are discarded, face up.
6. A player who empties their hand during a trick still claims in that trick; the end is
   checked once the claims are done. A player out of cards sits out every later trick.
7. Next lead as above.
8. 2 players: the restriction spans all four combos of the trick; each combo claims on its own;
   a player out for the second time plays no further combo in that trick; the game ends at the
   end of that trick and the bonus goes to whoever still holds cards (both players out in the
   same trick: no bonus). Cards in a reserve not yet taken are not "in hand" and do not count.

Also: the start player ("the player who most recently saw a rainbow" [:94]) is a seeded random
seat. Forced moves are applied without asking where the table sees they are forced: playing a
last card, and a claim when every pile left is the same (or only one is left); they are logged
like chosen ones. A larger hand with one legal combo (all of one rank under a Run restriction)
is asked all the same: a Single is always legal, so at the table nobody can tell it was forced,
and a skipped decision would show in the others' ``decision_index``.
Options list distinct combos by (type, rank, length): ``single:4``, ``set:3x2`` (three 2s),
``run:2-5``; claims are ``claim:<pile index>`` with the pile described in the label (identical
piles are offered once, by their first index).

Bound: cards only leave hands. At 3–6 players every player holding cards plays at least one a
trick, so after H tricks (H = 14 / 14 / 11 / 9) every hand is empty; a trick asks at most one
``combo`` and one ``claim`` per player, so a game has at most 2 × players × H steps: 84 / 112 /
110 / 108 at 3–6 players. At 2 players each holds 28 cards (hand and reserve) and plays at least
2 a trick while it has cards, so at most 14 tricks of 4 combos and 4 claims: 112 steps. Random
play takes at most 68 / 50 / 64 / 66 / 68 at 2–6 players over 200 games.

Chance labels: ``"deck"`` (the one shuffle of the 60 ranks; dealt in order: the face-up cards,
then each seat's hand in seat order, at 2 players each seat's hand then its reserve, at 3
players the rest is set aside) and ``"start"`` (the first lead).

Component data: ranks, copies, face-up counts and hand sizes are all printed in the rules text
(typed constants below with their lines); there is no data file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
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
from arena.games.v1 import rainbow_pb2 as pb

RANKS = (1, 2, 3, 4, 5, 6)  # :35
COPIES = 10  # :36 - ten of each rank, 60 cards
FACE_UP = {2: 4, 3: 3, 4: 4, 5: 5, 6: 6}  # :74-84 (one per player), 2p :277
HAND_SIZE = {2: 14, 3: 14, 4: 14, 5: 11, 6: 9}  # :74-84, 2p piles of 14 :278
DEALT_PILES = {2: 2}  # 2p: a hand and a face-down reserve each :278-283; otherwise a hand
COMBOS_PER_PLAYER = {2: 2}  # 2p: two combos each per trick :291; otherwise one :106

SINGLE, SET, RUN = "single", "set", "run"
PLAY, CLAIM, OVER = "play", "claim", "over"

Counts = list[int]
"""Cards by rank: ``counts[r - 1]`` cards of rank r."""

_WORDS = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_PB_TYPE = {SINGLE: pb.SINGLE, SET: pb.SET, RUN: pb.RUN}
_KIND = {v: k for k, v in _PB_TYPE.items()}
_PB_PHASE = {PLAY: pb.PLAY, CLAIM: pb.CLAIM, OVER: pb.OVER}
_KIND_PHASE = {v: k for k, v in _PB_PHASE.items()}


class Combo(NamedTuple):
    """A playable combo: ``rank`` is the set's rank or the run's lowest rank."""

    kind: str
    rank: int
    length: int

    @property
    def high(self) -> int:
        return self.rank + self.length - 1 if self.kind == RUN else self.rank

    @property
    def cards(self) -> tuple[int, ...]:
        if self.kind == RUN:
            return tuple(range(self.rank, self.rank + self.length))
        return (self.rank,) * self.length

    @property
    def id(self) -> str:
        if self.kind == SINGLE:
            return f"single:{self.rank}"
        if self.kind == SET:
            return f"set:{self.length}x{self.rank}"
        return f"run:{self.rank}-{self.high}"

    @property
    def label(self) -> str:
        if self.kind == SINGLE:
            return f"a single {self.rank}"
        if self.kind == SET:
            return f"a set of {_WORDS[self.length]} {self.rank}s"
        return "a run " + "-".join(map(str, self.cards))

    def message(self) -> pb.Combo:
        return pb.Combo(type=_PB_TYPE[self.kind], rank=self.rank, length=self.length, high=self.high)


class Pile(NamedTuple):
    """A point pile: a single card (size 1) or a pair of equal rank (size 2)."""

    rank: int
    size: int

    @property
    def total(self) -> int:
        return self.rank * self.size

    @property
    def name(self) -> str:
        return f"single {self.rank}" if self.size == 1 else f"pair of {self.rank}s"

    @property
    def label(self) -> str:
        return f"{self.name} ({self.total} point{'s' if self.total != 1 else ''})"

    def message(self) -> pb.Pile:
        return pb.Pile(rank=self.rank, count=self.size, total=self.total)


# --------------------------------------------------------------------------------------------
# Pure rules helpers


def counts_of(cards: Iterable[int]) -> Counts:
    counts = [0] * len(RANKS)
    for rank in cards:
        counts[rank - 1] += 1
    return counts


def combo_of(cards: Sequence[int]) -> Combo | None:
    """The combo a group of cards forms, or None if it is no legal combo [:40-62]."""
    if not cards or any(r not in RANKS for r in cards):
        return None
    ranks = sorted(cards)
    if len(ranks) == 1:
        return Combo(SINGLE, ranks[0], 1)
    if ranks[0] == ranks[-1]:
        return Combo(SET, ranks[0], len(ranks))
    if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        return Combo(RUN, ranks[0], len(ranks))
    return None


def allowed_kinds(restriction: str | None) -> tuple[str, ...]:
    """Combo types allowed once a Set or a Run has been played in the trick [:110-136]."""
    if restriction is None:
        return (SINGLE, SET, RUN)
    return (SINGLE, restriction)


def legal_combos(hand: Counts, restriction: str | None) -> list[Combo]:
    """Every distinct combo the hand can play under the trick's restriction."""
    kinds = allowed_kinds(restriction)
    combos = [Combo(SINGLE, r, 1) for r in RANKS if hand[r - 1]]
    if SET in kinds:
        combos += [Combo(SET, r, n) for r in RANKS for n in range(2, hand[r - 1] + 1)]
    if RUN in kinds:
        for start in RANKS:
            top = start
            while top < RANKS[-1] and hand[start - 1] and hand[top]:
                top += 1
                combos.append(Combo(RUN, start, top - start + 1))
    return combos


def organise(cards: Counts) -> list[Pile]:
    """Played cards as point piles: pairs plus leftover singles, lowest total first [:208-223].

    Equal totals put the single before the pair (ruling 3).
    """
    piles = []
    for rank in RANKS:
        n = cards[rank - 1]
        piles += [Pile(rank, 2)] * (n // 2) + [Pile(rank, 1)] * (n % 2)
    piles.sort(key=lambda p: (p.total, p.size))
    return piles


def trim(piles: list[Pile], claims: int) -> tuple[list[Pile], list[Pile]]:
    """(kept, discarded): discard from the low end until piles <= claims [:225-228]."""
    cut = max(0, len(piles) - claims)
    return piles[cut:], piles[:cut]


def claim_order(plays: Sequence[tuple[int, Combo]]) -> list[int]:
    """Indices of the plays in claiming order: most cards, highest card, earlier [:148-165]."""
    return sorted(range(len(plays)), key=lambda i: (-plays[i][1].length, -plays[i][1].high, i))


def claimable(middle: Sequence[Pile], taken_by: Sequence[int]) -> list[int]:
    """Indices of the piles still in the middle, one per distinct pile (identical piles are one
    choice; the first index stands for them)."""
    seen: set[Pile] = set()
    out = []
    for index, pile in enumerate(middle):
        if taken_by[index] < 0 and pile not in seen:
            seen.add(pile)
            out.append(index)
    return out


def first_piles(face_up: Iterable[int]) -> list[Pile]:
    """The first trick's point piles: every face-up card single, lowest first [:70, :177]."""
    return [Pile(rank, 1) for rank in sorted(face_up)]


def cards_text(counts: Counts) -> str:
    return " ".join(str(r) for r in RANKS for _ in range(counts[r - 1])) or "nothing"


def piles_text(piles: Sequence[Pile]) -> str:
    return ", ".join(p.name for p in piles) or "none"


# --------------------------------------------------------------------------------------------
# Options (built once: there are only 75 distinct combos)


@cache
def combo_option(combo: Combo) -> Option:
    return Option(combo.id, f"play {combo.label}", pb.Action(combo=combo.message()))


@cache
def claim_option(index: int, pile: Pile) -> Option:
    claim = pb.Claim(pile=index, cards=pile.message())
    return Option(f"claim:{index}", f"take the {pile.label}", pb.Action(claim=claim))


# --------------------------------------------------------------------------------------------
# State


@dataclass
class RainbowState(MatchState):
    hands: list[Counts] = field(default_factory=list)
    reserves: list[Counts] = field(default_factory=list)  # 2p; all zero once taken
    set_aside: Counts = field(default_factory=lambda: [0] * len(RANKS))  # 3p
    middle: list[Pile] = field(default_factory=list)
    taken_by: list[int] = field(default_factory=list)  # per middle pile, -1 = not claimed
    scores: list[int] = field(default_factory=list)
    claimed: list[Counts] = field(default_factory=list)
    bonus: list[int] = field(default_factory=list)  # 2p end bonus
    discarded: Counts = field(default_factory=lambda: [0] * len(RANKS))
    trick: int = 0
    lead: int = 0
    phase: str = PLAY
    queue: list[int] = field(default_factory=list)  # seats still to play this trick, in order
    plays: list[tuple[int, Combo]] = field(default_factory=list)
    restriction: str | None = None
    order: list[int] = field(default_factory=list)  # claim order (indices into plays)
    claims_made: int = 0
    play_claims: list[int] = field(default_factory=list)  # per play: pile index, -1 = none
    decision: Decision | None = None

    @property
    def two_player(self) -> bool:
        return self.players == 2

    @property
    def combos_each(self) -> int:
        """Combos each player plays (and claims with) per trick."""
        return COMBOS_PER_PLAYER.get(self.players, 1)

    def holding(self) -> list[int]:
        """Seats with cards in hand, in seat order."""
        return [s for s in range(self.players) if any(self.hands[s])]


def public_cards(state: RainbowState) -> Counts:
    """Cards every seat has seen: played this trick, in the middle, claimed or discarded."""
    public = list(state.discarded)
    for counts in state.claimed:
        for i, n in enumerate(counts):
            public[i] += n
    for index, pile in enumerate(state.middle):
        if state.taken_by[index] < 0:
            public[pile.rank - 1] += pile.size
    for _, combo in state.plays:
        for rank in combo.cards:
            public[rank - 1] += 1
    return public


def _hidden_places(state: RainbowState, seat: int) -> list[Counts]:
    """What ``seat`` cannot see, in dealing order: the other hands, the reserves, the set-aside."""
    return [hand for s, hand in enumerate(state.hands) if s != seat] + state.reserves + [state.set_aside]


def _deal_unseen(world: RainbowState, seat: int, unseen: list[int], sizes: list[int], chance: Chance) -> None:
    """Deal the ranks ``unseen`` at random into the seat's hidden places of the given sizes,
    then rebuild the decision of another player to move from the hand they now hold."""
    dealt = chance.deal(unseen, sizes, "world")
    for counts, cards in zip(_hidden_places(world, seat), dealt, strict=True):
        counts[:] = counts_of(cards)
    decision = world.decision
    if decision is not None and decision.kind == "combo" and decision.seat != seat:
        _decide_now(world)


def _decide_now(state: RainbowState) -> None:
    """The decision open now, read off the phase without applying forced moves: the player to
    move offered what their hand allows (a world may deal them a hand with a single combo,
    which stays a decision), or the next claimer offered the piles left."""
    state.decision = None
    if state.phase == PLAY:
        seat = state.queue[0]
        combos = legal_combos(state.hands[seat], state.restriction)
        state.decision = Decision(seat, "combo", tuple(map(combo_option, combos)))
    elif state.phase == CLAIM:
        seat = state.plays[state.order[state.claims_made]][0]
        piles = claimable(state.middle, state.taken_by)
        state.decision = Decision(seat, "claim", tuple(claim_option(i, state.middle[i]) for i in piles))


# --------------------------------------------------------------------------------------------
# The game


class Rainbow(Game[RainbowState]):
    meta = GameMeta(
        id="rainbow",
        name="Rainbow",
        min_players=2,
        max_players=6,
        # 2.1: plays_left leaves out a 2-player seat out for good (it counted its skipped turns)
        # 2.2: typed details for trick, lead, out, bonus, a no-pile claim and the public reserve
        version="2.2",  # 2.0: a one-combo hand of several cards is asked (it was played unasked)
        variants=(
            Variant(
                "two-player",
                "2-Player Variant: 4 face-up cards, a 14-card hand plus a face-down reserve each, "
                "two combos per player per trick (the only way to play with 2)",
                players=(2,),
            ),
        ),
        hidden_information=True,
        summary="Play sets, runs or singles; bigger combos claim the point piles first.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    # -- setup ------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> RainbowState:
        players = config.players
        deck = chance.shuffled([r for r in RANKS for _ in range(COPIES)], "deck")
        face_up, hand = FACE_UP[players], HAND_SIZE[players]
        piles_each = DEALT_PILES.get(players, 1)
        chunks = [counts_of(deck[face_up + i * hand : face_up + (i + 1) * hand]) for i in range(players * piles_each)]
        state = RainbowState(
            config=config,
            chance=chance,
            hands=chunks[::piles_each],
            reserves=chunks[1::piles_each] if piles_each > 1 else [],
            set_aside=counts_of(deck[face_up + players * piles_each * hand :]),
            middle=first_piles(deck[:face_up]),
            scores=[0] * players,
            claimed=[[0] * len(RANKS) for _ in range(players)],
            bonus=[0] * players,
        )
        state.taken_by = [-1] * len(state.middle)
        log = state.log
        log.public(
            CHANCE_SEAT,
            "deal",
            f"deals {face_up} face-up point cards ({cards_text(counts_of(deck[:face_up]))}) and "
            + (
                f"two piles of {hand} to each player: a hand and a face-down reserve"
                if players == 2
                else f"{hand} cards to each player"
            )
            + (f"; {sum(state.set_aside)} cards are set aside face down" if any(state.set_aside) else ""),
            pb.MiddleEvent(piles=[p.message() for p in state.middle]),
        )
        for seat in range(players):
            cards = state.hands[seat]
            log.private(
                (seat,),
                seat,
                "hand",
                f"is dealt {cards_text(cards)}",
                pb.HandEvent(seat=seat, cards=pb.Cards(counts=cards)),
            )
        state.lead = chance.pick(range(players), "start")
        log.public(
            state.lead,
            "lead",
            "leads the first trick (saw a rainbow most recently)",
            pb.TrickEvent(trick=1, lead_seat=state.lead),
        )
        self._start_trick(state)
        self._advance(state)
        return state

    # -- the contract hooks -----------------------------------------------------------------

    def decisions(self, state: RainbowState) -> Iterable[Decision]:
        return (state.decision,) if state.decision else ()

    def resolve(self, state: RainbowState, chosen: Mapping[int, Option]) -> None:
        assert state.decision is not None
        seat = state.decision.seat
        action = chosen[seat].action
        assert isinstance(action, pb.Action)
        if action.WhichOneof("choice") == "combo":
            self._play(state, seat, Combo(_KIND[action.combo.type], action.combo.rank, action.combo.length))
        else:
            self._claim(state, action.claim.pile)
        self._advance(state)

    # -- the flow ---------------------------------------------------------------------------

    def _advance(self, state: RainbowState) -> None:
        """Run the match on to the next real decision, applying forced moves on the way."""
        state.decision = None
        while state.phase != OVER:
            if state.phase == PLAY:
                while state.queue and not any(state.hands[state.queue[0]]):
                    state.queue.pop(0)  # 2p: out for good during this trick
                if not state.queue:
                    self._start_claims(state)
                    continue
                seat = state.queue[0]
                combos = legal_combos(state.hands[seat], state.restriction)
                if len(combos) == 1 and sum(state.hands[seat]) == 1:  # a last card: public
                    self._play(state, seat, combos[0])
                    continue
                state.decision = Decision(seat, "combo", tuple(combo_option(c) for c in combos))
                return
            if state.claims_made == len(state.order):
                self._end_trick(state)
                continue
            seat = state.plays[state.order[state.claims_made]][0]
            piles = claimable(state.middle, state.taken_by)
            if len(piles) > 1:
                state.decision = Decision(seat, "claim", tuple(claim_option(i, state.middle[i]) for i in piles))
                return
            if piles:
                self._claim(state, piles[0])
            else:
                state.log.public(
                    seat,
                    "claim",
                    "finds no point pile left to claim",
                    pb.ClaimEvent(seat=seat, score=state.scores[seat], none=True),
                )
                state.claims_made += 1

    def _start_trick(self, state: RainbowState) -> None:
        state.trick += 1
        state.phase = PLAY
        state.plays = []
        state.restriction = None
        state.order = []
        state.claims_made = 0
        state.play_claims = []
        holding = state.holding()
        seats = [s for s in holding if s >= state.lead] + [s for s in holding if s < state.lead]
        state.queue = seats * state.combos_each
        state.log.public(
            CHANCE_SEAT,
            "trick",
            f"trick {state.trick}: seat {state.lead} leads; point piles: {piles_text(state.middle)}",
            pb.TrickEvent(trick=state.trick, lead_seat=state.lead, piles=[p.message() for p in state.middle]),
        )

    def _play(self, state: RainbowState, seat: int, combo: Combo) -> None:
        hand = state.hands[seat]
        for rank in combo.cards:
            hand[rank - 1] -= 1
        state.queue.pop(0)
        state.plays.append((seat, combo))
        if combo.kind != SINGLE and state.restriction is None:
            state.restriction = combo.kind
        left = sum(hand)
        state.log.public(
            seat,
            "play",
            f"plays {combo.label} ({left} card{'s' if left != 1 else ''} left)",
            pb.PlayEvent(seat=seat, combo=combo.message(), hand_left=left),
        )
        if not left and state.two_player and any(state.reserves[seat]):
            reserve = state.reserves[seat]
            state.hands[seat], state.reserves[seat] = reserve, [0] * len(RANKS)
            size = sum(reserve)
            state.log.public(
                seat,
                "reserve",
                f"hand empty: takes the face-down reserve ({size} cards)",
                pb.HandEvent(seat=seat, size=size),
            )
            state.log.private(
                (seat,),
                seat,
                "reserve",
                f"finds {cards_text(reserve)} in the reserve",
                pb.HandEvent(seat=seat, cards=pb.Cards(counts=reserve), size=size),
            )

    def _start_claims(self, state: RainbowState) -> None:
        state.phase = CLAIM
        state.order = claim_order(state.plays)
        state.play_claims = [-1] * len(state.plays)

    def _claim(self, state: RainbowState, index: int) -> None:
        play = state.order[state.claims_made]
        seat = state.plays[play][0]
        pile = state.middle[index]
        state.taken_by[index] = seat
        state.play_claims[play] = index
        state.claims_made += 1
        state.claimed[seat][pile.rank - 1] += pile.size
        state.scores[seat] += pile.total
        state.log.public(
            seat,
            "claim",
            f"takes the {pile.label}, score {state.scores[seat]}",
            pb.ClaimEvent(seat=seat, pile=index, cards=pile.message(), score=state.scores[seat]),
        )

    def _end_trick(self, state: RainbowState) -> None:
        for index, pile in enumerate(state.middle):
            if state.taken_by[index] < 0:  # ruling 5
                state.discarded[pile.rank - 1] += pile.size
        state.middle, state.taken_by = [], []
        played = counts_of(rank for _, combo in state.plays for rank in combo.cards)
        piles = organise(played)
        holding = state.holding()
        out = [s for s in range(state.players) if s not in holding]
        newly_out = sorted({seat for seat, _ in state.plays} - set(holding))
        for seat in newly_out:
            state.log.public(seat, "out", "is out of cards", pb.OutEvent(seat=seat))
        if len(out) >= (1 if state.two_player else 2):
            self._finish(state, out)  # the last trick's cards stay on view as played
            return
        kept, dropped = trim(piles, len(holding) * state.combos_each)
        for pile in dropped:
            state.discarded[pile.rank - 1] += pile.size
        state.middle, state.taken_by = kept, [-1] * len(kept)
        state.log.public(
            CHANCE_SEAT,
            "middle",
            f"the played cards form {piles_text(piles)}"
            + (f"; discarded from the low end: {piles_text(dropped)}" if dropped else ""),
            pb.MiddleEvent(piles=[p.message() for p in kept], discarded=[p.message() for p in dropped]),
        )
        biggest = state.plays[state.order[0]][0]
        state.lead = next(s for s in [*range(biggest, state.players), *range(biggest)] if s in holding)
        self._start_trick(state)

    def _finish(self, state: RainbowState, out: list[int]) -> None:
        state.phase = OVER
        state.queue = []
        if state.two_player:
            for seat in range(2):
                if seat not in out:  # ruling 8: the other player scores the cards in hand
                    state.bonus[seat] = sum(state.hands[seat])
                    state.scores[seat] += state.bonus[seat]
                    state.log.public(
                        seat,
                        "bonus",
                        f"scores +{state.bonus[seat]} for cards left in hand",
                        pb.BonusEvent(seat=seat, bonus=state.bonus[seat], score=state.scores[seat]),
                    )
        who = f"seat {out[0]} is" if len(out) == 1 else f"seats {', '.join(map(str, out[:-1]))} and {out[-1]} are"
        state.log.public(
            CHANCE_SEAT,
            "end",
            f"game over: {who} out of cards; scores {', '.join(map(str, state.scores))}",
            pb.EndEvent(scores=state.scores, bonus=state.bonus),
        )

    # -- views ------------------------------------------------------------------------------

    def sample_world(self, state: RainbowState, seat: int, chance: Chance) -> RainbowState:
        """Hidden from ``seat``: the other hands, every reserve not taken yet (its own too: its
        owner does not know it) and the cards set aside. Their sizes are public and the play
        reveals nothing more (any combo may be played), so the unseen cards are dealt again
        into those places at random."""
        world = self.copy_for(state, seat, chance)
        places = _hidden_places(world, seat)
        unseen = [rank for counts in places for rank in RANKS for _ in range(counts[rank - 1])]
        _deal_unseen(world, seat, unseen, [sum(counts) for counts in places], chance)
        self.refresh(world)
        return world

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> RainbowState:
        """Kept: the seat's hand and everything public (plays, piles, claims, scores, the
        trick's queue rebuilt from the lead and the plays). Drawn: the observation's unseen
        cards, dealt at random to the other hands, the reserves and the set-aside cards by
        their sizes, as ``sample_world`` does. The seat knows nothing the observation lacks."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        players = config.players
        phase = _KIND_PHASE[obs.phase]
        plays = [(p.seat, Combo(_KIND[p.combo.type], p.combo.rank, p.combo.length)) for p in obs.played]
        order = list(obs.claim_order)
        claimed = [list(c.counts) for c in obs.claimed]
        scores = list(obs.scores)
        bonus = [0] * players
        if phase == OVER and players == 2:
            bonus = [scores[s] - sum(r * n for r, n in zip(RANKS, claimed[s], strict=True)) for s in range(players)]
        world = RainbowState(
            config=config,
            chance=chance.fork(),
            hands=[list(obs.hand.counts) if s == seat else [0] * len(RANKS) for s in range(players)],
            reserves=[[0] * len(RANKS) for _ in obs.reserve_sizes],
            middle=[Pile(p.rank, p.count) for p in obs.middle],
            taken_by=list(obs.middle_taken_by),
            scores=scores,
            claimed=claimed,
            bonus=bonus,
            discarded=list(obs.discarded.counts),
            trick=obs.trick,
            lead=obs.lead_seat,
            phase=phase,
            plays=plays,
            restriction=_KIND[obs.restriction] if obs.restriction else None,
            order=order,
            claims_made=sum(p.claimed for p in obs.played),
            play_claims=[p.claimed_pile for p in obs.played] if order else [],
        )
        sizes = [n for s, n in enumerate(obs.hand_sizes) if s != seat] + list(obs.reserve_sizes) + [obs.set_aside]
        unseen = [rank for rank, n in zip(RANKS, obs.unseen.counts, strict=True) for _ in range(n)]
        _deal_unseen(world, seat, unseen, sizes, chance)
        if phase == PLAY:
            # The trick's queue: holders at its start (holding now, or emptied by a play in it)
            # from the lead, once per combo each; played entries and passed-over empty hands go.
            holding = [s for s in range(players) if obs.hand_sizes[s] or any(p == s for p, _ in plays)]
            queue = [s for s in holding if s >= world.lead] + [s for s in holding if s < world.lead]
            queue *= world.combos_each
            for player, _ in plays:
                while queue[0] != player:
                    queue.pop(0)
                queue.pop(0)
            while queue and not obs.hand_sizes[queue[0]]:
                queue.pop(0)
            world.queue = queue
        _decide_now(world)
        self.refresh(world)
        return world

    def observation(self, state: RainbowState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        public = public_cards(state)
        hand = [0] * len(RANKS) if spectator else state.hands[viewer]
        decision = state.decision
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=state.players,
            two_player=state.two_player,
            trick=state.trick,
            first_trick=state.trick == 1,
            phase=_PB_PHASE[state.phase],
            lead_seat=state.lead,
            turn_seat=decision.seat if decision else -1,
            restriction=_PB_TYPE[state.restriction] if state.restriction else pb.COMBO_TYPE_UNSPECIFIED,
            played=[
                pb.Play(
                    seat=seat,
                    combo=combo.message(),
                    claimed_pile=state.play_claims[i] if state.play_claims else -1,
                    claimed=bool(state.play_claims) and i in state.order[: state.claims_made],
                )
                for i, (seat, combo) in enumerate(state.plays)
            ],
            middle=[p.message() for p in state.middle],
            middle_taken_by=state.taken_by,
            claim_order=state.order,
            hand=pb.Cards(counts=hand),
            hand_sizes=[sum(h) for h in state.hands],
            reserve_sizes=[sum(r) for r in state.reserves],
            set_aside=sum(state.set_aside),
            scores=state.scores,
            claimed=[pb.Cards(counts=c) for c in state.claimed],
            out=[not any(h) for h in state.hands],
            discarded=pb.Cards(counts=state.discarded),
            unseen=pb.Cards(counts=[COPIES - p - h for p, h in zip(public, hand, strict=True)]),
            # 2 players: a seat out for good stays queued until its turn comes, where it is
            # skipped (ruling 8): it plays no more, so it is not counted.
            plays_left=sum(1 for seat in state.queue if any(state.hands[seat])),
        )
        if spectator:
            obs.hands.extend(pb.Cards(counts=h) for h in state.hands)
            obs.reserves.extend(pb.Cards(counts=r) for r in state.reserves)
            obs.set_aside_cards.counts.extend(state.set_aside)
        return obs

    def score(self, state: RainbowState) -> Result:
        best = max(state.scores)
        winners = [s for s, v in enumerate(state.scores) if v == best]
        plural = "s" if len(winners) > 1 else ""
        summary = f"winner{plural}: seat{plural} {', '.join(map(str, winners))} with {best} points"
        return Result.ranked(state.scores, state.scores, summary)


GAME = Rainbow()
