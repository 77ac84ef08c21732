"""Frenzy Falls — face-down Waterfall cards, cascading spills (``shared/rules/frenzyfalls.md``).

Rules as implemented (rulebook line references in brackets):

* 2-6 players. Each has a deck of 15 Waterfall cards (identical decks, designed in
  ``components.toml``), shuffled, and draws 5 [:90-94]. The 32 Score cards (designed) are
  shuffled and a Score deck of 10/12/14/16/20 cards by player count is formed [:68-83]; one
  Score card per player (3 at 2 players) is revealed as a Pool, top to bottom [:85-89].
* A round [:105-110]. Phase 1 [:114-127]: from the first player clockwise, each plays one card
  face down to the end of any Pool, until each has played 2 (3 at 2 players).
* Phase 2 [:132-147]: from the top Pool, cards are revealed left to right; an action resolves
  when revealed. When a Pool has no face-down card left, it is checked: Score card water + all
  Waterfall water >= 10 spills [:194-204]. Then the next Pool below, looping to the top, until
  no face-down card remains and every Pool is below 10 [:254-269].
* PROXY [:154-159]: discarded; its owner replaces it with a hand card, face up, in its place;
  the replacement's action resolves at once. BUMP [:163-176]: the left or right neighbour moves
  to the end of the Pool below (the bottom Pool's goes to the top); none: nothing. PULL
  [:180-189]: any card of another Pool moves to the end of this Pool; none: nothing.
* A spill [:206-249]: the most Influence Icons wins, ties to the owner of the left-most card;
  the winner takes the Score card, which is replaced from the Score deck; the winner discards
  their cards there; each other player, starting with the earliest card, moves one of their
  cards there to the end of the Pool below; the rest are discarded.
* Round end [:274-288]: each may discard any hand cards, then draws to 5 (an empty draw pile:
  the discard pile is shuffled into a new one); the First Player card passes clockwise.
* End [:293-309]: when a Score card cannot be replaced, the round is finished and the game
  ends; most points wins, then most Score cards, then a shared victory.

Rulings (``shared/rules/NOTES.md`` §4.4 unless stated):

1. **Cards** (not printed, DATA §8 none found): designed in ``components.toml``: 15 cards a deck
   with water 0-5 and influence 0-3 pulling against each other, 2 PROXY, 2 BUMP, 2 PULL; 32
   Score cards with starting water 0-7 and points rising with water (1-6).
2. **Choices** (NOTES 1): the owner of a revealed action card makes its choices. A decision with
   one legal option is carried out without asking, except PROXY's (asking it always keeps the
   owner's hand hidden: an automatic replacement would tell everyone it held one kind only).
3. **PROXY** (NOTES 2): mandatory when its owner holds a card; with an empty hand it is just
   discarded. The replacement takes PROXY's place in the line.
4. **BUMP** (NOTES 3): the Score card is no neighbour; a face-down neighbour moves face down
   and is revealed when its new Pool is reached.
5. **PULL** (NOTES 4): any Waterfall card of any other Pool, face up or down (chosen by its
   place; a face-down card stays face down, unseen by the puller), to the end of this Pool; it
   is mandatory.
6. **Spill ties** (NOTES 5): among the players with cards in the Pool; the tied player owning
   the left-most card wins (all at 0 icons is such a tie).
7. **Spill moves** (NOTES 6): each other player with cards there moves exactly one, in the
   order of each one's left-most card; moved cards stay face up.
8. **Loop** (NOTES 7): Pools are resolved in turn, top to bottom and round again, until no card
   is face down and every active Pool is below 10. A Pool whose Score card cannot be replaced
   becomes inactive: it has no Score card, never spills again, still has its cards revealed;
   the round is finished and the game ends after it (no end-of-round discard or draw).
9. **First player** (NOTES 8): a seeded random seat; the card passes clockwise each round.
10. **Round-end discards** (NOTES 9): any subset, one card per step, all seats at once
    (sealed steps); discard piles are public (face up).
11. **Safety stop** (arena): the game also ends after round 40 (``max_rounds``), which
    simulation never reaches (the bound the playout test checks).
12. **Empty hand** during Phase 1: that player's turn is skipped.
13. **Pools** are numbered 1.. from the top; Score cards are public once revealed, and so are
    the ones won (taken face down but seen by all when won, NOTES basics).
14. **Result**: scores are points; ranks by points, then Score cards, equal keys share.

Design check (``python -m bench.design_frenzyfalls --games 150``, heuristic self-play): a game
lasts 6.0 / 7.0 / 6.1 / 5.3 / 5.2 rounds at 2-6 players (longest 10), with 1.4-3.2 spills a
round, 1-5% of them cascades. Random play: at most 9 rounds and 117 decisions in the 2,000
playouts of the test (which allows 12 and 250), far below the stop of ruling 11. Seats win
0.44/0.56 at 2 players (P1 = the round-1 first player), 0.37/0.29/0.33 at 3 and
0.27/0.21/0.31/0.21 at 4 (about +-0.04). Plays: spring 17%, proxy 18%, pull 16%, bump 14%,
brook 13%, stream 7%, torrent 6%, river 5%, rapids 4% (deck shares 7-13%). A seat that never
plays one kind (3 players, 120 games, the others the default heuristic) wins 0.23 (spring) to
0.34 (pull) against a fair 0.33: no card is dead, none is a must.

Chance labels (in draw order): ``"score"`` (the 32 Score cards; the first 10/12/14/16/20 form
the Score deck, top first), ``"deck"`` (each seat's Waterfall deck, seat order, top first),
``"first"`` (the first player), then at each round end ``"reshuffle"`` (a seat's discard pile
becoming its draw pile, seat order, when needed).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result, Variant
from arena.games.v1 import frenzyfalls_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))
SPILL_AT: int = _DATA["game"]["spill_at"]
HAND: int = _DATA["game"]["hand"]
MAX_ROUNDS: int = _DATA["game"]["max_rounds"]
SCORE_DECK = {int(k): v for k, v in _DATA["game"]["score_deck"].items()}
POOLS = {int(k): v for k, v in _DATA["game"]["pools"].items()}
PLAYS = {int(k): v for k, v in _DATA["game"]["plays"].items()}
_SPECIALS = {"": pb.NO_ACTION, "proxy": pb.PROXY, "bump": pb.BUMP, "pull": pb.PULL}


class CardKind(NamedTuple):
    name: str
    water: int
    influence: int
    special: int  # pb.Special
    copies: int


class ScoreCard(NamedTuple):
    water: int
    points: int


KINDS: tuple[CardKind, ...] = tuple(
    CardKind(c["name"], c["water"], c["influence"], _SPECIALS[c.get("action", "")], c["copies"])
    for c in _DATA["waterfall"]
)
KIND_OF = {k.name: i for i, k in enumerate(KINDS)}
PROXY_KIND = next(i for i, k in enumerate(KINDS) if k.special == pb.PROXY)
DECK: tuple[int, ...] = tuple(i for i, k in enumerate(KINDS) for _ in range(k.copies))
SCORES: tuple[ScoreCard, ...] = tuple(ScoreCard(w, p) for w, p in _DATA["score"]["cards"])
INACTIVE = -1


class Slot(NamedTuple):
    """A Waterfall card in a Pool."""

    owner: int
    kind: int
    down: bool  # face down


class Task(NamedTuple):
    """A decision the reveal waits for: ``kind`` of ``seat`` about Pool ``pool`` (0-based) and
    place ``place`` (the action card's place; -1 for a spill move)."""

    kind: str
    seat: int
    pool: int
    place: int


@dataclass
class FallsState(MatchState):
    phase: int = pb.PLAY_PHASE
    round: int = 0
    first: int = 0
    queue: list[int] = field(default_factory=list)  # Phase 1: seats still to play, in order
    pools: list[list[Slot]] = field(default_factory=list)  # top to bottom, left to right
    score: list[int] = field(default_factory=list)  # each Pool's Score card (INACTIVE: none)
    score_deck: list[int] = field(default_factory=list)  # top first
    score_box: list[int] = field(default_factory=list)  # Score cards not in this game
    won: list[list[int]] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)  # sorted kinds
    draws: list[list[int]] = field(default_factory=list)  # top first
    discards: list[list[int]] = field(default_factory=list)
    pile_from: list[list[int]] = field(default_factory=list)  # per seat, per kind: the draw pile's
    # cards all come from these (the deck, or the discards last shuffled into it): see worlds.py
    at: int = 0  # Phase 2: the Pool being resolved
    task: Task | None = None
    spill_pool: int = -1
    spill_winner: int = -1
    movers: list[int] = field(default_factory=list)  # spill: seats still to move a card, in order
    final: bool = False
    discarding: list[int] = field(default_factory=list)  # round end: seats still discarding
    over: bool = False

    def water(self, pool: int) -> int:
        """The Pool's water: its Score card plus every face-up Waterfall card."""
        score = self.score[pool]
        base = SCORES[score].water if score != INACTIVE else 0
        return base + sum(KINDS[s.kind].water for s in self.pools[pool] if not s.down)

    def influence(self, pool: int) -> list[int]:
        """Influence Icons per seat on the Pool's face-up cards."""
        icons = [0] * self.players
        for slot in self.pools[pool]:
            if not slot.down:
                icons[slot.owner] += KINDS[slot.kind].influence
        return icons

    def points(self, seat: int) -> int:
        return sum(SCORES[c].points for c in self.won[seat])

    def below(self, pool: int) -> int:
        """The Pool below (the bottom Pool's is the top one)."""
        return (pool + 1) % len(self.pools)


