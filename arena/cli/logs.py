"""Logging for every Arena process (a placeholder: plain lines until structured logs land)."""

from __future__ import annotations

import logging


def setup_logging(level: str) -> None:
    logging.basicConfig(level=getattr(logging, level), format="%(asctime)s %(levelname)s %(name)s %(message)s")
