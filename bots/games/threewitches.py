"""Built-in bots for Three Witches."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from arena.games.threewitches.cards import BY_ID, EYES, TRICKS, Card, combine
from arena.games.v1 import threewitches_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn


def _card(message: pb.Card) -> Card:
    return Card(message.suit, message.rank)


def _option_card(option_id: str) -> Card:
    return BY_ID[option_id.removeprefix("card:")]


def strength(card: Card) -> float:
    """How useful a card is to keep: its rank; the Elixir as good as doubling a mid card."""
    return 8.0 if card.is_elixir else float(card.rank)


def best_pair(hand: Sequence[Card]) -> int:
    """The Lead's best trick value from this hand (face-up card never the Elixir)."""
    return max((combine(a, b) for a, b in itertools.permutations(hand, 2) if not a.is_elixir), default=0)


class HeuristicBot(Bot):
    """Bids on its best pair, then plays for exactly its bid (Lead) or against it (Lesser).

    * Bid: 3 when its best two-card brew reaches ``bid3`` (with the Elixir or a same-suit pair
      that is common), 4 when it reaches ``bid4``; a forced bid is 3. The Lead recycles its
      strongest card whenever it wins (it chooses what returns), so one strong pair carries
      several tricks.
    * Lead: brews its strongest pair while it still needs tricks and its weakest once the bid
      is made (overshooting fails too); leads a 2 (Eyes: the Lessers play blind) when the pair
      is as strong either way; takes its stronger card back while it needs tricks.
    * Lesser: the team wants the Lead to miss: it plays to win while the Lead still needs
      tricks and to lose once the Lead has its bid. It matches its partner's visible card
      (same suit or rank adds), passes for now when void to see its partner's card first, and
      hands the Lead back its weaker card (or its stronger one once the Lead must lose).
    * Passes and discards its lowest cards, keeping the Elixir.
    """

    name = "heuristic"
    game_id = "threewitches"

    def __init__(self, bid3: float = 9, bid4: float = 12) -> None:
        super().__init__()
        self.bid3 = bid3
        self.bid4 = bid4

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        ids = turn.option_ids
        hand = [_card(c) for c in obs.hand]
        if turn.kind == "bid":
            return self._bid(hand, ids)
        if turn.kind in ("pass-cards", "discard"):
            return min(ids, key=lambda i: strength(_option_card(i)))
        if turn.kind in ("lead-up", "lead-down"):
            return self._lead(obs, hand, ids, turn.kind)
        if turn.kind == "follow":
            return self._follow(obs, hand, ids)
        if turn.kind == "return":
            return self._return(obs, ids)
        return ids[0]

    # -- bidding ------------------------------------------------------------------------------

    def _bid(self, hand: Sequence[Card], ids: Sequence[str]) -> str:
        value = best_pair(hand) + 0.5 * sum(card.rank >= 5 for card in hand)
        if value >= self.bid4 and "bid:4" in ids:
            return "bid:4"
        if value >= self.bid3 and "bid:3" in ids:
            return "bid:3"
        return "pass" if "pass" in ids else ("bid:3" if "bid:3" in ids else ids[0])

    # -- the Lead -----------------------------------------------------------------------------

    @staticmethod
    def _lead_needs(obs: pb.Observation) -> int:
        return obs.bid - obs.seats[obs.lead].tricks

    def _lead(self, obs: pb.Observation, hand: Sequence[Card], ids: Sequence[str], kind: str) -> str:
        want_win = self._lead_needs(obs) > 0
        if kind == "lead-down":
            up = _card(obs.current[0].card)
            pick = max if want_win else min
            return pick(ids, key=lambda i: (combine(up, _option_card(i)), -strength(_option_card(i))))
        best: tuple[float, str] | None = None
        for i in ids:
            up = _option_card(i)
            rest = [c for c in hand if c != up]
            values = [combine(up, down) for down in rest]
            value = max(values) if want_win else -min(values)
            key = value + (0.5 if up.rank == EYES and want_win else 0) - 0.01 * strength(up)
            if best is None or key > best[0]:
                best = (key, i)
        assert best is not None
        return best[1]

    def _return(self, obs: pb.Observation, ids: Sequence[str]) -> str:
        needs = self._lead_needs(obs)
        left = TRICKS - len(obs.tricks)
        strong_for_lead = max(ids, key=lambda i: strength(_option_card(i)))
        weak_for_lead = min(ids, key=lambda i: strength(_option_card(i)))
        if obs.seat == obs.lead:
            return strong_for_lead if needs > 0 else weak_for_lead
        # The team hands the Lead what hurts it: weak while it needs tricks, strong once it must lose.
        return weak_for_lead if 0 < needs <= left else strong_for_lead

    # -- the Lesser Witches -------------------------------------------------------------------

    def _follow(self, obs: pb.Observation, hand: Sequence[Card], ids: Sequence[str]) -> str:
        needs = self._lead_needs(obs)
        left = TRICKS - obs.trick + 1
        want_win = 0 < needs <= left
        partner = next(
            (_card(p.card) for p in obs.current if p.seat not in (obs.lead, obs.seat) and not p.hidden), None
        )
        if "pass" in ids and partner is None and not obs.eyes:
            return "pass"  # see the partner's card first
        cards = [i for i in ids if i != "pass"]
        up = _card(obs.current[0].card)

        def value(i: str) -> float:
            card = _option_card(i)
            if partner is not None:
                return combine(partner, card)
            # Blind: a same-suit partner is likely when following; the Elixir needs a partner.
            return strength(card) + (1.0 if card.suit == up.suit else 0.0)

        pick = max if want_win else min
        return pick(
            cards, key=lambda i: (value(i), -strength(_option_card(i)) if want_win else strength(_option_card(i)))
        )


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("bid3", 9, 0, 30), Param("bid4", 12, 0, 30)])
    return HeuristicBot(values["bid3"], values["bid4"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:bid3=11"]
