"""Gasha determinization: a world consistent with what one seat sees (ruling 14).

Hidden from a seat: the fronts of the other hands, the decks below their tops (backs and
fronts), the order of the Set Reward deck and the face-down Bonus tokens (with a random mix,
also which ones are in play). The seat sees the backs of every hand card and of every deck top.

The cards it has not located (all 75 minus its hand and the discard pile) are dealt again, deck
cycle by deck cycle (the setup's cards, then the cards of each shuffle of the discard pile, whose
make-up was public). Which cycle a hand card came from is seen when it is drawn; when a hand pays,
which of its cards with a paid card's back left is not seen, so the seat reads the cycles from
what it knows (:func:`reading`): each paid card is charged to a cycle the hand had drawn that back
from and that still has such a card unlocated, consistently over the whole history; a cycle's
pool is its make-up minus the seat's own draws and the charged cards. Then, for each (cycle,
back), a uniform choice of the pool's cards with that back fills the places read as that cycle
showing that back (other hands' cards, deck tops); the rest of the cycle is shuffled into its
places below the deck tops. Nothing dealt depends on a card the seat has not seen. When another
seat is paying for a reward it chose, its hand is then made to afford it: a small max-flow finds
how many cards of each needed toy each (cycle, back) group of its hand must hold, and cards of
the same group are swapped in from the other unlocated places (so every back the seat sees stays
where it is); when the seat's reading leaves no such swap (its charging of earlier payments is one
of several), cards of the same back are swapped across cycles.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from arena.chance import Chance
from arena.config import MatchConfig
from arena.games.charging import charge
from arena.games.v1 import gasha_pb2 as pb

if TYPE_CHECKING:
    from arena.games.gasha.game import Card, Gasha, GashaState, Reward

Place = tuple[list["Card"], int]  # (container, index)
Group = tuple[int, int]  # (deck cycle, back)


class Reading:
    """What a seat makes of the deck cycles (ruling 14), a function of what it knows (shared by
    the memo: never changed once made)."""

    __slots__ = ("_encoded", "decks", "pools", "slots")

    def __init__(
        self,
        pools: tuple[tuple[int, ...], ...],  # per cycle: its cards the seat has not located, by card_id
        slots: tuple[tuple[tuple[int, int], ...], ...],  # per other seat: (cycle, back), held longest first
        decks: tuple[int, ...],  # per deck: the cycle of its cards
    ) -> None:
        self.pools = pools
        self.slots = slots
        self.decks = decks
        self._encoded: tuple[bytes, tuple[bytes, ...]] | None = None

    def encoded(self) -> tuple[bytes, tuple[bytes, ...]]:
        """The observation's ``cycles`` and each SeatView's ``slots``, serialized (built once, from
        cached pieces: building the messages cost more than the rest of an observation)."""
        if self._encoded is None:
            self._encoded = (b"".join(map(_cycle, self.pools)), tuple(map(_seat_slots, self.slots)))
        return self._encoded


# Field numbers of what is written here: Observation.cycles, DeckCycle.cards, SeatView.slots,
# Observation.seats, Observation.unseen.
_CYCLES, _CARDS, _SLOTS, _SEATS, _UNSEEN = 24, 1, 11, 15, 9
_PIECES: dict[tuple[object, ...], bytes] = {}


def kept(table: dict[Any, bytes], key: Any, make: Callable[[], bytes]) -> bytes:
    """``table[key]``, made by ``make`` when missing; a full table starts again (at most
    :data:`_KEPT` pieces: a match's positions share most of theirs, other matches few)."""
    piece = table.get(key)
    if piece is None:
        if len(table) >= _KEPT:
            table.clear()
        piece = table[key] = make()
    return piece


_KEPT = 4096


def _cycle(pool: tuple[int, ...]) -> bytes:
    """One ``Observation.cycles`` entry, kept per pool: from one position to the next most
    cycles' pools are unchanged, and encoding one costs about as much as reading them all."""
    return kept(
        _CYCLE_PIECES, pool, lambda: _field(_CYCLES, b"".join(_card_count_field(i, n) for i, n in enumerate(pool) if n))
    )


def _seat_slots(slots: tuple[tuple[int, int], ...]) -> bytes:
    """A SeatView's ``slots``, kept per hand's reading (most hands read the same from one
    position to the next)."""
    return kept(_SEAT_SLOTS, slots, lambda: b"".join(slot_field(cycle, back) for cycle, back in slots))


_CYCLE_PIECES: dict[tuple[int, ...], bytes] = {}
_SEAT_SLOTS: dict[tuple[tuple[int, int], ...], bytes] = {}


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (a message) with its tag."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _piece(kind: int, a: Any, b: int) -> bytes:
    """A piece of an observation's bytes, made once (by ``_MAKERS[kind]``) and kept."""
    key = (kind, a, b)
    piece = _PIECES.get(key)
    if piece is None:
        piece = _PIECES[key] = _MAKERS[kind](a, b)
    return piece


def _card_count(card_id: int, count: int) -> bytes:
    """A ``CardCount`` of the card with this id."""
    from arena.games.gasha.game import CARD_KINDS

    card = CARD_KINDS[card_id]
    return pb.CardCount(back=card.back, toy=card.toy, count=count).SerializeToString()  # type: ignore[arg-type]


_MAKERS: dict[int, Callable[[Any, int], bytes]] = {
    0: lambda card_id, count: _field(_CARDS, _card_count(card_id, count)),  # DeckCycle.cards
    1: lambda cycle, back: _field(_SLOTS, pb.Slot(back=back, cycle=cycle).SerializeToString()),  # SeatView.slots
    2: lambda card, count: _field(  # Observation.unseen
        _UNSEEN, pb.CardCount(back=card.back, toy=card.toy, count=count).SerializeToString()
    ),
}


def _card_count_field(card_id: int, count: int) -> bytes:
    """A ``DeckCycle.cards`` entry with its tag."""
    return _piece(0, card_id, count)


def slot_field(cycle: int, back: int) -> bytes:
    """A ``SeatView.slots`` entry with its tag."""
    return _piece(1, cycle, back)


def unseen_field(card: Card, count: int) -> bytes:
    """An ``Observation.unseen`` entry with its tag."""
    return _piece(2, card, count)


def seat_field(view: bytes) -> bytes:
    """An ``Observation.seats`` entry with its tag, from the view's bytes."""
    return _field(_SEATS, view)


def sample_world(game: Gasha, state: GashaState, viewer: int, chance: Chance) -> GashaState:
    """The world ``world_from_observation`` builds for the same chance (the log and step count
    aside): it depends on nothing the seat has not seen, and keeps no record of it."""
    world = game.copy_for(state, viewer, chance)
    # The hidden orders are shuffled from a sorted start: the world never depends on them (the
    # pile is sorted as world_from_observation has it: its order only feeds a later shuffle).
    world.reward_deck.sort()
    world.token_pile.sort()
    world.discard.sort()
    read = reading(state, viewer)
    _deal_cards(world, viewer, read, chance)
    _redraw_hidden(game, world, viewer, chance)
    _rewrite_history(world, viewer, read)
    return world


def world_from_observation(
    game: Gasha, config: MatchConfig, viewer: int, obs: pb.Observation, chance: Chance
) -> GashaState:
    """The public table and the seat's hand are kept; the unseen cards are dealt over the other
    hands and the decks under the backs shown, cycle by cycle from ``cycles`` (each hand card and
    deck read as of the cycle ``slots`` and ``Deck.cycle`` give), the Set Reward deck and the
    face-down tokens are drawn, and a paying seat is made able to pay: exactly as
    ``sample_world`` does (the same chance gives the same world)."""
    from arena.games.gasha.game import (
        _FULL_COUNTS,
        CARD_ID,
        CARD_KINDS,
        Card,
        GashaState,
        rewards_in_play,
    )

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
        cycle=len(obs.cycles) - 1,
    )
    taken = set(world.display).union(*world.rewards)
    world.reward_deck = [r.id for r in rewards_in_play(players) if r.id not in taken]  # shuffled below
    world.token_pile = [b for b in (1, 2, 3) for _ in range(world.unrevealed[b])][: obs.tokens_left]
    hand = [Card(c.back, c.toy) for c in obs.hand]
    left = dict(_FULL_COUNTS)
    for card in hand:
        left[card] -= 1
    for count in obs.unseen:
        left[Card(count.back, count.toy)] -= count.count
    world.discard = [card for card, n in left.items() for _ in range(n)]
    pools = []
    for cycle in obs.cycles:
        pool = [0] * len(CARD_KINDS)
        for count in cycle.cards:
            pool[CARD_ID[Card(count.back, count.toy)]] = count.count
        pools.append(tuple(pool))
    read = Reading(
        tuple(pools),
        tuple(() if s == viewer else tuple((x.cycle, x.back) for x in v.slots) for s, v in enumerate(obs.seats)),
        tuple(deck.cycle for deck in obs.decks),
    )
    # Placeholders showing the backs seen; _deal_cards puts the cards under them.
    world.hands = [hand if s == viewer else [Card(x.back, 0) for x in v.slots] for s, v in enumerate(obs.seats)]
    world.hand_cycles = [[x.cycle for x in v.slots] for v in obs.seats]
    world.decks = [[Card(0, 0)] * (deck.size - 1) + [Card(deck.top_back, 0)] if deck.size else [] for deck in obs.decks]
    _deal_cards(world, viewer, read, chance)
    _redraw_hidden(game, world, viewer, chance)
    _rewrite_history(world, viewer, read)
    return world


