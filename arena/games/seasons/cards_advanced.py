"""The effects of the advanced power cards 31–50 (DATA §1.3), written with the card framework
(``framework.py``; see ``CARDS-API.md``). Each card: small functions registered by number.

Rulings for the advanced cards (DATA §1.3 paraphrases the cards; where it is silent we follow
Source A, the BGA adaptation, and say so):

A1. **Energy of choice**: every "gain N energies" (#31 water, #32, #36, #42, #44, #48) is N
    choices of the energy's type (decision ``energy``, reason ``gain``), as ruling 14.
A2. **Elemental Amulet #31** is paid with 1 to 4 energies of different types (one each;
    option ``summon:31`` pays all four, ``summon:31:-water-earth`` pays air and fire: the
    suffix names the types not paid). Its effect follows the types paid: water 2 energies,
    earth 5 crystals, fire 1 card drawn into the hand, air gauge +1 (applied in the order
    air, water, fire, earth). Summoned for free (Potion of Dreams #24, Divine Chalice #9,
    Crystal Orb #34) it gives all four. Hand of Fortune #20 reduces this cost like any other
    (never below 1 energy): a type it removes is not paid and gives no effect, so with it the
    Amulet is paid with 1–3 types.
A3. **Tree of Light #32** is one activation: either pay 3 crystals and gain 1 energy of your
    choice (``energy:<e>``) or discard 1 energy to be allowed to transmute for the rest of the
    turn (``transmute:<e>``), in one ``energy`` decision (reason ``tree``).
A4. **Arcano Leech #33** (Source A): an opponent of its owner must give 1 crystal before each
    summon it PAYS for (free summons are exempt); a paid summon is offered only if the
    summoner has the card's crystal cost plus 1 crystal per opposing Leech.
A5. **Crystal Orb #34**: one activation, first a choice (decision ``card``, reason ``orb``):
    ``draw`` looks at the top card (it goes to the owner's private limbo), ``discard`` pays 3
    crystals and discards the top card face down (the owner sees it, ruling 23). After a look
    (reason ``orb-look``) the owner summons it (``card:<n>``, only with room under the gauge
    and 4 energies) paying 4 energies of its choice one by one (reason ``orb-pay``), or puts
    it back (``none``) on top of the draw pile. A summon by the Orb is free (no printed cost, no Leech #33).
A6. **Glutton Cauldron #35**: each activation moves 1 energy of the reserve onto it (kept in
    its ``energies``; they are not spendable and are lost if it leaves play otherwise); when
    the 7th is placed (Source A) it is sacrificed at once: the 7 energies go to the reserve
    and its owner gains 15 crystals.
A7. **Vampiric Crown #36**: on arrival the owner discards a card of its hand (``card:<n>``,
    face up) or draws one into its hand (``draw``; the card stays private); it gains as
    many energies as the card's printed prestige, at least 0 (Source A).
A8. **Dragon Skull #37**: offered with at least 3 cards in play; the owner sacrifices 3 of
    them one by one (the Skull itself may be one, Source A), then gains 15 crystals.
A9. **Demon of Argos #38**: each opponent's gauge −1 (not below 0; cards already in play stay
    even above the gauge, Source A) and each opponent draws 1 card into its hand.
A10. **Titus Deepgaze #39**: at each round end every opponent with a crystal gives 1; if one
    had none, Titus is sacrificed after the others gave (Source A).
A11. **Air Elemental #40**: the energies in the opponents' reserves become air (energies
    stored on Amulet of Water #4 are not in the reserve, ruling 10).
A12. **Thieving Fairies #41**: each time an opponent activates a card (an ``activate:<i>``
    option) it gives the Fairies' owner 1 crystal if it has one, and the owner gains 1 more
    (the 1 more also when the opponent had none, Source A). The Die of Malice #15 reroll is
    an activation too (DATA 1.3: timing A, ruling 12), though offered as decision ``reroll``
    at the start of the turn: it triggers the Fairies (after its 2 crystals); ``keep`` does not.
A13. **Cursed Treatise of Arus #42**: on arrival 2 energies, 10 crystals, gauge +1; when it is
    SACRIFICED (Syllas #10, Dragon Skull #37, ...) its owner discards its whole reserve;
    returned to hand (Amsug #17) or passed it does nothing.
A14. **Idol of the Familiar #43** follows DATA's first-edition text (as ruling 19 for #5): no
    arrival effect; activation +1 crystal per familiar its owner has in play.
A15. **Necrotic Kriss #44**: discard a familiar from the hand (``card:<n>``, face up) or
    sacrifice a familiar in play (``tableau:<i>``), then gain 4 energies.
A16. **Lantern of Xidit #45**: +3 per energy in the reserve at the end (not the energies on
    Amulet of Water #4, ruling 10). **Sealed Chest of Urm #46**: +20 if every card its owner
    has in play is a magic item.
A17. **Mirror of the Seasons #47**: the owner picks the energy to give (``energy:<e>``, reason
    ``mirror-from``) and the energy to get (reason ``mirror-to``); each conversion of 1 token
    costs 1 crystal; then ``energy:<e>`` converts one more of the same pair or ``stop`` ends
    (reason ``mirror-more``). Only reserve energies are converted.
A18. **Pendant of Ragnor #48**: 1 energy per other magic item of its owner in play.
A19. **Sid Nightshade #49**: if its owner has strictly more crystals than every opponent (after
    paying for Sid), each opponent gives 5 crystals (what it has, ruling 17).
A20. **Damned Soul of Onys #50**: on arrival 10 crystals and 1 water; activation: discard 1
    water (reserve first, then Amulet of Water) and pass it, straightened, into the tableau of
    the left neighbour (seat + 1), even above that seat's gauge (Source A); each round end its
    current owner loses 3 crystals.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from arena.engine import Option
from arena.games.seasons.framework import (
    AIR,
    CARDS,
    ENERGIES,
    ENERGY_NAMES,
    NONE,
    STOP,
    WATER,
    Ask,
    Ctx,
    Payment,
    SeasonsState,
    activation,
    available,
    card_name,
    card_option,
    choice,
    end_of_game,
    energy_option,
    hook,
    on_summon,
    option,
    payments,
    summon_tax,
    tableau_option,
    tableau_options,
    to_discard,
    total,
)
from arena.games.v1 import seasons_pb2 as pb

DRAW = option("draw", "draw a power card", kind=pb.DRAW)


def _count(energy: int, n: int = 1) -> list[int]:
    counts = [0] * 5
    counts[energy] = n
    return counts


def _discard_from_hand(ctx: Ctx, number: int) -> None:
    """Discard a card of the owner's hand, shown (its effect needs it seen: #36, #44)."""
    ctx.state.hands[ctx.seat].remove(number)
    to_discard(ctx.state, [number])  # shown: its effect needs it seen (prestige, a familiar)
    ctx.state.played[ctx.seat].append(number)
    ctx.log("discard", f"discards {card_name(number)} from hand ({card_name(ctx.card)})", card=number)


