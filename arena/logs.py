"""Logging for every Arena process: one JSON object per line on stderr.

Each line has ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``, then whatever the
call passed with ``extra=``: the ids ``tournament``, ``match`` and ``bot`` where a line is about
them, and details such as ``verdict`` or ``seconds``; ``exc`` holds a traceback. The password of
any URL in a line is masked (``redis://:***@host:6379/0``): a broker URL carries it, and logs
are read by more people than the broker's owner::

    {"time": "2026-12-02T10:15:00.123+00:00", "level": "INFO", "logger": "workers.tasks",
     "message": "bot failed", "tournament": "skyfive-...", "match": "...", "bot": "grpc://...",
     "verdict": "illegal"}
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import Any

from arena.record import MatchRecord

# ``scheme://user:password@``: the password, up to the ``@`` (never past a quote, space or
# slash, so it stays inside one JSON string).
_URL_PASSWORD = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@\"]*:)[^/\s@\"]+@")


def mask_passwords(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ``***``."""
    return _URL_PASSWORD.sub(r"\1***@", text) if "://" in text else text


# Attributes every LogRecord has; anything else on a record came from ``extra=``.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return mask_passwords(json.dumps(entry, default=str, ensure_ascii=False))


class StderrHandler(logging.StreamHandler):
    """Writes to the current ``sys.stderr``: a progress bar that wraps it keeps lines above it."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def setup_logging(level: str) -> None:
    handler = StderrHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level))


def log_failures(logger: logging.Logger, record: MatchRecord, tournament: str, level: int = logging.DEBUG) -> None:
    """One line per bot failure of a match, with the ids an operator searches by (DEBUG by
    default: a worker's one INFO line per batch counts them; every failure is in the record)."""
    for failure in record.failures:
        logger.log(
            level,
            "bot failed",
            extra={
                "tournament": tournament,
                "match": record.match_id,
                "bot": record.seats[failure.seat]["bot"],
                "seat": failure.seat,
                "decision": failure.decision,
                "verdict": failure.verdict,
                "detail": failure.detail,
            },
        )
