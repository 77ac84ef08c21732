"""Friendly Fishing — share one boat, collect the tile you land on, and leave good fishing for the
player on your left; 2–5 players (``shared/rules/friendlyfishing.md``; line references in
brackets).

Rules as implemented:

* **Tiles** [:22-30, :211-375]: 31 Basic Fish (6 Common Fish in each of 4 colours [:240] and
  7 Crayfish [:250]), 6 Special sets of 3 (Kingfish, Lunker, Dinker, Skipjack, Shiner, Junk)
  and 5 Action tiles (Swap 2 Fish, Swap 2 Tiles, Slide a Tile, Remove a Tile, Double Points).
* **Setup** [:34-86]: the Small side (8 spaces around the island) with 2 Special sets or the
  Large side (10 spaces) with 4 sets; 5 players must use the Large side [:40-47]. The chosen
  tiles are shuffled onto the water spaces, one per space; the boat starts on the Central
  Island; a random seat starts and play passes to the left (the next seat).
* **Turn** [:92-137, :379-400]: if the boat has no legal move it returns to the island; if it
  has none there either the game ends. Otherwise move the boat onto a tile on an adjacent space
  (from the island: any space next to it), or onto a Skipjack in a straight line over open
  water [:336-349], and collect the tile. An Action tile is resolved at once [:124-126, :161-207].
* **Dinker** [:310-324]: on moving onto one you may instead leave it and move on from its space.
* **Kingfish** [:276-288]: collecting the 3rd (5 players: the 2nd) wins the game at once, alone.
* **Lunker** [:292-306]: collecting one sends every other Lunker to the box.
* **Scoring** [:404-460]: Common Fish 1/3/6/10/15/21 for 1-6 of a colour (doubled for the
  Double Points colour), Crayfish 8 for the most and 4 for the second-most, Lunker 5, Dinker 2,
  Skipjack 5, Shiners -2/5/12 for 1/2/3, Junk -3, Action tiles 0. With 2 players the higher
  Fishing Score wins; with 3-5 players the Final Score is your Fishing Score plus your left
  neighbour's; the highest wins; ties share the victory.

Rulings (``shared/rules/NOTES.md`` §4.5 unless stated):

1. **Face-up tiles** (NOTES 1): the tiles are shuffled and then lie face up, so after setup the
   game has perfect information (the game declares no hidden information).
2. **Board** (NOTES 2, designed, ``components.toml``): an 8-neighbour square grid; the island is
   one space of 1 cell (Small) or 2 cells (Large), adjacent to 8 / 10 water spaces; 2 rocks per
   side block lines and slides. Every water space starts with a tile (42 Small, 48 Large).
3. **Destinations** (NOTES 2): the boat only ever moves onto a tile; open water and the island
   are never destinations (the island only by returning, ruling 5).
4. **Skipjack lines** (NOTES 5): one of the 8 grid directions from the boat's space (from the
   island: from either of its cells), over zero or more open water spaces, onto a Skipjack;
   any tile, rock, the island or the lake's edge stops the line. Lines are also open from a
   Dinker the boat stopped on.
5. **Return to the island** (NOTES 3, 12): checked at the start of a turn only; Skipjack lines
   count as legal moves; the same player then moves off the island.
6. **Dinker** (NOTES 4): leaving is offered only when another move exists from the Dinker's
   space (chains allowed); a Dinker left this turn cannot be entered again in the same turn
   (it still blocks lines), which bounds a chain by the 3 Dinkers.
7. **Lunker** (NOTES 6): the collector's own older Lunker goes to the box too: at most one
   Lunker is ever held, worth 5.
8. **Crayfish** (NOTES 7): dense ranking: every player with the most scores 8, every player
   with the next lower count scores 4; players with no Crayfish never score.
9. **Swap 2 Fish** (NOTES 8): happens only if you already hold a Basic Fish (Common or
   Crayfish) and another player does; you choose the player, the kind you take and then the
   kind you give from those you held before the swap (a like-for-like swap changes nothing).
   Otherwise the tile has no effect.
10. **Slide a Tile** (NOTES 9): the tile moves through adjacent open water spaces to any open
    water space it can reach; the boat's space, rocks and the island block. Only tiles with
    somewhere to go are offered; with none the tile has no effect.
11. **Swap 2 Tiles / Remove a Tile**: any two tiles / any tile on the board; with too few tiles
    on the board the tile has no effect.
12. **Double Points** (NOTES 10): the collector chooses the colour; it doubles that colour's
    points for everyone.
13. **Kingfish** (NOTES 11): the instant win is not shared: the collector ranks 1st and every
    other seat 2nd; the scores reported are the Final Scores at that moment, for information.
14. **Special sets** (NOTES 2; option ``specials``): ``random`` draws 2 (Small) or 4 (Large) of
    the 6 sets; a comma-separated list of set names chooses them.
15. **Board side** (option ``side``): ``auto`` is Small for 2-4 players (the shorter game) and
    Large for 5; ``small`` is refused with 5 players [:40-42].
16. **Start player** [:80-86]: a seeded random seat.
17. Every decision is asked, even with a single option (a forced move is still a move).

Decisions (kind: option ids): ``move``: ``move:<space>``; ``dinker``: ``collect``,
``move:<space>``; ``swap_fish_player``: ``seat:<seat>``; ``swap_fish_take``: ``take:<kind>``;
``swap_fish_give``: ``give:<kind>`` (kind = blue, green, yellow, red, crayfish);
``swap_tiles`` and ``swap_tiles_with``: ``tile:<space>``; ``slide_tile``: ``tile:<space>``;
``slide_to``: ``to:<space>``; ``remove_tile``: ``tile:<space>``; ``double_points``:
``colour:<colour>``.

Chance labels, in draw order: ``"specials"`` (with ``specials=random``: the shuffle of the 6 set
names of ``SPECIALS``; the first 2 / 4 are used), ``"tiles"`` (the shuffle of the tile list of
``tile_list``: the i-th tile goes on space i), ``"start"`` (pick of the first seat).

Bound: every turn collects one tile from the board and no tile ever returns to it, so a match
has at most 42 (Small) / 48 (Large) turns, each of at most 1 + 3 + 3 decisions (a move, Dinker
chains, an Action's chain).

Design (``python -m bench.design_friendlyfishing``, heuristic self-play, 200 matches a line;
the boards are designed, ``components.toml``): a match lasts 36 turns on the Small side (at
most 42) and 42 on the Large side (at most 48); 13-14% of the tiles are never reached (18% at
5 players, where Kingfish wins end 12% of the matches; 0-5.5% at 2-4 players: the heuristic
blocks them); the boat returns to the island 2.4-3.2 times a match. A Dinker is left to move
on 20-31% of the time; 0.4-1% of the Action tiles find nothing to do; Double Points goes to
every colour; holders of a Special set score from it on average Skipjack 6-9, Lunker 5, Dinker
2.4-3.3, Shiner 1.6-4, Junk -2.5 to -4 (Kingfish: no points, the instant win). Straight-line
Skipjack moves are rare (under 1% of the moves): the lake starts full, so lines open only
late. Seat advantage (win share by position after the first player): 2 players 0.57 / 0.43
(Small) and 0.555 / 0.445 (Large), the first player collecting first and never fewer tiles;
3 players 0.34 / 0.29 / 0.37 and 0.34 / 0.33 / 0.32; 4 players 0.20-0.31; 5 players
0.25 / 0.22 / 0.20 / 0.15 / 0.19. ``--alternatives`` plays the Small side on other 42-space
maps (edge notches instead of rocks, a wide 9x5 lake; 100 matches a line): the same lengths
(36 turns) and tiles left (13.5-15%); the 2-player first-player share was 0.555 on the chosen
map against 0.62 and 0.61, so the map with rocks beside the island was kept.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TypeAlias, cast

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import ConfigError, MatchConfig, OptionSpec
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result, Variant
from arena.games.v1 import friendlyfishing_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

ISLAND = -1  # the boat's position when it is on the Central Island (not a space)
TILE_KINDS = 17  # length of a per-Tile count list (index 0 = no tile)

TileT: TypeAlias = pb.Tile.ValueType  # a Tile value (plain ints at run time)
COLOURS: tuple[TileT, ...] = (pb.BLUE, pb.GREEN, pb.YELLOW, pb.RED)
BASIC: tuple[TileT, ...] = (*COLOURS, pb.CRAYFISH)
SPECIALS: dict[str, TileT] = {
    "kingfish": pb.KINGFISH,
    "lunker": pb.LUNKER,
    "dinker": pb.DINKER,
    "skipjack": pb.SKIPJACK,
    "shiner": pb.SHINER,
    "junk": pb.JUNK,
}
ACTIONS: dict[str, TileT] = {
    "swap_fish": pb.SWAP_FISH,
    "swap_tiles": pb.SWAP_TILES,
    "slide": pb.SLIDE,
    "remove": pb.REMOVE,
    "double": pb.DOUBLE,
}
assert list(SPECIALS) == _DATA["tiles"]["specials"] and list(ACTIONS) == _DATA["tiles"]["actions"]
NAMES: dict[TileT, str] = {
    **dict(zip(COLOURS, _DATA["colours"]["names"], strict=True)),
    pb.CRAYFISH: "crayfish",
    **{tile: name for name, tile in SPECIALS.items()},
    **{tile: name for name, tile in ACTIONS.items()},
}
BY_NAME: dict[str, TileT] = {name: tile for tile, name in NAMES.items()}

_SCORING = _DATA["scoring"]
COMMON_POINTS: tuple[int, ...] = tuple(_SCORING["common"])  # by count of one colour [:224-238]
CRAYFISH_POINTS: tuple[int, ...] = tuple(_SCORING["crayfish"])  # [:254-260]
SHINER_POINTS: tuple[int, ...] = tuple(_SCORING["shiner"])  # [:357-365]
FLAT_POINTS: dict[int, int] = {  # points per tile [:304-306, :312-314, :330-332, :373-375]
    pb.LUNKER: _SCORING["lunker"],
    pb.DINKER: _SCORING["dinker"],
    pb.SKIPJACK: _SCORING["skipjack"],
    pb.JUNK: _SCORING["junk"],
}
KINGFISH_TO_WIN = int(_SCORING["kingfish_to_win"])  # [:280-286]
KINGFISH_TO_WIN_FIVE = int(_SCORING["kingfish_to_win_five"])

DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
SIDES = ("small", "large")


# --------------------------------------------------------------------------------------------
# The board (designed data, components.toml)


@dataclass(frozen=True)
class Board:
    """One side of the board: the water spaces of a grid map and their geometry."""

    side: str
    rows: int
    cols: int
    specials: int
    cells: tuple[tuple[int, int], ...]
    """(row, col) of each space, spaces numbered in reading order."""
    island: tuple[int, ...]
    """The island's cells as row * cols + col."""
    rocks: tuple[int, ...]
    neighbours: tuple[tuple[int, ...], ...]
    island_neighbours: tuple[int, ...]
    rays: tuple[tuple[tuple[int, ...], ...], ...]
    """Per space, the water spaces in each grid direction up to the first non-water cell."""
    island_rays: tuple[tuple[int, ...], ...]

    @property
    def size(self) -> int:
        return len(self.cells)


