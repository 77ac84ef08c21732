"""Open Sesame — Ali Baba pushes his luck, the thieves recite, the cavern is shared (``shared/rules/opensesame.md``).

Rules as implemented (rulebook line references in brackets):

* Components [:17-22]: 45 treasure cards, 9 shiny, 7 noisy, 5 encumbering, each printing its
  number of copies; 1 Chief Thief card; 9 alarm tokens. 3-5 players (DATA 18). The treasure
  list is designed (``components.toml``).
* Setup [:26-28]: the treasures are shuffled; the Chief Thief goes on top of the bottom eight
  cards. A random seat is the first Ali Baba (ruling 2).
* A round [:38-47]: Ali Baba reveals the pile's top card to everyone and puts it in his hand
  (the first card of a round without asking). After each reveal the thief whose turn it is
  recites the cavern [:39-44] (decision ``recite``); after a correct recitation Ali Baba draws
  again or says "Open sesame!" (decision ``draw``) [:46, :63]; the next reveal is recited by
  the next thief clockwise [:47].
* Alarms [:53-57]: a shiny, noisy or encumbering treasure gives Ali Baba its alarm token; 3
  identical or 3 different tokens and he is captured: the round ends at once.
* Sharing [:61-69] (decisions ``take``), one card per pick until the cavern is empty:
  case 1 "Open sesame!": from Ali Baba clockwise, everyone; case 2 a wrong recitation: Ali Baba
  takes 3, then everyone but the thief at fault from Ali Baba's left, Ali Baba included; case 3
  a capture: the thieves only, from Ali Baba's left. The figurine passes left [:71].
* End [:75-78]: the round in which the Chief Thief is revealed is the last; it goes on
  normally; the Chief Thief is a treasure. An empty pile ends the round as case 1.
* Scoring [:82-88]: 1 point per different treasure collected; ties go to the most unique (x1)
  treasures.
* Variants [:92-94]: options ``younger`` (the cards are shown during each recitation) and
  ``experienced`` (recitations in reveal order, each card with its adjective). The 2-player
  variant is not printed [:96]: 3-5 players only. Arena variant (designed, ruling 12):
  ``memory=human``, thieves slip by chance on long caverns.

Rulings (``shared/rules/NOTES.md`` §4.12 unless stated):

1. **Memory is perfect** (the arena's ruling on a memory game): a seat knows everything it has
   seen. Every card of the cavern was revealed to all [:38], and every card taken in a share
   was picked in view of all, so the cavern (grouped and in reveal order) and every collection
   are in every seat's observation, although the cards lie face down at the table [:49, :69].
   The only hidden thing is the order of the draw pile. A recitation is therefore a choice:
   ``recite`` states the cavern exactly as it is (grouped [:44]; any order), ``fumble`` says
   something wrong on purpose (which wrong words do not matter: Ali Baba only judges right or
   wrong [:40], and the referee judges for him, honestly). A fumble ends the round as case 2.
2. **First Ali Baba** [:28] "the youngest": a seeded random seat (chance label ``"ali-baba"``).
3. **Who recites** (NOTES 1): the first reveal of a round is recited by the thief to Ali
   Baba's left, each further reveal by the next thief clockwise (Ali Baba is skipped).
4. **A capture comes before the recitation** (NOTES 2): the card that completes 3 identical or
   3 different alarms ends the round at once; nobody recites it.
5. **Case 2 order** (NOTES 3): Ali Baba takes 3 cards (all of them if the cavern holds 3 or
   fewer), then picks go round from Ali Baba's left, skipping the thief at fault and including
   Ali Baba, until the cavern is empty.
6. **Empty pile** (NOTES 5, [:78]): after a correct recitation with no card left, Ali Baba must
   leave: the cavern is shared as in case 1 (event ``open-sesame`` with ``forced``); no
   ``draw`` decision is asked. A fumble or a capture on the last card keeps its own case.
7. **The Chief Thief** (NOTES 4): a treasure of its own with no alarm, recited like any card;
   being a single card it counts as a unique (x1) treasure in the tie-break.
8. **Tie-break** (NOTES 6): most unique (x1) treasures, i.e. treasures whose printed number is
   1; still equal: the placing is shared.
9. **Forced picks are automatic**: when the cavern holds one treasure only, or every pick left
   belongs to one seat, the cards are taken without asking (in treasure order); identical
   cards are one option.
10. **Variants under ruling 1**: with perfect memory neither variant changes what a seat knows
    or can do; they change what is said. ``younger``: Ali Baba shows the cards while the thief
    recites (the ``recite`` event has ``shown``). ``experienced``: the recitation lists the
    cards in reveal order (not grouped), each with its treasure's adjective
    (``components.toml``: "scary lion", "enormous diamond" are the rulebook's); the ``recite``
    event carries it as ``spoken``. Both can be combined.
11. **Alarm tokens**: 3 of each type (NOTES §2); a round never needs more (two pairs is the
    most a free Ali Baba holds). They go back to the middle after each round.
12. **Human memory** (option ``memory=human``, an arena design, not in the rulebook): with
    perfect memory (ruling 1) nobody ever errs, which takes away one reason a long cavern is
    worth its risk in the rulebook's game (case 2 hands Ali Baba 3 cards first). The option
    puts the table's memory back as chance: a thief who chooses ``recite`` for a cavern of n
    cards still slips with ``slip_percent[n]`` percent (``components.toml``: 0 up to 3 cards,
    then 5, 10, 20, 30, 45, 60, 75, 90), drawn with chance label ``"memory"``; a slip is a
    ``fumble`` event with ``slip`` and ends the round as case 2 (the slipping thief is at
    fault). The chance is in the observation, so bots can weigh it. With ``younger`` as well the
    chance is the same: Ali Baba reveals each card as the thief names it [:92], so the thief
    still recites from memory.

Bound: each reveal takes one card of the 46 (45 treasures + the Chief Thief) and asks at most
one ``recite`` and one ``draw``; each card is taken once in a share. So a match has at most 46
rounds and 46 x 3 = 138 decisions.

Chance labels, in draw order: ``"ali-baba"`` (pick of the first Ali Baba, items are the seats),
``"treasures"`` (one shuffle of the 45 treasure cards, items are treasure ids 1-21 in the
order of :func:`treasure_cards`; the Chief Thief, id 22, is then put 8 cards from the bottom),
then, with ``memory=human`` only, one ``"memory"`` draw (a pick of 0-99) per ``recite`` of a
cavern whose slip chance is above 0 (a slip when the draw is below the chance).

Designed data (``components.toml``), checked with ``bench/design_opensesame.py`` (heuristic
self-play, 100 matches per figure; "one X vs heuristic" = one seat playing X against
heuristic opponents, seat rotated; the equal share is 1/N):

* Perfect memory, 3 players: 8.3 rounds a match (5.5 cards a round); rounds end by "Open
  sesame!" 89%, capture 11%; Ali Baba opens with 4 cards (= players + 1, two picks for him)
  49% of the time, 7+ cards 26%, 1 card 3%. Mean score 12.2 of 22; the tie-break decides 76%
  of top ties, 9% of matches stay shared. Win share by position from the first Ali Baba
  0.36 / 0.355 / 0.285 (seat advantage: the first two Ali Babas get one more turn more often).
  Fixed strategies against the heuristic: open at 1 card 0.320, at 4 cards 0.303, at 2 cards
  0.235, at 3 cards 0.098 (a second card feeds the next thief, a third the one after), more
  caution (nerve 0.7) 0.385, more nerve (1.5) 0.135, no spite 0.297: no option is always
  right, and stopping at 1 and at players + 1 are both sound.
* Perfect memory, 5 players: 11.0 rounds, 4.2 cards a round, capture 7%; Ali Baba opens at 1
  card 44% and at 6 (= players + 1) 37%; mean score 7.9; win share by position 0.249 / 0.231
  / 0.251 / 0.186 / 0.083 (the fifth seat is Ali Baba least often before the Chief Thief).
  Open at 1: 0.183, at 6: 0.142, at 2: 0.057, at 3: 0.045; nerve 0.7: 0.223, nerve 1.5:
  0.093, no spite: 0.142 (equal 0.2).
* Human memory (``memory=human``): slips end 30% (3p) to 35% (5p) of the rounds, captures
  13-17%; Ali Baba still mostly opens at players + 1 or 7+; the heuristic, which weighs the
  slip chance, beats fixed stopping rules clearly (3p: open at 1 0.113, at 4 0.150; 5p: at 1
  0.025, at 6 0.113), so reading the slip table matters. Position shares 0.44 / 0.33 / 0.23
  at 3p: the first Ali Baba gains most from the slips (seat advantage reported, not fixed:
  the rotation is the rulebook's).
* Treasure list (``--editions``, 60 matches each, so +-0.06): against a flatter list (every
  treasure x2-x3) and a lumpier one (two x5 plain treasures, more uniques). Open at 1 card
  against the heuristic: arena 0.300 (3p) / 0.167 (5p), flat 0.500 / 0.183 (at 3p leaving with
  one card becomes the best play: cards are alike, a cavern buys little choice), lumpy 0.350 /
  0.147. Shared wins: arena 12% / 17%, flat 8% / 22%, lumpy 7% / 23%; the lumpy list also
  widened the 5p position spread (0.35 to 0.06). The arena list keeps pushing and stopping
  both sound with the fewest 5p shared wins.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig, OptionSpec
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result, Variant
from arena.games.v1 import opensesame_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))
_GAME = _DATA["game"]
MIN_PLAYERS: int = _GAME["min_players"]
MAX_PLAYERS: int = _GAME["max_players"]
BELOW_CHIEF: int = _GAME["below_chief"]
TOKENS_PER_TYPE: int = _GAME["alarm_tokens_per_type"]
CAPTURE_SAME: int = _GAME["capture_same"]
FUMBLE_TAKES: int = _GAME["fumble_takes"]
SLIP_PERCENT: tuple[int, ...] = tuple(_DATA["memory"]["slip_percent"])
_ALARMS = {"none": pb.NO_ALARM, "shiny": pb.SHINY, "noisy": pb.NOISY, "encumbering": pb.ENCUMBERING}


class TreasureSpec(NamedTuple):
    id: int  # the proto Treasure value (1-based)
    name: str
    copies: int
    alarm: int  # a proto Alarm value
    adjective: str


TREASURES: tuple[TreasureSpec, ...] = tuple(
    TreasureSpec(i, t["name"], t["copies"], _ALARMS[t["alarm"]], t["adjective"])
    for i, t in enumerate(_DATA["treasure"], 1)
)
BY_NAME = {t.name: t for t in TREASURES}
CHIEF: int = BY_NAME["chief_thief"].id


class Edition:
    """A treasure list: copies and alarm of each treasure of the proto's enum (the arena
    edition from ``components.toml``; the design bench tries others)."""

    def __init__(self, treasures: Sequence[TreasureSpec]) -> None:
        self.treasures = tuple(treasures)
        self.alarm_of: dict[int, int] = {t.id: t.alarm for t in self.treasures}
        self.unique: frozenset[int] = frozenset(t.id for t in self.treasures if t.copies == 1)
        self.catalogue = [
            pb.TreasureInfo(treasure=t.id, name=t.name, copies=t.copies, alarm=t.alarm, adjective=t.adjective)  # type: ignore[arg-type]
            for t in self.treasures
        ]

    def cards(self) -> list[int]:
        """The treasure cards (treasure ids, in treasure order), the Chief Thief excluded."""
        return [t.id for t in self.treasures if t.id != CHIEF for _ in range(t.copies)]

    def score_of(self, collection: Iterable[int]) -> tuple[int, int]:
        """(different treasures, different unique treasures) of a collection [:82-88]."""
        kinds = set(collection)
        return len(kinds), len(kinds & self.unique)


ARENA_EDITION = Edition(TREASURES)


def treasure_cards() -> list[int]:
    """The 45 treasure cards of the arena edition (treasure ids, in treasure order)."""
    return ARENA_EDITION.cards()


def name_of(treasure: int) -> str:
    return TREASURES[treasure - 1].name


def score_of(collection: Iterable[int]) -> tuple[int, int]:
    """(different treasures, different unique treasures) of a collection, arena edition."""
    return ARENA_EDITION.score_of(collection)


def slip_percent(cards: int) -> int:
    """The chance in percent that a thief slips reciting a cavern of this many cards
    (option memory = "human"; 0 with perfect memory)."""
    return SLIP_PERCENT[min(cards, len(SLIP_PERCENT) - 1)]


def captured(alarms: Sequence[int]) -> bool:
    """3 identical or 3 different alarm tokens [:57]."""
    return max(alarms) >= CAPTURE_SAME or min(alarms) >= 1


# --------------------------------------------------------------------------------------------
# Recitations (what a thief says; ruling 10)

_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}


def _words(name: str) -> str:
    return "Chief Thief" if name == "chief_thief" else name


def _article(words: str) -> str:
    return "an" if words[0] in "aeiou" or words.startswith("hour") else "a"


def _plural(words: str) -> str:
    if words == "Chief Thief":
        return "Chief Thieves"
    return words + ("es" if words.endswith(("s", "sh", "ch")) else "s")


def _join(parts: Sequence[str]) -> str:
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + ", and " + parts[-1]


def recitation(revealed: Sequence[int], experienced: bool = False) -> tuple[str, list[str]]:
    """The correct recitation of a cavern revealed in this order: the sentence and, in the
    experienced variant, the cards as spoken (in reveal order, each with its adjective)."""
    if experienced:
        spoken = [f"{TREASURES[t - 1].adjective} {_words(name_of(t))}" for t in revealed]
        phrases = [f"{_article(s)} {s}" for s in spoken]
        return f"In the cavern there is {_join(phrases)}.", spoken
    counts = Counter(revealed)
    phrases = []
    for t in dict.fromkeys(revealed):  # grouped, in order of first reveal
        words = _words(name_of(t))
        n = counts[t]
        phrases.append(f"{_article(words)} {words}" if n == 1 else f"{_COUNT_WORDS.get(n, str(n))} {_plural(words)}")
    verb = "are" if counts[revealed[0]] > 1 else "is"
    return f"In the cavern there {verb} {_join(phrases)}.", []


# --------------------------------------------------------------------------------------------
# State


@dataclass
class SesameState(MatchState):
    round: int = 0
    phase: pb.Phase.ValueType = pb.RECITE_PHASE
    ali_baba: int = 0
    reciter: int = 0  # the thief who recites the next reveal
    pile: list[int] = field(default_factory=list)  # treasure ids, top first (the Chief Thief included)
    cavern: list[int] = field(default_factory=list)  # Ali Baba's hand, in reveal order
    alarms: list[int] = field(default_factory=lambda: [0, 0, 0])  # shiny, noisy, encumbering
    collections: list[list[int]] = field(default_factory=list)  # per seat, in the order taken
    last_round: bool = False
    ending: pb.Ending.ValueType = pb.ENDING_UNSPECIFIED
    at_fault: int = -1
    order: list[int] = field(default_factory=list)  # seats of the picks still to come
    recitations: list[int] = field(default_factory=list)  # per seat: correct recitations
    fumbles: list[int] = field(default_factory=list)  # per seat: wrong recitations
    over: bool = False

    @property
    def younger(self) -> bool:
        return bool(self.config.options.get("younger"))

    @property
    def experienced(self) -> bool:
        return bool(self.config.options.get("experienced"))

    @property
    def human(self) -> bool:
        return self.config.options.get("memory") == "human"

    def slip_chance(self) -> int:
        """The chance in percent that the next correct recitation slips anyway."""
        return slip_percent(len(self.cavern)) if self.human else 0

    def next_thief(self, seat: int) -> int:
        """The next thief clockwise after ``seat`` (Ali Baba is skipped)."""
        nxt = (seat + 1) % self.players
        return (nxt + 1) % self.players if nxt == self.ali_baba else nxt


# --------------------------------------------------------------------------------------------
# Options

_DRAW = Option("draw", "draw and reveal the next treasure", pb.Action(kind=pb.DRAW))
_OPEN = Option("open-sesame", 'say "Open sesame!" and share the cavern', pb.Action(kind=pb.OPEN))
_RECITE = Option("recite", "recite the cavern correctly", pb.Action(kind=pb.RECITE))


def recite_option(slip_chance: int) -> Option:
    """Reciting the cavern; with human memory it may slip all the same (ruling 12), which its
    label says (it promised a correct recitation, and a person reading it could not know)."""
    if slip_chance == 0:
        return _RECITE
    return Option("recite", f"recite the cavern ({slip_chance}% chance to slip all the same)", _RECITE.action)


_FUMBLE = Option("fumble", "recite it wrong (the round ends, you get nothing)", pb.Action(kind=pb.WRONG))
_TAKE = {
    t.id: Option(f"take:{t.name}", f"take the {_words(t.name)}", pb.Action(kind=pb.TAKE, treasure=t.id))  # type: ignore[arg-type]
    for t in TREASURES
}


def take_options(cavern: Iterable[int]) -> tuple[Option, ...]:
    return tuple(_TAKE[t] for t in sorted(set(cavern)))


def pick_order(ending: int, n: int, ali_baba: int, players: int, at_fault: int = -1) -> list[int]:
    """The seats of the n picks of a share [:63-65], rulings 5 and 6."""
    if ending == pb.OPEN_SESAME:
        ring = [(ali_baba + i) % players for i in range(players)]
        first: list[int] = []
    elif ending == pb.FUMBLE:
        ring = [s for s in ((ali_baba + 1 + i) % players for i in range(players)) if s != at_fault]
        first = [ali_baba] * min(FUMBLE_TAKES, n)
    else:
        ring = [(ali_baba + 1 + i) % players for i in range(players - 1)]
        first = []
    rest = n - len(first)
    return first + [ring[i % len(ring)] for i in range(rest)]


def _detail(**fields: object) -> pb.Detail:
    return pb.Detail(**fields)  # type: ignore[arg-type]


def _counts(cards: Iterable[int]) -> list[pb.TreasureCount]:
    counts = Counter(cards)
    return [pb.TreasureCount(treasure=t, count=counts[t]) for t in sorted(counts)]  # type: ignore[arg-type]


_ALARM_NAMES: dict[int, str] = {pb.SHINY: "shiny", pb.NOISY: "noisy", pb.ENCUMBERING: "encumbering"}


# --------------------------------------------------------------------------------------------
# The game


class OpenSesame(Game[SesameState]):
    meta = GameMeta(
        id="opensesame",
        name="Open Sesame",
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        version="1.2",  # 1.2: the recite option's label gives the slip chance (human memory)
        options=(
            OptionSpec("younger", False, "younger players: Ali Baba shows the cards during each recitation"),
            OptionSpec("experienced", False, "experienced players: recite in reveal order, with adjectives"),
            OptionSpec(
                "memory",
                "perfect",
                "perfect: nobody slips (ruling 1); human: recitations slip by chance, likelier as the cavern grows",
                ("perfect", "human"),
            ),
        ),
        variants=(
            Variant("younger", "Ali Baba shows the cards while the thief recites", {"younger": True}),
            Variant("experienced", "recitations in reveal order with adjectives", {"experienced": True}),
            Variant("human memory", "arena variant: thieves slip by chance on long caverns", {"memory": "human"}),
        ),
        hidden_information=True,
        summary='Ali Baba reveals treasures one by one until he says "Open sesame!" or the alarms '
        "catch him; the cavern is shared card by card; collect the most different treasures.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def __init__(self, edition: Edition = ARENA_EDITION) -> None:
        self.edition = edition

    def setup(self, config: MatchConfig, chance: Chance) -> SesameState:
        players = config.players
        state = SesameState(
            config=config,
            chance=chance,
            collections=[[] for _ in range(players)],
            recitations=[0] * players,
            fumbles=[0] * players,
        )
        state.ali_baba = chance.pick(range(players), "ali-baba")
        cards = chance.shuffled(self.edition.cards(), "treasures")
        cut = len(cards) - BELOW_CHIEF
        state.pile = [*cards[:cut], CHIEF, *cards[cut:]]
        self._start_round(state)
        return state

    # -- decisions ----------------------------------------------------------------------------

    def decisions(self, state: SesameState) -> Iterable[Decision]:
        phase = state.phase
        if phase == pb.RECITE_PHASE:
            return (Decision(state.reciter, "recite", (recite_option(state.slip_chance()), _FUMBLE)),)
        if phase == pb.DRAW_PHASE:
            return (Decision(state.ali_baba, "draw", (_DRAW, _OPEN)),)
        if phase == pb.SHARE_PHASE:
            return (Decision(state.order[0], "take", take_options(state.cavern)),)
        return ()

    # -- transitions --------------------------------------------------------------------------

    def resolve(self, state: SesameState, chosen: Mapping[int, Option]) -> None:
        ((seat, option),) = chosen.items()
        phase = state.phase
        if phase == pb.RECITE_PHASE:
            self._recite(state, seat, option.id == "recite")
        elif phase == pb.DRAW_PHASE:
            if option.id == "draw":
                self._reveal(state)
            else:
                state.log.public(seat, "open-sesame", 'Ali Baba: "Open sesame!"', _detail(seat=seat))
                self._start_share(state, pb.OPEN_SESAME)
        else:
            self._take(state, seat, option.action.treasure)  # type: ignore[attr-defined]
            self._share_on(state)

    def _start_round(self, state: SesameState) -> None:
        state.round += 1
        state.reciter = state.next_thief(state.ali_baba)
        state.log.public(
            state.ali_baba,
            "ali-baba",
            f"round {state.round}: seat {state.ali_baba} is Ali Baba",
            _detail(seat=state.ali_baba, round=state.round),
        )
        self._reveal(state)

    def _reveal(self, state: SesameState) -> None:
        card = state.pile.pop(0)
        state.cavern.append(card)
        ali = state.ali_baba
        alarm = self.edition.alarm_of[card]
        state.log.public(
            ali,
            "reveal",
            f"Ali Baba reveals the {_words(name_of(card))}",
            _detail(seat=ali, treasure=card, alarm=alarm, pile=len(state.pile)),
        )
        if card == CHIEF:
            state.last_round = True
        if alarm != pb.NO_ALARM:
            state.alarms[alarm - 1] += 1
            state.log.public(
                ali,
                "alarm",
                f"a {_ALARM_NAMES[alarm]} alarm token (shiny {state.alarms[0]}, noisy {state.alarms[1]}, "
                f"encumbering {state.alarms[2]})",
                _detail(seat=ali, alarm=alarm, alarms=state.alarms),
            )
            if captured(state.alarms):
                state.log.public(
                    ali, "capture", "Ali Baba is captured by the thieves", _detail(seat=ali, alarms=state.alarms)
                )
                self._start_share(state, pb.CAPTURE)
                return
        state.phase = pb.RECITE_PHASE

    def _recite(self, state: SesameState, seat: int, correct: bool) -> None:
        chance = state.slip_chance()
        slip = correct and chance > 0 and state.chance.pick(range(100), "memory") < chance
        if slip or not correct:
            state.fumbles[seat] += 1
            what = "slips reciting the cavern" if slip else "recites the cavern wrong"
            state.log.public(seat, "fumble", f"seat {seat} {what}", _detail(seat=seat, slip=slip))
            state.at_fault = seat
            self._start_share(state, pb.FUMBLE)
            return
        state.recitations[seat] += 1
        sentence, spoken = recitation(state.cavern, state.experienced)
        detail = _detail(seat=seat, cavern=_counts(state.cavern), spoken=spoken, shown=state.younger)
        shown = " (Ali Baba shows the cards)" if state.younger else ""
        state.log.public(seat, "recite", f"{sentence}{shown}", detail)
        state.reciter = state.next_thief(seat)
        if state.pile:
            state.phase = pb.DRAW_PHASE
            return
        ali = state.ali_baba
        state.log.public(
            ali, "open-sesame", "the pile is empty: Ali Baba must leave the cavern", _detail(seat=ali, forced=True)
        )
        self._start_share(state, pb.OPEN_SESAME)

    def _start_share(self, state: SesameState, ending: pb.Ending.ValueType) -> None:
        state.ending = ending
        state.order = pick_order(ending, len(state.cavern), state.ali_baba, state.players, state.at_fault)
        state.phase = pb.SHARE_PHASE
        how = {pb.OPEN_SESAME: "open sesame", pb.FUMBLE: "a wrong recitation", pb.CAPTURE: "a capture"}[ending]
        state.log.public(
            state.ali_baba,
            "share",
            f"the cavern is shared after {how}: picks {', '.join(map(str, state.order))}",
            _detail(ending=ending, seat=state.ali_baba, at_fault=state.at_fault, order=state.order),
        )
        self._share_on(state)

    def _share_on(self, state: SesameState) -> None:
        """Take forced picks (ruling 9); end the round when the cavern is empty."""
        while state.order and (len(set(state.cavern)) == 1 or len(set(state.order)) == 1):
            self._take(state, state.order[0], min(state.cavern))
        if not state.order:
            self._end_round(state)

    def _take(self, state: SesameState, seat: int, treasure: int) -> None:
        state.order.pop(0)
        state.cavern.remove(treasure)
        state.collections[seat].append(treasure)
        state.log.public(
            seat, "take", f"seat {seat} takes the {_words(name_of(treasure))}", _detail(seat=seat, treasure=treasure)
        )

    def _end_round(self, state: SesameState) -> None:
        state.alarms = [0, 0, 0]
        state.ending, state.at_fault = pb.ENDING_UNSPECIFIED, -1
        if state.last_round:
            state.over = True
            state.phase = pb.OVER_PHASE
            scores = [self.edition.score_of(c) for c in state.collections]
            state.log.public(
                CHANCE_SEAT,
                "end",
                "game over: scores "
                + ", ".join(
                    f"seat {seat} {s} ({u} unique treasure{'s' * (u != 1)})" for seat, (s, u) in enumerate(scores)
                ),
                _detail(scores=[s for s, _ in scores], uniques=[u for _, u in scores]),
            )
            return
        state.ali_baba = (state.ali_baba + 1) % state.players
        self._start_round(state)

    # -- views --------------------------------------------------------------------------------

    def observation(self, state: SesameState, viewer: int) -> pb.Observation:
        seats = []
        for seat, collection in enumerate(state.collections):
            score, uniques = self.edition.score_of(collection)
            seats.append(
                pb.SeatView(
                    collection=_counts(collection),
                    cards=len(collection),
                    score=score,
                    uniques=uniques,
                    recitations=state.recitations[seat],
                    fumbles=state.fumbles[seat],
                )
            )
        chief_at = state.pile.index(CHIEF) if CHIEF in state.pile else -1
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=viewer == SPECTATOR,
            players=state.players,
            phase=state.phase,
            round=state.round,
            ali_baba=state.ali_baba,
            reciter=state.reciter if state.phase == pb.RECITE_PHASE else -1,
            cavern=_counts(state.cavern),
            revealed=state.cavern,  # type: ignore[arg-type]
            shiny=state.alarms[0],
            noisy=state.alarms[1],
            encumbering=state.alarms[2],
            pile=len(state.pile),
            until_chief=chief_at,
            last_round=state.last_round,
            unseen=_counts(t for t in state.pile if t != CHIEF),
            seats=seats,
            ending=state.ending,
            at_fault=state.at_fault,
            pick_order=state.order,
            treasures=self.edition.catalogue,
            younger=state.younger,
            experienced=state.experienced,
            human_memory=state.human,
            slip_percent=state.slip_chance(),
            slip_table=SLIP_PERCENT if state.human else (),
        )
        if viewer == SPECTATOR:
            obs.pile_order.extend(state.pile)  # type: ignore[arg-type]
        return obs

    def score(self, state: SesameState) -> Result:
        keys = [self.edition.score_of(c) for c in state.collections]
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        summary = f"{'winners' if len(winners) > 1 else 'winner'}: {', '.join(f'seat {s}' for s in winners)}"
        return Result.ranked([k[0] for k in keys], keys, summary)

    def sample_world(self, state: SesameState, seat: int, chance: Chance) -> SesameState:
        """Re-shuffle the treasure cards of the pile; the Chief Thief keeps its known depth."""
        world = self.copy_for(state, seat, chance)
        chief_at = state.pile.index(CHIEF) if CHIEF in state.pile else -1
        world.pile = _shuffle_pile([t for t in state.pile if t != CHIEF], chief_at, chance)
        self.refresh(world)
        return world

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> SesameState:
        """Only the pile's order is drawn (the unseen treasures shuffled, the Chief Thief at its
        known depth); the rest is kept. Under perfect memory (ruling 1) the observation carries
        all a seat knows: the cavern in reveal order, every collection, the pile's contents."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        world = SesameState(
            config=config,
            chance=chance.fork(),
            round=obs.round,
            phase=obs.phase,
            ali_baba=obs.ali_baba,
            cavern=list(obs.revealed),
            alarms=[obs.shiny, obs.noisy, obs.encumbering],
            collections=[[c.treasure for c in v.collection for _ in range(c.count)] for v in obs.seats],
            last_round=obs.last_round,
            ending=obs.ending,
            at_fault=obs.at_fault,
            order=list(obs.pick_order),
            recitations=[v.recitations for v in obs.seats],
            fumbles=[v.fumbles for v in obs.seats],
            over=obs.phase == pb.OVER_PHASE,
        )
        if obs.phase == pb.RECITE_PHASE:
            world.reciter = obs.reciter
        else:  # every card of the cavern was recited: the next thief after as many turns
            world.reciter = world.next_thief(world.ali_baba)
            for _ in world.cavern:
                world.reciter = world.next_thief(world.reciter)
        unseen = [int(c.treasure) for c in obs.unseen for _ in range(c.count)]
        world.pile = _shuffle_pile(unseen, obs.until_chief, chance)
        self.refresh(world)
        return world


def _shuffle_pile(treasures: list[int], chief_at: int, chance: Chance) -> list[int]:
    """The pile's treasures in a random order, the Chief Thief at its known depth (-1: gone)."""
    pile = chance.shuffled(treasures, "world-pile")
    if chief_at >= 0:
        pile.insert(chief_at, CHIEF)
    return pile


GAME = OpenSesame()
