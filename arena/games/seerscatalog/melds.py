"""Seers Catalog cards and meld enumeration (see :mod:`arena.games.seerscatalog.game`).

Cards are small ints: a suited card is ``suit * 16 + rank`` (suit 0-4, rank 2-13), a Wild Card
is :data:`WILD`, an Artifact is ``ART + index`` in the order of ``components.toml``. A meld's
composition is a tuple of :class:`VCard` (the physical card and what it counts as).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from typing import NamedTuple

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))
_DECK = _DATA["deck"]

SUIT_NAMES: tuple[str, ...] = tuple(_DECK["suits"])
LETTERS: tuple[str, ...] = tuple(_DECK["letters"])
LOW, HIGH = int(_DECK["low_rank"]), int(_DECK["high_rank"])  # 2, 13: also a Wild's range
ROUNDS = int(_DECK["rounds"])
HAND_SUITED = int(_DECK["hand_suited"])
BONUS_LIMIT = int(_DECK["bonus_limit"])
PLAYER_SETUP: dict[int, dict[str, int]] = {int(k): dict(v) for k, v in _DATA["players"].items()}

WILD = 100
ART = 200
ARTIFACT_IDS: tuple[str, ...] = tuple(a["id"] for a in _DATA["artifact"])
ARTIFACT_NAMES: dict[str, str] = {a["id"]: a["name"] for a in _DATA["artifact"]}
ARTIFACT_TEXT: dict[str, str] = {a["id"]: a["text"] for a in _DATA["artifact"]}
ARTIFACT_SOURCE: dict[str, str] = {a["id"]: a["source"] for a in _DATA["artifact"]}


def art(name: str) -> int:
    return ART + ARTIFACT_IDS.index(name)


GOFIRST, ROD, GIFT, CAULDRON, PRISM, MOON, CROWN, MIRROR, TWIN, BRIDGE, LENS, HOURGLASS, VEIL, BEACON, WHEEL = (
    art(n)
    for n in (
        "gofirst", "rod", "gift", "cauldron", "prism", "moon", "crown", "mirror",
        "twin", "bridge", "lens", "hourglass", "veil", "beacon", "wheel",
    )
)  # fmt: skip
CROWN_RANK = 14
ANY = -1  # "any suit" in a VCard

SINGLE, SET, RUN = "single", "set", "run"


def suited(suit: int, rank: int) -> int:
    return suit * 16 + rank


def is_suited(card: int) -> bool:
    return card < WILD


def suit_of(card: int) -> int:
    return card >> 4


def rank_of(card: int) -> int:
    return card & 15


def score_value(card: int) -> int:
    """A card's value in hand at scoring: its rank, 0 for Wilds and Artifacts (:200, :214)."""
    return card & 15 if card < WILD else 0


def token(card: int) -> str:
    return _TOKENS[card] if 0 <= card < len(_TOKENS) else _token(card)


def _token(card: int) -> str:
    if card < WILD:
        return f"{LETTERS[card >> 4]}{card & 15}"
    if card == WILD:
        return "W"
    return "@" + ARTIFACT_IDS[card - ART]


_TOKENS: list[str] = []
_TOKENS.extend(
    _token(c)
    if (c < WILD and LOW <= c & 15 <= HIGH and c >> 4 < len(LETTERS)) or c == WILD or ART <= c < ART + len(ARTIFACT_IDS)
    else "?"
    for c in range(ART + len(ARTIFACT_IDS))
)


def parse_token(text: str) -> int:
    if text == "W":
        return WILD
    if text.startswith("@"):
        return art(text[1:])
    return suited(LETTERS.index(text[0]), int(text[1:]))


def sort_key(card: int) -> tuple[int, int, int]:
    return (0, card & 15, card >> 4) if card < WILD else (1, card, 0)


def sorted_cards(cards: Iterable[int]) -> list[int]:
    return sorted(cards, key=sort_key)


