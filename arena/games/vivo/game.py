"""Vivo — a trick-taking card game of harmony (``shared/rules/vivo.md``).

Rules as implemented (rulebook line references in brackets):

* 3–4 players [:69–75]. 48 cards, 4 suits × ranks 1–12 [:27–29]; with 3 players one suit is
  removed [:72]. 15 Harmony cards, each asking for 1–4 distinct suits per trick (Solo, Duet,
  Trio, Quartet) [:31, :54–59]; the mix and the removal per player count are in
  ``components.toml``.
* 2 rounds of 12 tricks [:8]. Each round: shuffle the 12 Harmony cards, show the first
  (current) and the second (preview) face-up [:87–93]; shuffle the cards and deal 12 to each
  player [:95–97] (every card is dealt). After each trick the current Harmony card is discarded,
  the preview becomes current and the next one is revealed [:246–250].
* The leader plays any card; then clockwise (seat order) each plays one card [:103–113],
  following the harmony (below).
* Scoring a trick [:177–219]: off-harmony cards are ignored. The player of the highest
  on-harmony rank puts the card face-down in their scoring row (2 points) [:187–196]; the player
  of the lowest puts it face-up (worth its rank) [:200–209]; the rest are discarded. Equal ranks:
  the later player in the trick wins the tie [:223–231]; if all on-harmony cards tie, the tie
  winner scores highest only and nobody scores lowest [:235–240].
* The lowest scorer leads the next trick, else the highest scorer [:252–258]; round 2 is led by
  the lowest scorer of round 1's last trick [:279–281] (else its highest scorer: the same rule).
* After round 2 the highest total (both rounds) wins; equal totals share the victory [:285–295].

Rulings (from ``shared/rules/NOTES.md`` §4.24 unless stated):

1. **Harmony removal table swapped** [:79–85]: 3 players remove all 3 Quartets (a Quartet cannot
   be met by 3 players holding 3 suits), 4 players remove 1 Solo, 1 Duet, 1 Trio; 12 cards remain
   either way, one per trick. The Solo/Duet/Trio split (4 each) is ASSUMED.
2. **Follow rule** [:117–157, :305–315], formalised: H = suits the Harmony card asks for, S = the
   distinct suits of this trick's on-harmony cards so far, r = players still to play after you:
   |S| ≥ H → play a suit in S; |S| + r + 1 ≤ H → play a new suit (Forced New Suit, and also when
   the harmony can no longer be met, "you must still play a new suit"); otherwise any suit (any
   card keeps |S| + r ≥ H). A player holding no card that meets the obligation plays
   **off-harmony**: any card, offered with ``off_harmony`` set and "off-harmony" in its label
   [:159–173]. Off-harmony cards do not add to S and cannot score. So Solo = everybody follows
   the lead's suit, Trio with 3 players and Quartet with 4 = every player a different suit.
3. **One on-harmony card** (everybody else off-harmony) counts as "all tie": it scores highest.
4. **Harmony deck in round 2:** all 12 cards are reshuffled (NOTES 5).
5. **Which suit 3 players remove** ("any 1 suit", :72): always the last suit of
   ``components.toml`` (blue). Suits are interchangeable, so a random pick would only rename
   cards; a fixed one keeps records and presets simple.
6. **First leader** ("most recently sang a song", :99): a seeded random seat (NOTES §0).
7. **Memory** ("may NOT look at the discard pile / opponents' face-down cards", :301–303): every
   card is played face-up first, so every seat's observation lists this round's plays (NOTES §3).
8. **Deal:** after the shuffle, seat s receives cards ``12·s … 12·s + 11`` of the shuffled deck
   (dealing one at a time would give the same distribution). Hands are shown sorted.
9. Every card play is a decision, even when only one card is legal (e.g. the last trick).

Bound: exactly 2 rounds of 12 tricks, every card play a decision, so every game has exactly
2 × 12 × players steps: 72 at 3 players, 96 at 4.

Chance labels: ``"start"`` (pick of the first leader), ``"harmony"`` (one shuffle of the round's
12 Harmony cards per round, items are the number of suits 1–4), ``"deck"`` (one shuffle of the
playing cards per round, items are :class:`Card`).

Decision kind: ``"play"``, options ``card:<suit>-<rank>`` (e.g. ``card:red-7``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple, TypeAlias

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result
from arena.games.v1 import vivo_pb2 as pb

ROUNDS = 2  # :8
TRICKS = 12  # tricks per round :8
HAND_SIZE = 12  # :97
HIGH_POINTS = 2  # a face-down (highest) card :194-196, :270

HarmonyCard: TypeAlias = pb.Harmony.ValueType  # the number of suits a Harmony card asks for (1-4)

HARMONY_NAMES: dict[HarmonyCard, str] = {
    pb.SOLO: "Solo",
    pb.DUET: "Duet",
    pb.TRIO: "Trio",
    pb.QUARTET: "Quartet",
}
_HARMONY_KEYS = {"solo": pb.SOLO, "duet": pb.DUET, "trio": pb.TRIO, "quartet": pb.QUARTET}


class Card(NamedTuple):
    suit: str
    rank: int

    def __str__(self) -> str:
        return f"{self.suit} {self.rank}"

    @property
    def id(self) -> str:
        return f"{self.suit}-{self.rank}"


class Played(NamedTuple):
    seat: int
    card: Card
    off_harmony: bool = False


class Scored(NamedTuple):
    card: Card
    face_down: bool

    @property
    def points(self) -> int:
        return HIGH_POINTS if self.face_down else self.card.rank


@dataclass(frozen=True)
class Setup:
    """What one player count plays with."""

    suits: tuple[str, ...]
    harmonies: tuple[HarmonyCard, ...]  # the round's Harmony cards (number of suits each), sorted


def _load_setups() -> tuple[tuple[str, ...], range, dict[int, Setup]]:
    data = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))
    suits = tuple(data["cards"]["suits"])
    ranks = range(data["cards"]["min_rank"], data["cards"]["max_rank"] + 1)
    setups: dict[int, Setup] = {}
    for players, table in data["setup"].items():
        kept = suits[: len(suits) - table["remove_suits"]]
        harmonies: list[HarmonyCard] = []
        for key, size in _HARMONY_KEYS.items():
            harmonies += [size] * (data["harmony"][key] - table["remove_harmony"].get(key, 0))
        # One Harmony card per trick, and every card dealt.
        if len(harmonies) != TRICKS or len(kept) * len(ranks) != int(players) * HAND_SIZE:
            raise ValueError(
                f"components.toml: {players} players need {TRICKS} Harmony cards and {HAND_SIZE} cards each"
            )
        setups[int(players)] = Setup(kept, tuple(harmonies))
    return suits, ranks, setups


SUITS, RANKS, SETUPS = _load_setups()


def deck_cards(suits: Sequence[str]) -> list[Card]:
    """The playing cards of these suits in canonical order (what the "deck" shuffle receives)."""
    return [Card(s, r) for s in suits for r in RANKS]


_PB_CARDS = {card: pb.Card(suit=card.suit, rank=card.rank) for card in deck_cards(SUITS)}
_CARDS = {(card.suit, card.rank): card for card in _PB_CARDS}  # reading observations
_DECKS = {setup.suits: tuple(deck_cards(setup.suits)) for setup in SETUPS.values()}  # per player count


def _option(card: Card, off_harmony: bool) -> Option:
    label = f"{card} (off-harmony: no card follows the harmony)" if off_harmony else str(card)
    action = pb.Action(card=_PB_CARDS[card], off_harmony=off_harmony)
    return Option(f"card:{card.id}", label, action)


_OPTIONS = {(card, off): _option(card, off) for card in _PB_CARDS for off in (False, True)}
_CARD_OF_OPTION = {option.id: card for (card, _), option in _OPTIONS.items()}


# --------------------------------------------------------------------------------------------
# Pure rules helpers


def obligation(harmony: int, suits_played: int, still_to_play: int) -> pb.Obligation.ValueType:
    """What the follow rule asks (a ``pb.Obligation``), from H, |S| and r (NOTES ruling 2)."""
    if suits_played >= harmony:
        return pb.PLAYED_SUIT
    if suits_played + still_to_play + 1 <= harmony:
        return pb.NEW_SUIT  # forced, or the harmony can no longer be met: still a new suit
    return pb.ANY_SUIT


def legal_cards(
    hand: Sequence[Card], harmony: int, suits_played: Sequence[str], still_to_play: int
) -> tuple[list[Card], bool]:
    """The cards that may be played, and whether they are off-harmony (no card fits)."""
    need = obligation(harmony, len(suits_played), still_to_play)
    if need == pb.ANY_SUIT:
        return list(hand), False
    want_played = need == pb.PLAYED_SUIT
    fitting = [card for card in hand if (card.suit in suits_played) == want_played]
    return (fitting, False) if fitting else (list(hand), True)


def trick_scorers(plays: Sequence[Played]) -> tuple[Played, Played | None]:
    """The highest and lowest on-harmony plays (later play wins ties; all tie = no lowest)."""
    on = [p for p in plays if not p.off_harmony]  # the lead is always on-harmony
    high = max(reversed(on), key=lambda p: p.card.rank)  # first maximum of the reversed = latest
    low = min(reversed(on), key=lambda p: p.card.rank)
    if low.card.rank == high.card.rank:
        return high, None
    return high, low


def row_points(row: Iterable[Scored]) -> int:
    """A scoring row's points: 2 per face-down card, the rank of each face-up card (:268–271)."""
    return sum(scored.points for scored in row)


