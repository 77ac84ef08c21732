"""Soda Jerk components: the data of ``components.toml``, cards and tap arithmetic."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from arena.games.v1 import sodajerk_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

FLAVOUR_NAMES: tuple[str, ...] = tuple(_DATA["flavours"]["names"])
FLAVOURS: tuple[int, ...] = tuple(range(pb.STRAWBERRY, pb.STRAWBERRY + len(FLAVOUR_NAMES)))
SWITCH = pb.SWITCHEROO
VALUES: tuple[int, ...] = tuple(_DATA["numbers"]["values"])
START_VALUE: int = _DATA["taps"]["start_value"]
HAND: dict[int, int] = {int(k): v for k, v in _DATA["hands"].items() if k.isdigit()}
END_HAND: int = _DATA["hands"]["end_hand"]
ROUNDS: int = _DATA["hands"]["rounds"]
B_FLIPS: tuple[int, ...] = tuple(_DATA["powers"]["flips"])
CALL_PENALTY: int = _DATA["powers"]["last_call_penalty"]
POWER_NAMES: dict[str, int] = {
    "spill": pb.SPILL,
    "pour": pb.POUR,
    "move": pb.MOVE,
    "fizz": pb.FIZZ,
    "last-call": pb.LAST_CALL,
}
POWERS: dict[int, int] = {f: POWER_NAMES[_DATA["powers"][FLAVOUR_NAMES[f - 1]]] for f in FLAVOURS}
POWER_TEXT: dict[int, str] = {v: k for k, v in POWER_NAMES.items()}


class Card(NamedTuple):
    flavour: int  # a proto Flavour: STRAWBERRY..ORANGE, or SWITCHEROO
    number: int  # 1-3 (0 for a Switcheroo)

    @property
    def token(self) -> str:
        """Short id used in option ids: ``kiwi2``, ``switch``."""
        return "switch" if self.flavour == SWITCH else f"{FLAVOUR_NAMES[self.flavour - 1]}{self.number}"

    @property
    def name(self) -> str:
        return "Switcheroo" if self.flavour == SWITCH else f"{FLAVOUR_NAMES[self.flavour - 1].title()} {self.number}"


SWITCHEROO = Card(SWITCH, 0)


def tap_name(flavour: int) -> str:
    return FLAVOUR_NAMES[flavour - 1]


def flavour_cards(flavours: Iterable[int]) -> list[Card]:
    """The flavour cards of these flavours, in a fixed order [:36–39]."""
    return [Card(f, n) for f in flavours for n in VALUES]


class Slot:
    """A card under a tap: who placed it and whether it is face up."""

    __slots__ = ("card", "face_up", "seat")

    def __init__(self, card: Card, seat: int, face_up: bool = False) -> None:
        self.card = card
        self.seat = seat
        self.face_up = face_up

    def copy(self) -> Slot:
        return Slot(self.card, self.seat, self.face_up)

    def __repr__(self) -> str:
        return f"Slot({self.card.token}, {self.seat}, {'up' if self.face_up else 'down'})"


def tap_value(flavour: int, cards: Iterable[Card]) -> int:
    """Final value of a tap [:159–164] (ruling 1) with its Switcheroos (ruling 7)."""
    value = START_VALUE
    sign = 1
    for card in cards:
        if card.flavour == SWITCH:
            sign = -sign
        elif card.flavour == flavour:
            value += card.number
        else:
            value -= card.number
    return sign * value


def hand_score(hand: Iterable[Card], values: Mapping[int, int]) -> int:
    """A hand's points: each flavour card scores its tap's value; a Switcheroo 0 [:168–175]."""
    return sum(values.get(card.flavour, 0) for card in hand if card.flavour != SWITCH)