class VCard(NamedTuple):
    card: int  # the physical card
    suit: int  # the suit it counts as (ANY when it does not matter)
    rank: int  # the rank it counts as

    @property
    def token(self) -> str:
        """``Y7`` (itself), ``W=T6``, ``Y7=Y8`` (Cauldron), ``@crown=*14``."""
        t = _VTOK.get(self)
        if t is None:
            t = _VTOK[self] = self._token()
        return t

    def _token(self) -> str:
        if self.card < WILD and self.suit == self.card >> 4 and self.rank == self.card & 15:
            return token(self.card)
        return f"{token(self.card)}={'*' if self.suit == ANY else LETTERS[self.suit]}{self.rank}"

    @property
    def counts_as(self) -> str:
        if self.card < WILD and self.suit == self.card >> 4 and self.rank == self.card & 15:
            return ""
        return f"{'*' if self.suit == ANY else LETTERS[self.suit]}{self.rank}"


_VTOK: dict[VCard, str] = {}


class Meld(NamedTuple):
    type: str
    cards: tuple[VCard, ...]  # composition, sorted by counted rank
    value2: int  # twice the value (+1 with the Waxing Moon)
    artifact: int = -1  # an attached artifact (not part of the composition), -1 none
    ability: bool = False
    id: str = ""  # the option id: "set:Y7.P7.W=*7" (type, then the composition's tokens)

    @property
    def size(self) -> int:
        return len(self.cards)

    def physical(self) -> list[int]:
        """Every card that leaves the hand."""
        cards = [v.card for v in self.cards]
        if self.artifact >= 0:
            cards.append(self.artifact)
        return cards

    @property
    def label(self) -> str:
        value = self.value2 // 2
        half = "½" if self.value2 % 2 else ""
        if self.type == SINGLE:
            what = "Single"
        elif self.type == SET:
            what = f"Set of {self.size}"
        else:
            what = f"Run of {self.size} to"
        return f"{what} {value}{half}: {' '.join(v.token for v in self.cards)}"


class Trick(NamedTuple):
    """What the next meld must answer (None when it starts the trick)."""

    type: str
    size: int
    value2: int
    reversed: bool = False


Ok = Callable[[int], bool]


def _vc(card: int) -> VCard:
    return _NATURAL[card] if card < len(_NATURAL) else VCard(card, card >> 4, card & 15)


# Every suited card as itself, made once: each enumeration starts from the hand's cards.
_NATURAL: tuple[VCard, ...] = tuple(VCard(c, c >> 4, c & 15) for c in range(WILD))


def make_meld(type_: str, cards: Iterable[VCard], value2: int, artifact: int = -1, ability: bool = False) -> Meld:
    comp = tuple(sorted(cards, key=lambda v: (v.rank, v.card >= WILD, v.suit, v.card)))
    return Meld(type_, comp, value2, artifact, ability, f"{type_}:" + ".".join(v.token for v in comp))


def _mk(type_: str, cards: Iterable[VCard], value2: int) -> Meld:
    """``make_meld`` for the generators, through :func:`_interned`."""
    return _interned(type_, tuple(cards), value2)


@lru_cache(maxsize=65536)
def _interned(type_: str, cards: tuple[VCard, ...], value2: int) -> Meld:
    """A hand's melds recur from one decision to the next (the hand loses a card or two), so
    each composition's Meld (its sorted cards and id string) is built once. A pure function."""
    return make_meld(type_, cards, value2)


# -- generators (pool = suited cards as VCards, maybe changed by an artifact; w = Wilds) -------


def _singles(pool: Sequence[VCard], w: int, focus: int, ok: Ok) -> Iterator[Meld]:
    for v in pool:
        if (focus < 0 or v.card == focus) and ok(2 * v.rank):
            yield _mk(SINGLE, [v], 2 * v.rank)
    if w and focus < 0:
        for r in range(LOW, HIGH + 1):
            if ok(2 * r):
                yield _mk(SINGLE, [VCard(WILD, ANY, r)], 2 * r)


