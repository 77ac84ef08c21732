"""Trick to the Future's cards, edges and setup tables (``components.toml``).

A card is an int ``suit * 9 + printed value``; suits in the order past, present, future, beyond.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.games.v1 import tricktothefuture_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

SUITS: tuple[str, ...] = tuple(_DATA["cards"]["suits"])
VALUES: tuple[int, ...] = tuple(_DATA["cards"]["values"])
TRUMP: int = SUITS.index(_DATA["cards"]["trump"])
PAST = SUITS.index("past")
RANKS = len(VALUES)
ALL_CARDS: tuple[int, ...] = tuple(range(len(SUITS) * RANKS))
GAME_DATA: dict[str, int] = dict(_DATA["game"])
ROUNDS: int = GAME_DATA["rounds"]
SEGMENTS: dict[int, frozenset[str]] = {int(k): frozenset(v) for k, v in _DATA["segments"].items() if k != "rotations"}
ROTATIONS: tuple[tuple[int, int], ...] = tuple((a, b) for a, b in _DATA["segments"]["rotations"])


def suit_of(card: int) -> int:
    return card // RANKS


def rank_of(card: int) -> int:
    return card % RANKS


def card_id(card: int) -> str:
    return _IDS[card]


_IDS = [f"{SUITS[c // RANKS]}-{c % RANKS}" for c in ALL_CARDS]


BY_ID: dict[str, int] = {card_id(c): c for c in ALL_CARDS}


def _edge(entry: str) -> tuple[int, int]:
    value, rods = entry.split(":")
    return int(value), int(rods)


EDGES: dict[int, tuple[tuple[int, int], ...]] = {int(k): tuple(_edge(e) for e in v) for k, v in _DATA["edges"].items()}
"""Printed value -> ((value, rods), ...): the printed value first (0 rods)."""


def derive_edges(printed: int) -> dict[int, int]:
    """The edge of a printed value from the seven-segment model: rotate (free), then light
    segments (1 rod each); the cheapest cost per reachable value."""
    starts = {printed} | {b for a, b in ROTATIONS if a == printed} | {a for a, b in ROTATIONS if b == printed}
    best: dict[int, int] = {}
    for start in starts:
        lit = SEGMENTS[start]
        for value, segs in SEGMENTS.items():
            if segs >= lit:
                cost = len(segs - lit)
                if value not in best or cost < best[value]:
                    best[value] = cost
    return best


@dataclass(frozen=True)
class Setup:
    deck: tuple[int, ...]  # the cards in play this round, canonical order
    removed: tuple[int, ...]
    hand: int
    rods: int
    spaces: int
    trump: bool  # a Beyond card is in the deck (not at 2 players)


def setup_for(deal: str, players: int) -> Setup:
    row = _DATA["setup"][deal][str(players)]
    gone_suits = {SUITS.index(s) for s in row["remove_suits"]}
    gone_ranks = set(row["remove_ranks"])
    gone_cards = {BY_ID[c] for c in row["remove_cards"]}
    deck = tuple(
        c for c in ALL_CARDS if suit_of(c) not in gone_suits and rank_of(c) not in gone_ranks and c not in gone_cards
    )
    removed = tuple(c for c in ALL_CARDS if c not in deck)
    trump = any(suit_of(c) == TRUMP for c in deck)
    return Setup(deck, removed, row["hand"], row["rods"], row["spaces"], trump)


def sort_cards(cards: Iterable[int]) -> list[int]:
    return sorted(cards)


PB_CARDS: dict[int, pb.Card] = {c: pb.Card(suit=SUITS[suit_of(c)], rank=rank_of(c)) for c in ALL_CARDS}
EDGE_TABLE: list[pb.EdgeRow] = [
    pb.EdgeRow(printed=v, edges=[pb.Edge(value=w, rods=r) for w, r in EDGES[v]]) for v in VALUES
]


def card_from_pb(message: pb.Card) -> int:
    return SUITS.index(message.suit) * RANKS + message.rank
