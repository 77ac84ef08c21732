"""The benchmarks' command-line options: numbers in the range a bench can run, refused by
argparse at once with the range said (a zero or a negative ended in a traceback after servers
had started, or in a bench that never ended), and a SIGTERM that cleans up as a Ctrl-C does."""

from __future__ import annotations

import argparse
import math
import signal
import sys
from collections.abc import Callable


def count(low: int = 1, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high`` (no upper bound if None)."""
    said = f"{low}..{high:,}" if high is not None else f"at least {low}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number ({said})") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value}: {said}")
        return value

    return parse


def counts(low: int = 1, high: int | None = None) -> Callable[[str], list[int]]:
    """An argparse ``type``: a comma-separated list of whole numbers, each from ``low`` to ``high``."""
    one = count(low, high)

    def parse(text: str) -> list[int]:
        parts = [part.strip() for part in text.split(",")]
        if not any(parts):
            raise argparse.ArgumentTypeError("an empty list: give numbers separated by commas, e.g. 1,16,64")
        return [one(part) for part in parts]

    return parse


def seconds(low: float = 0.0) -> Callable[[str], float]:
    """An argparse ``type``: a finite number of seconds above ``low`` (``inf`` ran forever)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not math.isfinite(value) or value <= low:
            raise argparse.ArgumentTypeError(f"{text}: a finite number of seconds above {low:g}")
        return value

    return parse


def finite(low: float, what: str, *, inclusive: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: a finite number of ``what`` above ``low`` (at least ``low`` if
    ``inclusive``): a negative delay, ``nan`` or ``inf`` reached the bench's servers as given."""
    said = f"a finite number of {what}, {'at least' if inclusive else 'above'} {low:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number ({said})") from None
        if not math.isfinite(value) or value < low or (value == low and not inclusive):
            raise argparse.ArgumentTypeError(f"{text}: {said}")
        return value

    return parse


def stop_cleanly_on_sigterm() -> None:
    """Make a SIGTERM (``timeout``, a CI job's end, ``kill``) raise SystemExit, so that the bench's
    ``with`` blocks stop the servers and workers it started: they outlived it under PID 1."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
