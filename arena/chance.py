"""Chance for a match: the seeded per-match RNG and preset chance for scripted situations.

Every shuffle, die roll and random pick in a game goes through a :class:`Chance` object held by
the match state, never through the global ``random`` module. Two implementations:

* :class:`Chance` draws from a Mersenne Twister seeded once per match. Only
  ``getrandbits`` is used (with our own rejection sampling), so results do not depend on how a
  Python version implements ``randrange`` or ``shuffle``.
* :class:`PresetChance` replays chance outcomes chosen in advance (a deck order, a sequence of
  die results), labelled by what they are for, and falls back to a seeded RNG for anything not
  preset. This is how a rulebook example is set up exactly in a test, and how a bot author builds
  a chosen position.

Every call names a *label* ("deck", "die", "removed"…), which the game documents; presets are
keyed by the same labels.
"""

from __future__ import annotations

import copy
import functools
import math
import random
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from hashlib import blake2b
from typing import Any, TypeVar

T = TypeVar("T")


class PresetError(ValueError):
    """A preset chance outcome does not fit what the game asked for."""


class Chance:
    """Source of every random outcome in a match (seeded; deterministic)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def below(self, n: int, label: str) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError(f"below({n}) for {label!r}: n must be positive")
        bits = n.bit_length()
        while True:
            value = self._rng.getrandbits(bits)
            if value < n:
                return value

    def roll(self, sides: int, label: str) -> int:
        """A die roll: a uniform integer in ``[1, sides]``."""
        return self.below(sides, label) + 1

    def pick(self, items: Sequence[T], label: str) -> T:
        """One item chosen uniformly."""
        return items[self.below(len(items), label)]

    def weighted(self, weights: Sequence[int], label: str) -> int:
        """An index drawn with probability proportional to its (integer, possibly huge) weight:
        how a sampler picks among cases by their counts of completions."""
        pick = self.below(sum(weights), label)
        for i, weight in enumerate(weights):
            if pick < weight:
                return i
            pick -= weight
        raise AssertionError("unreachable")

    def shuffled(self, items: Iterable[T], label: str) -> list[T]:
        """A new list with the items in uniformly random order (Fisher–Yates)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1, label)
            out[i], out[j] = out[j], out[i]
        return out

    def deal(
        self,
        cards: Sequence[T],
        sizes: Sequence[int],
        label: str,
        accepts: Sequence[Callable[[T], bool]] | None = None,
    ) -> list[list[T]]:
        """Deal ``cards`` into hands of the given sizes, uniformly over the possible deals (each
        hand's cards in random order).

        With ``accepts``, hand ``i`` may only receive cards ``accepts[i]`` accepts (a player who
        showed a void in a suit), and the deal is uniform over the deals that respect it: built
        card class by card class with exact counts of the completions (never by rejection), so
        it is as fast late in a game as early. Raises ValueError when no deal fits.
        """
        if sum(sizes) != len(cards):
            raise ValueError(f"deal of {len(cards)} cards into hands of {list(sizes)}")
        if accepts is None:
            order = self.shuffled(cards, label)
            hands, start = [], 0
            for size in sizes:
                hands.append(order[start : start + size])
                start += size
            return hands
        # Cards accepted by the same hands are interchangeable for counting: one class each.
        classes: dict[tuple[int, ...], list[T]] = {}
        for card in cards:
            classes.setdefault(tuple(i for i, ok in enumerate(accepts) if ok(card)), []).append(card)
        shape = tuple((len(members), hands_ok) for hands_ok, members in classes.items())
        caps = tuple(sizes)
        if not _completions(shape, caps):
            raise ValueError(f"no deal of {len(cards)} cards into hands of {list(sizes)} respects the constraints")
        hands = [[] for _ in sizes]
        for index, members in enumerate(classes.values()):
            rest = shape[index + 1 :]
            count, hands_ok = shape[index]
            # Choose how many of this class each hand gets, weighted by the deals completing it.
            splits = [(w * _completions(rest, left), split, left) for split, left, w in _splits(count, hands_ok, caps)]
            pick = self.below(sum(w for w, _, _ in splits), label)
            chosen = 0
            while pick >= splits[chosen][0]:
                pick -= splits[chosen][0]
                chosen += 1
            _, split, caps = splits[chosen]
            order = self.shuffled(members, label)
            for hand, n in zip(hands_ok, split, strict=True):
                hands[hand] += order[:n]
                del order[:n]
        # Each hand in random order, as the unconstrained deal gives it: built class by class, its
        # cards came grouped by class, and a caller that splits a hand by position (the cards a
        # Llama Llama seat set aside) took them from one class only (an outside search probe).
        return [self.shuffled(hand, label) for hand in hands]

    def fork(self) -> Chance:
        """A new independent Chance seeded from this one: a determinized world's own future
        (its dice and draws are then not the real match's, and the same draws give the same
        world)."""
        return Chance(self.below(2**63, "world"))

    def copy(self) -> Chance:
        """An independent copy at the same position (it draws what this one would draw next)."""
        new = copy.copy(self)
        new._rng = random.Random(0)
        new._rng.setstate(self._rng.getstate())
        return new


