"""Golden Goal: the look-ahead behind every option ("can this choice still end in a legal turn?").

A turn is a chain of simple decisions (pawn, steps, kick direction, distance, bend, relocate);
an option is offered only when some completion of the chain ends legally. Legal end = the No
Killjoy Rules (rules :325-360): the moving pawn does not end in front of a net it may not stand
in, at most 1 defending Outfielder in its own Penalty Box, and the opponent can walk to the ball
through empty field spaces. A :class:`Search` answers these questions for one state; it moves
pawns on the state's own ``occ``/``pos`` lists temporarily and always puts them back.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from arena.games.goldengoal.field import (
    BOX,
    FIELD,
    FIELD_NEIGHBOURS,
    FRONT,
    GOAL_MOVES,
    KIND,
    NEXT,
    WALK,
)

if TYPE_CHECKING:
    from arena.games.goldengoal.game import GoldenGoalState

STOP, PASS, GOAL = 0, 1, 2  # how a kick ends: the ball stops, reaches a teammate, or scores

Plan = tuple[int, int, int, int, int, int, int]
"""A whole kick: (first direction, spaces, bend -1/0/+1, spaces after the bend, outcome, end cell
(-1 for a goal), spaces in all)."""


def kick_plans(
    occ: list[int], seat: int, origin: int, budget: int, exact: bool, goals: bool, dirs: Iterator[int] | range
) -> Iterator[Plan]:
    """Every kick from ``origin`` with at most ``budget`` spaces (exactly ``budget`` when
    ``exact``, unless it reaches a teammate): straight, or bent once by 45 degrees (rules
    :158-171, :222-254). The ball stops at a teammate (a pass, :205-218), never enters an
    opponent's space, out of bounds or a net except as a goal (``goals``)."""
    goal_moves = GOAL_MOVES[seat] if goals else frozenset()
    for d1 in dirs:
        cur = origin
        step1 = NEXT[d1]
        for n1 in range(1, budget + 1):
            if (cur, d1) in goal_moves:
                yield (d1, n1, 0, 0, GOAL, -1, n1)
                break
            nxt = step1[cur]
            if nxt < 0 or KIND[nxt] != FIELD:
                break
            who = occ[nxt]
            if who >= 0:
                if who // 5 == seat:
                    yield (d1, n1, 0, 0, PASS, nxt, n1)
                break
            cur = nxt
            if not exact or n1 == budget:
                yield (d1, n1, 0, 0, STOP, cur, n1)
            left = budget - n1
            if left <= 0:
                continue
            for bend in (-1, 1):
                d2 = (d1 + bend) % 8
                step2 = NEXT[d2]
                c2 = cur
                for n2 in range(1, left + 1):
                    if (c2, d2) in goal_moves:
                        yield (d1, n1, bend, n2, GOAL, -1, n1 + n2)
                        break
                    nxt2 = step2[c2]
                    if nxt2 < 0 or KIND[nxt2] != FIELD:
                        break
                    who = occ[nxt2]
                    if who >= 0:
                        if who // 5 == seat:
                            yield (d1, n1, bend, n2, PASS, nxt2, n1 + n2)
                        break
                    c2 = nxt2
                    if not exact or n1 + n2 == budget:
                        yield (d1, n1, bend, n2, STOP, c2, n1 + n2)