# 31 Elemental Amulet: pay 1-4 energies of different types; an effect per type paid (A2).


@payments(31)
def elemental_payments(state: SeasonsState, seat: int) -> list[Payment]:
    out: list[Payment] = []
    for size in range(len(ENERGIES), 0, -1):
        for paid in combinations(ENERGIES, size):
            counts = tuple(1 if e in paid else 0 for e in range(5))
            out.append(Payment(counts, 0, tuple(e for e in ENERGIES if e not in paid)))
    return out


@on_summon(31)
def elemental_amulet(ctx: Ctx) -> None:
    pay = ctx.payment
    types = [e for e in ENERGIES if pay is None or pay.energies[e]]
    if AIR in types:
        ctx.gauge(1)
    if WATER in types:
        ctx.gain_energy_choice(2)
    if pb.FIRE in types:
        for card in ctx.draw(1):
            ctx.to_hand(card)
    if pb.EARTH in types:
        ctx.gain_crystals(5)


# 32 Tree of Light: pay 3 crystals -> 1 energy, or discard 1 energy -> may transmute (A3).

TREE_CRYSTALS = 3


def _tree_can(ctx: Ctx) -> bool:
    return ctx.state.crystals[ctx.seat] >= TREE_CRYSTALS or total(ctx.available()) >= 1