class PresetChance(Chance):
    """Chance with chosen outcomes, for replaying rulebook examples and building positions.

    ``orders[label]`` is a list of orders, consumed one per ``shuffled(..., label)`` call; each
    must be a permutation of what the game shuffles (checked, so a typo fails loudly).
    ``rolls[label]`` is a sequence of die results consumed by ``roll``; ``picks[label]`` a
    sequence of chosen items consumed by ``pick``. Anything not preset (or exhausted, unless
    ``strict``) falls back to the RNG seeded with ``seed``. A preset the game cannot take is an
    error when the label is drawn (it fell back to random outcomes without a word): one given
    under another kind than the game draws it with (``picks`` for a die it rolls), or for a
    label it draws as a bare number (``below``, ``weighted``), which no preset sets.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        orders: Mapping[str, Sequence[Sequence[object]]] | None = None,
        rolls: Mapping[str, Sequence[int]] | None = None,
        picks: Mapping[str, Sequence[object]] | None = None,
        strict: bool = False,
    ) -> None:
        super().__init__(seed)
        self._orders = {k: deque(list(o) for o in v) for k, v in (orders or {}).items()}
        self._rolls = {k: deque(v) for k, v in (rolls or {}).items()}
        self._picks = {k: deque(v) for k, v in (picks or {}).items()}
        self._strict = strict
        self._falling_back = 0  # depth of fallback draws and samplers: their below() is the RNG's

    def _missing(self, kind: str, label: str) -> None:
        if self._strict:
            raise PresetError(f"no preset {kind} left for {label!r}")
        given = [name for name, table in self._tables().items() if table.get(label) and name != kind]
        if given:
            raise PresetError(f"{label!r} is drawn with {kind}: preset under {_KINDS[kind]!r}, not {given[0]!r}")

    def _tables(self) -> dict[str, dict[str, deque[Any]]]:
        return {"order": self._orders, "roll": self._rolls, "pick": self._picks}

    def below(self, n: int, label: str) -> int:
        if not self._falling_back and label in self.labels():
            raise PresetError(f"{label!r} is drawn as a number below {n}, which no preset sets: leave it to the seed")
        return super().below(n, label)

    def _random(self, draw: Callable[[], T]) -> T:
        """A fallback draw from the seeded RNG (its ``below`` calls name the preset label)."""
        self._falling_back += 1
        try:
            return draw()
        finally:
            self._falling_back -= 1

    def deal(self, *args: Any, **kwargs: Any) -> Any:  # its shuffles take presets; its other draws cannot
        return self._random(lambda: super(PresetChance, self).deal(*args, **kwargs))

    def fork(self) -> Chance:
        return self._random(super().fork)

    def roll(self, sides: int, label: str) -> int:
        queue = self._rolls.get(label)
        if queue:
            value = queue.popleft()
            if not 1 <= value <= sides:
                raise PresetError(f"preset roll {value} for {label!r} is not on a d{sides}")
            return value
        self._missing("roll", label)
        return self._random(lambda: super(PresetChance, self).roll(sides, label))

    def pick(self, items: Sequence[T], label: str) -> T:
        queue = self._picks.get(label)
        if queue:
            value = queue.popleft()
            if value not in items:
                raise PresetError(f"preset pick {value!r} for {label!r} is not among {list(items)!r}")
            return value  # type: ignore[return-value]
        self._missing("pick", label)
        return self._random(lambda: super(PresetChance, self).pick(items, label))

    def shuffled(self, items: Iterable[T], label: str) -> list[T]:
        pool = list(items)
        queue = self._orders.get(label)
        if queue:
            order = queue.popleft()
            if Counter(map(repr, order)) != Counter(map(repr, pool)):
                raise PresetError(f"preset order for {label!r} is not a permutation of the {len(pool)} items shuffled")
            # Return the game's own objects, matched by value, in the preset order.
            remaining = list(pool)
            out: list[T] = []
            for wanted in order:
                k = next(i for i, x in enumerate(remaining) if repr(x) == repr(wanted))
                out.append(remaining.pop(k))
            return out
        self._missing("order", label)
        return self._random(lambda: super(PresetChance, self).shuffled(pool, label))

    def copy(self) -> PresetChance:
        new = super().copy()
        assert isinstance(new, PresetChance)
        new._orders = copy.deepcopy(self._orders)
        new._rolls = copy.deepcopy(self._rolls)
        new._picks = copy.deepcopy(self._picks)
        return new

    def labels(self) -> frozenset[str]:
        """Every label given a preset (consumed or not)."""
        return frozenset(self._orders) | frozenset(self._rolls) | frozenset(self._picks)

    def unused(self) -> dict[str, int]:
        """Preset outcomes not consumed yet, by label (a test can assert this is empty)."""
        left: dict[str, int] = {}
        for table in (self._orders, self._rolls, self._picks):
            for label, queue in table.items():
                if queue:
                    left[label] = left.get(label, 0) + len(queue)
        return left


_KINDS = {"order": "orders", "roll": "rolls", "pick": "picks"}


def _splits(
    count: int, hands: tuple[int, ...], caps: tuple[int, ...]
) -> list[tuple[tuple[int, ...], tuple[int, ...], int]]:
    """Every way to put ``count`` distinct cards into ``hands`` within ``caps``: (numbers per
    hand, capacities left, number of card assignments = the multinomial coefficient)."""
    out: list[tuple[tuple[int, ...], tuple[int, ...], int]] = []

    def walk(k: int, left: int, split: tuple[int, ...]) -> None:
        if k == len(hands) - 1:
            if left <= caps[hands[k]]:
                done = (*split, left)
                rest = list(caps)
                weight = math.factorial(count)
                for hand, n in zip(hands, done, strict=True):
                    rest[hand] -= n
                    weight //= math.factorial(n)
                out.append((done, tuple(rest), weight))
            return
        for n in range(min(left, caps[hands[k]]) + 1):
            walk(k + 1, left - n, (*split, n))

    if hands:
        walk(0, count, ())
    elif count == 0:
        out.append(((), caps, 1))
    return out


@functools.lru_cache(maxsize=1 << 16)
def _completions(shape: tuple[tuple[int, tuple[int, ...]], ...], caps: tuple[int, ...]) -> int:
    """The number of deals of the card classes ``shape`` (count, accepting hands) that fill the
    capacities ``caps`` exactly."""
    if not shape:
        return 0 if any(caps) else 1
    (count, hands), rest = shape[0], shape[1:]
    return sum(w * _completions(rest, left) for _, left, w in _splits(count, hands, caps))


def derive_seed(*parts: object) -> int:
    """A 63-bit seed derived from parts (tournament seed, match index, seat…), stable everywhere."""
    digest = blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1
