"""Prey — must-follow trick-taking with Predator and Prey numbers, 3–4 players
(``shared/rules/prey.md``).

Rules as implemented (rulebook line references in brackets):

* 48 Animal cards, 4 suits × 12 [:29–33]; each card has a Predator number and a Prey number
  (designed: ``components.toml``). Each player has 2 goal dice and a score card [:35–38].
* A round [:42–70, :254–260]: every player rolls both dice, rerolling doubles until they differ
  [:50–55]; the 48 cards are shuffled and 12 dealt to each player; at 3 players a 4th hand of 12
  is set aside unseen [:59–70].
* First lead [:74–85]: the lowest dice total leads trick 1 of the first round; ties go to the
  lowest single die, then a random choice. Later rounds are led by the winner of the previous
  round's last trick [:262–264].
* Goal numbers [:89–103]: a player scores 1 point when their tricks this round equal either
  die; a die showing 6 also scores with 0 tricks [:107–127].
* 12 tricks a round [:131–141]: tricks 1–6 are Predator tricks (Predator numbers), tricks 7–12
  Prey tricks (Prey numbers) [:145–161]. The leader plays any card; clockwise each player plays
  one card and must follow the lead suit if able, else plays any card [:165–189]. The highest
  number (of the trick's mode) in the lead suit wins and leads the next trick [:193–217].
* Round end [:225–233]: each player with tricks equal to a goal number scores 1 point.
* End [:17, :237–250]: a player's second point ends the game at once and wins; several
  players reaching 2 points together share the victory. Otherwise a new round [:254–264].

Rulings (``shared/rules/NOTES.md`` §4.14 unless stated):

1. **Card numbers** (missing data): designed, in ``components.toml``. Within a suit the
   Predator numbers are 1–12 and the Prey numbers a permutation of 1–12, so a trick never ties
   (NOTES ruling 1).
2. **Doubles** [:50–55]: both dice are rerolled until they differ. Seats roll in seat order.
3. **First lead** [:74–85]: among the seats with the lowest total, the lowest single die; if
   still tied (the same two values), a seeded random pick among them. Only in round 1; later
   rounds the last trick's winner leads (NOTES ruling 2).
4. **Goal 6** [:107–127]: scores with 0, 6 or the other die; goals are 1–6, so 7–12 tricks
   never score (NOTES ruling 3).
5. **Scoring and the end** [:225–250]: all players score together after trick 12. A player
   reaching 2 points wins; several together share the victory (equal rank 1). Ranks are by
   points, equal points share a placing.
6. **Round limit** (arena ruling, not in the rules): the match ends after round 20 at the latest
   (``components.toml`` ``max_rounds``); then the most points win, ties shared. It only bounds
   matches between bots that never aim at their goals: no measured match came near it.
7. **3 players** [:67–70]: the 4th hand is the last 12 cards of the shuffle, set aside face down
   for the round; nobody sees it (the spectator does).
8. **Deal**: after the shuffle, seat s receives cards ``12·s … 12·s + 11`` of the shuffled order
   (the same distribution as dealing one at a time). Hands are shown sorted.
9. **Clockwise** is increasing seat number (wrapping). Every card play is a decision, even when
   only one card is legal.
10. **Memory** [:211–221]: trick piles are face down, but every card was played face up first,
    so each observation lists the round's finished tricks and the suits each seat has shown it
    lacks (a seat that did not follow holds none of the lead suit until the round ends).

Chance labels, in draw order each round: ``"goal"`` (die rolls: seat 0's two dice, rerolled
in pairs while they match, then seat 1's, …), ``"deck"`` (one shuffle of the 48 cards, items
are card ids 0–47 = suit × 12 + Predator − 1), and in round 1 only when rule 3 leaves a tie,
``"first"`` (pick of the leading seat among the tied seats, ascending). ``sample_world`` draws
its re-deal from the chance it is given and then ``"world"`` (the seed of the world's own
future chance).

Decision kind: ``"play"``, options ``card:<suit>-<predator>`` (e.g. ``card:river-7``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result
from arena.games.v1 import prey_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

SUITS: tuple[str, ...] = tuple(_DATA["deck"]["suits"])
PER_SUIT = len(_DATA["deck"]["predator"])
DECK_SIZE = len(SUITS) * PER_SUIT
HAND_SIZE: int = _DATA["round"]["hand_size"]
TRICKS: int = _DATA["round"]["tricks"]
PREDATOR_TRICKS: int = _DATA["round"]["predator_tricks"]
DIE_FACES: int = _DATA["round"]["die_faces"]
POINTS_TO_WIN: int = _DATA["round"]["points_to_win"]
MAX_ROUNDS: int = _DATA["limits"]["max_rounds"]
HANDS_DEALT = 4  # 4 hands of 12 at every player count (:65-70)

PREDATOR, PREY = pb.PREDATOR, pb.PREY

# Cards are ints 0..47: suit * 12 + predator - 1. These tables are indexed by card id.
SUIT: list[int] = [c // PER_SUIT for c in range(DECK_SIZE)]
PRED: list[int] = [_DATA["deck"]["predator"][c % PER_SUIT] for c in range(DECK_SIZE)]
PREYN: list[int] = [_DATA["deck"]["prey"][SUITS[c // PER_SUIT]][c % PER_SUIT] for c in range(DECK_SIZE)]
VALUE: dict[int, list[int]] = {PREDATOR: PRED, PREY: PREYN}
"""The number a card shows in a mode: ``VALUE[mode][card]``."""


def _check_deck() -> None:
    for s, name in enumerate(SUITS):
        cards = range(s * PER_SUIT, (s + 1) * PER_SUIT)
        for table, what in ((PRED, "predator"), (PREYN, "prey")):
            if sorted(table[c] for c in cards) != list(range(1, PER_SUIT + 1)):
                raise ValueError(f"components.toml: {name} {what} numbers must be 1-{PER_SUIT}, each once")


_check_deck()


def card_id(suit: str, predator: int) -> int:
    return SUITS.index(suit) * PER_SUIT + predator - 1


def card_name(card: int) -> str:
    return f"{SUITS[SUIT[card]]} {PRED[card]}/{PREYN[card]}"


def card_token(card: int) -> str:
    return f"{SUITS[SUIT[card]]}-{PRED[card]}"


def mode_of(trick: int) -> int:
    """Tricks 1–6 are Predator tricks, 7–12 Prey tricks [:133–161]."""
    return PREDATOR if trick <= PREDATOR_TRICKS else PREY


def goals(dice: Sequence[int]) -> tuple[int, ...]:
    """The trick counts that score with these dice: both values, and 0 with a 6 [:89–127]."""
    targets = set(dice)
    if DIE_FACES in targets:
        targets.add(0)
    return tuple(sorted(targets))


def scores_with(dice: Sequence[int], tricks: int) -> bool:
    return tricks in goals(dice)


def legal_cards(hand: Sequence[int], lead_suit: int) -> list[int]:
    """Must follow the lead suit if able [:171–189]; ``lead_suit`` -1 = leading (any card)."""
    if lead_suit >= 0:
        follow = [c for c in hand if SUIT[c] == lead_suit]
        if follow:
            return follow
    return list(hand)


def trick_winner(plays: Sequence[tuple[int, int]], mode: int) -> int:
    """The seat of the highest number of the lead suit in this mode [:193–201]."""
    lead = SUIT[plays[0][1]]
    values = VALUE[mode]
    best_seat, best = plays[0][0], values[plays[0][1]]
    for seat, card in plays[1:]:
        if SUIT[card] == lead and values[card] > best:
            best_seat, best = seat, values[card]
    return best_seat


def first_leader(dice: Sequence[Sequence[int]]) -> list[int]:
    """Seats tied for the first lead: lowest total, then lowest single die [:74–85]."""
    key = [(sum(d), min(d)) for d in dice]
    best = min(key)
    return [s for s, k in enumerate(key) if k == best]


# --------------------------------------------------------------------------------------------
# Protobuf views (shared: protobuf copies a message into every field it is put in)

_PB_CARD = [pb.Card(suit=SUITS[SUIT[c]], predator=PRED[c], prey=PREYN[c]) for c in range(DECK_SIZE)]
_OPTION = [
    Option(
        f"card:{card_token(c)}",
        f"{SUITS[SUIT[c]]} predator {PRED[c]} / prey {PREYN[c]}",
        pb.Action(card=_PB_CARD[c]),
    )
    for c in range(DECK_SIZE)
]
_CARD_OF_OPTION = {option.id: c for c, option in enumerate(_OPTION)}


_CARD_ID = {(SUITS[SUIT[c]], PRED[c]): c for c in range(DECK_SIZE)}


def _card(card: pb.Card) -> int:
    """A card id from its message."""
    return _CARD_ID[card.suit, card.predator]


@cache  # at most 4 seats x 48 cards x 2; never mutated
def _play_pb(seat: int, card: int, followed: bool) -> pb.Play:
    return pb.Play(seat=seat, card=_PB_CARD[card], followed=followed)


# --------------------------------------------------------------------------------------------
# State


@dataclass
class PreyState(MatchState):
    round: int = 0
    trick: int = 1  # 1-12 within the round
    dice: list[tuple[int, int]] = field(default_factory=list)  # per seat, ascending
    points: list[int] = field(default_factory=list)
    tricks_won: list[int] = field(default_factory=list)  # this round
    hands: list[list[int]] = field(default_factory=list)  # sorted card ids
    aside: list[int] = field(default_factory=list)  # 3 players: the hand set aside
    leader: int = 0
    turn: int = 0
    plays: list[tuple[int, int]] = field(default_factory=list)  # (seat, card) this trick
    done: list[tuple[int, int, tuple[tuple[int, int], ...], int]] = field(default_factory=list)
    """This round's finished tricks: (number, leader, plays, winner)."""
    voids: list[int] = field(default_factory=list)  # per seat: bit s set = showed void in suit s
    rerolls: int = 0  # doubles rerolled this round
    over: bool = False
    round_limit: bool = False
    winners: list[int] = field(default_factory=list)

    @property
    def mode(self) -> int:
        return mode_of(self.trick)

    @property
    def lead_suit(self) -> int:
        return SUIT[self.plays[0][1]] if self.plays else -1


