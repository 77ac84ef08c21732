"""Open Season determinization: a world consistent with what one seat knows.

Hidden from a seat (ruling 3 of :mod:`arena.games.openseason.game`): the order of the deck
(apart from the cards it put back on top itself, which stay where it knows they are), the
cards another seat is looking at (a peek, draw4 or share in progress, with the cards a share
has set aside for its recipients), during the Expert
set-up, the Bonus faces the others chose so far, and which accolade card another seat put back
on the deck face down with the swap face (ruling 17). Everything else (stocks, accolades, walls
with their face-down cards, the inn, the hand, tokens) is public or deducible from the public log
and is kept.

A swapped accolade card: the seat knows that one card of the swapper's remembered accolades went
back. The world re-draws it uniformly among those cards, keeps the rest in the accolades, and
adds it to the unseen cards dealt below; when every copy of a card is seen elsewhere (the
``unseen`` field counts it down to zero), the card the others can tell went back is assigned to
one of the swappers holding it instead. While the swapper is still choosing the deck card it
takes, the card it put back stays on top of the deck, where it knows it is.

The unseen cards (the deck's unknown places plus another seat's peeked cards and the cards it
kept from a draw4 that have not landed yet) are dealt
uniformly into those places with ``Chance.deal``; another seat's deck knowledge is re-pointed
at the cards the world puts there. Partial Bonus-face choices are re-drawn uniformly over the
legal ones (distinct tiles, one face each, Horn-only faces excluded on the Shield).

``world_from_observation`` builds the same from the observation alone, which names every card
but the unseen ones (face-down wall cards included, ruling 3), so it is as informed as
``sample_world``: another seat's knowledge of the deck's top is kept as ``sample_world`` keeps
it, the places it knows (``SeatView.known_places``, public since version 6) on the world's
cards. A returned accolade card seen elsewhere in every copy shows as one card too many in the
observation's count: it is the one that went back.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import CHANCE_SEAT
from arena.games.v1 import openseason_pb2 as pb

if TYPE_CHECKING:
    from arena.games.openseason.game import OpenSeason, SeasonState


def sample_world(game: OpenSeason, state: SeasonState, viewer: int, chance: Chance) -> SeasonState:
    from arena.games.openseason.game import EMPTY

    world = game.copy_for(state, viewer, chance)
    mine = world.known[viewer]
    places = [i for i in range(len(world.deck)) if i not in mine]
    other = viewer != world.active
    gifts = [s for s, c in enumerate(world.gifts) if c != EMPTY] if other else []
    peek = list(world.peek) if other else []
    drawn = [k for k, t in enumerate(world.tasks) if len(t) > 2] if other else []
    cards = [world.deck[i] for i in places] + peek + [world.gifts[s] for s in gifts]
    cards += [int(world.tasks[k][1]) for k in drawn]  # type: ignore[call-overload]
    world.deck = list(world.deck)
    world.gifts = list(world.gifts)
    world.tasks = list(world.tasks)
    world.accolades = [list(a) for a in world.accolades]
    world.returned = list(world.returned)
    # What the seat's observation says: each swapper's remembered accolades, and the unseen
    # cards less the returned ones (never below zero: those below are the clipped ones).
    holders = {s: sorted([*world.accolades[s], c]) for s, c in enumerate(world.returned) if c != EMPTY and s != viewer}
    base = Counter(cards)
    base.subtract(world.returned[s] for s in holders)
    clipped = Counter({c: -k for c, k in base.items() if k < 0})
    base = +base
    top = _swap_window(world, viewer, places, holders)
    chosen = _redraw_returned(holders, clipped, {world.active} if top >= 0 else set(), chance)
    cards = _apply_returned(world, holders, chosen, base)
    if top >= 0:
        places = _pin_top(world, chosen[world.active][0], top, places, cards)
    _deal_unseen(world, cards, places, len(peek) if other else -1, gifts, drawn, chance)
    for seat, known in enumerate(world.known):
        if seat != viewer:
            world.known[seat] = {i: world.deck[i] for i in known}
    if world.expert and not world.revealed:
        _draw_faces(world, viewer, sum(1 for f in world.faces[viewer] if f), chance)
    game.refresh(world)
    return world


def _swap_window(world: SeasonState, viewer: int, places: list[int], holders: dict[int, list[int]]) -> int:
    """The deck's top index while another seat, having put an accolade card back there, chooses
    the deck card it takes (it knows its card is on top; the viewer does not); else -1."""
    ask, active, top = world.ask, world.active, len(world.deck) - 1
    if ask is None or ask.kind != "swap" or ask.data[:1] != ("in",) or active == viewer:
        return -1
    return top if active in holders and top in places else -1


def _redraw_returned(
    holders: dict[int, list[int]], clipped: Counter, keep: set[int], chance: Chance
) -> dict[int, tuple[int, bool]]:
    """For each swapper (``holders``: its remembered accolades), the card it put back and
    whether it is one of the ``clipped`` cards (seen elsewhere in every copy, so not among the
    unseen cards): the clipped cards go to swappers holding them (not those in ``keep``),
    uniformly over the ways to do so; every other swapper's card is one of its remembered
    accolade cards, uniformly."""
    out: dict[int, tuple[int, bool]] = {}
    need = sorted(clipped.elements())
    if need:
        ways = []
        for free in (sorted(set(holders) - keep), sorted(holders)):  # keep is only a preference
            for seats in itertools.permutations(free, len(need)):
                if all(c in holders[s] for c, s in zip(need, seats, strict=True)):
                    ways.append(seats)
            if ways:
                break
        seats = chance.pick(ways, "world")
        out = {s: (c, True) for c, s in zip(need, seats, strict=True)}
    for s in sorted(holders):
        if s not in out:
            out[s] = (chance.pick(holders[s], "world"), False)
    return out


def _apply_returned(
    world: SeasonState, holders: dict[int, list[int]], chosen: dict[int, tuple[int, bool]], base: Counter
) -> list[int]:
    """Set each swapper's accolades and returned card; the unseen cards to deal: ``base`` plus
    the returned cards that are not clipped."""
    cards = Counter(base)
    for s, (card, clip) in chosen.items():
        kept = list(holders[s])
        kept.remove(card)
        world.accolades[s] = kept
        world.returned[s] = card
        if not clip:
            cards[card] += 1
    return sorted(cards.elements())


def _pin_top(world: SeasonState, card: int, top: int, places: list[int], cards: list[int]) -> list[int]:
    """Put ``card`` on the deck's ``top`` (taken out of the ``cards`` to deal); the places left."""
    cards.remove(card)
    world.deck[top] = card
    return [i for i in places if i != top]


