"""Built-in bots for Wine Cellar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.v1 import winecellar_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

CELLAR = 8


def bonus(bottle: pb.Bottle, client: pb.Client) -> int:
    """What the client pays for this bottle (types and countries)."""
    points = 0
    if bottle.type == client.type1:
        points += client.bonus1
    if bottle.type == client.type2:
        points += client.bonus2
    if bottle.country in client.countries:
        points += client.country_bonus
    return points


def plan_value(cellar: Sequence[pb.Bottle], slot: float) -> float:
    """The best Age Score total of ``cellar`` over the number T of bottles still to come that go
    on top (each future bottle counted ``slot`` points)."""
    left = CELLAR - len(cellar)
    best = 0
    for tops in range(left + 1):
        best = max(best, sum(b.ages[tops + k] for k, b in enumerate(cellar)))
    return best + slot * left


def placed(cellar: Sequence[pb.Bottle], bottle: pb.Bottle, slot: float) -> tuple[float, str]:
    """The better end for ``bottle`` and the plan value it gives."""
    if not cellar:
        return plan_value([bottle], slot), "top"
    top = plan_value([bottle, *cellar], slot)
    bottom = plan_value([*cellar, bottle], slot)
    return (top, "top") if top >= bottom else (bottom, "bottom")


class SommelierBot(Bot):
    """Plans its cellar as a drinking window and bids what the round's prizes are worth to it.

    * A bottle's worth is the best Age Score total of the cellar with it (over how many of the
      bottles still to come will go on top; each future bottle counted ``slot`` points) plus its
      client bonus. Top or bottom: whichever keeps that plan best.
    * Client: the one whose bonuses pay most over the bottles in play (prizes first).
    * Bid: for each card, the chance every other seat bids lower (their cards are the unseen
      bottles, or their known hands in series games 2-3; solo: Eno's face-up card and its deck)
      gives an expected pick position; the value of the prize it should get there, minus the
      card's future bidding strength times ``thrift``, plus a share of the card's own worth to
      it (the bid becomes next round's prize).
    """

    game_id = "winecellar"

    def __init__(self, slot: float = 5.0, thrift: float = 0.6) -> None:
        super().__init__()
        self.slot = slot
        self.thrift = thrift

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        if turn.kind == "client":
            return self._client(obs, turn)
        me = obs.seats[obs.seat]
        if turn.kind == "place":
            return placed(list(me.cellar), obs.taken, self.slot)[1]
        if turn.kind == "pick":
            best = max(turn.options, key=lambda o: self._worth(obs, self._bottle(obs, o.action)))
            return best.id
        return self._bid(obs, turn)

    # -- pieces -----------------------------------------------------------------------------

    @staticmethod
    def _bottle(obs: pb.Observation, action: object) -> pb.Bottle:
        assert isinstance(action, pb.Action)
        number = action.take or action.bid
        for b in [*obs.prizes, *obs.hand]:
            if b.id == number:
                return b
        raise ValueError(number)

    def _worth(self, obs: pb.Observation, bottle: pb.Bottle) -> float:
        me = obs.seats[obs.seat]
        value, _ = placed(list(me.cellar), bottle, self.slot)
        return value + bonus(bottle, me.client)

    def _client(self, obs: pb.Observation, turn: Turn) -> str:
        pool = [*obs.prizes, *obs.unseen, *obs.hand]
        for seat in obs.seats:
            pool.extend(seat.hand)

        def pay(client: pb.Client) -> float:
            prizes = sum(bonus(b, client) for b in obs.prizes) / max(len(obs.prizes), 1)
            every = sum(bonus(b, client) for b in pool) / max(len(pool), 1)
            return 0.3 * prizes + every

        best = max(obs.offer, key=pay)
        return f"client:{best.id}"

    def _bid(self, obs: pb.Observation, turn: Turn) -> str:
        values = sorted((self._worth(obs, b) for b in obs.prizes), reverse=True)
        hand = list(obs.hand)
        last = obs.round >= CELLAR
        if obs.players == 1:
            return self._solo_bid(obs, hand)
        pools: list[list[int]] = []
        unseen = [b.id for b in obs.unseen]
        for s, seat in enumerate(obs.seats):
            if s == obs.seat:
                continue
            pools.append([b.id for b in seat.hand] if seat.hand else unseen)
        spread = (values[0] - values[-1]) if values else 0.0
        best_id, best = hand[0].id, float("-inf")
        for card in hand:
            ahead = sum(sum(x > card.id for x in pool) / max(len(pool), 1) for pool in pools)
            k = min(ahead, len(values) - 1)
            lo = int(k)
            frac = k - lo
            got = values[lo] * (1 - frac) + values[min(lo + 1, len(values) - 1)] * frac
            strength = sum(x < card.id for x in unseen) / max(len(unseen), 1) if unseen else card.id / obs.deck_cards
            cost = 0.0 if last else self.thrift * spread * strength
            back = 0.0 if last else 0.3 * (self._worth(obs, card) - self.slot * 1.0) / len(obs.seats)
            score = got - cost + back
            if score > best:
                best_id, best = card.id, score
        return f"bid:{best_id}"

    def _solo_bid(self, obs: pb.Observation, hand: list[pb.Bottle]) -> str:
        prizes = list(obs.prizes)
        eno = obs.eno_client
        up = [b.id for b in obs.eno_bids]
        deck = [b.id for b in obs.unseen]
        worth = {b.id: self._worth(obs, b) for b in prizes}
        eno_pick = max(
            prizes,
            key=lambda b: (
                b.type == eno.type1,
                b.type == eno.type2,
                b.country == (eno.countries[0] if eno.countries else ""),
                b.id,
            ),
        )
        mine_if_lose = (
            max(worth[b.id] for b in prizes if b.id != eno_pick.id) if len(prizes) > 1 else worth[prizes[0].id]
        )
        mine_if_win = max(worth.values())
        last = obs.round >= CELLAR
        best_id, best = hand[0].id, float("-inf")
        for card in hand:
            p = 1.0 if all(x < card.id for x in up) else 0.0
            if deck and len(up) < 2:
                p *= (sum(x < card.id for x in deck) / len(deck)) ** (2 - len(up))
            got = p * mine_if_win + (1 - p) * mine_if_lose
            strength = card.id / obs.deck_cards
            cost = 0.0 if last else self.thrift * (mine_if_win - mine_if_lose) * strength
            back = 0.0 if last else 0.5 * (self._worth(obs, card) - self.slot)
            score = got - cost + back
            if score > best:
                best_id, best = card.id, score
        return f"bid:{best_id}"


def _heuristic(params: Mapping[str, str]) -> Bot:
    specs = [Param("slot", 5.0, 0, 8), Param("thrift", 0.6, 0, 3)]
    values = read_params("heuristic", params, specs)
    return SommelierBot(values["slot"], values["thrift"])


BOTS = {"heuristic": _heuristic}