# --------------------------------------------------------------------------------------------
# Uniform deals under void constraints (sample_world)


def constrained_deal(
    groups: Sequence[Sequence[int]],
    caps: Sequence[int],
    allowed: Sequence[Sequence[bool]],
    chance: Chance,
    label: str = "sample",
) -> list[list[int]]:
    """Deal the cards of ``groups`` (one list per suit) to places of sizes ``caps`` uniformly
    among all deals where place j gets no card of suit s unless ``allowed[s][j]``: the engine's
    exact constrained deal (:meth:`arena.chance.Chance.deal`), with voids as the constraint."""
    suit = {card: s for s, group in enumerate(groups) for card in group}
    accepts = [lambda card, j=j: allowed[suit[card]][j] for j in range(len(caps))]
    return chance.deal([card for group in groups for card in group], caps, label, accepts)


def _deal_unseen(world: PreyState, seat: int, unknown: list[int], sizes: list[int], chance: Chance) -> None:
    """Deal the cards ``unknown`` to the other seats' hands (``sizes`` per seat) and the
    set-aside hand (its size kept), uniformly among the deals that respect the voids."""
    others = [s for s in range(world.players) if s != seat]
    aside = len(world.aside)
    groups = [sorted(c for c in unknown if SUIT[c] == suit) for suit in range(len(SUITS))]
    caps = [sizes[s] for s in others] + ([aside] if aside else [])
    allowed = [
        [not world.voids[s] >> suit & 1 for s in others] + ([True] if aside else []) for suit in range(len(SUITS))
    ]
    places = constrained_deal(groups, caps, allowed, chance)
    for s, cards in zip(others, places, strict=False):
        world.hands[s] = sorted(cards)
    if aside:
        world.aside = sorted(places[-1])