def _sets(pool: Sequence[VCard], w: int, size: int, focus: Sequence[int], ok: Ok) -> Iterator[Meld]:
    by_rank: dict[int, list[VCard]] = {}
    wanted = {v.rank for v in pool if v.card in focus} if focus else None
    for v in pool:
        if wanted is None or v.rank in wanted:
            by_rank.setdefault(v.rank, []).append(v)
    for r in sorted(by_rank):
        if not ok(2 * r):
            continue
        items = by_rank[r]
        for k in range(1, len(items) + 1):
            for subset in combinations(items, k):
                if focus and not all(any(v.card == f for v in subset) for f in focus):
                    continue
                for j in range(w + 1):
                    n = k + j
                    if n < 2 or (size and n != size):
                        continue
                    yield _mk(SET, [*subset, *[VCard(WILD, ANY, r)] * j], 2 * r)
    if w >= 2 and not focus:  # a set of Wilds only
        for r in range(LOW, HIGH + 1):
            if not ok(2 * r):
                continue
            for n in range(2, w + 1):
                if not size or n == size:
                    yield _mk(SET, [VCard(WILD, ANY, r)] * n, 2 * r)


def _runs(pool: Sequence[VCard], w: int, size: int, focus: int, suits: int, gap: bool, ok: Ok) -> Iterator[Meld]:
    fv = next((v for v in pool if v.card == focus), None) if focus >= 0 else None
    for s in range(suits):
        if fv is not None and fv.suit != s:
            continue
        if fv is None and not gap:
            # A suit's runs depend only on its cards and the Wilds: enumerated once for every
            # shape and trick asked of the hand, and for the next hands while the suit is unchanged.
            in_suit = tuple(v for v in pool if v.suit == s)
            if in_suit:
                by_size = _suit_runs(in_suit, w, s)
                for runs in by_size[size : size + 1] if size else by_size:
                    yield from (m for m in runs if ok(m.value2))
            continue
        by_rank: dict[int, list[VCard]] = {}
        for v in pool:
            if v.suit == s:
                by_rank.setdefault(v.rank, []).append(v)
        if not by_rank:
            continue
        if not gap:
            yield from _plain_runs(by_rank, w, size, fv, s, ok)
            continue
        prefix = [0] * (HIGH + 2)
        for r in range(LOW, HIGH + 1):
            prefix[r + 1] = prefix[r] + (r in by_rank)
        for n in [size] if size else range(2, HIGH - LOW + 2):
            span = n + 1 if gap else n
            for lo in range(LOW, HIGH - span + 2):
                hi = lo + span - 1
                if not ok(2 * hi):
                    continue
                held = prefix[hi + 1] - prefix[lo]
                for skip in range(lo + 1, hi) if gap else (0,):
                    have = held - (skip in by_rank)
                    missing = n - have
                    if missing > w or have == 0:
                        continue
                    if fv is not None and not (lo <= fv.rank <= hi and fv.rank != skip):
                        continue
                    ranks = [r for r in range(lo, hi + 1) if r != skip]
                    yield from _fill(ranks, by_rank, w, s, focus, hi)
    if w >= 2 and focus < 0 and not gap:  # a run of Wilds only: the suit does not matter
        for n in range(2, w + 1):
            if size and n != size:
                continue
            for hi in range(LOW + n - 1, HIGH + 1):
                if ok(2 * hi):
                    yield _mk(RUN, [VCard(WILD, ANY, r) for r in range(hi - n + 1, hi + 1)], 2 * hi)


@lru_cache(maxsize=16384)
def _suit_runs(held: tuple[VCard, ...], w: int, suit: int) -> tuple[tuple[Meld, ...], ...]:
    """Every run without gaps in ``suit`` from its ``held`` cards and ``w`` Wilds, of any value,
    by size (index: its number of cards). A pure function."""
    by_rank: dict[int, list[VCard]] = {}
    for v in held:
        by_rank.setdefault(v.rank, []).append(v)
    by_size: list[list[Meld]] = [[] for _ in range(HIGH - LOW + 2)]
    for m in _plain_runs(by_rank, w, 0, None, suit, lambda value2: True):
        by_size[m.size].append(m)
    return tuple(tuple(runs) for runs in by_size)


