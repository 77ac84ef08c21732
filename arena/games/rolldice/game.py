"""RollDice — push-your-luck with one d6 (``shared/rules/rolldice.md``).

Rules as implemented (rulebook line references in brackets):

* 1–4 players, each starting at 0; the target is configurable (``target``, default 20) [:12, :48].
* On your turn you roll; you may stop and keep the die, or roll again, keeping only the final
  roll [:18–24]. Every roll counts, so a turn always scores 1–6 [:26, :36].

Rulings (from ``shared/rules/NOTES.md`` §4.16 unless stated):

* **Rerolls per turn.** The base game allows one reroll; the optional rule allows two
  (``rerolls=1|2``) [:52]. When no reroll is left the die is kept without a decision.
* **End of the game.** The round is finished once any player reaches the target, so every
  player has had the same number of turns; then the highest total wins [:40–42]. Equal highest
  totals share the victory (``tiebreak=shared``) or, with the optional roll-off
  (``tiebreak=rolloff``) [:44], the tied players roll one die each, repeatedly, until one
  rolls highest alone; the roll-off decides only first place. The observation says which
  (``rolloff``), so a bot choosing in the last round knows what a tie for first is worth.
* **Solo** (1 player): the game ends when the target is reached; the player ranks first.
* **Start player:** a seeded random seat ("RECOMMEND" in NOTES §0); it starts every round.

Bound: every turn scores 1–6, so after ``target`` rounds every total has reached the target and
the round-end check ends the game; a turn asks at most ``rerolls`` decisions (the last roll is
kept without one), so a game has at most target × players × rerolls steps: with the default
target 20, 20 / 40 / 60 / 80 at 1–4 players (twice that with ``rerolls=2``). Random play takes
at most 10 / 18 / 21 / 28 (17 / 31 / 34 / 44 with two rerolls) over 200 games. The roll-off asks
no decision (it repeats only while the tied dice tie again, so it ends with probability 1).

Chance labels: ``"start"`` (pick of the start seat), ``"die"`` (every turn roll, in order),
``"rolloff"`` (roll-off dice, in seat order among the tied).

Component data: one six-sided die per player (rules text); nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

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
from arena.games.v1 import rolldice_pb2 as pb

DIE_SIDES = 6
DEFAULT_TARGET = 20

STOP = Option("stop", "stop and keep the die", pb.Action(choice=pb.STOP))
REROLL = Option("reroll", "roll again (only the new roll counts)", pb.Action(choice=pb.REROLL))


@dataclass
class RollDiceState(MatchState):
    target: int = DEFAULT_TARGET
    max_rerolls: int = 1
    rolloff: bool = False  # option tiebreak=rolloff: tied leaders roll off (else they share)
    totals: list[int] = field(default_factory=list)
    turns_taken: list[int] = field(default_factory=list)
    start_seat: int = 0
    turn_seat: int = 0
    current_roll: int = 0
    rerolls_left: int = 0
    round: int = 1
    rolloff_winner: int | None = None


def next_seat(seat: int, players: int) -> int:
    return (seat + 1) % players


def round_complete(state: RollDiceState) -> bool:
    """True when every seat has taken the same number of turns (a round has just ended)."""
    return len(set(state.turns_taken)) == 1


class RollDice(Game[RollDiceState]):
    meta = GameMeta(
        id="rolldice",
        name="RollDice",
        min_players=1,
        max_players=4,
        version="1.1",
        options=(
            OptionSpec("target", DEFAULT_TARGET, "score that ends the game", minimum=1, maximum=1_000_000),
            OptionSpec("rerolls", 1, "rerolls allowed per turn", choices=(1, 2)),
            OptionSpec("tiebreak", "shared", "equal winners share, or roll off", choices=("shared", "rolloff")),
        ),
        variants=(
            Variant("two-rerolls", "optional rule: 2 rerolls per turn", {"rerolls": 2}),
            Variant("roll-off", "optional tie-breaker: tied leaders roll until one wins", {"tiebreak": "rolloff"}),
        ),
        summary="Roll a d6, keep it or roll again; first past the target at the end of a round wins.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> RollDiceState:
        players = config.players
        start = chance.pick(range(players), "start")
        state = RollDiceState(
            config=config,
            chance=chance,
            target=int(config["target"]),
            max_rerolls=int(config["rerolls"]),
            rolloff=config["tiebreak"] == "rolloff",
            totals=[0] * players,
            turns_taken=[0] * players,
            start_seat=start,
            turn_seat=start,
        )
        state.log.public(CHANCE_SEAT, "start", f"seat {start} starts every round", pb.StartEvent(seat=start))
        self._roll(state, rerolls=state.max_rerolls)
        return state

    def decisions(self, state: RollDiceState) -> Iterable[Decision]:
        if state.current_roll:
            return (Decision(state.turn_seat, "roll", (STOP, REROLL)),)
        return ()

    def resolve(self, state: RollDiceState, chosen: Mapping[int, Option]) -> None:
        if chosen[state.turn_seat].id == REROLL.id:  # by id: a copied option is the same choice
            self._roll(state, rerolls=state.rerolls_left - 1)
        else:
            self._keep(state)

    # -- rules ------------------------------------------------------------------------------

    def _roll(self, state: RollDiceState, rerolls: int) -> None:
        seat = state.turn_seat
        value = state.chance.roll(DIE_SIDES, "die")
        state.current_roll = value
        state.rerolls_left = rerolls
        state.log.public(seat, "roll", f"rolls {value}", pb.RollEvent(seat=seat, value=value))
        if rerolls == 0:
            self._keep(state)

    def _keep(self, state: RollDiceState) -> None:
        seat = state.turn_seat
        state.totals[seat] += state.current_roll
        state.turns_taken[seat] += 1
        state.log.public(
            seat,
            "keep",
            f"keeps {state.current_roll}, total {state.totals[seat]}",
            pb.RollEvent(seat=seat, value=state.current_roll, total=state.totals[seat]),
        )
        state.current_roll = 0
        if round_complete(state) and max(state.totals) >= state.target:
            self._finish(state)
            return
        state.turn_seat = next_seat(seat, state.players)
        if state.turn_seat == state.start_seat:
            state.round += 1
        self._roll(state, rerolls=state.max_rerolls)

    def _finish(self, state: RollDiceState) -> None:
        best = max(state.totals)
        tied = [s for s, total in enumerate(state.totals) if total == best]
        if len(tied) > 1 and state.rolloff:
            state.rolloff_winner = self._roll_off(state, tied)
        winners = tied if state.rolloff_winner is None else [state.rolloff_winner]
        state.log.public(
            CHANCE_SEAT,
            "end",
            f"game over after round {state.round}",
            pb.EndEvent(round=state.round, totals=state.totals, winners=winners),
        )

    def _roll_off(self, state: RollDiceState, tied: list[int]) -> int:
        while len(tied) > 1:
            rolls = {seat: state.chance.roll(DIE_SIDES, "rolloff") for seat in tied}
            for seat, value in rolls.items():
                state.log.public(
                    seat, "rolloff", f"rolls {value} in the roll-off", pb.RollEvent(seat=seat, value=value)
                )
            top = max(rolls.values())
            tied = [seat for seat, value in rolls.items() if value == top]
        return tied[0]

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: RollDiceState, viewer: int) -> pb.Observation:
        return pb.Observation(
            seat=max(viewer, 0),
            spectator=viewer == SPECTATOR,
            target=state.target,
            max_rerolls=state.max_rerolls,
            rolloff=state.rolloff,
            totals=state.totals,
            turn_seat=state.turn_seat,
            current_roll=state.current_roll,
            rerolls_left=state.rerolls_left,
            round=state.round,
            start_seat=state.start_seat,
            turns_taken=state.turns_taken,
        )

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> RollDiceState:
        """Nothing is hidden: the observation is the whole state but the dice to come (fresh)
        and a roll-off winner (only decided once the match is over). The variant values
        (target, rerolls, tie-breaker) are the observation's, as a stateless bot reads them."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        state = RollDiceState(
            config=config,
            chance=chance.fork(),
            target=obs.target,
            max_rerolls=obs.max_rerolls,
            rolloff=obs.rolloff,
            totals=list(obs.totals),
            turns_taken=list(obs.turns_taken),
            start_seat=obs.start_seat,
            turn_seat=obs.turn_seat,
            current_roll=obs.current_roll,
            rerolls_left=obs.rerolls_left,
            round=obs.round,
        )
        self.refresh(state)
        return state

    def score(self, state: RollDiceState) -> Result:
        keys = [(total, seat == state.rolloff_winner) for seat, total in enumerate(state.totals)]
        winners = [s for s, k in enumerate(keys) if k == max(keys)]
        summary = f"winner{'s' if len(winners) > 1 else ''}: seat {', '.join(map(str, winners))}"
        return Result.ranked(state.totals, keys, summary)


GAME = RollDice()
