"""Vivo: every rule of shared/rules/vivo.md and its rulings (NOTES 4.24), pinned."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest

from arena.chance import Chance, PresetChance
from arena.config import ConfigError
from arena.engine import SPECTATOR, IllegalChoice
from arena.games.v1 import vivo_pb2 as pb
from arena.games.vivo import GAME, Card, Played, legal_cards, obligation, trick_scorers
from arena.games.vivo.game import SETUPS, SUITS, Scored, deck_cards, row_points
from arena.runner import play_match
from bots.registry import make_bot
from tests.contract import assert_same_view, configurations, play_following_details, random_playout

# --------------------------------------------------------------------------------------------
# Helpers


def cards(text: str) -> list[Card]:
    """``"red 1-3, blue 7"`` -> [red 1, red 2, red 3, blue 7]."""
    out = []
    for part in text.split(","):
        suit, ranks = part.split()
        low, _, high = ranks.partition("-")
        out += [Card(suit, r) for r in range(int(low), int(high or low) + 1)]
    return out


def harmony_order(players: int, first: list[int]) -> list[int]:
    """The round's Harmony cards with ``first`` on top, the rest in sorted order."""
    rest = list(SETUPS[players].harmonies)
    for size in first:
        rest.remove(size)
    return [*first, *rest]


def match(hands: list[str], harmony: list[int], start: int = 0, round2: dict | None = None):
    """A match dealt exactly: ``hands[s]`` to seat s, Harmony cards ``harmony`` on top."""
    players = len(hands)
    orders: dict[str, list] = {
        "deck": [[c for hand in hands for c in cards(hand)]],
        "harmony": [harmony_order(players, harmony)],
    }
    for label, order in (round2 or {}).items():
        orders[label].append(order)
    chance = PresetChance(orders=orders, picks={"start": [start]})
    return GAME.new_match(GAME.config(players), chance=chance)


def play(state, *names: str) -> None:
    """Play cards by name ("red 5"), each by the seat to move."""
    for name in names:
        GAME.apply(state, {state.pending[0].seat: f"card:{name.replace(' ', '-')}"})


def options(state) -> list[str]:
    return [o.id.removeprefix("card:") for o in state.pending[0].options]


def off_flags(state) -> set[bool]:
    return {o.action.off_harmony for o in state.pending[0].options}


# Three suits, three simple hands (3 players play red, yellow and green).
MIXED_3 = ["red 1-6, green 1-6", "yellow 7-12, green 7-12", "red 7-12, yellow 1-6"]
MONO_3 = ["red 1-12", "yellow 1-12", "green 1-12"]
MIXED_4 = ["red 1-6, yellow 1-6", "red 7-12, green 1-6", "yellow 7-12, blue 1-6", "green 7-12, blue 7-12"]


# --------------------------------------------------------------------------------------------
# Set-up


@pytest.mark.parametrize(
    ("players", "suits", "harmony_mix"),
    [
        # 3p: remove one suit (:72; ruling 5 = the last one) and all 3 Quartets (ruling 1).
        (3, ("red", "yellow", "green"), {1: 4, 2: 4, 3: 4}),
        # 4p: all suits (:74); remove 1 Solo, 1 Duet, 1 Trio (ruling 1).
        (4, ("red", "yellow", "green", "blue"), {1: 3, 2: 3, 3: 3, 4: 3}),
    ],
)
def test_setup_by_player_count(players, suits, harmony_mix):
    state = GAME.new_match(GAME.config(players), seed=3)
    assert state.suits == suits
    assert Counter(state.harmonies) == harmony_mix and len(state.harmonies) == 12
    assert [len(hand) for hand in state.hands] == [12] * players  # :97
    assert sorted(c for hand in state.hands for c in hand) == sorted(deck_cards(suits))


def test_components():
    # 48 cards, 4 suits x 1-12 (:27-29); 15 Harmony cards (:31), 4/4/4/3 (NOTES 2, ASSUMED).
    assert len(deck_cards(SUITS)) == 48 and len(SUITS) == 4
    assert {c.rank for c in deck_cards(SUITS)} == set(range(1, 13))


