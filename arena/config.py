"""Match configuration: player count plus validated variant options.

A game declares its options as :class:`OptionSpec` entries; :func:`validate_options` turns raw
values (from the CLI, JSON or a proto map of strings) into typed values with defaults, and
rejects unknown keys or bad values with a message that names the allowed values.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

OptionValue = bool | int | str
N = TypeVar("N", int, float)


class ConfigError(ValueError):
    """A match configuration is invalid (player count, unknown option, bad value)."""


def ascii_integer(text: str) -> int | None:
    """``text`` as a whole number in ASCII digits (a sign and surrounding spaces allowed), else
    None: ``int()`` also takes ``３０`` and ``1_0``, which nobody types for 10. One reading for
    options, clocks and the command line's number flags."""
    match = re.fullmatch(r"\s*([-+]?[0-9]+)\s*", text)
    return int(match.group(1)) if match else None


def env_number(name: str, default: int, *, minimum: int, maximum: int | None = None, note: str = "") -> int:
    """A whole number from the environment variable ``name``, ``default`` when it is unset or
    blank. Anything else (a typo, a unit, a number below ``minimum`` or above ``maximum``) is a
    ConfigError naming the variable: an operator's setting is never silently replaced or
    clamped. ``note`` follows the expected range in the error."""
    if maximum is None:
        return _env(name, default, int, minimum, f"a whole number of at least {minimum}{note}")
    expected = f"a whole number from {minimum} to {maximum}{note}"
    value = _env(name, default, int, minimum, expected)
    if value > maximum:
        raise ConfigError(f"{name}={os.environ.get(name, '').strip()!r}: expected {expected}")
    return value


def env_seconds(name: str, default: float, *, minimum: float) -> float:
    """:func:`env_number` for a duration in seconds (a decimal number)."""
    return _env(name, default, float, minimum, f"a number of seconds of at least {minimum:g}")


def _env(name: str, default: N, parse: Callable[[str], N], minimum: float, expected: str) -> N:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = parse(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected {expected}") from None
    if not math.isfinite(value) or value < minimum:
        raise ConfigError(f"{name}={raw!r}: expected {expected}")
    return value


@dataclass(frozen=True)
class OptionSpec:
    """One variant option of a game."""

    key: str
    default: OptionValue
    help: str
    choices: tuple[OptionValue, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    @property
    def kind(self) -> type:
        return type(self.default)

    def allowed(self) -> str:
        if self.choices:
            return "|".join(str(c).lower() if isinstance(c, bool) else str(c) for c in self.choices)
        if self.kind is bool:
            return "true|false"
        if self.kind is int:
            lo = "" if self.minimum is None else str(self.minimum)
            hi = "" if self.maximum is None else str(self.maximum)
            return f"integer {lo}..{hi}" if (lo or hi) else "integer"
        return "text"

    def parse(self, raw: object) -> OptionValue:
        """A typed value from a raw one (a string from the command line, or already typed)."""
        value: OptionValue
        if self.kind is bool:
            if isinstance(raw, bool):
                value = raw
            elif str(raw).lower() in ("true", "1", "yes", "on"):
                value = True
            elif str(raw).lower() in ("false", "0", "no", "off"):
                value = False
            else:
                raise ConfigError(f"option {self.key}={raw!r}: expected {self.allowed()}")
        elif self.kind is int:
            if isinstance(raw, bool):
                raise ConfigError(f"option {self.key}={raw!r}: expected {self.allowed()}")
            parsed = raw if isinstance(raw, int) else ascii_integer(str(raw))
            if parsed is None:
                raise ConfigError(f"option {self.key}={raw!r}: expected {self.allowed()}")
            value = parsed
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise ConfigError(f"option {self.key}={value}: expected {self.allowed()}")
        else:
            value = str(raw)
        if self.choices and value not in self.choices:
            raise ConfigError(f"option {self.key}={raw!r}: expected one of {self.allowed()}")
        return value


@dataclass(frozen=True)
class MatchConfig:
    """Player count and typed option values (every declared option present)."""

    players: int
    options: Mapping[str, OptionValue] = field(default_factory=dict)

    def __getitem__(self, key: str) -> OptionValue:
        return self.options[key]

    def to_json(self) -> dict[str, object]:
        return {"players": self.players, "options": dict(sorted(self.options.items()))}


def validate_options(specs: Sequence[OptionSpec], raw: Mapping[str, object] | None) -> dict[str, OptionValue]:
    """Typed options with defaults filled in; unknown keys and bad values raise ConfigError."""
    by_key = {spec.key: spec for spec in specs}
    raw = dict(raw or {})
    unknown = sorted(set(raw) - set(by_key))
    if unknown:
        allowed = ", ".join(f"{s.key}={s.allowed()}" for s in specs) or "none"
        raise ConfigError(f"unknown option {unknown[0]!r}; allowed: {allowed}")
    return {spec.key: spec.parse(raw[spec.key]) if spec.key in raw else spec.default for spec in specs}