# --------------------------------------------------------------------------------------------
# Rules helpers


def spill_winner(pool: list[Slot], players: int) -> int:
    """The spill's winner: most Influence Icons among the players with cards in the Pool, ties
    to the owner of the left-most card (ruling 6)."""
    icons = [0] * players
    present = set()
    for slot in pool:
        icons[slot.owner] += KINDS[slot.kind].influence
        present.add(slot.owner)
    best = max(icons[s] for s in present)
    return next(s.owner for s in pool if icons[s.owner] == best)


def movers(pool: list[Slot], winner: int) -> list[int]:
    """The other players with cards in the spilled Pool, by their left-most card (ruling 7)."""
    order: list[int] = []
    for slot in pool:
        if slot.owner != winner and slot.owner not in order:
            order.append(slot.owner)
    return order


def card_name(kind: int) -> str:
    return KINDS[kind].name


# --------------------------------------------------------------------------------------------
# Options and protobuf views (cached: they never change)

_OPTIONS: dict[tuple[object, ...], Option] = {}


def _option(key: tuple[object, ...]) -> Option:
    option = _OPTIONS.get(key)
    if option is None:
        option = _OPTIONS[key] = _make_option(key)
    return option


def _make_option(key: tuple[object, ...]) -> Option:
    what = key[0]
    if what == "pull":
        pool, index = int(key[1]), int(key[2])  # type: ignore[call-overload]
        return Option(
            f"pull:{pool + 1}.{index + 1}",
            f"pull card {index + 1} of Pool {pool + 1}",
            pb.Action(kind=pb.PULL_CARD, pool=pool + 1, index=index + 1),
        )
    name = card_name(int(key[1]))  # type: ignore[call-overload]
    if what == "play":
        pool = int(key[2])  # type: ignore[call-overload]
        return Option(
            f"play:{name}@{pool + 1}",
            f"play {name} to Pool {pool + 1}",
            pb.Action(kind=pb.PLAY, card=name, pool=pool + 1),
        )
    kind, verb = {
        "replace": (pb.REPLACE, "replace PROXY with {}"),
        "move": (pb.MOVE, "move {} to the Pool below"),
        "discard": (pb.DISCARD, "discard {}"),
    }[str(what)]
    return Option(f"{what}:{name}", verb.format(name), pb.Action(kind=kind, card=name))


