"""Bot parameters from a spec (``heuristic:keep=0.8,risk=2``): declared, typed, range-checked.

    params = read_params("heuristic", raw, [Param("risk", 1, 1, 6)])
    HeuristicBot(int(params["risk"]))

An unknown name, a non-number or a value out of range raises ConfigError naming every
parameter with its range, so a typo on the command line says what is allowed.

:meth:`Param.spell` writes a value in its one normal form, and :func:`recording` lists the
parameters a bot factory read (declared, with their values): from them ``bots.registry``
spells a spec canonically without each bot declaring its parameters anywhere else.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from arena.config import ConfigError


@dataclass(frozen=True)
class Param:
    name: str
    default: float
    low: float
    high: float
    integer: bool = False
    choices: tuple[str, ...] = ()
    """A parameter that names one of these (``rollout=mast``): its value is the index."""

    def describe(self) -> str:
        if self.choices:
            return f"{self.name}={'|'.join(self.choices)}"

        def show(x: float) -> str:
            return str(int(x)) if self.integer or float(x).is_integer() else str(x)

        return f"{self.name}={show(self.low)}..{show(self.high)}"

    def spell(self, value: float) -> str:
        """The value's one normal spelling, which reads back to exactly ``value``: a choice by
        its name, a whole number without leading zeros or ``.0``, any other in its shortest repr."""
        if self.choices:
            return self.choices[int(value)]
        number = float(value)
        if number.is_integer() and abs(number) < 2**53:
            return str(int(number))
        return repr(number)


@dataclass(frozen=True)
class Reading:
    """One :func:`read_params` call: the bot, its parameters as given, those it declares, and
    the values they took (defaults included)."""

    bot: str
    raw: dict[str, str]
    specs: tuple[Param, ...]
    values: dict[str, float]


_readings: ContextVar[list[Reading] | None] = ContextVar("bot_param_readings", default=None)


@contextmanager
def recording() -> Iterator[list[Reading]]:
    """Within the block, every successful :func:`read_params` call (of this thread or task) is
    appended to the list yielded."""
    readings: list[Reading] = []
    token = _readings.set(readings)
    try:
        yield readings
    finally:
        _readings.reset(token)


def allowed(specs: Sequence[Param]) -> str:
    """Every parameter with its range, for an error message."""
    return ", ".join(p.describe() for p in specs) or "no parameters"


def read_params(bot: str, raw: Mapping[str, str], specs: Sequence[Param]) -> dict[str, float]:
    # Called for every bot a match makes: the allowed ranges are spelled out only for an error.
    if raw:
        unknown = sorted(set(raw) - {p.name for p in specs})
        if unknown:
            raise ConfigError(f"{bot} takes {allowed(specs)}; got {', '.join(unknown)}")
    values: dict[str, float] = {}
    for spec in specs:
        text = raw.get(spec.name)
        if text is None:
            values[spec.name] = spec.default
            continue
        if spec.choices:
            if text not in spec.choices:
                named = "|".join(spec.choices)
                raise ConfigError(f"{bot}: {spec.name}={text!r} is not one of {named}; allowed {allowed(specs)}")
            values[spec.name] = spec.choices.index(text)
            continue
        try:
            # ASCII only, as options are read (arena.config): int() and float() also take '３',
            # '٣' and '1_000', which then played as 3 and 1000 under another name.
            if not text.isascii() or "_" in text:
                raise ValueError(text)
            value = int(text) if spec.integer else float(text)
        except ValueError:
            kind = "a whole number" if spec.integer and _is_float(text) else "a number"
            raise ConfigError(f"{bot}: {spec.name}={text!r} is not {kind}; allowed {allowed(specs)}") from None
        if not spec.low <= value <= spec.high:
            raise ConfigError(f"{bot}: {spec.name}={text} is out of range; allowed {allowed(specs)}")
        values[spec.name] = value
    readings = _readings.get()
    if readings is not None:
        readings.append(Reading(bot, dict(raw), tuple(specs), dict(values)))
    return values


def _is_float(text: str) -> bool:
    if not text.isascii() or "_" in text:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True
