"""Golden Goal — 2-player soccer on a grid with one die (``shared/rules/goldengoal.md``).

Rules as implemented (rulebook line references in brackets; the field is designed, see
``components.toml`` and ``field.py``):

* Components: per team 4 Outfielders and 1 Keeper, one Ball, the Golden Die (1-6) [:21-27].
* Setup [:31-47]: the ball lies on the centre point [:34]; a random seat places first [:38] and
  the seats alternate, one pawn at a time [:39]. Keeper in front of its own net [:43]; 2-3
  Outfielders on the own half [:44], 1 of them in the Center Circle [:45] (exactly one: :102); 1-2 on the
  opponent's half [:46], not in the Center Circle [:47].
* Kickoff [:95-119, :193-201]: both seats roll, ties reroll; the higher roll moves the ball to its
  Center Circle Outfielder, who kicks it exactly (higher - lower) spaces without the free first
  space; a pass during it gets the free space. No goal during the Kickoff [:117, :331]. The
  loser of the roll takes the first turn [:111].
* A turn [:123-154]: roll; choose one pawn; move it orthogonally one space per pip, never into
  or through another pawn, out of bounds allowed, revisiting allowed [:139-147]. Entering the
  ball's space stops the walk and starts a kick with the pips left [:149-154]. Without a kick
  every pip must be spent walking [:264-266].
* Kick [:158-201]: any of 8 directions; 1 free space then 1 pip per space; stop at will; bend
  once by 45 degrees per kick [:222-242]; the ball may not enter or cross an opponent's space or
  go out of bounds [:246-254]. A ball reaching a teammate is passed: a new kick with its own free
  space and bend, the pips carrying on [:205-218].
* Front of Net [:77-83, :270-292, :351-360]: only a seat's own Keeper may end a turn on the 2
  spaces in front of its net; if the ball lies there, another pawn may enter to kick and then
  moves to an adjacent empty space for free.
* Goal [:296-321]: the ball crosses the end line from a front-of-net space, or hits a post from
  inside the Penalty Box (a diagonal through the post from the space beside the net).
* No Killjoy Rules [:325-360]: at the end of a turn the opponent can walk to the ball through
  empty field spaces, and the mover's team has at most 1 Outfielder in its own Penalty Box.
* Longer Matches [:364-418]: Time Limit (25 rounds), First to 3, Last Chance (3 rounds to tie);
  after a goal the conceding team restarts from its Keeper in front of its net with a die roll
  (1s rerolled) counted like the Kickoff.

Rulings (``shared/rules/NOTES.md`` §4.8 unless stated):

1. **Endings** (option ``ending``): ``time`` = Time Limit (the default, NOTES §4.8 variants:
   most goals after 25 rounds wins, equal goals = a draw), ``golden`` = the base game (the
   first goal wins), ``first3`` = First to 3, ``last`` = Last Chance. Every ending also stops
   after the Time Limit (option ``rounds``, default 25) so no match is endless; then the most
   goals wins, or a draw.
2. **Rounds** [:370-376]: a round is one turn of each seat. The Kickoff is not a turn; a restart
   after a goal is the conceding seat's turn (the seats keep alternating).
3. **Last Chance** [:390-402]: a goal that puts a seat ahead (or further ahead) gives the other
   seat 3 rounds (6 turns, its restart first) to tie; a tying goal cancels the count; when the
   count runs out with the score unequal, the leader wins.
4. **Restart** [:406-418]: the conceding seat chooses a front-of-net space for its Keeper
   (a ``place`` decision, ``keeper:<cell>``), the ball is placed there, the die is rolled (1s
   rerolled) and the Keeper kicks exactly that far like the Kickoff: no free first space,
   passes get theirs, and no goal during the restart (as during the Kickoff).
5. **Pips after a kick** (NOTES ruling 1): unspent pips are forfeited when the kick stops.
6. **No full walk** (NOTES ruling 1): if no pawn has a legal turn that spends every pip (or
   kicks), the walk may stop early (option ``stop``); if no legal turn exists even then, the
   turn passes (a ``roll`` event with ``stuck``).
7. **Kickoff distance** (NOTES ruling 5): the Kickoff (and restart) kick travels exactly its
   distance, bend included, unless it reaches a teammate first. If no such kick is legal, any
   shorter one is allowed; if none is, the Leave-a-Path rule is waived for that kick.
8. **Passing loops**: a pass may not give the ball to a pawn on the space it already kicked
   from this turn with the same number of pips (a kick state, pawn, space and pips, never
   repeats), so a turn ends. Passing back to a pawn that kicked is allowed (:213-216, :436): a
   pawn that kicked from in front of a net and moved aside (:289-292) kicks from a new space
   (version 2.0; the state was pawn and pips, which refused that pass).
9. **Diagonal kicks** (NOTES ruling 3) pass between two pawns standing corner to corner; only
   the spaces the ball enters matter.
10. **Posts** (NOTES ruling 6): a post is the point where a side of the goal mouth meets the end
    line. A diagonal kick from the space beside the net through that point (or from the
    front-of-net space through it) scores; a straight kick across the end line beside the net
    would leave the field and is not allowed. No own goals: the ball never enters one's own net.
11. **Front-of-net exception** [:283-292]: any pawn that may not end its turn in front of that
    net may enter the ball's space there (Outfielders, and a Keeper at the other net); right
    after its kick (the ball stopped, scored or reached a teammate) it moves to an orthogonally
    adjacent empty space where it may end its turn (a ``step`` decision in phase RELOCATE, a
    ``step`` event with ``free``; not the ball's space, not a net). After a goal that ends the
    match no move is made.
12. **Setup placements** also keep the end-of-turn rules: in bounds, no Outfielder in front of a
    net, at most 1 Outfielder in the own Penalty Box.
13. **Leave a Path** [:335-339]: the path runs through empty field spaces (never out of bounds)
    from a space next to an opponent pawn (which may stand out of bounds) to the ball. It is
    checked after a turn without a goal, after the Kickoff and after a restart.
14. **Bend decision**: asked only when the kick has spaces left and may still bend; otherwise
    the kick stops (or a teammate is reached) without a decision.
15. The first placer is a seeded random seat [:38].
16. **Protocol**: a goal is the ``kick`` event with ``goal`` set; a restart is a ``kickoff``
    event with ``restart`` set (few decision and event kinds, each common in play).

Bound: at most 2 × ``rounds`` turns (ruling 1); a turn asks at most 160 decisions (1 pawn, 6
steps, at most 35 distinct kicks of at most 4 decisions each and a move aside; a restart 1 +
140), and the setup 10 placements and a Kickoff of at most 140, so a match has at most
10 + (2 × rounds + 1) × 160 steps: 8,170 at the default 25 rounds (the playout test checks it
at 3 rounds).

Chance labels, in draw order: ``"placer"`` (pick of the seat placing first), ``"kickoff"`` (the
Kickoff rolls, seat 0 then seat 1, again on a tie), then per turn ``"die"`` (the turn's roll),
and after each goal ``"restart"`` (the restart roll, again on a 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig, OptionSpec
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result, Variant
from arena.games.goldengoal import worlds
from arena.games.goldengoal.field import (
    BOX,
    BOX_DEPTH,
    BOX_X,
    CELLS,
    CIRCLE,
    CIRCLE_CELLS,
    DATA,
    DIR_NAMES,
    FIELD,
    FRONT,
    FRONT_CELLS,
    GOAL_X,
    HALF,
    KIND,
    LENGTH,
    NEXT,
    WALK,
    WIDTH,
    name,
    xy,
)
from arena.games.goldengoal.search import GOAL, PASS, STOP, Search, kick_plans, must_relocate
from arena.games.v1 import goldengoal_pb2 as pb

PAWN_NAMES = ("k", "o1", "o2", "o3", "o4")
OUTFIELDERS = DATA["pawns"]["outfielders"]
DIE = len(DATA["die"]["faces"])
ROUNDS = DATA["time_limit"]["rounds"]
FIRST_TO = DATA["first_to"]["goals"]
LAST_CHANCE_TURNS = 2 * DATA["last_chance"]["rounds"]
ENDINGS = ("time", "golden", "first3", "last")


def pawn_name(code: int) -> str:
    return PAWN_NAMES[code % 5]


def kickoff_rolls(rolls: Sequence[int]) -> str:
    """The kickoff's rolls, seat 0's then seat 1's, a pair again after each tie."""
    pairs = (f"seat 0 {rolls[i]}, seat 1 {rolls[i + 1]}" for i in range(0, len(rolls), 2))
    return ", then ".join(pairs)


