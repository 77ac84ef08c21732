"""Trick to the Future — trick-taking where Fuel Rods change card values (``shared/rules/tricktothefuture.md``).

Rules as implemented (rulebook line references in brackets):

* 2-5 players [:21]; 36 cards, values 0-8 in 4 suits: Past (yellow), Present, Future and
  Beyond (purple, trump) [:31-33, :45-52]; at 2 players the Beyond suit is removed and there
  is no trump [:54, :225-233].
* Setup per player count [:68-120]: cards removed, cards dealt, Fuel Rods per player (ruling 1
  and ``components.toml``). Rods start on the player's board.
* First lead of each round [:122-132, :424-426]: the holder of the Past 0; if nobody holds it,
  the holder of the lowest Past card (ruling 4).
* A trick [:157-175]: the leader plays any card; then clockwise every player plays one card,
  following the lead suit if able, else any card. Changing a card's value never changes its
  suit [:175].
* Fuel [:177-211]: as a card is played its owner may play it as any value on the card's edge
  (``components.toml`` [edges], ruling 2), paying the edge's rod cost from the rods on its
  board; the rods go onto the card.
* Winner [:215-233]: the highest Beyond card, else the highest card of the lead suit, by the
  value played; equal values: the card played later wins. The winner takes the trick and every
  rod spent on it (collected rods never return to the board [:237-250]) and leads next.
* A round ends when the hands are empty [:262-272]. Round score [:276-409] with T tricks won,
  U unspent rods on the board, C rods collected: T = 0 → Inoperative, 3 per empty fuel space
  [:369-396]; else U < T → Lost in Time, 0 [:287-299]; U > T → Safe Journey, 2T + C
  [:303-331]; U = T → Perfect Journey, 4T + 2C [:335-365].
* 3 rounds, each dealt afresh with fresh rods [:414-426]. Most points wins; a tie goes to the
  most points in round 3, then it is shared [:430-442].

Rulings (``shared/rules/NOTES.md`` §4.23 discusses each):

1. **Setup tables** (:72-118 do not add up, NOTES ambiguity 1). The removal table, the
   "36 cards" of 4 players, the "6 cards remain undealt" and "possible that neither player has
   the yellow Past 0" of 2 players only [:126-132] all agree if the 4- and 5-player rows of the
   deal table are read one row up (9 and 7 cards, the printed 3- and 4-player rows): the arena
   deals 2p 6 (as printed), 3p 8, 4p 9, 5p 7 cards each, so every card is dealt except the 6 of
   the 2-player game. The 3-player hand of 8 comes from no row: it is designed, the 24 cards
   left once the same three ranks as at 2p are removed, dealt out (5p: 35 cards). The option
   ``deal = "printed"`` plays the table as printed instead (NOTES' recommendation): 3p removes
   the 4s, the 8s and the Past 1 (27 cards, 9 each), 4p deals 7 each (8 undealt), 5p 6 each (5
   undealt).
2. **The unclear removed rank** (:75-77) is the 6 (at 2 and 3 players the 4s, 6s and 8s go).
   **Card edges** (missing, DATA §6: none found) are designed as seven-segment digits: a rod
   lights one segment, a 180° turn shows a 6 as a 9 (free); the edge lists every digit 0-9
   reachable, each at its cheapest cost (NOTES decomposition 2: cheapest automatically). Table
   and reasons in ``components.toml``; a 9 beats every printed card.
3. **Fuel spaces** per board (missing; NOTES ambiguity 2): 6, or 8 at 3 players (where the
   rods are 8), which keeps the Inoperative example (2 rods + 4 empty spaces) exact; a
   5-player board starts with 1 empty space.
4. **First lead**: the Past 0's holder; if nobody holds it (undealt cards), the holder of the
   lowest Past card; if nobody holds a Past card, a random player (chance label "leader").
   The card that decides it is shown to everyone (event ``leader``).
5. **Modification timing** (:179): a player chooses card and value together as it plays,
   seeing the earlier cards of the trick. Card and value are one decision (``play``).
6. **Inoperative** overrides Safe/Perfect when T = 0 (NOTES 5). Empty spaces = spaces - U,
   including spaces that started empty [:377].
7. **Ranks**: total points, then round-3 points; equal on both = shared place [:440-442].
8. **Length**: exactly 3 rounds of hand-size tricks: 3 × players × hand decisions (at most
   108 in the arena deal: 3 × 4 × 9 at 4 players; 3 × 5 × 7 = 105 at 5).

Design check of the edge table (``python -m bench.design_tricktothefuture --matches 100``,
arena deal, heuristic self-play; random self-play in brackets):

* Round categories, Lost / Safe / Perfect / Inoperative: 2p 67/4/25/4 % (random 84/4/5/8),
  3p 48/7/39/6 %, 4p 6/46/42/6 %, 5p 3/42/36/20 %. Perfect Journeys score 14-20 on average,
  Inoperative 14-23, Safe 6-10: no category dominates, and random play is Lost most rounds.
* Rods: the heuristic spends 4.1 / 5.9 / 3.2 / 3.0 rods per round (2/3/4/5p) and plays 66-72 %
  of its cards as printed. Every edge move is used; none always wins its trick: at 4p a
  rotated 6→9 wins 87 % of the tricks it is played in, 5→9 76 %, 3→9 49 %, 6→8 40 %, while
  1→4, 1→3, 7→3 (ducking or dumping rods) win 3-8 %.
* Spending fuel matters but is not always right: a heuristic that never spends a rod wins
  5-7.5 % of games against heuristics at 3-5p (fair share 20-33 %), yet holds its own at 2p
  (57 % ± 10 over 100 games), where 6 tricks and 6 rods leave little to steer.
* Seat advantage (heuristic self-play, seat 0 win rate): 2p 0.57, 3p 0.34, 4p 0.26, 5p 0.28
  (fair 0.50/0.33/0.25/0.20; the first lead goes to the Past 0's holder, not to seat 0).
* Heuristic vs random (``python -m bench.heuristic_vs_random --game tricktothefuture
  --players N --matches 500``): 2p win rate 0.762 (random 0.5), 3p 0.884 (random 0.333), 4p 0.912
  (random 0.25).

Chance labels, in draw order each round: ``"deck"`` (one shuffle of the round's deck, seat s
dealt cards s·h..s·h+h-1 of the order, the rest undealt), then ``"leader"`` (a pick of a seat)
only when nobody holds a Past card.

Decision kinds and option ids: see ``proto/arena/games/v1/tricktothefuture.proto`` and
``arena rules tricktothefuture``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig, OptionSpec
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result, Variant
from arena.games.tricktothefuture.cards import (
    ALL_CARDS,
    EDGE_TABLE,
    EDGES,
    GAME_DATA,
    PAST,
    PB_CARDS,
    ROUNDS,
    SUITS,
    TRUMP,
    Setup,
    card_id,
    rank_of,
    setup_for,
    suit_of,
)
from arena.games.v1 import tricktothefuture_pb2 as pb


class Play(NamedTuple):
    seat: int
    card: int
    value: int
    rods: int


@dataclass
class TrickRecord:
    number: int
    plays: list[Play]
    winner: int
    rods: int


class RoundScore(NamedTuple):
    seat: int
    category: int  # pb.Category
    tricks: int
    fuel: int
    collected: int
    empty: int
    points: int


def round_score(tricks: int, fuel: int, collected: int, spaces: int) -> tuple[int, int]:
    """(category, points) of one seat's round [:276-409], rulings 3 and 6."""
    if tricks == 0:
        return pb.INOPERATIVE, GAME_DATA["inoperative_per_space"] * (spaces - fuel)
    if fuel < tricks:
        return pb.LOST, 0
    if fuel > tricks:
        return pb.SAFE, GAME_DATA["safe_per_trick"] * tricks + GAME_DATA["safe_per_rod"] * collected
    return pb.PERFECT, GAME_DATA["perfect_per_trick"] * tricks + GAME_DATA["perfect_per_rod"] * collected


