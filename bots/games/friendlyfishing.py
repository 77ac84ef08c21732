"""Built-in bots for Friendly Fishing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.friendlyfishing.game import (
    BASIC,
    BOARDS,
    COLOURS,
    ISLAND,
    TILE_KINDS,
    fishing_scores,
    left_of,
    legal_moves,
    slide_targets,
)
from arena.games.v1 import friendlyfishing_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn, TypedOption

Collections = list[list[int]]
WIN = 1000.0  # utility of a Kingfish win (and minus it for a Kingfish loss)
ACTION_BONUS = 1.0  # a board-changing Action tile is worth a little: it is a choice later


class Position:
    """What the bot reasons about: the board, the boat and every collection (from the
    observation alone: after setup nothing is hidden)."""

    def __init__(self, obs: pb.Observation) -> None:
        self.board = BOARDS["small" if obs.side == pb.SMALL else "large"]
        self.tiles: list[int] = [int(space.tile) for space in obs.spaces]
        self.boat = obs.boat
        self.colls: Collections = [list(c.counts) for c in obs.collections]
        self.double = int(obs.double_colour)
        self.players = obs.players
        self.seat = obs.seat
        self.need = obs.kingfish_to_win
        self.left = [0] * TILE_KINDS
        for tile in self.tiles:
            self.left[tile] += 1


class FisherBot(Bot):
    """Greedy with one reply of look-ahead, playing for the Final Score margin.

    * A position is worth my Final Score minus the best other Final Score (so with 3-5 players
      what the left neighbour collects counts for me), plus ``potential`` times the hope of
      sets still open on the board (a lone Shiner, Kingfish on the way). A completed Kingfish
      set is a win or a loss outright.
    * A move collects its tile (an Action tile at its best use), then the next player is
      assumed to answer with the move best for them; the move is judged ``lookahead`` on that
      answer and the rest on the position right after my move.
    * Board actions (remove, swap, slide) are chosen the same way: by what they leave the next
      player.
    """

    game_id = "friendlyfishing"

    def __init__(self, lookahead: float = 1.0, potential: float = 1.0) -> None:
        super().__init__()
        self.lookahead = lookahead
        self.potential = potential

    # -- valuation ------------------------------------------------------------------------

    def utility(self, pos: Position, colls: Collections, double: int, me: int) -> float:
        for seat, held in enumerate(colls):
            if held[pb.KINGFISH] >= pos.need:
                return WIN if seat == me else -WIN
        fishing = [
            f + self.potential * self.hope(pos, held)
            for f, held in zip(fishing_scores(colls, double), colls, strict=True)
        ]
        n = pos.players
        finals = fishing if n == 2 else [fishing[s] + fishing[left_of(s, n)] for s in range(n)]
        return finals[me] - max(f for s, f in enumerate(finals) if s != me)

    @staticmethod
    def hope(pos: Position, held: Sequence[int]) -> float:
        """Points a collection may still gain from sets open on the board."""
        out = 0.0
        left = pos.left
        if held[pb.SHINER] in (1, 2) and left[pb.SHINER]:
            out += 3.5 if held[pb.SHINER] == 1 else 2.0
        kingfish = held[pb.KINGFISH]
        if 0 < kingfish < pos.need and left[pb.KINGFISH] >= pos.need - kingfish:
            out += 6.0 * kingfish
        return out

    @staticmethod
    def collect(colls: Collections, seat: int, tile: int) -> Collections:
        out = [list(c) for c in colls]
        out[seat][tile] += 1
        if tile == pb.LUNKER:
            for held in out:
                held[pb.LUNKER] = 0
            out[seat][pb.LUNKER] = 1
        return out

    def reply(self, pos: Position, tiles: list[int], boat: int, colls: Collections, double: int, me: int) -> float:
        """My utility after the next player's best answer (greedy for them)."""
        actor = left_of(me, pos.players)
        moves = legal_moves(pos.board, tiles, boat)
        if not moves and boat != ISLAND:
            moves = legal_moves(pos.board, tiles, ISLAND)
        if not moves:
            return self.utility(pos, colls, double, me)  # the game ends
        best_for_them, mine = -2 * WIN, 0.0
        for space, _ in moves:
            after = self.collect(colls, actor, tiles[space])
            theirs = self.utility(pos, after, double, actor)
            if theirs > best_for_them:
                best_for_them, mine = theirs, self.utility(pos, after, double, me)
        return mine

    def judge(self, pos: Position, tiles: list[int], boat: int, colls: Collections, double: int) -> float:
        """A position right after my turn ends: blend of now and after the next answer."""
        me = pos.seat
        now = self.utility(pos, colls, double, me)
        if not self.lookahead:
            return now
        later = self.reply(pos, tiles, boat, colls, double, me)
        return (1 - self.lookahead) * now + self.lookahead * later

    def move_value(self, pos: Position, space: int) -> float:
        """Collect the tile on ``space`` (an Action at its best quick use), then the answer."""
        tile = pos.tiles[space]
        tiles = list(pos.tiles)
        tiles[space] = pb.TILE_NONE
        colls = self.collect(pos.colls, pos.seat, tile)
        double = pos.double
        bonus = 0.0
        if tile == pb.DOUBLE:
            double = max(COLOURS, key=lambda c: self.utility(pos, colls, c, pos.seat))
        elif tile == pb.SWAP_FISH:
            swap = self.best_swap(pos, colls)
            if swap is not None:
                colls = swap[3]
        elif tile in (pb.SWAP_TILES, pb.SLIDE, pb.REMOVE):
            bonus = ACTION_BONUS
        return self.judge(pos, tiles, space, colls, double) + bonus

    def best_swap(self, pos: Position, colls: Collections) -> tuple[int, int, int, Collections] | None:
        """The best (seat, taken, given, collections after) Swap 2 Fish, None if none."""
        me = pos.seat
        mine = [k for k in BASIC if colls[me][k]]
        best: tuple[float, int, int, int, Collections] | None = None
        for other in range(pos.players):
            if other == me:
                continue
            for taken in (k for k in BASIC if colls[other][k]):
                for given in mine:
                    after = [list(c) for c in colls]
                    after[other][taken] -= 1
                    after[me][taken] += 1
                    after[me][given] -= 1
                    after[other][given] += 1
                    value = self.utility(pos, after, pos.double, me)
                    if best is None or value > best[0]:
                        best = (value, other, taken, given, after)
        return None if best is None else best[1:]

    # -- decisions ------------------------------------------------------------------------

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        pos = Position(obs)
        kind = turn.kind
        if kind in ("move", "dinker"):
            return self.choose_move(pos, turn.options)
        if kind == "double_points":
            return max(turn.options, key=lambda o: self.utility(pos, pos.colls, action(o).tile, pos.seat)).id
        if kind.startswith("swap_fish"):
            return self.choose_swap_fish(pos, obs, turn.options)
        if kind == "remove_tile":
            return max(turn.options, key=lambda o: self.after_remove(pos, action(o).space)).id
        if kind in ("swap_tiles", "swap_tiles_with"):
            return self.choose_swap_tiles(pos, obs, turn.options)
        return self.choose_slide(pos, obs, turn.options)

    def choose_move(self, pos: Position, options: Sequence[TypedOption]) -> str:
        def value(option: TypedOption) -> float:
            act = action(option)
            if act.kind == pb.COLLECT:
                return self.move_value(pos, pos.boat)
            return self.move_value(pos, act.space)

        return max(options, key=value).id

    def choose_swap_fish(self, pos: Position, obs: pb.Observation, options: Sequence[TypedOption]) -> str:
        me = pos.seat
        if obs.phase == pb.PHASE_SWAP_FISH_PLAYER:
            swap = self.best_swap(pos, pos.colls)
            assert swap is not None
            return f"seat:{swap[0]}"
        if obs.phase == pb.PHASE_SWAP_FISH_TAKE:
            other = obs.swap_seat

            def take_value(option: TypedOption) -> float:
                taken = action(option).tile
                best = -2 * WIN
                for given in (k for k in BASIC if pos.colls[me][k]):
                    after = [list(c) for c in pos.colls]
                    after[other][taken] -= 1
                    after[me][taken] += 1
                    after[me][given] -= 1
                    after[other][given] += 1
                    best = max(best, self.utility(pos, after, pos.double, me))
                return best

            return max(options, key=take_value).id

        def give_value(option: TypedOption) -> float:
            given = action(option).tile
            after = [list(c) for c in pos.colls]
            after[me][given] -= 1
            after[obs.swap_seat][given] += 1
            return self.utility(pos, after, pos.double, me)

        return max(options, key=give_value).id

    def after_remove(self, pos: Position, space: int) -> float:
        tiles = list(pos.tiles)
        tiles[space] = pb.TILE_NONE
        return self.judge(pos, tiles, pos.boat, pos.colls, pos.double)

    def reach(self, pos: Position) -> set[int]:
        """Spaces the next player's move can reach (by adjacency) from the boat now."""
        near = pos.board.island_neighbours if pos.boat == ISLAND else pos.board.neighbours[pos.boat]
        return set(near)

    def after_swap(self, pos: Position, a: int, b: int) -> float:
        tiles = list(pos.tiles)
        tiles[a], tiles[b] = tiles[b], tiles[a]
        return self.judge(pos, tiles, pos.boat, pos.colls, pos.double)

    def swap_candidates(self, pos: Position, firsts: Sequence[int]) -> list[tuple[int, int]]:
        """Pairs that change what the next player can reach; far tiles of one kind are
        interchangeable for a one-reply look-ahead, so one of each kind is tried."""
        reach = self.reach(pos)
        occupied = [s for s, t in enumerate(pos.tiles) if t]
        pairs = []
        for a in firsts:
            far_kinds: set[int] = set()
            for b in occupied:
                if b == a:
                    continue
                if b not in reach and a not in reach:
                    continue
                if b not in reach:
                    if pos.tiles[b] in far_kinds:
                        continue
                    far_kinds.add(pos.tiles[b])
                pairs.append((a, b))
        return pairs

    def choose_swap_tiles(self, pos: Position, obs: pb.Observation, options: Sequence[TypedOption]) -> str:
        if obs.phase == pb.PHASE_SWAP_TILES_WITH:
            first = obs.chosen_space
            return max(options, key=lambda o: self.after_swap(pos, first, action(o).space)).id
        firsts = [action(o).space for o in options]
        pairs = self.swap_candidates(pos, firsts)
        if not pairs:
            return options[0].id
        best = max(pairs, key=lambda p: self.after_swap(pos, *p))
        return f"tile:{best[0]}"

    def after_slide(self, pos: Position, origin: int, target: int) -> float:
        tiles = list(pos.tiles)
        tiles[origin], tiles[target] = pb.TILE_NONE, tiles[origin]
        return self.judge(pos, tiles, pos.boat, pos.colls, pos.double)

    def choose_slide(self, pos: Position, obs: pb.Observation, options: Sequence[TypedOption]) -> str:
        if obs.phase == pb.PHASE_SLIDE_TO:
            origin = obs.chosen_space
            return max(options, key=lambda o: self.after_slide(pos, origin, action(o).space)).id
        reach = self.reach(pos)
        pairs = []
        for option in options:
            origin = action(option).space
            targets = slide_targets(pos.board, pos.tiles, pos.boat, origin)
            near = [t for t in targets if t in reach]
            far = [t for t in targets if t not in reach]
            if origin in reach or near:
                pairs += [(origin, t) for t in near] + [(origin, t) for t in far[:1]]
        if not pairs:
            return options[0].id
        best = max(pairs, key=lambda p: self.after_slide(pos, *p))
        return f"tile:{best[0]}"


def action(option: TypedOption) -> pb.Action:
    act = option.action
    assert isinstance(act, pb.Action)
    return act


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("lookahead", 1.0, 0, 1), Param("potential", 1.0, 0, 2)])
    return FisherBot(values["lookahead"], values["potential"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:lookahead=0"]