def pawn_label(code: int) -> str:
    return f"seat {code // 5} {'Keeper' if code % 5 == 0 else 'Outfielder ' + PAWN_NAMES[code % 5]}"


# -- options (shared, immutable) -------------------------------------------------------------


def _cell_pb(c: int) -> pb.Cell:
    x, y = xy(c)
    return pb.Cell(x=x, y=y)


CELL_PB = [_cell_pb(c) for c in range(CELLS)]
PLACE_KEEPER = {
    c: Option(f"keeper:{name(c)}", f"place the Keeper on {name(c)}", pb.Action(kind=pb.PLACE_KEEPER, cell=CELL_PB[c]))
    for c in range(CELLS)
    if KIND[c] == FIELD
}
PLACE_OUT = {
    c: Option(
        f"outfielder:{name(c)}",
        f"place an Outfielder on {name(c)}",
        pb.Action(kind=pb.PLACE_OUTFIELDER, cell=CELL_PB[c]),
    )
    for c in range(CELLS)
    if KIND[c] == FIELD
}
CHOOSE = [
    Option(
        f"pawn:{n}", f"move {'the Keeper' if n == 'k' else 'Outfielder ' + n}", pb.Action(kind=pb.CHOOSE_PAWN, pawn=n)
    )
    for n in PAWN_NAMES
]
DIRECTIONS = (pb.N, pb.NE, pb.E, pb.SE, pb.S, pb.SW, pb.W, pb.NW)  # by direction index
STEPS = {
    d: Option(DIR_NAMES[d], f"step {DIR_NAMES[d]}", pb.Action(kind=pb.STEP, direction=DIRECTIONS[d]))
    for d in (0, 2, 4, 6)
}
STOP_WALK = Option("stop", "end the walk here", pb.Action(kind=pb.STOP))
KICKS = [
    Option(f"kick:{DIR_NAMES[d]}", f"kick towards {DIR_NAMES[d]}", pb.Action(kind=pb.KICK, direction=DIRECTIONS[d]))
    for d in range(8)
]
MAX_SPACES = DIE + 2
GO = [Option(f"go:{n}", f"the ball goes {n} space(s)", pb.Action(kind=pb.GO, spaces=n)) for n in range(MAX_SPACES)]
SHOOT = [
    Option(f"goal:{n}", f"shoot: {n} space(s), into the net", pb.Action(kind=pb.GO, spaces=n, goal=True))
    for n in range(MAX_SPACES)
]
STOP_KICK = Option("stop", "the ball stops here", pb.Action(kind=pb.STOP))
BENDS = {
    -1: Option("bend:left", "bend 45 degrees anticlockwise", pb.Action(kind=pb.BEND, turn=-1)),
    1: Option("bend:right", "bend 45 degrees clockwise", pb.Action(kind=pb.BEND, turn=1)),
}


