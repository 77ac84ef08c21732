"""Vivo's state rollout policy: the heuristic's rule read from the world, pinned against the bot."""

from __future__ import annotations

import pytest

from arena.chance import Chance
from arena.games.vivo import GAME, Card, Played
from bots.games.vivo import HarmonyBot, HarmonyRollout, SeatView, best_play
from bots.registry import make_bot, rollout_policy
from bots.search import Policy, rollout_policies


def playout_decisions(players: int, seed: int, keep: float):
    """Every decision of a seeded playout, as (state, decision, the bot's choice read from the
    seat's observation). Seats alternate random and heuristic play, so the positions include
    off-harmony plays and voids."""
    state = GAME.new_match(GAME.config(players), seed)
    bot = Policy(GAME, HarmonyBot(keep))
    rng = Chance(seed)
    while state.pending:
        (decision,) = state.pending
        expected = bot.choose(state, decision)
        yield state, decision, expected
        play_random = (decision.seat + seed) % 2 == 0
        chosen = rng.pick(decision.options, "playout") if play_random else expected
        GAME.apply(state, {decision.seat: chosen.id})


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("keep", [0.5, 2.0])
def test_state_policy_picks_what_the_heuristic_picks_from_the_observation(players, keep):
    policy = HarmonyRollout(GAME, keep)
    checked = off_harmony = 0
    for seed in range(8):
        for state, decision, expected in playout_decisions(players, seed, keep):
            assert policy.choose(state, decision) is expected, (seed, state.round, state.trick, decision.seat)
            checked += 1
            off_harmony += decision.options[0].action.off_harmony
    assert checked == 8 * 2 * 12 * players  # every card play of both rounds
    assert off_harmony > 10


def test_state_policy_reads_no_other_hand():
    """Worlds that differ only in what the deciding seat cannot see give the same choice."""
    policy = HarmonyRollout(GAME)
    rng = Chance(3)
    worlds = differ = 0
    for seed in range(3):
        for state, decision, expected in playout_decisions(3, seed, 0.5):
            for _ in range(2):
                world = GAME.sample_world(state, decision.seat, rng)
                assert policy.choose(world, world.pending[0]).id == expected.id
                worlds += 1
                differ += world.hands != state.hands
    assert worlds == 3 * 72 * 2 and differ > 0.8 * worlds  # the same deal only late in a round


def test_best_play_scores_the_last_card_exactly():
    # Seat 2 plays last to red 5 and red 8 (Solo): red 9 takes the highest (2 points), red 3 the
    # lowest (3 points), red 6 nothing. keep=0: red 3. keep=4 weighs what each card is worth
    # kept (keep_value: 3 -> 1.74, 6 -> 1.85, 9 -> 1.45): red 9 (2 - 5.80 against 3 - 6.97).
    plays = [Played(0, Card("red", 5)), Played(1, Card("red", 8))]
    view = SeatView(2, 3, 1, 0, [Card("red", 3), Card("red", 6), Card("red", 9)], plays, ["red"], [])
    options = [(card, False) for card in view.hand]
    assert best_play(view, options, keep=0) == 0
    assert best_play(view, options, keep=4) == 2


def test_search_rolls_out_with_the_state_policy():
    assert rollout_policy("vivo") is HarmonyRollout
    policies = rollout_policies(GAME, 3, Chance(1))
    assert policies is not None and all(isinstance(p, HarmonyRollout) for p in policies)


def test_search_defaults_are_the_measured_setting():
    bot = make_bot("search", "vivo")
    assert (bot.iterations, bot.halving, bot.tree, bot.prior) == (100, True, False, 10)
    clocked = make_bot("search:ms=300", "vivo")  # a clock budget replaces the fixed one
    assert (clocked.iterations, clocked.ms, clocked.halving) == (0, 300, True)