_PLAY_ROWS: dict[tuple[tuple[int, ...], int], tuple[Option, ...]] = {}


def play_options(kinds: tuple[int, ...], pools: int) -> tuple[Option, ...]:
    """Every (distinct hand card, Pool) play, cached by hand kinds and Pool count."""
    row = _PLAY_ROWS.get((kinds, pools))
    if row is None:
        row = _PLAY_ROWS[(kinds, pools)] = tuple(_option(("play", k, p)) for k in kinds for p in range(pools))
    return row


def replace_option(kind: int) -> Option:
    return _option(("replace", kind))


def pull_option(pool: int, index: int) -> Option:
    return _option(("pull", pool, index))


def move_option(kind: int) -> Option:
    return _option(("move", kind))


def discard_option(kind: int) -> Option:
    return _option(("discard", kind))


_LEFT = Option("left", "bump the left neighbour", pb.Action(kind=pb.BUMP_LEFT))
_RIGHT = Option("right", "bump the right neighbour", pb.Action(kind=pb.BUMP_RIGHT))
_DONE = Option("done", "keep the rest of the hand", pb.Action(kind=pb.DONE))

CARD_PB: tuple[pb.Card, ...] = tuple(
    pb.Card(name=k.name, water=k.water, influence=k.influence, special=k.special)  # type: ignore[arg-type]
    for k in KINDS
)
SCORE_PB: tuple[pb.ScoreCard, ...] = tuple(pb.ScoreCard(water=s.water, points=s.points) for s in SCORES)
CATALOGUE: tuple[pb.CardType, ...] = tuple(pb.CardType(card=CARD_PB[i], copies=k.copies) for i, k in enumerate(KINDS))