@dataclass
class GoldenGoalState(MatchState):
    occ: list[int] = field(default_factory=lambda: [-1] * CELLS)  # per cell: pawn code or -1
    pos: list[int] = field(default_factory=lambda: [0] * 10)  # per pawn code (seat*5+i): its cell
    placed: list[int] = field(default_factory=lambda: [0, 0])  # pawns placed per seat
    ball: int = -1  # the ball's cell (-1: on the centre point before the Kickoff / in the net)
    goals: list[int] = field(default_factory=lambda: [0, 0])
    phase: int = pb.PHASE_PLACE
    turn_seat: int = 0
    placer: int = 0
    kickoff_seat: int = -1
    kickoff: bool = False  # the Kickoff sequence is on (it is not a turn)
    die: int = 0
    pips: int = 0  # pips left before the current kick's spending
    mover: int = -1
    walked: int = 0  # spaces the mover walked this turn (``steps_taken`` in the proto)
    short: bool = False  # ruling 6
    relax: int = 0  # ruling 7: 1 = distance relaxed, 2 = path rule waived too
    no_goal: bool = False
    kicker: int = -1
    kick_from: int = -1
    kick_free: int = 0
    exact: bool = False
    direction: int = -1
    leg1: int = 0  # spaces of the first leg once chosen
    bend: int = 0
    spaces: int = 0  # spaces the ball has moved in this kick
    visited: frozenset[tuple[int, int, int]] = frozenset()  # (pawn code, cell, pips) of this turn's kicks
    relocator: int = -1
    after: tuple[int, int] = (STOP, -1)  # RELOCATE: how the kick ended (outcome, cell)
    turns: int = 0
    countdown: int = -1
    winner: int = -1
    dir1: int = -1  # the current kick's first direction
    path: list[int] = field(default_factory=list)  # spaces the ball entered in the current kick
    pawn_options: tuple[Option, ...] | None = None  # PAWN: computed when the turn began (reused)
    pawn_options_key: tuple[object, ...] = ()  # the position they were computed for

    @property
    def kick_pips(self) -> int:
        """Pips left when the current kick began (spent when it ends)."""
        return self.pips

    @property
    def kick_budget(self) -> int:
        """Spaces the current kick may travel in all: its free space and its pips."""
        return self.pips + self.kick_free


def goal_ends_match(state: GoldenGoalState, seat: int) -> bool:
    """Would a goal by ``seat`` now end the match (ruling 1)?"""
    ending = state.config["ending"]
    if ending == "golden":
        return True
    if ending == "first3" and state.goals[seat] + 1 >= FIRST_TO:
        return True
    return state.turns + 1 >= turn_limit(state)