def _rewrite_history(world: GashaState, viewer: int, read: Reading) -> None:
    """A history of ``world`` giving ``viewer`` the same reading of the cycles (its observation
    is then the same) and recording nothing it has not seen: each cycle's make-up is its
    unlocated cards plus the seat's cards from it, and each hand drew its cards from the cycles
    read, in order, paying none."""
    from arena.games.gasha.game import makeup_of, record

    own = list(zip(world.hands[viewer], world.hand_cycles[viewer], strict=True))
    world.makeups = [
        tuple(a + b for a, b in zip(pool, makeup_of(c for c, k in own if k == cycle), strict=True))
        for cycle, pool in enumerate(read.pools)
    ]
    world.history = [
        record(s, card, cycle)
        for s, hand in enumerate(world.hands)
        for card, cycle in zip(hand, world.hand_cycles[s], strict=True)
    ]


def _redraw_hidden(game: Gasha, world: GashaState, viewer: int, chance: Chance) -> None:
    """Re-draw the Set Reward deck and the tokens ``viewer`` cannot see in ``world`` (its cards
    are dealt already), make a paying seat able to pay and recompute the decisions."""
    from arena.games.gasha.game import REWARD_BY_ID, can_pay, counts_of

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
            # The seat's reading of the cycles is one charging of the paid cards among several;
            # rarely it leaves no way to pay within the cycles, though the real hand pays (94 of
            # 36,334 samples in 200 random 5- and 6-player games): then cards of the same back
            # are swapped across cycles. The seat's observation of the world is the same (it
            # reads the cycles from the history, not from where the cards lie); the world's own
            # later reading of them may be pooled.
            paid = _afford(world, viewer, payer, reward, chance) or _afford(
                world, viewer, payer, reward, chance, within_cycles=False
            )
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
                reward = REWARD_BY_ID[reward_id]
                paid = _afford(trial, viewer, payer, reward, chance) or _afford(
                    trial, viewer, payer, reward, chance, within_cycles=False
                )
            except (IndexError, ValueError):  # no swap within its groups pays for this one
                continue
            if paid:
                world.hands, world.decks = trial.hands, trial.decks
                break
    world.pending = tuple(game.decisions(world))


