"""Wine Cellar determinization: a world consistent with what one seat knows.

Hidden from a seat: in game 1 the other hands (from game 2 of the series every hand is a former
cellar, public), the clients the others were dealt and did not (or not yet) reveal, in this
game or an earlier one of the series, the order and content of the series' client deck, and in
solo the order of Eno's deck. Kept: everything public, the seat's own hand and clients (those
of earlier games too), each hand's size and, in game 1 of the series, its number of low-half
bottles (every bid is revealed). The unknown bottles and clients are dealt uniformly over the
deals that keep these.

Clients (ruling 8): the games dealt from one shuffle of the client deck (a "cycle") never share
a client, and the deck is the pool minus the clients of its cycle; a reshuffle takes the whole
pool back, so each cycle is drawn on its own from the pool minus the clients the seat has seen
in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.games.v1 import winecellar_pb2 as pb
from arena.games.winecellar.game import WineCellarState, client_cycles, client_pool, deck_size, split_halves

if TYPE_CHECKING:
    from arena.games.winecellar.game import WineCellar


def sample_world(game: WineCellar, state: WineCellarState, seat: int, chance: Chance) -> WineCellarState:
    world = game.copy_for(state, seat, chance)
    if state.solo:
        world.eno_deck = chance.shuffled(state.eno_deck, "sample")
    else:
        if state.game == 1:
            others = [s for s in range(state.players) if s != seat]
            _deal_hands(world, others, [i for s in others for i in state.hands[s]], chance)
        _deal_offers(world, seat, chance)
    game.refresh(world)
    return world


def world_from_observation(
    game: WineCellar, config: MatchConfig, seat: int, observation: Message, chance: Chance
) -> WineCellarState:
    obs = observation
    assert isinstance(obs, pb.Observation)
    n = config.players
    seats = obs.seats
    revealed = obs.phase != "client"
    world = WineCellarState(
        config=config,
        chance=chance.fork(),
        solo=n == 1,
        series=obs.series,
        game=obs.game,
        round=obs.round,
        phase=obs.phase,
        hands=[[b.id for b in v.hand] for v in seats],
        prizes=[b.id for b in obs.prizes],
        offers=[[] for _ in range(n)],
        past_offers=[[[] for _ in range(n)] for _ in range(obs.game - 1 if obs.series else 0)],
        past_clients=[list(obs.earlier_clients[n * g : n * (g + 1)]) for g in range(obs.game - 1 if obs.series else 0)],
        clients=[v.client.id if revealed else 0 for v in seats],
        cellars=[[b.id for b in v.cellar] for v in seats],
        bids=[v.bid for v in seats],
        order=list(obs.order),
        picked=[v.picked for v in seats],
        turn=obs.turn,
        last_taken=obs.taken.id,
        game_scores=[list(v.game_scores) for v in seats],
        pool=client_pool(config),
        eno_client=obs.eno_client.id,
        eno_bids=[b.id for b in obs.eno_bids],
        boxed=[b.id for b in obs.boxed],
        winners=list(obs.winners),
    )
    world.hands[seat] = [b.id for b in obs.hand]
    world.offers[seat] = [c.id for c in obs.offer]
    for g, past in enumerate(world.past_offers):
        past[seat] = list(obs.earlier_offers[2 * g : 2 * g + 2])
    if revealed:
        world.chosen = dict(enumerate(world.clients))
    unseen = [b.id for b in obs.unseen]
    if world.solo:
        world.eno_deck = chance.shuffled(unseen, "sample")
    else:
        if world.game == 1:
            others = [s for s in range(n) if s != seat]
            sizes = {s: (seats[s].low_in_hand, seats[s].hand_size) for s in others}
            _deal_hands(world, others, unseen, chance, sizes)
        _deal_offers(world, seat, chance)
    game.refresh(world)
    return world


def _deal_hands(
    world: WineCellarState,
    others: list[int],
    unseen: list[int],
    chance: Chance,
    sizes: Mapping[int, tuple[int, int]] | None = None,
) -> None:
    """Game 1: deal the ``unseen`` bottles to the ``others``' hands, uniformly, keeping each
    hand's size and, in the series, its number of low-half bottles (``sizes``: per seat (low,
    size); by default those of the hands the world holds)."""
    n = world.players
    cut = len(split_halves(deck_size(n))[0]) if world.series else deck_size(n)
    if sizes is None:
        sizes = {s: (sum(1 for i in world.hands[s] if i <= cut), len(world.hands[s])) for s in others}
    if not world.series:
        sizes = {s: (size, size) for s, (_, size) in sizes.items()}
    for s in others:
        world.hands[s] = []
    for low in (True, False):
        cards = chance.shuffled([i for i in unseen if (i <= cut) == low], "sample")
        at = 0
        for s in others:
            k = sizes[s][0] if low else sizes[s][1] - sizes[s][0]
            world.hands[s] += cards[at : at + k]
            at += k
    for s in others:
        world.hands[s].sort()


def _deal_offers(world: WineCellarState, seat: int, chance: Chance) -> None:
    """The clients the others were dealt and did not (or not yet) reveal, in this game and the
    earlier ones of the series, and the series' client deck: per cycle of ruling 8, drawn from
    the pool minus the clients ``seat`` has seen in it (its own two a game, and the kept ones
    once revealed); the deck is the rest of the last cycle, reshuffled."""
    n = world.players
    offers = [*world.past_offers, world.offers]
    kept = [*world.past_clients, world.clients if world.phase != "client" else [0] * n]
    free: list[int] = []
    for cycle in client_cycles(n, len(world.pool), len(offers)):
        seen = {c for g in cycle for c in (*offers[g][seat], *kept[g]) if c}
        free = chance.shuffled([c for c in world.pool if c not in seen], "sample")
        for g in cycle:
            for s in range(n):
                if s == seat:
                    continue
                if kept[g][s]:
                    offers[g][s] = sorted([kept[g][s], free.pop()])
                else:
                    offers[g][s] = sorted([free.pop(), free.pop()])
    world.past_offers, world.offers = offers[:-1], offers[-1]
    world.client_deck = free if world.series else []