def trick_winner(plays: list[Play], trump: bool) -> int:
    """Index into ``plays`` of the winning card [:215-233]: highest trump, else highest of the
    lead suit; equal values: the later card."""
    lead = suit_of(plays[0].card)
    best, best_key = 0, (-1, -1)
    for i, play in enumerate(plays):
        suit = suit_of(play.card)
        if trump and suit == TRUMP:
            key = (1, play.value)
        elif suit == lead:
            key = (0, play.value)
        else:
            continue
        if key >= best_key:
            best, best_key = i, key
    return best


@dataclass
class TrickToTheFutureState(MatchState):
    deal: str = "arena"
    table: Setup = field(default_factory=lambda: setup_for("arena", 4))
    round: int = 0
    hands: list[list[int]] = field(default_factory=list)
    undealt: list[int] = field(default_factory=list)
    fuel: list[int] = field(default_factory=list)
    tricks: list[int] = field(default_factory=list)
    collected: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    round_scores: list[list[int]] = field(default_factory=list)
    last_round: list[RoundScore] = field(default_factory=list)
    leader: int = 0
    turn: int = 0
    current: list[Play] = field(default_factory=list)
    done: list[TrickRecord] = field(default_factory=list)
    voids: list[list[bool]] = field(default_factory=list)
    leader_card: int = -1
    first_leader: int = 0
    over: bool = False

    @property
    def trump(self) -> bool:
        return self.table.trump


