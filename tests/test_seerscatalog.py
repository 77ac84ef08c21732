"""Seers Catalog: every example of shared/rules/seerscatalog.md and the rulings (NOTES §4.18), pinned."""

from __future__ import annotations

import functools
import pickle
from collections import Counter

import pytest
from scipy.stats import chisquare

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.seerscatalog import GAME, SeersState
from arena.games.seerscatalog.game import ForcedPass, Played, could_not_beat, round_score, suited_deck
from arena.games.seerscatalog.melds import (
    ANY,
    ART,
    ARTIFACT_IDS,
    GOFIRST,
    SINGLE,
    WILD,
    Trick,
    VCard,
    any_meld,
    make_meld,
    parse_token,
    sorted_cards,
    token,
)
from arena.games.v1 import seerscatalog_pb2 as pb
from bots.registry import make_bot
from tests.contract import assert_same_view, observation_bytes, random_playout

# --------------------------------------------------------------------------------------------
# Helpers


def cards(text: str) -> list[int]:
    return [parse_token(t) for t in text.split()]


def meld(type_: str, text: str, value: int, artifact: str = "", ability: bool = False):
    """A meld of natural cards (``W=*5`` for a Wild counting 5) of the given value."""
    vcs = []
    for t in text.split():
        phys, _, as_ = t.partition("=")
        c = parse_token(phys)
        if as_:
            vcs.append(VCard(c, ANY if as_[0] == "*" else "YPSTG".index(as_[0]), int(as_[1:])))
        else:
            vcs.append(VCard(c, c >> 4, c & 15))
    return make_meld(type_, vcs, 2 * value, parse_token("@" + artifact) if artifact else -1, ability)


def position(
    players: int, hands: dict[int, str], turn: int = 0, trick=None, seed: int = 1, reversed_=False
) -> SeersState:
    """A match with the given hands (others keep their deal), ``trick`` = [(seat, meld)...] on the table."""
    state = GAME.new_match(GAME.config(players), seed)
    for seat, text in hands.items():
        state.hands[seat] = cards(text)
        state.known[seat] = [c for c in state.known[seat] if c in state.hands[seat]]
    state.trick = [Played(s, m) for s, m in (trick or [])]
    if trick:
        state.trick_type, state.trick_size = state.trick[-1].meld.type, state.trick[-1].meld.size
    state.reversed = reversed_
    state.passed = [False] * players
    state.turn = turn
    state.start_seer = trick[0][0] if trick else turn
    state.chosen, state.gift = "", False
    GAME.refresh(state)
    return state


def turn_ids(state) -> list[str]:
    d = state.pending[0]
    assert d.kind == "turn"
    return list(d.option_ids)


def meld_ids(state, how: str = "meld") -> list[str]:
    """The meld options after choosing ``how`` in the turn step (on a copy)."""
    s = pickle.loads(pickle.dumps(state))
    GAME.apply(s, {s.turn: how})
    assert s.pending[0].kind == "meld"
    return list(s.pending[0].option_ids)


def play(state, how: str, meld_id: str) -> None:
    GAME.apply(state, {state.turn: how})
    GAME.apply(state, {state.turn: meld_id})


FIVE = "Y2 Y3 P4 S8 S9 S10"  # filler with no 5s/6s/7s


# --------------------------------------------------------------------------------------------
# Printed examples (9)


def test_example_1_singles():
    # :134-140 - a 5 is led; the next player may play a 6 or higher, never a 5 or lower.
    state = position(3, {1: "Y3 P5 S5 Y6 P9 S13 Y2"}, turn=1, trick=[(0, meld(SINGLE, "Y5", 5))])
    assert turn_ids(state) == ["pass", "meld"]
    assert meld_ids(state) == ["single:Y6", "single:P9", "single:S13"]


def test_example_2_matching_set():
    # :146-158 - Plum 6, Green 6, Teal 6 are beaten by exactly three cards of a higher rank.
    state = position(5, {1: "Y7 S7 P7 T8 G8 Y9 Y2 S3"}, turn=1, trick=[(0, meld("set", "P6 G6 T6", 6))])
    assert meld_ids(state) == ["set:Y7.P7.S7"]  # two 7s (or two 8s) are not 3 cards


def test_a_matching_set_is_beaten_only_by_the_same_number_of_cards():
    """:158-160 "another player must play exactly 3 cards of a higher matching value" (Quick
    Reference: "The same number of cards"): three 7s in hand answer a pair only as pairs."""
    state = position(5, {1: "Y7 P7 T7 G9 S2 S3 S4"}, turn=1, trick=[(0, meld("set", "Y6 P6", 6))])
    assert meld_ids(state) == ["set:P7.T7", "set:Y7.P7", "set:Y7.T7"]  # no set:Y7.P7.T7


def test_example_3_suited_run():
    # :166-184 - Teal 4-5 is beaten by Plum 5-6 (another suit, higher top card, same length).
    state = position(5, {1: "P5 P6 T2 T3 G9 Y12 S2"}, turn=1, trick=[(0, meld("run", "T4 T5", 5))])
    assert meld_ids(state) == ["run:P5.P6"]  # T2-T3 ends lower


def test_example_4_bonus_must_play_a_higher_single():
    # :246-262 - a 5 is led; the next player holds 5 5 7 8 9: in the Bonus, must play 7, 8 or 9.
    state = position(3, {1: "Y5 P5 Y7 Y8 Y9"}, turn=1, trick=[(0, meld(SINGLE, "S5", 5))])
    assert GAME.observe(state, 1).seats[1].in_bonus
    assert turn_ids(state) == ["meld"]  # no "pass"
    assert meld_ids(state) == ["single:Y7", "single:Y8", "single:Y9"]


def test_bonus_must_play_when_the_only_legal_play_uses_an_artifact():
    """:233 "This requirement includes legal plays involving one or more Artifact Cards" (ruling 4):
    a Bonus seat whose only answer is the Crown is asked (no pass), not passed for it."""
    state = position(3, {0: "Y9 Y2 Y3 P4 S8 S9 S10", 1: "P2 S2 Y3 @crown"}, turn=0)
    start = len(state.log.events)
    play(state, "meld", "single:Y9")
    assert [(e.seat, e.kind) for e in state.log.events[start:]] == [(0, "play")]  # no forced pass
    assert state.turn == 1 and turn_ids(state) == ["use:crown"]
    assert meld_ids(state, "use:crown") == ["single:@crown=*14"]


def test_example_5_bonus_wild_makes_the_set():
    # :264-276 - two 5s are led; the next player holds 2, 6, Wild: must play 6 + Wild as two 6s.
    state = position(3, {1: "Y2 P6 W"}, turn=1, trick=[(0, meld("set", "Y5 S5", 5))])
    assert turn_ids(state) == ["meld"]
    assert meld_ids(state) == ["set:P6.W=*6"]
    play(state, "meld", "set:P6.W=*6")
    assert state.hands[1] == cards("Y2") and state.trick[-1].meld.value2 == 12


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("", 0),  # example 1 (:319-326): no cards, 0 bonus, 0 penalty
        ("Y8 P9", 6),  # example 2 (:328-335): bonus 8, penalty 2
        ("Y2 P2 Y3 Y6 P6 Y10", -6),  # example 3 (:337-344): 6 cards, no bonus, penalty 6
        ("Y7 Y9 W", -3),  # example 4 (:346-353): the Wild is worth 0
    ],
)
def test_examples_6_to_9_round_score(hand, expected):
    assert round_score(cards(hand)) == expected


