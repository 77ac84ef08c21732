"""The Golden Goal field (arena edition, ``components.toml``): cells, regions and move tables.

Cells are ints ``y * COLS + x`` over the grid with its out-of-bounds strip: x 0..9 (columns
a..j; a and j out of bounds), y 0..15 (rows 0 and 15 out of bounds, the nets behind the goal
mouth). Seat 0 defends the net at row 0 and attacks towards row 15.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

WIDTH: int = DATA["field"]["width"]
LENGTH: int = DATA["field"]["length"]
COLS = WIDTH + 2
ROWS = LENGTH + 2
CELLS = COLS * ROWS
LETTERS = "abcdefghijklmnopqrstuvwxyz"[:COLS]

FIELD, OUT, NET, NONE = 1, 2, 3, 0  # kinds of cell: in bounds, out of bounds, a net

# Directions: index 0..7 = n, ne, e, se, s, sw, w, nw (clockwise); proto Direction = index + 1.
DIR_NAMES = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
DELTAS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
ORTHOGONAL = (0, 2, 4, 6)


def cell(x: int, y: int) -> int:
    return y * COLS + x


def xy(c: int) -> tuple[int, int]:
    return c % COLS, c // COLS


def name(c: int) -> str:
    x, y = xy(c)
    return f"{LETTERS[x]}{y}"


def parse(text: str) -> int:
    return cell(LETTERS.index(text[0]), int(text[1:]))


def mirror(c: int) -> int:
    """The same space seen from the other end (seat 1's half of the Center Circle)."""
    x, y = xy(c)
    return cell(COLS - 1 - x, ROWS - 1 - y)


GOAL_X: tuple[int, ...] = tuple(LETTERS.index(g) for g in DATA["field"]["goal_columns"])
BOX_X = (LETTERS.index(DATA["field"]["box_columns"][0]), LETTERS.index(DATA["field"]["box_columns"][1]))
BOX_DEPTH: int = DATA["field"]["box_depth"]
END_ROW = (1, LENGTH)  # the end row each seat defends (its front-of-net spaces are there)
NET_ROW = (0, LENGTH + 1)
HALF_ROWS = ((1, LENGTH // 2), (LENGTH // 2 + 1, LENGTH))  # rows of each seat's half

KIND: list[int] = [NONE] * CELLS
FRONT: list[int] = [-1] * CELLS  # the seat whose net this space is in front of
BOX: list[int] = [-1] * CELLS  # the seat whose Penalty Box this space is in
HALF: list[int] = [-1] * CELLS  # the seat whose half this field space is on
CIRCLE: list[bool] = [False] * CELLS
for _y in range(ROWS):
    for _x in range(COLS):
        _c = cell(_x, _y)
        if _y in NET_ROW and _x in GOAL_X:
            KIND[_c] = NET
        elif 1 <= _x <= WIDTH and 1 <= _y <= LENGTH:
            KIND[_c] = FIELD
            HALF[_c] = 0 if _y <= HALF_ROWS[0][1] else 1
            for _seat in (0, 1):
                if _y == END_ROW[_seat] and _x in GOAL_X:
                    FRONT[_c] = _seat
                if BOX_X[0] <= _x <= BOX_X[1] and abs(_y - END_ROW[_seat]) < BOX_DEPTH:
                    BOX[_c] = _seat
        else:
            KIND[_c] = OUT
for _name in DATA["field"]["circle"]:
    CIRCLE[parse(_name)] = CIRCLE[mirror(parse(_name))] = True

CIRCLE_CELLS: tuple[int, ...] = tuple(c for c in range(CELLS) if CIRCLE[c])
FRONT_CELLS: tuple[tuple[int, ...], ...] = tuple(tuple(c for c in range(CELLS) if FRONT[c] == seat) for seat in (0, 1))
SPACES: tuple[int, ...] = tuple(c for c in range(CELLS) if KIND[c] in (FIELD, OUT))


def _step(c: int, d: int) -> int:
    x, y = xy(c)
    dx, dy = DELTAS[d]
    nx, ny = x + dx, y + dy
    return cell(nx, ny) if 0 <= nx < COLS and 0 <= ny < ROWS else -1


NEXT: tuple[tuple[int, ...], ...] = tuple(tuple(_step(c, d) for c in range(CELLS)) for d in range(8))
"""NEXT[d][c]: the cell one step from c towards d (-1 off the grid)."""

WALK: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((d, n) for d in ORTHOGONAL if (n := NEXT[d][c]) >= 0 and KIND[n] in (FIELD, OUT)) for c in range(CELLS)
)
"""WALK[c]: (direction, cell) of the spaces a player may step to from c (nets are not spaces)."""

FIELD_NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(n for _, n in WALK[c] if KIND[n] == FIELD) for c in range(CELLS)
)


def _goal_moves(attacker: int) -> frozenset[tuple[int, int]]:
    """(cell, direction) pairs that put the ball into the net ``attacker`` attacks: from a
    front-of-net space across the end line, or diagonally through a post from the space beside
    the net (rules :298-313; field design in components.toml)."""
    defender = 1 - attacker
    row = END_ROW[defender]
    forward = 0 if attacker == 0 else 4  # n or s
    moves = set()
    left, right = GOAL_X[0], GOAL_X[-1]
    for x in GOAL_X:
        for d in (forward, (forward + 1) % 8, (forward - 1) % 8):
            moves.add((cell(x, row), d))
    # Beside the net: only the diagonal through the post.
    towards_right = 1 if attacker == 0 else 3  # ne / se
    towards_left = 7 if attacker == 0 else 5  # nw / sw
    moves.add((cell(left - 1, row), towards_right))
    moves.add((cell(right + 1, row), towards_left))
    return frozenset(moves)


GOAL_MOVES: tuple[frozenset[tuple[int, int]], ...] = (_goal_moves(0), _goal_moves(1))


def drawing() -> str:
    """The field as text, seat 1's net at the top (rules.md embeds it; a test compares)."""
    lines = ["    " + " ".join(LETTERS)]
    for y in range(ROWS - 1, -1, -1):
        row = []
        for x in range(COLS):
            c = cell(x, y)
            if KIND[c] == NET:
                mark = "#"
            elif KIND[c] == OUT:
                mark = ":"
            elif FRONT[c] >= 0:
                mark = "F"
            elif CIRCLE[c]:
                mark = "o"
            elif BOX[c] >= 0:
                mark = "+"
            else:
                mark = "."
            row.append(mark)
        lines.append(f"{y:>3} " + " ".join(row))
        if y == HALF_ROWS[1][0]:
            lines.append("    " + "-" * (2 * COLS - 1) + "  centre line")
    return "\n".join(lines)