def build_board(side: str, rows: Sequence[str], specials: int) -> Board:
    """The geometry of a map: "~" water space, "I" island cell, "^" rock, " " outside."""
    height, width = len(rows), max(len(r) for r in rows)
    grid = [r.ljust(width) for r in rows]
    cells = tuple((r, c) for r in range(height) for c in range(width) if grid[r][c] == "~")
    index = {cell: i for i, cell in enumerate(cells)}
    island = [(r, c) for r in range(height) for c in range(width) if grid[r][c] == "I"]
    rocks = [(r, c) for r in range(height) for c in range(width) if grid[r][c] == "^"]

    def around(r: int, c: int) -> tuple[int, ...]:
        return tuple(index[(r + dr, c + dc)] for dr, dc in DIRECTIONS if (r + dr, c + dc) in index)

    def rays_from(r: int, c: int) -> tuple[tuple[int, ...], ...]:
        out = []
        for dr, dc in DIRECTIONS:
            ray, (y, x) = [], (r + dr, c + dc)
            while (y, x) in index:
                ray.append(index[(y, x)])
                y, x = y + dr, x + dc
            if ray:
                out.append(tuple(ray))
        return tuple(out)

    return Board(
        side=side,
        rows=height,
        cols=width,
        specials=specials,
        cells=cells,
        island=tuple(r * width + c for r, c in island),
        rocks=tuple(r * width + c for r, c in rocks),
        neighbours=tuple(around(r, c) for r, c in cells),
        island_neighbours=tuple(sorted({s for r, c in island for s in around(r, c)})),
        rays=tuple(rays_from(r, c) for r, c in cells),
        island_rays=tuple(ray for r, c in island for ray in rays_from(r, c)),
    )