def harmony_name(size: HarmonyCard) -> str:
    return f"{HARMONY_NAMES[size]} ({size} suit{'s' if size > 1 else ''})"


def points(value: int) -> str:
    return f"{value} point{'' if value == 1 else 's'}"


# --------------------------------------------------------------------------------------------
# State and game


@dataclass
class VivoState(MatchState):
    suits: tuple[str, ...] = ()
    hands: list[list[Card]] = field(default_factory=list)
    round: int = 1
    trick: int = 1  # 1-based within the round
    harmonies: list[HarmonyCard] = field(default_factory=list)  # this round's order; trick t uses [t-1]
    leader: int = 0
    turn: int = 0
    plays: list[Played] = field(default_factory=list)  # the trick in progress
    suits_played: list[str] = field(default_factory=list)  # S: on-harmony suits of this trick
    round_plays: list[Played] = field(default_factory=list)  # this round's finished tricks
    rows: list[list[Scored]] = field(default_factory=list)  # this round's scoring rows
    round_scores: list[list[int]] = field(default_factory=list)  # per seat, finished rounds
    over: bool = False

    @property
    def harmony(self) -> HarmonyCard:
        return self.harmonies[self.trick - 1]

    @property
    def next_harmony(self) -> HarmonyCard:
        return self.harmonies[self.trick] if self.trick < TRICKS else pb.HARMONY_UNSPECIFIED

    @property
    def still_to_play(self) -> int:
        return self.players - len(self.plays) - 1

    def total(self, seat: int) -> int:
        return sum(self.round_scores[seat]) + (0 if self.over else row_points(self.rows[seat]))


