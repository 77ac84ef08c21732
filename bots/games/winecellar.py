"""Built-in bots for Wine Cellar."""

from __future__ import annotations

import random
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
    * Bid: every seat's worth of every prize is public (cellars and clients), so it samples
      ``samples`` sets of the others' bids (each from the unseen bottles, or from the seat's
      known hand in series games 2-3) and, for each card it could bid, plays the picks out:
      the seats bidding higher take, in order, the prize best for them; it gets the best one
      left. Score = that mean, minus the card's bidding strength (share of unseen bottles it
      beats) times ``thrift`` times the spread of the prizes' worth to it, plus a share of the
      card's own worth to it (the bid becomes next round's prize). Solo: Eno's face-up card and
      deck give the exact chance to win, and Eno's pick is known.
    * Measured: this bid beats the simpler "rank by the chance of each other bid being lower,
      assume the others take my best prizes" (win share 0.47 at 3 players, 0.36 at 4, one seat
      against two or three of the simpler bot); a seat always bidding its lowest card wins
      0.21 against it at 3 players, always the highest 0.10.
    """

    game_id = "winecellar"

    def __init__(self, slot: float = 5.0, thrift: float = 0.6, samples: int = 12) -> None:
        super().__init__()
        self.slot = slot
        self.thrift = thrift
        self.samples = samples

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
        hand = list(obs.hand)
        if obs.players == 1:
            return self._solo_bid(obs, hand)
        last = obs.round >= CELLAR
        prizes = list(obs.prizes)
        # Every seat's worth of every prize (clients and cellars are public).
        worth = [
            [placed(list(seat.cellar), b, self.slot)[0] + bonus(b, seat.client) for b in prizes] for seat in obs.seats
        ]
        unseen = [b.id for b in obs.unseen]
        pools = {
            s: ([b.id for b in seat.hand] if seat.hand else unseen) for s, seat in enumerate(obs.seats) if s != obs.seat
        }
        rng = random.Random(obs.round * 100 + obs.seat + 7919 * obs.game + sum(b.id for b in hand))
        samples = [{s: rng.choice(pool) for s, pool in pools.items() if pool} for _ in range(self.samples)]
        mine = worth[obs.seat]
        spread = max(mine) - min(mine) if mine else 0.0
        best_id, best = hand[0].id, float("-inf")
        for card in hand:
            got = 0.0
            for bids in samples:
                ahead = sorted((s for s, x in bids.items() if x > card.id), key=lambda s: -bids[s])
                left = list(range(len(prizes)))
                for s in ahead[: len(prizes) - 1]:
                    theirs = worth[s]
                    left.remove(max(left, key=theirs.__getitem__))
                got += max(mine[j] for j in left)
            got /= len(samples)
            strength = sum(x < card.id for x in unseen) / max(len(unseen), 1) if unseen else card.id / obs.deck_cards
            cost = 0.0 if last else self.thrift * spread * strength
            back = 0.0 if last else 0.3 * (self._worth(obs, card) - self.slot) / len(obs.seats)
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
    specs = [Param("slot", 5.0, 0, 8), Param("thrift", 0.6, 0, 3), Param("samples", 12, 1, 200, integer=True)]
    values = read_params("heuristic", params, specs)
    return SommelierBot(values["slot"], values["thrift"], int(values["samples"]))


BOTS = {"heuristic": _heuristic}
