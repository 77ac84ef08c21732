"""Built-in bots for Golden Goal."""

from __future__ import annotations

from collections.abc import Mapping

from arena.games.v1 import goldengoal_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

DELTAS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
DIRS = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
LETTERS = "abcdefghij"
Cell = tuple[int, int]


class Pitch:
    """The field and the pawns as one seat sees them (built from the observation)."""

    def __init__(self, obs: pb.Observation) -> None:
        f = obs.field
        self.seat = obs.turn_seat
        self.width, self.length = f.width, f.length
        self.goal_x = tuple(f.goal_x)
        self.box = (f.box_x_min, f.box_x_max, f.box_depth)
        self.forward = 1 if self.seat == 0 else -1
        self.target_row = self.length if self.seat == 0 else 1  # the end row we attack
        self.home_row = 1 if self.seat == 0 else self.length
        self.occ: dict[Cell, tuple[int, str]] = {}
        self.mine: dict[str, Cell] = {}
        self.theirs: list[Cell] = []
        for p in obs.pawns:
            if p.placed:
                cell = (p.cell.x, p.cell.y)
                self.occ[cell] = (p.seat, p.name)
                if p.seat == self.seat:
                    self.mine[p.name] = cell
                else:
                    self.theirs.append(cell)
        self.ball: Cell | None = (obs.ball.x, obs.ball.y) if obs.ball_placed else None

    def in_field(self, c: Cell) -> bool:
        return 1 <= c[0] <= self.width and 1 <= c[1] <= self.length

    def space(self, c: Cell) -> bool:
        x, y = c
        if not (0 <= x <= self.width + 1 and 0 <= y <= self.length + 1):
            return False
        return not ((y == 0 or y == self.length + 1) and x in self.goal_x)

    def scores(self, c: Cell, d: int) -> bool:
        """Does a ball on ``c`` kicked towards ``d`` go into the net we attack?"""
        dx, dy = DELTAS[d]
        if c[1] != self.target_row or dy != self.forward:
            return False
        if c[0] in self.goal_x:
            return True
        return c[0] + dx in self.goal_x and c[0] not in self.goal_x

    def distances(self, start: Cell, ball_blocks: bool = True) -> dict[Cell, int]:
        """Walking distance from ``start`` over free spaces (the ball's space is reached, not
        crossed)."""
        dist = {start: 0}
        queue = [start]
        for c in queue:
            if c == self.ball and c != start:
                continue
            for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                n = (c[0] + dx, c[1] + dy)
                if n in dist or not self.space(n) or (n in self.occ and n != self.ball):
                    continue
                dist[n] = dist[c] + 1
                queue.append(n)
        return dist

    def value(self, c: Cell) -> float:
        """How good a resting ball on ``c`` is for us: progress towards their net, close to our
        pawns, far from theirs (they move next)."""
        progress = (c[1] - 1) if self.seat == 0 else (self.length - c[1])
        theirs = min((abs(c[0] - o[0]) + abs(c[1] - o[1]) for o in self.theirs), default=10)
        ours = min((abs(c[0] - o[0]) + abs(c[1] - o[1]) for o in self.mine.values()), default=10)
        centre = -0.15 * abs(2 * c[0] - self.width - 1)
        danger = 0.0
        if (self.length + 1 - progress) <= 4:  # the ball near our own net is dangerous
            danger = -3.0
        return progress + 0.6 * min(theirs, 5) - 0.3 * min(ours, 6) + centre + danger

    def ray(self, start: Cell, d: int, budget: int) -> list[tuple[Cell, str]]:
        """The spaces a ball from ``start`` reaches towards ``d``: (cell, 'empty'|'mate'|'goal')."""
        out: list[tuple[Cell, str]] = []
        c = start
        for _ in range(budget):
            if self.scores(c, d):
                out.append((c, "goal"))
                break
            n = (c[0] + DELTAS[d][0], c[1] + DELTAS[d][1])
            if not self.in_field(n):
                break
            who = self.occ.get(n)
            if who is not None:
                if who[0] == self.seat:
                    out.append((n, "mate"))
                break
            out.append((n, "empty"))
            c = n
        return out

    def best_from(self, start: Cell, d: int, budget: int, can_bend: bool) -> float:
        """The best value of a kick from ``start`` towards ``d`` (bending at most once)."""
        best = -1e9
        for i, (c, kind) in enumerate(self.ray(start, d, budget)):
            if kind == "goal":
                return 1000.0
            if kind == "mate":
                best = max(best, self.value(c) + 2.0 + budget - i - 1)
                continue
            best = max(best, self.value(c))
            left = budget - i - 1
            if can_bend and left > 0:
                for b in (-1, 1):
                    best = max(best, self.best_from(c, (d + b) % 8, left, False))
        return best


