"""The Sky Five heuristic is a real strategy (issue 10, item 26): it weighs drawing against
banking from the faces it holds, the unseen cards, the end and the score gap, and beats random
at every risk appetite."""

from __future__ import annotations

import pytest

from arena.games.v1 import skyfive_pb2 as pb
from bench.heuristic_vs_random import measure
from bots.games.skyfive import HeuristicBot, View, draw_value


def view(hands, *, unseen_colours, deck_size=20, scores=(0, 0), unseen_values=None):
    """Seat 0's view of its observation: face-up hands as (colour, value) per seat, unseen
    cards counted by colour."""
    count = sum(unseen_colours.values())
    by_colour = [unseen_colours.get(c, 0) for c in range(7)]
    by_value = unseen_values or [0, 0, 0, count, 0, 0, 0]  # default: every unseen card is a 3
    table = [
        pb.Player(face_up=[pb.Card(colour=c, value=v) for c, v in hand], score=score)
        for hand, score in zip(hands, scores, strict=True)
    ]
    obs = pb.Observation(seat=0, players=len(hands), deck_size=deck_size, table=table, unseen=count)
    obs.unseen_by_colour.extend(by_colour)
    obs.unseen_by_value.extend(by_value)
    return View.of_observation(obs)


def test_banks_when_every_draw_would_bust_whatever_its_appetite():
    seen = view([[(pb.RED, 3)], [(pb.RED, 1)]], unseen_colours={pb.RED: 10})
    assert draw_value(seen) == 0.0  # every unseen card is red, and both players hold red
    assert HeuristicBot(risk=6)._wants_bank(seen)


def test_draws_while_banking_would_gain_nothing():
    seen = view([[(pb.BLUE, 0)], [(pb.RED, 1)]], unseen_colours={pb.GREEN: 10})
    assert draw_value(seen) > 0
    assert not HeuristicBot(risk=1)._wants_bank(seen)


def test_the_fifth_colour_is_counted_as_a_sure_bank():
    four = [(pb.RED, 6), (pb.ORANGE, 5), (pb.YELLOW, 4), (pb.GREEN, 6)]
    seen = view([four, []], unseen_colours={pb.BLUE: 10})
    assert draw_value(seen) == pytest.approx(21 + 3)  # Sky Five: everything banked, no roll


def test_behind_near_the_end_it_takes_the_risk_it_declines_when_ahead():
    hand = [(pb.RED, 4), (pb.BLUE, 5), (pb.GREEN, 2)]
    unseen = {pb.ORANGE: 2, pb.YELLOW: 2, pb.RED: 2}
    ahead = view([hand, []], unseen_colours=unseen, deck_size=3, scores=(60, 20))
    behind = view([hand, []], unseen_colours=unseen, deck_size=3, scores=(20, 60))
    bot = HeuristicBot(risk=3)
    assert bot._wants_bank(ahead)
    assert not bot._wants_bank(behind)


@pytest.mark.parametrize("risk", [1, 3, 6])
def test_beats_random_at_four_players_at_every_appetite(risk):
    # Before: risk=3 won 23% at 4 players, below random's 25%. Rotated seats, fixed seeds.
    result = measure("skyfive", 4, 120, f"heuristic:risk={risk}")
    assert result["win_rate"] > 0.33, result
    assert result["mean_rank"] < result["random_mean_rank"] - 0.3, result


def test_even_the_boldest_beats_random_at_two_players():
    result = measure("skyfive", 2, 150, "heuristic:risk=6")
    assert result["win_rate"] > 0.55, result


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_rollout_policy_picks_what_the_bot_picks_from_its_observation(players):
    """Search's rollout policy reads the seat's view straight from the world; at every decision
    of seeded playouts (random moves, so gifts and pick-ups come up) it must choose exactly
    what the heuristic chooses from the seat's observation, at every appetite."""
    from arena.chance import Chance
    from arena.registry import get_game
    from bots.games.skyfive import ROLLOUT_POLICY
    from bots.search import Policy

    game = get_game("skyfive")
    risks = (1, 3, 6)
    policies = [ROLLOUT_POLICY(game, risk) for risk in risks]
    bots = [Policy(game, HeuristicBot(risk)) for risk in risks]
    kinds = {"turn": 0, "give": 0, "take": 0}
    banks = 0
    for seed in range(6):
        state = game.new_match(game.config(players), seed)
        rng = Chance(seed)
        while state.pending:
            (decision,) = state.pending
            for policy, bot in zip(policies, bots, strict=True):
                chosen = policy.choose(state, decision)
                assert chosen.id == bot.choose(state, decision).id, (seed, decision)
                banks += chosen.id == "bank"
            kinds[decision.kind] += 1
            game.apply(state, {decision.seat: decision.options[rng.below(len(decision.options), "move")].id})
    assert min(kinds.values()) > 0, kinds
    assert 0 < banks < 3 * kinds["turn"]