def _deal_unseen(
    world: SeasonState,
    cards: list[int],
    places: list[int],
    peek: int,
    gifts: list[int],
    drawn: list[int],
    chance: Chance,
) -> None:
    """Deal the cards a seat has not seen, uniformly: into the deck's ``places``, ``peek`` cards
    another seat is looking at (-1: the peek is kept), the share ``gifts`` set aside for those
    seats, and the cards of the pending ``drawn`` stock tasks (their indexes in ``tasks``)."""
    sizes = [len(places), max(peek, 0), len(gifts), len(drawn)]
    # one shuffle: each part is a uniformly random ordered subset
    deck_part, peek_part, gift_part, drawn_part = chance.deal(sorted(cards), sizes, "world")
    for i, card in zip(places, deck_part, strict=True):
        world.deck[i] = card
    if peek >= 0:
        world.peek = peek_part
        for s, card in zip(gifts, gift_part, strict=True):
            world.gifts[s] = card
    for k, card in zip(drawn, drawn_part, strict=True):
        world.tasks[k] = ("stock", card, "drawn")


def _draw_faces(world: SeasonState, viewer: int, k: int, chance: Chance) -> None:
    """The others' first ``k`` Bonus faces, re-drawn uniformly over the legal ones."""
    from arena.games.openseason.game import HORN_ONLY, TILES

    for seat in range(world.players):
        if seat == viewer:
            continue
        tiles = chance.shuffled(range(len(TILES)), "world")[:k]
        faces = []
        for t in tiles:
            options = [f for f in TILES[t] if not (world.side == "shield" and f in HORN_ONLY)]
            faces.append(chance.pick(options, "world"))
        world.faces[seat] = faces + [""] * (4 - k)


def _cards(names: object) -> list[int]:
    from arena.games.openseason.game import CARD_OF

    return [CARD_OF[n] for n in names]  # type: ignore[attr-defined]