class HeuristicBot(Bot):
    """Plays Golden Goal like a careful club player.

    * Setup: Keeper in front of its net, a Center Circle taker, a defender before its own box,
      a midfielder, and ``attackers`` (1 or 2) waiting just outside the opponent's box.
    * Turn: shoots whenever a goal is on; otherwise moves the pawn that reaches the ball with
      the most pips left and kicks it forward, towards a teammate (passes get a free space),
      away from the opponents. When no pawn reaches the ball, it brings the nearest Outfielder
      towards the ball, between the ball and its own net when the ball is in its half.
    * Kicks: every direction, distance and bend is valued by where the ball ends (progress,
      nearby teammates, distance from opponents); a goal beats everything.
    """

    game_id = "goldengoal"

    def __init__(self, attackers: int = 2) -> None:
        super().__init__()
        self.attackers = attackers

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        ids = [o.id for o in turn.options]
        if len(ids) == 1:
            return ids[0]
        pitch = Pitch(obs)
        if turn.kind == "place":
            return self._place(pitch, ids, obs)
        if turn.kind == "pawn":
            return self._pawn(pitch, ids, obs)
        if turn.kind == "step":
            return self._step(pitch, ids, obs)
        if turn.kind == "kick":
            return self._kick(pitch, ids, obs)
        if turn.kind == "distance":
            return self._distance(pitch, ids, obs)
        return self._bend(pitch, ids, obs)

    # -- setup ----------------------------------------------------------------------------------

    def _place(self, pitch: Pitch, ids: list[str], obs: pb.Observation) -> str:
        keepers = [i for i in ids if i.startswith("keeper:")]
        if keepers and (obs.phase == pb.PHASE_RESTART or len(pitch.mine) >= 4):
            return keepers[0]
        seat = pitch.seat
        mid = (pitch.width + 1) / 2

        def row(r: int) -> int:
            return r if seat == 0 else pitch.length + 1 - r

        slots = [(mid - 0.5, row(7)), (mid - 2.5, row(4)), (mid + 1.5, row(11))]
        slots.append((mid - 2.5, row(11)) if self.attackers >= 2 else (mid + 1.5, row(5)))
        taken = list(pitch.mine.values())
        for slot in slots:
            if any(abs(c[0] - slot[0]) + abs(c[1] - slot[1]) <= 1.5 for c in taken):
                continue
            best = min(
                (i for i in ids if i.startswith("outfielder:")),
                key=lambda i: abs(_cell(i)[0] - slot[0]) + abs(_cell(i)[1] - slot[1]),
                default=None,
            )
            if best is not None:
                return best
        return ids[0]

    # -- walking --------------------------------------------------------------------------------

    def _pawn(self, pitch: Pitch, ids: list[str], obs: pb.Observation) -> str:
        ball = pitch.ball
        assert ball is not None
        pips = obs.pips
        best, best_score = ids[0], -1e9
        for option in ids:
            name = option.split(":")[1]
            start = pitch.mine[name]
            dist = pitch.distances(start).get(ball, 99)
            if dist <= pips:
                score = 100 + self._kick_prospect(pitch, ball, pips - dist)
            else:
                score = -dist - (6 if name == "k" else 0)
                if name == "k" and self._ball_in_our_half(pitch):
                    score -= 20  # the Keeper stays home while the ball is in our half
            if score > best_score:
                best, best_score = option, score
        return best

    def _kick_prospect(self, pitch: Pitch, ball: Cell, pips: int) -> float:
        return max(pitch.best_from(ball, d, pips + 1, True) for d in range(8))

    def _ball_in_our_half(self, pitch: Pitch) -> bool:
        assert pitch.ball is not None
        half = pitch.length // 2
        return pitch.ball[1] <= half if pitch.seat == 0 else pitch.ball[1] > half

    def _step(self, pitch: Pitch, ids: list[str], obs: pb.Observation) -> str:
        if obs.phase == pb.PHASE_RELOCATE or pitch.ball is None:
            return ids[0]
        me = pitch.mine[obs.mover]
        if pitch.distances(me).get(pitch.ball, 99) <= obs.pips:
            towards = self._towards_ball(pitch, ids, me, obs.pips)
            if towards is not None:
                return towards
        target = self._cover(pitch)
        best, best_d = ids[0], 1e9
        for option in ids:
            if option == "stop":
                continue
            n = _next(me, option)
            dist = abs(n[0] - target[0]) + abs(n[1] - target[1]) + (0.5 if not pitch.in_field(n) else 0)
            if dist < best_d:
                best, best_d = option, dist
        return best

    @staticmethod
    def _towards_ball(pitch: Pitch, ids: list[str], me: Cell, pips: int) -> str | None:
        """The step along a shortest free path to the ball (the walking distance ``_pawn``
        measured): a straight-line step can lead behind a pawn and leave the ball out of reach."""
        assert pitch.ball is not None
        to_ball = pitch.distances(pitch.ball)
        steps = [o for o in ids if o != "stop" and to_ball.get(_next(me, o), 99) < pips]
        return min(steps, key=lambda o: to_ball[_next(me, o)], default=None)

    @staticmethod
    def _cover(pitch: Pitch) -> Cell:
        """Where to stand when the ball is out of reach: on its side towards our net, which
        both blocks the way to our net and lines up a forward kick next turn."""
        assert pitch.ball is not None
        bx, by = pitch.ball
        return (bx, by - pitch.forward)

    # -- kicking --------------------------------------------------------------------------------

    def _kick(self, pitch: Pitch, ids: list[str], obs: pb.Observation) -> str:
        ball = pitch.ball
        assert ball is not None
        budget = obs.pips + (1 if obs.free_space else 0)
        if obs.exact:
            budget = obs.exact
        return max(ids, key=lambda i: pitch.best_from(ball, DIRS.index(i.split(":")[1]), budget, True))

    def _distance(self, pitch: Pitch, ids: list[str], obs: pb.Observation) -> str:
        goals = [i for i in ids if i.startswith("goal:")]
        if goals:
            return goals[0]
        ball = pitch.ball
        assert ball is not None
        d = obs.direction - 1
        budget = obs.pips + (1 if obs.free_space else 0)
        ray = pitch.ray(ball, d, budget)
        best, best_v = ids[0], -1e9
        for option in ids:
            n = int(option.split(":")[1])
            c, kind = ray[n - 1] if n - 1 < len(ray) else (ball, "empty")
            left = budget - n
            v = pitch.value(c) + (2.0 + left if kind == "mate" else 0.0)
            if kind == "empty" and not obs.bent and left > 0:
                v = max(v, max(pitch.best_from(c, (d + b) % 8, left, False) for b in (-1, 1)))
            if v > best_v:
                best, best_v = option, v
        return best

    def _bend(self, pitch: Pitch, ids: list[str], obs: pb.Observation) -> str:
        ball = pitch.ball
        assert ball is not None
        d = obs.direction - 1
        budget = obs.pips + (1 if obs.free_space else 0)
        best, best_v = ids[0], -1e9
        for option in ids:
            if option == "stop":
                v = pitch.value(ball)
            else:
                b = -1 if option.endswith("left") else 1
                v = pitch.best_from(ball, (d + b) % 8, budget, False)
            if v > best_v:
                best, best_v = option, v
        return best


def _next(c: Cell, step: str) -> Cell:
    """The space a step (``n``, ``e``, ...) from ``c`` leads to."""
    dx, dy = DELTAS[DIRS.index(step)]
    return c[0] + dx, c[1] + dy


def _cell(option_id: str) -> Cell:
    text = option_id.split(":")[1]
    return LETTERS.index(text[0]), int(text[1:])


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("attackers", 2, 1, 2, integer=True)])
    return HeuristicBot(int(values["attackers"]))


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:attackers=1"]
