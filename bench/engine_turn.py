"""A bot's view of an engine decision, for design benches that drive built-in bots against the
engine directly (no runner, no protobuf requests): the fields ``Bot.choose`` reads."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.message import Message

from arena.engine import Option


class EngineTurn:
    def __init__(self, kind: str, observation: Message, options: Sequence[Option]) -> None:
        self.kind = kind
        self.observation = observation
        self.options = tuple(options)
        self.option_ids = [o.id for o in options]
