"""Built-in bots for Open Season."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from arena.chance import Chance
from arena.engine import Option
from arena.games.openseason.game import EMPTY, GAME, SeasonState, total
from arena.games.v1 import openseason_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

PEOPLES = ("barbarian", "dwarf", "elf", "gnome", "mage", "sorcerer")
ATTRS = ("crown", "tattoo", "dagger", "earrings", "eyepatch")
SCORE = {"minus2": -2, "minus3": -3, "plus1": 1, "plus2": 2}
EFFECT = {"series": 4.0, "trophy2": 3.0, "wild": 1.5, "trophy1": 1.5, "trophy": 6.0}
FACE_ORDER = (
    "draw4",
    "share",
    "raid",
    "thief",
    "swap",
    "replace",
    "balance",
    "variety",
    "infinity",
    "different",
    "identical",
    "crowd",
    "double",
    "soften",
)


def split(card: str) -> tuple[str, str]:
    p, a = card.split("-")
    return p, a


class Model:
    """One seat's board read from the observation, and what cards are worth to it."""

    def __init__(self, obs: pb.Observation, seat: int, future: float) -> None:
        self.obs = obs
        self.seat = seat
        self.me = obs.seats[seat]
        self.horn = obs.side == pb.HORN
        self.layout = list(obs.layout)
        self.wall = list(self.me.wall)
        held = list(self.me.accolades) + list(self.me.stock)
        self.people = Counter(split(c)[0] for c in held)
        self.attrs = Counter(split(c)[1] for c in held)
        self.cards = len(held)
        left = obs.rounds - self.me.turns
        self.left = max(left, 0)
        self.future = future * self.left  # accolade cards of one people still to come
        self.others = [
            Counter(split(c)[0] for c in list(s.accolades) + list(s.stock))
            for i, s in enumerate(obs.seats)
            if i != seat
        ]

    def face_up(self, i: int) -> str:
        w = self.wall[i]
        return w.card if w.filled and not w.face_down else ""

    def stock_value(self, card: str, trigger: bool = False) -> float:
        """What one more accolade card is worth (plus an action it would trigger now)."""
        p, a = split(card)
        value = 0.0
        if self.horn:
            for i, space in enumerate(self.layout):
                c = self.face_up(i)
                if not c or not space.score:
                    continue
                if split(c)[0] == p and space.score in SCORE:
                    value += SCORE[space.score]
                elif split(c)[0] == p and space.score == "majority":
                    value += 2.5
                elif space.score == "attribute":
                    wild = self.wall[i].wild or split(c)[1]
                    value += 2 if wild == a else 0
            low = min(self.attrs[x] for x in ATTRS)
            if self.attrs[a] == low:
                at_min = sum(1 for x in ATTRS if self.attrs[x] == low)
                series = 7 if self.me.series_tile else 4
                value += (series - (1 if self.me.penalty else 0)) / at_min
        else:
            on = set(self.me.activated)
            value += 0.6 if "cards18" in on or self.left > 3 else 0.3
            best = max(self.attrs.values(), default=0)
            if self.attrs[a] >= best - 1:
                value += 0.8
            same = {split(c)[1] for c in list(self.me.accolades) + list(self.me.stock) if split(c)[0] == p}
            if a not in same:
                value += 0.5 + 0.4 * len(same)
        if trigger:
            value += self.trigger_value(p)
        return value

    def trigger_value(self, p: str) -> float:
        for i, space in enumerate(self.layout):
            if space.row == 1 and self.face_up(i) and split(self.face_up(i))[0] == p:
                if space.action in self.obs.triggered:
                    return 0.0
                return {"steal": 2.0, "peek": 2.0, "instock": 2.0, "keep": 1.2, "trophy": 0.5}.get(space.action, 0.0)
        return 0.0

    def place_value(self, card: str, i: int, down: bool) -> float:
        space = self.layout[i]
        p, a = split(card)
        rnd = self.me.turns  # this turn (turns counts the turn being played)
        value = 0.0
        if space.effect and space.first_round <= rnd <= space.last_round:
            value += EFFECT.get(space.effect, 0.0)
        if down:
            return value - 5.0 - 0.5 * (space.row == 1) * 4
        have = self.people[p] + self.future
        if self.horn and space.score in SCORE:
            value += SCORE[space.score] * (have if SCORE[space.score] > 0 else self.people[p] + self.future * 0.5)
        elif self.horn and space.score == "majority":
            best = max((o[p] for o in self.others), default=0)
            lead = self.people[p] - best
            value += 10 * (0.75 if lead > 1 else 0.5 if lead >= 0 else 0.25 if lead >= -1 else 0.05)
        elif self.horn and space.score == "attribute":
            value += 2 * (self.attrs[a] + self.left * 0.25)
        if space.row == 1:
            value += 1.5 * self.left / max(self.obs.rounds, 1) * 3 + 0.4 * self.people[p]
        if not self.horn:
            same = sum(1 for j in range(len(self.wall)) if self.face_up(j) and split(self.face_up(j))[1] == a)
            value += 0.8 * same
        for frieze in self.obs.friezes:
            if frieze.kind == "same" and space.id in frieze.spaces:
                others = [self.face_up(j - 1) for j in frieze.spaces if j - 1 != i]
                known = [split(c)[0] for c in others if c]
                if all(k == p for k in known):
                    value += 1.5 + 1.5 * len(known)
            if frieze.kind == "reward" and space.id in frieze.spaces and rnd <= 6:
                filled = sum(1 for j in frieze.spaces if self.wall[j - 1].filled or j - 1 == i)
                if filled == len(frieze.spaces):
                    value += 5.0
        return value


