"""Built-in bots for Vivo."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.v1 import vivo_pb2 as pb
from arena.games.vivo.game import HIGH_POINTS, RANKS, Card, Played, obligation, trick_scorers
from bots.params import Param, read_params
from bots.sdk import Bot, Turn, TypedOption


def unseen_cards(obs: pb.Observation) -> list[Card]:
    """Cards in the opponents' hands: every card is dealt, so all in play minus seen ones."""
    seen = {Card(c.suit, c.rank) for c in obs.hand}
    seen.update(Card(p.card.suit, p.card.rank) for p in (*obs.round_plays, *obs.trick_plays))
    return [Card(s, r) for s in obs.suits for r in RANKS if Card(s, r) not in seen]


def likely_replies(unseen: list[Card], obs: pb.Observation, card: Card) -> list[Card]:
    """The unseen cards the next player would play from under the follow rule after ``card``."""
    suits = set(obs.suits_played) | {card.suit}
    need = obligation(obs.harmony, len(suits), obs.still_to_play - 1)
    if need == pb.ANY_SUIT:
        return unseen
    fitting = [c for c in unseen if (c.suit in suits) == (need == pb.PLAYED_SUIT)]
    return fitting or unseen


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


class HarmonyBot(Bot):
    """Plays the card with the best expected points this trick, minus what it gives up.

    Last to play it scores every option exactly. Earlier, it estimates the chance that each
    later player's card is above (or below) its own from the unseen cards (all cards are dealt,
    so the unseen ones are exactly the opponents' hands), narrowed to the suits the next player
    must play. It subtracts what the card is worth kept for later (``keep`` weight) and a small
    cost for a suit's last card (a suit run dry forces off-harmony plays).
    """

    game_id = "vivo"

    def __init__(self, keep: float = 0.5) -> None:
        super().__init__()
        self.keep = keep

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        plays = [Played(p.seat, Card(p.card.suit, p.card.rank), p.off_harmony) for p in obs.trick_plays]
        on_ranks = [p.card.rank for p in plays if not p.off_harmony]
        unseen = unseen_cards(obs)
        suit_counts: dict[str, int] = {}
        for c in obs.hand:
            suit_counts[c.suit] = suit_counts.get(c.suit, 0) + 1

        def value(option: TypedOption) -> float:
            action = option.action
            assert isinstance(action, pb.Action)
            card = Card(action.card.suit, action.card.rank)
            cost = self.keep * keep_value(card.rank, obs.players)
            cost += 0.3 if suit_counts[card.suit] == 1 else 0.0
            if action.off_harmony:
                return -cost
            me = Played(obs.seat, card)
            if obs.still_to_play == 0:
                return trick_points([*plays, me], obs.seat) - cost
            pool = likely_replies(unseen, obs, card)
            return self._expected(card, on_ranks, pool, obs.still_to_play) - cost

        return max(turn.options, key=value).id

    @staticmethod
    def _expected(card: Card, earlier: list[int], unseen: list[Card], later: int) -> float:
        if not unseen:
            return 0.0
        below = sum(c.rank < card.rank for c in unseen) / len(unseen)
        above = sum(c.rank > card.rank for c in unseen) / len(unseen)
        high = below**later if not earlier or card.rank >= max(earlier) else 0.0
        low = above**later if not earlier or card.rank <= min(earlier) else 0.0
        return HIGH_POINTS * high + card.rank * low


def _heuristic(params: Mapping[str, str]) -> Bot:
    return HarmonyBot(read_params("heuristic", params, [Param("keep", 0.5, 0, 5)])["keep"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:keep=2"]
ROLLOUT = "heuristic"  # search's rollout policy (cheap enough to call at every step)