BOARDS: dict[str, Board] = {
    side: build_board(side, _DATA["boards"][side]["map"], int(_DATA["boards"][side]["specials"])) for side in SIDES
}


def board_view(board: Board) -> pb.Observation:
    """The part of an observation that never changes: the side and its geometry."""
    near = set(board.island_neighbours)
    return pb.Observation(
        side=pb.SMALL if board.side == "small" else pb.LARGE,
        rows=board.rows,
        cols=board.cols,
        island_cells=board.island,
        rock_cells=board.rocks,
        spaces=[
            pb.Space(row=r, col=c, neighbours=board.neighbours[s], by_island=s in near)
            for s, (r, c) in enumerate(board.cells)
        ],
    )


_BOARD_VIEWS = {side: board_view(board) for side, board in BOARDS.items()}


def draw_board(board: Board) -> str:
    """The board as text: space numbers, ``II`` island cells, ``^^`` rocks (the drawing in
    rules.md is this text; a test keeps them equal)."""
    index = {cell: i for i, cell in enumerate(board.cells)}
    lines = []
    for r in range(board.rows):
        row = ""
        for c in range(board.cols):
            cell = r * board.cols + c
            if (r, c) in index:
                row += f"{index[(r, c)]:>3}"
            elif cell in board.island:
                row += " II"
            elif cell in board.rocks:
                row += " ^^"
            else:
                row += "   "
        lines.append(row.rstrip())
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Tiles and scoring (pure)