# -- the seat's reading of the deck cycles ----------------------------------------------------


def reading(state: GashaState, viewer: int) -> Reading:
    """:func:`compute_reading`, remembered by everything it reads (every observation and every
    sampled world needs it, and working it out replays the whole history)."""
    key = (
        viewer,
        tuple(state.history),
        tuple(state.makeups),
        tuple(map(tuple, state.hands)),
        tuple(state.discard),
        tuple(map(tuple, state.deck_cycles)),
        tuple(deck[-1].back if deck else 0 for deck in state.decks),
    )
    with _READINGS_LOCK:  # bots may sample worlds on several threads
        found = _READINGS.get(key)
    if found is None:
        found = compute_reading(state, viewer)
        with _READINGS_LOCK:
            _READINGS[key] = found
            if len(_READINGS) > _READINGS_KEPT:
                del _READINGS[next(iter(_READINGS))]  # the oldest
    return found


_READINGS: dict[tuple[object, ...], Reading] = {}
_READINGS_KEPT = 64  # positions remembered (a match's seats, a search's root)
_READINGS_LOCK = threading.Lock()


def compute_reading(state: GashaState, viewer: int) -> Reading:
    """The deck cycles as ``viewer`` can read them from the public history and its own cards
    (ruling 14): per cycle, its cards the seat has not located; per other hand, its cards'
    (cycle, back), held longest first; per deck, its cycle. Each card another seat paid is
    charged to a cycle (:func:`arena.games.charging.charge`: the hand's cards of one back are
    its "who") and, of the hand's cards with that back and cycle, the one held longest leaves.
    When the payments find no charging, or the history does not account for the position (a
    position edited by hand), the cycles are pooled: every place is read as of the last cycle,
    which holds every unlocated card (``unseen``), the hands in their order."""
    from arena.games.gasha.game import BACK_OF

    players = state.players
    cycles = len(state.makeups)
    pools = [list(m) for m in state.makeups]
    drawn: list[dict[int, list[int]]] = [{} for _ in range(players)]  # per seat, back: draws per cycle
    events: list[list[tuple[int, int]]] = [[] for _ in range(players)]  # (cycle, back) or (-1, charge)
    charges: list[tuple[tuple[int, int], int, tuple[int, ...]]] = []  # ((seat, back), card_id, draws then)
    zeros = (0,) * cycles
    consistent = True
    for code in state.history:
        seat, cycle = code >> 1 & 7, code >> 10
        if cycle >= cycles:
            consistent = False
            break
        if seat == viewer:
            if not code & 1:  # its own cards are located (spent ones included: the pile shows them)
                pools[cycle][code >> 4 & 63] -= 1
            continue
        card_id = code >> 4 & 63
        back = BACK_OF[card_id]
        if code & 1:
            events[seat].append((-1, len(charges)))
            charges.append(((seat, back), card_id, tuple(drawn[seat].get(back, zeros))))
        else:
            drawn[seat].setdefault(back, [0] * cycles)[cycle] += 1
            events[seat].append((cycle, back))
    where = charge(charges, pools) if consistent else None
    if where is not None:
        for (_, card_id, _), e in zip(charges, where, strict=True):
            pools[e][card_id] -= 1
        slots: list[tuple[tuple[int, int], ...]] = []
        for seat in range(players):
            held: list[tuple[int, int]] = []
            if seat != viewer:
                for cycle, back in events[seat]:
                    if cycle >= 0:
                        held.append((cycle, back))
                    else:  # a paid card: of its cycle and back, the card held longest leaves
                        (_, paid_back), _, _ = charges[back]
                        held.remove((where[back], paid_back))  # there is one: charge() checked it
            slots.append(tuple(held))
        decks = tuple(deck_cycles[-1] if deck_cycles else 0 for deck_cycles in state.deck_cycles)
        if _accounts_for(state, viewer, pools, slots, decks):
            return Reading(tuple(map(tuple, pools)), tuple(slots), decks)
    # Pooled (rare): one cycle, the last, holds every unlocated card.
    last = cycles - 1
    empty = (0,) * len(BACK_OF)
    return Reading(
        (*(empty for _ in range(last)), tuple(_unseen(state, viewer))),
        tuple(() if s == viewer else tuple((last, c.back) for c in hand) for s, hand in enumerate(state.hands)),
        (last,) * len(state.decks),
    )