def rods_text(rods: int) -> str:
    """``1 rod``, ``2 rods``: option labels and event texts read as English."""
    return f"{rods} rod{'s' if rods != 1 else ''}"


# --------------------------------------------------------------------------------------------
# Options (built once)

OPTIONS: dict[tuple[int, int], Option] = {}
OPTION_DATA: dict[str, tuple[int, int, int]] = {}
for _card in ALL_CARDS:
    for _value, _rods in EDGES[rank_of(_card)]:
        _id = f"{card_id(_card)}:{_value}"
        _what = f"{SUITS[suit_of(_card)]} {rank_of(_card)}"
        _label = f"play {_what}" if _value == rank_of(_card) else f"play {_what} as {_value} ({rods_text(_rods)})"
        OPTIONS[_card, _value] = Option(_id, _label, pb.Action(card=PB_CARDS[_card], value=_value, rods=_rods))
        OPTION_DATA[_id] = (_card, _value, _rods)


def playable(hand: list[int], current: list[Play]) -> list[int]:
    """The cards that may be played: the lead suit if the hand has any, else any card."""
    if not current:
        return hand
    lead = suit_of(current[0].card)
    follow = [c for c in hand if suit_of(c) == lead]
    return follow or hand


def play_options(hand: list[int], current: list[Play], fuel: int) -> tuple[Option, ...]:
    return _options(tuple(playable(hand, current)), fuel)


@cache
def _options(cards: tuple[int, ...], fuel: int) -> tuple[Option, ...]:
    return tuple(OPTIONS[card, value] for card in cards for value, rods in EDGES[rank_of(card)] if rods <= fuel)


def _play_pb(play: Play) -> pb.Play:
    return pb.Play(seat=play.seat, card=PB_CARDS[play.card], value=play.value, rods=play.rods)


def _score_pb(s: RoundScore) -> pb.RoundScore:
    return pb.RoundScore(
        seat=s.seat,
        category=s.category,  # type: ignore[arg-type]
        tricks=s.tricks,
        fuel=s.fuel,
        collected=s.collected,
        empty=s.empty,
        points=s.points,
    )


# --------------------------------------------------------------------------------------------
# The game


