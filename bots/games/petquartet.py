"""Built-in bots for Pet Quartet."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

from arena.games.petquartet.game import HIGHEST, LOWEST, set_points, standing_key
from arena.games.v1 import petquartet_pb2 as pb
from bots.endgame import ending_outcomes, prefer_ending
from bots.params import Param, read_params
from bots.sdk import Bot, Turn, TypedOption

NUMBERS = range(LOWEST, HIGHEST + 1)
Counts = list[int]


class CollectorBot(Bot):
    """Values collections, with credit for pairs and triples that can still become Quartets.

    * A take is worth the value it adds to the collection (Maestro effects included).
    * Drawing is worth the expected best pile the drawn card could make, discounted by
      ``patience`` for every other player still in the round (they may take that pile first).
    * A drawn card goes where it helps this bot most and, weighted by ``spite``, helps the other
      players still in the round least.
    * Cards returned or passed are the ones whose loss costs least (a passed card also counts
      what it gives the neighbour).
    * A final turn takes for the best placing against the collections as they stand (points,
      then the tie-break), then for points; with ``ending``, an option that ends the game is
      judged by its result, counted on worlds built from the observation: the better rank first,
      then a rank alone over a shared one.
    """

    game_id = "petquartet"

    def __init__(self, patience: float = 0.5, spite: float = 0.25, ending: bool = True) -> None:
        super().__init__()
        self.patience = patience
        self.spite = spite
        self.ending = ending

    # -- valuation ------------------------------------------------------------------------

    def _valuer(self, obs: pb.Observation) -> Callable[[Sequence[int]], float]:
        """Value of a collection now: points plus potential of pairs and triples."""
        advanced = obs.scoring == pb.ADVANCED
        supply = list(obs.deck_counts)
        for conductor in obs.conductors:
            if conductor.taken_by < 0:
                for card in conductor.cards:
                    supply[card] += 1
        # Potential fades as the deck runs out: few draws remain to complete a Quartet.
        hope = min(1.0, obs.deck_size / 20)
        quartet = set_points(LOWEST, 4, advanced)

        def value(counts: Sequence[int]) -> float:
            total = 0.0
            for n in NUMBERS:
                c = counts[n]
                if c == 1 or c == 4:
                    total += set_points(n, c, advanced)
                elif c in (2, 3) and supply[n] >= 4 - c:
                    total += quartet * hope * (0.3 if c == 2 else 0.6)
            return total

        return value

    @staticmethod
    def _plus(counts: Sequence[int], cards: Sequence[int]) -> Counts:
        out = list(counts)
        for card in cards:
            out[card] += 1
        return out

    def _take_results(self, obs: pb.Observation, mine: Counts, index: int) -> list[Counts]:
        """The collections a take can leave (one per card its Maestro effect can give up)."""
        conductor = obs.conductors[index]
        after = self._plus(mine, conductor.cards)
        maestro = conductor.maestro
        if maestro in (pb.RETURN_FROM_CONDUCTOR, pb.PASS_LEFT) or (maestro == pb.RETURN_COLLECTED and any(mine)):
            pool = after if maestro != pb.RETURN_COLLECTED else mine
            return [self._minus(after, n) for n in NUMBERS if pool[n]]
        return [after]

    @staticmethod
    def _place(obs: pb.Observation, counts: Sequence[int]) -> tuple[int, int]:
        """Where a final collection places against the others' as they stand: (seats ahead,
        seats level), fewer is better."""
        advanced = obs.scoring == pb.ADVANCED
        key = standing_key(counts, advanced)
        others = [standing_key(c.counts, advanced) for s, c in enumerate(obs.collections) if s != obs.seat]
        return sum(1 for k in others if k > key), sum(1 for k in others if k == key)

    def _take_gain(self, obs: pb.Observation, value: Callable, mine: Counts, index: int) -> float:
        """What taking a Conductor adds to my collection, its Maestro effect included."""
        results = self._take_results(obs, mine, index)  # with the best card to give up, if any
        gain = max(value(r) for r in results) - value(mine)
        if obs.conductors[index].maestro == pb.DRAW_EXTRA_CARD and obs.deck_size:
            (after,) = results
            gain += self._expected(obs, lambda c: value(self._plus(after, [c])) - value(after))
        return gain

    @staticmethod
    def _minus(counts: Sequence[int], number: int) -> Counts:
        out = list(counts)
        out[number] -= 1
        return out

    @staticmethod
    def _expected(obs: pb.Observation, f: Callable[[int], float]) -> float:
        total = obs.deck_size
        return sum(k * f(n) for n, k in enumerate(obs.deck_counts) if k) / total if total else 0.0

    def _draw_worth(self, obs: pb.Observation, value: Callable, mine: Counts) -> float:
        """Expected best gain of a pile after the next card joins it, discounted by rivals."""
        open_piles = [c.cards for c in obs.conductors if c.taken_by < 0 and len(c.cards) < c.limit]
        if not open_piles or not obs.deck_size:
            return 0.0
        base = value(mine)

        def best(card: int) -> float:
            return max(value(self._plus(mine, [*pile, card])) - base for pile in open_piles)

        rivals = sum(1 for s, c in enumerate(obs.collections) if c.in_round and s != obs.seat)
        return self._expected(obs, best) * self.patience**rivals

    # -- decisions ------------------------------------------------------------------------

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        choice = self._choose(turn, obs)
        if obs.final_turns and self.ending:
            # A final turn can end the game, and a take that adds no points can still win the
            # tie-break, which the valuation does not see (an outside probe: it passed and came
            # 5th where a take came 1st alone). Equal outcomes: the valuation's choice first.
            ids = turn.option_ids
            options = {"scoring": "advanced" if obs.scoring == pb.ADVANCED else "standard", "duet": obs.duet}
            outcomes = ending_outcomes(self.game_id, obs.players, options, obs.seat, obs, ids)
            choice = prefer_ending(choice, [choice, *ids], outcomes)
        return choice

    def _choose(self, turn: Turn, obs: pb.Observation) -> str:
        value = self._valuer(obs)
        mine = list(obs.collections[obs.seat].counts)
        options = {o.id: o for o in turn.options}
        if turn.kind in ("turn", "final_turn", "immediate_take"):
            return self._turn(obs, value, mine, turn.options)
        if turn.kind == "place":
            return max(turn.options, key=lambda o: self._place_score(obs, value, mine, o)).id
        if turn.kind == "return_from_conductor":
            pile = obs.conductors[obs.active_conductor].cards
            after = self._plus(mine, pile)
            return max(options, key=lambda i: value(self._minus(after, self._card(options[i]))))
        if turn.kind == "return_collected":
            pile = obs.conductors[obs.active_conductor].cards
            return max(options, key=lambda i: value(self._plus(self._minus(mine, self._card(options[i])), pile)))
        # pass_left: keep my value, and hand the neighbour as little as possible.
        left = obs.collections[(obs.seat + 1) % obs.players].counts

        def give_score(option_id: str) -> float:
            n = self._card(options[option_id])
            return value(self._minus(mine, n)) - self.spite * (value(self._plus(left, [n])) - value(left))

        return max(options, key=give_score)

    @staticmethod
    def _card(option: TypedOption) -> int:
        action = option.action
        assert isinstance(action, pb.Action)
        return action.card

    def _turn(self, obs: pb.Observation, value: Callable, mine: Counts, options: Sequence[TypedOption]) -> str:
        takes: list[tuple[float, str]] = []
        conductors: dict[str, int] = {}
        other = ""  # "draw", "pass" or "decline" when offered
        for option in options:
            action = option.action
            assert isinstance(action, pb.Action)
            if action.kind == pb.TAKE:
                takes.append((self._take_gain(obs, value, mine, action.conductor), option.id))
                conductors[option.id] = action.conductor
            else:
                other = option.id
        if not takes:
            return other
        if other == "pass":
            # A final turn: our collection is final, and a take that adds no points can still
            # place us higher on the tie-break (an outside probe: a pass left it 3rd where a take
            # came 2nd). The best placing against the others as they stand first, then points.
            places = {
                i: min(map(partial(self._place, obs), self._take_results(obs, mine, c))) for i, c in conductors.items()
            }
            places[other] = self._place(obs, mine)
            best_place = min(places.values())
            takes = [t for t in takes if places[t[1]] == best_place]
            if places[other] != best_place:
                return max(takes)[1]
            return max(takes)[1] if takes and max(takes)[0] > 0 else other
        best_gain, best_id = max(takes)
        if not other:
            return best_id
        # Taking now against drawing (declining an immediate take also leaves the pile to draw on).
        return best_id if best_gain >= self._draw_worth(obs, value, mine) else other

    def _place_score(self, obs: pb.Observation, value: Callable, mine: Counts, option: TypedOption) -> float:
        action = option.action
        assert isinstance(action, pb.Action)
        pile = list(obs.conductors[action.conductor].cards)
        card = obs.drawn_card

        def delta(counts: Sequence[int]) -> float:
            return value(self._plus(counts, [*pile, card])) - value(self._plus(counts, pile))

        rivals = [c.counts for s, c in enumerate(obs.collections) if c.in_round and s != obs.seat]
        denial = max((delta(r) for r in rivals), default=0.0)
        return delta(mine) - self.spite * denial


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params(
        "heuristic",
        params,
        [Param("patience", 0.5, 0, 1), Param("spite", 0.25, 0, 1), Param("ending", 1, 0, 1, integer=True)],
    )
    return CollectorBot(values["patience"], values["spite"], bool(values["ending"]))


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:spite=0"]
# search's rollout policy (cheap enough to call at every step): without the final turns' check,
# which builds worlds at every final turn of every rollout (search already counts results).
ROLLOUT = "heuristic:ending=0"
SEARCH = {"halving": 1, "tree": 0}  # search's defaults here: root halving, heuristic below (README)
