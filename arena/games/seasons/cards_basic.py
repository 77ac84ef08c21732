"""The effects of the basic power cards 1–30 (DATA §1.3), written with the card framework
(``framework.py``; see ``CARDS-API.md``). Each card: one small function registered by number."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.engine import Option
from arena.games.seasons.framework import (
    CARDS,
    ENERGIES,
    ENERGY_NAMES,
    NONE,
    Ask,
    Ctx,
    Payment,
    SeasonsState,
    activation,
    choice,
    cost_modifier,
    end_of_game,
    energy_option,
    hand_options,
    hook,
    limbo_options,
    no_effect,
    on_summon,
    opponent_options,
    option,
    reserve_cap,
    tableau_options,
    total,
)
from arena.games.v1 import seasons_pb2 as pb

# 1 Amulet of Air: summoning gauge +2.


@on_summon(1)
def amulet_of_air(ctx: Ctx) -> None:
    ctx.gauge(2)


# 2 Amulet of Fire: draw 4 power cards, keep 1, discard 3.


@on_summon(2)
def amulet_of_fire(ctx: Ctx) -> None:
    if ctx.draw(4):
        ctx.ask("card", "keep_one", reason="keep-one")


# 3 Amulet of Earth: gain 9 crystals.


@on_summon(3)
def amulet_of_earth(ctx: Ctx) -> None:
    ctx.gain_crystals(9)


# 4 Amulet of Water: 4 energies of your choice onto this card (ruling 10).


@on_summon(4)
def amulet_of_water(ctx: Ctx) -> None:
    ctx.ask("energy", "store_energy", reason="store", data=(4, ctx.index), left=3)


def _store_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    _, index = ask.data
    slots = state.tableau[ask.seat]
    if index >= len(slots) or slots[index].card != 4:
        return ()
    return tuple(energy_option(e, "store") for e in ENERGIES)


@choice("store_energy", _store_options)
def _store(ctx: Ctx, ask: Ask, action: Any) -> None:
    n, index = ask.data
    slot = ctx.state.tableau[ctx.seat][index]
    slot.energies[action.energy] += 1
    counts = [0] * 5
    counts[action.energy] = 1
    ctx.log("gain", f"stores 1 {ENERGY_NAMES[action.energy]} on Amulet of Water (#4)", energies=counts)
    if n > 1:
        ctx.ask("energy", "store_energy", reason="store", data=(n - 1, index), left=n - 2)


# 5 Balance of Ishtar: discard 4 identical energies -> 12 crystals (ruling 19).

BALANCE_ENERGIES = 4
BALANCE_CRYSTALS = 12


@activation(5, can=lambda ctx: max(ctx.available()[1:]) >= BALANCE_ENERGIES)
def balance_of_ishtar(ctx: Ctx) -> None:
    ctx.ask("energy", "balance", reason="spend")


def _balance_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    from arena.games.seasons.framework import available

    have = available(state, ask.seat)
    return tuple(energy_option(e, "discard 4") for e in ENERGIES if have[e] >= BALANCE_ENERGIES)


@choice("balance", _balance_options)
def _balance(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.spend_energy(action.energy, BALANCE_ENERGIES)
    ctx.gain_crystals(BALANCE_CRYSTALS)


# 6 Staff of Spring: +3 crystals each time you summon a power card (ruling 11).


@hook("summon_any", 6)
def staff_of_spring(ctx: Ctx, summoner: int, card: int) -> None:
    if summoner == ctx.seat:
        ctx.gain_crystals(3)


# 7 Temporal Boots: move the season token 1-3 months forward or back (ruling 13).


@on_summon(7)
def temporal_boots(ctx: Ctx) -> None:
    ctx.ask("move", "boots", reason="move-season")


def _boots_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    return tuple(
        option(f"move:{d:+d}", f"move the season token {d:+d}", kind=pb.MOVE, amount=d)
        for d in (-3, -2, -1, 1, 2, 3)
        if 1 <= state.month + d <= 12
    )


@choice("boots", _boots_options)
def _boots(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.game.move_season(ctx.state, action.amount, 7)


# 8 Purse of Io: +1 crystal per energy you transmute.


@hook("transmute", 8)
def purse_of_io(ctx: Ctx, energy: int, crystals: int) -> None:
    ctx.gain_crystals(1)


# 9 Divine Chalice: draw 4, you may summon 1 of them for free, discard the rest (ruling 16).


@on_summon(9)
def divine_chalice(ctx: Ctx) -> None:
    if ctx.draw(4):
        if ctx.room():
            ctx.ask("card", "chalice", reason="summon-free")
        else:
            ctx.discard_limbo()


def _chalice_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    cards = limbo_options(state, ask)
    return (*cards, NONE) if cards else ()


@choice("chalice", _chalice_options)
def _chalice(ctx: Ctx, ask: Ask, action: Any) -> None:
    if action.kind == pb.NONE:
        ctx.discard_limbo()
        return
    ctx.state.limbo[ctx.seat].remove(action.card)
    ctx.discard_limbo()  # first: the summoned card's own effect may draw (Amulet of Fire #2)
    ctx.game.put_in_play(ctx.state, ctx.seat, action.card, None, 9)


# 10 Syllas the Faithful: each opponent sacrifices 1 power card (off-turn choices).


@on_summon(10)
def syllas(ctx: Ctx) -> None:
    for opponent in ctx.opponents():
        ctx.ask("card", "sacrifice", seat=opponent, reason="sacrifice")


@choice("sacrifice", tableau_options)
def _sacrifice(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.at(ctx.seat).remove(action.index, "sacrifice")


# 11 Figrim the Avaricious: at each change of season each opponent gives you 1 crystal.


@hook("season_change", 11)
def figrim(ctx: Ctx) -> None:
    for opponent in ctx.opponents():
        ctx.at(opponent).give_crystals(ctx.seat, 1)


# 12 Naria the Prophetess: draw (players) cards, keep 1, give 1 to each opponent.


@on_summon(12)
def naria(ctx: Ctx) -> None:
    if ctx.draw(ctx.players):
        ctx.ask("card", "naria_keep", reason="keep-one")


@choice("naria_keep", limbo_options)
def _naria_keep(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.to_hand(action.card)
    for opponent in ctx.opponents():
        ctx.ask("card", "naria_give", reason="give", data=(opponent,))


@choice("naria_give", limbo_options)
def _naria_give(ctx: Ctx, ask: Ask, action: Any) -> None:
    (to,) = ask.data
    card = action.card
    ctx.state.limbo[ctx.seat].remove(card)
    ctx.state.hands[to].append(card)
    ctx.state.received[ctx.seat][to].append(card)
    ctx.log("give", f"gives {CARDS[card].name} (#{card}) to seat {to}", to=[ctx.seat, to], card=card, target=to)
    others = [s for s in range(ctx.players) if s not in (ctx.seat, to)]
    if others:
        ctx.log("give", f"gives a card to seat {to}", to=others, target=to)


# 13 Wondrous Chest: end of round, 4+ energies in reserve -> +3 crystals.


@hook("round_end", 13)
def wondrous_chest(ctx: Ctx) -> None:
    if total(ctx.state.reserve[ctx.seat]) >= 4:
        ctx.gain_crystals(3)


# 14 Beggar's Horn: end of round, at most 1 energy in reserve -> gain 1 energy (ruling 14).


@hook("round_end", 14)
def beggars_horn(ctx: Ctx) -> None:
    if total(ctx.state.reserve[ctx.seat]) <= 1:
        ctx.gain_energy_choice(1)


# 15 Die of Malice: at the start of your turn, reroll your die, use the new face, +2 crystals
# (ruling 12).


@hook("turn_start", 15)
def die_of_malice(ctx: Ctx) -> None:
    slot = ctx.state.tableau[ctx.seat][ctx.index]
    if not slot.used and not any(a.handler == "malice" for a in ctx.state.fresh):
        ctx.ask("reroll", "malice", reason="reroll", data=(ctx.index,))


def _malice_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    return (
        option("reroll", "reroll your season die (+2 crystals)", kind=pb.REROLL),
        option("keep", "keep your season die", kind=pb.KEEP),
    )


@choice("malice", _malice_options)
def _malice(ctx: Ctx, ask: Ask, action: Any) -> None:
    if action.kind != pb.REROLL:
        return
    from arena.games.seasons.framework import DICE

    state, seat = ctx.state, ctx.seat
    (index,) = ask.data
    state.tableau[seat][index].used = True
    old = state.dice[seat]
    assert old is not None
    face = DICE[old.season][old.die - 1][state.chance.roll(6, "reroll") - 1]
    state.dice[seat] = face
    ctx.card = 15
    ctx.log(
        "activate", f"activates Die of Malice (#15): rerolls die {old.die}, face {face.face}", card=15, amount=index
    )
    ctx.gain_crystals(2)
    # an activated card (DATA 1.3 timing A): Thieving Fairies #41 and other "activate_any" hooks
    state.activations += 1
    slot = state.tableau[seat][index]
    ctx.game.run_hooks(state, "activate_any", ctx.game.order(state, seat), seat, 15, skip=slot)


# 16 Kairn the Destroyer: discard 1 energy: each opponent loses 4 crystals.


@activation(16, can=lambda ctx: total(ctx.available()) >= 1)
def kairn(ctx: Ctx) -> None:
    ctx.ask("energy", "kairn", reason="spend")


def _spend_options(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    from arena.games.seasons.framework import available

    have = available(state, ask.seat)
    return tuple(energy_option(e, "discard") for e in ENERGIES if have[e])


@choice("kairn", _spend_options)
def _kairn(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.spend_energy(action.energy)
    for opponent in ctx.opponents():
        ctx.at(opponent).lose_crystals(4)


# 17 Amsug Longneck: every seat (the owner first) returns 1 of its magic items to hand.


@on_summon(17)
def amsug(ctx: Ctx) -> None:
    for seat in [ctx.seat, *ctx.opponents()]:
        ctx.ask("card", "amsug", seat=seat, reason="return-item")


def _items(state: SeasonsState, ask: Ask) -> Sequence[Option]:
    return tableau_options(state, ask, items_only=True)


@choice("amsug", _items)
def _amsug(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.remove(action.index, "return")


# 18 Bespelled Grimoire: on summon gain 2 energies; reserve capacity 10.

reserve_cap(18, 10)


@on_summon(18)
def grimoire(ctx: Ctx) -> None:
    ctx.gain_energy_choice(2)


# 19 Ragfield's Helm: end of game, +20 if strictly more cards in play than each opponent.


@end_of_game(19)
def ragfields_helm(state: SeasonsState, seat: int) -> int:
    mine = len(state.tableau[seat])
    return 20 if all(mine > len(state.tableau[s]) for s in range(state.players) if s != seat) else 0


# 20 Hand of Fortune: your summoning costs reduced by 1 energy (never below 1 energy).


@cost_modifier(20)
def hand_of_fortune(state: SeasonsState, seat: int, card: int, pays: list[Payment]) -> list[Payment]:
    out: list[Payment] = []
    for pay in pays:
        if total(pay.energies) < 2:
            out.append(pay)
            continue
        for e in ENERGIES:
            if pay.energies[e]:
                energies = list(pay.energies)
                energies[e] -= 1
                omitted = tuple(sorted((*pay.omitted, e)))
                out.append(Payment(tuple(energies), pay.crystals, omitted))
    return out


# 21 Lewis Greyface: choose an opponent; gain the same energies as in their reserve.


@on_summon(21)
def lewis(ctx: Ctx) -> None:
    ctx.ask("seat", "lewis", reason="copy-reserve")


@choice("lewis", opponent_options)
def _lewis(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.gain_energies(list(ctx.state.reserve[action.seat]))


# 22 Runic Cube of Eolis: no effect (30 prestige).

no_effect(22)


# 23 Potion of Power: sacrifice it: draw 1 power card, summoning gauge +2.


@activation(23)
def potion_of_power(ctx: Ctx) -> None:
    ctx.sacrifice_self()
    for card in ctx.draw(1):
        ctx.to_hand(card)
    ctx.gauge(2)


# 24 Potion of Dreams: sacrifice it and discard all your energy: summon a card from hand free.


def _dreams_can(ctx: Ctx) -> bool:
    state = ctx.state
    return bool(state.hands[ctx.seat]) and len(state.tableau[ctx.seat]) - 1 < state.gauge[ctx.seat]


@activation(24, can=_dreams_can)
def potion_of_dreams(ctx: Ctx) -> None:
    ctx.sacrifice_self()
    ctx.discard_reserve()
    ctx.ask("card", "dreams", reason="summon-free")


@choice("dreams", hand_options)
def _dreams(ctx: Ctx, ask: Ask, action: Any) -> None:
    ctx.summon_free(action.card)


# 25 Potion of Knowledge: sacrifice it: gain 5 energies (ruling 14).


@activation(25)
def potion_of_knowledge(ctx: Ctx) -> None:
    ctx.sacrifice_self()
    ctx.gain_energy_choice(5)


# 26 Potion of Life: sacrifice it: transmute each energy in your reserve into 4 crystals. A
# transmutation (DATA: "transmute each energy"; Source A runs it as one): the transmute bonus's
# +1 and Purse of Io #8 count for each energy.

LIFE_RATE = 4


@activation(26, can=lambda ctx: total(ctx.state.reserve[ctx.seat]) >= 1)
def potion_of_life(ctx: Ctx) -> None:
    ctx.sacrifice_self()
    state, seat = ctx.state, ctx.seat
    counts = list(state.reserve[seat])
    rate = LIFE_RATE + state.transmute_bonus
    ctx.spend(counts, "transmutes")
    state.crystals[seat] += rate * total(counts)
    ctx.log(
        "transmute",
        f"transmutes {total(counts)} energies into {rate * total(counts)} crystals (Potion of Life (#26))",
        energies=counts,
        crystals=rate * total(counts),
    )
    for energy in ENERGIES:
        for _ in range(counts[energy]):
            ctx.game.run_hooks(state, "transmute", [seat], energy, rate)


# 27 Hourglass of Time: each change of season, gain 1 energy of your choice.


@hook("season_change", 27)
def hourglass(ctx: Ctx) -> None:
    ctx.gain_energy_choice(1)


# 28 Scepter of Greatness: +3 crystals per other magic item you have in play.


@on_summon(28)
def scepter(ctx: Ctx) -> None:
    others = sum(1 for i, s in enumerate(ctx.tableau()) if CARDS[s.card].item and i != ctx.index)
    ctx.gain_crystals(3 * others)


# 29 Olaf's Blessed Statue: gain 20 crystals.


@on_summon(29)
def olaf(ctx: Ctx) -> None:
    ctx.gain_crystals(20)


# 30 Yjang's Forgotten Vase: each time you summon a power card, gain 1 energy (ruling 11, 14).


@hook("summon_any", 30)
def yjang(ctx: Ctx, summoner: int, card: int) -> None:
    if summoner == ctx.seat:
        ctx.gain_energy_choice(1)
