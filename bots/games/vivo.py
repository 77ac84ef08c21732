"""Built-in bots for Vivo."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from functools import cache
from typing import NamedTuple

from arena.chance import Chance
from arena.engine import Decision, Game, MatchState, Option
from arena.games.v1 import vivo_pb2 as pb
from arena.games.vivo.game import (
    HIGH_POINTS,
    RANKS,
    SUITS,
    Card,
    Played,
    VivoState,
    deck_cards,
    obligation,
    trick_scorers,
)
from bots.params import Param, read_params
from bots.sdk import Bot, Turn, TypedOption


def unseen_cards(obs: pb.Observation) -> list[Card]:
    """Cards in the opponents' hands: every card is dealt, so all in play minus seen ones."""
    seen = {Card(c.suit, c.rank) for c in obs.hand}
    seen.update(Card(p.card.suit, p.card.rank) for p in (*obs.round_plays, *obs.trick_plays))
    return [Card(s, r) for s in obs.suits for r in RANKS if Card(s, r) not in seen]


def trick_points(plays: Sequence[Played], seat: int) -> int:
    """What ``seat`` scores from a complete trick."""
    high, low = trick_scorers(plays)
    points = HIGH_POINTS if high.seat == seat else 0
    return points + (low.card.rank if low is not None and low.seat == seat else 0)


def keep_value(rank: int, players: int) -> float:
    """Rough worth of holding a card for later: its points against random ranks (rules: the
    highest scores 2, the lowest its rank)."""
    top = len(RANKS)
    lowest = ((top - rank) / top) ** (players - 1)
    highest = ((rank - 1) / top) ** (players - 1)
    return rank * lowest + HIGH_POINTS * highest


_KEEP_VALUES = {(rank, players): keep_value(rank, players) for rank in RANKS for players in (3, 4)}


class SeatView(NamedTuple):
    """What the deciding seat knows that the harmony rule reads, as plain values: built from an
    observation (the bot) or from the engine's state (the rollout policy), never from other
    seats' hands."""

    seat: int
    players: int
    harmony: int  # the number of suits the current Harmony card asks for
    still_to_play: int  # players after this one in the trick
    hand: Sequence[Card]
    plays: Sequence[Played]  # this trick's plays so far
    suits_played: Sequence[str]  # this trick's on-harmony suits
    unseen: Sequence[Card]  # the opponents' cards: the round's deck minus hand and plays


def best_play(view: SeatView, options: Sequence[tuple[Card, bool]], keep: float) -> int:
    """The harmony rule (see :class:`HarmonyBot`): the index of the first option, a (card,
    off-harmony) pair, with the best expected points this trick minus what it gives up.

    The chance of being above (below) every later card is read off the unseen cards narrowed to
    the suits the next player must play; per suit, the unseen ranks are sorted, so counting the
    ones below or above a rank is a bisection (the counts are the same integers as a scan's, so
    the values are bit for bit those of the plain formula)."""
    later = view.still_to_play
    on_ranks = [p.card.rank for p in view.plays if not p.off_harmony]
    top, bottom = (max(on_ranks), min(on_ranks)) if on_ranks else (0, len(RANKS) + 1)
    suit_counts: dict[str, int] = {}
    for c in view.hand:
        suit_counts[c.suit] = suit_counts.get(c.suit, 0) + 1
    unseen_ranks: dict[str, list[int]] = {}
    for c in view.unseen:
        unseen_ranks.setdefault(c.suit, []).append(c.rank)
    for ranks in unseen_ranks.values():
        ranks.sort()
    played = set(view.suits_played)
    best, best_value = 0, -math.inf
    for index, (card, off_harmony) in enumerate(options):
        cost = keep * _KEEP_VALUES[card.rank, view.players]
        cost += 0.3 if suit_counts[card.suit] == 1 else 0.0
        if off_harmony:
            value = -cost
        elif later == 0:
            value = trick_points([*view.plays, Played(view.seat, card)], view.seat) - cost
        else:
            pool = _reply_pool(unseen_ranks, played | {card.suit}, view.harmony, later)
            value = _expected(card.rank, top, bottom, pool, later) - cost
        if value > best_value:
            best, best_value = index, value
    return best


def _reply_pool(unseen_ranks: dict[str, list[int]], suits: set[str], harmony: int, later: int) -> list[list[int]]:
    """The unseen ranks, per suit, the next player would play from under the follow rule once
    ``suits`` are in the trick (all of them when no unseen card fits)."""
    need = obligation(harmony, len(suits), later - 1)
    if need == pb.ANY_SUIT:
        return list(unseen_ranks.values())
    played = need == pb.PLAYED_SUIT
    fitting = [ranks for suit, ranks in unseen_ranks.items() if (suit in suits) == played]
    return fitting if any(fitting) else list(unseen_ranks.values())