def world_from_observation(
    game: OpenSeason, config: MatchConfig, viewer: int, obs: pb.Observation, chance: Chance
) -> SeasonState:
    from arena.games.openseason.game import ATTR_OF, BOARDS, CARD_OF, DECK, EMPTY, TOKENS, Ask, SeasonState

    n = config.players
    w = SeasonState(config=config, chance=chance.fork())
    w.side = "horn" if obs.side == pb.HORN else "shield"
    w.expert = obs.expert
    board = BOARDS[w.side]
    seats = obs.seats
    w.inn, w.hand = _cards(obs.inn), _cards(obs.hand)
    w.kept = [CARD_OF[v.kept] if v.kept else EMPTY for v in seats]
    w.stock = [_cards(v.stock) for v in seats]
    w.accolades = [_cards(v.accolades) for v in seats]
    w.wall = [[CARD_OF[x.card] if x.card else EMPTY for x in v.wall] for v in seats]
    w.down = [[x.face_down for x in v.wall] for v in seats]
    w.trophies_on = [[x.trophies for x in v.wall] for v in seats]
    w.wild_on = [[ATTR_OF[x.wild] if x.wild else -1 for x in v.wall] for v in seats]
    w.wild_acc = [[(CARD_OF[c], ATTR_OF[a]) for c, _, a in (x.partition(":") for x in v.wild_accolades)] for v in seats]
    w.trophies = [v.trophies for v in seats]
    w.wilds = [v.wilds for v in seats]
    w.series = [v.series_tile for v in seats]
    w.penalty = [v.penalty for v in seats]
    w.rewarded = [bool(board.reward) and all(x.filled for x in (v.wall[j] for j in board.reward)) for v in seats]
    w.activated = [list(v.activated) for v in seats]
    w.turns = [v.turns for v in seats]
    left = {"trophies": obs.trophy_supply, "wilds": obs.wild_supply}
    left["penalties"] = TOKENS["penalties"] - sum(w.penalty)
    left["series_tiles"] = TOKENS["series_tiles"] - sum(w.series)
    w.pool = {k: left[k] for k in TOKENS}
    w.first, w.active, w.round = obs.first_player, obs.active, obs.round
    w.triggered = list(obs.triggered)
    w.raided, w.removed = _cards(obs.raided), _cards(obs.removed)
    w.revealed = obs.step != pb.FACES
    w.faces = [list(v.faces) if w.expert else [""] * 4 for v in seats]
    w.used = [list(v.used) if w.expert else [False] * 4 for v in seats]
    w.infinity = [v.infinity for v in seats]
    w.returned = [CARD_OF[v.returned_card] if v.returned_card else EMPTY for v in seats]
    holders = {s: list(w.accolades[s]) for s, v in enumerate(seats) if v.returned and s != viewer}
    # The turn's pending work (next first in the observation; a stack here).
    drawn = []
    for k, name in enumerate(reversed(obs.tasks)):
        kind, _, arg = name.partition(":")
        if kind == "stock":
            arg, _, kept = arg.partition(":")
            if not arg:
                drawn.append(k)
            if kept:  # a card the viewer kept from draw4: the others do not see it
                w.tasks.append(("stock", CARD_OF[arg], "drawn"))
            else:
                w.tasks.append(("stock", CARD_OF[arg] if arg else EMPTY))
        else:
            w.tasks.append((kind, arg) if arg else (kind,))
    kind, _, step = obs.asking.partition(":")
    card = CARD_OF[obs.ask_card] if obs.ask_card else EMPTY
    if kind == "reply":
        w.ask = Ask(obs.victim, kind, (card, obs.thief))
    elif kind == "face" or step == "end":
        w.ask = Ask(CHANCE_SEAT, kind, (step,) if step else ())
    elif kind == "share":
        w.ask = Ask(w.active, kind, (obs.share_to,))
    elif kind:
        w.ask = Ask(w.active, kind, ((step, card) if step == "at" else (step,)) if step else ())
    # Cards: the seat's own knowledge of the deck's top is kept; the rest is dealt.
    deck_size = obs.deck_size
    w.deck = [EMPTY] * deck_size
    w.known = [{} for _ in range(n)]
    for k, name in enumerate(obs.known_deck):
        if name:
            w.known[viewer][deck_size - 1 - k] = w.deck[deck_size - 1 - k] = CARD_OF[name]
    places = [i for i in range(deck_size) if w.deck[i] == EMPTY]
    other = viewer != w.active
    sharing = kind == "share"
    w.gifts = [CARD_OF[g] if g else EMPTY for g in obs.gifts]
    gifts: list[int] = []
    if sharing and other:  # the seats served so far: the active one first, then clockwise
        w.gifts = [EMPTY] * n
        s = w.active
        while s != obs.share_to:
            gifts.append(s)
            s = (s + 1) % n
    w.peek = _cards(obs.peeked)
    base = Counter(_cards(obs.unseen))
    shown = Counter(base)
    for cards in (w.inn, w.hand, w.kept, w.raided, w.removed, w.peek, w.gifts, w.deck):
        shown.update(cards)
    for s in range(n):  # another swapper's accolades as remembered: one of them went back
        shown.update(w.stock[s] + w.accolades[s] + w.wall[s])
    shown.update(int(t[1]) for t in w.tasks if t[0] == "stock")  # type: ignore[call-overload]
    shown.update([card])
    del shown[EMPTY]
    # Every card is named once (face-down wall cards too, ruling 3), but a returned accolade card
    # seen elsewhere in every copy: `unseen` could not count it down (none of it is left there),
    # so it shows once too often, in a swapper's remembered accolades.
    extra = shown - Counter(DECK)
    clipped: Counter[int] = Counter()
    for c, k in extra.items():
        if not base[c]:
            clipped[c] = min(k, sum(c in held for held in holders.values()))
    clipped = +clipped
    top = _swap_window(w, viewer, places, holders)
    chosen = _redraw_returned(holders, clipped, {w.active} if top >= 0 else set(), chance)
    unseen = _apply_returned(w, holders, chosen, base)
    if top >= 0:
        places = _pin_top(w, chosen[w.active][0], top, places, unseen)
        w.known[w.active][top] = w.deck[top]
    peek = len(unseen) - len(places) - len(gifts) - len(drawn) if other else -1
    _deal_unseen(w, unseen, places, peek, gifts, drawn, chance)
    for s, view in enumerate(obs.seats):  # what the others know of the deck, on the world's cards
        if s != viewer:
            for place in view.known_places:
                w.known[s][deck_size - 1 - place] = w.deck[deck_size - 1 - place]
    if w.expert and not w.revealed:
        w.faces[viewer] = list(obs.my_faces) + [""] * (4 - len(obs.my_faces))
        _draw_faces(w, viewer, len(obs.my_faces), chance)
    game.refresh(w)
    return w
