"""Building Seasons positions for tests: a state at the start of a chosen seat's turn (after its
die was used), with the hands, tableaux, reserves, crystals and gauges you give.

    from arena.games.seasons.testing import position, play

    state = position(players=2, hands={0: [10]}, tableau={1: [1, 3]}, reserve={0: {"fire": 3}},
                     gauge={0: 2})
    play(state, "summon:10")          # seat 0 summons Syllas; seat 1 must now sacrifice
    assert state.pending[0].seat == 1 and state.pending[0].kind == "card"

Energies are given as ``{"air": n, ...}`` or as a 5-list indexed by Energy. The draw pile is
``draw`` (the next card first). Nothing else happens: no library, no dice to pick; the turn
seat holds ``die`` (a Face: default the winter die 1 face 5, "draw a card", which gives nothing
at once) and may transmute when ``transmute`` is set. Ending the turn continues the round with
the next seats (their dice are the other ``rolled`` faces) and then the normal flow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.chance import Chance
from arena.games.seasons.framework import DICE, ENERGY_BY_NAME, Face, SeasonsState, Slot
from arena.games.seasons.game import GAME
from arena.games.v1 import seasons_pb2 as pb

DRAW_FACE: Face = DICE[0][0][4]  # winter die 1, face 5: card draw only, 2 pips
PIPS1: Face = DICE[0][0][2]  # winter die 1, face 3: 2 water, 3 crystals, 1 pip


def energies(value: Mapping[str, int] | Sequence[int] | None) -> list[int]:
    if value is None:
        return [0] * 5
    if isinstance(value, Mapping):
        out = [0] * 5
        for name, n in value.items():
            out[ENERGY_BY_NAME[name]] = n
        return out
    return list(value)


def position(
    players: int = 2,
    *,
    mode: str = "magician",
    seat: int = 0,
    hands: Mapping[int, Sequence[int]] | None = None,
    tableau: Mapping[int, Sequence[int]] | None = None,
    reserve: Mapping[int, Any] | None = None,
    crystals: Mapping[int, int] | None = None,
    gauge: Mapping[int, int] | None = None,
    libraries: Mapping[int, tuple[Sequence[int], Sequence[int]]] | None = None,
    draw: Sequence[int] = (),
    discard: Sequence[int] = (),
    month: int = 1,
    year: int = 1,
    die: Face = DRAW_FACE,
    transmute: bool = False,
    rolled: Sequence[Face] = (),
    leftover: Face = PIPS1,
    seed: int = 0,
) -> SeasonsState:
    """A state in the turn of ``seat`` (its first decision open), built directly."""
    state = GAME.new_match(GAME.config(players, {"mode": mode}), seed, Chance(seed))
    n = players
    state.hands = [list((hands or {}).get(s, [])) for s in range(n)]
    state.tableau = [[Slot(c) for c in (tableau or {}).get(s, [])] for s in range(n)]
    state.reserve = [energies((reserve or {}).get(s)) for s in range(n)]
    state.crystals = [(crystals or {}).get(s, 0) for s in range(n)]
    state.gauge = [(gauge or {}).get(s, len(state.tableau[s]) + 1) for s in range(n)]
    state.libraries = [[list(x) for x in (libraries or {}).get(s, ([], []))] for s in range(n)]
    state.limbo = [[] for _ in range(n)]
    state.packets = [[] for _ in range(n)]
    state.drafted = [sorted([*state.hands[s], *state.libraries[s][0], *state.libraries[s][1]]) for s in range(n)]
    state.passed = [[] for _ in range(n)]
    state.lib_step = 6
    state.draw_pile = list(draw)[::-1]
    state.discard = list(discard)
    state.discard_seen = [-1] * len(state.discard)  # public
    state.month, state.year, state.year_to = month, year, year
    state.round = 1
    state.first = seat
    state.turn_seat = seat
    others = list(rolled) or [DRAW_FACE] * (n - 1)
    state.dice = [None] * n
    state.dice[seat] = die
    for k in range(1, n):
        state.dice[(seat + k) % n] = others[k - 1]
    state.rolled = [leftover]
    state.pick_order = []
    state.turn_order = [(seat + k) % n for k in range(1, n)]
    state.asks = []
    state.fresh = []
    state.may_transmute = transmute or die.transmute
    state.transmute_bonus = 0
    state.may_draw = die.card
    state.stage = "turn"
    state.phase = pb.PHASE_TURN
    state.log.events.clear()
    GAME.refresh(state)
    return state


def play(state: SeasonsState, *steps: str | Mapping[int, str]) -> SeasonsState:
    """Apply option ids in order (a mapping seat -> id for a simultaneous decision)."""
    for step in steps:
        if isinstance(step, str):
            assert len(state.pending) == 1, f"{step!r}: {len(state.pending)} seats must decide"
            GAME.apply(state, {state.pending[0].seat: step})
        else:
            GAME.apply(state, dict(step))
    return state


def options(state: SeasonsState, seat: int | None = None) -> list[str]:
    """The option ids now open for ``seat`` (the single deciding seat by default)."""
    for decision in state.pending:
        if seat is None or decision.seat == seat:
            return list(decision.option_ids)
    return []
