"""Three Witches: the rulebook's worked examples and NOTES §4.22's vectors, through the engine.

``test_threewitches.py`` pins the examples on the pure ``combine`` function; here each one is
played as a trick (``GAME.apply``) and read back from the trick record and the observation, and
the scoring vector is played as a whole round.
"""

from __future__ import annotations

from arena.games.threewitches import GAME, ThreeWitchesState
from arena.games.v1 import threewitches_pb2 as pb
from tests.test_threewitches import H0, H1, H2, deal, lead_round, play

# lead_round(): seat 0 is the Lead with toad1-5 and bat2; after the discards (bat6, raven1)
# seat 1 holds bat3 bat5 spider2 spider4 spider6 and seat 2 raven3 raven7 cat4 cat7 Elixir.


def _trick(state: ThreeWitchesState) -> tuple[int, int, bool]:
    """The last finished trick's (Lead value, Lesser value, Lead won), checked against what
    every seat is shown."""
    trick = state.tricks[-1]
    for viewer in range(3):
        shown = GAME.observe(state, viewer).tricks[-1]
        assert (shown.lead_value, shown.lesser_value, shown.lead_won) == (
            trick.lead_value,
            trick.lesser_value,
            trick.lead_won,
        )
    return trick.lead_value, trick.lesser_value, trick.lead_won


def test_example_matching_rank_3_plus_3_is_6():
    # threewitches.md :218-226 "If both cards have the same rank: add their ranks. 3 + 3 = 6".
    state = lead_round()
    play(state, "card:toad-4", "card:toad-1")  # Lead: toad 4 + toad 1, same suit = 5
    play(state, "card:bat-3", "card:raven-3")  # Lessers (void in toad): bat 3 + raven 3
    assert _trick(state) == (5, 6, False)


def test_example_matching_suit_2_and_5_is_7():
    # :230-238 "If both cards have the same suit: add their ranks. 2 and 5 of the same suit = 7".
    state = lead_round()
    play(state, "card:toad-5", "card:toad-2")  # the 2 is face-down: no Eyes
    assert not state.eyes
    play(state, "card:bat-5", "card:cat-4")  # no match: the higher rank, 5
    assert _trick(state) == (7, 5, True)


def test_example_no_match_3_and_5_is_5():
    # :242-250 "If the cards match neither rank nor suit: use only the higher rank. 3 and 5 of
    # different suits = 5".
    state = lead_round()
    play(state, "card:toad-3", "card:toad-1")  # Lead: same suit = 4
    play(state, "card:bat-5", "card:raven-3")  # Lessers: bat 5 and raven 3
    assert _trick(state) == (4, 5, False)


def test_example_elixir_plus_rank_4_is_8():
    # :319-332 "When the Elixir is combined with another card, the team's value is double the
    # rank of the other card. Elixir + rank 4 = 8".
    # The Lead's side: seat 0 holds the Elixir (H2) and plays it face-down under cat 4.
    state = deal(H2, H0, H1)
    play(state, "pass", "pass", "bid:4", {1: "card:toad-1", 2: "card:bat-3"})
    play(state, "card:cat-4", "card:elixir", "card:toad-5", "card:spider-6")
    assert _trick(state) == (8, 6, True)
    assert state.tricks[-1].returned.rank == 4  # the Elixir may not go back [:280]
    # The Lessers' side: seat 2 plays the Elixir (void in toad) beside its partner's spider 4.
    state = lead_round()
    play(state, "card:toad-5", "card:toad-4", "card:spider-4", "card:elixir")
    assert _trick(state) == (9, 8, True)


def _round_of_five(bid: str) -> ThreeWitchesState:
    """Seat 0 leads 5 tricks and wins 4 of them (tricks 1, 2, 3 and 5)."""
    state = lead_round(bid)
    tricks = [
        # (Lead up, Lead down, first Lesser, second Lesser, returned, expected values)
        ("toad-5", "toad-4", "bat-3", "raven-3", "toad-5", (9, 6, True)),
        ("toad-5", "toad-3", "bat-5", "raven-7", "toad-5", (8, 7, True)),
        ("toad-5", "toad-2", "spider-6", "cat-7", "toad-5", (7, 7, True)),  # tie: the Lead [:258-260]
        ("toad-5", "toad-1", "spider-4", "cat-4", "toad-5", (6, 8, False)),  # 4 + 4 same rank
        ("toad-5", "bat-2", "spider-2", "elixir", "toad-5", (5, 4, True)),  # Elixir + 2 = 4
    ]
    for up, down, first, second, back, values in tricks:
        play(state, f"card:{up}", f"card:{down}", f"card:{first}", f"card:{second}")
        assert _trick(state) == values
        assert state.pending[0].kind == "return"
        play(state, f"card:{back}")
    return state


def test_vector_exact_bid_gives_the_lead_2_fate():
    # NOTES §4.22 vector 2, :340-344: the Lead bid 4 and won exactly 4 tricks: +2 Fate.
    state = _round_of_five("bid:4")
    assert state.fate == [2, 0, 0] and state.round == 2
    score = next(e for e in state.log.events if e.kind == "score").detail
    assert (score.bid, score.lead_tricks, list(score.fate)) == (4, 4, [2, 0, 0])
    assert [v.fate for v in GAME.observe(state, 1).seats] == [2, 0, 0]


def test_vector_missed_bid_gives_each_lesser_1_fate():
    # NOTES §4.22 vector 2, :348-356: the Lead bid 3 and won 4 ("too many ... cause the bid to
    # fail"): each Lesser Witch +1 Fate.
    state = _round_of_five("bid:3")
    assert state.fate == [0, 1, 1] and state.round == 2
    score = next(e for e in state.log.events if e.kind == "score").detail
    assert (score.bid, score.lead_tricks, list(score.fate)) == (3, 4, [0, 1, 1])
    assert GAME.observe(state, 0).phase == pb.BIDDING


def test_vector_tied_trick_goes_to_the_lead():
    # NOTES §4.22 vector 1, :258-260, :401: 7 against 7, the Lead wins the trick.
    state = lead_round()
    play(state, "card:toad-5", "card:toad-2", "card:spider-6", "card:cat-7")
    assert _trick(state) == (7, 7, True)
    assert state.pending[0].seat == 0 and state.pending[0].kind == "return"  # the Lead's own choice
    assert [v.tricks for v in GAME.observe(state, 1).seats] == [1, 0, 0]