def sort_hand(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: (SUITS.index(c.suit), c.rank))


def round_voids(state: VivoState) -> list[set[str]]:
    """Per seat, the suits it has shown it no longer holds this round. An off-harmony play means no card met the
    obligation (ruling 2), and the card played did not meet it either: a card of a suit
    already in the trick shows the obligation was a new suit (no card outside those suits
    held), a card of a new suit shows it was a played suit (none of those suits held)."""
    players = state.players
    plays = state.round_plays + state.plays
    voids: list[set[str]] = [set() for _ in range(players)]
    for start in range(0, len(plays), players):
        played: list[str] = []
        for play in plays[start : start + players]:
            if play.off_harmony:
                voids[play.seat] |= set(state.suits) - set(played) if play.card.suit in played else set(played)
            elif play.card.suit not in played:
                played.append(play.card.suit)
    return voids


def _deal_unseen(world: VivoState, seat: int, seen: Iterable[Card], sizes: list[int], chance: Chance) -> None:
    """Deal the cards of the world's suits not in ``seen`` (the seat's hand, this round's
    plays) at random to the other hands, of ``sizes`` (in seat order), among the deals that respect the
    voids this round's off-harmony plays show."""
    others = [s for s in range(world.players) if s != seat]
    known = set(seen)
    unseen = [card for card in _DECKS[world.suits] if card not in known]
    voids = round_voids(world)
    accepts = [lambda card, void=voids[s]: card.suit not in void for s in others]
    hands = chance.deal(unseen, sizes, "world", accepts if any(voids[s] for s in others) else None)
    for s, hand in zip(others, hands, strict=True):
        world.hands[s] = sort_hand(hand)