def turn_limit(state: GoldenGoalState) -> int:
    return 2 * int(state.config["rounds"])


class GoldenGoal(Game[GoldenGoalState]):
    meta = GameMeta(
        id="goldengoal",
        name="Golden Goal",
        min_players=2,
        max_players=2,
        version="2.2",  # 2.2: event texts name seats and read as English, not Python lists
        options=(
            OptionSpec(
                "ending",
                "time",
                "time: most goals after the rounds; golden: first goal wins; first3: first to 3 goals; "
                "last: 3 rounds to tie (all stop after the rounds)",
                choices=ENDINGS,
            ),
            OptionSpec("rounds", ROUNDS, "the Time Limit in rounds (one turn per seat each)", minimum=1, maximum=200),
        ),
        variants=(
            Variant("golden", "The base game: the first goal wins", {"ending": "golden"}),
            Variant("first3", "First to 3 goals wins", {"ending": "first3"}),
            Variant("last", "After a goal the other team has 3 rounds to tie", {"ending": "last"}),
        ),
        hidden_information=False,
        summary="Grid soccer: roll, move one player, kick, pass and bend the ball into the net.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> GoldenGoalState:
        placer = chance.pick((0, 1), "placer")
        state = GoldenGoalState(config=config, chance=chance, placer=placer, turn_seat=placer)
        state.pos = [-1] * 10
        state.log.public(CHANCE_SEAT, "setup", f"seat {placer} places first", pb.Detail(seat=placer))
        return state

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: GoldenGoalState) -> Iterable[Decision]:
        phase = state.phase
        seat = state.turn_seat
        if phase == pb.PHASE_OVER:
            return ()
        if phase == pb.PHASE_PLACE:
            return (Decision(seat, "place", self._place_options(state)),)
        if phase == pb.PHASE_RESTART:
            options = tuple(PLACE_KEEPER[c] for c in FRONT_CELLS[seat] if state.occ[c] in (-1, seat * 5))
            return (Decision(seat, "place", options),)
        search = Search(state)
        if phase == pb.PHASE_PAWN:
            cached = state.pawn_options
            if cached is None or state.pawn_options_key != _pawn_key(state):  # a tool edited the state
                cached = self._pawn_options(state, search)
            return (Decision(seat, "pawn", cached),)
        if phase == pb.PHASE_STEP:
            return (Decision(seat, "step", self._step_options(state, search)),)
        if phase == pb.PHASE_KICK:
            return (Decision(seat, "kick", self._kick_options(state, search)),)
        if phase == pb.PHASE_DISTANCE:
            return (Decision(seat, "distance", self._distance_options(state, search)),)
        if phase == pb.PHASE_BEND:
            return (Decision(seat, "bend", self._bend_options(state, search)),)
        return (Decision(seat, "step", self._relocate_options(state, search)),)

    # setup

    def _place_options(self, state: GoldenGoalState) -> tuple[Option, ...]:
        seat = state.turn_seat
        base = seat * 5
        pos, occ = state.pos, state.occ
        options: list[Option] = []
        if pos[base] < 0:
            options += [PLACE_KEEPER[c] for c in FRONT_CELLS[seat] if occ[c] < 0]
        outfield = [pos[base + i] for i in range(1, 5) if pos[base + i] >= 0]
        left = OUTFIELDERS - len(outfield)
        if left == 0:
            return tuple(options)
        own = sum(HALF[c] == seat for c in outfield)
        other = len(outfield) - own
        in_circle = sum(CIRCLE[c] for c in outfield)
        in_box = sum(BOX[c] == seat for c in outfield)
        for c in sorted(PLACE_OUT):
            if occ[c] >= 0 or FRONT[c] >= 0 or (BOX[c] == seat and in_box):
                continue
            if HALF[c] == seat:
                if CIRCLE[c] and in_circle:
                    continue
                if _setup_completes(own + 1, other, in_circle + CIRCLE[c], left - 1):
                    options.append(PLACE_OUT[c])
            elif not CIRCLE[c] and _setup_completes(own, other + 1, in_circle, left - 1):
                options.append(PLACE_OUT[c])
        return tuple(options)

    # turns

    def _pawn_options(self, state: GoldenGoalState, search: Search) -> tuple[Option, ...]:
        base = state.turn_seat * 5
        return tuple(CHOOSE[i] for i in range(5) if search.walk_ok(base + i, state.pips, False, state.short))

    def _step_options(self, state: GoldenGoalState, search: Search) -> tuple[Option, ...]:
        code = state.mover
        cur = state.pos[code]
        options = [
            STEPS[d] for d, n in WALK[cur] if state.occ[n] < 0 and search.step_ok(code, n, state.pips, state.short)
        ]
        if state.short and state.walked and search.walk_end_ok(code, cur):
            options.append(STOP_WALK)
        return tuple(options)

    def _plans(self, state: GoldenGoalState, dirs: Iterable[int]) -> Iterable[tuple[int, ...]]:
        return kick_plans(
            state.occ,
            state.turn_seat,
            state.kick_from,
            state.kick_budget,
            state.exact,
            not state.no_goal,
            dirs,  # type: ignore[arg-type]
        )

    def _plan_ok(self, state: GoldenGoalState, search: Search, plan: tuple[int, ...]) -> bool:
        relocator = state.kicker if state.relocator == state.kicker else -1
        return search.plan_ok(plan, state.kick_from, state.kick_pips, state.kick_free, state.visited, relocator)  # type: ignore[arg-type]

    def _kick_options(self, state: GoldenGoalState, search: Search) -> tuple[Option, ...]:
        return tuple(
            KICKS[d] for d in range(8) if any(self._plan_ok(state, search, p) for p in self._plans(state, (d,)))
        )

    def _distance_options(self, state: GoldenGoalState, search: Search) -> tuple[Option, ...]:
        found: dict[int, Option] = {}
        for plan in self._plans(state, (state.dir1,)):
            if state.leg1:
                if plan[1] != state.leg1 or plan[2] != state.bend:
                    continue
                spaces = plan[3]
            else:
                spaces = plan[1]
            if spaces in found or (not state.leg1 and plan[2] != 0 and plan[1] in found):
                continue
            if self._plan_ok(state, search, plan):
                found[spaces] = SHOOT[spaces] if plan[4] == GOAL and (state.leg1 or plan[2] == 0) else GO[spaces]
        return tuple(found[n] for n in sorted(found))

    def _bend_choices(self, state: GoldenGoalState, search: Search) -> tuple[Option, ...]:
        stop = False
        bends: set[int] = set()
        for plan in self._plans(state, (state.dir1,)):
            if plan[1] != state.leg1:
                continue
            b = plan[2]
            if (b == 0 and stop) or (b != 0 and b in bends):
                continue
            if self._plan_ok(state, search, plan):
                if b == 0:
                    stop = True
                else:
                    bends.add(b)
        return ((STOP_KICK,) if stop else ()) + tuple(BENDS[b] for b in sorted(bends))

    def _bend_options(self, state: GoldenGoalState, search: Search) -> tuple[Option, ...]:
        return self._bend_choices(state, search)

    def _relocate_options(self, state: GoldenGoalState, search: Search) -> tuple[Option, ...]:
        code = state.relocator
        outcome, end = state.after
        options = []
        cur = state.pos[code]
        for r in search.relocations(code, cur, end if outcome == STOP else -1):
            search.move(code, r)
            ok = outcome == GOAL or search.after_kick(outcome, end, state.pips, state.visited)
            search.undo()
            if ok:
                options.append(STEPS[next(d for d, n in WALK[cur] if n == r)])
        return tuple(options)

    # -- transitions ------------------------------------------------------------------------

    def resolve(self, state: GoldenGoalState, chosen: Mapping[int, Option]) -> None:
        (seat, option), *_ = chosen.items()
        action = option.action
        assert isinstance(action, pb.Action)
        state.pawn_options = None
        kind = action.kind
        if state.phase == pb.PHASE_RESTART:
            self._restart(state, _cell(action.cell))
        elif state.phase == pb.PHASE_RELOCATE:
            self._relocate(state, NEXT[action.direction - 1][state.pos[state.relocator]])
        elif kind in (pb.PLACE_KEEPER, pb.PLACE_OUTFIELDER):
            self._place(state, seat, kind == pb.PLACE_KEEPER, _cell(action.cell))
        elif kind == pb.CHOOSE_PAWN:
            state.mover = seat * 5 + PAWN_NAMES.index(action.pawn)
            state.phase = pb.PHASE_STEP
        elif kind == pb.STEP:
            self._step(state, action.direction - 1)
        elif kind == pb.STOP and state.phase == pb.PHASE_STEP:
            self._finish_turn(state, goal=False)
        elif kind == pb.KICK:
            state.direction = state.dir1 = action.direction - 1
            state.phase = pb.PHASE_DISTANCE
        elif kind == pb.GO:
            self._go(state, action.spaces, action.goal)
        elif kind == pb.STOP:
            self._end_kick(state, STOP, state.ball)
        else:
            state.bend = action.turn
            state.direction = (state.direction + action.turn) % 8
            state.phase = pb.PHASE_DISTANCE

    # setup and kickoff

    def _place(self, state: GoldenGoalState, seat: int, keeper: bool, c: int) -> None:
        base = seat * 5
        code = base if keeper else base + next(i for i in range(1, 5) if state.pos[base + i] < 0)
        state.pos[code] = c
        state.occ[c] = code
        state.placed[seat] += 1
        state.log.public(
            seat,
            "place",
            f"places {pawn_label(code)} on {name(c)}",
            pb.Detail(seat=seat, pawn=pawn_name(code), to=CELL_PB[c]),
        )
        if sum(state.placed) == 10:
            self._kickoff(state)
        else:
            state.turn_seat = 1 - seat

    def _kickoff(self, state: GoldenGoalState) -> None:
        rolls: list[int] = []
        while True:
            a, b = state.chance.roll(DIE, "kickoff"), state.chance.roll(DIE, "kickoff")
            rolls += [a, b]
            if a != b:
                break
        winner = 0 if a > b else 1
        distance = abs(a - b)
        kicker = next(winner * 5 + i for i in range(1, 5) if CIRCLE[state.pos[winner * 5 + i]])
        state.ball = state.pos[kicker]
        state.kickoff = True
        state.kickoff_seat = winner
        state.turn_seat = winner
        state.no_goal = True
        state.log.public(
            winner,
            "kickoff",
            f"Kickoff rolls {kickoff_rolls(rolls)}: seat {winner} wins"
            f" and kicks {distance} space(s) from {name(state.ball)}",
            pb.Detail(seat=winner, rolls=rolls, spaces=distance, to=CELL_PB[state.ball]),
        )
        state.visited = frozenset()
        self._start_kick(state, kicker, distance, free=0, exact=True)

    def _start_kick(self, state: GoldenGoalState, kicker: int, pips: int, free: int, exact: bool) -> None:
        state.kicker = kicker
        state.kick_from = state.ball
        state.pips = pips
        state.kick_free = free
        state.exact = exact
        state.direction = state.dir1 = -1
        state.leg1 = 0
        state.bend = 0
        state.spaces = 0
        state.path = []
        state.visited = state.visited | {(kicker, state.ball, pips)}
        state.phase = pb.PHASE_KICK
        if exact:  # Kickoff and restart: ruling 7's fallbacks
            state.relax = 0
            while not self._kick_options(state, Search(state)) and state.relax < 2:
                state.relax += 1
                state.exact = False

    # turns

    def _start_turn(self, state: GoldenGoalState, seat: int) -> None:
        state.turn_seat = seat
        state.die = state.pips = state.chance.roll(DIE, "die")
        state.mover = -1
        state.walked = 0
        state.short = False
        state.relax = 0
        state.no_goal = False
        state.visited = frozenset()
        state.relocator = -1
        state.phase = pb.PHASE_PAWN
        state.pawn_options = self._pawn_options(state, Search(state))
        if not state.pawn_options:
            state.short = True
            state.pawn_options = self._pawn_options(state, Search(state))
        stuck = not state.pawn_options
        state.pawn_options_key = _pawn_key(state)
        note = (
            " (no legal turn: the turn passes)" if stuck else (" (no full walk: may stop early)" if state.short else "")
        )
        state.log.public(seat, "roll", f"rolls {state.die}{note}", pb.Detail(seat=seat, spaces=state.die, stuck=stuck))
        if stuck:
            self._finish_turn(state, goal=False)

    def _step(self, state: GoldenGoalState, d: int) -> None:
        code = state.mover
        frm = state.pos[code]
        to = NEXT[d][frm]
        state.occ[frm] = -1
        state.occ[to] = code
        state.pos[code] = to
        state.pips -= 1
        state.walked += 1
        state.log.public(
            state.turn_seat,
            "step",
            f"{pawn_label(code)} steps {DIR_NAMES[d]} to {name(to)}",
            _from(pb.Detail(seat=state.turn_seat, pawn=pawn_name(code), to=CELL_PB[to]), frm),
        )
        if to == state.ball:
            state.relocator = code if must_relocate(code, to) else -1
            self._start_kick(state, code, state.pips, free=1, exact=False)
        elif state.pips == 0:
            self._finish_turn(state, goal=False)

    def _go(self, state: GoldenGoalState, spaces: int, goal: bool) -> None:
        c = state.ball
        d = state.direction
        for i in range(spaces):
            if goal and i == spaces - 1:
                break
            c = NEXT[d][c]
            state.path.append(c)
        state.spaces += spaces
        if not state.leg1:
            state.leg1 = spaces
        if goal:
            self._end_kick(state, GOAL, -1)
            return
        state.ball = c
        if state.occ[c] >= 0:
            self._end_kick(state, PASS, c)
            return
        if state.bend == 0 and state.kick_budget > state.spaces:
            state.phase = pb.PHASE_BEND
            choices = self._bend_choices(state, Search(state))
            if any(o is not STOP_KICK for o in choices):
                return
        self._end_kick(state, STOP, c)

    def _end_kick(self, state: GoldenGoalState, outcome: int, end: int) -> None:
        seat = state.turn_seat
        final = outcome == GOAL and goal_ends_match(state, seat)
        spent = max(0, state.spaces - state.kick_free)
        state.pips -= spent
        kicker = state.kicker
        frm = state.kick_from
        detail = _from(
            pb.Detail(
                seat=seat,
                pawn=pawn_name(kicker),
                spaces=state.spaces,
                pips=spent,
                turn=state.bend,
                goal=outcome == GOAL,
                path=[CELL_PB[c] for c in state.path],
            ),
            frm,
        )
        if outcome == GOAL:
            state.goals[seat] += 1
            detail.goals.extend(state.goals)
            where = f"into the net: GOAL ({state.goals[0]}-{state.goals[1]})"
        else:
            detail.to.CopyFrom(CELL_PB[end])
            where = f"to {name(end)}"
        if outcome == PASS:
            detail.passed_to = pawn_name(state.occ[end])
            where += f" (pass to {pawn_label(state.occ[end])})"
        bent = f", bent {'left' if state.bend < 0 else 'right'}" if state.bend else ""
        state.log.public(
            seat, "kick", f"{pawn_label(kicker)} kicks from {name(frm)} {where}: {state.spaces} space(s){bent}", detail
        )
        if outcome == GOAL:
            state.ball = -1
        if state.relocator == kicker and not final:
            state.after = (outcome, end)
            state.phase = pb.PHASE_RELOCATE
            return
        self._after_kick(state, outcome, end)

    def _relocate(self, state: GoldenGoalState, to: int) -> None:
        code = state.relocator
        frm = state.pos[code]
        state.occ[frm] = -1
        state.occ[to] = code
        state.pos[code] = to
        state.relocator = -1
        state.log.public(
            state.turn_seat,
            "step",
            f"{pawn_label(code)} moves aside from {name(frm)} to {name(to)} (free)",
            _from(pb.Detail(seat=state.turn_seat, pawn=pawn_name(code), to=CELL_PB[to], free=True), frm),
        )
        self._after_kick(state, *state.after)

    def _after_kick(self, state: GoldenGoalState, outcome: int, end: int) -> None:
        if outcome == PASS:
            self._start_kick(state, state.occ[end], state.pips, free=1, exact=False)
        elif outcome == GOAL:
            self._goal(state, state.turn_seat)
        elif state.kickoff:
            state.kickoff = False
            state.no_goal = False
            self._start_turn(state, 1 - state.kickoff_seat)
        else:
            self._finish_turn(state, goal=False)

    def _goal(self, state: GoldenGoalState, seat: int) -> None:
        """The goal is counted (and logged with the kick); what it does to the match."""
        goals = state.goals
        ending = state.config["ending"]
        if ending == "golden" or (ending == "first3" and goals[seat] >= FIRST_TO):
            state.turns += 1  # the winning turn was played too (version 2.1: it was not counted)
            self._finish(state)
            return
        if ending == "last":
            if goals[seat] > goals[1 - seat]:
                state.countdown = LAST_CHANCE_TURNS + 1  # the scoring turn's end counts it down once
            elif goals[0] == goals[1]:
                state.countdown = -1
        self._finish_turn(state, goal=True)

    def _finish_turn(self, state: GoldenGoalState, goal: bool) -> None:
        state.turns += 1
        if state.countdown > 0:
            state.countdown -= 1
            if state.countdown == 0 and state.goals[0] != state.goals[1]:
                self._finish(state)
                return
        if state.turns >= turn_limit(state):
            self._finish(state)
        elif goal:
            state.turn_seat = 1 - state.turn_seat
            state.phase = pb.PHASE_RESTART
            state.mover = -1
            state.kicker = -1
        else:
            self._start_turn(state, 1 - state.turn_seat)

    def _restart(self, state: GoldenGoalState, c: int) -> None:
        seat = state.turn_seat
        keeper = seat * 5
        frm = state.pos[keeper]
        state.occ[frm] = -1
        state.occ[c] = keeper
        state.pos[keeper] = c
        state.ball = c
        rolls = [state.chance.roll(DIE, "restart")]
        while rolls[-1] == 1:
            rolls.append(state.chance.roll(DIE, "restart"))
        state.die = rolls[-1]
        state.log.public(
            seat,
            "kickoff",
            f"restarts: Keeper on {name(c)}, rolls {', '.join(map(str, rolls))}, kicks {rolls[-1]} space(s)",
            _from(pb.Detail(seat=seat, pawn="k", to=CELL_PB[c], spaces=rolls[-1], rolls=rolls, restart=True), frm),
        )
        state.mover = -1
        state.walked = 0
        state.short = False
        state.no_goal = True
        state.visited = frozenset()
        state.relocator = -1
        self._start_kick(state, keeper, rolls[-1], free=0, exact=True)

    def _finish(self, state: GoldenGoalState) -> None:
        state.phase = pb.PHASE_OVER
        goals = state.goals
        state.winner = -1 if goals[0] == goals[1] else (0 if goals[0] > goals[1] else 1)
        outcome = "a draw" if state.winner < 0 else f"seat {state.winner} wins"
        state.log.public(
            CHANCE_SEAT,
            "end",
            f"final score {goals[0]}-{goals[1]}: {outcome}",
            pb.Detail(seat=state.winner, goals=goals),
        )

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: GoldenGoalState, viewer: int) -> pb.Observation:
        pawns = []
        for code in range(10):
            pawn = pb.Pawn(seat=code // 5, name=pawn_name(code), keeper=code % 5 == 0, placed=state.pos[code] >= 0)
            if state.pos[code] >= 0:
                pawn.cell.CopyFrom(CELL_PB[state.pos[code]])
            pawns.append(pawn)
        kicking = state.phase in (pb.PHASE_KICK, pb.PHASE_DISTANCE, pb.PHASE_BEND)
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=viewer == SPECTATOR,
            phase=state.phase,  # type: ignore[arg-type]
            turn_seat=state.turn_seat,
            pawns=pawns,
            ball_placed=state.ball >= 0,
            goals=state.goals,
            die=state.die,
            pips=state.pips - (max(0, state.spaces - state.kick_free) if kicking else 0),
            mover=pawn_name(state.mover) if state.mover >= 0 else "",
            steps_taken=state.walked,
            kicker=pawn_name(state.kicker) if kicking else "",
            direction=state.direction + 1 if state.phase in (pb.PHASE_DISTANCE, pb.PHASE_BEND) else 0,  # type: ignore[arg-type]
            free_space=kicking and state.spaces < state.kick_free,
            bent=kicking and state.bend != 0,
            exact=(state.pips - state.spaces) if kicking and state.exact else 0,
            no_goal=state.no_goal,
            short_walk=state.short,
            turns_played=state.turns,
            turns_limit=turn_limit(state),
            ending=str(state.config["ending"]),
            countdown=state.countdown,
            placer=state.placer,
            kicked=[f"{pawn_name(code)}@{name(cell)}:{pips}" for code, cell, pips in sorted(state.visited)],
            field=FIELD_PB,
            kickoff_seat=state.kickoff_seat,
        )
        if state.ball >= 0:
            obs.ball.CopyFrom(CELL_PB[state.ball])
        if kicking:
            obs.kick_from.CopyFrom(CELL_PB[state.kick_from])
        return obs

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> GoldenGoalState:
        """Nothing is hidden: the observation is the whole position (the kick in progress is
        rebuilt from it, see ``worlds.py``); only the dice to come are fresh."""
        assert isinstance(observation, pb.Observation)
        return worlds.world_from_observation(self, config, observation, chance)

    def score(self, state: GoldenGoalState) -> Result:
        goals = state.goals
        summary = "a draw" if goals[0] == goals[1] else f"seat {0 if goals[0] > goals[1] else 1} wins"
        return Result.ranked(list(goals), list(goals), f"{goals[0]}-{goals[1]}: {summary}")


def _pawn_key(state: GoldenGoalState) -> tuple[object, ...]:
    return (tuple(state.pos), state.ball, state.pips, state.short, state.turn_seat, state.relax)


def _from(detail: pb.Detail, c: int) -> pb.Detail:
    """``detail`` with its ``from`` field (a Python keyword) set to ``c``."""
    getattr(detail, "from").CopyFrom(CELL_PB[c])
    return detail


def _cell(message: pb.Cell) -> int:
    return message.y * (WIDTH + 2) + message.x


def _setup_completes(own: int, other: int, in_circle: int, left: int) -> bool:
    """Can the remaining ``left`` Outfielders complete a legal setup [:44-47]?"""
    for to_own in range(left + 1):
        mine = own + to_own
        theirs = other + left - to_own
        if 2 <= mine <= 3 and 1 <= theirs <= 2 and (in_circle or to_own >= 1):
            return True
    return False


FIELD_PB = pb.Field(
    width=WIDTH,
    length=LENGTH,
    goal_x=list(GOAL_X),
    box_x_min=BOX_X[0],
    box_x_max=BOX_X[1],
    box_depth=BOX_DEPTH,
    circle=[CELL_PB[c] for c in CIRCLE_CELLS],
)

GAME = GoldenGoal()