def test_examples_6_to_9_scored_by_the_engine_at_round_end():
    # :319-353 through the engine: seat 1 sheds its last card, the round ends at once (:280) and
    # every hand is scored as printed: example 1 (no cards) 0, example 2 (8, 9) 8 - 2 = 6,
    # example 3 (2, 2, 3, 6, 6, 10) 0 - 6 = -6, example 4 (7, 9, Wild) 0 - 3 = -3.
    state = position(4, {0: "Y8 P9", 1: "S13", 2: "Y2 P2 Y3 Y6 P6 Y10", 3: "T7 T9 W"}, turn=1)
    assert turn_ids(state) == ["meld"]
    play(state, "meld", "single:S13")
    assert state.round_scores == [[6], [0], [-6], [-3]]
    (end,) = [e for e in state.log.events if e.kind == "round-end"]
    assert (end.detail.round, list(end.detail.scores)) == (1, [6, 0, -6, -3])
    # Every hand is shown (ruling 14) in the typed detail too, not only in the text.
    assert [list(h.cards) for h in end.detail.hands] == [
        ["Y8", "P9"],
        [],
        ["Y2", "P2", "Y3", "Y6", "P6", "Y10"],
        ["T7", "T9", "W"],
    ]
    assert state.round == 2 and [v.total for v in GAME.observe(state, 0).seats] == [6, 0, -6, -3]


def test_round_score_artifact_and_five_cards():
    assert round_score(cards("Y7 Y9 @rod")) == -3  # artifacts are worth 0 (:214)
    assert round_score(cards("Y7 Y8 Y9 P10 P11")) == 7 - 5  # 5 cards: still the Bonus (:220)


# --------------------------------------------------------------------------------------------
# Set-up


@pytest.mark.parametrize(
    ("players", "suits", "top", "deck", "artifacts"),
    [(2, 3, 10, 27, 4), (3, 3, 13, 36, 6), (4, 4, 13, 48, 8), (5, 5, 13, 60, 10)],
)
def test_setup_by_player_count(players, suits, top, deck, artifacts):
    state = GAME.new_match(GAME.config(players), seed=7)
    full = suited_deck(players)
    assert len(full) == deck and max(c & 15 for c in full) == top and len({c >> 4 for c in full}) == suits
    assert all(len(h) == 15 for h in state.hands)  # 12 suited + 1 Wild + 2 Artifacts (:56-61)
    assert all(h.count(WILD) == 1 and sum(c >= ART for c in h) == 2 for h in state.hands)
    assert len(state.artifacts) == artifacts and state.artifacts[0] == GOFIRST
    assert len(state.removed) == (3 if players == 2 else 0)  # :46
    held = Counter(c for h in state.hands for c in h if c < WILD) + Counter(state.removed)
    assert held == Counter(full)
    assert GOFIRST in state.hands[state.start_seer] and state.turn == state.start_seer  # :67


def test_player_counts():
    for players in (1, 6):
        with pytest.raises(ConfigError):
            GAME.config(players)


def test_chance_labels_in_order():
    others = [ART + i for i in range(len(ARTIFACT_IDS)) if ART + i != GOFIRST]
    order = [*suited_deck(3)][::-1]
    arts = [GOFIRST, *others[:5]]
    chance = PresetChance(orders={"artifacts": [others], "deck": [order], "artifact-deal": [arts[::-1]]}, strict=False)
    state = GAME.new_match(GAME.config(3), chance=chance)
    assert state.artifacts == arts
    assert sorted(state.hands[0][:12]) == sorted(order[:12])
    assert GOFIRST in state.hands[2] and state.start_seer == 2  # the artifact deal: seat 2 gets the last two


def test_two_player_chance_labels_remove_three_cards_once():
    # 2 players: "removed" (once: the last 3 of a shuffle of the 27) comes before the first "deck"
    # (a shuffle of the 24 in play, sorted first), and no round draws "removed" again.
    others = [ART + i for i in range(len(ARTIFACT_IDS)) if ART + i != GOFIRST]
    full = suited_deck(2)
    out = cards("Y2 P7 S10")
    kept = [c for c in full if c not in out]
    decks = [kept[::-1], kept, kept[::-1], kept]
    chance = PresetChance(
        7, orders={"artifacts": [others], "removed": [[*kept, *out[::-1]]], "deck": decks}, strict=False
    )
    state = GAME.new_match(GAME.config(2), chance=chance)
    assert state.removed == out
    assert sorted(state.hands[0][:12]) == sorted(kept[::-1][:12]) and sorted(state.hands[1][:12]) == kept[:12]
    for round_ in (2, 3, 4):
        _finish_round(state)
        assert state.round == round_ and state.removed == out
        first = decks[round_ - 1]
        assert sorted(c for c in state.hands[0] if c < WILD) == sorted(first[:12])
        assert sorted(c for c in state.hands[1] if c < WILD) == sorted(first[12:])
    assert chance.unused() == {}


# --------------------------------------------------------------------------------------------
# Tricks


def test_pass_locks_out_until_the_next_trick_and_winner_leads():
    state = position(3, {0: "Y3 Y4 Y9 P2 P3 P4 S5", 1: "Y5 Y6 P8 P9 P10 S2 S3", 2: "Y7 Y8 S8 S9 S10 S11 S12"})
    play(state, "meld", "single:Y3")
    GAME.apply(state, {1: "pass"})
    play(state, "meld", "single:Y7")  # seat 2
    assert state.turn == 0  # seat 1 passed: skipped (:110-112)
    GAME.apply(state, {0: "pass"})
    # only seat 2 is left: it wins the trick and starts the next (:116-122)
    assert not state.trick and state.start_seer == 2 and state.turn == 2
    assert sorted(state.set_aside) == sorted(cards("Y3 Y7"))


def test_start_seer_who_cannot_play_passes_to_the_left():
    # :93-97 and ruling 8: only Go First (needs a meld) - forced pass, seat 1 starts.
    state = position(3, {0: "@gofirst @rod", 1: "Y5 Y6 P8 P9 P10 S2 S3"}, turn=0)
    GAME._new_trick(state, 0)
    GAME.refresh(state)
    assert state.start_seer == 1 and state.turn == 1
    assert state.log.events[-1].kind == "pass" and state.log.events[-1].detail.forced


