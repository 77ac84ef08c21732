"""Get Bit! — swim ahead of the shark with secretly chosen cards (``shared/rules/getbit.md``).

Rules as implemented (rulebook line references in brackets):

* Each swimmer has an action figure with 4 limbs and a set of numbered cards of its colour;
  with 4 figures the cards are 1–5, with 5 figures 1–6, with 6 figures 1–7 [:37–52]. The
  figures lie in a line in random order [:54–62].
* A round [:68–76]: every swimmer chooses one card in secret (a sealed simultaneous decision)
  and all cards are revealed together [:80–90]. Equal numbers do not move [:100–104]; unique
  numbers move their figure to the front one at a time, lowest first, so the highest unique
  card ends in front [:108–116]. Then the figure at the back is bitten: it loses a limb, moves
  to the front and takes back all its played cards [:120–139]. Round 1 has no bite [:76, :122].
* A figure that loses its last limb is devoured and its player is out [:143–148].
* Hand refresh [:152–169]: a swimmer left with one card in hand takes back its played cards;
  otherwise played cards stay face up, in play order.
* End [:224–236]: when only 2 figures remain, the back one is devoured at once and the front
  one escapes: its player wins.
* 3 players [:240–268]: a fourth, automated swimmer plays the top card of a shuffled stack.
* 2 players [:272–284]: two figures each; losing either figure loses the game.
* Memory variant [:288–296] (``memory=true``): played cards turn face down in the Get Bit!
  phase.
* Shark variant [:300–475] (``shark=true``): one player plays the Shark with 6 Shark Cards and
  a hunger token per swimmer player. From round 2 the Shark plays a card with the swimmers and
  resolves it against the rear swimmer: a limb card bites that limb (a Miss if it is gone);
  Exhaustion makes every tied swimmer discard its card for good (a Miss without ties); Any
  Limb bites a limb of the victim's choice if any cards tied (a Miss without ties). A Miss
  costs a hunger token and returns the Shark's played cards to its hand. The swimmers win when
  the last token is lost (most limbs, then closest to the front); the Shark wins when one
  swimmer is left.

Rulings (``shared/rules/NOTES.md`` §4.7 unless stated):

1. **Cards taken back** [:132]: a bitten swimmer takes back every card it has played,
   including this round's.
2. **Refresh** [:154–163]: checked for every figure after the Get Bit! phase of every round
   (round 1 too, harmlessly), when its hand holds at most one card. A hand of 0 cards only
   arises in the Shark variant, once Exhaustion has discarded all but one of a swimmer's cards.
3. **Devoured** [:145–148]: the figure leaves the line and its cards leave the game.
4. **End** [:226–236]: checked right after every devouring; with 2 figures left the back one is
   devoured and the front one escapes. Not in the Shark variant (ruling 9).
5. **2 players** [:272–284]: the 4-figure setup (cards 1–5 per figure), a separate hand per
   figure; seat 0 swims figures 0 and 1, seat 1 figures 2 and 3. Each figure's card is its own
   decision: the sealed round takes two steps (every seat's first figure, then its second),
   nothing is revealed before all cards are in. The first figure devoured loses the game.
6. **3 players** [:240–268]: the robot swims figure 3 with cards 1–5 in a hidden shuffled
   stack. Its top card is revealed at the reveal, with the players' cards (it is one of "all
   cards" revealed simultaneously [:88–90]), so nobody knows it when choosing. Its cards are
   reshuffled (all of them: stack and played) when it is bitten and when its stack is down to
   one card at refresh time. The robot is not a seat: if it escapes, or has the most limbs
   when the Swimmers win (Shark variant [:458–462]), no player wins (every score is 0) and
   the seats are still ranked as ruling 11 places their figures.
7. **Which limb** [:134–139]: in the base game it does not matter, so limbs are removed
   automatically in the rulebook's order: right arm, left arm, right leg, left leg. In the
   Shark variant a limb card takes that limb; for Any Limb the victim chooses (an off-turn
   ``lose_limb`` decision), except with one limb left (no choice) or for the robot (fixed
   order).
8. **Line order** [:60]: a seeded random order.
9. **Shark variant**: seat 0 is the Shark; the other seats swim, 3–6 of them (3 adds the robot,
   ruling 6); the cards depend on the number of figures. Hunger tokens = swimmer *players*
   (the robot is not a player) [:313]. The Shark plays no card in round 1 [:317]; from round
   2 its card is part of the sealed decision and revealed with the swimmers' [:329].
   Exhaustion with ties [:397–399] discards this round's card of every tied swimmer (the robot
   included) and is neither a bite nor a Miss. A Miss [:433–442] returns every played Shark
   Card, the one just played included. The Shark refreshes at one card [:424–427]. Only the
   Shark end conditions apply [:446–475]: "1 Swimmer" counts figures (the robot too). A
   swimmer whose cards have all been discarded plays no card and does not move (not covered
   by the text). The Memory variant turns only swimmer cards face down (it is written for the
   base game, where those are the only played cards).
10. **Memory** [:288–296]: in every Get Bit! phase (rounds 2+, so round-1 cards are still face
    up during round 2's choice) all played swimmer cards turn face down. Observations then show
    only how many cards each figure has face down, not which (its owner still sees its own,
    since it holds the rest of the set), and a seat's ``last_reveal`` keeps only the line and the
    Shark Card. The public reveal events of earlier rounds stay in the event log: bots may
    remember, as players may (NOTES §3: not enforceable).
11. **Placings** (a full order; score 1 for the winner, else 0):
    base game: the escaped figure's player, then the figure devoured at the end, then the
    earlier devoured in reverse order of devouring; 2 players: the player who lost a figure is
    second. Shark wins: the Shark, the last swimmer, then the devoured in reverse order.
    Swimmers win: the swimmers in the water by limbs, then closeness to the front (the winner
    first), then the devoured in reverse order, then the Shark. The robot takes no placing.

Decision kinds: ``choose_card`` (``card:<n>``, one figure at a time), ``shark_card``
(``shark:right-arm`` … ``shark:exhaustion``, ``shark:any-limb``) and ``lose_limb``
(``limb:right-arm`` …).

Bound: every round from round 2 costs something that never comes back. Base game: a bite (one
limb of 4 per figure); with F figures (4 at 2–4 players, the robot included, 5 at 5, 6 at 6) at
most 4F − 2 bites leave 2 figures (2 players: 13 bites devour a figure), so at most 4F − 1
rounds of one sealed step (2 steps at 2 players): 28 / 15 / 15 / 19 / 23 steps at 2–6 players,
and random play reaches exactly these. Shark variant: a bite (at most 4F − 1 before one figure
is left), a Miss (one of the players − 1 hunger tokens) or an Exhaustion with ties (at least 2
of the F × N swimmer cards discarded for good, N cards a figure); a round is one step, plus a
``lose_limb`` step for an Any Limb bite, so a game has at most 1 + 2(4F − 1) + (players − 1) +
⌊F × N / 2⌋ steps: 44 / 45 / 59 / 74 at 4–7 players. Random play takes at most 23 / 26 / 31 /
40 over 200 games.

Chance labels, in the order they are first drawn: ``"robot"`` (every shuffle of the robot's
cards, top card first; the cards are given in ascending order; the first one at setup) and
``"line"`` (the one shuffle of the figure ids into the starting line, front first, right after
the robot's first stack).

Component data: the figure colours (arena edition) are in ``components.toml``; card ranges,
limbs and Shark Cards are rules text, typed below.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import ConfigError, MatchConfig, OptionSpec
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
from arena.games.v1 import getbit_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

COLOURS: tuple[str, ...] = tuple(_DATA["figures"]["colours"])
HIGHEST_CARD = {4: 5, 5: 6, 6: 7}
"""Highest card by number of figures: 4 remove the 6 and 7, 5 remove the 7, 6 use all [:44–52]."""

LIMBS: tuple[int, ...] = (pb.RIGHT_ARM, pb.LEFT_ARM, pb.RIGHT_LEG, pb.LEFT_LEG)
"""The four limbs [:136–139]; also the order of automatic removal (ruling 7)."""
LIMB_NAMES: dict[int, str] = {
    pb.RIGHT_ARM: "right arm",
    pb.LEFT_ARM: "left arm",
    pb.RIGHT_LEG: "right leg",
    pb.LEFT_LEG: "left leg",
}

LIMB_CARDS: tuple[int, ...] = (pb.SHARK_RIGHT_ARM, pb.SHARK_LEFT_ARM, pb.SHARK_RIGHT_LEG, pb.SHARK_LEFT_LEG)
SHARK_CARDS: tuple[int, ...] = (*LIMB_CARDS, pb.EXHAUSTION, pb.ANY_LIMB)  # the 6 Shark Cards [:30, :337–418]
SHARK_CARD_NAMES: dict[int, str] = {
    pb.SHARK_RIGHT_ARM: "Right Arm",
    pb.SHARK_LEFT_ARM: "Left Arm",
    pb.SHARK_RIGHT_LEG: "Right Leg",
    pb.SHARK_LEFT_LEG: "Left Leg",
    pb.EXHAUSTION: "Exhaustion",
    pb.ANY_LIMB: "Any Limb",
}

ROBOT = -1
"""Owner of the automated swimmer (3 swimmers)."""
NONE = -1
REFRESH_AT = 1  # a hand of (at most) 1 card takes back the played cards [:156]
ROBOT_SWIMMERS = 3  # swimmer players that get the automated fourth swimmer [:240–250]


def _and(names: Sequence[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _left(n: int) -> str:
    return "one card left" if n == 1 else "no card left"


def _action(option: Option) -> pb.Action:
    return cast(pb.Action, option.action)


def _slug(name: str) -> str:
    return name.lower().replace(" ", "-")


PLAY_OPTIONS: dict[tuple[int, int], Option] = {
    (figure, card): Option(
        f"card:{card}",
        f"play {card} with {COLOURS[figure]}",
        pb.Action(play=pb.PlayCard(figure=figure, card=card)),
    )
    for figure in range(len(COLOURS))
    for card in range(1, max(HIGHEST_CARD.values()) + 1)
}
SHARK_OPTIONS: dict[int, Option] = {
    card: Option(f"shark:{_slug(name)}", f"play {name}", pb.Action(shark_card=card))  # type: ignore[arg-type]
    for card, name in SHARK_CARD_NAMES.items()
}
LIMB_OPTIONS: dict[tuple[int, int], Option] = {
    (figure, limb): Option(
        f"limb:{_slug(name)}",
        f"{COLOURS[figure]} loses the {name}",
        pb.Action(lose_limb=pb.LoseLimb(figure=figure, limb=limb)),  # type: ignore[arg-type]
    )
    for figure in range(len(COLOURS))
    for limb, name in LIMB_NAMES.items()
}


# --------------------------------------------------------------------------------------------
# State


@dataclass
class Figure:
    """An action figure and its cards."""

    id: int
    owner: int  # the seat that controls it, or ROBOT
    hand: list[int]  # ascending; the robot's stack in stack order, top card first
    limbs: list[int] = field(default_factory=lambda: list(LIMBS))
    played: list[int] = field(default_factory=list)  # since the last pick-up, in play order
    face_down: int = 0  # the first `face_down` played cards lie face down (Memory)
    discarded: list[int] = field(default_factory=list)  # out of the game (Exhaustion)
    devoured: bool = False

    @property
    def robot(self) -> bool:
        return self.owner == ROBOT


@dataclass
class Shark:
    """The Shark player (Shark variant)."""

    seat: int
    hunger: int
    hand: list[int] = field(default_factory=lambda: list(SHARK_CARDS))  # in SHARK_CARDS order
    played: list[int] = field(default_factory=list)
    chosen: int = 0  # this round's sealed card (0 = not chosen)


@dataclass
class GetBitState(MatchState):
    figures: list[Figure] = field(default_factory=list)
    line: list[int] = field(default_factory=list)  # figures in the water, front to back
    seat_figures: list[list[int]] = field(default_factory=list)  # per seat (empty for the Shark)
    highest: int = 5
    two_player: bool = False
    memory: bool = False
    shark: Shark | None = None
    round: int = 1
    chosen: dict[int, int] = field(default_factory=dict)  # figure -> sealed card this round
    tied: list[int] = field(default_factory=list)  # values tied in this round's reveal
    limb_victim: int = NONE  # the figure choosing a limb for Any Limb
    devoured: list[int] = field(default_factory=list)  # in order of devouring
    outcome: int = pb.OUTCOME_UNSPECIFIED
    winner_figure: int = NONE
    last_reveal: pb.Reveal | None = None


# --------------------------------------------------------------------------------------------
# Pure helpers


def move_figures(line: Sequence[int], cards: Mapping[int, int]) -> tuple[list[int], list[int]]:
    """The line after the Move phase, and the tied values [:94–116].

    ``cards`` maps each figure that played to its card. Tied values do not move; each unique
    value, lowest first, moves its figure to the front.
    """
    holder: dict[int, int] = {}  # card -> the figure that played it, NONE when tied
    for figure, card in cards.items():
        holder[card] = NONE if card in holder else figure
    # Moving the lowest unique card to the front first leaves the highest in front: the movers
    # by descending card, then everyone else in their order (a searching bot's inner loop).
    movers = [holder[card] for card in sorted(holder, reverse=True) if holder[card] != NONE]
    tied = sorted(card for card, figure in holder.items() if figure == NONE)
    return movers + [f for f in line if f not in movers], tied


def swimmers_win_order(figures: Sequence[Figure], line: Sequence[int]) -> list[int]:
    """Figures in the water, best first: most limbs, then closest to the front [:458–462]."""
    return sorted(line, key=lambda f: (-len(figures[f].limbs), line.index(f)))


def figure_owners(players: int, shark: bool) -> list[int]:
    """The owner of every figure (figure id = index): rulings 5, 6 and 9."""
    if shark:
        swimmers = list(range(1, players))
    elif players == 2:
        return [0, 0, 1, 1]
    else:
        swimmers = list(range(players))
    return swimmers + ([ROBOT] if len(swimmers) == ROBOT_SWIMMERS else [])


def _draw_sealed(world: GetBitState, seat: int, chance: Chance) -> None:
    """Draw what ``seat`` cannot see in a world: the robot's stack order, and every sealed card
    chosen this round by another seat (the Shark's too), uniformly from its hand."""
    for figure in world.figures:
        if figure.robot:
            figure.hand = chance.shuffled(figure.hand, "world")
    for f in world.chosen:
        if world.figures[f].owner != seat:
            world.chosen[f] = chance.pick(world.figures[f].hand, "world")
    shark = world.shark
    if shark and shark.chosen and shark.seat != seat:
        shark.chosen = chance.pick(shark.hand, "world")


# --------------------------------------------------------------------------------------------
# The game


class GetBit(Game[GetBitState]):
    meta = GameMeta(
        id="getbit",
        name="Get Bit!",
        min_players=2,
        max_players=7,
        version="1.1",
        options=(
            OptionSpec("shark", False, "seat 0 plays the Shark (4-7 players: 3-6 swimmers)"),
            OptionSpec("memory", False, "Memory variant: played cards turn face down each Get Bit! phase"),
        ),
        variants=(
            Variant("two-player", "2 players swim two figures each; losing one loses", players=(2,)),
            Variant("robot-swimmer", "3 players plus an automated fourth swimmer", players=(3,)),
            Variant("memory", "played cards turn face down in the Get Bit! phase", {"memory": True}),
            Variant("shark", "seat 0 plays the Shark against 3-6 swimmers", {"shark": True}, (4, 5, 6, 7)),
        ),
        simultaneous=True,
        hidden_information=True,
        chance=True,
        summary="Secretly pick a card; unique numbers swim to the front, the last one gets bitten.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def check_config(self, config: MatchConfig) -> None:
        if config["shark"] and config.players < 4:
            raise ConfigError(f"getbit with shark=true plays with 4-7 players, not {config.players}")
        if not config["shark"] and config.players > 6:
            raise ConfigError("getbit plays with 2-6 players, or 4-7 with shark=true")

    def setup(self, config: MatchConfig, chance: Chance) -> GetBitState:
        with_shark = bool(config["shark"])
        owners = figure_owners(config.players, with_shark)
        highest = HIGHEST_CARD[len(owners)]
        cards = list(range(1, highest + 1))
        figures = [
            Figure(f, owner, chance.shuffled(cards, "robot") if owner == ROBOT else list(cards))
            for f, owner in enumerate(owners)
        ]
        seat_figures: list[list[int]] = [[] for _ in range(config.players)]
        for figure in figures:
            if not figure.robot:
                seat_figures[figure.owner].append(figure.id)
        state = GetBitState(
            config=config,
            chance=chance,
            figures=figures,
            seat_figures=seat_figures,
            highest=highest,
            two_player=not with_shark and config.players == 2,
            memory=bool(config["memory"]),
            shark=Shark(0, hunger=config.players - 1) if with_shark else None,
        )
        log = state.log
        if state.shark:
            hunger = state.shark.hunger
            log.public(
                0, "setup", f"plays the Shark with {hunger} hunger tokens", pb.SetupEvent(shark=True, hunger=hunger)
            )
        for seat, mine in enumerate(seat_figures):
            if mine:
                text = "swims " + " and ".join(COLOURS[f] for f in mine)
                log.public(seat, "setup", text, pb.SetupEvent(figures=mine))
        for figure in figures:
            if figure.robot:
                text = f"the robot swims {COLOURS[figure.id]} (shuffled stack)"
                log.public(CHANCE_SEAT, "setup", text, pb.SetupEvent(figures=[figure.id], robot=True))
        table = pb.SetupEvent(highest_card=highest, limbs=len(LIMBS))
        log.public(CHANCE_SEAT, "setup", f"every figure has cards 1-{highest} and {len(LIMBS)} limbs", table)
        state.line = chance.shuffled(range(len(figures)), "line")
        self._log_line(state, "starting line")
        self._log_round(state)
        return state

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: GetBitState) -> Iterable[Decision]:
        if state.outcome:
            return ()
        if state.limb_victim != NONE:
            victim = state.figures[state.limb_victim]
            options = tuple(LIMB_OPTIONS[victim.id, limb] for limb in victim.limbs)
            return (Decision(victim.owner, "lose_limb", options),)
        open_: list[Decision] = []
        shark = state.shark
        if shark and self._shark_plays(state) and not shark.chosen:
            open_.append(Decision(shark.seat, "shark_card", tuple(SHARK_OPTIONS[c] for c in shark.hand)))
        for seat in range(state.players):
            figure = self.choosing(state, seat)
            if figure != NONE:
                hand = state.figures[figure].hand
                open_.append(Decision(seat, "choose_card", tuple(PLAY_OPTIONS[figure, c] for c in hand)))
        return open_

    @staticmethod
    def _shark_plays(state: GetBitState) -> bool:
        return state.round >= 2  # the Shark plays no card in round 1 (ruling 9)

    @staticmethod
    def choosing(state: GetBitState, seat: int) -> int:
        """The figure ``seat`` chooses a card for now (its first one still to choose), or NONE."""
        if state.outcome or state.limb_victim != NONE:
            return NONE
        for f in state.seat_figures[seat]:
            figure = state.figures[f]
            if not figure.devoured and figure.hand and f not in state.chosen:
                return f
        return NONE

    def resolve(self, state: GetBitState, chosen: Mapping[int, Option]) -> None:
        if state.limb_victim != NONE:
            (option,) = chosen.values()
            victim, state.limb_victim = state.limb_victim, NONE
            self._bite(state, victim, _action(option).lose_limb.limb)
            self._end_round(state)
            return
        for option in chosen.values():
            action = _action(option)
            if action.HasField("play"):
                state.chosen[action.play.figure] = action.play.card
            else:
                assert state.shark is not None
                state.shark.chosen = action.shark_card
        if not any(self.choosing(state, seat) != NONE for seat in range(state.players)):
            self._play_round(state)

    # -- rules ------------------------------------------------------------------------------

    def _play_round(self, state: GetBitState) -> None:
        """Reveal, move, then the Get Bit! phase (unless it waits for a limb choice)."""
        cards = self._reveal(state)
        state.line, state.tied = move_figures(state.line, cards)
        self._log_moves(state, cards)
        if state.round == 1:
            state.log.public(CHANCE_SEAT, "no-bite", "round 1: the shark does not bite", pb.RoundEvent(round=1))
        elif state.shark:
            self._shark_attack(state, cards)
        else:
            back = state.line[-1]
            self._bite(state, back, state.figures[back].limbs[0])
        if state.limb_victim == NONE:
            self._end_round(state)

    def _reveal(self, state: GetBitState) -> dict[int, int]:
        """Every swimmer's card, revealed together (in line order), and the Shark's."""
        cards: dict[int, int] = {}
        for f in state.line:
            figure = state.figures[f]
            if figure.robot:
                if not figure.hand:
                    continue
                card = figure.hand.pop(0)
            elif f in state.chosen:
                card = state.chosen[f]
                figure.hand.remove(card)
            else:
                continue  # no cards left (Exhaustion discarded them all)
            figure.played.append(card)
            cards[f] = card
            state.log.public(
                self._seat(figure),
                "reveal",
                f"{self._name(state, f)} reveals {card}",
                pb.Play(figure=f, card=card),
            )
        state.chosen = {}
        shark = state.shark
        reveal = pb.Reveal(round=state.round, plays=[pb.Play(figure=f, card=c) for f, c in cards.items()])
        if shark and shark.chosen:
            card, shark.chosen = shark.chosen, 0
            shark.hand.remove(card)
            shark.played.append(card)
            reveal.shark_card = card  # type: ignore[assignment]
            text = f"the Shark reveals {SHARK_CARD_NAMES[card]}"
            state.log.public(shark.seat, "reveal", text, pb.SharkRevealEvent(card=card))  # type: ignore[arg-type]
        state.last_reveal = reveal
        return cards

    def _log_moves(self, state: GetBitState, cards: Mapping[int, int]) -> None:
        reveal = state.last_reveal
        assert reveal is not None
        reveal.tied_values.extend(state.tied)
        reveal.line_after_moves.extend(state.line)
        for value in state.tied:
            tied = [f for f, c in cards.items() if c == value]
            text = f"{_and([self._name(state, f) for f in tied])} tie on {value} and stay"
            state.log.public(CHANCE_SEAT, "tie", text, pb.TieEvent(value=value, figures=tied))
        self._log_line(state, "after moving")

    def _shark_attack(self, state: GetBitState, cards: Mapping[int, int]) -> None:
        """Resolve the Shark's card against the swimmer at the back [:331–418]."""
        shark = state.shark
        assert shark is not None
        card = shark.played[-1]
        back = state.line[-1]
        victim = state.figures[back]
        if card in LIMB_CARDS:
            if card in victim.limbs:  # limb cards share the Limb numbers
                self._bite(state, back, card)
            else:
                why = f"{self._name(state, back)} has no {LIMB_NAMES[card]}"
                self._miss(state, why, pb.MissEvent(figure=back, card=card, limb=card))  # type: ignore[arg-type]
        elif not state.tied:
            self._miss(state, "no cards tied", pb.MissEvent(figure=back, card=card, no_ties=True))  # type: ignore[arg-type]
        elif card == pb.EXHAUSTION:
            for f, value in cards.items():
                if value in state.tied:
                    figure = state.figures[f]
                    figure.discarded.append(figure.played.pop())
                    state.log.public(
                        self._seat(figure),
                        "discard",
                        f"{self._name(state, f)} discards {value} for the rest of the game",
                        pb.DiscardEvent(figure=f, card=value, discarded=figure.discarded),
                    )
        elif len(victim.limbs) == 1 or victim.robot:
            self._bite(state, back, victim.limbs[0])  # Any Limb without a choice (ruling 7)
        else:
            state.limb_victim = back

    def _miss(self, state: GetBitState, why: str, detail: pb.MissEvent) -> None:
        shark = state.shark
        assert shark is not None
        shark.hunger -= 1
        detail.hunger = shark.hunger
        detail.cards_picked_up = self._shark_take_back(shark)
        text = f"misses ({why}): {shark.hunger} hunger tokens left, takes back {_cards(detail.cards_picked_up)}"
        state.log.public(shark.seat, "miss", text, detail)
        if shark.hunger == 0:
            state.outcome = pb.SWIMMERS_WIN
            state.winner_figure = swimmers_win_order(state.figures, state.line)[0]
            winner = self._name(state, state.winner_figure)
            state.log.public(CHANCE_SEAT, "end", f"the Shark is out of hunger: {winner} wins", self._end(state))

    def _bite(self, state: GetBitState, f: int, limb: int) -> None:
        figure = state.figures[f]
        figure.limbs.remove(limb)
        who = self._name(state, f)
        seat = self._seat(figure)
        detail = pb.BiteEvent(figure=f, limb=limb, limbs_left=len(figure.limbs))  # type: ignore[arg-type]
        if not figure.limbs:
            detail.devoured = True
            state.log.public(seat, "bite", f"{who} loses the {LIMB_NAMES[limb]}, its last limb", detail)
            self._devour(state, f)
            return
        detail.cards_picked_up = len(figure.played)
        state.line.remove(f)
        state.line.insert(0, f)
        self._take_back(state, figure)
        state.log.public(
            seat,
            "bite",
            f"{who} is bitten: loses the {LIMB_NAMES[limb]} ({len(figure.limbs)} left), "
            f"moves to the front and takes back {_cards(detail.cards_picked_up)}",
            detail,
        )

    def _devour(self, state: GetBitState, f: int) -> None:
        figure = state.figures[f]
        figure.devoured = True
        state.line.remove(f)
        state.devoured.append(f)
        detail = pb.DevouredEvent(figure=f, line=state.line)
        state.log.public(self._seat(figure), "devoured", f"{self._name(state, f)} is devoured", detail)
        if state.two_player:
            state.outcome = pb.FIGURE_LOST
            state.log.public(figure.owner, "end", "has lost a figure and loses the game", self._end(state))
        elif state.shark:
            if len(state.line) == 1:
                state.outcome = pb.SHARK_WINS
                state.log.public(CHANCE_SEAT, "end", "one swimmer is left: the Shark wins", self._end(state))
        elif len(state.line) == 2:
            back = state.line[-1]
            who = self._name(state, back)
            state.figures[back].devoured = True
            state.line.remove(back)
            state.devoured.append(back)
            state.outcome = pb.ESCAPED
            state.winner_figure = state.line[0]
            text = f"two figures are left: the shark devours {who}"
            state.log.public(CHANCE_SEAT, "end", text, self._end(state, devoured=back))
            state.log.public(
                CHANCE_SEAT, "end", f"{self._name(state, state.line[0])} escapes and wins", self._end(state)
            )

    def _take_back(self, state: GetBitState, figure: Figure) -> None:
        """Played cards return to hand; the robot reshuffles all its cards [:132, :158, :256–264]."""
        if figure.robot:
            figure.hand = state.chance.shuffled(sorted(figure.hand + figure.played), "robot")
        else:
            figure.hand = sorted(figure.hand + figure.played)
        figure.played = []
        figure.face_down = 0

    @staticmethod
    def _shark_take_back(shark: Shark) -> int:
        count = len(shark.played)
        shark.hand = sorted(shark.hand + shark.played, key=SHARK_CARDS.index)
        shark.played = []
        return count

    def _end_round(self, state: GetBitState) -> None:
        """Memory face-down, hand refreshes [:152–169, :422–427], then the next round."""
        if state.outcome:
            return
        if state.memory and state.round >= 2:
            for f in state.line:
                state.figures[f].face_down = len(state.figures[f].played)
            face_down = [state.figures[f].face_down for f in state.line]
            detail = pb.FaceDownEvent(figures=state.line, face_down=face_down)
            state.log.public(CHANCE_SEAT, "face-down", "all played cards are turned face down", detail)
        for f in state.line:
            figure = state.figures[f]
            if len(figure.hand) <= REFRESH_AT and figure.played:
                refresh = pb.RefreshEvent(figure=f, cards_left=len(figure.hand), cards_picked_up=len(figure.played))
                self._take_back(state, figure)
                left, back = _left(refresh.cards_left), _cards(refresh.cards_picked_up)
                text = f"{self._name(state, f)} has {left}: takes back {back}"
                state.log.public(self._seat(figure), "refresh", text, refresh)
        shark = state.shark
        if shark and len(shark.hand) <= REFRESH_AT and shark.played:
            refresh = pb.RefreshEvent(figure=NONE, cards_left=len(shark.hand))
            refresh.cards_picked_up = self._shark_take_back(shark)
            text = f"has {_left(refresh.cards_left)}: takes back {_cards(refresh.cards_picked_up)}"
            state.log.public(shark.seat, "refresh", text, refresh)
        state.round += 1
        self._log_round(state)

    # -- events -----------------------------------------------------------------------------

    @staticmethod
    def _seat(figure: Figure) -> int:
        """The seat of a figure's events (the table for the robot)."""
        return CHANCE_SEAT if figure.robot else figure.owner

    @staticmethod
    def _name(state: GetBitState, f: int) -> str:
        return COLOURS[f] + (" (robot)" if state.figures[f].robot else "")

    def _log_line(self, state: GetBitState, what: str) -> None:
        names = ", ".join(self._name(state, f) for f in state.line)
        detail = pb.LineEvent(line=state.line)
        state.log.public(CHANCE_SEAT, "line", f"{what}, front to back: {names}", detail)

    @staticmethod
    def _log_round(state: GetBitState) -> None:
        state.log.public(CHANCE_SEAT, "round", f"round {state.round}", pb.RoundEvent(round=state.round))

    def _end(self, state: GetBitState, devoured: int = NONE) -> pb.EndEvent:
        """The detail of an ``end`` event, once the outcome is set."""
        winner = self.winning_seat(state)
        lost = state.devoured[0] if state.outcome == pb.FIGURE_LOST else NONE
        return pb.EndEvent(
            outcome=state.outcome,  # type: ignore[arg-type]
            winner_seat=NONE if winner is None else winner,
            winner_figure=state.winner_figure,
            devoured_figure=devoured,
            lost_figure=lost,
            line=state.line,
        )

    # -- views ------------------------------------------------------------------------------

    def sample_world(self, state: GetBitState, seat: int, chance: Chance) -> GetBitState:
        """Hidden from ``seat``: the robot's stack order and the other seats' sealed cards of
        this round (chosen, not revealed yet; the Shark's too). Every hand is known or
        deducible (the set minus the cards played and discarded; with Memory, from the public
        reveals), so the robot's stack is shuffled again and each sealed card is re-drawn
        uniformly from its hand."""
        world = self.copy_for(state, seat, chance)
        _draw_sealed(world, seat, chance)
        self.refresh(world)
        return world

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> GetBitState:
        """Kept: everything public and the seat's own figures. Drawn as in ``sample_world``:
        the robot's stack order and the sealed cards others chose in earlier steps of this
        round (2 players: the first figures'). Memory: the observation does not list others'
        face-down cards (the seat may remember the reveals), so a hand and its face-down
        cards are dealt from the set minus the face-up and discarded cards."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        figures = []
        for view in obs.figures:
            played, hand = list(view.played), list(view.hand)
            if not view.hand_known:  # Memory: the hand and the face-down played cards
                gone = Counter(played) + Counter(view.discarded)
                unseen = [c for c in range(1, obs.highest_card + 1) if not gone[c]]
                hand, down = chance.deal(unseen, [view.hand_count, view.face_down], "world")
                played = down + played
            figure = Figure(view.id, view.owner, hand, list(view.limbs), played, view.face_down, list(view.discarded))
            figure.devoured = view.devoured
            if not figure.robot:
                figure.hand.sort()
            figures.append(figure)
        seat_figures: list[list[int]] = [[] for _ in range(config.players)]
        for figure in figures:
            if not figure.robot:
                seat_figures[figure.owner].append(figure.id)
        reveal = pb.Reveal()
        if obs.HasField("last_reveal"):
            reveal.CopyFrom(obs.last_reveal)
        world = GetBitState(
            config=config,
            chance=chance.fork(),
            figures=figures,
            line=list(obs.line),
            seat_figures=seat_figures,
            highest=obs.highest_card,
            two_player=obs.two_player,
            memory=obs.memory,
            round=obs.round,
            tied=list(reveal.tied_values),
            devoured=list(obs.devoured),
            outcome=obs.outcome,
            winner_figure=obs.winner_figure,
            last_reveal=reveal if obs.HasField("last_reveal") else None,
        )
        if obs.HasField("shark"):
            shark = obs.shark
            world.shark = Shark(shark.seat, shark.hunger, list(shark.hand), list(shark.played), shark.chosen)
        if not obs.outcome and reveal.round == obs.round and obs.HasField("last_reveal"):
            world.limb_victim = obs.line[-1]  # this round's reveal is done: Any Limb waits
        else:
            # Sealed steps: each seat chooses for its figures one at a time, all seats at once,
            # so every seat has chosen for as many figures as this one has (the shark: none).
            steps = sum(1 for f in seat_figures[seat] if obs.figures[f].chosen)
            for owned in seat_figures:
                live = [f for f in owned if not figures[f].devoured and figures[f].hand]
                for f in live[:steps]:
                    world.chosen[f] = obs.figures[f].chosen
        _draw_sealed(world, seat, chance)
        self.refresh(world)
        return world

    def observation(self, state: GetBitState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=spectator,
            round=state.round,
            highest_card=state.highest,
            memory=state.memory,
            two_player=state.two_player,
            line=state.line,
            my_figures=[] if spectator else state.seat_figures[viewer],
            choosing_figure=NONE if spectator else self.choosing(state, viewer),
            limb_figure=NONE if spectator else self._limb_figure(state, viewer),
            devoured=state.devoured,
            outcome=state.outcome,  # type: ignore[arg-type]
            winner_figure=state.winner_figure,
        )
        for figure in state.figures:
            obs.figures.append(self._figure_view(state, figure, viewer))
        shark = state.shark
        if shark:
            obs.shark.CopyFrom(
                pb.Shark(
                    seat=shark.seat,
                    hunger=shark.hunger,
                    hand=shark.hand,  # type: ignore[arg-type]
                    played=shark.played,  # type: ignore[arg-type]
                    chosen=shark.chosen if viewer in (SPECTATOR, shark.seat) else 0,  # type: ignore[arg-type]
                )
            )
        if state.last_reveal is not None:
            obs.last_reveal.CopyFrom(state.last_reveal)
            if state.memory and not spectator:
                # Those cards are face down by now (or, after round 1, still in `played`).
                del obs.last_reveal.plays[:]
                del obs.last_reveal.tied_values[:]
        return obs

    @staticmethod
    def _limb_figure(state: GetBitState, seat: int) -> int:
        victim = state.limb_victim
        return victim if victim != NONE and state.figures[victim].owner == seat else NONE

    @staticmethod
    def _figure_view(state: GetBitState, figure: Figure, viewer: int) -> pb.Figure:
        insider = viewer in (SPECTATOR, figure.owner)
        # A hand is the card set minus the discarded and played cards: deducible while every
        # played card lies face up; with any face down (Memory) only its owner knows it.
        hand_known = insider or figure.face_down == 0
        view = pb.Figure(
            id=figure.id,
            colour=COLOURS[figure.id],
            owner=figure.owner,
            robot=figure.robot,
            limbs=figure.limbs,  # type: ignore[arg-type]
            devoured=figure.devoured,
            hand_known=hand_known,
            hand=sorted(figure.hand) if hand_known else [],
            hand_count=len(figure.hand),
            played=figure.played if insider else figure.played[figure.face_down :],
            face_down=figure.face_down,
            discarded=figure.discarded,
            chosen=state.chosen.get(figure.id, 0) if insider else 0,
        )
        if viewer == SPECTATOR and figure.robot:
            view.stack.extend(figure.hand)
        return view

    # -- result -----------------------------------------------------------------------------

    def score(self, state: GetBitState) -> Result:
        order = self.standings(state)
        players = state.players
        keys = [0] * players
        for position, seat in enumerate(order):
            keys[seat] = players - position
        winner = self.winning_seat(state)
        scores = [1.0 if seat == winner else 0.0 for seat in range(players)]
        return Result.ranked(scores, keys, self._summary(state, winner))

    def _summary(self, state: GetBitState, winner: int | None) -> str:
        if state.outcome == pb.SHARK_WINS:
            return f"the Shark (seat {winner}) wins: one swimmer is left"
        if state.outcome == pb.FIGURE_LOST:
            lost = state.devoured[0]
            return f"seat {winner} wins: seat {state.figures[lost].owner} lost {COLOURS[lost]}"
        how = "escapes" if state.outcome == pb.ESCAPED else "wins with the most limbs"
        figure = f"{self._name(state, state.winner_figure)} {how}"
        return f"{figure}: no player wins" if winner is None else f"seat {winner} wins: {figure}"

    @staticmethod
    def winning_seat(state: GetBitState) -> int | None:
        """The winner's seat; None when the robot escapes or wins (ruling 6)."""
        if state.outcome == pb.SHARK_WINS:
            assert state.shark is not None
            return state.shark.seat
        if state.outcome == pb.FIGURE_LOST:
            return 1 - state.figures[state.devoured[0]].owner
        owner = state.figures[state.winner_figure].owner
        return None if owner == ROBOT else owner

    @staticmethod
    def standings(state: GetBitState) -> list[int]:
        """Every seat, best placing first (ruling 11)."""
        figures = state.figures
        if state.outcome == pb.FIGURE_LOST:
            loser = figures[state.devoured[0]].owner
            return [1 - loser, loser]
        if state.outcome == pb.SWIMMERS_WIN:
            order = swimmers_win_order(figures, state.line) + state.devoured[::-1]
        else:
            order = state.line + state.devoured[::-1]  # ESCAPED: the line is the winner alone
        seats = [figures[f].owner for f in order if not figures[f].robot]
        if state.shark:
            if state.outcome == pb.SHARK_WINS:
                seats.insert(0, state.shark.seat)
            else:
                seats.append(state.shark.seat)
        return seats


GAME = GetBit()
