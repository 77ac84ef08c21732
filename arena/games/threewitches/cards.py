"""Three Witches' Ingredient cards and how two of them combine (``components.toml``)."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from arena.games.v1 import threewitches_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

SUITS: tuple[str, ...] = tuple(_DATA["suits"]["names"])
ELIXIR_SUIT = "elixir"
HAND_SIZE: int = _DATA["game"]["hand_size"]
TRICKS: int = _DATA["game"]["tricks"]
FATE_TO_WIN: int = _DATA["game"]["fate_to_win"]
LEAD_SUCCESS: int = _DATA["game"]["lead_success"]
LESSER_FAILURE: int = _DATA["game"]["lesser_failure"]
MAX_CARD_PASSES: int = _DATA["game"]["max_card_passes"]
EYES = 2  # a face-up 2 from the Lead makes the Lesser Witches play face-down [:307-315]


class Card(NamedTuple):
    suit: str
    rank: int  # the Elixir has rank 0: its value comes from its partner [:328]

    @property
    def is_elixir(self) -> bool:
        return self.suit == ELIXIR_SUIT

    @property
    def id(self) -> str:
        return "elixir" if self.is_elixir else f"{self.suit}-{self.rank}"

    def __str__(self) -> str:
        return "the Elixir" if self.is_elixir else f"{self.suit} {self.rank}"


ELIXIR = Card(ELIXIR_SUIT, 0)


def full_deck() -> list[Card]:
    """The 18 Ingredient cards in canonical order: the suits as listed, then the Elixir."""
    cards = [Card(suit, rank) for suit in SUITS for rank in _DATA["cards"][suit]]
    return [*cards, *[ELIXIR] * _DATA["elixir"]["count"]]


DECK: tuple[Card, ...] = tuple(full_deck())
_ORDER = {card: i for i, card in enumerate(DECK)}
BY_ID: dict[str, Card] = {card.id: card for card in DECK}


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=_ORDER.__getitem__)


def combine(a: Card, b: Card) -> int:
    """A team's value from its two cards [:214-250, :328].

    The Elixir doubles its partner; same rank or same suit add up; otherwise the higher rank.
    """
    if a.is_elixir:
        return 2 * b.rank
    if b.is_elixir:
        return 2 * a.rank
    if a.rank == b.rank or a.suit == b.suit:
        return a.rank + b.rank
    return max(a.rank, b.rank)


PB_CARDS: dict[Card, pb.Card] = {card: pb.Card(suit=card.suit, rank=card.rank) for card in DECK}


def card_pb(card: Card | None) -> pb.Card | None:
    return None if card is None else PB_CARDS[card]