def test_a_start_seer_who_could_not_start_is_out_of_that_trick():
    # :95 "they must pass": a pass keeps the seat out of the trick (:110-112), so the seat is not
    # asked or made to pass again in the trick the next seat starts (one ``pass`` event).
    state = position(3, {0: "@gofirst @rod", 1: "Y5 Y6 P8 P9 P10 S2 S3", 2: "Y7 Y8 S8 S9 S10 S11 S12"}, turn=0)
    start = len(state.log.events)
    GAME._new_trick(state, 0)
    GAME.refresh(state)
    play(state, "meld", "single:Y5")  # seat 1 starts
    GAME.apply(state, {2: "pass"})
    # seat 0 is out and seat 2 passed: seat 1 wins the trick and starts the next
    passes = [e.seat for e in state.log.events[start:] if e.kind == "pass"]
    assert passes == [0, 2]
    assert not state.trick and state.start_seer == 1 and state.turn == 1


def test_nobody_can_start_ends_the_round():
    state = position(2, {0: "@gofirst", 1: "@rod"}, turn=0)
    GAME._new_trick(state, 0)
    GAME.refresh(state)
    assert state.round == 2 and state.round_scores == [[-1], [-1]]


def test_round_ends_at_once_when_a_hand_is_empty():
    state = position(3, {0: "Y13", 1: "Y5", 2: "Y6"}, turn=0)
    play(state, "meld", "single:Y13")
    assert state.round == 2 and [r[0] for r in state.round_scores] == [0, 5 - 1, 6 - 1]  # :280-282


@pytest.mark.timeout(30)
def test_round_ends_at_once_when_an_answering_meld_empties_a_hand():
    """:280-282 "A round ends immediately when any player runs out of cards" (ruling 9), also
    when the emptying meld answers another one in the trick."""
    state = position(3, {0: "Y5 Y2 P9 S9 S10 S11 S12", 1: "Y13", 2: "Y6 P6 S6 Y10 P10 S3 S4"}, turn=0, seed=1)
    start = len(state.log.events)
    play(state, "meld", "single:Y5")
    assert state.turn == 1 and turn_ids(state) == ["meld"]
    play(state, "meld", "single:Y13")
    # no further turn in the trick: the round is scored as it stands, seat 0 holds 6 cards (-6),
    # seat 1 none (0), seat 2 7 cards (-7)
    assert [(e.seat, e.kind) for e in state.log.events[start:]][:3] == [(0, "play"), (1, "play"), (-1, "round-end")]
    assert state.round == 2 and state.round_scores == [[-6], [0], [-7]]


def test_game_end_totals_and_tiebreak_on_round_four():
    state = GAME.new_match(GAME.config(3), seed=2)
    state.round = 4
    state.round_scores = [[1, 2, 3], [3, 2, 1], [0, 0, 0]]
    state.hands = [cards("Y13"), cards("Y5 Y6"), cards("Y7 Y9")]
    state.turn = 0
    state.trick, state.passed = [], [False] * 3
    GAME.refresh(state)
    play(state, "meld", "single:Y13")
    result = GAME.result(state)
    # round 4: seat 0 empties (0), seat 1 5-2 = 3, seat 2 7-2 = 5 -> totals 6, 9, 5
    assert result.scores == (6, 9, 5) and result.ranks == (2, 1, 3)


def test_tiebreak_round_four_then_shared():
    state = GAME.new_match(GAME.config(3), seed=2)
    state.round_scores = [[5, 0, 0, 1], [0, 0, 0, 6], [6, 0, 0, 0]]
    state.over = True
    GAME.refresh(state)
    result = GAME.result(state)
    assert result.ranks == (2, 1, 3)  # 6 = 6 = 6: round 4 decides (:380)
    state.round_scores = [[5, 0, 0, 1], [5, 0, 0, 1], [0, 0, 0, 0]]
    assert GAME.score(state).ranks == (1, 1, 3)  # ruling 1: no box to grab, shared victory


def test_round_four_breaks_the_tie_for_the_win_only():
    """:379-381 "If multiple players are tied for the highest total score": equal totals below
    it share a place (a rules probe: seed 7's totals -1, -3, -18, -3 ranked 1, 2, 4, 3 by round 4)."""
    state = GAME.new_match(GAME.config(4), seed=7)
    state.round_scores = [[0, 0, -1, 0], [-3, 0, -6, 6], [-10, -4, -8, 4], [0, 0, -3, 0]]
    state.over = True
    GAME.refresh(state)
    assert GAME.score(state).ranks == (1, 2, 4, 2)


def test_bonus_flips_back_after_taking_cards():
    # :237-244: the Rod takes 2 cards: 5 -> 4 -> 6 cards, out of the Bonus, may pass again.
    state = position(
        3,
        {0: "Y2 Y3 P3 Y9 P9 S9", 1: "P5 Y6 Y8 @rod W"},
        turn=1,
        trick=[(2, meld("set", "Y4 P4", 4))],
    )
    assert "pass" not in turn_ids(state)
    play(state, "use:rod", "set:Y6.W=*6")
    assert sorted(state.hands[1]) == sorted(cards("P5 Y8 Y4 P4"))
    assert [p.seat for p in state.trick] == [1] and state.known[1] == cards("Y4 P4")
    state.hands[1] += cards("S2 S3")
    state.passed = [False, False, True]
    state.turn = 1
    state.trick = [Played(0, meld("set", "Y9 P9", 9))]
    GAME.refresh(state)
    assert "pass" in turn_ids(state)  # 6 cards: not in the Bonus


# --------------------------------------------------------------------------------------------
# Artifacts


def test_go_first_only_with_a_starting_meld():
    state = position(3, {0: "Y3 Y4 @gofirst @moon P9 P10 S2"}, turn=0)
    assert "shed:gofirst" in turn_ids(state)
    play(state, "shed:gofirst", "single:Y3")
    assert GOFIRST not in state.hands[0] and state.trick[-1].meld.artifact == GOFIRST
    follow = position(3, {1: "Y5 Y6 @gofirst P9 P10 S2 S3"}, turn=1, trick=[(0, meld(SINGLE, "Y3", 3))])
    assert "shed:gofirst" not in turn_ids(follow)


def test_shed_any_other_artifact_without_its_ability():
    state = position(3, {1: "Y5 Y6 @veil P9 P10 S2 S3"}, turn=1, trick=[(0, meld(SINGLE, "Y3", 3))])
    assert turn_ids(state) == ["pass", "meld", "use:veil", "shed:veil"]
    play(state, "shed:veil", "single:Y5")
    assert state.turn == 2 and not any(state.passed)  # no ability: seat 2 plays on


def test_cauldron_changes_one_card_by_one():
    state = position(3, {1: "Y7 P8 S2 S3 @cauldron P12 Y13"}, turn=1, trick=[(0, meld("set", "Y6 P6", 6))])
    assert meld_ids(state, "use:cauldron") == ["set:Y7.P8=P7", "set:Y7=Y8.P8", "set:Y13=Y12.P12", "set:Y13.P12=P13"]


def test_prism_changes_a_suit_in_a_run():
    state = position(3, {1: "Y7 P8 S2 S4 @prism P12 Y13"}, turn=1, trick=[(0, meld("run", "S5 S6", 6))])
    assert meld_ids(state, "use:prism") == ["run:Y7.P8=Y8", "run:Y7=P7.P8", "run:P12.Y13=P13", "run:P12=Y12.Y13"]


