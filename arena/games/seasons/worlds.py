"""Seasons determinization: a world consistent with what one seat knows.

Hidden from a seat: the other seats' hands, libraries, drawn-but-undecided cards (limbo), draft
packets and draft picks, the draw pile (its order and, with the rest, its content) and the
drawn cards other seats discarded face down (ruling 23: ``discard_seen``). Their multiset is
known (the cards of the mode minus everything the seat sees: its own cards, every tableau, the
discard pile cards it saw go there).

During the draft and the library phase the seat also knows the packets it held and its picks
(``SeasonsState.sightings``, which its observation carries as ``sightings``): a packet it
passed on travels left, one card fewer per seat, and comes back after a round of the table. So
the cards that left a packet between two of its sightings were picked by the seats that held it
meanwhile (one each), and the cards it passed on since its last sighting are now picks of the
next seats or the packet a seat holds now. A world deals each such known set over exactly those
places (uniformly), and deals the rest (the picks made from packets before the seat first saw
them, and the draw pile) uniformly from the cards left (``Chance.deal``, constructive).

After the draft (ruling 22) a world first places the cards the seat knows another seat still
holds, then deals the rest uniformly (``Chance.deal``): in apprentice mode the other seats' prebuilt
decks (which seat got which deck is secret, so an assignment of the decks the seat does not
hold is picked uniformly among those that fit; each deck's cards not summoned or discarded
since stay with its seat, Library II/III first); cards the seat gave with Naria #12 or saw
returned to a hand (Amsug #17), unless that seat summoned or discarded such a card since (a
card so played may have been another copy: counting it against what is known only forgets
knowledge, so a world never contradicts the seat; one its deck also holds counts against the
hand's copy, as the copy left may be the deck's, in a library); the card the seat put back on
top of the draw pile with Crystal Orb #34, until a card is drawn. Not used: what the seat
learnt in the draft once the library phase is over (the picks may since be played or mixed
with draws).

``world_from_observation`` builds a world from the observation alone (a served searching bot),
as informed as ``sample_world``: the same places dealt (``hidden_places``); in the draft and the
library phase the same deal (``deal_draft`` reads the state's ``sightings``, which the
observation carries: with the same chance the two build the same world, log and step count
aside); after the draft the same known cards placed (``_deal_known`` reads the state's
``played``, ``received`` and ``orb_top``, which the observation carries).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from arena.chance import Chance
from arena.games.seasons.framework import (
    APPRENTICE_DECKS,
    CARDS,
    COPIES,
    DICE,
    PUBLIC,
    UNSEEN,
    Ask,
    Face,
    SeasonsState,
)
from arena.games.seasons.framework import Slot as InPlay
from arena.games.v1 import seasons_pb2 as pb

if TYPE_CHECKING:
    from arena.config import MatchConfig
    from arena.games.seasons.game import Seasons

Slot = tuple[str, int]  # ("pick", seat) or ("packet", seat)


def draft_knowledge(state: SeasonsState, viewer: int) -> tuple[list[tuple[list[int], list[Slot]]], list[Slot]]:
    """What the viewer knows of the draft: (known segments: cards and the slots they fill;
    the slots filled from the unseen cards). Slots name other seats' picks and packets.

    Read from ``state.sightings[viewer]`` (each packet it picked from and its pick, in order:
    what the observation's ``sightings`` carry, so a world from the observation knows the
    same) and the packet it holds now. A world may lack the sightings of other seats (it is
    not the viewer's to know them) or have only the later ones (recorded while the world was
    played on): the rounds not recorded count as unseen."""
    n = state.players
    drafting = state.phase == pb.PHASE_DRAFT
    sightings = state.sightings[viewer]
    done = len(state.drafted[viewer])  # rounds picked (the library phase: all of them)
    first = done - len(sightings)  # the round of the first recorded sighting
    segments: list[tuple[list[int], list[Slot]]] = []
    unknown: list[Slot] = []
    for origin in range(n):
        known: Counter[int] | None = None  # the packet's content after the viewer's last sighting
        since: list[Slot] = []  # picks from it since then (or since the start)
        for t in range(done + 1):
            holder = (origin + t) % n
            if t == done:  # the packet now (the draft phase), or nothing left (library phase)
                if not drafting:
                    break
                if holder != viewer:
                    since += [("packet", holder)] * len(state.packets[holder])
                    break
            if holder == viewer:
                if t < first:  # held but not recorded: nothing known of the packet so far
                    unknown += since
                    known, since = None, []
                    continue
                seen = Counter(sightings[t - first][0] if t < done else state.packets[viewer])
                if known is None:
                    unknown += since
                else:
                    segments.append((sorted((known - seen).elements()), since))
                if t == done:
                    since = []
                    break
                known = seen - Counter([sightings[t - first][1]])
                since = []
            else:
                since.append(("pick", holder))
        if since:
            if known is None:
                unknown += since
            else:
                segments.append((sorted(known.elements()), since))
    return segments, unknown


def sample_world(game: Seasons, state: SeasonsState, viewer: int, chance: Chance) -> SeasonsState:
    world = game.copy_for(state, viewer, chance)
    for seat in range(world.players):  # what the others saw is not the viewer's to know
        if seat != viewer:
            world.received[seat] = [[] for _ in range(world.players)]
            world.orb_top[seat] = 0
            world.sightings[seat] = []
    drafting = world.phase in (pb.PHASE_DRAFT, pb.PHASE_LIBRARY) and world.mode != "apprentice"
    # The hidden places, refilled in place with the same sizes.
    places = hidden_places(world, viewer, drafting)
    holes, discarded = unseen_discards(world, viewer)
    places.append(discarded)
    hidden = Counter(c for place in places for c in place)
    if drafting:
        for seat in range(world.players):
            if seat != viewer:
                hidden.update(world.drafted[seat])
                hidden.update(world.packets[seat])
        deal_draft(world, viewer, places, hidden, chance)
    else:
        _deal_known(world, viewer, places, hidden, chance)
    give_kriss_a_familiar(world, viewer, places, chance)
    refill_discards(world, viewer, holes, discarded)
    game.refresh(world)
    return world


def unseen_discards(world: SeasonsState, viewer: int) -> tuple[list[int], list[int]]:
    """(positions, cards) of the discard pile cards the viewer did not see go there (drawn
    cards another seat discarded face down, ruling 23): a hidden place like a hand."""
    holes = [i for i, k in enumerate(world.discard_seen) if k not in (PUBLIC, viewer)]
    return holes, [world.discard[i] for i in holes]


def refill_discards(world: SeasonsState, viewer: int, holes: list[int], cards: list[int]) -> None:
    """The discard pile as the viewer knows it: the cards it saw go there, in order, then the
    dealt ``cards`` for those it did not see, marked seen by the viewer / by no seat (as a world
    from the observation has it: which other seat saw them is not the world's to keep)."""
    hidden = set(holes)
    known = [c for i, c in enumerate(world.discard) if i not in hidden]
    world.discard = known + cards
    world.discard_seen = [viewer] * len(known) + [UNSEEN] * len(cards)


def deal_draft(world: SeasonsState, viewer: int, places: list[list[int]], hidden: Counter[int], chance: Chance) -> None:
    """During the draft and the library phase (magician, archmage): each known segment of
    ``draft_knowledge`` dealt over exactly its slots, then the ``hidden`` cards left uniformly
    over the unknown slots and the ``places`` (refilled in place); each other seat's picks are
    its slots' cards (in random order), its packet theirs (sorted), what it last passed the
    packet its left neighbour holds; in the library phase its libraries are the first of its
    picks. The same for ``sample_world`` and ``world_from_observation`` (the same draws)."""
    n = world.players
    others = [s for s in range(n) if s != viewer]
    segments, unknown = draft_knowledge(world, viewer)
    left = Counter(hidden)
    fills: dict[Slot, list[int]] = {}
    for seat in others:
        fills[("pick", seat)] = []
        fills[("packet", seat)] = []
    for cards, slots in segments:
        left.subtract(cards)
        for slot, card in zip(slots, chance.shuffled(cards, "world"), strict=True):
            fills[slot].append(card)
    assert all(k >= 0 for k in left.values()), "the draft history does not fit the hidden cards"
    dealt = chance.deal(sorted(left.elements()), [len(unknown), *(len(p) for p in places)], "world")
    for slot, card in zip(unknown, dealt[0], strict=True):
        fills[slot].append(card)
    for place, new in zip(places, dealt[1:], strict=True):
        place[:] = new
    for seat in others:
        world.drafted[seat] = chance.shuffled(fills[("pick", seat)], "world")
        world.packets[seat] = sorted(fills[("packet", seat)])
    if world.phase == pb.PHASE_DRAFT and world.passed[viewer]:
        for seat in others:  # what each seat passed is what its left neighbour holds now
            world.passed[seat] = sorted(world.packets[(seat + 1) % n])
    if world.phase == pb.PHASE_LIBRARY:
        split_libraries(world, viewer)


def hidden_places(world: SeasonsState, viewer: int, drafting: bool) -> list[list[int]]:
    """The places of cards the viewer cannot see (the lists themselves, to refill in place):
    the other seats' hands and limbo, and unless ``drafting`` (whose picks and packets are
    filled from the draft knowledge) their packets and their libraries (in the library phase
    their picks, which hold the libraries); then the draw pile."""
    library_phase = world.phase == pb.PHASE_LIBRARY
    places: list[list[int]] = []
    for seat in range(world.players):
        if seat == viewer:
            continue
        places += [world.hands[seat], world.limbo[seat]]
        if not drafting:
            places.append(world.packets[seat])
            if library_phase:
                places.append(world.drafted[seat])  # it holds the libraries too
            else:
                places.extend(world.libraries[seat])
    places.append(world.draw_pile)
    return places


def split_libraries(world: SeasonsState, viewer: int) -> None:
    """The library phase: each other seat's libraries so far are the first of its picks (in
    the random order they were dealt), with the sizes the world holds."""
    for seat in range(world.players):
        if seat != viewer:
            picked = world.drafted[seat]
            first, second = len(world.libraries[seat][0]), len(world.libraries[seat][1])
            world.libraries[seat] = [picked[:first], picked[first : first + second]]


# -- from the observation alone (a served searching bot) -----------------------------------------


def world_from_observation(
    game: Seasons, config: MatchConfig, viewer: int, obs: pb.Observation, chance: Chance
) -> SeasonsState:
    """Keeps everything public (boards, tableaux with their per-card state, dice, discard, the
    open prompt and the queued ones, the stage) and the viewer's own cards; deals the unseen
    cards (the mode's cards minus the viewer's, the tableaux and the discard pile) over the
    others' hands, libraries, limbo, packets and picks and the draw pile, with the observed
    sizes, knowing what ``sample_world`` knows. During the draft and the library phase the
    observation's ``sightings`` (the packets the viewer picked from, and its picks) are the
    state's: ``deal_draft`` deals the known segments over their slots and the rest uniformly,
    with the same draws as ``sample_world`` (the same chance gives the same hidden cards).
    After the draft it keeps what the observation carries of the cards the viewer has seen
    (``SeatView.played`` / ``received``, ``orb_top``): apprentice: the others hold, one each,
    prebuilt decks the viewer does not hold, with the deck's cards not played since in their
    libraries and hand; cards the viewer gave with Naria #12 or saw returned to a hand (Amsug
    #17) in that hand unless played since; the card it put back with Crystal Orb #34 on top of
    the draw pile."""
    from arena.games.seasons.game import pool_numbers

    n = obs.players
    views = obs.seats
    phase = obs.phase
    stage = obs.stage
    draft, library_phase = phase == pb.PHASE_DRAFT, phase == pb.PHASE_LIBRARY

    def face(d: pb.DieFace) -> Face:
        return DICE[d.season - 1][d.die - 1][d.face - 1]

    dice: list[Face | None] = [face(v.die) if v.has_die else None for v in views]
    first, turn_seat = obs.first_player, obs.turn_seat
    order = [(first + k) % n for k in range(n)]
    rolled = [face(d) for d in obs.dice]
    asks = [
        Ask(p.seat, p.kind, p.step, p.card, p.owner, p.reason, tuple(p.data), p.left)
        for p in ([obs.prompt, *obs.queue] if phase == pb.PHASE_PROMPT else ())
    ]
    # the viewer's drawn cards are shown while it is asked about them (the only time it has
    # any); should it hold some otherwise, they are dealt like the others' (not seen)
    own_limbo = list(obs.prompt.cards) if asks and asks[0].seat == viewer else []
    limbo_shown = len(own_limbo) == views[viewer].limbo
    # the discard pile's cards the viewer did not see (ruling 23): its size is what no other
    # place holds (no card is discarded before the tournament)
    held = sum(v.hand_size + v.library_2 + v.library_3 + v.limbo + len(v.tableau) for v in views)
    unseen_discarded = 0 if draft or library_phase else obs.pile_total - obs.draw_pile - held - len(obs.discard)
    # sizes of the hidden places (placeholders, dealt below)
    size = len(obs.packet)
    world = SeasonsState(
        config=config,
        chance=chance.fork(),
        mode=obs.mode,
        phase=phase,
        stage=stage,
        year=obs.year,
        month=obs.month,
        round=obs.round,
        first=first,
        turn_seat=turn_seat,
        dice_set=[list(obs.dice_in_play[k * (n + 1) : (k + 1) * (n + 1)]) for k in range(4)],
        rolled=rolled,
        pick_order=[s for s in order if dice[s] is None] if stage == "dice" else [],
        turn_order=order[order.index(turn_seat) + 1 :] if stage in ("turn", "turn_die") else [],
        dice=dice,
        draw_pile=[0] * obs.draw_pile,
        discard=[*obs.discard, *[0] * unseen_discarded],
        discard_seen=[viewer] * len(obs.discard) + [UNSEEN] * unseen_discarded,
        hands=[[0] * v.hand_size for v in views],
        libraries=[[[0] * v.library_2, [0] * v.library_3] for v in views],
        limbo=[[0] * v.limbo for v in views],
        packets=[[0] * size for _ in views],
        drafted=[[0] * len(obs.drafted) if draft or library_phase else [] for _ in views],
        passed=[[] for _ in views],
        sightings=[[(tuple(x.cards), x.pick) for x in obs.sightings] if s == viewer else [] for s in range(n)],
        played=[list(v.played) for v in views],
        received=[[list(v.received) for v in views] if s == viewer else [[] for _ in views] for s in range(n)],
        orb_top=[obs.orb_top if s == viewer else 0 for s in range(n)],
        lib_step=sum(obs.library_picked),
        crystals=[v.crystals for v in views],
        reserve=[list(v.reserve) for v in views],
        gauge=[v.gauge for v in views],
        tableau=[[InPlay(t.card, t.used, list(t.energies), t.tokens) for t in v.tableau] for v in views],
        bonus_used=[v.bonus_used for v in views],
        may_transmute=obs.may_transmute,
        transmute_bonus=obs.transmute_bonus,
        may_draw=obs.may_draw,
        asks=asks,
        # the year the leftover die moved the token into (read by the stage "year" only)
        year_to=obs.year + (obs.month <= rolled[0].pips) if stage == "year" else obs.year,
    )
    world.hands[viewer] = list(obs.hand)
    world.libraries[viewer] = [list(obs.library_2), list(obs.library_3)]
    if limbo_shown:
        world.limbo[viewer] = own_limbo
    world.packets[viewer] = list(obs.packet)
    world.drafted[viewer] = list(obs.drafted)
    world.passed[viewer] = list(obs.passed)
    seen = [*obs.discard, *(t.card for v in views for t in v.tableau)]
    if draft or library_phase:
        seen += [*obs.packet, *obs.drafted]
    else:
        seen += [*obs.hand, *obs.library_2, *obs.library_3, *(own_limbo if limbo_shown else ())]
    unseen = Counter(c for c in pool_numbers(obs.mode) for _ in range(COPIES))
    unseen.subtract(seen)
    drafting = (draft or library_phase) and obs.mode != "apprentice"
    places = hidden_places(world, viewer, drafting)
    if not limbo_shown:
        places.append(world.limbo[viewer])
    holes, discarded = unseen_discards(world, viewer)
    places.append(discarded)
    assert all(k >= 0 for k in unseen.values()), "the observation shows more copies than the game has"
    # as sample_world: the draft knowledge (its sightings), or after the draft the others'
    # prebuilt decks (apprentice), cards known in hands, the Orb's top
    if drafting:
        deal_draft(world, viewer, places, unseen, chance)
    else:
        _deal_known(world, viewer, places, unseen, chance)
    give_kriss_a_familiar(world, viewer, places, chance)
    refill_discards(world, viewer, holes, discarded)
    game.refresh(world)
    return world


def give_kriss_a_familiar(world: SeasonsState, viewer: int, places: list[list[int]], chance: Chance) -> None:
    """An open Necrotic Kriss prompt (#44, A15) of another seat shows that seat holds a familiar
    (the activation is offered only then). Where it has none in play and the deal gave its hand
    none, a familiar from another hidden place changes places with a card of that hand (without
    this, most such worlds had a prompt with no option)."""
    if world.phase != pb.PHASE_PROMPT or not world.asks or world.asks[0].handler != "kriss":
        return
    seat = world.asks[0].seat
    hand = world.hands[seat]
    if seat == viewer or not hand:
        return
    if any(CARDS[c].familiar for c in hand) or any(CARDS[slot.card].familiar for slot in world.tableau[seat]):
        return
    sources = [(place, i) for place in places if place is not hand for i, c in enumerate(place) if CARDS[c].familiar]
    if sources:
        place, i = sources[chance.below(len(sources), "world")]
        j = chance.below(len(hand), "world")
        place[i], hand[j] = hand[j], place[i]


# -- after the draft: what the viewer knows of the cards others hold ---------------------------------


def _deck_index(cards: list[int]) -> int:

    return next((i for i, deck in enumerate(APPRENTICE_DECKS) if sorted(deck) == sorted(cards)), -1)


def _known_split(deck: Counter[int], known_in: Counter[int], out: Counter[int]) -> tuple[Counter[int], Counter[int]]:
    """(the deck's cards the seat still holds for sure, in its libraries or hand; other cards it
    holds for sure, in its hand). A card it played may have been a drawn copy: counting it
    against what is known only forgets knowledge. A card known both in the deck and in the hand
    counts first against the hand's copy: the copy left may be the deck's, still in a library
    (kept as the hand's, it needed a hand the seat may not have)."""
    # Counter subtraction floors at 0: what was played beyond the known copies was drawn
    return deck - (out - known_in), known_in - out


def _deal_known(
    world: SeasonsState,
    viewer: int,
    places: list[list[int]],
    hidden: Counter[int],
    chance: Chance,
) -> None:
    """After the draft: every hidden place refilled with the cards the viewer knows are there
    (apprentice: what is left of each seat's prebuilt deck; cards the viewer gave with Naria
    #12 or saw returned to a hand, unless played since; the card it put back on top with
    Crystal Orb #34), the rest dealt uniformly (``Chance.deal``). What the viewer saw is the
    state's ``played``, ``received[viewer]`` and ``orb_top[viewer]`` (the observation's)."""
    from itertools import permutations

    n = world.players
    others = [s for s in range(n) if s != viewer]
    out = [Counter(p) for p in world.played]
    known_in = [Counter(r) for r in world.received[viewer]]
    top = world.orb_top[viewer]
    library_phase = world.phase == pb.PHASE_LIBRARY
    # Apprentice: which prebuilt deck each other seat holds is secret; any of the decks the
    # viewer does not hold, one per seat, that fits what the viewer saw (ruling 22).
    options: list[tuple[int, ...]] = [()]
    if world.mode == "apprentice":
        mine = _deck_index(world.drafted[viewer])
        options = list(permutations([i for i in range(len(APPRENTICE_DECKS)) if i != mine], len(others)))

    def plan(assignment: tuple[int, ...]) -> list[tuple[Counter[int], Counter[int]]] | None:
        split = []
        need: Counter[int] = Counter([top] if top else [])
        for k, seat in enumerate(others):
            deck = Counter(APPRENTICE_DECKS[assignment[k]]) if assignment else Counter()
            rest, extra = _known_split(deck, known_in[seat], out[seat])
            libs = len(world.drafted[seat]) if library_phase else sum(len(lib) for lib in world.libraries[seat])
            to_hand = rest.total() - min(rest.total(), libs) + extra.total()
            if library_phase and rest.total() + extra.total() > libs:
                return None
            if not library_phase and to_hand > len(world.hands[seat]):
                return None
            need += rest + extra
            split.append((rest, extra))
        if need - hidden:
            return None
        return split

    feasible = [(a, p) for a in options if (p := plan(a)) is not None]
    assert feasible, "no deck assignment fits what the seat saw"
    assignment, split = chance.pick(feasible, "world")
    free = Counter(hidden)
    if top:
        free[top] -= 1
    for rest, extra in split:
        free -= rest + extra
    # the known cards of each seat: its deck's rest fills its libraries first, then its hand
    fixed: dict[int, list[int]] = {}
    for k, seat in enumerate(others):
        rest, extra = split[k]
        cards = chance.shuffled(sorted(rest.elements()), "world")
        if library_phase:
            fixed[id(world.drafted[seat])] = cards
            continue
        libs = world.libraries[seat]
        fixed[id(libs[0])] = cards[: len(libs[0])]
        fixed[id(libs[1])] = cards[len(libs[0]) : len(libs[0]) + len(libs[1])]
        fixed[id(world.hands[seat])] = cards[len(libs[0]) + len(libs[1]) :] + sorted(extra.elements())
    pile = world.draw_pile
    fixed[id(pile)] = []
    sizes = [len(p) - len(fixed.get(id(p), ())) - (1 if p is pile and top else 0) for p in places]
    dealt = chance.deal(sorted(free.elements()), sizes, "world")
    for place, new in zip(places, dealt, strict=True):
        known = fixed.get(id(place), [])
        if place is pile:
            place[:] = new + ([top] if top else [])
        else:
            place[:] = known + new
    for k, seat in enumerate(others):
        # after the draft a seat's picks are no longer used by the rules; the world holds the
        # deck it assigned (apprentice) or none (the real picks are not the viewer's to know)
        world.drafted[seat] = sorted(APPRENTICE_DECKS[assignment[k]]) if assignment else []
        if library_phase:  # apprentice: the libraries set aside so far, from the seat's deck
            order = chance.shuffled(world.drafted[seat], "world")
            first, second = len(world.libraries[seat][0]), len(world.libraries[seat][1])
            world.libraries[seat] = [order[:first], order[first : first + second]]