class HeuristicBot(Bot):
    """Plays the wall for the accolades it holds, and the stock for the wall it built.

    * A card in the accolades is worth what the wall makes of it (-3..+2 per icon space of its
      people, 2 for the attribute space's attribute, progress toward the next attribute series,
      a share of the majority), plus the action it triggers now.
    * A wall space is worth its effect in this round, its icon times the cards of its people
      held and expected (``future`` a round), the chance of the majority, the gold frieze, and
      for row 1 an action early in the game; a face-down card costs 5.
    * Taking, placing, stealing, peeking, keeping: the best sum of place and stock values.
    * A Trophy on a row-1 card is worth the untriggered action it triggers (nothing once
      placed); on a bottom-row card, placed or moved, the end score it changes, counted by the
      engine (a majority it decides is worth its 10). Shield Trophies activate the scoring most
      likely to pay.
    * The end-game Wilds: the option of the best final score, counted exactly by the engine.
    * Expert replace: the card and the space of the best end score, counted by the engine.
    * Several Bonus faces at once (Expert ``bonus``): thief first (nothing else changes it);
      raid before share (the cards share gives would bury the stock tops a raid takes) and the
      sooner the better the tops are for us; draw4 early (its cards are random, so they should
      meet untriggered actions); swap late (its card is searched for, so it can still aim at an
      action left untriggered); replace last (every card the others added can replace a wall
      card then).
    """

    name = "heuristic"
    game_id = "openseason"

    def __init__(self, future: float = 0.2) -> None:
        super().__init__()
        self.future = future

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        ids = turn.option_ids
        kind = turn.kind
        model = Model(obs, obs.seat, self.future)
        if kind == "face":
            faces = [i.removeprefix("face:") for i in ids]
            return "face:" + min(faces, key=FACE_ORDER.index)
        if kind == "take":
            return max(ids, key=lambda i: self._take_value(model, obs, i.removeprefix("take:")))
        if kind == "place":
            return max(ids, key=lambda i: self._place_option(model, obs, i))
        if kind in ("peek", "instock", "raid"):
            return max(ids, key=lambda i: model.stock_value(i.split(":", 1)[1], trigger=True))
        if kind == "keep":
            return max(ids, key=lambda i: self._take_value(model, obs, i.removeprefix("keep:")))
        if kind == "steal":
            return max(ids, key=lambda i: self._steal_value(model, obs, int(i.removeprefix("steal:"))))
        if kind == "reply":
            values = {i: model.stock_value(i.removeprefix("inn:")) for i in ids if i.startswith("inn:")}
            best = max(values, key=values.__getitem__, default="pass")
            return best if values.get(best, 0) > 0.5 else ("deck" if "deck" in ids else "pass")
        if kind in ("trophy", "move"):
            values = self._trophy_values(model, obs)
            return max(ids, key=values.__getitem__)
        if kind == "activate":
            return max(ids, key=lambda i: self._activate_value(model, obs, i.removeprefix("activate:")))
        if kind == "wild":
            if obs.asking == "wild:end":
                return self._end_wild(model, obs, ids)
            return self._wild(model, obs, ids)
        if kind == "bonus":
            faces = [i.removeprefix("bonus:") for i in ids]
            return "bonus:" + max(faces, key=lambda f: self._bonus_value(model, obs, f, faces))
        if kind == "draw":
            if ids[0].startswith("top:"):
                return ids[0]
            return max(ids, key=lambda i: sum(model.stock_value(c) for c in i.removeprefix("keep:").split("+")))
        if kind == "share":
            values = {i: model.stock_value(i.removeprefix("give:")) for i in ids}
            pick = max if obs.share_to == obs.seat else min
            return pick(ids, key=values.__getitem__)
        if kind == "swap":
            if ids[0].startswith("in:"):
                return max(ids, key=lambda i: model.stock_value(i.removeprefix("in:"), trigger=True))
            return min(ids, key=lambda i: model.stock_value(i.split(":", 2)[2]))
        if kind == "replace":
            return self._replace(obs, ids)
        return ids[0]

    def _replace(self, obs: pb.Observation, ids: list[str]) -> str:
        """Expert replace: a stock or accolade card goes onto a wall space, and the wall card
        atop the stock. Both steps are scored by the engine on a world from the observation:
        the seat's score if the game ended after the card and the space (the card by its best
        space). The actions the stocked card may trigger are left out."""
        world = _world(obs)
        (decision,) = [d for d in world.pending if d.seat == obs.seat]
        scores = {option.id: _replaced_total(world, obs.seat, option) for option in decision.options}
        return max(ids, key=scores.__getitem__)

    def _bonus_value(self, model: Model, obs: pb.Observation, face: str, faces: list[str]) -> float:
        """How urgent it is to resolve ``face`` before the other ``faces`` that fired with it."""
        untriggered = sum(
            1 for i, s in enumerate(model.layout) if s.row == 1 and model.face_up(i) and s.action not in obs.triggered
        )
        if face == "thief":
            return 10.0
        if face == "raid":
            tops = [v.stock_top for i, v in enumerate(obs.seats) if i != obs.seat and v.stock_top]
            best = max((model.stock_value(c, trigger=True) for c in tops), default=0.0)
            return 3.0 + best + (3.0 if "share" in faces else 0.0)
        if face == "draw4":
            return 2.0 + untriggered
        if face == "share":
            return 1.5 + 0.5 * untriggered
        if face == "swap":
            return 1.0
        return 0.0  # replace

    def _take_value(self, model: Model, obs: pb.Observation, card: str) -> float:
        hand = list(obs.hand)
        if not hand:
            # First card: its best use, placed or stocked.
            return max(self._best_place(model, card), model.stock_value(card, trigger=True))
        other = hand[0]
        return max(
            self._best_place(model, card) + model.stock_value(other, trigger=True),
            self._best_place(model, other) + model.stock_value(card, trigger=True),
        )

    def _best_place(self, model: Model, card: str) -> float:
        me = model.me
        p = split(card)[0]
        best = -5.0
        for i, space in enumerate(model.layout):
            if me.wall[i].filled:
                continue
            ok = not any(
                frieze.kind == "different"
                and space.id in frieze.spaces
                and any(model.face_up(j - 1) and split(model.face_up(j - 1))[0] == p for j in frieze.spaces)
                for frieze in model.obs.friezes
            )
            if ok:
                best = max(best, model.place_value(card, i, False))
        return best

    def _place_option(self, model: Model, obs: pb.Observation, option: str) -> float:
        how, rest = option.split(":", 1)
        card, space = rest.split("@")
        hand = list(obs.hand)
        hand.remove(card)
        value = model.place_value(card, int(space) - 1, how == "down")
        if hand:
            value += model.stock_value(hand[0], trigger=True)
        return value

    def _steal_value(self, model: Model, obs: pb.Observation, seat: int) -> float:
        view = obs.seats[seat]
        if view.stock_top:
            return model.stock_value(view.stock_top, trigger=True) + 0.1 * view.stock_size
        cards = list(view.accolades)
        return sum(model.stock_value(c) for c in cards) / max(len(cards), 1)

    def _trophy_values(self, model: Model, obs: pb.Observation) -> dict[str, float]:
        """What each Trophy option is worth. On a row-1 card a Trophy is worth the action it
        triggers now (and nothing once placed); on a bottom-row card it is worth the end score
        it makes there. A move or a bottom-row Trophy is therefore scored by the engine on a
        world from the observation: the seat's score if the game ended after the option,
        against the score as it stands. While rounds remain a Trophy on the majority card
        also keeps a cushion against the others' later cards."""
        world = _world(obs)
        (decision,) = [d for d in world.pending if d.seat == obs.seat]
        now = _end_total(world, obs.seat)
        values: dict[str, float] = {}
        for option in decision.options:
            if option.id == "pass":
                values[option.id] = 0.2
                continue
            if option.id.startswith("trophy:"):
                i = int(option.id.removeprefix("trophy:")) - 1
                if model.layout[i].row == 1:
                    values[option.id] = _ACTION_TROPHY.get(model.layout[i].action, 0.0)
                    continue
                cushion = self._cushion(model, i)
            else:
                a, b = option.id.removeprefix("move:").split("@")
                cushion = self._cushion(model, int(b) - 1) - self._cushion(model, int(a) - 1)
            after = GAME.clone(world)
            GAME.advance(after, {obs.seat: option})
            values[option.id] = _end_total(after, obs.seat) - now + cushion
        return values

    def _cushion(self, model: Model, i: int) -> float:
        """A Trophy on the majority card while rounds remain: the others may still catch up."""
        return 1.0 if model.left and model.layout[i].score == "majority" else 0.0

    def _activate_value(self, model: Model, obs: pb.Observation, scoring: str) -> float:
        me = model.me
        projected = model.cards + model.left * 1.6
        if scoring == "cards18":
            return 7.0 * min(1.0, max(0.0, (projected - 12) / 6))
        if scoring == "attribute":
            return max(model.attrs.values(), default=0) + model.left * 0.4
        if scoring == "family":
            per: dict[str, set[str]] = {}
            for c in list(me.accolades) + list(me.stock):
                p, a = split(c)
                per.setdefault(p, set()).add(a)
            most = max((len(v) for v in per.values()), default=0)
            return 7.0 * min(1.0, (most + model.left * 0.3) / 5) ** 2
        same = Counter(split(model.face_up(i))[1] for i in range(len(model.wall)) if model.face_up(i))
        empty = sum(1 for w in model.wall if not w.filled)
        return 7.0 * min(1.0, (max(same.values(), default=0) + empty * 0.3) / 5) ** 2

    def _end_wild(self, model: Model, obs: pb.Observation, ids: list[str]) -> str:
        """An end-game Wild: nothing is left to play but the Wilds, so each option's own final
        score is counted exactly by the engine's scoresheet on a world built from the observation
        (the deck and others' hidden cards, which a world deals, do not score for this seat; a
        Wild changes an attribute, not a people, so no majority moves). The best score wins; its
        ties go to the usual valuation."""
        world = _world(obs)
        pending = {d.seat: d for d in world.pending}
        scores: dict[str, int] = {}
        for option in pending[obs.seat].options:
            after = GAME.clone(world)
            # The other seats' Wilds (placed at once) do not change this seat's score.
            GAME.advance(after, {s: option if s == obs.seat else d.options[0] for s, d in pending.items()})
            scores[option.id] = total(after, obs.seat)
        best = max(scores.values())
        return self._wild(model, obs, [i for i in ids if scores[i] == best])

    def _wild(self, model: Model, obs: pb.Observation, ids: list[str]) -> str:
        if "pass" in ids:
            return "pass"
        best, best_value = ids[0], -1e9
        for option in ids:
            parts = option.split(":")
            if parts[1] == "acc":
                card, new = parts[2], parts[3]
                old = split(card)[1]
            else:
                i = int(parts[1]) - 1
                w = model.wall[i]
                old, new = w.card.split("-")[1], parts[2]
                space = model.layout[i]
                value = 0.0
                if model.horn and space.score == "attribute":
                    value = 2 * (model.attrs[new] - model.attrs[old])
                if value > best_value:
                    best, best_value = option, value
                continue
            attrs = Counter(model.attrs)
            before = min(attrs[x] for x in ATTRS)
            attrs[old] -= 1
            attrs[new] += 1
            after = min(attrs[x] for x in ATTRS)
            series = 7 if model.me.series_tile else 4
            value = (after - before) * (series - (1 if model.me.penalty else 0))
            if not model.horn:
                value = max(attrs.values()) - max(model.attrs.values())
            if value > best_value:
                best, best_value = option, value
        return best