def tile_list(specials: Sequence[TileT]) -> list[TileT]:
    """The tiles of a game in a fixed order: Common Fish by colour, Crayfish, the chosen
    Special sets, the Action tiles [:63-66]."""
    per, sets = int(_DATA["tiles"]["common_per_colour"]), int(_DATA["tiles"]["special_set"])
    tiles = [colour for colour in COLOURS for _ in range(per)]
    tiles += [pb.CRAYFISH] * int(_DATA["tiles"]["crayfish"])
    tiles += [special for special in specials for _ in range(sets)]
    tiles += list(ACTIONS.values())
    return tiles


def crayfish_points(counts: Sequence[int]) -> list[int]:
    """Most Crayfish 8, the next lower count 4, ties all score (ruling 8) [:254-264]."""
    distinct = sorted({c for c in counts if c > 0}, reverse=True)
    award = dict(zip(distinct, CRAYFISH_POINTS, strict=False))
    return [award.get(c, 0) for c in counts]


def fishing_scores(collections: Sequence[Sequence[int]], double: int) -> list[int]:
    """Every seat's Fishing Score [:412-422]."""
    crayfish = crayfish_points([c[pb.CRAYFISH] for c in collections])
    out = []
    for held, cray in zip(collections, crayfish, strict=True):
        total = cray + SHINER_POINTS[held[pb.SHINER]]
        for colour in COLOURS:
            total += COMMON_POINTS[held[colour]] * (2 if colour == double else 1)
        for tile, points in FLAT_POINTS.items():
            total += points * held[tile]
        out.append(total)
    return out


def final_scores(fishing: Sequence[int]) -> list[int]:
    """2 players: the Fishing Scores; 3-5: own plus the left neighbour's [:426-450]."""
    n = len(fishing)
    if n == 2:
        return list(fishing)
    return [fishing[s] + fishing[(s + 1) % n] for s in range(n)]


def left_of(seat: int, players: int) -> int:
    """The player on your left: the next seat, to whom play passes."""
    return (seat + 1) % players


# --------------------------------------------------------------------------------------------
# Options (cached: an Option and its Action are immutable, and a match builds the same ones
# again and again)

COLLECT = Option("collect", "collect the Dinker", pb.Action(kind=pb.COLLECT))


def space_text(space: int, tile: TileT) -> str:
    return f"space {space} ({NAMES[tile]})" if tile else f"space {space}"


@cache
def move_option(space: int, tile: TileT, line: bool) -> Option:
    how = " in a straight line" if line else ""
    return Option(f"move:{space}", f"move{how} to {space_text(space, tile)}", pb.Action(kind=pb.MOVE, space=space))


@cache
def tile_option(space: int, tile: TileT, verb: str) -> Option:
    return Option(f"tile:{space}", f"{verb} the {NAMES[tile]} on space {space}", pb.Action(kind=pb.CHOOSE, space=space))


# --------------------------------------------------------------------------------------------
# State


@dataclass
class FishingState(MatchState):
    side: str = "small"
    specials: tuple[TileT, ...] = ()
    tiles: list[TileT] = field(default_factory=list)
    """The tile on each space (0 = open water)."""
    boat: int = ISLAND
    to_act: int = 0
    turn: int = 1
    phase: pb.Phase.ValueType = pb.PHASE_MOVE
    left_dinkers: list[int] = field(default_factory=list)
    collections: list[list[int]] = field(default_factory=list)
    """Counts per Tile value of each seat's collected tiles."""
    box: list[int] = field(default_factory=lambda: [0] * TILE_KINDS)
    double: TileT = pb.TILE_NONE
    swap_seat: int = -1
    swap_taken: TileT = pb.TILE_NONE
    chosen: int = -1
    kingfish_winner: int = -1

    @property
    def board(self) -> Board:
        return BOARDS[self.side]


def legal_moves(board: Board, tiles: Sequence[int], boat: int, closed: Sequence[int] = ()) -> list[tuple[int, bool]]:
    """(space, straight line?) of every tile the boat may move onto from ``boat``: adjacent
    tiles, and Skipjacks at the end of a line over open water (rulings 3, 4, 6)."""
    if boat == ISLAND:
        adjacent, rays = board.island_neighbours, board.island_rays
    else:
        adjacent, rays = board.neighbours[boat], board.rays[boat]
    out = {s: False for s in adjacent if tiles[s] and s not in closed}
    if pb.SKIPJACK not in tiles:
        return sorted(out.items())
    for ray in rays:
        for s in ray:
            tile = tiles[s]
            if tile:
                if tile == pb.SKIPJACK and s not in out and s not in closed:
                    out[s] = True
                break
    return sorted(out.items())


def slide_targets(board: Board, tiles: Sequence[int], boat: int, space: int) -> list[int]:
    """Open water spaces a tile on ``space`` can slide to (ruling 10)."""
    seen = {space}
    frontier = [space]
    while frontier:
        current = frontier.pop()
        for n in board.neighbours[current]:
            if n not in seen and not tiles[n] and n != boat:
                seen.add(n)
                frontier.append(n)
    seen.discard(space)
    return sorted(seen)