def _action(option: Option) -> pb.Action:
    action = option.action
    assert isinstance(action, pb.Action)
    return action


def _detail(**fields: object) -> pb.Detail:
    return pb.Detail(**fields)  # type: ignore[arg-type]


def _what(slot: Slot) -> str:
    return "a face-down card" if slot.down else card_name(slot.kind)


# --------------------------------------------------------------------------------------------
# The game


class FrenzyFalls(Game[FallsState]):
    meta = GameMeta(
        id="frenzyfalls",
        name="Frenzy Falls",
        min_players=2,
        max_players=6,
        # 2: the bump event names the moved card's place, the clear event each card's seat
        version="2.1",  # 2.1: event texts name seats and read as English, not Python lists
        variants=(Variant("two-player", "3 Pools and 3 cards played per round", {}, (2,)),),
        hidden_information=True,
        simultaneous=True,  # the round-end discards: every seat at once
        summary="Play Waterfall cards face down into shared Pools; a Pool of 10 water spills and "
        "the most influence takes its Score card; PROXY, BUMP, PULL and spill moves cascade.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    # -- setup ----------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> FallsState:
        players = config.players
        state = FallsState(config=config, chance=chance)
        scores = chance.shuffled(range(len(SCORES)), "score")
        size = SCORE_DECK[players]
        state.score_deck, state.score_box = scores[:size], sorted(scores[size:])
        state.won = [[] for _ in range(players)]
        state.hands = [[] for _ in range(players)]
        state.discards = [[] for _ in range(players)]
        state.draws = [chance.shuffled(DECK, "deck") for _ in range(players)]
        state.pile_from = [[k.copies for k in KINDS] for _ in range(players)]
        state.first = chance.pick(range(players), "first")
        for pool in range(POOLS[players]):
            state.pools.append([])
            state.score.append(INACTIVE)
            self._reveal_score(state, pool)
        for seat in range(players):
            self._draw_up(state, seat)
        self._start_round(state)
        return state

    def _reveal_score(self, state: FallsState, pool: int) -> None:
        """Put the Score deck's top card on the Pool; an empty deck makes it inactive (ruling 8)."""
        if not state.score_deck:
            state.score[pool] = INACTIVE
            state.final = True
            state.log.public(
                CHANCE_SEAT,
                "final",
                f"no Score card for Pool {pool + 1}: it is inactive and this is the last round",
                _detail(pool=pool + 1),
            )
            return
        card = state.score_deck.pop(0)
        state.score[pool] = card
        s = SCORES[card]
        state.log.public(
            CHANCE_SEAT,
            "score",
            f"Pool {pool + 1}: Score card of water {s.water}, {s.points} points",
            _detail(pool=pool + 1, score=SCORE_PB[card]),
        )

    def _draw_up(self, state: FallsState, seat: int) -> None:
        hand, draws = state.hands[seat], state.draws[seat]
        drawn: list[int] = []
        while len(hand) < HAND:
            if not draws:
                if not state.discards[seat]:
                    break
                draws[:] = state.chance.shuffled(state.discards[seat], "reshuffle")
                state.pile_from[seat] = [draws.count(k) for k in range(len(KINDS))]
                state.discards[seat] = []
                state.log.public(
                    seat,
                    "reshuffle",
                    f"seat {seat} shuffles {len(draws)} discarded cards into a new draw pile",
                    _detail(seat=seat, count=len(draws)),
                )
            card = draws.pop(0)
            hand.append(card)
            drawn.append(card)
        hand.sort()
        if drawn:
            state.log.private(
                [seat],
                seat,
                "draw",
                f"you draw {', '.join(card_name(k) for k in drawn)}",
                _detail(seat=seat, cards=[CARD_PB[k] for k in drawn], count=len(drawn)),
            )

    def _start_round(self, state: FallsState) -> None:
        state.round += 1
        players = state.players
        state.phase = pb.PLAY_PHASE
        state.queue = [(state.first + k) % players for _ in range(PLAYS[players]) for k in range(players)]
        state.log.public(
            state.first,
            "round",
            f"round {state.round}: seat {state.first} plays first",
            _detail(round=state.round, seat=state.first),
        )
        self._next_player(state)

    def _next_player(self, state: FallsState) -> None:
        """Skip players with empty hands (ruling 12); after the last play, reveal."""
        while state.queue and not state.hands[state.queue[0]]:
            state.queue.pop(0)
        if not state.queue:
            state.phase = pb.REVEAL_PHASE
            state.at = 0
            self._run(state)

    # -- decisions ------------------------------------------------------------------------------

    def decisions(self, state: FallsState) -> Iterable[Decision]:
        if state.over:
            return ()
        if state.phase == pb.PLAY_PHASE:
            # Every Pool is active in Phase 1 (an inactive one ends the game after the round).
            seat = state.queue[0]
            return (Decision(seat, "play", play_options(tuple(sorted(set(state.hands[seat]))), len(state.pools))),)
        if state.phase == pb.DISCARD_PHASE:
            return tuple(
                Decision(seat, "discard", (*(discard_option(k) for k in sorted(set(state.hands[seat]))), _DONE))
                for seat in state.discarding
            )
        task = state.task
        assert task is not None
        return (Decision(task.seat, task.kind, self._task_options(state, task)),)

    def _task_options(self, state: FallsState, task: Task) -> tuple[Option, ...]:
        if task.kind == "proxy":
            return tuple(replace_option(k) for k in sorted(set(state.hands[task.seat])))
        if task.kind == "bump":
            return (_LEFT, _RIGHT)
        if task.kind == "pull":
            return tuple(pull_option(q, j) for q, j in self._pull_targets(state, task.pool))
        return tuple(move_option(k) for k in self._own_kinds(state, task.pool, task.seat))

    def _pull_targets(self, state: FallsState, pool: int) -> list[tuple[int, int]]:
        return [(q, j) for q in range(len(state.pools)) if q != pool for j in range(len(state.pools[q]))]

    def _own_kinds(self, state: FallsState, pool: int, seat: int) -> list[int]:
        return sorted({s.kind for s in state.pools[pool] if s.owner == seat})

    # -- transitions ----------------------------------------------------------------------------

    def resolve(self, state: FallsState, chosen: Mapping[int, Option]) -> None:
        if state.phase == pb.PLAY_PHASE:
            (seat,) = chosen
            self._play(state, seat, _action(chosen[seat]))
            return
        if state.phase == pb.DISCARD_PHASE:
            self._discard_step(state, chosen)
            return
        task = state.task
        assert task is not None
        state.task = None
        action = _action(chosen[task.seat])
        if task.kind == "proxy":
            if self._replace(state, task.pool, task.place, task.seat, KIND_OF[action.card]):
                return
        elif task.kind == "bump":
            self._bump(state, task.pool, task.place, -1 if action.kind == pb.BUMP_LEFT else 1)
        elif task.kind == "pull":
            self._pull(state, task.pool, task.place, action.pool - 1, action.index - 1)
        else:
            self._move(state, task.pool, task.seat, KIND_OF[action.card])
            state.movers.pop(0)
        self._run(state)

    def _play(self, state: FallsState, seat: int, action: pb.Action) -> None:
        kind, pool = KIND_OF[action.card], action.pool - 1
        state.queue.pop(0)
        state.hands[seat].remove(kind)
        state.pools[pool].append(Slot(seat, kind, True))
        state.log.public(
            seat, "play", f"seat {seat} plays a card face down to Pool {pool + 1}", _detail(seat=seat, pool=pool + 1)
        )
        self._next_player(state)

    # -- Phase 2: the reveal loop ---------------------------------------------------------------

    def _run(self, state: FallsState) -> None:
        """Resolve Pools in turn until a decision is needed or the loop ends (ruling 8)."""
        while True:
            if state.spill_pool >= 0:
                if self._spill_moves(state):
                    return
                self._finish_spill(state)
                if self._pool_done(state):
                    return
                continue
            pool = state.pools[state.at]
            index = next((i for i, s in enumerate(pool) if s.down), -1)
            if index >= 0:
                if self._reveal(state, state.at, index):
                    return
                continue
            if state.score[state.at] != INACTIVE and state.water(state.at) >= SPILL_AT:
                self._start_spill(state)
                continue
            if self._pool_done(state):
                return

    def _pool_done(self, state: FallsState) -> bool:
        """After a Pool is resolved: end the reveal, or go on to the Pool below."""
        settled = all(
            not any(s.down for s in state.pools[p]) and (state.score[p] == INACTIVE or state.water(p) < SPILL_AT)
            for p in range(len(state.pools))
        )
        if settled:
            self._end_round(state)
            return True
        state.at = state.below(state.at)
        return False

    def _reveal(self, state: FallsState, pool: int, index: int) -> bool:
        slot = state.pools[pool][index]._replace(down=False)
        state.pools[pool][index] = slot
        state.log.public(
            slot.owner,
            "reveal",
            f"Pool {pool + 1}: seat {slot.owner}'s {card_name(slot.kind)} is revealed",
            _detail(seat=slot.owner, pool=pool + 1, index=index + 1, card=CARD_PB[slot.kind]),
        )
        return self._act(state, pool, index)

    def _act(self, state: FallsState, pool: int, index: int) -> bool:
        """Resolve the action of the face-up card at ``index``; True when a decision waits."""
        slot = state.pools[pool][index]
        special = KINDS[slot.kind].special
        seat = slot.owner
        if special == pb.PROXY:
            del state.pools[pool][index]
            state.discards[seat].append(slot.kind)
            if not state.hands[seat]:
                state.log.public(
                    seat,
                    "proxy",
                    f"seat {seat}'s PROXY is discarded; no card to replace it",
                    _detail(seat=seat, pool=pool + 1, index=index + 1),
                )
                return False
            state.task = Task("proxy", seat, pool, index)
            return True
        if special == pb.BUMP:
            sides = [side for side in (-1, 1) if 0 <= index + side < len(state.pools[pool])]
            if len(sides) == 2:
                state.task = Task("bump", seat, pool, index)
                return True
            if sides:
                self._bump(state, pool, index, sides[0])
            return False
        if special == pb.PULL:
            targets = self._pull_targets(state, pool)
            if len(targets) > 1:
                state.task = Task("pull", seat, pool, index)
                return True
            if targets:
                self._pull(state, pool, index, *targets[0])
            return False
        return False

    def _replace(self, state: FallsState, pool: int, index: int, seat: int, kind: int) -> bool:
        state.hands[seat].remove(kind)
        state.pools[pool].insert(index, Slot(seat, kind, False))
        state.log.public(
            seat,
            "proxy",
            f"seat {seat}'s PROXY is discarded and replaced by {card_name(kind)}",
            _detail(seat=seat, pool=pool + 1, index=index + 1, card=CARD_PB[kind]),
        )
        return self._act(state, pool, index)

    def _bump(self, state: FallsState, pool: int, index: int, side: int) -> None:
        owner = state.pools[pool][index].owner  # the BUMP's
        slot = state.pools[pool].pop(index + side)
        to = state.below(pool)
        state.pools[to].append(slot)
        state.log.public(
            owner,
            "bump",
            f"BUMP moves seat {slot.owner}'s {_what(slot)} from Pool {pool + 1} to Pool {to + 1}",
            _detail(
                seat=owner,
                pool=pool + 1,
                index=index + side + 1,  # the moved card's place: tells a left bump from a right one
                to_pool=to + 1,
                card=None if slot.down else CARD_PB[slot.kind],
                face_down=slot.down,
            ),
        )

    def _pull(self, state: FallsState, pool: int, at: int, source: int, index: int) -> None:
        owner = state.pools[pool][at].owner  # the PULL's
        slot = state.pools[source].pop(index)
        state.pools[pool].append(slot)
        state.log.public(
            owner,
            "pull",
            f"PULL moves seat {slot.owner}'s {_what(slot)} from Pool {source + 1} to Pool {pool + 1}",
            _detail(
                seat=owner,
                pool=source + 1,
                index=index + 1,
                to_pool=pool + 1,
                card=None if slot.down else CARD_PB[slot.kind],
                face_down=slot.down,
            ),
        )

    # -- spills ---------------------------------------------------------------------------------

    def _start_spill(self, state: FallsState) -> None:
        pool = state.at
        cards = state.pools[pool]
        winner = spill_winner(cards, state.players)
        won = state.score[pool]
        state.won[winner].append(won)
        state.log.public(
            winner,
            "spill",
            f"Pool {pool + 1} spills at {state.water(pool)} water: seat {winner} wins {SCORES[won].points} points",
            _detail(
                pool=pool + 1,
                water=state.water(pool),
                influence=state.influence(pool),
                seat=winner,
                score=SCORE_PB[won],
            ),
        )
        self._reveal_score(state, pool)
        state.spill_pool, state.spill_winner = pool, winner
        state.movers = movers(cards, winner)
        self._clear(state, pool, lambda s: s.owner == winner)

    def _spill_moves(self, state: FallsState) -> bool:
        """Each other player moves one card to the Pool below; True when one must choose."""
        pool = state.spill_pool
        while state.movers:
            seat = state.movers[0]
            kinds = self._own_kinds(state, pool, seat)
            if len(kinds) > 1:
                state.task = Task("move", seat, pool, -1)
                return True
            self._move(state, pool, seat, kinds[0])
            state.movers.pop(0)
        return False

    def _move(self, state: FallsState, pool: int, seat: int, kind: int) -> None:
        cards = state.pools[pool]
        index = next(i for i, s in enumerate(cards) if s.owner == seat and s.kind == kind)
        slot = cards.pop(index)
        to = state.below(pool)
        state.pools[to].append(slot)
        state.log.public(
            seat,
            "move",
            f"seat {seat} moves {card_name(kind)} from Pool {pool + 1} to Pool {to + 1}",
            _detail(seat=seat, pool=pool + 1, to_pool=to + 1, card=CARD_PB[kind]),
        )

    def _finish_spill(self, state: FallsState) -> None:
        self._clear(state, state.spill_pool, lambda s: True)
        state.spill_pool, state.spill_winner = -1, -1

    def _clear(self, state: FallsState, pool: int, which: Callable[[Slot], bool]) -> None:
        """Discard the Pool's cards that ``which`` selects, each to its owner's discard pile."""
        gone = [s for s in state.pools[pool] if which(s)]
        if not gone:
            return
        state.pools[pool] = [s for s in state.pools[pool] if not which(s)]
        for slot in gone:
            state.discards[slot.owner].append(slot.kind)
        state.log.public(
            CHANCE_SEAT,
            "clear",
            f"Pool {pool + 1}: {', '.join(f'seat {s.owner} {card_name(s.kind)}' for s in gone)} discarded",
            _detail(pool=pool + 1, cards=[CARD_PB[s.kind] for s in gone], owners=[s.owner for s in gone]),
        )

    # -- round end ------------------------------------------------------------------------------

    def _end_round(self, state: FallsState) -> None:
        if state.final or state.round >= MAX_ROUNDS:
            self._game_over(state)
            return
        state.phase = pb.DISCARD_PHASE
        state.discarding = [s for s in range(state.players) if state.hands[s]]
        if not state.discarding:
            self._new_round(state)

    def _discard_step(self, state: FallsState, chosen: Mapping[int, Option]) -> None:
        for seat in sorted(chosen):
            action = _action(chosen[seat])
            if action.kind == pb.DONE:
                state.discarding.remove(seat)
                continue
            kind = KIND_OF[action.card]
            state.hands[seat].remove(kind)
            state.discards[seat].append(kind)
            state.log.public(
                seat, "discard", f"seat {seat} discards {card_name(kind)}", _detail(seat=seat, card=CARD_PB[kind])
            )
            if not state.hands[seat]:
                state.discarding.remove(seat)
        if not state.discarding:
            self._new_round(state)

    def _new_round(self, state: FallsState) -> None:
        for seat in range(state.players):
            self._draw_up(state, seat)
        state.first = (state.first + 1) % state.players
        self._start_round(state)

    def _game_over(self, state: FallsState) -> None:
        state.over = True
        state.phase = pb.OVER_PHASE
        state.task = None
        scores = [state.points(s) for s in range(state.players)]
        counts = [len(w) for w in state.won]
        state.log.public(
            CHANCE_SEAT,
            "end",
            "game over: points "
            + ", ".join(
                f"seat {s} {scores[s]} ({counts[s]} Score card{'s' * (counts[s] != 1)})" for s in range(state.players)
            ),
            _detail(scores=scores, counts=counts),
        )

    # -- views ----------------------------------------------------------------------------------

    def observation(self, state: FallsState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        players = state.players
        pools = []
        for p, cards in enumerate(state.pools):
            score = state.score[p]
            slots = []
            for slot in cards:
                known = not slot.down or spectator or slot.owner == viewer
                slots.append(
                    pb.Slot(
                        owner=slot.owner, face_down=slot.down, known=known, card=CARD_PB[slot.kind] if known else None
                    )
                )
            pools.append(
                pb.Pool(
                    active=score != INACTIVE,
                    score=SCORE_PB[score] if score != INACTIVE else None,
                    cards=slots,
                    water=state.water(p),
                    face_down=sum(s.down for s in cards),
                    influence=state.influence(p),
                )
            )
        seats = [
            pb.SeatView(
                hand_size=len(state.hands[s]),
                draw_pile=len(state.draws[s]),
                discards=sorted(card_name(k) for k in state.discards[s]),
                won=[SCORE_PB[c] for c in state.won[s]],
                points=state.points(s),
                plays_left=state.queue.count(s) if state.phase == pb.PLAY_PHASE else 0,
                unseen=sorted(card_name(k) for k in unseen_cards(state, s, viewer)),
                pile_source=sorted(card_name(k) for k, n in enumerate(state.pile_from[s]) for _ in range(n)),
            )
            for s in range(players)
        ]
        task = state.task
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=players,
            phase=state.phase,  # type: ignore[arg-type]
            round=state.round,
            first_player=state.first,
            final_round=state.final,
            pools=pools,
            hand=[] if spectator else [CARD_PB[k] for k in state.hands[viewer]],
            seats=seats,
            score_deck=len(state.score_deck),
            unseen_scores=sorted(
                (SCORE_PB[c] for c in unseen_scores(state, viewer)), key=lambda s: (s.water, s.points)
            ),
            resolving_pool=state.at + 1 if state.phase == pb.REVEAL_PHASE else 0,
            resolving_card=task.place + 1 if task is not None and task.place >= 0 else 0,
            spill_winner=max(state.spill_winner, 0),
            catalogue=CATALOGUE,
            spill_at=SPILL_AT,
            task=task.kind if task is not None else "",
            task_seat=task.seat if task is not None else 0,
            movers=state.movers,
            discarding=state.discarding if state.phase == pb.DISCARD_PHASE else [],
        )
        if spectator:
            obs.hands.extend(pb.Hand(cards=[card_name(k) for k in h]) for h in state.hands)
            obs.draw_piles.extend(pb.Hand(cards=[card_name(k) for k in d]) for d in state.draws)
            obs.deck.extend(SCORE_PB[c] for c in state.score_deck)
        return obs

    def score(self, state: FallsState) -> Result:
        points = [state.points(s) for s in range(state.players)]
        keys = [(points[s], len(state.won[s])) for s in range(state.players)]
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        summary = f"{'winners' if len(winners) > 1 else 'winner'}: {', '.join(f'seat {s}' for s in winners)}"
        return Result.ranked(points, keys, summary)

    def sample_world(self, state: FallsState, seat: int, chance: Chance) -> FallsState:
        from arena.games.frenzyfalls.worlds import sample_world

        return sample_world(self, state, seat, chance)

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> FallsState:
        from arena.games.frenzyfalls.worlds import world_from_observation

        assert isinstance(observation, pb.Observation)
        return world_from_observation(self, config, seat, observation, chance)


def unseen_cards(state: FallsState, seat: int, viewer: int) -> list[int]:
    """``seat``'s cards the viewer cannot see: for another seat its hand, draw pile and
    face-down cards; for the viewer itself its draw pile (the order is hidden); none for the
    spectator."""
    if viewer == SPECTATOR:
        return []
    if seat == viewer:
        return list(state.draws[seat])
    down = [s.kind for pool in state.pools for s in pool if s.down and s.owner == seat]
    return state.hands[seat] + state.draws[seat] + down


def unseen_scores(state: FallsState, viewer: int) -> list[int]:
    """Score cards never revealed: the Score deck and the cards out of the game (the viewer
    cannot tell which is which)."""
    return [] if viewer == SPECTATOR else state.score_deck + state.score_box


GAME = FrenzyFalls()