@pytest.mark.parametrize(("players", "ok"), [(2, False), (3, True), (4, True), (5, False)])
def test_player_counts(players, ok):
    if ok:
        GAME.config(players)
    else:
        with pytest.raises(ConfigError, match="3-4 players"):
            GAME.config(players)


def test_deal_start_player_and_harmony_display():
    state = match(MIXED_3, [2, 3, 1], start=1)
    assert state.hands[0] == cards("red 1-6, green 1-6")  # seat s gets deck cards 12s..12s+11
    assert state.leader == state.turn == 1  # picked by chance label "start"
    obs = GAME.observe(state, 0)
    assert (obs.harmony, obs.next_harmony) == (pb.DUET, pb.TRIO)  # current and preview face-up
    assert obs.harmony_pile == 10
    assert list(obs.harmony_unseen) == [4, 3, 3, 0]  # Solo, Duet, Trio, Quartet left face-down
    assert [Card(c.suit, c.rank) for c in obs.hand] == cards("red 1-6, green 1-6")
    assert not obs.hands and not obs.harmony_deck  # spectator-only fields
    spectator = GAME.observe(state, SPECTATOR)
    assert len(spectator.hands) == 3 and len(spectator.harmony_deck) == 10


def test_harmony_advances_after_each_trick():
    # :246-250 - discard the current card, the preview becomes current, the next is revealed.
    state = match(MONO_3, [1, 3, 2])
    play(state, "red 5", "yellow 5", "green 5")  # a Solo, both followers off-harmony
    obs = GAME.observe(state, 0)
    assert (obs.trick, obs.harmony, obs.next_harmony, obs.harmony_pile) == (2, pb.TRIO, pb.DUET, 9)


def test_the_last_trick_of_a_round_shows_no_preview():
    # :250 - "Reveal the following Harmony card, if available": the 12th trick has none.
    state = match(MONO_3, [2, 1, 3])  # then the sorted rest: 1 1 1 2 2 2 3 3 3 (3p, no Quartets)
    for _ in range(10 * 3):
        GAME.apply(state, {state.pending[0].seat: state.pending[0].options[0].id})
    obs = GAME.observe(state, 0)
    assert (obs.trick, obs.harmony, obs.next_harmony, obs.harmony_pile) == (11, pb.TRIO, pb.TRIO, 0)
    assert list(obs.harmony_unseen) == [0, 0, 0, 0]
    for _ in range(3):
        GAME.apply(state, {state.pending[0].seat: state.pending[0].options[0].id})
    obs = GAME.observe(state, 0)
    assert (obs.trick, obs.harmony, obs.next_harmony, obs.harmony_pile) == (12, pb.TRIO, pb.HARMONY_UNSPECIFIED, 0)
    trick = [e.detail for e in state.log.events if e.kind == "trick"][-1]
    assert (trick.trick, trick.harmony, trick.next_harmony) == (12, pb.TRIO, pb.HARMONY_UNSPECIFIED)


# --------------------------------------------------------------------------------------------
# Following the harmony (NOTES ruling 2)


@pytest.mark.parametrize(
    ("harmony", "suits_played", "still_to_play", "expected"),
    [
        (1, 0, 2, pb.ANY_SUIT),  # lead of a Solo
        (1, 1, 1, pb.PLAYED_SUIT),  # Solo: follow the lead's suit
        (2, 1, 1, pb.ANY_SUIT),  # Duet, 3p, second player: 1 + 1 + 1 > 2
        (2, 1, 0, pb.NEW_SUIT),  # Duet, last player: forced new suit
        (2, 2, 0, pb.PLAYED_SUIT),  # Duet complete: one of the played suits
        (3, 0, 2, pb.NEW_SUIT),  # Trio, 3p lead: every card is new
        (3, 1, 1, pb.NEW_SUIT),  # Trio, 3p: every player a different suit
        (3, 1, 0, pb.NEW_SUIT),  # impossible harmony: still a new suit (:151-155, :314-315)
        (3, 1, 2, pb.ANY_SUIT),  # Trio, 4p second player
        (3, 2, 1, pb.ANY_SUIT),
        (3, 2, 0, pb.NEW_SUIT),
        (4, 1, 2, pb.NEW_SUIT),  # Quartet, 4p: every player a different suit
        (4, 4, 0, pb.PLAYED_SUIT),
    ],
)
def test_obligation_table(harmony, suits_played, still_to_play, expected):
    assert obligation(harmony, suits_played, still_to_play) == expected


