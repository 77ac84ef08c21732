"""Bot parameters from a spec (``heuristic:keep=0.8,risk=2``): declared, typed, range-checked.

    params = read_params("heuristic", raw, [Param("risk", 1, 1, 6)])
    HeuristicBot(int(params["risk"]))

An unknown name, a non-number or a value out of range raises ConfigError naming every
parameter with its range, so a typo on the command line says what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
            value = int(text) if spec.integer else float(text)
        except ValueError:
            raise ConfigError(f"{bot}: {spec.name}={text!r} is not a number; allowed {allowed(specs)}") from None
        if not spec.low <= value <= spec.high:
            raise ConfigError(f"{bot}: {spec.name}={text} is out of range; allowed {allowed(specs)}")
        values[spec.name] = value
    return values