def test_moon_adds_a_half():
    state = position(3, {1: "Y7 P2 S2 S4 @moon P3 Y3"}, turn=1, trick=[(0, meld(SINGLE, "P7", 7))])
    assert "meld" not in turn_ids(state) and meld_ids(state, "use:moon") == ["single:Y7"]
    play(state, "use:moon", "single:Y7")
    assert state.trick[-1].meld.value2 == 15  # 7½


def test_crown_is_the_highest_single():
    state = position(3, {1: "Y7 P2 S2 S4 @crown P3 Y3"}, turn=1, trick=[(0, meld(SINGLE, "P13", 13))])
    assert meld_ids(state, "use:crown") == ["single:@crown=*14"]
    play(state, "use:crown", "single:@crown=*14")
    # nobody can beat 14: seats 2 and 0 can only pass (asked: out of the Bonus, ruling 7), seat 1
    # wins the trick and starts the next
    for seat in (2, 0):
        assert state.turn == seat and turn_ids(state) == ["pass"]
        GAME.apply(state, {seat: "pass"})
    assert state.start_seer == 1 and cards("@crown") == state.set_aside[-1:]
    pair = position(3, {1: "Y7 P7 S2 S4 @crown P3 Y3"}, turn=1, trick=[(0, meld("set", "Y5 S5", 5))])
    assert "use:crown" not in turn_ids(pair)  # only a Single


def test_beacon_names_a_value():
    state = position(3, {1: "P2 S2 S4 @beacon P3 Y3"}, turn=1, trick=[(0, meld(SINGLE, "P11", 11))])
    assert meld_ids(state, "use:beacon") == ["single:@beacon=*12", "single:@beacon=*13"]


def test_mirror_allows_an_equal_meld():
    state = position(3, {1: "Y7 P2 S2 S4 @mirror P3 Y3"}, turn=1, trick=[(0, meld(SINGLE, "P7", 7))])
    assert meld_ids(state, "use:mirror") == ["single:Y7"]


def test_twin_copies_a_card_of_a_set():
    state = position(3, {1: "Y9 P2 S2 S4 @twin P3 Y3"}, turn=1, trick=[(0, meld("set", "P7 Y7", 7))])
    assert meld_ids(state, "use:twin") == ["set:Y9.@twin=Y9"]


def test_bridge_skips_one_rank():
    state = position(3, {1: "Y7 Y9 S2 S4 @bridge P3 Y3"}, turn=1, trick=[(0, meld("run", "P4 P5", 5))])
    assert meld_ids(state, "use:bridge") == ["run:Y7.Y9"]


def test_lens_plays_one_card_more_and_resizes_the_trick():
    state = position(3, {1: "Y8 P8 S8 S4 @lens P3 Y3"}, turn=1, trick=[(0, meld("set", "P7 Y7", 7))])
    assert meld_ids(state, "use:lens") == ["set:Y8.P8.S8"]
    play(state, "use:lens", "set:Y8.P8.S8")
    assert (state.trick_type, state.trick_size) == ("set", 3)


def test_wheel_swaps_set_and_run():
    state = position(3, {1: "Y8 Y9 S2 S4 @wheel P3 P11"}, turn=1, trick=[(0, meld("set", "P7 Y7", 7))])
    assert meld_ids(state, "use:wheel") == ["run:Y8.Y9"]
    play(state, "use:wheel", "run:Y8.Y9")
    assert state.trick_type == "run"


def test_hourglass_reverses_the_trick():
    state = position(
        3, {1: "Y8 Y5 S2 S4 @hourglass P3 P11", 2: "Y2 Y6 Y9 P2 P4 P5 S12"}, turn=1, trick=[(0, meld(SINGLE, "Y7", 7))]
    )
    play(state, "use:hourglass", "single:Y8")
    assert state.reversed
    assert meld_ids(state) == ["single:P2", "single:Y2", "single:P4", "single:P5", "single:Y6"]


def test_another_hourglass_restores_the_order():
    """Ruling 12: "The Hourglass reverses the order for the rest of the trick (another Hourglass
    restores it)": the Rod takes the played Hourglass back, and playing it again restores it."""
    state = position(
        3,
        {
            0: "Y8 Y3 P10 P11 P12 S12 @hourglass",
            1: "Y5 Y2 P9 S9 S10 S11 @rod",
            2: "Y4 P2 P3 P13 S13 Y13 S2",
        },
        turn=0,
    )
    play(state, "use:hourglass", "single:Y8")
    assert state.reversed
    play(state, "use:rod", "single:Y5")  # lower beats; takes Y8 and the Hourglass
    assert state.reversed and sorted(state.hands[1]) == sorted(cards("Y2 Y8 P9 S9 S10 S11 @hourglass"))
    play(state, "meld", "single:Y4")
    play(state, "meld", "single:Y3")
    assert state.turn == 1 and meld_ids(state, "use:hourglass") == ["single:Y2"]
    play(state, "use:hourglass", "single:Y2")
    assert not state.reversed
    assert state.turn == 2 and meld_ids(state) == ["single:P3", "single:P13", "single:S13", "single:Y13"]


def test_veil_makes_the_next_player_pass():
    state = position(3, {1: "Y8 Y5 S2 S4 @veil P3 P11"}, turn=1, trick=[(0, meld(SINGLE, "Y7", 7))])
    play(state, "use:veil", "single:Y8")
    assert state.passed == [False, False, True] and state.turn == 0


def test_veil_in_two_players_wins_the_trick():
    state = position(2, {0: "Y8 Y5 S2 S4 @veil P3 P10"}, turn=0)
    play(state, "use:veil", "single:Y8")
    assert state.start_seer == 0 and not state.trick and state.set_aside == cards("Y8 @veil")


def test_gift_of_fate_ends_the_trick_and_names_the_next_seer():
    state = position(4, {1: "Y8 Y5 S2 S4 @gift P3 P11"}, turn=1, trick=[(0, meld(SINGLE, "Y7", 7))])
    play(state, "use:gift", "single:Y8")
    assert state.pending[0].kind == "gift" and state.pending[0].option_ids == ("lead:0", "lead:2", "lead:3")
    GAME.apply(state, {1: "lead:3"})
    assert state.start_seer == 3 and state.turn == 3 and not state.trick


def test_rod_needs_earlier_melds():
    state = position(3, {0: "Y8 Y5 S2 S4 @rod P3 P11"}, turn=0)
    assert "use:rod" not in turn_ids(state) and "shed:rod" in turn_ids(state)


# --------------------------------------------------------------------------------------------
# Information and determinization


