"""Built-in bots for For the Emperor."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from arena.chance import Chance
from arena.games.fortheemperor.game import (
    ASHIGARU,
    GAME,
    KYUDO,
    RONIN,
    WOKOU,
    YAMABUSHI,
    EmperorState,
    Field,
    assign_banners,
    legal_plays,
    ronin_banner,
    side_strength,
    tiebreaker,
    token_places,
)
from arena.games.v1 import fortheemperor_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

Board = tuple[list[Field], list[int]]  # battlefields and the Banner supply


def board_of(obs: pb.Observation) -> Board:
    fields = [Field([(w.seat, w.strength) for w in f.warriors], f.banner, list(f.tokens)) for f in obs.battlefields]
    return fields, list(obs.banners)


def copy_board(board: Board) -> Board:
    fields, supply = board
    return [Field(list(f.warriors), f.banner, list(f.tokens)) for f in fields], list(supply)


class HeuristicBot(Bot):
    """Fights where a Warrior swings a battlefield and keeps a strong Warrior for the tie.

    Each battlefield is worth ``tanh(margin / (1 + spread * open slots))`` to it: a lead counts
    for more the fewer Warriors can still come there (the Banner, or the Banners left, tell how
    many). Every option is valued by the board it leads to after the Banner steps: a play with
    the best follow-up of its ability (token place, Yamabushi return and replay, Wokou move), a
    token, a return, a move. On its last play it adds ``keep`` times the Tiebreaker value it
    would have after that play (a tie on battlefields is common): the Warrior it keeps, or its
    Sohei on the board (under option ``sohei=controlled``, read from ``sohei_controlled``, only
    while it controls the Sohei's battlefield once the play is made).

    Once both draw piles are empty every card is known (the opponent's hand is its ``unplayed``
    list): with at most ``depth`` Warriors left to play in all, it searches the rest of the game
    exactly (win 1, shared 0, loss -1) and uses the board value only among equal outcomes.
    """

    name = "heuristic"
    game_id = "fortheemperor"

    def __init__(self, spread: float = 2.5, keep: float = 0.6, depth: int = 2) -> None:
        super().__init__()
        self.spread = spread
        self.keep = keep
        self.depth = depth

    # -- evaluation ---------------------------------------------------------------------------

    def value(self, board: Board, me: int) -> float:
        fields, supply = board
        total = 0.0
        for f in fields:
            count = len(f.warriors)
            room: float
            if f.banner:
                room = f.banner - count
            else:
                bigger = [b for b in supply if b >= count] or [count]
                room = max(0.0, sum(bigger) / len(bigger) - count)
            margin = side_strength(f, me) - side_strength(f, 1 - me)
            total += math.tanh(margin / (1 + self.spread * room)) if room else float((margin > 0) - (margin < 0))
        return total

    @staticmethod
    def _settle(board: Board) -> Board:
        assign_banners(*board)
        return board

    def _after_play(self, board: Board, me: int, strength: int, index: int, hand: Sequence[int]) -> float:
        """The value of playing ``strength`` on ``index`` with the best use of its ability."""
        board = copy_board(board)
        fields, supply = board
        fields[index].warriors.append((me, strength))
        if strength in (ASHIGARU, KYUDO):
            options = [self._with_token(board, me, i) for i in token_places(strength, index)]
            return max(options)
        if strength == RONIN and (banner := ronin_banner(fields, index, supply)):
            supply.remove(banner)
            fields[index].banner = banner
        if strength == YAMABUSHI:
            rest = [s for s in hand if s != strength]
            return max([self.value(self._settle(copy_board(board)), me), *self._returns(board, me, rest).values()])
        if strength == WOKOU:
            return max(self._moves(board, me).values(), default=self.value(self._settle(board), me))
        return self.value(self._settle(board), me)

    def _with_token(self, board: Board, me: int, index: int) -> float:
        board = copy_board(board)
        board[0][index].tokens[me] += 1
        return self.value(self._settle(board), me)

    def _returns(self, board: Board, me: int, hand: Sequence[int]) -> dict[int, float]:
        """Each returnable Warrior: the value of returning it and replaying it at once (a guess
        at its later use), less a little for the turn that replay costs."""
        out: dict[int, float] = {}
        for index, f in enumerate(board[0]):
            for owner, strength in f.warriors:
                if owner != me or strength == YAMABUSHI:
                    continue
                after = copy_board(board)
                after[0][index].warriors.remove((owner, strength))
                self._settle(after)
                plays = legal_plays(after[0], [strength], me)
                best = max((self._after_play(after, me, s, i, hand) for s, i in plays), default=-99.0)
                out[strength] = best - 0.2
        return out

    def _moves(self, board: Board, me: int) -> dict[tuple[int, int, int], float]:
        out: dict[tuple[int, int, int], float] = {}
        for origin, f in enumerate(board[0]):
            for owner in (0, 1):
                if not f.tokens[owner]:
                    continue
                for to in range(len(board[0])):
                    if to != origin:
                        after = copy_board(board)
                        after[0][origin].tokens[owner] -= 1
                        after[0][to].tokens[owner] += 1
                        out[(origin, owner, to)] = self.value(self._settle(after), me)
        return out

    # -- decisions ----------------------------------------------------------------------------

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        me = obs.seat
        board = board_of(obs)
        ids = turn.option_ids
        solved = self._solve(obs, turn.kind)
        if solved is not None:
            best = max(solved.values())
            ids = [i for i in ids if solved[i] == best]
            if len(ids) == 1:
                return ids[0]
        if turn.kind == "play":
            return self._play(obs, board, ids)
        if turn.kind == "token":
            return max(ids, key=lambda i: self._with_token(board, me, int(i.split(":")[1]) - 1))
        if turn.kind == "return":
            returns = self._returns(board, me, list(obs.hand))
            stay = self.value(self._settle(copy_board(board)), me)
            back = max(returns, key=lambda s: returns[s], default=None)
            return f"return:{back}" if back is not None and returns[back] > stay else "none"
        if turn.kind == "move":
            moves = self._moves(board, me)
            (origin, owner, _), _ = max(moves.items(), key=lambda kv: kv[1])
            return f"move:{origin + 1}:{owner}"
        if turn.kind == "destination":
            origin, owner = obs.moving_from - 1, obs.moving_owner
            moves = self._moves(board, me)
            return max(ids, key=lambda i: moves[(origin, owner, int(i.split(":")[1]) - 1)])
        return ids[0]

    # -- the endgame, when every card is known --------------------------------------------------

    def _solve(self, obs: pb.Observation, kind: str) -> dict[str, int] | None:
        """The exact outcome of each option (1 win, 0 shared, -1 loss), or None when the draw
        piles are not empty yet or too many Warriors remain to be played."""
        seats = obs.seats
        if any(v.draw_pile for v in seats) or sum(len(v.unplayed) for v in seats) - 2 > self.depth:
            return None
        state = position_of(obs)
        me = obs.seat
        return {o.id: _outcome(_after(state, o.id), me) for o in state.pending[0].options}

    def _play(self, obs: pb.Observation, board: Board, ids: Sequence[str]) -> str:
        me = obs.seat
        hand = list(obs.hand)
        last = len(hand) == 2 and obs.seats[me].draw_pile == 0

        def score(option_id: str) -> float:
            _, strength, place = option_id.split(":")
            s, index = int(strength), int(place) - 1
            total = self._after_play(board, me, s, index, hand)
            if last:
                kept = next(c for c in hand if c != s)
                fields = copy_board(board)[0]
                fields[index].warriors.append((me, s))
                total += self.keep * tiebreaker([kept], fields, me, obs.sohei_controlled) / 9
            return total

        return max(ids, key=score)


def position_of(obs: pb.Observation) -> EmperorState:
    """The full position from an observation once both draw piles are empty (nothing hidden:
    each seat's hand is its ``unplayed`` list)."""
    options = {"sohei": "controlled"} if obs.sohei_controlled else {}
    state = EmperorState(config=GAME.config(2, options), chance=Chance(0))
    state.fields, state.supply = board_of(obs)
    state.hands = [sorted(v.unplayed) for v in obs.seats]
    state.piles = [[], []]
    state.tokens_left = [v.tokens_left for v in obs.seats]
    state.passed = [v.passed for v in obs.seats]
    state.revealed = [sorted(v.revealed) for v in obs.seats]
    state.turn_seat, state.turn, state.phase = obs.to_move, obs.turn, obs.phase
    state.ability_field, state.ability_strength = obs.ability_battlefield - 1, obs.ability_strength
    state.moving = (obs.moving_from - 1, obs.moving_owner)
    GAME.refresh(state)
    return state


def _after(state: EmperorState, option_id: str) -> EmperorState:
    world = GAME.clone(state)
    (decision,) = world.pending
    option = decision.find(option_id)
    assert option is not None
    GAME.advance(world, {decision.seat: option})
    return world


def _outcome(state: EmperorState, me: int) -> int:
    """Minimax over the rest of a game without hidden cards: 1 win, 0 shared, -1 loss."""
    if not state.pending:
        result = GAME.score(state)
        ranks = result.ranks
        return 0 if ranks[0] == ranks[1] else 1 if ranks[me] == 1 else -1
    (decision,) = state.pending
    outcomes = (_outcome(_after(state, o.id), me) for o in decision.options)
    if decision.seat == me:
        best = -1
        for value in outcomes:
            best = max(best, value)
            if best == 1:
                break
        return best
    worst = 1
    for value in outcomes:
        worst = min(worst, value)
        if worst == -1:
            break
    return worst


def _heuristic(params: Mapping[str, str]) -> Bot:
    specs = [Param("spread", 2.5, 0, 10), Param("keep", 0.6, 0, 5), Param("depth", 2, 0, 6, integer=True)]
    values = read_params("heuristic", params, specs)
    return HeuristicBot(values["spread"], values["keep"], int(values["depth"]))


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:spread=1", "heuristic:depth=0"]
