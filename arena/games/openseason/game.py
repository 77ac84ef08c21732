"""Open Season — walls of People cards, stocks that trigger actions, accolades that score
(``openseason.md``, a rulebook scrape whose board images were lost).

Rules as implemented (rulebook line references in brackets):

* 2-4 players (4 boards, :8). 180 cards: 6 peoples x 5 attributes x 6 copies [:6-7]. The deck
  is shuffled, 5 cards form the inn [:23-24], a random seat starts [:26]. Horn side: 11 rounds
  and 11 wall spaces; Shield side: 9 and 9 [:33, :127]. The boards are designed
  (``components.toml``; ruling 1).
* A turn [:34-40]: (1) the inn is refilled to 5 [:42]; (2) the stock moves into the accolades
  [:44]; (3) take 2 inn cards (1 if a card was kept last turn, which joins the hand) [:48, :79];
  (4) place 1 card on an empty wall space [:50-53]: face up where every green frieze keeps
  different peoples, or, only when neither card fits anywhere, face down on any space
  [:56-61]; the space's effect triggers if placed in its rounds [:62-68]; (5) the other card
  goes atop the stock [:70-72]; (6) a stock card whose people matches a face-up row-1 card
  triggers that space's action, each action at most once a turn, chains allowed [:74-81].
* Actions [:77-80]: steal the top of an opponent's stock (empty: a random accolade card), the
  robbed seat may then take an inn card or the deck's top card blindly to its stock (no
  trigger); peek at the deck's top 2, one atop the stock, the other back on top; keep an inn
  card for next turn; move a Trophy token from a wall card to a bottom-row card. Shield adds
  "an inn card atop your stock" [:125].
* Trophy tokens (Horn) [:82-86]: after the actions, at most one, on a row-1 card (triggers
  that space's action if not triggered this turn) or a row-3 card (one more card of its people
  for scoring). Shield [:121-123]: a card placed on a Trophy space in rounds 6-9 gives a Trophy
  placed at the end of the turn beside one of the 4 scorings, which only then score.
* End [:89-92]: after the last round stocks and kept cards join the accolades; Wild tokens are
  placed on a wall or accolade card, changing its attribute [:93]. Horn scoring [:95-103]: per
  icon space -2/-3 or +1/+2 per accolade card of its people (+Trophies on it), majority 10 for
  the single most (own Trophies on it count), face-down -5, attribute x2, 4 (7 with the tile)
  per series of 5 attributes, gold frieze same people 5, Penalty -1 per card of the least
  present attribute. Shield [:131-135]: 7 for 18+ accolades, 7 for the 5 attributes within one
  people, 7 for 5 identical attributes on the wall, 1 per accolade card of a chosen attribute.
  Most points wins; ties: fewest accolades, then shared [:104].
* Expert [:137-167]: each seat secretly chooses 4 faces of its 7 Bonus tiles, one above each
  column; a tile activates when its column is full and its visible attributes identical (a
  single-space column: one face-up card); lightning faces act at the end of the turn and are
  discarded (several at once: in the order the player chooses [:167]), infinity stays active,
  scoring faces count at the end. The Wild token may be placed during one's turn on a wall
  card [:149].

Rulings (NOTES §4.11 where it has one):

1. **Boards** (NOTES missing data): both sides and the Bonus-tile pairing are designed in
   ``components.toml`` (every printed number kept; why each choice is written there).
2. **Players**: 2-4 (NOTES basics). The first player is a seeded random seat.
3. **What is public**: a card is face up when it lands atop a stock, so the log names it and
   the observation gives each seat's stock and accolades as remembered from the log (exact:
   every card that enters a stock is seen there; NOTES "memory mechanics" recommendation), so a
   whole stock is public, not only its top. The hand is public (taken from the face-up inn).
   Hidden: the deck's order, the cards a player peeks or draws (peek, draw4, share), the cards
   put back on the deck (known to the one who put them), which accolade card a swap put back
   (ruling 17), the Bonus faces while they are being chosen. A face-down wall card is public
   too, and named in ``WallSpace.card`` to every seat (``face_down`` set): it is never a secret
   card. The one way a card goes face down is the placement (ruling 4), and the hand it comes
   from is public: the cards taken this turn (public ``take`` events, from the face-up inn) and
   a card kept last turn (public ``keep`` event, also from the inn; peek, draw4, share, raid,
   swap and a steal's reply put cards on a stock, never in the hand or ``kept``). The other
   hand card then goes atop the stock (public ``stock`` event), so the face-down one is the
   rest. Nothing turns a wall card face down later: replace puts its card face up and names
   the card it takes off; move, thief and Wild move tokens, never cards. The ``place`` event
   itself still says only "a card face down". (Version 5: before it, the observation left the
   card out for the others and worlds from it dealt those spaces from the cards it left
   unaccounted for.)
4. **Placement** (NOTES 2): face down only when neither hand card has a legal face-up space;
   then either card on any empty space. Face-down cards have no people and no attribute.
5. **Actions** (NOTES 3): mandatory, each at most once a turn, a chain follows the card just
   added; a top-row card's people triggers its own space (the green frieze makes row-1 peoples
   distinct). Only an Expert replace (ruling 17) can put two cards of one people in row 1: a
   stock card of that people then triggers both spaces' untriggered actions, left to right,
   each resolved in full before the next (an action a chain has triggered meanwhile is not
   triggered again). Each action is asked even with a single option, except that an action
   with no option does nothing (it still counts as triggered).
6. **Steal** (NOTES 4): only opponents holding a stock or accolade card can be chosen; the
   robbed seat answers off turn (``reply``: an inn card, the deck's top, or ``pass``) before the
   stolen card lands on the thief's stock.
7. **Trophy step** (NOTES 5): optional, one a turn, after the actions; a row-1 Trophy is placed
   on the card of the not-yet-triggered action it triggers (the rules' "choose an action" and
   BGA's "that action" agree this way). Move-a-Trophy needs a Trophy on the wall and another
   bottom-row card to move it to.
8. **Majority** (NOTES 6): others count only their accolades; you add your Trophies on the
   majority card.
9. **Penalty** (NOTES 7): the "least present attribute" line applies only with a Penalty token;
   it scores -1 per card of that attribute (0 if one is absent).
10. **Wild** (NOTES 8): placed at the end on a face-up wall card or an accolade card, any other
    attribute; all holders at once (sealed). In Expert it may instead be placed in one's own
    turn, offered once per turn after the Trophy step, just before the Bonus check (ruling 16).
11. **Shield Trophies** (NOTES 10): each activates a different scoring; a Trophy with every
    scoring already active goes back to the supply. The face-down -5 still applies on the Shield side (a loss,
    not a scoring a Trophy activates). The "attribute of your choice" is the best one.
12. **Empty deck or inn**: a card that cannot be drawn is not drawn (the inn stays short, a peek
    shows fewer cards, ``deck`` is not offered); a player whose hand is empty skips the
    placement (the space stays empty and scores nothing). Never seen in the 2,000 playouts.
13. **Round numbers**: an effect's round is the player's own turn number (= cards on its wall).
14. **Bottom-row reward** (:68): completing the row (face-down cards count) by round 6 gives 4
    Trophies and a Penalty token, once. Tokens come from the general supply while it lasts.
15. **Expert faces**: chosen column by column (4 sealed simultaneous steps); all are revealed
    when every seat has chosen. Horn-only faces (double, soften) are not offered on the Shield.
16. **Expert activation**: checked at the end of the turn (after the Trophy step). Lightning
    faces that fire at the same check resolve in the order the player chooses (:167 "If several
    Bonus tiles are activated during this turn, you choose the order in which you resolve
    them": printed with infinity, but general): decision ``bonus`` asks which one next, again
    until one is left, each resolved in full (its chain included) before the next is asked; a
    single face asks nothing. Every fired face is offered (each can be carried out, if only by
    doing nothing). Infinity has no action: it takes effect at once, and the columns it makes
    qualify [:167] fire at the same check and join the choice. A scoring face counts if its
    column qualifies at the end (after Wild tokens). Infinity: 3-space columns qualify when full
    with two face-up cards of one attribute.
17. **Expert lightning faces**: raid (each opponent's stock top, or a random accolade card, is
    discarded; you put one atop your stock, the rest leave the game); draw4 (keep two in the
    order you choose, the other two back on top in the order you choose, asked even when they are
    identical: nobody else can tell); share (you choose your card first, then each opponent's
    clockwise; only yours triggers); swap [:155] (the card goes back face down. From the
    accolades, which are face down, the others learn only that one accolade card went back:
    their ``accolades`` still lists it as remembered with ``returned`` set, their ``unseen``
    leaves it out, their event does not name it; the accolades are revealed at the game end
    [:94] (event ``accolades`` with the cards). From the stock, which everyone has seen whole
    (ruling 3; its list would show which card left anyway), it is named and every seat knows it
    lies on top until the shuffle. The searcher sees the deck's cards, which the others can
    count but for a returned accolade card; the deck is then shuffled); replace (any wall card,
    the friezes do not apply; the replaced card goes atop your stock); thief (a Trophy from
    each player's supply, else from its lowest-numbered wall space with one, on the Shield from
    its last activated scoring, which is deactivated).
    Scoring faces: double (+1 spaces score 2 a card and Trophy), soften (each losing space -1 a
    card), different (5 per column of 2+ face-up cards, attributes all different), balance (8
    minus the least present attribute's count), identical (3 per column of 2+ face-up cards,
    attributes identical), crowd (+2 to your card count for the majority; on the Shield, for
    the 18 cards), variety (12 if no people shows more than twice face up on the wall).
18. **Result**: scores are points; ties broken by fewer accolade cards, then shared.
19. **Row-3 Trophies** [:85, :97-98]: a Trophy on a bottom-row card counts as one more card of
    its people only on that card's own scoring line (the +1/+2 and majority lines name it);
    it does not add to a -2/-3 space holding the same people, to the attribute lines (it has no
    attribute) or to the accolade count of the tie-break.

Design check (``python -m bench.design_openseason --games 150 --variants 90``, heuristic
self-play): Horn games score 42-44 a seat (winner 47-52); the scoresheet lines average +19.5
(+1/+2 spaces), +10.5 (attribute), +8 (majority), +7.7 (series), +2.8 (gold frieze), -4
(-2/-3 spaces), -1.7 (penalty): no line dominates, face-down cards are rare (0.00 a seat with
the heuristic, forced only by random play). Win rate by position (P1 = first player, +-0.04):
Horn 0.40/0.60 at 2 players, 0.38/0.34/0.29 at 3, 0.33/0.20/0.25/0.21 at 4; Shield 0.50/0.50,
0.27/0.36/0.36, 0.25/0.29/0.20/0.26; Expert 0.46/0.54, 0.37/0.33/0.30, 0.30/0.21/0.25/0.24.
One seat of three avoiding / always taking an effect (fair 0.33, +-0.05): series 0.37/0.29,
2 Trophies 0.22/0.37, Wild 0.43/0.19, 1 Trophy 0.34/0.20, bottom-row reward 0.19/0.37,
Shield Trophy spaces 0.50/0.41: taking an effect whenever possible never beats 0.41, so none is
always right; skipping the 2 Trophies or the reward costs, so none is dead. Expert: a seat
preferring any one face wins 0.37-0.43 (45 games each): no face is a must. Games last 101-215
decisions with the heuristic (longest 246); the longest of 2,000 random playouts has 189
decisions (the playout test's bound is 400).

Chance labels (in draw order): ``"deck"`` (the 180 cards, top first), ``"first"`` (the first
player), then during play ``"steal"`` (the random accolade card of a robbed seat with an empty
stock), ``"raid"`` (Expert: the same for a raided seat), ``"shuffle"`` (Expert swap: the deck).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig, OptionSpec
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result, Variant
from arena.games.v1 import openseason_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))
PEOPLES: tuple[str, ...] = tuple(_DATA["cards"]["peoples"])
ATTRS: tuple[str, ...] = tuple(_DATA["cards"]["attributes"])
COPIES: int = _DATA["cards"]["copies"]
INN: int = _DATA["cards"]["inn"]
TOKENS: dict[str, int] = _DATA["tokens"]
NA = len(ATTRS)
TYPES = len(PEOPLES) * NA  # 30 distinct cards
DECK: tuple[int, ...] = tuple(t for t in range(TYPES) for _ in range(COPIES))
EMPTY = -1


def people(card: int) -> int:
    return card // NA


def attr(card: int) -> int:
    return card % NA


NAMES: tuple[str, ...] = tuple(f"{PEOPLES[t // NA]}-{ATTRS[t % NA]}" for t in range(TYPES))


def card_name(card: int) -> str:
    return NAMES[card]


CARD_OF = {name: t for t, name in enumerate(NAMES)}
ATTR_OF = {a: i for i, a in enumerate(ATTRS)}


class Space(NamedTuple):
    id: int
    row: int
    column: int
    action: str
    score: str
    effect: str
    first: int
    last: int


@dataclass(frozen=True)
class Board:
    side: str
    rounds: int
    spaces: tuple[Space, ...]
    different: tuple[tuple[int, ...], ...]  # 0-based space indexes
    same: tuple[tuple[int, ...], ...]
    reward: tuple[int, ...]
    score: Mapping[str, int]
    scorings: tuple[str, ...]
    reward_by: int

    top: tuple[int, ...] = ()
    bottom: tuple[int, ...] = ()
    columns: tuple[tuple[int, ...], ...] = ()
    partners: tuple[tuple[int, ...], ...] = ()  # per space: the other spaces of its green friezes


def _board(side: str) -> Board:
    data = _DATA[side]
    spaces = tuple(Space(*row) for row in data["spaces"])
    friezes = [(k, tuple(x - 1 for x in ids)) for k, ids in data["friezes"]]
    return Board(
        side=side,
        rounds=data["rounds"],
        spaces=spaces,
        different=tuple(ids for k, ids in friezes if k == "different"),
        same=tuple(ids for k, ids in friezes if k == "same"),
        reward=next((ids for k, ids in friezes if k == "reward"), ()),
        score=data["score"],
        scorings=tuple(data.get("scorings", ())),
        reward_by=data.get("reward_by", 0),
        top=tuple(i for i, s in enumerate(spaces) if s.row == 1),
        bottom=tuple(i for i, s in enumerate(spaces) if s.row == 3),
        columns=tuple(
            tuple(i for i, s in enumerate(spaces) if s.column == c) for c in sorted({s.column for s in spaces})
        ),
        partners=tuple(
            tuple(sorted({j for k, ids in friezes if k == "different" and i in ids for j in ids if j != i}))
            for i in range(len(spaces))
        ),
    )


BOARDS = {"horn": _board("horn"), "shield": _board("shield")}
_X = _DATA["expert"]
TILES: tuple[tuple[str, str], ...] = tuple((a, b) for a, b in _X["tiles"])
HORN_ONLY = frozenset(_X["horn_only"])
LIGHTNING = frozenset(_X["lightning"])
SCORING_FACES = frozenset(_X["scoring"])
XSCORE: Mapping[str, int] = _X["score"]
FACES = tuple(f for t in TILES for f in t)
TILE_OF = {f: i for i, t in enumerate(TILES) for f in t}


def layout_pb(board: Board) -> tuple[tuple[pb.Space, ...], tuple[pb.Frieze, ...]]:
    spaces = tuple(
        pb.Space(
            id=s.id,
            row=s.row,
            column=s.column,
            action=s.action,
            score=s.score,
            effect=s.effect,
            first_round=s.first,
            last_round=s.last,
        )
        for s in board.spaces
    )
    friezes = tuple(pb.Frieze(kind=k, spaces=ids) for k, ids in _DATA[board.side]["friezes"])
    return spaces, friezes


LAYOUTS = {side: layout_pb(b) for side, b in BOARDS.items()}
TILE_NAMES = tuple(f"{a}/{b}" for a, b in TILES)


class Ask(NamedTuple):
    """The decision the game waits for: ``kind`` of ``seat`` with its data."""

    seat: int
    kind: str
    data: tuple[object, ...] = ()


@dataclass
class SeasonState(MatchState):
    side: str = "horn"
    expert: bool = False
    deck: list[int] = field(default_factory=list)  # top = last
    known: list[dict[int, int]] = field(default_factory=list)  # per seat: deck index -> card it knows
    inn: list[int] = field(default_factory=list)
    hand: list[int] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)
    stock: list[list[int]] = field(default_factory=list)  # bottom first
    accolades: list[list[int]] = field(default_factory=list)  # sorted
    wall: list[list[int]] = field(default_factory=list)
    down: list[list[bool]] = field(default_factory=list)
    trophies_on: list[list[int]] = field(default_factory=list)
    wild_on: list[list[int]] = field(default_factory=list)  # attribute or -1
    wild_acc: list[list[tuple[int, int]]] = field(default_factory=list)  # (card, new attribute)
    trophies: list[int] = field(default_factory=list)  # personal supply
    wilds: list[int] = field(default_factory=list)
    series: list[bool] = field(default_factory=list)
    penalty: list[bool] = field(default_factory=list)
    rewarded: list[bool] = field(default_factory=list)
    activated: list[list[str]] = field(default_factory=list)
    pool: dict[str, int] = field(default_factory=dict)  # general supply of tokens
    turns: list[int] = field(default_factory=list)
    first: int = 0
    active: int = 0
    round: int = 0
    triggered: list[str] = field(default_factory=list)
    tasks: list[tuple[object, ...]] = field(default_factory=list)  # a stack: the last runs next
    ask: Ask | None = None
    peek: list[int] = field(default_factory=list)  # cards the active seat is looking at
    raided: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    gifts: list[int] = field(default_factory=list)  # share: card given to each seat (-1 not yet)
    returned: list[int] = field(default_factory=list)  # per seat: accolade card put back face down (swap)
    faces: list[list[str]] = field(default_factory=list)  # per seat, per column ("" not chosen)
    used: list[list[bool]] = field(default_factory=list)
    infinity: list[bool] = field(default_factory=list)
    revealed: bool = False
    final_scores: list[int] = field(default_factory=list)
    over: bool = False

    @property
    def board(self) -> Board:
        return BOARDS[self.side]


# --------------------------------------------------------------------------------------------
# Rules helpers


def legal_spaces(board: Board, wall: list[int], down: list[bool], card: int) -> list[int]:
    """Empty spaces where ``card`` may go face up: every green frieze through the space keeps
    different peoples (face-down cards have none)."""
    p = people(card)
    out = []
    for i, partners in enumerate(board.partners):
        if wall[i] != EMPTY:
            continue
        for j in partners:
            c = wall[j]
            if c != EMPTY and c // NA == p and not down[j]:
                break
        else:
            out.append(i)
    return out


def attr_counts(accolades: list[int], wild_acc: list[tuple[int, int]]) -> list[int]:
    counts = [0] * NA
    for c in accolades:
        counts[attr(c)] += 1
    for card, new in wild_acc:
        counts[attr(card)] -= 1
        counts[new] += 1
    return counts


def wall_attr(state: SeasonState, seat: int, i: int) -> int:
    """The visible attribute of a wall card (-1 for an empty or face-down space)."""
    card = state.wall[seat][i]
    if card == EMPTY or state.down[seat][i]:
        return -1
    wild = state.wild_on[seat][i]
    return wild if wild >= 0 else attr(card)


def column_qualifies(state: SeasonState, seat: int, column: tuple[int, ...]) -> bool:
    """A Bonus tile's column: full, and its visible attributes identical (infinity: two of a
    3-space column suffice, ruling 16)."""
    if any(state.wall[seat][i] == EMPTY for i in column):
        return False
    attrs = [wall_attr(state, seat, i) for i in column]
    if all(a >= 0 for a in attrs) and len(set(attrs)) == 1:
        return True
    if state.infinity[seat] and len(column) == 3:
        seen = Counter(a for a in attrs if a >= 0)
        return any(n >= 2 for n in seen.values())
    return False


def face_active(state: SeasonState, seat: int, face: str) -> bool:
    """A scoring face counts: it is above a qualifying column."""
    if not state.expert or face not in state.faces[seat]:
        return False
    col = state.faces[seat].index(face)
    return column_qualifies(state, seat, state.board.columns[col])


def score_lines(state: SeasonState, seat: int) -> list[tuple[str, int]]:
    """The endgame scoring of one seat, line by line (the scoresheet)."""
    return _horn_lines(state, seat) if state.side == "horn" else _shield_lines(state, seat)


def _people_counts(accolades: list[int]) -> list[int]:
    counts = [0] * len(PEOPLES)
    for c in accolades:
        counts[people(c)] += 1
    return counts


def _expert_lines(state: SeasonState, seat: int, counts: list[int]) -> list[tuple[str, int]]:
    if not state.expert:
        return []
    board = state.board
    lines = []
    cols = [c for c in board.columns if len(c) >= 2]
    if face_active(state, seat, "different"):
        n = 0
        for col in cols:
            attrs = [wall_attr(state, seat, i) for i in col]
            if all(a >= 0 for a in attrs) and len(set(attrs)) == len(attrs):
                n += 1
        lines.append(("different", n * XSCORE["different"]))
    if face_active(state, seat, "identical"):
        n = 0
        for col in cols:
            attrs = [wall_attr(state, seat, i) for i in col]
            if all(a >= 0 for a in attrs) and len(set(attrs)) == 1:
                n += 1
        lines.append(("identical", n * XSCORE["identical"]))
    if face_active(state, seat, "balance"):
        lines.append(("balance", XSCORE["balance"] - min(counts)))
    if face_active(state, seat, "variety"):
        shown = Counter(
            people(c) for c, d in zip(state.wall[seat], state.down[seat], strict=True) if c != EMPTY and not d
        )
        ok = all(n <= XSCORE["variety_max"] for n in shown.values())
        lines.append(("variety", XSCORE["variety"] if ok else 0))
    return lines


def _horn_lines(state: SeasonState, seat: int) -> list[tuple[str, int]]:
    board = state.board
    sc = board.score
    wall, down, trophies = state.wall[seat], state.down[seat], state.trophies_on[seat]
    mine = _people_counts(state.accolades[seat])
    attrs = attr_counts(state.accolades[seat], state.wild_acc[seat])
    double = face_active(state, seat, "double")
    soften = face_active(state, seat, "soften")
    crowd = XSCORE["crowd"] if face_active(state, seat, "crowd") else 0
    negative = positive = majority = attribute = 0
    for i, space in enumerate(board.spaces):
        card = wall[i]
        if not space.score or card == EMPTY or down[i]:
            continue
        p = people(card)
        if space.score in ("minus2", "minus3"):
            negative += (XSCORE["soften"] if soften else sc[space.score]) * mine[p]
        elif space.score in ("plus1", "plus2"):
            value = sc[space.score]
            if double and value == 1:
                value = 2
            positive += value * (mine[p] + trophies[i])
        elif space.score == "majority":
            own = mine[p] + trophies[i] + crowd
            best = max((_people_counts(state.accolades[s])[p] for s in range(state.players) if s != seat), default=0)
            majority += sc["majority"] if own > best else 0
        elif space.score == "attribute":
            attribute += sc["attribute"] * attrs[wall_attr(state, seat, i)]
    face_down = sc["face_down"] * sum(1 for c, d in zip(wall, down, strict=True) if c != EMPTY and d)
    series = min(attrs) * (sc["series_tile"] if state.series[seat] else sc["series"])
    same = 0
    for frieze in board.same:
        ps = {people(wall[i]) for i in frieze if wall[i] != EMPTY and not down[i]}
        full = all(wall[i] != EMPTY and not down[i] for i in frieze)
        same += sc["same"] if full and len(ps) == 1 else 0
    penalty = sc["penalty"] * min(attrs) if state.penalty[seat] else 0
    lines = [
        ("negative", negative),
        ("positive", positive),
        ("majority", majority),
        ("face_down", face_down),
        ("attribute", attribute),
        ("series", series),
        ("same", same),
        ("penalty", penalty),
    ]
    return lines + _expert_lines(state, seat, attrs)


def _shield_lines(state: SeasonState, seat: int) -> list[tuple[str, int]]:
    board = state.board
    sc = board.score
    acc = state.accolades[seat]
    on = state.activated[seat]
    attrs = attr_counts(acc, state.wild_acc[seat])
    lines = []
    crowd = XSCORE["crowd"] if face_active(state, seat, "crowd") else 0
    lines.append(("cards18", sc["cards18"] if "cards18" in on and len(acc) + crowd >= sc["cards"] else 0))
    family = 0
    if "family" in on:
        per: dict[int, set[int]] = {}
        wilded = Counter(c for c, _ in state.wild_acc[seat])
        for c in acc:
            if wilded[c]:
                wilded[c] -= 1
                continue
            per.setdefault(people(c), set()).add(attr(c))
        for c, a in state.wild_acc[seat]:
            per.setdefault(people(c), set()).add(a)
        family = sc["family"] if any(len(v) == NA for v in per.values()) else 0
    lines.append(("family", family))
    wall5 = 0
    if "wall5" in on:
        seen = Counter(a for i in range(len(board.spaces)) if (a := wall_attr(state, seat, i)) >= 0)
        wall5 = sc["wall5"] if seen and max(seen.values()) >= sc["wall_same"] else 0
    lines.append(("wall5", wall5))
    lines.append(("attribute", sc["attribute"] * max(attrs) if "attribute" in on else 0))
    wall, down = state.wall[seat], state.down[seat]
    lines.append(("face_down", sc["face_down"] * sum(1 for c, d in zip(wall, down, strict=True) if c != EMPTY and d)))
    return lines + _expert_lines(state, seat, attrs)


def total(state: SeasonState, seat: int) -> int:
    return sum(v for _, v in score_lines(state, seat))


# --------------------------------------------------------------------------------------------
# Options (cached)

_OPTIONS: dict[tuple[object, ...], Option] = {}


def _opt(id_: str, label: str, **action: object) -> Option:
    key = (id_,)
    option = _OPTIONS.get(key)
    if option is None:
        option = _OPTIONS[key] = Option(id_, label, pb.Action(**action))  # type: ignore[arg-type]
    return option


TAKE_OPT: tuple[Option, ...] = tuple(Option(f"take:{n}", f"take {n}", pb.Action(kind=pb.TAKE, card=n)) for n in NAMES)
PLACE_OPT: dict[tuple[int, int], Option] = {
    (c, i): Option(
        f"wall:{n}@{i + 1}", f"place {n} face up on space {i + 1}", pb.Action(kind=pb.PLACE, card=n, space=i + 1)
    )
    for c, n in enumerate(NAMES)
    for i in range(11)
}
DOWN_OPT: dict[tuple[int, int], Option] = {
    (c, i): Option(
        f"down:{n}@{i + 1}", f"place {n} face down on space {i + 1}", pb.Action(kind=pb.PLACE_DOWN, card=n, space=i + 1)
    )
    for c, n in enumerate(NAMES)
    for i in range(11)
}
WILD_WALL: dict[tuple[int, int], Option] = {
    (i, a): Option(
        f"wild:{i + 1}:{name}",
        f"Wild token on space {i + 1} as {name}",
        pb.Action(kind=pb.WILD, space=i + 1, attribute=name),
    )
    for i in range(11)
    for a, name in enumerate(ATTRS)
}
WILD_ACC: dict[tuple[int, int], Option] = {
    (c, a): Option(
        f"wild:acc:{n}:{name}",
        f"Wild token on accolade {n} as {name}",
        pb.Action(kind=pb.WILD, card=n, attribute=name, accolades=True),
    )
    for c, n in enumerate(NAMES)
    for a, name in enumerate(ATTRS)
}
PASS = Option("pass", "pass", pb.Action(kind=pb.PASS))
DECK_REPLY = Option("deck", "take the deck's top card blindly", pb.Action(kind=pb.REPLY_DECK))


def _detail(**fields: object) -> pb.Detail:
    return pb.Detail(**fields)  # type: ignore[arg-type]


def _action(option: Option) -> pb.Action:
    action = option.action
    assert isinstance(action, pb.Action)
    return action


def _names(cards: Iterable[int]) -> list[str]:
    return [card_name(c) for c in cards]


# --------------------------------------------------------------------------------------------
# The game


class OpenSeason(Game[SeasonState]):
    meta = GameMeta(
        id="openseason",
        name="Open Season",
        min_players=2,
        max_players=4,
        version="6.1",  # 6.1: event texts name seats and read as English, not Python lists
        options=(
            OptionSpec("side", "horn", "player-board side: horn (11 rounds) or shield (9 rounds)", ("horn", "shield")),
            OptionSpec("expert", False, "Expert mode: secret Bonus tiles above the columns"),
        ),
        variants=(
            Variant(
                "shield", "the Shield side of the boards: 9 rounds, Trophies activate scorings", {"side": "shield"}
            ),
            Variant("expert", "Expert Bonus tiles (Horn side)", {"expert": True}),
            Variant("shield-expert", "Expert Bonus tiles on the Shield side", {"side": "shield", "expert": True}),
        ),
        simultaneous=True,
        hidden_information=True,
        summary="Place one card a round on your wall and one atop your stock; a stock card matching "
        "your top row triggers steal, peek, keep or Trophy actions; accolades score against the wall.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    # -- setup ----------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> SeasonState:
        n = config.players
        state = SeasonState(config=config, chance=chance)
        state.side = str(config.options.get("side", "horn"))
        state.expert = bool(config.options.get("expert", False))
        spaces = len(state.board.spaces)
        state.deck = list(reversed(chance.shuffled(DECK, "deck")))  # top = last
        state.known = [{} for _ in range(n)]
        state.kept = [EMPTY] * n
        state.stock = [[] for _ in range(n)]
        state.accolades = [[] for _ in range(n)]
        state.wall = [[EMPTY] * spaces for _ in range(n)]
        state.down = [[False] * spaces for _ in range(n)]
        state.trophies_on = [[0] * spaces for _ in range(n)]
        state.wild_on = [[-1] * spaces for _ in range(n)]
        state.wild_acc = [[] for _ in range(n)]
        state.trophies = [0] * n
        state.wilds = [0] * n
        state.series = [False] * n
        state.penalty = [False] * n
        state.rewarded = [False] * n
        state.activated = [[] for _ in range(n)]
        state.pool = dict(TOKENS)
        state.turns = [0] * n
        state.faces = [[""] * 4 for _ in range(n)]
        state.used = [[False] * 4 for _ in range(n)]
        state.infinity = [False] * n
        state.gifts = []
        state.returned = [EMPTY] * n
        state.first = chance.pick(range(n), "first")
        state.active = state.first
        self._fill_inn(state)
        if state.expert:
            state.ask = Ask(CHANCE_SEAT, "face")
        else:
            state.revealed = True
            self._start_turn(state)
            self._run(state)
        return state

    # -- deck helpers ---------------------------------------------------------------------------

    def _draw(self, state: SeasonState) -> int:
        """The deck's top card (EMPTY when the deck is empty, ruling 12)."""
        if not state.deck:
            return EMPTY
        index = len(state.deck) - 1
        for known in state.known:
            known.pop(index, None)
        return state.deck.pop()

    def _put_back(self, state: SeasonState, card: int, seat: int) -> None:
        """A card back on top of the deck, known to ``seat`` only."""
        state.known[seat][len(state.deck)] = card
        state.deck.append(card)

    def _fill_inn(self, state: SeasonState) -> None:
        new = []
        while len(state.inn) < INN:
            card = self._draw(state)
            if card == EMPTY:
                break
            state.inn.append(card)
            new.append(card)
        if new:
            state.log.public(
                CHANCE_SEAT, "inn", f"the inn is filled: {', '.join(_names(new))}", _detail(cards=_names(new))
            )

    # -- turn structure -------------------------------------------------------------------------

    def _start_turn(self, state: SeasonState) -> None:
        seat = state.active
        state.turns[seat] += 1
        state.triggered = []
        if seat == state.first:
            state.round += 1
        state.log.public(
            seat, "turn", f"round {state.round}: seat {seat}'s turn", _detail(seat=seat, round=state.round)
        )
        self._fill_inn(state)
        if state.stock[seat]:
            self._stock_to_accolades(state, seat)
        state.hand = []
        if state.kept[seat] != EMPTY:
            state.hand.append(state.kept[seat])
            state.kept[seat] = EMPTY
        tail: list[tuple[object, ...]] = [("end",)]
        if state.expert:
            tail += [("bonus",), ("xwild",)]
        tail += [("activate",)] if state.side == "shield" else [("trophy",)]
        tail += [("place",), ("take",)]
        state.tasks = tail

    def _stock_to_accolades(self, state: SeasonState, seat: int) -> None:
        count = len(state.stock[seat])
        state.accolades[seat] = sorted(state.accolades[seat] + state.stock[seat])
        state.stock[seat] = []
        state.log.public(
            seat,
            "accolades",
            f"seat {seat} moves {count} stock cards to its accolades",
            _detail(seat=seat, count=count),
        )

    def _run(self, state: SeasonState) -> None:
        """Carry out tasks until a decision is needed or the game is over."""
        while state.ask is None and not state.over:
            if not state.tasks:
                self._next_turn(state)
                continue
            task = state.tasks.pop()
            self._do(state, task)

    def _next_turn(self, state: SeasonState) -> None:
        n = state.players
        nxt = (state.active + 1) % n
        if nxt == state.first and state.round >= state.board.rounds:
            self._game_end(state)
            return
        state.active = nxt
        self._start_turn(state)

    def _do(self, state: SeasonState, task: tuple[object, ...]) -> None:
        kind = task[0]
        seat = state.active
        board = state.board
        if kind == "take":
            need = 2 - len(state.hand)
            if need > 0 and state.inn:
                state.ask = Ask(seat, "take")
                state.tasks.append(("take",))
        elif kind == "place":
            if state.hand:
                state.ask = Ask(seat, "place")
        elif kind == "stock":
            self._to_stock(state, seat, int(task[1]))  # type: ignore[call-overload]
        elif kind == "action":
            self._action_start(state, str(task[1]))
        elif kind == "landed":
            self._stock_trigger(state, seat, int(task[1]))  # type: ignore[call-overload]
        elif kind == "trophy":
            if state.trophies[seat] and self._trophy_spaces(state, seat):
                state.ask = Ask(seat, "trophy")
        elif kind == "activate":
            if state.trophies[seat]:
                if len(state.activated[seat]) < len(board.scorings):
                    state.ask = Ask(seat, "activate")
                    state.tasks.append(("activate",))
                else:
                    state.pool["trophies"] += state.trophies[seat]  # back to the supply (ruling 11)
                    state.trophies[seat] = 0
        elif kind == "xwild":
            if state.wilds[seat] and self._wild_wall_targets(state, seat):
                state.ask = Ask(seat, "wild", ("play",))
        elif kind == "bonus":
            self._bonus_check(state, seat)
        elif kind == "fx":
            self._effect_start(state, seat, str(task[1]))
        elif kind == "order":  # several lightning faces fired together: which one next (ruling 16)
            state.tasks.append(task)  # stays until answered: the options are its faces
            state.ask = Ask(seat, "bonus")
        elif kind == "end":
            pass
        else:  # pragma: no cover
            raise AssertionError(task)

    # -- stock and actions ----------------------------------------------------------------------

    def _to_stock(self, state: SeasonState, seat: int, card: int) -> None:
        state.stock[seat].append(card)
        state.log.public(
            seat,
            "stock",
            f"seat {seat} puts {card_name(card)} atop its stock",
            _detail(seat=seat, card=card_name(card)),
        )
        self._stock_trigger(state, seat, card)

    def _stock_trigger(self, state: SeasonState, seat: int, card: int) -> None:
        """Queue the action of every face-up row-1 card of the card's people that has not
        triggered this turn, left to right (two only after an Expert replace, ruling 5)."""
        board = state.board
        p = people(card)
        actions = [
            board.spaces[i].action
            for i in board.top
            if (c := state.wall[seat][i]) != EMPTY and not state.down[seat][i] and people(c) == p
        ]
        for action in reversed(actions):
            if action not in state.triggered:
                state.tasks.append(("action", action))

    def _action_start(self, state: SeasonState, action: str) -> None:
        seat = state.active
        if action in state.triggered:  # queued twice: a chain triggered it first (ruling 5)
            return
        state.triggered.append(action)
        state.log.public(seat, "action", f"seat {seat} triggers {action}", _detail(seat=seat, text=action))
        if action == "steal":
            if self._steal_targets(state, seat):
                state.ask = Ask(seat, "steal")
        elif action == "peek":
            cards = [c for c in (self._draw(state), self._draw(state)) if c != EMPTY]
            if cards:
                state.peek = cards
                state.log.private(
                    [seat],
                    seat,
                    "peek",
                    f"you peek at {', '.join(_names(cards))}",
                    _detail(seat=seat, cards=_names(cards)),
                )
                state.ask = Ask(seat, "peek")
        elif action == "keep":
            if state.inn:
                state.ask = Ask(seat, "keep")
        elif action == "trophy":
            if self._move_options(state, seat):
                state.ask = Ask(seat, "move")
        elif action == "instock" and state.inn:
            state.ask = Ask(seat, "instock")

    def _steal_targets(self, state: SeasonState, seat: int) -> list[int]:
        n = state.players
        return [s for s in ((seat + k) % n for k in range(1, n)) if state.stock[s] or state.accolades[s]]

    def _move_options(self, state: SeasonState, seat: int) -> list[tuple[int, int]]:
        wall = state.wall[seat]
        bottom = [j for j in state.board.bottom if wall[j] != EMPTY]
        return [(i, j) for i in range(len(wall)) if state.trophies_on[seat][i] for j in bottom if j != i]

    def _trophy_spaces(self, state: SeasonState, seat: int) -> list[int]:
        board = state.board
        wall = state.wall[seat]
        out = [i for i in board.top if wall[i] != EMPTY and board.spaces[i].action not in state.triggered]
        out += [i for i in board.bottom if wall[i] != EMPTY]
        return sorted(out)

    def _wild_wall_targets(self, state: SeasonState, seat: int) -> list[int]:
        return [
            i
            for i, c in enumerate(state.wall[seat])
            if c != EMPTY and not state.down[seat][i] and state.wild_on[seat][i] < 0
        ]

    # -- placement ------------------------------------------------------------------------------

    def _place_options(self, state: SeasonState) -> tuple[Option, ...]:
        seat = state.active
        board = state.board
        wall, down = state.wall[seat], state.down[seat]
        out: list[Option] = []
        hand = sorted(set(state.hand))
        for card in hand:
            for i in legal_spaces(board, wall, down, card):
                out.append(PLACE_OPT[card, i])
        if out:
            return tuple(out)
        for card in hand:
            for i, c in enumerate(wall):
                if c == EMPTY:
                    out.append(DOWN_OPT[card, i])
        return tuple(out)

    def _place(self, state: SeasonState, action: pb.Action) -> None:
        seat = state.active
        card = CARD_OF[action.card]
        i = action.space - 1
        face_down = action.kind == pb.PLACE_DOWN
        state.hand.remove(card)
        state.wall[seat][i] = card
        state.down[seat][i] = face_down
        if face_down:
            state.log.public(
                seat,
                "place",
                f"seat {seat} places a card face down on space {i + 1}",
                _detail(seat=seat, space=i + 1, face_down=True),
            )
        else:
            state.log.public(
                seat,
                "place",
                f"seat {seat} places {action.card} on space {i + 1}",
                _detail(seat=seat, space=i + 1, card=action.card),
            )
        self._space_effect(state, seat, i)
        rest = list(state.hand)
        state.hand = []
        for other in rest:
            state.tasks.append(("stock", other))

    def _gain(self, state: SeasonState, token: str, count: int) -> int:
        got = min(count, state.pool[token])
        state.pool[token] -= got
        return got

    def _space_effect(self, state: SeasonState, seat: int, i: int) -> None:
        board = state.board
        space = board.spaces[i]
        rnd = state.turns[seat]
        texts = []
        if space.effect and space.first <= rnd <= space.last:
            if space.effect == "series":
                if not state.series[seat] and self._gain(state, "series_tiles", 1):
                    state.series[seat] = True
                    texts.append("an Attribute Series tile")
            elif space.effect in ("trophy2", "trophy1", "trophy"):
                want = 2 if space.effect == "trophy2" else 1
                got = self._gain(state, "trophies", want)
                state.trophies[seat] += got
                texts.append(f"{got} Trophy token(s)")
            elif space.effect == "wild":
                got = self._gain(state, "wilds", 1)
                state.wilds[seat] += got
                texts.append(f"{got} Wild token(s)")
        if (
            board.reward
            and i in board.reward
            and not state.rewarded[seat]
            and rnd <= board.reward_by
            and all(state.wall[seat][j] != EMPTY for j in board.reward)
        ):
            state.rewarded[seat] = True
            got = self._gain(state, "trophies", 4)
            state.trophies[seat] += got
            state.penalty[seat] = bool(self._gain(state, "penalties", 1))
            texts.append(f"{got} Trophy token(s) and a Penalty token")
        for text in texts:
            state.log.public(seat, "effect", f"seat {seat} gains {text}", _detail(seat=seat, space=i + 1, text=text))

    # -- decisions ------------------------------------------------------------------------------

    def decisions(self, state: SeasonState) -> Iterable[Decision]:
        ask = state.ask
        if state.over or ask is None:
            return ()
        if ask.kind == "face":
            return tuple(Decision(s, "face", self._face_options(state, s)) for s in range(state.players))
        if ask.kind == "wild" and ask.data and ask.data[0] == "end":
            return tuple(
                Decision(s, "wild", self._end_wild_options(state, s)) for s in range(state.players) if state.wilds[s]
            )
        return (Decision(ask.seat, ask.kind, self._options(state, ask)),)

    def _face_options(self, state: SeasonState, seat: int) -> tuple[Option, ...]:
        chosen = state.faces[seat]
        used_tiles = {TILE_OF[f] for f in chosen if f}
        out = []
        for t, tile in enumerate(TILES):
            if t in used_tiles:
                continue
            for face in tile:
                if state.side == "shield" and face in HORN_ONLY:
                    continue
                out.append(_opt(f"face:{face}", f"Bonus face {face}", kind=pb.FACE, face=face))
        return tuple(out)

    def _end_wild_options(self, state: SeasonState, seat: int) -> tuple[Option, ...]:
        out = [
            WILD_WALL[i, a]
            for i in self._wild_wall_targets(state, seat)
            for a in range(NA)
            if a != attr(state.wall[seat][i])
        ]
        wilded = Counter(c for c, _ in state.wild_acc[seat])
        have_acc = Counter(state.accolades[seat])
        for card in sorted(have_acc):
            if have_acc[card] > wilded[card]:
                out.extend(WILD_ACC[card, a] for a in range(NA) if a != attr(card))
        return tuple(out)

    def _options(self, state: SeasonState, ask: Ask) -> tuple[Option, ...]:
        kind, seat = ask.kind, ask.seat
        if kind == "take":
            return tuple(TAKE_OPT[c] for c in sorted(set(state.inn)))
        if kind == "place":
            return self._place_options(state)
        if kind == "steal":
            return tuple(
                _opt(f"steal:{s}", f"rob seat {s}", kind=pb.STEAL, seat=s) for s in self._steal_targets(state, seat)
            )
        if kind == "reply":
            out = [
                _opt(f"inn:{card_name(c)}", f"take {card_name(c)} from the inn", kind=pb.REPLY_INN, card=card_name(c))
                for c in sorted(set(state.inn))
            ]
            if state.deck:
                out.append(DECK_REPLY)
            out.append(PASS)
            return tuple(out)
        if kind in ("peek", "keep"):
            cards = state.peek if kind == "peek" else state.inn
            return tuple(
                _opt(f"keep:{card_name(c)}", f"keep {card_name(c)}", kind=pb.KEEP, card=card_name(c))
                for c in sorted(set(cards))
            )
        if kind == "instock":
            return tuple(
                _opt(f"stock:{card_name(c)}", f"{card_name(c)} atop the stock", kind=pb.STOCK, card=card_name(c))
                for c in sorted(set(state.inn))
            )
        if kind == "move":
            return tuple(
                _opt(
                    f"move:{i + 1}@{j + 1}",
                    f"move a Trophy from space {i + 1} to {j + 1}",
                    kind=pb.MOVE,
                    space=i + 1,
                    to_space=j + 1,
                )
                for i, j in self._move_options(state, seat)
            )
        if kind == "trophy":
            spaces = self._trophy_spaces(state, seat)
            return (
                *(
                    _opt(f"trophy:{i + 1}", f"Trophy token on space {i + 1}", kind=pb.TROPHY, space=i + 1)
                    for i in spaces
                ),
                PASS,
            )
        if kind == "activate":
            board = state.board
            return tuple(
                _opt(f"activate:{s}", f"activate the {s} scoring", kind=pb.ACTIVATE, scoring=s)
                for s in board.scorings
                if s not in state.activated[seat]
            )
        if kind == "wild":
            wall = state.wall[seat]
            targets = self._wild_wall_targets(state, seat)
            return (*(WILD_WALL[i, a] for i in targets for a in range(NA) if a != attr(wall[i])), PASS)
        if kind == "raid":
            return tuple(TAKE_OPT[c] for c in sorted(set(state.raided)))
        if kind == "bonus":
            return tuple(
                _opt(f"bonus:{face}", f"resolve the {face} Bonus tile next", kind=pb.BONUS, face=face)
                for face in order_faces(state)
            )
        if kind == "draw":
            if ask.data[0] == "top":
                return tuple(
                    _opt(f"top:{card_name(c)}", f"{card_name(c)} on top of the deck", kind=pb.TOP, card=card_name(c))
                    for c in sorted(set(state.peek))
                )
            return self._draw_options(state)
        if kind == "share":
            return tuple(
                _opt(f"give:{card_name(c)}", f"give {card_name(c)}", kind=pb.GIVE, card=card_name(c))
                for c in sorted(set(state.peek))
            )
        if kind == "swap":
            if ask.data[0] == "out":
                return self._own_card_options(state, seat, "out", pb.OUT)
            return tuple(
                _opt(f"in:{card_name(c)}", f"take {card_name(c)} from the deck", kind=pb.IN, card=card_name(c))
                for c in sorted(set(state.deck))
            )
        if kind == "replace":
            if ask.data[0] == "from":
                return self._own_card_options(state, seat, "from", pb.FROM)
            return tuple(
                _opt(f"at:{i + 1}", f"replace the card on space {i + 1}", kind=pb.AT, space=i + 1)
                for i, c in enumerate(state.wall[seat])
                if c != EMPTY
            )
        raise AssertionError(kind)  # pragma: no cover

    def _own_card_options(self, state: SeasonState, seat: int, verb: str, kind: int) -> tuple[Option, ...]:
        out = [
            _opt(f"{verb}:stock:{card_name(c)}", f"{verb} {card_name(c)} from the stock", kind=kind, card=card_name(c))
            for c in sorted(set(state.stock[seat]))
        ]
        out += [
            _opt(
                f"{verb}:acc:{card_name(c)}",
                f"{verb} {card_name(c)} from the accolades",
                kind=kind,
                card=card_name(c),
                accolades=True,
            )
            for c in sorted(set(state.accolades[seat]))
        ]
        return tuple(out)

    def _draw_options(self, state: SeasonState) -> tuple[Option, ...]:
        cards = state.peek
        if len(cards) == 1:
            name = card_name(cards[0])
            return (_opt(f"keep:{name}", f"keep {name}", kind=pb.KEEP, card=name),)
        pairs = sorted({(cards[i], cards[j]) for i in range(len(cards)) for j in range(len(cards)) if i != j})
        return tuple(
            _opt(
                f"keep:{card_name(a)}+{card_name(b)}",
                f"keep {card_name(a)} then {card_name(b)}",
                kind=pb.KEEP,
                card=card_name(a),
                second=card_name(b),
            )
            for a, b in pairs
        )

    # -- transitions ----------------------------------------------------------------------------

    def resolve(self, state: SeasonState, chosen: Mapping[int, Option]) -> None:
        ask = state.ask
        assert ask is not None
        state.ask = None
        if ask.kind == "face":
            self._faces_step(state, chosen)
        elif ask.kind == "wild" and ask.data and ask.data[0] == "end":
            for seat in sorted(chosen):
                self._place_wild(state, seat, _action(chosen[seat]))
            self._end_wild_or_score(state)
        else:
            self._answer(state, ask, _action(chosen[ask.seat]))
        self._run(state)

    def _answer(self, state: SeasonState, ask: Ask, action: pb.Action) -> None:
        seat = ask.seat
        kind = ask.kind
        if kind == "take":
            card = CARD_OF[action.card]
            state.inn.remove(card)
            state.hand.append(card)
            state.log.public(
                seat, "take", f"seat {seat} takes {action.card} from the inn", _detail(seat=seat, card=action.card)
            )
        elif kind == "place":
            self._place(state, action)
        elif kind == "steal":
            self._steal(state, seat, action.seat)
        elif kind == "reply":
            self._reply(state, seat, action)
            state.tasks.append(("stock", int(ask.data[0])))  # type: ignore[call-overload]
        elif kind == "peek":
            card = CARD_OF[action.card]
            rest = list(state.peek)
            rest.remove(card)
            state.peek = []
            for other in rest:
                self._put_back(state, other, seat)
            state.tasks.append(("stock", card))
        elif kind == "keep":
            card = CARD_OF[action.card]
            state.inn.remove(card)
            state.kept[seat] = card
            state.log.public(
                seat, "keep", f"seat {seat} keeps {action.card} for its next turn", _detail(seat=seat, card=action.card)
            )
        elif kind == "instock":
            card = CARD_OF[action.card]
            state.inn.remove(card)
            state.tasks.append(("stock", card))
        elif kind == "move":
            i, j = action.space - 1, action.to_space - 1
            state.trophies_on[seat][i] -= 1
            state.trophies_on[seat][j] += 1
            state.log.public(
                seat,
                "move",
                f"seat {seat} moves a Trophy from space {i + 1} to {j + 1}",
                _detail(seat=seat, space=i + 1, to_space=j + 1),
            )
        elif kind == "trophy":
            if action.kind == pb.TROPHY:
                i = action.space - 1
                state.trophies[seat] -= 1
                state.trophies_on[seat][i] += 1
                state.log.public(
                    seat, "trophy", f"seat {seat} places a Trophy on space {i + 1}", _detail(seat=seat, space=i + 1)
                )
                if state.board.spaces[i].row == 1:
                    state.tasks.append(("action", state.board.spaces[i].action))
        elif kind == "activate":
            state.trophies[seat] -= 1
            state.activated[seat].append(action.scoring)
            state.log.public(
                seat,
                "activate",
                f"seat {seat} activates the {action.scoring} scoring",
                _detail(seat=seat, text=action.scoring),
            )
        elif kind == "wild":
            if action.kind == pb.WILD:
                self._place_wild(state, seat, action)
        elif kind == "bonus":
            waiting = [f for f in order_faces(state) if f != action.face]
            state.tasks.pop()
            state.tasks.append(("order", "+".join(waiting)) if len(waiting) > 1 else ("fx", waiting[0]))
            state.tasks.append(("fx", action.face))
        else:
            self._effect_answer(state, ask, action)

    def _steal(self, state: SeasonState, seat: int, victim: int) -> None:
        if state.stock[victim]:
            card = state.stock[victim].pop()
            from_acc = False
        else:
            card = state.chance.pick(state.accolades[victim], "steal")
            state.accolades[victim].remove(card)
            from_acc = True
        where = "accolades (at random)" if from_acc else "stock"
        state.log.public(
            seat,
            "steal",
            f"seat {seat} takes {card_name(card)} from seat {victim}'s {where}",
            _detail(seat=seat, target=victim, card=card_name(card), from_accolades=from_acc),
        )
        state.ask = Ask(victim, "reply", (card, seat))

    def _reply(self, state: SeasonState, seat: int, action: pb.Action) -> None:
        if action.kind == pb.PASS:
            state.log.public(seat, "reply", f"seat {seat} takes nothing", _detail(seat=seat))
            return
        if action.kind == pb.REPLY_DECK:
            card = self._draw(state)
            from_deck = True
        else:
            card = CARD_OF[action.card]
            state.inn.remove(card)
            from_deck = False
        state.stock[seat].append(card)
        state.log.public(
            seat,
            "reply",
            f"seat {seat} puts {card_name(card)} ({'the deck' if from_deck else 'the inn'}) atop its stock",
            _detail(seat=seat, card=card_name(card), from_deck=from_deck),
        )

    def _place_wild(self, state: SeasonState, seat: int, action: pb.Action) -> None:
        a = ATTR_OF[action.attribute]
        state.wilds[seat] -= 1
        if action.accolades:
            card = CARD_OF[action.card]
            state.wild_acc[seat].append((card, a))
            state.log.public(
                seat,
                "wild",
                f"seat {seat} makes its accolade {action.card} a {action.attribute}",
                _detail(seat=seat, card=action.card, text=action.attribute),
            )
        else:
            i = action.space - 1
            state.wild_on[seat][i] = a
            state.log.public(
                seat,
                "wild",
                f"seat {seat} makes the card on space {i + 1} a {action.attribute}",
                _detail(seat=seat, space=i + 1, card=card_name(state.wall[seat][i]), text=action.attribute),
            )

    # -- Expert ---------------------------------------------------------------------------------

    def _faces_step(self, state: SeasonState, chosen: Mapping[int, Option]) -> None:
        col = state.faces[0].index("")
        for seat in sorted(chosen):
            state.faces[seat][col] = _action(chosen[seat]).face
        if col < 3:
            state.ask = Ask(CHANCE_SEAT, "face")
            return
        state.revealed = True
        flat = [f for faces in state.faces for f in faces]
        state.log.public(
            CHANCE_SEAT,
            "faces",
            "Bonus faces: " + "; ".join(f"seat {s}: {', '.join(f)}" for s, f in enumerate(state.faces)),
            _detail(faces=flat),
        )
        self._start_turn(state)

    def _bonus_check(self, state: SeasonState, seat: int) -> None:
        columns = state.board.columns
        fired: list[str] = []
        changed = True
        while changed:
            changed = False
            for col, column in enumerate(columns):
                face = state.faces[seat][col]
                if state.used[seat][col] or face in SCORING_FACES or not column_qualifies(state, seat, column):
                    continue
                state.used[seat][col] = True
                state.log.public(
                    seat,
                    "bonus",
                    f"seat {seat}'s {face} face activates (column {col + 1})",
                    _detail(seat=seat, text=face, space=col + 1),
                )
                if face == "infinity":
                    state.infinity[seat] = True
                    changed = True
                else:
                    fired.append(face)
        if len(fired) > 1:  # the player chooses the order (:167, ruling 16)
            state.tasks.append(("order", "+".join(fired)))
        elif fired:
            state.tasks.append(("fx", fired[0]))

    def _effect_start(self, state: SeasonState, seat: int, face: str) -> None:
        n = state.players
        if face == "raid":
            raided = []
            for s in ((seat + k) % n for k in range(1, n)):
                if state.stock[s]:
                    raided.append(state.stock[s].pop())
                elif state.accolades[s]:
                    card = state.chance.pick(state.accolades[s], "raid")
                    state.accolades[s].remove(card)
                    raided.append(card)
            state.log.public(
                seat,
                "raid",
                f"seat {seat} raids: {', '.join(_names(raided)) or 'nothing'}",
                _detail(seat=seat, cards=_names(raided)),
            )
            if raided:
                state.raided = raided
                state.ask = Ask(seat, "raid")
        elif face in ("draw4", "share"):
            want = 4 if face == "draw4" else n
            cards = [c for c in (self._draw(state) for _ in range(want)) if c != EMPTY]
            if not cards:
                return
            state.peek = cards
            kind = "draw" if face == "draw4" else "share"
            state.log.private(
                [seat], seat, kind, f"you draw {', '.join(_names(cards))}", _detail(seat=seat, cards=_names(cards))
            )
            if face == "draw4":
                state.ask = Ask(seat, "draw", ("keep",))
            else:
                state.gifts = [EMPTY] * n
                state.ask = Ask(seat, "share", (seat,))
        elif face == "swap":
            if state.stock[seat] or state.accolades[seat]:
                state.ask = Ask(seat, "swap", ("out",))
            elif state.deck:
                state.ask = Ask(seat, "swap", ("in",))
        elif face == "replace":
            if state.stock[seat] or state.accolades[seat]:
                state.ask = Ask(seat, "replace", ("from",))
        elif face == "thief":
            for s in ((seat + k) % n for k in range(1, n)):
                if self._take_trophy(state, s):
                    state.trophies[seat] += 1
                    state.log.public(
                        seat, "thief", f"seat {seat} takes a Trophy token from seat {s}", _detail(seat=seat, target=s)
                    )

    def _swap_out(self, state: SeasonState, seat: int, action: pb.Action) -> None:
        """The swap's card goes face down on the deck (:155, ruling 17): from the face-down
        accolades, the others learn only that one accolade card went back; from the stock, which
        every seat has seen whole (ruling 3), it is named and every seat knows it is on top."""
        card = CARD_OF[action.card]
        if action.accolades:
            state.accolades[seat].remove(card)
            state.returned[seat] = card
            self._put_back(state, card, seat)
            state.log.private(
                [seat],
                seat,
                "swap",
                f"you put {action.card} from your accolades back on the deck, face down",
                _detail(seat=seat, card=action.card, from_accolades=True),
            )
            state.log.private(
                [s for s in range(state.players) if s != seat],
                seat,
                "swap",
                f"seat {seat} puts one of its accolade cards back on the deck, face down",
                _detail(seat=seat, from_accolades=True),
            )
            return
        state.stock[seat].remove(card)
        for known in state.known:
            known[len(state.deck)] = card
        state.deck.append(card)
        state.log.public(
            seat,
            "swap",
            f"seat {seat} puts {action.card} from its stock back on the deck",
            _detail(seat=seat, card=action.card),
        )

    def _take_trophy(self, state: SeasonState, s: int) -> bool:
        if state.trophies[s]:
            state.trophies[s] -= 1
            return True
        if state.side == "shield":
            if state.activated[s]:
                state.activated[s].pop()
                return True
            return False
        for i, n in enumerate(state.trophies_on[s]):
            if n:
                state.trophies_on[s][i] -= 1
                return True
        return False

    def _effect_answer(self, state: SeasonState, ask: Ask, action: pb.Action) -> None:
        seat = ask.seat
        kind = ask.kind
        if kind == "raid":
            card = CARD_OF[action.card]
            state.raided.remove(card)
            state.removed.extend(state.raided)
            state.raided = []
            state.tasks.append(("stock", card))
        elif kind == "draw":
            if ask.data[0] == "top":
                top = CARD_OF[action.card]
                rest = list(state.peek)
                rest.remove(top)
                state.peek = []
                for c in [*rest, top]:
                    self._put_back(state, c, seat)
                return
            first = CARD_OF[action.card]
            kept = [first]
            state.peek.remove(first)
            if action.second:
                second = CARD_OF[action.second]
                state.peek.remove(second)
                kept.append(second)
            for c in reversed(kept):
                state.tasks.append(("stock", c, "drawn"))  # hidden from the others until it lands
            if len(state.peek) > 1:  # asked even for two identical cards: nobody else can tell
                state.ask = Ask(seat, "draw", ("top",))
            else:
                for c in state.peek:
                    self._put_back(state, c, seat)
                state.peek = []
        elif kind == "share":
            target = int(ask.data[0])  # type: ignore[call-overload]
            card = CARD_OF[action.card]
            state.peek.remove(card)
            state.gifts[target] = card
            n = state.players
            nxt = (target + 1) % n
            if state.peek and nxt != seat:
                state.ask = Ask(seat, "share", (nxt,))
                return
            for s in ((seat + k) % n for k in range(1, n)):
                if state.gifts[s] != EMPTY:
                    state.stock[s].append(state.gifts[s])
                    state.log.public(
                        seat,
                        "share",
                        f"seat {seat} gives {card_name(state.gifts[s])} to seat {s}",
                        _detail(seat=seat, target=s, card=card_name(state.gifts[s])),
                    )
            own = state.gifts[seat]
            state.gifts = []
            state.tasks.append(("stock", own))
        elif kind == "swap":
            if ask.data[0] == "out":
                self._swap_out(state, seat, action)
                state.ask = Ask(seat, "swap", ("in",))
                return
            card = CARD_OF[action.card]
            state.deck.remove(card)
            state.deck = state.chance.shuffled(state.deck, "shuffle")
            for known in state.known:
                known.clear()
            state.log.public(
                seat,
                "swap",
                f"seat {seat} takes {action.card} from the deck, which is shuffled",
                _detail(seat=seat, text=action.card),
            )
            state.tasks.append(("stock", card))
        elif kind == "replace":
            if ask.data[0] == "from":
                card = CARD_OF[action.card]
                (state.accolades[seat] if action.accolades else state.stock[seat]).remove(card)
                state.ask = Ask(seat, "replace", ("at", card))
                return
            card = int(ask.data[1])  # type: ignore[call-overload]
            i = action.space - 1
            old = state.wall[seat][i]
            state.wall[seat][i] = card
            state.down[seat][i] = False
            state.log.public(
                seat,
                "replace",
                f"seat {seat} puts {card_name(card)} on space {i + 1} instead of {card_name(old)}",
                _detail(seat=seat, space=i + 1, card=card_name(card), text=card_name(old)),
            )
            state.tasks.append(("stock", old))
        else:  # pragma: no cover
            raise AssertionError(kind)

    # -- end ------------------------------------------------------------------------------------

    def _game_end(self, state: SeasonState) -> None:
        for seat in range(state.players):
            if state.kept[seat] != EMPTY:
                state.stock[seat].append(state.kept[seat])
                state.kept[seat] = EMPTY
            if state.stock[seat]:
                self._stock_to_accolades(state, seat)
        for seat in range(state.players):  # the accolades are revealed (:94): the swapped card shows
            if state.returned[seat] != EMPTY:
                state.returned[seat] = EMPTY
                cards = _names(state.accolades[seat])
                state.log.public(
                    seat,
                    "accolades",
                    f"seat {seat} reveals its accolades: {', '.join(cards) or 'none'}",
                    _detail(seat=seat, count=len(cards), cards=cards),
                )
        state.tasks = []
        self._end_wild_or_score(state)

    def _end_wild_or_score(self, state: SeasonState) -> None:
        if any(state.wilds[s] and self._end_wild_options(state, s) for s in range(state.players)):
            for s in range(state.players):
                if state.wilds[s] and not self._end_wild_options(state, s):
                    state.wilds[s] = 0
            state.ask = Ask(CHANCE_SEAT, "wild", ("end",))
            return
        state.over = True
        state.final_scores = [total(state, s) for s in range(state.players)]
        counts = [len(a) for a in state.accolades]
        state.log.public(
            CHANCE_SEAT,
            "end",
            "game over: scores "
            + ", ".join(
                f"seat {s} {v} ({counts[s]} accolade{'s' * (counts[s] != 1)})" for s, v in enumerate(state.final_scores)
            ),
            _detail(scores=state.final_scores, counts=counts),
        )

    # -- views ----------------------------------------------------------------------------------

    def observation(self, state: SeasonState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        board = state.board
        seats = []
        for s in range(state.players):
            wall = []
            for i, c in enumerate(state.wall[s]):
                filled = c != EMPTY
                down = state.down[s][i]
                w = state.wild_on[s][i]
                wall.append(
                    pb.WallSpace(
                        id=i + 1,
                        filled=filled,
                        face_down=down,
                        card=card_name(c) if filled else "",  # face down too: public (ruling 3)
                        trophies=state.trophies_on[s][i],
                        wild=ATTRS[w] if w >= 0 else "",
                    )
                )
            faces = state.faces[s] if (state.revealed or spectator or viewer == s) else [""] * 4
            sees = spectator or viewer == s
            back = state.returned[s]
            remembered = state.accolades[s] if sees or back == EMPTY else sorted([*state.accolades[s], back])
            seats.append(
                pb.SeatView(
                    wall=wall,
                    stock_top=card_name(state.stock[s][-1]) if state.stock[s] else "",
                    stock_size=len(state.stock[s]),
                    accolades_size=len(state.accolades[s]),
                    stock=_names(state.stock[s]),
                    accolades=_names(remembered),
                    kept=card_name(state.kept[s]) if state.kept[s] != EMPTY else "",
                    trophies=state.trophies[s],
                    wilds=state.wilds[s],
                    series_tile=state.series[s],
                    penalty=state.penalty[s],
                    activated=state.activated[s],
                    faces=faces if state.expert else [],
                    used=state.used[s] if state.expert else [],
                    infinity=state.infinity[s],
                    turns=state.turns[s],
                    wild_accolades=[f"{card_name(c)}:{ATTRS[a]}" for c, a in state.wild_acc[s]],
                    returned=back != EMPTY,
                    returned_card=card_name(back) if sees and back != EMPTY else "",
                    known_places=sorted(len(state.deck) - 1 - i for i in state.known[s]),
                )
            )
        ask = state.ask
        sees_peek = spectator or (ask is not None and viewer == state.active and ask.kind in ("peek", "draw", "share"))
        known: list[str] = []
        if not spectator:
            mine = state.known[viewer]
            known = [card_name(mine[i]) if i in mine else "" for i in range(len(state.deck) - 1, -1, -1)]
            while known and not known[-1]:
                known.pop()
        spaces, friezes = LAYOUTS[state.side]
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            players=state.players,
            side=pb.HORN if state.side == "horn" else pb.SHIELD,
            expert=state.expert,
            rounds=board.rounds,
            round=state.round,
            active=state.active,
            first_player=state.first,
            step=pb.OVER
            if state.over
            else pb.FACES
            if not state.revealed
            else pb.END_WILD
            if (ask is not None and ask.kind == "wild" and ask.data[0] == "end")
            else pb.TURN,
            inn=_names(state.inn),
            deck_size=len(state.deck),
            hand=_names(state.hand),
            seats=seats,
            triggered=state.triggered,
            peeked=_names(state.peek) if sees_peek else [],
            known_deck=known,
            victim=ask.seat if ask is not None and ask.kind == "reply" else 0,
            thief=int(ask.data[1]) if ask is not None and ask.kind == "reply" else 0,  # type: ignore[call-overload]
            share_to=int(ask.data[0]) if ask is not None and ask.kind == "share" else 0,  # type: ignore[call-overload]
            raided=_names(state.raided),
            layout=spaces,
            friezes=friezes,
            removed=_names(sorted(state.removed)),
            trophy_supply=state.pool["trophies"],
            wild_supply=state.pool["wilds"],
            scores=state.final_scores,
            unseen=[] if spectator else _names(unseen_for(state, viewer)),
            tiles=TILE_NAMES if state.expert else [],
            my_faces=[f for f in state.faces[viewer] if f] if state.expert and not spectator else [],
            asking=asking(ask),
            ask_card=card_name(int(ask.data[0 if ask.kind == "reply" else 1]))  # type: ignore[call-overload]
            if ask is not None and (ask.kind == "reply" or ask.data[:1] == ("at",))
            else "",
            tasks=task_names(state, viewer),
            gifts=[card_name(c) if c != EMPTY else "" for c in state.gifts]
            if spectator or viewer == state.active
            else [],
        )
        if spectator:
            obs.deck.extend(_names(reversed(state.deck)))
        return obs

    def score(self, state: SeasonState) -> Result:
        scores = state.final_scores
        keys = [(scores[s], -len(state.accolades[s])) for s in range(state.players)]
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        summary = f"{'winners' if len(winners) > 1 else 'winner'}: {', '.join(f'seat {s}' for s in winners)}"
        return Result.ranked(scores, keys, summary)

    def sample_world(self, state: SeasonState, seat: int, chance: Chance) -> SeasonState:
        from arena.games.openseason.worlds import sample_world

        return sample_world(self, state, seat, chance)

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> SeasonState:
        """From the observation alone (``worlds.py``): the public state, the hand, the walls
        (face-down cards included, ruling 3), stocks and accolades (perfect memory) and the seat's
        own deck knowledge are kept; the deck, others' peeks, others' Bonus faces being chosen and
        which accolade card another seat put back by swap are drawn."""
        from arena.games.openseason.worlds import world_from_observation

        assert isinstance(observation, pb.Observation)
        return world_from_observation(self, config, seat, observation, chance)