# --------------------------------------------------------------------------------------------
# The game


class Prey(Game[PreyState]):
    meta = GameMeta(
        id="prey",
        name="Prey",
        min_players=3,
        max_players=4,
        # 2: the "prey_phase" event's detail (PreyPhaseEvent)
        version="2.1",  # 2.1: event texts name seats and read as English, not Python lists
        hidden_information=True,
        summary="Must-follow trick-taking: tricks 1-6 use Predator numbers, 7-12 Prey numbers; "
        "win exactly one of your two goal dice in tricks to score; first to 2 points wins.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> PreyState:
        players = config.players
        state = PreyState(config=config, chance=chance, points=[0] * players)
        self._start_round(state)
        return state

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: PreyState) -> Iterable[Decision]:
        if state.over:
            return ()
        seat = state.turn
        cards = legal_cards(state.hands[seat], state.lead_suit)
        return (Decision(seat, "play", tuple(_OPTION[c] for c in cards)),)

    def resolve(self, state: PreyState, chosen: Mapping[int, Option]) -> None:
        seat = state.turn
        card = _CARD_OF_OPTION[chosen[seat].id]
        lead = state.lead_suit
        state.hands[seat].remove(card)
        followed = lead < 0 or SUIT[card] == lead
        if not followed:
            state.voids[seat] |= 1 << lead
        state.plays.append((seat, card))
        text = f"plays {card_name(card)}" + ("" if followed else f" (no {SUITS[lead]})")
        state.log.public(seat, "play", text, _play_pb(seat, card, followed))
        if len(state.plays) < state.players:
            state.turn = (seat + 1) % state.players
        else:
            self._finish_trick(state)

    # -- rules ------------------------------------------------------------------------------

    def _start_round(self, state: PreyState) -> None:
        players = state.players
        chance = state.chance
        state.round += 1
        state.rerolls = 0
        state.dice = []
        for _ in range(players):
            while True:
                a, b = chance.roll(DIE_FACES, "goal"), chance.roll(DIE_FACES, "goal")
                if a != b:
                    break
                state.rerolls += 1  # doubles: reroll both [:54-55]
            state.dice.append((min(a, b), max(a, b)))
        deck = chance.shuffled(range(DECK_SIZE), "deck")
        state.hands = [sorted(deck[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(players)]
        state.aside = sorted(deck[players * HAND_SIZE :])
        state.tricks_won = [0] * players
        state.voids = [0] * players
        state.done = []
        state.plays = []
        state.trick = 1
        if state.round == 1:
            tied = first_leader(state.dice)
            state.leader = tied[0] if len(tied) == 1 else chance.pick(tied, "first")
            why = "lowest dice" if len(tied) == 1 else f"random among seats {', '.join(map(str, tied))} (tied dice)"
        else:
            why = "won the last trick"
        state.turn = state.leader
        dice = ", ".join(f"seat {s} {a}+{b}" for s, (a, b) in enumerate(state.dice))
        aside = f"; {len(state.aside)} cards set aside" if state.aside else ""
        state.log.public(
            CHANCE_SEAT,
            "round",
            f"round {state.round}: dice {dice}{aside}; seat {state.leader} leads ({why})",
            pb.RoundEvent(
                round=state.round,
                dice=[pb.Dice(values=d) for d in state.dice],
                leader=state.leader,
                rerolls=state.rerolls,
            ),
        )
        for seat, hand in enumerate(state.hands):
            state.log.private(
                [seat],
                seat,
                "deal",
                "is dealt " + ", ".join(card_name(c) for c in hand),
                pb.DealEvent(round=state.round, cards=[_PB_CARD[c] for c in hand]),
            )

    def _finish_trick(self, state: PreyState) -> None:
        mode = state.mode
        winner = trick_winner(state.plays, mode)
        state.tricks_won[winner] += 1
        record = (state.trick, state.leader, tuple(state.plays), winner)
        state.done.append(record)
        top = next(c for s, c in state.plays if s == winner)
        state.log.public(
            winner,
            "trick",
            f"wins trick {state.trick} with {card_name(top)} ({state.tricks_won[winner]} tricks)",
            _trick_pb(record),
        )
        state.plays = []
        state.leader = state.turn = winner
        if state.trick == PREDATOR_TRICKS:
            state.log.public(
                CHANCE_SEAT,
                "prey_phase",
                f"tricks {PREDATOR_TRICKS + 1}-{TRICKS}: the cards turn to their Prey numbers",
                pb.PreyPhaseEvent(round=state.round, first_trick=PREDATOR_TRICKS + 1, last_trick=TRICKS, mode=pb.PREY),
            )
        if state.trick < TRICKS:
            state.trick += 1
            return
        self._finish_round(state)

    def _finish_round(self, state: PreyState) -> None:
        scored = [scores_with(state.dice[s], state.tricks_won[s]) for s in range(state.players)]
        for seat, hit in enumerate(scored):
            state.points[seat] += hit
        who = ", ".join(f"seat {s}" for s, hit in enumerate(scored) if hit) or "nobody"
        tricks = ", ".join(f"seat {s} {t}" for s, t in enumerate(state.tricks_won))
        points = ", ".join(f"seat {s} {p}" for s, p in enumerate(state.points))
        state.log.public(
            CHANCE_SEAT,
            "round_end",
            f"round {state.round} over: tricks {tricks}; scoring: {who}; points {points}",
            pb.RoundEndEvent(round=state.round, tricks=state.tricks_won, scored=scored, points=state.points),
        )
        best = max(state.points)
        if best >= POINTS_TO_WIN or state.round >= MAX_ROUNDS:
            state.over = True
            state.round_limit = best < POINTS_TO_WIN
            state.winners = [s for s, p in enumerate(state.points) if p == best]
            how = " (round limit)" if state.round_limit else ""
            state.log.public(
                CHANCE_SEAT,
                "end",
                f"game over{how}: seat {', '.join(map(str, state.winners))} win{'s' * (len(state.winners) == 1)}",
                pb.EndEvent(winners=state.winners, points=state.points, round_limit=state.round_limit),
            )
            return
        self._start_round(state)  # led by the last trick's winner [:262-264]

    # -- determinization ----------------------------------------------------------------------

    def sample_world(self, state: PreyState, seat: int, chance: Chance) -> PreyState:
        """A copy of ``state`` with every card ``seat`` cannot see re-dealt uniformly at random
        among the deals consistent with what it knows: its own hand, the cards played, the hand
        sizes, and the suits each seat has shown it lacks this round (see
        :func:`constrained_deal`)."""
        world = self.copy_for(state, seat, chance)
        if not state.over:
            unknown = [c for s in range(state.players) if s != seat for c in state.hands[s]] + state.aside
            _deal_unseen(world, seat, unknown, [len(hand) for hand in state.hands], chance)
        world.pending = tuple(self.decisions(world))
        return world

    def world_from_observation(self, config: MatchConfig, seat: int, observation: Message, chance: Chance) -> PreyState:
        """Kept: the seat's hand and everything public (dice, points, this round's tricks and
        the voids they show). Drawn as in ``sample_world``: the unseen cards dealt to the other
        hands and the set-aside hand, by size, honouring the voids. The seat knows nothing the
        observation lacks."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        players = config.players
        points = [view.points for view in obs.seats]
        world = PreyState(
            config=config,
            chance=chance.fork(),
            round=obs.round,
            trick=obs.trick,
            dice=[(view.dice[0], view.dice[1]) for view in obs.seats],
            points=points,
            tricks_won=[view.tricks for view in obs.seats],
            hands=[[_card(c) for c in obs.hand] if s == seat else [] for s in range(players)],
            aside=[],
            leader=obs.leader,
            turn=obs.turn,
            plays=[(p.seat, _card(p.card)) for p in obs.trick_plays],
            done=[(t.number, t.leader, tuple((p.seat, _card(p.card)) for p in t.plays), t.winner) for t in obs.tricks],
            voids=[sum(1 << SUITS.index(suit) for suit in view.voids) for view in obs.seats],
            over=obs.over,
            round_limit=obs.over and max(points) < POINTS_TO_WIN,
            winners=list(obs.winners),
        )
        # Over too: the hand set aside at 3 players is never shown, so its cards stay unseen.
        unknown = [_card(c) for c in obs.unseen_cards]
        world.aside = [0] * obs.set_aside  # sized; dealt next
        _deal_unseen(world, seat, unknown, [view.hand_size for view in obs.seats], chance)
        self.refresh(world)
        return world

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: PreyState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        players = state.players
        hidden = [c for s in range(players) if s != viewer for c in state.hands[s]] + state.aside
        hidden.sort()
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=players,
            suits=SUITS,
            round=state.round,
            max_rounds=MAX_ROUNDS,
            trick=state.trick,
            mode=pb.MODE_UNSPECIFIED if state.over else state.mode,  # type: ignore[arg-type]
            leader=state.leader,
            turn=state.turn,
            lead_suit=SUITS[state.lead_suit] if state.plays else "",
            trick_plays=[_play_pb(s, c, SUIT[c] == state.lead_suit) for s, c in state.plays],
            hand=[] if spectator else [_PB_CARD[c] for c in state.hands[viewer]],
            seats=[
                pb.SeatView(
                    dice=state.dice[s],
                    goals=goals(state.dice[s]),
                    points=state.points[s],
                    tricks=state.tricks_won[s],
                    hand_size=len(state.hands[s]),
                    voids=[SUITS[x] for x in range(len(SUITS)) if state.voids[s] >> x & 1],
                    on_goal=scores_with(state.dice[s], state.tricks_won[s]),
                )
                for s in range(players)
            ],
            tricks=[_trick_pb(t) for t in state.done],
            unseen=len(hidden),
            unseen_cards=[_PB_CARD[c] for c in hidden],
            set_aside=len(state.aside),
            over=state.over,
            winners=state.winners,
        )
        if spectator:
            obs.hands.extend(pb.Hand(cards=[_PB_CARD[c] for c in hand]) for hand in state.hands)
            obs.aside.extend(_PB_CARD[c] for c in state.aside)
        return obs

    def score(self, state: PreyState) -> Result:
        points = state.points
        winners = ", ".join(map(str, state.winners))
        how = " after the round limit" if state.round_limit else ""
        summary = (
            f"winner{'s' if len(state.winners) > 1 else ''}: seat {winners} with {max(points)} "
            f"point{'s' * (max(points) != 1)}{how} (round {state.round})"
        )
        return Result.ranked(points, points, summary)


def _trick_pb(record: tuple[int, int, tuple[tuple[int, int], ...], int]) -> pb.Trick:
    number, leader, plays, winner = record
    lead = SUIT[plays[0][1]]
    return pb.Trick(
        number=number,
        mode=mode_of(number),  # type: ignore[arg-type]
        leader=leader,
        plays=[_play_pb(s, c, SUIT[c] == lead) for s, c in plays],
        winner=winner,
    )


GAME = Prey()
"""Prey: see :mod:`arena.games.prey.game` for the rules and rulings."""
