"""Gasha determinization: a world consistent with what one seat sees (ruling 14).

Hidden from a seat: the fronts of the other hands, the decks below their tops (backs and
fronts), the order of the Set Reward deck and the face-down Bonus tokens (with a random mix,
also which ones are in play). The seat sees the backs of every hand card and of every deck top.

The cards it has not located (all 75 minus its hand and the discard pile) are dealt again, deck
cycle by deck cycle (the setup's cards, then the cards of each shuffle of the discard pile, whose
make-up was public; every place's cycle is public because everybody sees which deck a card is
drawn from): for each back, a uniform choice of the cycle's unlocated cards with that back fills
the cycle's places showing that back (hand cards, deck tops); the rest of the cycle is shuffled
into its places below the deck tops. This is uniform over the deals that fit the backs and
cycles it sees. When another seat is paying for a reward it chose, its hand is then made to
afford it: a small max-flow finds how many cards of each needed toy each (cycle, back) group of
its hand must hold, and cards of the same group are swapped in from the other unlocated places
(so every back the seat sees stays where it is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.config import MatchConfig
from arena.games.v1 import gasha_pb2 as pb

if TYPE_CHECKING:
    from arena.games.gasha.game import Card, Gasha, GashaState, Reward

Place = tuple[list["Card"], int]  # (container, index)
Group = tuple[int, int]  # (deck cycle, back)


def sample_world(game: Gasha, state: GashaState, viewer: int, chance: Chance) -> GashaState:
    world = game.copy_for(state, viewer, chance)
    _redraw_hidden(game, world, viewer, chance)
    return world


def world_from_observation(
    game: Gasha, config: MatchConfig, viewer: int, obs: pb.Observation, chance: Chance
) -> GashaState:
    """The public table and the seat's hand are kept; the unseen cards (``unseen``) are dealt
    over the other hands and the decks under the backs shown, the Set Reward deck and the
    face-down tokens are drawn, and a paying seat is made able to pay, as in ``sample_world``.
    Not observed: the deck cycles of ruling 14 (which shuffle of the discard pile a card came
    from): a world deals the unseen cards as one cycle, less informed than ``sample_world``."""
    from arena.games.gasha.game import _FULL_COUNTS, Card, GashaState, rewards_in_play

    players = config.players
    world = GashaState(
        config=config,
        chance=chance.fork(),
        wilds=[v.wilds for v in obs.seats],
        rewards=[[r.id for r in v.rewards] for v in obs.seats],
        open_halves=[list(v.open_halves) for v in obs.seats],
        tickets=[[(t.first, t.second, t.bonus, t.same_colour) for t in v.tickets] for v in obs.seats],
        tokens=[[t.bonus for t in v.tickets] for v in obs.seats],
        display=[r.id for r in obs.display],
        unrevealed=list(obs.tokens_unrevealed),
        tokens_chosen=obs.tokens_chosen,
        phase=obs.phase,
        turn_seat=obs.turn_seat,
        claiming=obs.claiming.id,
        extra_turns=obs.extra_turns,
        trigger=obs.trigger,
        final_turns=list(obs.final_turns),
        turns=obs.turns,
    )
    taken = set(world.display).union(*world.rewards)
    world.reward_deck = [r.id for r in rewards_in_play(players) if r.id not in taken]  # shuffled below
    world.token_pile = [b for b in (1, 2, 3) for _ in range(world.unrevealed[b])][: obs.tokens_left]
    # The unseen cards by back; the discard pile is what is neither unseen nor in the hand.
    hand = [Card(c.back, c.toy) for c in obs.hand]
    left = dict(_FULL_COUNTS)
    for card in hand:
        left[card] -= 1
    unseen: dict[int, list[Card]] = {}
    for count in obs.unseen:
        card = Card(count.back, count.toy)
        unseen.setdefault(card.back, []).extend([card] * count.count)
        left[card] -= count.count
    world.discard = [card for card, n in left.items() for _ in range(n)]
    # Fill the places showing a back (other hands, deck tops) with unseen cards of that back,
    # the places below the deck tops with the rest; _redraw_hidden then deals them uniformly.
    world.hands = [
        hand if seat == viewer else [unseen[back].pop() for back in view.hand_backs]
        for seat, view in enumerate(obs.seats)
    ]
    tops = [unseen[deck.top_back].pop() if deck.size else None for deck in obs.decks]
    rest = sorted(card for cards in unseen.values() for card in cards)
    for deck, top in zip(obs.decks, tops, strict=True):
        below = deck.size - 1 if top is not None else 0
        world.decks.append([*rest[:below], *([top] if top is not None else [])])
        del rest[:below]
    world.deck_cycles = [[0] * len(deck) for deck in world.decks]
    world.hand_cycles = [[0] * len(h) for h in world.hands]
    _redraw_hidden(game, world, viewer, chance)
    return world


def _redraw_hidden(game: Gasha, world: GashaState, viewer: int, chance: Chance) -> None:
    """Re-draw what ``viewer`` cannot see in ``world`` (its cards, Set Reward deck and tokens)
    and recompute its decisions."""
    from arena.games.gasha.game import REWARD_BY_ID, can_pay, counts_of

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
            paid = _afford(world, viewer, payer, reward, chance)
            assert paid, "a payer's world hand affords its reward"
    elif (
        world.phase == pb.PHASE_TURN
        and payer != viewer
        and not game._draw_options(world)
        and not game._claimable(world, payer)
    ):
        # Ruling 10: a seat that can neither draw nor pay passes, publicly. This turn began, so
        # the seat can pay for a face-up reward: make it able to pay for one (rare: the decks
        # are empty; about 1 in 40,000 sampled worlds of random 6-player play had no option).
        for reward_id in chance.shuffled(sorted(world.display), "world"):
            trial = game.clone(world)
            try:
                paid = _afford(trial, viewer, payer, REWARD_BY_ID[reward_id], chance)
            except (IndexError, ValueError):  # no swap within its groups pays for this one
                continue
            if paid:
                world.hands, world.decks = trial.hands, trial.decks
                break
    world.pending = tuple(game.decisions(world))


def _unlocated(world: GashaState, viewer: int) -> tuple[list[Place], list[Place], dict[int, int]]:
    """The places of the cards ``viewer`` has not located: those showing their back (other hands,
    deck tops) and the free ones (decks below the top), with each place's deck cycle (by the id
    of its place)."""
    shown: list[Place] = []
    free: list[Place] = []
    cycles: dict[int, int] = {}
    for seat, hand in enumerate(world.hands):
        if seat != viewer:
            shown += [(hand, i) for i in range(len(hand))]
            for i, cycle in enumerate(world.hand_cycles[seat]):
                cycles[_key((hand, i))] = cycle
    for deck, deck_cycles in zip(world.decks, world.deck_cycles, strict=True):
        if deck:
            free += [(deck, i) for i in range(len(deck) - 1)]
            shown.append((deck, len(deck) - 1))
            for i, cycle in enumerate(deck_cycles):
                cycles[_key((deck, i))] = cycle
    return shown, free, cycles


def _key(place: Place) -> int:
    pile, i = place
    return id(pile) * 1000 + i


def _deal_cards(world: GashaState, viewer: int, chance: Chance) -> None:
    """Per deck cycle, per back: a uniform choice of the cycle's unlocated cards with that back
    fills the places showing it; the rest of the cycle fills its free places, shuffled."""
    shown, free, cycles = _unlocated(world, viewer)
    by_group: dict[tuple[int, int], list[Card]] = {}
    for place in shown + free:
        pile, i = place
        by_group.setdefault((cycles[_key(place)], pile[i].back), []).append(pile[i])
    places: dict[tuple[int, int], list[Place]] = {}
    for place in shown:
        pile, i = place
        places.setdefault((cycles[_key(place)], pile[i].back), []).append(place)
    leftovers: dict[int, list[Card]] = {}
    for group in sorted(by_group):
        cards = chance.shuffled(by_group[group], "world")
        spots = places.get(group, [])
        for (pile, i), card in zip(spots, cards, strict=False):
            pile[i] = card
        leftovers.setdefault(group[0], []).extend(cards[len(spots) :])
    free_by_cycle: dict[int, list[Place]] = {}
    for place in free:
        free_by_cycle.setdefault(cycles[_key(place)], []).append(place)
    for cycle in sorted(free_by_cycle):
        spots = free_by_cycle[cycle]
        for (pile, i), card in zip(spots, chance.shuffled(leftovers.get(cycle, []), "world"), strict=True):
            pile[i] = card


def _afford(world: GashaState, viewer: int, payer: int, reward: Reward, chance: Chance) -> bool:
    """Swap cards of the same back and deck cycle into the payer's hand until it pays for
    ``reward`` (True once it does). A group is a (cycle, back) pair: its cards may only move
    among its places."""
    from arena.games.gasha.game import TOYS, can_pay, counts_of

    hand = world.hands[payer]
    shown, free, cycles = _unlocated(world, viewer)
    group_of = {_key(place): (cycles[_key(place)], place[0][place[1]].back) for place in shown + free}
    pool: dict[tuple[tuple[int, int], int], int] = {}
    for place in shown + free:
        pile, i = place
        key = (group_of[_key(place)], pile[i].toy)
        pool[key] = pool.get(key, 0) + 1
    mine_of = {i: group_of[_key((hand, i))] for i in range(len(hand))}
    groups: dict[tuple[int, int], int] = {}
    for g in mine_of.values():
        groups[g] = groups.get(g, 0) + 1
    keys = sorted(groups)
    wilds = world.wilds[payer]
    if reward.identical:
        need = reward.identical - wilds
        room = {t: sum(min(groups[g], pool.get((g, t), 0)) for g in keys) for t in TOYS}
        toys = [t for t in TOYS if room[t] >= need]
        if not toys:
            return False
        toy = chance.pick(toys, "world")
        target = {(g, toy): sum(1 for i, c in enumerate(hand) if mine_of[i] == g and c.toy == toy) for g in keys}
        left = need - sum(target.values())
        for g in keys:
            add = min(left, min(groups[g], pool.get((g, toy), 0)) - target[(g, toy)])
            if add > 0:
                target[(g, toy)] += add
                left -= add
    else:
        target = _max_flow(keys, groups, pool, reward.needs)
    outside = [place for place in shown + free if place[0] is not hand]
    for g in keys:
        mine = [i for i in range(len(hand)) if mine_of[i] == g]
        for t in TOYS:
            while sum(1 for i in mine if hand[i].toy == t) < target.get((g, t), 0):
                spare = [
                    i
                    for i in mine
                    if sum(1 for j in mine if hand[j].toy == hand[i].toy) > target.get((g, hand[i].toy), 0)
                ]
                givers = [p for p in outside if group_of[_key(p)] == g and p[0][p[1]].toy == t]
                i = spare[chance.below(len(spare), "world")]
                pile, j = givers[chance.below(len(givers), "world")]
                hand[i], pile[j] = pile[j], hand[i]
    return can_pay(reward, counts_of(hand), wilds)


def _max_flow(
    groups_list: list[Group], groups: dict[Group, int], pool: dict[tuple[Group, int], int], needs: tuple[int, ...]
) -> dict[tuple[Group, int], int]:
    """How many cards of each needed toy each (cycle, back) group of the payer's hand holds in a
    largest matching of its cards to the reward's needs (augmenting paths on a tiny graph: group
    nodes 0..n-1, toy nodes n + toy)."""
    n = len(groups_list)
    toys = [t for t in range(1, len(needs)) if needs[t]]
    flow: dict[tuple[int, int], int] = {}  # (group index, toy) -> cards
    used = [0] * n
    filled = dict.fromkeys(toys, 0)

    def cap(g: int, t: int) -> int:
        group = groups_list[g]
        return pool.get((group, t), 0) if (group[1] >> t) & 1 else 0

    while True:
        # BFS from groups with spare cards to a toy still needed, through residual edges.
        parent: dict[int, int | None] = {g: None for g in range(n) if used[g] < groups[groups_list[g]]}
        queue = list(parent)
        end: int | None = None
        while queue and end is None:
            node = queue.pop(0)
            if node < n:
                for t in toys:
                    if n + t not in parent and flow.get((node, t), 0) < cap(node, t):
                        parent[n + t] = node
                        if filled[t] < needs[t]:
                            end = n + t
                            break
                        queue.append(n + t)
            else:
                for g in range(n):
                    if g not in parent and flow.get((g, node - n), 0) > 0:
                        parent[g] = node
                        queue.append(g)
        if end is None:
            return {(groups_list[g], t): k for (g, t), k in flow.items() if k}
        filled[end - n] += 1
        step = end
        while (prev := parent[step]) is not None:
            if step >= n:
                flow[(prev, step - n)] = flow.get((prev, step - n), 0) + 1
            else:
                flow[(step, prev - n)] -= 1
            step = prev
        used[step] += 1