def can_slide(board: Board, tiles: Sequence[int], boat: int, space: int) -> bool:
    """A tile can slide when an open water space other than the boat's touches it."""
    return any(not tiles[n] and n != boat for n in board.neighbours[space])


def basics_held(held: Sequence[int]) -> list[TileT]:
    return [kind for kind in BASIC if held[kind]]


def kingfish_to_win(players: int) -> int:
    return KINGFISH_TO_WIN_FIVE if players == 5 else KINGFISH_TO_WIN


def parse_specials(text: str) -> tuple[TileT, ...] | None:
    """The sets named in the ``specials`` option in canonical order (None for ``random``)."""
    if text == "random":
        return None
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in SPECIALS]
    if unknown or len(set(names)) != len(names):
        raise ConfigError(
            f"friendlyfishing: specials={text!r}: expected 'random' or distinct names among {', '.join(SPECIALS)}"
        )
    return tuple(tile for name, tile in SPECIALS.items() if name in names)


# --------------------------------------------------------------------------------------------
# The game


class FriendlyFishing(Game[FishingState]):
    meta = GameMeta(
        id="friendlyfishing",
        name="Friendly Fishing",
        min_players=2,
        max_players=5,
        version="1.1",  # 1.1: the "setup" event's detail (side, Special sets, tiles placed)
        options=(
            OptionSpec(
                "side",
                "auto",
                "board side: small island (2 Special sets) or large (4); auto = small for 2-4 players, large for 5",
                choices=("auto", "small", "large"),
            ),
            OptionSpec(
                "specials",
                "random",
                "Special sets in play: random, or 2 (small) / 4 (large) names among "
                "kingfish, lunker, dinker, skipjack, shiner, junk, comma-separated",
            ),
        ),
        variants=(
            Variant("small", "Small Central Island: the shorter game, 2 Special sets", {"side": "small"}, (2, 3, 4)),
            Variant("large", "Large Central Island: the longer game, 4 Special sets", {"side": "large"}),
        ),
        hidden_information=False,  # the tiles lie face up once placed (ruling 1)
        summary="Share one boat: move it onto a tile and collect it; with 3-5 players your left "
        "neighbour's Fishing Score is added to yours.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    @staticmethod
    def side_of(config: MatchConfig) -> str:
        side = str(config["side"])
        if side == "auto":
            return "large" if config.players == 5 else "small"
        return side

    def check_config(self, config: MatchConfig) -> None:
        side = self.side_of(config)
        if side == "small" and config.players == 5:
            raise ConfigError("friendlyfishing: 5 players use the large island side, not the small one")
        chosen = parse_specials(str(config["specials"]))
        wanted = BOARDS[side].specials
        if chosen is not None and len(chosen) != wanted:
            raise ConfigError(f"friendlyfishing: the {side} side uses {wanted} Special sets, not {len(chosen)}")

    def setup(self, config: MatchConfig, chance: Chance) -> FishingState:
        side = self.side_of(config)
        board = BOARDS[side]
        specials = parse_specials(str(config["specials"]))
        if specials is None:
            drawn = chance.shuffled(list(SPECIALS), "specials")[: board.specials]
            specials = tuple(tile for name, tile in SPECIALS.items() if name in drawn)
        tiles = chance.shuffled(tile_list(specials), "tiles")
        start = chance.pick(range(config.players), "start")
        state = FishingState(
            config=config,
            chance=chance,
            side=side,
            specials=specials,
            tiles=tiles,
            to_act=start,
            collections=[[0] * TILE_KINDS for _ in range(config.players)],
        )
        names = ", ".join(NAMES[s] for s in specials)
        state.log.public(
            CHANCE_SEAT,
            "setup",
            f"{side} island side, {board.size} tiles placed face up; Special sets: {names}",
            pb.Detail(
                seat=CHANCE_SEAT,
                side=pb.SMALL if board.side == "small" else pb.LARGE,
                specials=specials,
                tiles=tiles,
            ),
        )
        state.log.public(CHANCE_SEAT, "start", f"seat {start} starts", pb.Detail(seat=start))
        self._start_turn(state)
        return state

    # -- decisions ------------------------------------------------------------------------

    def decisions(self, state: FishingState) -> Iterable[Decision]:
        phase, seat, board, tiles = state.phase, state.to_act, state.board, state.tiles
        if phase == pb.PHASE_OVER:
            return ()
        if phase == pb.PHASE_MOVE:
            moves = legal_moves(board, tiles, state.boat)
            return (Decision(seat, "move", tuple(move_option(s, tiles[s], line) for s, line in moves)),)
        if phase == pb.PHASE_DINKER:
            moves = legal_moves(board, tiles, state.boat, [*state.left_dinkers, state.boat])
            options = (COLLECT, *(move_option(s, tiles[s], line) for s, line in moves))
            return (Decision(seat, "dinker", options),)
        return (self._action_decision(state, seat),)

    def _action_decision(self, state: FishingState, seat: int) -> Decision:
        phase, tiles = state.phase, state.tiles
        on_board = [s for s, t in enumerate(tiles) if t]
        if phase == pb.PHASE_SWAP_FISH_PLAYER:
            seats = self._swap_partners(state, seat)
            options = tuple(
                Option(f"seat:{s}", f"swap a Basic Fish with seat {s}", pb.Action(kind=pb.SEAT, seat=s)) for s in seats
            )
            return Decision(seat, "swap_fish_player", options)
        if phase == pb.PHASE_SWAP_FISH_TAKE:
            kinds = basics_held(state.collections[state.swap_seat])
            options = tuple(
                Option(
                    f"take:{NAMES[k]}",
                    f"take a {NAMES[k]} from seat {state.swap_seat}",
                    pb.Action(kind=pb.TAKE, tile=k),
                )
                for k in kinds
            )
            return Decision(seat, "swap_fish_take", options)
        if phase == pb.PHASE_SWAP_FISH_GIVE:
            held = list(state.collections[seat])
            held[state.swap_taken] -= 1  # give from what you held before the swap (ruling 9)
            options = tuple(
                Option(
                    f"give:{NAMES[k]}", f"give a {NAMES[k]} to seat {state.swap_seat}", pb.Action(kind=pb.GIVE, tile=k)
                )
                for k in basics_held(held)
            )
            return Decision(seat, "swap_fish_give", options)
        if phase == pb.PHASE_SWAP_TILES:
            return Decision(seat, "swap_tiles", tuple(tile_option(s, tiles[s], "swap") for s in on_board))
        if phase == pb.PHASE_SWAP_TILES_WITH:
            others = [s for s in on_board if s != state.chosen]
            return Decision(seat, "swap_tiles_with", tuple(tile_option(s, tiles[s], "swap it with") for s in others))
        if phase == pb.PHASE_SLIDE_TILE:
            movable = [s for s in on_board if can_slide(state.board, tiles, state.boat, s)]
            return Decision(seat, "slide_tile", tuple(tile_option(s, tiles[s], "slide") for s in movable))
        if phase == pb.PHASE_SLIDE_TO:
            name = NAMES[tiles[state.chosen]]
            options = tuple(
                Option(f"to:{s}", f"slide the {name} to space {s}", pb.Action(kind=pb.SLIDE_TO, space=s))
                for s in slide_targets(state.board, tiles, state.boat, state.chosen)
            )
            return Decision(seat, "slide_to", options)
        if phase == pb.PHASE_REMOVE:
            return Decision(seat, "remove_tile", tuple(tile_option(s, tiles[s], "remove") for s in on_board))
        assert phase == pb.PHASE_DOUBLE
        options = tuple(
            Option(f"colour:{NAMES[c]}", f"double the {NAMES[c]} fish", pb.Action(kind=pb.COLOUR, tile=c))
            for c in COLOURS
        )
        return Decision(seat, "double_points", options)

    @staticmethod
    def _swap_partners(state: FishingState, seat: int) -> list[int]:
        if not basics_held(state.collections[seat]):
            return []
        return [s for s in range(state.players) if s != seat and basics_held(state.collections[s])]

    # -- rules ----------------------------------------------------------------------------

    def resolve(self, state: FishingState, chosen: Mapping[int, Option]) -> None:
        seat = state.to_act
        action = cast(pb.Action, chosen[seat].action)
        kind = action.kind
        if kind == pb.MOVE:
            if state.phase == pb.PHASE_DINKER:
                state.left_dinkers.append(state.boat)
            self._move(state, seat, action.space)
        elif kind == pb.COLLECT:
            self._collect(state, seat)
        elif kind == pb.SEAT:
            state.swap_seat = action.seat
            state.phase = pb.PHASE_SWAP_FISH_TAKE
        elif kind == pb.TAKE:
            state.swap_taken = action.tile
            state.collections[state.swap_seat][action.tile] -= 1
            state.collections[seat][action.tile] += 1
            state.phase = pb.PHASE_SWAP_FISH_GIVE
        elif kind == pb.GIVE:
            self._swap_fish(state, seat, action.tile)
        elif kind == pb.CHOOSE:
            self._choose(state, seat, action.space)
        elif kind == pb.SLIDE_TO:
            self._slide(state, seat, action.space)
        elif kind == pb.COLOUR:
            state.double = action.tile
            state.log.public(
                seat, "double", f"doubles the {NAMES[action.tile]} fish", pb.Detail(seat=seat, tile=action.tile)
            )
            self._end_turn(state, seat)

    def _start_turn(self, state: FishingState) -> None:
        """Check for a legal move, return to the island, or end the game [:381-400]."""
        state.left_dinkers = []
        state.phase = pb.PHASE_MOVE
        board, tiles = state.board, state.tiles
        if legal_moves(board, tiles, state.boat):
            return
        if state.boat != ISLAND:
            state.log.public(
                state.to_act,
                "return",
                "the boat has no move: it returns to the Central Island",
                pb.Detail(seat=state.to_act),
            )
            state.boat = ISLAND
            if legal_moves(board, tiles, ISLAND):
                return
        self._game_over(state, "the boat cannot move from the Central Island")

    def _move(self, state: FishingState, seat: int, space: int) -> None:
        origin, tile = state.boat, state.tiles[space]
        adjacent = state.board.island_neighbours if origin == ISLAND else state.board.neighbours[origin]
        line = space not in adjacent
        state.boat = space
        where = "the island" if origin == ISLAND else f"space {origin}"
        how = " in a straight line" if line else ""
        state.log.public(
            seat,
            "move",
            f"moves the boat{how} from {where} to {space_text(space, tile)}",
            pb.Detail(seat=seat, tile=tile, from_space=origin, to_space=space, line=line),
        )
        closed = [*state.left_dinkers, space]
        if tile == pb.DINKER and legal_moves(state.board, state.tiles, space, closed):
            state.phase = pb.PHASE_DINKER
        else:
            self._collect(state, seat)

    def _collect(self, state: FishingState, seat: int) -> None:
        space = state.boat
        tile = state.tiles[space]
        state.tiles[space] = pb.TILE_NONE
        held = state.collections[seat]
        held[tile] += 1
        state.log.public(
            seat,
            "collect",
            f"collects the {NAMES[tile]} from space {space}",
            pb.Detail(seat=seat, tile=tile, to_space=space),
        )
        if tile == pb.KINGFISH and held[pb.KINGFISH] >= kingfish_to_win(state.players):
            state.kingfish_winner = seat
            state.log.public(
                seat, "kingfish", f"seat {seat} has {held[pb.KINGFISH]} Kingfish and wins", pb.Detail(seat=seat)
            )
            self._game_over(state, f"seat {seat} wins with the Kingfish")
            return
        if tile == pb.LUNKER:
            self._discard_lunkers(state, seat)
        if tile in ACTIONS.values():
            self._start_action(state, seat, tile)
        else:
            self._end_turn(state, seat)

    def _discard_lunkers(self, state: FishingState, seat: int) -> None:
        """Only the Lunker just collected stays (ruling 7) [:296-302]."""
        for other, held in enumerate(state.collections):
            extra = held[pb.LUNKER] - (1 if other == seat else 0)
            if extra > 0:
                held[pb.LUNKER] -= extra
                state.box[pb.LUNKER] += extra
                whose = "its older" if other == seat else f"seat {other}'s"
                state.log.public(
                    seat,
                    "discard",
                    f"{whose} Lunker goes to the box",
                    pb.Detail(seat=seat, tile=pb.LUNKER, other_seat=other),
                )

    def _start_action(self, state: FishingState, seat: int, tile: TileT) -> None:
        on_board = sum(1 for t in state.tiles if t)
        if tile == pb.SWAP_FISH:
            possible = bool(self._swap_partners(state, seat))
            phase = pb.PHASE_SWAP_FISH_PLAYER
        elif tile == pb.SWAP_TILES:
            possible, phase = on_board >= 2, pb.PHASE_SWAP_TILES
        elif tile == pb.SLIDE:
            tiles = state.tiles
            possible = any(t and can_slide(state.board, tiles, state.boat, s) for s, t in enumerate(tiles))
            phase = pb.PHASE_SLIDE_TILE
        elif tile == pb.REMOVE:
            possible, phase = on_board >= 1, pb.PHASE_REMOVE
        else:
            possible, phase = True, pb.PHASE_DOUBLE
        if possible:
            state.phase = phase
            return
        state.log.public(
            seat, "no_effect", f"the {NAMES[tile]} tile has no possible effect", pb.Detail(seat=seat, tile=tile)
        )
        self._end_turn(state, seat)

    def _swap_fish(self, state: FishingState, seat: int, given: TileT) -> None:
        other, taken = state.swap_seat, state.swap_taken
        state.collections[seat][given] -= 1
        state.collections[other][given] += 1
        state.log.public(
            seat,
            "swap_fish",
            f"takes a {NAMES[taken]} from seat {other} and gives a {NAMES[given]}",
            pb.Detail(seat=seat, tile=taken, other_seat=other, given=given),
        )
        self._end_turn(state, seat)

    def _choose(self, state: FishingState, seat: int, space: int) -> None:
        tiles = state.tiles
        if state.phase == pb.PHASE_SWAP_TILES:
            state.chosen, state.phase = space, pb.PHASE_SWAP_TILES_WITH
        elif state.phase == pb.PHASE_SLIDE_TILE:
            state.chosen, state.phase = space, pb.PHASE_SLIDE_TO
        elif state.phase == pb.PHASE_SWAP_TILES_WITH:
            first = state.chosen
            a, b = tiles[first], tiles[space]
            tiles[first], tiles[space] = b, a
            state.log.public(
                seat,
                "swap_tiles",
                f"swaps the {NAMES[a]} on space {first} with the {NAMES[b]} on space {space}",
                pb.Detail(seat=seat, tile=a, from_space=first, to_space=space, given=b),
            )
            self._end_turn(state, seat)
        else:
            tile = tiles[space]
            tiles[space] = pb.TILE_NONE
            state.box[tile] += 1
            state.log.public(
                seat,
                "remove",
                f"returns the {NAMES[tile]} on space {space} to the box",
                pb.Detail(seat=seat, tile=tile, from_space=space),
            )
            self._end_turn(state, seat)

    def _slide(self, state: FishingState, seat: int, target: int) -> None:
        origin = state.chosen
        tile = state.tiles[origin]
        state.tiles[origin], state.tiles[target] = pb.TILE_NONE, tile
        state.log.public(
            seat,
            "slide",
            f"slides the {NAMES[tile]} from space {origin} to space {target}",
            pb.Detail(seat=seat, tile=tile, from_space=origin, to_space=target),
        )
        self._end_turn(state, seat)

    def _end_turn(self, state: FishingState, seat: int) -> None:
        state.swap_seat, state.swap_taken, state.chosen = -1, pb.TILE_NONE, -1
        state.to_act = left_of(seat, state.players)
        state.turn += 1
        self._start_turn(state)

    def _game_over(self, state: FishingState, why: str) -> None:
        state.phase = pb.PHASE_OVER
        scores = final_scores(fishing_scores(state.collections, state.double))
        shown = ", ".join(f"seat {s} {score}" for s, score in enumerate(scores))
        state.log.public(CHANCE_SEAT, "end", f"game over ({why}): {shown}", pb.Detail(seat=CHANCE_SEAT, scores=scores))

    # -- views ----------------------------------------------------------------------------

    def observation(self, state: FishingState, viewer: int) -> pb.Observation:
        tiles = state.tiles
        fishing = fishing_scores(state.collections, state.double)
        finals = final_scores(fishing)
        on_board = [0] * TILE_KINDS
        for tile in tiles:
            on_board[tile] += 1
        on_board[pb.TILE_NONE] = 0
        obs = pb.Observation()
        obs.CopyFrom(_BOARD_VIEWS[state.side])  # the fixed geometry, built once per side
        for space, tile in zip(obs.spaces, tiles, strict=True):
            space.tile = tile
        obs.seat = max(viewer, 0)
        obs.spectator = viewer == SPECTATOR
        obs.players = state.players
        obs.specials.extend(state.specials)
        obs.boat = state.boat
        obs.left_dinkers.extend(state.left_dinkers)
        obs.to_act = state.to_act
        obs.phase = state.phase
        for held, f, t in zip(state.collections, fishing, finals, strict=True):
            obs.collections.add(counts=held, fishing_score=f, final_score=t)
        obs.double_colour = state.double
        obs.box.extend(state.box)
        obs.on_board.extend(on_board)
        obs.turn = state.turn
        obs.swap_seat = state.swap_seat
        obs.swap_taken = state.swap_taken
        obs.chosen_space = state.chosen
        obs.kingfish_to_win = kingfish_to_win(state.players)
        obs.kingfish_winner = state.kingfish_winner
        return obs

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> FishingState:
        """Nothing is hidden and nothing is left to shuffle (every tile lies face up on its
        space, ruling 1): the observation is the whole state; the world's chance is fresh."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        world = FishingState(
            config=config,
            chance=chance.fork(),
            side=self.side_of(config),
            specials=tuple(obs.specials),
            tiles=[space.tile for space in obs.spaces],
            boat=obs.boat,
            to_act=obs.to_act,
            turn=obs.turn,
            phase=obs.phase,
            left_dinkers=list(obs.left_dinkers),
            collections=[list(c.counts) for c in obs.collections],
            box=list(obs.box),
            double=obs.double_colour,
            swap_seat=obs.swap_seat,
            swap_taken=obs.swap_taken,
            chosen=obs.chosen_space,
            kingfish_winner=obs.kingfish_winner,
        )
        self.refresh(world)
        return world

    def score(self, state: FishingState) -> Result:
        scores = final_scores(fishing_scores(state.collections, state.double))
        winner = state.kingfish_winner
        if winner >= 0:
            ranks = tuple(1 if s == winner else 2 for s in range(state.players))
            return Result(tuple(scores), ranks, f"winner: seat {winner} (Kingfish)")
        best = max(scores)
        winners = [s for s, score in enumerate(scores) if score == best]
        summary = f"winner{'s' if len(winners) > 1 else ''}: seat {', '.join(map(str, winners))} ({best} points)"
        return Result.ranked(scores, scores, summary)


GAME = FriendlyFishing()
