"""Chicken! — push-your-luck dice for 2–8 players, first to 25 (``shared/rules/chicken.md``).

Rules as implemented (rulebook line references in brackets):

* 4 White, 4 Yellow and 4 Orange dice [:20–22]; the Yellow and Orange wait in the Coop [:31];
  a random player starts [:32–33] and holds the 4 White dice [:34]. Score = track position,
  starting space = 0 [:29, :142].
* Turn start [:40–59]: Go For It! rolls every die passed to you; Chicken Out! returns the
  Yellow/Orange dice to the Coop, costs 1 point (not on the starting space) and rolls the 4 White.
* A roll [:65–75]: Chickens and Double Chickens are set aside right, Foxes left, Eggs and Blanks
  stay in the middle. 3 or more Foxes showing this turn bust you at once.
* Hatching [:81–97]: after a roll that did not bust, one die per Egg comes from the Coop,
  Yellow first, Orange when no Yellow is left, none when the Coop is empty; it joins the middle
  unrolled (a Blank) [:99].
* Reroll or count [:103–131]: one optional reroll per turn of every die in the middle (Eggs,
  Blanks, new dice) [:114–122]; after it: set aside, bust check, hatch, count [:124–131].
* Count [:137–146]: Chicken 1 point, Double Chicken 2; move that many spaces; pass every die to
  the next player clockwise.
* Bust [:150–157]: 0 points, Yellow/Orange back to the Coop, only the 4 White passed on.
* End [:163–167]: ending a turn with 25 or more wins at once.
* Eggspansion (option ``eggspansion``) [:185–394]: every non-White die (4 Yellow, 4 Orange,
  Blue the Dog, Mother Hen) starts in the Seed Bag and 5 random ones go to the Coop [:210–224].
  Each hatch takes any Coop die or a random bag die [:243–254]. A bust or a Chicken Out returns
  the pool's non-White dice to the bag and refills the Coop to 5 from it [:260–278]. Happy Dog
  scores 1 but stays in the middle [:291–303]; Bark! is set aside left and cancels 1 Fox
  [:307–324]; Chick is an Egg that also scores 1 and stays in the middle [:337–349]; Mother Hen's
  Double Chicken is worth 2 [:353–359].

Rulings (``shared/rules/NOTES.md`` §4.1 unless stated):

1. **Players** 2–8 (8 Player Tokens, :19).
2. **The pool passes intact** after a count: every die the player held, hatched ones included
   (ruling 1 of NOTES). The faces are reset: the next player sees dice, not results.
3. **Chicken Out penalty**: score − 1, none at score 0 (a player back on 0 is on the starting
   space again) (NOTES 2). Both options are always offered, even when the pool holds only White
   dice (then Chicken Out can only cost a point, or in the Eggspansion refill the Coop).
4. **Dice hatched after the reroll** stay in the pool unrolled and are passed on (NOTES 3).
5. **Foxes are cumulative** over the roll and the reroll; set-aside dice are never rerolled
   (NOTES 4). **Bark** cancels one Fox for the whole turn (NOTES 10): bust = Foxes − Barks ≥ 3.
6. **Reroll** is optional, at most once, of every die in the middle (NOTES 5). With no die in the
   middle there is nothing to reroll: the count follows without a decision.
7. **End** is immediate on a count reaching 25; other players get no further turn (NOTES 6).
   Ranks: the winner first, the others by score (equal scores share a place).
8. **Eggspansion refill** only after a bust or a Chicken Out, never after a count or a hatch
   (NOTES 7); it stops when the bag is empty (NOTES 8). The pool's dice go back into the bag
   *before* the refill, so they may be drawn again [:263–265].
9. **Happy Dog and Chick** score only if still showing at the count (NOTES 11); a Chick hatches
   like an Egg. Resolution order per roll: set aside, bust check, hatch (NOTES 12).
10. **Hatch choice** (Eggspansion): one decision per Egg/Chick, ``coop:<die>`` per die type in
    the Coop (dice of one type are identical) and ``bag`` while the bag is not empty. With a
    single possibility it is applied without a decision; with none, nothing hatches [:252–254].
11. **Start player** "most recently held a chicken" [:32–33]: a seeded random seat.
12. **Nothing is hidden.** The bag's contents are deducible (all non-White dice − Coop − pool)
    and given in the observation; its draws are chance at the moment of drawing.

Length: no hard bound. Scoring is automatic and only the dice make it: a bust or a roll with no
Chicken scores nothing whatever the player chooses, so chance alone can keep turns scoreless
(and Chicken Out costs a point). No choice of the seats can prolong a game much: stalling
policies (Chicken Out whenever above 0, or always Go For It and reroll to chase a bust), by one
seat or by all, made the longest of 100 games 81 / 127 / 245 steps at 2 / 4 / 8 players against
78 / 121 / 211 for random play (an outside probe). The playout test checks 1,500 steps over its
2,000+ games.

Chance labels, in draw order: ``"start"`` (pick of the first seat among ``range(players)``),
``"bag"`` (Eggspansion: the 5 setup draws into the Coop, then every later draw — hatch or
refill — in order; a pick among the bag's dice listed by type name, e.g. ``"yellow"``, one entry
per die), ``"die"`` (every die roll, 1–6 = the index+1 of the face in ``components.toml``, the
dice of a roll in pool order: the 4 White first, then hatched dice in hatching order).

Component data (White/Yellow/Orange faces found, Blue the Dog and Mother Hen faces designed)
is in ``components.toml`` with its sources; ``bench/design_chicken.py`` checks it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig, OptionSpec
from arena.engine import (
    CHANCE_SEAT,
    SPECTATOR,
    Decision,
    Game,
    GameMeta,
    MatchState,
    Option,
    Result,
    Variant,
)
from arena.games.v1 import chicken_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

WHITE: int = pb.WHITE
YELLOW: int = pb.YELLOW
ORANGE: int = pb.ORANGE
BLUE: int = pb.BLUE
HEN: int = pb.HEN
DIE_NAMES: dict[int, str] = {WHITE: "white", YELLOW: "yellow", ORANGE: "orange", BLUE: "blue", HEN: "hen"}
DIE_BY_NAME = {name: die for die, name in DIE_NAMES.items()}
NON_WHITE = (YELLOW, ORANGE, BLUE, HEN)
TYPES = 6  # length of the per-type count arrays (indexed by DieType value)

FACE_BY_NAME: dict[str, int] = {
    "blank": pb.BLANK,
    "chicken": pb.CHICKEN,
    "double": pb.DOUBLE_CHICKEN,
    "fox": pb.FOX,
    "egg": pb.EGG,
    "happy": pb.HAPPY_DOG,
    "bark": pb.BARK,
    "chick": pb.CHICK,
}
FACE_NAMES: dict[int, str] = {
    pb.NOT_ROLLED: "unrolled",
    pb.BLANK: "Blank",
    pb.CHICKEN: "Chicken",
    pb.DOUBLE_CHICKEN: "Double Chicken",
    pb.FOX: "Fox",
    pb.EGG: "Egg",
    pb.HAPPY_DOG: "Happy Dog",
    pb.BARK: "Bark",
    pb.CHICK: "Chick",
}
FACES: dict[int, tuple[int, ...]] = {
    die: tuple(FACE_BY_NAME[f] for f in _DATA["faces"][name]["faces"]) for die, name in DIE_NAMES.items()
}
SIDES = 6
assert all(len(faces) == SIDES for faces in FACES.values())

TARGET: int = _DATA["game"]["target"]
BUST_FOXES: int = _DATA["game"]["bust_foxes"]
WHITE_DICE: int = _DATA["game"]["white_dice"]
BASE_COOP = {DIE_BY_NAME[k]: v for k, v in _DATA["game"]["coop_dice"].items()}
EXPANSION_DICE = {DIE_BY_NAME[k]: v for k, v in _DATA["game"]["eggspansion_dice"].items()}
EXPANSION_COOP: int = _DATA["game"]["eggspansion_coop"]

SET_ASIDE: frozenset[int] = frozenset({pb.CHICKEN, pb.DOUBLE_CHICKEN, pb.FOX, pb.BARK})
"""Faces set aside (never rerolled); every other face stays in the middle."""
HATCHING: frozenset[int] = frozenset({pb.EGG, pb.CHICK})
POINTS: dict[int, int] = {pb.CHICKEN: 1, pb.DOUBLE_CHICKEN: 2, pb.HAPPY_DOG: 1, pb.CHICK: 1}


def all_non_white(eggspansion: bool) -> list[int]:
    """Counts per DieType value of every non-White die in play."""
    counts = [0] * TYPES
    for die, n in BASE_COOP.items():
        counts[die] += n
    if eggspansion:
        for die, n in EXPANSION_DICE.items():
            counts[die] += n
    return counts


def points_of(faces: Iterable[int]) -> int:
    """What Count Your Chickens scores for these faces [:139–140, :295, :342, :357]."""
    return sum(POINTS.get(f, 0) for f in faces)


def uncanceled_foxes(faces: Sequence[int]) -> int:
    return max(0, faces.count(pb.FOX) - faces.count(pb.BARK))


def die_label(die: int, face: int) -> str:
    return f"{DIE_NAMES[die]} {FACE_NAMES[face]}"


GO = Option("go", "Go For It! roll every die passed to you", pb.Action(kind=pb.GO))
CHICKEN_OUT = Option(
    "chicken", "Chicken Out! return the extra dice and roll the 4 White", pb.Action(kind=pb.CHICKEN_OUT)
)
REROLL = Option("reroll", "reroll every die in the middle (your one reroll)", pb.Action(kind=pb.REROLL_DICE))
COUNT = Option("count", "Count Your Chickens", pb.Action(kind=pb.COUNT))
HATCH_BAG = Option("bag", "draw a random die from the Seed Bag", pb.Action(kind=pb.HATCH_BAG))
HATCH_COOP = {
    die: Option(
        f"coop:{DIE_NAMES[die]}",
        f"take {'an' if DIE_NAMES[die][0] in 'aeiou' else 'a'} {DIE_NAMES[die]} die from the Coop",
        pb.Action(kind=pb.HATCH_COOP, die=die),  # type: ignore[arg-type]
    )
    for die in NON_WHITE
}


@dataclass
class ChickenState(MatchState):
    eggspansion: bool = False
    scores: list[int] = field(default_factory=list)
    turn_seat: int = 0
    turn: int = 1
    phase: int = pb.TURN
    pool: list[int] = field(default_factory=list)  # die types, rolled in this order
    faces: list[int] = field(default_factory=list)  # face showing per pool die
    rerolled: bool = False
    hatches_left: int = 0
    coop: list[int] = field(default_factory=list)  # counts per DieType value
    bag: list[int] = field(default_factory=list)  # counts per DieType value (Eggspansion)
    winner: int = -1


def _white_pool() -> list[int]:
    return [WHITE] * WHITE_DICE


class Chicken(Game[ChickenState]):
    meta = GameMeta(
        id="chicken",
        name="Chicken!",
        min_players=2,
        max_players=8,
        version="1",
        options=(OptionSpec("eggspansion", False, "play with the Eggspansion (Seed Bag, Blue the Dog, Mother Hen)"),),
        variants=(
            Variant(
                "eggspansion",
                "the Eggspansion: Seed Bag, a 5-die Coop, Blue the Dog and Mother Hen",
                {"eggspansion": True},
            ),
        ),
        summary="Roll for Chickens, hatch more dice from Eggs, reroll once or count; 3 Foxes bust "
        "you; first to 25 wins.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> ChickenState:
        players = config.players
        eggspansion = bool(config["eggspansion"])
        start = chance.pick(range(players), "start")
        state = ChickenState(
            config=config,
            chance=chance,
            eggspansion=eggspansion,
            scores=[0] * players,
            turn_seat=start,
            pool=_white_pool(),
            faces=[pb.NOT_ROLLED] * WHITE_DICE,
            coop=[0] * TYPES,
            bag=[0] * TYPES,
        )
        state.log.public(CHANCE_SEAT, "start", f"seat {start} goes first with the 4 White dice", pb.Detail(seat=start))
        if eggspansion:
            state.bag = all_non_white(True)
            drawn = self._refill(state)
            state.log.public(
                CHANCE_SEAT,
                "coop",
                f"draws {', '.join(DIE_NAMES[d] for d in drawn)} from the Seed Bag into the Coop",
                pb.Detail(seat=CHANCE_SEAT, dice=[_die_pb(d) for d in drawn]),
            )
        else:
            state.coop = all_non_white(False)
        return state

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: ChickenState) -> Iterable[Decision]:
        phase = state.phase
        if phase == pb.TURN:
            return (Decision(state.turn_seat, "turn", (GO, CHICKEN_OUT)),)
        if phase == pb.REROLL:
            return (Decision(state.turn_seat, "reroll", (REROLL, COUNT)),)
        if phase == pb.HATCH:
            return (Decision(state.turn_seat, "hatch", self._hatch_options(state)),)
        return ()

    @staticmethod
    def _hatch_options(state: ChickenState) -> tuple[Option, ...]:
        options = [HATCH_COOP[die] for die in NON_WHITE if state.coop[die]]
        if any(state.bag):
            options.append(HATCH_BAG)
        return tuple(options)

    def resolve(self, state: ChickenState, chosen: Mapping[int, Option]) -> None:
        (seat, option), *_ = chosen.items()
        action = option.action
        assert isinstance(action, pb.Action)
        kind = action.kind
        if kind == pb.GO:
            self._go(state, seat)
        elif kind == pb.CHICKEN_OUT:
            self._chicken_out(state, seat)
        elif kind == pb.REROLL_DICE:
            self._roll(state, seat, reroll=True)
        elif kind == pb.COUNT:
            self._count(state, seat)
        else:
            die = self._draw(state) if kind == pb.HATCH_BAG else self._take(state, action.die)
            self._hatched(state, seat, die, kind == pb.HATCH_BAG)
            self._continue_hatching(state, seat)

    # -- rules ------------------------------------------------------------------------------

    def _go(self, state: ChickenState, seat: int) -> None:
        state.log.public(
            seat,
            "go",
            f"goes for it with {len(state.pool)} dice",
            pb.Detail(seat=seat, dice=[_die_pb(d) for d in state.pool]),
        )
        self._roll(state, seat, reroll=False)

    def _chicken_out(self, state: ChickenState, seat: int) -> None:
        returned = [d for d in state.pool if d != WHITE]
        lost = 1 if state.scores[seat] > 0 else 0  # ruling 3
        state.scores[seat] -= lost
        state.pool = _white_pool()
        state.faces = [pb.NOT_ROLLED] * WHITE_DICE
        where = self._return_dice(state, returned)
        state.log.public(
            seat,
            "chicken-out",
            f"chickens out: returns {len(returned)} dice to the {where}, loses {lost} point{'s' * (lost != 1)} "
            f"(score {state.scores[seat]})",
            pb.Detail(seat=seat, points=lost, score=state.scores[seat], dice=[_die_pb(d) for d in returned]),
        )
        if state.eggspansion:
            self._refill_event(state)
        self._roll(state, seat, reroll=False)

    def _roll(self, state: ChickenState, seat: int, reroll: bool) -> None:
        """Roll every die (or, on the reroll, every die in the middle), then resolve."""
        chance = state.chance
        faces = state.faces
        rolled = []
        for i, die in enumerate(state.pool):
            if reroll and faces[i] in SET_ASIDE:
                continue
            faces[i] = FACES[die][chance.roll(SIDES, "die") - 1]
            rolled.append(i)
        state.rerolled = reroll
        foxes, barks = faces.count(pb.FOX), faces.count(pb.BARK)
        shown = [die_label(state.pool[i], faces[i]) for i in rolled]
        state.log.public(
            seat,
            "roll",
            f"{'rerolls' if reroll else 'rolls'} {', '.join(shown) or 'nothing'} ({foxes} Fox{'es' * (foxes != 1)}"
            + (f", {barks} Bark" if barks else "")
            + ")",
            pb.Detail(
                seat=seat,
                dice=[_die_pb(state.pool[i], faces[i]) for i in rolled],
                rerolled=reroll,
                foxes=foxes,
                barks=barks,
            ),
        )
        if foxes - barks >= BUST_FOXES:
            self._bust(state, seat, foxes, barks)
            return
        state.hatches_left = sum(1 for i in rolled if faces[i] in HATCHING)
        self._continue_hatching(state, seat)

    def _continue_hatching(self, state: ChickenState, seat: int) -> None:
        """Hatch the roll's remaining Eggs (automatic unless a real choice is open), then go on."""
        while state.hatches_left:
            if not state.eggspansion:
                die = YELLOW if state.coop[YELLOW] else ORANGE if state.coop[ORANGE] else 0
                if die:
                    state.coop[die] -= 1
                self._hatched(state, seat, die, False)
                continue
            options = self._hatch_options(state)
            if len(options) > 1:
                state.phase = pb.HATCH
                return
            if not options:
                self._hatched(state, seat, 0, False)
            elif options[0] is HATCH_BAG:
                self._hatched(state, seat, self._draw(state), True)
            else:
                action = options[0].action
                assert isinstance(action, pb.Action)
                self._hatched(state, seat, self._take(state, action.die), False)
        if not state.rerolled and any(f not in SET_ASIDE for f in state.faces):
            state.phase = pb.REROLL
        else:
            self._count(state, seat)  # ruling 6: after the reroll, or nothing in the middle

    def _hatched(self, state: ChickenState, seat: int, die: int, from_bag: bool) -> None:
        state.hatches_left -= 1
        if die:
            state.pool.append(die)
            state.faces.append(pb.NOT_ROLLED)
            article = "an" if DIE_NAMES[die][0] in "aeiou" else "a"
            text = f"hatches {article} {DIE_NAMES[die]} die from the {'Seed Bag' if from_bag else 'Coop'}"
        else:
            text = "hatches nothing: no die is left"
        state.log.public(seat, "hatch", text, pb.Detail(seat=seat, die=die, from_bag=from_bag))  # type: ignore[arg-type]

    @staticmethod
    def _take(state: ChickenState, die: int) -> int:
        state.coop[die] -= 1
        return die

    @staticmethod
    def _draw(state: ChickenState) -> int:
        """One random die from the Seed Bag (label ``"bag"``)."""
        names = [DIE_NAMES[d] for d in NON_WHITE for _ in range(state.bag[d])]
        die = DIE_BY_NAME[state.chance.pick(names, "bag")]
        state.bag[die] -= 1
        return die

    def _refill(self, state: ChickenState) -> list[int]:
        """Draw from the bag until the Coop holds 5 dice or the bag is empty (ruling 8)."""
        drawn = []
        while sum(state.coop) < EXPANSION_COOP and any(state.bag):
            die = self._draw(state)
            state.coop[die] += 1
            drawn.append(die)
        return drawn

    def _refill_event(self, state: ChickenState) -> None:
        drawn = self._refill(state)
        names = ", ".join(DIE_NAMES[d] for d in drawn) or "nothing"
        state.log.public(
            CHANCE_SEAT,
            "refill",
            f"refills the Coop from the Seed Bag: {names}",
            pb.Detail(seat=CHANCE_SEAT, dice=[_die_pb(d) for d in drawn]),
        )

    def _return_dice(self, state: ChickenState, dice: Sequence[int]) -> str:
        target = state.bag if state.eggspansion else state.coop
        for die in dice:
            target[die] += 1
        return "Seed Bag" if state.eggspansion else "Coop"

    def _bust(self, state: ChickenState, seat: int, foxes: int, barks: int) -> None:
        returned = [d for d in state.pool if d != WHITE]
        where = self._return_dice(state, returned)
        state.log.public(
            seat,
            "bust",
            f"busts with {foxes - barks} Foxes: scores nothing, returns {len(returned)} dice to the {where}",
            pb.Detail(seat=seat, foxes=foxes, barks=barks, dice=[_die_pb(d) for d in returned]),
        )
        if state.eggspansion:
            self._refill_event(state)
        self._pass(state, _white_pool())

    def _count(self, state: ChickenState, seat: int) -> None:
        points = points_of(state.faces)
        state.scores[seat] += points
        score = state.scores[seat]
        state.log.public(
            seat,
            "count",
            f"counts {points} point{'s' * (points != 1)}: score {score}",
            pb.Detail(seat=seat, points=points, score=score),
        )
        if score >= TARGET:
            state.winner = seat
            state.phase = pb.OVER
            state.hatches_left = 0
            state.log.public(seat, "end", f"seat {seat} wins with {score} points", pb.Detail(seat=seat, score=score))
            return
        self._pass(state, state.pool)

    @staticmethod
    def _pass(state: ChickenState, pool: list[int]) -> None:
        """The turn ends: the dice pass to the next seat clockwise, faces reset (ruling 2)."""
        state.pool = pool
        state.faces = [pb.NOT_ROLLED] * len(pool)
        state.rerolled = False
        state.hatches_left = 0
        state.turn_seat = (state.turn_seat + 1) % state.players
        state.turn += 1
        state.phase = pb.TURN

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: ChickenState, viewer: int) -> pb.Observation:
        faces = state.faces
        return pb.Observation(
            seat=max(viewer, 0),
            spectator=viewer == SPECTATOR,
            players=state.players,
            target=TARGET,
            eggspansion=state.eggspansion,
            phase=state.phase,  # type: ignore[arg-type]
            turn_seat=state.turn_seat,
            scores=state.scores,
            pool=[_die_pb(d, f) for d, f in zip(state.pool, faces, strict=True)],
            rerolled=state.rerolled,
            foxes=faces.count(pb.FOX),
            barks=faces.count(pb.BARK),
            points=points_of(faces),
            hatches_left=state.hatches_left,
            coop=state.coop,
            bag=state.bag,
            bag_size=sum(state.bag),
            winner=state.winner,
            turn=state.turn,
        )

    def score(self, state: ChickenState) -> Result:
        keys = [(seat == state.winner, score) for seat, score in enumerate(state.scores)]
        return Result.ranked(state.scores, keys, f"winner: seat {state.winner} ({state.scores[state.winner]} points)")

    # -- determinization --------------------------------------------------------------------

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> ChickenState:
        """Nothing is hidden (ruling 12): the observation is the whole state (the pool with its
        faces, Coop and Seed Bag counts, scores, phase); only the dice and bag draws to come are
        fresh."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        state = ChickenState(
            config=config,
            chance=chance.fork(),
            eggspansion=obs.eggspansion,
            scores=list(obs.scores),
            turn_seat=obs.turn_seat,
            turn=obs.turn,
            phase=obs.phase,
            pool=[d.type for d in obs.pool],
            faces=[d.face for d in obs.pool],
            rerolled=obs.rerolled,
            hatches_left=obs.hatches_left,
            coop=list(obs.coop),
            bag=list(obs.bag),
            winner=obs.winner,
        )
        self.refresh(state)
        return state


_DIE_PB: dict[tuple[int, int], pb.Die] = {
    (d, f): pb.Die(type=d, face=f)  # type: ignore[arg-type]
    for d in DIE_NAMES
    for f in FACE_NAMES
}


def _die_pb(die: int, face: int = pb.NOT_ROLLED) -> pb.Die:
    """The die's message (shared: protobuf copies it into every field it is put in)."""
    return _DIE_PB[die, face]


GAME = Chicken()