def _plain_runs(
    by_rank: dict[int, list[VCard]], w: int, size: int, fv: VCard | None, suit: int, ok: Ok
) -> Iterator[Meld]:
    """Runs without gaps in one suit: windows grow from each low rank until too many are missing."""
    focus = fv.card if fv is not None else -1
    for lo in range(LOW, HIGH):
        if fv is not None and lo > fv.rank:
            break
        missing = 0 if lo in by_rank else 1
        if missing > w:
            continue
        for hi in range(lo + 1, HIGH + 1):
            if hi not in by_rank:
                missing += 1
                if missing > w:
                    break
            n = hi - lo + 1
            if size and n != size:
                if n > size:
                    break
                continue
            if missing == n or not ok(2 * hi):
                continue
            if fv is not None and not lo <= fv.rank <= hi:
                continue
            yield from _fill(list(range(lo, hi + 1)), by_rank, w, suit, focus, hi)


def _fill(ranks: list[int], by_rank: dict[int, list[VCard]], w: int, suit: int, focus: int, hi: int) -> Iterator[Meld]:
    """Every way to fill the ranks with held cards or Wilds (at least one held card)."""
    choices = [[*by_rank.get(r, []), VCard(WILD, suit, r)] for r in ranks]

    def rec(i: int, acc: list[VCard], wilds: int) -> Iterator[list[VCard]]:
        if i == len(choices):
            yield acc
            return
        for v in choices[i]:
            if v.card == WILD:
                if wilds < w:
                    yield from rec(i + 1, [*acc, v], wilds + 1)
            else:
                yield from rec(i + 1, [*acc, v], wilds)

    for cards in rec(0, [], 0):
        if all(v.card == WILD for v in cards):
            continue
        if focus >= 0 and not any(v.card == focus for v in cards):
            continue
        yield _mk(RUN, cards, 2 * hi)


def _shapes(trick: Trick | None, lens: bool = False, wheel: bool = False) -> list[tuple[str, int]]:
    """(type, size) the meld may take; size 0 = any (starting a trick)."""
    if trick is None:
        return [(SINGLE, 1), (SET, 0), (RUN, 0)]
    if lens or wheel:
        if trick.type == SINGLE:
            return []
        if lens:
            return [(trick.type, trick.size + 1)]
        return [(RUN if trick.type == SET else SET, trick.size)]
    return [(trick.type, trick.size)]


def _gen(
    shapes: list[tuple[str, int]],
    pool: Sequence[VCard],
    w: int,
    suits: int,
    focus: Sequence[int] = (),
    gap: bool = False,
    set_only: bool = False,
    run_only: bool = False,
    ok: Ok = lambda v: True,
) -> Iterator[Meld]:
    f = focus[0] if focus else -1
    for type_, size in shapes:
        if type_ == SINGLE and not gap and not set_only and not run_only:
            yield from _singles(pool, w, f, ok)
        elif type_ == SET and not gap and not run_only:
            yield from _sets(pool, w, size, focus, ok)
        elif type_ == RUN and not set_only:
            yield from _runs(pool, w, size, f, suits, gap, ok)


def beats(value2: int, trick: Trick | None, equal_ok: bool = False) -> bool:
    if trick is None:
        return True
    if trick.reversed:
        return value2 < trick.value2 or (equal_ok and value2 == trick.value2)
    return value2 > trick.value2 or (equal_ok and value2 == trick.value2)


# Artifacts whose ability is meaningful only when answering a meld.
NEEDS_TRICK = frozenset({ROD, MIRROR, LENS, WHEEL})


def ability_applies(artifact: int, trick: Trick | None) -> bool:
    if artifact == GOFIRST:
        return False
    if artifact in NEEDS_TRICK and trick is None:
        return False
    return not (artifact in (LENS, WHEEL) and trick is not None and trick.type == SINGLE)


def melds_for(
    hand: Sequence[int], trick: Trick | None, suits: int, artifact: int = -1, ability: bool = False
) -> list[Meld]:
    """Every legal meld from ``hand`` answering ``trick``, played with ``artifact`` (-1: none),
    its ability used or not. Sorted by (value, size, id); ids unique. (Cached: a pure function.)"""
    return list(_melds_for(tuple(hand), trick, suits, artifact, ability))


