"""Built-in bots for Soda Jerk."""

from __future__ import annotations

from collections.abc import Mapping

from arena.games.v1 import sodajerk_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

SWITCH = pb.SWITCHEROO
MEAN_NUMBER = 2.0  # flavour cards are three each of 1, 2, 3 (the game's components.toml)


class View:
    """What the heuristic estimates from an observation.

    * ``raw[t]``: the tap's value before Switcheroos, counting the cards the viewer knows plus
      the expected contribution of each unknown face-down card (drawn from the unknown pool);
      ``sign[t]``: the known Switcheroos' sign, ``shrink[t]``: the expected sign factor of the
      unknown cards that might be Switcheroos.
    * ``mine[f]``: the viewer's cards of flavour f; ``theirs[f]``: an average opponent's
      expected cards of flavour f (its hand size × the unknown pool's share of f).
    """

    def __init__(self, obs: pb.Observation) -> None:
        self.obs = obs
        unknown = list(obs.unknown_by_flavour)
        total = sum(unknown) or 1
        self.p = [u / total for u in unknown]
        p_switch = self.p[SWITCH] if len(self.p) > SWITCH else 0.0
        self.taps = [int(t.flavour) for t in obs.taps]
        self.raw: dict[int, float] = {}
        self.sign: dict[int, float] = {}
        self.shrink: dict[int, float] = {}
        self.hidden: dict[int, int] = {}
        self.mu: dict[int, float] = {}  # expected contribution of an unknown card under the tap
        for tap in obs.taps:
            t = int(tap.flavour)
            match = self.p[t]
            other = sum(self.p[f] for f in self.taps if f != t)
            raw, sign, n = 0.0, 1.0, 0
            for slot in tap.slots:
                flavour = int(slot.card.flavour)
                if flavour == 0:
                    n += 1
                elif flavour == SWITCH:
                    sign = -sign
                elif flavour == t:
                    raw += slot.card.number
                else:
                    raw -= slot.card.number
            self.mu[t] = MEAN_NUMBER * (match - other)
            self.raw[t] = raw + n * self.mu[t]
            self.sign[t] = sign
            self.shrink[t] = (1 - 2 * p_switch) ** n
            self.hidden[t] = n
        self.mine = {t: 0 for t in self.taps}
        for card in obs.hand:
            if int(card.flavour) in self.mine:
                self.mine[int(card.flavour)] += 1
        others = [p.hand_count for s, p in enumerate(obs.table) if s != obs.seat]
        mean_hand = sum(others) / max(1, len(others))
        self.theirs = {t: mean_hand * self.p[t] for t in self.taps}

    def value(self, t: int, raw: float | None = None, sign: float | None = None) -> float:
        r = self.raw[t] if raw is None else raw
        s = self.sign[t] if sign is None else sign
        return s * r * self.shrink[t]

    def advantage(
        self, changes: Mapping[int, tuple[float, float]] | None = None, mine: Mapping[int, int] | None = None
    ) -> float:
        """My expected round score minus an average opponent's, with some taps changed."""
        changes = changes or {}
        mine = mine or self.mine
        total = 0.0
        for t in self.taps:
            raw, sign = changes.get(t, (self.raw[t], self.sign[t]))
            v = self.value(t, raw, sign)
            total += (mine[t] - self.theirs[t]) * v
        return total

    def exposure(self, t: int) -> float:
        return abs(self.mine[t] - self.theirs[t])