def test_legal_cards_off_harmony_only_without_a_fitting_card():
    hand = cards("red 2, green 5")
    assert legal_cards(hand, 3, ["red"], 0) == (cards("green 5"), False)
    assert legal_cards(hand, 1, ["red"], 1) == (cards("red 2"), False)
    assert legal_cards(hand, 1, ["yellow"], 1) == (hand, True)  # nothing follows: any card
    assert legal_cards(cards("red 2"), 3, ["red"], 0) == (cards("red 2"), True)


def test_solo_all_must_play_the_leads_suit():
    # Rule vector 1 (:305-306).
    state = match(MIXED_3, [1])
    assert len(options(state)) == 12  # the lead plays any card (:105-107)
    play(state, "red 3")
    assert off_flags(state) == {True} and len(options(state)) == 12  # seat 1: no red, any card
    play(state, "green 12")
    assert options(state) == [c.id for c in cards("red 7-12")] and off_flags(state) == {False}


def test_trio_with_three_players_every_player_a_different_suit():
    # Rule vector 2 (:308-309).
    state = match(MIXED_3, [3])
    play(state, "red 3")
    assert options(state) == [c.id for c in cards("yellow 7-12, green 7-12")]
    play(state, "green 9")
    assert options(state) == [c.id for c in cards("yellow 1-6")]
    play(state, "yellow 4")
    assert [p.card.suit for p in state.round_plays] == ["red", "green", "yellow"]


def test_quartet_with_four_players_every_player_a_different_suit():
    # Rule vector 3 (:311-312).
    state = match(MIXED_4, [4])
    play(state, "red 1")
    assert options(state) == [c.id for c in cards("green 1-6")]  # seat 1: not red
    play(state, "green 2")
    assert options(state) == [c.id for c in cards("yellow 7-12, blue 1-6")]
    play(state, "yellow 7")
    assert options(state) == [c.id for c in cards("blue 7-12")]  # seat 3: the fourth suit
    state = match(MIXED_4, [4])
    play(state, "red 1", "green 2", "blue 6")
    assert off_flags(state) == {True} and len(options(state)) == 12  # no yellow: off-harmony


def test_duet_any_suit_until_complete_then_played_suits():
    state = match(MIXED_4, [2, 2])
    play(state, "red 5")
    assert len(options(state)) == 12  # seat 1: any suit (1 + 2 + 1 > 2)
    play(state, "red 9")
    assert len(options(state)) == 12  # seat 2: any suit, the last player can still add one
    play(state, "yellow 8")
    # S complete: red or yellow only; seat 3 holds neither, so off-harmony with any card.
    assert off_flags(state) == {True} and len(options(state)) == 12


def test_off_harmony_does_not_add_a_suit_and_cannot_score():
    # Ruling 2: off-harmony cards do not count as played suits; :172-173 they cannot score.
    state = match(MIXED_3, [1])
    play(state, "red 5", "yellow 12")  # seat 1 has no red: off-harmony
    assert state.suits_played == ["red"]
    assert options(state) == [c.id for c in cards("red 7-12")]  # not yellow
    play(state, "red 7")
    assert state.rows == [[Scored(Card("red", 5), False)], [], [Scored(Card("red", 7), True)]]
    assert state.leader == 0  # lowest scorer leads