@activation(32, can=_tree_can)
def tree_of_light(ctx: Ctx) -> None:
    ctx.ask("energy", "tree", reason="tree")


def _tree_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    opts: list[Option] = []
    if state.crystals[ask.seat] >= TREE_CRYSTALS:
        opts.extend(energy_option(e, "pay 3 crystals to gain") for e in ENERGIES)
    have = available(state, ask.seat)
    opts.extend(
        option(
            f"transmute:{ENERGY_NAMES[e]}",
            f"discard 1 {ENERGY_NAMES[e]} to transmute this turn",
            kind=pb.TRANSMUTE,
            energy=e,
        )
        for e in ENERGIES
        if have[e]
    )
    return tuple(opts)


@choice("tree", _tree_options)
def _tree(ctx: Ctx, ask: Ask, action: Any) -> None:
    if action.kind == pb.ENERGY:
        ctx.lose_crystals(TREE_CRYSTALS)
        ctx.gain_energy(action.energy)
    else:
        ctx.spend_energy(action.energy)
        ctx.state.may_transmute = True


# 33 Arcano Leech: an opponent gives 1 crystal before each summon it pays for (A4).

summon_tax(33, 1)


@hook("before_summon", 33)
def arcano_leech(ctx: Ctx, summoner: int, card: int) -> None:
    ctx.at(summoner).give_crystals(ctx.seat, 1)


# 34 Crystal Orb: look at the top card (summon it for 4 energies or put it back), or pay 3
# crystals to discard it (A5).

ORB_ENERGIES = 4
ORB_CRYSTALS = 3


def _cards_left(state: SeasonsState) -> bool:
    return bool(state.draw_pile or state.discard)


@activation(34, can=lambda ctx: _cards_left(ctx.state))
def crystal_orb(ctx: Ctx) -> None:
    ctx.ask("card", "orb", reason="orb")


def _orb_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    if not _cards_left(state):
        return ()
    opts = [option("draw", "look at the top card of the draw pile", kind=pb.DRAW)]
    if state.crystals[ask.seat] >= ORB_CRYSTALS:
        opts.append(option("discard", "pay 3 crystals: discard the top card", kind=pb.DISCARD))
    return tuple(opts)


@choice("orb", _orb_options)
def _orb(ctx: Ctx, ask: Ask, action: Any) -> None:
    if action.kind == pb.DRAW:
        if ctx.draw(1):
            ctx.ask("card", "orb_look", reason="orb-look")
    else:
        ctx.lose_crystals(ORB_CRYSTALS)
        ctx.draw(1)
        ctx.discard_limbo()


def _orb_look_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    limbo = state.limbo[ask.seat]
    if not limbo:
        return ()
    seat = ask.seat
    opts = []
    if len(state.tableau[seat]) < state.gauge[seat] and total(available(state, seat)) >= ORB_ENERGIES:
        opts.append(card_option(limbo[-1], "pay 4 energies: summon"))
    opts.append(NONE)
    return tuple(opts)


@choice("orb_look", _orb_look_options)
def _orb_look(ctx: Ctx, ask: Ask, action: Any) -> None:
    state = ctx.state
    if action.kind == pb.NONE:
        card = state.limbo[ctx.seat].pop()
        state.draw_pile.append(card)
        state.orb_top[ctx.seat] = card
        ctx.log("return", f"puts the card back on top of the draw pile ({card_name(ctx.card)})", reason="orb")
    else:
        ctx.ask("energy", "orb_pay", reason="orb-pay", data=(ORB_ENERGIES,), left=ORB_ENERGIES - 1)