_ACTION_TROPHY = {"steal": 2.0, "peek": 2.0, "keep": 1.2, "trophy": 0.3}
"""A Trophy placed on a row-1 card: the worth of the action it triggers at once."""


def _world(obs: pb.Observation) -> SeasonState:
    """A world built from the observation alone (the deck and others' hidden cards are dealt;
    none of them scores for the seat)."""
    options = {"side": "horn" if obs.side == pb.HORN else "shield", "expert": obs.expert}
    return GAME.world_from_observation(GAME.config(len(obs.seats), options), obs.seat, obs, Chance(0))


def _end_total(state: SeasonState, seat: int) -> int:
    """The seat's score if the game ended now: every stock and kept card joins the accolades
    first, as at the game end (the others' stocks count toward their majorities then; before
    the last turn a kept card may still go on the wall instead)."""
    end = GAME.clone(state)
    for s in range(end.players):
        kept = [end.kept[s]] if end.kept[s] != EMPTY else []
        end.accolades[s] = sorted(end.accolades[s] + end.stock[s] + kept)
        end.stock[s], end.kept[s] = [], EMPTY
    return total(end, seat)


def _replaced_total(world: SeasonState, seat: int, option: Option) -> int:
    """The seat's end total after ``option`` of a replace; after the card, with its best space."""
    after = GAME.clone(world)
    GAME.advance(after, {seat: option})
    if after.ask is not None and after.ask.kind == "replace":  # the card is chosen: now its space
        (decision,) = after.pending
        return max(_replaced_total(after, seat, space) for space in decision.options)
    return _end_total(after, seat)


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("future", 0.2, 0.0, 1.0)])
    return HeuristicBot(values["future"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:future=0.05"]