class TrickToTheFuture(Game[TrickToTheFutureState]):
    meta = GameMeta(
        id="tricktothefuture",
        name="Trick to the Future",
        min_players=2,
        max_players=5,
        version="1.2",  # 1.1: event texts name seats and read as English; 1.2: "1 rod", not "1 rods"
        options=(
            OptionSpec(
                "deal",
                "arena",
                "setup table: 'arena' (reconciled: every card dealt except 6 at 2p) or 'printed' (as printed)",
                choices=("arena", "printed"),
            ),
        ),
        variants=(
            Variant("printed-deal", "the deal table as printed: undealt cards at every count", {"deal": "printed"}),
        ),
        hidden_information=True,
        summary="Trick-taking over 3 rounds where Fuel Rods change card values; win exactly as many tricks "
        "as you keep rods.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> TrickToTheFutureState:
        n = config.players
        deal = str(config["deal"])
        state = TrickToTheFutureState(
            config=config,
            chance=chance,
            deal=deal,
            table=setup_for(deal, n),
            totals=[0] * n,
            round_scores=[[] for _ in range(n)],
        )
        self._start_round(state)
        return state

    def _start_round(self, state: TrickToTheFutureState) -> None:
        n, table = state.players, state.table
        state.round += 1
        order = state.chance.shuffled(table.deck, "deck")
        h = table.hand
        state.hands = [sorted(order[s * h : (s + 1) * h]) for s in range(n)]
        state.undealt = sorted(order[n * h :])
        state.fuel = [table.rods] * n
        state.tricks = [0] * n
        state.collected = [0] * n
        state.voids = [[False] * len(SUITS) for _ in range(n)]
        state.done = []
        state.current = []
        state.log.public(
            CHANCE_SEAT,
            "round",
            f"round {state.round}: {h} cards and {table.rods} rods each",
            pb.Detail(round=state.round, hand_size=h, rods=table.rods),
        )
        for s in range(n):
            state.log.private(
                [s],
                s,
                "deal",
                "dealt " + " ".join(card_id(c) for c in state.hands[s]),
                pb.Detail(round=state.round, seat=s, cards=[PB_CARDS[c] for c in state.hands[s]]),
            )
        holders = [(card, s) for s in range(n) for card in state.hands[s] if suit_of(card) == PAST]
        if holders:
            card, seat = min(holders)
            state.leader_card = card
            state.log.public(
                seat, "leader", f"seat {seat} leads: holds {card_id(card)}", pb.Detail(seat=seat, card=PB_CARDS[card])
            )
        else:
            seat = state.chance.pick(range(n), "leader")  # a pick: a PresetChance can set it
            state.leader_card = -1
            state.log.public(seat, "leader", f"nobody holds a Past card: seat {seat} leads", pb.Detail(seat=seat))
        state.leader = state.turn = state.first_leader = seat

    # -- decisions ----------------------------------------------------------------------------

    def decisions(self, state: TrickToTheFutureState) -> Iterable[Decision]:
        if state.over:
            return ()
        seat = state.turn
        return (Decision(seat, "play", play_options(state.hands[seat], state.current, state.fuel[seat])),)

    # -- transitions --------------------------------------------------------------------------

    def resolve(self, state: TrickToTheFutureState, chosen: Mapping[int, Option]) -> None:
        ((seat, option),) = chosen.items()
        card, value, rods = OPTION_DATA[option.id]
        state.hands[seat].remove(card)
        state.fuel[seat] -= rods
        if state.current and suit_of(card) != suit_of(state.current[0].card):
            state.voids[seat][suit_of(state.current[0].card)] = True
        play = Play(seat, card, value, rods)
        state.current.append(play)
        state.log.public(
            seat,
            "play",
            f"seat {seat} plays {card_id(card)}"
            + (f" as {value} ({rods_text(rods)})" if value != rank_of(card) else ""),
            pb.Detail(seat=seat, card=PB_CARDS[card], value=value, rods=rods),
        )
        n = state.players
        if len(state.current) < n:
            state.turn = (seat + 1) % n
            return
        plays = state.current
        winner = plays[trick_winner(plays, state.trump)].seat
        spent = sum(p.rods for p in plays)
        state.tricks[winner] += 1
        state.collected[winner] += spent
        number = len(state.done) + 1
        state.done.append(TrickRecord(number, plays, winner, spent))
        state.current = []
        state.log.public(
            winner,
            "trick",
            f"seat {winner} wins trick {number} and {rods_text(spent)}",
            pb.Detail(seat=winner, number=number, rods=spent, round=state.round),
        )
        state.leader = state.turn = winner
        if not state.hands[winner]:
            self._score_round(state)

    def _score_round(self, state: TrickToTheFutureState) -> None:
        spaces = state.table.spaces
        scores = []
        for s in range(state.players):
            category, points = round_score(state.tricks[s], state.fuel[s], state.collected[s], spaces)
            scores.append(
                RoundScore(
                    s, category, state.tricks[s], state.fuel[s], state.collected[s], spaces - state.fuel[s], points
                )
            )
            state.totals[s] += points
            state.round_scores[s].append(points)
        state.last_round = scores
        state.log.public(
            CHANCE_SEAT,
            "score",
            f"round {state.round}: "
            + ", ".join(f"seat {r.seat} {pb.Category.Name(r.category)} {r.points}" for r in scores),  # type: ignore[arg-type]
            pb.Detail(round=state.round, scores=[_score_pb(r) for r in scores]),
        )
        if state.round >= ROUNDS:
            state.over = True
            text = "final scores " + ", ".join(f"seat {s} {v}" for s, v in enumerate(state.totals))
            state.log.public(CHANCE_SEAT, "end", text, pb.Detail(totals=list(state.totals)))
        else:
            self._start_round(state)

    # -- views --------------------------------------------------------------------------------

    def observation(self, state: TrickToTheFutureState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        n = state.players
        obs = pb.Observation(
            seat=0 if spectator else viewer,
            spectator=spectator,
            players=n,
            round=state.round,
            rounds=ROUNDS,
            deal=state.deal,
            trump=SUITS[TRUMP] if state.trump else "",
            seats=[
                pb.SeatView(
                    score=state.totals[s],
                    round_scores=state.round_scores[s],
                    hand_size=len(state.hands[s]),
                    tricks=state.tricks[s],
                    fuel=state.fuel[s],
                    spaces=state.table.spaces,
                    collected=state.collected[s],
                    void_suits=[SUITS[k] for k in range(len(SUITS)) if state.voids[s][k]],
                )
                for s in range(n)
            ],
            turn=state.turn,
            leader=state.leader,
            lead_suit=SUITS[suit_of(state.current[0].card)] if state.current else "",
            current=[_play_pb(p) for p in state.current],
            tricks=[
                pb.Trick(number=t.number, plays=[_play_pb(p) for p in t.plays], winner=t.winner, rods=t.rods)
                for t in state.done
            ],
            trick=len(state.done) + (0 if state.over else 1),
            tricks_per_round=state.table.hand,
            undealt=len(state.undealt),
            removed=[PB_CARDS[c] for c in state.table.removed],
            edge_table=EDGE_TABLE,
            last_round=[_score_pb(r) for r in state.last_round],
        )
        if state.leader_card >= 0:
            obs.leader_card.CopyFrom(PB_CARDS[state.leader_card])
        if spectator:
            obs.hands.extend(pb.Hand(cards=[PB_CARDS[c] for c in hand]) for hand in state.hands)
            obs.undealt_cards.extend(PB_CARDS[c] for c in state.undealt)
        else:
            obs.hand.extend(PB_CARDS[c] for c in state.hands[viewer])
            obs.unseen.extend(PB_CARDS[c] for c in unseen(state, viewer))
        return obs

    def score(self, state: TrickToTheFutureState) -> Result:
        totals = state.totals
        last = [r[-1] if r else 0 for r in state.round_scores]
        keys = [(totals[s], last[s]) for s in range(state.players)]
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        names = ", ".join(f"seat {s}" for s in winners)
        return Result.ranked(
            totals, keys, f"{'winners' if len(winners) > 1 else 'winner'}: {names} with {best[0]} points"
        )

    # -- determinization ----------------------------------------------------------------------

    def sample_world(self, state: TrickToTheFutureState, seat: int, chance: Chance) -> TrickToTheFutureState:
        from arena.games.tricktothefuture.worlds import sample_world

        return sample_world(self, state, seat, chance)

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> TrickToTheFutureState:
        """A world from the observation alone: the public round (tricks, rods, scores, voids,
        the first-lead card) and the seat's hand are kept; the others' hands and the undealt
        cards are dealt from ``unseen`` as in :meth:`sample_world`, honouring the voids and the
        first-lead deductions. Nothing the seat knows is missing from the observation."""
        from arena.games.tricktothefuture.worlds import world_from_observation

        return world_from_observation(self, config, seat, observation, chance)


def played_this_round(state: TrickToTheFutureState) -> list[int]:
    return [p.card for t in state.done for p in t.plays] + [p.card for p in state.current]


def unseen(state: TrickToTheFutureState, viewer: int) -> list[int]:
    """The round's cards the viewer has not seen: the others' hands and the undealt cards."""
    known = set(state.hands[viewer]) | set(played_this_round(state))
    return [c for c in state.table.deck if c not in known]


GAME = TrickToTheFuture()