def must_relocate(code: int, c: int) -> bool:
    """A pawn kicking from a front-of-net space it may not end in (rules :283-292)."""
    return FRONT[c] >= 0 and not (code % 5 == 0 and FRONT[c] == code // 5)


class Search:
    """Legality look-ahead for the seat to move in ``state`` (see the module docstring)."""

    def __init__(self, state: GoldenGoalState) -> None:
        self.state = state
        self.seat = state.turn_seat
        self.opp = 1 - self.seat
        self.occ = state.occ
        self.pos = state.pos
        self.moves: list[tuple[int, int, int]] = []
        self._reach: dict[tuple[object, ...], bool] = {}
        self._kick: dict[tuple[object, ...], bool] = {}
        self._k: dict[tuple[int, int], bool] = {}
        self._base: dict[int, tuple[bool, frozenset[int]]] = {}
        self._cut: dict[tuple[int, int], bool] = {}
        self.waive_path = state.relax >= 2
        self._near: list[bool] | None = None

    # -- hypothetical moves ---------------------------------------------------------------

    def move(self, code: int, to: int) -> None:
        frm = self.pos[code]
        self.occ[frm] = -1
        self.occ[to] = code
        self.pos[code] = to
        self.moves.append((code, frm, to))

    def undo(self) -> None:
        code, frm, to = self.moves.pop()
        self.occ[to] = -1
        self.occ[frm] = code
        self.pos[code] = frm

    # -- end-of-turn checks ---------------------------------------------------------------

    def static_ok(self, code: int, c: int) -> bool:
        """Pawn ``code`` may end the turn on ``c``: front of net (rules :83, :351-355) and the
        Penalty Box limit (:73, :343-347). Only the moving pawn changes, so only it is checked."""
        seat, index = divmod(code, 5)
        keeper = index == 0
        if FRONT[c] >= 0 and not (keeper and FRONT[c] == seat):
            return False
        if not keeper and BOX[c] == seat:
            pos = self.pos
            base = seat * 5
            for i in range(1, 5):
                if i != index and BOX[pos[base + i]] == seat:
                    return False
        return True

    def reach_ok(self, ball: int) -> bool:
        """With the pawns as they stand now, can an opponent walk to a ball on ``ball``
        (rules :335-339)? Breadth-first over empty field spaces until a space next to an
        opponent pawn is found (usually within a few spaces)."""
        if self.waive_path:
            return True
        key = (tuple(self.moves), ball)
        known = self._reach.get(key)
        if known is None:
            known = self._reach[key] = self._path(-1, -1, ball)[0]
        return known

    def walk_end_ok(self, code: int, c: int) -> bool:
        """The mover ``code`` may end a turn without kicking on ``c`` (the ball stays put)."""
        return self.static_ok(code, c) and self.path_ok(code, c)

    def path_ok(self, code: int, c: int) -> bool:
        """The opponent can still reach the ball with the mover standing on ``c``: one path
        from the ball to an opponent (found without the mover) is kept unless ``c`` is on it."""
        if self.waive_path:
            return True
        base = self._base.get(code)
        if base is None:
            base = self._base[code] = self._path(code, -1, self.state.ball)
        found, cells = base
        if not found:
            return False
        if c not in cells:
            return True
        key = (code, c)
        cut = self._cut.get(key)
        if cut is None:
            cut = self._cut[key] = self._path(code, c, self.state.ball)[0]
        return cut

    def _path(self, ignore: int, block: int, ball: int) -> tuple[bool, frozenset[int]]:
        """Breadth-first from ``ball`` over empty field spaces (the pawn ``ignore`` lifted off,
        the space ``block`` filled) to a space next to an opponent: (found, the path's cells)."""
        near = self._near_opponent()
        if near[ball]:
            return True, frozenset((ball,))
        occ = self.occ
        lifted = self.pos[ignore] if ignore >= 0 else -1
        parent = {ball: -1}
        queue = [ball]
        for c in queue:
            for n in FIELD_NEIGHBOURS[c]:
                if n in parent or n == block or (occ[n] >= 0 and n != lifted):
                    continue
                parent[n] = c
                if near[n]:
                    cells = []
                    while n >= 0:
                        cells.append(n)
                        n = parent[n]
                    return True, frozenset(cells)
                queue.append(n)
        return False, frozenset()

    def _near_opponent(self) -> list[bool]:
        """Spaces orthogonally next to an opponent pawn (opponents never move during a turn)."""
        near = self._near
        if near is None:
            near = self._near = [False] * len(self.occ)
            pos = self.pos
            for code in range(self.opp * 5, self.opp * 5 + 5):
                if pos[code] >= 0:
                    for _, n in WALK[pos[code]]:
                        near[n] = True
        return near

    # -- kicks ----------------------------------------------------------------------------

    def plan_ok(
        self, plan: Plan, origin: int, pips: int, free: int, visited: frozenset[tuple[int, int, int]], relocator: int
    ) -> bool:
        """Does this kick lead to a legal end of the turn (passes searched on)?"""
        outcome, end, spaces = plan[4], plan[5], plan[6]
        left = pips - max(0, spaces - free)
        if relocator >= 0 and not (outcome == GOAL and self.state_goal_ends()):
            for r in self.relocations(relocator, origin, end if outcome == STOP else -1):
                self.move(relocator, r)
                ok = self.after_kick(outcome, end, left, visited)
                self.undo()
                if ok:
                    return True
            return False
        return self.after_kick(outcome, end, left, visited)

    def state_goal_ends(self) -> bool:
        from arena.games.goldengoal.game import goal_ends_match

        return goal_ends_match(self.state, self.seat)

    def relocations(self, code: int, origin: int, ball: int) -> list[int]:
        """Empty spaces next to ``origin`` the kicker may move to for free (rules :289-292)."""
        occ = self.occ
        return [n for _, n in WALK[origin] if occ[n] < 0 and n != ball and self.static_ok(code, n)]

    def after_kick(self, outcome: int, end: int, left: int, visited: frozenset[tuple[int, int, int]]) -> bool:
        if outcome == GOAL:
            return True
        if outcome == STOP:
            return self.reach_ok(end)
        key = (self.occ[end], end, left)  # the pawn, the space it kicks from, its pips
        if key in visited:
            return False  # ruling: a kick state may not repeat within a turn
        return self.can_kick(end, left, 1, False, visited | {key}, -1)

    def can_kick(
        self, origin: int, pips: int, free: int, exact: bool, visited: frozenset[tuple[int, int, int]], relocator: int
    ) -> bool:
        memo_key = (origin, pips, free, exact, visited, relocator, tuple(self.moves))
        known = self._kick.get(memo_key)
        if known is not None:
            return known
        ok = any(
            self.plan_ok(plan, origin, pips, free, visited, relocator)
            for plan in kick_plans(self.occ, self.seat, origin, pips + free, exact, not self.state.no_goal, range(8))
        )
        self._kick[memo_key] = ok
        return ok

    # -- walks ----------------------------------------------------------------------------

    def kick_after_walk(self, code: int, pips: int) -> bool:
        """Can ``code``, having entered the ball's space with ``pips`` left, kick legally?"""
        key = (code, pips)
        known = self._k.get(key)
        if known is not None:
            return known
        ball = self.state.ball
        self.move(code, ball)
        relocator = code if must_relocate(code, ball) else -1
        if relocator < 0 and not self.static_ok(code, ball):
            ok = False
        else:
            ok = self.can_kick(ball, pips, 1, False, frozenset({(code, ball, pips)}), relocator)
        self.undo()
        self._k[key] = ok
        return ok

    def walk_ok(self, code: int, r: int, stepped: bool, short: bool) -> bool:
        """From where ``code`` stands with ``r`` pips left, does a legal turn remain? Either walk
        into the ball's space and kick, or spend every pip walking (rules :262-266) and end on a
        legal space; ``short`` (ruling 6) allows stopping early. Walks may revisit spaces
        (:146), so exactly r steps reach a space at distance d <= r of the same parity."""
        occ = self.occ
        ball = self.state.ball
        cur = self.pos[code]
        if self._quick_walk(code, cur, r, stepped, short):
            return True
        dist = {cur: 0}
        queue = [cur]
        i = 0
        while i < len(queue):
            c = queue[i]
            i += 1
            d = dist[c] + 1
            if d > r:
                continue
            for _, n in WALK[c]:
                if n not in dist and occ[n] < 0 and n != ball:
                    dist[n] = d
                    queue.append(n)
        if ball >= 0 and r >= 1:
            to_ball = min((dist[n] + 1 for _, n in WALK[ball] if n in dist), default=99)
            if to_ball <= r and self.kick_after_walk(code, r - to_ball):
                return True
        can_bounce = len(dist) > 1
        for c, d in dist.items():
            if short:
                fits = d >= 1 or stepped or (r >= 2 and can_bounce)
            else:
                fits = (r - d) % 2 == 0 and (d >= 1 or r == 0 or can_bounce)
            if fits and self.walk_end_ok(code, c):
                return True
        return False

    def _quick_walk(self, code: int, cur: int, r: int, stepped: bool, short: bool) -> bool:
        """Cheap witnesses before the full search: shuttle between ``cur`` and a free
        neighbour, ending on ``cur`` (r even) or on the neighbour (r odd)."""
        ball = self.state.ball
        free = [n for _, n in WALK[cur] if self.occ[n] < 0 and n != ball]
        if r == 0:
            cur_ok = True
        elif short:
            cur_ok = stepped or (r >= 2 and bool(free))
        else:
            cur_ok = r % 2 == 0 and bool(free)
        if cur_ok and self.walk_end_ok(code, cur):
            return True
        if r >= 1 and (r % 2 == 1 or short):
            return any(self.walk_end_ok(code, n) for n in free)
        return False

    def step_ok(self, code: int, to: int, r: int, short: bool) -> bool:
        """May ``code`` step to ``to`` (``r`` pips left before the step)?"""
        if to == self.state.ball:
            return self.kick_after_walk(code, r - 1)
        self.move(code, to)
        ok = self.walk_ok(code, r - 1, True, short)
        self.undo()
        return ok


def reach_region(occ: list[int], ball: int, seat: int) -> bool:
    """Test helper: can a pawn of ``seat`` walk to the ball through empty field spaces?"""
    seen = {ball}
    queue = [ball]
    while queue:
        c = queue.pop()
        for _, n in WALK[c]:
            who = occ[n]
            if who >= 0:
                if who // 5 == seat:
                    return True
            elif KIND[n] == FIELD and n not in seen:
                seen.add(n)
                queue.append(n)
    return False


__all__ = ["FIELD_NEIGHBOURS", "GOAL", "PASS", "STOP", "Search", "kick_plans", "must_relocate", "reach_region"]