def test_observation_hides_other_hands():
    # Two states differing only in cards seat 0 cannot know (swapped between seats 1 and 2, and
    # at 2 players with the removed cards) look byte-identical to seat 0.
    for players, seed in ((4, 3), (2, 8)):
        a = _walk(players, seed, 30)
        assert a.round == 1  # at 2 players the removed cards are hidden in round 1 only
        b = pickle.loads(pickle.dumps(a))
        other = 2 if players > 2 else None
        x = next(c for c in b.hands[1] if c < WILD and c not in b.known[1])
        if other is None:
            y = b.removed[0]
            b.removed[0] = x
        else:
            y = next(c for c in b.hands[other] if c < WILD and c not in b.known[other])
            b.hands[other][b.hands[other].index(y)] = x
        b.hands[1][b.hands[1].index(x)] = y
        GAME.refresh(b)
        assert_same_view(GAME, a, b, 0)
        assert observation_bytes(GAME, a, 1) != observation_bytes(GAME, b, 1)
        assert not GAME.observe(a, 0).hands and len(GAME.observe(a, SPECTATOR).hands) == players


def test_no_event_names_a_hidden_card():
    state = random_playout(GAME, GAME.config(3), 21, observe=False)
    for seat in range(3):
        for _, e in state.log.since(seat, 0):
            if e.kind == "deal":
                assert e.to == frozenset({seat})  # only your own cards
            else:
                assert e.to is None  # everything else is public: plays, takes, round-end hands
    deals = [e for e in state.log.events if e.kind == "deal"]
    assert len(deals) == 3 * 4


def test_leak_same_view_for_a_resampled_world():
    state = GAME.new_match(GAME.config(3), seed=9)
    for seat in range(3):
        world = GAME.sample_world(state, seat, Chance(5))
        assert_same_view(GAME, state, world, seat)


def _to_round(players: int, seed: int, round_: int) -> SeersState:
    """A random playout stopped at the first decision of ``round_``."""
    state = GAME.new_match(GAME.config(players), seed)
    rng = Chance(seed + 99)
    while state.round < round_:
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert state.round == round_ and state.pending
    return state


def _walk(players: int, seed: int, steps: int) -> SeersState:
    state = GAME.new_match(GAME.config(players), seed)
    rng = Chance(seed + 77)
    for _ in range(steps):
        if not state.pending:
            break
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    return state


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_sample_world_properties(players):
    for seed in range(3):
        state = _walk(players, seed, 40 + 25 * seed)
        if not state.pending:
            continue
        before = pickle.dumps(state)
        for seat in range(players):
            world = GAME.sample_world(state, seat, Chance(seed * 10 + seat))
            assert observation_bytes(GAME, world, seat) == observation_bytes(GAME, state, seat)
            mine = [d.option_ids for d in state.pending if d.seat == seat]
            assert mine == [d.option_ids for d in world.pending if d.seat == seat]
            assert all(e.visible_to(seat) for e in world.log.events)
            rng = Chance(seed)
            while world.pending:
                GAME.apply(world, {d.seat: rng.pick(d.options, "t").id for d in world.pending})
            assert GAME.result(world) is not None
        assert pickle.dumps(state) == before


def test_sample_world_is_uniform():
    # At the deal, seat 0's world re-deals the other 24 unknown suited cards (3 players: 36 - 12)
    # uniformly: where one fixed card lands (seat 1 or seat 2) is 50/50.
    state = GAME.new_match(GAME.config(3), seed=4)
    target = next(c for c in state.hands[1] if c < WILD)
    counts = [0, 0]
    chance = Chance(123)
    for _ in range(600):
        world = GAME.sample_world(state, 0, chance)
        counts[0 if target in world.hands[1] else 1] += 1
    assert sum(counts) == 600
    assert chisquare(counts).pvalue > 0.001


# --------------------------------------------------------------------------------------------
# Playouts


PLAYOUTS = 2000
CHUNKS = 8  # the 2,000 games in parallel slices (pytest-xdist spreads them over the workers)
MAX_STEPS = 2000  # a ceiling random play stays far below; the proven bound is step_bound


def step_bound(players: int) -> int:
    """The docstring's bound: 4 rounds of at most M = 30 x players - 1 melds (15 cards a player,
    once given back by the Rod), 3 steps a meld, a pass per other seat a trick, and a round that
    nobody can start."""
    melds = 30 * players - 1
    return 4 * ((players + 2) * melds + players)


@functools.cache
def components(players: int, artifacts: tuple[int, ...]) -> list[int]:
    """Every card of the game, sorted: the multiset the cards in play must make up."""
    return sorted([*suited_deck(players), *[WILD] * players, *artifacts])


def invariant(state: SeersState) -> None:
    # Multisets compared as sorted lists: a Counter's == runs a Python loop over both counters,
    # which made this check about as costly as the engine's step it checks.
    players = state.players
    total = [*state.set_aside, *state.removed]
    for hand in state.hands:
        total += hand
    for play in state.trick:
        total += play.meld.physical()
    if not state.over:
        assert sorted(total) == components(players, tuple(state.artifacts))  # components conserved
        for s in range(players):
            held = list(state.hands[s])
            for c in state.known[s]:  # known cards really there (as often as known)
                assert c in held
                held.remove(c)
    assert all(len(r) == state.round - (0 if state.over else 1) for r in state.round_scores)
    assert state.steps <= MAX_STEPS
    assert state.steps <= step_bound(players)


def test_random_playouts_keep_the_contract():
    """The generic contract checks (options, observations) on a few dozen games; the 2,000
    below run the engine alone, which is what their invariants are about."""
    for i in range(24):
        random_playout(GAME, GAME.config(2 + i % 4), 1000 + i, invariant=invariant, observe=i % 6 == 0)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_playout_invariants_over_2000_seeded_games(chunk):
    for i in range(chunk, PLAYOUTS, CHUNKS):
        players = 2 + i % 4
        state = GAME.new_match(GAME.config(players), 1000 + i)
        rng = Chance(i)
        while state.pending:
            invariant(state)
            GAME.apply(state, {d.seat: rng.pick(d.options, "test").id for d in state.pending})
        invariant(state)
        result = GAME.result(state)
        assert list(result.scores) == [sum(r) for r in state.round_scores]
        assert all(len(r) == 4 for r in state.round_scores)
        for r in state.round_scores:
            assert all(-17 <= x <= 13 - 1 for x in r)


def test_heuristic_plays_legally():
    from arena.runner import play_match

    record = play_match(GAME, GAME.config(3), 5, [make_bot("heuristic", "seerscatalog") for _ in range(3)])
    assert len(record.result["scores"]) == 3


def test_illegal_option_changes_nothing():
    state = GAME.new_match(GAME.config(3), seed=1)
    before = pickle.dumps(state)
    with pytest.raises(IllegalChoice):
        GAME.apply(state, {state.turn: "single:Y99"})
    assert pickle.dumps(state) == before


def test_tokens_round_trip():
    for c in [*suited_deck(5), WILD, *(ART + i for i in range(len(ARTIFACT_IDS)))]:
        assert parse_token(token(c)) == c
    assert pb.Observation().ListFields() == []


