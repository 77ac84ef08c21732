"""Built-in bots for For the Emperor."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from arena.games.fortheemperor.game import (
    ASHIGARU,
    KYUDO,
    RONIN,
    SOHEI,
    WOKOU,
    YAMABUSHI,
    Field,
    assign_banners,
    legal_plays,
    ronin_banner_fits,
    side_strength,
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
    token, a return, a move. On its last play it adds ``keep`` times the Tiebreaker value of
    the Warrior it keeps (a tie on battlefields is common).
    """

    name = "heuristic"
    game_id = "fortheemperor"

    def __init__(self, spread: float = 2.5, keep: float = 0.6) -> None:
        super().__init__()
        self.spread = spread
        self.keep = keep

    # -- evaluation ---------------------------------------------------------------------------

    def value(self, board: Board, me: int) -> float:
        fields, supply = board
        total = 0.0
        for f in fields:
            count = len(f.warriors)
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
        if strength == RONIN and supply and ronin_banner_fits(fields, index, supply[0]):
            fields[index].banner = supply.pop(0)
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
        if turn.kind == "play":
            return self._play(obs, board, ids)
        if turn.kind == "token":
            return max(ids, key=lambda i: self._with_token(board, me, int(i.split(":")[1]) - 1))
        if turn.kind == "return":
            returns = self._returns(board, me, list(obs.hand))
            stay = self.value(self._settle(copy_board(board)), me)
            best = max(returns, key=lambda s: returns[s], default=None)
            return f"return:{best}" if best is not None and returns[best] > stay else "none"
        if turn.kind == "move":
            moves = self._moves(board, me)
            stay = self.value(self._settle(copy_board(board)), me)
            (origin, owner, _), best = max(moves.items(), key=lambda kv: kv[1])
            return f"move:{origin + 1}:{owner}" if best > stay + 1e-9 else "none"
        if turn.kind == "destination":
            origin, owner = obs.moving_from - 1, obs.moving_owner
            moves = self._moves(board, me)
            return max(ids, key=lambda i: moves[(origin, owner, int(i.split(":")[1]) - 1)])
        return ids[0]

    def _play(self, obs: pb.Observation, board: Board, ids: Sequence[str]) -> str:
        me = obs.seat
        hand = list(obs.hand)
        last = len(hand) == 2 and obs.seats[me].draw_pile == 0
        sohei_on_board = SOHEI in obs.seats[me].on_board

        def score(option_id: str) -> float:
            _, strength, place = option_id.split(":")
            s, index = int(strength), int(place) - 1
            total = self._after_play(board, me, s, index, hand)
            if last:
                kept = next(c for c in hand if c != s)
                total += self.keep * max(kept, SOHEI if sohei_on_board or s == SOHEI else 0) / 9
            return total

        return max(ids, key=score)


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("spread", 2.5, 0, 10), Param("keep", 0.6, 0, 5)])
    return HeuristicBot(values["spread"], values["keep"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:spread=1", "heuristic:keep=0"]
