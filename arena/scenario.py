"""Setting up a chosen situation: preset chance plus a scripted sequence of decisions.

This is how a rulebook example is replayed exactly in a test, and how a bot author puts a bot
in front of a chosen position::

    from arena.chance import PresetChance
    from arena.scenario import scenario, request_for

    state = scenario("rolldice", players=2, chance=PresetChance(rolls={"die": [2, 5]}),
                     script=["reroll"])
    request = request_for("rolldice", state, seat=state.pending[0].seat)
    assert my_bot.decide(request) == "stop"

A script entry is an option id (for the one seat that must decide) or a mapping seat -> option
id (for a simultaneous decision). Each entry is applied with the engine's own validation, so a
script that goes off the rails fails at the first illegal step with the allowed ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.chance import Chance
from arena.engine import EngineError, Game, MatchState
from arena.protocol import decision_request, event_message
from arena.registry import get_game
from arena.v1 import bot_pb2

ScriptStep = str | Mapping[int, str]


class ScriptError(EngineError):
    """A scripted step does not fit the position (which step, and what was open)."""


def _game(game: Game | str) -> Game:
    return get_game(game) if isinstance(game, str) else game


def scenario(
    game: Game | str,
    players: int,
    options: Mapping[str, object] | None = None,
    *,
    seed: int = 0,
    chance: Chance | None = None,
    script: Sequence[ScriptStep] = (),
) -> MatchState:
    """A match state after the scripted decisions, with chance preset where given."""
    rules = _game(game)
    state = rules.new_match(rules.config(players, options), seed, chance)
    run_script(rules, state, script)
    return state


def run_script(game: Game | str, state: MatchState, script: Sequence[ScriptStep]) -> None:
    rules = _game(game)
    for number, step in enumerate(script):
        if isinstance(step, str):
            if len(state.pending) != 1:
                open_seats = [d.seat for d in state.pending]
                raise ScriptError(f"script step {number} ({step!r}): seats {open_seats} decide now; give a mapping")
            choices = {state.pending[0].seat: step}
        else:
            choices = dict(step)
        try:
            rules.apply(state, choices)
        except EngineError as exc:
            raise ScriptError(f"script step {number}: {exc}") from exc


def request_for(game: Game | str, state: MatchState, seat: int, index: int = 0) -> bot_pb2.DecisionRequest:
    """The request a bot in ``seat`` would receive now (with every event it has seen)."""
    rules = _game(game)
    decision = next((d for d in state.pending if d.seat == seat), None)
    if decision is None:
        raise ScriptError(f"seat {seat} has no decision now (open: {[d.seat for d in state.pending]})")
    events = [event_message(i, e) for i, (_, e) in enumerate(state.log.since(seat, 0))]  # numbered per seat
    return decision_request(rules, state, decision, index=index, events=events, simultaneous=len(state.pending) > 1)