def _expected(rank: int, top: int, bottom: int, pool: list[list[int]], later: int) -> float:
    """Expected points of ``rank`` against ``later`` cards drawn from the pool's ranks, after
    earlier on-harmony ranks between ``bottom`` and ``top``."""
    size = sum(map(len, pool))
    if not size:
        return 0.0
    below = sum(bisect_left(ranks, rank) for ranks in pool)
    above = sum(len(ranks) - bisect_right(ranks, rank) for ranks in pool)
    high = (below / size) ** later if rank >= top else 0.0
    low = (above / size) ** later if rank <= bottom else 0.0
    return HIGH_POINTS * high + rank * low


class HarmonyBot(Bot):
    """Plays the card with the best expected points this trick, minus what it gives up.

    Last to play it scores every option exactly. Earlier, it estimates the chance that each
    later player's card is above (or below) its own from the unseen cards (all cards are dealt,
    so the unseen ones are exactly the opponents' hands), narrowed to the suits the next player
    must play. It subtracts what the card is worth kept for later (``keep`` weight) and a small
    cost for a suit's last card (a suit run dry forces off-harmony plays). The rule itself is
    :func:`best_play`, shared with the search's rollout policy (:class:`HarmonyRollout`).
    """

    game_id = "vivo"

    def __init__(self, keep: float = 0.5) -> None:
        super().__init__()
        self.keep = keep

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        view = SeatView(
            seat=obs.seat,
            players=obs.players,
            harmony=obs.harmony,
            still_to_play=obs.still_to_play,
            hand=[Card(c.suit, c.rank) for c in obs.hand],
            plays=[Played(p.seat, Card(p.card.suit, p.card.rank), p.off_harmony) for p in obs.trick_plays],
            suits_played=obs.suits_played,
            unseen=unseen_cards(obs),
        )
        return turn.options[best_play(view, [_option_card(o) for o in turn.options], self.keep)].id


def _option_card(option: TypedOption | Option) -> tuple[Card, bool]:
    action = option.action
    assert isinstance(action, pb.Action)
    return Card(action.card.suit, action.card.rank), action.off_harmony


_CARD_OF_OPTION = {f"card:{card.id}": card for card in deck_cards(SUITS)}


@cache
def _deck(suits: tuple[str, ...]) -> tuple[Card, ...]:
    return tuple(deck_cards(suits))


class HarmonyRollout:
    """The heuristic's rule as ``search``'s rollout policy, read straight from a world: the
    deciding seat's hand, this round's plays and the Harmony card, as its observation would
    show them (the other hands in the world are never read: the policy models the heuristic,
    which does not see them). Picks exactly what :class:`HarmonyBot` picks from the seat's
    observation (tests/test_vivo_rollout.py), without building one at every step."""

    def __init__(self, game: Game, keep: float = 0.5) -> None:  # game: the ROLLOUT_POLICY signature
        self.keep = keep

    def choose(self, world: MatchState, decision: Decision) -> Option:
        assert isinstance(world, VivoState)
        seat = decision.seat
        hand = world.hands[seat]
        seen = {*hand, *(p.card for p in world.round_plays), *(p.card for p in world.plays)}
        view = SeatView(
            seat=seat,
            players=world.players,
            harmony=world.harmony,
            still_to_play=world.still_to_play,
            hand=hand,
            plays=world.plays,
            suits_played=world.suits_played,
            unseen=[c for c in _deck(world.suits) if c not in seen],
        )
        options = decision.options
        off_harmony = _option_card(options[0])[1]  # all or none: the engine offers one kind (ruling 2)
        plays = [(_CARD_OF_OPTION[o.id], off_harmony) for o in options]
        return options[best_play(view, plays, self.keep)]

    def reseed(self, rng: Chance) -> None:
        """The rule draws nothing."""


def _heuristic(params: Mapping[str, str]) -> Bot:
    return HarmonyBot(read_params("heuristic", params, [Param("keep", 0.5, 0, 5)])["keep"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:keep=2"]
ROLLOUT = "heuristic"  # the bot the rollout policy below models (search prefers ROLLOUT_POLICY)
ROLLOUT_POLICY = HarmonyRollout  # the same rule read straight from the world (no observation built)
# search's defaults here (README): sequential halving over our cards on shared worlds, every seat
# then playing the heuristic (tree=0), at a fixed budget of about 3 s of CPU a match (a spec's
# ms= replaces it).
SEARCH = {"iterations": 100, "halving": 1, "tree": 0}