class Vivo(Game[VivoState]):
    meta = GameMeta(
        id="vivo",
        name="Vivo",
        min_players=3,
        max_players=4,
        version="1.1",
        hidden_information=True,
        summary="Trick-taking: each trick must show the Harmony card's number of suits; "
        "highest card scores 2, lowest scores its rank.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> VivoState:
        players = config.players
        setup = SETUPS[players]
        start = chance.pick(range(players), "start")
        state = VivoState(
            config=config,
            chance=chance,
            suits=setup.suits,
            leader=start,
            turn=start,
            round_scores=[[] for _ in range(players)],
        )
        state.log.public(CHANCE_SEAT, "start", f"seat {start} leads the first trick", pb.RoundEvent(leader=start))
        self._deal(state)
        return state

    def decisions(self, state: VivoState) -> Iterable[Decision]:
        if state.over:
            return ()
        seat = state.turn
        cards, off = legal_cards(state.hands[seat], state.harmony, state.suits_played, state.still_to_play)
        return (Decision(seat, "play", tuple(_OPTIONS[card, off] for card in cards)),)

    def resolve(self, state: VivoState, chosen: Mapping[int, Option]) -> None:
        seat = state.turn
        option = chosen[seat]
        assert isinstance(option.action, pb.Action)
        card = _CARD_OF_OPTION[option.id]
        state.hands[seat].remove(card)
        play = Played(seat, card, option.action.off_harmony)
        state.plays.append(play)
        if play.off_harmony:
            state.log.public(seat, "play", f"plays {card} off-harmony", _play_pb(play))
        else:
            if card.suit not in state.suits_played:
                state.suits_played.append(card.suit)
            state.log.public(seat, "play", f"plays {card}", _play_pb(play))
        if len(state.plays) < state.players:
            state.turn = (seat + 1) % state.players
        else:
            self._finish_trick(state)

    # -- rules ------------------------------------------------------------------------------

    def _deal(self, state: VivoState) -> None:
        """Set up a round: shuffle the Harmony cards and the deck, deal 12 to each player."""
        setup = SETUPS[state.players]
        state.harmonies = state.chance.shuffled(setup.harmonies, "harmony")
        deck = state.chance.shuffled(deck_cards(setup.suits), "deck")
        state.hands = [sort_hand(deck[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(state.players)]
        state.rows = [[] for _ in range(state.players)]
        state.round_plays = []
        state.trick = 1
        removed = [s for s in SUITS if s not in setup.suits]
        without = f", {', '.join(removed)} removed" if removed else ""
        state.log.public(
            CHANCE_SEAT,
            "round",
            f"round {state.round}{without}: {HAND_SIZE} cards dealt to each player",
            pb.RoundEvent(round=state.round, removed_suits=removed, hand_size=HAND_SIZE),
        )
        for seat, hand in enumerate(state.hands):
            state.log.private(
                [seat],
                seat,
                "deal",
                "is dealt " + ", ".join(map(str, hand)),
                pb.DealEvent(round=state.round, cards=[_PB_CARDS[c] for c in hand]),
            )
        self._start_trick(state)

    def _start_trick(self, state: VivoState) -> None:
        state.turn = state.leader
        nxt = state.next_harmony
        preview = f", next {HARMONY_NAMES[nxt]}" if nxt else ", last trick of the round"
        state.log.public(
            CHANCE_SEAT,
            "trick",
            f"round {state.round} trick {state.trick}: harmony {harmony_name(state.harmony)}"
            f"{preview}; seat {state.leader} leads",
            pb.TrickEvent(
                round=state.round,
                trick=state.trick,
                harmony=state.harmony,
                next_harmony=nxt,
                leader=state.leader,
            ),
        )

    def _finish_trick(self, state: VivoState) -> None:
        high, low = trick_scorers(state.plays)
        for play, face_down, what in ((high, True, "highest"), (low, False, "lowest")):
            if play is None:
                continue
            scored = Scored(play.card, face_down)
            state.rows[play.seat].append(scored)
            side = "face-down" if face_down else "face-up"
            state.log.public(
                play.seat,
                "score",
                f"scores {play.card} {side} ({what}): {points(scored.points)}",
                pb.ScoreEvent(seat=play.seat, card=_PB_CARDS[play.card], face_down=face_down, points=scored.points),
            )
        state.leader = (low or high).seat
        state.round_plays += state.plays
        state.plays = []
        state.suits_played = []
        if state.trick < TRICKS:
            state.trick += 1
            self._start_trick(state)
            return
        self._finish_round(state)

    def _finish_round(self, state: VivoState) -> None:
        scores = [row_points(row) for row in state.rows]
        for seat, value in enumerate(scores):
            state.round_scores[seat].append(value)
        totals = [sum(scores) for scores in state.round_scores]
        state.log.public(
            CHANCE_SEAT,
            "round_end",
            f"round {state.round} over: points {', '.join(map(str, scores))}; totals {', '.join(map(str, totals))}",
            pb.RoundEvent(round=state.round, round_scores=scores, totals=totals),
        )
        if state.round < ROUNDS:
            state.round += 1
            self._deal(state)  # led by this last trick's lowest (else highest) scorer
            return
        state.over = True
        state.log.public(
            CHANCE_SEAT, "end", f"game over: totals {', '.join(map(str, totals))}", pb.RoundEvent(totals=totals)
        )

    # -- views ------------------------------------------------------------------------------

    def sample_world(self, state: VivoState, seat: int, chance: Chance) -> VivoState:
        """Hidden from ``seat``: the other hands and the order of the Harmony cards after the
        preview (their mix is public). An off-harmony play shows that its player holds no card
        of the suits the follow rule asked for: those voids last the round, and the other
        hands are dealt again at random among the deals that respect them."""
        world = self.copy_for(state, seat, chance)
        if not state.over:
            shown = state.trick + 1  # the current Harmony card and the preview
            world.harmonies = state.harmonies[:shown] + chance.shuffled(state.harmonies[shown:], "world")
            seen = [*state.hands[seat], *(p.card for p in state.round_plays), *(p.card for p in state.plays)]
            _deal_unseen(world, seat, seen, [len(h) for s, h in enumerate(state.hands) if s != seat], chance)
        self.refresh(world)
        return world

    def world_from_observation(self, config: MatchConfig, seat: int, observation: Message, chance: Chance) -> VivoState:
        """Kept: the seat's hand, this round's plays (the scoring rows are replayed from them),
        the scores, the current and preview Harmony cards. Drawn: the other hands (as in
        ``sample_world``, voids honoured) and the order of the face-down Harmony cards. The
        order of this round's past Harmony cards is not observed (it no longer matters): the
        world gives them in suit-count order."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        players = config.players
        setup = SETUPS[players]
        hand = [_CARDS[c.suit, c.rank] for c in obs.hand]
        round_plays = [_played(p) for p in obs.round_plays]
        world = VivoState(
            config=config,
            chance=chance.fork(),
            suits=setup.suits,
            hands=[hand if s == seat else [] for s in range(players)],
            round=obs.round,
            trick=obs.trick,
            leader=obs.leader,
            turn=obs.turn,
            plays=[_played(p) for p in obs.trick_plays],
            suits_played=list(obs.suits_played),
            round_plays=round_plays,
            rows=[[] for _ in range(players)],
            round_scores=[list(view.round_scores) for view in obs.seats],
            over=obs.over,
        )
        for start in range(0, len(round_plays), players):
            high, low = trick_scorers(round_plays[start : start + players])
            world.rows[high.seat].append(Scored(high.card, True))
            if low is not None:
                world.rows[low.seat].append(Scored(low.card, False))
        if not obs.over:
            shown = [obs.harmony] + ([obs.next_harmony] if obs.next_harmony else [])
            unseen = [size for size, n in zip(HARMONY_NAMES, obs.harmony_unseen, strict=True) for _ in range(n)]
            past = list(setup.harmonies)
            for size in shown + unseen:
                past.remove(size)
            world.harmonies = past + shown + chance.shuffled(unseen, "world")
            sizes = [view.hand_size for s, view in enumerate(obs.seats) if s != seat]
            seen = [*hand, *(p.card for p in round_plays), *(p.card for p in world.plays)]
            _deal_unseen(world, seat, seen, sizes, chance)
        self.refresh(world)
        return world

    def observation(self, state: VivoState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        unseen = state.harmonies[state.trick + 1 :] if not state.over else []
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=state.players,
            suits=state.suits,
            round=state.round,
            trick=state.trick,
            harmony=pb.HARMONY_UNSPECIFIED if state.over else state.harmony,
            next_harmony=pb.HARMONY_UNSPECIFIED if state.over else state.next_harmony,
            harmony_pile=len(unseen),
            harmony_unseen=[unseen.count(size) for size in HARMONY_NAMES],
            leader=state.leader,
            turn=state.turn,
            trick_plays=[_play_pb(p) for p in state.plays],
            suits_played=state.suits_played,
            still_to_play=0 if state.over else state.still_to_play,
            obligation=(
                pb.OBLIGATION_UNSPECIFIED
                if state.over
                else obligation(state.harmony, len(state.suits_played), state.still_to_play)
            ),
            hand=[] if spectator else [_PB_CARDS[c] for c in state.hands[viewer]],
            seats=[
                pb.SeatView(
                    hand_size=len(state.hands[seat]),
                    face_up=[_PB_CARDS[s.card] for s in state.rows[seat] if not s.face_down],
                    face_down=sum(s.face_down for s in state.rows[seat]),
                    round_points=row_points(state.rows[seat]),
                    round_scores=state.round_scores[seat],
                    score=state.total(seat),
                )
                for seat in range(state.players)
            ],
            round_plays=[_play_pb(p) for p in state.round_plays],
            over=state.over,
        )
        if spectator:
            obs.hands.extend(pb.Hand(cards=[_PB_CARDS[c] for c in hand]) for hand in state.hands)
            obs.harmony_deck.extend(unseen)
        return obs

    def score(self, state: VivoState) -> Result:
        totals = [sum(scores) for scores in state.round_scores]
        best = max(totals)
        winners = [str(s) for s, t in enumerate(totals) if t == best]
        summary = f"winner{'s' if len(winners) > 1 else ''}: seat {', '.join(winners)} with {best} points"
        return Result.ranked(totals, totals, summary)


def _played(play: pb.Play) -> Played:
    return _PLAYED[play.seat, _CARDS[play.card.suit, play.card.rank], play.off_harmony]


_PLAYED = {
    (seat, card, off): Played(seat, card, off)
    for seat in range(max(SETUPS))
    for card in _PB_CARDS
    for off in (False, True)
}


@cache  # at most 4 seats x 48 cards x 2; the messages are never mutated
def _play_pb(play: Played) -> pb.Play:
    return pb.Play(seat=play.seat, card=_PB_CARDS[play.card], off_harmony=play.off_harmony)


GAME = Vivo()
