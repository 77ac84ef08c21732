"""Gasha determinization: a world consistent with what one seat sees (ruling 14).

Hidden from a seat: the fronts of the other hands, the decks below their tops (backs and
fronts), the order of the Set Reward deck and the face-down Bonus tokens (with a random mix,
also which ones are in play). The seat sees the backs of every hand card and of every deck top.

The cards it has not located (all 75 minus its hand and the discard pile) are dealt again: for
each back, a uniform choice of that back's unlocated cards fills the places showing that back
(hand cards, deck tops); everything left is shuffled into the decks below their tops. This is
uniform over the deals that fit the backs it sees. When another seat is paying for a reward it
chose, its hand is then made to afford it: a small max-flow finds how many cards of each needed
toy each of its backs must hold, and cards of the same back are swapped in from the other
unlocated places (so every back the seat sees stays where it is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.games.v1 import gasha_pb2 as pb

if TYPE_CHECKING:
    from arena.games.gasha.game import Card, Gasha, GashaState, Reward

Place = tuple[list["Card"], int]  # (container, index)


def sample_world(game: Gasha, state: GashaState, viewer: int, chance: Chance) -> GashaState:
    from arena.games.gasha.game import REWARD_BY_ID, can_pay, counts_of

    world = game.copy_for(state, viewer, chance)
    _deal_cards(world, viewer, chance)
    world.reward_deck = chance.shuffled(world.reward_deck, "world")
    if world.tokens_chosen:
        world.token_pile = chance.shuffled(world.token_pile, "world")
    else:
        pool = [bonus for bonus in (1, 2, 3) for _ in range(world.unrevealed[bonus])]
        world.token_pile = chance.shuffled(pool, "world")[: len(world.token_pile)]
    payer = world.turn_seat
    if world.phase == pb.PHASE_PAY and payer != viewer:
        reward = REWARD_BY_ID[world.claiming]
        if not can_pay(reward, counts_of(world.hands[payer]), world.wilds[payer]):
            _afford(world, viewer, payer, reward, chance)
    world.pending = tuple(game.decisions(world))
    return world


def _unlocated(world: GashaState, viewer: int) -> tuple[list[Place], list[Place]]:
    """The places of the cards ``viewer`` has not located: those showing their back (other hands,
    deck tops) and the free ones (decks below the top)."""
    shown: list[Place] = []
    free: list[Place] = []
    for seat, hand in enumerate(world.hands):
        if seat != viewer:
            shown += [(hand, i) for i in range(len(hand))]
    for deck in world.decks:
        if deck:
            free += [(deck, i) for i in range(len(deck) - 1)]
            shown.append((deck, len(deck) - 1))
    return shown, free


def _deal_cards(world: GashaState, viewer: int, chance: Chance) -> None:
    shown, free = _unlocated(world, viewer)
    by_back: dict[int, list[Card]] = {}
    for pile, i in shown + free:
        card = pile[i]
        by_back.setdefault(card.back, []).append(card)
    places: dict[int, list[Place]] = {}
    for pile, i in shown:
        places.setdefault(pile[i].back, []).append((pile, i))
    leftovers: list[Card] = []
    for back in sorted(by_back):
        cards = chance.shuffled(by_back[back], "world")
        spots = places.get(back, [])
        for (pile, i), card in zip(spots, cards, strict=False):
            pile[i] = card
        leftovers += cards[len(spots) :]
    for (pile, i), card in zip(free, chance.shuffled(leftovers, "world"), strict=True):
        pile[i] = card


def _afford(world: GashaState, viewer: int, payer: int, reward: Reward, chance: Chance) -> None:
    """Swap cards of the same back into the payer's hand until it pays for ``reward``."""
    from arena.games.gasha.game import TOYS, can_pay, counts_of

    hand = world.hands[payer]
    shown, free = _unlocated(world, viewer)
    pool: dict[tuple[int, int], int] = {}
    for pile, i in shown + free:
        key = (pile[i].back, pile[i].toy)
        pool[key] = pool.get(key, 0) + 1
    groups: dict[int, int] = {}
    for card in hand:
        groups[card.back] = groups.get(card.back, 0) + 1
    backs = sorted(groups)
    wilds = world.wilds[payer]
    if reward.identical:
        need = reward.identical - wilds
        room = {t: sum(min(groups[b], pool.get((b, t), 0)) for b in backs) for t in TOYS}
        toy = chance.pick([t for t in TOYS if room[t] >= need], "world")
        target = {(b, toy): sum(1 for c in hand if c.back == b and c.toy == toy) for b in backs}
        left = need - sum(target.values())
        for b in backs:
            add = min(left, min(groups[b], pool.get((b, toy), 0)) - target[(b, toy)])
            if add > 0:
                target[(b, toy)] += add
                left -= add
    else:
        target = _max_flow(backs, groups, pool, reward.needs)
    outside = [(pile, i) for pile, i in shown + free if pile is not hand]
    for b in backs:
        mine = [i for i, c in enumerate(hand) if c.back == b]
        for t in TOYS:
            while sum(1 for i in mine if hand[i].toy == t) < target.get((b, t), 0):
                spare = [
                    i
                    for i in mine
                    if sum(1 for j in mine if hand[j].toy == hand[i].toy) > target.get((b, hand[i].toy), 0)
                ]
                givers = [(pile, i) for pile, i in outside if pile[i].back == b and pile[i].toy == t]
                i = spare[chance.below(len(spare), "world")]
                pile, j = givers[chance.below(len(givers), "world")]
                hand[i], pile[j] = pile[j], hand[i]
    assert can_pay(reward, counts_of(hand), wilds), "a payer's world hand affords its reward"


def _max_flow(
    backs: list[int], groups: dict[int, int], pool: dict[tuple[int, int], int], needs: tuple[int, ...]
) -> dict[tuple[int, int], int]:
    """How many cards of each needed toy each back of the payer's hand holds in a largest
    matching of its cards to the reward's needs (augmenting paths on a tiny graph)."""
    toys = [t for t in range(1, len(needs)) if needs[t]]
    flow: dict[tuple[int, int], int] = {}
    used = dict.fromkeys(backs, 0)
    filled = dict.fromkeys(toys, 0)

    def cap(b: int, t: int) -> int:
        return pool.get((b, t), 0) if (b >> t) & 1 else 0

    while True:
        # BFS from backs with spare supply to a toy with unmet need, through residual edges.
        parent: dict[tuple[str, int], tuple[str, int] | None] = {}
        queue: list[tuple[str, int]] = []
        for b in backs:
            if used[b] < groups[b]:
                parent[("b", b)] = None
                queue.append(("b", b))
        end: tuple[str, int] | None = None
        while queue and end is None:
            kind, node = queue.pop(0)
            if kind == "b":
                for t in toys:
                    if ("t", t) not in parent and flow.get((node, t), 0) < cap(node, t):
                        parent[("t", t)] = (kind, node)
                        if filled[t] < needs[t]:
                            end = ("t", t)
                            break
                        queue.append(("t", t))
            else:
                for b in backs:
                    if ("b", b) not in parent and flow.get((b, node), 0) > 0:
                        parent[("b", b)] = (kind, node)
                        queue.append(("b", b))
        if end is None:
            return flow
        filled[end[1]] += 1
        step: tuple[str, int] = end
        while parent[step] is not None:
            prev = parent[step]
            assert prev is not None
            if step[0] == "t":
                flow[(prev[1], step[1])] = flow.get((prev[1], step[1]), 0) + 1
            else:
                flow[(step[1], prev[1])] -= 1
            step = prev
        used[step[1]] += 1