def test_kind_lists_in_proto_and_rules_match_the_engine():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    proto = (root / "proto/arena/games/v1/seerscatalog.proto").read_text()
    rules = (root / "arena/games/seerscatalog/rules.md").read_text()

    def listed(title: str) -> set[str]:
        text = proto.split(f"// {title} kinds:")[1].split(".\n")[0]
        return set(re.findall(r'"([a-z_-]+)"', text))

    decisions, events = set(), set()
    for players in (2, 3, 4, 5):
        for seed in range(3):
            state = GAME.new_match(GAME.config(players), seed)
            rng = Chance(seed ^ 0x5EED)
            while state.pending:
                decisions |= {d.kind for d in state.pending}
                GAME.apply(state, {d.seat: rng.pick(d.options, "test").id for d in state.pending})
            events |= {e.kind for e in state.log.events}
    assert decisions == listed("Decision") == {"turn", "meld", "gift"}
    assert events == listed("Event")
    for kind in decisions | events:
        assert f"`{kind}`" in rules


def test_wild_fills_a_run_gap():
    # :186 - a Wild takes any rank and suit needed to complete the run.
    state = position(5, {1: "T4 T6 W S2 Y9 P11 G13"}, turn=1, trick=[(0, meld("run", "P3 P4 P5", 5))])
    assert meld_ids(state) == ["run:T4.W=T5.T6"]


def test_every_meld_of_a_small_hand_when_starting():
    # A lead may be any meld: the Wild as a Single of any rank 2-13 (:190), a pair, two runs.
    state = position(3, {0: "Y5 W"}, turn=0)
    # sorted by value, then size, then id
    expected = [f"single:W=*{r}" for r in range(2, 5)] + ["single:W=*5", "single:Y5", "run:W=Y4.Y5", "set:Y5.W=*5"]
    expected += ["single:W=*6", "run:Y5.W=Y6"] + [f"single:W=*{r}" for r in range(7, 14)]
    assert meld_ids(state) == expected
    assert turn_ids(state) == ["meld"]  # the Start Seer cannot pass (:79)


def _finish_round(state: SeersState) -> None:
    """End the current round at once: the Start Seer's hand becomes one of its suited cards, played."""
    seat = state.turn
    card = next(c for c in state.hands[seat] if c < WILD)
    state.hands[seat] = [card]
    state.known[seat] = []
    state.trick, state.passed, state.chosen, state.gift = [], [False] * state.players, "", False
    GAME.refresh(state)
    play(state, "meld", f"single:{token(card)}")


@pytest.mark.parametrize("seed", range(6))
def test_two_player_rounds_deal_the_same_24_cards(seed):
    # :46, :50, :359-360: the 3 cards are removed once, at setup; every round deals the other 24.
    state = GAME.new_match(GAME.config(2), seed=seed)
    first = list(state.removed)
    assert len(first) == 3
    deals = set()
    for round_ in (2, 3, 4):
        _finish_round(state)
        assert state.round == round_ and state.removed == first
        dealt = Counter(c for h in state.hands for c in h if c < WILD)
        assert dealt + Counter(first) == Counter(suited_deck(2)) and sum(dealt.values()) == 24
        deals.add(tuple(state.hands[0]))
    assert len(deals) == 3  # reshuffled every round


def test_removed_cards_are_public_from_round_2_only():
    # Round 1: hidden from both players (the spectator sees them). The round-1 reveal shows every
    # hand, so from round 2 on both know which 3 are out: the observation lists them and the
    # "round" event names them.
    state = _to_round(2, 3, 2)
    round_one = [e for e in state.log.events if e.kind == "round" and e.detail.round == 1]
    assert len(round_one) == 1 and list(round_one[0].detail.cards) == []
    out = [token(c) for c in state.removed]
    for seat in (0, 1):
        assert list(GAME.observe(state, seat).removed) == out
    (start,) = [e for e in state.log.events if e.kind == "round" and e.detail.round == 2]
    assert list(start.detail.cards) == out and start.to is None
    # deducible at that point from what seat 0 saw: all 27 minus the cards played in round 1
    # and the hands shown by its "round-end" event
    import re

    seen, events = set(), [e for _, e in state.log.since(0, 0)]
    end = next(i for i, e in enumerate(events) if e.kind == "round-end")
    for e in events[:end]:
        if e.kind == "play":
            seen |= {parse_token(c.card) for c in e.detail.meld.cards}
    for shown in re.findall(r"seat \d [+-]\d+ \(([^)]*)\)", events[end].text):
        seen |= {parse_token(t) for t in shown.split()} if shown != "no cards" else set()
    assert sorted(c for c in suited_deck(2) if c not in seen) == sorted(state.removed)
    first = _to_round(2, 3, 1)
    assert all(not GAME.observe(first, seat).removed for seat in (0, 1))
    assert list(GAME.observe(first, SPECTATOR).removed) == out
    assert GAME.observe(first, 0).removed_count == 3


def test_round_1_view_does_not_depend_on_the_removed_cards():
    # Two deals differing only in which 3 cards were removed (swapped with hidden cards of seat
    # 1's hand): byte-identical to seat 0 in round 1, at the deal and after some play.
    for steps in (0, 12, 25):
        a = _walk(2, 11, steps)
        assert a.round == 1
        b = pickle.loads(pickle.dumps(a))
        hidden = [c for c in b.hands[1] if c < WILD and c not in b.known[1]][:3]
        b.hands[1] = sorted_cards([c for c in b.hands[1] if c not in hidden] + b.removed)
        b.removed = sorted_cards(hidden)
        GAME.refresh(b)
        assert a.removed != b.removed
        assert_same_view(GAME, a, b, 0)


def test_worlds_keep_the_removed_cards_from_round_2():
    # Round 1: the removed cards are among the unknown cards, re-dealt (they vary); from round 2
    # on every world, sampled or built from the observation, keeps exactly the real ones.
    first = _to_round(2, 5, 1)
    seat = first.pending[0].seat
    seen = GAME.observe(first, seat)
    varied = {tuple(GAME.sample_world(first, seat, Chance(k)).removed) for k in range(30)}
    varied_obs = {tuple(GAME.world_from_observation(first.config, seat, seen, Chance(k)).removed) for k in range(30)}
    assert len(varied) > 1 and len(varied_obs) > 1
    mine = set(first.hands[seat])
    assert all(not mine & set(r) for r in varied | varied_obs)
    for round_ in (2, 3, 4):
        state = _to_round(2, 5, round_)
        for seat in (0, 1):
            seen = GAME.observe(state, seat)
            for k in range(20):
                world = GAME.sample_world(state, seat, Chance(k))
                assert world.removed == state.removed
                invariant(world)
                built = GAME.world_from_observation(state.config, seat, seen, Chance(k))
                assert built.removed == state.removed
                invariant(built)
                other = 1 - seat
                assert not set(world.hands[other]) & set(state.removed)
                assert not set(built.hands[other]) & set(state.removed)


# --------------------------------------------------------------------------------------------
# world_from_observation


def test_the_observation_tells_a_pending_gift_of_fate():
    state = position(4, {1: "Y8 Y5 S2 S4 @gift P3 P11"}, turn=1, trick=[(0, meld(SINGLE, "Y7", 7))])
    play(state, "use:gift", "single:Y8")
    obs = GAME.observe(state, 1)
    assert obs.gift and obs.turn == 1 and not obs.trick
    world = GAME.world_from_observation(state.config, 1, obs, Chance(2))
    assert world.pending[0].kind == "gift" and world.pending[0].option_ids == ("lead:0", "lead:2", "lead:3")
    GAME.apply(state, {1: "lead:3"})
    assert not GAME.observe(state, 3).gift


