"""Llama Llama — secret goals, revealed one by one, and passing to the left, 2–4 players
(``shared/rules/llamallama.md``).

Rules as implemented (rulebook line references in brackets):

* 32 Llama cards, each a letter A–G and a goal side (a top rule "letter = points each" and a
  bottom rule "combination = points") [:34, :155-178] (designed: ``components.toml``); 4
  Display cards showing how many cards to pass: 4, 3, 2, 1 [:33, :42-43, :126].
* A round [:40-108]: shuffle, deal 4 hands of 8; seats take one each, the others are dummy
  hands [:45-56, :290-298]. Every player secretly chooses one card of its hand as its Goal card;
  each dummy adds one random card of its hand [:59-72, :300-302]. The 4 goals go face down on
  the displays: round 1 shuffled [:76-83]; later by total score, the highest on display 1,
  ties shuffled [:231-262] (face down: who gave which of them is unknown, ruling 5), dummy
  goals on the displays with the dummy icon [:304-306].
* Then 4 reveals [:97-108]: the leftmost face-down goal is turned up [:110-118] and every
  player passes the number of cards its display shows to the left [:120-134]. A dummy on your
  left: your cards are shuffled into it and the player on its left draws as many at random
  [:310-315].
* Round end [:136-153]: every player scores its hand against all 4 goals: each top rule gives
  its points for each copy of its letter; each bottom rule its points for each disjoint copy of
  its combination [:155-229]. Totals add up.
* 3 players: the dummy starts on the left of a random player and in later rounds moves to the
  right of the lowest total [:85-95, :319-327]; 2 players: the dummies sit between the players
  and never move [:329-331].
* End [:13-21, :266-288]: after a round in which someone reached 100, or after round 4. The
  highest total wins; ties go to the higher last-round score, then the victory is shared.

Rulings (``shared/rules/NOTES.md`` §4.10 unless stated):

1. **Components** (missing data): letters, goal rules and the 2–3-player display side are
   designed in ``components.toml`` (reasons there; checks in ``bench/design_llamallama.py``).
2. **Scoring** (NOTES ruling 1): top = points × copies of the letter; bottom = points × the
   number of disjoint copies of the combination (min over its letters of ⌊copies/needed⌋). A card
   counts for every rule at once; equal goal cards score independently.
3. **Hand size** (NOTES 2): 8 dealt, 1 given as the goal, 7 kept; passing keeps 7.
4. **Passing** (NOTES 4, 6; "Players may choose any cards from their hand" :128): a pass of N
   cards is N sealed simultaneous single picks: each seat sets aside one card at a time, by
   card (``pass:<id>``). Copies of a letter score alike, but their goal sides differ, and the
   receiver learns that the goal on the card it got is on no display: which copy to give is
   the passer's choice (version 4; versions 2 and 3 offered letters and moved the lowest id,
   then a random copy). When the N picks are
   done the cards move together: first every player's cards go to its left neighbour or into
   the dummy there, then each dummy (in hand order) is drawn from by the player on its left.
5. **Dummy goals and who gave which goal** [:59-83, :244-262, :302-306]: dummy goals are drawn
   from the dummy's 8 cards after the players chose. In round 1 all 4 goals are shuffled face
   down onto the displays [:78-79], and nobody knows which display holds whose goal (you
   recognise your own when it is revealed). From round 2 the placement follows the standings:
   players by total on the displays without a dummy icon, in display order; dummy goals on the
   dummy-icon displays (4, then 2; two dummy goals shuffled between them, both shown as a
   dummy). A seat alone at its total has a public display. The goals of seats tied on total
   are shuffled ("Shuffle tied Goal cards randomly" [:260-262]); goal cards are face down
   [:63-64, :79], so as in round 1 nobody, the tied seats included, knows which of the group's
   displays holds whose goal until it is revealed, only that the owner is one of the group
   (``Display.owner_among``; ``owner_group`` in the state). This changed in version 2: version 1
   published every owner from round 2 on, the tied ones too.
6. **3-player dummy** (NOTES 5): round 1 it sits on the left of a random seat; from round 2 on
   the right of the lowest total, ties broken at random. "Right of seat L" = on the left of the
   previous seat (L − 1), who now passes into it, and L draws from it.
7. **Visibility**: you see your hand, your picks, your goal, the revealed goals, and the cards
   you passed and received (your pass records carry their letters and ids). At the round's
   end every player's hand is shown (it is scored publicly). Dummy hands and the cards drawn
   from a dummy are never shown to others.
8. **End and tie-break** (NOTES 6): checked after a round's scoring. Ranks are by total, then
   by the last round's score; still equal = shared placing.
9. **Determinization** (``sample_world``): every card a seat passed this round (and does not
   hold again) stays on its route: in the hand it was passed to, or as far on as the passes
   since could have carried it (one step a pass: a player passes left, a dummy's drawer draws;
   a card passed into a dummy may be drawn at once), never through the seat itself and never
   a face-down goal. The rest is dealt uniformly over the deals that respect this
   (``Chance.deal``); how likely each seat was to pass a card on is not weighed. The owner of
   every display of a group shuffled face down (ruling 5: round 1 all four, later rounds each
   group of tied seats) is dealt again within its group, never across groups, a revealed one's
   too, except the seat's own revealed display (it does not know who gave the others); its own
   unrevealed goal goes on one of its group's face-down displays. A world keeps only the seat's
   own pass records: the others' name cards it never saw.

Bound: at most 4 rounds, each one sealed ``goal`` step and 4 + 3 + 2 + 1 = 10 sealed ``pass``
steps (every seat passes the revealed display's count), so a game has at most 44 steps at every
player count (11 × rounds; fewer only when someone reaches 100 first). Random play always
takes 44.

Chance labels, in draw order each round: ``"dummy"`` (3 players: round 1 a pick of the seat the
dummy sits left of; later rounds a pick among the tied lowest totals, only when tied),
``"deck"`` (one shuffle of the card ids 1–32; hand h receives cards 8h … 8h+7 of the order;
hands 0..players−1 are the seats', the rest the dummies'), after the goal choices
``"dummy_goal"`` (per dummy in hand order, a pick of one of its cards), ``"place"`` (round 1: a
shuffle of the hand ids 0–3, seats being 0..players−1 and dummies the rest: display d gets the
goal of hand order[d]; later rounds a shuffle per group of tied seats, best first, then of the
two dummy ids at 2 players), and when a pass with a dummy is complete ``"draw"`` (per dummy in hand order, N
successive picks of a card id from its sorted hand). ``sample_world`` draws ``"world"``
(the world's seed) and then its re-deal (``"world_place"`` per group of displays shuffled face
down, best first: round 1 one group, later rounds one per group of tied seats, none without a
tie; then ``"world_deal"``); ``world_from_observation`` draws ``"world"``, then the unknown
goal owners of each group (``"world_place"``), then the same re-deal.

Decision kinds: ``"goal"`` (``goal:<id>``, two digits) and ``"pass"`` (``pass:<id>``, two digits).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result
from arena.games.v1 import llamallama_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

LETTERS = "ABCDEFG"
CARDS: list[dict] = _DATA["deck"]["cards"]
DECK_SIZE = len(CARDS)
CARD_IDS = tuple(range(1, DECK_SIZE + 1))
LETTER: dict[int, str] = {c["id"]: c["letter"] for c in CARDS}
TOP: dict[int, tuple[str, int]] = {c["id"]: (c["top"], c["top_points"]) for c in CARDS}
COMBO: dict[int, tuple[str, int]] = {c["id"]: ("".join(sorted(c["combo"])), c["combo_points"]) for c in CARDS}
PASS_4P: tuple[int, ...] = tuple(_DATA["displays"]["pass_4p"])
PASS_23P: tuple[int, ...] = tuple(_DATA["displays"]["pass_23p"])
DUMMY_ICONS: tuple[int, ...] = tuple(_DATA["displays"]["dummy_icons"])  # 1-based, fill order
HAND_SIZE: int = _DATA["round"]["hand_size"]
HANDS: int = _DATA["round"]["hands"]
ROUNDS: int = _DATA["round"]["rounds"]
TARGET: int = _DATA["round"]["target"]
DUMMY = -2
"""Owner / circle id of a dummy hand in observations."""
PassRecord = tuple[int, tuple[int, ...], int, tuple[int, ...], int]
"""(reveal, cards passed, to, cards received, from); to/from -2 = dummy."""


def _check() -> None:
    if sorted(LETTER) != list(CARD_IDS):
        raise ValueError("components.toml: card ids must be 1-32")
    for cid in CARD_IDS:
        if LETTER[cid] not in LETTERS or TOP[cid][0] not in LETTERS or set(COMBO[cid][0]) - set(LETTERS):
            raise ValueError(f"components.toml: card {cid} uses a letter outside A-G")


_check()


def letter_counts(letters: Iterable[str]) -> dict[str, int]:
    counts = dict.fromkeys(LETTERS, 0)
    for x in letters:
        counts[x] += 1
    return counts


def combo_copies(counts: Mapping[str, int], combo: str) -> int:
    """Disjoint copies of ``combo`` (a string of letters) in a hand with these letter counts."""
    need = letter_counts(combo)
    return min(counts.get(x, 0) // k for x, k in need.items() if k)


def goal_points(counts: Mapping[str, int], goal: int) -> int:
    """What one goal card gives a hand: top rule + bottom rule [:157-227]."""
    top, top_points = TOP[goal]
    combo, combo_points = COMBO[goal]
    return top_points * counts.get(top, 0) + combo_points * combo_copies(counts, combo)


def hand_score(letters: Iterable[str], goals: Iterable[int]) -> int:
    counts = letter_counts(letters)
    return sum(goal_points(counts, g) for g in goals)


def pass_counts(players: int) -> tuple[int, ...]:
    return PASS_4P if players == HANDS else PASS_23P


def icon_displays(players: int) -> tuple[int, ...]:
    """0-based displays that take dummy goals from round 2, in fill order."""
    return tuple(d - 1 for d in DUMMY_ICONS[: HANDS - players])


def deal_owners(
    owners: Sequence[int],
    groups: Sequence[int],
    known: Iterable[int],
    face_down: Sequence[int],
    seat: int,
    chance: Chance,
) -> list[int]:
    """The owners (hand ids) per display in a world (ruling 5): within each group of displays
    whose goals were shuffled together (``groups[d]`` >= 0; -1 = a public owner, kept), the
    owners of the displays not ``known`` to ``seat`` (its own revealed display) are dealt again
    among the hands that own them, never across groups; the seat's own goal, while not
    revealed, goes on one of its group's ``face_down`` displays. Shared by ``sample_world`` and
    ``world_from_observation`` (chance labels ``"world_place"``: per group, best first, that
    pick if the seat is in it, then one shuffle)."""
    out = list(owners)
    kept = set(known)
    for group in sorted(set(groups) - {-1}):
        unknown = [d for d in range(HANDS) if groups[d] == group and d not in kept]
        hands = sorted(out[d] for d in unknown)
        if seat in hands:
            at = chance.pick([d for d in unknown if d in face_down], "world_place")
            out[at] = seat
            hands.remove(seat)
            unknown.remove(at)
        for d, h in zip(unknown, chance.shuffled(hands, "world_place"), strict=True):
            out[d] = h
    return out


def display_groups(owners: Sequence[int], totals: Sequence[int], players: int) -> list[int]:
    """Round 2 on (ruling 5): per display, the group of tied seats whose goals were shuffled onto
    it (numbered 0, 1, ... best first, i.e. in display order), -1 where the owner is public (a
    seat alone at its total, a dummy)."""
    tied = sorted({totals[s] for s in range(players) if totals.count(totals[s]) > 1}, reverse=True)
    return [tied.index(totals[h]) if h < players and totals[h] in tied else -1 for h in owners]


def own_passes(players: int, seat: int, records: Iterable[PassRecord]) -> list[list[PassRecord]]:
    """A world's pass records: the seat's own; the others' name cards the seat never saw (what
    they passed and received), so a world leaves them empty rather than copy the real ones."""
    out: list[list[PassRecord]] = [[] for _ in range(players)]
    out[seat] = list(records)
    return out


def circle_for(players: int, dummy_left_of: int) -> list[int]:
    """The 4 hands clockwise from seat 0 (hand ids; hands >= players are dummies)."""
    if players == 4:
        return [0, 1, 2, 3]
    if players == 2:
        return [0, 2, 1, 3]
    order = [0, 1, 2]
    order.insert(order.index(dummy_left_of) + 1, 3)
    return order


# --------------------------------------------------------------------------------------------
# Protobuf views


_PB_CARD = {
    cid: pb.Card(
        id=cid,
        letter=LETTER[cid],
        top=TOP[cid][0],
        top_points=TOP[cid][1],
        combo=COMBO[cid][0],
        combo_points=COMBO[cid][1],
    )
    for cid in CARD_IDS
}


def pb_card(cid: int) -> pb.Card:
    """The protobuf view of a card (shared: copy before mutating)."""
    return _PB_CARD[cid]


def _owner_text(owner: int) -> str:
    """An owner or circle id as the event texts read it: -1 an owner not yet known, -2 a dummy."""
    return "unknown" if owner == -1 else "dummy" if owner == DUMMY else f"seat {owner}"


def card_name(cid: int) -> str:
    top, tp = TOP[cid]
    combo, cp = COMBO[cid]
    return f"#{cid:02d} {LETTER[cid]} ({top}={tp}, {combo}={cp})"


_GOAL_OPTION = {
    cid: Option(f"goal:{cid:02d}", f"give {card_name(cid)} as your goal", pb.Action(goal=_PB_CARD[cid]))
    for cid in CARD_IDS
}
_PASS_OPTION = {
    cid: Option(f"pass:{cid:02d}", f"pass {card_name(cid)}", pb.Action(letter=LETTER[cid], card=_PB_CARD[cid]))
    for cid in CARD_IDS
}
_CARD_OF_GOAL = {o.id: cid for cid, o in _GOAL_OPTION.items()}
_CARD_OF_PASS = {o.id: cid for cid, o in _PASS_OPTION.items()}


# --------------------------------------------------------------------------------------------
# State


@dataclass
class LlamaState(MatchState):
    round: int = 0
    phase: str = "goal"  # "goal", "pass", "over"
    circle: list[int] = field(default_factory=list)  # hand ids clockwise
    hands: list[list[int]] = field(default_factory=list)  # 4 hands (sorted card ids), by hand id
    picked: list[list[int]] = field(default_factory=list)  # per seat: cards set aside this pass
    my_goal: list[int] = field(default_factory=list)  # per seat: its goal card this round (0 = none)
    goals: list[int] = field(default_factory=list)  # per display: goal card
    owners: list[int] = field(default_factory=list)  # per display: hand id that gave it
    owner_group: list[int] = field(default_factory=list)  # per display: -1 owner public, else its
    # group: the displays whose goals were shuffled together face down (ruling 5)
    reveals: int = 0
    pass_size: int = 0
    totals: list[int] = field(default_factory=list)
    round_scores: list[list[int]] = field(default_factory=list)  # per seat, per finished round
    passes: list[list[PassRecord]] = field(default_factory=list)  # per seat, this round
    winners: list[int] = field(default_factory=list)

    def left(self, hand: int) -> int:
        circle = self.circle
        return circle[(circle.index(hand) + 1) % HANDS]

    def public_id(self, hand: int) -> int:
        return hand if hand < self.players else DUMMY


# --------------------------------------------------------------------------------------------
# The game


class LlamaLlama(Game[LlamaState]):
    meta = GameMeta(
        id="llamallama",
        name="Llama Llama",
        min_players=2,
        max_players=4,
        # 4: a pass picks a card, not a letter (ruling 4; 3 moved a random copy, 2 the lowest id)
        version="4.1",  # 4.1: event texts name seats and read as English, not Python lists
        simultaneous=True,
        hidden_information=True,
        summary="Give a secret goal card, watch the 4 goals turn up one by one while passing 4-3-2-1 "
        "cards left, and score your 7 letters against all of them; 4 rounds or 100 points.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> LlamaState:
        n = config.players
        state = LlamaState(config=config, chance=chance, totals=[0] * n, round_scores=[[] for _ in range(n)])
        self._start_round(state)
        return state

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: LlamaState) -> Iterable[Decision]:
        if state.phase == "goal":
            return tuple(
                Decision(s, "goal", tuple(_GOAL_OPTION[c] for c in state.hands[s])) for s in range(state.players)
            )
        if state.phase == "pass":
            out = []
            for s in range(state.players):
                out.append(Decision(s, "pass", tuple(_PASS_OPTION[c] for c in state.hands[s])))
            return tuple(out)
        return ()

    def resolve(self, state: LlamaState, chosen: Mapping[int, Option]) -> None:
        if state.phase == "goal":
            for s in range(state.players):
                cid = _CARD_OF_GOAL[chosen[s].id]
                state.hands[s].remove(cid)
                state.my_goal[s] = cid
                state.log.private([s], s, "goal", f"gives {card_name(cid)} as a goal", pb.GoalEvent(card=_PB_CARD[cid]))
            self._place_goals(state)
            self._reveal(state)
            return
        for s in range(state.players):
            cid = _CARD_OF_PASS[chosen[s].id]
            state.hands[s].remove(cid)
            state.picked[s].append(cid)
        if len(state.picked[0]) == state.pass_size:
            self._move_cards(state)
            if state.reveals < HANDS:
                self._reveal(state)
            else:
                self._finish_round(state)

    # -- rules ------------------------------------------------------------------------------

    def _start_round(self, state: LlamaState) -> None:
        n = state.players
        chance = state.chance
        state.round += 1
        if n == 3:
            if state.round == 1:
                left_of = chance.pick([0, 1, 2], "dummy")
            else:
                low = min(state.totals)
                tied = [s for s in range(n) if state.totals[s] == low]
                lowest = tied[0] if len(tied) == 1 else chance.pick(tied, "dummy")
                left_of = (lowest - 1) % n
            state.circle = circle_for(n, left_of)
        else:
            state.circle = circle_for(n, 0)
        deck = chance.shuffled(CARD_IDS, "deck")
        state.hands = [sorted(deck[h * HAND_SIZE : (h + 1) * HAND_SIZE]) for h in range(HANDS)]
        state.picked = [[] for _ in range(n)]
        state.my_goal = [0] * n
        state.goals = []
        state.owners = []
        state.owner_group = []
        state.reveals = 0
        state.pass_size = 0
        state.passes = [[] for _ in range(n)]
        state.phase = "goal"
        circle = [state.public_id(h) for h in state.circle]
        state.log.public(
            CHANCE_SEAT,
            "round",
            f"round {state.round}: table " + ", ".join(_owner_text(h) for h in circle),
            pb.RoundEvent(round=state.round, circle=circle),
        )
        for s in range(n):
            hand = state.hands[s]
            state.log.private(
                [s],
                s,
                "deal",
                "is dealt " + ", ".join(card_name(c) for c in hand),
                pb.DealEvent(cards=[_PB_CARD[c] for c in hand]),
            )

    def _place_goals(self, state: LlamaState) -> None:
        n = state.players
        chance = state.chance
        goal_of: dict[int, int] = {s: state.my_goal[s] for s in range(n)}
        for h in range(n, HANDS):
            cid = chance.pick(state.hands[h], "dummy_goal")
            state.hands[h].remove(cid)
            goal_of[h] = cid
        if state.round == 1:
            owners = chance.shuffled(range(HANDS), "place")
        else:
            ranked: list[int] = []
            for total in sorted(set(state.totals), reverse=True):
                tied = [s for s in range(n) if state.totals[s] == total]
                ranked += tied if len(tied) == 1 else chance.shuffled(tied, "place")
            dummies = list(range(n, HANDS))
            if len(dummies) > 1:
                dummies = chance.shuffled(dummies, "place")
            icons = icon_displays(n)
            owners = [0] * HANDS
            for d, h in zip(icons, dummies, strict=True):
                owners[d] = h
            free = [d for d in range(HANDS) if d not in icons]
            for d, s in zip(free, ranked, strict=True):
                owners[d] = s
        state.owners = list(owners)
        state.owner_group = [0] * HANDS if state.round == 1 else display_groups(owners, state.totals, n)
        state.goals = [goal_of[h] for h in owners]
        shown = [state.public_id(h) if g == -1 else -1 for h, g in zip(owners, state.owner_group, strict=True)]
        owners_text = ", ".join(f"display {d + 1} {_owner_text(h)}" for d, h in enumerate(shown))
        state.log.public(CHANCE_SEAT, "place", f"goals placed (owners: {owners_text})", pb.PlaceEvent(owners=shown))

    def _reveal(self, state: LlamaState) -> None:
        d = state.reveals
        state.reveals += 1
        cid = state.goals[d]
        state.pass_size = pass_counts(state.players)[d]
        state.phase = "pass"
        state.log.public(
            CHANCE_SEAT,
            "reveal",
            f"display {d + 1}: goal {card_name(cid)}; pass {state.pass_size}",
            _reveal_pb(d, cid, state.pass_size),
        )

    def _move_cards(self, state: LlamaState) -> None:
        n = state.players
        incoming: dict[int, tuple[list[int], int]] = {}
        for s in range(n):
            target = state.left(s)
            cards = state.picked[s]
            if target < n:
                incoming[target] = (cards, s)
            else:
                state.hands[target] = sorted(state.hands[target] + cards)
        for h in range(n, HANDS):
            drawer = state.left(h)
            pool = state.hands[h]
            drawn = []
            for _ in range(state.pass_size):
                cid = state.chance.pick(pool, "draw")
                pool.remove(cid)
                drawn.append(cid)
            incoming[drawer] = (drawn, DUMMY)
        for s in range(n):
            cards, source = incoming[s]
            state.hands[s] = sorted(state.hands[s] + cards)
            target = state.left(s)
            record = (
                state.reveals,
                tuple(sorted(state.picked[s])),
                state.public_id(target),
                tuple(sorted(cards)),
                source,
            )
            state.passes[s].append(record)
            state.log.private(
                [s],
                s,
                "pass",
                f"passes {_letters(record[1])} and receives {_letters(record[3])}",
                pb.PassEvent(record=_record_pb(record)),
            )
        state.picked = [[] for _ in range(n)]

    def _finish_round(self, state: LlamaState) -> None:
        n = state.players
        scores = [hand_score((LETTER[c] for c in state.hands[s]), state.goals) for s in range(n)]
        for s in range(n):
            state.totals[s] += scores[s]
            state.round_scores[s].append(scores[s])
        state.log.public(
            CHANCE_SEAT,
            "score",
            f"round {state.round}: scores "
            + ", ".join(f"seat {s} {scores[s]} (total {state.totals[s]})" for s in range(n)),
            pb.ScoreEvent(
                round=state.round,
                hands=[pb.Hand(holder=s, cards=[_PB_CARD[c] for c in state.hands[s]]) for s in range(n)],
                scores=scores,
                totals=state.totals,
            ),
        )
        if max(state.totals) >= TARGET or state.round >= ROUNDS:
            state.phase = "over"
            keys = self._keys(state)
            best = max(keys)
            state.winners = [s for s in range(n) if keys[s] == best]
            state.log.public(
                CHANCE_SEAT,
                "end",
                f"game over: seat {', '.join(map(str, state.winners))} win{'s' * (len(state.winners) == 1)}",
                pb.EndEvent(winners=state.winners, totals=state.totals),
            )
            return
        self._start_round(state)

    @staticmethod
    def _keys(state: LlamaState) -> list[tuple[int, int]]:
        return [
            (state.totals[s], state.round_scores[s][-1] if state.round_scores[s] else 0) for s in range(state.players)
        ]

    # -- determinization ----------------------------------------------------------------------

    def sample_world(self, state: LlamaState, seat: int, chance: Chance) -> LlamaState:
        """A copy of ``state`` with what ``seat`` cannot see re-dealt at random.

        Known to the seat: its hand and picks, its goal, the revealed goals, the hand sizes and
        where the cards it passed may have gone (ruling 9). Everything else — the other hands,
        the dummies, the face-down goals of others and, within each group of goals shuffled
        face down (round 1 all four, later rounds the tied seats'), who gave which and which
        face-down display holds its own goal — is dealt uniformly among the hidden places of
        the same sizes, each card passed by the seat only to a place on its route.
        """
        world = self.copy_for(state, seat, chance)
        world.passes = own_passes(world.players, seat, world.passes[seat])
        if state.phase != "over":
            self._redeal(world, seat, chance)
        else:
            self._redraw_owners(world, seat, chance)  # over: hands public, grouped owners not
        world.pending = tuple(self.decisions(world))
        return world

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> LlamaState:
        """A world from the observation alone (:mod:`arena.games.llamallama.worlds`): the
        public round and the seat's own cards and pass records kept; the other hands, the
        dummies, the face-down goals and who gave which goal of a group dealt by
        :meth:`_redeal`, the seat's passed cards on their routes as in :meth:`sample_world`."""
        from arena.games.llamallama.worlds import world_from_observation

        return world_from_observation(self, config, seat, observation, chance)

    def _redeal(self, world: LlamaState, seat: int, chance: Chance) -> None:
        n = world.players
        where = self._passed_cards_places(world, seat)
        hidden_displays = [d for d in range(world.reveals, HANDS)] if world.goals else []
        self._redraw_owners(world, seat, chance)
        # The places to refill: other hands (hand + picks), dummies, others' face-down goals.
        pool: list[int] = []
        places: list[tuple[str, int]] = []  # (kind, hand or display)
        sizes: list[int] = []
        for h in range(HANDS):
            if h == seat:
                continue
            cards = world.hands[h] + (world.picked[h] if h < n else [])
            pool += cards
            places.append(("hand" if h < n else "dummy", h))
            sizes.append(len(cards))
        for d in hidden_displays:
            if world.owners[d] != seat:
                pool.append(world.goals[d])
                places.append(("goal", d))
                sizes.append(1)

        def accepts(kind: str, index: int) -> Callable[[int], bool]:
            # A card this seat passed can only be where its route may have taken it (never a
            # goal: goals are chosen before the passing); any other card anywhere.
            if kind == "goal":
                return lambda c: c not in where
            return lambda c: c not in where or index in where[c]

        dealt = chance.deal(sorted(pool), sizes, "world_deal", [accepts(k, i) for k, i in places])
        for (kind, index), cards in zip(places, dealt, strict=True):
            if kind == "goal":
                world.goals[index] = cards[0]
                owner = world.owners[index]
                if owner < n:
                    world.my_goal[owner] = cards[0]
            elif kind == "dummy":
                world.hands[index] = sorted(cards)
            else:
                picks = len(world.picked[index])
                world.picked[index] = cards[:picks]
                world.hands[index] = sorted(cards[picks:])
        if world.phase == "goal":
            for s in range(n):
                if s != seat:
                    world.my_goal[s] = 0

    @staticmethod
    def _redraw_owners(world: LlamaState, seat: int, chance: Chance) -> None:
        """Who gave which goal of a group shuffled face down (ruling 5: round 1 all four, later
        rounds each group of tied seats) is unknown, the revealed ones too, except the seat's own
        once revealed; even the seat does not know which of its group's face-down displays holds
        its goal. The owners are dealt again within each group (:func:`deal_owners`), the
        revealed goals stay where they are and the others' face-down goals are left for the
        re-deal."""
        if not world.goals or all(g == -1 for g in world.owner_group):
            return
        n = world.players
        face_down = range(world.reveals, HANDS)
        others = [world.goals[d] for d in face_down if world.owners[d] != seat]
        mine = [d for d in range(world.reveals) if world.owners[d] == seat]
        world.owners = deal_owners(world.owners, world.owner_group, mine, face_down, seat, chance)
        fill = iter(others)
        for d in face_down:
            world.goals[d] = world.my_goal[seat] if world.owners[d] == seat else next(fill)
        for d, owner in enumerate(world.owners):
            if owner < n:
                world.my_goal[owner] = world.goals[d]

    @staticmethod
    def _passed_cards_places(world: LlamaState, seat: int) -> dict[int, frozenset[int]]:
        """Where each card ``seat`` passed this round (and does not hold again) may be now.

        A pass puts the cards into the left hand; one passed into a dummy may be drawn at once
        by the player on the dummy's left. Each later pass may move a card one such step on
        (a player passes it left, a dummy's drawer draws it), never through ``seat``, who would
        have received it."""

        def step(hand: int) -> set[int]:
            reach = {hand}
            target = world.left(hand)
            if target != seat:
                reach.add(target)
                if hand < world.players and target >= world.players and world.left(target) != seat:
                    reach.add(world.left(target))  # into the dummy, then drawn in the same move
            return reach

        records = world.passes[seat]
        held = set(world.hands[seat]) | set(world.picked[seat])
        where: dict[int, frozenset[int]] = {}
        for i, (_, passed, _, _, _) in enumerate(records):
            first = world.left(seat)
            places = {first}
            if first >= world.players and world.left(first) != seat:
                places.add(world.left(first))
            for _ in range(len(records) - 1 - i):  # the passes made since
                places = set().union(*(step(h) for h in places))
            for card in passed:
                if card not in held:
                    where[card] = frozenset(places)  # a later pass of the card overrides
        return where

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: LlamaState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        n = state.players
        me = max(viewer, 0)
        my_goal = 0 if spectator else state.my_goal[me]
        displays = []
        counts = pass_counts(n)
        icons = icon_displays(n)
        for d in range(HANDS):
            placed = bool(state.goals)
            revealed = placed and d < state.reveals
            owner_hand = state.owners[d] if placed else -1
            group = state.owner_group[d] if placed else -1
            public = group == -1
            mine = placed and not spectator and owner_hand == me and (public or revealed)
            if not placed:
                owner = -1
            elif spectator or public or mine:
                owner = state.public_id(owner_hand)
            else:
                owner = -1
            view = pb.Display(
                number=d + 1, pass_count=counts[d], dummy_icon=d in icons, owner=owner, revealed=revealed, mine=mine
            )
            if not public:
                among = sorted(state.owners[e] for e in range(HANDS) if state.owner_group[e] == group)
                view.owner_among.extend(state.public_id(h) for h in among)
            if revealed or mine or (spectator and placed):
                view.goal.CopyFrom(_PB_CARD[state.goals[d]])
            displays.append(view)
        obs = pb.Observation(
            seat=me,
            spectator=spectator,
            players=n,
            round=state.round,
            reveals=state.reveals,
            phase=state.phase,
            pass_size=state.pass_size if state.phase == "pass" else 0,
            pass_left=state.pass_size - len(state.picked[0]) if state.phase == "pass" else 0,
            hand=[] if spectator else [_PB_CARD[c] for c in state.hands[me]],
            picked=[] if spectator else [_PB_CARD[c] for c in sorted(state.picked[me])],
            displays=displays,
            seats=[
                pb.SeatView(
                    total=state.totals[s],
                    rounds=state.round_scores[s],
                    hand_size=len(state.hands[s]) + len(state.picked[s]),
                    picked=len(state.picked[s]),
                    left=state.public_id(state.left(s)),
                    goal_chosen=state.my_goal[s] != 0,
                )
                for s in range(n)
            ],
            circle=[state.public_id(h) for h in state.circle],
            passes=[] if spectator else [_record_pb(r) for r in state.passes[me]],
            deck_letters=sorted(LETTER.values()),
            rounds=ROUNDS,
            target=TARGET,
            over=state.phase == "over",
            winners=state.winners,
        )
        if my_goal:
            obs.goal.CopyFrom(_PB_CARD[my_goal])
        if spectator:
            obs.hands.extend(
                pb.Hand(
                    holder=state.public_id(h),
                    cards=[_PB_CARD[c] for c in sorted(state.hands[h] + (state.picked[h] if h < n else []))],
                )
                for h in state.circle
            )
            obs.goals.extend(_PB_CARD[g] for g in state.goals)
        return obs

    def score(self, state: LlamaState) -> Result:
        keys = self._keys(state)
        winners = ", ".join(map(str, state.winners))
        plural = "s" if len(state.winners) > 1 else ""
        summary = f"winner{plural}: seat {winners} with {max(state.totals)} points after round {state.round}"
        return Result.ranked(state.totals, keys, summary)


def _letters(cards: Sequence[int]) -> str:
    return "".join(sorted(LETTER[c] for c in cards)) or "-"


@cache  # never mutated
def _reveal_pb(display: int, cid: int, size: int) -> pb.RevealEvent:
    return pb.RevealEvent(display=display + 1, card=_PB_CARD[cid], pass_count=size)


def _record_pb(record: PassRecord) -> pb.PassRecord:
    reveal, passed, to, received, source = record
    return pb.PassRecord(
        reveal=reveal,
        passed=[LETTER[c] for c in passed],
        to=to,
        received=[LETTER[c] for c in received],
        source=source,
        passed_cards=[_PB_CARD[c] for c in passed],
        received_cards=[_PB_CARD[c] for c in received],
    )


GAME = LlamaLlama()
"""Llama Llama: see :mod:`arena.games.llamallama.game` for the rules and rulings."""