def unseen_cards(state: SeasonState, viewer: int) -> list[int]:
    """The cards ``viewer`` has not seen placed anywhere: the deck (but the cards it knows on
    top) and the cards another seat is looking at (or has set aside for a share, or kept from a
    draw4 and not yet landed). Every wall card, face down or not, is seen (ruling 3)."""
    mine = state.known[viewer]
    out = [c for i, c in enumerate(state.deck) if i not in mine]
    if viewer != state.active:
        out += state.peek + [c for c in state.gifts if c != EMPTY]
        out += [int(t[1]) for t in state.tasks if len(t) > 2]  # type: ignore[call-overload]
    return out


def unseen_for(state: SeasonState, viewer: int) -> list[int]:
    """The ``unseen`` field, sorted: :func:`unseen_cards` less, card by card (never below
    zero), each accolade card another seat put back face down (swap, ruling 17). The viewer
    still counts that card in the seat's accolades, so two states that differ only in which
    accolade card went back give the same list."""
    counts = Counter(unseen_cards(state, viewer))
    counts.subtract(c for s, c in enumerate(state.returned) if c != EMPTY and s != viewer)
    return sorted(c for c, k in counts.items() for _ in range(max(k, 0)))


def order_faces(state: SeasonState) -> list[str]:
    """The lightning faces of the pending ``order`` task (fired together, left to right)."""
    task = state.tasks[-1]
    assert task[0] == "order"
    return str(task[1]).split("+")


TWO_STEP = frozenset({"draw", "swap", "replace", "wild"})


def asking(ask: Ask | None) -> str:
    """The ``asking`` field: the decision kind, with its step for the two-step kinds."""
    if ask is None:
        return ""
    return f"{ask.kind}:{ask.data[0]}" if ask.kind in TWO_STEP else ask.kind


def task_names(state: SeasonState, viewer: int) -> list[str]:
    """The ``tasks`` field: the rest of the turn, next first (a drawn card hidden from the others)."""
    out = []
    for task in reversed(state.tasks):
        kind = str(task[0])
        if kind == "stock":
            drawn = len(task) > 2
            if drawn and viewer not in (state.active, SPECTATOR):
                out.append("stock:")
            else:  # the seat that kept a drawn card knows the others do not see it
                out.append(f"stock:{card_name(int(task[1]))}{':drawn' if drawn else ''}")  # type: ignore[call-overload]
        elif len(task) > 1:
            out.append(f"{kind}:{task[1]}")
        else:
            out.append(kind)
    return out


GAME = OpenSeason()