@pytest.mark.parametrize("players", [2, 4])
def test_worlds_from_observations_deal_exactly_the_unseen_cards(players):
    for seed in range(4):
        state = _walk(players, seed, 30 + 20 * seed)
        if not state.pending:
            continue
        seat = state.pending[0].seat
        world = GAME.world_from_observation(state.config, seat, GAME.observe(state, seat), Chance(seed))
        invariant(world)
        assert world.hands[seat] == state.hands[seat] and world.known == state.known
        assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
        assert len(world.removed) == len(state.removed)
        others = [s for s in range(players) if s != seat]
        hidden = [Counter(c for s in others for c in w.hands[s]) + Counter(w.removed) for w in (world, state)]
        assert hidden[0] == hidden[1]
        for s in others:
            assert sum(c >= ART for c in world.hands[s]) == sum(c >= ART for c in state.hands[s])


def test_worlds_from_observations_deal_uniformly():
    # As test_sample_world_is_uniform, from the observation alone: at the deal, where one of
    # seat 1's suited cards lands in seat 0's worlds (seat 1 or seat 2) is 50/50.
    state = GAME.new_match(GAME.config(3), seed=4)
    target = next(c for c in state.hands[1] if c < WILD)
    seen = GAME.observe(state, 0)
    counts = [0, 0]
    for k in range(600):
        world = GAME.world_from_observation(state.config, 0, seen, Chance(k))
        counts[0 if target in world.hands[1] else 1] += 1
    assert chisquare(counts).pvalue > 0.001


def test_a_pass_outside_the_bonus_does_not_tell_whether_it_was_forced():
    # :106-108: a player with more than 5 cards may pass with a legal play, so the table cannot
    # tell a pass for want of a play from a chosen one: such a player is asked (pass its only
    # option), so the others see the same events and the same number of decisions. Seat 1 passes on Y9 once because it
    # cannot beat it (a), once by choice (b: the S4/S10 of seats 1 and 2 swapped); seat 0's
    # view is the same. In the Bonus a pass always means "no legal play" (:229-235): there the
    # event still says so.
    def table(one: str, two: str) -> SeersState:
        hands = {0: "Y9 Y4 Y5 Y6 Y7 Y8 Y13", 1: one, 2: two}
        return position(3, hands, turn=0)

    a = table("Y2 Y3 P2 P3 S2 S3 S4", "S10 Y12 P4 P5 P6 P7 P8")
    b = table("Y2 Y3 P2 P3 S2 S3 S10", "S4 Y12 P4 P5 P6 P7 P8")
    for state in (a, b):
        play(state, "meld", "single:Y9")
    assert a.turn == 1 and turn_ids(a) == ["pass"]  # seat 1 cannot play: asked all the same
    assert b.turn == 1 and "single:S10" in meld_ids(b)
    for state in (a, b):
        GAME.apply(state, {1: "pass"})
    for state in (a, b):
        play(state, "meld", "single:Y12")
    assert a.turn == b.turn == 0
    assert_same_view(GAME, a, b, 0)
    bonus = position(3, {0: "Y9 Y4 Y5 Y6 Y7 Y8 Y13", 1: "Y2 Y3 P2"}, turn=0)
    play(bonus, "meld", "single:Y9")
    last = bonus.log.events[-1]
    assert (last.kind, last.detail.seat, last.detail.forced) == ("pass", 1, True)


def test_the_observation_shows_a_start_seer_who_could_not_start_as_passed():
    # :95, :110-112, ruling 7: seat 0 could not start and is out of the trick seat 1 starts; the
    # seat starting it (and every other) must see that before the first meld, and a world built
    # from that view must not ask seat 0 to answer the lead.
    state = position(3, {0: "@gofirst @rod", 1: "Y5 Y6 P8 P9 P10 S2 S3", 2: "Y7 Y8 S8 S9 S10 S11 S12"}, turn=0)
    GAME._new_trick(state, 0)
    GAME.refresh(state)
    assert state.turn == 1 and not state.trick
    for viewer in (0, 1, 2, SPECTATOR):
        assert [s.passed for s in GAME.observation(state, viewer).seats] == [True, False, False]
    world = GAME.world_from_observation(GAME.config(3), 1, GAME.observation(state, 1), Chance(3))
    assert world.passed == [True, False, False]
    play(world, "meld", "single:Y5")
    GAME.apply(world, {2: "pass"})
    assert not world.trick and world.start_seer == 1  # seat 0 is out in the world too: seat 1 wins


def test_passed_flags_are_cleared_after_a_gift_of_fate_and_at_the_end():
    state = position(3, {0: "Y3 Y4 Y9 P2 P3 P4 S5", 1: "Y5 Y6 P8 P9 P10 S2 S3", 2: "Y7 Y8 S8 S9 S10 S11 S12"})
    play(state, "meld", "single:Y3")
    GAME.apply(state, {1: "pass"})
    state.gift = True  # a Gift of Fate has just ended the trick: the flags are history
    state.trick = []
    assert [s.passed for s in GAME.observation(state, 0).seats] == [False, False, False]
    ended = random_playout(GAME, GAME.config(3), 8, observe=False)
    assert ended.over and any(ended.passed)  # the last trick's flags are left in the state...
    assert [s.passed for s in GAME.observation(ended, 0).seats] == [False, False, False]  # ...not shown


# --------------------------------------------------------------------------------------------
# Forced passes in the Bonus: public for the rest of the round (version 8)


def _first_forced_bonus_pass(players: int, seed: int) -> tuple[SeersState, int, Trick]:
    """A random playout stopped at the first decision after a forced pass in the Bonus (the
    event ``passes``, not the Veil's or a Start Seer's) whose trick is over: (state, passer,
    the trick it could not beat)."""
    state = GAME.new_match(GAME.config(players), seed)
    rng = Chance(seed + 55)
    found: tuple[int, Trick, int] | None = None
    while state.pending:
        before = len(state.log.events)
        trick = state.current()
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
        for event in state.log.events[before:]:
            if found is None and event.kind == "pass" and event.text == "passes" and event.detail.forced:
                # the trick it faced: the table's just before the pass (later melds are its own)
                faced = state.current() if state.trick else trick
                found = (event.detail.seat, faced, state.start_seer)
        if found is not None and (not state.trick or state.start_seer != found[2]) and state.pending:
            return state, found[0], found[1]
    raise AssertionError(f"no forced pass in the Bonus in game {seed}")