# Every card dealt (4p): seat 2 holds only red and green, seat 3 green and blue.
IMPOSSIBLE_4 = [
    "red 1-6, yellow 1-6",
    "green 1-3, yellow 7-12, blue 1-3",
    "red 7-12, green 4-9",
    "green 10-12, blue 4-12",
]


def test_impossible_harmony_a_later_player_must_still_play_a_new_suit():
    # :151-155, :314-315: once the Quartet can no longer be met, a player still has to play a
    # new suit; :172-173, :181: the off-harmony card (the highest rank) is ignored in scoring.
    state = match(IMPOSSIBLE_4, [4])
    play(state, "red 1", "green 2")
    # Seat 2: a new suit is forced (2 + 1 + 1 = 4) and it holds none: off-harmony, any card.
    assert off_flags(state) == {True} and len(options(state)) == 12
    play(state, "red 12")
    assert state.suits_played == ["red", "green"]
    # Seat 3: 2 suits and nobody after it, the Quartet is impossible: blue only, not green.
    assert options(state) == [c.id for c in cards("blue 4-12")] and off_flags(state) == {False}
    play(state, "blue 4")
    # Highest on-harmony: blue 4 (seat 3) face-down, 2 points; lowest: red 1 (seat 0) face-up, 1 point.
    assert state.rows == [[Scored(Card("red", 1), False)], [], [], [Scored(Card("blue", 4), True)]]
    assert [v.round_points for v in GAME.observe(state, 0).seats] == [1, 0, 0, 2]
    assert state.leader == 0


def test_illegal_cards_are_rejected_and_change_nothing():
    state = match(MIXED_3, [1])
    play(state, "red 3")
    before = pickle.dumps(state)
    for bad in ("card:red 3", "card:red-3", "card:yellow-1", "card:blue-1"):
        with pytest.raises(IllegalChoice):
            GAME.apply(state, {1: bad})
    assert pickle.dumps(state) == before
    state = match(MIXED_3, [1])
    play(state, "green 2")
    with pytest.raises(IllegalChoice):  # seat 1 holds green: not following the Solo is illegal
        GAME.apply(state, {1: "card:yellow-7"})


# --------------------------------------------------------------------------------------------
# Scoring


def _plays(*specs: tuple[int, str, bool]) -> list[Played]:
    return [Played(seat, cards(card)[0], off) for seat, card, off in specs]


@pytest.mark.parametrize(
    ("plays", "high", "low"),
    [
        ([(0, "red 9", False), (1, "yellow 3", False), (2, "green 6", False)], 0, 1),
        # Ties: the later player wins (:225-231).
        ([(0, "red 9", False), (1, "yellow 3", False), (2, "green 9", False)], 2, 1),
        ([(0, "red 5", False), (1, "yellow 9", False), (2, "green 5", False)], 1, 2),
        # All tie: the tie winner scores highest, nobody lowest (:235-240).
        ([(0, "red 5", False), (1, "yellow 5", False), (2, "green 5", False)], 2, None),
        # Off-harmony cards are ignored (:181); one on-harmony card = all tie (ruling 3).
        ([(0, "red 5", False), (1, "yellow 12", True), (2, "green 1", True)], 0, None),
        ([(0, "red 5", False), (1, "yellow 1", True), (2, "red 8", False), (3, "red 8", True)], 2, 0),
    ],
)
def test_trick_scorers(plays, high, low):
    got_high, got_low = trick_scorers(_plays(*plays))
    assert got_high.seat == high
    assert (got_low.seat if got_low else None) == low


def test_face_down_is_two_points_face_up_is_its_rank():
    # :194-196, :207-209, :268-271.
    row = [Scored(Card("red", 12), True), Scored(Card("red", 1), True), Scored(Card("blue", 7), False)]
    assert row_points(row) == 2 + 2 + 7