@lru_cache(maxsize=4096)
def _melds_for(
    hand: tuple[int, ...], trick: Trick | None, suits: int, artifact: int, ability: bool
) -> tuple[Meld, ...]:
    out: dict[str, Meld] = {}
    for m in _iter_melds(hand, trick, suits, artifact, ability):
        out.setdefault(m.id, m)
    return tuple(sorted(out.values(), key=lambda m: (m.value2, m.size, m.id)))


@lru_cache(maxsize=4096)
def has_meld(hand: tuple[int, ...], trick: Trick | None, suits: int, artifact: int = -1, ability: bool = False) -> bool:
    """Is there at least one such meld? (Stops at the first.)"""
    return next(_iter_melds(hand, trick, suits, artifact, ability), None) is not None


def _iter_melds(hand: tuple[int, ...], trick: Trick | None, suits: int, artifact: int, ability: bool) -> Iterator[Meld]:
    pool = [_vc(c) for c in hand if c < WILD]
    w = sum(1 for c in hand if c == WILD)
    plus = 1 if ability and artifact == MOON else 0
    equal_ok = ability and artifact == MIRROR

    def ok(value2: int) -> bool:
        return beats(value2 + plus, trick, equal_ok)

    tag_artifact = artifact if artifact not in (TWIN, CROWN, BEACON) or not ability else -1
    shapes = _shapes(trick)
    melds: Iterable[Meld]
    if not ability or artifact < 0:
        melds = _gen(shapes, pool, w, suits, ok=ok)
    elif artifact == CAULDRON:
        melds = (
            m
            for i, v in enumerate(pool)
            for d in (-1, 1)
            if LOW <= v.rank + d <= HIGH
            for m in _gen(
                shapes, [*pool[:i], VCard(v.card, v.suit, v.rank + d), *pool[i + 1 :]], w, suits, focus=(v.card,), ok=ok
            )
        )
    elif artifact == PRISM:
        melds = (
            m
            for i, v in enumerate(pool)
            for s in range(suits)
            if s != v.suit
            for m in _gen(
                shapes,
                [*pool[:i], VCard(v.card, s, v.rank), *pool[i + 1 :]],
                w,
                suits,
                focus=(v.card,),
                run_only=True,
                ok=ok,
            )
        )
    elif artifact == TWIN:
        melds = (
            m
            for v in pool
            for m in _gen(
                shapes, [*pool, VCard(TWIN, v.suit, v.rank)], w, suits, focus=(TWIN, v.card), set_only=True, ok=ok
            )
        )
    elif artifact == BRIDGE:
        melds = _gen(shapes, pool, w, suits, gap=True, ok=ok)
    elif artifact in (LENS, WHEEL):
        melds = _gen(_shapes(trick, lens=artifact == LENS, wheel=artifact == WHEEL), pool, w, suits, ok=ok)
    elif artifact == CROWN:
        ok_crown = (trick is None or trick.type == SINGLE) and ok(2 * CROWN_RANK)
        melds = [_mk(SINGLE, [VCard(CROWN, ANY, CROWN_RANK)], 2 * CROWN_RANK)] if ok_crown else []
    elif artifact == BEACON:
        single = trick is None or trick.type == SINGLE
        melds = [_mk(SINGLE, [VCard(BEACON, ANY, r)], 2 * r) for r in range(LOW, HIGH + 1) if single and ok(2 * r)]
    else:  # moon, mirror, rod, gift, hourglass, veil: any plain meld (moon/mirror via ok)
        melds = _gen(shapes, pool, w, suits, ok=ok)
    for m in melds:
        if plus or tag_artifact >= 0:
            m = m._replace(value2=m.value2 + plus, artifact=tag_artifact, ability=ability)
        yield m


def any_meld(hand: Sequence[int], trick: Trick | None, suits: int) -> bool:
    """Has the hand any legal play at all (with or without an artifact)?"""
    if trick is None:
        # Starting a trick: any suited card or Wild is a Single; else the Crown or Beacon alone.
        return any(c <= WILD or c in (CROWN, BEACON) for c in hand)
    key = tuple(hand)
    if has_meld(key, trick, suits):
        return True
    return any(
        c >= ART and ability_applies(c, trick) and has_meld(key, trick, suits, c, True) for c in sorted(set(hand))
    )