def test_a_forced_pass_in_the_bonus_stays_in_every_view_until_the_round_ends():
    # :227-235, ruling 7: a seat in the Bonus passes unasked only when it has no legal play, and
    # the table sees it pass; hands only shrink, so it still cannot. Once the trick is over,
    # `passed` is reset, but `cannot_beat` keeps what it could not beat (an outside probe: in
    # version 7 nothing did, and 22 of 100 worlds from another seat's view gave it a card above
    # the Single it had passed on).
    state, passer, trick = _first_forced_bonus_pass(3, 0)
    assert trick is not None and trick.type == SINGLE
    expected = pb.Unbeaten(type=trick.type, size=trick.size, value2=trick.value2, reversed=trick.reversed)
    for viewer in (0, 1, 2, SPECTATOR):
        view = GAME.observation(state, viewer).seats[passer]
        assert not view.passed and list(view.cannot_beat) == [expected]
    assert could_not_beat(state.hands[passer], [ForcedPass(trick)], state.suits)
    round_ = state.round
    rng = Chance(1)
    while state.pending and state.round == round_:
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    if state.pending:  # a new round's deal: nothing is known of the new hands
        assert all(not v.cannot_beat for v in GAME.observation(state, 0).seats)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_worlds_never_deal_a_hand_that_could_have_beaten_what_its_seat_passed_on(players):
    # The real hand satisfies every listed pass (the record is sound, a Rod's take included), and
    # so does every world, from the state (sample_world) and from the observation alone.
    checked = 0
    for seed in range(6):
        state = GAME.new_match(GAME.config(players), seed)
        rng = Chance(seed + 31)
        while state.pending:
            seat = state.pending[0].seat
            bound = [s for s in range(players) if s != seat and state.cannot_beat[s]]
            for s in range(players):
                assert could_not_beat(state.hands[s], state.cannot_beat[s], state.suits)
            if bound:
                view = GAME.observe(state, seat)
                k = state.steps
                for world in (
                    GAME.sample_world(state, seat, Chance(k)),
                    GAME.world_from_observation(state.config, seat, view, Chance(k)),
                ):
                    assert world.cannot_beat == state.cannot_beat
                    for s in bound:
                        assert could_not_beat(world.hands[s], state.cannot_beat[s], state.suits), (seed, k, s)
                    checked += 1
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert checked > 100  # forced passes in the Bonus come up in nearly every game


def test_a_rods_take_clears_what_the_taker_could_not_beat():
    # The Rod puts earlier melds back into the hand: it is no longer part of the hand that passed.
    state = position(3, {1: "P5 Y6 Y8 @rod W"}, turn=1, trick=[(2, meld("set", "Y4 P4", 4))])
    state.cannot_beat[1] = [ForcedPass(Trick(SINGLE, 1, 2 * 13)), ForcedPass(None)]
    assert [v.type for v in GAME.observation(state, 0).seats[1].cannot_beat] == ["single", ""]
    play(state, "use:rod", "set:Y6.W=*6")
    assert state.cannot_beat[1] == [] and not GAME.observation(state, 0).seats[1].cannot_beat


def random_position(players: int, seed: int, rng: Chance, steps: int) -> SeersState:
    """The state after ``steps`` random choices (drawn from ``rng``) of a seeded match."""
    state = GAME.new_match(GAME.config(players), seed)
    while state.steps < steps:
        GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    return state


def test_a_forced_pass_keeps_the_cards_played_since_and_worlds_respect_them():
    # 3 players, seed 3, step 134 of a random playout (an outside probe): seat 2 passed, forced,
    # on a Run of 2 up to 8, then played Y10 and S12. Its hand at the pass held those two, so it
    # cannot hold Y9 (Y9 Y10 would have beaten the Run); version 8 checked the hand now alone, and
    # 89 of 200 worlds from each hook gave it Y9.
    state = random_position(3, 3, Chance(34), 134)
    viewer = state.pending[0].seat
    assert viewer == 1
    run = Trick("run", 2, 16)
    views = GAME.observation(state, viewer).seats[2].cannot_beat
    assert [(v.type, v.value2, list(v.played_since)) for v in views] == [
        ("single", 24, ["Y10", "S12"]),
        ("run", 16, ["Y10", "S12"]),
        ("single", 26, []),
    ]
    played = [parse_token("Y10"), parse_token("S12")]
    assert not any_meld(sorted_cards([*state.hands[2], *played]), run, state.suits)
    view = GAME.observe(state, viewer)
    for k in range(60):
        for world in (
            GAME.sample_world(state, viewer, Chance(k)),
            GAME.world_from_observation(state.config, viewer, view, Chance(k)),
        ):
            assert parse_token("Y9") not in world.hands[2], k
            assert not any_meld(sorted_cards([*world.hands[2], *played]), run, state.suits), k
            assert observation_bytes(GAME, world, viewer) == observation_bytes(GAME, state, viewer)


def test_worlds_deal_a_seat_held_to_low_cards_only_cards_that_respect_its_pass():
    # 5 players, seed 56, step 386 (an outside probe's policy: seat 1 plays its highest meld, the
    # others pass 9 times in 10 when they may): seat 1 passed on a Single 3 and most unseen cards
    # are higher. Whole deals never respect it, and in version 8 seat-by-seat draws from every
    # unseen card failed too, so the last try was kept: 12 of 100 worlds gave it a 13.
    def policy(decision, rng):
        ids = [o.id for o in decision.options]
        if decision.seat == 1 and decision.kind == "turn" and "meld" in ids:
            return "meld"
        if decision.seat == 1 and decision.kind == "meld":
            return ids[-1]
        if "pass" in ids and len(ids) > 1 and rng.below(100, "p") < 90:
            return "pass"
        return rng.pick(decision.options, "t").id

    state = GAME.new_match(GAME.config(5), 56)
    rng = Chance(56 + 31)
    while state.steps < 386:
        GAME.apply(state, {d.seat: policy(d, rng) for d in state.pending})
    viewer = state.pending[0].seat
    assert viewer == 2 and [len(h) for h in state.hands] == [15, 5, 8, 13, 8]
    assert [p.trick for p in state.cannot_beat[1]] == [Trick("single", 1, 6)]
    view = GAME.observe(state, viewer)
    for k in range(25):
        for world in (
            GAME.sample_world(state, viewer, Chance(k)),
            GAME.world_from_observation(state.config, viewer, view, Chance(k)),
        ):
            suited = [c for c in world.hands[1] if c < WILD]
            assert all(c & 15 <= 3 for c in suited), (k, [token(c) for c in world.hands[1]])


def test_worlds_respect_many_forced_passes_on_one_seat():
    # 5 players, seed 3, step 121 of a random playout (a second outside probe): seat 4 passed on
    # four melds and whole deals respect them too rarely (1,000 tried, then the last was kept,
    # breaking them in 25 of 50 worlds); such worlds are now dealt seat by seat.
    state = random_position(5, 3, Chance(1003), 121)
    seat = state.pending[0].seat
    assert max(len(state.cannot_beat[s]) for s in range(5) if s != seat) == 4
    view = GAME.observe(state, seat)
    for k in range(20):
        for world in (
            GAME.sample_world(state, seat, Chance(k)),
            GAME.world_from_observation(state.config, seat, view, Chance(k)),
        ):
            assert all(could_not_beat(world.hands[s], state.cannot_beat[s], state.suits) for s in range(5)), k
            assert observation_bytes(GAME, world, seat) == observation_bytes(GAME, state, seat)