def _spend_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    have = available(state, ask.seat)
    return tuple(energy_option(e, "discard") for e in ENERGIES if have[e])


@choice("orb_pay", _spend_options)
def _orb_pay(ctx: Ctx, ask: Ask, action: Any) -> None:
    (n,) = ask.data  # the card is the limbo's (not kept in the ask: a sampled world re-deals it)
    ctx.spend_energy(action.energy)
    if n > 1:
        ctx.ask("energy", "orb_pay", reason="orb-pay", data=(n - 1,), left=n - 2)
    else:
        ctx.summon_free(ctx.state.limbo[ctx.seat][-1], from_limbo=True)


# 35 Glutton Cauldron: put 1 reserve energy on it; at 7, sacrifice it: the 7 energies and 15
# crystals (A6).

CAULDRON_FULL = 7
CAULDRON_CRYSTALS = 15


@activation(35, can=lambda ctx: total(ctx.state.reserve[ctx.seat]) >= 1)
def glutton_cauldron(ctx: Ctx) -> None:
    ctx.ask("energy", "cauldron", reason="cauldron", data=(ctx.index,))


def _reserve_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    reserve = state.reserve[ask.seat]
    return tuple(energy_option(e, "put") for e in ENERGIES if reserve[e])


@choice("cauldron", _reserve_options)
def _cauldron(ctx: Ctx, ask: Ask, action: Any) -> None:
    (index,) = ask.data
    state, seat, e = ctx.state, ctx.seat, action.energy
    slot = state.tableau[seat][index]
    state.reserve[seat][e] -= 1
    slot.energies[e] += 1
    ctx.log("lose", f"puts 1 {ENERGY_NAMES[e]} on {card_name(35)}", energies=_count(e))
    if total(slot.energies) >= CAULDRON_FULL:
        ctx.remove(index, "sacrifice")
        ctx.gain_energies(list(slot.energies))
        ctx.gain_crystals(CAULDRON_CRYSTALS)


# 36 Vampiric Crown: discard or draw a card; gain energies = its prestige (A7).


@on_summon(36)
def vampiric_crown(ctx: Ctx) -> None:
    ctx.ask("card", "crown", reason="crown")


def _crown_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    opts = [card_option(c, "discard") for c in sorted(set(state.hands[ask.seat]))]
    if _cards_left(state):
        opts.append(DRAW)
    return tuple(opts)


@choice("crown", _crown_options)
def _crown(ctx: Ctx, ask: Ask, action: Any) -> None:
    if action.kind == pb.DRAW:
        drawn = ctx.draw(1)
        for card in drawn:
            ctx.to_hand(card)
        card = drawn[0] if drawn else 0
    else:
        card = action.card
        _discard_from_hand(ctx, card)
    if card:
        ctx.gain_energy_choice(max(0, CARDS[card].prestige))


# 37 Dragon Skull: sacrifice 3 power cards: gain 15 crystals (A8).

SKULL_CARDS = 3
SKULL_CRYSTALS = 15


@activation(37, can=lambda ctx: len(ctx.tableau()) >= SKULL_CARDS)
def dragon_skull(ctx: Ctx) -> None:
    ctx.ask("card", "skull", reason="sacrifice", data=(SKULL_CARDS,), left=SKULL_CARDS - 1)


@choice("skull", tableau_options)
def _skull(ctx: Ctx, ask: Ask, action: Any) -> None:
    (n,) = ask.data
    ctx.remove(action.index, "sacrifice")
    if n > 1:
        ctx.ask("card", "skull", reason="sacrifice", data=(n - 1,), left=n - 2)
    else:
        ctx.gain_crystals(SKULL_CRYSTALS)


