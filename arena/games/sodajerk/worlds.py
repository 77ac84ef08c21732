"""Soda Jerk determinization: a world consistent with what one seat knows.

Hidden from a seat: the other hands, the other players' face-down and spilled cards, the
set-aside cards, and in Advanced the order in which the taps still on their A side will turn.
Every hidden place keeps its size; the unknown cards are the round's cards minus those the seat
sees, dealt uniformly over the deals that respect what the rules imply: a spilled card is of the
spilling tap's flavour (strawberry, ruling 10), and with 2 players the opponent's unseen
Switcheroo is in its hand or under a tap face down (never set aside nor spilled).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.games.sodajerk.cards import FLAVOURS, POWERS, SWITCH, SWITCHEROO, Card, Slot, flavour_cards
from arena.games.v1 import sodajerk_pb2 as pb

if TYPE_CHECKING:
    from arena.games.sodajerk.game import SodaJerk, SodaJerkState

SPILL_FLAVOUR = next(f for f in FLAVOURS if POWERS[f] == pb.SPILL)


def sample_world(game: SodaJerk, state: SodaJerkState, seat: int, chance: Chance) -> SodaJerkState:
    world = game.copy_for(state, seat, chance)
    others = [s for s in range(state.players) if s != seat]
    pool = [c for s in others for c in world.hands[s]]
    pool += [c for s in others for c in world.spilled[s]]
    pool += [sl.card for sl in _hidden_slots(world, seat)]
    pool += world.set_aside
    _deal_hidden(world, seat, pool, chance)
    game.refresh(world)
    return world


def world_from_observation(
    game: SodaJerk, config: MatchConfig, seat: int, observation: Message, chance: Chance
) -> SodaJerkState:
    from arena.games.sodajerk.game import SodaJerkState

    obs = observation
    assert isinstance(obs, pb.Observation)
    n = config.players
    flavours = [int(t.flavour) for t in obs.taps]
    b_side = {int(t.flavour): t.b_side for t in obs.taps}
    world = SodaJerkState(
        config=config,
        chance=chance.fork(),
        flavours=flavours,
        removed=obs.removed_flavour,
        b_order=sorted(flavours, key=lambda f: not b_side[f]) if obs.advanced else [],
        b_side=b_side,
        taps={t.flavour: [Slot(_card(s.card), s.seat, s.face_up) for s in t.slots] for t in obs.taps},
        hands=[[SWITCHEROO] * p.hand_count for p in obs.table],
        set_aside=[SWITCHEROO] * obs.set_aside,
        poured=[_card(c) for c in obs.poured],
        spilled=[[SWITCHEROO] * p.spilled for p in obs.table],
        round=obs.round,
        first_seat=obs.first_seat,
        turn_seat=obs.turn_seat,
        phase=obs.phase,
        power_tap=obs.power_tap,
        first_done=[p.first_turn_done for p in obs.table],
        flips=obs.consecutive_flips,
        last_call=obs.last_call_turns,
        caller=obs.caller,
        round_scores=[list(p.round_scores) for p in obs.table],
        totals=[p.total for p in obs.table],
    )
    world.hands[seat] = [_card(c) for c in obs.hand]
    world.spilled[seat] = [_card(c) for c in obs.spilled]
    seen = [*world.hands[seat], *world.spilled[seat], *world.poured]
    seen += [_card(s.card) for t in obs.taps for s in t.slots if s.HasField("card")]
    full = flavour_cards(flavours) + [SWITCHEROO] * (n if n == 2 else 0)
    pool = sorted((Counter(full) - Counter(seen)).elements())
    _deal_hidden(world, seat, pool, chance)
    game.refresh(world)
    return world


def _card(card: pb.Card) -> Card:
    return Card(card.flavour, card.number)


def _hidden_slots(world: SodaJerkState, seat: int) -> list[Slot]:
    return [sl for t in world.flavours for sl in world.taps[t] if not sl.face_up and sl.seat != seat]


def _deal_hidden(world: SodaJerkState, seat: int, pool: list[Card], chance: Chance) -> None:
    """Deal ``pool`` (the cards ``seat`` cannot see) into the places hidden from it, keeping
    their sizes; in Advanced, re-draw the order of the taps still on their A side."""
    others = [s for s in range(world.players) if s != seat]
    slots = _hidden_slots(world, seat)
    held = [len(world.hands[s]) for s in others]
    spills = [len(world.spilled[s]) for s in others]
    sizes = [sum(held) + len(slots), sum(spills), len(world.set_aside)]
    # Spills take strawberries; then the Switcheroos go to the others' places (never set
    # aside); the rest fill the places. Each step's choice leaves the same number of
    # completions, so the deal is uniform over the consistent ones.
    berries = chance.shuffled([c for c in pool if c.flavour == SPILL_FLAVOUR], "world-deal")
    spilled = berries[: sizes[1]]
    switches = [c for c in pool if c.flavour == SWITCH]
    rest = chance.shuffled(
        berries[sizes[1] :] + [c for c in pool if c.flavour not in (SWITCH, SPILL_FLAVOUR)], "world-deal"
    )
    cut = sizes[0] - len(switches)
    free, aside = switches + rest[:cut], rest[cut:]
    free = chance.shuffled(free, "world-deal")
    spilled = chance.shuffled(spilled, "world-deal")
    k = 0
    for s, size in zip(others, held, strict=True):
        world.hands[s] = sorted(free[k : k + size])
        k += size
    for sl in slots:
        sl.card = free[k]
        k += 1
    k = 0
    for s, size in zip(others, spills, strict=True):
        world.spilled[s] = spilled[k : k + size]
        k += size
    world.set_aside = aside
    if world.b_order:
        turned = [f for f in world.b_order if world.b_side[f]]
        world.b_order = turned + chance.shuffled([f for f in world.b_order if not world.b_side[f]], "world-b-side")
