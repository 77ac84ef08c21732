"""Clock settings of a match (all in milliseconds, measured on the referee side).

* ``decision``: the limit for one decision before the time bank is drawn on;
* ``bank``: a time bank for the whole match, spent by decisions that go over the limit;
* ``increment``: added to the bank after each answered decision;
* ``startup``: the allowance to answer ``start`` with ``ready``;
* ``grace``: lateness tolerated past limit + bank, counted as a strike;
* ``strikes``: strikes allowed; one more is a timeout.

The defaults are generous on purpose: a loaded 2-core machine can stall a healthy bot for
hundreds of milliseconds, and a timeout must mean the bot was slow, not the machine. Tournaments
of fast bots tighten them (``--clock decision=200,bank=2000``).
"""

from __future__ import annotations

from arena.config import ConfigError, ascii_integer
from arena.v1 import bot_pb2

DEFAULTS: dict[str, int] = {
    "decision": 2000,
    "bank": 20000,
    "increment": 100,
    "startup": 10000,
    "grace": 200,
    "strikes": 3,
}
_FIELDS = {
    "decision": "decision_ms",
    "bank": "bank_ms",
    "increment": "increment_ms",
    "startup": "startup_ms",
    "grace": "grace_ms",
    "strikes": "max_strikes",
}


def clock_settings(values: dict[str, int] | None = None) -> bot_pb2.ClockSettings:
    """ClockSettings from named values (missing ones take the defaults)."""
    merged = {**DEFAULTS, **(values or {})}
    return bot_pb2.ClockSettings(**{_FIELDS[k]: int(v) for k, v in merged.items()})


def parse_clock(text: str | None) -> dict[str, int]:
    """``decision=200,bank=5000`` -> {"decision": 200, "bank": 5000} (validated). None: nothing
    given; an empty or blank text was given and says nothing, which is refused (a lost shell
    variable, ``--clock "$CLOCK"``, would otherwise run on the defaults unsaid)."""
    values: dict[str, int] = {}
    if text is not None and not text.strip(" ,"):
        raise ConfigError(f"--clock {text!r}: expected KEY=MS,... with KEY one of {', '.join(DEFAULTS)}")
    for item in filter(None, (text or "").split(",")):
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or key not in DEFAULTS:
            raise ConfigError(
                f"--clock {item!r}: expected KEY=MS (strikes=COUNT) with KEY one of {', '.join(DEFAULTS)}"
            )
        number = ascii_integer(raw)
        if number is None:
            unit = "strikes" if key == "strikes" else "milliseconds"
            raise ConfigError(f"--clock {key}={raw!r}: expected a whole number of {unit}")
        if key in values:
            raise ConfigError(f"--clock {key} is given twice ({values[key]} and {raw.strip()})")
        values[key] = number
    check_clock(values, "--clock ")
    return values


MAX_MS = 2**32 - 1
"""The largest value a clock field holds (a 32-bit count of milliseconds: about 49 days)."""


def check_clock(values: dict[str, int], where: str = "clock ") -> None:
    """ConfigError naming the first value out of range (``where`` prefixes the message)."""
    for key, value in values.items():
        if key not in DEFAULTS:
            raise ConfigError(f"{where}{key}: not a clock setting (one of {', '.join(DEFAULTS)})")
        positive = key in ("decision", "startup")
        if value < 0 or (positive and value == 0):
            raise ConfigError(f"{where}{key}={value}: must be {'positive' if positive else '>= 0'}")
        if value > MAX_MS:
            unit = "strikes" if key == "strikes" else "milliseconds, about 49 days"
            raise ConfigError(f"{where}{key}={value}: must be at most {MAX_MS} ({unit})")