# 38 Demon of Argos: each opponent's gauge -1 and each opponent draws 1 card (A9).


@on_summon(38)
def demon_of_argos(ctx: Ctx) -> None:
    for opponent in ctx.opponents():
        other = ctx.at(opponent)
        other.gauge(-1)
        for card in other.draw(1):
            other.to_hand(card)


# 39 Titus Deepgaze: round end, each opponent gives 1 crystal; if one cannot, sacrifice Titus
# (A10).


@hook("round_end", 39)
def titus(ctx: Ctx) -> None:
    broke = False
    for opponent in ctx.opponents():
        if ctx.state.crystals[opponent]:
            ctx.at(opponent).give_crystals(ctx.seat, 1)
        else:
            broke = True
    if broke:
        ctx.sacrifice_self()


# 40 Air Elemental: the energies in the opponents' reserves become air (A11).


@on_summon(40)
def air_elemental(ctx: Ctx) -> None:
    for opponent in ctx.opponents():
        counts = list(ctx.state.reserve[opponent])
        counts[AIR] = 0
        n = total(counts)
        if n:
            other = ctx.at(opponent)
            other.spend(counts, "loses")
            other.gain_energy(AIR, n)


# 41 Thieving Fairies: an opponent activating a card gives you 1 crystal; you gain 1 more (A12).


@hook("activate_any", 41)
def thieving_fairies(ctx: Ctx, activator: int, card: int) -> None:
    if activator != ctx.seat:
        ctx.at(activator).give_crystals(ctx.seat, 1)
        ctx.gain_crystals(1)


# 42 Cursed Treatise of Arus: 2 energies, 10 crystals, gauge +1; sacrificed: discard the
# reserve (A13).


@on_summon(42)
def cursed_treatise(ctx: Ctx) -> None:
    ctx.gain_energy_choice(2)
    ctx.gain_crystals(10)
    ctx.gauge(1)


@hook("leave", 42)
def cursed_treatise_leaves(ctx: Ctx, how: str) -> None:
    if how == "sacrifice":
        ctx.discard_reserve()


# 43 Idol of the Familiar: +1 crystal per familiar you have in play (A14).


@activation(43)
def idol(ctx: Ctx) -> None:
    ctx.gain_crystals(sum(1 for s in ctx.tableau() if CARDS[s.card].familiar))


# 44 Necrotic Kriss: discard (hand) or sacrifice (in play) one of your familiars: 4 energies
# (A15).


def _kriss_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    seat = ask.seat
    opts = [card_option(c, "discard") for c in sorted(set(state.hands[seat])) if CARDS[c].familiar]
    opts.extend(
        tableau_option(i, s.card, "sacrifice") for i, s in enumerate(state.tableau[seat]) if CARDS[s.card].familiar
    )
    return tuple(opts)


def _kriss_can(ctx: Ctx) -> bool:
    return bool(_kriss_options(ctx.state, Ask(ctx.seat, "card", "kriss")))


@activation(44, can=_kriss_can)
def necrotic_kriss(ctx: Ctx) -> None:
    ctx.ask("card", "kriss", reason="kriss")


@choice("kriss", _kriss_options)
def _kriss(ctx: Ctx, ask: Ask, action: Any) -> None:
    if action.kind == pb.CARD:
        _discard_from_hand(ctx, action.card)
    else:
        ctx.remove(action.index, "sacrifice")
    ctx.gain_energy_choice(4)


# 45 Lantern of Xidit: end of game, +3 crystals per energy in your reserve (A16).


@end_of_game(45)
def lantern(state: SeasonsState, seat: int) -> int:
    return 3 * total(state.reserve[seat])


# 46 Sealed Chest of Urm: end of game, +20 if all your cards in play are magic items (A16).