def test_trick_scoring_and_next_lead():
    state = match(MIXED_3, [2], start=0)
    play(state, "red 2", "green 10")
    assert options(state) == [c.id for c in cards("red 7-12")]  # the Duet is complete
    play(state, "red 7")
    # Highest green 10 face-down (2 points), lowest red 2 face-up (2 points), red 7 discarded.
    assert state.rows == [[Scored(Card("red", 2), False)], [Scored(Card("green", 10), True)], []]
    assert [e.text for e in state.log.events if e.kind == "score"] == [
        "scores green 10 face-down (highest): 2 points",
        "scores red 2 face-up (lowest): 2 points",
    ]
    assert state.leader == state.turn == 0  # the lowest scorer leads (:252-254)
    obs = GAME.observe(state, 1)
    assert [(v.face_down, v.round_points, v.score) for v in obs.seats] == [(0, 2, 2), (1, 2, 2), (0, 0, 0)]


def test_all_tie_scores_highest_only_and_the_tie_winner_leads():
    state = match(MONO_3, [3], start=0)
    play(state, "red 5", "yellow 5", "green 5")
    assert state.rows == [[], [], [Scored(Card("green", 5), True)]]
    assert state.leader == 2  # no lowest scorer: the highest leads (:256-258)


def test_round_two_is_led_by_the_lowest_scorer_of_round_one_last_trick():
    for seed in range(12):
        state = GAME.new_match(GAME.config(3), seed)
        while state.round == 1:
            GAME.apply(state, {state.pending[0].seat: state.pending[0].options[0].id})
        end = next(i for i, e in enumerate(state.log.events) if e.kind == "round_end")
        last = [e for e in state.log.events[:end] if e.kind == "score"][-2:]
        lowest = [e.seat for e in last if not e.detail.face_down]
        highest = [e.seat for e in last if e.detail.face_down]
        assert state.leader == (lowest or highest)[-1]


# --------------------------------------------------------------------------------------------
# Rounds and the end


def test_second_round_reshuffles_and_redeals():
    # NOTES 5: all 12 Harmony cards reshuffled ("harmony" again), all cards dealt again ("deck").
    deck2 = [c for hand in MIXED_3[::-1] for c in cards(hand)]
    harmony2 = [3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1]
    state = match(MONO_3, [1], round2={"deck": deck2, "harmony": harmony2})
    while state.round == 1:
        GAME.apply(state, {state.pending[0].seat: state.pending[0].options[-1].id})
    assert state.chance.unused() == {}
    assert state.hands == [cards(hand) for hand in MIXED_3[::-1]]
    assert state.harmonies == harmony2 and state.trick == 1
    assert state.rows == [[], [], []] and state.round_plays == []
    assert [len(scores) for scores in state.round_scores] == [1, 1, 1]
    assert GAME.observe(state, 0).seats[0].score == state.round_scores[0][0]


def test_two_rounds_then_highest_total_wins_ties_shared():
    state = random_playout(GAME, GAME.config(3), seed=7)
    assert state.steps == 2 * 12 * 3  # 2 rounds of 12 tricks (:8)
    result = GAME.result(state)
    totals = [sum(scores) for scores in state.round_scores]
    assert list(result.scores) == totals
    for seat, total in enumerate(totals):
        assert result.ranks[seat] == 1 + sum(t > total for t in totals)


def test_both_rounds_add_up_and_equal_totals_share_the_victory():
    # :287-295 - add both round scores; highest wins; a tie is a shared victory.
    state = GAME.new_match(GAME.config(3), seed=1)
    state.round_scores, state.over = [[10, 5], [7, 8], [3, 10]], True
    result = GAME.score(state)
    assert result.scores == (15, 15, 13) and result.ranks == (1, 1, 3)
    assert result.summary == "winners: seat 0, 1 with 15 points"


# --------------------------------------------------------------------------------------------
# Random playouts


