"""Sampled worlds carry nothing the seat has not seen, checked for every hidden-information game.

``Game.copy_for`` starts every ``sample_world`` with a copy of every field of the real state
(only the log is filtered), so a field that records something hidden (another seat's card or
goal, a hidden order, a history of blind draws) reaches the world unless the game redraws or
rebuilds it. A searching bot then plans in worlds holding the truth: opponents simulated there
read their observations, built from such fields.

The check: two states the seat cannot tell apart, the real one S and S' built from its
observation alone (``world_from_observation``, which never sees S's hidden facts). A field
that differs between them, yet is copied unchanged into every world sampled from S (S's value)
and from S' (S''s value), follows the truth, not what the seat knows. ``ALLOWED`` lists the
fields where that is harmless, each with its reason.
"""

from __future__ import annotations

import dataclasses

import pytest

from arena.chance import Chance
from arena.registry import games
from tests.contract import configurations

# Fields copied from the state whatever the seat knows, and why that is harmless.
ALLOWED: dict[str, dict[str, str]] = {
    "*": {
        "log": "filtered by copy_for to the events the seat may see",
        "chance": "forked from the world's own chance",
        "steps": "a step counter: no rule, observation or decision reads it",
    },
    "eggsandempires": {"cursor": "read only in the collect phase and set at its reveal; stale outside it"},
    "frenzyfalls": {
        "at": "read only in the reveal phase and set on entering it; stale outside it",
        "score": "indices of identical Score cards (read only through their value)",
        "won": "indices of identical Score cards (read only through their value)",
        "score_box": "indices of identical Score cards (read only through their value)",
        "discards": "only the order differs: shown sorted, and a reshuffle uses the world's own chance",
    },
    "getbit": {
        name: "Memory: the others' hands and face-down cards, seen in public reveals, are not in the "
        "observation (a world from it is less informed, as documented); the reveal's plays are hidden "
        "from every seat"
        for name in ("figures", "last_reveal", "pending")
    }
    | {"tied": "set and read within one round's resolution, never between decisions"},
    "llamallama": {"owners": "2 players: which of the two dummies owns which dummy-icon display (both show as DUMMY)"},
    "openseason": {
        "rewarded": "read only when a card is placed; a completed row's reward follows from public turns",
        "removed": "only the order differs: shown sorted, never read in order",
    },
    "opensesame": {
        "collections": "only the order differs: read as a set and as counts",
        "reciter": "read only in the recite phase and reset at each round's start",
    },
    "sodajerk": {"b_order": "only the order of taps already turned (public events) differs; only the rest is read"},
    "seasons": {
        "summons": "a counter no rule, observation or bot reads",
        "activations": "a counter no rule, observation or bot reads",
        "hands": "only the seat's own hand, in another order (every use sorts it or reads it by value)",
    },
    "seerscatalog": {
        "set_aside": "the played cards (public) in another order; read sorted or counted",
        "known": "the public known cards in another order; read sorted or as a set",
        "trick_type": "stale after a Gift of Fate sets the trick aside; read only with a trick on the table",
        "trick_size": "stale after a Gift of Fate sets the trick aside; read only with a trick on the table",
    },
    "winecellar": {
        "turn": "read only in the pick and place phases, and set on entering them",
        "last_taken": "read only in the place phase, after the pick that sets it",
    },
    "karakum": {"cost": "read only while a camel is being bought, and set by that buy; stale otherwise"},
    "prey": {"rerolls": "reset at the start of a round before anything reads it"},
    "petquartet": {
        "deck": "only the cards already drawn differ, in the order drawn (each draw is a public event) or "
        "ascending; never read again. The rest is re-dealt, and equal when one order is all it can have",
    },
    "vivo": {"harmonies": "only past tricks' entries differ, never read again (each round replaces the list)"},
    "threewitches": {
        "current": "after the reveal (returning phase) it still holds the trick, every card of it public; "
        "the trick record is what is read then",
    },
}


def _eggs_as_seen(state, name):
    """Eggs and Empires' field ``name`` as the rules can tell it apart: Eggs of equal value differ
    only in their card id (an identity, never read as a value), so each Egg counts as its value;
    the discard pile as a multiset (only ever added to); ``private`` (hidden Egg id -> the seats
    that know it) as who knows each hidden place; an entry's Egg as its place in the seat's
    collection and its value, or as gone (all the rules read of it)."""
    value = getattr(state, name)
    if name == "private":
        return sorted(sorted(seats) for seats in value.values())
    if name == "egg_discard":
        return sorted(egg.value for egg in value)
    if name == "order":
        return [(e.seat, e.rank, e.cancelled, e.done, _egg_place(state, e)) for e in value]
    if name in ("deck", "face_up", "face_down"):
        return [egg.value for egg in value]
    if name == "collections":
        return [[egg.value for egg in eggs] for eggs in value]
    return value


def _egg_place(state, entry):
    if entry.collected is None:
        return None
    eggs = state.collections[entry.seat]
    return (eggs.index(entry.collected), entry.collected.value) if entry.collected in eggs else "gone"


# How a game's fields are compared, where equal values can carry different identities.
COMPARED_AS = {"eggsandempires": _eggs_as_seen}

CASES = [
    pytest.param(game, id=game.meta.id)
    for game in games().values()
    if game.meta.hidden_information and game.observes_worlds()
]
WORLDS = 6  # a re-dealt field equals its input in all of them only by chance (a tiny hidden space)


def copied_fields(game, state, seat, config, salt):
    """The fields of ``state`` that every world sampled for ``seat`` copies from its input
    although a state the seat cannot tell from it (built from its observation) differs there."""
    other = game.world_from_observation(config, seat, game.observe(state, seat), Chance(salt))
    worlds = [game.sample_world(state, seat, Chance(salt + k)) for k in range(WORLDS)]
    # other chances: with the same ones a shuffle applies the same permutation to both inputs
    others = [game.sample_world(other, seat, Chance(salt + 100 + k)) for k in range(WORLDS)]
    allowed = ALLOWED["*"].keys() | ALLOWED.get(game.meta.id, {}).keys()
    compared = COMPARED_AS.get(game.meta.id, getattr)
    found = []
    for field in dataclasses.fields(state):
        name = field.name
        if name in allowed:
            continue
        real, seen = compared(state, name), compared(other, name)
        if (
            real != seen
            and all(compared(w, name) == real for w in worlds)
            and all(compared(w, name) == seen for w in others)
        ):
            found.append(name)
    return found


@pytest.mark.parametrize("game", CASES)
def test_sampled_worlds_copy_no_field_that_follows_the_truth(game):
    found: dict[str, list[tuple[int, int, int, int]]] = {}
    examined = 0
    for config in list(configurations(game))[:3]:
        for seed in range(2):
            state = game.new_match(config, seed)
            rng = Chance(seed ^ 0x5EED)
            step = 0
            while state.pending:
                if step < 2 or step % 9 == 4:  # the first steps too: a game may end before step 4
                    examined += 1
                    for seat in range(config.players):
                        for name in copied_fields(game, state, seat, config, step * 10 + seat):
                            found.setdefault(name, []).append((config.players, seed, step, seat))
                game.apply(state, {d.seat: rng.pick(d.options, "t").id for d in state.pending})
                step += 1
    assert examined, "no position examined"
    assert not found, {name: where[:3] for name, where in found.items()}