def _unseen(state: GashaState, viewer: int) -> list[int]:
    """The cards ``viewer`` has not located, by card_id: all 75 minus its hand and the pile."""
    from arena.games.gasha.game import CARD_ID, FULL_MAKEUP

    unseen = list(FULL_MAKEUP)
    for card in state.hands[viewer]:
        unseen[CARD_ID[card]] -= 1
    for card in state.discard:
        unseen[CARD_ID[card]] -= 1
    return unseen


def _accounts_for(
    state: GashaState,
    viewer: int,
    pools: list[list[int]],
    slots: list[tuple[tuple[int, int], ...]],
    decks: Sequence[int],
) -> bool:
    """Whether a reading fits the position: the cycles hold no negative count and add up to the
    unseen cards, each hand shows the backs read, each deck holds one cycle's cards, and each
    cycle's pool has the cards of every back its places show and as many as its places."""
    from arena.games.gasha.game import IDS_OF_BACK

    if min(map(min, pools)) < 0 or list(map(sum, zip(*pools, strict=True))) != _unseen(state, viewer):
        return False
    need: dict[tuple[int, int], int] = {}  # (cycle, back) -> places showing it
    size = [0] * len(pools)  # places per cycle
    for seat, hand in enumerate(state.hands):
        if seat != viewer:
            if sorted(c.back for c in hand) != sorted(back for _, back in slots[seat]):
                return False
            for group in slots[seat]:
                need[group] = need.get(group, 0) + 1
                size[group[0]] += 1
    for deck, deck_cycles, cycle in zip(state.decks, state.deck_cycles, decks, strict=True):
        if deck:
            if deck_cycles.count(cycle) != len(deck) or cycle >= len(pools):
                return False
            group = (cycle, deck[-1].back)
            need[group] = need.get(group, 0) + 1
            size[cycle] += len(deck)
    if list(map(sum, pools)) != size:
        return False
    return all(sum(map(pools[cycle].__getitem__, IDS_OF_BACK[back])) >= n for (cycle, back), n in need.items())