def check_state(state) -> None:
    n = state.players
    # Conservation: every card of the round is in exactly one hand or played once.
    held = [c for hand in state.hands for c in hand]
    played = [p.card for p in (*state.round_plays, *state.plays)]
    assert sorted(held + played) == sorted(deck_cards(state.suits))
    for seat, hand in enumerate(state.hands):
        assert len(hand) + sum(p.seat == seat for p in (*state.round_plays, *state.plays)) == 12
    # Each trick follows the harmony, and the rows are what the tricks scored.
    rows: list[list[Scored]] = [[] for _ in range(n)]
    tricks = [state.round_plays[i : i + n] for i in range(0, len(state.round_plays), n)]
    for number, trick in enumerate([*tricks, state.plays] if state.plays else tricks):
        harmony, suits = state.harmonies[number], []
        for position, p in enumerate(trick):
            need = obligation(harmony, len(suits), n - position - 1)
            fits = need == pb.ANY_SUIT or (p.card.suit in suits) == (need == pb.PLAYED_SUIT)
            assert fits != p.off_harmony
            if not p.off_harmony and p.card.suit not in suits:
                suits.append(p.card.suit)
        if len(trick) == n:
            if not any(p.off_harmony for p in trick):
                assert len(suits) == harmony  # exactly the Harmony card's suits (:12)
            # Scored independently of trick_scorers: (rank, position) orders ties by lateness.
            on = [(p.card.rank, i, p) for i, p in enumerate(trick) if not p.off_harmony]
            high, low = max(on)[2], min(on, key=lambda x: (x[0], -x[1]))[2]
            rows[high.seat].append(Scored(high.card, True))
            if low.card.rank != high.card.rank:
                rows[low.seat].append(Scored(low.card, False))
    assert [sorted(r) for r in rows] == [sorted(r) for r in state.rows]
    # The options: off-harmony exactly when no card in hand fits.
    if state.pending:
        (decision,) = state.pending
        hand = state.hands[decision.seat]
        need = obligation(state.harmony, len(state.suits_played), state.still_to_play)
        fit = [c for c in hand if need == pb.ANY_SUIT or (c.suit in state.suits_played) == (need == pb.PLAYED_SUIT)]
        assert [o.id for o in decision.options] == [f"card:{c.id}" for c in (fit or hand)]
        assert {o.action.off_harmony for o in decision.options} == {not fit}
    else:
        assert state.round == 2 and all(len(s) == 2 for s in state.round_scores)
        assert [s[-1] for s in state.round_scores] == [row_points(r) for r in state.rows]


@pytest.mark.parametrize("config", list(configurations(GAME)), ids=lambda c: f"{c.players}p")
def test_random_playouts_keep_the_invariants(config):
    # 1,000 playouts per player count (2,000 in all, as GAME-DONE asks); every step of the first
    # 25 is checked, the rest at the end.
    for seed in range(1000):
        step_check = check_state if seed < 25 else None
        state = random_playout(GAME, config, seed, invariant=step_check, observe=seed < 5)
        check_state(state)
        assert state.steps == 2 * 12 * config.players  # the docstring's bound, exact


# --------------------------------------------------------------------------------------------
# Hidden information


def test_opponents_hands_and_the_harmony_pile_do_not_leak():
    # Seat 0 holds the same cards; seats 1 and 2 swap some cards; the Harmony pile under the
    # revealed cards differs. The scripted plays avoid the swapped cards.
    hands_a = MIXED_3
    hands_b = ["red 1-6, green 1-6", "yellow 1, yellow 7-12, green 7-11", "red 7-12, yellow 2-6, green 12"]
    order_a = [1, 2, 3, 3, 3, 3, 2, 2, 2, 1, 1, 1]  # seat 0 sees 4 cards in 3 tricks
    order_b = [1, 2, 3, 3, 1, 1, 2, 2, 3, 2, 1, 3]
    states = [
        GAME.new_match(
            GAME.config(3),
            chance=PresetChance(
                orders={"deck": [[c for h in hands for c in cards(h)]], "harmony": [order]},
                picks={"start": [0]},
            ),
        )
        for hands, order in ((hands_a, order_a), (hands_b, order_b))
    ]
    assert_same_view(GAME, *states, seat=0)
    for card_id in ["red 2", "yellow 8", "red 7", "green 1", "green 7", "yellow 2"]:
        for state in states:
            play(state, card_id)
        assert_same_view(GAME, *states, seat=0)
    assert GAME.observe(states[0], SPECTATOR) != GAME.observe(states[1], SPECTATOR)


