"""A heuristic's last-decision check: which options end the match at once, and how.

A board model can value a sole win and a shared one alike (Frenzy Falls' 14-14 for a 15-14) or
miss a tie-break its points do not show (Pet Quartet's pass for a winning take). When an option
ends the match, its result can be counted instead, on worlds built from the seat's observation
alone (``Game.world_from_observation``: the public table and its own hand; what it cannot see
is dealt at random), so the check reads nothing a served bot would not have.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from google.protobuf.message import Message

from arena.chance import Chance
from arena.registry import get_game

Outcome = tuple[int, int]
"""How a finished match went for a seat, higher is better: (-rank, -seats of that rank). By rank
first, as ratings compare seats (a 2nd place beats a 3rd), then alone before shared."""
SOLE_WIN: Outcome = (-1, -1)
WORLDS = 3  # worlds dealt per check: an outcome must hold in each (hidden cards can change it)


def outcome(ranks: Sequence[int], seat: int) -> Outcome:
    return -ranks[seat], -sum(1 for r in ranks if r == ranks[seat])


def ending_outcomes(
    game_id: str, players: int, options: Mapping[str, object], seat: int, obs: Message, ids: Sequence[str]
) -> dict[str, Outcome]:
    """Each option that ends the match at once in every world, with its worst outcome for
    ``seat`` over them (:func:`outcome`). Worlds are dealt from fixed seeds, so the same
    observation gives the same answer in every process."""
    game = get_game(game_id)
    config = game.config(players, options)
    worst: dict[str, Outcome] = {}
    for k in range(WORLDS):
        world = game.world_from_observation(config, seat, obs, Chance(k))
        for option_id in ids if k == 0 else list(worst):
            after = game.clone(world)
            game.apply(after, {seat: option_id})
            result = game.result(after)
            if result is None:
                worst.pop(option_id, None)
                continue
            worst[option_id] = min(worst.get(option_id, SOLE_WIN), outcome(result.ranks, seat))
        if not worst:
            break
    return worst


def prefer_ending(choice: str, ranked: Sequence[str], outcomes: Mapping[str, Outcome]) -> str:
    """The heuristic's ``choice``, unless an ending option does better: a sure sole win beats
    anything else, and an ending option beats another ending one of a worse outcome (a better
    rank, then a rank alone over a shared one). An option that plays on is left for a sure sole
    win only: the match going on may still be won alone. ``ranked`` is every option, the
    heuristic's best first (it breaks ties among equal outcomes)."""
    if not outcomes:
        return choice
    best = max(outcomes.values())
    mine = outcomes.get(choice)
    if (mine is None and best < SOLE_WIN) or (mine is not None and mine >= best):
        return choice
    return next(o for o in ranked if outcomes.get(o) == best)