def _deal_cards(world: GashaState, viewer: int, read: Reading, chance: Chance) -> None:
    """Deal the cards ``viewer`` has not located as ``read`` says: every other hand is rebuilt
    from its slots (cycle, back) and every deck read as of its cycle; per (cycle, back), a
    uniform choice of the cycle's pool with that back fills the places showing it (other hands'
    slots, then deck tops); the rest of each cycle fills its places below the deck tops,
    shuffled. Pools are dealt from sorted cards, so the world depends on nothing else."""
    from arena.games.gasha.game import CARD_KINDS

    shown: dict[Group, list[Place]] = {}
    for seat, slots in enumerate(read.slots):
        if seat != viewer:
            hand = world.hands[seat] = [CARD_KINDS[0]] * len(slots)  # placeholders
            world.hand_cycles[seat] = [cycle for cycle, _ in slots]
            for i, group in enumerate(slots):
                shown.setdefault(group, []).append((hand, i))
    free: dict[int, list[Place]] = {}
    world.deck_cycles = [[cycle] * len(deck) for deck, cycle in zip(world.decks, read.decks, strict=True)]
    for deck, cycle in zip(world.decks, read.decks, strict=True):
        if deck:
            shown.setdefault((cycle, deck[-1].back), []).append((deck, len(deck) - 1))
            free.setdefault(cycle, []).extend((deck, i) for i in range(len(deck) - 1))
    for cycle, pool in enumerate(read.pools):
        by_back: dict[int, list[Card]] = {}
        for card_id, n in enumerate(pool):  # sorted by (back, toy)
            if n:
                card = CARD_KINDS[card_id]
                by_back.setdefault(card.back, []).extend([card] * n)
        rest: list[Card] = []
        for back, cards in by_back.items():
            spots = shown.get((cycle, back), ())
            if spots:
                cards = chance.shuffled(cards, "world")
                for (pile, i), card in zip(spots, cards, strict=False):
                    pile[i] = card
            rest += cards[len(spots) :]
        spots = free.get(cycle, [])
        if spots:
            for (pile, i), card in zip(spots, chance.shuffled(rest, "world"), strict=True):
                pile[i] = card


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


def _afford(
    world: GashaState, viewer: int, payer: int, reward: Reward, chance: Chance, *, within_cycles: bool = True
) -> bool:
    """Swap cards of the same back and deck cycle into the payer's hand until it pays for
    ``reward`` (True once it does). A group is a (cycle, back) pair: its cards may only move
    among its places (with ``within_cycles`` False, a back: its cards move across cycles)."""
    from arena.games.gasha.game import TOYS, can_pay, counts_of

    hand = world.hands[payer]
    shown, free, cycles = _unlocated(world, viewer)
    group_of = {
        _key(place): (cycles[_key(place)] if within_cycles else 0, place[0][place[1]].back) for place in shown + free
    }
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