# --------------------------------------------------------------------------------------------
# Bots


def test_heuristic_beats_random_over_a_few_matches():
    config = GAME.config(3)
    wins = 0
    for seed in range(12):
        seat = seed % 3
        specs = ["random"] * 3
        specs[seat] = "heuristic"
        record = play_match(GAME, config, seed, [make_bot(s, "vivo") for s in specs])
        wins += record.result["ranks"][seat] == 1
    assert wins >= 7


def test_heuristic_parameters_are_checked():
    make_bot("heuristic:keep=1", "vivo")
    with pytest.raises(ConfigError, match="keep"):
        make_bot("heuristic:risk=1", "vivo")
    with pytest.raises(ConfigError, match="keep"):
        make_bot("heuristic:keep=x", "vivo")


# --------------------------------------------------------------------------------------------
# Worlds from an observation (a served searching bot)


def test_voids_read_off_the_cards_are_those_the_obligations_show():
    """``round_voids`` reads a void off the off-harmony card itself; the obligation of the
    trick's Harmony card (which a world from an observation does not know) gives the same."""
    from arena.games.vivo.game import round_voids

    checked = 0
    for seed in range(6):
        state, rng = GAME.new_match(GAME.config(3 + seed % 2), seed), Chance(seed)
        while state.pending:
            expected: list[set[str]] = [set() for _ in range(state.players)]
            plays = state.round_plays + state.plays
            for start in range(0, len(plays), state.players):
                suits: list[str] = []
                for i, p in enumerate(plays[start : start + state.players]):
                    if p.off_harmony:
                        need = obligation(state.harmonies[start // state.players], len(suits), state.players - i - 1)
                        expected[p.seat] |= set(suits) if need == pb.PLAYED_SUIT else set(state.suits) - set(suits)
                        checked += 1
                    elif p.card.suit not in suits:
                        suits.append(p.card.suit)
            assert round_voids(state) == expected
            GAME.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
    assert checked > 50


def test_world_from_observation_keeps_hand_rows_and_voids():
    from arena.games.vivo.game import round_voids
    from tests.test_sample_world import vivo_with_a_void

    state, voids = vivo_with_a_void()
    seen = GAME.observe(state, 0)
    unseen = Counter(deck_cards(state.suits)) - Counter(state.hands[0])
    unseen -= Counter(p.card for p in state.round_plays + state.plays)
    rng = Chance(5)
    for _ in range(50):
        world = GAME.world_from_observation(state.config, 0, seen, rng)
        assert world.hands[0] == state.hands[0] and world.rows == state.rows
        assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
        assert Counter(world.hands[1] + world.hands[2]) == unseen
        assert round_voids(world) == voids
        assert not {c.suit for c in world.hands[1]} & voids[1] and not {c.suit for c in world.hands[2]} & voids[2]
        shown = state.trick + 1
        assert world.harmonies[state.trick - 1 : shown] == state.harmonies[state.trick - 1 : shown]
        assert sorted(world.harmonies) == sorted(state.harmonies)


# --------------------------------------------------------------------------------------------
# Event details: a bot follows the match from the typed details alone (an outside probe: the
# removed suit, the first leader and the final totals were in the text only)


def details(state, kind):
    return [e.detail for e in state.log.events if e.kind == kind]


def test_start_and_round_details_name_the_leader_the_removed_suit_and_the_deal():
    state = match(MIXED_3, [2, 3, 1], start=1)
    assert details(state, "start") == [pb.RoundEvent(leader=1)]
    assert details(state, "round") == [pb.RoundEvent(round=1, removed_suits=["blue"], hand_size=12)]
    state = match(MIXED_4, [1], start=2)
    assert details(state, "start") == [pb.RoundEvent(leader=2)]
    assert details(state, "round") == [pb.RoundEvent(round=1, hand_size=12)]  # no suit removed


@pytest.mark.parametrize(("players", "removed", "totals"), [(3, ["blue"], [42, 34, 37]), (4, [], [31, 15, 27, 39])])
def test_round_and_end_details_of_a_seeded_match(players, removed, totals):
    state = random_playout(GAME, GAME.config(players), seed=7)
    assert details(state, "round") == [pb.RoundEvent(round=r, removed_suits=removed, hand_size=12) for r in (1, 2)]
    assert details(state, "end") == [pb.RoundEvent(totals=totals)]
    assert details(state, "round_end")[-1].totals == totals == list(GAME.result(state).scores)


class Tracker:
    """What a seat keeps from the details of the events it receives, and nothing else."""

    def __init__(self, players):
        self.players = players
        self.round_scores = [[] for _ in range(players)]
        self.totals = None

    def read(self, kind, d):
        if kind == "start":
            self.leader = d.leader
        elif kind == "round":
            self.round = d.round
            self.suits = [s for s in SUITS if s not in d.removed_suits]
            self.hand_sizes = [d.hand_size] * self.players
            self.rows = [[] for _ in range(self.players)]
            self.round_plays, self.trick_plays = [], []
        elif kind == "deal":
            self.hand = [(c.suit, c.rank) for c in d.cards]
        elif kind == "trick":
            assert d.leader == self.leader  # named by the start event, then by the scorers
            self.trick, self.harmony, self.next_harmony = d.trick, d.harmony, d.next_harmony
            self.round_plays += self.trick_plays
            self.trick_plays = []
        elif kind == "play":
            self.trick_plays.append(d)
            self.hand_sizes[d.seat] -= 1
        elif kind == "score":
            self.rows[d.seat].append(d)
            self.leader = d.seat  # the lowest scorer is logged last (else the highest)
        elif kind == "round_end":
            self.round_plays += self.trick_plays
            self.trick_plays = []
            for seat, points in enumerate(d.round_scores):
                self.round_scores[seat].append(points)  # the rows stay until the next deal
            assert list(d.totals) == [sum(s) for s in self.round_scores]
        elif kind == "end":
            self.totals = list(d.totals)

    def check(self, obs):
        assert (list(obs.suits), obs.round, obs.leader) == (self.suits, self.round, self.leader)
        if not obs.over:
            assert (obs.trick, obs.harmony, obs.next_harmony) == (self.trick, self.harmony, self.next_harmony)
            assert list(obs.trick_plays) == self.trick_plays and list(obs.round_plays) == self.round_plays
        played = {(p.card.suit, p.card.rank) for p in [*self.round_plays, *self.trick_plays]}
        assert [(c.suit, c.rank) for c in obs.hand] == [c for c in self.hand if c not in played]
        for seat, view in enumerate(obs.seats):
            row = self.rows[seat]
            assert view.hand_size == self.hand_sizes[seat]
            assert list(view.face_up) == [s.card for s in row if not s.face_down]
            assert view.face_down == sum(s.face_down for s in row)
            assert view.round_points == sum(s.points for s in row)
            assert list(view.round_scores) == self.round_scores[seat]
            assert view.score == sum(self.round_scores[seat]) + (0 if obs.over else view.round_points)


@pytest.mark.parametrize("players", [3, 4])
def test_a_tracker_of_the_details_alone_matches_every_observation(players):
    for seed in range(8):
        state = GAME.new_match(GAME.config(players), seed)
        rng = Chance(seed)
        trackers = [Tracker(players) for _ in range(players)]
        play_following_details(GAME, state, trackers, rng)
        for tracker in trackers:
            assert tracker.totals == list(GAME.result(state).scores)