@end_of_game(46)
def sealed_chest(state: SeasonsState, seat: int) -> int:
    return 20 if all(CARDS[s.card].item for s in state.tableau[seat]) else 0


# 47 Mirror of the Seasons: X crystals: X identical energies become X of another type (A17).


@activation(47, can=lambda ctx: ctx.state.crystals[ctx.seat] >= 1 and total(ctx.state.reserve[ctx.seat]) >= 1)
def mirror(ctx: Ctx) -> None:
    ctx.ask("energy", "mirror_from", reason="mirror-from")


def _mirror_from_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    if state.crystals[ask.seat] < 1:
        return ()
    return tuple(energy_option(e, "give") for e in ENERGIES if state.reserve[ask.seat][e])


@choice("mirror_from", _mirror_from_options)
def _mirror_from(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.ask("energy", "mirror_to", reason="mirror-to", data=(action.energy,))


def _mirror_to_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    (source,) = ask.data
    return tuple(energy_option(e, "get") for e in ENERGIES if e != source)


def _convert(ctx: Ctx, source: int, target: int) -> None:
    ctx.lose_crystals(1)
    reserve = ctx.state.reserve[ctx.seat]
    reserve[source] -= 1
    reserve[target] += 1
    ctx.log(
        "lose",
        f"turns 1 {ENERGY_NAMES[source]} into 1 {ENERGY_NAMES[target]} ({card_name(47)})",
        energies=_count(source),
    )
    ctx.log("gain", f"gains 1 {ENERGY_NAMES[target]} ({card_name(47)})", energies=_count(target))
    ctx.ask("energy", "mirror_more", reason="mirror-more", data=(source, target))


@choice("mirror_to", _mirror_to_options)
def _mirror_to(ctx: Ctx, ask: Ask, action: Any) -> None:
    (source,) = ask.data
    _convert(ctx, source, action.energy)


def _mirror_more_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    source, _ = ask.data
    if state.crystals[ask.seat] < 1 or not state.reserve[ask.seat][source]:
        return ()
    return (energy_option(source, "convert one more"), STOP)


@choice("mirror_more", _mirror_more_options)
def _mirror_more(ctx: Ctx, ask: Ask, action: Any) -> None:
    if action.kind != pb.STOP:
        _convert(ctx, *ask.data)


# 48 Pendant of Ragnor: 1 energy per other magic item you have in play (A18).


@on_summon(48)
def pendant(ctx: Ctx) -> None:
    others = sum(1 for i, s in enumerate(ctx.tableau()) if CARDS[s.card].item and i != ctx.index)
    ctx.gain_energy_choice(others)


# 49 Sid Nightshade: if you have the most crystals, each opponent gives you 5 (A19).


@on_summon(49)
def sid(ctx: Ctx) -> None:
    mine = ctx.state.crystals[ctx.seat]
    opponents = ctx.opponents()
    if all(mine > ctx.state.crystals[o] for o in opponents):
        for opponent in opponents:
            ctx.at(opponent).give_crystals(ctx.seat, 5)


# 50 Damned Soul of Onys: 10 crystals and 1 water; discard 1 water: pass it to the left; each
# round end its owner loses 3 crystals (A20).


@on_summon(50)
def onys(ctx: Ctx) -> None:
    ctx.gain_crystals(10)
    ctx.gain_energy(WATER)


@activation(50, can=lambda ctx: ctx.available()[WATER] >= 1)
def onys_pass(ctx: Ctx) -> None:
    state = ctx.state
    ctx.spend_energy(WATER)
    left = (ctx.seat + 1) % ctx.players
    slot = state.tableau[ctx.seat].pop(ctx.index)
    slot.used = False
    state.tableau[left].append(slot)
    ctx.index = -1
    ctx.log("give", f"passes {card_name(50)} to seat {left}", target=left, reason="onys")


@hook("round_end", 50)
def onys_curse(ctx: Ctx) -> None:
    ctx.lose_crystals(3)