class HeuristicBot(Bot):
    """Plays the expected round advantage: its hand's estimated score minus an average
    opponent's.

    * Place: every (card, tap) is scored by the change it makes to that advantage (a matching
      card raises its tap, a non-matching one lowers it, a Switcheroo flips its sign; the card
      also leaves the hand). Unknown face-down cards count at the unknown pool's expectation.
    * Flip: worth ``flip`` points of information (an opponent's card under the tap where its
      stake differs most from the opponents'); taken when no placement gains more. A flip that
      would end the round is taken when ahead and avoided when behind.
    * Powers: ``spill``/``pour``/``move`` when they raise the advantage by more than ``power``;
      ``fizz`` on an opponent's card at a tap where the stake is at least ``fizz``; ``last-call``
      when ahead by at least ``call`` points this round.
    """

    game_id = "sodajerk"

    def __init__(self, flip: float = 1.0, power: float = 0.5, fizz: float = 1.5, call: float = 3.0) -> None:
        super().__init__()
        self.flip = flip
        self.power = power
        self.fizz = fizz
        self.call = call

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        view = View(obs)
        if turn.kind == "power":
            return self.power_choice(view, turn)
        return self.turn_choice(view, turn)

    # -- turn ---------------------------------------------------------------------------------

    def place_gain(self, view: View, base: float, action: pb.Action) -> float:
        t = int(action.tap)
        card = action.card
        flavour = int(card.flavour)
        raw, sign = view.raw[t], view.sign[t]
        if flavour == SWITCH:
            sign = -sign
        elif flavour == t:
            raw += card.number
        else:
            raw -= card.number
        mine = dict(view.mine)
        if flavour in mine:
            mine[flavour] -= 1
        return view.advantage({t: (raw, sign)}, mine) - base

    def turn_choice(self, view: View, turn: Turn) -> str:
        obs = view.obs
        base = view.advantage()
        best_place, best_gain = "", float("-inf")
        best_flip, best_info = "", float("-inf")
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            if action.kind == pb.PLACE:
                gain = self.place_gain(view, base, action)
                if gain > best_gain:
                    best_place, best_gain = option.id, gain
            else:
                t = int(action.tap)
                slot = obs.taps[view.taps.index(t)].slots[action.index]
                info = view.exposure(t) if slot.seat != obs.seat else -1.0
                if info > best_info:
                    best_flip, best_info = option.id, info
        if not best_flip:
            return best_place
        down = sum(t.face_down for t in obs.taps)
        ends = obs.consecutive_flips + 1 >= obs.players or down == 1
        if ends:
            return best_flip if base > 0 or (best_gain <= 0 and base >= 0) else best_place
        if best_info < 0:
            return best_place  # only own cards to flip: no information
        return best_flip if best_gain < self.flip else best_place

    # -- power --------------------------------------------------------------------------------

    def power_choice(self, view: View, turn: Turn) -> str:
        best, best_gain = "skip", 0.0
        for option_id, gain in self.power_gains(view, turn):
            if gain > best_gain:
                best, best_gain = option_id, gain
        return best

    def power_gains(self, view: View, turn: Turn) -> list[tuple[str, float]]:
        """Each power use with its estimated gain (``skip`` is 0)."""
        obs = view.obs
        base = view.advantage()
        tap = int(obs.power_tap)
        gains = []
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            kind = action.kind
            gain = 0.0
            if kind == pb.USE_LAST_CALL:
                gain = 1.0 if base >= self.call else -1.0
            elif kind == pb.USE_SPILL:
                flavour = int(action.card.flavour)
                gain = (-view.value(flavour) if flavour in view.mine else 0.0) - self.power
            elif kind == pb.USE_FIZZ:
                t = int(action.tap)
                slot = obs.taps[view.taps.index(t)].slots[action.index]
                gain = view.exposure(t) - self.fizz if slot.seat != obs.seat else -1.0
            elif kind in (pb.USE_POUR, pb.USE_MOVE):
                source = tap if kind == pb.USE_POUR else int(action.tap)
                card = obs.taps[view.taps.index(source)].slots[action.index].card
                changes: dict[int, tuple[float, float]] = {}
                raw, sign = remove(view, source, card)
                changes[source] = (raw, sign)
                if kind == pb.USE_MOVE:
                    changes[tap] = add(view, tap, card)
                gain = view.advantage(changes) - base - self.power
            else:
                continue  # skip
            gains.append((option.id, gain))
        return gains


def remove(view: View, t: int, card: pb.Card) -> tuple[float, float]:
    flavour = int(card.flavour)
    if flavour == 0:  # a face-down card the viewer does not know
        return view.raw[t] - view.mu[t], view.sign[t]
    if flavour == SWITCH:
        return view.raw[t], -view.sign[t]
    return view.raw[t] - (card.number if flavour == t else -card.number), view.sign[t]


def add(view: View, t: int, card: pb.Card) -> tuple[float, float]:
    flavour = int(card.flavour)
    if flavour == 0:
        return view.raw[t] + view.mu[t], view.sign[t]
    if flavour == SWITCH:
        return view.raw[t], -view.sign[t]
    return view.raw[t] + (card.number if flavour == t else -card.number), view.sign[t]


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params(
        "heuristic",
        params,
        [
            Param("flip", 1.0, -10, 10),
            Param("power", 0.5, -10, 10),
            Param("fizz", 1.5, -10, 20),
            Param("call", 3.0, -50, 50),
        ],
    )
    return HeuristicBot(values["flip"], values["power"], values["fizz"], values["call"])


BOTS = {"heuristic": _heuristic}
